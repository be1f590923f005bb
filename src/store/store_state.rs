//! Small facts about the store itself, by name (migration 21's `store_state`):
//! the reminder points the sweep's plans were reckoned with
//! (`sweep_reminders`), the token of the last clean stop (`clean_stop`).

use super::sql::{OptionalExtension, params};
use super::{StoreError, Tx};

impl Tx<'_> {
    /// The value recorded under `name`, if any.
    ///
    /// # Errors
    /// Store failures.
    pub(super) fn store_state(&self, name: &str) -> Result<Option<String>, StoreError> {
        self.0.query_row("SELECT value FROM store_state WHERE name = ?1", [name], |r| r.get(0)).optional()
    }

    /// Records `value` under `name`, replacing what was there.
    ///
    /// # Errors
    /// Store failures.
    pub(super) fn set_store_state(&self, name: &str, value: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO store_state (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = ?2",
            )?
            .execute(params![name, value])?;
        Ok(())
    }
}
