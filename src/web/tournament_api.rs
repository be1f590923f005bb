//! The tournaments' API (issue 31): create (organiser), standings, CSV, PGN
//! (public), directors (operator), withdrawals and adjudications (the
//! operator or the tournament's own director).

use std::collections::BTreeMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::desk_api::{ByOrganiser, empty_body};
use super::openapi::ErrorBody;
use super::{ApiError, json_body};
use crate::steward::{NewTournament, Organiser, Steward};

/// The tournament routes, each registered from its annotation (the operator
/// token rides as an extension of the whole router).
pub(super) fn routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(show))
        .routes(routes!(csv))
        .routes(routes!(pgn))
        .routes(routes!(director))
        .routes(routes!(withdraw))
        .routes(routes!(adjudicate))
}

/// The example of a tournament to create.
fn new_tournament_example() -> serde_json::Value {
    serde_json::json!({
        "name": "Club championship",
        "variant": crate::rules::VariantId::HEADLINE.to_string(),
        "players": [
            {"name": "Alice", "email": "alice@example.org"},
            {"name": "Bob", "email": "bob@example.org"},
            {"name": "Carol", "email": "carol@example.org"},
        ],
    })
}

/// Creates a tournament: its players, its plan of games, and the games that
/// start now (or, with `"invite": true`, the invitations instead).
#[utoipa::path(
    post,
    operation_id = "create_tournament",
    path = "/api/tournaments",
    tag = "tournaments",
    security(("organiser" = [])),
    request_body(content = NewTournament, example = new_tournament_example),
    responses(
        (status = 201, description = "The tournament, and one token per seat of each game created now (shown only this once; the players get private links by mail).", body = crate::steward::CreatedTournament, example = json!(super::api_examples::created_tournament())),
        (status = 400, description = "The body is not a tournament: a bad name, an unknown variant or option, too few or too many players, a duplicate name or address, a bad key or end date.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token: creating a tournament needs the operator's.", body = ErrorBody),
    )
)]
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

/// The tournaments an organiser may act on: all for the operator, its own
/// for a director; newest first.
#[utoipa::path(
    get,
    operation_id = "list_tournaments",
    path = "/api/tournaments",
    tag = "tournaments",
    security(("organiser" = [])),
    responses(
        (status = 200, description = "The tournaments, newest first.", body = Vec<crate::steward::tournament::TournamentView>, example = json!([super::api_examples::tournament()])),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
    )
)]
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

/// A tournament as anyone may see it: players, games, standings and the
/// crosstable (no addresses, no tokens).
#[utoipa::path(
    get,
    operation_id = "show_tournament",
    path = "/api/tournaments/{id}",
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament's id.")),
    responses(
        (status = 200, description = "The tournament.", body = crate::steward::tournament::TournamentView, example = json!(super::api_examples::tournament())),
        (status = 404, description = "No tournament has this id.", body = ErrorBody),
    )
)]
async fn show(State(steward): State<Steward>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(steward.tournament(id).await?).into_response())
}

/// The standings as CSV: rank, player, name, points, tie-break, wins,
/// played, withdrawn, then one column per player with the crosstable cell.
#[utoipa::path(
    get,
    operation_id = "tournament_standings_csv",
    path = "/api/tournaments/{id}/standings.csv",
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament's id.")),
    responses(
        (status = 200, description = "The standings.", body = String, content_type = "text/csv", example = json!(super::api_examples::STANDINGS_CSV)),
        (status = 404, description = "No tournament has this id.", body = ErrorBody),
    )
)]
async fn csv(State(steward): State<Steward>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let text = steward.tournament_csv(id).await?;
    Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], text).into_response())
}

/// Every game of the tournament as PGN (variants with a PGN form).
#[utoipa::path(
    get,
    operation_id = "tournament_games_pgn",
    path = "/api/tournaments/{id}/games.pgn",
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament's id.")),
    responses(
        (status = 200, description = "The games' records, one after the other.", body = String, content_type = crate::rules::record::PGN_MEDIA_TYPE),
        (status = 404, description = "No tournament has this id, or its variant has no PGN form (`no_pgn`).", body = ErrorBody),
    )
)]
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

/// A director to name.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct DirectorBody {
    /// The director's name: one line of 1 to 100 characters, spaces around not counted.
    #[schema(
        pattern = r"^\s*[^\s\u0000-\u001f\u007f-\u009f]([^\u0000-\u001f\u007f-\u009f]{0,98}[^\s\u0000-\u001f\u007f-\u009f])?\s*$"
    )]
    name: String,
}

/// Names a director of the tournament (the operator only); the director's
/// token is answered this once and acts on this tournament only.
#[utoipa::path(
    post,
    operation_id = "add_director",
    path = "/api/tournaments/{id}/directors",
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament's id.")),
    security(("organiser" = [])),
    request_body(content = DirectorBody, example = json!({"name": "Dana"})),
    responses(
        (status = 201, description = "The director and its token (shown this once).", body = crate::steward::tournament::NamedDirector),
        (status = 400, description = "The body is not a director, or the name is empty, too long or not one line.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token: only the operator names directors.", body = ErrorBody),
        (status = 404, description = "No tournament has this id.", body = ErrorBody),
    )
)]
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

/// Withdraws a player, by ICCF's rule: with under half of their games
/// finished, all their games are cancelled and leave the standings;
/// otherwise their unfinished games are lost by default.
#[utoipa::path(
    post,
    operation_id = "withdraw_player",
    path = "/api/tournaments/{id}/players/{player}/withdraw",
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament's id."),
        ("player" = u32, Path, maximum = 39, description = "The player's number: 0, 1, … in the order they were given (a tournament has at most 40)."),
    ),
    security(("organiser" = [])),
    request_body(content = Option<super::desk_api::EmptyBody>, description = "No body, or an empty object.", example = json!({})),
    responses(
        (status = 200, description = "The tournament after the withdrawal.", body = crate::steward::tournament::TournamentView, example = json!(super::api_examples::tournament())),
        (status = 400, description = "Not a player number, no such player, a player who withdrew already, or a body other than `{}`.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token of another tournament.", body = ErrorBody),
        (status = 404, description = "No tournament has this id.", body = ErrorBody),
    )
)]
async fn withdraw(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path((id, player)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    empty_body(&body)?;
    let player: usize = player.parse().map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("{player:?} is not a player number; players are numbered 0.. in the order they were given"),
        )
    })?;
    Ok(Json(steward.withdraw_player(&by, id, player, steward.now()).await?).into_response())
}

/// A director's adjudications of a tournament's games.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct TournamentAdjudication {
    /// Game id → result: `"draw"`, a winning seat's name, seats joined by `+`,
    /// or points per seat in seat order (`[3, 1, 0]`).
    #[schema(value_type = BTreeMap<String, TournamentResult>)]
    results: BTreeMap<String, serde_json::Value>,
    /// Why (it goes into the transcripts and the players' mail); absent or
    /// empty: "adjudicated by the tournament's director".
    #[serde(default)]
    reason: Option<String>,
}

/// A result as a director gives it for one game.
#[derive(utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code)] // a schema only: the steward reads the JSON value
enum TournamentResult {
    /// `"draw"`, a winning seat's name, or seats joined by `+`.
    Text(String),
    /// Points per seat, in seat order, each 0 to 15.
    Points(Vec<u8>),
}

/// Adjudicates games of the tournament: each ends with the director's result.
#[utoipa::path(
    post,
    operation_id = "adjudicate_tournament_game",
    path = "/api/tournaments/{id}/adjudicate",
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament's id.")),
    security(("organiser" = [])),
    request_body(content = TournamentAdjudication, example = json!({"results": {"8KQ2ZJ": "draw"}, "reason": "unfinished at the end date"})),
    responses(
        (status = 200, description = "The tournament after the adjudications.", body = crate::steward::tournament::TournamentView, example = json!(super::api_examples::tournament())),
        (status = 400, description = "The body is not adjudications: no results, a game not of this tournament, or a result the game cannot have.", body = ErrorBody),
        (status = 401, description = "No organiser's token.", body = ErrorBody),
        (status = 403, description = "A director's token of another tournament.", body = ErrorBody),
        (status = 404, description = "No tournament has this id, or no game has one of the ids given.", body = ErrorBody),
        (status = 409, description = "One of the games is over.", body = ErrorBody),
    )
)]
async fn adjudicate(
    State(steward): State<Steward>,
    ByOrganiser(by): ByOrganiser,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let body: TournamentAdjudication =
        json_body(&body, r#"{"results": {"<game id>": "draw"}, "reason": "unfinished at the end date"}"#)?;
    Ok(Json(steward.adjudicate_tournament(&by, id, body.results, body.reason, steward.now()).await?).into_response())
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// The document states the steward's limits as literals (utoipa takes no
    /// constants there): they must be the constants' values.
    #[test]
    fn the_documents_limits_are_the_stewards() {
        let doc: Value = serde_json::from_str(&super::super::openapi_document()).unwrap();
        let players = crate::steward::tournament::MAX_PLAYERS;
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["NewTournament"]["properties"]["players"]["maxItems"], players);
        for (path, name) in [
            ("/api/tournaments/{id}/players/{player}/withdraw", "player"),
            ("/api/tournaments/{id}/players/{n}/replace", "n"),
        ] {
            let params = doc["paths"][path]["post"]["parameters"].as_array().unwrap();
            let p = params.iter().find(|p| p["name"] == name).unwrap();
            assert_eq!(p["schema"]["maximum"], players - 1, "{path}");
        }
        let reason = format!("{{0,{}}}", crate::steward::MAX_REASON_CHARS - 2);
        for schema in ["ReasonBody", "AdjudicateBody", "ReplaceBody", "ExtendHours", "ExtendDays"] {
            let pattern = schemas[schema]["properties"]["reason"]["pattern"].as_str().unwrap();
            assert!(pattern.contains(&reason), "{schema}: {pattern}");
        }
        let days = crate::steward::MAX_EXTENSION_HOURS / 24;
        assert_eq!(schemas["ExtendHours"]["properties"]["hours"]["maximum"], crate::steward::MAX_EXTENSION_HOURS);
        assert_eq!(schemas["ExtendDays"]["properties"]["days"]["maximum"], days);
    }
}
