//! A seat's OpenPGP key (issue 33): registered, replaced or removed by the seat
//! itself (its token), recorded in the transcript (`openpgp_key`, with the
//! armoured key, so `fairsteward verify` checks the seat's OpenPGP-signed moves
//! offline), and shown by its fingerprint.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::json;

use super::command::Gate;
use super::{Credential, Refusal, Steward, StewardError, checked_openpgp_key};
use crate::protocol::openpgp::key::PlayerPgpKey;

/// What a seat's OpenPGP key is now.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"game": "7YC2", "seat": "white", "fingerprint": "3AA5 C343 7156 7BD2 C4A2 F1F2 B2B3 E0A1 D2C3 B4A5", "message": "The OpenPGP key 3AA5 C343 7156 7BD2 C4A2 F1F2 B2B3 E0A1 D2C3 B4A5 is registered for white in game 7YC2: replies signed with it count as signed moves."}))]
pub struct OpenPgpKeyAnswer {
    /// The game.
    pub game: String,
    /// The seat.
    pub seat: String,
    /// The registered key's fingerprint; `None` when the key was removed.
    pub fingerprint: Option<String>,
    /// What happened, in words.
    pub message: String,
}

impl Steward {
    /// Sets (`Some`) or removes (`None`) the OpenPGP key of the seat `seat`
    /// names, proven by `credential` (the seat's token).
    ///
    /// # Errors
    /// A [`Refusal`] for a bad token, another seat's name, or a key that is not
    /// one public key.
    pub async fn set_openpgp_key(
        &self,
        game: String,
        seat: String,
        credential: Credential,
        key: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<OpenPgpKeyAnswer, StewardError> {
        let this = self.clone();
        self.command(game, Gate::Seat(credential), now, move |c| {
            let s = c.seat()?;
            let name = c.game.seat_name(s);
            if !name.eq_ignore_ascii_case(seat.trim()) {
                return Err(Refusal::BadRequest(format!(
                    "this token is the seat {name}'s, not {seat:?}'s; use /api/games/{}/seats/{name}/openpgp-key",
                    c.game.row.id
                ))
                .into());
            }
            let armored = checked_openpgp_key(&name, key.as_deref())?;
            let fingerprint =
                armored.as_deref().and_then(|k| PlayerPgpKey::parse(k).ok()).map(|k| k.fingerprint().to_owned());
            c.tx.set_openpgp_key(&c.game.row.id, s, armored.as_deref())?;
            c.tx.append_event(
                &c.game.row.id,
                now,
                "openpgp_key",
                &json!({"seat": name, "fingerprint": fingerprint, "openpgp_key": armored}),
            )?;
            this.sign_head(c.tx, &c.game.row.id)?;
            let message = match &fingerprint {
                Some(f) => format!(
                    "The OpenPGP key {f} is registered for {name} in game {}: replies signed with it count as signed moves.",
                    c.game.row.id
                ),
                None => format!("{name} has no OpenPGP key in game {} any more.", c.game.row.id),
            };
            Ok(OpenPgpKeyAnswer { game: c.game.row.id.to_string(), seat: name, fingerprint, message })
        })
        .await
    }
}
