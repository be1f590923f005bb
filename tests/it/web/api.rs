//! The HTTP API over a real socket.
//!
//! Each test starts its own steward (`fairsteward::server::serve` on a loopback
//! port, with its own temporary data directory) and talks to it with reqwest as
//! a player would. The secrecy test of the log runs the real binary as a child
//! process. Expected positions and statuses come from `docs/rules/fairschach.md` and
//! were cross-checked with `fairsteward rules fairschach resolve`.

use crate::support as common;

use std::path::PathBuf;

use common::backend::{Cell, Db};
use common::{Answer, MAIL_DOMAIN, Server, Steward, eventually, parse_mail, spool_files};
use serde_json::{Value, json};

const FS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1";
const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// Fairschach after the pair e4/d5 from the start (pause `moved`).
const FS_E4_D5: &str = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2";
// ---------------------------------------------------------------------------
// Games on the steward of tests/it/support
// ---------------------------------------------------------------------------

/// The seat tokens of a created game.
#[derive(Clone, Debug)]
struct Game {
    id: String,
    white: String,
    black: String,
}

fn seats() -> Value {
    json!([
        {"name": "Alice", "email": "alice@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
    ])
}

impl Server {
    async fn create_raw(&self, body: &Value) -> Answer {
        self.post_json("/api/games", None, body).await
    }

    /// Creates a game and returns its id and tokens (checked in detail elsewhere).
    async fn create(&self, variant: &str, options: Value) -> Game {
        let created = self.create_raw(&json!({"variant": variant, "options": options, "seats": seats()})).await.ok(201);
        Game {
            id: created["game"]["id"].as_str().unwrap().to_owned(),
            white: created["tokens"][0]["token"].as_str().unwrap().to_owned(),
            black: created["tokens"][1]["token"].as_str().unwrap().to_owned(),
        }
    }

    /// A move that must be accepted; returns the receipt.
    async fn play(&self, id: &str, token: &str, turn: u32, text: &str) -> Value {
        let a = self.mv(id, token, turn, text).await;
        assert_eq!(a.status, 200, "move {text} for turn {turn} refused: {}", a.text);
        a.json()
    }

    async fn draw(&self, id: &str, token: &str, body: &str) -> Answer {
        self.post(&format!("/api/games/{id}/draw"), Some(token), body).await
    }

    async fn transcript(&self, id: &str) -> Answer {
        self.get(&format!("/api/games/{id}/transcript"), None).await
    }
}

/// Every text (and blob, read as text) cell of the `outbox` table, and the
/// decoded body of every message still queued (quoted-printable may split a word).
fn outbox_texts(db: &Db) -> Vec<String> {
    let mut out = Vec::new();
    for row in db.rows("SELECT * FROM outbox", &[]) {
        for cell in row {
            if let Cell::Text(_) | Cell::Bytes(_) = cell {
                out.push(without_images(&String::from_utf8_lossy(&cell.bytes())));
            }
        }
    }
    let bodies: Vec<Vec<u8>> = db.rows("SELECT message FROM outbox", &[]).iter().map(|r| r[0].bytes()).collect();
    // A delivered mail's bytes are dropped from its row.
    out.extend(bodies.iter().filter(|m| !m.is_empty()).map(|m| parse_mail(m).all_text()));
    out
}

/// `text` (a raw mail, or any text) with the base64 body of every image part
/// replaced by `[image]`: a board picture is not text, and its base64 may spell
/// anything by chance. The decoded text parts are checked as well.
fn without_images(text: &str) -> String {
    let (mut out, mut rest) = (String::new(), text);
    while let Some(i) = rest.find("Content-Type: image/") {
        let body = rest[i..].find("\r\n\r\n").map_or(rest.len(), |j| i + j + 4);
        let end = rest[body..].find("\r\n--").map_or(rest.len(), |j| body + j);
        out.push_str(&rest[..body]);
        out.push_str("[image]");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Counts the outbox rows not yet sent.
fn unsent_mail(db: &Db) -> i64 {
    db.count("SELECT count(*) FROM outbox WHERE sent_at IS NULL", &[])
}

// ---------------------------------------------------------------------------
// 1. Creating games
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_fairschach_game_returns_201_with_one_token_per_seat() {
    let s = Server::start().await;
    let a = s.create_raw(&json!({"variant": "fairschach", "seats": seats()})).await;
    let created = a.ok(201);
    let game = &created["game"];
    let id = game["id"].as_str().unwrap();
    assert_eq!(id.len(), 6, "six characters: {id}");
    assert!(id.bytes().all(|b| b"0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains(&b)), "Crockford base 32: {id}");
    assert_eq!(game["variant"], "fairschach");
    assert_eq!(game["options"], json!({}));
    assert_eq!(game["state"], FS_START);
    assert_eq!(game["turn"], 1);
    assert_eq!(game["to_move"], json!(["white", "black"]));
    assert_eq!(game["moved"], json!([]));
    assert_eq!(game["outcome"], Value::Null);
    assert_eq!(game["history"], json!([]));
    assert_eq!(game["seats"][0]["seat"], "white");
    assert_eq!(game["seats"][0]["player"], "Alice");
    assert_eq!(game["seats"][1]["seat"], "black");
    assert_eq!(game["seats"][1]["player"], "Bob");

    let tokens = created["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2, "one token per seat: {created}");
    assert_eq!(tokens[0]["seat"], "white");
    assert_eq!(tokens[0]["player"], "Alice");
    assert_eq!(tokens[1]["seat"], "black");
    assert_eq!(tokens[1]["player"], "Bob");
    let (t0, t1) = (tokens[0]["token"].as_str().unwrap(), tokens[1]["token"].as_str().unwrap());
    assert_ne!(t0, t1);
    for t in [t0, t1] {
        assert_eq!(t.len(), 64, "32 random bytes in hex: {t}");
        assert!(t.bytes().all(|b| b.is_ascii_hexdigit()));
    }
    // The tokens are shown only this once: the game page does not carry them.
    let page = s.get(&format!("/api/games/{id}"), None).await;
    assert_eq!(page.status, 200);
    assert!(!page.text.contains(t0) && !page.text.contains(t1), "tokens leak into the game page: {}", page.text);
    // Each token works for its seat.
    let r = s.play(id, t1, 1, "e5").await;
    assert_eq!(r["seat"], "black");

    // Options are kept; a second game gets another id.
    let with_options = s
        .create_raw(
            &json!({"variant": "Fairschach", "options": {"pause": "capturable", "normal_below": 6}, "seats": seats()}),
        )
        .await
        .ok(201);
    assert_eq!(with_options["game"]["variant"], "fairschach");
    assert_eq!(with_options["game"]["options"], json!({"normal_below": "6", "pause": "capturable"}));
    assert_ne!(with_options["game"]["id"], created["game"]["id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_chess_game_returns_201_with_white_to_move() {
    let s = Server::start().await;
    // A public key that is not 32 bytes of base64 is refused, naming the seat.
    let bad_key = json!([
        {"name": "Carol", "email": "carol@example.org", "public_key": "MCowBQYDK2VwAyEA"},
        {"name": "Dan", "email": "dan@example.org"},
    ]);
    let m = s.create_raw(&json!({"variant": "chess", "seats": bad_key})).await.error(400, "bad_request");
    assert!(m.contains("seat 1 (white)") && m.contains("public key"), "{m}");
    let key = fairsteward::protocol::PlayerKey::generate().public_key_base64();
    let seats_with_key = json!([
        {"name": "  Carol ", "email": "carol@example.org", "public_key": key},
        {"name": "Dan", "email": "dan@example.org"},
    ]);
    let created = s.create_raw(&json!({"variant": "chess", "seats": seats_with_key})).await.ok(201);
    let game = &created["game"];
    assert_eq!(game["variant"], "chess");
    assert_eq!(game["state"], CHESS_START);
    assert_eq!(game["turn"], 1);
    assert_eq!(game["to_move"], json!(["white"]));
    assert_eq!(game["seats"][0]["player"], "Carol", "names are trimmed");
    assert_eq!(game["seats"][0]["owes_move"], true);
    assert_eq!(game["seats"][1]["owes_move"], false);
    let tokens = created["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[0]["seat"], "white");
    assert_eq!(tokens[1]["seat"], "black");
    assert_ne!(tokens[0]["token"], tokens[1]["token"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_with_a_bad_body_is_400_with_a_helpful_message() {
    let s = Server::start().await;
    // Not JSON at all.
    let m = s.post("/api/games", None, "variant=fairschach").await.error(400, "bad_request");
    assert!(m.contains("not valid") && m.contains("send JSON like"), "{m}");
    assert!(m.contains("\"seats\""), "the example shows the seats: {m}");
    // Empty body.
    s.post("/api/games", None, "").await.error(400, "bad_request");
    // Seats missing.
    let m = s.create_raw(&json!({"variant": "fairschach"})).await.error(400, "bad_request");
    assert!(m.contains("seats"), "{m}");
    // A field the API does not know.
    let m = s
        .create_raw(&json!({"variant": "fairschach", "seats": seats(), "colour": "white"}))
        .await
        .error(400, "bad_request");
    assert!(m.contains("colour"), "{m}");
    // A seat without an email.
    let m = s
        .create_raw(&json!({"variant": "chess", "seats": [{"name": "A"}, {"name": "B"}]}))
        .await
        .error(400, "bad_request");
    assert!(m.contains("email"), "{m}");
    // Wrong types.
    s.create_raw(&json!({"variant": 7, "seats": seats()})).await.error(400, "bad_request");
    s.create_raw(&json!([1, 2])).await.error(400, "bad_request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_with_an_unknown_variant_bad_option_or_wrong_seats_is_400() {
    let s = Server::start().await;
    let m = s.create_raw(&json!({"variant": "xiangqi", "seats": seats()})).await.error(400, "bad_request");
    assert!(m.contains("unknown variant") && m.contains("xiangqi") && m.contains("chess, fairschach"), "{m}");

    let m = s
        .create_raw(&json!({"variant": "fairschach", "options": {"pause": "sometimes"}, "seats": seats()}))
        .await
        .error(400, "bad_request");
    assert!(m.contains("pause") && m.contains("sometimes") && m.contains("moved, capturable or off"), "{m}");

    let m = s
        .create_raw(&json!({"variant": "fairschach", "options": {"pawse": "off"}, "seats": seats()}))
        .await
        .error(400, "bad_request");
    assert!(m.contains("pawse") && m.contains("pause") && m.contains("normal_below"), "{m}");

    let m = s
        .create_raw(&json!({"variant": "chess", "options": {"pause": "off"}, "seats": seats()}))
        .await
        .error(400, "bad_request");
    assert!(m.contains("chess has no option") && m.contains("pause"), "{m}");

    let m = s
        .create_raw(&json!({"variant": "fairschach", "options": {"pause": ["off"]}, "seats": seats()}))
        .await
        .error(400, "bad_request");
    assert!(m.contains("string or a number"), "{m}");

    let one = json!([{"name": "Alice", "email": "alice@example.org"}]);
    let m = s.create_raw(&json!({"variant": "fairschach", "seats": one})).await.error(400, "bad_request");
    assert!(m.contains("needs 2 seats (white, black), 1 given"), "{m}");
    let three = json!([
        {"name": "A", "email": "a@example.org"},
        {"name": "B", "email": "b@example.org"},
        {"name": "C", "email": "c@example.org"},
    ]);
    let m = s.create_raw(&json!({"variant": "chess", "seats": three})).await.error(400, "bad_request");
    assert!(m.contains("needs 2 seats (white, black), 3 given"), "{m}");
    let m = s.create_raw(&json!({"variant": "chess", "seats": []})).await.error(400, "bad_request");
    assert!(m.contains("0 given"), "{m}");

    let m = s
        .create_raw(&json!({"variant": "chess", "seats": [{"name": "A", "email": "a@example.org"}, {"name": " ", "email": "b@example.org"}]}))
        .await
        .error(400, "bad_request");
    assert!(m.contains("seat 2 (black)") && m.contains("player name is empty"), "{m}");
    let m = s
        .create_raw(&json!({"variant": "chess", "seats": [{"name": "A", "email": "not an address"}, {"name": "B", "email": "b@example.org"}]}))
        .await
        .error(400, "bad_request");
    assert!(m.contains("seat 1 (white)") && m.contains("not a mail address"), "{m}");

    // Issue 29: a name shows what it reads and shows something; no two seats
    // of a game show the same name.
    let seats = |a: &str, b: &str| json!({"variant": "chess", "seats": [{"name": a, "email": "a@example.org"}, {"name": b, "email": "b@example.org"}]});
    let m = s.create_raw(&seats("Alice", "Bob\u{202E}gnp.exe")).await.error(400, "bad_request");
    assert!(m.contains("seat 2 (black)") && m.contains("bidirectional control") && m.contains("U+202E"), "{m}");
    let m = s.create_raw(&seats("\u{200B}\u{2060}", "Bob")).await.error(400, "bad_request");
    assert!(m.contains("seat 1 (white)") && m.contains("shows nothing") && m.contains("send a name"), "{m}");
    let m = s.create_raw(&seats("Alice", " ALI\u{200B}CE ")).await.error(400, "bad_request");
    assert!(
        m.contains("seat 1 (white) and seat 2 (black) both show the name") && m.contains("a name of its own"),
        "{m}"
    );
    assert_eq!(s.create_raw(&seats("Alice", "Alice B.")).await.status, 201);
}

// ---------------------------------------------------------------------------
// 2. Reading a game
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_game_shows_variant_state_turn_and_seats() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let v = s.game(&g.id, None).await;
    assert_eq!(v["id"], g.id.as_str());
    assert_eq!(v["variant"], "fairschach");
    assert_eq!(v["state"], FS_START);
    assert_eq!(v["turn"], 1);
    assert_eq!(v["to_move"], json!(["white", "black"]));
    assert_eq!(v["moved"], json!([]));
    assert_eq!(v["outcome"], Value::Null);
    for (i, (seat, player)) in [("white", "Alice"), ("black", "Bob")].into_iter().enumerate() {
        let sv = &v["seats"][i];
        assert_eq!(sv["seat"], seat);
        assert_eq!(sv["player"], player);
        assert_eq!(sv["owes_move"], true);
        assert_eq!(sv["moved_at"], Value::Null);
        assert_eq!(sv["draw_offer"], false);
        assert!(sv.get("pending_move").is_none(), "no pending move: {sv}");
    }
    for field in ["created_at", "updated_at"] {
        let t = v[field].as_str().unwrap();
        chrono::DateTime::parse_from_rfc3339(t).unwrap_or_else(|e| panic!("{field} {t}: {e}"));
        assert!(t.ends_with('Z'), "UTC: {t}");
    }

    // White moves: the turn is still 1, white has moved, black still owes.
    let receipt = s.play(&g.id, &g.white, 1, "e4").await;
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 1);
    assert_eq!(v["moved"], json!(["white"]));
    assert_eq!(v["to_move"], json!(["black"]));
    assert_eq!(v["seats"][0]["owes_move"], false);
    assert_eq!(v["seats"][0]["moved_at"], receipt["received_at"]);
    assert_eq!(v["seats"][1]["owes_move"], true);

    // Ids are read case-insensitively.
    let lower = s.game(&g.id.to_ascii_lowercase(), None).await;
    assert_eq!(lower["id"], g.id.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_unknown_or_malformed_game_is_404() {
    let s = Server::start().await;
    let g = s.create("chess", json!({})).await;
    // A well-formed id that is not a game (flip the first character).
    let other = if g.id.starts_with('Z') { format!("Y{}", &g.id[1..]) } else { format!("Z{}", &g.id[1..]) };
    let m = s.get(&format!("/api/games/{other}"), None).await.error(404, "unknown_game");
    assert!(m.contains(&other) && m.contains("game id"), "{m}");
    for bad in ["nope", "8KQ2Z", "8KQ2ZJX", "8KQ2ZI", "%20%20"] {
        s.get(&format!("/api/games/{bad}"), None).await.error(404, "unknown_game");
        s.get(&format!("/api/games/{bad}/transcript"), None).await.error(404, "unknown_game");
        s.mv(bad, &g.white, 1, "e4").await.error(404, "unknown_game");
    }
    s.get(&format!("/api/games/{other}/transcript"), None).await.error(404, "unknown_game");
    let r = s.post(&format!("/api/games/{other}/resign"), Some(&g.white), "").await;
    r.error(404, "unknown_game");
    // An endpoint that does not exist.
    let m = s.get("/api/nothing", None).await.error(404, "not_found");
    assert!(m.contains("/api/games"), "{m}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_game_with_a_wrong_token_is_401() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let h = s.create("fairschach", json!({})).await;
    for token in ["0".repeat(64).as_str(), h.white.as_str(), "x"] {
        let a = s.get(&format!("/api/games/{}", g.id), Some(token)).await;
        a.error(401, "bad_token");
        assert_eq!(a.www_authenticate.as_deref(), Some("Bearer"));
    }
    // With a right token it is fine.
    let v = s.game(&g.id, Some(&g.black)).await;
    assert_eq!(v["id"], g.id.as_str());
}

// ---------------------------------------------------------------------------
// 3. Moves: refusals and repeats
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_without_a_valid_token_is_401_and_changes_nothing() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let h = s.create("fairschach", json!({})).await;
    let path = format!("/api/games/{}/moves", g.id);
    let body = json!({"turn": 1, "move": "e4"});

    // No Authorization header.
    let a = s.post_json(&path, None, &body).await;
    let m = a.error(401, "bad_token");
    assert!(m.contains("Authorization: Bearer"), "{m}");
    assert_eq!(a.www_authenticate.as_deref(), Some("Bearer"));
    // A token that is no seat's.
    s.post_json(&path, Some(&"f".repeat(64)), &body).await.error(401, "bad_token");
    // Another game's token.
    s.post_json(&path, Some(&h.white), &body).await.error(401, "bad_token");
    s.post_json(&path, Some(&h.black), &body).await.error(401, "bad_token");
    // A token in the wrong scheme, and an empty bearer.
    let basic = s
        .client
        .post(format!("{}{path}", s.base))
        .header("Authorization", format!("Basic {}", g.white))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(basic.status().as_u16(), 401);
    let empty = s
        .client
        .post(format!("{}{path}", s.base))
        .header("Authorization", "Bearer ")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(empty.status().as_u16(), 401);
    // Even a garbage body is refused for the token first.
    s.post(&path, None, "garbage").await.error(401, "bad_token");

    let v = s.game(&g.id, None).await;
    assert_eq!(v["moved"], json!([]), "nothing was accepted: {v}");
    let h_view = s.game(&h.id, None).await;
    assert_eq!(h_view["moved"], json!([]), "nothing was accepted in the other game either: {h_view}");
    // The real token still works, and "bearer" is case-insensitive.
    let ok = s
        .client
        .post(format!("{}{path}", s.base))
        .header("Authorization", format!("bearer {}", g.white))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status().as_u16(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_for_the_wrong_turn_is_409_wrong_turn() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let m = s.mv(&g.id, &g.white, 2, "e4").await.error(409, "wrong_turn");
    assert!(m.contains("turn 2") && m.contains("at turn 1") && m.contains("\"turn\": 1"), "{m}");
    s.mv(&g.id, &g.white, 0, "e4").await.error(409, "wrong_turn");
    // After a pair, turn 1 is in the past.
    s.play(&g.id, &g.white, 1, "e4").await;
    s.play(&g.id, &g.black, 1, "e5").await;
    let m = s.mv(&g.id, &g.white, 3, "d4").await.error(409, "wrong_turn");
    assert!(m.contains("at turn 2"), "{m}");
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 2);
    assert_eq!(v["moved"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn illegal_move_is_422_naming_the_reason() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let m = s.mv(&g.id, &g.white, 1, "e5").await.error(422, "illegal_move");
    assert!(m.contains("\"e5\" is not legal here") && m.contains("no pawn of yours can move to e5"), "{m}");
    assert!(m.contains("possible: a3, a4") && m.contains("e4"), "the possible moves are listed: {m}");
    let m = s.mv(&g.id, &g.white, 1, "Qxf7").await.error(422, "illegal_move");
    assert!(m.contains("Qxf7"), "{m}");
    let m = s.mv(&g.id, &g.black, 1, "zz").await.error(422, "illegal_move");
    assert!(m.contains("\"zz\" is not a move"), "{m}");
    let m = s.mv(&g.id, &g.black, 1, "").await.error(422, "illegal_move");
    // The forms, with examples from Black's moves, and what to send, in HTTP words.
    assert!(m.contains("write moves like Na6 (SAN), Sa6 (German letters), Nb8-a6 (long form), b8a6 (coordinates) or 2816 (ICCF numeric)"), "{m}");
    assert!(m.contains("\"turn\": N"), "{m}");
    assert_eq!(s.game(&g.id, None).await["moved"], json!([]), "nothing accepted");

    // A paused piece (FSR 9) after the pair e4/d5: the reason says so.
    s.play(&g.id, &g.white, 1, "e4").await;
    s.play(&g.id, &g.black, 1, "d5").await;
    assert_eq!(s.game(&g.id, None).await["state"], FS_E4_D5);
    let m = s.mv(&g.id, &g.white, 2, "e5").await.error(422, "illegal_move");
    assert!(m.contains("paused") && m.contains("e4"), "{m}");
    let m = s.mv(&g.id, &g.black, 2, "d4").await.error(422, "illegal_move");
    assert!(m.contains("paused") && m.contains("d5"), "{m}");
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 2);
    assert_eq!(v["moved"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_move_body_is_400_bad_request() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let path = format!("/api/games/{}/moves", g.id);
    for body in [
        "e4",
        "",
        "{\"turn\": 1, \"move\": ",
        "{\"turn\": 1}",
        "{\"move\": \"e4\"}",
        "{\"turn\": -1, \"move\": \"e4\"}",
        "{\"turn\": \"one\", \"move\": \"e4\"}",
        "{\"turn\": 1, \"move\": \"e4\", \"promote\": \"q\"}",
        "{\"turn\": 1, \"move\": 4}",
        "null",
    ] {
        let m = s.post(&path, Some(&g.white), body).await.error(400, "bad_request");
        assert!(m.contains("send JSON like {\"turn\": 1, \"move\": \"Nf3\"}"), "{body}: {m}");
    }
    assert_eq!(s.game(&g.id, None).await["moved"], json!([]), "nothing accepted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_body_over_64_kib_is_refused_and_nothing_accepted() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let path = format!("/api/games/{}/moves", g.id);
    let big = format!("{{\"turn\": 1, \"move\": \"e4{}\"}}", " ".repeat(70 * 1024));
    assert!(big.len() > fairsteward::web::BODY_LIMIT);
    let a = s.post(&path, Some(&g.white), big).await;
    assert_eq!(a.status, 413, "payload too large: {}", a.text);
    // Also the creation door.
    let huge_name = "A".repeat(70 * 1024);
    let a = s
        .create_raw(&json!({"variant": "chess", "seats": [{"name": huge_name, "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]}))
        .await;
    assert_eq!(a.status, 413, "{}", a.text);
    let v = s.game(&g.id, None).await;
    assert_eq!(v["moved"], json!([]), "nothing accepted: {v}");
    // A body just under the limit is read (and the move, trimmed, accepted).
    let padded = format!("{{\"turn\": 1, \"move\": \"e4{}\"}}", " ".repeat(60 * 1024));
    let r = s.post(&path, Some(&g.white), padded).await.ok(200);
    assert_eq!(r["move"], "e4");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_move_twice_gets_the_identical_receipt() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let first = s.mv(&g.id, &g.white, 1, "e4").await;
    let receipt = first.ok(200);
    assert_eq!(receipt["game"], g.id.as_str());
    assert_eq!(receipt["seat"], "white");
    assert_eq!(receipt["turn"], 1);
    assert_eq!(receipt["move"], "e4");
    assert_eq!(receipt["resolved"], false);
    assert!(receipt["receipt"].as_str().unwrap().starts_with("r-"), "{receipt}");
    chrono::DateTime::parse_from_rfc3339(receipt["received_at"].as_str().unwrap()).unwrap();

    let again = s.mv(&g.id, &g.white, 1, "e4").await;
    assert_eq!(again.status, 200);
    assert_eq!(again.text, first.text, "byte-identical receipt");
    // The same move in another notation is the same move.
    for text in ["e2e4", "e2-e4", "5254", " e4 "] {
        assert_eq!(s.play(&g.id, &g.white, 1, text).await, receipt, "{text}");
    }
    // Still the same after the turn is resolved, which the answer now says
    // (issue 11: a repeat for a resolved turn points to the latest board mail).
    let b = s.play(&g.id, &g.black, 1, "e5").await;
    assert_eq!(b["resolved"], true);
    let after = s.mv(&g.id, &g.white, 1, "e4").await.ok(200);
    assert_eq!(receipt_only(&after), receipt);
    assert_eq!(after["already_resolved"]["current_turn"], 2, "{after}");
    let b_again = s.play(&g.id, &g.black, 1, "e7e5").await;
    assert_eq!(receipt_only(&b_again), b);
    assert!(b_again["already_resolved"]["note"].as_str().is_some_and(|n| n.contains("resolved already")), "{b_again}");
    // And the repeats added nothing: one move per seat in the transcript.
    let t = s.transcript(&g.id).await.text;
    let moved = t.lines().filter(|l| serde_json::from_str::<Value>(l).unwrap()["kind"] == "moved").count();
    assert_eq!(moved, 2, "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_different_second_move_is_409_already_moved_and_the_first_stands() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let first = s.play(&g.id, &g.white, 1, "e4").await;
    let m = s.mv(&g.id, &g.white, 1, "d4").await.error(409, "already_moved");
    assert!(m.contains("white already gave a move for turn 1"), "{m}");
    assert!(m.contains(first["received_at"].as_str().unwrap()), "names when: {m}");
    assert!(!m.contains("e4"), "the refusal does not echo the held move: {m}");
    // Also for a move that would be illegal anyway.
    s.mv(&g.id, &g.white, 1, "e5").await.error(409, "already_moved");
    let own = s.game(&g.id, Some(&g.white)).await;
    assert_eq!(own["seats"][0]["pending_move"], "e4");

    s.play(&g.id, &g.black, 1, "c5").await;
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 2);
    let turn1 = &v["history"][0];
    assert_eq!(turn1["turn"], 1);
    assert_eq!(turn1["moves"][0]["seat"], "white");
    assert_eq!(turn1["moves"][0]["move"], "e4", "the first move stands: {v}");
    assert_eq!(turn1["moves"][0]["status"], "played");
    assert_eq!(turn1["moves"][1]["move"], "c5");
    assert!(v["state"].as_str().unwrap().starts_with("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR s "), "{v}");
    // After resolution a different move for turn 1 is told that turn 1 is
    // resolved, with the turn and move number now (issue 32).
    let m = s.mv(&g.id, &g.white, 1, "d4").await.error(409, "turn_resolved");
    assert!(m.contains("turn 1 was resolved already"), "{m}");
    assert!(m.contains("move 2. (API turn 2)") && m.contains("\"turn\": 2"), "{m}");
    assert!(m.contains(&format!("/api/games/{}", g.id)), "{m}");
    // Black, who moved too, hears its own number.
    let m = s.mv(&g.id, &g.black, 1, "d5").await.error(409, "turn_resolved");
    assert!(m.contains("move 2... (API turn 2)"), "{m}");
}

// ---------------------------------------------------------------------------
// 4. Chess, turn by turn
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_fools_mate_over_the_api() {
    let s = Server::start().await;
    let g = s.create("chess", json!({})).await;

    // Black may not move first.
    let m = s.mv(&g.id, &g.black, 1, "e5").await.error(409, "not_your_turn");
    assert!(m.contains("black is not to move in turn 1; white to move"), "{m}");

    let r = s.play(&g.id, &g.white, 1, "f3").await;
    assert_eq!(r["resolved"], true, "a chess turn is one move");
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 2);
    assert_eq!(v["to_move"], json!(["black"]));
    // Now white is the one out of turn.
    s.mv(&g.id, &g.white, 2, "e4").await.error(409, "not_your_turn");

    s.play(&g.id, &g.black, 2, "e5").await;
    s.play(&g.id, &g.white, 3, "g4").await;
    let mate = s.play(&g.id, &g.black, 4, "Qh4#").await;
    assert_eq!(mate["move"], "Qh4#");
    assert_eq!(mate["resolved"], true);

    let v = s.game(&g.id, None).await;
    assert_eq!(v["state"], "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert_eq!(v["outcome"], json!({"result": "0-1", "winner": "black", "reason": "checkmate"}));
    assert_eq!(v["to_move"], json!([]));
    let history = v["history"].as_array().unwrap();
    let played: Vec<(&str, &str, &str)> = history
        .iter()
        .map(|t| {
            assert_eq!(t["moves"].as_array().unwrap().len(), 1, "one move per chess turn: {t}");
            let m = &t["moves"][0];
            (m["seat"].as_str().unwrap(), m["move"].as_str().unwrap(), m["status"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        played,
        [("white", "f3", "played"), ("black", "e5", "played"), ("white", "g4", "played"), ("black", "Qh4#", "played")]
    );
    assert_eq!(history.iter().map(|t| t["turn"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2, 3, 4]);

    // The game takes nothing more.
    let m = s.mv(&g.id, &g.white, 5, "a3").await.error(409, "game_over");
    assert!(m.contains("0-1") && m.contains("checkmate"), "{m}");
    s.mv(&g.id, &g.black, 5, "a6").await.error(409, "game_over");
    s.post(&format!("/api/games/{}/resign", g.id), Some(&g.white), "").await.error(409, "game_over");
    s.draw(&g.id, &g.white, "").await.error(409, "game_over");
    // A repeat of the mating move is still answered with its receipt.
    assert_eq!(receipt_only(&s.play(&g.id, &g.black, 4, "Qh4#").await), mate);
    let t = s.transcript(&g.id).await.text;
    let ended: Vec<Value> =
        t.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|e| e["kind"] == "ended").collect();
    assert_eq!(ended.len(), 1, "{t}");
    assert_eq!(ended[0]["body"]["reason"], "checkmate");
    assert_eq!(ended[0]["body"]["winner"], "black");
}

/// The steward gives the rules only the latest states, those since the last
/// pawn move or capture (the repetition window): knights going out and back
/// after six pawn moves end the game at the third occurrence of the position
/// after 3... e5, which the first states of the game would not show.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_threefold_repetition_over_the_api() {
    let s = Server::start().await;
    let g = s.create("chess", json!({})).await;
    let pawns = ["a3", "a6", "h3", "h6", "e4", "e5"];
    let knights = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
    for (turn, text) in (1..).zip(pawns.into_iter().chain(knights)) {
        let token = if turn % 2 == 1 { &g.white } else { &g.black };
        s.play(&g.id, token, turn, text).await;
    }
    assert_eq!(s.game(&g.id, None).await["outcome"], Value::Null, "twice only");
    s.play(&g.id, &g.black, 14, "Ng8").await;
    let v = s.game(&g.id, None).await;
    assert_eq!(v["outcome"]["reason"], "threefold repetition", "{v}");
    assert_eq!(v["state"], "rnbqkbnr/1ppp1pp1/p6p/4p3/4P3/P6P/1PPP1PP1/RNBQKBNR w KQkq - 8 8");
}

// ---------------------------------------------------------------------------
// 5. Fairschach pairs
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairschach_pair_resolves_only_when_both_moves_are_in() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let w = s.play(&g.id, &g.white, 1, "e4").await;
    assert_eq!(w["resolved"], false);
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 1);
    assert_eq!(v["state"], FS_START, "nothing is played before the pair is complete");
    assert_eq!(v["history"], json!([]));

    let b = s.play(&g.id, &g.black, 1, "d5").await;
    assert_eq!(b["resolved"], true);
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 2);
    assert_eq!(v["state"], FS_E4_D5);
    assert_eq!(v["to_move"], json!(["white", "black"]));
    assert_eq!(v["moved"], json!([]));
    let turn1 = &v["history"][0];
    assert_eq!(turn1["turn"], 1);
    assert_eq!(turn1["state"], FS_E4_D5);
    assert_eq!(
        turn1["moves"],
        json!([
            {"number": "1.", "seat": "white", "move": "e4", "status": "played"},
            {"number": "1...", "seat": "black", "move": "d5", "status": "played"},
        ])
    );
    // One number per pair (issue 32): the pair now owed is move 2.
    assert_eq!(turn1["move_number"], "1.");
    assert_eq!(v["move_number"], "2.");
    assert_eq!(v["seats"][1]["move_number"], "2...");
    // Black's move may come first, too.
    s.play(&g.id, &g.black, 2, "Nf6").await;
    assert_eq!(s.game(&g.id, None).await["turn"], 2);
    let r = s.play(&g.id, &g.white, 2, "Nc3").await;
    assert_eq!(r["resolved"], true);
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 3);
    assert_eq!(v["history"][1]["moves"][0]["move"], "Nc3");
    assert_eq!(v["history"][1]["moves"][1]["move"], "Nf6");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairschach_first_move_right_strikes_the_blocked_move() {
    // With pause off: 1. e4 f6  2. Qh5+ a6 — black is in check, so in pair 3
    // black's g6 is played first and white's Qf7, blocked by it, is struck
    // (rules §3b; checked with `fairsteward rules fairschach resolve`).
    let s = Server::start().await;
    let g = s.create("fairschach", json!({"pause": "off"})).await;
    assert_eq!(s.game(&g.id, None).await["options"], json!({"pause": "off"}));
    for (turn, w, b) in [(1, "e4", "f6"), (2, "Qh5", "a6")] {
        s.play(&g.id, &g.white, turn, w).await;
        s.play(&g.id, &g.black, turn, b).await;
    }
    let v = s.game(&g.id, None).await;
    assert_eq!(v["state"], "rnbqkbnr/1pppp1pp/p4p2/7Q/4P3/8/PPPP1PPP/RNB1KBNR s KQkq - - 0 3");
    assert_eq!(v["history"][1]["moves"][0]["move"], "Qh5");

    s.play(&g.id, &g.white, 3, "Qf7").await;
    s.play(&g.id, &g.black, 3, "g6").await;
    let v = s.game(&g.id, None).await;
    assert_eq!(v["state"], "rnbqkbnr/1pppp2p/p4pp1/7Q/4P3/8/PPPP1PPP/RNB1KBNR s KQkq - - 0 4");
    assert_eq!(v["turn"], 4);
    let statuses: Vec<Vec<&str>> = v["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["moves"].as_array().unwrap().iter().map(|m| m["status"].as_str().unwrap()).collect())
        .collect();
    assert_eq!(statuses, [["played", "played"], ["played", "played"], ["struck", "first"]]);
    let pair3 = &v["history"][2]["moves"];
    assert_eq!(pair3[0]["seat"], "white");
    assert!(pair3[0]["move"].as_str().unwrap().starts_with("Qf7"), "{pair3}");
    let reason = pair3[0]["reason"].as_str().unwrap_or_else(|| panic!("a struck move has a reason: {pair3}"));
    assert!(!reason.is_empty());
    assert_eq!(pair3[1]["seat"], "black");
    assert_eq!(pair3[1]["move"], "g6");
    assert!(pair3[1].get("reason").is_none(), "{pair3}");
    // The transcript tells the same.
    let t = s.transcript(&g.id).await.text;
    let resolved: Vec<Value> =
        t.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|e| e["kind"] == "resolved").collect();
    assert_eq!(resolved.len(), 3);
    assert_eq!(resolved[2]["body"]["moves"][0]["status"], "struck");
    assert_eq!(resolved[2]["body"]["moves"][0]["reason"], reason);
    assert_eq!(resolved[2]["body"]["moves"][1]["status"], "first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simultaneous_moves_resolve_each_pair_exactly_once() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    for (turn, w, b) in [(1, "e4", "e5"), (2, "Nc3", "Nc6"), (3, "d3", "d6")] {
        // Both seats, and a repeat of white's move, arrive at the same time.
        let (wa, ba, wr) = tokio::join!(
            s.mv(&g.id, &g.white, turn, w),
            s.mv(&g.id, &g.black, turn, b),
            s.mv(&g.id, &g.white, turn, w)
        );
        let (wa, ba, wr) = (wa.ok(200), ba.ok(200), wr.ok(200));
        assert_eq!(receipt_only(&wa), receipt_only(&wr), "the repeat gets the same receipt");
        let resolved = [&wa, &ba].iter().filter(|r| r["resolved"] == true).count();
        assert_eq!(resolved, 1, "exactly one move completes turn {turn}: {wa} {ba}");
        let v = s.game(&g.id, None).await;
        assert_eq!(v["turn"], turn + 1);
        assert_eq!(v["history"].as_array().unwrap().len() as u32, turn);
    }
    let v = s.game(&g.id, None).await;
    assert_eq!(v["state"], "r1bqkbnr/ppp2ppp/2np4/4p3/4P3/2NP4/PPP2PPP/R1BQKBNR s KQkq - d3,d6 0 4");
    let t = s.transcript(&g.id).await.text;
    let kinds: Vec<String> =
        t.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_owned()).collect();
    assert_eq!(kinds.iter().filter(|k| *k == "moved").count(), 6, "{t}");
    assert_eq!(kinds.iter().filter(|k| *k == "resolved").count(), 3, "{t}");
}

// ---------------------------------------------------------------------------
// 6. Resignation and draws
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resign_ends_the_game_for_the_other_seat() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let path = format!("/api/games/{}/resign", g.id);
    s.post(&path, None, "").await.error(401, "bad_token");
    s.post(&path, Some(&"a".repeat(64)), "").await.error(401, "bad_token");
    assert_eq!(s.game(&g.id, None).await["outcome"], Value::Null);

    let v = s.post(&path, Some(&g.black), "").await.ok(200);
    assert_eq!(v["outcome"], json!({"result": "1-0", "winner": "white", "reason": "resignation"}));
    assert_eq!(v["to_move"], json!([]));
    let v = s.game(&g.id, None).await;
    assert_eq!(v["outcome"]["winner"], "white");

    let m = s.post(&path, Some(&g.white), "").await.error(409, "game_over");
    assert!(m.contains("1-0") && m.contains("resignation"), "{m}");
    s.mv(&g.id, &g.white, 1, "e4").await.error(409, "game_over");

    let kinds: Vec<String> = s
        .transcript(&g.id)
        .await
        .text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["created", "resigned", "ended"]);

    // White resigning in chess: black wins.
    let c = s.create("chess", json!({})).await;
    let v = s.post(&format!("/api/games/{}/resign", c.id), Some(&c.white), "").await.ok(200);
    assert_eq!(v["outcome"], json!({"result": "0-1", "winner": "black", "reason": "resignation"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offered_by_one_seat_and_accepted_by_the_other() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    // An empty body offers.
    let v = s.draw(&g.id, &g.white, "").await.ok(200);
    assert_eq!(v["seats"][0]["draw_offer"], true);
    assert_eq!(v["seats"][1]["draw_offer"], false);
    assert_eq!(v["outcome"], Value::Null);
    // Offering again changes nothing: no transcript entry, no mail (issue 29).
    let v = s.draw(&g.id, &g.white, r#"{"action": "offer"}"#).await.ok(200);
    assert_eq!(v["outcome"], Value::Null);
    // The offer is public.
    let public = s.game(&g.id, None).await;
    assert_eq!(public["seats"][0]["draw_offer"], true);

    let v = s.draw(&g.id, &g.black, r#"{"action": "accept"}"#).await.ok(200);
    assert_eq!(v["outcome"], json!({"result": "1/2-1/2", "winner": null, "reason": "agreement"}));
    s.draw(&g.id, &g.white, r#"{"action": "decline"}"#).await.error(409, "game_over");
    s.mv(&g.id, &g.white, 1, "e4").await.error(409, "game_over");
    let kinds: Vec<String> = s
        .transcript(&g.id)
        .await
        .text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["created", "draw_offered", "draw_offered", "ended"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_bad_bodies_and_tokens_are_refused() {
    let s = Server::start().await;
    let g = s.create("chess", json!({})).await;
    let m = s.draw(&g.id, &g.white, r#"{"action": "maybe"}"#).await.error(400, "bad_request");
    assert!(m.contains("\"accept\"") && m.contains("\"decline\""), "{m}");
    s.draw(&g.id, &g.white, r#"{"action": "offer", "why": "tired"}"#).await.error(400, "bad_request");
    s.draw(&g.id, &g.white, "offer").await.error(400, "bad_request");
    s.post(&format!("/api/games/{}/draw", g.id), None, "").await.error(401, "bad_token");
    let v = s.game(&g.id, None).await;
    assert_eq!(v["seats"][0]["draw_offer"], false, "nothing was offered: {v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_decline_withdraws_the_offers() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    // The other seat declines: the offer is gone and the game goes on.
    s.draw(&g.id, &g.white, "").await.ok(200);
    let v = s.draw(&g.id, &g.black, r#"{"action": "decline"}"#).await.ok(200);
    assert_eq!(v["outcome"], Value::Null);
    assert_eq!(v["seats"][0]["draw_offer"], false);
    assert_eq!(v["seats"][1]["draw_offer"], false);
    // Black's later offer alone does not draw.
    let v = s.draw(&g.id, &g.black, "").await.ok(200);
    assert_eq!(v["outcome"], Value::Null);
    assert_eq!(v["seats"][1]["draw_offer"], true);
    // A seat withdraws its own offer by declining.
    let v = s.draw(&g.id, &g.black, r#"{"action": "decline"}"#).await.ok(200);
    assert_eq!(v["seats"][1]["draw_offer"], false);
    // So white's accept is only an offer now.
    let v = s.draw(&g.id, &g.white, r#"{"action": "accept"}"#).await.ok(200);
    assert_eq!(v["outcome"], Value::Null);
    assert_eq!(v["seats"][0]["draw_offer"], true);
    assert_eq!(v["seats"][1]["draw_offer"], false);
    let kinds: Vec<String> = s
        .transcript(&g.id)
        .await
        .text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["created", "draw_offered", "draw_declined", "draw_offered", "draw_declined", "draw_offered"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_lapse_when_a_turn_resolves() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    s.draw(&g.id, &g.white, "").await.ok(200);
    // A move that does not complete the pair leaves the offer standing.
    s.play(&g.id, &g.white, 1, "e4").await;
    assert_eq!(s.game(&g.id, None).await["seats"][0]["draw_offer"], true);
    // Resolution withdraws it.
    s.play(&g.id, &g.black, 1, "e5").await;
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 2);
    assert_eq!(v["seats"][0]["draw_offer"], false, "the offer lapsed: {v}");
    // Black's accept is now a fresh offer, not a draw.
    let v = s.draw(&g.id, &g.black, r#"{"action": "accept"}"#).await.ok(200);
    assert_eq!(v["outcome"], Value::Null);
    assert_eq!(v["seats"][1]["draw_offer"], true);
    // Both offering within the same turn draws.
    let v = s.draw(&g.id, &g.white, "").await.ok(200);
    assert_eq!(v["outcome"]["result"], "1/2-1/2");
    assert_eq!(v["outcome"]["reason"], "agreement");

    // In chess the offer lapses with the next resolved move.
    let c = s.create("chess", json!({})).await;
    s.draw(&c.id, &c.black, "").await.ok(200);
    s.play(&c.id, &c.white, 1, "e4").await;
    let v = s.draw(&c.id, &c.white, r#"{"action": "accept"}"#).await.ok(200);
    assert_eq!(v["outcome"], Value::Null, "black's offer lapsed with white's move: {v}");
}

// ---------------------------------------------------------------------------
// 7. The transcript
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transcript_is_json_lines_in_order() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    let w = s.play(&g.id, &g.white, 1, "e4").await;
    let b = s.play(&g.id, &g.black, 1, "d5").await;
    s.draw(&g.id, &g.white, "").await.ok(200);

    let a = s.transcript(&g.id.to_ascii_lowercase()).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.content_type, "application/x-ndjson");
    assert!(a.text.ends_with('\n'), "every line ends with a newline");
    let events: Vec<Value> = a
        .text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("line is not JSON ({e}): {l}")))
        .collect();
    assert_eq!(events.len(), 5, "{}", a.text);
    let mut last_seq = 0;
    let mut last_at = chrono::DateTime::<chrono::FixedOffset>::MIN_UTC.fixed_offset();
    for e in &events {
        for field in ["game", "seq", "at", "kind", "body"] {
            assert!(e.get(field).is_some(), "{field} in {e}");
        }
        assert_eq!(e["game"], g.id.as_str());
        let seq = e["seq"].as_u64().unwrap();
        assert!(seq > last_seq, "seq increases: {e}");
        last_seq = seq;
        let at = chrono::DateTime::parse_from_rfc3339(e["at"].as_str().unwrap()).unwrap();
        assert!(at >= last_at, "time does not go back: {e}");
        last_at = at;
        assert!(e["body"].is_object(), "{e}");
    }
    assert_eq!(events[0]["seq"], 1);
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["created", "moved", "moved", "resolved", "draw_offered"]);

    let created = &events[0]["body"];
    assert_eq!(created["variant"], "fairschach");
    assert_eq!(created["state"], FS_START);
    assert_eq!(created["seats"], json!([{"seat": "white", "player": "Alice"}, {"seat": "black", "player": "Bob"}]));
    // The receipts: who moved, for which turn, with the receipt id.
    assert_eq!(events[1]["body"]["seat"], "white");
    assert_eq!(events[1]["body"]["turn"], 1);
    assert_eq!(events[1]["body"]["receipt"], w["receipt"]);
    assert_eq!(events[1]["at"], w["received_at"]);
    assert_eq!(events[2]["body"]["seat"], "black");
    assert_eq!(events[2]["body"]["receipt"], b["receipt"]);
    // The resolution names the moves and the new state.
    let resolved = &events[3]["body"];
    assert_eq!(resolved["turn"], 1);
    assert_eq!(resolved["state"], FS_E4_D5);
    let moves = resolved["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    assert_eq!(
        (&moves[0]["seat"], &moves[0]["move"], &moves[0]["status"]),
        (&json!("white"), &json!("e4"), &json!("played"))
    );
    assert_eq!(
        (&moves[1]["seat"], &moves[1]["move"], &moves[1]["status"]),
        (&json!("black"), &json!("d5"), &json!("played"))
    );
    assert_eq!(events[4]["body"]["seat"], "white");
}

// ---------------------------------------------------------------------------
// 8. The spool
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resolution_spools_one_board_mail_per_seat() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let g = s.create("fairschach", json!({})).await;
    // The game's start mails arrive first.
    eventually("the start mails", || (spool_files(&spool).len() == 2).then_some(())).await;
    s.play(&g.id, &g.white, 1, "e4").await;
    s.play(&g.id, &g.black, 1, "d5").await;

    let turn_mail = |seat: usize| format!("{}.1.{seat}.turn@{MAIL_DOMAIN}.eml", g.id);
    let files = eventually("one turn mail per seat in the spool", || {
        let files = spool_files(&spool);
        (files.contains_key(&turn_mail(0)) && files.contains_key(&turn_mail(1))).then_some(files)
    })
    .await;
    assert_eq!(files.len(), 4, "two start mails and two turn mails: {:?}", files.keys().collect::<Vec<_>>());
    let leftovers: Vec<PathBuf> = std::fs::read_dir(&spool)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none_or(|x| x != "eml"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary files left: {leftovers:?}");

    let public = format!("{}/api/games/{}", s.base, g.id);
    for (seat, (name, address)) in [("Alice", "alice@example.org"), ("Bob", "bob@example.org")].into_iter().enumerate()
    {
        let mail = parse_mail(&files[&turn_mail(seat)]);
        assert_eq!(mail.header("Message-ID"), format!("<{}.1.{seat}.turn@{MAIL_DOMAIN}>", g.id));
        assert_eq!(mail.header("In-Reply-To"), format!("<{}.0.{seat}.started@{MAIL_DOMAIN}>", g.id));
        assert_eq!(mail.header("References"), format!("<{}.0.{seat}.started@{MAIL_DOMAIN}>", g.id));
        assert_eq!(mail.header("To"), format!("{name} <{address}>"));
        assert!(mail.header("From").contains("<moves@steward.example>"), "{}", mail.header("From"));
        let label = ["2.", "2..."][seat];
        assert_eq!(mail.header("Subject"), format!("Game {}, your move {label}", g.id));
        chrono::DateTime::parse_from_rfc2822(mail.header("Date")).expect("an RFC 5322 date");
        // Plain text and HTML as alternatives, the HTML with the board as an
        // inline image, signed by the steward (issue 33: PGP/MIME around them).
        assert!(mail.header("Content-Type").starts_with("multipart/signed"), "{}", mail.header("Content-Type"));
        assert!(mail.headers.iter().any(|(n, _)| n == "Autocrypt"), "the steward's key in an Autocrypt header");
        assert_eq!(mail.kinds(), ["text/plain", "text/html", "image/png"], "the parts of the board mail");
        let html = &mail.parts[1].text;
        assert!(html.contains("src=\"cid:board\""), "{html}");

        let body = &mail.body;
        assert!(body.contains(&format!("Game {} (fairschach), your move {label} - ", g.id)), "{body}");
        assert!(body.contains(&format!("Your move {label} (API turn 2).")), "{body}");
        assert!(body.contains("white: e4 - played") && body.contains("black: d5 - played"), "{body}");
        assert!(body.contains(&format!("State: {FS_E4_D5}")), "{body}");
        assert!(body.contains(&public), "{body}");
        // The board as text, from the seat's own side; paused pieces marked.
        let (files_line, rank4, rank5) = if seat == 0 {
            ("     a b c d e f g h", "  4  . . . .*P . . .  4", "  5  . . .*p . . . .  5")
        } else {
            ("     h g f e d c b a", "  4  . . .*P . . . .  4", "  5  . . . .*p . . .  5")
        };
        for line in [files_line, rank4, rank5, "    * before a piece: paused this pair, it may not move (§5)"] {
            assert!(body.lines().any(|l| l == line), "board line {line:?} in\n{body}");
        }
    }
    // The start mails open each seat's thread.
    let started = parse_mail(&files[&format!("{}.0.0.started@{MAIL_DOMAIN}.eml", g.id)]);
    assert_eq!(started.header("To"), "Alice <alice@example.org>");
    assert!(started.headers.iter().all(|(n, _)| !n.eq_ignore_ascii_case("In-Reply-To")));
    assert!(started.body.contains("  1  R N B Q K B N R  1"), "{}", started.body);
    // Everything queued was delivered.
    eventually("the outbox to be drained", || (unsent_mail(&Db::of(&s.config.data_dir)) == 0).then_some(())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_draw_offer_is_mailed_to_the_other_seat() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    s.draw(&g.id, &g.white, "").await.ok(200);
    s.draw(&g.id, &g.white, r#"{"action": "decline"}"#).await.ok(200);
    s.draw(&g.id, &g.white, "").await.ok(200);
    // Both offers were accepted (the transcript says so) ...
    let t = s.transcript(&g.id).await.text;
    assert_eq!(t.matches("\"draw_offered\"").count(), 2, "{t}");
    // ... so Bob must have been told twice.
    let offers = Db::of(&s.config.data_dir).count(
        "SELECT count(*) FROM outbox WHERE recipient = 'bob@example.org' AND subject LIKE '%offers a draw%'",
        &[],
    );
    assert_eq!(offers, 2, "one notice per offer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn framework_refusals_have_the_json_error_shape() {
    let s = Server::start().await;
    let g = s.create("fairschach", json!({})).await;
    // (GET /api/games is the organiser's list since issue 31: the moves take POST only.)
    let wrong_method = s.get(&format!("/api/games/{}/moves", g.id), None).await;
    let big = format!("{{\"turn\": 1, \"move\": \"e4{}\"}}", " ".repeat(70 * 1024));
    let too_big = s.post(&format!("/api/games/{}/moves", g.id), Some(&g.white), big).await;
    for (a, status) in [(wrong_method, 405), (too_big, 413)] {
        assert_eq!(a.status, status);
        assert!(a.content_type.starts_with("application/json"), "{status}: {:?} {:?}", a.content_type, a.text);
        let v = a.json();
        assert!(v["error"].is_string() && v["message"].is_string(), "{v}");
    }
}

// ---------------------------------------------------------------------------
// 9. Secrecy of a pending move
// ---------------------------------------------------------------------------

/// The pending move of the secrecy tests, in every form a leak could take. A
/// knight to h3 is named nowhere else: not in error hints (they say Nf3 and
/// g1f3), not in game ids (upper case), tokens or receipts (hex).
const SECRET_FORMS: [&str; 2] = ["Nh3", "g1h3"];

#[track_caller]
fn assert_no_secret(place: &str, text: &str) {
    for secret in SECRET_FORMS {
        assert!(!text.contains(secret), "the pending move {secret:?} leaks into {place}:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrecy_a_pending_move_is_told_only_to_its_own_seat() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let db = Db::of(&s.config.data_dir);
    let g = s.create("fairschach", json!({})).await;
    eventually("the start mails", || (spool_files(&spool).len() == 2).then_some(())).await;

    let r = s.play(&g.id, &g.white, 1, "Nh3").await;
    assert_eq!(r["move"], "Nh3", "the sender's own receipt names the move");
    assert_eq!(r["resolved"], false);

    // Without a token and with the other seat's token: that white moved, not what.
    for (who, token) in [("the public", None), ("black", Some(g.black.as_str()))] {
        let a = s.get(&format!("/api/games/{}", g.id), token).await;
        assert_eq!(a.status, 200);
        assert_no_secret(&format!("the game as {who} sees it"), &a.text);
        let v = a.json();
        assert_eq!(v["moved"], json!(["white"]));
        assert!(v["seats"][0]["moved_at"].is_string());
        assert!(v["seats"][0].get("pending_move").is_none(), "{v}");
        assert!(v["seats"][1].get("pending_move").is_none(), "{v}");
        assert_eq!(v["state"], FS_START);
        assert_eq!(v["history"], json!([]));
    }
    // The seat itself sees its move.
    let own = s.game(&g.id, Some(&g.white)).await;
    assert_eq!(own["seats"][0]["pending_move"], "Nh3");
    assert!(own["seats"][1].get("pending_move").is_none());
    // Black's refusals do not tell either.
    for text in ["Nh3", "g1h3"] {
        let a = s.mv(&g.id, &g.black, 1, text).await;
        assert_eq!(a.status, 422);
        assert!(!a.text.contains("pending") && !a.text.contains("white"), "{}", a.text);
    }
    let a = s.mv(&g.id, &g.black, 2, "e5").await;
    a.error(409, "wrong_turn");

    // The transcript.
    let t = s.transcript(&g.id).await;
    assert_eq!(t.status, 200);
    assert_no_secret("the transcript", &t.text);
    assert!(t.text.contains(r["receipt"].as_str().unwrap()), "the transcript records that white moved");

    // The outbox table, every text and blob cell.
    let cells = outbox_texts(&db);
    assert!(cells.len() >= 2 * 6, "the start mails are in the outbox: {}", cells.len());
    for cell in &cells {
        assert_no_secret("the outbox table", cell);
    }
    // The spool, raw bytes and decoded bodies.
    let files = spool_files(&spool);
    assert_eq!(files.len(), 2, "no mail about a pending move: {:?}", files.keys().collect::<Vec<_>>());
    for (name, bytes) in &files {
        assert_no_secret(name, &without_images(&String::from_utf8_lossy(bytes)));
        assert_no_secret(name, &parse_mail(bytes).all_text());
    }

    // Control: once the pair is complete, the move is public and found by the
    // same checks.
    s.play(&g.id, &g.black, 1, "e5").await;
    let a = s.get(&format!("/api/games/{}", g.id), None).await;
    assert!(a.text.contains("Nh3"), "{}", a.text);
    assert!(s.transcript(&g.id).await.text.contains("g1h3"));
    let files = eventually("the turn mails", || {
        let files = spool_files(&spool);
        (files.len() == 4).then_some(files)
    })
    .await;
    assert!(files.values().any(|b| String::from_utf8_lossy(b).contains("Nh3")));
    // Delivered mails keep no bytes in the outbox, so the spool is the control
    // there: once marked sent, the four rows are empty.
    let emptied =
        || -> i64 { db.count("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND length(message) = 0", &[]) };
    eventually("the delivered mails' bytes dropped", || (emptied() == 4).then_some(())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrecy_a_pending_move_never_reaches_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut steward = Steward::start(dir.path()).await;
    let api = steward.api();
    let created = api.post_json("/api/games", None, &json!({"variant": "fairschach", "seats": seats()})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let white = created["tokens"][0]["token"].as_str().unwrap().to_owned();
    let black = created["tokens"][1]["token"].as_str().unwrap().to_owned();
    let moves = format!("/api/games/{id}/moves");
    let body = json!({"turn": 1, "move": "Nh3"});
    let r = api.post_json(&moves, Some(&white), &body).await.ok(200);
    assert_eq!(r["resolved"], false);
    // A repeat, a refused different move, and the views of the game.
    api.post_json(&moves, Some(&white), &body).await.ok(200);
    let other = json!({"turn": 1, "move": "Na3"});
    api.post_json(&moves, Some(&white), &other).await.error(409, "already_moved");
    for token in [None, Some(black.as_str()), Some(white.as_str())] {
        api.get(&format!("/api/games/{id}"), token).await.ok(200);
    }
    api.get(&format!("/api/games/{id}/transcript"), None).await;
    // Wait until the steward has logged the accepted move and spooled the start
    // mails, so the log holds everything these requests caused.
    eventually("the log of the accepted move and the spooled mails", || {
        (steward.count("move accepted") > 0 && steward.count("mail spooled") == 2).then_some(())
    })
    .await;

    steward.stop();
    let log = steward.log();
    assert!(log.contains("move accepted"), "the log records the accepted move:\n{log}");
    assert!(log.contains(&id), "the log names the game:\n{log}");
    assert_no_secret("the log", &log);
    assert!(!log.contains(&white) && !log.contains(&black), "seat tokens never reach the log:\n{log}");
}

/// A receipt without the note a repeat for a resolved turn carries.
fn receipt_only(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("already_resolved");
    }
    v
}

// ---------------------------------------------------------------------------
// Private answers (issue 29)
// ---------------------------------------------------------------------------

/// The status and headers of one request, with a bearer token and cookies if given.
async fn headers_of(
    s: &Server,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    cookie: Option<&str>,
) -> (u16, reqwest::header::HeaderMap) {
    let api = s.api();
    let mut req = api.client.request(method, format!("{}{path}", api.base));
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    let resp = req.send().await.unwrap();
    (resp.status().as_u16(), resp.headers().clone())
}

fn cache_control(h: &reqwest::header::HeaderMap) -> &str {
    h.get("cache-control").map_or("", |v| v.to_str().unwrap())
}

fn nosniff(h: &reqwest::header::HeaderMap) -> bool {
    h.get("x-content-type-options").is_some_and(|v| v == "nosniff")
}

/// Issue 29: an answer that may hold a seat's pending move, its tokens or its
/// calendar is never stored by a browser or proxy cache, and no answer is
/// sniffed into another type.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_with_private_content_are_no_store_and_every_answer_is_nosniff() {
    use reqwest::Method;
    let s = Server::start().await;
    // The created game's seat tokens.
    let api = s.api();
    let created = api
        .client
        .post(format!("{}/api/games", api.base))
        .header("Authorization", format!("Bearer {}", api.operator.clone().unwrap()))
        .json(&json!({"variant": "fairschach", "seats": seats()}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status().as_u16(), 201);
    assert_eq!(cache_control(created.headers()), "no-store");
    assert!(nosniff(created.headers()));
    let body: Value = created.json().await.unwrap();
    let id = body["game"]["id"].as_str().unwrap().to_owned();
    let white = body["tokens"][0]["token"].as_str().unwrap().to_owned();
    s.mv(&id, &white, 1, "e4").await.ok(200);

    // White's view holds white's pending move: no-store.
    let (status, h) = headers_of(&s, Method::GET, &format!("/api/games/{id}"), Some(&white), None).await;
    assert_eq!(status, 200);
    assert!(s.game(&id, Some(&white)).await.to_string().contains("e4"), "the seat's view shows its move");
    assert_eq!(cache_control(&h), "no-store");
    assert!(nosniff(&h));
    // The board with a token: no-store overrides the handler's no-cache.
    let (status, h) = headers_of(&s, Method::GET, &format!("/api/games/{id}/board.svg"), Some(&white), None).await;
    assert_eq!((status, cache_control(&h)), (200, "no-store"));
    // A wrong token's refusal too.
    let (status, h) = headers_of(&s, Method::GET, &format!("/api/games/{id}"), Some("nonsense"), None).await;
    assert_eq!((status, cache_control(&h)), (401, "no-store"));
    // A key in the path: the seat's calendar (and the old seat-token feed, gone).
    let calendar = body["tokens"][0]["calendar"].as_str().unwrap();
    let path = calendar.split_once("/api/").map(|(_, p)| format!("/api/{p}")).unwrap();
    let (status, h) = headers_of(&s, Method::GET, &path, None, None).await;
    assert_eq!((status, cache_control(&h)), (200, "no-store"));
    assert!(nosniff(&h));
    let (status, h) = headers_of(&s, Method::GET, &format!("/api/seats/{white}/deadlines.ics"), None, None).await;
    assert_eq!((status, cache_control(&h)), (410, "no-store"));
    // A move's receipt.
    let (_, h) = headers_of(&s, Method::POST, &format!("/api/games/{id}/draw"), Some(&white), None).await;
    assert_eq!(cache_control(&h), "no-store");

    // The public view and board carry no credential: cacheable as before, nosniff.
    let (status, h) = headers_of(&s, Method::GET, &format!("/api/games/{id}"), None, None).await;
    assert_eq!(status, 200);
    assert_ne!(cache_control(&h), "no-store");
    assert!(nosniff(&h));
    let (_, h) = headers_of(&s, Method::GET, &format!("/api/games/{id}/board.svg"), None, None).await;
    assert_eq!(cache_control(&h), "no-cache");
    assert!(nosniff(&h));
    // Errors and the steward's keys: nosniff.
    for path in ["/api/nowhere", "/api/steward"] {
        let (_, h) = headers_of(&s, Method::GET, path, None, None).await;
        assert!(nosniff(&h), "{path}");
    }

    // Pages with a session cookie are no-store; the public style sheet stays cacheable.
    let cookie = "theme=dark; fairsteward_session=anything";
    let (_, h) = headers_of(&s, Method::GET, &format!("/games/{id}/record.json"), None, Some(cookie)).await;
    assert_eq!(cache_control(&h), "no-store");
    assert!(nosniff(&h));
    let (_, h) = headers_of(&s, Method::GET, &format!("/api/games/{id}/board.png"), None, Some(cookie)).await;
    assert_eq!(cache_control(&h), "no-store");
    let (status, h) = headers_of(&s, Method::GET, "/assets/site.css", None, Some(cookie)).await;
    assert_eq!((status, cache_control(&h)), (200, "public, max-age=3600"));
    // A calendar key in the path.
    let (_, h) = headers_of(&s, Method::GET, "/players/alice/0000/deadlines.ics", None, None).await;
    assert_eq!(cache_control(&h), "no-store");
}
