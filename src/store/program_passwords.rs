//! Players' passwords for programs (migration 19, issue 34): one slow salted
//! hash per registered address, which the Xfcc door checks. The hashing is the
//! steward's (src/steward/program_password.rs); the store keeps the text.

use super::sql::{OptionalExtension, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, time_text};

/// A player's stored program password.
#[derive(Clone, Debug)]
pub struct ProgramPasswordRow {
    /// `pbkdf2-sha256$<iterations>$<salt, hex>$<hash, hex>`.
    pub hash: String,
    /// Whether the steward chose it (a per-player token).
    pub generated: bool,
    /// The game ids (upper case) it opens.
    pub games: Vec<String>,
}

impl Tx<'_> {
    /// `player`'s program password (the address in lower case), if set.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn program_password(&self, player: &str) -> Result<Option<ProgramPasswordRow>, StoreError> {
        let row = self
            .0
            .prepare_cached("SELECT hash, generated, games FROM program_passwords WHERE player = ?1")?
            .query_row(params![player], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? != 0, r.get::<_, String>(2)?))
            })
            .optional()?;
        Ok(row.map(|(hash, generated, games)| ProgramPasswordRow {
            hash,
            generated,
            // Written by set_program_password only; an unreadable list opens nothing.
            games: serde_json::from_str(&games).unwrap_or_default(),
        }))
    }

    /// Sets `player`'s program password, or with `None` removes it.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_program_password(
        &self,
        player: &str,
        row: Option<&ProgramPasswordRow>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        match row {
            Some(row) => {
                let games = serde_json::to_string(&row.games).unwrap_or_else(|_| "[]".to_owned());
                self.0
                    .prepare_cached(
                        "INSERT INTO program_passwords (player, hash, generated, games, updated_at)
                         VALUES (?1, ?2, ?3, ?4, ?5)
                         ON CONFLICT (player) DO UPDATE SET hash = excluded.hash, generated = excluded.generated,
                         games = excluded.games, updated_at = excluded.updated_at",
                    )?
                    .execute(params![player, row.hash, i64::from(row.generated), games, time_text(now)])?;
            }
            None => {
                self.0.prepare_cached("DELETE FROM program_passwords WHERE player = ?1")?.execute(params![player])?;
            }
        }
        Ok(())
    }
}
