//! What board mails and refusals say, read from the spool of a steward served
//! in-process (as `tests/it/web/api.rs`), with mails piped in through `fairsteward
//! ingest` (the MTA pipe) on the same data directory: the moves since the
//! reader's own last move, numbered as the game's record, a struck move with its
//! reason, the whole record below the board, and a refusal worded for the door
//! it goes out through.

use crate::support as common;

use std::time::Duration;

use common::{MAIL_DOMAIN, Server, eventually_within, has_word, ingest, parse_mail, spool_files};
use serde_json::{Value, json};

/// Creates a game of `variant` with `options` for `players` (name, address);
/// returns its id and the seat tokens in seat order.
async fn create(s: &Server, variant: &str, options: Value, players: &[(&str, &str)]) -> (String, Vec<String>) {
    let seats: Vec<Value> = players.iter().map(|(name, email)| json!({"name": name, "email": email})).collect();
    let created =
        s.post_json("/api/games", None, &json!({"variant": variant, "options": options, "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (id, tokens)
}

/// The spooled mail with this Message-ID (without `@domain`), once it is there.
async fn spooled(s: &Server, name: &str) -> common::Mail {
    let file = format!("{name}@{MAIL_DOMAIN}.eml");
    let spool = s.config.spool_dir.clone();
    let bytes = eventually_within(Duration::from_secs(20), &file, || spool_files(&spool).remove(&file)).await;
    parse_mail(&bytes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fairschach_board_mail_numbers_the_pairs_keeps_a_struck_move_and_ends_with_the_record() {
    // With pause off: 1. e4 f6  2. Qh5+ a6 — in pair 3 black's g6 is played
    // first and white's Qf7, blocked by it, is struck (as tests/it/web/api.rs).
    let s = Server::start().await;
    let (id, tokens) = create(
        &s,
        "fairschach",
        json!({"pause": "off"}),
        &[("Alice", "alice@example.org"), ("Bob", "bob@example.org")],
    )
    .await;
    for (turn, w, b) in [(1, "e4", "f6"), (2, "Qh5", "a6"), (3, "Qf7", "g6")] {
        s.mv(&id, &tokens[0], turn, w).await.ok(200);
        s.mv(&id, &tokens[1], turn, b).await.ok(200);
    }
    // The moves as the record has them (Qh5 is written with its check).
    let v = s.game(&id, None).await;
    let history = v["history"].as_array().unwrap();
    let san = |turn: usize, seat: usize| history[turn]["moves"][seat]["move"].as_str().unwrap().to_owned();
    let reason = history[2]["moves"][0]["reason"].as_str().unwrap().to_owned();
    assert_eq!(history[2]["moves"][0]["status"], "struck");

    for (seat, name) in ["white", "black"].iter().enumerate() {
        let mail = spooled(&s, &format!("{id}.3.{seat}.turn")).await;
        let text = mail.text("text/plain");
        // Both moves of the pair, numbered, with their status; the struck one with why.
        assert!(text.contains("Since your last move:"), "{text}");
        assert!(text.contains(&format!("  3. white: {} - struck ({reason})", san(2, 0))), "{name}:\n{text}");
        assert!(text.contains(&format!("  3... black: {} - first", san(2, 1))), "{name}:\n{text}");
        assert!(!text.contains("2. white:") && !text.contains("2... black:"), "only the pair since: {text}");
        // The whole record below the board, one line per pair.
        let record = format!(
            "The game so far:\n  1. {} {}\n  2. {} {}\n  3. {} (struck) {}\n",
            san(0, 0),
            san(0, 1),
            san(1, 0),
            san(1, 1),
            san(2, 0),
            san(2, 1)
        );
        assert!(text.contains(&record), "{record:?} in:\n{text}");
        let board_at = text.find("  8 ").expect("the text board");
        assert!(text.find("The game so far:").unwrap() > board_at, "the record is below the board: {text}");
        let html = mail.text("text/html");
        assert!(html.contains("The game so far:") && html.contains(&format!("3. {} (struck)", san(2, 0))), "{html}");
        assert!(html.contains("3...") && html.contains(&reason), "{html}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_is_worded_for_the_door_it_goes_out_through() {
    let s = Server::start().await;
    let players = [
        ("Sam", "sam@example.org"),
        ("Wendy", "wendy@example.org"),
        ("Nora", "nora@example.org"),
        ("Ed", "ed@example.org"),
    ];
    let (id, tokens) = create(&s, "vierschach", json!({}), &players).await;
    // A pawn cannot go three squares: move text of this game, but illegal.
    let http = s.mv(&id, &tokens[0], 1, "e2e5").await.error(422, "illegal_move");
    assert!(http.contains("\"turn\": N") && http.contains("\"move\""), "HTTP words: {http}");
    assert!(http.contains("possible: e2-e3, e2-e4"), "the reason, with the moves it has: {http}");
    assert!(!http.contains("Nf3") && !has_word(&http, "5254"), "no chess notation for a Vierschach player: {http}");

    // The same move by mail, replying to South's start mail.
    let started = spooled(&s, &format!("{id}.0.0.started")).await;
    let reply_to = started.header("Reply-To");
    let reply_to = reply_to.rsplit_once('<').map_or(reply_to, |(_, a)| a.trim_end_matches('>')).to_owned();
    let mail = format!(
        "From: Sam <sam@example.org>\r\nTo: {reply_to}\r\nSubject: Re: Game {id}\r\nMessage-ID: <bm1@client.example>\r\n\
         Date: Wed, 25 Nov 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ne2e5\r\n"
    );
    assert_eq!(ingest(&s.config.data_dir, &mail), "refused: illegal_move");
    let spool = s.config.spool_dir.clone();
    let answer = eventually_within(Duration::from_secs(20), "the refusal in the spool", || {
        spool_files(&spool).into_iter().find(|(name, _)| name.starts_with(&format!("{id}.1.0.answer-"))).map(|(_, b)| b)
    })
    .await;
    let answer = parse_mail(&answer).text("text/plain");
    assert!(answer.contains("Not accepted:"), "{answer}");
    assert!(
        answer.contains("reply to the latest board mail with a legal move as the first line"),
        "mail words: {answer}"
    );
    assert!(answer.contains("possible: e2-e3, e2-e4"), "the reason, with the moves it has: {answer}");
    for http_only in ["Authorization", "Bearer", "POST", "\"turn\"", "Nf3"] {
        assert!(!answer.contains(http_only), "{http_only:?} in a mail refusal: {answer}");
    }
    assert!(!has_word(&answer, "5254"), "ICCF numbers in a Vierschach refusal: {answer}");
}

/// Board mails are queued without their pictures (issue 13 point 1): no outbox
/// row holds PNG bytes, the mails delivered carry each seat's own picture, and
/// the pictures are dropped once every mail carrying them is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_mails_are_queued_without_their_pictures_and_delivered_with_them() {
    let s = Server::start().await;
    let (id, tokens) =
        create(&s, "chess", json!({}), &[("Alice", "alice@example.org"), ("Bob", "bob@example.org")]).await;
    s.mv(&id, &tokens[0], 1, "e4").await.ok(200);
    s.mv(&id, &tokens[1], 2, "e5").await.ok(200);
    for turn in 1..=2 {
        let pngs: Vec<Vec<u8>> = {
            let mut pngs = Vec::new();
            for seat in 0..2 {
                let mail = spooled(&s, &format!("{id}.{turn}.{seat}.turn")).await;
                assert_eq!(mail.kinds(), ["text/plain", "text/html", "image/png"], "turn {turn}, seat {seat}");
                let png = &mail.parts[2];
                assert_eq!(png.content_id.as_deref(), Some("board"));
                let decoded = resvg::tiny_skia::Pixmap::decode_png(&png.content).expect("a PNG that decodes");
                assert_eq!((decoded.width(), decoded.height()), (640, 640), "turn {turn}, seat {seat}");
                pngs.push(png.content.clone());
            }
            pngs
        };
        assert_ne!(pngs[0], pngs[1], "each seat sees the board from its own side");
    }
    let db = crate::support::backend::Db::of(&s.config.data_dir);
    let rows: Vec<(String, Vec<u8>, Option<String>)> = db
        .rows("SELECT message_id, message, picture FROM outbox WHERE game_id = ?1", &[(&id).into()])
        .iter()
        .map(|r| (r[0].text(), r[1].bytes(), r[2].opt_text()))
        .collect();
    assert_eq!(rows.len(), 6, "two start mails and two mails for each of two turns");
    for (message_id, message, picture) in &rows {
        assert!(picture.is_some(), "{message_id} names its picture");
        assert!(!message.windows(4).any(|w| w == b"\x89PNG"), "{message_id}: no PNG in the row");
        assert!(!message.windows(11).any(|w| w == b"iVBORw0KGgo"), "{message_id}: no base64 PNG in the row");
    }
    let pictures = eventually_within(Duration::from_secs(20), "the pictures dropped once sent", || {
        let counts =
            db.rows("SELECT (SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL), (SELECT COUNT(*) FROM pictures)", &[]);
        let (unsent, pictures) = (counts[0][0].int(), counts[0][1].int());
        (unsent == 0).then_some(pictures)
    })
    .await;
    assert_eq!(pictures, 0, "no picture is kept once no unsent mail carries it");
}
