//! Vierschach perft through the rulebook the steward and the CLI use.
//!
//! Positions and node counts live in `tests/it/games/data/vierschach.perft` (format at its
//! top); the counts of depth 1–4 were also computed by the independent oracle in
//! `tools/vierschach_oracle/`. Counts up to [`QUICK_NODES`] run by default; the
//! larger ones (the start to depth 5 and 6) are `#[ignore]`d: run them with
//! `cargo test --release --test it games::perft -- --ignored`.
//!
//! Each position is also read back: its state string must come out unchanged.

use crate::support as common;

use common::perft_data::{Case, check};
use fairsteward::rules::VariantId;

const DATA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/vierschach.perft"));

/// Counts up to this many nodes run in the default suite.
const QUICK_NODES: u64 = 1_000_000;

fn cases() -> Vec<Case> {
    common::perft_data::cases("vierschach.perft", DATA)
}

#[test]
fn data_file_has_the_rules_files_figures() {
    let cases = cases();
    let start = cases.iter().find(|c| c.id == "start").expect("a start case");
    for figure in [(1, 20), (2, 395), (3, 7_800)] {
        assert!(start.counts.contains(&figure), "rules/vierschach.md §13: perft {figure:?}");
    }
    assert!(cases.len() >= 15, "{} positions", cases.len());
}

#[test]
fn perft_quick_counts() {
    assert!(check(VariantId::Vierschach, &cases(), |_, n| n <= QUICK_NODES) >= 50);
}

#[test]
#[ignore = "millions of nodes: run in release with --ignored"]
fn perft_deep_counts() {
    check(VariantId::Vierschach, &cases(), |_, n| n > QUICK_NODES);
}
