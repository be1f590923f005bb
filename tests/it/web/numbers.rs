//! Issue 32, slice T: one move number everywhere players see one (API, mail
//! subject and body, page, PGN), the legal moves over HTTP against
//! `fairsteward rules … legal`, and a player's games over HTTP — in every game.

use std::time::Duration;

use fairsteward::rules::{Options, VariantId};
use serde_json::{Value, json};

use crate::support::rules_cli::json_of;
use crate::support::{MAIL_DOMAIN, Server, eventually_within, parse_mail, spool_files};

/// The turns each game is played for.
const TURNS: u32 = 7;

/// Creates a game of `variant` with one player per seat; its id and the tokens in seat order.
async fn create(s: &Server, variant: VariantId) -> (String, Vec<String>) {
    let rules = variant.rulebook(&Options::new()).unwrap();
    let seats: Vec<Value> = rules
        .seat_names()
        .iter()
        .enumerate()
        .map(|(i, _)| json!({"name": format!("Player{i}"), "email": format!("p{i}@example.org")}))
        .collect();
    let created = s.post_json("/api/games", None, &json!({"variant": variant.name(), "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (id, tokens)
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_shows_one_move_number_and_lists_legal_moves_as_the_cli_does() {
    let s = Server::start().await;
    for variant in VariantId::ALL {
        let (id, tokens) = create(&s, variant).await;
        let names: Vec<String> = strs(&json!(
            s.game(&id, None).await["seats"].as_array().unwrap().iter().map(|x| x["seat"].clone()).collect::<Vec<_>>()
        ));
        for _ in 0..TURNS {
            let v = s.game(&id, None).await;
            if !v["outcome"].is_null() {
                break;
            }
            let turn = v["turn"].as_u64().unwrap() as u32;
            let state = v["state"].as_str().unwrap().to_owned();
            let to_move = strs(&v["to_move"]);
            // The spectator's list: every seat to move, each as its own token lists it.
            let spectator = s.get(&format!("/api/games/{id}/legal"), None).await.ok(200);
            assert_eq!(spectator["turn"], turn);
            assert_eq!(spectator["move_number"], v["move_number"], "{variant}");
            let listed: Vec<String> =
                spectator["seats"].as_array().unwrap().iter().map(|x| x["seat"].as_str().unwrap().to_owned()).collect();
            assert_eq!(listed, to_move, "{variant}: the spectator sees the seats to move");
            let mut moves = Vec::new();
            for seat_name in &to_move {
                let i = names.iter().position(|n| n == seat_name).unwrap();
                let own = s.get(&format!("/api/games/{id}/legal"), Some(&tokens[i])).await.ok(200);
                let mine = &own["seats"][0];
                assert_eq!(mine["seat"], seat_name.as_str());
                assert_eq!(mine["owes_move"], true);
                assert_eq!(mine["move_number"], v["seats"][i]["move_number"], "{variant}: {own}");
                let canonical: Vec<Value> =
                    mine["moves"].as_array().unwrap().iter().map(|m| m["canonical"].clone()).collect();
                let cli = json_of(variant.name(), &["legal", "--state", &state, "--side", seat_name]);
                assert_eq!(Value::from(canonical), cli, "{variant} {seat_name} at turn {turn}: the API and the CLI");
                let named = s.get(&format!("/api/games/{id}/legal?seat={seat_name}"), None).await.ok(200);
                assert_eq!(named["seats"][0]["moves"], mine["moves"], "{variant}: ?seat= lists the same");
                let spectator_seat =
                    spectator["seats"].as_array().unwrap().iter().find(|x| x["seat"] == seat_name.as_str()).unwrap();
                assert_eq!(spectator_seat["moves"], mine["moves"]);
                let first = &mine["moves"][0];
                assert!(!first.is_null(), "{variant}: {seat_name} has a legal move");
                moves.push((i, first["notation"].as_str().unwrap().to_owned()));
            }
            // A seat not to move hears so.
            if let Some(idle) = (0..names.len()).find(|i| !to_move.contains(&names[*i])) {
                let idle_list = s.get(&format!("/api/games/{id}/legal"), Some(&tokens[idle])).await.ok(200);
                assert_eq!(idle_list["seats"][0]["owes_move"], false);
                assert!(idle_list["seats"][0]["note"].as_str().unwrap().contains("is not to move"), "{idle_list}");
            }
            for (i, notation) in &moves {
                s.mv(&id, &tokens[*i], turn, notation).await.ok(200);
            }
            // The board mails of the turn: subject and body name the same number as the API.
            let v = s.game(&id, None).await;
            let resolved = v["history"].as_array().unwrap().last().unwrap().clone();
            assert_eq!(resolved["turn"], turn);
            let spool = s.config.spool_dir.clone();
            for (i, name) in names.iter().enumerate() {
                let file = format!("{id}.{turn}.{i}.turn@{MAIL_DOMAIN}.eml");
                let bytes =
                    eventually_within(Duration::from_secs(20), &file, || spool_files(&spool).remove(&file)).await;
                let mail = parse_mail(&bytes);
                let subject = mail.header("Subject").to_owned();
                let body = mail.text("text/plain");
                if !v["outcome"].is_null() {
                    assert!(subject.contains("is over"), "{subject}");
                    continue;
                }
                let headline = if strs(&v["to_move"]).contains(name) {
                    format!("your move {}", v["seats"][i]["move_number"].as_str().unwrap())
                } else {
                    format!("{} to move {}", strs(&v["to_move"]).join(" and "), v["move_number"].as_str().unwrap())
                };
                assert_eq!(subject, format!("Game {id}, {headline}"), "{variant}");
                assert!(
                    body.contains(&format!("Game {id} ({}), {headline} - {name}", variant.name())),
                    "{variant}: {body}"
                );
                if headline.starts_with("your move") {
                    assert!(body.contains(&format!("(API turn {})", turn + 1)), "{body}");
                }
                // The moves of the turn, numbered as the API numbers them.
                for m in resolved["moves"].as_array().unwrap() {
                    let line = format!(
                        "{} {}: {}",
                        m["number"].as_str().unwrap(),
                        m["seat"].as_str().unwrap(),
                        m["move"].as_str().unwrap()
                    );
                    assert!(body.contains(&line), "{variant}: {line:?} in {body}");
                }
            }
        }
        // The page: the move number now in its heading, one number column.
        let v = s.game(&id, None).await;
        let page = s.get(&format!("/games/{id}"), None).await.text;
        if let Some(n) = v["move_number"].as_str() {
            assert!(page.contains(&format!("move {n}</span>")), "{variant}: {page}");
        }
        assert!(!page.contains(r#"<th scope="col">Turn</th>"#), "{variant}");
        for t in v["history"].as_array().unwrap() {
            for m in t["moves"].as_array().unwrap() {
                let cell = format!(
                    r#"<td title="turn {}">{}</td><td>{}</td>"#,
                    t["turn"],
                    m["number"].as_str().unwrap(),
                    m["seat"].as_str().unwrap()
                );
                assert!(page.contains(&cell), "{variant}: {cell} in the page");
            }
        }
        // The PGN, where the game writes one, numbers the moves as the record does.
        let pgn = s.get(&format!("/api/games/{id}/record.pgn"), None).await;
        if pgn.status == 200 {
            let first = &v["history"][0]["moves"][0];
            assert!(
                pgn.text.contains(&format!(
                    "{} {}",
                    first["number"].as_str().unwrap(),
                    first["move"].as_str().unwrap()
                )),
                "{variant}: {}",
                pgn.text
            );
            let last_opening = v["history"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|t| t["moves"].as_array().unwrap().iter())
                .rfind(|m| !m["number"].as_str().unwrap().ends_with("..."))
                .unwrap();
            assert!(
                pgn.text.contains(&format!(
                    "{} {}",
                    last_opening["number"].as_str().unwrap(),
                    last_opening["move"].as_str().unwrap()
                )),
                "{variant}: {}",
                pgn.text
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_lists_refuse_what_they_must() {
    let s = Server::start().await;
    let (id, tokens) = create(&s, VariantId::Chess).await;
    s.get(&format!("/api/games/{id}/legal?seat=purple"), None).await.error(400, "bad_request");
    s.get(&format!("/api/games/{id}/legal?side=white"), None).await.error(400, "bad_request");
    s.get("/api/games/ZZZZZZ/legal", None).await.error(404, "unknown_game");
    s.get(&format!("/api/games/{id}/legal"), Some("nonsense")).await.error(401, "bad_token");
    // A game with a spectator delay lists its moves to its seats only.
    let seats = json!([{"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]);
    let created = s
        .post_json("/api/games", None, &json!({"variant": "chess", "seats": seats, "options": {"spectator_delay": 2}}))
        .await
        .ok(201);
    let delayed = created["game"]["id"].as_str().unwrap();
    let m = s.get(&format!("/api/games/{delayed}/legal"), None).await.error(403, "forbidden");
    assert!(m.contains("spectators") && m.contains("seat token"), "{m}");
    let white = created["tokens"][0]["token"].as_str().unwrap();
    let own = s.get(&format!("/api/games/{delayed}/legal"), Some(white)).await.ok(200);
    assert_eq!(own["seats"][0]["moves"].as_array().unwrap().len(), 20);
    assert_eq!(own["seats"][0]["move_number"], "1.");
    // After a resignation, the game takes no moves.
    s.post_json(&format!("/api/games/{id}/resign"), Some(&tokens[0]), &json!({})).await.ok(200);
    s.get(&format!("/api/games/{id}/legal"), Some(&tokens[1])).await.error(409, "game_over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_games_name_seats_opponents_and_the_move_owed() {
    let s = Server::start().await;
    let (a, ta) = create(&s, VariantId::Chess).await;
    let (b, tb) = create(&s, VariantId::Dreierschach).await;
    s.mv(&a, &ta[0], 1, "e4").await.ok(200);
    let mine = s.get("/api/me/games", Some(&tb[1])).await.ok(200);
    let games = mine["games"].as_array().unwrap();
    // Player1 (p1@example.org) holds black in the chess game and seat 1 in the other.
    let chess = games.iter().find(|g| g["id"] == a.as_str()).unwrap();
    assert_eq!(chess["your_seats"], json!(["black"]));
    assert_eq!(chess["opponents"], json!(["white: Player0"]));
    assert_eq!(chess["your_move"], true);
    assert_eq!(chess["your_move_number"], "1...");
    assert_eq!(chess["turn"], 2, "the game's own fields are kept");
    let three = games.iter().find(|g| g["id"] == b.as_str()).unwrap();
    assert_eq!(three["your_move"], false);
    assert_eq!(three["opponents"].as_array().unwrap().len(), 2);
    assert!(three["your_move_number"].is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_move_is_answered_with_the_forms_the_game_reads() {
    let s = Server::start().await;
    for variant in VariantId::ALL {
        let (id, tokens) = create(&s, variant).await;
        let v = s.game(&id, None).await;
        let first = strs(&v["to_move"])[0].clone();
        let i = strs(&json!(v["seats"].as_array().unwrap().iter().map(|x| x["seat"].clone()).collect::<Vec<_>>()))
            .iter()
            .position(|n| *n == first)
            .unwrap();
        for text in ["Qh5", "zz9"] {
            let m = s.mv(&id, &tokens[i], 1, text).await.error(422, "illegal_move");
            assert!(m.contains("write moves"), "{variant} {text}: {m}");
        }
        let m = s.mv(&id, &tokens[i], 1, "Qh5").await.error(422, "illegal_move");
        match variant {
            VariantId::Chess | VariantId::Fairschach => {
                for form in
                    ["(SAN)", "(German letters)", "(long form)", "(coordinates)", "(ICCF numeric)", "possible: "]
                {
                    assert!(m.contains(form), "{variant}: {form} in {m}");
                }
            }
            VariantId::Vierschach => {
                for form in ["(SAN)", "(German letters)", "(coordinates)", "possible: "] {
                    assert!(m.contains(form), "{variant}: {form} in {m}");
                }
                assert!(!m.contains("ICCF"), "{m}");
            }
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partners_are_named_in_the_api_the_mails_and_the_page() {
    let s = Server::start().await;
    let (id, tokens) = create(&s, VariantId::Vierschach).await;
    let v = s.game(&id, None).await;
    assert_eq!(v["teams"], json!([["south", "north"], ["west", "east"]]));
    let partners: Vec<Value> = v["seats"].as_array().unwrap().iter().map(|x| x["partner"].clone()).collect();
    assert_eq!(partners, [json!("north"), json!("east"), json!("south"), json!("west")]);
    let first =
        s.get(&format!("/api/games/{id}/legal"), Some(&tokens[0])).await.ok(200)["seats"][0]["moves"][0]["notation"]
            .as_str()
            .unwrap()
            .to_owned();
    s.mv(&id, &tokens[0], 1, &first).await.ok(200);
    let spool = s.config.spool_dir.clone();
    let file = format!("{id}.1.0.turn@{MAIL_DOMAIN}.eml");
    let bytes = eventually_within(Duration::from_secs(20), &file, || spool_files(&spool).remove(&file)).await;
    let mail = parse_mail(&bytes);
    assert!(mail.text("text/plain").contains("Your partner: north (Player2)."), "{}", mail.text("text/plain"));
    assert!(mail.text("text/html").contains("your partner: north (Player2)"), "{}", mail.text("text/html"));
    let page = s.get(&format!("/games/{id}"), None).await.text;
    assert!(page.contains("partner of north"), "{page}");
    // Free-for-all: nobody has a partner.
    let seats: Vec<Value> =
        (0..4).map(|i| json!({"name": format!("F{i}"), "email": format!("f{i}@example.org")})).collect();
    let created = s
        .post_json("/api/games", None, &json!({"variant": "vierschach", "seats": seats, "options": {"mode": "ffa"}}))
        .await
        .ok(201);
    let ffa = s.game(created["game"]["id"].as_str().unwrap(), None).await;
    assert!(ffa.get("teams").is_none(), "{ffa}");
    assert!(ffa["seats"][0].get("partner").is_none(), "{ffa}");
}
