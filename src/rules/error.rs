//! Why the rules refuse: an unreadable state, a move that names no single legal
//! move, or a turn that cannot be resolved.

use super::{Outcome, Seat, VariantId};

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
