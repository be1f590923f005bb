//! Schema versions: `schema.sql` is version 1; each later version is one entry of
//! [`MIGRATIONS`], applied in order inside one transaction with the version bump.

use std::path::Path;

use rusqlite::Connection;

use super::StoreError;

/// The whole schema of a new database (version 1).
const SCHEMA: &str = include_str!("../../schema.sql");

/// Migrations from version 1 on: entry `i` takes a database from version `i + 1`
/// to `i + 2`.
const MIGRATIONS: &[&str] = &[];

/// The schema version this program writes.
pub(super) const LATEST: u32 = 1 + MIGRATIONS.len() as u32;

pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > LATEST {
        return Err(StoreError::TooNew { path: path.to_owned(), found: version, known: LATEST });
    }
    if version == LATEST {
        return Ok(());
    }
    let tx = conn.transaction()?;
    if version == 0 {
        tx.execute_batch(SCHEMA)?;
    }
    for sql in &MIGRATIONS[version.saturating_sub(1) as usize..] {
        tx.execute_batch(sql)?;
    }
    tx.pragma_update(None, "user_version", LATEST)?;
    tx.commit()?;
    tracing::info!(path = %path.display(), from = version, to = LATEST, "database schema brought up to date");
    Ok(())
}
