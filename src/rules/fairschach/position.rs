//! A Fairschach position and its text form, Fairschach FEN (`docs/rules/fairschach.md` §1).

use std::fmt;

use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

use crate::rules::{StateError, VariantId};

/// Who moves in a pair: both sides at once, or (after the FSR 8 switch) one side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Simultaneous pairs, the normal case (`s`).
    Simultaneous,
    /// Normal alternating chess with this side to move (`w`/`b`).
    Normal(Color),
}

/// The corner squares whose rook may still castle, as a bitboard of a1, h1, a8, h8.
pub(crate) const CASTLING_CORNERS: [(char, Square, Color); 4] = [
    ('K', Square::H1, Color::White),
    ('Q', Square::A1, Color::White),
    ('k', Square::H8, Color::Black),
    ('q', Square::A8, Color::Black),
];

/// A Fairschach position: a chess board plus castling rights, an en-passant square
/// per side, the paused squares, the mode and the counters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FsPosition {
    pub(crate) board: Board,
    pub(crate) mode: Mode,
    /// Corners (a1, h1, a8, h8) whose rook keeps its castling right.
    pub(crate) castling: Bitboard,
    /// The en-passant target each side may capture onto in this pair:
    /// `[white's, black's]` (white's lies on rank 6, black's on rank 3).
    pub(crate) ep: [Option<Square>; 2],
    pub(crate) paused: Bitboard,
    pub(crate) halfmove: u32,
    pub(crate) pair: u32,
}

pub(crate) const fn side_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl FsPosition {
    /// The start position, `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1`.
    pub fn start() -> FsPosition {
        FsPosition {
            board: Board::new(),
            mode: Mode::Simultaneous,
            castling: Bitboard::from_iter([Square::A1, Square::H1, Square::A8, Square::H8]),
            ep: [None, None],
            paused: Bitboard::EMPTY,
            halfmove: 0,
            pair: 1,
        }
    }

    /// The pieces.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The mode: simultaneous pairs or normal chess with a side to move.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The paused squares.
    pub fn paused(&self) -> Bitboard {
        self.paused
    }

    /// The en-passant square `color` may capture onto in this pair.
    pub fn ep_for(&self, color: Color) -> Option<Square> {
        self.ep[side_index(color)]
    }

    /// The halfmove counter (pairs, or single moves in normal mode).
    pub fn halfmove(&self) -> u32 {
        self.halfmove
    }

    /// The number of the pair to be played next (the full-move number in normal mode).
    pub fn pair(&self) -> u32 {
        self.pair
    }

    /// Whether the two positions agree in FEN fields 1–5 (placement, mode,
    /// castling, ep, paused): the same position for threefold repetition (§6.4).
    pub fn is_repetition_of(&self, other: &FsPosition) -> bool {
        self.board == other.board
            && self.mode == other.mode
            && self.castling == other.castling
            && self.ep == other.ep
            && self.paused == other.paused
    }

    /// Fields 1–5 of the FEN: what threefold repetition compares (§6.4).
    pub fn repetition_key(&self) -> String {
        let full = self.to_string();
        full.rsplitn(3, ' ').nth(2).unwrap_or(&full).to_owned()
    }

    /// Reads Fairschach FEN, refusing inconsistent strings with every problem listed.
    ///
    /// # Errors
    /// A [`StateError`] naming each problem.
    pub fn from_fen(text: &str) -> Result<FsPosition, StateError> {
        let error =
            |problems: Vec<String>| StateError { variant: VariantId::Fairschach, text: text.to_owned(), problems };
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [placement, mode, castling, ep, paused, halfmove, pair] = fields[..] else {
            return Err(error(vec![format!(
                "expected 7 fields (placement mode castling ep paused halfmove pair), found {}",
                fields.len()
            )]));
        };
        let mut problems = Vec::new();
        let board: Board = match placement.parse() {
            Ok(board) => board,
            Err(e) => return Err(error(vec![format!("placement {placement:?}: {e}")])),
        };
        let mode = match mode {
            "s" => Mode::Simultaneous,
            "w" => Mode::Normal(Color::White),
            "b" => Mode::Normal(Color::Black),
            other => {
                problems.push(format!("mode must be s, w or b, not {other:?}"));
                Mode::Simultaneous
            }
        };
        for color in Color::ALL {
            let kings = (board.kings() & board.by_color(color)).count();
            if kings != 1 {
                problems.push(format!("{color} must have exactly one king, has {kings}"));
            }
        }
        let back_ranks = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
        if (board.pawns() & back_ranks).any() {
            problems.push("pawns on the first or eighth rank".to_owned());
        }

        let mut castling_rights = Bitboard::EMPTY;
        if castling != "-" {
            for c in castling.chars() {
                let Some(&(_, corner, color)) = CASTLING_CORNERS.iter().find(|(l, _, _)| *l == c) else {
                    problems.push(format!("castling field may hold only K, Q, k, q or -, not {c:?}"));
                    continue;
                };
                if castling_rights.contains(corner) {
                    problems.push(format!("castling right {c} given twice"));
                }
                castling_rights.add(corner);
                let king_home = Square::from_coords(File::E, corner.rank());
                if board.piece_at(king_home) != Some(Piece { color, role: Role::King }) {
                    problems.push(format!("castling right {c} without the {color} king on {king_home}"));
                }
                if board.piece_at(corner) != Some(Piece { color, role: Role::Rook }) {
                    problems.push(format!("castling right {c} without the {color} rook on {corner}"));
                }
            }
        }

        let mut ep_squares = [None, None];
        for sq in read_list(ep, "ep", &mut problems) {
            // A rank-3 square was passed by a white pawn: black may capture onto it.
            let (capturer, pawn_rank) = match sq.rank() {
                Rank::Third => (Color::Black, Rank::Fourth),
                Rank::Sixth => (Color::White, Rank::Fifth),
                _ => {
                    problems.push(format!("ep square {sq} is not on the third or sixth rank"));
                    continue;
                }
            };
            let pawn_at = Square::from_coords(sq.file(), pawn_rank);
            if board.piece_at(pawn_at) != Some(Piece { color: !capturer, role: Role::Pawn }) {
                problems.push(format!("ep square {sq} without the double-stepped {} pawn on {pawn_at}", !capturer));
            }
            let slot = &mut ep_squares[side_index(capturer)];
            if slot.is_some() {
                problems.push(format!("more than one ep square for {capturer}"));
            }
            *slot = Some(sq);
            if let Mode::Normal(to_move) = mode
                && to_move != capturer
            {
                problems.push(format!("ep square {sq} is for {capturer}, but {to_move} is to move"));
            }
        }

        let mut paused_squares = Bitboard::EMPTY;
        for sq in read_list(paused, "paused", &mut problems) {
            if paused_squares.contains(sq) {
                problems.push(format!("paused square {sq} listed twice"));
            }
            paused_squares.add(sq);
            match board.role_at(sq) {
                None => problems.push(format!("paused square {sq} is empty")),
                Some(Role::King) => problems.push(format!("paused square {sq} holds a king")),
                Some(_) => {}
            }
        }
        if paused_squares.any() && matches!(mode, Mode::Normal(_)) {
            problems.push("pauses in normal mode".to_owned());
        }

        let halfmove = halfmove.parse::<u32>().unwrap_or_else(|_| {
            problems.push(format!("halfmove must be a number, not {halfmove:?}"));
            0
        });
        let pair = match pair.parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => {
                problems.push(format!("pair must be a number from 1, not {pair:?}"));
                1
            }
        };

        if let Mode::Normal(to_move) = mode
            && problems.is_empty()
            && super::moves::in_check(&board, !to_move)
        {
            problems.push(format!("normal mode with {to_move} to move, but {} is in check", !to_move));
        }

        if problems.is_empty() {
            Ok(FsPosition {
                board,
                mode,
                castling: castling_rights,
                ep: ep_squares,
                paused: paused_squares,
                halfmove,
                pair,
            })
        } else {
            Err(error(problems))
        }
    }
}

fn read_list(field: &str, name: &str, problems: &mut Vec<String>) -> Vec<Square> {
    if field == "-" {
        return Vec::new();
    }
    field
        .split(',')
        .filter_map(|s| match s.parse::<Square>() {
            Ok(sq) => Some(sq),
            Err(_) => {
                problems.push(format!("{name} field: {s:?} is not a square"));
                None
            }
        })
        .collect()
}

fn write_list(f: &mut fmt::Formatter<'_>, squares: Bitboard) -> fmt::Result {
    if squares.is_empty() {
        return f.write_str("-");
    }
    // Bitboard order is a1, b1, …, h1, a2, …: by rank, then file, as §1 requires.
    for (i, sq) in squares.into_iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{sq}")?;
    }
    Ok(())
}

impl fmt::Display for FsPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.board)?;
        f.write_str(match self.mode {
            Mode::Simultaneous => "s",
            Mode::Normal(Color::White) => "w",
            Mode::Normal(Color::Black) => "b",
        })?;
        f.write_str(" ")?;
        if self.castling.is_empty() {
            f.write_str("-")?;
        } else {
            for (letter, corner, _) in CASTLING_CORNERS {
                if self.castling.contains(corner) {
                    write!(f, "{letter}")?;
                }
            }
        }
        f.write_str(" ")?;
        write_list(f, self.ep.iter().flatten().copied().collect())?;
        f.write_str(" ")?;
        write_list(f, self.paused)?;
        write!(f, " {} {}", self.halfmove, self.pair)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(fen: &str) -> Vec<String> {
        FsPosition::from_fen(fen).expect_err(fen).problems
    }

    #[test]
    fn start_position_round_trips() {
        let text = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1";
        assert_eq!(FsPosition::start().to_string(), text);
        assert_eq!(FsPosition::from_fen(text), Ok(FsPosition::start()));
    }

    /// §1: lists and castling letters in any order are read, and printed canonically.
    #[test]
    fn section_1_lists_print_sorted() {
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R s kqKQ d6,e3 f3,d5,e4 0 3";
        let pos = FsPosition::from_fen(fen).unwrap();
        assert_eq!(pos.to_string(), "rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R s KQkq e3,d6 f3,e4,d5 0 3");
        assert_eq!(pos.ep_for(Color::Black), Some(Square::E3));
        assert_eq!(pos.ep_for(Color::White), Some(Square::D6));
    }

    /// §1: a reader must refuse inconsistent strings.
    #[test]
    fn section_1_inconsistent_strings_are_refused() {
        let p = problems("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq e3 - 0 1");
        assert!(p[0].contains("without the double-stepped white pawn on e4"), "{p:?}");
        let p = problems("4k3/8/8/2pP4/2Pp4/8/8/4K3 s - c3,d3 - 0 9");
        assert!(p.iter().any(|p| p.contains("more than one ep square for black")), "{p:?}");
        let p = problems("4k3/8/8/8/8/8/8/4K3 s - - d4 0 9");
        assert!(p[0].contains("paused square d4 is empty"), "{p:?}");
        let p = problems("4k3/8/8/8/8/8/8/4K3 s - - e1 0 9");
        assert!(p[0].contains("holds a king"), "{p:?}");
        let p = problems("4k3/8/8/8/8/8/3N4/4K3 w - - d2 0 9");
        assert!(p.iter().any(|p| p.contains("pauses in normal mode")), "{p:?}");
    }

    #[test]
    fn structural_problems_are_all_listed() {
        let p = problems("4k3/8/8/8/8/8/8/8 x KX - - zero 0");
        assert!(p.iter().any(|p| p.contains("white must have exactly one king")), "{p:?}");
        assert!(p.iter().any(|p| p.contains("mode")), "{p:?}");
        assert!(p.iter().any(|p| p.contains("castling")), "{p:?}");
        assert!(p.iter().any(|p| p.contains("halfmove")), "{p:?}");
        assert!(p.iter().any(|p| p.contains("pair")), "{p:?}");
        assert!(problems("too few fields")[0].contains("expected 7 fields"));
        assert!(problems("4k3/8/8/8/8/8/8/4K3 s K - - 0 1")[0].contains("rook on h1"));
    }

    #[test]
    fn repetition_key_is_fields_one_to_five() {
        let pos = FsPosition::start();
        assert_eq!(pos.repetition_key(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - -");
    }
}
