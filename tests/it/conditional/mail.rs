//! Conditional lines by mail: `if … then …` replies to a board mail (through
//! `fairsteward ingest` on the steward's data directory), `conditional` and
//! `conditional clear`; the answer lists what is kept and goes to the seat only.

use crate::support as common;

use std::path::Path;

use common::pipe::fairsteward;
use common::transcript::verified;
use common::{Server, answer_containing, eventually, parse_mail, spool_files};
use serde_json::{Value, json};

fn ingest(data: &Path, mail: &str) -> String {
    let out = fairsteward(&["ingest", "--data-dir", data.to_str().unwrap()], mail.as_bytes());
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn mail(from: &str, to: &str, id: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: Game board\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

/// The Reply-To address of the first mail to `who` of the game.
async fn reply_address(spool: &Path, game: &str, who: &str) -> String {
    eventually(&format!("a mail to {who}"), || {
        spool_files(spool)
            .into_iter()
            .filter(|(n, b)| n.starts_with(game) && String::from_utf8_lossy(b).contains(who))
            .find_map(|(_, b)| {
                let m = parse_mail(&b);
                let r = m.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("Reply-To")).map(|(_, v)| v.clone())?;
                Some(r.rsplit_once('<').map_or(r.clone(), |(_, a)| a.trim_end_matches('>').to_owned()))
            })
    })
    .await
}

async fn create(s: &Server, variant: &str, players: &[&str]) -> (String, Vec<String>) {
    let seats: Vec<Value> =
        players.iter().map(|p| json!({"name": p, "email": format!("{}@example.org", p.to_lowercase())})).collect();
    let created = s.post_json("/api/games", None, &json!({"variant": variant, "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (id, tokens)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_lines_by_mail_are_kept_listed_fired_and_cleared() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let s = Server::start_in(&data).await;
    let spool = s.config.spool_dir.clone();
    let (id, tokens) = create(&s, "chess", &["Alice", "Bob"]).await;
    let bob = reply_address(&spool, &id, "bob@").await;
    let from = "Bob <bob@example.org>";

    let body = "Hi,\nif e4 then e5 if Nf3 then Nc6\nIF d4 then Nf6, if a3 then Ng8-h6\n\nBob";
    assert_eq!(ingest(&data, &mail(from, &bob, "c1", body)), "accepted: conditional");
    let answer = answer_containing(&spool, "bob@", "3 kept").await;
    assert!(answer.contains("if e4 then e5 if Nf3 then Nc6"), "{answer}");
    // Only Bob's answer holds the line; no mail to Alice does.
    for (name, bytes) in spool_files(&spool) {
        let text = String::from_utf8_lossy(&bytes);
        if !text.contains("bob@") {
            assert!(!text.contains("Ng8-h6"), "the line is in {name}");
        }
    }
    // A line whose reply is illegal is refused, naming the step; the lines kept stay.
    assert_eq!(ingest(&data, &mail(from, &bob, "c2", "if e4 then Ke7")), "refused: bad_conditional");
    let refused = answer_containing(&spool, "bob@", "line 1 step 1").await;
    assert!(refused.contains("Ke7") && refused.contains("if THEIR-MOVE then YOUR-MOVE"), "{refused}");

    let r = s.mv(&id, &tokens[0], 1, "e4").await.ok(200);
    assert_eq!(r["resolved"], true, "{r}");
    assert_eq!(s.game(&id, None).await["turn"], 3, "Black's e5 was played from the line");
    assert_eq!(ingest(&data, &mail(from, &bob, "c3", "conditional")), "accepted: conditional");
    let listed = answer_containing(&spool, "bob@", "1 kept").await;
    assert!(listed.contains("if Nf3 then Nc6"), "{listed}");
    assert_eq!(ingest(&data, &mail(from, &bob, "c4", "conditional clear")), "accepted: conditional");
    answer_containing(&spool, "bob@", "You keep no conditional lines").await;
    s.mv(&id, &tokens[0], 3, "Nf3").await.ok(200);
    assert_eq!(s.game(&id, None).await["turn"], 4, "nothing was played for Black after the clear");
    verified(&s.api(), &id).await;
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vierschach_lines_by_mail_name_the_seats() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let s = Server::start_in(&data).await;
    let spool = s.config.spool_dir.clone();
    let (id, tokens) = create(&s, "vierschach", &["Sam", "Wendy", "Nora", "Ed"]).await;
    s.mv(&id, &tokens[0], 1, "d2-d3").await.ok(200);
    let sam = reply_address(&spool, &id, "sam@").await;
    let body = "if west b6-c6, north e13-e12, east m7-l7 then k2-k3";
    assert_eq!(ingest(&data, &mail("Sam <sam@example.org>", &sam, "v1", body)), "accepted: conditional");
    answer_containing(&spool, "sam@", "if west b6-c6 and north e13-e12 and east m7-l7 then k2-k3").await;
    s.mv(&id, &tokens[1], 2, "b6-c6").await.ok(200);
    s.mv(&id, &tokens[2], 3, "e13-e12").await.ok(200);
    s.mv(&id, &tokens[3], 4, "m7-l7").await.ok(200);
    assert_eq!(s.game(&id, None).await["turn"], 6, "South's k2-k3 was played from the line");
    verified(&s.api(), &id).await;
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairschach_and_dreierschach_lines_by_mail_fire() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let s = Server::start_in(&data).await;
    let spool = s.config.spool_dir.clone();

    // Fairschach: White moved for turn 1; its line answers Black's move of that pair.
    let (id, tokens) = create(&s, "fairschach", &["Alice", "Bob"]).await;
    s.mv(&id, &tokens[0], 1, "e4").await.ok(200);
    let alice = reply_address(&spool, &id, "alice@").await;
    let from = "Alice <alice@example.org>";
    assert_eq!(ingest(&data, &mail(from, &alice, "f1", "if d5 then Nf3")), "accepted: conditional");
    s.mv(&id, &tokens[1], 1, "d5").await.ok(200);
    let v = s.game(&id, Some(&tokens[0])).await;
    assert_eq!(v["turn"], 2, "{v}");
    let mine = v["seats"][0]["moved_at"].clone();
    assert!(!mine.is_null(), "White's Nf3 is in for turn 2: {v}");
    verified(&s.api(), &id).await;

    // Dreierschach: Brown answers White's first move.
    let (id, tokens) = create(&s, "dreierschach", &["Wanda", "Bruno", "Karl"]).await;
    let bruno = reply_address(&spool, &id, "bruno@").await;
    let body = "if white a3-d4 then e1-e2";
    assert_eq!(ingest(&data, &mail("Bruno <bruno@example.org>", &bruno, "d1", body)), "accepted: conditional");
    s.mv(&id, &tokens[0], 1, "a3-d4").await.ok(200);
    assert_eq!(s.game(&id, None).await["turn"], 3, "Brown's e1-e2 was played from the line");
    verified(&s.api(), &id).await;
    s.shut_down().await;
}
