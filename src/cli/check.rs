//! `fairsteward check` (issue 36): reads the configuration as every command
//! does and says, one finding per line, what will not work and how to fix it.
//!
//! Each finding is `ok`, `warning` or `error`; an error is something that would
//! lose mail or stop the steward, and makes the exit status 1. The checks look
//! at the configuration (placeholder public URL and sender), the data directory
//! (owner, mode, keys, operator token), the store (SQLite's file opened
//! read-only, or PostgreSQL's schema version), the mail doors (SMTP: connect,
//! TLS and login; IMAP: login and the mailbox, opened read-only; the maildir)
//! and whether `public_url` answers as this steward. Every network check has a
//! short timeout, and no check changes anything: nothing is created, sent or
//! marked.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use super::serve::{ConfigArgs, SYSTEM_CONFIG, store_exists};
use crate::config::Config;
use crate::config::placeholders::{is_placeholder_host, url_host};
use crate::protocol::keys::{CAPABILITY_KEY_FILE, OPENPGP_KEY_FILE, SEALING_KEY_FILE, SIGNING_KEY_FILE};

/// `fairsteward check`.
#[derive(Debug, Args)]
#[command(after_help = "Prints one finding per line: ok, warning or error, the check, what was found and how to \
                        fix it. Exits 1 when a finding is an error (something that would lose mail or stop the \
                        steward), else 0. Changes nothing: it creates no file, sends no mail and reads the \
                        IMAP mailbox read-only.\n\n\
                        Example:\n  sudo -u fairsteward fairsteward check")]
pub struct CheckArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Print a JSON array of {"check", "status", "message", "fix"} instead.
    #[arg(long)]
    json: bool,
    /// The most seconds each network check (SMTP, IMAP, PostgreSQL, public_url) may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=120))]
    timeout: u64,
}

/// How a finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Works.
    Ok,
    /// Works, but probably not as meant (a trial setup, a loose mode).
    Warning,
    /// Would lose mail or stop the steward.
    Error,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warning => "warning",
            Status::Error => "error",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// What was checked: a key of the file (`mail.smtp`) or a part of the
    /// data directory (`data_dir`, `keys`, `store`).
    pub check: &'static str,
    /// How it stands.
    pub status: Status,
    /// What was found.
    pub message: String,
    /// What to do about it; `None` when all is well.
    pub fix: Option<String>,
}

impl Finding {
    fn ok(check: &'static str, message: impl Into<String>) -> Finding {
        Finding { check, status: Status::Ok, message: message.into(), fix: None }
    }

    fn bad(check: &'static str, status: Status, message: impl Into<String>, fix: impl Into<String>) -> Finding {
        Finding { check, status, message: message.into(), fix: Some(fix.into()) }
    }

    /// The finding as one line: status, check, message, and the fix.
    pub fn line(&self) -> String {
        let fix = self.fix.as_ref().map(|f| format!(" Fix: {f}")).unwrap_or_default();
        format!("{:<8}{:<22}{}{fix}", self.status.name(), self.check, self.message).replace('\n', " ")
    }
}

/// Runs the checks, prints them and returns the exit status (1 on any error).
pub fn exit_status(args: &CheckArgs) -> ExitCode {
    let findings = run(args);
    let mut out = std::io::stdout().lock();
    let text = if args.json {
        serde_json::to_string_pretty(&findings).unwrap_or_else(|_| "[]".to_owned()) + "\n"
    } else {
        findings.iter().map(|f| f.line() + "\n").collect()
    };
    // A closed pipe (`| head`) is not an error worth a message.
    let _ = std::io::Write::write_all(&mut out, text.as_bytes());
    if findings.iter().any(|f| f.status == Status::Error) { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// Every check, in the order printed.
fn run(args: &CheckArgs) -> Vec<Finding> {
    let file = args.config.file();
    let config = match args.config.load(None) {
        Ok(config) => config,
        Err(e) => {
            let from = file.map_or_else(|| "the command line".to_owned(), |f| f.display().to_string());
            return vec![Finding::bad(
                "config",
                Status::Error,
                format!("{from} cannot be used: {}", format!("{e:#}").replace('\n', " ")),
                "mend the key named (docs/operator.md, \"Configuration\"); serve refuses to start until then",
            )];
        }
    };
    let mut findings = vec![Finding::ok(
        "config",
        match &file {
            Some(f) => format!("read {}", f.display()),
            None => format!(
                "no configuration file (no --config or FAIRSTEWARD_CONFIG, and no {SYSTEM_CONFIG}): the embedded defaults"
            ),
        },
    )];
    let timeout = Duration::from_secs(args.timeout);
    findings.extend(data_dir(&config));
    findings.extend(keys(&config));
    findings.push(operator_token(&config));
    findings.push(store(&config, timeout));
    findings.push(public_url(&config));
    findings.push(mail_from(&config));
    let network = tokio::runtime::Builder::new_current_thread().enable_all().build().map(|runtime| {
        runtime.block_on(async {
            tokio::join!(smtp(&config, timeout), imap(&config, timeout), reachable(&config, timeout))
        })
    });
    match network {
        Ok((smtp, imap, reachable)) => {
            findings.push(smtp);
            findings.push(imap);
            findings.push(maildir(&config));
            findings.push(reachable);
        }
        Err(e) => findings.push(Finding::bad(
            "runtime",
            Status::Error,
            format!("cannot start the async runtime for the network checks ({e})"),
            "run check again",
        )),
    }
    findings
}

/// Whether anything reads or sends mail: then placeholder addresses lose it.
fn mail_flows(config: &Config) -> bool {
    config.smtp.is_some() || config.imap.is_some() || config.maildir.is_some()
}

/// The uid this process runs as.
fn current_uid() -> u32 {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The name of user `uid` from /etc/passwd, else `uid N`.
fn user_name(uid: u32) -> String {
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| {
                let mut fields = l.split(':');
                let name = fields.next()?;
                (fields.nth(1)?.parse::<u32>().ok()? == uid).then(|| name.to_owned())
            })
        })
        .unwrap_or_else(|| format!("uid {uid}"))
}

/// Whether this process may write into (and search) `path`.
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: access(2) reads the NUL-terminated path and touches nothing else.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

/// The data directory: there, a directory, owned by this user, writable by
/// no one else.
fn data_dir(config: &Config) -> Vec<Finding> {
    const CHECK: &str = "data_dir";
    let dir = &config.data_dir;
    let meta = match std::fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return vec![Finding::bad(
                CHECK,
                Status::Warning,
                format!("{} does not exist yet", dir.display()),
                "`fairsteward serve` creates it (0700) at its first start; if the steward already runs, name its data directory with --data-dir, FAIRSTEWARD_DATA_DIR or data_dir in the configuration",
            )];
        }
        Err(e) => {
            return vec![Finding::bad(
                CHECK,
                Status::Error,
                format!("cannot look at {} ({e})", dir.display()),
                "run check as the user the steward runs as, and give that user the directory",
            )];
        }
    };
    if !meta.is_dir() {
        return vec![Finding::bad(
            CHECK,
            Status::Error,
            format!("{} is not a directory", dir.display()),
            "name a directory with --data-dir or data_dir",
        )];
    }
    let mut findings = Vec::new();
    let (uid, me) = (meta.uid(), current_uid());
    if uid != me {
        findings.push(Finding::bad(
            CHECK,
            Status::Error,
            format!("{} is owned by {}, not by {} who runs check", dir.display(), user_name(uid), user_name(me)),
            format!(
                "run check (and the steward) as the directory's owner (sudo -u {} fairsteward check), or chown -R it to the steward's user",
                user_name(uid)
            ),
        ));
    } else if !writable(dir) {
        findings.push(Finding::bad(
            CHECK,
            Status::Error,
            format!("{} is not writable by its owner", dir.display()),
            format!("chmod 700 {} (and mount it read-write)", dir.display()),
        ));
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        findings.push(Finding::bad(
            CHECK,
            Status::Error,
            format!(
                "{} has mode {mode:04o}: others may write into it, and replace the steward's keys or database",
                dir.display()
            ),
            format!("chmod 700 {}", dir.display()),
        ));
    } else if mode & 0o027 != 0 {
        findings.push(Finding::bad(
            CHECK,
            Status::Warning,
            format!("{} has mode {mode:04o}, more open than 0750", dir.display()),
            format!("chmod 700 {} (serve does so at each start)", dir.display()),
        ));
    }
    if findings.is_empty() {
        findings.push(Finding::ok(CHECK, format!("{}: owned by {}, mode {mode:04o}", dir.display(), user_name(uid))));
    }
    findings
}

/// A secret file: there, this user's, readable by no one else. `None` when missing.
fn secret_file(check: &'static str, path: &Path) -> Option<Result<(), Finding>> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            return Some(Err(Finding::bad(
                check,
                Status::Error,
                format!("cannot look at {} ({e})", path.display()),
                "run check as the user the steward runs as (the owner of the data directory)",
            )));
        }
    };
    let mode = meta.permissions().mode() & 0o777;
    let me = current_uid();
    Some(if meta.uid() != me {
        Err(Finding::bad(
            check,
            Status::Error,
            format!(
                "{} is owned by {}, not by {} who runs check",
                path.display(),
                user_name(meta.uid()),
                user_name(me)
            ),
            "run the steward (and check) as the owner of the data directory and its files, or chown them to it",
        ))
    } else if mode & 0o077 != 0 {
        Err(Finding::bad(
            check,
            Status::Warning,
            format!("{} has mode {mode:04o}: others may read this secret", path.display()),
            format!("chmod 600 {} (serve does so at each start)", path.display()),
        ))
    } else {
        Ok(())
    })
}

/// The steward's keys: there (once a store exists) with mode 0600.
fn keys(config: &Config) -> Vec<Finding> {
    const CHECK: &str = "keys";
    if !config.data_dir.is_dir() {
        return vec![];
    }
    let has_store = store_exists(config);
    let mut findings = Vec::new();
    let mut present = Vec::new();
    for name in [SIGNING_KEY_FILE, SEALING_KEY_FILE, CAPABILITY_KEY_FILE, OPENPGP_KEY_FILE] {
        match secret_file(CHECK, &config.data_dir.join(name)) {
            Some(Ok(())) => present.push(name),
            Some(Err(finding)) => findings.push(finding),
            None if has_store && name != OPENPGP_KEY_FILE => findings.push(Finding::bad(
                CHECK,
                Status::Error,
                format!("{name} is missing from {}, which holds a store", config.data_dir.display()),
                "restore it from a backup of the data directory: serve refuses to start without it while the store holds games (a new key would change the fingerprint players trust)",
            )),
            None if has_store => findings.push(Finding::bad(
                CHECK,
                Status::Warning,
                format!("{name} is missing from {}, which holds a store", config.data_dir.display()),
                "restore it from a backup of the data directory; serve refuses to start without it once the store has recorded the steward's OpenPGP key",
            )),
            None => {}
        }
    }
    if findings.is_empty() {
        findings.push(Finding::ok(
            CHECK,
            if present.is_empty() {
                "none yet: serve makes them (0600) at its first start".to_owned()
            } else {
                format!("{}: mode 0600", present.join(", "))
            },
        ));
    }
    findings
}

/// The operator token's file: 0600 when there.
fn operator_token(config: &Config) -> Finding {
    const CHECK: &str = "operator_token";
    let path = &config.operator_token_file;
    match secret_file(CHECK, path) {
        Some(Ok(())) => Finding::ok(CHECK, format!("{}: mode 0600", path.display())),
        Some(Err(finding)) => finding,
        None => Finding::ok(CHECK, format!("{} not made yet: serve makes it at its first start", path.display())),
    }
}

/// The store: SQLite's file opened read-only, or PostgreSQL's schema version.
fn store(config: &Config, timeout: Duration) -> Finding {
    match &config.database_url {
        Some(url) => postgres_store(url, timeout),
        None => sqlite_store(config),
    }
}

fn sqlite_store(config: &Config) -> Finding {
    const CHECK: &str = "store";
    let path = config.database();
    if !path.is_file() {
        let marker = config.data_dir.join(crate::server::STORE_MARKER_FILE);
        if marker.is_file() {
            return Finding::bad(
                CHECK,
                Status::Error,
                format!("{} is missing, but {} shows a store was created here", path.display(), marker.display()),
                "restore the database from a backup (docs/operator.md, \"Backup and restore\"): serve refuses to start until then",
            );
        }
        return Finding::bad(
            CHECK,
            Status::Warning,
            format!("no store yet: there is no {}", path.display()),
            "`fairsteward serve` creates it at its first start; if the steward already runs, this is not its data directory: name it with --data-dir, FAIRSTEWARD_DATA_DIR or data_dir",
        );
    }
    let read = || -> Result<(i64, i64), rusqlite::Error> {
        let conn = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(Duration::from_secs(2))?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let games: i64 = conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0))?;
        Ok((version, games))
    };
    match read() {
        Ok((version, games)) => {
            let s = if games == 1 { "" } else { "s" };
            Finding::ok(CHECK, format!("SQLite {}: schema version {version}, {games} game{s}", path.display()))
        }
        Err(e) => Finding::bad(
            CHECK,
            Status::Error,
            format!("cannot read the database {} ({e})", path.display()),
            "give the steward's user read and write access to it; if it is damaged, restore the latest backup",
        ),
    }
}

fn postgres_store(url: &str, timeout: Duration) -> Finding {
    use std::str::FromStr;
    const CHECK: &str = "store";
    let shown = crate::store::postgres::redacted(url);
    let url = url.to_owned();
    // The client runs a runtime of its own: on a thread of its own, bounded.
    let (tell, told) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let read = || -> Result<Option<i64>, postgres::Error> {
            let mut config = postgres::Config::from_str(&url)?;
            config.connect_timeout(timeout).application_name("fairsteward check");
            let mut client = config.connect(postgres::NoTls)?;
            let exists: bool = client.query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])?.get(0);
            if !exists {
                return Ok(None);
            }
            Ok(Some(client.query_one("SELECT version FROM schema_version", &[])?.get(0)))
        };
        let _ = tell.send(read().map_err(|e| crate::store::postgres::describe(&e)));
    });
    let fix = "check that the server runs and listens there, the URL, the user and its password, and that the user may create tables in the database (docs/postgresql.md)";
    match told.recv_timeout(timeout + Duration::from_secs(1)) {
        Ok(Ok(Some(version))) => Finding::ok(CHECK, format!("PostgreSQL {shown}: schema version {version}")),
        Ok(Ok(None)) => Finding::bad(
            CHECK,
            Status::Warning,
            format!("PostgreSQL {shown}: the database holds no steward schema yet"),
            "`fairsteward serve` loads it at its first start; if other stewards already share a database, this URL names another one",
        ),
        Ok(Err(e)) => Finding::bad(CHECK, Status::Error, format!("cannot open the PostgreSQL store {shown}: {e}"), fix),
        Err(_) => Finding::bad(
            CHECK,
            Status::Error,
            format!("the PostgreSQL store {shown} did not answer within {} s", timeout.as_secs()),
            fix,
        ),
    }
}

/// `http.public_url`: a real address, or mails carry links nobody can open.
fn public_url(config: &Config) -> Finding {
    const CHECK: &str = "http.public_url";
    let severity = if mail_flows(config) { Status::Error } else { Status::Warning };
    let fix = "set public_url under [http] in fairsteward.toml to the address players open, e.g. https://games.yourclub.org (a TLS proxy in front of [http] listen)";
    let url = &config.public_url;
    if is_placeholder_host(url_host(url)) {
        return Finding::bad(
            CHECK,
            severity,
            format!("{url} is an address players elsewhere cannot reach: the links in every mail point there"),
            fix,
        );
    }
    if *url == format!("http://{}", config.listen) {
        return Finding::bad(
            CHECK,
            Status::Warning,
            format!("not set: links in mails point at the listen address, {url}, in plain HTTP"),
            fix,
        );
    }
    Finding::ok(CHECK, url.clone())
}

/// `mail.from`: a real domain, or every reply address is undeliverable.
fn mail_from(config: &Config) -> Finding {
    const CHECK: &str = "mail.from";
    let address = &config.mail_from.email;
    if is_placeholder_host(address.domain()) {
        return Finding::bad(
            CHECK,
            if mail_flows(config) { Status::Error } else { Status::Warning },
            format!(
                "{address} is at a placeholder domain: players' replies to moves+…@{} reach nobody",
                address.domain()
            ),
            "set from under [mail] in fairsteward.toml to an address at your domain whose moves+… mail reaches the steward",
        );
    }
    Finding::ok(CHECK, address.to_string())
}

/// `[mail.smtp]`: connect, TLS and log in as the outbox would, sending nothing.
async fn smtp(config: &Config, timeout: Duration) -> Finding {
    const CHECK: &str = "mail.smtp";
    let Some(smtp) = &config.smtp else {
        return Finding::bad(
            CHECK,
            Status::Warning,
            format!(
                "not set: mails are written to the spool {} and reach no player unless something sends them",
                config.spool_dir.display()
            ),
            "add [mail.smtp] with your mail provider's submission server, or a relay on this machine",
        );
    };
    let mut quick = smtp.clone();
    quick.timeout = quick.timeout.min(timeout);
    let sink = match crate::mail::smtp::SmtpSink::new(&quick, &config.mail_from) {
        Ok(sink) => sink,
        Err(e) => {
            return Finding::bad(
                CHECK,
                Status::Error,
                crate::mail::error_chain(&e),
                "mend ca_file under [mail.smtp]: serve refuses to start until then",
            );
        }
    };
    let login = smtp.credentials.as_ref().map(|(user, _)| format!(", logged in as {user:?}")).unwrap_or_default();
    match tokio::time::timeout(timeout + Duration::from_secs(1), sink.test_connection()).await {
        Ok(Ok(())) => Finding::ok(CHECK, format!("{}: connected{login}", smtp.describe())),
        Ok(Err(e)) => Finding::bad(
            CHECK,
            Status::Error,
            format!("mail cannot go out: {e}"),
            "check host, port and tls under [mail.smtp] (587 with starttls, 465 with tls), the firewall, and username and password; until then every mail waits in the outbox",
        ),
        Err(_) => Finding::bad(
            CHECK,
            Status::Error,
            format!("mail cannot go out: {} did not answer within {} s", smtp.describe(), timeout.as_secs()),
            "check host, port and tls under [mail.smtp] and the firewall; until then every mail waits in the outbox",
        ),
    }
}

/// `[mail.imap]`: log in and open the mailbox read-only.
async fn imap(config: &Config, timeout: Duration) -> Finding {
    const CHECK: &str = "mail.imap";
    let Some(imap) = &config.imap else {
        let through = if config.maildir.is_some() { "the maildir door" } else { "an MTA pipe (fairsteward ingest)" };
        return Finding::ok(CHECK, format!("not set: replies reach the steward through {through}"));
    };
    let mut quick = imap.clone();
    quick.timeout = quick.timeout.min(timeout);
    match tokio::time::timeout(timeout * 3, crate::mail::imap::probe(&quick)).await {
        Ok(Ok(messages)) => Finding::ok(
            CHECK,
            format!(
                "{}: logged in as {:?}, mailbox {:?} holds {messages} messages",
                imap.describe(),
                imap.username,
                imap.mailbox
            ),
        ),
        Ok(Err(e)) => {
            let text = crate::mail::error_chain(&e);
            let fix = if text.contains("EXAMINE") {
                format!(
                    "create the mailbox {:?} on the server, or name the one replies are delivered to with mailbox under [mail.imap]",
                    imap.mailbox
                )
            } else if text.to_ascii_lowercase().contains("login") {
                // Servers answer a wrong password slowly (Dovecot: 2 s and more
                // after failures from the same address): a timeout at LOGIN is
                // often one.
                "check username and password under [mail.imap]".to_owned()
            } else {
                "check host, port and tls under [mail.imap] (143 with starttls, 993 with tls), the firewall, and ca_file".to_owned()
            };
            Finding::bad(CHECK, Status::Error, format!("replies cannot be read: {}: {text}", imap.describe()), fix)
        }
        Err(_) => Finding::bad(
            CHECK,
            Status::Error,
            format!("replies cannot be read: {} did not answer in time", imap.describe()),
            "check host, port and tls under [mail.imap], and the firewall",
        ),
    }
}

/// `[mail.maildir]`: the directory with `new/` and `cur/`, writable.
fn maildir(config: &Config) -> Finding {
    const CHECK: &str = "mail.maildir";
    let Some(m) = &config.maildir else {
        return Finding::ok(CHECK, "not set");
    };
    let fix = format!(
        "create it for the steward's user (mkdir -p {0}/new {0}/cur {0}/tmp), or name the maildir replies are delivered to with path under [mail.maildir]",
        m.path.display()
    );
    for dir in [m.path.clone(), m.path.join("new"), m.path.join("cur")] {
        if !dir.is_dir() {
            return Finding::bad(
                CHECK,
                Status::Error,
                format!("replies cannot be read: {} is not a directory", dir.display()),
                fix,
            );
        }
        if !writable(&dir) {
            return Finding::bad(
                CHECK,
                Status::Error,
                format!("replies cannot be taken: {} is not writable by {}", dir.display(), user_name(current_uid())),
                "give the steward's user write access to the maildir and its new/ and cur/ (the door moves each mail it handled to cur/)",
            );
        }
    }
    Finding::ok(CHECK, format!("{}: new/ and cur/ writable", m.path.display()))
}

/// Whether `public_url` answers, and as this steward (`GET /api/steward`).
async fn reachable(config: &Config, timeout: Duration) -> Finding {
    const CHECK: &str = "http.reachable";
    let url = format!("{}/api/steward", config.public_url);
    let fix =
        "start the steward, and check that public_url (or the reverse proxy in front of it) forwards to [http] listen";
    let client = match reqwest::Client::builder().timeout(timeout).connect_timeout(timeout).build() {
        Ok(client) => client,
        Err(e) => return Finding::bad(CHECK, Status::Warning, format!("cannot start an HTTP client ({e})"), fix),
    };
    let answer = match client.get(&url).send().await {
        Ok(answer) => answer,
        Err(e) => {
            return Finding::bad(
                CHECK,
                Status::Warning,
                format!("{url} does not answer ({})", crate::mail::error_chain(&e.without_url())),
                fix,
            );
        }
    };
    let status = answer.status();
    let body: Option<serde_json::Value> = if status.is_success() { answer.json().await.ok() } else { None };
    let Some(theirs) = body.as_ref().and_then(|b| b["fingerprint"].as_str()).map(str::to_owned) else {
        return Finding::bad(
            CHECK,
            Status::Warning,
            format!("{url} answers {status}, but not as a steward"),
            "point the reverse proxy for public_url at [http] listen",
        );
    };
    match own_fingerprint(config) {
        Some(ours) if crate::protocol::keys::same_fingerprint(&ours, &theirs) => {
            Finding::ok(CHECK, format!("{url} answers as this steward (fingerprint {ours})"))
        }
        Some(ours) => Finding::bad(
            CHECK,
            Status::Error,
            format!("{url} answers as another steward (fingerprint {theirs}), not as this one ({ours})"),
            "players' links and replies would go to the other steward: point public_url, or the proxy, at this steward's [http] listen",
        ),
        None => {
            Finding::ok(CHECK, format!("{url} answers as a steward (fingerprint {theirs}); no keys here to compare"))
        }
    }
}

/// The fingerprint of the keys in the data directory, if all are there (read
/// only: nothing is made).
fn own_fingerprint(config: &Config) -> Option<String> {
    let dir = &config.data_dir;
    if ![SIGNING_KEY_FILE, SEALING_KEY_FILE, CAPABILITY_KEY_FILE].iter().all(|f| dir.join(f).is_file()) {
        return None;
    }
    crate::protocol::StewardKeys::load_or_create(dir).ok().map(|k| k.fingerprint())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Overrides, RawConfig};

    fn config(toml: &str) -> Config {
        Config::from_raw(toml::from_str::<RawConfig>(toml).unwrap(), &Overrides::default()).unwrap()
    }

    #[test]
    fn placeholders_are_errors_only_when_mail_flows() {
        let trial = config("");
        assert_eq!(public_url(&trial).status, Status::Warning);
        assert_eq!(mail_from(&trial).status, Status::Warning);
        let door = config("[mail.maildir]\npath = \"Maildir\"\n");
        let (url, from) = (public_url(&door), mail_from(&door));
        assert_eq!((url.status, from.status), (Status::Error, Status::Error));
        assert!(url.fix.as_deref().unwrap().contains("[http]"), "{url:?}");
        assert!(from.message.contains("moves@steward.example") && from.fix.unwrap().contains("[mail]"));
        let real = config(
            "[http]\npublic_url = \"https://games.club.org\"\n[mail]\nfrom = \"moves@club.org\"\n[mail.maildir]\npath = \"M\"\n",
        );
        assert_eq!((public_url(&real).status, mail_from(&real).status), (Status::Ok, Status::Ok));
        for from in ["moves@club.invalid", "moves@club.test", "moves@mail.example"] {
            let c = config(&format!("[mail]\nfrom = \"{from}\"\n[mail.maildir]\npath = \"M\"\n"));
            assert_eq!(mail_from(&c).status, Status::Error, "{from}");
        }
    }

    #[test]
    fn a_line_holds_status_check_message_and_fix() {
        let f = Finding::bad("mail.smtp", Status::Error, "no\nanswer", "check host");
        assert_eq!(f.line(), format!("{:<8}{:<22}no answer Fix: check host", "error", "mail.smtp"));
        assert_eq!(Finding::ok("store", "fine").line(), format!("{:<8}{:<22}fine", "ok", "store"));
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(json["status"], "error");
        assert_eq!(json["check"], "mail.smtp");
    }

    #[test]
    fn a_missing_data_directory_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("nothing-here");
        let c = Config::load(None, &Overrides { data_dir: Some(data.clone()), ..Overrides::default() }).unwrap();
        let found = data_dir(&c);
        assert_eq!(found[0].status, Status::Warning, "{found:?}");
        assert!(keys(&c).is_empty());
        assert_eq!(sqlite_store(&c).status, Status::Warning);
        assert!(!data.exists(), "check made nothing");
    }

    #[test]
    fn a_data_directory_others_may_write_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let c =
            Config::load(None, &Overrides { data_dir: Some(dir.path().to_owned()), ..Overrides::default() }).unwrap();
        for (mode, status) in
            [(0o700, Status::Ok), (0o750, Status::Ok), (0o755, Status::Warning), (0o777, Status::Error)]
        {
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode)).unwrap();
            let worst = data_dir(&c).iter().map(|f| f.status).max().unwrap();
            assert_eq!(worst, status, "{mode:o}");
        }
    }
}
