//! Resource limits (issue 11, point 4): board pictures capped, bounded and cached;
//! player names and addresses checked by the validator the mail composer shares,
//! with every header line below 998 octets; recipients read in linear time; the
//! maildir door reads only regular files within the size cap.
//!
//! The 10 MB mail of addresses prints how long it took to read
//! (`cargo test --test it limits::resources -- --nocapture ten_mb`); docs/benchmarks.md gives the figure.

use crate::support as common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chrono::Utc;
use common::{Server, spool_files};
use fairsteward::config::{Config, Overrides, RawConfig};
use fairsteward::mail::door::{Handled, handle};
use fairsteward::mail::outbox::{Sink, drain_once};
use fairsteward::protocol::capability;
use fairsteward::steward::Taken;
use fairsteward::steward::{NewGame, Steward};
use serde_json::{Value, json};

fn chess(seats: Value) -> Value {
    json!({"variant": "chess", "seats": seats})
}

fn alice_bob() -> Value {
    json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}])
}

/// Creates a chess game over HTTP; its id and the white token.
async fn create(server: &common::Api) -> (String, String) {
    let created = server.post_json("/api/games", None, &chess(alice_bob())).await.ok(201);
    (created["game"]["id"].as_str().unwrap().to_owned(), created["tokens"][0]["token"].as_str().unwrap().to_owned())
}

// ---------------------------------------------------------------------------
// Board pictures
// ---------------------------------------------------------------------------

#[tokio::test]
async fn a_picture_over_the_size_cap_is_a_clear_400() {
    let server = Server::start().await;
    let (id, _) = create(&server.api()).await;
    let largest = fairsteward::web::BOARD_PX_RANGE.end();
    let message =
        server.get(&format!("/api/games/{id}/board.png?size={}", largest + 1), None).await.error(400, "bad_request");
    assert!(message.contains(&largest.to_string()) && message.contains("size"), "{message}");
    let message = server.get(&format!("/api/games/{id}/board.png?size=100000"), None).await.error(400, "bad_request");
    assert!(message.contains(&largest.to_string()), "{message}");
    let png = server.get(&format!("/api/games/{id}/board.png?size={largest}"), None).await;
    assert_eq!(png.status, 200, "{}", png.text);
    assert_eq!(&png.body[1..4], b"PNG");
}

#[tokio::test]
async fn a_cached_picture_follows_the_position_and_the_view() {
    let server = Server::start().await;
    let (id, white) = create(&server.api()).await;
    let picture = |seat: &'static str| {
        let server = &server;
        let id = id.clone();
        async move {
            let a = server.get(&format!("/api/games/{id}/board.png?seat={seat}&size=300"), None).await;
            assert_eq!(a.status, 200, "{}", a.text);
            a.body
        }
    };
    let start = picture("white").await;
    assert_eq!(picture("white").await, start, "the same position, the same picture");
    let black_side = picture("black").await;
    assert_ne!(black_side, start, "another view is another picture");
    let receipt = server.mv(&id, &white, 1, "e4").await;
    assert_eq!(receipt.status, 200, "{}", receipt.text);
    let after = picture("white").await;
    assert_ne!(after, start, "a new position is drawn anew, not served from the cache");
    assert_ne!(picture("black").await, black_side);
}

/// The peak resident memory of a process, in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the steward's /proc status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("a VmHWM line");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse().ok()).expect("VmHWM in kB")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_the_largest_pictures_keeps_memory_bounded_and_the_game_answered() {
    let dir = tempfile::tempdir().unwrap();
    let steward = common::Steward::start(dir.path()).await;
    let api = steward.api();
    let (id, _) = create(&api).await;
    let before = peak_rss_kib(steward.pid());

    // Pictures wait their turn: the client waits longer than the harness's default.
    let client = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(600)).build().unwrap();
    let largest = *fairsteward::web::BOARD_PX_RANGE.end();
    let done = Arc::new(AtomicUsize::new(0));
    let mut burst = Vec::new();
    for i in 0..100u32 {
        // Ten different pictures of about the largest size (two views, five
        // sizes), so that many are drawn and not all served from the cache.
        let seat = if i % 2 == 0 { "white" } else { "black" };
        let url = format!("{}/api/games/{id}/board.png?seat={seat}&size={}", api.base, largest - 8 * (i / 2 % 5));
        let (client, done) = (client.clone(), done.clone());
        burst.push(tokio::spawn(async move {
            let answer = client.get(url).send().await.expect("a picture request is answered");
            let status = answer.status().as_u16();
            let body = answer.bytes().await.expect("the picture's body");
            done.fetch_add(1, Ordering::SeqCst);
            (status, body)
        }));
    }
    // Other requests are answered while the pictures are drawn.
    let mut answered_during_burst = 0;
    for _ in 0..5 {
        let game = api.get(&format!("/api/games/{id}"), None).await;
        assert_eq!(game.status, 200, "{}", game.text);
        if done.load(Ordering::SeqCst) < 100 {
            answered_during_burst += 1;
        }
    }
    let mut sizes = std::collections::BTreeSet::new();
    for task in burst {
        let (status, body) = task.await.unwrap();
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        assert_eq!(&body[1..4], b"PNG");
        sizes.insert(u32::from_be_bytes(body[16..20].try_into().unwrap()));
    }
    assert_eq!(sizes.len(), 5, "{sizes:?}");
    assert!(answered_during_burst > 0, "the game was answered while pictures were still being drawn");
    let peak = peak_rss_kib(steward.pid());
    eprintln!(
        "steward peak RSS: {} MiB before the burst, {} MiB after 100 pictures of up to {largest} px; {answered_during_burst} of 5 game requests answered during it",
        before / 1024,
        peak / 1024
    );
    assert!(peak < 300 * 1024, "the steward's peak memory was {} MiB", peak / 1024);
}

// ---------------------------------------------------------------------------
// Names and addresses
// ---------------------------------------------------------------------------

#[tokio::test]
async fn seat_names_are_one_short_line() {
    let server = Server::start().await;
    for (name, says) in [
        ("Eve\r\nBcc: victim@example.org".to_owned(), "line break"),
        ("Eve\nresign".to_owned(), "line break"),
        ("Eve\tthe tab".to_owned(), "control character"),
        ("x".repeat(101), "at most 100"),
        ("é".repeat(5000), "at most 100"),
        ("   ".to_owned(), "empty"),
    ] {
        let seats = json!([{"name": name, "email": "eve@example.org"}, {"name": "Bob", "email": "bob@example.org"}]);
        let message = server.post_json("/api/games", None, &chess(seats)).await.error(400, "bad_request");
        assert!(message.contains("seat 1") && message.contains(says), "{name:?}: {message}");
    }
    let seats =
        json!([{"name": "é".repeat(100), "email": "eve@example.org"}, {"name": "Bob", "email": "bob@example.org"}]);
    let created = server.post_json("/api/games", None, &chess(seats)).await.ok(201);
    assert_eq!(created["tokens"][0]["player"], "é".repeat(100));
}

#[tokio::test]
async fn addresses_the_composer_cannot_send_are_refused_at_creation() {
    let server = Server::start().await;
    for (email, says) in [
        ("\"john doe\"@example.org", "no quotes"),
        ("user@[192.0.2.1]", "no address literals"),
        ("user@[IPv6:2001:db8::1]", "no address literals"),
        ("jürgen@example.de", "SMTPUTF8"),
        ("user@bücher.example", "SMTPUTF8"),
        ("Bob <bob@example.org>", "no quotes"),
        ("bob@example.org\r\nBcc: x@y.org", "the part before @"),
    ] {
        let seats = json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": email}]);
        let message = server.post_json("/api/games", None, &chess(seats)).await.error(400, "bad_request");
        assert!(message.contains("seat 2") && message.contains(says), "{email:?}: {message}");
    }
    // What is accepted is mailed: the start mails are composed and spooled.
    let seats = json!([{"name": "Alice", "email": " o'neil+chess@mail.example.ie "}, {"name": "Bob", "email": "bob@example.org"}]);
    let created = server.post_json("/api/games", None, &chess(seats)).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let spool = server.config.spool_dir.clone();
    common::eventually("the start mails in the spool", || {
        let files = spool_files(&spool);
        (files.keys().filter(|n| n.contains(&id)).count() >= 2).then_some(())
    })
    .await;
}

/// A steward opened on `dir` as `ingest` opens it, with mail to the spool.
fn open_steward(dir: &Path) -> (Steward, Config) {
    let config = Config::from_raw(
        RawConfig::default(),
        &Overrides {
            data_dir: Some(dir.to_owned()),
            listen: Some("127.0.0.1:0".into()),
            database: crate::support::backend::database_for(dir),
        },
    )
    .unwrap();
    let steward = fairsteward::server::open(&config, Arc::new(tokio::sync::Notify::new())).unwrap();
    (steward, config)
}

async fn new_game(steward: &Steward, seats: Value) -> String {
    let new: NewGame = serde_json::from_value(chess(seats)).unwrap();
    steward.create_game(new, Utc::now()).await.unwrap().game.id
}

fn reply(from: &str, to: &str, id: &str, subject: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
    .into_bytes()
}

fn cap(steward: &Steward, game: &str, seat: &str, turn: u32) -> String {
    capability::address(steward.keys(), &steward.from_address(), game, seat, turn).expect("a capability address")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_line_of_every_mail_stays_below_998_octets() {
    let dir = tempfile::tempdir().unwrap();
    let (steward, config) = open_steward(dir.path());
    // The longest names and about the longest addresses creation takes.
    let alice = format!("{}@{}.example.org", "a".repeat(64), "m".repeat(63));
    let bob = format!("{}@{}.example.org", "b".repeat(64), "m".repeat(63));
    let (alice_name, bob_name) = ("Ä".repeat(100), ["Bob"; 20].join(" ") + " Smith-Jones");
    assert!(bob_name.chars().count() <= 100);
    let seats = json!([{"name": alice_name, "email": alice}, {"name": bob_name, "email": bob}]);
    let game = new_game(&steward, seats).await;
    let mails = [
        reply(&format!("<{alice}>"), &cap(&steward, &game, "white", 1), "s1", &"x".repeat(5000), "e4"),
        reply(&format!("<{bob}>"), &cap(&steward, &game, "black", 2), "s2", &"word ".repeat(1000), "e5"),
        reply(&format!("<{alice}>"), &cap(&steward, &game, "white", 3), "s3", &"Ü".repeat(2000), "draw"),
        reply(&format!("<{bob}>"), &cap(&steward, &game, "black", 3), "s4", &"Re: ".repeat(500), "resign"),
    ];
    for mail in &mails {
        let handled = handle(&steward, mail, Utc::now()).await.unwrap();
        assert!(matches!(handled, Handled::Accepted(_)), "{handled:?}");
    }
    drain_once(steward.store(), &Sink::Spool(config.spool_dir.clone()), steward.keys_arc()).await.unwrap();
    let files = spool_files(&config.spool_dir);
    assert!(files.len() >= 8, "start, receipts, turn, draw and end mails: {:?}", files.keys());
    for (name, bytes) in &files {
        for line in bytes.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            assert!(line.len() < 998, "{name}: a line of {} octets: {}", line.len(), String::from_utf8_lossy(line));
        }
        let mail = common::parse_mail(bytes);
        let to = mail.header("To");
        assert!(to.contains(&alice) || to.contains(&bob), "{name}: To {to:?}");
    }
}

// ---------------------------------------------------------------------------
// Reading recipients
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ten_mb_mail_of_addresses_in_one_header_is_read_and_acted_on() {
    let dir = tempfile::tempdir().unwrap();
    let (steward, _) = open_steward(dir.path());
    let game = new_game(&steward, alice_bob()).await;
    let mut to = String::new();
    let mut count = 0;
    while to.len() < fairsteward::mail::MAX_MAIL_BYTES - 4096 {
        // Folded like a real header, ten addresses a line; some repeat in other case.
        to.push_str(&format!("P{} <player{}@Example.org>,", count % 1000, count % 400_000));
        to.push_str(if count % 10 == 9 { "\r\n " } else { " " });
        count += 1;
    }
    let capability = cap(&steward, &game, "white", 1);
    to.push_str(&capability);
    let mail = reply("Alice <alice@example.org>", &to, "big1", "Re: your move", "e4");
    assert!(mail.len() <= fairsteward::mail::MAX_MAIL_BYTES);

    let started = Instant::now();
    let read = fairsteward::mail::inbound::read_mail(&mail).unwrap();
    let reading = started.elapsed();
    assert_eq!(read.recipients.len(), count.min(400_000) + 1, "every distinct address once");
    assert_eq!(read.recipients.last(), Some(&capability));

    let started = Instant::now();
    let handled = handle(&steward, &mail, Utc::now()).await.unwrap();
    let handling = started.elapsed();
    assert_eq!(handled, Handled::Accepted(Taken::Submission("move")));
    assert_eq!(steward.status(game, None).await.unwrap().turn, 2, "white's move was taken");
    eprintln!(
        "a {:.1} MB mail of {count} addresses in one To header: read in {reading:.2?}, handled (read, capability found, move stored) in {handling:.2?}",
        mail.len() as f64 / 1e6
    );
}

// ---------------------------------------------------------------------------
// The maildir door
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_maildir_door_moves_hostile_entries_aside_unread() {
    let dir = tempfile::tempdir().unwrap();
    let (steward, _) = open_steward(dir.path());
    let game = new_game(&steward, alice_bob()).await;
    let maildir = dir.path().join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let new = maildir.join("new");
    let white = cap(&steward, &game, "white", 1);
    let mail = |id: &str| reply("Alice <alice@example.org>", &white, id, "Re: your move", "e4");

    // A link to a file that holds a mail the door would take, read through.
    let outside = dir.path().join("outside.eml");
    std::fs::write(&outside, mail("via-link")).unwrap();
    std::os::unix::fs::symlink(&outside, new.join("1.link")).unwrap();
    // A link to a system file.
    std::os::unix::fs::symlink("/etc/passwd", new.join("2.passwd")).unwrap();
    // A FIFO with no writer: opening it must not wait.
    let fifo = std::ffi::CString::new(new.join("3.fifo").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path and a mode.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo");
    // A directory.
    std::fs::create_dir(new.join("4.dir")).unwrap();
    // A mail over the size cap that would otherwise be taken.
    let mut huge = mail("huge");
    huge.resize(fairsteward::mail::MAX_MAIL_BYTES + 1, b'x');
    std::fs::write(new.join("5.huge"), &huge).unwrap();

    let done = tokio::time::timeout(Duration::from_secs(60), fairsteward::mail::maildir::sweep(&steward, &maildir))
        .await
        .expect("the sweep does not wait on the FIFO")
        .unwrap();
    assert!(done.is_empty(), "nothing was read: {done:?}");
    assert_eq!(std::fs::read_dir(&new).unwrap().count(), 0, "new/ is empty: nothing is met again");
    let rejected = maildir.join(fairsteward::mail::maildir::REJECTED);
    let mut names: Vec<String> =
        std::fs::read_dir(&rejected).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["1.link", "2.passwd", "3.fifo", "4.dir", "5.huge"]);
    assert!(std::fs::symlink_metadata(rejected.join("1.link")).unwrap().file_type().is_symlink(), "the link moved");
    assert_eq!(std::fs::read(&outside).unwrap(), mail("via-link"), "its target untouched");
    assert_eq!(steward.status(game.clone(), None).await.unwrap().turn, 1, "no move was taken");

    // The same mail as a regular file is taken: the refusals were the door's.
    std::fs::copy(&outside, new.join("6.mail")).unwrap();
    let done = fairsteward::mail::maildir::sweep(&steward, &maildir).await.unwrap();
    let outcomes: Vec<Handled> = done.into_iter().map(|(_, h)| h).collect();
    assert_eq!(outcomes, [Handled::Accepted(Taken::Submission("move"))]);
    assert_eq!(steward.status(game, None).await.unwrap().turn, 2, "white's move was taken");
}
