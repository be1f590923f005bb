//! Boards for people: text for mail bodies, SVG for the web, PNG for mail images.
//!
//! Renderers draw a [`crate::rules::BoardView`] and never look into a variant's
//! state, so every variant with a square grid is drawn by the same code.

pub mod cache;
pub mod png;
pub mod svg;
pub mod text;

#[cfg(test)]
pub(crate) mod fixtures {
    use crate::rules::{BoardView, Cell, Geometry, PieceView, Seat};

    /// Vierschach's start (`rules/vierschach.md` §3) as a view: a 14×14 plus
    /// shape with four armies, built without the variant.
    pub(crate) fn four_armies() -> BoardView {
        let c = |file: u8, rank: u8| Cell { file, rank, level: 0 };
        let corner = |v: u8| !(3..=10).contains(&v);
        let holes: Vec<Cell> =
            (0..14).flat_map(|r| (0..14).map(move |f| c(f, r))).filter(|x| corner(x.file) && corner(x.rank)).collect();
        let back = ['r', 'n', 'b', 'q', 'k', 'b', 'n', 'r'];
        let mut pieces = Vec::new();
        for (i, &kind) in back.iter().enumerate() {
            let i = i as u8;
            let p = |seat: u8, kind: char| PieceView { owner: Seat::new(seat), kind };
            pieces.push((c(3 + i, 0), p(0, kind)));
            pieces.push((c(3 + i, 1), p(0, 'p')));
            pieces.push((c(0, 10 - i), p(1, kind)));
            pieces.push((c(1, 10 - i), p(1, 'p')));
            pieces.push((c(10 - i, 13), p(2, kind)));
            pieces.push((c(10 - i, 12), p(2, 'p')));
            pieces.push((c(13, 3 + i), p(3, kind)));
            pieces.push((c(12, 3 + i), p(3, 'p')));
        }
        pieces.sort_by_key(|(cell, _)| *cell);
        BoardView { geometry: Geometry::Square { files: 14, ranks: 14, holes }, pieces, marked: Vec::new() }
    }
}
