//! A three-seat Dreierschach game played wholly by mail through the MTA pipe
//! (`fairsteward ingest`), from the start to checkmate, in the notations of
//! `docs/rules/dreierschach.md` §8 — from-to with `-`, `x` or nothing, the author's
//! notation with German and English letters (`Sc2`, `4h5`, `S7d8`, `12k11`),
//! check marks, the author's `=` offering a draw with a move (the others are
//! told; the next move lets it lapse) — and in the shapes
//! real mail clients give replies. The mail door asks the game what a move is;
//! refusals say why, in Dreierschach's words and forms.
//!
//! The line is `tests/it/games/dreierschach/http.rs`'s smothered mate (3-0-1).

use crate::support as common;

use common::has_word;
use common::pipe::{PipeSteward, decode, header, html_reply, reply};

const PLAYERS: [(&str, &str); 3] = [
    ("white", "Wilma <wilma@example.org>"),
    ("brown", "Bruno <bruno@example.org>"),
    ("black", "Berta <berta@example.org>"),
];

/// How a reply is shaped.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// The move on top, the quote below.
    TopPost,
    /// The quote first, the move below it.
    BottomPost,
    /// HTML only, the move in a div, the quote in a blockquote.
    HtmlOnly,
    /// The quote deleted, the move typed into the subject after ours.
    SubjectOnly,
}

/// The game: the move as sent, the mail's shape, and the move as the steward
/// writes it (from-to, §8).
const PLAY: [(&str, Shape, &str); 16] = [
    ("Sc2", Shape::TopPost, "a3-c2"),
    ("4h5", Shape::BottomPost, "h4-h5"),
    ("m12-m11", Shape::HtmlOnly, "m12-m11"),
    ("Nf4", Shape::SubjectOnly, "c2-f4"),
    ("e1e2", Shape::TopPost, "e1-e2"),
    ("l12xl11", Shape::BottomPost, "l12-l11"),
    ("Sf4-i6", Shape::HtmlOnly, "f4-i6"),
    ("e2-e3=", Shape::TopPost, "e2-e3"),
    ("12k11", Shape::SubjectOnly, "k12-k11"),
    ("S7d8", Shape::BottomPost, "a7-d8"),
    ("e3-e4+", Shape::TopPost, "e3-e4"),
    ("j12-j11", Shape::HtmlOnly, "j12-j11"),
    ("Nd8-f7", Shape::TopPost, "d8-f7"),
    ("f2-f3", Shape::SubjectOnly, "f2-f3"),
    ("i12–i11", Shape::BottomPost, "i12-i11"),
    ("Sh6#", Shape::TopPost, "f7-h6"),
];

fn shaped(shape: Shape, from: &str, to: &str, id: &str, board: &str, text: &str) -> String {
    let subject = header(board, "Subject");
    let quoted: String = decode(board)
        .split("\r\n\r\n")
        .skip(1)
        .collect::<Vec<_>>()
        .join("\r\n\r\n")
        .lines()
        .take(12)
        .map(|l| format!("> {l}\r\n"))
        .collect();
    let re = format!("Re: {subject}");
    let wrote = "On Mon, Nov 23, 2026 at 10:00 AM Fairsteward <moves@steward.example> wrote:";
    match shape {
        Shape::TopPost => reply(from, to, id, &re, &format!("{text}\r\n\r\n{wrote}\r\n\r\n{quoted}")),
        Shape::BottomPost => reply(from, to, id, &re, &format!("{wrote}\r\n\r\n{quoted}\r\n{text}\r\n")),
        Shape::HtmlOnly => html_reply(
            from,
            to,
            id,
            &re,
            &format!("<div dir=\"ltr\">{text}</div><br><blockquote>{}</blockquote>", quoted.replace("\r\n", "<br>")),
        ),
        Shape::SubjectOnly => reply(from, to, id, &format!("Re: {subject} — {text}"), "\r\n"),
    }
}

/// The one answer in `after` that is not in `before`.
#[track_caller]
fn new_answer(before: &[String], after: Vec<String>) -> String {
    let mut new: Vec<String> = after.into_iter().filter(|a| !before.contains(a)).collect();
    assert_eq!(new.len(), 1, "one new answer: {new:?}");
    new.pop().unwrap()
}

fn address(seat: usize) -> &'static str {
    PLAYERS[seat].1.split_once('<').unwrap().1.trim_end_matches('>')
}

#[test]
fn a_dreierschach_game_played_wholly_by_mail() {
    let s = PipeSteward::new();
    let seats: Vec<&str> = PLAYERS.iter().map(|(_, p)| *p).collect();
    let game = s.new_game("dreierschach", &[], &seats);
    assert!(s.ingest("not a mail").1.starts_with("ignored"));

    // Help names Dreierschach's forms with examples from the seat's own moves.
    let black = s.reply_to(address(2), "started");
    assert_eq!(s.ingest(&reply(PLAYERS[2].1, &black, "help", "Re: x", "help")).1, "accepted: help");
    let help = s.answers_to(address(2)).pop().expect("the help answer");
    assert!(help.contains("write moves from-to like"), "{help}");
    assert!(
        help.contains("h13-e11") && help.contains("Se11, Ne11 or 12c10"),
        "examples from Black's own moves: {help}"
    );
    assert!(!has_word(&help, "5254") && !help.contains("Nf3"), "no chess notation: {help}");

    for (i, &(text, shape, written)) in PLAY.iter().enumerate() {
        let seat = i % 3;
        let who = address(seat);
        let kind = if i == 0 { "started" } else { "turn" };
        let board = s.newest(who, kind);
        let to = s.reply_to(who, kind);
        if i == 3 {
            // White tries an ambiguous move and a blocked bishop first.
            let mut seen = s.answers_to(who);
            let mut refused = |id: &str, text: &str, outcome: &str| {
                let (_, line) = s.ingest(&reply(PLAYERS[seat].1, &to, id, "Re: x", text));
                assert_eq!(line, outcome, "{text}");
                let said = new_answer(&seen, s.answers_to(who));
                seen.push(said.clone());
                said
            };
            let said = refused("w-amb", "d9", "refused: illegal_move");
            assert!(said.contains("ambiguous") && said.contains("b7-d9") && said.contains("b9-d9"), "{said}");
            let said = refused("w-bishop", "La2-c3", "refused: illegal_move");
            assert!(said.contains("bishop on a2 cannot move to c3"), "{said}");
            let said = refused("w-words", "What now?", "refused: unreadable");
            assert!(said.contains("write moves from-to like"), "{said}");
        }
        let before = s.answers_to(who);
        let mail = shaped(shape, PLAYERS[seat].1, &to, &format!("m{i}"), &board, text);
        let (code, line) = s.ingest(&mail);
        assert_eq!((code, line.as_str()), (0, "accepted: move"), "move {i}: {text} as {shape:?}");
        let receipt = new_answer(&before, s.answers_to(who));
        assert!(receipt.contains(&format!("Accepted: move {written} ")), "move {i}: {receipt}");
        let view = s.game(&game);
        let history = view["history"].as_array().unwrap();
        assert_eq!(history.len(), i + 1, "move {i} resolved its turn");
        assert_eq!(history[i]["moves"][0]["move"], written, "move {i}: {}", history[i]);
        if text.ends_with('=') {
            // The author's `=` offered a draw with the move (§8, Decision): the
            // other two are told how to accept; Black plays on instead.
            for other in (0..3).filter(|&o| o != seat) {
                let told = s.spool().iter().any(|(_, t)| {
                    header(t, "To").contains(address(other)) && decode(t).contains("brown offers a draw")
                });
                assert!(told, "{} hears of the offer", PLAYERS[other].0);
            }
        }
    }

    let view = s.game(&game);
    assert_eq!(view["outcome"]["result"], "white 3, brown 0, black 1 (checkmate)", "{view}");
    for (seat, (name, _)) in PLAYERS.iter().enumerate() {
        let over = s.spool().iter().any(|(_, t)| {
            header(t, "To").contains(address(seat)) && header(t, "Subject").contains(&format!("Game {game} is over"))
        });
        assert!(over, "{name} is told the game is over");
    }
}

/// §8, §11 `names = v2.3`: the players write and read V2.3 cell names by mail;
/// the record keeps them.
#[test]
fn v2_3_names_by_mail() {
    let s = PipeSteward::new();
    let seats: Vec<&str> = PLAYERS.iter().map(|(_, p)| *p).collect();
    let game = s.new_game("dreierschach", &["names=v2.3"], &seats);
    s.ingest("x");
    // V2.2 a3-c2 is V2.3 c1-b3.
    let white = s.reply_to(address(0), "started");
    assert_eq!(s.ingest(&reply(PLAYERS[0].1, &white, "w1", "Re: x", "c1-b3")).1, "accepted: move");
    let view = s.game(&game);
    assert_eq!(view["history"][0]["moves"][0]["move"], "c1-b3", "{view}");
    assert!(view["state"].as_str().unwrap().ends_with(" n a1,a8,f1,f13,m8,m13 - 1 1"), "{view}");
    let board = s.newest(address(1), "turn");
    assert!(decode(&board).contains("white: c1-b3 - played"), "{}", decode(&board));
}
