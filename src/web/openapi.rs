//! The API's OpenAPI 3.1 document (issue 34), generated from the code that
//! serves it: every API handler carries a `#[utoipa::path]` annotation, the
//! router registers each route from that annotation (`utoipa_axum::routes!`),
//! and the answers' schemas are derived from the types the handlers serialise.
//! What every operation can answer besides its own answers (a busy client, the
//! store unavailable, …) is added here once, by [`CommonAnswers`].

use utoipa::openapi::link::LinkBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi as Document, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{Modify, OpenApi, ToSchema};

/// Every error answer: a code a program tests, and a sentence a person reads
/// saying what was wrong and what to send instead.
#[derive(Debug, serde::Serialize, ToSchema)]
#[schema(example = json!({"error": "not_found", "message": "no game has the id \"7Yc2\"; the ids are in the mail that started the game"}))]
pub struct ErrorBody {
    /// A stable code (`not_found`, `illegal_move`, `bad_token`, …).
    pub error: String,
    /// What was wrong and what to send instead.
    pub message: String,
}

/// The document's frame: the title, the tags, the security schemes and the
/// shared answers; the paths come from the router.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Fairsteward",
        description = "The steward's HTTP API: games, moves, clocks, the organiser's desk, tournaments and invitations. \
Every error answer is `{\"error\": code, \"message\": text}`; the message says what was wrong and what to send instead. \
docs/http-api.md tells the same with examples in curl.",
        license(name = "MIT OR Apache-2.0", identifier = "MIT OR Apache-2.0"),
    ),
    components(schemas(ErrorBody)),
    modifiers(&SecuritySchemes),
    tags(
        (name = "steward", description = "The steward's own keys."),
        (name = "games", description = "Games: create, read, move, resign, draw, records and pictures."),
        (name = "clocks", description = "Leave and the deadline calendars."),
        (name = "players", description = "A player's own settings and games."),
        (name = "desk", description = "The organiser's desk: the director's tools on a game."),
        (name = "tournaments", description = "Tournaments: create, standings, withdrawals."),
        (name = "invitations", description = "Invited games and their invitations."),
    )
)]
pub struct ApiDoc;

/// The credentials the API takes: three bearer tokens and the pages' session cookie.
struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        for (name, what) in [
            ("seat", "A seat token: whoever holds it plays the seat (it came in the mail that started the game)."),
            ("operator", "The operator token, which `fairsteward operator-token` prints on the steward's host."),
            ("organiser", "The operator token, or a tournament director's token (for that tournament's games)."),
        ] {
            let mut http = Http::new(HttpAuthScheme::Bearer);
            http.description = Some(what.to_owned());
            components.add_security_scheme(name, SecurityScheme::Http(http));
        }
        // The pages' sign-in: a player's own operations take it as well as a seat token.
        let cookie = ApiKeyValue::with_description(
            super::session::COOKIE,
            "The pages' session cookie, set when a player signs in on this steward's pages (a board mail's private link or a seat token); it proves the player's address and the games signed in for.",
        );
        components.add_security_scheme("session", SecurityScheme::ApiKey(ApiKey::Cookie(cookie)));
    }
}

/// The answers any operation can give, whatever it does: added to every
/// operation so that a client reads them in one place.
struct CommonAnswers;

/// The shared answers: (status, component name, description).
const COMMON: [(&str, &str, &str); 3] = [
    ("429", "TooMany", "Too many requests from this client or for this address; wait and send again."),
    ("500", "Internal", "The steward could not process the request and accepted nothing; send it again later."),
    (
        "503",
        "Unavailable",
        "The steward's store is unavailable for the moment and accepted nothing; send it again in a minute.",
    ),
];

/// The answers to a request with a body that could not be read.
const WITH_BODY: [(&str, &str, &str); 2] = [
    ("413", "TooLarge", "The body is larger than the 64 KiB the API reads."),
    ("415", "UnsupportedMediaType", "The body is not in a media type this operation takes."),
];

fn error_answer(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content("application/json", ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorBody"))).build())
        .build()
}

impl Modify for CommonAnswers {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        for (_, name, description) in COMMON.iter().chain(WITH_BODY.iter()) {
            components.responses.insert((*name).to_owned(), RefOr::T(error_answer(description)));
        }
        for item in doc.paths.paths.values_mut() {
            let operations: [&mut Option<Operation>; 5] =
                [&mut item.get, &mut item.post, &mut item.put, &mut item.delete, &mut item.patch];
            for operation in operations.into_iter().flatten() {
                let takes_body = operation.request_body.is_some();
                let shared = COMMON.iter().chain(WITH_BODY.iter().filter(|_| takes_body));
                for (status, name, _) in shared {
                    operation
                        .responses
                        .responses
                        .entry((*status).to_owned())
                        .or_insert_with(|| RefOr::Ref(Ref::from_response_name(*name)));
                }
            }
        }
    }
}

/// The finished document: the routes' paths with the answers every
/// operation shares added ([`CommonAnswers`]).
pub fn finish(mut doc: Document) -> Document {
    CommonAnswers.modify(&mut doc);
    CreatedLinks.modify(&mut doc);
    doc
}

/// The links from what a creation answers to the operations on what it
/// created (OpenAPI links): a client, and schemathesis's stateful phase, follow
/// them from `POST /api/games` to every `/api/games/{id}/…` with the new id,
/// and from `POST /api/tournaments` to every `/api/tournaments/{id}/…`.
/// Made from the document's own paths, so a new operation is linked too.
struct CreatedLinks;

/// (the creating operation's path, its success status, the created id's
/// place in the answer, the path prefix of the operations on it)
const CREATIONS: [(&str, &str, &str, &str); 2] = [
    ("/api/games", "201", "$response.body#/game/id", "/api/games/{id}"),
    ("/api/tournaments", "201", "$response.body#/tournament/id", "/api/tournaments/{id}"),
];

impl Modify for CreatedLinks {
    fn modify(&self, doc: &mut Document) {
        for (creating, status, id, prefix) in CREATIONS {
            let mut targets = Vec::new();
            for (path, item) in &doc.paths.paths {
                // Operations needing a second parameter (a seat, a player) are
                // reached with the id alone only by a client that adds it.
                let second = path.matches('{').count() > 1;
                if !(path == prefix || path.starts_with(&format!("{prefix}/"))) || second {
                    continue;
                }
                let operations = [&item.get, &item.post, &item.put, &item.delete, &item.patch];
                for operation in operations.into_iter().flatten() {
                    if let Some(operation_id) = &operation.operation_id {
                        targets.push(operation_id.clone());
                    }
                }
            }
            let Some(RefOr::T(answer)) = doc
                .paths
                .paths
                .get_mut(creating)
                .and_then(|item| item.post.as_mut())
                .and_then(|op| op.responses.responses.get_mut(status))
            else {
                continue;
            };
            for target in targets {
                let link = LinkBuilder::new()
                    .operation_id(target.clone())
                    .parameter("id", id)
                    .description(format!("The created one's `{target}`."))
                    .build();
                answer.links.insert(target, RefOr::T(link));
            }
        }
    }
}

/// The document as served at `/api/openapi.json`: pretty JSON, keys in the
/// order the code gives them, so that the checked-in copy
/// (`docs/openapi.json`) reads well in a diff.
pub fn to_json(doc: &Document) -> String {
    let mut text = serde_json::to_string_pretty(doc).expect("an OpenAPI document serialises");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    /// The PNG's size bounds in the document are the ones the handler keeps
    /// (utoipa takes only literals for them).
    #[test]
    fn the_board_png_size_bounds_are_the_handlers() {
        let doc: serde_json::Value = serde_json::from_str(&super::super::openapi_document()).unwrap();
        let params = doc["paths"]["/api/games/{id}/board.png"]["get"]["parameters"].as_array().unwrap();
        let size = params.iter().find(|p| p["name"] == "size").unwrap();
        let range = super::super::BOARD_PX_RANGE;
        assert_eq!(size["schema"]["minimum"], u64::from(*range.start()));
        assert_eq!(size["schema"]["maximum"], u64::from(*range.end()));
    }
}
