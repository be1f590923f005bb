//! Chess and Fairschach moves written with German piece letters (K D T L S,
//! `docs/rules/chess.md` §6), lower-case letters and the other forms, taken by mail
//! (the MTA pipe, `fairsteward ingest`) and by HTTP (the in-process harness); a
//! refusal names the reason and the forms with examples from the legal moves.

use crate::support as common;

use common::Server;
use common::pipe::{PipeSteward, reply};
use serde_json::json;

const ALICE: &str = "Alice <alice@example.org>";
const BOB: &str = "Bob <bob@example.org>";

#[test]
fn chess_and_fairschach_take_german_letters_by_mail() {
    let s = PipeSteward::new();
    let chess = s.new_game("chess", &[], &[ALICE, BOB]);
    s.ingest("x");
    // White: a German knight move; Black: lower case German from a phone.
    let to = s.reply_to("alice@", "started");
    assert_eq!(s.ingest(&reply(ALICE, &to, "c1", "Re: x", "Sf3\r\n\r\n-- \r\nAlice")).1, "accepted: move");
    assert!(s.answers_to("alice@").iter().any(|a| a.contains("Accepted: move Nf3")));
    let to = s.reply_to("bob@", "turn");
    assert_eq!(s.ingest(&reply(BOB, &to, "c2", "Re: x", "1... sc6")).1, "accepted: move");
    // A bishop pinned nowhere but blocked: refused with the reason and the forms.
    let to = s.reply_to("alice@", "turn");
    assert_eq!(s.ingest(&reply(ALICE, &to, "c3", "Re: x", "Lf1-c4")).1, "refused: illegal_move");
    let said = s.answers_to("alice@");
    assert!(said.iter().any(|a| a.contains("bishop on f1 cannot move to c4")), "{said:?}");
    assert_eq!(s.ingest(&reply(ALICE, &to, "c4", "Re: x", "What now?")).1, "refused: unreadable");
    let said = s.answers_to("alice@");
    assert!(said.iter().any(|a| a.contains("What now?") && a.contains("write moves like")), "the forms: {said:?}");
    // The subject carries the move when the body holds none.
    let board = s.newest("alice@", "turn");
    let subject = common::pipe::header(&board, "Subject");
    let mail = reply(ALICE, &to, "c5", &format!("AW: {subject} Te1"), "\r\n> quoted board\r\n");
    assert_eq!(
        s.ingest(&mail).1,
        "refused: illegal_move",
        "Te1 read from the subject, and refused: the rook is boxed in"
    );
    let mail = reply(ALICE, &to, "c6", &format!("AW: {subject} Sg5"), "Thanks!\r\n");
    assert_eq!(s.ingest(&mail).1, "accepted: move");
    let history = s.game(&chess)["history"].clone();
    let played: Vec<&str> =
        history.as_array().unwrap().iter().map(|t| t["moves"][0]["move"].as_str().unwrap()).collect();
    assert_eq!(played, ["Nf3", "Nc6", "Ng5"]);

    // Fairschach: both seats move in one pair, with German letters.
    let s = PipeSteward::new();
    let fs = s.new_game("fairschach", &[], &[ALICE, BOB]);
    s.ingest("x");
    assert_eq!(s.ingest(&reply(ALICE, &s.reply_to("alice@", "started"), "f1", "Re: x", "Sg1-f3")).1, "accepted: move");
    assert_eq!(s.ingest(&reply(BOB, &s.reply_to("bob@", "started"), "f2", "Re: x", "sb8c6")).1, "accepted: move");
    let turn = &s.game(&fs)["history"][0]["moves"];
    assert_eq!((turn[0]["move"].as_str(), turn[1]["move"].as_str()), (Some("Nf3"), Some("Nc6")), "{turn}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_and_fairschach_take_german_letters_by_http() {
    let server = Server::start().await;
    let seats = json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]);
    for variant in ["chess", "fairschach"] {
        let created =
            server.post_json("/api/games", None, &json!({"variant": variant, "seats": seats.clone()})).await.ok(201);
        let id = created["game"]["id"].as_str().unwrap().to_owned();
        let white = created["tokens"][0]["token"].as_str().unwrap().to_owned();
        let black = created["tokens"][1]["token"].as_str().unwrap().to_owned();
        // Refused first, with the reason and the forms.
        let e = server.mv(&id, &white, 1, "Dd1-h5").await.error(422, "illegal_move");
        assert!(e.contains("queen on d1 cannot move to h5"), "{variant}: {e}");
        let e = server.mv(&id, &white, 1, "Zf3").await.error(422, "illegal_move");
        // The examples come from the legal moves: the first knight move, b1-a3.
        assert!(e.contains("write moves like Na3 (SAN), Sa3 (German letters), Nb1-a3 (long form), b1a3 (coordinates) or 2113 (ICCF numeric)"), "{variant}: {e}");
        // Chess numbers every move a turn, Fairschach every pair.
        let turns: [u32; 4] = if variant == "chess" { [1, 2, 3, 4] } else { [1, 1, 2, 2] };
        assert_eq!(server.mv(&id, &white, turns[0], "Sf3").await.ok(200)["move"], "Nf3", "{variant}");
        assert_eq!(server.mv(&id, &black, turns[1], "sf6").await.ok(200)["move"], "Nf6", "{variant}");
        assert_eq!(server.mv(&id, &white, turns[2], "Sb1-c3").await.ok(200)["move"], "Nc3", "{variant}");
        assert_eq!(server.mv(&id, &black, turns[3], "2836").await.ok(200)["move"], "Nc6", "{variant}");
    }
}
