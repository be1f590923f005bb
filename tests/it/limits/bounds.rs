//! Issue 29's regression suite for bounded doors: dates far ahead, floods
//! through legitimate actions, forged mail against the answers' quota, and a
//! mail that keeps failing — by HTTP, by mail (the MTA pipe), on the player's page and through the
//! maildir door, each with a real steward on a real store.

use crate::support as common;

use common::pipe::{PipeSteward, reply};
use common::{Answer, Server};
use serde_json::json;

/// Creates a chess game of Alice and Bob over HTTP; its id and the seat tokens.
async fn chess_game(s: &Server) -> (String, String, String) {
    let seats = json!([
        {"name": "Alice", "email": "alice@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
    ]);
    let created =
        s.api().post_json("/api/games", Some(&s.operator), &json!({"variant": "chess", "seats": seats})).await;
    let v = created.ok(201);
    let token = |i: usize| v["tokens"][i]["token"].as_str().expect("a seat token").to_owned();
    (v["game"]["id"].as_str().unwrap().to_owned(), token(0), token(1))
}

fn today() -> chrono::NaiveDate {
    chrono::Utc::now().date_naive()
}

fn day(offset: i64) -> String {
    (today() + chrono::TimeDelta::days(offset)).format("%Y-%m-%d").to_string()
}

/// The mails in the spool to `who` (an address prefix) whose file name (the
/// Message-ID) holds `kind`.
fn mails_to(s: &Server, who: &str, kind: &str) -> usize {
    common::spool_files(&s.config.spool_dir)
        .iter()
        .filter(|(name, raw)| {
            name.contains(kind) && String::from_utf8_lossy(raw).lines().any(|l| l.starts_with("To:") && l.contains(who))
        })
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leave_far_ahead_or_in_year_10000_is_a_400_by_http_and_the_steward_answers_on() {
    let s = Server::start().await;
    let (game, alice, _) = chess_game(&s).await;
    let api = s.api();
    let last = (today().checked_add_months(chrono::Months::new(24)).unwrap()).format("%Y-%m-%d").to_string();
    for (from, to, says) in [
        (day(20), "9999-12-31".to_owned(), format!("{last} at the latest")),
        ("9999-12-31".to_owned(), "9999-12-31".to_owned(), format!("{last} at the latest")),
        (day(1), "+10000-01-01".to_owned(), "is not a date".to_owned()),
        ("10000-01-01".to_owned(), "10000-01-02".to_owned(), "is not a date".to_owned()),
    ] {
        let body = json!({"from": from, "to": to});
        for answer in [
            api.post_json("/api/leave", Some(&alice), &body).await,
            api.post_json(&format!("/api/seats/{alice}/leave"), None, &body).await,
        ] {
            let message = answer.error(400, "bad_request");
            assert!(message.contains(&says), "{from} to {to}: {message}");
        }
    }
    // The last day of the horizon is granted; the game still plays.
    let granted = api.post_json("/api/leave", Some(&alice), &json!({"from": last, "to": last})).await.ok(201);
    assert_eq!(granted["granted"]["days"], 1, "{granted}");
    s.mv(&game, &alice, 1, "e4").await.ok(200);
    assert_eq!(s.game(&game, None).await["turn"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leave_floods_are_limited_per_player_and_each_leave_mails_once() {
    let s = Server::start().await;
    let (_, alice, _) = chess_game(&s).await;
    let api = s.api();
    for i in 0..fairsteward::steward::LEAVES_PER_DAY {
        let d = day(30 + 2 * i64::from(i));
        api.post_json("/api/leave", Some(&alice), &json!({"from": d, "to": d})).await.ok(201);
    }
    let d = day(60);
    let message = api.post_json("/api/leave", Some(&alice), &json!({"from": d, "to": d})).await.error(429, "too_many");
    assert!(message.contains("in the last 24 hours") && message.contains("tomorrow"), "{message}");
    // Bob heard of each granted leave once, and of the refused one not at all.
    let told = common::eventually("the leave notices in the spool", || {
        let n = mails_to(&s, "bob@", "leave.");
        (n >= fairsteward::steward::LEAVES_PER_DAY as usize).then_some(n)
    })
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(mails_to(&s, "bob@", "leave."), told);
    assert_eq!(told, fairsteward::steward::LEAVES_PER_DAY as usize);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_are_limited_a_repeat_offers_nothing_and_a_decline_needs_an_offer() {
    let s = Server::start().await;
    let (game, alice, bob) = chess_game(&s).await;
    let api = s.api();
    let draw = |token: String, action: &'static str| {
        let api = api.clone();
        let path = format!("/api/games/{game}/draw");
        async move { api.post_json(&path, Some(&token), &json!({"action": action})).await }
    };
    let message = draw(bob.clone(), "decline").await.error(409, "no_draw_offered");
    assert!(message.contains("none to decline") && message.contains("offer"), "{message}");
    let events = |t: &str| t.lines().filter(|l| l.contains("\"draw_")).count();
    let transcript = || {
        let api = api.clone();
        let path = format!("/api/games/{game}/transcript");
        async move { api.get(&path, None).await.text }
    };
    // Offer, offer again (nothing new), withdraw: three times.
    for _ in 0..fairsteward::steward::DRAW_OFFERS_PER_DAY {
        draw(alice.clone(), "offer").await.ok(200);
        let entries = events(&transcript().await);
        draw(alice.clone(), "offer").await.ok(200);
        assert_eq!(events(&transcript().await), entries, "a standing offer repeated writes nothing");
        draw(alice.clone(), "decline").await.ok(200);
    }
    let message = draw(alice.clone(), "offer").await.error(429, "too_many");
    assert!(message.contains("3 times in the last 24 hours"), "{message}");
    assert_eq!(events(&transcript().await), 2 * fairsteward::steward::DRAW_OFFERS_PER_DAY as usize);
    // Bob may still offer, and Alice's acceptance, which draws, is never refused.
    draw(bob.clone(), "offer").await.ok(200);
    let drawn = draw(alice.clone(), "accept").await.ok(200);
    assert_eq!(drawn["outcome"]["reason"], "agreement", "{drawn}");
}

/// A Fairschach game by the MTA pipe; its id and Alice's reply address.
fn pipe_game(s: &PipeSteward) -> (String, String) {
    let game = s.new_game("fairschach", &[], &["Alice <alice@example.org>", "Bob <bob@example.org>"]);
    s.ingest("x"); // drains the start mails into the spool
    (game, s.reply_to("alice@", "started"))
}

#[test]
fn leave_far_ahead_by_mail_is_answered_and_a_maildir_of_them_does_not_hold_up_a_move() {
    let s = PipeSteward::new();
    let (game, alice) = pipe_game(&s);
    let from = "Alice <alice@example.org>";
    let (code, line) = s.ingest(&reply(from, &alice, "l1", "Re: x", &format!("leave {} to 9999-12-31", day(3))));
    assert_eq!((code, line.as_str()), (0, "refused: bad_request"));
    let answer = s.answers_to("alice@").pop().expect("an answer");
    assert!(answer.contains("at the latest") && answer.contains("Not accepted"), "{answer}");
    // Year 10000 is no date: the mail is answered as unreadable, never retried.
    let (code, line) = s.ingest(&reply(from, &alice, "l2", "Re: x", "leave +10000-01-01"));
    assert_eq!((code, line.as_str()), (0, "refused: unreadable"));

    // Forty such mails first in the maildir, a real move behind them: one sweep
    // takes them all (each answered or dropped by the answers' quota).
    let maildir = s.data.join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    for i in 0..40 {
        let mail =
            reply(from, &alice, &format!("far{i}"), "Re: x", &format!("leave {} to 9999-12-{:02}", day(1), i % 28 + 1));
        std::fs::write(maildir.join(format!("new/{i:02}.far")), mail).unwrap();
    }
    let bob = s.reply_to("bob@", "started");
    std::fs::write(maildir.join("new/99.move"), reply("Bob <bob@example.org>", &bob, "mv", "Re: x", "e5")).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let steward = open_steward(&s, &maildir);
        let done = fairsteward::mail::maildir::sweep(&steward, &maildir).await.expect("one sweep takes all");
        assert_eq!(done.len(), 41);
        assert_eq!(std::fs::read_dir(maildir.join("new")).unwrap().count(), 0);
        let view = steward.status(game.clone(), None).await.unwrap();
        assert_eq!(view.moved, vec!["black".to_owned()]);
    });
}

fn open_steward(s: &PipeSteward, maildir: &std::path::Path) -> fairsteward::steward::Steward {
    let config = fairsteward::config::Config::from_raw(
        toml::from_str(&format!("[mail.maildir]\npath = {:?}\n", maildir.display().to_string())).unwrap(),
        &fairsteward::config::Overrides {
            data_dir: Some(s.data.clone()),
            listen: Some("127.0.0.1:0".into()),
            database: crate::support::backend::database_for(&s.data),
        },
    )
    .unwrap();
    fairsteward::server::open(&config, std::sync::Arc::new(tokio::sync::Notify::new())).unwrap()
}

#[test]
fn forged_envelopes_do_not_spend_the_players_answers() {
    use fairsteward::protocol::{Body, Envelope, PlayerKey, random_nonce};
    let s = PipeSteward::new();
    let (game, alice) = pipe_game(&s);
    let mallory = PlayerKey::generate();
    // Twenty envelopes signed with a stranger's key, in Alice's name, each from
    // Alice's address (a From anyone can write).
    for i in 0..20 {
        let mut e = Envelope::new(&game, "white", 1, Body::Move("e4".into())).with_nonce(&random_nonce());
        e.sign(&mallory);
        let mail = reply("Alice <alice@example.org>", "moves@steward.example", &format!("f{i}"), "Re: x", &e.to_text());
        let (code, line) = s.ingest(&mail);
        assert_eq!((code, line.as_str()), (0, "refused: bad_signature"), "forgery {i}");
    }
    let answers = s.answers_to("alice@");
    assert_eq!(answers.len(), fairsteward::steward::UNPROVEN_ANSWERS_PER_HOUR as usize, "{answers:?}");
    // Alice's own mails are answered as before: her status, then her move's receipt.
    assert_eq!(s.ingest(&reply("Alice <alice@example.org>", &alice, "st", "Re: x", "status")).1, "accepted: status");
    assert!(s.answers_to("alice@").iter().any(|a| a.contains("Status of game")), "the status was answered");
    assert_eq!(s.ingest(&reply("Alice <alice@example.org>", &alice, "mv", "Re: x", "e4")).1, "accepted: move");
    assert!(s.answers_to("alice@").iter().any(|a| a.contains("Accepted: move e4")));
    assert_eq!(s.game(&game)["moved"], json!(["white"]));
}

/// Breaks a game's stored state by hand (as a damaged or hand-edited database
/// would be): every mail for it then fails inside the steward.
fn break_game(s: &PipeSteward, game: &str) {
    let db = crate::support::backend::Db::of(&s.data);
    let n = db.execute("UPDATE games SET state = 'not a state' WHERE id = ?1", &[game.into()]);
    assert_eq!(n, 1);
}

#[test]
fn a_mail_that_cannot_be_handled_is_set_aside_by_ingest_and_by_the_maildir_door_which_goes_on() {
    let s = PipeSteward::new();
    let (broken, alice) = pipe_game(&s);
    let other = s.new_game("chess", &[], &["Carol <carol@example.org>", "Dan <dan@example.org>"]);
    s.ingest("y");
    let carol = s.reply_to("carol@", "started");
    break_game(&s, &broken);

    // The MTA pipe: delivered (exit 0), the mail kept in held-mail/ for the operator.
    let out = common::pipe::fairsteward(
        &["ingest", "--data-dir", &s.data_arg()],
        reply("Alice <alice@example.org>", &alice, "b1", "Re: x", "e4").as_bytes(),
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.starts_with("held: ") && stderr.contains("set aside"), "{stdout} {stderr}");
    let held: Vec<_> = std::fs::read_dir(s.data.join("held-mail")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(held.len(), 1);
    assert!(std::fs::read_to_string(&held[0]).unwrap().contains("Message-ID: <b1@"), "the mail itself is kept");

    // The maildir: the failing mail first, a good one behind it.
    let maildir = s.data.join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    std::fs::write(maildir.join("new/1.bad"), reply("Alice <alice@example.org>", &alice, "b2", "Re: x", "d4")).unwrap();
    std::fs::write(maildir.join("new/2.good"), reply("Carol <carol@example.org>", &carol, "c1", "Re: x", "e4"))
        .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let steward = open_steward(&s, &maildir);
        let mut failures = fairsteward::mail::maildir::Failures::default();
        let sweep = |failures: &mut fairsteward::mail::maildir::Failures| {
            let (steward, maildir) = (steward.clone(), maildir.clone());
            let failures = std::mem::take(failures);
            async move {
                let mut failures = failures;
                let done = fairsteward::mail::maildir::sweep_counting(&steward, &maildir, &mut failures).await;
                (done.expect("the door goes on"), failures)
            }
        };
        let (done, kept) = sweep(&mut failures).await;
        failures = kept;
        assert_eq!(done.len(), 1, "the good mail behind the bad one is taken");
        let view = steward.status(other.clone(), None).await.unwrap();
        assert_eq!(view.turn, 2, "Carol's move was played");
        assert!(maildir.join("new/1.bad").exists(), "tried again at the next sweep");
        for _ in 1..fairsteward::mail::maildir::ATTEMPTS {
            let (done, kept) = sweep(&mut failures).await;
            failures = kept;
            assert!(done.is_empty());
        }
        assert!(!maildir.join("new/1.bad").exists());
        assert!(maildir.join("held/1.bad").exists(), "set aside for the operator after every attempt");
        let (done, _) = sweep(&mut failures).await;
        assert!(done.is_empty());
    });
}

/// What the answers of the HTTP door look like when a clock value is out of range.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_values_out_of_range_are_a_400() {
    let s = Server::start().await;
    let seats = json!([{"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]);
    for clock in [
        json!({"kind": "days_per_move", "days": 100000}),
        json!({"kind": "period", "moves": 10, "days": 4294967295u64}),
        json!({"kind": "fischer", "base_days": 30, "increment_days": 1, "cap_days": 99999}),
    ] {
        let body = json!({"variant": "chess", "seats": seats, "options": {"clock": clock}});
        let answer: Answer = s.api().post_json("/api/games", Some(&s.operator), &body).await;
        let message = answer.error(400, "bad_request");
        assert!(message.contains("days"), "{clock}: {message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leave_far_ahead_is_a_400_on_the_players_page_too() {
    let s = Server::start().await;
    let (_, alice, _) = chess_game(&s).await;
    let mut b = common::web::Browser::new(&s);
    let p = b.post("/sign-in", &[("token", alice.as_str()), ("next", "/me")]).await;
    assert_eq!(p.status, 303, "{}", p.text);
    let csrf = b.get("/me").await.csrf();
    for (from, to, says) in
        [(day(2), "9999-12-31".to_owned(), "at the latest"), (day(2), "+10000-01-01".to_owned(), "is not a date")]
    {
        let p = b.post("/leave", &[("csrf", &csrf), ("from", &from), ("to", &to)]).await;
        assert_eq!(p.status, 400, "{from} to {to}: {}", p.text);
        assert!(p.text.contains(says), "{from} to {to}: {}", p.text);
    }
    let account = s.api().get("/api/leave", Some(&alice)).await.ok(200);
    assert_eq!(account["leaves"], json!([]), "nothing was recorded: {account}");
}
