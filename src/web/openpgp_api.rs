//! A seat's OpenPGP key by HTTP (issue 33): `PUT` and `DELETE
//! /api/games/{id}/seats/{seat}/openpgp-key`, with the seat's token. The body of
//! a `PUT` is the ASCII-armoured public key itself (`gpg --armor --export`), or
//! JSON `{"openpgp_key": "-----BEGIN PGP PUBLIC KEY BLOCK-----…"}`.

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::put;
use axum::{Json, Router};
use serde::Deserialize;

use super::{ApiError, bearer, json_body};
use crate::protocol::openpgp::key::MAX_KEY_BYTES;
use crate::steward::{Credential, Refusal, Steward, StewardError};

/// The routes, merged into the API router.
pub(super) fn router() -> Router<Steward> {
    Router::new().route(
        "/api/games/{id}/seats/{seat}/openpgp-key",
        // A key of up to MAX_KEY_BYTES, in JSON (escaped line ends).
        put(set).delete(remove).layer(DefaultBodyLimit::max(MAX_KEY_BYTES + MAX_KEY_BYTES / 4)),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyBody {
    openpgp_key: String,
}

const EXAMPLE: &str = r#"the armoured key itself (gpg --armor --export YOU@EXAMPLE.ORG), or {"openpgp_key": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n…"}"#;

fn token(headers: &HeaderMap) -> Result<Credential, ApiError> {
    Ok(Credential::Token(bearer(headers).ok_or(StewardError::Refused(Refusal::BadToken))?))
}

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

async fn remove(
    State(steward): State<Steward>,
    Path((id, seat)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let credential = token(&headers)?;
    let now = steward.now();
    Ok(Json(steward.set_openpgp_key(id, seat, credential, None, now).await?).into_response())
}
