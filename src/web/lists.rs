//! Lists over HTTP (issue 32, point 5): a game's legal moves now.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ApiError, bearer};
use crate::steward::{Credential, Steward};

/// The routes of the lists.
pub(super) fn routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new().routes(routes!(legal))
}

/// The query of `GET /api/games/{id}/legal`.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(super) struct LegalQuery {
    /// A seat to list, by name (`black`); without it, the seat the token
    /// proves, or (no token) every seat to move.
    seat: Option<String>,
}

/// The legal moves now.
///
/// Of the seat the token proves (or the one named), or the spectator's view:
/// every seat to move with its moves. `GET /api/games/{id}/legal[?seat=NAME]`. The moves are the ones
/// `fairsteward rules <variant> legal` prints, in its order.
#[utoipa::path(
    get,
    path = "/api/games/{id}/legal",
    tag = "games",
    params(("id" = String, Path, description = "The game's id."), LegalQuery),
    security((), ("seat" = [])),
    responses(
        (status = 200, description = "The legal moves of the seats asked about; a seat that owes no move has none, and a note naming who is to move.", body = crate::steward::LegalView),
        (status = 400, description = "A query other than `?seat=`, or a seat the game does not have.", body = super::openapi::ErrorBody),
        (status = 401, description = "The token is not one of this game's seats.", body = super::openapi::ErrorBody),
        (status = 403, description = "A spectator of a game with a spectator delay: its moves now are for its seats.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 409, description = "The game is over: it has no legal moves.", body = super::openapi::ErrorBody),
    )
)]
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
