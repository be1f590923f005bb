//! Invitations answered by mail: over the real servers `scripts/test` starts
//! (OpenSMTPD and Dovecot, as tests/it/mail/e2e.rs uses them), the invitation
//! mails of a tournament and of a game are read over IMAP and answered by
//! reply over SMTP, and the organiser's status shows the answers; and through
//! the mail door directly, the refusals: a reply `accept` or `decline` to the
//! invitation mail's reply address, from the invited address, is taken and
//! answered there; from anyone else, or to a forged address, nothing is taken.
//! The last acceptance creates the game.

use std::path::Path;

use fairsteward::steward::{NewGame, NewSeat};
use mail_parser::MessageParser;

use crate::support::in_process::{config, open};

/// The queued mails of the store of the data directory `data_dir`:
/// (Message-ID, recipient, raw message).
pub(crate) fn outbox(data_dir: &Path) -> Vec<(String, String, Vec<u8>)> {
    let db = crate::support::backend::Db::of(data_dir);
    let rows = db.rows("SELECT message_id, recipient, message FROM outbox ORDER BY id", &[]);
    rows.iter().map(|r| (r[0].text(), r[1].text(), r[2].bytes())).collect()
}

/// The Reply-To address of a raw mail.
pub(crate) fn reply_to(raw: &[u8]) -> String {
    let m = MessageParser::default().parse(raw).unwrap();
    m.reply_to().and_then(|a| a.first()).and_then(|a| a.address()).expect("a Reply-To").to_owned()
}

/// The first text body of a raw mail.
pub(crate) fn body(raw: &[u8]) -> String {
    MessageParser::default().parse(raw).unwrap().body_text(0).unwrap().into_owned()
}

fn mail(from: &str, to: &str, id: &str, text: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: Invitation\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n\r\n> you are invited\r\n"
    )
    .into_bytes()
}

fn seat(name: &str, email: &str) -> NewSeat {
    NewSeat { openpgp_key: None, name: name.into(), email: email.into(), public_key: None, time_zone: None }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invitations_are_accepted_and_declined_by_reply() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let steward = open(&cfg);
    let now = steward.now();
    let new = NewGame {
        variant: "dreierschach".into(),
        options: Default::default(),
        seats: vec![seat("Ann", "ann@example.org"), seat("Bob", "bob@example.org"), seat("Cleo", "cleo@example.org")],
        invite: true,
    };
    let invited = steward.invite_game(new, now).await.unwrap();
    let db = cfg.data_dir.clone();
    let mails = outbox(&db);
    assert_eq!(mails.len(), 3, "one invitation per seat");
    let to = |who: &str| mails.iter().find(|m| m.1 == who).map(|m| reply_to(&m.2)).unwrap();
    let (ann, bob, cleo) = (to("ann@example.org"), to("bob@example.org"), to("cleo@example.org"));
    assert!(ann.contains("+invite."), "{ann}");
    assert!(body(&mails[0].2).contains("accept"), "the mail says how to answer");

    let door = |raw: Vec<u8>| {
        let s = steward.clone();
        async move { fairsteward::mail::door::handle(&s, &raw, s.now()).await.unwrap().to_string() }
    };
    // Another sender, or a forged address, takes nothing.
    assert_eq!(door(mail("Eve <eve@example.org>", &ann, "e1", "accept")).await, "refused: foreign_sender");
    let forged = ann.replace("+invite.", "+invite.9").to_owned();
    assert!(door(mail("Ann <ann@example.org>", &forged, "e2", "accept")).await.starts_with("ignored"));
    // A reply that says neither is answered with what to write.
    assert_eq!(door(mail("Ann <ann@example.org>", &ann, "a0", "perhaps?")).await, "refused: unreadable");
    assert_eq!(
        door(mail("Ann <ann@example.org>", &ann, "a1", "Hi,\r\n\r\nI accept, thanks!")).await,
        "accepted: invitation accepted"
    );
    assert_eq!(door(mail("Bob <bob@example.org>", &bob, "b1", "decline")).await, "accepted: invitation declined");
    // A repeat is answered "already"; the other answer is refused.
    assert_eq!(door(mail("Bob <bob@example.org>", &bob, "b2", "decline")).await, "accepted: invitation declined");
    assert_eq!(door(mail("Bob <bob@example.org>", &bob, "b3", "accept")).await, "refused: invitation_closed");
    let answers: Vec<String> = outbox(&db)
        .into_iter()
        .filter(|m| m.0.contains(".answer-"))
        .map(|m| format!("{} {}", m.1, body(&m.2)))
        .collect();
    assert!(answers.iter().any(|a| a.starts_with("ann@") && a.contains("neither accept nor decline")), "{answers:?}");
    assert!(answers.iter().any(|a| a.starts_with("ann@") && a.contains("You accepted")), "{answers:?}");
    assert!(answers.iter().any(|a| a.starts_with("bob@") && a.contains("already")), "{answers:?}");
    assert!(answers.iter().any(|a| a.starts_with("bob@") && a.contains("cannot be accepted")), "{answers:?}");
    assert!(!answers.iter().any(|a| a.starts_with("eve@")), "a stranger hears nothing");

    // The organiser replaces Bob; the replacement and Cleo accept by mail: the game is created.
    let organiser = fairsteward::steward::Organiser::Operator;
    let what = fairsteward::steward::Invited::Game(invited.id.clone());
    let carl = fairsteward::steward::Replacement {
        name: "Carl".into(),
        email: "carl@example.org".into(),
        public_key: None,
        openpgp_key: None,
    };
    steward.replace_invited(&organiser, what.clone(), 1, carl, now).await.unwrap();
    let carl = outbox(&db).into_iter().find(|m| m.1 == "carl@example.org").map(|m| reply_to(&m.2)).unwrap();
    assert_eq!(door(mail("Carl <carl@example.org>", &carl, "c1", "yes")).await, "accepted: invitation accepted");
    assert_eq!(door(mail("Cleo <cleo@example.org>", &cleo, "d1", "accept")).await, "accepted: invitation accepted");
    let list = steward.invitations(&organiser, what).await.unwrap();
    assert_eq!(list.status, "started");
    let game = list.game.expect("the game is created");
    let view = steward.status(game, None).await.unwrap();
    let players: Vec<String> = view.seats.iter().map(|s| s.player.clone()).collect();
    assert_eq!(players, ["Ann", "Carl", "Cleo"]);
}

// ---------------------------------------------------------------------------
// Over the real SMTP and IMAP servers

mod real {
    use std::time::Duration;

    use serde_json::{Value, json};

    use crate::mail::e2e::{DOMAIN, Mail, Steward, bare, is_answer, reply, send, text_of, wait_for};
    use crate::support::mailstack::{stack, unique};

    /// As in tests/it/tournament/mail.rs: beyond Dovecot's 30 s check of an idling mailbox.
    const WITHIN: Duration = Duration::from_secs(45);

    /// A request with the operator token; the status and the JSON answer.
    async fn call(steward: &Steward, method: reqwest::Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut req = steward.client.request(method, format!("{}{path}", steward.base)).bearer_auth(&steward.operator);
        if let Some(body) = body {
            req = req.json(body);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// `user`'s invitation mail (the one mail not an answer), read over IMAP.
    async fn invitation(user: &str) -> Mail {
        let stack = stack();
        let mails = wait_for(&stack, user, WITHIN, "the invitation mail", |m| m.iter().any(|x| !is_answer(x))).await;
        let mail = mails.into_iter().find(|m| !is_answer(m)).unwrap();
        assert!(mail.message_id.starts_with("invite."), "{}", mail.message_id);
        mail
    }

    /// Replies `word` to `user`'s invitation over SMTP; waits for the answer
    /// that contains `expect`.
    async fn answer(user: &str, name: &str, word: &str, expect: &str) {
        let stack = stack();
        let mail = invitation(user).await;
        let to = bare(&mail.header("Reply-To").expect("a Reply-To"));
        assert!(to.contains("+invite."), "{to}");
        let from = format!("{user}@{DOMAIN}");
        let body = format!("{word}\r\n\r\nOn Monday, Fairsteward wrote:\r\n> You are invited\r\n");
        send(&stack, &from, &to, &reply(&format!("{name} <{from}>"), &mail, &unique("r"), &body, false)).await;
        let mails = wait_for(&stack, user, WITHIN, "the answer to the reply", |m| {
            m.iter().any(|x| is_answer(x) && text_of(x).contains(expect))
        })
        .await;
        assert_eq!(mails.iter().filter(|m| is_answer(m)).count(), 1, "one answer to {user}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_tournaments_invitations_accepted_and_declined_by_reply_over_smtp_and_imap() {
        let stack = stack();
        let moves = unique("m");
        let users: Vec<String> = (0..3).map(|i| unique(&format!("i{i}"))).collect();
        let names = ["Ann", "Bob", "Cleo"];
        let steward = Steward::start(&stack, &moves).await;
        let players: Vec<Value> =
            names.iter().zip(&users).map(|(n, u)| json!({"name": n, "email": format!("{u}@{DOMAIN}")})).collect();
        let body = json!({"name": "Invited Cup", "variant": "chess", "invite": true, "players": players});
        let (status, created) = call(&steward, reqwest::Method::POST, "/api/tournaments", Some(&body)).await;
        assert_eq!(status, 201, "{created}");
        let tid = created["tournament"]["id"].as_str().unwrap().to_owned();
        assert_eq!(created["tournament"]["status"], "inviting", "{created}");

        // Every invitee has the mail; Ann accepts and Bob declines by reply.
        for user in &users {
            let text = text_of(&invitation(user).await);
            assert!(text.contains("Invited Cup") && text.contains("accept"), "{text}");
        }
        answer(&users[0], names[0], "Yes, I accept!", "You accepted").await;
        answer(&users[1], names[1], "No, I decline.", "You declined").await;

        // The organiser sees both answers; Cleo's is pending, nothing has started.
        let (status, list) =
            call(&steward, reqwest::Method::GET, &format!("/api/invitations?tournament={tid}"), None).await;
        assert_eq!(status, 200, "{list}");
        let answers: Vec<&str> =
            list["invitations"].as_array().unwrap().iter().map(|i| i["answer"].as_str().unwrap()).collect();
        assert_eq!(answers, ["accepted", "declined", "pending"], "{list}");
        assert_eq!(list["status"], "inviting", "{list}");
        let (_, view) = call(&steward, reqwest::Method::GET, &format!("/api/tournaments/{tid}"), None).await;
        assert_eq!(view["status"], "inviting", "{view}");
        steward.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_invited_game_accepted_by_reply_starts_and_its_start_mails_arrive() {
        let stack = stack();
        let moves = unique("m");
        let (ann, bob) = (unique("ia"), unique("ib"));
        let steward = Steward::start(&stack, &moves).await;
        let body = json!({"variant": "chess", "invite": true, "seats": [
            {"name": "Ann", "email": format!("{ann}@{DOMAIN}")},
            {"name": "Bob", "email": format!("{bob}@{DOMAIN}")},
        ]});
        let (status, invited) = call(&steward, reqwest::Method::POST, "/api/games", Some(&body)).await;
        assert_eq!(status, 201, "{invited}");
        let id = invited["id"].as_str().unwrap().to_owned();

        answer(&ann, "Ann", "accept", "You accepted").await;
        let (_, list) = call(&steward, reqwest::Method::GET, &format!("/api/invited-games/{id}"), None).await;
        assert_eq!(list["status"], "inviting", "{list}");
        answer(&bob, "Bob", "I accept, thanks", "You accepted").await;

        // The last acceptance by mail creates the game: its start mails come.
        let (_, list) = call(&steward, reqwest::Method::GET, &format!("/api/invited-games/{id}"), None).await;
        assert_eq!(list["status"], "started", "{list}");
        let game = list["game"].as_str().expect("the game is created").to_owned();
        for user in [&ann, &bob] {
            let started = format!("{game}.0.");
            wait_for(&stack, user, WITHIN, "the game's start mail", |m| {
                m.iter().any(|x| x.message_id.starts_with(&started) && x.message_id.contains(".started@"))
            })
            .await;
        }
        steward.stop().await;
    }
}
