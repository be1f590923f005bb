//! A 3D chess game played wholly by mail through the MTA pipe (`fairsteward
//! ingest`), from the start to checkmate: the line of `tests/it/games/tri_d/http.rs`,
//! each move a reply to the seat's latest board mail, as mail clients shape
//! them (the move on top of the quote, below it, in the subject), in §10's
//! forms: from-to, short, German levels, lower case, the level left out where
//! one fits, board moves (`DP6-DP4`, `QL4-QL2`). A text naming two levels is
//! refused with both; help shows 3D chess's own forms.

use crate::support as common;

use common::pipe::{PipeSteward, decode, header, reply};

const PLAYERS: [&str; 2] = ["Wanda <wanda@example.org>", "Boris <boris@example.org>"];

/// The moves as the players mail them, and as the steward writes them.
const PLAY: [(&str, &str); 25] = [
    ("c2w-c3n", "c3N"),
    ("1... d7B-d5N", "d5N"),
    ("0-0", "O-O"),
    ("d6N", "d6N"),
    ("b2W-b3N", "b3N"),
    ("Nd8-c6n", "Nc6N"),
    ("Lc1-a3N", "Ba3N"),
    ("b7s-b6s", "b6B"),
    ("Bd6N", "Bxd6N"),
    ("c6B", "c6B"),
    ("Bxb8", "Bxb8B"),
    ("a5s", "a5B"),
    ("Bb8-a9DP6", "Bxa9QL6"),
    ("a6B", "a6B"),
    ("Bz8", "Bxz8QL6"),
    ("d5N-d4W", "d4W"),
    ("Bb6B", "Bxb6B"),
    ("Ba6N", "Ba6N"),
    ("Be9", "Bxe9KL6"),
    ("DP6-DP4", "QL6-QL4"),
    ("Bxa5B", "Bxa5B"),
    ("d3W", "d3W"),
    ("b1Wxd3W", "Bxd3W"),
    ("QL4-QL2", "QL4-QL2"),
    ("Bxa6N#", "Bxa6N#"),
];

fn address(seat: usize) -> &'static str {
    PLAYERS[seat].split_once('<').unwrap().1.trim_end_matches('>')
}

/// The one answer to `who` that is new since `before`.
#[track_caller]
fn new_answer(s: &PipeSteward, who: &str, before: &[String]) -> String {
    let mut new: Vec<String> = s.answers_to(who).into_iter().filter(|a| !before.contains(a)).collect();
    assert_eq!(new.len(), 1, "one new answer: {new:?}");
    new.pop().unwrap()
}

#[test]
fn a_game_played_wholly_by_mail_to_checkmate() {
    let s = PipeSteward::new();
    let game = s.new_game("tri-d-chess", &[], &PLAYERS);
    assert!(s.ingest("not a mail").1.starts_with("ignored"), "drains the start mails");

    // Help shows 3D chess's forms, with examples from the seat's own moves.
    let to = s.reply_to(address(1), "started");
    assert_eq!(s.ingest(&reply(PLAYERS[1], &to, "help", "Re: x", "help")).1, "accepted: help");
    let help = s.answers_to(address(1)).pop().expect("the help answer");
    assert!(help.contains("levels W N B or QL1") && help.contains("board moves like"), "{help}");
    assert!(!help.contains("7163"), "no chess notation: {help}");

    for (i, &(text, written)) in PLAY.iter().enumerate() {
        let seat = i % 2;
        let who = address(seat);
        let kind = if i == 0 { "started" } else { "turn" };
        let board = s.newest(who, kind);
        let to = s.reply_to(who, kind);
        let subject = format!("Re: {}", header(&board, "Subject"));
        if i == 4 {
            // The level left out where two fit: refused with both candidates.
            let before = s.answers_to(who);
            let (_, line) = s.ingest(&reply(PLAYERS[seat], &to, "m-b3", &subject, "b3"));
            assert_eq!(line, "refused: illegal_move");
            let said = new_answer(&s, who, &before);
            assert!(said.contains("b3N") && said.contains("b3W"), "{said}");
        }
        let quoted: String = decode(&board).lines().skip(20).take(8).map(|l| format!("> {l}\r\n")).collect();
        let body = match i % 3 {
            // Top-posted above the quote.
            0 => format!("{text}\r\n\r\nOn Mon, 23 Nov 2026, Fairsteward wrote:\r\n{quoted}"),
            // Below the quote.
            1 => format!("On Mon, 23 Nov 2026, Fairsteward wrote:\r\n{quoted}\r\n{text}\r\n"),
            // Alone.
            _ => format!("{text}\r\n"),
        };
        let before = s.answers_to(who);
        let (code, line) = s.ingest(&reply(PLAYERS[seat], &to, &format!("m{i}"), &subject, &body));
        assert_eq!((code, line.as_str()), (0, "accepted: move"), "ply {}: {text}", i + 1);
        // Answers to one address are limited (steward::ANSWERS_PER_HOUR, 10 an
        // hour): receipts are read for the first plies, the record for all.
        if i < 12 {
            let receipt = new_answer(&s, who, &before);
            assert!(receipt.contains(&format!("Accepted: move {written}")), "ply {}: {receipt}", i + 1);
        }
        let view = s.game(&game);
        assert_eq!(view["history"][i]["moves"][0]["move"], written, "ply {}", i + 1);
    }

    let view = s.game(&game);
    assert_eq!(view["outcome"]["reason"], "checkmate", "{view}");
    let history = view["history"].as_array().unwrap();
    let written: Vec<&str> = history.iter().map(|t| t["moves"][0]["move"].as_str().unwrap()).collect();
    assert_eq!(written, PLAY.map(|p| p.1));
    for seat in 0..2 {
        let over = s.spool().iter().any(|(_, t)| {
            header(t, "To").contains(address(seat)) && header(t, "Subject").contains(&format!("Game {game} is over"))
        });
        assert!(over, "seat {seat} is told the game is over");
    }
}
