//! Perft data files (`tests/it/games/data/<variant>.perft`): their reading and their run
//! through the rulebook the steward and the CLI use. The format is at the top of
//! each file: `id`, `state`, `options` and `perft <depth> <nodes>` lines.

use std::thread;

use fairsteward::rules::{DynVariant, Options, VariantId};

/// One position of a data file.
#[derive(Debug)]
pub struct Case {
    pub id: String,
    pub state: String,
    pub options: Options,
    pub counts: Vec<(u32, u64)>,
}

/// The positions of the data file `data` (named `file` in messages).
pub fn cases(file: &str, data: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (i, raw) in data.lines().enumerate() {
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
                    let (k, v) = kv.split_once('=').unwrap_or_else(|| panic!("{file}:{n}: {kv:?}"));
                    c.options = std::mem::take(&mut c.options).set(k, v);
                }
            }
            ("perft", Some(c)) => {
                let mut f = rest.split_whitespace().map(|x| x.parse::<u64>().expect("a number"));
                let (Some(d), Some(nodes), None) = (f.next(), f.next(), f.next()) else {
                    panic!("{file}:{n}: expected `perft <depth> <nodes>`");
                };
                c.counts.push((d as u32, nodes));
            }
            _ => panic!("{file}:{n}: unexpected line {raw:?}"),
        }
    }
    assert!(cases.iter().all(|c| !c.state.is_empty() && !c.counts.is_empty()), "every case has a state and counts");
    cases
}

/// Runs the counts `wanted` selects of `variant`'s `cases`, one thread per
/// position, each state read back first; fails with every mismatch at once.
/// Returns how many counts ran.
pub fn check(variant: VariantId, cases: &[Case], wanted: impl Fn(u32, u64) -> bool + Sync) -> usize {
    let (checked, failures): (Vec<usize>, Vec<Vec<String>>) = thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|case| {
                let wanted = &wanted;
                s.spawn(move || {
                    let rules: Box<dyn DynVariant> =
                        variant.rulebook(&case.options).unwrap_or_else(|e| panic!("{}: {e}", case.id));
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
