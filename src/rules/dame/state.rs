//! The Trialectic Dame position and its state string (`docs/rules/trialectic-dame.md` §7).
//!
//! `<placement> <seat> <control> <place> <plies> <round>`: the cells row by row
//! (`.` empty, `y r b` men, `Y R B` Dames), the seat to move, who controls each
//! colour's stones, who still owes a placement (setup variant 2), the plies
//! without progress and the round. A string is checked once, when it is read,
//! and every problem found is listed.

use std::fmt;
use std::sync::Arc;

use super::record::{Board, CellId};

/// The seat letters in seat order, which are also the colours' letters.
pub const LETTERS: [char; 3] = ['y', 'r', 'b'];

/// No controller: the control field's `-`.
pub const NOBODY: u8 = 3;

/// A cell's content: [`EMPTY`], or a stone of a colour (0 yellow, 1 red, 2 blue),
/// a man or a Dame.
pub type Stone = u8;
/// An empty cell.
pub const EMPTY: Stone = 0;

/// A man of `colour`.
pub const fn man(colour: usize) -> Stone {
    1 + colour as u8
}

/// A Dame of `colour`.
pub const fn dame(colour: usize) -> Stone {
    4 + colour as u8
}

/// The colour of a stone (not [`EMPTY`]).
#[inline]
pub const fn colour(s: Stone) -> usize {
    ((s - 1) % 3) as usize
}

/// Whether a stone is a Dame.
#[inline]
pub const fn is_dame(s: Stone) -> bool {
    s >= 4
}

fn stone_char(s: Stone) -> char {
    match s {
        EMPTY => '.',
        s if is_dame(s) => LETTERS[colour(s)].to_ascii_uppercase(),
        s => LETTERS[colour(s)],
    }
}

fn stone_of(c: char) -> Option<Stone> {
    match c {
        '.' => Some(EMPTY),
        _ => {
            let colour = LETTERS.iter().position(|&l| l == c.to_ascii_lowercase())?;
            Some(if c.is_ascii_uppercase() { dame(colour) } else { man(colour) })
        }
    }
}

/// A position: the stones, the seat to move, control, placements owed, and the
/// counters. The board record travels with it, to print it.
#[derive(Clone)]
pub struct DameState {
    /// The board the stones stand on.
    pub board: Arc<Board>,
    /// The content of each cell, in cell order.
    pub cells: Vec<Stone>,
    /// The seat to move (after the end: the seat whose turn it was).
    pub seat: usize,
    /// Per colour: the seat that controls its stones, or [`NOBODY`] when it has none.
    pub control: [u8; 3],
    /// The seats that still owe their placement, bit `s` for seat `s`.
    pub place: u8,
    /// Plies without a capture, a move of a man or a placement.
    pub plies: u32,
    /// The round, from 1.
    pub round: u32,
}

impl PartialEq for DameState {
    fn eq(&self, other: &DameState) -> bool {
        (Arc::ptr_eq(&self.board, &other.board) || self.board == other.board)
            && self.cells == other.cells
            && self.seat == other.seat
            && self.control == other.control
            && self.place == other.place
            && self.plies == other.plies
            && self.round == other.round
    }
}

impl Eq for DameState {}

impl fmt::Debug for DameState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DameState({self})")
    }
}

impl DameState {
    /// The start (§3): the record's start cells, yellow to move, each seat with
    /// stones controlling its own; with `setup_two`, every seat with stones owes
    /// its placement. Not yet settled (see `turn::settle`).
    pub fn initial(board: Arc<Board>, setup_two: bool) -> DameState {
        let mut cells = vec![EMPTY; board.len()];
        let mut control = [NOBODY; 3];
        let mut place = 0;
        for (s, slot) in control.iter_mut().enumerate() {
            let start = &board.seat(s).start;
            for &c in start {
                cells[c as usize] = man(s);
            }
            if !start.is_empty() {
                *slot = s as u8;
                if setup_two {
                    place |= 1 << s;
                }
            }
        }
        DameState { board, cells, seat: 0, control, place, plies: 0, round: 1 }
    }

    /// The seats in the game: those whose letter the control field shows.
    pub fn in_game(&self) -> u8 {
        self.control.iter().filter(|&&c| c != NOBODY).fold(0, |set, &c| set | 1 << c)
    }

    /// Whether seat `s` is in the game.
    pub fn is_in(&self, s: usize) -> bool {
        self.in_game() & (1 << s) != 0
    }

    /// Whether `s` controls the stone `stone`.
    #[inline]
    pub fn controls(&self, s: usize, stone: Stone) -> bool {
        stone != EMPTY && self.control[colour(stone)] as usize == s
    }

    /// Whether the stone is another seat's than `s`'s: one `s` may jump.
    #[inline]
    pub fn is_opponent(&self, s: usize, stone: Stone) -> bool {
        stone != EMPTY && self.control[colour(stone)] as usize != s
    }

    /// Sets each colour without stones to [`NOBODY`], and gives a colour that
    /// has stones again (a placement) back to its own seat.
    pub fn update_control(&mut self) {
        let mut present = [false; 3];
        for &s in &self.cells {
            if s != EMPTY {
                present[colour(s)] = true;
            }
        }
        for (colour, &here) in present.iter().enumerate() {
            if !here {
                self.control[colour] = NOBODY;
            } else if self.control[colour] == NOBODY {
                self.control[colour] = colour as u8;
            }
        }
    }

    /// Reads a state string on `board` (§7), refusing what the Decision of §7
    /// refuses. `take` says whether enclosure variant 1 is played (only then may
    /// a seat control another colour).
    ///
    /// # Errors
    /// Every problem found.
    pub fn parse(text: &str, board: &Arc<Board>, take: bool) -> Result<DameState, Vec<String>> {
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 6 {
            return Err(vec![format!(
                "expected 6 fields separated by single spaces (placement seat control place plies round), found {}",
                fields.len()
            )]);
        }
        let mut problems = Vec::new();
        let mut cells = Vec::with_capacity(board.len());
        let rows: Vec<&str> = fields[0].split('/').collect();
        let shape: Vec<std::ops::Range<usize>> = board.rows().collect();
        if rows.len() != shape.len() {
            problems.push(format!("placement: {} rows, the board has {}", rows.len(), shape.len()));
        } else {
            for (i, (row, range)) in rows.iter().zip(&shape).enumerate() {
                if row.chars().count() != range.len() {
                    problems.push(format!(
                        "placement: row {} has {} characters, the board's row has {} cells",
                        i + 1,
                        row.chars().count(),
                        range.len()
                    ));
                }
                for ch in row.chars() {
                    match stone_of(ch) {
                        Some(s) => cells.push(s),
                        None => {
                            problems.push(format!("placement: {ch:?} is not . y r b Y R B"));
                            cells.push(EMPTY);
                        }
                    }
                }
            }
        }
        let seat_of = |f: &str| match f {
            "y" => Some(0),
            "r" => Some(1),
            "b" => Some(2),
            _ => None,
        };
        let seat = seat_of(fields[1]);
        if seat.is_none() {
            problems.push(format!("seat: {:?} is not y, r or b", fields[1]));
        }
        let mut control = [NOBODY; 3];
        let chars: Vec<char> = fields[2].chars().collect();
        if chars.len() != 3 {
            problems.push(format!("control: {:?} is not three characters", fields[2]));
        } else {
            for (i, &ch) in chars.iter().enumerate() {
                match ch {
                    '-' => {}
                    _ => match LETTERS.iter().position(|&l| l == ch) {
                        Some(s) => control[i] = s as u8,
                        None => problems.push(format!("control: {ch:?} is not y, r, b or -")),
                    },
                }
            }
        }
        let mut place = 0u8;
        if fields[3] != "-" {
            let mut last = None;
            for ch in fields[3].chars() {
                match LETTERS.iter().position(|&l| l == ch) {
                    Some(s) if last.is_none_or(|l| s > l) => {
                        place |= 1 << s;
                        last = Some(s);
                    }
                    Some(_) => {
                        problems.push(format!("place: {:?} is not in the order y, r, b without repeats", fields[3]))
                    }
                    None => problems.push(format!("place: {ch:?} is not y, r or b")),
                }
            }
            if fields[3].is_empty() {
                problems.push("place: empty (write - for none)".to_owned());
            }
        }
        let number = |name: &str, f: &str, problems: &mut Vec<String>| -> u32 {
            let plain = !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) && (f == "0" || !f.starts_with('0'));
            match f.parse::<u32>() {
                Ok(n) if plain => n,
                _ => {
                    problems.push(format!("{name}: {f:?} is not a plain decimal number"));
                    0
                }
            }
        };
        let plies = number("plies", fields[4], &mut problems);
        let round = number("round", fields[5], &mut problems);
        if round == 0 && !problems.iter().any(|p| p.starts_with("round")) {
            problems.push("round: must be 1 or more".to_owned());
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let state =
            DameState { board: Arc::clone(board), cells, seat: seat.expect("checked"), control, place, plies, round };
        let problems = state.consistency(take);
        if problems.is_empty() { Ok(state) } else { Err(problems) }
    }

    /// What a state string may not say although each field reads (§7).
    fn consistency(&self, take: bool) -> Vec<String> {
        let mut problems = Vec::new();
        let mut present = [false; 3];
        for &s in &self.cells {
            if s != EMPTY {
                present[colour(s)] = true;
            }
        }
        for colour in 0..3 {
            let c = self.control[colour];
            match (present[colour], c) {
                (true, NOBODY) => problems
                    .push(format!("control: {} stones are on the board but nobody controls them", LETTERS[colour])),
                (false, c) if c != NOBODY => {
                    problems.push(format!("control: no {} stone is on the board, so its control is -", LETTERS[colour]))
                }
                (true, c) if c as usize != colour => {
                    let c = c as usize;
                    if !take {
                        problems.push(format!(
                            "control: {} controls {}'s stones, which only enclosure variant 1 (take) allows",
                            LETTERS[c], LETTERS[colour]
                        ));
                    } else if self.control[c] != NOBODY && self.control[c] as usize != c {
                        problems.push(format!(
                            "control: {} controls {}'s stones but not its own",
                            LETTERS[c], LETTERS[colour]
                        ));
                    }
                }
                _ => {}
            }
        }
        let in_game = self.in_game();
        if in_game == 0 {
            problems.push("no stone is on the board: nobody is in the game".to_owned());
        } else if in_game.count_ones() > 1 && in_game & (1 << self.seat) == 0 {
            problems.push(format!("seat: {} is to move but not in the game", LETTERS[self.seat]));
        }
        problems
    }
}

impl fmt::Display for DameState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut placement = String::with_capacity(self.cells.len() + 16);
        for (i, row) in self.board.rows().enumerate() {
            if i > 0 {
                placement.push('/');
            }
            placement.extend(self.cells[row].iter().map(|&s| stone_char(s)));
        }
        let control: String =
            self.control.iter().map(|&c| if c == NOBODY { '-' } else { LETTERS[c as usize] }).collect();
        let place: String = (0..3).filter(|s| self.place & (1 << s) != 0).map(|s| LETTERS[s]).collect();
        let place = if place.is_empty() { "-".to_owned() } else { place };
        write!(f, "{placement} {} {control} {place} {} {}", LETTERS[self.seat], self.plies, self.round)
    }
}

/// The cells of `state` holding stones, as ids.
pub fn stones(state: &DameState) -> impl Iterator<Item = (CellId, Stone)> + '_ {
    state.cells.iter().enumerate().filter(|(_, s)| **s != EMPTY).map(|(c, &s)| (c as CellId, s))
}
