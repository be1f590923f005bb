//! The Dreierschach position and its state string (`docs/rules/dreierschach.md` §9).
//!
//! [`DsState`] is validated once, when the string is read: every problem found is
//! listed, and a state that play could not reach in a way that matters to the
//! rules (a seat without its king or with two, a pawn on a baseline, a castling
//! right without its king or rook at home, an en-passant entry without its pawn
//! or one that should have lapsed) is refused.

use std::fmt;

use super::EnPassant;
use super::geometry::{
    BASELINE_OF, CASTLING_ROOKS, CELLS, Hex, HexSet, MAILBOX, Names, SEATS, START_LINE_OF, STRAIGHT, on_board,
};

/// The seat letters in seat order: White, Brown (`n`, German *braun*), Black (§3).
pub const SEAT_LETTERS: [char; 3] = ['w', 'n', 'b'];

/// The seat names in seat order (§3).
pub const SEAT_NAMES: [&str; 3] = ["white", "brown", "black"];

pub use crate::rules::mailbox::Kind;
pub(crate) use crate::rules::mailbox::{Content, EMPTY, OFF, is_piece, kind, owner, piece};
use crate::rules::mailbox::{read_counter, read_row, write_row};

/// The empty board: cells empty, everything else off.
pub(crate) static EMPTY_BOARD: [Content; MAILBOX] = {
    let mut out = [OFF; MAILBOX];
    let mut i = 0;
    while i < CELLS.len() {
        out[CELLS[i].cell()] = EMPTY;
        i += 1;
    }
    out
};

/// A pawn's double step as played (§4): from, over, to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct DoubleStep {
    /// The start-line cell it left.
    pub from: Hex,
    /// The cell it skipped: where an en-passant capture lands.
    pub over: Hex,
    /// Where the pawn stands.
    pub to: Hex,
}

/// The seat after `seat` in turn order (§3).
pub(crate) const fn next_seat(seat: usize) -> usize {
    (seat + 1) % 3
}

/// The seat before `seat` in turn order.
pub(crate) const fn previous_seat(seat: usize) -> usize {
    (seat + 2) % 3
}

/// A Dreierschach position: the board, the seat to move, the castling rights,
/// the live en-passant entries and the two counters (§9).
///
/// Equality is field by field, as the state strings compare.
#[derive(Clone, PartialEq, Eq)]
pub struct DsState {
    pub(crate) board: [Content; MAILBOX],
    /// The seat to move (after the end: the seat examined last, §9).
    pub(crate) turn: usize,
    /// Castling rights, bit `2 * seat + side` (side 0 is `0-0`).
    pub(crate) castling: u8,
    /// Each seat's live en-passant entry.
    pub(crate) ep: [Option<DoubleStep>; 3],
    pub(crate) halfmove: u32,
    pub(crate) round: u32,
    /// Where each seat's king stands (derived from the board).
    pub(crate) kings: [Hex; 3],
    /// Where each seat's pieces stand (derived from the board and kept in step
    /// with it by [`DsState::put`]).
    pub(crate) pieces: [HexSet; 3],
}

impl DsState {
    /// The start position (§3), White to move.
    pub fn start() -> DsState {
        let mut board = EMPTY_BOARD;
        let order =
            [Kind::Rook, Kind::Bishop, Kind::Knight, Kind::King, Kind::Queen, Kind::Bishop, Kind::Knight, Kind::Rook];
        for (seat, g) in SEATS.iter().enumerate() {
            for (i, k) in order.into_iter().enumerate() {
                board[g.baseline[i].cell()] = piece(seat, k);
            }
            for p in g.start_line {
                board[p.cell()] = piece(seat, Kind::Pawn);
            }
        }
        DsState {
            board,
            turn: 0,
            castling: 0b11_1111,
            ep: [None; 3],
            halfmove: 0,
            round: 1,
            kings: [SEATS[0].king_start, SEATS[1].king_start, SEATS[2].king_start],
            pieces: Default::default(),
        }
        .with_piece_sets()
    }

    /// The state with its piece sets (and kings) found from the board.
    fn with_piece_sets(mut self) -> DsState {
        self.pieces = Default::default();
        for h in CELLS {
            let c = self.board[h.cell()];
            if is_piece(c) {
                self.pieces[owner(c)].insert(h);
                if kind(c) == Kind::King {
                    self.kings[owner(c)] = h;
                }
            }
        }
        self
    }

    /// Puts `content` (a piece or [`EMPTY`]) on `hex`, keeping the piece sets in
    /// step with the board. Every change of a kept state's board goes through here.
    pub(crate) fn put(&mut self, hex: Hex, content: Content) {
        let old = self.board[hex.cell()];
        if is_piece(old) {
            self.pieces[owner(old)].remove(hex);
        }
        if is_piece(content) {
            self.pieces[owner(content)].insert(hex);
        }
        self.board[hex.cell()] = content;
    }

    /// The seat to move (0 White, 1 Brown, 2 Black), or after the end of the game
    /// the seat examined last.
    pub fn turn(&self) -> usize {
        self.turn
    }

    /// The piece on `hex`: its seat and kind.
    pub fn piece_at(&self, hex: Hex) -> Option<(usize, Kind)> {
        let c = self.board[hex.cell()];
        is_piece(c).then(|| (owner(c), kind(c)))
    }

    /// Every piece on the board, in cell order: its cell, seat and kind.
    pub fn pieces(&self) -> impl Iterator<Item = (Hex, usize, Kind)> + '_ {
        CELLS.iter().filter_map(|&h| self.piece_at(h).map(|(seat, kind)| (h, seat, kind)))
    }

    /// Plies since the last capture or pawn move.
    pub fn halfmove(&self) -> u32 {
        self.halfmove
    }

    /// The round, from 1; it grows after each move of Black.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The live en-passant entry of `seat`'s last double step.
    pub fn en_passant(&self, seat: usize) -> Option<DoubleStep> {
        self.ep[seat]
    }

    pub(crate) fn castling_right(&self, seat: usize, side: usize) -> bool {
        self.castling & (1 << (2 * seat + side)) != 0
    }

    /// Reads the state string, with every problem found, under the en-passant
    /// option `ep` (which entries may be live).
    pub(crate) fn parse(text: &str, ep: EnPassant) -> Result<DsState, Vec<String>> {
        let mut problems = Vec::new();
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 6 {
            return Err(vec![format!(
                "expected 6 fields separated by single spaces (placement, seat, castling, en passant, halfmove, round), found {}",
                fields.len()
            )]);
        }
        let mut state = DsState {
            board: EMPTY_BOARD,
            turn: 0,
            castling: 0,
            ep: [None; 3],
            halfmove: 0,
            round: 1,
            kings: [CELLS[0]; 3],
            pieces: Default::default(),
        };
        read_placement(fields[0], &mut state.board, &mut problems);
        state = state.with_piece_sets();
        match SEAT_LETTERS.iter().position(|&c| fields[1] == c.to_string()) {
            Some(seat) => state.turn = seat,
            None => problems.push(format!("seat {:?} should be w, n or b", fields[1])),
        }
        read_castling(fields[2], &mut state.castling, &mut problems);
        read_ep(fields[3], &mut state.ep, &mut problems);
        match read_counter(fields[4]) {
            Some(n) => state.halfmove = n,
            None => problems.push(format!("halfmove {:?} should be a number", fields[4])),
        }
        match read_counter(fields[5]) {
            Some(n) if n >= 1 => state.round = n,
            _ => problems.push(format!("round {:?} should be a number from 1", fields[5])),
        }
        if problems.is_empty() {
            state.check(ep, &mut problems);
        }
        if problems.is_empty() { Ok(state) } else { Err(problems) }
    }

    /// The consistency checks of a state whose fields could all be read.
    fn check(&mut self, ep: EnPassant, problems: &mut Vec<String>) {
        let mut kings: [Vec<Hex>; 3] = Default::default();
        for h in CELLS {
            let c = self.board[h.cell()];
            if !is_piece(c) {
                continue;
            }
            let (seat, k) = (owner(c), kind(c));
            if k == Kind::King {
                kings[seat].push(h);
            }
            let on = BASELINE_OF[h.cell()] as usize;
            if k == Kind::Pawn && on == seat {
                problems.push(format!("{} pawn on {h}, its own baseline", SEAT_NAMES[seat]));
            } else if k == Kind::Pawn && on < 3 {
                problems.push(format!(
                    "{} pawn on {h} should have promoted ({}'s baseline)",
                    SEAT_NAMES[seat], SEAT_NAMES[on]
                ));
            }
        }
        for (seat, found) in kings.iter().enumerate() {
            match found.as_slice() {
                [k] => self.kings[seat] = *k,
                [] => problems.push(format!("{} has no king", SEAT_NAMES[seat])),
                many => problems.push(format!(
                    "{} has {} kings ({})",
                    SEAT_NAMES[seat],
                    many.len(),
                    many.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                )),
            }
        }
        for (seat, side, rook) in CASTLING_ROOKS {
            if !self.castling_right(seat, side) {
                continue;
            }
            let king = SEATS[seat].king_start;
            if self.board[rook.cell()] != piece(seat, Kind::Rook) {
                problems.push(format!("castling right {rook}: no {} rook there", SEAT_NAMES[seat]));
            } else if self.board[king.cell()] != piece(seat, Kind::King) {
                problems.push(format!("castling right {rook}: the {} king is not on {king}", SEAT_NAMES[seat]));
            }
        }
        for (seat, entry) in self.ep.iter().enumerate() {
            let Some(step) = *entry else { continue };
            let name = SEAT_NAMES[seat];
            let at = format!("en passant {}-{}", step.from, step.to);
            if seat == self.turn {
                problems.push(format!("{at}: {name}'s entry lapses when {name} is to move again"));
            } else if ep == EnPassant::Next && seat != previous_seat(self.turn) {
                problems.push(format!("{at}: with en_passant = next only the last mover's entry is live"));
            }
            if self.board[step.over.cell()] != EMPTY {
                problems.push(format!("{at}: the skipped cell {} is occupied", step.over));
            }
            if self.board[step.to.cell()] != piece(seat, Kind::Pawn) {
                problems.push(format!("{at}: no {name} pawn on {}", step.to));
            }
        }
    }
}

/// The cells of row `y` (letter), from the lowest number.
fn row(y: u8) -> impl Iterator<Item = Hex> {
    (0..13).filter_map(move |x| Hex::new(x, i16::from(y)))
}

fn read_placement(text: &str, board: &mut [Content; MAILBOX], problems: &mut Vec<String>) {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != 13 {
        problems.push(format!("placement has {} rows separated by '/', expected 13 (m down to a)", rows.len()));
        return;
    }
    for (i, row_text) in rows.iter().enumerate() {
        let y = 12 - i as u8;
        let cells: Vec<Hex> = row(y).collect();
        let letter = char::from(b'a' + y);
        match read_row(row_text, &SEAT_LETTERS, 13, "cells") {
            Err(why) => problems.push(format!("row {letter} ({row_text:?}): {why}")),
            Ok(contents) if contents.len() != cells.len() => problems.push(format!(
                "row {letter} ({row_text:?}) covers {} cells, it has {}",
                contents.len(),
                cells.len()
            )),
            Ok(contents) => {
                for (h, c) in cells.iter().zip(contents) {
                    board[h.cell()] = c;
                }
            }
        }
    }
}

fn read_castling(text: &str, castling: &mut u8, problems: &mut Vec<String>) {
    if text == "-" {
        return;
    }
    let mut last: Option<Hex> = None;
    for name in text.split(',') {
        let found = Hex::parse(name, Names::V22).and_then(|h| CASTLING_ROOKS.iter().find(|r| r.2 == h));
        let Some(&(seat, side, h)) = found else {
            problems.push(format!("castling {name:?} is not a rook's start cell (a1, a8, f1, f13, m8, m13)"));
            return;
        };
        if last.is_some_and(|l| l >= h) {
            problems.push(format!("castling {text:?}: cells must be listed once each, in cell order"));
            return;
        }
        last = Some(h);
        *castling |= 1 << (2 * seat + side);
    }
}

/// The double step `from`-`to` as a seat's pawn plays it: the seat and the cell
/// skipped, if some seat's pawn can make it.
pub(crate) fn double_step(from: Hex, to: Hex) -> Option<(usize, DoubleStep)> {
    (0..3).find_map(|seat| {
        if START_LINE_OF[from.cell()] & (1 << seat) == 0 {
            return None;
        }
        SEATS[seat].pawn_steps.iter().find_map(|&d| {
            let over = (from.cell() as i16 + STRAIGHT[d]) as usize;
            let beyond = (over as i16 + STRAIGHT[d]) as usize;
            (beyond == to.cell() && on_board(over)).then(|| (seat, DoubleStep { from, over: Hex::from_cell(over), to }))
        })
    })
}

fn read_ep(text: &str, ep: &mut [Option<DoubleStep>; 3], problems: &mut Vec<String>) {
    if text == "-" {
        return;
    }
    let mut last: Option<usize> = None;
    for entry in text.split(',') {
        let step = entry
            .split_once('-')
            .and_then(|(a, b)| Some((Hex::parse(a, Names::V22)?, Hex::parse(b, Names::V22)?)))
            .and_then(|(from, to)| double_step(from, to));
        let Some((seat, step)) = step else {
            problems.push(format!(
                "en passant {entry:?} is not a pawn's double step from its start line, written <from>-<to>"
            ));
            return;
        };
        if last.is_some_and(|l| l >= seat) {
            problems.push(format!("en passant {text:?}: at most one entry per seat, in seat order w, n, b"));
            return;
        }
        last = Some(seat);
        ep[seat] = Some(step);
    }
}

impl fmt::Display for DsState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::with_capacity(200);
        for y in (0..13u8).rev() {
            write_row(&mut out, row(y).map(|h| self.board[h.cell()]), &SEAT_LETTERS);
            if y > 0 {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(SEAT_LETTERS[self.turn]);
        out.push(' ');
        let rights: Vec<String> = CASTLING_ROOKS
            .iter()
            .filter(|&&(seat, side, _)| self.castling_right(seat, side))
            .map(|(_, _, h)| h.to_string())
            .collect();
        out.push_str(&if rights.is_empty() { "-".to_owned() } else { rights.join(",") });
        out.push(' ');
        let ep: Vec<String> = self.ep.iter().flatten().map(|s| format!("{}-{}", s.from, s.to)).collect();
        out.push_str(&if ep.is_empty() { "-".to_owned() } else { ep.join(",") });
        write!(f, "{out} {} {}", self.halfmove, self.round)
    }
}

impl fmt::Debug for DsState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DsState({self})")
    }
}
