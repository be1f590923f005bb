//! The HTTP door's connections: an accept loop of our own over hyper, so that
//! no client can hold the door (issue 29 point 2).
//!
//! Every connection is in one [`Phase`]: waiting for its first request's head,
//! reading a head, waiting for a body, answering a whole request (`Busy`), or
//! kept alive between requests. Only `Busy` is a request in flight; every other
//! phase has a deadline (the head, idle and body timeouts of [`HttpLimits`])
//! and may be closed to make room. Beyond a cap (all clients, or one client
//! address) the oldest connection of that scope with no request in flight is
//! closed for the new one; only when every one of them is busy is the new
//! connection answered 503 `busy` and closed. An attacker's slow sockets thus
//! never turn an honest client away, even when both come from the same address
//! (behind a reverse proxy every client does).
//!
//! A body that does not arrive within the body timeout of its head (a false
//! `Content-Length`) ends the request with a 408 and the connection closes.
//!
//! At shutdown the loop stops accepting at once, closes every connection with
//! no request in flight, lets the busy ones finish for [`SHUTDOWN_GRACE`], then
//! drops what is left. Sheddings are counted and logged once per
//! [`REPORT_EVERY`], not once per socket.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use axum::response::IntoResponse;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};

use super::ApiError;
use crate::config::HttpLimits;

/// How long requests in flight may finish after a shutdown began.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// How often shed connections are reported in the log (when there were any).
pub const REPORT_EVERY: Duration = Duration::from_secs(10);
/// What a 503 `busy` asks the client to wait, in seconds.
pub const RETRY_AFTER_SECONDS: u64 = 5;
/// Connections being answered 503 at once; more are closed unanswered.
const TURNED_AWAY_AT_ONCE: usize = 64;
/// How long a connection being turned away may take to send its head.
const TURN_AWAY_HEAD: Duration = Duration::from_secs(2);
/// How long to wait after the accept itself fails (out of file descriptors):
/// the connections timing out free some.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Where a connection is between requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Accepted; its first request's head has not arrived (whole) yet.
    Opening,
    /// Kept alive after an answer, waiting for the next request.
    Idle,
    /// Part of the next request's head arrived on a kept-alive connection.
    Head,
    /// The head arrived and the handler runs, but the body has not all arrived.
    Body,
    /// A whole request is being answered: the only phase not closed for room.
    Busy,
    /// Being closed (made room, timed out, or shutting down).
    Closing,
}

impl Phase {
    /// Whether the connection may be closed to make room or at shutdown: it
    /// has no whole request in flight.
    fn is_waiting(self) -> bool {
        matches!(self, Phase::Opening | Phase::Idle | Phase::Head | Phase::Body)
    }
}

/// A connection's phase and since when.
#[derive(Debug)]
struct State {
    phase: Phase,
    since: Instant,
}

/// One open connection, as the registry and its own task see it.
#[derive(Debug)]
struct Slot {
    /// Accept order: the lowest is the oldest.
    id: u64,
    client: IpAddr,
    state: Mutex<State>,
    /// Close at once (room was made, or the shutdown closes waiting connections).
    close: Notify,
    /// The phase changed: the connection's deadline may have moved.
    rearm: Notify,
}

impl Slot {
    fn state(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a panic elsewhere; the phase is still a value.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Moves to `to` when in one of `from`; wakes the connection's watch.
    fn shift(&self, from: &[Phase], to: Phase) {
        let mut s = self.state();
        if from.contains(&s.phase) {
            *s = State { phase: to, since: Instant::now() };
            drop(s);
            self.rearm.notify_one();
        }
    }

    /// Marks a waiting connection as closing; false when it has a request in
    /// flight (or is closing already).
    fn try_close(&self) -> bool {
        let mut s = self.state();
        if s.phase.is_waiting() {
            s.phase = Phase::Closing;
            true
        } else {
            false
        }
    }

    /// When this connection's wait ends, by its phase: none while busy.
    fn deadline(&self, limits: &HttpLimits) -> Option<Instant> {
        let s = self.state();
        let wait = match s.phase {
            Phase::Opening | Phase::Head => limits.header_timeout,
            Phase::Idle => limits.idle_timeout,
            // The body's own deadline answers 408 (see `TimedBody`); this one
            // only ends a connection whose handler never read the body.
            Phase::Body => limits.body_timeout + limits.header_timeout,
            Phase::Busy | Phase::Closing => return None,
        };
        Some(s.since + wait)
    }

    /// Closes the connection if its wait is over; which wait it was.
    fn expire(&self, limits: &HttpLimits) -> Option<Phase> {
        let deadline = self.deadline(limits)?;
        let mut s = self.state();
        (Instant::now() >= deadline && s.phase.is_waiting()).then(|| std::mem::replace(&mut s.phase, Phase::Closing))
    }
}

/// The open connections, oldest first, and how many each client has.
#[derive(Debug, Default)]
struct Registry {
    slots: BTreeMap<u64, Arc<Slot>>,
    per_client: HashMap<IpAddr, usize>,
    next_id: u64,
}

/// Which cap a new connection met with every place busy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Full {
    /// `max_connections_per_client`.
    Client,
    /// `max_connections`.
    All,
}

impl Registry {
    /// Takes a place for a connection from `client`, closing the oldest
    /// waiting connection of a full scope to make room.
    fn admit(&mut self, client: IpAddr, limits: &HttpLimits, shed: &Shed) -> Result<Arc<Slot>, Full> {
        if self.per_client.get(&client).copied().unwrap_or(0) >= limits.max_connections_per_client {
            self.make_room(Some(client), shed).ok_or(Full::Client)?;
        }
        if self.slots.len() >= limits.max_connections {
            self.make_room(None, shed).ok_or(Full::All)?;
        }
        self.next_id += 1;
        let slot = Arc::new(Slot {
            id: self.next_id,
            client,
            state: Mutex::new(State { phase: Phase::Opening, since: Instant::now() }),
            close: Notify::new(),
            rearm: Notify::new(),
        });
        self.slots.insert(slot.id, slot.clone());
        *self.per_client.entry(client).or_default() += 1;
        Ok(slot)
    }

    /// Closes the oldest waiting connection (of `client`, when given).
    fn make_room(&mut self, client: Option<IpAddr>, shed: &Shed) -> Option<()> {
        let id = self
            .slots
            .values()
            .filter(|s| client.is_none_or(|c| s.client == c))
            .find(|s| s.try_close())
            .map(|s| s.id)?;
        if let Some(slot) = self.remove(id) {
            slot.close.notify_one();
        }
        shed.made_room.fetch_add(1, Ordering::Relaxed);
        Some(())
    }

    /// Gives up a connection's place (once).
    fn remove(&mut self, id: u64) -> Option<Arc<Slot>> {
        let slot = self.slots.remove(&id)?;
        if let Some(n) = self.per_client.get_mut(&slot.client) {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(&slot.client);
            }
        }
        Some(slot)
    }
}

/// What was shed since the last report.
#[derive(Debug, Default)]
struct Shed {
    /// Waiting connections closed to make room.
    made_room: AtomicU64,
    /// New connections answered 503 `busy`.
    busy: AtomicU64,
    /// New connections closed unanswered (too many being answered 503 already).
    dropped: AtomicU64,
    /// Connections whose request head did not arrive in time.
    head_timeouts: AtomicU64,
    /// Requests whose body did not arrive in time (answered 408).
    body_timeouts: AtomicU64,
    /// Kept-alive connections closed after the idle timeout (not shedding:
    /// reported only beside it).
    idle_closed: AtomicU64,
    /// Accepts that failed (out of file descriptors).
    accept_errors: AtomicU64,
}

impl Shed {
    /// Logs one line when anything was shed since the last call.
    fn report(&self) {
        let take = |n: &AtomicU64| n.swap(0, Ordering::Relaxed);
        let (made_room, busy, dropped) = (take(&self.made_room), take(&self.busy), take(&self.dropped));
        let (head, body) = (take(&self.head_timeouts), take(&self.body_timeouts));
        let (idle, accept_errors) = (take(&self.idle_closed), take(&self.accept_errors));
        if made_room + busy + dropped + head + body + accept_errors > 0 {
            tracing::warn!(
                made_room,
                busy_503 = busy,
                closed_unanswered = dropped,
                head_timeouts = head,
                body_timeouts_408 = body,
                idle_closed = idle,
                accept_errors,
                "HTTP connections shed in the last {} s (docs/http-api.md, \"Connections and limits\")",
                REPORT_EVERY.as_secs()
            );
        }
    }
}

/// What every connection task shares.
struct Door {
    router: Router,
    limits: HttpLimits,
    registry: Mutex<Registry>,
    shed: Shed,
    turning_away: AtomicUsize,
}

impl Door {
    fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Serves `router` on `listener` within `limits` until `shutdown` completes,
/// then closes the connections (see the module docs).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let door = Arc::new(Door {
        router,
        limits,
        registry: Mutex::new(Registry::default()),
        shed: Shed::default(),
        turning_away: AtomicUsize::new(0),
    });
    let (stop, stopping) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let mut report = tokio::time::interval_at(Instant::now() + REPORT_EVERY, REPORT_EVERY);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => accept(&door, &mut tasks, stream, peer, &stopping),
                Err(e) => {
                    door.shed.accept_errors.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            _ = report.tick() => door.shed.report(),
        }
    }
    drop(listener);
    let open = tasks.len();
    let _ = stop.send(true);
    let grace = tokio::time::sleep(SHUTDOWN_GRACE);
    tokio::pin!(grace);
    while !tasks.is_empty() {
        tokio::select! {
            _ = tasks.join_next() => {}
            () = &mut grace => break,
        }
    }
    door.shed.report();
    if tasks.is_empty() {
        tracing::info!(connections = open, "HTTP door closed");
    } else {
        tracing::warn!(
            connections = open,
            unfinished = tasks.len(),
            "HTTP door closed; requests still unanswered after {} s were dropped",
            SHUTDOWN_GRACE.as_secs()
        );
        tasks.shutdown().await;
    }
}

/// Admits (or turns away) one accepted connection.
fn accept(
    door: &Arc<Door>,
    tasks: &mut JoinSet<()>,
    stream: TcpStream,
    peer: SocketAddr,
    stopping: &watch::Receiver<bool>,
) {
    let admitted = door.registry().admit(peer.ip(), &door.limits, &door.shed);
    match admitted {
        Ok(slot) => {
            tasks.spawn(connection(door.clone(), slot, stream, stopping.clone()));
        }
        Err(full) => {
            if door.turning_away.fetch_add(1, Ordering::AcqRel) >= TURNED_AWAY_AT_ONCE {
                door.turning_away.fetch_sub(1, Ordering::AcqRel);
                door.shed.dropped.fetch_add(1, Ordering::Relaxed);
                return;
            }
            door.shed.busy.fetch_add(1, Ordering::Relaxed);
            tasks.spawn(turn_away(door.clone(), stream, full));
        }
    }
}

/// Serves one admitted connection until it ends, times out, is closed for
/// room, or the shutdown closes it.
async fn connection(door: Arc<Door>, slot: Arc<Slot>, stream: TcpStream, mut stopping: watch::Receiver<bool>) {
    let service = {
        let (door, slot) = (door.clone(), slot.clone());
        hyper::service::service_fn(move |request| answer(door.clone(), slot.clone(), request))
    };
    let io = TokioIo::new(Watched { stream, slot: slot.clone() });
    // The head's timeout is ours (it differs from the idle one, which hyper's
    // header_read_timeout would also cover).
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .keep_alive(true)
        .serve_connection(io, service);
    tokio::pin!(conn);
    let mut draining = false;
    loop {
        if draining && slot.try_close() {
            break;
        }
        let deadline = slot.deadline(&door.limits);
        let wait = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            ended = conn.as_mut() => {
                if let Err(e) = ended {
                    tracing::debug!(error = %e, "an HTTP connection ended with an error");
                }
                break;
            }
            () = slot.close.notified() => break,
            () = slot.rearm.notified() => {}
            () = wait => match slot.expire(&door.limits) {
                Some(Phase::Idle) => {
                    door.shed.idle_closed.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Some(Phase::Body) => {
                    door.shed.body_timeouts.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Some(_) => {
                    door.shed.head_timeouts.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                None => {}
            },
            changed = stopping.changed(), if !draining => {
                // Busy: hyper closes the connection after its answer.
                let _ = changed;
                draining = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
    door.registry().remove(slot.id);
}

/// The address of the client that sent a request (an extension every request
/// served by [`serve`]'s loop carries).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddr(pub IpAddr);

/// Answers one request through the router, tracking the connection's phase.
async fn answer(door: Arc<Door>, slot: Arc<Slot>, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let whole = hyper::body::Body::is_end_stream(request.body());
    slot.shift(&[Phase::Opening, Phase::Idle, Phase::Head], if whole { Phase::Busy } else { Phase::Body });
    let timed_out = Arc::new(AtomicBool::new(false));
    let timeout = door.limits.body_timeout;
    let mut request = request.map(|inner| TimedBody {
        inner,
        deadline: Box::pin(tokio::time::sleep(timeout)),
        slot: slot.clone(),
        timed_out: timed_out.clone(),
    });
    // The client's address, for limits counted per client (issue 34: failed
    // Xfcc logins).
    request.extensions_mut().insert(ClientAddr(slot.client));
    let response = hyper::service::Service::call(&TowerToHyperService::new(door.router.clone()), request).await?;
    let mut response = if timed_out.load(Ordering::Acquire) {
        door.shed.body_timeouts.fetch_add(1, Ordering::Relaxed);
        body_timeout(timeout)
    } else {
        response
    };
    if timed_out.load(Ordering::Acquire) {
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    Ok(response.map(|inner| Body::new(Answering { inner, slot })))
}

/// The 408 for a body that did not arrive within `timeout` of its head.
fn body_timeout(timeout: Duration) -> Response<Body> {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "timeout",
        format!(
            "the request's body did not arrive within {} s of its head (it was shorter than its Content-Length said); nothing was accepted; send the whole body, as long as its Content-Length says",
            timeout.as_secs()
        ),
    )
    .into_response()
}

/// Answers a connection beyond a cap 503 `busy`, then closes it.
async fn turn_away(door: Arc<Door>, stream: TcpStream, full: Full) {
    let service = hyper::service::service_fn(move |_request: Request<Incoming>| async move {
        let scope = match full {
            Full::Client => "from your address ",
            Full::All => "",
        };
        let mut response = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            format!(
                "every connection the steward allows {scope}is answering a request; nothing is wrong with the request and nothing was accepted; send it again in a few seconds"
            ),
        )
        .into_response();
        let headers = response.headers_mut();
        headers.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        Ok::<_, Infallible>(response)
    });
    let head = door.limits.header_timeout.min(TURN_AWAY_HEAD);
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(head)
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service);
    // Bounded twice: the head by hyper's timer, the answer's writing here.
    let _ = tokio::time::timeout(head * 2, conn).await;
    door.turning_away.fetch_sub(1, Ordering::AcqRel);
}

/// A connection's stream that notices the first bytes of a request on a
/// kept-alive connection (the head's timeout starts there).
struct Watched {
    stream: TcpStream,
    slot: Arc<Slot>,
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.slot.shift(&[Phase::Idle], Phase::Head);
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Why a request's body ended early: it did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error("the request's body did not arrive in time")]
struct BodyTimedOut;

/// A request's body with a deadline; once it has all arrived the request is
/// in flight ([`Phase::Busy`]).
struct TimedBody {
    inner: Incoming,
    deadline: Pin<Box<Sleep>>,
    slot: Arc<Slot>,
    timed_out: Arc<AtomicBool>,
}

impl hyper::body::Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match polled {
            Poll::Ready(None) => {
                self.slot.shift(&[Phase::Body], Phase::Busy);
                Poll::Ready(None)
            }
            Poll::Ready(Some(Ok(frame))) => {
                if self.inner.is_end_stream() {
                    self.slot.shift(&[Phase::Body], Phase::Busy);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e.into()))),
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    self.timed_out.store(true, Ordering::Release);
                    Poll::Ready(Some(Err(BodyTimedOut.into())))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// An answer's body; once hyper has written it (and drops it) the connection
/// is idle again.
struct Answering {
    inner: Body,
    slot: Arc<Slot>,
}

impl hyper::body::Body for Answering {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.slot.shift(&[Phase::Body, Phase::Busy], Phase::Idle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(total: usize, per_client: usize) -> HttpLimits {
        HttpLimits { max_connections: total, max_connections_per_client: per_client, ..HttpLimits::default() }
    }

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

    #[test]
    fn a_full_client_makes_room_by_closing_its_oldest_waiting_connection() {
        let (mut r, shed, l) = (Registry::default(), Shed::default(), limits(10, 3));
        let first = r.admit(A, &l, &shed).unwrap();
        let second = r.admit(A, &l, &shed).unwrap();
        let third = r.admit(A, &l, &shed).unwrap();
        let other = r.admit(B, &l, &shed).unwrap();
        first.shift(&[Phase::Opening], Phase::Busy);
        let fourth = r.admit(A, &l, &shed).unwrap();
        assert_eq!(first.state().phase, Phase::Busy, "a request in flight is never closed for room");
        assert_eq!(second.state().phase, Phase::Closing, "the oldest waiting one of that client is");
        assert_eq!(third.state().phase, Phase::Opening);
        assert_eq!(other.state().phase, Phase::Opening, "another client's connection is not touched");
        assert_eq!(r.per_client[&A], 3);
        assert_eq!(r.slots.len(), 4);
        assert_eq!(shed.made_room.load(Ordering::Relaxed), 1);
        for s in [&third, &fourth] {
            s.shift(&[Phase::Opening], Phase::Busy);
        }
        assert_eq!(r.admit(A, &l, &shed).unwrap_err(), Full::Client, "every place busy: 503");
        assert!(r.admit(B, &l, &shed).is_ok(), "another client still gets in");
    }

    #[test]
    fn the_total_cap_closes_the_oldest_waiting_connection_of_any_client() {
        let (mut r, shed, l) = (Registry::default(), Shed::default(), limits(3, 3));
        let a = r.admit(A, &l, &shed).unwrap();
        let b = r.admit(B, &l, &shed).unwrap();
        let c = r.admit(A, &l, &shed).unwrap();
        a.shift(&[Phase::Opening], Phase::Busy);
        // Kept alive after an answer, and partway through a body: both waiting.
        b.shift(&[Phase::Opening], Phase::Idle);
        c.shift(&[Phase::Opening], Phase::Body);
        let d = r.admit(A, &l, &shed).unwrap();
        assert_eq!(b.state().phase, Phase::Closing);
        assert_eq!(c.state().phase, Phase::Body);
        assert!(!r.per_client.contains_key(&B), "B's count went with its last connection");
        d.shift(&[Phase::Opening], Phase::Busy);
        let e = r.admit(B, &l, &shed).expect("c, waiting for its body, made room");
        assert_eq!(c.state().phase, Phase::Closing);
        e.shift(&[Phase::Opening], Phase::Busy);
        assert_eq!(r.admit(B, &l, &shed).unwrap_err(), Full::All);
        // A place given up is free again.
        let busy: Vec<u64> = r.slots.keys().copied().collect();
        r.remove(busy[0]);
        assert!(r.admit(B, &l, &shed).is_ok());
    }

    #[test]
    fn each_phase_has_its_deadline() {
        let (mut r, shed) = (Registry::default(), Shed::default());
        let l = HttpLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            ..HttpLimits::default()
        };
        let s = r.admit(A, &l, &shed).unwrap();
        let since = |s: &Slot| s.state().since;
        assert_eq!(s.deadline(&l), Some(since(&s) + Duration::from_secs(10)), "the first head");
        assert_eq!(s.expire(&l), None, "not yet");
        s.shift(&[Phase::Opening], Phase::Body);
        assert_eq!(s.deadline(&l), Some(since(&s) + Duration::from_secs(40)), "a body (its 408 comes first)");
        s.shift(&[Phase::Body], Phase::Busy);
        assert_eq!(s.deadline(&l), None, "a request in flight takes what it takes");
        s.shift(&[Phase::Opening, Phase::Idle], Phase::Head);
        assert_eq!(s.state().phase, Phase::Busy, "bytes during an answer start no head");
        s.shift(&[Phase::Busy], Phase::Idle);
        assert_eq!(s.deadline(&l), Some(since(&s) + Duration::from_secs(60)), "kept alive");
        s.shift(&[Phase::Idle], Phase::Head);
        assert_eq!(s.deadline(&l), Some(since(&s) + Duration::from_secs(10)), "a later head");
        s.state().since -= Duration::from_secs(11);
        assert_eq!(s.expire(&l), Some(Phase::Head));
        assert_eq!(s.state().phase, Phase::Closing);
        assert_eq!(s.deadline(&l), None);
        assert!(!s.try_close(), "closed once");
    }
}
