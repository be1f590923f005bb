//! Moves (`docs/rules/tri-d-chess.md` §4–8): generation by the projection rule,
//! attacks and check, playing a move.
//!
//! A piece move is a chess move on the 6×10 projection: its target column must
//! exist, and it may land on any square of that column that is empty or holds
//! an enemy (each such square is its own move). Riders are blocked by a column
//! holding a piece on any level. An attack-board move carries at most one piece.
//!
//! Legality (§8) is judged without playing most moves: out of check, a move of
//! a piece other than the king can expose the king only by emptying a column
//! that stood alone between the king and an enemy rider; such columns are found
//! once per position, and only moves from them (and king moves, castling, en
//! passant, board moves and every move in check) are played on a copy of the
//! square sets and tested.

use std::fmt;

use super::geometry::{PINS, Pin, Square, SquareSet, TABLES, Tables, step};
use super::state::{
    BLACK_LONG, BLACK_SHORT, Bits, Colour, Kind, TdState, WHITE_LONG, WHITE_SHORT, castle_squares, code, colour_of,
    original_pawn_squares,
};

/// What a move does beyond taking a piece from one square to another.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A piece move (a capture when the target holds an enemy).
    Normal,
    /// A pawn's first two-column step (§5): sets the ep square.
    DoubleStep,
    /// A pawn takes the pawn that has just double-stepped (§5).
    EnPassant,
    /// King and king's rook swap places (§6).
    CastleShort,
    /// The king goes next to the queen's rook, the rook to the king's square.
    CastleLong,
    /// An attack board moves from one pin to another (§7).
    Board,
}

/// A move as fixed at entry. `Display` is the canonical form (§10): from-to
/// with English level names, `=Q`, castling as the king's from-to, board moves
/// `QL4-QL5`, and the pending promotion's prefix.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TdMove {
    /// What kind of move.
    pub kind: MoveKind,
    /// From: a square, or for a board move its pin.
    pub from: u8,
    /// To: a square (castling: the king's target), or for a board move its pin.
    pub to: u8,
    /// The piece a pawn promotes to by this move.
    pub promotion: Option<Kind>,
    /// The pending promotion named first (§5): the pawn's square and the piece.
    pub prefix: Option<(Square, Kind)>,
}

impl TdMove {
    const fn new(kind: MoveKind, from: u8, to: u8) -> TdMove {
        TdMove { kind, from, to, promotion: None, prefix: None }
    }

    /// The canonical text's bytes, zero-padded: byte order of these is the
    /// order of the texts.
    pub fn sort_key(&self) -> [u8; 24] {
        let mut key = [0u8; 24];
        let mut w = KeyWriter { buf: &mut key, len: 0 };
        let _ = fmt::Write::write_fmt(&mut w, format_args!("{self}"));
        key
    }

    /// A key whose order is the byte order of the canonical texts of moves of
    /// one position (all with the same pending prefix, or none), cheaper than
    /// [`TdMove::sort_key`]. Square and pin names are prefix-free, so the texts
    /// compare part by part: the prefix's piece letter, then board moves (`K`,
    /// `Q`) before piece moves (a file letter), the from and to names, and a
    /// promotion letter after none.
    pub fn order_key(&self) -> u32 {
        let t = &*TABLES;
        // B < N < Q < R, each after "no letter" (0).
        let letter = |k: Option<Kind>| match k {
            None => 0,
            Some(Kind::Bishop) => 1,
            Some(Kind::Knight) => 2,
            Some(Kind::Queen) => 3,
            Some(_) => 4,
        };
        let (from, to) = match self.kind {
            MoveKind::Board => (t.pin_name_order[self.from as usize] as u32, t.pin_name_order[self.to as usize] as u32),
            _ => (PINS as u32 + t.name_order[self.from as usize] as u32, t.name_order[self.to as usize] as u32),
        };
        let prefix = letter(self.prefix.map(|(_, k)| k));
        (((prefix << 8 | from) << 8 | to) << 3) | letter(self.promotion)
    }

    /// Whether it is a board move.
    pub const fn is_board(&self) -> bool {
        matches!(self.kind, MoveKind::Board)
    }

    /// The from square of a piece move (the king's for castling).
    pub fn from_square(&self) -> Option<Square> {
        (!self.is_board()).then_some(Square(self.from))
    }

    /// The target square of a piece move (the king's for castling).
    pub fn to_square(&self) -> Option<Square> {
        (!self.is_board()).then_some(Square(self.to))
    }
}

struct KeyWriter<'a> {
    buf: &'a mut [u8; 24],
    len: usize,
}

impl fmt::Write for KeyWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            if let Some(slot) = self.buf.get_mut(self.len) {
                *slot = b;
                self.len += 1;
            }
        }
        Ok(())
    }
}

impl PartialOrd for TdMove {
    fn partial_cmp(&self, other: &TdMove) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Byte order of the canonical texts (§10: lists are sorted by byte value).
impl Ord for TdMove {
    fn cmp(&self, other: &TdMove) -> std::cmp::Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

impl fmt::Display for TdMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((sq, kind)) = self.prefix {
            write!(f, "{sq}={};", kind.letter())?;
        }
        match self.kind {
            MoveKind::Board => write!(f, "{}-{}", Pin(self.from), Pin(self.to))?,
            _ => write!(f, "{}-{}", Square(self.from), Square(self.to))?,
        }
        if let Some(kind) = self.promotion {
            write!(f, "={}", kind.letter())?;
        }
        Ok(())
    }
}

/// Whether `colour`'s king stands in a column an enemy piece attacks (§8).
pub fn in_check(bits: &Bits, colour: Colour) -> bool {
    let king = bits.pieces(Kind::King, colour);
    if king == 0 {
        return false;
    }
    let t = &*TABLES;
    attacked(t, bits, t.column[king.trailing_zeros() as usize], colour.other())
}

/// Whether a piece of `by` attacks column `col` (§8): it could capture on a
/// square of it. A piece never attacks its own column.
pub fn attacked(t: &Tables, bits: &Bits, col: u8, by: Colour) -> bool {
    let c = col as usize;
    let theirs = bits.colour[by.index()];
    if t.knight_squares[c] & bits.kind[Kind::Knight as usize] & theirs != 0
        || t.king_squares[c] & bits.kind[Kind::King as usize] & theirs != 0
        || t.pawn_attackers[by.index()][c] & bits.kind[Kind::Pawn as usize] & theirs != 0
    {
        return true;
    }
    let queens = bits.kind[Kind::Queen as usize];
    let riders =
        [(bits.kind[Kind::Rook as usize] | queens) & theirs, (bits.kind[Kind::Bishop as usize] | queens) & theirs];
    let occupied = bits.occupied();
    for (group, &sliders) in riders.iter().enumerate() {
        if sliders & t.lines[c][group] == 0 {
            continue;
        }
        for ray in &t.rays[c][group * 4..group * 4 + 4] {
            for col in ray.iter() {
                let squares = t.column_squares[col as usize];
                if squares & occupied != 0 {
                    if squares & sliders != 0 {
                        return true;
                    }
                    break;
                }
            }
        }
    }
    false
}

/// The columns that stand alone (one piece, the mover's) between `us`'s king
/// and an enemy rider on its line: moving that piece away may expose the king.
fn pinned_columns(t: &Tables, bits: &Bits, us: Colour, king_col: u8) -> u64 {
    let occupied = bits.occupied();
    let own = bits.colour[us.index()];
    let theirs = bits.colour[us.other().index()];
    let queens = bits.kind[Kind::Queen as usize];
    let riders =
        [(bits.kind[Kind::Rook as usize] | queens) & theirs, (bits.kind[Kind::Bishop as usize] | queens) & theirs];
    let k = king_col as usize;
    let mut pinned = 0u64;
    for (d, ray) in t.rays[k].iter().enumerate() {
        let sliders = riders[d / 4];
        if sliders & t.lines[k][d / 4] == 0 {
            continue;
        }
        let mut shield = None;
        for col in ray.iter() {
            let here = t.column_squares[col as usize] & occupied;
            if here == 0 {
                continue;
            }
            match shield {
                None if here.count_ones() == 1 && here & own != 0 => shield = Some(col),
                None => break,
                Some(c) => {
                    if here & sliders != 0 {
                        pinned |= 1 << c;
                    }
                    break;
                }
            }
        }
    }
    pinned
}

/// Calls `f` with each square of `set`, lowest first.
#[inline]
fn each(mut set: SquareSet, mut f: impl FnMut(u8)) {
    while set != 0 {
        f(set.trailing_zeros() as u8);
        set &= set - 1;
    }
}

/// Calls `f` with each square of `set`, lowest first, until it returns true.
#[inline]
fn each_until(mut set: SquareSet, mut f: impl FnMut(u8) -> bool) {
    while set != 0 {
        if f(set.trailing_zeros() as u8) {
            return;
        }
        set &= set - 1;
    }
}

/// Where the generator's moves go: a callback that may stop the run, or a
/// counter that takes a piece's moves as one set.
pub trait Sink {
    /// Takes one move; true stops the run.
    fn take(&mut self, mv: TdMove) -> bool;

    /// Takes the plain moves from `from` to every square of `targets`, all
    /// known to be legal; true stops the run.
    fn take_all(&mut self, from: u8, targets: SquareSet) -> bool {
        let mut stop = false;
        each_until(targets, |to| {
            stop = self.take(TdMove::new(MoveKind::Normal, from, to));
            stop
        });
        stop
    }
}

impl<F: FnMut(TdMove) -> bool + ?Sized> Sink for F {
    fn take(&mut self, mv: TdMove) -> bool {
        self(mv)
    }
}

/// Counts moves; leaves of a perft are counted, not listed.
struct Counter(usize);

impl Sink for Counter {
    fn take(&mut self, _: TdMove) -> bool {
        self.0 += 1;
        false
    }

    fn take_all(&mut self, _: u8, targets: SquareSet) -> bool {
        self.0 += targets.count_ones() as usize;
        false
    }
}

/// What a board move does besides moving the board: the square sets after it,
/// the mover's pawn that must promote (carried onto its rank, or left on a
/// corner the board uncovered), and the opponent's corner pawn whose promotion
/// becomes pending.
struct BoardEffects {
    bits: Bits,
    pins: [u8; 12],
    passenger: Option<(u8, u8)>,
    own_promotion: Option<Square>,
    pending: Option<Square>,
}

/// The corner square whose pawn a board leaving `pin` uncovers (§5 corner
/// promotion): `a1W`/`d1W` (Black's pawns) for pins 1, `a8B`/`d8B` (White's)
/// for pins 6.
fn uncovered_corner(pin: Pin) -> Option<(Square, Colour)> {
    match (pin.number(), pin.is_king_side()) {
        (1, false) => Some((Square(0), Colour::Black)),
        (1, true) => Some((Square(3), Colour::Black)),
        (6, false) => Some((Square(44), Colour::White)),
        (6, true) => Some((Square(47), Colour::White)),
        _ => None,
    }
}

fn board_effects(st: &TdState, from: Pin, to: Pin) -> BoardEffects {
    let mut bits = st.bits;
    let mut pins = st.pins;
    pins[to.0 as usize] = pins[from.0 as usize];
    pins[from.0 as usize] = 0;
    bits.present = (bits.present & !from.squares()) | to.squares();
    let mut passenger = None;
    each(from.squares() & st.bits.occupied(), |s| {
        let c = st.board[s as usize];
        let target = Square(s).on_pin(to).expect("a pin square").0;
        bits.take(s, c);
        bits.put(target, c);
        passenger = Some((s, target));
    });
    let after = AfterBoards { pins: &pins };
    let mut own_promotion = None;
    let mut pending = None;
    if let Some((s, target)) = passenger {
        let c = st.board[s as usize];
        if Kind::of_code(c) == Kind::Pawn && after.on_promotion_rank(colour_of(c), Square(target)) {
            own_promotion = Some(Square(target));
        }
    }
    if let Some((corner, owner)) = uncovered_corner(from)
        && st.board[corner.0 as usize] == code(Kind::Pawn, owner)
    {
        if owner == st.side {
            own_promotion = Some(corner);
        } else {
            pending = Some(corner);
        }
    }
    BoardEffects { bits, pins, passenger, own_promotion, pending }
}

/// The promotion ranks of an arrangement of boards (§5).
struct AfterBoards<'a> {
    pins: &'a [u8; 12],
}

impl AfterBoards<'_> {
    fn on_promotion_rank(&self, colour: Colour, sq: Square) -> bool {
        super::state::promotion_rank(self.pins, colour, sq.x()) == sq.y()
    }
}

/// Which moves a generator run produces: all, one piece's (castling aside),
/// castling, or board moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Only {
    All,
    From(u8),
    Castling,
    Boards,
}

/// The legal-move generator of one position.
struct Generator<'a> {
    t: &'a Tables,
    st: &'a TdState,
    us: Colour,
    them: Colour,
    occupied: SquareSet,
    check: bool,
    pinned: u64,
    /// The squares on which our pawns promote (§5).
    promotion: SquareSet,
}

impl<'a> Generator<'a> {
    fn new(st: &'a TdState) -> Generator<'a> {
        let t = &*TABLES;
        let us = st.side;
        let king = st.bits.pieces(Kind::King, us);
        let king_col = t.column[(king.trailing_zeros() as usize).min(95)];
        let check = king != 0 && attacked(t, &st.bits, king_col, us.other());
        let pinned = if check || king == 0 { 0 } else { pinned_columns(t, &st.bits, us, king_col) };
        // One column per file: the file's promotion rank, on every level.
        let promotion = (0..6u8)
            .fold(0, |set, x| set | t.column_squares[(super::state::promotion_rank(&st.pins, us, x) * 6 + x) as usize]);
        Generator { t, st, us, them: us.other(), occupied: st.bits.occupied(), check, pinned, promotion }
    }

    /// Whether the piece move `from` → `to` (with en passant's victim) leaves
    /// our king unattacked, tested on the square sets after it.
    fn safe_after(&self, from: u8, to: u8, victim: Option<u8>) -> bool {
        let mut b = self.st.bits;
        let piece = self.st.board[from as usize];
        let target = self.st.board[to as usize];
        if target != 0 {
            b.take(to, target);
        }
        if let Some(v) = victim {
            b.take(v, self.st.board[v as usize]);
        }
        b.take(from, piece);
        b.put(to, piece);
        !in_check(&b, self.us)
    }

    /// Whether no move of the piece (not the king) on `from` can expose the
    /// king: we are not in check and its column shields the king from no rider.
    #[inline]
    fn unpinned(&self, from: u8) -> bool {
        !self.check && self.pinned & (1 << self.t.column[from as usize]) == 0
    }

    /// Whether a plain move of a piece other than the king is legal.
    #[inline]
    fn legal(&self, from: u8, to: u8) -> bool {
        self.unpinned(from) || self.safe_after(from, to, None)
    }

    /// Calls `sink` with every legal move until it returns true (stop).
    fn run(&self, sink: &mut impl Sink) -> bool {
        self.run_only(Only::All, sink)
    }

    /// As [`Generator::run`], for the moves `only` selects.
    fn run_only(&self, only: Only, sink: &mut impl Sink) -> bool {
        let st = self.st;
        let t = self.t;
        let own = st.bits.colour[self.us.index()];
        let free = st.bits.present & !own;
        let mut pieces = match only {
            Only::All => own,
            Only::From(sq) => own & (1 << sq),
            Only::Castling | Only::Boards => 0,
        };
        while pieces != 0 {
            let from = pieces.trailing_zeros() as u8;
            pieces &= pieces - 1;
            let col = t.column[from as usize] as usize;
            let kind = Kind::of_code(st.board[from as usize]);
            let reach = match kind {
                Kind::Pawn => {
                    if self.pawn(from, sink) {
                        return true;
                    }
                    continue;
                }
                Kind::Knight => t.knight_squares[col],
                Kind::King => t.king_squares[col],
                _ => {
                    let dirs = match kind {
                        Kind::Rook => 0..4,
                        Kind::Bishop => 4..8,
                        _ => 0..8,
                    };
                    let mut reach = 0;
                    for ray in &t.rays[col][dirs] {
                        for c in ray.iter() {
                            let squares = t.column_squares[c as usize];
                            reach |= squares;
                            if squares & self.occupied != 0 {
                                break;
                            }
                        }
                    }
                    reach
                }
            } & free;
            let stop = if kind != Kind::King && self.unpinned(from) {
                // No move of this piece can expose the king: all of them at once.
                sink.take_all(from, reach)
            } else {
                let mut stop = false;
                each_until(reach, |to| {
                    stop = self.safe_after(from, to, None) && sink.take(TdMove::new(MoveKind::Normal, from, to));
                    stop
                });
                stop
            };
            if stop {
                return true;
            }
        }
        match only {
            Only::All => self.castling(sink) || self.boards(sink),
            Only::Castling => self.castling(sink),
            Only::Boards => self.boards(sink),
            Only::From(_) => false,
        }
    }

    /// Emits a pawn's move to `to`, as four promotions on its promotion rank.
    fn pawn_to(&self, kind: MoveKind, from: u8, to: u8, sink: &mut impl Sink) -> bool {
        let mv = TdMove::new(kind, from, to);
        if self.promotion & (1 << to) != 0 {
            for k in Kind::PROMOTIONS {
                if sink.take(TdMove { promotion: Some(k), ..mv }) {
                    return true;
                }
            }
            false
        } else {
            sink.take(mv)
        }
    }

    fn pawn(&self, from: u8, sink: &mut impl Sink) -> bool {
        let (t, st) = (self.t, self.st);
        let col = t.column[from as usize];
        let fwd = self.us.forward();
        let empty = st.bits.present & !self.occupied;
        let enemy = st.bits.colour[self.them.index()];
        if let Some(c1) = step(col, 0, fwd) {
            let mut steps = t.column_squares[c1 as usize] & empty;
            while steps != 0 {
                let to = steps.trailing_zeros() as u8;
                steps &= steps - 1;
                if self.legal(from, to) && self.pawn_to(MoveKind::Normal, from, to, sink) {
                    return true;
                }
            }
            let unmoved = original_pawn_squares(self.us) & !st.moved & (1 << from) != 0;
            if unmoved
                && t.column_squares[c1 as usize] & self.occupied == 0
                && let Some(c2) = step(col, 0, 2 * fwd)
            {
                let mut steps = t.column_squares[c2 as usize] & empty;
                while steps != 0 {
                    let to = steps.trailing_zeros() as u8;
                    steps &= steps - 1;
                    if self.legal(from, to) && self.pawn_to(MoveKind::DoubleStep, from, to, sink) {
                        return true;
                    }
                }
            }
        }
        for dx in [-1, 1] {
            if let Some(c) = step(col, dx, fwd) {
                let mut takes = t.column_squares[c as usize] & enemy;
                while takes != 0 {
                    let to = takes.trailing_zeros() as u8;
                    takes &= takes - 1;
                    if self.legal(from, to) && self.pawn_to(MoveKind::Normal, from, to, sink) {
                        return true;
                    }
                }
            }
        }
        if let Some(ep) = st.ep {
            let from_sq = Square(from);
            if from_sq.y() == ep.y()
                && from_sq.x().abs_diff(ep.x()) == 1
                && let Some(c) = step(t.column[ep.0 as usize], 0, fwd)
            {
                let mut lands = t.column_squares[c as usize] & empty;
                while lands != 0 {
                    let to = lands.trailing_zeros() as u8;
                    lands &= lands - 1;
                    if self.safe_after(from, to, Some(ep.0)) && self.pawn_to(MoveKind::EnPassant, from, to, sink) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn castling(&self, sink: &mut impl Sink) -> bool {
        let st = self.st;
        let (short, long) = match self.us {
            Colour::White => (WHITE_SHORT, WHITE_LONG),
            Colour::Black => (BLACK_SHORT, BLACK_LONG),
        };
        // §6: never on a side's first move; never out of check.
        if st.fullmove == 1 || self.check || st.castling & (short | long) == 0 {
            return false;
        }
        let [king, short_rook, long_rook, long_target] = castle_squares(self.us);
        let safe = |sq: Square| !attacked(self.t, &st.bits, self.t.column[sq.0 as usize], self.them);
        let after = |king_to: Square, rook_from: Square| {
            let mut b = st.bits;
            let (k, r) = (code(Kind::King, self.us), code(Kind::Rook, self.us));
            b.take(king.0, k);
            b.take(rook_from.0, r);
            b.put(king_to.0, k);
            b.put(king.0, r);
            !in_check(&b, self.us)
        };
        if st.castling & short != 0 && safe(short_rook) && after(short_rook, short_rook) {
            let mv = TdMove::new(MoveKind::CastleShort, king.0, short_rook.0);
            if sink.take(mv) {
                return true;
            }
        }
        if st.castling & long != 0
            && st.bits.present & long_target.bit() != 0
            && self.occupied & long_target.bit() == 0
            && safe(long_target)
            && after(long_target, long_rook)
        {
            return sink.take(TdMove::new(MoveKind::CastleLong, king.0, long_target.0));
        }
        false
    }

    fn boards(&self, sink: &mut impl Sink) -> bool {
        let st = self.st;
        for from in st.boards() {
            let carried = from.squares() & self.occupied;
            if carried.count_ones() > 1 {
                continue;
            }
            let controller = if carried != 0 {
                colour_of(st.board[carried.trailing_zeros() as usize])
            } else if st.pins[from.0 as usize] == 1 {
                Colour::White
            } else {
                Colour::Black
            };
            if controller != self.us {
                continue;
            }
            for to in from.neighbours() {
                if st.has_board(to) {
                    continue;
                }
                let sideways = to.number() == from.number();
                let forward = match self.us {
                    Colour::White => to.position_rank() > from.position_rank(),
                    Colour::Black => to.position_rank() < from.position_rank(),
                };
                if carried != 0 && !sideways && !forward {
                    continue;
                }
                let fx = board_effects(st, from, to);
                if in_check(&fx.bits, self.us) {
                    continue;
                }
                if let Some(p) = fx.pending
                    && Kind::PROMOTIONS.iter().any(|&k| {
                        let mut b = fx.bits;
                        b.take(p.0, code(Kind::Pawn, self.them));
                        b.put(p.0, code(k, self.them));
                        in_check(&b, self.us)
                    })
                {
                    continue;
                }
                let mv = TdMove::new(MoveKind::Board, from.0, to.0);
                if fx.own_promotion.is_some() {
                    for k in Kind::PROMOTIONS {
                        if sink.take(TdMove { promotion: Some(k), ..mv }) {
                            return true;
                        }
                    }
                } else if sink.take(mv) {
                    return true;
                }
            }
        }
        false
    }
}

/// Calls `f` with the position whose moves are generated and the prefix they
/// carry: `st` itself, or with a pending promotion each of the four promoted
/// positions in turn, until `f` returns true; returns whether it stopped.
fn each_promoted(st: &TdState, mut f: impl FnMut(&TdState, Option<(Square, Kind)>) -> bool) -> bool {
    match st.pending {
        None => f(st, None),
        Some(p) => Kind::PROMOTIONS.into_iter().any(|k| f(&promote_pending(st, p, k), Some((p, k)))),
    }
}

/// Calls `emit` with every legal move of the side to move (with the pending
/// promotion's prefix, when one is pending) until it returns true; returns
/// whether it stopped early.
pub fn for_each_legal(st: &TdState, emit: &mut impl FnMut(TdMove) -> bool) -> bool {
    each_promoted(st, |s, prefix| Generator::new(s).run(&mut |mv| emit(TdMove { prefix, ..mv })))
}

/// The position with the pending pawn on `p` promoted to `kind`, nothing
/// pending.
fn promote_pending(st: &TdState, p: Square, kind: Kind) -> TdState {
    let mut s = st.clone();
    s.take(p.0);
    s.put(p.0, code(kind, st.side));
    s.pending = None;
    s
}

/// Every legal move of the side to move, in generation order.
pub fn legal_moves(st: &TdState) -> Vec<TdMove> {
    let mut out = Vec::with_capacity(64);
    for_each_legal(st, &mut |mv| {
        out.push(mv);
        false
    });
    out
}

/// How many legal moves the side to move has.
pub fn count_legal(st: &TdState) -> usize {
    let mut n = Counter(0);
    each_promoted(st, |s, _| Generator::new(s).run(&mut n));
    n.0
}

/// Whether the side to move has a legal move.
pub fn has_legal_move(st: &TdState) -> bool {
    for_each_legal(st, &mut |_| true)
}

/// Whether the side to move is in check.
pub fn side_in_check(st: &TdState) -> bool {
    in_check(&st.bits, st.side)
}

/// Whether `mv` is legal in `st`.
pub fn is_legal(st: &TdState, mv: TdMove) -> bool {
    // Only the moves of the piece or kind `mv` names are generated.
    let only = match mv.kind {
        MoveKind::Board => Only::Boards,
        MoveKind::CastleShort | MoveKind::CastleLong => Only::Castling,
        _ => Only::From(mv.from),
    };
    let promoted;
    let (st, mv) = match (st.pending, mv.prefix) {
        (None, None) => (st, mv),
        (Some(p), Some((sq, kind))) if p == sq => {
            promoted = promote_pending(st, p, kind);
            (&promoted, TdMove { prefix: None, ..mv })
        }
        _ => return false,
    };
    Generator::new(st).run_only(only, &mut |m| m == mv)
}

/// Whether an en-passant capture is legal in `st` (for repetition, §9).
pub fn ep_capture_legal(st: &TdState) -> bool {
    st.ep.is_some() && for_each_legal(st, &mut |m| m.kind == MoveKind::EnPassant)
}

/// The castling rights a move touching `sq` (from or to) takes away.
fn rights_lost(sq: u8) -> u8 {
    match sq {
        52 => WHITE_SHORT | WHITE_LONG,
        53 => WHITE_SHORT,
        48 => WHITE_LONG,
        94 => BLACK_SHORT | BLACK_LONG,
        95 => BLACK_SHORT,
        90 => BLACK_LONG,
        _ => 0,
    }
}

/// Plays a legal move: the position after it (§4–7, counters §11).
pub fn play(st: &TdState, mv: TdMove) -> TdState {
    let us = st.side;
    let mut s = match mv.prefix {
        Some((p, k)) => promote_pending(st, p, k),
        None => st.clone(),
    };
    let mut reset = mv.prefix.is_some();
    let mut touched = [0u8; 2];
    s.ep = None;
    match mv.kind {
        MoveKind::Normal | MoveKind::DoubleStep | MoveKind::EnPassant => {
            let piece = s.take(mv.from);
            let captured = s.take(mv.to);
            if captured != 0 {
                reset = true;
                s.moved &= !(1u128 << mv.to);
            }
            if mv.kind == MoveKind::EnPassant
                && let Some(victim) = st.ep
            {
                s.take(victim.0);
                s.moved &= !victim.bit();
            }
            let placed = mv.promotion.map_or(piece, |k| code(k, us));
            s.put(mv.to, placed);
            if Kind::of_code(piece) == Kind::Pawn {
                reset = true;
                s.moved &= !(1u128 << mv.from);
                if mv.promotion.is_none() && original_pawn_squares(us) & (1 << mv.to) != 0 {
                    s.moved |= 1 << mv.to;
                }
            }
            if mv.kind == MoveKind::DoubleStep {
                s.ep = Some(Square(mv.to));
            }
            touched = [mv.from, mv.to];
        }
        MoveKind::CastleShort | MoveKind::CastleLong => {
            let [king, short_rook, long_rook, _] = castle_squares(us);
            let rook_from = if mv.kind == MoveKind::CastleShort { short_rook } else { long_rook };
            let k = s.take(king.0);
            let r = s.take(rook_from.0);
            s.put(mv.to, k);
            s.put(king.0, r);
            touched = [king.0, rook_from.0];
        }
        MoveKind::Board => {
            let (from, to) = (Pin(mv.from), Pin(mv.to));
            let fx = board_effects(&s, from, to);
            if let Some((a, b)) = fx.passenger {
                let c = s.take(a);
                s.pins = fx.pins;
                s.put(b, c);
                s.moved &= !(1u128 << a);
                if Kind::of_code(c) == Kind::Pawn && original_pawn_squares(colour_of(c)) & (1 << b) != 0 {
                    s.moved |= 1 << b;
                }
                touched = [a, a];
            }
            s.pins = fx.pins;
            s.bits.present = fx.bits.present;
            if let (Some(p), Some(k)) = (fx.own_promotion, mv.promotion) {
                s.take(p.0);
                s.put(p.0, code(k, us));
                s.moved &= !p.bit();
                reset = true;
            }
            if let Some(p) = fx.pending {
                s.pending = Some(p);
                reset = true;
            }
        }
    }
    s.castling &= !(rights_lost(touched[0]) | rights_lost(touched[1]));
    s.halfmove = if reset { 0 } else { st.halfmove.saturating_add(1) };
    if us == Colour::Black {
        s.fullmove = s.fullmove.saturating_add(1);
    }
    s.side = us.other();
    s
}
