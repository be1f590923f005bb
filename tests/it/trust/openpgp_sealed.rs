//! Issue 33 (the steward's side): replies encrypted to the steward's OpenPGP key
//! are sealed moves, and the steward's own mails are signed and carry its key.
//!
//! Real tools make the bytes: GnuPG (`gpg`) and RNP (`rnp`, Thunderbird's
//! library), in the MIME shapes clients send — Thunderbird's PGP/MIME with
//! protected headers, K-9/OpenKeychain's PGP/MIME with a quoted-printable
//! text part, and inline PGP. The steward's key is taken as a client takes it:
//! from the `Autocrypt:` header of its board mail. Mails go in through the MTA
//! pipe (`fairsteward ingest`); `gpg --verify` checks the steward's signatures.

use base64::Engine as _;
use serde_json::Value;

use super::pgp_game::{history, places};
use super::pgp_tools::{Gpg, Rnp};
use crate::support as common;
use common::leak::{assert_nowhere_in_clear, clear_in};
use common::pipe::{PipeSteward, fairsteward, header};

const ALICE: &str = "Alice <alice@example.org>";
const BOB: &str = "Bob <bob@example.org>";

/// The binary key in a mail's `Autocrypt:` header, and its `addr`.
#[track_caller]
fn autocrypt(mail: &str) -> (String, Vec<u8>) {
    let value = header(mail, "Autocrypt");
    assert!(!value.is_empty(), "an Autocrypt header: {}", &mail[..mail.find("\r\n\r\n").unwrap_or(mail.len())]);
    let addr = value.split(';').find_map(|p| p.trim().strip_prefix("addr=")).unwrap().trim().to_owned();
    assert!(value.contains("prefer-encrypt=mutual"), "{value}");
    let keydata = value.split("keydata=").nth(1).unwrap().split_whitespace().collect::<String>();
    (addr, base64::engine::general_purpose::STANDARD.decode(keydata).unwrap())
}

/// The fingerprint of a binary public key, as `gpg --show-keys` gives it.
fn fingerprint_of(gpg: &Gpg, key: &[u8]) -> String {
    gpg.fingerprint_of(key)
}

/// The signed part (exact bytes) and the signature of a PGP/MIME signed mail,
/// cut as a client cuts them: between the first delimiter line and the next,
/// without the CRLF that belongs to the delimiter.
#[track_caller]
fn signed_parts(mail: &[u8]) -> (Vec<u8>, String) {
    let text = String::from_utf8_lossy(mail).into_owned();
    let ct = header(&text, "Content-Type");
    assert!(
        ct.contains("multipart/signed") && ct.contains("micalg=pgp-sha256") && ct.contains("application/pgp-signature"),
        "{ct}"
    );
    let boundary = ct.split("boundary=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let delimiter = format!("\r\n--{boundary}");
    let find = |from: usize| text[from..].find(&delimiter).map(|i| from + i).unwrap();
    let first = find(0) + delimiter.len() + 2;
    let end = find(first);
    let rest = &text[end..];
    let sig = &rest[rest.find("-----BEGIN PGP SIGNATURE-----").unwrap()
        ..rest.find("-----END PGP SIGNATURE-----").unwrap() + "-----END PGP SIGNATURE-----".len()];
    (mail[first..end].to_vec(), sig.to_owned())
}

/// Checks a mail's signature with `gpg --verify` (the steward's key imported).
#[track_caller]
fn assert_good_signature(gpg: &Gpg, mail: &str) {
    let (part, sig) = signed_parts(mail.as_bytes());
    assert!(part.is_ascii(), "the signed part is 7-bit");
    assert!(part.split(|b| *b == b'\n').all(|l| l.len() <= 78), "lines under 78 octets");
    let (ok, report) = gpg.verify(&sig, &part);
    assert!(ok && report.contains("Good signature"), "gpg --verify: {report}");
}

/// An outer PGP/MIME encrypted mail (RFC 3156) as Thunderbird and K-9 write it.
fn pgp_mime(from: &str, to: &str, id: &str, subject: &str, armored: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/encrypted;\r\n protocol=\"application/pgp-encrypted\";\r\n boundary=\"------------enc{id}\"\r\n\r\nThis is an OpenPGP/MIME encrypted message (RFC 4880 and 3156)\r\n--------------enc{id}\r\nContent-Type: application/pgp-encrypted\r\nContent-Description: PGP/MIME version identification\r\n\r\nVersion: 1\r\n\r\n--------------enc{id}\r\nContent-Type: application/octet-stream; name=\"encrypted.asc\"\r\nContent-Description: OpenPGP encrypted message\r\nContent-Disposition: inline; filename=\"encrypted.asc\"\r\n\r\n{armored}\r\n--------------enc{id}--\r\n"
    )
}

/// Thunderbird's inner message: multipart/mixed with protected headers, the
/// reply as format=flowed text (the outer subject is then `...`).
fn thunderbird_inner(from: &str, to: &str, subject: &str, body: &str) -> String {
    format!(
        "Content-Type: multipart/mixed; boundary=\"------------tb0123\";\r\n protected-headers=\"v1\"\r\nFrom: {from}\r\nTo: {to}\r\nMessage-ID: <tb@client.example>\r\nSubject: {subject}\r\n\r\nThis is a multi-part message in MIME format.\r\n--------------tb0123\r\nContent-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 7bit\r\n\r\n{body}\r\n\r\n> Game board quoted here\r\n\r\n--------------tb0123--\r\n"
    )
}

/// K-9 Mail / OpenKeychain's inner message: one quoted-printable text part.
fn k9_inner(body: &str) -> String {
    format!(
        "Content-Type: text/plain;\r\n charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{body}\r\n\r\n--=20\r\nSent from my phone\r\n"
    )
}

/// An inline-PGP reply: the armoured block in a text/plain body.
fn inline(from: &str, to: &str, id: &str, subject: &str, armored: &str) -> String {
    common::pipe::reply(from, to, id, subject, armored)
}

#[test]
fn encrypted_replies_are_sealed_moves_in_fairschach_and_chess() {
    let (gpg, rnp) = (Gpg::new(), Rnp::new());
    let s = PipeSteward::new();
    let fs = s.new_game("fairschach", &[], &[ALICE, BOB]);
    s.ingest("x");

    // The start mails carry the steward's key (Autocrypt) and its signature.
    let start = s.newest("alice@", "started");
    let (addr, key) = autocrypt(&start);
    assert!(header(&start, "From").contains(&addr), "addr is the From address");
    gpg.import(&key);
    rnp.import(&key);
    let steward = fingerprint_of(&gpg, &key);
    assert_good_signature(&gpg, &start);
    assert_good_signature(&gpg, &s.newest("bob@", "started"));

    // Alice: Thunderbird's shape (PGP/MIME, protected headers), made by GnuPG.
    let to = s.reply_to("alice@", "started");
    let subject = header(&start, "Subject");
    let inner = thunderbird_inner(ALICE, &to, &format!("Re: {subject}"), "Nf3");
    let mail = pgp_mime(ALICE, &to, "tb1", "...", &gpg.encrypt(&steward, inner.as_bytes()));
    assert!(!mail.contains("Nf3"));
    assert_eq!(s.ingest(&mail).1, "accepted: move");
    let receipt = s.answers_to("alice@").pop().unwrap();
    assert!(receipt.contains("Accepted: your encrypted move for turn 1"), "{receipt}");
    assert_good_signature(&gpg, &s.spool().into_iter().rfind(|(n, _)| n.contains(".answer-")).unwrap().1);
    assert_nowhere_in_clear("Alice's encrypted move pending", &places(&s, &fs), &[("Nf3", "g1f3")]);

    // Bob: inline PGP, made by RNP; it completes the pair.
    let to = s.reply_to("bob@", "started");
    let mail = inline(BOB, &to, "rnp1", "Re: your move", &rnp.encrypt(&steward, b"Nc6\r\n"));
    assert_eq!(s.ingest(&mail).1, "accepted: move");
    assert_eq!(history(&s, &fs), [["Nf3", "Nc6"]]);
    let board = s.newest("alice@", "turn");
    autocrypt(&board);
    assert_good_signature(&gpg, &board);

    // Refused, with the reason, to the registered address; nothing changes.
    let to = s.reply_to("alice@", "turn");
    let mut seen = s.answers_to("alice@");
    let other = Gpg::new();
    let mallory = other.generate("Mallory <mallory@example.org>");
    let wrong = pgp_mime(ALICE, &to, "w1", "...", &other.encrypt(&mallory, k9_inner("e4").as_bytes()));
    let said = s.answered(&wrong, "alice@", "refused: undecryptable", &mut seen);
    assert!(said.contains("encrypted to another key") && said.contains("/api/steward"), "{said}");
    let garbled = gpg.encrypt(&steward, b"e4\r\n").replacen("hQ", "hR", 1).replace("=\r\n", "");
    let mut lines: Vec<&str> = garbled.lines().collect();
    let middle = lines.len() / 2;
    lines[middle] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let garbled = pgp_mime(ALICE, &to, "g1", "...", &lines.join("\r\n"));
    let said = s.answered(&garbled, "alice@", "refused: undecryptable", &mut seen);
    assert!(said.contains("cannot be opened"), "{said}");
    let big = "A".repeat(64);
    let big = format!(
        "-----BEGIN PGP MESSAGE-----\r\n\r\n{}-----END PGP MESSAGE-----\r\n",
        format!("{big}\r\n").repeat(17_000)
    );
    let said = s.answered(&pgp_mime(ALICE, &to, "b1", "...", &big), "alice@", "refused: undecryptable", &mut seen);
    assert!(said.contains("larger than"), "{said}");
    assert_eq!(history(&s, &fs), [["Nf3", "Nc6"]], "nothing changed");

    // Chess: K-9/OpenKeychain's shape made by RNP, then inline by GnuPG.
    let chess = s.new_game("chess", &[], &[ALICE, BOB]);
    s.ingest("x");
    let start = s
        .spool()
        .into_iter()
        .filter(|(n, t)| n.starts_with(&chess) && n.contains("started") && header(t, "To").contains("alice@"))
        .map(|(_, t)| t)
        .next_back()
        .unwrap();
    assert_good_signature(&gpg, &start);
    let to = header(&start, "Reply-To");
    let to = to.rsplit_once('<').map_or(to.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned();
    let mail = pgp_mime(ALICE, &to, "k9a", "Re: chess", &rnp.encrypt(&steward, k9_inner("e4").as_bytes()));
    assert_eq!(s.ingest(&mail).1, "accepted: move");
    let game: Value = s.game(&chess);
    assert_eq!(game["history"][0]["moves"][0]["move"], "e4", "{game}");
    // Bob: signed and encrypted by GnuPG (`--sign --encrypt`), inline, with a
    // key he registered nowhere and no game lines in the signed text: it opens
    // and acts by its reply address, as an unsigned reply (openpgp_signcrypt.rs
    // has the signed moves).
    let bob_key = gpg.generate("Bob <bob@example.org>");
    let board = s
        .spool()
        .into_iter()
        .filter(|(n, t)| n.starts_with(&chess) && n.contains("turn") && header(t, "To").contains("bob@"))
        .map(|(_, t)| t)
        .next_back()
        .unwrap();
    let to = header(&board, "Reply-To");
    let to = to.rsplit_once('<').map_or(to.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned();
    let signed =
        gpg.ok(&["--armor", "--sign", "--local-user", &bob_key, "--encrypt", "--recipient", &steward], b"e5\r\n");
    let signed = String::from_utf8(signed).unwrap().replace('\n', "\r\n");
    assert_eq!(s.ingest(&inline(BOB, &to, "se1", "Re: chess", &signed)).1, "accepted: move");
    let game: Value = s.game(&chess);
    assert_eq!(game["history"][1]["moves"][0]["move"], "e5", "{game}");
}

#[test]
fn after_keys_rotate_the_old_key_still_opens_and_mails_carry_the_new_one() {
    let gpg = Gpg::new();
    let s = PipeSteward::new();
    let fs = s.new_game("fairschach", &[], &[ALICE, BOB]);
    s.ingest("x");
    let start = s.newest("alice@", "started");
    let (_, old_key) = autocrypt(&start);
    gpg.import(&old_key);
    let old = fingerprint_of(&gpg, &old_key);
    let key_file = s.data.join("steward-openpgp.asc");
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600, "the secret key is 0600");

    let out = fairsteward(&["keys", "rotate", "--data-dir", &s.data_arg()], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        std::fs::read_dir(&s.data)
            .unwrap()
            .any(|e| { e.unwrap().file_name().to_string_lossy().starts_with("steward-openpgp.retired-") })
    );
    s.ingest("x");

    // A reply encrypted to the old key (sent before the player saw the new one) opens.
    let to = s.reply_to("alice@", "started");
    let mail = pgp_mime(ALICE, &to, "old1", "...", &gpg.encrypt(&old, k9_inner("Nf3").as_bytes()));
    assert_eq!(s.ingest(&mail).1, "accepted: move");
    let to = s.reply_to("bob@", "started");
    let mail = inline(BOB, &to, "old2", "Re: x", &gpg.encrypt(&old, b"Nc6\r\n"));
    assert_eq!(s.ingest(&mail).1, "accepted: move");
    assert_eq!(history(&s, &fs), [["Nf3", "Nc6"]]);

    // New mails carry the new key and are signed with it.
    let board = s.newest("alice@", "turn");
    let (_, new_key) = autocrypt(&board);
    assert_ne!(new_key, old_key, "the new key in the Autocrypt header");
    gpg.import(&new_key);
    let new = fingerprint_of(&gpg, &new_key);
    assert_ne!(new, old);
    assert_good_signature(&gpg, &board);
    let (_, sig) = signed_parts(board.as_bytes());
    let packets = String::from_utf8_lossy(&gpg.ok(&["--list-packets"], sig.as_bytes())).into_owned();
    assert!(packets.contains(&new[new.len() - 16..]), "signed by the new key: {packets}");
    // A move encrypted to the new key opens too.
    let to = s.reply_to("alice@", "turn");
    let mail = pgp_mime(ALICE, &to, "new1", "...", &gpg.encrypt(&new, k9_inner("e4").as_bytes()));
    assert_eq!(s.ingest(&mail).1, "accepted: move");
    assert!(clear_in(s.game(&fs).to_string().as_bytes(), "e2e4", "e4").is_none());
}

/// Through the real servers: the key from `GET /api/steward` and `/steward.asc`,
/// the start mail as delivered over IMAP (Autocrypt, `gpg --verify`), and an
/// encrypted reply (Thunderbird's shape, GnuPG) sent over SMTP and read by the
/// steward's IMAP door: held, nowhere in the game's view until the pair is in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_encrypted_reply_over_smtp_and_imap_is_held_and_the_delivered_board_mail_verifies() {
    use crate::mail::e2e::{DOMAIN, Steward, bare, game_of, is_answer, send_and_wait, text_of, wait_for};
    use common::mailstack::{stack, unique};
    use std::time::Duration;

    let stack = stack();
    let gpg = Gpg::new();
    // Short: `<local>+GAME.seat.turn.mac` must stay within the 64 characters of a local part.
    let (moves, alice, bob) = (unique("m"), unique("alice"), unique("bob"));
    let steward = Steward::start(&stack, &moves).await;
    let v: Value =
        steward.client.get(format!("{}/api/steward", steward.base)).send().await.unwrap().json().await.unwrap();
    let armored = v["openpgp"]["key"].as_str().expect("the OpenPGP key at /api/steward").to_owned();
    let fpr = v["openpgp"]["fingerprint"].as_str().unwrap().to_owned();
    assert!(armored.starts_with("-----BEGIN PGP PUBLIC KEY BLOCK-----"), "{v}");
    assert_eq!(v["openpgp"]["user_id"], format!("Fairsteward <{moves}@{DOMAIN}>"));
    let asc = steward.client.get(format!("{}/steward.asc", steward.base)).send().await.unwrap();
    assert_eq!(asc.headers()["content-type"], "application/pgp-keys");
    assert_eq!(asc.text().await.unwrap(), armored);
    gpg.import(armored.as_bytes());

    let emails = [format!("{alice}@{DOMAIN}"), format!("{bob}@{DOMAIN}")];
    let (game, tokens, starts) =
        game_of(&stack, &steward, "fairschach", [emails[0].as_str(), emails[1].as_str()]).await;
    let delivered = String::from_utf8(starts[0].raw.clone()).unwrap();
    let (addr, key) = autocrypt(&delivered);
    assert_eq!(addr, format!("{moves}@{DOMAIN}"));
    assert_eq!(fingerprint_of(&gpg, &key), fpr, "the Autocrypt key is the key at /api/steward");
    assert_good_signature(&gpg, &delivered);
    assert!(text_of(&starts[0]).contains(&game), "the start mail reads as before");

    // The first pair by HTTP (start mails of games made over HTTP carry no reply
    // address); the second move by an encrypted reply to the turn mail.
    let (game, tokens) = (game, tokens);
    for (token, mv) in [(&tokens[0], "e4"), (&tokens[1], "e5")] {
        let r = steward
            .client
            .post(format!("{}/api/games/{game}/moves", steward.base))
            .bearer_auth(token)
            .json(&serde_json::json!({"turn": 1, "move": mv}))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{:?}", r.text().await);
    }
    let mails = wait_for(&stack, &alice, Duration::from_secs(15), "the turn mail", |m| {
        m.iter().any(|x| x.message_id.contains(".turn"))
    })
    .await;
    let turn = mails.iter().find(|x| x.message_id.contains(".turn")).unwrap();
    let turn_text = String::from_utf8(turn.raw.clone()).unwrap();
    assert_good_signature(&gpg, &turn_text);
    let reply_to = bare(&header(&turn_text, "Reply-To"));
    assert!(reply_to.starts_with(&format!("{moves}+")), "{reply_to}");
    let from = format!("Alice <{}>", emails[0]);
    let inner = thunderbird_inner(&from, &reply_to, &format!("Re: {game}"), "Nf3");
    let mail = pgp_mime(&from, &reply_to, &unique("tb"), "...", &gpg.encrypt(&fpr, inner.as_bytes()));
    send_and_wait(&stack, &moves, &emails[0], &reply_to, mail.as_bytes(), 1).await;
    let mails = wait_for(&stack, &alice, Duration::from_secs(15), "the receipt", |m| m.iter().any(is_answer)).await;
    let receipt = mails.iter().find(|m| is_answer(m)).unwrap();
    assert!(text_of(receipt).contains("your encrypted move for turn 2"), "{}", text_of(receipt));
    assert_good_signature(&gpg, &String::from_utf8(receipt.raw.clone()).unwrap());
    let view = steward.game(&game).await;
    assert!(clear_in(view.to_string().as_bytes(), "g1f3", "Nf3").is_none(), "{view}");
    assert_eq!(view["history"].as_array().unwrap().len(), 1, "the second pair waits for Bob: {view}");
    assert_eq!(view["moved"], serde_json::json!(["white"]), "{view}");
    steward.stop().await;
}

/// Commit-reveal by mail with encryption: the commitments in plain envelopes, the
/// reveals (envelopes with `move:` and `salt:`) encrypted to the steward.
#[test]
fn an_encrypted_reveal_opens_its_commitment_by_mail() {
    let gpg = Gpg::new();
    let s = PipeSteward::new();
    let g = s.new_game("fairschach", &["secrecy=commit-reveal"], &[ALICE, BOB]);
    s.ingest("x");
    let (_, key) = autocrypt(&s.newest("alice@", "started"));
    gpg.import(&key);
    let steward = fingerprint_of(&gpg, &key);
    let salt = [7u8; 16];
    let salt_hex: String = salt.iter().map(|b| format!("{b:02x}")).collect();
    let envelope = |seat: &str, body: &str| {
        format!(
            "-----BEGIN FAIRSTEWARD MOVE-----\r\ngame: {g}\r\nseat: {seat}\r\nturn: 1\r\n{body}-----END FAIRSTEWARD MOVE-----\r\n"
        )
    };
    for (who, addr, seat, mv) in [(ALICE, "alice@", "white", "Nf3"), (BOB, "bob@", "black", "Nc6")] {
        let c: String =
            fairsteward::protocol::commitment(&g, seat, 1, mv, &salt).iter().map(|b| format!("{b:02x}")).collect();
        let to = s.reply_to(addr, "started");
        let mail =
            common::pipe::reply(who, &to, &format!("c{seat}"), "Re: x", &envelope(seat, &format!("commit: {c}\r\n")));
        let (_, line) = s.ingest(&mail);
        assert!(line.starts_with("accepted"), "{line}");
    }
    for (who, addr, seat, mv) in [(ALICE, "alice@", "white", "Nf3"), (BOB, "bob@", "black", "Nc6")] {
        let to = s.reply_to(addr, "reveal");
        let reveal = envelope(seat, &format!("move: {mv}\r\nsalt: {salt_hex}\r\n"));
        let mail = pgp_mime(who, &to, &format!("r{seat}"), "...", &gpg.encrypt(&steward, k9_inner(&reveal).as_bytes()));
        let (_, line) = s.ingest(&mail);
        assert!(line.starts_with("accepted"), "{line}");
    }
    assert_eq!(history(&s, &g), [["Nf3", "Nc6"]]);
}

/// In a game that requires signatures, an encrypted reply that is not signed
/// inside acts by its reply address only, and that is not enough: refused
/// ("signature required"), and nothing changes. (Signed inside by the seat's
/// OpenPGP key, it counts: openpgp_signcrypt.rs.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsigned_encrypted_reply_is_refused_where_signatures_are_required() {
    use fairsteward::protocol::PlayerKey;
    use serde_json::json;
    let gpg = Gpg::new();
    let dir = tempfile::tempdir().unwrap();
    let server = common::Server::start_in(dir.path()).await;
    let keys = [PlayerKey::generate(), PlayerKey::generate()];
    let seats = json!([
        {"name": "Alice", "email": "alice@example.org", "public_key": keys[0].public_key_base64()},
        {"name": "Bob", "email": "bob@example.org", "public_key": keys[1].public_key_base64()},
    ]);
    let created = server
        .post_json(
            "/api/games",
            None,
            &json!({"variant": "fairschach", "options": {"auth": "signature"}, "seats": seats}),
        )
        .await
        .ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let v = server.get("/api/steward", None).await.json();
    gpg.import(v["openpgp"]["key"].as_str().unwrap().as_bytes());
    let fpr = v["openpgp"]["fingerprint"].as_str().unwrap().to_owned();
    let spool = dir.path().join("spool");
    let start = common::eventually("Alice's start mail", || {
        common::spool_files(&spool)
            .into_values()
            .map(|b| String::from_utf8(b).unwrap())
            .find(|t| header(t, "To").contains("alice@") && header(t, "Message-ID").contains(".started"))
    })
    .await;
    let to = header(&start, "Reply-To");
    let to = to.rsplit_once('<').map_or(to.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned();
    let mail = pgp_mime(ALICE, &to, "sig1", "...", &gpg.encrypt(&fpr, k9_inner("Nf3").as_bytes()));
    assert_eq!(common::ingest(dir.path(), &mail), "refused: signature_required");
    let said = common::answer_containing(&spool, "alice@", "signed").await;
    assert!(!said.contains("Nf3"), "{said}");
    let game = server.game(&id, None).await;
    assert_eq!(game["moved"], json!([]), "nothing changed: {game}");
}
