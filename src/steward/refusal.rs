//! Why the steward did not accept something: the sender's mistake ([`Refusal`], with
//! what to send instead) or ours ([`StewardError::Internal`], logged).
//!
//! What the rules refuse stays the rules' own type up to the door
//! ([`Refusal::IllegalMove`] holds a [`MoveError`], [`Refusal::BadGame`] a
//! [`GameRefusal`]): a door can tell an ambiguous move from an illegal one, and
//! the words are the rules' words.

use std::fmt;

use crate::rules::{MoveError, OptionsError, RulesError, UnknownVariant};
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
    /// A submission for a turn resolved already (issue 32): an old board
    /// mail answered, or `{"turn": 1}` sent at turn 2. Says so, and where the
    /// game is now.
    #[error("turn {turn} was resolved already, so nothing was changed; {now}")]
    TurnResolved {
        /// The turn given.
        turn: u32,
        /// Where the game is now: its turn and move number, the latest board
        /// mail and the game's URL, in words.
        now: String,
        /// The turn now owed.
        current: u32,
        /// Its move number (`12...`).
        move_number: String,
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
    /// The move is not legal or not readable: the rules' reason, with the
    /// forms the game reads.
    #[error("{0}")]
    IllegalMove(MoveError),
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
    /// A request naming what the rules do not have: a variant, an option or
    /// value, a seat.
    #[error("{0}")]
    BadGame(GameRefusal),
    /// An envelope that cannot be read or opened (garbled, truncated, sealed to
    /// another key, unknown fields, too large).
    #[error("{0}")]
    BadEnvelope(String),
    /// A reply encrypted to the steward that does not open (issue 33): to
    /// another key, garbled, tampered with, too large.
    #[error("your encrypted reply cannot be opened: {0}")]
    Undecryptable(String),
    /// An envelope for another game or seat than it claims or was sent to.
    #[error("{0}")]
    EnvelopeMismatch(String),
    /// A signature that does not verify with the seat's registered key.
    #[error("{0}")]
    BadSignature(String),
    /// The game needs signed moves (auth = signature).
    #[error("this game requires every move to be signed by the seat's registered key")]
    SignatureRequired,
    /// A signed envelope sent again after its turn was resolved.
    #[error("{0}")]
    Replayed(String),
    /// A commitment or reveal in a game that holds moves.
    #[error("this game does not use commit-reveal (its secrecy is hold)")]
    NotCommitReveal,
    /// A plain move in a commit-reveal game.
    #[error("this game uses commit-reveal: a move is first committed, then revealed")]
    CommitFirst,
    /// A reveal without a commitment.
    #[error("there is no commitment of yours for turn {turn} to reveal")]
    NoCommitment {
        /// The turn.
        turn: u32,
    },
    /// A reveal before every seat has committed.
    #[error("not every seat has committed yet ({waiting} to commit)")]
    RevealTooEarly {
        /// Who has still to commit.
        waiting: String,
    },
    /// A leave that cannot be granted (clocks): the text names the balance.
    #[error("{0}")]
    LeaveRefused(String),
    /// Too many requests of a kind that mails someone or writes the transcript
    /// (leave, draw offers, address confirmations, answers).
    #[error("{what}")]
    TooMany {
        /// What was asked too often, with the limit.
        what: String,
        /// When or how to ask again.
        wait: String,
    },
    /// An organiser acting where it may not: a director's token acts on its
    /// own tournament's games only (the organiser's desk, issue 31).
    #[error("{0}")]
    Forbidden(String),
    /// A draw declined where none is offered.
    #[error("no draw is offered in game {0}, so there is none to decline")]
    NoDrawOffered(String),
    /// No tournament with this id (issue 31).
    #[error("there is no tournament {0}")]
    UnknownTournament(String),
    /// A reveal that does not match its commitment.
    #[error("the move and salt do not match your commitment {commitment}")]
    RevealMismatch {
        /// The commitment on record.
        commitment: String,
    },
    /// A resignation, draw offer or leave with only a token or a reply, where a
    /// game requires signatures (auth = signature).
    #[error("{why}; the seat token or a reply to the board mail alone is not enough")]
    SignedActionRequired {
        /// Which game requires it and for what.
        why: String,
        /// The exact `fairsteward player sign` command that makes the envelope.
        command: String,
        /// Where to send it by HTTP.
        path: String,
    },
    // --- issue 31 ---
    /// No such invitation (or invited game, or tournament that invites): what was looked for (slice D).
    #[error("{0}")]
    UnknownInvitation(String),
    /// An invitation that takes no (other) answer: answered otherwise before,
    /// replaced, or play started without it (slice D).
    #[error("{0}")]
    InvitationClosed(String),
    // --- issue 32, slice C ---
    /// Conditional lines that cannot be read or played (the line and step named).
    #[error("{0}")]
    BadConditional(String),
    /// A game that offers no conditional lines (commit-reveal, signatures): why.
    #[error("conditional moves are not offered in this game: {0}")]
    ConditionalNotOffered(String),
}

impl Refusal {
    /// A short stable code for APIs and logs.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::UnknownGame(_) => "unknown_game",
            Refusal::BadToken => "bad_token",
            Refusal::WrongTurn { .. } => "wrong_turn",
            Refusal::TurnResolved { .. } => "turn_resolved",
            Refusal::NotYourTurn { .. } => "not_your_turn",
            Refusal::IllegalMove(_) => "illegal_move",
            Refusal::AlreadyMoved { .. } => "already_moved",
            Refusal::GameOver(_) => "game_over",
            Refusal::BadRequest(_) | Refusal::BadGame(_) => "bad_request",
            Refusal::BadEnvelope(_) => "bad_envelope",
            Refusal::Undecryptable(_) => "undecryptable",
            Refusal::EnvelopeMismatch(_) => "envelope_mismatch",
            Refusal::BadSignature(_) => "bad_signature",
            Refusal::SignatureRequired | Refusal::SignedActionRequired { .. } => "signature_required",
            Refusal::Replayed(_) => "replayed",
            Refusal::NotCommitReveal => "not_commit_reveal",
            Refusal::CommitFirst => "commit_first",
            Refusal::NoCommitment { .. } => "no_commitment",
            Refusal::RevealTooEarly { .. } => "reveal_too_early",
            Refusal::RevealMismatch { .. } => "reveal_mismatch",
            Refusal::LeaveRefused(_) => "leave_refused",
            Refusal::TooMany { .. } => "too_many",
            Refusal::NoDrawOffered(_) => "no_draw_offered",
            Refusal::Forbidden(_) => "forbidden",
            Refusal::UnknownTournament(_) => "unknown_tournament",
            Refusal::UnknownInvitation(_) => "unknown_invitation",
            Refusal::InvitationClosed(_) => "invitation_closed",
            Refusal::BadConditional(_) => "bad_conditional",
            Refusal::ConditionalNotOffered(_) => "conditional_not_offered",
        }
    }

    /// What to send instead, worded for the door the refusal goes out through:
    /// HTTP clients hear of headers, paths and JSON fields, mail players of
    /// replies, first lines and pasted envelopes. The one place that words each
    /// refusal for each door.
    pub fn hint(&self, door: Door) -> String {
        use Door::{Http, Mail, Web};
        match (self, door) {
            (Refusal::UnknownGame(_), Http | Web) => {
                "check the game id in the path (six letters and digits, as in your board mail)".into()
            }
            (Refusal::UnknownGame(_), Mail) => "reply to the latest board mail of your game".into(),
            (Refusal::Forbidden(_), _) => "use the operator token, or the director token of the tournament the game belongs to".into(),
            (Refusal::UnknownTournament(_), _) => {
                "check the tournament id in the path (T and six letters and digits, as the tournament's mails give it)".into()
            }
            (Refusal::BadToken, Http | Web) => {
                "send the seat token you were given at game creation as `Authorization: Bearer <token>`".into()
            }
            (Refusal::BadToken, Mail) => {
                "reply from your registered address to the latest board mail, or paste an envelope signed with your registered key".into()
            }
            (Refusal::WrongTurn { expected, .. }, Http | Web) => format!("send your move with \"turn\": {expected}"),
            (Refusal::WrongTurn { expected, .. }, Mail) => {
                format!("reply to the latest board mail, the one that asks for your move for turn {expected}")
            }
            (Refusal::TurnResolved { current, move_number, .. }, Http | Web) => {
                format!("send your move {move_number} with \"turn\": {current} (GET the game for the position now)")
            }
            (Refusal::TurnResolved { move_number, .. }, Mail) => {
                format!("reply to the latest board mail, the one for move {move_number}, with your move as its first line")
            }
            (Refusal::NotYourTurn { .. }, Http | Web) => {
                "wait until the game lists your seat under \"to_move\", or for the board mail that asks for your move".into()
            }
            (Refusal::NotYourTurn { .. }, Mail) => "wait for the board mail that asks for your move, and reply to it".into(),
            (Refusal::IllegalMove(_), Http | Web) => "send a legal move: {\"turn\": N, \"move\": \"<your move>\"}".into(),
            (Refusal::IllegalMove(_), Mail) => {
                "reply to the latest board mail with a legal move as the first line".into()
            }
            (Refusal::AlreadyMoved { .. }, _) => "wait for the turn to be resolved, then send your next move".into(),
            (Refusal::GameOver(_), _) => "the game takes no more moves".into(),
            (Refusal::BadRequest(_) | Refusal::BadGame(_), Http | Web) => "see the API description in docs/http-api.md".into(),
            (Refusal::BadRequest(_) | Refusal::BadGame(_), Mail) => {
                "reply to the board mail with `help` for what a mail may hold".into()
            }
            (Refusal::BadEnvelope(_), Http | Web) => {
                "send the whole envelope block as `fairsteward player` prints it, from BEGIN to END line, as the request body".into()
            }
            (Refusal::BadEnvelope(_), Mail) => {
                "paste the whole envelope block as `fairsteward player` prints it, from BEGIN to END line, unchanged into your reply".into()
            }
            (Refusal::Undecryptable(_), _) => {
                "encrypt your reply to the steward's current OpenPGP key (in the Autocrypt header of its mails, at GET /api/steward, or /steward.asc), or send it unencrypted".into()
            }
            (Refusal::EnvelopeMismatch(_), _) => {
                "make the envelope again for this game, your seat and the turn now owed".into()
            }
            (Refusal::BadSignature(_), _) => {
                "sign the envelope with your own key: `fairsteward player sign --key YOUR-KEY …`".into()
            }
            (Refusal::SignatureRequired, Http | Web) => {
                "send an envelope signed with your registered key: `fairsteward player sign --key YOUR-KEY …`".into()
            }
            (Refusal::SignatureRequired, Mail) => {
                "make an envelope signed with your registered key (`fairsteward player sign --key YOUR-KEY …`) and paste it into your reply, or sign your reply with your registered OpenPGP key, with the lines game:, seat:, turn: and move: in the signed text (docs/openpgp.md)".into()
            }
            (Refusal::Replayed(_), _) => "send a new envelope for the turn now owed".into(),
            (Refusal::NotCommitReveal, Http | Web) => {
                "send your move itself: {\"turn\": N, \"move\": \"<your move>\"} or a move envelope".into()
            }
            (Refusal::NotCommitReveal, Mail) => {
                "reply to the board mail with your move itself as the first line, or paste a move envelope".into()
            }
            (Refusal::CommitFirst, Http | Web) => {
                "send a commitment first (`fairsteward player commit`), and reveal when every seat has committed".into()
            }
            (Refusal::CommitFirst, Mail) => {
                "paste a commitment first (the envelope `fairsteward player commit` prints), and reveal when every seat has committed".into()
            }
            (Refusal::NoCommitment { .. }, Http | Web) => {
                "send your commitment for this turn first (`fairsteward player commit`)".into()
            }
            (Refusal::NoCommitment { .. }, Mail) => {
                "paste your commitment for this turn first (the envelope `fairsteward player commit` prints)".into()
            }
            (Refusal::RevealTooEarly { .. }, _) => "wait for the mail that asks for reveals, then send yours".into(),
            (Refusal::LeaveRefused(_), Http | Web) => {
                "send {\"from\": \"YYYY-MM-DD\", \"to\": \"YYYY-MM-DD\"}, both days included, from today on and within the yearly allowance".into()
            }
            (Refusal::LeaveRefused(_), Mail) => {
                "reply with `leave YYYY-MM-DD to YYYY-MM-DD` as the first line, both days included, from today on and within the yearly allowance".into()
            }
            (Refusal::TooMany { wait, .. }, _) => wait.clone(),
            (Refusal::NoDrawOffered(_), Http | Web) => "play on, or offer a draw yourself with {\"action\": \"offer\"}".into(),
            (Refusal::NoDrawOffered(_), Mail) => "play on, or reply `draw` to offer one yourself".into(),
            (Refusal::RevealMismatch { .. }, _) => {
                "reveal exactly the move and salt you committed to (`fairsteward player reveal --from` the file `commit` saved)".into()
            }
            (Refusal::SignedActionRequired { command, path, .. }, Http | Web) => {
                format!("make a signed envelope with `{command}` and POST it as the body to {path}")
            }
            (Refusal::SignedActionRequired { command, .. }, Mail) => {
                format!("make a signed envelope with `{command}` and paste it into a reply to the board mail")
            }
            (Refusal::UnknownInvitation(_), Http | Web) => {
                "check the link in your invitation mail, or the id in the path, and that it is whole".into()
            }
            (Refusal::UnknownInvitation(_), Mail) => "reply to the invitation mail itself".into(),
            (Refusal::BadConditional(_), Http | Web) => {
                "send the lines as {\"lines\": [[\"THEIR-MOVE\", \"YOUR-MOVE\", ...], ...]}, each step legal where it would be played (docs/http-api.md, Conditional moves)".into()
            }
            (Refusal::BadConditional(_), Mail) => {
                "write the lines as `if THEIR-MOVE then YOUR-MOVE`, lines separated by commas, each step legal where it would be played".into()
            }
            (Refusal::ConditionalNotOffered(_), _) => "send each move yourself when it is your turn".into(),
            (Refusal::InvitationClosed(_), _) => {
                "an invitation is answered once; write to the organiser if you changed your mind".into()
            }
        }
    }

    /// The full message for a reply through `door`: what was wrong and what to
    /// send instead.
    pub fn message(&self, door: Door) -> String {
        format!("{self}; {}", self.hint(door))
    }
}

/// What the rules refuse in a request other than a move, as they said it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameRefusal {
    /// No variant of that name.
    #[error(transparent)]
    Variant(#[from] UnknownVariant),
    /// An option the variant does not take, or a value it does not accept.
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// No seat of that name or number ([`RulesError::UnknownSeat`]; no `From`,
    /// so that no other rules error becomes a refusal by a `?`).
    #[error(transparent)]
    Seat(RulesError),
}

impl From<UnknownVariant> for Refusal {
    fn from(e: UnknownVariant) -> Refusal {
        Refusal::BadGame(e.into())
    }
}

impl From<OptionsError> for Refusal {
    fn from(e: OptionsError) -> Refusal {
        Refusal::BadGame(e.into())
    }
}

/// The door a request came in through, and a refusal or notice goes out
/// through, which decides its wording.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Door {
    /// The HTTP API: answers are JSON bodies to a client holding a seat token.
    Http,
    /// The game pages: forms a player sends from the browser. The pages word
    /// their own refusals; [`Refusal::hint`] words this door as the API.
    Web,
    /// Mail: answers go to the seat's registered address.
    Mail,
}

impl Door {
    /// The name kept with each inbound message (`http`, `web` or `mail`).
    pub fn name(self) -> &'static str {
        match self {
            Door::Http => "http",
            Door::Web => "web",
            Door::Mail => "mail",
        }
    }
}

impl std::fmt::Display for Door {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Ours: what was being done, and the error that stopped it, kept as its own
/// type (a door logs it; the player hears only that nothing was accepted).
///
/// Its text holds the error's own, as `doing: error`; so the error is not also
/// offered as [`std::error::Error::source`], where a printed chain would repeat
/// it: ask [`InternalError::cause`] for it.
#[derive(Debug)]
pub struct InternalError {
    /// What was being done, when the error alone does not say.
    doing: Option<String>,
    /// What stopped it (a plain message for a broken invariant).
    cause: Box<dyn std::error::Error + Send + Sync>,
}

impl InternalError {
    /// `cause` stopped the steward while `doing` it.
    pub fn new(doing: impl Into<String>, cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> InternalError {
        InternalError { doing: Some(doing.into()), cause: cause.into() }
    }

    /// `cause` alone: an error that says enough, or a message for a broken invariant.
    pub fn of(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> InternalError {
        InternalError { doing: None, cause: cause.into() }
    }

    /// The error that stopped the steward, as its own type (for
    /// `downcast_ref`).
    pub fn cause(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self.cause.as_ref()
    }
}

impl fmt::Display for InternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.doing {
            Some(doing) => write!(f, "{doing}: {}", self.cause),
            None => write!(f, "{}", self.cause),
        }
    }
}

impl std::error::Error for InternalError {}

/// Either a refusal or an internal failure.
#[derive(Debug, thiserror::Error)]
pub enum StewardError {
    /// The sender's mistake.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// Ours: a broken invariant or stored data that does not read. Nothing was
    /// accepted, and the same request would fail the same way.
    #[error("internal error: {0}")]
    Internal(InternalError),
    /// The store could not be reached or could not commit (stopped, busy, disk
    /// full, an I/O error). Nothing was accepted; the same request may well
    /// succeed later, so a door offers it again (an MTA pipe exits 75).
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
}

impl StewardError {
    /// Whether trying again later may succeed (the store was unavailable),
    /// rather than failing the same way (a refusal, or an internal error).
    pub fn is_transient(&self) -> bool {
        matches!(self, StewardError::Unavailable(_))
    }
}

impl From<StoreError> for StewardError {
    fn from(e: StoreError) -> StewardError {
        use rusqlite::ErrorCode::{
            CannotOpen, DatabaseBusy, DatabaseLocked, DiskFull, OutOfMemory, ReadOnly, SystemIoFailure,
        };
        let transient = match &e {
            StoreError::Closed | StoreError::Commit(_) | StoreError::Io(..) | StoreError::ReadOnly { .. } => true,
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => {
                matches!(
                    f.code,
                    DatabaseBusy | DatabaseLocked | SystemIoFailure | DiskFull | CannotOpen | ReadOnly | OutOfMemory
                )
            }
            StoreError::Postgres(p) => crate::store::postgres::is_transient(p),
            _ => false,
        };
        if transient { StewardError::Unavailable(e.to_string()) } else { StewardError::Internal(InternalError::of(e)) }
    }
}

impl From<crate::letters::compose::ComposeError> for StewardError {
    fn from(e: crate::letters::compose::ComposeError) -> StewardError {
        StewardError::Internal(InternalError::new("composing a mail", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Options, VariantId};

    /// The rules' refusals keep their type up to the door, and the door's words
    /// are the rules' words with the hint of their kind.
    #[test]
    fn the_rules_words_reach_the_door_unchanged() {
        let error = MoveError::Ambiguous { text: "d9".into(), candidates: vec!["b7-d9".into(), "b9-d9".into()] };
        let r = Refusal::IllegalMove(error.clone());
        assert_eq!((r.code(), r.to_string()), ("illegal_move", error.to_string()));
        assert_eq!(r.message(Door::Mail), format!("{error}; {}", r.hint(Door::Mail)));
        let options = VariantId::ALL[0].rulebook(&Options::new().set("pause", "off")).err().expect("refused");
        let r = Refusal::from(options.clone());
        assert_eq!(r, Refusal::BadGame(GameRefusal::Options(options.clone())));
        assert_eq!((r.code(), r.to_string()), ("bad_request", options.to_string()));
        assert_eq!(r.hint(Door::Http), Refusal::BadRequest(String::new()).hint(Door::Http));
        let unknown = "checkers".parse::<VariantId>().expect_err("no such game");
        assert_eq!(Refusal::from(unknown.clone()).to_string(), unknown.to_string());
    }
}
