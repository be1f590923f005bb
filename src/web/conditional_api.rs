//! Conditional moves by HTTP (issue 32): `PUT`, `GET` and `DELETE
//! /api/games/{id}/conditional`, each with the seat's token. The lines are
//! the seat's secret: only its own token reads them.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

use super::{ApiError, bearer, json_body};
use crate::steward::{ConditionalInput, ConditionalOp, Credential, Refusal, Steward, StewardError};

/// The routes, merged into the API router.
pub(super) fn router() -> Router<Steward> {
    Router::new().route("/api/games/{id}/conditional", get(list).put(set).delete(clear))
}

/// The body of a `PUT`: the lines as JSON arrays, or as the mail grammar's text.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinesBody {
    #[serde(default)]
    lines: Option<serde_json::Value>,
    #[serde(default)]
    text: Option<String>,
}

const EXAMPLE: &str = r#"{"lines": [["Nf6", "e5"], ["Nc6", "Nf3", "d6", "d4"]]} or {"text": "if Nf6 then e5, if Nc6 then Nf3 if d6 then d4"}"#;

fn token(headers: &HeaderMap) -> Result<Credential, ApiError> {
    Ok(Credential::Token(bearer(headers).ok_or(StewardError::Refused(Refusal::BadToken))?))
}

async fn run(steward: Steward, id: String, headers: &HeaderMap, op: ConditionalOp) -> Result<Response, ApiError> {
    let credential = token(headers)?;
    Ok(Json(steward.conditional(id, credential, op, steward.now()).await?).into_response())
}

async fn set(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    // The token first: a stranger learns nothing of the body's checks.
    token(&headers)?;
    let b: LinesBody = json_body(&body, EXAMPLE)?;
    let input = match (b.lines, b.text) {
        (Some(lines), None) => ConditionalInput::Json(lines),
        (None, Some(text)) => ConditionalInput::Text(text),
        _ => {
            return Err(StewardError::Refused(Refusal::BadRequest(format!(
                "send either \"lines\" or \"text\", not both nor neither: {EXAMPLE}"
            )))
            .into());
        }
    };
    run(steward, id, &headers, ConditionalOp::Set(input)).await
}

async fn list(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    run(steward, id, &headers, ConditionalOp::List).await
}

async fn clear(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    run(steward, id, &headers, ConditionalOp::Clear).await
}
