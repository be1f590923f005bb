//! Invitations by link, over HTTP against a steward on a loopback port: a
//! game that starts when all accepted; a tournament whose decliner is
//! replaced and that the director starts; the invitee's page and its forms.

use std::path::Path;

use mail_parser::MessageParser;
use serde_json::{Value, json};

use crate::support::{Server, eventually, spool_files};

/// The invitation links (`/invitations/<token>`) spooled so far, by address.
pub(crate) fn invitation_links(spool: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, raw) in spool_files(spool) {
        if !name.starts_with("invite.") || name.contains(".answer-") {
            continue;
        }
        let m = MessageParser::default().parse(&raw).expect("a mail");
        let to = m.to().and_then(|a| a.first()).and_then(|a| a.address()).unwrap_or_default().to_owned();
        let body = m.body_text(0).expect("a text body").into_owned();
        let link = body
            .split_whitespace()
            .find(|w| w.contains("/invitations/"))
            .unwrap_or_else(|| panic!("no link in {body}"))
            .to_owned();
        out.push((to, link));
    }
    out
}

fn token_of(link: &str) -> String {
    link.rsplit('/').next().unwrap().to_owned()
}

async fn link_for(spool: &Path, address: &str, count: usize) -> String {
    eventually("the invitation mails", || {
        let links = invitation_links(spool);
        (links.len() >= count).then_some(links)
    })
    .await
    .into_iter()
    .rev()
    .find(|(to, _)| to.eq_ignore_ascii_case(address))
    .unwrap_or_else(|| panic!("no invitation to {address}"))
    .1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_with_invited_seats_starts_when_all_have_accepted() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let body = json!({"variant": "chess", "invite": true, "seats": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]});
    let invited = s.post_json("/api/games", None, &body).await.ok(201);
    assert_eq!(invited["kind"], "game");
    assert_eq!(invited["status"], "inviting");
    let id = invited["id"].as_str().unwrap().to_owned();
    assert!(invited["invitations"].as_array().unwrap().iter().all(|i| i["answer"] == "pending"));

    let ann = token_of(&link_for(&spool, "ann@example.org", 2).await);
    let bob = token_of(&link_for(&spool, "bob@example.org", 2).await);
    // The invitee reads the invitation with its token only.
    let seen = s.get(&format!("/api/invitations/{ann}"), None).await.ok(200);
    assert_eq!(seen["name"], "Ann");
    assert_eq!(seen["seat"], "white");
    assert_eq!(seen["open"], true);
    assert_eq!(s.get("/api/invitations/00ff", None).await.status, 404);

    let a = s.post_json(&format!("/api/invitations/{ann}/accept"), None, &json!({"name": "Ann Smith"})).await.ok(200);
    assert_eq!(a["answer"], "accepted");
    assert_eq!(a["starts"], false);
    // A repeat is answered, and changes nothing; the other answer is refused.
    let again = s.post_json(&format!("/api/invitations/{ann}/accept"), None, &json!({})).await.ok(200);
    assert_eq!(again["repeat"], true);
    let other = s.post(&format!("/api/invitations/{ann}/decline"), None, "").await;
    assert_eq!(other.status, 409, "{}", other.text);
    assert_eq!(other.json()["error"], "invitation_closed");

    // The organiser sees who answered; nobody else does.
    let list = s.get(&format!("/api/invited-games/{id}"), Some(&s.operator)).await.ok(200);
    assert_eq!(list["invitations"][0]["answer"], "accepted");
    assert_eq!(list["invitations"][0]["name"], "Ann Smith");
    assert_eq!(list["invitations"][1]["answer"], "pending");
    assert_eq!(s.get(&format!("/api/invited-games/{id}"), None).await.status, 401);
    assert_eq!(s.get(&format!("/api/invited-games/{id}"), Some("nonsense")).await.status, 401);

    let b = s.post(&format!("/api/invitations/{bob}/accept"), None, "").await.ok(200);
    assert_eq!(b["starts"], true, "{b}");
    let list = s.get(&format!("/api/invitations?game={id}"), Some(&s.operator)).await.ok(200);
    assert_eq!(list["status"], "started", "{list}");
    let game = list["game"].as_str().expect("the game is created").to_owned();
    let view = s.game(&game, None).await;
    let players: Vec<&str> = view["seats"].as_array().unwrap().iter().map(|s| s["player"].as_str().unwrap()).collect();
    assert_eq!(players, ["Ann Smith", "Bob"]);
    // The invitee's view now names the game.
    assert_eq!(s.get(&format!("/api/invitations/{bob}"), None).await.ok(200)["game"], game.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invited_game_is_checked_like_a_game() {
    let s = Server::start().await;
    let wrong = json!({"variant": "chess", "invite": true, "seats": [{"name": "Ann", "email": "ann@example.org"}]});
    let r = s.post_json("/api/games", None, &wrong).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.json()["message"].as_str().unwrap().contains("needs 2 seats"));
    let bad = json!({"variant": "chess", "invite": true, "seats": [
        {"name": "Ann", "email": "not an address"}, {"name": "Bob", "email": "bob@example.org"}]});
    assert_eq!(s.post_json("/api/games", None, &bad).await.status, 400);
}

/// A tournament of `players` as slice C's creation with `"invite": true`
/// leaves it, written straight into the store (until the merge), and a
/// director for it; returns its id and the director's token.
async fn tournament(s: &Server, id: &str, players: &[(&str, &str)]) -> String {
    // The steward answers once its store is open and its schema up to date.
    s.get("/api/steward", None).await.ok(200);
    let conn = crate::support::backend::Db::of(&s.config.data_dir);
    conn.execute(
        "INSERT INTO tournaments (id, name, variant, spec, status, created_at) VALUES (?1, 'Club league', 'chess', '{}', 'inviting', '2026-01-01T00:00:00.000Z')",
        &[id.into()],
    );
    for (i, (name, email)) in players.iter().enumerate() {
        conn.execute(
            "INSERT INTO tournament_players (tournament, player, name, email) VALUES (?1, ?2, ?3, ?4)",
            &[id.into(), (i as i64).into(), (*name).into(), (*email).into()],
        );
    }
    let token = format!("director-token-of-{id}");
    let hash = fairsteward::ids::SeatToken::from_presented(&token).hash();
    conn.execute(
        "INSERT INTO directors (token_hash, tournament, name, created_at) VALUES (?1, ?2, 'Dora', '2026-01-01T00:00:00.000Z')",
        &[hash.into(), id.into()],
    );
    token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_director_replaces_a_decliner_and_starts_the_tournament() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let players = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cleo", "cleo@example.org")];
    let director = tournament(&s, "T8KQ2ZJ", &players).await;
    let other = tournament(&s, "T9KQ2ZJ", &[("Zed", "zed@example.org")]).await;

    let list = s.post("/api/tournaments/T8KQ2ZJ/invite", Some(&director), "").await.ok(200);
    assert_eq!(list["invitations"].as_array().unwrap().len(), 3);
    // Another tournament's director is refused, with a clear 403.
    let r = s.post("/api/tournaments/T8KQ2ZJ/invite", Some(&other), "").await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert_eq!(r.json()["error"], "forbidden");
    assert_eq!(s.get("/api/invitations?tournament=T8KQ2ZJ", Some(&other)).await.status, 403);

    let ann = token_of(&link_for(&spool, "ann@example.org", 3).await);
    let bob = token_of(&link_for(&spool, "bob@example.org", 3).await);
    s.post(&format!("/api/invitations/{ann}/accept"), None, "").await.ok(200);
    let d = s.post(&format!("/api/invitations/{bob}/decline"), None, "").await.ok(200);
    assert_eq!(d["answer"], "declined");

    // Start is refused while a decliner has no replacement.
    let r = s.post("/api/tournaments/T8KQ2ZJ/start", Some(&director), "").await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.json()["message"].as_str().unwrap().contains("Bob"));
    // An accepted place is not replaced.
    let carl = json!({"name": "Carl", "email": "carl@example.org"});
    // A player named by anything but a number is told how players are numbered.
    let r = s.post_json("/api/tournaments/T8KQ2ZJ/players/bob/replace", Some(&director), &carl).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.json()["error"], "bad_request");
    assert!(r.json()["message"].as_str().unwrap().contains("numbered 0.."), "{}", r.text);
    // Without an organiser's token nothing else is looked at.
    assert_eq!(s.post_json("/api/tournaments/T8KQ2ZJ/players/bob/replace", None, &carl).await.status, 401);
    assert_eq!(s.post_json("/api/tournaments/T8KQ2ZJ/players/0/replace", Some(&director), &carl).await.status, 400);
    let list = s.post_json("/api/tournaments/T8KQ2ZJ/players/1/replace", Some(&director), &carl).await.ok(200);
    assert_eq!(list["invitations"][1]["name"], "Carl");
    assert_eq!(list["invitations"][1]["answer"], "pending");
    assert!(list["invitations"][1]["replaced"][0].as_str().unwrap().contains("declined"));
    // The old invitation takes no answer now; Carl's came by mail.
    assert_eq!(s.post(&format!("/api/invitations/{bob}/accept"), None, "").await.status, 409);
    let carl_link = link_for(&spool, "carl@example.org", 4).await;
    s.post(&format!("/api/invitations/{}/accept", token_of(&carl_link)), None, "").await.ok(200);

    // Cleo has not answered: the director starts with who is there.
    let list = s.post("/api/tournaments/T8KQ2ZJ/start", Some(&director), "").await.ok(200);
    assert_eq!(list["status"], "running", "{list}");
    assert_eq!(list["invitations"][2]["closed"], true);
    let cleo = token_of(&link_for(&spool, "cleo@example.org", 4).await);
    let late = s.post(&format!("/api/invitations/{cleo}/accept"), None, "").await;
    assert_eq!(late.status, 409, "{}", late.text);
    // Starting twice is refused.
    assert_eq!(s.post("/api/tournaments/T8KQ2ZJ/start", Some(&s.operator), "").await.status, 409);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_starts_when_its_last_player_accepts() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let players = [("Ann", "ann@example.org"), ("Bob", "bob@example.org")];
    tournament(&s, "T7KQ2ZJ", &players).await;
    s.post("/api/tournaments/T7KQ2ZJ/invite", Some(&s.operator), "").await.ok(200);
    for (_, address) in players {
        let token = token_of(&link_for(&spool, address, 2).await);
        s.post(&format!("/api/invitations/{token}/accept"), None, "").await.ok(200);
    }
    let list = s.get("/api/invitations?tournament=T7KQ2ZJ", Some(&s.operator)).await.ok(200);
    assert_eq!(list["status"], "running");
    assert_eq!(list["all_accepted"], true);
}

/// The page's form fields and the CSRF token.
fn csrf_of(page: &str) -> String {
    let at = page.find("name=\"csrf\" value=\"").expect("a CSRF field") + "name=\"csrf\" value=\"".len();
    page[at..].split('"').next().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_invitation_page_accepts_with_a_name_and_guards_its_forms() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let body = json!({"variant": "chess", "invite": true, "seats": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]});
    s.post_json("/api/games", None, &body).await.ok(201);
    let link = link_for(&spool, "ann@example.org", 2).await;
    let path = link.split_once("//").unwrap().1.split_once('/').unwrap().1;
    let path = format!("/{path}");
    let page = s.get(&path, None).await;
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"));
    assert!(page.cache_control.contains("no-store"));
    assert!(page.text.contains("id=\"accept\"") && page.text.contains("id=\"decline\""));
    let csrf = csrf_of(&page.text);

    let form = |fields: &[(&str, &str)]| serde_urlencoded::to_string(fields).unwrap();
    let post = |body: String, origin: Option<&str>| {
        let mut req =
            s.client.post(format!("{}{path}", s.base)).header("Content-Type", "application/x-www-form-urlencoded");
        if let Some(o) = origin {
            req = req.header("Origin", o);
        }
        req.body(body).send()
    };
    // A wrong CSRF token, or another site, is refused and answers nothing.
    let r = post(form(&[("csrf", "0000"), ("action", "accept")]), None).await.unwrap();
    assert_eq!(r.status(), 403);
    let r = post(form(&[("csrf", &csrf), ("action", "accept")]), Some("https://evil.example")).await.unwrap();
    assert_eq!(r.status(), 403);
    let r = post(form(&[("csrf", &csrf), ("action", "accept"), ("name", "Ann B."), ("public_key", "")]), None)
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert!(text.contains("You accepted the invitation"), "{text}");
    assert!(text.contains("accepted"));
    let seen: Value = s.get(&format!("/api/invitations/{}", token_of(&link)), None).await.ok(200);
    assert_eq!(seen["name"], "Ann B.");
    assert_eq!(seen["open"], false);
    // A bad link is a page that says so.
    let r = s.get("/invitations/nonsense", None).await;
    assert_eq!(r.status, 404);
    assert!(r.text.contains("no invitation"));
}
