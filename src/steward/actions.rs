//! Signed actions: in a game with `auth = signature` a resignation, a draw offer,
//! accept or decline needs the seat's signature as a move does. It comes as an
//! envelope with `action:` (see [`crate::protocol::action`]), bound to the game,
//! the seat and the turn now owed, by HTTP (the body of the action's POST) or by
//! mail (pasted into any mail to the steward; the signature is the authority).
//!
//! Leave belongs to the player, across games: a player who holds a seat in a
//! running game that requires signatures must sign leave with the key of such a
//! seat (the envelope names that game, the seat and its current turn); a token or
//! a reply alone is refused. A player with no such game may still use either.

use super::{Credential, DrawAction, Loaded, Refusal, Steward, StewardError, authenticate};
use crate::protocol::policy::Auth;
use crate::protocol::{Action, Body, Envelope};
use crate::rules::Seat;
use crate::store::Tx;

impl DrawAction {
    /// The signed action that asks for this.
    pub fn action(self) -> Action {
        match self {
            DrawAction::Offer => Action::OfferDraw,
            DrawAction::Accept => Action::AcceptDraw,
            DrawAction::Decline => Action::DeclineDraw,
        }
    }
}

/// The exact command that makes the signed envelope for `action`.
pub(super) fn sign_command(game: &Loaded, seat: Seat, action: &Action) -> String {
    format!(
        "fairsteward player sign --key YOUR-KEY-FILE --game {} --seat {} --turn {} --action '{action}'",
        game.row.id,
        game.seat_name(seat),
        game.row.turn
    )
}

/// Whether two actions ask for the same thing (an offer and an accept do).
fn same(a: &Action, b: &Action) -> bool {
    let class = |a: &Action| match a {
        Action::AcceptDraw => Action::OfferDraw,
        other => *other,
    };
    match (a, b) {
        (Action::Leave { .. }, Action::Leave { .. }) => true,
        _ => class(a) == class(b),
    }
}

/// The seat a signed action envelope proves: for this game, one of its seats,
/// signed with that seat's registered key, for the turn now owed.
pub(super) fn signed_seat(game: &Loaded, env: &Envelope) -> Result<Seat, StewardError> {
    let seat = super::moves::envelope_seat(game, env)?;
    if !env.is_signed() {
        return Err(Refusal::BadSignature(format!(
            "the envelope for {} is not signed; sign it with `fairsteward player sign --key YOUR-KEY-FILE …`",
            env.seat
        ))
        .into());
    }
    Steward::check_signature(game, seat, env)?;
    if env.turn != game.row.turn {
        return Err(Refusal::EnvelopeMismatch(format!(
            "this signed envelope is for turn {}, but game {} is at turn {}; sign it again for turn {} (a signed action holds only for the turn it names)",
            env.turn, game.row.id, game.row.turn, game.row.turn
        ))
        .into());
    }
    Ok(seat)
}

impl Steward {
    /// The seat that asks for `wanted` and, when it came signed, its envelope
    /// (as text, for the transcript). In a game that requires signatures, a
    /// token or a reply capability alone is refused, naming the command to run.
    pub(super) fn authorize_action(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        credential: Option<&Credential>,
        wanted: Action,
    ) -> Result<(Seat, Option<String>), StewardError> {
        if let Some(Credential::Signed(env)) = credential {
            let seat = signed_seat(game, env)?;
            return match &env.body {
                Body::Action(a) if same(a, &wanted) => Ok((seat, Some(env.record_text()))),
                Body::Action(a) => Err(Refusal::BadRequest(format!(
                    "this envelope asks to {a}; POST it to {}",
                    a.http_path(game.row.id.as_str())
                ))
                .into()),
                other => Err(Refusal::BadRequest(format!(
                    "this envelope holds a {}, not an action; to {wanted} sign an envelope with `--action`",
                    other.kind()
                ))
                .into()),
            };
        }
        let seat = authenticate(tx, game, credential)?;
        if game.row.auth == Auth::Signature {
            return Err(Refusal::SignedActionRequired {
                why: format!(
                    "game {} requires signatures (auth = signature), so a {} must be signed with {}'s registered key",
                    game.row.id,
                    match wanted {
                        Action::Resign => "resignation",
                        Action::Leave { .. } => "leave",
                        _ => "draw offer, accept or decline",
                    },
                    game.seat_name(seat)
                ),
                command: sign_command(game, seat, &wanted),
                path: wanted.http_path(game.row.id.as_str()),
            }
            .into());
        }
        Ok((seat, None))
    }
}
