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
