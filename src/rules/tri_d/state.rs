//! The Tri-D position and its state string (`docs/rules/tri-d-chess.md` §11).
//!
//! [`TdState`] is validated once, when the string is read: every problem found
//! is listed. A state is refused when the rules could not go on from it in a way
//! that matters: a missing or second king, the side not to move in check, a
//! pawn that should have promoted (other than the pending one), a castling
//! right without its king and rook, an en-passant or `moved` entry without its
//! pawn, boards that are not two of each marking on four distinct pins.

use std::fmt::{self, Write as _};

use super::geometry::{FILES, Level, MAIN_SQUARES, PINS, Pin, Square, SquareSet};

/// A colour: White (0) moves first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Colour {
    /// White, seat 1.
    White = 0,
    /// Black, seat 2.
    Black = 1,
}

impl Colour {
    /// The other colour.
    pub const fn other(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }

    /// 0 for White, 1 for Black.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// A pawn's forward rank step.
    pub const fn forward(self) -> i8 {
        match self {
            Colour::White => 1,
            Colour::Black => -1,
        }
    }
}

/// A kind of piece; the discriminant indexes [`Bits::kind`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// King.
    King = 1,
    /// Queen.
    Queen = 2,
    /// Rook.
    Rook = 3,
    /// Bishop.
    Bishop = 4,
    /// Knight.
    Knight = 5,
    /// Pawn.
    Pawn = 6,
}

impl Kind {
    /// What a pawn may become (§5), in the order moves list them.
    pub const PROMOTIONS: [Kind; 4] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight];

    /// The English letter, upper case.
    pub const fn letter(self) -> char {
        match self {
            Kind::King => 'K',
            Kind::Queen => 'Q',
            Kind::Rook => 'R',
            Kind::Bishop => 'B',
            Kind::Knight => 'N',
            Kind::Pawn => 'P',
        }
    }

    /// The kind of an English letter (upper case).
    pub const fn from_letter(c: u8) -> Option<Kind> {
        match c {
            b'K' => Some(Kind::King),
            b'Q' => Some(Kind::Queen),
            b'R' => Some(Kind::Rook),
            b'B' => Some(Kind::Bishop),
            b'N' => Some(Kind::Knight),
            b'P' => Some(Kind::Pawn),
            _ => None,
        }
    }

    /// The kind of a piece code.
    pub const fn of_code(code: u8) -> Kind {
        match code & 7 {
            1 => Kind::King,
            2 => Kind::Queen,
            3 => Kind::Rook,
            4 => Kind::Bishop,
            5 => Kind::Knight,
            _ => Kind::Pawn,
        }
    }

    /// The English name, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::King => "king",
            Kind::Queen => "queen",
            Kind::Rook => "rook",
            Kind::Bishop => "bishop",
            Kind::Knight => "knight",
            Kind::Pawn => "pawn",
        }
    }
}

/// A piece as the board array keeps it: `kind | colour << 3`; 0 is empty.
pub type Code = u8;

/// The piece code of a kind and colour.
pub const fn code(kind: Kind, colour: Colour) -> Code {
    kind as u8 | (colour as u8) << 3
}

/// The colour of a (non-zero) piece code.
pub const fn colour_of(code: Code) -> Colour {
    if code & 8 == 0 { Colour::White } else { Colour::Black }
}

/// The position as square sets: what the attack test and the legality test
/// read. Kept beside the board array and updated with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bits {
    /// Per colour: its pieces' squares.
    pub colour: [SquareSet; 2],
    /// Per kind (index = [`Kind`] discriminant; 0 unused): the squares of
    /// pieces of that kind.
    pub kind: [SquareSet; 7],
    /// The squares that exist: the main boards and the boards on their pins.
    pub present: SquareSet,
}

impl Bits {
    /// Every piece.
    pub const fn occupied(&self) -> SquareSet {
        self.colour[0] | self.colour[1]
    }

    /// Puts `code` on `sq` (which must be empty).
    pub fn put(&mut self, sq: u8, code: Code) {
        let bit = 1u128 << sq;
        self.colour[colour_of(code).index()] |= bit;
        self.kind[(code & 7) as usize] |= bit;
    }

    /// Takes `code` off `sq`.
    pub fn take(&mut self, sq: u8, code: Code) {
        let bit = !(1u128 << sq);
        self.colour[colour_of(code).index()] &= bit;
        self.kind[(code & 7) as usize] &= bit;
    }

    /// The pieces of `kind` and `colour`.
    pub const fn pieces(&self, kind: Kind, colour: Colour) -> SquareSet {
        self.kind[kind as usize] & self.colour[colour as usize]
    }
}

/// Castling rights: K, Q, k, q (§6, §11).
pub const WHITE_SHORT: u8 = 1;
/// See [`WHITE_SHORT`].
pub const WHITE_LONG: u8 = 2;
/// See [`WHITE_SHORT`].
pub const BLACK_SHORT: u8 = 4;
/// See [`WHITE_SHORT`].
pub const BLACK_LONG: u8 = 8;

/// The original squares of the kings and rooks (§3), by colour: king
/// (`d0KL1`, `d9KL6`), short rook (`e0KL1`, `e9KL6`), long rook (`z0QL1`,
/// `z9QL6`), and the long-castling king target (`a0QL1`, `a9QL6`).
pub const fn castle_squares(colour: Colour) -> [Square; 4] {
    match colour {
        Colour::White => [Square(52), Square(53), Square(48), Square(49)],
        Colour::Black => [Square(94), Square(95), Square(90), Square(91)],
    }
}

/// The original pawn squares of `colour` (§3): White `z1QL1 a1QL1 d1KL1 e1KL1
/// a2W b2W c2W d2W`, Black `z8QL6 a8QL6 d8KL6 e8KL6 a7B b7B c7B d7B`.
pub const fn original_pawn_squares(colour: Colour) -> SquareSet {
    const fn set(squares: [u8; 8]) -> SquareSet {
        let mut s = 0;
        let mut i = 0;
        while i < 8 {
            s |= 1 << squares[i];
            i += 1;
        }
        s
    }
    match colour {
        Colour::White => set([50, 51, 54, 55, 4, 5, 6, 7]),
        Colour::Black => set([88, 89, 92, 93, 40, 41, 42, 43]),
    }
}

/// A square name as text reads it: `<file><rank><level>` (§1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SquareName(pub Square);

impl std::str::FromStr for SquareName {
    type Err = String;

    fn from_str(s: &str) -> Result<SquareName, String> {
        let b = s.as_bytes();
        let x = b.first().and_then(|f| FILES.iter().position(|c| c == f));
        let y = b.get(1).filter(|d| d.is_ascii_digit()).map(|d| d - b'0');
        let (Some(x), Some(y)) = (x, y) else { return Err(format!("{s:?} is not a square (like a2W or z0QL1)")) };
        for (level, rest) in super::geometry::read_level(&b[2..]) {
            if rest.is_empty() {
                return Square::at(x as u8, y, level)
                    .map(SquareName)
                    .ok_or_else(|| format!("{s:?}: level {level} has no square at {}{y}", char::from(FILES[x])));
            }
        }
        Err(format!("{s:?} is not a square (like a2W or z0QL1)"))
    }
}

/// A Tri-D position: what stands where, where the boards are, and the rest of
/// the state string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TdState {
    /// The piece on each square that can exist (0: empty or absent).
    pub board: [Code; 96],
    /// Per pin: 0 no board, else the board's marking's colour + 1.
    pub pins: [u8; PINS],
    /// The square sets, kept with `board`.
    pub bits: Bits,
    /// Whose move.
    pub side: Colour,
    /// The castling rights (`WHITE_SHORT` …).
    pub castling: u8,
    /// The square of the pawn that double-stepped on the last move.
    pub ep: Option<Square>,
    /// Squares of pawns on their side's original squares that have moved.
    pub moved: SquareSet,
    /// The pawn whose promotion its owner (the side to move) names now.
    pub pending: Option<Square>,
    /// Plies since the last capture, pawn move or promotion.
    pub halfmove: u32,
    /// The move number, growing after each Black move.
    pub fullmove: u32,
}

/// The start state (§11).
pub const START: &str =
    "nbbn/pppp/4/4/4/4/4/4/4/4/PPPP/NBBN wQL1:PP/RQ,wKL1:PP/KR,bQL6:rq/pp,bKL6:kr/pp w KQkq - - - 0 1";

impl TdState {
    /// The start position.
    pub fn start() -> TdState {
        TdState::read(START).expect("the start state reads")
    }

    /// The pins that hold a board, in pin order.
    pub fn boards(&self) -> impl Iterator<Item = Pin> + '_ {
        Pin::all().filter(|p| self.pins[p.0 as usize] != 0)
    }

    /// Whether a board stands on `pin`.
    pub fn has_board(&self, pin: Pin) -> bool {
        self.pins[pin.0 as usize] != 0
    }

    /// The piece on `sq`, if any.
    pub fn piece(&self, sq: Square) -> Option<(Kind, Colour)> {
        let c = self.board[sq.0 as usize];
        (c != 0).then(|| (Kind::of_code(c), colour_of(c)))
    }

    /// The rank on which a pawn of `colour` on file `x` promotes (§5).
    pub fn promotion_rank(&self, colour: Colour, x: u8) -> u8 {
        promotion_rank(&self.pins, colour, x)
    }

    /// Whether the side to move is in check (§8).
    pub fn is_check(&self) -> bool {
        super::moves::in_check(&self.bits, self.side)
    }

    /// Whether a pawn of `colour` on `sq` stands on its promotion rank.
    pub fn on_promotion_rank(&self, colour: Colour, sq: Square) -> bool {
        self.promotion_rank(colour, sq.x()) == sq.y()
    }

    /// Puts a piece on an empty square, keeping the square sets.
    pub fn put(&mut self, sq: u8, c: Code) {
        self.board[sq as usize] = c;
        self.bits.put(sq, c);
    }

    /// Empties a square, keeping the square sets; returns what stood there.
    pub fn take(&mut self, sq: u8) -> Code {
        let c = self.board[sq as usize];
        if c != 0 {
            self.board[sq as usize] = 0;
            self.bits.take(sq, c);
        }
        c
    }

    /// Reads a state string, listing every problem of form and of content.
    pub(crate) fn read(text: &str) -> Result<TdState, Vec<String>> {
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 9 {
            return Err(vec![format!(
                "expected 9 fields separated by single spaces (placement, boards, side, castling, ep, moved, pending, halfmove, fullmove), found {}",
                fields.len()
            )]);
        }
        let mut problems = Vec::new();
        let mut st = TdState {
            board: [0; 96],
            pins: [0; PINS],
            bits: Bits { colour: [0; 2], kind: [0; 7], present: MAIN_SQUARES },
            side: Colour::White,
            castling: 0,
            ep: None,
            moved: 0,
            pending: None,
            halfmove: 0,
            fullmove: 1,
        };
        read_placement(fields[0], &mut st, &mut problems);
        read_boards(fields[1], &mut st, &mut problems);
        match fields[2] {
            "w" => st.side = Colour::White,
            "b" => st.side = Colour::Black,
            other => problems.push(format!("side {other:?}: write w or b")),
        }
        st.castling = read_castling(fields[3], &mut problems);
        st.ep = read_optional_square(fields[4], "ep", &mut problems);
        if fields[5] != "-" {
            let mut last = String::new();
            for name in fields[5].split(',') {
                match name.parse::<SquareName>() {
                    Ok(SquareName(sq)) => {
                        if name <= last.as_str() {
                            problems.push(format!("moved: {name} is out of order (sort the squares by byte value)"));
                        }
                        st.moved |= sq.bit();
                        name.clone_into(&mut last);
                    }
                    Err(e) => problems.push(format!("moved: {e}")),
                }
            }
        }
        st.pending = read_optional_square(fields[6], "pending", &mut problems);
        match fields[7].parse::<u32>() {
            Ok(n) => st.halfmove = n,
            Err(_) => problems.push(format!("halfmove {:?} is not a number", fields[7])),
        }
        match fields[8].parse::<u32>() {
            Ok(n) if n >= 1 => st.fullmove = n,
            _ => problems.push(format!("fullmove {:?} is not a number from 1", fields[8])),
        }
        if problems.is_empty() {
            st.check_content(&mut problems);
        }
        if problems.is_empty() { Ok(st) } else { Err(problems) }
    }

    /// The checks of content, once the form is right.
    fn check_content(&self, problems: &mut Vec<String>) {
        for colour in [Colour::White, Colour::Black] {
            let kings = self.bits.pieces(Kind::King, colour).count_ones();
            if kings != 1 {
                problems.push(format!("{} has {kings} kings (one expected)", colour_name(colour)));
            }
        }
        if !problems.is_empty() {
            return;
        }
        for s in 0..96u8 {
            let sq = Square(s);
            let Some((Kind::Pawn, colour)) = self.piece(sq) else { continue };
            let back = match colour {
                Colour::White => 0,
                Colour::Black => 9,
            };
            if sq.y() == back {
                problems.push(format!("a {} pawn on {sq} (rank {back}) cannot get there", colour_name(colour)));
            } else if self.on_promotion_rank(colour, sq) && self.pending != Some(sq) {
                problems.push(format!("the {} pawn on {sq} stands on its promotion rank", colour_name(colour)));
            }
        }
        for colour in [Colour::White, Colour::Black] {
            let [king, short, long, _] = castle_squares(colour);
            let (s_right, l_right) = match colour {
                Colour::White => (WHITE_SHORT, WHITE_LONG),
                Colour::Black => (BLACK_SHORT, BLACK_LONG),
            };
            let has = |sq: Square, kind: Kind| self.piece(sq) == Some((kind, colour));
            for (right, rook, letter) in [(s_right, short, 'K'), (l_right, long, 'Q')] {
                if self.castling & right != 0 && !(has(king, Kind::King) && has(rook, Kind::Rook)) {
                    let letter = if colour == Colour::White { letter } else { letter.to_ascii_lowercase() };
                    problems.push(format!("castling right {letter} needs the king on {king} and the rook on {rook}"));
                }
            }
        }
        if let Some(ep) = self.ep {
            let mover = self.side.other();
            let ranks = match mover {
                Colour::White => [3, 4],
                Colour::Black => [6, 5],
            };
            if self.piece(ep) != Some((Kind::Pawn, mover)) || !ranks.contains(&ep.y()) {
                problems
                    .push(format!("ep {ep}: no {} pawn that has just double-stepped stands there", colour_name(mover)));
            }
        }
        for s in 0..96u8 {
            if self.moved & (1 << s) == 0 {
                continue;
            }
            let sq = Square(s);
            let ok = match self.piece(sq) {
                Some((Kind::Pawn, colour)) => original_pawn_squares(colour) & sq.bit() != 0,
                _ => false,
            };
            if !ok {
                problems.push(format!("moved: no pawn on one of its side's original squares stands on {sq}"));
            }
        }
        if let Some(p) = self.pending {
            if self.piece(p) != Some((Kind::Pawn, self.side)) || !self.on_promotion_rank(self.side, p) {
                problems.push(format!(
                    "pending {p}: no {} pawn on its promotion rank stands there",
                    colour_name(self.side)
                ));
            }
            if self.ep.is_some() {
                problems.push("a pending promotion and an ep square at once".to_owned());
            }
        }
        if problems.is_empty() && super::moves::in_check(&self.bits, self.side.other()) {
            problems.push(format!("{} is not to move but in check", colour_name(self.side.other())));
        }
    }

    /// The state string without its two counters, with the ep field as `-`
    /// unless an en-passant capture is legal: what repetition compares (§9).
    pub fn repetition_key(&self, ep_capture_legal: bool) -> String {
        let mut s = self.clone();
        if !ep_capture_legal {
            s.ep = None;
        }
        s.halfmove = 0;
        s.fullmove = 1;
        s.to_string()
    }
}

/// The rank on which a pawn of `colour` on file `x` promotes with boards on
/// `pins` (§5): b, c on 8 (White) and 1 (Black); z, e on 9 and 0; a and d on 9
/// and 0 while a board stands on the corner pin (QL6/KL6 for White, QL1/KL1
/// for Black), else on 8 and 1.
pub fn promotion_rank(pins: &[u8; PINS], colour: Colour, x: u8) -> u8 {
    let (n, far, near) = match colour {
        Colour::White => (6, 9, 8),
        Colour::Black => (1, 0, 1),
    };
    match x {
        2 | 3 => near,
        1 if pins[Pin::new(n, false).0 as usize] == 0 => near,
        4 if pins[Pin::new(n, true).0 as usize] == 0 => near,
        _ => far,
    }
}

/// The colour's seat name.
pub const fn colour_name(colour: Colour) -> &'static str {
    match colour {
        Colour::White => "white",
        Colour::Black => "black",
    }
}

fn piece_code(c: u8) -> Option<Code> {
    let colour = if c.is_ascii_uppercase() { Colour::White } else { Colour::Black };
    Kind::from_letter(c.to_ascii_uppercase()).map(|k| code(k, colour))
}

/// Reads rows of FEN letters and digits of `width` squares each into the
/// squares `square(row, file)`.
fn read_rows(
    text: &str,
    rows: usize,
    width: u8,
    what: &str,
    mut place: impl FnMut(usize, u8, Code),
    problems: &mut Vec<String>,
) {
    let parts: Vec<&str> = text.split('/').collect();
    if parts.len() != rows {
        problems.push(format!("{what}: expected {rows} rows separated by /, found {}", parts.len()));
        return;
    }
    for (r, row) in parts.iter().enumerate() {
        let mut file = 0u8;
        for c in row.bytes() {
            if let Some(code) = piece_code(c) {
                if file < width {
                    place(r, file, code);
                }
                file += 1;
            } else if (b'1'..=b'0' + width).contains(&c) {
                file += c - b'0';
            } else {
                problems.push(format!(
                    "{what}: row {} has {:?}, not a piece letter or a digit 1-{width}",
                    r + 1,
                    char::from(c)
                ));
                return;
            }
        }
        if file != width {
            problems.push(format!("{what}: row {} {row:?} has {file} squares, not {width}", r + 1));
        }
    }
}

fn read_placement(text: &str, st: &mut TdState, problems: &mut Vec<String>) {
    let mut placed = Vec::new();
    read_rows(
        text,
        12,
        4,
        "placement",
        |r, file, code| {
            // Rows: B ranks 8..5, N 6..3, W 4..1.
            let board = 2 - (r / 4) as u8;
            let rank = Level::main_low_rank(board) + 3 - (r % 4) as u8;
            if let Some(sq) = Square::at(file + 1, rank, Level::Main(board)) {
                placed.push((sq.0, code));
            }
        },
        problems,
    );
    for (sq, code) in placed {
        st.put(sq, code);
    }
}

fn read_boards(text: &str, st: &mut TdState, problems: &mut Vec<String>) {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != 4 {
        problems.push(format!("boards: expected 4 attack boards separated by commas, found {}", parts.len()));
    }
    let mut marks = [0u8; 2];
    for part in parts {
        let Some((head, rows)) = part.split_once(':') else {
            problems.push(format!("boards: {part:?} is not <w|b><pin>:<row>/<row>"));
            continue;
        };
        let colour = match head.as_bytes().first() {
            Some(b'w') => Colour::White,
            Some(b'b') => Colour::Black,
            _ => {
                problems.push(format!("boards: {head:?} does not start with its marking w or b"));
                continue;
            }
        };
        let pin = match Pin::all().find(|p| head.get(1..) == Some(p.to_string().as_str())) {
            Some(p) => p,
            None => {
                problems.push(format!("boards: {head:?}: the pin is QL1…QL6 or KL1…KL6"));
                continue;
            }
        };
        if st.pins[pin.0 as usize] != 0 {
            problems.push(format!("boards: two boards on {pin}"));
            continue;
        }
        st.pins[pin.0 as usize] = colour as u8 + 1;
        st.bits.present |= pin.squares();
        marks[colour.index()] += 1;
        let mut placed = Vec::new();
        read_rows(
            rows,
            2,
            2,
            &format!("board {pin}"),
            |r, file, code| placed.push((pin.first_square() + (1 - r as u8) * 2 + file, code)),
            problems,
        );
        for (sq, code) in placed {
            st.put(sq, code);
        }
    }
    if marks != [2, 2] && problems.is_empty() {
        problems.push(format!("boards: {} marked w and {} marked b (two of each)", marks[0], marks[1]));
    }
}

fn read_castling(text: &str, problems: &mut Vec<String>) -> u8 {
    if text == "-" {
        return 0;
    }
    let mut rights = 0;
    let mut last = 0;
    for c in text.bytes() {
        let (bit, order) = match c {
            b'K' => (WHITE_SHORT, 1),
            b'Q' => (WHITE_LONG, 2),
            b'k' => (BLACK_SHORT, 3),
            b'q' => (BLACK_LONG, 4),
            _ => {
                problems.push(format!("castling {text:?}: write a subset of KQkq in that order, or -"));
                return 0;
            }
        };
        if order <= last {
            problems.push(format!("castling {text:?}: write a subset of KQkq in that order, or -"));
            return 0;
        }
        last = order;
        rights |= bit;
    }
    rights
}

fn read_optional_square(text: &str, what: &str, problems: &mut Vec<String>) -> Option<Square> {
    if text == "-" {
        return None;
    }
    match text.parse::<SquareName>() {
        Ok(SquareName(sq)) => Some(sq),
        Err(e) => {
            problems.push(format!("{what}: {e}"));
            None
        }
    }
}

fn letter(code: Code) -> char {
    let c = Kind::of_code(code).letter();
    if colour_of(code) == Colour::White { c } else { c.to_ascii_lowercase() }
}

/// Writes squares as FEN letters with runs of empty squares as digits.
fn write_row(f: &mut impl fmt::Write, squares: impl Iterator<Item = Code>) -> fmt::Result {
    let mut empty = 0;
    for c in squares {
        if c == 0 {
            empty += 1;
            continue;
        }
        if empty > 0 {
            write!(f, "{empty}")?;
            empty = 0;
        }
        f.write_char(letter(c))?;
    }
    if empty > 0 {
        write!(f, "{empty}")?;
    }
    Ok(())
}

impl fmt::Display for TdState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::with_capacity(120);
        for r in 0..12u8 {
            if r > 0 {
                out.push('/');
            }
            let board = 2 - r / 4;
            let rank = Level::main_low_rank(board) + 3 - r % 4;
            let squares =
                (1..=4).map(|x| Square::at(x, rank, Level::Main(board)).map_or(0, |sq| self.board[sq.0 as usize]));
            write_row(&mut out, squares)?;
        }
        out.push(' ');
        for (i, pin) in self.boards().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push(if self.pins[pin.0 as usize] == 1 { 'w' } else { 'b' });
            write!(out, "{pin}:")?;
            let first = pin.first_square() as usize;
            write_row(&mut out, self.board[first + 2..first + 4].iter().copied())?;
            out.push('/');
            write_row(&mut out, self.board[first..first + 2].iter().copied())?;
        }
        out.push_str(if self.side == Colour::White { " w " } else { " b " });
        if self.castling == 0 {
            out.push('-');
        }
        for (bit, c) in [(WHITE_SHORT, 'K'), (WHITE_LONG, 'Q'), (BLACK_SHORT, 'k'), (BLACK_LONG, 'q')] {
            if self.castling & bit != 0 {
                out.push(c);
            }
        }
        out.push(' ');
        match self.ep {
            Some(sq) => write!(out, "{sq}")?,
            None => out.push('-'),
        }
        out.push(' ');
        if self.moved == 0 {
            out.push('-');
        } else {
            let mut names: Vec<String> =
                (0..96u8).filter(|s| self.moved & (1 << s) != 0).map(|s| Square(s).to_string()).collect();
            names.sort();
            out.push_str(&names.join(","));
        }
        out.push(' ');
        match self.pending {
            Some(sq) => write!(out, "{sq}")?,
            None => out.push('-'),
        }
        write!(out, " {} {}", self.halfmove, self.fullmove)?;
        f.write_str(&out)
    }
}

/// The square sets of every square of `present` that holds a piece, checked
/// against the board array (for tests and debug assertions).
#[cfg(test)]
pub fn bits_agree(st: &TdState) -> bool {
    let mut b = Bits { colour: [0; 2], kind: [0; 7], present: st.bits.present };
    for s in 0..96u8 {
        if st.board[s as usize] != 0 {
            b.put(s, st.board[s as usize]);
        }
    }
    b == st.bits && (b.occupied() & !st.bits.present) == 0
}
