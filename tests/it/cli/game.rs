//! `fairsteward game new|show|list` driven through the real binary on a temporary
//! data directory: one JSON value on stdout, and for bad input one line on stderr
//! with exit status 2 (1 for failures that are not the caller's input).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn fairsteward(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(args)
        .envs(crate::support::backend::database_env_of_args(args))
        .env_remove("RUST_LOG")
        .output()
        .expect("the fairsteward binary runs")
}

/// Runs a command that must succeed with one line of JSON on stdout and nothing on
/// stderr; returns the JSON.
#[track_caller]
fn json_of(args: &[&str]) -> Value {
    let out = fairsteward(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "fairsteward {args:?} failed ({}): {stderr}", out.status);
    assert!(stderr.is_empty(), "fairsteward {args:?} wrote to stderr: {stderr}");
    assert_eq!(stdout.trim_end().lines().count(), 1, "one line of JSON: {stdout:?}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("fairsteward {args:?}: not JSON ({e}): {stdout}"))
}

/// Runs a command that must fail with `code`: nothing on stdout, one line on
/// stderr starting `fairsteward: ` and containing every phrase. Returns the line.
#[track_caller]
fn fails(code: i32, args: &[&str], phrases: &[&str]) -> String {
    let out = fairsteward(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(code), "fairsteward {args:?}: exit status {code} expected; stderr: {stderr}");
    assert!(stdout.is_empty(), "fairsteward {args:?}: nothing on stdout expected, got {stdout:?}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "fairsteward {args:?}: one line on stderr expected, got {stderr:?}");
    assert!(lines[0].starts_with("fairsteward: "), "{}", lines[0]);
    for phrase in phrases {
        assert!(lines[0].contains(phrase), "fairsteward {args:?}: {phrase:?} expected in {:?}", lines[0]);
    }
    lines[0].to_owned()
}

fn dir_arg(dir: &Path) -> String {
    dir.to_str().expect("a UTF-8 temporary path").to_owned()
}

/// Creates Alice v Bob in `dir` with `extra` arguments; returns the printed JSON.
fn new_game(dir: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "game",
        "new",
        "--data-dir",
        dir,
        "--variant",
        "fairschach",
        "--seat",
        "Alice <alice@example.org>",
        "--seat",
        "Bob <bob@example.org>",
    ];
    args.extend_from_slice(extra);
    json_of(&args)
}

fn count_games(dir: &str) -> usize {
    json_of(&["game", "list", "--json", "--data-dir", dir]).as_array().expect("list prints an array").len()
}

#[test]
fn game_new_prints_the_game_and_its_tokens_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = dir_arg(tmp.path());
    let created = new_game(&dir, &["--option", "pause=capturable"]);
    let game = &created["game"];
    let id = game["id"].as_str().unwrap();
    assert_eq!(id.len(), 6, "{created}");
    assert_eq!(game["variant"], "fairschach");
    assert_eq!(game["options"]["pause"], "capturable");
    assert_eq!(game["state"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1");
    assert_eq!(game["turn"], 1);
    assert_eq!(game["to_move"], serde_json::json!(["white", "black"]));
    let tokens = created["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    for (t, (seat, player)) in tokens.iter().zip([("white", "Alice"), ("black", "Bob")]) {
        assert_eq!((t["seat"].as_str(), t["player"].as_str()), (Some(seat), Some(player)), "{t}");
        let token = t["token"].as_str().unwrap();
        assert!(token.len() >= 32 && token.chars().all(|c| c.is_ascii_hexdigit()), "{token}");
    }
    assert_ne!(tokens[0]["token"], tokens[1]["token"]);
    // The tokens are shown only at creation: neither show nor list has them.
    let token = tokens[0]["token"].as_str().unwrap();
    let shown = json_of(&["game", "show", "--data-dir", &dir, id]).to_string();
    let listed = json_of(&["game", "list", "--json", "--data-dir", &dir]).to_string();
    assert!(!shown.contains(token) && !listed.contains(token));
}

#[test]
fn game_show_and_list_see_the_games() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = dir_arg(tmp.path());
    let first = new_game(&dir, &[]);
    std::thread::sleep(Duration::from_millis(5));
    let second = new_game(&dir, &["--option", "normal_below=6"]);
    let (a, b) = (first["game"]["id"].as_str().unwrap(), second["game"]["id"].as_str().unwrap());

    let shown = json_of(&["game", "show", "--data-dir", &dir, a]);
    assert_eq!(shown["id"], a);
    assert_eq!(shown["turn"], 1);
    assert_eq!(shown["history"], serde_json::json!([]));
    assert_eq!(shown["outcome"], Value::Null);
    let seats = shown["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 2);
    assert_eq!((seats[0]["player"].as_str(), seats[1]["player"].as_str()), (Some("Alice"), Some("Bob")));
    assert!(seats.iter().all(|s| s.get("pending_move").is_none()), "no token, no pending move: {shown}");
    // Ids are read case-insensitively, as players type them from mails.
    assert_eq!(json_of(&["game", "show", "--data-dir", &dir, &a.to_ascii_lowercase()])["id"], a);

    let list = json_of(&["game", "list", "--json", "--data-dir", &dir]);
    let games = list.as_array().unwrap();
    let ids: Vec<&str> = games.iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2, "{list}");
    assert!(ids.contains(&a) && ids.contains(&b), "{list}");
    let summary = games.iter().find(|g| g["id"] == b).unwrap();
    assert_eq!(summary["variant"], "fairschach");
    assert_eq!(summary["options"]["normal_below"], "6");
    assert_eq!(summary["players"][1], serde_json::json!({"seat": "black", "player": "Bob"}));
    assert_eq!(summary["to_move"], serde_json::json!(["white", "black"]));
}

#[test]
fn a_configuration_file_names_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let config = tmp.path().join("fairsteward.toml");
    let mut text = format!("data_dir = {:?}\n", data.to_str().unwrap());
    // On PostgreSQL the file names the store too (its schema for `data`).
    if let Some(url) = crate::support::backend::database_for(&data) {
        text.push_str(&format!("database = {url:?}\n"));
    }
    std::fs::write(&config, text).unwrap();
    let config = dir_arg(&config);
    let created =
        json_of(&["game", "new", "--config", &config, "--seat", "A <a@example.org>", "--seat", "B <b@example.org>"]);
    assert_eq!(created["game"]["variant"], "fairschach", "fairschach is the default variant");
    // SQLite's store is a file in the data directory the file names.
    assert!(crate::support::backend::on_postgres() || data.join("steward.db").is_file());
    assert_eq!(count_games(&dir_arg(&data)), 1);
    assert_eq!(json_of(&["game", "list", "--json", "--config", &config]).as_array().unwrap().len(), 1);
}

#[test]
fn an_unknown_game_is_exit_2_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = dir_arg(tmp.path());
    new_game(&dir, &[]);
    fails(2, &["game", "show", "--data-dir", &dir, "ZZZZZZ"], &["no game", "ZZZZZZ"]);
    fails(2, &["game", "show", "--data-dir", &dir, "not-an-id"], &["no game", "not-an-id"]);
}

#[test]
fn a_bad_seat_spec_is_exit_2_and_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = dir_arg(tmp.path());
    new_game(&dir, &[]);
    for bad in ["alice@example.org", "Alice alice@example.org", "<alice@example.org>", "Alice <no address>"] {
        fails(
            2,
            &["game", "new", "--data-dir", &dir, "--seat", bad, "--seat", "Bob <bob@example.org>"],
            &["seat", bad],
        );
    }
    fails(2, &["game", "new", "--data-dir", &dir, "--seat", "Alice <alice@example.org>"], &["2 seats", "1 given"]);
    fails(
        2,
        &[
            "game",
            "new",
            "--data-dir",
            &dir,
            "--seat",
            "A <a@example.org>",
            "--seat",
            "B <b@example.org>",
            "--option",
            "pause",
        ],
        &["KEY=VALUE"],
    );
    fails(
        2,
        &[
            "game",
            "new",
            "--data-dir",
            &dir,
            "--seat",
            "A <a@example.org>",
            "--seat",
            "B <b@example.org>",
            "--option",
            "pause=often",
        ],
        &["pause", "often"],
    );
    fails(
        2,
        &[
            "game",
            "new",
            "--data-dir",
            &dir,
            "--variant",
            "go",
            "--seat",
            "A <a@example.org>",
            "--seat",
            "B <b@example.org>",
        ],
        &["go"],
    );
    fails(2, &["game", "new", "--data-dir", &dir], &["--seat"]);
    assert_eq!(count_games(&dir), 1, "nothing was created by the refused commands");
}

#[test]
fn show_and_list_do_not_create_a_store() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nothing-here");
    let dir = dir_arg(&missing);
    assert_eq!(json_of(&["game", "list", "--json", "--data-dir", &dir]), serde_json::json!([]));
    fails(2, &["game", "show", "--data-dir", &dir, "8KQ2ZJ"], &["no game 8KQ2ZJ"]);
    assert!(!missing.exists(), "show and list must not create {}", missing.display());
}

#[test]
fn an_unreadable_configuration_is_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    let config = dir_arg(&tmp.path().join("absent.toml"));
    fails(1, &["game", "list", "--config", &config], &["configuration file"]);
}

#[test]
fn the_start_mails_go_out_when_serve_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = dir_arg(tmp.path());
    let id = new_game(&dir, &[])["game"]["id"].as_str().unwrap().to_owned();
    let spool = tmp.path().join("spool");
    assert!(!spool.exists(), "game new sends nothing itself");
    let mut serve = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(["serve", "--data-dir", &dir, "--listen", "127.0.0.1:0"])
        .envs(crate::support::backend::database_env(tmp.path()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let started = Instant::now();
    let mails = loop {
        let mails: Vec<String> = std::fs::read_dir(&spool)
            .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        let mails: Vec<String> = mails.into_iter().filter(|m| m.ends_with(".eml")).collect();
        if mails.len() >= 2 || started.elapsed() > Duration::from_secs(20) {
            break mails;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = serve.kill();
    let _ = serve.wait();
    let mut mails = mails;
    mails.sort();
    assert_eq!(mails.len(), 2, "{mails:?}");
    assert!(mails[0].starts_with(&format!("{id}.0.0.started@")), "{mails:?}");
    assert!(mails[1].starts_with(&format!("{id}.0.1.started@")), "{mails:?}");
}

/// Issue 29: `game new` refuses two seats showing one name, and names with
/// bidirectional controls or nothing visible, saying what to send instead.
#[test]
fn game_new_refuses_names_players_cannot_tell_apart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir_arg(dir.path());
    let args = |white: &str, black: &str| -> Vec<String> {
        ["game", "new", "--data-dir", &d, "--variant", "chess", "--seat", white, "--seat", black]
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    };
    let run = |white: &str, black: &str, phrases: &[&str]| {
        let a = args(white, black);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        fails(2, &a, phrases);
    };
    run("Alice <a@example.org>", "alice <b@example.org>", &["both show the name", "a name of its own"]);
    run("Alice <a@example.org>", "Bob\u{202E}gnp <b@example.org>", &["bidirectional control", "U+202E"]);
    run("\u{200B}\u{2060} <a@example.org>", "Bob <b@example.org>", &["shows nothing", "send a name"]);
}
