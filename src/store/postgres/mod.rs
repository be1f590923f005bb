//! The store on PostgreSQL (issue 35): `database = "postgres://…"`.
//!
//! The same [`Store`](super::Store) and [`Tx`] as on SQLite: each closure runs
//! in one transaction (`BEGIN` … `COMMIT`) on a connection of this steward's
//! own, on a thread of its own, and its caller hears the result only after the
//! `COMMIT` returned, which with `synchronous_commit = on` (PostgreSQL's
//! default) means the commit is on the server's disk, and on a synchronous
//! standby's when one is configured. A connection that breaks is opened again
//! for the next closure; the closure it broke under hears a store error, which
//! the doors answer as "try again later".
//!
//! The schema is `schema.sql` beside this file (SQLite's at the same version);
//! its version lives in the table `schema_version`. Loading it takes a
//! transaction-scoped advisory lock, so stewards started together on a new
//! database load it once.

use std::cell::RefCell;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use tokio::sync::broadcast;

mod copy;

pub use copy::{CopyReport, copy_sqlite};

use super::sql::{Conn, PgConn};
use super::{Job, StoreError, Tx};

/// The whole schema of a new database, at [`VERSION`].
const SCHEMA: &str = include_str!("schema.sql");

/// The schema version this program's PostgreSQL store has (SQLite's too).
pub(super) const VERSION: u32 = super::migrations::LATEST;

/// The version of the first PostgreSQL schema (issue 35 began at SQLite's 19).
const FIRST: u32 = 19;

/// PostgreSQL's migrations: `(v, sql)` takes a store from version `v - 1` to
/// `v`, as SQLite's migration `v` does for its store (`schema.sql` is the
/// latest schema whole, for a new store).
const MIGRATIONS: &[(u32, &str)] = &[
    (
        20,
        "ALTER TABLE outbox ADD COLUMN claimed_by TEXT COLLATE \"C\";
         ALTER TABLE outbox ADD COLUMN claimed_until TEXT COLLATE \"C\";
         CREATE TABLE leases (
             name   TEXT COLLATE \"C\" PRIMARY KEY,
             holder TEXT COLLATE \"C\" NOT NULL,
             until  TEXT COLLATE \"C\" NOT NULL
         );",
    ),
    (
        21,
        "ALTER TABLE game_clocks ADD COLUMN sweep_at TEXT COLLATE \"C\";
         UPDATE game_clocks SET sweep_at = '1970-01-01T00:00:00.000Z';
         CREATE INDEX game_clocks_sweep_at ON game_clocks (sweep_at);
         CREATE TABLE store_state (
             name  TEXT COLLATE \"C\" PRIMARY KEY,
             value TEXT COLLATE \"C\" NOT NULL
         );",
    ),
];

/// The advisory lock key held while the schema is loaded or migrated.
const SCHEMA_LOCK: i64 = 0x6661_6972_7363_6865; // "fairsche"

/// How long connecting may take before the closure waiting hears an error.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// `url` with its password hidden, for messages and logs.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let Some((userinfo, host)) = rest.rsplit_once('@') else { return url.to_owned() };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

/// A PostgreSQL error in full: the server's message, detail and SQLSTATE
/// (the client's own `Display` says only "db error").
pub(crate) fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let detail = db.detail().map(|d| format!(" ({d})")).unwrap_or_default();
            format!("{}{detail} [SQLSTATE {}]", db.message(), db.code().code())
        }
        None => e.to_string(),
    }
}

/// Whether trying again later may succeed: the connection broke or could not
/// be made, the server is shutting down, starting, read-only (a standby not
/// yet promoted) or out of resources, or the transaction lost a deadlock or a
/// serialization conflict.
pub fn is_transient(e: &postgres::Error) -> bool {
    let Some(code) = e.code() else {
        // No SQLSTATE: the connection itself failed.
        return e.as_db_error().is_none();
    };
    let code = code.code();
    ["08", "40", "53", "57"].iter().any(|class| code.starts_with(class)) || code == "25006" || code == "55P03"
}

/// Connects to `url` (a `postgres://` URL or a `key=value` string).
fn connect(url: &str) -> Result<postgres::Client, StoreError> {
    let mut config = postgres::Config::from_str(url)?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("fairsteward");
    }
    Ok(config.connect(postgres::NoTls)?)
}

/// Connects to `url`, loads the schema into an empty database or checks the
/// version of the one there, and returns the connection.
///
/// # Errors
/// The server cannot be reached or refuses; the database's schema is newer
/// than this program's ([`StoreError::TooNew`]).
pub(super) fn open(url: &str) -> Result<PgConn, StoreError> {
    let mut client = connect(url)?;
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])?;
    let exists: bool = tx.query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])?.get(0);
    if exists {
        let found: i64 = tx.query_one("SELECT version FROM schema_version", &[])?.get(0);
        let found = u32::try_from(found).unwrap_or(u32::MAX);
        if found > VERSION {
            return Err(StoreError::TooNew { path: PathBuf::from(redacted(url)), found, known: VERSION });
        }
        if found < FIRST {
            return Err(StoreError::Corrupt(format!(
                "the PostgreSQL store at {} has schema version {found}, older than {FIRST}, which no release made",
                redacted(url)
            )));
        }
        for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > found) {
            tx.batch_execute(sql)?;
            tx.execute("UPDATE schema_version SET version = $1", &[&i64::from(*version)])?;
        }
        if found < VERSION {
            tracing::info!(database = %redacted(url), from = found, to = VERSION, "PostgreSQL store brought up to date");
        }
    } else {
        tx.batch_execute(SCHEMA)?;
        tracing::info!(database = %redacted(url), version = VERSION, "PostgreSQL store created");
    }
    tx.commit()?;
    Ok(PgConn::new(client))
}

/// What the store's threads share with its handles.
pub(super) struct Shared {
    pub(super) commits: Arc<AtomicU64>,
    pub(super) durable: Arc<AtomicU64>,
    pub(super) changes: broadcast::Sender<crate::ids::GameId>,
}

/// A store thread: takes the next closure waiting, runs it in a transaction on
/// its connection (opened again when it broke) and answers after the commit.
pub(super) fn serve(url: &str, first: Option<PgConn>, inbox: &Mutex<mpsc::Receiver<Box<dyn Job>>>, shared: &Shared) {
    let mut conn = first.map(RefCell::new);
    loop {
        let job = {
            let inbox = inbox.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            match inbox.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        if conn.as_ref().is_none_or(|c| c.borrow().client.is_closed()) {
            conn = match connect(url) {
                Ok(client) => Some(RefCell::new(PgConn::new(client))),
                Err(e) => {
                    tracing::error!(database = %redacted(url), error = %e, "cannot reach the PostgreSQL store");
                    job.refuse(e);
                    continue;
                }
            };
        }
        let c = conn.as_ref().expect("connected above");
        if let Err(e) = c.borrow_mut().begin() {
            job.refuse(e);
            continue;
        }
        let tx = Tx::new(Conn::Postgres(c));
        let one = job.run(&tx);
        let touched = tx.take_touched();
        let outcome = if one.keep {
            // Told to every steward's listener when (and only if) this
            // commits; a failed notice fails the commit, leaving the
            // connection outside any transaction for the next closure.
            c.borrow_mut().commit(&notices(&touched))
        } else {
            c.borrow_mut().rollback()
        };
        let failed = match (&outcome, one.keep) {
            (Err(e), true) => Some(e.to_string()),
            (Err(e), false) => {
                // The closure's caller hears of its own error; the connection
                // is opened afresh if the rollback broke it.
                tracing::warn!(error = %e, "a rollback failed");
                None
            }
            (Ok(()), _) => None,
        };
        let committed = one.keep && outcome.is_ok();
        if committed {
            let n = shared.commits.fetch_add(1, Ordering::SeqCst) + 1;
            // The COMMIT has returned: durable as the server's settings say.
            shared.durable.fetch_max(n, Ordering::SeqCst);
        } else if let Some(why) = &failed {
            tracing::error!(error = %why, "a store transaction failed; its caller is told");
        }
        (one.finish)(failed.as_deref());
        if committed {
            for game in touched {
                // No receiver (no stream open) is no error.
                let _ = shared.changes.send(game);
            }
        }
    }
}

/// The channel on which each commit names the games it changed.
const CHANGES_CHANNEL: &str = "fairsteward_changes";

/// The statements naming the games `touched` on [`CHANGES_CHANNEL`],
/// delivered at commit; sent with the `COMMIT` in one round trip.
fn notices(touched: &[crate::ids::GameId]) -> String {
    touched.iter().map(|game| format!("SELECT pg_notify('{CHANGES_CHANNEL}', {});", quoted(game.as_str()))).collect()
}

/// `text` as an SQL string literal (`standard_conforming_strings`, on since
/// PostgreSQL 9.1: only the quote is doubled).
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The listener: hears the games every steward sharing the database changed
/// (its own too) and passes them to this steward's live event streams, so a
/// stream hears of a move made through another steward. Reconnects after a
/// lost connection; ends when the store's last handle is gone.
pub(super) fn listen(url: &str, changes: &broadcast::Sender<crate::ids::GameId>, alive: &std::sync::Weak<()>) {
    let mut client: Option<postgres::Client> = None;
    while alive.strong_count() > 0 {
        let Some(c) = client.as_mut() else {
            match connect(url).and_then(|mut c| {
                c.batch_execute(&format!("LISTEN {CHANGES_CHANNEL}"))?;
                Ok(c)
            }) {
                Ok(c) => client = Some(c),
                Err(e) => {
                    tracing::debug!(error = %e, "the store's listener cannot connect; trying again");
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
            continue;
        };
        let mut heard = Vec::new();
        let mut broken = false;
        {
            let mut notifications = c.notifications();
            let mut waiting = notifications.timeout_iter(Duration::from_secs(1));
            use postgres::fallible_iterator::FallibleIterator as _;
            loop {
                match waiting.next() {
                    Ok(Some(n)) => heard.push(n.payload().to_owned()),
                    Ok(None) => break,
                    Err(_) => {
                        broken = true;
                        break;
                    }
                }
                if heard.len() >= 256 {
                    break;
                }
            }
        }
        for game in heard {
            if let Ok(id) = game.parse() {
                // No receiver (no stream open) is no error.
                let _ = changes.send(id);
            }
        }
        if broken || c.is_closed() {
            client = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_names_its_game_as_a_literal() {
        let game: crate::ids::GameId = "NK74S9".parse().unwrap();
        assert_eq!(notices(&[game]), "SELECT pg_notify('fairsteward_changes', 'NK74S9');");
        assert_eq!(quoted("it's"), "'it''s'");
    }

    #[test]
    fn passwords_are_hidden_in_messages() {
        assert_eq!(redacted("postgres://fs:secret@db1,db2/fs?x=1"), "postgres://fs:***@db1,db2/fs?x=1");
        assert_eq!(redacted("postgres://fs@127.0.0.1/fs"), "postgres://fs@127.0.0.1/fs");
        assert_eq!(redacted("host=/run/postgresql dbname=fs"), "host=/run/postgresql dbname=fs");
    }
}
