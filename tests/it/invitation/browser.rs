//! The invitation page in headless Chromium: one invitee accepts with a
//! display name of their own, the other declines; the organiser's desk shows
//! both answers.

use mail_parser::MessageParser;
use serde_json::{Value, json};

use crate::support::webdriver::Chromium;
use crate::support::{Server, eventually, spool_files};

/// The invitation link mailed to `address` (waits for it).
async fn link_to(spool: &std::path::Path, address: &str) -> String {
    eventually(&format!("the invitation mail to {address}"), || {
        spool_files(spool)
            .into_iter()
            .filter(|(name, _)| name.starts_with("invite.") && !name.contains(".answer-"))
            .find_map(|(_, raw)| {
                let m = MessageParser::default().parse(&raw)?;
                let to = m.to()?.first()?.address()?.to_owned();
                if !to.eq_ignore_ascii_case(address) {
                    return None;
                }
                let body = m.body_text(0)?.into_owned();
                body.split_whitespace().find(|w| w.contains("/invitations/")).map(str::to_owned)
            })
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invitee_accepts_and_another_declines_in_chromium() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let body = json!({"variant": "chess", "invite": true, "seats": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]});
    let invited = s.post_json("/api/games", None, &body).await.ok(201);
    let id = invited["id"].as_str().unwrap().to_owned();
    let ann = link_to(&spool, "ann@example.org").await;
    let bob = link_to(&spool, "bob@example.org").await;
    let shots = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    let browser = Chromium::start(900, 900, &shots).await;

    browser.open(&ann).await;
    browser.wait_for_text("You, Ann (ann@example.org), are invited").await;
    browser.script("document.querySelector('#invitation-name').value = 'Ann the Bold';", json!([])).await;
    browser.click("#accept").await;
    browser.wait_for_text("You accepted the invitation").await;
    assert!(browser.text().await.contains("Ann the Bold"));
    browser.screenshot("invitation-accepted").await;

    browser.open(&bob).await;
    browser.wait_for_text("You, Bob (bob@example.org), are invited").await;
    assert!(browser.text().await.contains("Ann the Bold"), "the others are named as they accepted");
    browser.click("#decline").await;
    browser.wait_for_text("You declined the invitation").await;
    assert!(!browser.text().await.contains("Accept"), "a declined invitation takes no answer");

    let list: Value = s.get(&format!("/api/invited-games/{id}"), Some(&s.operator)).await.ok(200);
    let answers: Vec<(&str, &str)> = list["invitations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["name"].as_str().unwrap(), i["answer"].as_str().unwrap()))
        .collect();
    assert_eq!(answers, [("Ann the Bold", "accepted"), ("Bob", "declined")]);

    // The organiser's desk shows both answers on the invited game's page.
    browser.open(&format!("{}/desk", s.base)).await;
    browser.wait_for_text("Operator or director token").await;
    browser.script("document.querySelector('#token').value = arguments[0];", json!([s.operator])).await;
    browser.click("#desk-sign-in").await;
    browser.wait_for_text("Signed in as the operator").await;
    browser.open(&format!("{}/desk/invited/{id}", s.base)).await;
    browser.wait_for_text("Waiting for the players").await;
    let answers = browser
        .script(
            "return [...document.querySelectorAll('#invitations td.answer')].map(c => c.textContent.trim().split(' ')[0]);",
            json!([]),
        )
        .await;
    assert_eq!(answers, json!(["accepted", "declined"]));
    s.shut_down().await;
}
