//! The referee: takes a move (or a resignation, a draw offer, a new game), decides,
//! and records everything in ONE store transaction — the receipt, the move, the
//! resolution when the turn is complete, the transcript entries and the mails to
//! send. Only after the commit does the sender hear "accepted".
//!
//! Turn-based and simultaneous games take the same path: the variant says which
//! seats owe a move; a turn resolves when each of them has one. Nothing here knows
//! "white" or "black". Until a turn resolves, the moves in it are told to nobody
//! but their own seat: the transcript and the other seats learn only *that* a seat
//! moved, and when.

mod actions;
mod answers;
pub mod board;
mod clock; // clocks: deadlines, sweep, reminders, leave, calendar feed
mod command;
mod conditional; // issue 32, slice C: conditional moves
mod desk; // the organiser's desk (issue 31)
mod desk_invited; // the desk's list of invited games (issue 31, slice E)
mod inbox;
mod invitations; // issue 31, slice D
mod legal; // legal moves over HTTP (issue 32, slice T)
mod mail_settings; // issue 32, slice M: mail as the player wants it
mod mails;
mod moves;
mod numbers; // the move number players see (issue 32, slice T)
mod openpgp_keys; // a seat's OpenPGP key (issue 33)
mod page;
mod program_password; // issue 34: passwords for programs (Xfcc)
mod refusal;
mod senders;
pub mod tournament;
mod view;

pub use openpgp_keys::OpenPgpKeyAnswer;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use lettre::message::Mailbox;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::Notify;

pub use answers::{ANSWERS_PER_HOUR, AnswerShare, AnswerTo, UNPROVEN_ANSWERS_PER_HOUR};
pub use clock::{ClockView, GameSweep, LEAVES_PER_DAY, LeaveAnswer, SeatClockView, SweepReport, TimeoutReport};
use command::{Ctx, Gate};
pub use conditional::{
    ConditionalInput, ConditionalLines, ConditionalOp, LineEntry, MAX_LINES, MAX_MOVE_BYTES, MAX_STEPS,
}; // issue 32, slice C
pub use desk::{
    DeskGame, DeskSeat, Extended, GameFilter, MAX_EXTENSION_HOURS, MAX_REASON_CHARS, MyGame, NewToken, Organiser,
};
pub use inbox::{
    Answer, Ignored, Inbound, MailCommand, MailIn, MailOutcome, Reading, Refused, SignedConditional, Taken, Wording,
    openpgp_tofu_note,
};
pub use invitations::{
    AcceptInvitation, InvitationAnswer, InvitationAnswered, InvitationList, InvitationReplyWord, InvitationStatus,
    InvitationView, Invited, Replacement,
};
pub use legal::{LegalMove, LegalView, SeatLegal};
pub use mail_settings::MailSettingsAnswer; // issue 32, slice M
pub use moves::{MoveRequest, Submission};
pub use page::{
    MoveForm, PageView, PlayableMove, PlayerGame, RecordEntry, RecordExport, RecordJson, RecordJsonMove,
    RecordJsonTurn, RecordSeat, RecordTurnView, ViewerView,
};
pub use program_password::{
    FAILED_LOGINS_PER_ADDRESS, FAILED_LOGINS_PER_CLIENT, LoginError, PBKDF2_ITERATIONS, PasswordChange, ProgramLogin,
    ProgramPasswordAnswer,
}; // issue 34
pub use refusal::{Door, GameRefusal, InternalError, Refusal, StewardError};
pub use senders::{
    ADDRESS_REQUESTS_PER_DAY, ADDRESS_REQUESTS_PER_PLAYER_PER_DAY, AddressRequest, Asker, CONFIRM_DAYS, address_key,
};
pub use tournament::StandingsAnswer;
pub use tournament::{CreatedTournament, LeavePolicy, NewPlayer, NewTournament, TournamentView};
pub use view::{GameView, MAX_SPECTATOR_DELAY, MoveView, OutcomeView, SPECTATOR_DELAY_OPTION, SeatView, TurnView};

use crate::ids::{GameId, SeatToken};
use crate::protocol::StewardKeys;
use crate::protocol::capability::Capability;
use crate::protocol::openpgp::key::PlayerPgpKey;
use crate::protocol::policy::{Auth, Secrecy};
use crate::rules::{DynVariant, Options, Outcome, Seat, SeatSet, VariantId};
use crate::store::{CommitmentRow, EventRow, GameRow, MoveRow, SeatRow, Store, Tx};

/// A seat of a game to create.
#[derive(Clone, Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSeat {
    /// The player's name.
    pub name: String,
    /// The player's mail address.
    pub email: String,
    /// The player's Ed25519 public key (base64), optional.
    #[serde(default)]
    pub public_key: Option<String>,
    /// The player's OpenPGP public key (ASCII armour, `gpg --armor --export`),
    /// optional, beside or instead of `public_key` (issue 33).
    #[serde(default)]
    pub openpgp_key: Option<String>,
    /// The player's time zone (IANA, e.g. `Europe/Berlin`), optional: deadlines
    /// are shown in it alongside UTC.
    #[serde(default)]
    pub time_zone: Option<String>,
}

/// A game to create.
#[derive(Clone, Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// The variant's name, as `rules::VariantId` lists them.
    pub variant: String,
    /// The variant's options, e.g. `{"pause": "capturable"}`, the trust
    /// options `auth` (`token` | `signature`) and `secrecy` (`hold` | `commit-reveal`),
    /// and the time control `clock` (see [`crate::clock::control`]).
    #[serde(default)]
    #[schema(value_type = Object)]
    pub options: BTreeMap<String, serde_json::Value>,
    /// The seats, in the variant's seat order.
    pub seats: Vec<NewSeat>,
    /// Invite the seats' players instead of seating them (issue 31): the game
    /// is created once all have accepted, or when the organiser starts it
    /// (see [`Steward::invite_game`]).
    #[serde(default, skip_serializing)]
    pub invite: bool,
}

/// A seat's secret, handed out once at creation.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SeatSecret {
    /// The seat's name in the variant.
    pub seat: String,
    /// The player.
    pub player: String,
    /// The token; whoever holds it plays the seat.
    pub token: String,
    /// The seat's calendar feed (read-only, its own key; not the token).
    pub calendar: String,
}

/// A game checked for creation ([`Steward::prepare_game`]), not yet stored.
#[derive(Clone, Debug)]
pub(crate) struct PreparedGame {
    variant: VariantId,
    options: Options,
    auth: Auth,
    secrecy: Secrecy,
    clock_spec: Option<crate::clock::ClockSpec>,
    spectator_delay: u32,
    /// Option `openpgp_tofu` (issue 33).
    openpgp_tofu: bool,
    /// Each seat's checked name and address.
    contacts: Vec<(String, String)>,
    /// Each seat's public key, if given.
    keys: Vec<Option<String>>,
    /// Each seat's OpenPGP key (armour, as checked), if any (issue 33).
    pgp_keys: Vec<Option<String>>,
    /// Each seat's time zone, if given.
    zones: Vec<Option<String>>,
}

/// A created game: its view and the seat tokens (shown only this once).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct CreatedGame {
    /// The game.
    pub game: GameView,
    /// One token per seat.
    pub tokens: Vec<SeatSecret>,
}

/// What the sender of an accepted move, commitment or reveal gets; the same
/// again for a repeat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Receipt {
    /// The receipt id.
    pub receipt: String,
    /// `move`, `commit` or `reveal`.
    #[schema(value_type = String)]
    pub kind: &'static str,
    /// The game.
    pub game: String,
    /// The seat.
    pub seat: String,
    /// The turn it is for.
    pub turn: u32,
    /// The move as the rules read it (SAN); absent for a commitment.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub notation: Option<String>,
    /// The commitment, hex; only for a commitment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// When it was accepted (server time, UTC).
    pub received_at: String,
    /// Whether this move completed the turn and it was resolved.
    pub resolved: bool,
    /// The hash of the transcript entry that records the receipt.
    pub entry: String,
    /// Set on a repeat of a submission whose turn was resolved since: nothing
    /// changed, and this says where the game is now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub already_resolved: Option<AlreadyResolved>,
    /// The fingerprint of the seat's OpenPGP key, when this submission's
    /// signed mail registered it (trust on first use, issue 33).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openpgp_key_taken: Option<String>,
}

/// Where a game stands, for the answer to a repeat of a submission whose turn
/// is resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct AlreadyResolved {
    /// What happened, in words, with the pointers below.
    pub note: String,
    /// The turn the game is at now.
    pub current_turn: u32,
    /// The game's page in the API.
    pub game_url: String,
    /// The latest board mail sent to the seat: Message-ID (without angle
    /// brackets) and subject.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<String>>, min_items = 2, max_items = 2)]
    pub board_mail: Option<(String, String)>,
}

impl Receipt {
    fn moved(game: &Loaded, m: &MoveRow, seat: String, kind: &'static str, entry: String) -> Receipt {
        Receipt {
            receipt: m.receipt.clone(),
            kind,
            game: game.row.id.to_string(),
            seat,
            turn: m.turn,
            notation: Some(m.notation.clone()),
            commitment: None,
            received_at: crate::store::time_text(m.received_at),
            resolved: m.completes,
            entry,
            already_resolved: None,
            openpgp_key_taken: None,
        }
    }

    fn commit(game: &Loaded, c: &CommitmentRow, seat: String, entry: String) -> Receipt {
        Receipt {
            receipt: c.receipt.clone(),
            kind: "commit",
            game: game.row.id.to_string(),
            seat,
            turn: c.turn,
            notation: None,
            commitment: Some(c.commitment.clone()),
            received_at: crate::store::time_text(c.received_at),
            resolved: false,
            entry,
            already_resolved: None,
            openpgp_key_taken: None,
        }
    }
}

/// The transcript head the steward signed at the end of a transaction; every
/// mail carries it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Head {
    /// The newest entry's place.
    pub seq: u32,
    /// Its hash, hex.
    pub hash: String,
    /// The steward's Ed25519 signature over [`crate::protocol::transcript::head_message`], base64.
    pub signature: String,
}

/// What a seat does about a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DrawAction {
    /// Offer a draw, or accept the offers made (the same thing: a draw needs all).
    Offer,
    /// Same as `Offer`.
    Accept,
    /// Withdraw one's own offer and decline the others'.
    Decline,
}

/// The referee, over the store; cheap to clone.
#[derive(Clone)]
pub struct Steward {
    store: Store,
    from: Mailbox,
    public_url: String,
    outbox: Arc<Notify>,
    keys: Arc<StewardKeys>,
    /// Clocks: the one source of "now", reminder points, leave allowance.
    clock: crate::clock::Clock,
    clock_settings: Arc<crate::clock::Settings>,
    /// What the steward counts for the operator (issue 36).
    metrics: crate::metrics::Metrics,
}

/// A game loaded in a transaction, with its rulebook.
struct Loaded {
    row: GameRow,
    rules: Box<dyn DynVariant>,
    seats: Vec<SeatRow>,
}

impl Loaded {
    fn seat_name(&self, seat: Seat) -> String {
        seat.name_in(self.rules.seat_names())
    }

    fn outcome_text(&self, o: Outcome) -> String {
        o.text(&self.seats.iter().map(|s| self.seat_name(s.seat)).collect::<Vec<_>>())
    }

    /// The names of the winning seats, joined with "and"; `None` for a draw.
    fn winner_names(&self, o: Outcome) -> Option<String> {
        let names: Vec<String> = o.result.winners().iter().map(|s| self.seat_name(s)).collect();
        (!names.is_empty()).then(|| names.join(" and "))
    }
}

/// A game's transcript as the API serves it and `verify` reads it: one JSON
/// object a line.
pub fn transcript_lines(game: &str, events: &[crate::store::EventRow]) -> String {
    let mut lines = String::new();
    for e in events {
        let mut line = serde_json::json!({
            "game": game.to_ascii_uppercase(), "seq": e.seq, "at": crate::store::time_text(e.at), "kind": e.kind,
            "prev": e.prev, "hash": e.hash, "body": e.body,
        });
        if let Some(sig) = &e.signature {
            line["signature"] = serde_json::json!(sig);
        }
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    lines
}

/// An internal error: `e` (an error, or a message for a broken invariant) as it is.
fn internal(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StewardError {
    StewardError::Internal(InternalError::of(e))
}

/// An internal error: `e` stopped the steward while `doing` something.
fn internal_while(doing: impl Into<String>, e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StewardError {
    StewardError::Internal(InternalError::new(doing, e))
}

fn load(tx: &Tx<'_>, game: &str) -> Result<Loaded, StewardError> {
    let id: GameId = game.parse().map_err(|_| Refusal::UnknownGame(game.to_owned()))?;
    let row = tx.game(&id)?.ok_or_else(|| Refusal::UnknownGame(id.to_string()))?;
    let rules = row.variant.rulebook(&row.options).map_err(|e| internal_while(format!("stored options of {id}"), e))?;
    let seats = tx.seats(&id)?;
    Ok(Loaded { row, rules, seats })
}

/// The trust options, taken out of the options map; the rest are the variant's.
fn trust_options(raw: &mut BTreeMap<String, serde_json::Value>) -> Result<(Auth, Secrecy), Refusal> {
    let mut take = |key: &str| -> Result<Option<String>, Refusal> {
        match raw.remove(key) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(Refusal::BadRequest(format!("option {key} must be a string, not {other}"))),
        }
    };
    let auth =
        take(Auth::OPTION)?.map(|s| s.parse::<Auth>()).transpose().map_err(|e| Refusal::BadRequest(e.to_string()))?;
    let secrecy = take(Secrecy::OPTION)?
        .map(|s| s.parse::<Secrecy>())
        .transpose()
        .map_err(|e| Refusal::BadRequest(e.to_string()))?;
    Ok((auth.unwrap_or_default(), secrecy.unwrap_or_default()))
}

/// Takes the option `openpgp_tofu` (`on` | `off`, default off; issue 33).
fn take_openpgp_tofu(raw: &mut BTreeMap<String, serde_json::Value>) -> Result<bool, Refusal> {
    use crate::protocol::policy::OpenPgpTofu;
    let text = match raw.remove(OpenPgpTofu::OPTION) {
        None => return Ok(false),
        Some(serde_json::Value::String(s)) => s,
        Some(serde_json::Value::Bool(b)) => b.to_string(),
        Some(other) => {
            return Err(Refusal::BadRequest(format!("option {} must be on or off, not {other}", OpenPgpTofu::OPTION)));
        }
    };
    let tofu = text.parse::<OpenPgpTofu>().map_err(|e| Refusal::BadRequest(e.to_string()))?;
    Ok(tofu == OpenPgpTofu::On)
}

/// How a request proves its seat, apart from a signed envelope.
#[derive(Clone, Debug)]
pub enum Credential {
    /// The seat's secret token (HTTP `Authorization: Bearer`).
    Token(String),
    /// A reply capability the mail door has checked.
    Capability(Capability),
    /// A signed `action:` envelope (resign, draw, leave): its signature proves
    /// the seat.
    Signed(crate::protocol::Envelope),
    /// A player signed in on the web pages: the address the session belongs to
    /// (a seat's registered address, proven by the private link of a board mail
    /// or a seat token), the games it was proven for and, where that player
    /// holds more than one seat of the game, the seat's name. In those games it
    /// weighs as much as the seat's token; in any other it is no credential
    /// (issue 29: a sign-in for one game does not open the player's others).
    Session {
        /// The player's registered address.
        address: String,
        /// The seat chosen, when the player holds several in the game.
        seat: Option<String>,
        /// The games (ids, any case) the session was signed in for.
        games: Vec<String>,
    },
}

impl Credential {
    /// A token credential from an optional header value.
    pub fn token(token: Option<String>) -> Option<Credential> {
        token.filter(|t| !t.trim().is_empty()).map(Credential::Token)
    }
}

/// At most this many new draw offers per seat in 24 hours: each is written
/// into the transcript and mailed to every seat.
pub const DRAW_OFFERS_PER_DAY: u32 = 3;

/// Spends one of the `per_day` actions `key` may take in 24 hours, at `now`;
/// when they are used up, refuses with [`Refusal::TooMany`] built from
/// `refuse`'s (what was asked too often, when to ask again). A refusal rolls
/// the spending back with the rest of the command.
fn spend_daily(
    tx: &Tx<'_>,
    key: &str,
    per_day: u32,
    now: DateTime<Utc>,
    refuse: impl FnOnce() -> (String, String),
) -> Result<(), StewardError> {
    if tx.rate_count(key, now - chrono::Duration::days(1))? >= per_day {
        let (what, wait) = refuse();
        return Err(Refusal::TooMany { what, wait }.into());
    }
    Ok(tx.rate_spend(key, now)?)
}

fn authenticate(tx: &Tx<'_>, game: &Loaded, credential: Option<&Credential>) -> Result<Seat, StewardError> {
    match credential {
        None => Err(Refusal::BadToken.into()),
        Some(Credential::Token(token)) => {
            let hash = SeatToken::from_presented(token).hash();
            Ok(tx.seat_with_token(&game.row.id, &hash)?.ok_or(Refusal::BadToken)?)
        }
        Some(Credential::Capability(c)) => {
            if c.game != game.row.id.as_str() {
                return Err(Refusal::EnvelopeMismatch(format!(
                    "this reply address belongs to game {}, not to game {}",
                    c.game, game.row.id
                ))
                .into());
            }
            answers::seat_named(game, &c.seat)
                .ok_or_else(|| internal(format!("a valid capability names seat {} that game {} lacks", c.seat, c.game)))
        }
        Some(Credential::Signed(env)) => actions::signed_seat(game, env),
        Some(Credential::Session { address, seat, games }) => {
            if !games.iter().any(|g| g.eq_ignore_ascii_case(game.row.id.as_str())) {
                return Err(Refusal::BadToken.into());
            }
            session_seat(game, address, seat.as_deref())
        }
    }
}

/// The seat a web session acts for in `game`: the seat registered at its
/// address, the one named `seat` when given (a player may hold several seats
/// of a game; the pages name the seat they act for), else the first.
fn session_seat(game: &Loaded, address: &str, seat: Option<&str>) -> Result<Seat, StewardError> {
    game.seats
        .iter()
        .filter(|s| s.email.eq_ignore_ascii_case(address))
        .map(|s| s.seat)
        .find(|&s| seat.is_none_or(|name| game.seat_name(s).eq_ignore_ascii_case(name)))
        .ok_or_else(|| Refusal::BadToken.into())
}

/// A player's public key as given (trimmed; `None` when absent or blank),
/// refused when it is not an Ed25519 public key; `whose` names the player in the
/// refusal ("seat 2 (black)").
pub(crate) fn checked_public_key(whose: &str, key: Option<&str>) -> Result<Option<String>, Refusal> {
    match key.map(str::trim).filter(|k| !k.is_empty()) {
        Some(k) if crate::protocol::public_key_from_base64(k).is_none() => Err(Refusal::BadRequest(format!(
            "{whose}: the public key is not an Ed25519 public key (32 bytes, base64) as `fairsteward player keygen` prints it"
        ))),
        k => Ok(k.map(str::to_owned)),
    }
}

/// A player's OpenPGP public key as given (`None` when absent or blank), read
/// and checked, kept as armour; refused (with what to send instead) when it is
/// not one public key; `whose` names the player in the refusal.
pub(crate) fn checked_openpgp_key(whose: &str, key: Option<&str>) -> Result<Option<String>, Refusal> {
    match key.filter(|k| !k.trim().is_empty()) {
        None => Ok(None),
        Some(k) => match PlayerPgpKey::parse(k) {
            Ok(k) => Ok(Some(k.armored())),
            Err(e) => Err(Refusal::BadRequest(format!("{whose}: {e}"))),
        },
    }
}

fn options_from_json(variant: VariantId, raw: &BTreeMap<String, serde_json::Value>) -> Result<Options, Refusal> {
    let mut options = Options::new();
    for (k, v) in raw {
        let text = match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            // A record given as data (a board), passed on as its JSON text.
            serde_json::Value::Object(_) => v.to_string(),
            _ => {
                return Err(Refusal::BadRequest(format!(
                    "option {k} of {variant} must be a string or a number (or an object: a record given as data)"
                )));
            }
        };
        options = options.set(k.clone(), text);
    }
    Ok(options)
}

impl Steward {
    /// A steward over `store`, sending mail as `from`; `public_url` goes into
    /// mails; `outbox` is notified after each commit that queued mail; `keys`
    /// sign the transcript and open sealed moves.
    pub fn new(
        store: Store,
        from: Mailbox,
        public_url: String,
        outbox: Arc<Notify>,
        keys: Arc<StewardKeys>,
    ) -> Steward {
        Steward {
            store,
            from,
            public_url,
            outbox,
            keys,
            clock: crate::clock::Clock::System,
            clock_settings: Arc::new(crate::clock::Settings::default()),
            metrics: crate::metrics::Metrics::new(),
        }
    }

    /// The steward counting into `metrics` (issue 36), the daemon's one registry.
    pub fn with_metrics(self, metrics: crate::metrics::Metrics) -> Steward {
        Steward { metrics, ..self }
    }

    /// What the steward counts for the operator.
    pub fn metrics(&self) -> &crate::metrics::Metrics {
        &self.metrics
    }

    /// The steward taking its time from `clock`, with the reminder points and
    /// leave allowance of `settings`.
    pub fn with_clock(self, clock: crate::clock::Clock, settings: crate::clock::Settings) -> Steward {
        Steward { clock, clock_settings: Arc::new(settings), ..self }
    }

    /// The steward's address on the web, as mails link to it.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// The steward's keys.
    pub fn keys(&self) -> &StewardKeys {
        &self.keys
    }

    /// A shared handle on the steward's keys (for work outside `self`).
    pub fn keys_arc(&self) -> Arc<StewardKeys> {
        self.keys.clone()
    }

    /// Signs the transcript head of `game` (the newest entry) and returns it.
    fn sign_head(&self, tx: &Tx<'_>, game: &GameId) -> Result<Head, StewardError> {
        let (seq, hash, signed) =
            tx.head_and_signature(game)?.ok_or_else(|| internal(format!("game {game} has no transcript")))?;
        // Signed already in this transaction (a move that resolved its turn signs
        // the head for the board mails, then again as the command ends): Ed25519
        // signatures are deterministic, so signing again would write the same.
        if let Some(signature) = signed {
            return Ok(Head { seq, hash, signature });
        }
        let message = crate::protocol::transcript::head_message(game.as_str(), seq, &hash);
        let signature = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, self.keys.sign(&message));
        tx.sign_event(game, seq, &signature)?;
        Ok(Head { seq, hash, signature })
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Takes or renews the lease of the duty `name` for `ttl` (issue 35): a
    /// duty one steward at a time runs among those sharing a database (the
    /// sweep, the IMAP door). Whether this steward holds it now; a store that
    /// cannot be reached holds nothing.
    pub async fn hold_lease(&self, name: &'static str, ttl: std::time::Duration) -> bool {
        let holder = self.store.instance().to_owned();
        let now = Utc::now();
        let until = now + chrono::TimeDelta::from_std(ttl).unwrap_or(chrono::TimeDelta::MAX);
        match self.store.transaction(move |tx| tx.take_lease(name, &holder, now, until)).await {
            Ok(held) => held,
            Err(e) => {
                tracing::warn!(lease = name, error = %e, "cannot take or renew a lease; the duty waits");
                false
            }
        }
    }

    /// Gives up the leases and outbox claims of stewards that ran on this
    /// host and died (a crash, `kill -9`), so that this one takes their
    /// duties and mails at once rather than when they lapse (issue 35).
    pub async fn release_dead_holders(&self) {
        let me = self.store.instance().to_owned();
        let released = self
            .store
            .transaction(move |tx| {
                let mut released = Vec::new();
                for holder in tx.holders()? {
                    if holder != me && crate::store::holder_died_here(&holder) {
                        tx.release_holder(&holder)?;
                        released.push(holder);
                    }
                }
                Ok::<_, crate::store::StoreError>(released)
            })
            .await;
        match released {
            Ok(released) if !released.is_empty() => {
                tracing::info!(stewards = ?released, "took over the leases and mails of stewards that died on this host");
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, "cannot look for the leases of stewards that died; they lapse by themselves")
            }
        }
    }

    /// Gives up every lease and outbox claim this steward holds (a clean
    /// stop).
    pub async fn release_holds(&self) {
        let me = self.store.instance().to_owned();
        if let Err(e) = self.store.transaction(move |tx| tx.release_holder(&me)).await {
            tracing::warn!(error = %e, "cannot give up this steward's leases and claims; they lapse by themselves");
        }
    }

    /// Gives the lease `name` up if this steward holds it (a clean stop: the
    /// next steward takes the duty over at once).
    pub async fn release_lease(&self, name: &'static str) {
        let holder = self.store.instance().to_owned();
        if let Err(e) = self.store.transaction(move |tx| tx.release_lease(name, &holder)).await {
            tracing::warn!(lease = name, error = %e, "cannot give a lease up; it lapses by itself");
        }
    }

    /// Creates a game; the seat tokens are returned this once and stored hashed.
    ///
    /// # Errors
    /// An unknown variant or option, a wrong number of seats, a bad address.
    pub async fn create_game(&self, new: NewGame, now: DateTime<Utc>) -> Result<CreatedGame, StewardError> {
        let prepared = self.prepare_game(&new)?;
        let variant = prepared.variant;
        let addresses: Vec<String> = prepared.contacts.iter().map(|(_, e)| e.clone()).collect();
        let tokens: Vec<SeatToken> = new.seats.iter().map(|_| SeatToken::random()).collect();
        let hashes: Vec<String> = tokens.iter().map(SeatToken::hash).collect();
        let this = self.clone();
        let (id, view) =
            self.store.transaction(move |tx| this.create_game_in(tx, &prepared, &hashes, now, true)).await?;
        self.outbox.notify_one();
        tracing::info!(game = %id, variant = %variant, "game created");
        let tokens = view
            .seats
            .iter()
            .zip(tokens)
            .zip(&addresses)
            .map(|((s, t), address)| SeatSecret {
                seat: s.seat.clone(),
                player: s.player.clone(),
                token: t.reveal().to_owned(),
                calendar: self.calendar_url(address, std::slice::from_ref(&view.id)),
            })
            .collect();
        Ok(CreatedGame { game: view, tokens })
    }

    /// Checks a game to create, without the store: the variant, its options,
    /// the trust and clock options, the seats' names, addresses, keys and zones.
    ///
    /// # Errors
    /// An unknown variant or option, a wrong number of seats, a bad address.
    pub(crate) fn prepare_game(&self, new: &NewGame) -> Result<PreparedGame, StewardError> {
        let variant: VariantId = new.variant.parse::<VariantId>().map_err(Refusal::from)?;
        let mut raw_options = new.options.clone();
        let (auth, secrecy) = trust_options(&mut raw_options)?;
        let clock_spec = clock::take_option(&mut raw_options)?;
        let spectator_delay = view::take_spectator_delay(&mut raw_options)?;
        let openpgp_tofu = take_openpgp_tofu(&mut raw_options)?;
        let options = options_from_json(variant, &raw_options)?;
        let rules = variant.rulebook(&options).map_err(Refusal::from)?;
        let names = rules.seat_names();
        if new.seats.len() != names.len() {
            return Err(Refusal::BadRequest(format!(
                "{variant} needs {} seats ({}), {} given",
                names.len(),
                names.join(", "),
                new.seats.len()
            ))
            .into());
        }
        let mut contacts = Vec::new();
        let mut keys = Vec::new();
        let mut pgp_keys = Vec::new();
        let mut shown: Vec<String> = Vec::new();
        for (i, s) in new.seats.iter().enumerate() {
            // One validator for names and addresses, shared with the mail composer.
            let refuse =
                |e: crate::contact::ContactError| Refusal::BadRequest(format!("seat {} ({}): {e}", i + 1, names[i]));
            let name = crate::contact::PlayerName::parse(&s.name).map_err(refuse)?;
            let email = crate::contact::PlayerAddress::parse(&s.email).map_err(refuse)?;
            // Players tell seats apart by name (issue 29): no two may show alike.
            if let Some(j) = shown.iter().position(|other| *other == name.shown_as()) {
                return Err(Refusal::BadRequest(format!(
                    "seat {} ({}) and seat {} ({}) both show the name {:?}; give every seat a name of its own, such as \"{name} (white)\" and \"{name} (black)\"",
                    j + 1,
                    names[j],
                    i + 1,
                    names[i],
                    name.as_str()
                ))
                .into());
            }
            shown.push(name.shown_as());
            contacts.push((name.to_string(), email.to_string()));
            let key = checked_public_key(&format!("seat {} ({})", i + 1, names[i]), s.public_key.as_deref())?;
            let pgp = checked_openpgp_key(&format!("seat {} ({})", i + 1, names[i]), s.openpgp_key.as_deref())?;
            // With trust on first use, the first signed mail brings the key.
            if key.is_none() && pgp.is_none() && auth == Auth::Signature && !openpgp_tofu {
                return Err(Refusal::BadRequest(format!(
                    "seat {} ({}) has no public_key and no openpgp_key, but auth = signature needs one per seat (`fairsteward player keygen`, or `gpg --armor --export YOUR-ADDRESS`)",
                    i + 1,
                    names[i]
                ))
                .into());
            }
            keys.push(key);
            pgp_keys.push(pgp);
        }
        let zones = clock::time_zones(&new.seats, names)?;
        Ok(PreparedGame {
            variant,
            options,
            auth,
            secrecy,
            clock_spec,
            spectator_delay,
            openpgp_tofu,
            contacts,
            keys,
            pgp_keys,
            zones,
        })
    }

    /// In the caller's transaction: creates the game `p` with the seats' token
    /// `hashes`, its `created` entry and clocks; with `start_mails`, queues the
    /// per-seat start mails (a tournament sends one mail per player instead).
    ///
    /// # Errors
    /// Store failures.
    pub(crate) fn create_game_in(
        &self,
        tx: &Tx<'_>,
        p: &PreparedGame,
        hashes: &[String],
        now: DateTime<Utc>,
        start_mails: bool,
    ) -> Result<(GameId, GameView), StewardError> {
        let this = self;
        let PreparedGame {
            variant,
            options,
            auth,
            secrecy,
            clock_spec,
            spectator_delay,
            openpgp_tofu,
            contacts,
            keys,
            pgp_keys,
            zones,
        } = p;
        let (variant, auth, secrecy, clock_spec) = (*variant, *auth, *secrecy, *clock_spec);
        let rules = variant.rulebook(options).map_err(|e| internal_while("the checked options of a new game", e))?;
        let start = rules.start();
        let mut id = GameId::random();
        while tx.game_exists(&id)? {
            id = GameId::random();
        }
        let row = GameRow {
            id: id.clone(),
            variant,
            options: options.clone(),
            auth,
            secrecy,
            spectator_delay: *spectator_delay,
            openpgp_tofu: *openpgp_tofu,
            state: start.clone(),
            turn: 1,
            outcome: None,
            created_at: now,
            updated_at: now,
        };
        tx.insert_game(&row)?;
        let mut seats = Vec::new();
        for (i, ((key, hash), (name, email))) in keys.iter().zip(hashes).zip(contacts).enumerate() {
            let seat = SeatRow {
                seat: Seat::new(i as u8),
                name: name.clone(),
                email: email.clone(),
                public_key: key.clone(),
                draw_offer: false,
                openpgp_key: pgp_keys.get(i).cloned().flatten(),
            };
            tx.insert_seat(&id, &seat, hash)?;
            seats.push(seat);
        }
        let game = Loaded { row, rules, seats };
        let players: Vec<_> =
            game.seats.iter().map(|s| json!({"seat": game.seat_name(s.seat), "player": s.name})).collect();
        let players: Vec<_> = players
            .into_iter()
            .zip(&game.seats)
            .map(|(mut p, s)| {
                if let Some(k) = &s.public_key {
                    p["public_key"] = json!(k);
                }
                // issue 33: `verify` checks OpenPGP-signed moves with this key.
                if let Some(k) = s.openpgp_key.as_deref().and_then(|k| PlayerPgpKey::parse(k).ok()) {
                    p["openpgp_key"] = json!(k.armored());
                    p["openpgp_fingerprint"] = json!(k.fingerprint());
                }
                p
            })
            .collect();
        let mut created = json!({
            "variant": variant.name(),
            "options": options.iter().collect::<BTreeMap<_, _>>(),
            "auth": auth.name(),
            "secrecy": secrecy.name(),
            "seats": players,
            "state": game.row.state,
            "steward_key": this.keys.signing_public_base64(),
        });
        if *openpgp_tofu {
            created["openpgp_tofu"] = json!(true); // issue 33
        }
        // Clocks: the time control is part of the record.
        if let Some(spec) = &clock_spec {
            created["clock"] = spec.to_json();
        }
        tx.append_event(&id, now, "created", &created)?;
        this.clock_start(tx, &game, clock_spec, zones, now)?;
        let head = this.sign_head(tx, &id)?;
        if start_mails {
            let clocks = this.clock_lines(tx, &game, now)?;
            let mail_settings = mail_settings::of_seats(tx, &game)?; // issue 32
            for mail in mails::started(this, &game, &head, now, &clocks, &mail_settings)? {
                tx.queue_mail(&mail, now)?;
            }
        }
        let view = view::game_view(this, tx, &game, None)?;
        Ok((id, view))
    }

    fn end(&self, tx: &Tx<'_>, game: &Loaded, o: Outcome, now: DateTime<Utc>) -> Result<(), StewardError> {
        let score = match self_score(game, o) {
            Some(s) => s,
            None => game.outcome_text(o),
        };
        tx.end_game(&game.row.id, o, &score, now)?;
        self.clock_stop_all(tx, game, now)?;
        // Conditional lines have nothing left to answer: none is kept, even sealed.
        tx.forget_conditionals(&game.row.id, now)?;
        let winner = game.winner_names(o);
        tx.append_event(
            &game.row.id,
            now,
            "ended",
            &json!({"result": score, "winner": winner, "reason": o.reason.as_str()}),
        )?;
        tracing::info!(game = %game.row.id, result = %score, reason = %o.reason, "game over");
        // A tournament hears of the end of its games (issue 31).
        self.tournament_game_ended(tx, &game.row.id, now)?;
        Ok(())
    }

    /// Resigns the token's seat.
    ///
    /// # Errors
    /// Unknown game, bad token, game over.
    pub async fn resign(
        &self,
        game: String,
        credential: Option<Credential>,
        now: DateTime<Utc>,
    ) -> Result<GameView, StewardError> {
        let this = self.clone();
        self.command(game, Gate::Act(credential, crate::protocol::Action::Resign), now, move |c| this.resign_in(c))
            .await
    }

    /// The act of a resignation, after the prologue.
    fn resign_in(&self, c: &mut Ctx<'_, '_>) -> Result<GameView, StewardError> {
        let (this, tx, g, seat, envelope, now) = (self, c.tx, &c.game, c.seat()?, c.envelope.take(), c.now);
        let (after, notes, outcome) = g.rules.retire(&g.row.state, seat).map_err(internal)?;
        let goes_on = after != g.row.state;
        if outcome.is_none() && !goes_on {
            return Err(
                Refusal::BadRequest(format!("{} cannot resign alone in {}", g.seat_name(seat), g.row.variant)).into()
            );
        }
        let mut body = json!({"seat": g.seat_name(seat), "turn": g.row.turn});
        if let Some(e) = envelope {
            body["envelope"] = json!(e); // signed: the transcript proves who resigned
        }
        if goes_on {
            // Play goes on without the seat (a free-for-all of more seats): the
            // transcript records the state, so a verifier can replay it.
            body["state_before"] = json!(g.row.state);
            body["state"] = json!(after);
            body["notes"] = json!(notes);
            tx.advance_game(&g.row.id, &after, g.row.turn, now)?;
        }
        tx.append_event(&g.row.id, now, "resigned", &body)?;
        let text = format!("{} ({}) resigned.", g.seat_name(seat), g.seats[seat.index()].name);
        match outcome {
            Some(outcome) => {
                this.end(tx, g, outcome, now)?;
                let head = this.sign_head(tx, &g.row.id)?;
                for mail in mails::notice(this, g, mails::Notice::Ended, &text, Some(outcome), &head, now)? {
                    tx.queue_mail(&mail, now)?;
                }
            }
            None => {
                this.clock_moved(tx, g, seat, now, false)?; // clocks: the seat is out
                this.clock_turn_resolved(tx, g, &after, false, now)?;
                let head = this.sign_head(tx, &g.row.id)?;
                let g2 = load(tx, g.row.id.as_str())?;
                let owed: Vec<String> =
                    g2.rules.seats_to_move(&after).map_err(internal)?.iter().map(|s| g2.seat_name(s)).collect();
                let text =
                    format!("{text} Its pieces leave the board and play goes on; {} to move.", owed.join(" and "));
                for mail in mails::notice(this, &g2, mails::Notice::Retired(seat), &text, None, &head, now)? {
                    tx.queue_mail(&mail, now)?;
                }
            }
        }
        let g = load(tx, g.row.id.as_str())?;
        view::game_view(this, tx, &g, Some(seat))
    }

    /// Records a rotation of the steward's keys to `new` in every open game: a
    /// `key_rotated` entry naming the new public keys and fingerprint, signed
    /// (as the head) by the current key, so the chain of trust goes on; and a
    /// mail to every seat with the new fingerprint. `install` runs last, inside
    /// the same transaction (it puts the new key files in place): if it fails,
    /// nothing is recorded. Returns the games it was recorded in.
    ///
    /// Heads after this are signed by `new`; the caller stops using `self`.
    ///
    /// # Errors
    /// The store fails, or `install` does.
    pub async fn rotate_keys(
        &self,
        new: Arc<StewardKeys>,
        install: impl FnOnce() -> Result<(), String> + Send + 'static,
        now: DateTime<Utc>,
    ) -> Result<Vec<GameId>, StewardError> {
        let this = self.clone();
        let games = self
            .store
            .transaction(move |tx| {
                let mut rotated = Vec::new();
                for row in tx.games()? {
                    if row.outcome.is_some() {
                        continue;
                    }
                    let g = load(tx, row.id.as_str())?;
                    let body = json!({
                        "signing_key": new.signing_public_base64(),
                        "sealing_key": new.sealing_public_base64(),
                        "fingerprint": new.fingerprint(),
                        "previous_signing_key": this.keys.signing_public_base64(),
                        "previous_fingerprint": this.keys.fingerprint(),
                    });
                    tx.append_event(&g.row.id, now, "key_rotated", &body)?;
                    let head = this.sign_head(tx, &g.row.id)?;
                    let text = format!(
                        "The steward's keys were changed. Its new fingerprint is {} (it was {}). Mails from now on are signed with the new key; moves sealed to the steward go to the new key (GET {}/api/steward). The transcript records the change, signed with the old key, so `fairsteward verify` follows it.",
                        new.fingerprint(),
                        this.keys.fingerprint(),
                        this.public_url,
                    );
                    let suffix = format!("-{}", head.seq);
                    for mail in mails::to_seats(
                        &this,
                        &g,
                        crate::letters::compose::MailKind::KeyRotated,
                        &suffix,
                        None,
                        "the steward's keys changed",
                        |_| text.clone(),
                        None,
                        &head,
                        now,
                    )? {
                        tx.queue_mail(&mail, now)?;
                    }
                    rotated.push(g.row.id.clone());
                }
                // The store knows the new key as the steward's current one
                // (stewards sharing a database start only with it; issue 35).
                if let Some(pgp) = new.openpgp() {
                    tx.record_steward_openpgp_key(&pgp.fingerprint(), now)?;
                }
                install().map_err(internal)?;
                Ok::<_, StewardError>(rotated)
            })
            .await?;
        self.outbox.notify_one();
        Ok(games)
    }

    /// Offers, accepts or declines a draw for the token's seat. When every seat
    /// offers, the game is drawn by agreement. Offers lapse when a turn resolves.
    ///
    /// # Errors
    /// Unknown game, bad token, game over.
    pub async fn draw(
        &self,
        game: String,
        credential: Option<Credential>,
        action: DrawAction,
        now: DateTime<Utc>,
    ) -> Result<GameView, StewardError> {
        let this = self.clone();
        self.command(game, Gate::Act(credential, action.action()), now, move |c| this.draw_in(c, action)).await
    }

    /// The act of a draw offer, accept or decline, after the prologue: a seat's draw offer, acceptance or decline (a decline by the offering
    /// seat withdraws its offer). Offers are limited to [`DRAW_OFFERS_PER_DAY`]
    /// per seat; a repeated offer while the seat's own stands changes nothing.
    fn draw_in(&self, c: &mut Ctx<'_, '_>, action: DrawAction) -> Result<GameView, StewardError> {
        let (this, tx, g, seat, envelope, now) = (self, c.tx, &c.game, c.seat()?, c.envelope.take(), c.now);
        let name = g.seat_name(seat);
        let mut body = json!({"seat": name, "turn": g.row.turn});
        if let Some(e) = envelope {
            body["envelope"] = json!(e); // signed: the transcript proves who offered
        }
        let seats = tx.seats(&g.row.id)?;
        if action == DrawAction::Decline {
            // Only a standing offer can be declined (or withdrawn): a decline of
            // nothing would mail every seat for nothing.
            if !seats.iter().any(|s| s.draw_offer) {
                return Err(Refusal::NoDrawOffered(g.row.id.to_string()).into());
            }
            tx.clear_draw_offers(&g.row.id)?;
            tx.append_event(&g.row.id, now, "draw_declined", &body)?;
            let head = this.sign_head(tx, &g.row.id)?;
            let text = format!("{name} declines the draw; play goes on.");
            for mail in mails::notice(this, g, mails::Notice::DrawDeclined, &text, None, &head, now)? {
                tx.queue_mail(&mail, now)?;
            }
        } else if !seats.iter().any(|s| s.seat == seat && s.draw_offer) {
            // An offer that would draw the game (every other seat offered) is
            // an acceptance and never refused; a new offer is counted.
            let needed = g.rules.agreed_draw(&g.row.state).map_err(internal)?.seats;
            let accepts = needed.iter().all(|s| s == seat || seats.iter().any(|r| r.seat == s && r.draw_offer));
            if !accepts {
                spend_daily(tx, &format!("draw|{}|{}", g.row.id, seat.index()), DRAW_OFFERS_PER_DAY, now, || {
                    (
                        format!(
                            "{name} offered a draw {DRAW_OFFERS_PER_DAY} times in the last 24 hours, the most a day allows (each offer is mailed to every seat)"
                        ),
                        "offer again tomorrow; an offer stands until a turn is resolved or it is declined".into(),
                    )
                })?;
            }
            this.offer_draw(tx, g, seat, &body, now)?;
        }
        // A seat whose offer stands already offers nothing new: no entry, no mail.
        let g = load(tx, g.row.id.as_str())?;
        view::game_view(this, tx, &g, Some(seat))
    }

    /// Records `seat`'s draw offer (or acceptance), described by `body` in the
    /// transcript: the game is drawn when every seat still in it has offered,
    /// else the others are told how to accept.
    fn offer_draw(
        &self,
        tx: &Tx<'_>,
        g: &Loaded,
        seat: Seat,
        body: &serde_json::Value,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let name = g.seat_name(seat);
        tx.set_draw_offer(&g.row.id, seat, true)?;
        tx.append_event(&g.row.id, now, "draw_offered", body)?;
        let offered: SeatSet = tx.seats(&g.row.id)?.iter().filter(|s| s.draw_offer).map(|s| s.seat).collect();
        let draw = g.rules.agreed_draw(&g.row.state).map_err(internal)?;
        if draw.seats.iter().all(|s| offered.contains(s)) {
            let o = draw.outcome;
            self.end(tx, g, o, now)?;
            let head = self.sign_head(tx, &g.row.id)?;
            for mail in
                mails::notice(self, g, mails::Notice::Ended, "All seats agreed to a draw.", Some(o), &head, now)?
            {
                tx.queue_mail(&mail, now)?;
            }
        } else {
            let head = self.sign_head(tx, &g.row.id)?;
            // A notice goes out by mail: it says what to write back.
            let text = format!(
                "{name} offers a draw. To accept, reply to this mail with `accept draw` as the first line; to decline, `decline draw`."
            );
            for mail in mails::notice(self, g, mails::Notice::DrawOffer(seat), &text, None, &head, now)? {
                tx.queue_mail(&mail, now)?;
            }
        }
        Ok(())
    }

    /// The game as anyone may see it; with a seat's token, that seat's own
    /// pending move too.
    ///
    /// # Errors
    /// Unknown game; a token that is given but wrong.
    pub async fn status(&self, game: String, credential: Option<Credential>) -> Result<GameView, StewardError> {
        let this = self.clone();
        let now = self.now();
        self.command(game, Gate::Look(credential), now, move |c| view::game_view(&this, c.tx, &c.game, c.seat)).await
    }

    /// The transcript of a game: every accepted event, in order. Spectators (no
    /// `credential`) of a game with a spectator delay get it up to the
    /// resolution of the last turn shown to them: the entries from the first
    /// later resolution on are held back until the delay has passed.
    ///
    /// # Errors
    /// Unknown game; a credential that is given but wrong.
    pub async fn transcript(
        &self,
        game: String,
        credential: Option<Credential>,
    ) -> Result<Vec<EventRow>, StewardError> {
        let now = self.now();
        self.command(game, Gate::Look(credential), now, |c| {
            let mut events = c.tx.events(&c.game.row.id)?;
            let resolved = c.tx.turns(&c.game.row.id)?.len();
            let visible = view::visible_turns(&c.game, resolved, c.seat) as u64;
            if visible < resolved as u64 {
                let held = |e: &EventRow| e.kind == "resolved" && e.body["turn"].as_u64().is_some_and(|t| t > visible);
                if let Some(cut) = events.iter().position(held) {
                    events.truncate(cut);
                }
            }
            Ok(events)
        })
        .await
    }

    /// Every game, newest first (for the admin).
    ///
    /// # Errors
    /// Store failures.
    pub async fn list(&self) -> Result<Vec<GameView>, StewardError> {
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                let mut out = Vec::new();
                for row in tx.games()? {
                    let g = load(tx, row.id.as_str())?;
                    out.push(view::game_view(&this, tx, &g, None)?);
                }
                Ok(out)
            })
            .await
    }
}

/// The two-seat score (`1-0`) of an outcome, when the game has two seats.
fn self_score(game: &Loaded, o: Outcome) -> Option<String> {
    // An aborted game (the desk) has no score: `*`, as PGN writes it.
    (game.seats.len() == 2).then(|| if o.counts() { o.result.two_seat_score() } else { "*" }.to_owned())
}

/// A raw inbound message as kept for disputes: its first
/// [`crate::store::INBOUND_CAP`] bytes sealed to the steward's own key, since
/// any message may carry a pending move (issue 11 point 3). `fairsteward
/// inbound` opens them for the operator.
///
/// It is sealed where the message comes in ([`Steward::kept_copy`]), before its
/// command reaches the store: sealing needs nothing from the store, and the
/// store's one thread, which every write waits for, should not spend its time on it.
#[derive(Clone, Debug)]
pub struct KeptCopy {
    /// The message's whole length.
    size: usize,
    /// Its first bytes, sealed.
    sealed: Vec<u8>,
}

impl KeptCopy {
    /// The row that keeps it, with what became of it.
    pub(crate) fn row(
        &self,
        at: DateTime<Utc>,
        door: Door,
        game: Option<&GameId>,
        outcome: &str,
    ) -> crate::store::InboundRow {
        crate::store::InboundRow {
            id: 0,
            received_at: at,
            door: door.name().to_owned(),
            game_id: game.map(|g| g.to_string()),
            size: self.size as i64,
            body: self.sealed.clone(),
            sealed: true,
            outcome: outcome.to_owned(),
        }
    }
}

impl Steward {
    /// Seals a raw inbound message (an HTTP body, a whole mail) for keeping: see
    /// [`KeptCopy`]. Doors call it as a message arrives.
    pub fn kept_copy(&self, raw: &[u8]) -> KeptCopy {
        let kept = &raw[..raw.len().min(crate::store::INBOUND_CAP)];
        KeptCopy {
            size: raw.len(),
            sealed: crate::protocol::seal_record(kept, &self.keys, crate::store::INBOUND_LABEL),
        }
    }
}

/// A kept inbound message, opened for the operator (`fairsteward game inbound`).
#[derive(Clone, Debug, Serialize)]
pub struct KeptMessage {
    /// Row id.
    pub id: i64,
    /// When it came (RFC 3339).
    pub received_at: String,
    /// `http` or `mail`.
    pub door: String,
    /// The game it was for, when known.
    pub game: Option<String>,
    /// Its full size in bytes; `text` holds at most the first
    /// [`crate::store::INBOUND_CAP`].
    pub size: i64,
    /// What became of it.
    pub outcome: String,
    /// Whether it is kept sealed (it is opened here, in memory only).
    pub sealed: bool,
    /// The message (invalid UTF-8 replaced).
    pub text: String,
}

impl Steward {
    /// The raw inbound messages kept for disputes, of one game or all, oldest
    /// first, opened with the steward's keys.
    ///
    /// # Errors
    /// An unknown game; store failures; a sealed copy that the keys cannot open.
    pub async fn kept_messages(&self, game: Option<String>) -> Result<Vec<KeptMessage>, StewardError> {
        let keys = self.keys_arc();
        self.store
            .transaction(move |tx| {
                let id = match &game {
                    Some(g) => Some(load(tx, g)?.row.id),
                    None => None,
                };
                let mut out = Vec::new();
                for row in tx.inbound(id.as_ref())? {
                    let body = if row.sealed {
                        crate::protocol::open_record(&row.body, &keys, crate::store::INBOUND_LABEL).map_err(|e| {
                            internal_while(
                                format!("the kept message {} cannot be opened with the steward's keys", row.id),
                                e,
                            )
                        })?
                    } else {
                        row.body
                    };
                    out.push(KeptMessage {
                        id: row.id,
                        received_at: crate::store::time_text(row.received_at),
                        door: row.door,
                        game: row.game_id,
                        size: row.size,
                        outcome: row.outcome,
                        sealed: row.sealed,
                        text: String::from_utf8_lossy(&body).into_owned(),
                    });
                }
                Ok(out)
            })
            .await
    }
}
