//! Conditional lines (issue 32): a seat's lines are kept sealed, never in
//! clear; the steward opens them in memory when it sets, lists or fires them.

use super::sql::{OptionalExtension, Res, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, seat_of, time_text};
use crate::ids::GameId;
use crate::rules::Seat;

/// A seat's row of conditional lines.
#[derive(Clone, Debug)]
pub struct ConditionalRow {
    /// The seat.
    pub seat: Seat,
    /// The first turn whose moves of the others the lines' first conditions answer.
    pub from_turn: u32,
    /// The lines, sealed; `None` when none are kept.
    pub held: Option<Vec<u8>>,
    /// The sealed paragraph for the seat's next board mail.
    pub notice: Option<Vec<u8>>,
}

impl Tx<'_> {
    /// The conditional row of a seat, if any.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn conditional_of(&self, game: &GameId, seat: Seat) -> Result<Option<ConditionalRow>, StoreError> {
        self.0
            .query_row(
                "SELECT seat, from_turn, held, notice FROM conditional_lines WHERE game_id = ?1 AND seat = ?2",
                params![game.as_str(), seat.index() as i64],
                |r| {
                    Ok(ConditionalRow {
                        seat: seat_of(r.get(0)?)?,
                        from_turn: r.get(1)?,
                        held: r.get(2)?,
                        notice: r.get(3)?,
                    })
                },
            )
            .optional()
    }

    /// The seats of a game that hold conditional lines, in seat order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn conditional_seats(&self, game: &GameId) -> Result<Vec<Seat>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT seat FROM conditional_lines WHERE game_id = ?1 AND held IS NOT NULL ORDER BY seat",
        )?;
        let rows = stmt.query_map([game.as_str()], |r| seat_of(r.get(0)?))?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// Keeps a seat's lines (sealed) and the turn they start from; `None`
    /// clears them. The notice waiting for the next board mail is kept.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_conditional(
        &self,
        game: &GameId,
        seat: Seat,
        from_turn: u32,
        held: Option<&[u8]>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO conditional_lines (game_id, seat, from_turn, held, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (game_id, seat) DO UPDATE SET from_turn = ?3, held = ?4, updated_at = ?5",
            )?
            .execute(params![game.as_str(), seat.index() as i64, from_turn, held, time_text(now)])?;
        Ok(())
    }

    /// Forgets every seat's lines of a game that has ended (the notices
    /// waiting for the last board mail stay for it).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn forget_conditionals(&self, game: &GameId, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "UPDATE conditional_lines SET held = NULL, updated_at = ?2 WHERE game_id = ?1 AND held IS NOT NULL",
            )?
            .execute(params![game.as_str(), time_text(now)])?;
        Ok(())
    }

    /// Sets (or, with `None`, takes away) the sealed notice for a seat's next board mail.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_conditional_notice(
        &self,
        game: &GameId,
        seat: Seat,
        notice: Option<&[u8]>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO conditional_lines (game_id, seat, from_turn, notice, updated_at) VALUES (?1, ?2, 0, ?3, ?4)
                 ON CONFLICT (game_id, seat) DO UPDATE SET notice = ?3, updated_at = ?4",
            )?
            .execute(params![game.as_str(), seat.index() as i64, notice, time_text(now)])?;
        Ok(())
    }

    /// The seats of a game with a notice waiting, and the sealed notices.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn conditional_notices(&self, game: &GameId) -> Result<Vec<(Seat, Vec<u8>)>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT seat, notice FROM conditional_lines WHERE game_id = ?1 AND notice IS NOT NULL ORDER BY seat",
        )?;
        let rows =
            stmt.query_map([game.as_str()], |r| Ok((seat_of(r.get(0)?)?, r.get(1)?)))?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }
}
