//! The engine against an independent implementation of `docs/rules/fairschach.md`
//! (`tools/fairschach_oracle/`, written from the rules file alone, in Python with
//! only its standard library): the hand-built corner cases, and a seeded run of
//! random games under every pause option and `normal_below` setting. Each pair's
//! FEN, statuses, outcome and both legal lists must agree.

use std::path::Path;
use std::process::Command;

fn oracle(args: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // A directory of this call's own: both tests run the oracle at once in this process.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("fairschach-diff.jsonl");
    let output = Command::new("python3")
        .arg(root.join("tools/fairschach_oracle/diff.py"))
        .args(["--bin", env!("CARGO_BIN_EXE_fairsteward"), "--out"])
        .arg(&out)
        .args(args)
        .output()
        .expect("python3 runs (scripts/test installs it)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let issues = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(output.status.success(), "the oracle disagrees:\n{stdout}\n{stderr}\n{issues}");
    assert!(stdout.contains(" agreed, 0 disagreed") || stdout.contains("0 discrepancies"), "{stdout}");
}

#[test]
fn hand_built_corner_cases_agree() {
    oracle(&["--cases"]);
}

#[test]
fn random_games_agree_for_every_option_set() {
    oracle(&["--games", "3", "--pairs", "60", "--seed", "20261122"]);
}
