//! Move text for Vierschach (`docs/rules/vierschach.md` §9): the board the shared
//! reader ([`crate::rules::notation`]) reads on, the matcher's view of a move, and
//! writing moves in the players' SAN-like notation.
//!
//! Files are `a`–`n` in lower case, so piece letters are upper case only: English
//! `K Q R B N` or German `K D T L S` (§9, Decision); there is no numeric notation.

use super::geometry::{self, SEATS, Square};
use super::moves::{MoveKind, VsMove};
use super::state::Kind;
use crate::rules::notation::{Board, Candidate, Castle, Piece, Sq};

/// The plus-shaped board: 14 files and ranks, the 3×3 corners cut off.
pub(crate) const BOARD: Board = Board {
    files: 14,
    ranks: 14,
    exists: |s| geometry::exists(i16::from(s.file), i16::from(s.rank)),
    lower_case_pieces: false,
    iccf: false,
    king_takes_rook: false,
    bare_pawn_target_is_step: true,
};

impl From<Square> for Sq {
    fn from(s: Square) -> Sq {
        Sq { file: s.x(), rank: s.y() }
    }
}

/// A move of `seat` as the matcher sees it; `kind` is the moving piece.
pub(crate) fn candidate(seat: usize, mv: VsMove, kind: Kind, capture: bool) -> Candidate<VsMove> {
    Candidate {
        mv,
        piece: kind.into(),
        from: mv.from.into(),
        to: mv.to.into(),
        promotion: mv.promotion.map(Into::into),
        castle: match mv.kind {
            MoveKind::Castle(side) => {
                Some(Castle { long: side == 1, rook: SEATS[seat].castlings[usize::from(side)].rook_from.into() })
            }
            _ => None,
        },
        capture,
    }
}

/// The move in SAN-like notation for the players: piece letter, as much of the
/// origin as tells it apart from the seat's other legal moves, `x` for a capture,
/// the target, `=Q` for a promotion; `O-O` and `O-O-O`. A pawn move always names
/// its origin (`d2-d4`, `e6xd7`, `e13-e14=Q`): see [`pawn`].
pub(crate) fn san(c: &Candidate<VsMove>, legal: &[Candidate<VsMove>]) -> String {
    let mv = c.mv;
    match mv.kind {
        MoveKind::Castle(0) => return "O-O".to_owned(),
        MoveKind::Castle(_) => return "O-O-O".to_owned(),
        _ => {}
    }
    if c.piece == Piece::Pawn {
        return pawn(c);
    }
    let rivals: Vec<&Candidate<VsMove>> = legal
        .iter()
        .filter(|o| {
            o.piece == c.piece && o.mv.to == mv.to && o.mv.from != mv.from && !matches!(o.mv.kind, MoveKind::Castle(_))
        })
        .collect();
    let mut out = String::new();
    out.push(c.piece.english());
    if rivals.is_empty() {
        // The piece letter and target name the move.
    } else if rivals.iter().all(|o| o.mv.from.x() != mv.from.x()) {
        out.push(char::from(b'a' + mv.from.x()));
    } else if rivals.iter().all(|o| o.mv.from.y() != mv.from.y()) {
        out.push_str(&(mv.from.y() + 1).to_string());
    } else {
        out.push_str(&mv.from.to_string());
    }
    if c.capture {
        out.push('x');
    }
    out.push_str(&mv.to.to_string());
    out
}

/// A pawn move with its origin: `d2-d4`, `e6xd7` (en passant too), `e13-e14=Q`.
///
/// Why always, not only when the seat's legal moves need it (issue 32): the
/// pawns of the four seats go four ways, so a bare target (`d7`) or SAN's file
/// (`exd7`: from e6 or e8?) leaves a reader of the record guessing which pawn
/// moved unless they work out whose move it was and which way its pawns go. The
/// steward still reads the bare target when it names exactly one legal move.
fn pawn(c: &Candidate<VsMove>) -> String {
    let mv = c.mv;
    let mut out = mv.from.to_string();
    out.push(if c.capture { 'x' } else { '-' });
    out.push_str(&mv.to.to_string());
    if let Some(k) = mv.promotion {
        out.push('=');
        out.push(k.letter());
    }
    out
}
