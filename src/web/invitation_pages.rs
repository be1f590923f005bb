//! The invitee's page (issue 31 point 3): `/invitations/{token}`, from the
//! invitation mail's link, shows what the invitation is to and who else
//! plays, and answers it: accept (the name shown, an optional public key) or
//! decline. The token in the path is the credential; the forms carry a CSRF
//! token derived from it and must come from this steward's own pages.

use std::sync::OnceLock;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use minijinja::value::Serde;
use minijinja::{Environment, context};
use serde::Deserialize;

// The player pages' answer with their headers (policy, no caching, no referrer, no framing).
use super::pages::html;
use super::session;
use crate::ids::hex;
use crate::steward::{AcceptInvitation, Door, InvitationAnswer, Steward, StewardError};

/// The page's route.
pub(super) fn router() -> Router<Steward> {
    Router::new().route("/invitations/{token}", get(page).post(answer))
}

fn templates() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.add_template("page/base.html", include_str!("../../templates/page/base.html"))
            .expect("embedded page template parses");
        env.add_template("page/invitation.html", include_str!("../../templates/page/invitation.html"))
            .expect("embedded page template parses");
        env
    })
}

/// The CSRF token of the forms of invitation `token`.
fn csrf(steward: &Steward, token: &str) -> String {
    hex(&steward.keys().capability_tag(format!("invitation-csrf|{}", token.trim()).as_bytes()).as_ref()[..16])
}

fn error_page(e: StewardError) -> Response {
    let (status, message) = match e {
        StewardError::Refused(r) => {
            let status = super::ApiError::from(StewardError::Refused(r.clone())).status;
            let text = r.message(Door::Web);
            let mut c = text.chars();
            (status, c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default())
        }
        other => {
            tracing::error!(error = %other, "internal error answering the invitation page");
            (StatusCode::INTERNAL_SERVER_ERROR, "The steward could not do this; please try again later.".to_owned())
        }
    };
    let body = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Invitation - Fairsteward</title><link rel=\"stylesheet\" href=\"/assets/site.css\"></head><body><main id=\"main\"><h1>Not done</h1><p class=\"error\" role=\"alert\" id=\"invitation-error\">{}</p></main></body></html>",
        minijinja::HtmlEscape(&message)
    );
    html(status, body)
}

async fn render(steward: &Steward, token: String, done: Option<String>, status: StatusCode) -> Response {
    let inv = match steward.invitation(token.clone()).await {
        Ok(v) => v,
        Err(e) => return error_page(e),
    };
    let ctx = context! {
        inv => Serde(&inv), token => &token, csrf => csrf(steward, &token), done => done,
        fingerprint => steward.keys().fingerprint(),
    };
    match templates().get_template("page/invitation.html").and_then(|t| t.render(ctx)) {
        Ok(body) => html(status, body),
        Err(e) => {
            tracing::error!(error = %e, "the invitation page template failed");
            html(
                StatusCode::INTERNAL_SERVER_ERROR,
                "<!DOCTYPE html><title>Error</title><p>Something went wrong.".into(),
            )
        }
    }
}

async fn page(State(steward): State<Steward>, Path(token): Path<String>) -> Response {
    render(&steward, token, None, StatusCode::OK).await
}

#[derive(Deserialize)]
struct AnswerForm {
    csrf: String,
    action: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    public_key: Option<String>,
    /// Issue 33.
    #[serde(default)]
    openpgp_key: Option<String>,
}

async fn answer(
    State(steward): State<Steward>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let forbidden = |m: &str| error_page(StewardError::Refused(crate::steward::Refusal::Forbidden(m.to_owned())));
    if !session::same_origin(&headers) {
        return forbidden(
            "this form was sent from another site; open the link in your invitation mail and answer there",
        );
    }
    let Ok(form) = serde_urlencoded::from_bytes::<AnswerForm>(&body) else {
        return error_page(StewardError::Refused(crate::steward::Refusal::BadRequest(
            "the form was not understood; open the link in your invitation mail again".into(),
        )));
    };
    if form.csrf.trim() != csrf(&steward, &token) {
        return forbidden("this form is out of date; open the link in your invitation mail again");
    }
    let answer = match form.action.as_str() {
        "accept" => InvitationAnswer::Accept(AcceptInvitation {
            name: form.name,
            public_key: form.public_key,
            openpgp_key: form.openpgp_key,
        }),
        "decline" => InvitationAnswer::Decline,
        _ => {
            return error_page(StewardError::Refused(crate::steward::Refusal::BadRequest(
                "answer with the Accept or the Decline button".into(),
            )));
        }
    };
    let now = steward.now();
    match steward.answer_invitation(token.clone(), answer, now).await {
        Ok(a) => render(&steward, token, Some(a.message), StatusCode::OK).await,
        Err(e) => error_page(e),
    }
}
