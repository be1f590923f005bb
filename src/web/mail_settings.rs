//! `GET`/`PUT /api/me/mail` (issue 32): the mail setting of the player a seat
//! token (or a web session) proves.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ApiError, bearer, json_body};
use crate::steward::{Credential, Refusal, Steward, StewardError};
use crate::store::{Delivery, MailSettingsChange, Pictures};

/// The routes, merged into the API's routes.
pub(super) fn routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new()
        .routes(routes!(get_mail, put_mail)) // issue 32, slice M
        .routes(routes!(get_program_password, put_program_password)) // issue 34
}

const EXAMPLE: &str = r#"{"delivery": "digest", "digest_hour": 7, "pictures": "none", "encrypt": true} (delivery: every, my_turn or digest; pictures: attached, linked or none; encrypt: true or false, true needs an OpenPGP key registered for your seat)"#;

/// The body of `PUT /api/me/mail`: what it names changes, the rest stays; it
/// names at least one thing.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(min_properties = 1, example = json!({"delivery": "digest", "digest_hour": 7, "pictures": "none"}))]
struct MailBody {
    /// Which board mails come: after every turn, only when it is the player's
    /// move, or none but a daily digest.
    #[serde(default)]
    delivery: Option<Delivery>,
    /// The digest's hour, in the time zone of the player's seat (else UTC).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 23)]
    digest_hour: Option<u8>,
    /// Whether board mails carry the board picture: attached, as a link, or not at all.
    #[serde(default)]
    pictures: Option<Pictures>,
    /// Whether the steward's mails come encrypted to the seat's OpenPGP key
    /// (issue 33); `true` needs one registered for the player's seats.
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

/// The mail setting of the player a seat token (or the page's session) proves:
/// which board mails come, with or without the board picture, encrypted or not.
#[utoipa::path(
    get,
    path = "/api/me/mail",
    tag = "players",
    security(("seat" = []), ("session" = [])),
    responses(
        (status = 200, description = "The player's mail setting.", body = crate::steward::MailSettingsAnswer),
        (status = 401, description = "No seat token or session, or an unknown one.", body = super::openapi::ErrorBody),
    )
)]
pub(super) async fn get_mail(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, ApiError> {
    let c = credential(&steward, &headers)?;
    Ok(Json(steward.mail_settings(c, MailSettingsChange::default()).await?).into_response())
}

/// Changes the mail setting of the player a seat token (or the page's session)
/// proves: what the body names changes, the rest stays.
#[utoipa::path(
    put,
    path = "/api/me/mail",
    tag = "players",
    security(("seat" = []), ("session" = [])),
    request_body(content = MailBody, example = json!({"delivery": "digest", "digest_hour": 7, "pictures": "none"})),
    responses(
        (status = 200, description = "The player's mail setting, as changed.", body = crate::steward::MailSettingsAnswer),
        (status = 400, description = "The body changes nothing or is not a setting, or encryption was asked with no OpenPGP key registered that can be encrypted to.", body = super::openapi::ErrorBody),
        (status = 401, description = "No seat token or session, or an unknown one.", body = super::openapi::ErrorBody),
    )
)]
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

/// The body of `PUT /api/me/program-password`: exactly one of its fields
/// (a `password`, or one of the others `true`).
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(min_properties = 1, example = json!({"generate": true}))]
struct PasswordBody {
    /// A password the player chooses: no control characters, no spaces at its ends.
    #[serde(default)]
    #[schema(min_length = 10, max_length = 128)]
    password: Option<String>,
    /// Have the steward choose one (shown in the answer, this once).
    #[serde(default)]
    generate: bool,
    /// Add the games this sign-in proves to those the password opens.
    #[serde(default)]
    add_games: bool,
    /// Remove the password: programs can no longer log in.
    #[serde(default)]
    remove: bool,
}

/// Whether the player a seat token (or the page's session) proves has a
/// password for programs (Xfcc), and the games it opens.
#[utoipa::path(
    get,
    path = "/api/me/program-password",
    tag = "players",
    security(("seat" = []), ("session" = [])),
    responses(
        (status = 200, description = "Whether a program password is set, and the games it opens.", body = crate::steward::ProgramPasswordAnswer),
        (status = 401, description = "No seat token or session, or an unknown one.", body = super::openapi::ErrorBody),
    )
)]
pub(super) async fn get_program_password(
    State(steward): State<Steward>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let c = credential(&steward, &headers)?;
    Ok(Json(steward.program_password(c, crate::steward::PasswordChange::Keep).await?).into_response())
}

/// Sets, generates, extends or removes the password programs (Xfcc) log in
/// with as the player a seat token (or the page's session) proves; it opens
/// the games that sign-in proves.
#[utoipa::path(
    put,
    path = "/api/me/program-password",
    tag = "players",
    security(("seat" = []), ("session" = [])),
    request_body(content = PasswordBody, example = json!({"generate": true})),
    responses(
        (status = 200, description = "The password's state; a password the steward chose is in it, this once.", body = crate::steward::ProgramPasswordAnswer),
        (status = 400, description = "The body asks for no one thing, the password is too short, too long or has control characters or spaces at its ends, or no password is set to add games to.", body = super::openapi::ErrorBody),
        (status = 401, description = "No seat token or session, or an unknown one.", body = super::openapi::ErrorBody),
    )
)]
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
