//! The transcript: each game's hash-chained events and the steward's signatures over them.

use chrono::{DateTime, Utc};
use rusqlite::Transaction;

use super::sql::{OptionalExtension, Res, params};

use super::StoreError;
use super::tx::{Tx, corrupt, parse_time, time_text};
use crate::ids::GameId;
use crate::protocol::transcript::{Entry, GENESIS};

/// A transcript's newest entry: its sequence number, hash and signature
/// (`None` until the steward signs it); `None` for a game without entries.
pub type Head = Option<(u32, String, Option<String>)>;

/// One transcript entry.
#[derive(Clone, Debug)]
pub struct EventRow {
    /// Its place in the game's transcript, from 1.
    pub seq: u32,
    /// When it happened (server time).
    pub at: DateTime<Utc>,
    /// What happened.
    pub kind: String,
    /// The details.
    pub body: serde_json::Value,
    /// The previous entry's hash.
    pub prev: String,
    /// This entry's hash (see [`crate::protocol::transcript`]).
    pub hash: String,
    /// The steward's signature over this entry as a head, base64, if it signed one here.
    pub signature: Option<String>,
}

/// Links every transcript entry of every game into its hash chain (for
/// databases from before the chain existed).
pub(super) fn rechain_all(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let games: Vec<String> = tx
        .prepare("SELECT DISTINCT game_id FROM events")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for game in games {
        let rows: Vec<(u32, String, String, String)> = tx
            .prepare("SELECT seq, at, kind, body FROM events WHERE game_id = ?1 ORDER BY seq")?
            .query_map([&game], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut prev = GENESIS.to_owned();
        for (seq, at, kind, body) in rows {
            let hash = Entry { game: &game, seq, at: &at, kind: &kind, prev: &prev, body: &body }.hash();
            tx.execute(
                "UPDATE events SET prev_hash = ?3, hash = ?4 WHERE game_id = ?1 AND seq = ?2",
                rusqlite::params![game, seq, prev, hash],
            )?;
            prev = hash;
        }
    }
    Ok(())
}

impl<'c> Tx<'c> {
    /// Appends a transcript entry, linked to the one before, and returns its
    /// sequence number and hash.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn append_event(
        &self,
        game: &GameId,
        at: DateTime<Utc>,
        kind: &str,
        body: &serde_json::Value,
    ) -> Result<(u32, String), StoreError> {
        let (seq, prev) = match self.head(game)? {
            Some((seq, hash)) => (seq + 1, hash),
            None => (1, GENESIS.to_owned()),
        };
        let at = time_text(at);
        let body = body.to_string();
        let hash = Entry { game: game.as_str(), seq, at: &at, kind, prev: &prev, body: &body }.hash();
        self.0.prepare_cached(
            "INSERT INTO events (game_id, seq, at, kind, body, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?.execute(
            params![game.as_str(), seq, at, kind, body, prev, hash],
        )?;
        self.touch(game);
        self.2.heads.borrow_mut().insert(game.clone(), Some((seq, hash.clone(), None)));
        Ok((seq, hash))
    }

    /// The newest transcript entry of a game: its sequence number and hash.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn head(&self, game: &GameId) -> Result<Option<(u32, String)>, StoreError> {
        Ok(self.head_and_signature(game)?.map(|(seq, hash, _)| (seq, hash)))
    }

    /// The newest transcript entry of a game: its sequence number, hash and
    /// signature (`None` until the steward signs it).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn head_and_signature(&self, game: &GameId) -> Result<Head, StoreError> {
        // Only a head this transaction wrote is remembered: one merely read
        // may be overtaken by another steward's entry before the game's row
        // is locked, and must then be read again.
        if let Some(head) = self.2.heads.borrow().get(game) {
            return Ok(head.clone());
        }
        self.0
            .query_row(
                "SELECT seq, hash, signature FROM events WHERE game_id = ?1 ORDER BY seq DESC LIMIT 1",
                [game.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
    }

    /// The newest entry the steward signed: its place, hash and signature.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn signed_head(&self, game: &GameId) -> Result<Option<(u32, String, String)>, StoreError> {
        self
            .0
            .query_row(
                "SELECT seq, hash, signature FROM events WHERE game_id = ?1 AND signature IS NOT NULL ORDER BY seq DESC LIMIT 1",
                [game.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
    }

    /// The hash of the transcript entry that records `receipt`.
    ///
    /// # Errors
    /// SQLite errors; a receipt without an entry is a corrupt store.
    pub fn entry_with_receipt(&self, game: &GameId, receipt: &str) -> Result<String, StoreError> {
        let sql = match self.backend() {
            super::Backend::Sqlite => {
                "SELECT hash FROM events WHERE game_id = ?1 AND json_extract(body, '$.receipt') = ?2 ORDER BY seq LIMIT 1"
            }
            super::Backend::Postgres => {
                "SELECT hash FROM events WHERE game_id = ?1 AND (body::jsonb ->> 'receipt') = ?2 ORDER BY seq LIMIT 1"
            }
        };
        self.0
            .query_row(sql, params![game.as_str(), receipt], |r| r.get(0))
            .optional()?
            .ok_or_else(|| StoreError::Corrupt(format!("receipt {receipt} of {game} has no transcript entry")))
    }

    /// Stores the steward's signature over the head `seq`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn sign_event(&self, game: &GameId, seq: u32, signature: &str) -> Result<(), StoreError> {
        self.0.prepare_cached("UPDATE events SET signature = ?3 WHERE game_id = ?1 AND seq = ?2")?.execute(params![
            game.as_str(),
            seq,
            signature
        ])?;
        if let Some(Some((head, _, signed))) = self.2.heads.borrow_mut().get_mut(game)
            && *head == seq
        {
            *signed = Some(signature.to_owned());
        }
        Ok(())
    }

    /// The transcript of a game, in order.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn events(&self, game: &GameId) -> Result<Vec<EventRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT seq, at, kind, body, prev_hash, hash, signature FROM events WHERE game_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt
            .query_map([game.as_str()], |r| {
                let body: String = r.get(3)?;
                Ok(EventRow {
                    seq: r.get(0)?,
                    at: parse_time(&r.get::<_, String>(1)?)?,
                    kind: r.get(2)?,
                    body: serde_json::from_str(&body).map_err(|e| corrupt(e.to_string()))?,
                    prev: r.get(4)?,
                    hash: r.get(5)?,
                    signature: r.get(6)?,
                })
            })?
            .collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }
}
