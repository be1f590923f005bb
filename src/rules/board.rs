//! The board a variant plays on, described for the renderers, and a position on it.
//!
//! Renderers draw a [`BoardView`] and never look inside a variant's state: the
//! [`BoardShape`] says where every cell lies in the plane and what outline it has
//! (squares, hexagons, triangles, on one or several levels drawn side by side,
//! holes simply left out), which pieces the game uses, and how each seat's view is
//! turned so that seat sits at the bottom; the pieces say what stands where.
//! Moves are drawn from their [`MovePath`]: every cell the move passes or jumps,
//! and the cells it captures.

use std::sync::Arc;

use super::Seat;

/// A point in the plane of a board, in cell units, `y` upwards (away from the
/// first seat).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Point {
    /// Rightwards, seen from the first seat.
    pub x: f32,
    /// Upwards, away from the first seat.
    pub y: f32,
}

impl Point {
    /// The point (`x`, `y`).
    pub const fn new(x: f32, y: f32) -> Point {
        Point { x, y }
    }

    /// This point turned counter-clockwise about the origin by `degrees`. Quarter
    /// turns are exact, so square boards keep whole coordinates.
    pub fn turned(self, degrees: f32) -> Point {
        let (sin, cos) = match degrees.rem_euclid(360.0) {
            0.0 => (0.0, 1.0),
            90.0 => (1.0, 0.0),
            180.0 => (0.0, -1.0),
            270.0 => (-1.0, 0.0),
            d => d.to_radians().sin_cos(),
        };
        Point { x: self.x * cos - self.y * sin, y: self.x * sin + self.y * cos }
    }
}

/// The outline of a cell around its centre.
#[derive(Clone, Debug, PartialEq)]
pub enum Outline {
    /// A square of side 1.
    Square,
    /// A hexagon with flat top and bottom, 1 from flat to flat.
    Hexagon,
    /// A hexagon with pointed top and bottom, 1 from flat side to flat side.
    HexagonPointed,
    /// An equilateral triangle of side 1 with its centroid at the centre, pointing
    /// up (`up`) or down.
    Triangle {
        /// Whether the apex points up (away from the first seat).
        up: bool,
    },
    /// Any other polygon: its corners relative to the centre, in order.
    Polygon(Vec<Point>),
}

impl Outline {
    /// The corners of this outline around `centre`, in order.
    pub fn corners(&self, centre: Point) -> Vec<Point> {
        let at = |x: f32, y: f32| Point::new(centre.x + x, centre.y + y);
        let r = 1.0 / 3f32.sqrt();
        let h = 3f32.sqrt() / 2.0;
        match self {
            Outline::Square => vec![at(-0.5, -0.5), at(0.5, -0.5), at(0.5, 0.5), at(-0.5, 0.5)],
            Outline::Hexagon => {
                vec![
                    at(r, 0.0),
                    at(r / 2.0, 0.5),
                    at(-r / 2.0, 0.5),
                    at(-r, 0.0),
                    at(-r / 2.0, -0.5),
                    at(r / 2.0, -0.5),
                ]
            }
            Outline::HexagonPointed => {
                vec![
                    at(0.0, r),
                    at(-0.5, r / 2.0),
                    at(-0.5, -r / 2.0),
                    at(0.0, -r),
                    at(0.5, -r / 2.0),
                    at(0.5, r / 2.0),
                ]
            }
            Outline::Triangle { up: true } => vec![at(-0.5, -h / 3.0), at(0.5, -h / 3.0), at(0.0, 2.0 * h / 3.0)],
            Outline::Triangle { up: false } => vec![at(-0.5, h / 3.0), at(0.0, -2.0 * h / 3.0), at(0.5, h / 3.0)],
            Outline::Polygon(points) => points.iter().map(|p| at(p.x, p.y)).collect(),
        }
    }

    /// How large a piece is drawn in this cell, as a share of a square's side:
    /// what fits inside the outline.
    pub fn piece_scale(&self) -> f32 {
        match self {
            Outline::Square | Outline::Polygon(_) => 1.0,
            Outline::Hexagon | Outline::HexagonPointed => 0.86,
            Outline::Triangle { .. } => 0.62,
        }
    }
}

/// One cell of a board as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct CellShape {
    /// The cell.
    pub cell: Cell,
    /// Its name in the variant's notation (`e4`, `k10`).
    pub name: String,
    /// Its centre in the plane of its level.
    pub centre: Point,
    /// Its outline.
    pub outline: Outline,
    /// Its colour: 0 light, 1 dark, 2 a third shade (boards of three colours).
    pub shade: u8,
}

/// A coordinate written along an edge of the board (a file letter, a rank number).
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeLabel {
    /// What is written.
    pub text: String,
    /// The level it belongs to.
    pub level: u8,
    /// A point on the board's edge it labels (the middle of a cell's outer side).
    pub at: Point,
    /// The direction away from the board, of length 1.
    pub outward: Point,
}

/// A kind of piece: the chess pieces and the draughts men and kings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PieceKind {
    /// Chess king.
    King,
    /// Chess queen.
    Queen,
    /// Chess rook.
    Rook,
    /// Chess bishop.
    Bishop,
    /// Chess knight.
    Knight,
    /// Chess pawn.
    Pawn,
    /// Draughts man.
    Man,
    /// Draughts king (a crowned man).
    DraughtsKing,
}

impl PieceKind {
    /// Every kind, in the order above.
    pub const ALL: [PieceKind; 8] = [
        PieceKind::King,
        PieceKind::Queen,
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Knight,
        PieceKind::Pawn,
        PieceKind::Man,
        PieceKind::DraughtsKing,
    ];

    /// The chess pieces, king to pawn.
    pub const CHESS: [PieceKind; 6] =
        [PieceKind::King, PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight, PieceKind::Pawn];

    /// The letter a text board writes, upper case: FEN's `K Q R B N P`, `M` for
    /// a draughts man and `C` for a crowned draughts king.
    pub const fn letter(self) -> char {
        match self {
            PieceKind::King => 'K',
            PieceKind::Queen => 'Q',
            PieceKind::Rook => 'R',
            PieceKind::Bishop => 'B',
            PieceKind::Knight => 'N',
            PieceKind::Pawn => 'P',
            PieceKind::Man => 'M',
            PieceKind::DraughtsKing => 'C',
        }
    }

    /// The chess piece of a FEN letter, either case.
    pub fn from_fen(letter: char) -> Option<PieceKind> {
        PieceKind::CHESS.into_iter().find(|k| k.letter() == letter.to_ascii_uppercase())
    }
}

/// The colours of an army, as a variant names them for its seats. The renderers
/// give each its own body colour and, for colour-blind players, a mark of its own
/// on every piece's base (dots, a bar, a ring, ...), so no two armies differ in hue
/// alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Army {
    /// White pieces.
    White,
    /// Black pieces.
    Black,
    /// Sand (beige) pieces.
    Sand,
    /// Brown pieces.
    Brown,
    /// Yellow pieces.
    Yellow,
    /// Red pieces.
    Red,
    /// Blue pieces.
    Blue,
}

impl Army {
    /// Every army, in the order above.
    pub const ALL: [Army; 7] = [Army::White, Army::Black, Army::Sand, Army::Brown, Army::Yellow, Army::Red, Army::Blue];

    /// The armies of seats 1 to 4 when a board names none: white, black, sand, brown.
    pub const DEFAULT: [Army; 4] = [Army::White, Army::Black, Army::Sand, Army::Brown];

    /// The position of this army in [`Army::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A board as a variant describes it: its cells, its edge coordinates, its piece
/// set and each seat's view, army and letter.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardShape {
    /// Every cell of the board, in cell order; holes are simply absent.
    pub cells: Vec<CellShape>,
    /// The coordinates written around the board.
    pub labels: Vec<EdgeLabel>,
    /// The kinds of piece the game uses.
    pub pieces: Vec<PieceKind>,
    /// Per seat, in seat order: the counter-clockwise turn in degrees that brings
    /// that seat to the bottom of its view (0 for the first seat).
    pub seat_turns: Vec<f32>,
    /// Per seat, in seat order: the colours of its pieces. Seats beyond the list
    /// take [`Army::DEFAULT`]'s by their number.
    pub armies: Vec<Army>,
    /// Per seat, in seat order: the letter that names its pieces on the text board
    /// of a game with more than two seats (`w` in `wK`). Empty: the first letters
    /// of the seat names when they differ, else the seat numbers.
    pub seat_letters: Vec<char>,
}

impl BoardShape {
    /// A grid of `files × ranks` squares on one level, less `holes`, with file
    /// letters below and above and rank numbers on both sides. Square `(f, r)`
    /// is dark when `f + r` is even and `dark_even`, light otherwise.
    pub fn squares(files: u8, ranks: u8, holes: &[Cell], dark_even: bool, seat_turns: Vec<f32>) -> BoardShape {
        let mut cells = Vec::new();
        for file in 0..files {
            for rank in 0..ranks {
                let cell = Cell { file, rank, level: 0 };
                if holes.contains(&cell) {
                    continue;
                }
                let even = (file + rank) % 2 == 0;
                cells.push(CellShape {
                    cell,
                    name: cell.coordinates(),
                    centre: Point::new(f32::from(file) + 0.5, f32::from(rank) + 0.5),
                    outline: Outline::Square,
                    shade: u8::from(even == dark_even),
                });
            }
        }
        cells.sort_by_key(|c| c.cell);
        let (w, h) = (f32::from(files), f32::from(ranks));
        let mut labels = Vec::new();
        let label = |text: String, at: Point, outward: Point| EdgeLabel { text, level: 0, at, outward };
        for file in 0..files {
            let x = f32::from(file) + 0.5;
            let name = char::from(b'a' + file).to_string();
            labels.push(label(name.clone(), Point::new(x, 0.0), Point::new(0.0, -1.0)));
            labels.push(label(name, Point::new(x, h), Point::new(0.0, 1.0)));
        }
        for rank in 0..ranks {
            let y = f32::from(rank) + 0.5;
            labels.push(label((rank + 1).to_string(), Point::new(0.0, y), Point::new(-1.0, 0.0)));
            labels.push(label((rank + 1).to_string(), Point::new(w, y), Point::new(1.0, 0.0)));
        }
        let armies = Army::DEFAULT.iter().copied().take(seat_turns.len()).collect();
        BoardShape { cells, labels, pieces: PieceKind::CHESS.to_vec(), seat_turns, armies, seat_letters: Vec::new() }
    }

    /// The drawing of `cell`, if the board has it.
    pub fn cell(&self, cell: Cell) -> Option<&CellShape> {
        self.cells.binary_search_by_key(&cell, |c| c.cell).ok().map(|i| &self.cells[i])
    }

    /// The turn that brings `seat` to the bottom (0 for a seat the board does not
    /// name).
    pub fn turn(&self, seat: Seat) -> f32 {
        self.seat_turns.get(seat.index()).copied().unwrap_or(0.0)
    }

    /// The army of `seat`: the board's own, else [`Army::DEFAULT`]'s by number.
    pub fn army(&self, seat: Seat) -> Army {
        self.armies.get(seat.index()).copied().unwrap_or(Army::DEFAULT[seat.index() % Army::DEFAULT.len()])
    }
}

/// A cell of a board: file and rank from 0 (a1 is `Cell { file: 0, rank: 0, level: 0 }`);
/// `level` is for boards stacked in levels and 0 elsewhere. Boards of hexagons or
/// triangles number their cells as their rules file does; the [`BoardShape`] says
/// where each lies.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    /// Column, from the left of the first seat.
    pub file: u8,
    /// Row, from the first seat's side.
    pub rank: u8,
    /// Level of a stacked board.
    pub level: u8,
}

/// A piece as a renderer needs it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceView {
    /// The seat that owns it.
    pub owner: Seat,
    /// Its kind.
    pub kind: PieceKind,
}

/// A position to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardView {
    /// The board, as the variant describes it.
    pub shape: Arc<BoardShape>,
    /// What stands where, in cell order.
    pub pieces: Vec<(Cell, PieceView)>,
    /// Cells to mark (Fairschach's paused pieces, for instance).
    pub marked: Vec<Cell>,
}

/// A move as the board shows it: the cells it goes through, and what it takes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MovePath {
    /// From, every cell passed or jumped, to (a castling king's passed square, a
    /// draughts man's landing cells).
    pub cells: Vec<Cell>,
    /// The cells whose pieces the move captures (not always `to`: en passant,
    /// draughts jumps).
    pub captures: Vec<Cell>,
    /// Where a player takes hold of the move on the page when its path is not
    /// on the board drawn before it (a 3D chess attack board carried to a pin
    /// drawn only once it stands there): the cells that offer the move. Empty
    /// for moves whose path is on that board.
    pub grip: Vec<Cell>,
}

impl MovePath {
    /// A plain step from `from` to `to` that captures nothing.
    pub fn step(from: Cell, to: Cell) -> MovePath {
        MovePath { cells: vec![from, to], captures: Vec::new(), grip: Vec::new() }
    }

    /// The square-grid coordinate move `mv` (see [`coordinate_move_cells`]) as a
    /// step, capturing on its target when `before` (the position before the move)
    /// holds another seat's piece there.
    pub fn of_coordinates(mv: &str, before: Option<&BoardView>) -> Option<MovePath> {
        let (from, to) = coordinate_move_cells(mv)?;
        let mut path = MovePath::step(from, to);
        if let Some(view) = before {
            let at = |c: Cell| view.pieces.iter().find(|(p, _)| *p == c).map(|(_, p)| p.owner);
            if let (Some(mover), Some(victim)) = (at(from), at(to))
                && mover != victim
            {
                path.captures.push(to);
            }
        }
        Some(path)
    }

    /// Where the move starts.
    pub fn from(&self) -> Option<Cell> {
        self.cells.first().copied()
    }

    /// Where the move ends.
    pub fn to(&self) -> Option<Cell> {
        self.cells.last().copied()
    }
}

impl Cell {
    /// The cell named by square-grid coordinates: a file letter (`a` is file 0)
    /// and a rank number from 1, as in `e4` or `k10`; level 0.
    pub fn from_coordinates(text: &str) -> Option<Cell> {
        match coordinates(text.as_bytes()) {
            Some((cell, [])) => Some(cell),
            _ => None,
        }
    }

    /// The square-grid name of this cell (`e4`, `k10`), as [`Cell::from_coordinates`]
    /// reads it.
    pub fn coordinates(self) -> String {
        format!("{}{}", char::from(b'a'.wrapping_add(self.file)), u32::from(self.rank) + 1)
    }
}

/// Reads a square at the start of `bytes`: a lower-case file letter and one or two
/// rank digits. Returns the cell and the rest.
fn coordinates(bytes: &[u8]) -> Option<(Cell, &[u8])> {
    let (&letter, rest) = bytes.split_first()?;
    if !letter.is_ascii_lowercase() {
        return None;
    }
    let digits = rest.iter().take(2).take_while(|b| b.is_ascii_digit()).count();
    let rank = rest[..digits].iter().fold(0u8, |n, d| n * 10 + (d - b'0'));
    if digits == 0 || rank == 0 {
        return None;
    }
    Some((Cell { file: letter - b'a', rank: rank - 1, level: 0 }, &rest[digits..]))
}

/// The from and to cells of a square-grid coordinate move: two squares, optionally
/// joined by `-` or `x`, optionally followed by a promotion (`q` or `=Q`). Reads
/// UCI (`e2e4`, `e7e8q`, castling as the king's move `e1g1`) and the from-to form
/// of larger boards (`d2-d4`, `k10k12`, `e13-e14=Q`); `None` for anything else.
///
/// ```
/// use fairsteward::rules::{Cell, coordinate_move_cells};
/// let c = |file, rank| Cell { file, rank, level: 0 };
/// assert_eq!(coordinate_move_cells("e2e4"), Some((c(4, 1), c(4, 3))));
/// assert_eq!(coordinate_move_cells("k10-k12"), Some((c(10, 9), c(10, 11))));
/// assert_eq!(coordinate_move_cells("O-O"), None);
/// ```
pub fn coordinate_move_cells(mv: &str) -> Option<(Cell, Cell)> {
    let (from, rest) = coordinates(mv.trim().as_bytes())?;
    let rest = rest.strip_prefix(b"-").or_else(|| rest.strip_prefix(b"x")).unwrap_or(rest);
    let (to, rest) = coordinates(rest)?;
    let promotion = match rest {
        [] => true,
        [p] | [b'=', p] => p.is_ascii_alphabetic(),
        _ => false,
    };
    promotion.then_some((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Options, VariantId};

    fn c(file: u8, rank: u8) -> Cell {
        Cell { file, rank, level: 0 }
    }

    #[test]
    fn coordinate_moves_of_any_square_grid() {
        assert_eq!(coordinate_move_cells("e7e8q"), Some((c(4, 6), c(4, 7))));
        assert_eq!(coordinate_move_cells("d2-d4"), Some((c(3, 1), c(3, 3))));
        assert_eq!(coordinate_move_cells("d2xe3"), Some((c(3, 1), c(4, 2))));
        assert_eq!(coordinate_move_cells("k10k12"), Some((c(10, 9), c(10, 11))));
        assert_eq!(coordinate_move_cells("e13-e14=Q"), Some((c(4, 12), c(4, 13))));
        assert_eq!(coordinate_move_cells("n4-a4"), Some((c(13, 3), c(0, 3))));
        for not in ["", "e2", "e0e4", "e2e", "E2E4", "5254", "Nf3", "e2e4qq", "e2e4=", "a100a1"] {
            assert_eq!(coordinate_move_cells(not), None, "{not:?}");
        }
        assert_eq!(Cell::from_coordinates("n14"), Some(c(13, 13)));
        assert_eq!(Cell::from_coordinates("n14x"), None);
    }

    #[test]
    fn the_variants_read_their_canonical_moves() {
        for v in VariantId::ALL {
            let rules = v.rulebook(&Options::new()).unwrap();
            // Every legal move of the start has a path between cells of the board.
            let start = rules.start();
            let shape = rules.board(&start).unwrap().shape;
            for seat in rules.seats_to_move(&start).unwrap().iter() {
                for mv in rules.legal_moves(&start, seat).unwrap() {
                    let path = rules.move_path(Some(&start), &mv).unwrap_or_else(|| panic!("{v}: {mv}"));
                    assert!(path.cells.len() >= 2, "{v}: {mv}");
                    assert!(path.cells.iter().all(|&cell| shape.cell(cell).is_some()), "{v}: {mv}");
                    assert_eq!(
                        rules.move_path(None, &mv).and_then(|p| p.to()),
                        path.to(),
                        "{v}: {mv} without the state"
                    );
                }
            }
            // Square grids named by coordinates read any coordinate move, from
            // the start or not (3D chess names its squares with levels: a2W).
            if shape.cells.iter().all(|cell| cell.outline == Outline::Square && cell.name == cell.cell.coordinates()) {
                assert_eq!(rules.move_path(None, "g1f3"), Some(MovePath::step(c(6, 0), c(5, 2))), "{v}");
                assert_eq!(rules.move_path(None, "e2e4").and_then(|p| p.to()), Some(c(4, 3)), "{v}");
            }
        }
    }

    #[test]
    fn chess_paths_know_castling_en_passant_and_captures() {
        let rules = VariantId::Chess.rulebook(&Options::new()).unwrap();
        let castle = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let path = rules.move_path(Some(castle), "e1g1").unwrap();
        assert_eq!(path, MovePath { cells: vec![c(4, 0), c(5, 0), c(6, 0)], captures: vec![], grip: vec![] });
        let long = rules.move_path(Some(castle), "e1c1").unwrap();
        assert_eq!(long.cells, vec![c(4, 0), c(3, 0), c(2, 0)]);
        let ep = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
        assert_eq!(rules.move_path(Some(ep), "e5d6").unwrap().captures, vec![c(3, 4)]);
        let take = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 2";
        assert_eq!(rules.move_path(Some(take), "e4d5").unwrap().captures, vec![c(3, 4)]);
        assert_eq!(rules.move_path(Some(take), "e4e5").unwrap().captures, vec![]);
        // A king step of one square is no castling, whatever the state.
        assert_eq!(rules.move_path(Some(castle), "e1f1").unwrap().cells.len(), 2);
    }

    #[test]
    fn vierschach_paths_capture_on_the_target() {
        let rules = VariantId::Vierschach.rulebook(&Options::new()).unwrap();
        let start = rules.start();
        let path = rules.move_path(Some(&start), "d2-d4").unwrap();
        assert_eq!(path, MovePath::step(c(3, 1), c(3, 3)));
    }

    #[test]
    fn square_shapes_name_and_shade_their_cells() {
        let holes = [c(0, 0)];
        let shape = BoardShape::squares(3, 2, &holes, true, vec![0.0, 180.0]);
        assert_eq!(shape.cells.len(), 5);
        assert!(shape.cell(c(0, 0)).is_none());
        let b1 = shape.cell(c(1, 0)).unwrap();
        assert_eq!((b1.name.as_str(), b1.shade), ("b1", 0));
        assert_eq!(shape.cell(c(2, 0)).unwrap().shade, 1);
        assert_eq!(shape.labels.len(), 2 * 3 + 2 * 2);
        assert_eq!(shape.turn(Seat::new(1)), 180.0);
        let p = Point::new(1.0, 2.0).turned(90.0);
        assert_eq!((p.x, p.y), (-2.0, 1.0));
    }
}
