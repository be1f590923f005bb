//! The plus-shaped board of `docs/rules/vierschach.md` §1–3: squares, names, square
//! order, directions, and everything about the four seats that follows from
//! rotating South's geometry.
//!
//! Squares live in a mailbox of 18 × 18 cells: the 14 × 14 board with two cells of
//! padding on every side, so that a knight's jump or a slider's step off the board
//! lands on a cell marked "off" instead of wrapping around. The four 3 × 3 corners
//! are marked "off" too. A cell's index grows by rank, then by file, which is exactly
//! the rules file's square order.

use std::fmt;

use crate::rules::cell_path::NamedCell;

/// The width of the mailbox (14 files plus two cells of padding on each side).
pub(crate) const WIDTH: i16 = 18;
/// The number of mailbox cells.
pub(crate) const CELLS: usize = (WIDTH * WIDTH) as usize;
/// The number of files and of ranks.
pub(crate) const SIZE: u8 = 14;

/// Whether `(x, y)` (file, rank from 0) is a square of the board (§1).
pub(crate) const fn exists(x: i16, y: i16) -> bool {
    if x < 0 || y < 0 || x >= SIZE as i16 || y >= SIZE as i16 {
        return false;
    }
    let x_edge = x < 3 || x > 10;
    let y_edge = y < 3 || y > 10;
    !(x_edge && y_edge)
}

/// A square of the board, as its mailbox cell.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u16);

impl Square {
    /// The square at file `x`, rank `y` (both from 0), if it exists.
    pub const fn new(x: u8, y: u8) -> Option<Square> {
        if exists(x as i16, y as i16) { Some(Square::at(x as i16, y as i16)) } else { None }
    }

    const fn at(x: i16, y: i16) -> Square {
        Square(((y + 2) * WIDTH + x + 2) as u16)
    }

    /// The mailbox cell.
    pub(crate) const fn cell(self) -> usize {
        self.0 as usize
    }

    /// The square of a mailbox cell (which must be on the board).
    pub(crate) const fn from_cell(cell: usize) -> Square {
        Square(cell as u16)
    }

    /// The file, 0 (`a`) to 13 (`n`).
    pub const fn x(self) -> u8 {
        (self.0 as i16 % WIDTH - 2) as u8
    }

    /// The rank, 0 (`1`) to 13 (`14`).
    pub const fn y(self) -> u8 {
        (self.0 as i16 / WIDTH - 2) as u8
    }

    /// The square `d` steps away (a [`Dir`]), if it exists.
    pub(crate) fn step(self, d: Dir) -> Option<Square> {
        Square::new_i((self.x() as i16) + d.dx as i16, (self.y() as i16) + d.dy as i16)
    }

    /// The square `d` steps away, which must exist (an en-passant square's
    /// neighbours along the double step): mailbox arithmetic, without the test.
    pub(crate) const fn offset_by(self, d: Dir) -> Square {
        Square((self.0 as i16 + d.offset()) as u16)
    }

    fn new_i(x: i16, y: i16) -> Option<Square> {
        exists(x, y).then(|| Square::at(x, y))
    }

    /// The square turned a quarter clockwise, from one seat's view to the next
    /// seat's: `ρ(x, y) = (y, 13 − x)` (§3).
    pub const fn rotated(self) -> Square {
        Square::at(self.y() as i16, 13 - self.x() as i16)
    }

    /// Turned `times` quarters.
    pub const fn rotated_by(self, times: usize) -> Square {
        let mut s = self;
        let mut i = 0;
        while i < times % 4 {
            s = s.rotated();
            i += 1;
        }
        s
    }

    /// Reads a square name such as `d1` or `n11` (lower-case file, rank 1–14
    /// without a leading zero). `None` for anything else, and for the cut corners.
    pub fn parse(text: &str) -> Option<Square> {
        let b = text.as_bytes();
        let (&f, digits) = b.split_first()?;
        if !(b'a'..=b'n').contains(&f) {
            return None;
        }
        let rank = parse_rank(digits)?;
        Square::new(f - b'a', rank)
    }
}

/// Reads a rank of one or two digits, 1–14 (no leading zero), as 0–13.
pub(crate) fn parse_rank(digits: &[u8]) -> Option<u8> {
    match digits {
        [d @ b'1'..=b'9'] => Some(d - b'1'),
        [b'1', d @ b'0'..=b'4'] => Some(d - b'0' + 9),
        _ => None,
    }
}

/// The name as the canonical moves write it.
impl NamedCell for Square {
    /// Writes the name (file letter, then one or two digits) into `out` at `at`,
    /// for sort keys; returns where it ends.
    fn write_name(self, out: &mut [u8], mut at: usize) -> usize {
        out[at] = b'a' + self.x();
        at += 1;
        let r = self.y() + 1;
        if r >= 10 {
            out[at] = b'1';
            at += 1;
        }
        out[at] = b'0' + r % 10;
        at + 1
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.x()), self.y() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The 160 squares in square order (by rank, then by file; §1).
pub(crate) static SQUARES: [Square; 160] = {
    let mut out = [Square(0); 160];
    let mut n = 0;
    let mut y = 0;
    while y < 14 {
        let mut x = 0;
        while x < 14 {
            if exists(x, y) {
                out[n] = Square::at(x, y);
                n += 1;
            }
            x += 1;
        }
        y += 1;
    }
    assert!(n == 160);
    out
};

/// Each cell's place in square order (0–159), `u8::MAX` off the board: the bit of
/// the square in a [`SquareSet`].
pub(crate) static SQUARE_INDEX: [u8; CELLS] = {
    let mut out = [u8::MAX; CELLS];
    let mut i = 0;
    while i < SQUARES.len() {
        out[SQUARES[i].cell()] = i as u8;
        i += 1;
    }
    out
};

/// Each cell's file and rank (from 0; padding cells get values off the board), so
/// that the hot line tests of move generation read a table instead of dividing.
static FILE_RANK: [(i8, i8); CELLS] = {
    let mut out = [(0i8, 0i8); CELLS];
    let mut c = 0;
    while c < CELLS {
        out[c] = ((c as i16 % WIDTH - 2) as i8, (c as i16 / WIDTH - 2) as i8);
        c += 1;
    }
    out
};

impl Square {
    /// File and rank from a table (the same as [`Square::x`] and [`Square::y`]).
    pub(crate) fn file_rank(self) -> (i8, i8) {
        FILE_RANK[self.cell()]
    }
}

/// A set of squares, one bit per square in square order; iterating it yields the
/// squares in that order. It lets move generation visit a seat's pieces without
/// scanning all 160 squares.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct SquareSet([u64; 3]);

impl SquareSet {
    pub(crate) fn insert(&mut self, square: Square) {
        let i = SQUARE_INDEX[square.cell()] as usize;
        self.0[i / 64] |= 1 << (i % 64);
    }

    pub(crate) fn remove(&mut self, square: Square) {
        let i = SQUARE_INDEX[square.cell()] as usize;
        self.0[i / 64] &= !(1 << (i % 64));
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == [0; 3]
    }

    pub(crate) fn contains(self, square: Square) -> bool {
        let i = SQUARE_INDEX[square.cell()] as usize;
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    /// The squares, in square order.
    pub(crate) fn iter(self) -> SquareSetIter {
        SquareSetIter { words: self.0, word: 0 }
    }
}

/// The squares of a [`SquareSet`], in square order (lowest bit first).
pub(crate) struct SquareSetIter {
    words: [u64; 3],
    word: usize,
}

impl Iterator for SquareSetIter {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        while self.word < 3 {
            let bits = self.words[self.word];
            if bits != 0 {
                self.words[self.word] = bits & (bits - 1);
                return Some(SQUARES[self.word * 64 + bits.trailing_zeros() as usize]);
            }
            self.word += 1;
        }
        None
    }
}

/// A step as (Δfile, Δrank), with its mailbox offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dir {
    pub dx: i8,
    pub dy: i8,
}

impl Dir {
    pub const fn new(dx: i8, dy: i8) -> Dir {
        Dir { dx, dy }
    }

    /// The mailbox offset of the step.
    pub const fn offset(self) -> i16 {
        self.dy as i16 * WIDTH + self.dx as i16
    }

    /// Turned a quarter clockwise: `ρ(dx, dy) = (dy, −dx)` (§3).
    pub const fn rotated(self) -> Dir {
        Dir { dx: self.dy, dy: -self.dx }
    }

    pub const fn rotated_by(self, times: usize) -> Dir {
        let mut d = self;
        let mut i = 0;
        while i < times % 4 {
            d = d.rotated();
            i += 1;
        }
        d
    }
}

/// Rook directions (§2).
pub(crate) const ORTHOGONAL: [i16; 4] = [1, -1, WIDTH, -WIDTH];
/// Bishop directions (§2).
pub(crate) const DIAGONAL: [i16; 4] = [WIDTH + 1, WIDTH - 1, -WIDTH + 1, -WIDTH - 1];
/// King steps: all eight neighbours.
pub(crate) const KING_STEPS: [i16; 8] = [1, -1, WIDTH, -WIDTH, WIDTH + 1, WIDTH - 1, -WIDTH + 1, -WIDTH - 1];
/// Knight jumps (§2).
pub(crate) const KNIGHT_JUMPS: [i16; 8] =
    [2 * WIDTH + 1, 2 * WIDTH - 1, -2 * WIDTH + 1, -2 * WIDTH - 1, WIDTH + 2, WIDTH - 2, -WIDTH + 2, -WIDTH - 2];

/// One castling of one seat: king and rook from and to, the squares that must be
/// empty and those the king passes or lands on (§5).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Castling {
    pub king_from: Square,
    pub king_to: Square,
    pub rook_from: Square,
    pub rook_to: Square,
    /// The squares between king and rook.
    pub empty: [Option<Square>; 3],
    /// The square the king passes over, then the one it lands on.
    pub king_path: [Square; 2],
}

/// Everything about one seat's geometry, South's rotated `seat` quarters.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SeatGeometry {
    /// The pawns' forward step.
    pub forward: Dir,
    /// The pawns' two capture steps (forward plus or minus one square sideways).
    pub captures: [Dir; 2],
    /// The eight squares of the back rank, left to right as the seat sees them.
    pub back_rank: [Square; 8],
    /// The start squares of the pawns (the start line).
    pub start_line: [Square; 8],
    /// The king's start square.
    pub king_start: Square,
    /// `O-O` and `O-O-O`.
    pub castlings: [Castling; 2],
}

const fn sq(x: i16, y: i16) -> Square {
    Square::at(x, y)
}

const fn rotate_castling(c: Castling, times: usize) -> Castling {
    let mut empty = [None; 3];
    let mut i = 0;
    while i < 3 {
        if let Some(s) = c.empty[i] {
            empty[i] = Some(s.rotated_by(times));
        }
        i += 1;
    }
    Castling {
        king_from: c.king_from.rotated_by(times),
        king_to: c.king_to.rotated_by(times),
        rook_from: c.rook_from.rotated_by(times),
        rook_to: c.rook_to.rotated_by(times),
        empty,
        king_path: [c.king_path[0].rotated_by(times), c.king_path[1].rotated_by(times)],
    }
}

const fn seat_geometry(seat: usize) -> SeatGeometry {
    let forward = Dir::new(0, 1).rotated_by(seat);
    let captures = [Dir::new(-1, 1).rotated_by(seat), Dir::new(1, 1).rotated_by(seat)];
    let mut back_rank = [Square(0); 8];
    let mut start_line = [Square(0); 8];
    let mut i = 0;
    while i < 8 {
        back_rank[i] = sq(3 + i as i16, 0).rotated_by(seat);
        start_line[i] = sq(3 + i as i16, 1).rotated_by(seat);
        i += 1;
    }
    // South: K h1; O-O K h1→j1, R k1→i1; O-O-O K h1→f1, R d1→g1 (§5).
    let short = Castling {
        king_from: sq(7, 0),
        king_to: sq(9, 0),
        rook_from: sq(10, 0),
        rook_to: sq(8, 0),
        empty: [Some(sq(8, 0)), Some(sq(9, 0)), None],
        king_path: [sq(8, 0), sq(9, 0)],
    };
    let long = Castling {
        king_from: sq(7, 0),
        king_to: sq(5, 0),
        rook_from: sq(3, 0),
        rook_to: sq(6, 0),
        empty: [Some(sq(4, 0)), Some(sq(5, 0)), Some(sq(6, 0))],
        king_path: [sq(6, 0), sq(5, 0)],
    };
    SeatGeometry {
        forward,
        captures,
        back_rank,
        start_line,
        king_start: sq(7, 0).rotated_by(seat),
        castlings: [rotate_castling(short, seat), rotate_castling(long, seat)],
    }
}

/// The geometry of South, West, North and East (§3).
pub(crate) static SEATS: [SeatGeometry; 4] = [seat_geometry(0), seat_geometry(1), seat_geometry(2), seat_geometry(3)];

/// Which seat's back rank each cell is on (`4` for none).
pub(crate) static BACK_RANK_OF: [u8; CELLS] = {
    let mut out = [4u8; CELLS];
    let mut seat = 0;
    while seat < 4 {
        let mut i = 0;
        while i < 8 {
            out[SEATS[seat].back_rank[i].cell()] = seat as u8;
            i += 1;
        }
        seat += 1;
    }
    out
};

/// Whether each cell is on each seat's pawn start line (bit per seat).
pub(crate) static START_LINE_OF: [u8; CELLS] = {
    let mut out = [0u8; CELLS];
    let mut seat = 0;
    while seat < 4 {
        let mut i = 0;
        while i < 8 {
            out[SEATS[seat].start_line[i].cell()] |= 1 << seat;
            i += 1;
        }
        seat += 1;
    }
    out
};

/// The castling rights (bit `2 * seat + side`, as [`VsState`](super::VsState)
/// keeps them) whose rook starts on each cell: a move from or to that cell ends
/// them (§5).
pub(crate) static CASTLING_RIGHTS_OF: [u8; CELLS] = {
    let mut out = [0u8; CELLS];
    let mut seat = 0;
    while seat < 4 {
        let mut side = 0;
        while side < 2 {
            out[SEATS[seat].castlings[side].rook_from.cell()] |= 1 << (2 * seat + side);
            side += 1;
        }
        seat += 1;
    }
    out
};

/// The start squares of the eight castling rooks in square order, with their seat
/// and side: the order of the castling field (§10).
pub(crate) fn castling_rooks() -> impl Iterator<Item = (usize, usize, Square)> {
    let mut all: Vec<(usize, usize, Square)> =
        (0..4).flat_map(|seat| (0..2).map(move |side| (seat, side, SEATS[seat].castlings[side].rook_from))).collect();
    all.sort_by_key(|&(_, _, s)| s);
    all.into_iter()
}

/// The cells of the cut corners, for the board view.
pub(crate) fn holes() -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    for x in 0..SIZE {
        for y in 0..SIZE {
            if !exists(i16::from(x), i16::from(y)) {
                out.push((x, y));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str) -> Square {
        Square::parse(name).unwrap_or_else(|| panic!("{name}"))
    }

    /// §1: 160 squares; the corners are missing; square order by rank, then file.
    #[test]
    fn section_1_the_board() {
        assert_eq!(SQUARES.len(), 160);
        assert_eq!(SQUARES[0], s("d1"));
        assert_eq!(SQUARES[8], s("d2"));
        assert_eq!(SQUARES[24], s("a4"));
        assert_eq!(SQUARES[159], s("k14"));
        assert!(SQUARES.windows(2).all(|w| w[0] < w[1]));
        for name in ["a1", "c3", "l1", "n3", "a12", "c14", "l12", "n14", "o5", "a0", "a15", "d01", "a"] {
            assert_eq!(Square::parse(name), None, "{name}");
        }
        for sq in SQUARES {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
            assert_eq!(sq.rotated_by(4), sq);
        }
    }

    /// §3: the seats' pieces and directions are South's, rotated.
    #[test]
    fn section_3_rotation() {
        assert_eq!(SEATS[1].king_start, s("a7"));
        assert_eq!(SEATS[2].king_start, s("g14"));
        assert_eq!(SEATS[3].king_start, s("n8"));
        assert_eq!(SEATS[1].forward, Dir::new(1, 0));
        assert_eq!(SEATS[2].forward, Dir::new(0, -1));
        assert_eq!(SEATS[3].forward, Dir::new(-1, 0));
        assert_eq!(SEATS[1].back_rank[0], s("a11"));
        assert_eq!(SEATS[3].start_line[0], s("m4"));
    }

    /// §5: the castling table, seat by seat.
    #[test]
    fn section_5_castling_table() {
        let table = [
            ("h1", "j1", "k1", "i1", "h1", "f1", "d1", "g1"),
            ("a7", "a5", "a4", "a6", "a7", "a9", "a11", "a8"),
            ("g14", "e14", "d14", "f14", "g14", "i14", "k14", "h14"),
            ("n8", "n10", "n11", "n9", "n8", "n6", "n4", "n7"),
        ];
        for (seat, row) in table.iter().enumerate() {
            let [short, long] = SEATS[seat].castlings;
            assert_eq!(
                (short.king_from, short.king_to, short.rook_from, short.rook_to),
                (s(row.0), s(row.1), s(row.2), s(row.3))
            );
            assert_eq!(
                (long.king_from, long.king_to, long.rook_from, long.rook_to),
                (s(row.4), s(row.5), s(row.6), s(row.7))
            );
        }
        let order: Vec<String> = castling_rooks().map(|(_, _, s)| s.to_string()).collect();
        assert_eq!(order.join(","), "d1,k1,a4,n4,a11,n11,d14,k14");
    }
}
