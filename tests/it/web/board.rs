//! The board pictures over HTTP: `GET /api/games/{id}/board.svg` and `board.png`.
//!
//! Each test starts its own steward (`fairsteward::server::serve` on a loopback
//! port, with its own temporary data directory), plays through the real API and
//! reads the pictures as a browser or a mail client would.

use crate::support as common;

use common::{Answer, Server};
use resvg::{tiny_skia, usvg};
use serde_json::json;

impl Answer {
    /// The SVG of a 200 answer, checked to be one usvg reads.
    #[track_caller]
    fn svg(&self) -> String {
        assert_eq!(self.status, 200, "{}", self.text);
        assert_eq!(self.content_type, "image/svg+xml");
        // A board changes: never cached stale; with a seat's token, never kept (issue 29).
        assert!(matches!(self.cache_control.as_str(), "no-cache" | "no-store"), "{}", self.cache_control);
        let svg = String::from_utf8(self.body.clone()).expect("SVG is UTF-8");
        usvg::Tree::from_str(&svg, &usvg::Options::default()).unwrap_or_else(|e| panic!("invalid SVG ({e})"));
        svg
    }

    /// The decoded PNG of a 200 answer.
    #[track_caller]
    fn png(&self) -> tiny_skia::Pixmap {
        assert_eq!(self.status, 200, "{}", self.text);
        assert_eq!(self.content_type, "image/png");
        assert_eq!(&self.body[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
        tiny_skia::Pixmap::decode_png(&self.body).expect("a PNG that decodes")
    }
}

/// A created game: its id and the seat tokens.
struct Game {
    id: String,
    tokens: Vec<String>,
}

/// This file's own helpers on the shared harness: a local trait, since an
/// inherent `impl Server` would clash with other modules' of the same names.
trait Games {
    async fn create(&self, variant: &str) -> Game;
    async fn play(&self, game: &Game, seat: usize, turn: u32, text: &str);
}

impl Games for Server {
    async fn create(&self, variant: &str) -> Game {
        let body = json!({"variant": variant, "seats": [
            {"name": "Alice", "email": "alice@example.org"},
            {"name": "Bob", "email": "bob@example.org"},
        ]});
        let created = self.post_json("/api/games", None, &body).await.ok(201);
        Game {
            id: created["game"]["id"].as_str().unwrap().to_owned(),
            tokens: created["tokens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["token"].as_str().unwrap().to_owned())
                .collect(),
        }
    }

    async fn play(&self, game: &Game, seat: usize, turn: u32, text: &str) {
        let a = self.mv(&game.id, &game.tokens[seat], turn, text).await;
        assert_eq!(a.status, 200, "move {text}: {}", a.text);
    }
}

fn count(svg: &str, class: &str) -> usize {
    svg.matches(&format!("class=\"{class}")).count()
}

#[tokio::test]
async fn a_fairschach_pair_shows_its_moves_and_pauses() {
    let server = Server::start().await;
    let game = server.create("fairschach").await;
    let board = |query: &str| format!("/api/games/{}/board.svg{query}", game.id);

    // The start: both seats owe a move, nothing moved, nothing paused.
    let svg = server.get(&board(""), None).await.svg();
    assert!(!svg.contains("<text"), "no fonts: everything is paths");
    assert_eq!(count(&svg, "to-move"), 2);
    assert_eq!((count(&svg, "arrow"), count(&svg, "last-move"), count(&svg, "marked")), (0, 0, 0));

    server.play(&game, 0, 1, "e4").await;
    // A pending move never shows.
    assert_eq!(server.get(&board(""), None).await.svg(), svg);
    server.play(&game, 1, 1, "d5").await;

    // docs/rules/fairschach.md §5: e4 and d5 are paused in the next pair.
    let svg = server.get(&board(""), None).await.svg();
    assert_eq!(count(&svg, "arrow"), 2, "e2-e4 and d7-d5");
    assert_eq!(count(&svg, "last-move"), 4, "e2, e4, d7, d5 tinted");
    assert_eq!(count(&svg, "marked"), 2, "e4 and d5 paused");
    assert_eq!(count(&svg, "to-move"), 2);

    // Black's side is the board turned; white's and the default are the same.
    let black = server.get(&board("?seat=black"), None).await.svg();
    assert_ne!(black, svg);
    assert_eq!(server.get(&board("?seat=2"), None).await.svg(), black);
    assert_eq!(server.get(&board("?seat=White"), None).await.svg(), svg);

    let png = server.get(&format!("/api/games/{}/board.png", game.id), None).await.png();
    assert_eq!((png.width(), png.height()), (640, 640));
    let png = server.get(&format!("/api/games/{}/board.png?seat=black&size=300", game.id), None).await.png();
    assert_eq!((png.width(), png.height()), (300, 300));
}

#[tokio::test]
async fn a_chess_move_shows_one_arrow_and_the_other_seat_to_move() {
    let server = Server::start().await;
    let game = server.create("chess").await;
    server.play(&game, 0, 1, "e4").await;
    let svg = server.get(&format!("/api/games/{}/board.svg", game.id), None).await.svg();
    assert_eq!(count(&svg, "arrow"), 1);
    assert_eq!(count(&svg, "to-move seat-2"), 1, "black to move");
    assert_eq!(count(&svg, "to-move"), 1);

    // Once the game is over nobody is to move; the last move stays marked.
    let resp = server
        .client
        .post(format!("{}/api/games/{}/resign", server.base, game.id))
        .header("Authorization", format!("Bearer {}", game.tokens[1]))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let svg = server.get(&format!("/api/games/{}/board.svg", game.id), None).await.svg();
    assert_eq!((count(&svg, "to-move"), count(&svg, "arrow")), (0, 1));
}

#[tokio::test]
async fn bad_requests_get_json_errors() {
    let server = Server::start().await;
    let game = server.create("fairschach").await;
    for path in ["/api/games/ZZZZZZ/board.svg", "/api/games/ZZZZZZ/board.png", "/api/games/not-an-id/board.png"] {
        server.get(path, None).await.error(404, "unknown_game");
    }
    let message =
        server.get(&format!("/api/games/{}/board.svg?seat=green", game.id), None).await.error(400, "bad_request");
    assert!(message.contains("white, black"), "{message}");
    server.get(&format!("/api/games/{}/board.png?size=10", game.id), None).await.error(400, "bad_request");
    server.get(&format!("/api/games/{}/board.png?size=big", game.id), None).await.error(400, "bad_request");
    server.get(&format!("/api/games/{}/board.svg?size=300", game.id), None).await.error(400, "bad_request");
    server.get(&format!("/api/games/{}/board.svg?colour=blue", game.id), None).await.error(400, "bad_request");
}
