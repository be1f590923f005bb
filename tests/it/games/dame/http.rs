//! A three-seat Trialectic Dame game over HTTP, from the start to the last seat
//! standing (`docs/rules/trialectic-dame.md`), and seats leaving by resignation and
//! timeout.
//!
//! The steward runs in-process (`fairsteward::server::serve` on a loopback port,
//! with its own temporary data directory), as in `tests/it/web/api.rs`. The game is
//! `support::dame_game`'s: yellow is out after turn 20 and skipped, red wins
//! at turn 28.

use crate::support as common;
use crate::support::dame_game;
use crate::support::in_process;

use in_process::seat;

use std::time::Duration;

use chrono::Utc;
use common::{MAIL_DOMAIN, Server, eventually_within, parse_mail, spool_files};
use dame_game::{FINAL, PLAY, START, YELLOW_OUT};
use fairsteward::steward::{Credential, MoveRequest, NewGame, Submission};
use serde_json::{Value, json};

const SEATS: [&str; 3] = ["yellow", "red", "blue"];
const PLAYERS: [(&str, &str); 3] =
    [("Yara", "yara@example.org"), ("Ruth", "ruth@example.org"), ("Ben", "ben@example.org")];

/// The width and height of a PNG.
#[track_caller]
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
    let decoded = resvg::tiny_skia::Pixmap::decode_png(png).expect("a PNG that decodes");
    (decoded.width(), decoded.height())
}

/// Runs `fairsteward verify --url` on the game's transcript.
async fn verify(base: &str, id: &str) -> std::process::Output {
    let url = format!("{base}/api/games/{id}/transcript");
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_fairsteward"))
            .args(["verify", "--url", &url])
            .output()
            .expect("the binary runs")
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_seats_play_to_the_last_seat_standing() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let seats: Vec<Value> = PLAYERS.iter().map(|(name, email)| json!({"name": name, "email": email})).collect();
    let created = s.post_json("/api/games", None, &json!({"variant": "trialectic-dame", "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    let token_seats: Vec<&str> =
        created["tokens"].as_array().unwrap().iter().map(|t| t["seat"].as_str().unwrap()).collect();
    assert_eq!(token_seats, SEATS, "one token per seat, in seat order");
    let v = s.game(&id, None).await;
    assert_eq!((v["state"].as_str(), v["turn"].as_u64()), (Some(START), Some(1)));
    assert_eq!(v["to_move"], json!(["yellow"]));

    for (i, &(seat, text, next)) in PLAY.iter().enumerate() {
        let turn = i as u32 + 1;
        // Another seat may not move; one that is out is told so too.
        let other = (seat + 1) % 3;
        let m = s.mv(&id, &tokens[other], turn, "126-117").await.error(409, "not_your_turn");
        assert!(m.contains(&format!("{} is not to move", SEATS[other])), "turn {turn}: {m}");
        if turn as usize > YELLOW_OUT {
            s.mv(&id, &tokens[0], turn, "126-117").await.error(409, "not_your_turn");
        }
        let r = s.mv(&id, &tokens[seat], turn, text).await.ok(200);
        assert_eq!(r["resolved"], true, "a turn is one move: {r}");
        let v = s.game(&id, None).await;
        let expected: Vec<&str> = next.map(|n| SEATS[n]).into_iter().collect();
        assert_eq!(v["to_move"], json!(expected), "after turn {turn} ({} {text})", SEATS[seat]);
        let control = v["state"].as_str().unwrap().split(' ').nth(2).unwrap().to_owned();
        let expected = match turn as usize {
            ..YELLOW_OUT => "yrb",
            YELLOW_OUT..28 => "-rb",
            _ => "-r-",
        };
        assert_eq!(control, expected, "who is in after turn {turn}");
        if turn == 20 {
            // The four-jump, seen by every seat: the whole path and every captured stone.
            for name in SEATS {
                let svg = s.get(&format!("/api/games/{id}/board.svg?seat={name}"), None).await;
                let svg = String::from_utf8(svg.body).unwrap();
                assert_eq!(svg.matches("class=\"captured\"").count(), 4, "{name}");
                assert_eq!(svg.matches("class=\"arrow-path\"").count(), 1, "{name}");
                assert_eq!(svg.matches("class=\"last-move\"").count(), 5, "{name}: five cells of the path");
            }
        }
    }

    let v = s.game(&id, None).await;
    assert_eq!(v["state"], FINAL);
    assert_eq!(v["to_move"], json!([]));
    assert_eq!(
        v["outcome"],
        json!({"result": "red wins (last seat in the game)", "winner": "red", "reason": "last seat in the game"})
    );
    let history = v["history"].as_array().unwrap();
    assert_eq!(history.len(), 28);
    for (t, &(seat, text, _)) in history.iter().zip(PLAY.iter()) {
        assert_eq!(
            without_number(&t["moves"]),
            json!([{"seat": SEATS[seat], "move": text, "status": "played"}]),
            "{t}"
        );
    }
    s.mv(&id, &tokens[1], 29, "423-333").await.error(409, "game_over");

    // The transcript replays: every resolution, the elimination and the end.
    let out = verify(&s.base, &id).await;
    assert!(
        out.status.success(),
        "verify: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    // The mails: a start mail and 28 board mails for every seat, yellow's too.
    let expected: Vec<String> = (0..3)
        .flat_map(|seat| {
            let id = id.as_str();
            std::iter::once(format!("{id}.0.{seat}.started@{MAIL_DOMAIN}.eml"))
                .chain((1..=28).map(move |turn| format!("{id}.{turn}.{seat}.turn@{MAIL_DOMAIN}.eml")))
        })
        .collect();
    let files = eventually_within(Duration::from_secs(30), "every board mail in the spool", || {
        let files = spool_files(&spool);
        expected.iter().all(|name| files.contains_key(name)).then_some(files)
    })
    .await;
    for seat in 0..3 {
        for turn in [11, 20, 28] {
            let mail = parse_mail(&files[&format!("{id}.{turn}.{seat}.turn@{MAIL_DOMAIN}.eml")]);
            assert_eq!(mail.kinds(), ["text/plain", "text/html", "image/png"], "turn {turn}, seat {seat}");
            let text = mail.text("text/plain");
            let (_, played, _) = PLAY[turn - 1];
            assert!(text.contains(&format!("red: {played} - played")), "turn {turn}, seat {seat}:\n{text}");
            // The text board marks the path `+` and each captured stone `x`.
            let board: Vec<&str> = text.lines().filter(|l| l.contains(" . ") || l.contains("rC")).collect();
            let captured: usize = board.iter().map(|l| l.matches(" x").count() + l.matches("x.").count()).sum();
            let taken = played.matches('x').count();
            assert!(captured >= taken, "turn {turn}, seat {seat}: {taken} captures marked x:\n{text}");
            assert!(text.contains("+ last move, x captured"), "{text}");
            let png = &mail.parts[2].content;
            let (w, h) = png_size(png);
            assert!(w > 400 && h > 400, "{w}x{h}");
        }
    }
    // Yellow, out after turn 20, still hears how the game goes on and ends.
    let last = parse_mail(&files[&format!("{id}.28.0.turn@{MAIL_DOMAIN}.eml")]);
    assert_eq!(last.header("Subject"), format!("Game {id} is over: red wins (last seat in the game)"));
    // Each seat's picture shows its own side at the bottom.
    let mut pngs = Vec::new();
    for name in SEATS {
        let png = s.get(&format!("/api/games/{id}/board.png?seat={name}&size=300"), None).await;
        assert_eq!(png.status, 200);
        pngs.push(png.body);
    }
    assert!(pngs[0] != pngs[1] && pngs[1] != pngs[2] && pngs[0] != pngs[2], "three views");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_that_resigns_or_runs_out_of_time_leaves_and_play_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let start: chrono::DateTime<Utc> = "2026-11-23T12:00:00Z".parse().unwrap();
    let config = in_process::config_at(dir.path(), start);
    let steward = in_process::open(&config);
    let mut options = std::collections::BTreeMap::new();
    options.insert("clock".to_owned(), json!({"kind": "days_per_move", "days": 1}));
    let created = steward
        .create_game(
            NewGame {
                variant: "trialectic-dame".into(),
                options,
                seats: vec![seat("Yara"), seat("Ruth"), seat("Ben")],
                invite: false,
            },
            start,
        )
        .await
        .unwrap();
    let id = created.game.id.clone();
    let token = |i: usize| Some(Credential::Token(created.tokens[i].token.clone()));

    // Blue resigns while yellow is to move: its stones leave, play goes on.
    let v = steward.resign(id.clone(), token(2), start).await.unwrap();
    assert!(v.outcome.is_none(), "{v:?}");
    assert!(!v.state.contains('b'), "blue's stones are gone: {}", v.state);
    assert!(v.state.ends_with(" y yr- - 0 1"), "{}", v.state);
    assert_eq!(v.to_move, vec!["yellow".to_owned()]);
    assert!(steward.resign(id.clone(), token(2), start).await.is_err(), "out already");

    // Yellow moves; the turn passes to red, then over blue's empty seat back to yellow.
    let mv = |seat: usize, turn: u32, text: &str| MoveRequest {
        game: id.clone(),
        credential: token(seat),
        submission: Submission::Move { turn, text: text.into() },
        kept: steward.kept_copy(text.as_bytes()),
        door: fairsteward::steward::Door::Http,
    };
    steward.submit_move(mv(0, 1, "126-117"), start).await.unwrap();
    let v = steward.status(id.clone(), None).await.unwrap();
    assert_eq!(v.to_move, vec!["red".to_owned()]);
    steward.submit_move(mv(1, 2, "207-117"), start).await.expect_err("capturing is compulsory");
    steward.submit_move(mv(1, 2, "216x018"), start).await.unwrap();
    let v = steward.status(id.clone(), None).await.unwrap();
    assert_eq!(v.to_move, vec!["yellow".to_owned()], "blue is skipped");
    assert!(v.state.ends_with(" y yr- - 0 2"), "{}", v.state);

    // Yellow lets the day pass: it times out, leaves the board, red is the last seat.
    let later = start + chrono::Duration::hours(25);
    config.clock.set(later);
    steward.sweep(later).await.unwrap();
    let v = steward.status(id.clone(), None).await.unwrap();
    let o = v.outcome.expect("the game is over");
    assert_eq!((o.winner.as_deref(), o.reason.as_str()), (Some("red"), "time"));
    let events = steward.transcript(id.clone(), None).await.unwrap();
    assert_eq!(events.iter().filter(|e| e.kind == "resigned").count(), 1);
    assert_eq!(events.iter().filter(|e| e.kind == "timeout").count(), 1);
    let text = in_process::transcript(&id, &events);
    fairsteward::protocol::verify::verify(&text, &steward.keys().signing_public()).expect("the transcript replays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_needs_the_seats_still_in_and_scores_them() {
    let dir = tempfile::tempdir().unwrap();
    let config = in_process::config(dir.path());
    let steward = in_process::open(&config);
    let created = steward
        .create_game(
            NewGame {
                variant: "trialectic-dame".into(),
                options: Default::default(),
                seats: vec![seat("Yara"), seat("Ruth"), seat("Ben")],
                invite: false,
            },
            Utc::now(),
        )
        .await
        .unwrap();
    let id = created.game.id.clone();
    let token = |i: usize| Some(Credential::Token(created.tokens[i].token.clone()));
    steward.resign(id.clone(), token(1), Utc::now()).await.unwrap();
    use fairsteward::steward::DrawAction;
    let v = steward.draw(id.clone(), token(0), DrawAction::Offer, Utc::now()).await.unwrap();
    assert!(v.outcome.is_none());
    // Red is out: its word decides nothing; blue's is needed.
    let v = steward.draw(id.clone(), token(1), DrawAction::Accept, Utc::now()).await.unwrap();
    assert!(v.outcome.is_none(), "{v:?}");
    let v = steward.draw(id.clone(), token(2), DrawAction::Accept, Utc::now()).await.unwrap();
    let o = v.outcome.expect("drawn");
    assert_eq!(o.reason, "agreement");
    assert_eq!(o.result, "draw, 1/2 each for yellow, blue (agreement)");
    let events = steward.transcript(id.clone(), None).await.unwrap();
    fairsteward::protocol::verify::verify(&in_process::transcript(&id, &events), &steward.keys().signing_public())
        .expect("the transcript replays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_given_as_data_is_played_and_drawn() {
    let s = Server::start().await;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/dame-hexagon.json");
    let record: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let seats: Vec<Value> = PLAYERS.iter().map(|(name, email)| json!({"name": name, "email": email})).collect();
    // A broken record is refused with its problems.
    let mut broken = record.clone();
    broken["neighbours"]["c3"]["e"] = json!("a1");
    let body = json!({"variant": "trialectic-dame", "options": {"board": broken}, "seats": seats});
    let m = s.post_json("/api/games", None, &body).await.error(400, "bad_request");
    assert!(m.contains("invalid board record") && m.contains("c3 e is a1"), "{m}");
    // The record as an object (or as its JSON text).
    let body = json!({"variant": "trialectic-dame", "options": {"board": record}, "seats": seats});
    let created = s.post_json("/api/games", None, &body).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    assert_eq!(s.game(&id, None).await["state"], ".../rrbb/.r.b./.yy./.y. y yrb - 0 1");
    s.mv(&id, &tokens[0], 1, "b3-c3").await.ok(200);
    // Red must take twice: start and final cell name the jump.
    let m = s.mv(&id, &tokens[1], 2, "c2-c3").await.error(422, "illegal_move");
    assert!(m.contains("capturing is compulsory") && m.contains("d2xb3xb1"), "{m}");
    s.mv(&id, &tokens[1], 2, "d2xb1").await.ok(200);
    s.mv(&id, &tokens[2], 3, "c4-b3").await.ok(200);
    let v = s.game(&id, None).await;
    assert_eq!(v["state"], ".../r.bb/.r.../r.b./.y. y yrb - 0 2", "{v}");
    // Drawn from the record: 19 triangles, each seat's own picture.
    for name in SEATS {
        let svg = s.get(&format!("/api/games/{id}/board.svg?seat={name}"), None).await;
        let svg = String::from_utf8(svg.body).unwrap();
        let cells = svg.split("<g id=\"cells\"").nth(1).unwrap().split("</g>").next().unwrap();
        assert_eq!(cells.matches("<polygon").count(), 19, "{name}");
        assert!(svg.contains("class=\"last-move\""), "{name}: blue's c4-b3 marked");
    }
    let png = s.get(&format!("/api/games/{id}/board.png?seat=blue"), None).await;
    assert_eq!(png.status, 200);
    png_size(&png.body);
    // The start mail names the record by its size, not its text.
    let spool = s.config.spool_dir.clone();
    let name = format!("{id}.0.0.started@{MAIL_DOMAIN}.eml");
    let files = eventually_within(Duration::from_secs(20), "the start mail", || {
        let files = spool_files(&spool);
        files.contains_key(&name).then_some(files)
    })
    .await;
    let text = parse_mail(&files[&name]).text("text/plain");
    assert!(text.contains("Options: board=(") && !text.contains("neighbours"), "{text}");
}

/// A history turn's moves without their record number (issue 32), which
/// tests/it/games/numbers.rs checks.
fn without_number(moves: &serde_json::Value) -> serde_json::Value {
    let mut moves = moves.clone();
    for m in moves.as_array_mut().into_iter().flatten() {
        m.as_object_mut().map(|o| o.remove("number"));
    }
    moves
}
