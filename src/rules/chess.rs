//! Standard chess as `docs/rules/chess.md` defines it, on shakmaty.
//!
//! The state string is FEN with the en-passant square written after every double
//! step (§7). Draws by threefold repetition and the fifty-move rule are automatic
//! (§5); repetition compares positions as FIDE does, with the en-passant square
//! counted only when an en-passant capture is legal.

use std::fmt;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, CastlingSide, Color, EnPassantMode, Move, Position, Square};

use super::notation::{self, CHESS_BOARD, Candidate, Castle, Piece, Position as Seen, Sq};
use super::{
    BoardShape, BoardView, Cell, EndReason, GameRecord, MoveError, MovePath, MoveText, Options, OptionsError, Outcome,
    PieceKind, PieceView, Resolution, RulesError, Seat, SeatMove, SeatResult, SeatSet, StateError, Variant, VariantId,
};

/// The seat that plays White.
pub const WHITE: Seat = Seat::new(0);
/// The seat that plays Black.
pub const BLACK: Seat = Seat::new(1);

/// The seat playing `color`.
pub(crate) const fn seat_of(color: Color) -> Seat {
    match color {
        Color::White => WHITE,
        Color::Black => BLACK,
    }
}

/// The color `seat` plays in a two-seat chess game.
pub(crate) const fn color_of(seat: Seat) -> Color {
    if seat.index() == 0 { Color::White } else { Color::Black }
}

/// The rulebook of standard chess. It has no options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Chess;

impl Chess {
    /// The rulebook, refusing any option (chess has none, §9).
    ///
    /// # Errors
    /// Any option given.
    pub fn new(options: &Options) -> Result<Chess, OptionsError> {
        options.only(VariantId::Chess, &[])?;
        Ok(Chess)
    }
}

/// A chess position with its counters, printed as FEN.
#[derive(Clone, Debug)]
pub struct ChessState(shakmaty::Chess);

impl ChessState {
    /// The shakmaty position.
    pub fn position(&self) -> &shakmaty::Chess {
        &self.0
    }
}

impl fmt::Display for ChessState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Fen::from_position(&self.0, EnPassantMode::Always).fmt(f)
    }
}

/// Equal when the FEN strings are equal (counters included); repetition uses the
/// looser FIDE comparison instead.
impl PartialEq for ChessState {
    fn eq(&self, other: &ChessState) -> bool {
        self.0 == other.0
            && self.0.ep_square(EnPassantMode::Always) == other.0.ep_square(EnPassantMode::Always)
            && self.0.halfmoves() == other.0.halfmoves()
            && self.0.fullmoves() == other.0.fullmoves()
    }
}

impl Eq for ChessState {}

/// A chess move; `Display` is UCI with castling as the king's two-square step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChessMove(Move);

impl ChessMove {
    /// The shakmaty move.
    pub fn to_shakmaty(self) -> Move {
        self.0
    }

    fn king_to(self) -> Square {
        match self.0 {
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                Square::from_coords(side.king_to_file(), king.rank())
            }
            m => m.to(),
        }
    }

    /// Byte order of the UCI text, without building it.
    fn sort_key(self) -> (u32, u32, u32, u32, u8) {
        let from = self.0.from().unwrap_or(Square::A1);
        let to = self.king_to();
        let promotion = self.0.promotion().map_or(0, |r| r.char() as u8);
        (u32::from(from.file()), u32::from(from.rank()), u32::from(to.file()), u32::from(to.rank()), promotion)
    }
}

impl PartialOrd for ChessMove {
    fn partial_cmp(&self, other: &ChessMove) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ChessMove {
    fn cmp(&self, other: &ChessMove) -> std::cmp::Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

impl fmt::Display for ChessMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.to_uci(CastlingMode::Standard).fmt(f)
    }
}

fn candidate(m: Move) -> Candidate<ChessMove> {
    let mv = ChessMove(m);
    Candidate {
        mv,
        piece: m.role().into(),
        from: m.from().unwrap_or(Square::A1).into(),
        to: mv.king_to().into(),
        promotion: m.promotion().map(Into::into),
        castle: match m {
            Move::Castle { king, rook } => Some(Castle { long: rook < king, rook: rook.into() }),
            _ => None,
        },
        capture: m.is_capture(),
    }
}

/// The 8×8 board (docs/rules/chess.md §1): a1 dark, white at the bottom, black's view
/// turned by half a turn. Shared with Fairschach.
static SQUARES: std::sync::LazyLock<std::sync::Arc<BoardShape>> =
    std::sync::LazyLock::new(|| std::sync::Arc::new(BoardShape::squares(8, 8, &[], true, vec![0.0, 180.0])));

/// The shakmaty move of a Fairschach-style move the rules refused (for a message only).
fn shakmaty_move(pos: &shakmaty::Chess, c: &Candidate<super::fairschach::FsMove>) -> Move {
    let fs = c.mv;
    Move::Normal {
        role: c.piece.into(),
        from: fs.from,
        capture: pos.board().role_at(fs.to),
        to: fs.to,
        promotion: fs.promotion,
    }
}

/// The matcher's view of a chess position on the 8×8 board (shared with Fairschach):
/// what stands on a square, and whether it belongs to `color`.
pub(crate) fn occupant(board: &shakmaty::Board, color: Color, sq: Sq) -> Option<(Piece, bool)> {
    let square = Square::from_coords(shakmaty::File::new(u32::from(sq.file)), shakmaty::Rank::new(u32::from(sq.rank)));
    board.piece_at(square).map(|p| (Piece::from(p.role), p.color == color))
}

/// The board of a shakmaty position, for renderers (shared with Fairschach).
pub(crate) fn board_view(board: &shakmaty::Board, marked: Vec<Cell>) -> BoardView {
    let kind = |role: shakmaty::Role| PieceKind::from_fen(role.char()).unwrap_or(PieceKind::Pawn);
    let pieces = board
        .iter()
        .map(|(sq, piece)| (cell(sq), PieceView { owner: seat_of(piece.color), kind: kind(piece.role) }))
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .collect();
    BoardView { shape: SQUARES.clone(), pieces, marked }
}

/// The path of a UCI move on a shakmaty board before it (shared with
/// Fairschach): a king's two-square step is castling and passes the square
/// between; a pawn's diagonal step to an empty square takes en passant, the pawn
/// beside it; otherwise the move takes what stands on its target.
pub(crate) fn uci_path(before: Option<&shakmaty::Board>, uci: &str) -> Option<MovePath> {
    let (from, to) = super::coordinate_move_cells(uci)?;
    let mut path = MovePath::step(from, to);
    let Some(board) = before else { return Some(path) };
    let square =
        |c: Cell| Square::from_coords(shakmaty::File::new(u32::from(c.file)), shakmaty::Rank::new(u32::from(c.rank)));
    if from.file > 7 || from.rank > 7 || to.file > 7 || to.rank > 7 {
        return None;
    }
    let mover = board.piece_at(square(from))?;
    let target = board.piece_at(square(to));
    match (mover.role, target) {
        (shakmaty::Role::King, None) if from.rank == to.rank && from.file.abs_diff(to.file) == 2 => {
            path.cells.insert(1, Cell { file: (from.file + to.file) / 2, ..from });
        }
        (shakmaty::Role::Pawn, None) if from.file != to.file => {
            path.captures.push(Cell { file: to.file, rank: from.rank, level: 0 });
        }
        (_, Some(t)) if t.color != mover.color => path.captures.push(to),
        _ => {}
    }
    Some(path)
}

pub(crate) fn cell(sq: Square) -> Cell {
    Cell { file: u32::from(sq.file()) as u8, rank: u32::from(sq.rank()) as u8, level: 0 }
}

/// Calls `f` with the matcher's view of `pos` for the side `color`.
fn with_position<R>(pos: &shakmaty::Chess, color: Color, f: impl FnOnce(&Seen<'_, ChessMove>) -> R) -> R {
    let legal: Vec<Candidate<ChessMove>> =
        if pos.turn() == color { pos.legal_moves().into_iter().map(candidate).collect() } else { Vec::new() };
    let occupant = |sq: Sq| occupant(pos.board(), color, sq);
    let refused = || {
        super::fairschach::refused_standard(
            pos.board(),
            color,
            pos.castles().castling_rights(),
            pos.ep_square(EnPassantMode::Always),
        )
        .into_iter()
        .map(|(c, why)| {
            let mv = ChessMove(shakmaty_move(pos, &c));
            (c.with_move(mv), why)
        })
        .collect()
    };
    let san = |c: &Candidate<ChessMove>| SanPlus::from_move(pos.clone(), c.mv.0).to_string();
    f(&Seen { board: &CHESS_BOARD, legal, in_check: pos.is_check(), occupant: &occupant, refused: &refused, san: &san })
}

impl Variant for Chess {
    type State = ChessState;
    type Move = ChessMove;

    fn id(&self) -> VariantId {
        VariantId::Chess
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &["white", "black"]
    }

    fn start(&self) -> ChessState {
        ChessState(shakmaty::Chess::default())
    }

    fn parse_state(&self, text: &str) -> Result<ChessState, StateError> {
        let error = |problems: Vec<String>| StateError { variant: VariantId::Chess, text: text.to_owned(), problems };
        let fen = Fen::from_ascii(text.trim().as_bytes()).map_err(|e| error(vec![e.to_string()]))?;
        fen.into_position(CastlingMode::Standard).map(ChessState).map_err(|e| error(vec![e.to_string()]))
    }

    fn seats_to_move(&self, state: &ChessState) -> SeatSet {
        SeatSet::only(seat_of(state.0.turn()))
    }

    fn legal_moves(&self, state: &ChessState, seat: Seat) -> Vec<ChessMove> {
        if seat_of(state.0.turn()) != seat {
            return Vec::new();
        }
        let mut moves: Vec<ChessMove> = state.0.legal_moves().into_iter().map(ChessMove).collect();
        moves.sort_unstable();
        moves
    }

    fn count_legal_moves(&self, state: &ChessState, seat: Seat) -> usize {
        if seat_of(state.0.turn()) == seat { state.0.legal_moves().len() } else { 0 }
    }

    fn parse_move(&self, state: &ChessState, seat: Seat, text: &str) -> Result<ChessMove, MoveError> {
        with_position(&state.0, color_of(seat), |position| notation::find(text, position))
    }

    fn notation(&self, state: &ChessState, _seat: Seat, mv: ChessMove) -> String {
        SanPlus::from_move(state.0.clone(), mv.0).to_string()
    }

    fn advance(
        &self,
        state: &ChessState,
        moves: &[(Seat, ChessMove)],
    ) -> Result<Resolution<ChessState, ChessMove>, RulesError> {
        let moves = super::moves_by_seat(self, self.seats_to_move(state), moves)?;
        let (seat, mv) = moves[0];
        if !state.0.is_legal(mv.0) {
            return Err(RulesError::Move {
                seat,
                seat_name: self.seat_name(seat),
                error: MoveError::Illegal { text: mv.to_string(), reason: "not a legal move in this position".into() },
            });
        }
        let notation = self.notation(state, seat, mv);
        let mut next = state.0.clone();
        next.play_unchecked(mv.0);
        Ok(Resolution {
            state: ChessState(next),
            moves: vec![SeatMove { seat, mv, notation, result: SeatResult::Played }],
            notes: Vec::new(),
            outcome: None,
        })
    }

    fn next_state(&self, state: &ChessState, moves: &[(Seat, ChessMove)]) -> Result<ChessState, RulesError> {
        match moves {
            [(seat, mv)] if seat_of(state.0.turn()) == *seat && state.0.is_legal(mv.0) => {
                let mut next = state.0.clone();
                next.play_unchecked(mv.0);
                Ok(ChessState(next))
            }
            _ => self.advance(state, moves).map(|r| r.state),
        }
    }

    fn outcome(&self, history: &[ChessState], state: &ChessState) -> Option<Outcome> {
        let pos = &state.0;
        let other = seat_of(!pos.turn());
        if pos.is_checkmate() {
            return Some(Outcome::win(other, EndReason::Checkmate));
        }
        if pos.is_stalemate() {
            return Some(Outcome::draw(EndReason::Stalemate));
        }
        if pos.is_insufficient_material() {
            return Some(Outcome::draw(EndReason::InsufficientMaterial));
        }
        // shakmaty's equality is FIDE's: board, side, castling rights, legal ep.
        if history.iter().filter(|h| h.0 == *pos).count() + 1 >= 3 {
            return Some(Outcome::draw(EndReason::ThreefoldRepetition));
        }
        if pos.halfmoves() >= 100 {
            return Some(Outcome::draw(EndReason::FiftyMoveRule));
        }
        None
    }

    /// Only positions since the last capture or pawn move can repeat a later one:
    /// each of those lowers the material or moves a pawn for good. The halfmove
    /// clock counts the plies since, so the last `halfmoves` states reach back to
    /// the position that move made (one more is kept as margin); the turn from
    /// `state` only adds `state` itself to what the next position is compared with.
    fn repetition_window(&self, state: &ChessState) -> Option<usize> {
        usize::try_from(state.0.halfmoves()).ok().map(|plies| plies.saturating_add(1))
    }

    fn board(&self, state: &ChessState) -> BoardView {
        board_view(state.0.board(), Vec::new())
    }

    fn move_path(&self, before: Option<&ChessState>, canonical: &str) -> Option<MovePath> {
        uci_path(before.map(|s| s.0.board()), canonical)
    }

    /// docs/rules/chess.md §5, **Decision**: the seat whose time runs out loses, but the
    /// game is drawn if the opponent has only his king.
    fn timeout(&self, state: &ChessState, late: SeatSet) -> Option<Outcome> {
        let first = late.iter().next()?;
        if late.len() >= 2 {
            return Some(Outcome::draw(EndReason::Time));
        }
        let opponent = if first == WHITE { BLACK } else { WHITE };
        if state.0.board().by_color(color_of(opponent)).count() == 1 {
            return Some(Outcome::draw(EndReason::Time));
        }
        Some(Outcome::win(opponent, EndReason::Time))
    }

    fn move_text(&self, text: &str) -> Option<MoveText> {
        notation::is_move_text(&CHESS_BOARD, text).then_some(MoveText::Move)
    }

    fn move_forms(&self, state: &ChessState, seat: Seat) -> String {
        let color = color_of(seat);
        let start = shakmaty::Chess::default();
        let pos = if state.0.turn() == color && !state.0.legal_moves().is_empty() { &state.0 } else { &start };
        with_position(pos, pos.turn(), notation::forms)
    }

    fn pgn(&self, record: &GameRecord) -> Option<String> {
        Some(chess_pgn(self, record))
    }

    fn guide(&self) -> Option<&'static str> {
        Some(include_str!("../../docs/rules/chess.md"))
    }

    /// Standard chess has no options.
    fn effective_options(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    fn legend(&self) -> Vec<String> {
        vec![super::legend::CHESS_PIECES.to_owned(), super::legend::WHITE_UPPER.to_owned()]
    }
}

/// A chess game as PGN: the Seven Tag Roster, `SetUp` and `FEN` when the game
/// did not begin from the standard position, `Termination`, and the moves in
/// SAN numbered from each move's position (so `12... Nf6` after a comment).
fn chess_pgn(rules: &Chess, record: &GameRecord) -> String {
    let mut tags = record.roster();
    if record.start != Variant::start(rules).to_string() {
        tags.push(("SetUp".to_owned(), "1".to_owned()));
        tags.push(("FEN".to_owned(), record.start.clone()));
    }
    if let Some(o) = record.outcome {
        let how = if o.reason == EndReason::Time { "time forfeit" } else { "normal" };
        tags.push(("Termination".to_owned(), how.to_owned()));
    }
    let mut tokens = Vec::new();
    let mut numbered = false;
    for turn in &record.turns {
        let Ok(before) = rules.parse_state(&turn.before) else { continue };
        for m in &turn.moves {
            // The SAN from the position itself; the stored notation if that fails.
            let san = shakmaty::uci::UciMove::from_ascii(m.mv.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&before.0).ok())
                .map_or_else(|| m.notation.clone(), |mv| SanPlus::from_move(before.0.clone(), mv).to_string());
            let n = before.0.fullmoves();
            tokens.push(match before.0.turn() {
                Color::White => format!("{n}. {san}"),
                Color::Black if !numbered => format!("{n}... {san}"),
                Color::Black => san,
            });
            numbered = true;
        }
        for note in &turn.notes {
            tokens.push(super::record::pgn_comment(note));
            numbered = false;
        }
    }
    if let Some(o) = record.outcome {
        tokens.push(super::record::pgn_comment(&format!("{} by {}", o.result.two_seat_score(), o.reason)));
    }
    tokens.push(record.result_token().to_owned());
    let mut out = String::new();
    super::record::pgn_tags(&mut out, &tags);
    out.push('\n');
    out.push_str(&super::record::pgn_movetext(&tokens));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{GameResult, Variant};

    /// docs/rules/chess.md §5: timeout loses, but not against a lone king.
    #[test]
    fn s5_timeout_loses_unless_the_opponent_has_only_his_king() {
        let start = Chess.start();
        assert_eq!(Chess.timeout(&start, SeatSet::EMPTY.with(WHITE)), Some(Outcome::win(BLACK, EndReason::Time)));
        assert_eq!(Chess.timeout(&start, SeatSet::EMPTY.with(BLACK)), Some(Outcome::win(WHITE, EndReason::Time)));
        // White (king and rook) runs out against Black's lone king: drawn.
        let lone = state("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        assert_eq!(Chess.timeout(&lone, SeatSet::EMPTY.with(WHITE)), Some(Outcome::draw(EndReason::Time)));
        assert_eq!(Chess.timeout(&lone, SeatSet::EMPTY.with(BLACK)), Some(Outcome::win(WHITE, EndReason::Time)));
        assert_eq!(Chess.timeout(&start, SeatSet::EMPTY.with(WHITE).with(BLACK)), Some(Outcome::draw(EndReason::Time)));
        assert_eq!(Chess.timeout(&start, SeatSet::EMPTY), None);
    }

    fn state(fen: &str) -> ChessState {
        Chess.parse_state(fen).expect(fen)
    }

    /// Plays moves from `fen`, resolving each turn; returns the last state and outcome.
    fn play(fen: &str, moves: &str) -> (ChessState, Option<Outcome>) {
        let mut history = Vec::new();
        let mut s = state(fen);
        let mut outcome = None;
        for text in moves.split_whitespace() {
            let seat = Chess.seats_to_move(&s).iter().next().unwrap();
            let mv = Chess.check_move(&s, seat, text).expect(text);
            let r = Chess.resolve(&history, &s, &[(seat, mv)]).expect(text);
            history.push(s);
            s = r.state;
            outcome = r.outcome;
        }
        (s, outcome)
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    /// docs/rules/chess.md §10: four spellings of the same first move.
    #[test]
    fn section_10_four_spellings_of_e4() {
        let s = Chess.start();
        let e4 = Chess.parse_move(&s, WHITE, "e4").unwrap();
        for text in ["e2-e4", "e2e4", "5254"] {
            assert_eq!(Chess.parse_move(&s, WHITE, text), Ok(e4), "{text}");
        }
    }

    /// §10 and §7: the ep square is written although no capture is possible.
    #[test]
    fn section_10_ep_written_after_every_double_step() {
        let (s, outcome) = play(START, "e4");
        assert_eq!(s.to_string(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        assert_eq!(outcome, None);
    }

    /// §10 and §5.4: threefold repetition is automatic, the start position counted.
    #[test]
    fn section_10_threefold_repetition() {
        let (s, outcome) = play(START, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
        assert_eq!(s.to_string(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5");
        assert_eq!(outcome, Some(Outcome::draw(EndReason::ThreefoldRepetition)));
        let (_, before) = play(START, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
        assert_eq!(before, None);
    }

    /// §10 and §5.5: the fifty-move rule, unless the move mates.
    #[test]
    fn section_10_fifty_moves_and_mate_first() {
        let (_, o) = play("4k3/8/8/8/8/8/8/R3K3 w - - 99 60", "Kd2");
        assert_eq!(o, Some(Outcome::draw(EndReason::FiftyMoveRule)));
        let (_, o) = play("k7/8/1K6/8/8/8/8/7R w - - 99 70", "Rh8");
        assert_eq!(o, Some(Outcome::win(WHITE, EndReason::Checkmate)));
        assert_eq!(o.unwrap().result, GameResult::Win(WHITE));
    }

    /// §10 and §5.3: K+B v K is drawn as soon as it arises.
    #[test]
    fn section_10_insufficient_material() {
        let s = state("8/8/4k3/8/8/3K4/8/5B2 w - - 0 1");
        assert_eq!(Chess.outcome(&[], &s), Some(Outcome::draw(EndReason::InsufficientMaterial)));
    }

    /// §10 and §6: ICCF promotion digits and castling spellings.
    #[test]
    fn section_10_iccf_and_castling_spellings() {
        let s = state("8/4P3/8/8/8/8/8/k3K2R w K - 0 1");
        assert_eq!(Chess.parse_move(&s, WHITE, "57581").unwrap().to_string(), "e7e8q");
        assert_eq!(Chess.parse_move(&s, WHITE, "57584").unwrap().to_string(), "e7e8n");
        let oo = Chess.parse_move(&s, WHITE, "5171").unwrap();
        assert_eq!(oo.to_string(), "e1g1");
        for text in ["O-O", "0-0", "e1g1", "Kg1", "Ke1-g1", "e1h1"] {
            assert_eq!(Chess.parse_move(&s, WHITE, text), Ok(oo), "{text}");
        }
    }

    /// §6: lower-case letters, optional capture mark, the b-file rule.
    #[test]
    fn section_6_sloppy_input() {
        let s = Chess.start();
        assert_eq!(Chess.parse_move(&s, WHITE, "nf3").unwrap().to_string(), "g1f3");
        assert_eq!(Chess.parse_move(&s, WHITE, "Nxf3").unwrap().to_string(), "g1f3");
        assert_eq!(Chess.parse_move(&s, WHITE, "Ng1f3").unwrap().to_string(), "g1f3");
        assert_eq!(Chess.parse_move(&s, WHITE, "b3").unwrap().to_string(), "b2b3");
        // bc3 as a pawn move is impossible; one bishop fits → the bishop (Decision).
        let s = state("4k3/8/8/8/8/8/1P6/2B1K3 w - - 0 1");
        assert_eq!(Chess.parse_move(&s, WHITE, "bd2").unwrap().to_string(), "c1d2");
        // bxc3 with a b-pawn able to take is the pawn.
        let s = state("4k3/8/8/8/8/2n5/1P1B4/4K3 w - - 0 1");
        assert_eq!(Chess.parse_move(&s, WHITE, "bxc3").unwrap().to_string(), "b2c3");
    }

    #[test]
    fn section_6_refusals_say_why() {
        let s = Chess.start();
        assert!(matches!(Chess.parse_move(&s, WHITE, "Nf5"), Err(MoveError::Illegal { .. })));
        let err = Chess.parse_move(&s, WHITE, "Nf5").unwrap_err().to_string();
        assert!(err.contains("Nf3") && err.contains("Nh3"), "{err}");
        assert!(matches!(Chess.parse_move(&s, WHITE, "hello"), Err(MoveError::NotAMove { .. })));
        let s = state("4k3/8/8/8/8/8/8/2N1K1N1 w - - 0 1");
        let err = Chess.parse_move(&s, WHITE, "Ne2").unwrap_err();
        assert!(matches!(&err, MoveError::Ambiguous { candidates, .. } if candidates.len() == 2), "{err}");
        let s = state("4k3/4P3/8/8/8/8/8/4K3 w - - 0 1");
        assert!(matches!(
            Chess.parse_move(&s, WHITE, "e8"),
            Err(MoveError::Illegal { .. } | MoveError::Ambiguous { .. })
        ));
    }

    /// §6: German letters in every form; a refusal says why and shows the forms.
    #[test]
    fn section_6_german_letters_and_reasons() {
        let s = Chess.start();
        for (text, uci) in [("Sf3", "g1f3"), ("sf3", "g1f3"), ("Sg1-f3", "g1f3"), ("Sg1xf3", "g1f3"), ("7163", "g1f3")]
        {
            assert_eq!(Chess.parse_move(&s, WHITE, text).unwrap().to_string(), uci, "{text}");
        }
        let why = |fen: &str, text: &str| Chess.parse_move(&state(fen), WHITE, text).unwrap_err().to_string();
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let e = why(start, "Zf3");
        assert!(e.contains("write moves like Na3 (SAN), Sa3 (German letters), Nb1-a3 (long form), b1a3 (coordinates) or 2113 (ICCF numeric)"), "{e}");
        assert!(why(start, "e3e4").contains("there is no piece on e3"));
        assert!(why(start, "e7e5").contains("the pawn on e7 is not yours"));
        assert!(why(start, "Dd1-h5").contains("your queen on d1 cannot move to h5"));
        let pinned = "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1";
        assert!(why(pinned, "Sc3").contains("your knight on e2 is pinned"), "{}", why(pinned, "Sc3"));
        let checked = "4k3/8/8/8/8/8/3P4/r3K3 w - - 0 1";
        let e = why(checked, "d3");
        assert!(e.contains("your king is in check and d2-d3 does not answer it"), "{e}");
        let e = why("4k3/8/8/8/8/8/8/3rK3 w - - 0 1", "Kf2xe2");
        assert!(e.contains("no piece on f2"), "{e}");
    }

    #[test]
    fn moves_of_the_wrong_seat_are_refused() {
        let s = Chess.start();
        assert!(matches!(Chess.check_move(&s, BLACK, "e5"), Err(RulesError::NotToMove { .. })));
    }

    #[test]
    fn legal_moves_are_sorted_uci() {
        let moves: Vec<String> = Chess.legal_moves(&Chess.start(), WHITE).iter().map(ToString::to_string).collect();
        let mut sorted = moves.clone();
        sorted.sort();
        assert_eq!(moves, sorted);
        assert_eq!(moves.len(), 20);
        assert_eq!(moves[0], "a2a3");
    }

    #[test]
    fn bad_fen_is_refused_with_a_reason() {
        let err = Chess.parse_state("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1").unwrap_err();
        assert!(!err.problems.is_empty());
        assert!(Chess.parse_state("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
    }
}
