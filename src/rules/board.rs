//! A variant-neutral picture of a position, for the renderers.
//!
//! Renderers draw a [`BoardView`] and never look inside a variant's state: the
//! geometry says how cells are laid out, the pieces say what stands where.

use super::Seat;

/// How the cells of a board are laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Geometry {
    /// A rectangle of `files × ranks` squares, minus `holes` (Vierschach's corners).
    /// `labels` are the file letters, left to right.
    Square {
        /// Number of files (columns).
        files: u8,
        /// Number of ranks (rows).
        ranks: u8,
        /// Cells that are not part of the board.
        holes: Vec<Cell>,
    },
}

/// A cell of a board: file and rank from 0 (a1 is `Cell { file: 0, rank: 0, level: 0 }`);
/// `level` is for boards stacked in levels and 0 elsewhere.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    /// Column, from the left of the first seat.
    pub file: u8,
    /// Row, from the first seat's side.
    pub rank: u8,
    /// Level of a stacked board.
    pub level: u8,
}

/// A piece as a renderer needs it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceView {
    /// The seat that owns it.
    pub owner: Seat,
    /// Its kind as a FEN letter, lower case (`k q r b n p`).
    pub kind: char,
}

/// A position to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardView {
    /// The layout.
    pub geometry: Geometry,
    /// What stands where, in cell order.
    pub pieces: Vec<(Cell, PieceView)>,
    /// Cells to mark (Fairschach's paused pieces, for instance).
    pub marked: Vec<Cell>,
}

impl Cell {
    /// The cell named by square-grid coordinates: a file letter (`a` is file 0)
    /// and a rank number from 1, as in `e4` or `k10`; level 0.
    pub fn from_coordinates(text: &str) -> Option<Cell> {
        match coordinates(text.as_bytes()) {
            Some((cell, [])) => Some(cell),
            _ => None,
        }
    }
}

/// Reads a square at the start of `bytes`: a lower-case file letter and one or two
/// rank digits. Returns the cell and the rest.
fn coordinates(bytes: &[u8]) -> Option<(Cell, &[u8])> {
    let (&letter, rest) = bytes.split_first()?;
    if !letter.is_ascii_lowercase() {
        return None;
    }
    let digits = rest.iter().take(2).take_while(|b| b.is_ascii_digit()).count();
    let rank = rest[..digits].iter().fold(0u8, |n, d| n * 10 + (d - b'0'));
    if digits == 0 || rank == 0 {
        return None;
    }
    Some((Cell { file: letter - b'a', rank: rank - 1, level: 0 }, &rest[digits..]))
}

/// The from and to cells of a square-grid coordinate move: two squares, optionally
/// joined by `-` or `x`, optionally followed by a promotion (`q` or `=Q`). Reads
/// UCI (`e2e4`, `e7e8q`, castling as the king's move `e1g1`) and the from-to form
/// of larger boards (`d2-d4`, `k10k12`, `e13-e14=Q`); `None` for anything else.
///
/// ```
/// use fairsteward::rules::{Cell, coordinate_move_cells};
/// let c = |file, rank| Cell { file, rank, level: 0 };
/// assert_eq!(coordinate_move_cells("e2e4"), Some((c(4, 1), c(4, 3))));
/// assert_eq!(coordinate_move_cells("k10-k12"), Some((c(10, 9), c(10, 11))));
/// assert_eq!(coordinate_move_cells("O-O"), None);
/// ```
pub fn coordinate_move_cells(mv: &str) -> Option<(Cell, Cell)> {
    let (from, rest) = coordinates(mv.trim().as_bytes())?;
    let rest = rest.strip_prefix(b"-").or_else(|| rest.strip_prefix(b"x")).unwrap_or(rest);
    let (to, rest) = coordinates(rest)?;
    let promotion = match rest {
        [] => true,
        [p] | [b'=', p] => p.is_ascii_alphabetic(),
        _ => false,
    };
    promotion.then_some((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Options, VariantId};

    fn c(file: u8, rank: u8) -> Cell {
        Cell { file, rank, level: 0 }
    }

    #[test]
    fn coordinate_moves_of_any_square_grid() {
        assert_eq!(coordinate_move_cells("e7e8q"), Some((c(4, 6), c(4, 7))));
        assert_eq!(coordinate_move_cells("d2-d4"), Some((c(3, 1), c(3, 3))));
        assert_eq!(coordinate_move_cells("d2xe3"), Some((c(3, 1), c(4, 2))));
        assert_eq!(coordinate_move_cells("k10k12"), Some((c(10, 9), c(10, 11))));
        assert_eq!(coordinate_move_cells("e13-e14=Q"), Some((c(4, 12), c(4, 13))));
        assert_eq!(coordinate_move_cells("n4-a4"), Some((c(13, 3), c(0, 3))));
        for not in ["", "e2", "e0e4", "e2e", "E2E4", "5254", "Nf3", "e2e4qq", "e2e4=", "a100a1"] {
            assert_eq!(coordinate_move_cells(not), None, "{not:?}");
        }
        assert_eq!(Cell::from_coordinates("n14"), Some(c(13, 13)));
        assert_eq!(Cell::from_coordinates("n14x"), None);
    }

    #[test]
    fn the_variants_read_their_canonical_moves() {
        for v in VariantId::ALL {
            let rules = v.rulebook(&Options::new()).unwrap();
            assert_eq!(rules.move_cells("g1f3"), Some((c(6, 0), c(5, 2))), "{v}");
            assert_eq!(rules.move_cells("e1g1"), Some((c(4, 0), c(6, 0))), "{v}");
        }
    }
}
