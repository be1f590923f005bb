//! Reading the move text players send, for games on the 8×8 chess board.
//!
//! `rules/chess.md` §6 and `rules/fairschach.md` §2 accept SAN, sloppy SAN (long
//! algebraic, zeros for castling, lower-case piece letters from phone keyboards),
//! UCI and ICCF numeric notation. Parsing is kept apart from legality: the text is
//! read into [`Pattern`]s first, then matched against the position's legal moves,
//! which the variant supplies as [`Candidate`]s. A text is accepted when it names
//! exactly one legal move.

use shakmaty::{CastlingSide, File, Rank, Role, Square};

use super::MoveError;

/// A legal move as the matcher sees it.
#[derive(Clone, Debug)]
pub(crate) struct Candidate<M> {
    pub mv: M,
    pub role: Role,
    pub from: Square,
    /// For castling, the king's target square.
    pub to: Square,
    pub promotion: Option<Role>,
    /// For castling, the rook's square (UCI's king-takes-rook form names it).
    pub castle_rook: Option<Square>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoleSpec {
    Any,
    Is(Role),
}

/// One reading of the text: what the move must look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pattern {
    role: RoleSpec,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    to: Square,
    promotion: Option<Role>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Reading {
    Castle(CastlingSide),
    /// Readings in order of preference: the first that fits a legal move wins.
    Patterns(Vec<Pattern>),
}

fn not_a_move(text: &str, why: &str) -> MoveError {
    MoveError::NotAMove { text: text.to_owned(), why: why.to_owned() }
}

const EXPECTED: &str = "send a move such as Nf3, exd5, O-O, e8=Q, g1f3 or 7163";

/// Strips what players add around a move: spaces, check and mate marks,
/// annotations, `e.p.`, and the dashes and crosses word processors substitute.
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
        for suffix in ["+", "#", "!", "?", "e.p.", "ep", "e.p"] {
            if s.len() > suffix.len() && s.to_ascii_lowercase().ends_with(suffix) {
                s.truncate(s.len() - suffix.len());
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

fn file_of(c: u8) -> Option<File> {
    (b'a'..=b'h').contains(&c).then(|| File::new(u32::from(c - b'a')))
}

fn rank_of(c: u8) -> Option<Rank> {
    (b'1'..=b'8').contains(&c).then(|| Rank::new(u32::from(c - b'1')))
}

fn promotion_letter(c: u8) -> Option<Role> {
    match c.to_ascii_lowercase() {
        b'q' => Some(Role::Queen),
        b'r' => Some(Role::Rook),
        b'b' => Some(Role::Bishop),
        b'n' => Some(Role::Knight),
        _ => None,
    }
}

fn iccf_digit(c: u8) -> Option<u32> {
    (b'1'..=b'8').contains(&c).then(|| u32::from(c - b'1'))
}

fn read(text: &str) -> Result<Reading, MoveError> {
    let s = clean(text);
    if s.is_empty() {
        return Err(not_a_move(text, EXPECTED));
    }
    let castle: String = s.chars().map(|c| if c == '0' || c == 'o' { 'O' } else { c }).collect();
    match castle.as_str() {
        "O-O" => return Ok(Reading::Castle(CastlingSide::KingSide)),
        "O-O-O" => return Ok(Reading::Castle(CastlingSide::QueenSide)),
        _ => {}
    }
    if !s.is_ascii() {
        return Err(not_a_move(text, EXPECTED));
    }
    let b = s.as_bytes();
    if b.iter().all(u8::is_ascii_digit) {
        return read_iccf(text, b).map(|p| Reading::Patterns(vec![p]));
    }

    // Promotion at the end: `e8=Q`, `e8Q`, `e8q`, `e7e8q`, `e8(Q)`, `e8/Q`.
    let mut body = b;
    let mut promotion = None;
    if let [rest @ .., b')'] = body {
        body = rest;
    }
    if let [rest @ .., last] = body
        && let Some(role) = promotion_letter(*last)
    {
        let rest = match rest {
            [r @ .., b'=' | b'/' | b'('] => r,
            r => r,
        };
        if matches!(rest.last(), Some(b'1' | b'8')) {
            promotion = Some(role);
            body = rest;
        }
    }
    let [prefix @ .., f, r] = body else {
        return Err(not_a_move(text, EXPECTED));
    };
    let (Some(to_file), Some(to_rank)) = (file_of(*f), rank_of(*r)) else {
        return Err(not_a_move(text, &format!("it should end with the target square; {EXPECTED}")));
    };
    let to = Square::from_coords(to_file, to_rank);
    let prefix = match prefix {
        [p @ .., b'x' | b'X' | b':' | b'-'] => p,
        p => p,
    };

    let mut patterns = Vec::new();
    let letter_role = |c: u8| match c {
        b'K' | b'k' => Some(Role::King),
        b'Q' | b'q' => Some(Role::Queen),
        b'R' | b'r' => Some(Role::Rook),
        b'B' => Some(Role::Bishop),
        b'N' | b'n' => Some(Role::Knight),
        b'P' | b'p' => Some(Role::Pawn),
        _ => None,
    };
    match prefix {
        [c, rest @ ..] if letter_role(*c).is_some() => {
            if let Some(p) = origin(letter_role(*c), rest, to, promotion) {
                patterns.push(p);
            }
        }
        // Lower-case b: the b-file first, then a bishop (chess.md §6, Decision).
        [b'b', rest @ ..] => {
            if let Some(p) = origin(None, prefix, to, promotion) {
                patterns.push(p);
            }
            if let Some(p) = origin(Some(Role::Bishop), rest, to, promotion) {
                patterns.push(p);
            }
        }
        _ => {
            if let Some(p) = origin(None, prefix, to, promotion) {
                patterns.push(p);
            }
        }
    }
    if patterns.is_empty() {
        return Err(not_a_move(text, EXPECTED));
    }
    Ok(Reading::Patterns(patterns))
}

/// The origin part of a move: optional file and rank after an optional piece letter.
/// Without a letter a full origin square means any piece (long algebraic, UCI),
/// anything less means a pawn (SAN).
fn origin(letter: Option<Role>, rest: &[u8], to: Square, promotion: Option<Role>) -> Option<Pattern> {
    let rest = match rest {
        [r @ .., b'x' | b'X' | b':' | b'-'] => r,
        r => r,
    };
    let (from_file, from_rank) = match rest {
        [] => (None, None),
        [c] => match (file_of(*c), rank_of(*c)) {
            (Some(f), _) => (Some(f), None),
            (_, Some(r)) => (None, Some(r)),
            _ => return None,
        },
        [f, r] => (Some(file_of(*f)?), Some(rank_of(*r)?)),
        _ => return None,
    };
    let role = match letter {
        Some(role) => RoleSpec::Is(role),
        None if from_file.is_some() && from_rank.is_some() => RoleSpec::Any,
        None => RoleSpec::Is(Role::Pawn),
    };
    Some(Pattern { role, from_file, from_rank, to, promotion })
}

fn read_iccf(text: &str, b: &[u8]) -> Result<Pattern, MoveError> {
    let why = "ICCF numeric notation is four digits 1-8 (file, rank, file, rank) \
               and a fifth for promotion (1=Q 2=R 3=B 4=N), e.g. 5254 or 57581";
    let digits: Option<Vec<u32>> = b.iter().take(4).map(|&c| iccf_digit(c)).collect();
    let (Some(d), 4 | 5) = (digits, b.len()) else {
        return Err(not_a_move(text, why));
    };
    let promotion = match b.get(4) {
        None => None,
        Some(b'1') => Some(Role::Queen),
        Some(b'2') => Some(Role::Rook),
        Some(b'3') => Some(Role::Bishop),
        Some(b'4') => Some(Role::Knight),
        Some(_) => return Err(not_a_move(text, why)),
    };
    Ok(Pattern {
        role: RoleSpec::Any,
        from_file: Some(File::new(d[0])),
        from_rank: Some(Rank::new(d[1])),
        to: Square::from_coords(File::new(d[2]), Rank::new(d[3])),
        promotion,
    })
}

impl Pattern {
    fn fits<M>(&self, c: &Candidate<M>) -> bool {
        let role_fits = match self.role {
            RoleSpec::Any => true,
            RoleSpec::Is(role) => role == c.role,
        };
        let full_origin = self.from_file.is_some() && self.from_rank.is_some();
        let to_fits = c.to == self.to
            || (full_origin
                && c.castle_rook == Some(self.to)
                && matches!(self.role, RoleSpec::Any | RoleSpec::Is(Role::King)));
        role_fits
            && to_fits
            && self.from_file.is_none_or(|f| f == c.from.file())
            && self.from_rank.is_none_or(|r| r == c.from.rank())
            && (self.promotion.is_none() || self.promotion == c.promotion)
    }
}

fn castle_fits<M>(side: CastlingSide, c: &Candidate<M>) -> bool {
    c.castle_rook.is_some() && c.to.file() == side.king_to_file()
}

pub(crate) fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// Finds the one legal move `text` names.
///
/// `notation` prints a candidate in SAN for messages. `refused` lists moves that
/// the variant's rules exclude with a reason (say, a paused piece); a text that
/// names one of them is refused with that reason.
pub(crate) fn find<M: Copy + Ord>(
    text: &str,
    legal: &[Candidate<M>],
    refused: &[(Candidate<M>, String)],
    notation: impl Fn(&Candidate<M>) -> String,
) -> Result<M, MoveError> {
    let reading = read(text)?;
    let fits = |c: &Candidate<M>, reading: &Reading, i: usize| match reading {
        Reading::Castle(side) => castle_fits(*side, c),
        Reading::Patterns(p) => p[i].fits(c),
    };
    let readings = match &reading {
        Reading::Castle(_) => 1,
        Reading::Patterns(p) => p.len(),
    };
    for i in 0..readings {
        let found: Vec<&Candidate<M>> = legal.iter().filter(|c| fits(c, &reading, i)).collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(one.mv),
            many => {
                return Err(MoveError::Ambiguous {
                    text: text.trim().to_owned(),
                    candidates: many.iter().map(|c| notation(c)).collect(),
                });
            }
        }
    }
    // Nothing legal fits: say why, and what could be sent instead.
    let reason = (0..readings)
        .find_map(|i| refused.iter().find(|(c, _)| fits(c, &reading, i)).map(|(_, why)| why.clone()))
        .unwrap_or_else(|| match &reading {
            Reading::Castle(_) => alternatives("castling is not possible now", legal.iter(), &notation),
            Reading::Patterns(p) => {
                let first = p[0];
                match first.role {
                    RoleSpec::Is(role) => alternatives(
                        &format!("no {} can move there", role_name(role)),
                        legal.iter().filter(|c| c.role == role),
                        &notation,
                    ),
                    RoleSpec::Any => {
                        let from = legal.iter().filter(|c| {
                            Some(c.from.file()) == first.from_file && Some(c.from.rank()) == first.from_rank
                        });
                        alternatives("no piece of yours can make that move", from, &notation)
                    }
                }
            }
        });
    Err(MoveError::Illegal { text: text.trim().to_owned(), reason })
}

fn alternatives<'a, M: Ord + 'a>(
    why: &str,
    moves: impl Iterator<Item = &'a Candidate<M>>,
    notation: &impl Fn(&Candidate<M>) -> String,
) -> String {
    let mut moves: Vec<&Candidate<M>> = moves.collect();
    moves.sort_by(|a, b| a.mv.cmp(&b.mv));
    let listed: Vec<String> = moves.into_iter().map(notation).collect();
    if listed.is_empty() { why.to_owned() } else { format!("{why}; possible: {}", listed.join(", ")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> Pattern {
        match read(text).expect(text) {
            Reading::Patterns(p) => p[0],
            Reading::Castle(_) => panic!("{text} read as castling"),
        }
    }

    #[test]
    fn castling_in_all_spellings() {
        for t in ["O-O", "0-0", "o-o", "O-O+", " 0-0 "] {
            assert_eq!(read(t), Ok(Reading::Castle(CastlingSide::KingSide)), "{t}");
        }
        for t in ["O-O-O", "0-0-0", "O-O-O#"] {
            assert_eq!(read(t), Ok(Reading::Castle(CastlingSide::QueenSide)), "{t}");
        }
    }

    #[test]
    fn san_and_sloppy_forms() {
        assert_eq!(pattern("Nf3").role, RoleSpec::Is(Role::Knight));
        assert_eq!(pattern("nf3").role, RoleSpec::Is(Role::Knight));
        let p = pattern("Ng1-f3");
        assert_eq!((p.from_file, p.from_rank), (Some(File::G), Some(Rank::First)));
        assert_eq!(pattern("e2-e4").role, RoleSpec::Any);
        assert_eq!(pattern("e4").role, RoleSpec::Is(Role::Pawn));
        assert_eq!(pattern("exd5").from_file, Some(File::E));
        assert_eq!(pattern("e8=Q").promotion, Some(Role::Queen));
        assert_eq!(pattern("e8q").promotion, Some(Role::Queen));
        assert_eq!(pattern("e7e8n").promotion, Some(Role::Knight));
        assert_eq!(pattern("Bf1xc4").role, RoleSpec::Is(Role::Bishop));
        assert_eq!(pattern("Qh4#").to, Square::H4);
        assert_eq!(pattern("exd6 e.p.").to, Square::D6);
        assert_eq!(pattern("e2\u{2013}e4").to, Square::E4, "an en dash from a word processor");
    }

    #[test]
    fn lower_case_b_is_the_file_first_then_a_bishop() {
        let Ok(Reading::Patterns(p)) = read("bxc3") else { panic!() };
        assert_eq!(p[0].role, RoleSpec::Is(Role::Pawn));
        assert_eq!(p[0].from_file, Some(File::B));
        assert_eq!(p[1].role, RoleSpec::Is(Role::Bishop));
        assert_eq!(p[1].from_file, None);
    }

    #[test]
    fn iccf_numeric() {
        let p = pattern("5254");
        assert_eq!((p.from_file, p.from_rank, p.to), (Some(File::E), Some(Rank::Second), Square::E4));
        assert_eq!(pattern("57581").promotion, Some(Role::Queen));
        assert_eq!(pattern("57584").promotion, Some(Role::Knight));
        assert!(read("5259").is_err());
        assert!(read("57585").is_err());
        assert!(read("525").is_err());
    }

    #[test]
    fn garbage_is_not_a_move() {
        for t in ["", "hello", "Nf9", "Zf3", "e", "++", "Nf3 please"] {
            assert!(matches!(read(t), Err(MoveError::NotAMove { .. })), "{t}");
        }
    }
}
