//! Conditional moves by HTTP (issue 32): `PUT`, `GET` and `DELETE
//! /api/games/{id}/conditional`, each with the seat's token. The lines are
//! the seat's secret: only its own token reads them.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ApiError, bearer, json_body};
use crate::steward::{ConditionalInput, ConditionalOp, Credential, Refusal, Steward, StewardError};

/// The routes, merged into the API's routes.
pub(super) fn routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new().routes(routes!(list, set, clear))
}

/// The body of a `PUT`: the lines as JSON arrays, or as the mail grammar's
/// text; exactly one of the two.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"lines": [["Nf6", "e5"], ["Nc6", "Nf3", "d6", "d4"]]}))]
struct LinesBody {
    /// The lines, each alternating a condition (the others' move, or in games
    /// of three and four seats an object from seat names to moves) and the
    /// seat's reply: an even number of entries, at least 2.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Vec<crate::steward::LineEntry>>>, max_items = 30)]
    lines: Option<serde_json::Value>,
    /// The lines in the mail grammar: `if Nf6 then e5, if Nc6 then Nf3 if d6 then d4`.
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

/// Replaces the seat's conditional lines ("if they play X, I play Y"), each
/// checked by playing it through from the position now; an empty list drops them.
#[utoipa::path(
    put,
    operation_id = "set_conditional",
    path = "/api/games/{id}/conditional",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security(("seat" = [])),
    request_body(content = LinesBody, example = json!({"lines": [["Nf6", "e5"], ["Nc6", "Nf3", "d6", "d4"]]})),
    responses(
        (status = 200, description = "The lines as kept.", body = crate::steward::ConditionalLines),
        (status = 400, description = "The body is not lines: neither or both of `lines` and `text`.", body = super::openapi::ErrorBody),
        (status = 401, description = "No seat token, or not one of this game's.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 409, description = "The game does not offer conditional lines (commit-reveal, or signatures required), or it is over.", body = super::openapi::ErrorBody),
        (status = 422, description = "A line does not read or cannot be played (the message names the line and step), or there are too many.", body = super::openapi::ErrorBody),
    )
)]
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

/// The seat's conditional lines, shown to that seat only.
#[utoipa::path(
    get,
    operation_id = "list_conditional",
    path = "/api/games/{id}/conditional",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security(("seat" = [])),
    responses(
        (status = 200, description = "The lines the seat keeps.", body = crate::steward::ConditionalLines),
        (status = 401, description = "No seat token, or not one of this game's.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
    )
)]
async fn list(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    run(steward, id, &headers, ConditionalOp::List).await
}

/// Drops all the seat's conditional lines.
#[utoipa::path(
    delete,
    operation_id = "clear_conditional",
    path = "/api/games/{id}/conditional",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security(("seat" = [])),
    responses(
        (status = 200, description = "No lines are kept now.", body = crate::steward::ConditionalLines),
        (status = 401, description = "No seat token, or not one of this game's.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
    )
)]
async fn clear(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    run(steward, id, &headers, ConditionalOp::Clear).await
}
