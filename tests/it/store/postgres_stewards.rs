//! Several stewards on one PostgreSQL database (issue 35), through the real
//! binary: three `fairsteward serve` processes, each with a data directory of
//! its own holding copies of the same steward keys and operator token, all with
//! `--database` naming one fresh store on the test PostgreSQL
//! (`scripts/pgstack.sh`).
//!
//! * Moves on one game sent to different stewards at the same moment are
//!   refereed one at a time: one is taken, the others refused.
//! * Under load, with stewards killed by SIGKILL and started again, every
//!   acknowledged move is in its game once, in order, and every transcript
//!   verifies with the steward key all three share.
//! * The outbox is drained by every steward, and no mail goes out twice while
//!   none is killed.
//! * The deadline sweep runs on one steward at a time, and another takes its
//!   lease over when that one dies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::backend;
use crate::support::stewards::{OPENING as PLIES, copy_keys, post_move, record};
use crate::support::{Steward, eventually_within};

/// A store of its own on the test PostgreSQL.
fn store_url(tag: &str) -> String {
    let unique =
        format!("{tag}_{}_{}", std::process::id(), crate::support::mailstack::unique("s").replace(['-', '.'], "_"));
    backend::fresh_store_url(&unique.to_ascii_lowercase())
}

/// Counts rows of the store at `url`, off the test's runtime threads.
fn count(url: &str, sql: &str) -> i64 {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
        c.query_one(&sql, &[]).expect("count").get::<_, i64>(0)
    })
    .join()
    .unwrap()
}

/// The holder of the lease `name` in the store at `url`, if any.
fn lease_holder(url: &str, name: &str) -> Option<String> {
    let (url, name) = (url.to_owned(), name.to_owned());
    std::thread::spawn(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
        c.query_opt("SELECT holder FROM leases WHERE name = $1", &[&name]).expect("read the lease").map(|r| r.get(0))
    })
    .join()
    .unwrap()
}

/// A data directory with a configuration that sweeps every second.
fn data_dir(root: &Path, name: &str) -> (PathBuf, PathBuf) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let config = root.join(format!("{name}.toml"));
    std::fs::write(&config, "[schedule]\nsweep = \"* * * * * *\"\n").unwrap();
    (dir, config)
}

/// `serve` on `dir` and the store at `url`, which must refuse to start: what it said.
fn refused(dir: &Path, url: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir)
        .args(["--database", url])
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "serve started instead of refusing: {said}");
    said
}

async fn start(dir: &Path, config: &Path, url: &str) -> Steward {
    Steward::start_with(dir, &["--config".as_ref(), config.as_os_str(), "--database".as_ref(), url.as_ref()]).await
}

/// Three stewards on the store at `url`: the first makes the keys, the others
/// get copies.
async fn three(root: &Path, url: &str) -> Vec<(Steward, PathBuf, PathBuf)> {
    let (a_dir, a_config) = data_dir(root, "a");
    let a = start(&a_dir, &a_config, url).await;
    let mut out = vec![(a, a_dir.clone(), a_config)];
    for name in ["b", "c"] {
        let (dir, config) = data_dir(root, name);
        copy_keys(&a_dir, &dir);
        let s = start(&dir, &config, url).await;
        out.push((s, dir, config));
    }
    out
}

fn seats() -> Value {
    json!([{"name": "White", "email": "white@example.org"}, {"name": "Black", "email": "black@example.org"}])
}

/// Every spool's mails, by Message-ID: how many copies, across the stewards.
fn spooled(dirs: &[PathBuf]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for dir in dirs {
        for entry in std::fs::read_dir(dir.join("spool")).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".eml") {
                *out.entry(id.to_owned()).or_insert(0) += 1;
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_stewards_referee_one_database_one_move_at_a_time_through_kill_9() {
    let root = tempfile::tempdir().unwrap();
    let url = store_url("three");
    let mut stewards = three(root.path(), &url).await;
    let bases = Arc::new(std::sync::RwLock::new(
        stewards.iter().map(|(s, _, _)| format!("http://{}", s.addr)).collect::<Vec<_>>(),
    ));
    // Before any game: a steward with keys of its own is refused all the same.
    let said = refused(&root.path().join("stranger"), &url);
    assert!(said.contains("is not the one the other stewards"), "{said}");
    let fingerprints: BTreeSet<String> = {
        let mut out = BTreeSet::new();
        for (s, _, _) in &stewards {
            let key = s.api().get("/api/steward", None).await;
            assert_eq!(key.status, 200, "{}", key.text);
            out.insert(key.json()["fingerprint"].to_string());
        }
        out
    };
    assert_eq!(fingerprints.len(), 1, "every steward signs with the same key: {fingerprints:?}");

    // Games made on each steward; each is read the same from the others.
    let mut games = Vec::new();
    for i in 0..6 {
        let api = stewards[i % 3].0.api();
        let created = api.post_json("/api/games", None, &json!({"variant": "chess", "seats": seats()})).await.ok(201);
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let tokens: Vec<String> =
            created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
        for (other, _, _) in &stewards {
            assert_eq!(other.api().game(&id, None).await["id"], id.as_str());
        }
        games.push((id, tokens));
    }

    // One turn, three different moves sent to three stewards at once: one is taken.
    let (race_game, race_tokens) = games[0].clone();
    let racers = ["d4", "c4", "Nf3"].iter().enumerate().map(|(i, text)| {
        let (bases, game, token) = (bases.clone(), race_game.clone(), race_tokens[0].clone());
        tokio::spawn(async move { post_move(&bases, i, (&game, &token), 1, text, Duration::from_secs(60)).await })
    });
    let mut answers = Vec::new();
    for r in racers {
        answers.push(r.await.unwrap());
    }
    let taken: Vec<&(u16, Value)> = answers.iter().filter(|(status, _)| *status == 200).collect();
    assert_eq!(taken.len(), 1, "exactly one of three simultaneous moves is taken: {answers:?}");
    assert!(answers.iter().all(|(status, _)| *status == 200 || *status == 409), "the others are refused: {answers:?}");
    let view = stewards[2].0.api().game(&race_game, None).await;
    assert_eq!(view["turn"], 2, "{view}");

    // Load: every other game played out, each ply on the next steward, while
    // stewards are killed and started again.
    let players = games[1..].iter().enumerate().map(|(g, (id, tokens))| {
        let (bases, id, tokens) = (bases.clone(), id.clone(), tokens.clone());
        tokio::spawn(async move {
            let mut receipts = Vec::new();
            for (ply, text) in PLIES.iter().enumerate() {
                let turn = ply as u32 + 1;
                let (status, body) =
                    post_move(&bases, g + ply, (&id, &tokens[ply % 2]), turn, text, Duration::from_secs(60)).await;
                assert_eq!(status, 200, "{id} ply {turn} {text}: {body}");
                receipts.push(body["receipt"].as_str().unwrap_or_default().to_owned());
            }
            (id, receipts)
        })
    });
    let players: Vec<_> = players.collect();
    for round in 0..3 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let victim = round % 3;
        let (steward, dir, config) = &mut stewards[victim];
        steward.stop();
        let again = start(dir, config, &url).await;
        bases.write().unwrap()[victim] = format!("http://{}", again.addr);
        *steward = again;
    }
    let mut played = Vec::new();
    for p in players {
        played.push(p.await.unwrap());
    }

    // Every acknowledged move is in its game once, in order; every transcript verifies.
    for (id, receipts) in &played {
        let view = stewards[0].0.api().game(id, None).await;
        assert_eq!(view["turn"], PLIES.len() as u64 + 1, "{id}: {view}");
        let moves = record(&view);
        assert_eq!(moves, PLIES, "{id}: every ply once, in order");
        assert_eq!(receipts.iter().collect::<BTreeSet<_>>().len(), PLIES.len(), "{id}: a receipt per ply");
        let transcript = format!("http://{}/api/games/{id}/transcript", stewards[1].0.addr);
        let out = tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_fairsteward"))
                .args(["verify", "--url", &transcript])
                .output()
                .unwrap()
        })
        .await
        .unwrap();
        assert!(
            out.status.success(),
            "{id}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for (s, _, _) in &stewards {
        assert_eq!(s.count(" ERROR "), 0, "a steward logged an error:\n{}", s.log());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_steward_drains_the_outbox_and_no_mail_goes_twice_and_the_sweep_moves_to_a_live_steward() {
    let root = tempfile::tempdir().unwrap();
    let url = store_url("drain");
    let mut stewards = three(root.path(), &url).await;
    let dirs: Vec<PathBuf> = stewards.iter().map(|(_, d, _)| d.clone()).collect();
    // Games made on every steward, and moves: mails queued by all three.
    for i in 0..12 {
        let api = stewards[i % 3].0.api();
        let created = api.post_json("/api/games", None, &json!({"variant": "chess", "seats": seats()})).await.ok(201);
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let white = created["tokens"][0]["token"].as_str().unwrap().to_owned();
        let mover = stewards[(i + 1) % 3].0.api();
        mover
            .post_json(&format!("/api/games/{id}/moves"), Some(&white), &json!({"turn": 1, "move": "e4"}))
            .await
            .ok(200);
    }
    // A steward started without copies of the keys makes keys of its own,
    // which the players do not trust: it refuses to start, saying what to copy.
    let said = refused(&root.path().join("d"), &url);
    assert!(said.contains("copy steward-signing.pem"), "{said}");
    let queued = count(&url, "SELECT count(*) FROM outbox");
    assert!(queued >= 12 * 4, "start and board mails queued: {queued}");
    eventually_within(Duration::from_secs(60), "every queued mail sent", || {
        (count(&url, "SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0).then_some(())
    })
    .await;
    let mails = spooled(&dirs);
    assert_eq!(mails.len() as i64, queued, "every mail went out");
    let twice: Vec<_> = mails.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "no mail went out twice: {twice:?}");
    let drainers =
        dirs.iter().filter(|d| std::fs::read_dir(d.join("spool")).is_ok_and(|mut r| r.next().is_some())).count();
    assert!(drainers >= 2, "the outbox is drained by more than one steward ({drainers})");

    // The sweep: one holder; killed, another steward takes the lease over.
    let holder =
        eventually_within(Duration::from_secs(20), "a steward holds the sweep's lease", || lease_holder(&url, "sweep"))
            .await;
    let pid = holder.split(':').nth(1).unwrap().parse::<u32>().unwrap();
    let victim = stewards.iter().position(|(s, _, _)| s.pid() == pid).expect("the holder is one of the three");
    let sweeps = |s: &Steward| s.count("sweep done");
    let others_before: usize =
        stewards.iter().enumerate().filter(|(i, _)| *i != victim).map(|(_, (s, _, _))| sweeps(s)).sum();
    stewards[victim].0.stop();
    let next = eventually_within(Duration::from_secs(40), "another steward takes the sweep's lease", || {
        lease_holder(&url, "sweep").filter(|h| *h != holder)
    })
    .await;
    let next_pid = next.split(':').nth(1).unwrap().parse::<u32>().unwrap();
    assert!(stewards.iter().any(|(s, _, _)| s.pid() == next_pid), "a live steward: {next}");
    eventually_within(Duration::from_secs(20), "the new holder sweeps", || {
        let now: usize =
            stewards.iter().enumerate().filter(|(i, _)| *i != victim).map(|(_, (s, _, _))| sweeps(s)).sum();
        (now > others_before).then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_live_stream_on_one_steward_hears_a_move_made_through_another() {
    let root = tempfile::tempdir().unwrap();
    let url = store_url("listen");
    let (a_dir, a_config) = data_dir(root.path(), "a");
    let a = start(&a_dir, &a_config, &url).await;
    let (b_dir, b_config) = data_dir(root.path(), "b");
    copy_keys(&a_dir, &b_dir);
    let b = start(&b_dir, &b_config, &url).await;
    let created = a.api().post_json("/api/games", None, &json!({"variant": "chess", "seats": seats()})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let white = created["tokens"][0]["token"].as_str().unwrap().to_owned();
    let mut stream =
        crate::support::client().get(format!("http://{}/api/games/{id}/events", b.addr)).send().await.unwrap();
    assert_eq!(stream.status(), 200);
    let mut seen = String::new();
    while !seen.contains("event: state") {
        seen.push_str(&String::from_utf8_lossy(&stream.chunk().await.unwrap().expect("the stream's first event")));
    }
    a.api().post_json(&format!("/api/games/{id}/moves"), Some(&white), &json!({"turn": 1, "move": "e4"})).await.ok(200);
    let heard = tokio::time::timeout(Duration::from_secs(10), async {
        while !seen.contains("event: turn") {
            seen.push_str(&String::from_utf8_lossy(&stream.chunk().await.unwrap().expect("more events")));
        }
    })
    .await;
    assert!(heard.is_ok(), "steward B's stream did not hear the move made through A: {seen}");
    assert!(seen.contains("\"e4\""), "{seen}");
}

/// `fairsteward <args>` on the store at `url`, `stdin` piped in.
fn run_on(url: &str, args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(args)
        .env("FAIRSTEWARD_DATABASE", url)
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn one_mail_piped_to_two_stewards_at_once_is_taken_once() {
    let root = tempfile::tempdir().unwrap();
    let url = store_url("ingest");
    let (a, b) = (root.path().join("a"), root.path().join("b"));
    let a_arg = a.display().to_string();
    let new = run_on(
        &url,
        &[
            "game",
            "new",
            "--data-dir",
            &a_arg,
            "--variant",
            "chess",
            "--seat",
            "Alice <alice@example.org>",
            "--seat",
            "Bob <bob@example.org>",
        ],
        b"",
    );
    assert!(new.status.success(), "{}", String::from_utf8_lossy(&new.stderr));
    // Anything piped in sends the queued start mails to A's spool.
    run_on(&url, &["ingest", "--data-dir", &a_arg], b"not a mail");
    copy_keys(&a, &b);
    let start = std::fs::read_dir(a.join("spool"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .find(|m| m.contains("To: Alice") || m.contains("To: alice"))
        .expect("Alice's start mail");
    let reply_to = crate::support::pipe::header(&start, "Reply-To");
    let reply_to = reply_to.rsplit_once('<').map_or(reply_to.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned();
    let mail = crate::support::pipe::reply("Alice <alice@example.org>", &reply_to, "twice", "Re: your game", "e4");
    // The MTA hands the same mail to both stewards' pipes at the same moment.
    let both: Vec<_> = [a, b]
        .into_iter()
        .map(|dir| {
            let (url, mail) = (url.clone(), mail.clone());
            std::thread::spawn(move || {
                run_on(&url, &["ingest", "--data-dir", &dir.display().to_string()], mail.as_bytes())
            })
        })
        .collect();
    let mut lines: Vec<String> = both
        .into_iter()
        .map(|t| {
            let out = t.join().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        })
        .collect();
    lines.sort();
    assert_eq!(lines, ["accepted: move", "ignored: seen before"], "taken once, seen once");
    assert_eq!(count(&url, "SELECT count(*) FROM moves"), 1, "one move stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_imap_door_reads_on_one_steward_and_another_takes_over_when_it_dies() {
    let stack = crate::support::mailstack::stack();
    let root = tempfile::tempdir().unwrap();
    let url = store_url("imap");
    let user = crate::support::mailstack::unique("moves");
    let config = format!(
        "[schedule]\nsweep = \"0 0 * * * *\"\n[mail.imap]\nhost = {:?}\nport = {}\ntls = \"none\"\nusername = {user:?}\npassword = {:?}\npoll_seconds = 1\nrecheck_seconds = 1\n",
        stack.imap_host, stack.imap_port, stack.pass
    );
    let (a_dir, b_dir) = (root.path().join("a"), root.path().join("b"));
    let config_file = root.path().join("imap.toml");
    std::fs::write(&config_file, config).unwrap();
    let a = start(&a_dir, &config_file, &url).await;
    copy_keys(&a_dir, &b_dir);
    let b = start(&b_dir, &config_file, &url).await;
    let mut stewards = [a, b];
    let reading = "IMAP door: reading the mailbox";
    let waiting = "another steward reads the mailbox";
    let reader = eventually_within(Duration::from_secs(20), "one steward reads the mailbox, the other waits", || {
        let readers: Vec<usize> = (0..2).filter(|&i| stewards[i].count(reading) > 0).collect();
        (readers.len() == 1 && stewards[1 - readers[0]].count(waiting) > 0).then(|| readers[0])
    })
    .await;
    let holder = lease_holder(&url, "imap").expect("the reader holds the lease");
    assert!(holder.contains(&format!(":{}:", stewards[reader].pid())), "{holder}");
    stewards[reader].stop();
    let other = 1 - reader;
    eventually_within(Duration::from_secs(40), "the other steward takes the IMAP door over", || {
        (stewards[other].count(reading) > 0).then_some(())
    })
    .await;
    let now = lease_holder(&url, "imap").expect("a holder");
    assert!(now.contains(&format!(":{}:", stewards[other].pid())), "{now}");
}
