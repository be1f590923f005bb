//! A tournament's leave policy governs its games' clocks (issue 31): a player
//! in a tournament that allows no leave, one that caps it, and a casual game
//! declares leave over HTTP; each game's deadline moves as its rule says, the
//! answer and the mails say which clocks stop, and every transcript verifies.

use chrono::{DateTime, TimeDelta, Utc};
use fairsteward::clock::Clock;
use serde_json::{Value, json};

use crate::support::transcript::verified;
use crate::support::{Server, eventually, parse_mail, spool_files};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// The API's instant format.
fn api(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Seat 0's deadline in game `g`.
async fn deadline(s: &Server, g: &str) -> String {
    let v = s.get(&format!("/api/games/{g}"), None).await.ok(200);
    let seats = v["seats"].as_array().unwrap_or_else(|| panic!("{v}"));
    seats[0]["clock"]["deadline"].as_str().unwrap_or_else(|| panic!("{v}")).to_owned()
}

/// A two-player tournament of Alice and `other` under `leave`; its one game.
async fn tournament(s: &Server, other: &str, leave: Value) -> (String, String, Vec<String>) {
    let body = json!({
        "name": format!("Cup with {other}"), "variant": "chess", "leave": leave,
        "options": {"clock": "days_per_move days=10"},
        "players": [{"name": "Alice", "email": "alice@example.org"},
                    {"name": other, "email": format!("{}@example.org", other.to_lowercase())}],
    });
    let created = s.post_json("/api/tournaments", Some(&s.operator), &body).await.ok(201);
    let tokens: Vec<&Value> = created["tokens"].as_array().unwrap().iter().collect();
    let game = tokens[0]["game"].as_str().unwrap().to_owned();
    let by_seat = tokens.iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    (created["tournament"]["id"].as_str().unwrap().to_owned(), game, by_seat)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournaments_leave_rule_governs_its_games_clocks() {
    let t0 = t("2026-12-21T12:00:00Z");
    let s = Server::start_at(Clock::manual(t0)).await;
    let casual = s
        .post_json(
            "/api/games",
            Some(&s.operator),
            &json!({"variant": "chess", "options": {"clock": "days_per_move days=10"}, "seats": [
                {"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]}),
        )
        .await
        .ok(201);
    let casual_id = casual["game"]["id"].as_str().unwrap().to_owned();
    let alice = casual["tokens"][0]["token"].as_str().unwrap().to_owned();
    let (none_t, none_g, _) = tournament(&s, "Carol", json!("none")).await;
    let (capped_t, capped_g, _) = tournament(&s, "Dave", json!({"capped_days": 2})).await;
    let before = api(t0 + TimeDelta::days(10));
    for g in [&casual_id, &none_g, &capped_g] {
        assert_eq!(deadline(&s, g).await, before, "{g}");
    }

    // Five days of leave, Dec 24 to 28, all inside every deadline.
    let granted =
        s.post_json("/api/leave", Some(&alice), &json!({"from": "2026-12-24", "to": "2026-12-28"})).await.ok(201);
    assert_eq!(granted["granted"]["days"], 5, "{granted}");
    let mut stopped: Vec<&str> = granted["games"].as_array().unwrap().iter().map(|g| g.as_str().unwrap()).collect();
    stopped.sort_unstable();
    let mut expected = vec![casual_id.as_str(), capped_g.as_str()];
    expected.sort_unstable();
    assert_eq!(stopped, expected, "the none tournament's game is not among the stopped: {granted}");
    let per_game = granted["per_game"].as_array().unwrap();
    let honoured = |g: &str| per_game.iter().find(|p| p["game"] == g).unwrap()["days_honoured"].as_u64().unwrap();
    assert_eq!((honoured(&casual_id), honoured(&none_g), honoured(&capped_g)), (5, 0, 2), "{granted}");

    // The casual game's deadline moves by five days, the capped one's by two,
    // the none tournament's not at all.
    assert_eq!(deadline(&s, &casual_id).await, api(t0 + TimeDelta::days(15)));
    assert_eq!(deadline(&s, &none_g).await, before);
    assert_eq!(deadline(&s, &capped_g).await, api(t0 + TimeDelta::days(12)));
    let v = s.get(&format!("/api/games/{none_g}"), None).await.ok(200);
    assert_eq!(v["clock"]["leave_policy"], "none", "{v}");
    assert_eq!(v["clock"]["leave"], json!([]));
    let v = s.get(&format!("/api/games/{capped_g}"), None).await.ok(200);
    assert_eq!(v["clock"]["leave_policy"], json!({"capped_days": 2}), "{v}");

    // A second leave in the same year: the cap is spent, the capped game's
    // clock no longer stops; the casual one's does.
    let again =
        s.post_json("/api/leave", Some(&alice), &json!({"from": "2026-12-30", "to": "2026-12-30"})).await.ok(201);
    assert_eq!(again["games"], json!([casual_id]), "{again}");
    assert_eq!(deadline(&s, &capped_g).await, api(t0 + TimeDelta::days(12)));
    assert_eq!(deadline(&s, &casual_id).await, api(t0 + TimeDelta::days(16)));

    // The transcripts record the days each game honours, and verify.
    for (g, days) in [(&casual_id, 5), (&none_g, 0), (&capped_g, 2)] {
        let transcript = s.get(&format!("/api/games/{g}/transcript"), None).await.text;
        let first = transcript
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["kind"] == "leave")
            .unwrap_or_else(|| panic!("a leave entry in {g}: {transcript}"));
        assert_eq!(first["body"]["days_honoured"].as_array().map(Vec::len), Some(days), "{first}");
        verified(&s.api(), g).await;
    }

    // The mails say which clocks stop: Alice's names the none tournament's game
    // as not stopping and the capped one as stopping two days; Carol (none) is
    // not told her clock stops; Dave is, with the cap.
    let spool = s.config.spool_dir.clone();
    let mails = eventually("the leave mails", || {
        let all: Vec<_> = spool_files(&spool)
            .into_iter()
            .filter(|(k, _)| k.starts_with("leave."))
            .map(|(_, m)| parse_mail(&m))
            .collect();
        (all.len() >= 5).then_some(all)
    })
    .await;
    let to = |who: &str| -> Vec<String> {
        mails.iter().filter(|m| m.header("To").contains(who)).map(|m| m.all_text()).collect()
    };
    let first_to_alice = to("alice@").into_iter().find(|m| m.contains("2026-12-24")).unwrap();
    assert!(
        first_to_alice.contains(&format!("Its clock does NOT stop: tournament {none_t} allows no leave")),
        "{first_to_alice}"
    );
    assert!(
        first_to_alice.contains(&format!(
            "on 2 of these days only (2026-12-24, 2026-12-25): tournament {capped_t} caps leave at 2 day(s) a year"
        )),
        "{first_to_alice}"
    );
    assert!(to("carol@").is_empty(), "Carol's clock does not stop: she is not told it does");
    assert_eq!(to("dave@").len(), 1, "Dave: the first leave only");
    assert!(to("dave@")[0].contains(&capped_g) && to("dave@")[0].contains("2 of these days only"), "{:?}", to("dave@"));
    assert_eq!(to("bob@").len(), 2);
}
