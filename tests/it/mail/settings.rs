//! Issue 32 (points 2 and 7) over the real SMTP and IMAP servers: an alias
//! and a new address asked by a mail command from the registered address,
//! confirmed by mail, then acting; an alias may not ask for either; the
//! notice about a stranger's mail points to the command, and a reply to it
//! with the command works; the mail setting by the command `mail …`.

use std::time::Duration;

use serde_json::json;

use super::e2e::{
    DOMAIN, Steward, bare, is_answer, mailbox, plain, reply, send_and_wait, text_of, two_seat_game, wait_for,
};
use crate::support::mailstack::{stack, unique};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alias_and_a_new_address_by_mail_command_with_the_confirmation_round_trip() {
    let stack = stack();
    let moves = unique("m");
    let (alice, work, bob, bob_new, other) =
        (unique("alice"), unique("work"), unique("bob"), unique("bobnew"), unique("other"));
    let [a_mail, w_mail, b_mail, n_mail, o_mail] =
        [&alice, &work, &bob, &bob_new, &other].map(|u| format!("{u}@{DOMAIN}"));
    let within = Duration::from_secs(15);
    let steward = Steward::start(&stack, &moves).await;
    let (game, _, starts) = two_seat_game(&stack, &steward, [&a_mail, &b_mail]).await;
    let (a_cap, b_cap) = (bare(&starts[0].header("Reply-To").unwrap()), bare(&starts[1].header("Reply-To").unwrap()));

    // Alice's work address is a stranger: its move is not taken, and Alice is
    // told how to add it, by a mail command or on the page.
    send_and_wait(&stack, &moves, &w_mail, &a_cap, &plain(&w_mail, &a_cap, &unique("w0"), "e4"), 1).await;
    let to_alice = wait_for(&stack, &alice, within, "the stranger notice", |m| {
        m.iter().any(|x| x.message_id.contains(".sender-"))
    })
    .await;
    let notice = to_alice.iter().find(|x| x.message_id.contains(".sender-")).unwrap().clone();
    let text = text_of(&notice);
    assert!(text.contains(&format!("alias {w_mail}")) && text.contains("/me") && !text.contains("curl"), "{text}");

    // Alice replies to the notice with that line: the confirmation goes to the work address.
    let asked = reply(&a_mail, &notice, &unique("a1"), &format!("alias {w_mail}"), false);
    send_and_wait(&stack, &moves, &a_mail, &bare(&notice.header("Reply-To").unwrap()), &asked, 2).await;
    let to_alice = wait_for(&stack, &alice, within, "the answer to `alias`", |m| m.iter().any(is_answer)).await;
    let answer = text_of(to_alice.iter().find(|m| is_answer(m)).unwrap());
    assert!(answer.contains(&format!("a confirmation mail was sent to {w_mail}")), "{answer}");
    let confirm =
        wait_for(&stack, &work, within, "the confirmation", |m| m.iter().any(|x| x.message_id.contains(".confirm-")))
            .await;
    let confirm = confirm.iter().find(|x| x.message_id.contains(".confirm-")).unwrap();
    let confirm_at = bare(&confirm.header("Reply-To").unwrap());
    // Until confirmed, the work address takes nothing.
    send_and_wait(&stack, &moves, &w_mail, &a_cap, &plain(&w_mail, &a_cap, &unique("w1"), "e4"), 3).await;
    assert_eq!(steward.game(&game).await["moved"], json!([]));
    send_and_wait(&stack, &moves, &w_mail, &confirm_at, &plain(&w_mail, &confirm_at, &unique("wc"), "yes"), 4).await;
    send_and_wait(&stack, &moves, &w_mail, &a_cap, &plain(&w_mail, &a_cap, &unique("w2"), "e4"), 5).await;
    assert_eq!(steward.game(&game).await["moved"], json!(["white"]), "the confirmed alias moved");

    // An alias acts for the seat but may not move it or add aliases: refused, nothing mailed to the address.
    // An answer to Alice whose text holds `needle` (answers come in any order).
    let answer_with = |needle: &'static str| {
        let (stack, alice) = (&stack, &alice);
        async move {
            let found = wait_for(stack, alice, within, needle, |m| {
                m.iter().any(|x| is_answer(x) && text_of(x).contains(needle))
            })
            .await;
            found.iter().filter(|m| is_answer(m)).map(text_of).find(|t| t.contains(needle)).unwrap()
        }
    };
    let cmd = format!("address {o_mail}");
    send_and_wait(&stack, &moves, &w_mail, &a_cap, &plain(&w_mail, &a_cap, &unique("w3"), &cmd), 6).await;
    let refusal = answer_with("Not accepted").await;
    assert!(refusal.contains("registered address") && refusal.contains("not from an alias"), "{refusal}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(mailbox(&stack, &other).await.is_empty(), "no confirmation to an address an alias asked for");

    // The mail setting by mail command (an alias may set it: it is the player's).
    let cmd = "mail my turn, pictures none";
    send_and_wait(&stack, &moves, &w_mail, &a_cap, &plain(&w_mail, &a_cap, &unique("w4"), cmd), 7).await;
    let answer = answer_with("Your mail setting").await;
    assert!(answer.contains("only when it is your move") && answer.contains("text board only"), "{answer}");

    // Bob moves to a new address by mail: `email NEW` from his registered address.
    send_and_wait(
        &stack,
        &moves,
        &b_mail,
        &b_cap,
        &plain(&b_mail, &b_cap, &unique("b1"), &format!("email {n_mail}")),
        8,
    )
    .await;
    let confirm = wait_for(&stack, &bob_new, within, "the confirmation", |m| m.len() == 1).await.remove(0);
    let confirm_at = bare(&confirm.header("Reply-To").unwrap());
    assert!(text_of(&confirm).contains("become the registered address"), "{}", text_of(&confirm));
    send_and_wait(&stack, &moves, &n_mail, &confirm_at, &plain(&n_mail, &confirm_at, &unique("nc"), "ok"), 9).await;
    send_and_wait(&stack, &moves, &n_mail, &b_cap, &plain(&n_mail, &b_cap, &unique("n1"), "d5"), 10).await;
    let view = steward.game(&game).await;
    assert_eq!(view["turn"], 2, "the new address moved: {view}");
    // Alice's board mail of turn 1 has no picture now.
    let to_alice = wait_for(&stack, &alice, within, "the board mail of turn 1", |m| {
        m.iter().any(|x| x.message_id == format!("{game}.1.0.turn@{DOMAIN}"))
    })
    .await;
    let board = to_alice.iter().find(|x| x.message_id == format!("{game}.1.0.turn@{DOMAIN}")).unwrap();
    assert!(!String::from_utf8_lossy(&board.raw).contains("image/png"), "pictures none");
    steward.stop().await;
}

/// Conditional lines set by a mail through the real SMTP and IMAP servers
/// (issue 32 point 1): kept and listed in a sealed answer, fired when the
/// opponent's move comes in by mail, told in the next board mail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conditional_lines_by_mail_over_the_real_servers_fire() {
    let stack = stack();
    let moves = unique("m");
    let (alice, bob) = (unique("alice"), unique("bob"));
    let [a_mail, b_mail] = [&alice, &bob].map(|u| format!("{u}@{DOMAIN}"));
    let within = Duration::from_secs(15);
    let steward = Steward::start(&stack, &moves).await;
    let (game, _, starts) = super::e2e::game_of(&stack, &steward, "chess", [&a_mail, &b_mail]).await;
    let (a_cap, b_cap) = (bare(&starts[0].header("Reply-To").unwrap()), bare(&starts[1].header("Reply-To").unwrap()));

    // Black, not to move, sends two lines from an ordinary mail client.
    let lines = "if e4 then c5\nif d4 then Nf6";
    send_and_wait(&stack, &moves, &b_mail, &b_cap, &plain(&b_mail, &b_cap, &unique("b1"), lines), 1).await;
    let to_bob = wait_for(&stack, &bob, within, "the answer listing the lines", |m| m.iter().any(is_answer)).await;
    let answer = text_of(to_bob.iter().find(|m| is_answer(m)).unwrap());
    assert!(answer.contains("2 kept") && answer.contains("if e4 then c5"), "{answer}");

    // White moves by mail: Black's c5 is played at once, from the line.
    send_and_wait(&stack, &moves, &a_mail, &a_cap, &plain(&a_mail, &a_cap, &unique("a1"), "e4"), 2).await;
    let v = steward.game(&game).await;
    let played: Vec<&str> =
        v["history"].as_array().unwrap().iter().map(|t| t["moves"][0]["move"].as_str().unwrap()).collect();
    assert_eq!(played, ["e4", "c5"], "{v}");
    assert_eq!(v["move_number"], "2.", "{v}");
    let to_bob = wait_for(&stack, &bob, within, "the board mail telling the line fired", |m| {
        m.iter().any(|x| !is_answer(x) && text_of(x).contains("Your line 1 fired"))
    })
    .await;
    let board = to_bob.iter().find(|x| !is_answer(x) && text_of(x).contains("Your line 1 fired")).unwrap();
    let text = text_of(board);
    assert!(text.contains("c5 was played for you as move 1...") && text.contains("1 other line"), "{text}");
    // Alice's mails never show Black's other line.
    let to_alice = wait_for(&stack, &alice, within, "White's board mail", |m| m.len() >= 2).await;
    assert!(to_alice.iter().all(|m| !text_of(m).contains("Nf6")), "Black's line stays secret");
    steward.stop().await;
}
