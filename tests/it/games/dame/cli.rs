//! `fairsteward rules trialectic-dame …` (docs/conformance.md, `docs/rules/trialectic-dame.md`
//! §8–9) driven through the real binary: the JSON on stdout, the board and the
//! options as flags, and for bad input exit status 2 with one line on stderr.
//!
//! Perft counts beyond the rules file's figures (depth 4 and more) were
//! computed by the independent oracle in `tools/dame_oracle/` as well.

use crate::support::rules_cli;

use serde_json::{Value, json};

const START: &str = "./../r.b/rrbb/rr.bb/rr..bb/rr...bb/rr....bb/..yyyyy../..yyyyyy.. y yrb - 0 1";
/// §10: after `126-117 216x018`.
const AFTER_CAPTURE: &str = "./../r.b/rrbb/rr.bb/rr..bb/rr...bb/r.....bb/...yyyy../.Ryyyyyy.. b yrb - 0 1";
/// §10: y 333, b 423, yellow to move with red out.
const LAST_TWO: &str = "./../.../..../...../..b.../...y.../......../........./.......... y y-b - 4 1";
/// §10: red to move; after `405-414` blue (090) has no move.
const BLUE_STUCK: &str = "./../.../..../...../r...../......./.......Y/........Y/.......yyb r yrb - 0 1";
/// The same after `405-414`, blue to move (a hand-made state: it cannot).
const BLUE_TO_MOVE: &str = "./../.../..../...../.r..../......./.......Y/........Y/.......yyb b yrb - 0 1";
/// The game over: yellow took the last opponent stone.
const OVER: &str = "./../.../..../.y.../....../......./......../........./.......... y y-- - 0 1";
const HEXAGON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/dame-hexagon.json");

fn json_of(args: &[&str]) -> Value {
    rules_cli::json_of("trialectic-dame", args)
}

#[track_caller]
fn refused(args: &[&str], phrases: &[&str]) {
    rules_cli::refused("trialectic-dame", args, phrases)
}

#[test]
fn start_prints_the_rules_files_start_state() {
    assert_eq!(json_of(&["start"]), json!(START));
    assert_eq!(json_of(&["start", "--setup", "2"]), json!(START.replace(" - 0 1", " yrb 0 1")));
    assert_eq!(json_of(&["start", "--board", HEXAGON]), json!(".../rrbb/.r.b./.yy./.y. y yrb - 0 1"));
    let twelve = json_of(&["start", "--side", "12"]);
    assert!(twelve.as_str().unwrap().ends_with("/...yyyyy.../...yyyyyy... y yrb - 0 1"), "{twelve}");
}

#[test]
fn legal_lists_canonical_moves_sorted_by_byte_value() {
    let expected = [
        "027-018", "027-117", "072-081", "072-171", "126-117", "126-225", "135-225", "135-234", "144-234", "144-243",
        "153-243", "153-252", "162-171", "162-252",
    ];
    assert_eq!(json_of(&["legal", "--state", START]), json!(expected));
    assert_eq!(json_of(&["legal"]), json!(expected), "the start state by default");
    assert_eq!(json_of(&["legal", "--side", "yellow"]), json!(expected));
    // A seat not to move is told so (issue 32).
    rules_cli::none_legal("trialectic-dame", &["legal", "--side", "red"], &["red is not to move", "yellow to move"]);
    let after = json_of(&["play", "--moves", "126-117"])["state"].clone();
    assert_eq!(json_of(&["legal", "--state", after.as_str().unwrap()]), json!(["216x018"]));
    assert_eq!(json_of(&["legal", "--setup", "2"]).as_array().unwrap().len(), 15);
    // A hand-made state whose seat to move cannot move, and a finished one.
    assert_eq!(json_of(&["legal", "--state", BLUE_TO_MOVE]), json!([]));
    assert_eq!(json_of(&["legal", "--state", OVER]), json!([]));
    assert_eq!(json_of(&["perft", "--state", OVER, "--depth", "0"]), json!(1));
    assert_eq!(json_of(&["perft", "--state", OVER, "--depth", "3"]), json!(0));
}

#[test]
fn play_gives_state_and_outcome() {
    let v = json_of(&["play", "--moves", "126-117 216x018"]);
    assert_eq!(v, json!({"state": AFTER_CAPTURE, "outcome": null}));
    let keys: Vec<&String> = v.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["state", "outcome"]);
    // `-` and `x` are interchangeable; start and final cell suffice when unique.
    assert_eq!(json_of(&["play", "--moves", "126x117 216-018"]), v);
    // Blue passes after red's move (§10).
    let passed = json_of(&["play", "--state", BLUE_STUCK, "--moves", "405-414"]);
    assert_eq!(passed["state"], json!(BLUE_TO_MOVE.replace(" b yrb - 0 1", " y yrb - 0 2")));
}

#[test]
fn play_reports_the_winner_and_every_seat_s_score() {
    let v = json_of(&["play", "--state", LAST_TWO, "--moves", "333x513"]);
    assert_eq!(
        v,
        json!({
            "state": OVER,
            "outcome": {"result": "win", "winner": "y", "reason": "last seat in the game",
                        "scores": {"y": 1, "r": 0, "b": 0}}
        })
    );
    refused(&["play", "--state", LAST_TWO, "--moves", "333x513 513-603"], &["the game is already over"]);
    // A draw among the two seats still in: ½ each, 0 for red.
    let dames = "./../.../..../...../....../...Y.../......../........./.........B y y-b - 5 1";
    let v = json_of(&["play", "--state", dames, "--moves", "333-342", "--no-progress", "6"]);
    assert_eq!(
        v["outcome"],
        json!({"result": "draw", "winner": null, "reason": "no progress", "scores": {"y": 0.5, "r": 0, "b": 0.5}})
    );
}

#[test]
fn play_and_perft_apply_the_passes_and_enclosures_due_first() {
    let blue = BLUE_TO_MOVE;
    let base = json_of(&["play", "--state", blue, "--moves", ""]);
    assert_eq!(base["state"], json!(blue.replace(" b yrb - 0 1", " y yrb - 0 2")));
    assert_eq!(base["outcome"], Value::Null);
    let take = json_of(&["play", "--state", blue, "--moves", "", "--enclosure", "take"]);
    assert!(take["state"].as_str().unwrap().ends_with(" y yrr - 0 2"), "{take}");
    let remove = json_of(&["play", "--state", blue, "--moves", "", "--enclosure", "remove"]);
    assert!(remove["state"].as_str().unwrap().ends_with(" y yr- - 0 2"), "{remove}");
    let after = base["state"].as_str().unwrap();
    let yellow = json_of(&["legal", "--state", after]).as_array().unwrap().len();
    assert_eq!(json_of(&["perft", "--state", blue, "--depth", "1"]), json!(yellow));
}

#[test]
fn perft_counts_to_the_rules_files_figures_and_beyond() {
    let cases: [(&[&str], &[u64]); 4] = [
        (&[], &[1, 14, 146, 1_068, 8_684, 68_232]),
        (&["--setup", "2"], &[1, 15, 212, 2_816, 16_842]),
        (&["--state", AFTER_CAPTURE], &[1, 14, 20, 270, 2_498]),
        (&["--board", HEXAGON], &[1, 6, 20, 67, 216, 841, 3_220]),
    ];
    for (args, counts) in cases {
        for (depth, nodes) in counts.iter().enumerate() {
            let d = depth.to_string();
            let mut full = vec!["perft", "--depth", &d];
            full.extend_from_slice(args);
            assert_eq!(json_of(&full), json!(nodes), "{args:?} depth {depth}");
        }
    }
}

#[test]
#[ignore = "millions of nodes: run in release with --ignored"]
fn perft_deep_counts() {
    assert_eq!(json_of(&["perft", "--depth", "6"]), json!(532_818));
    assert_eq!(json_of(&["perft", "--depth", "7"]), json!(4_450_708));
    assert_eq!(json_of(&["perft", "--depth", "5", "--setup", "2"]), json!(80_885));
}

#[test]
fn options_are_flags() {
    assert_eq!(json_of(&["perft", "--depth", "2", "--side", "12"]), json!(241));
    refused(&["start", "--setup", "3"], &["setup", "1 or 2"]);
    refused(&["start", "--enclosure", "eat"], &["enclosure", "none, take"]);
    refused(&["start", "--dame-first", "maybe"], &["dame_first", "on or off"]);
    refused(&["start", "--no-progress", "0"], &["no_progress"]);
    refused(&["start", "--side", "8"], &["side 8"]);
    refused(&["start", "--side", "12", "--board", HEXAGON], &["not both"]);
    refused(&["start", "--board", "/nonexistent/board.json"], &["cannot read board file"]);
    refused(&["start", "--pause", "off"], &["trialectic-dame has no option \"pause\""]);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    let text = std::fs::read_to_string(HEXAGON).unwrap().replace("\"e\": \"w\"", "\"e\": \"e\"");
    std::fs::write(&bad, text).unwrap();
    refused(&["start", "--board", bad.to_str().unwrap()], &["invalid board record", "e is its own opposite"]);
    std::fs::write(&bad, "{\"rows\": 3}").unwrap();
    refused(&["start", "--board", bad.to_str().unwrap()], &["not a board record"]);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    refused(&["legal", "--state", "not a state"], &["invalid trialectic-dame state", "6 fields"]);
    refused(&["legal", "--state", &START.replace(" yrb -", " yyb -")], &["only enclosure variant 1"]);
    refused(&["play", "--moves", "126-127"], &["no cell \"127\""]);
    refused(&["play", "--moves", "126"], &["not a move"]);
    refused(&["play", "--moves", "126-135"], &["not legal", "cannot go to 135", "possible: 027-018"]);
    refused(&["play", "--moves", "126-117 216-306"], &["capturing is compulsory", "216x018"]);
    refused(&["play", "--moves", "@333"], &["placements are only for the first turn"]);
    refused(&["perft", "--state", "x", "--depth", "1"], &["invalid trialectic-dame state"]);
    refused(&["legal", "--side", "centre"], &["side", "centre"]);
}
