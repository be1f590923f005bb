//! The desk's list of games with invited seats (issue 31, the desk pages):
//! which invited games are still waiting for their players.

use super::sql::params;

use super::StoreError;
use super::sql::Res;
use super::tx::Tx;

impl<'c> Tx<'c> {
    /// The ids of the invited games not started yet (`inviting`, `starting`,
    /// `creating`), newest first, at most `limit`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn waiting_invited_games(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT id FROM invited_games WHERE status <> 'started' ORDER BY created_at DESC, id LIMIT ?1",
        )?;
        let ids = stmt
            .query_map(params![i64::try_from(limit).unwrap_or(i64::MAX)], |r| r.get::<_, String>(0))?
            .collect::<Res<Vec<_>>>()?;
        Ok(ids)
    }
}
