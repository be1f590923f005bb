//! The operator (issue 11, points 2 and 5): creating games over HTTP needs the
//! operator token; `keys rotate` records the change where players and `verify`
//! see it; `backup` copies the store while it serves, and the copy restores.

use crate::support as common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{Api, Server, spool_files};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_fairsteward");

fn seats() -> Value {
    json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}])
}

/// Runs the binary with `args` (on the store of the data directory they
/// name); returns stdout, or panics with stderr.
fn run(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).envs(common::backend::database_env_of_args(args)).output().unwrap();
    assert!(out.status.success(), "fairsteward {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_a_game_needs_the_operator_token() {
    let s = Server::start().await;
    let data = s.config.data_dir.clone();
    let token_file = data.join("operator-token");
    assert_eq!(mode(&token_file), 0o600, "the token is the operator's alone");
    let printed = tokio::task::spawn_blocking({
        let data = data.clone();
        move || run(&["operator-token", "--data-dir", data.to_str().unwrap()])
    })
    .await
    .unwrap();
    assert_eq!(printed.trim(), s.operator, "operator-token prints the token the steward uses");

    let body = json!({"variant": "chess", "seats": seats()});
    let anonymous = s.api().anonymous();
    let none = anonymous.post_json("/api/games", None, &body).await;
    let m = none.error(401, "operator_token_required");
    assert!(m.contains("Authorization: Bearer") && m.contains("fairsteward operator-token"), "{m}");
    assert_eq!(none.www_authenticate.as_deref(), Some("Bearer"));
    // The token with its last character changed (to another character, whatever it was).
    let last = if s.operator.ends_with('0') { '1' } else { '0' };
    let wrong = format!("{}{last}", &s.operator[..s.operator.len() - 1]);
    let m = anonymous.post_json("/api/games", Some(&wrong), &body).await.error(401, "operator_token_required");
    assert!(m.contains("not the operator token"), "{m}");
    // A seat token of another game is no operator token either.
    let created = s.api().post_json("/api/games", None, &body).await.ok(201);
    let seat_token = created["tokens"][0]["token"].as_str().unwrap();
    anonymous.post_json("/api/games", Some(seat_token), &body).await.error(401, "operator_token_required");
    // Even a body that would be refused is refused for the token first.
    anonymous.post("/api/games", None, "garbage").await.error(401, "operator_token_required");

    // Only the one game was made: only its two start mails are queued.
    let queued = common::backend::Db::of(&data).count("SELECT count(*) FROM games", &[]);
    assert_eq!(queued, 1, "refused creations made no game");
    let id = created["game"]["id"].as_str().unwrap();
    assert_eq!(s.game(id, None).await["id"], id);
    s.shut_down().await;
}

#[test]
fn the_config_can_name_the_token_file() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("secrets").join("operator");
    let config = dir.path().join("fairsteward.toml");
    std::fs::write(
        &config,
        format!("data_dir = {:?}\n[http]\noperator_token_file = {:?}\n", dir.path().join("data"), elsewhere),
    )
    .unwrap();
    // No store there yet: made only when asked to (issue 36).
    let first = run(&["operator-token", "--create", "--config", config.to_str().unwrap()]);
    assert_eq!(first.trim().len(), 64, "{first}");
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), first, "written where the config says");
    assert_eq!(mode(&elsewhere), 0o600);
    assert!(!dir.path().join("data").join("operator-token").exists());
    assert_eq!(run(&["operator-token", "--config", config.to_str().unwrap()]), first, "made once");
}

/// Plays knight moves back and forth in chess game `id` from `turn` while it is
/// accepted, at most `max` moves; returns the next turn.
async fn shuffle(api: &Api, id: &str, tokens: &[String; 2], mut turn: u32, max: u32) -> u32 {
    const MOVES: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];
    for _ in 0..max {
        let seat = ((turn - 1) % 2) as usize;
        let text = MOVES[((turn - 1) % 4) as usize];
        let a = api
            .post_json(&format!("/api/games/{id}/moves"), Some(&tokens[seat]), &json!({"turn": turn, "move": text}))
            .await;
        if a.status != 200 {
            break;
        }
        turn += 1;
    }
    turn
}

async fn create_chess(api: &Api) -> (String, [String; 2]) {
    let created = api.post_json("/api/games", None, &json!({"variant": "chess", "seats": seats()})).await.ok(201);
    let token = |i: usize| created["tokens"][i]["token"].as_str().unwrap().to_owned();
    (created["game"]["id"].as_str().unwrap().to_owned(), [token(0), token(1)])
}

/// `fairsteward verify --url …/transcript` (the key fetched from the steward),
/// or with `--steward-key`; returns whether it passed, and its output.
fn verify(base: &str, id: &str, key: Option<&str>) -> (bool, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["verify", "--url", &format!("{base}/api/games/{id}/transcript")]);
    if let Some(k) = key {
        cmd.args(["--steward-key", k]);
    }
    let out = cmd.output().unwrap();
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_rotate_records_the_change_mails_players_and_verify_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let mut s = common::Steward::start(dir.path()).await;
    let api = s.api();
    let (open, tokens) = create_chess(&api).await;
    let next = shuffle(&api, &open, &tokens, 1, 3).await;
    assert_eq!(next, 4);
    let (done, done_tokens) = create_chess(&api).await;
    api.post_json(&format!("/api/games/{done}/resign"), Some(&done_tokens[0]), &json!({})).await.ok(200);
    let old: Value = api.get("/api/steward", None).await.ok(200);
    s.stop();

    let out = tokio::task::spawn_blocking({
        let data = data.clone();
        move || run(&["keys", "rotate", "--data-dir", &data])
    })
    .await
    .unwrap();
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["previous_fingerprint"], old["fingerprint"]);
    assert_ne!(report["fingerprint"], old["fingerprint"]);
    assert_eq!(report["games"], json!([open]), "only the open game: {report}");
    let retired: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".retired-"))
        .collect();
    assert_eq!(retired.len(), 3, "the old signing, sealing and OpenPGP keys are kept: {retired:?}");

    let mut s = common::Steward::start(dir.path()).await;
    let api = s.api();
    let base = format!("http://{}", s.addr);
    let new: Value = api.get("/api/steward", None).await.ok(200);
    assert_eq!(new["fingerprint"], report["fingerprint"], "the steward serves with the new keys");
    let transcript = api.get(&format!("/api/games/{open}/transcript"), None).await.text;
    let rotation: Value = transcript
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["kind"] == "key_rotated")
        .expect("a key_rotated entry");
    assert_eq!(rotation["body"]["fingerprint"], new["fingerprint"]);
    assert_eq!(rotation["body"]["signing_key"], new["signing_key"]);
    assert_eq!(rotation["body"]["sealing_key"], new["sealing_key"]);
    assert_eq!(rotation["body"]["previous_signing_key"], old["signing_key"]);
    assert!(rotation["signature"].is_string(), "signed, with the old key");
    assert!(
        !api.get(&format!("/api/games/{done}/transcript"), None).await.text.contains("key_rotated"),
        "a finished game is left as it ended"
    );

    // Play on: the next heads are signed with the new key.
    let next = shuffle(&api, &open, &tokens, next, 2).await;
    assert_eq!(next, 6);
    let (base2, open2) = (base.clone(), open.clone());
    let old_key = old["signing_key"].as_str().unwrap().to_owned();
    let (fetched, with_old, with_other) = tokio::task::spawn_blocking(move || {
        let other = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
        (verify(&base2, &open2, None), verify(&base2, &open2, Some(&old_key)), verify(&base2, &open2, Some(other)))
    })
    .await
    .unwrap();
    assert!(fetched.0, "verify with the new key (fetched) passes across the rotation: {}", fetched.1);
    assert!(with_old.0, "verify with the key the game began with passes too: {}", with_old.1);
    assert!(!with_other.0, "another key does not: {}", with_other.1);

    // Each player of the open game was mailed the new fingerprint, signed by the old key.
    let spool = dir.path().join("spool");
    let fingerprint = new["fingerprint"].as_str().unwrap().to_owned();
    let mails = common::eventually("the key mails in the spool", || {
        let found: Vec<common::Mail> = spool_files(&spool)
            .into_iter()
            .filter(|(name, _)| name.contains(".keys-"))
            .map(|(_, bytes)| common::parse_mail(&bytes))
            .collect();
        (found.len() == 2).then_some(found)
    })
    .await;
    let mut to: Vec<String> = mails.iter().map(|m| m.header("To").to_owned()).collect();
    to.sort();
    assert!(to[0].contains("alice@example.org") && to[1].contains("bob@example.org"), "{to:?}");
    for m in &mails {
        assert!(m.header("Subject").contains(&open), "{}", m.header("Subject"));
        let body = m.body.replace("\n", " ");
        assert!(body.contains(&format!("new fingerprint is {fingerprint}")), "{body}");
        assert!(body.contains(old["fingerprint"].as_str().unwrap()), "names the old one too: {body}");
    }
    s.stop();
}

/// Issue 36: `[backup]` takes sets on its schedule while moves are made, keeps
/// the newest `keep`, and the newest restores (as docs/operator.md, "Restoring:
/// the drill") into a steward with the same games, keys and transcripts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backups_run_by_themselves_keep_the_newest_and_restore_a_working_steward() {
    if common::backend::skip_on_postgres("[backup] takes SQLite's online backup of steward.db") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (data, backups, config) = (dir.path().join("data"), dir.path().join("sets"), dir.path().join("f.toml"));
    // Every second, two kept: three seconds in, the first set has been rotated away.
    std::fs::write(&config, format!("[backup]\nschedule = \"* * * * * *\"\ndir = {:?}\nkeep = 2\n", backups)).unwrap();
    let mut s = common::Steward::start_with(&data, &["--config".as_ref(), config.as_os_str()]).await;
    let api = s.api();
    let game = create_chess(&api).await;
    // The sets by name, which sorts them by time.
    let sets = || {
        let mut names: Vec<String> = std::fs::read_dir(&backups)
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.retain(|n| n.starts_with("fairsteward-"));
        names.sort();
        names
    };
    let first = common::eventually("a first backup set", || sets().first().cloned()).await;
    common::eventually_within(Duration::from_secs(30), "the first set rotated away", || {
        (!sets().contains(&first)).then_some(())
    })
    .await;
    let turn = shuffle(&api, &game.0, &game.1, 1, 2).await;
    // A set taken after these moves: the newest holds them.
    let before = sets();
    common::eventually_within(Duration::from_secs(30), "a set after the moves", || {
        let now = sets();
        (now.last() != before.last() && now.len() == 2).then_some(())
    })
    .await;
    let steward = api.get("/api/steward", None).await.ok(200);
    s.stop();
    let kept = sets();
    assert_eq!(kept.len(), 2, "keep = 2: {kept:?}");
    assert!(
        std::fs::read_dir(&backups).unwrap().flatten().all(|e| !e.file_name().to_string_lossy().ends_with(".partial"))
    );

    // The drill: the newest set's files into a new data directory, 0700.
    let newest = backups.join(kept.last().unwrap());
    let restored = dir.path().join("restored");
    std::fs::create_dir(&restored).unwrap();
    std::fs::set_permissions(&restored, std::fs::Permissions::from_mode(0o700)).unwrap();
    for entry in std::fs::read_dir(&newest).unwrap().flatten() {
        std::fs::copy(entry.path(), restored.join(entry.file_name())).unwrap();
    }
    let mut r = common::Steward::start(&restored).await;
    let api = r.api();
    assert_eq!(api.get("/api/steward", None).await.ok(200)["fingerprint"], steward["fingerprint"], "the same keys");
    let view = api.game(&game.0, None).await;
    assert_eq!(view["turn"], turn, "the moves before the set are in it: {view}");
    let base = format!("http://{}", r.addr);
    let id = game.0.clone();
    let (ok, out) = tokio::task::spawn_blocking(move || verify(&base, &id, None)).await.unwrap();
    assert!(ok, "the restored transcript verifies: {out}");
    assert_eq!(shuffle(&api, &game.0, &game.1, turn, 1).await, turn + 1, "and takes the next move");
    r.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_serving_restores_into_a_new_data_directory() {
    if common::backend::skip_on_postgres("`backup` is SQLite's online backup of steward.db, restored as the file") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut s = common::Steward::start(dir.path()).await;
    let api = s.api();
    let base = format!("http://{}", s.addr);
    let mut games = Vec::new();
    for _ in 0..3 {
        games.push(create_chess(&api).await);
    }
    // Moves keep coming while the backup runs.
    let playing = {
        let (api, games) = (api.clone(), games.clone());
        tokio::spawn(async move {
            let mut turns = vec![1u32; games.len()];
            for _ in 0..6 {
                for (g, (id, tokens)) in games.iter().enumerate() {
                    turns[g] = shuffle(&api, id, tokens, turns[g], 1).await;
                }
            }
            turns
        })
    };
    let backups = tempfile::tempdir().unwrap();
    let file = backups.path().join("steward-backup.db");
    let out = tokio::task::spawn_blocking({
        let (file, data) = (file.clone(), dir.path().to_owned());
        move || {
            std::thread::sleep(Duration::from_millis(100));
            run(&["backup", file.to_str().unwrap(), "--data-dir", data.to_str().unwrap()])
        }
    })
    .await
    .unwrap();
    let report: Value = serde_json::from_str(&out).unwrap();
    assert!(report["pages"].as_i64().unwrap() > 1, "{report}");
    assert_eq!(report["bytes"].as_u64().unwrap(), std::fs::metadata(&file).unwrap().len());
    let turns = playing.await.unwrap();
    assert!(turns.iter().all(|t| *t > 1), "the moves were accepted meanwhile: {turns:?}");
    // A second backup to the same file is refused, the first left as it was.
    let again = Command::new(BIN)
        .args(["backup", file.to_str().unwrap(), "--data-dir", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    s.stop();

    // Restore as docs/operator.md says: the keys, and the backup as the database.
    let restored = tempfile::tempdir().unwrap();
    for key in ["steward-signing.pem", "steward-sealing.pem", "steward-capability.pem", "steward-openpgp.asc"] {
        std::fs::copy(dir.path().join(key), restored.path().join(key)).unwrap();
    }
    std::fs::copy(&file, restored.path().join("steward.db")).unwrap();
    let mut r = common::Steward::start(restored.path()).await;
    let api = r.api();
    let rbase = format!("http://{}", r.addr);
    for (id, _) in &games {
        let game = api.get(&format!("/api/games/{id}"), None).await.ok(200);
        assert_eq!(game["id"], id.as_str());
    }
    let ids: Vec<String> = games.iter().map(|(id, _)| id.clone()).collect();
    let results =
        tokio::task::spawn_blocking(move || ids.iter().map(|id| verify(&rbase, id, None)).collect::<Vec<_>>())
            .await
            .unwrap();
    for (ok, out) in results {
        assert!(ok, "the restored transcript verifies: {out}");
    }
    // The restored store takes moves where its copy left off.
    let (id, tokens) = &games[0];
    let turn = api.get(&format!("/api/games/{id}"), None).await.ok(200)["turn"].as_u64().unwrap() as u32;
    assert_eq!(shuffle(&api, id, tokens, turn, 1).await, turn + 1);
    r.stop();
    drop(base);
}
