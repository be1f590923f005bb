//! `GET /metrics` and `GET /health` (issue 36): the operator's metrics in
//! Prometheus's text format, and a check for load balancers that the store
//! answers. Neither needs a credential, and neither logs a request at info
//! level (a load balancer asks every few seconds).
//!
//! Where they are served is `[metrics] listen`'s to say (docs/operator.md,
//! "Metrics and health"): on a listener of their own ([`router`]), or, when it
//! is unset, on the main listener, `/metrics` only to a client on loopback that
//! no proxy forwarded. `/health` is always on the main listener too: a load
//! balancer checks the port it balances.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::sync::Semaphore;

use super::listen::Peer;
use crate::steward::Steward;
use crate::store::Reader;

/// How long `/health` waits for the store before it answers 503.
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);
/// How long `/metrics` waits for the store's readings; then it answers with
/// `fairsteward_store_up 0` and the gauges as last read.
pub const READINGS_TIMEOUT: Duration = Duration::from_secs(5);

/// One store read of each kind at a time on a listener: while the store hangs
/// (a PostgreSQL server that does not answer), the requests that come meanwhile
/// wait for the read in flight, within their timeout, instead of each holding
/// a blocking thread of their own.
#[derive(Clone, Debug)]
struct Gates {
    health: Arc<Semaphore>,
    readings: Arc<Semaphore>,
}

impl Gates {
    fn new() -> Gates {
        Gates { health: Arc::new(Semaphore::new(1)), readings: Arc::new(Semaphore::new(1)) }
    }
}

/// Runs `read` on a blocking thread once `gate` lets it (one at a time); `None`
/// when the blocking task failed.
async fn gated<T: Send + 'static>(gate: &Arc<Semaphore>, read: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    // The semaphore is never closed.
    let permit = gate.clone().acquire_owned().await.ok()?;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        read()
    })
    .await
    .map_err(|e| tracing::debug!(error = %e, "a store read for the operator did not finish"))
    .ok()
}

/// Whether `/metrics` is served on the main listener.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricsPlace {
    /// On the main listener, to loopback clients no proxy forwarded.
    Loopback,
    /// On a listener of its own (`[metrics] listen`): the main one answers 404.
    Elsewhere,
}

/// The routes the main listener adds: `/health`, and `/metrics` when `place`
/// says so.
pub(super) fn main_routes(place: MetricsPlace) -> Router<Steward> {
    let routes = Router::new().route("/health", get(health));
    let routes = match place {
        MetricsPlace::Loopback => routes.route("/metrics", get(loopback_metrics)),
        MetricsPlace::Elsewhere => routes,
    };
    routes.layer(Extension(Gates::new()))
}

/// The router of the metrics listener (`[metrics] listen`): `/metrics` and
/// `/health` to any client that reaches it, 404 for anything else.
pub fn router(steward: Steward) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/health", get(health))
        .layer(Extension(Gates::new()))
        .fallback(|| {
            std::future::ready(plain(StatusCode::NOT_FOUND, "not found; this listener serves /metrics and /health\n"))
        })
        .with_state(steward)
}

/// A short plain-text answer no cache keeps.
fn plain(status: StatusCode, body: &'static str) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8")),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

/// `GET /health`: 200 `ok` when the store answers a trivial query within
/// [`HEALTH_TIMEOUT`], else 503 with a one-line reason.
async fn health(State(steward): State<Steward>, Extension(gates): Extension<Gates>) -> Response {
    let store = steward.store().clone();
    // A fresh reader: on SQLite it opens the file anew, so a database removed
    // under the steward is noticed.
    let asked = gated(&gates.health, move || Reader::of(&store).answers());
    match tokio::time::timeout(HEALTH_TIMEOUT, asked).await {
        Ok(Some(Ok(()))) => plain(StatusCode::OK, "ok\n"),
        Ok(Some(Err(e))) => {
            tracing::debug!(error = %e, "health: the store does not answer");
            plain(StatusCode::SERVICE_UNAVAILABLE, "unavailable: the store does not answer\n")
        }
        Ok(None) => plain(StatusCode::SERVICE_UNAVAILABLE, "unavailable: the store's check did not finish\n"),
        Err(_) => plain(StatusCode::SERVICE_UNAVAILABLE, "unavailable: the store did not answer within 2 s\n"),
    }
}

/// `GET /metrics` on the main listener: only to a loopback client whose
/// request no proxy forwarded (a reverse proxy on the same host connects from
/// loopback too, and names the client it forwards).
async fn loopback_metrics(
    State(steward): State<Steward>,
    gates: Extension<Gates>,
    peer: Option<Extension<Peer>>,
    headers: HeaderMap,
) -> Response {
    let loopback = peer.is_some_and(|Extension(p)| p.client.is_loopback());
    let forwarded = ["forwarded", "x-forwarded-for", "x-real-ip"].iter().any(|h| headers.contains_key(*h));
    if !loopback || forwarded {
        return plain(
            StatusCode::FORBIDDEN,
            "forbidden: /metrics is served here to loopback clients only; set [metrics] listen to serve it on an address of its own\n",
        );
    }
    metrics(State(steward), gates, headers).await
}

/// `GET /metrics`: the counters, and the gauges read from the store now; in
/// OpenMetrics' format when the scraper asks for it, else in the classic
/// text format.
async fn metrics(State(steward): State<Steward>, Extension(gates): Extension<Gates>, headers: HeaderMap) -> Response {
    let store = steward.store().clone();
    let read = gated(&gates.readings, move || Reader::of(&store).readings());
    let readings = match tokio::time::timeout(READINGS_TIMEOUT, read).await {
        Ok(Some(Ok(r))) => Some(r),
        Ok(Some(Err(e))) => {
            tracing::debug!(error = %e, "metrics: cannot read the store");
            None
        }
        _ => None,
    };
    let m = steward.metrics();
    m.set_readings(readings.as_ref(), chrono::Utc::now());
    let openmetrics = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("application/openmetrics-text"));
    let (content_type, body) = m.encode(openmetrics);
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}
