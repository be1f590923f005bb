//! The rules of every game the steward referees: pure, deterministic game logic.
//!
//! Nothing here does I/O, reads a clock, draws a random number or iterates a
//! `HashMap` into its output: `fairsteward verify` replays every resolution and
//! must get the same bytes. A game is a [`Variant`] value (the rulebook, with its
//! options already applied) plus a state string as its rules file defines it.
//!
//! # Turns
//! A *turn* is what the steward waits for. [`Variant::seats_to_move`] names the seats
//! that owe a move in a state: one seat in turn-based games, several at once in
//! simultaneous ones (Fairschach's pairs). When every such seat has entered a move,
//! [`Variant::resolve`] works them into the state together and says, per seat,
//! whether its move was [`SeatResult::Played`], played [`SeatResult::First`] or
//! [`SeatResult::Struck`]. Turn-based and simultaneous games go through that one path.
//!
//! # Adding a variant
//! A game is one module here. It provides, through [`Variant`]:
//! - **its rules**: the state string of its rules file (`start`, `parse_state`),
//!   the seats, `seats_to_move`, `legal_moves`, `advance`, `outcome`, and where
//!   they differ from two-seat chess `resignation`, `retire` and `timeout`;
//! - **its notation**: `parse_move` (every form its rules file accepts, with the
//!   reason when a move is refused), `notation` (how a move is written back),
//!   `is_move_text` (what the mail door takes for a move), `move_forms` (the
//!   forms, with examples, for help texts) and, if its record counts otherwise,
//!   `record_number`;
//! - **its board description**: `board` gives a [`BoardView`] over a
//!   [`BoardShape`] (cells with their outlines on one or more levels, holes left
//!   out, edge labels, and the turn that puts each seat at the bottom), and
//!   `move_path` the cells a move passes and captures ([`MovePath`]), and
//!   `move_grip` where a move whose path is not on the board yet is taken hold of;
//! - **its piece set**: the [`PieceKind`]s on its board (chess pieces, draughts
//!   men and kings).
//!
//! Then add its name to [`VariantId`] and one arm to [`VariantId::rulebook`] (and
//! to [`VariantId::state_key`]). Nothing else changes: the steward, the doors, the
//! renderers, the templates and the CLI reach games only through [`DynVariant`]
//! and the registry, and `tests/variant_names.rs` fails if code outside this
//! folder names a variant.

mod board;
pub mod chess;
pub mod dame;
pub mod dreierschach;
pub mod fairschach;
pub mod mailbox;
pub(crate) mod notation;
pub mod record;
pub mod tour;
pub mod tri_d;
pub mod vierschach;
#[cfg(test)]
mod window_tests;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

pub use board::{
    Army, BoardShape, BoardView, Cell, CellShape, EdgeLabel, MovePath, Outline, PieceKind, PieceView, Point,
    coordinate_move_cells,
};
pub use record::{GameRecord, RecordedTurn};

/// A seat at the table: the index of a player position in the variant's seat list.
///
/// Seat names ("white", "black", …) belong to the variant: see
/// [`Variant::seat_names`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(u8);

impl Seat {
    /// Seats are numbered from 0; a game has at most [`SeatSet::MAX`] of them.
    pub const fn new(index: u8) -> Seat {
        assert!(index < SeatSet::MAX);
        Seat(index)
    }

    /// The position of this seat in the variant's seat list.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// This seat's name among `names` (a game's seat names, in seat order), or
    /// `seat N` (counted from 1) for a seat beyond them.
    pub fn name_in<S: AsRef<str>>(self, names: &[S]) -> String {
        names.get(self.index()).map_or_else(|| format!("seat {}", self.index() + 1), |s| s.as_ref().to_owned())
    }
}

/// A small set of seats, in seat order.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeatSet(u8);

impl SeatSet {
    /// The most seats any variant has.
    pub const MAX: u8 = 4;

    /// No seat.
    pub const EMPTY: SeatSet = SeatSet(0);

    /// The set holding just `seat`.
    pub const fn only(seat: Seat) -> SeatSet {
        SeatSet(1 << seat.0)
    }

    /// Seats `0..n`.
    pub const fn first(n: u8) -> SeatSet {
        SeatSet(((1u16 << n) - 1) as u8)
    }

    /// Adds a seat.
    pub const fn with(self, seat: Seat) -> SeatSet {
        SeatSet(self.0 | 1 << seat.0)
    }

    /// Whether `seat` is in the set.
    pub const fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat.0) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of seats in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The seats in seat order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        (0..Self::MAX).filter(move |i| self.0 & (1 << i) != 0).map(Seat)
    }
}

impl FromIterator<Seat> for SeatSet {
    fn from_iter<T: IntoIterator<Item = Seat>>(iter: T) -> SeatSet {
        iter.into_iter().fold(SeatSet::EMPTY, SeatSet::with)
    }
}

/// The variants the steward knows, by their interface names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VariantId {
    /// Standard chess (`rules/chess.md`).
    Chess,
    /// Simultaneous chess by W. Zühlke (`rules/fairschach.md`).
    Fairschach,
    /// Chess for four on a plus-shaped board (`rules/vierschach.md`).
    Vierschach,
    /// Chess for three on 126 hexagons (`rules/dreierschach.md`).
    Dreierschach,
    /// 3D chess on three main boards and four attack boards (`rules/tri-d-chess.md`).
    TriDChess,
    /// Draughts for three on a board given as data (`rules/trialectic-dame.md`).
    TrialecticDame,
}

impl VariantId {
    /// Every variant, in the order `--help` lists them.
    pub const ALL: [VariantId; 6] = [
        VariantId::Chess,
        VariantId::Fairschach,
        VariantId::Vierschach,
        VariantId::Dreierschach,
        VariantId::TriDChess,
        VariantId::TrialecticDame,
    ];

    /// The game a new game is when none is named: the headline game.
    pub const HEADLINE: VariantId = VariantId::Fairschach;

    /// The names of every variant, in [`VariantId::ALL`]'s order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        VariantId::ALL.into_iter().map(VariantId::name)
    }

    /// The key of the state string in the conformance JSON (DESIGN §5): `fen`
    /// for the variants whose state is a FEN, `state` for the others.
    pub const fn state_key(self) -> &'static str {
        match self {
            VariantId::Chess | VariantId::Fairschach => "fen",
            VariantId::Vierschach | VariantId::Dreierschach | VariantId::TriDChess | VariantId::TrialecticDame => {
                "state"
            }
        }
    }

    /// Whether the conformance JSON writes an outcome with the winner and every
    /// seat's score (`{"result": "win", "winner": "y", "reason": …, "scores":
    /// {"y": 1, …}}`, rules/trialectic-dame.md §8) rather than as one score text.
    pub const fn outcome_with_scores(self) -> bool {
        matches!(self, VariantId::TrialecticDame)
    }

    /// The name used in the API, the CLI and the store.
    pub const fn name(self) -> &'static str {
        match self {
            VariantId::Chess => "chess",
            VariantId::Fairschach => "fairschach",
            VariantId::Vierschach => "vierschach",
            VariantId::Dreierschach => "dreierschach",
            VariantId::TriDChess => "tri-d-chess",
            VariantId::TrialecticDame => "trialectic-dame",
        }
    }

    /// Builds the rulebook of this variant with the game's options applied.
    ///
    /// # Errors
    /// An option the variant does not know, or a value it does not accept.
    pub fn rulebook(self, options: &Options) -> Result<Box<dyn DynVariant>, OptionsError> {
        Ok(match self {
            VariantId::Chess => Box::new(chess::Chess::new(options)?),
            VariantId::Fairschach => Box::new(fairschach::Fairschach::new(options)?),
            VariantId::Vierschach => Box::new(vierschach::Vierschach::new(options)?),
            VariantId::Dreierschach => Box::new(dreierschach::Dreierschach::new(options)?),
            VariantId::TriDChess => Box::new(tri_d::TriDChess::new(options)?),
            VariantId::TrialecticDame => Box::new(dame::TrialecticDame::new(options)?),
        })
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for VariantId {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<VariantId, UnknownVariant> {
        let wanted = s.trim().to_ascii_lowercase();
        VariantId::ALL.into_iter().find(|v| v.name() == wanted).ok_or_else(|| UnknownVariant(s.to_owned()))
    }
}

/// A variant name that is not one of [`VariantId::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {:?}; known variants: {}", .0, VariantId::names().collect::<Vec<_>>().join(", "))]
pub struct UnknownVariant(pub String);

/// A game's options as given at creation: option name to value, both text.
///
/// Each rulebook reads the options it knows and refuses any other, so a typo never
/// silently falls back to a default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options(BTreeMap<String, String>);

impl Options {
    /// No options: every default.
    pub fn new() -> Options {
        Options::default()
    }

    /// Sets an option, replacing an earlier value.
    pub fn set(mut self, name: impl Into<String>, value: impl Into<String>) -> Options {
        self.0.insert(name.into(), value.into());
        self
    }

    /// The value of an option, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Refuses any option not in `known`.
    ///
    /// # Errors
    /// [`OptionsError::Unknown`] naming the first unknown option.
    pub fn only(&self, variant: VariantId, known: &[&str]) -> Result<(), OptionsError> {
        match self.0.keys().find(|k| !known.contains(&k.as_str())) {
            Some(name) => Err(OptionsError::Unknown { variant, name: name.clone(), known: known.join(", ") }),
            None => Ok(()),
        }
    }

    /// An on/off option: `on` or `true`, `off` or `false` (any case); `default`
    /// when it is not given.
    ///
    /// # Errors
    /// [`OptionsError::BadValue`] for any other value.
    pub fn switch(&self, name: &'static str, default: bool) -> Result<bool, OptionsError> {
        match self.get(name).map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(default),
            Some(v) if v == "on" || v == "true" => Ok(true),
            Some(v) if v == "off" || v == "false" => Ok(false),
            Some(_) => Err(OptionsError::BadValue {
                name,
                value: self.get(name).unwrap_or_default().to_owned(),
                expected: "on or off",
            }),
        }
    }

    /// An option that is `off` (the default) or a number of plies, 1 or more
    /// (`no_progress`).
    ///
    /// # Errors
    /// [`OptionsError::BadValue`] for any other value.
    pub fn plies(&self, name: &'static str) -> Result<Option<u32>, OptionsError> {
        match self.get(name).map(str::trim) {
            None => Ok(None),
            Some(v) if v.eq_ignore_ascii_case("off") => Ok(None),
            Some(v) => match v.parse::<u32>() {
                Ok(n) if n > 0 => Ok(Some(n)),
                _ => Err(OptionsError::BadValue {
                    name,
                    value: v.to_owned(),
                    expected: "off or a number of plies (1 or more)",
                }),
            },
        }
    }

    /// The options in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// A game option that the variant does not accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// The variant has no such option.
    #[error("{variant} has no option {name:?}; {}", if known.is_empty() { "it has no options".to_owned() } else { format!("its options are: {known}") })]
    Unknown {
        /// The variant asked.
        variant: VariantId,
        /// The option given.
        name: String,
        /// The options it has, comma-separated.
        known: String,
    },
    /// The option exists but the value is not one it takes.
    #[error("option {name} does not accept {value:?}; use {expected}")]
    BadValue {
        /// The option.
        name: &'static str,
        /// The value given.
        value: String,
        /// What it accepts.
        expected: &'static str,
    },
    /// The value is refused for a reason of its own (a board record that fails
    /// its checks, say).
    #[error("option {name}: {why}")]
    Invalid {
        /// The option.
        name: &'static str,
        /// What is wrong with the value.
        why: String,
    },
}

/// How a finished game was scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// One seat won: 1 for it, 0 for the others.
    Win(Seat),
    /// Nobody won: ½ for every seat.
    Draw,
    /// Several seats won together, 1 each, the others 0 (a Vierschach team).
    Winners(SeatSet),
    /// A draw that scores ½ for these seats and 0 for the others (Vierschach
    /// free-for-all: seats mated or out before the draw get nothing).
    DrawAmong(SeatSet),
    /// Points in the game's own scale, per seat in seat order: Dreierschach's
    /// 3/1/0 for a mate, 2/2/0 for a resignation out of check, 1/1/1 for a
    /// draw. Build it with [`GameResult::points`].
    Points {
        /// The points of the first `seats` seats (the rest are 0).
        points: [u8; 4],
        /// The number of seats of the game.
        seats: u8,
    },
}

impl GameResult {
    /// [`GameResult::Points`] of a game whose seats scored `points`, in seat
    /// order (at most [`SeatSet::MAX`] seats; points above 15 count as 15).
    pub fn points(points: &[u8]) -> GameResult {
        let seats = points.len().min(usize::from(SeatSet::MAX));
        let mut all = [0; 4];
        for (to, &p) in all.iter_mut().zip(points) {
            *to = p.min(15);
        }
        GameResult::Points { points: all, seats: seats as u8 }
    }

    /// The result as PGN writes it for a two-seat game (`1-0`, `0-1`, `1/2-1/2`).
    pub fn two_seat_score(self) -> &'static str {
        match self {
            GameResult::Win(s) if s.index() == 0 => "1-0",
            GameResult::Win(_) => "0-1",
            GameResult::Winners(set) if set.contains(Seat(0)) => "1-0",
            GameResult::Winners(_) => "0-1",
            GameResult::Draw | GameResult::DrawAmong(_) => "1/2-1/2",
            GameResult::Points { points: [a, b, ..], .. } if a > b => "1-0",
            GameResult::Points { points: [a, b, ..], .. } if a < b => "0-1",
            GameResult::Points { .. } => "1/2-1/2",
        }
    }

    /// The score of `seat` in half points: 2 for a win, 1 for a draw, 0 for a
    /// loss. Of [`GameResult::Points`]: 2 for the seats with the most points
    /// when the points differ, 1 for every seat when they do not.
    pub fn half_points(self, seat: Seat) -> u8 {
        match self {
            GameResult::Win(s) => 2 * u8::from(s == seat),
            GameResult::Draw => 1,
            GameResult::Winners(set) => 2 * u8::from(set.contains(seat)),
            GameResult::DrawAmong(set) => u8::from(set.contains(seat)),
            GameResult::Points { .. } if self.winners().is_empty() => 1,
            GameResult::Points { .. } => 2 * u8::from(self.winners().contains(seat)),
        }
    }

    /// The scores of a game of `seats` seats, in seat order, separated by `-`:
    /// `1-0` and `1/2-1/2` for two seats (as [`GameResult::two_seat_score`]),
    /// `1-0-1-0` or `1/2-0-1/2-1/2` for four; [`GameResult::Points`] as the
    /// points, `3-1-0`.
    pub fn score_text(self, seats: usize) -> String {
        if let GameResult::Points { points, .. } = self {
            return points.iter().take(seats).map(u8::to_string).collect::<Vec<_>>().join("-");
        }
        if seats == 2 {
            return self.two_seat_score().to_owned();
        }
        let score = |i: usize| match self.half_points(Seat(i as u8)) {
            2 => "1",
            1 => "1/2",
            _ => "0",
        };
        (0..seats).map(score).collect::<Vec<_>>().join("-")
    }

    /// The seats that won (empty for a draw); of [`GameResult::Points`], the
    /// seats with the most points, unless every seat has as many.
    pub fn winners(self) -> SeatSet {
        match self {
            GameResult::Win(s) => SeatSet::only(s),
            GameResult::Winners(set) => set,
            GameResult::Draw | GameResult::DrawAmong(_) => SeatSet::EMPTY,
            GameResult::Points { points, seats } => {
                let points = &points[..usize::from(seats)];
                let best = points.iter().copied().max().unwrap_or(0);
                let top: SeatSet = (0..seats).filter(|&i| points[usize::from(i)] == best).map(Seat).collect();
                if top.len() == points.len() { SeatSet::EMPTY } else { top }
            }
        }
    }

    /// The result as the store's `winner` column keeps it: the winning seat, `NULL`
    /// for a draw, `16 + seats` for seats that won together and `32 + seats` for a
    /// draw among some seats (`seats` as a bit set, bit `i` for seat `i`), and
    /// for [`GameResult::Points`] `0x100000` plus the number of seats in bits 16
    /// to 18 and four bits of points per seat (seat `i` in bits `4i` to `4i + 3`).
    pub fn to_winner_code(self) -> Option<i64> {
        match self {
            GameResult::Win(s) => Some(s.index() as i64),
            GameResult::Draw => None,
            GameResult::Winners(set) => Some(16 + i64::from(set.0)),
            GameResult::DrawAmong(set) => Some(32 + i64::from(set.0)),
            GameResult::Points { points, seats } => Some(
                POINTS_CODE
                    + (i64::from(seats) << 16)
                    + points.iter().enumerate().map(|(i, &p)| i64::from(p.min(15)) << (4 * i)).sum::<i64>(),
            ),
        }
    }

    /// Reads [`GameResult::to_winner_code`] back; `None` for a code it never writes.
    pub fn from_winner_code(code: Option<i64>) -> Option<GameResult> {
        let set = |c: i64| SeatSet((c & 0xf) as u8);
        match code {
            None => Some(GameResult::Draw),
            Some(c @ 0..=3) => Some(GameResult::Win(Seat(c as u8))),
            Some(c @ 17..=31) => Some(GameResult::Winners(set(c))),
            Some(c @ 33..=47) => Some(GameResult::DrawAmong(set(c))),
            Some(c) if (POINTS_CODE..POINTS_CODE + (5 << 16)).contains(&c) => {
                let seats = ((c >> 16) & 0x7) as usize;
                let points: Vec<u8> = (0..seats).map(|i| ((c >> (4 * i)) & 0xf) as u8).collect();
                Some(GameResult::points(&points)).filter(|r| r.to_winner_code() == Some(c))
            }
            Some(_) => None,
        }
    }
}

/// Where [`GameResult::to_winner_code`] puts [`GameResult::Points`].
const POINTS_CODE: i64 = 0x10_0000;

/// Why a game ended. The names are the rules files' reason strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// A side in check with no legal move.
    Checkmate,
    /// Both sides checkmated at once (Fairschach §6).
    BothCheckmated,
    /// A side not in check with no legal move.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// The same position for the third time.
    ThreefoldRepetition,
    /// The halfmove counter reached its limit.
    FiftyMoveRule,
    /// A seat resigned.
    Resignation,
    /// The seats agreed a draw.
    Agreement,
    /// A seat ran out of time.
    Time,
    /// A number of plies without progress (Vierschach's `no_progress`).
    NoProgress,
    /// One seat is left with stones (Trialectic Dame).
    LastSeat,
    /// No seat in the game can move (Trialectic Dame's base game).
    NoSeatCanMove,
}

impl EndReason {
    /// Every reason.
    pub const ALL: [EndReason; 12] = [
        EndReason::Checkmate,
        EndReason::BothCheckmated,
        EndReason::Stalemate,
        EndReason::InsufficientMaterial,
        EndReason::ThreefoldRepetition,
        EndReason::FiftyMoveRule,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Time,
        EndReason::NoProgress,
        EndReason::LastSeat,
        EndReason::NoSeatCanMove,
    ];

    /// The reason with this name (as [`EndReason::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<EndReason> {
        EndReason::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// The reason as the rules files and the conformance JSON write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::BothCheckmated => "both checkmated",
            EndReason::Stalemate => "stalemate",
            EndReason::InsufficientMaterial => "insufficient material",
            EndReason::ThreefoldRepetition => "threefold repetition",
            EndReason::FiftyMoveRule => "fifty-move rule",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Time => "time",
            EndReason::NoProgress => "no progress",
            EndReason::LastSeat => "last seat in the game",
            EndReason::NoSeatCanMove => "no seat can move",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The end of a game: who scored, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The score.
    pub result: GameResult,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// A decisive outcome.
    pub const fn win(seat: Seat, reason: EndReason) -> Outcome {
        Outcome { result: GameResult::Win(seat), reason }
    }

    /// A drawn outcome.
    pub const fn draw(reason: EndReason) -> Outcome {
        Outcome { result: GameResult::Draw, reason }
    }

    /// An outcome in the game's own points, per seat in seat order.
    pub fn points(points: &[u8], reason: EndReason) -> Outcome {
        Outcome { result: GameResult::points(points), reason }
    }

    /// The outcome in words for a game whose seats are called `names` (in seat
    /// order): `1-0 (checkmate)` with two seats, `north wins (resignation)` with
    /// more, `white 3, brown 1, black 0 (checkmate)` in points. Mails and the
    /// transcript use it, and `verify` recomputes it.
    pub fn text(&self, names: &[String]) -> String {
        let name = |s: Seat| s.name_in(names);
        let list = |set: SeatSet, sep: &str| set.iter().map(name).collect::<Vec<_>>().join(sep);
        let score = match (names.len(), self.result) {
            (_, GameResult::Points { points, seats }) => (0..usize::from(seats))
                .map(|i| format!("{} {}", name(Seat(i as u8)), points[i]))
                .collect::<Vec<_>>()
                .join(", "),
            (2, r) => r.two_seat_score().to_owned(),
            (_, GameResult::Win(s)) => format!("{} wins", name(s)),
            (_, GameResult::Winners(set)) => format!("{} win", list(set, " and ")),
            (_, GameResult::Draw) => "draw".to_owned(),
            (_, GameResult::DrawAmong(set)) => format!("draw, 1/2 each for {}", list(set, ", ")),
        };
        format!("{score} ({})", self.reason)
    }

    /// The `result` of the transcript's `ended` entry: the two-seat score
    /// (`1-0`) with two seats, [`Outcome::text`] with more.
    pub fn recorded_result(&self, names: &[String]) -> String {
        if names.len() == 2 { self.result.two_seat_score().to_owned() } else { self.text(names) }
    }
}

/// What happened to one seat's move when its turn was resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatResult {
    /// Played (together with the other moves of the turn, if any).
    Played,
    /// Played alone, before the others, by first-move right (Fairschach §3b).
    First,
    /// Not played; the reason says why, for the board mail.
    Struck(String),
}

impl SeatResult {
    /// The status word of the conformance JSON: `played`, `first` or `struck`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            SeatResult::Played => "played",
            SeatResult::First => "first",
            SeatResult::Struck(_) => "struck",
        }
    }
}

/// One seat's move in a resolved turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatMove<M> {
    /// Whose move.
    pub seat: Seat,
    /// The move as entered.
    pub mv: M,
    /// The move in SAN (or the variant's player notation), as played.
    pub notation: String,
    /// What became of it.
    pub result: SeatResult,
}

/// A resolved turn: the new state, each seat's move with its fate, and the outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution<S, M> {
    /// The state after the turn.
    pub state: S,
    /// The moves of the turn, in seat order.
    pub moves: Vec<SeatMove<M>>,
    /// Remarks for the players, e.g. Fairschach's `{d5: Nd5 takes d5 pawn}`.
    pub notes: Vec<String>,
    /// Set when the turn ended the game.
    pub outcome: Option<Outcome>,
}

/// A state string that cannot be read, with every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid {variant} state {text:?}: {}", problems.join("; "))]
pub struct StateError {
    /// The variant whose state string was expected.
    pub variant: VariantId,
    /// The text given.
    pub text: String,
    /// What is wrong, one entry per problem.
    pub problems: Vec<String>,
}

/// Move text that does not name exactly one legal move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// Not move notation at all.
    #[error("{text:?} is not a move: {why}")]
    NotAMove {
        /// The text given.
        text: String,
        /// What the reader expected.
        why: String,
    },
    /// Notation, but no legal move fits.
    #[error("{text:?} is not legal here: {reason}")]
    Illegal {
        /// The text given.
        text: String,
        /// Why, and what could be sent instead.
        reason: String,
    },
    /// More than one legal move fits.
    #[error("{text:?} is ambiguous: it could be {}", candidates.join(" or "))]
    Ambiguous {
        /// The text given.
        text: String,
        /// The legal moves it could mean, in SAN.
        candidates: Vec<String>,
    },
}

/// Why a turn could not be resolved. Nothing is changed when this is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// The state string is not valid.
    #[error(transparent)]
    State(#[from] StateError),
    /// A seat's move is not legal or not readable.
    #[error("{seat_name}: {error}")]
    Move {
        /// The seat that entered it.
        seat: Seat,
        /// The seat's name.
        seat_name: &'static str,
        /// What is wrong with the move.
        error: MoveError,
    },
    /// A move from a seat that owes none in this state.
    #[error("{seat_name} is not to move now{}", if *.is_game_over { " (the game is over)" } else { "" })]
    NotToMove {
        /// The seat.
        seat: Seat,
        /// The seat's name.
        seat_name: &'static str,
        /// Set when nobody is to move because the game has ended.
        is_game_over: bool,
    },
    /// A seat that owes a move has none in the turn.
    #[error("{seat_name} owes a move for this turn and none was given")]
    MissingMove {
        /// The seat.
        seat: Seat,
        /// The seat's name.
        seat_name: &'static str,
    },
    /// Two moves from one seat in one turn.
    #[error("{seat_name} gave more than one move for this turn")]
    DuplicateMove {
        /// The seat.
        seat: Seat,
        /// The seat's name.
        seat_name: &'static str,
    },
    /// No seat of that name or number.
    #[error("no seat {name:?} in this game; its seats are {seats}")]
    UnknownSeat {
        /// The name given.
        name: String,
        /// The seats of the variant, comma-separated.
        seats: String,
    },
    /// The game has already ended in the given state.
    #[error("the game is already over: {} by {}", .0.result.two_seat_score(), .0.reason)]
    GameOver(Outcome),
    /// A broken invariant in the rules engine: a bug, never the player's fault.
    #[error("internal rules error: {0}")]
    Internal(String),
}

/// A game's rulebook: one type per variant, its options applied at construction.
///
/// Required methods carry the variant's rules; provided ones (`check_move`,
/// `resolve`, `perft`) are the same for every variant and are not overridden.
pub trait Variant {
    /// A position, with everything the rules need to continue (not the history).
    type State: Clone + Eq + fmt::Debug + fmt::Display;
    /// A move as fixed at entry; `Display` is the canonical form (chess: UCI).
    type Move: Clone + Eq + Ord + fmt::Debug + fmt::Display;

    /// Which variant this is.
    fn id(&self) -> VariantId;

    /// The seat names, in seat order; their number is the number of seats.
    fn seat_names(&self) -> &'static [&'static str];

    /// The start state.
    fn start(&self) -> Self::State;

    /// Reads a state string as the rules file defines it, refusing inconsistent ones.
    ///
    /// # Errors
    /// A [`StateError`] listing every problem.
    fn parse_state(&self, text: &str) -> Result<Self::State, StateError>;

    /// The seats that owe a move in `state`, ignoring whether the game has ended.
    fn seats_to_move(&self, state: &Self::State) -> SeatSet;

    /// The legal moves of `seat` in `state`, sorted by canonical text (byte order);
    /// empty for a seat that is not to move.
    fn legal_moves(&self, state: &Self::State, seat: Seat) -> Vec<Self::Move>;

    /// How many legal moves `seat` has; override when cheaper than listing them.
    fn count_legal_moves(&self, state: &Self::State, seat: Seat) -> usize {
        self.legal_moves(state, seat).len()
    }

    /// Reads a move that `seat` enters in `state`, in any notation the rules file
    /// accepts, and checks that it names exactly one legal move.
    ///
    /// # Errors
    /// [`MoveError`]: not a move, illegal (with the reason), or ambiguous.
    fn parse_move(&self, state: &Self::State, seat: Seat, text: &str) -> Result<Self::Move, MoveError>;

    /// The move in the players' notation (SAN for chess games), in `state`.
    fn notation(&self, state: &Self::State, seat: Seat, mv: Self::Move) -> String;

    /// The legal move of `seat` in `state` whose canonical text is exactly
    /// `text`, if there is one. The steward stores moves as canonical text and
    /// reads them back through here first, then as any move text: a variant
    /// whose players' notation could read a canonical text as another move
    /// (Dreierschach with V2.3 cell names) overrides this. By default `None`.
    fn parse_canonical(&self, _state: &Self::State, _seat: Seat, _text: &str) -> Option<Self::Move> {
        None
    }

    /// Works one legal move per seat to move into the state, without judging
    /// whether the game has ended (`outcome` of the result is `None`).
    ///
    /// # Errors
    /// A missing, extra or illegal move; nothing is changed.
    fn advance(
        &self,
        state: &Self::State,
        moves: &[(Seat, Self::Move)],
    ) -> Result<Resolution<Self::State, Self::Move>, RulesError>;

    /// The state after a turn, without the notation and notes of a [`Resolution`];
    /// what `perft` walks. Override only to make it cheaper than `advance`.
    ///
    /// # Errors
    /// As [`Variant::advance`].
    fn next_state(&self, state: &Self::State, moves: &[(Seat, Self::Move)]) -> Result<Self::State, RulesError> {
        self.advance(state, moves).map(|r| r.state)
    }

    /// Whether the game has ended in `state`, given the earlier states of the game
    /// (start first, `state` itself not included) for repetition.
    fn outcome(&self, history: &[Self::State], state: &Self::State) -> Option<Outcome>;

    /// How much of the history the rules can still use from `state` on:
    /// `Some(n)` promises that [`Variant::outcome`] of `state` and
    /// [`Variant::resolve`] of a turn from `state` give the same result when
    /// `history` holds only its last `n` states (all of them when it has fewer)
    /// as with the whole of it. `None` (the default): every earlier state may
    /// count. The steward reads no more than this from the store on each turn.
    fn repetition_window(&self, _state: &Self::State) -> Option<usize> {
        None
    }

    /// The board as cells and pieces, for the renderers.
    fn board(&self, state: &Self::State) -> BoardView;

    /// The path of a canonical move, for marking the last moves on a board
    /// picture: from, every cell passed or jumped, to, and the cells it captures;
    /// `None` when the text names no such move. `before` is the state the move
    /// was played in, when the caller has it: with it the variant can tell
    /// captures (and, in chess, en passant and castling). The default reads
    /// square-grid coordinate moves (`e2e4`, `e7e8q`, `d2-d4`, `k10-k12`,
    /// `e13-e14=Q`, see [`board::coordinate_move_cells`]) as one step that
    /// captures what stood on its target; a variant whose canonical moves look
    /// different overrides it.
    fn move_path(&self, before: Option<&Self::State>, canonical: &str) -> Option<MovePath> {
        MovePath::of_coordinates(canonical, before.map(|s| self.board(s)).as_ref())
    }

    /// Where a player takes hold of the canonical move `canonical` on the board
    /// drawn for `before` when the move's path does not lie on that board (a
    /// board carried to a place drawn only once it stands there): the cells
    /// that offer the move on the web page. Empty, the default, for moves whose
    /// path is on the board.
    fn move_grip(&self, _before: &Self::State, _canonical: &str) -> Vec<Cell> {
        Vec::new()
    }

    /// The outcome when `seat` resigns in `state`: in two-seat games the other
    /// seat wins. Variants with more seats override it (`None`: play goes on).
    fn resignation(&self, _state: &Self::State, seat: Seat) -> Option<Outcome> {
        match self.seat_names().len() {
            2 => Some(Outcome::win(Seat::new(1 - seat.0), EndReason::Resignation)),
            _ => None,
        }
    }

    /// What `seat` resigning does to the game: the state after it (a variant
    /// where play goes on without the seat changes it), remarks, and the outcome
    /// if the game ends. By default the state stays and [`Variant::resignation`]
    /// decides.
    fn retire(&self, state: &Self::State, seat: Seat) -> (Self::State, Vec<String>, Option<Outcome>) {
        (state.clone(), Vec::new(), self.resignation(state, seat))
    }

    /// The outcome when the seats in `late` run out of time together in `state`
    /// (their deadlines fell at the same instant). In two-seat games the other
    /// seat wins on time, and both late at once is a draw. Variants with more
    /// seats follow their rules file; by default a timeout counts as the first
    /// late seat's resignation, with the reason `time` (`None`: play goes on
    /// without that seat). Chess overrides it for the lone king (rules/chess.md §5).
    fn timeout(&self, state: &Self::State, late: SeatSet) -> Option<Outcome> {
        let first = late.iter().next()?;
        match self.seat_names().len() {
            2 if late.len() >= 2 => Some(Outcome::draw(EndReason::Time)),
            2 => Some(Outcome::win(Seat::new(1 - first.0), EndReason::Time)),
            _ => self.resignation(state, first).map(|o| Outcome { reason: EndReason::Time, ..o }),
        }
    }

    /// The seats still in the game in `state`: those whose agreement a draw
    /// needs. By default every seat; a variant where seats drop out and play
    /// goes on (a seat with no stones left, say) leaves them out.
    fn seats_in_game(&self, _state: &Self::State) -> SeatSet {
        SeatSet::first(self.seat_names().len() as u8)
    }

    /// The outcome when every seat in the game agrees to a draw in `state`: by
    /// default a draw (reason `agreement`); a variant that scores a draw among
    /// the seats still playing, or in points of its own, overrides it.
    fn agreed_draw(&self, _state: &Self::State) -> Outcome {
        Outcome::draw(EndReason::Agreement)
    }

    /// `state` with the turns due in it played out: for a hand-made state whose
    /// seat to move cannot move, the passes or enclosures the rules file applies
    /// before play goes on (rules/trialectic-dame.md §8). By default the state
    /// itself: play never leaves such a state.
    fn settled(&self, state: &Self::State) -> Self::State {
        state.clone()
    }

    /// The name of `seat`.
    ///
    /// # Panics
    /// If `seat` is not a seat of this variant (an internal invariant).
    fn seat_name(&self, seat: Seat) -> &'static str /* FINAL */ {
        self.seat_names()[seat.index()]
    }

    /// Checks a move on receipt: the seat owes a move and the text names a legal one.
    ///
    /// # Errors
    /// [`RulesError::NotToMove`] or [`RulesError::Move`].
    fn check_move(&self, state: &Self::State, seat: Seat, text: &str) -> Result<Self::Move, RulesError> /* FINAL */ {
        if !self.seats_to_move(state).contains(seat) {
            return Err(RulesError::NotToMove { seat, seat_name: self.seat_name(seat), is_game_over: false });
        }
        self.parse_move(state, seat, text).map_err(|error| RulesError::Move {
            seat,
            seat_name: self.seat_name(seat),
            error,
        })
    }

    /// Resolves a complete turn: every seat to move gives exactly one legal move.
    /// `history` holds the game's earlier states (start first, `state` not included).
    ///
    /// # Errors
    /// The game is already over, a move is missing, extra or illegal; nothing changes.
    fn resolve(
        &self,
        history: &[Self::State],
        state: &Self::State,
        moves: &[(Seat, Self::Move)],
    ) -> Result<Resolution<Self::State, Self::Move>, RulesError> /* FINAL */ {
        if let Some(outcome) = self.outcome(history, state) {
            return Err(RulesError::GameOver(outcome));
        }
        let mut resolution = self.advance(state, moves)?;
        let mut seen: Vec<Self::State> = Vec::with_capacity(history.len() + 1);
        seen.extend_from_slice(history);
        seen.push(state.clone());
        resolution.outcome = self.outcome(&seen, &resolution.state);
        Ok(resolution)
    }

    /// Counts the move sequences of `depth` turns from `state` (simultaneous turns
    /// count every combination of the seats' moves); game ends are not judged.
    fn perft(&self, state: &Self::State, depth: u32) -> u64 /* FINAL */ {
        if depth == 0 {
            return 1;
        }
        if depth == 1 {
            // The leaves are counted, not played (and nothing is allocated for them).
            return self.seats_to_move(state).iter().map(|s| self.count_legal_moves(state, s) as u64).product();
        }
        let seats: Vec<Seat> = self.seats_to_move(state).iter().collect();
        let options: Vec<Vec<Self::Move>> = seats.iter().map(|&s| self.legal_moves(state, s)).collect();
        let mut total = 0;
        let mut choice = vec![0usize; seats.len()];
        if options.iter().any(Vec::is_empty) {
            return 0;
        }
        // One list for every combination, refilled in place: no allocation per move.
        let mut moves: Vec<(Seat, Self::Move)> = Vec::with_capacity(seats.len());
        loop {
            moves.clear();
            moves.extend(seats.iter().zip(&choice).zip(&options).map(|((&s, &i), m)| (s, m[i].clone())));
            if let Ok(next) = self.next_state(state, &moves) {
                total += self.perft(&next, depth - 1);
            }
            // Odometer over the seats' move lists.
            let mut k = 0;
            loop {
                if k == choice.len() {
                    return total;
                }
                choice[k] += 1;
                if choice[k] < options[k].len() {
                    break;
                }
                choice[k] = 0;
                k += 1;
            }
        }
    }

    /// Whether `text` is move text in this game's notation — a form its rules file
    /// reads, legal or not — judged without a position. The mail door asks it of
    /// the words of a mail, so that it keeps no grammar of its own.
    fn is_move_text(&self, text: &str) -> bool;

    /// Whether move text offers a draw together with its move, as the game's
    /// notation may write it (Dreierschach's trailing `=`). The steward records
    /// the offer once the move is played. By default no text does.
    fn move_offers_draw(&self, _text: &str) -> bool {
        false
    }

    /// The forms of move text this game reads, with examples made from the legal
    /// moves of `seat` in `state` (of the start position when it has none), e.g.
    /// `write moves like Nf3, Sf3, Ng1-f3, g1f3 or 7163`: for help texts.
    fn move_forms(&self, state: &Self::State, seat: Seat) -> String;

    /// The number the game's record gives a move by `seat` that follows the move
    /// numbered `previous.0` by `previous.1` (`None`: the game's first move). By
    /// default a number covers one round of the seat order and goes up when a seat
    /// moves that does not come after the previous mover: the first seat's move in
    /// a two-seat game (`12. e4 e5`), every turn in a simultaneous one, the first
    /// seat still playing in a four-seat round. A variant whose record counts
    /// otherwise overrides this.
    fn record_number(&self, previous: Option<(u32, Seat)>, seat: Seat) -> u32 {
        match previous {
            None => 1,
            Some((n, before)) if seat.index() <= before.index() => n + 1,
            Some((n, _)) => n,
        }
    }

    /// The game as a PGN file, for variants that have a PGN form (chess games);
    /// `None` (the default) for the others, whose record the doors export as
    /// JSON only. The states in `record` are this variant's state strings.
    fn pgn(&self, _record: &GameRecord) -> Option<String> {
        None
    }

    /// The rules as players need them, in the project's own words: a text in
    /// a small Markdown subset (`#` headings, paragraphs, `- ` lists, `` `code` ``
    /// and `**bold**`), shown on the game's rules page. `None` (the default):
    /// the page says that no guide is written yet.
    fn guide(&self) -> Option<&'static str> {
        None
    }
}

/// A resolved turn with states and moves as text, for callers that hold strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextResolution {
    /// The state string after the turn.
    pub state: String,
    /// The moves, canonical text, in seat order.
    pub moves: Vec<SeatMove<String>>,
    /// Remarks for the players.
    pub notes: Vec<String>,
    /// Set when the turn ended the game.
    pub outcome: Option<Outcome>,
}

/// A move checked on receipt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedMove {
    /// Canonical text (UCI for chess games): what the store keeps.
    pub canonical: String,
    /// The players' notation (SAN), for receipts.
    pub notation: String,
}

/// The object-safe face of a [`Variant`], over state and move strings.
///
/// The steward, the doors, the renderers and the CLI use only this, so a new variant
/// needs no change outside its module. Every variant gets it from the blanket impl.
pub trait DynVariant: Send + Sync {
    /// Which variant this is.
    fn id(&self) -> VariantId;
    /// The seat names, in seat order.
    fn seat_names(&self) -> &'static [&'static str];
    /// The start state string.
    fn start(&self) -> String;
    /// Reads a state string and prints it canonically.
    ///
    /// # Errors
    /// Every problem with it.
    fn canonical_state(&self, state: &str) -> Result<String, StateError>;
    /// The seats that owe a move.
    ///
    /// # Errors
    /// An invalid state string.
    fn seats_to_move(&self, state: &str) -> Result<SeatSet, RulesError>;
    /// The legal moves of `seat`, canonical text, sorted.
    ///
    /// # Errors
    /// An invalid state string.
    fn legal_moves(&self, state: &str, seat: Seat) -> Result<Vec<String>, RulesError>;
    /// Checks a move on receipt.
    ///
    /// # Errors
    /// The seat is not to move, or the text names no single legal move.
    fn check_move(&self, state: &str, seat: Seat, text: &str) -> Result<CheckedMove, RulesError>;
    /// Resolves a complete turn; `history` is the earlier states (start first).
    /// Each move is read as canonical text first (see
    /// [`Variant::parse_canonical`]), then as any move text the game reads.
    ///
    /// # Errors
    /// See [`Variant::resolve`].
    fn resolve(&self, history: &[String], state: &str, moves: &[(Seat, String)]) -> Result<TextResolution, RulesError>;
    /// Whether the game has ended in `state`.
    ///
    /// # Errors
    /// An invalid state string.
    fn outcome(&self, history: &[String], state: &str) -> Result<Option<Outcome>, RulesError>;
    /// How many of the latest earlier states [`DynVariant::resolve`] and
    /// [`DynVariant::outcome`] need from `state` on; `None`: all of them (see
    /// [`Variant::repetition_window`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn repetition_window(&self, state: &str) -> Result<Option<usize>, RulesError>;
    /// The board, for the renderers.
    ///
    /// # Errors
    /// An invalid state string.
    fn board(&self, state: &str) -> Result<BoardView, RulesError>;
    /// The path of a canonical move played in `before`, when given (see
    /// [`Variant::move_path`]); an unreadable `before` counts as not given.
    fn move_path(&self, before: Option<&str>, canonical: &str) -> Option<MovePath>;
    /// Where a player takes hold of a move whose path is not on the board
    /// drawn for `before` (see [`Variant::move_grip`]); none for an unreadable
    /// `before`.
    fn move_grip(&self, before: &str, canonical: &str) -> Vec<Cell>;
    /// Counts move sequences (see [`Variant::perft`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn perft(&self, state: &str, depth: u32) -> Result<u64, RulesError>;
    /// The outcome when `seat` resigns (see [`Variant::resignation`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn resignation(&self, state: &str, seat: Seat) -> Result<Option<Outcome>, RulesError>;
    /// What `seat` resigning does (see [`Variant::retire`]): the state after it,
    /// remarks, and the outcome if the game ends.
    ///
    /// # Errors
    /// An invalid state string.
    fn retire(&self, state: &str, seat: Seat) -> Result<(String, Vec<String>, Option<Outcome>), RulesError>;
    /// The players' notation of a canonical move of `seat` in `state`.
    ///
    /// # Errors
    /// An invalid state string or a move that is not legal there.
    fn notation(&self, state: &str, seat: Seat, canonical: &str) -> Result<String, RulesError>;
    /// The outcome when the seats in `late` run out of time (see [`Variant::timeout`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn timeout(&self, state: &str, late: SeatSet) -> Result<Option<Outcome>, RulesError>;

    /// The seats whose agreement a draw needs (see [`Variant::seats_in_game`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn seats_in_game(&self, state: &str) -> Result<SeatSet, RulesError>;

    /// The outcome of a draw all those seats agreed to (see [`Variant::agreed_draw`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn agreed_draw(&self, state: &str) -> Result<Outcome, RulesError>;

    /// The state with the turns due in it played out (see [`Variant::settled`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn settled(&self, state: &str) -> Result<String, RulesError>;

    /// The seat with this name (case-insensitive) or number (1-based).
    ///
    /// # Errors
    /// [`RulesError::UnknownSeat`].
    fn seat(&self, name: &str) -> Result<Seat, RulesError> {
        let wanted = name.trim().to_ascii_lowercase();
        let names = self.seat_names();
        names
            .iter()
            .position(|n| *n == wanted)
            .or_else(|| wanted.parse::<usize>().ok().filter(|&i| (1..=names.len()).contains(&i)).map(|i| i - 1))
            .map(|i| Seat(i as u8))
            .ok_or_else(|| RulesError::UnknownSeat { name: name.to_owned(), seats: names.join(", ") })
    }

    /// Whether `text` is move text in this game's notation (see [`Variant::is_move_text`]).
    fn is_move_text(&self, text: &str) -> bool;

    /// Whether move text offers a draw with its move (see [`Variant::move_offers_draw`]).
    fn move_offers_draw(&self, text: &str) -> bool;

    /// The forms of move text the game reads, with examples from `seat`'s legal
    /// moves in `state` (see [`Variant::move_forms`]).
    ///
    /// # Errors
    /// An invalid state string.
    fn move_forms(&self, state: &str, seat: Seat) -> Result<String, RulesError>;

    /// The number the game's record gives a move (see [`Variant::record_number`]).
    fn record_number(&self, previous: Option<(u32, Seat)>, seat: Seat) -> u32;

    /// The game as PGN, if the variant has a PGN form (see [`Variant::pgn`]).
    fn pgn(&self, record: &GameRecord) -> Option<String>;

    /// The rules for players (see [`Variant::guide`]).
    fn guide(&self) -> Option<&'static str>;
}

/// Reads a move as the steward stores it, canonical text (see
/// [`Variant::parse_canonical`]), or else as any move text the game reads.
fn read_move<V: Variant + ?Sized>(v: &V, state: &V::State, seat: Seat, text: &str) -> Result<V::Move, RulesError> {
    let canonical = if v.seats_to_move(state).contains(seat) { v.parse_canonical(state, seat, text) } else { None };
    match canonical {
        Some(mv) => Ok(mv),
        None => Variant::check_move(v, state, seat, text),
    }
}

fn parse_history<V: Variant + ?Sized>(v: &V, history: &[String]) -> Result<Vec<V::State>, RulesError> {
    history.iter().map(|s| v.parse_state(s).map_err(RulesError::from)).collect()
}

impl<V> DynVariant for V
where
    V: Variant + Send + Sync,
{
    fn id(&self) -> VariantId {
        Variant::id(self)
    }

    fn seat_names(&self) -> &'static [&'static str] {
        Variant::seat_names(self)
    }

    fn start(&self) -> String {
        Variant::start(self).to_string()
    }

    fn canonical_state(&self, state: &str) -> Result<String, StateError> {
        Ok(self.parse_state(state)?.to_string())
    }

    fn seats_to_move(&self, state: &str) -> Result<SeatSet, RulesError> {
        Ok(Variant::seats_to_move(self, &self.parse_state(state)?))
    }

    fn legal_moves(&self, state: &str, seat: Seat) -> Result<Vec<String>, RulesError> {
        let state = self.parse_state(state)?;
        Ok(Variant::legal_moves(self, &state, seat).iter().map(ToString::to_string).collect())
    }

    fn check_move(&self, state: &str, seat: Seat, text: &str) -> Result<CheckedMove, RulesError> {
        let state = self.parse_state(state)?;
        let mv = Variant::check_move(self, &state, seat, text)?;
        Ok(CheckedMove { canonical: mv.to_string(), notation: self.notation(&state, seat, mv) })
    }

    fn resolve(&self, history: &[String], state: &str, moves: &[(Seat, String)]) -> Result<TextResolution, RulesError> {
        let history = parse_history(self, history)?;
        let state = self.parse_state(state)?;
        let moves = moves
            .iter()
            .map(|(seat, text)| Ok((*seat, read_move(self, &state, *seat, text)?)))
            .collect::<Result<Vec<_>, RulesError>>()?;
        let r = Variant::resolve(self, &history, &state, &moves)?;
        Ok(TextResolution {
            state: r.state.to_string(),
            moves: r
                .moves
                .into_iter()
                .map(|m| SeatMove { seat: m.seat, mv: m.mv.to_string(), notation: m.notation, result: m.result })
                .collect(),
            notes: r.notes,
            outcome: r.outcome,
        })
    }

    fn outcome(&self, history: &[String], state: &str) -> Result<Option<Outcome>, RulesError> {
        let history = parse_history(self, history)?;
        Ok(Variant::outcome(self, &history, &self.parse_state(state)?))
    }

    fn repetition_window(&self, state: &str) -> Result<Option<usize>, RulesError> {
        Ok(Variant::repetition_window(self, &self.parse_state(state)?))
    }

    fn board(&self, state: &str) -> Result<BoardView, RulesError> {
        Ok(Variant::board(self, &self.parse_state(state)?))
    }

    fn move_path(&self, before: Option<&str>, canonical: &str) -> Option<MovePath> {
        let before = before.and_then(|s| self.parse_state(s).ok());
        Variant::move_path(self, before.as_ref(), canonical)
    }

    fn move_grip(&self, before: &str, canonical: &str) -> Vec<Cell> {
        self.parse_state(before).map(|s| Variant::move_grip(self, &s, canonical)).unwrap_or_default()
    }

    fn perft(&self, state: &str, depth: u32) -> Result<u64, RulesError> {
        Ok(Variant::perft(self, &self.parse_state(state)?, depth))
    }

    fn resignation(&self, state: &str, seat: Seat) -> Result<Option<Outcome>, RulesError> {
        Ok(Variant::resignation(self, &self.parse_state(state)?, seat))
    }

    fn retire(&self, state: &str, seat: Seat) -> Result<(String, Vec<String>, Option<Outcome>), RulesError> {
        let (after, notes, outcome) = Variant::retire(self, &self.parse_state(state)?, seat);
        Ok((after.to_string(), notes, outcome))
    }

    fn timeout(&self, state: &str, late: SeatSet) -> Result<Option<Outcome>, RulesError> {
        Ok(Variant::timeout(self, &self.parse_state(state)?, late))
    }

    fn notation(&self, state: &str, seat: Seat, canonical: &str) -> Result<String, RulesError> {
        let state = self.parse_state(state)?;
        let read =
            self.parse_canonical(&state, seat, canonical).map_or_else(|| self.parse_move(&state, seat, canonical), Ok);
        let mv = read.map_err(|error| RulesError::Move { seat, seat_name: Variant::seat_name(self, seat), error })?;
        Ok(Variant::notation(self, &state, seat, mv))
    }

    fn seats_in_game(&self, state: &str) -> Result<SeatSet, RulesError> {
        Ok(Variant::seats_in_game(self, &self.parse_state(state)?))
    }

    fn agreed_draw(&self, state: &str) -> Result<Outcome, RulesError> {
        Ok(Variant::agreed_draw(self, &self.parse_state(state)?))
    }

    fn settled(&self, state: &str) -> Result<String, RulesError> {
        Ok(Variant::settled(self, &self.parse_state(state)?).to_string())
    }

    fn is_move_text(&self, text: &str) -> bool {
        Variant::is_move_text(self, text)
    }

    fn move_offers_draw(&self, text: &str) -> bool {
        Variant::move_offers_draw(self, text)
    }

    fn move_forms(&self, state: &str, seat: Seat) -> Result<String, RulesError> {
        Ok(Variant::move_forms(self, &self.parse_state(state)?, seat))
    }

    fn record_number(&self, previous: Option<(u32, Seat)>, seat: Seat) -> u32 {
        Variant::record_number(self, previous, seat)
    }

    fn pgn(&self, record: &GameRecord) -> Option<String> {
        Variant::pgn(self, record)
    }

    fn guide(&self) -> Option<&'static str> {
        Variant::guide(self)
    }
}

/// Checks that `moves` holds exactly one move for each seat in `to_move` and none
/// other, and returns them in seat order. Shared by the variants' `advance`.
pub(crate) fn moves_by_seat<V: Variant + ?Sized>(
    variant: &V,
    to_move: SeatSet,
    moves: &[(Seat, V::Move)],
) -> Result<Vec<(Seat, V::Move)>, RulesError> {
    let mut given = SeatSet::EMPTY;
    for &(seat, _) in moves {
        if seat.index() >= variant.seat_names().len() {
            return Err(RulesError::UnknownSeat {
                name: format!("{}", seat.index() + 1),
                seats: variant.seat_names().join(", "),
            });
        }
        if !to_move.contains(seat) {
            return Err(RulesError::NotToMove { seat, seat_name: variant.seat_name(seat), is_game_over: false });
        }
        if given.contains(seat) {
            return Err(RulesError::DuplicateMove { seat, seat_name: variant.seat_name(seat) });
        }
        given = given.with(seat);
    }
    if let Some(seat) = to_move.iter().find(|&s| !given.contains(s)) {
        return Err(RulesError::MissingMove { seat, seat_name: variant.seat_name(seat) });
    }
    let mut sorted = moves.to_vec();
    sorted.sort_by_key(|(s, _)| *s);
    Ok(sorted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_sets_iterate_in_seat_order() {
        let set = SeatSet::EMPTY.with(Seat::new(2)).with(Seat::new(0));
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![Seat::new(0), Seat::new(2)]);
        assert_eq!(set.len(), 2);
        assert!(!set.contains(Seat::new(1)));
        assert_eq!(SeatSet::first(4).len(), 4);
    }

    #[test]
    fn variant_names_round_trip() {
        for v in VariantId::ALL {
            assert_eq!(v.name().parse::<VariantId>(), Ok(v));
        }
        assert_eq!(" Fairschach ".parse::<VariantId>(), Ok(VariantId::Fairschach));
        assert!("checkers".parse::<VariantId>().is_err());
    }

    /// Points in a game's own scale (Dreierschach's 3/1/0): text, scores,
    /// winners and the store's code, which reads back.
    #[test]
    fn points_read_and_write() {
        let names: Vec<String> = ["white", "brown", "black"].map(String::from).to_vec();
        let mate = Outcome::points(&[3, 1, 0], EndReason::Checkmate);
        assert_eq!(mate.text(&names), "white 3, brown 1, black 0 (checkmate)");
        assert_eq!(mate.recorded_result(&names), mate.text(&names));
        assert_eq!(mate.result.score_text(3), "3-1-0");
        assert_eq!(mate.result.winners(), SeatSet::only(Seat(0)));
        let resigned = GameResult::points(&[0, 2, 2]);
        assert_eq!(resigned.winners(), SeatSet::only(Seat(1)).with(Seat(2)));
        assert_eq!(resigned.half_points(Seat(0)), 0);
        let draw = GameResult::points(&[1, 1, 1]);
        assert_eq!(draw.winners(), SeatSet::EMPTY);
        assert_eq!(draw.half_points(Seat(2)), 1);
        for r in [mate.result, resigned, draw, GameResult::points(&[15, 0]), GameResult::points(&[0, 0, 0, 1])] {
            let code = r.to_winner_code();
            assert!(code.is_some_and(|c| c >= POINTS_CODE), "{r:?}: {code:?}");
            assert_eq!(GameResult::from_winner_code(code), Some(r));
        }
        assert_eq!(GameResult::from_winner_code(Some(POINTS_CODE + (5 << 16))), None);
        assert_eq!(GameResult::from_winner_code(Some(POINTS_CODE + (2 << 16) + 0x100)), None, "points of a third seat");
    }

    #[test]
    fn unknown_options_are_refused_by_name() {
        let err = VariantId::Chess.rulebook(&Options::new().set("pause", "off")).err().expect("refused");
        assert!(err.to_string().contains("\"pause\""), "{err}");
    }
}
