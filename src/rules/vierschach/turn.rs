//! Playing a move and finding the next seat to move (`docs/rules/vierschach.md` §7),
//! and the end of the game (§8).
//!
//! After a move the steward goes clockwise from the mover and examines seats: a
//! seat that is out is passed over; any other seat has its turn, its own
//! en-passant entry expires, and it moves if it can (a frozen seat thaws).
//! Otherwise it is mated (in check) or stalemated, and the end of the game is
//! checked after that status change.

use super::geometry::{CASTLING_RIGHTS_OF, SEATS};
use super::moves::{self, MoveKind, VsMove};
use super::state::{EMPTY, Kind, Status, VsState, is_piece, kind, piece, seat_name};
use super::{Mated, Vierschach};

/// Plays the legal move `mv` of the seat to move and runs the turn procedure;
/// remarks for the players go to `notes`.
pub(crate) fn play(rules: &Vierschach, state: &VsState, mv: VsMove, notes: &mut Vec<String>) -> VsState {
    let mut next = apply(state, mv);
    pass_turn(rules, &mut next, state.turn, notes);
    next
}

/// The state with the move `mv` of the seat to move played (pieces, castling
/// rights, en-passant entries, the halfmove counter), before the turn passes.
pub(crate) fn apply(state: &VsState, mv: VsMove) -> VsState {
    let seat = state.turn;
    let mut next = state.clone();
    let moving = state.board[mv.from.cell()];
    let capture = is_piece(state.board[mv.to.cell()]) || mv.kind == MoveKind::EnPassant;
    for (square, content) in moves::changes(state, seat, mv).into_iter().flatten() {
        next.put(square, content);
    }
    if kind(moving) == Kind::King {
        next.kings[seat] = Some(mv.to);
        next.castling &= !(0b11 << (2 * seat));
    }
    next.castling &= !(CASTLING_RIGHTS_OF[mv.from.cell()] | CASTLING_RIGHTS_OF[mv.to.cell()]);
    next.halfmove = if capture || kind(moving) == Kind::Pawn { 0 } else { state.halfmove + 1 };
    if mv.kind == MoveKind::DoubleStep {
        next.ep[seat] = Some(mv.from.offset_by(SEATS[seat].forward));
    }
    drop_dead_entries(&mut next);
    next
}

/// Drops the en-passant entries whose pawn is gone or whose skipped square is
/// occupied (§10).
fn drop_dead_entries(state: &mut VsState) {
    for (d, g) in SEATS.iter().enumerate() {
        if let Some(m) = state.ep[d] {
            let pawn = m.offset_by(g.forward);
            if state.board[m.cell()] != EMPTY || state.board[pawn.cell()] != piece(d, Kind::Pawn) {
                state.ep[d] = None;
            }
        }
    }
}

/// Goes clockwise from `from` (which has just moved or resigned) and examines
/// seats until one can move or the game ends (§7).
pub(crate) fn pass_turn(rules: &Vierschach, state: &mut VsState, from: usize, notes: &mut Vec<String>) {
    let mut p = from;
    loop {
        if p == 3 {
            state.round += 1;
        }
        p = (p + 1) % 4;
        if examine(rules, state, p, notes) {
            return;
        }
    }
}

/// Examines seat `p` (§7 steps 1–6). Returns `true` when the search stops: `p` is
/// to move, or the game has ended at `p`.
fn examine(rules: &Vierschach, state: &mut VsState, p: usize, notes: &mut Vec<String>) -> bool {
    if state.status[p] == Status::Out {
        return false;
    }
    state.ep[p] = None;
    let name = seat_name(p);
    if moves::has_legal_move(rules, state, p) {
        if state.status[p] == Status::Mated {
            notes.push(format!("{name} is no longer mated: its pieces thaw"));
        }
        state.status[p] = Status::Active;
        state.turn = p;
        return true;
    }
    if moves::in_check(rules, state, p) {
        match rules.mated {
            Mated::Freeze => {
                if state.status[p] != Status::Mated {
                    notes.push(format!("{name} is checkmated: its pieces are frozen"));
                }
                state.status[p] = Status::Mated;
            }
            Mated::Remove => {
                notes.push(format!("{name} is checkmated: its pieces are removed"));
                remove_pieces(state, p);
            }
        }
    } else {
        if state.status[p] != Status::Stalemated {
            notes.push(format!("{name} is stalemated and skips its turn"));
        }
        state.status[p] = Status::Stalemated;
    }
    if rules.end_by_status(&state.status).is_some() {
        state.turn = p;
        return true;
    }
    false
}

/// Takes all of `p`'s pieces off the board: `p` is out (§7 step 4, §8).
fn remove_pieces(state: &mut VsState, p: usize) {
    for sq in state.pieces[p].iter() {
        state.put(sq, EMPTY);
    }
    state.kings[p] = None;
    state.castling &= !(0b11 << (2 * p));
    state.ep[p] = None;
    state.status[p] = Status::Out;
    state.halfmove = 0;
    drop_dead_entries(state);
}

/// Free-for-all resignation or timeout (§8, Decision): the seat becomes `x` and its
/// pieces are removed; if it was to move, the turn passes on. The seat to move
/// keeps the turn when it still has a legal move, and is examined again otherwise
/// (the removed pieces may have uncovered a check).
pub(crate) fn resign_ffa(rules: &Vierschach, state: &VsState, seat: usize, notes: &mut Vec<String>) -> VsState {
    let mut next = state.clone();
    remove_pieces(&mut next, seat);
    notes.push(format!("{} resigned: its pieces are removed", seat_name(seat)));
    if rules.end_by_status(&next.status).is_some() {
        next.turn = seat;
        return next;
    }
    if next.turn == seat {
        pass_turn(rules, &mut next, seat, notes);
    } else if !moves::has_legal_move(rules, &next, next.turn) {
        let p = next.turn;
        if !examine(rules, &mut next, p, notes) {
            pass_turn(rules, &mut next, p, notes);
        }
    }
    next
}
