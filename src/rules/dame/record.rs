//! The board as data (`docs/rules/trialectic-dame.md` §1–2): a board record, its
//! load-time checks, and the reconstructed triangle as the default record.
//!
//! The rules use nothing about the board but what a [`Board`] holds: its cells in
//! row order, its directions with their opposites, the neighbour of a cell in a
//! direction, and per seat the forward, sideways and backward directions, the
//! baseline, the two corners and the start cells. A record comes from JSON text
//! (the game option `board`; the door reads the file) or from [`Board::triangle`],
//! and is checked once, when it is loaded: every problem is listed, naming the key.
//! Only [`Board::triangle`] knows the triangle.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

/// A cell of a board: its index in row order (the placement string's order).
pub type CellId = u16;

/// A set of directions, bit `i` for direction `i`.
pub type DirSet = u32;

/// No cell: the neighbour table's entry where a line ends.
pub(crate) const NONE: CellId = CellId::MAX;

/// The letters of the seats in a record, in seat order (yellow, red, blue).
pub const SEAT_KEYS: [&str; 3] = ["y", "r", "b"];

/// Bounds on what a record may hold, so that a record (an option anyone with
/// the operator's token may send) cannot make the steward spend much.
pub const MAX_CELLS: usize = 1024;
/// At most this many rows, and this many cells in one row (a drawn cell is
/// numbered by row and place in the row, each a byte).
pub const MAX_ROW: usize = 255;
/// At most this many directions.
pub const MAX_DIRECTIONS: usize = 16;
/// At most this many characters in a cell or direction name.
pub const MAX_NAME: usize = 16;
/// At most this many bytes of JSON in a record.
pub const MAX_JSON: usize = 256 * 1024;
/// The sides [`Board::triangle`] makes: even, 10 to 32. From side 34 a component
/// would be 33, written `x`, which names may not hold; at side 8 the second
/// rows' end cells of two seats coincide (yellow's and red's `115`), so the
/// generator's start cells are not distinct.
pub const TRIANGLE_SIDES: std::ops::RangeInclusive<usize> = 10..=32;

/// What one seat's part of a board record says (§1), as cell and direction ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRecord {
    /// The directions that lead forward for this seat's stones.
    pub forward: DirSet,
    /// The directions that run sideways.
    pub sideways: DirSet,
    /// The directions that lead backward.
    pub backward: DirSet,
    /// The seat's baseline ("Grundlinie").
    pub baseline: Vec<CellId>,
    /// The two baseline cells that are not promotion cells for this seat.
    pub corners: [CellId; 2],
    /// The start cells of setup variant 1.
    pub start: Vec<CellId>,
}

/// A checked board record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    names: Vec<String>,
    by_name: BTreeMap<String, CellId>,
    /// Each row as the range of its cell ids.
    rows: Vec<(CellId, CellId)>,
    directions: Vec<String>,
    opposite: Vec<u8>,
    /// `cells × directions`: the neighbour or [`NONE`].
    neighbours: Vec<CellId>,
    seats: [SeatRecord; 3],
    /// Per colour: the cells on which a man of that colour promotes (derived).
    promotion: [Vec<bool>; 3],
    /// Per seat: the cells where it may not place its 12th stone: another seat's
    /// baseline and its own corners (derived).
    no_placement: [Vec<bool>; 3],
}

/// A board record as JSON holds it (§1 Decision): `rows`, `directions` (name →
/// opposite), `neighbours` (cell → {direction → cell}) and `seats` (`y`, `r`, `b`
/// → the six per-seat items as lists). Unknown keys and repeated keys are refused.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRecord {
    /// The cells as an ordered list of rows.
    pub rows: Vec<Vec<String>>,
    /// Each direction and its opposite.
    #[serde(deserialize_with = "entries", serialize_with = "as_map")]
    pub directions: Vec<(String, String)>,
    /// Each cell's neighbours, by direction.
    #[serde(deserialize_with = "nested_entries", serialize_with = "nested_as_map")]
    pub neighbours: NeighbourEntries,
    /// The seats' items, keyed `y`, `r`, `b`.
    #[serde(deserialize_with = "entries", serialize_with = "as_map")]
    pub seats: Vec<(String, RawSeat)>,
}

/// One seat's items in a [`RawRecord`].
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSeat {
    /// Forward directions.
    pub forward: Vec<String>,
    /// Sideways directions.
    pub sideways: Vec<String>,
    /// Backward directions.
    pub backward: Vec<String>,
    /// Baseline cells.
    pub baseline: Vec<String>,
    /// The two corners.
    pub corners: Vec<String>,
    /// Start cells.
    pub start: Vec<String>,
}

/// A cell's neighbours by direction, as entries.
type NeighbourEntries = Vec<(String, Vec<(String, String)>)>;

/// A JSON object read as its entries in order, so that repeated keys can be told.
fn entries<'de, D, T>(d: D) -> Result<Vec<(String, T)>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Entries<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Entries<T> {
        type Value = Vec<(String, T)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(entry) = map.next_entry()? {
                out.push(entry);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Entries(PhantomData))
}

/// An object of objects, each read as its entries.
fn nested_entries<'de, D>(d: D) -> Result<NeighbourEntries, D::Error>
where
    D: Deserializer<'de>,
{
    #[derive(Deserialize)]
    struct Inner(#[serde(deserialize_with = "entries")] Vec<(String, String)>);
    let outer: Vec<(String, Inner)> = entries(d)?;
    Ok(outer.into_iter().map(|(k, Inner(v))| (k, v)).collect())
}

fn as_map<S: serde::Serializer, T: Serialize>(v: &[(String, T)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(v.iter().map(|(k, v)| (k, v)))
}

fn nested_as_map<S: serde::Serializer>(v: &[(String, Vec<(String, String)>)], s: S) -> Result<S::Ok, S::Error> {
    struct Inner<'a>(&'a [(String, String)]);
    impl Serialize for Inner<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            as_map(self.0, s)
        }
    }
    s.collect_map(v.iter().map(|(k, v)| (k, Inner(v))))
}

/// A board record that cannot be loaded, with every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid board record: {}", .problems.join("; "))]
pub struct RecordError {
    /// What is wrong, one entry per problem (at most [`RecordError::SHOWN`], then
    /// a count of the rest).
    pub problems: Vec<String>,
}

impl RecordError {
    /// The most problems listed one by one.
    pub const SHOWN: usize = 12;

    fn new(mut problems: Vec<String>) -> RecordError {
        if problems.len() > Self::SHOWN {
            let rest = problems.len() - Self::SHOWN;
            problems.truncate(Self::SHOWN);
            problems.push(format!("and {rest} more"));
        }
        RecordError { problems }
    }
}

/// Whether `name` may name a cell: letters and digits, never `x` (it separates
/// the cells of a capture, §6), at most [`MAX_NAME`] characters.
fn cell_name_ok(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME && name.bytes().all(|b| b.is_ascii_alphanumeric() && b != b'x')
}

fn direction_name_ok(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl Board {
    /// Reads and checks a board record in JSON (§1).
    ///
    /// # Errors
    /// Text that is not such a record, or a record that fails a check of §1.
    pub fn from_json(text: &str) -> Result<Board, RecordError> {
        if text.len() > MAX_JSON {
            return Err(RecordError::new(vec![format!("the record is {} bytes, more than {MAX_JSON}", text.len())]));
        }
        let raw: RawRecord =
            serde_json::from_str(text).map_err(|e| RecordError::new(vec![format!("not a board record: {e}")]))?;
        Board::from_raw(&raw)
    }

    /// Checks a record (§1, with our Decisions) and builds the board.
    ///
    /// # Errors
    /// Every check the record fails.
    pub fn from_raw(raw: &RawRecord) -> Result<Board, RecordError> {
        let mut problems = Vec::new();
        // Cells.
        let mut names = Vec::new();
        let mut by_name: BTreeMap<String, CellId> = BTreeMap::new();
        let mut rows = Vec::new();
        if raw.rows.is_empty() {
            problems.push("rows: no rows".to_owned());
        }
        if raw.rows.len() > MAX_ROW {
            problems.push(format!("rows: {} rows, at most {MAX_ROW}", raw.rows.len()));
        }
        let total: usize = raw.rows.iter().map(Vec::len).sum();
        if total > MAX_CELLS {
            return Err(RecordError::new(vec![format!("rows: {total} cells, at most {MAX_CELLS}")]));
        }
        for (r, row) in raw.rows.iter().enumerate() {
            if row.is_empty() {
                problems.push(format!("rows: row {} has no cells", r + 1));
            }
            if row.len() > MAX_ROW {
                problems.push(format!("rows: row {} has {} cells, at most {MAX_ROW}", r + 1, row.len()));
            }
            let first = names.len() as CellId;
            for name in row {
                if !cell_name_ok(name) {
                    problems.push(format!(
                        "rows: bad cell name {name:?} (letters and digits, never x, at most {MAX_NAME})"
                    ));
                } else if by_name.insert(name.clone(), names.len() as CellId).is_some() {
                    problems.push(format!("rows: cell {name} appears twice"));
                }
                names.push(name.clone());
            }
            rows.push((first, names.len() as CellId));
        }
        // Directions.
        let mut directions: Vec<String> = Vec::new();
        if raw.directions.is_empty() {
            problems.push("directions: none".to_owned());
        }
        if raw.directions.len() > MAX_DIRECTIONS {
            return Err(RecordError::new(vec![format!(
                "directions: {}, at most {MAX_DIRECTIONS}",
                raw.directions.len()
            )]));
        }
        for (name, _) in &raw.directions {
            if !direction_name_ok(name) {
                problems.push(format!("directions: bad direction name {name:?}"));
            }
            if directions.contains(name) {
                problems.push(format!("directions: {name} appears twice"));
            }
            directions.push(name.clone());
        }
        let dir = |name: &str| directions.iter().position(|d| d == name).map(|i| i as u8);
        let mut opposite = vec![0u8; directions.len()];
        for (i, (name, opp)) in raw.directions.iter().enumerate() {
            match dir(opp) {
                None => problems.push(format!("directions: the opposite of {name}, {opp:?}, is not a direction")),
                Some(o) if o as usize == i => problems.push(format!("directions: {name} is its own opposite")),
                Some(o) => opposite[i] = o,
            }
        }
        for (i, (name, opp)) in raw.directions.iter().enumerate() {
            if let Some(o) = dir(opp)
                && o as usize != i
                && raw.directions.get(o as usize).is_some_and(|(_, back)| back != name)
            {
                problems.push(format!(
                    "directions: the opposite of {name} is {opp}, but the opposite of {opp} is not {name}"
                ));
            }
        }
        if !problems.is_empty() {
            return Err(RecordError::new(problems));
        }
        let n_dirs = directions.len();
        let cell = |name: &str| by_name.get(name).copied();

        // Neighbours.
        let mut neighbours = vec![NONE; names.len() * n_dirs];
        let mut listed = BTreeSet::new();
        for (from, dirs) in &raw.neighbours {
            let Some(c) = cell(from) else {
                problems.push(format!("neighbours: unknown cell {from:?}"));
                continue;
            };
            if !listed.insert(c) {
                problems.push(format!("neighbours: cell {from} appears twice"));
            }
            let mut seen = BTreeSet::new();
            for (d, to) in dirs {
                let Some(di) = dir(d) else {
                    problems.push(format!("neighbours: {from}: unknown direction {d:?}"));
                    continue;
                };
                if !seen.insert(di) {
                    problems.push(format!("neighbours: {from}: direction {d} appears twice"));
                }
                match cell(to) {
                    None => problems.push(format!("neighbours: {from} {d}: unknown cell {to:?}")),
                    Some(t) if t == c => problems.push(format!("neighbours: {from} is its own neighbour ({d})")),
                    Some(t) => neighbours[c as usize * n_dirs + di as usize] = t,
                }
            }
        }
        for c in 0..names.len() {
            for d in 0..n_dirs {
                let to = neighbours[c * n_dirs + d];
                if to == NONE {
                    continue;
                }
                let back = neighbours[to as usize * n_dirs + opposite[d] as usize];
                if back as usize != c {
                    problems.push(format!(
                        "neighbours: {} {} is {}, but {} {} is {}",
                        names[c],
                        directions[d],
                        names[to as usize],
                        names[to as usize],
                        directions[opposite[d] as usize],
                        if back == NONE { "missing".to_owned() } else { names[back as usize].clone() }
                    ));
                }
            }
        }
        if problems.is_empty() {
            problems.extend(line_problems(&names, &directions, &neighbours));
        }

        // Seats.
        let mut seats: Vec<SeatRecord> = Vec::new();
        let keys: Vec<&str> = raw.seats.iter().map(|(k, _)| k.as_str()).collect();
        for key in &keys {
            if !SEAT_KEYS.contains(key) {
                problems.push(format!("seats: unknown seat {key:?} (the seats are y, r, b)"));
            }
        }
        for key in SEAT_KEYS {
            match keys.iter().filter(|k| **k == key).count() {
                0 => problems.push(format!("seats: seat {key} is missing")),
                1 => {}
                _ => problems.push(format!("seats: seat {key} appears twice")),
            }
        }
        if !problems.is_empty() {
            return Err(RecordError::new(problems));
        }
        for key in SEAT_KEYS {
            let (_, s) = raw.seats.iter().find(|(k, _)| k == key).expect("checked above");
            let at = |item: &str| format!("seats: {key} {item}");
            let mut sets = [0 as DirSet; 3];
            for (i, (item, list)) in
                [("forward", &s.forward), ("sideways", &s.sideways), ("backward", &s.backward)].into_iter().enumerate()
            {
                for d in list {
                    match dir(d) {
                        None => problems.push(format!("{}: unknown direction {d:?}", at(item))),
                        Some(di) if sets[i] & (1 << di) != 0 => {
                            problems.push(format!("{}: {d} appears twice", at(item)));
                        }
                        Some(di) => sets[i] |= 1 << di,
                    }
                }
            }
            if sets[0] & sets[1] != 0 || sets[0] & sets[2] != 0 || sets[1] & sets[2] != 0 {
                problems.push(format!("seats: {key}: forward, sideways and backward share a direction"));
            }
            let cells_of = |item: &str, list: &[String], problems: &mut Vec<String>| -> Vec<CellId> {
                let mut out = Vec::new();
                for name in list {
                    match cell(name) {
                        None => problems.push(format!("{}: unknown cell {name:?}", at(item))),
                        Some(c) if out.contains(&c) => problems.push(format!("{}: {name} appears twice", at(item))),
                        Some(c) => out.push(c),
                    }
                }
                out
            };
            let baseline = cells_of("baseline", &s.baseline, &mut problems);
            let corners = cells_of("corners", &s.corners, &mut problems);
            let start = cells_of("start", &s.start, &mut problems);
            let corners = match corners.as_slice() {
                &[a, b] if baseline.contains(&a) && baseline.contains(&b) => [a, b],
                _ => {
                    problems.push(format!("{}: must be two cells of the seat's own baseline", at("corners")));
                    [0, 0]
                }
            };
            seats.push(SeatRecord { forward: sets[0], sideways: sets[1], backward: sets[2], baseline, corners, start });
        }
        for (i, s) in seats.iter().enumerate() {
            for &c in &s.start {
                for (j, other) in seats.iter().enumerate() {
                    if j != i && other.baseline.contains(&c) {
                        problems.push(format!(
                            "seats: {} start: {} is on the baseline of {}",
                            SEAT_KEYS[i], names[c as usize], SEAT_KEYS[j]
                        ));
                    }
                    if j < i && other.start.contains(&c) {
                        problems.push(format!(
                            "seats: {} start: {} is a start cell of {} too",
                            SEAT_KEYS[i], names[c as usize], SEAT_KEYS[j]
                        ));
                    }
                }
            }
        }
        // Decision: a game needs two seats with stones.
        if seats.iter().filter(|s| !s.start.is_empty()).count() < 2 {
            problems.push("seats: fewer than two seats have start cells".to_owned());
        }
        if !problems.is_empty() {
            return Err(RecordError::new(problems));
        }
        let seats: [SeatRecord; 3] = seats.try_into().expect("three seats");
        // Another seat's baseline: seat x's promotion cells less its corners;
        // where it may not place its 12th stone, with its corners.
        let others = |x: usize, corners: bool| {
            let mut cells = vec![false; names.len()];
            for s in seats.iter().enumerate().filter(|(y, _)| *y != x).map(|(_, s)| s) {
                for &c in &s.baseline {
                    cells[c as usize] = true;
                }
            }
            for &c in &seats[x].corners {
                cells[c as usize] = corners;
            }
            cells
        };
        let promotion = std::array::from_fn(|x| others(x, false));
        let no_placement = std::array::from_fn(|x| others(x, true));
        Ok(Board { names, by_name, rows, directions, opposite, neighbours, seats, promotion, no_placement })
    }

    /// The reconstructed board (§2): a triangle of side `side` cut into
    /// `side²` small triangles, of which the `side·(side+1)/2` pointing like the
    /// board are the cells, named by their distances `a b c` from the baselines
    /// of yellow, red and blue (base-36 digits beyond 9); the start cells of the
    /// Decision for any even side (6 stones centred on the baseline, 5 on the
    /// next row).
    ///
    /// # Errors
    /// A side that is not even or not in [`TRIANGLE_SIDES`].
    pub fn triangle(side: usize) -> Result<Board, String> {
        if !TRIANGLE_SIDES.contains(&side) || !side.is_multiple_of(2) {
            return Err(format!(
                "the triangle's side must be even, from {} to {} (at side 8 two seats' start cells coincide)",
                TRIANGLE_SIDES.start(),
                TRIANGLE_SIDES.end()
            ));
        }
        Board::from_raw(&triangle_record(side)).map_err(|e| format!("the triangle of side {side}: {e}"))
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the board has no cells (never, once checked).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of a cell.
    pub fn name(&self, c: CellId) -> &str {
        &self.names[c as usize]
    }

    /// The cell of a name.
    pub fn cell(&self, name: &str) -> Option<CellId> {
        self.by_name.get(name).copied()
    }

    /// The rows, each as the range of its cell ids.
    pub fn rows(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.rows.iter().map(|&(a, b)| a as usize..b as usize)
    }

    /// The number of directions.
    pub fn direction_count(&self) -> usize {
        self.directions.len()
    }

    /// The names of the directions.
    pub fn directions(&self) -> &[String] {
        &self.directions
    }

    /// The neighbour of `c` in direction `d`, or [`NONE`].
    #[inline]
    pub fn neighbour(&self, c: CellId, d: usize) -> CellId {
        self.neighbours[c as usize * self.directions.len() + d]
    }

    /// The opposite of direction `d`.
    pub fn opposite(&self, d: usize) -> usize {
        self.opposite[d] as usize
    }

    /// The record of seat (or colour) `s`.
    pub fn seat(&self, s: usize) -> &SeatRecord {
        &self.seats[s]
    }

    /// Whether a man of colour `colour` promotes on `c`: a cell of another
    /// seat's baseline that is not one of its own colour's corners.
    #[inline]
    pub fn promotes(&self, colour: usize, c: CellId) -> bool {
        self.promotion[colour][c as usize]
    }

    /// Whether seat `s` may place its 12th stone on `c` (empty or not): not on
    /// another seat's baseline, not on its own corners (§3).
    pub fn placeable(&self, s: usize, c: CellId) -> bool {
        !self.no_placement[s][c as usize]
    }

    /// The record as JSON holds it.
    pub fn to_raw(&self) -> RawRecord {
        let dir_names = |set: DirSet| -> Vec<String> {
            (0..self.directions.len()).filter(|d| set & (1 << d) != 0).map(|d| self.directions[d].clone()).collect()
        };
        let cell_names =
            |cells: &[CellId]| -> Vec<String> { cells.iter().map(|&c| self.names[c as usize].clone()).collect() };
        RawRecord {
            rows: self.rows().map(|r| self.names[r].to_vec()).collect(),
            directions: (0..self.directions.len())
                .map(|d| (self.directions[d].clone(), self.directions[self.opposite(d)].clone()))
                .collect(),
            neighbours: (0..self.len() as CellId)
                .map(|c| {
                    let dirs = (0..self.directions.len())
                        .filter(|&d| self.neighbour(c, d) != NONE)
                        .map(|d| (self.directions[d].clone(), self.name(self.neighbour(c, d)).to_owned()))
                        .collect();
                    (self.name(c).to_owned(), dirs)
                })
                .collect(),
            seats: SEAT_KEYS
                .iter()
                .zip(&self.seats)
                .map(|(k, s)| {
                    let seat = RawSeat {
                        forward: dir_names(s.forward),
                        sideways: dir_names(s.sideways),
                        backward: dir_names(s.backward),
                        baseline: cell_names(&s.baseline),
                        corners: cell_names(&s.corners),
                        start: cell_names(&s.start),
                    };
                    ((*k).to_owned(), seat)
                })
                .collect(),
        }
    }
}

/// Lines that run in a circle, and lines from one cell that meet: both would
/// make a path of cells name more than one move (a Dame's line must end, and
/// the cells of a path must tell which stone each jump takes).
fn line_problems(names: &[String], directions: &[String], neighbours: &[CellId]) -> Vec<String> {
    let n_dirs = directions.len();
    let mut problems = Vec::new();
    let mut reached = vec![u8::MAX; names.len()];
    for c in 0..names.len() {
        reached.iter_mut().for_each(|r| *r = u8::MAX);
        reached[c] = n_dirs as u8;
        'dirs: for d in 0..n_dirs {
            let mut at = neighbours[c * n_dirs + d];
            while at != NONE {
                let r = &mut reached[at as usize];
                if *r == d as u8 || at as usize == c {
                    problems.push(format!(
                        "neighbours: the line from {} in direction {} runs in a circle",
                        names[c], directions[d]
                    ));
                    break 'dirs;
                }
                if *r != u8::MAX {
                    problems.push(format!(
                        "neighbours: the lines from {} in directions {} and {} meet at {}",
                        names[c], directions[*r as usize], directions[d], names[at as usize]
                    ));
                    break 'dirs;
                }
                *r = d as u8;
                at = neighbours[at as usize * n_dirs + d];
            }
        }
        if problems.len() > RecordError::SHOWN {
            break;
        }
    }
    problems
}

/// The triangle of side `side` as a record (§2): only this function knows it.
fn triangle_record(side: usize) -> RawRecord {
    let top = side - 1;
    let digit = |v: usize| char::from_digit(v as u32, 36).expect("a base-36 digit");
    let name = |a: usize, b: usize, c: usize| format!("{}{}{}", digit(a), digit(b), digit(c));
    let rows: Vec<Vec<String>> =
        (0..=top).rev().map(|a| (0..=top - a).map(|b| name(a, b, top - a - b)).collect()).collect();
    const VECTORS: [(&str, [i32; 3], &str); 6] = [
        ("d1", [1, -1, 0], "d4"),
        ("d2", [1, 0, -1], "d5"),
        ("d3", [0, 1, -1], "d6"),
        ("d4", [-1, 1, 0], "d1"),
        ("d5", [-1, 0, 1], "d2"),
        ("d6", [0, -1, 1], "d3"),
    ];
    let mut neighbours = Vec::new();
    for a in (0..=top).rev() {
        for b in 0..=top - a {
            let c = top - a - b;
            let dirs = VECTORS
                .iter()
                .filter_map(|(d, v, _)| {
                    let to = [a as i32 + v[0], b as i32 + v[1], c as i32 + v[2]];
                    to.iter()
                        .all(|&x| x >= 0)
                        .then(|| ((*d).to_owned(), name(to[0] as usize, to[1] as usize, to[2] as usize)))
                })
                .collect();
            neighbours.push((name(a, b, c), dirs));
        }
    }
    let k = (side - 6) / 2;
    // Per seat: its coordinate, the coordinate counted along its rows, its
    // directions (forward, sideways, backward).
    let seat = |axis: usize, along: usize, dirs: [[&str; 2]; 3]| {
        let at = |zero: usize, first: usize| {
            let mut t = [0usize; 3];
            t[axis] = zero;
            t[along] = first;
            let rest = 3 - axis - along;
            t[rest] = top - zero - first;
            name(t[0], t[1], t[2])
        };
        let mut corner_a = [0usize; 3];
        corner_a[3 - axis - along] = top;
        let mut corner_b = [0usize; 3];
        corner_b[along] = top;
        let list = |ds: [&str; 2]| ds.iter().map(|d| (*d).to_owned()).collect::<Vec<_>>();
        RawSeat {
            forward: list(dirs[0]),
            sideways: list(dirs[1]),
            backward: list(dirs[2]),
            baseline: (0..=top).map(|i| at(0, i)).collect(),
            corners: vec![name(corner_a[0], corner_a[1], corner_a[2]), name(corner_b[0], corner_b[1], corner_b[2])],
            start: (0..6).map(|i| at(0, k + i)).chain((0..5).map(|i| at(1, k + i))).collect(),
        }
    };
    RawRecord {
        rows,
        directions: VECTORS.iter().map(|(d, _, o)| ((*d).to_owned(), (*o).to_owned())).collect(),
        neighbours,
        seats: vec![
            ("y".to_owned(), seat(0, 1, [["d1", "d2"], ["d3", "d6"], ["d4", "d5"]])),
            ("r".to_owned(), seat(1, 0, [["d3", "d4"], ["d5", "d2"], ["d6", "d1"]])),
            ("b".to_owned(), seat(2, 0, [["d5", "d6"], ["d1", "d4"], ["d2", "d3"]])),
        ],
    }
}
