//! The steward's OpenPGP keys as the store remembers them (issue 33, migration
//! 18): their fingerprints, so that a data directory whose store has known one
//! refuses to start without its key file instead of quietly making a new key
//! (docs/operator.md, "Start-up checks").

use super::sql::{OptionalExtension, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, time_text};

impl Tx<'_> {
    /// Records that the steward has (or had) the OpenPGP key `fingerprint`;
    /// recording it again changes nothing.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn record_steward_openpgp_key(&self, fingerprint: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO steward_openpgp_keys (fingerprint, recorded_at) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            )?
            .execute(params![fingerprint, time_text(now)])?;
        Ok(())
    }

    /// Whether the store has recorded any OpenPGP key of the steward's.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn has_steward_openpgp_key(&self) -> Result<bool, StoreError> {
        self.0.prepare_cached("SELECT EXISTS (SELECT 1 FROM steward_openpgp_keys)")?.query_row([], |r| r.get(0))
    }

    /// The OpenPGP key the store recorded last (the steward's current one
    /// since its last start or rotation), if any.
    ///
    /// # Errors
    /// Store errors.
    pub fn newest_steward_openpgp_key(&self) -> Result<Option<String>, StoreError> {
        self.0
            .query_row(
                "SELECT fingerprint FROM steward_openpgp_keys ORDER BY recorded_at DESC, fingerprint LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()
    }
}
