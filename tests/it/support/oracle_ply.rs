//! One ply of an oracle's random game (`tools/*_oracle/`), compared with the
//! engine through [`DynVariant`]: the state reads back unchanged, the legal
//! lists are equal, and the state and outcome after the oracle's move agree.

use fairsteward::rules::{DynVariant, Options, VariantId};
use serde_json::Value;

use super::oracle_run;

/// `variant`'s rulebook with the options of an oracle line (`{"name": "value"}`).
pub fn rulebook(variant: VariantId, options: &Value) -> Box<dyn DynVariant> {
    let mut o = Options::new();
    for (k, v) in options.as_object().expect("options object") {
        o = o.set(k, v.as_str().expect("option value"));
    }
    variant.rulebook(&o).unwrap_or_else(|e| panic!("{options}: {e}"))
}

/// Runs the oracle's random games (`tools/<script>` with `args`, more than
/// 1000 plies) and compares every ply with `variant` under the ply's options.
#[track_caller]
pub fn games(script: &str, variant: VariantId, args: &[&str]) {
    let lines = oracle_run::lines(script, args);
    assert!(lines.len() > 1000, "only {} plies", lines.len());
    oracle_run::agree(&lines, |line| {
        compare(&*rulebook(variant, &line["options"]), line, &format!("options {}", line["options"]))
    });
}

/// Runs the oracle's perft (`tools/<script> perft --depth <depth>`) and
/// compares each position's count with `variant`'s under its options.
#[track_caller]
pub fn perft(script: &str, variant: VariantId, depth: &str) {
    let mut issues = Vec::new();
    for line in &oracle_run::lines(script, &["perft", "--depth", depth]) {
        let rules = rulebook(variant, &line["options"]);
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

/// The string at `key` of `v`.
pub fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_else(|| panic!("{key} in {v}")).to_owned()
}

/// What disagrees in the ply `line` (`state`, `legal`, `move`, `next`,
/// `outcome` as the scores in seat order); `at` names the game's options.
pub fn compare(rules: &dyn DynVariant, line: &Value, at: &str) -> Vec<String> {
    let state = text(line, "state");
    let mut issues = Vec::new();
    let at = format!("{at} state {state}");
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
            let outcome = r.outcome.map(|o| o.result.score_text(rules.seat_names().len()));
            let expected = line["outcome"].as_str().map(str::to_owned);
            if outcome != expected {
                issues.push(format!("{at}: after {mv} the engine's outcome is {outcome:?}, the oracle's {expected:?}"));
            }
        }
        Err(e) => issues.push(format!("{at}: {mv} refused: {e}")),
    }
    issues
}
