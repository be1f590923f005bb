//! The IMAP door: the steward logs in to the mailbox its capability addresses are
//! delivered to (`[mail.imap]`), hands every message it has not handled yet to
//! the [`door`](super::door), and marks it.
//!
//! One pass ("sweep"): `UID SEARCH UNKEYWORD $FairstewardDone` (or `UNSEEN` when
//! the mailbox takes no keywords), then for each UID in order `UID FETCH
//! BODY.PEEK[]` (peeking, so fetching alone sets no flag) into a [`Batch`];
//! each full batch (and the last) is handled at once, its transactions sharing
//! the store's commits, and only the messages whose handling committed are then
//! marked, in one `UID STORE +FLAGS.SILENT (\Seen $FairstewardDone)`.
//!
//! * **Nothing twice, nothing lost.** A message is marked only after the store
//!   holds its outcome. A crash (or a refused STORE) between the two leaves it
//!   unmarked: it is fetched again at the next pass, and the door recognises it
//!   (same Message-ID, or the same bytes) and does not act on it or answer it
//!   again. A store failure in [`handle`](super::door::handle) leaves it
//!   unmarked too, and it is offered again at the next pass.
//! * **Waiting.** With `idle = true` and a server that advertises `IDLE`, the
//!   door waits in IDLE and sweeps on any news; otherwise it sweeps every
//!   `poll_seconds`. While a message waits for a retry it polls, every
//!   `recheck_seconds` at most.
//! * **Not trusting IDLE alone.** A server announces a new message once. If
//!   the announcement (`EXISTS`) comes in the answer to a FETCH or STORE of a
//!   sweep (the mail arrived after the sweep's SEARCH), the door sweeps again
//!   instead of idling: idling, it would wait for the next delivery. An
//!   `EXISTS` told before the server's `+ idling` ends the wait at once too.
//!   And since an announcement could still be lost, no IDLE lasts longer than
//!   `recheck_seconds` (default 10): then the door ends it and asks with one
//!   `UID SEARCH` whether anything waits, sweeping only if so (and logging a
//!   warning, since that mail was not announced).
//! * **Reconnecting.** Any error (connect, TLS, login, a lost connection) drops
//!   the connection; the door reconnects after 1 s, 2, 4, … up to 5 minutes,
//!   and the first good login resets the wait. A shutdown ends it at once.
//! * **Size.** Messages over [`MAX_MAIL_BYTES`] are not fetched; they are marked
//!   and left in the mailbox, with a warning.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_imap::types::{Flag, Mailbox, UnsolicitedResponse};
use async_imap::{Client, Session};
use chrono::Utc;
use futures_util::TryStreamExt;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::watch;

use super::MAX_MAIL_BYTES;
use super::door::{Batch, Handled};
use crate::steward::Steward;

/// Why the IMAP door cannot be configured, connect, or finish a sweep.
#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    /// `[mail.imap]` lacks a key or has a wrong one; the message names the key
    /// and what to write instead.
    #[error("{0}")]
    Config(String),
    /// The server or the connection failed in a way the message says (a
    /// timeout, a closed connection).
    #[error("{0}")]
    Failed(String),
    /// A step failed: what was being done, and why.
    #[error("{what}")]
    Step {
        /// The step (`cannot connect to host:993`, `UID FETCH`, …).
        what: String,
        /// Why it failed.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Another steward took the door's lease over (this one could not renew
    /// it in time): this one stops reading the mailbox (issue 35).
    #[error("another steward took over the IMAP door's lease")]
    Lease,
}

impl ImapError {
    fn step(what: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ImapError {
        ImapError::Step { what: what.into(), source: source.into() }
    }
}

/// The keyword set on every message the door has handled.
pub const DONE_KEYWORD: &str = "$FairstewardDone";

/// The keyword set, beside [`DONE_KEYWORD`], on a message whose handling
/// failed [`ATTEMPTS`](super::maildir::ATTEMPTS) times for a reason other than an
/// unavailable store: it is left in the mailbox for the operator (remove both
/// keywords to have it read again).
pub const HELD_KEYWORD: &str = "$FairstewardHeld";

/// How long one IDLE lasts before it is ended and issued again.
const IDLE_REISSUE: Duration = Duration::from_secs(5 * 60);

/// How long the door idles at most before it looks for unhandled mail itself
/// (`[mail.imap] recheck_seconds`).
const DEFAULT_RECHECK: Duration = Duration::from_secs(10);

/// The longest wait between reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5 * 60);

/// How the connection to the IMAP server is protected (`[mail.imap] tls`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImapTls {
    /// Plain text (a server on the same machine).
    None,
    /// Plain connect, then STARTTLS, required.
    Starttls,
    /// TLS from the first byte (IMAPS).
    Tls,
}

impl ImapTls {
    /// The port used when none is configured: 143, 143 or 993.
    pub fn default_port(self) -> u16 {
        match self {
            ImapTls::None | ImapTls::Starttls => 143,
            ImapTls::Tls => 993,
        }
    }

    /// The name as written in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            ImapTls::None => "none",
            ImapTls::Starttls => "starttls",
            ImapTls::Tls => "tls",
        }
    }
}

/// `[mail.imap]` as written.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawImap {
    /// The server's name or address (required).
    pub host: Option<String>,
    /// The port; by default 143, or 993 with `tls = "tls"`.
    pub port: Option<u16>,
    /// `none`, `starttls` (the default) or `tls`.
    pub tls: Option<ImapTls>,
    /// The login (required).
    pub username: Option<String>,
    /// The password for `username` (required).
    pub password: Option<String>,
    /// The mailbox to read (default `INBOX`).
    pub mailbox: Option<String>,
    /// Wait with IMAP IDLE when the server offers it (default true).
    pub idle: Option<bool>,
    /// Seconds between looks when not idling (default 30).
    pub poll_seconds: Option<u64>,
    /// While idling, seconds between the door's own look for unhandled mail,
    /// in case the server's word of a delivery was lost (default 10).
    pub recheck_seconds: Option<u64>,
    /// Seconds to wait for the connection and for each answer (default 60).
    pub timeout_seconds: Option<u64>,
    /// A PEM file with the CA certificate(s) to trust instead of the public roots.
    pub ca_file: Option<PathBuf>,
}

impl fmt::Debug for RawImap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawImap")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .field("mailbox", &self.mailbox)
            .field("idle", &self.idle)
            .field("poll_seconds", &self.poll_seconds)
            .field("recheck_seconds", &self.recheck_seconds)
            .field("timeout_seconds", &self.timeout_seconds)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

/// `[mail.imap]`, validated.
#[derive(Clone, PartialEq, Eq)]
pub struct ImapConfig {
    /// The server's name or address.
    pub host: String,
    /// The port.
    pub port: u16,
    /// How the connection is protected.
    pub tls: ImapTls,
    /// The login.
    pub username: String,
    /// Its password.
    pub password: String,
    /// The mailbox read.
    pub mailbox: String,
    /// Whether to wait with IDLE when the server offers it.
    pub idle: bool,
    /// The time between looks when not idling.
    pub poll: Duration,
    /// The longest the door idles before it looks for unhandled mail itself
    /// (one `UID SEARCH`), and the wait before a retry.
    pub recheck: Duration,
    /// The connect and per-command timeout.
    pub timeout: Duration,
    /// CA certificates to trust instead of the public roots.
    pub ca_file: Option<PathBuf>,
}

impl fmt::Debug for ImapConfig {
    // The password never reaches a log line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("username", &self.username)
            .field("password", &"<hidden>")
            .field("mailbox", &self.mailbox)
            .field("idle", &self.idle)
            .field("poll", &self.poll)
            .field("recheck", &self.recheck)
            .field("timeout", &self.timeout)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

impl ImapConfig {
    /// Validates `[mail.imap]`.
    ///
    /// # Errors
    /// A missing host, username or password, a password that would travel in
    /// clear to another machine, a zero port, poll or timeout. The messages name
    /// the key.
    pub fn from_raw(raw: RawImap) -> Result<ImapConfig, ImapError> {
        let Some(host) = raw.host.map(|h| h.trim().to_owned()).filter(|h| !h.is_empty()) else {
            return Err(ImapError::Config("[mail.imap] needs host, the IMAP server's name or address, e.g. host = \"imap.example.org\" (remove [mail.imap] to read no mailbox)".into()));
        };
        if host.contains([':', '/', ' ']) && host.parse::<IpAddr>().is_err() {
            return Err(ImapError::Config(format!(
                "mail.imap.host {host:?} must be a bare name or IP address; put the port in mail.imap.port"
            )));
        }
        let tls = raw.tls.unwrap_or(ImapTls::Starttls);
        let port = raw.port.unwrap_or_else(|| tls.default_port());
        if port == 0 {
            return Err(ImapError::Config("mail.imap.port must be between 1 and 65535".into()));
        }
        let Some(username) = raw.username.filter(|u| !u.is_empty()) else {
            return Err(ImapError::Config(
                "[mail.imap] needs username, the login of the mailbox the steward's mail is delivered to".into(),
            ));
        };
        let Some(password) = raw.password else {
            return Err(ImapError::Config("[mail.imap] needs password, the password of mail.imap.username".into()));
        };
        if tls == ImapTls::None && !is_loopback(&host) {
            return Err(ImapError::Config(format!(
                "mail.imap: tls = \"none\" would send the password to {host} in clear; use tls = \"starttls\" (port 143) or tls = \"tls\" (port 993)"
            )));
        }
        if raw.ca_file.is_some() && tls == ImapTls::None {
            return Err(ImapError::Config(
                "mail.imap.ca_file is set but tls = \"none\"; use tls = \"starttls\" or \"tls\", or drop ca_file"
                    .into(),
            ));
        }
        let mailbox = raw.mailbox.unwrap_or_else(|| "INBOX".to_owned());
        if mailbox.trim().is_empty() {
            return Err(ImapError::Config("mail.imap.mailbox must name a mailbox, e.g. \"INBOX\"".into()));
        }
        let poll = match raw.poll_seconds {
            Some(0) => return Err(ImapError::Config("mail.imap.poll_seconds must be at least 1".into())),
            Some(s) => Duration::from_secs(s),
            None => Duration::from_secs(30),
        };
        let recheck = match raw.recheck_seconds {
            Some(0) => return Err(ImapError::Config("mail.imap.recheck_seconds must be at least 1 (it bounds how long a mail the server did not announce waits; 10 is the default)".into())),
            Some(s) => Duration::from_secs(s),
            None => DEFAULT_RECHECK,
        };
        let timeout = match raw.timeout_seconds {
            Some(0) => return Err(ImapError::Config("mail.imap.timeout_seconds must be at least 1".into())),
            Some(s) => Duration::from_secs(s),
            None => Duration::from_secs(60),
        };
        Ok(ImapConfig {
            host,
            port,
            tls,
            username,
            password,
            mailbox,
            idle: raw.idle.unwrap_or(true),
            poll,
            recheck,
            timeout,
            ca_file: raw.ca_file,
        })
    }

    /// `user@host:port/mailbox (tls …)`, for log lines.
    pub fn describe(&self) -> String {
        format!("{}@{}:{}/{} (tls {})", self.username, self.host, self.port, self.mailbox, self.tls.name())
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A connection, plain or TLS.
trait Io: AsyncRead + AsyncWrite + Unpin + Send + fmt::Debug {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + fmt::Debug> Io for T {}
type Conn = Box<dyn Io>;

/// What a sweep did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Swept {
    /// The messages handled and marked, with what became of each.
    pub handled: Vec<(u32, Handled)>,
    /// Messages left unmarked for a retry (the store or the STORE failed).
    pub retry: usize,
}

/// Reads the mailbox of `config` until `shutdown` turns true, reconnecting
/// with backoff after errors.
pub async fn run(steward: Steward, config: ImapConfig, mut shutdown: watch::Receiver<bool>) {
    let tls = match tls_connector(&config) {
        Ok(t) => t,
        Err(e) => {
            tracing::error!(imap = %config.describe(), error = %super::error_chain(&e), "the IMAP door cannot set up TLS; it does not run");
            return;
        }
    };
    let mut backoff = Duration::from_secs(1);
    let mut waiting_told = false;
    loop {
        if *shutdown.borrow() {
            steward.release_lease(IMAP_LEASE).await;
            return;
        }
        // Stewards sharing a database read the mailbox one at a time
        // (issue 35): the one holding the lease; the others wait to take it
        // over once it lapses.
        if !steward.hold_lease(IMAP_LEASE, lease_ttl(&config)).await {
            if !waiting_told {
                tracing::info!(imap = %config.describe(), "IMAP door: another steward reads the mailbox; waiting to take over");
                waiting_told = true;
            }
            tokio::select! {
                () = tokio::time::sleep(LEASE_RETRY) => {}
                _ = shutdown.changed() => {}
            }
            continue;
        }
        waiting_told = false;
        match connected(&steward, &config, tls.as_ref(), &mut shutdown, &mut backoff).await {
            Ok(()) => {
                steward.release_lease(IMAP_LEASE).await;
                return;
            }
            Err(e) => tracing::warn!(
                imap = %config.describe(),
                error = %super::error_chain(&e),
                retry_in = ?backoff,
                "IMAP door: connection failed or lost; reconnecting"
            ),
        }
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            _ = shutdown.changed() => {}
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// The lease of the IMAP door (issue 35).
const IMAP_LEASE: &str = "imap";

/// How often a steward without the IMAP door's lease asks for it.
const LEASE_RETRY: Duration = Duration::from_secs(5);

/// How long the IMAP door's lease is held: two of the door's longest waits
/// between renewals (each turn of the loop renews it) and ten seconds.
fn lease_ttl(config: &ImapConfig) -> Duration {
    config.poll.max(config.recheck.min(IDLE_REISSUE)) * 2 + Duration::from_secs(10)
}

/// One connection: log in, then sweep and wait until shutdown (`Ok`) or an error.
async fn connected(
    steward: &Steward,
    config: &ImapConfig,
    tls: Option<&tokio_rustls::TlsConnector>,
    shutdown: &mut watch::Receiver<bool>,
    backoff: &mut Duration,
) -> Result<(), ImapError> {
    let mut session = connect(config, tls).await?;
    let capabilities = within(config, "CAPABILITY", session.capabilities()).await?;
    let can_idle = capabilities.has_str("IDLE");
    let mailbox = within(config, "SELECT", session.select(&config.mailbox)).await?;
    let keywords = takes_keywords(&mailbox);
    *backoff = Duration::from_secs(1);
    tracing::info!(
        imap = %config.describe(),
        idle = config.idle && can_idle,
        keyword = keywords,
        "IMAP door: reading the mailbox"
    );
    let mut failures = HashMap::new();
    let unhandled = unhandled_search(keywords);
    // Whether the next turn sweeps, or first asks (one UID SEARCH) whether
    // there is anything to sweep: after a quiet IDLE that the recheck ended.
    let mut look_first = false;
    loop {
        if !steward.hold_lease(IMAP_LEASE, lease_ttl(config)).await {
            let _ = within(config, "LOGOUT", session.logout()).await;
            return Err(ImapError::Lease);
        }
        let skip = look_first && !has_unhandled(config, &mut session, &unhandled).await?;
        look_first = false;
        let swept = if skip {
            Swept::default()
        } else {
            sweep_session(steward, config, &mut session, keywords, &mut failures).await?
        };
        if !swept.handled.is_empty() {
            tracing::info!(imap = %config.describe(), messages = swept.handled.len(), "IMAP door: mailbox swept");
        }
        // A delivery after the sweep's SEARCH is announced (EXISTS) in the
        // answer to a later FETCH or STORE, and the server does not announce it
        // again in IDLE: that news means sweep again, not wait.
        if news(&mut session) {
            tracing::debug!(imap = %config.describe(), "IMAP door: new mail arrived during the sweep; sweeping again");
            continue;
        }
        if *shutdown.borrow() {
            let _ = within(config, "LOGOUT", session.logout()).await;
            return Ok(());
        }
        if config.idle && can_idle && swept.retry == 0 {
            // What the server says before its `+ idling` (an EXISTS among
            // it) the library sets aside, not into the wait: look there too.
            let aside = session.unsolicited_responses.clone();
            let mut idle = session.idle();
            within(config, "IDLE", idle.init()).await?;
            let told_already = std::iter::from_fn(|| aside.try_recv().ok()).fold(false, |new, r| {
                new | matches!(r, UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_))
            });
            // IDLE is bounded by the recheck: a server's notification can be
            // lost (seen with Dovecot handing a hibernated IDLE back), and a
            // mail must not wait for the next delivery or Dovecot's own 30 s.
            let woken = told_already || {
                let (wait, _interrupt) = idle.wait_with_timeout(IDLE_REISSUE);
                tokio::select! {
                    r = wait => {
                        let r = r.map_err(|e| ImapError::step("IDLE", e))?;
                        tracing::debug!(imap = %config.describe(), response = ?r, "IMAP door: IDLE ended");
                        true
                    }
                    () = tokio::time::sleep(config.recheck.min(IDLE_REISSUE)) => false,
                    _ = shutdown.changed() => true,
                }
            };
            session = within(config, "DONE (ending IDLE)", idle.done()).await?;
            // News told before the server's `+ idling` (or with the DONE) lands
            // on the side, not in the wait: it counts as waking too.
            look_first = !woken && !news(&mut session);
        } else {
            let wait = if swept.retry > 0 { config.poll.min(config.recheck) } else { config.poll };
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = shutdown.changed() => {}
            }
            // Keep the session alive and learn of new mail.
            within(config, "NOOP", session.noop()).await?;
            let _ = news(&mut session);
        }
    }
}

/// The `UID SEARCH` criteria of the messages not handled yet.
fn unhandled_search(keywords: bool) -> String {
    if keywords { format!("UNKEYWORD {DONE_KEYWORD}") } else { "UNSEEN".to_owned() }
}

/// Whether any message waits to be handled: one `UID SEARCH`.
async fn has_unhandled(config: &ImapConfig, session: &mut Session<Conn>, unhandled: &str) -> Result<bool, ImapError> {
    let waiting = within(config, "UID SEARCH", session.uid_search(unhandled)).await?;
    if !waiting.is_empty() {
        tracing::warn!(
            imap = %config.describe(),
            messages = waiting.len(),
            "IMAP door: the periodic re-check found mail the server did not announce; handling it now"
        );
    }
    Ok(!waiting.is_empty())
}

/// Takes what the server said on the side (untagged answers the library set
/// aside) and tells whether it announced new mail (`EXISTS`, `RECENT`).
fn news(session: &mut Session<Conn>) -> bool {
    let mut new_mail = false;
    while let Ok(r) = session.unsolicited_responses.try_recv() {
        new_mail |= matches!(r, UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_));
    }
    new_mail
}

/// Whether the mailbox takes new keywords (`\*` in PERMANENTFLAGS).
fn takes_keywords(mailbox: &Mailbox) -> bool {
    mailbox.permanent_flags.iter().any(|f| matches!(f, Flag::MayCreate))
        || mailbox.permanent_flags.iter().any(|f| matches!(f, Flag::Custom(k) if k.eq_ignore_ascii_case(DONE_KEYWORD)))
}

/// Connects, reads the greeting, upgrades to TLS as configured and logs in.
async fn connect(config: &ImapConfig, tls: Option<&tokio_rustls::TlsConnector>) -> Result<Session<Conn>, ImapError> {
    let addr = (config.host.as_str(), config.port);
    let tcp = tokio::time::timeout(config.timeout, TcpStream::connect(addr))
        .await
        .map_err(|_| ImapError::Failed(format!("connecting to {}:{} timed out", config.host, config.port)))?
        .map_err(|e| ImapError::step(format!("cannot connect to {}:{}", config.host, config.port), e))?;
    let client: Client<Conn> = match (config.tls, tls) {
        (ImapTls::None, _) => {
            let mut client = Client::new(Box::new(tcp) as Conn);
            greeting(config, &mut client).await?;
            client
        }
        (ImapTls::Tls, Some(tls)) => {
            let stream = handshake(config, tls, tcp).await?;
            let mut client = Client::new(Box::new(stream) as Conn);
            greeting(config, &mut client).await?;
            client
        }
        (ImapTls::Starttls, Some(tls)) => {
            let mut plain = Client::new(tcp);
            greeting(config, &mut plain).await?;
            within(config, "STARTTLS", plain.run_command_and_check_ok("STARTTLS", None)).await?;
            let stream = handshake(config, tls, plain.into_inner()).await?;
            Client::new(Box::new(stream) as Conn)
        }
        (_, None) => return Err(ImapError::Failed(format!("no TLS set up for tls = {:?}", config.tls.name()))),
    };
    let login = tokio::time::timeout(config.timeout, client.login(&config.username, &config.password))
        .await
        .map_err(|_| ImapError::Failed("LOGIN timed out".into()))?;
    // async-imap hands the client back with a login error.
    login
        .map_err(|(e, _client)| e)
        .map_err(|e| ImapError::step(format!("IMAP login as {:?} refused", config.username), e))
}

async fn greeting<T: AsyncRead + AsyncWrite + Unpin + Send + fmt::Debug>(
    config: &ImapConfig,
    client: &mut Client<T>,
) -> Result<(), ImapError> {
    // async-imap hands the server greeting back separately: read it before anything else.
    let greeting = tokio::time::timeout(config.timeout, client.read_response())
        .await
        .map_err(|_| ImapError::Failed(format!("no IMAP greeting from {}:{}", config.host, config.port)))?
        .map_err(|e| ImapError::step("reading the IMAP greeting", e))?;
    if greeting.is_none() {
        return Err(ImapError::Failed(format!(
            "{}:{} closed the connection before greeting",
            config.host, config.port
        )));
    }
    Ok(())
}

async fn handshake(
    config: &ImapConfig,
    tls: &tokio_rustls::TlsConnector,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, ImapError> {
    let name = rustls::pki_types::ServerName::try_from(config.host.clone())
        .map_err(|e| ImapError::step(format!("mail.imap.host {:?} is no server name for TLS", config.host), e))?;
    tokio::time::timeout(config.timeout, tls.connect(name, tcp))
        .await
        .map_err(|_| ImapError::Failed(format!("the TLS handshake with {}:{} timed out", config.host, config.port)))?
        .map_err(|e| ImapError::step(format!("TLS with {}:{} failed", config.host, config.port), e))
}

/// The TLS connector for `config` (`None` for `tls = "none"`).
fn tls_connector(config: &ImapConfig) -> Result<Option<tokio_rustls::TlsConnector>, ImapError> {
    if config.tls == ImapTls::None {
        return Ok(None);
    }
    let mut roots = rustls::RootCertStore::empty();
    match &config.ca_file {
        Some(path) => {
            use rustls::pki_types::pem::PemObject;
            let certs: Vec<_> = rustls::pki_types::CertificateDer::pem_file_iter(path)
                .map_err(|e| ImapError::step(format!("cannot read mail.imap.ca_file {}", path.display()), e))?
                .collect::<Result<_, _>>()
                .map_err(|e| ImapError::step(format!("mail.imap.ca_file {} is not PEM", path.display()), e))?;
            let (added, _) = roots.add_parsable_certificates(certs);
            if added == 0 {
                return Err(ImapError::Failed(format!(
                    "mail.imap.ca_file {} holds no usable certificate",
                    path.display()
                )));
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| ImapError::step("cannot set up TLS for [mail.imap]", e))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Some(tokio_rustls::TlsConnector::from(Arc::new(tls))))
}

/// Runs `fut` (an IMAP command) with the configured timeout.
async fn within<T, E>(config: &ImapConfig, what: &str, fut: impl Future<Output = Result<T, E>>) -> Result<T, ImapError>
where
    E: std::error::Error + Send + Sync + 'static,
{
    tokio::time::timeout(config.timeout, fut)
        .await
        .map_err(|_| ImapError::Failed(format!("{what} timed out after {:?}", config.timeout)))?
        .map_err(|e| ImapError::step(what, e))
}

/// One pass over the mailbox: every unmarked message is handled and marked.
/// `failures` counts, by UID, the passes that failed to handle a message for a
/// reason a retry does not cure; at the last attempt it is marked held.
async fn sweep_session(
    steward: &Steward,
    config: &ImapConfig,
    session: &mut Session<Conn>,
    keywords: bool,
    failures: &mut HashMap<u32, u32>,
) -> Result<Swept, ImapError> {
    let unhandled = unhandled_search(keywords);
    let mark =
        if keywords { format!("+FLAGS.SILENT (\\Seen {DONE_KEYWORD})") } else { "+FLAGS.SILENT (\\Seen)".to_owned() };
    let held = if keywords {
        format!("+FLAGS.SILENT (\\Seen {DONE_KEYWORD} {HELD_KEYWORD})")
    } else {
        "+FLAGS.SILENT (\\Seen)".to_owned()
    };
    let mut swept = Swept::default();

    // Too big to read: marked, left in the mailbox.
    let search = format!("{unhandled} LARGER {MAX_MAIL_BYTES}");
    let mut big: Vec<u32> = within(config, "UID SEARCH", session.uid_search(&search)).await?.into_iter().collect();
    big.sort_unstable();
    for uid in big {
        tracing::warn!(uid, limit = MAX_MAIL_BYTES, "IMAP door: a message over the size limit is marked and not read");
        store(config, session, uid, &mark).await?;
    }

    let mut uids: Vec<u32> = within(config, "UID SEARCH", session.uid_search(&unhandled)).await?.into_iter().collect();
    uids.sort_unstable();
    let mut batch = Batch::default();
    let mut uids = uids.into_iter().peekable();
    while let Some(uid) = uids.next() {
        let fetches: Vec<_> = within(config, "UID FETCH", async {
            session.uid_fetch(uid.to_string(), "BODY.PEEK[]").await?.try_collect::<Vec<_>>().await
        })
        .await?;
        // The answer may carry FLAGS-only updates of other messages on the side:
        // take the one with this UID and a body.
        let with_body = || fetches.iter().filter(|f| f.body().is_some());
        match with_body().find(|f| f.uid == Some(uid)).or_else(|| with_body().next()).and_then(|f| f.body()) {
            // Expunged meanwhile.
            None => {}
            Some(raw) if raw.len() > MAX_MAIL_BYTES => {
                tracing::warn!(
                    uid,
                    limit = MAX_MAIL_BYTES,
                    "IMAP door: a message over the size limit is marked and not read"
                );
                store(config, session, uid, &mark).await?;
            }
            Some(raw) => batch.push(uid, raw.to_vec()),
        }
        if !batch.is_due(uids.peek().is_some()) {
            continue;
        }
        let mut stored = Vec::new();
        for (uid, outcome) in batch.handle(steward, Utc::now()).await {
            match outcome {
                Ok(handled) => stored.push((uid, handled)),
                Err(e) if e.is_transient() => {
                    // Not stored: left unmarked, offered again at the next pass.
                    tracing::error!(uid, error = %e, "IMAP door: the store failed; the message stays unmarked and is retried");
                    swept.retry += 1;
                }
                Err(e) => {
                    let attempts = failures.entry(uid).or_default();
                    *attempts += 1;
                    if *attempts < super::maildir::ATTEMPTS {
                        tracing::warn!(uid, attempt = *attempts, error = %e, "IMAP door: a message could not be handled; it is tried again, the door goes on");
                        swept.retry += 1;
                    } else {
                        failures.remove(&uid);
                        tracing::error!(uid, error = %e, keyword = HELD_KEYWORD, "IMAP door: a message failed every attempt and is set aside in the mailbox for the operator");
                        store(config, session, uid, &held).await?;
                    }
                }
            }
        }
        if stored.is_empty() {
            continue;
        }
        // Handled and committed: marked in one command. If marking fails, the
        // next pass fetches them again and the door ignores them as seen before.
        let set = stored.iter().map(|(uid, _)| uid.to_string()).collect::<Vec<_>>().join(",");
        match store_set(config, session, &set, &mark).await {
            Ok(()) => swept.handled.extend(stored),
            Err(e) => {
                tracing::warn!(uids = %set, error = %super::error_chain(&e), "IMAP door: marking handled messages failed; they are looked at again later");
                swept.retry += stored.len();
            }
        }
    }
    Ok(swept)
}

async fn store(config: &ImapConfig, session: &mut Session<Conn>, uid: u32, flags: &str) -> Result<(), ImapError> {
    store_set(config, session, &uid.to_string(), flags).await
}

/// Sets `flags` on the messages of `uids`, an IMAP UID set (`4,7,9`).
async fn store_set(config: &ImapConfig, session: &mut Session<Conn>, uids: &str, flags: &str) -> Result<(), ImapError> {
    within(config, "UID STORE", async { session.uid_store(uids, flags).await?.try_collect::<Vec<_>>().await }).await?;
    Ok(())
}

/// Connects once, handles every unmarked message in the mailbox and logs out:
/// one pass of the door, for tests and one-off runs.
///
/// # Errors
/// The server cannot be reached, refuses the login or the mailbox, or a command fails.
pub async fn sweep_once(steward: &Steward, config: &ImapConfig) -> Result<Swept, ImapError> {
    let tls = tls_connector(config)?;
    let mut session = connect(config, tls.as_ref()).await?;
    let mailbox = within(config, "SELECT", session.select(&config.mailbox)).await?;
    let swept = sweep_session(steward, config, &mut session, takes_keywords(&mailbox), &mut HashMap::new()).await?;
    let _ = within(config, "LOGOUT", session.logout()).await;
    Ok(swept)
}

/// Connects, logs in and opens the mailbox read-only (`EXAMINE`), then logs
/// out: what `fairsteward check` asks of the door (issue 36). Changes nothing
/// in the mailbox. Returns how many messages it holds.
///
/// # Errors
/// The server cannot be reached, refuses TLS or the login, or has no such mailbox.
pub async fn probe(config: &ImapConfig) -> Result<u32, ImapError> {
    let tls = tls_connector(config)?;
    let mut session = connect(config, tls.as_ref()).await?;
    let what = format!("EXAMINE {:?}", config.mailbox);
    let mailbox = match tokio::time::timeout(config.timeout, session.examine(&config.mailbox)).await {
        Ok(Ok(mailbox)) => mailbox,
        // async-imap words a NO as the Debug of its outcome: keep the server's words.
        Ok(Err(async_imap::error::Error::No(text))) => {
            return Err(ImapError::Failed(format!("{what}: the server answered NO: {}", server_words(&text))));
        }
        Ok(Err(e)) => return Err(ImapError::step(what, e)),
        Err(_) => return Err(ImapError::Failed(format!("{what} timed out after {:?}", config.timeout))),
    };
    let _ = within(config, "LOGOUT", session.logout()).await;
    Ok(mailbox.exists)
}

/// The text a server gave with a NO, out of async-imap's `Outcome { .. }`
/// (all of `text` when it is not in that shape).
fn server_words(text: &str) -> &str {
    text.split_once("information: Some(\"")
        .and_then(|(_, rest)| rest.rsplit_once("\")"))
        .map_or(text, |(words, _)| words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_no_keeps_the_server_words() {
        let debug = r#"outcome: Outcome { code: None, information: Some("Mailbox doesn't exist: Replies") }"#;
        assert_eq!(server_words(debug), "Mailbox doesn't exist: Replies");
        assert_eq!(server_words("plain"), "plain");
    }

    /// The configuration, or the error's text with its causes.
    fn parse(text: &str) -> Result<ImapConfig, String> {
        let raw = toml::from_str::<RawImap>(text).map_err(|e| e.to_string())?;
        ImapConfig::from_raw(raw).map_err(|e| crate::mail::error_chain(&e))
    }

    #[test]
    fn defaults() {
        let c = parse("host = \"imap.example.org\"\nusername = \"moves\"\npassword = \"p\"").unwrap();
        assert_eq!((c.tls, c.port, c.mailbox.as_str(), c.idle), (ImapTls::Starttls, 143, "INBOX", true));
        assert_eq!((c.poll, c.timeout), (Duration::from_secs(30), Duration::from_secs(60)));
        assert_eq!(c.recheck, Duration::from_secs(10));
        let c = parse("host = \"x\"\nusername = \"m\"\npassword = \"p\"\nrecheck_seconds = 25").unwrap();
        assert_eq!(c.recheck, Duration::from_secs(25));
        let c = parse("host = \"imap.example.org\"\ntls = \"tls\"\nusername = \"m\"\npassword = \"p\"").unwrap();
        assert_eq!(c.port, 993);
        let c = parse(
            "host = \"127.0.0.1\"\nport = 1143\ntls = \"none\"\nusername = \"m\"\npassword = \"p\"\nmailbox = \"Moves\"\nidle = false\npoll_seconds = 5",
        )
        .unwrap();
        assert_eq!(c.describe(), "m@127.0.0.1:1143/Moves (tls none)");
        assert_eq!((c.idle, c.poll), (false, Duration::from_secs(5)));
    }

    #[test]
    fn mistakes_are_named() {
        let err = |text: &str| format!("{:#}", parse(text).unwrap_err());
        assert!(err("username = \"m\"\npassword = \"p\"").contains("needs host"));
        assert!(err("host = \"x\"\npassword = \"p\"").contains("needs username"));
        assert!(err("host = \"x\"\nusername = \"m\"").contains("needs password"));
        assert!(err("host = \"x\"\nusername = \"m\"\npassword = \"p\"\nuser = \"a\"").contains("unknown field `user`"));
        assert!(err("host = \"x\"\ntls = \"ssl\"\nusername = \"m\"\npassword = \"p\"").contains("`starttls`"));
        assert!(
            err("host = \"mx.example.org\"\ntls = \"none\"\nusername = \"m\"\npassword = \"p\"").contains("in clear")
        );
        assert!(err("host = \"x:143\"\nusername = \"m\"\npassword = \"p\"").contains("mail.imap.port"));
        assert!(err("host = \"x\"\nusername = \"m\"\npassword = \"p\"\npoll_seconds = 0").contains("at least 1"));
        assert!(
            err("host = \"x\"\nusername = \"m\"\npassword = \"p\"\nrecheck_seconds = 0")
                .contains("mail.imap.recheck_seconds must be at least 1")
        );
        assert!(err("host = \"x\"\nusername = \"m\"\npassword = \"p\"\nmailbox = \" \"").contains("mail.imap.mailbox"));
    }

    #[test]
    fn the_password_stays_out_of_debug_output() {
        let c = parse("host = \"x\"\nusername = \"moves\"\npassword = \"hunter2\"").unwrap();
        assert!(!format!("{c:?}").contains("hunter2"));
        let raw: RawImap = toml::from_str("host = \"x\"\npassword = \"hunter2\"").unwrap();
        assert!(!format!("{raw:?}").contains("hunter2"));
    }
}
