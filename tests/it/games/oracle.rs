//! The Vierschach and Dreierschach engines against independent implementations
//! of `docs/rules/vierschach.md` and `docs/rules/dreierschach.md` (`tools/vierschach_oracle/`
//! and `tools/dreierschach_oracle/`, each written from its rules file alone, in
//! Python with only its standard library): one table, one row per game.
//!
//! 1. Perft, depths 1–2 (1–3 in the ignored long run). Vierschach: the start and
//!    three thinned-out start positions, teams and free-for-all. Dreierschach: the
//!    start and four thinned-out start positions (no pawns; pawns only; pawns,
//!    rooks and knights; pawns and bishops), under both en-passant rules.
//! 2. Seeded random games, from the start, the thinned positions and random
//!    sparse positions: at every ply the state string must read back unchanged,
//!    the legal lists must be equal, and the state and outcome after the
//!    oracle's move must agree. Vierschach: six option sets, kings on the edge
//!    and a few pieces. Dreierschach: three option sets (the defaults,
//!    `en_passant = next`, `no_progress = 20`), three kings and a few pieces,
//!    the outcome in points.
//!
//! Both go through [`DynVariant`](fairsteward::rules::DynVariant), the face the
//! CLI and the steward use. The 3D chess and Trialectic Dame oracles check more
//! than this and have their own modules (`games::tri_d::oracle`,
//! `games::dame::oracle`); Fairschach's is `games::fairschach::oracle`.

use fairsteward::rules::VariantId;

use crate::support::{oracle_ply, table};

/// One game's oracle and its seeded short run.
struct Row {
    variant: VariantId,
    /// The oracle's script under `tools/`.
    oracle: &'static str,
    /// The default suite's random games.
    short_run: &'static [&'static str],
}

const TABLE: [Row; 2] = [
    Row {
        variant: VariantId::Vierschach,
        oracle: "vierschach_oracle/games.py",
        short_run: &["--seed", "20260801", "--games", "1", "--plies", "50"],
    },
    Row {
        variant: VariantId::Dreierschach,
        oracle: "dreierschach_oracle/games.py",
        short_run: &["--seed", "20261201", "--games", "1", "--plies", "60"],
    },
];

impl Row {
    fn game(&self) -> String {
        format!("{:?}", self.variant)
    }

    fn games(&self, args: &[&str]) {
        oracle_ply::games(self.oracle, self.variant, args);
    }

    fn perft(&self, depth: &str) {
        oracle_ply::perft(self.oracle, self.variant, depth);
    }
}

#[test]
fn perft_agrees_with_the_oracle() {
    table::each(&TABLE, Row::game, |row| row.perft("2"));
}

#[test]
fn random_games_agree_with_the_oracle() {
    table::each(&TABLE, Row::game, |row| row.games(row.short_run));
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn perft_agrees_with_the_oracle_to_depth_3() {
    table::each(&TABLE, Row::game, |row| row.perft("3"));
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn many_random_games_agree_with_the_oracle() {
    table::each(&TABLE, Row::game, |row| {
        for seed in ["1", "2", "3"] {
            row.games(&["--seed", seed, "--games", "3", "--plies", "300"]);
        }
    });
}
