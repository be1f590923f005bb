//! Moves, attacks and legality (`docs/rules/vierschach.md` §2, §4–6).
//!
//! Moves are generated per piece as the rules file describes them (sliders stop
//! before a missing square, knights jump over them). A move is kept when the
//! mover's king is not attacked by an active enemy piece afterwards and, in teams
//! mode with `mated = freeze`, no more active enemy pieces attack the partner's
//! king than before (§6). Most moves are judged from the check and the pins found
//! once per position; the rest are tried on a copy of the board ([`Legality`]).

use std::ops::ControlFlow::{self, Break, Continue};

use crate::rules::cell_path::CellMove;

use super::Vierschach;
use super::geometry::{
    BACK_RANK_OF, CELLS, DIAGONAL, KING_STEPS, KNIGHT_JUMPS, ORTHOGONAL, SEATS, START_LINE_OF, Square, SquareSet, WIDTH,
};
use super::state::{Cell, EMPTY, Kind, VsState, is_piece, kind, owner, piece};

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
pub type VsMove = CellMove<Square, MoveKind>;

/// Sorts moves in their order (by canonical text).
pub(crate) use crate::rules::cell_path::sort;

/// The seats whose pieces are active enemies of `seat` (§3, §6), as a bit set.
pub(crate) fn active_enemies(rules: &Vierschach, state: &VsState, seat: usize) -> u8 {
    rules.enemy_seats(seat) & standing_seats(state)
}

/// The seats that are neither mated nor out, as a bit set: their pieces are active.
fn standing_seats(state: &VsState) -> u8 {
    (0..4).filter(|&e| !state.status[e].is_down()).fold(0, |m, e| m | 1 << e)
}

/// The seats whose pieces `seat` may capture (§4): active enemies, and the
/// partner's active pieces with `partner_capture`.
fn capturable_seats(rules: &Vierschach, state: &VsState, seat: usize) -> u8 {
    let partner = match rules.partner(seat) {
        Some(p) if rules.partner_capture => 1 << p,
        _ => 0,
    };
    (rules.enemy_seats(seat) | partner) & standing_seats(state)
}

/// A set of cell contents, one bit per content: pieces are `seat << 3 | kind`
/// (at most 30), [`EMPTY`] is 0, and [`OFF`] falls on bit 63, which no set holds.
/// Asking "is this an enemy rook or queen?" or "may a move land here?" is then a
/// shift and a mask instead of decoding the cell.
#[derive(Copy, Clone, Default)]
struct Contents(u64);

impl Contents {
    /// The pieces of `kinds` of the seats in `seats` (bit per seat): a seat's
    /// pieces are the eight contents `seat << 3 | kind`, so its kinds are one byte.
    const fn pieces(seats: u8, kinds: &[Kind]) -> Contents {
        let mut byte = 0u64;
        let mut i = 0;
        while i < kinds.len() {
            byte |= 1 << kinds[i] as u8;
            i += 1;
        }
        let mut bits = 0u64;
        let mut s = 0;
        while s < 4 {
            if seats & (1 << s) != 0 {
                bits |= byte << (8 * s);
            }
            s += 1;
        }
        Contents(bits)
    }

    /// Every piece of `seat`.
    const fn of_seat(seat: usize) -> Contents {
        Contents(0b0111_1110 << (8 * seat))
    }

    const fn or(self, other: Contents) -> Contents {
        Contents(self.0 | other.0)
    }

    #[inline(always)]
    const fn has(self, c: Cell) -> bool {
        (self.0 >> (c & 63)) & 1 != 0
    }
}

/// What attacks a square from each of the eight directions of [`KING_STEPS`], for
/// one set of attacking seats.
#[derive(Copy, Clone)]
struct AttackSets {
    /// The pieces that attack along the line: rooks and queens orthogonally,
    /// bishops and queens diagonally.
    line: [Contents; 8],
    /// The pieces that attack from the next square in that direction: those of
    /// `line`, kings, and pawns whose capture step points back at the square.
    near: [Contents; 8],
    knights: Contents,
}

const fn attack_sets(seats: u8) -> AttackSets {
    let orthogonal = Contents::pieces(seats, &[Kind::Rook, Kind::Queen]);
    let diagonal = Contents::pieces(seats, &[Kind::Bishop, Kind::Queen]);
    let kings = Contents::pieces(seats, &[Kind::King]);
    let mut line = [Contents(0); 8];
    let mut near = [Contents(0); 8];
    let mut i = 0;
    while i < 8 {
        line[i] = if i < 4 { orthogonal } else { diagonal };
        near[i] = line[i].or(kings);
        let mut s = 0;
        while s < 4 {
            let captures = SEATS[s].captures;
            let back = -KING_STEPS[i];
            if seats & (1 << s) != 0 && (captures[0].offset() == back || captures[1].offset() == back) {
                near[i] = near[i].or(Contents::pieces(1 << s, &[Kind::Pawn]));
            }
            s += 1;
        }
        i += 1;
    }
    AttackSets { line, near, knights: Contents::pieces(seats, &[Kind::Knight]) }
}

/// [`AttackSets`] for every set of attacking seats (indexed by the bit set).
static ATTACK_SETS: [AttackSets; 16] = {
    let mut out = [attack_sets(0); 16];
    let mut m = 1;
    while m < 16 {
        out[m] = attack_sets(m as u8);
        m += 1;
    }
    out
};

/// No square: for [`attacks`] when no square is to be seen through.
const NO_CELL: usize = usize::MAX;

/// How many pieces of the seats in `mask` attack `target` (§6: could capture there,
/// pinned or not), counting up to `limit`; the piece on `vacated` (a cell, or
/// [`NO_CELL`]) counts as gone, so that a king's move is judged without the king
/// blocking the lines through its old square.
fn attacks(board: &[Cell; CELLS], target: Square, mask: u8, limit: u32, vacated: usize) -> u32 {
    let sets = &ATTACK_SETS[mask as usize];
    let t = target.cell() as i16;
    let mut n = 0;
    for d in KNIGHT_JUMPS {
        if sets.knights.has(board[(t + d) as usize]) {
            n += 1;
        }
    }
    for (i, d) in KING_STEPS.into_iter().enumerate() {
        if n >= limit {
            return n;
        }
        let mut s = (t + d) as usize;
        if board[s] != EMPTY && s != vacated {
            n += u32::from(sets.near[i].has(board[s]));
            continue;
        }
        loop {
            s = (s as i16 + d) as usize;
            if board[s] != EMPTY && s != vacated {
                break;
            }
        }
        n += u32::from(sets.line[i].has(board[s]));
    }
    n.min(limit)
}

/// How many pieces of the seats in `mask` attack `target` (§6: could capture there,
/// pinned or not), counting up to `limit`.
pub(crate) fn attackers(board: &[Cell; CELLS], target: Square, mask: u8, limit: u32) -> u32 {
    attacks(board, target, mask, limit, NO_CELL)
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

/// The pieces a move may capture, for every set of capturable seats (indexed by
/// the bit set): all of theirs but the kings (§4).
static PREY: [Contents; 16] = {
    let mut out = [Contents(0); 16];
    let mut m = 0;
    while m < 16 {
        out[m] = Contents::pieces(m as u8, &[Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen]);
        m += 1;
    }
    out
};

/// A seat's pawn steps as mailbox offsets (§4).
#[derive(Copy, Clone)]
struct PawnSteps {
    forward: i16,
    captures: [i16; 2],
}

/// Each seat's [`PawnSteps`].
static PAWN_STEPS: [PawnSteps; 4] = {
    let mut out = [PawnSteps { forward: 0, captures: [0; 2] }; 4];
    let mut s = 0;
    while s < 4 {
        let g = &SEATS[s];
        out[s] = PawnSteps { forward: g.forward.offset(), captures: [g.captures[0].offset(), g.captures[1].offset()] };
        s += 1;
    }
    out
};

/// Generates the moves of one seat in one position that follow §4–5, before the
/// check rules of §6, handing each to a callback; generation stops when the
/// callback breaks.
///
/// Moves go to a callback rather than into a list so that counting the legal
/// moves (perft's leaves) and asking whether there is one (every turn) build no
/// list, and the latter stops at the first legal move. What the seat may capture,
/// jump and promote on is worked out once, as sets of cell contents.
struct Generator<'a> {
    rules: &'a Vierschach,
    state: &'a VsState,
    seat: usize,
    /// The pieces the seat may capture (§4: an active enemy's, the partner's with
    /// `partner_capture`, never a king).
    prey: Contents,
    /// What a move may land on: an empty square or one of `prey`.
    landing: Contents,
    /// The pawn a pawn of the seat may jump (`pawn_jump`: the partner's).
    jumpable: Contents,
    /// The seats whose back rank promotes a pawn of the seat, bit per seat.
    promotes: u8,
    /// Whether any en-passant entry is live.
    any_ep: bool,
}

impl<'a> Generator<'a> {
    fn new(rules: &'a Vierschach, state: &'a VsState, seat: usize) -> Generator<'a> {
        let prey = PREY[capturable_seats(rules, state, seat) as usize];
        let jumpable = match rules.partner(seat) {
            Some(p) if rules.pawn_jump => Contents(1 << piece(p, Kind::Pawn)),
            _ => Contents::default(),
        };
        Generator {
            rules,
            state,
            seat,
            prey,
            landing: prey.or(Contents(1 << EMPTY)),
            jumpable,
            promotes: rules.promoting_seats(seat),
            any_ep: state.ep.iter().any(Option::is_some),
        }
    }

    /// The moves of the seat's piece on `from` (castling apart).
    #[inline(always)]
    fn piece_moves(&self, from: Square, emit: &mut impl FnMut(VsMove) -> ControlFlow<()>) -> ControlFlow<()> {
        let board = &self.state.board;
        let f = from.cell() as i16;
        let normal =
            |to: i16| VsMove { from, to: Square::from_cell(to as usize), promotion: None, kind: MoveKind::Normal };
        let (steps, slides): (&[i16], bool) = match kind(board[from.cell()]) {
            Kind::Pawn => return self.pawn_moves(from, emit),
            Kind::Knight => (&KNIGHT_JUMPS, false),
            Kind::King => (&KING_STEPS, false),
            Kind::Rook => (&ORTHOGONAL, true),
            Kind::Bishop => (&DIAGONAL, true),
            Kind::Queen => (&KING_STEPS, true),
        };
        if slides {
            for &d in steps {
                let mut s = f + d;
                while board[s as usize] == EMPTY {
                    emit(normal(s))?;
                    s += d;
                }
                if self.prey.has(board[s as usize]) {
                    emit(normal(s))?;
                }
            }
        } else {
            for &d in steps {
                if self.landing.has(board[(f + d) as usize]) {
                    emit(normal(f + d))?;
                }
            }
        }
        Continue(())
    }

    #[inline(always)]
    fn pawn_moves(&self, from: Square, emit: &mut impl FnMut(VsMove) -> ControlFlow<()>) -> ControlFlow<()> {
        let (board, seat) = (&self.state.board, self.seat);
        let f = from.cell() as i16;
        let steps = &PAWN_STEPS[seat];
        let one = board[(f + steps.forward) as usize];
        let two = f + 2 * steps.forward;
        if one == EMPTY {
            self.pawn_move(from, f + steps.forward, MoveKind::Normal, emit)?;
            if START_LINE_OF[from.cell()] & (1 << seat) != 0 && board[two as usize] == EMPTY {
                self.pawn_move(from, two, MoveKind::DoubleStep, emit)?;
            }
        } else if self.jumpable.has(one) && board[two as usize] == EMPTY {
            self.pawn_move(from, two, MoveKind::Jump, emit)?;
        }
        for cap in steps.captures {
            let t = f + cap;
            let c = board[t as usize];
            if self.prey.has(c) {
                self.pawn_move(from, t, MoveKind::Normal, emit)?;
            } else if c == EMPTY
                && self.any_ep
                && let Some(victim) = ep_owner(self.state, Square::from_cell(t as usize))
                && self.rules.is_enemy(seat, victim)
            {
                self.pawn_move(from, t, MoveKind::EnPassant, emit)?;
            }
        }
        Continue(())
    }

    /// A pawn's move to `to`: one per piece it may become there, if it promotes.
    #[inline(always)]
    fn pawn_move(
        &self,
        from: Square,
        to: i16,
        kind: MoveKind,
        emit: &mut impl FnMut(VsMove) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let to = Square::from_cell(to as usize);
        if self.promotes & (1u8 << BACK_RANK_OF[to.cell()]) != 0 {
            for k in Kind::PROMOTIONS {
                emit(VsMove { from, to, promotion: Some(k), kind })?;
            }
            Continue(())
        } else {
            emit(VsMove { from, to, promotion: None, kind })
        }
    }

    /// Castling (§5): rights, empty squares, and no attacked square for the king.
    fn castlings(&self, emit: &mut impl FnMut(VsMove) -> ControlFlow<()>) -> ControlFlow<()> {
        let (board, seat) = (&self.state.board, self.seat);
        for side in 0..2 {
            if !self.state.castling_right(seat, side) {
                continue;
            }
            let c = &SEATS[seat].castlings[side];
            if c.empty.iter().flatten().any(|s| board[s.cell()] != EMPTY) {
                continue;
            }
            let enemies = active_enemies(self.rules, self.state, seat);
            if [c.king_from, c.king_path[0], c.king_path[1]].iter().any(|&s| attackers(board, s, enemies, 1) > 0) {
                continue;
            }
            emit(VsMove { from: c.king_from, to: c.king_to, promotion: None, kind: MoveKind::Castle(side as u8) })?;
        }
        Continue(())
    }
}

/// Every move of `seat` that follows §4–5, before the check rules of §6.
fn pseudo_moves(rules: &Vierschach, state: &VsState, seat: usize) -> Vec<VsMove> {
    let generator = Generator::new(rules, state, seat);
    let mut moves = Vec::with_capacity(64);
    let mut push = |mv| {
        moves.push(mv);
        ControlFlow::<()>::Continue(())
    };
    for from in state.pieces[seat].iter() {
        let _ = generator.piece_moves(from, &mut push);
    }
    let _ = generator.castlings(&mut push);
    moves
}

/// What the lines through a king show (§6), for the moves of `seat`: how many
/// active enemy pieces attack the king, the squares on which a move of another
/// piece answers a single check (the checker's, and those between a checking
/// slider and the king; none when two pieces give check, since one move cannot
/// answer both), and, when looked for, the pieces of `seat` pinned to it.
#[derive(Default)]
struct KingLines {
    checkers: u32,
    answers: SquareSet,
    pins: SquareSet,
}

impl KingLines {
    /// Walks the knight jumps and the eight lines from `king` to their first piece
    /// (for the checks, with `find_checks`) and, with `find_pins`, past a first
    /// piece of `seat` to the next (for the pins).
    fn of(
        board: &[Cell; CELLS],
        king: Square,
        seat: usize,
        enemies: u8,
        find_checks: bool,
        find_pins: bool,
    ) -> KingLines {
        let sets = &ATTACK_SETS[enemies as usize];
        let own = Contents::of_seat(seat);
        let k = king.cell() as i16;
        let mut out = KingLines::default();
        if find_checks {
            for d in KNIGHT_JUMPS {
                if sets.knights.has(board[(k + d) as usize]) {
                    out.add_check(k + d, d, k + d);
                }
            }
        }
        for (i, d) in KING_STEPS.into_iter().enumerate() {
            let mut s = k + d;
            let first = board[s as usize];
            if first == EMPTY {
                while board[s as usize] == EMPTY {
                    s += d;
                }
                if find_checks && sets.line[i].has(board[s as usize]) {
                    out.add_check(s, d, k + d);
                    continue;
                }
            } else if find_checks && sets.near[i].has(first) {
                out.add_check(s, d, s);
                continue;
            }
            if find_pins && own.has(board[s as usize]) {
                let blocker = s;
                s += d;
                while board[s as usize] == EMPTY {
                    s += d;
                }
                if sets.line[i].has(board[s as usize]) {
                    out.pins.insert(Square::from_cell(blocker as usize));
                }
            }
        }
        if out.checkers > 1 {
            out.answers = SquareSet::default();
        }
        out
    }

    /// Records a checker on `at`, reached from the king by steps of `d` starting
    /// on `first` (a knight's or a neighbour's square is its own first and last).
    fn add_check(&mut self, at: i16, d: i16, first: i16) {
        self.checkers += 1;
        let mut s = first;
        loop {
            self.answers.insert(Square::from_cell(s as usize));
            if s == at {
                break;
            }
            s += d;
        }
    }
}

/// The step from `a` towards `b` when they share a rank, a file or a diagonal
/// (and differ), with whether it is diagonal: only then can a piece leaving `b`
/// open a line to `a`.
fn line_step(a: Square, b: Square) -> Option<(i16, bool)> {
    let ((ax, ay), (bx, by)) = (a.file_rank(), b.file_rank());
    let (dx, dy) = (i16::from(bx - ax), i16::from(by - ay));
    if (dx == 0 && dy == 0) || (dx != 0 && dy != 0 && dx.abs() != dy.abs()) {
        return None;
    }
    Some((dy.signum() * WIDTH + dx.signum(), dx != 0 && dy != 0))
}

/// Whether `c` lies on the line through `a` and `b` (which differ).
fn collinear(a: Square, b: Square, c: Square) -> bool {
    let ((ax, ay), (bx, by), (cx, cy)) = (a.file_rank(), b.file_rank(), c.file_rank());
    let (bx, by, cx, cy) = (i16::from(bx - ax), i16::from(by - ay), i16::from(cx - ax), i16::from(cy - ay));
    bx * cy == by * cx
}

/// Whether the piece on `from` stands alone between `king` and a rook, bishop or
/// queen of the seats in `enemies` that would attack the king along that line:
/// moving it off the line opens the line.
fn pinned(board: &[Cell; CELLS], king: Square, from: Square, enemies: u8) -> bool {
    let Some((d, diagonal)) = line_step(king, from) else { return false };
    let mut s = king.cell() as i16 + d;
    while board[s as usize] == EMPTY {
        s += d;
    }
    if s as usize != from.cell() {
        return false;
    }
    s += d;
    while board[s as usize] == EMPTY {
        s += d;
    }
    ATTACK_SETS[enemies as usize].line[if diagonal { 4 } else { 0 }].has(board[s as usize])
}

/// What a piece's moves need beyond the first look (see [`Legality`]).
#[derive(Copy, Clone, Default)]
struct Look {
    /// The piece is the king.
    king: bool,
    /// It stands alone between the own king and an enemy piece that would
    /// attack the king along that line.
    pinned: bool,
    /// The same with the partner's king (when rule 2 applies).
    partner_pinned: bool,
}

impl Look {
    /// Whether none of the three holds: the piece's moves are settled by the check.
    fn is_free(self) -> bool {
        !(self.king || self.pinned || self.partner_pinned)
    }
}

/// Tests the check rules of §6 for the moves of one seat in one position.
///
/// Most moves are judged without playing them, from the checks on the own king
/// (found once per position) and whether the moving piece is pinned to the own
/// or the partner's king. A move of a piece other than the king can break rule 1
/// only by opening a line to the king (the square it leaves) or by leaving a
/// check unanswered, and can add an attack on the partner's king (rule 2) only by
/// opening a line: its arrival blocks lines, its capture removes an attacker or
/// leaves a blocker in place. So a move of a piece pinned to neither king is
/// legal when the king is not in check, and in check when it lands on a square
/// that answers the single check; a pinned piece moving along its line is legal
/// out of check; a king's move is legal when its new square is not attacked with
/// the king gone from its old one (and it opens no line to the partner's king).
/// Everything else — castling, en passant (which empties a second square), a
/// pinned piece's move in check, a partner-pinned piece leaving its line (which
/// may still block or take another attacker) — is played on a copy of the board
/// and tested in full.
///
/// The pins are found once for both kings when every move is wanted (a list, a
/// count); when one legal move is wanted (is there one? is this one?), that costs
/// more than it saves, and each piece looked at is tested alone.
struct Legality<'a> {
    state: &'a VsState,
    seat: usize,
    enemies: u8,
    king: Option<Square>,
    own: KingLines,
    /// The partner's king, when rule 2 applies.
    partner: Option<Square>,
    /// The pieces pinned to the partner's king, when rule 2 applies and the pins
    /// were looked for.
    partner_pins: SquareSet,
    /// Whether the pins were looked for.
    pins_known: bool,
    /// Whether they were looked for and none found (the usual case): then only
    /// the king needs more than the first look.
    no_pins: bool,
    /// How many active enemy pieces attack the partner's king now (counted once,
    /// when first needed).
    partner_before: std::cell::Cell<Option<u32>>,
}

impl<'a> Legality<'a> {
    /// The legality test of `seat`'s moves in `state`; `find_pins` when many moves
    /// will be tested.
    fn new(rules: &Vierschach, state: &'a VsState, seat: usize, find_pins: bool) -> Legality<'a> {
        let board = &state.board;
        let enemies = active_enemies(rules, state, seat);
        let partner =
            if rules.counts_partner_checks() { rules.partner(seat).and_then(|p| state.kings[p]) } else { None };
        let king = state.kings[seat];
        let own = king.map_or_else(KingLines::default, |k| KingLines::of(board, k, seat, enemies, true, find_pins));
        let partner_pins = match partner {
            Some(k) if find_pins => KingLines::of(board, k, seat, enemies, false, true).pins,
            _ => SquareSet::default(),
        };
        let no_pins = find_pins && own.pins.is_empty() && partner_pins.is_empty();
        Legality {
            state,
            seat,
            enemies,
            king,
            own,
            partner,
            partner_pins,
            pins_known: find_pins,
            no_pins,
            partner_before: std::cell::Cell::new(None),
        }
    }

    /// What the moves of the piece on `from` need.
    #[inline(always)]
    fn look(&self, from: Square) -> Look {
        let king = self.king == Some(from);
        if self.no_pins {
            Look { king, ..Look::default() }
        } else if self.pins_known {
            Look { king, pinned: self.own.pins.contains(from), partner_pinned: self.partner_pins.contains(from) }
        } else {
            Look {
                king,
                pinned: !king && self.pinned_to(self.king, from),
                partner_pinned: self.pinned_to(self.partner, from),
            }
        }
    }

    /// Whether the piece on `from` is pinned to `king` (see [`pinned`]).
    fn pinned_to(&self, king: Option<Square>, from: Square) -> bool {
        king.is_some_and(|k| pinned(&self.state.board, k, from, self.enemies))
    }

    /// Whether `mv`, a move that follows §4–5, keeps the check rules of §6.
    fn allows(&self, mv: VsMove) -> bool {
        let look = self.look(mv.from);
        if look.is_free() { self.allows_free(mv) } else { self.allows_careful(mv, look) }
    }

    /// [`Legality::allows`] for a move of a piece whose [`Look`] is free.
    #[inline(always)]
    fn allows_free(&self, mv: VsMove) -> bool {
        match mv.kind {
            MoveKind::EnPassant => self.allows_in_full(mv),
            _ if self.own.checkers == 0 => true,
            _ => self.own.answers.contains(mv.to),
        }
    }

    /// [`Legality::allows`] for a move of the king or of a pinned piece.
    fn allows_careful(&self, mv: VsMove, look: Look) -> bool {
        if matches!(mv.kind, MoveKind::Castle(_) | MoveKind::EnPassant) {
            return self.allows_in_full(mv);
        }
        let off_line = |king: Option<Square>| king.is_some_and(|k| !collinear(k, mv.from, mv.to));
        let opens_partner_line = look.partner_pinned && off_line(self.partner);
        if look.king {
            return if opens_partner_line {
                self.allows_in_full(mv)
            } else {
                attacks(&self.state.board, mv.to, self.enemies, 1, mv.from.cell()) == 0
            };
        }
        if self.own.checkers > 0 {
            return self.allows_in_full(mv);
        }
        if look.pinned && off_line(self.king) {
            // The pinning piece stays and the line opens: the king is attacked.
            return false;
        }
        !opens_partner_line || self.allows_in_full(mv)
    }

    /// Plays `mv` on a copy of the board and counts the attacks of §6 there.
    fn allows_in_full(&self, mv: VsMove) -> bool {
        let mut board = self.state.board;
        apply_to_board(&mut board, self.state, self.seat, mv);
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
                        let n = attackers(&self.state.board, k, self.enemies, u32::MAX);
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
/// until `emit` breaks; `find_pins` when many moves are wanted (see [`Legality`]).
fn legal(
    rules: &Vierschach,
    state: &VsState,
    seat: usize,
    find_pins: bool,
    mut emit: impl FnMut(VsMove) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let generator = Generator::new(rules, state, seat);
    let legality = Legality::new(rules, state, seat, find_pins);
    for from in state.pieces[seat].iter() {
        // Deciding once per piece whether it is free lets the free pieces' moves
        // (most of them) through with at most a test of the square they reach.
        let look = legality.look(from);
        if look.is_free() {
            generator.piece_moves(from, &mut |mv| if legality.allows_free(mv) { emit(mv) } else { Continue(()) })?;
        } else {
            generator
                .piece_moves(from, &mut |mv| if legality.allows_careful(mv, look) { emit(mv) } else { Continue(()) })?;
        }
    }
    let look = Look { king: true, ..Look::default() };
    generator.castlings(&mut |mv| if legality.allows_careful(mv, look) { emit(mv) } else { Continue(()) })
}

/// The legal moves of `seat` in `state`, in generation order (unsorted).
pub(crate) fn legal_moves(rules: &Vierschach, state: &VsState, seat: usize) -> Vec<VsMove> {
    let mut moves = Vec::with_capacity(64);
    let _ = legal(rules, state, seat, true, |mv| {
        moves.push(mv);
        Continue(())
    });
    moves
}

/// How many legal moves `seat` has in `state` (no list is built).
pub(crate) fn count_legal_moves(rules: &Vierschach, state: &VsState, seat: usize) -> usize {
    let mut n = 0;
    let _ = legal(rules, state, seat, true, |_| {
        n += 1;
        Continue(())
    });
    n
}

/// The moves of `seat` that follow §4–5 but break a check rule of §6, each with
/// whether it is rule 1 (the own king would be attacked; otherwise rule 2, an
/// added attack on the partner's king). For refusals only.
pub(crate) fn refused_moves(rules: &Vierschach, state: &VsState, seat: usize) -> Vec<(VsMove, bool)> {
    let legality = Legality::new(rules, state, seat, true);
    pseudo_moves(rules, state, seat)
        .into_iter()
        .filter(|&mv| !legality.allows(mv))
        .map(|mv| {
            let mut board = state.board;
            apply_to_board(&mut board, state, seat, mv);
            let king = if Some(mv.from) == legality.king { Some(mv.to) } else { legality.king };
            (mv, king.is_some_and(|k| attackers(&board, k, legality.enemies, 1) > 0))
        })
        .collect()
}

/// Whether `seat` has a legal move (stops at the first).
///
/// Every turn asks this, and the answer is nearly always yes from the first
/// pieces looked at: out of check, any move of a piece that shares no line with
/// the own king nor (rule 2) the partner's can open no line to either and is
/// legal, except en passant. So the check is tested once, and only when that
/// settles nothing (in check, or no such piece has a move) are the moves judged
/// the usual way.
pub(crate) fn has_legal_move(rules: &Vierschach, state: &VsState, seat: usize) -> bool {
    let enemies = active_enemies(rules, state, seat);
    let king = state.kings[seat];
    if king.is_none_or(|k| attackers(&state.board, k, enemies, 1) == 0) {
        let partner =
            if rules.counts_partner_checks() { rules.partner(seat).and_then(|p| state.kings[p]) } else { None };
        let apart = |from: Square| {
            Some(from) != king && [king, partner].into_iter().flatten().all(|k| line_step(k, from).is_none())
        };
        let generator = Generator::new(rules, state, seat);
        let mut plain = |mv: VsMove| if mv.kind == MoveKind::EnPassant { Continue(()) } else { Break(()) };
        if state.pieces[seat].iter().any(|from| apart(from) && generator.piece_moves(from, &mut plain).is_break()) {
            return true;
        }
    }
    legal(rules, state, seat, false, |_| Break(())).is_break()
}

/// Whether `mv` is a legal move of `seat`.
pub(crate) fn is_legal(rules: &Vierschach, state: &VsState, seat: usize, mv: VsMove) -> bool {
    if !follows_piece_rules(rules, state, seat, mv) {
        return false;
    }
    let mut board = state.board;
    apply_to_board(&mut board, state, seat, mv);
    keeps_check_rules(rules, state, seat, mv, &board)
}

/// Whether `mv` is a move of `seat` that follows §4–5, before the check rules of
/// §6 (only the moving piece's moves are generated).
pub(crate) fn follows_piece_rules(rules: &Vierschach, state: &VsState, seat: usize, mv: VsMove) -> bool {
    let c = state.board[mv.from.cell()];
    if !is_piece(c) || owner(c) != seat {
        return false;
    }
    let generator = Generator::new(rules, state, seat);
    let mut find = |m| if m == mv { Break(()) } else { Continue(()) };
    match mv.kind {
        MoveKind::Castle(_) => generator.castlings(&mut find).is_break(),
        _ => generator.piece_moves(mv.from, &mut find).is_break(),
    }
}

/// Whether `mv`, a move of `seat` in `state` that follows §4–5, keeps the check
/// rules of §6, judged on `after`, the board with the move played. One move is
/// judged here, so nothing is looked for once per position: the own king is
/// tested on `after`, and the attacks on the partner's king are counted before
/// and after only when the move could open a line to it (see [`Legality`]).
pub(crate) fn keeps_check_rules(
    rules: &Vierschach,
    state: &VsState,
    seat: usize,
    mv: VsMove,
    after: &[Cell; CELLS],
) -> bool {
    let enemies = active_enemies(rules, state, seat);
    let king = state.kings[seat].map(|k| if k == mv.from { mv.to } else { k });
    if king.is_some_and(|k| attackers(after, k, enemies, 1) > 0) {
        return false;
    }
    let partner = if rules.counts_partner_checks() { rules.partner(seat).and_then(|p| state.kings[p]) } else { None };
    let Some(p) = partner else { return true };
    let plain = matches!(mv.kind, MoveKind::Normal | MoveKind::DoubleStep | MoveKind::Jump);
    if plain && !pinned(&state.board, p, mv.from, enemies) {
        return true;
    }
    let before = attackers(&state.board, p, enemies, u32::MAX);
    attackers(after, p, enemies, before + 1) <= before
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::vierschach::geometry::SQUARES;
    use crate::rules::vierschach::state::{EMPTY_BOARD, Status};
    use crate::rules::vierschach::{Mated, turn};

    /// The rulebooks the comparisons run under: every mode and every option that
    /// changes what a move may do or what the check rules count.
    const RULEBOOKS: [Vierschach; 5] = [
        Vierschach::teams(),
        Vierschach::ffa(),
        Vierschach { mated: Mated::Remove, ..Vierschach::teams() },
        Vierschach { partner_capture: true, pawn_jump: false, ally_promotion: false, ..Vierschach::teams() },
        Vierschach { mated: Mated::Freeze, ..Vierschach::ffa() },
    ];

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// The legal moves by the definition of §6, with nothing found in advance:
    /// every move that follows §4–5 is played on a copy of the board and the
    /// attacks on the own and the partner's king are counted there.
    fn by_definition(rules: &Vierschach, state: &VsState, seat: usize) -> Vec<VsMove> {
        let legality = Legality::new(rules, state, seat, true);
        let mut moves: Vec<VsMove> =
            pseudo_moves(rules, state, seat).into_iter().filter(|&mv| legality.allows_in_full(mv)).collect();
        sort(&mut moves);
        moves
    }

    /// Compares every way the engine judges moves in `state` with the definition.
    fn compare(rules: &Vierschach, state: &VsState) -> usize {
        let seat = state.turn;
        let expected = by_definition(rules, state, seat);
        let mut listed = legal_moves(rules, state, seat);
        sort(&mut listed);
        assert_eq!(listed, expected, "legal moves in {state}");
        assert_eq!(count_legal_moves(rules, state, seat), expected.len(), "count in {state}");
        assert_eq!(has_legal_move(rules, state, seat), !expected.is_empty(), "has a move in {state}");
        for mv in pseudo_moves(rules, state, seat) {
            let legal = expected.contains(&mv);
            assert_eq!(is_legal(rules, state, seat, mv), legal, "is_legal({mv}) in {state}");
            assert_eq!(legal, !refused_moves(rules, state, seat).iter().any(|(m, _)| *m == mv), "{mv} in {state}");
        }
        expected.len()
    }

    /// Seeded random games under every rulebook: at each ply the quick judgement
    /// (checks and pins found once, king moves tested without the king, one move
    /// judged on the board it leaves) agrees with playing every move out.
    #[test]
    fn quick_legality_agrees_with_the_definition_in_random_games() {
        let mut rng = Rng(0x5EED_7E57_0000_0013);
        let mut plies = 0;
        for rules in RULEBOOKS {
            for _ in 0..4 {
                let mut state = VsState::start();
                for _ in 0..120 {
                    if rules.outcome_of(&state).is_some() {
                        break;
                    }
                    compare(&rules, &state);
                    let moves = legal_moves(&rules, &state, state.turn);
                    let mv = moves[rng.below(moves.len())];
                    state = turn::play(&rules, &state, mv, &mut Vec::new());
                    plies += 1;
                }
            }
        }
        assert!(plies > 1000, "{plies} plies");
    }

    /// Random sparse positions (four kings and a few pieces anywhere, some seats
    /// mated or out), where checks, double checks, pins to either king and king
    /// moves along checking lines are common: the quick judgement agrees with the
    /// definition in each.
    #[test]
    fn quick_legality_agrees_with_the_definition_in_sparse_positions() {
        let mut rng = Rng(0x5EED_5BA5_0000_0013);
        // Sliders weigh more: they give the pins.
        let kinds = [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen, Kind::Queen, Kind::Rook];
        let (mut positions, mut in_check, mut with_pins) = (0, 0, 0);
        for round in 0..6000 {
            let rules = RULEBOOKS[round % RULEBOOKS.len()];
            let mut state = VsState::start();
            state.board = EMPTY_BOARD;
            state.pieces = Default::default();
            state.castling = 0;
            state.turn = rng.below(4);
            for seat in 0..4 {
                state.status[seat] = match rng.below(8) {
                    0 if seat != state.turn && rules.mated == Mated::Freeze => Status::Mated,
                    0 if seat != state.turn => Status::Out,
                    1 => Status::Stalemated,
                    _ => Status::Active,
                };
            }
            let mut free: Vec<Square> = SQUARES.to_vec();
            let mut place = |state: &mut VsState, seat: usize, k: Kind, rng: &mut Rng| loop {
                let sq = free.swap_remove(rng.below(free.len()));
                let on = BACK_RANK_OF[sq.cell()] as usize;
                if k != Kind::Pawn || on == 4 {
                    state.put(sq, piece(seat, k));
                    return sq;
                }
            };
            for seat in 0..4 {
                if state.status[seat] == Status::Out {
                    state.kings[seat] = None;
                    continue;
                }
                state.kings[seat] = Some(place(&mut state, seat, Kind::King, &mut rng));
                for _ in 0..rng.below(9) {
                    let k = kinds[rng.below(kinds.len())];
                    place(&mut state, seat, k, &mut rng);
                }
            }
            let seat = state.turn;
            let lines = Legality::new(&rules, &state, seat, true);
            in_check += usize::from(lines.own.checkers > 0);
            with_pins += usize::from(!lines.no_pins);
            compare(&rules, &state);
            positions += 1;
        }
        assert!(
            in_check > 1000 && with_pins > 300,
            "{positions} positions, {in_check} in check, {with_pins} with pins"
        );
    }
}
