//! The web pages for players (issue 17), over HTTP on a real socket: the game
//! page for spectators and for a seat signed in by a board mail's private link,
//! moving, drawing and resigning from forms (with their CSRF tokens and the
//! confirmation step), the player's page, the rules pages, the record as PGN
//! (read back with python-chess) and JSON, the spectator delay, error pages,
//! and every page under 100 KB. The browser itself is driven in tests/browser.rs.

mod common;

use common::Server;
use common::web::{Browser, sign_in_link};
use serde_json::{Value, json};

/// A game of `variant` with one player per seat, each at `<seat>.<n>@example.org`
/// (`n` counts the games of the test run); its id and the seat tokens.
async fn create(server: &Server, variant: &str, options: Value) -> (String, Vec<String>) {
    let rules = variant
        .parse::<fairsteward::rules::VariantId>()
        .unwrap()
        .rulebook(&fairsteward::rules::Options::new())
        .unwrap();
    let n = GAMES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let seats: Vec<Value> = rules
        .seat_names()
        .iter()
        .map(|s| json!({"name": format!("Player {s}"), "email": format!("{s}.{n}@example.org")}))
        .collect();
    let created = server
        .post_json("/api/games", None, &json!({"variant": variant, "options": options, "seats": seats}))
        .await
        .ok(201);
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (created["game"]["id"].as_str().unwrap().to_owned(), tokens)
}

static GAMES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn spool(server: &Server) -> std::path::PathBuf {
    server.config.data_dir.join("spool")
}

/// The game page of `path` as `b` sees it; must be 200 HTML.
async fn page(b: &mut Browser, path: &str) -> String {
    let p = b.get(path).await;
    assert_eq!(p.status, 200, "GET {path}: {}", p.text);
    assert!(p.content_type.starts_with("text/html"), "{}", p.content_type);
    p.text
}

/// Sends a move from the page's form; the page after it (200) or the refusal.
async fn send_move(b: &mut Browser, id: &str, seat: &str, turn: u32, mv: &str) -> common::web::Page {
    let csrf = b.get(&format!("/games/{id}?seat={seat}")).await.csrf();
    let turn = turn.to_string();
    let sent =
        b.post(&format!("/games/{id}/move"), &[("csrf", &csrf), ("seat", seat), ("turn", &turn), ("move", mv)]).await;
    if sent.status == 303 {
        let to = sent.location.unwrap();
        assert!(to.contains("done=move"), "{to}");
        return b.get(&to).await;
    }
    sent
}

/// A browser signed in by the private link of `seat`'s board mails in game `id`.
async fn signed_in(server: &Server, id: &str, seat: &str) -> Browser {
    let link = sign_in_link(&spool(server), id, seat).await;
    let mut b = Browser::new(server);
    let p = b.open_link(&link).await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert!(p.text.contains(&format!("You play {seat}")), "{}", p.text);
    b
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_link_signs_the_seat_in_and_the_form_sends_its_move() {
    let server = Server::start().await;
    let (id, _) = create(&server, "chess", json!({})).await;
    let link = sign_in_link(&spool(&server), &id, "white").await;
    assert!(link.starts_with(&format!("{}/games/{id}#sign-in=white.", server.base)), "{link}");
    let mut white = Browser::new(&server);
    let page = white.open_link(&link).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.text.contains("You play white") && page.text.contains("<strong>Your move</strong>"), "{}", page.text);
    assert!(
        page.text.contains(r#"{"text": "e2e4", "notation": "e4", "path": ["e2", "e4"]}"#),
        "legal moves for the script: {}",
        page.text
    );
    let after = send_move(&mut white, &id, "white", 1, "e2e4").await;
    assert!(after.text.contains("Your move is in"), "{}", after.text);
    assert!(after.text.contains(r#"<td>1.</td><td>white</td><td class="mv">e4</td>"#), "the record: {}", after.text);
    assert!(after.text.contains("Waiting for black (turn 2)"), "{}", after.text);

    // Typed notation works as well as the canonical text the script sends.
    let mut black = signed_in(&server, &id, "black").await;
    let after = send_move(&mut black, &id, "black", 2, "Nf6").await;
    assert!(after.text.contains(r#"<td>1...</td><td>black</td><td class="mv">Nf6</td>"#), "{}", after.text);
    let refused = send_move(&mut white, &id, "white", 3, "Ke3").await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.text.contains("class=\"error\"") && refused.text.contains("not legal"), "{}", refused.text);

    // A forged or shortened key signs nobody in.
    let mut stranger = Browser::new(&server);
    let bad = link.replace("#sign-in=white.", "#sign-in=white.0");
    let (path, fragment) = bad.split_once("#sign-in=").unwrap();
    let path = path.strip_prefix(&server.base).unwrap();
    let (seat, key) = fragment.rsplit_once('.').unwrap();
    let p = stranger.post(&format!("{path}/sign-in"), &[("seat", seat), ("key", key)]).await;
    assert_eq!(p.status, 401, "{}", p.text);
    assert!(stranger.cookie.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_simultaneous_move_shows_to_its_own_seat_only() {
    let server = Server::start().await;
    let (id, _) = create(&server, "fairschach", json!({})).await;
    let mut white = signed_in(&server, &id, "white").await;
    let mut black = signed_in(&server, &id, "black").await;
    // Knight moves whose texts (Nh3, g1h3) appear nowhere else on a page.
    let after = send_move(&mut white, &id, "white", 1, "g1h3").await;
    assert!(after.text.contains("Your move for turn 1 is in: <strong>Nh3</strong>"), "{}", after.text);
    let mut spectator = Browser::new(&server);
    for (who, text) in [
        ("spectator", page(&mut spectator, &format!("/games/{id}")).await),
        ("black", page(&mut black, &format!("/games/{id}")).await),
        ("spectator's JSON", spectator.get(&format!("/games/{id}/record.json")).await.text),
        ("black's JSON", black.get(&format!("/games/{id}/record.json")).await.text),
        ("spectator's PGN", spectator.get(&format!("/games/{id}/record.pgn")).await.text),
    ] {
        assert!(!text.contains("Nh3") && !text.contains("g1h3"), "{who} sees white's pending move: {text}");
    }
    let black_page = page(&mut black, &format!("/games/{id}")).await;
    assert!(black_page.contains("moved <time"), "black sees that white moved: {black_page}");
    let after = send_move(&mut black, &id, "black", 1, "g8h6").await;
    assert!(
        after.text.contains(r#"<td class="mv">Nh3</td>"#) && after.text.contains(r#"<td class="mv">Nh6</td>"#),
        "{}",
        after.text
    );
    assert!(
        after.text.contains("Paused in the next turn: h3, h6")
            || after.text.contains("Paused in the next turn: h6, h3"),
        "{}",
        after.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_need_the_session_its_csrf_token_and_this_site() {
    let server = Server::start().await;
    let (id, _) = create(&server, "chess", json!({})).await;
    let mut white = signed_in(&server, &id, "white").await;
    let csrf = white.get(&format!("/games/{id}")).await.csrf();
    let path = format!("/games/{id}/move");
    let p = white.post(&path, &[("csrf", "0"), ("seat", "white"), ("turn", "1"), ("move", "e4")]).await;
    assert_eq!(p.status, 403, "a wrong CSRF token: {}", p.text);
    let p = white
        .post_from(&path, &[("csrf", &csrf), ("seat", "white"), ("turn", "1"), ("move", "e4")], "http://evil.example")
        .await;
    assert_eq!(p.status, 403, "another site: {}", p.text);
    let mut anonymous = Browser::new(&server);
    let p = anonymous.post(&path, &[("csrf", &csrf), ("seat", "white"), ("turn", "1"), ("move", "e4")]).await;
    assert_eq!(p.status, 401, "no session: {}", p.text);
    assert!(p.text.contains("Please sign in"), "{}", p.text);
    // Nothing was played.
    assert_eq!(server.game(&id, None).await["turn"], 1);
    // Signing out ends the session.
    let p = white.post("/sign-out", &[("csrf", &csrf)]).await;
    assert_eq!((p.status, white.cookie.is_none()), (303, true), "{:?}", p.set_cookie);
    let cookie = p.set_cookie.unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Max-Age=0"),
        "{cookie}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigning_takes_a_confirmation_and_draws_take_every_seat() {
    let server = Server::start().await;
    let (id, _) = create(&server, "chess", json!({})).await;
    let mut white = signed_in(&server, &id, "white").await;
    let mut black = signed_in(&server, &id, "black").await;
    // A draw offered and declined.
    let csrf = white.get(&format!("/games/{id}")).await.csrf();
    let p = white.post(&format!("/games/{id}/draw"), &[("csrf", &csrf), ("seat", "white"), ("action", "offer")]).await;
    assert_eq!(p.status, 303, "{}", p.text);
    let text = page(&mut black, &format!("/games/{id}")).await;
    assert!(text.contains("id=\"draw-accept\"") && text.contains("id=\"draw-decline\""), "{text}");
    let csrf_b = black.get(&format!("/games/{id}")).await.csrf();
    let p =
        black.post(&format!("/games/{id}/draw"), &[("csrf", &csrf_b), ("seat", "black"), ("action", "decline")]).await;
    assert_eq!(p.status, 303);
    assert!(page(&mut white, &format!("/games/{id}")).await.contains("id=\"draw-offer\""));

    // Resigning: without the confirmation, the confirmation page.
    let p = white.post(&format!("/games/{id}/resign"), &[("csrf", &csrf), ("seat", "white")]).await;
    assert_eq!(p.status, 303);
    let confirm = page(&mut white, p.location.as_deref().unwrap()).await;
    assert!(confirm.contains("Resign game") && confirm.contains("id=\"confirm-resign\""), "{confirm}");
    assert!(server.game(&id, None).await["outcome"].is_null(), "not resigned yet");
    let p = white.post(&format!("/games/{id}/resign"), &[("csrf", &csrf), ("seat", "white"), ("confirm", "yes")]).await;
    assert_eq!(p.status, 303, "{}", p.text);
    let over = page(&mut white, p.location.as_deref().unwrap()).await;
    assert!(over.contains("The game is over: <strong>0-1</strong> (resignation)"), "{over}");
    assert_eq!(server.game(&id, None).await["outcome"]["result"], "0-1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_addresses_are_pages_and_the_api_stays_json() {
    let server = Server::start().await;
    let mut b = Browser::new(&server);
    let p = b.get("/games/ZZZZZZ").await;
    assert_eq!(p.status, 404);
    assert!(p.content_type.starts_with("text/html") && p.text.contains("there is no game ZZZZZZ"), "{}", p.text);
    let p = b.get("/no/such/page").await;
    assert_eq!(p.status, 404);
    assert!(p.content_type.starts_with("text/html"), "{}", p.content_type);
    let p = b.get("/api/no-such-endpoint").await;
    assert_eq!(p.status, 404);
    assert!(p.content_type.starts_with("application/json") && p.text.contains("\"not_found\""), "{}", p.text);
    let p = b.get("/rules/checkers").await;
    assert_eq!(p.status, 404, "{}", p.text);
    let p = b.get("/me").await;
    assert_eq!((p.status, p.location.as_deref()), (303, Some("/sign-in?next=/me")));
    let p = b.get("/").await;
    assert_eq!(p.status, 200);
    let csp = b.client.get(format!("{}/", server.base)).send().await.unwrap();
    let csp = csp.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe"), "{csp}");
}

/// Every page, for every variant, as a seat to move and as a spectator, is
/// well under 100 KB, and so are the assets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_is_under_100_kb() {
    let server = Server::start().await;
    let mut sizes = Vec::new();
    for variant in fairsteward::rules::VariantId::ALL {
        let (id, _) = create(&server, variant.name(), json!({})).await;
        let first = variant.rulebook(&fairsteward::rules::Options::new()).unwrap().seat_names()[0];
        let mut seat = signed_in(&server, &id, first).await;
        for (who, b) in [("seat", &mut seat), ("spectator", &mut Browser::new(&server))] {
            for path in [format!("/games/{id}"), format!("/games/{id}/rules"), format!("/rules/{variant}"), "/".into()]
            {
                let text = page(b, &path).await;
                sizes.push((format!("{variant} {path} ({who})"), text.len()));
            }
        }
        let me = page(&mut seat, "/me").await;
        sizes.push((format!("{variant} /me"), me.len()));
    }
    let mut b = Browser::new(&server);
    let assets = b.get("/assets/play.js").await.text.len() + b.get("/assets/site.css").await.text.len();
    sizes.push(("the script and the style sheet".into(), assets));
    for (what, size) in &sizes {
        println!("{size:>7} bytes  {what}");
        assert!(*size < 100 * 1024, "{what} is {size} bytes");
    }
}
