//! The invited games waiting for their players, for the desk (issue 31): the
//! operator's list of them; each one's status is
//! [`Steward::invitations`] with [`super::Invited::Game`].

use super::{Organiser, Steward, StewardError};

/// The most invited games the desk lists at once.
pub const MAX_WAITING_INVITED_GAMES: usize = 100;

impl Steward {
    /// The ids of the invited games not started yet, newest first (at most
    /// [`MAX_WAITING_INVITED_GAMES`]). Only the operator creates invited
    /// games, so a director's list is empty.
    ///
    /// # Errors
    /// Store failures.
    pub async fn waiting_invited_games(&self, by: &Organiser) -> Result<Vec<String>, StewardError> {
        if *by != Organiser::Operator {
            return Ok(Vec::new());
        }
        self.store.transaction(|tx| Ok::<_, StewardError>(tx.waiting_invited_games(MAX_WAITING_INVITED_GAMES)?)).await
    }
}
