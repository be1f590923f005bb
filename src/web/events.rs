//! Live game events (issue 34): `GET /api/games/{id}/events` as Server-Sent
//! Events.
//!
//! A stream tells what the game's view ([`GameView`], as `GET /api/games/{id}`
//! shows it to the same reader) gained: it starts with a `state` event, then
//! sends `turn` (a turn resolved), `moved` (a seat's move for the current turn
//! is in: which seat, never the move), `draw` (a seat offers a draw, or no
//! longer does) and `end` (the result), after which it ends. Every event is
//! the difference between two views the reader could have fetched, so a
//! spectator held back by the spectator delay learns of a turn no sooner than
//! the delayed view shows it, and nothing of a pending move (sealed,
//! simultaneous or not) is ever in the stream: views never hold another
//! seat's pending move, and the events carry no pending move at all, not even
//! the reader's own.
//!
//! Where the changes come from: the store tells every game whose transcript a
//! transaction wrote to once that transaction is durable
//! ([`crate::store::Store::changes`]); a stream looks at its game afresh only
//! when its game is told (or when it fell behind). Nothing polls.
//!
//! Bounds: at most [`HttpLimits::max_event_streams`] streams at once and
//! [`HttpLimits::max_event_streams_per_client`] from one address; beyond them
//! `429` `{"error": "too_many_streams", …}`. Keep-alive comments every
//! [`KEEP_ALIVE`]. Every stream ends when the shutdown begins, so the door's
//! graceful shutdown does not wait for them.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::listen::Peer;
use super::session::Session;
use super::{ApiError, bearer};
use crate::config::HttpLimits;
use crate::ids::GameId;
use crate::steward::{Credential, GameView, MoveView, OutcomeView, Refusal, Steward, StewardError};

/// How often an idle stream sends a comment, so proxies and clients know it lives.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What a client waits before it reconnects after a stream broke, in
/// milliseconds (the `retry:` field of the first event).
pub const RETRY_MS: u64 = 3000;

/// The live event streams open, by client address, within their caps.
#[derive(Debug)]
pub struct EventStreams {
    total_cap: usize,
    per_client_cap: usize,
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One open stream's place under the caps; given back when the stream ends.
#[derive(Debug)]
pub struct StreamPermit {
    streams: Arc<EventStreams>,
    client: IpAddr,
}

impl EventStreams {
    /// No stream open yet, with the caps of `limits`.
    pub fn new(limits: &HttpLimits) -> EventStreams {
        EventStreams {
            total_cap: limits.max_event_streams,
            per_client_cap: limits.max_event_streams_per_client,
            open: Mutex::new((0, HashMap::new())),
        }
    }

    /// A place for one more stream from `client`.
    ///
    /// # Errors
    /// A cap is reached: the 429 answer that says which.
    pub fn admit(self: &Arc<Self>, client: IpAddr) -> Result<StreamPermit, ApiError> {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mine = open.1.get(&client).copied().unwrap_or(0);
        if mine >= self.per_client_cap {
            return Err(too_many(format!(
                "{mine} live event streams are open from your address, the most this steward allows ({}); close one (each page or client needs one stream per game), or fetch GET /api/games/{{id}} instead",
                self.per_client_cap
            )));
        }
        if open.0 >= self.total_cap {
            return Err(too_many(format!(
                "the steward has as many live event streams open as it allows ({}); try again in a minute, or fetch GET /api/games/{{id}} instead",
                self.total_cap
            )));
        }
        open.0 += 1;
        *open.1.entry(client).or_insert(0) += 1;
        Ok(StreamPermit { streams: self.clone(), client })
    }

    /// How many streams are open now (from all clients).
    pub fn open(&self) -> usize {
        self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner).0
    }
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        open.0 = open.0.saturating_sub(1);
        if let Some(n) = open.1.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.1.remove(&self.client);
            }
        }
    }
}

fn too_many(message: String) -> ApiError {
    ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too_many_streams", message)
}

/// The routes of the live events.
pub(super) fn routes() -> OpenApiRouter<Steward> {
    OpenApiRouter::new().routes(routes!(game_events))
}

/// The query of the events endpoint.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(super) struct EventsQuery {
    /// The seat a signed-in player holding several seats of the game follows
    /// (as on the game page).
    seat: Option<String>,
}

/// The game's live events, as Server-Sent Events.
///
/// `GET /api/games/{id}/events`. The stream tells what the game's view (as `GET /api/games/{id}` shows it to the same reader)
/// gained; every event carries `id:` (the transcript's newest entry) and
/// `data:` one JSON object. The events:
///
/// * `state`, first: `{"game", "variant", "turn", "move_number", "phase",
///   "to_move", "moved", "draw_offers", "resolved_turns", "last_turn", "state",
///   "delayed", "spectator_delay", "outcome", "transcript_seq"}`;
/// * `turn`, a turn resolved: `{"game", "turn", "move_number", "moves",
///   "notes", "state", "resolved_at", "next_turn", "next_move_number",
///   "to_move"}` (the moves as in the game's `history`);
/// * `moved`, a seat's move for the current turn is in: `{"game", "turn",
///   "seat", "kind": "move" | "commit"}` (which seat, never the move);
/// * `draw`, a seat offers a draw or no longer does: `{"game", "seat",
///   "offered", "turn"}`;
/// * `end`, the result, after which the stream ends: `{"game", "result",
///   "winner", "reason", "turns"}`.
///
/// A seat's token (or the page's session) sees the seat's own view at once;
/// spectators see the game as the spectator delay holds it back. Keep-alive
/// comments every 15 seconds. At most `[http] max_event_streams` streams at
/// once, and `max_event_streams_per_client` from one address: beyond them 429
/// `too_many_streams`.
///
/// # Errors
/// A cap reached (429), an unknown game (404), a wrong token (401).
#[utoipa::path(
    get,
    path = "/api/games/{id}/events",
    tag = "games",
    params(("id" = String, Path, description = "The game's id."), EventsQuery),
    security((), ("seat" = []), ("session" = [])),
    responses(
        (status = 200, description = "The stream of events: `state`, then `turn`, `moved`, `draw` and `end` as they happen. The schema is one event's, as a client reads it.", body = GameEventFrame, content_type = "text/event-stream",
            example = json!({"event": "moved", "id": "7", "data": "{\"game\":\"8KQ2ZJ\",\"turn\":3,\"seat\":\"black\",\"kind\":\"move\"}"})),
        (status = 400, description = "A query other than `?seat=`.", body = super::openapi::ErrorBody),
        (status = 401, description = "The token is not one of this game's seats.", body = super::openapi::ErrorBody),
        (status = 404, description = "No game has this id.", body = super::openapi::ErrorBody),
        (status = 429, description = "As many live event streams are open as the steward allows, in all or from this address (`too_many_streams`).", body = super::openapi::ErrorBody),
    )
)]
pub(super) async fn game_events(
    State(steward): State<Steward>,
    Path(id): Path<String>,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
    peer: Option<axum::Extension<Peer>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the query is not valid here: {}; send ?seat=<seat name> or nothing", e.body_text()),
        )
    })?;
    // Without the door (a router served in process) the streams share one
    // default cap and never hear a shutdown.
    let (client, stopping, streams) = match peer {
        Some(axum::Extension(p)) => (p.client, Some(p.stopping), p.streams),
        None => {
            static DEFAULT: OnceLock<Arc<EventStreams>> = OnceLock::new();
            let streams = DEFAULT.get_or_init(|| Arc::new(EventStreams::new(&HttpLimits::default()))).clone();
            (IpAddr::V4(Ipv4Addr::UNSPECIFIED), None, streams)
        }
    };
    // A token proves a seat (or fails); a page's session cookie shows the seat
    // it signed in for, else the spectator's view, as the game page does.
    let (credential, lenient) = match bearer(&headers) {
        Some(token) => (Credential::token(Some(token)), false),
        None => {
            let session = Session::from_headers(steward.keys(), &headers, steward.now().timestamp());
            let c = session.map(|s| Credential::Session { address: s.address, seat: q.seat, games: s.games });
            (c, true)
        }
    };
    // Subscribed before the first look: no change falls between the two.
    let changes = steward.store().changes();
    let (view, credential) = match steward.status(id.clone(), credential.clone()).await {
        Err(StewardError::Refused(Refusal::BadToken)) if lenient && credential.is_some() => {
            (steward.status(id, None).await?, None)
        }
        other => (other?, credential),
    };
    let game: GameId =
        view.id.parse().map_err(|_| ApiError::from(StewardError::Refused(Refusal::UnknownGame(view.id.clone()))))?;
    // Refusals of the game or the token come first; then the caps.
    let permit = streams.admit(client)?;
    let mut reader = Reader {
        steward,
        game,
        credential,
        changes,
        stopping,
        last: None,
        queue: VecDeque::new(),
        ended: false,
        _permit: permit,
    };
    reader.look_at(view);
    if let Some(first) = reader.queue.front_mut() {
        *first = first.clone().retry(Duration::from_millis(RETRY_MS));
    }
    let stream =
        futures_util::stream::unfold(
            reader,
            |mut r| async move { r.next().await.map(|e| (Ok::<_, Infallible>(e), r)) },
        );
    let mut response = Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response();
    // Proxies such as nginx would hold the events back in their buffers.
    response.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

/// One stream's reader: the game, the reader's credential, the view last
/// seen, and the events not sent yet.
struct Reader {
    steward: Steward,
    game: GameId,
    credential: Option<Credential>,
    changes: broadcast::Receiver<GameId>,
    stopping: Option<watch::Receiver<bool>>,
    last: Option<GameView>,
    queue: VecDeque<Event>,
    ended: bool,
    _permit: StreamPermit,
}

impl Reader {
    /// The next event: one queued, else the next change of the game; `None`
    /// once the game ended (its `end` sent), the view cannot be read, or the
    /// shutdown began.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.queue.pop_front() {
                return Some(e);
            }
            if self.ended {
                return None;
            }
            let stopped = async {
                match &mut self.stopping {
                    Some(s) => {
                        let _ = s.wait_for(|&stop| stop).await;
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = stopped => return None,
                changed = self.changes.recv() => match changed {
                    Ok(game) if game == self.game => {}
                    Ok(_) => continue,
                    // Fell behind: the game may have changed.
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
            match self.steward.status(self.game.to_string(), self.credential.clone()).await {
                Ok(view) => self.look_at(view),
                Err(e) => {
                    // A seat's token no longer valid, the store gone: end the
                    // stream; the client reconnects and hears why.
                    tracing::debug!(game = %self.game, error = %e, "a live event stream ends");
                    return None;
                }
            }
        }
    }

    /// Queues what `view` shows that the view before did not: the `state`
    /// event first of all, then turns, moves, draw offers, the end.
    fn look_at(&mut self, view: GameView) {
        let id = view.transcript_head.as_ref().map_or(0, |h| h.seq).to_string();
        let event = |name: &str, data: String| Event::default().event(name).id(id.clone()).data(data);
        let Some(last) = self.last.take() else {
            self.queue.push_back(event("state", data(&StateEvent::of(&view))));
            if let Some(end) = EndEvent::of(&view) {
                self.queue.push_back(event("end", data(&end)));
                self.ended = true;
            }
            self.last = Some(view);
            return;
        };
        let new_turns = view.history.iter().skip(last.history.len());
        let newest = view.history.len();
        for (i, t) in new_turns.enumerate() {
            let latest = last.history.len() + i + 1 == newest;
            let now = latest && !view.delayed;
            self.queue.push_back(event(
                "turn",
                data(&TurnEvent {
                    game: view.id.clone(),
                    turn: t.turn,
                    move_number: t.move_number.clone(),
                    moves: t.moves.clone(),
                    notes: t.notes.clone(),
                    state: t.state.clone(),
                    resolved_at: t.resolved_at.clone(),
                    next_turn: t.turn + 1,
                    // What is owed now, when the reader sees the game as it is.
                    next_move_number: if now { view.move_number.clone() } else { None },
                    to_move: now.then(|| view.to_move.clone()),
                }),
            ));
        }
        let same_turn = last.turn == view.turn;
        // Commit-reveal games: a commitment in is a seat that moved, sealed.
        for s in view.seats.iter().filter(|s| s.committed_at.is_some()) {
            let before = last.seats.iter().find(|b| b.seat == s.seat).is_some_and(|b| b.committed_at.is_some());
            if !(same_turn && before) {
                self.queue.push_back(event(
                    "moved",
                    data(&MovedEvent {
                        game: view.id.clone(),
                        turn: view.turn,
                        seat: s.seat.clone(),
                        kind: MovedKind::Commit,
                    }),
                ));
            }
        }
        for seat in &view.moved {
            if !(same_turn && last.moved.contains(seat)) {
                self.queue.push_back(event(
                    "moved",
                    data(&MovedEvent {
                        game: view.id.clone(),
                        turn: view.turn,
                        seat: seat.clone(),
                        kind: MovedKind::Move,
                    }),
                ));
            }
        }
        for s in &view.seats {
            let before = last.seats.iter().find(|b| b.seat == s.seat).is_some_and(|b| b.draw_offer);
            if s.draw_offer != before && view.outcome.is_none() {
                self.queue.push_back(event(
                    "draw",
                    data(&DrawEvent {
                        game: view.id.clone(),
                        seat: s.seat.clone(),
                        offered: s.draw_offer,
                        turn: view.turn,
                    }),
                ));
            }
        }
        if let Some(end) = EndEvent::of(&view) {
            self.queue.push_back(event("end", data(&end)));
            self.ended = true;
        }
        self.last = Some(view);
    }
}

/// The data of a `state` event, the first of every stream: where the game
/// stands in the reader's view.
#[derive(Debug, Serialize, ToSchema)]
pub(super) struct StateEvent {
    /// The game's id.
    game: String,
    /// The variant.
    variant: String,
    /// The turn now owed.
    turn: u32,
    /// The move number owed now (`12...`); null once over.
    move_number: Option<String>,
    /// What the seats owing a move send now: `move`, `commit`, `reveal`, or `none` once over.
    phase: String,
    /// The seats that owe a move now.
    to_move: Vec<String>,
    /// The seats whose move for this turn is in.
    moved: Vec<String>,
    /// The seats that offer a draw.
    draw_offers: Vec<String>,
    /// How many turns are resolved (as the reader sees the game).
    resolved_turns: usize,
    /// The last resolved turn the reader sees; null before the first.
    last_turn: Option<u32>,
    /// The state string.
    state: String,
    /// Whether the view is held back by the spectator delay.
    delayed: bool,
    /// How many resolved turns spectators see the game behind.
    spectator_delay: u32,
    /// The end of the game; null while it runs.
    outcome: Option<OutcomeView>,
    /// The transcript's newest entry the view goes to.
    transcript_seq: Option<u32>,
}

impl StateEvent {
    /// Where the game stands in `view`.
    fn of(view: &GameView) -> StateEvent {
        StateEvent {
            game: view.id.clone(),
            variant: view.variant.clone(),
            turn: view.turn,
            move_number: view.move_number.clone(),
            phase: view.phase.clone(),
            to_move: view.to_move.clone(),
            moved: view.moved.clone(),
            draw_offers: view.seats.iter().filter(|s| s.draw_offer).map(|s| s.seat.clone()).collect(),
            resolved_turns: view.history.len(),
            last_turn: view.history.last().map(|t| t.turn),
            state: view.state.clone(),
            delayed: view.delayed,
            spectator_delay: view.spectator_delay,
            outcome: view.outcome.clone(),
            transcript_seq: view.transcript_head.as_ref().map(|h| h.seq),
        }
    }
}

/// The data of a `turn` event: a turn resolved.
#[derive(Debug, Serialize, ToSchema)]
pub(super) struct TurnEvent {
    /// The game's id.
    game: String,
    /// The turn resolved.
    turn: u32,
    /// The record's number of its first move (`12.`).
    move_number: Option<String>,
    /// Its moves, in seat order.
    moves: Vec<MoveView>,
    /// Remarks such as same-square meetings.
    notes: Vec<String>,
    /// The state after it.
    state: String,
    /// When it was resolved.
    resolved_at: String,
    /// The turn owed next.
    next_turn: u32,
    /// The move number owed now; null unless this is the latest turn and the
    /// reader sees the game as it is.
    next_move_number: Option<String>,
    /// The seats that owe a move now; null as `next_move_number`.
    to_move: Option<Vec<String>>,
}

/// What came in for a seat.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum MovedKind {
    /// A move.
    Move,
    /// A commitment (commit-reveal games): a move, sealed.
    Commit,
}

/// The data of a `moved` event: a seat's move for the current turn is in
/// (which seat, never the move).
#[derive(Debug, Serialize, ToSchema)]
pub(super) struct MovedEvent {
    /// The game's id.
    game: String,
    /// The turn now owed.
    turn: u32,
    /// The seat whose move is in.
    seat: String,
    /// A move, or a commitment.
    kind: MovedKind,
}

/// The data of a `draw` event: a seat offers a draw, or no longer does.
#[derive(Debug, Serialize, ToSchema)]
pub(super) struct DrawEvent {
    /// The game's id.
    game: String,
    /// The seat.
    seat: String,
    /// Whether it offers a draw now.
    offered: bool,
    /// The turn now owed.
    turn: u32,
}

/// The data of an `end` event, the last of a stream: the result.
#[derive(Debug, Serialize, ToSchema)]
pub(super) struct EndEvent {
    /// The game's id.
    game: String,
    /// `1-0`, `0-1`, `1/2-1/2` (two seats) or a description.
    result: String,
    /// The winning seat, if any.
    winner: Option<String>,
    /// Why it ended.
    reason: String,
    /// How many turns were resolved.
    turns: usize,
}

impl EndEvent {
    /// The end, once the game in `view` is over.
    fn of(view: &GameView) -> Option<EndEvent> {
        let o = view.outcome.as_ref()?;
        Some(EndEvent {
            game: view.id.clone(),
            result: o.result.clone(),
            winner: o.winner.clone(),
            reason: o.reason.clone(),
            turns: view.history.len(),
        })
    }
}

/// An event's data: its JSON text.
fn data<T: Serialize>(data: &T) -> String {
    serde_json::to_string(data).unwrap_or_default()
}

/// One event of the stream as a client reads it (`event:`, `id:`, `retry:`,
/// `data:`): the document's schema of the stream, one event at a time.
pub(super) struct GameEventFrame;

/// The events: (name, what it tells, the schema of its data).
fn frames() -> [(&'static str, &'static str, String); 5] {
    [
        ("state", "Where the game stands: the first event of every stream.", StateEvent::name().into_owned()),
        ("turn", "A turn resolved.", TurnEvent::name().into_owned()),
        (
            "moved",
            "A seat's move for the current turn is in (which seat, never the move).",
            MovedEvent::name().into_owned(),
        ),
        ("draw", "A seat offers a draw, or no longer does.", DrawEvent::name().into_owned()),
        ("end", "The result; the stream ends after it.", EndEvent::name().into_owned()),
    ]
}

impl PartialSchema for GameEventFrame {
    fn schema() -> RefOr<Schema> {
        let mut one_of = OneOfBuilder::new();
        for (name, what, data) in frames() {
            let frame = ObjectBuilder::new()
                .description(Some(what))
                .property("event", ObjectBuilder::new().schema_type(Type::String).enum_values(Some([name])))
                .required("event")
                .property(
                    "id",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .description(Some("The sequence number of the transcript's newest entry the event goes to.")),
                )
                .property(
                    "retry",
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .minimum(Some(0))
                        .description(Some("How long to wait before reconnecting, in milliseconds (the first event).")),
                )
                .property(
                    "data",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .content_media_type("application/json")
                        .content_schema(Some(Ref::from_schema_name(data)))
                        .description(Some("One JSON object.")),
                )
                .required("data");
            one_of = one_of.item(frame);
        }
        one_of.into()
    }
}

impl ToSchema for GameEventFrame {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        fn add<T: ToSchema>(schemas: &mut Vec<(String, RefOr<Schema>)>) {
            schemas.push((T::name().into_owned(), T::schema()));
            T::schemas(schemas);
        }
        add::<StateEvent>(schemas);
        add::<TurnEvent>(schemas);
        add::<MovedEvent>(schemas);
        add::<DrawEvent>(schemas);
        add::<EndEvent>(schemas);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(192, 0, 2, last))
    }

    #[test]
    fn streams_are_capped_per_client_and_in_all_and_give_their_place_back() {
        let limits = HttpLimits { max_event_streams: 3, max_event_streams_per_client: 2, ..HttpLimits::default() };
        let streams = Arc::new(EventStreams::new(&limits));
        let a1 = streams.admit(ip(1)).unwrap();
        let _a2 = streams.admit(ip(1)).unwrap();
        let refused = streams.admit(ip(1)).unwrap_err();
        assert_eq!((refused.status, refused.code), (StatusCode::TOO_MANY_REQUESTS, "too_many_streams"));
        assert!(refused.message.contains("from your address"), "{}", refused.message);
        let _b1 = streams.admit(ip(2)).unwrap();
        let all = streams.admit(ip(3)).unwrap_err();
        assert!(all.message.contains("as many live event streams open as it allows (3)"), "{}", all.message);
        assert_eq!(streams.open(), 3);
        drop(a1);
        assert_eq!(streams.open(), 2);
        let _c1 = streams.admit(ip(3)).unwrap();
        assert!(streams.admit(ip(1)).is_err(), "the total is full again");
    }
}
