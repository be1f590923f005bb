//! The organiser's desk pages (issue 31): `/desk` signs the operator or a
//! tournament's director in with their token, lists the games with filters and
//! a search, shows a game's admin view with the director's tools (each behind
//! a confirmation step), and offers a form to create a game (operator only).
//! The tournaments' and invited games' pages are in [`tournaments`].
//!
//! Server-rendered like the player pages. The desk has its own session cookie
//! (`fairsteward_desk`, `Path=/desk`, `HttpOnly`, `SameSite=Strict`, 12 hours):
//! `d1.<who>.<expiry>.<HMAC>`, where `who` is `op` for the operator or the hash
//! of a director's token (the token itself is never stored), so a director
//! removed from the store is signed out at once. Every form carries a CSRF token
//! derived from the cookie, and a POST from another site is refused. The cookie
//! is signed, read and compared with the player pages' primitives
//! ([`session::mac`], [`session::cookie_values`], [`session::same`]), under
//! labels of its own, so neither cookie is taken for the other.

use std::sync::OnceLock;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use minijinja::value::Serde;
use minijinja::{Environment, Value, context};
use serde::Deserialize;
use std::sync::Arc;

mod tournaments;

// The player pages' answer with their headers (policy, no caching, no referrer, no framing).
use super::pages::html;
use super::session::{self, same};
use crate::ids::SeatToken;
use crate::protocol::OperatorToken;
use crate::rules::VariantId;
use crate::steward::{GameFilter, Invited, NewGame, NewSeat, Organiser, Steward, StewardError};

/// The desk's cookie.
pub const COOKIE: &str = "fairsteward_desk";

/// How long a desk session lasts, in seconds (12 hours): organisers act on
/// every game, so their sign-in is short.
pub const LIFETIME_SECONDS: i64 = 12 * 3600;

/// The desk's routes.
pub(super) fn router() -> Router<Steward> {
    Router::new()
        .route("/desk", get(desk))
        .route("/desk/sign-in", post(sign_in))
        .route("/desk/sign-out", post(sign_out))
        .route("/desk/new", get(new_game_page).post(new_game))
        .route("/desk/games/{id}", get(game_page))
        .route("/desk/games/{id}/{tool}", post(tool))
        .merge(tournaments::router())
}

fn templates() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, text) in [
            ("page/base.html", include_str!("../../../templates/page/base.html")),
            ("page/desk_sign_in.html", include_str!("../../../templates/page/desk_sign_in.html")),
            ("page/desk.html", include_str!("../../../templates/page/desk.html")),
            ("page/desk_game.html", include_str!("../../../templates/page/desk_game.html")),
            ("page/desk_confirm.html", include_str!("../../../templates/page/desk_confirm.html")),
            ("page/desk_done.html", include_str!("../../../templates/page/desk_done.html")),
            ("page/desk_new.html", include_str!("../../../templates/page/desk_new.html")),
            ("page/desk_error.html", include_str!("../../../templates/page/desk_error.html")),
        ]
        .into_iter()
        .chain(tournaments::TEMPLATES)
        {
            env.add_template(name, text).expect("embedded desk template parses");
        }
        env
    })
}

fn see_other(to: &str, cookie: Option<HeaderValue>) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    r.headers_mut().insert(header::LOCATION, HeaderValue::from_str(to).unwrap_or(HeaderValue::from_static("/desk")));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(c) = cookie {
        r.headers_mut().insert(header::SET_COOKIE, c);
    }
    r
}

/// Why a desk page cannot be shown; each is a page.
#[derive(Debug)]
struct DeskError(StatusCode, String);

impl From<StewardError> for DeskError {
    fn from(e: StewardError) -> DeskError {
        let api = super::ApiError::from(e);
        DeskError(api.status, api.message)
    }
}

impl IntoResponse for DeskError {
    fn into_response(self) -> Response {
        let body = render("page/desk_error.html", context! { message => self.1.clone(), status => self.0.as_u16() })
            .unwrap_or_else(|_| format!("<!DOCTYPE html><title>Desk</title><p>{}</p>", self.0));
        html(self.0, body)
    }
}

fn render(name: &str, ctx: Value) -> Result<String, DeskError> {
    templates().get_template(name).and_then(|t| t.render(ctx)).map_err(|e| {
        tracing::error!(error = %e, template = name, "desk page template");
        DeskError(StatusCode::INTERNAL_SERVER_ERROR, "The page could not be made; nothing was done.".into())
    })
}

/// The desk's cookies and CSRF tokens are signed as the player pages' are
/// ([`session::mac`]), under labels of their own.
fn mac(steward: &Steward, label: &str, text: &str) -> String {
    session::mac(steward.keys(), label, text)
}

/// A signed-in organiser, from the desk cookie.
struct Desk {
    by: Organiser,
    csrf: String,
}

impl Desk {
    /// The organiser the request's desk cookie names, if it is valid now.
    async fn of(steward: &Steward, headers: &HeaderMap) -> Result<Option<Desk>, DeskError> {
        let Some(value) = cookie(headers) else { return Ok(None) };
        let Some((body, given)) = value.rsplit_once('.') else { return Ok(None) };
        if !same(given, &mac(steward, "desk-session", body)) {
            return Ok(None);
        }
        let mut parts = body.split('.');
        let (Some("d1"), Some(who), Some(expires), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Ok(None);
        };
        if expires.parse::<i64>().map_or(true, |e| e < steward.now().timestamp()) {
            return Ok(None);
        }
        let by = if who == "op" { Some(Organiser::Operator) } else { steward.director_by_hash(who.to_owned()).await? };
        Ok(by.map(|by| Desk { by, csrf: mac(steward, "desk-csrf", &value) }))
    }

    fn context(&self) -> Value {
        context! {
            organiser => self.by.words(),
            operator => self.by == Organiser::Operator,
            csrf => self.csrf.clone(),
        }
    }
}

fn cookie(headers: &HeaderMap) -> Option<String> {
    session::cookie_values(headers, COOKIE).next().map(str::to_owned)
}

fn set_cookie(steward: &Steward, value: &str, max_age: i64) -> HeaderValue {
    let secure = if steward.public_url().starts_with("https://") { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{COOKIE}={value}; Path=/desk; Max-Age={max_age}; HttpOnly; SameSite=Strict{secure}"
    ))
    .unwrap_or(HeaderValue::from_static("fairsteward_desk=; Path=/desk; Max-Age=0"))
}

/// The desk of a form that acts: signed in, sent from this steward's pages,
/// with the right CSRF token.
async fn acting(steward: &Steward, headers: &HeaderMap, csrf: &str) -> Result<Desk, DeskError> {
    if !session::same_origin(headers) {
        return Err(DeskError(
            StatusCode::FORBIDDEN,
            "This form was sent from another site; open the desk and send it from there.".into(),
        ));
    }
    let desk = Desk::of(steward, headers).await?.ok_or_else(signed_out)?;
    if !same(csrf.trim(), &desk.csrf) {
        return Err(DeskError(
            StatusCode::FORBIDDEN,
            "This form is out of date (it belongs to an earlier sign-in); reload the desk and send it again.".into(),
        ));
    }
    Ok(desk)
}

fn signed_out() -> DeskError {
    DeskError(
        StatusCode::UNAUTHORIZED,
        "Please sign in at the desk (/desk) with the operator token or your director's token.".into(),
    )
}

fn form<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, DeskError> {
    serde_urlencoded::from_bytes(body).map_err(|e| {
        DeskError(
            StatusCode::BAD_REQUEST,
            format!("The form could not be read ({e}); reload the page and send it again."),
        )
    })
}

// ---------------------------------------------------------------------------
// Signing in and out, the list
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    to_move: Option<String>,
    #[serde(default)]
    overdue: Option<String>,
    #[serde(default)]
    on_leave: Option<String>,
    #[serde(default)]
    q: Option<String>,
}

fn ticked(v: &Option<String>) -> bool {
    v.as_deref().is_some_and(|v| matches!(v, "1" | "on" | "true" | "yes"))
}

/// The most armoured OpenPGP key blocks' lines one player may bring, so that
/// a pasted text cannot grow one key without end (the steward bounds the key
/// itself; this bounds the form's work before it).
const MAX_KEY_LINES: usize = 2_000;

/// The player lines of a desk form's textarea (the seats of a game, the
/// players of a tournament), each with the armoured OpenPGP public key pasted
/// on the lines below it, if any (issue 33: the key the API takes as
/// `openpgp_key`). Blank lines are passed over; a key block before the first
/// player, or one without its END line, is refused saying so. The key itself
/// is read and checked by the steward, as for the API.
pub(super) fn player_lines(text: &str) -> Result<Vec<(String, Option<String>)>, String> {
    let mut players: Vec<(String, Option<String>)> = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !line.starts_with("-----BEGIN PGP ") {
            players.push((line.to_owned(), None));
            continue;
        }
        let Some((player, key)) = players.last_mut() else {
            return Err("An OpenPGP key block comes before any player line: put each key on the lines below its player's `Name <address>` line.".into());
        };
        if key.is_some() {
            return Err(format!(
                "The player line {player:?} has two OpenPGP key blocks below it; give one public key a player."
            ));
        }
        let mut block = vec![line.to_owned()];
        loop {
            let Some(next) = lines.next() else {
                return Err(format!(
                    "The OpenPGP key block below {player:?} has no `-----END PGP …-----` line; paste the whole block (`gpg --armor --export ADDRESS`)."
                ));
            };
            if block.len() >= MAX_KEY_LINES {
                return Err(format!(
                    "The OpenPGP key block below {player:?} is longer than {MAX_KEY_LINES} lines; give the public key alone (`gpg --armor --export ADDRESS`)."
                ));
            }
            let next = next.trim();
            block.push(next.to_owned());
            if next.starts_with("-----END PGP ") {
                break;
            }
        }
        *key = Some(block.join("\n") + "\n");
    }
    Ok(players)
}

async fn desk(
    State(steward): State<Steward>,
    headers: HeaderMap,
    Query(q): Query<ListQuery>,
) -> Result<Response, DeskError> {
    let Some(desk) = Desk::of(&steward, &headers).await? else {
        return Ok(html(StatusCode::OK, render("page/desk_sign_in.html", context! {})?));
    };
    let status = q.status.clone().filter(|s| matches!(s.as_str(), "running" | "finished"));
    let to_move = q.to_move.clone().filter(|s| !s.trim().is_empty());
    let filter = GameFilter {
        status: status.clone(),
        to_move: match to_move.as_deref() {
            Some("any") => Some(String::new()),
            other => other.map(str::to_owned),
        },
        overdue: ticked(&q.overdue),
        on_leave: ticked(&q.on_leave),
        q: q.q.clone().filter(|s| !s.trim().is_empty()),
    };
    let games = steward.desk_games(desk.by.clone(), filter).await?;
    // The games with invited seats still waiting for their players (the
    // operator's: only the operator creates them).
    let mut invited = Vec::new();
    for id in steward.waiting_invited_games(&desk.by).await? {
        invited.push(steward.invitations(&desk.by, Invited::Game(id)).await?);
    }
    let ctx = context! {
        games => Serde(&games),
        invited => Serde(&invited),
        status => status,
        to_move => to_move,
        overdue => ticked(&q.overdue),
        on_leave => ticked(&q.on_leave),
        q => q.q,
        ..desk.context()
    };
    Ok(html(StatusCode::OK, render("page/desk.html", ctx)?))
}

#[derive(Deserialize)]
struct SignInForm {
    token: String,
}

async fn sign_in(
    State(steward): State<Steward>,
    Extension(operator): Extension<Arc<OperatorToken>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, DeskError> {
    if !session::same_origin(&headers) {
        return Err(DeskError(StatusCode::FORBIDDEN, "Sign in from the desk's own page, /desk.".into()));
    }
    let f: SignInForm = form(&body)?;
    let who = match steward.organiser(&operator, &f.token).await? {
        Some(Organiser::Operator) => "op".to_owned(),
        Some(Organiser::Director { .. }) => SeatToken::from_presented(&f.token).hash(),
        None => {
            return Err(DeskError(
                StatusCode::UNAUTHORIZED,
                "That is neither the operator token nor a director's token. The operator token is printed by `fairsteward operator-token` on the steward's host; a director's token comes from the operator.".into(),
            ));
        }
    };
    let body = format!("d1.{who}.{}", steward.now().timestamp() + LIFETIME_SECONDS);
    let value = format!("{body}.{}", mac(&steward, "desk-session", &body));
    Ok(see_other("/desk", Some(set_cookie(&steward, &value, LIFETIME_SECONDS))))
}

#[derive(Deserialize)]
struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

async fn sign_out(State(steward): State<Steward>, headers: HeaderMap, body: Bytes) -> Result<Response, DeskError> {
    let f: CsrfForm = form(&body)?;
    acting(&steward, &headers, &f.csrf).await?;
    Ok(see_other("/desk", Some(set_cookie(&steward, "", 0))))
}

// ---------------------------------------------------------------------------
// A game's admin view and the tools
// ---------------------------------------------------------------------------

async fn game_page(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, DeskError> {
    let desk = Desk::of(&steward, &headers).await?.ok_or_else(signed_out)?;
    let (view, game) = steward.desk_game_view(id, desk.by.clone()).await?;
    let ctx = context! { view => Serde(&view), game => Serde(&game), ..desk.context() };
    Ok(html(StatusCode::OK, render("page/desk_game.html", ctx)?))
}

/// A tool's form: the fields of all tools (each takes its own), the CSRF
/// token, and `confirm=yes` once the organiser confirmed.
#[derive(Deserialize)]
struct ToolForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    confirm: String,
    #[serde(default)]
    result: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    seat: String,
    #[serde(default)]
    hours: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    public_key: String,
    /// The new player's armoured OpenPGP public key, or empty (issue 33).
    #[serde(default)]
    openpgp_key: String,
}

async fn tool(
    State(steward): State<Steward>,
    Path((id, tool)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, DeskError> {
    let f: ToolForm = form(&body)?;
    let desk = acting(&steward, &headers, &f.csrf).await?;
    let (what, fields): (String, Vec<(&str, &str)>) = match tool.as_str() {
        "adjudicate" => (
            format!("adjudicate game {id} with the result \"{}\"", f.result.trim()),
            vec![("result", &f.result), ("reason", &f.reason)],
        ),
        "abort" => (format!("abort game {id}, without a result"), vec![("reason", &f.reason)]),
        "extend" => (
            format!("give {} of game {id} {} hours more", f.seat, f.hours.trim()),
            vec![("seat", &f.seat), ("hours", &f.hours), ("reason", &f.reason)],
        ),
        "replace" => (
            format!("replace the player of {} in game {id} by {} <{}>", f.seat, f.name.trim(), f.email.trim()),
            vec![
                ("seat", &f.seat),
                ("name", &f.name),
                ("email", &f.email),
                ("public_key", &f.public_key),
                ("openpgp_key", &f.openpgp_key),
                ("reason", &f.reason),
            ],
        ),
        "relink" => (
            format!("send {} of game {id} a new link (its present token stops working)", f.seat),
            vec![("seat", &f.seat)],
        ),
        _ => return Err(DeskError(StatusCode::NOT_FOUND, format!("There is no tool {tool:?} at the desk."))),
    };
    if f.confirm != "yes" {
        // The confirmation step: the same form again, with what it will do.
        let ctx = context! {
            what => what,
            reason => f.reason.trim(),
            action => format!("/desk/games/{id}/{tool}"),
            back => format!("/desk/games/{id}"),
            fields => fields.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>(),
            ..desk.context()
        };
        return Ok(html(StatusCode::OK, render("page/desk_confirm.html", ctx)?));
    }
    let now = steward.now();
    let by = desk.by.clone();
    let (done, token) = match tool.as_str() {
        "adjudicate" => {
            steward.adjudicate(id.clone(), f.result, f.reason, by, now).await?;
            ("The game was adjudicated.".to_owned(), None)
        }
        "abort" => {
            steward.abort(id.clone(), f.reason, by, now).await?;
            ("The game was aborted; it has no result.".to_owned(), None)
        }
        "extend" => {
            let hours: u32 = f.hours.trim().parse().map_err(|_| {
                DeskError(StatusCode::BAD_REQUEST, "Give the extension as a whole number of hours, e.g. 72.".into())
            })?;
            let e = steward.extend_deadline(id.clone(), f.seat, hours, f.reason, by, now).await?;
            (
                format!(
                    "{} has {} hours more{}.",
                    e.seat,
                    e.hours,
                    e.deadline.map(|d| format!("; the move is due {d}")).unwrap_or_default()
                ),
                None,
            )
        }
        "replace" => {
            let new = NewSeat {
                openpgp_key: Some(f.openpgp_key).filter(|k| !k.trim().is_empty()),
                name: f.name,
                email: f.email,
                public_key: Some(f.public_key).filter(|k| !k.trim().is_empty()),
                time_zone: None,
            };
            let t = steward.replace_player(id.clone(), f.seat, new, f.reason, by, now).await?;
            (format!("{} now plays {}; the new token was mailed to {}.", t.player, t.seat, t.mailed_to), Some(t))
        }
        _ => {
            let t = steward.relink(id.clone(), f.seat, by, now).await?;
            (format!("{} has a new link; it was mailed to {} (the registered address).", t.seat, t.mailed_to), Some(t))
        }
    };
    let ctx = context! { done => done, token => Serde(&token), game => id, ..desk.context() };
    Ok(html(StatusCode::OK, render("page/desk_done.html", ctx)?))
}

// ---------------------------------------------------------------------------
// Creating a game
// ---------------------------------------------------------------------------

async fn new_game_page(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, DeskError> {
    let desk = Desk::of(&steward, &headers).await?.ok_or_else(signed_out)?;
    operator_only(&desk, ONLY_OPERATOR_CREATES_GAMES)?;
    let ctx = context! { variants => VariantId::names().collect::<Vec<_>>(), ..desk.context() };
    Ok(html(StatusCode::OK, render("page/desk_new.html", ctx)?))
}

/// What only the operator may do at the desk; a director hears `refusal`.
fn operator_only(desk: &Desk, refusal: &str) -> Result<(), DeskError> {
    if desk.by == Organiser::Operator { Ok(()) } else { Err(DeskError(StatusCode::FORBIDDEN, refusal.to_owned())) }
}

const ONLY_OPERATOR_CREATES_GAMES: &str =
    "Only the operator creates games here; a director's games are its tournament's.";

#[derive(Deserialize)]
struct NewGameForm {
    #[serde(default)]
    csrf: String,
    variant: String,
    /// One seat a line, in the variant's seat order: `Name <address>`.
    seats: String,
    /// The options as JSON (`{"clock": {...}}`), or empty.
    #[serde(default)]
    options: String,
    /// Invite the players instead of seating them at once.
    #[serde(default)]
    invite: Option<String>,
}

async fn new_game(State(steward): State<Steward>, headers: HeaderMap, body: Bytes) -> Result<Response, DeskError> {
    let f: NewGameForm = form(&body)?;
    let desk = acting(&steward, &headers, &f.csrf).await?;
    operator_only(&desk, ONLY_OPERATOR_CREATES_GAMES)?;
    let bad = |m: String| DeskError(StatusCode::BAD_REQUEST, m);
    let seats = player_lines(&f.seats)
        .map_err(bad)?
        .into_iter()
        .map(|(l, openpgp_key)| {
            let l = l.as_str();
            let (name, rest) =
                l.split_once('<').ok_or_else(|| bad(format!("The seat line {l:?} is not `Name <address>`.")))?;
            let email = rest
                .trim_end()
                .strip_suffix('>')
                .ok_or_else(|| bad(format!("The seat line {l:?} is not `Name <address>`.")))?;
            Ok(NewSeat {
                openpgp_key,
                name: name.trim().to_owned(),
                email: email.trim().to_owned(),
                public_key: None,
                time_zone: None,
            })
        })
        .collect::<Result<Vec<_>, DeskError>>()?;
    let options = if f.options.trim().is_empty() {
        Default::default()
    } else {
        serde_json::from_str(&f.options)
            .map_err(|e| bad(format!("The options are not a JSON object ({e}); give e.g. {{\"clock\": {{\"kind\": \"days_per_move\", \"days\": 3}}}} or nothing.")))?
    };
    if ticked(&f.invite) {
        let new = NewGame { variant: f.variant, options, seats, invite: true };
        let invited = steward.invite_game(new, steward.now()).await?;
        return Ok(see_other(&format!("/desk/invited/{}", invited.id), None));
    }
    let created =
        steward.create_game(NewGame { variant: f.variant, options, seats, invite: false }, steward.now()).await?;
    let ctx = context! {
        done => format!("Game {} was created; its players have their start mails.", created.game.id),
        game => created.game.id.clone(),
        tokens => Serde(&created.tokens),
        ..desk.context()
    };
    Ok(html(StatusCode::CREATED, render("page/desk_done.html", ctx)?))
}
