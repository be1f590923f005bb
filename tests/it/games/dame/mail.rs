//! A three-seat Trialectic Dame game played wholly by mail through the MTA pipe
//! (`fairsteward ingest`), from the start to the last seat standing: the game
//! of `support::dame_game`, yellow out after turn 20 and skipped, red winning
//! at turn 28. The seats reply as mail clients do — top-posted above the
//! quote, HTML only, the move typed into the subject — and write multi-jumps as
//! `docs/rules/trialectic-dame.md` §6 allows: every landing cell joined by `x` or
//! `-`, or start and final cell when only one capture fits. Every seat gets a
//! board mail each turn whose text board and picture mark the jump path and the
//! captured stones.

use crate::support as common;
use crate::support::dame_game;

use common::pipe::{PipeSteward, decode, header, html_reply, new_answer, quoted, reply};
use dame_game::{FINAL, PLAY, YELLOW_OUT};

const PLAYERS: [(&str, &str); 3] =
    [("yellow", "Yara <yara@example.org>"), ("red", "Ruth <ruth@example.org>"), ("blue", "Ben <ben@example.org>")];

/// How some moves are written in the mails (turn, text); the others are sent
/// as the steward writes them.
const WRITTEN: [(usize, &str); 5] = [
    (1, "135–225"),                  // a phone's dash
    (11, "720x522x225x045x027x225"), // five jumps, back where it began
    (17, "225-252-450-432-072"),     // `-` for `x`
    (20, "027x252"),                 // start and final cell: only one capture fits
    (28, "252x720"),
];

fn address(seat: usize) -> &'static str {
    PLAYERS[seat].1.split_once('<').unwrap().1.trim_end_matches('>')
}

/// A reply to `board` carrying `text`: top-posted, HTML only, or in the subject.
fn shaped(turn: usize, from: &str, to: &str, board: &str, text: &str) -> String {
    let subject = header(board, "Subject");
    let id = format!("m{turn}");
    let quoted = quoted(board, 16);
    match turn % 3 {
        0 => reply(
            from,
            to,
            &id,
            &format!("Re: {subject}"),
            &format!("{text}\r\n\r\nOn Monday, Fairsteward wrote:\r\n{quoted}"),
        ),
        1 => html_reply(
            from,
            to,
            &id,
            &format!("Re: {subject}"),
            &format!("<div>{text}</div><blockquote>{quoted}</blockquote>"),
        ),
        _ => reply(from, to, &id, &format!("Re: {subject} — {text}"), "\r\n"),
    }
}

#[test]
fn a_trialectic_dame_game_played_wholly_by_mail() {
    let s = PipeSteward::new();
    let seats: Vec<&str> = PLAYERS.iter().map(|(_, p)| *p).collect();
    let game = s.new_game("trialectic-dame", &[], &seats);
    assert!(s.ingest("not a mail").1.starts_with("ignored"));

    // Help names Trialectic Dame's forms, with the asker's own moves.
    let to = s.reply_to(address(2), "started");
    assert_eq!(s.ingest(&reply(PLAYERS[2].1, &to, "help", "Re: x", "help")).1, "accepted: help");
    let help = s.answers_to(address(2)).pop().expect("the help answer");
    assert!(help.contains("a step as from-to, like 261-171"), "blue's own moves as examples: {help}");
    assert!(help.contains("every landing cell joined by x"), "{help}");

    // Answers per address are limited (`ANSWERS_PER_HOUR`): receipts are
    // checked while a seat is under the limit, and none is sent beyond it.
    let mut answered = [0, 0, 1];
    for (i, &(seat, canonical, _)) in PLAY.iter().enumerate() {
        let turn = i + 1;
        let who = address(seat);
        let kind = if turn == 1 { "started" } else { "turn" };
        let board = s.newest(who, kind);
        let to = s.reply_to(who, kind);
        let text = WRITTEN.iter().find(|(t, _)| *t == turn).map_or(canonical, |(_, w)| w);

        let mut seen = s.answers_to(who);
        let mut refused = |id: &str, text: &str, outcome: &str| {
            s.answered(&reply(PLAYERS[seat].1, &to, id, "Re: x", text), who, outcome, &mut seen)
        };
        if turn == 11 {
            answered[seat] += 2;
            // Red stops its five-jump halfway, then names only start and end: both refused with reasons.
            let said = refused("r-half", "720x522x225", "refused: illegal_move");
            assert!(said.contains("goes on until no jump is left"), "{said}");
            let said = refused("r-ends", "720x225", "refused: illegal_move");
            assert!(said.contains("ambiguous") && said.contains("720x522x225x027x045x225"), "{said}");
        }
        if turn == YELLOW_OUT + 1 {
            // Yellow, out, answers its last board mail with a move: not its turn.
            let yto = s.reply_to(address(0), "turn");
            let (_, line) = s.ingest(&reply(PLAYERS[0].1, &yto, "y-out", "Re: x", "117-207"));
            assert!(line.starts_with("refused"), "{line}");
        }
        let before = s.answers_to(who);
        let (code, line) = s.ingest(&shaped(turn, PLAYERS[seat].1, &to, &board, text));
        assert_eq!((code, line.as_str()), (0, "accepted: move"), "turn {turn}: {text}");
        if answered[seat] < fairsteward::steward::ANSWERS_PER_HOUR {
            let receipt = new_answer(&before, s.answers_to(who));
            assert!(receipt.contains(&format!("Accepted: move {canonical} ")), "turn {turn}: {receipt}");
        } else {
            assert_eq!(s.answers_to(who).len(), before.len(), "turn {turn}: over the hourly limit");
        }
        answered[seat] += 1;
        let view = s.game(&game);
        let history = view["history"].as_array().unwrap();
        assert_eq!(history.len(), turn, "turn {turn} resolved");
        assert_eq!(history[i]["moves"][0]["move"], canonical, "turn {turn}");
    }

    let view = s.game(&game);
    assert_eq!(view["state"], FINAL);
    assert_eq!(view["outcome"]["result"], "red wins (last seat in the game)", "{view}");
    s.ingest("drain");
    for (seat, (name, _)) in PLAYERS.iter().enumerate() {
        let who = address(seat);
        // Every board mail of a multi-jump marks its path and captures, for every seat.
        for (turn, jumps) in [(11, 5), (17, 4), (20, 4), (28, 2)] {
            let mail = s
                .spool()
                .into_iter()
                .find(|(n, t)| {
                    n.starts_with(&format!("{game}.{turn}.")) && n.contains(".turn@") && header(t, "To").contains(who)
                })
                .unwrap_or_else(|| panic!("turn {turn}'s board mail to {who}"))
                .1;
            assert!(mail.contains("Content-Type: image/png"), "the picture, turn {turn}");
            let text = decode(&mail);
            let crossed = text.matches("x .").count();
            assert_eq!(crossed, jumps, "turn {turn}, seat {seat}: every captured stone marked x:\n{text}");
            assert!(text.contains("+ last move, x captured"), "{text}");
        }
        let over = s.spool().iter().any(|(_, t)| {
            header(t, "To").contains(who)
                && header(t, "Subject").contains(&format!("Game {game} is over: red wins (last seat in the game)"))
        });
        assert!(over, "{name} is told the game is over");
    }
}
