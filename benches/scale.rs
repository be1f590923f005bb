//! Scale benchmark (issue 37, point 1): `cargo bench --bench scale`.
//!
//! A plain `harness = false` program; it prints a report and asserts nothing
//! about time or size. `FAIRSTEWARD_BENCH_QUICK=1` (or `-- --quick`) is the CI
//! smoke: stores of 10² and 10³ games instead of 10³, 10⁴ and 10⁵.
//!
//! For each size, in one run:
//! 1. **Build** a store of that many open games, half chess, half Fairschach,
//!    each with a running clock (`days_per_move`: 1 day in one game of 100, 7
//!    days in the others), and `BUILD_TURNS` turns of random legal moves
//!    played in each. The store is built in this process through the crate's
//!    own steward (`fairsteward::server::open`, `Steward::create_game`,
//!    `Steward::submit_move`: the transactions the HTTP door runs, without the
//!    HTTP) and no outbox drainer: over HTTP the release binary would draw and
//!    spool every start and board mail of the build (some 5 × 10⁵ mails, 37 KB
//!    each, at 10⁵ games: 18 GB and an hour of CPU on this machine). The mails
//!    the build queued are then marked sent, as a steward's mails of long ago
//!    are, and the WAL checkpointed. Bytes on disk per game: the database's
//!    files then, over the games.
//! 2. **Start** the release binary (`fairsteward serve`, a maildir door polled
//!    every second, the scheduled sweep and backups out of the way) on it,
//!    twice. The first start runs SQLite's full integrity check before it
//!    serves (no clean stop is on record) and its start-up sweep finds every
//!    game due once; it is stopped cleanly once that sweep is done. The second,
//!    a restart after a clean stop, is the one measured: start-up to the first
//!    answered `GET /api/steward`; its integrity check and start-up sweep, both
//!    beside the requests, waited for; resident memory (`VmRSS`) idle, 2 s later.
//! 3. **Moves**: one client plays `MOVES` moves over HTTP, one at a time, in
//!    games spread over the whole store: latency p50 and p99; CPU per move of
//!    the steward's store thread and of the whole process (from `/proc`, once
//!    the drainer has spooled the moves' mails).
//! 4. **Maildir backlog**: one reply mail per seat of `BACKLOG` Fairschach
//!    games, moved into `new/` at once; the rate from the first mail the door
//!    has in `cur/` to the last (the poll's wait left out).
//! 5. **Sweep**: the steward stopped, one sweep as `fairsteward sweep --now T`
//!    runs it (the store opened in this process, a manual clock at `T`,
//!    `Steward::sweep`, then `drain_once` to the spool), the sweep and the
//!    spooling timed apart (the command's own start-up would blur them): once
//!    at a `T` when nothing is due, once a day later, when the games of 1-day
//!    clocks (1 %) have timed out. The sweep's cost per due game is the whole
//!    sweep a day later over the due games; the one with nothing due, over the
//!    games, is what reading every running clock costs.
//!
//! Issue 37's targets (a move's cost and the sweep's cost per due game within
//! 1.3× from 10³ to 10⁵; memory under 100 MB and start-up under 2 s at 10⁵)
//! are printed last.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chrono::Utc;
use fairsteward::config::{Config, Overrides};
use fairsteward::rules::{Options, VariantId};
use fairsteward::steward::{Credential, Door, MoveRequest, NewGame, NewSeat, Steward, Submission};
use serde_json::json;

mod support;
use support::xorshift::XorShift64;
use support::{Game, Served, conditions, cpu_of, files_in, percentile_ms, play_turn, verdict};

/// Concurrent tasks building the store.
const BUILDERS: usize = 16;
/// Turns played in every game while building.
const BUILD_TURNS: u32 = 2;
const SEED: u64 = 0x5EED_5CA1_E000_0037;
/// The steward's own address (reply capabilities are made from it).
const FROM: &str = "scale-bench@steward.example";

struct Plan {
    sizes: Vec<usize>,
    moves: usize,
    backlog: usize,
}

fn plan() -> Plan {
    let mut p = plan_by_mode();
    // FAIRSTEWARD_BENCH_SIZES=100000 (a comma list) measures those sizes only.
    if let Ok(sizes) = std::env::var("FAIRSTEWARD_BENCH_SIZES") {
        p.sizes = sizes.split(',').filter_map(|n| n.trim().parse().ok()).collect();
    }
    p
}

fn plan_by_mode() -> Plan {
    if support::quick() {
        Plan { sizes: vec![100, 1_000], moves: 60, backlog: 50 }
    } else {
        Plan { sizes: vec![1_000, 10_000, 100_000], moves: 400, backlog: 500 }
    }
}

fn variant(i: usize) -> VariantId {
    if i.is_multiple_of(2) { VariantId::Chess } else { VariantId::Fairschach }
}

/// One game in a hundred has a 1-day clock (due in the sweep a day later).
fn clock_days(i: usize) -> u32 {
    if i.is_multiple_of(100) { 1 } else { 7 }
}

fn seat_email(i: usize, seat: usize) -> String {
    if seat == 0 { format!("first{i}@example.org") } else { format!("second{i}@example.org") }
}

fn config_file(dir: &Path) -> PathBuf {
    let path = dir.join("fairsteward.toml");
    std::fs::write(
        &path,
        format!(
            "[mail]\nfrom = \"Fairsteward <{FROM}>\"\n[mail.maildir]\npath = \"maildir\"\npoll_seconds = 1\n\
             [schedule]\nsweep = \"0 0 0 1 1 *\"\nreminders_hours = []\n[backup]\nenabled = false\n"
        ),
    )
    .expect("the configuration file");
    path
}

/// Plays one turn of `g` in process: a random legal move for every seat to move.
async fn play_turn_in_process(steward: &Steward, g: &mut Game, rng: &mut XorShift64) -> bool {
    let mut moves = Vec::with_capacity(2);
    for seat in g.rules.seats_to_move(&g.state).expect("state").iter() {
        let legal = g.rules.legal_moves(&g.state, seat).expect("legal moves");
        let text = legal[rng.below(legal.len())].clone();
        let req = MoveRequest {
            game: g.id.clone(),
            credential: Credential::token(Some(g.tokens[seat.index()].clone())),
            submission: Submission::Move { turn: g.turn, text: text.clone() },
            kept: steward.kept_copy(b""),
            door: Door::Http,
        };
        steward.submit_move(req, Utc::now()).await.unwrap_or_else(|e| panic!("game {} turn {}: {e}", g.id, g.turn));
        moves.push((seat, text));
    }
    let r = g.rules.resolve(&g.history, &g.state, &moves).expect("resolve");
    g.history.push(std::mem::replace(&mut g.state, r.state));
    g.turn += 1;
    r.outcome.is_some()
}

/// Builds `n` games in process (see the module's docs). Returns them (turn 0:
/// ended) and the seconds it took.
fn build(data: &Path, config_path: &Path, n: usize) -> (Vec<Game>, f64) {
    let config = Config::load(Some(config_path), &Overrides { data_dir: Some(data.to_owned()), ..Default::default() })
        .expect("the configuration");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let begin = Instant::now();
    let games = runtime.block_on(async {
        let steward = fairsteward::server::open(&config, Arc::new(tokio::sync::Notify::new())).expect("open the store");
        let next = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..BUILDERS)
            .map(|b| {
                let (steward, next) = (steward.clone(), next.clone());
                tokio::spawn(async move {
                    let mut rng = XorShift64::new(SEED ^ (b as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    let mut games = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            return games;
                        }
                        let v = variant(i);
                        let mut options = BTreeMap::new();
                        options.insert("clock".to_owned(), json!({"kind": "days_per_move", "days": clock_days(i)}));
                        let new = NewGame {
                            variant: v.name().to_owned(),
                            options,
                            seats: (0..2)
                                .map(|s| NewSeat {
                                    openpgp_key: None,
                                    name: format!("{} {i}", if s == 0 { "First" } else { "Second" }),
                                    email: seat_email(i, s),
                                    public_key: None,
                                    time_zone: None,
                                })
                                .collect(),
                            invite: false,
                        };
                        let created = steward.create_game(new, Utc::now()).await.expect("create a game");
                        let rules = v.rulebook(&Options::new()).expect("default options");
                        let state = rules.start();
                        let mut g = Game {
                            id: created.game.id.clone(),
                            rules,
                            tokens: created.tokens.iter().map(|t| t.token.clone()).collect(),
                            history: Vec::new(),
                            state,
                            turn: 1,
                        };
                        for _ in 0..BUILD_TURNS {
                            if play_turn_in_process(&steward, &mut g, &mut rng).await {
                                g.turn = 0;
                                break;
                            }
                        }
                        games.push((i, g));
                    }
                })
            })
            .collect();
        let mut games = Vec::with_capacity(n);
        for t in tasks {
            games.extend(t.await.expect("a builder"));
        }
        games.sort_by_key(|(i, _)| *i);
        games.into_iter().map(|(_, g)| g).collect::<Vec<_>>()
    });
    drop(runtime);
    let seconds = begin.elapsed().as_secs_f64();
    // The build's mails as sent long ago; the WAL into the database.
    let db = rusqlite::Connection::open(data.join("steward.db")).expect("the database");
    db.execute("UPDATE outbox SET sent_at = created_at, letter = NULL WHERE sent_at IS NULL", []).expect("mark sent");
    db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).expect("checkpoint");
    (games, seconds)
}

fn store_bytes(data: &Path) -> u64 {
    ["steward.db", "steward.db-wal"].iter().filter_map(|f| std::fs::metadata(data.join(f)).ok()).map(|m| m.len()).sum()
}

/// Waits until `dir` has had no new file for `quiet` (at most `limit`).
fn wait_quiet(dir: &Path, quiet: Duration, limit: Duration) {
    let begin = Instant::now();
    let mut last = (files_in(dir).1, Instant::now());
    while begin.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(50));
        let n = files_in(dir).1;
        if n != last.0 {
            last = (n, Instant::now());
        } else if last.1.elapsed() >= quiet {
            return;
        }
    }
}

/// One client, one move at a time, in `games` picked across the store.
async fn moves(http: &reqwest::Client, base: &str, games: &mut [Game], picks: &[usize], want: usize) -> Vec<Duration> {
    let mut rng = XorShift64::new(SEED ^ 0x4D0E);
    let mut latencies = Vec::with_capacity(want + 1);
    'outer: loop {
        for &i in picks {
            let g = &mut games[i];
            if g.turn == 0 {
                continue;
            }
            let (answered, ended) = play_turn(http, base, g, &mut rng).await;
            latencies.extend(answered.into_iter().map(|(_, d)| d));
            if ended {
                g.turn = 0;
            }
            if latencies.len() >= want {
                break 'outer;
            }
        }
    }
    latencies
}

/// The maildir backlog: one reply per seat of `count` Fairschach games (from
/// the end of the store, untouched by the moves), into `new/` at once. Returns
/// (mails, mails per second from the first in `cur/` to the last, seconds from
/// the rename to the last).
fn backlog(data: &Path, games: &mut [Game], count: usize) -> (usize, f64, f64) {
    let keys = fairsteward::protocol::StewardKeys::load_or_create(data).expect("the steward's keys");
    let maildir = data.join("maildir");
    let mut rng = XorShift64::new(SEED ^ 0xB4C);
    let mut written = Vec::new();
    let mut taken = 0;
    for i in (0..games.len()).rev() {
        if taken == count {
            break;
        }
        let g = &mut games[i];
        if variant(i) != VariantId::Fairschach || g.turn == 0 {
            continue;
        }
        taken += 1;
        let mut moves = Vec::new();
        for seat in g.rules.seats_to_move(&g.state).expect("state").iter() {
            let legal = g.rules.legal_moves(&g.state, seat).expect("legal moves");
            let mv = legal[rng.below(legal.len())].clone();
            let name = if seat.index() == 0 { "white" } else { "black" };
            let cap =
                fairsteward::protocol::capability::address(&keys, FROM, &g.id, name, g.turn).expect("a capability");
            let mail = format!(
                "From: Player <{who}>\r\nTo: Fairsteward <{cap}>\r\nSubject: Re: Game {id}: your move\r\n\
                 Message-ID: <scale-{i}-{name}-{turn}@client.example>\r\nDate: Mon, 07 Dec 2026 12:00:00 +0000\r\n\
                 MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
                 {mv}\r\n\r\nSent from my phone\r\n\r\n> Game {id}: your move for turn {turn}.\r\n",
                who = seat_email(i, seat.index()),
                id = g.id,
                turn = g.turn
            );
            let file = format!("{i:07}.{name}.scale");
            let mut f = std::fs::File::create(maildir.join("tmp").join(&file)).expect("a maildir file");
            f.write_all(mail.as_bytes()).expect("write a mail");
            written.push(file);
            moves.push((seat, mv));
        }
        let r = g.rules.resolve(&g.history, &g.state, &moves).expect("resolve");
        g.history.push(std::mem::replace(&mut g.state, r.state));
        g.turn = if r.outcome.is_some() { 0 } else { g.turn + 1 };
    }
    let begin = Instant::now();
    for file in &written {
        std::fs::rename(maildir.join("tmp").join(file), maildir.join("new").join(file)).expect("into new/");
    }
    let mut first = None;
    loop {
        let done = std::fs::read_dir(maildir.join("cur")).map_or(0, Iterator::count);
        if done > 0 && first.is_none() {
            first = Some(Instant::now());
        }
        if done >= written.len() {
            break;
        }
        assert!(
            begin.elapsed() < Duration::from_secs(600),
            "the maildir door took {done} of {} in 600 s",
            written.len()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let span = first.map_or(0.0, |f| f.elapsed().as_secs_f64());
    let rate = if span > 0.0 { (written.len() - 1) as f64 / span } else { f64::NAN };
    (written.len(), rate, begin.elapsed().as_secs_f64())
}

/// One deadline sweep as of `now` on the stopped store, as `fairsteward sweep
/// --now` runs it (the store opened in process, a manual clock at `now`,
/// `Steward::sweep`, then `drain_once` spooling what it queued), each part
/// timed alone: (sweep s, drain s, games swept, timeouts, mails spooled).
fn sweep(data: &Path, config_path: &Path, now: chrono::DateTime<Utc>) -> (f64, f64, usize, usize, usize) {
    let mut config =
        Config::load(Some(config_path), &Overrides { data_dir: Some(data.to_owned()), ..Default::default() })
            .expect("the configuration");
    config.clock = fairsteward::clock::Clock::manual(now);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(async {
        let steward = fairsteward::server::open(&config, Arc::new(tokio::sync::Notify::new())).expect("open the store");
        // FAIRSTEWARD_BENCH_PERF=DIR: `perf record` of this process for each sweep.
        let _perf = std::env::var_os("FAIRSTEWARD_BENCH_PERF").map(|dir| {
            let out = Path::new(&dir).join(format!("sweep-{}.data", now.timestamp()));
            let child = std::process::Command::new("perf")
                .args([
                    "record",
                    "--call-graph",
                    "dwarf,16384",
                    "-F",
                    "499",
                    "-p",
                    &std::process::id().to_string(),
                    "-o",
                ])
                .arg(&out)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("perf (linux-perf) is installed");
            std::thread::sleep(Duration::from_secs(1));
            println!("    perf data: {}", out.display());
            Perf(child)
        });
        let t = Instant::now();
        let report = steward.sweep(now).await.expect("the sweep");
        let swept = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let sink = fairsteward::mail::outbox::Sink::Spool(config.spool_dir.clone());
        let spooled = fairsteward::mail::outbox::drain_once(steward.store(), &sink, steward.keys_arc())
            .await
            .expect("spool the mails");
        (swept, t.elapsed().as_secs_f64(), report.games, report.timeouts.len(), spooled)
    })
}

/// `perf record` attached until dropped (then stopped with SIGINT, so it
/// writes its file whole).
struct Perf(std::process::Child);

impl Drop for Perf {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the id of a child this process started and has not reaped.
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGINT);
        }
        let _ = self.0.wait();
    }
}

struct Figures {
    n: usize,
    build_s: f64,
    bytes_per_game: f64,
    start_up_ms: f64,
    idle_mb: f64,
    moves: usize,
    p50: f64,
    p99: f64,
    store_ms: f64,
    process_ms: f64,
    backlog: (usize, f64, f64),
    /// The start-up sweep, from the spawn (every game due once after the build).
    first_sweep_s: f64,
    sweep_none: f64,
    /// The games the sweep with nothing due looked at (those moved since the last).
    none_games: usize,
    sweep_due: f64,
    drain_due: f64,
    due_games: usize,
    sweep_mails: usize,
    load: String,
}

impl Figures {
    /// The whole sweep (the due games read and timed out) over the due games.
    fn sweep_ms_per_due(&self) -> f64 {
        self.sweep_due * 1000.0 / self.due_games.max(1) as f64
    }
    /// The spooling of the due games' mails, per due game.
    fn drain_ms_per_due(&self) -> f64 {
        self.drain_due * 1000.0 / self.due_games.max(1) as f64
    }
}

fn measure(n: usize, p: &Plan) -> Figures {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = dir.path().join("data");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(data.join("maildir").join(sub)).expect("the maildir");
    }
    let config = config_file(dir.path());
    let (mut games, build_s) = build(&data, &config, n);
    let bytes_per_game = store_bytes(&data) as f64 / n as f64;
    let open = games.iter().filter(|g| g.turn != 0).count();
    println!("  {n} games built in {build_s:.1} s ({open} open), {:.0} bytes on disk per game", bytes_per_game);

    // The first start after the build: no clean stop of `serve` is on record,
    // so SQLite's full integrity check runs before it serves; and every game
    // is due in the start-up sweep (each clock changed since the last sweep),
    // which runs beside the requests.
    let first = Served::start(&data, Some(&config));
    let first_start_ms = first.start_up.as_secs_f64() * 1000.0;
    let first_sweep_s = first.start_up_sweep().as_secs_f64();
    first.stop();
    // The start measured: a restart after that clean stop, as a steward that
    // has been running restarts (an upgrade, a reboot). The moves below are
    // timed once its integrity check and its start-up sweep, both beside the
    // requests, are done.
    let served = Served::start(&data, Some(&config));
    let start_up_ms = served.start_up.as_secs_f64() * 1000.0;
    let checked_s = served.integrity_checked().as_secs_f64();
    served.start_up_sweep();
    println!(
        "    first start: answered {first_start_ms:.0} ms after the spawn (integrity check first), its start-up sweep over every game done after {first_sweep_s:.2} s"
    );
    println!(
        "    restart after its clean stop: answered {start_up_ms:.0} ms after the spawn, the integrity check beside the requests done after {checked_s:.2} s"
    );
    std::thread::sleep(Duration::from_secs(2));
    let idle_mb = served.rss_mb();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().no_proxy().build().expect("HTTP client");
    // Games spread over the whole store, 1-day clocks left out.
    let stride = (n / p.moves.max(1)).max(1);
    let picks: Vec<usize> = (0..n).step_by(stride).map(|i| (i + 1) % n).filter(|&i| clock_days(i) != 1).collect();
    let spool = data.join("spool");
    let before = cpu_of(served.pid());
    let mut latencies = runtime.block_on(moves(&http, &served.base, &mut games, &picks, p.moves));
    wait_quiet(&spool, Duration::from_secs(1), Duration::from_secs(120));
    let after = cpu_of(served.pid());
    latencies.sort();
    let per = |k: &str| (after.get(k).unwrap_or(&0.0) - before.get(k).unwrap_or(&0.0)) / latencies.len() as f64;
    let (store_ms, process_ms) = (per("store"), per(""));
    let backlog = backlog(&data, &mut games, p.backlog);
    // The backlog's board mails spooled before the stop, so the sweeps below
    // spool only their own.
    wait_quiet(&spool, Duration::from_secs(2), Duration::from_secs(300));
    let log = std::fs::read_to_string(&served.log).unwrap_or_default();
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("ERROR")).collect();
    if let Some(first) = errors.first() {
        println!("    the steward logged {} ERROR lines; the first: {first}", errors.len());
    }
    served.stop();

    let (sweep_none, left, none_games, _, left_spooled) = sweep(&data, &config, Utc::now());
    if left_spooled > 0 {
        println!(
            "    (the sweep with nothing due spooled {left_spooled} mails left unsent at the stop, in {left:.2} s)"
        );
    }
    let (sweep_due, drain_due, due_swept, due_games, sweep_mails) =
        sweep(&data, &config, Utc::now() + chrono::Duration::days(1) + chrono::Duration::minutes(1));
    println!(
        "    sweeps: with nothing due {sweep_none:.3} s over the {none_games} games moved since the start-up sweep; a day later {sweep_due:.3} s over {due_swept} games, {due_games} timeouts, then {sweep_mails} mails spooled in {drain_due:.3} s"
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    Figures {
        n,
        build_s,
        bytes_per_game,
        start_up_ms,
        idle_mb,
        moves: latencies.len(),
        p50: percentile_ms(&latencies, 0.5),
        p99: percentile_ms(&latencies, 0.99),
        store_ms,
        process_ms,
        backlog,
        first_sweep_s,
        sweep_none,
        none_games,
        sweep_due,
        drain_due,
        due_games,
        sweep_mails,
        load,
    }
}

fn main() {
    let p = plan();
    println!("fairsteward scale benchmark ({} build)", if cfg!(debug_assertions) { "debug" } else { "optimized" });
    println!();
    println!(
        "Stores of {:?} open games (half chess, half Fairschach, days_per_move clocks: 1 day in 1 %, 7 days in the rest),",
        p.sizes
    );
    println!(
        "  {BUILD_TURNS} turns of random legal moves each, built in process ({BUILDERS} tasks, the crate's steward, no drainer), their mails marked sent;"
    );
    println!(
        "  then the release binary serves each: {} moves over HTTP by one client, one at a time; a maildir backlog of {} mails;",
        p.moves,
        p.backlog * 2
    );
    println!("  then `fairsteward sweep --now` on the stopped store: nothing due, and a day later (1 % due).");
    let tmp = std::env::temp_dir();
    println!("Conditions at start: {}", conditions(&tmp));
    println!();
    let mut all = Vec::new();
    for &n in &p.sizes {
        let f = measure(n, &p);
        all.push(f);
    }
    println!();
    println!(
        "  {:>7} {:>9} {:>9} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10} {:>11} {:>9} {:>6} {:>9} {:>9}  load",
        "games",
        "B/game",
        "start ms",
        "idle MB",
        "move p50",
        "p99 ms",
        "store ms/mv",
        "proc ms/mv",
        "maildir/s",
        "1st sweep s",
        "sweep s",
        "due",
        "ms/due",
        "spool/due"
    );
    for f in &all {
        println!(
            "  {:>7} {:>9.0} {:>9.0} {:>8.1} {:>8.2} {:>8.2} {:>10.3} {:>10.3} {:>10.0} {:>11.2} {:>9.3} {:>6} {:>9.2} {:>9.2}  {}",
            f.n,
            f.bytes_per_game,
            f.start_up_ms,
            f.idle_mb,
            f.p50,
            f.p99,
            f.store_ms,
            f.process_ms,
            f.backlog.1,
            f.first_sweep_s,
            f.sweep_due,
            f.due_games,
            f.sweep_ms_per_due(),
            f.drain_ms_per_due(),
            f.load
        );
    }
    for f in &all {
        println!(
            "  {} games: built in {:.1} s; {} moves timed; maildir: {} mails, {:.2} s from the rename to the last; sweep a day later spooled {} mails",
            f.n, f.build_s, f.moves, f.backlog.0, f.backlog.2, f.sweep_mails
        );
    }
    let (small, big) = (all.first().expect("a size"), all.last().expect("a size"));
    let r = |a: f64, b: f64| b / a;
    println!();
    println!("Issue 37 targets, this run ({} / {} games; conditions at end: {}):", big.n, small.n, conditions(&tmp));
    let move_ratio = r(small.p50, big.p50);
    println!(
        "  a move's latency p50, ratio                 {move_ratio:>6.2}x  target <= 1.3x  {}",
        verdict(move_ratio <= 1.3)
    );
    println!("  a move's latency p99, ratio                 {:>6.2}x", r(small.p99, big.p99));
    let cpu_ratio = r(small.process_ms, big.process_ms);
    println!(
        "  a move's CPU (process), ratio               {cpu_ratio:>6.2}x  target <= 1.3x  {}",
        verdict(cpu_ratio <= 1.3)
    );
    println!("  a move's CPU (store thread), ratio          {:>6.2}x", r(small.store_ms, big.store_ms));
    let sweep_ratio = r(small.sweep_ms_per_due(), big.sweep_ms_per_due());
    println!(
        "  the sweep's cost per due game, ratio        {sweep_ratio:>6.2}x  target <= 1.3x  {}",
        verdict(sweep_ratio <= 1.3)
    );
    println!(
        "    (the sweep reads the games due only: with nothing due {:.3} s over {} games at {}, {:.3} s over {} at {}; a day later {:.2} s at {} games)",
        small.sweep_none, small.none_games, small.n, big.sweep_none, big.none_games, big.n, big.sweep_due, big.n
    );
    println!(
        "  spooling the due games' mails, ratio        {:>6.2}x",
        r(small.drain_ms_per_due(), big.drain_ms_per_due())
    );
    println!(
        "  the maildir backlog rate, ratio             {:>6.2}x (of the rate; < 1 is slower)",
        r(small.backlog.1, big.backlog.1)
    );
    println!("  bytes on disk per game, ratio               {:>6.2}x", r(small.bytes_per_game, big.bytes_per_game));
    println!(
        "  memory idle at {} games                 {:>7.1} MB  target < 100 MB  {}",
        big.n,
        big.idle_mb,
        verdict(big.idle_mb < 100.0)
    );
    println!(
        "  start-up to the first answer at {} games {:>7.0} ms  target < 2 s    {}",
        big.n,
        big.start_up_ms,
        verdict(big.start_up_ms < 2000.0)
    );
}
