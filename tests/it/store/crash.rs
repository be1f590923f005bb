//! Crash safety of the steward, through the real binary.
//!
//! `fairsteward serve` runs as a child process on a temporary data directory.
//! Six games (three chess, three Fairschach) are created over HTTP; then one
//! client task per game plays random legal moves (chosen with the library's
//! rulebook from the state the server shows; both Fairschach seats post at the
//! same time) while the test SIGKILLs the server at random moments, several
//! times, and restarts it on the same data directory.
//!
//! A move that got no answer may or may not have been accepted; the client sends
//! the same body again until it gets one (an accepted move must then come back
//! with its receipt). Every 2xx receipt is recorded. At the end, with the server
//! up and then after a last SIGKILL, the test checks, per game:
//!
//! * every receipt is in the transcript (one `moved` event with its id, turn and
//!   seat) and in the `moves` table, exactly once, and nothing else was accepted;
//! * sending every accepted body again gives the same receipt;
//! * turns are 1, 2, … k without gaps, each resolved exactly once (transcript
//!   `resolved` events and the `turns` table), chained state to state;
//! * replaying the client's own accepted moves through the rules gives every
//!   resolved state, every move's fate and the final state (HTTP and store);
//! * what each move's transaction wrote with it is there: the `inbound` row, the
//!   turn mails in the outbox, the spool files of the mails marked sent (and a
//!   half-written `.eml.tmp` only for a mail not marked sent);
//! * the server never logged an error.
//!
//! The seed (kill moments, move choices) is printed; set
//! `FAIRSTEWARD_CRASH_SEED=0x…` to use it again. Timing still varies, so a
//! rerun reproduces the schedule, not every interleaving.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, mpsc};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use fairsteward::rules::{DynVariant, Options, Seat, VariantId};
use serde_json::{Value, json};

/// Games per variant.
const GAMES_PER_VARIANT: usize = 3;
/// How many times the server is killed while the clients play.
const KILLS: usize = 6;
/// The server's uptime before each kill, in milliseconds (uniform).
const UPTIME_MS: (u64, u64) = (200, 900);
/// How long the server stays down, in milliseconds (uniform).
const DOWNTIME_MS: (u64, u64) = (0, 150);
/// How long the clients play after the last restart.
const FINAL_PHASE: Duration = Duration::from_millis(800);
/// A client stops its game at this turn (games rarely get there in time).
const MAX_TURNS: u32 = 400;
/// Give up waiting for an answer after this long (the server is gone for good).
const PATIENCE: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------
// A tiny seeded generator (no `rand` dependency)
// ---------------------------------------------------------------------------

use crate::support::backend::Db;
use crate::support::xorshift;
use xorshift::XorShift64;

fn seed() -> u64 {
    if let Ok(text) = std::env::var("FAIRSTEWARD_CRASH_SEED") {
        let t = text.trim();
        let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => t.parse(),
        };
        return parsed.unwrap_or_else(|e| panic!("FAIRSTEWARD_CRASH_SEED={text:?} is not a number: {e}"));
    }
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock after 1970").as_nanos();
    // Mix the time so that close starts give unrelated seeds.
    let mut x =
        XorShift64::new((nanos as u64) ^ ((nanos >> 64) as u64) ^ u64::from(std::process::id()).rotate_left(32));
    x.next();
    x.next()
}

// ---------------------------------------------------------------------------
// The server as a child process
// ---------------------------------------------------------------------------

struct Server {
    child: Child,
    addr: String,
}

/// Every stderr line of every server run, tagged with the run.
type Log = Arc<Mutex<Vec<String>>>;

fn start_server(dir: &Path, run: usize, log: &Log) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(["serve", "--data-dir"])
        .arg(dir)
        .args(["--listen", "127.0.0.1:0"])
        .envs(crate::support::backend::database_env(dir))
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fairsteward binary starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (tx, rx) = mpsc::channel();
    let lines = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let addr = rest.split_whitespace().next().unwrap_or_default().to_owned();
                let _ = tx.send(addr);
            }
            lines.lock().unwrap().push(format!("[run {run}] {line}"));
        }
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(addr) => Server { child, addr },
        Err(e) => {
            let _ = child.kill();
            let status = child.wait();
            panic!(
                "server run {run} did not say where it listens ({e}; {status:?}); its log:\n{}",
                log.lock().unwrap().join("\n")
            );
        }
    }
}

impl Drop for Server {
    /// A failing test leaves no server behind.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn kill(server: &mut Server) {
    // `Child::kill` is SIGKILL on Unix: no shutdown code runs.
    server.child.kill().expect("SIGKILL the server");
    server.child.wait().expect("reap the server");
}

// ---------------------------------------------------------------------------
// HTTP with retries across restarts
// ---------------------------------------------------------------------------

struct Shared {
    /// `http://ADDR` of the server now up (the port changes on each start).
    base: RwLock<String>,
    stop: AtomicBool,
    http: reqwest::Client,
    no_answer: AtomicUsize,
    /// Moves accepted by a server that was killed before it answered.
    answer_lost: AtomicUsize,
    repeats: AtomicUsize,
}

impl Shared {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base.read().unwrap())
    }
}

enum Reply {
    Answer(u16, Value),
    NoAnswer,
}

async fn post_move(shared: &Shared, game: &str, token: &str, body: &str) -> Reply {
    let sent = shared
        .http
        .post(shared.url(&format!("/api/games/{game}/moves")))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await;
    let Ok(response) = sent else { return Reply::NoAnswer };
    let status = response.status().as_u16();
    // A connection cut after the status line is no answer either.
    match response.bytes().await {
        Ok(bytes) => Reply::Answer(status, serde_json::from_slice(&bytes).unwrap_or(Value::Null)),
        Err(_) => Reply::NoAnswer,
    }
}

/// Posts `body` until the server answers (through any number of restarts).
async fn post_until_answered(shared: &Shared, game: &str, token: &str, body: &str) -> (u16, Value) {
    let since = Instant::now();
    loop {
        match post_move(shared, game, token, body).await {
            Reply::Answer(status, json) => return (status, json),
            Reply::NoAnswer => {
                shared.no_answer.fetch_add(1, Ordering::Relaxed);
                assert!(since.elapsed() < PATIENCE, "no answer to {body} for game {game} in {PATIENCE:?}");
                tokio::time::sleep(Duration::from_millis(15)).await;
            }
        }
    }
}

/// GETs `path` until the server answers 200, and returns the body.
async fn get_text(shared: &Shared, path: &str) -> String {
    let since = Instant::now();
    loop {
        if let Ok(response) = shared.http.get(shared.url(path)).send().await {
            let status = response.status();
            if let Ok(text) = response.text().await {
                assert!(status.is_success(), "GET {path}: {status}: {text}");
                return text;
            }
        }
        assert!(since.elapsed() < PATIENCE, "no answer to GET {path} in {PATIENCE:?}");
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
}

async fn get_json(shared: &Shared, path: &str) -> Value {
    let text = get_text(shared, path).await;
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("GET {path}: not JSON ({e}): {text}"))
}

// ---------------------------------------------------------------------------
// The clients
// ---------------------------------------------------------------------------

#[derive(Clone)]
struct Game {
    id: String,
    variant: VariantId,
    seat_names: Vec<String>,
    tokens: Vec<String>,
}

/// A move as sent.
#[derive(Clone, Debug)]
struct Sent {
    turn: u32,
    seat: usize,
    /// Canonical (UCI), as the client chose it.
    uci: String,
    /// The JSON body posted (the move as UCI or SAN).
    body: String,
}

/// A move that got a 2xx, with its receipt.
#[derive(Clone, Debug)]
struct Accepted {
    sent: Sent,
    receipt: Value,
}

fn rulebook(variant: VariantId) -> Box<dyn DynVariant> {
    variant.rulebook(&Options::new()).expect("default options")
}

/// Checks a 2xx answer to `sent` and returns the accepted move.
fn accepted(game: &Game, sent: &Sent, status: u16, receipt: Value) -> Accepted {
    assert!((200..300).contains(&status), "game {} {sent:?}: answered {status}: {receipt}", game.id);
    assert_eq!(receipt["game"], json!(game.id), "{receipt}");
    assert_eq!(receipt["turn"], json!(sent.turn), "{receipt}");
    assert_eq!(receipt["seat"], json!(game.seat_names[sent.seat]), "{receipt}");
    assert!(receipt["receipt"].as_str().is_some_and(|r| !r.is_empty()), "a receipt id: {receipt}");
    Accepted { sent: sent.clone(), receipt }
}

/// Posts one move; `Ok` when answered 2xx (then, now and then, posts it again and
/// compares the receipts), `Err` with the time when there was no answer.
async fn play_one(
    shared: Arc<Shared>,
    game: Game,
    sent: Sent,
    repeat: bool,
) -> Result<Accepted, (Sent, DateTime<Utc>)> {
    let token = &game.tokens[sent.seat];
    match post_move(&shared, &game.id, token, &sent.body).await {
        Reply::NoAnswer => {
            shared.no_answer.fetch_add(1, Ordering::Relaxed);
            Err((sent, Utc::now()))
        }
        Reply::Answer(status, receipt) => {
            let a = accepted(&game, &sent, status, receipt);
            if repeat {
                let (status, again) = post_until_answered(&shared, &game.id, token, &sent.body).await;
                assert_eq!(status, 200, "the same body again: {again}");
                // Once the turn is resolved the repeat also says so (`already_resolved`).
                assert_eq!(
                    receipt_only(&again),
                    receipt_only(&a.receipt),
                    "the same body again gives the same receipt"
                );
                shared.repeats.fetch_add(1, Ordering::Relaxed);
            }
            Ok(a)
        }
    }
}

/// Plays `game` until told to stop (or the game ends), across server restarts.
async fn client(shared: Arc<Shared>, game: Game, seed: u64) -> Vec<Accepted> {
    let rules = rulebook(game.variant);
    let mut rng = XorShift64::new(seed);
    let mut log: Vec<Accepted> = Vec::new();
    // Sent without an answer: maybe accepted, maybe not. Sent again first.
    let mut unknown: Vec<(Sent, DateTime<Utc>)> = Vec::new();
    loop {
        while let Some((sent, lost_at)) = unknown.pop() {
            let (status, receipt) = post_until_answered(&shared, &game.id, &game.tokens[sent.seat], &sent.body).await;
            let a = accepted(&game, &sent, status, receipt);
            // Accepted before the answer was lost (receipt times are milliseconds)?
            let at = DateTime::parse_from_rfc3339(a.receipt["received_at"].as_str().expect("received_at"))
                .expect("RFC 3339");
            if at + chrono::Duration::milliseconds(1) < lost_at {
                shared.answer_lost.fetch_add(1, Ordering::Relaxed);
            }
            log.push(a);
        }
        if shared.stop.load(Ordering::Relaxed) {
            return log;
        }
        let view = get_json(&shared, &format!("/api/games/{}", game.id)).await;
        let turn = u32::try_from(view["turn"].as_u64().expect("turn")).expect("turn fits");
        if !view["outcome"].is_null() || turn > MAX_TURNS {
            return log;
        }
        let state = view["state"].as_str().expect("state").to_owned();
        let owing: Vec<usize> = view["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .enumerate()
            .filter(|(_, s)| s["owes_move"] == json!(true))
            .map(|(i, _)| i)
            .collect();
        assert!(
            !owing.is_empty(),
            "game {} turn {turn}: a running game where nobody owes a move; moved {}, state {state}",
            game.id,
            view["moved"]
        );
        let mut tasks = tokio::task::JoinSet::new();
        for seat in owing {
            let s = Seat::new(u8::try_from(seat).expect("seat"));
            let legal = rules.legal_moves(&state, s).expect("legal moves of the shown state");
            assert!(!legal.is_empty(), "game {} turn {turn}: seat {seat} owes a move but has none", game.id);
            let uci = legal[rng.below(legal.len())].clone();
            // Half the moves go as SAN, half as UCI.
            let text = if rng.below(2) == 0 { rules.notation(&state, s, &uci).expect("notation") } else { uci.clone() };
            let body = json!({"turn": turn, "move": text}).to_string();
            let repeat = rng.below(8) == 0;
            tasks.spawn(play_one(shared.clone(), game.clone(), Sent { turn, seat, uci, body }, repeat));
        }
        while let Some(done) = tasks.join_next().await {
            match done.expect("client task") {
                Ok(a) => log.push(a),
                Err(lost) => unknown.push(lost),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepted_moves_survive_sigkill_and_turns_resolve_once() {
    let began = Instant::now();
    let seed = seed();
    println!("crash test seed: {seed:#018x} (FAIRSTEWARD_CRASH_SEED={seed:#x} repeats the schedule)");
    let mut rng = XorShift64::new(seed);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log: Log = Arc::default();

    let mut run = 0;
    let mut server = tokio::task::block_in_place(|| start_server(dir.path(), run, &log));
    // reqwest speaks TLS through rustls with ring; the provider is chosen once per process.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let shared = Arc::new(Shared {
        base: RwLock::new(format!("http://{}", server.addr)),
        stop: AtomicBool::new(false),
        http: reqwest::Client::builder().timeout(Duration::from_secs(10)).build().expect("HTTP client"),
        no_answer: AtomicUsize::new(0),
        answer_lost: AtomicUsize::new(0),
        repeats: AtomicUsize::new(0),
    });

    // The games, created with the operator token the first run made.
    let operator = std::fs::read_to_string(dir.path().join("operator-token")).expect("the operator token");
    let operator = operator.trim();
    let mut games = Vec::new();
    for variant in [VariantId::Chess, VariantId::Fairschach] {
        for i in 0..GAMES_PER_VARIANT {
            let body = json!({"variant": variant.name(), "seats": [
                {"name": format!("First {i}"), "email": format!("first{i}@example.org")},
                {"name": format!("Second {i}"), "email": format!("second{i}@example.org")},
            ]});
            let response = shared
                .http
                .post(shared.url("/api/games"))
                .bearer_auth(operator)
                .json(&body)
                .send()
                .await
                .expect("create a game");
            assert_eq!(response.status().as_u16(), 201);
            let created: Value = response.json().await.expect("JSON");
            let tokens: Vec<String> = created["tokens"]
                .as_array()
                .expect("tokens")
                .iter()
                .map(|t| t["token"].as_str().unwrap().to_owned())
                .collect();
            let seat_names: Vec<String> =
                created["tokens"].as_array().unwrap().iter().map(|t| t["seat"].as_str().unwrap().to_owned()).collect();
            games.push(Game { id: created["game"]["id"].as_str().unwrap().to_owned(), variant, seat_names, tokens });
        }
    }

    // The clients.
    let clients: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            tokio::spawn(client(
                shared.clone(),
                g.clone(),
                seed ^ (0xA076_1D64_78BD_642F_u64.wrapping_mul(i as u64 + 1)),
            ))
        })
        .collect();

    // Kill and restart.
    for _ in 0..KILLS {
        tokio::time::sleep(Duration::from_millis(rng.between(UPTIME_MS))).await;
        kill(&mut server);
        tokio::time::sleep(Duration::from_millis(rng.between(DOWNTIME_MS))).await;
        run += 1;
        server = tokio::task::block_in_place(|| start_server(dir.path(), run, &log));
        *shared.base.write().unwrap() = format!("http://{}", server.addr);
    }
    tokio::time::sleep(FINAL_PHASE).await;
    shared.stop.store(true, Ordering::Relaxed);
    let mut logs = Vec::new();
    for c in clients {
        logs.push(c.await.expect("a client"));
    }
    let played = began.elapsed();

    // ---- Checks over HTTP, with the server up ----
    let mut views = Vec::new();
    for (game, moves) in games.iter().zip(&logs) {
        let view = get_json(&shared, &format!("/api/games/{}", game.id)).await;
        let transcript: Vec<Value> = get_text(&shared, &format!("/api/games/{}/transcript", game.id))
            .await
            .lines()
            .map(|l| serde_json::from_str(l).expect("a transcript line is JSON"))
            .collect();
        check_transcript(game, moves, &view, &transcript);
        // The same body again gives the same receipt, for every accepted move.
        for a in moves {
            let (status, again) = post_until_answered(&shared, &game.id, &game.tokens[a.sent.seat], &a.sent.body).await;
            assert_eq!(status, 200, "game {} {:?} again: {again}", game.id, a.sent);
            assert_eq!(
                receipt_only(&again),
                receipt_only(&a.receipt),
                "game {} {:?}: the same body again gives the same receipt",
                game.id,
                a.sent
            );
        }
        views.push(view);
    }

    // ---- The last stop is a crash too; then the store itself ----
    kill(&mut server);
    let leftovers = check_store(dir.path(), &dir.path().join("spool"), &games, &logs, &views);

    let errors: Vec<String> = log.lock().unwrap().iter().filter(|l| l.contains(" ERROR ")).cloned().collect();
    assert!(errors.is_empty(), "the server logged errors:\n{}", errors.join("\n"));

    let total: usize = logs.iter().map(Vec::len).sum();
    let turns: Vec<u64> = views.iter().map(|v| v["turn"].as_u64().unwrap() - 1).collect();
    println!(
        "{} server runs, {KILLS} SIGKILLs (+1 at the end); {total} moves accepted, resolved turns per game {turns:?}; \
         {} requests without an answer, {} moves accepted by a server killed before it answered; {} receipts compared in play and {total} at the end; {leftovers} half-written spool files left; \
         play {:.1} s, all {:.1} s",
        run + 1,
        shared.no_answer.load(Ordering::Relaxed),
        shared.answer_lost.load(Ordering::Relaxed),
        shared.repeats.load(Ordering::Relaxed),
        played.as_secs_f64(),
        began.elapsed().as_secs_f64(),
    );
}

/// What the rules make of a game's accepted moves, turn by turn.
struct Replay {
    /// States: `states[0]` is the start, `states[t]` after turn t.
    states: Vec<String>,
    /// Per resolved turn: (seat, uci, status) in seat order.
    moves: Vec<Vec<(usize, String, String)>>,
    /// Per resolved turn: the notes.
    notes: Vec<Vec<String>>,
    /// Whether the last resolved turn ended the game.
    ended: bool,
}

/// Replays the client's own accepted moves through the rules; the turns the
/// server resolved are those whose every owing seat has an accepted move.
fn replay(game: &Game, moves: &[Accepted]) -> Replay {
    let rules = rulebook(game.variant);
    let mut by_turn: BTreeMap<u32, BTreeMap<usize, String>> = BTreeMap::new();
    for a in moves {
        let before = by_turn.entry(a.sent.turn).or_default().insert(a.sent.seat, a.sent.uci.clone());
        assert!(before.is_none(), "game {}: two accepted moves for turn {} seat {}", game.id, a.sent.turn, a.sent.seat);
    }
    let mut r = Replay { states: vec![rules.start()], moves: Vec::new(), notes: Vec::new(), ended: false };
    for (&turn, given) in &by_turn {
        assert_eq!(turn as usize, r.states.len(), "game {}: accepted moves for turn {turn} out of order", game.id);
        assert!(!r.ended, "game {}: a move accepted for turn {turn} after the game ended", game.id);
        let state = r.states.last().unwrap().clone();
        let to_move: Vec<usize> = rules.seats_to_move(&state).unwrap().iter().map(Seat::index).collect();
        let seats: Vec<usize> = given.keys().copied().collect();
        if seats != to_move {
            // Not complete: must be the last, still pending turn.
            assert!(
                seats.iter().all(|s| to_move.contains(s)),
                "game {} turn {turn}: moves from {seats:?}, to move {to_move:?}",
                game.id
            );
            assert_eq!(
                turn,
                *by_turn.keys().last().unwrap(),
                "game {}: turn {turn} incomplete but later turns played",
                game.id
            );
            break;
        }
        let history = &r.states[..r.states.len() - 1];
        let pairs: Vec<(Seat, String)> = given.iter().map(|(&s, m)| (Seat::new(s as u8), m.clone())).collect();
        let res =
            rules.resolve(history, &state, &pairs).unwrap_or_else(|e| panic!("game {} turn {turn}: {e}", game.id));
        r.moves.push(res.moves.iter().map(|m| (m.seat.index(), m.mv.clone(), m.result.as_str().to_owned())).collect());
        r.notes.push(res.notes.clone());
        r.states.push(res.state);
        r.ended = res.outcome.is_some();
    }
    r
}

fn check_transcript(game: &Game, moves: &[Accepted], view: &Value, transcript: &[Value]) {
    let g = &game.id;
    // Seqs 1..n, the game's own, created first.
    for (i, e) in transcript.iter().enumerate() {
        assert_eq!(e["seq"], json!(i + 1), "game {g}: transcript seq {e}");
        assert_eq!(e["game"], json!(g), "{e}");
    }
    assert_eq!(transcript[0]["kind"], "created");
    // Every receipt once, with its turn and seat; no accepted move the clients
    // were not told about.
    let mut moved: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for e in transcript.iter().filter(|e| e["kind"] == "moved") {
        let id = e["body"]["receipt"].as_str().expect("receipt id").to_owned();
        let entry = (e["body"]["turn"].as_u64().unwrap(), e["body"]["seat"].as_str().unwrap().to_owned());
        assert!(moved.insert(id.clone(), entry).is_none(), "game {g}: receipt {id} twice in the transcript");
    }
    let ours: BTreeSet<&str> = moves.iter().map(|a| a.receipt["receipt"].as_str().unwrap()).collect();
    assert_eq!(ours.len(), moves.len(), "game {g}: receipt ids are distinct");
    for a in moves {
        let id = a.receipt["receipt"].as_str().unwrap();
        let (turn, seat) = moved
            .get(id)
            .unwrap_or_else(|| panic!("game {g}: receipt {id} ({:?}) missing from the transcript", a.sent));
        assert_eq!(
            (*turn, seat.as_str()),
            (u64::from(a.sent.turn), game.seat_names[a.sent.seat].as_str()),
            "game {g} receipt {id}"
        );
    }
    let extra: Vec<_> = moved.keys().filter(|k| !ours.contains(k.as_str())).collect();
    assert!(extra.is_empty(), "game {g}: accepted moves no client got a receipt for: {extra:?}");

    // Resolutions: turns 1..k, each once, in order, matching the replay.
    let resolved: Vec<&Value> = transcript.iter().filter(|e| e["kind"] == "resolved").collect();
    let r = replay(game, moves);
    let k = r.moves.len();
    assert_eq!(resolved.len(), k, "game {g}: {} resolved events, {k} complete turns accepted", resolved.len());
    for (t, e) in resolved.iter().enumerate() {
        let b = &e["body"];
        assert_eq!(b["turn"], json!(t + 1), "game {g}: resolved events out of turn order: {e}");
        assert_eq!(b["state"], json!(r.states[t + 1]), "game {g} turn {}: state differs from the replay", t + 1);
        let got: Vec<(String, String, String)> = b["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["seat"].as_str().unwrap().to_owned(),
                    m["uci"].as_str().unwrap().to_owned(),
                    m["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let want: Vec<(String, String, String)> =
            r.moves[t].iter().map(|(s, m, st)| (game.seat_names[*s].clone(), m.clone(), st.clone())).collect();
        assert_eq!(got, want, "game {g} turn {}: moves and fates", t + 1);
        assert_eq!(b["notes"], json!(r.notes[t]), "game {g} turn {}: notes", t + 1);
    }
    // Every `moved` event comes before its turn's resolution.
    for e in transcript.iter().filter(|e| e["kind"] == "moved") {
        let turn = e["body"]["turn"].as_u64().unwrap() as usize;
        if turn <= k {
            assert!(
                e["seq"].as_u64() < resolved[turn - 1]["seq"].as_u64(),
                "game {g}: a move after its turn's resolution: {e}"
            );
        }
    }
    let ended = transcript.iter().filter(|e| e["kind"] == "ended").count();
    assert_eq!(ended, usize::from(r.ended), "game {g}: ended events");

    // The game as shown.
    assert_eq!(view["turn"], json!(k + 1), "game {g}: turn now");
    assert_eq!(view["state"], json!(r.states[k]), "game {g}: final state differs from the replay");
    assert_eq!(view["outcome"].is_null(), !r.ended, "game {g}: outcome {}", view["outcome"]);
    let history = view["history"].as_array().unwrap();
    assert_eq!(history.len(), k);
    for (t, h) in history.iter().enumerate() {
        assert_eq!(h["turn"], json!(t + 1));
        assert_eq!(h["state"], json!(r.states[t + 1]), "game {g} history turn {}", t + 1);
    }
    let pending: BTreeSet<String> =
        moves.iter().filter(|a| a.sent.turn as usize == k + 1).map(|a| game.seat_names[a.sent.seat].clone()).collect();
    let shown: BTreeSet<String> =
        view["moved"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect();
    assert_eq!(shown, pending, "game {g}: seats shown as moved in the open turn");
}

/// Checks the store; returns how many half-written spool files (`.eml.tmp`) the
/// kills left behind. Each must belong to a mail not yet marked sent (the next
/// attempt at it replaces the file).
fn check_store(data_dir: &Path, spool: &Path, games: &[Game], logs: &[Vec<Accepted>], views: &[Value]) -> usize {
    let conn = Db::of(data_dir);
    if !conn.is_postgres() {
        let ok = conn.one("PRAGMA integrity_check", &[]).expect("integrity_check answers").text();
        assert_eq!(ok, "ok");
    }
    let mut unsent = BTreeSet::new();
    let all_moves = conn.count("SELECT COUNT(*) FROM moves", &[]);
    assert_eq!(all_moves as usize, logs.iter().map(Vec::len).sum::<usize>(), "moves in the store vs receipts");

    for ((game, moves), view) in games.iter().zip(logs).zip(views) {
        let g = game.id.as_str();
        let r = replay(game, moves);
        let k = r.moves.len();

        let row = conn.rows("SELECT state, turn, result FROM games WHERE id = ?1", &[g.into()]).remove(0);
        let (state, turn, result) = (row[0].text(), row[1].int() as u32, row[2].opt_text());
        assert_eq!(state, r.states[k], "game {g}: stored state differs from the replay");
        assert_eq!(turn as usize, k + 1, "game {g}: stored turn");
        assert_eq!(result.is_some(), r.ended, "game {g}: stored result");
        assert_eq!(json!(state), view["state"]);

        // Moves: exactly the receipts, each once, with the client's move and its fate.
        let rows: Vec<(u32, usize, String, String, String, bool)> = conn
            .rows(
                "SELECT turn, seat, receipt, canonical, status, completes FROM moves WHERE game_id = ?1 ORDER BY turn, seat",
                &[g.into()],
            )
            .iter()
            .map(|r| (r[0].int() as u32, r[1].int() as usize, r[2].text(), r[3].text(), r[4].text(), r[5].int() != 0))
            .collect();
        assert_eq!(rows.len(), moves.len(), "game {g}: stored moves vs receipts");
        let mut completes = BTreeMap::<u32, usize>::new();
        for (turn, seat, receipt, canonical, status, complete) in &rows {
            let a = moves.iter().find(|a| a.receipt["receipt"] == json!(receipt)).unwrap_or_else(|| {
                panic!("game {g}: stored receipt {receipt} (turn {turn}, seat {seat}) was never given")
            });
            assert_eq!(
                (a.sent.turn, a.sent.seat, &a.sent.uci),
                (*turn, *seat, canonical),
                "game {g} receipt {receipt}"
            );
            let want = if (*turn as usize) <= k {
                r.moves[*turn as usize - 1].iter().find(|m| m.0 == *seat).map_or("?", |m| m.2.as_str())
            } else {
                "pending"
            };
            assert_eq!(status, want, "game {g} turn {turn} seat {seat}: status");
            *completes.entry(*turn).or_default() += usize::from(*complete);
        }
        for t in 1..=k as u32 {
            assert_eq!(completes.get(&t), Some(&1), "game {g} turn {t}: one move completes it");
        }
        assert_eq!(completes.get(&(k as u32 + 1)).copied().unwrap_or(0), 0, "game {g}: the open turn is not complete");

        // Turns: 1..k, each once, chained, as the replay.
        let turns: Vec<(u32, String, String)> = conn
            .rows("SELECT turn, state_before, state_after FROM turns WHERE game_id = ?1 ORDER BY turn", &[g.into()])
            .iter()
            .map(|r| (r[0].int() as u32, r[1].text(), r[2].text()))
            .collect();
        assert_eq!(turns.len(), k, "game {g}: stored turns");
        for (i, (t, before, after)) in turns.iter().enumerate() {
            assert_eq!(*t as usize, i + 1, "game {g}: turn numbers are consecutive");
            assert_eq!(before, &r.states[i], "game {g} turn {t}: state before");
            assert_eq!(after, &r.states[i + 1], "game {g} turn {t}: state after");
        }

        // Events: the transcript's rows; one resolution per turn.
        let events: Vec<(u32, String, String)> = conn
            .rows("SELECT seq, kind, body FROM events WHERE game_id = ?1 ORDER BY seq", &[g.into()])
            .iter()
            .map(|r| (r[0].int() as u32, r[1].text(), r[2].text()))
            .collect();
        let mut resolutions = BTreeMap::<u64, usize>::new();
        for (i, (seq, kind, body)) in events.iter().enumerate() {
            assert_eq!(*seq as usize, i + 1, "game {g}: event seqs");
            if kind == "resolved" {
                let body: Value = serde_json::from_str(body).unwrap();
                *resolutions.entry(body["turn"].as_u64().unwrap()).or_default() += 1;
            }
        }
        assert_eq!(resolutions.len(), k, "game {g}: resolved turns in the events table");
        assert!(
            resolutions.iter().enumerate().all(|(i, (t, n))| *t == i as u64 + 1 && *n == 1),
            "game {g}: {resolutions:?}"
        );
        let moved: usize = events.iter().filter(|e| e.1 == "moved").count();
        assert_eq!(moved, moves.len(), "game {g}: moved events");

        // What each move's transaction wrote with it.
        let inbound =
            conn.count("SELECT COUNT(*) FROM inbound WHERE game_id = ?1 AND outcome = 'accepted'", &[g.into()]);
        assert_eq!(inbound as usize, moves.len(), "game {g}: accepted inbound messages");
        // Message-ID, message, sent at, picture key, still queued as its letter.
        type Queued = (String, Vec<u8>, Option<String>, Option<String>, bool);
        let mails: Vec<Queued> = conn
            .rows(
                "SELECT message_id, message, sent_at, picture, letter IS NOT NULL FROM outbox WHERE game_id = ?1",
                &[g.into()],
            )
            .iter()
            .map(|r| (r[0].text(), r[1].bytes(), r[2].opt_text(), r[3].opt_text(), r[4].int() != 0))
            .collect();
        let ids: BTreeSet<String> = mails.iter().map(|m| m.0.split('@').next().unwrap().to_owned()).collect();
        let mut want: BTreeSet<String> = (0..2).map(|s| format!("{g}.0.{s}.started")).collect();
        want.extend((1..=k).flat_map(|t| (0..2).map(move |s| format!("{g}.{t}.{s}.turn"))));
        assert_eq!(ids, want, "game {g}: the mails queued");
        for (id, message, sent_at, picture, letter) in &mails {
            let path = fairsteward::mail::spool::file_for(spool, id);
            if sent_at.is_none() && *letter {
                unsent.insert(path.with_extension("eml.tmp"));
                // Still queued as its letter, which the drainer formats only
                // for the handover: a copy in the spool is that mail (its
                // bytes are the formatting's, checked by the outbox's tests).
                if let Ok(on_disk) = std::fs::read(&path) {
                    let parsed = mail_parser::MessageParser::default().parse(&on_disk).expect("a mail");
                    assert_eq!(parsed.message_id(), Some(id.as_str()), "mail {id}: the spool file is another mail");
                }
            } else if sent_at.is_none() {
                unsent.insert(path.with_extension("eml.tmp"));
                // Handed to the spool but killed before its sent mark: the copy
                // there is the queued mail, which the restart sends again.
                if let Ok(on_disk) = std::fs::read(&path) {
                    assert_eq!(
                        on_disk,
                        with_picture(id, message, picture.as_deref(), &on_disk),
                        "mail {id}: the spool file differs from the outbox"
                    );
                }
            } else {
                let on_disk = std::fs::read(&path)
                    .unwrap_or_else(|e| panic!("mail {id} marked sent but {}: {e}", path.display()));
                assert!(message.is_empty(), "mail {id}: a delivered mail's bytes stay in the outbox");
                let parsed = mail_parser::MessageParser::default().parse(&on_disk).expect("a mail");
                assert_eq!(parsed.message_id(), Some(id.as_str()), "mail {id}: the spool file is another mail");
            }
        }
    }
    let leftovers: Vec<_> = std::fs::read_dir(spool)
        .expect("the spool")
        .map(|e| e.expect("a spool entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".eml.tmp"))
        .collect();
    for p in &leftovers {
        assert!(unsent.contains(p), "{} is left half-written, but its mail is marked sent or unknown", p.display());
    }
    leftovers.len()
}

/// The queued `message` with the board picture that the spooled copy
/// `on_disk` carries put where the drainer puts it (the queue holds a
/// placeholder there).
fn with_picture(id: &str, message: &[u8], picture: Option<&str>, on_disk: &[u8]) -> Vec<u8> {
    let Some(key) = picture else { return message.to_vec() };
    let parsed = mail_parser::MessageParser::default().parse(on_disk).expect("a mail");
    let png = parsed
        .parts
        .iter()
        .find(|p| mail_parser::MimeHeaders::content_id(*p) == Some("board"))
        .unwrap_or_else(|| panic!("mail {id}: no board picture"))
        .contents();
    assert!(png.starts_with(b"\x89PNG"), "mail {id}: a PNG");
    fairsteward::letters::compose::put_picture(message, key, png)
        .unwrap_or_else(|| panic!("mail {id}: no placeholder for its picture"))
}

/// A receipt without the note a repeat for a resolved turn carries.
fn receipt_only(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("already_resolved");
    }
    v
}
