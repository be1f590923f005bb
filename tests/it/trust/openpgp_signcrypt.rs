//! Issue 33: replies signed AND encrypted to the steward count as signed moves,
//! in both forms of RFC 3156 — signed, then encrypted (§6.1: a
//! `multipart/signed` entity inside the encryption, as mutt's PGP/MIME and
//! Enigmail wrote it) and signed and encrypted in one OpenPGP message (§6.2:
//! `gpg --sign --encrypt`, `rnp --sign --encrypt`, what Thunderbird and
//! K-9/OpenKeychain send) — and an inline cleartext signature inside an
//! encrypted text. The bytes are made by the real GnuPG and RNP, with Ed25519
//! and RSA 3072 keys; the mails go through the MTA pipe (`fairsteward ingest`)
//! and through the real SMTP and IMAP servers. The move stays sealed until its
//! turn resolves (store, spool, game page); then its signature and signed
//! bytes are in the transcript, which `verify` re-checks offline.

use serde_json::{Value, json};

use super::pgp_game::{
    assert_verifies, autocrypt_key, create_game, expect, history, lines, places, transcript, verify,
};
use super::pgp_tools::{Gpg, Rnp};
use crate::support::leak::{assert_nowhere_in_clear, clear_in};
use crate::support::pipe::{PipeSteward as Steward, header, new_answer};

const ALICE: &str = "Alice <alice@example.org>";
const BOB: &str = "Bob <bob@example.org>";

/// An outer PGP/MIME encrypted mail (RFC 3156 §4), as clients write it.
fn pgp_mime(from: &str, to: &str, id: &str, armored: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: ...\r\nMessage-ID: <{id}@client.example>\r\nDate: Sun, 6 Dec 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/encrypted;\r\n protocol=\"application/pgp-encrypted\";\r\n boundary=\"------------enc{id}\"\r\n\r\nThis is an OpenPGP/MIME encrypted message (RFC 4880 and 3156)\r\n--------------enc{id}\r\nContent-Type: application/pgp-encrypted\r\nContent-Description: PGP/MIME version identification\r\n\r\nVersion: 1\r\n\r\n--------------enc{id}\r\nContent-Type: application/octet-stream; name=\"encrypted.asc\"\r\nContent-Description: OpenPGP encrypted message\r\nContent-Disposition: inline; filename=\"encrypted.asc\"\r\n\r\n{armored}\r\n--------------enc{id}--\r\n"
    )
}

/// An inline-PGP reply: the armoured block in a text/plain body.
fn inline(from: &str, to: &str, id: &str, armored: &str) -> String {
    crate::support::pipe::reply(from, to, id, "Re: your move", armored)
}

/// Thunderbird's inner entity: multipart/mixed with protected headers, the
/// text format=flowed, the board quoted below.
fn thunderbird(text: &str) -> String {
    format!(
        "Content-Type: multipart/mixed; boundary=\"------------tb0123\";\r\n protected-headers=\"v1\"\r\nSubject: Re: your move\r\n\r\nThis is a multi-part message in MIME format.\r\n--------------tb0123\r\nContent-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 7bit\r\n\r\n{text}\r\n> game: OLDGAM\r\n> turn: 99\r\n\r\n--------------tb0123--\r\n"
    )
}

/// K-9 / OpenKeychain's inner entity: one quoted-printable text part.
fn k9(text: &str) -> String {
    format!(
        "Content-Type: text/plain;\r\n charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{text}\r\n--=20\r\nSent from my phone\r\n"
    )
}

/// A `multipart/signed` entity (RFC 3156 §5) around `part` with `signature`:
/// what mutt encrypts when it signs, then encrypts (§6.1).
fn multipart_signed(part: &str, signature: &str) -> String {
    format!(
        "Content-Type: multipart/signed; micalg=pgp-sha256;\r\n protocol=\"application/pgp-signature\";\r\n boundary=\"inner-sig\"\r\n\r\n--inner-sig\r\n{part}\r\n--inner-sig\r\nContent-Type: application/pgp-signature; name=\"signature.asc\"\r\n\r\n{signature}\r\n--inner-sig--\r\n"
    )
}

/// Creates a signature-only game with `seats` (name, address, OpenPGP key)
/// and spools its start mails.
fn new_game(s: &Steward, variant: &str, seats: &[(&str, &str, &str)]) -> String {
    new_game_with(s, variant, json!({"auth": "signature"}), seats)
}

/// The same with game `options`; a seat whose key is "" is made without one.
fn new_game_with(s: &Steward, variant: &str, options: Value, seats: &[(&str, &str, &str)]) -> String {
    let id = create_game(s, variant, options, seats);
    s.ingest("x"); // the outbox is drained into the spool
    id
}

/// The newest mail of `game` to `who` whose file name has `kind`.
fn newest(s: &Steward, game: &str, who: &str, kind: &str) -> String {
    s.spool()
        .into_iter()
        .filter(|(n, t)| n.starts_with(game) && n.contains(kind) && header(t, "To").contains(who))
        .max_by_key(|(n, _)| crate::support::pipe::turn_of(n))
        .unwrap_or_else(|| panic!("no {kind} mail of {game} to {who}"))
        .1
}

/// The reply address of that mail.
fn reply_to(s: &Steward, game: &str, who: &str, kind: &str) -> String {
    let r = header(&newest(s, game, who, kind), "Reply-To");
    r.rsplit_once('<').map_or(r.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned()
}

/// One byte changed in the signed bytes of the first record of `kind`.
fn tamper(t: &str, kind: &str) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let marker = format!("kind: {kind}\\nsigned: ");
    let at = t.find(&marker).unwrap_or_else(|| panic!("a {kind} record in {t}")) + marker.len();
    let end = at + t[at..].find("\\n").unwrap();
    let mut bytes = b64.decode(&t[at..end]).unwrap();
    let i = bytes.iter().position(|&b| b == b'g').unwrap();
    bytes[i] = b'G';
    format!("{}{}{}", &t[..at], b64.encode(bytes), &t[end..])
}

/// Alice (Ed25519 with a Cv25519 subkey, GnuPG's default) and Bob (RSA 3072):
/// keys made by GnuPG, the secret keys
/// also in an RNP home, the steward's key (from its start mail's Autocrypt
/// header) in both.
struct Players {
    gpg: Gpg,
    rnp: Rnp,
    alice: String,
    bob: String,
}

impl Players {
    fn new() -> Players {
        let (gpg, rnp) = (Gpg::new(), Rnp::new());
        gpg.generate(ALICE);
        gpg.key(BOB, "rsa3072");
        for uid in ["alice@example.org", "bob@example.org"] {
            rnp.import(&gpg.export_secret(uid));
        }
        let (alice, bob) = (gpg.export("alice@example.org"), gpg.export("bob@example.org"));
        Players { gpg, rnp, alice, bob }
    }

    /// The players, a steward, a signature-only `variant` game of Alice and
    /// Bob with their keys, and the steward's key fingerprint.
    fn game(variant: &str) -> (Players, Steward, String, String) {
        let p = Players::new();
        let s = Steward::new();
        let g = new_game(&s, variant, &[("Alice", "alice@example.org", &p.alice), ("Bob", "bob@example.org", &p.bob)]);
        let st = p.steward_key(&s, &g);
        (p, s, g, st)
    }

    /// Takes the steward's key from the start mail of `game`; its fingerprint.
    fn steward_key(&self, s: &Steward, game: &str) -> String {
        let key = autocrypt_key(&newest(s, game, "alice@", "started"));
        self.gpg.import(&key);
        self.rnp.import(&key);
        self.gpg.fingerprint_of(&key)
    }
}

/// A signature-only Fairschach game played with signed-and-encrypted replies:
/// every form by GnuPG and by RNP. Each first move of a pair is nowhere in
/// clear (store, spool, game) until the pair resolves; then `verify` re-checks
/// the signatures offline, and fails when a signed byte is changed.
#[test]
fn signed_and_encrypted_replies_of_both_forms_by_gnupg_and_rnp_count_in_a_signature_only_fairschach_game() {
    let (p, s, g, st) = Players::game("fairschach");
    let mut seen = Vec::new();
    let turn = |t: u32| if t == 1 { "started" } else { "turn" };
    let (a, b) = ("alice@example.org", "bob@example.org");
    // A seat's move (SAN, UCI) and how its reply is made from the signed lines.
    type Side<'a> = ((&'static str, &'static str), Box<dyn Fn(&str) -> (String, &'static str) + 'a>);
    // The pending moves are checked for in clear as SAN and UCI: chosen so that
    // neither turns up by chance (UCI with a letter beyond the hex digits).
    // (turn, Alice's move and how it is made, Bob's move and how).
    let plies: Vec<(u32, Side<'_>, Side<'_>)> = vec![
        (
            1,
            // GnuPG, §6.2, PGP/MIME in Thunderbird's shape.
            (("Nf3", "g1f3"), Box::new(|text| (p.gpg.sign_encrypt(a, &st, thunderbird(text).as_bytes()), "mime"))),
            // RNP, §6.2, inline.
            (("Nc6", "b8c6"), Box::new(|text| (p.rnp.sign_encrypt(b, &st, text.as_bytes()), "inline"))),
        ),
        (
            2,
            // RNP, §6.1: a multipart/signed entity (K-9's text part), encrypted.
            (
                ("Rg1", "h1g1"),
                Box::new(|text| {
                    let part = k9(text);
                    let sig = p.rnp.detach_sign(a, part.as_bytes());
                    (p.rnp.encrypt(&st, multipart_signed(&part, &sig).as_bytes()), "mime")
                }),
            ),
            // GnuPG, §6.1, Thunderbird's shape inside.
            (
                ("Nf6", "g8f6"),
                Box::new(|text| {
                    let part = thunderbird(text);
                    let sig = p.gpg.detach_sign(b, part.as_bytes());
                    (p.gpg.encrypt(&st, multipart_signed(&part, &sig).as_bytes()), "mime")
                }),
            ),
        ),
        (
            3,
            // GnuPG: a cleartext-signed block inside an inline encryption.
            (("Nh4", "f3h4"), Box::new(|text| (p.gpg.encrypt(&st, p.gpg.clearsign(a, text).as_bytes()), "inline"))),
            // RNP, §6.2, PGP/MIME with K-9's text part.
            (("Rb8", "a8b8"), Box::new(|text| (p.rnp.sign_encrypt(b, &st, k9(text).as_bytes()), "mime"))),
        ),
    ];
    for (t, ((wm, wu), white), ((bm, _), black)) in &plies {
        let (armored, form) = white(&lines(&g, "white", *t, &format!("move: {wm}")));
        let to = reply_to(&s, &g, "alice@", turn(*t));
        let mail = if form == "mime" {
            pgp_mime(ALICE, &to, &format!("a{t}"), &armored)
        } else {
            inline(ALICE, &to, &format!("a{t}"), &armored)
        };
        let said = expect(&s, &mail, "accepted: move", "alice@", &mut seen);
        assert!(said.contains(&format!("Accepted: your encrypted move for turn {t}")), "{said}");
        assert!(clear_in(said.as_bytes(), wu, wm).is_none(), "{said}");
        assert_eq!(s.game(&g)["moved"], json!(["white"]));
        assert_nowhere_in_clear(&format!("turn {t}, Alice's move pending"), &places(&s, &g), &[(wm, wu)]);

        let (armored, form) = black(&lines(&g, "black", *t, &format!("move: {bm}")));
        let to = reply_to(&s, &g, "bob@", turn(*t));
        let mail = if form == "mime" {
            pgp_mime(BOB, &to, &format!("b{t}"), &armored)
        } else {
            inline(BOB, &to, &format!("b{t}"), &armored)
        };
        expect(&s, &mail, "accepted: move", "bob@", &mut seen);
        assert_eq!(s.game(&g)["turn"], json!(t + 1));
    }
    assert_eq!(history(&s, &g), [["Nf3", "Nc6"], ["Rg1", "Nf6"], ["Nh4", "Rb8"]]);

    // The transcript holds the signatures and signed bytes; verify re-checks them.
    let t = transcript(&s, &g);
    for kind in ["encrypted-pgp-mime", "encrypted-inline", "pgp-mime", "cleartext"] {
        assert!(t.0.contains(&format!("kind: {kind}\\n")), "a {kind} record: {}", t.0);
    }
    assert_verifies(&t);
    for kind in ["encrypted-pgp-mime", "encrypted-inline"] {
        let bad = verify(&(tamper(&t.0, kind), t.1.clone()));
        assert!(!bad.status.success(), "a tampered {kind} record verified: {}", String::from_utf8_lossy(&bad.stdout));
    }
}

/// A signature-only chess game: moves, a draw offer and a resignation in
/// signed-and-encrypted replies, both forms, GnuPG and RNP; verify passes.
#[test]
fn signed_and_encrypted_moves_and_actions_count_in_a_signature_only_chess_game() {
    let (p, s, g, st) = Players::game("chess");
    let (a, b) = ("alice@example.org", "bob@example.org");
    let mut seen = Vec::new();
    // White: GnuPG §6.2 inline.
    let to = reply_to(&s, &g, "alice@", "started");
    let armored = p.gpg.sign_encrypt(a, &st, lines(&g, "white", 1, "move: e4").as_bytes());
    expect(&s, &inline(ALICE, &to, "c1", &armored), "accepted: move", "alice@", &mut seen);
    // Black: RNP §6.2 PGP/MIME (Thunderbird's shape).
    let to = reply_to(&s, &g, "bob@", "turn");
    let armored = p.rnp.sign_encrypt(b, &st, thunderbird(&lines(&g, "black", 2, "move: e5")).as_bytes());
    expect(&s, &pgp_mime(BOB, &to, "c2", &armored), "accepted: move", "bob@", &mut seen);
    // White: RNP §6.1.
    let to = reply_to(&s, &g, "alice@", "turn");
    let part = k9(&lines(&g, "white", 3, "move: Nf3"));
    let sig = p.rnp.detach_sign(a, part.as_bytes());
    let armored = p.rnp.encrypt(&st, multipart_signed(&part, &sig).as_bytes());
    expect(&s, &pgp_mime(ALICE, &to, "c3", &armored), "accepted: move", "alice@", &mut seen);
    assert_eq!(history(&s, &g), [["e4"], ["e5"], ["Nf3"]]);
    // Black offers a draw: GnuPG §6.1.
    let to = reply_to(&s, &g, "bob@", "turn");
    let part = k9(&lines(&g, "black", 4, "action: draw-offer"));
    let sig = p.gpg.detach_sign(b, part.as_bytes());
    let armored = p.gpg.encrypt(&st, multipart_signed(&part, &sig).as_bytes());
    let (_, line) = s.ingest(&pgp_mime(BOB, &to, "c4", &armored));
    assert_eq!(line, "accepted: draw");
    // Black resigns: GnuPG §6.2 PGP/MIME.
    let armored = p.gpg.sign_encrypt(b, &st, k9(&lines(&g, "black", 4, "action: resign")).as_bytes());
    let (_, line) = s.ingest(&pgp_mime(BOB, &to, "c5", &armored));
    assert!(line.starts_with("accepted"), "{line}");
    let shown = s.game(&g);
    assert!(shown["outcome"].is_object(), "the game is over: {shown}");
    assert_verifies(&transcript(&s, &g));
}

/// Signed-and-encrypted replies with a signature by another key, by another
/// seat's key, that does not verify, by a revoked key, or replayed for a later
/// turn: refused, with an answer to the registered address saying which, and
/// nothing already accepted changes.
#[test]
fn forged_wrong_key_bad_revoked_and_replayed_signed_and_encrypted_replies_are_refused() {
    let p = Players::new();
    p.gpg.key("Mallory <mallory@evil.example>", "ed25519");
    p.gpg.key("Carol <carol@example.org>", "ed25519");
    let carol_signs = Gpg::new();
    p.gpg.copy_secret_to("carol@example.org", &carol_signs);
    p.gpg.revoke("carol@example.org");
    let s = Steward::new();
    let seats = [("Alice", "alice@example.org", p.alice.as_str()), ("Bob", "bob@example.org", p.bob.as_str())];
    let mut seen = Vec::new();
    let a = "alice@example.org";
    let refused = |g: &str, mail: &str, seen: &mut Vec<String>, says: &str| {
        let said = expect(&s, mail, "refused: bad_signature", "alice@", seen);
        assert!(said.contains(says), "{said}");
        assert!(said.contains("Nothing already accepted was changed"), "{said}");
        assert!(!said.contains("Nf3"), "{said}");
        assert_eq!(s.game(g)["moved"], json!([]));
        assert_eq!(s.game(g)["turn"], json!(1));
    };
    let g = new_game(&s, "fairschach", &seats);
    let st = p.steward_key(&s, &g);
    let to = reply_to(&s, &g, "alice@", "started");
    let text = lines(&g, "white", 1, "move: Nf3");
    // Another key: Mallory's.
    let armored = p.gpg.sign_encrypt("mallory@evil.example", &st, k9(&text).as_bytes());
    refused(&g, &pgp_mime(ALICE, &to, "f1", &armored), &mut seen, "not by the seat's registered key");
    // Another seat's key: Bob's, for Alice's seat.
    let armored = p.gpg.sign_encrypt("bob@example.org", &st, text.as_bytes());
    refused(&g, &inline(ALICE, &to, "f2", &armored), &mut seen, "signed with the OpenPGP key of black");
    // A bad signature: the signed part changed after signing, then encrypted.
    let part = k9(&text);
    let sig = p.gpg.detach_sign(a, part.as_bytes());
    let armored = p.gpg.encrypt(&st, multipart_signed(&part.replacen("Nf3", "Nh3", 1), &sig).as_bytes());
    refused(&g, &pgp_mime(ALICE, &to, "f3", &armored), &mut seen, "does not verify");

    // Too large: a signed plaintext beyond what a signed part may hold.
    let big = format!("{text}{}\r\n", "x".repeat(300 * 1024));
    let armored = p.gpg.sign_encrypt(a, &st, big.as_bytes());
    let (_, line) = s.ingest(&inline(ALICE, &to, "big1", &armored));
    assert!(line.starts_with("refused"), "{line}");
    let said = new_answer(&seen, s.answers_to("alice@"));
    seen.push(said.clone());
    assert!(said.contains("more than the 262144 taken"), "{said}");
    assert_eq!(s.game(&g)["moved"], json!([]));

    // The real move and Bob's: turn 1 resolves. Then Alice's mail of turn 1,
    // again (a new Message-ID) to the reply address of turn 2: a replay.
    let armored = p.gpg.sign_encrypt(a, &st, k9(&text).as_bytes());
    let good = |id: &str, to: &str| pgp_mime(ALICE, to, id, &armored);
    expect(&s, &good("ok1", &to), "accepted: move", "alice@", &mut seen);
    let bto = reply_to(&s, &g, "bob@", "started");
    let armored_b = p.rnp.sign_encrypt("bob@example.org", &st, lines(&g, "black", 1, "move: Nc6").as_bytes());
    expect(&s, &inline(BOB, &bto, "ok2", &armored_b), "accepted: move", "bob@", &mut seen);
    assert_eq!(s.game(&g)["turn"], json!(2));
    let to2 = reply_to(&s, &g, "alice@", "turn");
    let (_, line) = s.ingest(&good("replay1", &to2));
    assert!(line.starts_with("refused"), "{line}");
    let said = new_answer(&seen, s.answers_to("alice@"));
    seen.push(said.clone());
    assert!(said.contains("turn 1"), "{said}");
    assert_eq!(s.game(&g)["moved"], json!([]));
    assert_eq!(history(&s, &g), [["Nf3", "Nc6"]], "nothing changed");

    // An expired key: Dave's, made and used in 2020, valid for a day; signed then,
    // (§6.1) and encrypted now.
    let dave = "dave@example.org";
    let old_time = |t: &'static str| ["--faked-system-time", t];
    p.gpg.ok(
        &[&old_time("20200101T000000")[..], &["--quick-gen-key", "Dave <dave@example.org>", "ed25519", "sign", "1d"]]
            .concat(),
        b"",
    );
    let g = new_game(&s, "chess", &[("Dave", dave, &p.gpg.export(dave)), ("Bob", "bob@example.org", &p.bob)]);
    let to = reply_to(&s, &g, "dave@", "started");
    let part = k9(&lines(&g, "white", 1, "move: e4"));
    let sig = p.gpg.ok(
        &[&old_time("20200101T120000")[..], &["--armor", "--detach-sign", "--local-user", dave]].concat(),
        part.as_bytes(),
    );
    let sig = super::pgp_tools::crlf(&sig);
    let armored = p.gpg.encrypt(&st, multipart_signed(&part, &sig).as_bytes());
    let said = expect(
        &s,
        &pgp_mime("Dave <dave@example.org>", &to, "ex1", &armored),
        "refused: bad_signature",
        "dave@",
        &mut seen,
    );
    assert!(said.contains("had expired when the mail came"), "{said}");
    assert_eq!(s.game(&g)["turn"], json!(1));

    // A revoked key: Carol's, registered for a seat of a new game.
    let carol = p.gpg.export("carol@example.org");
    let g = new_game(&s, "chess", &[("Carol", "carol@example.org", &carol), ("Bob", "bob@example.org", &p.bob)]);
    carol_signs.import(&autocrypt_key(&newest(&s, &g, "carol@", "started")));
    let to = reply_to(&s, &g, "carol@", "started");
    let armored = carol_signs.sign_encrypt("carol@example.org", &st, lines(&g, "white", 1, "move: e4").as_bytes());
    let said = expect(
        &s,
        &inline("Carol <carol@example.org>", &to, "rv1", &armored),
        "refused: bad_signature",
        "carol@",
        &mut seen,
    );
    assert!(said.contains("revoked"), "{said}");
    assert_eq!(s.game(&g)["turn"], json!(1));
    assert_eq!(s.game(&g)["moved"], json!([]));
}

/// Through the real servers: a signature-only Fairschach game made over HTTP
/// with both seats' OpenPGP keys; Alice's signed-and-encrypted reply (GnuPG,
/// §6.2, Thunderbird's shape, by the signing subkey of a certification-only key) goes over SMTP to the steward's address and is
/// read by its IMAP door: held, and nothing of it on the game page or in the
/// API until Bob's (RNP, §6.1) completes the pair.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_and_encrypted_reply_over_smtp_and_imap_is_held_until_the_pair_is_in() {
    use crate::mail::e2e::{DOMAIN, Steward as Served, send_and_wait};
    use crate::support::mailstack::{stack, unique};
    let stack = stack();
    let (moves, alice, bob) = (unique("m"), unique("alice"), unique("bob"));
    let (a_mail, b_mail) = (format!("{alice}@{DOMAIN}"), format!("{bob}@{DOMAIN}"));
    let (gpg, rnp) = (Gpg::new(), Rnp::new());
    gpg.key_with_signing_subkey(&format!("Alice <{a_mail}>"));
    gpg.key(&format!("Bob <{b_mail}>"), "rsa3072");
    rnp.import(&gpg.export_secret(&b_mail));
    let steward = Served::start(&stack, &moves).await;
    let v: Value =
        steward.client.get(format!("{}/api/steward", steward.base)).send().await.unwrap().json().await.unwrap();
    let key = v["openpgp"]["key"].as_str().unwrap().to_owned();
    gpg.import(key.as_bytes());
    rnp.import(key.as_bytes());
    let st = v["openpgp"]["fingerprint"].as_str().unwrap().replace(' ', "");
    let created = steward
        .create(&json!({"variant": "fairschach", "options": {"auth": "signature"}, "seats": [
            {"name": "Alice", "email": a_mail, "openpgp_key": gpg.export(&a_mail)},
            {"name": "Bob", "email": b_mail, "openpgp_key": gpg.export(&b_mail)},
        ]}))
        .await;
    let game = created["game"]["id"].as_str().unwrap().to_owned();
    let to = format!("{moves}@{DOMAIN}");

    let armored = gpg.sign_encrypt(&a_mail, &st, thunderbird(&lines(&game, "white", 1, "move: Nf3")).as_bytes());
    let mail = pgp_mime(&format!("Alice <{a_mail}>"), &to, &unique("se"), &armored);
    send_and_wait(&stack, &moves, &a_mail, &to, mail.as_bytes(), 1).await;
    let view = steward.game(&game).await;
    assert_eq!(view["moved"], json!(["white"]), "{view}");
    assert!(clear_in(view.to_string().as_bytes(), "g1f3", "Nf3").is_none(), "{view}");
    let page = steward.client.get(format!("{}/games/{game}", steward.base)).send().await.unwrap();
    assert_eq!(page.status().as_u16(), 200);
    let page = page.text().await.unwrap();
    assert!(clear_in(page.as_bytes(), "g1f3", "Nf3").is_none(), "the game page names the pending move");
    let transcript = steward.client.get(format!("{}/api/games/{game}/transcript", steward.base)).send().await.unwrap();
    let transcript = transcript.text().await.unwrap();
    assert!(!transcript.contains("OPENPGP MOVE"), "no signed bytes before the pair resolves: {transcript}");

    let part = k9(&lines(&game, "black", 1, "move: Nc6"));
    let sig = rnp.detach_sign(&b_mail, part.as_bytes());
    let armored = rnp.encrypt(&st, multipart_signed(&part, &sig).as_bytes());
    let mail = pgp_mime(&format!("Bob <{b_mail}>"), &to, &unique("se"), &armored);
    send_and_wait(&stack, &moves, &b_mail, &to, mail.as_bytes(), 2).await;
    let view = steward.game(&game).await;
    assert_eq!(view["turn"], json!(2), "{view}");
    assert_eq!(view["history"][0]["moves"][0]["move"], "Nf3", "{view}");
    let transcript = steward.client.get(format!("{}/api/games/{game}/transcript", steward.base)).send().await.unwrap();
    let transcript = transcript.text().await.unwrap();
    assert!(transcript.contains("kind: encrypted-pgp-mime"), "{transcript}");
    steward.stop().await;
}

/// A signed-and-encrypted `leave` (GnuPG §6.2 PGP/MIME, RNP §6.1) is granted
/// like a signed one, and `verify` re-checks it offline.
#[test]
fn a_signed_and_encrypted_leave_is_granted() {
    let (p, s, g, st) = Players::game("chess");
    let mut seen = Vec::new();
    let from = (chrono::Utc::now() + chrono::Duration::days(30)).date_naive();
    let leave = |days: i64| {
        let to = from + chrono::Duration::days(days);
        format!("action: leave {} {}", from.format("%Y-%m-%d"), to.format("%Y-%m-%d"))
    };
    let to = reply_to(&s, &g, "alice@", "started");
    let armored = p.gpg.sign_encrypt("alice@example.org", &st, k9(&lines(&g, "white", 1, &leave(2))).as_bytes());
    let said = expect(&s, &pgp_mime(ALICE, &to, "l1", &armored), "accepted: leave", "alice@", &mut seen);
    assert!(said.contains("is granted"), "{said}");
    let to = reply_to(&s, &g, "bob@", "started");
    let part = thunderbird(&lines(&g, "black", 1, &leave(3)));
    let sig = p.rnp.detach_sign("bob@example.org", part.as_bytes());
    let armored = p.rnp.encrypt(&st, multipart_signed(&part, &sig).as_bytes());
    let said = expect(&s, &pgp_mime(BOB, &to, "l2", &armored), "accepted: leave", "bob@", &mut seen);
    assert!(said.contains("is granted"), "{said}");
    // Signed by the other seat's key: refused.
    let armored = p.gpg.sign_encrypt("bob@example.org", &st, lines(&g, "white", 1, &leave(4)).as_bytes());
    let said = expect(
        &s,
        &inline(ALICE, &reply_to(&s, &g, "alice@", "started"), "l3", &armored),
        "refused: bad_signature",
        "alice@",
        &mut seen,
    );
    assert!(said.contains("signed with the OpenPGP key of black"), "{said}");
    assert_verifies(&transcript(&s, &g));
}

/// Commit-reveal by mail in a signature-only Fairschach game: the commitments
/// cleartext-signed, the reveals signed and encrypted (GnuPG §6.2, RNP §6.1);
/// the pair resolves and `verify` re-checks it. A reveal signed by the other
/// seat's key is refused.
#[test]
fn a_signed_and_encrypted_reveal_opens_its_commitment() {
    let p = Players::new();
    let s = Steward::new();
    let seats = [("Alice", "alice@example.org", p.alice.as_str()), ("Bob", "bob@example.org", p.bob.as_str())];
    let g = new_game_with(&s, "fairschach", json!({"auth": "signature", "secrecy": "commit-reveal"}), &seats);
    let st = p.steward_key(&s, &g);
    let salt = [9u8; 16];
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let plays =
        [(ALICE, "alice@", "alice@example.org", "white", "Nf3"), (BOB, "bob@", "bob@example.org", "black", "Nc6")];
    for (who, addr, uid, seat, mv) in plays {
        let c = hex(&fairsteward::protocol::commitment(&g, seat, 1, mv, &salt));
        let signed = p.gpg.clearsign(uid, &lines(&g, seat, 1, &format!("commit: {c}")));
        let to = reply_to(&s, &g, addr, "started");
        let (_, line) = s.ingest(&inline(who, &to, &format!("c{seat}"), &signed));
        assert!(line.starts_with("accepted"), "{line}");
    }
    let reveal = |seat: &str, mv: &str| lines(&g, seat, 1, &format!("move: {mv}\r\nsalt: {}", hex(&salt)));
    // Alice's reveal signed by Bob's key: refused, and the commitment still waits.
    let to = reply_to(&s, &g, "alice@", "reveal");
    let armored = p.gpg.sign_encrypt("bob@example.org", &st, k9(&reveal("white", "Nf3")).as_bytes());
    let (_, line) = s.ingest(&pgp_mime(ALICE, &to, "rx", &armored));
    assert_eq!(line, "refused: bad_signature");
    assert_eq!(s.game(&g)["turn"], json!(1));
    // GnuPG, §6.2.
    let armored = p.gpg.sign_encrypt("alice@example.org", &st, k9(&reveal("white", "Nf3")).as_bytes());
    let (_, line) = s.ingest(&pgp_mime(ALICE, &to, "rw", &armored));
    assert!(line.starts_with("accepted"), "{line}");
    // RNP, §6.1.
    let to = reply_to(&s, &g, "bob@", "reveal");
    let part = thunderbird(&reveal("black", "Nc6"));
    let sig = p.rnp.detach_sign("bob@example.org", part.as_bytes());
    let armored = p.rnp.encrypt(&st, multipart_signed(&part, &sig).as_bytes());
    let (_, line) = s.ingest(&pgp_mime(BOB, &to, "rb", &armored));
    assert!(line.starts_with("accepted"), "{line}");
    assert_eq!(history(&s, &g), [["Nf3", "Nc6"]]);
    assert_verifies(&transcript(&s, &g));
}

/// Trust on first use (`openpgp_tofu = on`) in a signature-only game made
/// without keys: a signed-and-encrypted reply from the registered address with
/// an `Autocrypt:` header brings the seat's key; the answer says so, and the
/// move counts once the pair is in.
#[test]
fn trust_on_first_use_takes_the_key_from_a_signed_and_encrypted_reply() {
    use base64::Engine as _;
    let p = Players::new();
    let s = Steward::new();
    let seats = [("Alice", "alice@example.org", ""), ("Bob", "bob@example.org", "")];
    let g = new_game_with(&s, "fairschach", json!({"auth": "signature", "openpgp_tofu": "on"}), &seats);
    let st = p.steward_key(&s, &g);
    let mut seen = Vec::new();
    let autocrypt = |uid: &str| {
        let binary = p.gpg.ok(&["--export", uid], b"");
        let keydata = base64::engine::general_purpose::STANDARD.encode(binary);
        format!("Autocrypt: addr={uid}; prefer-encrypt=mutual; keydata={keydata}\r\n")
    };
    // Alice: GnuPG §6.2, PGP/MIME.
    let to = reply_to(&s, &g, "alice@", "started");
    let armored = p.gpg.sign_encrypt("alice@example.org", &st, k9(&lines(&g, "white", 1, "move: Nf3")).as_bytes());
    let mail = format!("{}{}", autocrypt("alice@example.org"), pgp_mime(ALICE, &to, "t1", &armored));
    let said = expect(&s, &mail, "accepted: move", "alice@", &mut seen);
    assert!(said.contains("Trust on first use"), "{said}");
    let fpr = p.gpg.fingerprint("alice@example.org");
    assert_eq!(s.game(&g)["seats"][0]["openpgp_fingerprint"].as_str().unwrap().replace(' ', ""), fpr);
    // Bob: RNP §6.1, from another address: no key taken, refused.
    let to = reply_to(&s, &g, "bob@", "started");
    let part = thunderbird(&lines(&g, "black", 1, "move: Nc6"));
    let sig = p.rnp.detach_sign("bob@example.org", part.as_bytes());
    let armored = p.rnp.encrypt(&st, multipart_signed(&part, &sig).as_bytes());
    let mail =
        format!("{}{}", autocrypt("bob@example.org"), pgp_mime("Bob <bob.other@relay.example>", &to, "t2", &armored));
    let (_, line) = s.ingest(&mail);
    assert_eq!(line, "refused: bad_signature");
    assert!(s.game(&g)["seats"][1]["openpgp_fingerprint"].is_null());
    let told = new_answer(&seen, s.answers_to("bob@"));
    assert!(told.contains("registered no OpenPGP key"), "{told}");
    seen.push(told);
    // From his registered address: taken, and the pair resolves.
    let mail = format!("{}{}", autocrypt("bob@example.org"), pgp_mime(BOB, &to, "t3", &armored));
    let said = expect(&s, &mail, "accepted: move", "bob@", &mut seen);
    assert!(said.contains("Trust on first use"), "{said}");
    assert_eq!(history(&s, &g), [["Nf3", "Nc6"]]);
    assert_verifies(&transcript(&s, &g));
}
