//! The Vierschach engine against an independent implementation of
//! `rules/vierschach.md` (`tools/vierschach_oracle/`, written from the rules file
//! alone, in Python with only its standard library).
//!
//! 1. Perft: the start and three thinned-out start positions, teams and
//!    free-for-all, depths 1–2 (1–3 in the ignored long run).
//! 2. Seeded random games under six option sets, from the start, the thinned
//!    positions and random sparse positions (kings on the edge, a few pieces):
//!    at every ply the state string must read back unchanged, the legal lists must
//!    be equal, and the state and outcome after the oracle's move must agree.
//!
//! Both go through [`DynVariant`], the face the CLI and the steward use.

use fairsteward::rules::VariantId;

use crate::support::oracle_ply;

const ORACLE: &str = "vierschach_oracle/games.py";

fn games(args: &[&str]) {
    oracle_ply::games(ORACLE, VariantId::Vierschach, args);
}

fn perft(depth: &str) {
    oracle_ply::perft(ORACLE, VariantId::Vierschach, depth);
}

#[test]
fn perft_agrees_with_the_oracle() {
    perft("2");
}

#[test]
fn random_games_agree_with_the_oracle() {
    games(&["--seed", "20260801", "--games", "1", "--plies", "50"]);
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn perft_agrees_with_the_oracle_to_depth_3() {
    perft("3");
}

#[test]
#[ignore = "minutes of Python: run with --ignored before a release"]
fn many_random_games_agree_with_the_oracle() {
    for seed in ["1", "2", "3"] {
        games(&["--seed", seed, "--games", "3", "--plies", "300"]);
    }
}
