//! The steward's side of the OpenPGP tests (issue 33), shared by them: a game
//! made in the pipe steward's store with the seats' OpenPGP keys, a reply
//! ingested and its answer, where a sealed move could show, the history, the
//! transcript and `fairsteward verify` on it, and the steward's key from the
//! `Autocrypt:` header of its mail.

use serde_json::{Value, json};

use crate::support::leak::files_under;
use crate::support::pipe::{PipeSteward, header, new_answer};

/// The signed text of a move: the lines that bind it to game, seat and turn.
pub fn lines(game: &str, seat: &str, turn: u32, what: &str) -> String {
    format!("game: {game}\r\nseat: {seat}\r\nturn: {turn}\r\n{what}\r\n")
}

/// Creates a game in the steward's store with `options` and `seats` (name,
/// address, OpenPGP key, or "" for none); its id.
pub fn create_game(s: &PipeSteward, variant: &str, options: Value, seats: &[(&str, &str, &str)]) -> String {
    let seats: Vec<Value> = seats
        .iter()
        .map(|(n, e, k)| {
            if k.is_empty() { json!({"name": n, "email": e}) } else { json!({"name": n, "email": e, "openpgp_key": k}) }
        })
        .collect();
    let new: fairsteward::steward::NewGame =
        serde_json::from_value(json!({"variant": variant, "options": options, "seats": seats})).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    rt.block_on(async {
        let config = crate::support::in_process::config(&s.data);
        let steward = crate::support::in_process::open(&config);
        steward.create_game(new, chrono::Utc::now()).await.unwrap().game.id
    })
}

/// Ingests `mail`; asserts the outcome line and returns the new answer to `who`.
#[track_caller]
pub fn expect(s: &PipeSteward, mail: &str, outcome: &str, who: &str, seen: &mut Vec<String>) -> String {
    let (_, line) = s.ingest(mail);
    assert_eq!(line, outcome, "{mail}");
    let said = new_answer(seen, s.answers_to(who));
    seen.push(said.clone());
    said
}

/// Every place an outsider (or the operator) could look: the data directory's
/// files (the SQLite store, the spool, decoded mails), the PostgreSQL store
/// when the store is there, and the game as shown.
pub fn places(s: &PipeSteward, game: &str) -> Vec<(String, Vec<u8>)> {
    let mut places = files_under(&s.data);
    places.extend(crate::support::backend::store_places(&s.data));
    assert!(
        places.iter().any(|(n, _)| n == "steward.db" || n == crate::support::backend::STORE_PLACE),
        "the store is where expected"
    );
    places.push(("game show".to_owned(), s.game(game).to_string().into_bytes()));
    places
}

/// The moves of each resolved turn.
pub fn history(s: &PipeSteward, game: &str) -> Vec<Vec<String>> {
    s.game(game)["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap_or("").to_owned()).collect())
        .collect()
}

/// The game's transcript, as `GET /api/games/{id}/transcript` writes it, and
/// the steward's signing key.
pub fn transcript(s: &PipeSteward, game: &str) -> (String, String) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    rt.block_on(async {
        let config = crate::support::in_process::config(&s.data);
        let steward = crate::support::in_process::open(&config);
        let events = steward.transcript(game.to_owned(), None).await.unwrap();
        (crate::support::in_process::transcript(game, &events), steward.keys().signing_public_base64())
    })
}

/// `fairsteward verify` on a transcript with the steward's key.
pub fn verify(t: &(String, String)) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.jsonl");
    std::fs::write(&file, &t.0).unwrap();
    crate::support::pipe::fairsteward(&["verify", "--transcript", file.to_str().unwrap(), "--steward-key", &t.1], b"")
}

/// `verify` passes on the transcript.
#[track_caller]
pub fn assert_verifies(t: &(String, String)) {
    let ok = verify(t);
    assert!(ok.status.success(), "{}{}", String::from_utf8_lossy(&ok.stdout), String::from_utf8_lossy(&ok.stderr));
}

/// The steward's OpenPGP key from the `Autocrypt:` header of its mail, binary.
#[track_caller]
pub fn autocrypt_key(mail: &str) -> Vec<u8> {
    use base64::Engine as _;
    let value = header(mail, "Autocrypt");
    let keydata = value.split("keydata=").nth(1).expect("an Autocrypt header").split_whitespace().collect::<String>();
    base64::engine::general_purpose::STANDARD.decode(keydata).unwrap()
}
