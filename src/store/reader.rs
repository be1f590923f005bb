//! Reads beside the store thread: a read-only connection of its own, for work
//! that must not queue behind the moves (nor make them queue behind it).
//!
//! The outbox drainer reads a board mail's record with it as it formats the
//! mail, on a background thread. Only facts that never change once committed
//! are read here (a turn's settled moves), and only for rows the drainer got
//! from the store thread, so after their commit was synced: what this reads is
//! on disk, and reads the same whenever it runs (a resend stays byte for byte).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags};

use super::tx::seat_of;
use super::{SettledMove, StoreError};
use crate::ids::GameId;

/// Pages the reader keeps in memory (SQLite's unit: negative is KiB): it reads
/// one game's moves at a time.
const READER_CACHE_KIB: i64 = 1024;

/// A read-only connection to the store's database, opened on first use; cheap
/// to share (`Arc`), one read at a time. On PostgreSQL (issue 35) the reads
/// go through the store itself, whose connections do not block each other as
/// SQLite's one writer would.
#[derive(Debug)]
pub struct Reader {
    source: Source,
}

#[derive(Debug)]
enum Source {
    Sqlite { path: PathBuf, conn: Mutex<Option<Connection>> },
    Store(super::Store),
}

/// The moves a board mail's record shows (see [`Reader::settled_moves`]).
const SETTLED_MOVES: &str = "SELECT turn, seat, notation, status, reason FROM moves
     WHERE game_id = ?1 AND turn <= ?2 AND status <> 'pending' ORDER BY turn, seat";

fn settled_moves_in(conn: super::sql::Conn<'_>, game: &GameId, through: u32) -> Result<Vec<SettledMove>, StoreError> {
    conn.prepare_cached(SETTLED_MOVES)?
        .query_map(super::sql::params![game.as_str(), through], |r| {
            Ok(SettledMove {
                turn: r.get(0)?,
                seat: seat_of(r.get(1)?)?,
                notation: r.get(2)?,
                status: r.get(3)?,
                reason: r.get(4)?,
            })
        })?
        .collect()
}

impl Reader {
    /// A reader of the SQLite database at `path` (not opened until it reads).
    pub fn new(path: &Path) -> Reader {
        Reader { source: Source::Sqlite { path: path.to_owned(), conn: Mutex::new(None) } }
    }

    /// A reader of `store`'s database: a connection of its own on SQLite,
    /// the store's own on PostgreSQL.
    pub fn of(store: &super::Store) -> Reader {
        match store.backend() {
            super::Backend::Sqlite => Reader::new(store.path()),
            super::Backend::Postgres => Reader { source: Source::Store(store.clone()) },
        }
    }

    fn open(path: &Path) -> Result<Connection, StoreError> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI,
        )?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        conn.pragma_update(None, "cache_size", -READER_CACHE_KIB)?;
        // As on the store's connection: a cached statement keeps its plan.
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        Ok(conn)
    }

    /// The settled moves of `game` up to turn `through`, in the order they were
    /// made (by turn, then seat): the record a board mail of that turn shows.
    /// Blocks: call it off the async threads.
    ///
    /// # Errors
    /// Store errors (the database cannot be opened or read now) or a corrupt row.
    pub fn settled_moves(&self, game: &GameId, through: u32) -> Result<Vec<SettledMove>, StoreError> {
        let game = game.clone();
        self.read(move |conn| settled_moves_in(conn, &game, through))
    }

    /// Runs `read` on the reader's connection (on PostgreSQL, in a
    /// transaction of the store's). Blocks: call it off the async threads.
    ///
    /// # Errors
    /// The database cannot be opened or read now, or `read`'s own error.
    pub(super) fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(super::sql::Conn<'_>) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (path, conn) = match &self.source {
            Source::Store(store) => return store.transaction_blocking(move |tx| read(tx.0)),
            Source::Sqlite { path, conn } => (path, conn),
        };
        let mut guard = conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if guard.is_none() {
            *guard = Some(Reader::open(path)?);
        }
        let conn = guard.as_ref().expect("opened above");
        let result = read(super::sql::Conn::Sqlite(conn));
        if result.is_err() {
            // Opened afresh next time (the file may have been replaced by a restore).
            *guard = None;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MoveRow, Store};

    fn game_id() -> GameId {
        "RDR234".parse().unwrap()
    }

    fn mv(turn: u32, seat: u8, notation: &str, status: &str) -> MoveRow {
        MoveRow {
            turn,
            seat: crate::rules::Seat::new(seat),
            receipt: format!("r{turn}{seat}"),
            entered: notation.to_owned(),
            canonical: notation.to_owned(),
            notation: notation.to_owned(),
            received_at: chrono::Utc::now(),
            status: status.to_owned(),
            reason: None,
            completes: false,
            held: None,
            envelope: None,
            nonce: None,
        }
    }

    #[tokio::test]
    async fn the_reader_sees_committed_settled_moves_up_to_a_turn_and_nothing_pending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = Store::open(&path).unwrap();
        let game = game_id();
        let g = game.clone();
        store
            .transaction(move |tx| {
                tx.insert_game(&crate::store::GameRow {
                    id: g.clone(),
                    variant: crate::rules::VariantId::Chess,
                    options: crate::rules::Options::new(),
                    auth: crate::protocol::policy::Auth::Token,
                    secrecy: crate::protocol::policy::Secrecy::Hold,
                    spectator_delay: 0,
                    openpgp_tofu: false,
                    state: String::new(),
                    turn: 5,
                    outcome: None,
                    created_at: chrono::Utc::now(),
                    updated_at: chrono::Utc::now(),
                })?;
                for (turn, seat, n, status) in
                    [(1, 0, "e4", "played"), (2, 1, "e5", "played"), (3, 0, "Nf3", "played"), (4, 1, "Nc6", "pending")]
                {
                    tx.insert_move(&g, &mv(turn, seat, n, "pending"))?;
                    if status != "pending" {
                        tx.settle_move(&g, turn, crate::rules::Seat::new(seat), status, None)?;
                    }
                }
                Ok::<_, StoreError>(())
            })
            .await
            .unwrap();
        let reader = Reader::new(&path);
        let through_2: Vec<String> = reader.settled_moves(&game, 2).unwrap().into_iter().map(|m| m.notation).collect();
        assert_eq!(through_2, ["e4", "e5"]);
        let all: Vec<String> = reader.settled_moves(&game, 9).unwrap().into_iter().map(|m| m.notation).collect();
        assert_eq!(all, ["e4", "e5", "Nf3"], "the pending move is not in the record");
        // The reader cannot write: it is opened read-only.
        let Source::Sqlite { conn, .. } = &reader.source else { unreachable!("a SQLite reader") };
        let guard = conn.lock().unwrap();
        let err = guard.as_ref().unwrap().execute("DELETE FROM moves", []).unwrap_err();
        assert!(err.to_string().contains("readonly"), "{err}");
    }
}
