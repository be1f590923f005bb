//! The one prologue of every command on a game: settle the clocks, load the
//! game, establish the seat, check that the game takes the command, act — all in
//! the caller's one store transaction. The commands (moves, resign, draw,
//! status, answers, aliases) differ only in their [`Gate`] and their act.

use chrono::{DateTime, Utc};

use super::{Credential, Loaded, Refusal, Steward, StewardError, authenticate, load};
use crate::protocol::Action;
use crate::rules::Seat;
use crate::store::Tx;

/// How a command proves its seat, and what it needs checked before it acts.
#[derive(Clone, Debug)]
pub(super) enum Gate {
    /// Anyone may look; a credential, when given, must prove a seat (status).
    Look(Option<Credential>),
    /// A seat asks for `Action` (resign, draw) by token, reply capability or
    /// signed envelope, as the game's trust policy demands; the game must be on.
    Act(Option<Credential>, Action),
    /// A submission (move, commitment, reveal): its envelope may name the seat,
    /// so the act establishes it; the clocks are settled first.
    Submit,
    /// A seat proven by a token (aliases, changes of address).
    Seat(Credential),
    /// A seat named by whoever proved it already (the mail door's answers, the
    /// operator).
    Named(String),
}

impl Gate {
    /// Whether a timeout that fell before the command must be settled first.
    fn settles(&self) -> bool {
        matches!(self, Gate::Act(..) | Gate::Submit)
    }
}

/// What a command's act gets: the transaction, the game as loaded, the seat the
/// gate established (none for [`Gate::Submit`] and a look without credential),
/// the signed envelope of an action (for the transcript), and the time.
pub(super) struct Ctx<'a, 'c> {
    /// The one transaction of the command.
    pub tx: &'a Tx<'c>,
    /// The game.
    pub game: Loaded,
    /// The seat the gate established.
    pub seat: Option<Seat>,
    /// The signed envelope of an action, as text.
    pub envelope: Option<String>,
    /// When the command came.
    pub now: DateTime<Utc>,
}

impl Ctx<'_, '_> {
    /// The seat the gate established; a gate that establishes none is a bug.
    pub fn seat(&self) -> Result<Seat, StewardError> {
        self.seat.ok_or_else(|| super::internal("a command that needs a seat passed a gate that proves none"))
    }
}

impl Steward {
    /// The prologue and `act`, in the caller's transaction `tx`. The clocks are
    /// settled outside the savepoint, so a timeout that fell first stands even
    /// when the command is refused; everything after runs under one savepoint,
    /// so a refusal leaves nothing of the command behind.
    ///
    /// # Errors
    /// The gate's refusals, `act`'s, store failures.
    pub(super) fn command_in<T>(
        &self,
        tx: &Tx<'_>,
        game: &str,
        gate: &Gate,
        now: DateTime<Utc>,
        act: impl FnOnce(&mut Ctx<'_, '_>) -> Result<T, StewardError>,
    ) -> Result<T, StewardError> {
        if gate.settles() {
            self.settle_flags_in(tx, game, now)?;
        }
        tx.attempt(|tx| {
            let g = load(tx, game)?;
            let (seat, envelope) = match gate {
                Gate::Look(None) | Gate::Submit => (None, None),
                Gate::Look(Some(c)) | Gate::Seat(c) => (Some(authenticate(tx, &g, Some(c))?), None),
                Gate::Named(name) => {
                    (Some(super::answers::seat_named(&g, name).ok_or_else(|| super::answers::no_seat(&g, name))?), None)
                }
                Gate::Act(c, wanted) => {
                    let (seat, envelope) = self.authorize_action(tx, &g, c.as_ref(), *wanted)?;
                    if let Some(o) = g.row.outcome {
                        return Err(Refusal::GameOver(g.outcome_text(o)).into());
                    }
                    (Some(seat), envelope)
                }
            };
            act(&mut Ctx { tx, game: g, seat, envelope, now })
        })
    }

    /// [`Steward::command_in`] in a transaction of its own; the outbox is woken
    /// after it commits. A refusal commits what came before the act (a settled
    /// timeout) and is returned.
    ///
    /// # Errors
    /// As [`Steward::command_in`].
    pub(super) async fn command<T: Send + 'static>(
        &self,
        game: String,
        gate: Gate,
        now: DateTime<Utc>,
        act: impl FnOnce(&mut Ctx<'_, '_>) -> Result<T, StewardError> + Send + 'static,
    ) -> Result<T, StewardError> {
        let this = self.clone();
        let result = self
            .store
            .transaction(move |tx| match this.command_in(tx, &game, &gate, now, act) {
                Err(e @ (StewardError::Internal(_) | StewardError::Unavailable(_))) => Err(e),
                other => Ok(other),
            })
            .await?;
        self.outbox.notify_one();
        result
    }
}
