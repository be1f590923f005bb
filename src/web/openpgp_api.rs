//! A seat's OpenPGP key by HTTP (issue 33): `PUT` and `DELETE
//! /api/games/{id}/seats/{seat}/openpgp-key`, with the seat's token. The body of
//! a `PUT` is the ASCII-armoured public key itself (`gpg --armor --export`), or
//! JSON `{"openpgp_key": "-----BEGIN PGP PUBLIC KEY BLOCK-----…"}`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ApiError, bearer, json_body};
use crate::protocol::openpgp::key::MAX_KEY_BYTES;
use crate::steward::{Credential, Refusal, Steward, StewardError};

/// The routes, merged into the API's routes.
pub(super) fn routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new()
        .routes(routes!(set, remove))
        // A key of up to MAX_KEY_BYTES, in JSON (escaped line ends).
        .layer(DefaultBodyLimit::max(MAX_KEY_BYTES + MAX_KEY_BYTES / 4))
}

/// A seat's OpenPGP public key, as JSON.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"openpgp_key": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ...\n-----END PGP PUBLIC KEY BLOCK-----\n"}))]
struct KeyBody {
    /// The ASCII-armoured public key (`gpg --armor --export YOU@EXAMPLE.ORG`).
    #[schema(min_length = 1)]
    openpgp_key: String,
}

const EXAMPLE: &str = r#"the armoured key itself (gpg --armor --export YOU@EXAMPLE.ORG), or {"openpgp_key": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n…"}"#;

fn token(headers: &HeaderMap) -> Result<Credential, ApiError> {
    Ok(Credential::Token(bearer(headers).ok_or(StewardError::Refused(Refusal::BadToken))?))
}

/// Registers (or replaces) the seat's OpenPGP public key: replies signed with
/// it count as signed moves, and the steward's mails can be encrypted to it.
/// The body is the armoured key itself (text/plain), or JSON.
#[utoipa::path(
    put,
    operation_id = "set_openpgp_key",
    path = "/api/games/{id}/seats/{seat}/openpgp-key",
    tag = "games",
    params(
        ("id" = String, Path, description = "The game's id."),
        ("seat" = String, Path, description = "The seat's name in the game (the token's seat)."),
    ),
    security(("seat" = [])),
    request_body(content(
        (KeyBody = "application/json"),
        (String = "text/plain", example = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ...\n-----END PGP PUBLIC KEY BLOCK-----\n"),
    )),
    responses(
        (status = 200, description = "The key is registered; its fingerprint.", body = crate::steward::OpenPgpKeyAnswer),
        (status = 400, description = "The body is empty or not one OpenPGP public key, or the seat is not the token's.", body = super::openapi::ErrorBody),
        (status = 401, description = "No seat token, or not one of this game's.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 413, description = "The body is larger than a key may be (80 KiB).", body = super::openapi::ErrorBody),
    )
)]
async fn set(
    State(steward): State<Steward>,
    Path((id, seat)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let credential = token(&headers)?;
    let key = if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        json_body::<KeyBody>(&body, EXAMPLE)?.openpgp_key
    } else {
        String::from_utf8(body.to_vec())
            .map_err(|_| StewardError::Refused(Refusal::BadRequest(format!("the body is not text; send {EXAMPLE}"))))?
    };
    if key.trim().is_empty() {
        return Err(StewardError::Refused(Refusal::BadRequest(format!(
            "the body is empty; send {EXAMPLE} (DELETE removes the key)"
        )))
        .into());
    }
    let now = steward.now();
    Ok(Json(steward.set_openpgp_key(id, seat, credential, Some(key), now).await?).into_response())
}

/// Removes the seat's OpenPGP key.
#[utoipa::path(
    delete,
    operation_id = "remove_openpgp_key",
    path = "/api/games/{id}/seats/{seat}/openpgp-key",
    tag = "games",
    params(
        ("id" = String, Path, description = "The game's id."),
        ("seat" = String, Path, description = "The seat's name in the game (the token's seat)."),
    ),
    security(("seat" = [])),
    responses(
        (status = 200, description = "The seat has no OpenPGP key now.", body = crate::steward::OpenPgpKeyAnswer),
        (status = 400, description = "The seat is not the token's.", body = super::openapi::ErrorBody),
        (status = 401, description = "No seat token, or not one of this game's.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
    )
)]
async fn remove(
    State(steward): State<Steward>,
    Path((id, seat)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let credential = token(&headers)?;
    let now = steward.now();
    Ok(Json(steward.set_openpgp_key(id, seat, credential, None, now).await?).into_response())
}
