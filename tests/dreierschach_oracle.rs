//! The Dreierschach engine against an independent implementation of
//! `rules/dreierschach.md` (`tools/dreierschach_oracle/`, written from the rules file
//! alone, in Python with only its standard library).
//!
//! 1. Perft: the start and four thinned-out start positions (no pawns; pawns
//!    only; pawns, rooks and knights; pawns and bishops), under both en-passant
//!    rules, depths 1–2 (1–3 in the ignored long run).
//! 2. Seeded random games under three option sets (the defaults, `en_passant =
//!    next`, `no_progress = 20`), from the start, the thinned positions and random
//!    sparse positions (three kings and a few pieces): at every ply the state
//!    string must read back unchanged, the legal lists must be equal, and the
//!    state and the outcome (in points) after the oracle's move must agree.
//!
//! Both go through [`DynVariant`], the face the CLI and the steward use.

#[path = "common/oracle_ply.rs"]
mod oracle_ply;
#[path = "common/oracle_run.rs"]
mod oracle_run;

use fairsteward::rules::{DynVariant, Options, VariantId};
use serde_json::Value;

fn oracle(args: &[&str]) -> Vec<Value> {
    oracle_run::lines("dreierschach_oracle/games.py", args)
}

fn rulebook(options: &Value) -> Box<dyn DynVariant> {
    let mut o = Options::new();
    for (k, v) in options.as_object().expect("options object") {
        o = o.set(k, v.as_str().expect("option value"));
    }
    VariantId::Dreierschach.rulebook(&o).unwrap_or_else(|e| panic!("{options}: {e}"))
}

/// Compares one ply of an oracle game; returns what disagrees.
fn compare_ply(line: &Value) -> Vec<String> {
    oracle_ply::compare(&*rulebook(&line["options"]), line, &format!("options {}", line["options"]))
}

fn games(args: &[&str]) {
    let lines = oracle(args);
    assert!(lines.len() > 1000, "only {} plies", lines.len());
    oracle_run::agree(&lines, compare_ply);
}

fn perft(depth: &str) {
    let lines = oracle(&["perft", "--depth", depth]);
    let mut issues = Vec::new();
    for line in &lines {
        let rules = rulebook(&line["options"]);
        let state = oracle_ply::text(line, "state");
        let depth = line["depth"].as_u64().expect("depth") as u32;
        let nodes = line["nodes"].as_u64().expect("nodes");
        match rules.perft(&state, depth) {
            Ok(n) if n == nodes => {}
            other => {
                issues.push(format!("{} {state} perft {depth}: oracle {nodes}, engine {other:?}", line["options"]))
            }
        }
    }
    assert!(issues.is_empty(), "{}", issues.join("\n"));
}

#[test]
fn perft_agrees_with_the_oracle() {
    perft("2");
}

#[test]
fn random_games_agree_with_the_oracle() {
    games(&["--seed", "20261201", "--games", "1", "--plies", "60"]);
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn perft_agrees_with_the_oracle_to_depth_3() {
    perft("3");
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn many_random_games_agree_with_the_oracle() {
    for seed in ["1", "2", "3"] {
        games(&["--seed", seed, "--games", "3", "--plies", "300"]);
    }
}
