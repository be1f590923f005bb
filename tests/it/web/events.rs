//! Live game events (issue 34): `GET /api/games/{id}/events` read as Server-Sent
//! Events over a real socket, byte by byte with reqwest's streaming body, while
//! moves are made by HTTP: chess (turn-based), Fairschach (simultaneous: a seat
//! moved shows the seat and nothing of the move), Vierschach (four seats), the
//! spectator delay, the caps, the shutdown, and the game page in headless
//! Chromium redrawing itself after a move made by HTTP, without a reload.

use crate::support as common;

use std::time::Duration;

use common::Server;
use common::webdriver::Chromium;
use fairsteward::rules::{Options, VariantId};
use serde_json::{Value, json};

/// How long a test waits for an event that must come.
const WAIT: Duration = Duration::from_secs(20);

/// One event as it came.
#[derive(Debug)]
struct Sse {
    name: String,
    id: Option<String>,
    retry: Option<String>,
    data: Value,
}

/// An open stream: the response, the bytes not yet read as events, and every
/// byte that came (to look for what must never be in it).
struct Stream {
    response: reqwest::Response,
    pending: String,
    raw: String,
}

/// A client for streams: no timeout on the whole answer (a stream lasts).
fn stream_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// Sends the events request of `id` (`token`: `Authorization: Bearer`; `headers`: more).
async fn request(s: &Server, id: &str, token: Option<&str>, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut req = stream_client().get(format!("{}/api/games/{id}/events", s.base));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.expect("the steward answers")
}

impl Stream {
    /// Opens the stream of `id`; must be 200 `text/event-stream`.
    async fn open(s: &Server, id: &str, token: Option<&str>) -> Stream {
        Stream::open_with(s, id, token, &[]).await
    }

    async fn open_with(s: &Server, id: &str, token: Option<&str>, headers: &[(&str, &str)]) -> Stream {
        let response = request(s, id, token, headers).await;
        assert_eq!(response.status(), 200, "the stream of {id} opens");
        let ct = response.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(ct.starts_with("text/event-stream"), "{ct}");
        Stream { response, pending: String::new(), raw: String::new() }
    }

    /// The next event (comments skipped); `None` when the stream ended.
    async fn next(&mut self) -> Option<Sse> {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let (mut name, mut id, mut retry, mut data) = (String::from("message"), None, None, String::new());
                for line in block.lines() {
                    let (field, value) = line.split_once(':').unwrap_or((line, ""));
                    let value = value.strip_prefix(' ').unwrap_or(value);
                    match field {
                        "" => {} // a comment: keep-alive
                        "event" => name = value.to_owned(),
                        "id" => id = Some(value.to_owned()),
                        "retry" => retry = Some(value.to_owned()),
                        "data" => data.push_str(value),
                        other => panic!("an unknown field {other:?} in {block:?}"),
                    }
                }
                if data.is_empty() && name == "message" {
                    continue;
                }
                let data = serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {data}"));
                return Some(Sse { name, id, retry, data });
            }
            let chunk = tokio::time::timeout(WAIT, self.response.chunk())
                .await
                .expect("an event within 20 s")
                .expect("the stream reads without error")?;
            let text = std::str::from_utf8(&chunk).expect("UTF-8 events");
            self.raw.push_str(text);
            self.pending.push_str(text);
        }
    }

    /// The next event, which must be `name`; its data.
    async fn expect(&mut self, name: &str) -> Value {
        let e = self.next().await.unwrap_or_else(|| panic!("the stream ended before a {name} event"));
        assert_eq!(e.name, name, "{e:?}");
        e.data
    }

    /// The stream ends (after what it sent).
    async fn expect_end_of_stream(&mut self) {
        if let Some(e) = self.next().await {
            panic!("an event after the end: {e:?}");
        }
    }
}

/// A game of `variant` with `options`; its id and the tokens in seat order.
async fn create(s: &Server, variant: VariantId, options: Value) -> (String, Vec<String>) {
    let rules = variant.rulebook(&Options::new()).unwrap();
    let seats: Vec<Value> = (0..rules.seat_names().len())
        .map(|i| json!({"name": format!("Player{i}"), "email": format!("p{i}.events@example.org")}))
        .collect();
    let created = s
        .post_json("/api/games", None, &json!({"variant": variant.name(), "options": options, "seats": seats}))
        .await
        .ok(201);
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (created["game"]["id"].as_str().unwrap().to_owned(), tokens)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_stream_tells_turns_draw_offers_and_the_end() {
    let s = Server::start().await;
    let (id, t) = create(&s, VariantId::Chess, json!({})).await;
    let mut public = Stream::open(&s, &id, None).await;
    let mut white = Stream::open(&s, &id, Some(&t[0])).await;
    let first = public.next().await.unwrap();
    assert_eq!(first.name, "state");
    assert_eq!(first.retry.as_deref(), Some("3000"), "the first event says how long to wait before reconnecting");
    assert_eq!(first.data["game"], id.as_str());
    assert_eq!(first.data["turn"], 1);
    assert_eq!(first.data["to_move"], json!(["white"]));
    assert_eq!(first.data["resolved_turns"], 0);
    assert_eq!(white.expect("state").await["turn"], 1);

    s.mv(&id, &t[0], 1, "e4").await.ok(200);
    for stream in [&mut public, &mut white] {
        let e = stream.next().await.unwrap();
        assert_eq!(e.name, "turn", "{e:?}");
        assert_eq!(e.data["turn"], 1);
        assert_eq!(e.data["move_number"], "1.");
        assert_eq!(e.data["moves"][0]["seat"], "white");
        assert_eq!(e.data["moves"][0]["move"], "e4");
        assert_eq!(e.data["next_turn"], 2);
        assert_eq!(e.data["next_move_number"], "1...");
        assert_eq!(e.data["to_move"], json!(["black"]));
        assert!(e.id.is_some(), "every event has an id");
    }

    // A draw offer, then its withdrawal.
    s.post_json(&format!("/api/games/{id}/draw"), Some(&t[1]), &json!({"action": "offer"})).await.ok(200);
    let d = public.expect("draw").await;
    assert_eq!((d["seat"].as_str(), d["offered"].as_bool()), (Some("black"), Some(true)), "{d}");
    assert_eq!(white.expect("draw").await["seat"], "black");
    s.post_json(&format!("/api/games/{id}/draw"), Some(&t[1]), &json!({"action": "decline"})).await.ok(200);
    assert_eq!(public.expect("draw").await["offered"], false);
    assert_eq!(white.expect("draw").await["offered"], false);

    // A client that reconnects (Last-Event-ID) is told where the game stands first.
    let mut again = Stream::open_with(&s, &id, None, &[("Last-Event-ID", "2")]).await;
    let state = again.expect("state").await;
    assert_eq!((state["turn"].as_u64(), state["resolved_turns"].as_u64()), (Some(2), Some(1)), "{state}");
    assert_eq!(state["to_move"], json!(["black"]));
    // The game page names the same transcript entry, so its script can tell a
    // change made before its stream opened (and redraw for it).
    let page = s.get(&format!("/games/{id}"), None).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let drawn_at = format!("data-seq=\"{}\"", state["transcript_seq"]);
    assert!(state["transcript_seq"].is_u64() && page.text.contains(&drawn_at), "{drawn_at} in {}", page.text);

    // The end: every stream says the result, then ends.
    s.post(&format!("/api/games/{id}/resign"), Some(&t[1]), "").await.ok(200);
    for stream in [&mut public, &mut white, &mut again] {
        let end = stream.expect("end").await;
        assert_eq!(end["result"], "1-0", "{end}");
        assert_eq!(end["reason"], "resignation");
        stream.expect_end_of_stream().await;
    }
    // A stream of a game over: the state, the end, and nothing more.
    let mut late = Stream::open(&s, &id, None).await;
    assert_eq!(late.expect("state").await["outcome"]["result"], "1-0");
    assert_eq!(late.expect("end").await["result"], "1-0");
    late.expect_end_of_stream().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairschach_stream_names_the_seat_that_moved_and_nothing_of_its_move() {
    let s = Server::start().await;
    let (id, t) = create(&s, VariantId::Fairschach, json!({})).await;
    let mut public = Stream::open(&s, &id, None).await;
    let mut white = Stream::open(&s, &id, Some(&t[0])).await;
    let mut black = Stream::open(&s, &id, Some(&t[1])).await;
    for stream in [&mut public, &mut white, &mut black] {
        assert_eq!(stream.expect("state").await["to_move"], json!(["white", "black"]));
    }

    // White's move is sealed until black's is in: the streams say only that
    // white moved, even white's own.
    let receipt = s.mv(&id, &t[0], 1, "Nf3").await.ok(200);
    assert_eq!(receipt["resolved"], false);
    for stream in [&mut public, &mut white, &mut black] {
        let moved = stream.expect("moved").await;
        assert_eq!(moved, json!({"game": id, "turn": 1, "seat": "white", "kind": "move"}));
        for secret in ["Nf3", "g1f3", "f3", "pending"] {
            assert!(!stream.raw.contains(secret), "{secret} is in the stream: {}", stream.raw);
        }
    }
    // The API shows white its own pending move, to nobody else.
    assert_eq!(s.game(&id, Some(&t[0])).await["seats"][0]["pending_move"], "Nf3");

    // Black's move completes the turn: now both are told.
    s.mv(&id, &t[1], 1, "Nc6").await.ok(200);
    for stream in [&mut public, &mut white, &mut black] {
        let turn = stream.expect("turn").await;
        assert_eq!(turn["turn"], 1);
        let moves: Vec<(&str, &str)> = turn["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["seat"].as_str().unwrap(), m["move"].as_str().unwrap()))
            .collect();
        assert_eq!(moves, [("white", "Nf3"), ("black", "Nc6")], "{turn}");
        assert_eq!(turn["next_turn"], 2);
    }

    // Black moves first in turn 2: black's move stays out of every stream.
    s.mv(&id, &t[1], 2, "e5").await.ok(200);
    for stream in [&mut public, &mut white, &mut black] {
        assert_eq!(stream.expect("moved").await["seat"], "black");
        let after_turn_1 = stream.raw.split("event: moved").last().unwrap();
        assert!(!after_turn_1.contains("e5") && !after_turn_1.contains("e7"), "{after_turn_1}");
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_reveal_stream_tells_commitments_and_reveals_by_seat_only() {
    use fairsteward::protocol::{commitment, random_salt};
    let s = Server::start().await;
    let (id, t) = create(&s, VariantId::Fairschach, json!({"secrecy": "commit-reveal"})).await;
    let mut public = Stream::open(&s, &id, None).await;
    assert_eq!(public.expect("state").await["phase"], "commit");
    let salts = [random_salt(), random_salt()];
    for (i, (seat, mv)) in [("white", "Nh3"), ("black", "Nh6")].into_iter().enumerate() {
        let c = hex(&commitment(&id, seat, 1, mv, &salts[i]));
        s.post_json(&format!("/api/games/{id}/moves"), Some(&t[i]), &json!({"turn": 1, "commit": c})).await.ok(200);
        let e = public.expect("moved").await;
        assert_eq!(e, json!({"game": id, "turn": 1, "seat": seat, "kind": "commit"}));
    }
    s.post_json(
        &format!("/api/games/{id}/moves"),
        Some(&t[0]),
        &json!({"turn": 1, "move": "Nh3", "salt": hex(&salts[0])}),
    )
    .await
    .ok(200);
    assert_eq!(public.expect("moved").await, json!({"game": id, "turn": 1, "seat": "white", "kind": "move"}));
    assert!(!public.raw.contains("Nh3") && !public.raw.contains("Nh6"), "{}", public.raw);
    s.post_json(
        &format!("/api/games/{id}/moves"),
        Some(&t[1]),
        &json!({"turn": 1, "move": "Nh6", "salt": hex(&salts[1])}),
    )
    .await
    .ok(200);
    let turn = public.expect("turn").await;
    assert_eq!((turn["moves"][0]["move"].as_str(), turn["moves"][1]["move"].as_str()), (Some("Nh3"), Some("Nh6")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vierschach_stream_follows_four_seats_in_turn() {
    let s = Server::start().await;
    let (id, t) = create(&s, VariantId::Vierschach, json!({})).await;
    let mut public = Stream::open(&s, &id, None).await;
    let state = public.expect("state").await;
    let mut seats = vec![state["to_move"][0].as_str().unwrap().to_owned()];
    let names: Vec<String> = s.game(&id, None).await["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["seat"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names.len(), 4);
    for turn in 1..=4u32 {
        let v = s.game(&id, None).await;
        let seat = v["to_move"][0].as_str().unwrap().to_owned();
        let i = names.iter().position(|n| *n == seat).unwrap();
        let legal = s.get(&format!("/api/games/{id}/legal"), Some(&t[i])).await.ok(200);
        let mv = legal["seats"][0]["moves"][0]["notation"].as_str().unwrap().to_owned();
        s.mv(&id, &t[i], turn, &mv).await.ok(200);
        let e = public.expect("turn").await;
        assert_eq!(e["turn"], turn);
        assert_eq!(e["moves"][0]["seat"], seat.as_str());
        assert_eq!(e["moves"][0]["move"], mv.as_str());
        let next = s.game(&id, None).await;
        assert_eq!(e["to_move"], next["to_move"], "the event names whom the view waits for");
        assert_eq!(e["next_move_number"], next["move_number"]);
        seats.push(next["to_move"][0].as_str().unwrap().to_owned());
    }
    let mut distinct = seats[..4].to_vec();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "four seats moved in turn: {seats:?}");
    // A draw offer in a game of four.
    s.post_json(&format!("/api/games/{id}/draw"), Some(&t[2]), &json!({"action": "offer"})).await.ok(200);
    assert_eq!(public.expect("draw").await["seat"], names[2].as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_hear_of_a_turn_no_sooner_than_the_delayed_view_shows_it() {
    let s = Server::start().await;
    let (id, t) = create(&s, VariantId::Chess, json!({"spectator_delay": 1})).await;
    let mut public = Stream::open(&s, &id, None).await;
    let mut white = Stream::open(&s, &id, Some(&t[0])).await;
    assert_eq!(public.expect("state").await["spectator_delay"], 1);
    white.expect("state").await;
    // Black follows by the page's session cookie (what a browser's EventSource
    // sends): the seat's own view, at once, like a token's.
    let mut page = common::web::Browser::new(&s);
    let link = common::web::sign_in_link(&s.config.data_dir.join("spool"), &id, "black").await;
    assert_eq!(page.open_link(&link).await.status, 200);
    let cookie = page.cookie.clone().expect("a session cookie");
    let mut black = Stream::open_with(&s, &id, None, &[("Cookie", &cookie)]).await;
    black.expect("state").await;

    s.mv(&id, &t[0], 1, "e4").await.ok(200);
    // The seats see the turn at once.
    assert_eq!(white.expect("turn").await["moves"][0]["move"], "e4");
    let seen = black.expect("turn").await;
    assert_eq!((seen["moves"][0]["move"].as_str(), seen["to_move"].clone()), (Some("e4"), json!(["black"])));
    s.mv(&id, &t[1], 2, "c5").await.ok(200);
    assert_eq!(white.expect("turn").await["moves"][0]["move"], "c5");
    // The spectator hears of turn 1 only now that turn 2 is resolved, and of
    // turn 2 not at all: the delayed view stops at turn 1.
    let turn = public.expect("turn").await;
    assert_eq!(turn["turn"], 1, "{turn}");
    assert_eq!(turn["moves"][0]["move"], "e4");
    assert!(turn["to_move"].is_null(), "a delayed spectator is not told who owes now: {turn}");
    let delayed = s.game(&id, None).await;
    assert_eq!(delayed["history"].as_array().unwrap().len(), 1);
    assert!(!public.raw.contains("c5"), "turn 2 is in the spectator's stream: {}", public.raw);

    s.mv(&id, &t[0], 3, "Nf3").await.ok(200);
    assert_eq!(white.expect("turn").await["turn"], 3);
    let turn = public.expect("turn").await;
    assert_eq!(turn["turn"], 2);
    assert_eq!(turn["moves"][0]["move"], "c5");
    assert!(!public.raw.contains("Nf3"), "turn 3 is in the spectator's stream");

    // The end shows everything to everyone.
    s.post(&format!("/api/games/{id}/resign"), Some(&t[1]), "").await.ok(200);
    assert_eq!(public.expect("turn").await["turn"], 3);
    assert_eq!(public.expect("end").await["result"], "1-0");
    public.expect_end_of_stream().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_are_capped_per_client_and_refused_as_the_api_refuses() {
    let s = Server::start().await;
    let (id, t) = create(&s, VariantId::Chess, json!({})).await;
    let cap = s.config.http_limits.max_event_streams_per_client;
    assert_eq!(cap, 8, "the documented default");
    let mut open = Vec::new();
    for _ in 0..cap {
        let mut stream = Stream::open(&s, &id, None).await;
        stream.expect("state").await;
        open.push(stream);
    }
    let refused = request(&s, &id, None, &[]).await;
    assert_eq!(refused.status(), 429);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "too_many_streams", "{body}");
    assert!(body["message"].as_str().unwrap().contains("close one"), "{body}");
    // A closed stream gives its place back (once the steward notices).
    let mut closed = open.pop().unwrap();
    s.mv(&id, &t[0], 1, "e4").await.ok(200);
    closed.expect("turn").await;
    drop(closed);
    let mut again = None;
    for _ in 0..200 {
        let r = request(&s, &id, None, &[]).await;
        if r.status() == 200 {
            again = Some(r);
            break;
        }
        assert_eq!(r.status(), 429);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(again.is_some(), "a stream's place came back after it closed");

    // The game and the token are checked before the caps (still full here).

    // Refusals as the API's: an unknown game, a wrong token.
    let unknown = request(&s, "ZZZZZZ", None, &[]).await;
    assert_eq!(unknown.status(), 404);
    assert_eq!(unknown.json::<Value>().await.unwrap()["error"], "unknown_game");
    let wrong = request(&s, &id, Some("not-a-token"), &[]).await;
    assert_eq!(wrong.status(), 401);
    assert!(wrong.json::<Value>().await.unwrap()["error"].is_string());
    let bad = stream_client().get(format!("{}/api/games/{id}/events?colour=red", s.base)).send().await.unwrap();
    assert_eq!(bad.status(), 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_streams_end_cleanly_when_the_steward_shuts_down() {
    let s = Server::start().await;
    let (id, _) = create(&s, VariantId::Dreierschach, json!({})).await;
    let mut streams = Vec::new();
    for _ in 0..3 {
        let mut stream = Stream::open(&s, &id, None).await;
        stream.expect("state").await;
        streams.push(stream);
    }
    // The start mails out first: the shutdown then waits for nothing else.
    let spool = s.config.spool_dir.clone();
    common::eventually("the start mails", || (common::spool_files(&spool).len() >= 3).then_some(())).await;
    let stopping = tokio::spawn(s.shut_down());
    // The streams end at once, cleanly (the last chunk, not a connection cut
    // off when the door's 5 s of grace for requests in flight run out).
    tokio::time::timeout(Duration::from_secs(4), async {
        for mut stream in streams {
            stream.expect_end_of_stream().await;
        }
    })
    .await
    .expect("the streams end well before the door's grace runs out");
    stopping.await.expect("the steward shuts down");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_page_redraws_itself_after_a_move_made_by_http() {
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    let s = Server::start().await;
    let browser = Chromium::start(360, 780, &shots).await;
    let (id, t) = create(&s, VariantId::Chess, json!({})).await;
    browser.open(&format!("{}/games/{id}", s.base)).await;
    browser.wait_for_text("Waiting for white").await;
    // A mark that a reload would wipe out.
    browser.script("window.liveMark = 'still here';", json!([])).await;
    s.mv(&id, &t[0], 1, "e4").await.ok(200);
    browser.wait_for_text("Waiting for black").await;
    let mark = browser.script("return window.liveMark || null;", json!([])).await;
    assert_eq!(mark, "still here", "the page redrew itself without a reload");
    let redraws = browser.script("return document.getElementById('main').getAttribute('data-live');", json!([])).await;
    assert!(redraws.as_str().is_some_and(|n| n.parse::<u32>().unwrap() >= 1), "{redraws}");
    browser.screenshot("live-01-chess-after-e4-by-http").await;
    s.mv(&id, &t[1], 2, "e5").await.ok(200);
    browser.wait_for_text("Waiting for white").await;
    assert_eq!(browser.script("return window.liveMark || null;", json!([])).await, "still here");
    // A seat in the middle of a move is not interrupted: a note offers the
    // redraw, and the piece it took stays taken until it asks.
    let link = common::web::sign_in_link(&s.config.data_dir.join("spool"), &id, "white").await;
    browser.open(&link).await;
    browser.wait_for_text("You play white").await;
    browser.script("window.liveMark = 'seat';", json!([])).await;
    browser.click(".hit[data-cell=\"g1\"]").await;
    s.post_json(&format!("/api/games/{id}/draw"), Some(&t[1]), &json!({"action": "offer"})).await.ok(200);
    browser.wait_for_text("The game has changed since this page was drawn.").await;
    assert!(!browser.text().await.contains("A draw is offered."), "the page redrew under the player's hand");
    assert!(browser.classes(".hit[data-cell=\"g1\"]").await.contains("selected"), "the piece taken stays taken");
    browser.screenshot("live-02-chess-white-busy-note").await;
    browser.click("#live-note button").await;
    browser.wait_for_text("A draw is offered.").await;
    assert_eq!(browser.script("return window.liveMark || null;", json!([])).await, "seat");

    // The end closes the stream; the page shows the result.
    s.post(&format!("/api/games/{id}/resign"), Some(&t[0]), "").await.ok(200);
    browser.wait_for_text("The game is over: 0-1").await;
    assert_eq!(browser.script("return window.liveMark || null;", json!([])).await, "seat");
}
