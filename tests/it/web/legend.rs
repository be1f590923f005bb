//! Issue 32, point 6 (slice P): every game's options as applied, defaults
//! included, on the game page and in the API, and the legend under the text
//! board of every game's start mail; over HTTP on a real socket, mails from
//! the steward's real spool.

use crate::support as common;

use common::{Server, eventually, parse_mail, spool_files};
use fairsteward::rules::{Options, VariantId};
use serde_json::{Value, json};

/// A game of `variant` with `options`; its id.
async fn create(server: &Server, variant: VariantId, options: Value, n: usize) -> String {
    let rules = variant.rulebook(&Options::new()).unwrap();
    let seats: Vec<Value> = rules
        .seat_names()
        .iter()
        .map(|s| json!({"name": format!("Player {s}"), "email": format!("{s}.legend{n}@example.org")}))
        .collect();
    let created = server
        .post_json("/api/games", None, &json!({"variant": variant.name(), "options": options, "seats": seats}))
        .await
        .ok(201);
    created["game"]["id"].as_str().unwrap().to_owned()
}

/// HTML text with minijinja's escapes undone.
fn unescape(html: &str) -> String {
    html.replace("&#x2f;", "/").replace("&quot;", "\"").replace("&#x27;", "'").replace("&amp;", "&")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_shows_its_options_and_a_legend_under_its_text_board() {
    let server = Server::start().await;
    let spool = server.config.data_dir.join("spool");
    for (n, variant) in VariantId::ALL.into_iter().enumerate() {
        let id = create(&server, variant, json!({}), n).await;
        let rules = variant.rulebook(&Options::new()).unwrap();
        // The API: every option, defaults included.
        let game = server.get(&format!("/api/games/{id}"), None).await.ok(200);
        let listed = game["effective_options"].as_object().unwrap();
        for (name, value) in rules.effective_options() {
            assert_eq!(listed[name], Value::from(value.clone()), "{variant}: {name}");
        }
        assert_eq!(listed.len(), rules.effective_options().len(), "{variant}");
        // The page: each option and its value under "Options".
        let page = server.get(&format!("/games/{id}"), None).await;
        assert_eq!(page.status, 200, "{}", page.text);
        let page = unescape(&page.text);
        for (name, value) in rules.effective_options() {
            let shown = format!("<code>{name}</code> = <code>{value}</code>");
            assert!(page.contains(&shown), "{variant}: {shown} not on the page");
        }
        assert_eq!(
            page.contains("<h3 id=\"options\">Options</h3>"),
            !rules.effective_options().is_empty(),
            "{variant}"
        );
        // The start mail: the legend under the text board.
        let legend = rules.legend();
        let body = eventually(&format!("the start mails of {id}"), || {
            spool_files(&spool)
                .into_iter()
                .filter(|(name, _)| name.starts_with(&id))
                .map(|(_, bytes)| parse_mail(&bytes).body)
                .find(|body| body.contains("has begun"))
        })
        .await;
        for line in &legend {
            assert!(body.contains(&format!("    {line}")), "{variant}: legend line {line:?} not in\n{body}");
        }
    }
    // A default the game was created without, and one it was given.
    let teams = create(&server, VariantId::Vierschach, json!({}), 90).await;
    let page = unescape(&server.get(&format!("/games/{teams}"), None).await.text);
    assert!(page.contains("<code>mode</code> = <code>teams</code> <span class=\"small\">(default)</span>"), "{page}");
    let ffa = create(&server, VariantId::Vierschach, json!({"mode": "ffa"}), 91).await;
    let page = unescape(&server.get(&format!("/games/{ffa}"), None).await.text);
    assert!(page.contains("<code>mode</code> = <code>ffa</code></li>"), "{page}");
    assert!(page.contains("<code>mated</code> = <code>remove</code> <span class=\"small\">(default)</span>"), "{page}");
}
