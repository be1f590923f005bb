//! `fairsteward rules <variant> …` through the real binary, for the variants'
//! conformance tests: the one line of JSON on stdout, or a refusal (exit status
//! 2, nothing on stdout, one line on stderr).

use std::process::{Command, Output};

use serde_json::Value;

/// Runs the binary with `args`.
pub fn fairsteward(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairsteward")).args(args).output().expect("the fairsteward binary runs")
}

/// `fairsteward rules <variant> <args>`: must succeed with one line of JSON.
#[track_caller]
pub fn json_of(variant: &str, args: &[&str]) -> Value {
    let mut full = vec!["rules", variant];
    full.extend_from_slice(args);
    let out = fairsteward(&full);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{full:?} failed: {stderr}");
    assert!(stderr.is_empty(), "{full:?} wrote to stderr: {stderr}");
    assert_eq!(stdout.trim_end().lines().count(), 1, "one line of JSON: {stdout:?}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{full:?}: not JSON ({e}): {stdout}"))
}

/// Exit status 2, nothing on stdout, one line on stderr naming every phrase
/// (in any case).
#[track_caller]
pub fn refused(variant: &str, args: &[&str], phrases: &[&str]) {
    let mut full = vec!["rules", variant];
    full.extend_from_slice(args);
    let out = fairsteward(&full);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{full:?}: exit status 2 expected; stderr: {stderr}");
    assert!(stdout.is_empty(), "{full:?}: stdout {stdout:?}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{full:?}: one line on stderr, got {stderr:?}");
    for phrase in phrases {
        assert!(lines[0].to_lowercase().contains(&phrase.to_lowercase()), "{full:?}: {phrase:?} not in {:?}", lines[0]);
    }
}

/// `legal` for a seat not to move: the empty list on stdout (what the
/// conformance interface answers) and one line on stderr saying why, naming
/// every phrase (issue 32).
#[track_caller]
pub fn none_legal(variant: &str, args: &[&str], phrases: &[&str]) {
    let mut full = vec!["rules", variant];
    full.extend_from_slice(args);
    let out = fairsteward(&full);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{full:?} failed: {stderr}");
    assert_eq!(serde_json::from_str::<Value>(&stdout).ok(), Some(Value::Array(Vec::new())), "{full:?}: {stdout}");
    for phrase in phrases {
        assert!(stderr.to_lowercase().contains(&phrase.to_lowercase()), "{full:?}: {phrase:?} not in {stderr:?}");
    }
}
