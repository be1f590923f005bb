// STAND-IN for slice C (or B): the lead takes the owner's file at merge.
//! The organiser's authority (slice B). Stand-in: the operator, or a
//! tournament's director by its token.

use crate::ids::{SeatToken, TournamentId};
use crate::protocol::OperatorToken;

use super::{Steward, StewardError};

/// Who acts at the desk: the operator, or a tournament's director.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Organiser {
    /// The operator: every game and tournament.
    Operator,
    /// A tournament's director: that tournament only.
    Director {
        /// The tournament.
        tournament: TournamentId,
        /// The director's name.
        name: String,
    },
}

impl Steward {
    /// The organiser a bearer token names: the operator token, or a director's
    /// token (hashed in `directors`).
    ///
    /// # Errors
    /// Store failures.
    pub async fn organiser(&self, operator: &OperatorToken, token: &str) -> Result<Option<Organiser>, StewardError> {
        if operator.matches(token) {
            return Ok(Some(Organiser::Operator));
        }
        let hash = SeatToken::from_presented(token).hash();
        let found = self.store().transaction(move |tx| tx.invitation_director(&hash)).await?;
        Ok(found.map(|(tournament, name)| Organiser::Director { tournament, name }))
    }
}
