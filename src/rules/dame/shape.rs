//! The board as the renderers draw it, derived from the board record alone, so
//! that a replacement record draws without code changes.
//!
//! The layout is the record's rows: top row first, each row centred, its cells
//! one unit apart, rows `√3/2` apart, every cell an upward triangle (the black
//! cells of §2, which touch at corners only). On the reconstructed board this
//! is the triangle itself; a record of another shape comes out as its rows say.
//! Each seat's view is turned so that its baseline's middle lies straight below
//! the board's middle, and every baseline cell is named beside the board on
//! that side: in each view one baseline runs along the bottom and the other
//! two along the sides, so the names of a row's ends (and on the triangle,
//! with the bottom names, every cell's) can be read off.

use std::sync::Arc;

use super::record::{Board, CellId};
use crate::rules::{Army, BoardShape, Cell, CellShape, EdgeLabel, Outline, PieceKind, Point};

/// The letters a text board writes before each seat's stones: Yellow, Red, Blue.
pub(crate) const SEAT_LETTERS: [char; 3] = ['y', 'r', 'b'];

/// The drawing of a board record, and where each cell id lies in it.
#[derive(Clone, Debug)]
pub struct Drawing {
    /// The board description for the renderers.
    pub shape: Arc<BoardShape>,
    /// The renderer's cell of each cell id.
    pub cells: Vec<Cell>,
}

impl Drawing {
    /// Lays out `board` (see the module documentation).
    pub fn of(board: &Board) -> Drawing {
        let h = 3f32.sqrt() / 2.0;
        let rows: Vec<std::ops::Range<usize>> = board.rows().collect();
        let n_rows = rows.len();
        let mut ids = vec![Cell { file: 0, rank: 0, level: 0 }; board.len()];
        let mut centres = vec![Point::new(0.0, 0.0); board.len()];
        let mut cells = Vec::with_capacity(board.len());
        for (r, range) in rows.iter().enumerate() {
            let y = (n_rows - 1 - r) as f32 * h;
            let width = range.len() as f32;
            for (i, c) in range.clone().enumerate() {
                let cell = Cell { file: i as u8, rank: (n_rows - 1 - r) as u8, level: 0 };
                let centre = Point::new(i as f32 - (width - 1.0) / 2.0, y);
                ids[c] = cell;
                centres[c] = centre;
                cells.push(CellShape {
                    cell,
                    name: board.name(c as CellId).to_owned(),
                    centre,
                    outline: Outline::Triangle { up: true },
                    shade: 1,
                });
            }
        }
        cells.sort_by_key(|c| c.cell);
        let middle = mean(centres.iter().copied());
        let mut labels = Vec::new();
        let mut seat_turns = Vec::new();
        for s in 0..3 {
            let baseline = &board.seat(s).baseline;
            let base = mean(baseline.iter().map(|&c| centres[c as usize]));
            let (dx, dy) = (base.x - middle.x, base.y - middle.y);
            if dx.abs() < 1e-4 && dy.abs() < 1e-4 {
                seat_turns.push(0.0);
                continue;
            }
            // Turn the baseline's side to straight down (-90°), in whole degrees.
            let turn = (-90.0 - dy.atan2(dx).to_degrees()).rem_euclid(360.0).round() % 360.0;
            seat_turns.push(turn);
            let outward = Point::new(0.0, -1.0).turned(-turn);
            for &c in baseline {
                let centre = centres[c as usize];
                labels.push(EdgeLabel {
                    text: board.name(c).to_owned(),
                    level: 0,
                    at: Point::new(centre.x + outward.x * 0.5, centre.y + outward.y * 0.5),
                    outward,
                });
            }
        }
        let shape = BoardShape {
            cells,
            labels,
            pieces: vec![PieceKind::Man, PieceKind::DraughtsKing],
            seat_turns,
            armies: vec![Army::Yellow, Army::Red, Army::Blue],
            seat_letters: SEAT_LETTERS.to_vec(),
        };
        Drawing { shape: Arc::new(shape), cells: ids }
    }
}

fn mean(points: impl Iterator<Item = Point>) -> Point {
    let (mut x, mut y, mut n) = (0.0, 0.0, 0.0);
    for p in points {
        x += p.x;
        y += p.y;
        n += 1.0;
    }
    if n == 0.0 { Point::new(0.0, 0.0) } else { Point::new(x / n, y / n) }
}
