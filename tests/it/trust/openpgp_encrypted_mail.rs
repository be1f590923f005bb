//! Issue 33 point 4, second half: "a player with a key may choose to receive
//! them encrypted". A player whose seat has an OpenPGP key chooses encrypted
//! mail (by HTTP, or by the mail command `mail encrypted`); from then on every
//! mail the steward sends them is signed and then encrypted (RFC 3156 section
//! 6.1) to their key and the steward's own, with the subject inside (protected
//! headers) and `...` outside; the other players' mails stay signed only.
//!
//! Real tools check it: `gpg --decrypt` with the player's secret key opens the
//! mail, `gpg --verify` checks the steward's signature inside, and RNP (`rnp
//! --decrypt`, Thunderbird's library) opens one too. Keys of the common kinds:
//! Ed25519/Cv25519 and RSA 3072 (a signing primary and an encryption subkey);
//! a key that only signs is refused with what to do.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use super::pgp_game::autocrypt_key;
use crate::support as common;
use common::pipe::{PipeSteward, decode, header};

/// Fails (never skips) when a binary the tests need is missing.
#[track_caller]
fn need(bin: &str) {
    let found =
        Command::new("sh").arg("-c").arg(format!("command -v {bin}")).output().is_ok_and(|o| o.status.success());
    assert!(found, "{bin} is not installed: run scripts/test, which installs Debian's gnupg and rnp");
}

fn run(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// A throw-away GnuPG home: the player's key ring.
struct Gpg {
    home: tempfile::TempDir,
}

impl Gpg {
    fn new() -> Gpg {
        need("gpg");
        Gpg { home: tempfile::tempdir().unwrap() }
    }

    fn gpg(&self, args: &[&str], stdin: &[u8]) -> Output {
        let mut cmd = Command::new("gpg");
        cmd.env("GNUPGHOME", self.home.path())
            .args(["--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", "", "--trust-model", "always"])
            .args(args);
        run(&mut cmd, stdin)
    }

    #[track_caller]
    fn ok(&self, args: &[&str], stdin: &[u8]) -> Vec<u8> {
        let out = self.gpg(args, stdin);
        assert!(out.status.success(), "gpg {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    /// Ed25519 primary with a Cv25519 encryption subkey (GnuPG's default).
    fn cv25519(&self, uid: &str) {
        self.ok(&["--quick-gen-key", uid, "future-default", "default", "never"], b"");
    }

    /// An RSA 3072 signing primary key with an RSA 3072 encryption subkey.
    fn rsa3072(&self, uid: &str) {
        self.ok(&["--quick-gen-key", uid, "rsa3072", "sign", "never"], b"");
        let fpr = self.fingerprint(uid);
        self.ok(&["--quick-add-key", &fpr, "rsa3072", "encr", "never"], b"");
    }

    /// An Ed25519 key that only signs: no encryption subkey.
    fn sign_only(&self, uid: &str) {
        self.ok(&["--quick-gen-key", uid, "ed25519", "sign", "never"], b"");
    }

    fn fingerprint(&self, uid: &str) -> String {
        let text = String::from_utf8(self.ok(&["--with-colons", "--list-keys", uid], b"")).unwrap();
        text.lines().find(|l| l.starts_with("fpr:")).unwrap().split(':').nth(9).unwrap().to_owned()
    }

    fn export(&self, uid: &str) -> String {
        String::from_utf8(self.ok(&["--armor", "--export", uid], b"")).unwrap()
    }

    fn export_secret(&self, uid: &str) -> Vec<u8> {
        self.ok(&["--armor", "--export-secret-keys", uid], b"")
    }

    fn import(&self, key: &[u8]) {
        self.ok(&["--import"], key);
    }

    /// `gpg --decrypt` of the encrypted part of `mail`: the inner entity.
    #[track_caller]
    fn decrypt(&self, mail: &str) -> String {
        let out = self.gpg(&["--decrypt"], armored_message(mail).as_bytes());
        assert!(out.status.success(), "gpg --decrypt: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// `gpg --verify sig part`: its report (stderr) and success.
    fn verify(&self, sig: &str, part: &[u8]) -> (bool, String) {
        let dir = tempfile::tempdir().unwrap();
        let (s, p) = (dir.path().join("sig.asc"), dir.path().join("part.eml"));
        std::fs::write(&s, sig).unwrap();
        std::fs::write(&p, part).unwrap();
        let out = self.gpg(&["--verify", s.to_str().unwrap(), p.to_str().unwrap()], b"");
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `rnp --decrypt` of the encrypted part of `mail` with `secret` (an armoured
/// secret key without a passphrase) in a throw-away RNP home.
#[track_caller]
fn rnp_decrypt(secret: &[u8], mail: &str) -> String {
    need("rnp");
    need("rnpkeys");
    let home = tempfile::tempdir().unwrap();
    let key = home.path().join("secret.asc");
    std::fs::write(&key, secret).unwrap();
    let out = run(Command::new("rnpkeys").arg("--homedir").arg(home.path()).arg("--import").arg(&key), b"");
    assert!(out.status.success(), "rnpkeys --import: {}", String::from_utf8_lossy(&out.stderr));
    let (input, output) = (home.path().join("mail.asc"), home.path().join("mail.out"));
    std::fs::write(&input, armored_message(mail)).unwrap();
    let out = run(
        Command::new("rnp")
            .arg("--homedir")
            .arg(home.path())
            .args(["--password", "", "--decrypt", "--output"])
            .arg(&output)
            .arg(&input),
        b"",
    );
    assert!(out.status.success(), "rnp --decrypt: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(&output).unwrap()
}

/// The armoured OpenPGP message in the second part of a `multipart/encrypted` mail.
#[track_caller]
fn armored_message(mail: &str) -> String {
    let start = mail.find("-----BEGIN PGP MESSAGE-----").expect("an armoured OpenPGP message");
    let end = mail.find("-----END PGP MESSAGE-----").unwrap() + "-----END PGP MESSAGE-----".len();
    format!("{}\n", &mail[start..end])
}

/// The head of a mail (up to the first blank line).
fn head(mail: &str) -> &str {
    &mail[..mail.find("\r\n\r\n").unwrap_or(mail.len())]
}

/// Checks the outside of an encrypted mail as RFC 3156 section 6.1 shapes it:
/// `multipart/encrypted` with `protocol="application/pgp-encrypted"`, the
/// first part `Version: 1`, the second the armoured message; the subject `...`
/// outside, the steward's key in `Autocrypt:`, the reply address kept.
#[track_caller]
fn assert_encrypted_outside(mail: &str) {
    let ct = header(mail, "Content-Type");
    assert!(ct.starts_with("multipart/encrypted") && ct.contains("protocol=\"application/pgp-encrypted\""), "{ct}");
    assert_eq!(header(mail, "Subject"), "...", "the subject is inside only: {}", head(mail));
    assert!(header(mail, "Autocrypt").contains("prefer-encrypt=mutual; keydata="), "{}", head(mail));
    let body = &mail[head(mail).len()..];
    let first = body.find("Content-Type: application/pgp-encrypted").expect("the version part");
    let version = body.find("Version: 1").expect("Version: 1");
    let message = body.find("-----BEGIN PGP MESSAGE-----").expect("the encrypted part");
    assert!(first < version && version < message, "{body}");
    assert!(!body.contains("image/png") && !body.contains("Your move"), "nothing of the mail in clear: {body}");
}

/// The signed part (exact bytes) and the signature of a PGP/MIME signed
/// entity, cut as a client cuts them.
#[track_caller]
fn signed_parts(entity: &str) -> (String, String) {
    let ct = header(entity, "Content-Type");
    assert!(ct.contains("multipart/signed") && ct.contains("application/pgp-signature"), "{ct}");
    let boundary = ct.split("boundary=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let delimiter = format!("\r\n--{boundary}");
    let find = |from: usize| entity[from..].find(&delimiter).map(|i| from + i).unwrap();
    let first = find(0) + delimiter.len() + 2;
    let end = find(first);
    let rest = &entity[end..];
    let sig = &rest[rest.find("-----BEGIN PGP SIGNATURE-----").unwrap()
        ..rest.find("-----END PGP SIGNATURE-----").unwrap() + "-----END PGP SIGNATURE-----".len()];
    (entity[first..end].to_owned(), sig.to_owned())
}

/// Opens `mail` with the player's key ring `gpg` (which holds the steward's
/// public key too), checks the steward's signature inside with `gpg --verify`
/// and the protected headers; returns the signed part, decoded.
#[track_caller]
fn open_and_verify(gpg: &Gpg, mail: &str) -> String {
    assert_encrypted_outside(mail);
    let inner = gpg.decrypt(mail);
    let (part, sig) = signed_parts(&inner);
    let (ok, report) = gpg.verify(&sig, part.as_bytes());
    assert!(ok && report.contains("Good signature"), "gpg --verify inside: {report}");
    let ct = header(&part, "Content-Type");
    assert!(ct.contains("protected-headers=\"v1\""), "{ct}");
    let subject = header(&part, "Subject");
    assert!(subject.len() > 3 && subject != "...", "the real subject inside: {part}");
    assert_eq!(header(&part, "To"), header(mail, "To"));
    assert_eq!(header(&part, "Reply-To"), header(mail, "Reply-To"));
    decode(&part)
}

/// A mail that is signed only (`multipart/signed`, the real subject outside).
#[track_caller]
fn assert_signed_only(mail: &str) {
    let ct = header(mail, "Content-Type");
    assert!(ct.starts_with("multipart/signed"), "{ct}");
    assert_ne!(header(mail, "Subject"), "...");
}

/// Waits (at most 20 s) for the spooled mail whose Message-ID begins with
/// `prefix` (`<game>.<turn>.<seat>.<kind>`); on a timeout, says what the spool holds.
async fn spooled(spool: &std::path::Path, prefix: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let files = common::spool_files(spool);
        if let Some((_, b)) = files.iter().find(|(n, _)| n.starts_with(prefix)) {
            return String::from_utf8(b.clone()).unwrap();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no spooled mail {prefix}…; the spool holds {:?}",
            files.keys().collect::<Vec<_>>()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// `PUT /api/me/mail` with a seat's token.
async fn put_mail(server: &common::Server, token: &str, body: Value) -> common::Answer {
    let url = format!("{}/api/me/mail", server.base);
    let body = serde_json::to_vec(&body).unwrap();
    common::send(&server.client, url, reqwest::Method::PUT, Some(token), Some(("application/json", body))).await
}

/// Chess, by HTTP: Bob (no key) cannot choose encrypted mail (by the API, nor
/// on the page's Mail form) and is told how to register a key; Alice (Ed25519/Cv25519, given at creation) chooses it with
/// `PUT /api/me/mail`. Her board mail is encrypted — GnuPG and RNP open it, the
/// steward's signature inside verifies against `/steward.asc`, the picture and
/// the subject are inside — and Bob's is signed only. A game made later starts
/// with an encrypted start mail to her (her seat there has no key: the key of
/// her other seat is used). With her key removed, her mails go signed only;
/// `{"encrypt": false}` turns the setting off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chess_player_chooses_encrypted_mail_by_http_and_gnupg_and_rnp_open_her_board_mail() {
    let gpg = Gpg::new();
    let alice = "alice@example.org";
    gpg.cv25519(&format!("Alice <{alice}>"));
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let server = common::Server::start_in(dir.path()).await;
    let asc = server.get("/steward.asc", None).await;
    assert_eq!(asc.status, 200);
    gpg.import(&asc.body);
    let seats = json!([
        {"name": "Alice", "email": alice, "openpgp_key": gpg.export(alice)},
        {"name": "Bob", "email": "bob@example.org"},
    ]);
    let created = server
        .post_json("/api/games", Some(&server.operator), &json!({"variant": "chess", "seats": seats}))
        .await
        .ok(201);
    let game = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();

    // Bob has no key: refused, saying how to register one.
    let said = put_mail(&server, &tokens[1], json!({"encrypt": true})).await.error(400, "bad_request");
    assert!(said.contains("no OpenPGP key is registered") && said.contains("openpgp-key"), "{said}");
    assert!(said.contains("gpg --armor --export"), "{said}");
    // On the page too: the Mail form offers the choice, and refuses it to Bob, saying why.
    let mut browser = common::web::Browser::new(&server);
    let p = browser.post("/sign-in", &[("token", &tokens[1]), ("next", "/me")]).await;
    assert_eq!(p.status, 303, "{}", p.text);
    let me = browser.get("/me").await;
    assert!(me.text.contains("id=\"mail-encrypt\""), "{}", me.text);
    let fields = [("csrf", me.csrf()), ("delivery", "every".into()), ("pictures", "attached".into())];
    let mut fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    fields.push(("encrypt", "encrypted"));
    let p = browser.post("/me/mail", &fields).await;
    assert_eq!(p.status, 400, "{}", p.text);
    assert!(p.text.contains("OpenPGP key is registered for you (bob@example.org)"), "{}", p.text);
    // Alice has one.
    let set = put_mail(&server, &tokens[0], json!({"encrypt": true})).await.ok(200);
    assert_eq!(set["encrypt"], true, "{set}");
    let fpr = gpg.fingerprint(alice);
    assert_eq!(set["openpgp_keys"][0].as_str().unwrap().replace(' ', ""), fpr, "{set}");
    assert!(set["message"].as_str().unwrap().contains("encrypted to your OpenPGP key"), "{set}");
    let got = server.get("/api/me/mail", Some(&tokens[0])).await.ok(200);
    assert_eq!(got["encrypt"], true, "{got}");

    server.mv(&game, &tokens[0], 1, "e4").await.ok(200);
    server.mv(&game, &tokens[1], 2, "e5").await.ok(200);
    let board = spooled(&spool, &format!("{game}.2.0.turn@")).await;
    let inside = open_and_verify(&gpg, &board);
    assert!(inside.contains("Content-Type: image/png"), "the board picture is inside: {inside}");
    assert!(inside.contains(&game) && inside.contains("e5"), "{inside}");
    let rnp = rnp_decrypt(&gpg.export_secret(alice), &board);
    assert!(rnp.contains("multipart/signed") && rnp.contains("protected-headers=\"v1\""), "{rnp}");
    // Bob's mail of the same turn: signed only, as before.
    let bobs = spooled(&spool, &format!("{game}.2.1.turn@")).await;
    assert_signed_only(&bobs);
    assert!(decode(&bobs).contains("e5"));

    // A new game: the start mail to Alice is encrypted (to the key of her first seat).
    let seats = json!([{"name": "Carol", "email": "carol@example.org"}, {"name": "Alice", "email": alice}]);
    let second = server
        .post_json("/api/games", Some(&server.operator), &json!({"variant": "chess", "seats": seats}))
        .await
        .ok(201);
    let second = second["game"]["id"].as_str().unwrap().to_owned();
    let start = spooled(&spool, &format!("{second}.0.1.started@")).await;
    let inside = open_and_verify(&gpg, &start);
    assert!(inside.contains(&second), "{inside}");
    assert_signed_only(&spooled(&spool, &format!("{second}.0.0.started@")).await);

    // Her key removed: mails go signed only rather than not at all, and the setting says why.
    let url = format!("{}/api/games/{game}/seats/white/openpgp-key", server.base);
    let gone = common::send(&server.client, url, reqwest::Method::DELETE, Some(&tokens[0]), None).await;
    assert_eq!(gone.status, 200, "{}", gone.text);
    let got = server.get("/api/me/mail", Some(&tokens[0])).await.ok(200);
    assert_eq!(got["openpgp_keys"], json!([]), "{got}");
    assert!(got["message"].as_str().unwrap().contains("no OpenPGP key is registered any more"), "{got}");
    server.mv(&game, &tokens[0], 3, "Nf3").await.ok(200);
    let board = spooled(&spool, &format!("{game}.3.0.turn@")).await;
    assert_signed_only(&board);
    assert!(decode(&board).contains("Nf3"), "in clear, signed");
    // Off again.
    let set = put_mail(&server, &tokens[0], json!({"encrypt": false})).await.ok(200);
    assert_eq!(set["encrypt"], false, "{set}");
}

/// Creates a game in the steward's store with `seats` (name, address, OpenPGP key or "").
fn new_game(s: &PipeSteward, variant: &str, seats: &[(&str, &str, &str)]) -> String {
    super::pgp_game::create_game(s, variant, json!({}), seats)
}

/// The Reply-To address of a mail.
fn reply_address(mail: &str) -> String {
    let r = header(mail, "Reply-To");
    r.rsplit_once('<').map_or(r.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned()
}

/// A plain reply from `from` to `to`.
fn reply(from: &str, to: &str, id: &str, body: &str) -> String {
    common::pipe::reply(from, to, id, "Re: ...", body)
}

/// The one answer to `who` (raw) spooled since `seen` (file names), which it joins.
#[track_caller]
fn new_answer(s: &PipeSteward, who: &str, seen: &mut Vec<String>) -> String {
    let mut new: Vec<(String, String)> = s
        .spool()
        .into_iter()
        .filter(|(n, t)| n.contains(".answer-") && header(t, "To").contains(who) && !seen.contains(n))
        .collect();
    assert_eq!(new.len(), 1, "one new answer to {who}: {:?}", new.iter().map(|(n, _)| n).collect::<Vec<_>>());
    let (name, text) = new.remove(0);
    seen.push(name);
    text
}

/// Dreierschach, by the mail command: Alice (RSA 3072, a signing primary and an
/// encryption subkey) answers her start mail `mail encrypted`, and the answer
/// already comes encrypted; Carol (no key) and Dave (a key that only signs) are
/// refused, saying what to do. Then the game goes on by mail: Alice's board
/// mails are encrypted, the others' signed only, and Alice moves by replying to
/// her encrypted board mail (its reply address is outside, as before). The
/// receipts and her daily digest come encrypted too.
#[test]
fn in_dreierschach_the_mail_command_turns_encryption_on_for_an_rsa_key_and_replies_still_move() {
    let gpg = Gpg::new();
    let (alice, carol, dave) = ("alice@example.org", "carol@example.org", "dave@example.org");
    gpg.rsa3072(&format!("Alice <{alice}>"));
    gpg.sign_only(&format!("Dave <{dave}>"));
    let s = PipeSteward::new();
    let game = new_game(
        &s,
        "dreierschach",
        &[("Alice", alice, &gpg.export(alice)), ("Carol", carol, ""), ("Dave", dave, &gpg.export(dave))],
    );
    s.ingest("x");
    let start = s.newest(alice, "started");
    assert_signed_only(&start);
    gpg.import(&autocrypt_key(&start));

    // Carol: no key.
    let mut seen = s.answers_to(carol);
    let mail = reply(carol, &reply_address(&s.newest(carol, "started")), "c1", "mail encrypted");
    let said = s.answered(&mail, carol, "refused: bad_request", &mut seen);
    assert!(said.contains("no OpenPGP key is registered") && said.contains("openpgp-key"), "{said}");
    // Dave: a key that cannot encrypt.
    let mut seen = s.answers_to(dave);
    let mail = reply(dave, &reply_address(&s.newest(dave, "started")), "d1", "mail encrypted");
    let said = s.answered(&mail, dave, "refused: bad_request", &mut seen);
    assert!(said.contains("no encryption subkey") && said.contains("gpg --quick-add-key"), "{said}");
    // Alice: on; the answer itself comes encrypted.
    let mail = reply(alice, &reply_address(&start), "a1", "mail encrypted");
    let (_, line) = s.ingest(&mail);
    assert!(line.starts_with("accepted"), "{line}");
    let mut answered = Vec::new();
    let answer = new_answer(&s, alice, &mut answered);
    let inside = open_and_verify(&gpg, &answer);
    assert!(inside.contains("encrypted to your OpenPGP key"), "{inside}");

    // The game goes on: White (Alice) replies to her start mail, then Brown and Black.
    let line = dreierschach_line();
    let (_, out) = s.ingest(&reply(alice, &reply_address(&start), "m1", line[0]));
    assert!(out.starts_with("accepted"), "{out}");
    let receipt = new_answer(&s, alice, &mut answered);
    assert!(open_and_verify(&gpg, &receipt).contains("Accepted"), "the receipt, encrypted");
    for (i, who) in [(1, carol), (2, dave)] {
        let board = s.newest(who, ".turn@");
        assert_signed_only(&board);
        let (_, out) = s.ingest(&reply(who, &reply_address(&board), &format!("m{i}"), line[i]));
        assert!(out.starts_with("accepted"), "{who}: {out}");
    }
    let board = s.newest(alice, ".turn@");
    let inside = open_and_verify(&gpg, &board);
    assert!(inside.contains("Content-Type: image/png"), "the picture inside: {inside}");
    // The daily digest (the real `fairsteward sweep`) comes encrypted too.
    let (_, out) = s.ingest(&reply(alice, &reply_address(&board), "a2", "mail digest at 0"));
    assert!(out.starts_with("accepted"), "{out}");
    assert!(open_and_verify(&gpg, &new_answer(&s, alice, &mut answered)).contains("digest"));
    let swept = common::pipe::fairsteward(&["sweep", "--data-dir", &s.data_arg()], b"");
    assert!(swept.status.success(), "{}", String::from_utf8_lossy(&swept.stderr));
    let digest = s.spool().into_iter().find(|(n, _)| n.starts_with("reminder.digest.")).expect("the digest").1;
    assert!(header(&digest, "To").contains(alice));
    let inside = open_and_verify(&gpg, &digest);
    assert!(inside.contains(&game), "{inside}");
    // Her client replies to the outer Reply-To: the move is taken.
    let (_, out) = s.ingest(&reply(alice, &reply_address(&board), "m3", line[3]));
    assert!(out.starts_with("accepted"), "{out}");
    let history = s.game(&game)["history"].as_array().unwrap().len();
    assert_eq!(history, 4, "{}", s.game(&game));
}

/// The first moves of the Dreierschach mate line (White, Brown, Black, White).
fn dreierschach_line() -> [&'static str; 4] {
    let m = common::dreierschach_game::MATE;
    [m[0].0, m[1].0, m[2].0, m[3].0]
}

/// Through the real servers: Alice registers her key and chooses encrypted
/// mail over HTTP with her token; her board mail as delivered over IMAP is
/// encrypted, GnuPG opens it and the signature inside verifies; she replies
/// (plain) to its reply address over SMTP, the move is taken, and her receipt
/// comes encrypted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_encrypted_board_mail_over_smtp_and_imap_opens_and_a_reply_to_it_moves() {
    use crate::mail::e2e::{DOMAIN, Steward, bare, game_of, is_answer, send_and_wait, wait_for};
    use common::mailstack::{stack, unique};
    use std::time::Duration;

    let stack = stack();
    let gpg = Gpg::new();
    let (moves, alice, bob) = (unique("m"), unique("alice"), unique("bob"));
    let emails = [format!("{alice}@{DOMAIN}"), format!("{bob}@{DOMAIN}")];
    gpg.cv25519(&format!("Alice <{}>", emails[0]));
    let steward = Steward::start(&stack, &moves).await;
    let asc = steward.client.get(format!("{}/steward.asc", steward.base)).send().await.unwrap();
    gpg.import(&asc.bytes().await.unwrap());
    let (game, tokens, _) = game_of(&stack, &steward, "chess", [emails[0].as_str(), emails[1].as_str()]).await;
    let url = format!("{}/api/games/{game}/seats/white/openpgp-key", steward.base);
    let resp = steward.client.put(&url).bearer_auth(&tokens[0]).body(gpg.export(&emails[0])).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let resp = steward
        .client
        .put(format!("{}/api/me/mail", steward.base))
        .bearer_auth(&tokens[0])
        .json(&json!({"encrypt": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200, "{:?}", resp.text().await);
    for (token, turn, mv) in [(&tokens[0], 1, "e4"), (&tokens[1], 2, "e5")] {
        let r = steward
            .client
            .post(format!("{}/api/games/{game}/moves", steward.base))
            .bearer_auth(token)
            .json(&json!({"turn": turn, "move": mv}))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{:?}", r.text().await);
    }
    let board_id = format!("{game}.2.0.turn@");
    let mails = wait_for(&stack, &alice, Duration::from_secs(20), "the board mail after turn 2", |m| {
        m.iter().any(|x| x.message_id.contains(&board_id))
    })
    .await;
    let board = mails.iter().find(|x| x.message_id.contains(&board_id)).unwrap().clone();
    let text = String::from_utf8(board.raw.clone()).unwrap();
    let inside = open_and_verify(&gpg, &text);
    assert!(inside.contains("Content-Type: image/png") && inside.contains("e5"), "{inside}");

    let reply_to = bare(&header(&text, "Reply-To"));
    assert!(reply_to.starts_with(&format!("{moves}+")), "{reply_to}");
    let raw = crate::mail::e2e::reply(&format!("Alice <{}>", emails[0]), &board, &unique("r"), "Nf3", false);
    send_and_wait(&stack, &moves, &emails[0], &reply_to, &raw, 1).await;
    let mails = wait_for(&stack, &alice, Duration::from_secs(20), "the receipt", |m| m.iter().any(is_answer)).await;
    let receipt = mails.iter().find(|m| is_answer(m)).unwrap();
    let inside = open_and_verify(&gpg, &String::from_utf8(receipt.raw.clone()).unwrap());
    assert!(inside.contains("Accepted"), "{inside}");
    let view = steward.game(&game).await;
    assert_eq!(view["history"].as_array().unwrap().len(), 3, "{view}");
    steward.stop().await;
}
