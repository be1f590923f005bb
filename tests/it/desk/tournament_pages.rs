//! The desk's tournament pages: over plain HTTP (the creation form refused and
//! given back filled, the list and its filters, withdraw and adjudicate
//! through the confirmation, a director named and its token shown once, a
//! director confined to its tournament, an invited tournament's answers and
//! start, an invited game's status) and in headless Chromium (an operator
//! creates a tournament by the form, withdraws a player, names a director who
//! then signs in and sees only its tournament).

use serde_json::{Value, json};

use crate::support::Server;
use crate::support::web::{Browser, Page};

/// The text between `id="<id>">` and the next `<`.
fn text_of(page: &Page, id: &str) -> String {
    let marker = format!("id=\"{id}\">");
    let at = page.text.find(&marker).unwrap_or_else(|| panic!("no #{id} in {}", page.text)) + marker.len();
    page.text[at..].split('<').next().unwrap().to_owned()
}

/// The tournament id a creation's result page links to.
fn created_id(page: &Page) -> String {
    let at = page.text.find("href=\"/desk/tournaments/").expect("a link to the tournament") + 24;
    page.text[at..].split('"').next().unwrap().to_owned()
}

/// A test browser signed in at the desk with the operator token, and its CSRF token.
pub(super) async fn signed_in_operator(s: &Server) -> (Browser, String) {
    let mut op = Browser::new(s);
    assert_eq!(op.post("/desk/sign-in", &[("token", &s.operator)]).await.status, 303);
    let csrf = op.get("/desk").await.csrf();
    (op, csrf)
}

#[tokio::test]
async fn the_tournament_desk_over_http_creates_lists_confirms_and_confines_directors() {
    let s = Server::start().await;
    let (mut op, csrf) = signed_in_operator(&s).await;
    assert!(op.get("/desk").await.text.contains("href=\"/desk/tournaments\""), "the desk links its tournaments");
    let form = op.get("/desk/tournaments/new").await;
    assert!(form.status == 200 && form.text.contains("Create a tournament"), "{}", form.text);
    // Refused by the steward: the form comes back filled, with the API's message.
    let few = [
        ("csrf", csrf.as_str()),
        ("name", "Spring league"),
        ("variant", "dreierschach"),
        ("players", "Ann <ann@example.org>\nBob <bob@example.org>"),
        ("clock", "days_per_move days=5"),
    ];
    let refused = op.post("/desk/tournaments/new", &few).await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(text_of(&refused, "problem").contains("needs at least 3 players"), "{}", refused.text);
    assert!(refused.text.contains("value=\"Spring league\"") && refused.text.contains("bob@example.org"));
    assert!(refused.text.contains("value=\"days_per_move days=5\""), "the clock comes back");
    let bad_line = op
        .post("/desk/tournaments/new", &[("csrf", &csrf), ("name", "X"), ("variant", "chess"), ("players", "Ann")])
        .await;
    assert_eq!(bad_line.status, 400);
    assert!(text_of(&bad_line, "problem").contains("is not `Name &lt;address&gt;`"), "{}", bad_line.text);
    let bad_clock = op
        .post(
            "/desk/tournaments/new",
            &[
                ("csrf", &csrf),
                ("name", "X"),
                ("variant", "chess"),
                ("clock", "weekly"),
                ("players", "Ann <ann@example.org>\nBob <bob@example.org>"),
            ],
        )
        .await;
    assert_eq!(bad_clock.status, 400);
    assert!(text_of(&bad_clock, "problem").contains("weekly"), "{}", bad_clock.text);

    // Created by the form: four players, leave capped, double round.
    let made = op
        .post(
            "/desk/tournaments/new",
            &[
                ("csrf", &csrf),
                ("name", "Club championship"),
                ("variant", "chess"),
                ("clock", "days_per_move days=3"),
                ("leave", "capped"),
                ("leave_days", "10"),
                ("spectator_delay", "1"),
                ("round", "double"),
                ("start", "all"),
                ("ends_at", "2027-06-30"),
                (
                    "players",
                    "Ann <ann@example.org>\nBob <bob@example.org>\nCid <cid@example.org>\nDee <dee@example.org>",
                ),
            ],
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    assert!(made.text.contains("with 12 games") && made.text.contains("id=\"tokens\""), "{}", made.text);
    let t = created_id(&made);
    let api: Value = s.get(&format!("/api/tournaments/{t}"), None).await.ok(200);
    assert_eq!((api["double"].as_bool(), api["games"].as_array().unwrap().len()), (Some(true), 12));
    assert_eq!(api["ends_at"].as_str().map(|e| e.starts_with("2027-06-30")), Some(true));
    let other = super::two_player_cup(&s, "Blitz cup").await;

    // The list and its filters.
    let list = op.get("/desk/tournaments").await;
    assert!(list.text.contains(&t) && list.text.contains(&other), "{}", list.text);
    let found = op.get("/desk/tournaments?q=cid").await;
    assert!(found.text.contains(&t) && !found.text.contains(&other), "{}", found.text);
    let finished = op.get("/desk/tournaments?status=finished").await;
    assert!(finished.text.contains("No tournaments match these filters"), "{}", finished.text);

    // The admin view: players, standings, games linking to the desk.
    let view = op.get(&format!("/desk/tournaments/{t}")).await;
    assert_eq!(view.status, 200, "{}", view.text);
    assert!(view.text.contains("cid@example.org") && view.text.contains("id=\"standings\""), "{}", view.text);
    // The leave policy: in the JSON, on the desk's page and on the public page.
    assert_eq!(api["leave"], json!({"capped_days": 10}), "{api}");
    assert_eq!(text_of(&view, "leave"), "leave capped at 10 days a year", "{}", view.text);
    let public = op.get(&format!("/tournaments/{t}")).await;
    assert_eq!(text_of(&public, "leave"), "leave capped at 10 days a year", "{}", public.text);
    let other_api: Value = s.get(&format!("/api/tournaments/{other}"), None).await.ok(200);
    assert_eq!(other_api["leave"], "allowed", "no policy given: leave allowed");
    let first_game = api["games"][0]["game"].as_str().unwrap();
    assert!(view.text.contains(&format!("href=\"/desk/games/{first_game}\"")), "{}", view.text);

    // Withdraw: asked first, done once confirmed (no game finished: all cancelled).
    let ask = op.post(&format!("/desk/tournaments/{t}/withdraw"), &[("csrf", &csrf), ("player", "3")]).await;
    assert!(ask.text.contains("Please confirm") && ask.text.contains("withdraw Dee"), "{}", ask.text);
    let api: Value = s.get(&format!("/api/tournaments/{t}"), None).await.ok(200);
    assert_eq!(api["players"][3]["withdrawn_at"], Value::Null, "nothing happens before the confirmation");
    let done = op
        .post(&format!("/desk/tournaments/{t}/withdraw"), &[("csrf", &csrf), ("player", "3"), ("confirm", "yes")])
        .await;
    assert!(done.status == 200 && done.text.contains("Dee has withdrawn"), "{}", done.text);
    let api: Value = s.get(&format!("/api/tournaments/{t}"), None).await.ok(200);
    assert!(api["players"][3]["withdrawn_at"].is_string());
    assert_eq!(api["cancelled"], 6, "{api}");

    // Adjudicate an unfinished game through the confirmation.
    let game = api["games"].as_array().unwrap().iter().find(|g| g["status"] == "running").unwrap()["game"]
        .as_str()
        .unwrap()
        .to_owned();
    let field = format!("r_{game}");
    let ask = op
        .post(
            &format!("/desk/tournaments/{t}/adjudicate"),
            &[("csrf", &csrf), (&field, "draw"), ("reason", "end of season")],
        )
        .await;
    assert!(ask.text.contains(&format!("game {game} as &quot;draw&quot;")), "{}", ask.text);
    let done = op
        .post(
            &format!("/desk/tournaments/{t}/adjudicate"),
            &[("csrf", &csrf), (&field, "draw"), ("reason", "end of season"), ("confirm", "yes")],
        )
        .await;
    assert!(done.text.contains("1 game(s)"), "{}", done.text);
    assert_eq!(s.game(&game, None).await["outcome"]["reason"], "adjudicated");

    // A director: named by the operator, token shown once.
    let named = op
        .post(&format!("/desk/tournaments/{t}/director"), &[("csrf", &csrf), ("name", "Tess"), ("confirm", "yes")])
        .await;
    let token = text_of(&named, "director-token");
    assert!(token.len() > 20, "{}", named.text);
    assert!(!op.get(&format!("/desk/tournaments/{t}")).await.text.contains(&token), "shown once only");
    let mut d = Browser::new(&s);
    assert_eq!(d.post("/desk/sign-in", &[("token", &token)]).await.status, 303);
    let mine = d.get("/desk/tournaments").await;
    assert!(mine.text.contains(&t) && !mine.text.contains(&other), "{}", mine.text);
    let refused = d.get(&format!("/desk/tournaments/{other}")).await;
    assert_eq!(refused.status, 403, "{}", refused.text);
    let why = text_of(&refused, "desk-error");
    assert!(why.contains(&format!("tournament {t} only")), "{}", refused.text);
    // Worded for the tournament's page, not for a game's.
    assert!(
        why.contains(&format!(
            "sign in at the desk with the operator token or with a director token of tournament {other}"
        )),
        "{why}"
    );
    assert!(!why.contains("the game belongs to"), "{why}");
    let dpage = d.get("/desk").await;
    assert!(dpage.text.contains("csrf"), "{} {}", dpage.status, dpage.text);
    let dcsrf = dpage.csrf();
    assert_eq!(
        d.post(&format!("/desk/tournaments/{other}/withdraw"), &[("csrf", &dcsrf), ("player", "0")]).await.status,
        403
    );
    assert_eq!(d.get("/desk/tournaments/new").await.status, 403);
    let no_naming = d.post(&format!("/desk/tournaments/{t}/director"), &[("csrf", &dcsrf), ("name", "Mo")]).await;
    assert_eq!(no_naming.status, 403, "{}", no_naming.text);
    assert!(!d.get(&format!("/desk/tournaments/{t}")).await.text.contains("Name a director"));
    // A form without the CSRF token acts on nothing.
    let forged = op.post(&format!("/desk/tournaments/{t}/withdraw"), &[("player", "0"), ("confirm", "yes")]).await;
    assert_eq!(forged.status, 403);
    s.shut_down().await;
}

#[tokio::test]
async fn the_desk_shows_who_answered_an_invitation_and_starts_play() {
    let s = Server::start().await;
    let (mut op, csrf) = signed_in_operator(&s).await;
    let made = op
        .post(
            "/desk/tournaments/new",
            &[
                ("csrf", &csrf),
                ("name", "Invited league"),
                ("variant", "chess"),
                ("players", "Ann <ann@example.org>\nBob <bob@example.org>\nCid <cid@example.org>"),
                ("invite", "1"),
            ],
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    assert!(made.text.contains("have their invitations"), "{}", made.text);
    let t = created_id(&made);
    let view = op.get(&format!("/desk/tournaments/{t}")).await;
    assert!(view.text.contains("<th>Invitation</th>") && view.text.contains("id=\"start\""), "{}", view.text);
    assert_eq!(view.text.matches("class=\"answer\">invited").count(), 3, "{}", view.text);
    // Bob's place goes to Bea, then the director starts without waiting.
    let replaced = op
        .post(
            &format!("/desk/tournaments/{t}/replace"),
            &[("csrf", &csrf), ("player", "1"), ("name", "Bea"), ("email", "bea@example.org"), ("confirm", "yes")],
        )
        .await;
    assert!(replaced.text.contains("Bea &lt;bea@example.org&gt; is invited"), "{}", replaced.text);
    let view = op.get(&format!("/desk/tournaments/{t}")).await;
    assert!(view.text.contains("bea@example.org") && view.text.contains("before: Bob"), "{}", view.text);
    // The invitations again: the tool asks first, then invites whoever has none.
    assert!(view.text.contains("id=\"invite\""), "{}", view.text);
    let ask = op.post(&format!("/desk/tournaments/{t}/invite"), &[("csrf", &csrf)]).await;
    assert!(ask.text.contains("Please confirm") && ask.text.contains("who has no invitation yet"), "{}", ask.text);
    let invited = op.post(&format!("/desk/tournaments/{t}/invite"), &[("csrf", &csrf), ("confirm", "yes")]).await;
    assert_eq!(invited.status, 200, "{}", invited.text);
    assert!(
        invited
            .text
            .contains(&format!("Every player of tournament {t} has an invitation now; 3 have not answered yet")),
        "{}",
        invited.text
    );
    let ask = op.post(&format!("/desk/tournaments/{t}/start"), &[("csrf", &csrf)]).await;
    assert!(ask.text.contains("Please confirm"), "{}", ask.text);
    let started = op.post(&format!("/desk/tournaments/{t}/start"), &[("csrf", &csrf), ("confirm", "yes")]).await;
    assert!(started.text.contains("has started"), "{}", started.text);
    let late = op.post(&format!("/desk/tournaments/{t}/invite"), &[("csrf", &csrf), ("confirm", "yes")]).await;
    assert_eq!(late.status, 409, "a running tournament invites nobody: {}", late.text);
    let api: Value = s.get(&format!("/api/tournaments/{t}"), None).await.ok(200);
    assert_eq!((api["status"].as_str(), api["running"].as_u64()), (Some("running"), Some(3)), "{api}");

    // A game with invited seats, created at the desk, has its status page.
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
    assert!(at.starts_with("/desk/invited/"), "{at}");
    let page = op.get(&at).await;
    assert!(page.text.contains("gil@example.org") && page.text.contains("Waiting for the players"), "{}", page.text);
    let id = at.rsplit('/').next().unwrap().to_owned();
    let desk = op.get("/desk").await;
    assert!(
        desk.text.contains(&format!("href=\"/desk/invited/{id}\"")) && desk.text.contains("Gil: invited, Hal: invited"),
        "the desk lists the invited game waiting: {}",
        desk.text
    );
    let started = op.post(&format!("/desk/invited/{id}/start"), &[("csrf", &csrf), ("confirm", "yes")]).await;
    assert!(started.text.contains("has started"), "{}", started.text);
    let page = op.get(&at).await;
    assert!(page.text.contains("Started: the game is"), "{}", page.text);
    assert!(!op.get("/desk").await.text.contains("id=\"invited\""), "a started game waits no more");
    s.shut_down().await;
}

/// The operator in Chromium: creates a tournament by the form, sees it
/// listed, withdraws a player through the confirmation, names a director;
/// the director signs in, sees only its tournament, and another tournament's
/// page is a clear 403.
#[tokio::test]
async fn an_operator_runs_a_tournament_at_the_desk_in_chromium() {
    let s = Server::start().await;
    let other = super::two_player_cup(&s, "Other cup").await;
    let browser = super::chromium_operator(&s).await;
    browser.click("#to-tournaments").await;
    browser.wait_for_text("Other cup").await;
    browser.click("a[href='/desk/tournaments/new']").await;
    browser.wait_for_text("Create a tournament").await;
    browser
        .script(
            "document.querySelector('#t-name').value = 'Autumn round robin';
             document.querySelector('#t-clock').value = 'days_per_move days=4';
             document.querySelector('#t-players').value = arguments[0];",
            json!(["Ann <ann@example.org>\nBob <bob@example.org>\nCid <cid@example.org>"]),
        )
        .await;
    browser.click("#create-tournament").await;
    browser.wait_for_text("was created with 3 games").await;
    browser.click("#to-tournament").await;
    browser.wait_for_text("Autumn round robin").await;
    let text = browser.text().await;
    assert!(text.contains("bob@example.org") && text.contains("Crosstable"), "{text}");
    browser.click("#player-1 .withdraw button").await;
    browser.wait_for_text("Please confirm").await;
    assert!(browser.text().await.contains("withdraw Bob"));
    browser.screenshot("desk-tournament-withdraw").await;
    browser.click("#confirm").await;
    browser.wait_for_text("Bob has withdrawn").await;
    browser.click("#to-tournament").await;
    browser.wait_for_text("Autumn round robin").await;
    let state = browser.element("#player-1 .state").await;
    assert!(browser.text().await.contains("withdrawn"), "{state}");
    browser.script("document.querySelector('#director-name').value = 'Tess';", json!([])).await;
    browser.click("#name-director button").await;
    browser.wait_for_text("Please confirm").await;
    browser.click("#confirm").await;
    browser.wait_for_text("directs tournament").await;
    let token = browser
        .script("return document.querySelector('#director-token').textContent;", json!([]))
        .await
        .as_str()
        .unwrap()
        .to_owned();
    let t = browser
        .script("return document.querySelector('#to-tournament').getAttribute('href');", json!([]))
        .await
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();

    // The director, in the same browser after the operator's cookie is gone.
    browser.clear_cookies().await;
    browser.open(&format!("{}/desk", s.base)).await;
    browser.wait_for_text("Operator or director token").await;
    browser.script("document.querySelector('#token').value = arguments[0];", json!([token])).await;
    browser.click("#desk-sign-in").await;
    browser.wait_for_text("director Tess").await;
    browser.open(&format!("{}/desk/tournaments", s.base)).await;
    browser.wait_for_text("Tournaments").await;
    let text = browser.text().await;
    assert!(text.contains(&t) && !text.contains(&other) && !text.contains("Other cup"), "{text}");
    browser.open(&format!("{}/desk/tournaments/{other}", s.base)).await;
    browser.wait_for_text("Not done").await;
    let text = browser.text().await;
    assert!(text.contains(&format!("for tournament {t} only")), "{text}");
    browser.screenshot("desk-tournament-refused").await;
    s.shut_down().await;
}
