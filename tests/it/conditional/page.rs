//! Conditional lines on the game page: the signed-in seat's form shows its
//! own lines, and nobody else's page holds them.

use crate::support as common;

use common::Server;
use common::web::{Browser, sign_in_link};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_keeps_the_seats_lines_and_shows_them_to_it_alone() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let seats = json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]);
    let created = s.post_json("/api/games", None, &json!({"variant": "chess", "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let white = created["tokens"][0]["token"].as_str().unwrap().to_owned();

    let mut bob = Browser::new(&s);
    let page = bob.open_link(&sign_in_link(&spool, &id, "black").await).await;
    assert!(page.text.contains("id=\"conditional-form\""), "the form is on Black's page");
    let csrf = page.csrf();
    let path = format!("/games/{id}/conditional");
    let lines = "if e4 then e5 if Nf3 then Nc6\nif a3 then Ng8-h6";
    let sent = bob.post(&path, &[("csrf", &csrf), ("seat", "black"), ("lines", lines)]).await;
    assert_eq!(sent.status, 303, "{}", sent.text);
    let page = bob.get(sent.location.as_deref().unwrap()).await;
    assert!(page.text.contains("2 kept") && page.text.contains("if a3 then Nh6"), "Black's page lists its lines");

    // A line that cannot be played is refused with the step named; the lines kept stay.
    let bad = bob.post(&path, &[("csrf", &csrf), ("seat", "black"), ("lines", "if e4 then Ke7")]).await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    assert!(bad.text.contains("Line 1 step 1"), "{}", bad.text);

    // White's page and a spectator's hold nothing of them.
    let mut alice = Browser::new(&s);
    let page = alice.open_link(&sign_in_link(&spool, &id, "white").await).await;
    assert!(!page.text.contains("then Nh6") && !page.text.contains("Ng8-h6"), "White's page shows Black's line");
    let public = Browser::new(&s).get(&format!("/games/{id}")).await;
    assert_eq!(public.status, 200);
    assert!(!public.text.contains("then Nh6") && !public.text.contains("conditional-form"));

    // White's e4 fires Black's e5; dropping the rest from the page.
    s.mv(&id, &white, 1, "e4").await.ok(200);
    assert_eq!(s.game(&id, None).await["turn"], 3);
    let cleared = bob.post(&path, &[("csrf", &csrf), ("seat", "black"), ("clear", "1")]).await;
    assert_eq!(cleared.status, 303, "{}", cleared.text);
    let page = bob.get(cleared.location.as_deref().unwrap()).await;
    assert!(page.text.contains("0 kept") && !page.text.contains("Nc6</textarea>"), "cleared");
    s.shut_down().await;
}
