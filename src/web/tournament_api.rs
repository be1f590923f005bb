//! The tournaments' API (issue 31): create (organiser), standings, CSV, PGN
//! (public), directors (operator), withdrawals and adjudications (the
//! operator or the tournament's own director).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use super::desk_api::ByOrganiser;
use super::{ApiError, json_body};
use crate::protocol::OperatorToken;
use crate::steward::{NewTournament, Organiser, Steward};

/// The tournament routes; `operator` is the operator token.
pub(super) fn router(operator: Arc<OperatorToken>) -> Router<Steward> {
    Router::new()
        .route("/api/tournaments", post(create).get(list))
        .route("/api/tournaments/{id}", get(show))
        .route("/api/tournaments/{id}/standings.csv", get(csv))
        .route("/api/tournaments/{id}/games.pgn", get(pgn))
        .route("/api/tournaments/{id}/directors", post(director))
        .route("/api/tournaments/{id}/players/{player}/withdraw", post(withdraw))
        .route("/api/tournaments/{id}/adjudicate", post(adjudicate))
        .layer(Extension(operator))
}

async fn create(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    body: Bytes,
) -> Result<Response, ApiError> {
    let new: NewTournament = json_body(
        &body,
        &format!(
            r#"{{"name": "Club championship", "variant": "{}", "players": [{{"name": "Alice", "email": "alice@example.org"}}, {{"name": "Bob", "email": "bob@example.org"}}, {{"name": "Carol", "email": "carol@example.org"}}]}}"#,
            crate::rules::VariantId::HEADLINE
        ),
    )?;
    let created = steward.create_tournament(&by, new, steward.now()).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

async fn list(State(steward): State<Steward>, ByOrganiser(by): ByOrganiser) -> Result<Response, ApiError> {
    let all = steward.tournaments().await?;
    let mine: Vec<_> = all
        .into_iter()
        .filter(|t| match &by {
            Organiser::Operator => true,
            Organiser::Director { tournament, .. } => tournament.as_str() == t.id,
        })
        .collect();
    Ok(Json(mine).into_response())
}

async fn show(State(steward): State<Steward>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(steward.tournament(id).await?).into_response())
}

async fn csv(State(steward): State<Steward>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let text = steward.tournament_csv(id).await?;
    Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], text).into_response())
}

async fn pgn(State(steward): State<Steward>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let text = steward.tournament_pgn(id.clone()).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_pgn",
            format!(
                "this tournament's variant has no PGN form; each game's record is at /api/games/<game id>/record.json (the games are listed at /api/tournaments/{id})"
            ),
        )
    })?;
    Ok(([(header::CONTENT_TYPE, crate::rules::record::PGN_MEDIA_TYPE)], text).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DirectorBody {
    name: String,
}

async fn director(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let id = crate::steward::tournament::parse_id(&id)?;
    let body: DirectorBody = json_body(&body, r#"{"name": "Dana"}"#)?;
    let named = steward.name_director(&by, &id, body.name, steward.now()).await?;
    Ok((StatusCode::CREATED, Json(named)).into_response())
}

async fn withdraw(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, player)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let player: usize = player.parse().map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("{player:?} is not a player number; players are numbered 0.. in the order they were given"),
        )
    })?;
    Ok(Json(steward.withdraw_player(&by, id, player, steward.now()).await?).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdjudicateBody {
    results: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    reason: Option<String>,
}

async fn adjudicate(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let body: AdjudicateBody =
        json_body(&body, r#"{"results": {"<game id>": "draw"}, "reason": "unfinished at the end date"}"#)?;
    Ok(Json(steward.adjudicate_tournament(&by, id, body.results, body.reason, steward.now()).await?).into_response())
}
