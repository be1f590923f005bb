//! Reading real-world-shaped mails: every fixture in `tests/it/mail/fixtures/*.eml`
//! against its expected reading in `tests/it/mail/fixtures/expected.json`, and
//! robustness — random bytes, truncated and damaged mails never panic.
//!
//! To see how the reader reads the fixtures (when adding one):
//! `cargo test --test it mail::read -- --ignored --nocapture dump`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use fairsteward::mail::inbound::{Intent, ReadMail, read_mail};
use fairsteward::rules::chess::Chess;
use proptest::prelude::*;
use serde_json::{Value, json};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/mail/fixtures")
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(fixture_dir())
        .expect("tests/it/mail/fixtures exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).expect("fixture reads")))
        .collect();
    out.sort();
    out
}

/// What a mail asks for in a chess game: the fixtures are replies about chess
/// games, and the game's variant says what move text is.
fn chess_intent(mail: &ReadMail) -> Intent {
    mail.intent(Some(("8KQ2ZJ", &Chess)))
}

fn expected() -> BTreeMap<String, Value> {
    let text = fs::read_to_string(fixture_dir().join("expected.json")).expect("expected.json reads");
    serde_json::from_str(&text).expect("expected.json is JSON")
}

#[test]
fn every_fixture_reads_as_expected() {
    let expected = expected();
    let fixtures = fixtures();
    assert!(fixtures.len() >= 16, "the corpus has {} mails", fixtures.len());
    let names: Vec<&String> = fixtures.iter().map(|(n, _)| n).collect();
    for name in expected.keys() {
        assert!(names.contains(&name), "expected.json names {name}, which is not a fixture");
    }
    let mut failures = Vec::new();
    for (name, raw) in &fixtures {
        let want = expected.get(name).unwrap_or_else(|| panic!("{name} has no entry in expected.json"));
        let got = read_mail(raw).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut check = |what: &str, got: Value, want: &Value| {
            if &got != want {
                failures.push(format!("{name}: {what}\n   got: {got}\n  want: {want}"));
            }
        };
        check("intent", serde_json::to_value(chess_intent(&got)).unwrap(), &want["intent"]);
        check("automatic", serde_json::to_value(&got.automatic).unwrap(), &want["automatic"]);
        check("fresh", json!(got.fresh), &want["fresh"]);
        check("from", json!(got.from.as_ref().map(|f| &f.address)), &want["from"]);
        if let Some(subject) = want.get("subject") {
            check("subject", json!(got.subject), subject);
        }
        if let Some(recipient) = want.get("recipient").and_then(Value::as_str) {
            let found = got.recipients.iter().any(|r| r == recipient);
            check("recipient", json!(found), &json!(true));
        }
        for needle in want.get("text_contains").and_then(Value::as_array).into_iter().flatten() {
            let needle = needle.as_str().expect("text_contains holds strings");
            check("text_contains", json!(got.text.contains(needle)), &json!(true));
        }
        check("garbled", json!(got.garbled), &json!(false));
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// Prints every fixture's reading (see the module docs).
#[test]
#[ignore = "a tool for adding fixtures, not a test"]
fn dump() {
    for (name, raw) in fixtures() {
        match read_mail(&raw) {
            Ok(r) => println!("== {name}\n{}\n-- text:\n{}", serde_json::to_string_pretty(&r).unwrap(), r.text),
            Err(e) => println!("== {name}: {e}"),
        }
    }
}

#[test]
fn every_truncation_of_every_fixture_reads_or_fails_cleanly() {
    for (name, raw) in fixtures() {
        // Every prefix of the headers and the first part of the body, then coarser.
        let cuts = (0..raw.len().min(4096)).chain((4096..raw.len()).step_by(97));
        for cut in cuts {
            let prefix = &raw[..cut];
            if let Ok(r) = read_mail(prefix) {
                assert!(!r.fresh.contains('\r'), "{name} cut at {cut}: a CR in the fresh text");
            }
        }
    }
}

#[test]
fn the_forwarded_board_mail_is_not_a_move_but_a_move_on_top_is() {
    let read = |name: &str| chess_intent(&read_mail(&fs::read(fixture_dir().join(name)).unwrap()).unwrap());
    assert_eq!(read("forwarded-board-mail.eml"), Intent::Forwarded);
    assert_eq!(read("forwarded-with-move.eml"), Intent::Move("Nf3".into()));
}

#[test]
fn a_mail_forwarded_as_an_attachment_is_forwarded() {
    let raw = "From: Alice <alice@example.org>\r\nTo: moves@steward.example\r\nSubject: Fwd: Game 8KQ2ZJ\r\n\
               MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\n\
               Content-Type: text/plain\r\n\r\n\r\n--b\r\nContent-Type: message/rfc822\r\n\r\n\
               From: Fairsteward <moves@steward.example>\r\nSubject: Game 8KQ2ZJ\r\n\r\nYour move: Nf3?\r\n--b--\r\n";
    assert_eq!(chess_intent(&read_mail(raw.as_bytes()).unwrap()), Intent::Forwarded);
}

/// A message built by mail-builder, which picks the transfer encoding itself
/// (7bit, quoted-printable or base64) from the text.
fn built(body: &str, html: bool) -> Vec<u8> {
    let mut b = mail_builder::MessageBuilder::new()
        .from(("Alice", "alice@example.org"))
        .to("moves+8KQ2ZJ.white.13.5c0f2e9a1b7d@steward.example")
        .subject("Re: Game 8KQ2ZJ, turn 12")
        .message_id("built@example.org");
    b = if html { b.html_body(body.to_owned()) } else { b.text_body(body.to_owned()) };
    b.write_to_vec().expect("mail-builder writes to a Vec")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = read_mail(&raw);
    }

    #[test]
    fn header_shaped_noise_never_panics(
        lines in proptest::collection::vec("[ -~\t]{0,80}", 0..40),
        sep in prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
    ) {
        let raw = lines.join(sep);
        let _ = read_mail(raw.as_bytes());
    }

    #[test]
    fn damaged_fixtures_never_panic(
        which in any::<prop::sample::Index>(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16),
    ) {
        let fixtures = fixtures();
        let (_, raw) = &fixtures[which.index(fixtures.len())];
        let mut raw = raw.clone();
        for (at, byte) in flips {
            let i = at.index(raw.len());
            raw[i] = byte;
        }
        let _ = read_mail(&raw);
    }

    #[test]
    fn intent_never_panics(fresh in "\\PC{0,300}", full in "\\PC{0,300}") {
        let _ = fairsteward::mail::inbound::intent(&fresh, &full, &full, Some(&Chess));
    }

    /// Whatever encoding mail-builder chooses, the text comes back.
    #[test]
    fn any_text_body_comes_back(lines in proptest::collection::vec("[^\r\n]{0,120}", 1..12)) {
        let body = lines.join("\n");
        let read = read_mail(&built(&body, false)).expect("a built mail reads");
        let norm = |s: &str| s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n").trim_end().to_owned();
        prop_assert_eq!(norm(&read.text), norm(&body));
    }

    /// A move survives any encoding, as text or as HTML.
    #[test]
    fn a_move_survives_encoding(
        mv in prop_oneof![Just("Nf3"), Just("e4"), Just("O-O-O"), Just("e7e8q"), Just("57581"), Just("Bxe5+")],
        trailer in "[a-zA-Zäöüß ,.!]{0,200}",
        html in any::<bool>(),
    ) {
        let body = if html { format!("<div>{mv}</div><div>{trailer}</div>") } else { format!("{mv}\n\n{trailer}") };
        let read = read_mail(&built(&body, html)).expect("a built mail reads");
        prop_assert_eq!(chess_intent(&read), Intent::Move(mv.to_owned()));
    }
}
