//! The Xfcc door (issue 34): `/xfcc/xfccbasic.asmx`, the SOAP 1.1 service
//! correspondence programs (Scid vs. PC, scidCommunity and others) use to fetch
//! their games and send moves, as ICCF and SchemingMind serve it
//! (namespace `http://www.bennedik.com/webservices/XfccBasic`).
//!
//! Two operations: `GetMyGames(username, password)` and
//! `MakeAMove(username, password, gameId, resign, acceptDraw, movecount,
//! myMove, offerDraw, claimDraw, myMessage)`; the WSDL at `?wsdl`
//! (`xfcc.wsdl`, written by hand). Login is the player's registered address
//! and their program password (src/steward/program_password.rs), never the
//! operator token.
//!
//! Lenient as real clients need: the operation is the first element in the
//! SOAP body whatever `SOAPAction` says (Scid sends none), any namespace
//! prefix or none; the answers' `GetMyGamesResult` and `MakeAMoveResult` carry
//! no prefix (Scid reads them with regular expressions). A move goes through
//! the same steward calls as the HTTP API's (`submit_move`, `resign`,
//! `draw`): the same receipt, transcript entries and board mails.
//!
//! The games whose variant writes PGN are listed (the rules decide: a
//! record with a PGN form); the others are left out, since a program could
//! not replay their moves (docs/xfcc.md). The body is
//! bounded ([`BODY_LIMIT`]), the XML reader refuses DTDs and stops at
//! [`NODES_LIMIT`] nodes, and malformed input gets a SOAP Fault saying what
//! was wrong.

use std::fmt::Write as _;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::listen::Peer;
use crate::rules::MoveError;
use crate::steward::{
    Credential, Door, DrawAction, GameView, LoginError, MoveRequest, ProgramLogin, Refusal, Steward, StewardError,
    Submission,
};

/// The service's namespace.
pub const NAMESPACE: &str = "http://www.bennedik.com/webservices/XfccBasic";

/// The path of the service.
pub const PATH: &str = "/xfcc/xfccbasic.asmx";

/// The largest request body: a MakeAMove with a message is well under 4 KiB.
pub const BODY_LIMIT: usize = 16 * 1024;

/// The most XML nodes a request may have.
pub const NODES_LIMIT: u32 = 500;

/// The longest text of one parameter, in bytes.
const MAX_FIELD_BYTES: usize = 2048;

/// The WSDL, with `{LOCATION}` for the service's address.
const WSDL: &str = include_str!("xfcc.wsdl");

/// The Crockford alphabet of game ids (src/ids.rs).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The door's routes.
pub(super) fn router() -> Router<Steward> {
    // The router's own limit (64 KiB) answers 413 beyond it; below it, a
    // body over BODY_LIMIT gets a SOAP Fault (see `soap`).
    Router::new().route(PATH, get(describe).post(soap))
}

/// A game id as Xfcc's integer: its six Crockford digits read as a number
/// (30 bits, so it fits the `int` clients expect).
pub fn numeric_id(id: &str) -> Option<u32> {
    if id.len() != 6 {
        return None;
    }
    id.bytes().try_fold(0u32, |n, b| {
        let d = ALPHABET.iter().position(|&a| a == b.to_ascii_uppercase())?;
        Some(n * 32 + d as u32)
    })
}

/// The game id of an Xfcc integer.
pub fn game_id(n: i64) -> Option<String> {
    if !(0..1 << 30).contains(&n) {
        return None;
    }
    let mut id = String::with_capacity(6);
    for shift in (0..6).rev() {
        id.push(ALPHABET[((n >> (5 * shift)) & 31) as usize] as char);
    }
    Some(id)
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 has no other control characters.
            c if c.is_control() && !matches!(c, '\n' | '\r' | '\t') => {}
            c => out.push(c),
        }
    }
    out
}

fn xml_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/xml; charset=utf-8")], body).into_response()
}

fn envelope(inner: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><soap:Body>{inner}</soap:Body></soap:Envelope>\n"
    )
}

/// A SOAP 1.1 Fault (HTTP 500, as SOAP 1.1 over HTTP has it).
fn fault(code: &str, text: &str) -> Response {
    xml_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        envelope(&format!(
            "<soap:Fault><faultcode>soap:{code}</faultcode><faultstring>{}</faultstring></soap:Fault>",
            escape(text)
        )),
    )
}

/// `GET /xfcc/xfccbasic.asmx?wsdl`: the WSDL; without `?wsdl`, a word on
/// what this address is.
async fn describe(State(steward): State<Steward>, RawQuery(query): RawQuery) -> Response {
    let location = format!("{}{PATH}", steward.public_url());
    if query.is_some_and(|q| q.eq_ignore_ascii_case("wsdl")) {
        return xml_response(StatusCode::OK, WSDL.replace("{LOCATION}", &escape(&location)));
    }
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!(
            "This is the steward's Xfcc service (SOAP 1.1, {NAMESPACE}): point your correspondence program (Scid vs. PC and others) at {location}, with your registered address as the user name and the password for programs you set on your page (/me). The WSDL is at {location}?wsdl.\n"
        ),
    )
        .into_response()
}

/// The request's operation and its parameters, by local name.
#[derive(Debug)]
struct Call {
    operation: String,
    params: Vec<(String, String)>,
}

impl Call {
    fn text(&self, name: &str) -> &str {
        self.params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map_or("", |(_, v)| v.trim())
    }

    fn flag(&self, name: &str) -> Result<bool, String> {
        match self.text(name) {
            "" | "false" | "0" => Ok(false),
            "true" | "1" => Ok(true),
            other => Err(format!("{name} is a boolean (true or false), not {other:?}")),
        }
    }
}

/// Reads a SOAP 1.1 envelope: the first element in its Body and that
/// element's child elements' texts.
fn parse(body: &[u8]) -> Result<Call, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the request is not UTF-8 XML".to_owned())?;
    if text.trim().is_empty() {
        return Err("the request is empty; send a SOAP 1.1 envelope with GetMyGames or MakeAMove in its Body".into());
    }
    let options = roxmltree::ParsingOptions { allow_dtd: false, nodes_limit: NODES_LIMIT, ..Default::default() };
    let doc = roxmltree::Document::parse_with_options(text, options)
        .map_err(|e| format!("the request is not well-formed XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "Envelope" {
        return Err(format!(
            "the request's root element is <{}>, not a SOAP <Envelope>; send a SOAP 1.1 envelope",
            root.tag_name().name()
        ));
    }
    let body = root
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == "Body")
        .ok_or("the SOAP envelope has no <Body>; put GetMyGames or MakeAMove in one")?;
    let op = body
        .children()
        .find(roxmltree::Node::is_element)
        .ok_or("the SOAP <Body> is empty; put GetMyGames or MakeAMove in it")?;
    let mut params = Vec::new();
    for p in op.children().filter(roxmltree::Node::is_element) {
        let value: String = p.descendants().filter(roxmltree::Node::is_text).filter_map(|t| t.text()).collect();
        if value.len() > MAX_FIELD_BYTES {
            return Err(format!("{} is longer than {MAX_FIELD_BYTES} bytes", p.tag_name().name()));
        }
        params.push((p.tag_name().name().to_owned(), value));
    }
    Ok(Call { operation: op.tag_name().name().to_owned(), params })
}

/// `POST /xfcc/xfccbasic.asmx`: dispatches on the first element in the Body.
async fn soap(
    State(steward): State<Steward>,
    peer: Option<axum::Extension<Peer>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let _ = headers; // SOAPAction is not read: some clients send none, or another.
    if body.len() > BODY_LIMIT {
        return fault(
            "Client",
            &format!(
                "the request is larger than {} KiB; a GetMyGames or MakeAMove is well under 4 KiB",
                BODY_LIMIT / 1024
            ),
        );
    }
    let call = match parse(&body) {
        Ok(c) => c,
        Err(why) => return fault("Client", &why),
    };
    let client = peer.map_or_else(|| "unknown".to_owned(), |p| p.client.to_string());
    match call.operation.as_str() {
        "GetMyGames" => get_my_games(&steward, &call, &client).await,
        "MakeAMove" => make_a_move(&steward, &call, &client).await,
        other => fault(
            "Client",
            &format!("the steward's Xfcc service has no operation {other:?}; it has GetMyGames and MakeAMove"),
        ),
    }
}

async fn login(steward: &Steward, call: &Call, client: &str) -> Result<ProgramLogin, LoginError> {
    steward.program_login(call.text("username"), call.text("password"), client).await
}

fn credential(login: &ProgramLogin) -> Credential {
    Credential::Session { address: login.player.clone(), seat: None, games: login.games.clone() }
}

// ---------------------------------------------------------------------------
// GetMyGames
// ---------------------------------------------------------------------------

async fn get_my_games(steward: &Steward, call: &Call, client: &str) -> Response {
    let login = match login(steward, call, client).await {
        Ok(l) => l,
        Err(LoginError::Failed) => {
            return fault(
                "Client",
                "AuthenticationFailed: the user name is your registered address, the password the one for programs you set on your page (/me)",
            );
        }
        Err(LoginError::TooMany) => {
            return fault("Client", "AuthenticationFailed: too many failed logins lately; wait an hour and try again");
        }
        Err(LoginError::Steward(e)) => return server_fault(&e),
    };
    let games = match steward.player_games(login.player.clone()).await {
        Ok(g) => g,
        Err(e) => return server_fault(&e),
    };
    let mut out = String::new();
    for g in games.iter().filter(|g| login.games.iter().any(|id| id.eq_ignore_ascii_case(&g.id))) {
        match game_xml(steward, &login, &g.id, &g.seats).await {
            Ok(Some(xml)) => out.push_str(&xml),
            Ok(None) => {}
            Err(e) => return server_fault(&e),
        }
    }
    xml_response(
        StatusCode::OK,
        envelope(&format!(
            "<GetMyGamesResponse xmlns=\"{NAMESPACE}\"><GetMyGamesResult>{out}</GetMyGamesResult></GetMyGamesResponse>"
        )),
    )
}

fn server_fault(e: &StewardError) -> Response {
    if let StewardError::Refused(r) = e {
        return fault("Client", &r.to_string());
    }
    tracing::error!(error = %e, "the Xfcc door could not answer");
    fault("Server", "ServerError: the steward could not answer now; try again later")
}

/// Splits `seconds` into whole days, hours and minutes (none below zero).
fn dhm(seconds: i64) -> (i64, i64, i64) {
    let s = seconds.max(0);
    (s / 86_400, s % 86_400 / 3600, s % 3600 / 60)
}

/// The movetext of a PGN: the tags dropped, and the result token at its end.
fn movetext(pgn: &str) -> String {
    let body: Vec<&str> = pgn.lines().filter(|l| !l.trim_start().starts_with('[')).collect();
    let mut text = body.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
    for result in ["*", "1-0", "0-1", "1/2-1/2"] {
        if let Some(rest) = text.strip_suffix(result) {
            text = rest.trim_end().to_owned();
            break;
        }
    }
    text
}

/// The value of a PGN tag.
fn pgn_tag<'p>(pgn: &'p str, name: &str) -> Option<&'p str> {
    pgn.lines().find_map(|l| {
        let rest = l.trim().strip_prefix('[')?.strip_prefix(name)?.strip_prefix(' ')?;
        rest.trim_end_matches(']').trim().strip_prefix('"')?.strip_suffix('"')
    })
}

/// Xfcc's result of a game: `Ongoing`, `WhiteWins`, `BlackWins`, `Draw`,
/// their `…Adjudicated` forms, `Cancelled`.
fn result_of(view: &GameView) -> &'static str {
    let Some(o) = &view.outcome else { return "Ongoing" };
    let adjudicated = o.reason.contains("adjudicat");
    if o.reason.contains("abort") {
        return "Cancelled";
    }
    match (o.result.as_str(), adjudicated) {
        ("1-0", false) => "WhiteWins",
        ("0-1", false) => "BlackWins",
        ("1-0", true) => "WhiteWinAdjudicated",
        ("0-1", true) => "BlackWinAdjudicated",
        (_, true) => "DrawAdjudicated",
        _ => "Draw",
    }
}

/// One `<XfccGame>`: a game the player holds `seats` in; `None` for a game
/// whose variant writes no PGN (a program could not replay its moves).
async fn game_xml(
    steward: &Steward,
    login: &ProgramLogin,
    id: &str,
    seats: &[String],
) -> Result<Option<String>, StewardError> {
    let record = steward.record(id.to_owned(), Some(credential(login))).await?;
    let Some(pgn) = record.pgn else { return Ok(None) };
    let view = steward.status(id.to_owned(), Some(credential(login))).await?;
    let mine = |name: &str| seats.iter().any(|s| s == name);
    let me = view.seats.iter().find(|s| mine(&s.seat));
    let other = view.seats.iter().find(|s| !mine(&s.seat));
    let white = view.seats.first().map_or("", |s| s.player.as_str());
    let black = view.seats.get(1).map_or("", |s| s.player.as_str());
    let has_white = view.seats.first().is_some_and(|s| mine(&s.seat));
    let my_turn = view.outcome.is_none() && me.is_some_and(|s| s.owes_move);
    let left =
        |s: Option<&crate::steward::SeatView>| dhm(s.and_then(|s| s.clock.as_ref()).map_or(0, |c| c.left_seconds));
    let (dp, hp, mp) = left(me);
    let (d_o, h_o, m_o) = left(other);
    let draw_offered = view.seats.iter().any(|s| !mine(&s.seat) && s.draw_offer);
    let setup = pgn_tag(&pgn, "SetUp") == Some("1");
    let fen = if setup { pgn_tag(&pgn, "FEN").unwrap_or("") } else { "" };
    let time_control = view.clock.as_ref().map_or("none", |c| c.description.as_str());
    let numeric = numeric_id(id).map_or_else(String::new, |n| n.to_string());
    let link = format!("{}/games/{id}", steward.public_url());
    let mut x = String::from("<XfccGame>");
    let mut field = |name: &str, value: &str| {
        let _ = write!(x, "<{name}>{}</{name}>", escape(value));
    };
    field("id", &numeric);
    field("white", white);
    field("black", black);
    field("event", &format!("Fairsteward {} game {id}", view.variant));
    field("site", steward.public_url());
    field("myTurn", if my_turn { "true" } else { "false" });
    field("hasWhite", if has_white { "true" } else { "false" });
    field("daysPlayer", &dp.to_string());
    field("hoursPlayer", &hp.to_string());
    field("minutesPlayer", &mp.to_string());
    field("daysOpponent", &d_o.to_string());
    field("hoursOpponent", &h_o.to_string());
    field("minutesOpponent", &m_o.to_string());
    field("moves", &movetext(&pgn));
    field("drawOffered", if draw_offered { "true" } else { "false" });
    field("result", result_of(&view));
    field("setup", if setup { "true" } else { "false" });
    field("fen", fen);
    field("variant", &view.variant);
    field("timeControl", time_control);
    field("gameLink", &link);
    field("message", "");
    x.push_str("</XfccGame>");
    Ok(Some(x))
}

// ---------------------------------------------------------------------------
// MakeAMove
// ---------------------------------------------------------------------------

/// MakeAMove's answer codes, spelt as clients test them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveResult {
    /// Done.
    Success,
    /// Ours: nothing was accepted; try again later.
    ServerError,
    /// Wrong user name or password, or too many failed logins.
    AuthenticationFailed,
    /// No such game.
    InvalidGameID,
    /// A game the login does not open.
    NotYourGame,
    /// The player owes no move now (or the game is over).
    NotYourTurn,
    /// `movecount` is not the move number owed.
    InvalidMoveNumber,
    /// Not a legal move (or not a move).
    InvalidMove,
    /// `acceptDraw` with no draw offered.
    NoDrawWasOffered,
    /// The game ended on the player's time.
    LostOnTime,
    /// The player is on leave: never sent, since the steward takes moves
    /// during leave (leave stops the clocks only); kept for the WSDL's list.
    YouAreOnLeave,
    /// More than one legal move fits (sic, as clients spell it).
    MoveIsAmbigous,
    /// Something this steward does not do over Xfcc.
    FeatureUnavailable,
}

impl MoveResult {
    /// Every code, in the WSDL's order.
    pub const ALL: [MoveResult; 13] = [
        MoveResult::Success,
        MoveResult::ServerError,
        MoveResult::AuthenticationFailed,
        MoveResult::InvalidGameID,
        MoveResult::NotYourGame,
        MoveResult::NotYourTurn,
        MoveResult::InvalidMoveNumber,
        MoveResult::InvalidMove,
        MoveResult::NoDrawWasOffered,
        MoveResult::LostOnTime,
        MoveResult::YouAreOnLeave,
        MoveResult::MoveIsAmbigous,
        MoveResult::FeatureUnavailable,
    ];

    /// The code as sent.
    pub fn as_str(self) -> &'static str {
        match self {
            MoveResult::Success => "Success",
            MoveResult::ServerError => "ServerError",
            MoveResult::AuthenticationFailed => "AuthenticationFailed",
            MoveResult::InvalidGameID => "InvalidGameID",
            MoveResult::NotYourGame => "NotYourGame",
            MoveResult::NotYourTurn => "NotYourTurn",
            MoveResult::InvalidMoveNumber => "InvalidMoveNumber",
            MoveResult::InvalidMove => "InvalidMove",
            MoveResult::NoDrawWasOffered => "NoDrawWasOffered",
            MoveResult::LostOnTime => "LostOnTime",
            MoveResult::YouAreOnLeave => "YouAreOnLeave",
            MoveResult::MoveIsAmbigous => "MoveIsAmbigous",
            MoveResult::FeatureUnavailable => "FeatureUnavailable",
        }
    }
}

/// The Xfcc code of a steward error met acting in a game.
fn code_of(e: &StewardError) -> MoveResult {
    match e {
        StewardError::Refused(r) => match r {
            Refusal::UnknownGame(_) => MoveResult::InvalidGameID,
            Refusal::BadToken | Refusal::Forbidden(_) => MoveResult::NotYourGame,
            Refusal::IllegalMove(MoveError::Ambiguous { .. }) => MoveResult::MoveIsAmbigous,
            Refusal::IllegalMove(_) => MoveResult::InvalidMove,
            Refusal::NotYourTurn { .. } | Refusal::AlreadyMoved { .. } | Refusal::GameOver(_) => {
                MoveResult::NotYourTurn
            }
            Refusal::WrongTurn { .. } | Refusal::TurnResolved { .. } => MoveResult::InvalidMoveNumber,
            Refusal::NoDrawOffered(_) => MoveResult::NoDrawWasOffered,
            Refusal::SignatureRequired
            | Refusal::SignedActionRequired { .. }
            | Refusal::NotCommitReveal
            | Refusal::CommitFirst
            | Refusal::NoCommitment { .. }
            | Refusal::RevealTooEarly { .. }
            | Refusal::RevealMismatch { .. } => MoveResult::FeatureUnavailable,
            _ => MoveResult::ServerError,
        },
        StewardError::Unavailable(_) | StewardError::Internal(_) => {
            tracing::error!(error = %e, "the Xfcc door could not act");
            MoveResult::ServerError
        }
    }
}

async fn make_a_move(steward: &Steward, call: &Call, client: &str) -> Response {
    // A flag that is no boolean is a malformed request, not a move to judge.
    for name in ["resign", "acceptDraw", "offerDraw", "claimDraw"] {
        if let Err(why) = call.flag(name) {
            return fault("Client", &format!("{why}; send MakeAMove with true or false there"));
        }
    }
    let code = match act(steward, call, client).await {
        Ok(()) => MoveResult::Success,
        Err(code) => code,
    };
    xml_response(
        StatusCode::OK,
        envelope(&format!(
            "<MakeAMoveResponse xmlns=\"{NAMESPACE}\"><MakeAMoveResult>{}</MakeAMoveResult></MakeAMoveResponse>",
            code.as_str()
        )),
    )
}

/// The number in a move number such as `12.` or `12...`.
fn leading_number(text: &str) -> Option<i64> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// What is kept of a MakeAMove (sealed, as every door keeps what it took in):
/// its parameters without the password, never the raw request that holds it.
fn kept_text(call: &Call) -> Vec<u8> {
    let mut text = format!("Xfcc {}\n", call.operation);
    for (name, value) in call.params.iter().filter(|(n, _)| !n.eq_ignore_ascii_case("password")) {
        let _ = writeln!(text, "{name}: {}", value.trim());
    }
    text.into_bytes()
}

async fn act(steward: &Steward, call: &Call, client: &str) -> Result<(), MoveResult> {
    let login = match login(steward, call, client).await {
        Ok(l) => l,
        Err(LoginError::Failed | LoginError::TooMany) => return Err(MoveResult::AuthenticationFailed),
        Err(LoginError::Steward(e)) => return Err(code_of(&e)),
    };
    // Checked in make_a_move: a flag here is true or false.
    let flag = |name: &str| call.flag(name).unwrap_or(false);
    let (resign, accept_draw, offer_draw, claim_draw) =
        (flag("resign"), flag("acceptDraw"), flag("offerDraw"), flag("claimDraw"));
    let id = call.text("gameId").parse::<i64>().ok().and_then(game_id).ok_or(MoveResult::InvalidGameID)?;
    if !login.games.iter().any(|g| g.eq_ignore_ascii_case(&id)) {
        // Told apart from a game that does not exist, as clients expect.
        return Err(match steward.status(id.clone(), None).await {
            Ok(_) => MoveResult::NotYourGame,
            Err(e) => code_of(&e),
        });
    }
    let games = steward.player_games(login.player.clone()).await.map_err(|e| code_of(&e))?;
    let game = games.iter().find(|g| g.id.eq_ignore_ascii_case(&id)).ok_or(MoveResult::NotYourGame)?;
    let cred = credential(&login);
    // Only the games listed: those whose variant writes PGN.
    let record = steward.record(id.clone(), Some(cred.clone())).await.map_err(|e| code_of(&e))?;
    if record.pgn.is_none() {
        return Err(MoveResult::FeatureUnavailable);
    }
    let view = steward.status(id.clone(), Some(cred.clone())).await.map_err(|e| code_of(&e))?;
    let mine = |name: &str| game.seats.iter().any(|s| s == name);
    if let Some(o) = &view.outcome {
        let lost_on_time = o.reason.contains("time") && o.winner.as_deref().is_some_and(|w| !mine(w));
        return Err(if lost_on_time { MoveResult::LostOnTime } else { MoveResult::NotYourTurn });
    }
    let now = steward.now();
    if resign {
        return steward.resign(id, Some(cred), now).await.map(|_| ()).map_err(|e| code_of(&e));
    }
    if accept_draw {
        if !view.seats.iter().any(|s| !mine(&s.seat) && s.draw_offer) {
            return Err(MoveResult::NoDrawWasOffered);
        }
        return steward.draw(id, Some(cred), DrawAction::Accept, now).await.map(|_| ()).map_err(|e| code_of(&e));
    }
    if claim_draw {
        // Repetition and the fifty-move rule end games by themselves here.
        return Err(MoveResult::FeatureUnavailable);
    }
    let text = call.text("myMove");
    if !text.is_empty() {
        let me = view.seats.iter().find(|s| mine(&s.seat) && s.owes_move).ok_or(MoveResult::NotYourTurn)?;
        let owed = me.move_number.as_deref().and_then(leading_number);
        let sent = call.text("movecount").parse::<i64>().map_err(|_| MoveResult::InvalidMoveNumber)?;
        if owed != Some(sent) {
            return Err(MoveResult::InvalidMoveNumber);
        }
        let req = MoveRequest {
            game: id.clone(),
            credential: Some(cred.clone()),
            submission: Submission::Move { turn: view.turn, text: text.to_owned() },
            kept: steward.kept_copy(&kept_text(call)),
            door: Door::Http,
        };
        steward.submit_move(req, now).await.map_err(|e| code_of(&e))?;
    }
    if offer_draw {
        steward.draw(id, Some(cred), DrawAction::Offer, now).await.map_err(|e| code_of(&e))?;
    } else if text.is_empty() {
        // Nothing asked: no move, no action.
        return Err(MoveResult::InvalidMove);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_round_trip_through_xfcc_integers() {
        for id in ["000000", "8KQ2ZJ", "ZZZZZZ", "ABC123"] {
            let n = numeric_id(id).unwrap();
            assert!(n < 1 << 30);
            assert_eq!(game_id(i64::from(n)).unwrap(), id);
        }
        assert_eq!(numeric_id("ABCDE"), None);
        assert_eq!(numeric_id("ABCDEI"), None);
        assert_eq!(game_id(-1), None);
        assert_eq!(game_id(1 << 30), None);
    }

    #[test]
    fn any_prefix_and_the_first_body_element_are_read() {
        let call = parse(
            br#"<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x:MakeAMove xmlns:x="http://www.bennedik.com/webservices/XfccBasic"><x:username>a@b</x:username><gameId>42</gameId></x:MakeAMove></s:Body></s:Envelope>"#,
        )
        .unwrap();
        assert_eq!(call.operation, "MakeAMove");
        assert_eq!(call.text("username"), "a@b");
        assert_eq!(call.text("gameId"), "42");
        assert_eq!(call.text("myMove"), "");
    }

    #[test]
    fn malformed_requests_are_refused_with_a_reason() {
        assert!(parse(b"").unwrap_err().contains("empty"));
        assert!(parse(b"<a>").unwrap_err().contains("not well-formed"));
        assert!(parse(b"<Envelope/>").unwrap_err().contains("no <Body>"));
        assert!(parse(b"<html><Body/></html>").unwrap_err().contains("not a SOAP"));
        assert!(parse(b"\xff\xfe").unwrap_err().contains("UTF-8"));
        let dtd = br#"<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "xx">]><Envelope><Body/></Envelope>"#;
        assert!(parse(dtd).is_err());
        let many = format!("<Envelope><Body><GetMyGames>{}</GetMyGames></Body></Envelope>", "<a/>".repeat(1000));
        assert!(parse(many.as_bytes()).is_err());
    }

    #[test]
    fn the_kept_copy_holds_no_password() {
        let call = parse(b"<Envelope><Body><MakeAMove><username>a@b</username><password>secret pass</password><myMove>e4</myMove></MakeAMove></Body></Envelope>").unwrap();
        let kept = String::from_utf8(kept_text(&call)).unwrap();
        assert!(kept.contains("myMove: e4") && kept.contains("username: a@b"), "{kept}");
        assert!(!kept.contains("secret"), "{kept}");
    }

    #[test]
    fn movetext_drops_tags_and_the_result() {
        let pgn = "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"8/8 w - - 0 1\"]\n\n1. e4 e5 2. Nf3\n*\n";
        assert_eq!(movetext(pgn), "1. e4 e5 2. Nf3");
        assert_eq!(pgn_tag(pgn, "FEN"), Some("8/8 w - - 0 1"));
        assert_eq!(pgn_tag(pgn, "SetUp"), Some("1"));
        assert_eq!(movetext("[A \"b\"]\n\n1. e4 1-0"), "1. e4");
    }

    #[test]
    fn the_wsdl_lists_every_code_and_reads_as_xml() {
        let doc = roxmltree::Document::parse(WSDL).unwrap();
        let listed: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("simpleType") && n.attribute("name") == Some("MakeAMoveResult"))
            .flat_map(|t| t.descendants().filter_map(|e| e.attribute("value")))
            .collect();
        let codes: Vec<&str> = MoveResult::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(listed, codes);
        for op in ["GetMyGames", "MakeAMove"] {
            assert!(doc.descendants().any(|n| n.has_tag_name("operation") && n.attribute("name") == Some(op)));
        }
    }

    #[test]
    fn remaining_time_splits_into_days_hours_minutes() {
        assert_eq!(dhm(2 * 86_400 + 3 * 3600 + 15 * 60 + 59), (2, 3, 15));
        assert_eq!(dhm(-5), (0, 0, 0));
    }
}
