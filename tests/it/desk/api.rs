//! The desk over HTTP: each tool on a real steward over a real socket, the
//! transcripts checked by `fairsteward verify` (the binary), a director's
//! token inserted into the real SQLite file of the steward.

use std::process::Command;

use crate::support::transcript::{kinds, resign_chain, verified};
use crate::support::{Server, eventually, parse_mail, spool_files};
use fairsteward::protocol::public_key_from_base64;
use serde_json::{Value, json};

/// A created game: id and seat tokens, in seat order.
struct Game {
    id: String,
    tokens: Vec<String>,
}

fn players(n: usize) -> Vec<Value> {
    ["Alice", "Bob", "Carol", "Dave"]
        .iter()
        .take(n)
        .map(|p| json!({"name": p, "email": format!("{}@example.org", p.to_lowercase())}))
        .collect()
}

async fn create(s: &Server, variant: &str, options: Value, seats: usize) -> Game {
    let v = s
        .post_json("/api/games", None, &json!({"variant": variant, "options": options, "seats": players(seats)}))
        .await
        .ok(201);
    Game {
        id: v["game"]["id"].as_str().unwrap().to_owned(),
        tokens: v["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect(),
    }
}

/// The operator adjudicates a chess, a Dreierschach and a Vierschach game in
/// each game's terms; each shows as adjudicated, and verify says so.
#[tokio::test]
async fn adjudication_in_two_three_and_four_seat_games_verifies_as_adjudicated() {
    let s = Server::start().await;
    let op = s.operator.clone();
    let cases = [
        ("chess", json!({}), 2, json!("black"), "0-1", json!("black")),
        (
            "dreierschach",
            json!({}),
            3,
            json!({"white": 1, "brown": 3, "black": 0}),
            "white 1, brown 3, black 0 (adjudicated)",
            json!("brown"),
        ),
        (
            "vierschach",
            json!({"mode": "teams"}),
            4,
            json!(["south", "north"]),
            "south and north win (adjudicated)",
            json!("south and north"),
        ),
    ];
    for (variant, options, seats, result, shown, winner) in cases {
        let g = create(&s, variant, options, seats).await;
        let v = s
            .post_json(
                &format!("/api/games/{}/adjudicate", g.id),
                Some(&op),
                &json!({"result": result, "reason": "the end date passed"}),
            )
            .await
            .ok(200);
        assert_eq!(v["outcome"]["reason"], "adjudicated", "{variant}: {v}");
        assert_eq!(v["outcome"]["result"], shown, "{variant}");
        assert_eq!(v["outcome"]["winner"], winner, "{variant}");
        let out = verified(&s.api(), &g.id).await;
        assert!(out.contains("decided by an organiser, not played to its end"), "{variant}: {out}");
        assert!(out.contains("the adjudication by the operator (the end date passed)"), "{variant}: {out}");
        // Over is over: a second decision is refused, and so are moves.
        let again = s.post_json(&format!("/api/games/{}/abort", g.id), Some(&op), &json!({"reason": "twice"})).await;
        again.error(409, "game_over");
    }
    // A result that is not the game's: a seat it lacks, every seat winning.
    let g = create(&s, "chess", json!({}), 2).await;
    for (bad, says) in [(json!("brown"), "no seat"), (json!(["white", "black"]), "draw")] {
        let a = s
            .post_json(&format!("/api/games/{}/adjudicate", g.id), Some(&op), &json!({"result": bad, "reason": "x"}))
            .await;
        let m = a.error(400, "bad_request");
        assert!(m.contains(says), "{m}");
    }
    let a = s
        .post_json(&format!("/api/games/{}/adjudicate", g.id), Some(&op), &json!({"result": "draw", "reason": " "}))
        .await;
    assert!(a.error(400, "bad_request").contains("needs a reason"));
    // A seat token is no organiser's.
    let a = s
        .post_json(
            &format!("/api/games/{}/adjudicate", g.id),
            Some(&g.tokens[0]),
            &json!({"result": "white", "reason": "x"}),
        )
        .await;
    a.error(401, "organiser_token_required");
    s.shut_down().await;
}

/// An aborted game has no result: `*`, and verify says who aborted it.
#[tokio::test]
async fn an_aborted_game_has_no_result_and_verifies() {
    let s = Server::start().await;
    let g = create(&s, "chess", json!({}), 2).await;
    s.mv(&g.id, &g.tokens[0], 1, "e4").await.ok(200);
    let v = s
        .post_json(&format!("/api/games/{}/abort", g.id), Some(&s.operator), &json!({"reason": "both players left"}))
        .await
        .ok(200);
    assert_eq!((v["outcome"]["result"].clone(), v["outcome"]["reason"].clone()), (json!("*"), json!("aborted")));
    assert_eq!(v["outcome"]["winner"], Value::Null);
    s.mv(&g.id, &g.tokens[1], 2, "e5").await.error(409, "game_over");
    let pgn = s.get(&format!("/api/games/{}/record.pgn", g.id), None).await;
    assert!(pgn.text.contains("[Result \"*\"]"), "{}", pgn.text);
    let out = verified(&s.api(), &g.id).await;
    assert!(out.contains("no result (aborted), after the abort by the operator (both players left)"), "{out}");
    s.shut_down().await;
}

/// A replacement in a chess, a Dreierschach and a Vierschach game: the new
/// player has the seat (its token works, the old one does not), the position
/// stays, the new token is mailed to the new address, and verify follows it.
#[tokio::test]
async fn a_replaced_player_inherits_the_seat_and_the_old_token_stops_working() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    for (variant, options, seats, seat) in [
        ("chess", json!({}), 2, "white"),
        ("dreierschach", json!({}), 3, "brown"),
        ("vierschach", json!({}), 4, "north"),
    ] {
        let g = create(&s, variant, options, seats).await;
        if variant == "chess" {
            s.mv(&g.id, &g.tokens[0], 1, "e4").await.ok(200);
            s.mv(&g.id, &g.tokens[1], 2, "e5").await.ok(200);
        }
        let before = s.game(&g.id, None).await;
        let i = before["seats"].as_array().unwrap().iter().position(|x| x["seat"] == seat).unwrap();
        let a = s
            .post_json(
                &format!("/api/games/{}/seats/{seat}/replace", g.id),
                Some(&s.operator),
                &json!({"name": "Erin", "email": "erin@example.org", "reason": "the player vanished"}),
            )
            .await
            .ok(201);
        assert_eq!(
            (a["seat"].as_str(), a["player"].as_str(), a["mailed_to"].as_str()),
            (Some(seat), Some("Erin"), Some("erin@example.org"))
        );
        let token = a["token"].as_str().unwrap().to_owned();
        let after = s.game(&g.id, Some(&token)).await;
        assert_eq!(after["state"], before["state"], "{variant}: the position stays");
        assert_eq!(after["seats"][i]["player"], "Erin");
        s.get(&format!("/api/games/{}", g.id), Some(&g.tokens[i])).await.error(401, "bad_token");
        if variant == "chess" {
            s.mv(&g.id, &g.tokens[0], 3, "Nf3").await.error(401, "bad_token");
            s.mv(&g.id, &token, 3, "Nf3").await.ok(200);
        }
        // The new player's mail holds the new token; nobody else's does.
        let mail = eventually("the new player's mail", || {
            spool_files(&spool).into_values().map(|b| parse_mail(&b)).find(|m| {
                m.header("To").contains("erin@example.org")
                    && m.all_text().contains(&token)
                    && m.header("Subject").contains(&g.id)
            })
        })
        .await;
        assert!(mail.all_text().contains("You take over seat"), "{}", mail.all_text());
        let old = before["seats"][i]["player"].as_str().unwrap().to_lowercase();
        eventually("the leaving player's mail", || {
            spool_files(&spool).into_values().map(|b| parse_mail(&b)).find(|m| {
                m.header("To").contains(&format!("{old}@example.org"))
                    && m.all_text().contains("no longer works")
                    && m.header("Subject").contains(&g.id)
            })
        })
        .await;
        let t = s.get(&format!("/api/games/{}/transcript", g.id), None).await.text;
        assert!(kinds(&t).contains(&"replaced".to_owned()), "{variant}");
        assert!(!t.contains(&token), "the transcript holds no token");
        let out = verified(&s.api(), &g.id).await;
        assert!(out.contains("1 seats given to a new player by an organiser"), "{variant}: {out}");
    }
    s.shut_down().await;
}

/// A new link for a seat: mailed to the registered address only, the old
/// token refused, the new one accepted; the transcript keeps no secret.
#[tokio::test]
async fn relink_mails_a_new_token_to_the_registered_address_and_the_old_one_stops() {
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let g = create(&s, "chess", json!({}), 2).await;
    let a = s.post(&format!("/api/games/{}/seats/black/relink", g.id), Some(&s.operator), Vec::new()).await.ok(201);
    assert_eq!(a["mailed_to"], "bob@example.org");
    let token = a["token"].as_str().unwrap().to_owned();
    s.get(&format!("/api/games/{}", g.id), Some(&g.tokens[1])).await.error(401, "bad_token");
    s.game(&g.id, Some(&token)).await;
    let holders: Vec<String> = eventually("the relink mail", || {
        let m: Vec<String> = spool_files(&spool)
            .into_values()
            .map(|b| parse_mail(&b))
            .filter(|m| m.all_text().contains(&token))
            .map(|m| m.header("To").to_owned())
            .collect();
        (!m.is_empty()).then_some(m)
    })
    .await;
    assert!(holders.iter().all(|to| to.contains("bob@example.org")), "{holders:?}");
    let t = s.get(&format!("/api/games/{}/transcript", g.id), None).await.text;
    assert!(kinds(&t).contains(&"relinked".to_owned()) && !t.contains(&token));
    verified(&s.api(), &g.id).await;
    // A seat the game does not have.
    let m = s.post(&format!("/api/games/{}/seats/brown/relink", g.id), Some(&s.operator), Vec::new()).await;
    assert!(m.error(400, "bad_request").contains("white, black"));
    s.shut_down().await;
}

/// An extension moves the seat's deadline by the hours given.
#[tokio::test]
async fn an_extension_moves_the_deadline() {
    let s = Server::start().await;
    let v = s
        .post_json(
            "/api/games",
            None,
            &json!({"variant": "chess", "options": {"clock": {"kind": "days_per_move", "days": 3}}, "seats": players(2)}),
        )
        .await
        .ok(201);
    let id = v["game"]["id"].as_str().unwrap().to_owned();
    let deadline =
        |v: &Value| chrono::DateTime::parse_from_rfc3339(v["seats"][0]["clock"]["deadline"].as_str().unwrap()).unwrap();
    let before = deadline(&s.game(&id, None).await);
    let a = s
        .post_json(
            &format!("/api/games/{id}/seats/white/extend"),
            Some(&s.operator),
            &json!({"days": 2, "reason": "illness"}),
        )
        .await
        .ok(200);
    assert_eq!(a["hours"], 48);
    let after = deadline(&s.game(&id, None).await);
    assert_eq!(after - before, chrono::Duration::hours(48));
    let a = s
        .post_json(
            &format!("/api/games/{id}/seats/white/extend"),
            Some(&s.operator),
            &json!({"hours": 0, "reason": "x"}),
        )
        .await;
    a.error(400, "bad_request");
    verified(&s.api(), &id).await;
    // A game without a clock has no deadline to extend.
    let g = create(&s, "chess", json!({}), 2).await;
    let a = s
        .post_json(
            &format!("/api/games/{}/seats/white/extend", g.id),
            Some(&s.operator),
            &json!({"hours": 5, "reason": "x"}),
        )
        .await;
    assert!(a.error(400, "bad_request").contains("no time control"));
    s.shut_down().await;
}

/// A director acts on its tournament's games and lists them; anywhere else
/// it gets a clear 403.
#[tokio::test]
async fn a_directors_token_acts_on_its_tournaments_games_only() {
    let s = Server::start().await;
    let mine = create(&s, "chess", json!({}), 2).await;
    let other = create(&s, "chess", json!({}), 2).await;
    let token = super::director(&s.config.data_dir, "TDESK01", "Dora", &[&mine.id]);
    let a = s.post_json(&format!("/api/games/{}/abort", other.id), Some(&token), &json!({"reason": "not mine"})).await;
    let m = a.error(403, "forbidden");
    assert!(m.contains("tournament TDESK01 only") && m.contains(&other.id), "{m}");
    for path in ["seats/white/relink", "seats/white/replace"] {
        let a = s
            .post_json(
                &format!("/api/games/{}/{path}", other.id),
                Some(&token),
                &json!({"name": "X", "email": "x@example.org", "reason": "r"}),
            )
            .await;
        assert!(a.status == 403 || a.status == 400, "{path}: {}", a.text);
    }
    s.game(&other.id, None).await; // untouched
    assert_eq!(s.game(&other.id, None).await["outcome"], Value::Null);
    let list = s.get("/api/games", Some(&token)).await.ok(200);
    let ids: Vec<&str> = list["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec![mine.id.as_str()]);
    assert_eq!(list["games"][0]["tournament"], "TDESK01");
    let v = s
        .post_json(
            &format!("/api/games/{}/adjudicate", mine.id),
            Some(&token),
            &json!({"result": "draw", "reason": "end date"}),
        )
        .await
        .ok(200);
    assert_eq!(v["outcome"]["result"], "1/2-1/2");
    let out = verified(&s.api(), &mine.id).await;
    assert!(out.contains("director Dora (tournament TDESK01)"), "{out}");
    s.shut_down().await;
}

/// `GET /api/games` lists for the operator with filters; `GET /api/me/games`
/// lists a player's games by a seat token.
#[tokio::test]
async fn the_lists_of_games_filter_and_a_player_sees_their_own() {
    let s = Server::start().await;
    let a = create(&s, "chess", json!({}), 2).await;
    let b = create(&s, "fairschach", json!({}), 2).await;
    s.post_json(&format!("/api/games/{}/resign", b.id), Some(&b.tokens[0]), &json!({})).await.ok(200);
    let ids = |v: &Value| -> Vec<String> {
        v["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap().to_owned()).collect()
    };
    let op = Some(s.operator.as_str());
    let all = s.get("/api/games", op).await.ok(200);
    assert_eq!(ids(&all), vec![b.id.clone(), a.id.clone()]);
    assert_eq!(all["games"][1]["seats"][0]["email"], "alice@example.org");
    assert_eq!(ids(&s.get("/api/games?status=running", op).await.ok(200)), vec![a.id.clone()]);
    assert_eq!(ids(&s.get("/api/games?status=finished", op).await.ok(200)), vec![b.id.clone()]);
    assert_eq!(ids(&s.get("/api/games?to_move", op).await.ok(200)), vec![a.id.clone()]);
    assert_eq!(ids(&s.get("/api/games?to_move=alice", op).await.ok(200)), vec![a.id.clone()]);
    assert!(ids(&s.get("/api/games?to_move=bob", op).await.ok(200)).is_empty());
    assert_eq!(ids(&s.get("/api/games?q=BOB@example", op).await.ok(200)).len(), 2);
    assert!(ids(&s.get("/api/games?q=nobody", op).await.ok(200)).is_empty());
    assert!(ids(&s.get("/api/games?overdue=true", op).await.ok(200)).is_empty());
    assert!(ids(&s.get("/api/games?on_leave", op).await.ok(200)).is_empty());
    s.get("/api/games?status=paused", op).await.error(400, "bad_request");
    s.get("/api/games?colour=red", op).await.error(400, "bad_request");
    s.get("/api/games", None).await.error(401, "organiser_token_required");
    s.get("/api/games", Some(&a.tokens[0])).await.error(401, "organiser_token_required");
    let mine = s.get("/api/me/games", Some(&a.tokens[1])).await.ok(200);
    assert_eq!(ids(&mine), vec![b.id.clone(), a.id.clone()], "Bob plays both");
    s.get("/api/me/games", None).await.error(401, "bad_token");
    s.get("/api/me/games", Some("nonsense")).await.error(401, "bad_token");
    // A player's web session (signed in with the seat token of one game) lists
    // the address's games too.
    let mut browser = crate::support::web::Browser::new(&s);
    let signed = browser.post("/sign-in", &[("token", &a.tokens[0])]).await;
    assert_eq!(signed.status, 303, "{}", signed.text);
    let page = browser.get("/api/me/games").await;
    assert_eq!(page.status, 200, "{}", page.text);
    let v: Value = serde_json::from_str(&page.text).unwrap();
    assert_eq!(ids(&v), vec![b.id.clone(), a.id.clone()], "Alice plays both");
    s.shut_down().await;
}

/// `fairsteward game list` prints a table (`!` for a seat past its deadline),
/// filters it, and keeps `--json` for the raw form.
#[tokio::test]
async fn game_list_prints_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start_in(dir.path()).await;
    let a = create(&s, "chess", json!({}), 2).await;
    let b = create(&s, "dreierschach", json!({}), 3).await;
    s.post_json(&format!("/api/games/{}/abort", b.id), Some(&s.operator), &json!({"reason": "test"})).await.ok(200);
    s.shut_down().await;
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
            .args(["game", "list", "--data-dir"])
            .arg(dir.path())
            .envs(crate::support::backend::database_env(dir.path()))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let table = run(&[]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(lines[0].starts_with("ID") && lines[0].contains("PLAYERS"), "{table}");
    assert!(lines[1].starts_with(&b.id) && lines[1].contains("no result (aborted)"), "{table}");
    assert!(lines[2].starts_with(&a.id) && lines[2].contains("white: Alice <alice@example.org>"), "{table}");
    let running = run(&["--status", "running"]);
    assert!(running.contains(&a.id) && !running.contains(&b.id), "{running}");
    assert!(run(&["--search", "nobody"]).contains("no games"));
    let raw: Value = serde_json::from_str(&run(&["--json"])).unwrap();
    assert_eq!(raw.as_array().unwrap().len(), 2);
}

/// `verify` holds an organiser's decision to its word: the `ended` entry must
/// state the decided result, the decision must be the result it states, and
/// it must name who decided.
#[tokio::test]
async fn verify_rejects_a_rewritten_adjudication() {
    let s = Server::start().await;
    let g = create(&s, "chess", json!({}), 2).await;
    s.post_json(
        &format!("/api/games/{}/adjudicate", g.id),
        Some(&s.operator),
        &json!({"result": "white", "reason": "r"}),
    )
    .await
    .ok(200);
    let t = s.get(&format!("/api/games/{}/transcript", g.id), None).await.text;
    let info = s.get("/api/steward", None).await.ok(200);
    let key = public_key_from_base64(info["signing_key"].as_str().unwrap()).unwrap();
    let keys = fairsteward::protocol::StewardKeys::load_or_create(&s.config.data_dir).unwrap();
    let entries: Vec<Value> = t.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let n = entries.len();
    assert_eq!(entries[n - 2]["kind"], "adjudicated");
    use fairsteward::protocol::verify::verify;
    verify(&resign_chain(entries.clone(), &keys), &key).expect("re-signed unchanged");
    let mut forged = entries.clone();
    forged[n - 1]["body"]["result"] = json!("0-1");
    forged[n - 1]["body"]["winner"] = json!("black");
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("a contradicting ended");
    assert!(f.seq == n && f.why.contains("the adjudication by the operator"), "{f}");
    let mut forged = entries.clone();
    forged[n - 2]["body"]["decision"] = json!("black");
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("a decision that is not the stated result");
    assert!(f.seq == n - 1 && f.why.contains("decides"), "{f}");
    let mut forged = entries.clone();
    forged[n - 2]["body"].as_object_mut().unwrap().remove("by");
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("a decision by nobody");
    assert!(f.why.contains("by is missing"), "{f}");
    let mut forged = entries.clone();
    forged[n - 1]["body"]["reason"] = json!("resignation");
    let f = verify(&resign_chain(forged, &keys), &key).expect_err("played, not adjudicated");
    assert!(f.seq == n, "{f}");
    s.shut_down().await;
}

/// The tools take the bodies the OpenAPI document describes (issue 34): an
/// extension in hours or in days, never both or neither; a relink or a
/// withdrawal with no body, `null` or `{}` only; and the document lists the
/// desk's, the tournaments' and the invitations' routes.
#[tokio::test]
async fn the_tools_take_the_bodies_the_openapi_document_describes() {
    let s = Server::start().await;
    let op = s.operator.clone();
    let g = create(&s, "chess", json!({"clock": {"kind": "days_per_move", "days": 3}}), 2).await;
    let extend = format!("/api/games/{}/seats/white/extend", g.id);
    for both_or_neither in [json!({"hours": 5, "days": 1, "reason": "ill"}), json!({"reason": "ill"})] {
        s.post_json(&extend, Some(&op), &both_or_neither).await.error(400, "bad_request");
    }
    let a = s.post_json(&extend, Some(&op), &json!({"hours": 5, "reason": "ill"})).await.ok(200);
    assert_eq!(a["hours"], 5);
    let relink = format!("/api/games/{}/seats/black/relink", g.id);
    s.post_json(&relink, Some(&op), &json!({"seat": "white"})).await.error(400, "bad_request");
    for nothing in ["", "null", "{}"] {
        assert_eq!(s.post(&relink, Some(&op), nothing).await.ok(201)["seat"], "black", "{nothing:?}");
    }
    let t = s
        .post_json("/api/tournaments", Some(&op), &json!({"name": "Club", "variant": "chess", "players": players(3)}))
        .await
        .ok(201);
    let withdraw = format!("/api/tournaments/{}/players/0/withdraw", t["tournament"]["id"].as_str().unwrap());
    s.post_json(&withdraw, Some(&op), &json!({"player": 1})).await.error(400, "bad_request");
    s.post(&withdraw, Some(&op), "null").await.ok(200);
    let doc = s.get("/api/openapi.json", None).await.ok(200);
    for (path, method) in [
        ("/api/games/{id}/adjudicate", "post"),
        ("/api/games/{id}/abort", "post"),
        ("/api/games/{id}/seats/{seat}/extend", "post"),
        ("/api/games/{id}/seats/{seat}/replace", "post"),
        ("/api/games/{id}/seats/{seat}/relink", "post"),
        ("/api/tournaments", "get"),
        ("/api/tournaments", "post"),
        ("/api/tournaments/{id}", "get"),
        ("/api/tournaments/{id}/standings.csv", "get"),
        ("/api/tournaments/{id}/games.pgn", "get"),
        ("/api/tournaments/{id}/directors", "post"),
        ("/api/tournaments/{id}/players/{player}/withdraw", "post"),
        ("/api/tournaments/{id}/adjudicate", "post"),
        ("/api/tournaments/{id}/invite", "post"),
        ("/api/tournaments/{id}/start", "post"),
        ("/api/tournaments/{id}/players/{n}/replace", "post"),
        ("/api/invitations", "get"),
        ("/api/invitations/{token}", "get"),
        ("/api/invitations/{token}/accept", "post"),
        ("/api/invitations/{token}/decline", "post"),
        ("/api/invited-games/{id}", "get"),
        ("/api/invited-games/{id}/start", "post"),
        ("/api/invited-games/{id}/seats/{n}/replace", "post"),
    ] {
        let op = &doc["paths"][path][method];
        assert!(
            op["summary"].is_string() && (op["responses"]["200"].is_object() || op["responses"]["201"].is_object()),
            "{method} {path}"
        );
    }
    s.shut_down().await;
}
