//! The desk pages: over plain HTTP (sign-in, the list and its filters, a
//! tool's confirmation step, CSRF, a director confined to its tournament,
//! creating a game) and in headless Chromium (an organiser signs in,
//! searches, adjudicates through the confirmation).

use crate::support::Server;
use crate::support::web::Browser;
use serde_json::{Value, json};

async fn create(s: &Server, variant: &str, names: &[&str]) -> String {
    let seats: Vec<Value> =
        names.iter().map(|n| json!({"name": n, "email": format!("{}@example.org", n.to_lowercase())})).collect();
    let v = s.post_json("/api/games", None, &json!({"variant": variant, "seats": seats})).await.ok(201);
    v["game"]["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_desk_over_http_signs_in_lists_confirms_and_guards_its_forms() {
    let s = Server::start().await;
    let a = create(&s, "chess", &["Alice", "Bob"]).await;
    let b = create(&s, "dreierschach", &["Carol", "Dave", "Erin"]).await;
    let mut op = Browser::new(&s);
    let page = op.get("/desk").await;
    assert!(page.status == 200 && page.text.contains("Operator or director token"), "{}", page.text);
    let wrong = op.post("/desk/sign-in", &[("token", "not-a-token")]).await;
    assert_eq!(wrong.status, 401, "{}", wrong.text);
    assert!(op.cookie.is_none());
    let from_elsewhere = op.post_from("/desk/sign-in", &[("token", &s.operator)], "http://evil.example").await;
    assert_eq!(from_elsewhere.status, 403);
    let signed = op.post("/desk/sign-in", &[("token", &s.operator)]).await;
    assert_eq!((signed.status, signed.location.as_deref()), (303, Some("/desk")));
    let cookie = signed.set_cookie.unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/desk"),
        "{cookie}"
    );
    assert!(!cookie.contains(&s.operator), "the cookie holds no token");
    let list = op.get("/desk").await;
    assert!(list.text.contains(&a) && list.text.contains(&b), "{}", list.text);
    let found = op.get("/desk?q=carol").await;
    assert!(found.text.contains(&b) && !found.text.contains(&format!(">{a}<")), "{}", found.text);
    let finished = op.get("/desk?status=finished").await;
    assert!(finished.text.contains("No games match these filters"), "{}", finished.text);
    // A tool asks first: the game is untouched until confirmed.
    let view = op.get(&format!("/desk/games/{a}")).await;
    assert!(view.text.contains("alice@example.org") && view.text.contains("Adjudicate"), "{}", view.text);
    let csrf = view.csrf();
    let ask = op.post(&format!("/desk/games/{a}/abort"), &[("csrf", &csrf), ("reason", "club closed")]).await;
    assert!(
        ask.status == 200 && ask.text.contains("Please confirm") && ask.text.contains("club closed"),
        "{}",
        ask.text
    );
    assert_eq!(s.game(&a, None).await["outcome"], Value::Null);
    let no_csrf = op.post(&format!("/desk/games/{a}/abort"), &[("confirm", "yes"), ("reason", "x")]).await;
    assert_eq!(no_csrf.status, 403, "{}", no_csrf.text);
    let done = op
        .post(&format!("/desk/games/{a}/abort"), &[("csrf", &csrf), ("confirm", "yes"), ("reason", "club closed")])
        .await;
    assert!(done.status == 200 && done.text.contains("aborted"), "{}", done.text);
    assert_eq!(s.game(&a, None).await["outcome"]["reason"], "aborted");
    // A new link from the desk: the token is shown once.
    let relinked =
        op.post(&format!("/desk/games/{b}/relink"), &[("csrf", &csrf), ("confirm", "yes"), ("seat", "brown")]).await;
    assert!(relinked.text.contains("dave@example.org") && relinked.text.contains("id=\"token\""), "{}", relinked.text);
    // Creating a game.
    let new = op.get("/desk/new").await;
    assert!(new.text.contains("Create a game"));
    let made = op
        .post(
            "/desk/new",
            &[
                ("csrf", &csrf),
                ("variant", "chess"),
                ("seats", "Fay <fay@example.org>\nGus <gus@example.org>"),
                ("options", ""),
            ],
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    assert!(made.text.contains("Fay") && made.text.contains("id=\"tokens\""), "{}", made.text);
    let bad = op.post("/desk/new", &[("csrf", &csrf), ("variant", "chess"), ("seats", "Fay")]).await;
    assert_eq!(bad.status, 400, "{}", bad.text);

    // A director sees and acts on its tournament's games only.
    let token = super::director(&s.config.data_dir, "TPAGES1", "Tess", &[&b]);
    let mut d = Browser::new(&s);
    assert_eq!(d.post("/desk/sign-in", &[("token", &token)]).await.status, 303);
    let list = d.get("/desk").await;
    assert!(list.text.contains(&b) && !list.text.contains(&a), "{}", list.text);
    assert!(list.text.contains("director Tess (tournament TPAGES1)"));
    let other = d.get(&format!("/desk/games/{a}")).await;
    assert_eq!(other.status, 403, "{}", other.text);
    assert!(other.text.contains("tournament TPAGES1 only"), "{}", other.text);
    assert_eq!(d.get("/desk/new").await.status, 403);
    let csrf = d.get(&format!("/desk/games/{b}")).await.csrf();
    let out = d.post("/desk/sign-out", &[("csrf", &csrf)]).await;
    assert_eq!(out.status, 303);
    assert!(d.cookie.is_none());
    assert!(d.get("/desk").await.text.contains("Operator or director token"));
    s.shut_down().await;
}

/// An organiser in Chromium: signs in, searches, opens a game, adjudicates it
/// through the confirmation; the public page shows it adjudicated.
#[tokio::test]
async fn an_organiser_adjudicates_at_the_desk_in_chromium() {
    let s = Server::start().await;
    let a = create(&s, "chess", &["Hanna", "Ivo"]).await;
    let b = create(&s, "vierschach", &["Jan", "Kim", "Lea", "Max"]).await;
    let browser = super::chromium_operator(&s).await;
    assert_eq!(browser.document_cookie().await, "", "the desk cookie is HttpOnly");
    browser.script("document.querySelector('#q').value = 'lea@';", json!([])).await;
    browser.click("#filter").await;
    let started = std::time::Instant::now();
    while !browser.url().await.contains("q=lea") {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "the search never went out");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    browser.wait_for_text("Lea").await;
    let text = browser.text().await;
    assert!(text.contains(&b) && !text.contains(&a), "{text}");
    browser.click(&format!("a[href='/desk/games/{b}']")).await;
    browser.wait_for_text("The director's tools").await;
    browser
        .script(
            "document.querySelector('#adj-result').value = 'south and north'; document.querySelector('#adj-reason').value = 'end date';",
            json!([]),
        )
        .await;
    browser.click("#adjudicate button").await;
    browser.wait_for_text("Please confirm").await;
    assert!(browser.text().await.contains("south and north"));
    browser.screenshot("desk-confirm").await;
    browser.click("#confirm").await;
    browser.wait_for_text("The game was adjudicated.").await;
    let v = s.game(&b, None).await;
    assert_eq!(
        (v["outcome"]["reason"].as_str(), v["outcome"]["winner"].as_str()),
        (Some("adjudicated"), Some("south and north"))
    );
    browser.open(&format!("{}/desk/games/{b}", s.base)).await;
    browser.wait_for_text("Over:").await;
    assert!(browser.text().await.contains("adjudicated"));
    s.shut_down().await;
}
