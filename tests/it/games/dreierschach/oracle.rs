//! The Dreierschach engine against an independent implementation of
//! `rules/dreierschach.md` (`tools/dreierschach_oracle/`, written from the rules file
//! alone, in Python with only its standard library).
//!
//! 1. Perft: the start and four thinned-out start positions (no pawns; pawns
//!    only; pawns, rooks and knights; pawns and bishops), under both en-passant
//!    rules, depths 1–2 (1–3 in the ignored long run).
//! 2. Seeded random games under three option sets (the defaults, `en_passant =
//!    next`, `no_progress = 20`), from the start, the thinned positions and random
//!    sparse positions (three kings and a few pieces): at every ply the state
//!    string must read back unchanged, the legal lists must be equal, and the
//!    state and the outcome (in points) after the oracle's move must agree.
//!
//! Both go through [`DynVariant`], the face the CLI and the steward use.

use crate::support::oracle_ply;

use fairsteward::rules::VariantId;

const ORACLE: &str = "dreierschach_oracle/games.py";

fn games(args: &[&str]) {
    oracle_ply::games(ORACLE, VariantId::Dreierschach, args);
}

fn perft(depth: &str) {
    oracle_ply::perft(ORACLE, VariantId::Dreierschach, depth);
}

#[test]
fn perft_agrees_with_the_oracle() {
    perft("2");
}

#[test]
fn random_games_agree_with_the_oracle() {
    games(&["--seed", "20261201", "--games", "1", "--plies", "60"]);
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
