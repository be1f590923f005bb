//! The HTML pages for players and spectators (issue 17): a page per game with
//! the board (the SVG, from the viewer's side), the seats, clocks, the record
//! and the transcript head; moving, draws, resigning and leave from forms; a
//! player's page; the rules for players; the record as PGN and JSON.
//!
//! Server-rendered minijinja templates (`templates/page/`), one style sheet and
//! one small script of plain JavaScript (`src/web/assets/`), both embedded:
//! nothing is fetched from elsewhere. Every page is also usable without the
//! script (the move is typed then). The pages ask the steward and the variant
//! for everything and never name a game. Errors are pages too: a wrong game id
//! is a 404 page that says so.
//!
//! Signed-in players act through forms that carry a CSRF token (see
//! [`super::session`]), only in the games their session was signed in for; a
//! pending move shows only to its own seat. A sign-in for another player than
//! the browser's asks before switching (issue 29).

use std::sync::OnceLock;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use minijinja::value::Serde;
use minijinja::{Environment, Value, context};
use serde::Deserialize;

use super::session::{self, Session};
use crate::render::svg::board_svg_interactive;
use crate::rules::{Options, VariantId};
use crate::steward::{Credential, DrawAction, MoveRequest, Refusal, Steward, StewardError, Submission};

/// The pages' routes (the state is the steward).
pub(super) fn router() -> Router<Steward> {
    Router::new()
        .route("/", get(home))
        .route("/assets/site.css", get(style_sheet))
        .route("/assets/play.js", get(script))
        .route("/sign-in", get(sign_in_page).post(sign_in_with_token))
        .route("/sign-out", post(sign_out))
        .route("/me", get(player_page))
        .route("/leave", post(declare_leave))
        .route("/me/mail", post(me_forms::set_mail)) // issue 32, slice M
        .route("/me/address", post(me_forms::ask_address)) // issue 32, slice M
        .route("/me/program-password", post(program_form::set_password)) // issue 34
        .route("/rules", get(rules_index))
        .route("/rules/{variant}", get(variant_rules))
        .route("/games", get(find_game))
        .route("/games/{id}", get(game_page))
        .route("/games/{id}/sign-in", post(sign_in_with_link))
        .route("/games/{id}/move", post(send_move))
        .route("/games/{id}/envelope", post(send_envelope))
        .route("/games/{id}/draw", post(draw))
        .route("/games/{id}/conditional", post(set_conditional)) // issue 32, slice C
        // issue 33: the seat's OpenPGP key (a key of up to 64 KiB, form-encoded)
        .route(
            "/games/{id}/openpgp-key",
            post(set_openpgp_key)
                .layer(axum::extract::DefaultBodyLimit::max(3 * crate::protocol::openpgp::key::MAX_KEY_BYTES)),
        )
        .route("/games/{id}/resign", get(resign_page).post(resign))
        .route("/games/{id}/rules", get(game_rules))
        .route("/games/{id}/record.pgn", get(record_pgn))
        .route("/games/{id}/record.json", get(record_json))
}

/// The pages' templates, embedded.
fn templates() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, text) in [
            ("page/base.html", include_str!("../../templates/page/base.html")),
            ("page/error.html", include_str!("../../templates/page/error.html")),
            ("page/home.html", include_str!("../../templates/page/home.html")),
            ("page/sign_in.html", include_str!("../../templates/page/sign_in.html")),
            ("page/game.html", include_str!("../../templates/page/game.html")),
            ("page/resign.html", include_str!("../../templates/page/resign.html")),
            ("page/switch.html", include_str!("../../templates/page/switch.html")),
            ("page/player.html", include_str!("../../templates/page/player.html")),
            ("page/rules.html", include_str!("../../templates/page/rules.html")),
            ("page/rules_index.html", include_str!("../../templates/page/rules_index.html")),
            ("page/tournament.html", include_str!("../../templates/page/tournament.html")),
            ("page/tournament_tables.html", include_str!("../../templates/page/tournament_tables.html")),
            ("page/api.html", include_str!("../../templates/page/api.html")), // issue 34
        ] {
            // Part of the binary: a syntax error is a build bug the tests catch.
            env.add_template(name, text).expect("embedded page template parses");
        }
        env
    })
}

/// The pages' policy: this steward's own script and style sheet only, no
/// frames, forms only to itself.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// An HTML answer with the pages' headers: not cached (it may show a seat's
/// own pending move), no referrer, the policy above.
pub(super) fn html(status: StatusCode, body: String) -> Response {
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    r
}

/// A 303 to `to` (a path on this steward), with cookies to set.
fn see_other(to: &str, cookies: Vec<HeaderValue>) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    r.headers_mut().insert(header::LOCATION, HeaderValue::from_str(to).unwrap_or(HeaderValue::from_static("/")));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    for c in cookies {
        r.headers_mut().append(header::SET_COOKIE, c);
    }
    r
}

/// The cookies of a session: the session and its mark.
fn session_cookies(steward: &Steward, s: &Session) -> Vec<HeaderValue> {
    vec![s.set_cookie(secure(steward)), session::set_mark(secure(steward))]
}

/// The session after `address` proved a seat of `game`: the visitor's own
/// session with the game added when it is the same player's, else a new one.
fn session_for(steward: &Steward, v: &Visitor, address: &str, game: &str) -> Session {
    let now = steward.now().timestamp();
    match &v.session {
        Some(s) if s.address.eq_ignore_ascii_case(address) => s.with_game(steward.keys(), game, now),
        _ => Session::new(steward.keys(), address, game, now),
    }
}

/// A sign-in that proved `address`'s seat: what a sign-in form asks to
/// change, and how to ask again.
struct Proven<'a> {
    address: &'a str,
    game: &'a str,
    seat: Option<&'a str>,
    /// "private link" or "seat token", as the question names it.
    what: &'a str,
    /// Where the form posts, and its fields (the proof again) for a switch.
    action: String,
    fields: Vec<(&'static str, String)>,
    /// Where the browser goes on when signed in, and when it stays.
    to: String,
    stay: String,
    /// The form's answer to the question: `yes` and its CSRF token.
    switch: &'a str,
    csrf: &'a str,
}

/// Signs `p.address` in, adding the game to the visitor's session when it is
/// the same player's. A browser signed in as *another* player is asked first
/// (issue 29: a link someone sent must not switch players silently): the
/// answer "switch" posts the same proof again with `switch=yes` and the
/// current session's CSRF token.
fn sign_in_answer(steward: &Steward, v: &Visitor, p: Proven<'_>) -> Result<Response, PageError> {
    if let Some(current) = &v.session
        && !current.address.eq_ignore_ascii_case(p.address)
    {
        if p.switch != "yes" {
            let ctx = context! {
                what => p.what, player => p.address, seat => p.seat, game => p.game.to_ascii_uppercase(),
                action => p.action, fields => p.fields, stay => p.stay, ..v.context()
            };
            return Ok(html(StatusCode::OK, render("page/switch.html", ctx)?));
        }
        if !current.csrf_matches(steward.keys(), p.csrf) {
            return Err(PageError::Forbidden(
                "this form is out of date (it belongs to an earlier sign-in); open the link or sign in again".into(),
            ));
        }
    }
    let s = session_for(steward, v, p.address, p.game);
    Ok(see_other(&p.to, session_cookies(steward, &s)))
}

/// A page that reloads itself at once (see [`session::needs_reload`]).
fn reload() -> Response {
    html(
        StatusCode::OK,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0\"><title>Fairsteward</title></head><body><p>Opening the page&hellip;</p></body></html>".to_owned(),
    )
}

/// What every page knows of its visitor: the session, if signed in.
pub(super) struct Visitor {
    session: Option<Session>,
    csrf: String,
}

impl Visitor {
    pub(super) fn of(steward: &Steward, headers: &HeaderMap) -> Visitor {
        let session = Session::from_headers(steward.keys(), headers, steward.now().timestamp());
        let csrf = session.as_ref().map(|s| s.csrf(steward.keys())).unwrap_or_default();
        Visitor { session, csrf }
    }

    /// The variables every template gets.
    pub(super) fn context(&self) -> Value {
        context! { session => self.session.as_ref().map(|s| s.address.clone()), csrf => self.csrf.clone() }
    }

    /// The session of a form that acts: signed in, the form's CSRF token
    /// right, and sent from one of this steward's pages.
    fn acting(&self, steward: &Steward, headers: &HeaderMap, csrf: &str) -> Result<&Session, PageError> {
        if !session::same_origin(headers) {
            return Err(PageError::Forbidden(
                "this form was sent from another site; open the game page and send it from there".into(),
            ));
        }
        let s = self.session.as_ref().ok_or(PageError::SignIn)?;
        if !s.csrf_matches(steward.keys(), csrf) {
            return Err(PageError::Forbidden(
                "this form is out of date (it belongs to an earlier sign-in); reload the page and send it again".into(),
            ));
        }
        Ok(s)
    }
}

/// Why a page cannot be shown as asked; every one is a page itself.
#[derive(Debug)]
pub(super) enum PageError {
    /// No such game, seat or page.
    NotFound(String),
    /// The request cannot be done; the message says why and what to do.
    Refused(StatusCode, String),
    /// Signing in is needed.
    SignIn,
    /// A form from elsewhere, or out of date.
    Forbidden(String),
    /// Ours: logged; nothing was accepted.
    Internal(String),
}

impl From<StewardError> for PageError {
    fn from(e: StewardError) -> PageError {
        match e {
            StewardError::Refused(r) => refusal(&r),
            StewardError::Internal(e) => PageError::Internal(e.to_string()),
            StewardError::Unavailable(e) => PageError::Internal(e),
        }
    }
}

/// A refusal in the pages' words: what was wrong, and what to do on the page.
fn refusal(r: &Refusal) -> PageError {
    let hint = match r {
        Refusal::UnknownGame(_) => {
            return PageError::NotFound(format!(
                "{r}. Check the game id: six letters and digits, as in your board mail."
            ));
        }
        Refusal::UnknownTournament(_) => {
            return PageError::NotFound(format!("{r}. Check the tournament id: T and six letters and digits."));
        }
        Refusal::BadToken => return PageError::SignIn,
        Refusal::TooMany { what, wait } => {
            return PageError::Refused(
                StatusCode::TOO_MANY_REQUESTS,
                format!("{}. {}.", upper_first(what), upper_first(wait)),
            );
        }
        Refusal::IllegalMove(_) => " Choose a legal move: click one of your pieces to see where it may go.",
        Refusal::WrongTurn { .. } | Refusal::TurnResolved { .. } | Refusal::AlreadyMoved { .. } => {
            " The page was out of date; here it is as it stands now."
        }
        Refusal::SignatureRequired | Refusal::SignedActionRequired { .. } | Refusal::CommitFirst => {
            " Make the envelope with the command shown on the game page and paste it there."
        }
        _ => "",
    };
    let status = match r {
        Refusal::IllegalMove(_)
        | Refusal::BadEnvelope(_)
        | Refusal::EnvelopeMismatch(_)
        | Refusal::RevealMismatch { .. }
        | Refusal::BadConditional(_) => StatusCode::UNPROCESSABLE_ENTITY, // issue 32: BadConditional
        Refusal::BadRequest(_) | Refusal::BadGame(_) => StatusCode::BAD_REQUEST,
        Refusal::BadSignature(_) | Refusal::SignatureRequired | Refusal::SignedActionRequired { .. } => {
            StatusCode::FORBIDDEN
        }
        _ => StatusCode::CONFLICT,
    };
    PageError::Refused(status, format!("{}.{hint}", upper_first(&r.to_string())))
}

fn upper_first(text: &str) -> String {
    let mut c = text.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

impl PageError {
    fn page(self) -> Response {
        let (status, heading, message) = match self {
            PageError::NotFound(m) => (StatusCode::NOT_FOUND, "Not found", m),
            PageError::Refused(s, m) => (s, "Not done", m),
            PageError::SignIn => (
                StatusCode::UNAUTHORIZED,
                "Please sign in",
                "This needs a seat of the game: open the private link in your latest board mail (\"Play on the web\"), or sign in with your seat token.".to_owned(),
            ),
            PageError::Forbidden(m) => (StatusCode::FORBIDDEN, "Not sent", m),
            PageError::Internal(e) => {
                tracing::error!(error = %e, "internal error answering a page");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong",
                    "The steward could not do this and accepted nothing; please try again later.".to_owned(),
                )
            }
        };
        let body = templates()
            .get_template("page/error.html")
            .and_then(|t| t.render(context! { heading => heading, message => message }))
            .unwrap_or_else(|_| format!("<!DOCTYPE html><title>{heading}</title><h1>{heading}</h1>"));
        html(status, body)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        self.page()
    }
}

pub(super) fn render(name: &str, ctx: Value) -> Result<String, PageError> {
    templates()
        .get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|e| PageError::Internal(format!("page template {name}: {e:#}")))
}

/// The page not found, for every path outside the API that no route takes.
pub(super) async fn not_found_page() -> Response {
    PageError::NotFound(
        "There is no page at this address. Games are at /games/<id>, as linked in every board mail.".into(),
    )
    .page()
}

// ---------------------------------------------------------------------------
// Assets
// ---------------------------------------------------------------------------

async fn style_sheet() -> Response {
    asset("text/css; charset=utf-8", include_str!("assets/site.css"))
}

async fn script() -> Response {
    asset("text/javascript; charset=utf-8", include_str!("assets/play.js"))
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut r = body.into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
    r.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    r
}

// ---------------------------------------------------------------------------
// Front page, signing in and out
// ---------------------------------------------------------------------------

async fn home(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    let ctx = context! { variants => VariantId::names().collect::<Vec<_>>(), ..v.context() };
    Ok(html(StatusCode::OK, render("page/home.html", ctx)?))
}

#[derive(Deserialize)]
struct NextQuery {
    next: Option<String>,
}

/// Where a sign-in sends the browser on: `next` when it is a path on this
/// steward ([`session::same_site_path`]), the player's page when none is
/// given, the front page for anything else.
fn local_path(next: Option<&str>) -> String {
    match next {
        None => "/me".to_owned(),
        Some(p) => session::same_site_path(p).unwrap_or("/").to_owned(),
    }
}

async fn sign_in_page(
    State(steward): State<Steward>,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    let ctx = context! { next => local_path(q.next.as_deref()), ..v.context() };
    Ok(html(StatusCode::OK, render("page/sign_in.html", ctx)?))
}

/// Reads a form body (`application/x-www-form-urlencoded`) into `T`.
fn form<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, PageError> {
    serde_urlencoded_from(body).map_err(|e| {
        PageError::Refused(
            StatusCode::BAD_REQUEST,
            format!("The form could not be read ({e}); reload the page and send it again."),
        )
    })
}

fn serde_urlencoded_from<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, String> {
    serde_urlencoded::from_bytes(body).map_err(|e| e.to_string())
}

#[derive(Deserialize)]
struct TokenForm {
    token: String,
    next: Option<String>,
    /// `yes`: switch from another player's session (see [`sign_in_answer`]).
    #[serde(default)]
    switch: String,
    #[serde(default)]
    csrf: String,
}

async fn sign_in_with_token(
    State(steward): State<Steward>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    if !session::same_origin(&headers) {
        return Err(PageError::Forbidden("sign in from this steward's own sign-in page".into()));
    }
    let f: TokenForm = form(&body)?;
    let (game, address) = steward.sign_in_with_token(f.token.clone()).await.map_err(|_| {
        PageError::Refused(
            StatusCode::UNAUTHORIZED,
            "That is not a seat token of this steward. Check it, or use the private link of a board mail.".into(),
        )
    })?;
    let v = Visitor::of(&steward, &headers);
    let to = local_path(f.next.as_deref());
    let mut fields = vec![("token", f.token.clone())];
    fields.extend(f.next.clone().map(|n| ("next", n)));
    let proven = Proven {
        address: &address,
        game: &game,
        seat: None,
        what: "seat token",
        action: "/sign-in".into(),
        fields,
        stay: to.clone(),
        to,
        switch: &f.switch,
        csrf: &f.csrf,
    };
    sign_in_answer(&steward, &v, proven)
}

fn secure(steward: &Steward) -> bool {
    steward.public_url().starts_with("https://")
}

#[derive(Deserialize)]
struct LinkForm {
    seat: String,
    key: String,
    /// `yes`: switch from another player's session (see [`sign_in_answer`]).
    #[serde(default)]
    switch: String,
    #[serde(default)]
    csrf: String,
}

/// The private link's sign-in: the page's script posts the key from the
/// fragment; a right key sets the session and sends the browser back.
async fn sign_in_with_link(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    if !session::same_origin(&headers) {
        return Err(PageError::Forbidden("open the private link itself, from your board mail".into()));
    }
    let f: LinkForm = form(&body)?;
    let address = match steward.sign_in(id.clone(), f.seat.clone(), f.key.clone()).await {
        Ok(a) => a,
        Err(StewardError::Refused(Refusal::UnknownGame(g))) => return Err(refusal(&Refusal::UnknownGame(g))),
        Err(StewardError::Refused(_)) => {
            return Err(PageError::Refused(
                StatusCode::UNAUTHORIZED,
                "This private link is not (or no longer) valid: it may be cut short, or the seat's address has changed since. Use the link in your latest board mail.".into(),
            ));
        }
        Err(e) => return Err(e.into()),
    };
    let seat: String = f.seat.chars().filter(char::is_ascii_alphanumeric).collect();
    let v = Visitor::of(&steward, &headers);
    let game = id.to_ascii_uppercase();
    let proven = Proven {
        address: &address,
        game: &game,
        seat: Some(&seat),
        what: "private link",
        action: format!("/games/{game}/sign-in"),
        fields: vec![("seat", f.seat.clone()), ("key", f.key.clone())],
        to: format!("/games/{game}?seat={seat}"),
        stay: format!("/games/{game}"),
        switch: &f.switch,
        csrf: &f.csrf,
    };
    sign_in_answer(&steward, &v, proven)
}

/// A form that acts: it carries the session's CSRF token.
trait ActingForm: serde::de::DeserializeOwned {
    /// The token the form carried.
    fn csrf(&self) -> &str;
}

/// The credential of a signed-in player acting for `seat` (their seat of the
/// game when `None`).
fn acts_for(s: &Session, seat: Option<String>) -> Credential {
    Credential::Session { address: s.address.clone(), seat, games: s.games.clone() }
}

/// Reads an acting form and checks it (see [`Visitor::acting`]): the visitor,
/// the form and the session.
fn acting_form<T: ActingForm>(
    steward: &Steward,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(Visitor, T, Session), PageError> {
    let v = Visitor::of(steward, headers);
    let f: T = form(body)?;
    let s = v.acting(steward, headers, f.csrf())?.clone();
    Ok((v, f, s))
}

macro_rules! acting_forms {
    ($($form:ty),*) => {$(
        impl ActingForm for $form {
            fn csrf(&self) -> &str {
                &self.csrf
            }
        }
    )*};
}

acting_forms!(CsrfForm, MoveForm, EnvelopeForm, DrawForm, ResignForm, LeaveForm, ConditionalForm);
acting_forms!(me_forms::MailForm, me_forms::AddressForm); // issue 32, slice M
acting_forms!(program_form::PasswordForm); // issue 34
acting_forms!(OpenPgpKeyForm); // issue 33

#[derive(Deserialize)]
struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

async fn sign_out(State(steward): State<Steward>, headers: HeaderMap, body: Bytes) -> Result<Response, PageError> {
    acting_form::<CsrfForm>(&steward, &headers, &body)?;
    Ok(see_other("/", session::clear_cookies(secure(&steward)).to_vec()))
}

// ---------------------------------------------------------------------------
// The game page and its forms
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
struct GameQuery {
    seat: Option<String>,
    done: Option<String>,
}

#[derive(Deserialize)]
struct FindQuery {
    id: Option<String>,
}

async fn find_game(Query(q): Query<FindQuery>) -> Response {
    let id: String = q.id.unwrap_or_default().chars().filter(char::is_ascii_alphanumeric).take(12).collect();
    if id.is_empty() {
        see_other("/", Vec::new())
    } else {
        see_other(&format!("/games/{}", id.to_ascii_uppercase()), Vec::new())
    }
}

/// What a `done` in the address says after a form went through.
fn flash(done: Option<&str>) -> Option<&'static str> {
    Some(match done? {
        "move" => {
            "Your move is in. The others learn only that you have moved; the turn resolves when every seat that owes a move has sent one."
        }
        "turn" => "Your move is in, and it completed the turn: the board and the moves below show the turn played.",
        "envelope" => "Your envelope is in.",
        "draw-offer" => "You offer a draw. It stands until the others accept or decline it, or the turn resolves.",
        "draw-accept" => "You accept the draw.",
        "draw-decline" => "You decline the draw; play goes on.",
        "resigned" => "You resigned.",
        "conditional" => "Your conditional lines are kept; only you see them.",
        "conditional-clear" => "Your conditional lines are dropped.",
        "openpgp-key" => {
            "Your OpenPGP key is registered: replies signed with it count as signed moves (write game:, seat:, turn: and move: lines in the signed text)."
        }
        "openpgp-key-removed" => "Your OpenPGP key is removed.",
        "leave" => {
            "Your leave is recorded; your clocks stand still for those days, except where a tournament's leave rule allows fewer (the mail that confirms it says which)."
        }
        _ => return None,
    })
}

async fn game_page(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    Query(q): Query<GameQuery>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    if session::needs_reload(&headers, v.session.as_ref()) {
        return Ok(reload());
    }
    game_response(&steward, &v, id, q.seat, flash(q.done.as_deref()), None, StatusCode::OK).await
}

/// The game page for `v`, with a note or an error above it.
async fn game_response(
    steward: &Steward,
    v: &Visitor,
    id: String,
    seat: Option<String>,
    flash: Option<&str>,
    error: Option<String>,
    status: StatusCode,
) -> Result<Response, PageError> {
    let credential = v.session.as_ref().map(|s| acts_for(s, seat.clone()));
    let page = match steward.page(id.clone(), credential.clone()).await {
        // Signed in, but holding no seat here: a spectator like anyone.
        Err(StewardError::Refused(Refusal::BadToken)) if credential.is_some() => steward.page(id, None).await?,
        other => other?,
    };
    let svg = board_svg_interactive(&page.board.view, &page.board.marks, page.board.viewer);
    // The seat's own conditional lines (issue 32): only for the seat itself.
    let conditional = match (&page.viewer, credential) {
        (Some(_), Some(c)) => {
            steward.conditional(page.game.id.clone(), c, crate::steward::ConditionalOp::List, steward.now()).await.ok()
        }
        _ => None,
    };
    let conditional_offered = page.game.auth == "token" && page.game.secrecy == "hold";
    let ctx = context! {
        conditional => conditional.map(|c| Value::from(Serde(c))),
        conditional_offered => conditional_offered,
        game => Value::from(Serde(&page.game)),
        viewer => Value::from(Serde(&page.viewer)),
        board_svg => svg,
        record => Value::from(Serde(&page.record)),
        statuses => page.record.iter().any(|t| t.moves.len() > 1 || t.moves.iter().any(|m| m.status != "played")),
        legal => Value::from(Serde(&page.legal)),
        placing => !page.legal.is_empty() && page.legal.iter().all(|m| m.path.len() == 1),
        held => page.legal.iter().any(|m| !m.grip.is_empty()),
        marked => page.marked,
        has_pgn => page.has_pgn,
        turn_since => page.turn_since,
        fingerprint => page.fingerprint,
        public_url => steward.public_url(),
        flash => flash,
        error => error,
        ..v.context()
    };
    Ok(html(status, render("page/game.html", ctx)?))
}

/// Runs a form's act; on a refusal shows the game page again with the reason
/// (and the status that says it), else sends the browser back to the page.
async fn after_act(
    steward: &Steward,
    v: &Visitor,
    id: String,
    seat: &str,
    result: Result<(), StewardError>,
    done: &str,
) -> Result<Response, PageError> {
    let seat: String = seat.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    match result {
        Ok(()) => Ok(see_other(&format!("/games/{}?seat={seat}&done={done}", id.to_ascii_uppercase()), Vec::new())),
        Err(e) => match PageError::from(e) {
            PageError::Refused(status, message) => {
                game_response(steward, v, id, Some(seat), None, Some(message), status).await
            }
            other => Err(other),
        },
    }
}

#[derive(Deserialize)]
struct MoveForm {
    #[serde(default)]
    csrf: String,
    seat: Option<String>,
    turn: u32,
    #[serde(rename = "move")]
    text: String,
}

async fn send_move(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let (v, f, s) = acting_form::<MoveForm>(&steward, &headers, &body)?;
    let req = MoveRequest {
        game: id.clone(),
        credential: Some(acts_for(&s, f.seat.clone())),
        submission: Submission::Move { turn: f.turn, text: f.text },
        kept: steward.kept_copy(&body),
        door: crate::steward::Door::Web,
    };
    let (result, done) = match steward.submit_move(req, steward.now()).await {
        Ok(receipt) if receipt.resolved => (Ok(()), "turn"),
        Ok(_) => (Ok(()), "move"),
        Err(e) => (Err(e), "move"),
    };
    after_act(&steward, &v, id, f.seat.as_deref().unwrap_or_default(), result, done).await
}

#[derive(Deserialize)]
struct EnvelopeForm {
    #[serde(default)]
    csrf: String,
    seat: Option<String>,
    envelope: String,
}

/// A pasted envelope: a move, commitment or reveal, or a signed resignation or
/// draw action (games that want signatures or commit-reveal).
async fn send_envelope(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    use crate::protocol::{Action, Body, Envelope};
    let (v, f, s) = acting_form::<EnvelopeForm>(&steward, &headers, &body)?;
    let seat = f.seat.clone().unwrap_or_default();
    let env = match Envelope::find(&f.envelope) {
        Ok(Some(env)) => env,
        Ok(None) => {
            let e = Refusal::BadEnvelope("no envelope found: paste the whole block from -----BEGIN FAIRSTEWARD MOVE----- to -----END FAIRSTEWARD MOVE-----".into());
            return after_act(&steward, &v, id, &seat, Err(e.into()), "envelope").await;
        }
        Err(e) => {
            let e = Refusal::BadEnvelope(e.to_string());
            return after_act(&steward, &v, id, &seat, Err(e.into()), "envelope").await;
        }
    };
    let session = acts_for(&s, f.seat.clone());
    let now = steward.now();
    let result = match &env.body {
        Body::Action(Action::Resign) => {
            steward.resign(id.clone(), Some(Credential::Signed(env)), now).await.map(|_| ())
        }
        Body::Action(a @ (Action::OfferDraw | Action::AcceptDraw | Action::DeclineDraw)) => {
            let action = match a {
                Action::AcceptDraw => DrawAction::Accept,
                Action::DeclineDraw => DrawAction::Decline,
                _ => DrawAction::Offer,
            };
            steward.draw(id.clone(), Some(Credential::Signed(env)), action, now).await.map(|_| ())
        }
        Body::Action(Action::Leave { .. }) => steward.declare_leave_signed(env).await.map(|_| ()),
        _ => {
            let req = MoveRequest {
                game: id.clone(),
                credential: Some(session),
                submission: Submission::Envelope(env),
                kept: steward.kept_copy(&body),
                door: crate::steward::Door::Web,
            };
            steward.submit_move(req, now).await.map(|_| ())
        }
    };
    after_act(&steward, &v, id, &seat, result, "envelope").await
}

/// The page's form for conditional lines (issue 32): the lines in the mail
/// grammar, or `clear`.
#[derive(Deserialize)]
struct ConditionalForm {
    #[serde(default)]
    csrf: String,
    seat: Option<String>,
    #[serde(default)]
    lines: String,
    #[serde(default)]
    clear: Option<String>,
}

async fn set_conditional(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    use crate::steward::{ConditionalInput, ConditionalOp};
    let (v, f, s) = acting_form::<ConditionalForm>(&steward, &headers, &body)?;
    let credential = acts_for(&s, f.seat.clone());
    let clear = f.clear.is_some() || f.lines.trim().is_empty();
    let op = if clear { ConditionalOp::Clear } else { ConditionalOp::Set(ConditionalInput::Text(f.lines)) };
    let result = steward.conditional(id.clone(), credential, op, steward.now()).await.map(|_| ());
    let done = if clear { "conditional-clear" } else { "conditional" };
    after_act(&steward, &v, id, f.seat.as_deref().unwrap_or_default(), result, done).await
}

/// The page's form for the seat's OpenPGP key (issue 33): the armoured key,
/// or `remove`.
#[derive(Deserialize)]
struct OpenPgpKeyForm {
    #[serde(default)]
    csrf: String,
    seat: Option<String>,
    #[serde(default)]
    key: String,
    #[serde(default)]
    remove: Option<String>,
}

async fn set_openpgp_key(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let (v, f, s) = acting_form::<OpenPgpKeyForm>(&steward, &headers, &body)?;
    let credential = acts_for(&s, f.seat.clone());
    let seat = f.seat.clone().unwrap_or_default();
    let remove = f.remove.is_some();
    let key = (!remove).then_some(f.key);
    let result = steward.set_openpgp_key(id.clone(), seat.clone(), credential, key, steward.now()).await.map(|_| ());
    let done = if remove { "openpgp-key-removed" } else { "openpgp-key" };
    after_act(&steward, &v, id, &seat, result, done).await
}

#[derive(Deserialize)]
struct DrawForm {
    #[serde(default)]
    csrf: String,
    seat: Option<String>,
    action: DrawAction,
}

async fn draw(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let (v, f, s) = acting_form::<DrawForm>(&steward, &headers, &body)?;
    let credential = acts_for(&s, f.seat.clone());
    let result = steward.draw(id.clone(), Some(credential), f.action, steward.now()).await.map(|_| ());
    let done = match f.action {
        DrawAction::Offer => "draw-offer",
        DrawAction::Accept => "draw-accept",
        DrawAction::Decline => "draw-decline",
    };
    after_act(&steward, &v, id, f.seat.as_deref().unwrap_or_default(), result, done).await
}

/// The confirmation step before resigning.
async fn resign_page(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    Query(q): Query<GameQuery>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    let s = v.session.as_ref().ok_or(PageError::SignIn)?;
    let page = steward.page(id, Some(acts_for(s, q.seat))).await?;
    if page.game.outcome.is_some() {
        return Err(PageError::Refused(StatusCode::CONFLICT, "The game is over already.".into()));
    }
    let ctx = context! {
        game => Value::from(Serde(&page.game)),
        viewer => Value::from(Serde(&page.viewer)),
        ..v.context()
    };
    Ok(html(StatusCode::OK, render("page/resign.html", ctx)?))
}

#[derive(Deserialize)]
struct ResignForm {
    #[serde(default)]
    csrf: String,
    seat: Option<String>,
    #[serde(default)]
    confirm: String,
}

async fn resign(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, PageError> {
    let (v, f, s) = acting_form::<ResignForm>(&steward, &headers, &body)?;
    let seat = f.seat.clone().unwrap_or_default();
    if f.confirm != "yes" {
        // Never without the confirmation step.
        return Ok(see_other(&format!("/games/{}/resign?seat={seat}", id.to_ascii_uppercase()), Vec::new()));
    }
    let credential = acts_for(&s, f.seat.clone());
    let result = steward.resign(id.clone(), Some(credential), steward.now()).await.map(|_| ());
    after_act(&steward, &v, id, &seat, result, "resigned").await
}

// ---------------------------------------------------------------------------
// The player's page, leave, the calendar feed
// ---------------------------------------------------------------------------

async fn player_page(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    let Some(s) = &v.session else {
        if session::needs_reload(&headers, None) {
            return Ok(reload());
        }
        return Ok(see_other("/sign-in?next=/me", Vec::new()));
    };
    player_response(&steward, &v, s, None, None, StatusCode::OK).await
}

async fn player_response(
    steward: &Steward,
    v: &Visitor,
    s: &Session,
    flash: Option<&str>,
    error: Option<String>,
    status: StatusCode,
) -> Result<Response, PageError> {
    player_page_with(steward, v, s, None, flash, error, status).await
}

/// The player's page; `program` is the answer of a program password change
/// (issue 34): a password the steward chose is shown this once.
async fn player_page_with(
    steward: &Steward,
    v: &Visitor,
    s: &Session,
    program: Option<crate::steward::ProgramPasswordAnswer>,
    flash: Option<&str>,
    error: Option<String>,
    status: StatusCode,
) -> Result<Response, PageError> {
    let mut games = steward.player_games(s.address.clone()).await?;
    // Only the games this browser signed in for (issue 29).
    games.retain(|g| s.covers(&g.id));
    // The feed of the games this browser signed in for, with a key of its own.
    let calendar = steward.calendar_url(&s.address, &s.games);
    // Issue 32: the player's mail setting, for its form.
    let mail = me_forms::mail_setting(steward, s).await;
    // Issue 34: the program password's state (or the answer of its change).
    let program = match program {
        Some(p) => Some(p),
        None => program_form::current(steward, s).await,
    };
    let ctx = context! {
        mail => mail,
        program => program.map(|p| Value::from(Serde(p))),
        xfcc_url => format!("{}/xfcc/xfccbasic.asmx", steward.public_url()),
        games => Value::from(Serde(&games)),
        calendar_text => calendar.clone(),
        calendar => calendar,
        flash => flash,
        error => error,
        ..v.context()
    };
    Ok(html(status, render("page/player.html", ctx)?))
}

#[derive(Deserialize)]
struct LeaveForm {
    #[serde(default)]
    csrf: String,
    from: String,
    to: String,
}

async fn declare_leave(State(steward): State<Steward>, headers: HeaderMap, body: Bytes) -> Result<Response, PageError> {
    use crate::clock::leave::LeaveRequest;
    let (v, f, s) = acting_form::<LeaveForm>(&steward, &headers, &body)?;
    // Leave is the player's and stops every game's clocks: it takes a sign-in
    // for a running game, not one for finished games only (issue 29).
    let running = steward.player_games(s.address.clone()).await?.iter().any(|g| s.covers(&g.id) && g.outcome.is_none());
    let result = match LeaveRequest::new(&f.from, &f.to) {
        Ok(_) if !running => Err(Refusal::LeaveRefused(
            "this browser is signed in for finished games only, and leave stops the clocks of running ones; open the private link in the latest board mail of a running game, then declare leave here".into(),
        )
        .into()),
        Ok(request) => steward.declare_leave(s.address.clone(), request).await.map(|_| ()),
        Err(e) => Err(Refusal::BadRequest(format!("leave: {e}")).into()),
    };
    match result {
        Ok(()) => player_response(&steward, &v, &s, flash(Some("leave")), None, StatusCode::OK).await,
        Err(e) => match PageError::from(e) {
            PageError::Refused(status, message) => player_response(&steward, &v, &s, None, Some(message), status).await,
            other => Err(other),
        },
    }
}

// ---------------------------------------------------------------------------
// Rules for players
// ---------------------------------------------------------------------------

async fn rules_index(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    let ctx = context! { variants => VariantId::names().collect::<Vec<_>>(), ..v.context() };
    Ok(html(StatusCode::OK, render("page/rules_index.html", ctx)?))
}

async fn variant_rules(
    State(steward): State<Steward>,
    Path(variant): Path<String>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    let id: VariantId =
        variant.parse().map_err(|e: crate::rules::UnknownVariant| PageError::NotFound(format!("{e}.")))?;
    let rules = id.rulebook(&Options::new()).map_err(|e| PageError::Internal(e.to_string()))?;
    let ctx = context! {
        variant => id.name(),
        guide => rules.guide().map(super::guide::to_html),
        ..v.context()
    };
    Ok(html(StatusCode::OK, render("page/rules.html", ctx)?))
}

async fn game_rules(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let v = Visitor::of(&steward, &headers);
    let game = steward.status(id, None).await?;
    let variant: VariantId =
        game.variant.parse().map_err(|e: crate::rules::UnknownVariant| PageError::Internal(e.to_string()))?;
    let rules = variant.rulebook(&Options::new()).map_err(|e| PageError::Internal(e.to_string()))?;
    let options: Vec<(String, String)> = game
        .options
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
        .collect();
    let ctx = context! {
        variant => variant.name(),
        guide => rules.guide().map(super::guide::to_html),
        game => game.id,
        seats => game.seats.iter().map(|s| format!("{} ({})", s.seat, s.player)).collect::<Vec<_>>(),
        options => options,
        auth => game.auth,
        secrecy => game.secrecy,
        spectator_delay => game.spectator_delay,
        clock => game.clock.map(|c| c.description),
        ..v.context()
    };
    Ok(html(StatusCode::OK, render("page/rules.html", ctx)?))
}

// ---------------------------------------------------------------------------
// The record for download
// ---------------------------------------------------------------------------

/// The viewer's credential for a download: the session's seat, if it holds
/// one in the game (else a spectator's view).
async fn record_for(
    steward: &Steward,
    headers: &HeaderMap,
    id: String,
) -> Result<crate::steward::RecordExport, PageError> {
    let v = Visitor::of(steward, headers);
    let credential = v.session.as_ref().map(|s| acts_for(s, None));
    Ok(match steward.record(id.clone(), credential.clone()).await {
        Err(StewardError::Refused(Refusal::BadToken)) if credential.is_some() => steward.record(id, None).await?,
        other => other?,
    })
}

/// `Content-Disposition` for a download named after the game.
fn attachment(id: &str, ext: &str) -> HeaderValue {
    let id: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    HeaderValue::from_str(&format!("attachment; filename=\"fairsteward-{}.{ext}\"", id.to_ascii_uppercase()))
        .unwrap_or(HeaderValue::from_static("attachment"))
}

async fn record_pgn(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let export = record_for(&steward, &headers, id.clone()).await?;
    let pgn = export.pgn.ok_or_else(|| {
        PageError::NotFound("This game's variant has no PGN form; its record is at record.json.".into())
    })?;
    let mut r = pgn.into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(crate::rules::record::PGN_MEDIA_TYPE));
    r.headers_mut().insert(header::CONTENT_DISPOSITION, attachment(&id, "pgn"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(r)
}

async fn record_json(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let export = record_for(&steward, &headers, id.clone()).await?;
    let mut r = axum::Json(export.json).into_response();
    r.headers_mut().insert(header::CONTENT_DISPOSITION, attachment(&id, "json"));
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(r)
}

// ---------------------------------------------------------------------------
// Issue 32, slice M: the mail setting and another address, on /me
// ---------------------------------------------------------------------------

mod me_forms {
    use axum::body::Bytes;
    use axum::extract::State;
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::Response;
    use minijinja::Value;
    use minijinja::value::Serde;
    use serde::Deserialize;

    use super::{PageError, Session, acting_form, player_response};
    use crate::steward::{Asker, Credential, Steward};
    use crate::store::{AddressKind, Delivery, MailSettingsChange, Pictures};

    /// The form of the mail setting.
    #[derive(Deserialize)]
    pub(super) struct MailForm {
        #[serde(default)]
        pub(super) csrf: String,
        delivery: String,
        #[serde(default)]
        digest_hour: String,
        pictures: String,
        /// Issue 33: `encrypted` or `plain`; absent: unchanged.
        #[serde(default)]
        encrypt: String,
    }

    /// The form that asks for an alias or a new address.
    #[derive(Deserialize)]
    pub(super) struct AddressForm {
        #[serde(default)]
        pub(super) csrf: String,
        game: String,
        kind: String,
        address: String,
    }

    fn credential(s: &Session) -> Credential {
        Credential::Session { address: s.address.clone(), seat: None, games: s.games.clone() }
    }

    /// The player's mail setting, for the page (none if it cannot be read).
    pub(super) async fn mail_setting(steward: &Steward, s: &Session) -> Option<Value> {
        let m = steward.mail_settings(credential(s), MailSettingsChange::default()).await.ok()?;
        Some(Value::from(Serde(&m)))
    }

    /// The page again, with a word of what was done or why not.
    async fn answer(
        steward: &Steward,
        v: &super::Visitor,
        s: &Session,
        done: Result<String, crate::steward::StewardError>,
    ) -> Result<Response, PageError> {
        match done {
            Ok(word) => player_response(steward, v, s, Some(&word), None, StatusCode::OK).await,
            Err(e) => match PageError::from(e) {
                PageError::Refused(status, message) => {
                    player_response(steward, v, s, None, Some(message), status).await
                }
                other => Err(other),
            },
        }
    }

    /// `POST /me/mail`.
    pub(super) async fn set_mail(
        State(steward): State<Steward>,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<Response, PageError> {
        let (v, f, s) = acting_form::<MailForm>(&steward, &headers, &body)?;
        let bad = |what: &str| {
            PageError::Refused(
                StatusCode::BAD_REQUEST,
                format!("{what}; choose one of the form's options and send it again."),
            )
        };
        let delivery =
            Delivery::parse(f.delivery.trim()).ok_or_else(|| bad("That delivery is not one the steward knows"))?;
        let pictures = Pictures::parse(f.pictures.trim())
            .ok_or_else(|| bad("That picture setting is not one the steward knows"))?;
        let digest_hour = match f.digest_hour.trim() {
            "" => None,
            h => Some(h.parse::<u8>().map_err(|_| bad("The digest hour is a whole number from 0 to 23"))?),
        };
        let encrypt = match f.encrypt.trim() {
            "" => None,
            "encrypted" => Some(true),
            "plain" => Some(false),
            _ => return Err(bad("That encryption setting is not one the steward knows")),
        };
        let change = MailSettingsChange { delivery: Some(delivery), digest_hour, pictures: Some(pictures), encrypt };
        let done = steward
            .mail_settings(credential(&s), change)
            .await
            .map(|m| format!("Your mail setting is saved: {}.", m.message));
        answer(&steward, &v, &s, done).await
    }

    /// `POST /me/address`.
    pub(super) async fn ask_address(
        State(steward): State<Steward>,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<Response, PageError> {
        let (v, f, s) = acting_form::<AddressForm>(&steward, &headers, &body)?;
        let kind = match f.kind.trim() {
            "alias" => AddressKind::Alias,
            "email" => AddressKind::Email,
            _ => {
                return Err(PageError::Refused(
                    StatusCode::BAD_REQUEST,
                    "Choose whether the address is an alias or your new address, and send the form again.".into(),
                ));
            }
        };
        let asker = Asker::Session { address: s.address.clone(), games: s.games.clone() };
        let now = steward.now();
        let done = steward
            .request_address(f.game.trim().to_owned(), asker, kind, f.address.trim().to_owned(), now)
            .await
            .map(|r| format!("Asked: {}.", r.message));
        answer(&steward, &v, &s, done).await
    }
}

// ---------------------------------------------------------------------------
// Issue 34: the password for programs (Xfcc), on /me
// ---------------------------------------------------------------------------

mod program_form {
    use axum::body::Bytes;
    use axum::extract::State;
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::Response;
    use serde::Deserialize;

    use super::{PageError, Session, acting_form, player_page_with};
    use crate::steward::{Credential, PasswordChange, ProgramPasswordAnswer, Steward};

    /// The form of the program password.
    #[derive(Deserialize)]
    pub(super) struct PasswordForm {
        #[serde(default)]
        pub(super) csrf: String,
        #[serde(default)]
        password: String,
        #[serde(default)]
        action: String,
    }

    fn credential(s: &Session) -> Credential {
        Credential::Session { address: s.address.clone(), seat: None, games: s.games.clone() }
    }

    /// Whether a program password is set, for the page.
    pub(super) async fn current(steward: &Steward, s: &Session) -> Option<ProgramPasswordAnswer> {
        steward.program_password(credential(s), PasswordChange::Keep).await.ok()
    }

    /// `POST /me/program-password`.
    pub(super) async fn set_password(
        State(steward): State<Steward>,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<Response, PageError> {
        let (v, f, s) = acting_form::<PasswordForm>(&steward, &headers, &body)?;
        let change = match f.action.trim() {
            "" | "set" => PasswordChange::Set(f.password),
            "generate" => PasswordChange::Generate,
            "add_games" => PasswordChange::AddGames,
            "remove" => PasswordChange::Remove,
            _ => {
                return Err(PageError::Refused(
                    StatusCode::BAD_REQUEST,
                    "Choose one of the form's actions (set, generate, add my games, remove) and send it again.".into(),
                ));
            }
        };
        match steward.program_password(credential(&s), change).await {
            Ok(answer) => {
                let word = format!("Saved: {}.", answer.message);
                player_page_with(&steward, &v, &s, Some(answer), Some(&word), None, StatusCode::OK).await
            }
            Err(e) => match PageError::from(e) {
                PageError::Refused(status, message) => {
                    player_page_with(&steward, &v, &s, None, None, Some(message), status).await
                }
                other => Err(other),
            },
        }
    }
}
