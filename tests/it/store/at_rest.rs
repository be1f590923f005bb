//! Nothing pending in clear at rest (issue 11 point 3): for every combination of
//! the `auth` (token | signature) and `secrecy` (hold | commit-reveal) options,
//! with the pending move sent by HTTP and by mail (`fairsteward ingest`, an MTA
//! pipe), while its turn is open no file under the data directory (database,
//! WAL, SHM, keys, spool, anything else), no log line, no GET endpoint of the
//! API and no web page (for spectators or another seat signed in) holds it in clear; once the turn resolves it is public, and the operator
//! can read the kept copy (`fairsteward game inbound`). And the data directory is
//! 0700, its files 0600.
//!
//! The one exception is the promise's own: the spool is the players' delivered
//! mail, so the answer to the mover ("Accepted: move Nh3 …") is in it, mode 0600;
//! the test checks that this is the only place, and that it is an answer to the
//! mover. The steward runs as the real binary (its log is read) on a loopback
//! port; mails go to the spool.
//!
//! The moves are knight moves on the g and h files (white Nh3 = g1h3, black Nh6 =
//! g8h6): their UCI form holds a `g` or an `h`, so never appears in hex (hashes,
//! tokens, receipts), and their SAN in no hint text (see tests/it/trust/wire.rs).

use crate::support as common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::leak::{assert_nowhere_in_clear, clear_in, decoded_body, files_under, paths_under};
use common::{Api, Server, Steward, eventually, spool_files};
use fairsteward::protocol::{Body, Envelope, PlayerKey, StewardKeys, commitment, random_nonce, random_salt};
use serde_json::{Value, json};

const WHITE: (&str, &str) = ("Nh3", "g1h3");
const BLACK: (&str, &str) = ("Nh6", "g8h6");
const ALICE: &str = "alice@example.org";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Auth {
    Token,
    Signature,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Secrecy {
    Hold,
    CommitReveal,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Door {
    Http,
    Mail,
}

/// Where the steward's mail goes: the spool (in the data directory), or the
/// local SMTP server of `scripts/mailstack.sh` (then nothing is excluded).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Out {
    Spool,
    Smtp,
}

/// The steward under test: its data directory, its configuration file (SMTP
/// only) and Alice's address.
struct Setup {
    data: PathBuf,
    config: Option<PathBuf>,
    alice: String,
}

impl Setup {
    fn new(dir: &Path, out: Out) -> Setup {
        let data = dir.join("data");
        match out {
            Out::Spool => Setup { data, config: None, alice: ALICE.to_owned() },
            Out::Smtp => {
                let stack = common::mailstack::stack();
                let config = dir.join("fairsteward.toml");
                std::fs::write(
                    &config,
                    format!(
                        "[mail.smtp]\nhost = \"{}\"\nport = {}\ntls = \"none\"\n",
                        stack.smtp_host, stack.smtp_port
                    ),
                )
                .unwrap();
                let alice = format!("{}@example.org", common::mailstack::unique("atrest"));
                Setup { data, config: Some(config), alice }
            }
        }
    }

    /// `--config FILE` when there is one.
    fn config_args(&self) -> Vec<&std::ffi::OsStr> {
        self.config.iter().flat_map(|c| [std::ffi::OsStr::new("--config"), c.as_os_str()]).collect()
    }
}

/// A game under test: its id, seat tokens and, for signature games, the keys.
struct Game {
    id: String,
    tokens: [String; 2],
    /// The seats' calendar feeds (paths), from the creation answer.
    calendars: [String; 2],
    keys: Option<[PlayerKey; 2]>,
    auth: Auth,
}

const SEATS: [&str; 2] = ["white", "black"];

impl Game {
    /// The envelope of `seat` for turn 1, signed when the game wants signatures.
    fn envelope(&self, seat: usize, body: Body) -> String {
        let mut e = Envelope::new(&self.id, SEATS[seat], 1, body).with_nonce(&random_nonce());
        if let Some(keys) = &self.keys {
            e.sign(&keys[seat]);
        }
        e.to_text()
    }
}

async fn create(api: &Api, auth: Auth, secrecy: Secrecy, alice: &str) -> Game {
    let keys = (auth == Auth::Signature).then(|| [PlayerKey::generate(), PlayerKey::generate()]);
    let bob = format!("b{alice}");
    let mut seats = json!([{"name": "Alice", "email": alice}, {"name": "Bob", "email": bob}]);
    if let Some(k) = &keys {
        seats[0]["public_key"] = json!(k[0].public_key_base64());
        seats[1]["public_key"] = json!(k[1].public_key_base64());
    }
    let options = json!({
        "auth": if auth == Auth::Token { "token" } else { "signature" },
        "secrecy": if secrecy == Secrecy::Hold { "hold" } else { "commit-reveal" },
    });
    let created = api
        .post_json("/api/games", None, &json!({"variant": "fairschach", "options": options, "seats": seats}))
        .await
        .ok(201);
    let token = |i: usize| created["tokens"][i]["token"].as_str().unwrap().to_owned();
    let calendar = |i: usize| {
        let url = created["tokens"][i]["calendar"].as_str().unwrap();
        format!("/api/{}", url.split_once("/api/").unwrap().1)
    };
    Game {
        id: created["game"]["id"].as_str().unwrap().to_owned(),
        tokens: [token(0), token(1)],
        calendars: [calendar(0), calendar(1)],
        keys,
        auth,
    }
}

/// What a seat sends: a move, a commitment or a reveal (turn 1).
enum Send<'a> {
    Move(&'a str),
    Commit(&'a str, &'a [u8]),
    Reveal(&'a str, &'a [u8]),
}

impl Send<'_> {
    fn body(&self, game: &str, seat: usize) -> Body {
        match *self {
            Send::Move(m) => Body::Move(m.to_owned()),
            Send::Commit(m, salt) => Body::Commit(commitment(game, SEATS[seat], 1, m, salt)),
            Send::Reveal(m, salt) => Body::Reveal { text: m.to_owned(), salt: salt.to_vec() },
        }
    }

    fn json(&self, game: &str, seat: usize) -> Value {
        match *self {
            Send::Move(m) => json!({"turn": 1, "move": m}),
            Send::Commit(m, salt) => json!({"turn": 1, "commit": hex_of(&commitment(game, SEATS[seat], 1, m, salt))}),
            Send::Reveal(m, salt) => json!({"turn": 1, "move": m, "salt": hex_of(salt)}),
        }
    }
}

/// Sends for white through `door`, or for black over HTTP, and checks it was taken.
async fn send(api: &Api, at: &Setup, g: &Game, seat: usize, door: Door, what: Send<'_>, ingest_log: &mut String) {
    match (door, g.auth) {
        (Door::Http, Auth::Token) => {
            let body = what.json(&g.id, seat);
            let a = api.post_json(&format!("/api/games/{}/moves", g.id), Some(&g.tokens[seat]), &body).await;
            assert_eq!(a.status, 200, "{body} refused: {}", a.text);
        }
        (Door::Http, Auth::Signature) => {
            let text = g.envelope(seat, what.body(&g.id, seat));
            let a = api.post_text(&format!("/api/games/{}/moves", g.id), None, &text).await;
            assert_eq!(a.status, 200, "refused: {}\n{text}", a.text);
        }
        (Door::Mail, _) => {
            assert_eq!(seat, 0, "mails come from Alice");
            let envelope = g.envelope(0, what.body(&g.id, 0));
            // A bare move line where the game takes one; an envelope otherwise.
            let body = match (&what, g.auth) {
                (Send::Move(m), Auth::Token) => (*m).to_owned(),
                _ => envelope,
            };
            let out = ingest(at, &reply_mail(at, &g.id, &body));
            ingest_log.push_str(&out.1);
            assert!(out.0.starts_with("accepted"), "the mail was not accepted: {out:?}");
        }
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Alice's reply to a board mail of turn 1 (to its Reply-To capability, made
/// here with the steward's keys as the steward makes it) with `body`.
fn reply_mail(at: &Setup, game: &str, body: &str) -> String {
    let keys = StewardKeys::load_or_create(&at.data).unwrap();
    let reply_to =
        fairsteward::protocol::capability::address(&keys, "moves@steward.example", game, "white", 1).unwrap();
    let id = format!("{}@example.org", random_nonce());
    format!(
        "From: Alice <{}>\r\nTo: {reply_to}\r\nSubject: Re: Game {game}\r\nMessage-ID: <{id}>\r\n\
         Date: Wed, 25 Nov 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
        at.alice,
        body.replace('\n', "\r\n").trim_end()
    )
}

/// Pipes a mail into `fairsteward ingest`; its stdout line and its stderr.
fn ingest(at: &Setup, mail: &str) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(["ingest", "--data-dir"])
        .arg(&at.data)
        .args(at.config_args())
        .envs(common::backend::database_env(&at.data))
        .env("RUST_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(mail.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "ingest failed: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).trim().to_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Whether a spool file is an answer to Alice: her delivered mail.
fn answer_to_alice(name: &str, bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let head = text.split("\r\n\r\n").next().unwrap_or("").to_owned();
    name.contains(".answer-") && head.lines().any(|l| l.to_ascii_lowercase().starts_with("to:") && l.contains(ALICE))
}

/// Every file under the data directory (the answers to the mover aside, checked
/// to be 0600), the PostgreSQL store when the store is there, the steward's log
/// and ingest's: nowhere the pending moves in clear.
fn assert_data_dir_clean(moment: &str, data: &Path, log: &str, pending: &[(&str, &str)]) -> usize {
    let mut places = Vec::new();
    let mut answers = 0;
    for (name, bytes) in files_under(data) {
        let file = name.strip_prefix("decoded ").unwrap_or(&name);
        let spooled = file.strip_prefix("spool/").filter(|f| f.ends_with(".eml"));
        let raw = std::fs::read(data.join(file)).unwrap_or_default();
        if spooled.is_some_and(|f| answer_to_alice(f, &raw)) {
            assert_eq!(mode(&data.join(file)), 0o600, "{moment}: the mover's delivered answer {file}");
            answers += 1;
            continue;
        }
        places.push((name, bytes));
    }
    if common::backend::on_postgres() {
        places.extend(common::backend::store_places(data));
    } else {
        assert!(places.iter().any(|(n, _)| n == "steward.db"), "{moment}: the database is in {}", data.display());
        assert!(places.iter().any(|(n, _)| n == "steward.db-wal"), "{moment}: the WAL is searched too");
    }
    places.push(("the log".to_owned(), log.as_bytes().to_vec()));
    assert_nowhere_in_clear(moment, &places, pending);
    answers
}

/// Every GET endpoint of the API, as anyone and as each seat: the pending moves
/// nowhere, except the mover's own `pending_move` in its own view of the game.
async fn assert_endpoints_clean(moment: &str, api: &Api, g: &Game, pending: &[(&str, &str)], mover: Option<usize>) {
    let id = &g.id;
    let mut answers = Vec::new();
    let mut get = async |path: String, token: Option<&str>| {
        let a = api.get(&path, token).await;
        assert!(a.status < 500, "{moment}: GET {path}: {} {}", a.status, a.text);
        answers.push((format!("GET {path} ({} token)", token.map_or("no", |_| "a seat's")), a));
    };
    get("/api/steward".into(), None).await;
    for path in ["", "/transcript", "/board.svg", "/board.svg?seat=white", "/board.svg?seat=black", "/board.png"] {
        get(format!("/api/games/{id}{path}"), None).await;
    }
    get(format!("/api/games/{id}/board.png?seat=black&size=64"), None).await;
    for (seat, token) in g.tokens.iter().enumerate() {
        let t = Some(token.as_str());
        if Some(seat) != mover {
            get(format!("/api/games/{id}"), t).await;
        }
        get(format!("/api/games/{id}/transcript"), t).await;
        get("/api/leave".into(), t).await;
        get(format!("/api/seats/{token}/leave"), None).await;
        get(format!("/api/seats/{token}/deadlines.ics"), None).await;
        get(g.calendars[seat].clone(), None).await;
    }
    // The web pages (issue 17): as a spectator, and signed in as each seat.
    for path in ["", "/record.json", "/record.pgn", "/rules"] {
        get(format!("/games/{id}{path}"), None).await;
    }
    get("/".into(), None).await;
    let mut pages = Vec::new();
    for (seat, token) in g.tokens.iter().enumerate() {
        let cookie = web_session(api, token).await;
        for path in [
            format!("/games/{id}"),
            format!("/games/{id}/record.json"),
            format!("/games/{id}/record.pgn"),
            "/me".into(),
        ] {
            let a = api.client.get(format!("{}{path}", api.base)).header("Cookie", &cookie).send().await.unwrap();
            let status = a.status().as_u16();
            let text = a.text().await.unwrap();
            assert!(status < 500, "{moment}: GET {path} signed in: {status} {text}");
            if Some(seat) == mover && path == format!("/games/{id}") {
                // The control: the mover's own page shows its own pending move.
                assert!(
                    text.contains(&format!("<strong>{}</strong>", pending[0].0)),
                    "{moment}: the mover's page: {text}"
                );
                continue;
            }
            pages.push((seat, format!("GET {path} (signed in as seat {seat})"), text));
        }
    }
    let api_answers = answers.iter().map(|(w, a)| (None, w, &a.text));
    for (viewer, what, text) in api_answers.chain(pages.iter().map(|(s, w, t)| (Some(*s), w, t))) {
        // A seat's own page offers its legal moves, the one it will send among
        // them: only the others' moves must not show there.
        for (_, (san, uci)) in pending.iter().enumerate().filter(|(i, _)| Some(*i) != viewer) {
            if let Some(found) = clear_in(text.as_bytes(), uci, san) {
                panic!("{moment}: the pending move {san} is in the answer to {what}: {found}");
            }
        }
    }
    assert!(answers.iter().any(|(w, a)| w.contains("/transcript") && a.status == 200));
    // The mover's own view: its pending move shows there, and only there.
    if let Some(seat) = mover {
        let mut v = api.game(id, Some(&g.tokens[seat])).await;
        let own = v["seats"][seat]["pending_move"].take();
        assert_eq!(own, json!(pending[0].0), "{moment}: the mover sees its own pending move: {v}");
        let rest = v.to_string();
        assert!(clear_in(rest.as_bytes(), pending[0].1, pending[0].0).is_none(), "{moment}: {rest}");
    }
}

/// Signs in on the web pages with a seat token (the sign-in form); the
/// session cookie (`name=value`).
async fn web_session(api: &Api, token: &str) -> String {
    let client = reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let a = client
        .post(format!("{}/sign-in", api.base))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(format!("token={token}&next=/me"))
        .send()
        .await
        .unwrap();
    assert_eq!(a.status().as_u16(), 303, "signing in with a seat token");
    let cookie = a.headers()["set-cookie"].to_str().unwrap();
    cookie.split(';').next().unwrap().to_owned()
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

/// The data directory is 0700, every directory under it 0700, every file 0600.
#[track_caller]
fn assert_private(data: &Path) {
    assert_eq!(mode(data), 0o700, "the data directory {}", data.display());
    let paths = paths_under(data);
    // SQLite's files are among them (there are none on PostgreSQL).
    assert!(common::backend::on_postgres() || paths.iter().any(|p| p.ends_with("steward.db-shm")), "{paths:?}");
    for path in paths {
        // Gone since the listing: a temporary file renamed into place, or the
        // -wal and -shm SQLite removes as the store closes.
        if std::fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
            continue;
        }
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&path), want, "{}", path.display());
    }
}

/// One combination: white's move (or commitment and reveal) through `door`,
/// searched for while pending; black's over HTTP resolves the turn; then it is
/// public, and the kept copy opens for the operator.
async fn pending_move_is_nowhere_in_clear(auth: Auth, secrecy: Secrecy, door: Door) {
    pending_move_is_nowhere_in_clear_with(auth, secrecy, door, Out::Spool).await;
}

async fn pending_move_is_nowhere_in_clear_with(auth: Auth, secrecy: Secrecy, door: Door, out: Out) {
    let case = format!("{auth:?}/{secrecy:?}/{door:?}/{out:?}");
    let dir = tempfile::tempdir().unwrap();
    let at = Setup::new(dir.path(), out);
    let data = at.data.clone();
    let mut steward = Steward::start_with(&data, &at.config_args()).await;
    let api = steward.api();
    let g = create(&api, auth, secrecy, &at.alice).await;
    let spool = data.join("spool");
    eventually("the start mails", || {
        let sent = match out {
            Out::Spool => spool_files(&spool).len(),
            Out::Smtp => steward.count("mail sent"),
        };
        (sent >= 2).then_some(())
    })
    .await;
    let mut ingest_log = String::new();
    let log = |s: &Steward, ingest: &str| format!("{}\n{ingest}\n", s.log());
    let both = [WHITE, BLACK];
    let (w_salt, b_salt) = (random_salt(), random_salt());

    if secrecy == Secrecy::CommitReveal {
        send(&api, &at, &g, 0, door, Send::Commit(WHITE.0, &w_salt), &mut ingest_log).await;
        send(&api, &at, &g, 1, Door::Http, Send::Commit(BLACK.0, &b_salt), &mut ingest_log).await;
        assert_data_dir_clean(&format!("{case}: committed"), &data, &log(&steward, &ingest_log), &both);
    }
    let white = match secrecy {
        Secrecy::Hold => Send::Move(WHITE.0),
        Secrecy::CommitReveal => Send::Reveal(WHITE.0, &w_salt),
    };
    let accepted = steward.count(" accepted game=");
    send(&api, &at, &g, 0, door, white, &mut ingest_log).await;
    if door == Door::Http {
        eventually("the log line of white's move", || (steward.count(" accepted game=") > accepted).then_some(()))
            .await;
    }
    let v = api.game(&g.id, None).await;
    assert_eq!((v["turn"].as_u64(), &v["moved"]), (Some(1), &json!(["white"])), "{case}: white's move is in: {v}");

    // Pending: nowhere in clear.
    let moment = format!("{case}: white's move pending");
    let answers = assert_data_dir_clean(&moment, &data, &log(&steward, &ingest_log), &both);
    assert_endpoints_clean(&moment, &api, &g, &both, Some(0)).await;
    if door == Door::Mail && out == Out::Smtp {
        // The receipt went to SMTP from its sealed row (and the row stays sealed).
        let db = common::backend::Db::of(&data);
        let row = || -> Option<(bool, Option<String>)> {
            let rows = db.rows("SELECT sealed, sent_at FROM outbox WHERE message_id LIKE '%.answer-%'", &[]);
            rows.first().map(|r| (r[0].int() != 0, r[1].opt_text()))
        };
        let sealed = eventually("the answer handed to SMTP", || row().filter(|r| r.1.is_some()).map(|r| r.0)).await;
        assert!(sealed, "{case}: the answer's row is sealed");
        assert_eq!(answers, 0, "{case}: no spool");
        drop(db);
        assert_data_dir_clean(&format!("{moment}, answer sent"), &data, &log(&steward, &ingest_log), &both);
    }
    if door == Door::Mail && out == Out::Spool {
        // The control: the receipt is delivered to Alice naming her move, opened by
        // the drainer from its sealed row.
        assert!(answers >= 1, "{case}: the answer to Alice is spooled");
        let receipts: Vec<Vec<u8>> = spool_files(&spool)
            .into_iter()
            .filter(|(n, b)| answer_to_alice(n, b))
            .map(|(_, b)| decoded_body(&b))
            .collect();
        assert!(
            receipts.iter().any(|b| String::from_utf8_lossy(b).contains(&format!("Accepted: {} ", WHITE.0))
                || String::from_utf8_lossy(b).contains(&format!(" {} for turn 1", WHITE.0))),
            "{case}: the receipt names the move: {:?}",
            receipts.iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect::<Vec<_>>()
        );
    }

    // Black completes the turn; now the moves are public.
    let black = match secrecy {
        Secrecy::Hold => Send::Move(BLACK.0),
        Secrecy::CommitReveal => Send::Reveal(BLACK.0, &b_salt),
    };
    send(&api, &at, &g, 1, Door::Http, black, &mut ingest_log).await;
    let v = api.game(&g.id, None).await;
    assert_eq!(v["history"][0]["moves"][0]["move"], WHITE.0, "{case}: {v}");
    assert_eq!(v["history"][0]["moves"][1]["move"], BLACK.0, "{case}: {v}");
    let transcript = api.get(&format!("/api/games/{}/transcript", g.id), None).await.text;
    assert!(clear_in(transcript.as_bytes(), WHITE.1, WHITE.0).is_some(), "{case}: public in the transcript");
    let mut places = files_under(&data);
    places.extend(common::backend::store_places(&data));
    let db: Vec<u8> =
        places.into_iter().filter(|(n, _)| common::backend::is_store_place(n)).flat_map(|(_, b)| b).collect();
    assert!(clear_in(&db, WHITE.1, WHITE.0).is_some(), "{case}: the resolved move is in the store");

    // The operator reads every kept copy, white's move among them.
    let out = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(["game", "inbound", &g.id, "--data-dir"])
        .arg(&data)
        .envs(common::backend::database_env(&data))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kept: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kept = kept.as_array().unwrap();
    assert!(kept.iter().all(|k| k["sealed"] == true), "{case}: every copy is kept sealed: {kept:?}");
    let door_name = if door == Door::Http { "http" } else { "mail" };
    assert!(
        kept.iter().any(|k| k["door"] == door_name && k["text"].as_str().is_some_and(|t| t.contains(WHITE.0))),
        "{case}: white's message opens for the operator: {kept:?}"
    );

    steward.stop();
    assert_private(&data);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_hold_by_http() {
    pending_move_is_nowhere_in_clear(Auth::Token, Secrecy::Hold, Door::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_hold_by_mail() {
    pending_move_is_nowhere_in_clear(Auth::Token, Secrecy::Hold, Door::Mail).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_commit_reveal_by_http() {
    pending_move_is_nowhere_in_clear(Auth::Token, Secrecy::CommitReveal, Door::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_commit_reveal_by_mail() {
    pending_move_is_nowhere_in_clear(Auth::Token, Secrecy::CommitReveal, Door::Mail).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_hold_by_http() {
    pending_move_is_nowhere_in_clear(Auth::Signature, Secrecy::Hold, Door::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_hold_by_mail() {
    pending_move_is_nowhere_in_clear(Auth::Signature, Secrecy::Hold, Door::Mail).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_commit_reveal_by_http() {
    pending_move_is_nowhere_in_clear(Auth::Signature, Secrecy::CommitReveal, Door::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_commit_reveal_by_mail() {
    pending_move_is_nowhere_in_clear(Auth::Signature, Secrecy::CommitReveal, Door::Mail).await;
}

/// With SMTP, not even the answers to the mover stay in the data directory: they
/// are queued sealed and opened only as they go to the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_hold_by_mail_over_smtp() {
    pending_move_is_nowhere_in_clear_with(Auth::Token, Secrecy::Hold, Door::Mail, Out::Smtp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_commit_reveal_by_mail_over_smtp() {
    pending_move_is_nowhere_in_clear_with(Auth::Signature, Secrecy::CommitReveal, Door::Mail, Out::Smtp).await;
}

/// The modes come from the steward's own code, not only from the umask of the
/// binary: an in-process steward (this test process keeps its umask) makes a
/// 0700 directory and 0600 files; an older, open data directory is closed at start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_dir_is_0700_and_its_files_0600() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start_in(&data).await;
    let g = create(&server.api(), Auth::Token, Secrecy::Hold, ALICE).await;
    eventually("the start mails", || (spool_files(&data.join("spool")).len() >= 2).then_some(())).await;
    server.mv(&g.id, &g.tokens[0], 1, WHITE.0).await.ok(200);
    server.shut_down().await;
    assert_private(&data);

    // A data directory from before: open to all, and so are its files.
    let open = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    for path in paths_under(&data) {
        open(&path, if path.is_dir() { 0o755 } else { 0o644 });
    }
    open(&data, 0o755);
    let server = Server::start_in(&data).await;
    server.game(&g.id, None).await;
    server.shut_down().await;
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join("spool")), 0o700);
    let pictures = data.join("steward.db-pictures");
    let private = |p: &Path| p.parent() == Some(data.as_path()) || p.parent() == Some(pictures.as_path());
    for path in paths_under(&data).into_iter().filter(|p| private(p)) {
        // SQLite removes the -wal and -shm as the store closes, maybe since the listing.
        if std::fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
            continue;
        }
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&path), want, "{}", path.display());
    }
}
