//! Invitations over HTTP (issue 31 point 3): the organiser's routes (a
//! tournament's or an invited game's invitations, start, replace) with the
//! operator's or the tournament director's bearer token, and the invitee's
//! (`/api/invitations/{token}`: read, accept, decline) with the invitation's
//! own token in the path. Games with invited seats are asked for with
//! `POST /api/games` and `"invite": true` (see `create_game` in the parent).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use super::desk_api::ByOrganiser;
use super::{ApiError, json_body};
use crate::protocol::OperatorToken;
use crate::steward::{AcceptInvitation, InvitationAnswer, Invited, Replacement, Steward};

/// The invitation routes (the state is the steward; the operator token rides
/// as an extension).
pub(super) fn router(operator: Arc<OperatorToken>) -> Router<Steward> {
    Router::new()
        .route("/api/invitations", get(list))
        .route("/api/invitations/{token}", get(show))
        .route("/api/invitations/{token}/accept", post(accept))
        .route("/api/invitations/{token}/decline", post(decline))
        .route("/api/tournaments/{id}/invite", post(invite_tournament))
        .route("/api/tournaments/{id}/start", post(start_tournament))
        .route("/api/tournaments/{id}/players/{n}/replace", post(replace_tournament_player))
        .route("/api/invited-games/{id}", get(show_invited_game))
        .route("/api/invited-games/{id}/start", post(start_game))
        .route("/api/invited-games/{id}/seats/{n}/replace", post(replace_seat))
        .layer(Extension(operator))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    tournament: Option<String>,
    game: Option<String>,
}

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

async fn show(State(steward): State<Steward>, Path(token): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(steward.invitation(token).await?).into_response())
}

async fn accept(State(steward): State<Steward>, Path(token): Path<String>, body: Bytes) -> Result<Response, ApiError> {
    let a: AcceptInvitation = if body.trim_ascii().is_empty() {
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

async fn decline(State(steward): State<Steward>, Path(token): Path<String>) -> Result<Response, ApiError> {
    let now = steward.now();
    Ok(Json(steward.answer_invitation(token, InvitationAnswer::Decline, now).await?).into_response())
}

async fn invite_tournament(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let now = steward.now();
    Ok(Json(steward.invite_tournament(&by, crate::steward::tournament::parse_id(&id)?, now).await?).into_response())
}

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

const REPLACEMENT: &str = r#"{"name": "Carl Example", "email": "carl@example.org", "public_key": "<base64, optional>", "openpgp_key": "<ASCII armour, optional>"}"#;

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

async fn show_invited_game(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(steward.invitations(&by, Invited::Game(id)).await?).into_response())
}

async fn start_game(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let now = steward.now();
    Ok(Json(steward.start_invited(&by, Invited::Game(id), now).await?).into_response())
}

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
