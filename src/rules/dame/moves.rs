//! Moves (`docs/rules/trialectic-dame.md` §3–4): placements, steps, and capture
//! sequences of men and flying Dames, under the capture duty.
//!
//! A capture sequence is found by playing it on a scratch copy of the cells: a
//! jumped stone is removed at once (so it cannot be jumped twice and its cell is
//! empty for the rest of the sequence) and the mover's start cell is empty once
//! left. A sequence goes on while a jump is possible; a man that lands on one of
//! its colour's promotion cells becomes a Dame and the move ends there.

use std::fmt;

use super::record::{Board, CellId, NONE};
use super::state::{DameState, EMPTY, Stone, colour, dame, is_dame, man};

/// A legal move: a placement, a step (of a man or a Dame), or a capture sequence.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Play {
    /// A placement of the seat's 12th stone (setup variant 2).
    Place(CellId),
    /// A move without capture, from and to.
    Step(CellId, CellId),
    /// A capture sequence: the start cell and every landing cell, and the cells
    /// of the stones taken, in the order taken.
    Capture {
        /// Start, then every landing cell.
        path: Vec<CellId>,
        /// The jumped stones' cells.
        taken: Vec<CellId>,
    },
}

impl Play {
    /// The canonical text (§6): `@cell`, `from-to`, or the path joined by `x`.
    pub fn text(&self, board: &Board) -> String {
        match self {
            Play::Place(c) => format!("@{}", board.name(*c)),
            Play::Step(a, b) => format!("{}-{}", board.name(*a), board.name(*b)),
            Play::Capture { path, .. } => path.iter().map(|&c| board.name(c)).collect::<Vec<_>>().join("x"),
        }
    }

    /// The cells the move passes: from and every landing (the placement's cell).
    pub fn cells(&self) -> Vec<CellId> {
        match self {
            Play::Place(c) => vec![*c],
            Play::Step(a, b) => vec![*a, *b],
            Play::Capture { path, .. } => path.clone(),
        }
    }
}

/// A legal move with its canonical text, which orders the legal list (§6: by
/// byte value) and is the move's `Display`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DameMove {
    /// The canonical text.
    pub text: String,
    /// The move.
    pub play: Play,
}

impl fmt::Display for DameMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The rules a move generator needs beyond the state.
#[derive(Copy, Clone, Debug)]
pub struct Duty {
    /// Option `dame_first`: when a Dame can capture, only Dame sequences.
    pub dame_first: bool,
}

/// Calls `found` with every legal move of seat `s` in `state` (not sorted),
/// assuming `s` is to move and the game goes on; returns the number found.
pub fn generate(state: &DameState, s: usize, duty: Duty, found: &mut dyn FnMut(Play)) -> usize {
    let board = &*state.board;
    if state.place & (1 << s) != 0 {
        let mut n = 0;
        for c in 0..board.len() as CellId {
            if state.cells[c as usize] == EMPTY && board.placeable(s, c) {
                found(Play::Place(c));
                n += 1;
            }
        }
        return n;
    }
    let mut scratch = state.cells.clone();
    let mut captures: Vec<(bool, Play)> = Vec::new();
    for c in 0..board.len() as CellId {
        let stone = state.cells[c as usize];
        if state.controls(s, stone) {
            let mut jumps = Jumps { board, state, seat: s, cells: &mut scratch, path: vec![c], taken: Vec::new() };
            jumps.from(c, stone, &mut |p| captures.push((is_dame(stone), p)));
        }
    }
    if !captures.is_empty() {
        let dames_only = duty.dame_first && captures.iter().any(|(d, _)| *d);
        let mut n = 0;
        for (d, p) in captures {
            if d || !dames_only {
                found(p);
                n += 1;
            }
        }
        return n;
    }
    let mut n = 0;
    for c in 0..board.len() as CellId {
        let stone = state.cells[c as usize];
        if !state.controls(s, stone) {
            continue;
        }
        if is_dame(stone) {
            for d in 0..board.direction_count() {
                let mut to = board.neighbour(c, d);
                while to != NONE && state.cells[to as usize] == EMPTY {
                    found(Play::Step(c, to));
                    n += 1;
                    to = board.neighbour(to, d);
                }
            }
        } else {
            let seat = board.seat(colour(stone));
            let dirs = seat.forward | seat.sideways;
            for d in (0..board.direction_count()).filter(|d| dirs & (1 << d) != 0) {
                let to = board.neighbour(c, d);
                if to != NONE && state.cells[to as usize] == EMPTY {
                    found(Play::Step(c, to));
                    n += 1;
                }
            }
        }
    }
    n
}

/// Whether `play` is a legal move of seat `s` in `state` (`s` to move, the game
/// going on), judged without listing every move: a placement by the cell, a
/// step by the stone and the absence of any capture, a capture by the
/// sequences of its own stone and, with `dame_first`, the Dames' captures.
pub fn is_legal(state: &DameState, s: usize, duty: Duty, play: &Play) -> bool {
    let board = &*state.board;
    let placing = state.place & (1 << s) != 0;
    let empty = |c: CellId| state.cells.get(c as usize) == Some(&EMPTY);
    match play {
        Play::Place(c) => placing && empty(*c) && board.placeable(s, *c),
        _ if placing => false,
        Play::Step(from, to) => {
            let stone = state.cells.get(*from as usize).copied().unwrap_or(EMPTY);
            if !state.controls(s, stone) || !empty(*to) || can_capture(state, s, |_| true) {
                return false;
            }
            let dirs = if is_dame(stone) {
                u32::MAX
            } else {
                let seat = board.seat(colour(stone));
                seat.forward | seat.sideways
            };
            (0..board.direction_count()).filter(|d| dirs & (1 << d) != 0).any(|d| {
                let mut at = board.neighbour(*from, d);
                while at != NONE && state.cells[at as usize] == EMPTY {
                    if at == *to {
                        return true;
                    }
                    at = if is_dame(stone) { board.neighbour(at, d) } else { NONE };
                }
                false
            })
        }
        Play::Capture { path, .. } => {
            let Some(&from) = path.first() else { return false };
            let stone = state.cells.get(from as usize).copied().unwrap_or(EMPTY);
            if !state.controls(s, stone) {
                return false;
            }
            if duty.dame_first && !is_dame(stone) && can_capture(state, s, is_dame) {
                return false;
            }
            let mut scratch = state.cells.clone();
            let mut found = false;
            let mut jumps = Jumps { board, state, seat: s, cells: &mut scratch, path: vec![from], taken: Vec::new() };
            jumps.from(from, stone, &mut |p| found |= p == *play);
            found
        }
    }
}

/// Whether one of the stones of seat `s` that `which` picks can jump now.
fn can_capture(state: &DameState, s: usize, which: impl Fn(Stone) -> bool) -> bool {
    let board = &*state.board;
    (0..board.len() as CellId).any(|c| {
        let stone = state.cells[c as usize];
        state.controls(s, stone)
            && which(stone)
            && (0..board.direction_count()).any(|d| first_jump(state, s, c, stone, d).is_some())
    })
}

/// Whether seat `s` has a legal move in `state` (were it to move).
pub fn has_move(state: &DameState, s: usize) -> bool {
    let board = &*state.board;
    if state.place & (1 << s) != 0 {
        return (0..board.len() as CellId).any(|c| state.cells[c as usize] == EMPTY && board.placeable(s, c));
    }
    for c in 0..board.len() as CellId {
        let stone = state.cells[c as usize];
        if !state.controls(s, stone) {
            continue;
        }
        let dirs = if is_dame(stone) {
            u32::MAX
        } else {
            let seat = board.seat(colour(stone));
            seat.forward | seat.sideways
        };
        for d in 0..board.direction_count() {
            let next = board.neighbour(c, d);
            if next == NONE {
                continue;
            }
            let there = state.cells[next as usize];
            if there == EMPTY && dirs & (1 << d) != 0 {
                return true;
            }
            if first_jump(state, s, c, stone, d).is_some() {
                return true;
            }
        }
    }
    false
}

/// The jump of `stone` from `c` in direction `d` on the state's cells, if one is
/// possible: the taken cell and the landing cell.
fn first_jump(state: &DameState, s: usize, c: CellId, stone: Stone, d: usize) -> Option<(CellId, CellId)> {
    jump(&state.board, &state.cells, |x| state.is_opponent(s, x), c, is_dame(stone), d)
}

/// A jump from `c` in direction `d` on `cells`: a man over the neighbour, a Dame
/// over empty cells and then one stone; the cell directly behind the stone must
/// be empty, and the stone an opponent's.
#[inline]
fn jump(
    board: &Board,
    cells: &[Stone],
    opponent: impl Fn(Stone) -> bool,
    c: CellId,
    flying: bool,
    d: usize,
) -> Option<(CellId, CellId)> {
    let mut over = board.neighbour(c, d);
    if flying {
        while over != NONE && cells[over as usize] == EMPTY {
            over = board.neighbour(over, d);
        }
    }
    if over == NONE || !opponent(cells[over as usize]) {
        return None;
    }
    let land = board.neighbour(over, d);
    (land != NONE && cells[land as usize] == EMPTY).then_some((over, land))
}

/// The search for capture sequences from one stone, played on a scratch copy.
struct Jumps<'a> {
    board: &'a Board,
    state: &'a DameState,
    seat: usize,
    cells: &'a mut Vec<Stone>,
    path: Vec<CellId>,
    taken: Vec<CellId>,
}

impl Jumps<'_> {
    /// Every complete sequence of `stone`, which stands on `at` (in `cells`).
    /// Returns whether any jump was possible from `at`.
    fn from(&mut self, at: CellId, stone: Stone, found: &mut dyn FnMut(Play)) -> bool {
        let mut any = false;
        for d in 0..self.board.direction_count() {
            let state = self.state;
            let seat = self.seat;
            let Some((over, land)) =
                jump(self.board, self.cells, |x| state.is_opponent(seat, x), at, is_dame(stone), d)
            else {
                continue;
            };
            any = true;
            let victim = self.cells[over as usize];
            self.cells[over as usize] = EMPTY;
            self.cells[at as usize] = EMPTY;
            self.path.push(land);
            self.taken.push(over);
            let promoted = !is_dame(stone) && self.board.promotes(colour(stone), land);
            let ended = if promoted {
                true
            } else {
                self.cells[land as usize] = stone;
                let more = self.from(land, stone, found);
                self.cells[land as usize] = EMPTY;
                !more
            };
            if ended {
                found(Play::Capture { path: self.path.clone(), taken: self.taken.clone() });
            }
            self.path.pop();
            self.taken.pop();
            self.cells[at as usize] = stone;
            self.cells[over as usize] = victim;
        }
        any
    }
}

/// The cells after seat `s` plays `play` (legal), and whether it was progress
/// (a capture, a move of a man or a placement, §7 `plies`).
pub fn apply(state: &DameState, s: usize, play: &Play) -> (Vec<Stone>, bool) {
    let board = &*state.board;
    let mut cells = state.cells.clone();
    let arrive = |cells: &mut Vec<Stone>, stone: Stone, to: CellId| {
        let promoted = !is_dame(stone) && board.promotes(colour(stone), to);
        cells[to as usize] = if promoted { dame(colour(stone)) } else { stone };
    };
    match play {
        Play::Place(c) => {
            cells[*c as usize] = man(s);
            (cells, true)
        }
        Play::Step(from, to) => {
            let stone = cells[*from as usize];
            cells[*from as usize] = EMPTY;
            arrive(&mut cells, stone, *to);
            (cells, !is_dame(stone))
        }
        Play::Capture { path, taken } => {
            let from = path[0];
            let stone = cells[from as usize];
            cells[from as usize] = EMPTY;
            for &t in taken {
                cells[t as usize] = EMPTY;
            }
            arrive(&mut cells, stone, *path.last().expect("a path"));
            (cells, true)
        }
    }
}
