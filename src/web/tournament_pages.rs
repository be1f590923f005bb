//! The tournaments' pages (issue 31): the public standings page
//! `/tournaments/{id}` (standings, crosstable, games with links).
//!
//! The organisers' tournament pages (list, creation form, withdraw,
//! adjudicate, start, directors) are the desk's: `super::desk_pages`.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use minijinja::context;

use super::pages::{PageError, Visitor, html, render};
use crate::steward::Steward;

/// The tournament pages.
pub(super) fn router() -> Router<Steward> {
    Router::new().route("/tournaments/{id}", get(tournament_page))
}

async fn tournament_page(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    let t = steward.tournament(id).await?;
    let standings: Vec<_> = t
        .standings
        .iter()
        .map(|s| {
            context! {
                rank => s.line.rank, name => s.name.clone(), points => s.line.points.to_string(),
                tiebreak => s.line.tiebreak.to_string(), wins => s.line.wins, played => s.line.played,
            }
        })
        .collect();
    let cross: Vec<_> = t
        .players
        .iter()
        .map(|p| {
            let cells: Vec<String> = (0..t.players.len())
                .map(|q| if q == p.player { "x".to_owned() } else { t.crosstable[p.player][q].scores.join(" ") })
                .collect();
            context! { name => p.name.clone(), withdrawn => p.withdrawn_at.is_some(), cells => cells }
        })
        .collect();
    let games: Vec<_> = t
        .games
        .iter()
        .map(|g| {
            context! { round => g.round, names => g.names.clone(), game => g.game.clone(), status => g.status.clone(), result => g.result.clone() }
        })
        .collect();
    let summary = context! {
        id => t.id.clone(), name => t.name.clone(), variant => t.variant.clone(), status => t.status.clone(),
        double => t.double, rounds => t.rounds, teams => t.teams, ends_at => t.ends_at.clone(),
        finished => t.finished, running => t.running, planned => t.planned, cancelled => t.cancelled,
        players => t.players.iter().map(|p| p.name.clone()).collect::<Vec<_>>(), games => games,
    };
    let ctx = context! { t => summary, standings => standings, cross => cross, ..v.context() };
    Ok(html(StatusCode::OK, render("page/tournament.html", ctx)?))
}
