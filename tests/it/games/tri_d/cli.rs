//! `fairsteward rules tri-d-chess …` (docs/conformance.md, `docs/rules/tri-d-chess.md` §12)
//! driven through the real binary: the JSON on stdout, the exit status, and for
//! bad input exit status 2 with one line on stderr.

use serde_json::{Value, json};

const START: &str = "nbbn/pppp/4/4/4/4/4/4/4/4/PPPP/NBBN wQL1:PP/RQ,wKL1:PP/KR,bQL6:rq/pp,bKL6:kr/pp w KQkq - - - 0 1";
/// §14: the rules' own attack-board example, Black to move.
const ANHANG: &str = "4/4/4/2P1/4/4/4/4/4/1p2/4/4 wKL1:2/2,wQL2:2/1K,bQL4:2/1k,bKL6:2/2 b - - - - 0 30";

use crate::support::rules_cli;

fn json_of(args: &[&str]) -> Value {
    rules_cli::json_of("tri-d-chess", args)
}

#[track_caller]
fn refused(args: &[&str], phrases: &[&str]) {
    rules_cli::refused("tri-d-chess", args, phrases);
}

#[test]
fn start_legal_play_and_perft() {
    assert_eq!(json_of(&["start"]), json!(START));
    let legal = json_of(&["legal"]);
    assert_eq!(legal.as_array().unwrap().len(), 20);
    assert_eq!(legal[0], "a1W-b3N", "sorted by byte value");
    assert_eq!(json_of(&["legal", "--state", START, "--side", "white"]), legal);
    // A seat not to move is told so (issue 32).
    rules_cli::none_legal(
        "tri-d-chess",
        &["legal", "--state", START, "--side", "black"],
        &["black is not to move", "white to move"],
    );
    for (depth, nodes) in [("1", 20), ("2", 400), ("3", 9128)] {
        assert_eq!(json_of(&["perft", "--state", START, "--depth", depth]), json!(nodes));
    }
    assert_eq!(
        json_of(&["play", "--state", ANHANG, "--moves", "QL4-QL5"]),
        json!({
            "state": "4/4/4/2P1/4/4/4/4/4/1p2/4/4 wKL1:2/2,wQL2:2/1K,bQL5:2/1k,bKL6:2/2 w - - - - 1 31",
            "outcome": null
        })
    );
    // Moves in any accepted form; the outcome of a mate.
    let mate = json_of(&[
        "play",
        "--moves",
        "c3N d5N O-O d6N b3N Nc6N Ba3N b6B Bxd6N c6B Bb8 a5B Bxa9QL6 a6B Bz8 d4W Bxb6B Ba6N Be9 DP6-DP4 \
         Bxa5B d3W b1W-d3W QL4-QL2 Bxa6N#",
    ]);
    assert_eq!(mate["outcome"], json!({"result": "1-0", "reason": "checkmate"}));
}

#[test]
fn bad_input_is_refused_on_one_line() {
    refused(&["legal", "--state", "nbbn/pppp w"], &["invalid tri-d-chess state", "9 fields"]);
    refused(&["play", "--moves", "Nc3"], &["ambiguous", "Nc3N", "Nc3W"]);
    refused(&["play", "--moves", "QL1-QL3"], &["carries more than one piece"]);
    refused(&["play", "--moves", "e4"], &["not legal"]);
    refused(&["play", "--moves", "hello"], &["not a move", "write moves like"]);
    refused(&["perft", "--depth", "2", "--mode", "ffa"], &["has no option"]);
}
