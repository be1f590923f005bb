//! The organiser's desk (issue 31): directors and their tournaments' games, and
//! the seat changes the director's tools make (a replaced player, a new token).

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use super::StoreError;
use super::tx::{QueryRowCached, Tx, time_text};
use crate::ids::{GameId, TournamentId};
use crate::rules::Seat;

fn tournament_id(text: String) -> Result<TournamentId, StoreError> {
    text.parse().map_err(|_| StoreError::Corrupt(format!("tournament id {text:?}")))
}

impl<'c> Tx<'c> {
    /// The director whose token has this hash: its tournament and name.
    ///
    /// # Errors
    /// SQLite errors, a corrupt tournament id.
    pub fn director(&self, token_hash: &str) -> Result<Option<(TournamentId, String)>, StoreError> {
        let row: Option<(String, String)> = self
            .0
            .query_row_cached("SELECT tournament, name FROM directors WHERE token_hash = ?1", [token_hash], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        row.map(|(t, name)| Ok((tournament_id(t)?, name))).transpose()
    }

    /// Names a director of `tournament`, whose token has the hash `token_hash`.
    ///
    /// # Errors
    /// SQLite errors (an unknown tournament among them).
    pub fn insert_director(
        &self,
        token_hash: &str,
        tournament: &TournamentId,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached("INSERT INTO directors (token_hash, tournament, name, created_at) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![token_hash, tournament.to_string(), name, time_text(now)])?;
        Ok(())
    }

    /// The tournament `game` belongs to, if any.
    ///
    /// # Errors
    /// SQLite errors, a corrupt tournament id.
    pub fn tournament_of_game(&self, game: &GameId) -> Result<Option<TournamentId>, StoreError> {
        let t: Option<String> = self
            .0
            .query_row_cached("SELECT tournament FROM tournament_games WHERE game = ?1", [game.as_str()], |r| r.get(0))
            .optional()?;
        t.map(tournament_id).transpose()
    }

    /// The games of `tournament` that exist, newest first.
    ///
    /// # Errors
    /// SQLite errors, a corrupt game id.
    pub fn tournament_game_ids(&self, tournament: &TournamentId) -> Result<Vec<GameId>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT g.id FROM tournament_games t JOIN games g ON g.id = t.game
             WHERE t.tournament = ?1 ORDER BY g.created_at DESC, g.id",
        )?;
        let ids = stmt
            .query_map([tournament.to_string()], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        ids.into_iter()
            .map(|id| id.parse().map_err(|e: crate::ids::BadGameId| StoreError::Corrupt(e.to_string())))
            .collect()
    }

    /// Puts a new player into `seat` of `game`: name, address, key and the hash
    /// of a new token (the old token stops working); the draw offer lapses.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn replace_seat_player(
        &self,
        game: &GameId,
        seat: Seat,
        name: &str,
        email: &str,
        public_key: Option<&str>,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "UPDATE seats SET name = ?3, email = ?4, public_key = ?5, token_hash = ?6, draw_offer = 0
                 WHERE game_id = ?1 AND seat = ?2",
            )?
            .execute(params![game.as_str(), seat.index() as i64, name, email, public_key, token_hash])?;
        Ok(())
    }

    /// Gives `seat` of `game` a new token (by its hash): the old one stops working.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_seat_token(&self, game: &GameId, seat: Seat, token_hash: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE seats SET token_hash = ?3 WHERE game_id = ?1 AND seat = ?2")?
            .execute(params![game.as_str(), seat.index() as i64, token_hash])?;
        Ok(())
    }
}
