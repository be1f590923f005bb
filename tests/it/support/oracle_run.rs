//! Running an independent Python oracle of `tools/` (standard library only) and
//! comparing its JSON lines with the engine, for the variants' oracle tests.

use std::path::Path;
use std::process::Command;

use fairsteward::rules::{DynVariant, Seat};
use serde_json::Value;

/// Runs `tools/<script>` with `args`; its stdout as JSON values, one a line.
pub fn lines(script: &str, args: &[&str]) -> Vec<Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .arg(root.join("tools").join(script))
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

/// Compares every line with `compare` (which returns what disagrees) and fails
/// with the first ten disagreements, if any.
#[track_caller]
pub fn agree(lines: &[Value], compare: impl Fn(&Value) -> Vec<String>) {
    let issues: Vec<String> = lines.iter().flat_map(compare).collect();
    assert!(
        issues.is_empty(),
        "{} disagreements in {} lines; the first:\n{}",
        issues.len(),
        lines.len(),
        issues.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// The legal lists of engine and oracle, or what differs between them.
pub fn same_moves(at: &str, engine: &[String], oracle: &Value) -> Result<(), String> {
    let expected: Vec<String> =
        oracle.as_array().expect("legal").iter().map(|m| m.as_str().expect("move").to_owned()).collect();
    if engine == expected {
        return Ok(());
    }
    let missing: Vec<&String> = expected.iter().filter(|m| !engine.contains(m)).collect();
    let extra: Vec<&String> = engine.iter().filter(|m| !expected.contains(m)).collect();
    Err(format!("{at}: legal moves differ; engine lacks {missing:?}, engine adds {extra:?}"))
}

/// The first checks of an oracle ply: `state` reads back unchanged and the
/// legal lists of its seat to move agree. The seat, or what disagrees.
pub fn read_and_list(rules: &dyn DynVariant, at: &str, state: &str, legal: &Value) -> (Option<Seat>, Vec<String>) {
    let mut issues = Vec::new();
    match rules.canonical_state(state) {
        Ok(s) if s == state => {}
        Ok(s) => issues.push(format!("{at}: reads back as {s}")),
        Err(e) => return (None, vec![format!("{at}: refused: {e}")]),
    }
    let seat = rules.seats_to_move(state).expect("state").iter().next().expect("a seat to move");
    let engine = rules.legal_moves(state, seat).expect("legal");
    match same_moves(at, &engine, legal) {
        Ok(()) => (Some(seat), issues),
        Err(differ) => {
            issues.push(differ);
            (None, issues)
        }
    }
}
