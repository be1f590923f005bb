//! Dreierschach: chess for three players on a board of 126 hexagons
//! (`docs/rules/dreierschach.md`, Christian Wahlmann's version 2.2 with our Decisions).
//!
//! White, Brown and Black move in turn. Every diagonal step passes between two
//! cells, one of which must be empty (the passage rule); a piece captures pieces
//! of either opponent, and a king is in check when either opponent attacks it.
//! Kings are never captured. The game ends at the first mate or stalemate: the
//! mated seat scores 0, the first seat after it in turn order that attacks its
//! king 3 and the other 1; a stalemate, a draw agreed by all three and the three
//! kings alone are 1 each ([`GameResult::Points`]).
//!
//! One idea per module: `geometry` for the board, its names and directions and
//! the seats' geometry (White's, rotated), `state` for the position and its state
//! string (§9), `moves` for move generation, the check rule and playing a move
//! (§2, §4–6), `notation` for move text (§8). This file holds the rulebook with
//! its options (§11), the end of the game and its scores (§7), the board as the
//! renderers see it, and the [`Variant`] implementation.
//!
//! ```
//! use fairsteward::rules::{Options, VariantId};
//!
//! let rules = VariantId::Dreierschach.rulebook(&Options::new()).unwrap();
//! let start = rules.start();
//! assert_eq!(rules.perft(&start, 2), Ok(1930));
//! let white = rules.seat("white").unwrap();
//! let r = rules.resolve(&[], &start, &[(white, "7d9".into())]).unwrap();
//! assert!(r.state.ends_with(" n a1,a8,f1,f13,m8,m13 b7-d9 0 1"));
//! ```

mod geometry;
mod moves;
mod notation;
mod state;
#[cfg(test)]
mod tests;

use std::str::FromStr;
use std::sync::{Arc, LazyLock};

pub use geometry::{Hex, Names};
pub use moves::{DsMove, MoveKind};
pub use state::{DoubleStep, DsState, Kind, SEAT_LETTERS, SEAT_NAMES};

use super::notation::{Candidate, Piece, Position, Refusal, Sq};
use super::{
    AgreedDraw, Army, BoardShape, BoardView, Cell, CellShape, EdgeLabel, EndReason, GameResult, MoveError, MovePath,
    MoveText, Options, OptionsError, Outcome, Outline, PieceKind, PieceView, Point, Resolution, RulesError, Score,
    Seat, SeatMove, SeatResult, SeatSet, StateError, Variant, VariantId,
};
use geometry::{CELLS, SEATS, STRAIGHT, on_board};
use state::{is_piece, kind, next_seat, owner, previous_seat};

/// White, first to move.
pub const WHITE: Seat = Seat::new(0);
/// Brown (`n`; gray in the English text), second.
pub const BROWN: Seat = Seat::new(1);
/// Black, third.
pub const BLACK: Seat = Seat::new(2);

/// How long an en-passant right lasts (§4, §11 `en_passant`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum EnPassant {
    /// Until the double-stepping seat is to move again: both other seats may
    /// take (**Decision**, "in dieser Runde").
    #[default]
    Round,
    /// For the next seat's move only.
    Next,
}

impl EnPassant {
    /// The option value.
    pub const fn as_str(self) -> &'static str {
        match self {
            EnPassant::Round => "round",
            EnPassant::Next => "next",
        }
    }
}

impl FromStr for EnPassant {
    type Err = OptionsError;

    fn from_str(s: &str) -> Result<EnPassant, OptionsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "round" => Ok(EnPassant::Round),
            "next" => Ok(EnPassant::Next),
            _ => Err(OptionsError::BadValue { name: "en_passant", value: s.to_owned(), expected: "round or next" }),
        }
    }
}

impl FromStr for Names {
    type Err = OptionsError;

    fn from_str(s: &str) -> Result<Names, OptionsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "v2.2" | "2.2" => Ok(Names::V22),
            "v2.3" | "2.3" => Ok(Names::V23),
            _ => Err(OptionsError::BadValue { name: "names", value: s.to_owned(), expected: "v2.2 or v2.3" }),
        }
    }
}

/// The option names, as `Options` and the CLI spell them (§11).
const OPTION_NAMES: [&str; 3] = ["en_passant", "names", "no_progress"];

/// The Dreierschach rulebook with a game's options (§11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dreierschach {
    /// How long an en-passant right lasts.
    pub en_passant: EnPassant,
    /// The cell names of move text and display (the state string is always V2.2).
    pub names: Names,
    /// `Some(n)`: n plies without a capture or a pawn move draw the game, 1 each.
    pub no_progress: Option<u32>,
}

impl Dreierschach {
    /// The rulebook with `options` applied (§11).
    ///
    /// # Errors
    /// An option Dreierschach does not have, or a value it does not take.
    pub fn new(options: &Options) -> Result<Dreierschach, OptionsError> {
        options.only(VariantId::Dreierschach, &OPTION_NAMES)?;
        Ok(Dreierschach {
            en_passant: options.get("en_passant").map_or(Ok(EnPassant::Round), str::parse)?,
            names: options.get("names").map_or(Ok(Names::V22), str::parse)?,
            no_progress: options.plies("no_progress")?,
        })
    }

    /// The end of the game in `state` (§7), judged at the seat to move: mate or
    /// stalemate, then the three kings alone, then `no_progress`.
    fn outcome_of(&self, state: &DsState) -> Option<Outcome> {
        let p = state.turn;
        if !moves::has_legal_move(state, p) {
            return Some(if moves::in_check(state, p) {
                Outcome { result: mate_points(state, p), reason: EndReason::Checkmate }
            } else {
                Outcome::points(&[1, 1, 1], EndReason::Stalemate)
            });
        }
        if state.pieces.iter().all(|set| set.len() == 1) {
            return Some(Outcome::points(&[1, 1, 1], EndReason::InsufficientMaterial));
        }
        match self.no_progress {
            Some(n) if state.halfmove >= n => Some(Outcome::points(&[1, 1, 1], EndReason::NoProgress)),
            _ => None,
        }
    }

    fn candidates(&self, state: &DsState, seat: usize) -> Vec<Candidate<DsMove>> {
        if seat != state.turn {
            return Vec::new();
        }
        moves::legal_moves(state, seat).into_iter().map(|mv| self.candidate(state, seat, mv)).collect()
    }

    fn candidate(&self, state: &DsState, seat: usize, mv: DsMove) -> Candidate<DsMove> {
        let capture = is_piece(state.board[mv.to.cell()]) || mv.kind == MoveKind::EnPassant;
        let rook = match mv.kind {
            MoveKind::Castle(side) => Some(SEATS[seat].castlings[usize::from(side)].rook_from),
            _ => None,
        };
        notation::candidate(mv, kind(state.board[mv.from.cell()]), capture, rook, self.names)
    }

    /// The check of a state string that needs the move generator: the seat that
    /// moved last cannot have left its own king attacked (§6).
    fn check_last_mover(&self, state: &DsState) -> Vec<String> {
        let last = previous_seat(state.turn);
        if moves::in_check(state, last) {
            vec![format!(
                "{} moved last, so its king on {} cannot be attacked (§6)",
                SEAT_NAMES[last], state.kings[last]
            )]
        } else {
            Vec::new()
        }
    }

    /// The player's reading of `text` for `seat` in `state`.
    fn read(&self, state: &DsState, seat: usize, text: &str) -> Result<DsMove, MoveError> {
        let names = self.names;
        let legal = self.candidates(state, seat);
        let occupant = |sq: Sq| {
            let hex = Hex::from_name_parts(sq.file, sq.rank, names)?;
            let c = state.board[hex.cell()];
            is_piece(c).then(|| (Piece::from(kind(c)), owner(c) == seat))
        };
        let refused = || {
            if seat != state.turn {
                return Vec::new();
            }
            let mut refused = moves::refused_moves(state, seat);
            moves::sort(&mut refused);
            refused.into_iter().map(|mv| (self.candidate(state, seat, mv), Refusal::ExposesKing)).collect()
        };
        let written = |c: &Candidate<DsMove>| notation::written(c.mv, names);
        let position = Position {
            board: notation::board(names),
            legal: legal.clone(),
            in_check: seat == state.turn && moves::in_check(state, seat),
            occupant: &occupant,
            refused: &refused,
            san: &written,
        };
        let text = notation::before_draw_offer(text).unwrap_or(text);
        super::notation::find(text, &position).map_err(|e| match e {
            MoveError::NotAMove { text, why } => {
                let forms = notation::forms(&legal, names);
                let why = why.split("; write moves").next().unwrap_or(&why).to_owned();
                MoveError::NotAMove { text, why: format!("{why}; {forms}") }
            }
            e => e,
        })
    }

    /// The outcome when `seat` resigns in `state` (§7, Decision): it scores 0;
    /// if its king is in check, the others score as after a mate, else 2 each.
    fn resignation_outcome(&self, state: &DsState, seat: usize, reason: EndReason) -> Outcome {
        let result = if moves::in_check(state, seat) {
            mate_points(state, seat)
        } else {
            let mut points = [2, 2, 2];
            points[seat] = 0;
            super::GameResult::points(&points)
        };
        Outcome { result, reason }
    }
}

/// The points when `p`'s king is attacked and `p` is out (§7, Decision): 0 for
/// `p`, 3 for the first seat after it in turn order with a piece attacking its
/// king, 1 for the other.
fn mate_points(state: &DsState, p: usize) -> super::GameResult {
    let king = state.kings[p];
    let first = next_seat(p);
    let winner = if moves::attacked(&state.board, king, 1 << first) { first } else { next_seat(first) };
    let mut points = [1, 1, 1];
    points[p] = 0;
    points[winner] = 3;
    super::GameResult::points(&points)
}

/// Each seat's view turned so its baseline is at the bottom: Brown's edge faces
/// up-left (150°) and Black's up-right (30°), so they turn by 120° and 240°.
const SEAT_TURNS: [f32; 3] = [0.0, 120.0, 240.0];

/// Half the height of a row of pointed hexagons of width 1: rows lie √3/2 apart.
const ROW: f32 = 0.866_025_4;

/// The board under `names` (§1): pointed hexagons, cell (x, y) centred at
/// (x − y/2, y·√3/2) with row `a` at the bottom; three shades by (x + y) mod 3
/// (0 dark, 1 light, 2 medium); White, Brown and Black armies.
///
/// Each line of cells is labelled at one end or both, as the author's board
/// does, so that no two labels meet: a row (same `y`) at its left end and, for
/// rows f–m, at its right end too (along Brown's and Black's baselines); a line
/// of the same `x` at its lower end along the bottom (White's baseline, x 0–7)
/// and, for x 8–12, at its upper end along the top. Under V2.2 rows are letters
/// and lines numbers; V2.3 swaps them. Labels along a seat's side stand square
/// to it, so that seat's to-move bar never covers them, and none stands near
/// another seat's side.
fn shape(names: Names) -> BoardShape {
    let mut cells = Vec::with_capacity(CELLS.len());
    let mut labels = Vec::new();
    for hex in CELLS {
        let (x, y) = (f32::from(hex.x()), f32::from(hex.y()));
        let centre = Point::new(x - y / 2.0, y * ROW);
        let shade = match (hex.x() + hex.y()) % 3 {
            0 => 1,
            1 => 0,
            _ => 2,
        };
        cells.push(CellShape {
            cell: cell(hex),
            name: hex.name(names),
            centre,
            outline: Outline::HexagonPointed,
            shade,
        });
        let (row, line) = match names {
            Names::V22 => (char::from(b'a' + hex.y()).to_string(), (hex.x() + 1).to_string()),
            Names::V23 => ((hex.y() + 1).to_string(), char::from(b'a' + hex.x()).to_string()),
        };
        let missing = |d: usize| !on_board((hex.cell() as i16 + STRAIGHT[d]) as usize);
        // A label on the cell's outline towards `edge` (degrees; 180 is the
        // middle of its left side, the others are corners), standing off
        // towards `away`.
        let mut label = |text: &String, edge: f32, away: f32| {
            let reach = if edge == 180.0 { 0.5 } else { 1.0 / 3f32.sqrt() };
            let towards = Point::new(reach, 0.0).turned(edge);
            let at = Point::new(centre.x + towards.x, centre.y + towards.y);
            labels.push(EdgeLabel { text: text.clone(), level: 0, at, outward: Point::new(1.0, 0.0).turned(away) });
        };
        // Row a's label stands level with it, clear of White's bar below.
        match (missing(0), hex.y()) {
            (true, 0) => label(&row, 180.0, 180.0),
            (true, 1..=4) => label(&row, 210.0, 210.0),
            (true, _) => label(&row, 150.0, 150.0),
            _ => {}
        }
        if missing(3) && hex.y() >= 5 {
            label(&row, 30.0, 30.0);
        }
        if missing(4) && hex.x() <= 7 {
            label(&line, 270.0, 270.0);
        }
        // The last one, on Black's corner, leans along Black's baseline,
        // clear of Black's bar.
        if missing(1) && hex.x() >= 8 {
            label(&line, 90.0, if hex.x() == 12 { 120.0 } else { 90.0 });
        }
    }
    cells.sort_by_key(|c| c.cell);
    BoardShape {
        cells,
        labels,
        pieces: PieceKind::CHESS.to_vec(),
        seat_turns: SEAT_TURNS.to_vec(),
        armies: vec![Army::White, Army::Brown, Army::Black],
        seat_letters: SEAT_LETTERS.to_vec(),
    }
}

static SHAPE_V22: LazyLock<Arc<BoardShape>> = LazyLock::new(|| Arc::new(shape(Names::V22)));
static SHAPE_V23: LazyLock<Arc<BoardShape>> = LazyLock::new(|| Arc::new(shape(Names::V23)));

/// The renderers' cell of `hex`: file = V2.2 letter, rank = V2.2 number − 1, so
/// that [`Cell::coordinates`] is its V2.2 name.
fn cell(hex: Hex) -> Cell {
    Cell { file: hex.y(), rank: hex.x(), level: 0 }
}

fn seat_of(index: usize) -> Seat {
    Seat::new(index as u8)
}

/// Reads a canonical move text (`b7-d9`, `h4-i4=Q`, V2.2 names) into its cells.
fn canonical_cells(text: &str) -> Option<(Hex, Hex, Option<Kind>)> {
    let (from, rest) = text.trim().split_once('-')?;
    let (to, promotion) = match rest.split_once('=') {
        Some((to, p)) if p.len() == 1 => (to, Some(Kind::from_letter(p.as_bytes()[0])?)),
        Some(_) => return None,
        None => (rest, None),
    };
    Some((Hex::parse(from, Names::V22)?, Hex::parse(to, Names::V22)?, promotion))
}

impl Variant for Dreierschach {
    type State = DsState;
    type Move = DsMove;

    fn id(&self) -> VariantId {
        VariantId::Dreierschach
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &SEAT_NAMES
    }

    fn start(&self) -> DsState {
        DsState::start()
    }

    fn parse_state(&self, text: &str) -> Result<DsState, StateError> {
        let error = |problems| StateError { variant: VariantId::Dreierschach, text: text.to_owned(), problems };
        let state = DsState::parse(text.trim(), self.en_passant).map_err(error)?;
        let problems = self.check_last_mover(&state);
        if problems.is_empty() { Ok(state) } else { Err(error(problems)) }
    }

    fn seats_to_move(&self, state: &DsState) -> SeatSet {
        SeatSet::only(seat_of(state.turn))
    }

    fn legal_moves(&self, state: &DsState, seat: Seat) -> Vec<DsMove> {
        if seat.index() != state.turn {
            return Vec::new();
        }
        let mut moves = moves::legal_moves(state, state.turn);
        moves::sort(&mut moves);
        moves
    }

    fn count_legal_moves(&self, state: &DsState, seat: Seat) -> usize {
        if seat.index() != state.turn {
            return 0;
        }
        moves::count_legal_moves(state, state.turn)
    }

    fn parse_move(&self, state: &DsState, seat: Seat, text: &str) -> Result<DsMove, MoveError> {
        self.read(state, seat.index(), text)
    }

    fn notation(&self, _state: &DsState, _seat: Seat, mv: DsMove) -> String {
        notation::written(mv, self.names)
    }

    fn advance(&self, state: &DsState, moves: &[(Seat, DsMove)]) -> Result<Resolution<DsState, DsMove>, RulesError> {
        let moves = super::moves_by_seat(self, self.seats_to_move(state), moves)?;
        let (seat, mv) = moves[0];
        if !moves::is_legal(state, seat.index(), mv) {
            return Err(RulesError::Move {
                seat,
                seat_name: self.seat_name(seat),
                error: MoveError::Illegal { text: mv.to_string(), reason: "not a legal move in this position".into() },
            });
        }
        let notation = Variant::notation(self, state, seat, mv);
        Ok(Resolution {
            state: moves::play(state, mv, self.en_passant),
            moves: vec![SeatMove { seat, mv, notation, result: SeatResult::Played }],
            notes: Vec::new(),
            outcome: None,
        })
    }

    fn next_state(&self, state: &DsState, moves: &[(Seat, DsMove)]) -> Result<DsState, RulesError> {
        match moves {
            [(seat, mv)] if seat.index() == state.turn && moves::is_legal(state, state.turn, *mv) => {
                Ok(moves::play(state, *mv, self.en_passant))
            }
            _ => self.advance(state, moves).map(|r| r.state),
        }
    }

    fn outcome(&self, _history: &[DsState], state: &DsState) -> Option<Outcome> {
        self.outcome_of(state)
    }

    /// The rules have no repetition: the outcome never reads the history.
    fn repetition_window(&self, _state: &DsState) -> Option<usize> {
        Some(0)
    }

    fn board(&self, state: &DsState) -> BoardView {
        let mut pieces: Vec<(Cell, PieceView)> = CELLS
            .iter()
            .filter_map(|&hex| {
                let c = state.board[hex.cell()];
                let kind = PieceKind::from_fen(kind(c).letter()).unwrap_or(PieceKind::Pawn);
                is_piece(c).then(|| (cell(hex), PieceView { owner: seat_of(owner(c)), kind }))
            })
            .collect();
        pieces.sort_by_key(|(c, _)| *c);
        let shape = match self.names {
            Names::V22 => SHAPE_V22.clone(),
            Names::V23 => SHAPE_V23.clone(),
        };
        BoardView { shape, pieces, marked: Vec::new() }
    }

    /// A castling king's path passes the cells between it and its rook; en
    /// passant captures the double-stepped pawn; a capture takes its target.
    fn move_path(&self, before: Option<&DsState>, canonical: &str) -> Option<MovePath> {
        let (from, to, _) = canonical_cells(canonical)?;
        let mut path = MovePath::step(cell(from), cell(to));
        let Some(state) = before else { return Some(path) };
        let Some(mv) = super::read_canonical(self, state, seat_of(state.turn), canonical) else { return Some(path) };
        match mv.kind {
            MoveKind::Castle(side) => {
                let between = SEATS[state.turn].castlings[usize::from(side)].between;
                path.cells = std::iter::once(from).chain(between.into_iter().flatten()).map(cell).collect();
            }
            MoveKind::EnPassant => path.captures.extend(moves::en_passant_victim(state, state.turn, mv).map(cell)),
            _ if is_piece(state.board[to.cell()]) => path.captures.push(cell(to)),
            _ => {}
        }
        Some(path)
    }

    fn resignation(&self, state: &DsState, seat: Seat) -> Option<Outcome> {
        Some(self.resignation_outcome(state, seat.index(), EndReason::Resignation))
    }

    /// §7, Decision: a seat whose time runs out has resigned at that moment
    /// (the first of several late at once).
    fn timeout(&self, state: &DsState, late: SeatSet) -> Option<Outcome> {
        let first = late.iter().next()?;
        Some(self.resignation_outcome(state, first.index(), EndReason::Time))
    }

    fn agreed_draw(&self, _state: &DsState) -> AgreedDraw {
        AgreedDraw { seats: SeatSet::first(3), outcome: Outcome::points(&[1, 1, 1], EndReason::Agreement) }
    }

    /// The game's own points (§7): 3 / 1 / 0 for a mate, 2 / 2 / 0 for a
    /// resignation out of check, 1 each for a draw. A result given without
    /// points (a director's adjudication as a win or a draw) counts on the same
    /// scale: 3 for a win, 1 for a draw, 0 for a loss.
    fn tournament_scores(&self, _history: &[DsState], outcome: &Outcome) -> Vec<Score> {
        let result = outcome.result;
        if matches!(result, GameResult::Points { .. }) {
            return super::result_scores(3, result);
        }
        (0..3)
            .map(|i| match result.half_points(Seat::new(i as u8)) {
                2 => Score::whole(3),
                1 => Score::whole(1),
                _ => Score(0),
            })
            .collect()
    }

    /// §8, **Decision**: a trailing `=` not followed by a piece letter is a
    /// draw offer sent with the move.
    fn move_text(&self, text: &str) -> Option<MoveText> {
        let (text, kind) = match notation::before_draw_offer(text) {
            Some(before) => (before, MoveText::OffersDraw),
            None => (text, MoveText::Move),
        };
        super::notation::is_move_text(notation::board(self.names), text).then_some(kind)
    }

    fn move_forms(&self, state: &DsState, seat: Seat) -> String {
        // The seat's own moves, as if it were to move now (else at the start).
        let as_if = |from: &DsState| {
            let mut s = from.clone();
            s.turn = seat.index();
            self.candidates(&s, seat.index())
        };
        let mut legal = as_if(state);
        if legal.is_empty() {
            legal = as_if(&DsState::start());
        }
        notation::forms(&legal, self.names)
    }

    fn guide(&self) -> Option<&'static str> {
        Some(include_str!("../../../docs/rules/dreierschach.md"))
    }

    /// §11, in its order.
    fn effective_options(&self) -> Vec<(&'static str, String)> {
        vec![
            ("en_passant", self.en_passant.as_str().to_owned()),
            ("names", self.names.as_str().to_owned()),
            ("no_progress", super::legend::off_or(self.no_progress)),
        ]
    }

    fn legend(&self) -> Vec<String> {
        use super::legend::{CHESS_PIECES, seat_letters};
        vec![
            format!("{} (wK: White's king)", seat_letters(&SEAT_LETTERS, &SEAT_NAMES)),
            CHESS_PIECES.to_owned(),
            ". is an empty cell".to_owned(),
        ]
    }
}
