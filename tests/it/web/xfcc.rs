//! The Xfcc door (issue 34) over a real socket: suds (the SOAP client Lucas
//! Chess uses; `scripts/test` installs it into `target/python`), built from the
//! steward's own WSDL, plays a chess game and a Fairschach game; the exact
//! request bytes Scid sends are posted with reqwest; the games are read back
//! over HTTP and in the board mails of the spool.

use crate::support as common;

use std::io::Write;

use common::{Server, eventually, parse_mail, spool_files};
use serde_json::{Value, json};

/// The suds side: runs the steps it reads (JSON) against the WSDL at argv[1]
/// and prints what each answered: `{"games": [...]}`, `{"result": code}` or
/// `{"fault": faultstring}`.
const SUDS: &str = r#"
import json, sys
from suds.client import Client
from suds import WebFault
client = Client(sys.argv[1] + "?wsdl", cache=None)
def plain(v):
    if v is None or isinstance(v, (bool, int)):
        return v
    return str(v)
out = []
for step in json.load(sys.stdin):
    try:
        if step["op"] == "GetMyGames":
            r = client.service.GetMyGames(step["username"], step["password"])
            games = [] if not r else [{k: plain(v) for k, v in dict(g).items()} for g in r.XfccGame]
            out.append({"games": games})
        else:
            r = client.service.MakeAMove(
                step["username"], step["password"], step["gameId"],
                step.get("resign", False), step.get("acceptDraw", False), step.get("movecount", 0),
                step.get("myMove", ""), step.get("offerDraw", False), step.get("claimDraw", False),
                step.get("myMessage", ""))
            out.append({"result": str(r)})
    except WebFault as e:
        out.append({"fault": str(e.fault.faultstring)})
print(json.dumps(out))
"#;

/// Runs `steps` through suds against `server`'s Xfcc service.
fn suds(server: &Server, steps: &Value) -> Vec<Value> {
    let local = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("python");
    let mut child = std::process::Command::new("python3")
        .args(["-c", SUDS, &format!("{}/xfcc/xfccbasic.asmx", server.base)])
        .env("PYTHONPATH", &local)
        .env("NO_PROXY", "*")
        .env("no_proxy", "*")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs (scripts/test installs it)");
    child.stdin.take().unwrap().write_all(steps.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the suds client failed (scripts/test installs suds into target/python; run scripts/test): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
}

/// The one answer of one step.
fn one(server: &Server, step: Value) -> Value {
    suds(server, &json!([step])).remove(0)
}

/// A MakeAMove step.
fn mv(user: &(String, String), game: u32, movecount: u32, text: &str) -> Value {
    json!({"op": "MakeAMove", "username": user.0, "password": user.1, "gameId": game, "movecount": movecount, "myMove": text})
}

/// MakeAMove's code for `step`.
#[track_caller]
fn code(server: &Server, step: Value) -> String {
    let answer = one(server, step.clone());
    answer["result"].as_str().unwrap_or_else(|| panic!("no result for {step}: {answer}")).to_owned()
}

/// The player's games by suds, keyed by id.
fn my_games(server: &Server, user: &(String, String)) -> Vec<Value> {
    let a = one(server, json!({"op": "GetMyGames", "username": user.0, "password": user.1}));
    a["games"].as_array().unwrap_or_else(|| panic!("GetMyGames failed: {a}")).clone()
}

fn game_of(games: &[Value], id: u32) -> Value {
    games.iter().find(|g| g["id"] == json!(id)).unwrap_or_else(|| panic!("game {id} not in {games:?}")).clone()
}

/// The Xfcc integer of a game id (its Crockford digits as a number).
fn numeric(id: &str) -> u32 {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    id.bytes().fold(0, |n, b| n * 32 + ALPHABET.iter().position(|&a| a == b).unwrap() as u32)
}

/// Creates a game of Alice (white) and Bob (black): its id and the two tokens.
async fn create(server: &Server, variant: &str) -> (String, String, String) {
    create_with(server, variant, json!({})).await
}

/// The same with the game's options.
async fn create_with(server: &Server, variant: &str, options: Value) -> (String, String, String) {
    let seats = json!([{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]);
    let body = json!({"variant": variant, "options": options, "seats": seats});
    let created = server.post_json("/api/games", None, &body).await.ok(201);
    let token = |i: usize| created["tokens"][i]["token"].as_str().unwrap().to_owned();
    (created["game"]["id"].as_str().unwrap().to_owned(), token(0), token(1))
}

async fn put_password(server: &Server, token: &str, body: Value) -> Value {
    let a = server
        .client
        .put(format!("{}/api/me/program-password", server.base))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = a.status().as_u16();
    let v: Value = a.json().await.unwrap();
    assert_eq!(status, 200, "{v}");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suds_plays_chess_and_fairschach_over_xfcc() {
    let server = Server::start().await;
    let (chess, chess_w, chess_b) = create(&server, "chess").await;
    let (fs, fs_w, fs_b) = create(&server, "fairschach").await;
    let (chess_n, fs_n) = (numeric(&chess), numeric(&fs));

    // Passwords for programs: Alice chooses hers with her chess token, then adds
    // her Fairschach game with that game's token; Bob has the steward choose one.
    let a = put_password(&server, &chess_w, json!({"password": "alice's long password"})).await;
    assert_eq!(a["games"], json!([chess]));
    let a = put_password(&server, &fs_w, json!({"add_games": true})).await;
    assert_eq!(a["games"], json!([chess, fs]));
    assert!(a.get("password").is_none(), "a chosen password is never echoed: {a}");
    let b = put_password(&server, &chess_b, json!({"generate": true})).await;
    let bob_password = b["password"].as_str().unwrap().to_owned();
    put_password(&server, &fs_b, json!({"add_games": true})).await;
    let alice = ("alice@example.org".to_owned(), "alice's long password".to_owned());
    let bob = ("Bob@Example.org".to_owned(), bob_password);
    // Too short, and the operator token is no credential here.
    let short = server
        .client
        .put(format!("{}/api/me/program-password", server.base))
        .bearer_auth(&chess_w)
        .json(&json!({"password": "short"}))
        .send()
        .await
        .unwrap();
    assert_eq!(short.status().as_u16(), 400);
    let op = server
        .client
        .get(format!("{}/api/me/program-password", server.base))
        .bearer_auth(&server.operator)
        .send()
        .await
        .unwrap();
    assert_eq!(op.status().as_u16(), 401);

    // Both games listed, with the fields clients read.
    let games = my_games(&server, &alice);
    assert_eq!(games.len(), 2, "{games:?}");
    let g = game_of(&games, chess_n);
    assert_eq!(g["white"], "Alice");
    assert_eq!(g["black"], "Bob");
    assert_eq!(g["myTurn"], true);
    assert_eq!(g["hasWhite"], true);
    assert_eq!(g["result"], "Ongoing");
    assert_eq!(g["variant"], "chess");
    assert_eq!(g["setup"], false);
    assert_eq!(g["drawOffered"], false);
    assert_eq!(g["gameLink"], format!("{}/games/{chess}", server.base));
    let g = game_of(&games, fs_n);
    assert_eq!(g["variant"], "fairschach");
    assert_eq!(g["myTurn"], true);
    let g = game_of(&my_games(&server, &bob), chess_n);
    assert_eq!((g["myTurn"].clone(), g["hasWhite"].clone()), (json!(false), json!(false)));

    // A wrong password: a fault for GetMyGames, the code for MakeAMove.
    let wrong = ("alice@example.org".to_owned(), "not the password".to_owned());
    let f = one(&server, json!({"op": "GetMyGames", "username": wrong.0, "password": wrong.1}));
    assert!(f["fault"].as_str().unwrap().contains("AuthenticationFailed"), "{f}");
    assert_eq!(code(&server, mv(&wrong, chess_n, 1, "e4")), "AuthenticationFailed");
    // The operator token is never a program password.
    let op = ("alice@example.org".to_owned(), server.operator.clone());
    assert_eq!(code(&server, mv(&op, chess_n, 1, "e4")), "AuthenticationFailed");

    // Chess: movecount is the full-move number, the same for White's and Black's move.
    assert_eq!(code(&server, mv(&bob, chess_n, 1, "e5")), "NotYourTurn");
    assert_eq!(code(&server, mv(&alice, 999_999, 1, "e4")), "InvalidGameID");
    assert_eq!(code(&server, mv(&alice, chess_n, 1, "e4")), "Success");
    assert_eq!(code(&server, mv(&bob, chess_n, 2, "e5")), "InvalidMoveNumber");
    assert_eq!(code(&server, mv(&bob, chess_n, 1, "e5")), "Success");
    let steps = json!([
        mv(&alice, chess_n, 2, "Nf3"),
        mv(&bob, chess_n, 2, "Nc6"),
        mv(&alice, chess_n, 3, "d3"),
        mv(&bob, chess_n, 3, "Nf6")
    ]);
    assert!(suds(&server, &steps).iter().all(|a| a["result"] == "Success"));
    // Two knights reach d2; the king cannot go to e3; no move at all.
    assert_eq!(code(&server, mv(&alice, chess_n, 4, "Nd2")), "MoveIsAmbigous");
    assert_eq!(code(&server, mv(&alice, chess_n, 4, "Ke3")), "InvalidMove");
    assert_eq!(code(&server, mv(&alice, chess_n, 4, "xyz")), "InvalidMove");
    // No draw offered yet; then a move with a draw offer, and its acceptance.
    let accept = |u: &(String, String)| json!({"op": "MakeAMove", "username": u.0, "password": u.1, "gameId": chess_n, "acceptDraw": true});
    assert_eq!(code(&server, accept(&bob)), "NoDrawWasOffered");
    let mut offer = mv(&alice, chess_n, 4, "Nbd2");
    offer["offerDraw"] = json!(true);
    assert_eq!(code(&server, offer), "Success");
    let g = game_of(&my_games(&server, &bob), chess_n);
    assert_eq!(g["drawOffered"], true);
    assert_eq!(g["myTurn"], true);
    assert_eq!(g["moves"], "1. e4 e5 2. Nf3 Nc6 3. d3 Nf6 4. Nbd2");
    assert_eq!(code(&server, accept(&bob)), "Success");
    let g = game_of(&my_games(&server, &alice), chess_n);
    assert_eq!(g["result"], "Draw");
    assert_eq!(g["myTurn"], false);
    assert_eq!(code(&server, mv(&alice, chess_n, 5, "Be2")), "NotYourTurn");

    // The same game by HTTP: the moves and the draw.
    let view = server.game(&chess, Some(&chess_w)).await;
    assert_eq!(view["outcome"]["result"], "1/2-1/2", "{view}");
    let played: Vec<&str> =
        view["history"].as_array().unwrap().iter().map(|t| t["moves"][0]["move"].as_str().unwrap()).collect();
    assert_eq!(played, ["e4", "e5", "Nf3", "Nc6", "d3", "Nf6", "Nbd2"]);
    // And a board mail of the move Alice sent by Xfcc, as one sent by HTTP makes.
    let spool = server.config.data_dir.join("spool");
    eventually("a board mail naming 4. Nbd2", || {
        spool_files(&spool)
            .into_iter()
            .filter(|(name, _)| name.starts_with(&chess))
            .find(|(_, bytes)| parse_mail(bytes).body.contains("Nbd2"))
    })
    .await;

    // Fairschach: both owe a move of the pair; myTurn stays true for the one
    // that has not sent it yet.
    assert_eq!(code(&server, mv(&alice, fs_n, 1, "e4")), "Success");
    assert_eq!(game_of(&my_games(&server, &alice), fs_n)["myTurn"], false);
    assert_eq!(game_of(&my_games(&server, &bob), fs_n)["myTurn"], true);
    assert_eq!(code(&server, mv(&alice, fs_n, 1, "d4")), "NotYourTurn");
    assert_eq!(code(&server, mv(&bob, fs_n, 1, "d5")), "Success");
    let g = game_of(&my_games(&server, &alice), fs_n);
    assert_eq!(g["myTurn"], true);
    assert_eq!(g["moves"], "1. e4 d5");
    assert_eq!(code(&server, mv(&alice, fs_n, 1, "exd5")), "InvalidMoveNumber");
    // A resignation.
    let resign = json!({"op": "MakeAMove", "username": bob.0, "password": bob.1, "gameId": fs_n, "resign": true});
    assert_eq!(code(&server, resign), "Success");
    assert_eq!(game_of(&my_games(&server, &alice), fs_n)["result"], "WhiteWins");
    let view = server.game(&fs, Some(&fs_b)).await;
    assert_eq!(view["outcome"]["result"], "1-0", "{view}");
    assert_eq!(view["outcome"]["reason"], "resignation", "{view}");
}

/// The request bytes Scid vs. PC and scidCommunity send (their xfcc.tcl,
/// after the Xfcc specification): SOAPAction quoted, the operation in the
/// service's default namespace or with the `xfcc:` prefix and unprefixed
/// parameters, or no SOAPAction at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scid_request_bytes_are_understood() {
    let server = Server::start().await;
    let (chess, white, _) = create_with(&server, "chess", json!({"clock": {"kind": "days_per_move", "days": 3}})).await;
    put_password(&server, &white, json!({"password": "scid-password-1"})).await;
    let url = format!("{}/xfcc/xfccbasic.asmx", server.base);
    let post = |body: String, action: Option<&'static str>| {
        let mut req = server.client.post(&url).header("Content-Type", "text/xml; charset=utf-8").body(body);
        if let Some(a) = action {
            req = req.header("SOAPAction", a);
        }
        req.send()
    };
    let get_my_games = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<soap:Envelope xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\r\n  <soap:Body>\r\n    <GetMyGames xmlns=\"http://www.bennedik.com/webservices/XfccBasic\">\r\n      <username>alice@example.org</username>\r\n      <password>scid-password-1</password>\r\n    </GetMyGames>\r\n  </soap:Body>\r\n</soap:Envelope>\r\n".to_owned();
    let a =
        post(get_my_games.clone(), Some("\"http://www.bennedik.com/webservices/XfccBasic/GetMyGames\"")).await.unwrap();
    assert_eq!(a.status().as_u16(), 200);
    let text = a.text().await.unwrap();
    assert!(text.contains("<GetMyGamesResult><XfccGame>"), "{text}");
    assert!(text.contains(&format!("<id>{}</id>", numeric(&chess))), "{text}");
    assert!(text.contains("<myTurn>true</myTurn>"), "{text}");
    // Three days a move: the clock running for White, Black's at three days.
    // (3 days less the seconds since the game began: 2 d 23 h, or 3 d within its first second)
    assert!(
        text.contains("<daysPlayer>2</daysPlayer><hoursPlayer>23</hoursPlayer>")
            || text.contains("<daysPlayer>3</daysPlayer><hoursPlayer>0</hoursPlayer><minutesPlayer>0</minutesPlayer>"),
        "{text}"
    );
    assert!(text.contains("<daysOpponent>3</daysOpponent><hoursOpponent>0</hoursOpponent>"), "{text}");
    // No SOAPAction at all: the first element in the Body decides.
    let a = post(get_my_games, None).await.unwrap();
    assert!(a.text().await.unwrap().contains("<GetMyGamesResult>"));

    let make_a_move = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xfcc=\"http://www.bennedik.com/webservices/XfccBasic\">\n<soap:Body>\n<xfcc:MakeAMove>\n<username>alice@example.org</username>\n<password>scid-password-1</password>\n<gameId>{}</gameId>\n<resign>false</resign>\n<acceptDraw>false</acceptDraw>\n<movecount>1</movecount>\n<myMove>d4</myMove>\n<offerDraw>false</offerDraw>\n<claimDraw>false</claimDraw>\n<myMessage></myMessage>\n</xfcc:MakeAMove>\n</soap:Body>\n</soap:Envelope>\n",
        numeric(&chess)
    );
    let a = post(make_a_move, Some("http://www.bennedik.com/webservices/XfccBasic/MakeAMove")).await.unwrap();
    assert_eq!(a.status().as_u16(), 200);
    let text = a.text().await.unwrap();
    assert!(text.contains("<MakeAMoveResult>Success</MakeAMoveResult>"), "{text}");
    let view = server.game(&chess, None).await;
    assert_eq!(view["history"][0]["moves"][0]["move"], "d4", "{view}");

    // Malformed XML, an unknown operation, a DTD: SOAP Faults that say why.
    for (body, why) in [
        ("<soap:Envelope><soap:Body>", "not well-formed"),
        ("<Envelope><Body><GetMyGame/></Body></Envelope>", "no operation"),
        ("<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"a\">]><Envelope/>", "not well-formed"),
        ("", "empty"),
        (
            "<Envelope><Body><MakeAMove><username>a@b</username><resign>maybe</resign></MakeAMove></Body></Envelope>",
            "resign is a boolean",
        ),
    ] {
        let a = post(body.to_owned(), None).await.unwrap();
        assert_eq!(a.status().as_u16(), 500, "{body}");
        let text = a.text().await.unwrap();
        assert!(text.contains("<faultstring>") && text.contains(why), "{body}: {text}");
    }
    // A body beyond the door's bound: a Fault; beyond the router's, a 413.
    let a = post("x".repeat(20 * 1024), None).await.unwrap();
    assert_eq!(a.status().as_u16(), 500);
    assert!(a.text().await.unwrap().contains("larger than 16 KiB"));
    let a = post("x".repeat(65 * 1024), None).await.unwrap();
    assert_eq!(a.status().as_u16(), 413);

    // The WSDL names both operations and the service's address.
    let wsdl = server.client.get(format!("{url}?wsdl")).send().await.unwrap().text().await.unwrap();
    assert!(wsdl.contains("name=\"MakeAMove\"") && wsdl.contains("name=\"XfccGame\""));
    assert!(wsdl.contains(&format!("location=\"{url}\"")));
}

/// Failed logins are limited per address: past the limit even the right
/// password is refused for the hour.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_logins_are_limited_per_address() {
    let server = Server::start().await;
    let (_, white, _) = create(&server, "chess").await;
    put_password(&server, &white, json!({"password": "the right password"})).await;
    let step = |p: &str| json!({"op": "GetMyGames", "username": "alice@example.org", "password": p});
    let steps: Vec<Value> =
        (0..fairsteward::steward::FAILED_LOGINS_PER_ADDRESS).map(|_| step("wrong password")).collect();
    for a in suds(&server, &json!(steps)) {
        assert!(a["fault"].as_str().unwrap().contains("AuthenticationFailed"), "{a}");
    }
    let a = one(&server, step("the right password"));
    assert!(a["fault"].as_str().unwrap().contains("too many failed logins"), "{a}");
}

/// The form on `/me`: a signed-in player has the steward choose a password,
/// sees it once, and a program logs in with it; the password opens the games
/// the browser signed in for only (issue 29).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_page_sets_a_program_password() {
    use common::web::{Browser, sign_in_link};
    let server = Server::start().await;
    let (chess, _, _) = create(&server, "chess").await;
    let (other, _, _) = create(&server, "chess").await;
    let spool = server.config.data_dir.join("spool");
    let link = sign_in_link(&spool, &chess, "white").await;
    let mut b = Browser::new(&server);
    assert_eq!(b.open_link(&link).await.status, 200);
    let me = b.get("/me").await;
    assert!(me.text.contains("Programs (Xfcc)") && me.text.contains("xfccbasic.asmx"), "{}", me.text);
    let csrf = me.csrf();
    // Too short: said so, nothing set.
    let p = b.post("/me/program-password", &[("csrf", &csrf), ("action", "set"), ("password", "short")]).await;
    assert_eq!(p.status, 400, "{}", p.text);
    assert!(p.text.contains("10 to 128 characters"), "{}", p.text);
    let p = b.post("/me/program-password", &[("csrf", &csrf), ("action", "generate")]).await;
    assert_eq!(p.status, 200, "{}", p.text);
    let at = p.text.find("id=\"program-password-new\">").expect("the chosen password, shown once") + 26;
    let password = p.text[at..].split('<').next().unwrap().to_owned();
    assert_eq!(password.len(), 24, "{password}");
    // Shown once: the page read again does not show it.
    assert!(!b.get("/me").await.text.contains(&password));
    let alice = ("alice@example.org".to_owned(), password);
    let games = my_games(&server, &alice);
    assert_eq!(games.len(), 1, "only the game this browser signed in for: {games:?}");
    assert_eq!(games[0]["id"], json!(numeric(&chess)));
    assert_eq!(code(&server, mv(&alice, numeric(&other), 1, "e4")), "NotYourGame");
    // Removed: programs are out.
    let p = b.post("/me/program-password", &[("csrf", &csrf), ("action", "remove")]).await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert_eq!(code(&server, mv(&alice, numeric(&chess), 1, "e4")), "AuthenticationFailed");
}

/// Failed logins are limited per client address too: after 30 from one
/// client within the hour (for any addresses), even a right login is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_logins_are_limited_per_client() {
    let server = Server::start().await;
    let (_, white, _) = create(&server, "chess").await;
    put_password(&server, &white, json!({"password": "the right password"})).await;
    let steps: Vec<Value> = (0..fairsteward::steward::FAILED_LOGINS_PER_CLIENT)
        .map(|i| json!({"op": "GetMyGames", "username": format!("guess{i}@example.org"), "password": "guess"}))
        .collect();
    for a in suds(&server, &json!(steps)) {
        assert!(a["fault"].as_str().unwrap().contains("AuthenticationFailed"), "{a}");
    }
    let a =
        one(&server, json!({"op": "GetMyGames", "username": "alice@example.org", "password": "the right password"}));
    assert!(a["fault"].as_str().unwrap().contains("too many failed logins"), "{a}");
}

/// Games whose variant writes no PGN (here Vierschach) are left out of
/// GetMyGames, and MakeAMove in them is `FeatureUnavailable` (docs/xfcc.md).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_without_a_pgn_form_are_left_out() {
    let server = Server::start().await;
    let seats = json!([
        {"name": "Alice", "email": "alice@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
        {"name": "Carol", "email": "carol@example.org"},
        {"name": "Dave", "email": "dave@example.org"},
    ]);
    let created = server.post_json("/api/games", None, &json!({"variant": "vierschach", "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let token = created["tokens"][0]["token"].as_str().unwrap();
    put_password(&server, token, json!({"password": "four players here"})).await;
    let alice = ("alice@example.org".to_owned(), "four players here".to_owned());
    assert_eq!(my_games(&server, &alice), Vec::<Value>::new());
    assert_eq!(code(&server, mv(&alice, numeric(&id), 1, "e4")), "FeatureUnavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_out_of_time_is_told_lost_on_time_and_fairschach_moves_are_checked() {
    let t0 = chrono::DateTime::parse_from_rfc3339("2026-03-02T12:00:00Z").unwrap().with_timezone(&chrono::Utc);
    let clock = fairsteward::clock::Clock::manual(t0);
    let server = Server::start_at(clock.clone()).await;
    let (chess, chess_w, chess_b) = create_with(&server, "chess", json!({"clock": "days_per_move days=3"})).await;
    let (fs, fs_w, fs_b) = create(&server, "fairschach").await;
    let (chess_n, fs_n) = (numeric(&chess), numeric(&fs));
    put_password(&server, &chess_w, json!({"password": "alice's long password"})).await;
    put_password(&server, &fs_w, json!({"add_games": true})).await;
    put_password(&server, &chess_b, json!({"password": "bob's long password!"})).await;
    put_password(&server, &fs_b, json!({"add_games": true})).await;
    let alice = ("alice@example.org".to_owned(), "alice's long password".to_owned());
    let bob = ("bob@example.org".to_owned(), "bob's long password!".to_owned());

    // Fairschach: an illegal and an ambiguous move of a pair, refused with the
    // codes clients test, and nothing of them kept.
    let steps = json!([
        mv(&alice, fs_n, 1, "Nf3"),
        mv(&bob, fs_n, 1, "Nc6"),
        mv(&alice, fs_n, 2, "d3"),
        mv(&bob, fs_n, 2, "Nf6")
    ]);
    assert!(suds(&server, &steps).iter().all(|a| a["result"] == "Success"));
    assert_eq!(code(&server, mv(&alice, fs_n, 3, "Nd2")), "MoveIsAmbigous");
    assert_eq!(code(&server, mv(&alice, fs_n, 3, "Ke3")), "InvalidMove");
    assert_eq!(code(&server, mv(&alice, fs_n, 3, "Qxh7")), "InvalidMove");
    let view = server.game(&fs, Some(&fs_w)).await;
    assert_eq!(view["turn"], 3, "{view}");
    assert!(view["seats"][0].get("pending_move").is_none(), "no refused move is held: {view}");
    assert_eq!(code(&server, mv(&alice, fs_n, 3, "Nbd2")), "Success");

    // Chess with three days a move: Alice moves, Bob lets his time run out.
    assert_eq!(code(&server, mv(&alice, chess_n, 1, "e4")), "Success");
    let late = t0 + chrono::TimeDelta::days(10);
    clock.set(late);
    common::sweep(&server.config.data_dir, late);
    let view = server.game(&chess, None).await;
    assert_eq!(view["outcome"]["result"], "1-0", "{view}");
    assert_eq!(code(&server, mv(&bob, chess_n, 1, "e5")), "LostOnTime");
    // The winner is not told it lost on time; the game is simply over.
    assert_eq!(code(&server, mv(&alice, chess_n, 2, "Nf3")), "NotYourTurn");
    let g = game_of(&my_games(&server, &bob), chess_n);
    assert_eq!((g["result"].clone(), g["myTurn"].clone()), (json!("WhiteWins"), json!(false)), "{g}");
}
