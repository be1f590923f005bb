//! Mail as the player wants it (issue 32, point 2), end to end over HTTP with
//! the spool: the setting by `GET`/`PUT /api/me/mail`; board mails only when it
//! is the player's move; the daily digest sent by the real `fairsteward sweep`
//! once per player per day; pictures attached, linked or none; board mails
//! without a picture under 15 KB in every game; the HTML part fits a 600-pixel
//! window (rendered in headless Chromium). The steward runs in this process on
//! a manual clock; its own scheduled sweep never comes in a test's lifetime.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use chrono::{DateTime, SecondsFormat, Utc};
use fairsteward::clock::Clock;
use fairsteward::config::{Config, Overrides, RawConfig, RawHttp, RawSchedule};
use fairsteward::rules::{Options, VariantId};
use mail_parser::{MessageParser, MimeHeaders};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::support::webdriver::Chromium;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

struct Lab {
    dir: tempfile::TempDir,
    clock: Clock,
    client: reqwest::Client,
    base: String,
    operator: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), fairsteward::server::ServerError>>>,
}

struct Game {
    id: String,
    tokens: Vec<String>,
}

impl Lab {
    async fn new(start: &str) -> Lab {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut lab = Lab {
            dir: tempfile::tempdir().unwrap(),
            clock: Clock::manual(t(start)),
            client: reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(20)).build().unwrap(),
            base: String::new(),
            operator: String::new(),
            stop: None,
            task: None,
        };
        lab.start().await;
        lab
    }

    async fn start(&mut self) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let raw = RawConfig {
            http: RawHttp { public_url: Some(format!("http://{addr}")), ..RawHttp::default() },
            schedule: RawSchedule { sweep: Some("0 0 0 1 1 * 2099".into()), ..RawSchedule::default() },
            ..RawConfig::default()
        };
        let overrides = Overrides {
            data_dir: Some(self.dir.path().to_owned()),
            listen: Some(addr.to_string()),
            database: crate::support::backend::database_for(self.dir.path()),
        };
        let mut config = Config::from_raw(raw, &overrides).unwrap();
        config.clock = self.clock.clone();
        self.operator = fairsteward::server::operator_token(&config).unwrap().reveal().to_owned();
        let (stop, stopped) = oneshot::channel::<()>();
        self.task = Some(tokio::spawn(fairsteward::server::serve(config, listener, async move {
            let _ = stopped.await;
        })));
        self.stop = Some(stop);
        self.base = format!("http://{addr}");
        crate::support::start_up_swept(&self.base).await;
    }

    async fn restart(&mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.take().unwrap().await.unwrap().unwrap();
        self.start().await;
    }

    fn spool_dir(&self) -> PathBuf {
        self.dir.path().join("spool")
    }

    async fn send(&self, method: reqwest::Method, path: &str, token: Option<&str>, body: Option<&str>) -> (u16, Value) {
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.header("Content-Type", "application/json").body(b.to_owned());
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    async fn put_mail(&self, token: &str, body: Value) -> Value {
        let (status, v) = self.send(reqwest::Method::PUT, "/api/me/mail", Some(token), Some(&body.to_string())).await;
        assert_eq!(status, 200, "{v}");
        v
    }

    async fn create(&self, variant: &str, players: &[&str]) -> Game {
        let seats: Vec<Value> =
            players.iter().map(|p| json!({"name": p, "email": format!("{}@example.org", p.to_lowercase())})).collect();
        let body = json!({"variant": variant, "seats": seats}).to_string();
        let (status, v) = self.send(reqwest::Method::POST, "/api/games", Some(&self.operator), Some(&body)).await;
        assert_eq!(status, 201, "{v}");
        Game {
            id: v["game"]["id"].as_str().unwrap().to_owned(),
            tokens: v["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect(),
        }
    }

    async fn view(&self, g: &Game) -> Value {
        self.send(reqwest::Method::GET, &format!("/api/games/{}", g.id), None, None).await.1
    }

    async fn mv(&self, g: &Game, seat: usize, turn: u64, text: &str) {
        let body = json!({"turn": turn, "move": text}).to_string();
        let path = format!("/api/games/{}/moves", g.id);
        let (status, v) = self.send(reqwest::Method::POST, &path, Some(&g.tokens[seat]), Some(&body)).await;
        assert_eq!(status, 200, "{text}: {v}");
    }

    /// Plays one turn: every seat to move plays its first legal move (the
    /// rules' own list). Returns false when the game is over.
    async fn play_turn(&self, g: &Game, variant: VariantId) -> bool {
        let v = self.view(g).await;
        if !v["outcome"].is_null() {
            return false;
        }
        let rules = variant.rulebook(&Options::new()).unwrap();
        let state = v["state"].as_str().unwrap();
        let turn = v["turn"].as_u64().unwrap();
        for name in v["to_move"].as_array().unwrap() {
            let name = name.as_str().unwrap();
            let seat = rules.seat(name).unwrap();
            let legal = rules.legal_moves(state, seat).unwrap();
            let index = v["seats"].as_array().unwrap().iter().position(|s| s["seat"] == name).unwrap();
            self.mv(g, index, turn, &legal[legal.len() / 2]).await;
        }
        true
    }

    /// The spool now: file name → raw mail.
    fn spool(&self) -> BTreeMap<String, Vec<u8>> {
        let Ok(entries) = std::fs::read_dir(self.spool_dir()) else { return BTreeMap::new() };
        entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect()
    }

    /// Waits until the outbox is empty (the spool holds every queued mail).
    async fn drained(&self) -> BTreeMap<String, Vec<u8>> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let db = crate::support::backend::Db::of(self.dir.path());
        loop {
            let unsent = db.count("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL", &[]);
            if unsent == 0 {
                return self.spool();
            }
            assert!(Instant::now() < deadline, "the outbox did not drain");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// `fairsteward sweep --now T` on the data directory; the report.
    fn sweep(&self, at: DateTime<Utc>) -> Value {
        self.clock.set(at);
        let out = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
            .args(["sweep", "--data-dir"])
            .arg(self.dir.path())
            .envs(crate::support::backend::database_env(self.dir.path()))
            .args(["--now", &at.to_rfc3339_opts(SecondsFormat::Secs, true)])
            .env_remove("RUST_LOG")
            .output()
            .unwrap();
        assert!(out.status.success(), "sweep failed: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn text_of(raw: &[u8]) -> String {
    MessageParser::default().parse(raw).unwrap().body_text(0).unwrap_or_default().into_owned()
}

fn html_of(raw: &[u8]) -> String {
    MessageParser::default().parse(raw).unwrap().body_html(0).unwrap_or_default().into_owned()
}

fn has_picture(raw: &[u8]) -> bool {
    let m = MessageParser::default().parse(raw).unwrap();
    m.parts.iter().any(|p| p.content_type().is_some_and(|c| c.ctype() == "image"))
}

/// The board mails of `game` in the spool, by (turn, seat index).
fn board_mails(spool: &BTreeMap<String, Vec<u8>>, game: &str) -> BTreeMap<(u32, usize), Vec<u8>> {
    spool
        .iter()
        .filter_map(|(name, raw)| {
            let rest = name.strip_prefix(&format!("{game}."))?;
            let mut parts = rest.split('.');
            let turn: u32 = parts.next()?.parse().ok()?;
            let seat: usize = parts.next()?.parse().ok()?;
            parts.next()?.starts_with("turn@").then(|| ((turn, seat), raw.clone()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mail_setting_is_read_and_changed_over_http() {
    let lab = Lab::new("2026-03-02T10:00:00Z").await;
    let g = lab.create("chess", &["Ann", "Ben"]).await;
    let get = |token: Option<String>| {
        let lab = &lab;
        async move { lab.send(reqwest::Method::GET, "/api/me/mail", token.as_deref(), None).await }
    };
    let (status, v) = get(Some(g.tokens[0].clone())).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!((v["delivery"].as_str(), v["pictures"].as_str()), (Some("every"), Some("attached")), "{v}");
    assert_eq!(v["player"], "ann@example.org");
    assert_eq!(v["digest_hour"], Value::Null);

    let v = lab.put_mail(&g.tokens[0], json!({"delivery": "digest", "digest_hour": 7, "pictures": "none"})).await;
    assert_eq!(
        (v["delivery"].as_str(), v["digest_hour"].as_u64(), v["pictures"].as_str()),
        (Some("digest"), Some(7), Some("none"))
    );
    assert_eq!(v["time_zone"], "UTC");
    // What a change does not name stays.
    let v = lab.put_mail(&g.tokens[0], json!({"pictures": "linked"})).await;
    assert_eq!(
        (v["delivery"].as_str(), v["digest_hour"].as_u64(), v["pictures"].as_str()),
        (Some("digest"), Some(7), Some("linked"))
    );
    let (_, v) = get(Some(g.tokens[0].clone())).await;
    assert_eq!(v["pictures"], "linked");
    // Ben's setting is his own.
    let (_, v) = get(Some(g.tokens[1].clone())).await;
    assert_eq!(v["delivery"], "every");

    // Refusals: JSON errors that say what to send.
    for (token, body, status, code) in [
        (None, Some(r#"{"delivery": "every"}"#), 401, "bad_token"),
        (Some("nope"), Some(r#"{"delivery": "every"}"#), 401, "bad_token"),
        (Some(g.tokens[0].as_str()), Some(r#"{"delivery": "weekly"}"#), 400, "bad_request"),
        (Some(g.tokens[0].as_str()), Some(r#"{"digest_hour": 24}"#), 400, "bad_request"),
        (Some(g.tokens[0].as_str()), Some(r#"{"colour": "blue"}"#), 400, "bad_request"),
        (Some(g.tokens[0].as_str()), Some(r#"{}"#), 400, "bad_request"),
        (Some(g.tokens[0].as_str()), Some(r#"[1]"#), 400, "bad_request"),
    ] {
        let (s, v) = lab.send(reqwest::Method::PUT, "/api/me/mail", token, body).await;
        assert_eq!((s, v["error"].as_str()), (status, Some(code)), "{body:?}: {v}");
        assert!(v["message"].as_str().is_some_and(|m| m.contains("send") || m.contains("token")), "{v}");
    }
    let (_, v) = get(Some(g.tokens[0].clone())).await;
    assert_eq!(v["pictures"], "linked", "a refused change changed nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_turn_sends_board_mails_only_when_a_move_is_owed_and_always_the_last() {
    let lab = Lab::new("2026-03-02T10:00:00Z").await;
    let g = lab.create("chess", &["Ann", "Ben"]).await;
    lab.put_mail(&g.tokens[0], json!({"delivery": "my_turn"})).await;
    lab.put_mail(&g.tokens[1], json!({"delivery": "my_turn"})).await;
    // Fool's mate: 1. f3 e5 2. g4 Qh4#.
    for (seat, turn, mv) in [(0, 1, "f3"), (1, 2, "e5"), (0, 3, "g4"), (1, 4, "Qh4")] {
        lab.mv(&g, seat, turn, mv).await;
    }
    assert!(!lab.view(&g).await["outcome"].is_null());
    let spool = lab.drained().await;
    let mails: Vec<(u32, usize)> = board_mails(&spool, &g.id).into_keys().collect();
    // After turn 1 Ben owes, after 2 Ann, after 3 Ben; turn 4 ends the game: both.
    assert_eq!(mails, [(1, 1), (2, 0), (3, 1), (4, 0), (4, 1)], "{:?}", spool.keys().collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_digest_comes_once_a_day_at_the_hour_listing_the_games_to_move_in() {
    let mut lab = Lab::new("2026-03-02T06:00:00Z").await;
    let g1 = lab.create("chess", &["Ann", "Ben"]).await;
    let g2 = lab.create("chess", &["Ann", "Cy"]).await;
    let g3 = lab.create("chess", &["Dora", "Ann"]).await;
    lab.put_mail(&g1.tokens[0], json!({"delivery": "digest", "digest_hour": 9})).await;
    // Ann moves in g1, so Ben owes there; no board mail goes to Ann in digest mode.
    lab.mv(&g1, 0, 1, "e4").await;
    let spool = lab.drained().await;
    let boards = board_mails(&spool, &g1.id);
    assert!(boards.contains_key(&(1, 1)) && !boards.contains_key(&(1, 0)), "{:?}", boards.keys());
    let digests = |spool: &BTreeMap<String, Vec<u8>>| -> Vec<String> {
        spool.keys().filter(|k| k.starts_with("reminder.digest.")).cloned().collect()
    };
    // Before the hour: nothing.
    let r = lab.sweep(t("2026-03-02T08:59:00Z"));
    assert_eq!(r["daily_digests"], 0, "{r}");
    // At the hour: one mail, Ann's games to move in (g2 as white, g3 not: Dora owes; g1 not).
    let r = lab.sweep(t("2026-03-02T09:00:30Z"));
    assert_eq!(r["daily_digests"], 1, "{r}");
    lab.restart().await;
    let spool = lab.drained().await;
    let sent = digests(&spool);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let mail = &spool[&sent[0]];
    let text = text_of(mail);
    assert!(text.contains(&g2.id) && !text.contains(&g1.id) && !text.contains(&g3.id), "{text}");
    assert!(
        text.contains("Cy (black)") && text.contains("to move, write to: ") && text.contains(&format!("+{}.", g2.id)),
        "{text}"
    );
    assert!(String::from_utf8_lossy(mail).contains("To: Ann <ann@example.org>"), "{}", String::from_utf8_lossy(mail));
    // Again the same day (another sweep, after a restart): nothing more.
    assert_eq!(lab.sweep(t("2026-03-02T09:30:00Z"))["daily_digests"], 0);
    assert_eq!(lab.sweep(t("2026-03-02T23:59:00Z"))["daily_digests"], 0);
    // Dora moves in g3 and Ben in g1: the next day lists all three, board mails
    // still not sent to Ann.
    lab.clock.set(t("2026-03-03T07:00:00Z"));
    lab.mv(&g3, 0, 1, "d4").await;
    lab.mv(&g1, 1, 2, "e5").await;
    let spool = lab.drained().await;
    assert!(!board_mails(&spool, &g3.id).contains_key(&(1, 1)), "no board mail to Ann in g3");
    assert!(!board_mails(&spool, &g1.id).contains_key(&(2, 0)), "no board mail to Ann in g1");
    assert_eq!(lab.sweep(t("2026-03-03T09:10:00Z"))["daily_digests"], 1);
    let spool = lab.drained().await;
    let sent = digests(&spool);
    assert_eq!(sent.len(), 2, "{sent:?}");
    let newest = sent.iter().find(|k| k.contains("2026-03-03")).expect("the digest of the 3rd");
    let text = text_of(&spool[newest]);
    for g in [&g1, &g2, &g3] {
        assert!(text.contains(&g.id), "{text}");
    }
    assert!(text.contains("3 games") && text.contains("last moves: white d4"), "{text}");
}

/// The state of every game a few turns in, with board mails without a
/// picture: under 15 KB from every seat's side; with `linked`, a link to the
/// picture instead of it; the HTML part fits a 600-pixel window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_mails_without_pictures_are_small_and_fit_600_pixels_in_every_game() {
    let lab = Lab::new("2026-03-02T10:00:00Z").await;
    let names = ["Ann", "Ben", "Cy", "Dora"];
    let mut htmls: Vec<(String, String)> = Vec::new();
    for variant in VariantId::ALL {
        let rules = variant.rulebook(&Options::new()).unwrap();
        let seats = rules.seat_names().len();
        let g = lab.create(variant.name(), &names[..seats]).await;
        for (i, token) in g.tokens.iter().enumerate() {
            let pictures = if i == 0 { "linked" } else { "none" };
            lab.put_mail(token, json!({"pictures": pictures})).await;
        }
        for _ in 0..3 {
            if !lab.play_turn(&g, variant).await {
                break;
            }
        }
        let spool = lab.drained().await;
        let boards = board_mails(&spool, &g.id);
        let last = boards.keys().map(|(t, _)| *t).max().expect("board mails");
        for seat in 0..seats {
            let raw = boards.get(&(last, seat)).unwrap_or_else(|| panic!("{variant}: turn {last} seat {seat}"));
            assert!(!has_picture(raw), "{variant}: no picture");
            assert!(raw.len() < 15 * 1024, "{variant} seat {seat}: {} bytes", raw.len());
            let (text, html) = (text_of(raw), html_of(raw));
            let link = format!("/api/games/{}/board.png?seat=", g.id);
            assert_eq!(text.contains(&link), seat == 0, "{variant} seat {seat}: {link} {text}");
            assert_eq!(html.contains(&link), seat == 0, "{variant} seat {seat}");
            assert!(text.contains("mail my turn"), "the how-to line: {text}");
            htmls.push((format!("{variant}-{seat}"), html));
            // The start mail too (with its picture: the game began before the setting).
            let start = spool.get(&format!("{}.0.{seat}.started@steward.example.eml", g.id));
            if let Some(raw) = start.or_else(|| {
                spool.iter().find(|(k, _)| k.starts_with(&format!("{}.0.{seat}.started@", g.id))).map(|(_, v)| v)
            }) {
                htmls.push((format!("{variant}-{seat}-start"), html_of(raw)));
            } else {
                panic!("{variant}: no start mail for seat {seat}: {:?}", spool.keys().collect::<Vec<_>>());
            }
        }
        if variant == VariantId::Chess {
            // The linked picture is there to see.
            let seat = rules.seat_names()[0];
            let resp = lab.client.get(format!("{}/api/games/{}/board.png?seat={seat}", lab.base, g.id)).send().await;
            let resp = resp.unwrap();
            assert_eq!(resp.status().as_u16(), 200);
            assert_eq!(&resp.bytes().await.unwrap()[1..4], b"PNG");
        }
    }
    // Rendered as a mail window 600 pixels wide, nothing scrolls sideways.
    let shots = lab.dir.path().join("shots");
    std::fs::create_dir_all(&shots).unwrap();
    let browser = Chromium::start(600, 900, &shots).await;
    for (name, html) in &htmls {
        let file = write(lab.dir.path(), name, html);
        browser.open(&format!("file://{}", file.display())).await;
        let w = browser
            .script(
                "return [document.documentElement.scrollWidth, window.innerWidth, document.body.scrollWidth];",
                json!([]),
            )
            .await;
        let (scroll, inner) = (w[0].as_u64().unwrap(), w[1].as_u64().unwrap());
        assert!(inner <= 600, "{name}: the window is {inner} px wide");
        assert!(scroll <= 600, "{name}: the HTML part is {scroll} px wide in a 600-pixel window ({w})");
    }
}

fn write(dir: &Path, name: &str, html: &str) -> PathBuf {
    let path = dir.join(format!("{name}.html"));
    std::fs::write(&path, html).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attached_is_the_default_and_keeps_the_picture() {
    let lab = Lab::new("2026-03-02T10:00:00Z").await;
    let g = lab.create("chess", &["Ann", "Ben"]).await;
    lab.mv(&g, 0, 1, "e4").await;
    let spool = lab.drained().await;
    let boards = board_mails(&spool, &g.id);
    assert!(has_picture(&boards[&(1, 0)]) && has_picture(&boards[&(1, 1)]));
    assert!(text_of(&boards[&(1, 0)]).contains("board picture attached"));
    // A game that begins after the setting: its start mail follows it too.
    lab.put_mail(&g.tokens[0], json!({"pictures": "none"})).await;
    let g2 = lab.create("chess", &["Ann", "Ben"]).await;
    let spool = lab.drained().await;
    let start = |seat: usize| {
        spool
            .iter()
            .find(|(k, _)| k.starts_with(&format!("{}.0.{seat}.started@", g2.id)))
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert!(!has_picture(&start(0)), "Ann chose no pictures");
    assert!(has_picture(&start(1)), "Ben did not");
}

/// The `/me` page's forms (a seat signed in by its private link): the mail
/// setting, and an alias asked with its confirmation mail; refusals shown on
/// the page; a form without the session's CSRF token takes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_page_sets_the_mail_and_asks_for_another_address() {
    use crate::support::web::{Browser, sign_in_link};
    let server = crate::support::Server::start().await;
    let n = std::process::id();
    let (ann, ben) = (format!("ann.{n}@example.org"), format!("ben.{n}@example.org"));
    let body = json!({"variant": "chess", "seats": [{"name": "Ann", "email": ann}, {"name": "Ben", "email": ben}]});
    let created = server.post_json("/api/games", None, &body).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let token = created["tokens"][0]["token"].as_str().unwrap().to_owned();
    let spool = server.config.data_dir.join("spool");
    let link = sign_in_link(&spool, &id, "white").await;
    let mut b = Browser::new(&server);
    assert_eq!(b.open_link(&link).await.status, 200);
    let me = b.get("/me").await;
    assert_eq!(me.status, 200, "{}", me.text);
    assert!(me.text.contains(r#"id="mail-form""#) && me.text.contains(r#"id="address-form""#), "{}", me.text);
    assert!(me.text.contains("a board mail after every turn"), "the setting now: {}", me.text);
    let csrf = me.csrf();

    // The mail setting.
    let fields = [("csrf", csrf.as_str()), ("delivery", "digest"), ("digest_hour", "19"), ("pictures", "none")];
    let p = b.post("/me/mail", &fields).await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert!(p.text.contains("Your mail setting is saved: one digest a day at 19:00"), "{}", p.text);
    let v = server.get("/api/me/mail", Some(&token)).await.ok(200);
    assert_eq!(
        (v["delivery"].as_str(), v["digest_hour"].as_u64(), v["pictures"].as_str()),
        (Some("digest"), Some(19), Some("none"))
    );
    let p = b
        .post("/me/mail", &[("csrf", "stale"), ("delivery", "every"), ("digest_hour", ""), ("pictures", "attached")])
        .await;
    assert_eq!(p.status, 403, "{}", p.text);
    let p =
        b.post("/me/mail", &[("csrf", &csrf), ("delivery", "weekly"), ("digest_hour", ""), ("pictures", "none")]).await;
    assert_eq!(p.status, 400, "{}", p.text);
    assert_eq!(server.get("/api/me/mail", Some(&token)).await.ok(200)["delivery"], "digest", "nothing changed");

    // Another address: an alias, confirmed by mail to that address.
    let work = format!("work.{n}@example.org");
    let fields = [("csrf", csrf.as_str()), ("game", id.as_str()), ("kind", "alias"), ("address", work.as_str())];
    let p = b.post("/me/address", &fields).await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert!(p.text.contains(&format!("a confirmation mail was sent to {work}")), "{}", p.text);
    crate::support::eventually("the confirmation mail in the spool", || {
        crate::support::spool_files(&spool)
            .into_iter()
            .find(|(name, bytes)| name.contains(".confirm-") && String::from_utf8_lossy(bytes).contains(&work))
    })
    .await;
    // Its own address is refused, and the page says why.
    let fields = [("csrf", csrf.as_str()), ("game", id.as_str()), ("kind", "email"), ("address", ann.as_str())];
    let p = b.post("/me/address", &fields).await;
    assert_eq!(p.status, 400, "{}", p.text);
    assert!(p.text.contains("already the registered address"), "{}", p.text);
}

/// The digest hour is read in the time zone of a seat of the player that gave
/// one: 9 in Berlin (UTC+1 in March) is 08:00 UTC.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_digest_hour_is_the_players_time_zone() {
    let lab = Lab::new("2026-03-02T06:00:00Z").await;
    let body = json!({"variant": "chess", "seats": [
        {"name": "Ann", "email": "ann@example.org", "time_zone": "Europe/Berlin"},
        {"name": "Ben", "email": "ben@example.org"},
    ]})
    .to_string();
    let (status, v) = lab.send(reqwest::Method::POST, "/api/games", Some(&lab.operator), Some(&body)).await;
    assert_eq!(status, 201, "{v}");
    let token = v["tokens"][0]["token"].as_str().unwrap().to_owned();
    let m = lab.put_mail(&token, json!({"delivery": "digest", "digest_hour": 9})).await;
    assert_eq!(m["time_zone"], "Europe/Berlin", "{m}");
    assert_eq!(lab.sweep(t("2026-03-02T07:59:00Z"))["daily_digests"], 0, "08:59 in Berlin");
    assert_eq!(lab.sweep(t("2026-03-02T08:01:00Z"))["daily_digests"], 1, "09:01 in Berlin");
    let spool = lab.drained().await;
    let digest = spool.iter().find(|(k, _)| k.starts_with("reminder.digest.")).expect("the digest").1;
    assert!(text_of(digest).contains("(Europe/Berlin)"), "{}", text_of(digest));
}
