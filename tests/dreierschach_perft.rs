//! Dreierschach perft through the rulebook the steward and the CLI use.
//!
//! Positions and node counts live in `tests/data/dreierschach.perft` (format at its
//! top); the counts of depth 1–3 were also computed by the independent oracle in
//! `tools/dreierschach_oracle/`. Counts up to [`QUICK_NODES`] run by default; the
//! larger ones (depth 4 and the start to depth 5) are `#[ignore]`d: run them with
//! `cargo test --release --test dreierschach_perft -- --ignored`.
//!
//! Each position is also read back: its state string must come out unchanged.

use std::thread;

use fairsteward::rules::{DynVariant, Options, VariantId};

const DATA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/dreierschach.perft"));

/// Counts up to this many nodes run in the default suite.
const QUICK_NODES: u64 = 1_000_000;

#[derive(Debug)]
struct Case {
    id: String,
    state: String,
    options: Options,
    counts: Vec<(u32, u64)>,
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (i, raw) in DATA.lines().enumerate() {
        let n = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let case = cases.last_mut();
        match (key, case) {
            ("id", _) => cases.push(Case {
                id: rest.to_owned(),
                state: String::new(),
                options: Options::new(),
                counts: Vec::new(),
            }),
            ("state", Some(c)) => rest.clone_into(&mut c.state),
            ("options", Some(c)) => {
                for kv in rest.split_whitespace() {
                    let (k, v) = kv.split_once('=').unwrap_or_else(|| panic!("dreierschach.perft:{n}: {kv:?}"));
                    c.options = std::mem::take(&mut c.options).set(k, v);
                }
            }
            ("perft", Some(c)) => {
                let mut f = rest.split_whitespace().map(|x| x.parse::<u64>().expect("a number"));
                let (Some(d), Some(nodes), None) = (f.next(), f.next(), f.next()) else {
                    panic!("dreierschach.perft:{n}: expected `perft <depth> <nodes>`");
                };
                c.counts.push((d as u32, nodes));
            }
            _ => panic!("dreierschach.perft:{n}: unexpected line {raw:?}"),
        }
    }
    assert!(cases.iter().all(|c| !c.state.is_empty() && !c.counts.is_empty()), "every case has a state and counts");
    cases
}

/// Runs the counts `wanted` selects, one thread per position; fails with every
/// mismatch at once.
fn check(wanted: impl Fn(u32, u64) -> bool + Sync) -> usize {
    let cases = cases();
    let (checked, failures): (Vec<usize>, Vec<Vec<String>>) = thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|case| {
                let wanted = &wanted;
                s.spawn(move || {
                    let rules: Box<dyn DynVariant> =
                        VariantId::Dreierschach.rulebook(&case.options).unwrap_or_else(|e| panic!("{}: {e}", case.id));
                    let mut failures = Vec::new();
                    match rules.canonical_state(&case.state) {
                        Ok(s) if s == case.state => {}
                        other => failures.push(format!("{}: state reads back as {other:?}", case.id)),
                    }
                    let mut checked = 0;
                    for &(depth, nodes) in case.counts.iter().filter(|(d, n)| wanted(*d, *n)) {
                        checked += 1;
                        match rules.perft(&case.state, depth) {
                            Ok(n) if n == nodes => {}
                            other => {
                                failures.push(format!("{} perft {depth}: expected {nodes}, got {other:?}", case.id))
                            }
                        }
                    }
                    (checked, failures)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("perft thread")).unzip()
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked.into_iter().sum()
}

#[test]
fn data_file_has_the_rules_files_figures() {
    let cases = cases();
    let start = cases.iter().find(|c| c.id == "start").expect("a start case");
    for figure in [(1, 44), (2, 1_930)] {
        assert!(start.counts.contains(&figure), "rules/dreierschach.md §12: perft {figure:?}");
    }
    assert!(cases.len() >= 10, "{} positions", cases.len());
}

#[test]
fn perft_quick_counts() {
    assert!(check(|_, n| n <= QUICK_NODES) >= 30);
}

#[test]
#[ignore = "millions of nodes: run in release with --ignored"]
fn perft_deep_counts() {
    check(|_, n| n > QUICK_NODES);
}
