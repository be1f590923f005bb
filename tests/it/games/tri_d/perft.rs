//! 3D chess perft through the rulebook the steward and the CLI use.
//!
//! Positions and node counts live in `tests/it/games/data/tri-d-chess.perft` (format at
//! its top): the start to depth 5 and positions with attack-board moves,
//! castling, en passant, pending, corner and carried promotions. Counts up to
//! depth 3 (and the start's depth 4) were also computed by the independent
//! oracle in `tools/tri_d_oracle/` (`tests/it/games/tri_d/oracle.rs` compares them
//! again). Counts up to [`QUICK_NODES`] run by default; the larger ones are
//! `#[ignore]`d: run them with `cargo test --release --test it games::tri_d::perft -- --ignored`.
//!
//! Each position is also read back: its state string must come out unchanged.

use crate::support as common;

use common::perft_data::{Case, check};
use fairsteward::rules::VariantId;

const DATA: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/tri-d-chess.perft"));

/// Counts up to this many nodes run in the default suite.
const QUICK_NODES: u64 = 300_000;

fn cases() -> Vec<Case> {
    let cases = common::perft_data::cases("tri-d-chess.perft", DATA);
    assert!(cases.len() >= 8);
    cases
}

#[test]
fn perft_counts_of_the_data_file() {
    assert!(check(VariantId::TriDChess, &cases(), |_, n| n <= QUICK_NODES) >= 20);
}

#[test]
#[ignore = "seconds in release, minutes in debug: run with --ignored"]
fn perft_counts_of_the_data_file_in_full() {
    check(VariantId::TriDChess, &cases(), |_, n| n > QUICK_NODES);
}
