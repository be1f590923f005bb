//! The organiser's desk (issue 31): directors and their tournaments' games, and
//! the seat changes the director's tools make (a replaced player, a new token).

use super::sql::params;

use super::StoreError;
use super::sql::Res;
use super::tx::Tx;
use crate::ids::{GameId, TournamentId};
use crate::rules::Seat;

impl<'c> Tx<'c> {
    /// The games of `tournament` that exist, newest first.
    ///
    /// # Errors
    /// SQLite errors, a corrupt game id.
    pub fn tournament_game_ids(&self, tournament: &TournamentId) -> Result<Vec<GameId>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT g.id FROM tournament_games t JOIN games g ON g.id = t.game
             WHERE t.tournament = ?1 ORDER BY g.created_at DESC, g.id",
        )?;
        let ids = stmt.query_map([tournament.to_string()], |r| r.get::<_, String>(0))?.collect::<Res<Vec<_>>>()?;
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
                "UPDATE seats SET name = ?3, email = ?4, public_key = ?5, token_hash = ?6, draw_offer = 0, openpgp_key = NULL
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
