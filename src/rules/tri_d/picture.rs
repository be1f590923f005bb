//! The Tri-D board as the renderers draw it: one plane, the three main boards
//! stacked (Black's on top in White's view), each with the attack boards of
//! its pins beside it — queen's-side boards on the left, king's-side boards on
//! the right, half a square apart — every square at its true rank.
//!
//! A main board and its pins form a panel: W with pins 1 and 2, N with 3 and
//! 4, B with 5 and 6. The columns of a panel are `z a | a b c d | d e`: an
//! attack board's `a` or `d` file is the same column of the projection as the
//! main board's, drawn apart so both squares show. Rank numbers stand on the
//! left; on the right each main board's name (`W`, `N`, `B`) and each attack
//! board's pin (`QL1`, `KL4`) beside its outer row, so the squares' names can
//! be read off the picture. Black sees the same plane turned by half a turn.
//!
//! The shape follows the boards' arrangement (which pins hold a board): each
//! panel is as high as the ranks its boards cover now, so a board moving to an
//! empty pin pair grows its panel by a row. It is built for each view, a
//! matter of 64 cells.

use std::sync::Arc;

use super::geometry::{FILES, Level, Pin, Square};
use super::moves::{MoveKind, TdMove};
use super::state::TdState;
use crate::rules::{
    Army, BoardShape, BoardView, Cell, CellShape, EdgeLabel, MovePath, Outline, PieceKind, PieceView, Point, Seat,
};

/// The x of each drawing column's centre: `z a` (QL), `a b c d`, `d e` (KL).
const COLUMN_X: [f32; 8] = [0.5, 1.5, 3.0, 4.0, 5.0, 6.0, 7.5, 8.5];
/// The right edge of the drawing.
const RIGHT: f32 = 9.0;
/// The space between two panels, in squares.
const PANEL_GAP: f32 = 0.5;

fn panel(level: Level) -> u8 {
    match level {
        Level::Main(b) => b,
        Level::Pin(p) => (p.number() - 1) / 2,
    }
}

/// The cell a square is drawn in: column `z a a b c d d e` from 0, and
/// `panel * 10 + rank` (W 0, N 1, B 2).
pub fn cell_of(sq: Square) -> Cell {
    let level = sq.level();
    let file = match level {
        Level::Main(_) => sq.x() + 1,
        Level::Pin(p) if p.is_king_side() => sq.x() + 2,
        Level::Pin(_) => sq.x(),
    };
    Cell { file, rank: panel(level) * 10 + sq.y(), level: 0 }
}

/// Where the panels stand: each as high as the ranks its boards cover now,
/// stacked from W up with a small gap, so the picture has no empty rows.
struct Panels {
    /// Per panel: its lowest rank and the y of that rank's lower edge.
    low: [(u8, f32); 3],
}

impl Panels {
    fn of(squares: &[Square]) -> Panels {
        let mut span = [(u8::MAX, 0u8); 3];
        for sq in squares {
            let p = &mut span[panel(sq.level()) as usize];
            *p = (p.0.min(sq.y()), p.1.max(sq.y()));
        }
        let mut low = [(0, 0.0); 3];
        let mut y = 0.0;
        for (i, &(lo, hi)) in span.iter().enumerate() {
            low[i] = (lo, y);
            y += f32::from(hi - lo + 1) + PANEL_GAP;
        }
        Panels { low }
    }

    /// The y of the centre of `rank`'s row in `panel`.
    fn row(&self, panel: u8, rank: u8) -> f32 {
        let (lo, y) = self.low[panel as usize];
        y + f32::from(rank) - f32::from(lo) + 0.5
    }

    fn centre(&self, sq: Square) -> Point {
        Point::new(COLUMN_X[cell_of(sq).file as usize], self.row(panel(sq.level()), sq.y()))
    }
}

/// The board of `st`: the main boards and the attack boards where they stand.
pub fn shape(st: &TdState) -> BoardShape {
    let squares: Vec<Square> = (0..96u8).map(Square).filter(|s| st.bits.present & s.bit() != 0).collect();
    let panels = Panels::of(&squares);
    let mut cells: Vec<CellShape> = squares
        .iter()
        .map(|&sq| CellShape {
            cell: cell_of(sq),
            name: sq.to_string(),
            centre: panels.centre(sq),
            outline: Outline::Square,
            shade: u8::from((sq.x() + sq.y()) % 2 == 0),
        })
        .collect();
    cells.sort_by_key(|c| c.cell);
    let label = |text: String, at: Point, outward: Point| EdgeLabel { text, level: 0, at, outward };
    let mut labels = Vec::new();
    let bottom = cells.iter().map(|c| c.centre.y - 0.5).fold(f32::MAX, f32::min);
    let top = cells.iter().map(|c| c.centre.y + 0.5).fold(f32::MIN, f32::max);
    // File letters under and over every drawing column in use.
    for (i, &x) in COLUMN_X.iter().enumerate() {
        if cells.iter().any(|c| usize::from(c.cell.file) == i) {
            let file = [0, 1, 1, 2, 3, 4, 4, 5][i];
            let text = char::from(FILES[file]).to_string();
            labels.push(label(text.clone(), Point::new(x, bottom), Point::new(0.0, -1.0)));
            labels.push(label(text, Point::new(x, top), Point::new(0.0, 1.0)));
        }
    }
    // Rank numbers on the left of every row.
    let mut rows: Vec<(u8, f32)> = cells.iter().map(|c| (c.cell.rank, c.centre.y)).collect();
    rows.sort_by_key(|r| r.0);
    rows.dedup_by_key(|r| r.0);
    for &(row, y) in &rows {
        labels.push(label((row % 10).to_string(), Point::new(0.0, y), Point::new(-1.0, 0.0)));
    }
    // Names on the right: a main board's beside its second rank from the
    // panel's outside, a pin's beside its board's outer row.
    for (b, rank) in [(0u8, 2u8), (1, 5), (2, 7)] {
        let at = Point::new(RIGHT, panels.row(b, rank));
        labels.push(label(Level::MAIN_NAMES[b as usize].to_owned(), at, Point::new(1.0, 0.0)));
    }
    for n in 1..=6u8 {
        let names: Vec<String> = [false, true]
            .into_iter()
            .map(|k| Pin::new(n, k))
            .filter(|&p| st.has_board(p))
            .map(|p| p.to_string())
            .collect();
        if names.is_empty() {
            continue;
        }
        let outer = [0, 5, 2, 7, 4, 9][(n - 1) as usize];
        let at = Point::new(RIGHT, panels.row((n - 1) / 2, outer));
        labels.push(label(names.join(" "), at, Point::new(1.0, 0.0)));
    }
    BoardShape {
        cells,
        labels,
        pieces: PieceKind::CHESS.to_vec(),
        seat_turns: vec![0.0, 180.0],
        armies: vec![Army::White, Army::Black],
        seat_letters: Vec::new(),
    }
}

/// The position to draw.
pub fn view(st: &TdState) -> BoardView {
    let mut pieces: Vec<(Cell, PieceView)> = (0..96u8)
        .map(Square)
        .filter_map(|sq| {
            let (kind, colour) = st.piece(sq)?;
            let kind = PieceKind::from_fen(kind.letter()).unwrap_or(PieceKind::Pawn);
            Some((cell_of(sq), PieceView { owner: Seat::new(colour as u8), kind }))
        })
        .collect();
    pieces.sort_by_key(|(c, _)| *c);
    BoardView { shape: Arc::new(shape(st)), pieces, marked: Vec::new() }
}

/// The path of a move played in `before` (when given): from and to for a
/// piece move (the king's for castling), the captured square; for a board
/// move the four squares of the board where it now stands, ending on its
/// passenger's square.
pub fn path(before: Option<&TdState>, mv: &TdMove) -> MovePath {
    match mv.kind {
        MoveKind::Board => {
            let to = Pin(mv.to);
            let first = to.first_square();
            // Round the board: lower left, lower right, upper right, upper left.
            let mut ring: Vec<Square> = [0u8, 1, 3, 2].iter().map(|i| Square(first + i)).collect();
            if let Some(st) = before {
                let from = Pin(mv.from);
                let carried = (0..4u8).find(|i| st.board[(from.first_square() + i) as usize] != 0);
                if let Some(i) = carried
                    && let Some(at) = ring.iter().position(|s| s.0 == first + i)
                {
                    ring.rotate_left((at + 1) % 4);
                }
            }
            MovePath { cells: ring.into_iter().map(cell_of).collect(), captures: Vec::new(), grip: Vec::new() }
        }
        _ => {
            let (from, to) = (Square(mv.from), Square(mv.to));
            let mut captures = Vec::new();
            if let Some(st) = before {
                if mv.kind == MoveKind::EnPassant {
                    captures.extend(st.ep.map(cell_of));
                } else if let (Some((_, a)), Some((_, b))) = (st.piece(from), st.piece(to))
                    && a != b
                {
                    captures.push(cell_of(to));
                }
            }
            MovePath { cells: vec![cell_of(from), cell_of(to)], captures, grip: Vec::new() }
        }
    }
}

/// Where a player takes hold of a board move on the board before it: the four
/// squares of the board it carries (none for a piece move, whose path is on
/// the board).
pub fn grip(mv: &TdMove) -> Vec<Cell> {
    match mv.kind {
        MoveKind::Board => (0..4u8).map(|i| cell_of(Square(Pin(mv.from).first_square() + i))).collect(),
        _ => Vec::new(),
    }
}
