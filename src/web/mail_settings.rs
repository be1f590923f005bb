//! `GET`/`PUT /api/me/mail` (issue 32): the mail setting of the player a seat
//! token (or a web session) proves.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::{ApiError, bearer, json_body};
use crate::steward::{Credential, Refusal, Steward, StewardError};
use crate::store::{Delivery, MailSettingsChange, Pictures};

const EXAMPLE: &str = r#"{"delivery": "digest", "digest_hour": 7, "pictures": "none", "encrypt": true} (delivery: every, my_turn or digest; pictures: attached, linked or none; encrypt: true or false, true needs an OpenPGP key registered for your seat)"#;

/// The body of `PUT /api/me/mail`: what it names changes, the rest stays.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MailBody {
    #[serde(default)]
    delivery: Option<Delivery>,
    #[serde(default)]
    digest_hour: Option<u8>,
    #[serde(default)]
    pictures: Option<Pictures>,
    /// Issue 33: the steward's mails encrypted to the seat's OpenPGP key.
    #[serde(default)]
    encrypt: Option<bool>,
}

fn credential(steward: &Steward, headers: &HeaderMap) -> Result<Credential, ApiError> {
    match bearer(headers) {
        Some(token) => Ok(Credential::Token(token)),
        None => match super::session::Session::from_headers(steward.keys(), headers, steward.now().timestamp()) {
            // A session acts only from this steward's own pages.
            Some(s) if super::session::same_origin(headers) => {
                Ok(Credential::Session { address: s.address, seat: None, games: s.games })
            }
            _ => Err(StewardError::Refused(Refusal::BadToken).into()),
        },
    }
}

/// `GET /api/me/mail`.
pub(super) async fn get_mail(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, ApiError> {
    let c = credential(&steward, &headers)?;
    Ok(Json(steward.mail_settings(c, MailSettingsChange::default()).await?).into_response())
}

/// `PUT /api/me/mail`.
pub(super) async fn put_mail(
    State(steward): State<Steward>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let c = credential(&steward, &headers)?;
    let b: MailBody = json_body(&body, EXAMPLE)?;
    let change = MailSettingsChange {
        delivery: b.delivery,
        digest_hour: b.digest_hour,
        pictures: b.pictures,
        encrypt: b.encrypt,
    };
    if change.is_empty() {
        return Err(
            StewardError::Refused(Refusal::BadRequest(format!("the body changes nothing; send {EXAMPLE}"))).into()
        );
    }
    Ok(Json(steward.mail_settings(c, change).await?).into_response())
}

// ---------------------------------------------------------------------------
// Issue 34: the password for programs (Xfcc), over HTTP
// ---------------------------------------------------------------------------

const PASSWORD_EXAMPLE: &str =
    r#"{"password": "at least ten characters"} (or {"generate": true}, {"add_games": true}, {"remove": true})"#;

/// The body of `PUT /api/me/program-password`: exactly one of its fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PasswordBody {
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    generate: bool,
    #[serde(default)]
    add_games: bool,
    #[serde(default)]
    remove: bool,
}

/// `GET /api/me/program-password`: whether one is set, and the games it opens.
pub(super) async fn get_program_password(
    State(steward): State<Steward>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let c = credential(&steward, &headers)?;
    Ok(Json(steward.program_password(c, crate::steward::PasswordChange::Keep).await?).into_response())
}

/// `PUT /api/me/program-password`.
pub(super) async fn put_program_password(
    State(steward): State<Steward>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    use crate::steward::PasswordChange;
    let c = credential(&steward, &headers)?;
    let b: PasswordBody = json_body(&body, PASSWORD_EXAMPLE)?;
    let change = match (b.password, b.generate, b.add_games, b.remove) {
        (Some(p), false, false, false) => PasswordChange::Set(p),
        (None, true, false, false) => PasswordChange::Generate,
        (None, false, true, false) => PasswordChange::AddGames,
        (None, false, false, true) => PasswordChange::Remove,
        _ => {
            return Err(StewardError::Refused(Refusal::BadRequest(format!(
                "the body must ask for exactly one thing; send {PASSWORD_EXAMPLE}"
            )))
            .into());
        }
    };
    Ok(Json(steward.program_password(c, change).await?).into_response())
}
