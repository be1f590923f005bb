//! Memory benchmark: `cargo bench --bench memory`.
//!
//! A plain `harness = false` program; it prints a report and asserts nothing
//! about time or size.
//!
//! The release binary (`CARGO_BIN_EXE_fairsteward`, which `cargo bench` builds
//! with the bench profile) is started as `fairsteward serve` on a temporary data
//! directory and 127.0.0.1, on its embedded defaults (no configuration file: no
//! SMTP, so mails go to the spool; no mail doors). Its `VmRSS` and `VmHWM` are
//! read from `/proc/<pid>/status`:
//! 1. idle, a moment after it listens;
//! 2. after `--games` games (default 10 000, half chess, half Fairschach) are
//!    created over HTTP by `CLIENTS` concurrent clients;
//! 3. after `--turns` turns (default 2) of random legal moves are played in
//!    every game, and the outbox drainer has had a moment to spool the mails.
//!
//! Issue 13's targets (idle < 30 MB, 10 000 open games < 100 MB) are printed
//! beside the figures.
//!
//! `-- --profile DIR` also profiles the binary for `scripts/profile-move`: it
//! starts it with a maildir door (`[mail.maildir]`, polled every second), and
//! attaches `perf record --call-graph dwarf` to it for the turns (written to
//! `DIR/moves.data`) and for a backlog of reply mails (two per game of
//! `--backlog` more Fairschach games) moved into the maildir's `new/` at once
//! (`DIR/maildir.data`), until every one is in `cur/`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fairsteward::rules::VariantId;

mod support;
use support::xorshift::XorShift64;
use support::{Game, conditions, create_game, play_turn, verdict};

/// Concurrent HTTP clients.
const CLIENTS: usize = 16;
const SEED: u64 = 0x5EED_3E30_0000_0013;
/// The steward's own address in profile mode (capabilities are made from it).
const FROM: &str = "moves-bench@steward.example";

struct Args {
    games: usize,
    turns: u32,
    backlog: usize,
    profile: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args { games: 10_000, turns: 2, backlog: 250, profile: None };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--games" => a.games = value().parse().expect("--games N"),
            "--turns" => a.turns = value().parse().expect("--turns N"),
            "--backlog" => a.backlog = value().parse().expect("--backlog N"),
            "--profile" => a.profile = Some(value().into()),
            // `cargo bench` passes --bench to every bench.
            _ => {}
        }
    }
    a
}

/// The release binary serving on 127.0.0.1; killed when dropped.
struct Steward {
    child: Child,
    base: String,
    operator: String,
    log: PathBuf,
}

impl Steward {
    fn start(data: &Path, config: Option<&Path>) -> Steward {
        let log = data.with_extension("log");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fairsteward"));
        cmd.args(["serve", "--data-dir"]).arg(data).args(["--listen", "127.0.0.1:0"]);
        if let Some(c) = config {
            cmd.arg("--config").arg(c);
        }
        let child = cmd
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("the log file"))
            .spawn()
            .expect("the fairsteward binary starts");
        let begin = Instant::now();
        let addr = loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if let Some(rest) = text.split("listening on http://").nth(1) {
                let addr: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':').collect();
                break addr;
            }
            assert!(begin.elapsed() < Duration::from_secs(30), "the steward did not listen within 30 s:\n{text}");
            std::thread::sleep(Duration::from_millis(20));
        };
        let token = std::fs::read_to_string(data.join(fairsteward::protocol::OPERATOR_TOKEN_FILE))
            .expect("the operator token file");
        Steward { child, base: format!("http://{addr}"), operator: token.trim().to_owned(), log }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// (VmRSS, VmHWM) in MB.
    fn memory(&self) -> (f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("/proc/<pid>/status");
        let kb = |key: &str| -> f64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key)?.trim().strip_suffix("kB")?.trim().parse::<f64>().ok())
                .unwrap_or_else(|| panic!("{key} in /proc/<pid>/status"))
        };
        (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
    }
}

impl Drop for Steward {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `perf record` attached to a process until dropped (then stopped with SIGINT,
/// so it writes its file whole).
struct Perf(Child);

impl Perf {
    fn attach(pid: u32, out: &Path) -> Perf {
        // 199 Hz by default; FAIRSTEWARD_PERF_HZ asks for more samples (1999
        // gives a store thread's split by function worth reading).
        let hz = std::env::var("FAIRSTEWARD_PERF_HZ").ok().filter(|v| v.parse::<u32>().is_ok_and(|n| n > 0));
        let hz = hz.unwrap_or_else(|| "199".to_owned());
        let child = Command::new("perf")
            .args(["record", "--call-graph", "dwarf,16384", "-F", &hz, "-p", &pid.to_string(), "-o"])
            .arg(out)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("perf (linux-perf) is installed");
        // perf needs a moment to attach to every thread.
        std::thread::sleep(Duration::from_secs(1));
        Perf(child)
    }
}

impl Drop for Perf {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the id of a child this process started and has not reaped.
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGINT);
        }
        let _ = self.0.wait();
    }
}

/// Creates `n` games (numbered from `first`) with `CLIENTS` concurrent clients;
/// `variant(i)` picks each one's variant. Returns them with their numbers, and
/// the creations per second.
async fn create_games(
    http: &reqwest::Client,
    s: &Steward,
    first: usize,
    n: usize,
    variant: fn(usize) -> VariantId,
) -> (Vec<(usize, Game)>, f64) {
    let next = Arc::new(AtomicUsize::new(first));
    let begin = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (http, base, operator, next) = (http.clone(), s.base.clone(), s.operator.clone(), next.clone());
            tokio::spawn(async move {
                let mut games = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= first + n {
                        return games;
                    }
                    games.push((i, create_game(&http, &base, &operator, variant(i), i).await));
                }
            })
        })
        .collect();
    let mut games = Vec::with_capacity(n);
    for t in tasks {
        games.extend(t.await.expect("a creating client"));
    }
    (games, n as f64 / begin.elapsed().as_secs_f64())
}

/// Plays `turns` turns in every game (games dealt to `CLIENTS` clients; a game
/// that ends stops). Returns the moves accepted and the moves per second.
async fn play(http: &reqwest::Client, s: &Steward, games: Vec<Game>, turns: u32) -> (usize, f64) {
    let mut hands: Vec<Vec<Game>> = (0..CLIENTS).map(|_| Vec::new()).collect();
    for (i, g) in games.into_iter().enumerate() {
        hands[i % CLIENTS].push(g);
    }
    let begin = Instant::now();
    let tasks: Vec<_> = hands
        .into_iter()
        .enumerate()
        .map(|(c, mut hand)| {
            let (http, base) = (http.clone(), s.base.clone());
            tokio::spawn(async move {
                let mut rng = XorShift64::new(SEED ^ (c as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
                let mut moves = 0;
                for _ in 0..turns {
                    for g in hand.iter_mut().filter(|g| g.turn != 0) {
                        let (answered, ended) = play_turn(&http, &base, g, &mut rng).await;
                        moves += answered.len();
                        if ended {
                            // Turn 0 marks a game that is over.
                            g.turn = 0;
                        }
                    }
                }
                moves
            })
        })
        .collect();
    let mut moves = 0;
    for t in tasks {
        moves += t.await.expect("a playing client");
    }
    (moves, moves as f64 / begin.elapsed().as_secs_f64())
}

/// The maildir part of the profile: `backlog` more Fairschach games over HTTP,
/// one reply per seat (white e4, black e5) to each, written to `tmp/` and then
/// moved into `new/` at once under `perf`; done when all are in `cur/`.
async fn maildir_backlog(http: &reqwest::Client, s: &Steward, data: &Path, backlog: usize, out: &Path) -> f64 {
    let (games, _) = create_games(http, s, 1_000_000, backlog, |_| VariantId::Fairschach).await;
    let keys = fairsteward::protocol::StewardKeys::load_or_create(data).expect("the steward's keys");
    let maildir = data.join("maildir");
    let mut written = Vec::new();
    for (n, g) in &games {
        for (seat, (name, mv)) in [("white", "e4"), ("black", "e5")].into_iter().enumerate() {
            let cap = fairsteward::protocol::capability::address(&keys, FROM, &g.id, name, 1).expect("a capability");
            // The seats' addresses as `create_game` gave them.
            let who = if seat == 0 { format!("first{n}@example.org") } else { format!("second{n}@example.org") };
            let mail = format!(
                "From: Player <{who}>\r\nTo: Fairsteward <{cap}>\r\nSubject: Re: Game {id}: your move\r\n\
                 Message-ID: <profile-{n}-{name}@client.example>\r\nDate: Wed, 25 Nov 2026 12:00:00 +0000\r\n\
                 MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
                 {mv}\r\n\r\nSent from my phone\r\n\r\n> Game {id} has begun. Your move for turn 1.\r\n",
                id = g.id
            );
            let file = format!("{n:06}.{seat}.profile");
            let mut f = std::fs::File::create(maildir.join("tmp").join(&file)).expect("a maildir file");
            f.write_all(mail.as_bytes()).expect("write a mail");
            written.push(file);
        }
    }
    let _perf = Perf::attach(s.pid(), &out.join("maildir.data"));
    let begin = Instant::now();
    for file in &written {
        std::fs::rename(maildir.join("tmp").join(file), maildir.join("new").join(file)).expect("into new/");
    }
    loop {
        let done = std::fs::read_dir(maildir.join("cur")).map_or(0, Iterator::count);
        if done >= written.len() {
            break;
        }
        assert!(
            begin.elapsed() < Duration::from_secs(600),
            "the maildir door took {done} of {} in 600 s",
            written.len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    written.len() as f64 / begin.elapsed().as_secs_f64()
}

fn main() {
    let a = args();
    println!("fairsteward memory benchmark ({} build)", if cfg!(debug_assertions) { "debug" } else { "optimized" });
    println!();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = dir.path().join("data");
    let config = a.profile.as_ref().map(|_| {
        let path = dir.path().join("fairsteward.toml");
        std::fs::write(
            &path,
            format!("[mail]\nfrom = \"Fairsteward <{FROM}>\"\n[mail.maildir]\npath = \"maildir\"\npoll_seconds = 1\n"),
        )
        .expect("the configuration file");
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(data.join("maildir").join(sub)).expect("the maildir");
        }
        path
    });
    println!(
        "The release binary {} serve, data directory under {}, 127.0.0.1; {}",
        env!("CARGO_BIN_EXE_fairsteward"),
        dir.path().display(),
        if config.is_some() {
            "with a maildir door for the profile"
        } else {
            "embedded defaults (no configuration file)"
        }
    );
    println!("Conditions at start: {}", conditions(dir.path()));
    println!();
    let steward = Steward::start(&data, config.as_deref());
    std::thread::sleep(Duration::from_secs(1));
    let (idle, _) = steward.memory();
    println!("  {:<56} VmRSS {idle:>7.1} MB", "idle, 1 s after it listens");

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().no_proxy().pool_max_idle_per_host(CLIENTS * 2).build().expect("HTTP client");
    let (games, created_per_s) = runtime.block_on(create_games(&http, &steward, 0, a.games, |i| {
        if i % 2 == 0 { VariantId::Chess } else { VariantId::Fairschach }
    }));
    let (created, _) = steward.memory();
    let what = format!("{} games created over HTTP ({created_per_s:.0} per s)", a.games);
    println!("  {what:<56} VmRSS {created:>7.1} MB");
    let perf = a.profile.as_ref().map(|out| {
        std::fs::create_dir_all(out).expect("the profile directory");
        Perf::attach(steward.pid(), &out.join("moves.data"))
    });
    let games = games.into_iter().map(|(_, g)| g).collect();
    let (moves, moves_per_s) = runtime.block_on(play(&http, &steward, games, a.turns));
    drop(perf);
    // Let the outbox drainer spool what the turns queued.
    std::thread::sleep(Duration::from_secs(2));
    let (played, peak) = steward.memory();
    let what = format!("then {} turns each: {moves} moves ({moves_per_s:.0} per s)", a.turns);
    println!("  {what:<56} VmRSS {played:>7.1} MB, VmHWM (peak) {peak:.1} MB");
    println!();
    println!("Issue 13 targets, this run (conditions at end: {}):", conditions(dir.path()));
    println!("  {:<30} {idle:>7.1} MB   target < 30 MB    {}", "idle", verdict(idle < 30.0));
    let label =
        if a.games == 10_000 { "10 000 open games".to_owned() } else { format!("{} open games (not 10 000)", a.games) };
    println!("  {label:<30} {played:>7.1} MB   target < 100 MB   {}", verdict(played < 100.0));
    if let Some(out) = &a.profile {
        let rate = runtime.block_on(maildir_backlog(&http, &steward, &data, a.backlog, out));
        println!();
        println!("Profile: {} reply mails through the maildir door at {rate:.1} per s (under perf)", a.backlog * 2);
        println!("  perf data: {} and {}", out.join("moves.data").display(), out.join("maildir.data").display());
        std::fs::copy(&steward.log, out.join("steward.log")).expect("keep the steward's log");
        let log = std::fs::read_to_string(&steward.log).unwrap_or_default();
        let accepted = log.lines().filter(|l| l.contains("outcome=accepted: move")).count();
        println!("  {accepted} of them accepted as moves (the steward's log, kept beside the perf data)");
    }
    let log = std::fs::read_to_string(&steward.log).unwrap_or_default();
    let errors = log.lines().filter(|l| l.contains("ERROR")).count();
    if errors > 0 {
        println!(
            "  the steward logged {errors} ERROR lines; the first: {}",
            log.lines().find(|l| l.contains("ERROR")).unwrap()
        );
    }
}
