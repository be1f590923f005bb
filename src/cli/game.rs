//! `fairsteward game new|show|list|alias|email|inbound`: admin commands on the steward's store.
//!
//! They open the same store as `serve` (the same `--config` and `--data-dir`), call
//! the steward once and print one JSON value on stdout, like `rules`. A running
//! `serve` may share the store; mails queued here (the start mails of a new game)
//! are sent by the next `serve`'s outbox drainer.
//!
//! Bad input (an unknown game, a bad seat or option, a refusal by the steward) is
//! reported as one line on stderr with exit status 2; a failure of ours (the store,
//! the configuration) with exit status 1.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::{Context, anyhow};
use chrono::Utc;
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::serve::ConfigArgs;
use crate::config::Config;
use crate::rules::VariantId;
use crate::steward::{Asker, GameView, NewGame, NewSeat, Steward, StewardError};
use crate::store::AddressKind;

/// `fairsteward game <command>`.
#[derive(Debug, Args)]
#[command(after_help = "Every command prints one JSON value on stdout, except `list`, which prints a table \
                  (`list --json` for JSON). Bad input (an unknown game, a bad seat or \
                  option) prints one line on stderr and exits with status 2; a failure of the store or the \
                  configuration exits with status 1.")]
pub struct GameArgs {
    #[command(subcommand)]
    command: GameCommand,
}

/// What `fairsteward game` can do.
#[derive(Debug, Subcommand)]
enum GameCommand {
    /// Create a game and print it with its seat tokens (JSON).
    ///
    /// Prints {"game": …, "tokens": [{"seat", "player", "token"}, …]} on one line.
    /// The seat tokens are shown only this once (the store keeps their hashes):
    /// hand each player their own. The start mails are queued and go out when
    /// `serve` runs next.
    #[command(after_help = "Example (the headline game, with one of its options):\n  fairsteward game new \\\n    \
                            --seat \"Alice <alice@example.org>\" --seat \"Bob <bob@example.org>\" \\\n    \
                            --option pause=capturable")]
    New {
        #[command(flatten)]
        config: ConfigArgs,
        /// The variant; by default the headline game.
        #[arg(long, value_name = "NAME", default_value = VariantId::HEADLINE.name(),
              ignore_case = true, value_parser = clap::builder::PossibleValuesParser::new(VariantId::names()))]
        variant: String,
        /// A seat as "Name <address>", e.g. "Alice <alice@example.org>"; repeat it
        /// once per seat, in the variant's seat order (White first).
        #[arg(long = "seat", value_name = "SEAT", required = true)]
        seats: Vec<String>,
        /// A variant option as KEY=VALUE (repeatable), e.g. pause=capturable or
        /// normal_below=6 (see the variant's rules file); a time control as
        /// clock="days_per_move days=3" (see docs/clocks.md).
        #[arg(long = "option", value_name = "KEY=VALUE")]
        options: Vec<String>,
        /// Create the game as of this time (RFC 3339) instead of now: its clocks
        /// start then (for tests and operators).
        #[arg(long, value_name = "TIME", value_parser = parse_now)]
        now: Option<chrono::DateTime<Utc>>,
    },
    /// Print a game as the API shows it to anyone (JSON).
    ///
    /// The seats, state, turn, outcome and the history of resolved turns, as
    /// `GET /api/games/ID` without a token: moves not yet resolved are not shown.
    Show {
        #[command(flatten)]
        config: ConfigArgs,
        /// The game id (six letters and digits, e.g. 8KQ2ZJ).
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Ask for an alias of a seat's player: another address whose mails may act
    /// for the player's seats (JSON).
    ///
    /// A confirmation mail goes to ADDRESS (sent by the next `serve`); the alias
    /// takes effect when it is answered from ADDRESS.
    #[command(after_help = "Example:\n  fairsteward game alias 8KQ2ZJ white alice@work.example")]
    Alias {
        #[command(flatten)]
        config: ConfigArgs,
        /// The game id.
        #[arg(value_name = "ID")]
        id: String,
        /// The seat's name (white, black, …).
        #[arg(value_name = "SEAT")]
        seat: String,
        /// The player's other address.
        #[arg(value_name = "ADDRESS")]
        address: String,
    },
    /// Change a seat's registered address (JSON).
    ///
    /// A confirmation mail goes to ADDRESS (sent by the next `serve`); the seat's
    /// address changes when it is answered from ADDRESS.
    #[command(after_help = "Example:\n  fairsteward game email 8KQ2ZJ white alice@new.example")]
    Email {
        #[command(flatten)]
        config: ConfigArgs,
        /// The game id.
        #[arg(value_name = "ID")]
        id: String,
        /// The seat's name (white, black, …).
        #[arg(value_name = "SEAT")]
        seat: String,
        /// The new address.
        #[arg(value_name = "ADDRESS")]
        address: String,
    },
    /// Print the raw messages kept for disputes, opened (JSON).
    ///
    /// Every HTTP body and mail the steward received (its first 64 KiB), of one
    /// game or, without ID, all, oldest first: a JSON array of {id, received_at,
    /// door, game, size, outcome, sealed, text}. They are kept sealed to the
    /// steward's key, since any may hold a pending move; this opens them, in
    /// memory, for the operator.
    Inbound {
        #[command(flatten)]
        config: ConfigArgs,
        /// The game id; all messages when absent.
        #[arg(value_name = "ID")]
        id: Option<String>,
    },
    /// Print every game, newest first, as a table: id, variant, turn, who is
    /// to move (`!` past the deadline), the result, the players.
    ///
    /// With --json, a JSON array of summaries instead: id, variant, options,
    /// state, turn, players, who is to move, outcome, creation and last change.
    /// An empty or missing store prints no games ([] with --json).
    List {
        #[command(flatten)]
        config: ConfigArgs,
        /// Print JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// Only `running` or `finished` games.
        #[arg(long, value_name = "STATUS")]
        status: Option<String>,
        /// Only games with a player whose name or address holds TEXT.
        #[arg(long, value_name = "TEXT")]
        search: Option<String>,
    },
}

/// Why a game command failed: the caller's input (exit status 2) or ours (1).
#[derive(Debug)]
pub enum Failure {
    /// Bad input: an unknown game, a bad seat spec or option, a refusal.
    Input(anyhow::Error),
    /// The store, the configuration or the runtime failed.
    Internal(anyhow::Error),
}

impl From<StewardError> for Failure {
    fn from(e: StewardError) -> Failure {
        match e {
            StewardError::Refused(r) => Failure::Input(anyhow!("{r}")),
            internal @ (StewardError::Internal(_) | StewardError::Unavailable(_)) => {
                Failure::Internal(anyhow!(internal))
            }
        }
    }
}

/// Reads a seat given as `Name <address>`, optionally followed by the player's
/// time zone: `Alice <alice@example.org> Europe/Berlin`.
///
/// # Errors
/// The text is not of that form, or the address is not a mail address.
pub fn parse_seat(text: &str) -> anyhow::Result<NewSeat> {
    let shape = || {
        anyhow!(
            "seat {text:?} is not like \"Alice <alice@example.org>\" (a name, then the address in <>, then optionally a time zone)"
        )
    };
    let (trimmed, zone) = match text.trim().rsplit_once('>') {
        Some((head, zone)) => (format!("{head}>"), Some(zone.trim()).filter(|z| !z.is_empty()).map(str::to_owned)),
        None => (text.trim().to_owned(), None),
    };
    let inner = trimmed.strip_suffix('>').ok_or_else(shape)?;
    let (name, email) = inner.rsplit_once('<').ok_or_else(shape)?;
    let name = name.trim().trim_matches('"').trim();
    let email = email.trim();
    if name.is_empty() || email.is_empty() || name.contains(['<', '>']) {
        return Err(shape());
    }
    // The validator game creation uses, so the error comes before anything else.
    crate::contact::PlayerAddress::parse(email).map_err(|e| anyhow!("seat {text:?}: {e}"))?;
    Ok(NewSeat { openpgp_key: None, name: name.to_owned(), email: email.to_owned(), public_key: None, time_zone: zone })
}

/// Reads `--now`: an RFC 3339 time (`2026-03-01T12:00:00Z`).
///
/// # Errors
/// Text that is not such a time.
pub fn parse_now(text: &str) -> Result<chrono::DateTime<Utc>, String> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("{text:?} is not an RFC 3339 time like 2026-03-01T12:00:00Z ({e})"))
}

/// Reads `KEY=VALUE` options.
fn parse_options(options: &[String]) -> anyhow::Result<BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    for o in options {
        let (k, v) = o
            .split_once('=')
            .filter(|(k, v)| !k.trim().is_empty() && !v.trim().is_empty())
            .ok_or_else(|| anyhow!("--option {o:?}: write it as KEY=VALUE, e.g. pause=capturable"))?;
        if out.insert(k.trim().to_owned(), Value::String(v.trim().to_owned())).is_some() {
            return Err(anyhow!("--option {}: given twice", k.trim()));
        }
    }
    Ok(out)
}

/// A game in `game list`.
fn summary(g: &GameView) -> Value {
    json!({
        "id": g.id,
        "variant": g.variant,
        "options": g.options,
        "state": g.state,
        "turn": g.turn,
        "players": g.seats.iter().map(|s| json!({"seat": s.seat, "player": s.player})).collect::<Vec<_>>(),
        "to_move": g.to_move,
        "outcome": g.outcome,
        "created_at": g.created_at,
        "updated_at": g.updated_at,
    })
}

/// The games as `game list` prints them: one line each, in columns, with a
/// header; what is long (the players) comes last. The caller prints a
/// [`Value::String`] as it is.
fn table(games: &[crate::steward::DeskGame]) -> String {
    if games.is_empty() {
        return "no games\n".to_owned();
    }
    let rows: Vec<[String; 6]> = games
        .iter()
        .map(|g| {
            let to_move = g
                .seats
                .iter()
                .filter(|s| s.owes_move)
                .map(|s| if s.late { format!("{}!", s.seat) } else { s.seat.clone() })
                .collect::<Vec<_>>()
                .join(",");
            let result = match (&g.result, &g.reason) {
                (Some(r), _) if r.ends_with(')') => r.clone(),
                (Some(r), Some(why)) => format!("{r} ({why})"),
                _ => "running".to_owned(),
            };
            let players = g
                .seats
                .iter()
                .map(|s| format!("{}: {} <{}>", s.seat, s.player, s.email))
                .collect::<Vec<_>>()
                .join("; ");
            [
                g.id.clone(),
                g.variant.clone(),
                g.turn.to_string(),
                if to_move.is_empty() { "-".into() } else { to_move },
                result,
                players,
            ]
        })
        .collect();
    let header = ["ID", "VARIANT", "TURN", "TO MOVE", "RESULT", "PLAYERS"].map(str::to_owned);
    let width = |i: usize| rows.iter().chain([&header]).map(|r| r[i].chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..5).map(width).collect();
    let line = |r: &[String; 6]| {
        let mut out = String::new();
        for (cell, w) in r.iter().zip(&widths) {
            out.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(&r[5]);
        out.push('\n');
        out
    };
    std::iter::once(&header).chain(&rows).map(line).collect()
}

/// Runs the steward call `f` on the store of `config` in a fresh runtime.
fn with_steward<F, Fut>(config: &Config, f: F) -> Result<Value, Failure>
where
    F: FnOnce(Steward) -> Fut,
    Fut: Future<Output = Result<Value, Failure>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(Failure::Internal)?;
    runtime.block_on(async {
        // Nobody listens to this outbox signal: the next `serve` sends what is queued.
        let steward = crate::server::open(config, Arc::new(Notify::new())).map_err(|e| Failure::Internal(e.into()))?;
        f(steward).await
    })
}

/// Whether the store of `config` exists (`show` and `list` do not create
/// one): see [`super::serve::store_exists`].
fn store_exists(config: &Config) -> bool {
    super::serve::store_exists(config)
}

/// Runs a game command and returns the JSON to print.
///
/// # Errors
/// [`Failure::Input`] for bad input, [`Failure::Internal`] for ours.
pub fn run(args: &GameArgs) -> Result<Value, Failure> {
    super::init_logging_at("warn");
    let load = |c: &ConfigArgs| c.load(None).map_err(Failure::Internal);
    match &args.command {
        GameCommand::New { config, variant, seats, options, now } => {
            let seats =
                seats.iter().map(|s| parse_seat(s)).collect::<anyhow::Result<Vec<_>>>().map_err(Failure::Input)?;
            let options = parse_options(options).map_err(Failure::Input)?;
            let mut config = load(config)?;
            if let Some(t) = now {
                config.clock = crate::clock::Clock::manual(*t);
            }
            let new = NewGame { variant: variant.clone(), options, seats, invite: false };
            with_steward(&config, |steward| async move {
                let now = steward.now();
                let created = steward.create_game(new, now).await?;
                serde_json::to_value(created).context("printing the game").map_err(Failure::Internal)
            })
        }
        GameCommand::Show { config, id } => {
            let (given, config) = (config, load(config)?);
            if !store_exists(&config) {
                return Err(Failure::Input(anyhow!("there is no game {id}: {:#}", given.no_store(&config))));
            }
            let id = id.clone();
            with_steward(&config, |steward| async move {
                let view = steward.status(id, None).await?;
                serde_json::to_value(view).context("printing the game").map_err(Failure::Internal)
            })
        }
        GameCommand::Alias { config, id, seat, address } | GameCommand::Email { config, id, seat, address } => {
            let kind = match &args.command {
                GameCommand::Alias { .. } => AddressKind::Alias,
                _ => AddressKind::Email,
            };
            let (given, config) = (config, load(config)?);
            if !store_exists(&config) {
                return Err(Failure::Input(anyhow!("there is no game {id}: {:#}", given.no_store(&config))));
            }
            let (id, asker, address) = (id.clone(), Asker::Operator(seat.clone()), address.clone());
            with_steward(&config, |steward| async move {
                let asked = steward.request_address(id, asker, kind, address, steward.now()).await?;
                serde_json::to_value(asked).context("printing the request").map_err(Failure::Internal)
            })
        }
        GameCommand::Inbound { config, id } => {
            let config = load(config)?;
            if !store_exists(&config) {
                return Ok(json!([]));
            }
            let id = id.clone();
            with_steward(&config, |steward| async move {
                let kept = steward.kept_messages(id).await?;
                serde_json::to_value(kept).context("printing the messages").map_err(Failure::Internal)
            })
        }
        GameCommand::List { config, json: true, status: None, search: None } => {
            let config = load(config)?;
            if !store_exists(&config) {
                return Ok(json!([]));
            }
            with_steward(&config, |steward| async move {
                let games = steward.list().await?;
                Ok(Value::Array(games.iter().map(summary).collect()))
            })
        }
        GameCommand::List { config, json, status, search } => {
            let config = load(config)?;
            let filter = crate::steward::GameFilter { status: status.clone(), q: search.clone(), ..Default::default() };
            let as_json = *json;
            if !store_exists(&config) {
                return Ok(if as_json { json!([]) } else { Value::String(table(&[])) });
            }
            with_steward(&config, |steward| async move {
                let games = steward.desk_games(crate::steward::Organiser::Operator, filter).await?;
                if as_json {
                    serde_json::to_value(games).context("printing the games").map_err(Failure::Internal)
                } else {
                    Ok(Value::String(table(&games)))
                }
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_are_name_and_address() {
        let s = parse_seat("Alice <alice@example.org>").unwrap();
        assert_eq!((s.name.as_str(), s.email.as_str()), ("Alice", "alice@example.org"));
        let s = parse_seat("  \"Bob B. Jones\"  < bob@example.org > ").unwrap();
        assert_eq!((s.name.as_str(), s.email.as_str()), ("Bob B. Jones", "bob@example.org"));
        let s = parse_seat("Alice <alice@example.org> Europe/Berlin").unwrap();
        assert_eq!(s.time_zone.as_deref(), Some("Europe/Berlin"));
        assert_eq!(parse_seat("Alice <alice@example.org>").unwrap().time_zone, None);
        for bad in [
            "alice@example.org",
            "<alice@example.org>",
            "Alice alice@example.org",
            "Alice <>",
            "Alice <not an address>",
        ] {
            assert!(parse_seat(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn options_are_key_value() {
        let o = parse_options(&["pause=capturable".into(), "normal_below = 6".into()]).unwrap();
        assert_eq!(o["pause"], "capturable");
        assert_eq!(o["normal_below"], "6");
        assert!(parse_options(&["pause".into()]).is_err());
        assert!(parse_options(&["pause=off".into(), "pause=moved".into()]).is_err());
    }
}
