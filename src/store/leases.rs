//! Leases (issue 35): a duty that one steward at a time runs (the deadline
//! sweep, the IMAP door) is held by the steward that took its lease, until the
//! lease lapses unless renewed; when its holder stops (a crash, a lost host),
//! another steward takes it over once it lapsed.

use chrono::{DateTime, Utc};

use super::StoreError;
use super::sql::{OptionalExtension, params};
use super::tx::{Tx, time_text};

impl Tx<'_> {
    /// Takes or renews the lease `name` for `holder` until `until`: granted
    /// when nobody holds it, when `holder` does, or when its holder let it
    /// lapse (before `now`). Whether `holder` holds it now.
    ///
    /// # Errors
    /// Store errors.
    pub fn take_lease(
        &self,
        name: &str,
        holder: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let granted: Option<String> = self
            .0
            .query_row(
                "INSERT INTO leases (name, holder, until) VALUES (?1, ?2, ?4)
                 ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                 WHERE leases.holder = excluded.holder OR leases.until < ?3
                 RETURNING holder",
                params![name, holder, time_text(now), time_text(until)],
                |r| r.get(0),
            )
            .optional()?;
        Ok(granted.is_some())
    }

    /// Gives the lease `name` up, if `holder` holds it (a steward stopping
    /// cleanly, so that another takes over at once).
    ///
    /// # Errors
    /// Store errors.
    pub fn release_lease(&self, name: &str, holder: &str) -> Result<(), StoreError> {
        self.0.execute("DELETE FROM leases WHERE name = ?1 AND holder = ?2", params![name, holder])?;
        Ok(())
    }

    /// Every steward that holds a lease or a claim on an unsent mail.
    ///
    /// # Errors
    /// Store errors.
    pub fn holders(&self) -> Result<Vec<String>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT claimed_by FROM outbox WHERE claimed_by IS NOT NULL AND sent_at IS NULL
                 UNION SELECT holder FROM leases ORDER BY 1",
            )?
            .query_map([], |r| r.get(0))?
            .collect()
    }

    /// Gives up every lease and claim of `holder` (a steward known to have
    /// died), so that the others take its duties and mails at once.
    ///
    /// # Errors
    /// Store errors.
    pub fn release_holder(&self, holder: &str) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?1 AND sent_at IS NULL",
            [holder],
        )?;
        self.0.execute("DELETE FROM leases WHERE holder = ?1", [holder])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeDelta;

    use crate::store::{Store, StoreError};

    #[tokio::test]
    async fn a_lease_is_held_renewed_and_taken_over_once_lapsed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let t0 = chrono::Utc::now();
        let minute = TimeDelta::minutes(1);
        let (a, b, a_again, b_early, b_late, after_release) = store
            .transaction(move |tx| {
                let a = tx.take_lease("sweep", "A", t0, t0 + minute)?;
                let b = tx.take_lease("sweep", "B", t0 + minute / 2, t0 + minute * 3 / 2)?;
                let a_again = tx.take_lease("sweep", "A", t0 + minute / 2, t0 + minute * 2)?;
                let b_early = tx.take_lease("sweep", "B", t0 + minute * 3 / 2, t0 + minute * 3)?;
                let b_late = tx.take_lease("sweep", "B", t0 + minute * 3, t0 + minute * 4)?;
                tx.release_lease("sweep", "B")?;
                let after_release = tx.take_lease("sweep", "A", t0 + minute * 3, t0 + minute * 4)?;
                Ok::<_, StoreError>((a, b, a_again, b_early, b_late, after_release))
            })
            .await
            .unwrap();
        assert!(a, "nobody held it");
        assert!(!b, "A holds it");
        assert!(a_again, "its holder renews it");
        assert!(!b_early, "renewed to two minutes: not lapsed at one and a half");
        assert!(b_late, "lapsed: taken over");
        assert!(after_release, "given up: taken at once");
    }
}
