//! Property tests for Fairschach over random legal play (`docs/rules/fairschach.md`).
//!
//! Every game starts from one of a few Fairschach FENs and is played by choosing,
//! for each seat to move, one of its `legal_moves` with a small PRNG seeded by
//! proptest. After every pair the result is checked against properties of the rules
//! file and against an independent model written here from the rules text alone:
//! legality (§2, brute force over every from/to/promotion, cross-checked with
//! shakmaty where shakmaty accepts the position), first-move right (§3b),
//! simultaneous execution (§4), pauses (§5), bookkeeping of the FEN fields (§1),
//! the endgame switch (§7) and the end of the game (§6).

use fairsteward::rules::fairschach::{BLACK, Fairschach, FsMove, FsPosition, Mode, PauseRule, WHITE};
use fairsteward::rules::{EndReason, Outcome, Resolution, Seat, SeatResult, Variant};
use proptest::prelude::*;
use proptest::test_runner::Config;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, File, FromSetup, Piece, Position, Rank, Role, Setup, Square, attacks,
};

// ---------------------------------------------------------------------------
// Start positions
// ---------------------------------------------------------------------------

const STARTS: &[&str] = &[
    // The start position.
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1",
    // Castling on both wings for both sides soon.
    "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R s KQkq - - 0 8",
    // En passant for both sides (c3 for Black, f6 for White).
    "rnbqkbnr/ppp1p1pp/8/4Pp2/2Pp4/8/PP1P1PPP/RNBQKBNR s KQkq c3,f6 - 0 4",
    // Promotions next to corner rooks with castling rights.
    "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R s KQkq - - 0 30",
    // White in check: first-move right for White.
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR s KQkq - - 0 3",
    // Black in check: first-move right for Black.
    "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR s KQkq - - 0 3",
    // Both kings in check.
    "4k3/pp3ppp/8/4R3/8/8/PP3PPP/4K2r s - - - 0 10",
    // Paused pieces.
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R s KQkq - f3,e4,e5 0 3",
    // Normal mode (after the FSR 8 switch), White in check, castling rights.
    "r3k3/8/8/8/8/8/3q4/R3K2R w KQq - - 0 40",
    // A small endgame, near the FSR 8 switch.
    "8/5k2/3p4/2r5/4P3/2N2K2/6P1/8 s - - - 0 35",
    // Pawns about to promote on a crowded board, kings close together.
    "1n2k3/P1P2p2/4K3/8/8/8/1p1p2P1/4N3 s - - - 0 40",
    // Black's bishop can take the h1 rook while White castles short.
    "r3k2r/pbppqppp/1p3n2/4p3/8/2N5/PPPPQP1P/R3K2R s KQkq - - 0 8",
    // White can take d6 en passant while Black's pawn advances or a piece lands on d6.
    "r2qk2r/ppp2ppp/8/3pP3/8/8/PPP2PPP/R2QK2R s KQkq d6 - 0 12",
    // Near the fifty-move rule, in simultaneous and in normal mode.
    "8/5k2/8/2r5/8/2N2K2/8/8 s - - - 44 80",
    "4k3/8/8/2r5/8/2N5/8/4K2R w K - - 93 80",
    // White in check; Black's ep square c3 is where White can block the check.
    "rnb1kbnr/ppp1pppp/8/q7/2Pp4/8/PP2PPPP/RNBQKBNR s KQkq c3 - 0 4",
    // d2-d4 checks: the FSR 8 switch with an ep square for the side to move.
    "8/8/8/4k3/4p3/8/3P4/4K3 s - - - 0 30",
    // Normal mode with an ep square for the side to move.
    "8/8/8/8/3pP3/8/8/4K2k b - e3 - 0 40",
    // White's only movable piece is paused: the pause is lifted (§2, Decision).
    "1r2k3/8/8/8/3N4/p7/P7/K7 s - - d4 0 20",
    // Smothered mates for both: Nf7 with Nf2 checkmates both kings at once.
    "6rk/6pp/8/6N1/6n1/8/6PP/6RK s - - - 0 20",
];

// ---------------------------------------------------------------------------
// A small deterministic PRNG (splitmix64)
// ---------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------
// Chess helpers written from the rules text
// ---------------------------------------------------------------------------

fn color_of(seat: Seat) -> Color {
    if seat == WHITE { Color::White } else { Color::Black }
}

fn seat_of(color: Color) -> Seat {
    match color {
        Color::White => WHITE,
        Color::Black => BLACK,
    }
}

fn home_rank(color: Color) -> Rank {
    color.fold_wb(Rank::First, Rank::Eighth)
}

fn last_rank(color: Color) -> Rank {
    color.fold_wb(Rank::Eighth, Rank::First)
}

fn in_check(board: &Board, color: Color) -> bool {
    board.king_of(color).is_some_and(|k| board.attacks_to(k, !color, board.occupied()).any())
}

fn attacked(board: &Board, sq: Square, by: Color) -> bool {
    board.attacks_to(sq, by, board.occupied()).any()
}

fn corner(color: Color, file: File) -> Square {
    Square::from_coords(file, home_rank(color))
}

/// How a move is carried out on `board`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How {
    Plain,
    /// En passant; the passed pawn stands on the square given.
    EnPassant(Square),
    /// Castling: the rook's start and target squares.
    Castle(Square, Square),
}

fn how(board: &Board, mv: FsMove) -> How {
    let piece = board.piece_at(mv.from).expect("a piece on the start square");
    if piece.role == Role::King && mv.from.file() == File::E && mv.from.file().distance(mv.to.file()) == 2 {
        let rank = mv.from.rank();
        return if mv.to.file() == File::G {
            How::Castle(Square::from_coords(File::H, rank), Square::from_coords(File::F, rank))
        } else {
            How::Castle(Square::from_coords(File::A, rank), Square::from_coords(File::D, rank))
        };
    }
    if piece.role == Role::Pawn && mv.from.file() != mv.to.file() && board.piece_at(mv.to).is_none() {
        return How::EnPassant(Square::from_coords(mv.to.file(), mv.from.rank()));
    }
    How::Plain
}

/// The piece as it arrives on its target square.
fn arriving(board: &Board, mv: FsMove) -> Piece {
    let p = board.piece_at(mv.from).expect("a piece on the start square");
    Piece { color: p.color, role: mv.promotion.unwrap_or(p.role) }
}

/// One move played alone on `board` by standard chess rules.
fn apply_alone(board: &Board, mv: FsMove) -> Board {
    let mut b = board.clone();
    let arrive = arriving(board, mv);
    match how(board, mv) {
        How::Plain => {}
        How::EnPassant(victim) => b.discard_piece_at(victim),
        How::Castle(rook_from, rook_to) => {
            b.discard_piece_at(rook_from);
            b.set_piece_at(rook_to, Piece { color: arrive.color, role: Role::Rook });
        }
    }
    b.discard_piece_at(mv.from);
    b.set_piece_at(mv.to, arrive);
    b
}

/// Whether `mv` is a move of standard chess for `color` (before §2's two rules).
fn pseudo_legal(board: &Board, color: Color, castling: Bitboard, ep: Option<Square>, mv: FsMove) -> bool {
    let Some(piece) = board.piece_at(mv.from) else { return false };
    if piece.color != color || mv.from == mv.to || board.color_at(mv.to) == Some(color) {
        return false;
    }
    let promotes = piece.role == Role::Pawn && mv.to.rank() == last_rank(color);
    match mv.promotion {
        None if promotes => return false,
        Some(_) if !promotes => return false,
        Some(Role::Queen | Role::Rook | Role::Bishop | Role::Knight) | None => {}
        Some(_) => return false,
    }
    let occupied = board.occupied();
    match piece.role {
        Role::Pawn => {
            let dir: i32 = color.fold_wb(1, -1);
            let fr = mv.from.rank() as i32;
            let tr = mv.to.rank() as i32;
            let df = mv.to.file() as i32 - mv.from.file() as i32;
            if df == 0 {
                if occupied.contains(mv.to) {
                    return false;
                }
                if tr == fr + dir {
                    return true;
                }
                let start = color.fold_wb(Rank::Second, Rank::Seventh);
                let middle = Square::from_coords(mv.from.file(), Rank::new((fr + dir) as u32));
                tr == fr + 2 * dir && mv.from.rank() == start && !occupied.contains(middle)
            } else if df.abs() == 1 && tr == fr + dir {
                if board.color_at(mv.to) == Some(!color) {
                    return true;
                }
                ep == Some(mv.to)
                    && !occupied.contains(mv.to)
                    && board.piece_at(Square::from_coords(mv.to.file(), mv.from.rank()))
                        == Some(Piece { color: !color, role: Role::Pawn })
            } else {
                false
            }
        }
        Role::King => {
            if attacks::king_attacks(mv.from).contains(mv.to) {
                return true;
            }
            // Castling (FIDE): king and rook unmoved (the rights), squares between
            // empty, king not in check, not passing or landing on an attacked square.
            let rank = home_rank(color);
            if mv.from != Square::from_coords(File::E, rank) || mv.to.rank() != rank {
                return false;
            }
            let (rook_from, passes) = match mv.to.file() {
                File::G => (corner(color, File::H), [Square::from_coords(File::F, rank), mv.to]),
                File::C => (corner(color, File::A), [Square::from_coords(File::D, rank), mv.to]),
                _ => return false,
            };
            castling.contains(rook_from)
                && board.piece_at(rook_from) == Some(Piece { color, role: Role::Rook })
                && (attacks::between(mv.from, rook_from) & occupied).is_empty()
                && !attacked(board, mv.from, !color)
                && passes.iter().all(|&sq| !attacked(board, sq, !color))
        }
        _ => attacks::attacks(mv.from, piece, occupied).contains(mv.to),
    }
}

/// §2: a move of standard chess that captures no king and leaves the own king unattacked.
fn legal(board: &Board, color: Color, castling: Bitboard, ep: Option<Square>, mv: FsMove) -> bool {
    pseudo_legal(board, color, castling, ep, mv)
        && board.piece_at(mv.to) != Some(Piece { color: !color, role: Role::King })
        && !in_check(&apply_alone(board, mv), color)
}

/// Every §2-legal move, by brute force over start square, target square and promotion.
fn all_legal(board: &Board, color: Color, castling: Bitboard, ep: Option<Square>) -> Vec<FsMove> {
    let mut out = Vec::new();
    for from in board.by_color(color) {
        for to in Square::ALL {
            let promos: &[Option<Role>] = if board.role_at(from) == Some(Role::Pawn) && to.rank() == last_rank(color) {
                &[Some(Role::Queen), Some(Role::Rook), Some(Role::Bishop), Some(Role::Knight)]
            } else {
                &[None]
            };
            for &promotion in promos {
                let mv = FsMove { from, to, promotion };
                if legal(board, color, castling, ep, mv) {
                    out.push(mv);
                }
            }
        }
    }
    out.sort_by_key(ToString::to_string);
    out
}

/// The same list from shakmaty, where shakmaty accepts the position with `color` to
/// move (it refuses, e.g., a position in which the other side is in check).
// shakmaty's own error type is large; this is test code that drops it at once.
#[allow(clippy::result_large_err)]
fn shakmaty_legal(board: &Board, color: Color, castling: Bitboard, ep: Option<Square>) -> Option<Vec<String>> {
    let mut setup = Setup::empty();
    setup.board = board.clone();
    setup.turn = color;
    setup.castling_rights = castling;
    setup.ep_square = ep;
    let pos: Chess = Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(|e| e.ignore_impossible_check())
        .or_else(|e| e.ignore_too_much_material())
        .ok()?;
    let mut moves: Vec<String> =
        pos.legal_moves().into_iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
    moves.sort();
    Some(moves)
}

/// The castling corners of a position, read from its FEN (field 3).
fn castling_of(pos: &FsPosition) -> Bitboard {
    let text = pos.to_string();
    let field = text.split(' ').nth(2).expect("castling field");
    let mut rights = Bitboard::EMPTY;
    for c in field.chars() {
        match c {
            'K' => rights.add(Square::H1),
            'Q' => rights.add(Square::A1),
            'k' => rights.add(Square::H8),
            'q' => rights.add(Square::A8),
            _ => {}
        }
    }
    rights
}

/// What a side may enter in `pos` (§2 with the pause of FSR 9 and its lifting).
fn expected_entry(rules: &Fairschach, pos: &FsPosition, color: Color) -> Vec<FsMove> {
    if let Mode::Normal(to_move) = pos.mode()
        && to_move != color
    {
        return Vec::new();
    }
    let board = pos.board();
    let standard = all_legal(board, color, castling_of(pos), pos.ep_for(color));
    if rules.pause == PauseRule::Off || in_check(board, color) {
        return standard;
    }
    let paused = pos.paused() & board.by_color(color);
    let free: Vec<FsMove> = standard.iter().copied().filter(|m| !paused.contains(m.from)).collect();
    if free.is_empty() { standard } else { free }
}

fn strength(role: Role) -> u8 {
    match role {
        Role::King => 5,
        Role::Queen => 4,
        Role::Rook => 3,
        Role::Bishop | Role::Knight => 2,
        Role::Pawn => 1,
    }
}

// ---------------------------------------------------------------------------
// The model of a pair / a single move (§3–§5, §7, §1)
// ---------------------------------------------------------------------------

/// A move that was carried out, with its facts in the position it was played in.
#[derive(Clone, Copy, Debug)]
struct Played {
    mv: FsMove,
    color: Color,
    role: Role,
    arrive: Piece,
    how: How,
}

impl Played {
    fn new(board: &Board, mv: FsMove) -> Played {
        let p = board.piece_at(mv.from).expect("a piece on the start square");
        Played { mv, color: p.color, role: p.role, arrive: arriving(board, mv), how: how(board, mv) }
    }

    fn double_step(&self) -> bool {
        self.role == Role::Pawn && self.mv.from.rank().distance(self.mv.to.rank()) == 2
    }

    fn passed(&self) -> Square {
        Square::from_coords(self.mv.from.file(), Rank::new((self.mv.from.rank() as u32 + self.mv.to.rank() as u32) / 2))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Played,
    First,
    Struck,
}

fn status_of(r: &SeatResult) -> Status {
    match r {
        SeatResult::Played => Status::Played,
        SeatResult::First => Status::First,
        SeatResult::Struck(_) => Status::Struck,
    }
}

/// §4.7: rights lost by a king or rook that moved and a rook captured on its corner.
fn castling_after(rights: Bitboard, played: &[Played]) -> Bitboard {
    let mut rights = rights;
    for p in played {
        if p.role == Role::King {
            rights.discard(corner(p.color, File::A));
            rights.discard(corner(p.color, File::H));
        }
        rights.discard(p.mv.from);
        rights.discard(p.mv.to);
    }
    rights
}

/// §4: simultaneous execution.
fn simultaneous(board: &Board, w: FsMove, b: FsMove) -> Board {
    let mains = [Played::new(board, w), Played::new(board, b)];
    let mut movers: Vec<(Square, Square, Piece)> = Vec::new();
    for p in &mains {
        movers.push((p.mv.from, p.mv.to, p.arrive));
        if let How::Castle(rf, rt) = p.how {
            movers.push((rf, rt, Piece { color: p.color, role: Role::Rook }));
        }
    }
    // 1. Lift every moving piece.
    let mut out = board.clone();
    for &(from, _, _) in &movers {
        out.discard_piece_at(from);
    }
    // 2.–5. Arrivals.
    for sq in Square::ALL {
        let here: Vec<Piece> = movers.iter().filter(|m| m.1 == sq).map(|m| m.2).collect();
        match here[..] {
            [] => {}
            [one] => out.set_piece_at(sq, one),
            [x, y] => {
                assert_ne!(x.color, y.color, "two pieces of one side on {sq}");
                let (sx, sy) = (strength(x.role), strength(y.role));
                if sx == sy {
                    out.discard_piece_at(sq);
                } else {
                    out.set_piece_at(sq, if sx > sy { x } else { y });
                }
            }
            _ => unreachable!("more than two arrivals on {sq}"),
        }
    }
    // 6. En passant: the passed pawn goes only if it still stands.
    for p in &mains {
        if let How::EnPassant(victim) = p.how
            && !movers.iter().any(|m| m.0 == victim)
            && out.piece_at(victim) == Some(Piece { color: !p.color, role: Role::Pawn })
        {
            out.discard_piece_at(victim);
        }
    }
    out
}

fn list(squares: impl IntoIterator<Item = Square>) -> String {
    let mut v: Vec<Square> = squares.into_iter().collect();
    v.sort(); // Square order is a1, b1, …, h1, a2, …: rank, then file.
    if v.is_empty() { "-".to_owned() } else { v.iter().map(ToString::to_string).collect::<Vec<_>>().join(",") }
}

fn castling_text(rights: Bitboard) -> String {
    let s: String = [(Square::H1, 'K'), (Square::A1, 'Q'), (Square::H8, 'k'), (Square::A8, 'q')]
        .iter()
        .filter(|(sq, _)| rights.contains(*sq))
        .map(|(_, c)| *c)
        .collect();
    if s.is_empty() { "-".to_owned() } else { s }
}

struct ModelPair {
    fen: String,
    statuses: Vec<Status>,
    /// The board after the first move alone (first-move right only).
    after_first: Option<Board>,
}

/// The whole next position, as Fairschach FEN, for a simultaneous-mode pair.
fn model_pair(rules: &Fairschach, pos: &FsPosition, w: FsMove, b: FsMove) -> ModelPair {
    let board = pos.board();
    let rights = castling_of(pos);
    let (wc, bc) = (in_check(board, Color::White), in_check(board, Color::Black));
    let (after, played, statuses, after_first) = if wc != bc {
        // §3(b): the side in check (A) moves first; B follows if still legal in P1.
        let (a, bm, a_color) = if wc { (w, b, Color::White) } else { (b, w, Color::Black) };
        let pa = Played::new(board, a);
        let p1 = apply_alone(board, a);
        let rights1 = castling_after(rights, &[pa]);
        let b_color = !a_color;
        let b_ep = pos.ep_for(b_color).filter(|ep| {
            let pawn_at =
                Square::from_coords(ep.file(), if ep.rank() == Rank::Third { Rank::Fourth } else { Rank::Fifth });
            p1.piece_at(pawn_at) == Some(Piece { color: a_color, role: Role::Pawn })
        });
        let (a_status, b_status) =
            (Status::First, if legal(&p1, b_color, rights1, b_ep, bm) { Status::Played } else { Status::Struck });
        let mut played = vec![pa];
        let mut after = p1.clone();
        if b_status == Status::Played {
            played.push(Played::new(&p1, bm));
            after = apply_alone(&p1, bm);
        }
        let statuses = if a_color == Color::White { vec![a_status, b_status] } else { vec![b_status, a_status] };
        (after, played, statuses, Some(p1))
    } else {
        // §3(a), §3(c): simultaneous execution.
        let after = simultaneous(board, w, b);
        (after, vec![Played::new(board, w), Played::new(board, b)], vec![Status::Played, Status::Played], None)
    };

    // §1 ep squares, §5 pauses, §4.7 castling, counters.
    let mut ep = Vec::new();
    let mut paused = Vec::new();
    for p in &played {
        let stands = after.piece_at(p.mv.to) == Some(p.arrive);
        if p.double_step() && stands {
            ep.push(p.passed());
        }
        let pausable = p.role != Role::King && stands;
        let keep = match rules.pause {
            PauseRule::Moved => pausable,
            PauseRule::Capturable => pausable && attacked(&after, p.mv.to, !p.color),
            PauseRule::Off => false,
        };
        if keep {
            paused.push(p.mv.to);
        }
    }
    let rights = castling_after(rights, &played);
    let removed = after.occupied().count() < board.occupied().count();
    let pawn_moved = played.iter().any(|p| p.role == Role::Pawn);
    let mut halfmove = if pawn_moved || removed { 0 } else { pos.halfmove() + 1 };
    let mut mode = "s".to_owned();
    // §7: the FSR 8 switch.
    if let Some(limit) = rules.normal_below
        && after.occupied().count() as u32 <= limit
        && in_check(&after, Color::White) != in_check(&after, Color::Black)
    {
        let to_move = if in_check(&after, Color::White) { Color::White } else { Color::Black };
        mode = if to_move == Color::White { "w" } else { "b" }.to_owned();
        paused.clear();
        // Only the ep square usable by the side to move: White's lie on rank 6.
        ep.retain(|sq| sq.rank() == to_move.fold_wb(Rank::Sixth, Rank::Third));
        halfmove *= 2;
    }
    let fen =
        format!("{after} {mode} {} {} {} {halfmove} {}", castling_text(rights), list(ep), list(paused), pos.pair() + 1);
    ModelPair { fen, statuses, after_first }
}

/// The next position for a single move in normal mode.
fn model_normal(pos: &FsPosition, mv: FsMove) -> String {
    let board = pos.board();
    let p = Played::new(board, mv);
    let after = apply_alone(board, mv);
    let rights = castling_after(castling_of(pos), &[p]);
    let ep = if p.double_step() { vec![p.passed()] } else { vec![] };
    let removed = after.occupied().count() < board.occupied().count();
    let halfmove = if p.role == Role::Pawn || removed { 0 } else { pos.halfmove() + 1 };
    let pair = if p.color == Color::Black { pos.pair() + 1 } else { pos.pair() };
    let mode = if p.color == Color::White { "b" } else { "w" };
    format!("{after} {mode} {} {} - {halfmove} {pair}", castling_text(rights), list(ep))
}

/// python-chess's `has_insufficient_material`, which §6.3 adopts.
fn side_insufficient(board: &Board, color: Color) -> bool {
    let own = board.by_color(color);
    if (own & (board.pawns() | board.rooks() | board.queens())).any() {
        return false;
    }
    if (own & board.knights()).any() {
        let other = board.by_color(!color) & !board.kings() & !board.queens();
        return own.count() <= 2 && other.is_empty();
    }
    if (own & board.bishops()).any() {
        let same = (board.bishops() & Bitboard::DARK_SQUARES).is_empty()
            || (board.bishops() & Bitboard::LIGHT_SQUARES).is_empty();
        return same && board.pawns().is_empty() && board.knights().is_empty();
    }
    true
}

fn key(pos: &FsPosition) -> String {
    pos.to_string().split(' ').take(5).collect::<Vec<_>>().join(" ")
}

/// §6 in its order.
fn model_outcome(history: &[FsPosition], pos: &FsPosition) -> Option<Outcome> {
    let sides: Vec<Color> = match pos.mode() {
        Mode::Simultaneous => vec![Color::White, Color::Black],
        Mode::Normal(c) => vec![c],
    };
    let board = pos.board();
    let rights = castling_of(pos);
    // A pause never takes the last move away (§2's lifting), so "no legal move"
    // is decided on standard moves alone.
    let status: Vec<(Color, bool, bool)> = sides
        .iter()
        .map(|&c| (c, in_check(board, c), !all_legal(board, c, rights, pos.ep_for(c)).is_empty()))
        .collect();
    let mated: Vec<Color> = status.iter().filter(|s| s.1 && !s.2).map(|s| s.0).collect();
    if mated.len() == 2 {
        return Some(Outcome::draw(EndReason::BothCheckmated));
    }
    if let [loser] = mated[..] {
        return Some(Outcome::win(seat_of(!loser), EndReason::Checkmate));
    }
    if status.iter().any(|s| !s.1 && !s.2) {
        return Some(Outcome::draw(EndReason::Stalemate));
    }
    if side_insufficient(board, Color::White) && side_insufficient(board, Color::Black) {
        return Some(Outcome::draw(EndReason::InsufficientMaterial));
    }
    let k = key(pos);
    if history.iter().filter(|h| key(h) == k).count() + 1 >= 3 {
        return Some(Outcome::draw(EndReason::ThreefoldRepetition));
    }
    let limit = if pos.mode() == Mode::Simultaneous { 50 } else { 100 };
    if pos.halfmove() >= limit {
        return Some(Outcome::draw(EndReason::FiftyMoveRule));
    }
    None
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

fn iccf(mv: FsMove) -> String {
    let mut s = format!(
        "{}{}{}{}",
        mv.from.file() as u32 + 1,
        mv.from.rank() as u32 + 1,
        mv.to.file() as u32 + 1,
        mv.to.rank() as u32 + 1
    );
    if let Some(p) = mv.promotion {
        s.push(match p {
            Role::Queen => '1',
            Role::Rook => '2',
            Role::Bishop => '3',
            _ => '4',
        });
    }
    s
}

/// §1's reader: lists and castling letters in any order are read as the same
/// position; an empty or king-holding paused square, or a pause in normal mode,
/// is refused.
fn check_reader(pos: &FsPosition, fen: &str, ctx: &str) -> Result<(), TestCaseError> {
    let fields: Vec<&str> = fen.split(' ').collect();
    let reversed = |f: &str, sep: char| f.split(sep).rev().collect::<Vec<_>>().join(&sep.to_string());
    let castling_rev: String = if fields[2] == "-" { "-".to_owned() } else { fields[2].chars().rev().collect() };
    let shuffled = format!(
        "{} {} {} {} {} {} {}",
        fields[0],
        fields[1],
        castling_rev,
        reversed(fields[3], ','),
        reversed(fields[4], ','),
        fields[5],
        fields[6]
    );
    let read = FsPosition::from_fen(&shuffled);
    prop_assert_eq!(read.as_ref(), Ok(pos), "{}: reordered lists {}", ctx, shuffled);
    let board = pos.board();
    let with_paused = |sq: Square| {
        let list = if fields[4] == "-" { sq.to_string() } else { format!("{},{sq}", fields[4]) };
        format!("{} {} {} {} {} {} {}", fields[0], fields[1], fields[2], fields[3], list, fields[5], fields[6])
    };
    if let Some(empty) = Square::ALL.into_iter().find(|&sq| board.piece_at(sq).is_none()) {
        let bad = with_paused(empty);
        prop_assert!(FsPosition::from_fen(&bad).is_err(), "{}: empty paused square accepted: {}", ctx, bad);
    }
    // An ep square without the double-stepped pawn in front of it, or a second one
    // for a side, is refused.
    let with_ep = |sq: Square| {
        let list = if fields[3] == "-" { sq.to_string() } else { format!("{},{sq}", fields[3]) };
        format!("{} {} {} {} {} {} {}", fields[0], fields[1], fields[2], list, fields[4], fields[5], fields[6])
    };
    for file in File::ALL {
        let ep = Square::from_coords(file, Rank::Third);
        if pos.ep_for(Color::Black) == Some(ep) {
            continue;
        }
        let pawn = Square::from_coords(file, Rank::Fourth);
        let has_pawn = board.piece_at(pawn) == Some(Piece { color: Color::White, role: Role::Pawn });
        if !has_pawn || pos.ep_for(Color::Black).is_some() {
            let bad = with_ep(ep);
            prop_assert!(FsPosition::from_fen(&bad).is_err(), "{}: inconsistent ep accepted: {}", ctx, bad);
        }
    }
    let king = board.king_of(Color::White).expect("white king");
    let bad = with_paused(king);
    prop_assert!(FsPosition::from_fen(&bad).is_err(), "{}: paused king accepted: {}", ctx, bad);
    if matches!(pos.mode(), Mode::Normal(_))
        && let Some(piece) = (board.occupied() & !board.kings()).into_iter().next()
    {
        let bad = with_paused(piece);
        prop_assert!(FsPosition::from_fen(&bad).is_err(), "{}: pause in normal mode accepted: {}", ctx, bad);
    }
    Ok(())
}

/// Properties of one position: kings (1), FEN round trip (2), legal-move lists (6),
/// pauses and seats (7).
fn check_state(rules: &Fairschach, pos: &FsPosition, after_pair: bool, ctx: &str) -> Result<(), TestCaseError> {
    let board = pos.board();
    let fen = pos.to_string();
    // 1. Exactly one king per side.
    for c in Color::ALL {
        prop_assert_eq!((board.kings() & board.by_color(c)).count(), 1, "{}: {} kings in {}", ctx, c, fen);
    }
    // 2. FEN round trip.
    let back = FsPosition::from_fen(&fen);
    prop_assert_eq!(back.as_ref(), Ok(pos), "{}: FEN does not read back: {}", ctx, fen);
    prop_assert_eq!(back.unwrap().to_string(), fen.clone(), "{}: FEN prints differently", ctx);
    let parsed = rules.parse_state(&fen);
    prop_assert_eq!(parsed.as_ref(), Ok(pos), "{}: parse_state", ctx);
    check_reader(pos, &fen, ctx)?;
    // 7. Paused squares and seats.
    for sq in pos.paused() {
        prop_assert!(board.role_at(sq).is_some_and(|r| r != Role::King), "{}: paused {} in {}", ctx, sq, fen);
    }
    let seats = rules.seats_to_move(pos);
    match pos.mode() {
        Mode::Normal(c) => {
            prop_assert!(pos.paused().is_empty(), "{}: pauses in normal mode: {}", ctx, fen);
            prop_assert_eq!(seats.len(), 1, "{}: normal mode seats in {}", ctx, fen);
            prop_assert!(seats.contains(seat_of(c)), "{}: wrong seat to move in {}", ctx, fen);
            prop_assert!(!in_check(board, !c), "{}: side not to move in check in {}", ctx, fen);
        }
        Mode::Simultaneous => prop_assert_eq!(seats.len(), 2, "{}: simultaneous seats in {}", ctx, fen),
    }
    if after_pair && rules.pause == PauseRule::Off {
        prop_assert!(pos.paused().is_empty(), "{}: pause off but paused squares in {}", ctx, fen);
    }
    // 6. Legal moves: sorted, unique, checked on receipt in every notation, and
    // exactly the model's list.
    for seat in [WHITE, BLACK] {
        let color = color_of(seat);
        let moves = rules.legal_moves(pos, seat);
        let texts: Vec<String> = moves.iter().map(ToString::to_string).collect();
        for w in texts.windows(2) {
            prop_assert!(w[0] < w[1], "{}: legal_moves not strictly sorted ({} then {}) in {}", ctx, w[0], w[1], fen);
        }
        if !seats.contains(seat) {
            prop_assert!(moves.is_empty(), "{}: moves for a seat not to move in {}", ctx, fen);
            continue;
        }
        for (&mv, text) in moves.iter().zip(&texts) {
            let got = rules.check_move(pos, seat, text);
            prop_assert_eq!(got.as_ref().ok(), Some(&mv), "{}: check_move({}) gave {:?} in {}", ctx, text, got, fen);
            let san = rules.notation(pos, seat, mv);
            let got = rules.check_move(pos, seat, &san);
            prop_assert_eq!(got.as_ref().ok(), Some(&mv), "{}: SAN {} of {} gave {:?} in {}", ctx, san, text, got, fen);
            let num = iccf(mv);
            let got = rules.check_move(pos, seat, &num);
            prop_assert_eq!(
                got.as_ref().ok(),
                Some(&mv),
                "{}: ICCF {} of {} gave {:?} in {}",
                ctx,
                num,
                text,
                got,
                fen
            );
        }
        let expected = expected_entry(rules, pos, color);
        prop_assert_eq!(
            &moves,
            &expected,
            "{}: {} legal moves differ from §2 in {}: got {:?}, expected {:?}",
            ctx,
            color,
            fen,
            texts,
            expected.iter().map(ToString::to_string).collect::<Vec<_>>()
        );
        // The model's standard moves agree with shakmaty's where shakmaty can judge.
        let standard = all_legal(board, color, castling_of(pos), pos.ep_for(color));
        if let Some(sm) = shakmaty_legal(board, color, castling_of(pos), pos.ep_for(color)) {
            let mine: Vec<String> = standard.iter().map(ToString::to_string).collect::<Vec<_>>();
            let mut mine_sorted = mine.clone();
            mine_sorted.sort();
            prop_assert_eq!(mine_sorted, sm, "{}: test model disagrees with shakmaty in {}", ctx, fen);
        }
        // Pause: moves of paused and of free pieces never mix unless in check.
        if rules.pause != PauseRule::Off && !in_check(board, color) {
            let own_paused = pos.paused() & board.by_color(color);
            let held = moves.iter().any(|m| own_paused.contains(m.from));
            let free = moves.iter().any(|m| !own_paused.contains(m.from));
            prop_assert!(!(held && free), "{}: paused and free pieces both movable for {} in {}", ctx, color, fen);
        }
    }
    Ok(())
}

/// Whether two moves provably do not interact (property 4), conservatively.
fn non_interacting(board: &Board, rights: Bitboard, pos: &FsPosition, w: FsMove, b: FsMove) -> bool {
    if in_check(board, Color::White) || in_check(board, Color::Black) {
        return false;
    }
    let squares = |mv: FsMove| -> Vec<Square> {
        let mut v = vec![mv.from, mv.to];
        match how(board, mv) {
            How::EnPassant(_) => return Vec::new(),
            How::Castle(rf, rt) => v.extend([rf, rt]),
            How::Plain => {}
        }
        v
    };
    let (ws, bs) = (squares(w), squares(b));
    if ws.is_empty() || bs.is_empty() || ws.iter().any(|s| bs.contains(s)) {
        return false;
    }
    // Neither move captures.
    if board.piece_at(w.to).is_some() || board.piece_at(b.to).is_some() {
        return false;
    }
    // Each stays legal after the other alone (paths, pins, castling squares).
    let after_b = apply_alone(board, b);
    let after_w = apply_alone(board, w);
    legal(&after_b, Color::White, rights, pos.ep_for(Color::White), w)
        && legal(&after_w, Color::Black, rights, pos.ep_for(Color::Black), b)
}

/// Properties of one resolved pair: determinism (3), non-interacting moves (4),
/// struck moves (5), and the full model of the next position and outcome.
fn check_pair(
    rules: &Fairschach,
    history: &[FsPosition],
    pos: &FsPosition,
    moves: &[(Seat, FsMove)],
    r: &Resolution<FsPosition, FsMove>,
    ctx: &str,
) -> Result<(), TestCaseError> {
    let fen = pos.to_string();
    let texts: Vec<String> = moves.iter().map(|(_, m)| m.to_string()).collect();
    let board = pos.board();
    let new_board = r.state.board();
    prop_assert_eq!(r.moves.len(), moves.len(), "{}: {} {:?}", ctx, fen, texts);
    for (sm, (seat, mv)) in r.moves.iter().zip(moves) {
        prop_assert_eq!((sm.seat, sm.mv), (*seat, *mv), "{}: moves not echoed in seat order", ctx);
    }
    let statuses: Vec<Status> = r.moves.iter().map(|m| status_of(&m.result)).collect();
    match pos.mode() {
        Mode::Normal(_) => {
            prop_assert_eq!(&statuses, &vec![Status::Played], "{}: {} {:?}", ctx, fen, texts);
            let expected = model_normal(pos, moves[0].1);
            prop_assert_eq!(r.state.to_string(), expected, "{}: normal move {:?} from {}", ctx, texts, fen);
        }
        Mode::Simultaneous => {
            let (w, b) = (moves[0].1, moves[1].1);
            // 4. Non-interacting moves: the board is the two moves one after the other.
            if non_interacting(board, castling_of(pos), pos, w, b) {
                prop_assert_eq!(statuses.clone(), vec![Status::Played, Status::Played], "{}", ctx);
                let seq = apply_alone(&apply_alone(board, w), b);
                prop_assert_eq!(
                    new_board.to_string(),
                    seq.to_string(),
                    "{}: non-interacting pair {:?} from {} is not the moves in sequence",
                    ctx,
                    texts,
                    fen
                );
            }
            // 5. A struck move never changes the board.
            if let Some(struck) = statuses.iter().position(|s| *s == Status::Struck) {
                let first = 1 - struck;
                prop_assert_eq!(statuses[first], Status::First, "{}: struck without a first move", ctx);
                let alone = apply_alone(board, moves[first].1);
                prop_assert_eq!(
                    new_board.to_string(),
                    alone.to_string(),
                    "{}: struck {} changed the board: pair {:?} from {}",
                    ctx,
                    texts[struck],
                    texts,
                    fen
                );
            }
            // The whole model.
            let model = model_pair(rules, pos, w, b);
            prop_assert_eq!(
                &statuses,
                &model.statuses,
                "{}: pair {:?} from {}: statuses (after first move: {:?})",
                ctx,
                texts,
                fen,
                model.after_first.map(|b| b.to_string())
            );
            prop_assert_eq!(r.state.to_string(), model.fen, "{}: pair {:?} from {}", ctx, texts, fen);
        }
    }
    let mut seen = history.to_vec();
    seen.push(pos.clone());
    prop_assert_eq!(r.outcome, model_outcome(&seen, &r.state), "{}: outcome after {:?} from {}", ctx, texts, fen);
    Ok(())
}

/// Chooses a move: mostly uniform, sometimes a capture, sometimes (for Black) one
/// that meets White's move on its target or start square.
fn choose(rng: &mut Rng, pos: &FsPosition, legal: &[FsMove], other: Option<FsMove>) -> FsMove {
    let board = pos.board();
    let pick_from = |rng: &mut Rng, f: &dyn Fn(&FsMove) -> bool| {
        let some: Vec<FsMove> = legal.iter().copied().filter(|m| f(m)).collect();
        (!some.is_empty()).then(|| rng.pick(&some))
    };
    let special = match rng.below(8) {
        0 | 1 if other.is_some() => {
            let o = other.unwrap();
            let mut squares = vec![o.from, o.to];
            if let How::Castle(rf, rt) = how(board, o) {
                squares.extend([rf, rt]);
            }
            pick_from(rng, &|m| squares.contains(&m.to) || squares.contains(&m.from))
        }
        2 => pick_from(rng, &|m| board.piece_at(m.to).is_some()),
        3 => pick_from(rng, &|m| how(board, *m) != How::Plain || m.promotion.is_some()),
        _ => None,
    };
    special.unwrap_or_else(|| rng.pick(legal))
}

/// What the random games exercised, so that the properties are not vacuous.
#[derive(Debug, Default)]
struct Stats {
    pairs: usize,
    normal_moves: usize,
    non_interacting: usize,
    first_played: usize,
    struck: usize,
    same_square: usize,
    swaps: usize,
    en_passant: usize,
    castling: usize,
    promotion: usize,
    switches: usize,
    paused_moves_lifted: usize,
    outcomes: std::collections::BTreeMap<String, usize>,
}

fn record(stats: &mut Stats, pos: &FsPosition, moves: &[(Seat, FsMove)], r: &Resolution<FsPosition, FsMove>) {
    let board = pos.board();
    if moves.len() == 1 {
        stats.normal_moves += 1;
    } else {
        stats.pairs += 1;
        let (w, b) = (moves[0].1, moves[1].1);
        if non_interacting(board, castling_of(pos), pos, w, b) {
            stats.non_interacting += 1;
        }
        if w.to == b.to {
            stats.same_square += 1;
        }
        if w.to == b.from && b.to == w.from {
            stats.swaps += 1;
        }
        if matches!(pos.mode(), Mode::Normal(_)) != matches!(r.state.mode(), Mode::Normal(_)) {
            stats.switches += 1;
        }
    }
    for (sm, (_, mv)) in r.moves.iter().zip(moves) {
        match sm.result {
            SeatResult::First => {}
            SeatResult::Played if moves.len() == 2 && r.moves.iter().any(|m| m.result == SeatResult::First) => {
                stats.first_played += 1;
            }
            SeatResult::Struck(_) => stats.struck += 1,
            SeatResult::Played => {}
        }
        match how(board, *mv) {
            How::EnPassant(_) => stats.en_passant += 1,
            How::Castle(..) => stats.castling += 1,
            How::Plain => {}
        }
        if mv.promotion.is_some() {
            stats.promotion += 1;
        }
        let color = board.color_at(mv.from).expect("mover");
        if pos.paused().contains(mv.from) && !in_check(board, color) {
            stats.paused_moves_lifted += 1;
        }
    }
    if let Some(o) = r.outcome {
        *stats.outcomes.entry(o.reason.to_string()).or_default() += 1;
    }
}

fn play(rules: Fairschach, start: usize, seed: u64, pairs: usize) -> Result<(), TestCaseError> {
    play_counting(rules, start, seed, pairs, &mut Stats::default())
}

fn play_counting(
    rules: Fairschach,
    start: usize,
    seed: u64,
    pairs: usize,
    stats: &mut Stats,
) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let mut pos = FsPosition::from_fen(STARTS[start]).expect("start FEN");
    let mut history: Vec<FsPosition> = Vec::new();
    let name = format!("{rules:?} start {start} seed {seed}");
    check_state(&rules, &pos, false, &format!("{name} pair 0"))?;
    for n in 1..=pairs {
        let ctx = format!("{name} pair {n}");
        let outcome = rules.outcome(&history, &pos);
        prop_assert_eq!(outcome, model_outcome(&history, &pos), "{}: outcome of {}", ctx, pos.to_string());
        if outcome.is_some() {
            break;
        }
        let mut moves: Vec<(Seat, FsMove)> = Vec::new();
        let mut white_move = None;
        for seat in rules.seats_to_move(&pos).iter() {
            let legal = rules.legal_moves(&pos, seat);
            prop_assert!(
                !legal.is_empty(),
                "{}: {:?} has no move but the game goes on: {}",
                ctx,
                seat,
                pos.to_string()
            );
            let mv = choose(&mut rng, &pos, &legal, white_move);
            if seat == WHITE {
                white_move = Some(mv);
            }
            moves.push((seat, mv));
        }
        // 1 (no internal error) and 3 (determinism).
        let r1 = rules.resolve(&history, &pos, &moves);
        let r2 = rules.resolve(&history, &pos, &moves);
        prop_assert_eq!(&r1, &r2, "{}: resolution not deterministic", ctx);
        let texts: Vec<String> = moves.iter().map(|(_, m)| m.to_string()).collect();
        let r = match r1 {
            Ok(r) => r,
            Err(e) => return Err(TestCaseError::fail(format!("{ctx}: resolve {texts:?} in {pos}: {e}"))),
        };
        check_pair(&rules, &history, &pos, &moves, &r, &ctx)?;
        record(stats, &pos, &moves, &r);
        check_state(&rules, &r.state, true, &ctx)?;
        let done = r.outcome.is_some();
        history.push(pos);
        pos = r.state;
        if done {
            break;
        }
    }
    Ok(())
}

fn config() -> Config {
    Config { cases: 192, failure_persistence: None, max_shrink_iters: 200, ..Config::default() }
}

fn game() -> impl Strategy<Value = (usize, u64, usize)> {
    (0..STARTS.len(), any::<u64>(), 1usize..=60)
}

#[test]
fn start_fens_are_valid() {
    for fen in STARTS {
        let pos = FsPosition::from_fen(fen).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pos.to_string(), *fen);
    }
}

/// The random games reach every rule the properties are about.
#[test]
fn random_play_covers_the_rules() {
    let option_sets = [
        Fairschach::default(),
        Fairschach { pause: PauseRule::Capturable, normal_below: None },
        Fairschach { pause: PauseRule::Off, normal_below: None },
        Fairschach { pause: PauseRule::Moved, normal_below: Some(8) },
        Fairschach { pause: PauseRule::Moved, normal_below: Some(12) },
    ];
    let mut stats = Stats::default();
    for (i, rules) in option_sets.into_iter().enumerate() {
        for start in 0..STARTS.len() {
            for k in 0..2u64 {
                let seed = 0x5EED_0000 + 1000 * i as u64 + 10 * start as u64 + k;
                if let Err(e) = play_counting(rules, start, seed, 60, &mut stats) {
                    panic!("{e}");
                }
            }
        }
    }
    eprintln!("{stats:#?}");
    assert!(stats.non_interacting > 100, "{stats:?}");
    assert!(stats.first_played > 0 && stats.struck > 0, "{stats:?}");
    assert!(stats.same_square > 0 && stats.swaps > 0, "{stats:?}");
    assert!(stats.en_passant > 0 && stats.castling > 0 && stats.promotion > 0, "{stats:?}");
    assert!(stats.switches > 0 && stats.normal_moves > 0, "{stats:?}");
    assert!(stats.paused_moves_lifted > 0, "{stats:?}");
    for reason in ["checkmate", "insufficient material", "fifty-move rule"] {
        assert!(stats.outcomes.contains_key(reason), "{reason}: {stats:?}");
    }
}

/// Every pair of legal moves from every start position, against the model.
#[test]
fn every_pair_from_the_start_positions() {
    for rules in [Fairschach::default(), Fairschach { pause: PauseRule::Capturable, normal_below: Some(12) }] {
        for (i, fen) in STARTS.iter().enumerate() {
            let pos = FsPosition::from_fen(fen).expect("start FEN");
            if rules.outcome(&[], &pos).is_some() {
                continue;
            }
            let seats: Vec<Seat> = rules.seats_to_move(&pos).iter().collect();
            let lists: Vec<Vec<FsMove>> = seats.iter().map(|&s| rules.legal_moves(&pos, s)).collect();
            let mut pairs: Vec<Vec<(Seat, FsMove)>> = vec![Vec::new()];
            for (seat, list) in seats.iter().zip(&lists) {
                pairs = pairs
                    .iter()
                    .flat_map(|p| list.iter().map(move |&m| [p.clone(), vec![(*seat, m)]].concat()))
                    .collect();
            }
            for moves in pairs {
                let ctx = format!("{rules:?} start {i} all pairs");
                let r = rules.resolve(&[], &pos, &moves).unwrap_or_else(|e| panic!("{ctx}: {moves:?} in {fen}: {e}"));
                let checked = check_pair(&rules, &[], &pos, &moves, &r, &ctx).and_then(|()| {
                    for c in Color::ALL {
                        prop_assert_eq!((r.state.board().kings() & r.state.board().by_color(c)).count(), 1);
                    }
                    let back = FsPosition::from_fen(&r.state.to_string());
                    prop_assert_eq!(back.as_ref(), Ok(&r.state));
                    Ok(())
                });
                if let Err(e) = checked {
                    panic!("{e}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_play_pause_moved((start, seed, pairs) in game()) {
        play(Fairschach::default(), start, seed, pairs)?;
    }

    #[test]
    fn random_play_pause_capturable((start, seed, pairs) in game()) {
        play(Fairschach { pause: PauseRule::Capturable, normal_below: None }, start, seed, pairs)?;
    }

    #[test]
    fn random_play_pause_off((start, seed, pairs) in game()) {
        play(Fairschach { pause: PauseRule::Off, normal_below: None }, start, seed, pairs)?;
    }

    #[test]
    fn random_play_normal_below_8((start, seed, pairs) in game()) {
        play(Fairschach { pause: PauseRule::Moved, normal_below: Some(8) }, start, seed, pairs)?;
    }

    #[test]
    fn random_play_normal_below_12((start, seed, pairs) in game()) {
        play(Fairschach { pause: PauseRule::Moved, normal_below: Some(12) }, start, seed, pairs)?;
    }
}
