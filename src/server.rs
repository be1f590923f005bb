//! The daemon: opens the store, starts the outbox drainer, serves HTTP until the
//! shutdown future completes, then drains what was queued.

use std::future::Future;
use std::sync::Arc;

use std::path::{Path, PathBuf};

use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

use crate::config::Config;
use crate::mail::outbox::{self, Sink};
use crate::mail::smtp::SmtpSink;
use crate::protocol::keys::CAPABILITY_KEY_FILE;
use crate::protocol::{OperatorToken, SEALING_KEY_FILE, SIGNING_KEY_FILE, StewardKeys};
use crate::steward::Steward;
use crate::store::{Check, Store, StoreError};

/// Why the daemon cannot start or serve. A refusal at start-up is one line
/// naming the problem and the way out.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// A start-up check refused (the data directory, the database, a key, the
    /// operator token); the message says what to do.
    #[error("{0}")]
    Refused(String),
    /// The steward's keys cannot be loaded or created.
    #[error("cannot load or create the steward's keys in {}", dir.display())]
    Keys {
        /// The data directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: crate::protocol::KeyError,
    },
    /// The data directory cannot be listed.
    #[error("cannot read the data directory {}", dir.display())]
    ReadDir {
        /// The data directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The SMTP transport cannot be set up.
    #[error(transparent)]
    Smtp(#[from] crate::mail::smtp::SmtpSetupError),
    /// The listener failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The file the steward writes beside a database it created, so that a later
/// start can tell "a new store" from "a store that was lost".
pub const STORE_MARKER_FILE: &str = "store-created";

pub use crate::store::CLEAN_STOP_FILE;

/// Opens the store of `config` and builds the steward over it, after the
/// start-up checks (see [`open_checked`]), with SQLite's `quick_check`.
///
/// # Errors
/// As [`open_checked`].
pub fn open(config: &Config, outbox: Arc<Notify>) -> Result<Steward, ServerError> {
    open_checked(config, outbox, Check::Quick)
}

/// Opens the store of `config` and builds the steward over it. It refuses, with
/// one line naming the problem and the way out, when the data directory cannot
/// be created or written; when the database is missing or empty but the data
/// directory shows a store existed; when the database is read-only or fails
/// `check`; and when a steward key is missing while the store holds games.
///
/// # Errors
/// Any of the above, or the database or keys cannot be opened.
pub fn open_checked(config: &Config, outbox: Arc<Notify>, check: Check) -> Result<Steward, ServerError> {
    let dir = &config.data_dir;
    if dir.exists() && !dir.is_dir() {
        return Err(ServerError::Refused(format!(
            "the data directory {} is not a directory; name a directory with --data-dir or data_dir",
            dir.display()
        )));
    }
    protect_data_dir(config)?;
    let path = config.database();
    let store = match &config.database_url {
        Some(url) => Store::connect(url, &path, config.database_threads).map_err(|e| match e {
            StoreError::TooNew { .. } => ServerError::Refused(format!("{e}")),
            other => ServerError::Refused(format!(
                "cannot open the PostgreSQL store {} ({other}); check that the server runs, the URL and the user's password, and that the user may create tables in the database",
                crate::store::postgres::redacted(url)
            )),
        })?,
        None => open_sqlite(config, &path, check)?,
    };
    let path = config.database_url.as_deref().map_or(path, |url| PathBuf::from(crate::store::postgres::redacted(url)));
    let marker = dir.join(STORE_MARKER_FILE);
    if !marker.exists() {
        // Owner-only and durable, like the keys: it must outlive a crash to be evidence.
        let text = format!("a fairsteward store was created here ({})\n", path.display());
        match crate::protocol::keys::write_secret(&marker, text.as_bytes()) {
            Ok(()) | Err(crate::protocol::KeyError::Exists { .. }) => {}
            Err(e) => return Err(ServerError::Refused(format!("cannot write {} ({e})", marker.display()))),
        }
    }
    let (games, openpgp_known) = store
        .transaction_blocking(|tx| Ok((tx.games()?.len(), tx.has_steward_openpgp_key()?)))
        .map_err(|e: StoreError| ServerError::Refused(format!("cannot read the database {} ({e})", path.display())))?;
    if games > 0
        && let Some(missing) = StewardKeys::missing_files(dir, openpgp_known).first()
    {
        let remedy = match store.backend() {
            crate::store::Backend::Sqlite => "restore the key file from a backup of the data directory",
            crate::store::Backend::Postgres => {
                "a steward joining others on a shared database needs their keys: copy steward-signing.pem, steward-sealing.pem, steward-capability.pem, steward-openpgp.asc and operator-token from a running steward's data directory (docs/postgresql.md, \"Several stewards\"), or restore them from a backup"
            }
        };
        return Err(ServerError::Refused(format!(
            "the steward key {} is missing, but the store holds {games} games whose players trust the steward's fingerprint; {remedy} (a new key would break every game's chain of trust; to change keys on purpose, restore it and run `fairsteward keys rotate`)",
            missing.display()
        )));
    }
    let keys = StewardKeys::load_or_create_for(dir, config.mail_from.email.as_ref(), config.clock.now().timestamp())
        .map_err(|source| ServerError::Keys { dir: dir.clone(), source })?;
    // Issue 33: from now on a missing OpenPGP key file is refused like the others.
    if let Some(pgp) = keys.openpgp()
        && store.backend() == crate::store::Backend::Postgres
    {
        // Stewards sharing a database (issue 35) must all sign with the key
        // the players trust: the one the store recorded last.
        let newest = store.transaction_blocking(|tx| tx.newest_steward_openpgp_key()).map_err(|e: StoreError| {
            ServerError::Refused(format!("cannot read the database {} ({e})", path.display()))
        })?;
        if let Some(newest) = newest.filter(|n| !n.eq_ignore_ascii_case(&pgp.fingerprint())) {
            return Err(ServerError::Refused(format!(
                "the steward key in {} (OpenPGP {}) is not the one the other stewards of {} sign with ({newest}); copy steward-signing.pem, steward-sealing.pem, steward-capability.pem, steward-openpgp.asc and operator-token from a running steward's data directory into this one (docs/postgresql.md, \"Several stewards\")",
                dir.display(),
                pgp.fingerprint(),
                path.display()
            )));
        }
    }
    if let Some(pgp) = keys.openpgp() {
        let (fingerprint, now) = (pgp.fingerprint(), config.clock.now());
        store.transaction_blocking(move |tx| tx.record_steward_openpgp_key(&fingerprint, now)).map_err(
            |e: StoreError| ServerError::Refused(format!("cannot write the database {} ({e})", path.display())),
        )?;
    }
    tracing::info!(fingerprint = %keys.fingerprint(), "steward keys loaded");
    Ok(Steward::new(store, config.mail_from.clone(), config.public_url.clone(), outbox, Arc::new(keys))
        .with_clock(config.clock.clone(), config.schedule.clock.clone()))
}

/// Opens SQLite's store at `path`, refusing a missing database where the data
/// directory shows one existed.
fn open_sqlite(config: &Config, path: &Path, check: Check) -> Result<Store, ServerError> {
    let new_store = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
    if new_store && let Some(evidence) = earlier_store(config) {
        return Err(ServerError::Refused(format!(
            "the database {} is missing or empty, but the data directory shows a store existed ({evidence}); restore the database from a backup (docs/operator.md, \"Backup and restore\"), or move the data directory away to start a new store",
            path.display()
        )));
    }
    Store::open_checked(path, check).map_err(|e| match e {
        StoreError::Damaged { .. } | StoreError::ReadOnly { .. } | StoreError::TooNew { .. } => {
            ServerError::Refused(format!("{e}"))
        }
        other => ServerError::Refused(format!(
            "cannot open the database {} ({other}); restore it from a backup if it is damaged",
            path.display()
        )),
    })
}

/// Refuses a data directory this process cannot create a file in (a read-only
/// mount, wrong owner): SQLite would open the store read-only, and every move
/// would fail.
fn check_writable(dir: &Path) -> Result<(), ServerError> {
    let probe = dir.join(format!(".write-check-{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&probe)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"ok").and_then(|()| f.sync_all()));
    let _ = std::fs::remove_file(&probe);
    written.map_err(|e| {
        ServerError::Refused(format!(
            "the data directory {} is not writable ({e}); give the user running fairsteward write access to it (and mount it read-write), or choose another with --data-dir",
            dir.display()
        ))
    })
}

/// What in the data directory shows that a store existed: the marker, a
/// steward key, a WAL file, or mails in the spool.
fn earlier_store(config: &Config) -> Option<String> {
    let dir = &config.data_dir;
    let mut found: Vec<String> =
        [STORE_MARKER_FILE, SIGNING_KEY_FILE, SEALING_KEY_FILE, CAPABILITY_KEY_FILE, "steward.db-wal"]
            .into_iter()
            .filter(|f| std::fs::metadata(dir.join(f)).is_ok_and(|m| m.len() > 0))
            .map(str::to_owned)
            .collect();
    let spooled = std::fs::read_dir(&config.spool_dir).map_or(0, |d| d.flatten().count());
    if spooled > 0 {
        found.push(format!("{spooled} files in the spool {}", config.spool_dir.display()));
    }
    (!found.is_empty()).then(|| found.join(", "))
}

/// The operator's token (`config.operator_token_file`), made at the first start.
///
/// # Errors
/// The file cannot be read or written, or holds no token.
pub fn operator_token(config: &Config) -> Result<OperatorToken, ServerError> {
    OperatorToken::load_or_create(&config.operator_token_file).map_err(|e| {
        ServerError::Refused(format!(
            "cannot load or create the operator token ({e}); fix or remove that file, or name another with [http] operator_token_file"
        ))
    })
}

/// Creates the data directory for the owner only (0700), and takes group and
/// other permissions off an older one, its files and its spool (issue 11 point
/// 3): files made later are 0600 by their makers (the store, the keys, the
/// spool) and by the process's umask (`cli::main`).
///
/// # Errors
/// The directory cannot be created or written, or its mode set.
fn protect_data_dir(config: &Config) -> Result<(), ServerError> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = &config.data_dir;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| {
            ServerError::Refused(format!(
                "cannot create the data directory {} ({e}); create it for the user running fairsteward, or choose another with --data-dir",
                dir.display()
            ))
        })?;
    // Writable first: that is the problem to name when another user owns it.
    check_writable(dir)?;
    let entries = std::fs::read_dir(dir).map_err(|source| ServerError::ReadDir { dir: dir.clone(), source })?;
    let files = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file());
    for path in [dir.clone(), config.spool_dir.clone()].into_iter().chain(files) {
        crate::store::make_private(&path).map_err(|e| {
            ServerError::Refused(format!(
                "cannot make {} readable by its owner only ({e}); run fairsteward as the user that owns the data directory, or chmod go-rwx it yourself",
                path.display()
            ))
        })?;
    }
    Ok(())
}

/// Where the outbox goes: the SMTP server of `[mail.smtp]`, or else the spool
/// (rid of the temporary files a crash left there).
///
/// # Errors
/// The SMTP transport cannot be set up (say, an unreadable `ca_file`).
pub fn sink(config: &Config) -> Result<Sink, ServerError> {
    Ok(match &config.smtp {
        Some(smtp) => Sink::Smtp(SmtpSink::new(smtp, &config.mail_from)?),
        None => {
            // A write cut short by a crash left its temporary file; an hour is
            // far longer than any write of a mail takes.
            match crate::mail::spool::remove_leftovers(&config.spool_dir, std::time::Duration::from_secs(3600)) {
                Ok(0) => {}
                Ok(n) => {
                    tracing::info!(files = n, spool = %config.spool_dir.display(), "removed temporary files a crash left in the spool")
                }
                Err(e) => {
                    tracing::warn!(error = %e, spool = %config.spool_dir.display(), "cannot look for leftover temporary files in the spool")
                }
            }
            Sink::Spool(config.spool_dir.clone())
        }
    })
}

/// Serves the API on `listener` until `shutdown` completes.
///
/// # Errors
/// The store cannot be opened or the server fails.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let wake = Arc::new(Notify::new());
    // One registry for the daemon (issue 36): the steward, the doors, the
    // drainer and the sweep count into it; the store times its transactions.
    let metrics = crate::metrics::Metrics::new();
    // SQLite's full integrity check reads the whole file (8 s for 3 GB, 10^5
    // games). A database exactly as the last clean stop left it is served at
    // once and checked beside the requests (issue 37); any other (a crash, a
    // restored or copied file, a first start) is checked before serving.
    let check_beside = config.database_url.is_none() && stopped_cleanly(&config);
    let check = if check_beside { Check::None } else { Check::Full };
    let steward = open_checked(&config, wake.clone(), check)?.with_metrics(metrics.clone());
    forget_clean_stop(&config)?;
    let integrity = if check_beside {
        tracing::info!("the store is as its last clean stop left it: its integrity check runs beside the requests");
        check_beside_requests(config.database())
    } else {
        watch::channel(Integrity::Sound).1
    };
    // A damaged store found beside the requests stops the steward, as a
    // refusal at the start would have.
    let mut watching = integrity.clone();
    let damage_found = async move {
        // The sender gone without damage (the check passed): nothing will be found.
        if watching.wait_for(|i| matches!(i, Integrity::Damaged(_))).await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    let shutdown = async move {
        tokio::select! {
            () = shutdown => {}
            () = damage_found => {}
        }
    };
    let timed = metrics.clone();
    steward.store().observe_transactions(move |took| timed.store_transaction(took));
    let metrics_listener = match config.metrics_listen {
        Some(addr) => Some(TcpListener::bind(addr).await.map_err(|e| {
            ServerError::Refused(format!(
                "cannot listen on {addr} for the metrics ({e}); choose a free address for [metrics] listen, or leave it out to serve /metrics on the main listener to loopback clients"
            ))
        })?),
        None => None,
    };
    let operator = Arc::new(operator_token(&config)?);
    let sink = sink(&config)?;
    // Only now: a start refused by its checks says only why. The target lets the
    // demo, which runs on placeholders by design, leave these out.
    for warning in crate::config::placeholders::placeholders(&config) {
        tracing::warn!(target: "fairsteward::config::placeholders", "{warning}");
    }
    let (stop, stopped) = watch::channel(false);
    let mail = sink.describe();
    steward.release_dead_holders().await;
    let drainer = outbox::Drainer::new(steward.store().clone(), sink, steward.keys_arc()).with_metrics(metrics);
    let drainer = tokio::spawn(outbox::run_counted(drainer, wake, stopped));
    let maildir = config.maildir.clone().map(|m| {
        tracing::info!(maildir = %m.path.display(), "reading players' mails from the maildir");
        tokio::spawn(crate::mail::maildir::run(steward.clone(), m.path, m.poll, stop.subscribe()))
    });
    let imap = config.imap.clone().map(|i| {
        tracing::info!(imap = %i.describe(), "reading players' mails over IMAP");
        tokio::spawn(crate::mail::imap::run(steward.clone(), i, stop.subscribe()))
    });
    // Clocks: one sweep at once (deadlines may have passed while the daemon was
    // down), then on the schedule. It runs beside the requests (issue 37: with
    // many games due it takes a while); a move that comes meanwhile is
    // refereed the same, since every move settles its game's clocks first.
    let sweeper = tokio::spawn(sweep_on_schedule(steward.clone(), config.schedule.sweep.clone(), stop.subscribe()));
    let backups = backups_on_schedule(&config, stop.subscribe());
    let addr = listener.local_addr()?;
    tracing::info!(
        listen = %addr,
        data_dir = %config.data_dir.display(),
        mail = %mail,
        "fairsteward listening on http://{addr}"
    );
    let stopping = steward.clone();
    let place = match &metrics_listener {
        Some(_) => crate::web::operator_endpoints::MetricsPlace::Elsewhere,
        None => crate::web::operator_endpoints::MetricsPlace::Loopback,
    };
    // The metrics' own listener, within the same limits, stops with the rest.
    let metrics_door = metrics_listener.map(|l| {
        if let Ok(addr) = l.local_addr() {
            tracing::info!(listen = %addr, "serving /metrics and /health on http://{addr}");
        }
        let mut stopped = stop.subscribe();
        let router = crate::web::operator_endpoints::router(steward.clone());
        tokio::spawn(crate::web::listen::serve(l, router, config.http_limits, async move {
            let _ = stopped.wait_for(|stop| *stop).await;
        }))
    });
    let router = crate::web::router_with_metrics(steward, operator, place);
    crate::web::listen::serve(listener, router, config.http_limits, shutdown).await;
    tracing::info!("shutting down; draining the outbox");
    let _ = stop.send(true);
    if let Some(m) = metrics_door {
        let _ = m.await;
    }
    if let Some(m) = maildir {
        let _ = m.await;
    }
    if let Some(i) = imap {
        let _ = i.await;
    }
    let _ = sweeper.await;
    if let Some(b) = backups {
        let _ = b.await;
    }
    let _ = drainer.await;
    // What this steward still holds goes to the others at once.
    stopping.release_holds().await;
    let found = integrity.borrow().clone();
    match found {
        Integrity::Damaged(problem) => return Err(ServerError::Refused(problem)),
        Integrity::Sound if config.database_url.is_none() => record_clean_stop(&config, &stopping).await,
        // Still being checked (or PostgreSQL's): no clean stop on record.
        _ => {}
    }
    Ok(())
}

/// Where the store's integrity check stands while `serve` runs.
#[derive(Clone, Debug)]
enum Integrity {
    /// Checked before serving, or beside the requests and passed.
    Sound,
    /// Being checked beside the requests.
    Checking,
    /// The check beside the requests found this (the refusal's line).
    Damaged(String),
}

/// Runs SQLite's full integrity check of the database at `path` on a
/// blocking thread, beside the requests (issue 37); what it finds.
fn check_beside_requests(path: PathBuf) -> watch::Receiver<Integrity> {
    let (tell, integrity) = watch::channel(Integrity::Checking);
    tokio::task::spawn_blocking(move || {
        let found = match crate::store::check_integrity(&path) {
            Ok(()) => {
                tracing::info!("the store passed its integrity check");
                Integrity::Sound
            }
            Err(e) => {
                tracing::error!(error = %e, "the store failed its integrity check; stopping");
                Integrity::Damaged(e.to_string())
            }
        };
        let _ = tell.send(found);
    });
    integrity
}

/// Whether the database of `config` is as the last clean stop of `serve` left
/// it: the token in [`CLEAN_STOP_FILE`] is the database's.
fn stopped_cleanly(config: &Config) -> bool {
    let Ok(text) = std::fs::read_to_string(config.data_dir.join(CLEAN_STOP_FILE)) else { return false };
    let token = text.trim();
    !token.is_empty() && crate::store::clean_stop_token(&config.database()).as_deref() == Some(token)
}

/// Removes [`CLEAN_STOP_FILE`] (durably) before the steward serves: a crash
/// from now on leaves none, and the next start checks the store first.
fn forget_clean_stop(config: &Config) -> Result<(), ServerError> {
    let file = config.data_dir.join(CLEAN_STOP_FILE);
    match std::fs::remove_file(&file) {
        Ok(()) => std::fs::File::open(&config.data_dir).and_then(|d| d.sync_all()).map_err(|e| {
            ServerError::Refused(format!("cannot sync the data directory {} ({e})", config.data_dir.display()))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(ServerError::Refused(format!(
            "cannot remove {} ({e}); give the user running fairsteward write access to the data directory",
            file.display()
        ))),
    }
}

/// Records a clean stop: a new token in the database, then the same in
/// [`CLEAN_STOP_FILE`]. A failure only costs the next start its check
/// before serving.
async fn record_clean_stop(config: &Config, steward: &Steward) {
    let mut bytes = [0u8; 16];
    if ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes).is_err() {
        tracing::warn!("no random token for the clean stop; the next start checks the store first");
        return;
    }
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let stored = token.clone();
    if let Err(e) = steward.store().transaction(move |tx| tx.record_clean_stop(&stored)).await {
        tracing::warn!(error = %e, "the clean stop could not be recorded; the next start checks the store first");
        return;
    }
    let file = config.data_dir.join(CLEAN_STOP_FILE);
    let _ = std::fs::remove_file(&file);
    if let Err(e) = crate::protocol::keys::write_secret(&file, format!("{token}\n").as_bytes()) {
        tracing::warn!(error = %e, file = %file.display(), "the clean stop could not be recorded; the next start checks the store first");
    }
}

/// Runs the deadline sweep once at start, then at every time `schedule` names
/// (read on the system clock; the sweep itself takes the steward's time) until
/// `shutdown` turns true.
async fn sweep_on_schedule(steward: Steward, schedule: cron::Schedule, mut shutdown: watch::Receiver<bool>) {
    let started = std::time::Instant::now();
    let swept = steward.sweep(steward.now()).await;
    steward.metrics().sweep_ran(started.elapsed(), None, swept.is_ok());
    if let Err(e) = swept {
        tracing::error!(error = %e, "the start-up sweep failed");
    }
    loop {
        let mut upcoming = schedule.upcoming(chrono::Utc);
        let Some(next) = upcoming.next() else {
            tracing::warn!("the sweep schedule names no future time; no more sweeps");
            steward.release_lease(SWEEP_LEASE).await;
            return;
        };
        // Held over two periods and ten seconds: renewed at every sweep while
        // this steward runs, lapsed soon after it stops (issue 35).
        let period = upcoming.next().map_or(chrono::TimeDelta::hours(1), |after| after - next);
        let ttl =
            (period * 2 + chrono::TimeDelta::seconds(10)).to_std().unwrap_or(std::time::Duration::from_secs(3600));
        if !wait_until(next, &mut shutdown).await {
            steward.release_lease(SWEEP_LEASE).await;
            return;
        }
        // Stewards sharing a database sweep one at a time: the one holding
        // the lease; the others take it over once it lapses.
        if !steward.hold_lease(SWEEP_LEASE, ttl).await {
            tracing::debug!("another steward sweeps (it holds the sweep's lease)");
            continue;
        }
        let started = std::time::Instant::now();
        let lateness = (chrono::Utc::now() - next).to_std().unwrap_or_default();
        let swept = steward.sweep(steward.now()).await;
        steward.metrics().sweep_ran(started.elapsed(), Some(lateness), swept.is_ok());
        if let Err(e) = swept {
            tracing::error!(error = %e, "the sweep failed; it runs again on schedule");
        }
    }
}

/// Takes a backup set on `[backup] schedule` until `shutdown` (issue 36), on a
/// blocking thread (a large database takes a while to copy, and holds up no
/// move meanwhile). `None` when backups are off, or the store is PostgreSQL's,
/// which PostgreSQL's own tools back up (docs/postgresql.md).
fn backups_on_schedule(config: &Config, mut shutdown: watch::Receiver<bool>) -> Option<tokio::task::JoinHandle<()>> {
    let backups = config.backups.clone()?;
    if config.database_url.is_some() {
        tracing::info!("[backup] is for SQLite's store; back a PostgreSQL store up with PostgreSQL's tools");
        return None;
    }
    let (data_dir, database) = (config.data_dir.clone(), config.database());
    tracing::info!(dir = %backups.dir.display(), schedule = %backups.schedule_text, keep = backups.keep, "taking backups");
    Some(tokio::spawn(async move {
        loop {
            let Some(next) = backups.schedule.upcoming(chrono::Utc).next() else {
                tracing::warn!("the backup schedule names no future time; no more backups");
                return;
            };
            if !wait_until(next, &mut shutdown).await {
                return;
            }
            let (data_dir, database, into) = (data_dir.clone(), database.clone(), backups.dir.clone());
            let keep = backups.keep;
            let taken = tokio::task::spawn_blocking(move || {
                crate::store::take_backup_set(&data_dir, &database, &into, keep, chrono::Utc::now())
            })
            .await;
            match taken {
                Ok(Ok(set)) => tracing::info!(
                    backup = %set.path.display(), bytes = set.bytes, removed = set.removed.len(), "backup taken"
                ),
                Ok(Err(e)) => tracing::error!(error = %e, "the backup failed; it runs again on schedule"),
                Err(e) => tracing::error!(error = %e, "the backup stopped; it runs again on schedule"),
            }
        }
    }))
}

/// Sleeps until `next` (a scheduled duty's time) or until `shutdown` turns
/// true; whether the duty is still to run.
async fn wait_until(next: chrono::DateTime<chrono::Utc>, shutdown: &mut watch::Receiver<bool>) -> bool {
    let wait = (next - chrono::Utc::now()).to_std().unwrap_or_default();
    tokio::select! {
        () = tokio::time::sleep(wait) => {}
        _ = shutdown.changed() => {}
    }
    !*shutdown.borrow()
}

/// The lease of the deadline sweep (issue 35).
const SWEEP_LEASE: &str = "sweep";

/// Completes on SIGINT or SIGTERM.
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
