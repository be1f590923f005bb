//! What the benches share: the conditions a figure was taken in, and a verdict
//! against a target. Each bench includes it as `mod support;`.
#![allow(dead_code)]

use fairsteward::rules::{DynVariant, Options, VariantId};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

#[path = "../../tests/it/support/xorshift.rs"]
pub mod xorshift;

/// One game as a client tracks it.
pub struct Game {
    pub id: String,
    pub rules: Box<dyn DynVariant>,
    pub tokens: Vec<String>,
    /// The states before the current one, start first (for repetition).
    pub history: Vec<String>,
    pub state: String,
    pub turn: u32,
}

/// Creates a game as the operator (`operator` is the operator token).
pub async fn create_game(http: &reqwest::Client, base: &str, operator: &str, variant: VariantId, n: usize) -> Game {
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

/// Plays one turn of `g` over HTTP: a random legal move (from `rng`) for every
/// seat to move, then the turn resolved with the library's rulebook, so no GET
/// is needed. Returns each accepted move's (answered at, latency) and whether
/// the game has ended.
pub async fn play_turn(
    http: &reqwest::Client,
    base: &str,
    g: &mut Game,
    rng: &mut xorshift::XorShift64,
) -> (Vec<(Instant, Duration)>, bool) {
    let mut moves = Vec::with_capacity(2);
    let mut answered = Vec::with_capacity(2);
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
        answered.push((Instant::now(), t.elapsed()));
        moves.push((seat, uci));
    }
    let r = g.rules.resolve(&g.history, &g.state, &moves).expect("resolve");
    g.history.push(std::mem::replace(&mut g.state, r.state));
    g.turn += 1;
    (answered, r.outcome.is_some())
}

/// The machine's conditions, printed with the figures.
pub fn conditions(dir: &std::path::Path) -> String {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    // The file system of the data directory, from /proc/self/mounts (longest mount point that prefixes it).
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    let path = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    let fs = mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() > 2 && path.starts_with(f[1])).then(|| (f[1].len(), format!("{} on {} ({})", f[2], f[1], f[0])))
        })
        .max()
        .map_or_else(|| "unknown".to_owned(), |(_, s)| s);
    format!("{cores} cores, load average {load}, file system {fs}")
}

/// "met" or "NOT met".
pub fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

/// CPU time used so far, in milliseconds: by this whole process (exited threads
/// included) and by its threads named `thread` (the steward's store thread is
/// `store`), read from `/proc` (user + system, in clock ticks). Unlike rates,
/// CPU time per move changes little when other work shares the machine.
pub fn cpu_ms(thread: &str) -> (f64, f64) {
    let process = std::fs::read_to_string("/proc/self/stat").ok().and_then(|s| ticks(&s)).map_or(0.0, |(_, t)| t);
    let named = cpu_by_thread().remove(thread).unwrap_or(0.0);
    (process * tick_ms(), named)
}

/// CPU time used so far by this process's living threads, in milliseconds, by
/// name, a pool's numbered threads (`background-0`, `background-1`) summed
/// under their common name (`background`).
pub fn cpu_by_thread() -> std::collections::BTreeMap<String, f64> {
    threads_cpu("/proc/self/task")
}

/// CPU time used so far by the living threads listed under `tasks` (a
/// `/proc/<pid>/task` directory), in milliseconds, by name, a pool's numbered
/// threads summed under their common name.
fn threads_cpu(tasks: &str) -> std::collections::BTreeMap<String, f64> {
    let mut by_name = std::collections::BTreeMap::new();
    let stats = std::fs::read_dir(tasks)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok());
    for (name, t) in stats.filter_map(|s| ticks(&s)) {
        let pool = match name.rsplit_once('-') {
            Some((stem, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => stem.to_owned(),
            _ => name,
        };
        *by_name.entry(pool).or_insert(0.0) += t * tick_ms();
    }
    by_name
}

/// CPU time used so far, in milliseconds, by the processes whose command name
/// is `name` (`postgres`: a server and its backends) or whose pid is in `pids`
/// (user + system, read from `/proc`).
pub fn cpu_ms_of(name: Option<&str>, pids: &[u32]) -> f64 {
    let mut total = 0.0;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse::<u32>().ok()) else { continue };
        let Some((comm, t)) = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok().and_then(|s| ticks(&s)) else {
            continue;
        };
        if pids.contains(&pid) || name.is_some_and(|n| comm == n) {
            total += t * tick_ms();
        }
    }
    total
}

/// Milliseconds per clock tick.
fn tick_ms() -> f64 {
    // SAFETY: sysconf has no preconditions.
    1000.0 / (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64)
}

/// A `/proc/…/stat` line's command name and its user + system ticks.
fn ticks(stat: &str) -> Option<(String, f64)> {
    // Fields after the command name (which may hold spaces, so split after its ')'):
    // utime and stime are the 12th and 13th.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat[open + 1..close].to_owned();
    let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    Some((name, f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?))
}

/// Whether the bench runs in its quick mode (a CI smoke of well under a
/// minute): `FAIRSTEWARD_BENCH_QUICK=1` in the environment, or `--quick`.
pub fn quick() -> bool {
    std::env::var("FAIRSTEWARD_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
        || std::env::args().any(|a| a == "--quick")
}

/// The `p` quantile (0..=1) of sorted durations, in milliseconds (nearest rank).
pub fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

/// The release binary (`CARGO_BIN_EXE_fairsteward`, built by `cargo bench`)
/// serving on 127.0.0.1; stopped with SIGTERM (then killed) when dropped.
pub struct Served {
    pub child: std::process::Child,
    pub base: String,
    pub operator: String,
    pub log: std::path::PathBuf,
    /// From the spawn to the first request answered 200 (`GET /api/steward`).
    pub start_up: Duration,
    begin: Instant,
}

impl Served {
    /// Starts `fairsteward serve --data-dir data [--config config]` on a free
    /// port and waits (up to 120 s) for its first answered request.
    pub fn start(data: &std::path::Path, config: Option<&std::path::Path>) -> Served {
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let log = data.with_extension(format!("{port}.log"));
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fairsteward"));
        cmd.args(["serve", "--data-dir"]).arg(data).args(["--listen", &format!("127.0.0.1:{port}")]);
        if let Some(c) = config {
            cmd.arg("--config").arg(c);
        }
        let begin = Instant::now();
        let child = cmd
            .env_remove("RUST_LOG")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).expect("the log file"))
            .spawn()
            .expect("the fairsteward binary starts");
        let addr = format!("127.0.0.1:{port}");
        while http_status(&addr, "/api/steward") != Some(200) {
            assert!(
                begin.elapsed() < Duration::from_secs(120),
                "the steward answered no request within 120 s:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        let start_up = begin.elapsed();
        let token = std::fs::read_to_string(data.join(fairsteward::protocol::OPERATOR_TOKEN_FILE))
            .expect("the operator token file");
        Served { child, base: format!("http://{addr}"), operator: token.trim().to_owned(), log, start_up, begin }
    }

    /// Waits (up to 300 s) for the start-up sweep, which runs beside the first
    /// requests, to log that it is done; the time from the spawn.
    pub fn start_up_sweep(&self) -> Duration {
        self.logged("the start-up sweep", &["sweep done", "the start-up sweep failed"])
    }

    /// Waits (up to 300 s) for the integrity check that runs beside the first
    /// requests after a clean stop (issue 37); the time from the spawn.
    pub fn integrity_checked(&self) -> Duration {
        self.logged("the integrity check", &["the store passed its integrity check", "failed its integrity check"])
    }

    /// Waits (up to 300 s) for a line of the log holding one of `needles`.
    fn logged(&self, what: &str, needles: &[&str]) -> Duration {
        loop {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            if needles.iter().any(|n| log.contains(n)) {
                return self.begin.elapsed();
            }
            assert!(self.begin.elapsed() < Duration::from_secs(300), "no sign of {what} within 300 s:\n{log}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// VmRSS in MB.
    pub fn rss_mb(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:")?.trim().strip_suffix("kB")?.trim().parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    }

    /// Stops it (SIGTERM, as systemd does) and waits for it to exit.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        // SAFETY: kill(2) on the id of a child this process started and has not reaped.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let begin = Instant::now();
        while begin.elapsed() < Duration::from_secs(30) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.terminate();
        }
    }
}

/// The status of `GET path` on `addr` (HTTP/1.0 over a fresh connection), or
/// None if nothing answers.
pub fn http_status(addr: &str, path: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// CPU time used so far by the living threads of process `pid`, in
/// milliseconds, by name (a pool's numbered threads summed, as
/// [`cpu_by_thread`]), and in all under `""` (the process, exited threads included).
pub fn cpu_of(pid: u32) -> std::collections::BTreeMap<String, f64> {
    let mut by_name = threads_cpu(&format!("/proc/{pid}/task"));
    let all = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok().and_then(|s| ticks(&s)).map_or(0.0, |(_, t)| t);
    by_name.insert(String::new(), all * tick_ms());
    by_name
}

/// Bytes written so far (`wchar` of `/proc/<pid>/task/<tid>/io`: every
/// write(2) and pwrite(2), page cache or not) by the threads of `pid` named `thread`.
pub fn written_by(pid: u32, thread: &str) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten() {
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        if comm.trim() != thread {
            continue;
        }
        let io = std::fs::read_to_string(e.path().join("io")).unwrap_or_default();
        total += io.lines().find_map(|l| l.strip_prefix("wchar:")?.trim().parse::<u64>().ok()).unwrap_or(0);
    }
    total
}

/// The bytes of the files directly in `dir`, and how many there are.
pub fn files_in(dir: &std::path::Path) -> (u64, usize) {
    let mut bytes = 0;
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if let Ok(m) = e.metadata()
            && m.is_file()
        {
            bytes += m.len();
            n += 1;
        }
    }
    (bytes, n)
}
