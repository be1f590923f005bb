//! Move text for Dreierschach (`docs/rules/dreierschach.md` §8): the boards the shared
//! reader ([`crate::rules::notation`]) reads cell names on, one per naming system,
//! the matcher's view of a move, and writing moves.
//!
//! The shared reader already reads every form §8 asks for once it names cells by
//! letter and number: from-to with `-`, `x` or nothing (`a7-c6`, `a7xc6`, `a7c6`),
//! promotion with `=` or without (`h4-i4=D`, `i4D`), the author's notation with a
//! piece letter, German or English, and an optional start letter, number or cell
//! (`Sg7`, `S6g7`, `S6xg7`, `Le8`), a pawn by its start number alone (`7d9`),
//! castling with O or 0, check marks ignored. Cell names are always lower case, so
//! piece letters are upper case only. What is left to this module is the board
//! (its letters `a`–`m` and numbers 1–13 under V2.2 or V2.3 names) and the
//! author's `=` after a move, a draw offer sent with it (§8, Decision).

use super::geometry::{Hex, Names};
use super::moves::{DsMove, MoveKind};
use super::state::Kind;
use crate::rules::notation::{Board, Candidate, Castle, Piece, Sq};

/// The board under V2.2 names: letter = row (`y`), number = `x` + 1.
const BOARD_V22: Board = Board {
    files: 13,
    ranks: 13,
    exists: |s| Hex::from_name_parts(s.file, s.rank, Names::V22).is_some(),
    lower_case_pieces: false,
    iccf: false,
    king_takes_rook: false,
    bare_pawn_target_is_step: false,
};

/// The board under V2.3 names: letter and number swapped.
const BOARD_V23: Board = Board { exists: |s| Hex::from_name_parts(s.file, s.rank, Names::V23).is_some(), ..BOARD_V22 };

/// The board the reader reads cell names on, under `names`.
pub(crate) const fn board(names: Names) -> &'static Board {
    match names {
        Names::V22 => &BOARD_V22,
        Names::V23 => &BOARD_V23,
    }
}

/// A cell as the reader names it under `names`: letter as its file, number as its rank.
pub(crate) fn sq(hex: Hex, names: Names) -> Sq {
    let (letter, number) = hex.name_parts(names);
    Sq { file: letter, rank: number }
}

/// A move of `seat` as the matcher sees it; `kind` is the moving piece.
pub(crate) fn candidate(mv: DsMove, kind: Kind, capture: bool, rook: Option<Hex>, names: Names) -> Candidate<DsMove> {
    Candidate {
        mv,
        piece: kind.into(),
        from: sq(mv.from, names),
        to: sq(mv.to, names),
        promotion: mv.promotion.map(Into::into),
        castle: match (mv.kind, rook) {
            (MoveKind::Castle(side), Some(rook)) => Some(Castle { long: side == 1, rook: sq(rook, names) }),
            _ => None,
        },
        capture,
    }
}

/// The text before the author's `=` that offers a draw with a move (`a7-c6=`,
/// §8, Decision): a trailing `=` not followed by a piece letter. Check marks
/// after it are ignored.
pub(crate) fn before_draw_offer(text: &str) -> Option<&str> {
    let t = text.trim_end().trim_end_matches(['+', '#']);
    t.strip_suffix('=').filter(|rest| !rest.trim().is_empty() && !rest.ends_with('='))
}

/// The move from-to with the game's cell names: the canonical form under V2.2
/// (`b7-d9`, `h4-i4=Q`, castling as the king's move), the same form in V2.3
/// names otherwise.
pub(crate) fn written(mv: DsMove, names: Names) -> String {
    let mut out = format!("{}-{}", mv.from.name(names), mv.to.name(names));
    if let Some(k) = mv.promotion {
        out.push('=');
        out.push(k.letter());
    }
    out
}

/// The move in the author's notation (§8), with English letters: the piece letter
/// (none for a pawn), as much of the start cell as tells it apart from the seat's
/// other legal moves of that kind of piece to that cell (its number, else its
/// letter, else the whole cell; a pawn at least its number), `x` for a capture, the target and the promotion
/// letter; `0-0` and `0-0-0` for castling.
pub(crate) fn author(c: &Candidate<DsMove>, legal: &[Candidate<DsMove>], names: Names) -> String {
    match c.mv.kind {
        MoveKind::Castle(0) => return "0-0".to_owned(),
        MoveKind::Castle(_) => return "0-0-0".to_owned(),
        _ => {}
    }
    let rivals: Vec<&Candidate<DsMove>> =
        legal.iter().filter(|o| o.piece == c.piece && o.to == c.to && o.from != c.from && o.castle.is_none()).collect();
    let (letter, number) = (char::from(b'a' + c.from.file), c.from.rank + 1);
    let origin = if rivals.is_empty() && c.piece == Piece::Pawn {
        // The author writes a pawn with its start number (`7d9`).
        number.to_string()
    } else if rivals.is_empty() {
        String::new()
    } else if rivals.iter().all(|o| o.from.rank != c.from.rank) {
        number.to_string()
    } else if rivals.iter().all(|o| o.from.file != c.from.file) {
        letter.to_string()
    } else {
        c.from.to_string()
    };
    let mut out = String::new();
    if c.piece != Piece::Pawn {
        out.push(c.piece.english());
    }
    out.push_str(&origin);
    if c.capture {
        out.push('x');
    }
    out.push_str(&c.mv.to.name(names));
    if let Some(p) = c.promotion {
        out.push(p.english());
    }
    out
}

/// The forms the game reads, with examples made from the legal moves `legal`
/// (a piece move and a pawn move where there are): `write moves from-to like
/// a7-c6 or a7xc6, or as the author writes them: Sc6, Nc6, S7c6 or 7d9;
/// castling 0-0 or 0-0-0`.
pub(crate) fn forms(legal: &[Candidate<DsMove>], names: Names) -> String {
    let mut sorted: Vec<&Candidate<DsMove>> = legal.iter().filter(|c| c.castle.is_none()).collect();
    sorted.sort_by(|a, b| (a.piece == Piece::Pawn, &a.mv).cmp(&(b.piece == Piece::Pawn, &b.mv)));
    let castling = "castle with 0-0 or 0-0-0";
    let Some(c) = sorted.first() else {
        return format!("write moves from-to (a7-c6, or with the cells of your board), or {castling}");
    };
    let (from, to) = (c.mv.from.name(names), c.mv.to.name(names));
    let mut author_forms = Vec::new();
    if c.piece != Piece::Pawn {
        let english = author(c, legal, names);
        author_forms.push(english.replacen(c.piece.english(), &c.piece.german().to_string(), 1));
        author_forms.push(english);
    }
    if let Some(p) = sorted.iter().find(|p| p.piece == Piece::Pawn) {
        author_forms.push(author(p, legal, names));
    }
    let last = author_forms.pop().unwrap_or_default();
    let author_text = if author_forms.is_empty() { last } else { format!("{} or {last}", author_forms.join(", ")) };
    format!(
        "write moves from-to like {from}-{to} or {from}x{to}, or as the author writes them: {author_text}; {castling}"
    )
}
