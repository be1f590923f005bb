//! What the operator's metrics and health check read from the store when they
//! are asked (issue 36): the outbox's backlog, the games by state, and a
//! trivial query that says the store answers. Each is one cheap query that runs
//! on SQLite and on PostgreSQL alike, through a [`Reader`]: on SQLite a
//! connection of its own, so that it never queues behind the moves on the store
//! thread (nor holds them up); on PostgreSQL one of the store's connections.

use chrono::{DateTime, Utc};

use super::sql::{Conn, params};
use super::tx::parse_time;
use super::{Reader, StoreError};

/// The store's state as a scrape of the metrics shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Readings {
    /// Mails queued and not yet handed to the SMTP server or the spool.
    pub unsent_mails: u64,
    /// When the oldest of them was queued; `None` when none waits.
    pub oldest_unsent: Option<DateTime<Utc>>,
    /// Games not over yet.
    pub running_games: u64,
    /// Games over (a result, an adjudication or an abort).
    pub finished_games: u64,
}

/// The outbox's backlog: the partial index `outbox_unsent` (PostgreSQL) and
/// the few unsent rows keep it cheap however many mails were sent.
const OUTBOX_BACKLOG: &str = "SELECT count(*), min(created_at) FROM outbox WHERE sent_at IS NULL";
/// Every game, and those with a result (`count` of a column skips NULLs).
const GAMES_BY_STATE: &str = "SELECT count(*), count(result) FROM games";
/// A query that needs the store's tables and touches one index entry at most.
const ANSWERS: &str = "SELECT count(*) FROM games WHERE id = ?1";

fn readings_in(conn: Conn<'_>) -> Result<Readings, StoreError> {
    let (unsent_mails, oldest): (u64, Option<String>) =
        conn.query_row(OUTBOX_BACKLOG, params![], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let oldest_unsent = oldest.as_deref().map(parse_time).transpose()?;
    let (games, finished_games): (u64, u64) =
        conn.query_row(GAMES_BY_STATE, params![], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(Readings { unsent_mails, oldest_unsent, running_games: games.saturating_sub(finished_games), finished_games })
}

impl Reader {
    /// The outbox's backlog and the games by state, read now. Blocks: call
    /// it off the async threads.
    ///
    /// # Errors
    /// The database cannot be opened or read.
    pub fn readings(&self) -> Result<Readings, StoreError> {
        self.read(readings_in)
    }

    /// Whether the store answers: a trivial query on its tables. On SQLite a
    /// fresh reader opens the file again, so a database file that was removed
    /// or replaced under a running steward is noticed. Blocks: call it off the
    /// async threads.
    ///
    /// # Errors
    /// The database cannot be opened or read.
    pub fn answers(&self) -> Result<(), StoreError> {
        self.read(|conn| {
            let _: i64 = conn.query_row(ANSWERS, params![""], |r| r.get(0))?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn an_empty_store_reads_no_backlog_and_no_games_and_answers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let _store = Store::open(&path).unwrap();
        let reader = Reader::new(&path);
        assert_eq!(reader.readings().unwrap(), Readings::default());
        reader.answers().unwrap();
        // A database file that is gone does not answer.
        let gone = Reader::new(&dir.path().join("moved-away.db"));
        assert!(gone.answers().is_err());
    }
}
