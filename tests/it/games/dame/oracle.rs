//! The Trialectic Dame engine against an independent implementation of
//! `docs/rules/trialectic-dame.md` (`tools/dame_oracle/`, written from the rules file
//! alone, in Python with only its standard library).
//!
//! 1. Perft on three boards (the reconstructed triangle, the triangle of side
//!    12, and the hand-made hexagon of `tests/it/games/data/dame-hexagon.json`), six
//!    option sets, from the start and random positions: depths 1–3 (1–4 in the
//!    ignored long run).
//! 2. Seeded random games on the same boards and option sets, from the start,
//!    from sparse random positions and from dense ones where seats get stuck:
//!    at every ply the state string must read back unchanged, the legal lists
//!    must be equal, and the state and outcome after the oracle's move (sent as
//!    the oracle writes it: canonical, with `-`, or start and final cell) must
//!    agree; where the seat to move cannot move, the state after its passes or
//!    enclosures and the outcome must agree.
//!
//! Both go through [`DynVariant`], the face the CLI and the steward use.

use std::path::Path;

use crate::support::oracle_run;

use fairsteward::rules::{DynVariant, Options, Outcome, Seat, VariantId};
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn oracle(args: &[&str]) -> Vec<Value> {
    oracle_run::lines("dame_oracle/games.py", args)
}

fn rulebook(line: &Value) -> Box<dyn DynVariant> {
    let mut o = Options::new();
    for (k, v) in line["options"].as_object().expect("options object") {
        o = o.set(k, v.as_str().expect("option value"));
    }
    match line["board"].as_str().expect("board") {
        "triangle" => {}
        "side12" => o = o.set("side", "12"),
        file => o = o.set("board", std::fs::read_to_string(root().join(file)).expect("the board file")),
    }
    VariantId::TrialecticDame.rulebook(&o).unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_else(|| panic!("{key} in {v}")).to_owned()
}

/// An outcome as §8 writes it.
fn outcome_json(o: Option<Outcome>) -> Value {
    let Some(o) = o else { return Value::Null };
    let letters = ["y", "r", "b"];
    let winners: Vec<&str> = o.result.winners().iter().map(|s| letters[s.index()]).collect();
    let score = |i: u8| match o.result.half_points(Seat::new(i)) {
        2 => json!(1),
        1 => json!(0.5),
        _ => json!(0),
    };
    json!({
        "result": if winners.is_empty() { "draw" } else { "win" },
        "winner": winners.first(),
        "reason": o.reason.as_str(),
        "scores": {"y": score(0), "r": score(1), "b": score(2)},
    })
}

/// Compares one ply of an oracle game; returns what disagrees.
fn compare_ply(line: &Value) -> Vec<String> {
    let rules = rulebook(line);
    let state = text(line, "state");
    let at = format!("{} {} state {state}", line["board"], line["options"]);
    let (seat, mut issues) = oracle_run::read_and_list(&*rules, &at, &state, &line["legal"]);
    let Some(seat) = seat else { return issues };
    let next = text(line, "next");
    let (after, outcome) = match line["move"].as_str() {
        None => {
            let after = rules.settled(&state).expect("settled");
            let outcome = rules.outcome(&[], &after).expect("outcome");
            (after, outcome)
        }
        Some(_) => {
            let written = text(line, "written");
            match rules.resolve(&[], &state, &[(seat, written.clone())]) {
                Ok(r) => (r.state, r.outcome),
                Err(e) => return vec![format!("{at}: {written} refused: {e}")],
            }
        }
    };
    if after != next {
        issues.push(format!("{at}: after {} the engine has {after} and the oracle {next}", line["written"]));
    }
    if outcome_json(outcome) != line["outcome"] {
        issues.push(format!(
            "{at}: after {} the engine's outcome is {}, the oracle's {}",
            line["written"],
            outcome_json(outcome),
            line["outcome"]
        ));
    }
    issues
}

fn games(args: &[&str], at_least: usize) {
    let lines = oracle(args);
    assert!(lines.len() >= at_least, "only {} plies", lines.len());
    let stuck = lines.iter().filter(|l| l["move"].is_null()).count();
    assert!(stuck > 0, "no position whose seat to move cannot move");
    oracle_run::agree(&lines, compare_ply);
}

fn perft(depth: &str) {
    let lines = oracle(&["perft", "--depth", depth]);
    let mut issues = Vec::new();
    for line in &lines {
        let rules = rulebook(line);
        let state = rules.settled(&text(line, "state")).expect("state");
        let depth = line["depth"].as_u64().expect("depth") as u32;
        let nodes = line["nodes"].as_u64().expect("nodes");
        match rules.perft(&state, depth) {
            Ok(n) if n == nodes => {}
            other => issues.push(format!(
                "{} {} {state} perft {depth}: oracle {nodes}, engine {other:?}",
                line["board"], line["options"]
            )),
        }
    }
    assert!(lines.len() >= 100, "only {} perft lines", lines.len());
    assert!(issues.is_empty(), "{}", issues.join("\n"));
}

#[test]
fn perft_agrees_with_the_oracle() {
    perft("3");
}

#[test]
fn random_games_agree_with_the_oracle() {
    games(&["--seed", "20261125", "--games", "1", "--plies", "150"], 3000);
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn perft_agrees_with_the_oracle_to_depth_4() {
    perft("4");
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn many_random_games_agree_with_the_oracle() {
    for seed in ["1", "2", "3", "4", "5"] {
        games(&["--seed", seed, "--games", "3", "--plies", "400"], 10_000);
    }
}
