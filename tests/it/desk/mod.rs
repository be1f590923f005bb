//! The organiser's desk (issue 31): the director's tools over HTTP (adjudicate,
//! abort, extend, replace, relink) in two-, three- and four-seat games, what
//! `verify` makes of them, a director's token confined to its tournament, the
//! lists of games, and the desk pages.

mod api;
mod openpgp; // issue 33: OpenPGP keys given at the desk
mod pages;
mod tournament_pages;

use std::path::Path;

use serde_json::json;

use crate::support::Server;
use crate::support::webdriver::Chromium;

/// Headless Chromium signed in at the desk with the operator token.
async fn chromium_operator(s: &Server) -> Chromium {
    let shots = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    let browser = Chromium::start(1000, 900, &shots).await;
    browser.open(&format!("{}/desk", s.base)).await;
    browser.wait_for_text("Operator or director token").await;
    browser.script("document.querySelector('#token').value = arguments[0];", json!([s.operator])).await;
    browser.click("#desk-sign-in").await;
    browser.wait_for_text("Signed in as the operator").await;
    browser
}

/// A two-player chess tournament `name` (Eve and Fay) created over the API; its id.
async fn two_player_cup(s: &Server, name: &str) -> String {
    s.post_json(
        "/api/tournaments",
        Some(&s.operator),
        &json!({"name": name, "variant": "chess", "players": [
            {"name": "Eve", "email": "eve@example.org"}, {"name": "Fay", "email": "fay@example.org"}]}),
    )
    .await
    .ok(201)["tournament"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Names `director` the director of a new tournament `tournament` holding
/// `games`, written straight into the steward's store (the desk's tests
/// need a director without playing a tournament); returns the director's token.
fn director(data_dir: &Path, tournament: &str, director: &str, games: &[&str]) -> String {
    let token = format!("director-token-{tournament}");
    let hash = fairsteward::ids::SeatToken::from_presented(&token).hash();
    let db = crate::support::backend::Db::of(data_dir);
    db.execute(
        "INSERT INTO tournaments (id, name, variant, spec, status, created_at) VALUES (?1, 'Club 2026', 'chess', '{}', 'running', '2026-01-01T00:00:00.000Z')",
        &[tournament.into()],
    );
    db.execute(
        "INSERT INTO directors (token_hash, tournament, name, created_at) VALUES (?1, ?2, ?3, '2026-01-01T00:00:00.000Z')",
        &[hash.into(), tournament.into(), director.into()],
    );
    for (slot, g) in games.iter().enumerate() {
        db.execute(
            "INSERT INTO tournament_games (tournament, slot, round, players, game) VALUES (?1, ?2, 1, '[0,1]', ?3)",
            &[tournament.into(), (slot as i64).into(), (*g).into()],
        );
    }
    token
}
