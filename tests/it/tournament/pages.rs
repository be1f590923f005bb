//! The public tournament page: standings, crosstable, games with links.

use serde_json::json;

use super::play::{End, create, finish, players};
use crate::support::Server;

#[tokio::test]
async fn the_public_page_shows_standings_crosstable_and_games() {
    let s = Server::start().await;
    let mut ps = players(3, "pg");
    ps[0]["name"] = json!("<b>Ann</b>");
    let t = create(&s, json!({"name": "Open & friendly", "variant": "chess", "players": ps})).await;
    let g = t.seats.keys().next().unwrap().clone();
    finish(&s, &t, &g, End::Resign(0)).await;
    let page = s.get(&format!("/tournaments/{}", t.id), None).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.content_type.starts_with("text/html"));
    assert!(page.text.contains("Open &amp; friendly"), "{}", page.text);
    assert!(page.text.contains("&lt;b&gt;Ann"), "names are escaped");
    assert!(!page.text.contains("<b>Ann</b>"));
    assert!(page.text.contains("id=\"standings\"") && page.text.contains("id=\"crosstable\""));
    assert!(page.text.contains(&format!("href=\"/games/{g}\"")), "games link to their pages");
    assert!(page.text.contains("1 games finished"), "{}", page.text);
    assert!(!page.text.contains("example.org"), "no addresses on a public page");
    let missing = s.get("/tournaments/T000000", None).await;
    assert_eq!(missing.status, 404);
}

/// A score in half points as the page writes it: `1`, `½`, `1½`.
fn shown_half(h: u32) -> String {
    match (h / 2, h % 2) {
        (0, 1) => "½".into(),
        (w, 1) => format!("{w}½"),
        (w, _) => w.to_string(),
    }
}

/// A tie-break in quarter points as the page writes it: `2`, `2.25`, `2.5`.
fn shown_quarter(q: u32) -> String {
    match q % 4 {
        0 => (q / 4).to_string(),
        1 => format!("{}.25", q / 4),
        2 => format!("{}.5", q / 4),
        _ => format!("{}.75", q / 4),
    }
}

/// The public page in headless Chromium: the crosstable is shown, and the
/// standings' points and Sonneborn-Berger are those this test computes from
/// the games' results.
#[tokio::test]
async fn the_public_page_in_chromium_shows_the_right_numbers() {
    use crate::support::webdriver::Chromium;
    let s = Server::start().await;
    let t = create(&s, json!({"name": "Four in the park", "variant": "chess", "players": players(4, "cr")})).await;
    let games: Vec<String> = t.seats.keys().cloned().collect();
    let ends = [End::Resign(0), End::Draw, End::Resign(1), End::Mate];
    let mut halves = [0u32; 4];
    let mut results: Vec<(Vec<usize>, Vec<u32>)> = Vec::new();
    for (g, end) in games.iter().zip(ends) {
        let scores = finish(&s, &t, g, end).await;
        for (p, h) in t.seats[g].iter().zip(&scores) {
            halves[*p] += h;
        }
        results.push((t.seats[g].clone(), scores));
    }
    // Sonneborn-Berger in quarter points: one's score times the opponent's total.
    let mut sb = [0u32; 4];
    for (ps, sc) in &results {
        sb[ps[0]] += sc[0] * halves[ps[1]];
        sb[ps[1]] += sc[1] * halves[ps[0]];
    }
    let shots = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    let browser = Chromium::start(1000, 900, &shots).await;
    browser.open(&format!("{}/tournaments/{}", s.base, t.id)).await;
    browser.wait_for_text("Four in the park").await;
    browser.wait_for_text("4 games finished, 2 running").await;
    let visible = browser
        .script(
            "const r = document.querySelector('#crosstable').getBoundingClientRect(); return r.width > 0 && r.height > 0;",
            json!([]),
        )
        .await;
    assert_eq!(visible, json!(true), "the crosstable is shown");
    let rows = browser
        .script(
            "return [...document.querySelectorAll('#standings tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()));",
            json!([]),
        )
        .await;
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in rows {
        let cells: Vec<&str> = row.as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
        let p: usize = cells[1].trim_start_matches('P').parse().unwrap();
        assert_eq!(cells[2], shown_half(halves[p]), "points of P{p}: {cells:?}");
        assert_eq!(cells[3], shown_quarter(sb[p]), "Sonneborn-Berger of P{p}: {cells:?}");
        let played = results.iter().filter(|(ps, _)| ps.contains(&p)).count();
        assert_eq!(cells[5], played.to_string(), "{cells:?}");
    }
    let cross = browser
        .script(
            "return [...document.querySelectorAll('#crosstable tbody tr')].map(r => [...r.querySelectorAll('td')].map(c => c.textContent.trim()));",
            json!([]),
        )
        .await;
    for (ps, sc) in &results {
        let (a, b) = (ps[0], ps[1]);
        assert_eq!(cross[a][b], json!(shown_half(sc[0])), "{a} against {b}: {cross}");
        assert_eq!(cross[b][a], json!(shown_half(sc[1])), "{b} against {a}: {cross}");
    }
    browser.full_screenshot("tournament-public").await;
    s.shut_down().await;
}
