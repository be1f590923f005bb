//! Envelope reading, canonical bytes, signatures and refusals (issue items 2 and 8).

use super::*;
use crate::protocol::{PlayerKey, StewardKeys, seal};

fn mv() -> Envelope {
    Envelope::new("8KQ2ZJ", "white", 12, Body::Move("Nf3".into())).with_nonce("4f1c9a0b7e2d51aa")
}

fn block(lines: &[&str]) -> String {
    let mut s = String::from(BEGIN_LINE);
    s.push('\n');
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str(END_LINE);
    s.push('\n');
    s
}

fn err(text: &str) -> EnvelopeError {
    Envelope::parse(text).unwrap_err()
}

// --- canonical bytes and text -------------------------------------------------

#[test]
fn canonical_bytes_of_a_move() {
    assert_eq!(
        String::from_utf8(mv().canonical_bytes()).unwrap(),
        "game: 8KQ2ZJ\nseat: white\nturn: 12\nmove: Nf3\nnonce: 4f1c9a0b7e2d51aa\n"
    );
}

#[test]
fn canonical_bytes_sort_the_rest_by_key() {
    let salt: Vec<u8> = (0u8..16).collect();
    let reveal = Envelope::new("8kq2zj", "WHITE", 3, Body::Reveal { text: " e4 ".into(), salt: salt.clone() })
        .with_nonce("00AA00AA00AA00AA");
    assert_eq!(
        String::from_utf8(reveal.canonical_bytes()).unwrap(),
        "game: 8KQ2ZJ\nseat: white\nturn: 3\nmove: e4\nnonce: 00aa00aa00aa00aa\nsalt: 000102030405060708090a0b0c0d0e0f\n"
    );
    let commit = Envelope::new("8KQ2ZJ", "black", 3, Body::Commit([0xab; 32]));
    assert_eq!(
        String::from_utf8(commit.canonical_bytes()).unwrap(),
        format!("game: 8KQ2ZJ\nseat: black\nturn: 3\ncommit: {}\n", "ab".repeat(32))
    );
    let mut sealed = Envelope::new("8KQ2ZJ", "black", 3, Body::Sealed(vec![0xff; 80])).with_nonce("0102030405060708");
    sealed.salt = Some(salt);
    assert_eq!(
        String::from_utf8(sealed.canonical_bytes()).unwrap(),
        format!(
            "game: 8KQ2ZJ\nseat: black\nturn: 3\nnonce: 0102030405060708\nsalt: 000102030405060708090a0b0c0d0e0f\nsealed: {}\n",
            BASE64.encode([0xff; 80])
        )
    );
}

#[test]
fn text_is_the_design_block() {
    let mut e = mv();
    e.sig = Some(vec![0; 64]);
    assert_eq!(
        e.to_text(),
        format!(
            "-----BEGIN FAIRSTEWARD MOVE-----\ngame: 8KQ2ZJ\nseat: white\nturn: 12\nmove: Nf3\nnonce: 4f1c9a0b7e2d51aa\nsig: {}\n-----END FAIRSTEWARD MOVE-----\n",
            "A".repeat(86) + "=="
        )
    );
    assert_eq!(e.to_string(), e.to_text());
}

#[test]
fn every_body_round_trips_through_text() {
    let key = PlayerKey::generate();
    let dir = tempfile::tempdir().unwrap();
    let steward = StewardKeys::load_or_create(dir.path()).unwrap();
    let sealed = seal("Nf3", &steward.sealing_public(), "8KQ2ZJ", "white", 12);
    let mut sealed_reveal = Envelope::new("8KQ2ZJ", "white", 12, Body::Sealed(sealed.clone()));
    sealed_reveal.salt = Some(vec![5; 16]);
    let all = [
        mv(),
        Envelope::new("8KQ2ZJ", "white", 12, Body::Sealed(sealed)),
        Envelope::new("8KQ2ZJ", "white", 12, Body::Commit([7; 32])),
        Envelope::new("8KQ2ZJ", "white", 12, Body::Reveal { text: "Nf3".into(), salt: vec![9; 16] }),
        sealed_reveal,
    ];
    for mut e in all {
        assert_eq!(Envelope::parse(&e.to_text()).unwrap(), e);
        e.sign(&key);
        let back = Envelope::parse(&e.to_text()).unwrap();
        assert_eq!(back, e);
        back.verify(&key.public_key()).unwrap();
    }
}

// --- tolerance -------------------------------------------------------------

#[test]
fn crlf_trailing_spaces_blank_lines_and_key_case() {
    let text = "-----BEGIN FAIRSTEWARD MOVE-----  \r\n\r\nGame: 8kq2zj \r\nSEAT:White\t\r\n\r\n  turn :  12\r\nMove: Nf3   \r\nNonce: 4F1C9A0B7E2D51AA\r\n-----END FAIRSTEWARD MOVE-----\r\n";
    assert_eq!(Envelope::parse(text).unwrap(), mv());
}

#[test]
fn quoted_once_twice_and_without_spaces() {
    let plain = mv().to_text();
    for prefix in ["> ", ">", "> > ", ">> ", "  >  "] {
        let quoted: String = plain.lines().map(|l| format!("{prefix}{l}\n")).collect();
        assert_eq!(Envelope::parse(&quoted).unwrap(), mv(), "prefix {prefix:?}");
        assert_eq!(Envelope::find(&quoted).unwrap(), Some(mv()), "prefix {prefix:?}");
    }
}

#[test]
fn found_in_the_middle_of_a_mail() {
    let mail = format!(
        "Hi steward,\r\n\r\nhere is my move:\r\n\r\n{}\r\nCheers,\r\nAlice\r\n\r\nOn Mon, Bob wrote:\r\n> your move\r\n",
        mv().to_text().replace('\n', "\r\n")
    );
    assert_eq!(Envelope::find(&mail).unwrap(), Some(mv()));
    assert_eq!(Envelope::find("just Nf3, thanks").unwrap(), None);
    assert_eq!(Envelope::find("").unwrap(), None);
}

#[test]
fn markers_tolerate_case_and_dash_count() {
    let text = mv()
        .to_text()
        .replace(BEGIN_LINE, "---- begin fairsteward move ----")
        .replace(END_LINE, "-----End Fairsteward Move-------");
    assert_eq!(Envelope::parse(&text).unwrap(), mv());
}

#[test]
fn wrapped_base64_and_hex_values_are_joined() {
    let key = PlayerKey::generate();
    let mut e = Envelope::new("8KQ2ZJ", "white", 12, Body::Commit([0x3c; 32])).with_nonce("4f1c9a0b7e2d51aa");
    e.sign(&key);
    let text = e.to_text();
    let sig_line = text.lines().find(|l| l.starts_with("sig: ")).unwrap();
    let commit_line = text.lines().find(|l| l.starts_with("commit: ")).unwrap();
    let wrapped = text
        .replace(sig_line, &format!("{}\n{}", &sig_line[..40], &sig_line[40..]))
        .replace(commit_line, &format!("{}\n> {}", &commit_line[..30], &commit_line[30..]));
    assert_ne!(wrapped, text);
    let back = Envelope::parse(&wrapped).unwrap();
    assert_eq!(back, e);
    back.verify(&key.public_key()).unwrap();
}

#[test]
fn a_signature_survives_what_mail_does() {
    let key = PlayerKey::generate();
    let mut e = mv();
    e.sign(&key);
    let mangled: String =
        e.to_text().lines().map(|l| format!("> {}   \r\n", l.replacen("game: 8KQ2ZJ", "GAME: 8kq2zj", 1))).collect();
    let back = Envelope::find(&format!("Re: move\r\n\r\n{mangled}")).unwrap().unwrap();
    back.verify(&key.public_key()).unwrap();
}

#[test]
fn the_least_quoted_block_wins() {
    let old = Envelope::new("8KQ2ZJ", "white", 11, Body::Move("e4".into()));
    let quoted_old: String = old.to_text().lines().map(|l| format!("> {l}\n")).collect();
    let mail = format!("{}\nOn Sunday I wrote:\n{quoted_old}", mv().to_text());
    assert_eq!(Envelope::find(&mail).unwrap(), Some(mv()));
    let mail = format!("On Sunday I wrote:\n{quoted_old}\n{}", mv().to_text());
    assert_eq!(Envelope::find(&mail).unwrap(), Some(mv()));
}

#[test]
fn the_same_block_twice_is_one_envelope() {
    let mail = format!("{}\n(again, in case)\n{}", mv().to_text(), mv().to_text().replace('\n', "\r\n"));
    assert_eq!(Envelope::find(&mail).unwrap(), Some(mv()));
}

// --- refusals --------------------------------------------------------------

#[test]
fn two_different_envelopes_are_refused() {
    let other = Envelope::new("8KQ2ZJ", "white", 12, Body::Move("Nc3".into()));
    let mail = format!("{}\n{}", mv().to_text(), other.to_text());
    assert_eq!(Envelope::find(&mail), Err(EnvelopeError::Ambiguous));
    assert_eq!(Envelope::parse(&mail), Err(EnvelopeError::Ambiguous));
}

#[test]
fn a_cut_off_block_is_refused() {
    let text = mv().to_text();
    let cut = &text[..text.find("-----END").unwrap()];
    assert_eq!(Envelope::find(cut), Err(EnvelopeError::Unterminated));
    assert_eq!(Envelope::parse(cut), Err(EnvelopeError::Unterminated));
    // A cut-off block followed by a whole one: the reader says so rather than guess.
    assert_eq!(Envelope::find(&format!("{cut}{text}")), Err(EnvelopeError::Unterminated));
}

#[test]
fn an_oversized_envelope_is_refused() {
    let long = format!("move: {}", "N".repeat(MAX_ENVELOPE_BYTES));
    let text = block(&["game: 8KQ2ZJ", "seat: white", "turn: 12", &long]);
    assert!(matches!(Envelope::parse(&text), Err(EnvelopeError::TooLarge { .. })));
    assert!(matches!(Envelope::find(&format!("hello\n{text}")), Err(EnvelopeError::TooLarge { .. })));
    // Many short lines count too, as does an unterminated block.
    let many: String = std::iter::repeat_n("\n", MAX_ENVELOPE_BYTES).collect();
    let text = format!("{BEGIN_LINE}\ngame: 8KQ2ZJ{many}seat: white\nturn: 1\nmove: e4\n{END_LINE}\n");
    assert!(matches!(Envelope::find(&text), Err(EnvelopeError::TooLarge { .. })));
    assert!(matches!(Envelope::find(&format!("{BEGIN_LINE}{many}")), Err(EnvelopeError::TooLarge { .. })));
    assert!(MAX_ENVELOPE_BYTES >= 4 * mv().to_text().len());
}

#[test]
fn text_around_a_parsed_block_is_refused() {
    assert!(matches!(err(&format!("hello\n{}", mv().to_text())), EnvelopeError::OutsideBlock(l) if l == "hello"));
    assert_eq!(err("game: 8KQ2ZJ\n"), EnvelopeError::OutsideBlock("game: 8KQ2ZJ".into()));
    assert_eq!(err("\n\n"), EnvelopeError::NotFound);
}

#[test]
fn unknown_fields_are_named() {
    let e = err(&block(&["game: 8KQ2ZJ", "seat: white", "turn: 12", "move: Nf3", "Comment: hi"]));
    assert_eq!(e, EnvelopeError::UnknownField("Comment".into()));
    assert!(e.to_string().contains("\"Comment\"") && e.to_string().contains("game, seat, turn"), "{e}");
}

#[test]
fn duplicate_fields_are_refused() {
    assert_eq!(
        err(&block(&["game: 8KQ2ZJ", "seat: white", "turn: 12", "move: Nf3", "MOVE: Nc3"])),
        EnvelopeError::DuplicateField("move".into())
    );
}

#[test]
fn missing_game_seat_or_turn_is_refused() {
    assert_eq!(err(&block(&["seat: white", "turn: 12", "move: Nf3"])), EnvelopeError::MissingField("game"));
    assert_eq!(err(&block(&["game: 8KQ2ZJ", "turn: 12", "move: Nf3"])), EnvelopeError::MissingField("seat"));
    assert_eq!(err(&block(&["game: 8KQ2ZJ", "seat: white", "move: Nf3"])), EnvelopeError::MissingField("turn"));
}

#[test]
fn bad_values_are_refused() {
    let with = |game: &str, seat: &str, turn: &str, mv: &str| {
        err(&block(&[
            &format!("game: {game}"),
            &format!("seat: {seat}"),
            &format!("turn: {turn}"),
            &format!("move: {mv}"),
        ]))
    };
    for (e, field) in [
        (with("8KQ2Z", "white", "12", "Nf3"), "game"),
        (with("8KQ2ZI", "white", "12", "Nf3"), "game"),
        (with("8KQ2ZJ", "white knight", "12", "Nf3"), "seat"),
        (with("8KQ2ZJ", "", "12", "Nf3"), "seat"),
        (with("8KQ2ZJ", "white", "+12", "Nf3"), "turn"),
        (with("8KQ2ZJ", "white", "twelve", "Nf3"), "turn"),
        (with("8KQ2ZJ", "white", "99999999999", "Nf3"), "turn"),
        (with("8KQ2ZJ", "white", "12", ""), "move"),
        (with("8KQ2ZJ", "white", "12", &"N".repeat(MAX_MOVE_BYTES + 1)), "move"),
    ] {
        assert!(matches!(&e, EnvelopeError::BadValue { field: f, .. } if *f == field), "{field}: {e}");
    }
    let short_nonce = err(&block(&["game: 8KQ2ZJ", "seat: white", "turn: 12", "move: Nf3", "nonce: abcd"]));
    assert!(matches!(short_nonce, EnvelopeError::BadValue { field: "nonce", .. }));
}

#[test]
fn a_line_that_is_not_key_value_is_refused() {
    assert_eq!(
        err(&block(&["game: 8KQ2ZJ", "seat: white", "turn: 12", "move: Nf3", "and also Nc3"])),
        EnvelopeError::BadLine("and also Nc3".into())
    );
    // Only base64/hex values continue onto the next line.
    assert_eq!(
        err(&block(&["game: 8KQ2ZJ", "seat: white", "turn: 12", "move: N", "f3"])),
        EnvelopeError::BadLine("f3".into())
    );
}

#[test]
fn exactly_one_body() {
    let head = ["game: 8KQ2ZJ", "seat: white", "turn: 12"];
    let body = |extra: &[&str]| err(&block(&[&head[..], extra].concat()));
    let commit = format!("commit: {}", "ab".repeat(32));
    let salt = format!("salt: {}", "cd".repeat(16));
    for extra in [&[][..], &["move: Nf3", &commit], &[&commit, &salt], &[&salt], &["move: Nf3", "sealed: AAAA"]] {
        let e = body(extra);
        assert!(matches!(e, EnvelopeError::BadBody { .. }), "{extra:?}: {e}");
    }
    assert_eq!(
        body(&[]).to_string(),
        "the envelope holds no `move:`, `sealed:`, `commit:` or `action:`; send exactly one of `move:`, `sealed:`, `commit:` or `action:` (with `salt:` added to `move:` or `sealed:` for a reveal)"
    );
    assert!(
        body(&["move: Nf3", "action: resign"]).to_string().contains("`action:` together with a move"),
        "an action is not a move"
    );
    assert!(body(&["move: Nf3", &commit]).to_string().starts_with("the envelope holds `move:` and `commit:` together"));
}

#[test]
fn a_short_salt_is_refused() {
    let e =
        err(&block(&["game: 8KQ2ZJ", "seat: white", "turn: 12", "move: Nf3", &format!("salt: {}", "ab".repeat(15))]));
    assert_eq!(e, EnvelopeError::ShortSalt { got: 15 });
}

#[test]
fn truncated_or_garbled_hex_is_refused() {
    let head = ["game: 8KQ2ZJ", "seat: white", "turn: 12"];
    let commit = |c: String| err(&block(&[&head[..], &[&format!("commit: {c}")]].concat()));
    assert_eq!(commit("ab".repeat(31)), EnvelopeError::Hex("commit"));
    assert_eq!(commit(format!("{}a", "ab".repeat(31))), EnvelopeError::Hex("commit"));
    assert_eq!(commit(format!("{}zz", "ab".repeat(31))), EnvelopeError::Hex("commit"));
    let salt = err(&block(&[&head[..], &["move: Nf3", "salt: 0123456789abcdef0123456789abcdeg"]].concat()));
    assert_eq!(salt, EnvelopeError::Hex("salt"));
}

#[test]
fn truncated_or_garbled_base64_is_refused() {
    let key = PlayerKey::generate();
    let mut e = mv();
    e.sign(&key);
    let text = e.to_text();
    let sig_line = text.lines().find(|l| l.starts_with("sig: ")).unwrap().to_owned();
    for bad in [&sig_line[..sig_line.len() - 4], &sig_line[..sig_line.len() - 1], &sig_line[..sig_line.len() - 3]] {
        let e = err(&text.replace(&sig_line, bad));
        assert_eq!(e, EnvelopeError::Base64("sig"), "{bad}");
        assert!(e.to_string().starts_with("truncated or garbled base64 in `sig:`"));
    }
    let garbled = format!("{}*{}", &sig_line[..15], &sig_line[16..]);
    assert_eq!(err(&text.replace(&sig_line, &garbled)), EnvelopeError::Base64("sig"));
    let spaced = format!("{} {}", &sig_line[..15], &sig_line[15..]);
    assert_eq!(err(&text.replace(&sig_line, &spaced)), EnvelopeError::Base64("sig"));

    let dir = tempfile::tempdir().unwrap();
    let steward = StewardKeys::load_or_create(dir.path()).unwrap();
    let sealed = Envelope::new(
        "8KQ2ZJ",
        "white",
        12,
        Body::Sealed(seal("Nf3", &steward.sealing_public(), "8KQ2ZJ", "white", 12)),
    );
    let text = sealed.to_text();
    let line = text.lines().find(|l| l.starts_with("sealed: ")).unwrap().to_owned();
    assert_eq!(err(&text.replace(&line, &line[..line.len() - 2])), EnvelopeError::Base64("sealed"));
    // Cut at a multiple of four characters: good base64, but no sealed value is that long.
    assert_eq!(err(&text.replace(&line, &line[..line.len() - 8])), EnvelopeError::SealedLength { got: 75 });
    assert_eq!(err(&text.replace(&line, "sealed: !!notbase64!!")), EnvelopeError::Base64("sealed"));
}

// --- signatures ------------------------------------------------------------

#[test]
fn sign_and_verify() {
    let key = PlayerKey::generate();
    let mut e = mv();
    assert_eq!(e.verify(&key.public_key()), Err(EnvelopeError::MissingSignature));
    e.sign(&key);
    assert_eq!(e.sig.as_ref().map(Vec::len), Some(64));
    e.verify(&key.public_key()).unwrap();
}

#[test]
fn a_signature_by_the_key_of_another_seat_is_refused() {
    let (alice, bob) = (PlayerKey::generate(), PlayerKey::generate());
    let mut e = mv();
    e.sign(&bob);
    assert_eq!(e.verify(&alice.public_key()), Err(EnvelopeError::BadSignature));
}

#[test]
fn a_signed_envelope_altered_in_any_field_is_refused() {
    let key = PlayerKey::generate();
    let mut signed = mv();
    signed.sign(&key);
    let text = signed.to_text();
    for (from, to) in [
        ("game: 8KQ2ZJ", "game: 8KQ2ZK"),
        ("seat: white", "seat: black"),
        ("turn: 12", "turn: 13"),
        ("move: Nf3", "move: Nc3"),
        ("nonce: 4f1c9a0b7e2d51aa", "nonce: 4f1c9a0b7e2d51ab"),
    ] {
        let altered = Envelope::parse(&text.replace(from, to)).unwrap();
        assert_eq!(altered.verify(&key.public_key()), Err(EnvelopeError::BadSignature), "{to}");
    }
    let dropped = Envelope::parse(&text.replace("nonce: 4f1c9a0b7e2d51aa\n", "")).unwrap();
    assert_eq!(dropped.verify(&key.public_key()), Err(EnvelopeError::BadSignature));
}

#[test]
fn reveals_are_checked_against_their_commitment() {
    let salt = vec![42u8; 16];
    let committed = commitment("8KQ2ZJ", "white", 12, "Nf3", &salt);
    let reveal = Envelope::new("8kq2zj", "white", 12, Body::Reveal { text: "Nf3".into(), salt: salt.clone() });
    reveal.check_reveal(&committed).unwrap();
    let other = Envelope::new("8KQ2ZJ", "white", 12, Body::Reveal { text: "Nc3".into(), salt });
    let e = other.check_reveal(&committed).unwrap_err();
    assert_eq!(e, EnvelopeError::RevealMismatch { game: "8KQ2ZJ".into(), seat: "white".into(), turn: 12 });
    assert!(e.to_string().contains("commit --save"), "{e}");
    assert_eq!(mv().check_reveal(&committed), Err(EnvelopeError::NotAReveal));
}

#[test]
fn every_refusal_says_what_to_send() {
    let all = [
        EnvelopeError::NotFound,
        EnvelopeError::Unterminated,
        EnvelopeError::TooLarge { size: 5000 },
        EnvelopeError::Ambiguous,
        EnvelopeError::OutsideBlock("x".into()),
        EnvelopeError::BadLine("x".into()),
        EnvelopeError::UnknownField("x".into()),
        EnvelopeError::DuplicateField("move".into()),
        EnvelopeError::MissingField("game"),
        EnvelopeError::BadValue { field: "turn", value: "x".into(), expected: "a turn number, like 12" },
        EnvelopeError::Base64("sig"),
        EnvelopeError::Hex("commit"),
        EnvelopeError::BadBody { found: "x".into() },
        EnvelopeError::ShortSalt { got: 3 },
        EnvelopeError::MissingSignature,
        EnvelopeError::BadSignature,
        EnvelopeError::SealedElsewhere,
        EnvelopeError::SealedLength { got: 3 },
        EnvelopeError::BadStewardKey,
        EnvelopeError::RevealMismatch { game: "8KQ2ZJ".into(), seat: "white".into(), turn: 1 },
        EnvelopeError::NotAReveal,
    ];
    for e in all {
        let text = e.to_string();
        assert!(
            ["send", "sign it", "seal it", "fetch it", "every envelope names"].iter().any(|w| text.contains(w)),
            "{}: {text}",
            e.code()
        );
        assert!(!text.ends_with('.'), "{text}");
    }
}

#[test]
fn an_action_envelope_is_signed_and_read_back() {
    use crate::protocol::Action;
    let key = PlayerKey::generate();
    let mut e = Envelope::new("8kq2zj", "Black", 7, Body::Action(Action::Resign)).with_nonce("00112233445566ff");
    assert_eq!(e.canonical_bytes(), b"game: 8KQ2ZJ\nseat: black\nturn: 7\naction: resign\nnonce: 00112233445566ff\n");
    e.sign(&key);
    let back = Envelope::parse(&e.to_text()).unwrap();
    assert_eq!(back, e);
    back.verify(&key.public_key()).unwrap();
    // The action is signed: another one does not verify.
    let other = Envelope::parse(&e.to_text().replace("action: resign", "action: draw-offer")).unwrap();
    assert_eq!(other.body, Body::Action(Action::OfferDraw));
    assert_eq!(other.verify(&key.public_key()), Err(EnvelopeError::BadSignature));
    let bad = Envelope::parse(&e.to_text().replace("action: resign", "action: resign now")).unwrap_err();
    assert!(bad.to_string().contains("draw-offer"), "the refusal lists the actions: {bad}");
}
