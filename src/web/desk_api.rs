//! The organiser's desk over HTTP (issue 31): the lists of games (for an
//! organiser, `GET /api/games`; for a player, `GET /api/me/games`) and the
//! director's tools on a game. An organiser is the operator token or a
//! director's token, sent as `Authorization: Bearer <token>`; a director acts
//! on its tournament's games only (403 elsewhere).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;

use super::{ApiError, bearer, json_body};
use crate::protocol::OperatorToken;
use crate::steward::{Credential, GameFilter, InternalError, NewSeat, Organiser, Refusal, Steward, StewardError};

/// The routes of the director's tools (the lists are registered beside the
/// game creation in [`super::router`]).
pub(super) fn router() -> Router<Steward> {
    Router::new()
        .route("/api/games/{id}/adjudicate", post(adjudicate))
        .route("/api/games/{id}/abort", post(abort))
        .route("/api/games/{id}/seats/{seat}/extend", post(extend))
        .route("/api/games/{id}/seats/{seat}/replace", post(replace))
        .route("/api/games/{id}/seats/{seat}/relink", post(relink))
}

/// The organiser a request's bearer token proves, as an extractor: put it
/// before the body in a handler's arguments, and a request without an
/// organiser's token is answered 401 before anything else is read.
pub(super) struct ByOrganiser(pub Organiser);

impl FromRequestParts<Steward> for ByOrganiser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, steward: &Steward) -> Result<Self, ApiError> {
        // Every router with organiser routes carries the operator token as an
        // extension; a route without it is a wiring mistake, not the caller's.
        let Some(operator) = parts.extensions.get::<Arc<OperatorToken>>().cloned() else {
            let wiring = InternalError::of("an organiser route was registered without the operator token extension");
            return Err(StewardError::Internal(wiring).into());
        };
        organiser(steward, &operator, &parts.headers).await.map(ByOrganiser)
    }
}

/// The organiser a request's bearer token names; 401 without one.
pub(super) async fn organiser(
    steward: &Steward,
    operator: &OperatorToken,
    headers: &HeaderMap,
) -> Result<Organiser, ApiError> {
    let given = bearer(headers);
    if let Some(token) = &given
        && let Some(o) = steward.organiser(operator, token).await?
    {
        return Ok(o);
    }
    Err(ApiError::new(
        StatusCode::UNAUTHORIZED,
        "organiser_token_required",
        if given.is_some() {
            "this is neither the operator token nor a director's token; send Authorization: Bearer <operator token> (`fairsteward operator-token` prints it on the steward's host) or the token the operator gave you as a tournament's director"
        } else {
            "this needs an organiser: send Authorization: Bearer <operator token> (`fairsteward operator-token` prints it on the steward's host) or the token the operator gave you as a tournament's director"
        },
    ))
}

/// The desk's list of games.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub(super) struct DeskGames {
    /// The games, newest first.
    games: Vec<crate::steward::DeskGame>,
}

/// A player's games.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub(super) struct MyGames {
    /// The games, those where the player owes a move first.
    games: Vec<crate::steward::MyGame>,
}

/// `GET /api/games`: the games an organiser may act on, with filters.
#[utoipa::path(
    get,
    path = "/api/games",
    tag = "desk",
    params(GameFilter),
    security(("organiser" = [])),
    responses(
        (status = 200, description = "The games the organiser may act on: all for the operator, a tournament's for its director.", body = DeskGames),
        (status = 400, description = "A filter is not valid.", body = super::openapi::ErrorBody),
        (status = 401, description = "No organiser's token.", body = super::openapi::ErrorBody),
    )
)]
pub(super) async fn list_games(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    query: Result<Query<GameFilter>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(filter) = query.map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!(
                "the query is not valid here: {}; filter with status=running|finished, to_move (or to_move=<name or address>), overdue, on_leave, q=<name, address or game id>",
                e.body_text()
            ),
        )
    })?;
    let games = steward.desk_games(by, filter).await?;
    Ok(Json(DeskGames { games }).into_response())
}

/// `GET /api/me/games`: every game of the player a seat token or a web
/// session proves.
#[utoipa::path(
    get,
    path = "/api/me/games",
    tag = "players",
    security(("seat" = [])),
    responses(
        (status = 200, description = "Every game of the player the token (or the page's session) proves.", body = MyGames),
        (status = 401, description = "No seat token or session, or an unknown one.", body = super::openapi::ErrorBody),
    )
)]
pub(super) async fn my_games(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, ApiError> {
    let credential = match bearer(&headers) {
        Some(token) => Credential::Token(token),
        None => match super::session::Session::from_headers(steward.keys(), &headers, steward.now().timestamp()) {
            Some(s) => Credential::Session { address: s.address, seat: None, games: s.games },
            None => return Err(StewardError::Refused(Refusal::BadToken).into()),
        },
    };
    Ok(Json(MyGames { games: steward.my_games(credential).await? }).into_response())
}

/// A result as the body gives it: text (`draw`, `white`, `north and south`,
/// `white 3, brown 1, black 0`), a list of winning seats, or points per seat.
#[derive(Deserialize)]
#[serde(untagged)]
enum ResultBody {
    Text(String),
    Seats(Vec<String>),
    Points(BTreeMap<String, u8>),
}

impl ResultBody {
    /// The decision as [`crate::rules::GameResult::from_decision`] reads it.
    fn decision(self) -> String {
        match self {
            ResultBody::Text(t) => t,
            ResultBody::Seats(s) => s.join(" and "),
            ResultBody::Points(p) => p.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(", "),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdjudicateBody {
    result: ResultBody,
    reason: String,
}

const ADJUDICATE_EXAMPLE: &str = r#"{"result": "white", "reason": "end date; white is a rook up"} (or "draw", ["north", "south"], {"white": 3, "brown": 1, "black": 0})"#;

async fn adjudicate(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: AdjudicateBody = json_body(&body, ADJUDICATE_EXAMPLE)?;
    let view = steward.adjudicate(id, b.result.decision(), b.reason, by, steward.now()).await?;
    Ok(Json(view).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReasonBody {
    reason: String,
}

async fn abort(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: ReasonBody = json_body(&body, r#"{"reason": "both players left the club"}"#)?;
    Ok(Json(steward.abort(id, b.reason, by, steward.now()).await?).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExtendBody {
    #[serde(default)]
    hours: Option<u32>,
    #[serde(default)]
    days: Option<u32>,
    reason: String,
}

const EXTEND_EXAMPLE: &str = r#"{"days": 3, "reason": "illness"} (or "hours": 72)"#;

async fn extend(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, seat)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: ExtendBody = json_body(&body, EXTEND_EXAMPLE)?;
    let hours = match (b.hours, b.days) {
        (Some(h), None) => h,
        (None, Some(d)) => d.saturating_mul(24),
        _ => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                format!("give the extension in hours or in days, one of them; send JSON like {EXTEND_EXAMPLE}"),
            ));
        }
    };
    Ok(Json(steward.extend_deadline(id, seat, hours, b.reason, by, steward.now()).await?).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplaceBody {
    name: String,
    email: String,
    #[serde(default)]
    public_key: Option<String>,
    /// The new player's armoured OpenPGP public key (issue 33).
    #[serde(default)]
    openpgp_key: Option<String>,
    reason: String,
}

async fn replace(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, seat)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: ReplaceBody = json_body(
        &body,
        r#"{"name": "Carol", "email": "carol@example.org", "reason": "Bob withdrew"} (and "public_key" or "openpgp_key" if Carol has one)"#,
    )?;
    let new =
        NewSeat { openpgp_key: b.openpgp_key, name: b.name, email: b.email, public_key: b.public_key, time_zone: None };
    let token = steward.replace_player(id, seat, new, b.reason, by, steward.now()).await?;
    Ok((StatusCode::CREATED, Json(token)).into_response())
}

async fn relink(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, seat)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    // No body, or an empty object: nothing is chosen but the seat.
    if !body.trim_ascii().is_empty() {
        let _: serde_json::Map<String, Value> = json_body(&body, "{} or no body")?;
    }
    let token = steward.relink(id, seat, by, steward.now()).await?;
    Ok((StatusCode::CREATED, Json(token)).into_response())
}
