//! Move text for Vierschach (`rules/vierschach.md` §9): reading what players send,
//! and writing moves in the players' SAN-like notation.
//!
//! Reading is apart from legality: the text becomes [`Pattern`]s first, which are
//! then matched against the seat's legal moves. A text is accepted when it names
//! exactly one of them. Files are `a`–`n` in lower case, so piece letters are
//! upper case only: English `K Q R B N` or German `K D T L S` (§9, Decision).

use super::geometry::{Square, parse_rank};
use super::moves::{MoveKind, VsMove};
use super::state::Kind;
use crate::rules::MoveError;

/// A legal move as the matcher sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    pub mv: VsMove,
    /// The moving piece.
    pub kind: Kind,
    /// Whether it captures (en passant included).
    pub capture: bool,
}

/// One reading of the text: what the move must look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pattern {
    /// `None`: any piece (a from-to text).
    kind: Option<Kind>,
    from_x: Option<u8>,
    from_y: Option<u8>,
    to: Square,
    promotion: Option<Kind>,
    /// For a pawn move without its origin: only captures (`x` written) or only
    /// steps (no `x`), as SAN means it.
    capture: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Reading {
    /// `O-O` (0) or `O-O-O` (1).
    Castle(u8),
    Pattern(Pattern),
}

const EXPECTED: &str = "send a move such as d2-d4, Nf3, exd5, O-O or e13-e14=Q";

fn not_a_move(text: &str, why: &str) -> MoveError {
    MoveError::NotAMove { text: text.trim().to_owned(), why: why.to_owned() }
}

/// Strips what players add around a move: spaces, the marks `+ # ! ?` (§9), `e.p.`,
/// and the dashes and crosses word processors substitute.
fn clean(text: &str) -> String {
    let mut s: String = text
        .trim()
        .chars()
        .map(|c| match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00d7}' => 'x',
            c => c,
        })
        .collect();
    loop {
        let before = s.len();
        s = s.trim_end().to_owned();
        for suffix in ["+", "#", "!", "?", "e.p."] {
            if s.len() > suffix.len() && s.ends_with(suffix) {
                s.truncate(s.len() - suffix.len());
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

/// A piece letter, English or German (§9).
fn piece_letter(c: u8) -> Option<Kind> {
    match c {
        b'K' => Some(Kind::King),
        b'Q' | b'D' => Some(Kind::Queen),
        b'R' | b'T' => Some(Kind::Rook),
        b'B' | b'L' => Some(Kind::Bishop),
        b'N' | b'S' => Some(Kind::Knight),
        _ => None,
    }
}

/// A promotion letter, either case (it follows the target square, so it cannot be
/// mistaken for a file).
fn promotion_letter(c: u8) -> Option<Kind> {
    piece_letter(c.to_ascii_uppercase()).filter(|&k| k != Kind::King)
}

fn strip_separator(b: &[u8]) -> (&[u8], bool) {
    match b {
        [rest @ .., b'x' | b'X' | b':'] => (rest, true),
        [rest @ .., b'-'] => (rest, false),
        r => (r, false),
    }
}

/// Splits a square off the end of `b`: the file letter and one or two digits.
fn split_square(b: &[u8]) -> Option<(&[u8], u8, &[u8])> {
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 2 || digits == b.len() {
        return None;
    }
    let (rest, digits) = b.split_at(b.len() - digits);
    let (&file, rest) = rest.split_last()?;
    // `then`, not `then_some`: the file's index exists only for a file letter.
    (b'a'..=b'n').contains(&file).then(|| (rest, file - b'a', digits))
}

fn read(text: &str) -> Result<Reading, MoveError> {
    let s = clean(text);
    if s.is_empty() {
        return Err(not_a_move(text, EXPECTED));
    }
    let castle: String = s.chars().map(|c| if c == '0' || c == 'o' { 'O' } else { c }).collect();
    match castle.as_str() {
        "O-O" => return Ok(Reading::Castle(0)),
        "O-O-O" => return Ok(Reading::Castle(1)),
        _ => {}
    }
    if !s.is_ascii() {
        return Err(not_a_move(text, EXPECTED));
    }
    let mut body = s.as_bytes();
    // Promotion: `=Q`, `=D`, `(Q)`, `/Q` or a bare letter after the target square.
    let mut promotion = None;
    if let [rest @ .., b'(', p, b')'] = body {
        body = rest;
        promotion = Some(promotion_letter(*p).ok_or_else(|| not_a_move(text, "promote to Q, R, B or N (D, T, L, S)"))?);
    } else if let [rest @ .., last] = body
        && last.is_ascii_alphabetic()
    {
        let rest = match rest {
            [r @ .., b'=' | b'/'] => r,
            r => r,
        };
        match promotion_letter(*last) {
            Some(k) if rest.last().is_some_and(u8::is_ascii_digit) => {
                promotion = Some(k);
                body = rest;
            }
            _ => return Err(not_a_move(text, &format!("it should end with the target square; {EXPECTED}"))),
        }
    }
    let Some((prefix, to_x, to_digits)) = split_square(body) else {
        return Err(not_a_move(text, &format!("it should end with the target square; {EXPECTED}")));
    };
    let square_name = format!("{}{}", char::from(b'a' + to_x), String::from_utf8_lossy(to_digits));
    let to = parse_rank(to_digits).and_then(|y| Square::new(to_x, y)).ok_or_else(|| {
        not_a_move(text, &format!("{square_name} is not a square of the board (files a-n, ranks 1-14, no corners)"))
    })?;
    let (prefix, mut took) = strip_separator(prefix);
    let (kind, origin) = match prefix {
        [c, rest @ ..] if piece_letter(*c).is_some() => (piece_letter(*c), rest),
        p => (None, p),
    };
    let (origin, took_after_origin) = strip_separator(origin);
    took |= took_after_origin;
    let (from_x, from_y) = match origin {
        [] => (None, None),
        [f @ b'a'..=b'n'] => (Some(f - b'a'), None),
        [f @ b'a'..=b'n', digits @ ..] => {
            (Some(f - b'a'), Some(parse_rank(digits).ok_or_else(|| not_a_move(text, EXPECTED))?))
        }
        digits => (None, Some(parse_rank(digits).ok_or_else(|| not_a_move(text, EXPECTED))?)),
    };
    let full_origin = from_x.is_some() && from_y.is_some();
    let kind = match kind {
        Some(k) => Some(k),
        None if full_origin => None,
        None => Some(Kind::Pawn),
    };
    let capture = (kind == Some(Kind::Pawn) && from_x.is_none() && from_y.is_none()).then_some(took);
    Ok(Reading::Pattern(Pattern { kind, from_x, from_y, to, promotion, capture }))
}

impl Pattern {
    fn fits(&self, c: &Candidate) -> bool {
        self.kind.is_none_or(|k| k == c.kind)
            && self.to == c.mv.to
            && self.from_x.is_none_or(|x| x == c.mv.from.x())
            && self.from_y.is_none_or(|y| y == c.mv.from.y())
            && self.promotion.is_none_or(|p| Some(p) == c.mv.promotion)
            && self.capture.is_none_or(|x| x == c.capture)
    }
}

fn fits(reading: &Reading, c: &Candidate) -> bool {
    match reading {
        Reading::Castle(side) => c.mv.kind == MoveKind::Castle(*side),
        Reading::Pattern(p) => p.fits(c),
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Pawn => "pawn",
        Kind::Knight => "knight",
        Kind::Bishop => "bishop",
        Kind::Rook => "rook",
        Kind::Queen => "queen",
        Kind::King => "king",
    }
}

/// Finds the one legal move `text` names among `legal` (the seat's legal moves).
pub(crate) fn find(text: &str, legal: &[Candidate]) -> Result<VsMove, MoveError> {
    let reading = read(text)?;
    let found: Vec<&Candidate> = legal.iter().filter(|c| fits(&reading, c)).collect();
    match found.as_slice() {
        [one] => return Ok(one.mv),
        [] => {}
        many => {
            let mut many = many.to_vec();
            many.sort_by_key(|c| c.mv);
            return Err(MoveError::Ambiguous {
                text: text.trim().to_owned(),
                candidates: many.iter().map(|c| c.mv.to_string()).collect(),
            });
        }
    }
    let (why, alternatives): (String, Vec<&Candidate>) = match &reading {
        _ if legal.is_empty() => ("there is no legal move".to_owned(), Vec::new()),
        Reading::Castle(_) => ("castling is not possible now".to_owned(), Vec::new()),
        Reading::Pattern(p) => match p.kind {
            Some(k) => (format!("no {} can move there", kind_name(k)), legal.iter().filter(|c| c.kind == k).collect()),
            None => (
                "no piece of yours can make that move".to_owned(),
                legal.iter().filter(|c| Some(c.mv.from.x()) == p.from_x && Some(c.mv.from.y()) == p.from_y).collect(),
            ),
        },
    };
    let mut listed: Vec<String> = alternatives.iter().map(|c| c.mv.to_string()).collect();
    listed.sort();
    let reason = if listed.is_empty() { why } else { format!("{why}; possible: {}", listed.join(", ")) };
    Err(MoveError::Illegal { text: text.trim().to_owned(), reason })
}

/// The move in SAN-like notation for the players: piece letter (none for a pawn),
/// as much of the origin as tells it apart from the seat's other legal moves,
/// `x` for a capture, the target, `=Q` for a promotion; `O-O` and `O-O-O`.
pub(crate) fn san(c: &Candidate, legal: &[Candidate]) -> String {
    let mv = c.mv;
    match mv.kind {
        MoveKind::Castle(0) => return "O-O".to_owned(),
        MoveKind::Castle(_) => return "O-O-O".to_owned(),
        _ => {}
    }
    let mut out = String::new();
    let rivals: Vec<&Candidate> = legal
        .iter()
        .filter(|o| {
            o.kind == c.kind && o.mv.to == mv.to && o.mv.from != mv.from && !matches!(o.mv.kind, MoveKind::Castle(_))
        })
        .collect();
    let file = char::from(b'a' + mv.from.x());
    let rank = mv.from.y() + 1;
    let origin = if rivals.is_empty() {
        String::new()
    } else if rivals.iter().all(|o| o.mv.from.x() != mv.from.x()) {
        file.to_string()
    } else if rivals.iter().all(|o| o.mv.from.y() != mv.from.y()) {
        rank.to_string()
    } else {
        mv.from.to_string()
    };
    if c.kind == Kind::Pawn {
        // A pawn capture names its file, or its square when that is not enough.
        if c.capture {
            if rivals.iter().all(|o| o.mv.from.x() != mv.from.x()) {
                out.push(file);
            } else {
                out.push_str(&mv.from.to_string());
            }
        }
    } else {
        out.push(c.kind.letter());
        out.push_str(&origin);
    }
    if c.capture {
        out.push('x');
    }
    out.push_str(&mv.to.to_string());
    if let Some(k) = mv.promotion {
        out.push('=');
        out.push(k.letter());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> Pattern {
        match read(text).unwrap_or_else(|e| panic!("{text}: {e}")) {
            Reading::Pattern(p) => p,
            Reading::Castle(_) => panic!("{text} read as castling"),
        }
    }

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    /// §9: from-to with `-`, `x` or nothing; promotion `=Q`.
    #[test]
    fn section_9_from_to() {
        for text in ["d2-d4", "d2xd4", "d2d4", "d2–d4"] {
            let p = pattern(text);
            assert_eq!((p.kind, p.from_x, p.from_y, p.to), (None, Some(3), Some(1), sq("d4")), "{text}");
        }
        let p = pattern("e13-e14=Q");
        assert_eq!((p.from_y, p.to, p.promotion), (Some(12), sq("e14"), Some(Kind::Queen)));
        let p = pattern("a10-a11");
        assert_eq!((p.from_x, p.from_y, p.to), (Some(0), Some(9), sq("a11")));
    }

    /// §9: SAN-like forms, English and German letters, marks ignored.
    #[test]
    fn section_9_san_like() {
        assert_eq!(pattern("Nf3").kind, Some(Kind::Knight));
        assert_eq!(pattern("Sf3").kind, Some(Kind::Knight));
        assert_eq!(pattern("Lc4").kind, Some(Kind::Bishop));
        assert_eq!(pattern("Dh5").kind, Some(Kind::Queen));
        assert_eq!(pattern("Td1").kind, Some(Kind::Rook));
        assert_eq!(pattern("Nef3").from_x, Some(4));
        assert_eq!(pattern("N1f3").from_y, Some(0));
        assert_eq!(pattern("N11f3").from_y, Some(10));
        assert_eq!(pattern("Bxa8").to, sq("a8"));
        let e4 = pattern("e4");
        assert_eq!((e4.kind, e4.capture), (Some(Kind::Pawn), Some(false)));
        let exd5 = pattern("exd5");
        assert_eq!((exd5.kind, exd5.from_x, exd5.capture), (Some(Kind::Pawn), Some(4), None));
        assert_eq!(pattern("e14=Q").promotion, Some(Kind::Queen));
        assert_eq!(pattern("e14=D").promotion, Some(Kind::Queen));
        assert_eq!(pattern("e14=S").promotion, Some(Kind::Knight));
        assert_eq!(pattern("Qh5+!?").to, sq("h5"));
        assert_eq!(pattern("Qh5#").to, sq("h5"));
        for t in ["O-O", "0-0", "O-O+"] {
            assert_eq!(read(t), Ok(Reading::Castle(0)), "{t}");
        }
        for t in ["O-O-O", "0-0-0"] {
            assert_eq!(read(t), Ok(Reading::Castle(1)), "{t}");
        }
    }

    #[test]
    fn garbage_and_missing_squares_are_not_moves() {
        for t in ["", "hello", "Nf15", "Zf3", "e", "++", "c2", "a1-a2", "Nd0", "e4 please", "e14=K", "d2-d04"] {
            assert!(matches!(read(t), Err(MoveError::NotAMove { .. })), "{t}: {:?}", read(t));
        }
    }
}
