// STAND-IN for slice D: the lead takes D's file at merge.
//! Invitations (stand-in).

use chrono::{DateTime, Utc};

use super::{Steward, StewardError};
use crate::ids::TournamentId;
use crate::store::Tx;

impl Steward {
    /// Sends the invitations of a tournament (stand-in: nothing).
    pub(crate) fn invite_tournament_in(
        &self,
        _tx: &Tx<'_>,
        _tournament: &TournamentId,
        _now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        Ok(())
    }
}
