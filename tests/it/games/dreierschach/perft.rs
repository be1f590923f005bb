//! Dreierschach perft through the rulebook the steward and the CLI use.
//!
//! Positions and node counts live in `tests/it/games/data/dreierschach.perft` (format at its
//! top); the counts of depth 1–3 were also computed by the independent oracle in
//! `tools/dreierschach_oracle/`. Counts up to [`QUICK_NODES`] run by default; the
//! larger ones (depth 4 and the start to depth 5) are `#[ignore]`d: run them with
//! `cargo test --release --test it games::dreierschach::perft -- --ignored`.
//!
//! Each position is also read back: its state string must come out unchanged.

use crate::support as common;

use common::perft_data::{Case, check};
use fairsteward::rules::VariantId;

const DATA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/dreierschach.perft"));

/// Counts up to this many nodes run in the default suite.
const QUICK_NODES: u64 = 1_000_000;

fn cases() -> Vec<Case> {
    common::perft_data::cases("dreierschach.perft", DATA)
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
    assert!(check(VariantId::Dreierschach, &cases(), |_, n| n <= QUICK_NODES) >= 30);
}

#[test]
#[ignore = "millions of nodes: run in release with --ignored"]
fn perft_deep_counts() {
    check(VariantId::Dreierschach, &cases(), |_, n| n > QUICK_NODES);
}
