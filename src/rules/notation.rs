//! Reading the move text players send, for every chess-like game: one reader,
//! parameterised by the board it names squares on ([`Board`]).
//!
//! `docs/rules/chess.md` §6, `docs/rules/fairschach.md` §2 and `docs/rules/vierschach.md` §9 accept
//! SAN and SAN-like forms, from-to (long algebraic, UCI) with or without `-`/`x`,
//! castling with O or 0, English (`K Q R B N`) and German (`K D T L S`) piece
//! letters, lower-case piece letters where the board allows them (phone keyboards;
//! not on Vierschach's board, whose files run to n) and ICCF numeric where the
//! board has it (8×8).
//!
//! Reading is kept apart from legality: the text is read into [`Pattern`]s first
//! ([`is_move_text`] stops there, and needs no position), then matched against the
//! position's legal moves, which the variant supplies as [`Candidate`]s in a
//! [`Position`]. A text is accepted when it names exactly one legal move; otherwise
//! the refusal says why (pinned, in check, paused, no piece there …) and shows the
//! forms the game reads with examples from the position's legal moves.

use std::fmt;

use super::MoveError;

/// A piece as move text names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Piece {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl Piece {
    /// The English name, for messages.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Piece::Pawn => "pawn",
            Piece::Knight => "knight",
            Piece::Bishop => "bishop",
            Piece::Rook => "rook",
            Piece::Queen => "queen",
            Piece::King => "king",
        }
    }

    /// The English letter (SAN).
    pub(crate) const fn english(self) -> char {
        match self {
            Piece::Pawn => 'P',
            Piece::Knight => 'N',
            Piece::Bishop => 'B',
            Piece::Rook => 'R',
            Piece::Queen => 'Q',
            Piece::King => 'K',
        }
    }

    /// The German letter (there is none for the pawn: `B` is the English bishop).
    pub(crate) const fn german(self) -> char {
        match self {
            Piece::Pawn => 'P',
            Piece::Knight => 'S',
            Piece::Bishop => 'L',
            Piece::Rook => 'T',
            Piece::Queen => 'D',
            Piece::King => 'K',
        }
    }

    /// An upper-case piece letter, English or German.
    const fn from_letter(c: u8) -> Option<Piece> {
        match c {
            b'K' => Some(Piece::King),
            b'Q' | b'D' => Some(Piece::Queen),
            b'R' | b'T' => Some(Piece::Rook),
            b'B' | b'L' => Some(Piece::Bishop),
            b'N' | b'S' => Some(Piece::Knight),
            b'P' => Some(Piece::Pawn),
            _ => None,
        }
    }

    /// A promotion letter, either case (it follows the target square, so it is
    /// never a file), English or German.
    const fn promotion(c: u8) -> Option<Piece> {
        match Piece::from_letter(c.to_ascii_uppercase()) {
            Some(Piece::King | Piece::Pawn) | None => None,
            p => p,
        }
    }
}

impl From<shakmaty::Role> for Piece {
    fn from(role: shakmaty::Role) -> Piece {
        match role {
            shakmaty::Role::Pawn => Piece::Pawn,
            shakmaty::Role::Knight => Piece::Knight,
            shakmaty::Role::Bishop => Piece::Bishop,
            shakmaty::Role::Rook => Piece::Rook,
            shakmaty::Role::Queen => Piece::Queen,
            shakmaty::Role::King => Piece::King,
        }
    }
}

impl From<Piece> for shakmaty::Role {
    fn from(piece: Piece) -> shakmaty::Role {
        match piece {
            Piece::Pawn => shakmaty::Role::Pawn,
            Piece::Knight => shakmaty::Role::Knight,
            Piece::Bishop => shakmaty::Role::Bishop,
            Piece::Rook => shakmaty::Role::Rook,
            Piece::Queen => shakmaty::Role::Queen,
            Piece::King => shakmaty::Role::King,
        }
    }
}

/// A square as move text names it: file and rank counted from 0 (`a1` is 0, 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Sq {
    pub file: u8,
    pub rank: u8,
}

impl From<shakmaty::Square> for Sq {
    fn from(sq: shakmaty::Square) -> Sq {
        Sq { file: u32::from(sq.file()) as u8, rank: u32::from(sq.rank()) as u8 }
    }
}

impl fmt::Display for Sq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.file), u32::from(self.rank) + 1)
    }
}

/// The board a game's notation names squares on, and the forms its rules file
/// allows beyond the common ones.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Board {
    /// Files `a`… (at most 26).
    pub files: u8,
    /// Ranks `1`… (at most 99).
    pub ranks: u8,
    /// Whether a square inside `files` × `ranks` is on the board (corners cut off).
    pub exists: fn(Sq) -> bool,
    /// Lower-case piece letters (`nf3`), read as a file first where the letter is
    /// one (`b`, `d` on 8×8: `bc3` is a pawn move unless none fits).
    pub lower_case_pieces: bool,
    /// ICCF numeric notation: four digits, a fifth for the promotion piece.
    pub iccf: bool,
    /// UCI's king-takes-rook castling (`e1h1`).
    pub king_takes_rook: bool,
    /// A pawn move written by its target alone (`d3`) is a step, and with `x`
    /// (`xd3`) a capture (Vierschach §9, where pawns move four ways). Otherwise
    /// `x` is not checked (chess §6).
    pub bare_pawn_target_is_step: bool,
}

fn every_square(_: Sq) -> bool {
    true
}

/// The 8×8 board of chess and Fairschach.
pub(crate) const CHESS_BOARD: Board = Board {
    files: 8,
    ranks: 8,
    exists: every_square,
    lower_case_pieces: true,
    iccf: true,
    king_takes_rook: true,
    bare_pawn_target_is_step: false,
};

/// Castling, as the matcher sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Castle {
    /// `O-O-O` (true) or `O-O`.
    pub long: bool,
    /// The rook's square (UCI's king-takes-rook form names it).
    pub rook: Sq,
}

/// A move as the matcher sees it.
#[derive(Clone, Debug)]
pub(crate) struct Candidate<M> {
    pub mv: M,
    pub piece: Piece,
    pub from: Sq,
    /// For castling, the king's target square.
    pub to: Sq,
    pub promotion: Option<Piece>,
    pub castle: Option<Castle>,
    /// Whether it captures (en passant included).
    pub capture: bool,
}

impl<M> Candidate<M> {
    /// The same move with another move value.
    pub(crate) fn with_move<N>(self, mv: N) -> Candidate<N> {
        Candidate {
            mv,
            piece: self.piece,
            from: self.from,
            to: self.to,
            promotion: self.promotion,
            castle: self.castle,
            capture: self.capture,
        }
    }
}

/// Why the rules forbid a move the piece could otherwise make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The own king would stand attacked after it: the reader says whether the
    /// king is in check already, the king walks into an attack or the piece is pinned.
    ExposesKing,
    /// Another reason, in the variant's words (a paused piece).
    Other(String),
}

/// What the matcher needs of a position: the legal moves of the seat and, for
/// refusals, what stands where and the moves the rules forbid. The closures are
/// called only when a text is refused.
pub(crate) struct Position<'a, M> {
    pub board: &'a Board,
    /// The seat's legal moves.
    pub legal: Vec<Candidate<M>>,
    /// Whether the seat's king is in check.
    pub in_check: bool,
    /// The piece on a square, and whether it is the seat's own.
    pub occupant: &'a dyn Fn(Sq) -> Option<(Piece, bool)>,
    /// Moves the pieces could make that the rules forbid, with the reason.
    pub refused: &'a dyn Fn() -> Vec<(Candidate<M>, Refusal)>,
    /// A legal move in the players' notation (SAN).
    pub san: &'a dyn Fn(&Candidate<M>) -> String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PieceSpec {
    /// A from-to text: any piece.
    Any,
    Is(Piece),
}

/// One reading of the text: what the move must look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pattern {
    piece: PieceSpec,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: Sq,
    promotion: Option<Piece>,
    /// Only captures (`Some(true)`) or only steps (see [`Board::bare_pawn_target_is_step`]).
    capture: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Reading {
    /// `O-O-O` (true) or `O-O`.
    Castle(bool),
    /// Readings in order of preference: the first that fits a legal move wins.
    Patterns(Vec<Pattern>),
}

/// Why a text is not move text (the forms accepted are added where a position is known).
fn not_a_move(text: &str, why: &str) -> MoveError {
    MoveError::NotAMove { text: text.trim().to_owned(), why: why.to_owned() }
}

const NOT_NOTATION: &str = "it is not move notation";

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

/// Whether `text` is move text in the notation of `board` (a form the reader
/// reads, legal or not): what the mail door asks of a token.
pub(crate) fn is_move_text(board: &Board, text: &str) -> bool {
    read(board, text).is_ok()
}

fn file_of(board: &Board, c: u8) -> Option<u8> {
    (b'a'..b'a' + board.files).contains(&c).then(|| c - b'a')
}

/// A rank written in decimal: no leading zero, at most two digits, on the board.
fn rank_of(board: &Board, digits: &[u8]) -> Option<u8> {
    let n = match digits {
        [d @ b'1'..=b'9'] => d - b'0',
        [a @ b'1'..=b'9', b @ b'0'..=b'9'] => (a - b'0') * 10 + (b - b'0'),
        _ => return None,
    };
    (n <= board.ranks).then(|| n - 1)
}

fn strip_separator(b: &[u8]) -> (&[u8], bool) {
    match b {
        [rest @ .., b'x' | b'X' | b':'] => (rest, true),
        [rest @ .., b'-'] => (rest, false),
        r => (r, false),
    }
}

fn read(board: &Board, text: &str) -> Result<Reading, MoveError> {
    let s = clean(text);
    if s.is_empty() {
        return Err(not_a_move(text, "there is no text"));
    }
    let castle: String = s.chars().map(|c| if c == '0' || c == 'o' { 'O' } else { c }).collect();
    match castle.as_str() {
        "O-O" => return Ok(Reading::Castle(false)),
        "O-O-O" => return Ok(Reading::Castle(true)),
        _ => {}
    }
    if !s.is_ascii() {
        return Err(not_a_move(text, NOT_NOTATION));
    }
    let b = s.as_bytes();
    if b.iter().all(u8::is_ascii_digit) {
        if !board.iccf {
            return Err(not_a_move(text, "this game has no numeric notation"));
        }
        return read_iccf(text, b).map(|p| Reading::Patterns(vec![p]));
    }

    // Promotion: `=Q`, `=D`, `(Q)`, `/Q` or a bare letter after the target square.
    let mut body = b;
    let mut promotion = None;
    if let [rest @ .., b'(', p, b')'] = body {
        body = rest;
        promotion = Some(Piece::promotion(*p).ok_or_else(|| not_a_move(text, "promote to Q, R, B or N (D, T, L, S)"))?);
    } else if let [rest @ .., last] = body
        && last.is_ascii_alphabetic()
    {
        let rest = match rest {
            [r @ .., b'=' | b'/'] => r,
            r => r,
        };
        match Piece::promotion(*last) {
            Some(p) if rest.last().is_some_and(u8::is_ascii_digit) => {
                promotion = Some(p);
                body = rest;
            }
            _ => return Err(not_a_move(text, "it should end with the target square")),
        }
    }
    let digits = body.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits == body.len() {
        return Err(not_a_move(text, "it should end with the target square"));
    }
    let (rest, digits) = body.split_at(body.len() - digits);
    let (&file, prefix) = rest.split_last().expect("a letter before the digits");
    let (Some(to_file), Some(to_rank)) = (file_of(board, file), rank_of(board, digits)) else {
        return Err(not_a_move(text, "it should end with a square of the board"));
    };
    let to = Sq { file: to_file, rank: to_rank };
    if !(board.exists)(to) {
        return Err(not_a_move(text, &format!("{to} is not a square of the board")));
    }
    let (prefix, took) = strip_separator(prefix);

    // The piece letter: upper case, or lower case where the board allows it; a
    // lower-case letter that is also a file is read as the file first.
    let mut patterns = Vec::new();
    let mut push = |piece: Option<Piece>, origin: &[u8]| {
        if let Some(p) = pattern(board, piece, origin, to, promotion, took) {
            patterns.push(p);
        }
    };
    match prefix {
        [c, rest @ ..] if c.is_ascii_uppercase() => match Piece::from_letter(*c) {
            Some(piece) => push(Some(piece), rest),
            None => return Err(not_a_move(text, "it starts with no piece letter (K Q R B N or K D T L S)")),
        },
        [c, rest @ ..] if board.lower_case_pieces && Piece::from_letter(c.to_ascii_uppercase()).is_some() => {
            let piece = Piece::from_letter(c.to_ascii_uppercase());
            if file_of(board, *c).is_some() {
                push(None, prefix);
            }
            push(piece, rest);
        }
        _ => push(None, prefix),
    }
    if patterns.is_empty() {
        return Err(not_a_move(text, NOT_NOTATION));
    }
    Ok(Reading::Patterns(patterns))
}

/// The origin part of a move: optional file and rank after an optional piece
/// letter. Without a letter a full origin square means any piece (from-to),
/// anything less means a pawn (SAN).
fn pattern(
    board: &Board,
    letter: Option<Piece>,
    origin: &[u8],
    to: Sq,
    promotion: Option<Piece>,
    took: bool,
) -> Option<Pattern> {
    let (origin, took_after_origin) = strip_separator(origin);
    let took = took || took_after_origin;
    let (from_file, from_rank) = match origin {
        [] => (None, None),
        [f, digits @ ..] if file_of(board, *f).is_some() => {
            (file_of(board, *f), if digits.is_empty() { None } else { Some(rank_of(board, digits)?) })
        }
        digits => (None, Some(rank_of(board, digits)?)),
    };
    let full_origin = from_file.is_some() && from_rank.is_some();
    if full_origin && !(board.exists)(Sq { file: from_file?, rank: from_rank? }) {
        return None;
    }
    let piece = match letter {
        Some(p) => PieceSpec::Is(p),
        None if full_origin => PieceSpec::Any,
        None => PieceSpec::Is(Piece::Pawn),
    };
    let capture = (board.bare_pawn_target_is_step
        && piece == PieceSpec::Is(Piece::Pawn)
        && from_file.is_none()
        && from_rank.is_none())
    .then_some(took);
    Some(Pattern { piece, from_file, from_rank, to, promotion, capture })
}

fn read_iccf(text: &str, b: &[u8]) -> Result<Pattern, MoveError> {
    let why = "ICCF numeric notation is four digits 1-8 (file, rank, file, rank) \
               and a fifth for promotion (1=Q 2=R 3=B 4=N), e.g. 5254 or 57581";
    let digit = |c: u8| (b'1'..=b'8').contains(&c).then(|| c - b'1');
    let digits: Option<Vec<u8>> = b.iter().take(4).map(|&c| digit(c)).collect();
    let (Some(d), 4 | 5) = (digits, b.len()) else {
        return Err(not_a_move(text, why));
    };
    let promotion = match b.get(4) {
        None => None,
        Some(b'1') => Some(Piece::Queen),
        Some(b'2') => Some(Piece::Rook),
        Some(b'3') => Some(Piece::Bishop),
        Some(b'4') => Some(Piece::Knight),
        Some(_) => return Err(not_a_move(text, why)),
    };
    Ok(Pattern {
        piece: PieceSpec::Any,
        from_file: Some(d[0]),
        from_rank: Some(d[1]),
        to: Sq { file: d[2], rank: d[3] },
        promotion,
        capture: None,
    })
}

impl Pattern {
    fn full_origin(&self) -> Option<Sq> {
        Some(Sq { file: self.from_file?, rank: self.from_rank? })
    }

    fn fits<M>(&self, board: &Board, c: &Candidate<M>) -> bool {
        let piece_fits = match self.piece {
            PieceSpec::Any => true,
            PieceSpec::Is(p) => p == c.piece,
        };
        let to_fits = c.to == self.to
            || (board.king_takes_rook
                && self.full_origin().is_some()
                && c.castle.is_some_and(|k| k.rook == self.to)
                && matches!(self.piece, PieceSpec::Any | PieceSpec::Is(Piece::King)));
        piece_fits
            && to_fits
            && self.from_file.is_none_or(|f| f == c.from.file)
            && self.from_rank.is_none_or(|r| r == c.from.rank)
            && (self.promotion.is_none() || self.promotion == c.promotion)
            && self.capture.is_none_or(|x| x == c.capture)
    }
}

impl Reading {
    fn count(&self) -> usize {
        match self {
            Reading::Castle(_) => 1,
            Reading::Patterns(p) => p.len(),
        }
    }

    fn fits<M>(&self, board: &Board, i: usize, c: &Candidate<M>) -> bool {
        match self {
            Reading::Castle(long) => c.castle.is_some_and(|k| k.long == *long),
            Reading::Patterns(p) => p[i].fits(board, c),
        }
    }
}

/// Finds the one legal move `text` names in `pos`.
///
/// # Errors
/// [`MoveError`]: not move text (with the forms this game reads), no legal move
/// fits (with the reason the rules give and the moves that could be meant), or
/// several fit.
pub(crate) fn find<M: Clone + Ord>(text: &str, pos: &Position<'_, M>) -> Result<M, MoveError> {
    let reading = match read(pos.board, text) {
        Ok(r) => r,
        Err(MoveError::NotAMove { text, why }) => {
            return Err(MoveError::NotAMove { text, why: format!("{why}; {}", forms(pos)) });
        }
        Err(e) => return Err(e),
    };
    for i in 0..reading.count() {
        let found: Vec<&Candidate<M>> = pos.legal.iter().filter(|c| reading.fits(pos.board, i, c)).collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(one.mv.clone()),
            many => {
                let mut many = many.to_vec();
                many.sort_by(|a, b| a.mv.cmp(&b.mv));
                return Err(MoveError::Ambiguous {
                    text: text.trim().to_owned(),
                    candidates: many.iter().map(|c| (pos.san)(c)).collect(),
                });
            }
        }
    }
    Err(MoveError::Illegal { text: text.trim().to_owned(), reason: why_not(&reading, pos) })
}

/// Why no legal move fits the reading, and what could be sent instead.
fn why_not<M: Clone + Ord>(reading: &Reading, pos: &Position<'_, M>) -> String {
    if pos.legal.is_empty() {
        return "you have no legal move".to_owned();
    }
    let refused = (pos.refused)();
    let forbidden = (0..reading.count()).find_map(|i| refused.iter().find(|(c, _)| reading.fits(pos.board, i, c)));
    if let Some((c, why)) = forbidden {
        let reason = match why {
            Refusal::Other(text) => text.clone(),
            Refusal::ExposesKing if pos.in_check => {
                format!("your king is in check and {} does not answer it", plain(c))
            }
            Refusal::ExposesKing if c.piece == Piece::King => format!("your king would be attacked on {}", c.to),
            Refusal::ExposesKing => {
                format!("your {} on {} is pinned: moving it would leave your king attacked", c.piece.name(), c.from)
            }
        };
        return with_alternatives(reason, pos.legal.iter().filter(|l| pos.in_check || l.from == c.from), pos);
    }
    let check = if pos.in_check { "your king is in check; " } else { "" };
    let Reading::Patterns(patterns) = reading else {
        return with_alternatives(format!("{check}castling is not possible now"), pos.legal.iter(), pos);
    };
    let p = patterns[0];
    if let Some(from) = p.full_origin() {
        let of_piece = pos.legal.iter().filter(|c| c.from == from);
        let reason = match (pos.occupant)(from) {
            None => format!("there is no piece on {from}"),
            Some((piece, false)) => format!("the {} on {from} is not yours", piece.name()),
            Some((piece, true)) if matches!(p.piece, PieceSpec::Is(q) if q != piece) => {
                format!("the piece on {from} is a {}", piece.name())
            }
            Some((piece, true)) => format!("{check}your {} on {from} cannot move to {}", piece.name(), p.to),
        };
        return if of_piece.clone().next().is_some() {
            with_alternatives(reason, of_piece, pos)
        } else {
            with_alternatives(reason, pos.legal.iter(), pos)
        };
    }
    let PieceSpec::Is(piece) = p.piece else {
        return with_alternatives(format!("{check}no piece of yours can make that move"), pos.legal.iter(), pos);
    };
    let same: Vec<&Candidate<M>> = pos.legal.iter().filter(|c| c.piece == piece).collect();
    let reason = if same.is_empty() {
        format!("{check}no {} of yours can move", piece.name())
    } else {
        format!("{check}no {} of yours can move to {}", piece.name(), p.to)
    };
    if same.is_empty() {
        with_alternatives(reason, pos.legal.iter(), pos)
    } else {
        with_alternatives(reason, same.into_iter(), pos)
    }
}

/// A move named plainly, for a sentence: `Ng1-f3`.
fn plain<M>(c: &Candidate<M>) -> String {
    let letter = if c.piece == Piece::Pawn { String::new() } else { c.piece.english().to_string() };
    format!("{letter}{}-{}", c.from, c.to)
}

/// At most this many moves are listed after "possible:".
const LISTED: usize = 12;

fn with_alternatives<'a, M: Clone + Ord + 'a>(
    why: String,
    moves: impl Iterator<Item = &'a Candidate<M>>,
    pos: &Position<'_, M>,
) -> String {
    let mut moves: Vec<&Candidate<M>> = moves.collect();
    moves.sort_by(|a, b| a.mv.cmp(&b.mv));
    let mut listed: Vec<String> = moves.iter().take(LISTED).map(|c| (pos.san)(c)).collect();
    listed.dedup();
    if moves.len() > LISTED {
        listed.push("…".to_owned());
    }
    if listed.is_empty() { why } else { format!("{why}; possible: {}", listed.join(", ")) }
}

/// The forms this game reads, with examples made from one of the seat's legal
/// moves, each named: `write moves like Nf3 (SAN), Sf3 (German letters), …`. A piece move is
/// preferred, as it shows the piece letters.
pub(crate) fn forms<M: Clone + Ord>(pos: &Position<'_, M>) -> String {
    let mut legal: Vec<&Candidate<M>> = pos.legal.iter().filter(|c| c.castle.is_none()).collect();
    legal.sort_by(|a, b| (a.piece == Piece::Pawn, &a.mv).cmp(&(b.piece == Piece::Pawn, &b.mv)));
    let Some(c) = legal.first() else {
        return "write moves in SAN (Nf3, German Sf3) or from-to (g1-f3, g1f3)".to_owned();
    };
    // Each example with the name of its form, so that a player learns what
    // the forms are called (issue 32: refusals that teach).
    let mut examples: Vec<(&str, String)> = Vec::new();
    let san = (pos.san)(c).trim_end_matches(['+', '#']).to_owned();
    examples.push(("SAN", san.clone()));
    if c.piece != Piece::Pawn && c.piece.german() != c.piece.english() {
        examples.push(("German letters", san.replacen(c.piece.english(), &c.piece.german().to_string(), 1)));
    }
    let promotion = c.promotion.map_or(String::new(), |p| format!("={}", p.english()));
    if c.piece != Piece::Pawn {
        examples.push(("long form", format!("{}{}-{}{promotion}", c.piece.english(), c.from, c.to)));
    } else {
        examples.push(("long form", format!("{}-{}{promotion}", c.from, c.to)));
    }
    let lower = c.promotion.map_or(String::new(), |p| p.english().to_ascii_lowercase().to_string());
    examples.push(("coordinates", format!("{}{}{lower}", c.from, c.to)));
    if pos.board.iccf {
        let digit = |n: u8| char::from(b'1' + n);
        let promo = match c.promotion {
            Some(Piece::Queen) => "1",
            Some(Piece::Rook) => "2",
            Some(Piece::Bishop) => "3",
            Some(Piece::Knight) => "4",
            _ => "",
        };
        examples.push((
            "ICCF numeric",
            format!("{}{}{}{}{promo}", digit(c.from.file), digit(c.from.rank), digit(c.to.file), digit(c.to.rank)),
        ));
    }
    examples.dedup_by(|a, b| a.1 == b.1);
    let mut named: Vec<String> = examples.into_iter().map(|(name, text)| format!("{text} ({name})")).collect();
    let last = named.pop().unwrap_or_default();
    if named.is_empty() {
        format!("write moves like {last}")
    } else {
        format!("write moves like {} or {last}", named.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vierschach's board: 14×14 without the 3×3 corners, upper-case letters only.
    const CROSS: Board = crate::rules::vierschach::notation::BOARD;

    fn sq(name: &str) -> Sq {
        let b = name.as_bytes();
        Sq { file: b[0] - b'a', rank: name[1..].parse::<u8>().unwrap() - 1 }
    }

    fn pattern(board: &Board, text: &str) -> Pattern {
        match read(board, text).unwrap_or_else(|e| panic!("{text}: {e}")) {
            Reading::Patterns(p) => p[0],
            Reading::Castle(_) => panic!("{text} read as castling"),
        }
    }

    #[test]
    fn castling_in_all_spellings() {
        for board in [&CHESS_BOARD, &CROSS] {
            for t in ["O-O", "0-0", "o-o", "O-O+", " 0-0 "] {
                assert_eq!(read(board, t), Ok(Reading::Castle(false)), "{t}");
            }
            for t in ["O-O-O", "0-0-0", "O-O-O#"] {
                assert_eq!(read(board, t), Ok(Reading::Castle(true)), "{t}");
            }
        }
    }

    #[test]
    fn san_and_sloppy_forms_on_8x8() {
        let b = &CHESS_BOARD;
        assert_eq!(pattern(b, "Nf3").piece, PieceSpec::Is(Piece::Knight));
        assert_eq!(pattern(b, "nf3").piece, PieceSpec::Is(Piece::Knight));
        let p = pattern(b, "Ng1-f3");
        assert_eq!((p.from_file, p.from_rank), (Some(6), Some(0)));
        assert_eq!(pattern(b, "e2-e4").piece, PieceSpec::Any);
        assert_eq!(pattern(b, "e2xe4").piece, PieceSpec::Any);
        assert_eq!(pattern(b, "e4").piece, PieceSpec::Is(Piece::Pawn));
        assert_eq!(pattern(b, "e4").capture, None, "chess §6: x is not checked");
        assert_eq!(pattern(b, "exd5").from_file, Some(4));
        assert_eq!(pattern(b, "e8=Q").promotion, Some(Piece::Queen));
        assert_eq!(pattern(b, "e8q").promotion, Some(Piece::Queen));
        assert_eq!(pattern(b, "e7e8n").promotion, Some(Piece::Knight));
        assert_eq!(pattern(b, "Bf1xc4").piece, PieceSpec::Is(Piece::Bishop));
        assert_eq!(pattern(b, "Qh4#").to, sq("h4"));
        assert_eq!(pattern(b, "exd6 e.p.").to, sq("d6"));
        assert_eq!(pattern(b, "e2\u{2013}e4").to, sq("e4"), "an en dash from a word processor");
    }

    /// chess.md §6: German letters in every form, upper and lower case.
    #[test]
    fn german_letters_on_8x8() {
        let b = &CHESS_BOARD;
        for (text, piece) in [
            ("Sf3", Piece::Knight),
            ("Lxc4", Piece::Bishop),
            ("Td1", Piece::Rook),
            ("Dh5", Piece::Queen),
            ("Kg1", Piece::King),
            ("Sg1-f3", Piece::Knight),
            ("Sg1f3", Piece::Knight),
            ("sf3", Piece::Knight),
            ("tad1", Piece::Rook),
            ("lc4", Piece::Bishop),
        ] {
            assert_eq!(pattern(b, text).piece, PieceSpec::Is(piece), "{text}");
        }
        assert_eq!(pattern(b, "e8=D").promotion, Some(Piece::Queen));
        assert_eq!(pattern(b, "e7e8s").promotion, Some(Piece::Knight));
        // A lower-case d is the d-file first, then the queen (as b is for the bishop).
        let Ok(Reading::Patterns(p)) = read(b, "dxe5") else { panic!() };
        assert_eq!((p[0].piece, p[0].from_file), (PieceSpec::Is(Piece::Pawn), Some(3)));
        assert_eq!(p[1].piece, PieceSpec::Is(Piece::Queen));
    }

    #[test]
    fn lower_case_b_is_the_file_first_then_a_bishop() {
        let Ok(Reading::Patterns(p)) = read(&CHESS_BOARD, "bxc3") else { panic!() };
        assert_eq!(p[0].piece, PieceSpec::Is(Piece::Pawn));
        assert_eq!(p[0].from_file, Some(1));
        assert_eq!(p[1].piece, PieceSpec::Is(Piece::Bishop));
        assert_eq!(p[1].from_file, None);
    }

    #[test]
    fn iccf_numeric_only_on_8x8() {
        let b = &CHESS_BOARD;
        let p = pattern(b, "5254");
        assert_eq!((p.from_file, p.from_rank, p.to), (Some(4), Some(1), sq("e4")));
        assert_eq!(pattern(b, "57581").promotion, Some(Piece::Queen));
        assert_eq!(pattern(b, "57584").promotion, Some(Piece::Knight));
        for t in ["5259", "57585", "525"] {
            assert!(read(b, t).is_err(), "{t}");
        }
        assert!(!is_move_text(&CROSS, "5254"), "Vierschach has no numeric notation");
    }

    /// vierschach.md §9: from-to with `-`, `x` or nothing; two-digit ranks; promotion.
    #[test]
    fn from_to_on_the_cross() {
        for text in ["d2-d4", "d2xd4", "d2d4", "d2–d4"] {
            let p = pattern(&CROSS, text);
            assert_eq!(
                (p.piece, p.from_file, p.from_rank, p.to),
                (PieceSpec::Any, Some(3), Some(1), sq("d4")),
                "{text}"
            );
        }
        let p = pattern(&CROSS, "k10-k12");
        assert_eq!((p.from_file, p.from_rank, p.to), (Some(10), Some(9), sq("k12")));
        assert_eq!(pattern(&CROSS, "k10k12").to, sq("k12"));
        let p = pattern(&CROSS, "e13-e14=Q");
        assert_eq!((p.from_rank, p.to, p.promotion), (Some(12), sq("e14"), Some(Piece::Queen)));
        assert_eq!(pattern(&CROSS, "e13e14D").promotion, Some(Piece::Queen));
    }

    /// vierschach.md §9: SAN-like forms, English and German letters, upper case only.
    #[test]
    fn san_like_on_the_cross() {
        let c = &CROSS;
        for (text, piece) in
            [("Nf3", Piece::Knight), ("Sf3", Piece::Knight), ("Lc4", Piece::Bishop), ("Td1", Piece::Rook)]
        {
            assert_eq!(pattern(c, text).piece, PieceSpec::Is(piece), "{text}");
        }
        assert_eq!(pattern(c, "Nk1-j3").from_file, Some(10));
        assert_eq!(pattern(c, "Sk1-j3").piece, PieceSpec::Is(Piece::Knight));
        assert_eq!(pattern(c, "N11f3").from_rank, Some(10));
        let e4 = pattern(c, "e4");
        assert_eq!((e4.piece, e4.capture), (PieceSpec::Is(Piece::Pawn), Some(false)));
        assert_eq!(pattern(c, "xe4").capture, Some(true));
        assert_eq!(pattern(c, "exd5").capture, None);
        for t in ["sf3", "nj1-k3", "k10-k12x", "a1-a2", "Nf15", "c2", "Nd0", "d2-d04", "e14=K", "Zf3"] {
            assert!(!is_move_text(c, t), "{t}");
        }
    }

    #[test]
    fn garbage_is_not_a_move() {
        for board in [&CHESS_BOARD, &CROSS] {
            for t in ["", "hello", "Nf99", "Zf3", "e", "++", "Nf3 please", "I", "2026", "12", "Be", "ok"] {
                assert!(matches!(read(board, t), Err(MoveError::NotAMove { .. })), "{t}: {:?}", read(board, t));
            }
        }
        for t in ["e9", "i4", "575810"] {
            assert!(!is_move_text(&CHESS_BOARD, t), "{t}");
        }
    }

    fn knight_and_pawn() -> Vec<Candidate<u8>> {
        let c = |mv, piece, from: &str, to: &str| Candidate {
            mv,
            piece,
            from: sq(from),
            to: sq(to),
            promotion: None,
            castle: None,
            capture: false,
        };
        vec![c(1, Piece::Knight, "g1", "f3"), c(2, Piece::Pawn, "e2", "e4")]
    }

    #[test]
    fn refusals_name_the_reason_and_the_forms() {
        let occupant = |s: Sq| match (s.file, s.rank) {
            (6, 0) => Some((Piece::Knight, true)),
            (4, 1) => Some((Piece::Pawn, true)),
            (3, 1) => Some((Piece::Bishop, true)),
            (4, 6) => Some((Piece::Pawn, false)),
            _ => None,
        };
        let pinned = || {
            vec![(
                Candidate {
                    mv: 9,
                    piece: Piece::Bishop,
                    from: sq("d2"),
                    to: sq("c3"),
                    promotion: None,
                    castle: None,
                    capture: false,
                },
                Refusal::ExposesKing,
            )]
        };
        let san = |c: &Candidate<u8>| if c.mv == 1 { "Nf3".to_owned() } else { "e4".to_owned() };
        let mut pos = Position {
            board: &CHESS_BOARD,
            legal: knight_and_pawn(),
            in_check: false,
            occupant: &occupant,
            refused: &pinned,
            san: &san,
        };
        assert_eq!(
            forms(&pos),
            "write moves like Nf3 (SAN), Sf3 (German letters), Ng1-f3 (long form), g1f3 (coordinates) or 7163 (ICCF numeric)"
        );
        assert_eq!(find("Sf3", &pos), Ok(1));
        let why = |e: Result<u8, MoveError>| e.expect_err("refused").to_string();
        let e = why(find("hello", &pos));
        assert!(
            e.contains("not a move")
                && e.contains("Sf3 (German letters), Ng1-f3 (long form), g1f3 (coordinates) or 7163 (ICCF numeric)"),
            "{e}"
        );
        let e = why(find("Ld2-c3", &pos));
        assert!(e.contains("bishop on d2 is pinned"), "{e}");
        let e = why(find("c3c4", &pos));
        assert!(e.contains("no piece on c3"), "{e}");
        let e = why(find("e7e5", &pos));
        assert!(e.contains("pawn on e7 is not yours"), "{e}");
        let e = why(find("Sg1-h4", &pos));
        assert!(e.contains("knight on g1 cannot move to h4") && e.contains("possible: Nf3"), "{e}");
        let e = why(find("Dh5", &pos));
        assert!(e.contains("no queen of yours can move"), "{e}");
        pos.in_check = true;
        let e = why(find("Ld2-c3", &pos));
        assert!(e.contains("king is in check and Bd2-c3 does not answer it"), "{e}");
        let e = why(find("O-O", &pos));
        assert!(e.contains("castling is not possible"), "{e}");
    }
}
