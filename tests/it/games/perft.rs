//! Perft of the games whose positions and node counts live in a data file
//! (`tests/it/games/data/<game>.perft`, format at each file's top), through the
//! rulebook the steward and the CLI use: one table, one row per game.
//!
//! - Vierschach: the counts of depth 1–4 were also computed by the independent
//!   oracle in `tools/vierschach_oracle/`; the larger ones (the start to depth 5
//!   and 6) are in the ignored deep run.
//! - Dreierschach: the counts of depth 1–3 were also computed by
//!   `tools/dreierschach_oracle/`; depth 4 and the start to depth 5 are in the
//!   ignored deep run.
//! - 3D chess: the start to depth 5 and positions with attack-board moves,
//!   castling, en passant, pending, corner and carried promotions. Counts up to
//!   depth 3 (and the start's depth 4) were also computed by
//!   `tools/tri_d_oracle/` (`games::tri_d::oracle` compares them again).
//!
//! Counts up to a row's `quick_nodes` run by default; the larger ones are
//! `#[ignore]`d: run them with
//! `cargo test --release --test it games::perft -- --ignored`.
//!
//! Each position is also read back: its state string must come out unchanged.
//! Chess perft, checked against shakmaty as well, is `games::chess::perft`.

use crate::support::perft_data::{Case, cases, check};
use crate::support::table;
use fairsteward::rules::VariantId;

/// One game's data file and what its run must show.
struct Row {
    variant: VariantId,
    /// The data file's name, for messages.
    file: &'static str,
    data: &'static str,
    /// Counts up to this many nodes run in the default suite.
    quick_nodes: u64,
    /// The file holds at least this many positions.
    min_cases: usize,
    /// The quick run checks at least this many counts.
    min_quick: usize,
    /// The rules file's perft figures of the start, with where they are stated.
    figures: Option<(&'static str, &'static [(u32, u64)])>,
}

const TABLE: [Row; 3] = [
    Row {
        variant: VariantId::Vierschach,
        file: "vierschach.perft",
        data: include_str!("data/vierschach.perft"),
        quick_nodes: 1_000_000,
        min_cases: 15,
        min_quick: 50,
        figures: Some(("docs/rules/vierschach.md §13", &[(1, 20), (2, 395), (3, 7_800)])),
    },
    Row {
        variant: VariantId::Dreierschach,
        file: "dreierschach.perft",
        data: include_str!("data/dreierschach.perft"),
        quick_nodes: 1_000_000,
        min_cases: 10,
        min_quick: 30,
        figures: Some(("docs/rules/dreierschach.md §12", &[(1, 44), (2, 1_930)])),
    },
    Row {
        variant: VariantId::TriDChess,
        file: "tri-d-chess.perft",
        data: include_str!("data/tri-d-chess.perft"),
        quick_nodes: 300_000,
        min_cases: 8,
        min_quick: 20,
        figures: None,
    },
];

impl Row {
    fn game(&self) -> String {
        format!("{:?}", self.variant)
    }

    fn cases(&self) -> Vec<Case> {
        let cases = cases(self.file, self.data);
        assert!(cases.len() >= self.min_cases, "{} positions", cases.len());
        cases
    }
}

#[test]
fn data_files_have_the_rules_files_figures() {
    table::each(&TABLE, Row::game, |row| {
        let Some((rules, figures)) = row.figures else { return };
        let cases = row.cases();
        let start = cases.iter().find(|c| c.id == "start").expect("a start case");
        for figure in figures {
            assert!(start.counts.contains(figure), "{rules}: perft {figure:?}");
        }
    });
}

#[test]
fn perft_quick_counts() {
    table::each(&TABLE, Row::game, |row| {
        let checked = check(row.variant, &row.cases(), |_, n| n <= row.quick_nodes);
        assert!(checked >= row.min_quick, "only {checked} counts");
    });
}

#[test]
#[ignore = "millions of nodes, seconds in release and minutes in debug: run in release with --ignored"]
fn perft_deep_counts() {
    table::each(&TABLE, Row::game, |row| {
        check(row.variant, &row.cases(), |_, n| n > row.quick_nodes);
    });
}
