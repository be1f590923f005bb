//! Move text (`docs/rules/tri-d-chess.md` §10): reading every accepted form, and
//! writing the players' short notation.
//!
//! Reading is kept apart from legality: the text is first read into
//! [`Pattern`]s, every way it can be read (a lower-case `b` after a rank may be
//! Black's level or the next square's file, so readings branch), and
//! [`is_move_text`] stops there. Then the patterns are matched against the
//! position's legal moves: a text is accepted when it names exactly one;
//! otherwise the refusal says why (no piece there, not yours, in check, which
//! levels it could mean).

use super::geometry::{FILES, Level, Pin, Square, read_level};
use super::moves::{MoveKind, TdMove, for_each_legal, has_legal_move, in_check, play};
use super::state::{Colour, Kind, TdState, colour_of};
use crate::rules::MoveError;

/// The longest text read as a move: longer input is refused unread.
const MAX_LEN: usize = 40;

/// A square as text names it, parts left out.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Spec {
    x: Option<u8>,
    y: Option<u8>,
    level: Option<Level>,
}

impl Spec {
    fn matches(&self, sq: Square) -> bool {
        self.x.is_none_or(|x| x == sq.x())
            && self.y.is_none_or(|y| y == sq.y())
            && self.level.is_none_or(|l| l == sq.level())
    }

    /// Whether it names file and rank (a from-to's from square).
    const fn is_square(&self) -> bool {
        self.x.is_some() && self.y.is_some()
    }
}

/// One reading of move text.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Body {
    Castle { long: bool },
    Board { from: Pin, to: Pin, promotion: Option<Kind> },
    Piece { piece: Option<Kind>, from: Spec, to: Spec, promotion: Option<Kind> },
}

/// A reading of a whole text: the pending promotion's prefix and the move.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Pattern {
    prefix: Option<(Spec, Kind)>,
    body: Body,
}

type Reads<'a, T> = Vec<(T, &'a [u8])>;

fn piece_letter(c: u8) -> Option<Kind> {
    match c {
        b'K' | b'k' => Some(Kind::King),
        b'Q' | b'q' | b'D' => Some(Kind::Queen),
        b'R' | b'r' | b'T' => Some(Kind::Rook),
        b'B' | b'L' => Some(Kind::Bishop),
        b'N' | b'n' | b'S' => Some(Kind::Knight),
        _ => None,
    }
}

fn promotion_letter(c: u8) -> Option<Kind> {
    match c.to_ascii_uppercase() {
        b'Q' | b'D' => Some(Kind::Queen),
        b'R' | b'T' => Some(Kind::Rook),
        b'B' | b'L' => Some(Kind::Bishop),
        b'N' | b'S' => Some(Kind::Knight),
        _ => None,
    }
}

fn file(c: u8) -> Option<u8> {
    FILES.iter().position(|&f| f == c).map(|x| x as u8)
}

/// A square with its level or without: `a2W`, `a2`.
fn square(t: &[u8]) -> Reads<'_, Spec> {
    let mut out = Vec::new();
    if let (Some(x), Some(&d)) = (t.first().copied().and_then(file), t.get(1))
        && d.is_ascii_digit()
    {
        let bare = Spec { x: Some(x), y: Some(d - b'0'), level: None };
        out.push((bare, &t[2..]));
        for (level, rest) in read_level(&t[2..]) {
            out.push((Spec { level: Some(level), ..bare }, rest));
        }
    }
    out
}

/// What may stand between a piece letter and the target: nothing, a file, a
/// rank, or a square with or without its level.
fn disambiguation(t: &[u8]) -> Reads<'_, Spec> {
    let mut out = vec![(Spec::default(), t)];
    if let Some(x) = t.first().copied().and_then(file) {
        out.push((Spec { x: Some(x), ..Spec::default() }, &t[1..]));
    }
    if let Some(&d) = t.first()
        && d.is_ascii_digit()
    {
        out.push((Spec { y: Some(d - b'0'), ..Spec::default() }, &t[1..]));
    }
    out.extend(square(t));
    out
}

fn promotion(t: &[u8]) -> Reads<'_, Option<Kind>> {
    let mut out = vec![(None, t)];
    if let [b'=', c, rest @ ..] = t
        && let Some(k) = promotion_letter(*c)
    {
        out.push((Some(k), rest));
    }
    out
}

fn pin(t: &[u8]) -> Option<(Pin, &[u8])> {
    read_level(t).into_iter().find_map(|(l, rest)| match l {
        Level::Pin(p) => Some((p, rest)),
        Level::Main(_) => None,
    })
}

fn bodies(t: &[u8]) -> Vec<Body> {
    let mut out = Vec::new();
    let castle = |t: &[u8]| {
        let o: Vec<u8> = t.iter().map(|c| if *c == b'0' || *c == b'o' { b'O' } else { *c }).collect();
        match o.as_slice() {
            b"O-O" => Some(false),
            b"O-O-O" => Some(true),
            _ => None,
        }
    };
    if let Some(long) = castle(t) {
        out.push(Body::Castle { long });
    }
    if let Some((from, rest)) = pin(t) {
        let rest = rest.strip_prefix(b"-").unwrap_or(rest);
        if let Some((to, rest)) = pin(rest) {
            for (promotion, rest) in promotion(rest) {
                if rest.is_empty() {
                    out.push(Body::Board { from, to, promotion });
                }
            }
        }
    }
    let letters: Vec<(Option<Kind>, &[u8])> = match t.first().copied().and_then(piece_letter) {
        Some(k) => vec![(Some(k), &t[1..])],
        None => vec![(None, t)],
    };
    for (piece, rest) in letters {
        for (from, rest) in disambiguation(rest) {
            let mut seps = vec![(false, rest)];
            if let Some(r) = rest.strip_prefix(b"-") {
                seps.push((true, r));
            }
            if let Some(r) = rest.strip_prefix(b"x").or_else(|| rest.strip_prefix(b":")) {
                seps.push((false, r));
            }
            for (dash, rest) in seps {
                if dash && !from.is_square() {
                    continue;
                }
                for (to, rest) in square(rest) {
                    for (promotion, rest) in promotion(rest) {
                        if rest.is_empty() {
                            out.push(Body::Piece { piece, from, to, promotion });
                        }
                    }
                }
            }
        }
    }
    out
}

/// Every reading of `text`.
fn patterns(text: &str) -> Vec<Pattern> {
    let text = text.trim().trim_end_matches(['+', '#']);
    if text.len() > MAX_LEN || !text.is_ascii() {
        return Vec::new();
    }
    let t = text.as_bytes();
    let (prefixes, body) = match text.split_once(';') {
        Some((head, body)) => {
            let mut prefixes = Vec::new();
            for (spec, rest) in square(head.as_bytes()) {
                if let [b'=', c] = rest
                    && let Some(k) = promotion_letter(*c)
                {
                    prefixes.push(Some((spec, k)));
                }
            }
            (prefixes, body.as_bytes())
        }
        None => (vec![None], t),
    };
    let mut out = Vec::new();
    for prefix in prefixes {
        for body in bodies(body) {
            let p = Pattern { prefix, body };
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Whether `text` is move text in §10's forms, judged without a position.
pub fn is_move_text(text: &str) -> bool {
    !patterns(text).is_empty()
}

/// The piece a move moves, in the position before it (the king for castling).
fn mover(st: &TdState, mv: &TdMove) -> Option<Kind> {
    match mv.kind {
        MoveKind::Board => None,
        MoveKind::CastleShort | MoveKind::CastleLong => Some(Kind::King),
        _ => {
            let c = st.board[mv.from as usize];
            match mv.prefix {
                Some((p, k)) if p.0 == mv.from => Some(k),
                _ => (c != 0).then(|| Kind::of_code(c)),
            }
        }
    }
}

fn matches(st: &TdState, p: &Pattern, mv: &TdMove) -> bool {
    let prefix_ok = match (p.prefix, mv.prefix) {
        (None, None) => true,
        (Some((spec, k)), Some((sq, kind))) => spec.matches(sq) && k == kind,
        _ => false,
    };
    if !prefix_ok {
        return false;
    }
    match (&p.body, mv.kind) {
        (Body::Castle { long }, MoveKind::CastleShort) => !long,
        (Body::Castle { long }, MoveKind::CastleLong) => *long,
        (Body::Board { from, to, promotion }, MoveKind::Board) => {
            from.0 == mv.from && to.0 == mv.to && promotion.is_none_or(|k| Some(k) == mv.promotion)
        }
        (Body::Piece { piece, from, to, promotion }, kind) if kind != MoveKind::Board => {
            let moved = mover(st, mv);
            let piece_ok = match piece {
                Some(k) => moved == Some(*k),
                None => from.is_square() || moved == Some(Kind::Pawn),
            };
            piece_ok
                && from.matches(Square(mv.from))
                && to.matches(Square(mv.to))
                && promotion.is_none_or(|k| Some(k) == mv.promotion)
        }
        _ => false,
    }
}

/// Reads `text` as one legal move of the side to move in `st`.
pub fn find(st: &TdState, text: &str) -> Result<TdMove, MoveError> {
    let patterns = patterns(text);
    if patterns.is_empty() {
        return Err(MoveError::NotAMove { text: text.to_owned(), why: forms(st) });
    }
    let mut found: Vec<TdMove> = Vec::new();
    for_each_legal(st, &mut |mv| {
        if patterns.iter().any(|p| matches(st, p, &mv)) {
            found.push(mv);
        }
        false
    });
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(MoveError::Illegal { text: text.to_owned(), reason: refusal(st, &patterns) }),
        many => {
            let mut candidates: Vec<String> = many.iter().map(|m| short(st, *m)).collect();
            candidates.sort();
            candidates.dedup();
            Err(MoveError::Ambiguous { text: text.to_owned(), candidates })
        }
    }
}

/// Why no legal move fits the readings of a text, and what to send instead.
fn refusal(st: &TdState, patterns: &[Pattern]) -> String {
    let us = st.side;
    if let Some(p) = st.pending
        && patterns.iter().all(|pat| pat.prefix.is_none())
    {
        return format!(
            "your pawn on {p} promotes before this move: name its piece first, as in {p}=Q;<your move> ({})",
            forms(st)
        );
    }
    if st.pending.is_none() && patterns.iter().all(|pat| pat.prefix.is_some()) {
        return format!("no promotion is pending; send the move alone ({})", forms(st));
    }
    let check = if in_check(&st.bits, us) { "your king is in check and " } else { "" };
    for p in patterns {
        match &p.body {
            Body::Piece { from, to, .. } if from.is_square() && from.level.is_some() => {
                let sq = Square::at(from.x.unwrap_or(0), from.y.unwrap_or(0), from.level.unwrap_or(Level::Main(0)));
                let Some(sq) = sq else { continue };
                if st.bits.present & sq.bit() == 0 {
                    return format!("there is no square {sq}: no attack board stands on its pin ({})", forms(st));
                }
                return match st.piece(sq) {
                    None => format!("there is no piece on {sq}"),
                    Some((_, c)) if c != us => format!("the piece on {sq} is not yours"),
                    Some((k, _)) => {
                        format!("{check}your {} on {sq} cannot move to {} now", k.name(), spec_text(to))
                    }
                };
            }
            Body::Board { from, .. } => {
                if !st.has_board(*from) {
                    return format!("no attack board stands on {from}");
                }
                let carried = from.squares() & st.bits.occupied();
                let owner = match carried.count_ones() {
                    0 if st.pins[from.0 as usize] == 1 => Colour::White,
                    0 => Colour::Black,
                    1 => colour_of(st.board[carried.trailing_zeros() as usize]),
                    _ => return format!("the board on {from} carries more than one piece and cannot move (§7)"),
                };
                if owner != us {
                    return format!(
                        "the board on {from} is not yours to move (§7: its piece's owner, or its marking, decides)"
                    );
                }
                return format!(
                    "{check}the board on {from} cannot go there: to a free neighbouring pin, forward or sideways when it carries a piece (§7)"
                );
            }
            Body::Castle { .. } => {
                return format!(
                    "{check}castling is not possible now (§6: not on the first move, not out of or through an attacked column, not after the king or rook moved)"
                );
            }
            _ => {}
        }
    }
    format!("{check}no legal move fits it ({})", forms(st))
}

fn spec_text(spec: &Spec) -> String {
    let mut s = String::new();
    if let Some(x) = spec.x {
        s.push(char::from(FILES[x as usize]));
    }
    if let Some(y) = spec.y {
        s.push(char::from(b'0' + y));
    }
    if let Some(l) = spec.level {
        s.push_str(&l.to_string());
    }
    s
}

/// The players' short notation of a legal move: piece letter, the least of
/// file, rank or square that tells it from the same piece's other moves to the
/// same square, `x` for a capture, the target with its level, `=Q`, and `+` or
/// `#`; castling `O-O`/`O-O-O`; board moves as written; the pending prefix.
pub fn short(st: &TdState, mv: TdMove) -> String {
    let mut out = String::new();
    if let Some((sq, k)) = mv.prefix {
        out.push_str(&format!("{sq}={};", k.letter()));
    }
    match mv.kind {
        MoveKind::CastleShort => out.push_str("O-O"),
        MoveKind::CastleLong => out.push_str("O-O-O"),
        MoveKind::Board => out.push_str(&TdMove { prefix: None, ..mv }.to_string()),
        _ => {
            let piece = mover(st, &mv).unwrap_or(Kind::Pawn);
            let from = Square(mv.from);
            let to = Square(mv.to);
            let capture = st.board[mv.to as usize] != 0 || mv.kind == MoveKind::EnPassant;
            let mut rivals = Vec::new();
            for_each_legal(st, &mut |m| {
                if m.prefix == mv.prefix
                    && m.to == mv.to
                    && m.from != mv.from
                    && !m.is_board()
                    && mover(st, &m) == Some(piece)
                    && m.kind != MoveKind::CastleShort
                    && m.kind != MoveKind::CastleLong
                {
                    rivals.push(Square(m.from));
                }
                false
            });
            if piece != Kind::Pawn {
                out.push(piece.letter());
            }
            let file = char::from(FILES[from.x() as usize]);
            if rivals.is_empty() {
                if piece == Kind::Pawn && capture {
                    out.push(file);
                }
            } else if rivals.iter().all(|r| r.x() != from.x()) {
                out.push(file);
            } else if rivals.iter().all(|r| r.y() != from.y()) {
                out.push(char::from(b'0' + from.y()));
            } else if rivals.iter().all(|r| r.x() != from.x() || r.y() != from.y()) {
                out.push(file);
                out.push(char::from(b'0' + from.y()));
            } else {
                out.push_str(&from.to_string());
            }
            if capture {
                out.push('x');
            }
            out.push_str(&to.to_string());
            if let Some(k) = mv.promotion {
                out.push('=');
                out.push(k.letter());
            }
        }
    }
    let after = play(st, mv);
    if in_check(&after.bits, after.side) {
        out.push(if has_legal_move(&after) { '+' } else { '#' });
    }
    out
}

/// The forms the game reads, with examples from the legal moves of the side
/// to move (of the start position when it has none): for help texts.
pub fn forms(st: &TdState) -> String {
    let mut legal = super::moves::legal_moves(st);
    if legal.is_empty() {
        let start = TdState::start();
        legal = super::moves::legal_moves(&start);
        return forms_of(&start, &legal);
    }
    legal.sort();
    forms_of(st, &legal)
}

fn forms_of(st: &TdState, legal: &[TdMove]) -> String {
    let piece_move = legal
        .iter()
        .find(|m| !m.is_board() && mover(st, m) != Some(Kind::Pawn) && m.promotion.is_none())
        .or_else(|| legal.iter().find(|m| !m.is_board()));
    let mut examples = Vec::new();
    if let Some(m) = piece_move {
        let bare = TdMove { prefix: None, ..*m };
        examples.push(bare.to_string());
        let s = short(st, *m);
        let s = s.rsplit(';').next().unwrap_or(&s).trim_end_matches(['+', '#']).to_owned();
        examples.push(s.clone());
        // The target's level left out, when no other level of that column fits.
        let to = Square(m.to);
        let other_level = legal
            .iter()
            .any(|o| o.from == m.from && o.to != m.to && Square(o.to).x() == to.x() && Square(o.to).y() == to.y());
        if !other_level && let Some(without) = s.strip_suffix(&to.level().to_string()) {
            examples.push(format!("{without} (the level left out when only one fits)"));
        }
    }
    let board = legal
        .iter()
        .find(|m| m.is_board())
        .map_or_else(|| "QL1-QL3".to_owned(), |m| TdMove { prefix: None, ..*m }.to_string());
    format!(
        "write moves like {}, levels W N B or QL1…KL6 (German S, DP1…, KP1…), board moves like {board}, castling O-O or O-O-O; a pending promotion first, like a8B=Q;<move>",
        examples.join(", ")
    )
}

/// Reads a canonical move without a position (for drawing a recorded move):
/// the squares or pins it names, its promotion and its prefix. Castling and en
/// passant read as plain moves of the king and the pawn.
pub fn read_canonical(text: &str) -> Option<TdMove> {
    let (prefix, body) = match text.split_once(';') {
        Some((head, body)) => {
            let (sq, kind) = head.split_once('=')?;
            let sq = sq.parse::<super::state::SquareName>().ok()?.0;
            let kind = promotion_letter(*kind.as_bytes().first()?).filter(|_| kind.len() == 1)?;
            (Some((sq, kind)), body)
        }
        None => (None, text),
    };
    let (body, promotion) = match body.split_once('=') {
        Some((b, k)) if k.len() == 1 => (b, Some(promotion_letter(k.as_bytes()[0])?)),
        Some(_) => return None,
        None => (body, None),
    };
    let (from, to) = body.split_once('-')?;
    let mv = match (pin(from.as_bytes()), pin(to.as_bytes())) {
        (Some((a, [])), Some((b, []))) => TdMove { kind: MoveKind::Board, from: a.0, to: b.0, promotion, prefix },
        _ => {
            let a = from.parse::<super::state::SquareName>().ok()?.0;
            let b = to.parse::<super::state::SquareName>().ok()?.0;
            TdMove { kind: MoveKind::Normal, from: a.0, to: b.0, promotion, prefix }
        }
    };
    Some(mv)
}
