//! 3D chess perft through the rulebook the steward and the CLI use.
//!
//! Positions and node counts live in `tests/data/tri-d-chess.perft` (format at
//! its top): the start to depth 5 and positions with attack-board moves,
//! castling, en passant, pending, corner and carried promotions. Counts up to
//! depth 3 (and the start's depth 4) were also computed by the independent
//! oracle in `tools/tri_d_oracle/` (`tests/tri_d_oracle.rs` compares them
//! again). Counts up to [`QUICK_NODES`] run by default; the larger ones are
//! `#[ignore]`d: run them with `cargo test --release --test tri_d_perft -- --ignored`.
//!
//! Each position is also read back: its state string must come out unchanged.

use fairsteward::rules::{DynVariant, Options, VariantId};

#[path = "common/perft_file.rs"]
mod perft_file;

const DATA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tri-d-chess.perft"));

/// Counts up to this many nodes run in the default suite.
const QUICK_NODES: u64 = 300_000;

fn check(wanted: impl Fn(u64) -> bool) -> usize {
    let rules: Box<dyn DynVariant> = VariantId::TriDChess.rulebook(&Options::new()).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    let cases = perft_file::cases(DATA);
    assert!(cases.len() >= 8);
    for perft_file::Case { id, state, counts } in cases {
        match rules.canonical_state(&state) {
            Ok(s) if s == state => {}
            other => failures.push(format!("{id}: reads back as {other:?}")),
        }
        for (depth, nodes) in counts.into_iter().filter(|&(_, n)| wanted(n)) {
            match rules.perft(&state, depth) {
                Ok(n) if n == nodes => {}
                other => failures.push(format!("{id} perft {depth}: expected {nodes}, got {other:?}")),
            }
            checked += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn perft_counts_of_the_data_file() {
    assert!(check(|n| n <= QUICK_NODES) >= 20);
}

#[test]
#[ignore = "seconds in release, minutes in debug: run with --ignored"]
fn perft_counts_of_the_data_file_in_full() {
    check(|n| n > QUICK_NODES);
}
