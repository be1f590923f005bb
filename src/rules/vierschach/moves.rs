//! Moves, attacks and legality (`rules/vierschach.md` §2, §4–6).
//!
//! Moves are generated per piece as the rules file describes them (sliders stop
//! before a missing square, knights jump over them). A move is kept when the
//! mover's king is not attacked by an active enemy piece afterwards and, in teams
//! mode with `mated = freeze`, no more active enemy pieces attack the partner's
//! king than before (§6). Most moves are judged from the check and the pins found
//! once per position; the rest are tried on a copy of the board ([`Legality`]).

use std::cmp::Ordering;
use std::fmt;
use std::ops::ControlFlow;

use super::Vierschach;
use super::geometry::{
    BACK_RANK_OF, CELLS, DIAGONAL, KING_STEPS, KNIGHT_JUMPS, ORTHOGONAL, SEATS, START_LINE_OF, Square, SquareSet,
};
use super::state::{Cell, EMPTY, Kind, OFF, VsState, is_piece, kind, owner, piece};

/// What kind of move a [`VsMove`] is, beyond its squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MoveKind {
    /// A step, slide, jump or capture.
    Normal,
    /// A pawn's two-square step from its start line (gives an en-passant right).
    DoubleStep,
    /// A pawn's jump over its partner's pawn (§4, `pawn_jump`).
    Jump,
    /// An en-passant capture.
    EnPassant,
    /// `O-O` (0) or `O-O-O` (1), written as the king's move.
    Castle(u8),
}

/// A Vierschach move. `Display` is the canonical form of §9: `<from>-<to>`, then
/// `=Q`, `=R`, `=B` or `=N` for a promotion; castling as the king's move.
///
/// Moves order by their canonical text, byte by byte (§9).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct VsMove {
    pub(crate) from: Square,
    pub(crate) to: Square,
    pub(crate) promotion: Option<Kind>,
    pub(crate) kind: MoveKind,
}

impl VsMove {
    /// The square the piece leaves (the king's, for castling).
    pub fn from(self) -> Square {
        self.from
    }

    /// The square the piece goes to (the king's, for castling).
    pub fn to(self) -> Square {
        self.to
    }

    /// The piece a pawn becomes.
    pub fn promotion(self) -> Option<Kind> {
        self.promotion
    }

    /// What kind of move it is.
    pub fn kind(self) -> MoveKind {
        self.kind
    }

    /// The canonical text as bytes, zero-padded: byte order of the padded arrays is
    /// byte order of the texts.
    fn key(self) -> [u8; 10] {
        let mut out = [0u8; 10];
        let mut at = self.from.write_name(&mut out, 0);
        out[at] = b'-';
        at = self.to.write_name(&mut out, at + 1);
        if let Some(k) = self.promotion {
            out[at] = b'=';
            out[at + 1] = k.letter() as u8;
        }
        out
    }
}

impl PartialOrd for VsMove {
    fn partial_cmp(&self, other: &VsMove) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for VsMove {
    fn cmp(&self, other: &VsMove) -> Ordering {
        self.key().cmp(&other.key()).then(self.kind.cmp(&other.kind))
    }
}

impl fmt::Display for VsMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)?;
        if let Some(k) = self.promotion {
            write!(f, "={}", k.letter())?;
        }
        Ok(())
    }
}

/// Sorts moves in their order (by canonical text, §9), writing each text key once
/// rather than twice per comparison.
pub(crate) fn sort(moves: &mut [VsMove]) {
    moves.sort_by_cached_key(|m| (m.key(), m.kind));
}

/// The seats whose pieces are active enemies of `seat` (§3, §6), as a bit set.
pub(crate) fn active_enemies(rules: &Vierschach, state: &VsState, seat: usize) -> u8 {
    (0..4).filter(|&e| rules.is_enemy(seat, e) && !state.status[e].is_down()).fold(0, |m, e| m | 1 << e)
}

/// The seats whose pieces `seat` may capture (§4): active enemies, and the
/// partner's active pieces with `partner_capture`.
fn capturable_seats(rules: &Vierschach, state: &VsState, seat: usize) -> u8 {
    let mut mask = active_enemies(rules, state, seat);
    if rules.partner_capture
        && let Some(p) = rules.partner(seat)
        && !state.status[p].is_down()
    {
        mask |= 1 << p;
    }
    mask
}

/// How many pieces of the seats in `mask` attack `target` (§6: could capture there,
/// pinned or not), counting up to `limit`.
pub(crate) fn attackers(board: &[Cell; CELLS], target: Square, mask: u8, limit: u32) -> u32 {
    let t = target.cell() as i16;
    let ours = |c: Cell| is_piece(c) && mask & (1 << owner(c)) != 0;
    let mut n = 0;
    for d in KNIGHT_JUMPS {
        let c = board[(t + d) as usize];
        if ours(c) && kind(c) == Kind::Knight {
            n += 1;
            if n >= limit {
                return n;
            }
        }
    }
    for (dirs, slider) in [(ORTHOGONAL.as_slice(), Kind::Rook), (DIAGONAL.as_slice(), Kind::Bishop)] {
        for &d in dirs {
            let mut s = t + d;
            let mut first = true;
            while board[s as usize] == EMPTY {
                s += d;
                first = false;
            }
            let c = board[s as usize];
            if ours(c) {
                let k = kind(c);
                if k == slider || k == Kind::Queen || (first && k == Kind::King) {
                    n += 1;
                    if n >= limit {
                        return n;
                    }
                }
            }
        }
    }
    for (e, g) in SEATS.iter().enumerate() {
        if mask & (1 << e) == 0 {
            continue;
        }
        for cap in g.captures {
            if board[(t - cap.offset()) as usize] == piece(e, Kind::Pawn) {
                n += 1;
                if n >= limit {
                    return n;
                }
            }
        }
    }
    n
}

/// Whether `seat`'s king is attacked by an active enemy piece.
pub(crate) fn in_check(rules: &Vierschach, state: &VsState, seat: usize) -> bool {
    state.kings[seat].is_some_and(|k| attackers(&state.board, k, active_enemies(rules, state, seat), 1) > 0)
}

/// The seat whose live en-passant entry skipped `square`.
pub(crate) fn ep_owner(state: &VsState, square: Square) -> Option<usize> {
    state.ep.iter().position(|e| *e == Some(square))
}

/// The squares a move of `seat` changes, in order, with what stands on each
/// afterwards: the square left, then (castling) the rook's two squares or (en
/// passant) the taken pawn's square, then the square arrived on.
pub(crate) fn changes(state: &VsState, seat: usize, mv: VsMove) -> [Option<(Square, Cell)>; 4] {
    let moving = state.board[mv.from.cell()];
    let left = Some((mv.from, EMPTY));
    match mv.kind {
        MoveKind::Castle(side) => {
            let c = SEATS[seat].castlings[side as usize];
            [left, Some((c.rook_from, EMPTY)), Some((c.rook_to, piece(seat, Kind::Rook))), Some((c.king_to, moving))]
        }
        MoveKind::EnPassant => {
            let victim = ep_owner(state, mv.to).expect("an en-passant move has its entry");
            let pawn = mv.to.step(SEATS[victim].forward).expect("the double-stepper's square");
            [left, Some((pawn, EMPTY)), Some((mv.to, moving)), None]
        }
        _ => [left, Some((mv.to, mv.promotion.map_or(moving, |k| piece(seat, k)))), None, None],
    }
}

/// Plays `mv` of `seat` on `board`, a copy of `state`'s (pieces only).
pub(crate) fn apply_to_board(board: &mut [Cell; CELLS], state: &VsState, seat: usize, mv: VsMove) {
    for (square, content) in changes(state, seat, mv).into_iter().flatten() {
        board[square.cell()] = content;
    }
}

/// Generates every move of `seat` that follows §4–5, before the check rules of §6,
/// handing each to `emit`; generation stops when `emit` breaks. With `only`, just
/// the moves of the piece on that square.
///
/// Moves go to a callback rather than into a list so that counting the legal
/// moves (perft's leaves) and asking whether there is one (every turn) build no
/// list, and the latter stops at the first legal move.
fn pseudo_moves(
    rules: &Vierschach,
    state: &VsState,
    seat: usize,
    only: Option<Square>,
    emit: &mut impl FnMut(VsMove) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let board = &state.board;
    let takes = capturable_seats(rules, state, seat);
    let capturable = |c: Cell| is_piece(c) && takes & (1 << owner(c)) != 0 && kind(c) != Kind::King;
    let g = &SEATS[seat];
    let mut piece_moves = |from: Square| {
        let c = board[from.cell()];
        if !is_piece(c) || owner(c) != seat {
            return ControlFlow::Continue(());
        }
        let f = from.cell() as i16;
        let normal =
            |to: i16| VsMove { from, to: Square::from_cell(to as usize), promotion: None, kind: MoveKind::Normal };
        match kind(c) {
            Kind::Pawn => pawn_moves(rules, state, seat, from, takes, emit)?,
            Kind::Knight | Kind::King => {
                let steps = if kind(c) == Kind::Knight { &KNIGHT_JUMPS } else { &KING_STEPS };
                for &d in steps {
                    let t = board[(f + d) as usize];
                    if t == EMPTY || capturable(t) {
                        emit(normal(f + d))?;
                    }
                }
            }
            k => {
                let dirs: &[i16] = match k {
                    Kind::Rook => &ORTHOGONAL,
                    Kind::Bishop => &DIAGONAL,
                    _ => &KING_STEPS,
                };
                for &d in dirs {
                    let mut s = f + d;
                    while board[s as usize] == EMPTY {
                        emit(normal(s))?;
                        s += d;
                    }
                    if capturable(board[s as usize]) {
                        emit(normal(s))?;
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
    // Castling (§5): rights, empty squares, and no attacked square for the king.
    for side in 0..2 {
        if !state.castling_right(seat, side) || only.is_some_and(|o| o != g.king_start) {
            continue;
        }
        let c = &g.castlings[side];
        if c.empty.iter().flatten().any(|s| board[s.cell()] != EMPTY) {
            continue;
        }
        let enemies = active_enemies(rules, state, seat);
        if [c.king_from, c.king_path[0], c.king_path[1]].iter().any(|&s| attackers(board, s, enemies, 1) > 0) {
            continue;
        }
        emit(VsMove { from: c.king_from, to: c.king_to, promotion: None, kind: MoveKind::Castle(side as u8) })?;
    }
    ControlFlow::Continue(())
}

fn pawn_moves(
    rules: &Vierschach,
    state: &VsState,
    seat: usize,
    from: Square,
    takes: u8,
    emit: &mut impl FnMut(VsMove) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let board = &state.board;
    let g = &SEATS[seat];
    let f = from.cell() as i16;
    let fwd = g.forward.offset();
    let mut push = |to: i16, kind: MoveKind| {
        let to = Square::from_cell(to as usize);
        let on = BACK_RANK_OF[to.cell()] as usize;
        if on < 4 && rules.promotes_on(seat, on) {
            for k in Kind::PROMOTIONS {
                emit(VsMove { from, to, promotion: Some(k), kind })?;
            }
            ControlFlow::Continue(())
        } else {
            emit(VsMove { from, to, promotion: None, kind })
        }
    };
    let one = board[(f + fwd) as usize];
    let two = (f + 2 * fwd) as usize;
    if one == EMPTY {
        push(f + fwd, MoveKind::Normal)?;
        if START_LINE_OF[from.cell()] & (1 << seat) != 0 && board[two] == EMPTY {
            push(f + 2 * fwd, MoveKind::DoubleStep)?;
        }
    } else if rules.pawn_jump
        && let Some(p) = rules.partner(seat)
        && one == piece(p, Kind::Pawn)
        && two < CELLS
        && board[two] == EMPTY
    {
        push(f + 2 * fwd, MoveKind::Jump)?;
    }
    for cap in g.captures {
        let t = f + cap.offset();
        let c = board[t as usize];
        if c == OFF {
            continue;
        }
        if is_piece(c) {
            if takes & (1 << owner(c)) != 0 && kind(c) != Kind::King {
                push(t, MoveKind::Normal)?;
            }
        } else if let Some(victim) = ep_owner(state, Square::from_cell(t as usize))
            && rules.is_enemy(seat, victim)
        {
            push(t, MoveKind::EnPassant)?;
        }
    }
    ControlFlow::Continue(())
}

/// The pieces of `seat` that stand alone on a line between the king on `king` and
/// an active enemy rook, bishop or queen (a seat in `enemies`): moving such a piece
/// off that line opens it.
fn pinned(board: &[Cell; CELLS], king: Square, seat: usize, enemies: u8) -> SquareSet {
    let mut pins = SquareSet::default();
    let k = king.cell() as i16;
    for (dirs, slider) in [(&ORTHOGONAL, Kind::Rook), (&DIAGONAL, Kind::Bishop)] {
        for &d in dirs {
            let mut s = k + d;
            while board[s as usize] == EMPTY {
                s += d;
            }
            let c = board[s as usize];
            if !is_piece(c) || owner(c) != seat {
                continue;
            }
            let blocker = s;
            s += d;
            while board[s as usize] == EMPTY {
                s += d;
            }
            let c = board[s as usize];
            if is_piece(c) && enemies & (1 << owner(c)) != 0 && (kind(c) == slider || kind(c) == Kind::Queen) {
                pins.insert(Square::from_cell(blocker as usize));
            }
        }
    }
    pins
}

/// Whether `a` and `b` share a rank, a file or a diagonal: only then can a piece
/// leaving `a` open a line to `b`.
fn aligned(a: Square, b: Square) -> bool {
    let ((ax, ay), (bx, by)) = (a.file_rank(), b.file_rank());
    let (dx, dy) = (ax.abs_diff(bx), ay.abs_diff(by));
    dx == 0 || dy == 0 || dx == dy
}

/// Whether `c` lies on the line through `a` and `b` (which differ).
fn collinear(a: Square, b: Square, c: Square) -> bool {
    let ((ax, ay), (bx, by), (cx, cy)) = (a.file_rank(), b.file_rank(), c.file_rank());
    let (bx, by, cx, cy) = (i16::from(bx - ax), i16::from(by - ay), i16::from(cx - ax), i16::from(cy - ay));
    bx * cy == by * cx
}

/// Tests the check rules of §6 for moves of one seat in one position.
///
/// Most moves are judged from what is found once per position: whether the king
/// is in check and which pieces are pinned to it or to the partner's king. A move
/// of a piece other than the king, when the king is not in check, can break rule
/// 1 only by opening a line to the king (the square it leaves), and can add an
/// attack on the partner's king (rule 2) only the same way: its arrival blocks
/// lines, its capture removes an attacker or leaves a blocker in place. So such a
/// move is legal unless it moves a pinned piece off its line. Everything else —
/// king moves, castling, en passant (which empties a second square), a move in
/// check, a partner-pinned piece leaving its line (which may still block or take
/// another attacker) — is played on a copy of the board and tested in full.
struct Legality {
    enemies: u8,
    king: Option<Square>,
    in_check: bool,
    /// Pieces pinned to the own king.
    pins: SquareSet,
    /// The partner's king, when rule 2 applies.
    partner: Option<Square>,
    /// Pieces pinned to the partner's king, when rule 2 applies.
    partner_pins: SquareSet,
    /// Whether the pins were looked for. When one legal move is wanted (is there
    /// one? is this one?), looking for them costs more than it saves: then a piece
    /// on a line with either king has its moves tested in full.
    pins_known: bool,
    /// The squares whose pieces' moves need more than the first look: the king's
    /// and the pinned pieces'.
    careful: SquareSet,
    /// How many active enemy pieces attack the partner's king now (counted once,
    /// when first needed).
    partner_before: std::cell::Cell<Option<u32>>,
}

impl Legality {
    /// The legality test of `seat`'s moves in `state`; `find_pins` when many moves
    /// will be tested.
    fn new(rules: &Vierschach, state: &VsState, seat: usize, find_pins: bool) -> Legality {
        let board = &state.board;
        let enemies = active_enemies(rules, state, seat);
        let partner =
            if rules.counts_partner_checks() { rules.partner(seat).and_then(|p| state.kings[p]) } else { None };
        let king = state.kings[seat];
        let in_check = king.is_some_and(|k| attackers(board, k, enemies, 1) > 0);
        let pins_of = |king: Option<Square>| match king {
            Some(k) if find_pins => pinned(board, k, seat, enemies),
            _ => SquareSet::default(),
        };
        let (pins, partner_pins) = (pins_of(king), pins_of(partner));
        let mut careful = pins.union(partner_pins);
        if let Some(k) = king {
            careful.insert(k);
        }
        Legality {
            enemies,
            king,
            in_check,
            pins,
            partner,
            partner_pins,
            pins_known: find_pins,
            careful,
            partner_before: std::cell::Cell::new(None),
        }
    }

    /// Whether `mv`, a move that follows §4–5, keeps the check rules of §6.
    #[inline]
    fn allows(&self, state: &VsState, seat: usize, mv: VsMove) -> bool {
        let plain = matches!(mv.kind, MoveKind::Normal | MoveKind::DoubleStep | MoveKind::Jump);
        let off_lines = || {
            let apart = |king: Option<Square>| king.is_none_or(|k| !aligned(k, mv.from));
            self.pins_known || (apart(self.king) && apart(self.partner))
        };
        (plain && !self.in_check && !self.careful.contains(mv.from) && off_lines())
            || self.allows_careful(state, seat, mv)
    }

    /// [`Legality::allows`] for the moves the first look does not settle.
    fn allows_careful(&self, state: &VsState, seat: usize, mv: VsMove) -> bool {
        let plain = matches!(mv.kind, MoveKind::Normal | MoveKind::DoubleStep | MoveKind::Jump);
        if plain && !self.in_check && self.pins_known && self.king != Some(mv.from) {
            let off_line = |king: Option<Square>| king.is_some_and(|k| !collinear(k, mv.from, mv.to));
            if self.pins.contains(mv.from) && off_line(self.king) {
                // The pinning piece stays and the line opens: the king is attacked.
                return false;
            }
            if !(self.partner_pins.contains(mv.from) && off_line(self.partner)) {
                return true;
            }
        }
        self.allows_in_full(state, seat, mv)
    }

    /// Plays `mv` on a copy of the board and counts the attacks of §6 there.
    fn allows_in_full(&self, state: &VsState, seat: usize, mv: VsMove) -> bool {
        let mut board = state.board;
        apply_to_board(&mut board, state, seat, mv);
        let king = if Some(mv.from) == self.king { Some(mv.to) } else { self.king };
        if let Some(k) = king
            && attackers(&board, k, self.enemies, 1) > 0
        {
            return false;
        }
        match self.partner {
            Some(k) => {
                let before = match self.partner_before.get() {
                    Some(n) => n,
                    None => {
                        let n = attackers(&state.board, k, self.enemies, u32::MAX);
                        self.partner_before.set(Some(n));
                        n
                    }
                };
                attackers(&board, k, self.enemies, before + 1) <= before
            }
            None => true,
        }
    }
}

/// Hands each legal move of `seat` in `state` to `emit`, in generation order,
/// until `emit` breaks.
fn legal(
    rules: &Vierschach,
    state: &VsState,
    seat: usize,
    find_pins: bool,
    mut emit: impl FnMut(VsMove) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let legality = Legality::new(rules, state, seat, find_pins);
    pseudo_moves(rules, state, seat, None, &mut |mv| {
        if legality.allows(state, seat, mv) { emit(mv) } else { ControlFlow::Continue(()) }
    })
}

/// The legal moves of `seat` in `state`, in generation order (unsorted).
pub(crate) fn legal_moves(rules: &Vierschach, state: &VsState, seat: usize) -> Vec<VsMove> {
    let mut moves = Vec::with_capacity(64);
    let _ = legal(rules, state, seat, true, |mv| {
        moves.push(mv);
        ControlFlow::Continue(())
    });
    moves
}

/// How many legal moves `seat` has in `state` (no list is built).
pub(crate) fn count_legal_moves(rules: &Vierschach, state: &VsState, seat: usize) -> usize {
    let mut n = 0;
    let _ = legal(rules, state, seat, true, |_| {
        n += 1;
        ControlFlow::Continue(())
    });
    n
}

/// The moves of `seat` that follow §4–5 but break a check rule of §6, each with
/// whether it is rule 1 (the own king would be attacked; otherwise rule 2, an
/// added attack on the partner's king). For refusals only.
pub(crate) fn refused_moves(rules: &Vierschach, state: &VsState, seat: usize) -> Vec<(VsMove, bool)> {
    let mut moves = Vec::with_capacity(64);
    let _ = pseudo_moves(rules, state, seat, None, &mut |mv| {
        moves.push(mv);
        ControlFlow::Continue(())
    });
    let legality = Legality::new(rules, state, seat, true);
    let enemies = legality.enemies;
    moves
        .into_iter()
        .filter(|&mv| !legality.allows(state, seat, mv))
        .map(|mv| {
            let mut board = state.board;
            apply_to_board(&mut board, state, seat, mv);
            let king = if Some(mv.from) == legality.king { Some(mv.to) } else { legality.king };
            (mv, king.is_some_and(|k| attackers(&board, k, enemies, 1) > 0))
        })
        .collect()
}

/// Whether `seat` has a legal move (stops at the first).
pub(crate) fn has_legal_move(rules: &Vierschach, state: &VsState, seat: usize) -> bool {
    legal(rules, state, seat, false, |_| ControlFlow::Break(())).is_break()
}

/// Whether `mv` is a legal move of `seat` (one piece's moves are generated).
pub(crate) fn is_legal(rules: &Vierschach, state: &VsState, seat: usize, mv: VsMove) -> bool {
    let c = state.board[mv.from.cell()];
    if !is_piece(c) || owner(c) != seat {
        return false;
    }
    let generated = pseudo_moves(rules, state, seat, Some(mv.from), &mut |m| {
        if m == mv { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    });
    generated.is_break() && Legality::new(rules, state, seat, false).allows(state, seat, mv)
}
