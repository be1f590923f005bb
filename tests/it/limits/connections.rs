//! Bounded connections (issue 29 point 2): the real binary, with short
//! timeouts and small caps, against slow sockets and false Content-Lengths
//! from 127.0.0.1 while moves are sent from 127.0.0.1 too; the 408 of a body
//! that never comes; the 503 `busy` when every place is answering; SIGTERM
//! with idle connections open, and with a large outbox on a silent SMTP server.

use crate::support as common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::Steward;
use serde_json::json;

/// A steward whose `[http]` section holds `http` (besides the defaults).
async fn steward(dir: &std::path::Path, http: &str) -> Steward {
    let config = dir.join("fairsteward.toml");
    std::fs::write(&config, format!("[http]\n{http}\n")).unwrap();
    Steward::start_with(&dir.join("data"), &["--config".as_ref(), config.as_os_str()]).await
}

/// Creates a chess game; its id and both seats' tokens.
async fn chess_game(api: &common::Api) -> (String, String, String) {
    let seats = json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]);
    let created = api.post_json("/api/games", None, &json!({"variant": "chess", "seats": seats})).await.ok(201);
    let token = |i: usize| created["tokens"][i]["token"].as_str().unwrap().to_owned();
    (created["game"]["id"].as_str().unwrap().to_owned(), token(0), token(1))
}

/// Reads what the server sends until it closes the connection (or `limit`
/// passes: then panics).
#[track_caller]
fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> String {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut got = Vec::new();
    match stream.read_to_end(&mut got) {
        Ok(_) => {}
        // A reset is a close too.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("the connection was not closed within {} s ({e}); read so far: {got:?}", limit.as_secs()),
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// A request head with a `Content-Length` of 1000 and 10 bytes of its body.
fn false_length(game: &str) -> String {
    format!(
        "POST /api/games/{game}/moves HTTP/1.1\r\nHost: steward\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"turn\": 1"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_sockets_beyond_the_caps_do_not_stop_the_moves() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = steward(
        dir.path(),
        "max_connections = 64\nmax_connections_per_client = 16\nheader_timeout_seconds = 3\nbody_timeout_seconds = 3\nidle_timeout_seconds = 5",
    )
    .await;
    // A file limit far below the flood (as in the finding: 400), above the caps.
    let limit = libc::rlimit { rlim_cur: 256, rlim_max: 256 };
    // SAFETY: prlimit(2) on our own child's pid, with a valid rlimit.
    let set = unsafe { libc::prlimit(s.pid() as libc::pid_t, libc::RLIMIT_NOFILE, &limit, std::ptr::null_mut()) };
    assert_eq!(set, 0, "the steward's file limit set");
    let api = s.api();
    let (game, white, black) = chess_game(&api).await;

    // The attacker, from 127.0.0.1 too: half-open sockets, heads sent by the
    // byte, and false Content-Lengths, 400 held open at a time (far beyond both
    // caps), new ones all the time.
    let stop = Arc::new(AtomicBool::new(false));
    let opened_so_far = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let attacker = {
        let (stop, addr, head, so_far) = (stop.clone(), s.addr, false_length(&game), opened_so_far.clone());
        std::thread::spawn(move || {
            let mut held: std::collections::VecDeque<TcpStream> = std::collections::VecDeque::new();
            let mut opened = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut socket) = TcpStream::connect(addr) else { continue };
                let _ = match opened % 3 {
                    0 => Ok(()),
                    1 => socket.write_all(b"GET /api/steward HTTP/1.1\r\nHo"),
                    _ => socket.write_all(head.as_bytes()),
                };
                opened += 1;
                so_far.store(opened, Ordering::Relaxed);
                held.push_back(socket);
                if held.len() > 400 {
                    held.pop_front();
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            opened
        })
    };
    // The moves start once the flood is beyond the file limit (on a loaded
    // machine the attacker's thread takes longer to get there).
    common::eventually_within(Duration::from_secs(60), "the flood beyond 400 sockets", || {
        (opened_so_far.load(Ordering::Relaxed) > 400).then_some(())
    })
    .await;
    let moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"];
    for (i, mv) in moves.iter().enumerate() {
        let token = if i % 2 == 0 { &white } else { &black };
        let turn = i as u32 + 1;
        // A fresh client each time: a new connection through the flood.
        let fresh = common::Api { client: common::client(), ..api.clone() };
        let answer =
            fresh.post_json(&format!("/api/games/{game}/moves"), Some(token), &json!({"turn": turn, "move": mv})).await;
        assert_eq!(answer.status, 200, "move {mv} during the flood: {}", answer.text);
    }
    stop.store(true, Ordering::Relaxed);
    let opened = attacker.join().unwrap();
    assert!(opened > 400, "the flood opened {opened} sockets");
    let game_now = api.game(&game, None).await;
    assert_eq!(game_now["turn"], 11, "{game_now}");
    // The shedding is reported at the latest when the door closes: counted, not one line per socket.
    let (status, _) = s.terminate(Duration::from_secs(15));
    assert!(status.success(), "{status:?}");
    s.stop();
    let reports = s.count("HTTP connections shed");
    assert!((1..=2).contains(&reports), "{reports} reports of shedding in:\n{}", s.log());
}

#[tokio::test]
async fn a_half_open_socket_is_closed_after_the_head_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let s = steward(dir.path(), "header_timeout_seconds = 1\nidle_timeout_seconds = 60").await;
    let mut silent = TcpStream::connect(s.addr).unwrap();
    let mut partial = TcpStream::connect(s.addr).unwrap();
    partial.write_all(b"GET /api/steward HTTP/1.1\r\nHost: st").unwrap();
    let started = Instant::now();
    assert_eq!(read_until_closed(&mut silent, Duration::from_secs(10)), "", "closed without an answer");
    assert_eq!(read_until_closed(&mut partial, Duration::from_secs(10)), "");
    assert!(started.elapsed() >= Duration::from_millis(500), "not closed before its time: {:?}", started.elapsed());
    // A kept-alive connection is closed by the idle timeout, not the head's.
    let mut kept = TcpStream::connect(s.addr).unwrap();
    kept.write_all(b"GET /api/steward HTTP/1.1\r\nHost: steward\r\n\r\n").unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 4096];
    let n = kept.read(&mut buf).unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&buf[..n]));
    kept.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let err = kept.read(&mut buf).map(|n| buf[..n].to_vec());
    assert!(err.is_err(), "still open after twice the head timeout: {err:?}");
}

#[tokio::test]
async fn a_false_content_length_is_answered_408_and_closed() {
    let dir = tempfile::tempdir().unwrap();
    let s = steward(dir.path(), "body_timeout_seconds = 1").await;
    let (game, _, _) = chess_game(&s.api()).await;
    let mut socket = TcpStream::connect(s.addr).unwrap();
    socket.write_all(false_length(&game).as_bytes()).unwrap();
    let answer = read_until_closed(&mut socket, Duration::from_secs(10));
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
    let body: serde_json::Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["error"], "timeout", "{body}");
    assert!(body["message"].as_str().unwrap().contains("Content-Length"), "{body}");
    // Nothing was played.
    assert_eq!(s.api().game(&game, None).await["turn"], 1);
}

/// Sends one whole request on a new connection and returns it unread.
fn request(addr: SocketAddr, path: &str) -> TcpStream {
    let mut socket = TcpStream::connect(addr).unwrap();
    socket.write_all(format!("GET {path} HTTP/1.1\r\nHost: steward\r\n\r\n").as_bytes()).unwrap();
    socket
}

#[tokio::test]
async fn with_every_place_answering_a_new_connection_is_told_busy() {
    let dir = tempfile::tempdir().unwrap();
    let s = steward(dir.path(), "max_connections_per_client = 1").await;
    let (game, _, _) = chess_game(&s.api()).await;
    // The largest pictures take a while to draw: each keeps its one place busy.
    let mut busy = None;
    for size in (2000..=2048).rev() {
        let mut drawing = request(s.addr, &format!("/api/games/{game}/board.png?size={size}"));
        // Its head read: the request is in flight, not a connection waiting for one.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut second = request(s.addr, "/api/steward");
        let answer = read_until_closed_or_answered(&mut second);
        let first = read_until_closed_or_answered(&mut drawing);
        // Still waiting for its head when the second came, it made room (and is closed unanswered).
        assert!(
            first.is_empty() || first.starts_with("HTTP/1.1 200"),
            "the picture in flight is answered: {}",
            &first[..first.len().min(200)]
        );
        if answer.starts_with("HTTP/1.1 503") {
            // Then the connection is closed.
            busy = Some(answer + &read_until_closed(&mut second, Duration::from_secs(10)));
            break;
        }
    }
    let answer = busy.expect("a 503 while the only place was busy drawing");
    let lower = answer.to_ascii_lowercase();
    assert!(lower.contains("retry-after: 5") && lower.contains("connection: close"), "{answer}");
    let body: serde_json::Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["error"], "busy", "{body}");
    assert!(body["message"].as_str().unwrap().contains("send it again"), "{body}");
}

/// Reads the first bytes of an answer (a kept-alive connection is not
/// closed after it).
fn read_until_closed_or_answered(stream: &mut TcpStream) -> String {
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut buf = vec![0u8; 64 * 1024];
    let n = stream.read(&mut buf).unwrap();
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[tokio::test]
async fn sigterm_with_200_waiting_connections_stops_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut s =
        steward(dir.path(), "header_timeout_seconds = 60\nbody_timeout_seconds = 60\nidle_timeout_seconds = 60").await;
    let (game, _, _) = chess_game(&s.api()).await;
    let mut open = Vec::new();
    for i in 0..200 {
        let mut socket = TcpStream::connect(s.addr).unwrap();
        match i % 4 {
            0 => {}
            1 => {
                // Kept alive after one answer.
                socket.write_all(b"GET /api/steward HTTP/1.1\r\nHost: steward\r\n\r\n").unwrap();
                let answer = read_until_closed_or_answered(&mut socket);
                assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
            }
            2 => socket.write_all(b"GET /api/steward HTTP/1.1\r\nHo").unwrap(),
            _ => socket.write_all(false_length(&game).as_bytes()).unwrap(),
        }
        open.push(socket);
    }
    // Every one of them reached the steward.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, took) = s.terminate(Duration::from_secs(15));
    assert!(status.success(), "exit status {status:?}\n{}", s.log());
    eprintln!("stopped in {took:?} with 200 waiting connections open");
    assert!(took < Duration::from_secs(SHUTDOWN_LIMIT), "the stop took {took:?}");
    drop(open);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_outbox_on_a_silent_smtp_server_does_not_hold_up_the_stop() {
    // An SMTP server that accepts and never answers: every delivery hangs.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = std::thread::spawn(move || silent.incoming().take(8).filter_map(Result::ok).collect::<Vec<_>>());
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fairsteward.toml");
    std::fs::write(
        &config,
        format!("[mail.smtp]\nhost = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\ntimeout_seconds = 120\n"),
    )
    .unwrap();
    let data = dir.path().join("data");
    let mut s = Steward::start_with(&data, &["--config".as_ref(), config.as_os_str()]).await;
    let api = s.api();
    for _ in 0..60 {
        chess_game(&api).await;
    }
    let unsent = || -> i64 {
        crate::support::backend::Db::of(&data).count("SELECT count(*) FROM outbox WHERE sent_at IS NULL", &[])
    };
    let queued = unsent();
    assert!(queued >= 120, "{queued} mails queued");
    let (status, took) = s.terminate(Duration::from_secs(25));
    assert!(status.success(), "exit status {status:?}\n{}", s.log());
    eprintln!("stopped in {took:?} with {queued} mails queued and the SMTP server silent");
    assert_eq!(unsent(), queued, "every mail stays queued for the next start");
    drop(held);
}

/// Seconds a stop with nothing in flight may take (far below TimeoutStopSec=30).
const SHUTDOWN_LIMIT: u64 = 5;
