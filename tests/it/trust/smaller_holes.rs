//! Issue 11, point 7 (but mail dedupe): in games with `auth = signature` a
//! resignation, draw offer, accept or decline and leave must come signed (an
//! `action:` envelope, by HTTP and by mail) and a token or a reply alone is
//! refused naming the command to run; a commitment that opens with an empty or
//! one-byte salt is refused at commit time; a repeat of a move whose turn is
//! resolved says so and points to the latest board mail.
//!
//! A real steward on a loopback port with a spool; mail goes in through the
//! `fairsteward ingest` binary on the same data directory; envelopes are made by
//! the `fairsteward player` binary, as a player would.

use crate::support as common;

use std::path::Path;

use common::pipe::fairsteward;
use common::transcript::{steward_key, transcript};
use common::{Api, Server, answer_containing, eventually, parse_mail, spool_files};
use fairsteward::protocol::verify::verify;
use fairsteward::protocol::{Body, Envelope, PlayerKey, commitment, random_salt};
use serde_json::{Value, json};

struct Game {
    id: String,
    tokens: Vec<String>,
    keys: Vec<String>,
}

/// A chess game between Alice and Bob; with `signed`, auth = signature and a
/// key file per seat made by `player keygen` in `dir`.
async fn create(api: &Api, dir: &Path, signed: bool, options: Value) -> Game {
    let mut seats = json!([
        {"name": "Alice", "email": "alice@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
    ]);
    let mut options = options;
    let mut keys = Vec::new();
    if signed {
        options["auth"] = json!("signature");
        for (i, name) in ["white", "black"].iter().enumerate() {
            let path = dir.join(format!("{name}-{}.key", fairsteward::protocol::random_nonce()));
            let out = fairsteward(&["player", "keygen", "--out", path.to_str().unwrap()], b"");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            seats[i]["public_key"] = json!(String::from_utf8(out.stdout).unwrap().trim());
            keys.push(path.to_str().unwrap().to_owned());
        }
    }
    let created = api
        .post_json("/api/games", None, &json!({"variant": "chess", "options": options, "seats": seats}))
        .await
        .ok(201);
    Game {
        id: created["game"]["id"].as_str().unwrap().to_owned(),
        tokens: (0..2).map(|i| created["tokens"][i]["token"].as_str().unwrap().to_owned()).collect(),
        keys,
    }
}

/// `fairsteward player sign --action ACTION` for seat 0 (white) or 1 (black).
fn sign_action(g: &Game, seat: usize, turn: u32, action: &str) -> String {
    let turn = turn.to_string();
    let name = ["white", "black"][seat];
    let out = fairsteward(
        &[
            "player",
            "sign",
            "--key",
            &g.keys[seat],
            "--game",
            &g.id,
            "--seat",
            name,
            "--turn",
            &turn,
            "--action",
            action,
        ],
        b"",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn last_kinds(t: &str, n: usize) -> Vec<String> {
    let v: Vec<String> = t
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_owned())
        .collect();
    v[v.len().saturating_sub(n)..].to_vec()
}

/// The refusal of a token-only action: 403 signature_required naming the exact
/// command and where to send what it prints.
#[track_caller]
fn assert_names_the_command(m: &str, g: &Game, seat: &str, action: &str, path: &str) {
    let command = format!("fairsteward player sign --key YOUR-KEY-FILE --game {} --seat {seat} --turn", g.id);
    assert!(m.contains(&command) && m.contains(&format!("--action '{action}")), "{m}");
    assert!(m.contains(path) && m.contains("requires signatures"), "{m}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_games_take_only_signed_resignations_and_draws_over_http() {
    let s = Server::start().await;
    let api = s.api();
    let dir = tempfile::tempdir().unwrap();
    let g = create(&api, dir.path(), true, json!({})).await;
    let resign = format!("/api/games/{}/resign", g.id);
    let draw = format!("/api/games/{}/draw", g.id);
    let before = transcript(&api, &g.id).await;

    // Token only: refused, saying what to send instead; nothing changes.
    let m = api.post(&resign, Some(&g.tokens[1]), "").await.error(403, "signature_required");
    assert_names_the_command(&m, &g, "black", "resign", &resign);
    for action in ["offer", "accept", "decline"] {
        let m =
            api.post_json(&draw, Some(&g.tokens[0]), &json!({"action": action})).await.error(403, "signature_required");
        assert_names_the_command(&m, &g, "white", "draw-", &draw);
    }
    assert_eq!(transcript(&api, &g.id).await, before);

    // Signed with the other seat's key, or altered, or for another turn: refused.
    let wrong = sign_action(&Game { keys: vec![g.keys[1].clone(), g.keys[0].clone()], ..clone(&g) }, 1, 1, "resign");
    api.post_text(&resign, None, &wrong).await.error(403, "bad_signature");
    let altered = sign_action(&g, 1, 1, "draw-offer").replace("action: draw-offer", "action: resign");
    api.post_text(&resign, None, &altered).await.error(403, "bad_signature");
    api.post_text(&resign, None, &sign_action(&g, 1, 7, "resign")).await.error(422, "envelope_mismatch");
    // A draw envelope sent to resign is not a resignation.
    let m = api.post_text(&resign, None, &sign_action(&g, 1, 1, "draw-offer")).await.error(400, "bad_request");
    assert!(m.contains(&draw), "{m}");
    assert_eq!(transcript(&api, &g.id).await, before);

    // Signed offer and decline, then offer and accept: a draw by agreement.
    for (seat, action) in [(0, "draw-offer"), (1, "draw-decline"), (0, "draw-offer"), (1, "draw-accept")] {
        let a = api.post_text(&draw, None, &sign_action(&g, seat, 1, action)).await;
        assert_eq!(a.status, 200, "{action}: {}", a.text);
    }
    let v = api.game(&g.id, None).await;
    assert_eq!(v["outcome"]["reason"], "agreement", "{v}");
    let t = transcript(&api, &g.id).await;
    let summary = verify(&t, &steward_key(&api).await).expect("the signed actions verify");
    assert_eq!(summary.player_signatures, 4, "every signed action is checked by verify: {summary:?}");
    assert!(summary.ended.as_deref().is_some_and(|e| e.contains("agreement")), "{summary:?}");

    // Resignation in another signed game, by `player submit`.
    let g2 = create(&api, dir.path(), true, json!({})).await;
    let file = dir.path().join("resign.txt");
    std::fs::write(&file, sign_action(&g2, 1, 1, "resign")).unwrap();
    let out = fairsteward(&["player", "submit", "--url", &s.base, "--file", file.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = api.game(&g2.id, None).await;
    assert_eq!(
        (v["outcome"]["result"].as_str(), v["outcome"]["reason"].as_str()),
        (Some("1-0"), Some("resignation")),
        "{v}"
    );
    let t = transcript(&api, &g2.id).await;
    assert_eq!(last_kinds(&t, 2), ["resigned", "ended"]);
    assert!(t.contains("action: resign"), "the transcript quotes the signed resignation");
    assert_eq!(verify(&t, &steward_key(&api).await).unwrap().player_signatures, 1);

    // A game without auth = signature still takes the token alone.
    let g3 = create(&api, dir.path(), false, json!({})).await;
    api.post(&format!("/api/games/{}/resign", g3.id), Some(&g3.tokens[0]), "").await.ok(200);
}

fn clone(g: &Game) -> Game {
    Game { id: g.id.clone(), tokens: g.tokens.clone(), keys: g.keys.clone() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leave_of_a_player_with_a_signature_game_must_be_signed() {
    let s = Server::start().await;
    let api = s.api();
    let dir = tempfile::tempdir().unwrap();
    let g = create(&api, dir.path(), true, json!({})).await;
    let body = json!({"from": "2027-03-01", "to": "2027-03-03"});
    let m = api.post_json("/api/leave", Some(&g.tokens[0]), &body).await.error(403, "signature_required");
    assert_names_the_command(&m, &g, "white", "leave 2027-03-01 2027-03-03", "/api/leave");
    let m =
        api.post_json(&format!("/api/seats/{}/leave", g.tokens[0]), None, &body).await.error(403, "signature_required");
    assert!(m.contains("requires signatures"), "{m}");
    // Signed by the other seat's key: refused.
    let forged = Envelope::parse(&sign_action(&g, 1, 1, "leave 2027-03-01 2027-03-03")).unwrap();
    let mut as_white = Envelope::new(&g.id, "white", 1, forged.body.clone()).with_nonce("0011223344556677");
    as_white.sign(&PlayerKey::load(Path::new(&g.keys[1])).unwrap());
    api.post_text("/api/leave", None, &as_white.to_text()).await.error(403, "bad_signature");
    // Signed: granted, and the game's transcript quotes the envelope.
    let a = api.post_text("/api/leave", None, &sign_action(&g, 0, 1, "leave 2027-03-01 2027-03-03")).await.ok(201);
    assert_eq!(a["player"], "alice@example.org", "{a}");
    let t = transcript(&api, &g.id).await;
    assert_eq!(last_kinds(&t, 1), ["leave"]);
    let summary = verify(&t, &steward_key(&api).await).expect("a signed leave verifies");
    assert_eq!(summary.player_signatures, 1);
}

// ---------------------------------------------------------------------------
// By mail: `fairsteward ingest` on the steward's data directory
// ---------------------------------------------------------------------------

fn ingest(data: &Path, mail: &str) -> String {
    let out = fairsteward(&["ingest", "--data-dir", data.to_str().unwrap()], mail.as_bytes());
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn mail(from: &str, to: &str, id: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: Game board\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

/// The newest spooled mail to `who` whose file name holds `kind`: (file name,
/// Reply-To address, text).
async fn newest(spool: &Path, game: &str, who: &str, kind: &str) -> (String, String, String) {
    eventually(&format!("a {kind} mail to {who}"), || {
        let (name, bytes) = spool_files(spool)
            .into_iter()
            .filter(|(n, b)| n.starts_with(game) && n.contains(kind) && String::from_utf8_lossy(b).contains(who))
            .max_by_key(|(n, _)| (n.split('.').nth(1).and_then(|t| t.parse::<u32>().ok()).unwrap_or(0), n.clone()))?;
        let m = parse_mail(&bytes);
        let reply_to = m.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("Reply-To")).map(|(_, v)| v.clone());
        let addr = reply_to.map(|r| r.rsplit_once('<').map_or(r.clone(), |(_, a)| a.trim_end_matches('>').to_owned()));
        Some((name, addr.unwrap_or_default(), m.text("text/plain")))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_mail_a_plain_resign_is_refused_and_a_pasted_signed_one_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let s = Server::start_in(&data).await;
    let api = s.api();
    let spool = s.config.spool_dir.clone();
    let g = create(&api, dir.path(), true, json!({})).await;
    let (_, bob, _) = newest(&spool, &g.id, "bob@", "started").await;
    assert!(bob.starts_with("moves+"), "{bob}");
    let before = transcript(&api, &g.id).await;

    // A plain "resign" reply and a plain "draw": refused, the answer names the command.
    for (id, body, action) in [
        ("r1", "I resign.", "resign"),
        ("r2", "draw", "draw-offer"),
        ("r3", "leave 2027-03-01 to 2027-03-03", "leave 2027-03-01 2027-03-03"),
    ] {
        assert_eq!(
            ingest(&data, &mail("Bob <bob@example.org>", &bob, id, body)),
            "refused: signature_required",
            "{body}"
        );
        let needle = format!("--action '{action}'");
        let answer = answer_containing(&spool, "bob@", &needle).await;
        assert!(answer.contains("Not accepted: ") && answer.contains("requires signatures"), "{answer}");
    }
    assert_eq!(transcript(&api, &g.id).await, before, "nothing was taken");

    // A signed resignation pasted into a mail from another address: the
    // signature is the authority.
    let env = sign_action(&g, 1, 1, "resign");
    let line = ingest(
        &data,
        &mail(
            "Bob at work <bob@work.example>",
            "steward@localhost",
            "r4",
            &format!("Here it is:\r\n\r\n{}", env.replace('\n', "\r\n")),
        ),
    );
    assert_eq!(line, "accepted: resignation");
    let v = api.game(&g.id, None).await;
    assert_eq!(v["outcome"]["reason"], "resignation", "{v}");
    let t = transcript(&api, &g.id).await;
    assert_eq!(verify(&t, &steward_key(&api).await).unwrap().player_signatures, 1);
}

// ---------------------------------------------------------------------------
// Commitments whose salt a reveal could never carry
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commitment_with_an_empty_or_one_byte_salt_is_refused_at_commit_time() {
    let s = Server::start().await;
    let api = s.api();
    let dir = tempfile::tempdir().unwrap();
    let g = create(&api, dir.path(), false, json!({"secrecy": "commit-reveal"})).await;
    let moves = format!("/api/games/{}/moves", g.id);
    let before = transcript(&api, &g.id).await;
    for (text, salt) in [("e4", vec![]), ("e2e4", vec![]), ("Nf3", vec![0x5a]), ("g1f3", vec![0xff])] {
        let c = commitment(&g.id, "white", 1, text, &salt);
        let hex: String = c.iter().map(|b| format!("{b:02x}")).collect();
        let m = api
            .post_json(&moves, Some(&g.tokens[0]), &json!({"turn": 1, "commit": hex}))
            .await
            .error(400, "bad_request");
        assert!(m.contains("empty or one-byte salt") && m.contains("fairsteward player commit"), "{m}");
        // As an envelope too.
        let e = Envelope::new(&g.id, "white", 1, Body::Commit(c)).with_nonce("0011223344556677").to_text();
        api.post_text(&moves, Some(&g.tokens[0]), &e).await.error(400, "bad_request");
    }
    assert_eq!(transcript(&api, &g.id).await, before, "nothing was taken");
    // What `player commit` makes (a 16-byte salt) is taken, and revealed.
    let salt = random_salt();
    let c: String = commitment(&g.id, "white", 1, "e4", &salt).iter().map(|b| format!("{b:02x}")).collect();
    let r = api.post_json(&moves, Some(&g.tokens[0]), &json!({"turn": 1, "commit": c})).await.ok(200);
    assert_eq!(r["kind"], "commit", "{r}");
}

// ---------------------------------------------------------------------------
// Repeats of a move whose turn is resolved
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeat_for_a_resolved_turn_says_so_and_points_to_the_latest_board_mail() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let s = Server::start_in(&data).await;
    let api = s.api();
    let spool = s.config.spool_dir.clone();
    let g = create(&api, dir.path(), false, json!({})).await;
    let moves = format!("/api/games/{}/moves", g.id);
    let (_, alice1, _) = newest(&spool, &g.id, "alice@", "started").await;
    assert_eq!(ingest(&data, &mail("Alice <alice@example.org>", &alice1, "m1", "e4")), "accepted: move");
    // A first submission has no such note.
    let r = api.post_json(&moves, Some(&g.tokens[1]), &json!({"turn": 2, "move": "e5"})).await.ok(200);
    assert!(r.get("already_resolved").is_none(), "{r}");

    // By HTTP: the same receipt, marked resolved, with the game's place now.
    let r = api.post_json(&moves, Some(&g.tokens[0]), &json!({"turn": 1, "move": "e4"})).await.ok(200);
    let a = &r["already_resolved"];
    assert_eq!(a["current_turn"], 3, "{r}");
    assert_eq!(a["game_url"], format!("{}/api/games/{}", s.base, g.id), "{r}");
    assert!(a["note"].as_str().unwrap().contains("Turn 1 was resolved already"), "{r}");
    // The board mail named is Alice's newest: the board after turn 2, asking for turn 3.
    let (id, subject) = (a["board_mail"][0].as_str().unwrap(), a["board_mail"][1].as_str().unwrap());
    assert!(subject.contains("your move 2."), "{r}");
    eventually("the board mail named, in the spool", || {
        spool_files(&spool).contains_key(&format!("{id}.eml")).then_some(())
    })
    .await;
    let turn_of = |n: &str| n.split('.').nth(1).and_then(|t| t.parse::<u32>().ok()).unwrap_or(0);
    let newest_board = spool_files(&spool)
        .into_iter()
        .filter(|(n, b)| n.contains(".turn") && String::from_utf8_lossy(b).contains("alice@"))
        .map(|(n, _)| n)
        .max_by_key(|n| turn_of(n))
        .unwrap();
    assert_eq!(newest_board, format!("{id}.eml"));

    // By mail: the same move again in a new mail.
    let answers = |spool: &Path| spool_files(spool).keys().filter(|n| n.contains("answer")).count();
    let n = answers(&spool);
    assert_eq!(ingest(&data, &mail("Alice <alice@example.org>", &alice1, "m2", "e4")), "accepted: move");
    eventually("the answer to the repeat", || (answers(&spool) > n).then_some(())).await;
    let (_, _, text) = newest(&spool, &g.id, "alice@", "answer").await;
    assert!(text.contains("Turn 1 was resolved already") && text.contains("Message-ID <"), "{text}");
    assert!(text.contains(&format!("/api/games/{}", g.id)), "{text}");
}
