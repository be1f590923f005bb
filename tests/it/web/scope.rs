//! Issue 29, point 4: the scope of tokens and sessions, over HTTP on a real
//! socket. A seat token, a board mail's private link and the web session they
//! open act in their own game only, never in the same player's other games; a
//! finished game's token reads that game and declares no leave; `next=` stays
//! on this steward.

use crate::support as common;

use common::Server;
use common::web::{Browser, sign_in_link};
use serde_json::json;

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";

/// A game of `variant` between Alice (the first seat) and Bob: its id and the
/// seat tokens.
async fn create(server: &Server, variant: &str) -> (String, Vec<String>) {
    let seats = json!([{"name": "Alice", "email": ALICE}, {"name": "Bob", "email": BOB}]);
    let created =
        server.post_json("/api/games", None, &json!({"variant": variant, "options": {}, "seats": seats})).await.ok(201);
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (created["game"]["id"].as_str().unwrap().to_owned(), tokens)
}

fn spool(server: &Server) -> std::path::PathBuf {
    server.config.data_dir.join("spool")
}

/// A browser signed in on `/sign-in` with a seat token.
async fn signed_in_with_token(server: &Server, token: &str) -> Browser {
    let mut b = Browser::new(server);
    let p = b.post("/sign-in", &[("token", token), ("next", "/me")]).await;
    assert_eq!((p.status, p.location.as_deref()), (303, Some("/me")), "{}", p.text);
    assert!(b.cookie.is_some());
    b
}

/// Resigns `token`'s seat: the game is over.
async fn finish(server: &Server, id: &str, token: &str) {
    server.post(&format!("/api/games/{id}/resign"), Some(token), "").await.ok(200);
    assert!(!server.game(id, None).await["outcome"].is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_old_games_token_does_not_act_in_the_players_newer_game() {
    let server = Server::start().await;
    let (old, old_tokens) = create(&server, "chess").await;
    finish(&server, &old, &old_tokens[1]).await;
    let (new, _) = create(&server, "chess").await;

    // The API: the old token is no credential in the new game.
    server.mv(&new, &old_tokens[0], 1, "e4").await.error(401, "bad_token");
    server.post(&format!("/api/games/{new}/resign"), Some(&old_tokens[0]), "").await.error(401, "bad_token");

    // The pages: signed in with the old token, the new game is a spectator's.
    let mut b = signed_in_with_token(&server, &old_tokens[0]).await;
    let page = b.get(&format!("/games/{new}")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(!page.text.contains("You play white"), "the old token's session plays the new game: {}", page.text);
    assert!(page.text.contains("Playing in this game?"), "the page offers to sign in: {}", page.text);
    let own = b.get(&format!("/games/{old}")).await;
    assert!(own.text.contains("You play white"), "its own game: {}", own.text);
    let csrf = own.csrf();
    let p = b
        .post(&format!("/games/{new}/move"), &[("csrf", &csrf), ("seat", "white"), ("turn", "1"), ("move", "e4")])
        .await;
    assert_eq!(p.status, 401, "{}", p.text);
    assert!(p.text.contains("Please sign in"), "{}", p.text);
    let p = b.post(&format!("/games/{new}/resign"), &[("csrf", &csrf), ("seat", "white"), ("confirm", "yes")]).await;
    assert_eq!(p.status, 401, "{}", p.text);
    let v = server.game(&new, None).await;
    assert_eq!((v["turn"].as_u64(), v["outcome"].is_null()), (Some(1), true), "nothing happened in the new game: {v}");

    // The player's page lists the game signed in for, not the other.
    let me = b.get("/me").await.text;
    assert!(me.contains(&format!("/games/{old}\"")) && !me.contains(&new), "{me}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_for_one_game_does_not_see_another_games_pending_move() {
    let server = Server::start().await;
    let (a, _) = create(&server, "fairschach").await;
    let (b, b_tokens) = create(&server, "fairschach").await;
    // Alice's move in game B, pending until Bob moves (Nh3 appears nowhere else).
    server.mv(&b, &b_tokens[0], 1, "g1h3").await.ok(200);
    let link = sign_in_link(&spool(&server), &a, "white").await;
    let mut alice = Browser::new(&server);
    assert!(alice.open_link(&link).await.text.contains("You play white"));
    for path in [format!("/games/{b}"), format!("/games/{b}/record.json"), format!("/games/{b}/record.pgn")] {
        let p = alice.get(&path).await;
        assert_eq!(p.status, 200, "{path}: {}", p.text);
        assert!(!p.text.contains("Nh3") && !p.text.contains("g1h3"), "{path} shows game B's pending move: {}", p.text);
        assert!(!p.text.contains("You play white"), "{path}: {}", p.text);
    }

    // Signing in for game B too (the same player: no question) adds it.
    let link = sign_in_link(&spool(&server), &b, "white").await;
    let p = alice.open_link(&link).await;
    assert!(p.text.contains("Your move 1. is in: <strong>Nh3</strong>"), "{}", p.text);
    let p = alice.get(&format!("/games/{a}")).await;
    assert!(p.text.contains("You play white"), "game A stays signed in: {}", p.text);
    let me = alice.get("/me").await.text;
    assert!(me.contains(&format!("/games/{a}\"")) && me.contains(&format!("/games/{b}\"")), "{me}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_games_token_declares_no_leave() {
    let server = Server::start().await;
    let (old, old_tokens) = create(&server, "chess").await;
    finish(&server, &old, &old_tokens[1]).await;
    let (_new, new_tokens) = create(&server, "chess").await;
    let today = chrono::Utc::now().date_naive();
    let (from, to) = ((today + chrono::Days::new(10)).to_string(), (today + chrono::Days::new(12)).to_string());
    let leave = json!({"from": from, "to": to});

    let refused = server.post_json("/api/leave", Some(&old_tokens[0]), &leave).await;
    assert!(refused.error(409, "leave_refused").contains("over"), "{}", refused.text);
    server.get("/api/leave", Some(&old_tokens[0])).await.error(409, "leave_refused");
    let path = format!("/api/seats/{}/leave", old_tokens[0]);
    server.post_json(&path, None, &leave).await.error(409, "leave_refused");
    server.get(&path, None).await.error(409, "leave_refused");

    // The web: a session for the finished game alone declares none either.
    let mut b = signed_in_with_token(&server, &old_tokens[0]).await;
    let csrf = b.get("/me").await.csrf();
    let p = b.post("/leave", &[("csrf", &csrf), ("from", &from), ("to", &to)]).await;
    assert_eq!(p.status, 409, "{}", p.text);
    assert!(p.text.contains("finished games only"), "{}", p.text);
    let account = server.get("/api/leave", Some(&new_tokens[0])).await.ok(200);
    assert_eq!(account["leaves"], json!([]), "no leave was recorded: {account}");

    // A running game's token (and its session) still do.
    let mut b = signed_in_with_token(&server, &new_tokens[0]).await;
    let csrf = b.get("/me").await.csrf();
    let p = b.post("/leave", &[("csrf", &csrf), ("from", &from), ("to", &to)]).await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert!(p.text.contains("Your leave is recorded"), "{}", p.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn next_after_a_sign_in_stays_on_this_steward() {
    let server = Server::start().await;
    let (id, tokens) = create(&server, "chess").await;
    let game = format!("/games/{id}?seat=white");
    for (next, to) in [
        ("/%09/evil.example", "/"),
        ("/\t/evil.example", "/"),
        ("//evil.example", "/"),
        ("/\\evil.example", "/"),
        ("https://evil.example", "/"),
        (game.as_str(), game.as_str()),
    ] {
        let mut b = Browser::new(&server);
        let p = b.post("/sign-in", &[("token", &tokens[0]), ("next", next)]).await;
        assert_eq!((p.status, p.location.as_deref()), (303, Some(to)), "next={next:?}: {}", p.text);
        // The sign-in page puts only a same-site path into its form.
        let encoded: String = serde_urlencoded::to_string([("next", next)]).unwrap();
        let form = Browser::new(&server).get(&format!("/sign-in?{encoded}")).await.text;
        let want = to.replace('&', "&amp;").replace('/', "&#x2f;");
        assert!(form.contains(&format!("name=\"next\" value=\"{want}\"")), "next={next:?}: {form}");
    }
}

/// The key of a calendar address as the creation answer hands it out.
fn calendar_key(url: &str) -> String {
    let key = url.split("/api/calendar/").nth(1).and_then(|k| k.strip_suffix("/deadlines.ics"));
    key.unwrap_or_else(|| panic!("a calendar address: {url}")).to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calendar_key_reads_the_feed_and_acts_nowhere() {
    let server = Server::start().await;
    let seats = json!([{"name": "Alice", "email": ALICE}, {"name": "Bob", "email": BOB}]);
    let options = json!({"clock": "days_per_move days=3"});
    let created = server
        .post_json("/api/games", None, &json!({"variant": "chess", "options": options, "seats": seats}))
        .await
        .ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let token = created["tokens"][0]["token"].as_str().unwrap().to_owned();
    let url = created["tokens"][0]["calendar"].as_str().unwrap().to_owned();
    assert!(url.starts_with(&format!("{}/api/calendar/", server.base)) && !url.contains(&token), "{url}");
    let key = calendar_key(&url);

    let feed = server.get(&format!("/api/calendar/{key}/deadlines.ics"), None).await;
    assert_eq!(feed.status, 200, "{}", feed.text);
    assert!(feed.text.contains(&format!("Fairsteward {id}: your move is due")), "{}", feed.text);

    // As a seat token, anywhere: refused, and nothing happens.
    server.mv(&id, &key, 1, "e4").await.error(401, "bad_token");
    server.post(&format!("/api/games/{id}/resign"), Some(&key), "").await.error(401, "bad_token");
    server
        .post_json(&format!("/api/games/{id}/draw"), Some(&key), &json!({"action": "offer"}))
        .await
        .error(401, "bad_token");
    let leave = json!({"from": "2030-01-01", "to": "2030-01-02"});
    server.post_json("/api/leave", Some(&key), &leave).await.error(401, "bad_token");
    server.get("/api/leave", Some(&key)).await.error(401, "bad_token");
    server.post_json(&format!("/api/seats/{key}/leave"), None, &leave).await.error(401, "bad_token");
    server.get(&format!("/api/games/{id}"), Some(&key)).await.error(401, "bad_token");
    let mut b = Browser::new(&server);
    assert_eq!(b.post("/sign-in", &[("token", &key)]).await.status, 401);
    assert!(b.cookie.is_none());
    let v = server.game(&id, None).await;
    assert_eq!((v["turn"].as_u64(), v["outcome"].is_null()), (Some(1), true), "{v}");

    // The seat token's own feed is gone; a wrong key reads nothing.
    server.get(&format!("/api/seats/{token}/deadlines.ics"), None).await.error(410, "gone");
    let forged = key.replacen(&format!(".{id}."), ".AAAAAA.", 1);
    server.get(&format!("/api/calendar/{forged}/deadlines.ics"), None).await.error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_address_the_steward_hands_out_carries_a_seat_token() {
    let server = Server::start().await;
    let (a, tokens) = create(&server, "chess").await;
    let (b, _) = create(&server, "chess").await;
    // The mails of both games, the pages of a seat signed in with its token.
    let link = sign_in_link(&spool(&server), &b, "white").await;
    let mut alice = signed_in_with_token(&server, &tokens[0]).await;
    let mut texts: Vec<String> =
        common::spool_files(&spool(&server)).into_values().map(|m| common::parse_mail(&m).all_text()).collect();
    for path in ["/me".to_owned(), format!("/games/{a}"), format!("/games/{a}/resign?seat=white"), "/".to_owned()] {
        texts.push(alice.get(&path).await.text);
    }
    for text in &texts {
        for token in &tokens {
            assert!(!text.contains(token.as_str()), "a seat token handed out: {text}");
        }
    }
    // The player's calendar covers the games this browser signed in for.
    let me = alice.get("/me").await.text.replace("&#x2f;", "/");
    let url = me.split("id=\"calendar\">").nth(1).unwrap().split('<').next().unwrap().to_owned();
    let key = calendar_key(&url);
    assert!(key.contains(&format!(".{a}.")) && !key.contains(&b), "{key}");
    alice.open_link(&link).await;
    let me = alice.get("/me").await.text.replace("&#x2f;", "/");
    let url = me.split("id=\"calendar\">").nth(1).unwrap().split('<').next().unwrap().to_owned();
    assert!(calendar_key(&url).contains(&format!(".{a}-{b}.")), "{url}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_players_link_asks_before_switching() {
    let server = Server::start().await;
    let (id, tokens) = create(&server, "chess").await;
    let mut alice = Browser::new(&server);
    alice.open_link(&sign_in_link(&spool(&server), &id, "white").await).await;
    let alices = alice.cookie.clone().unwrap();
    // Bob's link (sent to Alice, or opened on her browser): a question, no switch.
    let link = sign_in_link(&spool(&server), &id, "black").await;
    let (path, fragment) = link.split_once("#sign-in=").unwrap();
    let path = format!("{}/sign-in", path.strip_prefix(&server.base).unwrap());
    let (seat, key) = fragment.rsplit_once('.').unwrap();
    let asked = alice.post(&path, &[("seat", seat), ("key", key)]).await;
    assert_eq!((asked.status, asked.set_cookie.as_deref()), (200, None), "{}", asked.text);
    assert!(
        asked.text.contains(&format!("signed in as <strong>{ALICE}</strong>"))
            && asked.text.contains(&format!("<strong>{BOB}</strong>'s seat black in game {id}")),
        "{}",
        asked.text
    );
    assert!(asked.text.contains("Stay signed in as") && asked.text.contains("id=\"switch\""), "{}", asked.text);
    assert_eq!(alice.cookie.as_deref(), Some(alices.as_str()));
    assert!(alice.get(&format!("/games/{id}")).await.text.contains("You play white"));
    // Switching takes the question's CSRF token and this site.
    let csrf = asked.csrf();
    let fields = [("seat", seat), ("key", key), ("switch", "yes")];
    let p = alice.post(&path, &[fields.as_slice(), &[("csrf", "0")]].concat()).await;
    assert_eq!((p.status, alice.cookie.as_deref()), (403, Some(alices.as_str())), "{}", p.text);
    let p = alice.post_from(&path, &[fields.as_slice(), &[("csrf", &csrf)]].concat(), "http://evil.example").await;
    assert_eq!((p.status, alice.cookie.as_deref()), (403, Some(alices.as_str())), "{}", p.text);
    let p = alice.post(&path, &[fields.as_slice(), &[("csrf", &csrf)]].concat()).await;
    assert_eq!(p.status, 303, "{}", p.text);
    assert_ne!(alice.cookie.as_deref(), Some(alices.as_str()));
    assert!(alice.get(&format!("/games/{id}")).await.text.contains("You play black"));

    // A seat token of another player asks the same way.
    let asked = alice.post("/sign-in", &[("token", &tokens[0]), ("next", "/me")]).await;
    assert_eq!((asked.status, asked.set_cookie.as_deref()), (200, None), "{}", asked.text);
    assert!(asked.text.contains(&format!("This seat token is for\n<strong>{ALICE}</strong>")), "{}", asked.text);
    let csrf = asked.csrf();
    let p = alice.post("/sign-in", &[("token", &tokens[0]), ("next", "/me"), ("switch", "yes"), ("csrf", &csrf)]).await;
    assert_eq!((p.status, p.location.as_deref()), (303, Some("/me")), "{}", p.text);
    assert!(alice.get(&format!("/games/{id}")).await.text.contains("You play white"));
}
