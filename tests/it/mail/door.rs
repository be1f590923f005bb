//! The mail door through `fairsteward ingest` (an MTA pipe) and the maildir door:
//! a Fairschach game played by replying to board mails, with duplicates, forged
//! capabilities, automatic mail, illegal moves and commands.

use crate::support as common;

use common::backend::Db;
use common::pipe::{PipeSteward as Steward, decode, fairsteward, header};
use serde_json::Value;

/// A Fairschach game of Alice (white) and Bob (black); its id.
fn new_game(s: &Steward) -> String {
    s.new_game("fairschach", &[], &["Alice <alice@example.org>", "Bob <bob@example.org>"])
}

fn reply(from: &str, to: &str, id: &str, body: &str, extra_headers: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: Game board\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\n{extra_headers}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

#[test]
fn a_game_played_by_replying_to_board_mails() {
    let s = Steward::new();
    let game = new_game(&s);
    // Ingesting anything drains the queued start mails into the spool.
    let (code, line) = s.ingest("not a mail at all");
    assert_eq!(code, 0, "{line}");
    assert!(line.starts_with("ignored"), "{line}");

    let alice = s.reply_to("alice@", "started");
    let bob = s.reply_to("bob@", "started");
    assert!(alice.contains(&format!("+{game}.white.1.")), "{alice}");

    // Alice bottom-posts her move under the quoted board.
    let body =
        format!("e4\r\n\r\nOn Mon, Fairsteward wrote:\r\n> Game {game} has begun\r\n> Your move for turn 1.\r\n");
    let mail = reply("Alice <alice@example.org>", &alice, "a1", &body, "");
    assert_eq!(s.ingest(&mail), (0, "accepted: move".to_owned()));
    let answers = s.answers_to("alice@");
    assert_eq!(answers.len(), 1, "one receipt");
    assert!(answers[0].contains("Accepted: move e4 for turn 1") && answers[0].contains("receipt r-"), "{}", answers[0]);
    assert!(
        header(&s.spool().into_iter().find(|(n, _)| n.contains(".answer-")).unwrap().1, "In-Reply-To")
            .contains("a1@client.example")
    );
    // Bob's view shows only that white moved.
    let view = s.game(&game);
    assert_eq!(view["moved"], serde_json::json!(["white"]));
    assert!(!view.to_string().contains("\"e4\""), "{view}");

    // The same mail delivered again is recognised and not answered twice.
    assert_eq!(s.ingest(&mail), (0, "ignored: seen before".to_owned()));
    assert_eq!(s.answers_to("alice@").len(), 1);

    // A forged capability (Bob's seat, Alice's mac) proves nothing: no answer.
    let forged = alice.replace(".white.", ".black.");
    let (code, line) = s.ingest(&reply("Mallory <m@evil.example>", &forged, "m1", "d5", ""));
    assert_eq!(code, 0);
    assert!(line.starts_with("ignored: no reply capability"), "{line}");
    // An out-of-office to the capability is never answered.
    let ooo = reply("Bob <bob@example.org>", &bob, "ooo", "I am away.", "Auto-Submitted: auto-replied\r\n");
    assert!(s.ingest(&ooo).1.starts_with("ignored: automatic"));
    assert!(s.answers_to("bob@").is_empty());

    // Bob top-posts; the turn resolves and new board mails carry turn-2 capabilities.
    let body = "d5\r\n\r\nSent from my phone\r\n\r\n> Your move for turn 1.\r\n";
    assert_eq!(s.ingest(&reply("Bob <bob@example.org>", &bob, "b1", body, "")), (0, "accepted: move".to_owned()));
    let view = s.game(&game);
    assert_eq!(view["turn"], 2);
    assert_eq!(view["history"][0]["moves"][0]["move"], "e4");
    let alice2 = s.reply_to("alice@", "turn");
    assert!(alice2.contains(&format!("+{game}.white.2.")), "{alice2}");

    // An illegal move is refused with an answer that says why; nothing changes.
    let (code, line) = s.ingest(&reply("Alice <alice@example.org>", &alice2, "a2", "Ke5", ""));
    assert_eq!((code, line.as_str()), (0, "refused: illegal_move"));
    let last = s.answers_to("alice@").into_iter().find(|a| a.contains("Not accepted")).expect("a refusal answer");
    assert!(last.contains("Ke5") || last.contains("king"), "{last}");
    assert_eq!(s.game(&game)["moved"], serde_json::json!([]));

    // A reply to the old turn-1 mail is a move for a resolved turn.
    let (_, line) = s.ingest(&reply("Alice <alice@example.org>", &alice, "a3", "Nf3", ""));
    assert_eq!(line, "refused: turn_resolved");
    let answer = s.answers_to("alice@").into_iter().find(|a| a.contains("resolved already")).expect("the answer");
    let words = answer.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("turn 1 was resolved already"), "{words}");
    assert!(words.contains("latest board mail") && words.contains("move 2."), "{words}");

    // Unreadable text gets help; status gets the state; resign ends the game.
    assert_eq!(
        s.ingest(&reply("Alice <alice@example.org>", &alice2, "a4", "What should I do now?", "")).1,
        "refused: unreadable"
    );
    assert_eq!(s.ingest(&reply("Alice <alice@example.org>", &alice2, "a5", "status", "")).1, "accepted: status");
    assert!(s.answers_to("alice@").iter().any(|a| a.contains("Status of game") && a.contains("turn 2")));
    let bob2 = s.reply_to("bob@", "turn");
    assert_eq!(
        s.ingest(&reply("Bob <bob@example.org>", &bob2, "b2", "I resign. Well played!", "")).1,
        "accepted: resignation"
    );
    let view = s.game(&game);
    assert_eq!(view["outcome"]["result"], "1-0");
    assert_eq!(view["outcome"]["reason"], "resignation");
}

#[test]
fn ingest_exits_75_when_the_store_cannot_be_opened() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let data = file.join("data");
    let out = fairsteward(&["ingest", "--data-dir", &data.display().to_string()], b"From: a@b\r\n\r\ne4\r\n");
    assert_eq!(out.status.code(), Some(75), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("try again later"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_maildir_door_handles_new_mail_once() {
    let s = Steward::new();
    let game = new_game(&s);
    s.ingest("x");
    let alice = s.reply_to("alice@", "started");
    let maildir = s.data.join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let mail = reply("Alice <alice@example.org>", &alice, "md1", "Nf3", "");
    std::fs::write(maildir.join("new/1.a:2,"), &mail).unwrap();
    std::fs::write(maildir.join("new/2.a"), &mail).unwrap(); // delivered twice

    let config = fairsteward::config::Config::from_raw(
        toml::from_str(&format!("[mail.maildir]\npath = {:?}\n", maildir.display().to_string())).unwrap(),
        &fairsteward::config::Overrides {
            data_dir: Some(s.data.clone()),
            listen: Some("127.0.0.1:0".into()),
            database: crate::support::backend::database_for(&s.data),
        },
    )
    .unwrap();
    let steward = fairsteward::server::open(&config, std::sync::Arc::new(tokio::sync::Notify::new())).unwrap();
    let done = fairsteward::mail::maildir::sweep(&steward, &maildir).await.unwrap();
    let outcomes: Vec<_> = done.iter().map(|(_, h)| h.clone()).collect();
    use fairsteward::mail::door::Handled;
    use fairsteward::steward::{Ignored, Taken};
    assert_eq!(outcomes, vec![Handled::Accepted(Taken::Submission("move")), Handled::Ignored(Ignored::SeenBefore)]);
    assert_eq!(std::fs::read_dir(maildir.join("new")).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(maildir.join("cur")).unwrap().count(), 2);
    assert!(done.iter().all(|(p, _)| p.to_string_lossy().ends_with(":2,S")));
    let view = steward.status(game, None).await.unwrap();
    assert_eq!(view.moved, vec!["white".to_owned()]);
}

/// A backlog bigger than one batch, in which later mails need earlier ones of
/// the same batch (black's reply needs white's move): handled in name order,
/// every one taken, each moved to cur/ after its commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_maildir_backlog_is_taken_in_order_across_batches() {
    use fairsteward::mail::door::{Batch, Handled};
    use fairsteward::steward::Taken;
    let s = Steward::new();
    let players = ["Alice <alice@example.org>", "Bob <bob@example.org>"];
    let games: Vec<String> = (0..10).map(|_| s.new_game("chess", &[], &players)).collect();
    let steward = open_steward(&s);
    let maildir = s.data.join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    // Ply-major names: every game's first move, then every game's reply, …
    let plies = [("white", "e4"), ("black", "e5"), ("white", "Nf3"), ("black", "Nc6")];
    for (i, (seat, text)) in plies.iter().enumerate() {
        let turn = u32::try_from(i).unwrap() + 1;
        for (g, game) in games.iter().enumerate() {
            let to =
                fairsteward::protocol::capability::address(steward.keys(), &steward.from_address(), game, seat, turn)
                    .unwrap();
            let from = players[i % 2];
            let mail = reply(from, &to, &format!("b{i}-{g}"), text, "");
            std::fs::write(maildir.join(format!("new/{i}-{g:02}.backlog")), mail).unwrap();
        }
    }
    assert!(plies.len() * games.len() > Batch::<()>::MAILS, "more than one batch");
    let done = fairsteward::mail::maildir::sweep(&steward, &maildir).await.unwrap();
    assert_eq!(done.len(), plies.len() * games.len());
    assert!(done.iter().all(|(_, h)| *h == Handled::Accepted(Taken::Submission("move"))), "{done:?}");
    assert_eq!(std::fs::read_dir(maildir.join("new")).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(maildir.join("cur")).unwrap().count(), done.len());
    for game in games {
        let view = steward.status(game.clone(), None).await.unwrap();
        assert_eq!(view.turn, 5, "{game}: four moves played");
        assert_eq!(view.history.len(), 4, "{game}");
    }
}

#[test]
fn leave_is_declared_by_mail_and_overuse_is_refused_with_the_balance() {
    let s = Steward::new();
    new_game(&s);
    s.ingest("x");
    let alice = s.reply_to("alice@", "started");
    let body = "leave 2027-03-01 to 2027-03-03\r\n\r\n-- \r\nAlice\r\n";
    assert_eq!(s.ingest(&reply("Alice <alice@example.org>", &alice, "l1", body, "")).1, "accepted: leave");
    assert!(
        s.answers_to("alice@").iter().any(|a| a.contains("is granted") && a.contains("2027: 3 day(s) taken, 27 left")),
        "{:?}",
        s.answers_to("alice@")
    );
    let (_, line) = s.ingest(&reply("Alice <alice@example.org>", &alice, "l2", "leave 2027-04-01 to 2027-05-15", ""));
    assert_eq!(line, "refused: leave_refused");
    assert!(
        s.answers_to("alice@").iter().any(|a| a.contains("Not accepted") && a.contains("27")),
        "the refusal names the balance"
    );
}

#[test]
fn the_operator_adds_an_alias_that_acts_once_confirmed_and_a_stranger_is_refused() {
    let s = Steward::new();
    let game = new_game(&s);
    s.ingest("x");
    let alice = s.reply_to("alice@", "started");

    // A stranger's move for Alice's seat: refused, nothing to the stranger, one
    // notice to Alice.
    let (_, line) = s.ingest(&reply("Alice <alice@work.example>", &alice, "w1", "e4", ""));
    assert_eq!(line, "refused: foreign_sender");
    assert_eq!(s.game(&game)["moved"], serde_json::json!([]));
    assert!(s.spool().iter().all(|(_, t)| !header(t, "To").contains("work.example")), "nothing to the stranger");
    let notices: Vec<_> = s.spool().into_iter().filter(|(n, _)| n.contains(".sender-")).collect();
    assert_eq!(notices.len(), 1);
    assert!(header(&notices[0].1, "To").contains("alice@example.org"));
    assert!(decode(&notices[0].1).contains("alice@work.example"));

    // The operator asks for the alias; the confirmation goes to the new address.
    let out = fairsteward(&["game", "alias", "--data-dir", &s.data_arg(), &game, "white", "alice@work.example"], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let asked: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(asked["kind"], "alias");
    let bad = fairsteward(&["game", "alias", "--data-dir", &s.data_arg(), &game, "white", "nonsense"], b"");
    assert_eq!(bad.status.code(), Some(2), "{}", String::from_utf8_lossy(&bad.stderr));
    s.ingest("x");
    let (_, confirm) = s
        .spool()
        .into_iter()
        .find(|(n, t)| n.contains(".confirm-") && header(t, "To").contains("alice@work.example"))
        .expect("a confirmation mail to the new address");
    let r = header(&confirm, "Reply-To");
    let confirm_at = r.rsplit_once('<').map_or(r.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned();
    // Still a stranger until the reply comes from the new address.
    assert_eq!(s.ingest(&reply("alice@work.example", &alice, "w2", "e4", "")).1, "refused: foreign_sender");
    assert!(s.ingest(&reply("m@evil.example", &confirm_at, "c0", "yes", "")).1.starts_with("ignored: confirmation"));
    assert_eq!(s.ingest(&reply("alice@work.example", &confirm_at, "c1", "yes", "")).1, "accepted: alias confirmed");
    assert_eq!(s.ingest(&reply("alice@work.example", &alice, "w3", "e4", "")).1, "accepted: move");
    assert_eq!(s.game(&game)["moved"], serde_json::json!(["white"]));
    // The receipt went to the registered address; no second stranger notice came.
    assert!(s.answers_to("alice@example.org").iter().any(|a| a.contains("Accepted: move e4")));
    assert_eq!(s.spool().iter().filter(|(n, _)| n.contains(".sender-")).count(), 1);
}

#[test]
fn a_reused_message_id_does_not_block_a_different_mail() {
    let s = Steward::new();
    let game = new_game(&s);
    s.ingest("x");
    let alice = s.reply_to("alice@", "started");
    // A mail with no capability but the Message-ID of the real move to come.
    let (_, line) = s.ingest(&reply("Mallory <m@evil.example>", "moves@localhost", "same", "resign", ""));
    assert!(line.starts_with("ignored: no reply capability"), "{line}");
    let real = reply("Alice <alice@example.org>", &alice, "same", "e4", "");
    assert_eq!(s.ingest(&real), (0, "accepted: move".to_owned()));
    // The same mail again, even with a server's trace header added, is a duplicate.
    assert_eq!(s.ingest(&real), (0, "ignored: seen before".to_owned()));
    let traced = format!("Received: from mx.example by mx2.example; Mon, 23 Nov 2026 02:00:01 +0000\r\n{real}");
    assert_eq!(s.ingest(&traced), (0, "ignored: seen before".to_owned()));
    assert_eq!(s.answers_to("alice@").len(), 1);
    assert_eq!(s.game(&game)["moved"], serde_json::json!(["white"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_envelope_counts_from_any_sender_and_an_unsigned_one_only_from_the_seat() {
    use fairsteward::mail::door::{Handled, handle};
    use fairsteward::protocol::{Body, Envelope, PlayerKey, random_nonce};
    use fairsteward::steward::{Refused, Taken};
    let s = Steward::new();
    let config = fairsteward::config::Config::from_raw(
        toml::from_str("").unwrap(),
        &fairsteward::config::Overrides {
            data_dir: Some(s.data.clone()),
            listen: Some("127.0.0.1:0".into()),
            database: crate::support::backend::database_for(&s.data),
        },
    )
    .unwrap();
    let steward = fairsteward::server::open(&config, std::sync::Arc::new(tokio::sync::Notify::new())).unwrap();
    let (white, black) = (PlayerKey::generate(), PlayerKey::generate());
    let new: fairsteward::steward::NewGame =
        serde_json::from_value(serde_json::json!({"variant": "fairschach", "seats": [
            {"name": "Alice", "email": "alice@example.org", "public_key": white.public_key_base64()},
            {"name": "Bob", "email": "bob@example.org", "public_key": black.public_key_base64()},
        ]}))
        .unwrap();
    let game = steward.create_game(new, chrono::Utc::now()).await.unwrap().game.id;
    let envelope = |seat: &str, text: &str, key: Option<&PlayerKey>| {
        let mut e = Envelope::new(&game, seat, 1, Body::Move(text.into())).with_nonce(&random_nonce());
        if let Some(k) = key {
            e.sign(k);
        }
        e.to_text()
    };
    let now = chrono::Utc::now();
    // Unsigned, to Alice's capability, from a stranger: nothing taken.
    let row = steward.status(game.clone(), None).await.unwrap();
    assert_eq!(row.turn, 1);
    let cap =
        fairsteward::protocol::capability::address(steward.keys(), &steward.from_address(), &game, "white", 1).unwrap();
    let unsigned = reply("m@evil.example", &cap, "u1", &envelope("white", "e4", None), "");
    assert_eq!(handle(&steward, unsigned.as_bytes(), now).await.unwrap(), Handled::Refused(Refused::ForeignSender));
    assert!(steward.status(game.clone(), None).await.unwrap().moved.is_empty());
    // Signed by the seat's key, from anyone: taken.
    let signed = reply("m@relay.example", "moves@localhost", "s1", &envelope("white", "e4", Some(&white)), "");
    assert_eq!(handle(&steward, signed.as_bytes(), now).await.unwrap(), Handled::Accepted(Taken::Submission("move")));
    assert_eq!(steward.status(game, None).await.unwrap().moved, vec!["white".to_owned()]);
}

/// Opens an in-process steward over `s`'s data directory.
fn open_steward(s: &Steward) -> fairsteward::steward::Steward {
    let config = fairsteward::config::Config::from_raw(
        toml::from_str("").unwrap(),
        &fairsteward::config::Overrides {
            data_dir: Some(s.data.clone()),
            listen: Some("127.0.0.1:0".into()),
            database: crate::support::backend::database_for(&s.data),
        },
    )
    .unwrap();
    fairsteward::server::open(&config, std::sync::Arc::new(tokio::sync::Notify::new())).unwrap()
}

/// Issue 12 point 5: the seen-check, the sender check, the command, its
/// resolution, the answer and the board mails of one mail are ONE store
/// transaction, whatever the mail does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_mail_is_taken_in_one_store_transaction() {
    use fairsteward::mail::door::handle;
    let s = Steward::new();
    let game = new_game(&s);
    let steward = open_steward(&s);
    let cap = |seat: &str, turn: u32| {
        fairsteward::protocol::capability::address(steward.keys(), &steward.from_address(), &game, seat, turn).unwrap()
    };
    let (alice, bob) = ("Alice <alice@example.org>", "Bob <bob@example.org>");
    let queued = |db: &Db| -> i64 { db.count("SELECT COUNT(*) FROM outbox", &[]) };
    let db = Db::of(&s.data);
    let now = chrono::Utc::now();
    let cases = [
        (reply(alice, &cap("white", 1), "t1", "e4", ""), "accepted: move", 1),
        (reply(alice, &cap("white", 1), "t2", "d4", ""), "refused: already_moved", 1),
        (reply(bob, &cap("black", 1), "t3", "Ke5", ""), "refused: illegal_move", 1),
        // Completes the turn: the answer and a board mail to each seat.
        (reply(bob, &cap("black", 1), "t4", "e5", ""), "accepted: move", 3),
        (reply("m@evil.example", &cap("white", 2), "t5", "Nf3", ""), "refused: foreign_sender", 1),
        (reply(alice, &cap("white", 2), "t6", "status", ""), "accepted: status", 1),
        (reply(alice, &cap("white", 2), "t7", "what now", ""), "refused: unreadable", 1),
        (reply(alice, &cap("white", 2), "t8", "draw", ""), "accepted: draw", 1),
        (reply(alice, &cap("white", 1), "t1", "e4", ""), "ignored: seen before", 0),
        (reply(bob, &cap("black", 2), "t9", "resign", ""), "accepted: resignation", 2),
    ];
    for (i, (mail, want, mails)) in cases.into_iter().enumerate() {
        let (commits, outbox) = (steward.store().commits(), queued(&db));
        // A second apart, so that the seen-marks' times give their order.
        let now = now + chrono::Duration::seconds(i as i64);
        let handled = handle(&steward, mail.as_bytes(), now).await.unwrap();
        assert_eq!(handled.to_string(), want);
        assert_eq!(steward.store().commits() - commits, 1, "{want}: one transaction for the whole mail");
        assert_eq!(queued(&db) - outbox, mails, "{want}: the mails it queued");
    }
    let seen: Vec<String> =
        db.rows("SELECT outcome FROM mail_seen ORDER BY seen_at", &[]).iter().map(|r| r[0].text()).collect();
    assert_eq!(seen.len(), 9, "every mail but the repeat is marked seen: {seen:?}");
    assert_eq!(seen[0], "accepted: move");
}

/// Issue 12 point 5: a failure anywhere in a mail's transaction — its move, the
/// resolution, the board mails, the answer, the seen-mark, the kept copy —
/// leaves nothing of it, and the mail offered again is taken whole. The faults
/// are real failures of the store, injected with triggers; as a retry would meet
/// them again, the MTA pipe sets the mail aside for the operator rather than
/// have the MTA retry for days (issue 29), and the operator feeds it again.
#[test]
fn a_mail_that_fails_half_way_leaves_nothing_and_is_taken_when_offered_again() {
    let s = Steward::new();
    let game = new_game(&s);
    assert_eq!(s.ingest("not a mail at all").0, 0);
    let (alice, bob) = (s.reply_to("alice@", "started"), s.reply_to("bob@", "started"));
    assert_eq!(s.ingest(&reply("Alice <alice@example.org>", &alice, "f1", "e4", "")), (0, "accepted: move".to_owned()));
    let db = Db::of(&s.data);
    let tables = ["moves", "turns", "events", "outbox", "inbound", "mail_seen"];
    let counts =
        || -> Vec<i64> { tables.iter().map(|t| db.count(&format!("SELECT COUNT(*) FROM {t}"), &[])).collect() };
    // The fault: a trigger that fails every insert into a table, in each
    // backend's own trigger language.
    let (add_fault, drop_fault) = if db.is_postgres() {
        (
            "CREATE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$; \
             CREATE TRIGGER fault BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION fault()",
            "DROP TRIGGER fault ON {table}; DROP FUNCTION fault()",
        )
    } else {
        (
            "CREATE TRIGGER fault BEFORE INSERT ON {table} BEGIN SELECT RAISE(ABORT, 'injected fault'); END",
            "DROP TRIGGER fault",
        )
    };
    // Bob's move completes the turn: every table above is written by it.
    let mail = reply("Bob <bob@example.org>", &bob, "f2", "e5", "");
    for table in tables {
        db.batch(&add_fault.replace("{table}", table));
        let before = counts();
        let (code, line) = s.ingest(&mail);
        assert_eq!(code, 0, "a fault at {table}: the mail is set aside ({line})");
        assert!(line.starts_with("held: "), "a fault at {table}: {line}");
        assert_eq!(counts(), before, "a fault at {table} leaves nothing of the mail");
        db.batch(&drop_fault.replace("{table}", table));
    }
    assert_eq!(s.game(&game)["turn"], 1, "the turn is not resolved");
    let held: Vec<_> = std::fs::read_dir(s.data.join("held-mail")).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(!held.is_empty(), "the failed deliveries are kept");
    for path in &held {
        assert_eq!(std::fs::read_to_string(path).unwrap(), mail, "a held copy is the mail itself");
    }
    // The operator feeds a held copy again: it is taken whole.
    let again = std::fs::read_to_string(&held[0]).unwrap();
    assert_eq!(s.ingest(&again), (0, "accepted: move".to_owned()));
    assert_eq!(s.game(&game)["turn"], 2);
    assert_eq!(s.ingest(&mail), (0, "ignored: seen before".to_owned()));
}

/// The confirmation address of the latest confirmation mail to `to`.
fn confirmation_to(s: &Steward, to: &str) -> String {
    let (_, confirm) = s
        .spool()
        .into_iter()
        .rfind(|(n, t)| n.contains(".confirm-") && header(t, "To").contains(to))
        .expect("a confirmation mail to the new address");
    let r = header(&confirm, "Reply-To");
    r.rsplit_once('<').map_or(r.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned()
}

/// Issue 29: an out-of-office reply to a confirmation mail (an alias, a change
/// of address) confirms nothing, whatever marks it: a subject only, or headers.
#[test]
fn an_out_of_office_reply_to_a_confirmation_mail_changes_nothing() {
    let s = Steward::new();
    let game = new_game(&s);
    s.ingest("x");
    let alice = s.reply_to("alice@", "started");
    for (command, address) in [("alias", "alice@work.example"), ("email", "alice@new.example")] {
        let out = fairsteward(&["game", command, "--data-dir", &s.data_arg(), &game, "white", address], b"");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        s.ingest("x");
        let confirm_at = confirmation_to(&s, address);
        for (n, (subject, extra)) in [
            ("Away: Confirm your address", ""),
            ("Abwesend: Confirm your address", ""),
            ("Automatic reply: Confirm your address", ""),
            ("Re: Confirm your address", "Auto-Submitted: auto-replied\r\n"),
            ("Re: Confirm your address", "X-Autoreply: yes\r\n"),
            ("Re: Confirm your address", "Precedence: bulk\r\n"),
        ]
        .into_iter()
        .enumerate()
        {
            let mail = reply(address, &confirm_at, &format!("ooo-{command}-{n}"), "I am away until Monday.", extra)
                .replace("Subject: Re: Game board", &format!("Subject: {subject}"));
            let (_, line) = s.ingest(&mail);
            assert!(line.starts_with("ignored: automatic"), "{subject} / {extra}: {line}");
        }
        // Still unconfirmed: a move from the new address is a stranger's.
        assert_eq!(s.ingest(&reply(address, &alice, &format!("m-{command}"), "e4", "")).1, "refused: foreign_sender");
        assert_eq!(s.game(&game)["moved"], serde_json::json!([]));
    }
    // The seat's address is still the registered one: the notices went there.
    assert!(
        s.spool()
            .iter()
            .filter(|(n, _)| n.contains(".sender-"))
            .all(|(_, t)| header(t, "To").contains("alice@example.org"))
    );
    // A person's reply ("Re: Away …" is one) still confirms.
    let confirm_at = confirmation_to(&s, "alice@work.example");
    let mail = reply("alice@work.example", &confirm_at, "c-alias", "yes", "")
        .replace("Subject: Re: Game board", "Subject: Re: Away: Confirm your address");
    assert_eq!(s.ingest(&mail).1, "accepted: alias confirmed");
}

/// An HTML-only reply as `from` to `to` with `html` as its body.
fn html_reply(from: &str, to: &str, id: &str, html: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: Game board\r\nMessage-ID: <{id}@client.example>\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
    )
}

/// Issue 29: only what a mail client shows is read as the move; a mail whose
/// only move is hidden moves nothing.
#[test]
fn hidden_html_text_is_never_the_move() {
    let s = Steward::new();
    let game = new_game(&s);
    s.ingest("x");
    let alice = s.reply_to("alice@", "started");
    // Only hidden text: nothing is read, nothing moves.
    let hidden_only = "<html><body><div style=\"display: none\">e4</div><span style=\"font-size:0\">d4</span>\
                       <div style=\"max-height:0;overflow:hidden;mso-hide:all\">Nf3</div></body></html>";
    let (_, line) = s.ingest(&html_reply("Alice <alice@example.org>", &alice, "h1", hidden_only));
    assert!(line.starts_with("refused: ") || line.starts_with("ignored"), "{line}");
    assert_ne!(line, "accepted: move");
    assert_eq!(s.game(&game)["moved"], serde_json::json!([]));
    // The preheader holds one move, the visible first line another: the visible one counts.
    let both = "<html><body><div style=\"display:none;max-height:0;overflow:hidden\">d4</div>\
                <div>e4</div><div hidden>Nf3</div></body></html>";
    assert_eq!(s.ingest(&html_reply("Alice <alice@example.org>", &alice, "h2", both)).1, "accepted: move");
    assert!(s.answers_to("alice@").iter().any(|a| a.contains("Accepted: move e4")), "{:?}", s.answers_to("alice@"));
}
