//! Long-game benchmark (issue 37, point 2): `cargo bench --bench long_game`.
//!
//! A plain `harness = false` program; it prints a report and asserts nothing
//! about time or size. `FAIRSTEWARD_BENCH_QUICK=1` (or `-- --quick`) is the CI
//! smoke: chess alone, to turn 40, measured at turns 10 and 40.
//!
//! The release binary (`fairsteward serve`, embedded defaults: mails to the
//! spool) on a fresh data directory; one chess game and one 3D chess game,
//! created over HTTP and played over HTTP by one client to turn `LAST` (a turn
//! is one move: both are games of one seat to move). Moves come from the
//! crate's rulebook (the steward's own rules): a random legal move that does
//! not end the game (no mate, no stalemate, no draw by the 50/75-move rule or
//! repetition), captures avoided while anything else is left (material
//! stays), a pawn move preferred once 60 plies have passed without one, and
//! a position already seen avoided where another move is left.
//!
//! Around turns 10, 100, 200 and 300 (each figure the median of the
//! `WINDOW` turns ending there, each played once the drainer has spooled the
//! mails before it): the move's HTTP latency; the bytes the steward's store
//! thread wrote for it (`wchar` of its `/proc/<pid>/task/<tid>/io`, from just
//! before the POST to the answer: the WAL frames of its commit). At the turn
//! itself: the board mails' drain (from the answer to the newest spool file's
//! modification time, and the mails' bytes); the game page (`GET
//! /games/{id}`), the PGN (`GET /api/games/{id}/record.pgn`) and the record
//! (`GET /api/games/{id}/record.json`), each the median of 5 GETs, with their
//! sizes; `fairsteward verify` of the transcript (`GET
//! /api/games/{id}/transcript`), the median of 3 runs of the command.
//!
//! Issue 37's targets are printed last: the move at turn 300 within 1.5× of
//! turn 10; the page, the exports and `verify` no worse than linear in the
//! game's length (ratio at most 30× from turn 10 to 300, 3× from 100 to 300).

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use fairsteward::rules::VariantId;
use serde_json::{Value, json};

mod support;
use support::xorshift::XorShift64;
use support::{Game, Served, conditions, create_game, files_in, verdict, written_by};

const SEED: u64 = 0x5EED_1076_6A3E_0037;
/// Turns measured before each checkpoint (the checkpoint's figure is their median).
const WINDOW: u32 = 5;

struct Plan {
    variants: Vec<VariantId>,
    checkpoints: Vec<u32>,
}

fn plan() -> Plan {
    if support::quick() {
        Plan { variants: vec![VariantId::Chess], checkpoints: vec![10, 40] }
    } else {
        Plan { variants: vec![VariantId::Chess, VariantId::TriDChess], checkpoints: vec![10, 100, 200, 300] }
    }
}

/// A state's halfmove counter (the second field from the end) and its pieces
/// (the letters of its first field).
fn halfmove_and_pieces(state: &str) -> (Option<u32>, usize) {
    let fields: Vec<&str> = state.split_whitespace().collect();
    let half = fields.len().checked_sub(2).and_then(|i| fields[i].parse().ok());
    let pieces = fields.first().map_or(0, |f| f.chars().filter(char::is_ascii_alphabetic).count());
    (half, pieces)
}

/// The position part of a state, for repetition: all but the two counters.
fn position(state: &str) -> String {
    let fields: Vec<&str> = state.split_whitespace().collect();
    fields[..fields.len().saturating_sub(2)].join(" ")
}

/// Chooses the move for the one seat to move (see the module's docs); None if
/// every legal move ends the game.
fn choose(g: &Game, rng: &mut XorShift64) -> Option<(fairsteward::rules::Seat, String)> {
    let seats = g.rules.seats_to_move(&g.state).expect("state");
    let seat = seats.iter().next().expect("a seat to move");
    let (_, pieces) = halfmove_and_pieces(&g.state);
    let seen: std::collections::HashSet<String> = g.history.iter().map(|s| position(s)).collect();
    let mut best: Vec<(u32, String)> = Vec::new();
    for mv in g.rules.legal_moves(&g.state, seat).expect("legal moves") {
        let Ok(r) = g.rules.resolve(&g.history, &g.state, &[(seat, mv.clone())]) else { continue };
        if r.outcome.is_some() {
            continue;
        }
        let (half, after) = halfmove_and_pieces(&r.state);
        let capture = after < pieces;
        let pawn = half == Some(0) && !capture;
        let repeat = seen.contains(&position(&r.state));
        let late = halfmove_and_pieces(&g.state).0.is_some_and(|h| h >= 60);
        // Lower is better.
        let score = u32::from(capture) * 8 + u32::from(repeat) * 4 + u32::from(late && !pawn) * 2;
        best.push((score, mv));
    }
    let low = best.iter().map(|(s, _)| *s).min()?;
    let pool: Vec<&String> = best.iter().filter(|(s, _)| *s == low).map(|(_, m)| m).collect();
    // A pawn move now and then (one in five, when there is one), so pawns last.
    Some((seat, pool[rng.below(pool.len())].clone()))
}

/// Waits until the spool has had no new file for 300 ms (at most 30 s).
fn quiet(spool: &Path) {
    let begin = Instant::now();
    let mut last = (files_in(spool).1, Instant::now());
    while begin.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
        let n = files_in(spool).1;
        if n != last.0 {
            last = (n, Instant::now());
        } else if last.1.elapsed() >= Duration::from_millis(300) {
            return;
        }
    }
}

/// The spool's files, by name, with their modification times and sizes.
fn spool_files(spool: &Path) -> std::collections::HashMap<String, (SystemTime, u64)> {
    std::fs::read_dir(spool)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), (m.modified().ok()?, m.len())))
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { f64::NAN } else { v[v.len() / 2] }
}

/// Median time (ms) of `times` GETs of `url`, and the body's bytes (NaN and 0 for a 404).
async fn get(http: &reqwest::Client, url: &str, times: usize) -> (f64, usize) {
    let mut ms = Vec::new();
    let mut size = 0;
    for _ in 0..times {
        let t = Instant::now();
        let response = http.get(url).send().await.expect("GET");
        if response.status().as_u16() == 404 {
            // A variant without this form (3D chess has no PGN).
            return (f64::NAN, 0);
        }
        assert!(response.status().is_success(), "GET {url}: {}", response.status());
        size = response.bytes().await.expect("the body").len();
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    (median(ms), size)
}

#[derive(Default)]
struct Checkpoint {
    turn: u32,
    move_ms: f64,
    store_bytes: f64,
    drain_ms: f64,
    mails: usize,
    mail_bytes: u64,
    page: (f64, usize),
    pgn: (f64, usize),
    record: (f64, usize),
    transcript: (f64, usize),
    verify_ms: f64,
}

async fn long_game(variant: VariantId, checkpoints: &[u32]) -> Vec<Checkpoint> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = dir.path().join("data");
    let served = Served::start(&data, None);
    let spool = data.join("spool");
    let http = reqwest::Client::builder().no_proxy().build().expect("HTTP client");
    let mut g = create_game(&http, &served.base, &served.operator, variant, 0).await;
    let key: Value = http
        .get(format!("{}/api/steward", served.base))
        .send()
        .await
        .expect("GET /api/steward")
        .json()
        .await
        .expect("JSON");
    let key = key["signing_key"].as_str().expect("signing_key").to_owned();
    let mut rng = XorShift64::new(SEED ^ variant as u64);
    let last = *checkpoints.last().expect("a checkpoint");
    let mut window: Vec<(f64, f64)> = Vec::new();
    let mut out = Vec::new();
    while g.turn <= last {
        let Some((seat, mv)) = choose(&g, &mut rng) else {
            println!("  {variant}: every legal move at turn {} ends the game; stopped there", g.turn);
            break;
        };
        let measured = checkpoints.iter().any(|&c| g.turn + WINDOW > c && g.turn <= c);
        if measured {
            quiet(&spool);
        }
        let before_files = if checkpoints.contains(&g.turn) { Some(spool_files(&spool)) } else { None };
        let written = written_by(served.pid(), "store");
        let t = Instant::now();
        let response = http
            .post(format!("{}/api/games/{}/moves", served.base, g.id))
            .bearer_auth(&g.tokens[seat.index()])
            .json(&json!({"turn": g.turn, "move": mv}))
            .send()
            .await
            .expect("POST a move");
        let status = response.status().as_u16();
        let body = response.text().await.expect("the receipt");
        let latency = t.elapsed().as_secs_f64() * 1000.0;
        let answered = SystemTime::now();
        let store_bytes = written_by(served.pid(), "store").saturating_sub(written) as f64;
        assert_eq!(status, 200, "{variant} turn {}: {body}", g.turn);
        let r = g.rules.resolve(&g.history, &g.state, &[(seat, mv)]).expect("resolve");
        g.history.push(std::mem::replace(&mut g.state, r.state));
        let turn = g.turn;
        g.turn += 1;
        if measured {
            window.push((latency, store_bytes));
        }
        let Some(before_files) = before_files else { continue };
        let mut c = Checkpoint { turn, ..Default::default() };
        c.move_ms = median(window.iter().map(|w| w.0).collect());
        c.store_bytes = median(window.iter().map(|w| w.1).collect());
        window.clear();
        quiet(&spool);
        let new: Vec<(SystemTime, u64)> =
            spool_files(&spool).into_iter().filter(|(n, _)| !before_files.contains_key(n)).map(|(_, v)| v).collect();
        c.mails = new.len();
        c.mail_bytes = new.iter().map(|(_, b)| b).sum();
        c.drain_ms = new
            .iter()
            .map(|(t, _)| t.duration_since(answered).map_or(0.0, |d| d.as_secs_f64() * 1000.0))
            .fold(0.0, f64::max);
        c.page = get(&http, &format!("{}/games/{}", served.base, g.id), 5).await;
        c.pgn = get(&http, &format!("{}/api/games/{}/record.pgn", served.base, g.id), 5).await;
        c.record = get(&http, &format!("{}/api/games/{}/record.json", served.base, g.id), 5).await;
        c.transcript = get(&http, &format!("{}/api/games/{}/transcript", served.base, g.id), 3).await;
        let transcript = http
            .get(format!("{}/api/games/{}/transcript", served.base, g.id))
            .send()
            .await
            .expect("GET the transcript")
            .bytes()
            .await
            .expect("the transcript");
        let file = dir.path().join(format!("transcript-{turn}.jsonl"));
        std::fs::write(&file, &transcript).expect("write the transcript");
        let mut runs = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_fairsteward"))
                .args(["verify", "--transcript"])
                .arg(&file)
                .args(["--steward-key", &key])
                .output()
                .expect("fairsteward verify runs");
            runs.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(
                o.status.success(),
                "verify at turn {turn}: {}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        c.verify_ms = median(runs);
        println!(
            "  {variant} turn {turn:>3}: move {:.2} ms, store wrote {:.0} B, {} mails ({} B) drained {:.0} ms after the answer; page {:.2} ms ({} B), PGN {:.2} ms ({} B), record {:.2} ms ({} B), transcript {:.2} ms ({} B), verify {:.1} ms",
            c.move_ms,
            c.store_bytes,
            c.mails,
            c.mail_bytes,
            c.drain_ms,
            c.page.0,
            c.page.1,
            c.pgn.0,
            c.pgn.1,
            c.record.0,
            c.record.1,
            c.transcript.0,
            c.transcript.1,
            c.verify_ms
        );
        out.push(c);
    }
    let log = std::fs::read_to_string(&served.log).unwrap_or_default();
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("ERROR")).collect();
    if let Some(first) = errors.first() {
        println!("  the steward logged {} ERROR lines; the first: {first}", errors.len());
    }
    served.stop();
    out
}

fn main() {
    let p = plan();
    println!("fairsteward long-game benchmark ({} build)", if cfg!(debug_assertions) { "debug" } else { "optimized" });
    println!();
    println!(
        "The release binary serve (embedded defaults: mails to the spool) on 127.0.0.1; one game each of {:?}, played over HTTP",
        p.variants.iter().map(|v| v.name()).collect::<Vec<_>>()
    );
    println!(
        "  by one client to turn {} (random legal moves that do not end the game); measured at turns {:?} (move: median of the {WINDOW} turns ending there)",
        p.checkpoints.last().unwrap_or(&0),
        p.checkpoints
    );
    println!("Conditions at start: {}", conditions(&std::env::temp_dir()));
    println!();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut results = Vec::new();
    for &v in &p.variants {
        let cps = runtime.block_on(long_game(v, &p.checkpoints));
        results.push((v, cps));
    }
    println!();
    println!("Issue 37 targets, this run (conditions at end: {}):", conditions(&std::env::temp_dir()));
    for (v, cps) in &results {
        let (Some(first), Some(last)) = (cps.first(), cps.last()) else { continue };
        if first.turn == last.turn {
            continue;
        }
        let length = f64::from(last.turn) / f64::from(first.turn);
        let mid = cps.iter().find(|c| c.turn * 3 == last.turn);
        let ratio = |f: fn(&Checkpoint) -> f64| f(last) / f(first);
        let mid_ratio = |f: fn(&Checkpoint) -> f64| {
            mid.map_or(String::new(), |m| format!(", {:.2}x from turn {}", f(last) / f(m), m.turn))
        };
        println!("  {v}, turn {} / turn {} (the game {length:.0}x as long):", last.turn, first.turn);
        let r = ratio(|c| c.move_ms);
        println!("    the move's HTTP latency        {r:>7.2}x  target <= 1.5x      {}", verdict(r <= 1.5));
        println!("    store bytes written by the move {:>6.2}x", ratio(|c| c.store_bytes));
        println!("    the board mails' drain          {:>6.2}x", ratio(|c| c.drain_ms));
        println!("    the board mails' bytes          {:>6.2}x", ratio(|c| c.mail_bytes as f64));
        for (name, f, size) in [
            (
                "the game page",
                (|c: &Checkpoint| c.page.0) as fn(&Checkpoint) -> f64,
                (|c: &Checkpoint| c.page.1 as f64) as fn(&Checkpoint) -> f64,
            ),
            ("the PGN", |c| c.pgn.0, |c| c.pgn.1 as f64),
            ("the record", |c| c.record.0, |c| c.record.1 as f64),
            ("the transcript", |c| c.transcript.0, |c| c.transcript.1 as f64),
            ("verify", |c| c.verify_ms, |c| c.transcript.1 as f64),
        ] {
            let r = ratio(f);
            if r.is_nan() {
                println!("    {name:<30} (not served for this variant)");
                continue;
            }
            println!(
                "    {name:<30} {r:>7.2}x{}  (size {:.2}x)  target <= {length:.0}x (linear)  {}",
                mid_ratio(f),
                ratio(size),
                verdict(r <= length)
            );
        }
    }
}
