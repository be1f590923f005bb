//! `fairsteward migrate --to postgres://…` (issue 35), through the real binary:
//! a steward on SQLite plays games of several variants (moves, a pending
//! simultaneous move, a draw offer, mails still queued); `migrate` copies the
//! store to a fresh PostgreSQL store and checks it; a steward on PostgreSQL
//! then reads every game and transcript exactly as before and plays on.

use std::process::Command;

use serde_json::{Value, json};

use crate::support::{Steward, backend};

fn seats(n: usize) -> Value {
    Value::Array(
        (0..n).map(|i| json!({"name": format!("P{i}"), "email": format!("p{i}.migrate@example.org")})).collect(),
    )
}

/// A game's view without what depends on the moment it is read (when it was
/// read, the time used and left on a running clock); deadlines stay.
fn as_stored(mut view: Value) -> Value {
    if let Some(clock) = view.get_mut("clock").and_then(Value::as_object_mut) {
        clock.remove("as_of");
    }
    for seat in view["seats"].as_array_mut().into_iter().flatten() {
        if let Some(clock) = seat.get_mut("clock").and_then(Value::as_object_mut) {
            for moving in ["used", "used_seconds", "left", "left_seconds"] {
                clock.remove(moving);
            }
        }
    }
    view
}

/// `fairsteward migrate` on `dir` to `url`, never on the test's own backend choice.
fn migrate(dir: &std::path::Path, url: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(["migrate", "--data-dir"])
        .arg(dir)
        .args(["--to", url])
        .env_remove("FAIRSTEWARD_DATABASE")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_store_moves_to_postgresql_and_reads_the_same() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    // `--database ""` keeps this steward on SQLite whatever the run tests.
    let mut lite = Steward::start_with(&dir, &["--database".as_ref(), "".as_ref()]).await;
    let api = lite.api();
    let mut games = Vec::new();
    for (variant, n, moves, options) in [
        // A clock: its deadlines and time left must read the same after the copy.
        (
            "chess",
            2,
            vec![(0, 1, "e4"), (1, 2, "e5"), (0, 3, "Nf3")],
            json!({"clock": {"kind": "days_per_move", "days": 3}}),
        ),
        ("fairschach", 2, vec![(0, 1, "e4"), (1, 1, "d5"), (0, 2, "Nf3")], json!({})),
        ("vierschach", 4, vec![(0, 1, "e2-e4")], json!({})),
    ] {
        let body = json!({"variant": variant, "seats": seats(n), "options": options});
        let created = api.post_json("/api/games", None, &body).await.ok(201);
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let tokens: Vec<String> =
            created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
        for (seat, turn, text) in moves {
            let answer = api
                .post_json(&format!("/api/games/{id}/moves"), Some(&tokens[seat]), &json!({"turn": turn, "move": text}))
                .await;
            assert_eq!(answer.status, 200, "{variant} {text}: {}", answer.text);
        }
        games.push((id, tokens));
    }
    let (chess, chess_tokens) = games[0].clone();
    api.post_json(&format!("/api/games/{chess}/draw"), Some(&chess_tokens[1]), &json!({"action": "offer"}))
        .await
        .ok(200);
    // Leave declared by a player with a clock running: the account moves too.
    let leave = json!({"from": "2027-03-10", "to": "2027-03-12"});
    api.post_json("/api/leave", Some(&chess_tokens[0]), &leave).await.ok(201);
    let account = api.get("/api/leave", Some(&chess_tokens[0])).await.ok(200);
    assert!(account.to_string().contains("2027-03-10"), "{account}");
    let mut before = Vec::new();
    for (id, tokens) in &games {
        let public = as_stored(api.game(id, None).await);
        let seat = as_stored(api.game(id, Some(&tokens[0])).await);
        let transcript = api.get(&format!("/api/games/{id}/transcript"), None).await.text;
        before.push((public, seat, transcript));
    }
    lite.terminate(std::time::Duration::from_secs(20));

    // A password in the URL (the test server trusts its loopback clients and
    // ignores it) must show nowhere in what migrate prints.
    let url = backend::fresh_store_url(&format!("migrate_{}", std::process::id())).replacen(
        "://fairsteward@",
        "://fairsteward:secret-word@",
        1,
    );
    let out = migrate(&dir, &url);
    assert!(out.status.success(), "migrate failed: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("migrate printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(report["games"], 3, "{report}");
    assert_eq!(report["transcripts_verified"], 3, "{report}");
    let rows = |table: &str| {
        report["tables"].as_array().unwrap().iter().find(|t| t["table"] == table).map(|t| t["rows"].as_u64().unwrap())
    };
    assert_eq!(rows("games"), Some(3), "{report}");
    assert!(rows("moves").unwrap() >= 7 && rows("events").unwrap() > 7 && rows("outbox").unwrap() > 0, "{report}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("secret-word"), "no password in the report");
    assert!(report["to"].as_str().is_some_and(|to| to.contains(":***@")), "{report}");

    // A steward on PostgreSQL reads every game as before, and plays on.
    let pg = Steward::start_with(&dir, &["--database".as_ref(), url.as_ref()]).await;
    let api = pg.api();
    for ((id, tokens), (public, seat, transcript)) in games.iter().zip(&before) {
        assert_eq!(&as_stored(api.game(id, None).await), public, "{id} reads the same to a spectator");
        assert_eq!(&as_stored(api.game(id, Some(&tokens[0])).await), seat, "{id} reads the same to its first seat");
        assert_eq!(&api.get(&format!("/api/games/{id}/transcript"), None).await.text, transcript, "{id}'s transcript");
    }
    assert_eq!(
        api.get("/api/leave", Some(&chess_tokens[0])).await.ok(200),
        account,
        "the leave account reads the same"
    );
    let next = api
        .post_json(&format!("/api/games/{chess}/moves"), Some(&chess_tokens[1]), &json!({"turn": 4, "move": "Nc6"}))
        .await;
    assert_eq!(next.status, 200, "the game goes on: {}", next.text);
    let created = api.post_json("/api/games", None, &json!({"variant": "chess", "seats": seats(2)})).await;
    assert_eq!(created.status, 201, "a new game after the copy: {}", created.text);

    // A store that holds games is not written over.
    let again = migrate(&dir, &url);
    assert!(!again.status.success(), "a second migrate into the same store must refuse");
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("already holds") && said.contains("empty"), "{said}");
    assert!(!said.contains("secret-word"), "no password in the error: {said}");
}
