//! Invitations over HTTP (issue 31 point 3): the organiser's routes (a
//! tournament's or an invited game's invitations, start, replace) with the
//! operator's or the tournament director's bearer token, and the invitee's
//! (`/api/invitations/{token}`: read, accept, decline) with the invitation's
//! own token in the path. Games with invited seats are asked for with
//! `POST /api/games` and `"invite": true` (see `create_game` in the parent).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::desk_api::ByOrganiser;
use super::openapi::ErrorBody;
use super::{ApiError, json_body};
use crate::steward::{AcceptInvitation, InvitationAnswer, Invited, Replacement, Steward};

/// The invitation routes, each registered from its annotation (the operator
/// token rides as an extension of the whole router).
pub(super) fn routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(show))
        .routes(routes!(accept))
        .routes(routes!(decline))
        .routes(routes!(invite_tournament))
        .routes(routes!(start_tournament))
        .routes(routes!(replace_tournament_player))
        .routes(routes!(show_invited_game))
        .routes(routes!(start_game))
        .routes(routes!(replace_seat))
}

/// What `POST /api/games` answers (a schema only): the game with its seat
/// tokens, or, with `"invite": true`, the invited game's invitations.
#[derive(utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)] // a schema only: the handler answers one of the two
pub(super) enum CreatedOrInvited {
    /// The game and its seat tokens.
    Created(Box<crate::steward::CreatedGame>),
    /// The invited game's invitations (`"invite": true`).
    Invited(crate::steward::InvitationList),
}

/// Which invitations to list: one tournament's or one invited game's (one
/// of the two).
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// A tournament's id (`T…`); or give `game`.
    tournament: Option<String>,
    /// An invited game's id (`I…`); or give `tournament`.
    game: Option<String>,
}

/// The invitations of a tournament or of a game with invited seats, as the
/// organiser sees them: who was invited, who answered what.
#[utoipa::path(
    get,
    operation_id = "list_invitations",
    path = "/api/invitations",
    tag = "invitations",
    params(ListQuery),
    security(("organiser" = [])),
    responses(
        (status = 200, description = "The invitations, one per player or seat.", body = crate::steward::InvitationList, example = json!(super::api_examples::invitation_list())),
        (status = 400, description = "Neither or both of `tournament` and `game`, or another parameter.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token, and this is not its tournament.", body = ErrorBody),
        (status = 404, description = "No such tournament or invited game.", body = ErrorBody),
    )
)]
async fn list(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let what = match query.map(|Query(q)| (q.tournament, q.game)) {
        Ok((Some(t), None)) => Invited::Tournament(crate::steward::tournament::parse_id(&t)?),
        Ok((None, Some(g))) => Invited::Game(g),
        _ => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "name one tournament or one invited game: GET /api/invitations?tournament=T… or ?game=I…",
            ));
        }
    };
    Ok(Json(steward.invitations(&by, what).await?).into_response())
}

/// An invitation as its invitee sees it, through the token of its link.
#[utoipa::path(
    get,
    operation_id = "show_invitation",
    path = "/api/invitations/{token}",
    tag = "invitations",
    params(("token" = String, Path, description = "The invitation's token, from the link in its mail.")),
    responses(
        (status = 200, description = "The invitation.", body = crate::steward::InvitationView, example = json!(super::api_examples::invitation())),
        (status = 404, description = "No invitation has this token (the link may be cut short).", body = ErrorBody),
    )
)]
async fn show(State(steward): State<Steward>, Path(token): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(steward.invitation(token).await?).into_response())
}

/// Accepts an invitation, optionally with the name to show and a public key.
#[utoipa::path(
    post,
    operation_id = "accept_invitation",
    path = "/api/invitations/{token}/accept",
    tag = "invitations",
    params(("token" = String, Path, description = "The invitation's token, from the link in its mail.")),
    request_body(content = Option<AcceptInvitation>, description = "No body (or `null`) keeps the invited name and gives no key.", example = json!({"name": "Ann Example"})),
    responses(
        (status = 200, description = "The answer recorded (or, for a repeat, the same again); `starts` says whether play begins.", body = crate::steward::InvitationAnswered),
        (status = 400, description = "The body is not an acceptance: a bad name or key, a name another player shows, or no key where the game needs signed moves.", body = ErrorBody),
        (status = 404, description = "No invitation has this token.", body = ErrorBody),
        (status = 409, description = "The invitation was declined before, or is closed (its place given to another player, or play started without it).", body = ErrorBody),
    )
)]
async fn accept(State(steward): State<Steward>, Path(token): Path<String>, body: Bytes) -> Result<Response, ApiError> {
    let a: AcceptInvitation = if super::desk_api::no_body(&body) {
        AcceptInvitation::default()
    } else {
        json_body(
            &body,
            r#"{"name": "Ann Example", "public_key": "<base64, optional>", "openpgp_key": "<ASCII armour, optional>"}"#,
        )?
    };
    let now = steward.now();
    Ok(Json(steward.answer_invitation(token, InvitationAnswer::Accept(a), now).await?).into_response())
}

/// Declines an invitation.
#[utoipa::path(
    post,
    operation_id = "decline_invitation",
    path = "/api/invitations/{token}/decline",
    tag = "invitations",
    params(("token" = String, Path, description = "The invitation's token, from the link in its mail.")),
    responses(
        (status = 200, description = "The answer recorded (or, for a repeat, the same again).", body = crate::steward::InvitationAnswered),
        (status = 404, description = "No invitation has this token.", body = ErrorBody),
        (status = 409, description = "The invitation was accepted before, or is closed.", body = ErrorBody),
    )
)]
async fn decline(State(steward): State<Steward>, Path(token): Path<String>) -> Result<Response, ApiError> {
    let now = steward.now();
    Ok(Json(steward.answer_invitation(token, InvitationAnswer::Decline, now).await?).into_response())
}

/// Invites every player of a tournament that has no invitation yet (each
/// gets one mail).
#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/invite",
    tag = "invitations",
    params(("id" = String, Path, description = "The tournament's id.")),
    security(("organiser" = [])),
    responses(
        (status = 200, description = "The tournament's invitations.", body = crate::steward::InvitationList, example = json!(super::api_examples::invitation_list())),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token of another tournament.", body = ErrorBody),
        (status = 404, description = "No tournament has this id.", body = ErrorBody),
        (status = 409, description = "The tournament is not inviting: its players are set.", body = ErrorBody),
    )
)]
async fn invite_tournament(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let now = steward.now();
    Ok(Json(steward.invite_tournament(&by, crate::steward::tournament::parse_id(&id)?, now).await?).into_response())
}

/// Starts an inviting tournament now, with the players who accepted and
/// those who did not answer (their invitations close).
#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/start",
    tag = "invitations",
    params(("id" = String, Path, description = "The tournament's id.")),
    security(("organiser" = [])),
    responses(
        (status = 200, description = "The tournament's invitations after the start.", body = crate::steward::InvitationList, example = json!(super::api_examples::invitation_list())),
        (status = 400, description = "A place declined and is not replaced yet.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token of another tournament.", body = ErrorBody),
        (status = 404, description = "No tournament has this id.", body = ErrorBody),
        (status = 409, description = "The tournament is not waiting for its players.", body = ErrorBody),
    )
)]
async fn start_tournament(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let now = steward.now();
    Ok(Json(steward.start_invited(&by, Invited::Tournament(crate::steward::tournament::parse_id(&id)?), now).await?)
        .into_response())
}

/// A player's or a seat's number from the path (0, 1, … in the order given).
fn player_number(n: &str) -> Result<u32, ApiError> {
    n.parse().map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("{n:?} is not a player number; players and seats are numbered 0.. in the order they were given"),
        )
    })
}

/// The example of a replacement.
fn replacement_example() -> serde_json::Value {
    serde_json::json!({"name": "Carl Example", "email": "carl@example.org"})
}

const REPLACEMENT: &str = r#"{"name": "Carl Example", "email": "carl@example.org", "public_key": "<base64, optional>", "openpgp_key": "<ASCII armour, optional>"}"#;

/// Gives a tournament's place, declined or not answered, to another player,
/// who is invited at once; the old invitation closes.
#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/players/{n}/replace",
    tag = "invitations",
    params(
        ("id" = String, Path, description = "The tournament's id."),
        ("n" = u32, Path, maximum = 39, description = "The player's number: 0, 1, … in the order they were given (a tournament has at most 40)."),
    ),
    security(("organiser" = [])),
    request_body(content = Replacement, example = replacement_example),
    responses(
        (status = 200, description = "The tournament's invitations.", body = crate::steward::InvitationList, example = json!(super::api_examples::invitation_list())),
        (status = 400, description = "Not a player number, no such place, a place that accepted, or the body is not a player: a bad name, address or key.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token of another tournament.", body = ErrorBody),
        (status = 404, description = "No tournament has this id.", body = ErrorBody),
        (status = 409, description = "The tournament is not inviting: its players are set.", body = ErrorBody),
    )
)]
async fn replace_tournament_player(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, n)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let n = player_number(&n)?;
    let new: Replacement = json_body(&body, REPLACEMENT)?;
    let now = steward.now();
    Ok(Json(
        steward
            .replace_invited(&by, Invited::Tournament(crate::steward::tournament::parse_id(&id)?), n, new, now)
            .await?,
    )
    .into_response())
}

/// A game with invited seats: its invitations, as the organiser sees them.
#[utoipa::path(
    get,
    path = "/api/invited-games/{id}",
    tag = "invitations",
    params(("id" = String, Path, description = "The invited game's id (`I…`).")),
    security(("organiser" = [])),
    responses(
        (status = 200, description = "The invitations, one per seat; `game` once the game is created.", body = crate::steward::InvitationList, example = json!(super::api_examples::invitation_list())),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token: invited games are the operator's.", body = ErrorBody),
        (status = 404, description = "No invited game has this id.", body = ErrorBody),
    )
)]
async fn show_invited_game(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(steward.invitations(&by, Invited::Game(id)).await?).into_response())
}

/// Starts a game with invited seats now, with the players who accepted and
/// those who did not answer (their invitations close); the game is created.
#[utoipa::path(
    post,
    operation_id = "start_invited_game",
    path = "/api/invited-games/{id}/start",
    tag = "invitations",
    params(("id" = String, Path, description = "The invited game's id (`I…`).")),
    security(("organiser" = [])),
    responses(
        (status = 200, description = "The invitations after the start, with the game created.", body = crate::steward::InvitationList, example = json!(super::api_examples::invitation_list())),
        (status = 400, description = "A seat declined and is not replaced yet, or the game could not be created as its seats stand.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token: invited games are the operator's.", body = ErrorBody),
        (status = 404, description = "No invited game has this id.", body = ErrorBody),
        (status = 409, description = "The game is not waiting for its players.", body = ErrorBody),
    )
)]
async fn start_game(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let now = steward.now();
    Ok(Json(steward.start_invited(&by, Invited::Game(id), now).await?).into_response())
}

/// Gives a seat of a game with invited seats, declined or not answered, to
/// another player, who is invited at once; the old invitation closes.
#[utoipa::path(
    post,
    operation_id = "replace_invited_player",
    path = "/api/invited-games/{id}/seats/{n}/replace",
    tag = "invitations",
    params(
        ("id" = String, Path, description = "The invited game's id (`I…`)."),
        ("n" = u32, Path, description = "The seat's number: 0, 1, … in the variant's seat order."),
    ),
    security(("organiser" = [])),
    request_body(content = Replacement, example = replacement_example),
    responses(
        (status = 200, description = "The invitations.", body = crate::steward::InvitationList, example = json!(super::api_examples::invitation_list())),
        (status = 400, description = "Not a seat number, no such seat, a seat that accepted, or the body is not a player: a bad name, address or key.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token: invited games are the operator's.", body = ErrorBody),
        (status = 404, description = "No invited game has this id.", body = ErrorBody),
        (status = 409, description = "The game is not inviting: its players are set.", body = ErrorBody),
    )
)]
async fn replace_seat(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, n)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let n = player_number(&n)?;
    let new: Replacement = json_body(&body, REPLACEMENT)?;
    let now = steward.now();
    Ok(Json(steward.replace_invited(&by, Invited::Game(id), n, new, now).await?).into_response())
}
