//! Outbound SMTP: where the outbox drainer hands mails over when `[mail.smtp]` is
//! configured (lettre's async transport on tokio, with a small connection pool).
//!
//! The connection is plain (`tls = "none"`, loopback relays), upgraded with
//! STARTTLS (`"starttls"`, required: never falls back to plain text) or TLS from
//! the first byte (`"tls"`, SMTPS); certificates are checked against the Mozilla
//! roots, or against `ca_file` for a private relay. Credentials are optional and
//! are only ever sent over TLS, or to a relay on loopback.
//!
//! A failure is classified for the drainer ([`Failure`]): when the server cannot
//! be reached, times out, or answers 4xx, the whole queue waits (exponential
//! backoff in [`super::outbox`]); when it refuses one mail for good (5xx), that
//! mail is held back on its own and the others go on.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use lettre::address::Envelope;
use lettre::message::Mailbox;
use lettre::transport::smtp::PoolConfig;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Address, AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use serde::Deserialize;

use super::error_chain;

/// Why `[mail.smtp]` or the transport for it cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum SmtpSetupError {
    /// `[mail.smtp]` lacks a key or has a wrong one; the message names the key
    /// and what to write instead.
    #[error("{0}")]
    Config(String),
    /// `ca_file` cannot be read.
    #[error("cannot read mail.smtp.ca_file {}", path.display())]
    CaFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `ca_file` holds no certificate.
    #[error("mail.smtp.ca_file {} holds no PEM certificate", path.display())]
    NotPem {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: lettre::transport::smtp::Error,
    },
    /// rustls refused the TLS parameters.
    #[error("cannot set up TLS for [mail.smtp]")]
    Tls(#[source] lettre::transport::smtp::Error),
}

/// How the connection to the SMTP server is protected (`[mail.smtp] tls`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    /// Plain text (a relay on the same machine).
    None,
    /// Plain connect, then STARTTLS, required.
    Starttls,
    /// TLS from the first byte (SMTPS).
    Tls,
}

impl TlsMode {
    /// The port used when none is configured: 25, 587 or 465.
    pub fn default_port(self) -> u16 {
        match self {
            TlsMode::None => 25,
            TlsMode::Starttls => 587,
            TlsMode::Tls => 465,
        }
    }

    /// The name as written in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            TlsMode::None => "none",
            TlsMode::Starttls => "starttls",
            TlsMode::Tls => "tls",
        }
    }
}

/// `[mail.smtp]` as written.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSmtp {
    /// The server's name or address (required).
    pub host: Option<String>,
    /// The port; by default 25, 587 or 465 after `tls`.
    pub port: Option<u16>,
    /// `none`, `starttls` (the default) or `tls`.
    pub tls: Option<TlsMode>,
    /// The login, if the server wants one (with `password`).
    pub username: Option<String>,
    /// The password for `username`.
    pub password: Option<String>,
    /// Seconds to wait for the connection and for each answer (default 30).
    pub timeout_seconds: Option<u64>,
    /// A PEM file with the CA certificate(s) to trust instead of the public roots.
    pub ca_file: Option<PathBuf>,
}

impl fmt::Debug for RawSmtp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawSmtp")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .field("timeout_seconds", &self.timeout_seconds)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

/// `[mail.smtp]`, validated.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpConfig {
    /// The server's name or address.
    pub host: String,
    /// The port.
    pub port: u16,
    /// How the connection is protected.
    pub tls: TlsMode,
    /// Login and password, if any.
    pub credentials: Option<(String, String)>,
    /// The connect and per-command timeout.
    pub timeout: Duration,
    /// CA certificates to trust instead of the public roots.
    pub ca_file: Option<PathBuf>,
}

impl fmt::Debug for SmtpConfig {
    // The password never reaches a log line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("username", &self.credentials.as_ref().map(|(u, _)| u))
            .field("password", &self.credentials.as_ref().map(|_| "<hidden>"))
            .field("timeout", &self.timeout)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

impl SmtpConfig {
    /// The default timeout.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

    /// Validates `[mail.smtp]`.
    ///
    /// # Errors
    /// A missing host, a username without a password (or the other way round),
    /// credentials over a plain connection to another machine, a zero port or
    /// timeout. The messages name the key and what to write instead.
    pub fn from_raw(raw: RawSmtp) -> Result<SmtpConfig, SmtpSetupError> {
        let Some(host) = raw.host.map(|h| h.trim().to_owned()).filter(|h| !h.is_empty()) else {
            return Err(SmtpSetupError::Config("[mail.smtp] needs host, the SMTP server's name or address, e.g. host = \"smtp.example.org\" (remove [mail.smtp] to write mails to the spool instead)".into()));
        };
        if host.contains([':', '/', ' ']) && host.parse::<IpAddr>().is_err() {
            return Err(SmtpSetupError::Config(format!(
                "mail.smtp.host {host:?} must be a bare name or IP address; put the port in mail.smtp.port"
            )));
        }
        let tls = raw.tls.unwrap_or(TlsMode::Starttls);
        let port = raw.port.unwrap_or_else(|| tls.default_port());
        if port == 0 {
            return Err(SmtpSetupError::Config("mail.smtp.port must be between 1 and 65535".into()));
        }
        let credentials = match (raw.username, raw.password) {
            (None, None) => None,
            (Some(u), Some(p)) => Some((u, p)),
            (Some(_), None) => {
                return Err(SmtpSetupError::Config(
                    "mail.smtp.username is set but mail.smtp.password is not; give both, or neither".into(),
                ));
            }
            (None, Some(_)) => {
                return Err(SmtpSetupError::Config(
                    "mail.smtp.password is set but mail.smtp.username is not; give both, or neither".into(),
                ));
            }
        };
        if credentials.is_some() && tls == TlsMode::None && !is_loopback(&host) {
            return Err(SmtpSetupError::Config(format!(
                "mail.smtp: tls = \"none\" would send the password to {host} in clear; use tls = \"starttls\" (port 587) or tls = \"tls\" (port 465)"
            )));
        }
        if raw.ca_file.is_some() && tls == TlsMode::None {
            return Err(SmtpSetupError::Config(
                "mail.smtp.ca_file is set but tls = \"none\"; use tls = \"starttls\" or \"tls\", or drop ca_file"
                    .into(),
            ));
        }
        let timeout = match raw.timeout_seconds {
            Some(0) => return Err(SmtpSetupError::Config("mail.smtp.timeout_seconds must be at least 1".into())),
            Some(s) => Duration::from_secs(s),
            None => SmtpConfig::DEFAULT_TIMEOUT,
        };
        Ok(SmtpConfig { host, port, tls, credentials, timeout, ca_file: raw.ca_file })
    }

    /// `host:port (tls)`, for log lines.
    pub fn describe(&self) -> String {
        format!("{}:{} (tls {})", self.host, self.port, self.tls.name())
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Why a mail was not delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The server is unreachable or unwilling for now (connection refused or
    /// closed, timeout, TLS failure, a 4xx answer): the whole queue waits.
    Server(String),
    /// The server refused this mail for good (5xx), or its recipient is not an
    /// address: hold this one back, go on with the others.
    Mail(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Server(e) => write!(f, "server unavailable: {e}"),
            Failure::Mail(e) => write!(f, "mail refused: {e}"),
        }
    }
}

/// The most SMTP connections kept open at once.
const POOL_SIZE: u32 = 4;

/// Hands mails to an SMTP server; cheap to clone (the connection pool is shared).
#[derive(Clone)]
pub struct SmtpSink {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    sender: Address,
    server: String,
}

impl fmt::Debug for SmtpSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpSink").field("server", &self.server).field("sender", &self.sender).finish()
    }
}

impl SmtpSink {
    /// Builds the transport for `config`; mails go out with `sender` as the
    /// envelope sender. Nothing connects until the first mail.
    ///
    /// # Errors
    /// An unreadable or invalid `ca_file`, or TLS parameters rustls refuses.
    pub fn new(config: &SmtpConfig, sender: &Mailbox) -> Result<SmtpSink, SmtpSetupError> {
        let tls = match config.tls {
            TlsMode::None => Tls::None,
            TlsMode::Starttls => Tls::Required(tls_parameters(config)?),
            TlsMode::Tls => Tls::Wrapper(tls_parameters(config)?),
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(config.host.as_str())
            .port(config.port)
            .tls(tls)
            .timeout(Some(config.timeout))
            // A few connections, closed after a minute of quiet.
            .pool_config(PoolConfig::new().max_size(POOL_SIZE).idle_timeout(Duration::from_secs(60)));
        if let Some((user, password)) = &config.credentials {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        Ok(SmtpSink { transport: builder.build(), sender: sender.email.clone(), server: config.describe() })
    }

    /// The server, as `host:port (tls …)`.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Connects as a delivery would: TCP, STARTTLS or TLS as configured, EHLO
    /// and the login, then `NOOP`; sends no mail (`fairsteward check`, issue 36).
    ///
    /// # Errors
    /// What failed, with the server's answer when it gave one.
    pub async fn test_connection(&self) -> Result<(), String> {
        match self.transport.test_connection().await {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!("{}: the connection did not answer NOOP", self.server)),
            Err(e) => Err(format!("{}: {}", self.server, error_chain(&e))),
        }
    }

    /// Sends one formatted message to `recipient`. `Ok` means the server accepted
    /// it (250 after the data): only then may the outbox mark it sent.
    ///
    /// # Errors
    /// A [`Failure`], classified for the drainer.
    pub async fn send(&self, recipient: &str, message: &[u8]) -> Result<(), Failure> {
        let to: Address = recipient
            .parse()
            .map_err(|e| Failure::Mail(format!("recipient {recipient:?} is not a mail address: {e}")))?;
        let envelope = Envelope::new(Some(self.sender.clone()), vec![to]).map_err(|e| Failure::Mail(e.to_string()))?;
        let mut sent = self.transport.send_raw(&envelope, message).await;
        // A server that takes only so many mails in one session (OpenSMTPD: 100, and
        // many providers) answers 4xx on a pooled connection that has reached it;
        // lettre closes a connection that got an error answer, so the next attempt
        // takes a fresh one (or another parked one) and goes through at once, where
        // a pause would hold the whole queue back for a second or more.
        for _ in 0..POOL_SIZE {
            match &sent {
                Err(e) if e.is_transient() => sent = self.transport.send_raw(&envelope, message).await,
                _ => break,
            }
        }
        match sent {
            Ok(_) => Ok(()),
            Err(e) if e.is_permanent() => Err(Failure::Mail(format!("{}: {}", self.server, error_chain(&e)))),
            Err(e) => Err(Failure::Server(format!("{}: {}", self.server, error_chain(&e)))),
        }
    }
}

fn tls_parameters(config: &SmtpConfig) -> Result<TlsParameters, SmtpSetupError> {
    let mut builder = TlsParameters::builder(config.host.clone());
    if let Some(path) = &config.ca_file {
        let pem = std::fs::read(path).map_err(|source| SmtpSetupError::CaFile { path: path.clone(), source })?;
        let cert =
            Certificate::from_pem(&pem).map_err(|source| SmtpSetupError::NotPem { path: path.clone(), source })?;
        builder = builder.add_root_certificate(cert);
    }
    builder.build_rustls().map_err(SmtpSetupError::Tls)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The configuration, or the error's text with its causes.
    fn parse(text: &str) -> Result<SmtpConfig, String> {
        let raw = toml::from_str::<RawSmtp>(text).map_err(|e| e.to_string())?;
        SmtpConfig::from_raw(raw).map_err(|e| error_chain(&e))
    }

    #[test]
    fn defaults_follow_the_tls_mode() {
        let c = parse("host = \"smtp.example.org\"").unwrap();
        assert_eq!((c.tls, c.port, c.timeout), (TlsMode::Starttls, 587, Duration::from_secs(30)));
        assert_eq!(parse("host = \"smtp.example.org\"\ntls = \"tls\"").unwrap().port, 465);
        let c = parse("host = \"127.0.0.1\"\nport = 2525\ntls = \"none\"").unwrap();
        assert_eq!((c.tls, c.port, c.credentials.clone()), (TlsMode::None, 2525, None));
        assert_eq!(c.describe(), "127.0.0.1:2525 (tls none)");
    }

    #[test]
    fn mistakes_are_named() {
        let err = |text: &str| format!("{:#}", parse(text).unwrap_err());
        assert!(err("port = 25").contains("needs host"), "{}", err("port = 25"));
        assert!(err("host = \"x\"\ntls = \"ssl\"").contains("`starttls`"), "{}", err("host = \"x\"\ntls = \"ssl\""));
        assert!(err("host = \"x\"\nuser = \"a\"").contains("unknown field"));
        assert!(err("host = \"x\"\nusername = \"a\"").contains("password is not"));
        assert!(err("host = \"x:25\"").contains("mail.smtp.port"));
        assert!(
            err("host = \"mx.example.org\"\ntls = \"none\"\nusername = \"a\"\npassword = \"b\"").contains("in clear")
        );
        assert!(err("host = \"x\"\ntimeout_seconds = 0").contains("at least 1"));
        // Credentials in clear to a relay on the same machine are fine.
        parse("host = \"localhost\"\ntls = \"none\"\nusername = \"a\"\npassword = \"b\"").unwrap();
    }

    #[test]
    fn the_password_stays_out_of_debug_output() {
        let c = parse("host = \"x\"\nusername = \"moves\"\npassword = \"hunter2\"").unwrap();
        let text = format!("{c:?}");
        assert!(text.contains("moves") && !text.contains("hunter2"), "{text}");
    }

    #[test]
    fn a_missing_ca_file_is_reported() {
        let c = parse("host = \"x\"\nca_file = \"/nonexistent/ca.pem\"").unwrap();
        let sender: Mailbox = "moves@steward.example".parse().unwrap();
        let err = error_chain(&SmtpSink::new(&c, &sender).unwrap_err());
        assert!(err.contains("/nonexistent/ca.pem"), "{err}");
    }

    #[tokio::test]
    async fn an_unreachable_server_is_a_server_failure() {
        // A port that was free a moment ago: connection refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let c = parse(&format!("host = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\ntimeout_seconds = 5")).unwrap();
        let sink = SmtpSink::new(&c, &"moves@steward.example".parse().unwrap()).unwrap();
        let failure = sink.send("alice@example.org", b"Subject: x\r\n\r\nx\r\n").await.unwrap_err();
        assert!(matches!(failure, Failure::Server(_)), "{failure:?}");
        let failure = sink.send("not an address", b"Subject: x\r\n\r\nx\r\n").await.unwrap_err();
        assert!(matches!(failure, Failure::Mail(_)), "{failure:?}");
    }
}
