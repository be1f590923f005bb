//! A four-seat Vierschach game played wholly by mail through the MTA pipe
//! (`fairsteward ingest`), from the start to checkmate. The four seats reply as
//! many real mail clients do — Gmail top-post with the quote, Outlook's
//! "-----Original Message-----", Apple Mail's "On … wrote:", "Sent from my iPhone",
//! HTML only, a move typed only into the subject — in the notations of
//! `docs/rules/vierschach.md` §9: from-to with `-`, `x` or nothing, SAN-like, English
//! and German piece letters, a file a phone capitalised. The mail door asks the
//! game's variant what a move is; refusals say why and show Vierschach's forms.
//!
//! The line is `tests/it/games/vierschach/http.rs`'s (teams mode: both queens of south and
//! north mate west, then east), with south's waiting move k2-k3 replaced by the
//! knight move Nj1-k3, written in German (`Sj1-k3`).

use crate::support as common;

use common::has_word;
use common::pipe::{PipeSteward, header, html_reply, new_answer, quoted, reply};

const PLAYERS: [(&str, &str); 4] = [
    ("south", "Sam <sam@example.org>"),
    ("west", "Wendy <wendy@example.org>"),
    ("north", "Nora <nora@example.org>"),
    ("east", "Ed <ed@example.org>"),
];

/// How a reply is shaped: a mail client's habit.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Gmail: the move on top, "On …, … wrote:" and the quote below.
    GmailTopPost,
    /// Outlook: the move, then "-----Original Message-----" and the old mail unquoted.
    Outlook,
    /// Apple Mail on a phone: the move, "Sent from my iPhone", then the quote.
    IPhone,
    /// Apple Mail on a Mac: "On 23 Nov 2026, at 10:00, … wrote:" with the move below the quote.
    AppleBottomPost,
    /// HTML only, the move in a div and the quote in a blockquote.
    HtmlOnly,
    /// The quote deleted and the move typed only into the subject, after ours.
    SubjectOnly,
}

/// The game: the seat, its move as sent, the mail's shape, and the move as the
/// steward writes it (§9's SAN-like notation: a pawn move with its
/// origin, issue 32).
const PLAY: [(usize, &str, Shape, &str); 13] = [
    (0, "d3", Shape::GmailTopPost, "d2-d3"),
    (1, "b6c6", Shape::Outlook, "b6-c6"),
    (2, "e13-e12", Shape::IPhone, "e13-e12"),
    (3, "m7–l7", Shape::HtmlOnly, "m7-l7"),
    (0, "Sj1-k3", Shape::AppleBottomPost, "Nk3"),
    (1, "b8-c8", Shape::SubjectOnly, "b8-c8"),
    (2, "G13-g12", Shape::IPhone, "g13-g12"),
    (3, "l9", Shape::GmailTopPost, "m9-l9"),
    // West, in double check with no move, is mated and skipped.
    (0, "1. f2xf3!", Shape::Outlook, "f2-f3"),
    (2, "d13d12", Shape::SubjectOnly, "d13-d12"),
    (3, "m4-l4", Shape::AppleBottomPost, "m4-l4"),
    (0, "h3", Shape::HtmlOnly, "h2-h3"),
    // East, in double check with no move, is mated: south and north win.
    (2, "i13-i12", Shape::GmailTopPost, "i13-i12"),
];

/// A reply to `board` (the board mail being answered) carrying `text` in `shape`.
fn shaped(shape: Shape, from: &str, to: &str, id: &str, board: &str, text: &str) -> String {
    let subject = header(board, "Subject");
    let quoted = quoted(board, 12);
    let re = format!("Re: {subject}");
    match shape {
        Shape::GmailTopPost => reply(
            from,
            to,
            id,
            &re,
            &format!(
                "{text}\r\n\r\nOn Mon, Nov 23, 2026 at 10:00 AM Fairsteward <moves@steward.example> wrote:\r\n\r\n{quoted}"
            ),
        ),
        Shape::Outlook => reply(
            from,
            to,
            id,
            &format!("AW: {subject}"),
            &format!(
                "{text}\r\n\r\n-----Original Message-----\r\nFrom: Fairsteward <moves@steward.example>\r\nSent: Monday, November 23, 2026 10:00 AM\r\nSubject: {subject}\r\n\r\n{}",
                quoted.replace("> ", "")
            ),
        ),
        Shape::IPhone => reply(
            from,
            to,
            id,
            &re,
            &format!(
                "{text}\r\n\r\nSent from my iPhone\r\n\r\n> On 23 Nov 2026, at 10:00, Fairsteward <moves@steward.example> wrote:\r\n>\r\n{quoted}"
            ),
        ),
        Shape::AppleBottomPost => reply(
            from,
            to,
            id,
            &re,
            &format!(
                "On 23 Nov 2026, at 10:00, Fairsteward <moves@steward.example> wrote:\r\n\r\n{quoted}\r\n{text}\r\n"
            ),
        ),
        Shape::HtmlOnly => html_reply(
            from,
            to,
            id,
            &re,
            &format!(
                "<div dir=\"ltr\">{text}</div><br><div class=\"gmail_quote\"><blockquote>{}</blockquote></div>",
                quoted.replace("\r\n", "<br>")
            ),
        ),
        Shape::SubjectOnly => reply(from, to, id, &format!("Re: {subject} — {text}"), "\r\n"),
    }
}

#[test]
fn a_vierschach_game_played_wholly_by_mail() {
    let s = PipeSteward::new();
    let seats: Vec<&str> = PLAYERS.iter().map(|(_, p)| *p).collect();
    let game = s.new_game("vierschach", &[], &seats);
    // Ingesting anything drains the queued start mails into the spool.
    assert!(s.ingest("not a mail").1.starts_with("ignored"));
    let address = |seat: usize| PLAYERS[seat].1.split_once('<').unwrap().1.trim_end_matches('>');

    // Help names Vierschach's forms with examples from its legal moves, not chess's.
    let east = s.reply_to(address(3), "started");
    assert_eq!(s.ingest(&reply(PLAYERS[3].1, &east, "help", "Re: x", "help")).1, "accepted: help");
    let help = s.answers_to(address(3)).pop().expect("the help answer");
    assert!(help.contains("write moves like"), "{help}");
    assert!(!has_word(&help, "5254") && !has_word(&help, "7163"), "no chess notation in Vierschach help: {help}");
    assert!(
        help.contains(
            "write moves like Nl11 (SAN), Sl11 (German letters), Nn10-l11 (long form) or n10l11 (coordinates)"
        ),
        "examples from east's own moves: {help}"
    );

    for (i, &(seat, text, shape, san)) in PLAY.iter().enumerate() {
        let who = address(seat);
        let kind = if i == 0 { "started" } else { "turn" };
        let board = s.newest(who, kind);
        let to = s.reply_to(who, kind);

        if i == 9 {
            // North tries words and a square with nothing on it first: refused with reasons.
            let mut seen = s.answers_to(who);
            let mut refused = |id: &str, text: &str, outcome: &str| {
                s.answered(&reply(PLAYERS[seat].1, &to, id, "Re: x", text), who, outcome, &mut seen)
            };
            let said = refused("n-words", "Which move is good here?", "refused: unreadable");
            assert!(said.contains("write moves like") && !has_word(&said, "5254"), "{said}");
            let said = refused("n-empty", "e7-e8", "refused: illegal_move");
            assert!(said.contains("there is no piece on e7"), "{said}");
            let said = refused("n-south", "Dg1-g2", "refused: illegal_move");
            assert!(said.contains("queen on g1 is not yours"), "{said}");
        }
        let before = s.answers_to(who);

        let mail = shaped(shape, PLAYERS[seat].1, &to, &format!("m{i}"), &board, text);
        let (code, line) = s.ingest(&mail);
        assert_eq!((code, line.as_str()), (0, "accepted: move"), "move {i}: {text} as {shape:?}");
        let receipt = new_answer(&before, s.answers_to(who));
        assert!(receipt.contains(&format!("Accepted: move {san} ")), "move {i}: {receipt}");

        let view = s.game(&game);
        let history = view["history"].as_array().unwrap();
        assert_eq!(history.len(), i + 1, "move {i} resolved its turn");
        assert_eq!(history[i]["moves"][0]["move"], san, "move {i}: {}", history[i]);
    }

    let view = s.game(&game);
    assert_eq!(view["outcome"]["reason"], "checkmate", "{view}");
    assert_eq!(view["outcome"]["result"], "south and north win (checkmate)", "{view}");
    // Every seat hears the end.
    for (seat, (name, _)) in PLAYERS.iter().enumerate() {
        let over = s.spool().iter().any(|(_, t)| {
            header(t, "To").contains(address(seat)) && header(t, "Subject").contains(&format!("Game {game} is over"))
        });
        assert!(over, "{name} is told the game is over");
    }
}

#[test]
fn a_vierschach_move_is_refused_by_mail_with_the_reason() {
    let s = PipeSteward::new();
    let seats: Vec<&str> = PLAYERS.iter().map(|(_, p)| *p).collect();
    s.new_game("vierschach", &[], &seats);
    s.ingest("x");
    let south = s.reply_to("sam@", "started");
    // Lower-case piece letters are not Vierschach's (its files run to n).
    let (_, line) = s.ingest(&reply(PLAYERS[0].1, &south, "lc", "Re: x", "nj1-k3"));
    assert_eq!(line, "refused: unreadable");
    // A knight that cannot go there: the reason and its moves.
    let (_, line) = s.ingest(&reply(PLAYERS[0].1, &south, "far", "Re: x", "Sj1-j4"));
    assert_eq!(line, "refused: illegal_move");
    let said = s.answers_to("sam@").into_iter().find(|a| a.contains("cannot move to j4")).expect("the refusal");
    assert!(said.contains("knight on j1 cannot move to j4") && said.contains("Nk3"), "{said}");
}
