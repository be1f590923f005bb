//! The games and their seats: creation, state, end, draw offers.

use super::sql::{OptionalExtension, Res, Row, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, corrupt, parse_time, seat_of, time_text};
use crate::ids::GameId;
use crate::protocol::policy::{Auth, Secrecy};
use crate::rules::{EndReason, GameResult, Options, Outcome, Seat, VariantId};

/// How a stored game ended.
pub type StoredOutcome = Outcome;

/// A game as stored.
#[derive(Clone, Debug)]
pub struct GameRow {
    /// The id.
    pub id: GameId,
    /// The variant.
    pub variant: VariantId,
    /// The options it was created with.
    pub options: Options,
    /// How moves prove their seat.
    pub auth: Auth,
    /// How moves stay secret until the turn is complete.
    pub secrecy: Secrecy,
    /// How many resolved turns spectators see the game behind (0: none).
    pub spectator_delay: u32,
    /// Whether a seat's OpenPGP key may be taken from its first signed mail
    /// (option `openpgp_tofu`, issue 33).
    pub openpgp_tofu: bool,
    /// The state string now.
    pub state: String,
    /// The turn now owed (from 1).
    pub turn: u32,
    /// Set once the game has ended.
    pub outcome: Option<Outcome>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// A seat as stored (never its token).
#[derive(Clone, Debug)]
pub struct SeatRow {
    /// The seat.
    pub seat: Seat,
    /// The player's name.
    pub name: String,
    /// The player's mail address.
    pub email: String,
    /// The player's Ed25519 public key, if registered.
    pub public_key: Option<String>,
    /// The player's OpenPGP public key (ASCII armour), if registered (issue 33).
    pub openpgp_key: Option<String>,
    /// Whether the seat offers (or accepts) a draw now.
    pub draw_offer: bool,
}

fn options_json(options: &Options) -> String {
    let map: serde_json::Map<String, serde_json::Value> =
        options.iter().map(|(k, v)| (k.to_owned(), serde_json::Value::from(v))).collect();
    serde_json::Value::Object(map).to_string()
}

fn options_from_json(text: &str) -> Res<Options> {
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(text).map_err(|e| corrupt(format!("options {text:?}: {e}")))?;
    Ok(map.into_iter().fold(Options::new(), |o, (k, v)| {
        let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
        o.set(k, v)
    }))
}

fn game_row(r: &Row<'_>) -> Res<GameRow> {
    let id: String = r.get("id")?;
    let variant: String = r.get("variant")?;
    let result: Option<String> = r.get("result")?;
    let winner: Option<i64> = r.get("winner")?;
    let reason: Option<String> = r.get("end_reason")?;
    let outcome = match (result, reason) {
        (Some(_), Some(reason)) => {
            let reason = EndReason::from_name(&reason).ok_or_else(|| corrupt(format!("end reason {reason:?}")))?;
            let result = match winner {
                Some(w @ 0..=3) => GameResult::Win(seat_of(w)?),
                w => GameResult::from_winner_code(w).ok_or_else(|| corrupt(format!("winner {w:?}")))?,
            };
            Some(Outcome { result, reason })
        }
        _ => None,
    };
    Ok(GameRow {
        id: id.parse().map_err(|e: crate::ids::BadGameId| corrupt(e.to_string()))?,
        variant: variant.parse().map_err(|e: crate::rules::UnknownVariant| corrupt(e.to_string()))?,
        options: options_from_json(&r.get::<_, String>("options")?)?,
        auth: r
            .get::<_, String>("auth")?
            .parse()
            .map_err(|e: crate::protocol::policy::BadPolicy| corrupt(e.to_string()))?,
        secrecy: r
            .get::<_, String>("secrecy")?
            .parse()
            .map_err(|e: crate::protocol::policy::BadPolicy| corrupt(e.to_string()))?,
        spectator_delay: r.get("spectator_delay")?,
        openpgp_tofu: r.get::<_, i64>("openpgp_tofu")? != 0,
        state: r.get("state")?,
        turn: r.get("turn")?,
        outcome,
        created_at: parse_time(&r.get::<_, String>("created_at")?)?,
        updated_at: parse_time(&r.get::<_, String>("updated_at")?)?,
    })
}

impl<'c> Tx<'c> {
    /// Stores a new game.
    ///
    /// # Errors
    /// SQLite errors (a duplicate id among them).
    pub fn insert_game(&self, g: &GameRow) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO games (id, variant, options, state, turn, created_at, updated_at, auth, secrecy, spectator_delay, openpgp_tofu)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8, ?9, ?10)",
            )?
            .execute(params![
                g.id.as_str(),
                g.variant.name(),
                options_json(&g.options),
                g.state,
                g.turn,
                time_text(g.created_at),
                g.auth.name(),
                g.secrecy.name(),
                g.spectator_delay,
                i64::from(g.openpgp_tofu)
            ])?;
        Ok(())
    }

    /// Whether a game id is taken.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn game_exists(&self, id: &GameId) -> Result<bool, StoreError> {
        Ok(self
            .0
            .prepare_cached("SELECT 1 FROM games WHERE id = ?1")?
            .query_row([id.as_str()], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Stores a seat with the hash of its token.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_seat(&self, game: &GameId, s: &SeatRow, token_hash: &str) -> Result<(), StoreError> {
        self.0.prepare_cached(
            "INSERT INTO seats (game_id, seat, name, email, public_key, token_hash, openpgp_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?.execute(
            params![game.as_str(), s.seat.index() as i64, s.name, s.email, s.public_key, token_hash, s.openpgp_key],
        )?;
        Ok(())
    }

    /// A game, if it exists.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn game(&self, id: &GameId) -> Result<Option<GameRow>, StoreError> {
        // On PostgreSQL (issue 35) the row is locked to the end of the
        // transaction: every command on a game reads it first, so commands
        // on one game are serialised across every steward sharing the
        // database, as SQLite's one writer serialises them all.
        let sql = match self.backend() {
            super::Backend::Sqlite => "SELECT * FROM games WHERE id = ?1",
            super::Backend::Postgres => "SELECT * FROM games WHERE id = ?1 FOR UPDATE",
        };
        self.0.prepare_cached(sql)?.query_row([id.as_str()], game_row).optional()
    }

    /// Every game, newest first.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn games(&self) -> Result<Vec<GameRow>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM games ORDER BY created_at DESC, id")?;
        let rows = stmt.query_map([], game_row)?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// The seats of a game, in seat order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn seats(&self, game: &GameId) -> Result<Vec<SeatRow>, StoreError> {
        // Every command loads its game's seats: the statement is kept.
        let mut stmt = self.0.prepare_cached(
            "SELECT seat, name, email, public_key, draw_offer, openpgp_key FROM seats WHERE game_id = ?1 ORDER BY seat",
        )?;
        let rows = stmt
            .query_map([game.as_str()], |r| {
                Ok(SeatRow {
                    seat: seat_of(r.get(0)?)?,
                    name: r.get(1)?,
                    email: r.get(2)?,
                    public_key: r.get(3)?,
                    draw_offer: r.get::<_, i64>(4)? != 0,
                    openpgp_key: r.get(5)?,
                })
            })?
            .collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// The seat of `game` whose token has this hash.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn seat_with_token(&self, game: &GameId, token_hash: &str) -> Result<Option<Seat>, StoreError> {
        let seat: Option<i64> = self
            .0
            .query_row(
                "SELECT seat FROM seats WHERE game_id = ?1 AND token_hash = ?2",
                params![game.as_str(), token_hash],
                |r| r.get(0),
            )
            .optional()?;
        seat.map(seat_of).transpose()
    }

    /// Records the new state and turn after a resolution.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn advance_game(&self, game: &GameId, state: &str, turn: u32, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE games SET state = ?2, turn = ?3, updated_at = ?4 WHERE id = ?1")?
            .execute(params![game.as_str(), state, turn, time_text(now)])?;
        Ok(())
    }

    /// Records the end of a game.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn end_game(&self, game: &GameId, outcome: Outcome, score: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        let winner = outcome.result.to_winner_code();
        self.0
            .prepare_cached(
                "UPDATE games SET result = ?2, winner = ?3, end_reason = ?4, updated_at = ?5 WHERE id = ?1",
            )?
            .execute(params![game.as_str(), score, winner, outcome.reason.as_str(), time_text(now)])?;
        Ok(())
    }

    /// Sets or clears a seat's draw offer.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_draw_offer(&self, game: &GameId, seat: Seat, offer: bool) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE seats SET draw_offer = ?3 WHERE game_id = ?1 AND seat = ?2")?
            .execute(params![game.as_str(), seat.index() as i64, i64::from(offer)])?;
        Ok(())
    }

    /// Sets or clears a seat's OpenPGP public key (issue 33).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_openpgp_key(&self, game: &GameId, seat: Seat, key: Option<&str>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE seats SET openpgp_key = ?3 WHERE game_id = ?1 AND seat = ?2")?
            .execute(params![game.as_str(), seat.index() as i64, key])?;
        Ok(())
    }

    /// Withdraws every draw offer of a game (a turn was played).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn clear_draw_offers(&self, game: &GameId) -> Result<(), StoreError> {
        // Only the seats that offer: SQLite writes every row an UPDATE matches,
        // changed or not, and a page written is a page in the WAL.
        self.0
            .prepare_cached("UPDATE seats SET draw_offer = 0 WHERE game_id = ?1 AND draw_offer <> 0")?
            .execute([game.as_str()])?;
        Ok(())
    }
}
