//! Issue 33 at the desk: a player's OpenPGP public key given in the game
//! creation form and the tournament form (pasted below the player's line) and
//! in the "Invite instead" form, as the API takes `openpgp_key`; a secret key,
//! a block before any player or without its END line is refused saying so.
//! Keys made by the real GnuPG; the forms posted over HTTP.

use serde_json::Value;

use super::tournament_pages::signed_in_operator;
use crate::support::Server;
use crate::trust::pgp_tools::Gpg;

/// A form's fields as the test browser posts them.
fn as_refs<'a>(f: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    f.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// The fingerprint a game shows for `seat`, without its spaces.
fn shown(game: &Value, seat: usize) -> Option<String> {
    game["seats"][seat]["openpgp_fingerprint"].as_str().map(|f| f.replace(' ', ""))
}

#[tokio::test]
async fn the_desk_forms_take_a_players_openpgp_key_and_refuse_what_is_not_a_public_key() {
    let gpg = Gpg::new();
    for uid in ["Fay <fay@example.org>", "Ann <ann@example.org>", "Bea <bea@example.org>"] {
        gpg.key(uid, "ed25519");
    }
    let (fay, ann, bea) = (gpg.export("fay@example.org"), gpg.export("ann@example.org"), gpg.export("bea@example.org"));
    let s = Server::start().await;
    let (mut op, csrf) = signed_in_operator(&s).await;
    assert!(op.get("/desk/new").await.text.contains("OpenPGP public key"));

    // A game: Fay's key pasted below her line, Gus without one.
    let seats = format!("Fay <fay@example.org>\n{fay}\nGus <gus@example.org>\n");
    let made = op.post("/desk/new", &[("csrf", &csrf), ("variant", "chess"), ("seats", &seats)]).await;
    assert_eq!(made.status, 201, "{}", made.text);
    let at = made.text.find("href=\"/desk/games/").expect("a link to the game") + 18;
    let id: String = made.text[at..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
    let game = s.game(&id, None).await;
    assert_eq!(shown(&game, 0), Some(gpg.fingerprint("fay@example.org")), "{game}");
    assert_eq!(shown(&game, 1), None, "{game}");

    // A secret key, a block before any player, a block cut short: refused, saying which.
    let secret = String::from_utf8(gpg.ok(&["--armor", "--export-secret-keys", "fay@example.org"], b"")).unwrap();
    for (seats, says) in [
        (format!("Fay <fay@example.org>\n{secret}\nGus <gus@example.org>\n"), "this is a SECRET key"),
        (format!("{fay}\nFay <fay@example.org>\nGus <gus@example.org>\n"), "comes before any player line"),
        (
            format!("Fay <fay@example.org>\n{}\nGus <gus@example.org>\n", fay.lines().take(3).collect::<Vec<_>>().join("\n")),
            "has no `-----END PGP",
        ),
        ("Fay <fay@example.org>\n-----BEGIN PGP PUBLIC KEY BLOCK-----\nnot a key\n-----END PGP PUBLIC KEY BLOCK-----\nGus <gus@example.org>\n".to_owned(), "not an ASCII-armoured OpenPGP public key"),
    ] {
        let refused = op.post("/desk/new", &[("csrf", &csrf), ("variant", "chess"), ("seats", &seats)]).await;
        assert_eq!(refused.status, 400, "{}", refused.text);
        assert!(refused.text.contains(says), "{says}: {}", refused.text);
    }

    // Replace the player: Gus's seat goes to Bea with her OpenPGP key (a
    // secret key refused first); Fay's to Hal without one, and Fay's key goes
    // with her. `verify` follows both.
    let replace = format!("/desk/games/{id}/replace");
    let replacing = |seat: &str, name: &str, key: &str| {
        vec![
            ("csrf", csrf.clone()),
            ("seat", seat.to_owned()),
            ("name", name.to_owned()),
            ("email", format!("{}@example.org", name.to_lowercase())),
            ("openpgp_key", key.to_owned()),
            ("reason", "moved away".to_owned()),
            ("confirm", "yes".to_owned()),
        ]
    };
    let refused = op.post(&replace, &as_refs(&replacing("black", "Bea", &secret))).await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(refused.text.contains("the new player of black") && refused.text.contains("SECRET"), "{}", refused.text);
    let done = op.post(&replace, &as_refs(&replacing("black", "Bea", &bea))).await;
    assert!(done.status == 200 && done.text.contains("now plays black"), "{}", done.text);
    let done = op.post(&replace, &as_refs(&replacing("white", "Hal", ""))).await;
    assert!(done.status == 200 && done.text.contains("now plays white"), "{}", done.text);
    let game = s.game(&id, None).await;
    assert_eq!(shown(&game, 1), Some(gpg.fingerprint("bea@example.org")), "{game}");
    assert_eq!(shown(&game, 0), None, "Fay's key left with her: {game}");
    let out = crate::support::transcript::verified(&s.api(), &id).await;
    assert!(out.contains("2 seats given to a new player"), "{out}");

    // A tournament: Ann's key below her line goes to her seat.
    let players = format!("Ann <ann@example.org>\n{ann}\nBob <bob@example.org>\n");
    let made = op
        .post(
            "/desk/tournaments/new",
            &[("csrf", &csrf), ("name", "Keyed cup"), ("variant", "chess"), ("players", &players)],
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    let at = made.text.find("href=\"/desk/tournaments/").unwrap() + 24;
    let t = made.text[at..].split('"').next().unwrap().to_owned();
    let view: Value = s.get(&format!("/api/tournaments/{t}"), None).await.ok(200);
    let game = view["games"][0]["game"].as_str().expect("a game").to_owned();
    let game = s.game(&game, None).await;
    for seat in game["seats"].as_array().unwrap() {
        let expected = (seat["player"] == "Ann").then(|| gpg.fingerprint("ann@example.org"));
        assert_eq!(seat["openpgp_fingerprint"].as_str().map(|f| f.replace(' ', "")), expected, "{seat}");
    }
    let players = format!("Ann <ann@example.org>\n{secret}\nBob <bob@example.org>\n");
    let refused = op
        .post(
            "/desk/tournaments/new",
            &[("csrf", &csrf), ("name", "Bad cup"), ("variant", "chess"), ("players", &players)],
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(refused.text.contains("this is a SECRET key"), "{}", refused.text);

    // Invite instead: Hal's place goes to Bea, with her key; the game started
    // now has it on her seat. A secret key there is refused.
    let new = op
        .post(
            "/desk/new",
            &[
                ("csrf", &csrf),
                ("variant", "chess"),
                ("seats", "Gil <gil@example.org>\nHal <hal@example.org>"),
                ("invite", "1"),
            ],
        )
        .await;
    assert_eq!(new.status, 303, "{}", new.text);
    let at = new.location.unwrap();
    let page = op.get(&at).await;
    assert!(page.text.contains("name=\"openpgp_key\""), "{}", page.text);
    let replace = format!("{at}/replace");
    let fields = |key: &str| {
        vec![
            ("csrf", csrf.clone()),
            ("player", "1".to_owned()),
            ("name", "Bea".to_owned()),
            ("email", "bea@example.org".to_owned()),
            ("openpgp_key", key.to_owned()),
            ("confirm", "yes".to_owned()),
        ]
    };
    let refused = op.post(&replace, &as_refs(&fields(&secret))).await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(refused.text.contains("this is a SECRET key"), "{}", refused.text);
    // The confirmation step carries the key on.
    let mut ask = fields(&bea);
    ask.pop();
    let confirm = op.post(&replace, &as_refs(&ask)).await;
    assert!(
        confirm.text.contains("Please confirm") && confirm.text.contains("name=\"openpgp_key\""),
        "{}",
        confirm.text
    );
    let replaced = op.post(&replace, &as_refs(&fields(&bea))).await;
    assert!(replaced.text.contains("Bea &lt;bea@example.org&gt; is invited"), "{}", replaced.text);
    let started = op.post(&format!("{at}/start"), &[("csrf", &csrf), ("confirm", "yes")]).await;
    assert!(started.text.contains("has started"), "{}", started.text);
    let view = op.get(&at).await;
    let at = view.text.find("href=\"/desk/games/").expect("a link to the started game") + 18;
    let id: String = view.text[at..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
    let game = s.game(&id, None).await;
    assert_eq!(shown(&game, 1), Some(gpg.fingerprint("bea@example.org")), "{game}");
    assert_eq!(shown(&game, 0), None, "{game}");
    s.shut_down().await;
}
