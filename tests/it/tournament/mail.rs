//! A tournament by mail against the real servers `scripts/test` starts
//! (OpenSMTPD and Dovecot on 127.0.0.1, as tests/it/mail/e2e.rs uses them):
//! the start mail read over IMAP gives, for a game where the player moves
//! first, the address to send that move to; a mail to it (not a reply) is
//! taken as the move and the board mail follows; `standings` replied to a
//! board mail, to the start mail or to a result notice brings the table; in a game of no tournament it is answered
//! with what is read instead.

use std::time::{Duration, Instant};

use mail_builder::MessageBuilder;
use serde_json::{Value, json};

use crate::mail::e2e::{DOMAIN, Mail, Steward, bare, is_answer, mailbox, reply, send, text_of, wait_for};
use crate::support::mailstack::{stack, unique};

/// Long enough for Dovecot's own check of an idling mailbox (every 30 s) when
/// the door's IDLE was not told of a delivery (seen now and then on a busy machine).
const WITHIN: Duration = Duration::from_secs(45);

/// A new mail (not a reply: no In-Reply-To, no References) from `name <from>` to `to`.
pub(crate) fn fresh_mail(name: &str, from: &str, to: &str, id: &str, subject: &str, body: &str) -> Vec<u8> {
    MessageBuilder::new()
        .from((name, from))
        .to(to)
        .subject(subject)
        .message_id(format!("{id}@client.example"))
        .text_body(body.to_owned())
        .write_to_vec()
        .unwrap()
}

/// POST `path` with the operator token; the status and the JSON answer.
async fn post(steward: &Steward, path: &str, body: &Value) -> (u16, Value) {
    let resp = steward
        .client
        .post(format!("{}{path}", steward.base))
        .bearer_auth(&steward.operator)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

/// The games a start mail lists with the address to send the first move to:
/// (game, address).
fn first_move_addresses(text: &str) -> Vec<(String, String)> {
    let mut game = None;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Game ") {
            game = rest.split(':').next().map(str::to_owned);
        }
        if let Some(rest) = line.trim().strip_prefix("To move by mail, write to ") {
            out.push((game.clone().expect("a game before its address"), rest.trim().to_owned()));
        }
    }
    out
}

/// The answers in `mails` whose text contains `needle`.
fn answers_with<'a>(mails: &'a [Mail], needle: &str) -> Vec<&'a Mail> {
    mails.iter().filter(|m| is_answer(m) && text_of(m).contains(needle)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_by_mail_first_move_and_standings_over_smtp_and_imap() {
    let stack = stack();
    let moves = unique("m");
    let users: Vec<String> = (0..3).map(|i| unique(&format!("p{i}"))).collect();
    let emails: Vec<String> = users.iter().map(|u| format!("{u}@{DOMAIN}")).collect();
    let names = ["Ada", "Ben", "Cy"];
    let steward = Steward::start(&stack, &moves).await;

    // A 3-player chess round robin created over HTTP: three games, two each.
    let players: Vec<Value> = names.iter().zip(&emails).map(|(n, e)| json!({"name": n, "email": e})).collect();
    let (status, created) =
        post(&steward, "/api/tournaments", &json!({"name": "Mail Cup", "variant": "chess", "players": players})).await;
    assert_eq!(status, 201, "{created}");
    let tid = created["tournament"]["id"].as_str().unwrap().to_owned();
    // Game → (player, token) per seat, in seat order.
    let mut seats: std::collections::BTreeMap<String, Vec<(usize, String)>> = Default::default();
    for t in created["tokens"].as_array().unwrap() {
        let g = t["game"].as_str().unwrap().to_owned();
        seats.entry(g).or_default().push((t["player"].as_u64().unwrap() as usize, t["token"].as_str().unwrap().into()));
    }
    assert_eq!(seats.len(), 3);

    // One start mail per player, read from the real mailbox.
    let mut starts = Vec::new();
    for user in &users {
        let mails = wait_for(&stack, user, WITHIN, "the start mail", |m| !m.is_empty()).await;
        assert_eq!(mails.len(), 1, "one start mail, not one per game");
        starts.push(mails[0].clone());
    }
    // Someone moves first somewhere; the start mail says where to send it.
    let (mover, (game, address)) = starts
        .iter()
        .enumerate()
        .find_map(|(i, m)| first_move_addresses(&text_of(m)).into_iter().next().map(|x| (i, x)))
        .expect("a start mail with a first move by mail");
    let text = text_of(&starts[mover]);
    assert!(text.contains(&format!("Mail Cup (chess, tournament {tid})")), "{text}");
    assert!(address.starts_with(&format!("{moves}+{game}.white.")), "{address}");
    assert!(!text.contains("A first move is made on the game's page or by HTTP"), "{text}");
    // A reply to the start mail acts for a game where the player moves first.
    let reply_to = bare(&starts[mover].header("Reply-To").expect("a Reply-To on the start mail"));
    assert!(reply_to.starts_with(&format!("{moves}+")) && reply_to.contains(".white."), "{reply_to}");

    // The first move as a new mail to that address: no In-Reply-To, no References.
    let first = fresh_mail(names[mover], &emails[mover], &address, &unique("first"), "My first move", "e4\r\n");
    send(&stack, &emails[mover], &address, &first).await;
    let deadline = Instant::now() + WITHIN;
    loop {
        let view = steward.game(&game).await;
        if view["history"][0]["moves"][0]["move"] == "e4" {
            break;
        }
        assert!(Instant::now() < deadline, "the first move by mail was not taken: {view}");
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    let mine = wait_for(&stack, &users[mover], WITHIN, "the receipt", |m| {
        !answers_with(m, "Accepted: move e4 for turn 1").is_empty()
    })
    .await;
    assert_eq!(answers_with(&mine, "Accepted").len(), 1);
    // The opponent gets the board mail of turn 1.
    let (opponent, _) = seats[&game].iter().find(|(p, _)| *p != mover).cloned().unwrap();
    let board_of = |m: &Mail| m.message_id.starts_with(&format!("{game}.1.")) && m.message_id.contains(".turn@");
    let theirs = wait_for(&stack, &users[opponent], WITHIN, "the turn-1 board mail", |m| m.iter().any(board_of)).await;
    let board = theirs.iter().find(|m| board_of(m)).unwrap().clone();

    // Another game ends: its first seat resigns (over HTTP).
    let (other, other_seats) = seats.iter().find(|(g, _)| **g != game).unwrap();
    let (loser, token) = &other_seats[0];
    let winner = other_seats[1].0;
    let resp = steward
        .client
        .post(format!("{}/api/games/{other}/resign", steward.base))
        .bearer_auth(token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);

    // `standings` in reply to the board mail: the table comes back, with the result.
    let body = format!("standings\r\n\r\n> {}\r\n", "the board");
    let raw = reply(&format!("{} <{}>", names[opponent], emails[opponent]), &board, &unique("st"), &body, false);
    send(&stack, &emails[opponent], &bare(&board.header("Reply-To").unwrap()), &raw).await;
    let theirs = wait_for(&stack, &users[opponent], WITHIN, "the standings answer", |m| {
        !answers_with(m, "Standings (").is_empty()
    })
    .await;
    let table = text_of(answers_with(&theirs, "Standings (")[0]);
    assert!(table.contains(&format!("Mail Cup (tournament {tid})")), "{table}");
    assert!(table.contains("Standings (1 games finished, 2 running)"), "{table}");
    assert!(table.contains(&format!("1. {} - 1 points, tie-break 0, 1 wins, 1 played", names[winner])), "{table}");
    assert!(table.contains(&format!("{} - 0 points", names[*loser])), "{table}");
    assert!(table.contains(&format!("/tournaments/{tid}")), "{table}");
    // A look: nothing was played or written for it.
    assert_eq!(steward.game(&game).await["history"].as_array().map(Vec::len), Some(1));

    // `standings` in reply to the start mail (whose Reply-To names a turn played since) works too.
    let raw =
        reply(&format!("{} <{}>", names[mover], emails[mover]), &starts[mover], &unique("ss"), "standings\r\n", false);
    send(&stack, &emails[mover], &reply_to, &raw).await;
    let mine = wait_for(&stack, &users[mover], WITHIN, "the standings answer to the start mail", |m| {
        !answers_with(m, "Standings (1 games finished, 2 running)").is_empty()
    })
    .await;
    assert_eq!(answers_with(&mine, "Standings (").len(), 1);

    // A game of no tournament: `standings` is answered with what is read instead.
    let (x, y) = (unique("x"), unique("y"));
    let created = steward
        .create(&json!({"variant": "chess", "seats": [
            {"name": "Xan", "email": format!("{x}@{DOMAIN}")},
            {"name": "Yul", "email": format!("{y}@{DOMAIN}")},
        ]}))
        .await;
    let lone = created["game"]["id"].as_str().unwrap().to_owned();
    let start = wait_for(&stack, &x, WITHIN, "the start mail", |m| m.len() == 1).await.remove(0);
    let raw = reply(&format!("Xan <{x}@{DOMAIN}>"), &start, &unique("sx"), "Standings?\r\n", false);
    send(&stack, &format!("{x}@{DOMAIN}"), &bare(&start.header("Reply-To").unwrap()), &raw).await;
    let answer = wait_for(&stack, &x, WITHIN, "the answer", |m| m.iter().any(is_answer)).await;
    let text = text_of(answer.iter().find(|m| is_answer(m)).unwrap());
    assert!(text.contains(&format!("Game {lone} is not part of a tournament")), "{text}");
    assert!(text.contains("status") && text.contains("resign"), "says what is read: {text}");

    // The result notice of the other game has a Reply-To of the player's own:
    // `standings` in reply to it brings the full table.
    let who = *loser;
    let notice_of = |m: &Mail| !is_answer(m) && text_of(m).contains(&format!("game {other} is over"));
    let got = wait_for(&stack, &users[who], WITHIN, "the result notice", |m| m.iter().any(notice_of)).await;
    let notice = got.iter().find(|m| notice_of(m)).unwrap().clone();
    let text = text_of(&notice);
    assert!(text.contains("Reply `standings` for the full table"), "{text}");
    let to = bare(&notice.header("Reply-To").expect("a Reply-To on the result notice"));
    assert!(to.starts_with(&format!("{moves}+{other}.")), "the capability of the game that ended: {to}");
    let before = answers_with(&got, "Standings (").len();
    let raw = reply(&format!("{} <{}>", names[who], emails[who]), &notice, &unique("sr"), "standings\r\n", false);
    send(&stack, &emails[who], &to, &raw).await;
    let got = wait_for(&stack, &users[who], WITHIN, "the standings answer to the result notice", |m| {
        answers_with(m, "Standings (1 games finished, 2 running)").len() > before
    })
    .await;
    let table = text_of(answers_with(&got, "Standings (").last().unwrap());
    assert!(table.contains(&format!("Mail Cup (tournament {tid})")), "{table}");

    // Nothing else for the mover but the start mail, the receipt and the
    // result notice of the other game (if the mover played in it).
    let all = mailbox(&stack, &users[mover]).await;
    assert!(all.iter().all(|m| !text_of(m).contains("Not accepted")), "no refusal to the mover");
    steward.stop().await;
}
