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
