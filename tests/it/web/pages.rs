//! The web pages for players (issue 17), over HTTP on a real socket: the game
//! page for spectators and for a seat signed in by a board mail's private link,
//! moving, drawing and resigning from forms (with their CSRF tokens and the
//! confirmation step), the player's page, the rules pages, the record as PGN
//! (read back with python-chess) and JSON, the spectator delay, error pages,
//! and every page under 100 KB. The browser itself is driven in tests/it/web/browser.rs.

use crate::support as common;

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

/// HTML text with minijinja's escapes undone (it escapes `/` too).
fn unescape(html: &str) -> String {
    html.replace("&#x2f;", "/")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

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
        assert!(to.contains("done=move") || to.contains("done=turn"), "{to}");
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
    assert!(
        after.text.contains(r#"<td title="turn 1">1.</td><td>white</td><td class="mv">e4</td>"#),
        "the record: {}",
        after.text
    );
    assert!(after.text.contains("Waiting for black (move 1..., open since <time"), "{}", after.text);

    // Typed notation works as well as the canonical text the script sends.
    let mut black = signed_in(&server, &id, "black").await;
    let after = send_move(&mut black, &id, "black", 2, "Nf6").await;
    assert!(
        after.text.contains(r#"<td title="turn 2">1...</td><td>black</td><td class="mv">Nf6</td>"#),
        "{}",
        after.text
    );
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

/// A board mail's private link is a key to the seat in whoever's hands (a
/// forwarded mail, a shared mailbox): it runs out 14 days after the mail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_link_runs_out_two_weeks_after_its_mail() {
    let start = chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00Z").unwrap().to_utc();
    let clock = fairsteward::clock::Clock::manual(start);
    let server = Server::start_at(clock.clone()).await;
    let (id, _) = create(&server, "chess", json!({})).await;
    let link = sign_in_link(&spool(&server), &id, "white").await;
    assert!(link.contains("#sign-in=white.20261215-"), "the link names its last day: {link}");
    let (path, fragment) = link.split_once("#sign-in=").unwrap();
    let path = path.strip_prefix(&server.base).unwrap().to_owned();
    let (seat, key) = fragment.rsplit_once('.').unwrap();
    clock.set(start + chrono::Duration::days(14));
    let mut on_the_last_day = Browser::new(&server);
    let p = on_the_last_day.post(&format!("{path}/sign-in"), &[("seat", seat), ("key", key)]).await;
    assert!(p.status == 200 || p.status == 303, "{}: {}", p.status, p.text);
    assert!(on_the_last_day.cookie.is_some(), "signed in on the link's last day");
    clock.set(start + chrono::Duration::days(15));
    let mut later = Browser::new(&server);
    let p = later.post(&format!("{path}/sign-in"), &[("seat", seat), ("key", key)]).await;
    assert_eq!(p.status, 401, "{}", p.text);
    assert!(later.cookie.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_simultaneous_move_shows_to_its_own_seat_only() {
    let server = Server::start().await;
    let (id, _) = create(&server, "fairschach", json!({})).await;
    let mut white = signed_in(&server, &id, "white").await;
    let mut black = signed_in(&server, &id, "black").await;
    // Knight moves whose texts (Nh3, g1h3) appear nowhere else on a page.
    let after = send_move(&mut white, &id, "white", 1, "g1h3").await;
    assert!(after.text.contains("Your move 1. is in: <strong>Nh3</strong>"), "{}", after.text);
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
    // A link from another site carries the Lax mark of a sign-in but not the
    // Strict session: the page reloads itself once, from here.
    let cross = |cookie: &str| {
        white
            .client
            .get(format!("{}/games/{id}", server.base))
            .header("Sec-Fetch-Site", "cross-site")
            .header("Cookie", cookie.to_owned())
            .send()
    };
    let reload = cross("fairsteward_signed_in=1").await.unwrap().text().await.unwrap();
    assert!(reload.contains(r#"<meta http-equiv="refresh" content="0">"#), "{reload}");
    let with_session = format!("{}; fairsteward_signed_in=1", white.cookie.clone().unwrap());
    let page = cross(&with_session).await.unwrap().text().await.unwrap();
    assert!(page.contains("You play white"), "with the session no reload: {page}");
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

/// Every page, for every variant, as a seat to move and as a spectator, at the
/// start and 80 plies on, is well under 100 KB, and so are the assets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_is_under_100_kb() {
    let server = Server::start().await;
    let mut sizes = Vec::new();
    let mut games = Vec::new();
    for variant in fairsteward::rules::VariantId::ALL {
        let (id, tokens) = create(&server, variant.name(), json!({})).await;
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
        games.push((variant, id, tokens, seat));
    }
    // Later in a game the record has grown and the board is fuller or
    // sparser: 80 random plies on (after every sign-in, whose board mail
    // would wait behind the pictures of these moves' mails).
    for (variant, id, tokens, mut seat) in games {
        let played = play_random(&server, &id, &tokens, variant, 80).await;
        for (who, b) in [("seat", &mut seat), ("spectator", &mut Browser::new(&server))] {
            let text = page(b, &format!("/games/{id}")).await;
            sizes.push((format!("{variant} /games/{id} after {played} plies ({who})"), text.len()));
        }
    }
    let mut b = Browser::new(&server);
    let assets = b.get("/assets/play.js").await.text.len() + b.get("/assets/site.css").await.text.len();
    sizes.push(("the script and the style sheet".into(), assets));
    for (what, size) in &sizes {
        println!("{size:>7} bytes  {what}");
        assert!(*size < 100 * 1024, "{what} is {size} bytes");
    }
}

/// Plays up to `plies` random legal moves (xorshift, fixed seed) in game `id`
/// through the API, each by a seat the game says is to move; the plies played
/// (fewer when the game ends).
async fn play_random(
    server: &Server,
    id: &str,
    tokens: &[String],
    variant: fairsteward::rules::VariantId,
    plies: usize,
) -> usize {
    let rules = variant.rulebook(&fairsteward::rules::Options::new()).unwrap();
    let names = rules.seat_names();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut played = 0;
    while played < plies {
        let game = server.game(id, None).await;
        if !game["outcome"].is_null() {
            break;
        }
        let turn = u32::try_from(game["turn"].as_u64().unwrap()).unwrap();
        let state = game["state"].as_str().unwrap().to_owned();
        for seat in game["to_move"].as_array().unwrap() {
            let i = names.iter().position(|s| *s == seat.as_str().unwrap()).unwrap();
            let legal = rules.legal_moves(&state, fairsteward::rules::Seat::new(i as u8)).unwrap();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mv = &legal[(seed % legal.len() as u64) as usize];
            server.mv(id, &tokens[i], turn, mv).await.ok(200);
            played += 1;
        }
    }
    played
}

/// Reads a PGN with python-chess (`scripts/test` installs it from PyPI into
/// `target/python` when the system has none): its headers, the main line in
/// UCI, the errors it met and the final position.
fn python_chess(pgn: &str) -> Value {
    use std::io::Write;
    const READER: &str = r#"
import io, json, sys
import chess.pgn
game = chess.pgn.read_game(io.StringIO(sys.stdin.read()))
print(json.dumps({
    "headers": dict(game.headers),
    "moves": [m.uci() for m in game.mainline_moves()],
    "errors": [str(e) for e in game.errors],
    "fen": game.end().board().fen(),
    "comment": game.end().comment,
}))
"#;
    let local = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("python");
    let mut child = std::process::Command::new("python3")
        .args(["-c", READER])
        .env("PYTHONPATH", &local)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs (scripts/test installs it)");
    child.stdin.take().unwrap().write_all(pgn.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python-chess could not read the PGN (scripts/test installs python-chess into target/python): {}\n{pgn}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pgn_downloads_read_with_python_chess() {
    let server = Server::start().await;
    // Chess: the moves, the result and the players.
    let (id, tokens) = create(&server, "chess", json!({})).await;
    let moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"];
    for (i, mv) in moves.iter().enumerate() {
        server.mv(&id, &tokens[i % 2], i as u32 + 1, mv).await.ok(200);
    }
    server.post(&format!("/api/games/{id}/resign"), Some(&tokens[1]), "").await.ok(200);
    let mut b = Browser::new(&server);
    let p = b.get(&format!("/games/{id}/record.pgn")).await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert!(p.content_type.starts_with("application/x-chess-pgn"), "{}", p.content_type);
    let read = python_chess(&p.text);
    assert_eq!(read["errors"], json!([]), "{}", p.text);
    assert_eq!(read["moves"], json!(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "e1g1"]), "{}", p.text);
    assert_eq!(read["headers"]["White"], "Player white");
    assert_eq!(read["headers"]["Result"], "1-0");
    assert_eq!(read["headers"]["Termination"], "normal");
    // The API gives the same.
    let api = server.get(&format!("/api/games/{id}/record.pgn"), None).await;
    assert_eq!(api.text, p.text);

    // Fairschach: a pair per move number, its own tags; first moves and a
    // capture of a piece that moved away replay in python-chess.
    let (fs, tokens) = create(&server, "fairschach", json!({})).await;
    let pairs = [("e4", "Nc6"), ("Bb5", "a5"), ("d3", "h6"), ("Bxc6", "Ne5"), ("Nf3", "Nf6")];
    for (i, (w, bl)) in pairs.iter().enumerate() {
        let turn = i as u32 + 1;
        server.mv(&fs, &tokens[0], turn, w).await.ok(200);
        server.mv(&fs, &tokens[1], turn, bl).await.ok(200);
    }
    let p = b.get(&format!("/games/{fs}/record.pgn")).await;
    assert_eq!(p.status, 200, "{}", p.text);
    let read = python_chess(&p.text);
    assert_eq!(read["errors"], json!([]), "{}", p.text);
    assert_eq!(read["headers"]["FairschachPause"], "moved", "{}", p.text);
    assert!(
        read["headers"]["FairschachFEN"].as_str().unwrap().ends_with(" s KQkq - - 1 6")
            || read["headers"]["FairschachFEN"].as_str().unwrap().contains(" s "),
        "{}",
        p.text
    );
    let uci: Vec<String> = serde_json::from_value(read["moves"].clone()).unwrap();
    assert!(uci.starts_with(&["e2e4".into(), "b8c6".into(), "f1b5".into(), "a7a5".into()]), "{uci:?}");
    assert!(p.text.contains("4. -- Ne5 Bc6 --"), "the capture that caught nothing replays Black first: {}", p.text);
    let json = b.get(&format!("/games/{fs}/record.json")).await;
    let record: Value = serde_json::from_str(&json.text).unwrap();
    assert_eq!(record["turns"].as_array().unwrap().len(), 5);
    assert_eq!(record["turns"][3]["moves"][0]["move"], "Bxc6");
    assert_eq!(record["turns"][3]["moves"][0]["canonical"], "b5c6");
    assert!(record["turns"][3]["notes"][0].as_str().unwrap().contains("moved away"), "{record}");

    // Four seats: no PGN form, the JSON record all the same.
    let (vs, _) = create(&server, "vierschach", json!({})).await;
    assert_eq!(b.get(&format!("/games/{vs}/record.pgn")).await.status, 404);
    assert_eq!(server.get(&format!("/api/games/{vs}/record.pgn"), None).await.status, 404);
    let json: Value = serde_json::from_str(&b.get(&format!("/games/{vs}/record.json")).await.text).unwrap();
    assert_eq!(json["seats"].as_array().unwrap().len(), 4);
    assert!(!b.get(&format!("/games/{vs}")).await.text.contains("id=\"pgn-link\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_see_the_game_behind_by_its_delay() {
    let server = Server::start().await;
    let (id, tokens) = create(&server, "chess", json!({"spectator_delay": 2})).await;
    for (i, mv) in ["e4", "e5", "Nf3"].iter().enumerate() {
        server.mv(&id, &tokens[i % 2], i as u32 + 1, mv).await.ok(200);
    }
    // Spectators: one turn of three; the seats: all three.
    let mut spectator = Browser::new(&server);
    let text = page(&mut spectator, &format!("/games/{id}")).await;
    assert!(text.contains("Spectators see this game 2 turns behind"), "{text}");
    assert!(text.contains(r#"<td class="mv">e4</td>"#) && !text.contains(r#"<td class="mv">e5</td>"#), "{text}");
    let view = server.game(&id, None).await;
    assert_eq!((view["delayed"].as_bool(), view["history"].as_array().unwrap().len()), (Some(true), 1), "{view}");
    assert_eq!(view["state"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    let transcript = server.get(&format!("/api/games/{id}/transcript"), None).await.text;
    assert!(
        transcript.contains("\"e4\"") && !transcript.contains("\"e5\"") && !transcript.contains("Nf3"),
        "{transcript}"
    );
    let svg = server.get(&format!("/api/games/{id}/board.svg"), None).await.text;
    let own_svg = server.get(&format!("/api/games/{id}/board.svg"), Some(&tokens[0])).await.text;
    assert_ne!(svg, own_svg, "the spectator's board is an earlier one");
    let pgn = spectator.get(&format!("/games/{id}/record.pgn")).await.text;
    assert!(pgn.contains("1. e4 *"), "{pgn}");

    let mut white = signed_in(&server, &id, "white").await;
    let text = page(&mut white, &format!("/games/{id}")).await;
    assert!(!text.contains("turns behind") && text.contains(r#"<td class="mv">Nf3</td>"#), "{text}");
    assert_eq!(server.game(&id, Some(&tokens[1])).await["history"].as_array().unwrap().len(), 3);
    let full = server.get(&format!("/api/games/{id}/transcript"), Some(&tokens[1])).await.text;
    assert!(full.contains("Nf3"), "a seat reads the whole transcript");

    // Once the game is over, everyone sees everything.
    server.post(&format!("/api/games/{id}/resign"), Some(&tokens[1]), "").await.ok(200);
    assert_eq!(server.game(&id, None).await["history"].as_array().unwrap().len(), 3);
    // A delay out of range is refused with the reason.
    let bad = server
        .post_json(
            "/api/games",
            None,
            &json!({"variant": "chess", "options": {"spectator_delay": -1}, "seats": [
                {"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]}),
        )
        .await;
    assert!(bad.error(400, "bad_request").contains("spectator_delay"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_players_page_lists_their_games_with_the_calendar_and_leave() {
    let server = Server::start().await;
    let seats = json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]);
    let mut ids = Vec::new();
    for (variant, options) in [("chess", json!({"clock": "days_per_move days=3"})), ("fairschach", json!({}))] {
        let created = server
            .post_json("/api/games", None, &json!({"variant": variant, "options": options, "seats": seats}))
            .await
            .ok(201);
        ids.push(created["game"]["id"].as_str().unwrap().to_owned());
    }
    let mut alice = signed_in(&server, &ids[0], "white").await;
    let me = unescape(&page(&mut alice, "/me").await);
    assert!(!me.contains(&ids[1]), "a sign-in for one game lists only that one: {me}");
    // The other game's link adds it to the session (issue 29).
    let link = sign_in_link(&spool(&server), &ids[1], "white").await;
    assert!(alice.open_link(&link).await.text.contains("You play white"));
    let me = unescape(&page(&mut alice, "/me").await);
    for id in &ids {
        assert!(me.contains(&format!("<a href=\"/games/{id}\">{id}</a>")), "{me}");
    }
    assert!(me.matches("<strong>your move</strong>").count() == 2, "{me}");
    assert!(me.contains("<time datetime=\""), "the chess game's deadline: {me}");
    let calendar = me.split("id=\"calendar\">").nth(1).unwrap().split('<').next().unwrap().to_owned();
    let path = calendar.strip_prefix(&server.base).unwrap();
    let ics = alice.get(path).await;
    assert_eq!(ics.status, 200, "{}", ics.text);
    assert!(
        ics.text.contains("BEGIN:VCALENDAR") && ics.text.contains(&format!("Fairsteward {}: your move is due", ids[0])),
        "{}",
        ics.text
    );
    assert!(path.starts_with("/api/calendar/"), "{path}");
    let forged = path.replacen("/deadlines.ics", "0/deadlines.ics", 1);
    assert_eq!(alice.get(&forged).await.status, 404);

    // Leave from the player's page.
    let csrf = alice.get("/me").await.csrf();
    let today = chrono::Utc::now().date_naive();
    let (from, to) = ((today + chrono::Days::new(10)).to_string(), (today + chrono::Days::new(12)).to_string());
    let p = alice.post("/leave", &[("csrf", &csrf), ("from", &from), ("to", &to)]).await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert!(p.text.contains("Your leave is recorded"), "{}", p.text);
    let p = alice.post("/leave", &[("csrf", &csrf), ("from", "2001-01-01"), ("to", "2001-01-02")]).await;
    assert!(p.status >= 400 && p.text.contains("class=\"error\""), "{}", p.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_that_want_signatures_show_the_command_and_take_the_envelope() {
    use fairsteward::protocol::{Body, Envelope, PlayerKey, random_nonce};
    let server = Server::start().await;
    let keys = [PlayerKey::generate(), PlayerKey::generate()];
    let seats = json!([
        {"name": "Alice", "email": "alice.sig@example.org", "public_key": keys[0].public_key_base64()},
        {"name": "Bob", "email": "bob.sig@example.org", "public_key": keys[1].public_key_base64()},
    ]);
    let created = server
        .post_json("/api/games", None, &json!({"variant": "chess", "options": {"auth": "signature"}, "seats": seats}))
        .await
        .ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let mut white = signed_in(&server, &id, "white").await;
    let text = page(&mut white, &format!("/games/{id}")).await;
    let command = format!("fairsteward player sign --key YOUR-KEY-FILE --game {id} --seat white --turn 1 --move MOVE");
    assert!(text.contains(&command), "{text}");
    assert!(!text.contains("id=\"move-form\""), "no move form: {text}");
    let mut env = Envelope::new(&id, "white", 1, Body::Move("d4".into())).with_nonce(&random_nonce());
    env.sign(&keys[0]);
    let csrf = white.get(&format!("/games/{id}")).await.csrf();
    let p = white
        .post(&format!("/games/{id}/envelope"), &[("csrf", &csrf), ("seat", "white"), ("envelope", &env.to_text())])
        .await;
    assert_eq!(p.status, 303, "{}", p.text);
    assert_eq!(server.game(&id, None).await["history"][0]["moves"][0]["move"], "d4");
    // Commit-reveal games show the commit command, then the reveal command.
    let seats = json!([{"name": "C", "email": "c.cr@example.org"}, {"name": "D", "email": "d.cr@example.org"}]);
    let created = server
        .post_json(
            "/api/games",
            None,
            &json!({"variant": "fairschach", "options": {"secrecy": "commit-reveal"}, "seats": seats}),
        )
        .await
        .ok(201);
    let cr = created["game"]["id"].as_str().unwrap().to_owned();
    let mut c = signed_in(&server, &cr, "white").await;
    let text = page(&mut c, &format!("/games/{cr}")).await;
    assert!(
        text.contains(&format!(
            "fairsteward player commit --game {cr} --seat white --turn 1 --move MOVE --save turn1.json"
        )),
        "{text}"
    );
    // A plain move from the form is refused with the reason.
    let p = white
        .post(&format!("/games/{id}/move"), &[("csrf", &csrf), ("seat", "white"), ("turn", "2"), ("move", "e5")])
        .await;
    assert_eq!(p.status, 403, "{}", p.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_mails_link_the_page_the_rules_and_the_private_link() {
    let server = Server::start().await;
    let (id, tokens) = create(&server, "fairschach", json!({})).await;
    server.mv(&id, &tokens[0], 1, "e4").await.ok(200);
    server.mv(&id, &tokens[1], 1, "e5").await.ok(200);
    let spool = spool(&server);
    let mails = common::eventually("the turn mails", || {
        let m: Vec<_> = common::spool_files(&spool)
            .into_iter()
            .filter(|(n, _)| n.starts_with(&format!("{id}.1.")) && n.contains(".turn"))
            .map(|(_, b)| common::parse_mail(&b))
            .collect();
        (m.len() == 2).then_some(m)
    })
    .await;
    for mail in mails.iter() {
        let text = &mail.body;
        assert!(text.contains(&format!("Game page: {}/games/{id}\n", server.base)), "{text}");
        assert!(text.contains(&format!("Rules for players: {}/games/{id}/rules\n", server.base)), "{text}");
        assert!(text.contains(&format!("{}/games/{id}#sign-in=", server.base)), "{text}");
        let html = unescape(&mail.text("text/html"));
        assert!(html.contains(&format!("href=\"{}/games/{id}#sign-in=", server.base)), "{html}");
        assert!(html.contains(&format!("href=\"{}/games/{id}/rules\"", server.base)), "{html}");
    }
    // Each seat's link is its own: white's does not sign black in.
    let white = sign_in_link(&spool, &id, "white").await;
    let black = sign_in_link(&spool, &id, "black").await;
    assert_ne!(white.rsplit('.').next(), black.rsplit('.').next());
    // The rules page explains the pairs.
    let mut b = Browser::new(&server);
    let rules = page(&mut b, &format!("/games/{id}/rules")).await;
    for words in ["first-move right", "struck", "paused", "pair"] {
        assert!(rules.contains(words), "{words}: {rules}");
    }
}
