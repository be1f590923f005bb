//! Tournaments (issue 31): the tournament, its players, the games it plans
//! (a game id once the game exists) and its directors. Migration 12's tables.

use super::sql::{OptionalExtension, Res, Row, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, corrupt, parse_time, time_text};
use crate::ids::{GameId, TournamentId};

/// A tournament as stored.
#[derive(Clone, Debug)]
pub struct TournamentRow {
    /// The id.
    pub id: TournamentId,
    /// Its name.
    pub name: String,
    /// The variant's name, as the registry spells it.
    pub variant: String,
    /// What else it was created with (options, leave, double, rounds, teams), as JSON.
    pub spec: serde_json::Value,
    /// `inviting`, `running` or `finished`.
    pub status: String,
    /// The end date: what is unfinished then is adjudicated.
    pub ends_at: Option<DateTime<Utc>>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// A player of a tournament as stored.
#[derive(Clone, Debug)]
pub struct TournamentPlayerRow {
    /// The player's index, 0.. in the order given.
    pub player: usize,
    /// The name.
    pub name: String,
    /// The mail address.
    pub email: String,
    /// The Ed25519 public key, base64, if given.
    pub public_key: Option<String>,
    /// The OpenPGP public key, armoured, if given (issue 33): every seat of
    /// the player's in the tournament's games gets it.
    pub openpgp_key: Option<String>,
    /// When the player withdrew.
    pub withdrawn_at: Option<DateTime<Utc>>,
}

/// A game a tournament plans, as stored.
#[derive(Clone, Debug)]
pub struct TournamentGameRow {
    /// Its place in the plan, 0..
    pub slot: usize,
    /// The round, 1..
    pub round: u32,
    /// The player in each seat.
    pub players: Vec<usize>,
    /// The game, once created.
    pub game: Option<GameId>,
    /// Left out of the standings (a withdrawal).
    pub cancelled: bool,
}

fn tournament_row(r: &Row<'_>) -> Res<TournamentRow> {
    let id: String = r.get("id")?;
    let spec: String = r.get("spec")?;
    Ok(TournamentRow {
        id: id.parse().map_err(|e: crate::ids::BadTournamentId| corrupt(e.to_string()))?,
        name: r.get("name")?,
        variant: r.get("variant")?,
        spec: serde_json::from_str(&spec).map_err(|e| corrupt(format!("tournament spec: {e}")))?,
        status: r.get("status")?,
        ends_at: r.get::<_, Option<String>>("ends_at")?.as_deref().map(parse_time).transpose()?,
        created_at: parse_time(&r.get::<_, String>("created_at")?)?,
    })
}

fn player_row(r: &Row<'_>) -> Res<TournamentPlayerRow> {
    Ok(TournamentPlayerRow {
        player: r.get::<_, i64>("player")? as usize,
        name: r.get("name")?,
        email: r.get("email")?,
        public_key: r.get("public_key")?,
        openpgp_key: r.get("openpgp_key")?,
        withdrawn_at: r.get::<_, Option<String>>("withdrawn_at")?.as_deref().map(parse_time).transpose()?,
    })
}

fn game_row(r: &Row<'_>) -> Res<TournamentGameRow> {
    let players: String = r.get("players")?;
    let game: Option<String> = r.get("game")?;
    Ok(TournamentGameRow {
        slot: r.get::<_, i64>("slot")? as usize,
        round: r.get("round")?,
        players: serde_json::from_str(&players).map_err(|e| corrupt(format!("planned players: {e}")))?,
        game: game.map(|g| g.parse().map_err(|e: crate::ids::BadGameId| corrupt(e.to_string()))).transpose()?,
        cancelled: r.get::<_, i64>("cancelled")? != 0,
    })
}

impl<'c> Tx<'c> {
    /// Stores a new tournament.
    ///
    /// # Errors
    /// SQLite errors (a duplicate id among them).
    pub fn insert_tournament(&self, t: &TournamentRow) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO tournaments (id, name, variant, spec, status, ends_at, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                t.id.as_str(),
                t.name,
                t.variant,
                t.spec.to_string(),
                t.status,
                t.ends_at.map(time_text),
                time_text(t.created_at)
            ])?;
        Ok(())
    }

    /// A tournament, if it exists.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn tournament(&self, id: &TournamentId) -> Result<Option<TournamentRow>, StoreError> {
        self.0
            .prepare_cached("SELECT * FROM tournaments WHERE id = ?1")?
            .query_row([id.as_str()], tournament_row)
            .optional()
    }

    /// Every tournament, newest first.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn tournaments(&self) -> Result<Vec<TournamentRow>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM tournaments ORDER BY created_at DESC, id")?;
        let rows = stmt.query_map([], tournament_row)?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// The running tournaments whose end date is at or before `now`.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn tournaments_past_end(&self, now: DateTime<Utc>) -> Result<Vec<TournamentRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT * FROM tournaments WHERE status = 'running' AND ends_at IS NOT NULL AND ends_at <= ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([time_text(now)], tournament_row)?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// Sets a tournament's status.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_tournament_status(&self, id: &TournamentId, status: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE tournaments SET status = ?2 WHERE id = ?1")?
            .execute(params![id.as_str(), status])?;
        Ok(())
    }

    /// Stores a player of a tournament.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_tournament_player(&self, id: &TournamentId, p: &TournamentPlayerRow) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO tournament_players (tournament, player, name, email, public_key, withdrawn_at, openpgp_key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                id.as_str(),
                p.player as i64,
                p.name,
                p.email,
                p.public_key,
                p.withdrawn_at.map(time_text),
                p.openpgp_key
            ])?;
        Ok(())
    }

    /// A tournament's players, in order.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn tournament_players(&self, id: &TournamentId) -> Result<Vec<TournamentPlayerRow>, StoreError> {
        let mut stmt =
            self.0.prepare_cached("SELECT * FROM tournament_players WHERE tournament = ?1 ORDER BY player")?;
        let rows = stmt.query_map([id.as_str()], player_row)?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// Marks a player withdrawn at `at`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn withdraw_tournament_player(
        &self,
        id: &TournamentId,
        player: usize,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE tournament_players SET withdrawn_at = ?3 WHERE tournament = ?1 AND player = ?2")?
            .execute(params![id.as_str(), player as i64, time_text(at)])?;
        Ok(())
    }

    /// Stores a planned game of a tournament.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_tournament_game(&self, id: &TournamentId, g: &TournamentGameRow) -> Result<(), StoreError> {
        let players = serde_json::Value::from(g.players.iter().map(|&p| p as u64).collect::<Vec<_>>()).to_string();
        self.0
            .prepare_cached(
                "INSERT INTO tournament_games (tournament, slot, round, players, game, cancelled)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                id.as_str(),
                g.slot as i64,
                g.round,
                players,
                g.game.as_ref().map(GameId::as_str),
                i64::from(g.cancelled)
            ])?;
        Ok(())
    }

    /// A tournament's planned games, in plan order.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn tournament_games(&self, id: &TournamentId) -> Result<Vec<TournamentGameRow>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM tournament_games WHERE tournament = ?1 ORDER BY slot")?;
        let rows = stmt.query_map([id.as_str()], game_row)?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// Records the game created for a planned slot.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_tournament_game(&self, id: &TournamentId, slot: usize, game: &GameId) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE tournament_games SET game = ?3 WHERE tournament = ?1 AND slot = ?2")?
            .execute(params![id.as_str(), slot as i64, game.as_str()])?;
        Ok(())
    }

    /// Leaves a planned game out of the standings (a withdrawal).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn cancel_tournament_game(&self, id: &TournamentId, slot: usize) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE tournament_games SET cancelled = 1 WHERE tournament = ?1 AND slot = ?2")?
            .execute(params![id.as_str(), slot as i64])?;
        Ok(())
    }

    /// The tournament a game belongs to, and its slot there.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn tournament_of_game(&self, game: &GameId) -> Result<Option<(TournamentId, usize)>, StoreError> {
        let row: Option<(String, i64)> = self
            .0
            .prepare_cached("SELECT tournament, slot FROM tournament_games WHERE game = ?1")?
            .query_row([game.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        row.map(|(t, slot)| {
            Ok((t.parse().map_err(|e: crate::ids::BadTournamentId| corrupt(e.to_string()))?, slot as usize))
        })
        .transpose()
    }

    /// Stores a director of a tournament, by the hash of its token.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_director(
        &self,
        token_hash: &str,
        tournament: &TournamentId,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached("INSERT INTO directors (token_hash, tournament, name, created_at) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![token_hash, tournament.as_str(), name, time_text(now)])?;
        Ok(())
    }

    /// The tournament and name of the director whose token hashes to `token_hash`.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn director(&self, token_hash: &str) -> Result<Option<(TournamentId, String)>, StoreError> {
        let row: Option<(String, String)> = self
            .0
            .prepare_cached("SELECT tournament, name FROM directors WHERE token_hash = ?1")?
            .query_row([token_hash], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        row.map(|(t, name)| Ok((t.parse().map_err(|e: crate::ids::BadTournamentId| corrupt(e.to_string()))?, name)))
            .transpose()
    }

    /// The names of a tournament's directors.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn directors_of(&self, tournament: &TournamentId) -> Result<Vec<String>, StoreError> {
        let mut stmt =
            self.0.prepare_cached("SELECT name FROM directors WHERE tournament = ?1 ORDER BY created_at, name")?;
        let rows = stmt.query_map([tournament.as_str()], |r| r.get(0))?.collect::<Res<Vec<String>>>()?;
        Ok(rows)
    }
}
