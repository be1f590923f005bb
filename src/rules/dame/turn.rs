//! The turn procedure (`docs/rules/trialectic-dame.md` §3, §5, §7): after a move the
//! turn steps seat by seat over seats that are out; a seat in the game with no
//! legal move passes (base game) or is enclosed (variants 1 and 2); the game
//! ends when one seat is left, when no seat can move, or after `no_progress`
//! plies. Resignations and timeouts take a seat out the same way.

use super::TrialecticDame;
use super::moves::{self, Play};
use super::state::{DameState, NOBODY, colour};
use crate::rules::{EndReason, GameResult, Outcome, Seat, SeatSet};

/// Option `enclosure` (§5): what happens to a seat that has stones but no move.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Enclosure {
    /// Base game: it passes.
    #[default]
    None,
    /// Variant 1: it is out, and the seat that moved last takes its stones.
    Take,
    /// Variant 2: it is out, and its stones are removed.
    Remove,
}

/// The seat's name for notes.
pub(crate) fn seat_word(s: usize) -> &'static str {
    ["yellow", "red", "blue"][s]
}

/// Seats of a bit set as a [`SeatSet`].
fn seat_set(bits: u8) -> SeatSet {
    (0..3u8).filter(|s| bits & (1 << s) != 0).map(Seat::new).collect()
}

/// A drawn result (§5 Decision): ½ for each seat still in the game, 0 for the
/// others; a plain draw when all three are in.
pub(crate) fn draw_among(state: &DameState, reason: EndReason) -> Outcome {
    let in_game = state.in_game();
    let result = if in_game == 0b111 { GameResult::Draw } else { GameResult::DrawAmong(seat_set(in_game)) };
    Outcome { result, reason }
}

/// The lone seat in the game, when at most one is left.
fn last_seat(state: &DameState) -> Option<Option<usize>> {
    let in_game = state.in_game();
    (in_game.count_ones() <= 1).then(|| (0..3).find(|s| in_game & (1 << s) != 0))
}

/// The end that the state shows without looking at moves: one seat left, or
/// `no_progress` reached.
pub(crate) fn settled_end(rules: &TrialecticDame, state: &DameState) -> Option<Outcome> {
    if let Some(last) = last_seat(state) {
        // A state with nobody in the game is refused when read; play never makes one.
        let s = last.unwrap_or(state.seat);
        return Some(Outcome::win(Seat::new(s as u8), EndReason::LastSeat));
    }
    match rules.no_progress {
        Some(n) if state.plies >= n => Some(draw_among(state, EndReason::NoProgress)),
        _ => None,
    }
}

/// Passes the turn to the next seat in the game, seat by seat; each step from
/// blue to yellow adds a round (§7).
fn step(state: &mut DameState) {
    for _ in 0..3 {
        if state.seat == 2 {
            state.round += 1;
        }
        state.seat = (state.seat + 1) % 3;
        if state.is_in(state.seat) {
            return;
        }
    }
}

/// The seat in the game nearest before `s` in turn order (the last mover of a
/// hand-made state, §8), or `s` itself when no other is in.
pub(crate) fn before(state: &DameState, s: usize) -> usize {
    [(s + 2) % 3, (s + 1) % 3].into_iter().find(|&o| state.is_in(o)).unwrap_or(s)
}

/// Takes `s` out of the game: its stones go to `taker` (enclosure variant 1)
/// or leave the board; it owes no placement any more.
fn take_out(state: &mut DameState, s: usize, taker: Option<usize>) {
    for colour in 0..3 {
        if state.control[colour] as usize != s {
            continue;
        }
        match taker {
            Some(t) => state.control[colour] = t as u8,
            None => {
                for c in 0..state.cells.len() {
                    if state.cells[c] != 0 && self::colour(state.cells[c]) == colour {
                        state.cells[c] = 0;
                    }
                }
                state.control[colour] = NOBODY;
            }
        }
    }
    state.place &= !(1 << s);
}

/// Applies the passes and enclosures due, from the seat to move on, `last`
/// being the seat that moved last. Returns the end of the game if it came.
pub(crate) fn settle(
    rules: &TrialecticDame,
    state: &mut DameState,
    last: usize,
    notes: &mut Vec<String>,
) -> Option<Outcome> {
    // Each round of the loop takes a seat out or passes; three passes in a row
    // would mean nobody can move, which ends the game first.
    for _ in 0..8 {
        if let Some(end) = settled_end(rules, state) {
            return Some(end);
        }
        let x = state.seat;
        if !state.is_in(x) {
            step(state);
            continue;
        }
        if moves::has_move(state, x) {
            return None;
        }
        match rules.enclosure {
            Enclosure::None => {
                if !(0..3).any(|s| state.is_in(s) && s != x && moves::has_move(state, s)) {
                    notes.push(format!("{} cannot move, and nor can any seat: the game is drawn", seat_word(x)));
                    return Some(draw_among(state, EndReason::NoSeatCanMove));
                }
                notes.push(format!("{} cannot move and passes", seat_word(x)));
                step(state);
            }
            Enclosure::Take => {
                notes.push(format!("{} is enclosed and out: {} takes over its stones", seat_word(x), seat_word(last)));
                take_out(state, x, Some(last));
                if last_seat(state).is_some() {
                    return settled_end(rules, state);
                }
                step(state);
            }
            Enclosure::Remove => {
                notes.push(format!("{} is enclosed and out: its stones leave the board", seat_word(x)));
                take_out(state, x, None);
                if last_seat(state).is_some() {
                    return settled_end(rules, state);
                }
                step(state);
            }
        }
    }
    None
}

/// The state after seat `s` plays `play` (legal in `state`), with the turn
/// procedure applied; the end of the game if it came.
pub(crate) fn play(
    rules: &TrialecticDame,
    state: &DameState,
    play: &Play,
    notes: &mut Vec<String>,
) -> (DameState, Option<Outcome>) {
    let s = state.seat;
    let (cells, progress) = moves::apply(state, s, play);
    let before_in = state.in_game();
    let mut next = DameState { cells, ..state.clone() };
    next.plies = if progress { 0 } else { next.plies.saturating_add(1) };
    if matches!(play, Play::Place(_)) {
        next.place &= !(1 << s);
    }
    next.update_control();
    for o in (0..3).filter(|&o| before_in & (1 << o) != 0 && !next.is_in(o)) {
        notes.push(format!("{} has no stones left and is out", seat_word(o)));
    }
    // A move that ends the game leaves the mover shown to move (§7 Decision).
    if let Some(end) = settled_end(rules, &next) {
        return (next, Some(end));
    }
    step(&mut next);
    let end = settle(rules, &mut next, s, notes);
    (next, end)
}

/// Seat `s` resigns or runs out of time (§5 Decision): it is out, the stones it
/// controls leave the board, and the turn passes on if it was to move.
pub(crate) fn retire(rules: &TrialecticDame, state: &DameState, s: usize) -> (DameState, Vec<String>, Option<Outcome>) {
    let mut next = state.clone();
    let mut notes = Vec::new();
    if !state.is_in(s) || settled_end(rules, state).is_some() {
        return (next, notes, None);
    }
    take_out(&mut next, s, None);
    notes.push(format!("{} leaves the game: its stones leave the board", seat_word(s)));
    if let Some(last) = last_seat(&next) {
        let winner = last.unwrap_or(s);
        return (next, notes, Some(Outcome::win(Seat::new(winner as u8), EndReason::Resignation)));
    }
    if next.seat == s {
        step(&mut next);
    }
    let last = before(&next, next.seat);
    let end = settle(rules, &mut next, last, &mut notes);
    (next, notes, end)
}
