//! The pages in a real browser (issue 17): headless Chromium from Debian's
//! packages, driven over WebDriver by Debian's chromedriver (see
//! tests/common/webdriver.rs), on a phone's 360-pixel-wide window, against a
//! steward on a loopback port. The players open the private link of a spooled
//! board mail and play by clicking: a chess move (and one by keyboard),
//! castling along its path, a promotion by its choice, a resignation through
//! its confirmation, a Fairschach turn (while the first move is pending, the
//! spectator's page shows nothing of it), Vierschach moves from two sides. Screenshots are saved in `target/tmp/screenshots/` for a
//! person to look at.
//!
//! One browser runs the whole story, in order, so the suite starts Chromium
//! once (two cores are shared by everything).

mod common;

use common::Server;
use common::web::sign_in_link;
use common::webdriver::Chromium;
use serde_json::{Value, json};

const WIDTH: u32 = 360;
const HEIGHT: u32 = 780;

/// A game of `variant` between `<seat>.<tag>@example.org`s; its id and tokens.
async fn create(server: &Server, variant: &str, tag: &str) -> (String, Vec<String>) {
    let rules = variant
        .parse::<fairsteward::rules::VariantId>()
        .unwrap()
        .rulebook(&fairsteward::rules::Options::new())
        .unwrap();
    let seats: Vec<Value> = rules
        .seat_names()
        .iter()
        .map(|s| json!({"name": format!("{s} player"), "email": format!("{s}.{tag}@example.org")}))
        .collect();
    let created = server.post_json("/api/games", None, &json!({"variant": variant, "seats": seats})).await.ok(201);
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (created["game"]["id"].as_str().unwrap().to_owned(), tokens)
}

/// Opens `seat`'s private link from its board mails, as a new visitor, and
/// checks that the key is gone from the address bar and the history.
async fn sign_in(browser: &Chromium, server: &Server, id: &str, seat: &str) {
    let link = sign_in_link(&server.config.data_dir.join("spool"), id, seat).await;
    browser.clear_cookies().await;
    browser.open(&link).await;
    browser.wait_for_text(&format!("You play {seat}")).await;
    let key = link.rsplit('.').next().unwrap();
    let url = browser.url().await;
    assert!(!url.contains(key) && !url.contains("sign-in"), "the key stays in the address bar: {url}");
    assert_eq!(browser.document_cookie().await, "", "the session cookie is HttpOnly");
    // One step back is the link's own entry, the key taken out of it.
    browser.back().await;
    let before = browser.url().await;
    assert!(!before.contains(key), "the key is in the history: {before}");
    browser.open(&format!("{}/games/{id}", server.base)).await;
    browser.wait_for_text(&format!("You play {seat}")).await;
}

/// Clicks the cells `path` on the board, checks that each next cell lights up
/// as a target (or a cell on the way), and that the form then holds `expect`.
async fn click_move(browser: &Chromium, path: &[&str], expect: &str) {
    let hit = |c: &str| format!(".hit[data-cell=\"{c}\"]");
    browser.click(&hit(path[0])).await;
    for (i, cell) in path.iter().enumerate().skip(1) {
        let classes = browser.classes(&hit(cell)).await;
        assert!(
            classes.contains("target") || classes.contains("via"),
            "after clicking {:?}, {cell} is not lit: {classes}",
            &path[..i]
        );
        browser.click(&hit(cell)).await;
    }
    if !expect.is_empty() {
        assert_eq!(browser.value("#move-input").await, expect, "the move chosen by clicking {path:?}");
    }
}

/// Sends the move in the form and waits for the page that says it is in.
async fn send(browser: &Chromium) {
    browser.click("#send-move").await;
    browser.wait_for_text("Your move is in").await;
}

/// A screenshot of the board, scrolled into view, with what is lit on it.
async fn board_shot(browser: &Chromium, name: &str) {
    browser.script("document.getElementById('board').scrollIntoView();", json!([])).await;
    browser.screenshot(name).await;
}

/// Whether the page is no wider than the window (nothing to scroll sideways).
async fn fits_the_width(browser: &Chromium) -> bool {
    let w = browser.script("return document.documentElement.scrollWidth;", json!([])).await;
    w.as_u64().is_some_and(|w| w <= u64::from(WIDTH))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_play_by_clicking_in_chromium() {
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    let server = Server::start().await;
    let browser = Chromium::start(WIDTH, HEIGHT, &shots).await;

    // Chess: white opens the private link and plays e4 by clicking e2, then e4.
    let (chess, chess_tokens) = create(&server, "chess", "c").await;
    sign_in(&browser, &server, &chess, "white").await;
    assert!(fits_the_width(&browser).await, "the game page fits a 360-pixel phone");
    browser.screenshot("01-chess-white-to-move").await;
    browser.click(".hit[data-cell=\"g1\"]").await;
    board_shot(&browser, "01b-chess-knight-selected-targets-lit").await;
    browser.click(".hit[data-cell=\"g1\"]").await; // again: choose another piece
    click_move(&browser, &["e2", "e4"], "e2e4").await;
    browser.screenshot("02-chess-white-chose-e4").await;
    send(&browser).await;
    assert_eq!(server.game(&chess, None).await["history"][0]["moves"][0]["move"], "e4");
    browser.full_screenshot("03-chess-after-e4-whole-page").await;

    // Black, on its own side of the board, answers with the keyboard: Tab to
    // the pieces, Enter on e7, then on e5.
    sign_in(&browser, &server, &chess, "black").await;
    browser.script("document.querySelector('.hit[data-cell=\"e7\"]').focus();", json!([])).await;
    browser.press("\u{E007}").await;
    assert!(browser.classes(".hit[data-cell=\"e5\"]").await.contains("target"));
    browser.script("document.querySelector('.hit[data-cell=\"e5\"]').focus();", json!([])).await;
    browser.press("\u{E007}").await;
    assert_eq!(browser.value("#move-input").await, "e7e5");
    send(&browser).await;
    browser.screenshot("04-chess-black-after-e5").await;

    // Castling: the king's path passes f1; clicking e1 then g1 plays O-O.
    for (token, mv, turn) in [
        (&chess_tokens[0], "Nf3", 3),
        (&chess_tokens[1], "Nc6", 4),
        (&chess_tokens[0], "Bc4", 5),
        (&chess_tokens[1], "Bc5", 6),
    ] {
        server.mv(&chess, token, turn, mv).await.ok(200);
    }
    sign_in(&browser, &server, &chess, "white").await;
    browser.click(".hit[data-cell=\"e1\"]").await;
    assert!(browser.classes(".hit[data-cell=\"f1\"]").await.contains("target"), "Kf1 is a move too");
    board_shot(&browser, "05a-chess-king-selected-castling-lit").await;
    browser.click(".hit[data-cell=\"e1\"]").await;
    // Clicking through f1, where Kf1 ends and castling passes: both are
    // offered, and g1 goes on along the longer path.
    click_move(&browser, &["e1", "f1"], "").await;
    let offered = browser.text().await;
    assert!(offered.contains("Which move?") && offered.contains("Kf1") && offered.contains("O-O"), "{offered}");
    assert!(browser.classes(".hit[data-cell=\"g1\"]").await.contains("target"));
    browser.click(".hit[data-cell=\"g1\"]").await;
    assert_eq!(browser.value("#move-input").await, "e1g1");
    assert!(browser.text().await.contains("Chosen: O-O"), "{}", browser.text().await);
    browser.screenshot("05-chess-castling-chosen").await;
    send(&browser).await;

    // Resigning goes through its confirmation page.
    browser.click("#resign").await;
    browser.wait_for_text("Resign game").await;
    browser.screenshot("06-chess-resign-confirmation").await;
    assert!(server.game(&chess, None).await["outcome"].is_null(), "nothing happens before the confirmation");
    browser.click("#confirm-resign").await;
    browser.wait_for_text("The game is over: 0-1 (resignation)").await;
    browser.screenshot("07-chess-resigned").await;

    // A promotion is a choice: the pawn on b7 may take a8 or c8 or go to b8,
    // each as four pieces.
    let (promo, promo_tokens) = create(&server, "chess", "p").await;
    for (i, mv) in ["e4", "d5", "exd5", "c6", "dxc6", "Nf6", "cxb7", "Nbd7"].iter().enumerate() {
        server.mv(&promo, &promo_tokens[i % 2], i as u32 + 1, mv).await.ok(200);
    }
    sign_in(&browser, &server, &promo, "white").await;
    click_move(&browser, &["b7", "a8"], "").await;
    let choices = browser.text().await;
    for piece in ["bxa8=Q", "bxa8=R", "bxa8=B", "bxa8=N"] {
        assert!(choices.contains(piece), "{piece} is offered: {choices}");
    }
    browser.screenshot("08-chess-promotion-choice").await;
    browser.click("#choices button[data-move=\"b7a8n\"]").await;
    assert_eq!(browser.value("#move-input").await, "b7a8n");
    send(&browser).await;
    assert_eq!(server.game(&promo, None).await["history"][8]["moves"][0]["move"], "bxa8=N");

    // Fairschach: white moves first; the spectator's page shows nothing of it.
    let (fs, _) = create(&server, "fairschach", "f").await;
    sign_in(&browser, &server, &fs, "white").await;
    click_move(&browser, &["g1", "h3"], "g1h3").await;
    send(&browser).await;
    assert!(browser.text().await.contains("Your move for turn 1 is in: Nh3"), "{}", browser.text().await);
    browser.screenshot("09-fairschach-white-pending").await;
    browser.clear_cookies().await;
    browser.open(&format!("{}/games/{fs}", server.base)).await;
    browser.wait_for_text("Waiting for black").await;
    let spectator = browser.source().await;
    for secret in ["Nh3", "g1h3"] {
        assert!(!spectator.contains(secret), "the spectator's page shows {secret}: {spectator}");
    }
    assert!(browser.text().await.contains("moved"), "the spectator sees that white moved");
    browser.full_screenshot("10-fairschach-spectator-while-pending").await;
    // Black completes the pair by clicking; both moves show with their statuses.
    sign_in(&browser, &server, &fs, "black").await;
    click_move(&browser, &["g8", "h6"], "g8h6").await;
    browser.click("#send-move").await;
    browser.wait_for_text("it completed the turn").await;
    let text = browser.text().await;
    assert!(text.contains("Nh3") && text.contains("played") && text.contains("Paused"), "{text}");
    browser.full_screenshot("11-fairschach-pair-played").await;
    assert!(fits_the_width(&browser).await, "the Fairschach page fits a 360-pixel phone");

    // Four seats: South plays d2-d4 by clicking; West, its board turned a
    // quarter, answers b7-d7.
    let (vs, _) = create(&server, "vierschach", "v").await;
    sign_in(&browser, &server, &vs, "south").await;
    click_move(&browser, &["d2", "d4"], "d2-d4").await;
    send(&browser).await;
    board_shot(&browser, "13-vierschach-south-after-d4").await;
    sign_in(&browser, &server, &vs, "west").await;
    click_move(&browser, &["b7", "d7"], "b7-d7").await;
    board_shot(&browser, "14-vierschach-west-chose-b7-d7").await;
    send(&browser).await;
    let history = server.game(&vs, None).await["history"].clone();
    assert_eq!(
        (history[0]["moves"][0]["move"].as_str(), history[1]["moves"][0]["move"].as_str()),
        (Some("d4"), Some("d7")),
        "{history}"
    );
    assert!(fits_the_width(&browser).await, "the four-seat page fits a 360-pixel phone");

    // A link followed from another site (a webmail's "Game page"): the
    // SameSite=Strict session cookie stays back on that first request; the page
    // reloads itself once, from the steward's own site, and has it.
    sign_in(&browser, &server, &fs, "black").await;
    browser.open(&format!("data:text/html,<a id=\"go\" href=\"{}/games/{fs}\">the game</a>", server.base)).await;
    browser.click("#go").await;
    browser.wait_for_text("You play black").await;

    // The same pages on a wide screen.
    let mut wide = browser;
    wide.window(1280, 900).await;
    wide.open(&format!("{}/games/{fs}", server.base)).await;
    wide.wait_for_text("You play black").await;
    wide.screenshot("12-fairschach-wide").await;
    println!("screenshots in {}", shots.display());
}
