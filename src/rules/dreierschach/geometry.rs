//! The hexagonal board of `docs/rules/dreierschach.md` §1–3 and §5: the 126 cells and
//! their names in both naming systems, cell order, the straight and diagonal
//! directions with the two cells a diagonal step passes between, the knight's
//! jumps, and each seat's geometry as White's rotated.
//!
//! Cells live in a mailbox of 19 × 19: `x` (number − 1) and `y` (letter − `a`)
//! from −3 to 15, three cells of padding around the 13 × 13 square that holds
//! the hexagon, so that a knight's jump (at most three cells along either axis)
//! or a slider's step off the board lands on a cell marked "off" instead of
//! wrapping around. The cells of the square outside the hexagon are "off" too.
//! A cell's index grows by letter, then by number: exactly the rules file's cell
//! order.

use std::fmt;

use crate::rules::cell_path::NamedCell;

/// Padding cells on each side of the 13 × 13 square.
const PAD: i16 = 3;
/// The width of the mailbox.
pub(crate) const WIDTH: i16 = 13 + 2 * PAD;
/// The number of mailbox cells.
pub(crate) const MAILBOX: usize = (WIDTH * WIDTH) as usize;
/// The number of cells of the board.
pub(crate) const CELL_COUNT: usize = 126;

/// Whether (`x`, `y`) is a cell of the board (§1).
pub(crate) const fn exists(x: i16, y: i16) -> bool {
    x >= 0 && x <= 12 && y >= 0 && y <= 12 && y - x >= -7 && y - x <= 5
}

/// How cells are named (§8, option `names`): V2.2 `<letter = y><number = x + 1>`,
/// or V2.3, which swaps them (`<letter = x><number = y + 1>`). The state string
/// and the canonical move text always use V2.2.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Names {
    /// The V2.2 names (`d9`): the default.
    #[default]
    V22,
    /// The V2.3 names (V2.2 `d9` is `i4`).
    V23,
}

impl Names {
    /// The option value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Names::V22 => "v2.2",
            Names::V23 => "v2.3",
        }
    }
}

/// A cell of the board, as its mailbox index.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hex(u16);

impl Hex {
    /// The cell (`x`, `y`) = (number − 1, letter − `a`) in V2.2 terms, if it exists.
    pub const fn new(x: i16, y: i16) -> Option<Hex> {
        if exists(x, y) { Some(Hex::at(x, y)) } else { None }
    }

    const fn at(x: i16, y: i16) -> Hex {
        Hex(((y + PAD) * WIDTH + x + PAD) as u16)
    }

    /// The mailbox index.
    pub(crate) const fn cell(self) -> usize {
        self.0 as usize
    }

    /// The cell of a mailbox index (which must be on the board).
    pub(crate) const fn from_cell(cell: usize) -> Hex {
        Hex(cell as u16)
    }

    /// `x`: the V2.2 number less one, 0–12.
    pub const fn x(self) -> u8 {
        (self.0 as i16 % WIDTH - PAD) as u8
    }

    /// `y`: the V2.2 letter, 0 (`a`) to 12 (`m`).
    pub const fn y(self) -> u8 {
        (self.0 as i16 / WIDTH - PAD) as u8
    }

    /// The cell turned from one seat's side to the next seat's (White → Brown →
    /// Black): `ρ(x, y) = (y − x + 7, 12 − x)` (§3).
    pub const fn rotated(self) -> Hex {
        let (x, y) = (self.x() as i16, self.y() as i16);
        Hex::at(y - x + 7, 12 - x)
    }

    /// Turned `times` seats on.
    pub const fn rotated_by(self, times: usize) -> Hex {
        let mut h = self;
        let mut i = 0;
        while i < times % 3 {
            h = h.rotated();
            i += 1;
        }
        h
    }

    /// The letter and the number (from 0) of the cell's name under `names`.
    pub const fn name_parts(self, names: Names) -> (u8, u8) {
        match names {
            Names::V22 => (self.y(), self.x()),
            Names::V23 => (self.x(), self.y()),
        }
    }

    /// The cell's name under `names` (`d9`, or `i4` in V2.3).
    pub fn name(self, names: Names) -> String {
        let (letter, number) = self.name_parts(names);
        format!("{}{}", char::from(b'a' + letter), number + 1)
    }

    /// The cell named by a letter and a number (from 0) under `names`.
    pub const fn from_name_parts(letter: u8, number: u8, names: Names) -> Option<Hex> {
        match names {
            Names::V22 => Hex::new(number as i16, letter as i16),
            Names::V23 => Hex::new(letter as i16, number as i16),
        }
    }

    /// Reads a cell name such as `d9` or `m13` under `names` (lower-case letter,
    /// number 1–13 without a leading zero); `None` for anything else.
    pub fn parse(text: &str, names: Names) -> Option<Hex> {
        let (&letter, digits) = text.as_bytes().split_first()?;
        if !(b'a'..=b'm').contains(&letter) {
            return None;
        }
        let number = match digits {
            [d @ b'1'..=b'9'] => d - b'1',
            [b'1', d @ b'0'..=b'3'] => d - b'0' + 9,
            _ => return None,
        };
        Hex::from_name_parts(letter - b'a', number, names)
    }
}

/// The V2.2 name, as the state string and canonical moves write it.
impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.y()), self.x() + 1)
    }
}

/// The name as the canonical moves write it (V2.2 names for Dreierschach).
impl NamedCell for Hex {
    /// Writes the V2.2 name into `out` at `at`, for sort keys; returns where it ends.
    fn write_name(self, out: &mut [u8], mut at: usize) -> usize {
        out[at] = b'a' + self.y();
        at += 1;
        let n = self.x() + 1;
        if n >= 10 {
            out[at] = b'1';
            at += 1;
        }
        out[at] = b'0' + n % 10;
        at + 1
    }
}

impl fmt::Debug for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The 126 cells in cell order (by letter, then by number; §1).
pub(crate) static CELLS: [Hex; CELL_COUNT] = {
    let mut out = [Hex(0); CELL_COUNT];
    let mut n = 0;
    let mut y = 0;
    while y < 13 {
        let mut x = 0;
        while x < 13 {
            if exists(x, y) {
                out[n] = Hex::at(x, y);
                n += 1;
            }
            x += 1;
        }
        y += 1;
    }
    assert!(n == CELL_COUNT);
    out
};

/// Each mailbox cell's place in cell order (0–125), `u8::MAX` off the board: the
/// bit of the cell in a [`HexSet`].
pub(crate) static ORDER: [u8; MAILBOX] = {
    let mut out = [u8::MAX; MAILBOX];
    let mut i = 0;
    while i < CELL_COUNT {
        out[CELLS[i].cell()] = i as u8;
        i += 1;
    }
    out
};

/// Whether a mailbox index is a cell of the board.
#[inline]
pub(crate) fn on_board(cell: usize) -> bool {
    ORDER[cell] != u8::MAX
}

/// A set of cells, one bit per cell in cell order; iterating it yields the cells
/// in that order. Move generation visits a seat's pieces through it instead of
/// scanning the board.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct HexSet(u128);

impl HexSet {
    pub(crate) fn insert(&mut self, hex: Hex) {
        self.0 |= 1 << ORDER[hex.cell()];
    }

    pub(crate) fn remove(&mut self, hex: Hex) {
        self.0 &= !(1 << ORDER[hex.cell()]);
    }

    pub(crate) fn contains(self, hex: Hex) -> bool {
        self.0 & (1 << ORDER[hex.cell()]) != 0
    }

    pub(crate) fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The cells, in cell order.
    pub(crate) fn iter(self) -> impl Iterator<Item = Hex> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(CELLS[i])
        })
    }
}

/// The mailbox offset of a step of (Δnumber, Δletter) = (`dx`, `dy`).
const fn offset(dx: i16, dy: i16) -> i16 {
    dy * WIDTH + dx
}

/// The straight directions S0–S5 (§2) as (Δnumber, Δletter): W, NW, NE, E, SE, SW
/// on the screen. Turning a seat on adds two: S_i → S_(i+2).
pub(crate) const STRAIGHT_VECTORS: [(i16, i16); 6] = [(-1, 0), (0, 1), (1, 1), (1, 0), (0, -1), (-1, -1)];

/// The straight directions as mailbox offsets.
pub(crate) const STRAIGHT: [i16; 6] = {
    let mut out = [0; 6];
    let mut i = 0;
    while i < 6 {
        out[i] = offset(STRAIGHT_VECTORS[i].0, STRAIGHT_VECTORS[i].1);
        i += 1;
    }
    out
};

/// The diagonal directions D_i = S_i + S_(i+1) (§2) as mailbox offsets.
pub(crate) const DIAGONAL: [i16; 6] = {
    let mut out = [0; 6];
    let mut i = 0;
    while i < 6 {
        out[i] = STRAIGHT[i] + STRAIGHT[(i + 1) % 6];
        i += 1;
    }
    out
};

/// For each diagonal D_i, the two straight steps S_i and S_(i+1) to the cells a
/// diagonal step from P passes between (the passage rule, §2): the step is
/// allowed only if at least one of P + S_i and P + S_(i+1) is empty.
pub(crate) const FLANKS: [(i16, i16); 6] = {
    let mut out = [(0, 0); 6];
    let mut i = 0;
    while i < 6 {
        out[i] = (STRAIGHT[i], STRAIGHT[(i + 1) % 6]);
        i += 1;
    }
    out
};

/// The twelve knight jumps 2·S_i + S_(i+1) and S_i + 2·S_(i+1) (§2).
pub(crate) const KNIGHT: [i16; 12] = {
    let mut out = [0; 12];
    let mut i = 0;
    while i < 6 {
        let (a, b) = (STRAIGHT[i], STRAIGHT[(i + 1) % 6]);
        out[2 * i] = 2 * a + b;
        out[2 * i + 1] = a + 2 * b;
        i += 1;
    }
    out
};

/// One castling of one seat (§5): the king goes to the cell next to the rook,
/// the rook over it to the cell the king passed first.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Castling {
    pub king_from: Hex,
    pub king_to: Hex,
    pub rook_from: Hex,
    pub rook_to: Hex,
    /// The cells between king and rook, from the king's side (the king passes
    /// them all and stops on the last).
    pub between: [Option<Hex>; 3],
}

/// Everything about one seat's geometry: White's turned `seat` seats on.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SeatGeometry {
    /// The pawns' two straight directions (indices into [`STRAIGHT`]).
    pub pawn_steps: [usize; 2],
    /// The pawns' three diagonal capture directions (indices into [`DIAGONAL`]).
    pub pawn_captures: [usize; 3],
    /// The baseline, from the seat's left to its right.
    pub baseline: [Hex; 8],
    /// The pawns' start line (the nine cells in front of the baseline).
    pub start_line: [Hex; 9],
    /// The king's start cell.
    pub king_start: Hex,
    /// `0-0` and `0-0-0`.
    pub castlings: [Castling; 2],
}

const fn rotate_castling(c: Castling, times: usize) -> Castling {
    let mut between = [None; 3];
    let mut i = 0;
    while i < 3 {
        if let Some(h) = c.between[i] {
            between[i] = Some(h.rotated_by(times));
        }
        i += 1;
    }
    Castling {
        king_from: c.king_from.rotated_by(times),
        king_to: c.king_to.rotated_by(times),
        rook_from: c.rook_from.rotated_by(times),
        rook_to: c.rook_to.rotated_by(times),
        between,
    }
}

const fn seat_geometry(seat: usize) -> SeatGeometry {
    let mut baseline = [Hex(0); 8];
    let mut start_line = [Hex(0); 9];
    let mut i = 0;
    while i < 9 {
        if i < 8 {
            baseline[i] = Hex::at(i as i16, 0).rotated_by(seat);
        }
        start_line[i] = Hex::at(i as i16, 1).rotated_by(seat);
        i += 1;
    }
    // White (§5): K a4; 0-0 K a4→a2, R a1→a3; 0-0-0 K a4→a7, R a8→a6.
    let short = Castling {
        king_from: Hex::at(3, 0),
        king_to: Hex::at(1, 0),
        rook_from: Hex::at(0, 0),
        rook_to: Hex::at(2, 0),
        between: [Some(Hex::at(2, 0)), Some(Hex::at(1, 0)), None],
    };
    let long = Castling {
        king_from: Hex::at(3, 0),
        king_to: Hex::at(6, 0),
        rook_from: Hex::at(7, 0),
        rook_to: Hex::at(5, 0),
        between: [Some(Hex::at(4, 0)), Some(Hex::at(5, 0)), Some(Hex::at(6, 0))],
    };
    SeatGeometry {
        pawn_steps: [(1 + 2 * seat) % 6, (2 + 2 * seat) % 6],
        pawn_captures: [(2 * seat) % 6, (1 + 2 * seat) % 6, (2 + 2 * seat) % 6],
        baseline,
        start_line,
        king_start: Hex::at(3, 0).rotated_by(seat),
        castlings: [rotate_castling(short, seat), rotate_castling(long, seat)],
    }
}

const SEAT_TABLE: [SeatGeometry; 3] = [seat_geometry(0), seat_geometry(1), seat_geometry(2)];

/// The geometry of White, Brown and Black (§3).
pub(crate) static SEATS: [SeatGeometry; 3] = SEAT_TABLE;

/// Which seat's baseline each mailbox cell is on (`3` for none). The corners
/// a1, a8, f1, m8, f13 and m13 are each on one baseline.
pub(crate) static BASELINE_OF: [u8; MAILBOX] = {
    let mut out = [3u8; MAILBOX];
    let mut seat = 0;
    while seat < 3 {
        let mut i = 0;
        while i < 8 {
            out[SEATS[seat].baseline[i].cell()] = seat as u8;
            i += 1;
        }
        seat += 1;
    }
    out
};

/// Whether each mailbox cell is on each seat's start line (bit per seat).
pub(crate) static START_LINE_OF: [u8; MAILBOX] = {
    let mut out = [0u8; MAILBOX];
    let mut seat = 0;
    while seat < 3 {
        let mut i = 0;
        while i < 9 {
            out[SEATS[seat].start_line[i].cell()] |= 1 << seat;
            i += 1;
        }
        seat += 1;
    }
    out
};

/// The start cells of the six castling rooks in cell order, each with its seat
/// and side (0 short): the order of the state string's castling field (§9).
pub(crate) const CASTLING_ROOKS: [(usize, usize, Hex); 6] = {
    let mut all = [(0, 0, Hex(0)); 6];
    let mut seat = 0;
    while seat < 3 {
        let mut side = 0;
        while side < 2 {
            all[2 * seat + side] = (seat, side, SEAT_TABLE[seat].castlings[side].rook_from);
            side += 1;
        }
        seat += 1;
    }
    // Sort by cell (insertion sort: six entries).
    let mut i = 1;
    while i < 6 {
        let mut j = i;
        while j > 0 && all[j - 1].2.0 > all[j].2.0 {
            let t = all[j - 1];
            all[j - 1] = all[j];
            all[j] = t;
            j -= 1;
        }
        i += 1;
    }
    all
};

#[cfg(test)]
mod tests {
    use super::*;

    fn h(name: &str) -> Hex {
        Hex::parse(name, Names::V22).unwrap_or_else(|| panic!("{name}"))
    }

    fn names(cells: impl IntoIterator<Item = Hex>) -> Vec<String> {
        cells.into_iter().map(|c| c.to_string()).collect()
    }

    /// §1: 126 cells; each row's range; cell order; names read back in both systems.
    #[test]
    fn section_1_cells_and_names() {
        assert_eq!(CELLS.len(), 126);
        let rows = [
            ("a", 1, 8),
            ("b", 1, 9),
            ("c", 1, 10),
            ("d", 1, 11),
            ("e", 1, 12),
            ("f", 1, 13),
            ("g", 2, 13),
            ("h", 3, 13),
            ("i", 4, 13),
            ("j", 5, 13),
            ("k", 6, 13),
            ("l", 7, 13),
            ("m", 8, 13),
        ];
        let mut expected = Vec::new();
        for (letter, lo, hi) in rows {
            for n in lo..=hi {
                expected.push(format!("{letter}{n}"));
            }
            assert_eq!(Hex::parse(&format!("{letter}{}", lo - 1), Names::V22), None);
            assert_eq!(Hex::parse(&format!("{letter}{}", hi + 1), Names::V22), None);
        }
        assert_eq!(names(CELLS), expected, "cell order: by letter, then by number");
        for bad in ["n1", "a0", "a01", "A1", "a", "a14", "m7", "g1"] {
            assert_eq!(Hex::parse(bad, Names::V22), None, "{bad}");
        }
        for c in CELLS {
            assert_eq!(Hex::parse(&c.to_string(), Names::V22), Some(c));
            assert_eq!(Hex::parse(&c.name(Names::V23), Names::V23), Some(c));
            assert_eq!(c.rotated_by(3), c);
        }
        // §8: V2.2 d9 is V2.3 i4.
        assert_eq!(h("d9").name(Names::V23), "i4");
    }

    /// §1: three colours, 42 cells each; each queen starts on her own colour.
    #[test]
    fn section_1_colours() {
        let mut count = [0; 3];
        for c in CELLS {
            count[usize::from((c.x() + c.y()) % 3)] += 1;
        }
        assert_eq!(count, [42, 42, 42]);
        let colour = |n: &str| (h(n).x() + h(n).y()) % 3;
        assert_eq!((colour("a5"), colour("i4"), colour("j13")), (1, 2, 0), "light, medium, dark");
    }

    /// §2: the knight's twelve jumps from d5 on an empty board.
    #[test]
    fn section_12_knight_jumps_from_d5() {
        let from = h("d5");
        let mut to: Vec<Hex> = KNIGHT
            .iter()
            .map(|&d| (from.cell() as i16 + d) as usize)
            .filter(|&c| ORDER[c] != u8::MAX)
            .map(Hex::from_cell)
            .collect();
        to.sort();
        assert_eq!(names(to), ["a3", "a4", "b2", "b6", "c2", "c7", "e3", "e8", "f4", "f8", "g6", "g7"]);
    }

    /// §3: every seat's geometry is White's turned, and matches the setup table.
    #[test]
    fn section_3_seats() {
        assert_eq!(names(SEATS[0].baseline), ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"]);
        assert_eq!(names(SEATS[1].baseline), ["m8", "l7", "k6", "j5", "i4", "h3", "g2", "f1"]);
        assert_eq!(names(SEATS[2].baseline), ["f13", "g13", "h13", "i13", "j13", "k13", "l13", "m13"]);
        assert_eq!(names(SEATS[1].start_line), ["m9", "l8", "k7", "j6", "i5", "h4", "g3", "f2", "e1"]);
        assert_eq!(names(SEATS[2].start_line), ["e12", "f12", "g12", "h12", "i12", "j12", "k12", "l12", "m12"]);
        assert_eq!(SEATS[1].pawn_steps, [3, 4]);
        assert_eq!(SEATS[2].pawn_steps, [5, 0]);
        assert_eq!(SEATS[1].pawn_captures, [2, 3, 4]);
        assert_eq!(SEATS[2].pawn_captures, [4, 5, 0]);
        for seat in 0..3 {
            for i in 0..6 {
                let (dx, dy) = STRAIGHT_VECTORS[i];
                // ρ(dx, dy) = (dy − dx, −dx) is S_(i+2).
                assert_eq!((dy - dx, -dx), STRAIGHT_VECTORS[(i + 2) % 6], "seat {seat} S{i}");
            }
        }
    }

    /// §5: the castling table, seat by seat, and the order of the rooks.
    #[test]
    fn section_5_castling_squares() {
        let table = [
            ("a4", "a2", "a1", "a3", "a4", "a7", "a8", "a6"),
            ("j5", "l7", "m8", "k6", "j5", "g2", "f1", "h3"),
            ("i13", "g13", "f13", "h13", "i13", "l13", "m13", "k13"),
        ];
        for (seat, row) in table.iter().enumerate() {
            let [short, long] = SEATS[seat].castlings;
            assert_eq!(
                (short.king_from, short.king_to, short.rook_from, short.rook_to),
                (h(row.0), h(row.1), h(row.2), h(row.3))
            );
            assert_eq!(
                (long.king_from, long.king_to, long.rook_from, long.rook_to),
                (h(row.4), h(row.5), h(row.6), h(row.7))
            );
            assert_eq!(long.between.iter().flatten().count(), 3);
            assert_eq!(short.between.iter().flatten().count(), 2);
        }
        let order: Vec<String> = CASTLING_ROOKS.iter().map(|r| r.2.to_string()).collect();
        assert_eq!(order.join(","), "a1,a8,f1,f13,m8,m13");
    }
}
