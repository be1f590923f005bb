//! A turn's moves: move text as the doors take it in, a move checked on
//! receipt, and a resolved turn, typed and as text.

use super::{Outcome, Seat};

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

/// What a game's notation makes of a piece of text that reads as a move (see
/// [`crate::rules::Variant::move_text`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveText {
    /// A move.
    Move,
    /// A move with a draw offer written into it, offered once the move is played.
    OffersDraw,
}
