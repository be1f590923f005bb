//! Rules-engine benchmark: `cargo bench --bench rules`.
//!
//! A plain `harness = false` program timed with `std::time::Instant`; it prints a
//! report and asserts nothing about time.
//!
//! 1. Chess perft through the provided `Variant::perft` of the chess rulebook
//!    against `shakmaty::perft` on the same positions (node counts must agree).
//! 2. Vierschach perft (the provided `Variant::perft` of the Vierschach rulebook)
//!    next to `shakmaty::perft` of chess from the start, in nodes per second, and
//!    their ratio.
//! 3. Dreierschach perft from the start (the provided `Variant::perft` of its
//!    rulebook) next to `shakmaty::perft` of chess from the start, measured in
//!    the same run, in nodes per second, and their ratio.
//! 4. 3D chess perft (the provided `Variant::perft` of the 3D chess rulebook)
//!    next to `shakmaty::perft` of chess from the start, in nodes per second,
//!    and their ratio.
//! 5. Trialectic Dame perft from the start (setups 1 and 2, the provided
//!    `Variant::perft`) in nodes per second, and its ratio to shakmaty's chess
//!    perft of the same run.
//! 6. Fairschach pair resolutions per second: a fixed set of random games, moves
//!    drawn by a seeded xorshift64 from `Variant::legal_moves` of each seat to move,
//!    is played once to record the turns; then only the `Variant::resolve` calls
//!    of those turns (with the game's history, as the steward passes it) are timed.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use fairsteward::rules::chess::Chess;
use fairsteward::rules::dame::TrialecticDame;
use fairsteward::rules::dreierschach::Dreierschach;
use fairsteward::rules::fairschach::{Fairschach, FsMove, FsPosition, Mode, PauseRule};
use fairsteward::rules::tri_d::TriDChess;
use fairsteward::rules::vierschach::Vierschach;
use fairsteward::rules::{Options, Seat, SeatResult, Variant};
use shakmaty::CastlingMode;
use shakmaty::fen::Fen;

/// Timed repetitions of each measurement; the best (shortest) run is reported.
const RUNS: usize = 5;

const PERFT_CASES: [(&str, &str, u32, u64); 2] = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5, 4_865_609),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4_085_603),
];

const GAMES: usize = 200;
const MAX_PAIRS: usize = 80;
const SEED: u64 = 0x5EED_FA12_5C4A_C400;

#[allow(dead_code)] // the test crate shares it; this bench takes what it needs
#[path = "../tests/it/support/xorshift.rs"]
mod xorshift;
use xorshift::XorShift64;

/// Runs `f` `RUNS` times and returns the shortest time and the last result.
fn best_of<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..RUNS {
        let t = Instant::now();
        let r = black_box(f());
        best = best.min(t.elapsed());
        last = Some(r);
    }
    (best, last.expect("RUNS > 0"))
}

fn mnps(nodes: u64, t: Duration) -> f64 {
    nodes as f64 / t.as_secs_f64() / 1e6
}

fn chess_perft() {
    println!("Chess perft: Variant::perft (trait) vs shakmaty::perft, best of {RUNS}");
    println!(
        "  {:<10} {:>5} {:>10}  {:>9} {:>9}  {:>10} {:>13}  {:>14}",
        "position", "depth", "nodes", "trait", "shakmaty", "trait Mnps", "shakmaty Mnps", "trait/shakmaty"
    );
    for (name, fen, depth, expected) in PERFT_CASES {
        let state = Chess.parse_state(fen).expect("valid FEN");
        let fen_parsed: Fen = fen.parse().expect("FEN");
        let pos: shakmaty::Chess = fen_parsed.into_position(CastlingMode::Standard).expect("legal position");
        let (t_trait, n_trait) = best_of(|| Variant::perft(&Chess, black_box(&state), depth));
        let (t_shak, n_shak) = best_of(|| shakmaty::perft(black_box(&pos), depth));
        assert_eq!(n_trait, expected, "{name}: Variant::perft");
        assert_eq!(n_shak, expected, "{name}: shakmaty::perft");
        println!(
            "  {:<10} {:>5} {:>10}  {:>7.3} s {:>7.3} s  {:>10.2} {:>13.2}  {:>13.1}x",
            name,
            depth,
            expected,
            t_trait.as_secs_f64(),
            t_shak.as_secs_f64(),
            mnps(expected, t_trait),
            mnps(expected, t_shak),
            t_trait.as_secs_f64() / t_shak.as_secs_f64(),
        );
    }
}

/// Vierschach start perft: depth and nodes (`tests/it/games/data/vierschach.perft`).
const VIERSCHACH_PERFT: [(&str, u32, u64); 2] = [("teams", 5, 3_452_310), ("ffa", 5, 3_452_310)];

fn vierschach_perft() {
    println!();
    println!("Vierschach perft from the start (Variant::perft) vs shakmaty chess perft from the start, best of {RUNS}");
    let chess_mnps = chess_reference("vierschach");
    for (mode, depth, expected) in VIERSCHACH_PERFT {
        let rules = if mode == "ffa" { Vierschach::ffa() } else { Vierschach::teams() };
        let start = rules.start();
        let (t, n) = best_of(|| Variant::perft(&rules, black_box(&start), depth));
        assert_eq!(n, expected, "vierschach {mode} perft {depth}");
        perft_row(&format!("vierschach {mode}"), depth, n, t, chess_mnps);
    }
}

/// shakmaty's chess perft 5 from the start, the reference the other games'
/// perft is set beside: prints the table's head (`game / shakmaty` as the
/// ratio's title) and the reference's row, and returns its million nodes per
/// second.
fn chess_reference(game: &str) -> f64 {
    let chess: shakmaty::Chess = shakmaty::Chess::default();
    let (t, n) = best_of(|| shakmaty::perft(black_box(&chess), 5));
    assert_eq!(n, 4_865_609, "shakmaty perft 5");
    let ratio = format!("{game} / shakmaty");
    println!("  {:<24} {:>5} {:>10}  {:>9}  {:>8}  {ratio:>22}", "", "depth", "nodes", "time", "Mnps");
    println!("  {:<24} {:>5} {:>10}  {:>7.3} s  {:>8.2}", "chess (shakmaty::perft)", 5, n, t.as_secs_f64(), mnps(n, t));
    mnps(n, t)
}

/// One game's row of a perft table: its rate and its ratio to the reference.
fn perft_row(name: &str, depth: u32, nodes: u64, t: Duration, chess_mnps: f64) {
    let m = mnps(nodes, t);
    println!(
        "  {:<24} {:>5} {:>10}  {:>7.3} s  {:>8.2}  {:>21.3}x",
        name,
        depth,
        nodes,
        t.as_secs_f64(),
        m,
        m / chess_mnps
    );
}

/// 3D chess perft (`tests/it/games/data/tri-d-chess.perft`): the start to depth 5 and
/// an opening position with castling rights to depth 4.
const TRI_D_PERFT: [(&str, &str, u32, u64); 2] = [
    (
        "start",
        "nbbn/pppp/4/4/4/4/4/4/4/4/PPPP/NBBN wQL1:PP/RQ,wKL1:PP/KR,bQL6:rq/pp,bKL6:kr/pp w KQkq - - - 0 1",
        5,
        5_083_984,
    ),
    (
        "middle",
        "nbb1/p1pp/1p2/3n/4/1P2/4/4/4/P3/1P1P/NBBN wQL1:PP/RQ,wKL1:PP/KR,bQL6:rq/pp,bKL6:kr/pp w KQkq - - - 0 4",
        4,
        342_630,
    ),
];

fn tri_d_perft() {
    println!();
    println!("3D chess perft (Variant::perft) vs shakmaty chess perft from the start, best of {RUNS}");
    let chess_mnps = chess_reference("3D chess");
    for (name, state, depth, expected) in TRI_D_PERFT {
        let rules = TriDChess;
        let state = rules.parse_state(state).expect("a valid state");
        let (t, n) = best_of(|| Variant::perft(&rules, black_box(&state), depth));
        assert_eq!(n, expected, "3D chess {name} perft {depth}");
        perft_row(&format!("3D chess {name}"), depth, n, t, chess_mnps);
    }
}

/// Trialectic Dame start perft: setup, depth and nodes (`tests/it/games/dame/cli.rs`,
/// checked by the oracle of `tools/dame_oracle/`).
const DAME_PERFT: [(&str, u32, u64); 2] = [("1", 6, 532_818), ("2", 5, 80_885)];

fn dame_perft() {
    println!();
    println!(
        "Trialectic Dame perft from the start (Variant::perft) vs shakmaty chess perft from the start, best of {RUNS}"
    );
    let chess_mnps = chess_reference("dame");
    for (setup, depth, expected) in DAME_PERFT {
        let rules = TrialecticDame::new(&Options::new().set("setup", setup)).expect("the options");
        let start = rules.start();
        let (t, n) = best_of(|| Variant::perft(&rules, black_box(&start), depth));
        assert_eq!(n, expected, "trialectic dame setup {setup} perft {depth}");
        perft_row(&format!("trialectic dame setup {setup}"), depth, n, t, chess_mnps);
    }
}

/// Dreierschach start perft: depth and nodes (`tests/it/games/data/dreierschach.perft`).
const DREIERSCHACH_PERFT: [(u32, u64); 2] = [(4, 3_890_589), (5, 178_156_345)];

fn dreierschach_perft() {
    println!();
    println!(
        "Dreierschach perft from the start (Variant::perft) vs shakmaty chess perft from the start, best of {RUNS}"
    );
    let chess_mnps = chess_reference("dreierschach");
    let rules = Dreierschach::default();
    let start = rules.start();
    for (depth, expected) in DREIERSCHACH_PERFT {
        let (t, n) = best_of(|| Variant::perft(&rules, black_box(&start), depth));
        assert_eq!(n, expected, "dreierschach perft {depth}");
        perft_row("dreierschach", depth, n, t, chess_mnps);
    }
}

/// One recorded game: its states (start first) and the moves of each pair.
struct Game {
    states: Vec<FsPosition>,
    turns: Vec<Vec<(Seat, FsMove)>>,
}

/// What the recording pass saw, for the report.
#[derive(Default)]
struct Tally {
    resolutions: usize,
    ended: BTreeMap<String, usize>,
    unfinished: usize,
    first: usize,
    struck: usize,
    normal_switches: usize,
    errors: Vec<String>,
}

/// Plays the seeded random games once, recording every turn.
fn record_games(rules: &Fairschach, seed: u64) -> (Vec<Game>, Tally) {
    let mut rng = XorShift64::new(seed);
    let mut tally = Tally::default();
    let mut games = Vec::with_capacity(GAMES);
    for game_no in 0..GAMES {
        let mut game = Game { states: vec![rules.start()], turns: Vec::new() };
        let mut finished = false;
        for _ in 0..MAX_PAIRS {
            let state = game.states.last().expect("start state");
            let mut moves = Vec::with_capacity(2);
            for seat in rules.seats_to_move(state).iter() {
                let legal = rules.legal_moves(state, seat);
                if legal.is_empty() {
                    let seat = seat.index();
                    tally.errors.push(format!("game {game_no}: {state}: seat {seat} has no move but no outcome"));
                    break;
                }
                moves.push((seat, legal[rng.below(legal.len())]));
            }
            let history = &game.states[..game.states.len() - 1];
            let resolution = match rules.resolve(history, state, &moves) {
                Ok(r) => r,
                Err(e) => {
                    tally.errors.push(format!("game {game_no}: resolve({state}, {moves:?}): {e}"));
                    finished = true;
                    break;
                }
            };
            tally.resolutions += 1;
            for m in &resolution.moves {
                match m.result {
                    SeatResult::First => tally.first += 1,
                    SeatResult::Struck(_) => tally.struck += 1,
                    SeatResult::Played => {}
                }
            }
            if matches!(state.mode(), Mode::Simultaneous) && matches!(resolution.state.mode(), Mode::Normal(_)) {
                tally.normal_switches += 1;
            }
            game.turns.push(moves);
            game.states.push(resolution.state);
            if let Some(outcome) = resolution.outcome {
                *tally.ended.entry(outcome.reason.to_string()).or_default() += 1;
                finished = true;
                break;
            }
        }
        if !finished {
            tally.unfinished += 1;
        }
        games.push(game);
    }
    (games, tally)
}

/// Replays every recorded `resolve` call, with the game's history or (for
/// comparison) with none; returns the count.
fn replay(rules: &Fairschach, games: &[Game], with_history: bool) -> usize {
    let mut n = 0;
    for game in games {
        for (i, moves) in game.turns.iter().enumerate() {
            let history = if with_history { &game.states[..i] } else { &[] };
            let r = rules.resolve(black_box(history), black_box(&game.states[i]), black_box(moves));
            black_box(r.is_ok());
            n += 1;
        }
    }
    n
}

fn fairschach_resolutions() {
    println!();
    println!(
        "Fairschach pair resolutions: {GAMES} random games (xorshift64, seed {SEED:#x}), \
         up to {MAX_PAIRS} pairs each; Variant::resolve timed alone, best of {RUNS}"
    );
    let configs = [
        ("pause=moved (default)", Fairschach::default()),
        ("pause=capturable, normal_below=6", Fairschach { pause: PauseRule::Capturable, normal_below: Some(6) }),
    ];
    for (label, rules) in configs {
        let (games, tally) = record_games(&rules, SEED);
        let (t, n) = best_of(|| replay(&rules, &games, true));
        let (t_bare, _) = best_of(|| replay(&rules, &games, false));
        assert_eq!(n, tally.resolutions);
        let ended: usize = tally.ended.values().sum();
        let reasons: Vec<String> = tally.ended.iter().map(|(r, c)| format!("{r} {c}")).collect();
        println!("  {label}");
        println!(
            "    {} resolutions in {:.3} s: {:.0} resolutions/s ({:.1} µs each)",
            n,
            t.as_secs_f64(),
            n as f64 / t.as_secs_f64(),
            t.as_secs_f64() * 1e6 / n as f64
        );
        println!(
            "    same calls with an empty history (no repetition scan): {:.0} resolutions/s ({:.1} µs each)",
            n as f64 / t_bare.as_secs_f64(),
            t_bare.as_secs_f64() * 1e6 / n as f64
        );
        println!(
            "    games: {ended} ended ({}), {} stopped at {MAX_PAIRS} pairs",
            if reasons.is_empty() { "-".to_owned() } else { reasons.join(", ") },
            tally.unfinished,
        );
        println!(
            "    moves played first (§3b) {}, struck {}; switches to normal chess (FSR 8) {}",
            tally.first, tally.struck, tally.normal_switches,
        );
        if !tally.errors.is_empty() {
            println!("    ERRORS ({}):", tally.errors.len());
            for e in tally.errors.iter().take(10) {
                println!("      {e}");
            }
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; there are no options to read.
    println!("fairsteward rules benchmark ({} build)", if cfg!(debug_assertions) { "debug" } else { "optimized" });
    println!();
    chess_perft();
    vierschach_perft();
    dreierschach_perft();
    tri_d_perft();
    dame_perft();
    fairschach_resolutions();
}
