//! The outbox: mails queued in the steward's transaction, sent and marked by the drainer.

use super::sql::{OptionalExtension, Res, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, time_text};
use crate::ids::GameId;

/// A queued mail.
#[derive(Clone, Debug)]
pub struct OutboxRow {
    /// Row id.
    pub id: i64,
    /// The stable Message-ID (without angle brackets).
    pub message_id: String,
    /// The game it is about.
    pub game_id: String,
    /// The recipient's address.
    pub recipient: String,
    /// The subject line.
    pub subject: String,
    /// The formatted RFC 5322 message; when `sealed`, sealed to the steward's
    /// own key ([`crate::protocol::seal_record`], label [`OUTBOX_LABEL`]) and
    /// opened only by the drainer as it hands the mail over.
    pub message: Vec<u8>,
    /// The mail as what to say (a `letters::compose::Letter` as JSON),
    /// while `message` is empty: the outbox drainer formats it off the store
    /// thread for every handover (to the same bytes each time), and the mark
    /// that it was sent drops it.
    pub letter: Option<String>,
    /// Whether `message` is sealed (an answer that may name a pending move).
    pub sealed: bool,
    /// The board picture the message carries: the message holds a placeholder
    /// where the outbox drainer puts the stored PNG (see `letters::compose`).
    pub picture: Option<super::BoardPicture>,
}

#[cfg(test)]
impl OutboxRow {
    /// A plain mail number `n` of game 8KQ2ZJ to alice, carrying `picture` (for tests).
    pub(crate) fn sample(n: usize, picture: Option<super::BoardPicture>) -> OutboxRow {
        OutboxRow {
            id: 0,
            message_id: format!("8KQ2ZJ.{n}.0.turn@steward.example"),
            game_id: "8KQ2ZJ".into(),
            recipient: "alice@example.org".into(),
            subject: format!("mail {n}"),
            message: format!("Subject: mail {n}\r\n\r\nbody {n}\r\n").into_bytes(),
            letter: None,
            sealed: false,
            picture,
        }
    }
}

/// The columns [`outbox_row`] reads.
const OUTBOX_COLUMNS: &str = "id, message_id, game_id, recipient, subject, message, sealed, picture, letter";

fn outbox_row(r: &super::sql::Row<'_>) -> Res<OutboxRow> {
    Ok(OutboxRow {
        id: r.get(0)?,
        message_id: r.get(1)?,
        game_id: r.get(2)?,
        recipient: r.get(3)?,
        subject: r.get(4)?,
        message: r.get(5)?,
        sealed: r.get(6)?,
        picture: r.get::<_, Option<String>>(7)?.map(|key| super::BoardPicture { key, source: None }),
        letter: r.get(8)?,
    })
}

/// The label under which sealed outbox messages are sealed.
pub const OUTBOX_LABEL: &str = "outbox";

/// A game's newest board mail to a seat (see [`Tx::latest_board_mail`]).
const LATEST_BOARD_MAIL: &str = "SELECT message_id, subject FROM outbox
     WHERE message_id >= ?4 AND message_id < ?5 AND game_id = ?1 AND (message_id LIKE ?2 OR message_id LIKE ?3)
     ORDER BY id DESC LIMIT 1";

/// The range of Message-IDs of `game`'s mails, `[from, to)`: each begins with
/// the game's id and a dot (`8KQ2ZJ.12.0.turn@…`), so the Message-ID's own
/// index finds them (the outbox keeps no index by game).
pub(super) fn game_mails(game: &GameId) -> (String, String) {
    (format!("{game}."), format!("{game}/"))
}

impl<'c> Tx<'c> {
    /// Queues a mail, and keeps the board picture it carries unless that is
    /// stored already; a mail with the same Message-ID is queued only once.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn queue_mail(&self, m: &OutboxRow, now: DateTime<Utc>) -> Result<(), StoreError> {
        if let Some(picture) = &m.picture {
            self.keep_picture(picture, now)?;
        }
        self.0.prepare_cached(
            "INSERT INTO outbox (message_id, game_id, recipient, subject, message, sealed, created_at, picture, letter)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT DO NOTHING",
        )?
        .execute(params![
            m.message_id,
            m.game_id,
            m.recipient,
            m.subject,
            m.message,
            m.sealed,
            time_text(now),
            m.picture.as_ref().map(|p| p.key.as_str()),
            m.letter
        ])?;
        Ok(())
    }

    /// The newest board mail (the game's start or a turn's board) queued for
    /// `seat` of `game`: its Message-ID (without angle brackets) and subject.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn latest_board_mail(&self, game: &GameId, seat: usize) -> Result<Option<(String, String)>, StoreError> {
        let (turn, started) = (format!("{game}.%.{seat}.turn@%"), format!("{game}.%.{seat}.started@%"));
        let (from, to) = game_mails(game);
        self.0
            .query_row(LATEST_BOARD_MAIL, params![game.as_str(), turn, started, from, to], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
    }

    /// Mails not yet sent, oldest first.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn unsent_mail(&self, limit: u32) -> Result<Vec<OutboxRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(&format!(
            "SELECT {OUTBOX_COLUMNS} FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT ?1"
        ))?;
        stmt.query_map([limit], outbox_row)?.collect()
    }

    /// Claims for `holder`, until `until`, the oldest mails not yet sent with
    /// a row id above `after` that no other steward holds a claim on (a claim
    /// lapsed before `now` is no claim), and returns them, oldest first. The
    /// outbox drainer pages through the queue with it, so mails it holds back
    /// (refused by the server) never keep newer ones waiting; stewards sharing
    /// a database (issue 35) each send only what they claimed, and on
    /// PostgreSQL a mail another steward is claiming at this moment is skipped,
    /// not waited for. With `take_claimed`, mails other stewards hold claims on
    /// are taken too (for the spool, where writing one twice changes nothing).
    ///
    /// # Errors
    /// Store errors.
    pub fn claim_unsent_mail_after(
        &self,
        after: i64,
        limit: u32,
        holder: &str,
        (now, until): (DateTime<Utc>, DateTime<Utc>),
        take_claimed: bool,
    ) -> Result<Vec<OutboxRow>, StoreError> {
        let lock = match self.backend() {
            super::Backend::Sqlite => "",
            super::Backend::Postgres => "FOR UPDATE SKIP LOCKED",
        };
        let mut stmt = self.0.prepare_cached(&format!(
            "UPDATE outbox SET claimed_by = ?3, claimed_until = ?5
             WHERE id IN (SELECT id FROM outbox
                          WHERE sent_at IS NULL AND id > ?1
                            AND (?6 <> 0 OR claimed_until IS NULL OR claimed_until < ?4 OR claimed_by = ?3)
                          ORDER BY id LIMIT ?2 {lock})
             RETURNING {OUTBOX_COLUMNS}"
        ))?;
        let mut rows: Vec<OutboxRow> = stmt
            .query_map(params![after, limit, holder, time_text(now), time_text(until), take_claimed], outbox_row)?
            .collect::<Res<_>>()?;
        // RETURNING keeps no order.
        rows.sort_unstable_by_key(|r| r.id);
        Ok(rows)
    }

    /// Marks a mail delivered.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_sent(&self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.mark_sent_many(&[id], now)
    }

    /// Marks several mails delivered, in this one transaction: the drainer records
    /// a batch of accepted mails with one commit (one fsync) instead of one each.
    /// A delivered mail's bytes or letter are dropped: it is never sent again, and its row
    /// keeps who it went to, what it was about and when (its Message-ID,
    /// recipient, subject and times), so the store grows by a few hundred bytes
    /// per mail, not by the mail.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_sent_many(&self, ids: &[i64], now: DateTime<Utc>) -> Result<(), StoreError> {
        let mut stmt = self.0.prepare_cached(
            "UPDATE outbox SET sent_at = ?2, attempts = attempts + 1, last_error = NULL, message = ?3, letter = NULL
             WHERE id = ?1",
        )?;
        let (now, nothing) = (time_text(now), Vec::<u8>::new());
        for id in ids {
            stmt.execute(params![id, now, nothing])?;
        }
        Ok(())
    }

    /// Records a failed delivery attempt.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_failed(&self, id: i64, error: &str) -> Result<(), StoreError> {
        self.0
            .execute("UPDATE outbox SET attempts = attempts + 1, last_error = ?2 WHERE id = ?1", params![id, error])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// The outbox keeps no index by game or by recipient for every mail (each
    /// was a page written at a random place per queued mail): a game's mails
    /// are a range of the Message-ID's index, and the answers to an address
    /// have a partial index of their own. No lookup scans the outbox.
    #[test]
    fn the_outbox_lookups_use_the_message_id_and_the_answers_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let (indexes, plans) = store
            .transaction_blocking(|tx| {
                let plan = |sql: &str, n: usize| -> Res<String> {
                    let mut stmt = tx.0.prepare_cached(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                    let params: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
                    let rows = stmt
                        .query_map(crate::store::sql::params_from_iter(params), |r| r.get::<_, String>(3))?
                        .collect::<Res<Vec<_>>>()?;
                    Ok(rows.join("\n"))
                };
                let mut stmt =
                    tx.0.prepare_cached("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'")?;
                let indexes = stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<Res<Vec<_>>>()?;
                let plans = vec![plan(LATEST_BOARD_MAIL, 5)?, plan(super::super::senders::SENDER_NOTICES_SINCE, 5)?];
                Ok::<_, StoreError>((indexes, plans))
            })
            .unwrap();
        let mut indexes = indexes;
        indexes.sort();
        assert_eq!(indexes, ["outbox_picture", "outbox_unsent", "sqlite_autoindex_outbox_1"]);
        for (plan, index) in plans.iter().zip(["sqlite_autoindex_outbox_1", "sqlite_autoindex_outbox_1"]) {
            assert!(plan.contains(&format!("SEARCH outbox USING INDEX {index}")), "{plan}");
            assert!(!plan.contains("SCAN outbox"), "{plan}");
        }
        let (from, to) = game_mails(&"8KQ2ZJ".parse().unwrap());
        assert!(from.as_str() < "8KQ2ZJ.0.1.started@x" && "8KQ2ZJ.999.3.turn@x" < to.as_str());
        assert!(!("8KQ2ZJA.1.0.turn@x" >= from.as_str() && "8KQ2ZJA.1.0.turn@x" < to.as_str()), "another game's");
    }
}
