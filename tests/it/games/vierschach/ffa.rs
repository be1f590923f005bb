//! Vierschach free-for-all: a seat that resigns leaves the board and play goes
//! on; the last seat standing wins; the transcript replays every resignation.

use crate::support::in_process;

use in_process::seat;

use chrono::Utc;
use fairsteward::steward::{Credential, MoveRequest, NewGame, Submission};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigned_seats_leave_and_the_last_one_standing_wins() {
    let dir = tempfile::tempdir().unwrap();
    let config = in_process::config(dir.path());
    let steward = in_process::open(&config);
    let mut options = std::collections::BTreeMap::new();
    options.insert("mode".to_owned(), serde_json::json!("ffa"));
    let created = steward
        .create_game(
            NewGame {
                variant: "vierschach".into(),
                options,
                seats: vec![seat("Sam"), seat("Wendy"), seat("Nora"), seat("Ed")],
                invite: false,
            },
            Utc::now(),
        )
        .await
        .unwrap();
    let id = created.game.id.clone();
    let token = |i: usize| Some(Credential::Token(created.tokens[i].token.clone()));
    let start = created.game.state.clone();
    assert_eq!(created.game.to_move, vec!["south".to_owned()]);

    // West resigns while south is to move: its pieces leave, play goes on.
    let v = steward.resign(id.clone(), token(1), Utc::now()).await.unwrap();
    assert!(v.outcome.is_none(), "{v:?}");
    assert_ne!(v.state, start);
    assert!(!v.state.contains("wK"), "west's pieces are gone: {}", v.state);
    assert_eq!(v.to_move, vec!["south".to_owned()]);
    // A resigned seat cannot resign again, and cannot move.
    assert!(steward.resign(id.clone(), token(1), Utc::now()).await.is_err());

    // South moves; the turn passes over the empty west seat to north.
    let req = MoveRequest {
        game: id.clone(),
        credential: token(0),
        submission: Submission::Move { turn: 1, text: "d2-d3".into() },
        kept: steward.kept_copy(b"d2-d3"),
        door: fairsteward::steward::Door::Http,
    };
    steward.submit_move(req, Utc::now()).await.unwrap();
    let v = steward.status(id.clone(), None).await.unwrap();
    assert_eq!(v.to_move, vec!["north".to_owned()], "west is skipped");

    // North is to move and resigns: the turn passes on to east.
    let v = steward.resign(id.clone(), token(2), Utc::now()).await.unwrap();
    assert!(v.outcome.is_none());
    assert_eq!(v.to_move, vec!["east".to_owned()]);
    // East resigns: south is the last seat standing.
    let v = steward.resign(id.clone(), token(3), Utc::now()).await.unwrap();
    let o = v.outcome.expect("the game is over");
    assert_eq!(o.winner.as_deref(), Some("south"));
    assert_eq!(o.reason, "resignation");

    // The transcript, with the three resignations, verifies offline.
    let events = steward.transcript(id.clone(), None).await.unwrap();
    let text = in_process::transcript(&id, &events);
    let summary = fairsteward::protocol::verify::verify(&text, &steward.keys().signing_public()).unwrap();
    assert_eq!(summary.turns, 1);
    assert_eq!(events.iter().filter(|e| e.kind == "resigned").count(), 3);
    // Any altered state in it does not verify.
    let forged = text.replacen("wR", "wQ", 1);
    assert!(fairsteward::protocol::verify::verify(&forged, &steward.keys().signing_public()).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_out_of_time_leaves_and_play_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let start: chrono::DateTime<Utc> = "2026-11-23T12:00:00Z".parse().unwrap();
    let config = in_process::config_at(dir.path(), start);
    let steward = in_process::open(&config);
    let mut options = std::collections::BTreeMap::new();
    options.insert("mode".to_owned(), serde_json::json!("ffa"));
    options.insert("clock".to_owned(), serde_json::json!({"kind": "days_per_move", "days": 1}));
    let created = steward
        .create_game(
            NewGame {
                variant: "vierschach".into(),
                options,
                seats: vec![seat("Sam"), seat("Wendy"), seat("Nora"), seat("Ed")],
                invite: false,
            },
            start,
        )
        .await
        .unwrap();
    let id = created.game.id.clone();
    // South, to move, lets the day pass: it times out, leaves the board, and west is to move.
    let later = start + chrono::Duration::hours(25);
    config.clock.set(later);
    steward.sweep(later).await.unwrap();
    let v = steward.status(id.clone(), None).await.unwrap();
    assert!(v.outcome.is_none(), "{v:?}");
    assert!(!v.state.contains("sK"), "south's pieces are gone: {}", v.state);
    assert_eq!(v.to_move, vec!["west".to_owned()]);
    let events = steward.transcript(id.clone(), None).await.unwrap();
    let timeout = events.iter().find(|e| e.kind == "timeout").expect("a timeout entry");
    assert_eq!(timeout.body["state"], serde_json::json!(v.state));
    let text = in_process::transcript(&id, &events);
    fairsteward::protocol::verify::verify(&text, &steward.keys().signing_public()).expect("the timeout replays");
}
