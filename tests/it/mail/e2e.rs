//! A game played by mail end to end, against the real servers `scripts/test`
//! starts (OpenSMTPD and Dovecot on 127.0.0.1, see tests/it/mail/smtp.rs): a steward in
//! this process sends over `[mail.smtp]` and reads its own mailbox over
//! `[mail.imap]`; the players read their mail over IMAP and answer over SMTP,
//! the way a mail client does.
//!
//! OpenSMTPD delivers `local+detail@any.domain` to the maildir of `local`
//! (`%{rcpt.user:strip}`), keeping the full address in `Delivered-To`; so the
//! reply capabilities `moves-…+GAME.seat.turn.mac@example.org` all land in the
//! mailbox of `moves-…`, which is the one the IMAP door reads.

use crate::support as common;
use crate::support::dreierschach_game;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use fairsteward::config::{Config, Overrides, RawConfig, RawHttp, RawMail};
use fairsteward::mail::imap::{ImapTls, RawImap};
use fairsteward::mail::smtp::{RawSmtp, TlsMode};
use futures_util::TryStreamExt;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use mail_builder::MessageBuilder;
use mail_builder::headers::raw::Raw;
use mail_parser::{MessageParser, MimeHeaders};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use common::mailstack::{Stack, stack, unique};

pub(crate) const DOMAIN: &str = "example.org";

/// A message in a mailbox, with its IMAP flags.
#[derive(Clone, Debug)]
pub(crate) struct Mail {
    pub(crate) raw: Vec<u8>,
    pub(crate) flags: Vec<String>,
    pub(crate) message_id: String,
}

impl Mail {
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        let m = MessageParser::default().parse(&self.raw).unwrap();
        m.header_raw(name).map(|v| v.trim().to_owned())
    }
}

/// Every message in `user`'s INBOX (read with BODY.PEEK, so nothing is marked).
pub(crate) async fn mailbox(stack: &Stack, user: &str) -> Vec<Mail> {
    let tcp = TcpStream::connect((stack.imap_host.as_str(), stack.imap_port)).await.expect("connect to IMAP");
    let mut client = async_imap::Client::new(tcp);
    client.read_response().await.expect("the IMAP greeting").expect("a greeting line");
    let mut session = client.login(user, &stack.pass).await.map_err(|(e, _)| e).expect("IMAP login");
    let inbox = session.select("INBOX").await.expect("SELECT INBOX");
    let mut mails = Vec::new();
    if inbox.exists > 0 {
        let fetches: Vec<_> = session
            .fetch("1:*", "(FLAGS BODY.PEEK[])")
            .await
            .expect("FETCH")
            .try_collect()
            .await
            .expect("FETCH answers");
        // Skip the FLAGS-only updates the server sends on the side while the
        // steward's door marks messages in the same mailbox.
        for f in &fetches {
            let Some(raw) = f.body().map(<[u8]>::to_vec) else { continue };
            let flags = f.flags().map(|fl| format!("{fl:?}")).collect();
            let message_id = MessageParser::default()
                .parse(&raw)
                .and_then(|m| m.message_id().map(str::to_owned))
                .unwrap_or_default();
            mails.push(Mail { raw, flags, message_id });
        }
    }
    let _ = session.logout().await;
    mails
}

/// Takes `\Seen` and the door's keyword off every message in `user`'s INBOX.
async fn unmark(stack: &Stack, user: &str) {
    let tcp = TcpStream::connect((stack.imap_host.as_str(), stack.imap_port)).await.expect("connect to IMAP");
    let mut client = async_imap::Client::new(tcp);
    client.read_response().await.expect("the IMAP greeting").expect("a greeting line");
    let mut session = client.login(user, &stack.pass).await.map_err(|(e, _)| e).expect("IMAP login");
    session.select("INBOX").await.expect("SELECT INBOX");
    let flags = format!("-FLAGS.SILENT (\\Seen {})", fairsteward::mail::imap::DONE_KEYWORD);
    let _: Vec<_> = session.store("1:*", flags).await.expect("STORE").try_collect().await.expect("STORE answers");
    let _ = session.logout().await;
}

/// Polls `user`'s mailbox until `done` holds (at most `within`).
pub(crate) async fn wait_for(
    stack: &Stack,
    user: &str,
    within: Duration,
    what: &str,
    done: impl Fn(&[Mail]) -> bool,
) -> Vec<Mail> {
    let deadline = Instant::now() + within;
    loop {
        let mails = mailbox(stack, user).await;
        if done(&mails) {
            return mails;
        }
        if Instant::now() > deadline {
            let ids: Vec<_> = mails.iter().map(|m| (&m.message_id, &m.flags)).collect();
            panic!("timed out after {within:?} waiting for {what} in {user}'s mailbox; it holds {ids:#?}");
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

/// Sends `raw` from `from` to `to` through the real SMTP server.
pub(crate) async fn send(stack: &Stack, from: &str, to: &str, raw: &[u8]) {
    let transport =
        AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(stack.smtp_host.as_str()).port(stack.smtp_port).build();
    let envelope = lettre::address::Envelope::new(Some(from.parse().unwrap()), vec![to.parse().unwrap()]).unwrap();
    transport.send_raw(&envelope, raw).await.expect("the SMTP server takes the reply");
}

/// The bare address in a `Reply-To` header value.
pub(crate) fn bare(header: &str) -> String {
    header.rsplit_once('<').map_or(header, |(_, a)| a.trim_end_matches('>')).trim().to_owned()
}

pub(crate) fn is_answer(m: &Mail) -> bool {
    m.message_id.contains(".answer-")
}

pub(crate) struct Steward {
    pub(crate) base: String,
    pub(crate) client: reqwest::Client,
    /// The operator token, which creating a game needs.
    pub(crate) operator: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), fairsteward::server::ServerError>>>,
    _dir: tempfile::TempDir,
}

impl Steward {
    /// A steward sending through the mailstack as `moves@example.org` and
    /// reading `moves`'s mailbox over IMAP.
    pub(crate) async fn start(stack: &Stack, moves: &str) -> Steward {
        let _ = rustls::crypto::ring::default_provider().install_default();
        // FAIRSTEWARD_TEST_LOG=fairsteward::mail=debug shows what the doors do.
        if let Ok(filter) = std::env::var("FAIRSTEWARD_TEST_LOG") {
            let _ = tracing_subscriber::fmt().with_env_filter(filter).with_test_writer().try_init();
        }
        let dir = tempfile::tempdir().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let raw = RawConfig {
            http: RawHttp { public_url: Some(format!("http://{addr}")), ..RawHttp::default() },
            mail: RawMail {
                from: Some(format!("Fairsteward <{moves}@{DOMAIN}>")),
                smtp: Some(RawSmtp {
                    host: Some(stack.smtp_host.clone()),
                    port: Some(stack.smtp_port),
                    tls: Some(TlsMode::None),
                    timeout_seconds: Some(10),
                    ..RawSmtp::default()
                }),
                imap: Some(RawImap {
                    host: Some(stack.imap_host.clone()),
                    port: Some(stack.imap_port),
                    tls: Some(ImapTls::None),
                    username: Some(moves.to_owned()),
                    password: Some(stack.pass.clone()),
                    timeout_seconds: Some(10),
                    ..RawImap::default()
                }),
                ..RawMail::default()
            },
            ..RawConfig::default()
        };
        let config = Config::from_raw(
            raw,
            &Overrides {
                data_dir: Some(dir.path().to_owned()),
                listen: Some(addr.to_string()),
                database: crate::support::backend::database_for(dir.path()),
            },
        )
        .expect("a valid configuration");
        let imap = config.imap.as_ref().expect("[mail.imap] is read");
        assert!(imap.idle && imap.mailbox == "INBOX", "{imap:?}");
        let operator = fairsteward::server::operator_token(&config).unwrap().reveal().to_owned();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(fairsteward::server::serve(config, listener, async move {
            let _ = stopped.await;
        }));
        common::start_up_swept(&format!("http://{addr}")).await;
        let client = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().unwrap();
        Steward { base: format!("http://{addr}"), client, operator, stop: Some(stop), task: Some(task), _dir: dir }
    }

    pub(crate) async fn stop(mut self) {
        drop(self.stop.take());
        let task = self.task.take().unwrap();
        tokio::time::timeout(Duration::from_secs(15), task).await.expect("the steward stops").unwrap().unwrap();
    }

    /// Creates a game over HTTP with the operator token; the answer (201).
    pub(crate) async fn create(&self, body: &Value) -> Value {
        let resp = self.client.post(format!("{}/api/games", self.base)).bearer_auth(&self.operator).json(body).send();
        let resp = resp.await.unwrap();
        assert_eq!(resp.status().as_u16(), 201);
        resp.json().await.unwrap()
    }

    pub(crate) async fn game(&self, id: &str) -> Value {
        let resp = self.client.get(format!("{}/api/games/{id}", self.base)).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        resp.json().await.unwrap()
    }
}

/// A player's reply to the board mail `to`, as a mail client writes it.
pub(crate) fn reply(from: &str, board: &Mail, id: &str, body: &str, auto: bool) -> Vec<u8> {
    let reply_to = bare(&board.header("Reply-To").expect("a Reply-To"));
    let subject = board.header("Subject").unwrap_or_default();
    // `Name <address>` as a name and an address: given whole, mail-builder
    // would write it all as the address, and the steward reads a stranger.
    let (name, address) = from.rsplit_once('<').map_or(("", from), |(n, a)| (n.trim(), a.trim_end_matches('>')));
    let mut b = MessageBuilder::new()
        .from((name, address))
        .to(reply_to.as_str())
        .subject(format!("Re: {subject}"))
        .message_id(format!("{id}@client.example"))
        .in_reply_to(board.message_id.as_str())
        .references(board.message_id.as_str())
        .text_body(body.to_owned());
    if auto {
        b = b.header("Auto-Submitted", Raw::new("auto-replied"));
    }
    b.write_to_vec().unwrap()
}

/// The board text of a mail quoted, as a mail client quotes it.
fn quoted(board: &Mail) -> String {
    let m = MessageParser::default().parse(&board.raw).unwrap();
    m.body_text(0).unwrap().lines().map(|l| format!("> {l}\r\n")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_played_by_replying_over_smtp_and_read_over_imap() {
    let stack = stack();
    // Short: `<local>+GAME.seat.turn.mac` must stay within the 64 characters of a local part.
    let moves = unique("m");
    let (alice, bob) = (unique("alice"), unique("bob"));
    let emails = [format!("{alice}@{DOMAIN}"), format!("{bob}@{DOMAIN}")];
    let steward = Steward::start(&stack, &moves).await;

    // A game over HTTP: each player gets a start mail.
    let (game, _, mut starts) = two_seat_game(&stack, &steward, [&emails[0], &emails[1]]).await;
    let (a_start, b_start) = (starts.remove(0), starts.remove(0));
    let within = Duration::from_secs(15);
    let started = |seat: usize| format!("{game}.0.{seat}.started@{DOMAIN}");
    assert_eq!(a_start.message_id, started(0));
    assert_eq!(b_start.message_id, started(1));
    let cap = bare(&a_start.header("Reply-To").unwrap());
    assert!(cap.starts_with(&format!("{moves}+{game}.white.1.")) && cap.ends_with(&format!("@{DOMAIN}")), "{cap}");

    // Alice bottom-posts e4 and her client sends it twice; an out-of-office
    // for Bob answers the capability; then Bob top-posts d5.
    let a_body = format!("On Mon, Fairsteward wrote:\r\n{}\r\ne4\r\n", quoted(&a_start));
    let a_reply = reply(&format!("Alice <{}>", emails[0]), &a_start, &unique("a"), &a_body, false);
    let b_cap = bare(&b_start.header("Reply-To").unwrap());
    send(&stack, &emails[0], &cap, &a_reply).await;
    send(&stack, &emails[0], &cap, &a_reply).await;
    let ooo = reply(&format!("Bob <{}>", emails[1]), &b_start, &unique("ooo"), "I am away until Monday.\r\n", true);
    send(&stack, &emails[1], &b_cap, &ooo).await;
    // The door has handled all three before Bob's move comes.
    let handled = wait_for(&stack, &moves, within, "three handled mails", |m| {
        m.len() == 3 && m.iter().all(|x| x.flags.iter().any(|f| f.contains("FairstewardDone")))
    })
    .await;
    for m in &handled {
        assert!(m.flags.iter().any(|f| f.contains("Seen")), "handled mails are \\Seen: {:?}", m.flags);
        // The subaddress arrived in the steward's own mailbox, named in Delivered-To.
        let delivered = m.header("Delivered-To").unwrap_or_default();
        assert!(delivered.starts_with(&format!("{moves}+{game}.")), "Delivered-To: {delivered}");
    }
    assert_eq!(steward.game(&game).await["moved"], json!(["white"]));
    let b_body = format!("d5\r\n\r\nSent from my phone\r\n\r\n{}", quoted(&b_start));
    send(&stack, &emails[1], &b_cap, &reply(&format!("Bob <{}>", emails[1]), &b_start, &unique("b"), &b_body, false))
        .await;

    // The steward resolves the turn.
    let deadline = Instant::now() + within;
    loop {
        let view = steward.game(&game).await;
        if view["turn"] == 2 {
            assert_eq!(view["history"][0]["moves"][0]["move"], "e4", "{view}");
            assert_eq!(view["history"][0]["moves"][1]["move"], "d5", "{view}");
            break;
        }
        assert!(Instant::now() < deadline, "the turn was not resolved: {view}");
        tokio::time::sleep(Duration::from_millis(150)).await;
    }

    // Each player: the start mail, one receipt, one turn-1 board mail.
    for (seat, user) in [&alice, &bob].into_iter().enumerate() {
        let mails = wait_for(&stack, user, within, "a receipt and the turn-1 board mail", |m| m.len() >= 3).await;
        let turn_id = format!("{game}.1.{seat}.turn@{DOMAIN}");
        let boards: Vec<&Mail> = mails.iter().filter(|m| m.message_id == turn_id).collect();
        assert_eq!(boards.len(), 1, "one turn-1 board mail for seat {seat}");
        let board = boards[0];
        let start = format!("<{}>", started(seat));
        assert_eq!(board.header("In-Reply-To").as_deref(), Some(start.as_str()));
        assert_eq!(board.header("References").as_deref(), Some(start.as_str()));
        let parsed = MessageParser::default().parse(&board.raw).unwrap();
        let png = parsed
            .parts
            .iter()
            .find(|p| p.content_type().is_some_and(|c| c.ctype() == "image" && c.subtype() == Some("png")));
        assert!(png.expect("an image/png part").contents().starts_with(b"\x89PNG"));
        let text = parsed.body_text(0).unwrap();
        assert!(text.contains("white: e4 - played") && text.contains("black: d5 - played"), "{text}");
        let rank1 = if seat == 0 { "  1  R N B Q K B N R  1" } else { "  8  r n b k q b n r  8" };
        assert!(text.lines().any(|l| l == rank1), "the board text:\n{text}");

        let answers: Vec<&Mail> = mails.iter().filter(|m| is_answer(m)).collect();
        assert_eq!(
            answers.len(),
            1,
            "one receipt for seat {seat} (the duplicate and the auto-reply get none): {:?}",
            mails.iter().map(|m| &m.message_id).collect::<Vec<_>>()
        );
        let receipt = MessageParser::default().parse(&answers[0].raw).unwrap().body_text(0).unwrap().into_owned();
        let mv = if seat == 0 { "e4" } else { "d5" };
        assert!(
            receipt.contains(&format!("Accepted: move {mv} for turn 1")) && receipt.contains("receipt r-"),
            "{receipt}"
        );
        assert_eq!(mails.len(), 3, "nothing else for seat {seat}");
    }
    // Nothing more comes, and the steward's mailbox is all handled.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    for user in [&alice, &bob] {
        assert_eq!(mailbox(&stack, user).await.len(), 3, "no late mail to {user}");
    }
    let all = mailbox(&stack, &moves).await;
    assert_eq!(all.len(), 4);
    assert!(
        all.iter().all(|m| m.flags.iter().any(|f| f.contains("FairstewardDone"))),
        "{:?}",
        all.iter().map(|m| &m.flags).collect::<Vec<_>>()
    );
    let ids: BTreeSet<_> = all.iter().map(|m| m.message_id.clone()).collect();
    assert_eq!(ids.len(), 3, "Alice's reply twice, the auto-reply, Bob's reply");

    // As after a crash between handling and marking: the marks are gone. The door
    // (told by the server while it idles) handles them again, marks them, and
    // acts on none of them twice.
    unmark(&stack, &moves).await;
    wait_for(&stack, &moves, within, "the mails marked again", |m| {
        m.len() == 4 && m.iter().all(|x| x.flags.iter().any(|f| f.contains("FairstewardDone")))
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    for user in [&alice, &bob] {
        assert_eq!(mailbox(&stack, user).await.len(), 3, "nothing answered twice to {user}");
    }
    assert_eq!(steward.game(&game).await["turn"], 2);
    steward.stop().await;
}

/// The text of a mail's first text part.
pub(crate) fn text_of(m: &Mail) -> String {
    MessageParser::default().parse(&m.raw).unwrap().body_text(0).unwrap_or_default().into_owned()
}

/// A plain mail from `from` to `to` with Message-ID `<id@client.example>`.
pub(crate) fn plain(from: &str, to: &str, id: &str, body: &str) -> Vec<u8> {
    MessageBuilder::new()
        .from(from)
        .to(to)
        .subject("Re: Game")
        .message_id(format!("{id}@client.example"))
        .text_body(body.to_owned())
        .write_to_vec()
        .unwrap()
}

/// Sends `raw` to the steward and waits until its door has handled `count` mails.
pub(crate) async fn send_and_wait(stack: &Stack, moves: &str, from: &str, to: &str, raw: &[u8], count: usize) {
    send(stack, from, to, raw).await;
    wait_for(stack, moves, Duration::from_secs(15), "the door to handle the mail", |m| {
        m.len() == count && m.iter().all(|x| x.flags.iter().any(|f| f.contains("FairstewardDone")))
    })
    .await;
}

/// A game of two seats created over HTTP; its id, the seat tokens and each
/// player's start mail.
pub(crate) async fn two_seat_game(
    stack: &Stack,
    steward: &Steward,
    emails: [&str; 2],
) -> (String, Vec<String>, Vec<Mail>) {
    game_of(stack, steward, "fairschach", emails).await
}

/// A game of `variant` for two seats created over HTTP, as [`two_seat_game`].
pub(crate) async fn game_of(
    stack: &Stack,
    steward: &Steward,
    variant: &str,
    emails: [&str; 2],
) -> (String, Vec<String>, Vec<Mail>) {
    let body = json!({"variant": variant, "seats": [
        {"name": "Alice", "email": emails[0]},
        {"name": "Bob", "email": emails[1]},
    ]});
    let created = steward.create(&body).await;
    let game = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    let mut starts = Vec::new();
    for email in emails {
        let user = email.split('@').next().unwrap();
        starts.push(wait_for(stack, user, Duration::from_secs(15), "the start mail", |m| m.len() == 1).await.remove(0));
    }
    (game, tokens, starts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_sender_takes_nothing_and_the_player_is_told_once() {
    let stack = stack();
    let moves = unique("m");
    let (alice, bob, mallory) = (unique("alice"), unique("bob"), unique("mallory"));
    let (a_mail, b_mail, m_mail) =
        (format!("{alice}@{DOMAIN}"), format!("{bob}@{DOMAIN}"), format!("{mallory}@{DOMAIN}"));
    let steward = Steward::start(&stack, &moves).await;
    let (game, _, starts) = two_seat_game(&stack, &steward, [&a_mail, &b_mail]).await;
    let cap = bare(&starts[0].header("Reply-To").unwrap());

    // Mallory saw Alice's board mail: a resignation from Mallory's address to
    // Alice's capability takes nothing and answers Mallory nothing.
    send_and_wait(&stack, &moves, &m_mail, &cap, &plain(&m_mail, &cap, &unique("m1"), "resign"), 1).await;
    let view = steward.game(&game).await;
    assert!(view["outcome"].is_null(), "no resignation from a stranger: {view}");
    let notices = wait_for(&stack, &alice, Duration::from_secs(15), "the notice to Alice", |m| {
        m.iter().any(|x| x.message_id.contains(".sender-"))
    })
    .await;
    let notice = notices.iter().find(|x| x.message_id.contains(".sender-")).unwrap();
    let text = text_of(notice);
    assert!(text.contains(&m_mail) && text.contains("Nothing was taken"), "{text}");
    // Issue 32: the notice points to the mail command and the page, not to curl.
    assert!(text.contains(&format!("alias {m_mail}")) && text.contains("/me"), "{text}");
    assert!(!text.contains("curl") && !text.contains("seat token"), "{text}");
    let _ = &game;
    assert!(notice.header("To").unwrap().contains(&a_mail));

    // A second forged mail within the hour: a move, not taken, and no second notice.
    // It reuses the Message-ID Alice's real move will carry.
    let shared_id = unique("shared");
    send_and_wait(&stack, &moves, &m_mail, &cap, &plain(&m_mail, &cap, &shared_id, "e4"), 2).await;
    assert_eq!(steward.game(&game).await["moved"], json!([]));

    // Alice's own move with that Message-ID is read (another content), and the
    // same mail again is a duplicate.
    let real = plain(&a_mail, &cap, &shared_id, "e4");
    send_and_wait(&stack, &moves, &a_mail, &cap, &real, 3).await;
    assert_eq!(steward.game(&game).await["moved"], json!(["white"]));
    send_and_wait(&stack, &moves, &a_mail, &cap, &real, 4).await;

    tokio::time::sleep(Duration::from_millis(1000)).await;
    let to_alice = mailbox(&stack, &alice).await;
    let ids: Vec<_> = to_alice.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(to_alice.iter().filter(|m| m.message_id.contains(".sender-")).count(), 1, "one notice: {ids:?}");
    assert_eq!(to_alice.iter().filter(|m| is_answer(m)).count(), 1, "one receipt, for the real move: {ids:?}");
    assert!(mailbox(&stack, &mallory).await.is_empty(), "nothing to the forger");
    steward.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alias_or_a_new_address_acts_only_once_confirmed_by_mail() {
    let stack = stack();
    let moves = unique("m");
    let (alice, work, bob, bob_new) = (unique("alice"), unique("work"), unique("bob"), unique("bobnew"));
    let [a_mail, w_mail, b_mail, n_mail] = [&alice, &work, &bob, &bob_new].map(|u| format!("{u}@{DOMAIN}"));
    let steward = Steward::start(&stack, &moves).await;
    let (game, tokens, starts) = two_seat_game(&stack, &steward, [&a_mail, &b_mail]).await;
    let (a_cap, b_cap) = (bare(&starts[0].header("Reply-To").unwrap()), bare(&starts[1].header("Reply-To").unwrap()));
    let within = Duration::from_secs(15);
    let post = |path: &str, token: Option<&str>, body: Value| {
        let mut r = steward.client.post(format!("{}/api/games/{game}/{path}", steward.base)).json(&body);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send()
    };

    // Bad requests are refused with a JSON error and mail nobody.
    for (path, token, body, status, code) in [
        ("aliases", None, json!({"address": w_mail}), 401, "bad_token"),
        ("aliases", Some("not-a-token"), json!({"address": w_mail}), 401, "bad_token"),
        ("aliases", Some(tokens[0].as_str()), json!({}), 400, "bad_request"),
        ("aliases", Some(tokens[0].as_str()), json!({"address": "not an address"}), 400, "bad_request"),
        ("aliases", Some(tokens[0].as_str()), json!({"address": a_mail.to_uppercase()}), 400, "bad_request"),
        ("aliases", Some(tokens[0].as_str()), json!({"address": format!("{moves}@{DOMAIN}")}), 400, "bad_request"),
        ("email", Some(tokens[1].as_str()), json!({"address": b_mail, "extra": 1}), 400, "bad_request"),
        ("email", Some(tokens[1].as_str()), json!({"address": b_mail}), 400, "bad_request"),
    ] {
        let resp = post(path, token, body.clone()).await.unwrap();
        assert_eq!(resp.status().as_u16(), status, "{path} {body}");
        let err: Value = resp.json().await.unwrap();
        assert_eq!(err["error"], code, "{path} {body}: {err}");
        assert!(err["message"].as_str().is_some_and(|m| m.len() > 20), "{err}");
    }
    let resp = steward
        .client
        .post(format!("{}/api/games/ZZZZZZ/aliases", steward.base))
        .bearer_auth(&tokens[0])
        .json(&json!({"address": w_mail}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 404);

    // Alice asks for her work address as an alias; until it confirms, a move
    // from it is not taken.
    let resp = post("aliases", Some(&tokens[0]), json!({"address": w_mail})).await.unwrap();
    assert_eq!(resp.status().as_u16(), 202);
    let asked: Value = resp.json().await.unwrap();
    assert_eq!((asked["kind"].as_str(), asked["seat"].as_str()), (Some("alias"), Some("white")), "{asked}");
    let confirm = wait_for(&stack, &work, within, "the confirmation mail", |m| m.len() == 1).await.remove(0);
    assert!(confirm.message_id.contains(".confirm-"), "{}", confirm.message_id);
    let confirm_at = bare(&confirm.header("Reply-To").unwrap());
    assert!(confirm_at.starts_with(&format!("{moves}+confirm.")), "{confirm_at}");
    wait_for(&stack, &alice, within, "the word about the request", |m| {
        m.iter().any(|x| x.message_id.contains("-asked"))
    })
    .await;
    send_and_wait(&stack, &moves, &w_mail, &a_cap, &plain(&w_mail, &a_cap, &unique("w1"), "e4"), 1).await;
    assert_eq!(steward.game(&game).await["moved"], json!([]), "an unconfirmed alias takes nothing");

    // A reply to the confirmation from another address confirms nothing; from
    // the work address it does, and then its move counts.
    send_and_wait(&stack, &moves, &b_mail, &confirm_at, &plain(&b_mail, &confirm_at, &unique("x"), "yes"), 2).await;
    send_and_wait(&stack, &moves, &w_mail, &confirm_at, &plain(&w_mail, &confirm_at, &unique("c"), "yes"), 3).await;
    let to_alice = wait_for(&stack, &alice, within, "the word that the alias is confirmed", |m| {
        m.iter().any(|x| x.message_id.contains("-done"))
    })
    .await;
    assert_eq!(
        to_alice.iter().filter(|m| m.message_id.contains("-done")).count(),
        1,
        "the reply from Bob confirmed nothing"
    );
    send_and_wait(&stack, &moves, &w_mail, &a_cap, &plain(&w_mail, &a_cap, &unique("w2"), "e4"), 4).await;
    assert_eq!(steward.game(&game).await["moved"], json!(["white"]), "the confirmed alias moved");

    // Bob changes his address: before the new one confirms, it cannot move for him.
    let resp = post("email", Some(&tokens[1]), json!({"address": n_mail})).await.unwrap();
    assert_eq!(resp.status().as_u16(), 202);
    let confirm = wait_for(&stack, &bob_new, within, "the confirmation mail", |m| m.len() == 1).await.remove(0);
    let confirm_at = bare(&confirm.header("Reply-To").unwrap());
    send_and_wait(&stack, &moves, &n_mail, &b_cap, &plain(&n_mail, &b_cap, &unique("n1"), "d5"), 5).await;
    assert_eq!(steward.game(&game).await["moved"], json!(["white"]));
    send_and_wait(&stack, &moves, &n_mail, &confirm_at, &plain(&n_mail, &confirm_at, &unique("nc"), "ok"), 6).await;
    // Now his old address is a stranger, and the new one moves.
    send_and_wait(&stack, &moves, &b_mail, &b_cap, &plain(&b_mail, &b_cap, &unique("b1"), "d5"), 7).await;
    assert_eq!(steward.game(&game).await["moved"], json!(["white"]));
    send_and_wait(&stack, &moves, &n_mail, &b_cap, &plain(&n_mail, &b_cap, &unique("n2"), "d5"), 8).await;
    let view = steward.game(&game).await;
    assert_eq!(view["turn"], 2, "{view}");
    assert_eq!(view["history"][0]["moves"][1]["move"], "d5", "{view}");
    // The board mail of turn 1 goes to the new address; the old one heard of the change.
    wait_for(&stack, &bob_new, within, "the turn-1 board mail at the new address", |m| {
        m.iter().any(|x| x.message_id == format!("{game}.1.1.turn@{DOMAIN}"))
    })
    .await;
    let to_old = mailbox(&stack, &bob).await;
    assert!(to_old.iter().any(|m| m.message_id.contains("-old") && text_of(m).contains(&n_mail)));
    assert!(!to_old.iter().any(|m| m.message_id.contains(".turn@")), "no board mail to the old address");
    steward.stop().await;
}

/// A 3D chess game to checkmate wholly by mail over the real servers: each
/// player reads the newest board mail over IMAP and replies over SMTP, in
/// §10's forms (German levels, castling, the level left out, attack-board
/// moves); the line is `tests/it/games/tri_d/http.rs`'s (25 plies).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_3d_chess_game_to_checkmate_over_smtp_and_imap() {
    const PLAY: [&str; 25] = [
        "c2W-c3N", "d5N", "0-0", "d6N", "b3N", "Sc6N", "Ba3N", "b6S", "Bxd6N", "c6B", "Bb8", "a5B", "Bxa9DP6", "a6B",
        "Bz8", "d4W", "Bxb6B", "Ba6N", "Be9", "DP6-DP4", "Bxa5B", "d3W", "b1W-d3W", "QL4-QL2", "Bxa6N#",
    ];
    let stack = stack();
    let moves = unique("m");
    let (white, black) = (unique("w3d"), unique("b3d"));
    let emails = [format!("{white}@{DOMAIN}"), format!("{black}@{DOMAIN}")];
    let steward = Steward::start(&stack, &moves).await;
    let (game, _, _) = game_of(&stack, &steward, "tri-d-chess", [&emails[0], &emails[1]]).await;
    let within = Duration::from_secs(20);
    for (i, text) in PLAY.iter().enumerate() {
        let (seat, user) = (i % 2, [&white, &black][i % 2]);
        // The mail to answer: the start mail, then the board mail of the last turn.
        let id =
            if i == 0 { format!("{game}.0.0.started@{DOMAIN}") } else { format!("{game}.{i}.{seat}.turn@{DOMAIN}") };
        let mails = wait_for(&stack, user, within, &id, |m| m.iter().any(|x| x.message_id == id)).await;
        let board = mails.into_iter().find(|m| m.message_id == id).unwrap();
        if i == 19 {
            // Black's board move comes after White's bishop took its rook: the
            // board on QL6 carries nothing now.
            assert!(text_of(&board).contains("QL6"), "{}", text_of(&board));
        }
        let body = format!("{text}\r\n\r\nOn Mon, Fairsteward wrote:\r\n{}", quoted(&board));
        let from = format!("{} <{}>", ["White", "Black"][seat], emails[seat]);
        send(
            &stack,
            &emails[seat],
            &bare(&board.header("Reply-To").unwrap()),
            &reply(&from, &board, &unique("r"), &body, false),
        )
        .await;
        let deadline = Instant::now() + within;
        loop {
            let view = steward.game(&game).await;
            if view["turn"] == i + 2 || !view["outcome"].is_null() {
                break;
            }
            assert!(Instant::now() < deadline, "ply {} ({text}) was not played: {view}", i + 1);
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }
    let view = steward.game(&game).await;
    assert_eq!(view["outcome"]["reason"], "checkmate", "{view}");
    assert_eq!(view["history"][19]["moves"][0]["move"], "QL6-QL4");
    assert_eq!(view["history"][24]["moves"][0]["move"], "Bxa6N#");
    // Both players hear the end, with the final board.
    for (seat, user) in [&white, &black].into_iter().enumerate() {
        let id = format!("{game}.25.{seat}.turn@{DOMAIN}");
        let mails =
            wait_for(&stack, user, within, "the last board mail", |m| m.iter().any(|x| x.message_id == id)).await;
        let last = mails.into_iter().find(|m| m.message_id == id).unwrap();
        assert!(last.header("Subject").unwrap_or_default().contains("is over: 1-0 (checkmate)"));
    }
    steward.stop().await;
}

/// The board mail of `turn` to `seat` (the start mail at turn 0) in `mails`.
fn board_mail(mails: &[Mail], turn: u32, seat: usize) -> Option<&Mail> {
    let kind = if turn == 0 { "started" } else { "turn" };
    mails.iter().find(|m| m.message_id.contains(&format!(".{turn}.{seat}.{kind}@")))
}

/// Trialectic Dame by mail through the real servers: three seats on a board
/// given as data (`tests/it/games/data/dame-hexagon.json`), red's compulsory double
/// jump written as start and final cell, and every seat's board mail marking
/// the path and both captured stones, text and picture.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_seats_play_a_double_jump_over_smtp_and_imap() {
    let stack = stack();
    let moves = unique("d");
    let users = [unique("yara"), unique("ruth"), unique("ben")];
    let emails: Vec<String> = users.iter().map(|u| format!("{u}@{DOMAIN}")).collect();
    let steward = Steward::start(&stack, &moves).await;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/dame-hexagon.json");
    let board: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let seats: Vec<Value> =
        ["Yara", "Ruth", "Ben"].iter().zip(&emails).map(|(n, e)| json!({"name": n, "email": e})).collect();
    let body = json!({"variant": "trialectic-dame", "options": {"board": board}, "seats": seats});
    let created = steward.create(&body).await;
    let game = created["game"]["id"].as_str().unwrap().to_owned();

    // Yellow steps, red must jump twice; each replies to its newest board mail.
    let mut handled = 0;
    for (turn, seat, text) in [(0u32, 0usize, "b3-c3"), (1, 1, "d2xb1")] {
        let mails = wait_for(&stack, &users[seat], Duration::from_secs(20), "the board mail", |m| {
            board_mail(m, turn, seat).is_some()
        })
        .await;
        let board = board_mail(&mails, turn, seat).unwrap().clone();
        let raw = reply(&emails[seat], &board, &unique("dm"), &format!("{text}\r\n\r\n{}", quoted(&board)), false);
        handled += 1;
        send_and_wait(&stack, &moves, &emails[seat], &bare(&board.header("Reply-To").unwrap()), &raw, handled).await;
    }
    let view = steward.game(&game).await;
    let history = view["history"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{view}");
    assert_eq!(history[1]["moves"][0]["move"], "d2xb3xb1", "the whole path, from start and final cell");
    assert_eq!(view["to_move"], json!(["blue"]));

    for (seat, user) in users.iter().enumerate() {
        let mails = wait_for(&stack, user, Duration::from_secs(30), "turn 2's board mail", |m| {
            board_mail(m, 2, seat).is_some()
        })
        .await;
        let mail = board_mail(&mails, 2, seat).unwrap();
        let text = text_of(mail);
        assert_eq!(text.matches("x .").count(), 2, "seat {seat}: both captured stones marked:\n{text}");
        assert!(text.contains("red: d2xb3xb1 - played") && text.contains("+ last move, x captured"), "{text}");
        let parsed = MessageParser::default().parse(&mail.raw).unwrap();
        let picture =
            parsed.attachments().find(|a| a.content_type().is_some_and(|c| c.c_subtype.as_deref() == Some("png")));
        assert!(picture.is_some_and(|p| p.contents().starts_with(b"\x89PNG")), "seat {seat}: the picture");
    }
    steward.stop().await;
}

/// A three-seat Dreierschach game played to checkmate wholly over the real
/// servers: every seat reads its board mail over IMAP and answers its Reply-To
/// over SMTP; the steward reads its mailbox over IMAP. The line is the smothered
/// mate of `tests/it/games/dreierschach/http.rs` (White 3, Brown 0, Black 1), in the
/// notations of `docs/rules/dreierschach.md` §8.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_seat_game_played_to_mate_over_smtp_and_imap() {
    const LINE: [(&str, &str); 16] = dreierschach_game::MATE;
    let stack = stack();
    let moves = unique("m");
    let users = [unique("wilma"), unique("bruno"), unique("berta")];
    let emails: Vec<String> = users.iter().map(|u| format!("{u}@{DOMAIN}")).collect();
    let steward = Steward::start(&stack, &moves).await;
    let body = json!({"variant": "dreierschach", "seats": [
        {"name": "Wilma", "email": emails[0]},
        {"name": "Bruno", "email": emails[1]},
        {"name": "Berta", "email": emails[2]},
    ]});
    let resp = steward
        .client
        .post(format!("{}/api/games", steward.base))
        .bearer_auth(&steward.operator)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    let game = resp.json::<Value>().await.unwrap()["game"]["id"].as_str().unwrap().to_owned();
    let within = Duration::from_secs(30);
    for (i, (text, written)) in LINE.iter().enumerate() {
        let seat = i % 3;
        // The mover's latest board mail: the start mail, or the last turn's.
        let board_id =
            if i == 0 { format!("{game}.0.0.started@{DOMAIN}") } else { format!("{game}.{i}.{seat}.turn@{DOMAIN}") };
        let mails =
            wait_for(&stack, &users[seat], within, &board_id, |m| m.iter().any(|x| x.message_id == board_id)).await;
        let board = mails.iter().find(|x| x.message_id == board_id).unwrap();
        if i > 0 {
            // It tells the previous mover's move.
            let before = LINE[i - 1].1;
            assert!(text_of(board).contains(&format!(": {before} - played")), "{}", text_of(board));
        }
        let to = bare(&board.header("Reply-To").expect("a Reply-To"));
        let answer = format!("{text}\r\n\r\nOn Mon, Fairsteward wrote:\r\n{}", quoted(board));
        let from = format!("Player <{}>", emails[seat]);
        send(&stack, &emails[seat], &to, &reply(&from, board, &unique("mv"), &answer, false)).await;
        let deadline = Instant::now() + within;
        loop {
            let view = steward.game(&game).await;
            if view["turn"] == json!(i + 2) {
                assert_eq!(view["history"][i]["moves"][0]["move"], *written, "{view}");
                break;
            }
            assert!(Instant::now() < deadline, "turn {} was not resolved: {view}", i + 1);
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }
    let view = steward.game(&game).await;
    assert_eq!(view["outcome"]["result"], "white 3, brown 0, black 1 (checkmate)", "{view}");
    for (seat, user) in users.iter().enumerate() {
        let last = format!("{game}.16.{seat}.turn@{DOMAIN}");
        let mails =
            wait_for(&stack, user, within, "the last board mail", |m| m.iter().any(|x| x.message_id == last)).await;
        let mail = mails.iter().find(|x| x.message_id == last).unwrap();
        assert!(mail.header("Subject").unwrap().contains("is over: white 3, brown 0, black 1 (checkmate)"));
    }
    steward.stop().await;
}
