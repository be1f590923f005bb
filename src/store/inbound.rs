//! The inbound messages kept for disputes, and the mails the mail door has seen.

use super::sql::{OptionalExtension, Res, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, parse_time, time_text};
use crate::ids::GameId;

/// The most of an inbound message kept for disputes.
pub const INBOUND_CAP: usize = 64 * 1024;

/// The label under which sealed inbound messages are sealed.
pub const INBOUND_LABEL: &str = "inbound";

/// A raw inbound message as kept for disputes.
#[derive(Clone, Debug)]
pub struct InboundRow {
    /// Row id.
    pub id: i64,
    /// When it came.
    pub received_at: DateTime<Utc>,
    /// `http` or `mail`.
    pub door: String,
    /// The game it was for, when known.
    pub game_id: Option<String>,
    /// Its full size in bytes (the body holds at most [`INBOUND_CAP`]).
    pub size: i64,
    /// The kept bytes; when `sealed`, sealed to the steward's own key (label
    /// [`INBOUND_LABEL`]).
    pub body: Vec<u8>,
    /// Whether `body` is sealed.
    pub sealed: bool,
    /// `accepted`, `refused: <code>`, `mail: …`, `ignored: …`.
    pub outcome: String,
}

impl<'c> Tx<'c> {
    /// Keeps a raw inbound message (`id` is ignored: a new one is given). The
    /// caller cuts the body to [`INBOUND_CAP`] bytes and seals it.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_inbound(&self, row: &InboundRow) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO inbound (received_at, door, game_id, size, body, sealed, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                time_text(row.received_at),
                row.door,
                row.game_id,
                row.size,
                row.body,
                row.sealed,
                row.outcome
            ])?;
        Ok(())
    }

    /// The kept inbound messages, oldest first: all, or those of one game.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn inbound(&self, game: Option<&GameId>) -> Result<Vec<InboundRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT id, received_at, door, game_id, size, body, sealed, outcome FROM inbound
             WHERE CAST(?1 AS TEXT) IS NULL OR game_id = ?1 ORDER BY id",
        )?;
        let rows = stmt
            .query_map([game.map(GameId::as_str)], |r| {
                Ok(InboundRow {
                    id: r.get(0)?,
                    received_at: parse_time(&r.get::<_, String>(1)?)?,
                    door: r.get(2)?,
                    game_id: r.get(3)?,
                    size: r.get(4)?,
                    body: r.get(5)?,
                    sealed: r.get(6)?,
                    outcome: r.get(7)?,
                })
            })?
            .collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// How many inbound messages are kept.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn count_inbound(&self) -> Res<i64> {
        self.0.prepare_cached("SELECT COUNT(*) FROM inbound")?.query_row([], |r| r.get(0))
    }

    /// Whether the mail door handled a mail with this key before.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mail_seen(&self, key: &str) -> Result<bool, StoreError> {
        if self.backend() == super::Backend::Postgres {
            // Stewards sharing a database (issue 35) may be handed the same
            // mail at once: the second waits here until the first commits,
            // then finds it seen, so a mail is handled once.
            self.0.query_row("SELECT pg_advisory_xact_lock(hashtext(?1))", [key], |_| Ok(()))?;
        }
        Ok(self
            .0
            .prepare_cached("SELECT 1 FROM mail_seen WHERE key = ?1")?
            .query_row([key], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Records a mail the door handled.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_mail_seen(&self, key: &str, at: DateTime<Utc>, outcome: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached("INSERT INTO mail_seen (key, seen_at, outcome) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")?
            .execute(params![key, time_text(at), outcome])?;
        Ok(())
    }
}
