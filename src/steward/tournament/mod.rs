// STAND-IN for slice C (or B): the lead takes the owner's file at merge.
//! Tournaments (slice C). Stand-in: only what slice D's invitations call.

use chrono::{DateTime, Utc};

use super::{Steward, StewardError};
use crate::ids::TournamentId;
use crate::store::Tx;

impl Steward {
    /// Creates the planned games and sends the start mails (slice C); this
    /// stand-in only marks the tournament running.
    pub(crate) fn start_tournament_in(
        &self,
        tx: &Tx<'_>,
        id: &TournamentId,
        _now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        tx.set_invited_tournament_status(id, "running")?;
        Ok(())
    }
}
