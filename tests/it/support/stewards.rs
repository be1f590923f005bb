//! Several stewards on one PostgreSQL store (issue 35): what the tests of
//! sharing and failover have in common.

use std::path::Path;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A chess opening, ply by ply: every game of these tests plays it.
pub const OPENING: [&str; 12] = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6", "O-O", "O-O"];

/// Copies the steward's keys and operator token from the data directory
/// `from` into `to`, as an operator adding a steward does (docs/postgresql.md).
pub fn copy_keys(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("steward-") || name == "operator-token" {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// Posts `text` as `token`'s move of `turn` to the stewards at `bases` in
/// turn, from the `first`, until one takes or refuses it: no answer (a
/// steward killed) or 503 (its database away) is asked again, the same move,
/// of the next steward, for at most `limit`.
pub async fn post_move(
    bases: &RwLock<Vec<String>>,
    first: usize,
    (game, token): (&str, &str),
    turn: u32,
    text: &str,
    limit: Duration,
) -> (u16, Value) {
    let client = super::client();
    let started = Instant::now();
    let mut i = first;
    loop {
        let base = {
            let bases = bases.read().unwrap();
            bases[i % bases.len()].clone()
        };
        let answer = client
            .post(format!("{base}/api/games/{game}/moves"))
            .bearer_auth(token)
            .json(&json!({"turn": turn, "move": text}))
            .send()
            .await;
        if let Ok(r) = answer {
            let status = r.status().as_u16();
            if status != 503 {
                return (status, r.json().await.unwrap_or(Value::Null));
            }
        }
        assert!(started.elapsed() < limit, "no steward took the move {text} of {game} within {limit:?}");
        i += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The moves of a game's record, in order, from its JSON view.
pub fn record(view: &Value) -> Vec<String> {
    view["history"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap().to_owned()))
        .collect()
}
