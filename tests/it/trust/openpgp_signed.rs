//! Issue 33 (points 1, 2, 5, 6, the signing half): replies signed with OpenPGP
//! from the mail clients players have count as signed moves.
//!
//! Keys are made by the real GnuPG and RNP (Debian's `gnupg` and `rnp`, which
//! scripts/test installs); the mails are built by hand in the MIME shapes those
//! clients send (Thunderbird, mutt, K-9, an attachment beside the text) and the
//! first part's exact bytes are signed by `gpg --detach-sign` or `rnp --sign
//! --detach`. The mails go through `fairsteward ingest` (the MTA pipe), and one
//! through the real SMTP and IMAP servers.

use serde_json::{Value, json};

use super::pgp_game::{create_game, expect, lines, transcript, verify};
use super::pgp_tools::{Gpg, Rnp, run};
use crate::support::pipe::{PipeSteward as Steward, new_answer};

/// The shapes of the signed first part, as clients write them.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// mutt: text/plain, quoted-printable.
    Mutt,
    /// Thunderbird: multipart/mixed with protected headers, text/plain inside.
    Thunderbird,
    /// K-9 Mail / OpenKeychain: text/plain; format=flowed.
    K9,
    /// A text and an attachment beside it, both inside the signed part.
    Attachment,
}

fn part(shape: Shape, text: &str, subject: &str) -> String {
    let body = format!("{text}\r\n> On turn 1 the steward wrote:\r\n> game: OLDGAM\r\n> turn: 99\r\n");
    match shape {
        Shape::Mutt => format!(
            "Content-Type: text/plain; charset=utf-8\r\nContent-Disposition: inline\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{body}Gr=C3=BC=C3=9Fe, a long line that mutt wraps with a soft line break at seventy-six=\r\n characters\r\n"
        ),
        Shape::Thunderbird => format!(
            "Content-Type: multipart/mixed; boundary=\"------------inner7\";\r\n protected-headers=\"v1\"\r\nSubject: {subject}\r\nFrom: Alice <alice@example.org>\r\nTo: moves@localhost\r\n\r\n--------------inner7\r\nContent-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 7bit\r\n\r\n{body}\r\n--------------inner7--\r\n"
        ),
        Shape::K9 => format!(
            "Content-Type: text/plain;\r\n charset=utf-8; format=flowed\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{body}"
        ),
        Shape::Attachment => format!(
            "Content-Type: multipart/mixed; boundary=\"att-b\"\r\n\r\n--att-b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n--att-b\r\nContent-Type: application/octet-stream; name=\"board.bin\"\r\nContent-Disposition: attachment; filename=\"board.bin\"\r\nContent-Transfer-Encoding: base64\r\n\r\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\r\n--att-b--\r\n"
        ),
    }
}

/// A PGP/MIME signed mail (RFC 3156) around `part` with `signature`.
fn pgp_mime(from: &str, id: &str, subject: &str, part: &str, signature: &str) -> String {
    format!(
        "From: {from}\r\nTo: moves@localhost\r\nSubject: {subject}\r\nMessage-ID: <{id}@client.example>\r\nDate: Sun, 6 Dec 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/signed; micalg=pgp-sha256;\r\n protocol=\"application/pgp-signature\";\r\n boundary=\"sig-boundary-1\"\r\n\r\nThis is an OpenPGP/MIME signed message (RFC 4880 and 3156)\r\n--sig-boundary-1\r\n{part}\r\n--sig-boundary-1\r\nContent-Type: application/pgp-signature; name=\"OpenPGP_signature.asc\"\r\nContent-Description: OpenPGP digital signature\r\nContent-Disposition: attachment; filename=\"OpenPGP_signature.asc\"\r\n\r\n{signature}\r\n--sig-boundary-1--\r\n"
    )
}

/// A plain mail whose body is an inline cleartext-signed block.
fn inline(from: &str, id: &str, block: &str) -> String {
    format!(
        "From: {from}\r\nTo: moves@localhost\r\nSubject: my move\r\nMessage-ID: <{id}@client.example>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        block.replace('\n', "\r\n").replace("\r\r\n", "\r\n")
    )
}

/// Creates a game in the steward's store with `seats` (name, address, OpenPGP key).
fn new_game(s: &Steward, variant: &str, auth: &str, seats: &[(&str, &str, &str)]) -> String {
    create_game(s, variant, json!({"auth": auth}), seats)
}

/// The moves accepted for the current turn.
fn moved(s: &Steward, game: &str) -> Value {
    s.game(game)["moved"].clone()
}

/// A signature-only Fairschach game played by PGP/MIME replies in every client
/// shape, with keys from GnuPG (ed25519, rsa3072, a signing subkey) and RNP;
/// `verify` re-checks the signed moves offline, and fails when one byte of a
/// signed part in the transcript is changed.
#[test]
fn signed_replies_in_every_client_shape_are_signed_moves_in_a_signature_only_fairschach_game() {
    let gpg = Gpg::new();
    gpg.key("Alice <alice@example.org>", "ed25519");
    gpg.key_with_signing_subkey("Bob <bob@example.org>");
    let s = Steward::new();
    let game = new_game(
        &s,
        "fairschach",
        "signature",
        &[
            ("Alice", "alice@example.org", &gpg.export("alice@example.org")),
            ("Bob", "bob@example.org", &gpg.export("bob@example.org")),
        ],
    );
    // The fingerprints are shown in the game's JSON.
    let shown = s.game(&game);
    let fpr = gpg.fingerprint("alice@example.org");
    let grouped = shown["seats"][0]["openpgp_fingerprint"].as_str().unwrap_or_default().replace(' ', "");
    assert_eq!(grouped, fpr, "{shown}");

    let mut seen = Vec::new();
    let plies = [(1, "e4", "e5"), (2, "Nf3", "Nc6"), (3, "Bc4", "Bc5"), (4, "d3", "d6")];
    let shapes = [Shape::Mutt, Shape::Thunderbird, Shape::K9, Shape::Attachment];
    for ((turn, w, b), shape) in plies.into_iter().zip(shapes) {
        for (seat, from, uid, mv) in [
            ("white", "Alice <alice@example.org>", "alice@example.org", w),
            ("black", "Bob <bob@example.org>", "bob@example.org", b),
        ] {
            let p = part(shape, &lines(&game, seat, turn, &format!("move: {mv}")), "Re: your move");
            let sig = gpg.detach_sign(uid, p.as_bytes());
            let mail = pgp_mime(from, &format!("{game}-{turn}-{seat}"), "Re: your move", &p, &sig);
            let said = expect(&s, &mail, "accepted: move", uid.split('@').next().unwrap(), &mut seen);
            assert!(said.contains("Accepted: move"), "{shape:?}: {said}");
        }
    }
    assert_eq!(s.game(&game)["turn"], json!(5));

    // verify re-checks the OpenPGP-signed moves offline …
    let t = transcript(&s, &game);
    assert!(t.0.contains("BEGIN FAIRSTEWARD OPENPGP MOVE"), "{}", t.0);
    let ok = verify(&t);
    assert!(ok.status.success(), "{}{}", String::from_utf8_lossy(&ok.stdout), String::from_utf8_lossy(&ok.stderr));
    // … and one byte changed in a signed part fails it.
    let tampered = (tamper_signed_part(&t.0), t.1.clone());
    let bad = verify(&tampered);
    assert!(!bad.status.success(), "a tampered signed part verified: {}", String::from_utf8_lossy(&bad.stdout));
}

/// Changes one byte inside the first signed part of the transcript and
/// recomputes nothing: `verify` must notice.
fn tamper_signed_part(t: &str) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let at = t.find("signed: ").unwrap() + "signed: ".len();
    let end = at + t[at..].find("\\n").unwrap();
    let mut bytes = b64.decode(&t[at..end]).unwrap();
    let i = bytes.iter().position(|&b| b == b'e').unwrap();
    bytes[i] = b'E';
    format!("{}{}{}", &t[..at], b64.encode(bytes), &t[end..])
}

/// A chess game with token auth: RNP-made keys (Thunderbird's library), a
/// PGP/MIME move and an inline cleartext-signed move, from any sender.
#[test]
fn rnp_signed_moves_count_in_a_chess_game_pgp_mime_and_inline() {
    let dan = Rnp::with_key("Dan <dan@example.org>");
    let gpg = Gpg::new();
    gpg.key("Eve <eve@example.org>", "rsa3072");
    let s = Steward::new();
    let game = new_game(
        &s,
        "chess",
        "token",
        &[
            ("Dan", "dan@example.org", &dan.export("dan@example.org")),
            ("Eve", "eve@example.org", &gpg.export("eve@example.org")),
        ],
    );
    let mut seen = Vec::new();
    let p = part(Shape::Thunderbird, &lines(&game, "white", 1, "move: e4"), "Re: game");
    let sig = dan.detach_sign("dan@example.org", p.as_bytes());
    let said =
        expect(&s, &pgp_mime("Dan <dan@example.org>", "d1", "Re: game", &p, &sig), "accepted: move", "dan@", &mut seen);
    assert!(said.contains("Accepted: move e4"), "{said}");
    // Inline, by GnuPG (RSA 3072), from another address: the signature proves the seat.
    let block = gpg.clearsign("eve@example.org", &lines(&game, "black", 2, "move: e5").replace("\r\n", "\n"));
    let said = expect(&s, &inline("eve.other@relay.example", "e1", &block), "accepted: move", "eve@", &mut seen);
    assert!(said.contains("Accepted: move e5"), "{said}");
    // Inline by RNP.
    let block = dan.clearsign("dan@example.org", &lines(&game, "white", 3, "move: Nf3").replace("\r\n", "\n"));
    let said = expect(&s, &inline("Dan <dan@example.org>", "d2", &block), "accepted: move", "dan@", &mut seen);
    assert!(said.contains("Accepted: move Nf3"), "{said}");
    assert_eq!(s.game(&game)["turn"], json!(4));
    // Signed actions: a draw offer.
    let p = part(Shape::Mutt, &lines(&game, "black", 4, "action: draw-offer"), "draw?");
    let sig = gpg.detach_sign("eve@example.org", p.as_bytes());
    let (_, line) = s.ingest(&pgp_mime("Eve <eve@example.org>", "e2", "draw?", &p, &sig));
    assert_eq!(line, "accepted: draw");
    let t = transcript(&s, &game);
    let ok = verify(&t);
    assert!(ok.status.success(), "{}{}", String::from_utf8_lossy(&ok.stdout), String::from_utf8_lossy(&ok.stderr));
}

/// Forged, tampered, replayed, wrong-key, revoked-key and move-less signed
/// mails are refused with an answer saying which, and change nothing. (An
/// unproven mail is answered once an hour per seat, so each case has a game.)
#[test]
fn forged_tampered_replayed_wrong_key_and_revoked_signatures_are_refused_and_change_nothing() {
    let gpg = Gpg::new();
    gpg.key("Alice <alice@example.org>", "ed25519");
    gpg.key("Bob <bob@example.org>", "ed25519");
    gpg.key("Mallory <mallory@evil.example>", "ed25519");
    gpg.key("Carol <carol@example.org>", "ed25519");
    let carol_signs = Gpg::new();
    gpg.copy_secret_to("carol@example.org", &carol_signs);
    gpg.revoke("carol@example.org");
    let s = Steward::new();
    let (alice_key, bob_key) = (gpg.export("alice@example.org"), gpg.export("bob@example.org"));
    let fresh = || {
        new_game(
            &s,
            "fairschach",
            "signature",
            &[("Alice", "alice@example.org", &alice_key), ("Bob", "bob@example.org", &bob_key)],
        )
    };
    let mut seen = Vec::new();
    let alice = "Alice <alice@example.org>";
    let sign = |uid: &str, text: &str| {
        let p = part(Shape::Mutt, text, "Re");
        let sig = gpg.detach_sign(uid, p.as_bytes());
        (p, sig)
    };
    let refused = |game: &str, mail: &str, seen: &mut Vec<String>, says: &str| {
        let said = expect(&s, mail, "refused: bad_signature", "alice@", seen);
        assert!(said.contains(says), "{said}");
        assert!(said.contains("Nothing already accepted was changed"), "{said}");
        assert_eq!(moved(&s, game), json!([]));
        assert_eq!(s.game(game)["turn"], json!(1));
    };
    // Forged: signed by a key that is not the seat's.
    let game = fresh();
    let (p, sig) = sign("mallory@evil.example", &lines(&game, "white", 1, "move: e4"));
    refused(&game, &pgp_mime(alice, "f1", "Re", &p, &sig), &mut seen, "not by the seat's registered key");
    // Wrong key: Bob's key for Alice's seat.
    let game = fresh();
    let (p, sig) = sign("bob@example.org", &lines(&game, "white", 1, "move: e4"));
    refused(&game, &pgp_mime(alice, "w1", "Re", &p, &sig), &mut seen, "signed with the OpenPGP key of black");
    // Tampered: one byte of the part changed after signing.
    let game = fresh();
    let (p, sig) = sign("alice@example.org", &lines(&game, "white", 1, "move: e4"));
    let changed = p.replacen("e4", "e3", 1);
    refused(&game, &pgp_mime(alice, "t1", "Re", &changed, &sig), &mut seen, "does not verify");
    // Signed, but the signed part carries no move lines: read as a plain mail,
    // which proves no seat without the reply address; nothing is taken.
    let (p, sig) = sign("alice@example.org", "e4\r\n");
    let (_, line) = s.ingest(&pgp_mime(alice, "n1", "Re", &p, &sig));
    assert!(line.starts_with("ignored"), "{line}");
    assert_eq!(moved(&s, &game), json!([]));
    // The real move, then its replay for the next turn.
    let game = fresh();
    let (p, sig) = sign("alice@example.org", &lines(&game, "white", 1, "move: e4"));
    expect(&s, &pgp_mime(alice, "g1", "Re", &p, &sig), "accepted: move", "alice@", &mut seen);
    let (bp, bsig) = sign("bob@example.org", &lines(&game, "black", 1, "move: e5"));
    expect(&s, &pgp_mime("Bob <bob@example.org>", "g2", "Re", &bp, &bsig), "accepted: move", "bob@", &mut seen);
    assert_eq!(s.game(&game)["turn"], json!(2));
    // The same signed part in a new mail (a new Message-ID) after turn 1: the signature names turn 1.
    let (_, line) = s.ingest(&pgp_mime(alice, "r1", "Re: turn 2", &p, &sig));
    assert!(line.starts_with("refused"), "{line}");
    let said = new_answer(&seen, s.answers_to("alice@"));
    seen.push(said.clone());
    assert!(said.contains("turn 1"), "{said}");
    assert_eq!(moved(&s, &game), json!([]));
    assert_eq!(s.game(&game)["turn"], json!(2));
    // Revoked: Carol's key, revoked, registered for a seat of a new game.
    let revoked = new_game(
        &s,
        "chess",
        "signature",
        &[("Carol", "carol@example.org", &gpg.export("carol@example.org")), ("Bob", "bob@example.org", &bob_key)],
    );
    let p = part(Shape::Mutt, &lines(&revoked, "white", 1, "move: e4"), "Re");
    let sig = carol_signs.detach_sign("carol@example.org", p.as_bytes());
    let said = expect(
        &s,
        &pgp_mime("Carol <carol@example.org>", "c1", "Re", &p, &sig),
        "refused: bad_signature",
        "carol@",
        &mut seen,
    );
    assert!(said.contains("revoked"), "{said}");
    assert_eq!(s.game(&revoked)["turn"], json!(1));
    assert_eq!(moved(&s, &revoked), json!([]));
}

/// Through the real SMTP and IMAP servers: Alice's key given at creation, Bob's
/// registered over HTTP with his token; both send PGP/MIME signed moves to the
/// steward's plain address (no reply capability: the signature proves the seat);
/// the turn resolves, and the board mail names both keys' fingerprints.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pgp_mime_moves_through_the_real_smtp_and_imap_servers() {
    use crate::mail::e2e::{DOMAIN, Steward as Served, send, text_of, wait_for};
    use crate::support::mailstack::{stack, unique};
    use std::time::Duration;
    let stack = stack();
    let gpg = Gpg::new();
    let moves = unique("m");
    let (alice, bob) = (unique("alice"), unique("bob"));
    let (a_mail, b_mail) = (format!("{alice}@{DOMAIN}"), format!("{bob}@{DOMAIN}"));
    gpg.key(&format!("Alice <{a_mail}>"), "ed25519");
    gpg.key_with_signing_subkey(&format!("Bob <{b_mail}>"));
    let steward = Served::start(&stack, &moves).await;
    let created = steward
        .create(&json!({"variant": "fairschach", "seats": [
            {"name": "Alice", "email": a_mail, "openpgp_key": gpg.export(&a_mail)},
            {"name": "Bob", "email": b_mail},
        ]}))
        .await;
    let game = created["game"]["id"].as_str().unwrap().to_owned();
    let bob_token = created["tokens"][1]["token"].as_str().unwrap().to_owned();
    // Bob registers his key over HTTP (the armoured key as the body).
    let url = format!("{}/api/games/{game}/seats/black/openpgp-key", steward.base);
    let resp = steward.client.put(&url).bearer_auth(&bob_token).body(gpg.export(&b_mail)).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let set: Value = resp.json().await.unwrap();
    assert_eq!(set["fingerprint"].as_str().unwrap().replace(' ', ""), gpg.fingerprint(&b_mail), "{set}");
    // Another seat's token, a secret key and garbage are refused.
    let resp = steward
        .client
        .put(&url)
        .bearer_auth(created["tokens"][0]["token"].as_str().unwrap())
        .body(gpg.export(&a_mail))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let secret = String::from_utf8(run(gpg.cmd().args(["--armor", "--export-secret-keys", &b_mail]), b"")).unwrap();
    let resp = steward.client.put(&url).bearer_auth(&bob_token).body(secret).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let said = resp.text().await.unwrap();
    assert!(said.contains("SECRET key"), "{said}");
    let shown = steward.game(&game).await;
    assert!(shown["seats"][1]["openpgp_fingerprint"].is_string(), "{shown}");

    let to = format!("{moves}@{DOMAIN}");
    for (seat, addr, mv, shape) in [("white", &a_mail, "e4", Shape::Thunderbird), ("black", &b_mail, "e5", Shape::Mutt)]
    {
        let p = part(shape, &lines(&game, seat, 1, &format!("move: {mv}")), "Re: game");
        let sig = gpg.detach_sign(addr, p.as_bytes());
        let mail = pgp_mime(addr, &unique(seat), "Re: game", &p, &sig).replacen(
            "To: moves@localhost",
            &format!("To: {to}"),
            1,
        );
        send(&stack, addr, &to, mail.as_bytes()).await;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while steward.game(&game).await["turn"] != json!(2) {
        assert!(std::time::Instant::now() < deadline, "the turn did not resolve: {}", steward.game(&game).await);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The board mail of turn 2 names both seats' OpenPGP keys.
    let mails = wait_for(&stack, &alice, Duration::from_secs(15), "the board mail of turn 2", |m| {
        m.iter().any(|x| text_of(x).contains("OpenPGP key of black"))
    })
    .await;
    let board = mails.iter().find(|x| text_of(x).contains("OpenPGP key of black")).unwrap();
    let text = text_of(board);
    assert!(text.contains("OpenPGP key of white"), "{text}");
    steward.stop().await;
}

/// Trust on first use (option `openpgp_tofu = on`): a signature-only game made
/// without keys takes each seat's key from its first signed mail from its
/// registered address — from the `Autocrypt:` header, or from a public key
/// attached inside the signed part — and the answer says so. A mail from
/// another address brings no key, and a refused move takes none.
#[test]
fn trust_on_first_use_takes_the_key_of_the_first_signed_mail_from_the_registered_address() {
    use base64::Engine as _;
    let gpg = Gpg::new();
    gpg.key("Alice <alice@example.org>", "ed25519");
    gpg.key("Bob <bob@example.org>", "rsa3072");
    let s = Steward::new();
    let seats: Vec<Value> = ["Alice", "Bob"]
        .iter()
        .map(|n| json!({"name": n, "email": format!("{}@example.org", n.to_lowercase())}))
        .collect();
    let new: fairsteward::steward::NewGame = serde_json::from_value(
        json!({"variant": "fairschach", "options": {"auth": "signature", "openpgp_tofu": "on"}, "seats": seats}),
    )
    .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let game = rt.block_on(async {
        let steward = crate::support::in_process::open(&crate::support::in_process::config(&s.data));
        steward.create_game(new, chrono::Utc::now()).await.unwrap().game.id
    });
    drop(rt);
    let mut seen = Vec::new();
    // Alice, with an Autocrypt header (as Thunderbird and K-9 send it).
    let binary = run(gpg.cmd().args(["--export", "alice@example.org"]), b"");
    let keydata = base64::engine::general_purpose::STANDARD.encode(binary);
    let p = part(Shape::K9, &lines(&game, "white", 1, "move: e4"), "Re");
    let sig = gpg.detach_sign("alice@example.org", p.as_bytes());
    let autocrypt = format!("Autocrypt: addr=alice@example.org; prefer-encrypt=mutual; keydata={keydata}\r\n");
    let mail = format!("{autocrypt}{}", pgp_mime("Alice <alice@example.org>", "a1", "Re", &p, &sig));
    let said = expect(&s, &mail, "accepted: move", "alice@", &mut seen);
    assert!(said.contains("Trust on first use"), "{said}");
    let fpr = gpg.fingerprint("alice@example.org");
    assert_eq!(s.game(&game)["seats"][0]["openpgp_fingerprint"].as_str().unwrap().replace(' ', ""), fpr);
    // Bob, from another address with his key attached: nothing is taken.
    // RFC 3156: what is signed is in canonical form, every line ending CRLF.
    let key = gpg.export("bob@example.org").replace('\n', "\r\n");
    let signed_with_key = |text: &str| {
        format!(
            "Content-Type: multipart/mixed; boundary=\"k\"\r\n\r\n--k\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n--k\r\nContent-Type: application/pgp-keys; name=\"OpenPGP_0xB0B.asc\"\r\nContent-Disposition: attachment; filename=\"OpenPGP_0xB0B.asc\"\r\n\r\n{key}\r\n--k--\r\n"
        )
    };
    let p = signed_with_key(&lines(&game, "black", 1, "move: e5"));
    let sig = gpg.detach_sign("bob@example.org", p.as_bytes());
    let (_, line) = s.ingest(&pgp_mime("Bob <bob.other@relay.example>", "b1", "Re", &p, &sig));
    assert_eq!(line, "refused: bad_signature");
    assert!(s.game(&game)["seats"][1]["openpgp_fingerprint"].is_null());
    let told = new_answer(&seen, s.answers_to("bob@"));
    assert!(told.contains("registered no OpenPGP key"), "{told}");
    seen.push(told);
    // From his registered address: taken, and the turn resolves.
    let said =
        expect(&s, &pgp_mime("Bob <bob@example.org>", "b2", "Re", &p, &sig), "accepted: move", "bob@", &mut seen);
    assert!(said.contains("Trust on first use"), "{said}");
    assert_eq!(s.game(&game)["turn"], json!(2));
    // verify follows the keys taken on first use.
    let t = transcript(&s, &game);
    let ok = verify(&t);
    assert!(ok.status.success(), "{}{}", String::from_utf8_lossy(&ok.stdout), String::from_utf8_lossy(&ok.stderr));
}

/// The game page's form registers the signed-in seat's OpenPGP key, shows its
/// fingerprint, refuses a secret key saying so, and removes the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_page_registers_shows_and_removes_the_seats_openpgp_key() {
    use crate::support::Server;
    use crate::support::web::{Browser, sign_in_link};
    let gpg = Gpg::new();
    gpg.key("Bob <bob@example.org>", "ed25519");
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let seats = json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]);
    let created = s.post_json("/api/games", None, &json!({"variant": "chess", "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let mut bob = Browser::new(&s);
    let page = bob.open_link(&sign_in_link(&spool, &id, "black").await).await;
    assert!(page.text.contains("id=\"openpgp-key-form\""), "the form is on Black's page");
    let csrf = page.csrf();
    let path = format!("/games/{id}/openpgp-key");
    let secret =
        String::from_utf8(run(gpg.cmd().args(["--armor", "--export-secret-keys", "bob@example.org"]), b"")).unwrap();
    let bad = bob.post(&path, &[("csrf", &csrf), ("seat", "black"), ("key", &secret)]).await;
    assert!(bad.status >= 400 && bad.text.contains("SECRET key"), "{} {}", bad.status, bad.text);
    let sent = bob.post(&path, &[("csrf", &csrf), ("seat", "black"), ("key", &gpg.export("bob@example.org"))]).await;
    assert_eq!(sent.status, 303, "{}", sent.text);
    let page = bob.get(sent.location.as_deref().unwrap()).await;
    let fpr = gpg.fingerprint("bob@example.org");
    let grouped: String =
        fpr.as_bytes().chunks(4).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join(" ");
    assert!(page.text.contains(&grouped), "the page shows the fingerprint {grouped}");
    assert_eq!(s.game(&id, None).await["seats"][1]["openpgp_fingerprint"], json!(grouped));
    let removed = bob.post(&path, &[("csrf", &csrf), ("seat", "black"), ("remove", "1")]).await;
    assert_eq!(removed.status, 303, "{}", removed.text);
    assert!(s.game(&id, None).await["seats"][1]["openpgp_fingerprint"].is_null());
    s.shut_down().await;
}
