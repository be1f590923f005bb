//! Conditional lines by HTTP: `PUT`, `GET`, `DELETE /api/games/{id}/conditional`.

use crate::support as common;

use common::transcript::{entries, verified};
use common::{Answer, Server, eventually, parse_mail, send, spool_files};
use serde_json::{Value, json};

/// A created game: its id and the seats' tokens.
struct Game {
    id: String,
    tokens: Vec<String>,
}

async fn create(s: &Server, variant: &str, seats: usize, options: Value) -> Game {
    let names = ["Alice", "Bob", "Carol", "Dave"];
    let seats: Vec<Value> = (0..seats)
        .map(|i| json!({"name": names[i], "email": format!("{}@example.org", names[i].to_lowercase())}))
        .collect();
    let created =
        s.post_json("/api/games", None, &json!({"variant": variant, "options": options, "seats": seats})).await.ok(201);
    Game {
        id: created["game"]["id"].as_str().unwrap().to_owned(),
        tokens: created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect(),
    }
}

async fn put(s: &Server, g: &Game, token: Option<&str>, body: &Value) -> Answer {
    let url = format!("{}/api/games/{}/conditional", s.base, g.id);
    send(&s.client, url, reqwest::Method::PUT, token, Some(("application/json", body.to_string().into_bytes()))).await
}

async fn get(s: &Server, g: &Game, token: Option<&str>) -> Answer {
    s.get(&format!("/api/games/{}/conditional", g.id), token).await
}

async fn delete(s: &Server, g: &Game, token: &str) -> Answer {
    let url = format!("{}/api/games/{}/conditional", s.base, g.id);
    send(&s.client, url, reqwest::Method::DELETE, Some(token), None).await
}

async fn play(s: &Server, g: &Game, seat: usize, turn: u32, text: &str) -> Value {
    let a = s.mv(&g.id, &g.tokens[seat], turn, text).await;
    assert_eq!(a.status, 200, "move {text} for turn {turn} refused: {}", a.text);
    a.json()
}

/// The `moved` entries of the transcript marked as played from a conditional line: (turn, seat).
async fn conditional_moves(s: &Server, id: &str) -> Vec<(u64, String)> {
    let t = common::transcript::transcript(&s.api(), id).await;
    entries(&t)
        .iter()
        .filter(|e| e["kind"] == "moved" && e["body"]["conditional"] == true)
        .map(|e| (e["body"]["turn"].as_u64().unwrap(), e["body"]["seat"].as_str().unwrap().to_owned()))
        .collect()
}

/// The moves of the record as the public API shows them, in order.
async fn played(s: &Server, id: &str) -> Vec<String> {
    let v = s.game(id, None).await;
    let turns = v["history"].as_array().unwrap_or_else(|| panic!("turns in {v}"));
    turns
        .iter()
        .flat_map(|t| t["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap().to_owned()))
        .collect()
}

/// Every place an outsider could look: the store (SQLite's file's bytes, or
/// every cell of the PostgreSQL store), every spooled mail, the game as the
/// other seats and a spectator see it, the transcript.
async fn assert_nowhere(s: &Server, g: &Game, owner: usize, secret: &str) {
    let (db, wal) = if common::backend::on_postgres() {
        (common::backend::Db::of(&s.config.data_dir).every_cell(), Vec::new())
    } else {
        let db = std::fs::read(s.config.data_dir.join("steward.db")).unwrap();
        (db, std::fs::read(s.config.data_dir.join("steward.db-wal")).unwrap_or_default())
    };
    for bytes in [&db, &wal] {
        assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "{secret:?} is in the store in clear");
    }
    for (name, bytes) in spool_files(&s.config.spool_dir) {
        assert!(!String::from_utf8_lossy(&bytes).contains(secret), "{secret:?} is in the spooled mail {name}");
    }
    for (i, t) in g.tokens.iter().enumerate() {
        let v = s.get(&format!("/api/games/{}", g.id), Some(t)).await;
        assert!(!v.text.contains(secret), "{secret:?} is in the game as seat {i} sees it");
        if i != owner {
            let theirs = get(s, g, Some(t)).await.ok(200);
            assert!(!theirs.to_string().contains(secret), "{secret:?} is shown to seat {i}: {theirs}");
        }
    }
    let public = s.get(&format!("/api/games/{}", g.id), None).await;
    assert!(!public.text.contains(secret), "{secret:?} is in the game as a spectator sees it");
    let t = common::transcript::transcript(&s.api(), &g.id).await;
    assert!(!t.contains(secret), "{secret:?} is in the transcript");
    get(s, g, None).await.error(401, "bad_token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_lines_fire_drop_stay_secret_and_verify() {
    let s = Server::start().await;
    let g = create(&s, "chess", 2, json!({})).await;
    // Black, not to move, keeps three lines; the third is written in a form
    // nothing else in the game uses, to be looked for.
    let lines = json!({"lines": [["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"], ["d4", "Nf6"], ["a2a3", "Ng8-h6"]]});
    let kept = put(&s, &g, Some(&g.tokens[1]), &lines).await.ok(200);
    assert_eq!(kept["count"], 3, "{kept}");
    assert_eq!(kept["lines"][0], json!(["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]), "{kept}");
    assert!(kept["text"].as_str().unwrap().starts_with("if e4 then e5 if Nf3 then Nc6"), "{kept}");
    assert_eq!(get(&s, &g, Some(&g.tokens[1])).await.ok(200)["count"], 3);
    // White sees only its own (none); a stranger nothing.
    assert_eq!(get(&s, &g, Some(&g.tokens[0])).await.ok(200)["count"], 0);
    assert_nowhere(&s, &g, 1, "Ng8-h6").await;

    // White plays e4: Black's e5 is played at once, from the first line.
    let r = play(&s, &g, 0, 1, "e4").await;
    assert_eq!(r["resolved"], true, "{r}");
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 3, "{v}");
    assert_eq!(played(&s, &g.id).await, ["e4", "e5"]);
    let left = get(&s, &g, Some(&g.tokens[1])).await.ok(200);
    assert_eq!(left["lines"], json!([["Nf3", "Nc6", "Bb5", "a6"]]), "the matched line goes on, the others are dropped");
    play(&s, &g, 0, 3, "Nf3").await;
    play(&s, &g, 0, 5, "Bc4").await; // Not Bb5: the line is dropped, Black is to move.
    assert_eq!(played(&s, &g.id).await, ["e4", "e5", "Nf3", "Nc6", "Bc4"]);
    assert_eq!(get(&s, &g, Some(&g.tokens[1])).await.ok(200)["count"], 0);
    assert_eq!(conditional_moves(&s, &g.id).await, [(2, "black".to_owned()), (4, "black".to_owned())]);
    let out = verified(&s.api(), &g.id).await;
    assert!(!out.is_empty());

    // Black's board mails say what fired and what was dropped.
    let spool = s.config.spool_dir.clone();
    let texts = eventually("the board mail that tells the dropped line", || {
        let texts: Vec<String> = spool_files(&spool)
            .values()
            .map(|b| parse_mail(b))
            .filter(|m| m.header("To").contains("bob@"))
            .map(|m| m.all_text().split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        texts.iter().any(|t| t.contains("None of your 1 line matched what was played (Bc4)")).then_some(texts)
    })
    .await;
    assert!(
        texts.iter().any(|t| t.contains("Your line 1 fired: e5 was played for you as move 1... (API turn 2)")),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("2 other lines did not match and were dropped")), "{texts:?}");
    // Black was never asked for a move its line played: one "your move" mail,
    // after Bc4, where no line answered.
    let asked: Vec<String> = spool_files(&spool)
        .values()
        .map(|b| parse_mail(b))
        .filter(|m| m.header("To").contains("bob@") && m.header("Subject").contains("your move"))
        .map(|m| m.header("Subject").to_owned())
        .collect();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_nowhere(&s, &g, 1, "Ng8-h6").await;
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_refusals_name_what_was_wrong() {
    let s = Server::start().await;
    let g = create(&s, "chess", 2, json!({})).await;
    let black = Some(g.tokens[1].as_str());
    let m = put(&s, &g, black, &json!({"lines": [["e4", "e5"], ["d4", "Ke7"]]})).await.error(422, "bad_conditional");
    assert!(m.contains("line 2 step 1") && m.contains("Ke7"), "{m}");
    let m = put(&s, &g, black, &json!({"lines": [["e4", "e5", "Nf3"]]})).await.error(422, "bad_conditional");
    assert!(m.contains("even number"), "{m}");
    let m = put(&s, &g, black, &json!({"lines": [["e5", "e4"]]})).await.error(422, "bad_conditional");
    assert!(m.contains("line 1 step 1") && m.contains("white"), "a condition White cannot play: {m}");
    let many: Vec<Value> = (0..31).map(|_| json!(["e4", "e5"])).collect();
    let m = put(&s, &g, black, &json!({"lines": many})).await.error(422, "bad_conditional");
    assert!(m.contains("at most 30"), "{m}");
    let deep: Vec<&str> = ["e4", "e5", "Nf3", "Nc6"].iter().cycle().take(62).copied().collect();
    put(&s, &g, black, &json!({"lines": [deep]})).await.error(422, "bad_conditional");
    let m = put(&s, &g, black, &json!({"lines": [["e4", "e".repeat(40)]]})).await.error(422, "bad_conditional");
    assert!(m.contains("32 bytes"), "{m}");
    put(&s, &g, black, &json!({"text": "if e4 then e5", "lines": []})).await.error(400, "bad_request");
    // White owes a move: lines answer the moves after it.
    let m = put(&s, &g, Some(&g.tokens[0]), &json!({"lines": [["e5", "Nf3"]]})).await.error(422, "bad_conditional");
    assert!(m.contains("send that move first"), "{m}");
    put(&s, &g, None, &json!({"lines": []})).await.error(401, "bad_token");
    put(&s, &g, Some("nonsense"), &json!({"lines": []})).await.error(401, "bad_token");
    // The text form; then cleared.
    let kept = put(&s, &g, black, &json!({"text": "if e4 then e5,\nif d4 then d5"})).await.ok(200);
    assert_eq!(kept["count"], 2, "{kept}");
    assert_eq!(delete(&s, &g, &g.tokens[1]).await.ok(200)["count"], 0);
    assert_eq!(get(&s, &g, black).await.ok(200)["count"], 0);
    // Nothing was played for anyone.
    assert_eq!(s.game(&g.id, None).await["turn"], 1);
    // Lines kept when the game ends are forgotten, not kept sealed.
    assert_eq!(put(&s, &g, black, &json!({"text": "if e4 then e5"})).await.ok(200)["count"], 1);
    assert_eq!(s.post(&format!("/api/games/{}/resign", g.id), Some(&g.tokens[0]), "").await.status, 200);
    assert_eq!(get(&s, &g, black).await.ok(200)["count"], 0);
    let held = common::backend::Db::of(&s.config.data_dir)
        .count("SELECT count(*) FROM conditional_lines WHERE held IS NOT NULL", &[]);
    assert_eq!(held, 0, "no sealed lines are left once the game is over");
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_reveal_and_signature_games_do_not_offer_lines() {
    let s = Server::start().await;
    let g = create(&s, "fairschach", 2, json!({"secrecy": "commit-reveal"})).await;
    let m =
        put(&s, &g, Some(&g.tokens[1]), &json!({"lines": [["e4", "e5"]]})).await.error(409, "conditional_not_offered");
    assert!(m.contains("commit-reveal"), "{m}");
    // Listing and clearing say there are none.
    assert_eq!(get(&s, &g, Some(&g.tokens[1])).await.ok(200)["count"], 0);

    let key = || fairsteward::protocol::PlayerKey::generate().public_key_base64();
    let seats = json!([
        {"name": "Alice", "email": "alice@example.org", "public_key": key()},
        {"name": "Bob", "email": "bob@example.org", "public_key": key()},
    ]);
    let created = s
        .post_json("/api/games", None, &json!({"variant": "chess", "options": {"auth": "signature"}, "seats": seats}))
        .await
        .ok(201);
    let g = Game {
        id: created["game"]["id"].as_str().unwrap().to_owned(),
        tokens: created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect(),
    };
    let m =
        put(&s, &g, Some(&g.tokens[1]), &json!({"lines": [["e4", "e5"]]})).await.error(409, "conditional_not_offered");
    assert!(m.contains("signed"), "{m}");
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairschach_a_condition_is_the_opponents_move_of_the_same_turn() {
    let s = Server::start().await;
    let g = create(&s, "fairschach", 2, json!({})).await;
    // White has moved for turn 1; its lines answer Black's move of that turn.
    play(&s, &g, 0, 1, "e4").await;
    let kept = put(&s, &g, Some(&g.tokens[0]), &json!({"lines": [["e5", "d4"], ["d5", "Nf3", "Nf6", "d4"]]})).await;
    let kept = kept.ok(200);
    assert_eq!(kept["count"], 2, "{kept}");
    // Before White's own move the lines would wait for it: refused for Black.
    let m = put(&s, &g, Some(&g.tokens[1]), &json!({"lines": [["e4", "e5"]]})).await.error(422, "bad_conditional");
    assert!(m.contains("send that move first"), "{m}");
    play(&s, &g, 1, 1, "d5").await;
    // Turn 1 resolved; White's Nf3 is given for turn 2 at once, held until Black moves.
    let v = s.game(&g.id, Some(&g.tokens[1])).await;
    assert_eq!(v["turn"], 2, "{v}");
    assert_eq!(conditional_moves(&s, &g.id).await, [(2, "white".to_owned())]);
    play(&s, &g, 1, 2, "Nf6").await;
    // Turn 2 resolved: d4 given for turn 3.
    assert_eq!(conditional_moves(&s, &g.id).await, [(2, "white".to_owned()), (3, "white".to_owned())]);
    play(&s, &g, 1, 3, "Nc6").await;
    let moves = played(&s, &g.id).await;
    assert!(moves.contains(&"Nf3".to_owned()) && moves.contains(&"d4".to_owned()), "{moves:?}");
    assert_eq!(get(&s, &g, Some(&g.tokens[0])).await.ok(200)["count"], 0);
    verified(&s.api(), &g.id).await;
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vierschach_a_condition_is_every_other_seats_move() {
    let s = Server::start().await;
    let g = create(&s, "vierschach", 4, json!({})).await;
    play(&s, &g, 0, 1, "d2-d3").await;
    // South answers west, north and east; the second line is never played.
    let body = json!({"lines": [
        [{"west": "b6-c6", "north": "e13-e12", "east": "m7-l7"}, "k2-k3"],
        [{"west": "b7-c7", "north": "e13-e12", "east": "m7-l7"}, "j2-j3"],
    ]});
    let kept = put(&s, &g, Some(&g.tokens[0]), &body).await.ok(200);
    assert_eq!(kept["count"], 2, "{kept}");
    // A condition that leaves out a seat is refused, naming it.
    let m = put(&s, &g, Some(&g.tokens[0]), &json!({"lines": [[{"west": "b6-c6"}, "k2-k3"]]}))
        .await
        .error(422, "bad_conditional");
    assert!(m.contains("north"), "{m}");
    play(&s, &g, 1, 2, "b6-c6").await;
    play(&s, &g, 2, 3, "e13-e12").await;
    play(&s, &g, 3, 4, "m7-l7").await;
    assert_eq!(conditional_moves(&s, &g.id).await, [(5, "south".to_owned())]);
    let v = s.game(&g.id, None).await;
    assert_eq!(v["turn"], 6, "{v}");
    assert_eq!(get(&s, &g, Some(&g.tokens[0])).await.ok(200)["count"], 0);
    assert_nowhere(&s, &g, 0, "j2-j3").await;
    verified(&s.api(), &g.id).await;
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dreierschach_lines_in_the_mail_grammar_go_two_steps_deep() {
    let s = Server::start().await;
    let g = create(&s, "dreierschach", 3, json!({})).await;
    // Brown has not moved yet: its first condition is White's first move.
    let text = "if white a3-d4 then e1-e2 if black m12-m11, white d4-f7 then e2-e3";
    let kept = put(&s, &g, Some(&g.tokens[1]), &json!({"text": text})).await.ok(200);
    assert_eq!(kept["count"], 1, "{kept}");
    play(&s, &g, 0, 1, "a3-d4").await;
    play(&s, &g, 2, 3, "m12-m11").await;
    play(&s, &g, 0, 4, "d4-f7").await;
    assert_eq!(conditional_moves(&s, &g.id).await, [(2, "brown".to_owned()), (5, "brown".to_owned())]);
    assert_eq!(s.game(&g.id, None).await["turn"], 6);
    verified(&s.api(), &g.id).await;
    s.shut_down().await;
}
