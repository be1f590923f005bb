//! The HTTP door: a JSON API under `/api` (axum). Handlers are thin: they read
//! the request, call the steward once, and map its answer to a status code and a
//! JSON body. Every error has the shape `{"error": "<code>", "message": "<what was
//! wrong and what to send instead>"}`; internal errors are logged and answered
//! with a generic message (nothing was accepted, resend).

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
use axum::routing::{get, post};
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
pub fn router(steward: Steward, operator: Arc<OperatorToken>) -> Router {
    let (api, doc) = api_routes().split_for_parts();
    let document: Arc<str> = openapi::to_json(&openapi::finish(doc)).into();
    api.route(
        "/api/openapi.json",
        get(move || {
            let document = document.clone();
            async move { ([(header::CONTENT_TYPE, "application/json")], document.to_string()) }
        }),
    )
    .route("/steward.asc", get(steward_asc))
    .route("/api/me/mail", get(mail_settings::get_mail).put(mail_settings::put_mail)) // issue 32, slice M
    .route(
        "/api/me/program-password",
        get(mail_settings::get_program_password).put(mail_settings::put_program_password),
    ) // issue 34
    .merge(xfcc::router()) // issue 34: the Xfcc SOAP door
    .merge(conditional_api::router()) // issue 32, slice C
    .merge(openpgp_api::router()) // issue 33
    .route("/api/games/{id}/legal", get(lists::legal)) // issue 32, slice T
    .route("/api/games/{id}/resign", post(resign))
    .route("/api/games/{id}/draw", post(draw))
    .route("/api/games/{id}/aliases", post(request_alias))
    .route("/api/games/{id}/email", post(request_email))
    .route("/api/games/{id}/transcript", get(transcript))
    .route("/api/games/{id}/events", get(events::game_events)) // issue 34
    .route("/api/games/{id}/board.svg", get(board_svg))
    .route("/api/games/{id}/board.png", get(board_png))
    .route("/api/games/{id}/record.pgn", get(record_pgn))
    .route("/api/games/{id}/record.json", get(record_json))
    // Clocks: leave and the calendar feed.
    .route("/api/leave", get(leave_status).post(declare_leave))
    .route("/api/seats/{token}/leave", get(seat_leave_status).post(seat_declare_leave))
    .route("/api/seats/{token}/deadlines.ics", get(seat_token_calendar_gone))
    .route("/api/calendar/{key}/deadlines.ics", get(calendar))
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
        .merge(desk_api::routes()) // the desk's tools on a game (issue 31)
        .merge(tournament_api::routes()) // issue 31
        .merge(invitation_api::routes()) // issue 31, slice D
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
        (status = 201, description = "The game, and one token per seat (shown only this once); with `\"invite\": true`, the invited game's invitations instead.", body = invitation_api::CreatedOrInvited),
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
        (status = 200, description = "The game.", body = crate::steward::GameView),
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
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"turn": 1, "move": "Nf3"}))]
struct MoveBody {
    /// The turn the move is for: the game's `turn`.
    turn: u32,
    /// The move in the variant's notation (SAN in chess); with `salt`, a reveal.
    #[serde(rename = "move")]
    text: Option<String>,
    /// Commit-reveal games: the commitment, 64 hex digits.
    commit: Option<String>,
    /// Commit-reveal games: the salt of the commitment being revealed, hex.
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
#[utoipa::path(get, path = "/api/steward", tag = "steward", responses((status = 200, description = "The keys.", body = StewardKeys)))]
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

/// The steward's OpenPGP public key as a file (issue 33): what players import
/// to encrypt their replies to it and to check its signed mails.
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
        (MoveBody = "application/json"),
        (String = "text/plain", example = "-----BEGIN FAIRSTEWARD MOVE-----\n...\n-----END FAIRSTEWARD MOVE-----"),
    )),
    responses(
        (status = 200, description = "The receipt; the same again for a repeat.", body = crate::steward::Receipt),
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

/// Resigns: with the seat token, or (required where the game needs signatures)
/// with a signed `action: resign` envelope as the body.
async fn resign(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    // No body (or an empty JSON object, as JSON clients send): the seat token.
    let unsigned = body.iter().all(u8::is_ascii_whitespace)
        || serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&body).is_ok_and(|m| m.is_empty());
    let credential = if unsigned {
        Credential::token(bearer(&headers))
    } else {
        Some(Credential::Signed(envelope_body(&body, "no body (or {}), with the seat token")?))
    };
    Ok(Json(steward.resign(id, credential, steward.now()).await?).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawBody {
    action: DrawAction,
}

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
    } else {
        json_body::<DrawBody>(&body, EXAMPLE)?.action
    };
    Ok(Json(steward.draw(id, credential, action, steward.now()).await?).into_response())
}

/// The body of an alias or change-of-address request.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddressBody {
    address: String,
}

/// `POST /api/games/{id}/aliases`: another address the seat's player may act
/// from by mail, once confirmed from it.
async fn request_alias(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    request_address(steward, id, &headers, &body, AddressKind::Alias).await
}

/// `POST /api/games/{id}/email`: a new registered address for the seat, in
/// effect once confirmed from it.
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

async fn transcript(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let events = steward.transcript(id.clone(), Credential::token(bearer(&headers))).await?;
    let mut lines = String::new();
    for e in events {
        let mut line = json!({
            "game": id.to_ascii_uppercase(), "seq": e.seq, "at": crate::store::time_text(e.at), "kind": e.kind,
            "prev": e.prev, "hash": e.hash, "body": e.body,
        });
        if let Some(sig) = e.signature {
            line["signature"] = json!(sig);
        }
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], lines).into_response())
}

/// The query of the board pictures: `?seat=<name or number>` for that seat's side,
/// and for PNG `&size=<pixels>`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardQuery {
    seat: Option<String>,
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

/// The board now as SVG (see [`crate::render::svg`]).
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

/// The board now as PNG, `size` pixels on its longer side.
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
    let body = Bytes::from_owner(png);
    Ok(([(header::CONTENT_TYPE, "image/png"), (header::CACHE_CONTROL, "no-cache")], body).into_response())
}

/// The game's record as PGN (variants with a PGN form), as far as the caller
/// may see it (a seat's token: all of it; spectators: as the spectator delay allows).
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LeaveBody {
    from: String,
    to: String,
}

const LEAVE_EXAMPLE: &str = r#"{"from": "2026-12-24", "to": "2027-01-02"}"#;

async fn declare_leave(State(steward): State<Steward>, headers: HeaderMap, body: Bytes) -> Result<Response, ApiError> {
    if is_envelope(&headers, &body) {
        // Signed leave (required of a player with a game that needs signatures).
        let env = envelope_body(&body, LEAVE_EXAMPLE)?;
        return Ok((StatusCode::CREATED, Json(steward.declare_leave_signed(env).await?)).into_response());
    }
    let token = bearer(&headers).ok_or(StewardError::Refused(Refusal::BadToken))?;
    let b: LeaveBody = json_body(&body, LEAVE_EXAMPLE)?;
    Ok((StatusCode::CREATED, Json(steward.declare_leave_by_token(token, b.from, b.to).await?)).into_response())
}

async fn leave_status(State(steward): State<Steward>, headers: HeaderMap) -> Result<Response, ApiError> {
    let token = bearer(&headers).ok_or(StewardError::Refused(Refusal::BadToken))?;
    Ok(Json(steward.leave_status(token).await?).into_response())
}

async fn seat_declare_leave(
    State(steward): State<Steward>,
    Path(token): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let b: LeaveBody = json_body(&body, LEAVE_EXAMPLE)?;
    Ok((StatusCode::CREATED, Json(steward.declare_leave_by_token(token, b.from, b.to).await?)).into_response())
}

async fn seat_leave_status(State(steward): State<Steward>, Path(token): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(steward.leave_status(token).await?).into_response())
}

/// The calendar feed of a calendar key: read-only, the deadlines of the
/// key's address in the key's games (see
/// [`crate::protocol::capability::calendar_key`]).
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
async fn seat_token_calendar_gone() -> ApiError {
    ApiError::new(
        StatusCode::GONE,
        "gone",
        "calendar feeds no longer take the seat token; subscribe to the calendar address of your board mails, reminders or games page (/api/calendar/<key>/deadlines.ics)",
    )
}
