//! `fairsteward rules vierschach …` (docs/conformance.md, `docs/rules/vierschach.md` §11) driven
//! through the real binary: the JSON on stdout, the exit status, and for bad input
//! exit status 2 with one line on stderr.

use crate::support::rules_cli;

use serde_json::{Value, json};

const START: &str = "nRnNnBnKnQnBnNnR/nPnPnPnPnPnPnPnP/8/wRwP10ePeR/wNwP10ePeN/wBwP10ePeB/wQwP10ePeK/wKwP10ePeQ/wBwP10ePeB/wNwP10ePeN/wRwP10ePeR/8/sPsPsPsPsPsPsPsP/sRsNsBsQsKsBsNsR s d1,k1,a4,n4,a11,n11,d14,k14 - aaaa 0 1";
/// `docs/rules/vierschach.md` §13: the state after `d2-d4`.
const AFTER_D4: &str = "nRnNnBnKnQnBnNnR/nPnPnPnPnPnPnPnP/8/wRwP10ePeR/wNwP10ePeN/wBwP10ePeB/wQwP10ePeK/wKwP10ePeQ/wBwP10ePeB/wNwP10ePeN/wRwP1sP8ePeR/8/1sPsPsPsPsPsPsP/sRsNsBsQsKsBsNsR w d1,k1,a4,n4,a11,n11,d14,k14 d3 aaaa 0 1";
/// West frozen; North's d9-n9 mates East and wins the game for South and North.
const TEAM_WIN: &str = "3nK4/8/8/12nR1/14/3nR10/14/14/14/14/wK12eK/8/8/4sK3 n - - amaa 0 1";

fn json_of(args: &[&str]) -> Value {
    rules_cli::json_of("vierschach", args)
}

#[track_caller]
fn refused(args: &[&str], phrases: &[&str]) {
    rules_cli::refused("vierschach", args, phrases)
}

#[test]
fn start_prints_the_rules_files_start_state() {
    assert_eq!(json_of(&["start"]), json!(START));
    assert_eq!(json_of(&["start", "--mode", "ffa"]), json!(START));
}

#[test]
fn legal_lists_canonical_moves_sorted_by_byte_value() {
    let expected = [
        "d2-d3", "d2-d4", "e1-d3", "e1-f3", "e2-e3", "e2-e4", "f2-f3", "f2-f4", "g2-g3", "g2-g4", "h2-h3", "h2-h4",
        "i2-i3", "i2-i4", "j1-i3", "j1-k3", "j2-j3", "j2-j4", "k2-k3", "k2-k4",
    ];
    assert_eq!(json_of(&["legal", "--state", START]), json!(expected));
    assert_eq!(json_of(&["legal"]), json!(expected), "the start state by default");
    let west = json_of(&["legal", "--state", AFTER_D4]);
    let west: Vec<&str> = west.as_array().expect("array").iter().map(|m| m.as_str().expect("string")).collect();
    assert_eq!(west.len(), 19);
    assert!(west.is_sorted(), "{west:?}");
    assert!(west.contains(&"a10-c11") && west.contains(&"b4-c4") && !west.contains(&"b4-d4"), "{west:?}");
    // A seat not to move is told so (issue 32).
    rules_cli::none_legal(
        "vierschach",
        &["legal", "--state", AFTER_D4, "--side", "south"],
        &["south is not to move", "west to move"],
    );
}

#[test]
fn play_gives_state_and_outcome() {
    let v = json_of(&["play", "--state", START, "--moves", "d2-d4"]);
    assert_eq!(v, json!({"state": AFTER_D4, "outcome": null}));
    let keys: Vec<&String> = v.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["state", "outcome"]);
    // Any accepted notation: SAN-like, German letters, marks.
    let v = json_of(&["play", "--moves", "d4 c4 Sf12 m4-l4 Sj1-i3+"]);
    assert_eq!(v["outcome"], Value::Null);
    assert!(v["state"].as_str().expect("state").contains(" w "), "{v}");
}

#[test]
fn play_reports_a_team_victory() {
    let v = json_of(&["play", "--state", TEAM_WIN, "--moves", "Rn9"]);
    assert_eq!(
        v,
        json!({
            "state": "3nK4/8/8/12nR1/14/13nR/14/14/14/14/wK12eK/8/8/4sK3 e - - amam 1 1",
            "outcome": {"result": "1-0-1-0", "reason": "checkmate"}
        })
    );
    refused(
        &["play", "--state", TEAM_WIN, "--moves", "Rn9 n4-n5"],
        &["the game is already over", "1-0-1-0", "checkmate"],
    );
}

#[test]
fn perft_counts_to_the_rules_files_figures() {
    for (depth, nodes) in [("0", 1), ("1", 20), ("2", 395), ("3", 7_800)] {
        assert_eq!(json_of(&["perft", "--state", START, "--depth", depth]), json!(nodes), "depth {depth}");
    }
    assert_eq!(json_of(&["perft", "--depth", "3", "--mode", "ffa"]), json!(7_800));
    assert_eq!(json_of(&["perft", "--state", AFTER_D4, "--depth", "2"]), json!(375));
}

#[test]
fn options_are_flags() {
    let jump = "3nK4/1nP6/1sP6/14/14/14/14/14/5nPsP7/5sPsP7/wK12eK/8/8/4sK3 s - - aaaa 0 1";
    assert_eq!(json_of(&["perft", "--state", jump, "--depth", "1"]), json!(11));
    assert_eq!(json_of(&["perft", "--state", jump, "--depth", "1", "--pawn-jump", "off"]), json!(6));
    assert_eq!(json_of(&["perft", "--state", jump, "--depth", "1", "--mode", "ffa"]), json!(7));
    refused(&["start", "--mode", "pairs"], &["mode", "teams or ffa"]);
    refused(&["start", "--pause", "off"], &["vierschach has no option \"pause\""]);
    refused(&["start", "--no-progress", "0"], &["no_progress"]);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    refused(&["legal", "--state", "not a state"], &["invalid vierschach state", "7 fields"]);
    refused(&["legal", "--state", &START.replace(" aaaa ", " aaa ")], &["status"]);
    refused(&["play", "--moves", "e2-e5"], &["not legal"]);
    refused(&["play", "--moves", "c2-c4x"], &["not a move"]);
    refused(&["play", "--moves", "d2-c3"], &["not a square"]);
    refused(&["play", "--moves", "O-O"], &["castling is not possible"]);
    refused(
        &["play", "--state", AFTER_D4, "--moves", "b4-d4"],
        &["not legal", "pawn on b4 cannot move to d4", "possible: b4-c4"],
    );
    refused(&["perft", "--state", "x", "--depth", "1"], &["invalid vierschach state"]);
    refused(&["legal", "--side", "centre"], &["no seat", "south, west, north, east"]);
}
