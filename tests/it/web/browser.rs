//! The pages in a real browser (issue 17): headless Chromium from Debian's
//! packages, driven over WebDriver by Debian's chromedriver (see
//! tests/it/support/webdriver.rs), on a phone's 360-pixel-wide window, against a
//! steward on a loopback port. The players open the private link of a spooled
//! board mail and play by clicking: a chess move (and one by keyboard),
//! castling along its path, a promotion by its choice, a resignation through
//! its confirmation, a Fairschach turn (while the first move is pending, the
//! spectator's page shows nothing of it), Vierschach moves from two sides;
//! Dreierschach moves by each of its three seats on hexagons; 3D chess moves
//! to a chosen level and an attack board carried by its buttons; Trialectic
//! Dame jumps clicked along their paths, one sequence chosen of several, and a
//! placement. Screenshots are saved in `target/tmp/screenshots/` for a person
//! to look at.
//!
//! One browser runs the whole story, in order, so the suite starts Chromium
//! once (two cores are shared by everything).

use crate::support as common;

use common::Server;
use common::web::sign_in_link;
use common::webdriver::Chromium;
use serde_json::{Value, json};

const WIDTH: u32 = 360;
const HEIGHT: u32 = 780;

/// A game of `variant` between `<seat>.<tag>@example.org`s; its id and tokens.
async fn create(server: &Server, variant: &str, tag: &str) -> (String, Vec<String>) {
    create_with(server, variant, tag, json!({})).await
}

/// A game of `variant` with `options`, as [`create`].
async fn create_with(server: &Server, variant: &str, tag: &str, options: Value) -> (String, Vec<String>) {
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
    let created = server
        .post_json("/api/games", None, &json!({"variant": variant, "options": options, "seats": seats}))
        .await
        .ok(201);
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

/// Plays `moves` through the API, one a turn from `first_turn` on, each by
/// the seat the game says is to move.
async fn play_api(server: &Server, id: &str, tokens: &[String], first_turn: u32, moves: &[&str]) {
    for (i, mv) in moves.iter().enumerate() {
        let game = server.game(id, None).await;
        let seats: Vec<&str> = game["seats"].as_array().unwrap().iter().map(|s| s["seat"].as_str().unwrap()).collect();
        let to_move = game["to_move"][0].as_str().unwrap_or_else(|| panic!("nobody to move before {mv}: {game}"));
        let seat = seats.iter().position(|s| *s == to_move).unwrap();
        server.mv(id, &tokens[seat], first_turn + i as u32, mv).await.ok(200);
    }
}

/// The last move of the game's record, as the steward wrote it.
async fn last_move(server: &Server, id: &str) -> String {
    let game = server.game(id, None).await;
    let history = game["history"].as_array().unwrap();
    history.last().and_then(|t| t["moves"][0]["move"].as_str()).unwrap_or_default().to_owned()
}

/// Whether the cell `cell` is lit with `class` (a target, a cell on the way).
async fn lit(browser: &Chromium, cell: &str, class: &str) -> bool {
    browser.classes(&format!(".hit[data-cell=\"{cell}\"]")).await.split_whitespace().any(|c| c == class)
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
    assert!(browser.text().await.contains("Your move 1. is in: Nh3"), "{}", browser.text().await);
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
        (Some("d2-d4"), Some("b7-d7")),
        "{history}"
    );
    assert!(fits_the_width(&browser).await, "the four-seat page fits a 360-pixel phone");

    // Dreierschach: each of the three seats moves by clicking hexagons, from
    // its own side of the board (Brown's and Black's views are turned by a
    // third of a turn each).
    let (ds, _) = create(&server, "dreierschach", "d").await;
    for (seat, from, to, shot) in [
        ("white", "b4", "d4", "15-dreierschach-white-chose-b4-d4"),
        ("brown", "f2", "f4", "16-dreierschach-brown-chose-f2-f4"),
        ("black", "h12", "h10", "17-dreierschach-black-chose-h12-h10"),
    ] {
        sign_in(&browser, &server, &ds, seat).await;
        assert!(fits_the_width(&browser).await, "the Dreierschach page fits a 360-pixel phone");
        browser.click(&format!(".hit[data-cell=\"{from}\"]")).await;
        assert!(lit(&browser, to, "target").await, "{seat}: {to} is lit after clicking {from}");
        board_shot(&browser, &format!("{shot}-targets")).await;
        browser.click(&format!(".hit[data-cell=\"{from}\"]")).await;
        click_move(&browser, &[from, to], &format!("{from}-{to}")).await;
        board_shot(&browser, shot).await;
        send(&browser).await;
    }
    let history = server.game(&ds, None).await["history"].clone();
    let played: Vec<&str> = (0..3).filter_map(|i| history[i]["moves"][0]["move"].as_str()).collect();
    assert_eq!(played.len(), 3, "three moves, one by each seat: {history}");
    browser.full_screenshot("18-dreierschach-after-three-moves-whole-page").await;

    // 3D chess: the pawn on c2W may go to the c3 column on two levels, W and
    // N; both light up, each in its own board's panel, and the click picks one.
    let (td, td_tokens) = create(&server, "tri-d-chess", "t").await;
    sign_in(&browser, &server, &td, "white").await;
    assert!(fits_the_width(&browser).await, "the 3D chess page fits a 360-pixel phone");
    browser.click(".hit[data-cell=\"c2W\"]").await;
    for level in ["c3W", "c3N", "c4W", "c4N"] {
        assert!(lit(&browser, level, "target").await, "{level} is lit after clicking c2W");
    }
    board_shot(&browser, "19-tri-d-pawn-selected-levels-lit").await;
    browser.click(".hit[data-cell=\"c3N\"]").await;
    assert_eq!(browser.value("#move-input").await, "c2W-c3N");
    board_shot(&browser, "20-tri-d-chose-c3N").await;
    send(&browser).await;
    assert_eq!(last_move(&server, &td).await, "c3N");
    // An attack board is taken hold of by its squares: Black's board on QL6
    // carries its rook; clicking the rook lights the rook's moves and offers
    // the board's moves as buttons, clicking an empty square of the board
    // offers those only.
    play_api(
        &server,
        &td,
        &td_tokens,
        2,
        &[
            "d5N",
            "O-O",
            "d8KL6-d6n",
            "b3N",
            "Sc6N",
            "Ba3N",
            "b6S",
            "Bxd6N",
            "c7B-c6B",
            "Bb8",
            "a7Ba5B",
            "Bxa9DP6",
            "a6B",
            "Bxz8QL6",
            "d4W",
            "Bxb6B",
            "Ba6N",
            "Bxe9kp6",
        ],
    )
    .await;
    sign_in(&browser, &server, &td, "black").await;
    browser.click(".hit[data-cell=\"z9QL6\"]").await;
    assert!(lit(&browser, "z8QL6", "target").await, "the rook's own moves light up");
    let offered = browser.text().await;
    assert!(offered.contains("Or:") && offered.contains("QL6-QL4") && offered.contains("QL6-QL5"), "{offered}");
    board_shot(&browser, "21-tri-d-black-rook-and-its-board").await;
    browser.click(".hit[data-cell=\"a8QL6\"]").await;
    let offered = browser.text().await;
    assert!(offered.contains("Which move?") && offered.contains("QL6-QL4"), "{offered}");
    browser.click("#choices button[data-move=\"QL6-QL4\"]").await;
    assert_eq!(browser.value("#move-input").await, "QL6-QL4");
    board_shot(&browser, "22-tri-d-black-chose-board-move").await;
    send(&browser).await;
    assert_eq!(last_move(&server, &td).await, "QL6-QL4");
    board_shot(&browser, "23-tri-d-black-after-board-move").await;

    // Trialectic Dame: after yellow's 135-225 (by clicking), red must take
    // twice, 315x135x117: clicked along its path, the landing on the way lit.
    let (dame, _) = create(&server, "trialectic-dame", "m").await;
    sign_in(&browser, &server, &dame, "yellow").await;
    assert!(fits_the_width(&browser).await, "the Trialectic Dame page fits a 360-pixel phone");
    click_move(&browser, &["135", "225"], "135-225").await;
    send(&browser).await;
    sign_in(&browser, &server, &dame, "red").await;
    browser.click(".hit[data-cell=\"315\"]").await;
    assert!(lit(&browser, "135", "via").await && lit(&browser, "117", "target").await);
    board_shot(&browser, "24-dame-red-jump-path-lit").await;
    browser.click(".hit[data-cell=\"315\"]").await;
    click_move(&browser, &["315", "135", "117"], "315x135x117").await;
    board_shot(&browser, "25-dame-red-chose-double-jump").await;
    send(&browser).await;
    assert_eq!(last_move(&server, &dame).await, "315x135x117");

    // Several sequences from one stone: red chooses the longest of three that
    // share their first landings, by clicking each landing in turn.
    let (several, several_tokens) = create(&server, "trialectic-dame", "s").await;
    play_api(&server, &several, &several_tokens, 1, &["153-243", "414-423", "531-432", "135-225"]).await;
    sign_in(&browser, &server, &several, "red").await;
    browser.click(".hit[data-cell=\"315\"]").await;
    for (cell, class) in [("117", "target"), ("171", "target"), ("711", "target"), ("153", "via"), ("333", "via")] {
        assert!(lit(&browser, cell, class).await, "{cell} is lit as {class} after clicking 315");
    }
    board_shot(&browser, "26-dame-three-sequences-lit").await;
    browser.click(".hit[data-cell=\"315\"]").await;
    click_move(&browser, &["315", "135", "153", "333", "531", "711"], "315x135x153x333x531x711").await;
    send(&browser).await;
    assert_eq!(last_move(&server, &several).await, "315x135x153x333x531x711");
    // The same cells in two orders: yellow's stone on 234 may take round 414
    // then 432, or 432 then 414, ending where it began; the order clicked
    // decides.
    let (ring, ring_tokens) = create(&server, "trialectic-dame", "r").await;
    play_api(&server, &ring, &ring_tokens, 1, &["135-234", "414-423", "441-342", "144-135", "315-324", "342-333"])
        .await;
    sign_in(&browser, &server, &ring, "yellow").await;
    click_move(&browser, &["234", "432", "414", "234"], "234x432x414x234").await;
    board_shot(&browser, "27-dame-ring-chosen").await;
    send(&browser).await;
    assert_eq!(last_move(&server, &ring).await, "234x432x414x234");
    // Setup 2: the first turn places a stone with one click.
    let (placed, _) = create_with(&server, "trialectic-dame", "p", json!({"setup": "2"})).await;
    sign_in(&browser, &server, &placed, "yellow").await;
    assert!(browser.text().await.contains("Click the cell where your piece goes"));
    browser.click(".hit[data-cell=\"333\"]").await;
    assert_eq!(browser.value("#move-input").await, "@333");
    board_shot(&browser, "28-dame-placement-chosen").await;
    send(&browser).await;
    assert_eq!(last_move(&server, &placed).await, "@333");

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
    for (id, seat, name) in [(&ds, "brown", "29-dreierschach-brown-wide"), (&td, "white", "30-tri-d-white-wide")] {
        sign_in(&wide, &server, id, seat).await;
        wide.screenshot(name).await;
    }
    println!("screenshots in {}", shots.display());
}
