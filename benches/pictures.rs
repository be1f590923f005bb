//! Board pictures benchmark: `cargo bench --bench pictures` (issue 38).
//!
//! A plain `harness = false` program timed with `std::time::Instant`. It prints
//! a report, and a PASS or FAIL line per target of issue 38; it exits non-zero
//! when a target is missed.
//!
//! 1. Pictures: for every game (`VariantId::ALL`), two positions (the start, and
//!    the position after `TURNS` turns of random legal moves, xorshift64 with a
//!    fixed seed, its last turn's moves marked as the steward marks them), from
//!    every seat's side, at the web's and the mails' size (640 pixels) and, for
//!    boards of more than 64 cells, at 800 (their mails' size before issue 38),
//!    for comparison. Each picture
//!    is drawn and encoded the way the steward does now
//!    (`render::png::drawing_png`, a palette PNG) and the way it did before
//!    issue 38 (`Encoding::FullColour`, today's encoder kept as the baseline), in
//!    alternating rounds with the same warm parts (as the steward's renderer
//!    keeps them), timed in the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`:
//!    other work on the machine does not count); the median of each is
//!    reported, and the ratio new/old per game. Also how far the palette is from the full-colour pixels.
//! 2. Mails: a steward in this process (a temporary data directory, mails to
//!    its spool), one game of every kind created over HTTP (its start mails)
//!    and one turn played (its board mails); the largest start mail and board
//!    mail of each game as spooled.
//!
//! The mail bytes per move under load are the HTTP bench's (`cargo bench
//! --bench http`).

use std::time::{Duration, Instant};

use fairsteward::config::{Config, Overrides};
use fairsteward::render::palette;
use fairsteward::render::png::{Encoding, Parts, drawing_pixmap, drawing_png_with};
use fairsteward::render::svg::{Drawing, Marks, board_drawing};
use fairsteward::rules::{DynVariant, Options, Seat, VariantId};
use serde_json::{Value, json};

mod support;
use support::conditions;
use support::xorshift::XorShift64;

/// Turns of random legal moves before the second position.
const TURNS: usize = 8;
const SEED: u64 = 0x5EED_0038_B0A2_D5E1;
/// Timed rounds per picture (each round draws it both ways).
const ROUNDS: usize = 15;
/// The web's default picture side (`GET …/board.png`).
const WEB_PX: u32 = 640;

/// Issue 38's targets.
const PICTURE_MAX: usize = 25_000;
const MAIL_MAX: usize = 40_000;
const TIME_RATIO_MAX: f64 = 1.5;

/// A position to draw: its name, the state, the marks.
struct Position {
    name: &'static str,
    state: String,
    marks: Marks,
}

/// The start, and the position after `TURNS` turns of random legal moves
/// (fewer if the game ends first) with its last turn's played moves marked.
fn positions(rules: &dyn DynVariant, rng: &mut XorShift64) -> Vec<Position> {
    let to_move = |state: &str| rules.seats_to_move(state).expect("seats to move").iter().collect::<Vec<Seat>>();
    let start = rules.start();
    let mut out = vec![Position {
        name: "start",
        state: start.clone(),
        marks: Marks { to_move: to_move(&start), ..Marks::default() },
    }];
    let (mut history, mut state, mut last) = (Vec::new(), start, Vec::new());
    for _ in 0..TURNS {
        let mut moves = Vec::new();
        for seat in rules.seats_to_move(&state).expect("seats to move").iter() {
            let legal = rules.legal_moves(&state, seat).expect("legal moves");
            if !legal.is_empty() {
                moves.push((seat, legal[rng.below(legal.len())].clone()));
            }
        }
        let Ok(r) = rules.resolve(&history, &state, &moves) else { break };
        last = r
            .moves
            .iter()
            .filter(|m| m.result.as_str() != "struck")
            .filter_map(|m| rules.move_path(Some(&state), &m.mv))
            .collect();
        history.push(std::mem::replace(&mut state, r.state));
        if r.outcome.is_some() {
            break;
        }
    }
    out.push(Position { name: "played", marks: Marks { last_moves: last, to_move: to_move(&state) }, state });
    out
}

/// The board mails' picture size before issue 38 for a board of `cells` cells
/// (800 for boards of more than 64 cells; now every mail's is 640): measured
/// too, to show what the larger size would weigh.
fn mail_px(cells: usize) -> u32 {
    if cells > 64 { 800 } else { 640 }
}

/// CPU time this thread has used: unlike the wall clock, it does not count the
/// time the thread waits for a core while other work runs on the machine.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec passed, which lives on this stack.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Runs `f` and returns its result with the thread CPU time it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = thread_cpu();
    let out = f();
    (out, thread_cpu().saturating_sub(t))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One picture measured both ways.
struct Measured {
    old_bytes: usize,
    new_bytes: usize,
    old: Duration,
    new: Duration,
    /// Drawing the pixels alone, and finding their palette alone (for the profile).
    draw: Duration,
    quantize: Duration,
    /// The palette's difference from the full-colour pixels (`None`: full colour kept).
    error: Option<palette::PaletteError>,
}

fn measure(drawing: &Drawing, size: u32, parts: &Parts) -> Measured {
    let draw = |encoding| drawing_png_with(drawing, size, parts, encoding).expect("a picture");
    let (old_png, new_png) = (draw(Encoding::FullColour), draw(Encoding::Palette));
    assert_eq!(draw(Encoding::Palette), new_png, "the same picture, the same bytes");
    let (mut old, mut new, mut drawn, mut quantized) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let (pixmap, t) = timed(|| drawing_pixmap(drawing, size, parts).expect("pixels"));
        drawn.push(t);
        quantized.push(timed(|| std::hint::black_box(palette::quantize(&pixmap))).1);
        old.push(timed(|| std::hint::black_box(draw(Encoding::FullColour))).1);
        new.push(timed(|| std::hint::black_box(draw(Encoding::Palette))).1);
    }
    let pixmap = drawing_pixmap(drawing, size, parts).expect("pixels");
    Measured {
        old_bytes: old_png.len(),
        new_bytes: new_png.len(),
        old: median(old),
        new: median(new),
        draw: median(drawn),
        quantize: median(quantized),
        error: palette::quantize(&pixmap).map(|q| q.error),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Prints a target's line; returns whether it was met.
fn target(what: &str, figure: String, limit: &str, met: bool) -> bool {
    println!("  {} {what:<58} {figure:>12}  target {limit}", if met { "PASS" } else { "FAIL" });
    met
}

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    println!("fairsteward board pictures benchmark (optimized build)");
    println!();
    println!("Conditions at start: {}", conditions(dir.path()));
    println!(
        "Pictures: every game, the start and after {TURNS} random turns (xorshift64, seed {SEED:#x}), every seat's side;"
    );
    println!(
        "  palette PNG (now) against full-colour RGBA (before issue 38) drawn from the same warm parts, {ROUNDS} alternating rounds,"
    );
    println!("  medians of the thread's CPU time (ms); draw = the pixels alone, palette = choosing the palette alone");
    println!();
    let mut all_met = true;
    let mut ratios = Vec::new();
    let parts = Parts::default();
    let mut rng = XorShift64::new(SEED);
    println!(
        "  {:<16} {:<7} {:>6} {:>5}  {:>9} {:>9} {:>6}  {:>8} {:>8} {:>6} {:>7} {:>7}  {:>6} {:>8} {:>4}",
        "game",
        "pos",
        "seat",
        "px",
        "old B",
        "new B",
        "new/o",
        "old ms",
        "new ms",
        "ratio",
        "draw",
        "palette",
        "mean",
        "strong%",
        "max"
    );
    let mut pictures_met = true;
    for variant in VariantId::ALL {
        let rules = variant.rulebook(&Options::new()).expect("default options");
        let (mut old_total, mut new_total) = (Duration::ZERO, Duration::ZERO);
        for p in positions(rules.as_ref(), &mut rng) {
            let view = rules.board(&p.state).expect("a board");
            let sizes = if mail_px(view.shape.cells.len()) == WEB_PX {
                vec![WEB_PX]
            } else {
                vec![WEB_PX, mail_px(view.shape.cells.len())]
            };
            for seat in 0..rules.seat_names().len() {
                let drawing = board_drawing(&view, &p.marks, Seat::new(seat as u8));
                for &size in &sizes {
                    let m = measure(&drawing, size, &parts);
                    let (mean, strong, max) = m.error.map_or(("full".to_owned(), String::new(), String::new()), |e| {
                        (format!("{:.3}", e.mean), format!("{:.4}", e.strong_share * 100.0), e.max.to_string())
                    });
                    println!(
                        "  {:<16} {:<7} {:>6} {:>5}  {:>9} {:>9} {:>6.3}  {:>8.2} {:>8.2} {:>6.2} {:>7.2} {:>7.2}  {:>6} {:>8} {:>4}",
                        variant.name(),
                        p.name,
                        rules.seat_names()[seat],
                        size,
                        m.old_bytes,
                        m.new_bytes,
                        m.new_bytes as f64 / m.old_bytes as f64,
                        ms(m.old),
                        ms(m.new),
                        ms(m.new) / ms(m.old),
                        ms(m.draw),
                        ms(m.quantize),
                        mean,
                        strong,
                        max
                    );
                    if size == WEB_PX {
                        pictures_met &= m.new_bytes <= PICTURE_MAX;
                        old_total += m.old;
                        new_total += m.new;
                    }
                }
            }
        }
        ratios.push((variant, ms(new_total) / ms(old_total)));
    }
    println!();
    let mails = mail_sizes(&dir.path().join("mails"));
    println!("Mails as spooled (the largest of the game's seats; a board mail after one turn of random legal moves):");
    println!("  {:<16} {:>12} {:>12}", "game", "start mail", "board mail");
    for (variant, start, board) in &mails {
        println!("  {:<16} {:>12} {:>12}", variant.name(), start, board);
    }
    println!();

    println!("Issue 38 targets, this run (conditions at end: {}):", conditions(dir.path()));
    all_met &= target(
        "every default-size (640 px) picture, every game and side",
        "see above".to_owned(),
        &format!("<= {PICTURE_MAX} B"),
        pictures_met,
    );
    for (variant, ratio) in &ratios {
        all_met &= target(
            &format!("{} draw+encode time, palette / full colour", variant.name()),
            format!("{ratio:.2}"),
            &format!("<= {TIME_RATIO_MAX}"),
            *ratio <= TIME_RATIO_MAX,
        );
    }
    for (variant, start, board) in &mails {
        all_met &= target(
            &format!("{} start mail (largest seat's)", variant.name()),
            format!("{start} B"),
            &format!("<= {MAIL_MAX} B"),
            *start <= MAIL_MAX,
        );
        all_met &= target(
            &format!("{} board mail with its picture (largest seat's)", variant.name()),
            format!("{board} B"),
            &format!("<= {MAIL_MAX} B"),
            *board <= MAIL_MAX,
        );
    }
    if !all_met {
        println!("Some targets were missed.");
        std::process::exit(1);
    }
}

/// For every game: the largest start mail and the largest board mail (after
/// one turn) of its seats, as a steward in this process spools them.
fn mail_sizes(dir: &std::path::Path) -> Vec<(VariantId, usize, usize)> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(async {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let config = Config::load(
            None,
            &Overrides { data_dir: Some(dir.to_owned()), listen: Some(addr.to_string()), database: None },
        )
        .expect("configuration");
        let spool = config.spool_dir.clone();
        let operator = fairsteward::server::operator_token(&config).expect("the operator token").reveal().to_owned();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(fairsteward::server::serve(config, listener, async {
            let _ = stopped.await;
        }));
        let base = format!("http://{addr}");
        let http = reqwest::Client::new();
        let mut rng = XorShift64::new(SEED);
        let mut sizes = Vec::new();
        for variant in VariantId::ALL {
            let rules = variant.rulebook(&Options::new()).expect("default options");
            let seats: Vec<Value> = (0..rules.seat_names().len())
                .map(
                    |i| json!({"name": format!("Player {i}"), "email": format!("p{i}-{}@example.org", variant.name())}),
                )
                .collect();
            let created: Value = http
                .post(format!("{base}/api/games"))
                .bearer_auth(&operator)
                .json(&json!({"variant": variant.name(), "seats": seats}))
                .send()
                .await
                .expect("POST /api/games")
                .json()
                .await
                .expect("JSON");
            let id = created["game"]["id"].as_str().expect("a game id").to_owned();
            let tokens: Vec<String> = created["tokens"]
                .as_array()
                .expect("tokens")
                .iter()
                .map(|t| t["token"].as_str().expect("a token").to_owned())
                .collect();
            let state = rules.start();
            for seat in rules.seats_to_move(&state).expect("seats to move").iter() {
                let legal = rules.legal_moves(&state, seat).expect("legal moves");
                let mv = legal[rng.below(legal.len())].clone();
                let answer = http
                    .post(format!("{base}/api/games/{id}/moves"))
                    .bearer_auth(&tokens[seat.index()])
                    .json(&json!({"turn": 1, "move": mv}))
                    .send()
                    .await
                    .expect("POST a move");
                assert_eq!(answer.status().as_u16(), 200, "{}", answer.text().await.unwrap_or_default());
            }
            let seats = rules.seat_names().len();
            let of_kind = |kind: &str| -> Option<usize> {
                let sizes = spooled(&spool, &id, kind);
                (sizes.len() == seats).then(|| sizes.into_iter().max().unwrap_or(0))
            };
            let limit = Instant::now() + Duration::from_secs(60);
            let (start, board) = loop {
                if let (Some(s), Some(b)) = (of_kind("started"), of_kind("turn")) {
                    break (s, b);
                }
                assert!(
                    Instant::now() < limit,
                    "{}: the start and board mails were not spooled within 60 s",
                    variant.name()
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            };
            sizes.push((variant, start, board));
        }
        let _ = stop.send(());
        task.await.expect("server task").expect("server");
        sizes
    })
}

/// The sizes of the spooled mails of `game` of `kind` (their Message-IDs
/// are `game.turn.seat.kind@domain`, their files named after them).
fn spooled(spool: &std::path::Path, game: &str, kind: &str) -> Vec<usize> {
    let Ok(entries) = std::fs::read_dir(spool) else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let ours =
                name.starts_with(&format!("{game}.")) && name.contains(&format!(".{kind}@")) && name.ends_with(".eml");
            ours.then(|| e.metadata().ok().map(|m| m.len() as usize))?
        })
        .collect()
}
