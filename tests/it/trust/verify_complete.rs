//! `verify`, complete (issue 11, point 6): the head printed in every board mail
//! pins the transcript's end (`--head`), so a transcript cut after a signed entry
//! or extended past the head fails; an `ended` entry must state the outcome of
//! the event that ends the game, even when the steward's key re-signs a forgery;
//! nothing follows the end; and every line `verify` prints is a check it made.
//!
//! Games are played on a real steward (HTTP over a loopback socket, spool mail);
//! forgeries are made as a steward that turned would make them: entries changed,
//! the chain rehashed and re-signed with the steward's own key from its data dir.

use crate::support as common;

use std::path::Path;

use common::transcript::{entries, kinds, resign_chain, steward_key, transcript, verify_cli};
use common::{Api, Server, eventually, parse_mail, spool_files};
use fairsteward::protocol::StewardKeys;
use fairsteward::protocol::verify::{verify, verify_head};
use serde_json::{Value, json};

struct Game {
    id: String,
    tokens: Vec<String>,
}

async fn create(api: &Api, variant: &str, options: Value) -> Game {
    let seats = json!([
        {"name": "Alice", "email": "alice@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
    ]);
    let created = api
        .post_json("/api/games", None, &json!({"variant": variant, "options": options, "seats": seats}))
        .await
        .ok(201);
    Game {
        id: created["game"]["id"].as_str().unwrap().to_owned(),
        tokens: (0..2).map(|i| created["tokens"][i]["token"].as_str().unwrap().to_owned()).collect(),
    }
}

async fn play(api: &Api, g: &Game, seat: usize, turn: u32, text: &str) {
    let a = api
        .post_json(&format!("/api/games/{}/moves", g.id), Some(&g.tokens[seat]), &json!({"turn": turn, "move": text}))
        .await;
    assert_eq!(a.status, 200, "{text}: {}", a.text);
}

/// The transcript's first `n` entries.
fn cut(t: &str, n: usize) -> String {
    t.lines().filter(|l| !l.trim().is_empty()).take(n).map(|l| format!("{l}\n")).collect()
}

/// The head (64 hex digits) printed in the newest spooled mail to `who` whose
/// file name holds `kind`, and the `--head` of its verify command.
fn mail_head(spool: &Path, game: &str, who: &str, kind: &str) -> Option<String> {
    let (_, bytes) = spool_files(spool)
        .into_iter()
        .filter(|(n, b)| n.starts_with(game) && n.contains(kind) && String::from_utf8_lossy(b).contains(who))
        .max_by_key(|(n, _)| n.split('.').nth(1).and_then(|t| t.parse::<u32>().ok()).unwrap_or(0))?;
    let text = parse_mail(&bytes).text("text/plain");
    let head = text.split("sha256 ").nth(1)?.get(..64)?.to_owned();
    let flag = text.split("--head ").nth(1)?.get(..64)?.to_owned();
    assert_eq!(head, flag, "the verify command names the head the mail states: {text}");
    Some(head)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_from_the_board_mail_pins_the_end_cut_and_extended_transcripts_fail() {
    let s = Server::start().await;
    let api = s.api();
    let g = create(&api, "chess", json!({})).await;
    let spool = s.config.spool_dir.clone();
    for (turn, (seat, m)) in [(0, "Nf3"), (1, "Nf6"), (0, "Ng1"), (1, "Ng8")].into_iter().enumerate() {
        play(&api, &g, seat, turn as u32 + 1, m).await;
    }
    let key = steward_key(&api).await;
    let t = transcript(&api, &g.id).await;
    let all = entries(&t);
    let last = all.last().unwrap()["hash"].as_str().unwrap().to_owned();
    // The newest board mail states the transcript's head.
    let head =
        eventually("the board mail of turn 5", || mail_head(&spool, &g.id, "alice@", ".turn").filter(|h| *h == last))
            .await;

    let whole = verify_head(&t, &key, Some(&head)).expect("the whole transcript holds to its head");
    assert!(whole.head_checked);
    assert_eq!(whole.head, head);
    // Without a head the same transcript holds, but completeness is not claimed.
    assert!(!verify(&t, &key).unwrap().head_checked);

    // Cut after an earlier signed entry: it still chains and is signed at its end,
    // so only the head shows what is missing.
    let k =
        all.iter().rposition(|e| e.get("signature").is_some() && e["seq"].as_u64() < Some(all.len() as u64)).unwrap()
            + 1;
    let short = cut(&t, k);
    verify(&short, &key).expect("a cut at a signed head chains and is signed: the hole --head closes");
    let f = verify_head(&short, &key, Some(&head)).expect_err("cut short");
    assert!(f.why.contains("cut short") && f.seq == k, "{f}");

    // Extended: the head of an older board mail names an earlier entry.
    let older = all[k - 1]["hash"].as_str().unwrap().to_owned();
    let f = verify_head(&t, &key, Some(&older)).expect_err("extended past the head");
    assert!(f.why.contains("extended") && f.seq == k, "{f}");

    // The CLI: exit 0 claiming completeness with --head, saying it did not check
    // without; exit 1 naming the entry for cut and extended; exit 2 for a bad head.
    let dir = tempfile::tempdir().unwrap();
    let out = verify_cli(dir.path(), &t, &key, Some(&format!("sha256 {}", head.to_uppercase())));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("complete: it ends at the head you gave, {head}")), "{stdout}");
    assert!(!stdout.contains("NOT checked"), "{stdout}");
    let out = verify_cli(dir.path(), &t, &key, None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains("NOT checked for completeness") && stdout.contains("--head"), "{stdout}");
    for (text, why) in [(short.as_str(), "cut short"), (t.as_str(), "extended")] {
        let h = if why == "cut short" { &head } else { &older };
        let out = verify_cli(dir.path(), text, &key, Some(h));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{why}: {stderr}");
        assert!(stderr.contains(why) && stderr.contains(&format!("entry {k}:")), "{why}: {stderr}");
    }
    let out = verify_cli(dir.path(), &t, &key, Some("abc"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Transcript head"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_is_checked_against_the_resignation_even_when_re_signed() {
    let s = Server::start().await;
    let api = s.api();
    let g = create(&api, "chess", json!({})).await;
    play(&api, &g, 0, 1, "e4").await;
    let a = api.post(&format!("/api/games/{}/resign", g.id), Some(&g.tokens[1]), "").await;
    assert_eq!(a.status, 200, "{}", a.text);
    let key = steward_key(&api).await;
    let keys = StewardKeys::load_or_create(&s.config.data_dir).unwrap();
    let t = transcript(&api, &g.id).await;
    assert_eq!(kinds(&t)[kinds(&t).len() - 2..], ["resigned", "ended"]);
    let summary = verify(&t, &key).expect("the real transcript holds");
    assert_eq!(summary.ended.as_deref(), Some("1-0 (resignation), after black's resignation"), "{summary:?}");

    // The re-signing itself is faithful: the unchanged entries, re-signed, hold.
    verify(&resign_chain(entries(&t), &keys), &key).expect("re-signed unchanged");

    let n = entries(&t).len();
    // The result turned round: black resigned, yet black is said to win.
    let mut forged = entries(&t);
    forged[n - 1]["body"]["result"] = json!("0-1");
    forged[n - 1]["body"]["winner"] = json!("black");
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("a contradicting ended");
    assert_eq!(f.seq, n, "{f}");
    assert!(f.why.contains("black's resignation gives 1-0"), "{f}");
    // Another reason for the same score.
    let mut forged = entries(&t);
    forged[n - 1]["body"]["reason"] = json!("checkmate");
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("another reason");
    assert!(f.seq == n && f.why.contains("resignation"), "{f}");

    // An ended entry with no cause: the resignation taken out.
    let mut forged = entries(&t);
    forged.remove(n - 2);
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("ended without a cause");
    assert!(f.seq == n - 1 && f.why.contains("no event before it that ends the game"), "{f}");

    // The resignation with its ended entry cut off.
    let f = verify(&resign_chain(entries(&t)[..n - 1].to_vec(), &keys), &key).expect_err("no ended");
    assert!(f.why.contains("no ended entry follows"), "{f}");

    // A game event after the end.
    let mut forged = entries(&t);
    let mut more = forged[n - 1].clone();
    more["kind"] = json!("draw_offered");
    more["body"] = json!({"seat": "white", "turn": 2});
    forged.push(more);
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("an event after the end");
    assert!(f.seq == n + 1 && f.why.contains("after the game ended"), "{f}");

    // And a move after the end, instead of ended: refused too.
    let mut forged = entries(&t);
    forged[n - 1]["kind"] = json!("moved");
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("no ended after the resignation");
    assert!(f.seq == n && f.why.contains("black's resignation ended the game"), "{f}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_by_checkmate_and_by_agreement_are_replayed() {
    let s = Server::start().await;
    let api = s.api();
    let key = steward_key(&api).await;
    let keys = StewardKeys::load_or_create(&s.config.data_dir).unwrap();

    // Fool's mate: the rules' own outcome.
    let g = create(&api, "chess", json!({})).await;
    for (turn, (seat, m)) in [(0, "f3"), (1, "e5"), (0, "g4"), (1, "Qh4#")].into_iter().enumerate() {
        play(&api, &g, seat, turn as u32 + 1, m).await;
    }
    let t = transcript(&api, &g.id).await;
    let s1 = verify(&t, &key).expect("a mate holds");
    assert_eq!(s1.ended.as_deref(), Some("0-1 (checkmate), after the rules' outcome of turn 4"));
    let n = entries(&t).len();
    let mut forged = entries(&t);
    forged[n - 1]["body"]["result"] = json!("1/2-1/2");
    forged[n - 1]["body"]["winner"] = Value::Null;
    forged[n - 1]["body"]["reason"] = json!("agreement");
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("a mate written as a draw");
    assert!(f.seq == n && f.why.contains("the rules' outcome of turn 4 gives 0-1 (checkmate)"), "{f}");

    // An agreed draw: both seats offer.
    let g = create(&api, "chess", json!({})).await;
    play(&api, &g, 0, 1, "e4").await;
    for seat in [0, 1] {
        let a = api.post(&format!("/api/games/{}/draw", g.id), Some(&g.tokens[seat]), "").await;
        assert_eq!(a.status, 200, "{}", a.text);
    }
    let t = transcript(&api, &g.id).await;
    let s2 = verify(&t, &key).expect("an agreed draw holds");
    assert_eq!(s2.ended.as_deref(), Some("1/2-1/2 (agreement), after the draw every seat agreed to"));
    // One offer taken out: no agreement, so the ended entry has no cause.
    let mut forged = entries(&t);
    let i = forged.iter().position(|e| e["kind"] == "draw_offered").unwrap();
    forged.remove(i);
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("a draw only one seat offered");
    assert!(f.why.contains("no event before it that ends the game"), "{f}");

    // The CLI names how the game ended.
    let dir = tempfile::tempdir().unwrap();
    let out = verify_cli(dir.path(), &t, &key, Some(&s2.head));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ended 1/2-1/2 (agreement)"), "{stdout}");
}
