//! Lists over HTTP (issue 32, point 5): a game's legal moves now.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::{ApiError, bearer};
use crate::steward::{Credential, Steward};

/// The query of `GET /api/games/{id}/legal`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LegalQuery {
    /// A seat to list, by name.
    seat: Option<String>,
}

/// `GET /api/games/{id}/legal[?seat=NAME]`: the legal moves now of the seat
/// the token proves (or the one named), or the spectator's view: every seat
/// to move with its moves.
pub(super) async fn legal(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    query: Result<Query<LegalQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|_| {
        ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "bad_request",
            "the only query this takes is ?seat=<seat name>, e.g. ?seat=black",
        )
    })?;
    Ok(Json(steward.legal(id, Credential::token(bearer(&headers)), q.seat).await?).into_response())
}
