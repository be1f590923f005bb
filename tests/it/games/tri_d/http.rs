//! A 3D chess game over HTTP, from the start to checkmate, with board mails to
//! both seats; and 3D chess clocks (`docs/rules/tri-d-chess.md` §9: time runs out,
//! the game is lost).
//!
//! The steward runs in-process (`fairsteward::server::serve` on a loopback
//! port, with its own temporary data directory), as in `tests/it/web/api.rs`. The
//! game (25 plies, checked with `fairsteward rules tri-d-chess play` and with
//! the independent oracle of `tools/tri_d_oracle/`): White castles on the
//! second move, Black's bishops and pawns fall to White's dark bishop, Black
//! moves its queen's-side attack board twice (QL6-QL4, QL4-QL2), and White's
//! light bishop mates along a6N–d9 (the king's squares on d8 are seen by the
//! bishop on a5B). The moves are sent in every form §10 reads: from-to, short,
//! the level left out where one fits, German levels, castling, board moves.

use crate::support as common;
use crate::support::in_process;

use std::time::Duration;

use common::{MAIL_DOMAIN, Server, eventually_within, parse_mail, spool_files};
use serde_json::{Value, json};

const START: &str = "nbbn/pppp/4/4/4/4/4/4/4/4/PPPP/NBBN wQL1:PP/RQ,wKL1:PP/KR,bQL6:rq/pp,bKL6:kr/pp w KQkq - - - 0 1";
const FINAL: &str = "n3/4/p1p1/B3/B1n1/4/4/1PP1/4/4/P2P/N2N wQL1:PP/RQ,wKL1:PP/RK,bQL2:r1/2,bKL6:k1/1p b - - - - 0 13";

/// The game: each ply's move as sent and as the steward writes it (§10's short
/// notation); White moves on even indices.
pub const PLAY: [(&str, &str); 25] = [
    ("c2W-c3N", "c3N"),
    ("d5N", "d5N"),
    ("O-O", "O-O"),
    ("d8KL6-d6n", "d6N"),
    ("b3N", "b3N"),
    ("Sc6N", "Nc6N"),
    ("Ba3N", "Ba3N"),
    ("b6S", "b6B"),
    ("Bxd6N", "Bxd6N"),
    ("c7B-c6B", "c6B"),
    ("Bb8", "Bxb8B"),
    ("a7Ba5B", "a5B"),
    ("Bxa9DP6", "Bxa9QL6"),
    ("a6B", "a6B"),
    ("Bxz8QL6", "Bxz8QL6"),
    ("d4W", "d4W"),
    ("Bxb6B", "Bxb6B"),
    ("Ba6N", "Ba6N"),
    ("Bxe9kp6", "Bxe9KL6"),
    ("DP6-DP4", "QL6-QL4"),
    ("Bxa5B", "Bxa5B"),
    ("d3W", "d3W"),
    ("Bxd3W", "Bxd3W"),
    ("QL4-QL2", "QL4-QL2"),
    ("Bxa6N#", "Bxa6N#"),
];

const PLAYERS: [(&str, &str); 2] = [("Wanda", "wanda@example.org"), ("Boris", "boris@example.org")];

/// The width and height of a PNG.
#[track_caller]
fn png_size(png: &[u8]) -> (u32, u32) {
    let decoded = resvg::tiny_skia::Pixmap::decode_png(png).expect("a PNG that decodes");
    (decoded.width(), decoded.height())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_over_http_to_checkmate() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let seats: Vec<Value> = PLAYERS.iter().map(|(name, email)| json!({"name": name, "email": email})).collect();
    let created = s.post_json("/api/games", None, &json!({"variant": "tri-d-chess", "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    let v = s.game(&id, None).await;
    assert_eq!(v["variant"], "tri-d-chess");
    assert_eq!(v["state"], START);
    assert_eq!(v["to_move"], json!(["white"]));

    for (i, &(text, _)) in PLAY.iter().enumerate() {
        let turn = i as u32 + 1;
        let (mover, other) = (i % 2, 1 - i % 2);
        s.mv(&id, &tokens[other], turn, text).await.error(409, "not_your_turn");
        if i == 4 {
            // The level left out where two fit: refused, naming both.
            let m = s.mv(&id, &tokens[mover], turn, "b3").await.error(422, "illegal_move");
            assert!(m.contains("b3N") && m.contains("b3W"), "{m}");
            // A board carrying more than one piece stays on its pin.
            let m = s.mv(&id, &tokens[mover], turn, "QL1-QL3").await.error(422, "illegal_move");
            assert!(m.contains("carries more than one piece"), "{m}");
        }
        let r = s.mv(&id, &tokens[mover], turn, text).await.ok(200);
        assert_eq!(r["resolved"], true, "ply {turn} ({text}): {r}");
    }

    let v = s.game(&id, None).await;
    assert_eq!(v["state"], FINAL);
    assert_eq!(v["outcome"]["reason"], "checkmate", "{v}");
    assert!(v["outcome"]["result"].as_str().unwrap().starts_with("1-0"), "{v}");
    let history = v["history"].as_array().unwrap();
    assert_eq!(history.len(), PLAY.len());
    for (t, &(_, written)) in history.iter().zip(PLAY.iter()) {
        assert_eq!(t["moves"][0]["move"], written, "{t}");
    }
    s.mv(&id, &tokens[1], 26, "QL2-QL3").await.error(409, "game_over");
    // Anyone can replay the game from its transcript: every move, the board
    // moves and the mate (`fairsteward verify`, the key fetched from the steward).
    let url = format!("{}/api/games/{id}/transcript", s.base);
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_fairsteward")).args(["verify", "--url", &url]).output().unwrap()
    })
    .await
    .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");

    // Every seat gets the start mail and a board mail per ply, with the text
    // board and the picture from its own side.
    let expected: Vec<String> = (0..2)
        .flat_map(|seat| {
            let id = id.as_str();
            std::iter::once(format!("{id}.0.{seat}.started@{MAIL_DOMAIN}.eml"))
                .chain((1..=PLAY.len()).map(move |turn| format!("{id}.{turn}.{seat}.turn@{MAIL_DOMAIN}.eml")))
        })
        .collect();
    let files = eventually_within(Duration::from_secs(60), "every board mail in the spool", || {
        let files = spool_files(&spool);
        expected.iter().all(|name| files.contains_key(name)).then_some(files)
    })
    .await;
    for seat in 0..2 {
        let after_board_move = parse_mail(&files[&format!("{id}.20.{seat}.turn@{MAIL_DOMAIN}.eml")]);
        assert_eq!(after_board_move.kinds(), ["text/plain", "text/html", "image/png"]);
        let text = after_board_move.text("text/plain");
        // The board that moved: its four squares marked `+`, its pin named.
        assert!(text.contains("QL4"), "{text}");
        let board: String = text
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("z a") && !l.trim_start().starts_with("e d"))
            .take_while(|l| !l.contains("last move"))
            .collect();
        assert_eq!(board.matches('+').count(), 4, "four marked squares:\n{text}");
        assert!(text.contains("black: QL6-QL4 - played"), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        // Each seat's own back rank at the bottom of its board (White's rooks
        // and castled king; Black's king beside the bishop that took its rook).
        let bottom = if seat == 0 { "  0  R Q             R K  QL1 KL1" } else { "    KL6  B k                  9" };
        assert!(lines.contains(&bottom), "seat {seat}:\n{text}");
        let Some(common::Part { content: png, .. }) = after_board_move.parts.get(2) else { panic!("a picture") };
        let (w, h) = png_size(png);
        assert_eq!(h, 640, "the picture is portrait, 640 pixels high");
        assert!(w < h, "{w}x{h}");
        let last = parse_mail(&files[&format!("{id}.25.{seat}.turn@{MAIL_DOMAIN}.eml")]);
        assert_eq!(last.header("Subject"), format!("Game {id} is over: 1-0 (checkmate)"));
    }

    // The picture from either side, over HTTP.
    let white = s.get(&format!("/api/games/{id}/board.svg"), None).await;
    let black = s.get(&format!("/api/games/{id}/board.svg?seat=black"), None).await;
    assert_eq!((white.status, black.status), (200, 200));
    assert_ne!(white.body, black.body);
    let svg = String::from_utf8(white.body).unwrap();
    assert_eq!(svg.matches("class=\"arrow\"").count(), 1, "the mating move's arrow");
    let png = s.get(&format!("/api/games/{id}/board.png?seat=black&size=400"), None).await;
    assert_eq!(png_size(&png.body).1, 400);
}

/// §9 Decision: the seat whose time runs out loses (the lone-king draw is a
/// unit test of the rules, `s9_timeout`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_runs_as_in_chess() {
    use chrono::Utc;
    use fairsteward::steward::NewGame;
    use in_process::seat;

    let dir = tempfile::tempdir().unwrap();
    let start: chrono::DateTime<Utc> = "2026-11-23T12:00:00Z".parse().unwrap();
    let config = in_process::config_at(dir.path(), start);
    let steward = in_process::open(&config);
    let mut options = std::collections::BTreeMap::new();
    options.insert("clock".to_owned(), json!({"kind": "days_per_move", "days": 1}));
    let created = steward
        .create_game(
            NewGame {
                variant: "tri-d-chess".into(),
                options,
                seats: vec![seat("Wanda"), seat("Boris")],
                invite: false,
            },
            start,
        )
        .await
        .unwrap();
    let id = created.game.id.clone();
    let later = start + chrono::Duration::hours(25);
    config.clock.set(later);
    steward.sweep(later).await.unwrap();
    let v = steward.status(id.clone(), None).await.unwrap();
    let outcome = v.outcome.expect("white ran out of time");
    assert_eq!(outcome.reason, "time");
    assert_eq!(outcome.winner.as_deref(), Some("black"), "{outcome:?}");
}
