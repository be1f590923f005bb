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

use std::path::Path;
use std::process::Command;

use fairsteward::rules::{DynVariant, Options, VariantId};
use serde_json::Value;

fn oracle(args: &[&str]) -> Vec<Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .arg(root.join("tools/dreierschach_oracle/games.py"))
        .args(args)
        .output()
        .expect("python3 runs (scripts/test installs it)");
    assert!(output.status.success(), "the oracle failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("oracle line {l:?}: {e}")))
        .collect()
}

fn rulebook(options: &Value) -> Box<dyn DynVariant> {
    let mut o = Options::new();
    for (k, v) in options.as_object().expect("options object") {
        o = o.set(k, v.as_str().expect("option value"));
    }
    VariantId::Dreierschach.rulebook(&o).unwrap_or_else(|e| panic!("{options}: {e}"))
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_else(|| panic!("{key} in {v}")).to_owned()
}

/// Compares one ply of an oracle game; returns what disagrees.
fn compare_ply(line: &Value) -> Vec<String> {
    let rules = rulebook(&line["options"]);
    let state = text(line, "state");
    let mut issues = Vec::new();
    let at = format!("options {} state {state}", line["options"]);
    match rules.canonical_state(&state) {
        Ok(s) if s == state => {}
        Ok(s) => issues.push(format!("{at}: reads back as {s}")),
        Err(e) => return vec![format!("{at}: refused: {e}")],
    }
    let seat = rules.seats_to_move(&state).expect("state").iter().next().expect("a seat to move");
    let legal = rules.legal_moves(&state, seat).expect("legal");
    let expected: Vec<String> =
        line["legal"].as_array().expect("legal").iter().map(|m| m.as_str().expect("move").to_owned()).collect();
    if legal != expected {
        let missing: Vec<&String> = expected.iter().filter(|m| !legal.contains(m)).collect();
        let extra: Vec<&String> = legal.iter().filter(|m| !expected.contains(m)).collect();
        issues.push(format!("{at}: legal moves differ; engine lacks {missing:?}, engine adds {extra:?}"));
        return issues;
    }
    let mv = text(line, "move");
    match rules.resolve(&[], &state, &[(seat, mv.clone())]) {
        Ok(r) => {
            let next = text(line, "next");
            if r.state != next {
                issues.push(format!("{at}: after {mv} the engine has {} and the oracle {next}", r.state));
            }
            let outcome = r.outcome.map(|o| o.result.score_text(3));
            let expected = line["outcome"].as_str().map(str::to_owned);
            if outcome != expected {
                issues.push(format!("{at}: after {mv} the engine's outcome is {outcome:?}, the oracle's {expected:?}"));
            }
        }
        Err(e) => issues.push(format!("{at}: {mv} refused: {e}")),
    }
    issues
}

fn games(args: &[&str]) {
    let lines = oracle(args);
    assert!(lines.len() > 1000, "only {} plies", lines.len());
    let issues: Vec<String> = lines.iter().flat_map(compare_ply).collect();
    assert!(
        issues.is_empty(),
        "{} disagreements in {} plies; the first:\n{}",
        issues.len(),
        lines.len(),
        issues.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}

fn perft(depth: &str) {
    let lines = oracle(&["perft", "--depth", depth]);
    let mut issues = Vec::new();
    for line in &lines {
        let rules = rulebook(&line["options"]);
        let state = text(line, "state");
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
