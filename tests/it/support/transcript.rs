//! Transcripts in tests: their entries and kinds, `fairsteward verify` run as a
//! player runs it, and a chain re-signed with the steward's key (what a steward
//! that rewrote history could publish).

use std::path::Path;
use std::process::{Command, Output};

use fairsteward::protocol::StewardKeys;
use fairsteward::protocol::public_key_from_base64;
use fairsteward::protocol::transcript::{Entry, GENESIS, head_message};
use serde_json::{Value, json};

use super::Api;

/// The transcript's entries, as JSON.
pub fn entries(t: &str) -> Vec<Value> {
    t.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The kinds of the transcript's entries, in order.
pub fn kinds(t: &str) -> Vec<String> {
    entries(t).iter().map(|e| e["kind"].as_str().unwrap().to_owned()).collect()
}

/// Rebuilds the chain of `entries` from the first and signs the last entry and
/// every entry that was signed, with the steward's own key.
pub fn resign_chain(mut entries: Vec<Value>, keys: &StewardKeys) -> String {
    let mut prev = GENESIS.to_owned();
    let n = entries.len();
    for (i, e) in entries.iter_mut().enumerate() {
        let seq = i as u32 + 1;
        e["seq"] = json!(seq);
        e["prev"] = json!(prev);
        let body = e["body"].to_string();
        let (game, at, kind) = (
            e["game"].as_str().unwrap().to_owned(),
            e["at"].as_str().unwrap().to_owned(),
            e["kind"].as_str().unwrap().to_owned(),
        );
        let hash = Entry { game: &game, seq, at: &at, kind: &kind, prev: &prev, body: &body }.hash();
        e["hash"] = json!(hash);
        if e.get("signature").is_some() || i + 1 == n {
            let sig = keys.sign(&head_message(&game, seq, &hash));
            e["signature"] = json!(base64::Engine::encode(&base64::engine::general_purpose::STANDARD, sig));
        }
        prev = hash;
    }
    entries.iter().map(|e| format!("{e}\n")).collect()
}

/// Runs `fairsteward verify --transcript FILE --steward-key KEY [--head HEAD]`
/// on `transcript`, written to a new file in `dir`.
pub fn verify_cli(dir: &Path, transcript: &str, key: &[u8; 32], head: Option<&str>) -> Output {
    let file = dir.join(format!("t-{}.jsonl", fairsteward::protocol::random_nonce()));
    std::fs::write(&file, transcript).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fairsteward"));
    cmd.args(["verify", "--transcript"])
        .arg(&file)
        .args(["--steward-key", &base64::Engine::encode(&base64::engine::general_purpose::STANDARD, key)]);
    if let Some(h) = head {
        cmd.args(["--head", h]);
    }
    cmd.output().expect("run fairsteward verify")
}

/// Game `id`'s transcript (JSON lines), as `GET /api/games/{id}/transcript` serves it.
pub async fn transcript(s: &Api, id: &str) -> String {
    let t = s.get(&format!("/api/games/{id}/transcript"), None).await;
    assert_eq!(t.status, 200, "{}", t.text);
    t.text
}

/// The steward's public signing key, as `GET /api/steward` publishes it.
pub async fn steward_key(s: &Api) -> [u8; 32] {
    let info = s.get("/api/steward", None).await.ok(200);
    public_key_from_base64(info["signing_key"].as_str().unwrap()).unwrap()
}

/// Game `id`'s transcript checked as a player checks it — by the library's
/// verify and by `fairsteward verify` — which must both hold; returns the
/// command's output.
pub async fn verified(s: &Api, id: &str) -> String {
    let t = transcript(s, id).await;
    let key = steward_key(s).await;
    fairsteward::protocol::verify::verify(&t, &key).expect("the library's verify holds");
    let dir = tempfile::tempdir().unwrap();
    let out = verify_cli(dir.path(), &t, &key, None);
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "verify fails: {text}");
    text
}
