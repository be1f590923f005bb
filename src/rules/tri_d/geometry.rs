//! The Tri-D board (`docs/rules/tri-d-chess.md` §1–2): columns of the 6×10
//! projection, the squares of the three main boards and of the twelve pins, and
//! the tables move generation reads (rays, knight and king columns, pawn
//! attacks), built once.
//!
//! Every square that can ever exist has an index below [`SQUARES`]: the 48 of
//! the main boards first (W, N, B, each rank by rank, files a to d), then four per
//! pin in pin order (`QL1 KL1 QL2 KL2 … KL6`, lower rank first, left file
//! first). Which pin squares exist depends on where the four attack boards
//! stand; sets of squares are `u128` bit masks.

use std::fmt;
use std::sync::LazyLock;

/// The number of squares that can ever exist: 48 on the main boards, 4 per pin.
pub const SQUARES: usize = 96;
/// The columns of the 6×10 projection.
pub const COLUMNS: usize = 60;
/// The pins an attack board can stand on.
pub const PINS: usize = 12;
/// File letters, x = 0…5.
pub const FILES: [u8; 6] = *b"zabcde";

/// A set of squares, bit `i` for square `i`.
pub type SquareSet = u128;

/// The squares of the main boards.
pub const MAIN_SQUARES: SquareSet = (1 << 48) - 1;

/// A pin: `(n - 1) * 2 + side`, side 0 for the queen's side (`QL`), 1 for the
/// king's (`KL`). Pin order is the state string's order (§11).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pin(pub u8);

impl Pin {
    /// Every pin, in pin order.
    pub fn all() -> impl Iterator<Item = Pin> {
        (0..PINS as u8).map(Pin)
    }

    /// The pin number n, 1…6.
    pub const fn number(self) -> u8 {
        self.0 / 2 + 1
    }

    /// Whether the pin is on the king's side (`KL`).
    pub const fn is_king_side(self) -> bool {
        self.0 % 2 == 1
    }

    /// The pin of number `n` (1…6) on a side.
    pub const fn new(n: u8, king_side: bool) -> Pin {
        Pin((n - 1) * 2 + king_side as u8)
    }

    /// The lowest rank the pin's board covers; a board covers it and the next.
    pub const fn low_rank(self) -> u8 {
        [0, 4, 2, 6, 4, 8][(self.number() - 1) as usize]
    }

    /// The position rank of §1's table (it orders forward and backward, §7).
    pub const fn position_rank(self) -> u8 {
        self.low_rank()
    }

    /// The leftmost file (x) the pin's board covers: z on QL, d on KL.
    pub const fn low_file(self) -> u8 {
        if self.is_king_side() { 4 } else { 0 }
    }

    /// The index of the pin's first square.
    pub const fn first_square(self) -> u8 {
        48 + self.0 * 4
    }

    /// The pin's four squares.
    pub const fn squares(self) -> SquareSet {
        0xf << self.first_square()
    }

    /// The pin's neighbours (§7): same-side pins of the table and the pin of the
    /// same number on the other side.
    pub fn neighbours(self) -> impl Iterator<Item = Pin> {
        const SAME: [&[u8]; 6] = [&[2, 3], &[1, 3, 4], &[1, 2, 4, 5], &[2, 3, 5, 6], &[3, 4, 6], &[4, 5]];
        let side = self.is_king_side();
        SAME[(self.number() - 1) as usize]
            .iter()
            .map(move |&n| Pin::new(n, side))
            .chain(std::iter::once(Pin::new(self.number(), !side)))
    }

    /// The English name (`QL1`, `KL6`).
    pub fn name(self) -> String {
        format!("{}{}", if self.is_king_side() { "KL" } else { "QL" }, self.number())
    }
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_king_side() { "KL" } else { "QL" })?;
        write!(f, "{}", self.number())
    }
}

/// A level: a main board or a pin.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// A main board: 0 White's (W), 1 the neutral (N), 2 Black's (B).
    Main(u8),
    /// An attack board's pin.
    Pin(Pin),
}

impl Level {
    /// The main boards' English names.
    pub const MAIN_NAMES: [&'static str; 3] = ["W", "N", "B"];

    /// The lowest rank of a main board (W 1, N 3, B 5).
    pub const fn main_low_rank(board: u8) -> u8 {
        1 + 2 * board
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Main(b) => f.write_str(Level::MAIN_NAMES[*b as usize]),
            Level::Pin(p) => p.fmt(f),
        }
    }
}

/// A square that can exist: an index below [`SQUARES`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(pub u8);

impl Square {
    /// The square at file `x`, rank `y` on `level`, if that level has it.
    pub fn at(x: u8, y: u8, level: Level) -> Option<Square> {
        match level {
            Level::Main(b) => {
                let low = Level::main_low_rank(b);
                ((1..=4).contains(&x) && (low..low + 4).contains(&y)).then(|| Square(b * 16 + (y - low) * 4 + x - 1))
            }
            Level::Pin(p) => {
                let (lx, ly) = (p.low_file(), p.low_rank());
                ((lx..lx + 2).contains(&x) && (ly..ly + 2).contains(&y))
                    .then(|| Square(p.first_square() + (y - ly) * 2 + x - lx))
            }
        }
    }

    /// The file (x, 0 for z).
    pub fn x(self) -> u8 {
        TABLES.x[self.0 as usize]
    }

    /// The rank (y).
    pub fn y(self) -> u8 {
        TABLES.y[self.0 as usize]
    }

    /// The column (y * 6 + x).
    pub fn column(self) -> u8 {
        TABLES.column[self.0 as usize]
    }

    /// The level the square is on.
    pub fn level(self) -> Level {
        if self.0 < 48 { Level::Main(self.0 / 16) } else { Level::Pin(Pin((self.0 - 48) / 4)) }
    }

    /// The pin the square belongs to, if any.
    pub fn pin(self) -> Option<Pin> {
        (self.0 >= 48).then_some(Pin((self.0 - 48) / 4))
    }

    /// The square's bit.
    pub const fn bit(self) -> SquareSet {
        1 << self.0
    }

    /// The square of the same place on `to`'s board, for a board moving from
    /// its pin to `to` (pure translation, §7). `None` for a main-board square.
    pub fn on_pin(self, to: Pin) -> Option<Square> {
        (self.0 >= 48).then(|| Square(to.first_square() + (self.0 - 48) % 4))
    }

    /// Writes the English name (`a2W`, `z0QL1`) into `out`.
    pub fn write_name(self, out: &mut impl fmt::Write) -> fmt::Result {
        out.write_char(char::from(FILES[self.x() as usize]))?;
        out.write_char(char::from(b'0' + self.y()))?;
        write!(out, "{}", self.level())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_name(f)
    }
}

/// The eight directions, orthogonal first: (Δfile, Δrank).
pub const DIRECTIONS: [(i8, i8); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];

/// The columns a ray passes, nearest first, and how many.
#[derive(Copy, Clone, Debug, Default)]
pub struct Ray {
    /// The columns, `len` of them.
    pub columns: [u8; 9],
    /// How many columns the ray has before the edge.
    pub len: u8,
}

impl Ray {
    /// The columns, nearest first.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        self.columns[..self.len as usize].iter().copied()
    }
}

/// Everything about the geometry, computed once.
pub struct Tables {
    /// Per square: file, rank, column.
    pub x: [u8; SQUARES],
    /// See `x`.
    pub y: [u8; SQUARES],
    /// See `x`.
    pub column: [u8; SQUARES],
    /// Per column: every square that can exist in it (main boards and pins).
    pub column_squares: [SquareSet; COLUMNS],
    /// Per column and direction (see [`DIRECTIONS`]): the ray to the edge.
    pub rays: [[Ray; 8]; COLUMNS],
    /// Per column: the squares of every column on its orthogonal (0) and
    /// diagonal (1) rays, to skip rays no slider can use.
    pub lines: [[SquareSet; 2]; COLUMNS],
    /// Per column: the knight's target columns and their number.
    pub knight: [([u8; 8], u8); COLUMNS],
    /// Per column: the king's target columns and their number.
    pub king: [([u8; 8], u8); COLUMNS],
    /// Per column: the squares of the knight's target columns (knights there
    /// attack the column).
    pub knight_squares: [SquareSet; COLUMNS],
    /// Per column: the squares of its eight neighbour columns.
    pub king_squares: [SquareSet; COLUMNS],
    /// Per colour and column: the squares from which a pawn of that colour
    /// attacks the column.
    pub pawn_attackers: [[SquareSet; COLUMNS]; 2],
    /// Per square: its name's place among all square names in byte order, so
    /// moves sort by their text without writing it.
    pub name_order: [u8; SQUARES],
    /// Per pin: its name's place among the pins' names in byte order.
    pub pin_name_order: [u8; PINS],
}

/// The geometry tables.
pub static TABLES: LazyLock<Tables> = LazyLock::new(build);

fn column_of(x: i8, y: i8) -> Option<u8> {
    ((0..6).contains(&x) && (0..10).contains(&y)).then(|| (y * 6 + x) as u8)
}

fn build() -> Tables {
    let mut t = Tables {
        x: [0; SQUARES],
        y: [0; SQUARES],
        column: [0; SQUARES],
        column_squares: [0; COLUMNS],
        rays: [[Ray::default(); 8]; COLUMNS],
        lines: [[0; 2]; COLUMNS],
        knight: [([0; 8], 0); COLUMNS],
        king: [([0; 8], 0); COLUMNS],
        knight_squares: [0; COLUMNS],
        king_squares: [0; COLUMNS],
        pawn_attackers: [[0; COLUMNS]; 2],
        name_order: [0; SQUARES],
        pin_name_order: [0; PINS],
    };

    for s in 0..SQUARES as u8 {
        let (x, y) = if s < 48 {
            let b = s / 16;
            (s % 4 + 1, Level::main_low_rank(b) + (s % 16) / 4)
        } else {
            let p = Pin((s - 48) / 4);
            let local = (s - 48) % 4;
            (p.low_file() + local % 2, p.low_rank() + local / 2)
        };
        t.x[s as usize] = x;
        t.y[s as usize] = y;
        t.column[s as usize] = y * 6 + x;
        t.column_squares[(y * 6 + x) as usize] |= 1 << s;
    }
    // The names as `Square::write_name` writes them (it reads these tables,
    // so it cannot be called while they are built).
    let mut by_name: Vec<(String, u8)> = (0..SQUARES as u8)
        .map(|s| {
            let (x, y) = (t.x[s as usize], t.y[s as usize]);
            (format!("{}{y}{}", char::from(FILES[x as usize]), Square(s).level()), s)
        })
        .collect();
    by_name.sort();
    for (place, (_, s)) in by_name.into_iter().enumerate() {
        t.name_order[s as usize] = place as u8;
    }
    let mut pins: Vec<(String, Pin)> = Pin::all().map(|p| (p.name(), p)).collect();
    pins.sort();
    for (place, (_, pin)) in pins.into_iter().enumerate() {
        t.pin_name_order[pin.0 as usize] = place as u8;
    }
    for c in 0..COLUMNS {
        let (x, y) = ((c % 6) as i8, (c / 6) as i8);
        for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            let mut ray = Ray::default();
            let (mut cx, mut cy) = (x + dx, y + dy);
            while let Some(col) = column_of(cx, cy) {
                ray.columns[ray.len as usize] = col;
                ray.len += 1;
                t.lines[c][d / 4] |= t.column_squares[col as usize];
                cx += dx;
                cy += dy;
            }
            t.rays[c][d] = ray;
            if let Some(col) = column_of(x + dx, y + dy) {
                let (cols, n) = &mut t.king[c];
                cols[*n as usize] = col;
                *n += 1;
                t.king_squares[c] |= t.column_squares[col as usize];
            }
        }
        for &(dx, dy) in &KNIGHT {
            if let Some(col) = column_of(x + dx, y + dy) {
                let (cols, n) = &mut t.knight[c];
                cols[*n as usize] = col;
                *n += 1;
                t.knight_squares[c] |= t.column_squares[col as usize];
            }
        }
        // A White pawn one rank below and a file aside attacks this column; a
        // Black one from one rank above.
        for (colour, dy) in [(0usize, -1i8), (1, 1)] {
            for dx in [-1, 1] {
                if let Some(col) = column_of(x + dx, y + dy) {
                    t.pawn_attackers[colour][c] |= t.column_squares[col as usize];
                }
            }
        }
    }
    t
}

/// The column one step from `column` by (`dx`, `dy`), if inside the projection.
pub fn step(col: u8, dx: i8, dy: i8) -> Option<u8> {
    column_of((col % 6) as i8 + dx, (col / 6) as i8 + dy)
}

/// Reads a level name: `W N B` (German `S` for B), `QL1`…`KL6` (German `DP`,
/// `KP`), in either case. Returns the level and the rest of the text.
pub fn read_level(text: &[u8]) -> Vec<(Level, &[u8])> {
    let mut out = Vec::new();
    let upper = |i: usize| text.get(i).map(u8::to_ascii_uppercase);
    match upper(0) {
        Some(b'W') => out.push((Level::Main(0), &text[1..])),
        Some(b'N') => out.push((Level::Main(1), &text[1..])),
        Some(b'B' | b'S') => out.push((Level::Main(2), &text[1..])),
        _ => {}
    }
    let side = match (upper(0), upper(1)) {
        (Some(b'Q'), Some(b'L')) | (Some(b'D'), Some(b'P')) => Some(false),
        (Some(b'K'), Some(b'L' | b'P')) => Some(true),
        _ => None,
    };
    if let (Some(king_side), Some(n @ b'1'..=b'6')) = (side, text.get(2)) {
        out.push((Level::Pin(Pin::new(n - b'0', king_side)), &text[3..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_name_their_place() {
        let names: Vec<String> = (0..SQUARES as u8).map(|s| Square(s).to_string()).collect();
        assert_eq!(names[0], "a1W");
        assert_eq!(names[15], "d4W");
        assert_eq!(names[16], "a3N");
        assert_eq!(names[47], "d8B");
        assert_eq!(names[48], "z0QL1");
        assert_eq!(names[51], "a1QL1");
        assert_eq!(names[52], "d0KL1");
        assert_eq!(names[95], "e9KL6");
        for s in 0..SQUARES as u8 {
            let sq = Square(s);
            assert_eq!(Square::at(sq.x(), sq.y(), sq.level()), Some(sq), "{sq}");
        }
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), SQUARES, "names are distinct");
        for s in 0..SQUARES {
            assert_eq!(sorted[TABLES.name_order[s] as usize], names[s], "the name order");
        }
        let mut pins: Vec<String> = Pin::all().map(Pin::name).collect();
        pins.sort();
        for p in Pin::all() {
            assert_eq!(pins[TABLES.pin_name_order[p.0 as usize] as usize], p.name(), "the pins' name order");
        }
    }

    /// §1: a column holds 0 to 4 squares; b0, c0, b9, c9 never hold any.
    #[test]
    fn columns_hold_up_to_four_squares() {
        let t = &*TABLES;
        let count = |x: u8, y: u8| t.column_squares[(y * 6 + x) as usize].count_ones();
        assert_eq!(count(2, 0), 0);
        assert_eq!(count(3, 9), 0);
        assert_eq!(count(1, 4), 4, "a4: W, N, QL2, QL5");
        assert_eq!(count(1, 1), 2, "a1: W, QL1");
        assert!((0..COLUMNS).all(|c| t.column_squares[c].count_ones() <= 4));
        assert_eq!(t.column_squares.iter().map(|m| m.count_ones()).sum::<u32>(), SQUARES as u32);
    }

    /// §7's adjacency table.
    #[test]
    fn pins_and_their_neighbours() {
        let names = |p: Pin| p.neighbours().map(|q| q.to_string()).collect::<Vec<_>>().join(" ");
        assert_eq!(names(Pin::new(1, false)), "QL2 QL3 KL1");
        assert_eq!(names(Pin::new(4, true)), "KL2 KL3 KL5 KL6 QL4");
        assert_eq!(names(Pin::new(6, false)), "QL4 QL5 KL6");
        assert_eq!(Pin::new(5, true).low_rank(), 4);
        assert_eq!(Square(48).on_pin(Pin::new(1, true)), Some(Square(52)), "z0QL1 to d0KL1");
    }

    #[test]
    fn levels_read_in_english_german_and_either_case() {
        let read = |t: &str| read_level(t.as_bytes()).into_iter().map(|(l, _)| l.to_string()).collect::<Vec<_>>();
        assert_eq!(read("W"), ["W"]);
        assert_eq!(read("s"), ["B"]);
        assert_eq!(read("dp4"), ["QL4"]);
        assert_eq!(read("KP6"), ["KL6"]);
        assert_eq!(read("kl1"), ["KL1"]);
        assert!(read("QL7").is_empty());
        assert!(read("x").is_empty());
    }
}
