//! Failover (issue 35): a PostgreSQL primary with a synchronous streaming
//! standby (`pg_basebackup -R`, `synchronous_standby_names`), made for this
//! test from Debian's server (`PGSTACK_BIN`, exported by `scripts/pgstack.sh`)
//! under a directory of its own, run as the unprivileged `postgres` user on
//! loopback ports. Two stewards reach it through a multi-host URL with
//! `target_session_attrs=read-write`. While clients play, the primary is
//! stopped at once (`pg_ctl -m immediate`, as a lost host) and the standby
//! promoted: every acknowledged move is there once, in order, no move is
//! applied twice, the stewards reconnect by themselves, every transcript
//! verifies, and the outbox drains again.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::stewards::{OPENING as PLIES, copy_keys, post_move, record};
use crate::support::{Steward, eventually_within};

/// A cluster made for this test, stopped when dropped.
struct Cluster {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
}

fn as_postgres(bin: &Path, tool: &str, args: &[&str]) -> std::process::Output {
    let out = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(bin.join(tool))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("runuser {tool}: {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Cluster {
    fn start(&self) {
        let log = self.data.with_extension("log");
        as_postgres(
            &self.bin,
            "pg_ctl",
            &["-D", self.data.to_str().unwrap(), "-l", log.to_str().unwrap(), "-w", "-t", "60", "start"],
        );
    }

    fn url(&self) -> String {
        format!("postgres://fairsteward@127.0.0.1:{}/postgres", self.port)
    }

    fn query(&self, sql: &str) -> String {
        let out = Command::new("psql").args([&self.url(), "-XAtc", sql]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(self.bin.join("pg_ctl"))
            .args(["-D", self.data.to_str().unwrap(), "-m", "immediate", "stop"])
            .output();
    }
}

/// A primary on a port of its own and its synchronous standby.
fn primary_and_standby(root: &Path) -> (Cluster, Cluster) {
    let bin = PathBuf::from(std::env::var("PGSTACK_BIN").expect(
        "PGSTACK_BIN is not set: the failover test needs PostgreSQL's server tools; run the tests with scripts/test \
         (scripts/pgstack.sh exports it)",
    ));
    Command::new("chown").arg("postgres").arg(root).status().unwrap();
    let primary = Cluster { bin: bin.clone(), data: root.join("primary"), port: free_port() };
    let data = primary.data.to_str().unwrap();
    as_postgres(&bin, "initdb", &["-D", data, "-A", "trust", "-U", "fairsteward", "-E", "UTF8", "--locale=C.UTF-8"]);
    let conf = format!(
        "listen_addresses = '127.0.0.1'\nport = {}\nunix_socket_directories = '{}'\n\
         synchronous_standby_names = 'FIRST 1 (standby1)'\nsynchronous_commit = on\nwal_level = replica\n",
        primary.port,
        root.display()
    );
    append(&primary.data.join("postgresql.conf"), &conf);
    primary.start();
    let standby = Cluster { bin: bin.clone(), data: root.join("standby"), port: free_port() };
    as_postgres(
        &bin,
        "pg_basebackup",
        &[
            "-h",
            "127.0.0.1",
            "-p",
            &primary.port.to_string(),
            "-U",
            "fairsteward",
            "-D",
            standby.data.to_str().unwrap(),
            "-R",
            "-X",
            "stream",
        ],
    );
    // The walreceiver names itself by cluster_name: the primary waits for it
    // by that name. Promoted, it has no standby of its own to wait for (the
    // primary's setting came with the base backup).
    append(
        &standby.data.join("postgresql.conf"),
        &format!("port = {}\ncluster_name = 'standby1'\nsynchronous_standby_names = ''\n", standby.port),
    );
    standby.start();
    let deadline = Instant::now() + Duration::from_secs(30);
    while primary.query("SELECT sync_state FROM pg_stat_replication") != "sync" {
        assert!(Instant::now() < deadline, "the standby never became synchronous");
        std::thread::sleep(Duration::from_millis(100));
    }
    (primary, standby)
}

fn append(file: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn promoting_the_synchronous_standby_under_load_loses_no_acknowledged_move_and_applies_none_twice() {
    let root = tempfile::Builder::new().prefix("fs-failover").tempdir_in("/tmp").unwrap();
    let (primary, standby) = primary_and_standby(root.path());
    let url = format!(
        "postgres://fairsteward@127.0.0.1:{},127.0.0.1:{}/postgres?target_session_attrs=read-write&connect_timeout=3",
        primary.port, standby.port
    );
    let steward_root = tempfile::tempdir().unwrap();
    let (a_dir, b_dir) = (steward_root.path().join("a"), steward_root.path().join("b"));
    let a = Steward::start_with(&a_dir, &["--database".as_ref(), url.as_ref()]).await;
    copy_keys(&a_dir, &b_dir);
    let b = Steward::start_with(&b_dir, &["--database".as_ref(), url.as_ref()]).await;
    let bases = Arc::new(RwLock::new(vec![format!("http://{}", a.addr), format!("http://{}", b.addr)]));
    let mut games = Vec::new();
    for _ in 0..4 {
        let seats =
            json!([{"name": "W", "email": "w.failover@example.org"}, {"name": "B", "email": "b.failover@example.org"}]);
        let created = a.api().post_json("/api/games", None, &json!({"variant": "chess", "seats": seats})).await.ok(201);
        let tokens: Vec<String> =
            created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
        games.push((created["game"]["id"].as_str().unwrap().to_owned(), tokens));
    }
    let players: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(g, (id, tokens))| {
            let (bases, id, tokens) = (bases.clone(), id.clone(), tokens.clone());
            tokio::spawn(async move {
                let mut acknowledged = Vec::new();
                for (ply, text) in PLIES.iter().enumerate() {
                    let turn = ply as u32 + 1;
                    let (status, body) =
                        post_move(&bases, g + ply, (&id, &tokens[ply % 2]), turn, text, Duration::from_secs(90)).await;
                    assert_eq!(status, 200, "{id} ply {turn} {text}: {body}");
                    acknowledged.push(body["receipt"].as_str().unwrap().to_owned());
                    tokio::time::sleep(Duration::from_millis(30)).await;
                }
                (id, acknowledged)
            })
        })
        .collect();
    // Under load: the primary's host is lost, the standby promoted.
    tokio::time::sleep(Duration::from_millis(300)).await;
    as_postgres(&primary.bin, "pg_ctl", &["-D", primary.data.to_str().unwrap(), "-m", "immediate", "stop"]);
    as_postgres(&standby.bin, "pg_ctl", &["-D", standby.data.to_str().unwrap(), "-w", "promote"]);
    let at_promotion: usize = standby.query("SELECT count(*) FROM moves").parse().unwrap();
    assert!(at_promotion < games.len() * PLIES.len(), "the failover came under load ({at_promotion} moves in)");
    let mut played = Vec::new();
    for p in players {
        played.push(p.await.unwrap());
    }

    let api = b.api();
    for (id, acknowledged) in &played {
        let view = api.game(id, None).await;
        let moves = record(&view);
        assert_eq!(moves, PLIES, "{id}: every acknowledged move once, in order");
        let transcript = api.get(&format!("/api/games/{id}/transcript"), None).await.text;
        for receipt in acknowledged {
            assert_eq!(
                transcript.matches(receipt.as_str()).count(),
                1,
                "{id}: receipt {receipt} once in the transcript"
            );
        }
        let url = format!("http://{}/api/games/{id}/transcript", a.addr);
        let out = tokio::task::spawn_blocking(move || {
            Command::new(env!("CARGO_BIN_EXE_fairsteward")).args(["verify", "--url", &url]).output().unwrap()
        })
        .await
        .unwrap();
        assert!(out.status.success(), "{id}: {}", String::from_utf8_lossy(&out.stdout));
    }
    // The background duties go on against the promoted standby.
    eventually_within(Duration::from_secs(60), "the outbox drained on the new primary", || {
        (standby.query("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == "0").then_some(())
    })
    .await;
    assert_eq!(standby.query("SELECT pg_is_in_recovery()"), "f", "the standby was promoted");
}
