//! The Vierschach position and its state string (`docs/rules/vierschach.md` §10).
//!
//! [`VsState`] is validated once, when the string is read: every problem found is
//! listed, and a state that play could not reach in a way that matters to the
//! rules (two kings, a pawn that should have promoted, a castling right without
//! its rook, an en-passant entry without its pawn, a seat to move whose status
//! contradicts the end of the game) is refused.

use std::fmt;

use super::geometry::{CELLS, SEATS, SQUARES, Square, SquareSet, castling_rooks};
use super::{Mated, Mode, Vierschach};
pub use crate::rules::mailbox::Kind;
pub(crate) use crate::rules::mailbox::{Content as Cell, EMPTY, OFF, is_piece, kind, owner, piece};
use crate::rules::mailbox::{read_counter, read_row, write_row};

/// The seat letters in seat order: South, West, North, East (§3).
pub const SEAT_LETTERS: [char; 4] = ['s', 'w', 'n', 'e'];

/// A seat's status (§6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// `a`: playing.
    Active,
    /// `s`: stalemated at its last turn and skipped; its pieces stay active.
    Stalemated,
    /// `m`: mated; its pieces are frozen (they can thaw at its next turn).
    Mated,
    /// `x`: out; it has no pieces on the board.
    Out,
}

impl Status {
    /// The status letter.
    pub const fn letter(self) -> char {
        match self {
            Status::Active => 'a',
            Status::Stalemated => 's',
            Status::Mated => 'm',
            Status::Out => 'x',
        }
    }

    const fn from_letter(c: char) -> Option<Status> {
        match c {
            'a' => Some(Status::Active),
            's' => Some(Status::Stalemated),
            'm' => Some(Status::Mated),
            'x' => Some(Status::Out),
            _ => None,
        }
    }

    /// Mated or out: the seat no longer counts as playing (§8).
    pub const fn is_down(self) -> bool {
        matches!(self, Status::Mated | Status::Out)
    }
}

/// The empty board: squares empty, everything else off.
pub(crate) static EMPTY_BOARD: [Cell; CELLS] = {
    let mut out = [OFF; CELLS];
    let mut i = 0;
    while i < SQUARES.len() {
        out[SQUARES[i].cell()] = EMPTY;
        i += 1;
    }
    out
};

/// A Vierschach position: the board, the seat to move, castling rights, live
/// en-passant entries, the four statuses and the two counters (§10).
///
/// Equality is field by field, as the state strings compare.
#[derive(Clone, PartialEq, Eq)]
pub struct VsState {
    pub(crate) board: [Cell; CELLS],
    /// The seat to move (or whose examination ended the game).
    pub(crate) turn: usize,
    /// Castling rights, bit `2 * seat + side` (side 0 is `O-O`).
    pub(crate) castling: u8,
    /// Each seat's live en-passant entry: the skipped square.
    pub(crate) ep: [Option<Square>; 4],
    pub(crate) status: [Status; 4],
    pub(crate) halfmove: u32,
    pub(crate) round: u32,
    /// Where each seat's king stands (derived from the board).
    pub(crate) kings: [Option<Square>; 4],
    /// Where each seat's pieces stand (derived from the board, and kept in step
    /// with it by [`VsState::put`]).
    pub(crate) pieces: [SquareSet; 4],
}

impl VsState {
    /// The start position (§3), South to move.
    pub fn start() -> VsState {
        let mut board = EMPTY_BOARD;
        let mut kings = [None; 4];
        let order =
            [Kind::Rook, Kind::Knight, Kind::Bishop, Kind::Queen, Kind::King, Kind::Bishop, Kind::Knight, Kind::Rook];
        for (seat, g) in SEATS.iter().enumerate() {
            for (i, k) in order.into_iter().enumerate() {
                board[g.back_rank[i].cell()] = piece(seat, k);
                board[g.start_line[i].cell()] = piece(seat, Kind::Pawn);
            }
            kings[seat] = Some(g.king_start);
        }
        VsState {
            board,
            turn: 0,
            castling: 0xff,
            ep: [None; 4],
            status: [Status::Active; 4],
            halfmove: 0,
            round: 1,
            kings,
            pieces: Default::default(),
        }
        .with_piece_sets()
    }

    /// The state with its piece sets found from the board.
    fn with_piece_sets(mut self) -> VsState {
        self.pieces = Default::default();
        for sq in SQUARES {
            let c = self.board[sq.cell()];
            if is_piece(c) {
                self.pieces[owner(c)].insert(sq);
            }
        }
        self
    }

    /// Puts `content` (a piece or [`EMPTY`]) on `square`, keeping the piece sets in
    /// step with the board. Every change of a kept state's board goes through here.
    pub(crate) fn put(&mut self, square: Square, content: Cell) {
        let old = self.board[square.cell()];
        if is_piece(old) {
            self.pieces[owner(old)].remove(square);
        }
        if is_piece(content) {
            self.pieces[owner(content)].insert(square);
        }
        self.board[square.cell()] = content;
    }

    /// The seat to move (0 South … 3 East), or whose examination ended the game.
    pub fn turn(&self) -> usize {
        self.turn
    }

    /// The four statuses, South first.
    pub fn statuses(&self) -> [Status; 4] {
        self.status
    }

    /// The piece on `square`: its seat and kind.
    pub fn piece_at(&self, square: Square) -> Option<(usize, Kind)> {
        let c = self.board[square.cell()];
        is_piece(c).then(|| (owner(c), kind(c)))
    }

    /// Plies since the last capture, pawn move or removal of pieces.
    pub fn halfmove(&self) -> u32 {
        self.halfmove
    }

    /// The round, from 1.
    pub fn round(&self) -> u32 {
        self.round
    }

    pub(crate) fn castling_right(&self, seat: usize, side: usize) -> bool {
        self.castling & (1 << (2 * seat + side)) != 0
    }

    /// Reads the state string, with every problem found, for the rulebook `rules`.
    pub(crate) fn parse(text: &str, rules: &Vierschach) -> Result<VsState, Vec<String>> {
        let mut problems = Vec::new();
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 7 {
            return Err(vec![format!(
                "expected 7 fields separated by single spaces (placement, seat, castling, en passant, status, halfmove, round), found {}",
                fields.len()
            )]);
        }
        let mut state = VsState {
            board: EMPTY_BOARD,
            turn: 0,
            castling: 0,
            ep: [None; 4],
            status: [Status::Active; 4],
            halfmove: 0,
            round: 1,
            kings: [None; 4],
            pieces: Default::default(),
        };
        read_placement(fields[0], &mut state.board, &mut problems);
        state = state.with_piece_sets();
        match fields[1] {
            "s" => state.turn = 0,
            "w" => state.turn = 1,
            "n" => state.turn = 2,
            "e" => state.turn = 3,
            other => problems.push(format!("seat {other:?} should be s, w, n or e")),
        }
        let status: Vec<Option<Status>> = fields[4].chars().map(Status::from_letter).collect();
        if status.len() == 4 && status.iter().all(Option::is_some) {
            for (i, s) in status.into_iter().enumerate() {
                state.status[i] = s.expect("checked");
            }
        } else {
            problems
                .push(format!("status {:?} should be four letters a, s, m or x (South, West, North, East)", fields[4]));
        }
        match read_counter(fields[5]) {
            Some(n) => state.halfmove = n,
            None => problems.push(format!("halfmove {:?} should be a number", fields[5])),
        }
        match read_counter(fields[6]) {
            Some(n) if n >= 1 => state.round = n,
            _ => problems.push(format!("round {:?} should be a number from 1", fields[6])),
        }
        read_castling(fields[2], &mut state.castling, &mut problems);
        read_ep(fields[3], &mut state.ep, &mut problems);
        if problems.is_empty() {
            state.check(rules, &mut problems);
        }
        if problems.is_empty() { Ok(state) } else { Err(problems) }
    }

    /// The consistency checks of a state whose fields could all be read.
    fn check(&mut self, rules: &Vierschach, problems: &mut Vec<String>) {
        let mut kings: [Vec<Square>; 4] = Default::default();
        let mut counts = [0usize; 4];
        for sq in SQUARES {
            let c = self.board[sq.cell()];
            if !is_piece(c) {
                continue;
            }
            let (seat, k) = (owner(c), kind(c));
            counts[seat] += 1;
            if k == Kind::King {
                kings[seat].push(sq);
            }
            if k == Kind::Pawn {
                let on = super::geometry::BACK_RANK_OF[sq.cell()] as usize;
                if on == seat {
                    problems.push(format!("{} pawn on {sq}, its own back rank", seat_name(seat)));
                } else if on < 4 && rules.promotes_on(seat, on) {
                    problems.push(format!(
                        "{} pawn on {sq} should have promoted ({}'s back rank)",
                        seat_name(seat),
                        seat_name(on)
                    ));
                }
            }
        }
        for seat in 0..4 {
            let name = seat_name(seat);
            match (self.status[seat], kings[seat].as_slice()) {
                (Status::Out, _) if counts[seat] > 0 => {
                    problems.push(format!("{name} is out (x) but has {} pieces on the board", counts[seat]));
                }
                (Status::Out, _) => {}
                (_, [k]) => self.kings[seat] = Some(*k),
                (_, []) => problems.push(format!("{name} has no king")),
                (_, many) => problems.push(format!(
                    "{name} has {} kings ({})",
                    many.len(),
                    many.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                )),
            }
            match (self.status[seat], rules.mated) {
                (Status::Mated, Mated::Remove) => {
                    problems.push(format!("{name} is mated (m), but with mated=remove a mated seat is out (x)"));
                }
                (Status::Out, Mated::Freeze) if rules.mode == Mode::Teams => {
                    problems.push(format!("{name} is out (x), but in teams mode with mated=freeze no seat goes out"));
                }
                _ => {}
            }
        }
        for (seat, side, rook) in castling_rooks() {
            if !self.castling_right(seat, side) {
                continue;
            }
            let king = SEATS[seat].king_start;
            if self.board[rook.cell()] != piece(seat, Kind::Rook) {
                problems.push(format!("castling right {rook}: no {} rook there", seat_name(seat)));
            } else if self.board[king.cell()] != piece(seat, Kind::King) {
                problems.push(format!("castling right {rook}: the {} king is not on {king}", seat_name(seat)));
            }
        }
        for (seat, entry) in self.ep.iter().enumerate() {
            let Some(skipped) = *entry else { continue };
            let g = &SEATS[seat];
            let pawn_sq = skipped.step(g.forward).expect("en-passant squares have a square beyond");
            if seat == self.turn {
                problems.push(format!("en passant {skipped}: {}'s entry expires when it is to move", seat_name(seat)));
            } else if self.status[seat] != Status::Active {
                problems.push(format!(
                    "en passant {skipped}: {} has status {}",
                    seat_name(seat),
                    self.status[seat].letter()
                ));
            }
            if self.board[skipped.cell()] != EMPTY {
                problems.push(format!("en passant {skipped}: the skipped square is occupied"));
            }
            if self.board[pawn_sq.cell()] != piece(seat, Kind::Pawn) {
                problems.push(format!("en passant {skipped}: no {} pawn on {pawn_sq}", seat_name(seat)));
            }
        }
        if !problems.is_empty() {
            return;
        }
        let ended = rules.end_by_status(&self.status).is_some();
        let to_move = self.status[self.turn];
        match (to_move, ended) {
            (Status::Active, true) => problems.push(format!(
                "status {}: the game has ended, so the seat field must name the seat whose examination ended it, not an active seat",
                self.status_text()
            )),
            (Status::Active, false) => {}
            (s, false) => problems.push(format!(
                "{} is to move with status {}, but the statuses {} do not end the game",
                seat_name(self.turn),
                s.letter(),
                self.status_text()
            )),
            (_, true) => {}
        }
        if rules.impossible_status(&self.status) {
            problems.push(format!("status {}: play cannot reach these statuses", self.status_text()));
        }
    }

    fn status_text(&self) -> String {
        self.status.iter().map(|s| s.letter()).collect()
    }
}

/// The seat's name in messages.
pub(crate) fn seat_name(seat: usize) -> &'static str {
    ["south", "west", "north", "east"][seat]
}

fn read_placement(text: &str, board: &mut [Cell; CELLS], problems: &mut Vec<String>) {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 14 {
        problems.push(format!("placement has {} ranks separated by '/', expected 14", ranks.len()));
        return;
    }
    for (i, rank_text) in ranks.iter().enumerate() {
        let y = 13 - i as u8;
        let squares: Vec<Square> = (0..14).filter_map(|x| Square::new(x, y)).collect();
        let rank = y + 1;
        match read_row(rank_text, &SEAT_LETTERS, 14, "squares") {
            Err(why) => problems.push(format!("rank {rank} ({rank_text:?}): {why}")),
            Ok(contents) if contents.len() != squares.len() => problems.push(format!(
                "rank {rank} ({rank_text:?}) covers {} squares, it has {}",
                contents.len(),
                squares.len()
            )),
            Ok(contents) => {
                for (sq, c) in squares.iter().zip(contents) {
                    board[sq.cell()] = c;
                }
            }
        }
    }
}

fn read_castling(text: &str, castling: &mut u8, problems: &mut Vec<String>) {
    if text == "-" {
        return;
    }
    let rooks: Vec<(usize, usize, Square)> = castling_rooks().collect();
    let mut last: Option<Square> = None;
    for name in text.split(',') {
        let found = Square::parse(name).and_then(|sq| rooks.iter().find(|r| r.2 == sq));
        match found {
            None => {
                problems
                    .push(format!("castling {name:?} is not a rook start square (d1, k1, a4, n4, a11, n11, d14, k14)"));
                return;
            }
            Some(&(seat, side, sq)) => {
                if last.is_some_and(|l| l >= sq) {
                    problems.push(format!("castling {text:?}: squares must be listed once each, in square order"));
                    return;
                }
                last = Some(sq);
                *castling |= 1 << (2 * seat + side);
            }
        }
    }
}

/// The seat whose pawns skip `sq` on a double step, if any.
fn ep_seat(sq: Square) -> Option<usize> {
    (0..4).find(|&seat| {
        let g = &SEATS[seat];
        g.start_line.iter().any(|s| s.step(g.forward) == Some(sq))
    })
}

fn read_ep(text: &str, ep: &mut [Option<Square>; 4], problems: &mut Vec<String>) {
    if text == "-" {
        return;
    }
    let mut last: Option<Square> = None;
    for name in text.split(',') {
        let Some(sq) = Square::parse(name) else {
            problems.push(format!("en passant {name:?} is not a square"));
            return;
        };
        let Some(seat) = ep_seat(sq) else {
            problems.push(format!("en passant {name}: no pawn skips that square on a double step"));
            return;
        };
        if last.is_some_and(|l| l >= sq) {
            problems.push(format!("en passant {text:?}: squares must be listed once each, in square order"));
            return;
        }
        if ep[seat].is_some() {
            problems.push(format!("en passant {text:?}: two entries of {}", seat_name(seat)));
            return;
        }
        last = Some(sq);
        ep[seat] = Some(sq);
    }
}

impl fmt::Display for VsState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::with_capacity(200);
        for y in (0..14u8).rev() {
            write_row(
                &mut out,
                (0..14u8).filter_map(|x| Square::new(x, y)).map(|sq| self.board[sq.cell()]),
                &SEAT_LETTERS,
            );
            if y > 0 {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(SEAT_LETTERS[self.turn]);
        out.push(' ');
        let rights: Vec<String> = castling_rooks()
            .filter(|&(seat, side, _)| self.castling_right(seat, side))
            .map(|(_, _, s)| s.to_string())
            .collect();
        out.push_str(&if rights.is_empty() { "-".to_owned() } else { rights.join(",") });
        out.push(' ');
        let mut ep: Vec<Square> = self.ep.iter().flatten().copied().collect();
        ep.sort();
        let ep: Vec<String> = ep.iter().map(ToString::to_string).collect();
        out.push_str(&if ep.is_empty() { "-".to_owned() } else { ep.join(",") });
        out.push(' ');
        out.push_str(&self.status_text());
        write!(f, "{out} {} {}", self.halfmove, self.round)
    }
}

impl fmt::Debug for VsState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VsState({self})")
    }
}
