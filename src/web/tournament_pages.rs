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
use minijinja::{Value, context};

use super::pages::{PageError, Visitor, html, render};
use crate::steward::{LeavePolicy, Steward, TournamentView};

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
    let shown = Shown::of(&t);
    let games: Vec<_> = t
        .games
        .iter()
        .map(|g| {
            context! { round => g.round, names => g.names.clone(), game => g.game.clone(), status => g.status.clone(), result => g.result.clone() }
        })
        .collect();
    let summary = context! {
        id => t.id.clone(), name => t.name.clone(), variant => t.variant.clone(), status => t.status.clone(),
        double => t.double, rounds => t.rounds, teams => t.teams, ends_at => t.ends_at.clone(), has_pgn => t.has_pgn,
        finished => t.finished, running => t.running, planned => t.planned, cancelled => t.cancelled,
        players => t.players.iter().map(|p| p.name.clone()).collect::<Vec<_>>(), games => games,
    };
    let ctx = context! {
        t => summary, standings => shown.standings, cross => shown.cross, leave => shown.leave, ..v.context()
    };
    Ok(html(StatusCode::OK, render("page/tournament.html", ctx)?))
}

/// What the public tournament page and the desk's tournament page show
/// alike, for `page/tournament_tables.html`: the standings' lines, the
/// crosstable's rows, and the leave policy in words.
pub(super) struct Shown {
    /// The standings, best first.
    pub(super) standings: Vec<Value>,
    /// One row a player: name, withdrawn, and a cell per player (`x` on the diagonal).
    pub(super) cross: Vec<Value>,
    /// The leave policy, worded.
    pub(super) leave: String,
}

impl Shown {
    pub(super) fn of(t: &TournamentView) -> Shown {
        let standings = t
            .standings
            .iter()
            .map(|s| {
                context! {
                    rank => s.line.rank, name => s.name.clone(), points => s.line.points.to_string(),
                    tiebreak => s.line.tiebreak.to_string(), wins => s.line.wins, played => s.line.played,
                }
            })
            .collect();
        let cross = t
            .players
            .iter()
            .map(|p| {
                let cells: Vec<String> = (0..t.players.len())
                    .map(|q| if q == p.player { "x".to_owned() } else { t.crosstable[p.player][q].scores.join(" ") })
                    .collect();
                context! { name => p.name.clone(), withdrawn => p.withdrawn_at.is_some(), cells => cells }
            })
            .collect();
        Shown { standings, cross, leave: leave_text(t.leave) }
    }
}

/// A tournament's leave policy as its pages say it.
pub(super) fn leave_text(leave: LeavePolicy) -> String {
    match leave {
        LeavePolicy::Allowed => "leave allowed (every day of leave stops the clocks)".into(),
        LeavePolicy::None => "no leave (leave does not stop the clocks)".into(),
        LeavePolicy::CappedDays(n) => format!("leave capped at {n} days a year"),
    }
}
