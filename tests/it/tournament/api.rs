//! The tournament API: refusals, seat balance of three- and four-seat
//! tournaments, directors, withdrawals, rounds and the end date.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::play::{End, create, finish, players, view};
use crate::support::Server;

#[tokio::test]
async fn bad_tournaments_are_refused_with_what_to_send() {
    let s = Server::start().await;
    let post = |body: serde_json::Value, token: Option<String>| {
        let s = &s;
        async move { s.post_json("/api/tournaments", token.as_deref(), &body).await }
    };
    let op = Some(s.operator.clone());
    post(json!({"name": "x", "variant": "chess", "players": players(3, "a")}), None)
        .await
        .error(401, "organiser_token_required");
    post(json!({"name": "x", "variant": "chess", "players": players(3, "a")}), Some("nope".into()))
        .await
        .error(401, "organiser_token_required");
    post(json!({"name": "x", "variant": "nochess", "players": players(3, "a")}), op.clone())
        .await
        .error(400, "bad_request");
    let m = post(json!({"name": "x", "variant": "dreierschach", "players": players(2, "a")}), op.clone())
        .await
        .error(400, "bad_request");
    assert!(m.contains("at least 3 players"), "{m}");
    let mut dup = players(3, "a");
    dup[2]["email"] = dup[0]["email"].clone();
    let m = post(json!({"name": "x", "variant": "chess", "players": dup}), op.clone()).await.error(400, "bad_request");
    assert!(m.contains("address"), "{m}");
    let mut dup = players(3, "a");
    dup[2]["name"] = dup[0]["name"].clone();
    post(json!({"name": "x", "variant": "chess", "players": dup}), op.clone()).await.error(400, "bad_request");
    let m = post(json!({"name": "x", "variant": "chess", "ends_at": "soon", "players": players(3, "a")}), op.clone())
        .await
        .error(400, "bad_request");
    assert!(m.contains("2027-06-30"), "{m}");
    post(json!({"name": "x", "variant": "chess", "colour": 1, "players": players(3, "a")}), op.clone())
        .await
        .error(400, "bad_request");
    s.get("/api/tournaments/T000000", None).await.error(404, "unknown_tournament");
}

/// Every pair of players meets, and every player plays about as often.
async fn check_meetings(s: &Server, variant: &str, n: usize, seats: usize) {
    let t = create(s, json!({"name": "Meet", "variant": variant, "players": players(n, variant)})).await;
    let v = view(s, &t.id).await;
    let mut met = BTreeSet::new();
    let mut games = vec![0; n];
    for g in v["games"].as_array().unwrap() {
        let ps: Vec<usize> = g["players"].as_array().unwrap().iter().map(|p| p.as_u64().unwrap() as usize).collect();
        assert_eq!(ps.len(), seats);
        assert_eq!(g["status"], "running");
        for &a in &ps {
            games[a] += 1;
            for &b in &ps {
                if a < b {
                    met.insert((a, b));
                }
            }
        }
    }
    assert_eq!(met.len(), n * (n - 1) / 2, "{variant}: every pair meets");
    let (lo, hi) = (games.iter().min().unwrap(), games.iter().max().unwrap());
    assert!(hi - lo <= 1, "{variant}: games per player {games:?}");
    // Every player takes each seat about as often as the others (within one).
    let mut at = vec![vec![0usize; seats]; n];
    for g in v["games"].as_array().unwrap() {
        for (seat, p) in g["players"].as_array().unwrap().iter().enumerate() {
            at[p.as_u64().unwrap() as usize][seat] += 1;
        }
    }
    for (p, counts) in at.iter().enumerate() {
        let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(hi - lo <= 1, "{variant}: player {p} sits {counts:?} times in each seat");
    }
    // These games have no PGN form: no download is offered, and asking for one says where the records are.
    assert_eq!(v["has_pgn"], false, "{variant}");
    let m = s.get(&format!("/api/tournaments/{}/games.pgn", t.id), None).await.error(404, "no_pgn");
    assert!(m.contains("record.json"), "{m}");
    let page = s.get(&format!("/tournaments/{}", t.id), None).await;
    assert!(!page.text.contains("games.pgn"), "{variant}: the page offers a PGN it has not");
}

#[tokio::test]
async fn three_and_four_seat_tournaments_let_everyone_meet() {
    let s = Server::start().await;
    check_meetings(&s, "dreierschach", 6, 3).await;
    check_meetings(&s, "vierschach", 5, 4).await;
}

#[tokio::test]
async fn a_director_acts_on_its_own_tournament_only() {
    let s = Server::start().await;
    let a = create(&s, json!({"name": "A", "variant": "chess", "players": players(4, "da")})).await;
    let b = create(&s, json!({"name": "B", "variant": "chess", "players": players(4, "db")})).await;
    let named = s
        .post_json(&format!("/api/tournaments/{}/directors", a.id), Some(&s.operator), &json!({"name": "Dana"}))
        .await
        .ok(201);
    let token = named["token"].as_str().unwrap().to_owned();
    let m = s
        .post_json(&format!("/api/tournaments/{}/players/0/withdraw", b.id), Some(&token), &json!({}))
        .await
        .error(403, "forbidden");
    assert!(m.contains(&a.id), "{m}");
    s.post_json(&format!("/api/tournaments/{}/directors", a.id), Some(&token), &json!({"name": "Eve"}))
        .await
        .error(403, "forbidden");
    s.post_json(
        "/api/tournaments",
        Some(&token),
        &json!({"name": "C", "variant": "chess", "players": players(3, "dc")}),
    )
    .await
    .error(403, "forbidden");
    // On its own tournament it adjudicates and withdraws.
    let g = a.seats.keys().next().unwrap().clone();
    s.post_json(
        &format!("/api/tournaments/{}/adjudicate", a.id),
        Some(&token),
        &json!({"results": {g.as_str(): "draw"}}),
    )
    .await
    .ok(200);
    let other = b.seats.keys().next().unwrap().clone();
    s.post_json(
        &format!("/api/tournaments/{}/adjudicate", a.id),
        Some(&token),
        &json!({"results": {other.as_str(): "draw"}}),
    )
    .await
    .error(400, "bad_request");
    let v = view(&s, &a.id).await;
    assert_eq!(v["directors"], json!(["Dana"]));
    assert_eq!(v["finished"], 1);
}

/// The games of player 0, by game id.
fn games_of(t: &super::play::Played, p: usize) -> Vec<String> {
    t.seats.iter().filter(|(_, s)| s.contains(&p)).map(|(g, _)| g.clone()).collect()
}

#[tokio::test]
async fn a_withdrawal_before_half_cancels_all_the_players_games() {
    let s = Server::start().await;
    let t = create(&s, json!({"name": "W", "variant": "chess", "players": players(5, "wb")})).await;
    let mine = games_of(&t, 0);
    assert_eq!(mine.len(), 4);
    // One of four finished: under half.
    let seat = t.seats[&mine[0]].iter().position(|&p| p == 0).unwrap();
    finish(&s, &t, &mine[0], End::Resign(1 - seat)).await; // P0 wins it
    let v = s
        .post_json(&format!("/api/tournaments/{}/players/0/withdraw", t.id), Some(&s.operator), &json!({}))
        .await
        .ok(200);
    assert!(v["players"][0]["withdrawn_at"].is_string());
    assert_eq!(v["cancelled"], 4, "{v}");
    assert!(!v["standings"].as_array().unwrap().iter().any(|l| l["player"] == 0), "P0 leaves the table");
    let total: f64 = v["standings"].as_array().unwrap().iter().map(|l| l["points"].as_f64().unwrap()).sum();
    assert_eq!(total, 0.0, "the won game no longer counts");
    for g in &mine {
        let game = s.get(&format!("/api/games/{g}"), None).await.ok(200);
        assert!(!game["outcome"].is_null(), "{g} is over");
    }
    s.post_json(&format!("/api/tournaments/{}/players/0/withdraw", t.id), Some(&s.operator), &json!({}))
        .await
        .error(400, "bad_request");
}

#[tokio::test]
async fn a_withdrawal_after_half_loses_the_rest_by_default() {
    let s = Server::start().await;
    let t = create(&s, json!({"name": "W", "variant": "chess", "players": players(5, "wa")})).await;
    let mine = games_of(&t, 0);
    for g in &mine[..2] {
        finish(&s, &t, g, End::Draw).await;
    }
    let v = s
        .post_json(&format!("/api/tournaments/{}/players/0/withdraw", t.id), Some(&s.operator), &json!({}))
        .await
        .ok(200);
    let line = v["standings"].as_array().unwrap().iter().find(|l| l["player"] == 0).unwrap().clone();
    assert_eq!(line["points"], 1.0, "two draws, two losses: {line}");
    assert_eq!(line["played"], 4);
    assert_eq!(v["finished"], 4);
    for g in &mine[2..] {
        let seat = t.seats[g].iter().position(|&p| p == 0).unwrap();
        let game = s.get(&format!("/api/games/{g}"), None).await.ok(200);
        let other = game["seats"][1 - seat]["seat"].as_str().unwrap().to_owned();
        assert!(game["outcome"].to_string().contains(&other) || !game["outcome"].is_null(), "{game}");
    }
}

#[tokio::test]
async fn rounds_start_one_after_the_other() {
    let s = Server::start().await;
    let t = create(&s, json!({"name": "R", "variant": "chess", "rounds": true, "players": players(4, "r")})).await;
    assert_eq!(t.tokens.len(), 2, "round 1 only: {}", t.view);
    let v = view(&s, &t.id).await;
    assert_eq!(v["planned"], 4);
    let games: Vec<String> = t.seats.keys().cloned().collect();
    finish(&s, &t, &games[0], End::Resign(0)).await;
    assert_eq!(view(&s, &t.id).await["planned"], 4, "round 2 waits for the round's last game");
    finish(&s, &t, &games[1], End::Resign(1)).await;
    let v = view(&s, &t.id).await;
    assert_eq!(v["planned"], 2, "{v}");
    assert_eq!(v["running"], 2);
    let rounds: BTreeMap<u64, usize> =
        v["games"].as_array().unwrap().iter().filter(|g| g["status"] == "running").fold(BTreeMap::new(), |mut m, g| {
            *m.entry(g["round"].as_u64().unwrap()).or_default() += 1;
            m
        });
    assert_eq!(rounds, BTreeMap::from([(2, 2)]));
}

#[tokio::test]
async fn unfinished_games_are_drawn_at_the_end_date() {
    let dir = tempfile::tempdir().unwrap();
    let start = chrono::DateTime::parse_from_rfc3339("2027-01-01T12:00:00Z").unwrap().to_utc();
    let steward = crate::support::in_process::open(&crate::support::in_process::config_at(dir.path(), start));
    let new: fairsteward::steward::NewTournament = serde_json::from_value(json!({
        "name": "E", "variant": "chess", "ends_at": "2027-06-30", "players": players(3, "e")
    }))
    .unwrap();
    let t = steward.create_tournament(&fairsteward::steward::Organiser::Operator, new, start).await.unwrap();
    assert_eq!(t.tournament.ends_at.as_deref(), Some("2027-06-30T23:59:59.000Z"));
    let before = chrono::DateTime::parse_from_rfc3339("2027-06-30T12:00:00Z").unwrap().to_utc();
    assert!(steward.sweep_tournament_ends(before).await.unwrap().is_empty());
    let after = chrono::DateTime::parse_from_rfc3339("2027-07-01T00:00:00Z").unwrap().to_utc();
    assert_eq!(steward.sweep_tournament_ends(after).await.unwrap().len(), 3);
    let v = steward.tournament(t.tournament.id.clone()).await.unwrap();
    assert_eq!(v.status, "finished");
    assert_eq!(v.finished, 3);
    assert!(v.standings.iter().all(|l| l.line.points == fairsteward::rules::Score(2)), "two draws each");
}
