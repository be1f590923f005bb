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

/// Writes one row of a state string's placement: each piece as its seat's
/// letter from `seat_letters` and its kind's letter, each run of empty cells
/// as its length in decimal.
pub(crate) fn write_row(out: &mut String, row: impl Iterator<Item = Content>, seat_letters: &[char]) {
    let mut empty = 0;
    for c in row {
        if is_piece(c) {
            if empty > 0 {
                out.push_str(&empty.to_string());
                empty = 0;
            }
            out.push(seat_letters[owner(c)]);
            out.push(kind(c).letter());
        } else {
            empty += 1;
        }
    }
    if empty > 0 {
        out.push_str(&empty.to_string());
    }
}

/// Reads one row of a state string's placement, as [`write_row`] writes it:
/// the contents of its cells in order, [`EMPTY`] for each empty one. A run of
/// empty cells is 1 to `longest` without a leading zero; `cells` names the
/// board's cells in the answer ("cells", "squares"). Whether the row has the
/// right length is the caller's to judge.
///
/// # Errors
/// What is wrong with the text, in the players' words.
pub(crate) fn read_row(text: &str, seat_letters: &[char], longest: usize, cells: &str) -> Result<Vec<Content>, String> {
    let b = text.as_bytes();
    let mut row = Vec::with_capacity(longest);
    let mut j = 0;
    while j < b.len() {
        if b[j].is_ascii_digit() {
            let start = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let digits = &text[start..j];
            let n: usize = digits.parse().unwrap_or(0);
            if n == 0 || digits.starts_with('0') || n > longest {
                return Err(format!("bad run of empty {cells} {digits:?}"));
            }
            row.extend(std::iter::repeat_n(EMPTY, n));
        } else {
            let (Some(&s), Some(&k)) = (b.get(j), b.get(j + 1)) else {
                return Err(format!("a piece is two letters; {:?} is cut short", &text[j..]));
            };
            let seat = seat_letters.iter().position(|&c| c as u8 == s);
            let (Some(seat), Some(k)) = (seat, Kind::from_letter(k)) else {
                return Err(format!(
                    "{:?} is not a piece (seat letter {}, then K, Q, R, B, N or P)",
                    String::from_utf8_lossy(&b[j..j + 2]),
                    one_of(seat_letters)
                ));
            };
            row.push(piece(seat, k));
            j += 2;
        }
    }
    Ok(row)
}

/// `a, b or c`.
fn one_of(letters: &[char]) -> String {
    match letters {
        [] => String::new(),
        [only] => only.to_string(),
        [rest @ .., last] => {
            format!("{} or {last}", rest.iter().map(char::to_string).collect::<Vec<_>>().join(", "))
        }
    }
}

/// A state string's counter: a non-negative decimal without sign or leading zero.
pub(crate) fn read_counter(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) || (text.len() > 1 && text.starts_with('0')) {
        return None;
    }
    text.parse().ok()
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

    #[test]
    fn a_row_reads_back_as_written() {
        let letters = ['w', 'n', 'b'];
        let row = [EMPTY, piece(0, Kind::King), EMPTY, EMPTY, piece(2, Kind::Pawn), EMPTY];
        let mut text = String::new();
        write_row(&mut text, row.into_iter(), &letters);
        assert_eq!(text, "1wK2bP1");
        assert_eq!(read_row(&text, &letters, 13, "cells"), Ok(row.to_vec()));
    }

    #[test]
    fn a_bad_row_is_refused_with_what_is_wrong() {
        let letters = ['s', 'w', 'n', 'e'];
        assert_eq!(read_row("15", &letters, 14, "squares"), Err("bad run of empty squares \"15\"".into()));
        assert_eq!(read_row("03", &letters, 14, "squares"), Err("bad run of empty squares \"03\"".into()));
        assert_eq!(
            read_row("2sK1s", &letters, 14, "squares"),
            Err("a piece is two letters; \"s\" is cut short".into())
        );
        assert_eq!(
            read_row("xK", &letters, 14, "squares"),
            Err("\"xK\" is not a piece (seat letter s, w, n or e, then K, Q, R, B, N or P)".into())
        );
        assert_eq!(read_counter("0"), Some(0));
        assert_eq!(read_counter("07"), None);
        assert_eq!(read_counter("-1"), None);
    }
}
