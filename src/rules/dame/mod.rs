//! Trialectic Dame: draughts for three players, yellow, red and blue, on a board
//! given as data (`docs/rules/trialectic-dame.md`).
//!
//! Men step forward or sideways and capture in every direction, multi-jumps
//! zig-zag and go backwards; Dames (promoted men, drawn as stacked stones) fly.
//! Capturing is compulsory and a sequence goes on to the end; a man that
//! reaches a promotion cell becomes a Dame and the move ends. A seat with no
//! stones is out and the others play on; the last seat with stones wins. A
//! seat that cannot move passes, or (enclosure variants) is out.
//!
//! The board is a record (§1): the reconstructed triangle of §2 by default,
//! or any record in JSON (option `board`), checked when it is loaded. Nothing
//! here but [`record::Board::triangle`] knows the triangle.
//!
//! One idea per module: `record` for the board record and its checks, `state`
//! for the position and its state string (§7), `moves` for placements, steps
//! and capture sequences (§3–4), `turn` for the turn procedure and the end of
//! the game (§5), `notation` for move text (§6) and `shape` for the drawing.
//! This file holds the rulebook with its options (§9) and the [`Variant`]
//! implementation.
//!
//! ```
//! use fairsteward::rules::{Options, VariantId};
//!
//! let rules = VariantId::TrialecticDame.rulebook(&Options::new()).unwrap();
//! let start = rules.start();
//! assert_eq!(rules.perft(&start, 2), Ok(146));
//! let yellow = rules.seat("yellow").unwrap();
//! let after = rules.resolve(&[], &start, &[(yellow, "126-117".into())]).unwrap();
//! let red = rules.seat("red").unwrap();
//! assert_eq!(rules.legal_moves(&after.state, red).unwrap(), vec!["216x018"]);
//! ```

mod moves;
mod notation;
pub mod record;
mod shape;
mod state;
#[cfg(test)]
mod tests;
mod turn;

use std::str::FromStr;
use std::sync::{Arc, LazyLock};

pub use moves::{DameMove, Play};
pub use record::{Board, RecordError};
pub use state::DameState;
pub use turn::Enclosure;

use super::{
    AgreedDraw, BoardView, Cell, EndReason, MoveError, MovePath, MoveText, Options, OptionsError, Outcome, PieceKind,
    PieceView, Resolution, RulesError, Score, Seat, SeatMove, SeatResult, SeatSet, StateError, Variant, VariantId,
};
use moves::Duty;
use shape::Drawing;
use state::{colour, is_dame, stones};

/// Yellow, first to move.
pub const YELLOW: Seat = Seat::new(0);
/// Red.
pub const RED: Seat = Seat::new(1);
/// Blue.
pub const BLUE: Seat = Seat::new(2);

/// The option names, as `Options` and the CLI spell them (§9).
const OPTION_NAMES: [&str; 6] = ["board", "side", "setup", "enclosure", "dame_first", "no_progress"];

/// The side of the default triangle (§2).
pub const DEFAULT_SIDE: usize = 10;

/// The reconstructed board and its drawing, made once.
static DEFAULT_BOARD: LazyLock<(Arc<Board>, Arc<Drawing>)> = LazyLock::new(|| {
    let board = Board::triangle(DEFAULT_SIDE).expect("the reconstructed board passes its own checks");
    let drawing = Drawing::of(&board);
    (Arc::new(board), Arc::new(drawing))
});

impl Enclosure {
    /// The option value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Enclosure::None => "none",
            Enclosure::Take => "take",
            Enclosure::Remove => "remove",
        }
    }
}

impl FromStr for Enclosure {
    type Err = OptionsError;

    fn from_str(s: &str) -> Result<Enclosure, OptionsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "off" => Ok(Enclosure::None),
            "take" | "1" => Ok(Enclosure::Take),
            "remove" | "2" => Ok(Enclosure::Remove),
            _ => Err(OptionsError::BadValue {
                name: "enclosure",
                value: s.to_owned(),
                expected: "none, take (variant 1) or remove (variant 2)",
            }),
        }
    }
}

/// The Trialectic Dame rulebook with a game's options (§9).
#[derive(Clone, Debug)]
pub struct TrialecticDame {
    board: Arc<Board>,
    drawing: Arc<Drawing>,
    /// The triangle's side, or `None` for a board given as a record.
    side: Option<usize>,
    /// Setup variant 2: each seat's first turn places a 12th stone.
    pub setup_two: bool,
    /// Base game, or enclosure variant 1 or 2.
    pub enclosure: Enclosure,
    /// Whether a Dame that can capture must (§4, option `dame_first`).
    pub dame_first: bool,
    /// `Some(n)`: n plies without progress draw the game.
    pub no_progress: Option<u32>,
}

impl Default for TrialecticDame {
    fn default() -> TrialecticDame {
        let (board, drawing) = &*DEFAULT_BOARD;
        TrialecticDame {
            board: Arc::clone(board),
            drawing: Arc::clone(drawing),
            side: Some(DEFAULT_SIDE),
            setup_two: false,
            enclosure: Enclosure::None,
            dame_first: false,
            no_progress: None,
        }
    }
}

impl TrialecticDame {
    /// The rulebook with `options` applied (§9).
    ///
    /// # Errors
    /// An option Trialectic Dame does not have, a value it does not take, or a
    /// board record that fails its checks (§1).
    pub fn new(options: &Options) -> Result<TrialecticDame, OptionsError> {
        options.only(VariantId::TrialecticDame, &OPTION_NAMES)?;
        let mut rules = TrialecticDame::default();
        match (options.get("board"), options.get("side")) {
            (Some(_), Some(_)) => {
                return Err(OptionsError::Invalid {
                    name: "board",
                    why: "give a board record or a triangle's side, not both".to_owned(),
                });
            }
            (Some(json), None) => {
                let board =
                    Board::from_json(json).map_err(|e| OptionsError::Invalid { name: "board", why: e.to_string() })?;
                rules.drawing = Arc::new(Drawing::of(&board));
                rules.board = Arc::new(board);
                rules.side = None;
            }
            (None, Some(side)) => {
                let n: usize = side.trim().parse().map_err(|_| OptionsError::BadValue {
                    name: "side",
                    value: side.to_owned(),
                    expected: "an even number from 10 to 32",
                })?;
                if n != DEFAULT_SIDE {
                    let board = Board::triangle(n).map_err(|why| OptionsError::Invalid { name: "side", why })?;
                    rules.drawing = Arc::new(Drawing::of(&board));
                    rules.board = Arc::new(board);
                }
                rules.side = Some(n);
            }
            (None, None) => {}
        }
        rules.setup_two = match options.get("setup").map(str::trim) {
            None | Some("1") => false,
            Some("2") => true,
            Some(v) => return Err(OptionsError::BadValue { name: "setup", value: v.to_owned(), expected: "1 or 2" }),
        };
        rules.enclosure = options.get("enclosure").map_or(Ok(Enclosure::None), str::parse)?;
        rules.dame_first = options.switch("dame_first", false)?;
        rules.no_progress = options.plies("no_progress")?;
        Ok(rules)
    }

    /// The board record in use.
    pub fn board_record(&self) -> &Arc<Board> {
        &self.board
    }

    fn duty(&self) -> Duty {
        Duty { dame_first: self.dame_first }
    }

    /// Whether `seat` is the one to move in a game that goes on.
    fn may_move(&self, state: &DameState, seat: Seat) -> bool {
        seat.index() == state.seat && turn::settled_end(self, state).is_none()
    }

    /// The legal moves of the seat to move, sorted by text (§6).
    fn moves_of(&self, state: &DameState) -> Vec<DameMove> {
        let board = &*state.board;
        let mut list = Vec::new();
        moves::generate(state, state.seat, self.duty(), &mut |play| {
            list.push(DameMove { text: play.text(board), play });
        });
        list.sort_unstable();
        list
    }

    /// The state with the passes and enclosures due applied, as for a hand-made
    /// state whose seat to move cannot move (§8), and the end if it came.
    pub fn settle(&self, state: &DameState) -> (DameState, Vec<String>, Option<Outcome>) {
        let mut next = state.clone();
        let mut notes = Vec::new();
        let last = turn::before(state, state.seat);
        let end = turn::settle(self, &mut next, last, &mut notes);
        (next, notes, end)
    }

    fn illegal(&self, seat: Seat, mv: &DameMove) -> RulesError {
        RulesError::Move {
            seat,
            seat_name: self.seat_name(seat),
            error: MoveError::Illegal { text: mv.text.clone(), reason: "not a legal move in this position".into() },
        }
    }

    /// Plays `mv` for the seat to move, if legal.
    fn play_checked(
        &self,
        state: &DameState,
        seat: Seat,
        mv: &DameMove,
        notes: &mut Vec<String>,
    ) -> Result<DameState, RulesError> {
        if !self.may_move(state, seat) {
            return Err(self.illegal(seat, mv));
        }
        if !moves::is_legal(state, state.seat, self.duty(), &mv.play) || mv.text != mv.play.text(&state.board) {
            return Err(self.illegal(seat, mv));
        }
        Ok(turn::play(self, state, &mv.play, notes).0)
    }
}

impl Variant for TrialecticDame {
    type State = DameState;
    type Move = DameMove;

    fn id(&self) -> VariantId {
        VariantId::TrialecticDame
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &["yellow", "red", "blue"]
    }

    fn start(&self) -> DameState {
        // A record whose yellow cannot move at once gets its passes and
        // enclosures before the first move, like any turn (§5).
        self.settle(&DameState::initial(Arc::clone(&self.board), self.setup_two)).0
    }

    fn parse_state(&self, text: &str) -> Result<DameState, StateError> {
        DameState::parse(text.trim(), &self.board, self.enclosure == Enclosure::Take).map_err(|problems| StateError {
            variant: VariantId::TrialecticDame,
            text: text.to_owned(),
            problems,
        })
    }

    fn seats_to_move(&self, state: &DameState) -> SeatSet {
        SeatSet::only(Seat::new(state.seat as u8))
    }

    fn legal_moves(&self, state: &DameState, seat: Seat) -> Vec<DameMove> {
        if !self.may_move(state, seat) {
            return Vec::new();
        }
        self.moves_of(state)
    }

    fn count_legal_moves(&self, state: &DameState, seat: Seat) -> usize {
        if !self.may_move(state, seat) {
            return 0;
        }
        moves::generate(state, state.seat, self.duty(), &mut |_| {})
    }

    fn parse_move(&self, state: &DameState, seat: Seat, text: &str) -> Result<DameMove, MoveError> {
        let legal = self.legal_moves(state, seat);
        notation::find(&self.board, state, seat.index(), &legal, text)
    }

    fn notation(&self, _state: &DameState, _seat: Seat, mv: DameMove) -> String {
        mv.text
    }

    fn advance(
        &self,
        state: &DameState,
        moves: &[(Seat, DameMove)],
    ) -> Result<Resolution<DameState, DameMove>, RulesError> {
        let moves = super::moves_by_seat(self, self.seats_to_move(state), moves)?;
        let (seat, mv) = moves[0].clone();
        let mut notes = Vec::new();
        let next = self.play_checked(state, seat, &mv, &mut notes)?;
        Ok(Resolution {
            state: next,
            moves: vec![SeatMove { seat, notation: mv.text.clone(), mv, result: SeatResult::Played }],
            notes,
            outcome: None,
        })
    }

    fn next_state(&self, state: &DameState, moves: &[(Seat, DameMove)]) -> Result<DameState, RulesError> {
        match moves {
            [(seat, mv)] => self.play_checked(state, *seat, mv, &mut Vec::new()),
            _ => self.advance(state, moves).map(|r| r.state),
        }
    }

    fn outcome(&self, _history: &[DameState], state: &DameState) -> Option<Outcome> {
        if let Some(end) = turn::settled_end(self, state) {
            return Some(end);
        }
        if moves::has_move(state, state.seat) {
            return None;
        }
        // A seat to move that cannot: the outcome after its pass or enclosure.
        self.settle(state).2
    }

    /// The rules have no repetition: the outcome never reads the history.
    fn repetition_window(&self, _state: &DameState) -> Option<usize> {
        Some(0)
    }

    fn board(&self, state: &DameState) -> BoardView {
        let mut pieces: Vec<(Cell, PieceView)> = stones(state)
            .map(|(c, s)| {
                let kind = if is_dame(s) { PieceKind::DraughtsKing } else { PieceKind::Man };
                // Stones are drawn in their colour, adopted ones too (§5).
                (self.drawing.cells[c as usize], PieceView { owner: Seat::new(colour(s) as u8), kind })
            })
            .collect();
        pieces.sort_by_key(|(c, _)| *c);
        BoardView { shape: Arc::clone(&self.drawing.shape), pieces, marked: Vec::new() }
    }

    fn move_path(&self, before: Option<&DameState>, canonical: &str) -> Option<MovePath> {
        let cell = |c: record::CellId| self.drawing.cells[c as usize];
        if let Some(state) = before
            && let Some(mv) = self.moves_of(state).into_iter().find(|m| m.text == canonical.trim())
        {
            let taken = match &mv.play {
                Play::Capture { taken, .. } => taken.iter().map(|&c| cell(c)).collect(),
                _ => Vec::new(),
            };
            return Some(MovePath {
                cells: mv.play.cells().into_iter().map(cell).collect(),
                captures: taken,
                grip: Vec::new(),
            });
        }
        // Without the position, the cells alone.
        match notation::read(&self.board, canonical).ok()? {
            notation::Written::Place(c) => {
                Some(MovePath { cells: vec![cell(c)], captures: Vec::new(), grip: Vec::new() })
            }
            notation::Written::Cells(cells) => {
                Some(MovePath { cells: cells.into_iter().map(cell).collect(), captures: Vec::new(), grip: Vec::new() })
            }
        }
    }

    /// The seats no longer in the game (§5): without stones, resigned, enclosed.
    fn seats_out(&self, state: &DameState) -> SeatSet {
        (0..3u8).filter(|&s| !state.is_in(s as usize)).map(Seat::new).collect()
    }

    /// By the order of elimination (issue 31): the first seat out 0, the
    /// second 1, the last with stones 2; seats out at once, or still in at a
    /// draw, share their places (a draw of two after one went out: 0, then 1½
    /// each). The rules' own 1 / ½ / 0 would not tell the first out from the
    /// second.
    fn tournament_scores(&self, history: &[DameState], outcome: &Outcome) -> Vec<Score> {
        super::elimination_scores(&self.elimination_order(history), outcome.result)
    }

    fn resignation(&self, state: &DameState, seat: Seat) -> Option<Outcome> {
        turn::retire(self, state, seat.index()).2
    }

    fn retire(&self, state: &DameState, seat: Seat) -> (DameState, Vec<String>, Option<Outcome>) {
        turn::retire(self, state, seat.index())
    }

    fn timeout(&self, _state: &DameState, _late: SeatSet) -> Option<Outcome> {
        // A timeout is a resignation (§9): the seat leaves and play goes on; the
        // caller takes each late seat out through `retire`, which says when that
        // ends the game.
        None
    }

    fn settled(&self, state: &DameState) -> DameState {
        self.settle(state).0
    }

    /// §9: the seats still in agree, and the draw scores them alone.
    fn agreed_draw(&self, state: &DameState) -> AgreedDraw {
        AgreedDraw {
            seats: (0..3u8).filter(|&s| state.is_in(s as usize)).map(Seat::new).collect(),
            outcome: turn::draw_among(state, EndReason::Agreement),
        }
    }

    fn move_text(&self, text: &str) -> Option<MoveText> {
        notation::is_move_text(&self.board, text).then_some(MoveText::Move)
    }

    fn move_forms(&self, state: &DameState, seat: Seat) -> String {
        let mut as_if = state.clone();
        as_if.seat = seat.index();
        let mut legal = if as_if.is_in(seat.index()) { self.moves_of(&as_if) } else { Vec::new() };
        if legal.is_empty() {
            let mut start = DameState::initial(Arc::clone(&self.board), self.setup_two);
            start.seat = seat.index();
            legal = self.moves_of(&start);
        }
        notation::forms(&legal)
    }

    fn guide(&self) -> Option<&'static str> {
        Some(include_str!("../../../docs/rules/trialectic-dame.md"))
    }

    /// §9, in its order; a board given as a record has no side of its own.
    fn effective_options(&self) -> Vec<(&'static str, String)> {
        use super::legend::{off_or, on_off};
        let (board, side) = match self.side {
            Some(n) => ("triangle".to_owned(), n.to_string()),
            None => ("given as a record".to_owned(), "as the board record has it".to_owned()),
        };
        vec![
            ("board", board),
            ("side", side),
            ("setup", if self.setup_two { "2" } else { "1" }.to_owned()),
            ("enclosure", self.enclosure.as_str().to_owned()),
            ("dame_first", on_off(self.dame_first)),
            ("no_progress", off_or(self.no_progress)),
        ]
    }

    fn legend(&self) -> Vec<String> {
        use super::legend::seat_letters;
        vec![
            format!("{} (yM: a man of Yellow)", seat_letters(&shape::SEAT_LETTERS, self.seat_names()))
                .replace("each piece", "each stone"),
            "M a man (one stone), C a Dame (a crowned man, two stacked stones); . is an empty playing cell".to_owned(),
        ]
    }
}
