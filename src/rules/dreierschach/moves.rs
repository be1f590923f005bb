//! Moves, attacks and legality (`docs/rules/dreierschach.md` §2, §4–6).
//!
//! Moves are generated per piece as the rules file describes them: sliders and
//! the king step through empty cells, every diagonal step (of a bishop, a queen,
//! a king or a pawn's capture) obeys the passage rule, the knight jumps. A move is
//! legal when it captures no king and the mover's king is not attacked by either
//! opponent afterwards (§6). Most moves are judged from what is found once per
//! position — whether the king is in check, and which of the mover's pieces stand
//! where leaving would open an attack on it — and the rest are played on a copy
//! of the board ([`Legality`]).

use std::ops::ControlFlow;

use crate::rules::cell_path::CellMove;

use super::EnPassant;
use super::geometry::{
    BASELINE_OF, CASTLING_ROOKS, DIAGONAL, FLANKS, Hex, HexSet, KNIGHT, MAILBOX, SEATS, START_LINE_OF, STRAIGHT,
};
use super::state::{Content, DoubleStep, DsState, EMPTY, Kind, OFF, is_piece, kind, next_seat, owner, piece};

/// What kind of move a [`DsMove`] is, beyond its cells.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MoveKind {
    /// A step, slide, jump or capture.
    Normal,
    /// A pawn's two steps from its start line (gives an en-passant right).
    DoubleStep,
    /// An en-passant capture.
    EnPassant,
    /// `0-0` (0) or `0-0-0` (1), written as the king's move.
    Castle(u8),
}

/// A Dreierschach move. `Display` is the canonical form of §8: `<from>-<to>` in
/// V2.2 names, then `=Q`, `=R`, `=B` or `=N` for a promotion; castling as the
/// king's move.
///
/// Moves order by their canonical text, byte by byte (§8).
pub type DsMove = CellMove<Hex, MoveKind>;

/// Sorts moves in their order (by canonical text).
pub(crate) use crate::rules::cell_path::sort;

/// The two opponents of `seat` as a bit set of seats.
pub(crate) const fn opponents(seat: usize) -> u8 {
    0b111 & !(1 << seat)
}

/// Whether a diagonal step from mailbox cell `p` along D_`d` may pass: at least
/// one of the two cells it passes between is empty (§2, the passage rule).
#[inline(always)]
fn passable(board: &[Content; MAILBOX], p: i16, d: usize) -> bool {
    let (a, b) = FLANKS[d];
    board[(p + a) as usize] == EMPTY || board[(p + b) as usize] == EMPTY
}

/// Whether a piece of a seat in `by` attacks `target` (§6): could capture there,
/// were an enemy piece on it — pinned or not.
pub(crate) fn attacked(board: &[Content; MAILBOX], target: Hex, by: u8) -> bool {
    let t = target.cell() as i16;
    let ours = |c: Content| is_piece(c) && by & (1 << owner(c)) != 0;
    for d in KNIGHT {
        let c = board[(t + d) as usize];
        if ours(c) && kind(c) == Kind::Knight {
            return true;
        }
    }
    for d in STRAIGHT {
        let mut s = t + d;
        let mut first = true;
        while board[s as usize] == EMPTY {
            s += d;
            first = false;
        }
        let c = board[s as usize];
        if ours(c) {
            let k = kind(c);
            if k == Kind::Rook || k == Kind::Queen || (first && k == Kind::King) {
                return true;
            }
        }
    }
    for (d, step) in DIAGONAL.into_iter().enumerate() {
        let mut p = t;
        let mut first = true;
        loop {
            let next = p + step;
            let c = board[next as usize];
            if c == OFF || !passable(board, p, d) {
                break;
            }
            if c == EMPTY {
                p = next;
                first = false;
                continue;
            }
            if ours(c) {
                let k = kind(c);
                // A pawn on `next` captures back along D_(d+3) onto `target`.
                let pawn = k == Kind::Pawn && SEATS[owner(c)].pawn_captures.contains(&((d + 3) % 6));
                if k == Kind::Bishop || k == Kind::Queen || (first && (k == Kind::King || pawn)) {
                    return true;
                }
            }
            break;
        }
    }
    false
}

/// Whether `seat`'s king is attacked by either opponent.
pub(crate) fn in_check(state: &DsState, seat: usize) -> bool {
    attacked(&state.board, state.kings[seat], opponents(seat))
}

/// The opponent of `seat` whose live en-passant entry skipped `hex`.
fn ep_victim(state: &DsState, seat: usize, hex: Hex) -> Option<usize> {
    (0..3).find(|&e| e != seat && state.ep[e].is_some_and(|s| s.over == hex))
}

/// The cells a move of `seat` changes, in order, with what stands on each
/// afterwards: the cell left, then (castling) the rook's two cells or (en
/// passant) the taken pawn's cell, then the cell arrived on.
pub(crate) fn changes(state: &DsState, seat: usize, mv: DsMove) -> [Option<(Hex, Content)>; 4] {
    let moving = state.board[mv.from.cell()];
    let left = Some((mv.from, EMPTY));
    match mv.kind {
        MoveKind::Castle(side) => {
            let c = SEATS[seat].castlings[usize::from(side)];
            [left, Some((c.rook_from, EMPTY)), Some((c.rook_to, piece(seat, Kind::Rook))), Some((c.king_to, moving))]
        }
        MoveKind::EnPassant => {
            let victim = ep_victim(state, seat, mv.to).expect("an en-passant move has its entry");
            let pawn = state.ep[victim].expect("the entry").to;
            [left, Some((pawn, EMPTY)), Some((mv.to, moving)), None]
        }
        _ => [left, Some((mv.to, mv.promotion.map_or(moving, |k| piece(seat, k)))), None, None],
    }
}

/// The cell whose pawn an en-passant move of `seat` takes.
pub(crate) fn en_passant_victim(state: &DsState, seat: usize, mv: DsMove) -> Option<Hex> {
    if mv.kind != MoveKind::EnPassant {
        return None;
    }
    state.ep[ep_victim(state, seat, mv.to)?].map(|s| s.to)
}

/// Generates every move of `seat` that follows §4–5, before the check rule of
/// §6, handing each to `emit`; generation stops when `emit` breaks. With `only`,
/// just the moves of the piece on that cell.
///
/// Moves go to a callback rather than into a list so that counting the legal
/// moves (perft's leaves) and asking whether there is one build no list.
fn pseudo_moves(
    state: &DsState,
    seat: usize,
    only: Option<Hex>,
    emit: &mut impl FnMut(DsMove) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let board = &state.board;
    let capturable = |c: Content| is_piece(c) && owner(c) != seat && kind(c) != Kind::King;
    let mut piece_moves = |from: Hex| {
        let c = board[from.cell()];
        if !is_piece(c) || owner(c) != seat {
            return ControlFlow::Continue(());
        }
        let f = from.cell() as i16;
        let normal =
            |to: i16| DsMove { from, to: Hex::from_cell(to as usize), promotion: None, kind: MoveKind::Normal };
        let k = kind(c);
        match k {
            Kind::Pawn => pawn_moves(state, seat, from, emit)?,
            Kind::Knight => {
                for d in KNIGHT {
                    let t = board[(f + d) as usize];
                    if t == EMPTY || capturable(t) {
                        emit(normal(f + d))?;
                    }
                }
            }
            _ => {
                let slides = k != Kind::King;
                if k != Kind::Bishop {
                    for d in STRAIGHT {
                        let mut s = f + d;
                        while board[s as usize] == EMPTY {
                            emit(normal(s))?;
                            if !slides {
                                break;
                            }
                            s += d;
                        }
                        if (slides || s == f + d) && capturable(board[s as usize]) {
                            emit(normal(s))?;
                        }
                    }
                }
                if k != Kind::Rook {
                    for (d, step) in DIAGONAL.into_iter().enumerate() {
                        let mut p = f;
                        loop {
                            let next = p + step;
                            let t = board[next as usize];
                            if t == OFF || !passable(board, p, d) {
                                break;
                            }
                            if t == EMPTY {
                                emit(normal(next))?;
                                if slides {
                                    p = next;
                                    continue;
                                }
                            } else if capturable(t) {
                                emit(normal(next))?;
                            }
                            break;
                        }
                    }
                }
            }
        }
        ControlFlow::Continue(())
    };
    match only {
        Some(from) => piece_moves(from)?,
        None => {
            for from in state.pieces[seat].iter() {
                piece_moves(from)?;
            }
        }
    }
    // Castling (§5): the right, empty cells between, and neither the king's
    // cell nor a cell between attacked.
    let g = &SEATS[seat];
    for side in 0..2 {
        if !state.castling_right(seat, side) || only.is_some_and(|o| o != g.king_start) {
            continue;
        }
        let c = &g.castlings[side];
        if c.between.iter().flatten().any(|h| board[h.cell()] != EMPTY) {
            continue;
        }
        let enemies = opponents(seat);
        if std::iter::once(c.king_from).chain(c.between.iter().flatten().copied()).any(|h| attacked(board, h, enemies))
        {
            continue;
        }
        emit(DsMove { from: c.king_from, to: c.king_to, promotion: None, kind: MoveKind::Castle(side as u8) })?;
    }
    ControlFlow::Continue(())
}

fn pawn_moves(
    state: &DsState,
    seat: usize,
    from: Hex,
    emit: &mut impl FnMut(DsMove) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let board = &state.board;
    let g = &SEATS[seat];
    let f = from.cell() as i16;
    let mut push = |to: i16, kind: MoveKind| {
        let to = Hex::from_cell(to as usize);
        let on = BASELINE_OF[to.cell()] as usize;
        if on < 3 && on != seat {
            for k in Kind::PROMOTIONS {
                emit(DsMove { from, to, promotion: Some(k), kind })?;
            }
            ControlFlow::Continue(())
        } else {
            emit(DsMove { from, to, promotion: None, kind })
        }
    };
    let unmoved = START_LINE_OF[from.cell()] & (1 << seat) != 0;
    for d in g.pawn_steps {
        let one = f + STRAIGHT[d];
        if board[one as usize] == EMPTY {
            push(one, MoveKind::Normal)?;
            let two = one + STRAIGHT[d];
            if unmoved && board[two as usize] == EMPTY {
                push(two, MoveKind::DoubleStep)?;
            }
        }
    }
    for d in g.pawn_captures {
        let t = f + DIAGONAL[d];
        let c = board[t as usize];
        if c == OFF || !passable(board, f, d) {
            continue;
        }
        if is_piece(c) {
            if owner(c) != seat && kind(c) != Kind::King {
                push(t, MoveKind::Normal)?;
            }
        } else if ep_victim(state, seat, Hex::from_cell(t as usize)).is_some() {
            push(t, MoveKind::EnPassant)?;
        }
    }
    ControlFlow::Continue(())
}

/// The pieces of `seat` that stand where leaving would open an attack on its
/// king on `king` by a piece of a seat in `enemies`: the sole piece between the
/// king and an enemy rook or queen on a straight line, and the piece (or either
/// of two) that alone shuts a diagonal line to an enemy bishop or queen — by
/// standing on it or, with the cell beside it, by closing a passage — or the
/// passage to an enemy king or pawn diagonally next to the king.
fn openers(board: &[Content; MAILBOX], king: Hex, seat: usize, enemies: u8) -> HexSet {
    let mut out = HexSet::default();
    let k = king.cell() as i16;
    let own = |c: Content| is_piece(c) && owner(c) == seat;
    let enemy = |c: Content| is_piece(c) && enemies & (1 << owner(c)) != 0;
    for d in STRAIGHT {
        let mut s = k + d;
        while board[s as usize] == EMPTY {
            s += d;
        }
        if !own(board[s as usize]) {
            continue;
        }
        let blocker = s;
        s += d;
        while board[s as usize] == EMPTY {
            s += d;
        }
        let c = board[s as usize];
        if enemy(c) && matches!(kind(c), Kind::Rook | Kind::Queen) {
            out.insert(Hex::from_cell(blocker as usize));
        }
    }
    for (d, step) in DIAGONAL.into_iter().enumerate() {
        let (fa, fb) = FLANKS[d];
        let mut p = k;
        let mut first = true;
        // The own pieces of the one obstruction met so far.
        let mut shut: Option<[Option<i16>; 2]> = None;
        loop {
            let next = p + step;
            let c = board[next as usize];
            if c == OFF {
                break;
            }
            let (a, b) = (board[(p + fa) as usize], board[(p + fb) as usize]);
            if a != EMPTY && b != EMPTY {
                if shut.is_some() || !(own(a) || own(b)) {
                    break;
                }
                shut = Some([own(a).then_some(p + fa), own(b).then_some(p + fb)]);
            }
            if c == EMPTY {
                p = next;
                first = false;
                continue;
            }
            if own(c) {
                if shut.is_some() {
                    break;
                }
                shut = Some([Some(next), None]);
                p = next;
                first = false;
                continue;
            }
            if let Some(cells) = shut
                && enemy(c)
            {
                let kc = kind(c);
                let pawn = kc == Kind::Pawn && SEATS[owner(c)].pawn_captures.contains(&((d + 3) % 6));
                if kc == Kind::Bishop || kc == Kind::Queen || (first && (kc == Kind::King || pawn)) {
                    for cell in cells.into_iter().flatten() {
                        out.insert(Hex::from_cell(cell as usize));
                    }
                }
            }
            break;
        }
    }
    out
}

/// The check rule of §6 for the moves of one seat in one position.
///
/// A move of a piece other than the king, out of check, can leave the king
/// attacked only by opening a line to it where the piece stood: its arrival only
/// shuts lines, and a capture leaves its cell filled. So such a move is legal
/// unless its piece is one of the [`openers`]. Everything else — king moves,
/// castling, en passant (which empties a second cell), any move in check, an
/// opener's move (which may stay on its line) — is played on a copy of the board.
struct Legality {
    enemies: u8,
    king: Hex,
    in_check: bool,
    /// The king's cell and the openers'.
    careful: HexSet,
}

impl Legality {
    fn new(state: &DsState, seat: usize) -> Legality {
        let enemies = opponents(seat);
        let king = state.kings[seat];
        let in_check = attacked(&state.board, king, enemies);
        let mut careful = if in_check { HexSet::default() } else { openers(&state.board, king, seat, enemies) };
        careful.insert(king);
        Legality { enemies, king, in_check, careful }
    }

    /// Only what [`Legality::allows_in_full`] needs: the king and its enemies
    /// (no check test, no openers), for testing one move or a few.
    fn bare(state: &DsState, seat: usize) -> Legality {
        Legality { enemies: opponents(seat), king: state.kings[seat], in_check: false, careful: HexSet::default() }
    }

    /// Whether `mv`, a move that follows §4–5, keeps the check rule of §6.
    #[inline]
    fn allows(&self, state: &DsState, seat: usize, mv: DsMove) -> bool {
        let plain = matches!(mv.kind, MoveKind::Normal | MoveKind::DoubleStep);
        (plain && !self.in_check && !self.careful.contains(mv.from)) || self.allows_in_full(state, seat, mv)
    }

    /// Plays `mv` on a copy of the board and looks for an attack on the king.
    fn allows_in_full(&self, state: &DsState, seat: usize, mv: DsMove) -> bool {
        let mut board = state.board;
        for (hex, content) in changes(state, seat, mv).into_iter().flatten() {
            board[hex.cell()] = content;
        }
        // A castling move's `to` is the king's cell too.
        let king = if mv.from == self.king { mv.to } else { self.king };
        !attacked(&board, king, self.enemies)
    }
}

/// Hands each legal move of `seat` in `state` to `emit`, in generation order,
/// until `emit` breaks.
fn legal(state: &DsState, seat: usize, mut emit: impl FnMut(DsMove) -> ControlFlow<()>) -> ControlFlow<()> {
    let legality = Legality::new(state, seat);
    pseudo_moves(state, seat, None, &mut |mv| {
        if legality.allows(state, seat, mv) { emit(mv) } else { ControlFlow::Continue(()) }
    })
}

/// The legal moves of `seat` in `state`, in generation order (unsorted).
pub(crate) fn legal_moves(state: &DsState, seat: usize) -> Vec<DsMove> {
    let mut moves = Vec::with_capacity(64);
    let _ = legal(state, seat, |mv| {
        moves.push(mv);
        ControlFlow::Continue(())
    });
    moves
}

/// How many legal moves `seat` has in `state` (no list is built).
pub(crate) fn count_legal_moves(state: &DsState, seat: usize) -> usize {
    let mut n = 0;
    let _ = legal(state, seat, |_| {
        n += 1;
        ControlFlow::Continue(())
    });
    n
}

/// Whether `seat` has a legal move (stops at the first).
pub(crate) fn has_legal_move(state: &DsState, seat: usize) -> bool {
    legal(state, seat, |_| ControlFlow::Break(())).is_break()
}

/// The moves of `seat` that follow §4–5 but would leave its king attacked
/// (§6): for refusals only.
pub(crate) fn refused_moves(state: &DsState, seat: usize) -> Vec<DsMove> {
    let legality = Legality::bare(state, seat);
    let mut moves = Vec::new();
    let _ = pseudo_moves(state, seat, None, &mut |mv| {
        if !legality.allows_in_full(state, seat, mv) {
            moves.push(mv);
        }
        ControlFlow::Continue(())
    });
    moves
}

/// Whether `mv` is a legal move of `seat` (only its piece's moves are generated).
pub(crate) fn is_legal(state: &DsState, seat: usize, mv: DsMove) -> bool {
    let c = state.board[mv.from.cell()];
    if !is_piece(c) || owner(c) != seat {
        return false;
    }
    let generated = pseudo_moves(state, seat, Some(mv.from), &mut |m| {
        if m == mv { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    });
    generated.is_break() && Legality::bare(state, seat).allows_in_full(state, seat, mv)
}

/// Plays the legal move `mv` of the seat to move and passes the turn to the
/// next seat (§3): castling rights (§5), the counters and the en-passant
/// entries under the rule `rule` (§4, §9).
pub(crate) fn play(state: &DsState, mv: DsMove, rule: EnPassant) -> DsState {
    let seat = state.turn;
    let mut next = state.clone();
    let moving = state.board[mv.from.cell()];
    let capture = is_piece(state.board[mv.to.cell()]) || mv.kind == MoveKind::EnPassant;
    for (hex, content) in changes(state, seat, mv).into_iter().flatten() {
        next.put(hex, content);
    }
    if kind(moving) == Kind::King {
        next.kings[seat] = mv.to;
        next.castling &= !(0b11 << (2 * seat));
    }
    for (s, side, rook) in CASTLING_ROOKS {
        if rook == mv.from || rook == mv.to {
            next.castling &= !(1 << (2 * s + side));
        }
    }
    next.halfmove = if capture || kind(moving) == Kind::Pawn { 0 } else { state.halfmove + 1 };
    if seat == 2 {
        next.round += 1;
    }
    let to_move = next_seat(seat);
    match rule {
        // An entry lives until its seat is to move again …
        EnPassant::Round => next.ep[to_move] = None,
        // … or only for the next seat's move.
        EnPassant::Next => next.ep = [None; 3],
    }
    if mv.kind == MoveKind::DoubleStep {
        let over = Hex::from_cell((mv.from.cell() + mv.to.cell()) / 2);
        next.ep[seat] = Some(DoubleStep { from: mv.from, over, to: mv.to });
    }
    // Dropped earlier when the pawn has left or the skipped cell is filled (§9).
    for (s, entry) in next.ep.iter_mut().enumerate() {
        if entry.is_some_and(|e| next.board[e.over.cell()] != EMPTY || next.board[e.to.cell()] != piece(s, Kind::Pawn))
        {
            *entry = None;
        }
    }
    next.turn = to_move;
    next
}
