//! HTTP benchmark: `cargo bench --bench http`.
//!
//! A plain `harness = false` program timed with `std::time::Instant`; it prints a
//! report and asserts nothing about time.
//!
//! 1. Moves accepted per second over HTTP: the steward runs in this process
//!    (`fairsteward::server::serve` on 127.0.0.1:0, a temporary data directory,
//!    the store as configured: WAL, every commit's WAL synced before its callers
//!    hear of it (by the store's sync thread, as `synchronous = FULL` would inside
//!    the commit), one transaction per move, the outbox drainer spooling the turn
//!    mails). 64 games (half chess,
//!    half Fairschach) are played by 16 concurrent client tasks, each owning 4
//!    games; a client posts random legal moves (xorshift64, fixed seed; the next
//!    state is computed with the library's rulebook, so no GET is needed) and
//!    replaces a game that ends or reaches `MAX_TURN` by a new one. After a
//!    warm-up, the moves answered 200 in a fixed window are counted.
//! 2. Raw durable SQLite inserts on the same machine and file system: rusqlite,
//!    WAL, `synchronous = FULL`, one `BEGIN IMMEDIATE … COMMIT` per insert of a
//!    row shaped like a row of `moves`, for a fixed window.
//!
//!    Once the clients stop, the outbox drainer is given up to `DRAIN_LIMIT`
//!    to spool the moves' mails, and the spool's bytes per accepted move are
//!    issue 38's mail bytes per move; one more round with every picture in
//!    full colour (`render::png::set_full_colour_baseline`) gives the same
//!    figure as before issue 38, in the same run.
//! 3. Store bytes per accepted move: after the last round the store is
//!    checkpointed (`PRAGMA wal_checkpoint(TRUNCATE)`) and every table's pages
//!    (with its indexes) are summed with SQLite's `dbstat`, so a picture stored
//!    once counts once however many mails carry it.
//! 4. Game creation over HTTP: a fresh steward, `CREATE_GAMES` games created by
//!    `CLIENTS` concurrent clients (`POST /api/games`, half chess, half
//!    Fairschach), each creation's latency; meanwhile one reader `GET`s a game
//!    every `GET_EVERY`, to see how long a read waits while creations queue.
//!
//! The ratio of the two says how much of the durable-commit budget the steward
//! gets as accepted moves. Clients and server share the machine's cores. The
//! figures of issue 13's targets are printed last, each beside its target.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fairsteward::config::{Config, Overrides};
use fairsteward::rules::VariantId;
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
/// Games created, all at once by `CLIENTS` clients, in the creation part.
const CREATE_GAMES: usize = 256;
/// How often the reader `GET`s a game while the creations queue.
const GET_EVERY: Duration = Duration::from_millis(50);

mod support;
use support::xorshift::XorShift64;
use support::{Game, conditions, cpu_by_thread, cpu_ms, create_game, play_turn, verdict};

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
        let (answered, ended) = play_turn(&http, &base, g, &mut rng).await;
        report.samples.extend(answered.into_iter().map(|(done, latency)| Sample { done, latency }));
        if ended || g.turn > MAX_TURN {
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
    /// The database file after a checkpoint (WAL folded in and truncated).
    store_bytes: u64,
    /// Each table's pages, its indexes included, largest first (`dbstat`).
    tables: Vec<(String, u64)>,
    /// The same once the first games were created, before any move.
    tables_before: Vec<(String, u64)>,
    /// What the outbox drainer handed out as `.eml` files (not the store).
    spool_bytes: u64,
    mails_spooled: usize,
    /// How long the drainer took to spool the moves' mails after the clients
    /// stopped, and how many were still unsent (0 once drained).
    drained: (Duration, i64),
    /// CPU time in the window, in ms: the whole process (clients included) and
    /// the store thread (which every write passes through, one at a time).
    cpu_ms: (f64, f64),
    /// CPU time in the window by thread name (pools summed), in ms.
    threads: std::collections::BTreeMap<String, f64>,
}

/// A steward serving on a loopback port from `dir`, in this process.
struct InProcess {
    base: String,
    operator: String,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), fairsteward::server::ServerError>>,
}

async fn start_steward(dir: &std::path::Path) -> InProcess {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    let config = Config::load(
        None,
        &Overrides { data_dir: Some(dir.to_owned()), listen: Some(addr.to_string()), database: None },
    )
    .expect("configuration");
    let operator = fairsteward::server::operator_token(&config).expect("the operator token").reveal().to_owned();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(fairsteward::server::serve(config, listener, async {
        let _ = stopped.await;
    }));
    InProcess { base: format!("http://{addr}"), operator, stop, task }
}

impl InProcess {
    async fn shut_down(self) {
        let _ = self.stop.send(());
        self.task.await.expect("server task").expect("server");
    }
}

/// Each table's bytes (its indexes counted with it), from SQLite's `dbstat`
/// (the bundled SQLite has it), largest first. Read through the WAL, so it can
/// be taken while the steward runs.
fn table_bytes(path: &std::path::Path) -> Vec<(String, u64)> {
    let conn = rusqlite::Connection::open(path).expect("open the store");
    let mut stmt = conn
        .prepare(
            "SELECT COALESCE(m.tbl_name, d.name), SUM(d.pgsize) FROM dbstat d
             LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY 1 ORDER BY 2 DESC",
        )
        .expect("dbstat (SQLITE_ENABLE_DBSTAT_VTAB in the bundled SQLite)");
    stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .expect("dbstat")
        .map(|r| r.map(|(n, b)| (n, u64::try_from(b).unwrap_or(0))))
        .collect::<Result<Vec<_>, _>>()
        .expect("dbstat rows")
}

/// The store in `dir` after a checkpoint (WAL folded in and truncated): the
/// file's size and each table's bytes.
fn store_split(dir: &std::path::Path) -> (u64, Vec<(String, u64)>) {
    let path = dir.join("steward.db");
    let conn = rusqlite::Connection::open(&path).expect("open the store");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).expect("checkpoint");
    drop(conn);
    let tables = table_bytes(&path);
    (std::fs::metadata(&path).expect("the store's size").len(), tables)
}

/// Bytes of the files under `dir`, recursively (0 if it is absent).
fn dir_bytes(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

/// The clients' HTTP client, with a connection kept for each.
fn http_client() -> reqwest::Client {
    // reqwest speaks TLS through rustls with ring; the provider is chosen once per process.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().pool_max_idle_per_host(CLIENTS * 2).build().expect("HTTP client")
}

fn http_benchmark(dir: &std::path::Path) -> HttpResult {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(async {
        let steward = start_steward(dir).await;
        let (base, operator) = (steward.base.clone(), steward.operator.clone());
        let http = http_client();

        // The games, dealt to the clients so that each has both variants.
        let mut games: Vec<Vec<Game>> = (0..CLIENTS).map(|_| Vec::new()).collect();
        for n in 0..GAMES {
            let variant = if n % 2 == 0 { VariantId::Chess } else { VariantId::Fairschach };
            games[(n / 2) % CLIENTS].push(create_game(&http, &base, &operator, variant, n).await);
        }
        let tables_before = table_bytes(&dir.join("steward.db"));
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
        tokio::time::sleep(WARMUP).await;
        let cpu_before = cpu_ms("store");
        let threads_before = cpu_by_thread();
        tokio::time::sleep(WINDOW).await;
        let cpu_after = cpu_ms("store");
        let threads = cpu_by_thread()
            .into_iter()
            .map(|(name, t)| {
                let before = threads_before.get(&name).copied().unwrap_or(0.0);
                (name, t - before)
            })
            .collect();
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
        // The outbox drainer draws and spools the mails in the background, at
        // the lowest priority: let it finish the moves' mails (issue 38 counts
        // their bytes), within DRAIN_LIMIT.
        let drain_started = Instant::now();
        let unsent = || -> i64 {
            let conn = rusqlite::Connection::open(dir.join("steward.db")).expect("open the store");
            conn.query_row("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL", [], |r| r.get(0)).expect("outbox")
        };
        let mut left = unsent();
        while left > 0 && drain_started.elapsed() < DRAIN_LIMIT {
            tokio::time::sleep(Duration::from_millis(200)).await;
            left = unsent();
        }
        let drained = (drain_started.elapsed(), left);
        steward.shut_down().await;

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
        let mails_spooled: i64 =
            conn.query_row("SELECT COUNT(*) FROM outbox WHERE sent_at IS NOT NULL", [], |r| r.get(0)).expect("outbox");
        drop(conn);
        let (store_bytes, tables) = store_split(dir);
        HttpResult {
            figure: Figure::new(latencies.len(), WINDOW.as_secs_f64(), latencies),
            all_moves,
            games_created,
            store_bytes,
            tables,
            tables_before,
            spool_bytes: dir_bytes(&dir.join("spool")),
            drained,
            mails_spooled: mails_spooled as usize,
            cpu_ms: (cpu_after.0 - cpu_before.0, cpu_after.1 - cpu_before.1),
            threads,
        }
    })
}

/// Creation latencies (sorted) and the reader's `GET` latencies (sorted).
struct Creation {
    create: Figure,
    get: Figure,
}

/// `CREATE_GAMES` games created at once by `CLIENTS` clients on a fresh steward,
/// while one reader `GET`s an existing game every `GET_EVERY`.
fn creation_benchmark(dir: &std::path::Path) -> Creation {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(async {
        let steward = start_steward(dir).await;
        let (base, operator) = (steward.base.clone(), steward.operator.clone());
        let http = http_client();
        let first = create_game(&http, &base, &operator, VariantId::Chess, 0).await;
        let next = Arc::new(std::sync::atomic::AtomicUsize::new(1));
        let done = Arc::new(AtomicBool::new(false));
        let reader = {
            let (http, url, done) = (http.clone(), format!("{base}/api/games/{}", first.id), done.clone());
            tokio::spawn(async move {
                let mut took = Vec::new();
                while !done.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    let status = http.get(&url).send().await.expect("GET a game").status();
                    assert_eq!(status.as_u16(), 200, "GET a game while creations queue");
                    took.push(t.elapsed());
                    tokio::time::sleep(GET_EVERY).await;
                }
                took
            })
        };
        let begin = Instant::now();
        let creators: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let (http, base, operator, next) = (http.clone(), base.clone(), operator.clone(), next.clone());
                tokio::spawn(async move {
                    let mut took = Vec::new();
                    loop {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        if n > CREATE_GAMES {
                            return took;
                        }
                        let variant = if n % 2 == 0 { VariantId::Chess } else { VariantId::Fairschach };
                        let t = Instant::now();
                        create_game(&http, &base, &operator, variant, n).await;
                        took.push(t.elapsed());
                    }
                })
            })
            .collect();
        let mut create = Vec::new();
        for c in creators {
            create.extend(c.await.expect("creator"));
        }
        let seconds = begin.elapsed().as_secs_f64();
        done.store(true, Ordering::Relaxed);
        let get = reader.await.expect("reader");
        steward.shut_down().await;
        Creation { create: Figure::new(create.len(), seconds, create), get: Figure::new(get.len(), seconds, get) }
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
    println!(
        "Both: WAL, each commit synced before it is answered (raw: synchronous=FULL; the steward: its sync thread), a fresh database under {} (same file system)",
        dir.path().display()
    );
    println!("{ROUNDS} rounds, HTTP and raw alternating");
    println!("Conditions at start: {}", conditions(dir.path()));
    println!();
    println!("  {:<6} {:<25}   {:<25}   {:<13}", "", "moves over HTTP", "raw inserts", "raw inserts,");
    println!(
        "  {:<6} {:>9} {:>7} {:>7}   {:>9} {:>7} {:>7}   {:>13}   {:>8} {:>11}",
        "round", "per s", "p50 ms", "p99 ms", "per s", "p50 ms", "p99 ms", "fsyncs beside", "HTTP/raw", "HTTP/beside"
    );
    let mut http_rates = Vec::new();
    let mut beside_rates = Vec::new();
    let mut raw_rates = Vec::new();
    let mut http_p99s = Vec::new();
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
        http_p99s.push(http.figure.p(0.99));
        raw_rates.push(raw.rate());
        beside_rates.push(raw_beside.rate());
        last = Some(http);
    }
    // Issue 38's baseline: one more HTTP round with every picture in full colour,
    // as before, for the mail bytes per move in the same run.
    fairsteward::render::png::set_full_colour_baseline(true);
    let full_colour = http_benchmark(&dir.path().join("steward-full-colour"));
    fairsteward::render::png::set_full_colour_baseline(false);
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
    let in_window = last.figure.count.max(1) as f64;
    println!(
        "CPU per move answered in the last round's window: {:.2} ms in all (the clients' share included), {:.2} ms on \
         the store thread (every write passes it one at a time: at most {:.0} moves per s while it is all it does)",
        last.cpu_ms.0 / in_window,
        last.cpu_ms.1 / in_window,
        in_window * 1e3 / last.cpu_ms.1.max(1e-9),
    );
    let mut threads: Vec<_> = last.threads.iter().filter(|(_, t)| **t > 0.0).collect();
    threads.sort_by(|a, b| b.1.total_cmp(a.1));
    let split: Vec<String> = threads.iter().map(|(name, t)| format!("{name} {:.3}", *t / in_window)).collect();
    println!(
        "  by thread, ms per move (the bench's own main thread and the clients share the tokio workers): {}",
        split.join(", ")
    );
    println!();
    let moves = last.all_moves.max(1) as f64;
    println!(
        "Last round, whole run: {} moves accepted, {} games replaced (ended or turn {MAX_TURN}), {} mails spooled \
         ({:.2} per move, each a spool-file fsync and a commit);",
        last.all_moves,
        last.games_created,
        last.mails_spooled,
        last.mails_spooled as f64 / moves,
    );
    // What the store grew by while the games were played (replacement games' creations included).
    let before = |t: &str| last.tables_before.iter().find(|(n, _)| n == t).map_or(0, |(_, b)| *b);
    let grown: Vec<(&str, u64)> =
        last.tables.iter().map(|(t, b)| (t.as_str(), b.saturating_sub(before(t)))).filter(|(_, g)| *g > 0).collect();
    let grown_total: u64 = grown.iter().map(|(_, g)| g).sum();
    let in_tables: u64 = last.tables.iter().map(|(_, b)| b).sum();
    println!(
        "  store {:.1} MB after a checkpoint ({:.0} bytes per accepted move, the first {GAMES} games' creation included);",
        last.store_bytes as f64 / 1e6,
        last.store_bytes as f64 / moves,
    );
    println!(
        "  while playing, its tables grew by {:.0} bytes per accepted move (~{} for a bare raw row); by table, indexes \
         included (dbstat, 4 KB pages):",
        grown_total as f64 / moves,
        row_bytes,
    );
    for (table, bytes) in &grown {
        println!(
            "    {table:<20} {:>9.1} KB {:>9.0} bytes/move {:>5.1} %",
            *bytes as f64 / 1e3,
            *bytes as f64 / moves,
            *bytes as f64 * 100.0 / grown_total.max(1) as f64
        );
    }
    println!(
        "    (free pages and file slack: {:.0} bytes/move; the spool of mails handed out, not the store: {:.1} MB)",
        last.store_bytes.saturating_sub(in_tables) as f64 / moves,
        last.spool_bytes as f64 / 1e6
    );
    let mail_per_move = last.spool_bytes as f64 / moves;
    let full_colour_per_move = full_colour.spool_bytes as f64 / full_colour.all_moves.max(1) as f64;
    println!(
        "  mail bytes per accepted move (the spool's bytes / moves accepted, once the outbox drained: {:.1} s after \
         the clients stopped, {} mails left unsent): {:.1} KB, {:.0} bytes per mail spooled (issue 38: {:.0} KB per \
         move with full-colour pictures)",
        last.drained.0.as_secs_f64(),
        last.drained.1,
        mail_per_move / 1e3,
        last.spool_bytes as f64 / last.mails_spooled.max(1) as f64,
        MAIL_PER_MOVE_BEFORE / 1e3,
    );
    println!(
        "  the same with full-colour pictures (one more round, as before issue 38): {:.1} KB per accepted move, {:.0} \
         bytes per mail spooled ({} moves, {} mails left unsent after {:.1} s)",
        full_colour_per_move / 1e3,
        full_colour.spool_bytes as f64 / full_colour.mails_spooled.max(1) as f64,
        full_colour.all_moves,
        full_colour.drained.1,
        full_colour.drained.0.as_secs_f64(),
    );
    println!();

    println!(
        "Game creation over HTTP: {CREATE_GAMES} games (half chess, half Fairschach) created at once by {CLIENTS} clients on a \
         fresh steward;"
    );
    println!("  one reader GETs a game every {} ms meanwhile", GET_EVERY.as_millis());
    let creation = creation_benchmark(&dir.path().join("creation"));
    let (c, g) = (&creation.create, &creation.get);
    println!(
        "  POST /api/games: {} in {:.2} s ({:.1} per s), p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        c.count,
        c.seconds,
        c.rate(),
        c.p(0.5),
        c.p(0.99),
        c.p(1.0)
    );
    println!(
        "  GET meanwhile:   {} answered, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        g.count,
        g.p(0.5),
        g.p(0.99),
        g.p(1.0)
    );
    println!();

    let ratio = median(http_rates.clone()) / median(raw_rates.clone());
    let p99 = median(http_p99s);
    let per_move = grown_total as f64 / moves;
    println!("Issue 13 targets, this run (conditions at end: {}):", conditions(dir.path()));
    println!(
        "  moves over HTTP / raw durable inserts (median of rounds) {ratio:>9.2}     target >= 0.5     {}",
        verdict(ratio >= 0.5)
    );
    println!(
        "  moves over HTTP p99 (median of rounds)              {p99:>9.1} ms  target < 50 ms   {}",
        verdict(p99 < 50.0)
    );
    println!(
        "  store bytes per accepted move (tables' growth)      {per_move:>9.0}     target <= 8192    {}",
        verdict(per_move <= 8192.0)
    );
    println!(
        "  game creation over HTTP p50                         {:>9.1} ms  target < 10 ms   {}",
        c.p(0.5),
        verdict(c.p(0.5) < 10.0)
    );
    println!("Issue 38 targets, this run:");
    println!(
        "  mail bytes per move, palette / full colour (same run) {:>9.2}     target <= 0.33    {}",
        mail_per_move / full_colour_per_move.max(1.0),
        verdict(last.drained.1 == 0 && full_colour.drained.1 == 0 && mail_per_move * 3.0 <= full_colour_per_move)
    );
    println!(
        "  mail bytes per accepted move (spool / moves)        {:>9.1} KB  target <= {:.1} KB (a third of {:.0} KB) {}",
        mail_per_move / 1e3,
        MAIL_PER_MOVE_BEFORE / 3e3,
        MAIL_PER_MOVE_BEFORE / 1e3,
        verdict(last.drained.1 == 0 && mail_per_move <= MAIL_PER_MOVE_BEFORE / 3.0)
    );
    if last.drained.1 > 0 {
        println!("  (not measured: {} mails were still unsent after {DRAIN_LIMIT:?})", last.drained.1);
    }
}

/// How long the clients' mails may take to be spooled once they stopped.
const DRAIN_LIMIT: Duration = Duration::from_secs(180);

/// The mail bytes per accepted move that issue 38 measured with full-colour
/// pictures (the spool's bytes over the moves accepted in this bench).
const MAIL_PER_MOVE_BEFORE: f64 = 91_000.0;
