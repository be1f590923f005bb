//! The organiser's desk over HTTP (issue 31): the lists of games (for an
//! organiser, `GET /api/games`; for a player, `GET /api/me/games`) and the
//! director's tools on a game. An organiser is the operator token or a
//! director's token, sent as `Authorization: Bearer <token>`; a director acts
//! on its tournament's games only (403 elsewhere).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ApiError, bearer, json_body};
use crate::protocol::OperatorToken;
use crate::steward::{Credential, GameFilter, InternalError, NewSeat, Organiser, Refusal, Steward, StewardError};

/// The routes of the director's tools, each registered from its annotation
/// (the lists are registered beside the game creation in [`super::api_routes`]).
pub(super) fn routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new()
        .routes(routes!(adjudicate))
        .routes(routes!(abort))
        .routes(routes!(extend))
        .routes(routes!(replace))
        .routes(routes!(relink))
}

/// A body that must say nothing: none at all, `null`, or an empty JSON object
/// (as JSON clients send).
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({}))]
pub(super) struct EmptyBody {}

/// Whether a body says nothing: none at all, or JSON `null`.
pub(super) fn no_body(body: &Bytes) -> bool {
    matches!(body.trim_ascii(), b"" | b"null")
}

/// Refuses a body that is neither empty, `null` nor `{}`.
pub(super) fn empty_body(body: &Bytes) -> Result<(), ApiError> {
    if !no_body(body) {
        let EmptyBody {} = json_body(body, "{} or no body")?;
    }
    Ok(())
}

/// The organiser a request's bearer token proves, as an extractor: put it
/// before the body in a handler's arguments, and a request without an
/// organiser's token is answered 401 before anything else is read.
pub(super) struct ByOrganiser(pub Organiser);

impl FromRequestParts<Steward> for ByOrganiser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, steward: &Steward) -> Result<Self, ApiError> {
        // The whole router carries the operator token as an extension
        // ([`super::router`]); a route without it is a wiring mistake, not the
        // caller's.
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
        (status = 200, description = "The games the organiser may act on: all for the operator, a tournament's for its director.", body = DeskGames, example = json!(super::api_examples::desk_games())),
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
    security(("seat" = []), ("session" = [])),
    responses(
        (status = 200, description = "Every game of the player the token (or the page's session) proves.", body = MyGames, example = json!(super::api_examples::my_games())),
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

/// A result as the body gives it: text (`draw`, a winning seat's name, seats
/// joined by `and`, or points per seat as `<seat> 3, <seat> 1, <seat> 0`), a
/// list of winning seats, or points per seat.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
enum ResultBody {
    /// `draw`, a winning seat's name, seats joined by `and`, or points per seat in words.
    Text(String),
    /// The winning seats.
    Seats(Vec<String>),
    /// Each seat's points.
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

/// An adjudication: the result and why.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct AdjudicateBody {
    /// The result: `"draw"`, a winning seat's name, a list of winning seats, or points per seat.
    result: ResultBody,
    /// Why, in one line of 1 to 500 characters, spaces around not counted (it
    /// goes into the transcript and the players' mail).
    #[schema(
        pattern = r"^\s*[^\s\u0000-\u001f\u007f-\u009f]([^\u0000-\u001f\u007f-\u009f]{0,498}[^\s\u0000-\u001f\u007f-\u009f])?\s*$"
    )]
    reason: String,
}

const ADJUDICATE_EXAMPLE: &str = r#"{"result": "white", "reason": "end date; white is a rook up"} (or "draw", ["north", "south"], {"white": 3, "brown": 1, "black": 0})"#;

/// Adjudicates a game: ends it with the organiser's result.
#[utoipa::path(
    post,
    operation_id = "adjudicate_game",
    path = "/api/games/{id}/adjudicate",
    tag = "desk",
    params(("id" = String, Path, description = "The game's id.")),
    security(("organiser" = [])),
    request_body(content = AdjudicateBody, example = json!({"result": "draw", "reason": "end date; the position is level"})),
    responses(
        (status = 200, description = "The game, ended with the result.", body = crate::steward::GameView, example = json!(super::api_examples::game())),
        (status = 400, description = "The body is not an adjudication, the result does not fit the game's seats, or the reason is empty or too long.", body = super::openapi::ErrorBody),
        (status = 401, description = "No organiser's token.", body = super::openapi::ErrorBody),
        (status = 403, description = "A director's token, and the game is not of its tournament.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 409, description = "The game is over.", body = super::openapi::ErrorBody),
    )
)]
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

/// Why an organiser acts.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct ReasonBody {
    /// Why, in one line of 1 to 500 characters, spaces around not counted (it
    /// goes into the transcript and the players' mail).
    #[schema(
        pattern = r"^\s*[^\s\u0000-\u001f\u007f-\u009f]([^\u0000-\u001f\u007f-\u009f]{0,498}[^\s\u0000-\u001f\u007f-\u009f])?\s*$"
    )]
    reason: String,
}

/// Aborts a game: it ends without a result, and standings leave it out.
#[utoipa::path(
    post,
    operation_id = "abort_game",
    path = "/api/games/{id}/abort",
    tag = "desk",
    params(("id" = String, Path, description = "The game's id.")),
    security(("organiser" = [])),
    request_body(content = ReasonBody, example = json!({"reason": "both players left the club"})),
    responses(
        (status = 200, description = "The game, ended without a result.", body = crate::steward::GameView, example = json!(super::api_examples::game())),
        (status = 400, description = "The body is not a reason, or the reason is empty or too long.", body = super::openapi::ErrorBody),
        (status = 401, description = "No organiser's token.", body = super::openapi::ErrorBody),
        (status = 403, description = "A director's token, and the game is not of its tournament.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 409, description = "The game is over.", body = super::openapi::ErrorBody),
    )
)]
async fn abort(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: ReasonBody = json_body(&body, r#"{"reason": "both players left the club"}"#)?;
    Ok(Json(steward.abort(id, b.reason, by, steward.now()).await?).into_response())
}

/// A deadline extension: in hours or in days (one of them), and why.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
enum ExtendBody {
    /// In hours.
    Hours(ExtendHours),
    /// In days.
    Days(ExtendDays),
}

/// A deadline extension in hours.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct ExtendHours {
    /// The hours to add, 1 to 8784 (a year).
    #[schema(minimum = 1, maximum = 8784)]
    hours: u32,
    /// Why, in one line of 1 to 500 characters, spaces around not counted (it
    /// goes into the transcript and the players' mail).
    #[schema(
        pattern = r"^\s*[^\s\u0000-\u001f\u007f-\u009f]([^\u0000-\u001f\u007f-\u009f]{0,498}[^\s\u0000-\u001f\u007f-\u009f])?\s*$"
    )]
    reason: String,
}

/// A deadline extension in days.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct ExtendDays {
    /// The days to add, 1 to 366.
    #[schema(minimum = 1, maximum = 366)]
    days: u32,
    /// Why, in one line of 1 to 500 characters, spaces around not counted (it
    /// goes into the transcript and the players' mail).
    #[schema(
        pattern = r"^\s*[^\s\u0000-\u001f\u007f-\u009f]([^\u0000-\u001f\u007f-\u009f]{0,498}[^\s\u0000-\u001f\u007f-\u009f])?\s*$"
    )]
    reason: String,
}

const EXTEND_EXAMPLE: &str =
    r#"{"days": 3, "reason": "illness"} or {"hours": 72, "reason": "illness"} (hours or days, one of them)"#;

/// Extends a seat's deadline: more time for the move it owes now (or, when
/// its clock stands, for its next move).
#[utoipa::path(
    post,
    operation_id = "extend_deadline",
    path = "/api/games/{id}/seats/{seat}/extend",
    tag = "desk",
    params(
        ("id" = String, Path, description = "The game's id."),
        ("seat" = String, Path, description = "The seat's name in the variant (any case)."),
    ),
    security(("organiser" = [])),
    request_body(content = ExtendBody, example = json!({"days": 3, "reason": "illness"})),
    responses(
        (status = 200, description = "The extension, with the seat's deadline now.", body = crate::steward::Extended),
        (status = 400, description = "Neither or both of hours and days, out of range, an empty reason, no such seat, a game without a time control, or a seat that timed out.", body = super::openapi::ErrorBody),
        (status = 401, description = "No organiser's token.", body = super::openapi::ErrorBody),
        (status = 403, description = "A director's token, and the game is not of its tournament.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 409, description = "The game is over.", body = super::openapi::ErrorBody),
    )
)]
async fn extend(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, seat)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    // Neither or both of hours and days match no form of the body.
    let (hours, reason) = match json_body(&body, EXTEND_EXAMPLE)? {
        ExtendBody::Hours(ExtendHours { hours, reason }) => (hours, reason),
        ExtendBody::Days(ExtendDays { days, reason }) => (days.saturating_mul(24), reason),
    };
    Ok(Json(steward.extend_deadline(id, seat, hours, reason, by, steward.now()).await?).into_response())
}

/// The player who takes over a seat, and why.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct ReplaceBody {
    /// The new player's name.
    #[schema(min_length = 1)]
    name: String,
    /// The new player's address: the seat's new token is mailed there.
    #[schema(format = Email)]
    email: String,
    /// The new player's Ed25519 public key (base64), optional (required, or
    /// `openpgp_key`, in a game that needs signed moves).
    #[serde(default)]
    public_key: Option<String>,
    /// The new player's armoured OpenPGP public key (issue 33), optional.
    #[serde(default)]
    openpgp_key: Option<String>,
    /// Why, in one line of 1 to 500 characters, spaces around not counted (it
    /// goes into the transcript and the players' mail).
    #[schema(
        pattern = r"^\s*[^\s\u0000-\u001f\u007f-\u009f]([^\u0000-\u001f\u007f-\u009f]{0,498}[^\s\u0000-\u001f\u007f-\u009f])?\s*$"
    )]
    reason: String,
}

/// Replaces a seat's player: the new player inherits the position and the
/// clock, the old token stops working, and the new one is mailed to the new
/// address and answered this once.
#[utoipa::path(
    post,
    operation_id = "replace_player",
    path = "/api/games/{id}/seats/{seat}/replace",
    tag = "desk",
    params(
        ("id" = String, Path, description = "The game's id."),
        ("seat" = String, Path, description = "The seat's name in the variant (any case)."),
    ),
    security(("organiser" = [])),
    request_body(content = ReplaceBody, example = json!({"name": "Carol", "email": "carol@example.org", "reason": "Bob withdrew"})),
    responses(
        (status = 201, description = "The seat's new token (shown this once; the old one no longer works).", body = crate::steward::NewToken),
        (status = 400, description = "The body is not a replacement: a bad name, address or key, a name another seat shows, no key where the game needs signed moves, an empty reason, or no such seat.", body = super::openapi::ErrorBody),
        (status = 401, description = "No organiser's token.", body = super::openapi::ErrorBody),
        (status = 403, description = "A director's token, and the game is not of its tournament.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 409, description = "The game is over.", body = super::openapi::ErrorBody),
    )
)]
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

/// Sends a seat a new link: a new token, mailed to the seat's registered
/// address only and answered this once; the old token stops working.
#[utoipa::path(
    post,
    operation_id = "relink_seat",
    path = "/api/games/{id}/seats/{seat}/relink",
    tag = "desk",
    params(
        ("id" = String, Path, description = "The game's id."),
        ("seat" = String, Path, description = "The seat's name in the variant (any case)."),
    ),
    security(("organiser" = [])),
    request_body(content = Option<EmptyBody>, description = "No body, or an empty object: nothing is chosen but the seat.", example = json!({})),
    responses(
        (status = 201, description = "The seat's new token (shown this once; the old one no longer works).", body = crate::steward::NewToken),
        (status = 400, description = "A body other than `{}`, or no such seat.", body = super::openapi::ErrorBody),
        (status = 401, description = "No organiser's token.", body = super::openapi::ErrorBody),
        (status = 403, description = "A director's token, and the game is not of its tournament.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 409, description = "The game is over.", body = super::openapi::ErrorBody),
    )
)]
async fn relink(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, seat)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    // No body, or an empty object: nothing is chosen but the seat.
    empty_body(&body)?;
    let token = steward.relink(id, seat, by, steward.now()).await?;
    Ok((StatusCode::CREATED, Json(token)).into_response())
}
