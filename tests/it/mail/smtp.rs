//! Outbound mail against real servers: OpenSMTPD (SMTP) and Dovecot (IMAP) on
//! 127.0.0.1, started by `scripts/mailstack.sh`. `scripts/test` starts them and
//! exports where they are (`MAILSTACK_SMTP_HOST/PORT`, `MAILSTACK_IMAP_HOST/PORT`,
//! `MAILSTACK_PASS`); without those variables every test here fails and says so.
//!
//! OpenSMTPD delivers any recipient to the maildir of its local part, and Dovecot
//! lets `<local-part>` / `$MAILSTACK_PASS` read it, so each test uses local parts
//! of its own (process id, time, counter): tests and concurrent test runs never
//! see each other's mail. Mails are read back over IMAP with async-imap, the way
//! the IMAP door will read them.
//!
//! Outages are made with a small TCP proxy in front of the real SMTP port, which
//! each test owns: closed, it accepts and drops connections (and records when);
//! open, it relays, optionally slowly. Stopping OpenSMTPD itself would disturb the
//! other tests.

use crate::support as common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fairsteward::config::{Config, Overrides, RawConfig, RawHttp, RawMail};
use fairsteward::letters::compose::{Draft, Extras, MailKind, compose};
use fairsteward::mail::smtp::{RawSmtp, SmtpConfig, SmtpSink, TlsMode};
use futures_util::TryStreamExt;
use mail_parser::{MessageParser, MimeHeaders};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use common::backend::Db;
use common::mailstack::{Stack, stack, unique};

/// The default sender's domain, part of every Message-ID.
const DOMAIN: &str = "steward.example";

/// Whether the steward's board mails carry the board as a PNG: they do
/// (`steward/mails.rs` renders it with `render::png`). Without one the HTML part
/// shows the text board and must not point at a missing image.
const STEWARD_SENDS_PNG: bool = true;

// ---------------------------------------------------------------------------
// The mail servers
// ---------------------------------------------------------------------------

/// Every message in `user`'s INBOX, read over IMAP (without marking it seen).
async fn mailbox(stack: &Stack, user: &str) -> Vec<Vec<u8>> {
    let tcp = TcpStream::connect((stack.imap_host.as_str(), stack.imap_port))
        .await
        .unwrap_or_else(|e| panic!("connect to IMAP {}:{}: {e}", stack.imap_host, stack.imap_port));
    let mut client = async_imap::Client::new(tcp);
    // async-imap hands the greeting back separately: read it before logging in.
    client.read_response().await.expect("the IMAP greeting").expect("a greeting line");
    let mut session = client.login(user, &stack.pass).await.map_err(|(e, _)| e).expect("IMAP login");
    let inbox = session.select("INBOX").await.expect("SELECT INBOX");
    let mut mails = Vec::new();
    if inbox.exists > 0 {
        let fetches: Vec<_> =
            session.fetch("1:*", "BODY.PEEK[]").await.expect("FETCH").try_collect().await.expect("FETCH answers");
        mails.extend(fetches.iter().map(|f| f.body().expect("a message body").to_vec()));
    }
    let _ = session.logout().await;
    mails
}

/// A message as received.
#[derive(Clone, Debug)]
struct Received {
    message_id: String,
    in_reply_to: Option<String>,
    references: Option<String>,
    subject: String,
    raw: Vec<u8>,
}

fn received(raw: Vec<u8>) -> Received {
    let raw = raw.as_slice();
    let m = MessageParser::default().parse(raw).expect("a parsable message");
    Received {
        message_id: m.message_id().expect("a Message-ID").to_owned(),
        in_reply_to: m.in_reply_to().as_text().map(str::to_owned),
        references: m.references().as_text().map(str::to_owned),
        subject: m.subject().unwrap_or_default().to_owned(),
        raw: raw.to_vec(),
    }
}

/// The mailboxes of `users`, parsed.
async fn mailboxes(stack: &Stack, users: &[String]) -> BTreeMap<String, Vec<Received>> {
    let mut out = BTreeMap::new();
    for u in users {
        out.insert(u.clone(), mailbox(stack, u).await.into_iter().map(received).collect());
    }
    out
}

/// Polls the mailboxes of `users` until `done` holds, for at most `within`.
async fn wait_for_mail(
    stack: &Stack,
    users: &[String],
    within: Duration,
    what: &str,
    done: impl Fn(&BTreeMap<String, Vec<Received>>) -> bool,
) -> BTreeMap<String, Vec<Received>> {
    let deadline = Instant::now() + within;
    loop {
        let boxes = mailboxes(stack, users).await;
        if done(&boxes) {
            return boxes;
        }
        if Instant::now() > deadline {
            let seen: BTreeMap<_, Vec<_>> =
                boxes.iter().map(|(u, m)| (u.clone(), m.iter().map(|r| r.message_id.clone()).collect())).collect();
            panic!("timed out after {within:?} waiting for {what}; the mailboxes hold {seen:#?}");
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

/// An SMTP sink to the stack's server, sending as `from`.
fn sink_to(stack: &Stack, from: &lettre::message::Mailbox) -> SmtpSink {
    let config = SmtpConfig::from_raw(RawSmtp {
        host: Some(stack.smtp_host.clone()),
        port: Some(stack.smtp_port),
        tls: Some(TlsMode::None),
        ..RawSmtp::default()
    })
    .unwrap();
    SmtpSink::new(&config, from).unwrap()
}

fn count(boxes: &BTreeMap<String, Vec<Received>>) -> usize {
    boxes.values().map(Vec::len).sum()
}

// ---------------------------------------------------------------------------
// A TCP proxy in front of the SMTP server, to make outages
// ---------------------------------------------------------------------------

struct Proxy {
    addr: SocketAddr,
    shared: Arc<ProxyShared>,
    task: tokio::task::JoinHandle<()>,
}

struct ProxyShared {
    upstream: (String, u16),
    open: AtomicBool,
    /// Milliseconds to hold each chunk the server sends (a slow server).
    delay_ms: AtomicU64,
    /// When connections came in while closed (each one dropped at once).
    refused: Mutex<Vec<Instant>>,
    /// The relays in progress, cut when the proxy closes.
    live: Mutex<Vec<tokio::task::AbortHandle>>,
}

impl Proxy {
    async fn start(stack: &Stack, open: bool) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(ProxyShared {
            upstream: (stack.smtp_host.clone(), stack.smtp_port),
            open: AtomicBool::new(open),
            delay_ms: AtomicU64::new(0),
            refused: Mutex::new(Vec::new()),
            live: Mutex::new(Vec::new()),
        });
        let task = tokio::spawn({
            let shared = shared.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    if !shared.open.load(Ordering::SeqCst) {
                        shared.refused.lock().unwrap().push(Instant::now());
                        drop(client);
                        continue;
                    }
                    let relay = tokio::spawn(relay(client, shared.clone()));
                    shared.live.lock().unwrap().push(relay.abort_handle());
                }
            }
        });
        Proxy { addr, shared, task }
    }

    fn open(&self) {
        self.shared.open.store(true, Ordering::SeqCst);
    }

    fn slow(&self, delay: Duration) {
        self.shared.delay_ms.store(delay.as_millis() as u64, Ordering::SeqCst);
    }

    fn refused(&self) -> Vec<Instant> {
        self.shared.refused.lock().unwrap().clone()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
        for relay in self.shared.live.lock().unwrap().drain(..) {
            relay.abort();
        }
    }
}

async fn relay(client: TcpStream, shared: Arc<ProxyShared>) {
    let Ok(server) = TcpStream::connect((shared.upstream.0.as_str(), shared.upstream.1)).await else { return };
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let upward = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
        let _ = server_write.shutdown().await;
    });
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match server_read.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let delay = shared.delay_ms.load(Ordering::SeqCst);
        if delay > 0 {
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        if client_write.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = client_write.shutdown().await;
    upward.abort();
}

// ---------------------------------------------------------------------------
// A steward in this process, and over HTTP
// ---------------------------------------------------------------------------

/// A steward serving on a loopback port with `[mail.smtp]` at `port`.
struct Steward {
    base: String,
    client: reqwest::Client,
    config: Config,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), fairsteward::server::ServerError>>>,
    _dir: tempfile::TempDir,
}

impl Steward {
    async fn start(smtp_port: u16) -> Steward {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let dir = tempfile::tempdir().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let raw = RawConfig {
            http: RawHttp { public_url: Some(format!("http://{addr}")), ..RawHttp::default() },
            mail: RawMail {
                smtp: Some(RawSmtp {
                    host: Some("127.0.0.1".into()),
                    port: Some(smtp_port),
                    tls: Some(TlsMode::None),
                    timeout_seconds: Some(10),
                    ..RawSmtp::default()
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
        assert!(config.smtp.is_some());
        // Made now (as serve would at its start), so a game can be created at once.
        fairsteward::server::operator_token(&config).expect("the operator token");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(fairsteward::server::serve(config.clone(), listener, async move {
            let _ = stopped.await;
        }));
        common::start_up_swept(&format!("http://{addr}")).await;
        Steward {
            base: format!("http://{addr}"),
            client: http_client(),
            config,
            stop: Some(stop),
            task: Some(task),
            _dir: dir,
        }
    }

    /// Shuts down (with the last drain) and waits for it.
    async fn stop(mut self) {
        drop(self.stop.take());
        let task = self.task.take().unwrap();
        tokio::time::timeout(Duration::from_secs(30), task).await.expect("the steward stops").unwrap().unwrap();
    }

    fn db(&self) -> Db {
        Db::of(&self.config.data_dir)
    }
}

fn http_client() -> reqwest::Client {
    // reqwest speaks TLS through rustls with ring; the provider is chosen once per process.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().unwrap()
}

/// A game's id and seat tokens.
struct Game {
    id: String,
    tokens: [String; 2],
}

async fn post(client: &reqwest::Client, url: String, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut req = client.post(url).header("Content-Type", "application/json").body(body.to_string());
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    let resp = req.send().await.expect("the steward answers");
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text)))
}

/// Creates a Fairschach game for the players at `emails` (white, black), as the
/// operator of the steward whose data directory is `data_dir`.
async fn create_game(client: &reqwest::Client, base: &str, data_dir: &Path, emails: [&str; 2]) -> Game {
    let body = json!({"variant": "fairschach", "seats": [
        {"name": "Alice", "email": emails[0]},
        {"name": "Bob", "email": emails[1]},
    ]});
    let operator = common::operator_token(data_dir);
    let (status, v) = post(client, format!("{base}/api/games"), Some(&operator), body).await;
    assert_eq!(status, 201, "create: {v}");
    let token = |i: usize| v["tokens"][i]["token"].as_str().unwrap().to_owned();
    Game { id: v["game"]["id"].as_str().unwrap().to_owned(), tokens: [token(0), token(1)] }
}

/// Plays one pair of `game` (white's and black's move for `turn`).
async fn play_pair(client: &reqwest::Client, base: &str, game: &Game, turn: u32, moves: [&str; 2]) {
    for (token, mv) in game.tokens.iter().zip(moves) {
        let (status, v) =
            post(client, format!("{base}/api/games/{}/moves", game.id), Some(token), json!({"turn": turn, "move": mv}))
                .await;
        assert_eq!(status, 200, "move {mv} for turn {turn}: {v}");
    }
}

/// The Message-ID (without brackets) of a game's mail.
fn mid(game: &str, turn: u32, seat: usize, kind: &str) -> String {
    format!("{game}.{turn}.{seat}.{kind}@{DOMAIN}")
}

/// The outbox rows: Message-ID → (attempts, last_error, sent).
fn outbox(db: &Db) -> BTreeMap<String, (i64, Option<String>, bool)> {
    db.rows("SELECT message_id, attempts, last_error, sent_at IS NOT NULL FROM outbox ORDER BY id", &[])
        .iter()
        .map(|r| (r[0].text(), (r[1].int(), r[2].opt_text(), r[3].int() != 0)))
        .collect()
}

/// The oldest outbox row's Message-ID.
fn oldest(db: &Db) -> String {
    db.one("SELECT message_id FROM outbox ORDER BY id LIMIT 1", &[]).expect("a queued mail").text()
}

// ---------------------------------------------------------------------------
// 1. Board mails over SMTP, read back over IMAP
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_mails_arrive_once_threaded_and_multipart() {
    let stack = stack();
    let steward = Steward::start(stack.smtp_port).await;
    let (white, black) = (unique("white"), unique("black"));
    let emails = [format!("{white}@example.org"), format!("{black}@example.org")];
    let g = create_game(&steward.client, &steward.base, &steward.config.data_dir, [&emails[0], &emails[1]]).await;
    play_pair(&steward.client, &steward.base, &g, 1, ["e4", "d5"]).await;

    let users = [white.clone(), black.clone()];
    let boxes =
        wait_for_mail(&stack, &users, Duration::from_secs(20), "a start mail and a turn mail for each seat", |b| {
            b.values().all(|m| m.len() >= 2)
        })
        .await;
    // Nothing more comes: each mail arrived once.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let again = mailboxes(&stack, &users).await;
    assert_eq!(count(&again), count(&boxes), "no mail arrives twice");
    assert_eq!(count(&again), 4);

    for (seat, user) in users.iter().enumerate() {
        let mails = &again[user];
        let ids: BTreeSet<&str> = mails.iter().map(|m| m.message_id.as_str()).collect();
        let started_id = mid(&g.id, 0, seat, "started");
        let turn_id = mid(&g.id, 1, seat, "turn");
        assert_eq!(
            ids,
            BTreeSet::from([started_id.as_str(), turn_id.as_str()]),
            "the stable Message-IDs of seat {seat}"
        );
        let started = mails.iter().find(|m| m.message_id == started_id).unwrap();
        let turn = mails.iter().find(|m| m.message_id == turn_id).unwrap();
        // One thread per game: the turn mail answers the start mail.
        assert_eq!(started.in_reply_to, None);
        assert_eq!(turn.in_reply_to.as_deref(), Some(started_id.as_str()));
        assert_eq!(turn.references.as_deref(), Some(started_id.as_str()));
        // The subject names the game, the move number and what is asked.
        assert_eq!(turn.subject, format!("Game {}, your move {}", g.id, ["2.", "2..."][seat]));
        assert!(started.subject.contains(&g.id) && started.subject.ends_with("your move"), "{}", started.subject);

        for mail in [started, turn] {
            let m = MessageParser::default().parse(&mail.raw).unwrap();
            let kinds: Vec<String> = m
                .parts
                .iter()
                .map(|p| {
                    let ct = p.content_type().expect("a Content-Type");
                    format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or_default())
                })
                .collect();
            // Wrapped in the steward's PGP/MIME signature (issue 33).
            let expected: &[&str] = if STEWARD_SENDS_PNG {
                &[
                    "multipart/signed",
                    "multipart/alternative",
                    "text/plain",
                    "multipart/related",
                    "text/html",
                    "image/png",
                    "application/pgp-signature",
                ]
            } else {
                &["multipart/signed", "multipart/alternative", "text/plain", "text/html", "application/pgp-signature"]
            };
            assert_eq!(kinds, expected, "the MIME structure of {}", mail.message_id);
            let text = m.body_text(0).expect("a text/plain part");
            let html = m.body_html(0).expect("a text/html part");
            if mail.message_id == turn_id {
                assert!(
                    text.contains("white: e4 - played") && text.contains("black: d5 - played"),
                    "the moves of the turn:\n{text}"
                );
                assert!(html.contains("e4") && html.contains("played"), "{html}");
            }
            let rank1 = if seat == 0 { "  1  R N B Q K B N R  1" } else { "  8  r n b k q b n r  8" };
            assert!(text.lines().any(|l| l == rank1), "the board in the text part ({rank1:?}):\n{text}");
            assert!(html.contains(&format!("Game {}", g.id)), "{html}");
            assert!(html.contains("Steward key fingerprint"), "the transcript head and fingerprint: {html}");
            if STEWARD_SENDS_PNG {
                assert!(html.contains("src=\"cid:board\""), "{html}");
                let png = m.parts.iter().find(|p| p.content_id() == Some("board")).expect("the board image");
                assert!(png.contents().starts_with(b"\x89PNG"), "a PNG");
            } else {
                assert!(!html.contains("cid:"), "no link to a missing image: {html}");
                assert!(html.contains(rank1.trim()), "the text board in the HTML part: {html}");
            }
        }
    }
    // The outbox knows them all as sent.
    let rows = outbox(&steward.db());
    assert_eq!(rows.len(), 4);
    assert!(rows.values().all(|(attempts, error, sent)| *sent && *attempts == 1 && error.is_none()), "{rows:?}");
    steward.stop().await;
}

/// A board mail queued without its PNG goes through the outbox drainer to a
/// real server whole, the picture put in: multipart/alternative, then
/// multipart/related with the image inline, drawn from the queued SVG.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_mail_with_its_png_passes_a_real_server_whole() {
    use fairsteward::mail::outbox::{Drainer, Pass, Sink};
    use fairsteward::render::svg::Marks;
    use fairsteward::rules::{Options, Seat, VariantId};
    use fairsteward::store::{BoardPicture, PictureSource};
    let stack = stack();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let chess = VariantId::Chess.rulebook(&Options::new()).unwrap();
    let source = PictureSource {
        variant: VariantId::Chess,
        options: Options::new(),
        state: chess.start(),
        marks: Marks::default(),
        seat: Seat::new(0),
        size_px: 320,
    };
    let drawing = source.drawing().unwrap();
    let picture = BoardPicture::new(source);
    let user = unique("png");
    let from: lettre::message::Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
    let game: fairsteward::ids::GameId = "8KQ2ZJ".parse().unwrap();
    let row = compose(Draft {
        from: &from,
        game: &game,
        turn: 1,
        seat: 0,
        kind: MailKind::Turn,
        to_name: "Alice",
        to_email: &format!("{user}@example.org"),
        subject: "Game 8KQ2ZJ, turn 2: your move".into(),
        template: "turn.txt",
        context: minijinja::context! {
            game => "8KQ2ZJ", variant => "fairschach", turn => 1, next_turn => 2, seat_name => "white", player => "Alice",
            moves => vec![minijinja::context! { seat => "white", notation => "e4", status => "played" }],
            board => "  1  R N B Q K B N R  1", you_owe => true, state => "-", public_url => "http://127.0.0.1:8080",
        },
        date: chrono::Utc::now(),
        extras: Extras {
            html: Some("turn.html"),
            picture: Some(picture.clone()),
            reply_to: Some("moves+8KQ2ZJ.0.2.x@steward.example".parse().unwrap()),
            ..Extras::default()
        },
    })
    .unwrap();
    assert!(!row.message.windows(4).any(|w| w == b"\x89PNG"), "the queued mail carries no PNG");
    let sink = sink_to(&stack, &from);
    let dir = tempfile::tempdir().unwrap();
    let store = common::backend::open_store(dir.path());
    let queued = row.clone();
    store.transaction(move |tx| tx.queue_mail(&queued, chrono::Utc::now())).await.unwrap();
    let keys = Arc::new(fairsteward::protocol::StewardKeys::load_or_create(&dir.path().join("keys")).unwrap());
    let mut drainer = Drainer::new(store.clone(), Sink::Smtp(sink), keys);
    assert_eq!(drainer.pass().await.unwrap(), Pass { delivered: 1, refused: 0, stopped: false });
    let pictures: (i64, i64) = store.transaction(|tx| tx.count_pictures()).await.unwrap();
    assert_eq!(pictures, (0, 0), "the picture is dropped once its mail is sent");

    let boxes =
        wait_for_mail(&stack, std::slice::from_ref(&user), Duration::from_secs(20), "the mail", |b| count(b) == 1)
            .await;
    let raw = &boxes[&user][0].raw;
    let m = MessageParser::default().parse(raw).unwrap();
    assert_eq!(m.message_id(), Some("8KQ2ZJ.1.0.turn@steward.example"));
    assert_eq!(m.header_raw("Reply-To").map(str::trim), Some("moves+8KQ2ZJ.0.2.x@steward.example"));
    let kinds: Vec<String> = m
        .parts
        .iter()
        .map(|p| p.content_type().map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default())).unwrap())
        .collect();
    assert_eq!(kinds, ["multipart/alternative", "text/plain", "multipart/related", "text/html", "image/png"]);
    let image = m.parts.iter().find(|p| p.content_id() == Some("board")).expect("Content-ID <board>");
    let parts = fairsteward::render::png::Parts::default();
    let drawn = fairsteward::render::png::drawing_png(&drawing, 320, &parts).unwrap();
    assert_eq!(image.contents(), drawn, "the picture arrives byte for byte");
    assert!(m.body_html(0).unwrap().contains("src=\"cid:board\""));
    // What arrived is the queued mail with the picture put in, after the trace
    // headers the servers add.
    let sent = fairsteward::letters::compose::put_picture(&row.message, &picture.key, &drawn).unwrap();
    let sent = String::from_utf8_lossy(&sent);
    // (SMTP ends the data with a line break the stored message may lack.)
    let arrived = String::from_utf8_lossy(raw).replace("\r\n", "\n");
    assert!(arrived.trim_end().ends_with(sent.replace("\r\n", "\n").trim_end()), "the message arrives unchanged");
}

/// OpenSMTPD takes at most 100 mails in one SMTP session and answers the next
/// with 452 ("Too many messages per session"); so do many providers, at their own
/// numbers. The sink's pooled connection reaches that limit on a busy day: the mail
/// must still go out at once, on a fresh connection, not wait out a pause of the
/// whole queue (which used to add 3 s to a board mail now and then).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_limit_of_mails_per_session_costs_no_pause() {
    let stack = stack();
    let user = unique("session");
    let sink = sink_to(&stack, &format!("moves@{DOMAIN}").parse().unwrap());
    const MAILS: usize = 230;
    for n in 0..MAILS {
        let message = format!(
            "From: moves@{DOMAIN}\r\nTo: {user}@example.org\r\nSubject: {n}\r\nMessage-ID: <{user}.{n}@{DOMAIN}>\r\n\r\nmail {n}\r\n"
        );
        if let Err(e) = sink.send(&format!("{user}@example.org"), message.as_bytes()).await {
            panic!("mail {n} of {MAILS} on one sink was not taken: {e}");
        }
    }
    let boxes = wait_for_mail(&stack, std::slice::from_ref(&user), Duration::from_secs(30), "every mail", |b| {
        count(b) >= MAILS
    })
    .await;
    let ids: BTreeSet<_> = boxes[&user].iter().map(|r| r.message_id.clone()).collect();
    assert_eq!(ids.len(), MAILS, "each mail arrives once");
}

/// A mail the server cannot take (here: a recipient that is no address) is held
/// back on its own; the mails behind it go out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_mail_is_held_back_and_the_others_go_on() {
    use fairsteward::mail::outbox::{Drainer, Pass, Sink};
    use fairsteward::store::{OutboxRow, StoreError};
    let stack = stack();
    let dir = tempfile::tempdir().unwrap();
    let store = common::backend::open_store(dir.path());
    let user = unique("held");
    let mail = |n: u32, to: &str| {
        OutboxRow {
        id: 0,
        message_id: format!("8KQ2ZJ.{n}.0.turn.{user}@{DOMAIN}"),
        game_id: "8KQ2ZJ".into(),
        recipient: to.to_owned(),
        subject: format!("mail {n}"),
        message: format!("From: moves@{DOMAIN}\r\nTo: {to}\r\nSubject: mail {n}\r\nMessage-ID: <8KQ2ZJ.{n}.0.turn.{user}@{DOMAIN}>\r\n\r\nbody\r\n")
            .into_bytes(),
        letter: None,
        sealed: false,
        picture: None,
    }
    };
    let rows = vec![
        mail(1, "not an address"),
        mail(2, &format!("{user}@example.org")),
        mail(3, &format!("{user}@example.org")),
    ];
    store
        .transaction(move |tx| {
            for r in &rows {
                tx.queue_mail(r, chrono::Utc::now())?;
            }
            Ok::<_, StoreError>(())
        })
        .await
        .unwrap();
    let sink = sink_to(&stack, &format!("moves@{DOMAIN}").parse().unwrap());
    let keys = std::sync::Arc::new(fairsteward::protocol::StewardKeys::load_or_create(dir.path()).unwrap());
    let mut drainer = Drainer::new(store.clone(), Sink::Smtp(sink), keys);
    assert_eq!(drainer.pass().await.unwrap(), Pass { delivered: 2, refused: 1, stopped: false });
    assert!(!drainer.paused(), "a refused mail does not pause the queue");
    // At once again: the refused mail waits its own backoff, nothing is sent twice.
    assert_eq!(drainer.pass().await.unwrap(), Pass::default());
    let boxes =
        wait_for_mail(&stack, std::slice::from_ref(&user), Duration::from_secs(20), "two mails", |b| count(b) >= 2)
            .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(count(&mailboxes(&stack, std::slice::from_ref(&user)).await), 2, "{boxes:?}");
    let rows = outbox(&Db::of(dir.path()));
    let refused = &rows[&format!("8KQ2ZJ.1.0.turn.{user}@{DOMAIN}")];
    assert_eq!((refused.0, refused.2), (1, false), "tried once, still queued: {rows:?}");
    assert!(refused.1.as_deref().is_some_and(|e| e.contains("not a mail address")), "{rows:?}");
}

// ---------------------------------------------------------------------------
// 2. The SMTP server down for a while
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_the_server_is_down_mails_wait_with_backoff_then_each_arrives_once() {
    let stack = stack();
    let proxy = Proxy::start(&stack, false).await;
    let steward = Steward::start(proxy.addr.port()).await;
    let (white, black) = (unique("down-w"), unique("down-b"));
    let g = create_game(
        &steward.client,
        &steward.base,
        &steward.config.data_dir,
        [&format!("{white}@example.org"), &format!("{black}@example.org")],
    )
    .await;
    play_pair(&steward.client, &steward.base, &g, 1, ["e4", "d5"]).await;
    play_pair(&steward.client, &steward.base, &g, 2, ["Nf3", "Nc6"]).await;

    // The drainer keeps trying, 1 s, 2 s, 4 s apart: the same mail each time (the
    // oldest), and not once per queued mail or per wake-up.
    let deadline = Instant::now() + Duration::from_secs(20);
    while proxy.refused().len() < 4 {
        assert!(Instant::now() < deadline, "only {} attempts in 20 s", proxy.refused().len());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let times = proxy.refused();
    let gaps: Vec<f64> = times.windows(2).map(|w| (w[1] - w[0]).as_secs_f64()).collect();
    assert_eq!(times.len(), 4, "no extra attempts: gaps {gaps:?}");
    for (gap, expected) in gaps.iter().zip([1.0, 2.0, 4.0]) {
        assert!(*gap >= expected * 0.9 && *gap <= expected + 1.0, "the backoff doubles from 1 s: gaps {gaps:?}");
    }
    let db = steward.db();
    let first = oldest(&db);
    let deadline = Instant::now() + Duration::from_secs(5);
    let rows = loop {
        let rows = outbox(&db);
        if rows[&first].0 >= 4 || Instant::now() > deadline {
            break rows;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(rows.len(), 6, "two start mails and four turn mails queued: {rows:?}");
    assert!(rows.values().all(|(_, _, sent)| !sent), "nothing is sent while the server is down");
    let (attempts, error, _) = &rows[&first];
    assert_eq!(*attempts, 4, "each attempt is recorded on the mail tried: {rows:?}");
    assert!(
        error.as_deref().is_some_and(|e| e.contains(&proxy.addr.port().to_string())),
        "the last error names the server: {error:?}"
    );
    assert!(
        rows.iter().filter(|(id, _)| **id != first).all(|(_, (a, _, _))| *a == 0),
        "the others wait untried: {rows:?}"
    );
    let users = [white.clone(), black.clone()];
    assert_eq!(count(&mailboxes(&stack, &users).await), 0);

    // The server comes back: at the next attempt (8 s after the last) everything goes.
    proxy.open();
    let boxes = wait_for_mail(&stack, &users, Duration::from_secs(30), "three mails per seat", |b| {
        b.values().all(|m| m.len() >= 3)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let again = mailboxes(&stack, &users).await;
    assert_eq!(count(&again), count(&boxes), "nothing arrives twice");
    for (seat, user) in users.iter().enumerate() {
        let ids: Vec<&str> = again[user].iter().map(|m| m.message_id.as_str()).collect();
        let mut expected =
            vec![mid(&g.id, 0, seat, "started"), mid(&g.id, 1, seat, "turn"), mid(&g.id, 2, seat, "turn")];
        let mut got: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "every mail of seat {seat} exactly once");
    }
    let rows = outbox(&db);
    assert!(rows.values().all(|(_, error, sent)| *sent && error.is_none()), "{rows:?}");
    assert_eq!(rows[&first].0, 5, "four failures and the delivery");
    steward.stop().await;
}

// ---------------------------------------------------------------------------
// 3. The steward killed in the middle of sending, then restarted
// ---------------------------------------------------------------------------

/// The real binary, serving with a configuration file; SIGKILLed when dropped.
struct Daemon {
    child: Child,
    base: String,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Daemon {
    /// `serve --config CONFIG`, the file naming `data_dir` (whose store the
    /// environment names on PostgreSQL).
    fn start(config: &Path, data_dir: &Path) -> Daemon {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
            .args(["serve", "--listen", "127.0.0.1:0", "--config"])
            .arg(config)
            .envs(common::backend::database_env(data_dir))
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the fairsteward binary starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or_default().to_owned());
                }
            }
        });
        let addr = rx.recv_timeout(Duration::from_secs(20)).expect("the steward's listening line on stderr");
        Daemon { child, base: format!("http://{addr}"), reader: Some(reader) }
    }

    /// SIGKILL: no shutdown, no last drain.
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_mid_drain_and_restarted_every_mail_arrives_and_repeats_keep_their_message_id() {
    let stack = stack();
    let proxy = Proxy::start(&stack, false).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("fairsteward.toml");
    std::fs::write(
        &config,
        format!(
            "data_dir = {:?}\n[mail.smtp]\nhost = \"127.0.0.1\"\nport = {}\ntls = \"none\"\ntimeout_seconds = 10\n",
            dir.path().join("data"),
            proxy.addr.port()
        ),
    )
    .unwrap();
    let db = Db::of(&dir.path().join("data"));
    let client = http_client();

    // Run 1, the server unreachable: two games, a pair each; 8 mails queued. Killed.
    let daemon = Daemon::start(&config, &dir.path().join("data"));
    let mut users = Vec::new();
    let mut expected = BTreeSet::new();
    for n in 0..2 {
        let (white, black) = (unique(&format!("kill{n}-w")), unique(&format!("kill{n}-b")));
        let g = create_game(
            &client,
            &daemon.base,
            &dir.path().join("data"),
            [&format!("{white}@example.org"), &format!("{black}@example.org")],
        )
        .await;
        play_pair(&client, &daemon.base, &g, 1, ["e4", "d5"]).await;
        for seat in 0..2 {
            expected.insert(mid(&g.id, 0, seat, "started"));
            expected.insert(mid(&g.id, 1, seat, "turn"));
        }
        users.extend([white, black]);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while outbox(&db).len() < 8 {
        assert!(Instant::now() < deadline, "8 mails queued");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    daemon.kill();
    assert!(outbox(&db).values().all(|(_, _, sent)| !sent), "nothing sent yet");

    // Run 2, a slow server: killed once some mails are through, before all are.
    proxy.slow(Duration::from_millis(150));
    proxy.open();
    let daemon = Daemon::start(&config, &dir.path().join("data"));
    let at_kill =
        wait_for_mail(&stack, &users, Duration::from_secs(30), "the first two mails", |b| count(b) >= 2).await;
    daemon.kill();
    let delivered_before: BTreeSet<String> = at_kill.values().flatten().map(|m| m.message_id.clone()).collect();
    assert!(delivered_before.len() < 8, "the kill came in the middle of the drain: {delivered_before:?}");
    let rows = outbox(&db);
    assert!(
        delivered_before.iter().all(|id| !rows[id].2),
        "marked sent in batches: what went out just before the crash is not marked yet: {rows:?}"
    );

    // Run 3: every mail arrives; the ones already delivered come again, with the
    // same Message-ID.
    proxy.slow(Duration::ZERO);
    let daemon = Daemon::start(&config, &dir.path().join("data"));
    let boxes = wait_for_mail(&stack, &users, Duration::from_secs(30), "every mail", |b| {
        let ids: BTreeSet<&String> = b.values().flatten().map(|m| &m.message_id).collect();
        ids.len() == expected.len()
    })
    .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !outbox(&db).values().all(|(_, _, sent)| *sent) {
        assert!(Instant::now() < deadline, "every mail marked sent: {:?}", outbox(&db));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let last = mailboxes(&stack, &users).await;
    assert_eq!(count(&last), count(&boxes), "nothing more arrives once all are marked sent");
    daemon.kill();

    let mut copies: BTreeMap<String, Vec<&Received>> = BTreeMap::new();
    for m in last.values().flatten() {
        copies.entry(m.message_id.clone()).or_default().push(m);
    }
    let ids: BTreeSet<String> = copies.keys().cloned().collect();
    assert_eq!(ids, expected, "distinct Message-IDs: exactly the mails queued");
    for (id, c) in &copies {
        if delivered_before.contains(id) {
            assert_eq!(c.len(), 2, "{id} was delivered before the crash, not yet marked sent: resent once after it");
        } else {
            // Once; or twice if the server took it in the moments between our look and the kill.
            assert!(c.len() <= 2, "{id} arrived {} times", c.len());
        }
        // A repeat is the same mail: the same subject and the same Date.
        let parsed: Vec<_> =
            c.iter().map(|m| MessageParser::default().parse(&m.raw).unwrap().date().map(|d| d.to_rfc3339())).collect();
        assert!(parsed.windows(2).all(|w| w[0] == w[1]), "{id}: the copies have the same Date");
        assert!(c.windows(2).all(|w| w[0].subject == w[1].subject), "{id}");
    }
    // The user-visible count: the distinct Message-IDs are the mails queued.
    assert_eq!(copies.len(), 8);
    eprintln!(
        "killed after {} of 8 mails had arrived; {} copies in all, {} distinct Message-IDs",
        delivered_before.len(),
        count(&last),
        copies.len()
    );
}
