//! Issue 33, the smaller points of the players' keys: an OpenPGP key given when
//! accepting an invitation (JSON, the page's form, a key attached to or pasted
//! in the accepting mail) or with a tournament's player (every seat of theirs
//! gets it); trust on first use from the first signed mail of any kind the
//! signed path takes (draw offer, resignation, leave, conditional lines);
//! conditional lines signed with GnuPG, taken where the game offers them and
//! refused with the same words as over HTTP where it does not.
//!
//! Keys and signatures are made by the real GnuPG (Debian's `gnupg`, which
//! scripts/test installs); the signed mails go through `fairsteward ingest`
//! (the MTA pipe) or the mail door.

use std::io::Write;
use std::process::{Command, Stdio};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::invitation::http::invitation_links;
use crate::invitation::mail::{body, outbox, reply_to};
use crate::support::pipe::{PipeSteward, new_answer};
use crate::support::{Server, eventually};

/// Fails (never skips) when a binary the tests need is missing.
#[track_caller]
fn need(bin: &str) {
    let found =
        Command::new("sh").arg("-c").arg(format!("command -v {bin}")).output().is_ok_and(|o| o.status.success());
    assert!(found, "{bin} is not installed: run scripts/test, which installs Debian's gnupg and rnp");
}

fn run(cmd: &mut Command, stdin: &[u8]) -> Vec<u8> {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// A throw-away GnuPG home with one ed25519 signing key per address given.
struct Gpg {
    home: tempfile::TempDir,
}

impl Gpg {
    fn with_keys(uids: &[&str]) -> Gpg {
        need("gpg");
        let gpg = Gpg { home: tempfile::tempdir().unwrap() };
        for uid in uids {
            run(gpg.cmd().args(["--quick-gen-key", uid, "ed25519", "sign", "never"]), b"");
        }
        gpg
    }

    fn cmd(&self) -> Command {
        let mut c = Command::new("gpg");
        c.env("GNUPGHOME", self.home.path()).args(["--batch", "--pinentry-mode", "loopback", "--passphrase", ""]);
        c
    }

    /// The fingerprint, grouped in fours as the steward shows it.
    fn fingerprint(&self, uid: &str) -> String {
        let out = String::from_utf8(run(self.cmd().args(["--with-colons", "--list-keys", uid]), b"")).unwrap();
        let fpr = out.lines().find(|l| l.starts_with("fpr:")).unwrap().split(':').nth(9).unwrap().to_owned();
        fpr.as_bytes().chunks(4).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join(" ")
    }

    fn export(&self, uid: &str) -> String {
        String::from_utf8(run(self.cmd().args(["--armor", "--export", uid]), b"")).unwrap()
    }

    /// The `Autocrypt:` header a client adds for `addr`.
    fn autocrypt(&self, addr: &str) -> String {
        let binary = run(self.cmd().args(["--export", addr]), b"");
        let keydata = base64::engine::general_purpose::STANDARD.encode(binary);
        format!("Autocrypt: addr={addr}; prefer-encrypt=mutual; keydata={keydata}\r\n")
    }

    fn detach_sign(&self, uid: &str, bytes: &[u8]) -> String {
        String::from_utf8(run(self.cmd().args(["--armor", "--detach-sign", "--local-user", uid]), bytes)).unwrap()
    }

    /// A PGP/MIME signed mail (RFC 3156) from `from` whose signed part is
    /// `text` (with the key of `from` attached inside it when `attach`).
    fn signed_mail(&self, from: &str, id: &str, text: &str, attach: bool) -> String {
        let addr = from.split_once('<').map_or(from, |(_, a)| a.trim_end_matches('>'));
        self.signed_mail_by(addr, from, id, text, attach)
    }

    /// [`Gpg::signed_mail`] signed by the key of `addr`, from `from`.
    fn signed_mail_by(&self, addr: &str, from: &str, id: &str, text: &str, attach: bool) -> String {
        let body = format!("{text}\r\n> On turn 1 the steward wrote:\r\n> game: OLDGAM\r\n");
        let part = if attach {
            // RFC 3156: what is signed is in canonical form, every line ending CRLF.
            let key = self.export(addr).replace('\n', "\r\n");
            format!(
                "Content-Type: multipart/mixed; boundary=\"k\"\r\n\r\n--k\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n--k\r\nContent-Type: application/pgp-keys; name=\"OpenPGP_0x1.asc\"\r\nContent-Disposition: attachment; filename=\"OpenPGP_0x1.asc\"\r\n\r\n{key}\r\n--k--\r\n"
            )
        } else {
            format!("Content-Type: text/plain; charset=utf-8\r\n\r\n{body}")
        };
        let sig = self.detach_sign(addr, part.as_bytes());
        format!(
            "From: {from}\r\nTo: moves@localhost\r\nSubject: Re: your move\r\nMessage-ID: <{id}@client.example>\r\nDate: Sun, 6 Dec 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/signed; micalg=pgp-sha256;\r\n protocol=\"application/pgp-signature\";\r\n boundary=\"sig-b\"\r\n\r\nThis is an OpenPGP/MIME signed message\r\n--sig-b\r\n{part}\r\n--sig-b\r\nContent-Type: application/pgp-signature; name=\"OpenPGP_signature.asc\"\r\n\r\n{sig}\r\n--sig-b--\r\n"
        )
    }
}

/// The signed lines that bind a mail to game, seat and turn, and what it asks.
fn lines(game: &str, seat: &str, turn: u32, what: &str) -> String {
    format!("game: {game}\r\nseat: {seat}\r\nturn: {turn}\r\n{what}")
}

/// A game in the pipe steward's store: chess, `auth`, trust on first use on.
fn tofu_game(s: &PipeSteward, auth: &str, seats: &[(&str, &str)]) -> String {
    let seats: Vec<Value> = seats.iter().map(|(n, e)| json!({"name": n, "email": e})).collect();
    let new: fairsteward::steward::NewGame = serde_json::from_value(
        json!({"variant": "chess", "options": {"auth": auth, "openpgp_tofu": "on"}, "seats": seats}),
    )
    .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    rt.block_on(async {
        let steward = crate::support::in_process::open(&crate::support::in_process::config(&s.data));
        steward.create_game(new, chrono::Utc::now()).await.unwrap().game.id
    })
}

/// Ingests `mail`: asserts the outcome line, returns the new answer to `who`
/// (empty when none came).
#[track_caller]
fn ingest(s: &PipeSteward, mail: &str, outcome: &str, who: &str, seen: &mut Vec<String>) -> String {
    let (_, line) = s.ingest(mail);
    assert_eq!(line, outcome, "{mail}");
    let all = s.answers_to(who);
    if all.len() == seen.len() {
        return String::new();
    }
    let said = new_answer(seen, all);
    seen.push(said.clone());
    said
}

fn fingerprint_of(s: &PipeSteward, game: &str, seat: usize) -> Value {
    s.game(game)["seats"][seat]["openpgp_fingerprint"].clone()
}

/// Point 2 and 3 in a game that takes conditional lines: the first signed mail
/// of each seat, a conditional line (key attached) and a draw offer (Autocrypt
/// header), brings its key on first use and says so; then a signed move, leave
/// and resignation count with the keys taken, the signed line fires, and an
/// old signed line sent again is refused as a replay.
#[test]
fn signed_conditional_lines_draw_offers_leave_and_resignation_by_gnupg_mail_take_keys_on_first_use() {
    let gpg = Gpg::with_keys(&["Alice <alice@example.org>", "Bob <bob@example.org>"]);
    let s = PipeSteward::new();
    let game = tofu_game(&s, "token", &[("Alice", "alice@example.org"), ("Bob", "bob@example.org")]);
    let (mut alice, mut bob) = (Vec::new(), Vec::new());

    // Bob's conditional line, signed, his key attached: taken, and the key with it.
    let line = gpg.signed_mail("Bob <bob@example.org>", "b1", &lines(&game, "black", 1, "if e4 then e5"), true);
    let said = ingest(&s, &line, "accepted: conditional", "bob@", &mut bob);
    assert!(said.contains("Your conditional lines") && said.contains("e5"), "{said}");
    assert!(said.contains("Trust on first use") && said.contains(&gpg.fingerprint("bob@example.org")), "{said}");
    assert_eq!(fingerprint_of(&s, &game, 1), json!(gpg.fingerprint("bob@example.org")));

    // Alice's draw offer, signed, her key in the Autocrypt header.
    let offer =
        gpg.signed_mail("Alice <alice@example.org>", "a1", &lines(&game, "white", 1, "action: draw-offer"), false);
    let offer = format!("{}{offer}", gpg.autocrypt("alice@example.org"));
    let said = ingest(&s, &offer, "accepted: draw", "alice@", &mut alice);
    assert!(said.contains("Accepted: your signed draw offer"), "{said}");
    assert!(said.contains("Trust on first use") && said.contains(&gpg.fingerprint("alice@example.org")), "{said}");

    // Her signed move: Bob's line answers it.
    let mv = gpg.signed_mail("Alice <alice@example.org>", "a2", &lines(&game, "white", 1, "move: e4"), false);
    ingest(&s, &mv, "accepted: move", "alice@", &mut alice);
    assert_eq!(s.game(&game)["turn"], json!(3), "e4, and e5 from Bob's signed line: {}", s.game(&game));

    // The old signed line again (another Message-ID): its turn is past.
    let again = gpg.signed_mail("Bob <bob@example.org>", "b2", &lines(&game, "black", 1, "if Nf3 then Nc6"), false);
    let said = ingest(&s, &again, "refused: envelope_mismatch", "bob@", &mut bob);
    assert!(said.contains("for turn 1") && said.contains("sign them again for turn 3"), "{said}");

    // Signed leave and resignation with the keys now registered.
    let from = (chrono::Utc::now() + chrono::Duration::days(30)).date_naive();
    let to = from + chrono::Duration::days(2);
    let leave = format!("action: leave {} {}", from.format("%Y-%m-%d"), to.format("%Y-%m-%d"));
    let leave = gpg.signed_mail("Alice <alice@example.org>", "a3", &lines(&game, "white", 3, &leave), false);
    let said = ingest(&s, &leave, "accepted: leave", "alice@", &mut alice);
    assert!(said.contains("is granted") && !said.contains("Trust on first use"), "{said}");
    let resign = gpg.signed_mail("Bob <bob@example.org>", "b3", &lines(&game, "black", 3, "action: resign"), false);
    ingest(&s, &resign, "accepted: resignation", "bob@", &mut bob);
    assert!(!s.game(&game)["outcome"].is_null(), "{}", s.game(&game));

    // `verify` follows the keys taken from a draw offer and a conditional line,
    // and re-checks the signed actions offline.
    let out = super::pgp_game::verify(&super::pgp_game::transcript(&s, &game));
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

/// Point 3 where conditional lines are not offered (auth = signature): the
/// signed line is refused with the words HTTP uses, and a key offered with a
/// refused mail is not taken; a signed draw offer still brings it.
#[test]
fn a_signed_conditional_line_in_a_signature_only_game_is_refused_as_over_http_and_takes_no_key() {
    let gpg = Gpg::with_keys(&["Carol <carol@example.org>", "Dave <dave@example.org>"]);
    let s = PipeSteward::new();
    let game = tofu_game(&s, "signature", &[("Carol", "carol@example.org"), ("Dave", "dave@example.org")]);
    let (mut carol, mut dave) = (Vec::new(), Vec::new());

    let line = gpg.signed_mail("Dave <dave@example.org>", "d1", &lines(&game, "black", 1, "if e4 then e5"), true);
    let said = ingest(&s, &line, "refused: conditional_not_offered", "dave@", &mut dave);
    assert!(said.contains("a move played from a conditional line would carry no signature of yours"), "{said}");
    assert!(fingerprint_of(&s, &game, 1).is_null(), "the refusal took the key back");

    // A draw declined with none offered: refused, the key not taken.
    let accept =
        gpg.signed_mail("Carol <carol@example.org>", "c1", &lines(&game, "white", 1, "action: draw-decline"), true);
    ingest(&s, &accept, "refused: no_draw_offered", "carol@", &mut carol);
    assert!(fingerprint_of(&s, &game, 0).is_null(), "the refusal took the key back");
    // From another address: the signature proves the seat, but no key is taken.
    let offer = gpg.signed_mail_by(
        "carol@example.org",
        "Carol <carol@elsewhere.example>",
        "c2",
        &lines(&game, "white", 1, "action: draw-offer"),
        true,
    );
    let said = ingest(&s, &offer, "refused: bad_signature", "carol@example.org", &mut carol);
    assert!(said.contains("registered no OpenPGP key"), "{said}");
    // Her draw offer from her registered address: taken, with the key.
    let offer =
        gpg.signed_mail("Carol <carol@example.org>", "c3", &lines(&game, "white", 1, "action: draw-offer"), true);
    let said = ingest(&s, &offer, "accepted: draw", "carol@", &mut carol);
    assert!(said.contains("Trust on first use"), "{said}");
    assert_eq!(fingerprint_of(&s, &game, 0), json!(gpg.fingerprint("carol@example.org")));
}

// ---------------------------------------------------------------------------
// Point 1: keys at invitation and for tournament players

/// A reply to an invitation: plain text, or with `key` attached.
fn invitation_reply(from: &str, to: &str, id: &str, text: &str, key: Option<&str>) -> Vec<u8> {
    let head = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: Invitation\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\nMIME-Version: 1.0\r\n"
    );
    match key {
        None => format!("{head}Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n\r\n> you are invited\r\n"),
        Some(k) => format!(
            "{head}Content-Type: multipart/mixed; boundary=\"m\"\r\n\r\n--m\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n--m\r\nContent-Type: application/pgp-keys; name=\"OpenPGP_0x2.asc\"\r\nContent-Disposition: attachment; filename=\"OpenPGP_0x2.asc\"\r\n\r\n{}\r\n--m--\r\n",
            k.replace('\n', "\r\n")
        ),
    }
    .into_bytes()
}

/// An invited signature-only game accepted by mail: one key pasted into the
/// reply, one attached; a reply without a key, or with a broken one, is
/// refused saying what to send; the game is created with both keys.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invitees_give_their_openpgp_keys_in_the_accepting_mail() {
    let gpg = Gpg::with_keys(&["Ann <ann@example.org>", "Bob <bob@example.org>"]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = crate::support::in_process::config(dir.path());
    let steward = crate::support::in_process::open(&cfg);
    let new: fairsteward::steward::NewGame = serde_json::from_value(json!({"variant": "chess", "invite": true,
        "options": {"auth": "signature"},
        "seats": [{"name": "Ann", "email": "ann@example.org", "openpgp_key": gpg.export("ann@example.org")},
                  {"name": "Bob", "email": "bob@example.org", "openpgp_key": gpg.export("bob@example.org")}]}))
    .unwrap();
    // Keys given by the organiser are optional: the invitees give their own.
    let mut new = new;
    for s in &mut new.seats {
        s.openpgp_key = None;
    }
    let invited = steward.invite_game(new, steward.now()).await.unwrap();
    let db = cfg.data_dir.clone();
    let mails = outbox(&db);
    let to = |who: &str| mails.iter().find(|m| m.1 == who).map(|m| reply_to(&m.2)).unwrap();
    let (ann, bob) = (to("ann@example.org"), to("bob@example.org"));
    let door = |raw: Vec<u8>| {
        let s = steward.clone();
        async move { fairsteward::mail::door::handle(&s, &raw, s.now()).await.unwrap().to_string() }
    };
    let pasted = format!("accept\r\n\r\nMy key:\r\n{}", gpg.export("ann@example.org").replace('\n', "\r\n"));
    let r = door(invitation_reply("Ann <ann@example.org>", &ann, "a1", &pasted, None)).await;
    assert_eq!(r, "accepted: invitation accepted");
    assert_eq!(
        door(invitation_reply("Bob <bob@example.org>", &bob, "b1", "accept", None)).await,
        "refused: bad_request"
    );
    let broken = "accept\r\n-----BEGIN PGP PUBLIC KEY BLOCK-----\r\n\r\nAAAA\r\n-----END PGP PUBLIC KEY BLOCK-----";
    assert_eq!(door(invitation_reply("Bob <bob@example.org>", &bob, "b2", broken, None)).await, "refused: bad_request");
    let attached = invitation_reply("Bob <bob@example.org>", &bob, "b3", "yes", Some(&gpg.export("bob@example.org")));
    assert_eq!(door(attached).await, "accepted: invitation accepted");
    let answers: Vec<String> = outbox(&db)
        .into_iter()
        .filter(|m| m.0.contains(".answer-"))
        .map(|m| format!("{} {}", m.1, body(&m.2)))
        .collect();
    let fpr = |who: &str| gpg.fingerprint(who);
    assert!(answers.iter().any(|a| a.starts_with("ann@") && a.contains(&fpr("ann@example.org"))), "{answers:?}");
    assert!(answers.iter().any(|a| a.starts_with("bob@") && a.contains("as openpgp_key")), "{answers:?}");
    assert!(answers.iter().any(|a| a.starts_with("bob@") && a.contains(&fpr("bob@example.org"))), "{answers:?}");

    let organiser = fairsteward::steward::Organiser::Operator;
    let list = steward.invitations(&organiser, fairsteward::steward::Invited::Game(invited.id.clone())).await.unwrap();
    let game = list.game.expect("the game is created");
    let view = steward.status(game, None).await.unwrap();
    let shown: Vec<Option<String>> = view.seats.iter().map(|s| s.openpgp_fingerprint.clone()).collect();
    assert_eq!(shown, [Some(fpr("ann@example.org")), Some(fpr("bob@example.org"))]);
}

/// An invited game accepted over HTTP: one invitee gives `openpgp_key` in the
/// JSON, the other in the page's form; the game's seats show both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invitees_give_their_openpgp_keys_over_http_and_on_the_page() {
    let gpg = Gpg::with_keys(&["Ann <ann@example.org>", "Bob <bob@example.org>"]);
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let body = json!({"variant": "chess", "invite": true, "options": {"auth": "signature"}, "seats": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]});
    let invited = s.post_json("/api/games", None, &body).await.ok(201);
    let id = invited["id"].as_str().unwrap().to_owned();
    let links = eventually("the invitation mails", || {
        let links = invitation_links(&spool);
        (links.len() >= 2).then_some(links)
    })
    .await;
    let link = |who: &str| links.iter().find(|(to, _)| to == who).unwrap().1.clone();
    let token = |who: &str| link(who).rsplit('/').next().unwrap().to_owned();

    let path = format!("/api/invitations/{}/accept", token("ann@example.org"));
    let none = s.post_json(&path, None, &json!({})).await;
    assert_eq!(none.status, 400, "{}", none.text);
    assert!(none.text.contains("openpgp_key"), "{}", none.text);
    let a = s.post_json(&path, None, &json!({"openpgp_key": gpg.export("ann@example.org")})).await.ok(200);
    assert!(a["message"].as_str().unwrap().contains(&gpg.fingerprint("ann@example.org")), "{a}");

    let page_path = format!("/invitations/{}", token("bob@example.org"));
    let page = s.get(&page_path, None).await;
    assert!(page.text.contains("id=\"invitation-openpgp-key\""), "{}", page.text);
    let at = page.text.find("name=\"csrf\" value=\"").unwrap() + "name=\"csrf\" value=\"".len();
    let csrf = page.text[at..].split('"').next().unwrap().to_owned();
    let key = gpg.export("bob@example.org");
    let form =
        serde_urlencoded::to_string([("csrf", csrf.as_str()), ("action", "accept"), ("openpgp_key", &key)]).unwrap();
    let r = s
        .client
        .post(format!("{}{page_path}", s.base))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert!(text.contains("You accepted the invitation"), "{text}");

    let list = s.get(&format!("/api/invited-games/{id}"), Some(&s.operator)).await.ok(200);
    let game = list["game"].as_str().expect("the game is created").to_owned();
    let view = s.game(&game, None).await;
    assert_eq!(view["seats"][0]["openpgp_fingerprint"], json!(gpg.fingerprint("ann@example.org")));
    assert_eq!(view["seats"][1]["openpgp_fingerprint"], json!(gpg.fingerprint("bob@example.org")));
    s.shut_down().await;
}

/// A tournament player's OpenPGP key goes to every seat that player gets in
/// the tournament's games; a key that is not one is refused naming the player.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_players_openpgp_key_goes_to_every_seat_of_theirs() {
    let gpg = Gpg::with_keys(&["Ann <ann@example.org>"]);
    let dir = tempfile::tempdir().unwrap();
    let steward = crate::support::in_process::open(&crate::support::in_process::config(dir.path()));
    let organiser = fairsteward::steward::Organiser::Operator;
    let tournament = |key: String| {
        serde_json::from_value::<fairsteward::steward::NewTournament>(json!({"name": "Club", "variant": "chess",
            "double": true, "players": [
            {"name": "Ann", "email": "ann@example.org", "openpgp_key": key},
            {"name": "Bob", "email": "bob@example.org"},
            {"name": "Cleo", "email": "cleo@example.org"}]}))
        .unwrap()
    };
    let bad = steward.create_tournament(&organiser, tournament("not a key".into()), steward.now()).await.unwrap_err();
    assert!(bad.to_string().contains("player 1 (Ann)"), "{bad}");
    let created =
        steward.create_tournament(&organiser, tournament(gpg.export("ann@example.org")), steward.now()).await.unwrap();
    let mut games: Vec<String> = created.tokens.iter().map(|t| t.game.clone()).collect();
    games.sort();
    games.dedup();
    assert_eq!(games.len(), 6, "a double round robin of three");
    let mut anns = 0;
    for game in games {
        let view = steward.status(game, None).await.unwrap();
        for seat in &view.seats {
            let expected = (seat.player == "Ann").then(|| gpg.fingerprint("ann@example.org"));
            assert_eq!(seat.openpgp_fingerprint, expected, "{}", seat.player);
            anns += usize::from(seat.player == "Ann");
        }
    }
    assert_eq!(anns, 4, "Ann plays four games, each with her key");
}

/// An invited tournament over HTTP: the player who accepts with `openpgp_key`
/// has it at every seat of theirs once the last acceptance starts play.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_given_on_accepting_a_tournaments_invitation_goes_to_every_seat_of_that_player() {
    let gpg = Gpg::with_keys(&["Bob <bob@example.org>"]);
    let s = Server::start().await;
    let spool = s.config.spool_dir.clone();
    let body = json!({"name": "Invited club", "variant": "chess", "invite": true, "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"},
        {"name": "Cleo", "email": "cleo@example.org"}]});
    let created = s.post_json("/api/tournaments", Some(&s.operator), &body).await.ok(201);
    let id = created["tournament"]["id"].as_str().unwrap().to_owned();
    let links = eventually("the invitation mails", || {
        let links = invitation_links(&spool);
        (links.len() >= 3).then_some(links)
    })
    .await;
    let accept = |who: &str| {
        let token = links.iter().find(|(to, _)| to == who).unwrap().1.rsplit('/').next().unwrap().to_owned();
        format!("/api/invitations/{token}/accept")
    };
    let bad = s.post_json(&accept("bob@example.org"), None, &json!({"openpgp_key": "no key"})).await;
    assert_eq!(bad.status, 400, "{}", bad.text);
    s.post_json(&accept("bob@example.org"), None, &json!({"openpgp_key": gpg.export("bob@example.org")})).await.ok(200);
    s.post_json(&accept("ann@example.org"), None, &json!({})).await.ok(200);
    let last = s.post_json(&accept("cleo@example.org"), None, &json!({})).await.ok(200);
    assert_eq!(last["starts"], true, "{last}");
    let view = s.get(&format!("/api/tournaments/{id}"), None).await.ok(200);
    let games: Vec<String> =
        view["games"].as_array().unwrap().iter().filter_map(|g| g["game"].as_str().map(str::to_owned)).collect();
    assert_eq!(games.len(), 3, "{view}");
    let mut bobs = 0;
    for game in games {
        let g = s.game(&game, None).await;
        for seat in g["seats"].as_array().unwrap() {
            let is_bob = seat["player"] == "Bob";
            let expected = if is_bob { json!(gpg.fingerprint("bob@example.org")) } else { Value::Null };
            assert_eq!(seat["openpgp_fingerprint"], expected, "{seat}");
            bobs += usize::from(is_bob);
        }
    }
    assert_eq!(bobs, 2, "Bob plays two games, each with his key");
    s.shut_down().await;
}

/// The organiser's keys for an invited game belong to the players they were
/// given for: Ann, who accepts without a key, keeps hers; Bob declines and
/// Carl takes his place with a key of his own, and Bob's key never reaches
/// Carl's seat; Dan, who replaces Carl without a key, has none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_given_for_an_invited_seat_stay_with_their_player_across_replacements() {
    let gpg = Gpg::with_keys(&["Ann <ann@example.org>", "Bob <bob@example.org>", "Carl <carl@example.org>"]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = crate::support::in_process::config(dir.path());
    let steward = crate::support::in_process::open(&cfg);
    let new: fairsteward::steward::NewGame = serde_json::from_value(json!({"variant": "dreierschach", "invite": true,
        "seats": [{"name": "Ann", "email": "ann@example.org", "openpgp_key": gpg.export("ann@example.org")},
                  {"name": "Bob", "email": "bob@example.org", "openpgp_key": gpg.export("bob@example.org")},
                  {"name": "Eve", "email": "eve@example.org"}]}))
    .unwrap();
    let invited = steward.invite_game(new, steward.now()).await.unwrap();
    let db = cfg.data_dir.clone();
    let reply_of = |who: &str| outbox(&db).into_iter().find(|m| m.1 == who).map(|m| reply_to(&m.2)).unwrap();
    let door = |raw: Vec<u8>| {
        let s = steward.clone();
        async move { fairsteward::mail::door::handle(&s, &raw, s.now()).await.unwrap().to_string() }
    };
    let answer = |from: &str, id: &str, text: &str| {
        let addr = from.split_once('<').unwrap().1.trim_end_matches('>').to_owned();
        invitation_reply(from, &reply_of(&addr), id, text, None)
    };
    assert_eq!(door(answer("Ann <ann@example.org>", "a1", "accept")).await, "accepted: invitation accepted");
    assert_eq!(door(answer("Bob <bob@example.org>", "b1", "decline")).await, "accepted: invitation declined");
    let organiser = fairsteward::steward::Organiser::Operator;
    let what = fairsteward::steward::Invited::Game(invited.id.clone());
    let replace = |name: &str, key: Option<String>| fairsteward::steward::Replacement {
        name: name.into(),
        email: format!("{}@example.org", name.to_lowercase()),
        public_key: None,
        openpgp_key: key,
    };
    let carl = replace("Carl", Some(gpg.export("carl@example.org")));
    steward.replace_invited(&organiser, what.clone(), 1, carl, steward.now()).await.unwrap();
    assert_eq!(door(answer("Carl <carl@example.org>", "c1", "yes")).await, "accepted: invitation accepted");
    assert_eq!(door(answer("Eve <eve@example.org>", "e1", "accept")).await, "accepted: invitation accepted");
    let list = steward.invitations(&organiser, what).await.unwrap();
    let game = list.game.expect("the game is created");
    let view = steward.status(game, None).await.unwrap();
    let shown: Vec<(String, Option<String>)> =
        view.seats.iter().map(|s| (s.player.clone(), s.openpgp_fingerprint.clone())).collect();
    assert_eq!(
        shown,
        [
            ("Ann".to_owned(), Some(gpg.fingerprint("ann@example.org"))),
            ("Carl".to_owned(), Some(gpg.fingerprint("carl@example.org"))),
            ("Eve".to_owned(), None)
        ]
    );

    // Bob declines another game; Dan, without a key, takes the place: no key.
    let new: fairsteward::steward::NewGame = serde_json::from_value(json!({"variant": "chess", "invite": true,
        "seats": [{"name": "Ann", "email": "ann@example.org"},
                  {"name": "Bob", "email": "bob@example.org", "openpgp_key": gpg.export("bob@example.org")}]}))
    .unwrap();
    let invited = steward.invite_game(new, steward.now()).await.unwrap();
    let newest = |who: &str| outbox(&db).into_iter().rev().find(|m| m.1 == who).map(|m| reply_to(&m.2)).unwrap();
    let bob = invitation_reply("Bob <bob@example.org>", &newest("bob@example.org"), "b2", "decline", None);
    assert_eq!(door(bob).await, "accepted: invitation declined");
    let what = fairsteward::steward::Invited::Game(invited.id.clone());
    steward.replace_invited(&organiser, what.clone(), 1, replace("Dan", None), steward.now()).await.unwrap();
    let dan = invitation_reply("Dan <dan@example.org>", &newest("dan@example.org"), "d1", "accept", None);
    assert_eq!(door(dan).await, "accepted: invitation accepted");
    let ann = invitation_reply("Ann <ann@example.org>", &newest("ann@example.org"), "a2", "accept", None);
    assert_eq!(door(ann).await, "accepted: invitation accepted");
    let game = steward.invitations(&organiser, what).await.unwrap().game.expect("the game is created");
    let view = steward.status(game, None).await.unwrap();
    assert_eq!(view.seats[1].player, "Dan");
    assert_eq!(view.seats[1].openpgp_fingerprint, None, "Bob's key never reaches Dan's seat");
}
