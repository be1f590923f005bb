//! The store's operations for mail senders (migration 5): confirmed aliases of a
//! player's address, and requests for an alias or a change of a seat's address
//! that wait for the reply to their confirmation mail.

use super::sql::{OptionalExtension, Res, params};
use chrono::{DateTime, Utc};

use super::StoreError;

/// How many notices about a foreign sender went to a seat lately (see
/// [`Tx::sender_notices_since`]): a range of the Message-ID's index.
pub(super) const SENDER_NOTICES_SINCE: &str = "SELECT COUNT(*) FROM outbox
     WHERE message_id >= ?4 AND message_id < ?5 AND game_id = ?1 AND message_id LIKE ?2 AND created_at >= ?3";
use super::tx::{Tx, corrupt, parse_time, seat_of, time_text};
use crate::ids::GameId;
use crate::rules::Seat;

/// What an address request asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AddressKind {
    /// Another address the player may act from, besides the registered one.
    Alias,
    /// A new registered address for the seat.
    Email,
}

impl AddressKind {
    /// The stored name: `alias` or `email`.
    pub fn name(self) -> &'static str {
        match self {
            AddressKind::Alias => "alias",
            AddressKind::Email => "email",
        }
    }

    fn parse(text: &str) -> Res<AddressKind> {
        match text {
            "alias" => Ok(AddressKind::Alias),
            "email" => Ok(AddressKind::Email),
            other => Err(corrupt(format!("address request kind {other:?}"))),
        }
    }
}

/// A request for an alias or a change of address, as stored.
#[derive(Clone, Debug)]
pub struct AddressRequestRow {
    /// Row id; named in the confirmation address.
    pub id: i64,
    /// Alias or change of address.
    pub kind: AddressKind,
    /// The game it was asked in.
    pub game: GameId,
    /// The seat it was asked for.
    pub seat: Seat,
    /// The seat's registered address when it was asked, lower case.
    pub player: String,
    /// The new address, as given.
    pub address: String,
    /// When it was asked.
    pub requested_at: DateTime<Utc>,
    /// When the reply to the confirmation mail came; `None` until then.
    pub confirmed_at: Option<DateTime<Utc>>,
}

impl Tx<'_> {
    /// Whether `alias` (lower case) is a confirmed alias of `player` (lower case).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn is_alias(&self, player: &str, alias: &str) -> Result<bool, StoreError> {
        Ok(self
            .0
            .query_row("SELECT 1 FROM aliases WHERE player = ?1 AND alias = ?2", params![player, alias], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// The confirmed aliases of `player` (lower case), in order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn aliases_of(&self, player: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT alias FROM aliases WHERE player = ?1 ORDER BY alias")?;
        let rows = stmt.query_map([player], |r| r.get(0))?.collect::<Res<Vec<String>>>()?;
        Ok(rows)
    }

    /// Records a confirmed alias (both lower case); a second time changes nothing.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_alias(&self, player: &str, alias: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO aliases (player, alias, confirmed_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            )?
            .execute(params![player, alias, time_text(at)])?;
        Ok(())
    }

    /// Stores a new address request; returns its id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_address_request(
        &self,
        kind: AddressKind,
        game: &GameId,
        seat: Seat,
        player: &str,
        address: &str,
        at: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        self.0.query_row(
            "INSERT INTO address_requests (kind, game_id, seat, player, address, requested_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
            params![kind.name(), game.as_str(), seat.index() as i64, player, address, time_text(at)],
            |r| r.get(0),
        )
    }

    /// How many address requests were made for `seat` of `game` since `since`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn address_requests_since(&self, game: &GameId, seat: Seat, since: DateTime<Utc>) -> Result<u32, StoreError> {
        self.0
            .prepare_cached(
                "SELECT COUNT(*) FROM address_requests WHERE game_id = ?1 AND seat = ?2 AND requested_at >= ?3",
            )?
            .query_row(params![game.as_str(), seat.index() as i64, time_text(since)], |r| r.get(0))
    }

    /// The address request with this id.
    ///
    /// # Errors
    /// SQLite errors; a stored value that does not read back.
    pub fn address_request(&self, id: i64) -> Result<Option<AddressRequestRow>, StoreError> {
        let row = self
            .0
            .query_row(
                "SELECT id, kind, game_id, seat, player, address, requested_at, confirmed_at
                 FROM address_requests WHERE id = ?1",
                [id],
                |r| {
                    let game: String = r.get(2)?;
                    let confirmed: Option<String> = r.get(7)?;
                    Ok(AddressRequestRow {
                        id: r.get(0)?,
                        kind: AddressKind::parse(&r.get::<_, String>(1)?)?,
                        game: game.parse().map_err(|_| corrupt(format!("game id {game:?}")))?,
                        seat: seat_of(r.get(3)?)?,
                        player: r.get(4)?,
                        address: r.get(5)?,
                        requested_at: parse_time(&r.get::<_, String>(6)?)?,
                        confirmed_at: confirmed.as_deref().map(parse_time).transpose()?,
                    })
                },
            )
            .optional()?;
        Ok(row)
    }

    /// Marks an address request confirmed.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn confirm_address_request(&self, id: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE address_requests SET confirmed_at = ?2 WHERE id = ?1")?
            .execute(params![id, time_text(at)])?;
        Ok(())
    }

    /// Changes the registered address of `seat` in `game`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_seat_email(&self, game: &GameId, seat: Seat, email: &str) -> Result<(), StoreError> {
        self.0.prepare_cached("UPDATE seats SET email = ?3 WHERE game_id = ?1 AND seat = ?2")?.execute(params![
            game.as_str(),
            seat.index() as i64,
            email
        ])?;
        Ok(())
    }

    /// How many notices about a foreign sender went to `seat` of `game` since
    /// `since` (outbox Message-IDs `GAME.turn.seat.sender-…`).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn sender_notices_since(&self, game: &GameId, seat: Seat, since: DateTime<Utc>) -> Result<u32, StoreError> {
        let (from, to) = super::outbox::game_mails(game);
        self.0.prepare_cached(SENDER_NOTICES_SINCE)?.query_row(
            params![game.as_str(), format!("{game}.%.{}.sender-%", seat.index()), time_text(since), from, to],
            |r| r.get(0),
        )
    }
}
