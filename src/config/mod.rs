//! Configuration: `fairsteward.toml` (docs/operator.md), every key defaulted.
//!
//! [`RawConfig`] is the file as written, all optional; [`Config`] is the validated
//! result with defaults applied and command-line overrides on top (the command
//! line beats the file).

mod backup; // issue 36: backups that run by themselves
pub mod placeholders;

pub use backup::{Backups, RawBackup};

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// Why the configuration cannot be used. Each message names the key (or the
/// file) and what to write instead.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A value is out of range or missing.
    #[error("{0}")]
    Invalid(String),
    /// The file cannot be read.
    #[error("cannot read the configuration file {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not TOML, or has an unknown key or a value of the wrong kind.
    #[error("in {}", path.display())]
    Toml {
        /// The file.
        path: PathBuf,
        /// What TOML says.
        #[source]
        source: toml::de::Error,
    },
    /// A cron expression (`schedule.sweep`, `backup.schedule`) does not parse.
    #[error("{key} {given:?} is not a cron expression")]
    Cron {
        /// The key.
        key: &'static str,
        /// As written.
        given: String,
        /// Why.
        #[source]
        source: cron::error::Error,
    },
    /// The listen address does not parse.
    #[error("listen address {given:?} is not an IP address and port, like 127.0.0.1:8080")]
    Listen {
        /// As written.
        given: String,
        /// Why.
        #[source]
        source: std::net::AddrParseError,
    },
    /// `mail.from` does not parse.
    #[error("mail.from {given:?} is not a mail address")]
    MailFrom {
        /// As written.
        given: String,
        /// Why.
        #[source]
        source: lettre::address::AddressError,
    },
    /// `[mail.smtp]` is wrong.
    #[error(transparent)]
    Smtp(#[from] crate::mail::smtp::SmtpSetupError),
    /// `[mail.imap]` is wrong.
    #[error(transparent)]
    Imap(#[from] crate::mail::imap::ImapError),
}

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// Where the database and spool live.
    pub data_dir: Option<PathBuf>,
    /// A PostgreSQL store instead of SQLite's file in the data directory
    /// (issue 35): `postgres://user:password@host:port/dbname`, several hosts
    /// allowed (`host1:5432,host2:5432` with `target_session_attrs=read-write`).
    pub database: Option<String>,
    /// How many connections (each with a thread) a PostgreSQL store runs
    /// transactions on at once (1–64; default 4).
    pub database_threads: Option<usize>,
    /// `[http]`.
    #[serde(default)]
    pub http: RawHttp,
    /// `[mail]`.
    #[serde(default)]
    pub mail: RawMail,
    /// `[schedule]`: the sweep, reminders and the leave allowance.
    #[serde(default)]
    pub schedule: RawSchedule,
    /// `[metrics]`: where `GET /metrics` and `GET /health` are served (issue 36).
    #[serde(default)]
    pub metrics: RawMetrics,
    /// `[backup]`: the backups the steward takes by itself (issue 36).
    #[serde(default)]
    pub backup: RawBackup,
}

/// `[metrics]` as written (issue 36).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMetrics {
    /// An address of its own for `GET /metrics` and `GET /health`, like
    /// `127.0.0.1:9464`; then `/metrics` is not served on `[http] listen`.
    pub listen: Option<String>,
}

/// `[schedule]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSchedule {
    /// The cron expression of the deadline sweep (6 or 7 fields with seconds; a
    /// classic 5-field expression is read as `0 ` + it).
    pub sweep: Option<String>,
    /// Reminder points, hours before a deadline.
    pub reminders_hours: Option<Vec<u32>>,
    /// Days of leave a player may take per calendar year.
    pub leave_days_per_year: Option<u32>,
}

/// A cron expression as `key` gives it: 6 or 7 fields with seconds, or a
/// classic 5-field one read as `0 ` + it. Returns the expression read and its
/// schedule.
fn cron(key: &'static str, given: &str) -> Result<(String, cron::Schedule), ConfigError> {
    let fields = given.split_whitespace().count();
    let text = match fields {
        5 => format!("0 {}", given.trim()),
        6 | 7 => given.trim().to_owned(),
        _ => {
            return Err(ConfigError::Invalid(format!(
                "{key} {given:?} has {fields} fields; give a cron expression like \"*/5 * * * *\" (5 fields) or \"0 */5 * * * *\" (with seconds)"
            )));
        }
    };
    let schedule = text.parse().map_err(|source| ConfigError::Cron { key, given: given.to_owned(), source })?;
    Ok((text, schedule))
}

/// `[schedule]` in force.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// The sweep's cron expression as given (after the `0 ` prefix).
    pub sweep_text: String,
    /// The sweep's schedule.
    pub sweep: cron::Schedule,
    /// What the steward needs: reminder points and the leave allowance.
    pub clock: crate::clock::Settings,
}

impl Schedule {
    /// The default sweep: every five minutes.
    pub const DEFAULT_SWEEP: &'static str = "0 */5 * * * *";

    fn from_raw(raw: RawSchedule) -> Result<Schedule, ConfigError> {
        let given = raw.sweep.unwrap_or_else(|| Schedule::DEFAULT_SWEEP.to_owned());
        let (sweep_text, sweep) = cron("schedule.sweep", &given)?;
        let mut reminders = raw.reminders_hours.unwrap_or_else(|| crate::clock::Settings::default().reminders_hours);
        if let Some(bad) = reminders.iter().find(|h| **h == 0 || **h > 24 * 60) {
            return Err(ConfigError::Invalid(format!(
                "schedule.reminders_hours: {bad} is not a number of hours from 1 to 1440"
            )));
        }
        reminders.sort_unstable_by(|a, b| b.cmp(a));
        reminders.dedup();
        let leave = raw.leave_days_per_year.unwrap_or(crate::clock::Settings::default().leave_days_per_year);
        if leave > 366 {
            return Err(ConfigError::Invalid(format!(
                "schedule.leave_days_per_year: {leave} is more days than a year has"
            )));
        }
        Ok(Schedule {
            sweep_text,
            sweep,
            clock: crate::clock::Settings { reminders_hours: reminders, leave_days_per_year: leave },
        })
    }
}

/// `[http]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHttp {
    /// The address to listen on.
    pub listen: Option<String>,
    /// The URL players reach the steward at, used in mails.
    pub public_url: Option<String>,
    /// The file of the operator's token, needed to create games over HTTP
    /// (under `data_dir` when relative; default `operator-token`).
    pub operator_token_file: Option<PathBuf>,
    /// Connections open at once, from all clients (default 1024).
    pub max_connections: Option<usize>,
    /// Connections open at once from one client address (default 256).
    pub max_connections_per_client: Option<usize>,
    /// Live event streams open at once, from all clients (default 256; issue 34).
    pub max_event_streams: Option<usize>,
    /// Live event streams open at once from one client address (default 8).
    pub max_event_streams_per_client: Option<usize>,
    /// Seconds a request's head may take to arrive (default 10).
    pub header_timeout_seconds: Option<u64>,
    /// Seconds a request's body may take to arrive after its head (default 30).
    pub body_timeout_seconds: Option<u64>,
    /// Seconds a kept-alive connection may wait for its next request (default 60).
    pub idle_timeout_seconds: Option<u64>,
}

/// The HTTP door's bounds on connections (`[http]`): caps and read timeouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Connections open at once, from all clients.
    pub max_connections: usize,
    /// Connections open at once from one client address.
    pub max_connections_per_client: usize,
    /// How long a request's head may take, from the connection's start or from
    /// its first byte on a kept-alive connection.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive once its head has.
    pub body_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request.
    pub idle_timeout: Duration,
    /// Live event streams (`/api/games/{id}/events`) open at once, from all
    /// clients (issue 34); each holds a connection.
    pub max_event_streams: usize,
    /// Live event streams open at once from one client address.
    pub max_event_streams_per_client: usize,
}

impl Default for HttpLimits {
    fn default() -> HttpLimits {
        HttpLimits {
            max_connections: 1024,
            max_connections_per_client: 256,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_event_streams: 256,
            max_event_streams_per_client: 8,
        }
    }
}

impl HttpLimits {
    /// The largest `max_connections` accepted: the unit's `LimitNOFILE` (65536)
    /// must stay well above it, for the store, the spool and the mail doors.
    pub const MOST_CONNECTIONS: usize = 50_000;
    /// The longest timeout accepted, in seconds (an hour).
    pub const LONGEST_TIMEOUT: u64 = 3600;

    fn from_raw(raw: &RawHttp) -> Result<HttpLimits, ConfigError> {
        let d = HttpLimits::default();
        let max_connections = raw.max_connections.unwrap_or(d.max_connections);
        if !(1..=HttpLimits::MOST_CONNECTIONS).contains(&max_connections) {
            return Err(ConfigError::Invalid(format!(
                "http.max_connections {max_connections} is out of range; give a number from 1 to {} (and raise LimitNOFILE in the unit above it)",
                HttpLimits::MOST_CONNECTIONS
            )));
        }
        let per_client = raw.max_connections_per_client.unwrap_or(d.max_connections_per_client.min(max_connections));
        if !(1..=max_connections).contains(&per_client) {
            return Err(ConfigError::Invalid(format!(
                "http.max_connections_per_client {per_client} is out of range; give a number from 1 to http.max_connections ({max_connections})"
            )));
        }
        let streams = raw.max_event_streams.unwrap_or(d.max_event_streams.min(max_connections));
        if !(1..=max_connections).contains(&streams) {
            return Err(ConfigError::Invalid(format!(
                "http.max_event_streams {streams} is out of range; give a number from 1 to http.max_connections ({max_connections}): each stream holds a connection"
            )));
        }
        let streams_per_client =
            raw.max_event_streams_per_client.unwrap_or(d.max_event_streams_per_client.min(streams));
        if !(1..=streams).contains(&streams_per_client) {
            return Err(ConfigError::Invalid(format!(
                "http.max_event_streams_per_client {streams_per_client} is out of range; give a number from 1 to http.max_event_streams ({streams})"
            )));
        }
        let seconds = |key: &str, given: Option<u64>, default: Duration| -> Result<Duration, ConfigError> {
            let s = given.unwrap_or(default.as_secs());
            if !(1..=HttpLimits::LONGEST_TIMEOUT).contains(&s) {
                return Err(ConfigError::Invalid(format!(
                    "http.{key} {s} is out of range; give a number of seconds from 1 to {}",
                    HttpLimits::LONGEST_TIMEOUT
                )));
            }
            Ok(Duration::from_secs(s))
        };
        Ok(HttpLimits {
            max_connections,
            max_connections_per_client: per_client,
            header_timeout: seconds("header_timeout_seconds", raw.header_timeout_seconds, d.header_timeout)?,
            body_timeout: seconds("body_timeout_seconds", raw.body_timeout_seconds, d.body_timeout)?,
            idle_timeout: seconds("idle_timeout_seconds", raw.idle_timeout_seconds, d.idle_timeout)?,
            max_event_streams: streams,
            max_event_streams_per_client: streams_per_client,
        })
    }
}

/// `[mail]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMail {
    /// The steward's own address.
    pub from: Option<String>,
    /// The spool directory (under `data_dir` when relative).
    pub spool: Option<PathBuf>,
    /// `[mail.smtp]`: absent, mails go to the spool.
    pub smtp: Option<crate::mail::smtp::RawSmtp>,
    /// `[mail.imap]`: absent, no IMAP door.
    pub imap: Option<crate::mail::imap::RawImap>,
    /// `[mail.maildir]`: absent, no maildir door.
    pub maildir: Option<RawMaildir>,
}

/// `[mail.maildir]`: a maildir the steward reads players' mails from.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMaildir {
    /// The maildir (with `new/` and `cur/`); under `data_dir` when relative.
    pub path: PathBuf,
    /// How often `new/` is looked at, in seconds (default 10).
    pub poll_seconds: Option<u64>,
}

/// The maildir door's settings.
#[derive(Clone, Debug)]
pub struct MaildirConfig {
    /// The maildir.
    pub path: PathBuf,
    /// How often it is looked at.
    pub poll: std::time::Duration,
}

/// Command-line values that override the file.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    /// `--data-dir`.
    pub data_dir: Option<PathBuf>,
    /// `--database`.
    pub database: Option<String>,
    /// `--listen`.
    pub listen: Option<String>,
}

/// The configuration in force.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the database and spool live.
    pub data_dir: PathBuf,
    /// The PostgreSQL store's URL, when the store is not SQLite's file in the
    /// data directory (issue 35).
    pub database_url: Option<String>,
    /// The PostgreSQL store's connections, each running one transaction at a
    /// time (commands on one game still run one at a time).
    pub database_threads: usize,
    /// The address to listen on (loopback by default).
    pub listen: SocketAddr,
    /// The URL players reach the steward at, for links in mails.
    pub public_url: String,
    /// The file of the operator's token (`POST /api/games` needs it).
    pub operator_token_file: PathBuf,
    /// The HTTP door's caps and timeouts on connections.
    pub http_limits: HttpLimits,
    /// `[metrics] listen`: where `/metrics` and `/health` are served besides
    /// the main listener (issue 36); `None`: `/metrics` on the main listener,
    /// to loopback clients only.
    pub metrics_listen: Option<SocketAddr>,
    /// The steward's mail address.
    pub mail_from: lettre::message::Mailbox,
    /// Where mails go when no SMTP server is configured.
    pub spool_dir: PathBuf,
    /// The SMTP server mails go to (`[mail.smtp]`); `None`: the spool.
    pub smtp: Option<crate::mail::smtp::SmtpConfig>,
    /// The maildir door, if configured.
    pub maildir: Option<MaildirConfig>,
    /// The IMAP door (`[mail.imap]`), if configured.
    pub imap: Option<crate::mail::imap::ImapConfig>,
    /// `[schedule]`: the sweep, reminders, leave.
    pub schedule: Schedule,
    /// `[backup]`: when the steward backs its store up, where, and how many
    /// it keeps; `None` when turned off.
    pub backups: Option<Backups>,
    /// Where the steward takes the time from: the system clock unless a command
    /// (`sweep --now`) or a test sets it. Not read from the file.
    pub clock: crate::clock::Clock,
}

impl Config {
    /// The default data directory.
    pub const DEFAULT_DATA_DIR: &'static str = "./fairsteward-data";
    /// The default listen address.
    pub const DEFAULT_LISTEN: &'static str = "127.0.0.1:8080";
    /// The default number of connections of a PostgreSQL store.
    pub const DEFAULT_DATABASE_THREADS: usize = 4;
    /// The default sender address.
    pub const DEFAULT_FROM: &'static str = "Fairsteward <moves@steward.example>";

    /// Reads `file` (if given) and applies defaults and `overrides`.
    ///
    /// # Errors
    /// An unreadable file, unknown keys, or values that do not parse.
    pub fn load(file: Option<&Path>, overrides: &Overrides) -> Result<Config, ConfigError> {
        let raw = match file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|source| ConfigError::Read { path: path.to_owned(), source })?;
                toml::from_str::<RawConfig>(&text)
                    .map_err(|source| ConfigError::Toml { path: path.to_owned(), source })?
            }
            None => RawConfig::default(),
        };
        Config::from_raw(raw, overrides)
    }

    /// Validates a raw configuration.
    ///
    /// # Errors
    /// Values that do not parse.
    pub fn from_raw(raw: RawConfig, overrides: &Overrides) -> Result<Config, ConfigError> {
        let http_limits = HttpLimits::from_raw(&raw.http)?;
        let data_dir =
            overrides.data_dir.clone().or(raw.data_dir).unwrap_or_else(|| PathBuf::from(Config::DEFAULT_DATA_DIR));
        let listen_text =
            overrides.listen.clone().or(raw.http.listen).unwrap_or_else(|| Config::DEFAULT_LISTEN.to_owned());
        let listen: SocketAddr =
            listen_text.parse().map_err(|source| ConfigError::Listen { given: listen_text.clone(), source })?;
        let public_url = raw.http.public_url.unwrap_or_else(|| format!("http://{listen}"));
        if !public_url.starts_with("http://") && !public_url.starts_with("https://") {
            return Err(ConfigError::Invalid(format!(
                "http.public_url {public_url:?} must start with http:// or https://"
            )));
        }
        let token_file =
            raw.http.operator_token_file.unwrap_or_else(|| PathBuf::from(crate::protocol::OPERATOR_TOKEN_FILE));
        let operator_token_file = if token_file.is_absolute() { token_file } else { data_dir.join(token_file) };
        let from_text = raw.mail.from.unwrap_or_else(|| Config::DEFAULT_FROM.to_owned());
        let mail_from =
            from_text.parse().map_err(|source| ConfigError::MailFrom { given: from_text.clone(), source })?;
        let spool = raw.mail.spool.unwrap_or_else(|| PathBuf::from("spool"));
        let spool_dir = if spool.is_absolute() { spool } else { data_dir.join(spool) };
        let smtp = raw.mail.smtp.map(crate::mail::smtp::SmtpConfig::from_raw).transpose()?;
        let imap = raw.mail.imap.map(crate::mail::imap::ImapConfig::from_raw).transpose()?;
        let maildir = match raw.mail.maildir {
            None => None,
            Some(m) => {
                let seconds = m.poll_seconds.unwrap_or(10);
                if seconds == 0 {
                    return Err(ConfigError::Invalid("mail.maildir.poll_seconds must be at least 1".into()));
                }
                let path = if m.path.is_absolute() { m.path } else { data_dir.join(m.path) };
                Some(MaildirConfig { path, poll: std::time::Duration::from_secs(seconds) })
            }
        };
        let schedule = Schedule::from_raw(raw.schedule)?;
        let backups = Backups::from_raw(raw.backup, &data_dir)?;
        let database_url = overrides.database.clone().or(raw.database).filter(|u| !u.is_empty());
        if let Some(url) = &database_url
            && !url.starts_with("postgres://")
            && !url.starts_with("postgresql://")
        {
            return Err(ConfigError::Invalid(format!(
                "database {:?} is not a PostgreSQL URL; write postgres://user:password@host:port/dbname, or leave database out for SQLite's file in the data directory",
                crate::store::postgres::redacted(url)
            )));
        }
        let database_threads = raw.database_threads.unwrap_or(Config::DEFAULT_DATABASE_THREADS);
        if !(1..=64).contains(&database_threads) {
            return Err(ConfigError::Invalid(format!(
                "database_threads = {database_threads}: give 1 to 64 (connections to PostgreSQL, each running one transaction at a time)"
            )));
        }
        let metrics_listen = raw
            .metrics
            .listen
            .map(|given| {
                given.parse::<SocketAddr>().map_err(|_| {
                    ConfigError::Invalid(format!(
                        "metrics.listen {given:?} is not an IP address and port, like 127.0.0.1:9464"
                    ))
                })
            })
            .transpose()?;
        if metrics_listen.is_some_and(|m| m == listen) {
            return Err(ConfigError::Invalid(format!(
                "metrics.listen {listen} is the address of [http] listen; give the metrics an address of their own (like 127.0.0.1:9464), or leave metrics.listen out to serve /metrics on the main listener to loopback clients"
            )));
        }
        Ok(Config {
            data_dir,
            database_url,
            database_threads,
            metrics_listen,
            listen,
            public_url: public_url.trim_end_matches('/').to_owned(),
            operator_token_file,
            http_limits,
            mail_from,
            spool_dir,
            smtp,
            maildir,
            imap,
            schedule,
            backups,
            clock: crate::clock::Clock::System,
        })
    }

    /// The database file.
    pub fn database(&self) -> PathBuf {
        self.data_dir.join("steward.db")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_without_a_file() {
        let c = Config::load(None, &Overrides::default()).unwrap();
        assert_eq!(c.data_dir, PathBuf::from("./fairsteward-data"));
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.public_url, "http://127.0.0.1:8080");
        assert_eq!(c.spool_dir, PathBuf::from("./fairsteward-data/spool"));
        assert_eq!(c.operator_token_file, PathBuf::from("./fairsteward-data/operator-token"));
        assert_eq!(c.mail_from.email.to_string(), "moves@steward.example");
    }

    #[test]
    fn the_command_line_beats_the_file() {
        let raw: RawConfig = toml::from_str(
            "data_dir = \"/srv/fs\"\n[http]\nlisten = \"127.0.0.1:9000\"\n[mail]\nfrom = \"moves@club.example\"\n",
        )
        .unwrap();
        let c = Config::from_raw(
            raw,
            &Overrides {
                data_dir: Some("/tmp/x".into()),
                listen: Some("127.0.0.1:9001".into()),
                ..Overrides::default()
            },
        )
        .unwrap();
        assert_eq!(c.data_dir, PathBuf::from("/tmp/x"));
        assert_eq!(c.listen.port(), 9001);
        assert_eq!(c.mail_from.email.to_string(), "moves@club.example");
        let raw: RawConfig = toml::from_str("[http]\noperator_token_file = \"/etc/fs/operator\"\n").unwrap();
        let c = Config::from_raw(raw, &Overrides::default()).unwrap();
        assert_eq!(c.operator_token_file, PathBuf::from("/etc/fs/operator"));
    }

    #[test]
    fn mail_smtp_is_read_and_checked() {
        let c = Config::load(None, &Overrides::default()).unwrap();
        assert!(c.smtp.is_none(), "no [mail.smtp]: the spool");
        let raw: RawConfig =
            toml::from_str("[mail.smtp]\nhost = \"127.0.0.1\"\nport = 2525\ntls = \"none\"\n").unwrap();
        let smtp = Config::from_raw(raw, &Overrides::default()).unwrap().smtp.unwrap();
        assert_eq!((smtp.host.as_str(), smtp.port, smtp.tls), ("127.0.0.1", 2525, crate::mail::smtp::TlsMode::None));
        let err = toml::from_str::<RawConfig>("[mail.smtp]\nhost = \"x\"\nstarttls = true\n").unwrap_err();
        assert!(err.to_string().contains("unknown field `starttls`"), "{err}");
        let raw: RawConfig = toml::from_str("[mail.smtp]\nport = 25\n").unwrap();
        let err = Config::from_raw(raw, &Overrides::default()).unwrap_err();
        assert!(
            crate::mail::error_chain(&err).contains("[mail.smtp] needs host"),
            "{}",
            crate::mail::error_chain(&err)
        );
    }

    #[test]
    fn mail_imap_is_read_and_checked() {
        assert!(Config::load(None, &Overrides::default()).unwrap().imap.is_none(), "no [mail.imap]: no IMAP door");
        let raw: RawConfig = toml::from_str(
            "[mail.imap]\nhost = \"127.0.0.1\"\nport = 1143\ntls = \"none\"\nusername = \"moves\"\npassword = \"p\"\n",
        )
        .unwrap();
        let imap = Config::from_raw(raw, &Overrides::default()).unwrap().imap.unwrap();
        assert_eq!((imap.port, imap.mailbox.as_str(), imap.idle), (1143, "INBOX", true));
        let err = toml::from_str::<RawConfig>("[mail.imap]\nhost = \"x\"\nfolder = \"INBOX\"\n").unwrap_err();
        assert!(err.to_string().contains("unknown field `folder`"), "{err}");
        let raw: RawConfig = toml::from_str("[mail.imap]\nhost = \"x\"\n").unwrap();
        let err = Config::from_raw(raw, &Overrides::default()).unwrap_err();
        assert!(
            crate::mail::error_chain(&err).contains("[mail.imap] needs username"),
            "{}",
            crate::mail::error_chain(&err)
        );
    }

    #[test]
    fn the_schedule_has_defaults_and_reads_five_fields() {
        let c = Config::load(None, &Overrides::default()).unwrap();
        assert_eq!(c.schedule.sweep_text, "0 */5 * * * *");
        assert_eq!(c.schedule.clock.reminders_hours, vec![48, 12]);
        assert_eq!(c.schedule.clock.leave_days_per_year, 30);
        let raw: RawConfig = toml::from_str(
            "[schedule]\nsweep = \"*/10 * * * *\"\nreminders_hours = [12, 72, 12]\nleave_days_per_year = 21\n",
        )
        .unwrap();
        let c = Config::from_raw(raw, &Overrides::default()).unwrap();
        assert_eq!(c.schedule.sweep_text, "0 */10 * * * *");
        assert_eq!(c.schedule.clock.reminders_hours, vec![72, 12]);
        assert_eq!(c.schedule.clock.leave_days_per_year, 21);
        for bad in ["sweep = \"every day\"", "sweep = \"* * *\"", "reminders_hours = [0]", "leave_days_per_year = 400"]
        {
            let raw: RawConfig = toml::from_str(&format!("[schedule]\n{bad}\n")).unwrap();
            let err = Config::from_raw(raw, &Overrides::default()).unwrap_err();
            assert!(crate::mail::error_chain(&err).contains("schedule."), "{bad}: {}", crate::mail::error_chain(&err));
        }
        assert!(toml::from_str::<RawConfig>("[schedule]\nsweeep = \"x\"").is_err());
    }

    #[test]
    fn connection_limits_have_defaults_and_are_checked() {
        let c = Config::load(None, &Overrides::default()).unwrap();
        assert_eq!(c.http_limits, HttpLimits::default());
        assert_eq!((c.http_limits.max_connections, c.http_limits.max_connections_per_client), (1024, 256));
        let raw: RawConfig = toml::from_str(
            "[http]\nmax_connections = 40\nmax_connections_per_client = 10\nheader_timeout_seconds = 2\nbody_timeout_seconds = 3\nidle_timeout_seconds = 4\n",
        )
        .unwrap();
        let l = Config::from_raw(raw, &Overrides::default()).unwrap().http_limits;
        assert_eq!((l.max_connections, l.max_connections_per_client), (40, 10));
        assert_eq!((l.header_timeout.as_secs(), l.body_timeout.as_secs(), l.idle_timeout.as_secs()), (2, 3, 4));
        // A small total cap lowers the default per-client cap with it.
        let raw: RawConfig = toml::from_str("[http]\nmax_connections = 100\n").unwrap();
        assert_eq!(Config::from_raw(raw, &Overrides::default()).unwrap().http_limits.max_connections_per_client, 100);
        for (bad, says) in [
            ("max_connections = 0", "http.max_connections 0"),
            ("max_connections = 1000000", "LimitNOFILE"),
            ("max_connections = 10\nmax_connections_per_client = 11", "http.max_connections_per_client 11"),
            ("max_connections_per_client = 0", "http.max_connections_per_client 0"),
            ("header_timeout_seconds = 0", "http.header_timeout_seconds 0"),
            ("body_timeout_seconds = 0", "http.body_timeout_seconds 0"),
            ("idle_timeout_seconds = 86400", "http.idle_timeout_seconds 86400"),
        ] {
            let raw: RawConfig = toml::from_str(&format!("[http]\n{bad}\n")).unwrap();
            let err = crate::mail::error_chain(&Config::from_raw(raw, &Overrides::default()).unwrap_err());
            assert!(err.contains(says) && err.contains("give a number"), "{bad}: {err}");
        }
    }

    /// Issue 34: the live event streams' caps.
    #[test]
    fn event_stream_caps_have_defaults_and_are_checked() {
        let d = HttpLimits::default();
        assert_eq!((d.max_event_streams, d.max_event_streams_per_client), (256, 8));
        let raw: RawConfig =
            toml::from_str("[http]\nmax_event_streams = 20\nmax_event_streams_per_client = 2\n").unwrap();
        let l = Config::from_raw(raw, &Overrides::default()).unwrap().http_limits;
        assert_eq!((l.max_event_streams, l.max_event_streams_per_client), (20, 2));
        // Small caps above lower the defaults below them.
        let raw: RawConfig = toml::from_str("[http]\nmax_connections = 4\n").unwrap();
        let l = Config::from_raw(raw, &Overrides::default()).unwrap().http_limits;
        assert_eq!((l.max_event_streams, l.max_event_streams_per_client), (4, 4));
        for (bad, says) in [
            ("max_event_streams = 0", "http.max_event_streams 0"),
            ("max_connections = 10\nmax_event_streams = 11", "http.max_event_streams 11"),
            ("max_event_streams = 5\nmax_event_streams_per_client = 6", "http.max_event_streams_per_client 6"),
            ("max_event_streams_per_client = 0", "http.max_event_streams_per_client 0"),
        ] {
            let raw: RawConfig = toml::from_str(&format!("[http]\n{bad}\n")).unwrap();
            let err = crate::mail::error_chain(&Config::from_raw(raw, &Overrides::default()).unwrap_err());
            assert!(err.contains(says) && err.contains("give a number"), "{bad}: {err}");
        }
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused() {
        assert!(toml::from_str::<RawConfig>("data_dri = \"x\"").is_err());
        let raw: RawConfig = toml::from_str("[http]\nlisten = \"localhost\"").unwrap();
        let err = Config::from_raw(raw, &Overrides::default()).unwrap_err();
        assert!(crate::mail::error_chain(&err).contains("not an IP address"), "{}", crate::mail::error_chain(&err));
    }
}
