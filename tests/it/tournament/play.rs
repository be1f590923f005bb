//! Tournaments played out over HTTP: a 5-player chess round robin and a
//! 6-player Fairschach double round robin, with results by mate, resignation,
//! draw agreement and adjudication; the standings and Sonneborn-Berger
//! checked against a computation of this test's own.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::transcript::verified;
use crate::support::{Server, eventually_within, parse_mail, spool_files};

/// A created tournament as the test plays it.
pub struct Played {
    pub id: String,
    pub view: Value,
    /// Game id → each seat's token, in seat order.
    pub tokens: BTreeMap<String, Vec<String>>,
    /// Game id → each seat's player.
    pub seats: BTreeMap<String, Vec<usize>>,
}

/// `n` players named P0.. at p0@example.org..
pub fn players(n: usize, tag: &str) -> Vec<Value> {
    (0..n).map(|i| json!({"name": format!("P{i}"), "email": format!("p{i}.{tag}@example.org")})).collect()
}

/// Creates a tournament with `body` (operator token); must be 201.
pub async fn create(s: &Server, body: Value) -> Played {
    let created = s.post_json("/api/tournaments", Some(&s.operator), &body).await.ok(201);
    let mut tokens: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seats: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for t in created["tokens"].as_array().unwrap() {
        let g = t["game"].as_str().unwrap().to_owned();
        tokens.entry(g.clone()).or_default().push(t["token"].as_str().unwrap().to_owned());
        seats.entry(g).or_default().push(t["player"].as_u64().unwrap() as usize);
    }
    Played {
        id: created["tournament"]["id"].as_str().unwrap().to_owned(),
        view: created["tournament"].clone(),
        tokens,
        seats,
    }
}

pub async fn view(s: &Server, id: &str) -> Value {
    s.get(&format!("/api/tournaments/{id}"), None).await.ok(200)
}

/// How a two-seat game of the test ends.
#[derive(Clone, Copy, Debug)]
pub enum End {
    /// Fool's mate: black mates (chess only).
    Mate,
    /// The seat resigns.
    Resign(usize),
    /// Both seats agree.
    Draw,
    /// The director adjudicates: the winning seat's name or "draw".
    Adjudicate(&'static str),
}

/// Plays game `g` to `end`; returns each seat's score in half points.
pub async fn finish(s: &Server, t: &Played, g: &str, end: End) -> Vec<u32> {
    let tok = &t.tokens[g];
    match end {
        End::Mate => {
            for (turn, seat, mv) in [(1, 0, "f3"), (2, 1, "e5"), (3, 0, "g4"), (4, 1, "Qh4#")] {
                s.mv(g, &tok[seat], turn, mv).await.ok(200);
            }
            vec![0, 2]
        }
        End::Resign(seat) => {
            s.post_json(&format!("/api/games/{g}/resign"), Some(&tok[seat]), &json!({})).await.ok(200);
            if seat == 0 { vec![0, 2] } else { vec![2, 0] }
        }
        End::Draw => {
            for token in &tok[..2] {
                s.post_json(&format!("/api/games/{g}/draw"), Some(token), &json!({"action": "offer"})).await.ok(200);
            }
            vec![1, 1]
        }
        End::Adjudicate(result) => {
            let body = json!({"results": {g: result}, "reason": "a clear win on the board"});
            s.post_json(&format!("/api/tournaments/{}/adjudicate", t.id), Some(&s.operator), &body).await.ok(200);
            match result {
                "draw" => vec![1, 1],
                "white" => vec![2, 0],
                _ => vec![0, 2],
            }
        }
    }
}

/// Points (half points) and Sonneborn-Berger (quarter points: the sum over
/// games of one's score times the opponent's total) per player, computed here
/// from the games' scores alone.
fn expected(n: usize, results: &[(Vec<usize>, Vec<u32>)]) -> (Vec<u32>, Vec<u32>) {
    let mut points = vec![0; n];
    for (players, scores) in results {
        for (p, s) in players.iter().zip(scores) {
            points[*p] += s;
        }
    }
    let mut sb = vec![0; n];
    for (players, scores) in results {
        sb[players[0]] += scores[0] * points[players[1]];
        sb[players[1]] += scores[1] * points[players[0]];
    }
    (points, sb)
}

/// Checks the table against [`expected`].
fn check_standings(v: &Value, n: usize, results: &[(Vec<usize>, Vec<u32>)]) {
    let (points, sb) = expected(n, results);
    let table = v["standings"].as_array().unwrap();
    assert_eq!(table.len(), n, "{v}");
    let mut last = f64::INFINITY;
    for line in table {
        let p = line["player"].as_u64().unwrap() as usize;
        let got = line["points"].as_f64().unwrap();
        assert_eq!(got, f64::from(points[p]) / 2.0, "points of P{p}: {line}");
        assert_eq!(line["tiebreak"].as_f64().unwrap(), f64::from(sb[p]) / 4.0, "SB of P{p}: {line}");
        assert!(got <= last, "best first: {table:?}");
        last = got;
        let played = results.iter().filter(|(ps, _)| ps.contains(&p)).count();
        assert_eq!(line["played"].as_u64().unwrap() as usize, played, "{line}");
    }
    assert_eq!(table[0]["rank"], 1);
}

#[tokio::test]
async fn a_five_player_round_robin_is_played_out() {
    let s = Server::start().await;
    let t = create(&s, json!({"name": "Club championship", "variant": "chess", "players": players(5, "rr")})).await;
    assert_eq!(t.tokens.len(), 10, "every pair once: {}", t.view);
    // Every pair meets once; colours balanced within one.
    let mut met = BTreeMap::new();
    let mut whites = [0; 5];
    for seats in t.seats.values() {
        *met.entry((seats[0].min(seats[1]), seats[0].max(seats[1]))).or_insert(0) += 1;
        whites[seats[0]] += 1;
    }
    assert_eq!(met.len(), 10);
    assert!(met.values().all(|&m| m == 1));
    assert!(whites.iter().all(|&w| (1..=3).contains(&w)), "colours {whites:?}");
    let ends = [
        End::Mate,
        End::Resign(0),
        End::Resign(1),
        End::Draw,
        End::Adjudicate("white"),
        End::Draw,
        End::Resign(1),
        End::Mate,
        End::Adjudicate("draw"),
        End::Resign(0),
    ];
    let mut results = Vec::new();
    for ((g, seats), end) in t.seats.clone().iter().zip(ends) {
        let scores = finish(&s, &t, g, end).await;
        results.push((seats.clone(), scores));
        let v = view(&s, &t.id).await;
        check_standings_partial(&v, &results);
    }
    let v = view(&s, &t.id).await;
    check_standings(&v, 5, &results);
    assert_eq!(v["finished"], 10);
    assert_eq!(v["running"], 0);
    assert_eq!(v["status"], "finished");
    // The crosstable: each finished pair has one score each way, adding to 1.
    for (players, scores) in &results {
        let (a, b) = (players[0], players[1]);
        let ab = v["crosstable"][a][b]["scores"].as_array().unwrap();
        assert_eq!(ab.len(), 1);
        let score = |x: &str| match x {
            "1" => 2,
            "½" => 1,
            _ => 0,
        };
        assert_eq!(score(ab[0].as_str().unwrap()), scores[0]);
    }
    // CSV: a header and a line per player; PGN: every game.
    let csv = s.get(&format!("/api/tournaments/{}/standings.csv", t.id), None).await;
    assert_eq!(csv.status, 200);
    assert!(csv.content_type.starts_with("text/csv"));
    assert_eq!(csv.text.lines().count(), 6, "{}", csv.text);
    assert!(csv.text.starts_with("rank,player,name,points,tiebreak,wins,played,withdrawn"));
    let pgn = s.get(&format!("/api/tournaments/{}/games.pgn", t.id), None).await;
    assert_eq!(pgn.status, 200, "{}", pgn.text);
    assert_eq!(pgn.text.matches("[Event ").count(), 10, "{}", pgn.text);
    assert!(pgn.text.contains("Qh4#"), "{}", pgn.text);

    // Mail: one start mail per player listing their four games, no per-game
    // start mails, and a result notice to all five players per game.
    let spool = s.config.spool_dir.clone();
    // Every game's board mails are drawn before its notices: on a busy
    // machine the outbox needs longer than the usual 10 s.
    let mails = eventually_within(Duration::from_secs(90), "the start mails and 50 result notices", || {
        let all: Vec<_> = spool_files(&spool).values().map(|m| parse_mail(m)).collect();
        let notices = all.iter().filter(|m| m.header("Subject").contains(" is over (")).count();
        (notices == 50).then_some(all)
    })
    .await;
    let starts: Vec<_> = mails.iter().filter(|m| m.header("Subject").contains("the tournament begins")).collect();
    assert_eq!(starts.len(), 5);
    for m in &starts {
        let text = m.all_text();
        assert!(m.header("Subject").contains("your 4 games"), "{}", m.header("Subject"));
        assert_eq!(text.matches("#sign-in=").count(), 4, "a private link per game: {text}");
    }
    assert!(!mails.iter().any(|m| m.header("Subject").contains(") begins")), "no per-game start mail");
    let notice = mails.iter().find(|m| m.header("Subject").contains(" is over (")).unwrap().all_text();
    assert!(notice.contains("Standings ("), "{notice}");
    assert!(notice.contains(&format!("/tournaments/{}", t.id)), "{notice}");
}

/// While play goes on the points add up to the games finished.
fn check_standings_partial(v: &Value, results: &[(Vec<usize>, Vec<u32>)]) {
    let total: f64 = v["standings"].as_array().unwrap().iter().map(|l| l["points"].as_f64().unwrap()).sum();
    let expect: u32 = results.iter().map(|(_, s)| s.iter().sum::<u32>()).sum();
    assert_eq!(total, f64::from(expect) / 2.0, "{v}");
    assert_eq!(v["finished"].as_u64().unwrap() as usize, results.len());
}

#[tokio::test]
async fn a_six_player_fairschach_double_round_robin_is_played_out() {
    let s = Server::start().await;
    let t = create(
        &s,
        json!({"name": "Fairschach league", "variant": "fairschach", "double": true, "players": players(6, "fs")}),
    )
    .await;
    assert_eq!(t.tokens.len(), 30, "every pair twice");
    // Every ordered pair once: colours swapped in the second cycle.
    let mut ordered = BTreeMap::new();
    for seats in t.seats.values() {
        *ordered.entry((seats[0], seats[1])).or_insert(0) += 1;
    }
    assert_eq!(ordered.len(), 30);
    let cycle = [End::Resign(0), End::Draw, End::Resign(1), End::Adjudicate("black"), End::Adjudicate("white")];
    let mut results = Vec::new();
    for (i, (g, seats)) in t.seats.clone().iter().enumerate() {
        let scores = finish(&s, &t, g, cycle[i % cycle.len()]).await;
        results.push((seats.clone(), scores));
    }
    let v = view(&s, &t.id).await;
    check_standings(&v, 6, &results);
    assert_eq!(v["finished"], 30);
    assert_eq!(v["status"], "finished");
}

/// How a game of [`timeouts_score_and_every_kind_of_end_verifies`] ends.
#[derive(Clone, Copy, Debug)]
enum Plan {
    Play(End),
    /// The seat runs out of time (white before its first move, black after white's).
    Timeout(usize),
    /// White's player is replaced by the operator; the new player opens, black resigns.
    Replaced,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_score_and_every_kind_of_end_verifies() {
    let t0 = chrono::DateTime::parse_from_rfc3339("2026-03-02T12:00:00Z").unwrap().with_timezone(&chrono::Utc);
    let clock = fairsteward::clock::Clock::manual(t0);
    let s = Server::start_at(clock.clone()).await;
    let t = create(
        &s,
        json!({"name": "Timed cup", "variant": "chess", "options": {"clock": "days_per_move days=3"}, "players": players(5, "tm")}),
    )
    .await;
    let plan = [
        Plan::Play(End::Mate),
        Plan::Play(End::Resign(0)),
        Plan::Timeout(0),
        Plan::Play(End::Draw),
        Plan::Play(End::Adjudicate("white")),
        Plan::Timeout(1),
        Plan::Play(End::Resign(1)),
        Plan::Replaced,
        Plan::Play(End::Adjudicate("draw")),
        Plan::Play(End::Resign(0)),
    ];
    let games: Vec<(String, Vec<usize>)> = t.seats.clone().into_iter().collect();
    let mut results = Vec::new();
    let mut timed = Vec::new();
    let mut by_plan: BTreeMap<&str, String> = BTreeMap::new();
    for ((g, seats), p) in games.iter().zip(plan) {
        let tok = &t.tokens[g];
        let scores = match p {
            Plan::Play(end) => finish(&s, &t, g, end).await,
            Plan::Timeout(seat) => {
                if seat == 1 {
                    s.mv(g, &tok[0], 1, "e4").await.ok(200);
                }
                timed.push(g.clone());
                if seat == 0 { vec![0, 2] } else { vec![2, 0] }
            }
            Plan::Replaced => {
                let a = s
                    .post_json(
                        &format!("/api/games/{g}/seats/white/replace"),
                        Some(&s.operator),
                        &json!({"name": "Erin", "email": "erin.tm@example.org", "reason": "the player vanished"}),
                    )
                    .await
                    .ok(201);
                let erin = a["token"].as_str().unwrap();
                s.mv(g, &tok[0], 1, "e4").await.error(401, "bad_token");
                s.mv(g, erin, 1, "e4").await.ok(200);
                s.post_json(&format!("/api/games/{g}/resign"), Some(&tok[1]), &json!({})).await.ok(200);
                vec![2, 0]
            }
        };
        let kind = match p {
            Plan::Play(End::Mate) => "mate",
            Plan::Play(End::Adjudicate("white")) => "adjudicated",
            Plan::Timeout(1) => "timeout",
            Plan::Replaced => "replaced",
            _ => "",
        };
        by_plan.insert(kind, g.clone());
        results.push((seats.clone(), scores));
    }
    // Time runs out for the two games nobody finished: the sweep at the
    // latest final deadline takes both.
    let mut flag = t0;
    for g in &timed {
        let v = s.get(&format!("/api/games/{g}"), None).await.ok(200);
        for seat in v["seats"].as_array().unwrap() {
            if let Some(f) = seat["clock"]["final_deadline"].as_str() {
                flag = flag.max(chrono::DateTime::parse_from_rfc3339(f).unwrap().with_timezone(&chrono::Utc));
            }
        }
    }
    assert!(flag > t0 + chrono::TimeDelta::days(3) - chrono::TimeDelta::seconds(1), "{flag}");
    clock.set(flag + chrono::TimeDelta::seconds(1));
    let report = crate::support::sweep(&s.config.data_dir, flag + chrono::TimeDelta::seconds(1));
    assert_eq!(report["timeouts"].as_array().unwrap().len(), 2, "{report}");
    assert_eq!(report["errors"], json!([]), "{report}");
    // The timeouts score like any loss: the table against our own computation.
    let v = view(&s, &t.id).await;
    check_standings(&v, 5, &results);
    assert_eq!(v["finished"], 10, "{v}");
    assert_eq!(v["status"], "finished");

    // verify (the real binary) on each kind of end, and its words for it.
    let out = verified(&s.api(), &by_plan["mate"]).await;
    assert!(out.contains("as the rules give it"), "{out}");
    let out = verified(&s.api(), &by_plan["adjudicated"]).await;
    assert!(out.contains("decided by an organiser, not played to its end"), "{out}");
    assert!(out.contains("adjudicat"), "{out}");
    let out = verified(&s.api(), &by_plan["timeout"]).await;
    assert!(out.contains("after the timeout of"), "{out}");
    let out = verified(&s.api(), &by_plan["replaced"]).await;
    assert!(out.contains("1 seats given to a new player by an organiser"), "{out}");
    assert!(out.contains("as the rules give it"), "{out}");

    // A withdrawal before half: the finished game is cancelled (a signed
    // entry says so), the running ones aborted; each verifies and says how.
    let w = create(&s, json!({"name": "Short-lived", "variant": "chess", "players": players(4, "wd")})).await;
    let p0: Vec<&String> = w.seats.iter().filter(|(_, ps)| ps.contains(&0)).map(|(g, _)| g).collect();
    assert_eq!(p0.len(), 3);
    finish(&s, &w, p0[0], End::Resign(0)).await;
    s.post_json(&format!("/api/tournaments/{}/players/0/withdraw", w.id), Some(&s.operator), &json!({})).await.ok(200);
    let out = verified(&s.api(), p0[0]).await;
    assert!(out.contains("as the rules give it"), "{out}");
    assert!(out.contains("cancelled afterwards by the operator"), "{out}");
    assert!(out.contains("no longer counts"), "{out}");
    let transcript = s.get(&format!("/api/games/{}/transcript", p0[0]), None).await.text;
    assert!(transcript.lines().last().unwrap().contains("\"cancelled\""), "{transcript}");
    let out = verified(&s.api(), p0[1]).await;
    assert!(out.contains("decided by an organiser"), "{out}");
    assert!(out.contains("abort"), "{out}");
    let wv = view(&s, &w.id).await;
    assert_eq!(wv["finished"], 0, "the cancelled game left the standings: {wv}");
}
