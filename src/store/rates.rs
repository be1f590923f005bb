//! Rates (migration 11): every action an outsider or a player can repeat that
//! makes mail or transcript entries is counted under a key naming whoever
//! spends it (a player, a seat, a proven sender), so the steward can refuse the
//! next one beyond its limit. A key's entries older than the longest window are
//! removed as new ones are written, so the table stays as small as the limits.

use super::sql::params;
use chrono::{DateTime, TimeDelta, Utc};

use super::StoreError;
use super::tx::{Tx, time_text};

/// The longest window a limit counts over: entries older than this are dropped.
pub const LONGEST_WINDOW: TimeDelta = TimeDelta::days(2);

impl Tx<'_> {
    /// How many times `key` was spent since `since`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn rate_count(&self, key: &str, since: DateTime<Utc>) -> Result<u32, StoreError> {
        self.0
            .prepare_cached("SELECT COUNT(*) FROM rate_events WHERE key = ?1 AND at >= ?2")?
            .query_row(params![key, time_text(since)], |r| r.get(0))
    }

    /// Records that `key` was spent at `now`, and forgets what `key` spent
    /// before [`LONGEST_WINDOW`].
    ///
    /// # Errors
    /// SQLite errors.
    pub fn rate_spend(&self, key: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("DELETE FROM rate_events WHERE key = ?1 AND at < ?2")?
            .execute(params![key, time_text(now - LONGEST_WINDOW)])?;
        self.0
            .prepare_cached("INSERT INTO rate_events (key, at) VALUES (?1, ?2)")?
            .execute(params![key, time_text(now)])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn spending_is_counted_per_key_and_window_and_old_entries_go() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let t0 = DateTime::parse_from_rfc3339("2026-12-05T10:00:00Z").unwrap().with_timezone(&Utc);
        store
            .transaction_blocking(move |tx| {
                for m in 0..3 {
                    tx.rate_spend("leave|a@x", t0 + TimeDelta::minutes(m))?;
                }
                tx.rate_spend("leave|b@x", t0)?;
                assert_eq!(tx.rate_count("leave|a@x", t0)?, 3);
                assert_eq!(tx.rate_count("leave|a@x", t0 + TimeDelta::minutes(1))?, 2);
                assert_eq!(tx.rate_count("leave|b@x", t0)?, 1);
                assert_eq!(tx.rate_count("leave|c@x", t0)?, 0);
                // Three days on, spending again drops the key's old entries.
                tx.rate_spend("leave|a@x", t0 + TimeDelta::days(3))?;
                let rows: u32 =
                    tx.0.query_row("SELECT COUNT(*) FROM rate_events WHERE key = 'leave|a@x'", [], |r| r.get(0))?;
                assert_eq!(rows, 1);
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }
}
