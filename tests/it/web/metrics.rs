//! `GET /metrics` and `GET /health` (issue 36), on a real steward over real
//! sockets. The metrics are read with the Prometheus project's own text-format
//! parser (`prometheus_client.parser`, PyPI; `scripts/test` installs it into
//! `target/python`), while moves flow over HTTP and by mail through the real
//! SMTP and IMAP servers of `scripts/mailstack.sh`.

use crate::mail::e2e::{self, DOMAIN, bare, reply, send};
use crate::support as common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use common::mailstack::{stack, unique};
use fairsteward::config::{Config, Overrides, RawConfig, RawHttp, RawMetrics};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A sample: its name and its labels, sorted.
type Key = (String, BTreeMap<String, String>);

/// Reads `text` with `prometheus_client.parser` (every family, every sample);
/// panics when the parser refuses it.
fn parse(text: &str) -> BTreeMap<Key, f64> {
    const SCRIPT: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        print(json.dumps([s.name, s.labels, s.value]))
"#;
    let out = python(SCRIPT, text);
    assert!(
        out.status.success(),
        "prometheus_client.parser refuses the metrics (scripts/test installs it into target/python): {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (name, labels, value): (String, BTreeMap<String, String>, f64) = serde_json::from_str(l).unwrap();
            ((name, labels), value)
        })
        .collect()
}

/// Runs the Python `script` on `input`, with the packages scripts/test
/// installs into target/python.
fn python(script: &str, input: &str) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .env("PYTHONPATH", root.join("target/python"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The samples of `GET url`, which must answer 200 in the classic text format.
async fn scrape(client: &reqwest::Client, url: &str) -> (BTreeMap<Key, f64>, String) {
    let resp = client.get(url).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200, "GET {url}");
    let kind = resp.headers()[reqwest::header::CONTENT_TYPE].to_str().unwrap().to_owned();
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    let text = resp.text().await.unwrap();
    let parsed = tokio::task::spawn_blocking({
        let text = text.clone();
        move || parse(&text)
    })
    .await
    .unwrap();
    (parsed, text)
}

/// The value of the sample `name` with `labels` (0 when absent).
fn value(samples: &BTreeMap<Key, f64>, name: &str, labels: &[(&str, &str)]) -> f64 {
    let labels = labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    samples.get(&(name.to_owned(), labels)).copied().unwrap_or(0.0)
}

/// Scrapes `url` until `done` holds of the samples (at most 20 s).
async fn scrape_until(
    client: &reqwest::Client,
    url: &str,
    what: &str,
    done: impl Fn(&BTreeMap<Key, f64>) -> bool,
) -> BTreeMap<Key, f64> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (samples, text) = scrape(client, url).await;
        if done(&samples) {
            return samples;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}; the metrics:\n{text}");
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_counters_move_as_moves_come_over_http_and_by_mail_and_the_outbox_drains() {
    let stack = stack();
    let moves = unique("mx");
    let (alice, bob) = (unique("alice"), unique("bob"));
    let emails = [format!("{alice}@{DOMAIN}"), format!("{bob}@{DOMAIN}")];
    let steward = e2e::Steward::start(&stack, &moves).await;
    let url = format!("{}/metrics", steward.base);
    let client = &steward.client;

    // Nothing moved yet; the start-up sweep ran.
    let (first, _) = scrape(client, &url).await;
    assert_eq!(value(&first, "fairsteward_moves_accepted_total", &[("door", "http")]), 0.0);
    assert_eq!(value(&first, "fairsteward_sweep_duration_seconds_count", &[]), 1.0, "the sweep at start");
    assert_eq!(value(&first, "fairsteward_store_up", &[]), 1.0);

    // A game of simultaneous moves: both seats owe turn 1.
    let (game, tokens, starts) = e2e::two_seat_game(&stack, &steward, [&emails[0], &emails[1]]).await;
    let post = |token: &str, text: &str| {
        client
            .post(format!("{}/api/games/{game}/moves", steward.base))
            .bearer_auth(token)
            .json(&json!({"turn": 1, "move": text}))
            .send()
    };
    // White moves over HTTP; black's first try over HTTP is illegal.
    assert_eq!(post(&tokens[0], "e4").await.unwrap().status().as_u16(), 200);
    let refused = post(&tokens[1], "Ke5").await.unwrap();
    assert_eq!(refused.status().as_u16(), 422);
    assert_eq!(refused.json::<serde_json::Value>().await.unwrap()["error"], "illegal_move");
    // Black moves by replying to the start mail: the IMAP door reads it.
    let b_start = &starts[1];
    let cap = bare(&b_start.header("Reply-To").unwrap());
    let raw = reply(&format!("Bob <{}>", emails[1]), b_start, &unique("b"), "d5\r\n", false);
    send(&stack, &emails[1], &cap, &raw).await;

    let samples = scrape_until(client, &url, "the turn resolved and the outbox drained", |s| {
        value(s, "fairsteward_turns_resolved_total", &[]) == 1.0
            && value(s, "fairsteward_outbox_unsent", &[]) == 0.0
            && value(s, "fairsteward_mails_sent_total", &[]) >= 5.0
    })
    .await;
    let v = |name: &str, labels: &[(&str, &str)]| value(&samples, name, labels);
    assert_eq!(v("fairsteward_moves_accepted_total", &[("door", "http")]), 1.0);
    assert_eq!(v("fairsteward_moves_accepted_total", &[("door", "mail")]), 1.0);
    assert_eq!(v("fairsteward_moves_refused_total", &[("door", "http"), ("code", "illegal_move")]), 1.0);
    assert_eq!(v("fairsteward_inbound_mails_total", &[("outcome", "accepted")]), 1.0);
    assert_eq!(v("fairsteward_inbound_mails_total", &[("outcome", "refused")]), 0.0);
    // Two start mails, the receipt of the move by mail (one over HTTP has
    // its answer), two board mails of turn 1.
    assert_eq!(v("fairsteward_mails_sent_total", &[]), 5.0, "{samples:#?}");
    assert_eq!(v("fairsteward_mails_failed_total", &[("reason", "unavailable")]), 0.0);
    assert_eq!(v("fairsteward_outbox_oldest_unsent_age_seconds", &[]), 0.0);
    assert_eq!(v("fairsteward_games", &[("state", "running")]), 1.0);
    assert_eq!(v("fairsteward_games", &[("state", "finished")]), 0.0);
    assert!(v("fairsteward_store_commit_seconds_count", &[]) >= 4.0, "{samples:#?}");
    assert_eq!(
        v("fairsteward_store_commit_seconds_bucket", &[("le", "+Inf")]),
        v("fairsteward_store_commit_seconds_count", &[])
    );
    // The game as the steward sees it agrees.
    assert_eq!(steward.game(&game).await["turn"], 2);

    // A client a proxy forwarded is no loopback client.
    let forwarded = client.get(&url).header("X-Forwarded-For", "203.0.113.9").send().await.unwrap();
    assert_eq!(forwarded.status().as_u16(), 403);
    steward.stop().await;
}

/// A steward on a loopback port with `[metrics] listen` on another.
struct WithMetricsPort {
    base: String,
    metrics: String,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), fairsteward::server::ServerError>>,
    _dir: tempfile::TempDir,
}

async fn start_with_metrics_port() -> WithMetricsPort {
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // A free port for the metrics (the steward binds it itself).
    let metrics_addr = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let raw = RawConfig {
        http: RawHttp { public_url: Some(format!("http://{addr}")), ..RawHttp::default() },
        metrics: RawMetrics { listen: Some(metrics_addr.to_string()) },
        ..RawConfig::default()
    };
    let overrides = Overrides {
        data_dir: Some(dir.path().to_owned()),
        listen: Some(addr.to_string()),
        database: common::backend::database_for(dir.path()),
    };
    let config = Config::from_raw(raw, &overrides).unwrap();
    assert_eq!(config.metrics_listen, Some(metrics_addr));
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(fairsteward::server::serve(config, listener, async move {
        let _ = stopped.await;
    }));
    let s = WithMetricsPort {
        base: format!("http://{addr}"),
        metrics: format!("http://{metrics_addr}"),
        stop,
        task,
        _dir: dir,
    };
    // Serving once the main port answers (the metrics port is bound before it serves).
    let client = common::client();
    let deadline = Instant::now() + Duration::from_secs(10);
    while client.get(format!("{}/health", s.base)).send().await.is_err() {
        assert!(Instant::now() < deadline, "the steward does not answer");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_listen_serves_metrics_and_health_on_a_port_of_their_own() {
    let s = start_with_metrics_port().await;
    let client = common::client();
    // The main port: no /metrics, but /health for the load balancer.
    let main = client.get(format!("{}/metrics", s.base)).send().await.unwrap();
    assert_eq!(main.status().as_u16(), 404);
    let health = client.get(format!("{}/health", s.base)).send().await.unwrap();
    assert_eq!(health.status().as_u16(), 200);
    assert_eq!(health.text().await.unwrap(), "ok\n");

    // The metrics port: both, and nothing of the API.
    let (samples, text) = scrape(&client, &format!("{}/metrics", s.metrics)).await;
    assert_eq!(value(&samples, "fairsteward_store_up", &[]), 1.0, "{text}");
    assert_eq!(value(&samples, "fairsteward_games", &[("state", "running")]), 0.0, "{text}");
    assert!(text.contains("# TYPE fairsteward_moves_accepted_total counter"), "{text}");
    let health = client.get(format!("{}/health", s.metrics)).send().await.unwrap();
    assert_eq!(health.status().as_u16(), 200);
    let api = client.get(format!("{}/api/openapi.json", s.metrics)).send().await.unwrap();
    assert_eq!(api.status().as_u16(), 404);
    // A scraper that asks for OpenMetrics gets it.
    let open = client
        .get(format!("{}/metrics", s.metrics))
        .header("Accept", "application/openmetrics-text; version=1.0.0")
        .send()
        .await
        .unwrap();
    let kind = open.headers()[reqwest::header::CONTENT_TYPE].to_str().unwrap().to_owned();
    assert!(kind.starts_with("application/openmetrics-text"), "{kind}");
    assert!(open.text().await.unwrap().ends_with("# EOF\n"));

    drop(s.stop);
    let stopped = tokio::time::timeout(Duration::from_secs(15), s.task).await.expect("the steward stops");
    stopped.unwrap().unwrap();
    // Both ports are closed.
    assert!(client.get(format!("{}/health", s.metrics)).send().await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_answers_503_when_the_store_is_gone() {
    let s = common::Server::start().await;
    let client = common::client();
    let health = format!("{}/health", s.base);
    assert_eq!(client.get(&health).send().await.unwrap().status().as_u16(), 200);
    let moved = if common::backend::on_postgres() {
        // The store's tables go: its schema is dropped under the steward.
        let url = common::backend::database_for(&s.config.data_dir).unwrap();
        let schema = url.rsplit_once("search_path%3D").unwrap().1.to_owned();
        let server = common::backend::server_url();
        std::thread::spawn(move || {
            let mut c = postgres::Client::connect(&server, postgres::NoTls).unwrap();
            c.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).unwrap();
        })
        .join()
        .unwrap();
        None
    } else {
        // The database file is moved away under the steward.
        let db = s.config.database();
        let away = db.with_extension("moved");
        std::fs::rename(&db, &away).unwrap();
        Some((db, away))
    };
    let resp = client.get(&health).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 503);
    let reason = resp.text().await.unwrap();
    assert!(reason.starts_with("unavailable: ") && reason.ends_with('\n') && reason.lines().count() == 1, "{reason}");
    // The metrics say so too.
    let (samples, text) = scrape(&client, &format!("{}/metrics", s.base)).await;
    assert_eq!(value(&samples, "fairsteward_store_up", &[]), 0.0, "{text}");
    if let Some((db, away)) = moved {
        std::fs::rename(&away, &db).unwrap();
        assert_eq!(client.get(&health).send().await.unwrap().status().as_u16(), 200);
        s.shut_down().await;
    }
}

/// Moves through the game pages count under the `web` door, refused ones
/// with their code, and each move of a game taken in turns resolves a turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_from_the_pages_count_under_the_web_door() {
    let server = common::Server::start().await;
    let seats = json!([
        {"name": "Player white", "email": "white@example.org"},
        {"name": "Player black", "email": "black@example.org"},
    ]);
    let created =
        server.post_json("/api/games", None, &json!({"variant": "chess", "options": {}, "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let spool = server.config.data_dir.join("spool");
    let url = format!("{}/metrics", server.base);

    // The private link of the seat's start mail signs it in; its form moves.
    let link = common::web::sign_in_link(&spool, &id, "white").await;
    let mut white = common::web::Browser::new(&server);
    assert_eq!(white.open_link(&link).await.status, 200);
    let csrf = white.get(&format!("/games/{id}?seat=white")).await.csrf();
    let moved = white
        .post(&format!("/games/{id}/move"), &[("csrf", &csrf), ("seat", "white"), ("turn", "1"), ("move", "e4")])
        .await;
    assert_eq!(moved.status, 303, "{}", moved.text);
    // Black's turn: white's second move is refused.
    let csrf = white.get(&format!("/games/{id}?seat=white")).await.csrf();
    let refused = white
        .post(&format!("/games/{id}/move"), &[("csrf", &csrf), ("seat", "white"), ("turn", "2"), ("move", "d4")])
        .await;
    assert_eq!(refused.status, 409, "{}", refused.text);

    let (samples, text) = scrape(&server.client, &url).await;
    let v = |name: &str, labels: &[(&str, &str)]| value(&samples, name, labels);
    assert_eq!(v("fairsteward_moves_accepted_total", &[("door", "web")]), 1.0, "{text}");
    assert_eq!(v("fairsteward_moves_accepted_total", &[("door", "http")]), 0.0, "{text}");
    assert_eq!(v("fairsteward_moves_refused_total", &[("door", "web"), ("code", "not_your_turn")]), 1.0, "{text}");
    assert_eq!(v("fairsteward_turns_resolved_total", &[]), 1.0, "{text}");
    assert_eq!(v("fairsteward_games", &[("state", "running")]), 1.0, "{text}");
    server.shut_down().await;
}

/// docs/operator.md names every metric, and shows the example alert of
/// deploy/prometheus-alerts.yml verbatim; the file reads as YAML (PyYAML) and
/// alerts on the outbox's oldest mail by a metric the steward serves.
#[test]
fn the_operators_guide_names_every_metric_and_shows_the_alert_verbatim() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/operator.md")).unwrap();
    let metrics = fairsteward::metrics::Metrics::new();
    metrics.move_refused("http", "illegal_move"); // a family with no series yet is not written
    let (_, text) = metrics.encode(false);
    let families: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("# TYPE ")?.split(' ').next()).collect();
    assert!(families.len() >= 14, "{text}");
    for family in &families {
        assert!(doc.contains(&format!("`{family}`")), "docs/operator.md does not name {family}");
    }

    let alerts = std::fs::read_to_string(root.join("deploy/prometheus-alerts.yml")).unwrap();
    assert!(
        crate::support::fenced_blocks(&doc).contains(&alerts),
        "docs/operator.md does not show deploy/prometheus-alerts.yml verbatim"
    );
    const SCRIPT: &str = r#"
import json, sys, yaml
print(json.dumps(yaml.safe_load(sys.stdin.read())))
"#;
    let out = python(SCRIPT, &alerts);
    assert!(out.status.success(), "the alert file is no YAML: {}", String::from_utf8_lossy(&out.stderr));
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outbox = rules["groups"][0]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["alert"] == "FairstewardOutboxStuck")
        .expect("the outbox alert");
    assert_eq!(outbox["for"], "10m");
    let expr = outbox["expr"].as_str().unwrap();
    assert!(expr.starts_with("fairsteward_outbox_oldest_unsent_age_seconds > 15 * 60"), "{expr}");
    for rule in rules["groups"][0]["rules"].as_array().unwrap() {
        let expr = rule["expr"].as_str().unwrap();
        let named = families.iter().any(|f| expr.contains(f));
        assert!(named, "{expr} names no metric the steward serves");
    }
}

/// `[metrics]` in a configuration file: the example's commented section reads
/// once uncommented; a bad address, the main listener's address and an
/// unknown key are refused, each naming the key.
#[test]
fn the_metrics_section_of_the_configuration_is_checked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = std::fs::read_to_string(root.join("deploy/fairsteward.toml.example")).unwrap();
    let section: String = example
        .lines()
        .skip_while(|l| !l.starts_with("# [metrics]"))
        .take_while(|l| l.starts_with("# "))
        .map(|l| format!("{}\n", &l[2..]))
        .collect();
    assert!(section.starts_with("[metrics]"), "deploy/fairsteward.toml.example has no commented [metrics]: {section}");
    let dir = tempfile::tempdir().unwrap();
    let overrides = Overrides { data_dir: Some(dir.path().to_owned()), ..Overrides::default() };
    let load = |text: &str| {
        let file = dir.path().join("fairsteward.toml");
        std::fs::write(&file, text).unwrap();
        Config::load(Some(&file), &overrides).map_err(|e| {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                text = format!("{text}: {s}");
                source = s.source();
            }
            text
        })
    };
    let config = load(&section).unwrap();
    assert_eq!(config.metrics_listen, Some("127.0.0.1:9464".parse().unwrap()));
    assert_eq!(load("").unwrap().metrics_listen, None);

    let bad = load("[metrics]\nlisten = \"localhost\"\n").unwrap_err();
    assert!(bad.contains("metrics.listen") && bad.contains("localhost"), "{bad}");
    let same = load("[http]\nlisten = \"127.0.0.1:9464\"\n[metrics]\nlisten = \"127.0.0.1:9464\"\n").unwrap_err();
    assert!(same.contains("metrics.listen"), "{same}");
    let unknown = load("[metrics]\nport = 9464\n").unwrap_err();
    assert!(unknown.contains("port"), "{unknown}");
}

/// With the SMTP server unreachable the mails stay queued: the failed
/// handovers count as `unavailable`, and the outbox's gauges show the backlog
/// and its age (what deploy/prometheus-alerts.yml alerts on).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_smtp_server_shows_as_failed_handovers_and_a_growing_outbox() {
    use fairsteward::config::RawMail;
    use fairsteward::mail::smtp::{RawSmtp, TlsMode};
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // A port nothing listens on: bound, then let go.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let raw = RawConfig {
        http: RawHttp { public_url: Some(format!("http://{addr}")), ..RawHttp::default() },
        mail: RawMail {
            smtp: Some(RawSmtp {
                host: Some(closed.ip().to_string()),
                port: Some(closed.port()),
                tls: Some(TlsMode::None),
                timeout_seconds: Some(5),
                ..RawSmtp::default()
            }),
            ..RawMail::default()
        },
        ..RawConfig::default()
    };
    let overrides = Overrides {
        data_dir: Some(dir.path().to_owned()),
        listen: Some(addr.to_string()),
        database: common::backend::database_for(dir.path()),
    };
    let config = Config::from_raw(raw, &overrides).unwrap();
    let operator = fairsteward::server::operator_token(&config).unwrap().reveal().to_owned();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(fairsteward::server::serve(config, listener, async move {
        let _ = stopped.await;
    }));
    let client = common::client();
    let base = format!("http://{addr}");
    common::start_up_swept(&base).await;
    let seats = json!([
        {"name": "Player white", "email": "white@example.org"},
        {"name": "Player black", "email": "black@example.org"},
    ]);
    let created = client
        .post(format!("{base}/api/games"))
        .bearer_auth(&operator)
        .json(&json!({"variant": "chess", "options": {}, "seats": seats}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status().as_u16(), 201);

    let samples = scrape_until(&client, &format!("{base}/metrics"), "a failed handover and an aging outbox", |s| {
        value(s, "fairsteward_mails_failed_total", &[("reason", "unavailable")]) >= 1.0
            && value(s, "fairsteward_outbox_oldest_unsent_age_seconds", &[]) > 0.0
    })
    .await;
    let v = |name: &str, labels: &[(&str, &str)]| value(&samples, name, labels);
    assert_eq!(v("fairsteward_mails_sent_total", &[]), 0.0, "{samples:#?}");
    assert_eq!(v("fairsteward_mails_failed_total", &[("reason", "refused")]), 0.0, "{samples:#?}");
    // The two start mails wait.
    assert_eq!(v("fairsteward_outbox_unsent", &[]), 2.0, "{samples:#?}");
    assert_eq!(v("fairsteward_store_up", &[]), 1.0);

    drop(stop);
    tokio::time::timeout(Duration::from_secs(30), task).await.expect("the steward stops").unwrap().unwrap();
}
