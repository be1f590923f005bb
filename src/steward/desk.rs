// STAND-IN for slice B: the lead takes B's file at merge.
//! Who acts at the desk, and the in-transaction director tools (stand-in).

use chrono::{DateTime, Utc};
use serde_json::json;

use super::{Refusal, Steward, StewardError, load, mails};
use crate::ids::{GameId, TournamentId};
use crate::protocol::OperatorToken;
use crate::rules::{EndReason, GameResult, Outcome};
use crate::store::Tx;

/// Who acts at the desk: the operator, or a tournament's director.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Organiser {
    /// The steward's operator.
    Operator,
    /// A director of one tournament.
    Director {
        /// The tournament.
        tournament: TournamentId,
        /// The director's name.
        name: String,
    },
}

impl Organiser {
    /// Refusal::Forbidden unless this organiser may act on `game`.
    pub(crate) fn may_act_on(&self, tx: &Tx<'_>, game: &GameId) -> Result<(), StewardError> {
        match self {
            Organiser::Operator => Ok(()),
            Organiser::Director { tournament, .. } => match tx.tournament_of_game(game)? {
                Some((t, _)) if &t == tournament => Ok(()),
                _ => Err(Refusal::Forbidden(format!(
                    "this director's token acts for tournament {tournament} only, and game {game} is not one of its games"
                ))
                .into()),
            },
        }
    }
}

impl Steward {
    /// The organiser a bearer token names.
    ///
    /// # Errors
    /// Store failures.
    pub async fn organiser(&self, operator: &OperatorToken, token: &str) -> Result<Option<Organiser>, StewardError> {
        if operator.matches(token) {
            return Ok(Some(Organiser::Operator));
        }
        let hash = crate::ids::SeatToken::from_presented(token).hash();
        self.store
            .transaction(move |tx| {
                Ok::<_, StewardError>(
                    tx.director(&hash)?.map(|(tournament, name)| Organiser::Director { tournament, name }),
                )
            })
            .await
    }

    /// In the caller's transaction: ends `game` with `result`.
    pub(crate) fn adjudicate_in(
        &self,
        tx: &Tx<'_>,
        game: &GameId,
        result: GameResult,
        reason: &str,
        by: &Organiser,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        by.may_act_on(tx, game)?;
        let g = load(tx, game.as_str())?;
        if g.row.outcome.is_some() {
            return Err(Refusal::GameOver(game.to_string()).into());
        }
        let _ = json!({"reason": reason});
        let o = Outcome { result, reason: EndReason::Agreement };
        self.end(tx, &g, o, now)?;
        let head = self.sign_head(tx, game)?;
        let text = format!("The game was adjudicated: {reason}");
        for mail in mails::notice(self, &g, mails::Notice::Ended, &text, Some(o), &head, now)? {
            tx.queue_mail(&mail, now)?;
        }
        Ok(())
    }

    /// In the caller's transaction: ends `game` without a result.
    pub(crate) fn abort_in(
        &self,
        tx: &Tx<'_>,
        game: &GameId,
        reason: &str,
        by: &Organiser,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        self.adjudicate_in(tx, game, GameResult::Draw, reason, by, now)
    }
}
