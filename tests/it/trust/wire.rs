//! Trust over the wire (docs/trust.md): the steward's keys, signed games, envelope
//! refusals, commit-reveal, sealed moves, the transcript and `fairsteward
//! verify` — and that a pending move is stored, spooled and logged nowhere in
//! clear before its turn resolves.
//!
//! Each test starts its own steward (`fairsteward::server::serve` on a loopback
//! port with its own temporary data directory) and talks to it as a player would;
//! envelopes are made with the library (`fairsteward::protocol`). The leak test
//! runs the real binary as a child process so that its log can be read.
//!
//! The moves are knight and rook moves on the g and h files, whose UCI form holds
//! a `g` or an `h` and so never appears in hex (hashes, tokens, receipts) and whose
//! SAN appears in no hint text (hints say Nf3 and g1f3). Checked with
//! `fairsteward rules fairschach play --moves "Nh3 Nh6 Rg1 Rg8 Ng5 Ng4"`: every
//! move is played.

use crate::support as common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::backend::is_store_place;
use common::leak::{assert_nowhere_in_clear, clear_in, decoded_body, files_under};
use common::transcript::verify_cli;
use common::{Api, Server, Steward, eventually, spool_files};
use fairsteward::protocol::verify::{Summary, verify};
use fairsteward::protocol::{
    Body, Envelope, MAX_ENVELOPE_BYTES, PlayerKey, SEALING_KEY_FILE, SIGNING_KEY_FILE, StewardKeys, commitment,
    fingerprint, public_key_from_base64, random_nonce, random_salt, seal,
};
use serde_json::{Value, json};

const FS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1";

/// Three Fairschach pairs, every move played: (white SAN, white UCI, black SAN, black UCI).
const PAIRS: [(&str, &str, &str, &str); 3] =
    [("Nh3", "g1h3", "Nh6", "g8h6"), ("Rg1", "h1g1", "Rg8", "h8g8"), ("Ng5", "h3g5", "Ng4", "h6g4")];

// ---------------------------------------------------------------------------
// Games on the steward of tests/it/support
// ---------------------------------------------------------------------------

/// A created game: its id, the seat tokens, and the seats' keys when registered.
struct Game {
    id: String,
    white: String,
    black: String,
    keys: Option<(PlayerKey, PlayerKey)>,
}

impl Game {
    fn white_key(&self) -> &PlayerKey {
        &self.keys.as_ref().expect("a game with registered keys").0
    }

    fn black_key(&self) -> &PlayerKey {
        &self.keys.as_ref().expect("a game with registered keys").1
    }

    fn token(&self, seat: &str) -> &str {
        if seat == "white" { &self.white } else { &self.black }
    }

    fn moves(&self) -> String {
        format!("/api/games/{}/moves", self.id)
    }
}

fn seats(keys: Option<(&PlayerKey, &PlayerKey)>) -> Value {
    let mut s = json!([
        {"name": "Alice", "email": "alice@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
    ]);
    if let Some((w, b)) = keys {
        s[0]["public_key"] = json!(w.public_key_base64());
        s[1]["public_key"] = json!(b.public_key_base64());
    }
    s
}

impl Api {
    async fn create(&self, variant: &str, options: Value, keys: Option<(PlayerKey, PlayerKey)>) -> Game {
        let seats = seats(keys.as_ref().map(|(w, b)| (w, b)));
        let created = self
            .post_json("/api/games", None, &json!({"variant": variant, "options": options, "seats": seats}))
            .await
            .ok(201);
        Game {
            id: created["game"]["id"].as_str().unwrap().to_owned(),
            white: created["tokens"][0]["token"].as_str().unwrap().to_owned(),
            black: created["tokens"][1]["token"].as_str().unwrap().to_owned(),
            keys,
        }
    }

    async fn transcript(&self, id: &str) -> String {
        common::transcript::transcript(self, id).await
    }

    /// The steward's signing key (GET /api/steward).
    async fn steward_key(&self) -> [u8; 32] {
        common::transcript::steward_key(self).await
    }

    /// Posts an envelope that must be accepted; returns the receipt.
    async fn accept_text(&self, g: &Game, token: Option<&str>, text: &str) -> Value {
        let a = self.post_text(&g.moves(), token, text).await;
        assert_eq!(a.status, 200, "envelope refused: {}\n{text}", a.text);
        a.json()
    }

    /// Posts JSON that must be accepted; returns the receipt.
    async fn accept_json(&self, g: &Game, token: &str, body: Value) -> Value {
        let a = self.post_json(&g.moves(), Some(token), &body).await;
        assert_eq!(a.status, 200, "{body} refused: {}", a.text);
        a.json()
    }

    /// What an accepted submission would change: the public view of the game (turn,
    /// moves in, history, commitments, signed head …) and the whole transcript.
    async fn snapshot(&self, g: &Game) -> (Value, String) {
        (self.game(&g.id, None).await, self.transcript(&g.id).await)
    }
}

// ---------------------------------------------------------------------------
// Envelopes
// ---------------------------------------------------------------------------

/// An envelope with a fresh nonce, signed with `key` when given, as text.
fn envelope(game: &str, seat: &str, turn: u32, body: Body, key: Option<&PlayerKey>) -> String {
    let mut e = Envelope::new(game, seat, turn, body).with_nonce(&random_nonce());
    if let Some(k) = key {
        e.sign(k);
    }
    e.to_text()
}

fn mv(text: &str) -> Body {
    Body::Move(text.to_owned())
}

/// A sealed reveal: the move sealed to the steward, with the salt of its commitment.
fn sealed_reveal(game: &str, seat: &str, turn: u32, text: &str, salt: &[u8], sealing_key: &[u8; 32]) -> String {
    let mut e = Envelope::new(game, seat, turn, Body::Sealed(seal(text, sealing_key, game, seat, turn)))
        .with_nonce(&random_nonce());
    e.salt = Some(salt.to_vec());
    e.to_text()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The steward's public keys as GET /api/steward gives them.
async fn steward_info(api: &Api) -> ([u8; 32], [u8; 32], String) {
    let info = api.get("/api/steward", None).await.ok(200);
    let signing =
        public_key_from_base64(info["signing_key"].as_str().expect("signing_key")).expect("32 bytes of base64");
    let sealing =
        public_key_from_base64(info["sealing_key"].as_str().expect("sealing_key")).expect("32 bytes of base64");
    let fp = info["fingerprint"].as_str().expect("fingerprint").to_owned();
    (signing, sealing, fp)
}

/// Creates a signed Fairschach game and plays `pairs` pairs of signed envelopes
/// without a token.
async fn signed_game(api: &Api, pairs: usize) -> Game {
    let g = api
        .create("fairschach", json!({"auth": "signature"}), Some((PlayerKey::generate(), PlayerKey::generate())))
        .await;
    for (i, (w, _, b, _)) in PAIRS.iter().take(pairs).enumerate() {
        let turn = i as u32 + 1;
        let r = api.accept_text(&g, None, &envelope(&g.id, "white", turn, mv(w), Some(g.white_key()))).await;
        assert_eq!(
            (r["kind"].as_str(), r["seat"].as_str(), r["resolved"].as_bool()),
            (Some("move"), Some("white"), Some(false)),
            "{r}"
        );
        let r = api.accept_text(&g, None, &envelope(&g.id, "black", turn, mv(b), Some(g.black_key()))).await;
        assert_eq!(
            (r["kind"].as_str(), r["seat"].as_str(), r["resolved"].as_bool()),
            (Some("move"), Some("black"), Some(true)),
            "{r}"
        );
    }
    g
}

/// A signed game after the first pair, with white's (signed) Rg1 in for turn 2.
async fn signed_game_white_moved(api: &Api) -> Game {
    let g = signed_game(api, 1).await;
    api.accept_text(&g, None, &envelope(&g.id, "white", 2, mv("Rg1"), Some(g.white_key()))).await;
    let v = api.game(&g.id, None).await;
    assert_eq!((v["turn"].as_u64(), &v["moved"]), (Some(2), &json!(["white"])));
    g
}

/// Black completes turn 2 and the resolution shows white's accepted Rg1: what was
/// accepted before a refusal still stands.
async fn finish_turn_2(api: &Api, g: &Game) {
    let r = api.accept_text(g, None, &envelope(&g.id, "black", 2, mv("Rg8"), Some(g.black_key()))).await;
    assert_eq!(r["resolved"], true, "{r}");
    let v = api.game(&g.id, None).await;
    assert_eq!(v["history"][1]["moves"][0]["move"], "Rg1", "{v}");
    assert_eq!(v["history"][1]["moves"][1]["move"], "Rg8", "{v}");
}

#[track_caller]
fn assert_unchanged(before: &(Value, String), after: &(Value, String)) {
    assert_eq!(before.0, after.0, "the game changed after a refusal");
    assert_eq!(before.1, after.1, "the transcript changed after a refusal");
}

fn lines(transcript: &str) -> Vec<&str> {
    transcript.lines().filter(|l| !l.trim().is_empty()).collect()
}

// ---------------------------------------------------------------------------
// 1. The steward's keys
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steward_keys_are_published_private_and_the_same_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start_in(dir.path()).await;
    let info = s.api().get("/api/steward", None).await.ok(200);
    for field in ["signing_key", "sealing_key", "fingerprint"] {
        assert!(info[field].is_string(), "{field} in {info}");
    }
    let (signing, sealing, fp) = steward_info(&s.api()).await;
    assert_ne!(signing, sealing);
    assert_eq!(fp, fingerprint(&signing, &sealing), "the fingerprint covers both public keys");
    assert_eq!(fp.len(), 39, "eight groups of four hex digits: {fp}");
    assert!(fp.split(' ').all(|g| g.len() == 4 && g.bytes().all(|b| b.is_ascii_hexdigit())), "{fp}");

    // The key files: mode 0600, PKCS#8 PEM, holding the published keys.
    for file in [SIGNING_KEY_FILE, SEALING_KEY_FILE] {
        let path = s.config.data_dir.join(file);
        let mode = std::fs::metadata(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{file} is private");
        assert!(std::fs::read_to_string(&path).unwrap().contains("-----BEGIN PRIVATE KEY-----"), "{file}");
    }
    let on_disk = StewardKeys::load_or_create(&s.config.data_dir).unwrap();
    assert_eq!((on_disk.signing_public(), on_disk.sealing_public()), (signing, sealing));

    // A game made before the restart.
    let g = s.api().create("fairschach", json!({}), None).await;
    s.shut_down().await;

    let s = Server::start_in(dir.path()).await;
    assert_eq!(steward_info(&s.api()).await, (signing, sealing, fp.clone()), "the same keys after a restart");
    for file in [SIGNING_KEY_FILE, SEALING_KEY_FILE] {
        let mode = std::fs::metadata(dir.path().join(file)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{file} is still private");
    }
    // The transcript signed before the restart verifies with the key published after it.
    let t = s.api().transcript(&g.id).await;
    let summary = verify(&t, &signing).unwrap_or_else(|f| panic!("{f}\n{t}"));
    assert_eq!((summary.entries, summary.steward_signatures), (1, 1));
    assert!(t.contains(&base64_of(&signing)), "the created entry names the steward key: {t}");
    // A move sealed to the published key still opens.
    let r = s
        .api()
        .accept_text(
            &g,
            Some(&g.white),
            &envelope(&g.id, "white", 1, Body::Sealed(seal("Nh3", &sealing, &g.id, "white", 1)), None),
        )
        .await;
    assert_eq!(r["move"], "Nh3", "{r}");
    s.shut_down().await;
}

fn base64_of(key: &[u8; 32]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(key)
}

// ---------------------------------------------------------------------------
// 2. Signed games, the transcript and `fairsteward verify`
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signed_game_takes_signed_envelopes_without_a_token_and_refuses_the_rest() {
    let s = Server::start().await;
    let api = s.api();

    // auth = signature needs a public key per seat.
    let mut no_black_key = seats(Some((&PlayerKey::generate(), &PlayerKey::generate())));
    no_black_key[1].as_object_mut().unwrap().remove("public_key");
    for seats in [seats(None), no_black_key] {
        let a = api
            .post_json(
                "/api/games",
                None,
                &json!({"variant": "fairschach", "options": {"auth": "signature"}, "seats": seats}),
            )
            .await;
        let m = a.error_longer_than(400, "bad_request", 40);
        assert!(m.contains("public_key") && m.contains("signature"), "{m}");
    }

    let g = api
        .create("fairschach", json!({"auth": "signature"}), Some((PlayerKey::generate(), PlayerKey::generate())))
        .await;
    let v = api.game(&g.id, None).await;
    assert_eq!(
        (v["auth"].as_str(), v["secrecy"].as_str(), v["phase"].as_str()),
        (Some("signature"), Some("hold"), Some("move"))
    );

    // A JSON move with the seat's token is not enough; nor is an unsigned envelope.
    let before = api.snapshot(&g).await;
    let m = api.post_json(&g.moves(), Some(&g.white), &json!({"turn": 1, "move": "Nh3"})).await.error_longer_than(
        403,
        "signature_required",
        40,
    );
    assert!(m.contains("signed"), "{m}");
    api.post_text(&g.moves(), Some(&g.white), &envelope(&g.id, "white", 1, mv("Nh3"), None)).await.error_longer_than(
        403,
        "signature_required",
        40,
    );
    assert_unchanged(&before, &api.snapshot(&g).await);

    // Signed envelopes without a token: three pairs.
    for (i, (w, _, b, _)) in PAIRS.iter().enumerate() {
        let turn = i as u32 + 1;
        let r = api.accept_text(&g, None, &envelope(&g.id, "white", turn, mv(w), Some(g.white_key()))).await;
        assert_eq!(r["kind"], "move");
        assert_eq!(r["seat"], "white");
        assert_eq!(r["turn"], turn);
        assert_eq!(r["move"], *w);
        assert_eq!(r["resolved"], false);
        let r = api.accept_text(&g, None, &envelope(&g.id, "black", turn, mv(b), Some(g.black_key()))).await;
        assert_eq!(r["resolved"], true, "{r}");
    }
    let v = api.game(&g.id, None).await;
    assert_eq!(v["turn"], 4);
    let played: Vec<(String, String)> = v["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (t["moves"][0]["move"].as_str().unwrap().to_owned(), t["moves"][1]["move"].as_str().unwrap().to_owned())
        })
        .collect();
    let expected: Vec<(String, String)> = PAIRS.iter().map(|(w, _, b, _)| ((*w).to_owned(), (*b).to_owned())).collect();
    assert_eq!(played, expected);
    assert_eq!(v["state"], "rnbqkbr1/pppppppp/8/6N1/6n1/8/PPPPPPPP/RNBQKBR1 s Qq - g4,g5 3 4");

    // The transcript holds: chain, steward and player signatures, three replayed turns.
    let key = api.steward_key().await;
    let t = api.transcript(&g.id).await;
    let summary: Summary = verify(&t, &key).unwrap_or_else(|f| panic!("{f}\n{t}"));
    assert_eq!(summary.game, g.id);
    assert_eq!(summary.turns, 3);
    assert_eq!(summary.player_signatures, 6, "each resolved move's signed envelope is checked");
    assert_eq!(summary.entries, lines(&t).len());
    assert!(summary.steward_signatures >= 4, "{summary:?}");
    assert_eq!((summary.commitments, summary.sealed), (0, 0));
    // The same with another steward's key fails at the first signed entry.
    let other = StewardKeys::load_or_create(tempfile::tempdir().unwrap().path()).unwrap();
    let f = verify(&t, &other.signing_public()).unwrap_err();
    assert_eq!(f.seq, 1, "{f}");
    assert!(f.why.contains("signature"), "{f}");
}

/// Whether a failure text names entry `k` (`entry 5 (moved): …` or `entry 5: …`).
fn names_entry(text: &str, k: usize) -> bool {
    text.contains(&format!("entry {k} (")) || text.contains(&format!("entry {k}:"))
}

/// Replaces the character at byte `at` of `line` (ASCII) by `to`.
fn replace_at(line: &str, at: usize, to: char) -> String {
    assert!(line.is_char_boundary(at) && line.is_char_boundary(at + 1));
    let old = line.as_bytes()[at] as char;
    assert_ne!(old, to, "a real change");
    format!("{}{to}{}", &line[..at], &line[at + 1..])
}

/// Another character of the same kind (hex digit, base64 letter): a one-byte change
/// that keeps the text readable.
fn other_char(c: char) -> char {
    if c == '0' {
        '1'
    } else if c.is_ascii_digit() || c.is_ascii_lowercase() {
        '0'
    } else if c == 'A' {
        'B'
    } else {
        'A'
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tampered_transcripts_fail_verify_naming_the_entry_in_library_and_cli() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game(&api, 3).await;
    let key = api.steward_key().await;
    let t = api.transcript(&g.id).await;
    let dir = tempfile::tempdir().unwrap();

    // The untouched transcript holds, for the CLI too.
    let out = verify_cli(dir.path(), &t, &key, None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stdout {stdout} stderr {}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains(&g.id) && stdout.contains("3 turns replayed") && stdout.contains("6 player signatures"),
        "{stdout}"
    );

    let ls = lines(&t);
    let entries: Vec<Value> = ls.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: Vec<&str> = entries.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["created", "moved", "moved", "resolved", "moved", "moved", "resolved", "moved", "moved", "resolved"]
    );
    let n = ls.len();
    let with = |k: usize, new_line: Option<String>| -> String {
        let mut out: Vec<String> = ls.iter().map(|l| (*l).to_owned()).collect();
        match new_line {
            Some(l) => out[k - 1] = l,
            None => {
                out.remove(k - 1);
            }
        }
        out.join("\n") + "\n"
    };
    let at = |k: usize, needle: &str| -> usize {
        ls[k - 1].find(needle).unwrap_or_else(|| panic!("{needle:?} in entry {k}: {}", ls[k - 1])) + needle.len()
    };
    let flip = |k: usize, pos: usize| -> Option<String> {
        let c = ls[k - 1].as_bytes()[pos] as char;
        Some(replace_at(ls[k - 1], pos, other_char(c)))
    };

    // (name, tampered transcript, the entry that must be named, what the reason says)
    let mut cases: Vec<(&str, String, usize, &str)> = Vec::new();
    // One character of a body: the receipt of entry 5 (moved).
    cases.push(("a receipt in a body", with(5, flip(5, at(5, "\"receipt\":\"r-"))), 5, "altered"));
    // One character of a body inside a resolution: the UCI of white's Rg1 (h1g1 -> h1g2).
    let uci = at(7, "\"uci\":\"h1g");
    cases.push(("a move in a resolution", with(7, Some(replace_at(ls[6], uci, '2'))), 7, "altered"));
    // One character of a stated hash.
    cases.push(("a hash", with(3, flip(3, at(3, "\"hash\":\"") + 10)), 3, "altered"));
    // One character of a prev: the chain breaks at that entry.
    cases.push(("a prev", with(9, flip(9, at(9, "\"prev\":\"") + 3)), 9, "prev"));
    // A deleted line.
    cases.push(("a deleted entry", with(6, None), 6, "seq"));
    // One character of a steward signature (the head of entry 4).
    assert!(entries[3].get("signature").is_some(), "the resolution of turn 1 is a signed head: {}", ls[3]);
    cases.push(("a signature", with(4, flip(4, at(4, "\"signature\":\"") + 5)), 4, "signature"));
    // The last entry cut off: the new last one (black's move) was never a signed head.
    assert!(entries[n - 2].get("signature").is_none(), "{}", ls[n - 2]);
    cases.push(("the last entry cut off", with(n, None), n - 1, "not signed"));

    for (what, text, k, why) in cases.iter() {
        assert_ne!(text, &t);
        let f = verify(text, &key).expect_err(what);
        assert_eq!(f.seq, *k, "{what}: {f}");
        assert!(names_entry(&f.to_string(), *k), "{what}: {f}");
        assert!(f.why.contains(why), "{what}: {f}");
        let out = verify_cli(dir.path(), text, &key, None);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: the CLI fails; stderr {stderr}");
        assert!(names_entry(&stderr, *k), "{what}: the CLI names entry {k}: {stderr}");
        assert!(out.stdout.is_empty(), "{what}: {}", String::from_utf8_lossy(&out.stdout));
    }
}

// ---------------------------------------------------------------------------
// 3. Refusals over HTTP: status, code, message, and nothing accepted changes
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_an_envelope_altered_after_signing_is_403_bad_signature() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game_white_moved(&api).await;
    let before = api.snapshot(&g).await;
    let signed = envelope(&g.id, "black", 2, mv("Rg8"), Some(g.black_key()));
    let altered = signed.replace("move: Rg8", "move: Na6");
    assert_ne!(altered, signed);
    let m = api.post_text(&g.moves(), None, &altered).await.error_longer_than(403, "bad_signature", 40);
    assert!(m.contains("does not verify") && m.contains("black"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_an_envelope_signed_with_the_other_seats_key_is_403_naming_that_seat() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game_white_moved(&api).await;
    let before = api.snapshot(&g).await;
    // Black's envelope signed by white (who has moved already and might want to move for black).
    let m = api
        .post_text(&g.moves(), None, &envelope(&g.id, "black", 2, mv("Na6"), Some(g.white_key())))
        .await
        .error_longer_than(403, "bad_signature", 40);
    assert!(m.contains("signed with the key of white"), "{m}");
    assert!(m.contains("black"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_an_envelope_for_another_game_is_422_envelope_mismatch() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game_white_moved(&api).await;
    // The same players in a second game, with the same keys registered.
    let keys = g.keys.as_ref().unwrap();
    let seats = json!([
        {"name": "Alice", "email": "alice@example.org", "public_key": keys.0.public_key_base64()},
        {"name": "Bob", "email": "bob@example.org", "public_key": keys.1.public_key_base64()},
    ]);
    let other = api
        .post_json(
            "/api/games",
            None,
            &json!({"variant": "fairschach", "options": {"auth": "signature"}, "seats": seats}),
        )
        .await
        .ok(201);
    let other_id = other["game"]["id"].as_str().unwrap().to_owned();
    let other_moves = format!("/api/games/{other_id}/moves");
    let before = (api.snapshot(&g).await, api.game(&other_id, None).await, api.transcript(&other_id).await);

    // Black's envelope for game g, sent to the other game (where turn 1 is owed).
    for turn in [1, 2] {
        let text = envelope(&g.id, "black", turn, mv("Rg8"), Some(g.black_key()));
        let m = api.post_text(&other_moves, None, &text).await.error_longer_than(422, "envelope_mismatch", 40);
        assert!(m.contains(&format!("for game {}", g.id)) && m.contains(&other_id), "{m}");
    }
    let after = (api.snapshot(&g).await, api.game(&other_id, None).await, api.transcript(&other_id).await);
    assert_unchanged(&before.0, &after.0);
    assert_eq!((before.1, before.2), (after.1, after.2), "the other game is unchanged");
    finish_turn_2(&api, &g).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_an_envelope_for_another_seat_than_the_token_is_422_envelope_mismatch() {
    let s = Server::start().await;
    let api = s.api();
    // A token game: white's token with an envelope for black.
    let g = api.create("fairschach", json!({}), None).await;
    api.accept_json(&g, &g.white, json!({"turn": 1, "move": "Nh3"})).await;
    let before = api.snapshot(&g).await;
    let m = api
        .post_text(&g.moves(), Some(&g.white), &envelope(&g.id, "black", 1, mv("Nh6"), None))
        .await
        .error_longer_than(422, "envelope_mismatch", 40);
    assert!(m.contains("the token is white's but the envelope is for black"), "{m}");
    // Without a token an unsigned envelope proves no seat at all.
    api.post_text(&g.moves(), None, &envelope(&g.id, "black", 1, mv("Nh6"), None)).await.error_longer_than(
        401,
        "bad_token",
        40,
    );
    // A seat the game does not have.
    let m = api
        .post_text(&g.moves(), Some(&g.black), &envelope(&g.id, "red", 1, mv("Nh6"), None))
        .await
        .error_longer_than(422, "envelope_mismatch", 40);
    assert!(m.contains("red") && m.contains("white, black"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    let r = api.accept_text(&g, Some(&g.black), &envelope(&g.id, "black", 1, mv("Nh6"), None)).await;
    assert_eq!(r["resolved"], true);
    assert_eq!(api.game(&g.id, None).await["history"][0]["moves"][0]["move"], "Nh3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_an_envelope_for_another_turn_is_409_wrong_turn() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game_white_moved(&api).await;
    let before = api.snapshot(&g).await;
    let m = api
        .post_text(&g.moves(), None, &envelope(&g.id, "black", 3, mv("Rg8"), Some(g.black_key())))
        .await
        .error_longer_than(409, "wrong_turn", 40);
    assert!(m.contains("turn 3") && m.contains("turn 2") && m.contains("\"turn\": 2"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;
}

/// A signed game after turn 1 (Nh3 / Nh6), with white's Rg1 in for turn 2; also
/// returns white's accepted envelope of turn 1 and its receipt.
async fn signed_game_with_turn_1_envelope(api: &Api) -> (Game, String, Value) {
    let g = api
        .create("fairschach", json!({"auth": "signature"}), Some((PlayerKey::generate(), PlayerKey::generate())))
        .await;
    let white_1 = envelope(&g.id, "white", 1, mv("Nh3"), Some(g.white_key()));
    let first = api.accept_text(&g, None, &white_1).await;
    api.accept_text(&g, None, &envelope(&g.id, "black", 1, mv("Nh6"), Some(g.black_key()))).await;
    api.accept_text(&g, None, &envelope(&g.id, "white", 2, mv("Rg1"), Some(g.white_key()))).await;
    (g, white_1, first)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_a_replayed_envelope_of_a_resolved_turn_is_409_replayed() {
    let s = Server::start().await;
    let api = s.api();
    let (g, _, first) = signed_game_with_turn_1_envelope(&api).await;
    let before = api.snapshot(&g).await;
    // The move of the resolved turn 1, signed again (a new nonce).
    let again = envelope(&g.id, "white", 1, mv("Nh3"), Some(g.white_key()));
    let m = api.post_text(&g.moves(), None, &again).await.error_longer_than(409, "replayed", 40);
    assert!(m.contains("turn 1") && m.contains(first["receipt"].as_str().unwrap()) && m.contains("resolved"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;

    // A commitment envelope for a resolved turn, holding the commitment accepted then.
    let (cg, ws, bs) = committed_game(&api, json!({"secrecy": "commit-reveal"})).await;
    let commit_1 = envelope(&cg.id, "white", 1, Body::Commit(commitment(&cg.id, "white", 1, "Nh3", &ws)), None);
    api.accept_json(&cg, &cg.white, json!({"turn": 1, "move": "Nh3", "salt": hex(&ws)})).await;
    api.accept_json(&cg, &cg.black, json!({"turn": 1, "move": "Nh6", "salt": hex(&bs)})).await;
    let before = api.snapshot(&cg).await;
    assert_eq!(before.0["turn"], 2);
    let m = api.post_text(&cg.moves(), Some(&cg.white), &commit_1).await.error_longer_than(409, "replayed", 40);
    assert!(m.contains("turn 1"), "{m}");
    assert_unchanged(&before, &api.snapshot(&cg).await);
}

/// The very envelope accepted for a resolved turn, sent again byte for byte (by
/// anyone who saw it): a replay, not a repeat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_the_very_envelope_of_a_resolved_turn_sent_again_is_409_replayed() {
    let s = Server::start().await;
    let api = s.api();
    let (g, white_1, _) = signed_game_with_turn_1_envelope(&api).await;
    let before = api.snapshot(&g).await;
    let m = api.post_text(&g.moves(), None, &white_1).await.error_longer_than(409, "replayed", 40);
    assert!(m.contains("turn 1"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_a_second_different_move_for_a_turn_is_409_already_moved() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game_white_moved(&api).await;
    let before = api.snapshot(&g).await;
    let m = api
        .post_text(&g.moves(), None, &envelope(&g.id, "white", 2, mv("Na3"), Some(g.white_key())))
        .await
        .error_longer_than(409, "already_moved", 40);
    assert!(m.contains("white already gave a move for turn 2"), "{m}");
    assert!(!m.contains("Rg1"), "the refusal does not tell the pending move: {m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    // The same move again (a repeat) is not a second move: the first receipt.
    let repeat = api.accept_text(&g, None, &envelope(&g.id, "white", 2, mv("h1g1"), Some(g.white_key()))).await;
    assert_eq!(repeat["move"], "Rg1");
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;
}

/// A commit-reveal game where both seats committed to Nh3 / Nh6 for turn 1.
async fn committed_game(api: &Api, options: Value) -> (Game, Vec<u8>, Vec<u8>) {
    let g = api.create("fairschach", options, None).await;
    let (ws, bs) = (random_salt(), random_salt());
    for (seat, text, salt) in [("white", "Nh3", &ws), ("black", "Nh6", &bs)] {
        let c = commitment(&g.id, seat, 1, text, salt);
        let r = api.accept_text(&g, Some(g.token(seat)), &envelope(&g.id, seat, 1, Body::Commit(c), None)).await;
        assert_eq!(r["kind"], "commit", "{r}");
    }
    assert_eq!(api.game(&g.id, None).await["phase"], "reveal");
    (g, ws, bs)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_a_reveal_that_does_not_match_its_commitment_is_422_reveal_mismatch() {
    let s = Server::start().await;
    let api = s.api();
    let (g, ws, bs) = committed_game(&api, json!({"secrecy": "commit-reveal"})).await;
    api.accept_text(
        &g,
        Some(&g.white),
        &envelope(&g.id, "white", 1, Body::Reveal { text: "Nh3".into(), salt: ws.clone() }, None),
    )
    .await;
    let before = api.snapshot(&g).await;
    // Another move with the right salt; the right move with another salt; both as
    // an envelope and as JSON.
    let mut other_salt = bs.clone();
    other_salt[0] ^= 1;
    for (text, salt) in [("Na6", &bs), ("Nh6", &other_salt)] {
        let e = envelope(&g.id, "black", 1, Body::Reveal { text: text.into(), salt: salt.clone() }, None);
        let m = api.post_text(&g.moves(), Some(&g.black), &e).await.error_longer_than(422, "reveal_mismatch", 40);
        assert!(m.contains("do not match your commitment"), "{m}");
        let body = json!({"turn": 1, "move": text, "salt": hex(salt)});
        api.post_json(&g.moves(), Some(&g.black), &body).await.error_longer_than(422, "reveal_mismatch", 40);
    }
    assert_unchanged(&before, &api.snapshot(&g).await);
    let r = api.accept_json(&g, &g.black, json!({"turn": 1, "move": "Nh6", "salt": hex(&bs)})).await;
    assert_eq!((r["kind"].as_str(), r["resolved"].as_bool()), (Some("reveal"), Some(true)), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_a_move_sealed_to_another_key_is_400_bad_envelope() {
    let s = Server::start().await;
    let api = s.api();
    let g = api.create("fairschach", json!({}), None).await;
    api.accept_json(&g, &g.white, json!({"turn": 1, "move": "Nh3"})).await;
    let before = api.snapshot(&g).await;
    let elsewhere = StewardKeys::load_or_create(tempfile::tempdir().unwrap().path()).unwrap().sealing_public();
    let (_, ours, _) = steward_info(&api).await;
    assert_ne!(elsewhere, ours);
    let text = envelope(&g.id, "black", 1, Body::Sealed(seal("Nh6", &elsewhere, &g.id, "black", 1)), None);
    let m = api.post_text(&g.moves(), Some(&g.black), &text).await.error_longer_than(400, "bad_envelope", 40);
    assert!(m.contains("sealed to another key"), "{m}");
    // Sealed to our key but for another turn: the binding fails the same way.
    let text = envelope(&g.id, "black", 1, Body::Sealed(seal("Nh6", &ours, &g.id, "black", 2)), None);
    let m = api.post_text(&g.moves(), Some(&g.black), &text).await.error_longer_than(400, "bad_envelope", 40);
    assert!(m.contains("sealed to another key"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    let r = api
        .accept_text(
            &g,
            Some(&g.black),
            &envelope(&g.id, "black", 1, Body::Sealed(seal("Nh6", &ours, &g.id, "black", 1)), None),
        )
        .await;
    assert_eq!(r["resolved"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_truncated_or_garbled_base64_is_400_bad_envelope() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game_white_moved(&api).await;
    let before = api.snapshot(&g).await;
    let signed = envelope(&g.id, "black", 2, mv("Rg8"), Some(g.black_key()));
    let sig_line = signed.lines().find(|l| l.starts_with("sig: ")).unwrap();
    // The sig line cut in the middle (a mail client's doing).
    let cut = signed.replace(sig_line, &sig_line[..sig_line.len() - 20]);
    let m = api.post_text(&g.moves(), None, &cut).await.error_longer_than(400, "bad_envelope", 40);
    assert!(m.contains("truncated or garbled base64") && m.contains("sig"), "{m}");
    // Characters base64 does not have.
    let garbled_value = sig_line["sig: ".len()..].replacen(|c: char| c.is_ascii_alphabetic(), "!", 3);
    let garbled = signed.replace(sig_line, &format!("sig: {garbled_value}"));
    assert!(garbled.contains('!'), "{garbled}");
    let m = api.post_text(&g.moves(), None, &garbled).await.error_longer_than(400, "bad_envelope", 40);
    assert!(m.contains("sig"), "{m}");
    // A sealed value cut short.
    let (_, sealing, _) = steward_info(&api).await;
    let sealed =
        envelope(&g.id, "black", 2, Body::Sealed(seal("Rg8", &sealing, &g.id, "black", 2)), Some(g.black_key()));
    let sealed_line = sealed.lines().find(|l| l.starts_with("sealed: ")).unwrap();
    let short = sealed.replace(sealed_line, &sealed_line[..sealed_line.len() - 8]);
    let m = api.post_text(&g.moves(), None, &short).await.error_longer_than(400, "bad_envelope", 40);
    assert!(m.contains("sealed"), "{m}");
    // The END line cut off.
    let unterminated = signed.replace("-----END FAIRSTEWARD MOVE-----\n", "");
    let m = api.post_text(&g.moves(), None, &unterminated).await.error_longer_than(400, "bad_envelope", 40);
    assert!(m.contains("cut off"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_an_unknown_field_is_400_bad_envelope_naming_it() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game_white_moved(&api).await;
    let before = api.snapshot(&g).await;
    let signed = envelope(&g.id, "black", 2, mv("Rg8"), Some(g.black_key()));
    let with_color = signed.replace("\nsig: ", "\ncolor: red\nsig: ");
    assert!(with_color.contains("color: red"));
    let m = api.post_text(&g.moves(), None, &with_color).await.error_longer_than(400, "bad_envelope", 40);
    assert!(m.contains("unknown field \"color\""), "{m}");
    assert!(m.contains("game, seat, turn, move"), "the message lists the fields: {m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_an_oversized_envelope_is_refused_with_400_or_413() {
    let s = Server::start().await;
    let api = s.api();
    let g = signed_game_white_moved(&api).await;
    let before = api.snapshot(&g).await;
    let signed = envelope(&g.id, "black", 2, mv("Rg8"), Some(g.black_key()));
    // Otherwise valid: padded inside the block with blank lines past the limit.
    let padding = "  \n".repeat(MAX_ENVELOPE_BYTES / 3 + 10);
    let big = signed.replacen("\n", &format!("\n{padding}"), 1);
    assert!(big.len() > MAX_ENVELOPE_BYTES);
    let a = api.post_text(&g.moves(), None, &big).await;
    match a.status {
        413 => {}
        _ => {
            let m = a.error_longer_than(400, "bad_envelope", 40);
            assert!(m.contains(&MAX_ENVELOPE_BYTES.to_string()), "{m}");
        }
    }
    // And a move text far past any move's length.
    let long = envelope(&g.id, "black", 2, mv(&"R".repeat(MAX_ENVELOPE_BYTES + 1)), Some(g.black_key()));
    let a = api.post_text(&g.moves(), None, &long).await;
    assert!(matches!(a.status, 400 | 413), "{} {}", a.status, a.text);
    if a.status == 400 {
        a.error_longer_than(400, "bad_envelope", 40);
    }
    assert_unchanged(&before, &api.snapshot(&g).await);
    finish_turn_2(&api, &g).await;
}

// ---------------------------------------------------------------------------
// 4. Commit-reveal
// ---------------------------------------------------------------------------

/// The spool files whose Message-ID asks turn `turn` for reveals.
fn reveal_mails(spool: &Path, game: &str, turn: u32) -> Vec<String> {
    spool_files(spool)
        .into_iter()
        .filter(|(name, bytes)| {
            name.starts_with(&format!("{game}.{turn}."))
                && String::from_utf8_lossy(bytes).lines().any(|l| {
                    l.to_ascii_lowercase().starts_with("message-id:")
                        && l.contains(&format!("<{game}.{turn}."))
                        && l.contains(".reveal@")
                })
        })
        .map(|(name, _)| name)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_reveal_game_commits_reveals_and_resolves() {
    let s = Server::start().await;
    let api = s.api();
    let spool = s.config.spool_dir.clone();
    let g = api.create("fairschach", json!({"secrecy": "commit-reveal"}), None).await;
    let v = api.game(&g.id, None).await;
    assert_eq!(
        (v["secrecy"].as_str(), v["auth"].as_str(), v["phase"].as_str()),
        (Some("commit-reveal"), Some("token"), Some("commit"))
    );

    // A plain move is refused: commit first.
    let before = api.snapshot(&g).await;
    let m = api.post_json(&g.moves(), Some(&g.white), &json!({"turn": 1, "move": "Nh3"})).await.error_longer_than(
        422,
        "commit_first",
        40,
    );
    assert!(m.contains("commit"), "{m}");
    api.post_text(&g.moves(), Some(&g.white), &envelope(&g.id, "white", 1, mv("Nh3"), None)).await.error_longer_than(
        422,
        "commit_first",
        40,
    );
    assert_unchanged(&before, &api.snapshot(&g).await);

    // White commits in JSON.
    let (ws, bs) = (random_salt(), random_salt());
    let wc = hex(&commitment(&g.id, "white", 1, "Nh3", &ws));
    let r = api.accept_json(&g, &g.white, json!({"turn": 1, "commit": wc})).await;
    assert_eq!(r["kind"], "commit");
    assert_eq!(r["seat"], "white");
    assert_eq!(r["commitment"], wc.as_str());
    assert_eq!(r["resolved"], false);
    assert!(r.get("move").is_none(), "{r}");
    // Everyone sees that white committed, when, and to which hash.
    for token in [None, Some(g.black.as_str()), Some(g.white.as_str())] {
        let v = api.game(&g.id, token).await;
        assert_eq!(v["phase"], "commit");
        assert_eq!(v["seats"][0]["commitment"], wc.as_str(), "{v}");
        assert_eq!(v["seats"][0]["committed_at"], r["received_at"], "{v}");
        assert!(v["seats"][1].get("commitment").is_none(), "{v}");
        assert!(v["seats"][1].get("committed_at").is_none(), "{v}");
    }
    // The same commitment again is a repeat; another one is a second move.
    let again = api.accept_json(&g, &g.white, json!({"turn": 1, "commit": wc})).await;
    assert_eq!(again["receipt"], r["receipt"]);
    let other = hex(&commitment(&g.id, "white", 1, "Na3", &ws));
    let before = api.snapshot(&g).await;
    api.post_json(&g.moves(), Some(&g.white), &json!({"turn": 1, "commit": other})).await.error_longer_than(
        409,
        "already_moved",
        40,
    );
    // White reveals before black has committed.
    let m = api
        .post_json(&g.moves(), Some(&g.white), &json!({"turn": 1, "move": "Nh3", "salt": hex(&ws)}))
        .await
        .error_longer_than(409, "reveal_too_early", 40);
    assert!(m.contains("black"), "{m}");
    assert_unchanged(&before, &api.snapshot(&g).await);
    assert!(reveal_mails(&spool, &g.id, 1).is_empty());

    // Black commits with an envelope: every seat is asked to reveal.
    let bc = commitment(&g.id, "black", 1, "Nh6", &bs);
    let r = api.accept_text(&g, Some(&g.black), &envelope(&g.id, "black", 1, Body::Commit(bc), None)).await;
    assert_eq!((r["kind"].as_str(), r["commitment"].as_str()), (Some("commit"), Some(hex(&bc).as_str())));
    let v = api.game(&g.id, None).await;
    assert_eq!(v["phase"], "reveal");
    assert_eq!(v["seats"][1]["commitment"], hex(&bc).as_str());
    let mails = eventually("the mails asking for reveals", || {
        let m = reveal_mails(&spool, &g.id, 1);
        (m.len() == 2).then_some(m)
    })
    .await;
    assert_eq!(
        mails,
        [format!("{}.1.0.reveal@steward.example.eml", g.id), format!("{}.1.1.reveal@steward.example.eml", g.id)]
    );

    // A reveal that does not match is refused; then both reveal: JSON and envelope.
    let before = api.snapshot(&g).await;
    api.post_json(&g.moves(), Some(&g.white), &json!({"turn": 1, "move": "Nh3", "salt": hex(&bs)}))
        .await
        .error_longer_than(422, "reveal_mismatch", 40);
    assert_unchanged(&before, &api.snapshot(&g).await);
    let r = api.accept_json(&g, &g.white, json!({"turn": 1, "move": "Nh3", "salt": hex(&ws)})).await;
    assert_eq!(
        (r["kind"].as_str(), r["move"].as_str(), r["resolved"].as_bool()),
        (Some("reveal"), Some("Nh3"), Some(false))
    );
    let v = api.game(&g.id, None).await;
    assert_eq!((v["turn"].as_u64(), &v["moved"], &v["history"]), (Some(1), &json!(["white"]), &json!([])));
    assert_eq!(v["state"], FS_START, "nothing is played before both reveals are in");
    let r = api
        .accept_text(
            &g,
            Some(&g.black),
            &envelope(&g.id, "black", 1, Body::Reveal { text: "Nh6".into(), salt: bs.clone() }, None),
        )
        .await;
    assert_eq!((r["kind"].as_str(), r["resolved"].as_bool()), (Some("reveal"), Some(true)));
    let v = api.game(&g.id, None).await;
    assert_eq!(v["turn"], 2);
    assert_eq!(v["phase"], "commit");
    assert_eq!(v["history"][0]["moves"][0]["move"], "Nh3");
    assert_eq!(v["history"][0]["moves"][1]["move"], "Nh6");
    assert_eq!(v["history"][0]["moves"][0]["status"], "played");
    assert!(v["seats"][0].get("commitment").is_none(), "a new turn has no commitments yet: {v}");

    // Turn 2, all in envelopes.
    let (ws, bs) = (random_salt(), random_salt());
    for (seat, text, salt) in [("white", "Rg1", &ws), ("black", "Rg8", &bs)] {
        let c = commitment(&g.id, seat, 2, text, salt);
        api.accept_text(&g, Some(g.token(seat)), &envelope(&g.id, seat, 2, Body::Commit(c), None)).await;
    }
    for (seat, text, salt) in [("white", "Rg1", &ws), ("black", "Rg8", &bs)] {
        api.accept_text(
            &g,
            Some(g.token(seat)),
            &envelope(&g.id, seat, 2, Body::Reveal { text: text.into(), salt: salt.clone() }, None),
        )
        .await;
    }
    let v = api.game(&g.id, None).await;
    assert_eq!(v["turn"], 3);
    assert_eq!(v["history"][1]["moves"][0]["move"], "Rg1");

    let t = api.transcript(&g.id).await;
    let summary = verify(&t, &api.steward_key().await).unwrap_or_else(|f| panic!("{f}\n{t}"));
    assert_eq!(summary.turns, 2);
    assert_eq!(summary.commitments, 2 * summary.turns);
    let kinds: Vec<String> = lines(&t)
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds.iter().filter(|k| *k == "committed").count(), 4);
    assert_eq!(kinds.iter().filter(|k| *k == "reveals_requested").count(), 2);
    assert_eq!(kinds.iter().filter(|k| *k == "revealed").count(), 4);
}

/// README: "each seat first sends a commitment (announced to all seats with its
/// time and hash)". The last seat to commit is announced to nobody by mail: its
/// commitment completes the set, and src/steward/moves.rs `accept_commit` then
/// queues only the `RevealNow` notice ("Every seat has committed …"), which names
/// neither that seat's commitment nor its time (the `Committed` notice is sent
/// only when `all` is false). The hash is in the game view and the transcript.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_reveal_every_commitment_is_mailed_to_every_seat_with_its_hash() {
    let s = Server::start().await;
    let api = s.api();
    let spool = s.config.spool_dir.clone();
    let (g, ws, bs) = committed_game(&api, json!({"secrecy": "commit-reveal"})).await;
    eventually("the mails asking for reveals", || (reveal_mails(&spool, &g.id, 1).len() == 2).then_some(())).await;
    let v = api.game(&g.id, None).await;
    for (i, (seat, text, salt)) in [("white", "Nh3", &ws), ("black", "Nh6", &bs)].into_iter().enumerate() {
        let c = hex(&commitment(&g.id, seat, 1, text, salt));
        let at = v["seats"][i]["committed_at"].as_str().unwrap().to_owned();
        for to in ["alice@example.org", "bob@example.org"] {
            let told = spool_files(&spool).values().any(|m| {
                let raw = String::from_utf8_lossy(m);
                let body = String::from_utf8_lossy(&decoded_body(m)).into_owned();
                raw.lines().any(|l| l.starts_with("To:") && l.contains(to)) && body.contains(&c) && body.contains(&at)
            });
            assert!(told, "{to} is told of {seat}'s commitment {c} at {at}");
        }
    }
}

// ---------------------------------------------------------------------------
// 5. Sealed moves
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sealed_moves_and_sealed_reveals_are_accepted() {
    let s = Server::start().await;
    let api = s.api();
    let (_, sealing, _) = steward_info(&api).await;
    let key = api.steward_key().await;

    // A game that holds moves: sealed envelopes with the seat tokens.
    let g = api.create("fairschach", json!({}), None).await;
    let r = api
        .accept_text(
            &g,
            Some(&g.white),
            &envelope(&g.id, "white", 1, Body::Sealed(seal("Nh3", &sealing, &g.id, "white", 1)), None),
        )
        .await;
    assert_eq!(
        (r["kind"].as_str(), r["move"].as_str(), r["resolved"].as_bool()),
        (Some("move"), Some("Nh3"), Some(false)),
        "{r}"
    );
    assert_eq!(api.game(&g.id, Some(&g.white)).await["seats"][0]["pending_move"], "Nh3");
    assert!(!api.get(&format!("/api/games/{}", g.id), None).await.text.contains("Nh3"));
    let r = api
        .accept_text(
            &g,
            Some(&g.black),
            &envelope(&g.id, "black", 1, Body::Sealed(seal("g8h6", &sealing, &g.id, "black", 1)), None),
        )
        .await;
    assert_eq!((r["move"].as_str(), r["resolved"].as_bool()), (Some("Nh6"), Some(true)), "{r}");
    let v = api.game(&g.id, None).await;
    assert_eq!(
        (&v["history"][0]["moves"][0]["move"], &v["history"][0]["moves"][1]["move"]),
        (&json!("Nh3"), &json!("Nh6"))
    );
    let t = api.transcript(&g.id).await;
    let summary = verify(&t, &key).unwrap_or_else(|f| panic!("{f}\n{t}"));
    assert_eq!((summary.turns, summary.sealed), (1, 2));

    // A commit-reveal game: sealed reveals (sealed + salt).
    let (cg, ws, bs) = committed_game(&api, json!({"secrecy": "commit-reveal"})).await;
    let r = api.accept_text(&cg, Some(&cg.white), &sealed_reveal(&cg.id, "white", 1, "Nh3", &ws, &sealing)).await;
    assert_eq!(
        (r["kind"].as_str(), r["move"].as_str(), r["resolved"].as_bool()),
        (Some("reveal"), Some("Nh3"), Some(false)),
        "{r}"
    );
    // A sealed reveal whose move does not match is refused like any other.
    let wrong = sealed_reveal(&cg.id, "black", 1, "Na6", &bs, &sealing);
    api.post_text(&cg.moves(), Some(&cg.black), &wrong).await.error_longer_than(422, "reveal_mismatch", 40);
    let r = api.accept_text(&cg, Some(&cg.black), &sealed_reveal(&cg.id, "black", 1, "Nh6", &bs, &sealing)).await;
    assert_eq!((r["kind"].as_str(), r["resolved"].as_bool()), (Some("reveal"), Some(true)), "{r}");
    let v = api.game(&cg.id, None).await;
    assert_eq!(
        (&v["history"][0]["moves"][0]["move"], &v["history"][0]["moves"][1]["move"]),
        (&json!("Nh3"), &json!("Nh6"))
    );
    let t = api.transcript(&cg.id).await;
    let summary = verify(&t, &key).unwrap_or_else(|f| panic!("{f}\n{t}"));
    assert_eq!((summary.turns, summary.commitments, summary.sealed), (1, 2, 2));
    // The resolution publishes the salts, so anyone can check the commitments.
    assert!(t.contains(&hex(&ws)) && t.contains(&hex(&bs)), "{t}");
}

// ---------------------------------------------------------------------------
// 6. No leaks: a pending move is nowhere in clear before its turn resolves
// ---------------------------------------------------------------------------

/// The detector itself: clear forms are found, chance letters inside base64 are not.
#[test]
fn clear_in_finds_clear_forms_and_ignores_base64() {
    let found = |hay: &str| clear_in(hay.as_bytes(), "g1h3", "Nh3").is_some();
    // A row of the moves table as SQLite lays it out: receipt, entered, canonical, notation, time.
    assert!(found("\u{3}r-0123456789abcdef01234567Nh3g1h3Nh32026-11-23T10:00:00.000Z"));
    assert!(found("r-0123456789abcdef01234567Na6b8a6Na6g1h3"));
    assert!(found(r#"{"seat":"white","move":"Nh3"}"#));
    assert!(found("move: Nh3\n"));
    assert!(found("2026-11-23 INFO submission accepted move=Nh3 seat=white"));
    assert!(found("white: Nh3 (played)"));
    let sig = format!("sig: {}g1h3{}\n", "A".repeat(40), "B".repeat(40));
    assert!(!found(&sig), "inside an 88-character base64 value");
    assert!(!found("Nh3xyz notNh3"), "SAN without a delimiter");
    assert!(found("Ng1h3"), "sloppy SAN holds the UCI");
    assert!(found("Re: x\r\n\r\nNh3\r\n"), "a move line of a mail");
    assert!(!found("white moved at 2026-11-23T10:00:00.000Z (commitment 0123abcd)"));
}

/// Everything the steward keeps or writes: every file under the data directory
/// (raw bytes; the spool's mails also decoded), the PostgreSQL store when the
/// store is there, and the log so far.
fn stored_places(data_dir: &Path, log: &str) -> Vec<(String, Vec<u8>)> {
    let mut places = files_under(data_dir);
    places.extend(crate::support::backend::store_places(data_dir));
    assert!(
        places.iter().any(|(n, _)| n == "steward.db" || n == crate::support::backend::STORE_PLACE),
        "the database is where expected: {}",
        data_dir.display()
    );
    places.push(("the log".to_owned(), log.as_bytes().to_vec()));
    places
}

/// The child's log so far, every line ended.
fn text(log: &Steward) -> String {
    log.log() + "\n"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_leaks_a_sealed_commit_reveal_game_keeps_pending_moves_out_of_store_spool_and_log() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().to_owned();
    let spool: PathBuf = data_dir.join("spool");
    let mut log = Steward::start(&data_dir).await;
    let api = log.api();
    let (_, sealing, _) = steward_info(&api).await;
    let key = api.steward_key().await;
    let g = api.create("fairschach", json!({"secrecy": "commit-reveal"}), None).await;
    eventually("the start mails", || (spool_files(&spool).len() == 2).then_some(())).await;
    let mut accepted = 0;

    for (i, (w_san, w_uci, b_san, b_uci)) in PAIRS.iter().enumerate() {
        let turn = i as u32 + 1;
        let (ws, bs) = (random_salt(), random_salt());
        // Commitments (envelopes).
        for (seat, text, salt) in [("white", w_uci, &ws), ("black", b_san, &bs)] {
            let c = commitment(&g.id, seat, turn, text, salt);
            let r = api.accept_text(&g, Some(g.token(seat)), &envelope(&g.id, seat, turn, Body::Commit(c), None)).await;
            assert_eq!(r["kind"], "commit");
            accepted += 1;
        }
        eventually("the reveal mails and the log of the commitments", || {
            (reveal_mails(&spool, &g.id, turn).len() == 2 && log.count(" accepted game=") >= accepted).then_some(())
        })
        .await;
        let pending = [(*w_san, *w_uci), (*b_san, *b_uci)];
        assert_nowhere_in_clear(
            &format!("turn {turn} after both commitments"),
            &stored_places(&data_dir, &text(&log)),
            &pending,
        );

        // White's sealed reveal: accepted, and still nowhere in clear.
        let r = api.accept_text(&g, Some(&g.white), &sealed_reveal(&g.id, "white", turn, w_uci, &ws, &sealing)).await;
        assert_eq!((r["kind"].as_str(), r["resolved"].as_bool()), (Some("reveal"), Some(false)), "{r}");
        accepted += 1;
        // The views of the game, the transcript, and a refused different reveal.
        for token in [None, Some(g.black.as_str())] {
            let a = api.get(&format!("/api/games/{}", g.id), token).await;
            assert!(clear_in(a.text.as_bytes(), w_uci, w_san).is_none(), "the game as others see it: {}", a.text);
        }
        let t = api.transcript(&g.id).await;
        assert!(clear_in(t.as_bytes(), w_uci, w_san).is_none(), "the transcript: {t}");
        let wrong = sealed_reveal(&g.id, "white", turn, "a2a3", &ws, &sealing);
        api.post_text(&g.moves(), Some(&g.white), &wrong).await.error_longer_than(409, "already_moved", 40);
        eventually("the log of white's reveal", || (log.count(" accepted game=") >= accepted).then_some(())).await;
        assert_nowhere_in_clear(
            &format!("turn {turn} after white's reveal"),
            &stored_places(&data_dir, &text(&log)),
            &pending,
        );

        // Black's sealed reveal resolves the turn.
        let r = api.accept_text(&g, Some(&g.black), &sealed_reveal(&g.id, "black", turn, b_san, &bs, &sealing)).await;
        assert_eq!((r["kind"].as_str(), r["resolved"].as_bool()), (Some("reveal"), Some(true)), "{r}");
        accepted += 1;
        let v = api.game(&g.id, None).await;
        assert_eq!(v["history"][i]["moves"][0]["move"], *w_san, "{v}");
        assert_eq!(v["history"][i]["moves"][1]["move"], *b_san, "{v}");

        // Control: now the moves are public, and the same search finds them in the
        // store, the transcript and the board mails.
        let turn_mails = eventually("the board mails of the turn", || {
            let files = spool_files(&spool);
            let mails: Vec<Vec<u8>> = files
                .into_iter()
                .filter(|(n, _)| n.starts_with(&format!("{}.{turn}.", g.id)) && n.contains(".turn@"))
                .map(|(_, b)| b)
                .collect();
            (mails.len() == 2).then_some(mails)
        })
        .await;
        let places = stored_places(&data_dir, &text(&log));
        for (san, uci) in pending {
            let db: Vec<u8> = places.iter().filter(|(n, _)| is_store_place(n)).flat_map(|(_, b)| b.clone()).collect();
            assert!(clear_in(&db, uci, san).is_some(), "control: {san} ({uci}) is found in the database once resolved");
            assert!(
                clear_in(api.transcript(&g.id).await.as_bytes(), uci, san).is_some(),
                "control: {san} in the transcript"
            );
            assert!(
                turn_mails.iter().any(|m| clear_in(&decoded_body(m), uci, san).is_some()),
                "control: {san} in the board mails"
            );
        }
    }

    let t = api.transcript(&g.id).await;
    let summary = verify(&t, &key).unwrap_or_else(|f| panic!("{f}\n{t}"));
    assert_eq!((summary.turns, summary.commitments, summary.sealed), (3, 6, 6));

    log.stop();
    let full = text(&log);
    assert!(
        full.contains(" accepted game=") && full.contains(&g.id),
        "the log records the game's submissions:\n{full}"
    );
    assert!(!full.contains(&g.white) && !full.contains(&g.black), "seat tokens never reach the log");
}
