//! Clocks, deadlines, reminders and leave, end to end.
//!
//! Each test runs a steward in-process on a loopback port with a *manual* clock
//! (`Config::clock`), so HTTP moves happen at exactly the instant a test says; the
//! deadline sweep is the real binary, `fairsteward sweep --now T`, against the same
//! data directory, as an operator or a checking script would run it. No test
//! sleeps to wait for a deadline: time moves only when a test moves it.
//!
//! The expected instants are worked out by hand from the time controls in the
//! docs/clocks.md.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use fairsteward::clock::Clock;
use fairsteward::config::{Config, Overrides, RawConfig, RawHttp, RawSchedule};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

// ---------------------------------------------------------------------------
// Times
// ---------------------------------------------------------------------------

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap_or_else(|e| panic!("{s}: {e}")).with_timezone(&Utc)
}

/// As the API writes times: RFC 3339, milliseconds, `Z`.
fn api(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn days(n: i64) -> TimeDelta {
    TimeDelta::days(n)
}

fn hours(n: i64) -> TimeDelta {
    TimeDelta::hours(n)
}

fn secs(n: i64) -> TimeDelta {
    TimeDelta::seconds(n)
}

// ---------------------------------------------------------------------------
// A steward with a clock the test drives
// ---------------------------------------------------------------------------

struct Running {
    base: String,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), fairsteward::server::ServerError>>,
}

struct Lab {
    dir: tempfile::TempDir,
    clock: Clock,
    client: reqwest::Client,
    server: Option<Running>,
    /// The operator token, sent when a game is created.
    operator: String,
}

#[derive(Clone, Debug)]
struct Game {
    id: String,
    tokens: Vec<String>,
    /// Each seat's calendar feed, from the creation answer.
    calendars: Vec<String>,
}

#[derive(Debug)]
struct Answer {
    status: u16,
    content_type: String,
    text: String,
}

impl Answer {
    #[track_caller]
    fn ok(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "expected {status}: {}", self.text);
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    /// An error answer with this status and code; returns the message.
    #[track_caller]
    fn error(&self, status: u16, code: &str) -> String {
        let v = self.ok(status);
        assert_eq!(v["error"], code, "{v}");
        v["message"].as_str().unwrap().to_owned()
    }
}

/// A mail in the spool.
#[derive(Debug, Clone)]
struct Mail {
    to: String,
    subject: String,
    body: String,
}

impl Lab {
    async fn new(start: &str) -> Lab {
        // reqwest speaks TLS through rustls with ring; the provider is chosen once per process.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut lab = Lab {
            dir: tempfile::tempdir().unwrap(),
            clock: Clock::manual(t(start)),
            client: reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().unwrap(),
            server: None,
            operator: String::new(),
        };
        lab.start().await;
        lab
    }

    fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    fn spool_dir(&self) -> PathBuf {
        self.dir.path().join("spool")
    }

    /// Starts the steward (again) on a fresh port, and waits for its start-up
    /// sweep (which runs beside the first requests).
    /// Its scheduled sweep never comes in a test's lifetime: the tests sweep
    /// with `fairsteward sweep` at the times they choose, and the default
    /// schedule (every five minutes of the system clock) would now and then run
    /// a sweep in the server at the same moment, taking the reminders that the
    /// test's own sweep is about to send.
    async fn start(&mut self) {
        assert!(self.server.is_none(), "already running");
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let raw = RawConfig {
            http: RawHttp { public_url: Some(format!("http://{addr}")), ..RawHttp::default() },
            schedule: RawSchedule { sweep: Some("0 0 0 1 1 * 2099".into()), ..RawSchedule::default() },
            ..RawConfig::default()
        };
        let mut config = Config::from_raw(
            raw,
            &Overrides {
                data_dir: Some(self.data_dir().to_owned()),
                listen: Some(addr.to_string()),
                database: crate::support::backend::database_for(self.data_dir()),
            },
        )
        .unwrap();
        config.clock = self.clock.clone();
        self.operator = fairsteward::server::operator_token(&config).unwrap().reveal().to_owned();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(fairsteward::server::serve(config, listener, async move {
            let _ = stopped.await;
        }));
        crate::support::start_up_swept(&format!("http://{addr}")).await;
        self.server = Some(Running { base: format!("http://{addr}"), stop, task });
    }

    /// Stops the steward and waits until it has drained its outbox.
    async fn stop(&mut self) {
        let r = self.server.take().expect("running");
        let _ = r.stop.send(());
        r.task.await.unwrap().unwrap();
    }

    fn set(&self, to: DateTime<Utc>) {
        self.clock.set(to);
    }

    async fn send(&self, method: reqwest::Method, path: &str, token: Option<&str>, body: Option<Value>) -> Answer {
        let base = &self.server.as_ref().expect("running").base;
        let mut req = self.client.request(method, format!("{base}{path}"));
        // Games are created by the operator.
        let token = token.or((path == "/api/games").then_some(self.operator.as_str()));
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        if let Some(b) = body {
            req = req.header("Content-Type", "application/json").body(b.to_string());
        }
        let resp = req.send().await.unwrap();
        let content_type =
            resp.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        let status = resp.status().as_u16();
        Answer { status, content_type, text: resp.text().await.unwrap() }
    }

    async fn get(&self, path: &str, token: Option<&str>) -> Answer {
        self.send(reqwest::Method::GET, path, token, None).await
    }

    async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Answer {
        self.send(reqwest::Method::POST, path, token, Some(body)).await
    }

    /// Creates a game with `seats` as (name, address, time zone).
    async fn create(&self, variant: &str, clock: Value, seats: &[(&str, &str, Option<&str>)]) -> Game {
        let seats: Vec<Value> = seats
            .iter()
            .map(|(n, e, z)| {
                let mut s = json!({"name": n, "email": e});
                if let Some(z) = z {
                    s["time_zone"] = json!(z);
                }
                s
            })
            .collect();
        let v = self
            .post("/api/games", None, json!({"variant": variant, "options": {"clock": clock}, "seats": seats}))
            .await
            .ok(201);
        Game {
            id: v["game"]["id"].as_str().unwrap().to_owned(),
            tokens: v["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect(),
            calendars: v["tokens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["calendar"].as_str().unwrap().split_once("/api/").map(|(_, p)| format!("/api/{p}")).unwrap())
                .collect(),
        }
    }

    async fn alice_bob(&self, variant: &str, clock: Value) -> Game {
        self.create(variant, clock, &[("Alice", "alice@example.org", None), ("Bob", "bob@example.org", None)]).await
    }

    async fn game(&self, g: &Game) -> Value {
        self.get(&format!("/api/games/{}", g.id), None).await.ok(200)
    }

    /// A move by seat `seat` (0-based) at the clock's time now.
    async fn mv(&self, g: &Game, seat: usize, turn: u32, text: &str) -> Answer {
        self.post(&format!("/api/games/{}/moves", g.id), Some(&g.tokens[seat]), json!({"turn": turn, "move": text}))
            .await
    }

    /// A move that must be accepted, made at `at`.
    async fn play_at(&self, at: DateTime<Utc>, g: &Game, seat: usize, turn: u32, text: &str) {
        self.set(at);
        let a = self.mv(g, seat, turn, text).await;
        assert_eq!(a.status, 200, "{text} at {at}: {}", a.text);
    }

    /// `fairsteward sweep --now T` on the data directory (the real binary); the
    /// test's clock moves to `T` too. Returns the printed report.
    fn sweep(&self, at: DateTime<Utc>) -> Value {
        self.set(at);
        let v = crate::support::sweep(self.data_dir(), at);
        assert_eq!(v["errors"], json!([]), "{v}");
        v
    }

    async fn transcript(&self, g: &Game) -> String {
        let a = self.get(&format!("/api/games/{}/transcript", g.id), None).await;
        assert_eq!(a.status, 200);
        a.text
    }

    async fn kinds(&self, g: &Game) -> Vec<String> {
        self.transcript(g)
            .await
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Checks the transcript offline, as `fairsteward verify` does.
    async fn verify(&self, g: &Game) {
        let keys = self.get("/api/steward", None).await.ok(200);
        let key = fairsteward::protocol::public_key_from_base64(keys["signing_key"].as_str().unwrap()).unwrap();
        let transcript = self.transcript(g).await;
        fairsteward::protocol::verify::verify(&transcript, &key).unwrap_or_else(|e| panic!("{e}\n{transcript}"));
    }

    /// The spool now: Message-ID file name → mail.
    fn spool(&self) -> BTreeMap<String, Mail> {
        let Ok(entries) = std::fs::read_dir(self.spool_dir()) else { return BTreeMap::new() };
        entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), parse_mail(&std::fs::read(&p).unwrap())))
            .collect()
    }

    /// Waits (polling, at most 10 s) until the spool holds a file whose name
    /// starts with each prefix; returns the spool.
    async fn spooled(&self, prefixes: &[&str]) -> BTreeMap<String, Mail> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let spool = self.spool();
            if prefixes.iter().all(|p| spool.keys().any(|k| k.starts_with(p))) {
                return spool;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {prefixes:?} in {:?}",
                spool.keys().collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    fn db(&self) -> crate::support::backend::Db {
        crate::support::backend::Db::of(self.data_dir())
    }
}

fn parse_mail(raw: &[u8]) -> Mail {
    let text = String::from_utf8_lossy(raw).replace("\r\n", "\n");
    let (head, _) = text.split_once("\n\n").expect("a header and a body");
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            let last = headers.last_mut().unwrap();
            last.1.push(' ');
            last.1.push_str(line.trim());
        } else if let Some((n, v)) = line.split_once(':') {
            headers.push((n.to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let header = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()).unwrap_or_default();
    // Board mails are multipart/alternative: read the text part.
    let body = mail_parser::MessageParser::default()
        .parse(raw)
        .and_then(|m| m.body_text(0).map(|t| t.replace("\r\n", "\n")))
        .expect("a text part");
    Mail { to: header("to"), subject: header("subject"), body }
}

fn seat_clock(game: &Value, seat: usize) -> &Value {
    &game["seats"][seat]["clock"]
}

fn kinds_count(kinds: &[String], kind: &str) -> usize {
    kinds.iter().filter(|k| *k == kind).count()
}

const T0: &str = "2026-03-02T10:00:00Z";

// ---------------------------------------------------------------------------
// Time controls
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn days_per_move_the_late_seat_loses_on_time_and_the_transcript_verifies() {
    let lab = Lab::new(T0).await;
    let g = lab.alice_bob("chess", json!({"kind": "days_per_move", "days": 3})).await;
    let v = lab.game(&g).await;
    assert_eq!(v["clock"]["control"], json!({"kind": "days_per_move", "days": 3}));
    assert_eq!(v["clock"]["description"], "3 days per move");
    let deadline = t(T0) + days(3);
    assert_eq!(seat_clock(&v, 0)["deadline"], api(deadline));
    assert_eq!(seat_clock(&v, 0)["running"], true);
    assert_eq!(seat_clock(&v, 1)["running"], false);
    assert_eq!(seat_clock(&v, 1)["deadline"], Value::Null);

    // At the deadline itself the seat is still in time.
    let r = lab.sweep(deadline);
    assert_eq!(r["timeouts"], json!([]));
    assert_eq!(lab.game(&g).await["outcome"], Value::Null);
    // One second later it has lost.
    let r = lab.sweep(deadline + secs(1));
    assert_eq!(r["timeouts"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r["timeouts"][0]["seats"], json!(["white"]));
    assert_eq!(r["timeouts"][0]["result"], "0-1");
    let v = lab.game(&g).await;
    assert_eq!(v["outcome"], json!({"result": "0-1", "winner": "black", "reason": "time"}));
    assert_eq!(seat_clock(&v, 0)["running"], false);
    assert_eq!(seat_clock(&v, 0)["timed_out"], true);

    // The timeout is in the transcript, once, and the transcript verifies.
    let kinds = lab.kinds(&g).await;
    assert_eq!(&kinds[kinds.len() - 2..], ["timeout", "ended"]);
    lab.verify(&g).await;
    // Both seats were told; a second sweep changes nothing.
    let spool = lab.spool();
    for seat in [0, 1] {
        let m = &spool[&format!("{}.1.{seat}.timeout-0-0@steward.example.eml", g.id)];
        assert!(m.body.contains("white (Alice) ran out of time"), "{}", m.body);
        assert!(m.subject.contains("is over: 0-1 (time)"), "{}", m.subject);
    }
    let r = lab.sweep(deadline + days(2));
    assert_eq!((r["timeouts"].clone(), r["games"].clone()), (json!([]), json!(0)));
    assert_eq!(kinds_count(&lab.kinds(&g).await, "timeout"), 1);
    // A move after the end is refused as such.
    lab.mv(&g, 0, 1, "e4").await.error(409, "game_over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_one_second_before_its_deadline_counts_and_one_second_after_loses() {
    let lab = Lab::new(T0).await;
    let g = lab.alice_bob("chess", json!("days_per_move days=1")).await;
    let white_deadline = t(T0) + days(1);
    lab.play_at(white_deadline - secs(1), &g, 0, 1, "e4").await;
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["running"], false);
    assert_eq!(seat_clock(&v, 0)["used_seconds"], 86_399);
    assert_eq!(seat_clock(&v, 0)["moves"], 1);
    let black_deadline = white_deadline - secs(1) + days(1);
    assert_eq!(seat_clock(&v, 1)["deadline"], api(black_deadline));

    // Black's move one second late is refused: the timeout came first, with no
    // sweep in between.
    lab.set(black_deadline + secs(1));
    let msg = lab.mv(&g, 1, 2, "e5").await.error(409, "game_over");
    assert!(msg.contains("1-0 (time)"), "{msg}");
    let v = lab.game(&g).await;
    assert_eq!(v["outcome"]["reason"], "time");
    assert_eq!(v["outcome"]["winner"], "white");
    lab.spooled(&[&format!("{}.2.0.timeout-0-1@", g.id)]).await;
    lab.verify(&g).await;
    // A later sweep finds nothing more to do.
    assert_eq!(lab.sweep(black_deadline + days(3))["timeouts"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairschach_runs_both_clocks_and_both_late_at_once_is_a_draw() {
    let lab = Lab::new(T0).await;
    let both = lab.alice_bob("fairschach", json!({"kind": "days_per_move", "days": 2})).await;
    let one = lab.alice_bob("fairschach", json!({"kind": "days_per_move", "days": 2})).await;
    let v = lab.game(&both).await;
    for seat in [0, 1] {
        assert_eq!(seat_clock(&v, seat)["running"], true, "both clocks run at once");
        assert_eq!(seat_clock(&v, seat)["deadline"], api(t(T0) + days(2)));
    }
    // In the second game White moves; only Black is then late.
    lab.play_at(t(T0) + hours(1), &one, 0, 1, "e4").await;
    let v = lab.game(&one).await;
    assert_eq!(seat_clock(&v, 0)["running"], false);
    assert_eq!(seat_clock(&v, 1)["running"], true);

    let r = lab.sweep(t(T0) + days(2) + secs(1));
    let by_game: BTreeMap<String, Value> =
        r["timeouts"].as_array().unwrap().iter().map(|x| (x["game"].as_str().unwrap().to_owned(), x.clone())).collect();
    assert_eq!(by_game[&both.id]["seats"], json!(["white", "black"]));
    assert_eq!(by_game[&both.id]["result"], "1/2-1/2");
    assert_eq!(by_game[&one.id]["seats"], json!(["black"]));
    assert_eq!(by_game[&one.id]["result"], "1-0");
    assert_eq!(lab.game(&both).await["outcome"], json!({"result": "1/2-1/2", "winner": null, "reason": "time"}));
    let kinds = lab.kinds(&both).await;
    assert_eq!(kinds_count(&kinds, "timeout"), 1, "one timeout entry names both seats");
    lab.verify(&both).await;
    lab.verify(&one).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn period_control_carries_unused_time_and_the_earliest_flag_decides() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    let g = lab.alice_bob("fairschach", json!({"kind": "period", "moves": 2, "days": 10})).await;
    // Turn 1: Black moves after 1 day, White after 3.
    lab.play_at(t0 + days(1), &g, 1, 1, "e5").await;
    lab.play_at(t0 + days(3), &g, 0, 1, "e4").await;
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["deadline"], api(t0 + days(3) + days(7)), "10 - 3 days left");
    assert_eq!(seat_clock(&v, 1)["deadline"], api(t0 + days(3) + days(9)), "10 - 1 days left");
    // Turn 2 ends the first period: unused time is carried, 10 days are added.
    lab.play_at(t0 + days(4), &g, 0, 2, "Nf3").await;
    lab.play_at(t0 + days(5), &g, 1, 2, "Nc6").await;
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["left_seconds"], (days(16)).num_seconds(), "7 - 1 + 10");
    assert_eq!(seat_clock(&v, 1)["left_seconds"], (days(17)).num_seconds(), "9 - 2 + 10");
    assert_eq!(seat_clock(&v, 0)["used_seconds"], days(4).num_seconds());
    assert_eq!(seat_clock(&v, 0)["moves"], 2);
    assert_eq!(seat_clock(&v, 0)["deadline"], api(t0 + days(21)));
    assert_eq!(seat_clock(&v, 1)["deadline"], api(t0 + days(22)));
    // Nobody moves again; a sweep long after both deadlines: White's flag fell first.
    let r = lab.sweep(t0 + days(30));
    assert_eq!(r["timeouts"][0]["seats"], json!(["white"]), "{r}");
    assert_eq!(r["timeouts"][0]["at"], api(t0 + days(21)));
    assert_eq!(lab.game(&g).await["outcome"]["result"], "0-1");
    lab.verify(&g).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fischer_adds_the_increment_up_to_the_cap() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    let g =
        lab.alice_bob("chess", json!({"kind": "fischer", "base_days": 2, "increment_days": 1, "cap_days": 3})).await;
    assert_eq!(seat_clock(&lab.game(&g).await, 0)["deadline"], api(t0 + days(2)));
    // White uses 12 h: 1.5 + 1 = 2.5 days.
    lab.play_at(t0 + hours(12), &g, 0, 1, "e4").await;
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["left_seconds"], hours(60).num_seconds());
    assert_eq!(seat_clock(&v, 1)["deadline"], api(t0 + hours(12) + days(2)));
    lab.play_at(t0 + days(1), &g, 1, 2, "e5").await;
    // White uses 1 h: 2.5 - 1/24 + 1 would pass the cap of 3 days.
    lab.play_at(t0 + days(1) + hours(1), &g, 0, 3, "Nf3").await;
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["left"], "3d 00h 00m");
    assert_eq!(seat_clock(&v, 1)["deadline"], api(t0 + days(1) + hours(1) + hours(60)));
    // Black lets the time run out.
    let r = lab.sweep(t0 + days(1) + hours(61) + secs(1));
    assert_eq!(r["timeouts"][0]["seats"], json!(["black"]), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_after_days_charges_the_excess_twice() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    let g = lab.alice_bob("chess", json!("period moves=10 days=50 double_after_days=20")).await;
    // 50 days = 20 plain + 30 doubled, i.e. 15 more days of wall time.
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["deadline"], api(t0 + days(35)));
    lab.set(t0 + days(25));
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["used_seconds"], days(30).num_seconds());
    assert_eq!(seat_clock(&v, 0)["left_seconds"], days(20).num_seconds());
    assert_eq!(lab.sweep(t0 + days(35))["timeouts"], json!([]));
    assert_eq!(lab.sweep(t0 + days(35) + secs(1))["timeouts"][0]["seats"], json!(["white"]));
}

// ---------------------------------------------------------------------------
// Grace
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grace_sends_a_last_reminder_and_a_notice_then_the_timeout_applies() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    let g = lab.alice_bob("chess", json!({"kind": "days_per_move", "days": 2, "grace_hours": 24})).await;
    let deadline = t0 + days(2);
    assert_eq!(seat_clock(&lab.game(&g).await, 0)["final_deadline"], api(deadline + hours(24)));
    assert_eq!(lab.sweep(deadline - secs(1))["grace"], json!([]));

    let r = lab.sweep(deadline + secs(1));
    assert_eq!(r["timeouts"], json!([]));
    assert_eq!(
        r["grace"],
        json!([{"game": g.id, "seat": "white", "deadline": api(deadline), "final_deadline": api(deadline + hours(24))}])
    );
    let spool = lab.spool();
    let to_white = &spool[&format!("{}.1.0.grace-0-0@steward.example.eml", g.id)];
    let to_black = &spool[&format!("{}.1.1.grace-0-0@steward.example.eml", g.id)];
    assert!(to_white.to.contains("alice@example.org") && to_white.body.contains("Last reminder"), "{to_white:?}");
    assert!(to_black.to.contains("bob@example.org") && to_black.body.contains("white (Alice) is late"), "{to_black:?}");
    // The move number the record gives, as in every other mail (issue 32).
    assert!(to_white.subject.ends_with("white is late (move 1.)"), "{}", to_white.subject);
    assert!(to_white.body.contains("your move 1. (API turn 1) was due"), "{}", to_white.body);
    assert!(lab.kinds(&g).await.contains(&"grace".to_owned()));
    let v = lab.game(&g).await;
    assert_eq!((seat_clock(&v, 0)["late"].clone(), v["outcome"].clone()), (json!(true), Value::Null));

    // Once only; and no timeout before the grace is over.
    let files = lab.spool().len();
    let r = lab.sweep(deadline + hours(23));
    assert_eq!((r["grace"].clone(), r["timeouts"].clone()), (json!([]), json!([])));
    assert_eq!(lab.spool().len(), files);

    // A move in grace is taken; Black's clock starts with a full two days.
    let moved = deadline + hours(23) + secs(5);
    lab.play_at(moved, &g, 0, 1, "d4").await;
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 1)["deadline"], api(moved + days(2)));
    // Black lets deadline and grace pass: loses only after the grace.
    assert_eq!(lab.sweep(moved + days(2) + hours(1))["grace"][0]["seat"], "black");
    assert_eq!(lab.sweep(moved + days(3))["timeouts"], json!([]));
    let r = lab.sweep(moved + days(3) + secs(1));
    assert_eq!(r["timeouts"][0]["result"], "1-0", "{r}");
    assert_eq!(kinds_count(&lab.kinds(&g).await, "grace"), 2);
    lab.verify(&g).await;
}

// ---------------------------------------------------------------------------
// Reminders
// ---------------------------------------------------------------------------

fn reminders(spool: &BTreeMap<String, Mail>) -> Vec<Mail> {
    spool.iter().filter(|(k, _)| k.starts_with("reminder.")).map(|(_, m)| m.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_come_once_per_point_folded_into_one_digest_per_player() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    let alice = ("Alice", "alice@example.org", None);
    let bob = ("Bob", "bob@example.org", None);
    let carol = ("Carol", "carol@example.org", None);
    let three = json!("days_per_move days=3");
    let g1 = lab.create("chess", three.clone(), &[alice, bob]).await;
    let g2 = lab.create("chess", three.clone(), &[alice, carol]).await;
    let g3 = lab.create("fairschach", three.clone(), &[bob, alice]).await;
    let g4 = lab.create("chess", json!("days_per_move days=2"), &[bob, carol]).await;

    // 48 hours before the 3-day deadlines: Alice owes in three games, Bob in one.
    // (G4's 48-hour point is its start: skipped.)
    let r = lab.sweep(t0 + days(1) + hours(1));
    assert_eq!((r["reminders"].clone(), r["digests"].clone()), (json!(4), json!(2)), "{r}");
    let first = reminders(&lab.spool());
    assert_eq!(first.len(), 2);
    let to_alice = first.iter().find(|m| m.to.contains("alice@")).unwrap();
    assert!(to_alice.body.contains("Moves are due in 3 of your games"), "{}", to_alice.body);
    for g in [&g1, &g2, &g3] {
        assert!(to_alice.body.contains(&g.id), "{} in {}", g.id, to_alice.body);
    }
    assert_eq!(to_alice.subject, "Moves due in 3 games");
    let to_bob = first.iter().find(|m| m.to.contains("bob@")).unwrap();
    assert!(to_bob.body.contains(&g3.id) && !to_bob.body.contains(&g1.id), "{}", to_bob.body);

    // Nothing new an hour later.
    let r = lab.sweep(t0 + days(1) + hours(2));
    assert_eq!((r["reminders"].clone(), r["digests"].clone()), (json!(0), json!(0)));
    // G4's 12-hour point: Bob alone.
    let r = lab.sweep(t0 + days(1) + hours(13));
    assert_eq!((r["reminders"].clone(), r["digests"].clone()), (json!(1), json!(1)));
    // The 12-hour points of the 3-day games; G4 has meanwhile timed out.
    let r = lab.sweep(t0 + days(2) + hours(13));
    assert_eq!((r["reminders"].clone(), r["digests"].clone()), (json!(4), json!(2)), "{r}");
    assert_eq!(r["timeouts"][0]["game"], g4.id.as_str());
    let all = reminders(&lab.spool());
    assert_eq!(all.len(), 5);
    assert_eq!(all.iter().filter(|m| m.to.contains("alice@")).count(), 2);
    assert_eq!(all.iter().filter(|m| m.to.contains("bob@")).count(), 3);
    assert_eq!(all.iter().filter(|m| m.to.contains("carol@")).count(), 0);
    // At most one per seat, turn and point.
    let n = lab.db().count("SELECT count(*) FROM reminders_sent", &[]);
    assert_eq!(n, 9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminder_points_due_together_make_one_mail_and_a_one_day_move_skips_48_hours() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    let g = lab.alice_bob("chess", json!("days_per_move days=3")).await;
    let short = lab
        .create(
            "chess",
            json!("days_per_move days=1"),
            &[("Dora", "dora@example.org", None), ("Bob", "bob@example.org", None)],
        )
        .await;
    // First sweep 10 hours before G's deadline (the daemon was down): both points
    // are due; one mail. Dora's 1-day game is 10 hours past its 12-hour point.
    let r = lab.sweep(t0 + days(2) + hours(14));
    assert!(r["timeouts"].as_array().unwrap().iter().any(|x| x["game"] == short.id.as_str()), "{r}");
    let mails = reminders(&lab.spool());
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert!(mails[0].to.contains("alice@") && mails[0].body.contains(&g.id));
    assert_eq!(r["reminders"], 2);
    let lab2 = Lab::new(T0).await;
    let d = lab2
        .create(
            "chess",
            json!("days_per_move days=1"),
            &[("Dora", "dora@example.org", None), ("Bob", "bob@example.org", None)],
        )
        .await;
    assert_eq!(lab2.sweep(t0 + hours(1))["reminders"], 0, "no 48-hour reminder for a 1-day move");
    let r = lab2.sweep(t0 + hours(13));
    assert_eq!(r["reminders"], 1);
    assert!(reminders(&lab2.spool())[0].body.contains(&d.id));
}

// ---------------------------------------------------------------------------
// Leave
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leave_stops_every_clock_of_the_players_games_and_a_deadline_inside_it_moves() {
    let start = "2026-12-21T12:00:00Z";
    let lab = Lab::new(start).await;
    let t0 = t(start);
    let g1 = lab
        .create(
            "chess",
            json!("days_per_move days=3"),
            &[("Alice", "alice@example.org", None), ("Bob", "bob@example.org", None)],
        )
        .await;
    let g2 = lab
        .create(
            "fairschach",
            json!("days_per_move days=3"),
            &[("Carol", "carol@example.org", None), ("Alice", "ALICE@example.org", None)],
        )
        .await;
    // G1's deadline (Dec 24 noon) lies inside the leave Dec 24 to Jan 2.
    assert_eq!(seat_clock(&lab.game(&g1).await, 0)["deadline"], api(t0 + days(3)));
    let granted =
        lab.post("/api/leave", Some(&g1.tokens[0]), json!({"from": "2026-12-24", "to": "2027-01-02"})).await.ok(201);
    assert_eq!(granted["player"], "alice@example.org");
    assert_eq!(granted["granted"]["days"], 10);
    assert_eq!(granted["granted"]["starts_at"], "2026-12-24T00:00:00.000Z");
    assert_eq!(granted["granted"]["ends_at"], "2027-01-03T00:00:00.000Z");
    let mut games: Vec<&str> = granted["games"].as_array().unwrap().iter().map(|g| g.as_str().unwrap()).collect();
    games.sort_unstable();
    let mut expected = vec![g1.id.as_str(), g2.id.as_str()];
    expected.sort_unstable();
    assert_eq!(games, expected);
    assert_eq!(
        granted["balance"],
        json!([{"year": 2026, "used": 8, "left": 22}, {"year": 2027, "used": 2, "left": 28}])
    );

    // 2.5 days run before the leave; the last half day after it.
    let moved = t("2027-01-03T12:00:00Z");
    let v1 = lab.game(&g1).await;
    assert_eq!(seat_clock(&v1, 0)["deadline"], api(moved));
    assert_eq!(v1["clock"]["leave"], json!([{"from": "2026-12-24", "to": "2027-01-02"}]));
    // The opponent's clocks stop too: Carol's deadline in G2 moves the same way.
    let v2 = lab.game(&g2).await;
    assert_eq!(seat_clock(&v2, 0)["deadline"], api(moved));
    assert_eq!(seat_clock(&v2, 1)["deadline"], api(moved));
    for g in [&g1, &g2] {
        assert_eq!(kinds_count(&lab.kinds(g).await, "leave"), 1);
        lab.verify(g).await;
    }
    // The player and each opponent get one mail each.
    let deadline = Instant::now() + Duration::from_secs(10);
    let leave = loop {
        let l: Vec<Mail> = lab.spool().into_iter().filter(|(k, _)| k.starts_with("leave.")).map(|(_, m)| m).collect();
        if l.len() >= 3 || Instant::now() > deadline {
            break l;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    assert_eq!(leave.len(), 3, "{leave:?}");
    let to_alice = leave.iter().find(|m| m.to.contains("alice@")).unwrap();
    assert!(to_alice.body.contains("2026: 8 day(s) taken, 22 left"), "{}", to_alice.body);
    let to_carol = leave.iter().find(|m| m.to.contains("carol@")).unwrap();
    assert!(
        to_carol.body.contains("Alice is on leave from 2026-12-24 to 2027-01-02") && to_carol.body.contains(&g2.id)
    );

    // Sweeps during the leave find nothing; the clocks stand.
    lab.set(t("2026-12-28T00:00:00Z"));
    let v = lab.game(&g1).await;
    assert_eq!(v["clock"]["on_leave"], true);
    assert_eq!(seat_clock(&v, 0)["used_seconds"], hours(60).num_seconds());
    assert_eq!(lab.sweep(t("2026-12-25T00:00:00Z"))["timeouts"], json!([]));
    assert_eq!(lab.sweep(moved)["timeouts"], json!([]));
    let r = lab.sweep(moved + secs(1));
    assert_eq!(r["timeouts"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(lab.game(&g1).await["outcome"]["result"], "0-1");
    assert_eq!(lab.game(&g2).await["outcome"]["result"], "1/2-1/2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leave_allowance_is_kept_per_year_and_overuse_is_refused_with_the_balance() {
    let start = "2027-01-05T08:00:00Z";
    let lab = Lab::new(start).await;
    let g = lab.alice_bob("chess", json!("days_per_move days=5")).await;
    let bob = &g.tokens[1];
    let path = format!("/api/seats/{bob}/leave");
    let a = lab.post(&path, None, json!({"from": "2027-02-01", "to": "2027-02-25"})).await.ok(201);
    assert_eq!(a["balance"][0], json!({"year": 2027, "used": 25, "left": 5}));
    // Six more days would overdraw 2027.
    let msg =
        lab.post(&path, None, json!({"from": "2027-03-01", "to": "2027-03-06"})).await.error(409, "leave_refused");
    assert!(msg.contains("only 5 of the 30 days allowed in 2027 are left (25 taken)"), "{msg}");
    // Days already on leave are not counted twice; five more fit exactly.
    let a = lab.post(&path, None, json!({"from": "2027-02-24", "to": "2027-03-02"})).await.ok(201);
    assert_eq!(
        (a["granted"]["from"].clone(), a["granted"]["days"].clone()),
        (json!("2027-02-24"), json!(5)),
        "two of the seven days were taken"
    );
    assert_eq!(a["balance"][0], json!({"year": 2027, "used": 30, "left": 0}));
    // The same account with the bearer form, for the player's other seat.
    let status = lab.get("/api/leave", Some(bob)).await.ok(200);
    assert_eq!(status["leaves"].as_array().unwrap().len(), 2);
    assert_eq!(status["allowance_days"], 30);
    // Refusals: the past, dates that do not read, no token.
    let msg =
        lab.post(&path, None, json!({"from": "2027-01-01", "to": "2027-01-02"})).await.error(409, "leave_refused");
    assert!(msg.contains("before today"), "{msg}");
    lab.post(&path, None, json!({"from": "24.12.2027", "to": "2027-12-26"})).await.error(400, "bad_request");
    lab.post(&path, None, json!({"from": "2027-12-26", "to": "2027-12-24"})).await.error(400, "bad_request");
    lab.post("/api/leave", None, json!({"from": "2027-12-24", "to": "2027-12-26"})).await.error(401, "bad_token");
    lab.post("/api/seats/nosuchtoken/leave", None, json!({"from": "2027-12-24", "to": "2027-12-26"}))
        .await
        .error(401, "bad_token");
    // Next year has its own allowance.
    let a = lab.post(&path, None, json!({"from": "2027-12-31", "to": "2028-01-10"})).await.error(409, "leave_refused");
    assert!(a.contains("2027"), "{a}");
    let a = lab.post(&path, None, json!({"from": "2028-01-01", "to": "2028-01-10"})).await.ok(201);
    assert_eq!(a["balance"][1], json!({"year": 2028, "used": 10, "left": 20}));
}

// ---------------------------------------------------------------------------
// The calendar feed
// ---------------------------------------------------------------------------

/// Parses an iCalendar text with a real parser (the `icalendar` crate) and checks
/// the framing rules a strict reader needs: CRLF, folded lines of at most 75
/// octets, balanced BEGIN/END.
fn parse_ics(text: &str) -> Vec<BTreeMap<String, String>> {
    assert!(text.ends_with("\r\n"));
    assert!(!text.replace("\r\n", "").contains('\n'), "CRLF line ends only");
    for line in text.split("\r\n") {
        assert!(line.len() <= 75, "line of {} octets: {line:?}", line.len());
    }
    let unfolded = icalendar::parser::unfold(text);
    let cal = icalendar::parser::read_calendar(&unfolded).unwrap_or_else(|e| panic!("not iCalendar: {e}\n{text}"));
    let props = |ps: &[icalendar::parser::Property<'_>]| -> BTreeMap<String, String> {
        ps.iter().map(|p| (p.name.as_str().to_owned(), p.val.as_str().to_owned())).collect()
    };
    let head = props(&cal.properties);
    assert_eq!(head.get("VERSION").map(String::as_str), Some("2.0"));
    assert!(head.contains_key("PRODID"));
    cal.components
        .iter()
        .filter(|c| c.name.as_str() == "VEVENT")
        .map(|c| {
            let mut p = props(&c.properties);
            for key in ["UID", "DTSTAMP", "DTSTART", "SUMMARY"] {
                assert!(p.contains_key(key), "{key} in {p:?}");
            }
            p.insert("alarms".into(), c.components.iter().filter(|a| a.name.as_str() == "VALARM").count().to_string());
            let triggers: Vec<String> = c
                .components
                .iter()
                .filter_map(|a| {
                    a.properties.iter().find(|x| x.name.as_str() == "TRIGGER").map(|x| x.val.as_str().to_owned())
                })
                .collect();
            p.insert("triggers".into(), triggers.join(","));
            p
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadlines_feed_is_valid_icalendar_in_utc() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    let g = lab.alice_bob("chess", json!({"kind": "days_per_move", "days": 3, "grace_hours": 12})).await;
    let a = lab.get(&g.calendars[0], None).await;
    assert_eq!(a.status, 200);
    assert!(a.content_type.starts_with("text/calendar"), "{}", a.content_type);
    let events = parse_ics(&a.text);
    assert_eq!(events.len(), 2, "the deadline and the end of the grace: {events:?}");
    assert_eq!(events[0]["DTSTART"], "20260305T100000Z");
    assert_eq!(events[1]["DTSTART"], "20260305T220000Z");
    assert_eq!(events[0]["alarms"], "2");
    assert_eq!(events[0]["triggers"], "-P2D,-PT12H");
    assert!(events[0]["SUMMARY"].contains(&g.id));
    assert_ne!(events[0]["UID"], events[1]["UID"]);
    // Black owes nothing yet: a valid, empty calendar.
    let b = lab.get(&g.calendars[1], None).await;
    assert_eq!(parse_ics(&b.text).len(), 0);
    // After White's move, Black's feed has its deadline; White's is empty.
    lab.play_at(t0 + hours(5), &g, 0, 1, "e4").await;
    let b = lab.get(&g.calendars[1], None).await;
    assert_eq!(parse_ics(&b.text)[0]["DTSTART"], "20260305T150000Z");
    assert_eq!(parse_ics(&lab.get(&g.calendars[0], None).await.text).len(), 0);
    lab.get("/api/calendar/nosuchkey/deadlines.ics", None).await.error(404, "not_found");
    // The feed that took the seat token in its address is gone (issue 29).
    lab.get(&format!("/api/seats/{}/deadlines.ics", g.tokens[0]), None).await.error(410, "gone");
}

// ---------------------------------------------------------------------------
// Time zones
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadlines_stay_in_utc_across_dst_and_are_shown_in_the_players_zone() {
    // Europe/Berlin goes to summer time on 2026-03-29; America/New_York on 2026-03-08.
    let start = "2026-03-27T12:00:00Z";
    let lab = Lab::new(start).await;
    let g = lab
        .create(
            "fairschach",
            json!("days_per_move days=3"),
            &[
                ("Alice", "alice@example.org", Some("Europe/Berlin")),
                ("Bob", "bob@example.org", Some("America/New_York")),
            ],
        )
        .await;
    let v = lab.game(&g).await;
    // Three days are 72 hours of UTC, whatever the clocks on the wall do.
    assert_eq!(seat_clock(&v, 0)["deadline"], "2026-03-30T12:00:00.000Z");
    assert_eq!(
        seat_clock(&v, 0)["deadline_local"],
        "2026-03-30T14:00:00+02:00",
        "CEST after the change (CET +01:00 at the start)"
    );
    assert_eq!(seat_clock(&v, 0)["time_zone"], "Europe/Berlin");
    assert_eq!(seat_clock(&v, 1)["deadline_local"], "2026-03-30T08:00:00-04:00");
    // The board mail shows UTC with the local time alongside.
    let spool = lab.spooled(&[&format!("{}.0.0.started@", g.id)]).await;
    let m = &spool[&format!("{}.0.0.started@steward.example.eml", g.id)];
    assert!(m.body.contains("Clocks (3 days per move)"), "{}", m.body);
    assert!(m.body.contains("deadline 2026-03-30 12:00 UTC (14:00 CEST, Europe/Berlin)"), "{}", m.body);
    assert!(m.body.contains("deadline 2026-03-30 12:00 UTC (08:00 EDT, America/New_York)"), "{}", m.body);
    // Autumn: back to winter time on 2026-10-25 in Berlin.
    let autumn = "2026-10-23T12:00:00Z";
    lab.set(t(autumn));
    let h = lab
        .create(
            "chess",
            json!("days_per_move days=3"),
            &[("Alice", "alice@example.org", Some("Europe/Berlin")), ("Bob", "bob@example.org", None)],
        )
        .await;
    let v = lab.game(&h).await;
    assert_eq!(seat_clock(&v, 0)["deadline"], "2026-10-26T12:00:00.000Z");
    assert_eq!(seat_clock(&v, 0)["deadline_local"], "2026-10-26T13:00:00+01:00");
    assert_eq!(seat_clock(&v, 1)["time_zone"], Value::Null);
    let timed_out = |r: &Value| r["timeouts"].as_array().unwrap().iter().any(|x| x["game"] == h.id.as_str());
    assert!(!timed_out(&lab.sweep(t("2026-10-26T12:00:00Z"))));
    assert!(timed_out(&lab.sweep(t("2026-10-26T12:00:01Z"))));
    // A zone that does not exist is refused at creation.
    let a = lab
        .post("/api/games", None, json!({"variant": "chess", "options": {"clock": "days_per_move days=3"},
            "seats": [{"name": "A", "email": "a@example.org", "time_zone": "Europe/Atlantis"}, {"name": "B", "email": "b@example.org"}]}))
        .await;
    assert!(a.error(400, "bad_request").contains("not an IANA time zone"));
}

// ---------------------------------------------------------------------------
// The sweep reads the games due only (issue 37)
// ---------------------------------------------------------------------------

/// The ids of the games a sweep timed out.
fn timed_out(report: &Value) -> Vec<String> {
    report["timeouts"].as_array().unwrap().iter().map(|t| t["game"].as_str().unwrap().to_owned()).collect()
}

/// A sweep looks at the games whose clocks changed since the last sweep of
/// them and at those whose planned time came (the next reminder point,
/// deadline or final deadline), not at every running game, and still sends
/// every reminder and applies every timeout when it falls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_looks_only_at_the_games_due_and_misses_no_deadline() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    // Reminders 48 and 12 hours before a deadline (the default).
    let g = lab.alice_bob("chess", json!("days_per_move days=1")).await;
    let h = lab.alice_bob("chess", json!("days_per_move days=3")).await;
    // New clocks: both looked at, and planned (g: its 12-hour reminder at
    // t0+12h; h: its 48-hour reminder at t0+1d).
    assert_eq!(lab.sweep(t0 + hours(1))["games"], 2);
    assert_eq!(lab.sweep(t0 + hours(2))["games"], 0, "nothing changed, nothing due");
    let r = lab.sweep(t0 + hours(12) + secs(60));
    assert_eq!((r["games"].clone(), r["reminders"].clone()), (json!(1), json!(1)), "g's reminder: {r}");
    // A move changes g's clocks: looked at in the next sweep, then planned again.
    lab.play_at(t0 + hours(13), &g, 0, 1, "e4").await;
    assert_eq!(lab.sweep(t0 + hours(14))["games"], 1);
    let r = lab.sweep(t0 + days(1) + secs(60));
    assert_eq!((r["games"].clone(), r["reminders"].clone()), (json!(1), json!(1)), "h's 48-hour reminder: {r}");
    assert_eq!(lab.sweep(t0 + days(1) + hours(2))["games"], 1, "g's 12-hour reminder for Black");
    // Black's deadline in g passes: the sweep after it times g out, and looks at nothing else.
    let r = lab.sweep(t0 + days(1) + hours(13) + secs(1));
    assert_eq!((r["games"].clone(), timed_out(&r)), (json!(1), vec![g.id.clone()]), "{r}");
    assert_eq!(lab.sweep(t0 + days(2) + hours(12) + secs(1))["reminders"], 1, "h's 12-hour reminder");
    let r = lab.sweep(t0 + days(3) + secs(1));
    assert_eq!((r["games"].clone(), timed_out(&r)), (json!(1), vec![h.id.clone()]), "{r}");
    // Both over: nothing is planned any more.
    assert_eq!(lab.sweep(t0 + days(30))["games"], 0);
    assert_eq!(kinds_count(&lab.kinds(&g).await, "timeout"), 1);
    lab.verify(&g).await;
    lab.verify(&h).await;
}

/// Other reminder points in the configuration make every running game due
/// once, so that the plans made with the old points cannot hide a reminder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_reminder_points_make_every_running_game_due_once() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    for _ in 0..3 {
        lab.alice_bob("fairschach", json!("days_per_move days=5")).await;
    }
    assert_eq!(lab.sweep(t0 + hours(1))["games"], 3);
    assert_eq!(lab.sweep(t0 + hours(2))["games"], 0);
    let config = lab.data_dir().join("other-reminders.toml");
    std::fs::write(&config, "[schedule]\nreminders_hours = [96]\n").unwrap();
    let sweep =
        |at: DateTime<Utc>| crate::support::sweep_with(lab.data_dir(), &["--config".as_ref(), config.as_os_str()], at);
    assert_eq!(sweep(t0 + hours(3))["games"], 3, "every running game, planned with the new points");
    assert_eq!(sweep(t0 + hours(4))["games"], 0);
    // The 96-hour point of a 5-day deadline falls at t0+1d.
    let r = sweep(t0 + days(1) + secs(1));
    assert_eq!((r["games"].clone(), r["reminders"].clone()), (json!(3), json!(6)), "{r}");
}

// ---------------------------------------------------------------------------
// Restart, commit-reveal, bad options, the CLI alone
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_between_the_deadline_and_the_sweep_loses_nothing_and_times_out_once() {
    let mut lab = Lab::new(T0).await;
    let t0 = t(T0);
    let g = lab.alice_bob("chess", json!("days_per_move days=1")).await;
    let h = lab.alice_bob("chess", json!("days_per_move days=3")).await;
    lab.play_at(t0 + hours(2), &g, 0, 1, "e4").await;
    lab.stop().await;
    // The daemon is down while Black's deadline passes.
    lab.set(t0 + hours(2) + days(1) + hours(6));
    lab.start().await;
    // The start-up sweep (which Lab::start waits for) settled the timeout.
    let v = lab.game(&g).await;
    assert_eq!(v["outcome"], json!({"result": "1-0", "winner": "white", "reason": "time"}));
    assert_eq!(lab.game(&h).await["outcome"], Value::Null, "the 3-day game goes on");
    // The scheduled sweep (here the binary) after the restart finds it done.
    let r = lab.sweep(t0 + days(2));
    assert!(!r["timeouts"].as_array().unwrap().iter().any(|x| x["game"] == g.id.as_str()), "{r}");
    assert_eq!(kinds_count(&lab.kinds(&g).await, "timeout"), 1);
    lab.verify(&g).await;
    lab.stop().await;
    assert!(lab.spool().contains_key(&format!("{}.2.1.timeout-0-1@steward.example.eml", g.id)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_reveal_stops_the_clock_at_the_commitment_and_times_the_reveal() {
    let lab = Lab::new(T0).await;
    let t0 = t(T0);
    let v = lab
        .post(
            "/api/games",
            None,
            json!({"variant": "fairschach", "options": {"clock": "days_per_move days=1", "secrecy": "commit-reveal"},
            "seats": [{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]}),
        )
        .await
        .ok(201);
    let g = Game {
        id: v["game"]["id"].as_str().unwrap().to_owned(),
        tokens: v["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect(),
        calendars: Vec::new(),
    };
    let salt = [7u8; 16];
    let hexs = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let commit = |seat: &str, mv: &str| hexs(&fairsteward::protocol::commitment(&g.id, seat, 1, mv, &salt));
    lab.set(t0 + hours(1));
    lab.post(
        &format!("/api/games/{}/moves", g.id),
        Some(&g.tokens[0]),
        json!({"turn": 1, "commit": commit("white", "e4")}),
    )
    .await
    .ok(200);
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["running"], false, "the move is fixed at the commitment");
    assert_eq!(seat_clock(&v, 0)["used_seconds"], 3600);
    lab.set(t0 + hours(2));
    lab.post(
        &format!("/api/games/{}/moves", g.id),
        Some(&g.tokens[1]),
        json!({"turn": 1, "commit": commit("black", "e5")}),
    )
    .await
    .ok(200);
    // Reveals are asked for now: both clocks run again, a day for the reveal.
    let v = lab.game(&g).await;
    assert_eq!(seat_clock(&v, 0)["deadline"], api(t0 + hours(2) + days(1)));
    lab.set(t0 + hours(3));
    lab.post(
        &format!("/api/games/{}/moves", g.id),
        Some(&g.tokens[0]),
        json!({"turn": 1, "move": "e4", "salt": hexs(&salt)}),
    )
    .await
    .ok(200);
    // Black never reveals.
    let r = lab.sweep(t0 + hours(2) + days(1) + secs(1));
    assert_eq!(r["timeouts"][0]["seats"], json!(["black"]), "{r}");
    assert_eq!(r["timeouts"][0]["result"], "1-0");
    let transcript = lab.transcript(&g).await;
    assert!(transcript.contains("\"stage\":\"reveal\""), "{transcript}");
    lab.verify(&g).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_clock_options_are_refused_with_what_to_send() {
    let lab = Lab::new(T0).await;
    for (clock, phrase) in [
        (json!({"kind": "days_per_move", "days": 30}), "from 1 to 14"),
        (json!({"kind": "hourglass"}), "days_per_move, period or fischer"),
        (json!({"kind": "period", "days": 50}), "moves (moves per period) is missing"),
        (json!({"kind": "fischer", "base_days": 10, "increment_days": 1, "cap_days": 5}), "at least 10"),
        (json!({"kind": "days_per_move", "days": 3, "grace": 2}), "does not take \"grace\""),
        (json!(5), "object or a text"),
    ] {
        let a = lab
            .post(
                "/api/games",
                None,
                json!({"variant": "chess", "options": {"clock": clock}, "seats": [
                {"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]}),
            )
            .await;
        let msg = a.error(400, "bad_request");
        assert!(msg.contains("option clock") && msg.contains(phrase), "{clock}: {msg}");
    }
    // A game without a clock has none, and the sweep leaves it alone.
    let g = lab
        .post(
            "/api/games",
            None,
            json!({"variant": "chess", "seats": [
        {"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]}),
        )
        .await
        .ok(201);
    assert!(g["game"].get("clock").is_none() && g["game"]["seats"][0].get("clock").is_none(), "{g}");
    assert_eq!(lab.sweep(t(T0) + days(400))["games"], 0);
}

#[test]
fn the_command_line_alone_game_new_then_sweep_now() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let run = |args: &[&str]| -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
            .args(args)
            .envs(crate::support::backend::database_env_of_args(args))
            .env_remove("RUST_LOG")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let created = run(&[
        "game",
        "new",
        "--data-dir",
        d,
        "--variant",
        "chess",
        "--now",
        "2026-06-01T00:00:00Z",
        "--seat",
        "Alice <alice@example.org> Europe/Paris",
        "--seat",
        "Bob <bob@example.org>",
        "--option",
        "clock=days_per_move days=2 grace_hours=6",
    ]);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let clock = &created["game"]["seats"][0]["clock"];
    assert_eq!(clock["deadline"], "2026-06-03T00:00:00.000Z");
    assert_eq!(clock["deadline_local"], "2026-06-03T02:00:00+02:00");
    // The 48-hour point is the start (skipped); the 12-hour point is due at noon.
    let r = run(&["sweep", "--data-dir", d, "--now", "2026-06-02T11:00:00Z"]);
    assert_eq!(r["reminders"], 0, "{r}");
    let r = run(&["sweep", "--data-dir", d, "--now", "2026-06-02T13:00:00Z"]);
    assert_eq!((r["reminders"].clone(), r["digests"].clone()), (json!(1), json!(1)), "{r}");
    let r = run(&["sweep", "--data-dir", d, "--now", "2026-06-03T00:00:01Z"]);
    assert_eq!(r["grace"][0]["seat"], "white");
    let r = run(&["sweep", "--data-dir", d, "--now", "2026-06-03T06:00:01Z"]);
    assert_eq!(r["timeouts"][0]["result"], "0-1");
    assert!(r["mails_spooled"].as_u64().unwrap() >= 2);
    let shown = run(&["game", "show", "--data-dir", d, &id]);
    assert_eq!(shown["outcome"]["reason"], "time");
    // Bad --now: one line, exit 2.
    let out = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(["sweep", "--data-dir", d, "--now", "tomorrow"])
        .envs(crate::support::backend::database_env(dir.path()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("RFC 3339"));
}
