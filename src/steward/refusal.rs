//! Why the steward did not accept something: the sender's mistake ([`Refusal`], with
//! what to send instead) or ours ([`StewardError::Internal`], logged).

use crate::store::StoreError;

/// Input the steward refuses. Nothing already accepted is changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No game with this id.
    #[error("there is no game {0}")]
    UnknownGame(String),
    /// No token, or not the token of a seat of this game.
    #[error("the seat token is missing or is not one of this game's")]
    BadToken,
    /// A move for a turn other than the one now owed.
    #[error("this move is for turn {got}, but the game is at turn {expected}")]
    WrongTurn {
        /// The turn now owed.
        expected: u32,
        /// The turn given.
        got: u32,
    },
    /// The seat owes no move in this turn.
    #[error("{seat} is not to move in turn {turn}; {to_move} to move")]
    NotYourTurn {
        /// The seat's name.
        seat: String,
        /// The turn.
        turn: u32,
        /// Who is to move.
        to_move: String,
    },
    /// The move is not legal or not readable.
    #[error("{0}")]
    IllegalMove(String),
    /// The seat already gave a different move for this turn.
    #[error("{seat} already gave a move for turn {turn} ({when}); a move is final once accepted")]
    AlreadyMoved {
        /// The seat's name.
        seat: String,
        /// The turn.
        turn: u32,
        /// When the first move was accepted.
        when: String,
    },
    /// The game has ended.
    #[error("the game is over: {0}")]
    GameOver(String),
    /// A malformed request.
    #[error("{0}")]
    BadRequest(String),
}

impl Refusal {
    /// A short stable code for APIs and logs.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::UnknownGame(_) => "unknown_game",
            Refusal::BadToken => "bad_token",
            Refusal::WrongTurn { .. } => "wrong_turn",
            Refusal::NotYourTurn { .. } => "not_your_turn",
            Refusal::IllegalMove(_) => "illegal_move",
            Refusal::AlreadyMoved { .. } => "already_moved",
            Refusal::GameOver(_) => "game_over",
            Refusal::BadRequest(_) => "bad_request",
        }
    }

    /// What to send instead.
    pub fn hint(&self) -> String {
        match self {
            Refusal::UnknownGame(_) => "check the game id in your board mail (six letters and digits)".into(),
            Refusal::BadToken => {
                "send the seat token you were given at game creation as `Authorization: Bearer <token>`".into()
            }
            Refusal::WrongTurn { expected, .. } => format!("send your move with \"turn\": {expected}"),
            Refusal::NotYourTurn { .. } => "wait for the board mail that asks for your move".into(),
            Refusal::IllegalMove(_) => "send a legal move in SAN (Nf3), UCI (g1f3) or ICCF (7163)".into(),
            Refusal::AlreadyMoved { .. } => "wait for the turn to be resolved, then send your next move".into(),
            Refusal::GameOver(_) => "the game takes no more moves".into(),
            Refusal::BadRequest(_) => "see the API description in the README".into(),
        }
    }

    /// The full message for a reply: what was wrong and what to send instead.
    pub fn message(&self) -> String {
        format!("{self}; {}", self.hint())
    }
}

/// Either a refusal or an internal failure.
#[derive(Debug, thiserror::Error)]
pub enum StewardError {
    /// The sender's mistake.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// Ours: the store or a broken invariant. Nothing was accepted.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<StoreError> for StewardError {
    fn from(e: StoreError) -> StewardError {
        StewardError::Internal(e.to_string())
    }
}

impl From<crate::mail::compose::ComposeError> for StewardError {
    fn from(e: crate::mail::compose::ComposeError) -> StewardError {
        StewardError::Internal(format!("composing a mail: {e}"))
    }
}
