//! Vierschach: chess for four players on a plus-shaped board of 160 squares
//! (`docs/rules/vierschach.md`, German Wikipedia's house rules with our Decisions).
//!
//! Four seats move in turn, clockwise: South, West, North, East. By default South
//! and North play against West and East, and a team wins when both enemy kings
//! are mated; in free-for-all mode the last seat standing wins. A mated seat's
//! pieces are frozen (they thaw if the mate is lifted by its next turn) or
//! removed, as the option `mated` says. Kings are never captured.
//!
//! One idea per module: `geometry` for the board and the seats' geometry (South's,
//! rotated), `state` for the position and its state string (§10), `moves` for
//! move generation and the check rules (§4–6), `turn` for the turn procedure
//! (§7) and `notation` for move text (§9). This file holds the rulebook with its
//! options (§12), the end of the game and its scores (§8), and the [`Variant`]
//! implementation.
//!
//! Outcomes use [`GameResult::Winners`] for a team's win and
//! [`GameResult::DrawAmong`] for a free-for-all draw in which seats already mated
//! or out score nothing.
//!
//! ```
//! use fairsteward::rules::{Options, VariantId};
//!
//! let rules = VariantId::Vierschach.rulebook(&Options::new()).unwrap();
//! let start = rules.start();
//! assert_eq!(rules.perft(&start, 2), Ok(395));
//! let r = rules.resolve(&[], &start, &[(rules.seat("south").unwrap(), "d4".into())]).unwrap();
//! assert!(r.state.contains(" w d1,k1,a4,n4,a11,n11,d14,k14 d3 aaaa 0 1"));
//! ```

mod geometry;
mod moves;
pub(crate) mod notation;
mod state;
#[cfg(test)]
mod tests;
mod turn;

use std::fmt;
use std::str::FromStr;

pub use geometry::Square;
pub use moves::{MoveKind, VsMove};
pub use state::{Kind, SEAT_LETTERS, Status, VsState};

use super::notation::{Candidate, Piece, Position, Refusal, Sq};
use super::{
    BoardShape, BoardView, Cell, EndReason, GameResult, MoveError, MoveText, Options, OptionsError, Outcome, PieceKind,
    PieceView, Resolution, RulesError, Score, Seat, SeatMove, SeatResult, SeatSet, StateError, Variant, VariantId,
};
use state::{is_piece, kind, owner};

/// South (white, team 1), first to move.
pub const SOUTH: Seat = Seat::new(0);
/// West (black, team 2).
pub const WEST: Seat = Seat::new(1);
/// North (beige, team 1), South's partner.
pub const NORTH: Seat = Seat::new(2);
/// East (brown, team 2), West's partner.
pub const EAST: Seat = Seat::new(3);

/// Teams or free-for-all (§12 `mode`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// South and North against West and East.
    #[default]
    Teams,
    /// Every seat for itself.
    Ffa,
}

/// What happens to a mated seat's pieces (§12 `mated`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mated {
    /// Frozen: obstacles that can thaw at the seat's next turn.
    Freeze,
    /// Removed: the seat is out.
    Remove,
}

impl Mode {
    /// The option value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Teams => "teams",
            Mode::Ffa => "ffa",
        }
    }
}

impl FromStr for Mode {
    type Err = OptionsError;

    fn from_str(s: &str) -> Result<Mode, OptionsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "teams" => Ok(Mode::Teams),
            "ffa" => Ok(Mode::Ffa),
            _ => Err(OptionsError::BadValue { name: "mode", value: s.to_owned(), expected: "teams or ffa" }),
        }
    }
}

impl Mated {
    /// The option value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mated::Freeze => "freeze",
            Mated::Remove => "remove",
        }
    }
}

impl FromStr for Mated {
    type Err = OptionsError;

    fn from_str(s: &str) -> Result<Mated, OptionsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "freeze" => Ok(Mated::Freeze),
            "remove" => Ok(Mated::Remove),
            _ => Err(OptionsError::BadValue { name: "mated", value: s.to_owned(), expected: "freeze or remove" }),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Mated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The Vierschach rulebook with a game's options (§12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vierschach {
    /// Teams (default) or free-for-all.
    pub mode: Mode,
    /// Frozen (default in teams) or removed (default in free-for-all).
    pub mated: Mated,
    /// Whether a piece may capture its partner's active pieces (never the king).
    pub partner_capture: bool,
    /// Whether a pawn may jump over its partner's pawn (teams only; default on).
    pub pawn_jump: bool,
    /// Whether the partner's back rank promotes (teams only; default on).
    pub ally_promotion: bool,
    /// `Some(n)`: n plies without a capture, pawn move or removal draw the game.
    pub no_progress: Option<u32>,
}

impl Default for Vierschach {
    fn default() -> Vierschach {
        Vierschach::teams()
    }
}

/// The option names, as `Options` and the CLI spell them.
/// The plus-shaped board (docs/rules/vierschach.md §1): 14×14 less the 3×3 corners, a
/// square light when `x + y` is even; each seat's view is turned a quarter more
/// than the one before, clockwise from South, so the seat sits at the bottom.
static SHAPE: std::sync::LazyLock<std::sync::Arc<BoardShape>> = std::sync::LazyLock::new(|| {
    let holes: Vec<Cell> = geometry::holes().into_iter().map(|(file, rank)| Cell { file, rank, level: 0 }).collect();
    std::sync::Arc::new(BoardShape::squares(14, 14, &holes, false, vec![0.0, 90.0, 180.0, 270.0]))
});

const OPTION_NAMES: [&str; 6] = ["mode", "mated", "partner_capture", "pawn_jump", "ally_promotion", "no_progress"];

impl Vierschach {
    /// Teams mode with every default (§12).
    pub const fn teams() -> Vierschach {
        Vierschach {
            mode: Mode::Teams,
            mated: Mated::Freeze,
            partner_capture: false,
            pawn_jump: true,
            ally_promotion: true,
            no_progress: None,
        }
    }

    /// Free-for-all with every default (§12: mated pieces are removed).
    pub const fn ffa() -> Vierschach {
        Vierschach { mode: Mode::Ffa, mated: Mated::Remove, ..Vierschach::teams() }
    }

    /// The rulebook with `options` applied (§12).
    ///
    /// # Errors
    /// An option Vierschach does not have, or a value it does not take.
    pub fn new(options: &Options) -> Result<Vierschach, OptionsError> {
        options.only(VariantId::Vierschach, &OPTION_NAMES)?;
        let mode: Mode = options.get("mode").map_or(Ok(Mode::Teams), str::parse)?;
        let default_mated = match mode {
            Mode::Teams => Mated::Freeze,
            Mode::Ffa => Mated::Remove,
        };
        let mated = options.get("mated").map_or(Ok(default_mated), str::parse)?;
        let no_progress = options.plies("no_progress")?;
        Ok(Vierschach {
            mode,
            mated,
            partner_capture: options.switch("partner_capture", false)?,
            pawn_jump: options.switch("pawn_jump", true)?,
            ally_promotion: options.switch("ally_promotion", true)?,
            no_progress,
        })
    }

    /// Whether `b` is an enemy of `a` (§3): the other team, or everyone in `ffa`.
    pub(crate) const fn is_enemy(&self, a: usize, b: usize) -> bool {
        self.enemy_seats(a) & (1 << b) != 0
    }

    /// The enemies of `seat` (§3) as a bit set, whatever their status.
    pub(crate) const fn enemy_seats(&self, seat: usize) -> u8 {
        let all_others = 0b1111 & !(1 << seat);
        match self.mode {
            Mode::Ffa => all_others,
            Mode::Teams => all_others & !(1 << (seat ^ 2)),
        }
    }

    /// The seats on whose back rank a pawn of `seat` promotes (§4), as a bit set.
    pub(crate) const fn promoting_seats(&self, seat: usize) -> u8 {
        match self.mode {
            Mode::Teams if self.ally_promotion => self.enemy_seats(seat) | 1 << (seat ^ 2),
            _ => self.enemy_seats(seat),
        }
    }

    /// The seat opposite, in teams mode.
    pub(crate) const fn partner(&self, seat: usize) -> Option<usize> {
        match self.mode {
            Mode::Teams => Some(seat ^ 2),
            Mode::Ffa => None,
        }
    }

    /// Whether a pawn of `seat` promotes on `other`'s back rank (§4): always on an
    /// enemy's, on the partner's with `ally_promotion`.
    pub(crate) const fn promotes_on(&self, seat: usize, other: usize) -> bool {
        self.promoting_seats(seat) & (1 << other) != 0
    }

    /// Whether §6 rule 2 applies: teams mode with frozen mated pieces.
    pub(crate) const fn counts_partner_checks(&self) -> bool {
        matches!((self.mode, self.mated), (Mode::Teams, Mated::Freeze))
    }

    /// The end of the game that the statuses show (§8), checked after every
    /// status change of the turn procedure.
    pub(crate) fn end_by_status(&self, st: &[Status; 4]) -> Option<Outcome> {
        match self.mode {
            Mode::Teams => {
                for team in 0..2 {
                    if st[team].is_down() && st[team + 2].is_down() {
                        let winners = SeatSet::only(Seat::new(1 - team as u8)).with(Seat::new(3 - team as u8));
                        return Some(Outcome { result: GameResult::Winners(winners), reason: EndReason::Checkmate });
                    }
                }
                for team in 0..2 {
                    let (a, b) = (st[team], st[team + 2]);
                    if (a.is_down() && b == Status::Stalemated) || (b.is_down() && a == Status::Stalemated) {
                        return Some(Outcome::draw(EndReason::Stalemate));
                    }
                }
            }
            Mode::Ffa => {
                let mut up = (0..4).filter(|&s| !st[s].is_down());
                if let (Some(last), None) = (up.next(), up.next()) {
                    return Some(Outcome::win(Seat::new(last as u8), EndReason::Checkmate));
                }
            }
        }
        if !st.contains(&Status::Active) {
            return Some(Outcome { result: self.draw_result(st), reason: EndReason::Stalemate });
        }
        None
    }

    /// Statuses that play cannot produce: two end conditions at once (teams), or
    /// nobody left standing (free-for-all).
    pub(crate) fn impossible_status(&self, st: &[Status; 4]) -> bool {
        match self.mode {
            Mode::Teams => (0..2).all(|team| st[team].is_down() || st[team + 2].is_down()),
            Mode::Ffa => st.iter().all(|s| s.is_down()),
        }
    }

    /// A drawn result (§8): ½ each in teams mode; in free-for-all ½ to each seat
    /// with status `a` or `s` and 0 to the others.
    fn draw_result(&self, st: &[Status; 4]) -> GameResult {
        match self.mode {
            Mode::Teams => GameResult::Draw,
            Mode::Ffa => {
                let standing: SeatSet = (0..4u8).filter(|&s| !st[s as usize].is_down()).map(Seat::new).collect();
                if standing == SeatSet::first(4) { GameResult::Draw } else { GameResult::DrawAmong(standing) }
            }
        }
    }

    /// The end of the game in `state` (§8; `no_progress` after the statuses).
    fn outcome_of(&self, state: &VsState) -> Option<Outcome> {
        if state.status[state.turn] != Status::Active {
            return Some(
                self.end_by_status(&state.status)
                    .unwrap_or(Outcome { result: self.draw_result(&state.status), reason: EndReason::Stalemate }),
            );
        }
        match self.no_progress {
            Some(n) if state.halfmove >= n => {
                Some(Outcome { result: self.draw_result(&state.status), reason: EndReason::NoProgress })
            }
            _ => None,
        }
    }

    fn candidates(&self, state: &VsState, seat: usize) -> Vec<Candidate<VsMove>> {
        if seat != state.turn {
            return Vec::new();
        }
        moves::legal_moves(self, state, seat).into_iter().map(|mv| self.candidate(state, seat, mv)).collect()
    }

    fn candidate(&self, state: &VsState, seat: usize, mv: VsMove) -> Candidate<VsMove> {
        let capture = is_piece(state.board[mv.to.cell()]) || mv.kind == MoveKind::EnPassant;
        notation::candidate(seat, mv, kind(state.board[mv.from.cell()]), capture)
    }

    /// The checks of a state string that need the move generator: the seat to move
    /// can move; the seat whose examination ended the game could not, and its
    /// status says whether it was in check.
    fn check_turn(&self, state: &VsState) -> Vec<String> {
        let p = state.turn;
        let name = state::seat_name(p);
        let can_move = moves::has_legal_move(self, state, p);
        let check = moves::in_check(self, state, p);
        match state.status[p] {
            Status::Active if !can_move => vec![format!("{name} is to move (status a) but has no legal move")],
            Status::Mated | Status::Stalemated if can_move => {
                vec![format!("{name} ended the game at its examination but has a legal move")]
            }
            Status::Mated if !check => vec![format!("{name} is mated (m) but not in check")],
            Status::Stalemated if check => vec![format!("{name} is stalemated (s) but in check")],
            _ => Vec::new(),
        }
    }

    /// Resignation or timeout of `seat` (§8, Decision). In teams mode the state
    /// stays and the other team wins. In free-for-all the seat becomes `x`, its
    /// pieces are removed and, if it was to move, the turn passes on; the outcome
    /// is set when one seat is left standing (or the turn procedure ends the game).
    pub fn resign(&self, state: &VsState, seat: Seat) -> Resolution<VsState, VsMove> {
        let mut notes = Vec::new();
        let (state, outcome) = match self.mode {
            Mode::Teams => (state.clone(), self.resignation_outcome(state, seat)),
            Mode::Ffa => {
                let next = turn::resign_ffa(self, state, seat.index(), &mut notes);
                let outcome = self.outcome_of(&next).map(|o| {
                    if next.turn == seat.index() { Outcome { reason: EndReason::Resignation, ..o } } else { o }
                });
                (next, outcome)
            }
        };
        Resolution { state, moves: Vec::new(), notes, outcome }
    }

    fn resignation_outcome(&self, state: &VsState, seat: Seat) -> Option<Outcome> {
        let s = seat.index();
        match self.mode {
            Mode::Teams => {
                let winners = SeatSet::only(Seat::new(((s + 1) % 4) as u8)).with(Seat::new(((s + 3) % 4) as u8));
                Some(Outcome { result: GameResult::Winners(winners), reason: EndReason::Resignation })
            }
            Mode::Ffa => {
                let mut up = (0..4).filter(|&o| o != s && !state.status[o].is_down());
                match (up.next(), up.next()) {
                    (Some(last), None) => Some(Outcome::win(Seat::new(last as u8), EndReason::Resignation)),
                    _ => None,
                }
            }
        }
    }
}

fn seat_of(index: usize) -> Seat {
    Seat::new(index as u8)
}

impl Variant for Vierschach {
    type State = VsState;
    type Move = VsMove;

    fn id(&self) -> VariantId {
        VariantId::Vierschach
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &["south", "west", "north", "east"]
    }

    /// Teams mode: south with north, west with east (§12); free-for-all: none.
    fn teams(&self) -> Vec<SeatSet> {
        (0..2u8)
            .filter_map(|seat| {
                let partner = self.partner(usize::from(seat))?;
                Some(SeatSet::only(Seat::new(seat)).with(Seat::new(partner as u8)))
            })
            .collect()
    }

    fn start(&self) -> VsState {
        VsState::start()
    }

    fn parse_state(&self, text: &str) -> Result<VsState, StateError> {
        let error = |problems| StateError { variant: VariantId::Vierschach, text: text.to_owned(), problems };
        let state = VsState::parse(text.trim(), self).map_err(error)?;
        let problems = self.check_turn(&state);
        if problems.is_empty() { Ok(state) } else { Err(error(problems)) }
    }

    fn seats_to_move(&self, state: &VsState) -> SeatSet {
        SeatSet::only(seat_of(state.turn))
    }

    fn legal_moves(&self, state: &VsState, seat: Seat) -> Vec<VsMove> {
        if seat.index() != state.turn {
            return Vec::new();
        }
        let mut moves = moves::legal_moves(self, state, state.turn);
        moves::sort(&mut moves);
        moves
    }

    fn count_legal_moves(&self, state: &VsState, seat: Seat) -> usize {
        if seat.index() != state.turn {
            return 0;
        }
        moves::count_legal_moves(self, state, state.turn)
    }

    fn parse_move(&self, state: &VsState, seat: Seat, text: &str) -> Result<VsMove, MoveError> {
        let s = seat.index();
        let legal = self.candidates(state, s);
        let occupant = |sq: Sq| {
            let cell = Square::new(sq.file, sq.rank).map(|square| state.board[square.cell()])?;
            is_piece(cell).then(|| (Piece::from(kind(cell)), owner(cell) == s))
        };
        let refused = || {
            if s != state.turn {
                return Vec::new();
            }
            moves::refused_moves(self, state, s)
                .into_iter()
                .map(|(mv, own_king)| {
                    let why = if own_king {
                        Refusal::ExposesKing
                    } else {
                        Refusal::Other("it would add an attack on your partner's king (§6 rule 2)".to_owned())
                    };
                    (self.candidate(state, s, mv), why)
                })
                .collect()
        };
        let san = |c: &Candidate<VsMove>| notation::san(c, &legal);
        let position = Position {
            board: &notation::BOARD,
            legal: legal.clone(),
            in_check: s == state.turn && moves::in_check(self, state, s),
            occupant: &occupant,
            refused: &refused,
            san: &san,
        };
        super::notation::find(text, &position)
    }

    fn notation(&self, state: &VsState, seat: Seat, mv: VsMove) -> String {
        let legal = self.candidates(state, seat.index());
        match legal.iter().find(|c| c.mv == mv) {
            Some(c) => notation::san(c, &legal),
            None => mv.to_string(),
        }
    }

    fn advance(&self, state: &VsState, moves: &[(Seat, VsMove)]) -> Result<Resolution<VsState, VsMove>, RulesError> {
        let moves = super::moves_by_seat(self, self.seats_to_move(state), moves)?;
        let (seat, mv) = moves[0];
        if !moves::is_legal(self, state, seat.index(), mv) {
            return Err(RulesError::Move {
                seat,
                seat_name: self.seat_name(seat),
                error: MoveError::Illegal { text: mv.to_string(), reason: "not a legal move in this position".into() },
            });
        }
        let notation = Variant::notation(self, state, seat, mv);
        let mut notes = Vec::new();
        let next = turn::play(self, state, mv, &mut notes);
        Ok(Resolution {
            state: next,
            moves: vec![SeatMove { seat, mv, notation, result: SeatResult::Played }],
            notes,
            outcome: None,
        })
    }

    /// Plays the move first and judges it on the board it leaves, so that a legal
    /// move (perft plays only those) costs one attack test on top of the turn
    /// procedure; anything else goes through `advance` for its error.
    fn next_state(&self, state: &VsState, moves: &[(Seat, VsMove)]) -> Result<VsState, RulesError> {
        if let [(seat, mv)] = *moves
            && seat.index() == state.turn
            && moves::follows_piece_rules(self, state, state.turn, mv)
        {
            let mut next = turn::apply(state, mv);
            if moves::keeps_check_rules(self, state, state.turn, mv, &next.board) {
                turn::pass_turn(self, &mut next, state.turn, &mut Vec::new());
                return Ok(next);
            }
        }
        self.advance(state, moves).map(|r| r.state)
    }

    fn outcome(&self, _history: &[VsState], state: &VsState) -> Option<Outcome> {
        self.outcome_of(state)
    }

    /// The rules have no repetition: the outcome never reads the history.
    fn repetition_window(&self, _state: &VsState) -> Option<usize> {
        Some(0)
    }

    fn board(&self, state: &VsState) -> BoardView {
        let cell = |sq: Square| Cell { file: sq.x(), rank: sq.y(), level: 0 };
        let mut pieces = Vec::new();
        let mut marked = Vec::new();
        for sq in geometry::SQUARES {
            let c = state.board[sq.cell()];
            if is_piece(c) {
                let seat = owner(c);
                let kind = PieceKind::from_fen(kind(c).letter()).unwrap_or(PieceKind::Pawn);
                pieces.push((cell(sq), PieceView { owner: seat_of(seat), kind }));
                if state.status[seat] == Status::Mated {
                    marked.push(cell(sq));
                }
            }
        }
        pieces.sort_by_key(|(c, _)| *c);
        marked.sort();
        BoardView { shape: SHAPE.clone(), pieces, marked }
    }

    fn resignation(&self, state: &VsState, seat: Seat) -> Option<Outcome> {
        self.resignation_outcome(state, seat)
    }

    /// Mated (`m`) or out (`x`): the seats no longer counted as playing (§8).
    fn seats_out(&self, state: &VsState) -> SeatSet {
        (0..4u8).filter(|&s| state.status[s as usize].is_down()).map(Seat::new).collect()
    }

    /// Teams mode scores the team result (1 each to the winning team, ½ each
    /// for a draw); free-for-all scores the order of elimination: the first
    /// seat out 0, the second 1, the third 2, the last standing 3; seats out
    /// at once, or still standing at a draw, share their places (a draw among
    /// three after one seat went out: 0, then 2 each).
    fn tournament_scores(&self, history: &[VsState], outcome: &Outcome) -> Vec<Score> {
        match self.mode {
            Mode::Teams => super::result_scores(4, outcome.result),
            Mode::Ffa => super::elimination_scores(&self.elimination_order(history), outcome.result),
        }
    }

    fn retire(&self, state: &VsState, seat: Seat) -> (VsState, Vec<String>, Option<Outcome>) {
        let r = self.resign(state, seat);
        (r.state, r.notes, r.outcome)
    }

    fn move_text(&self, text: &str) -> Option<MoveText> {
        super::notation::is_move_text(&notation::BOARD, text).then_some(MoveText::Move)
    }

    fn move_forms(&self, state: &VsState, seat: Seat) -> String {
        // The seat's own moves, as if it were to move now (else at the start).
        let as_if = |from: &VsState| {
            let mut s = from.clone();
            s.turn = seat.index();
            self.candidates(&s, seat.index())
        };
        let mut legal = as_if(state);
        if legal.is_empty() {
            legal = as_if(&VsState::start());
        }
        let san = |c: &Candidate<VsMove>| notation::san(c, &legal);
        let position = Position {
            board: &notation::BOARD,
            legal: legal.clone(),
            in_check: false,
            occupant: &|_| None,
            refused: &Vec::new,
            san: &san,
        };
        super::notation::forms(&position)
    }

    fn guide(&self) -> Option<&'static str> {
        Some(include_str!("../../../docs/rules/vierschach.md"))
    }

    /// §12, in its order.
    fn effective_options(&self) -> Vec<(&'static str, String)> {
        use super::legend::{off_or, on_off};
        vec![
            ("mode", self.mode.to_string()),
            ("mated", self.mated.to_string()),
            ("partner_capture", on_off(self.partner_capture)),
            ("pawn_jump", on_off(self.pawn_jump)),
            ("ally_promotion", on_off(self.ally_promotion)),
            ("no_progress", off_or(self.no_progress)),
        ]
    }

    fn legend(&self) -> Vec<String> {
        use super::legend::{CHESS_PIECES, capitalized, seat_letters};
        let names = self.seat_names();
        let sides = match self.mode {
            Mode::Teams => {
                let team = |s: usize| {
                    let partner = self.partner(s).unwrap_or(s);
                    format!("{} with {}", capitalized(names[s]), capitalized(names[partner]))
                };
                format!("teams: {} against {}", team(0), team(1))
            }
            Mode::Ffa => "free-for-all: every seat plays for itself".to_owned(),
        };
        vec![
            format!("{} (sK: South's king)", seat_letters(&SEAT_LETTERS, names)),
            CHESS_PIECES.to_owned(),
            sides,
            format!(
                "* before a piece: its seat is mated, the piece {} (§8); . is an empty square",
                match self.mated {
                    Mated::Freeze => "frozen",
                    Mated::Remove => "about to leave the board",
                }
            ),
        ]
    }
}
