//! Tournaments (issue 31): a plan of games among a list of players, created
//! together (or round by round), with one start mail per player, standings by
//! the game's own scoring, directors, withdrawals and the end date.
//!
//! Pairing and the table are pure logic in [`crate::tournament`]; here they meet
//! the store: the plan is kept in `tournament_games`, each game is an ordinary
//! game of the steward, and [`Steward::end`] tells the tournament when one of
//! its games ends ([`Steward::tournament_game_ended`]).

mod create;
mod ends;
mod mails;
mod table;
mod withdraw;

use std::collections::BTreeMap;

use serde::Deserialize;

pub use create::NamedDirector;
pub use create::{CreatedTournament, TournamentSeatSecret};
pub use ends::END_DATE_REASON;
pub use mails::{ANSWER_STANDING_LINES, StandingsAnswer};
pub(crate) use table::parse_id;
pub use table::{CrossCell, StandingView, TournamentGameView, TournamentPlayerView, TournamentView};

/// A tournament to create (`POST /api/tournaments`).
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTournament {
    /// Its name, shown on the pages and in the mails: one line of 1 to 100
    /// characters, spaces around not counted.
    #[schema(
        pattern = r"^\s*[^\s\u0000-\u001f\u007f-\u009f]([^\u0000-\u001f\u007f-\u009f]{0,98}[^\s\u0000-\u001f\u007f-\u009f])?\s*$"
    )]
    pub name: String,
    /// The variant's name, as `rules::VariantId` lists them.
    #[schema(schema_with = variant_name)]
    pub variant: String,
    /// As a new game's: the variant's options, `auth`, `secrecy`, `clock`,
    /// `spectator_delay`. Every game of the tournament gets them.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub options: BTreeMap<String, serde_json::Value>,
    /// The leave policy: allowed (the steward's allowance), capped, or none.
    #[serde(default)]
    pub leave: Option<LeavePolicy>,
    /// Every pairing twice (two seats: colours swapped).
    #[serde(default)]
    pub double: bool,
    /// Round by round: the next round's games are created when the last game
    /// of the round ends. Without it every game starts at once.
    #[serde(default)]
    pub rounds: bool,
    /// Team mode (four-seat games): partners balanced.
    #[serde(default)]
    pub teams: bool,
    /// The end date: RFC 3339, or a date (`2027-06-30`, the end of that day UTC).
    #[serde(default)]
    pub ends_at: Option<String>,
    /// The players, in order (their numbers are 0.. in this order): at least
    /// as many as the variant has seats, at most [`MAX_PLAYERS`] (40).
    #[schema(min_items = 2, max_items = 40)]
    pub players: Vec<NewPlayer>,
    /// Invite the players instead of seating them at once.
    #[serde(default)]
    pub invite: bool,
}

/// A player of a tournament to create.
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    /// The name.
    #[schema(min_length = 1)]
    pub name: String,
    /// The mail address.
    #[schema(format = Email)]
    pub email: String,
    /// The Ed25519 public key (base64), optional.
    #[serde(default)]
    pub public_key: Option<String>,
    /// The OpenPGP public key (ASCII armour), optional (issue 33): every seat
    /// the player gets in the tournament's games gets it.
    #[serde(default)]
    pub openpgp_key: Option<String>,
}

/// How much leave stops the clocks of the tournament's games.
pub use crate::clock::leave::LeavePolicy;

/// The schema of a string that is one of `words`, described by `what`.
pub(crate) fn one_of<'a>(words: impl IntoIterator<Item = &'a str>, what: &str) -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(words))
        .description(Some(what))
        .build()
}

/// The schema of a variant's name: one of the registry's names
/// ([`crate::rules::VariantId::names`]).
fn variant_name() -> utoipa::openapi::schema::Object {
    one_of(crate::rules::VariantId::names(), "The variant's name, one of the steward's variants.")
}

/// The most players a tournament may have: a round robin of 40 is 780 games
/// (1560 double), which bounds what one request can make the steward create.
pub const MAX_PLAYERS: usize = 40;
