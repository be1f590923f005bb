//! `fairsteward rules dreierschach …` (docs/conformance.md, `docs/rules/dreierschach.md` §10)
//! driven through the real binary: the JSON on stdout, the exit status, and for
//! bad input exit status 2 with one line on stderr.

use crate::support::rules_cli;

use serde_json::{Value, json};

const START: &str = "nRnP2bPbR/nBnP3bPbN/nNnP4bPbB/nKnP5bPbQ/nQnP6bPbK/nBnP7bPbN/nNnP8bPbB/nRnP9bPbR/nP10bP/11/10/wPwPwPwPwPwPwPwPwP/wRwBwNwKwQwBwNwR w a1,a8,f1,f13,m8,m13 - 0 1";
/// §12: after `b7-d9 k6-j8 k12-k10`.
const SAMPLE: &str = "nRnP2bPbR/nBnP3bPbN/1nP2bP2bB/nKnP1nN3bPbQ/nQnP6bPbK/nBnP7bPbN/nNnP8bPbB/nRnP9bPbR/nP10bP/8wP2/10/wPwPwPwPwPwP1wPwP/wRwBwNwKwQwBwNwR w a1,a8,f1,f13,m8,m13 k12-k10 0 2";
/// A smothered mate in six rounds: White's knights go to i6 and h6 while Brown
/// shuts the passage i5→h6 with h4-h5; Brown's king j5, boxed in by its own
/// pieces, is mated by the knight on h6. Black does not attack it: 3-0-1.
const MATE: &str =
    "a3-c2 h4-h5 m12-m11 c2-f4 e1-e2 l12-l11 f4-i6 e2-e3 k12-k11 a7-d8 e3-e4 j12-j11 d8-f7 f2-f3 i12-i11 f7-h6";
const MATED: &str = "nRnP1bP1bR/nBnP2bP1bN/nNnP3bP1bB/nKnP4bP1bQ/nQnPwN4bP1bK/nB1nPwN5bPbN/nNnP8bPbB/nR1nP8bPbR/3nP7bP/11/10/wPwPwPwPwPwPwPwPwP/wRwB1wKwQwB1wR n a1,a8,f1,f13,m8,m13 - 1 6";

fn json_of(args: &[&str]) -> Value {
    rules_cli::json_of("dreierschach", args)
}

#[track_caller]
fn refused(args: &[&str], phrases: &[&str]) {
    rules_cli::refused("dreierschach", args, phrases)
}

#[test]
fn start_prints_the_rules_files_start_state() {
    assert_eq!(json_of(&["start"]), json!(START));
    assert_eq!(json_of(&["start", "--names", "v2.3", "--en-passant", "next"]), json!(START), "always V2.2");
}

#[test]
fn legal_lists_the_44_first_moves_sorted_by_byte_value() {
    let moves = json_of(&["legal", "--state", START]);
    let moves: Vec<&str> = moves.as_array().expect("array").iter().map(|m| m.as_str().expect("string")).collect();
    assert_eq!(moves.len(), 44);
    assert!(moves.is_sorted(), "{moves:?}");
    assert_eq!(&moves[..8], ["a3-c2", "a3-c6", "a3-d4", "a3-d5", "a7-c10", "a7-c6", "a7-d8", "a7-d9"]);
    assert_eq!(json_of(&["legal"]), json!(moves), "the start state by default");
    // A seat not to move is told so (issue 32).
    rules_cli::none_legal("dreierschach", &["legal", "--side", "brown"], &["brown is not to move", "white to move"]);
    // Canonical moves keep V2.2 names under any option.
    assert_eq!(json_of(&["legal", "--names", "v2.3"]), json!(moves));
}

#[test]
fn play_reads_every_notation_and_gives_state_and_outcome() {
    let v = json_of(&["play", "--state", START, "--moves", "b7-d9 k6-j8 k12-k10"]);
    assert_eq!(v, json!({"state": SAMPLE, "outcome": null}));
    assert_eq!(json_of(&["play", "--moves", "7d9 Sj8 k12xk10"])["state"], json!(SAMPLE));
    // `12k10` names two pawns: refused as ambiguous, with both.
    refused(&["play", "--moves", "7d9 Sj8 12k10"], &["ambiguous", "k12-k10", "m12-k10"]);
    // V2.3 names: b7-d9 is g2-i4, k6-j8 is f11-h10, k12-k10 is l11-j11.
    assert_eq!(json_of(&["play", "--names", "v2.3", "--moves", "g2-i4 f11-h10 l11-j11"])["state"], json!(SAMPLE));
}

#[test]
fn play_to_a_mate_scores_3_1_0() {
    let v = json_of(&["play", "--moves", MATE]);
    assert_eq!(v, json!({"state": MATED, "outcome": {"result": "3-0-1", "reason": "checkmate"}}));
    refused(&["play", "--moves", &format!("{MATE} e4-e5")], &["the game is already over", "3-0-1", "checkmate"]);
    assert_eq!(json_of(&["legal", "--state", MATED]), json!([]), "the mated seat has no move");
}

#[test]
fn perft_counts_to_the_rules_files_figures() {
    for (depth, nodes) in [("0", 1), ("1", 44), ("2", 1_930), ("3", 84_348)] {
        assert_eq!(json_of(&["perft", "--state", START, "--depth", depth]), json!(nodes), "depth {depth}");
    }
    assert_eq!(json_of(&["perft", "--state", SAMPLE, "--depth", "2"]), json!(2_202));
}

#[test]
fn options_are_flags() {
    // After White's b5-d5, Brown passes: Black may take en passant only by default.
    let after = "6/7/8/1nK7/9bK/11/12/13/5bP6/3nPwP6/10/9/7wK b - b5-d5 1 1";
    assert_eq!(
        json_of(&["legal", "--state", after]),
        json!(["e6-c5", "e6-d4", "e6-e5", "i13-g12", "i13-h11", "i13-h12", "i13-h13", "i13-i12", "i13-j12", "i13-j13"])
    );
    refused(&["legal", "--state", after, "--en-passant", "next"], &["only the last mover's entry is live"]);
    let quiet = "6/7/8/nK8/9bK/11/12/13/4wR7/11/10/9/3wK4 w - - 149 50";
    assert_eq!(
        json_of(&["play", "--state", quiet, "--moves", "e5-e6", "--no-progress", "150"])["outcome"],
        json!({"result": "1-1-1", "reason": "no progress"})
    );
    assert_eq!(json_of(&["play", "--state", quiet, "--moves", "e5-e6"])["outcome"], Value::Null);
    refused(&["start", "--en-passant", "never"], &["en_passant", "round or next"]);
    refused(&["start", "--names", "v3"], &["names", "v2.2 or v2.3"]);
    refused(&["start", "--mode", "ffa"], &["dreierschach has no option \"mode\""]);
    refused(&["start", "--no-progress", "0"], &["no_progress"]);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    refused(&["legal", "--state", "not a state"], &["invalid dreierschach state", "6 fields"]);
    refused(&["legal", "--state", &START.replace("/11/", "/12/")], &["row d", "covers 12 cells, it has 11"]);
    refused(&["play", "--moves", "b1-e1"], &["not legal"]);
    refused(&["play", "--moves", "a7-c6x"], &["not a move"]);
    refused(&["play", "--moves", "a7-n1"], &["not a move"]);
    refused(&["play", "--moves", "O-O"], &["castling is not possible"]);
    refused(&["play", "--moves", "La2-c3"], &["bishop on a2 cannot move to c3"]);
    refused(&["perft", "--state", "x", "--depth", "1"], &["invalid dreierschach state"]);
    refused(&["legal", "--side", "gray"], &["no seat", "white, brown, black"]);
}
