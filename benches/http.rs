//! HTTP benchmark: `cargo bench --bench http`.
//!
//! A plain `harness = false` program timed with `std::time::Instant`; it prints a
//! report and asserts nothing about time.
//!
//! 1. Moves accepted per second over HTTP: the steward runs in this process
//!    (`fairsteward::server::serve` on 127.0.0.1:0, a temporary data directory,
//!    the store as configured: WAL, `synchronous = FULL`, one transaction per
//!    move, the outbox drainer spooling the turn mails). 64 games (half chess,
//!    half Fairschach) are played by 16 concurrent client tasks, each owning 4
//!    games; a client posts random legal moves (xorshift64, fixed seed; the next
//!    state is computed with the library's rulebook, so no GET is needed) and
//!    replaces a game that ends or reaches `MAX_TURN` by a new one. After a
//!    warm-up, the moves answered 200 in a fixed window are counted.
//! 2. Raw durable SQLite inserts on the same machine and file system: rusqlite,
//!    WAL, `synchronous = FULL`, one `BEGIN IMMEDIATE … COMMIT` per insert of a
//!    row shaped like a row of `moves`, for a fixed window.
//!
//! The ratio of the two says how much of the durable-commit budget the steward
//! gets as accepted moves. Clients and server share the machine's cores.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fairsteward::config::{Config, Overrides};
use fairsteward::rules::{DynVariant, Options, VariantId};
use serde_json::{Value, json};

const GAMES: usize = 64;
const CLIENTS: usize = 16;
const WARMUP: Duration = Duration::from_secs(1);
const WINDOW: Duration = Duration::from_secs(3);
const RAW_WINDOW: Duration = Duration::from_secs(3);
/// Measurements of each kind, alternating (the machine may be busy with other work).
const ROUNDS: usize = 3;
/// A game is replaced by a new one after this turn (keeps the history short).
const MAX_TURN: u32 = 120;
const SEED: u64 = 0x5EED_F00D_4772_B0A7;

#[path = "../tests/common/xorshift.rs"]
mod xorshift;
use xorshift::XorShift64;

/// One game as a client tracks it.
struct Game {
    id: String,
    rules: Box<dyn DynVariant>,
    tokens: Vec<String>,
    /// The states before the current one, start first (for repetition).
    history: Vec<String>,
    state: String,
    turn: u32,
}

/// One accepted move: when its answer arrived and how long it took.
struct Sample {
    done: Instant,
    latency: Duration,
}

#[derive(Default)]
struct ClientReport {
    samples: Vec<Sample>,
    games_created: usize,
    games: Vec<Game>,
}

/// Creates a game as the operator (`operator` is the operator token).
async fn create_game(http: &reqwest::Client, base: &str, operator: &str, variant: VariantId, n: usize) -> Game {
    let body = json!({"variant": variant.name(), "seats": [
        {"name": format!("First {n}"), "email": format!("first{n}@example.org")},
        {"name": format!("Second {n}"), "email": format!("second{n}@example.org")},
    ]});
    let response =
        http.post(format!("{base}/api/games")).bearer_auth(operator).json(&body).send().await.expect("POST /api/games");
    assert_eq!(response.status().as_u16(), 201, "create a game");
    let created: Value = response.json().await.expect("JSON");
    let rules = variant.rulebook(&Options::new()).expect("default options");
    let state = rules.start();
    assert_eq!(created["game"]["state"], json!(state));
    Game {
        id: created["game"]["id"].as_str().expect("id").to_owned(),
        rules,
        tokens: created["tokens"]
            .as_array()
            .expect("tokens")
            .iter()
            .map(|t| t["token"].as_str().unwrap().to_owned())
            .collect(),
        history: Vec::new(),
        state,
        turn: 1,
    }
}

/// Plays its games round-robin, one turn of one game at a time, until `stop`.
async fn client(
    http: reqwest::Client,
    base: String,
    operator: String,
    mut games: Vec<Game>,
    seed: u64,
    stop: Arc<AtomicBool>,
    first_n: usize,
) -> ClientReport {
    let mut rng = XorShift64::new(seed);
    let mut report = ClientReport::default();
    let mut next_n = first_n;
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let n = games.len();
        let g = &mut games[i % n];
        i += 1;
        let mut moves = Vec::with_capacity(2);
        for seat in g.rules.seats_to_move(&g.state).expect("state").iter() {
            let legal = g.rules.legal_moves(&g.state, seat).expect("legal moves");
            let uci = legal[rng.below(legal.len())].clone();
            let body = json!({"turn": g.turn, "move": uci}).to_string();
            let t = Instant::now();
            let response = http
                .post(format!("{base}/api/games/{}/moves", g.id))
                .bearer_auth(&g.tokens[seat.index()])
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .expect("POST a move");
            let status = response.status().as_u16();
            let receipt: Value = response.json().await.expect("JSON");
            assert_eq!(status, 200, "game {} turn {}: {receipt}", g.id, g.turn);
            report.samples.push(Sample { done: Instant::now(), latency: t.elapsed() });
            moves.push((seat, uci));
        }
        let r = g.rules.resolve(&g.history, &g.state, &moves).expect("resolve");
        g.history.push(std::mem::replace(&mut g.state, r.state));
        g.turn += 1;
        if r.outcome.is_some() || g.turn > MAX_TURN {
            let variant = g.rules.id();
            *g = create_game(&http, &base, &operator, variant, next_n).await;
            next_n += GAMES;
            report.games_created += 1;
        }
    }
    report.games = games;
    report
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// One measured window: how many, over how long, and each one's latency.
struct Figure {
    count: usize,
    seconds: f64,
    /// Sorted.
    latencies: Vec<Duration>,
}

impl Figure {
    fn new(count: usize, seconds: f64, mut latencies: Vec<Duration>) -> Figure {
        latencies.sort_unstable();
        Figure { count, seconds, latencies }
    }

    fn rate(&self) -> f64 {
        self.count as f64 / self.seconds
    }

    fn p(&self, q: f64) -> f64 {
        percentile(&self.latencies, q).as_secs_f64() * 1e3
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

struct HttpResult {
    figure: Figure,
    all_moves: usize,
    games_created: usize,
    store_bytes: u64,
    mails_spooled: usize,
}

fn http_benchmark(dir: &std::path::Path) -> HttpResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let config = Config::load(None, &Overrides { data_dir: Some(dir.to_owned()), listen: Some(addr.to_string()) })
            .expect("configuration");
        let operator = fairsteward::server::operator_token(&config).expect("the operator token").reveal().to_owned();
        let (stop_server, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(fairsteward::server::serve(config, listener, async {
            let _ = stopped.await;
        }));
        let base = format!("http://{addr}");
        // reqwest speaks TLS through rustls with ring; the provider is chosen once per process.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder().pool_max_idle_per_host(CLIENTS * 2).build().expect("HTTP client");

        // The games, dealt to the clients so that each has both variants.
        let mut games: Vec<Vec<Game>> = (0..CLIENTS).map(|_| Vec::new()).collect();
        for n in 0..GAMES {
            let variant = if n % 2 == 0 { VariantId::Chess } else { VariantId::Fairschach };
            games[(n / 2) % CLIENTS].push(create_game(&http, &base, &operator, variant, n).await);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let begin = Instant::now();
        let tasks: Vec<_> = games
            .into_iter()
            .enumerate()
            .map(|(c, g)| {
                tokio::spawn(client(
                    http.clone(),
                    base.clone(),
                    operator.clone(),
                    g,
                    SEED ^ (c as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F),
                    stop.clone(),
                    GAMES + c,
                ))
            })
            .collect();
        tokio::time::sleep(WARMUP + WINDOW).await;
        stop.store(true, Ordering::Relaxed);
        let mut reports = Vec::new();
        for t in tasks {
            reports.push(t.await.expect("client"));
        }

        // The server agrees with every client about every game.
        for g in reports.iter().flat_map(|r| &r.games) {
            let view: Value =
                http.get(format!("{base}/api/games/{}", g.id)).send().await.expect("GET").json().await.expect("JSON");
            assert_eq!(view["state"], json!(g.state), "game {}: the server's state", g.id);
            assert_eq!(view["turn"], json!(g.turn), "game {}: the server's turn", g.id);
        }
        let _ = stop_server.send(());
        server.await.expect("server task").expect("server");

        let (from, to) = (begin + WARMUP, begin + WARMUP + WINDOW);
        let latencies: Vec<Duration> = reports
            .iter()
            .flat_map(|r| &r.samples)
            .filter(|s| s.done >= from && s.done < to)
            .map(|s| s.latency)
            .collect();
        let all_moves = reports.iter().map(|r| r.samples.len()).sum();
        let games_created = reports.iter().map(|r| r.games_created).sum();
        let conn = rusqlite::Connection::open(dir.join("steward.db")).expect("open the store");
        let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).expect("page_count");
        let page_size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).expect("page_size");
        let mails_spooled: i64 =
            conn.query_row("SELECT COUNT(*) FROM outbox WHERE sent_at IS NOT NULL", [], |r| r.get(0)).expect("outbox");
        HttpResult {
            figure: Figure::new(latencies.len(), WINDOW.as_secs_f64(), latencies),
            all_moves,
            games_created,
            store_bytes: u64::try_from(pages * page_size).expect("size"),
            mails_spooled: mails_spooled as usize,
        }
    })
}

/// Durable single-row transactions, rows shaped like `moves` rows.
/// Returns the figure and the row's payload in bytes. With `beside`, another
/// thread meanwhile writes and fsyncs small files in a loop, as the outbox
/// drainer does with spool files while the steward commits moves.
fn raw_sqlite(dir: &std::path::Path, beside: bool) -> (Figure, usize) {
    std::fs::create_dir_all(dir).expect("mkdir");
    let stop = Arc::new(AtomicBool::new(false));
    let syncer = beside.then(|| {
        let (stop, dir) = (stop.clone(), dir.to_owned());
        std::thread::spawn(move || {
            let mut k = 0;
            while !stop.load(Ordering::Relaxed) {
                let mut f = std::fs::File::create(dir.join(format!("side-{}.eml", k % 64))).expect("create");
                std::io::Write::write_all(&mut f, &[b'x'; 3000]).expect("write");
                f.sync_all().expect("fsync");
                k += 1;
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    });
    let mut conn = rusqlite::Connection::open(dir.join("raw.db")).expect("open");
    conn.pragma_update(None, "journal_mode", "WAL").expect("WAL");
    conn.pragma_update(None, "synchronous", "FULL").expect("FULL");
    conn.execute_batch(
        "CREATE TABLE moves (
            game_id TEXT NOT NULL, turn INTEGER NOT NULL, seat INTEGER NOT NULL,
            receipt TEXT NOT NULL UNIQUE, entered TEXT NOT NULL, canonical TEXT NOT NULL,
            notation TEXT NOT NULL, received_at TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending',
            reason TEXT, completes INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (game_id, turn, seat)
        ) STRICT;",
    )
    .expect("schema");
    let mut rng = XorShift64::new(SEED);
    let mut latencies = Vec::new();
    let mut row_bytes = 0;
    let begin = Instant::now();
    let mut n: u64 = 0;
    while begin.elapsed() < RAW_WINDOW {
        let game = format!("GAME{:02X}", n % 64);
        let receipt = format!("r-{:016x}{:08x}", rng.next(), rng.next() as u32);
        let received_at = "2026-11-23T12:00:00.000Z";
        let t = Instant::now();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).expect("BEGIN");
        tx.execute(
            "INSERT INTO moves (game_id, turn, seat, receipt, entered, canonical, notation, received_at, status, reason, completes)
             VALUES (?1, ?2, ?3, ?4, 'g1f3', 'g1f3', 'Nf3', ?5, 'pending', NULL, 0)",
            rusqlite::params![game, (n / 128) as i64 + 1, (n / 64 % 2) as i64, receipt, received_at],
        )
        .expect("INSERT");
        tx.commit().expect("COMMIT");
        latencies.push(t.elapsed());
        // The text columns and three small integers, as SQLite stores them.
        row_bytes = game.len() + receipt.len() + 4 + 4 + 3 + received_at.len() + "pending".len() + 3;
        n += 1;
    }
    let seconds = begin.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    if let Some(t) = syncer {
        t.join().expect("fsync loop");
    }
    (Figure::new(latencies.len(), seconds, latencies), row_bytes)
}

fn main() {
    println!("fairsteward HTTP benchmark ({} build)", if cfg!(debug_assertions) { "debug" } else { "optimized" });
    println!();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    println!(
        "Moves over HTTP: {GAMES} games (half chess, half Fairschach), {CLIENTS} concurrent clients, random legal moves \
         (xorshift64, seed {SEED:#x});"
    );
    println!(
        "  server in-process on 127.0.0.1, {cores} cores shared with the clients; warm-up {} s, then moves answered 200 in {} s",
        WARMUP.as_secs(),
        WINDOW.as_secs()
    );
    println!(
        "Raw inserts: one `moves`-shaped row per BEGIN IMMEDIATE … COMMIT, {} s, alone and with",
        RAW_WINDOW.as_secs()
    );
    println!("  another thread writing and fsyncing 3 KB files in a loop beside (as the outbox drainer spools mails)");
    println!("Both: WAL + synchronous=FULL, a fresh database under {} (same file system)", dir.path().display());
    println!("{ROUNDS} rounds, HTTP and raw alternating");
    println!();
    println!("  {:<6} {:<25}   {:<25}   {:<13}", "", "moves over HTTP", "raw inserts", "raw inserts,");
    println!(
        "  {:<6} {:>9} {:>7} {:>7}   {:>9} {:>7} {:>7}   {:>13}   {:>8} {:>11}",
        "round", "per s", "p50 ms", "p99 ms", "per s", "p50 ms", "p99 ms", "fsyncs beside", "HTTP/raw", "HTTP/beside"
    );
    let mut http_rates = Vec::new();
    let mut beside_rates = Vec::new();
    let mut raw_rates = Vec::new();
    let mut last = None;
    let mut row_bytes = 0;
    for round in 1..=ROUNDS {
        let http = http_benchmark(&dir.path().join(format!("steward-{round}")));
        let (raw, bytes) = raw_sqlite(&dir.path().join(format!("raw-{round}")), false);
        let (raw_beside, _) = raw_sqlite(&dir.path().join(format!("raw-beside-{round}")), true);
        row_bytes = bytes;
        println!(
            "  {:<6} {:>9.1} {:>7.1} {:>7.1}   {:>9.1} {:>7.2} {:>7.2}   {:>13.1}   {:>8.2} {:>11.2}",
            round,
            http.figure.rate(),
            http.figure.p(0.5),
            http.figure.p(0.99),
            raw.rate(),
            raw.p(0.5),
            raw.p(0.99),
            raw_beside.rate(),
            http.figure.rate() / raw.rate(),
            http.figure.rate() / raw_beside.rate(),
        );
        http_rates.push(http.figure.rate());
        raw_rates.push(raw.rate());
        beside_rates.push(raw_beside.rate());
        last = Some(http);
    }
    let (h, r, b) = (median(http_rates.clone()), median(raw_rates.clone()), median(beside_rates.clone()));
    println!(
        "  {:<6} {:>9.1} {:>7} {:>7}   {:>9.1} {:>7} {:>7}   {:>13.1}   {:>8.2} {:>11.2}",
        "median",
        h,
        "",
        "",
        r,
        "",
        "",
        b,
        h / r,
        h / b
    );
    let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let (h, r, b) = (best(&http_rates), best(&raw_rates), best(&beside_rates));
    println!(
        "  {:<6} {:>9.1} {:>7} {:>7}   {:>9.1} {:>7} {:>7}   {:>13.1}   {:>8.2} {:>11.2}",
        "best",
        h,
        "",
        "",
        r,
        "",
        "",
        b,
        h / r,
        h / b
    );
    println!();
    let last = last.expect("ROUNDS > 0");
    let moves = last.all_moves.max(1) as f64;
    println!(
        "Last round, whole run: {} moves accepted, {} games replaced (ended or turn {MAX_TURN}), {} mails spooled \
         ({:.2} per move, each a spool-file fsync and a commit);",
        last.all_moves,
        last.games_created,
        last.mails_spooled,
        last.mails_spooled as f64 / moves,
    );
    println!(
        "  store {:.1} MB: {:.0} bytes per accepted move (move, inbound copy, transcript, turn, mails) against ~{} for a raw row",
        last.store_bytes as f64 / 1e6,
        last.store_bytes as f64 / moves,
        row_bytes,
    );
}
