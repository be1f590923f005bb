//! Boards for people: text for mail bodies, SVG for the web, PNG for mail images.
//!
//! Renderers draw a [`crate::rules::BoardView`] and never look into a variant's
//! state: the board is drawn from the variant's description of it
//! ([`crate::rules::BoardShape`]: cells, outlines, levels, edge labels, seat
//! turns), so every variant is drawn by the same code, from any seat's side.

pub mod cache;
mod deflate;
mod lru;
pub mod palette;
pub mod png;
pub mod source;
pub mod svg;
pub mod text;

#[cfg(test)]
pub(crate) mod fixtures {
    use std::sync::Arc;

    use crate::rules::{
        Army, BoardShape, BoardView, Cell, CellShape, EdgeLabel, Outline, PieceKind, PieceView, Point, Seat,
    };

    /// Vierschach's start (`docs/rules/vierschach.md` §3) as a view: a 14×14 plus
    /// shape with four armies, built without the variant.
    pub(crate) fn four_armies() -> BoardView {
        let c = |file: u8, rank: u8| Cell { file, rank, level: 0 };
        let corner = |v: u8| !(3..=10).contains(&v);
        let holes: Vec<Cell> =
            (0..14).flat_map(|r| (0..14).map(move |f| c(f, r))).filter(|x| corner(x.file) && corner(x.rank)).collect();
        use PieceKind::{Bishop, King, Knight, Pawn, Queen, Rook};
        let back = [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook];
        let mut pieces = Vec::new();
        for (i, &kind) in back.iter().enumerate() {
            let i = i as u8;
            let p = |seat: u8, kind: PieceKind| PieceView { owner: Seat::new(seat), kind };
            pieces.push((c(3 + i, 0), p(0, kind)));
            pieces.push((c(3 + i, 1), p(0, Pawn)));
            pieces.push((c(0, 10 - i), p(1, kind)));
            pieces.push((c(1, 10 - i), p(1, Pawn)));
            pieces.push((c(10 - i, 13), p(2, kind)));
            pieces.push((c(10 - i, 12), p(2, Pawn)));
            pieces.push((c(13, 3 + i), p(3, kind)));
            pieces.push((c(12, 3 + i), p(3, Pawn)));
        }
        pieces.sort_by_key(|(cell, _)| *cell);
        let shape = BoardShape::squares(14, 14, &holes, false, vec![0.0, 90.0, 180.0, 270.0]);
        BoardView { shape: Arc::new(shape), pieces, marked: Vec::new() }
    }

    fn shape_of(cells: Vec<CellShape>, labels: Vec<EdgeLabel>, seats: usize) -> Arc<BoardShape> {
        let mut cells = cells;
        cells.sort_by_key(|c| c.cell);
        let seat_turns = (0..seats).map(|s| 360.0 * s as f32 / seats as f32).collect();
        let armies = Army::DEFAULT.iter().copied().take(seats).collect();
        Arc::new(BoardShape {
            cells,
            labels,
            pieces: PieceKind::ALL.to_vec(),
            seat_turns,
            armies,
            seat_letters: Vec::new(),
        })
    }

    /// A made-up board of 19 pointed hexagons (a hexagon of side 3) for three
    /// seats, shaded in three colours, with letters along the first seat's edge.
    pub(crate) fn hexagons() -> BoardView {
        let h = 3f32.sqrt() / 2.0;
        let mut cells = Vec::new();
        let mut labels = Vec::new();
        for q in -2i8..=2 {
            for r in -2i8..=2 {
                if (q + r).abs() > 2 {
                    continue;
                }
                let cell = Cell { file: (q + 2) as u8, rank: (r + 2) as u8, level: 0 };
                let centre = Point::new(f32::from(q) + f32::from(r) / 2.0, f32::from(r) * h);
                if r == -2 {
                    let at = Point::new(centre.x, centre.y - 0.5);
                    labels.push(EdgeLabel {
                        text: cell.coordinates()[..1].to_owned(),
                        level: 0,
                        at,
                        outward: Point::new(0.0, -1.0),
                    });
                }
                let shade = (q - r).rem_euclid(3) as u8;
                cells.push(CellShape {
                    cell,
                    name: cell.coordinates(),
                    centre,
                    outline: Outline::HexagonPointed,
                    shade,
                });
            }
        }
        BoardView { shape: shape_of(cells, labels, 3), pieces: Vec::new(), marked: Vec::new() }
    }

    /// A made-up triangle of side 3 cut into 9 triangles, for three seats.
    pub(crate) fn triangles() -> BoardView {
        let h = 3f32.sqrt() / 2.0;
        let mut cells = Vec::new();
        for k in 0..3u8 {
            for i in 0..(2 * (3 - k) - 1) {
                let up = i % 2 == 0;
                let x = f32::from(k) * 0.5 + f32::from(i / 2) + if up { 0.5 } else { 1.0 };
                let y = f32::from(k) * h + if up { h / 3.0 } else { 2.0 * h / 3.0 };
                let cell = Cell { file: i, rank: k, level: 0 };
                let name = format!("t{k}{i}");
                cells.push(CellShape {
                    cell,
                    name,
                    centre: Point::new(x, y),
                    outline: Outline::Triangle { up },
                    shade: u8::from(!up),
                });
            }
        }
        BoardView { shape: shape_of(cells, Vec::new(), 3), pieces: Vec::new(), marked: Vec::new() }
    }

    /// A made-up board of two levels of 2×2 squares, for two seats.
    pub(crate) fn two_levels() -> BoardView {
        let flat = BoardShape::squares(2, 2, &[], true, vec![0.0, 180.0]);
        let mut cells = flat.cells.clone();
        let mut labels = flat.labels.clone();
        for c in &flat.cells {
            cells.push(CellShape { cell: Cell { level: 1, ..c.cell }, name: format!("{}'", c.name), ..c.clone() });
        }
        for l in &flat.labels {
            labels.push(EdgeLabel { level: 1, ..l.clone() });
        }
        BoardView { shape: shape_of(cells, labels, 2), pieces: Vec::new(), marked: Vec::new() }
    }

    /// Puts a king of every seat of `view` on the cell farthest towards that
    /// seat's side (where its turn says it sits), and returns those cells.
    pub(crate) fn kings_at_home(view: &mut BoardView) -> Vec<Cell> {
        let mut homes = Vec::new();
        for (s, turn) in view.shape.seat_turns.clone().into_iter().enumerate() {
            let down = Point::new(0.0, -1.0).turned(-turn);
            let reach = |c: &CellShape| c.centre.x * down.x + c.centre.y * down.y;
            let home = view.shape.cells.iter().max_by(|a, b| reach(a).total_cmp(&reach(b))).expect("a cell").cell;
            view.pieces.retain(|(c, _)| *c != home);
            view.pieces.push((home, PieceView { owner: Seat::new(s as u8), kind: PieceKind::King }));
            homes.push(home);
        }
        view.pieces.sort_by_key(|(c, _)| *c);
        homes
    }
}
