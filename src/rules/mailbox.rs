//! The chess armies of the games for more than two seats on a mailbox board
//! (Vierschach, Dreierschach): the kinds of piece, and a board cell's content in
//! one byte — empty, off the board, or a piece as its seat and kind — so that a
//! move generator reads a cell with one load and no bounds test.

use super::notation::Piece;

/// A kind of piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Pawn.
    Pawn = 1,
    /// Knight.
    Knight = 2,
    /// Bishop.
    Bishop = 3,
    /// Rook.
    Rook = 4,
    /// Queen.
    Queen = 5,
    /// King.
    King = 6,
}

impl Kind {
    /// The pieces a pawn may promote to, in the order moves are listed.
    pub const PROMOTIONS: [Kind; 4] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight];

    /// Every kind.
    pub const ALL: [Kind; 6] = [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen, Kind::King];

    /// The English letter (`P N B R Q K`), as the state strings write it.
    pub const fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Queen => 'Q',
            Kind::King => 'K',
        }
    }

    /// The kind of an English state-string letter.
    pub const fn from_letter(c: u8) -> Option<Kind> {
        match c {
            b'P' => Some(Kind::Pawn),
            b'N' => Some(Kind::Knight),
            b'B' => Some(Kind::Bishop),
            b'R' => Some(Kind::Rook),
            b'Q' => Some(Kind::Queen),
            b'K' => Some(Kind::King),
            _ => None,
        }
    }

    /// The kind of a content's low three bits (see [`piece`]).
    const fn from_code(code: u8) -> Kind {
        match code {
            1 => Kind::Pawn,
            2 => Kind::Knight,
            3 => Kind::Bishop,
            4 => Kind::Rook,
            5 => Kind::Queen,
            _ => Kind::King,
        }
    }
}

impl From<Kind> for Piece {
    fn from(kind: Kind) -> Piece {
        match kind {
            Kind::Pawn => Piece::Pawn,
            Kind::Knight => Piece::Knight,
            Kind::Bishop => Piece::Bishop,
            Kind::Rook => Piece::Rook,
            Kind::Queen => Piece::Queen,
            Kind::King => Piece::King,
        }
    }
}

/// A mailbox cell's content: [`EMPTY`], [`OFF`] or a piece (`seat << 3 | kind`).
pub(crate) type Content = u8;
/// An empty cell of the board.
pub(crate) const EMPTY: Content = 0;
/// Not a cell of the board (the mailbox's padding, a hole).
pub(crate) const OFF: Content = 0xff;

/// The content of a cell holding `seat`'s piece of `kind`.
pub(crate) const fn piece(seat: usize, kind: Kind) -> Content {
    ((seat as u8) << 3) | kind as u8
}

/// The seat owning the piece in `c` (only meaningful when [`is_piece`]).
pub(crate) const fn owner(c: Content) -> usize {
    (c >> 3) as usize
}

/// The kind of the piece in `c` (only meaningful when [`is_piece`]).
pub(crate) const fn kind(c: Content) -> Kind {
    Kind::from_code(c & 7)
}

/// Whether `c` holds a piece.
pub(crate) const fn is_piece(c: Content) -> bool {
    c != EMPTY && c != OFF
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_is_its_seat_and_kind_and_neither_empty_nor_off() {
        for seat in 0..4 {
            for k in Kind::ALL {
                let c = piece(seat, k);
                assert_eq!((owner(c), kind(c)), (seat, k));
                assert!(is_piece(c));
                assert_eq!(Kind::from_letter(k.letter() as u8), Some(k));
            }
        }
        assert!(!is_piece(EMPTY) && !is_piece(OFF));
        assert_eq!(Kind::from_letter(b'X'), None);
    }
}
