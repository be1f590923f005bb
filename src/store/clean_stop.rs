//! The token of the last clean stop (issue 37). `serve` writes a new random
//! token into `store_state` as the last thing it does before it exits
//! cleanly, and the same token into the data directory's `store-stopped`
//! file. At the next start, the two agreeing show that the database is the
//! one that stop left, so its full integrity check may run beside the first
//! requests instead of before them; a crash, a restored or copied database, or
//! any other file in its place shows otherwise, and the check runs first.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::{StoreError, Tx};

/// The token's name in `store_state`.
const CLEAN_STOP: &str = "clean_stop";

/// The data directory's file holding the token of the last clean stop of
/// `serve`, the same token as the database's ([`clean_stop_token`]). Never
/// part of a backup set: a restored database is checked before serving.
pub const CLEAN_STOP_FILE: &str = "store-stopped";

impl Tx<'_> {
    /// Records `token` as the token of this clean stop.
    ///
    /// # Errors
    /// Store failures.
    pub fn record_clean_stop(&self, token: &str) -> Result<(), StoreError> {
        self.set_store_state(CLEAN_STOP, token)
    }
}

/// The clean-stop token recorded in the SQLite database at `path`, read on a
/// read-only connection of its own; `None` when there is none or the file does
/// not read (a store of an earlier version, a damaged file).
pub fn clean_stop_token(path: &Path) -> Option<String> {
    let conn =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX).ok()?;
    conn.query_row("SELECT value FROM store_state WHERE name = ?1", [CLEAN_STOP], |r| r.get(0)).optional().ok()?
}

/// SQLite's `PRAGMA integrity_check` of the database at `path` on a read-only
/// connection of its own: beside a serving steward (in WAL mode a reader holds
/// up no writer).
///
/// # Errors
/// [`StoreError::Damaged`] with the first problem found, or where SQLite calls
/// the file corrupt or not a database, as the check before serving does; other
/// store errors when the file cannot be read.
pub fn check_integrity(path: &Path) -> Result<(), StoreError> {
    let damaged = super::damaged_when_corrupt(path, "integrity_check");
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| damaged(e.into()))?;
    super::integrity(&conn, path, "integrity_check").map_err(damaged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn the_token_reads_back_and_a_store_without_one_has_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = Store::open(&path).unwrap();
        assert_eq!(clean_stop_token(&path), None);
        store.transaction_blocking(|tx| tx.record_clean_stop("a1b2")).unwrap();
        assert_eq!(clean_stop_token(&path).as_deref(), Some("a1b2"));
        store.transaction_blocking(|tx| tx.record_clean_stop("c3d4")).unwrap();
        assert_eq!(clean_stop_token(&path).as_deref(), Some("c3d4"));
        assert!(check_integrity(&path).is_ok());
        assert_eq!(clean_stop_token(&dir.path().join("missing.db")), None);
    }
}
