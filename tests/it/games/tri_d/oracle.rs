//! The 3D chess engine against an independent implementation of
//! `docs/rules/tri-d-chess.md` (`tools/tri_d_oracle/`, written from the rules file
//! alone, in Python with only its standard library).
//!
//! 1. Perft: the start and positions with attack-board moves, castling, en
//!    passant, pending and corner promotions (`tests/it/games/data/tri-d-chess.perft`),
//!    each count computed by the oracle too; depth 3 from the start here, the
//!    start's depth 4 and the others' deepest counts in the ignored long run.
//! 2. Seeded random games from the start and from random sparse positions
//!    (attack boards anywhere, few pieces, so many board moves; corner pawns
//!    waiting for their board to leave, so pending promotions): at every ply the
//!    state string must read back unchanged, the legal lists must be equal, and
//!    the state and outcome after the oracle's move must agree.
//!
//! Both go through [`DynVariant`], the face the CLI and the steward use.

use fairsteward::rules::{DynVariant, Options, VariantId};
use serde_json::Value;

use crate::support::oracle_ply;
use crate::support::oracle_run;
use crate::support::perft_data;

const ORACLE: &str = "tri_d_oracle/oracle.py";

fn rules() -> Box<dyn DynVariant> {
    VariantId::TriDChess.rulebook(&Options::new()).unwrap()
}

/// Runs the oracle's games and compares every ply; returns the plies and
/// how many of them offered board moves, had a pending promotion, followed a
/// double step.
fn games(args: &[&str]) -> (usize, [usize; 3]) {
    let rules = rules();
    let lines = oracle_run::lines(ORACLE, args);
    let mut seen = [0usize; 3];
    for line in &lines {
        let legal = line["legal"].as_array().expect("legal");
        let any = |f: &dyn Fn(&str) -> bool| legal.iter().any(|m| f(m.as_str().unwrap_or("")));
        seen[0] += usize::from(any(&|m| m.starts_with('Q') || m.starts_with('K')));
        seen[1] += usize::from(any(&|m| m.contains(';')));
        seen[2] += usize::from(line["state"].as_str().and_then(|s| s.split(' ').nth(4)) != Some("-"));
    }
    oracle_run::agree(&lines, |line| oracle_ply::compare(&*rules, line, "tri-d-chess"));
    (lines.len(), seen)
}

const DATA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/tri-d-chess.perft"));

/// The oracle's counts up to `max_depth` agree with the file (whose counts
/// the engine must match: `tests/it/games/perft.rs`).
fn perft_against_the_oracle(max_depth: u32, max_nodes: u64) {
    let rules = rules();
    let mut issues = Vec::new();
    let mut checked = 0;
    for perft_data::Case { id, state, counts, .. } in perft_data::cases("tri-d-chess.perft", DATA) {
        for (depth, nodes) in counts {
            if depth > max_depth || nodes > max_nodes {
                continue;
            }
            let ours = rules.perft(&state, depth).expect("state");
            let count = oracle_run::lines(ORACLE, &["perft", "--state", &state, "--depth", &depth.to_string()]);
            let theirs = count.first().and_then(Value::as_u64).expect("the oracle prints a count");
            if ours != nodes || theirs != nodes {
                issues.push(format!("{id} perft {depth}: file {nodes}, engine {ours}, oracle {theirs}"));
            }
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} counts");
    assert!(issues.is_empty(), "{}", issues.join("\n"));
}

#[test]
fn perft_agrees_with_the_oracle() {
    perft_against_the_oracle(3, 20_000);
}

#[test]
fn random_games_agree_with_the_oracle() {
    let (plies, [boards, pending, ep]) = games(&["games", "--seed", "20261201", "--games", "40", "--plies", "30"]);
    assert!(plies > 1000, "{plies} plies");
    assert!(boards > 500 && pending > 0 && ep > 0, "board moves in {boards} plies, pending {pending}, ep {ep}");
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn perft_agrees_with_the_oracle_to_depth_4() {
    perft_against_the_oracle(4, 300_000);
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn many_random_games_agree_with_the_oracle() {
    for seed in ["1", "2", "3", "4"] {
        games(&["games", "--seed", seed, "--games", "25", "--plies", "120"]);
    }
}
