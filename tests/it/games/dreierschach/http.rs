//! Three-seat Dreierschach games over HTTP (`docs/rules/dreierschach.md`): one played
//! from the start to a mate scored 3-0-1, with a board mail to every seat after
//! every move; draws all three agree to (one offered with a move, the author's
//! `=`, §8); one ended by a timeout,
//! which is a resignation at that moment (§7, Decisions): the late seat in check
//! scores as if mated. The transcripts verify offline.
//!
//! The steward runs in-process (`fairsteward::server::serve` on a loopback port,
//! with its own temporary data directory), as in `tests/it/web/api.rs`. The mate was
//! found with the engine and checked with `fairsteward rules dreierschach play`:
//!
//! | round | white | brown | black |
//! | --- | --- | --- | --- |
//! | 1 | a3-c2 | h4-h5 | m12-m11 |
//! | 2 | c2-f4 | e1-e2 | l12-l11 |
//! | 3 | f4-i6 | e2-e3 | k12-k11 |
//! | 4 | a7-d8 | e3-e4 | j12-j11 |
//! | 5 | d8-f7 | f2-f3 | i12-i11 |
//! | 6 | f7-h6, mate | | |
//!
//! Brown's king j5 is boxed in by its own knight, pawns and queen, and its
//! diagonal passages are shut. White's knight on h6 checks it; the only piece
//! that could take the knight, the pawn i5, passes between i6 (White's other
//! knight) and h5 (Brown's own pawn, moved there in round 1): shut. Black does
//! not attack Brown's king, so White, the first attacker after Brown in turn
//! order... is not Black: White scores 3, Black 1, Brown 0.

use crate::support as common;
use crate::support::dreierschach_game;
use crate::support::in_process;

use std::time::Duration;

use chrono::Utc;
use common::{MAIL_DOMAIN, Part, Server, eventually_within, parse_mail, spool_files};
use fairsteward::steward::{Credential, MoveRequest, NewGame, Submission};
use serde_json::{Value, json};

/// The start, `docs/rules/dreierschach.md` §9.
const START: &str = "nRnP2bPbR/nBnP3bPbN/nNnP4bPbB/nKnP5bPbQ/nQnP6bPbK/nBnP7bPbN/nNnP8bPbB/nRnP9bPbR/nP10bP/11/10/wPwPwPwPwPwPwPwPwP/wRwBwNwKwQwBwNwR w a1,a8,f1,f13,m8,m13 - 0 1";
/// After the mate (`fairsteward rules dreierschach play`): Brown, mated, is the
/// state's seat.
const MATED: &str = "nRnP1bP1bR/nBnP2bP1bN/nNnP3bP1bB/nKnP4bP1bQ/nQnPwN4bP1bK/nB1nPwN5bPbN/nNnP8bPbB/nR1nP8bPbR/3nP7bP/11/10/wPwPwPwPwPwPwPwPwP/wRwB1wKwQwB1wR n a1,a8,f1,f13,m8,m13 - 1 6";
const SEATS: [&str; 3] = ["white", "brown", "black"];
const PLAYERS: [(&str, &str); 3] =
    [("Wilma", "wilma@example.org"), ("Bruno", "bruno@example.org"), ("Berta", "berta@example.org")];

/// The game: `support::dreierschach_game`'s smothered mate.
const PLAY: [(&str, &str); 16] = dreierschach_game::MATE;

/// The width and height of a PNG.
#[track_caller]
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
    let decoded = resvg::tiny_skia::Pixmap::decode_png(png).expect("a PNG that decodes");
    (decoded.width(), decoded.height())
}

/// Creates a Dreierschach game with `options`; returns its id and the tokens.
async fn create(s: &Server, options: Value) -> (String, Vec<String>) {
    let seats: Vec<Value> = PLAYERS.iter().map(|(name, email)| json!({"name": name, "email": email})).collect();
    let created = s
        .post_json("/api/games", None, &json!({"variant": "dreierschach", "options": options, "seats": seats}))
        .await
        .ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens = created["tokens"].as_array().unwrap();
    let seats: Vec<&str> = tokens.iter().map(|t| t["seat"].as_str().unwrap()).collect();
    assert_eq!(seats, SEATS, "one token per seat, in seat order");
    (id, tokens.iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect())
}

/// The moves a board mail lists since its reader's own last move.
fn since(text: &str) -> Vec<String> {
    text.split("Since your last move:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("the moves since:\n{text}"))
        .lines()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_seats_play_in_turn_to_a_mate_scored_3_0_1() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let (id, tokens) = create(&s, json!({})).await;
    let v = s.game(&id, None).await;
    assert_eq!(v["variant"], "dreierschach");
    assert_eq!(v["state"], START);
    assert_eq!(v["to_move"], json!(["white"]));

    for (i, &(text, _)) in PLAY.iter().enumerate() {
        let turn = i as u32 + 1;
        let seat = i % 3;
        // Only the seat to move may move.
        for other in (0..3).filter(|&o| o != seat) {
            let m = s.mv(&id, &tokens[other], turn, "b1-c1").await.error(409, "not_your_turn");
            assert!(m.contains(&format!("{} to move", SEATS[seat])), "turn {turn}: {m}");
        }
        let r = s.mv(&id, &tokens[seat], turn, text).await.ok(200);
        assert_eq!(r["resolved"], true, "a Dreierschach turn is one move: {r}");
        let v = s.game(&id, None).await;
        assert_eq!(v["turn"], turn + 1);
        if turn < 16 {
            assert_eq!(v["to_move"], json!([SEATS[(seat + 1) % 3]]), "after turn {turn} ({text})");
            assert_eq!(v["outcome"], Value::Null);
        }
    }
    let v = s.game(&id, None).await;
    assert_eq!(v["state"], MATED);
    assert_eq!(v["to_move"], json!([]));
    assert_eq!(
        v["outcome"],
        json!({"result": "white 3, brown 0, black 1 (checkmate)", "winner": "white", "reason": "checkmate"})
    );
    let history = v["history"].as_array().unwrap();
    assert_eq!(history.len(), 16);
    for (i, (t, &(_, written))) in history.iter().zip(PLAY.iter()).enumerate() {
        assert_eq!(
            without_number(&t["moves"]),
            json!([{"seat": SEATS[i % 3], "move": written, "status": "played"}]),
            "{t}"
        );
    }
    let t = s.get(&format!("/api/games/{id}/transcript"), None).await.text;
    let ended: Vec<Value> =
        t.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|e| e["kind"] == "ended").collect();
    assert_eq!(ended.len(), 1, "{t}");
    assert_eq!(ended[0]["body"]["result"], "white 3, brown 0, black 1 (checkmate)");
    assert_eq!(ended[0]["body"]["winner"], "white");
    // Anyone can replay it offline, the 3-0-1 included.
    let info = s.get("/api/steward", None).await.ok(200);
    let key = fairsteward::protocol::public_key_from_base64(info["signing_key"].as_str().unwrap()).unwrap();
    let summary = fairsteward::protocol::verify::verify(&t, &key).expect("the transcript verifies");
    assert_eq!(summary.turns, 16);
    s.mv(&id, &tokens[1], 17, "e4-e5").await.error(409, "game_over");

    // The mails: a start mail and sixteen board mails for every seat.
    let expected: Vec<String> = (0..3)
        .flat_map(|seat| {
            let id = id.as_str();
            std::iter::once(format!("{id}.0.{seat}.started@{MAIL_DOMAIN}.eml"))
                .chain((1..=16).map(move |turn| format!("{id}.{turn}.{seat}.turn@{MAIL_DOMAIN}.eml")))
        })
        .collect();
    let files = eventually_within(Duration::from_secs(60), "every board mail in the spool", || {
        let files = spool_files(&spool);
        expected.iter().all(|name| files.contains_key(name)).then_some(files)
    })
    .await;
    assert_eq!(files.len(), expected.len(), "{:?}", files.keys().collect::<Vec<_>>());
    // Each seat's text board has its own baseline at the bottom, just above the
    // coordinates.
    let home = [
        "  a            wR  wB  wN  wK  wQ  wB  wN  wR",
        "               nR  nB  nN  nK  nQ  nB  nN  nR",
        "               bR  bB  bN  bK  bQ  bB  bN  bR            13",
    ];
    let mail = |seat: usize, turn: usize| {
        let kind = if turn == 0 { "started" } else { "turn" };
        parse_mail(&files[&format!("{id}.{turn}.{seat}.{kind}@{MAIL_DOMAIN}.eml")])
    };
    for (seat, (player, address)) in PLAYERS.iter().enumerate() {
        assert_eq!(mail(seat, 0).header("To"), format!("{player} <{address}>"));
        for turn in 0..=16 {
            let m = mail(seat, turn);
            assert_eq!(m.kinds(), ["text/plain", "text/html", "image/png"], "turn {turn}, seat {seat}");
            let text = m.text("text/plain");
            for piece in ["wK", "nK", "bK"] {
                assert!(text.contains(piece), "all three armies on the board ({piece}):\n{text}");
            }
            if turn == 0 {
                assert!(text.lines().any(|l| l.trim_end() == home[seat]), "{:?} for seat {seat}:\n{text}", home[seat]);
            }
            let Part { content_id: cid, content: png, .. } = &m.parts[2];
            assert_eq!(cid.as_deref(), Some("board"));
            let (w, h) = png_size(png);
            // Every mail picture is 640 pixels on its longer side (issue 38).
            assert!(w == 640 && h >= 500, "a picture of {w}x{h}");
            if turn > 0 {
                let mover = (turn - 1) % 3;
                assert!(text.contains(&format!("{}: {} - played", SEATS[mover], PLAY[turn - 1].1)), "{text}");
            }
        }
        let last = mail(seat, 16);
        assert_eq!(last.header("Subject"), format!("Game {id} is over: white 3, brown 0, black 1 (checkmate)"));
        assert!(last.text("text/plain").contains("The game is over: white 3, brown 0, black 1 (checkmate)."));
    }
    // Each board mail lists the moves of the other two since the reader's own
    // last one, numbered by rounds.
    assert_eq!(since(&mail(0, 6).text("text/plain")), ["2... brown: e1-e2 - played", "2... black: l12-l11 - played"]);
    assert_eq!(since(&mail(1, 6).text("text/plain")), ["2... black: l12-l11 - played"]);
    assert_eq!(since(&mail(1, 7).text("text/plain")), ["2... black: l12-l11 - played", "3. white: f4-i6 - played"]);
    assert_eq!(since(&mail(2, 7).text("text/plain")), ["3. white: f4-i6 - played"]);
    assert_eq!(
        since(&mail(2, 8).text("text/plain")),
        ["3. white: f4-i6 - played", "3... brown: e2-e3 - played"],
        "black hears of white's and brown's moves since its own"
    );
    let record = "The game so far:\n  1. white a3-c2, brown h4-h5, black m12-m11\n";
    assert!(mail(1, 16).text("text/plain").contains(record), "{}", mail(1, 16).text("text/plain"));

    // The pictures: each seat sees its own king lowest, and the three differ.
    let mut pngs = Vec::new();
    for name in SEATS {
        let svg = s.get(&format!("/api/games/{id}/board.svg?seat={name}"), None).await;
        assert_eq!(svg.status, 200, "{}", svg.text);
        let svg = String::from_utf8(svg.body).unwrap();
        assert_eq!(svg.matches("class=\"arrow").count(), 1, "the last move, f7-h6");
        let png = s.get(&format!("/api/games/{id}/board.png?seat={name}&size=400"), None).await;
        assert_eq!(png.status, 200);
        pngs.push(png.body);
    }
    assert!(pngs[0] != pngs[1] && pngs[1] != pngs[2] && pngs[0] != pngs[2], "three views");
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_needs_all_three_and_scores_1_1_1() {
    let s = Server::start().await;
    let (id, tokens) = create(&s, json!({})).await;
    s.mv(&id, &tokens[0], 1, "a3-c2").await.ok(200);
    let draw = |seat: usize, action: &'static str| {
        let path = format!("/api/games/{id}/draw");
        let token = tokens[seat].clone();
        let s = &s;
        async move { s.post_json(&path, Some(&token), &json!({"action": action})).await }
    };
    draw(0, "offer").await.ok(200);
    draw(1, "accept").await.ok(200);
    assert_eq!(s.game(&id, None).await["outcome"], Value::Null, "two of three is not enough");
    draw(2, "accept").await.ok(200);
    let v = s.game(&id, None).await;
    assert_eq!(v["outcome"]["result"], "white 1, brown 1, black 1 (agreement)", "{v}");
    assert_eq!(v["outcome"]["winner"], Value::Null);

    // §8, Decision: the author's `=` after a move offers a draw with it. The
    // offer stands once the move is played; the other two accept.
    let (id, tokens) = create(&s, json!({})).await;
    s.mv(&id, &tokens[0], 1, "a3-c2=").await.ok(200);
    let t = s.get(&format!("/api/games/{id}/transcript"), None).await.text;
    let offers: Vec<Value> =
        t.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|e| e["kind"] == "draw_offered").collect();
    assert_eq!(offers.len(), 1, "{t}");
    assert_eq!((offers[0]["body"]["seat"].as_str(), offers[0]["body"]["turn"].as_u64()), (Some("white"), Some(2)));
    for seat in [1, 2] {
        let path = format!("/api/games/{id}/draw");
        s.post_json(&path, Some(&tokens[seat]), &json!({"action": "accept"})).await.ok(200);
    }
    let v = s.game(&id, None).await;
    assert_eq!(v["outcome"]["result"], "white 1, brown 1, black 1 (agreement)", "{v}");
    let t = s.get(&format!("/api/games/{id}/transcript"), None).await.text;
    let info = s.get("/api/steward", None).await.ok(200);
    let key = fairsteward::protocol::public_key_from_base64(info["signing_key"].as_str().unwrap()).unwrap();
    fairsteward::protocol::verify::verify(&t, &key).expect("the offer with the move replays");
    s.shut_down().await;
}

/// §7, Decision: a seat whose time runs out has resigned at that moment. Brown,
/// in check from White's knight on h6 (only i5xh6 answers it), lets its day
/// pass: it scores 0 and the others as after a mate — White, the first seat
/// after Brown that attacks its king, 3 and Black 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_is_a_resignation_at_that_moment() {
    let dir = tempfile::tempdir().unwrap();
    let start: chrono::DateTime<Utc> = "2026-12-01T12:00:00Z".parse().unwrap();
    let config = in_process::config_at(dir.path(), start);
    let steward = in_process::open(&config);
    let mut options = std::collections::BTreeMap::new();
    options.insert("clock".to_owned(), json!({"kind": "days_per_move", "days": 1}));
    // `in_process::seat` gives each player the address PLAYERS lists.
    let seats = PLAYERS.iter().map(|(name, _)| in_process::seat(name)).collect();
    let created = steward
        .create_game(NewGame { variant: "dreierschach".into(), options, seats, invite: false }, start)
        .await
        .unwrap();
    let id = created.game.id.clone();
    let line = ["a3-d4", "e1-e2", "m12-m11", "d4-f7", "e2-e3", "l12-l11", "f7-h6"];
    let mut at = start;
    for (i, text) in line.iter().enumerate() {
        at += chrono::Duration::hours(1);
        config.clock.set(at);
        let req = MoveRequest {
            game: id.clone(),
            credential: Some(Credential::Token(created.tokens[i % 3].token.clone())),
            submission: Submission::Move { turn: i as u32 + 1, text: (*text).into() },
            kept: steward.kept_copy(text.as_bytes()),
            door: fairsteward::steward::Door::Http,
        };
        steward.submit_move(req, at).await.unwrap_or_else(|e| panic!("{text}: {e:?}"));
    }
    let v = steward.status(id.clone(), None).await.unwrap();
    assert_eq!(v.to_move, vec!["brown".to_owned()]);
    let later = at + chrono::Duration::hours(25);
    config.clock.set(later);
    steward.sweep(later).await.unwrap();
    let v = steward.status(id.clone(), None).await.unwrap();
    let o = v.outcome.expect("the game is over");
    assert_eq!((o.result.as_str(), o.reason.as_str()), ("white 3, brown 0, black 1 (time)", "time"));
    assert_eq!(o.winner.as_deref(), Some("white"));
    // The transcript, with the timeout, replays offline.
    let events = steward.transcript(id.clone(), None).await.unwrap();
    assert!(events.iter().any(|e| e.kind == "timeout"));
    let text = in_process::transcript(&id, &events);
    let summary = fairsteward::protocol::verify::verify(&text, &steward.keys().signing_public()).expect("it replays");
    assert_eq!(summary.turns, 7);
    // Resigning out of check scores 2 each for the others, over HTTP too.
    let s = Server::start().await;
    let (game, tokens) = create(&s, json!({})).await;
    s.post(&format!("/api/games/{game}/resign"), Some(&tokens[2]), "").await.ok(200);
    let v = s.game(&game, None).await;
    assert_eq!(v["outcome"]["result"], "white 2, brown 2, black 0 (resignation)", "{v}");
    assert_eq!(v["outcome"]["winner"], "white and brown");
    s.shut_down().await;
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
