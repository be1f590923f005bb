//! The HTTP door: a JSON API under `/api` (axum). Handlers are thin: they read
//! the request, call the steward once, and map its answer to a status code and a
//! JSON body. Every error has the shape `{"error": "<code>", "message": "<what was
//! wrong and what to send instead>"}`; internal errors are logged and answered
//! with a generic message (nothing was accepted, resend).

mod api_examples; // issue 34: the answers' examples in the OpenAPI document
mod api_page; // issue 34: the OpenAPI document as a page
mod conditional_api; // issue 32, slice C
mod desk_api; // the organiser's desk (issue 31)
mod desk_pages;
pub mod events; // issue 34: live game events
mod guide;
mod invitation_api; // issue 31, slice D
mod invitation_pages; // issue 31, slice D
pub mod listen;
mod lists; // legal moves over HTTP (issue 32, slice T)
mod mail_settings; // issue 32, slice M
mod openapi; // issue 34: the API's OpenAPI document
mod openpgp_api; // issue 33: a seat's OpenPGP key
pub mod operator_endpoints; // issue 36: GET /metrics and GET /health
mod pages;
pub mod session;
mod tournament_api;
mod tournament_pages;
pub mod xfcc; // issue 34: Xfcc for correspondence programs

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::protocol::{Envelope, OperatorToken};
use crate::render::cache::{PictureError, Pictures};
use crate::steward::{Asker, Credential, DrawAction, MoveRequest, NewGame, Refusal, Steward, StewardError, Submission};
use crate::store::AddressKind;

/// The largest request body accepted (a move is a few dozen bytes).
pub const BODY_LIMIT: usize = 64 * 1024;

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into() }
    }
}

impl From<StewardError> for ApiError {
    fn from(e: StewardError) -> ApiError {
        match e {
            StewardError::Refused(r) => {
                let status = match &r {
                    Refusal::UnknownGame(_) | Refusal::UnknownTournament(_) => StatusCode::NOT_FOUND,
                    Refusal::Forbidden(_) => StatusCode::FORBIDDEN,
                    Refusal::BadToken => StatusCode::UNAUTHORIZED,
                    Refusal::WrongTurn { .. }
                    | Refusal::TurnResolved { .. }
                    | Refusal::NotYourTurn { .. }
                    | Refusal::AlreadyMoved { .. }
                    | Refusal::GameOver(_)
                    | Refusal::Replayed(_)
                    | Refusal::RevealTooEarly { .. }
                    | Refusal::LeaveRefused(_)
                    | Refusal::NoDrawOffered(_) => StatusCode::CONFLICT,
                    Refusal::IllegalMove(_)
                    | Refusal::EnvelopeMismatch(_)
                    | Refusal::NotCommitReveal
                    | Refusal::CommitFirst
                    | Refusal::NoCommitment { .. }
                    | Refusal::RevealMismatch { .. } => StatusCode::UNPROCESSABLE_ENTITY,
                    Refusal::BadSignature(_) | Refusal::SignatureRequired | Refusal::SignedActionRequired { .. } => {
                        StatusCode::FORBIDDEN
                    }
                    Refusal::BadRequest(_) | Refusal::BadGame(_) | Refusal::BadEnvelope(_) => StatusCode::BAD_REQUEST,
                    // issue 33: only the mail door meets encrypted replies
                    Refusal::Undecryptable(_) => StatusCode::BAD_REQUEST,
                    Refusal::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
                    // issue 31
                    Refusal::UnknownInvitation(_) => StatusCode::NOT_FOUND,
                    Refusal::InvitationClosed(_) => StatusCode::CONFLICT,
                    // issue 32, slice C
                    Refusal::BadConditional(_) => StatusCode::UNPROCESSABLE_ENTITY,
                    Refusal::ConditionalNotOffered(_) => StatusCode::CONFLICT,
                };
                ApiError::new(status, r.code(), r.message(crate::steward::Door::Http))
            }
            StewardError::Unavailable(detail) => {
                tracing::error!(error = %detail, "the store was unavailable answering a request");
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    "the steward's store is unavailable for the moment and accepted nothing; please send it again in a minute",
                )
            }
            StewardError::Internal(detail) => {
                tracing::error!(error = %detail, "internal error answering a request");
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "the steward could not process this request and accepted nothing; please send it again later",
                )
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(json!({"error": self.code, "message": self.message}))).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// Reads a JSON body into `T`, with a message that says what is wrong.
fn json_body<T: serde::de::DeserializeOwned>(body: &Bytes, example: &str) -> Result<T, ApiError> {
    // serde reads a struct from an array too; the API takes objects only.
    if body.trim_ascii_start().first() != Some(&b'{') {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the body is not valid here: it must be a JSON object; send JSON like {example}"),
        ));
    }
    serde_json::from_slice(body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the body is not valid here: {e}; send JSON like {example}"),
        )
    })
}

/// The seat token from `Authorization: Bearer <token>`.
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
}

/// The API router over a steward; creating a game needs the `operator` token.
/// It serves `/health`, and `/metrics` to loopback clients (issue 36).
pub fn router(steward: Steward, operator: Arc<OperatorToken>) -> Router {
    router_with_metrics(steward, operator, operator_endpoints::MetricsPlace::Loopback)
}

/// [`router`], with `/metrics` served where `metrics` says (issue 36).
pub fn router_with_metrics(
    steward: Steward,
    operator: Arc<OperatorToken>,
    metrics: operator_endpoints::MetricsPlace,
) -> Router {
    let (api, doc) = api_routes().split_for_parts();
    let json = openapi::to_json(&openapi::finish(doc));
    let page = api_page_body(&json);
    // Made once; each answer shares its bytes.
    let document = Bytes::from(json);
    api.route(
        "/api/openapi.json",
        get(move || std::future::ready(([(header::CONTENT_TYPE, "application/json")], document.clone()))),
    )
    .route(
        "/api",
        get(move || {
            std::future::ready(match &page {
                Ok(body) => pages::html(StatusCode::OK, body.to_string()),
                Err(e) => pages::PageError::Internal(e.clone()).into_response(),
            })
        }),
    )
    .merge(xfcc::router()) // issue 34: the Xfcc SOAP door
    .merge(pages::router())
    .merge(desk_pages::router())
    .merge(tournament_pages::router())
    .merge(invitation_pages::router()) // issue 31, slice D
    .fallback(not_found)
    .layer(DefaultBodyLimit::max(BODY_LIMIT))
    .layer(Extension(Arc::new(Pictures::default())))
    .layer(Extension(operator))
    .layer(axum::middleware::map_response(json_errors))
    .layer(axum::middleware::from_fn(private_answers))
    // After the layers: their plain-text answers keep their shape (issue 36).
    .merge(operator_endpoints::main_routes(metrics))
    .with_state(steward)
}

/// The API's routes, each registered from its handler's OpenAPI annotation
/// (issue 34), with the document they make.
fn api_routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(steward_keys))
        // The desk (issue 31): an organiser lists the games.
        .routes(routes!(desk_api::list_games, create_game))
        .routes(routes!(desk_api::my_games))
        .routes(routes!(show_game))
        .routes(routes!(submit_move))
        .merge(lists::routes()) // issue 32, slice T
        .routes(routes!(resign))
        .routes(routes!(draw))
        .routes(routes!(request_alias))
        .routes(routes!(request_email))
        .routes(routes!(transcript))
        .merge(events::routes()) // issue 34
        .routes(routes!(board_svg))
        .routes(routes!(board_png))
        .routes(routes!(record_pgn))
        .routes(routes!(record_json))
        .merge(conditional_api::routes()) // issue 32, slice C
        .merge(openpgp_api::routes()) // issue 33
        // Clocks: leave and the calendar feed.
        .routes(routes!(leave_status, declare_leave))
        .routes(routes!(seat_leave_status, seat_declare_leave))
        .merge(gone_routes())
        .routes(routes!(calendar))
        .merge(mail_settings::routes()) // issue 32, slice M; issue 34
        .routes(routes!(steward_asc))
        .merge(desk_api::routes()) // the desk's tools on a game (issue 31)
        .merge(tournament_api::routes()) // issue 31
        .merge(invitation_api::routes()) // issue 31, slice D
}

/// The routes kept only to say they are gone (deprecated in the document).
#[allow(deprecated)]
fn gone_routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new().routes(routes!(seat_token_calendar_gone))
}

/// The API's page (`/api`), made once from the document: a person's reading of it.
fn api_page_body(document: &str) -> Result<Arc<str>, String> {
    let doc = serde_json::from_str(document).map_err(|e| format!("the OpenAPI document does not read back: {e}"))?;
    match pages::render("page/api.html", api_page::context(&doc)) {
        Ok(body) => Ok(body.into()),
        Err(pages::PageError::Internal(e)) => Err(e),
        Err(_) => Err("the API page could not be made".to_owned()),
    }
}

/// The API's OpenAPI document, as `/api/openapi.json` serves it.
pub fn openapi_document() -> String {
    openapi::to_json(&openapi::finish(api_routes().split_for_parts().1))
}

/// Headers for answers that may hold private content (issue 29): every answer
/// gets `X-Content-Type-Options: nosniff`, and every answer to a request that
/// carried a credential or that hands out secrets gets `Cache-Control:
/// no-store` (overriding a handler's `no-cache`), so no browser or proxy cache
/// keeps a seat's pending move or tokens. See [`is_private`].
async fn private_answers(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let private = is_private(request.method(), request.uri().path(), request.headers());
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, header::HeaderValue::from_static("nosniff"));
    // A handler's `public` answer (the style sheet, the script) is the same for
    // everyone, session or not: it may stay cached.
    let public = headers
        .get(header::CACHE_CONTROL)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|d| d.trim().eq_ignore_ascii_case("public")));
    if private && !public {
        headers.insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    }
    response
}

/// Whether a request's answer may be private: it carried an `Authorization`
/// header or the session cookie, it names a secret in its path (a seat token
/// under `/api/seats/`, a calendar key under `/api/calendar/`), or it is not a
/// plain read (a created game's seat tokens, a receipt, a sign-in).
fn is_private(method: &axum::http::Method, path: &str, headers: &HeaderMap) -> bool {
    let session = headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).any(|cookies| {
        cookies.split(';').any(|c| c.trim().split('=').next().is_some_and(|name| name == session::COOKIE))
    });
    headers.contains_key(header::AUTHORIZATION)
        || session
        || path.starts_with("/api/seats/")
        || path.starts_with("/api/calendar/")
        || path.starts_with("/api/invitations/") // issue 31: an invitation's token
        || path.starts_with("/invitations/")
        || !(method == axum::http::Method::GET || method == axum::http::Method::HEAD)
}

/// Gives the answers axum makes itself (wrong method, body too large, …) the
/// API's error shape.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    // The pages answer their errors as pages (text/html).
    let is_page = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    // The Xfcc door (issue 34) answers its errors as SOAP Faults (text/xml).
    let is_xml = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/xml"));
    if !(status.is_client_error() || status.is_server_error()) || is_json || is_page || is_xml {
        return response;
    }
    let (code, message) = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            ("method_not_allowed", "this endpoint does not take this method; see docs/http-api.md".to_owned())
        }
        StatusCode::PAYLOAD_TOO_LARGE => (
            "too_large",
            format!("the body is larger than {} KiB; a move or a game is a few hundred bytes", BODY_LIMIT / 1024),
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            ("bad_request", "send the body as JSON, or an envelope as text/plain".to_owned())
        }
        s if s.is_server_error() => {
            ("internal", "the steward could not answer; nothing was accepted; please send it again later".to_owned())
        }
        s => ("bad_request", format!("the request was not understood ({s}); see docs/http-api.md")),
    };
    ApiError::new(status, code, message).into_response()
}

/// No route: a JSON error under `/api`, a page elsewhere.
async fn not_found(uri: axum::http::Uri) -> Response {
    if uri.path() == "/api" || uri.path().starts_with("/api/") {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such endpoint; the API is under /api/games (see docs/http-api.md)",
        )
        .into_response()
    } else {
        pages::not_found_page().await
    }
}

/// Refuses a request without `Authorization: Bearer <operator token>`.
fn operator_only(operator: &OperatorToken, headers: &HeaderMap) -> Result<(), ApiError> {
    match bearer(headers) {
        Some(token) if operator.matches(&token) => Ok(()),
        given => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "operator_token_required",
            if given.is_some() {
                "this is not the operator token; creating a game needs Authorization: Bearer <operator token>, which `fairsteward operator-token` prints on the steward's host"
            } else {
                "creating a game needs the operator token: send Authorization: Bearer <operator token>, which `fairsteward operator-token` prints on the steward's host"
            },
        )),
    }
}

/// Creates a game (or, with `"invite": true`, invites its players).
#[utoipa::path(
    post,
    path = "/api/games",
    tag = "games",
    security(("operator" = [])),
    request_body(content = NewGame, example = json!({"variant": crate::rules::VariantId::HEADLINE.to_string(), "options": {}, "seats": [{"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]})),
    responses(
        (status = 201, description = "The game, and one token per seat (shown only this once); with `\"invite\": true`, the invited game's invitations instead.", body = invitation_api::CreatedOrInvited, example = json!(api_examples::created_game())),
        (status = 400, description = "The body is not a game: an unknown variant or option, a bad address or key, the wrong number of seats.", body = openapi::ErrorBody),
        (status = 401, description = "No operator token, or not the operator token.", body = openapi::ErrorBody),
    )
)]
async fn create_game(
    State(steward): State<Steward>,
    Extension(operator): Extension<Arc<OperatorToken>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    operator_only(&operator, &headers)?;
    let new: NewGame = json_body(
        &body,
        &format!(
            r#"{{"variant": "{}", "options": {{}}, "seats": [{{"name": "Alice", "email": "alice@example.org"}}, {{"name": "Bob", "email": "bob@example.org"}}]}}"#,
            crate::rules::VariantId::HEADLINE
        ),
    )?;
    // Invited seats (issue 31): the game waits for its players' answers.
    if new.invite {
        let invited = steward.invite_game(new, steward.now()).await?;
        return Ok((StatusCode::CREATED, Json(invited)).into_response());
    }
    let created = steward.create_game(new, steward.now()).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// A game as the caller sees it: a seat's token shows that seat's own pending
/// move; without one, the public view (held back by the spectator delay).
#[utoipa::path(
    get,
    path = "/api/games/{id}",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security((), ("seat" = [])),
    responses(
        (status = 200, description = "The game.", body = crate::steward::GameView, example = json!(api_examples::game())),
        (status = 401, description = "The token is not one of this game's seats.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
    )
)]
async fn show_game(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    Ok(Json(steward.status(id, Credential::token(bearer(&headers))).await?).into_response())
}

/// The JSON forms of a submission: a move, a commitment, or a reveal (move + salt).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    turn: u32,
    #[serde(rename = "move")]
    text: Option<String>,
    commit: Option<String>,
    salt: Option<String>,
}

impl MoveBody {
    fn submission(self) -> Result<Submission, ApiError> {
        let turn = self.turn;
        match (self.text, self.commit, self.salt) {
            (Some(text), None, None) => Ok(Submission::Move { turn, text }),
            (None, Some(commitment), None) => Ok(Submission::Commit { turn, commitment }),
            (Some(text), None, Some(salt)) => Ok(Submission::Reveal { turn, text, salt }),
            _ => Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                r#"the body names no move; send JSON like {"turn": 1, "move": "Nf3"} (in commit-reveal games {"turn": 1, "commit": "<64 hex digits>"}, then {"turn": 1, "move": "Nf3", "salt": "<hex>"})"#,
            )),
        }
    }
}

/// The JSON forms of a submission as the document states them: [`MoveBody`]
/// reads all three and says which fields it missed.
#[derive(utoipa::ToSchema)]
#[schema(example = json!({"turn": 1, "move": "Nf3"}))]
#[serde(untagged)]
#[allow(dead_code)] // the document's schema only
enum MoveForm {
    Move(JustMove),
    Commit(Commitment),
    Reveal(Reveal),
}

/// A move.
#[derive(utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the document's schema only
struct JustMove {
    /// The turn the move is for: the game's `turn`.
    #[schema(minimum = 1)]
    turn: u32,
    /// The move in the variant's notation (the one its board mails and legal moves show).
    #[serde(rename = "move")]
    text: String,
}

/// Commit-reveal games: a commitment.
#[derive(utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the document's schema only
struct Commitment {
    /// The turn the commitment is for.
    #[schema(minimum = 1)]
    turn: u32,
    /// The commitment: 64 hex digits.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    commit: String,
}

/// Commit-reveal games: the reveal of a commitment, once every seat has committed.
#[derive(utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the document's schema only
struct Reveal {
    /// The turn the reveal is for.
    #[schema(minimum = 1)]
    turn: u32,
    /// The move committed to.
    #[serde(rename = "move")]
    text: String,
    /// The commitment's salt, hex.
    #[schema(pattern = "^[0-9a-fA-F]+$")]
    salt: String,
}

/// Whether the body is meant as envelope text rather than JSON.
/// The envelope a text/plain body holds; `or` says what else the endpoint takes.
fn envelope_body(body: &[u8], or: &str) -> Result<Envelope, ApiError> {
    let text = std::str::from_utf8(body).map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_envelope",
            "the envelope is not UTF-8 text; send it as `fairsteward player` prints it",
        )
    })?;
    match Envelope::find(text) {
        Ok(Some(env)) => Ok(env),
        Ok(None) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_envelope",
            format!(
                "no envelope found: a text/plain body must hold a block from -----BEGIN FAIRSTEWARD MOVE----- to -----END FAIRSTEWARD MOVE-----; or send {or}"
            ),
        )),
        Err(e) => Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_envelope", e.to_string())),
    }
}

fn is_envelope(headers: &HeaderMap, body: &[u8]) -> bool {
    let text_plain = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().to_ascii_lowercase().starts_with("text/plain"));
    text_plain || body.trim_ascii_start().starts_with(b"-----BEGIN")
}

/// The steward's public keys.
#[derive(serde::Serialize, utoipa::ToSchema)]
struct StewardKeys {
    /// Its Ed25519 signing key (base64): receipts, transcript heads and mails are signed with it.
    signing_key: String,
    /// Its X25519 sealing key (base64): sealed envelopes are sealed to it.
    sealing_key: String,
    /// The fingerprint of both.
    fingerprint: String,
    /// Its OpenPGP key (issue 33); null until it has one.
    openpgp: Option<StewardOpenPgp>,
}

/// The steward's OpenPGP key.
#[derive(serde::Serialize, utoipa::ToSchema)]
struct StewardOpenPgp {
    /// The key's fingerprint.
    fingerprint: String,
    /// Its user id.
    user_id: Option<String>,
    /// The public key, ASCII armour.
    key: String,
    /// Where the same is served as a file: `/steward.asc`.
    url: String,
}

/// The steward's public keys: what players check its signatures with and seal
/// their moves to.
#[utoipa::path(get, path = "/api/steward", tag = "steward", responses((status = 200, description = "The keys.", body = StewardKeys, example = json!(api_examples::steward_keys()))))]
async fn steward_keys(State(steward): State<Steward>) -> Json<StewardKeys> {
    let keys = steward.keys();
    Json(StewardKeys {
        signing_key: keys.signing_public_base64(),
        sealing_key: keys.sealing_public_base64(),
        fingerprint: keys.fingerprint(),
        openpgp: keys.openpgp().map(|k| StewardOpenPgp {
            fingerprint: k.fingerprint(),
            user_id: k.user_id(),
            key: k.public_armored(),
            url: "/steward.asc".to_owned(),
        }),
    })
}

/// The steward's OpenPGP public key as a file (issue 33).
///
/// What players import to encrypt their replies to it and to check its signed
/// mails.
#[utoipa::path(
    get,
    path = "/steward.asc",
    tag = "steward",
    responses(
        (status = 200, description = "The steward's OpenPGP public key, ASCII armour (as an attachment named `steward.asc`).", body = String, content_type = "application/pgp-keys",
            example = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n...\n-----END PGP PUBLIC KEY BLOCK-----\n"),
        (status = 404, description = "The steward has no OpenPGP key yet.", body = openapi::ErrorBody),
    )
)]
async fn steward_asc(State(steward): State<Steward>) -> Response {
    match steward.keys().openpgp() {
        Some(k) => (
            [
                (header::CONTENT_TYPE, "application/pgp-keys"),
                (header::CONTENT_DISPOSITION, "attachment; filename=\"steward.asc\""),
            ],
            k.public_armored(),
        )
            .into_response(),
        None => ApiError::new(StatusCode::NOT_FOUND, "not_found", "the steward has no OpenPGP key yet").into_response(),
    }
}

/// Submits a move, a commitment or a reveal: as JSON with the seat token, or
/// as a signed envelope (text/plain, the block `fairsteward player` prints).
#[utoipa::path(
    post,
    path = "/api/games/{id}/moves",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security(("seat" = []), ()),
    request_body(content(
        (MoveForm = "application/json"),
        (String = "text/plain", example = "-----BEGIN FAIRSTEWARD MOVE-----\n...\n-----END FAIRSTEWARD MOVE-----"),
    )),
    responses(
        (status = 200, description = "The receipt; the same again for a repeat.", body = crate::steward::Receipt, example = json!(api_examples::receipt())),
        (status = 400, description = "The body is neither a move nor an envelope.", body = openapi::ErrorBody),
        (status = 401, description = "No seat token, or not one of this game's.", body = openapi::ErrorBody),
        (status = 403, description = "The game needs a signed move, or the signature does not verify.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
        (status = 409, description = "Not this seat's turn, the wrong turn number, a move already in, or the game is over.", body = openapi::ErrorBody),
        (status = 422, description = "The move is illegal, or the commitment or reveal does not fit.", body = openapi::ErrorBody),
    )
)]
async fn submit_move(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let token = bearer(&headers);
    let submission = if is_envelope(&headers, &body) {
        Submission::Envelope(envelope_body(&body, "JSON {\"turn\": N, \"move\": \"Nf3\"}")?)
    } else {
        if token.is_none() {
            return Err(StewardError::Refused(Refusal::BadToken).into());
        }
        json_body::<MoveBody>(&body, r#"{"turn": 1, "move": "Nf3"}"#)?.submission()?
    };
    let kept = steward.kept_copy(&body);
    let req = MoveRequest {
        game: id,
        credential: Credential::token(token),
        submission,
        kept,
        door: crate::steward::Door::Http,
    };
    Ok(Json(steward.submit_move(req, steward.now()).await?).into_response())
}

/// Resigns the seat.
///
/// With the seat token, or (required where the game needs signatures) with a
/// signed `action: resign` envelope as the body. With the token the body is
/// empty (or `{}`). A game of more seats that can go on without the seat goes
/// on; else it is over.
#[utoipa::path(
    post,
    path = "/api/games/{id}/resign",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security(("seat" = []), ()),
    request_body(
        description = "No body (or `{}`) with the seat's token; or a signed `action: resign` envelope as text/plain (required where the game needs signatures).",
        content(
            (Option<desk_api::EmptyBody> = "application/json", example = json!({})),
            (Option<String> = "text/plain", example = "-----BEGIN FAIRSTEWARD MOVE-----\n...\n-----END FAIRSTEWARD MOVE-----"),
        ),
    ),
    responses(
        (status = 200, description = "The game after the resignation.", body = crate::steward::GameView, example = json!(api_examples::game())),
        (status = 400, description = "The body is neither empty nor an envelope, the envelope asks for something else, or the seat cannot resign alone in this game.", body = openapi::ErrorBody),
        (status = 401, description = "No seat token (and no envelope), or not one of this game's.", body = openapi::ErrorBody),
        (status = 403, description = "The game needs a signed resignation, or the signature does not verify.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
        (status = 409, description = "The game is over.", body = openapi::ErrorBody),
        (status = 422, description = "The envelope is for another game, seat or turn.", body = openapi::ErrorBody),
    )
)]
async fn resign(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    // No body (or an empty JSON object, or JSON null, as JSON clients send):
    // the seat token.
    let unsigned = body.iter().all(u8::is_ascii_whitespace)
        || serde_json::from_slice::<Option<serde_json::Map<String, serde_json::Value>>>(&body)
            .is_ok_and(|m| m.is_none_or(|m| m.is_empty()));
    let credential = if unsigned {
        Credential::token(bearer(&headers))
    } else {
        Some(Credential::Signed(envelope_body(&body, "no body (or {}), with the seat token")?))
    };
    Ok(Json(steward.resign(id, credential, steward.now()).await?).into_response())
}

/// What a seat does about a draw.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"action": "offer"}))]
struct DrawBody {
    /// `offer` (or accept the offers made: the same), `accept` or `decline`.
    action: DrawAction,
}

/// Offers, accepts or declines a draw for the seat.
///
/// The game is drawn when every seat offers; offers lapse when a turn resolves.
#[utoipa::path(
    post,
    path = "/api/games/{id}/draw",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security(("seat" = []), ()),
    request_body(
        description = "`{\"action\": \"offer\"|\"accept\"|\"decline\"}` with the seat's token (no body: an offer); or a signed `action: draw-offer|draw-accept|draw-decline` envelope as text/plain.",
        content(
            (Option<DrawBody> = "application/json", example = json!({"action": "offer"})),
            (Option<String> = "text/plain", example = "-----BEGIN FAIRSTEWARD MOVE-----\n...\n-----END FAIRSTEWARD MOVE-----"),
        ),
    ),
    responses(
        (status = 200, description = "The game after the offer, acceptance or decline (drawn when every seat offered).", body = crate::steward::GameView, example = json!(api_examples::game())),
        (status = 400, description = "The body is not an action, or the envelope holds something else.", body = openapi::ErrorBody),
        (status = 401, description = "No seat token (and no envelope), or not one of this game's.", body = openapi::ErrorBody),
        (status = 403, description = "The game needs a signed action, or the signature does not verify.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
        (status = 409, description = "The game is over, or a decline with no offer standing.", body = openapi::ErrorBody),
        (status = 422, description = "The envelope is for another game, seat or turn.", body = openapi::ErrorBody),
    )
)]
async fn draw(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    const EXAMPLE: &str = r#"{"action": "offer"} (or "accept", "decline")"#;
    let mut credential = Credential::token(bearer(&headers));
    let action = if body.iter().all(u8::is_ascii_whitespace) {
        DrawAction::Offer
    } else if is_envelope(&headers, &body) {
        // A signed draw offer, accept or decline: the envelope says which.
        let env = envelope_body(&body, EXAMPLE)?;
        let action = match &env.body {
            crate::protocol::Body::Action(crate::protocol::Action::OfferDraw) => DrawAction::Offer,
            crate::protocol::Body::Action(crate::protocol::Action::AcceptDraw) => DrawAction::Accept,
            crate::protocol::Body::Action(crate::protocol::Action::DeclineDraw) => DrawAction::Decline,
            other => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_envelope",
                    format!(
                        "this envelope holds a {}, not `action: draw-offer`, `draw-accept` or `draw-decline`",
                        other.kind()
                    ),
                ));
            }
        };
        credential = Some(Credential::Signed(env));
        action
    } else if body.trim_ascii() == b"null" {
        DrawAction::Offer // JSON null, as JSON clients send for no body
    } else {
        json_body::<DrawBody>(&body, EXAMPLE)?.action
    };
    Ok(Json(steward.draw(id, credential, action, steward.now()).await?).into_response())
}

/// The body of an alias or change-of-address request.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"address": "alice@example.net"}))]
struct AddressBody {
    /// The new address.
    #[schema(format = Email)]
    address: String,
}

/// Asks for an alias: another address the seat's player may act from by mail.
///
/// `POST /api/games/{id}/aliases`: the steward mails a confirmation to the
/// address; it acts for the player once that mail is answered from it.
#[utoipa::path(
    post,
    path = "/api/games/{id}/aliases",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security(("seat" = [])),
    request_body(content = AddressBody, example = json!({"address": "alice@example.net"})),
    responses(
        (status = 202, description = "Asked: a confirmation mail went to the address.", body = crate::steward::AddressRequest),
        (status = 400, description = "The body is not `{\"address\": …}`, or the address is not one, is the steward's own or is the seat's already.", body = openapi::ErrorBody),
        (status = 401, description = "No seat token, or not one of this game's.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
    )
)]
async fn request_alias(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    request_address(steward, id, &headers, &body, AddressKind::Alias).await
}

/// Asks for a new registered address for the seat.
///
/// `POST /api/games/{id}/email`: the steward mails a confirmation to the new
/// address and a word to the registered one; the new address is the seat's
/// once the confirmation is answered from it.
#[utoipa::path(
    post,
    path = "/api/games/{id}/email",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security(("seat" = [])),
    request_body(content = AddressBody, example = json!({"address": "alice@example.net"})),
    responses(
        (status = 202, description = "Asked: a confirmation mail went to the new address.", body = crate::steward::AddressRequest),
        (status = 400, description = "The body is not `{\"address\": …}`, or the address is not one, is the steward's own or is the seat's already.", body = openapi::ErrorBody),
        (status = 401, description = "No seat token, or not one of this game's.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
    )
)]
async fn request_email(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    request_address(steward, id, &headers, &body, AddressKind::Email).await
}

async fn request_address(
    steward: Steward,
    id: String,
    headers: &HeaderMap,
    body: &Bytes,
    kind: AddressKind,
) -> Result<Response, ApiError> {
    let token = bearer(headers).ok_or(StewardError::Refused(Refusal::BadToken))?;
    let b: AddressBody = json_body(body, r#"{"address": "you@example.org"}"#)?;
    let asked = steward.request_address(id, Asker::Token(token), kind, b.address, steward.now()).await?;
    Ok((StatusCode::ACCEPTED, Json(asked)).into_response())
}

/// The game's transcript: every accepted event, as JSON lines.
///
/// With the server's time; a pending move never appears in it. Each line:
/// `{"game", "seq", "at", "kind", "prev", "hash", "body"}`, and `"signature"`
/// where the event came signed; `prev` and `hash` chain the entries
/// (`fairsteward verify` checks them). Spectators of a game with a spectator
/// delay get it up to the last turn shown to them.
#[utoipa::path(
    get,
    path = "/api/games/{id}/transcript",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security((), ("seat" = [])),
    responses(
        (status = 200, description = "The transcript, one JSON object a line.", body = String, content_type = "application/x-ndjson",
            example = "{\"game\":\"8KQ2ZJ\",\"seq\":1,\"at\":\"2026-12-07T10:00:00Z\",\"kind\":\"created\",\"prev\":\"…\",\"hash\":\"…\",\"body\":{}}\n"),
        (status = 401, description = "The token is not one of this game's seats.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
    )
)]
async fn transcript(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let events = steward.transcript(id.clone(), Credential::token(bearer(&headers))).await?;
    let lines = crate::steward::transcript_lines(&id, &events);
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], lines).into_response())
}

/// The query of the board pictures: `?seat=<name or number>` for that seat's side,
/// and for PNG `&size=<pixels>`.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct BoardQuery {
    /// The seat whose side the board is seen from, at the bottom: its name
    /// (`black`) or its number from 1; without it, the seat the token proves,
    /// else the first seat's.
    seat: Option<String>,
    /// The PNG's longer side in pixels, 64 to 2048; 640 without it.
    // The bounds are BOARD_PX_RANGE's (a test in openapi.rs holds them to it).
    #[param(minimum = 64, maximum = 2048)]
    size: Option<u32>,
}

/// The PNG side when none is asked for.
const BOARD_PX: u32 = 640;
/// The PNG sides accepted, in pixels: the largest is drawn in about 40 MB, and
/// at most [`crate::render::cache::RENDERS_AT_ONCE`] are drawn at once.
pub const BOARD_PX_RANGE: std::ops::RangeInclusive<u32> = 64..=2048;

fn board_query(query: Result<Query<BoardQuery>, QueryRejection>, example: &str) -> Result<BoardQuery, ApiError> {
    query.map(|Query(q)| q).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the query is not valid here: {}; send {example}", e.body_text()),
        )
    })
}

/// The board now as SVG.
///
/// The position now (spectators: as the spectator delay shows it), the last
/// turn's moves marked, the seats to move barred.
#[utoipa::path(
    get,
    path = "/api/games/{id}/board.svg",
    tag = "games",
    params(
        ("id" = String, Path, description = "The game's id."),
        ("seat" = Option<String>, Query, description = "The seat whose side the board is seen from, at the bottom: its name (`black`) or its number from 1; without it, the seat the token proves, else the first seat's."),
    ),
    security((), ("seat" = [])),
    responses(
        (status = 200, description = "The board as SVG.", body = String, content_type = "image/svg+xml"),
        (status = 400, description = "A query other than `?seat=` (an SVG takes no size), or a seat the game does not have.", body = openapi::ErrorBody),
        (status = 401, description = "The token is not one of this game's seats.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
    )
)]
async fn board_svg(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    query: Result<Query<BoardQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let q = board_query(query, "?seat=black or nothing")?;
    if q.size.is_some() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "an SVG scales to any size; ask board.png for ?size=<pixels>",
        ));
    }
    let p = steward.board(id, q.seat, Credential::token(bearer(&headers))).await?;
    let svg = crate::render::svg::board_svg(&p.view, &p.marks, p.viewer);
    Ok(([(header::CONTENT_TYPE, "image/svg+xml"), (header::CACHE_CONTROL, "no-cache")], svg).into_response())
}

/// The board now as PNG.
///
/// `size` pixels on its longer side. The same picture as board.svg, drawn a
/// few at a time: when too many are being drawn the answer is 503 `busy`
/// (send it again in a few seconds).
#[utoipa::path(
    get,
    path = "/api/games/{id}/board.png",
    tag = "games",
    params(("id" = String, Path, description = "The game's id."), BoardQuery),
    security((), ("seat" = [])),
    responses(
        (status = 200, description = "The board as PNG.", body = Png, content_type = "image/png"),
        (status = 400, description = "A query other than `?seat=` and `?size=`, a size out of range, or a seat the game does not have.", body = openapi::ErrorBody),
        (status = 401, description = "The token is not one of this game's seats.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
    )
)]
async fn board_png(
    State(steward): State<Steward>,
    Extension(pictures): Extension<Arc<Pictures>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    query: Result<Query<BoardQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let q = board_query(query, "?seat=black&size=640 or nothing")?;
    let size = q.size.unwrap_or(BOARD_PX);
    if !BOARD_PX_RANGE.contains(&size) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!(
                "size {size} is out of range; send a size from {} to {} pixels",
                BOARD_PX_RANGE.start(),
                BOARD_PX_RANGE.end()
            ),
        ));
    }
    let p = steward.board(id, q.seat, Credential::token(bearer(&headers))).await?;
    let drawing = crate::render::svg::board_drawing(&p.view, &p.marks, p.viewer);
    // Drawn on the blocking pool, a few at a time, and cached per (svg, size).
    let png = match pictures.png(drawing, size).await {
        Ok(png) => png,
        Err(PictureError::Busy) => {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy",
                "too many board pictures are being drawn; nothing is wrong with the request, send it again in a few seconds (or ask board.svg, which is drawn at once)",
            ));
        }
        Err(e) => return Err(StewardError::Internal(crate::steward::InternalError::new("rendering a board", e)).into()),
    };
    Ok(Png(Bytes::from_owner(png)).into_response())
}

/// A PNG picture, as answered: its bytes.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String, format = Binary, content_media_type = "image/png")]
struct Png(Bytes);

impl IntoResponse for Png {
    fn into_response(self) -> Response {
        ([(header::CONTENT_TYPE, "image/png"), (header::CACHE_CONTROL, "no-cache")], self.0).into_response()
    }
}

/// The game's record as PGN, for the variants with a PGN form.
///
/// As far as the caller may see it (a seat's token: all of it; spectators: as
/// the spectator delay allows).
#[utoipa::path(
    get,
    path = "/api/games/{id}/record.pgn",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security((), ("seat" = [])),
    responses(
        (status = 200, description = "The game as PGN.", body = String, content_type = crate::rules::record::PGN_MEDIA_TYPE),
        (status = 401, description = "The token is not one of this game's seats.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id (`not_found`), or its variant has no PGN form (`no_pgn`: its record is at record.json).", body = openapi::ErrorBody),
    )
)]
async fn record_pgn(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let export = steward.record(id, Credential::token(bearer(&headers))).await?;
    let pgn = export.pgn.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_pgn",
            "this game's variant has no PGN form; its record is at record.json",
        )
    })?;
    Ok(([(header::CONTENT_TYPE, crate::rules::record::PGN_MEDIA_TYPE)], pgn).into_response())
}

/// The game's record as JSON, for every variant.
///
/// Seats, start state, every resolved turn with each move (notation, canonical
/// text, status, reason), notes and the state after it, the outcome, the
/// transcript head; as far as the caller may see it (a seat's token: all of
/// it; spectators: as the spectator delay allows).
#[utoipa::path(
    get,
    path = "/api/games/{id}/record.json",
    tag = "games",
    params(("id" = String, Path, description = "The game's id.")),
    security((), ("seat" = [])),
    responses(
        (status = 200, description = "The record.", body = crate::steward::RecordJson, example = json!(api_examples::record_json())),
        (status = 401, description = "The token is not one of this game's seats.", body = openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = openapi::ErrorBody),
    )
)]
async fn record_json(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    Ok(Json(steward.record(id, Credential::token(bearer(&headers))).await?.json).into_response())
}

// ---------------------------------------------------------------------------
// Clocks: leave and the calendar feed
// ---------------------------------------------------------------------------

/// A leave: the first and the last day off, both included, as UTC days
/// written `YYYY-MM-DD`. It begins today at the earliest and ends at most two
/// years ahead.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"from": "2026-12-24", "to": "2027-01-02"}))]
struct LeaveBody {
    /// The first day off.
    #[schema(format = Date, pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", example = "2026-12-24")]
    from: String,
    /// The last day off (included); not before `from`.
    #[schema(format = Date, pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", example = "2027-01-02")]
    to: String,
}

impl LeaveBody {
    /// The dates, with no spaces around them as the schema says (the steward
    /// reads the rest).
    fn dates(self) -> Result<(String, String), ApiError> {
        for date in [&self.from, &self.to] {
            if date.trim() != date {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_request",
                    format!(
                        "leave: {date:?} is not a date; write dates as YYYY-MM-DD with no spaces, like {LEAVE_EXAMPLE}"
                    ),
                ));
            }
        }
        Ok((self.from, self.to))
    }
}

const LEAVE_EXAMPLE: &str = r#"{"from": "2026-12-24", "to": "2027-01-02"}"#;

/// Declares leave for the player of the seat token's seat: the clocks of all
/// their games stand still on those days. As JSON with the seat token, or as a
/// signed envelope (`action: leave FROM TO`; text/plain), which a player with a
/// game that requires signatures must send.
#[utoipa::path(
    post,
    path = "/api/leave",
    tag = "clocks",
    security(("seat" = []), ()),
    request_body(content(
        (LeaveBody = "application/json"),
        (String = "text/plain", example = "-----BEGIN FAIRSTEWARD MOVE-----\n...\n-----END FAIRSTEWARD MOVE-----"),
    )),
    responses(
        (status = 201, description = "The leave is granted: the player's account, the leave and the games it stops.", body = crate::steward::LeaveAnswer),
        (status = 400, description = "The body is neither dates nor a signed leave, a date does not read, or the leave ends more than two years ahead.", body = openapi::ErrorBody),
        (status = 401, description = "No seat token, or one that is no seat's.", body = openapi::ErrorBody),
        (status = 403, description = "A game of the player requires signed leave, or the envelope's signature does not verify.", body = openapi::ErrorBody),
        (status = 404, description = "The envelope names no game here.", body = openapi::ErrorBody),
        (status = 409, description = "The leave is refused: it begins before today, its days are already on leave, it exceeds the year's allowance, or the token is of a finished game.", body = openapi::ErrorBody),
        (status = 422, description = "The envelope does not fit its game (seat, turn).", body = openapi::ErrorBody),
    )
)]
async fn declare_leave(State(steward): State<Steward>, headers: HeaderMap, body: Bytes) -> Result<Response, ApiError> {
    if is_envelope(&headers, &body) {
        // Signed leave (required of a player with a game that needs signatures).
        let env = envelope_body(&body, LEAVE_EXAMPLE)?;
        return Ok((StatusCode::CREATED, Json(steward.declare_leave_signed(env).await?)).into_response());
    }
    let token = bearer(&headers).ok_or(StewardError::Refused(Refusal::BadToken))?;
    let (from, to) = json_body::<LeaveBody>(&body, LEAVE_EXAMPLE)?.dates()?;
    Ok((StatusCode::CREATED, Json(steward.declare_leave_by_token(token, from, to).await?)).into_response())
}

/// The leave account of the seat token's player: the yearly allowance, this
/// year's and next year's balance, and every leave from this year on.
#[utoipa::path(
    get,
    path = "/api/leave",
    tag = "clocks",
    security(("seat" = [])),
    responses(
        (status = 200, description = "The player's leave account.", body = crate::steward::LeaveAnswer),
        (status = 401, description = "No seat token, or one that is no seat's.", body = openapi::ErrorBody),
        (status = 409, description = "The token is of a finished game: it reads that game only.", body = openapi::ErrorBody),
    )
)]
async fn leave_status(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, ApiError> {
    let token = bearer(&headers).ok_or(StewardError::Refused(Refusal::BadToken))?;
    Ok(Json(steward.leave_status(token).await?).into_response())
}

/// Declares leave with the seat token in the address (for clients that cannot
/// send headers); as `POST /api/leave` otherwise.
#[utoipa::path(
    post,
    path = "/api/seats/{token}/leave",
    tag = "clocks",
    params(("token" = String, Path, description = "A seat token of a running game of the player.")),
    request_body(content = LeaveBody, example = json!({"from": "2026-12-24", "to": "2027-01-02"})),
    responses(
        (status = 201, description = "The leave is granted: the player's account, the leave and the games it stops.", body = crate::steward::LeaveAnswer),
        (status = 400, description = "The body is not two dates, a date does not read, or the leave ends more than two years ahead.", body = openapi::ErrorBody),
        (status = 401, description = "The token is no seat's.", body = openapi::ErrorBody),
        (status = 403, description = "A game of the player requires signed leave: send it signed to `POST /api/leave`.", body = openapi::ErrorBody),
        (status = 409, description = "The leave is refused: it begins before today, its days are already on leave, it exceeds the year's allowance, or the token is of a finished game.", body = openapi::ErrorBody),
    )
)]
async fn seat_declare_leave(
    State(steward): State<Steward>,
    Path(token): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (from, to) = json_body::<LeaveBody>(&body, LEAVE_EXAMPLE)?.dates()?;
    Ok((StatusCode::CREATED, Json(steward.declare_leave_by_token(token, from, to).await?)).into_response())
}

/// The leave account of the player of the seat token in the address.
#[utoipa::path(
    get,
    path = "/api/seats/{token}/leave",
    tag = "clocks",
    params(("token" = String, Path, description = "A seat token of a running game of the player.")),
    responses(
        (status = 200, description = "The player's leave account.", body = crate::steward::LeaveAnswer),
        (status = 401, description = "The token is no seat's.", body = openapi::ErrorBody),
        (status = 409, description = "The token is of a finished game: it reads that game only.", body = openapi::ErrorBody),
    )
)]
async fn seat_leave_status(State(steward): State<Steward>, Path(token): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(steward.leave_status(token).await?).into_response())
}

/// The calendar feed of a calendar key: read-only, the deadlines of the
/// key's address in the key's games (see
/// [`crate::protocol::capability::calendar_key`]).
#[utoipa::path(
    get,
    path = "/api/calendar/{key}/deadlines.ics",
    tag = "clocks",
    params(("key" = String, Path, description = "The calendar key, as in the calendar address of a board mail, a reminder or the games page (/me).")),
    responses(
        (status = 200, description = "The upcoming deadlines, as iCalendar.", body = String, content_type = "text/calendar; charset=utf-8",
            example = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Fairsteward//Deadlines//EN\r\n...\r\nEND:VCALENDAR\r\n"),
        (status = 404, description = "The key is not valid.", body = openapi::ErrorBody),
    )
)]
async fn calendar(State(steward): State<Steward>, Path(key): Path<String>) -> Result<Response, ApiError> {
    let (address, games) = crate::protocol::capability::read_calendar_key(steward.keys(), &key).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "this calendar address is not valid; copy it again from a board mail, a reminder or your games page (/me)",
        )
    })?;
    let text = steward.player_deadlines_ics(address, games).await?;
    Ok(([(header::CONTENT_TYPE, "text/calendar; charset=utf-8")], text).into_response())
}

/// The feed that took the seat token in its address (issue 29: a calendar
/// app's address must not move or resign): gone, the token not even read.
/// Deprecated in the document too: it accepts no request.
#[deprecated = "calendar feeds take a calendar key (issue 29): /api/calendar/{key}/deadlines.ics"]
#[utoipa::path(
    get,
    path = "/api/seats/{token}/deadlines.ics",
    tag = "clocks",
    params(("token" = String, Path, description = "Not read.")),
    responses(
        (status = 410, description = "Gone: subscribe to the calendar address instead (`/api/calendar/{key}/deadlines.ics`).", body = openapi::ErrorBody),
    )
)]
async fn seat_token_calendar_gone() -> ApiError {
    ApiError::new(
        StatusCode::GONE,
        "gone",
        "calendar feeds no longer take the seat token; subscribe to the calendar address of your board mails, reminders or games page (/api/calendar/<key>/deadlines.ics)",
    )
}
