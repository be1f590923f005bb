//! The store: one SQLite file, reached through one connection on its own thread.
//!
//! `schema.sql` (embedded) creates a new database; numbered migrations follow it.
//! The journal is WAL, and no caller hears a transaction's result before the WAL
//! holding its commit is synced to disk: once a player was told "accepted", a
//! crash cannot lose it. The sync is `synchronous = FULL`'s, done on a thread of
//! its own (see `syncs`) so that the store thread runs the next group meanwhile;
//! when no closure waits for the store thread, it syncs and answers the group
//! itself instead (one thread woken fewer per answer, and a sync covers every
//! commit before it, so the groups still with the sync thread are on disk too).
//! Work reaches the thread as closures ([`Store::transaction`]); no connection is
//! ever held across an `.await`, and all writes are serialised, so the steward's
//! read-decide-write runs without races.
//!
//! **Group commit.** A durable commit costs an fsync, which is most of what a
//! move costs. When the thread is free it takes every closure waiting for it
//! (at most [`GROUP_MAX`]) as one group: one IMMEDIATE transaction, each closure
//! in its own savepoint, so an `Err` rolls back that closure's writes only, and
//! one commit for all. No caller hears its result before that commit is on disk;
//! if the commit fails, every closure of the group that succeeded gets the
//! error instead. A closure that waits alone is committed alone, at once.

mod backup_sets; // issue 36: backups that run by themselves
mod clean_stop; // issue 37: the start-up check beside the requests after a clean stop
mod clock;
mod conditional; // issue 32, slice C
mod desk;
mod desk_invited; // issue 31, slice E
mod events;
mod files;
mod games;
mod inbound;
mod invitations; // issue 31, slice D
mod leases; // issue 35
mod mail_settings; // issue 32, slice M
mod migrations;
mod moves;
mod outbox;
mod picture_files;
mod pictures;
pub mod postgres; // issue 35
mod program_passwords; // issue 34: Xfcc
mod rates;
mod reader;
mod readings; // issue 36: what the metrics and the health check read
mod senders;
pub(crate) mod sql; // issue 35
mod steward_openpgp; // issue 33
mod store_state; // issue 37
mod tournaments;
mod tx;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;

use rusqlite::{Connection, TransactionBehavior};
use tokio::sync::{broadcast, oneshot};

pub use backup_sets::{BackupSet, backup_sets, take_backup_set}; // issue 36
pub use clean_stop::{CLEAN_STOP_FILE, check_integrity, clean_stop_token}; // issue 37
pub use clock::LeaveRow;
pub use conditional::ConditionalRow; // issue 32, slice C
pub use events::EventRow;
#[cfg(test)]
pub(crate) use files::temporary_for;
pub(crate) use files::{is_leftover, write_renamed};
pub use games::{GameRow, SeatRow, StoredOutcome};
pub use inbound::{INBOUND_CAP, INBOUND_LABEL, InboundRow};
pub use invitations::{InvitationRow, InvitedGameRow, InvitedPlayerRow, InvitedTournamentRow, NewInvitation}; // issue 31, slice D
pub use mail_settings::{Delivery, MailSettings, MailSettingsChange, Pictures}; // issue 32, slice M
pub use moves::{CommitmentRow, MoveRow, SettledMove, TurnRow};
pub use outbox::{OUTBOX_LABEL, OutboxRow};
pub use picture_files::PictureFiles;
pub use pictures::{BoardPicture, PictureSource, StoredPicture};
pub use program_passwords::ProgramPasswordRow; // issue 34: Xfcc
pub use rates::LONGEST_WINDOW;
pub use reader::Reader;
pub use readings::Readings; // issue 36
pub use senders::{AddressKind, AddressRequestRow};
pub use sql::Backend;
pub use tournaments::{TournamentGameRow, TournamentPlayerRow, TournamentRow};
pub use tx::{Tx, time_text};

/// How many prepared statements the store's connection keeps (more than the
/// store has queries).
const STATEMENT_CACHE: usize = 160;

/// A failure of the store. Never the player's fault.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL refused or failed, or its connection broke (issue 35).
    #[error("database error: {}", postgres::describe(.0))]
    Postgres(#[from] ::postgres::Error),
    /// A read that needs a row found none.
    #[error("database error: no row where one was expected")]
    NoRow,
    /// A stored value could not be read back (a bug or a hand-edited database).
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The database is newer than this program.
    #[error("the database {path} has schema version {found}, newer than this program's {known}; upgrade fairsteward")]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Its version.
        found: u32,
        /// The newest this program knows.
        known: u32,
    },
    /// A file of the store could not be created or its mode set.
    #[error("cannot create or protect {0}: {1}")]
    Io(PathBuf, #[source] std::io::Error),
    /// The store thread has stopped.
    #[error("the store thread has stopped")]
    Closed,
    /// The transaction a closure ran in could not be begun or committed (its
    /// writes are not stored).
    #[error("the store could not commit: {0}")]
    Commit(String),
    /// A backup could not be made as asked.
    #[error("{0}")]
    Backup(String),
    /// SQLite could open the database only for reading.
    #[error(
        "the database {} can only be opened read-only; give the user running fairsteward write access to it and its directory",
        path.display()
    )]
    ReadOnly {
        /// The database file.
        path: PathBuf,
    },
    /// The file is not an intact SQLite database.
    #[error(
        "the database {} is damaged ({check}: {problem}); stop here, keep the file for inspection, and restore the latest backup (docs/operator.md, \"Backup and restore\")",
        path.display()
    )]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// What found it: SQLite's `integrity_check`, `quick_check`, or opening.
        check: &'static str,
        /// SQLite's first complaint.
        problem: String,
    },
}

/// How thoroughly [`Store::open_checked`] checks the database before use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// No check beyond opening (tests and tools on fresh files).
    None,
    /// `PRAGMA quick_check`: every page and record read, indexes not compared
    /// with their tables; linear in the file's size.
    Quick,
    /// `PRAGMA integrity_check`: `quick_check` and every index entry matched.
    Full,
}

/// Creates `path` as an empty file with mode 0600 unless it exists (SQLite takes
/// an empty file for an empty database).
fn create_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Takes group and other permissions off `path`, if it exists.
///
/// # Errors
/// The mode cannot be read or set.
pub fn make_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().mode() & 0o077 != 0 => {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(m.permissions().mode() & 0o700))
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Takes group and other permissions off the drawn pictures kept beside the
/// store at `path` (`<path>-pictures` and its files).
fn protect_pictures(path: &Path) -> Result<(), StoreError> {
    let pictures = PictureFiles::of(path);
    make_private(pictures.dir()).map_err(|e| StoreError::Io(pictures.dir().to_owned(), e))?;
    for file in std::fs::read_dir(pictures.dir()).into_iter().flatten().flatten().map(|e| e.path()) {
        make_private(&file).map_err(|e| StoreError::Io(file, e))?;
    }
    Ok(())
}

/// Whether the steward named `holder` (an [`instance_name`]) ran on this
/// host in a process that no longer runs: its leases and claims can be taken
/// at once instead of waiting for them to lapse (a steward restarted after a
/// crash on the same host).
pub fn holder_died_here(holder: &str) -> bool {
    let mut parts = holder.rsplitn(3, ':');
    let (Some(_random), Some(pid), Some(host)) = (parts.next(), parts.next(), parts.next()) else { return false };
    host == host_name() && pid.parse::<u32>().is_ok_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
}

/// A name for this opening of the store, unique among the stewards sharing a
/// database: the host's name, the process id and a random part (a restarted
/// process does not inherit its leases).
fn instance_name() -> Arc<str> {
    let mut random = [0u8; 4];
    // Without randomness the pid alone still tells processes on one host apart.
    let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut random);
    let random: String = random.iter().map(|b| format!("{b:02x}")).collect();
    Arc::from(format!("{}:{}:{random}", host_name(), std::process::id()))
}

/// This host's name as stewards name themselves (`host` when it has none).
fn host_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    if host.trim().is_empty() { "host".to_owned() } else { host.trim().to_owned() }
}

/// How many changed games [`Store::changes`] holds for a slow receiver.
const CHANGES_BUFFER: usize = 512;

/// The most closures committed together in one group (see the module docs).
pub const GROUP_MAX: usize = 64;

/// A closure waiting for the store thread, with where its result goes.
trait Job: Send {
    /// Runs the closure in `tx`; its result waits in [`Ran`] for the commit.
    fn run(self: Box<Self>, tx: &Tx<'_>) -> Ran;
    /// Tells the caller that the closure could not be run.
    fn refuse(self: Box<Self>, error: StoreError);
}

/// Tells a closure's caller its result once the group's commit is known
/// (`Some`: why the commit failed).
type Finish = Box<dyn FnOnce(Option<&str>) + Send>;

/// A closure that ran: whether its writes stay, and how its caller hears.
struct Ran {
    keep: bool,
    finish: Finish,
}

/// A closure `f` and its reply.
struct Pending<F, R> {
    f: F,
    reply: R,
}

impl<T, E, F, R> Job for Pending<F, R>
where
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
    F: FnOnce(&Tx<'_>) -> Result<T, E> + Send,
    R: FnOnce(Result<T, E>) + Send + 'static,
{
    fn run(self: Box<Self>, tx: &Tx<'_>) -> Ran {
        let Pending { f, reply } = *self;
        let result = f(tx);
        Ran {
            keep: result.is_ok(),
            finish: Box::new(move |failed: Option<&str>| match (failed, result) {
                (Some(why), Ok(_)) => reply(Err(E::from(StoreError::Commit(why.to_owned())))),
                (_, result) => reply(result),
            }),
        }
    }

    fn refuse(self: Box<Self>, error: StoreError) {
        (self.reply)(Err(E::from(error)));
    }
}

/// The WAL's size, in pages, past which the store thread checkpoints the WAL
/// itself after a commit (SQLite's default for every commit is 1 000).
const INLINE_CHECKPOINT_PAGES: i64 = 4000;

/// How long the checkpoint thread lets commits gather before it copies them.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(25);

/// Copies committed pages from the WAL into the database file (a PASSIVE
/// checkpoint: it never blocks the writer) whenever the store thread has
/// committed, at most every [`CHECKPOINT_EVERY`], on its own connection and
/// thread. SQLite's automatic checkpoint runs on the committing connection —
/// reading the WAL, writing the database file and syncing it on the thread
/// every write waits for; here that work runs beside it, and the store thread's
/// own checkpoint (past [`INLINE_CHECKPOINT_PAGES`]) finds the pages already
/// copied and only restarts the WAL. Ends when the store thread does.
fn checkpoints(conn: &Connection, kicked: &mpsc::Receiver<()>) {
    let mut warned = false;
    while kicked.recv().is_ok() {
        thread::sleep(CHECKPOINT_EVERY);
        while kicked.try_recv().is_ok() {}
        match conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            Ok(()) => warned = false,
            Err(e) if !warned => {
                // The store thread's own checkpoint still bounds the WAL.
                tracing::warn!(error = %e, "a background checkpoint failed");
                warned = true;
            }
            Err(_) => {}
        }
    }
}

/// A group's results, on their way to its closures' callers through the sync
/// thread.
struct Answers {
    ran: Vec<Ran>,
    /// The store's commit count after this group.
    commits: u64,
    /// Why the group's commit failed, if it did.
    failed: Option<String>,
    /// Whether the group committed (so the WAL holds pages not yet synced).
    committed: bool,
}

/// The sync thread: makes each group's commit durable (`fdatasync` of the WAL,
/// which is what `synchronous = FULL` does inside the commit) and only then hands
/// the group's results to its callers. (A group the store thread syncs itself,
/// when nothing else waits, may be answered before earlier groups still here:
/// its sync made those durable too.) Groups are answered in commit order, so a
/// result that read what an earlier group wrote is never answered before that
/// write is on disk — nor is anything the outbox reads sent before it is. While
/// this thread syncs, the store thread runs the next group; one sync covers every
/// group committed meanwhile. If a sync fails, the callers of every group it
/// covers hear that their commit is not durable, and the next group syncs again.
fn syncs(wal: &Path, to_sync: &mpsc::Receiver<Answers>, durable: &AtomicU64) {
    let mut wal = WalSync::new(wal);
    let mut unsynced = false;
    while let Ok(first) = to_sync.recv() {
        let mut batch = vec![first];
        batch.extend(to_sync.try_iter());
        unsynced |= batch.iter().any(|a| a.committed);
        let covered = batch.iter().map(|a| a.commits).max().unwrap_or(0);
        let mut not_durable = None;
        if unsynced {
            match wal.sync() {
                Ok(()) => {
                    unsynced = false;
                    durable.fetch_max(covered, Ordering::SeqCst);
                }
                Err(e) => not_durable = Some(e),
            }
        }
        for answers in batch {
            let failed = not_durable.as_deref().or(answers.failed.as_deref());
            for one in answers.ran {
                (one.finish)(failed);
            }
        }
    }
}

/// The store's WAL file, kept open for `fdatasync`.
struct WalSync {
    path: PathBuf,
    file: Option<std::fs::File>,
}

impl WalSync {
    fn new(path: &Path) -> WalSync {
        WalSync { path: path.to_owned(), file: None }
    }

    /// Makes every commit written to the WAL so far durable; the error says so
    /// for the callers (and is logged).
    fn sync(&mut self) -> Result<(), String> {
        let synced = match &self.file {
            Some(f) => f.sync_data(),
            None => std::fs::File::open(&self.path).and_then(|f| {
                let synced = f.sync_data();
                self.file = Some(f);
                // The WAL may be new (a new database, or the last connection
                // removed it at shutdown): its name must be on disk too, as
                // SQLite itself makes sure when it syncs a new WAL.
                synced.and_then(|()| sync_directory_of(&self.path))
            }),
        };
        synced.map_err(|e| {
            tracing::error!(wal = %self.path.display(), error = %e, "cannot sync the store's WAL; its callers are told");
            self.file = None;
            format!("the commit could not be made durable (syncing {}: {e})", self.path.display())
        })
    }
}

/// Syncs the directory holding `file`, so that a new file's name is durable.
fn sync_directory_of(file: &Path) -> std::io::Result<()> {
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::File::open(dir)?.sync_all()
}

/// The store thread: runs the closures waiting, a group at a time, until every
/// handle is gone, and passes each group's results on to the sync thread.
fn serve(
    mut conn: Connection,
    inbox: &mpsc::Receiver<Box<dyn Job>>,
    commits: &AtomicU64,
    kick: &mpsc::SyncSender<()>,
    answers: &mpsc::Sender<Answers>,
    (wal, durable): (&Path, &AtomicU64),
    changes: &broadcast::Sender<crate::ids::GameId>,
) {
    let mut wal = WalSync::new(wal);
    let mut next = None;
    loop {
        let first = match next.take() {
            Some(job) => job,
            None => match inbox.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
        };
        let mut group = vec![first];
        group.extend(inbox.try_iter().take(GROUP_MAX - 1));
        let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
            Ok(tx) => tx,
            Err(e) => {
                let why = e.to_string();
                group.into_iter().for_each(|job| job.refuse(StoreError::Commit(why.clone())));
                continue;
            }
        };
        let mut ran = Vec::with_capacity(group.len());
        let mut broken = None;
        // A closure alone needs no savepoint: if it fails, the whole transaction
        // is rolled back instead (a savepoint copies every page it touches).
        let alone = group.len() == 1;
        let mut undo_all = false;
        for job in group {
            if broken.is_some() {
                job.refuse(StoreError::Commit("an earlier closure of its group broke the transaction".into()));
                continue;
            }
            if !alone && let Err(e) = run_cached(&tx, "SAVEPOINT job") {
                broken = Some(e.to_string());
                job.refuse(StoreError::from(e));
                continue;
            }
            let tx_of_job = Tx::new(sql::Conn::Sqlite(&tx));
            let mut one = job.run(&tx_of_job);
            let touched = tx_of_job.take_touched();
            if one.keep && !touched.is_empty() {
                // Told after the caller, and only when the commit is durable.
                let (finish, changes) = (one.finish, changes.clone());
                one.finish = Box::new(move |failed: Option<&str>| {
                    finish(failed);
                    if failed.is_none() {
                        for game in touched {
                            // No receiver (no stream open) is no error.
                            let _ = changes.send(game);
                        }
                    }
                });
            }
            if alone {
                undo_all = !one.keep;
            } else {
                let close = if one.keep { run_cached(&tx, "RELEASE job") } else { undo_to(&tx, "job") };
                if let Err(e) = close {
                    broken = Some(e.to_string());
                }
            }
            ran.push(one);
        }
        let outcome = match broken {
            Some(why) => {
                // Rolled back before anyone hears of it.
                drop(tx);
                Err(why)
            }
            // Nothing to keep: the closure's caller hears of its own error.
            None if undo_all => tx.rollback().map_err(|e| e.to_string()),
            None => tx.commit().map_err(|e| e.to_string()),
        };
        let committed = outcome.is_ok() && !undo_all;
        let mut count = commits.load(Ordering::SeqCst);
        if committed {
            count = commits.fetch_add(1, Ordering::SeqCst) + 1;
            // Full means a kick is already waiting.
            let _ = kick.try_send(());
        } else if let Err(why) = &outcome {
            tracing::error!(error = %why, closures = ran.len(), "a store transaction failed; its callers are told");
        }
        let group = Answers { ran, commits: count, failed: outcome.err(), committed };
        // Nothing else waits: this thread syncs the WAL itself and answers,
        // rather than wake the sync thread and wait for it to be scheduled. A
        // sync covers every commit before it, so the groups still with the sync
        // thread are on disk too when these callers hear of theirs.
        match inbox.try_recv() {
            Ok(job) => next = Some(job),
            Err(mpsc::TryRecvError::Empty) if group.committed => {
                let failed = wal.sync().err();
                if failed.is_none() {
                    durable.fetch_max(group.commits, Ordering::SeqCst);
                }
                for one in group.ran {
                    (one.finish)(failed.as_deref());
                }
                continue;
            }
            Err(_) => {}
        }
        if let Err(mpsc::SendError(group)) = answers.send(group) {
            // The sync thread is gone (it never ends before this one): nothing can
            // be promised durable.
            for one in group.ran {
                (one.finish)(Some("the store's sync thread has stopped"));
            }
        }
    }
}

/// Runs one statement without parameters through the statement cache (the
/// savepoints of every transaction: parsing them anew each time showed).
pub(crate) fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

/// Undoes what was written since the savepoint `name` and closes it.
pub(crate) fn undo_to(conn: &Connection, name: &str) -> rusqlite::Result<()> {
    run_cached(conn, &format!("ROLLBACK TO {name}"))?;
    run_cached(conn, &format!("RELEASE {name}"))
}

/// A handle to the store thread; cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    jobs: mpsc::Sender<Box<dyn Job>>,
    path: PathBuf,
    /// Which database runs the store.
    backend: Backend,
    /// This steward among those sharing the database: the holder of the
    /// leases and outbox claims it takes (issue 35).
    instance: Arc<str>,
    /// Held by every handle of a PostgreSQL store: its listener thread stops
    /// when the last one is gone.
    _alive: Option<Arc<()>>,
    /// Whether closures run one after the other in the order they came (one
    /// store thread), not side by side.
    in_order: bool,
    /// Transactions committed through this handle's thread (see [`Store::commits`]).
    commits: Arc<AtomicU64>,
    /// Of those, the ones synced to disk (see [`Store::durable_commits`]).
    durable: Arc<AtomicU64>,
    /// The games whose transcript grew, told once the transaction is durable
    /// (see [`Store::changes`]).
    changes: broadcast::Sender<crate::ids::GameId>,
    /// Told how long each [`Store::transaction`] took (issue 36: the
    /// metrics' commit latency), once one is set.
    observer: Arc<std::sync::OnceLock<TransactionObserver>>,
}

/// What [`Store::observe_transactions`] calls with each transaction's time.
struct TransactionObserver(Box<dyn Fn(std::time::Duration) + Send + Sync>);

impl std::fmt::Debug for TransactionObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TransactionObserver")
    }
}

impl Store {
    /// Opens (creating if need be) the database at `path`, brings its schema up to
    /// date and starts the store thread.
    ///
    /// The database and its `-wal` and `-shm` files are readable by the owner
    /// only (0600): a new database is created so before SQLite opens it, and
    /// SQLite gives its `-wal` and `-shm` the database's mode; older files are
    /// brought to 0600 (issue 11 point 3).
    ///
    /// # Errors
    /// The file cannot be opened, or its schema is newer than this program's.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_checked(path, Check::None)
    }

    /// [`Store::open`], refusing a database SQLite can only read, and one that
    /// fails `check` (or that SQLite calls corrupt or not a database).
    ///
    /// # Errors
    /// As [`Store::open`]; [`StoreError::ReadOnly`]; [`StoreError::Damaged`].
    pub fn open_checked(path: &Path, check: Check) -> Result<Store, StoreError> {
        let damaged = |check: &'static str| damaged_when_corrupt(path, check);
        create_private(path).map_err(|e| StoreError::Io(path.to_owned(), e))?;
        let mut conn = Connection::open(path).map_err(StoreError::from).map_err(damaged("opening"))?;
        (|| -> Result<(), StoreError> {
            conn.pragma_update(None, "journal_mode", "WAL")?;
            // NORMAL: a commit writes the WAL but does not sync it; the sync
            // thread does, before any closure of the group hears its result (see
            // `syncs`), so an answer still means "on disk".
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            conn.pragma_update(None, "foreign_keys", true)?;
            // A group's savepoints journal the pages they change; in a file that was
            // a temporary file made, written and deleted per group (ext4 inode work
            // on the store thread). Nothing there needs to outlive the transaction.
            conn.pragma_update(None, "temp_store", "MEMORY")?;
            // Room for a group's changed pages, so a big group does not spill pages
            // into the WAL before its commit (SQLite's default is 2 MiB).
            conn.pragma_update(None, "cache_size", -8192)?;
            conn.busy_timeout(std::time::Duration::from_secs(10))?;
            // Every query goes through `prepare_cached`: a move runs some forty
            // statements, and parsing and planning each anew was a good part of
            // the store thread's time. Room for all of them.
            conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
            // Keep each cached statement's plan: without this, SQLite 3.54 plans a
            // statement like `WHERE game_id = ?1 … ORDER BY seq` again at every new
            // binding (its ORDER BY is checked against the bound value), so the
            // cache saved nothing for them: a tenth of the store thread's time.
            conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
            Ok(())
        })()
        .map_err(damaged("opening"))?;
        // SQLite falls back to read-only when it may not write the file; every
        // move would then fail, so refuse here.
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err(StoreError::ReadOnly { path: path.to_owned() });
        }
        let pragma = match check {
            Check::None => None,
            Check::Quick => Some("quick_check"),
            Check::Full => Some("integrity_check"),
        };
        if let Some(pragma) = pragma {
            integrity(&conn, path, pragma).map_err(damaged(pragma))?;
        }
        migrations::migrate(&mut conn, path).map_err(damaged("opening"))?;
        for suffix in ["", "-wal", "-shm"] {
            let file = PathBuf::from(format!("{}{suffix}", path.display()));
            make_private(&file).map_err(|e| StoreError::Io(file, e))?;
        }
        protect_pictures(path)?;
        // The checkpoints run beside the store thread (see `checkpoints`); the
        // store thread checkpoints itself only if the WAL grows past this many
        // pages, which a busy steward reaches only when the other thread lags.
        conn.pragma_update(None, "wal_autocheckpoint", INLINE_CHECKPOINT_PAGES)?;
        let checkpointer = Connection::open(path)?;
        let (kick, kicked) = mpsc::sync_channel::<()>(1);
        thread::Builder::new()
            .name("checkpoint".into())
            .spawn(move || checkpoints(&checkpointer, &kicked))
            .map_err(|e| StoreError::Corrupt(format!("cannot start the checkpoint thread: {e}")))?;
        let (answers, to_sync) = mpsc::channel::<Answers>();
        let wal = PathBuf::from(format!("{}-wal", path.display()));
        let durable = Arc::new(AtomicU64::new(0));
        let synced = durable.clone();
        let (wal_for_store, durable_for_store) = (wal.clone(), durable.clone());
        thread::Builder::new()
            .name("store-sync".into())
            .spawn(move || syncs(&wal, &to_sync, &synced))
            .map_err(|e| StoreError::Corrupt(format!("cannot start the sync thread: {e}")))?;
        let (jobs, inbox) = mpsc::channel::<Box<dyn Job>>();
        let commits = Arc::new(AtomicU64::new(0));
        let counted = commits.clone();
        let (changes, _) = broadcast::channel(CHANGES_BUFFER);
        let told = changes.clone();
        thread::Builder::new()
            .name("store".into())
            .spawn(move || {
                serve(conn, &inbox, &counted, &kick, &answers, (&wal_for_store, &durable_for_store), &told);
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the store thread: {e}")))?;
        Ok(Store {
            jobs,
            path: path.to_owned(),
            backend: Backend::Sqlite,
            instance: instance_name(),
            commits,
            durable,
            changes,
            _alive: None,
            in_order: true,
            observer: Arc::default(),
        })
    }

    /// Opens the PostgreSQL store at `url` (issue 35), loading the schema into
    /// an empty database, and starts its store thread. `local` names the files
    /// kept beside the store on this host, as a SQLite store's path does (the
    /// picture files: `<local>-pictures`).
    ///
    /// # Errors
    /// The server cannot be reached or refuses; the schema is newer than this
    /// program's.
    pub fn connect(url: &str, local: &Path, threads: usize) -> Result<Store, StoreError> {
        // The client blocks on a runtime of its own, which may not start on a
        // thread of the caller's runtime: connect on a thread of its own.
        let first = thread::scope(|scope| scope.spawn(|| postgres::open(url)).join())
            .map_err(|_| StoreError::Corrupt("connecting to PostgreSQL panicked".into()))??;
        protect_pictures(local)?;
        let (jobs, inbox) = mpsc::channel::<Box<dyn Job>>();
        let shared = Arc::new(postgres::Shared {
            commits: Arc::new(AtomicU64::new(0)),
            durable: Arc::new(AtomicU64::new(0)),
            changes: broadcast::channel(CHANGES_BUFFER).0,
        });
        let alive = Arc::new(());
        let store = Store {
            jobs,
            path: local.to_owned(),
            backend: Backend::Postgres,
            instance: instance_name(),
            commits: shared.commits.clone(),
            durable: shared.durable.clone(),
            changes: shared.changes.clone(),
            _alive: Some(alive.clone()),
            in_order: threads <= 1,
            observer: Arc::default(),
        };
        let inbox = Arc::new(std::sync::Mutex::new(inbox));
        let mut first = Some(first);
        for n in 0..threads.max(1) {
            let (url, inbox, shared, first) = (url.to_owned(), inbox.clone(), shared.clone(), first.take());
            thread::Builder::new()
                .name(format!("store-{n}"))
                .spawn(move || postgres::serve(&url, first, &inbox, &shared))
                .map_err(|e| StoreError::Corrupt(format!("cannot start a store thread: {e}")))?;
        }
        let (url, changes, alive) = (url.to_owned(), shared.changes.clone(), Arc::downgrade(&alive));
        thread::Builder::new()
            .name("store-listen".into())
            .spawn(move || postgres::listen(&url, &changes, &alive))
            .map_err(|e| StoreError::Corrupt(format!("cannot start the store's listener: {e}")))?;
        Ok(store)
    }

    /// Which database runs the store.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Whether closures submitted together run one after the other in the
    /// order they were submitted (SQLite's one store thread; PostgreSQL with
    /// one connection), so a later one sees what an earlier one wrote. With
    /// several PostgreSQL connections they run side by side.
    pub fn runs_in_order(&self) -> bool {
        self.in_order
    }

    /// This steward's name among those sharing the database (host, process
    /// and a random part): who holds a lease or an outbox claim.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many transactions this store has committed since it was opened: a
    /// test counts with it that one command is one transaction (a command run
    /// alone; concurrent ones may share a commit).
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::SeqCst)
    }

    /// The games that change from now on: each game whose transcript a
    /// transaction wrote to, sent once that transaction is committed and synced
    /// (after its caller heard its answer). The one place every change of a
    /// game passes (a move, a resolution, a draw offer, an end, a timeout: all
    /// write the transcript), for the live event streams (issue 34). A receiver
    /// that falls more than a few hundred games behind hears `Lagged` and must
    /// look at its games afresh.
    pub fn changes(&self) -> broadcast::Receiver<crate::ids::GameId> {
        self.changes.subscribe()
    }

    /// How many of [`Store::commits`] are synced to disk. A transaction's caller
    /// hears its result only once its commit is counted here.
    pub fn durable_commits(&self) -> u64 {
        self.durable.load(Ordering::SeqCst)
    }

    /// Runs `f` in one IMMEDIATE transaction on the store thread and commits when it
    /// returns `Ok`; an `Err` rolls everything `f` wrote back. IMMEDIATE takes the
    /// write lock first, so a read-then-write never meets `SQLITE_BUSY` half-way.
    /// Closures waiting together share one commit (group commit, see the module
    /// docs); the answer comes only after that commit.
    ///
    /// # Errors
    /// `f`'s own error, or a store failure converted into `E`.
    pub async fn transaction<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Tx<'_>) -> Result<T, E> + Send + 'static,
    {
        let started = std::time::Instant::now();
        let (reply, answer) = oneshot::channel();
        self.submit(f, move |r| {
            let _ = reply.send(r);
        })?;
        let answered = answer.await.map_err(|_| E::from(StoreError::Closed));
        if let Some(observer) = self.observer.get() {
            (observer.0)(started.elapsed());
        }
        answered?
    }

    /// Has `observe` told how long each [`Store::transaction`] of this store
    /// (and of every clone of it) takes from its submission to its answer:
    /// the wait for the store thread, the closure, and the commit synced (or
    /// the rollback). The daemon's metrics (issue 36) set it once; a second
    /// observer is ignored.
    pub fn observe_transactions(&self, observe: impl Fn(std::time::Duration) + Send + Sync + 'static) {
        let _ = self.observer.set(TransactionObserver(Box::new(observe)));
    }

    /// [`Store::transaction`] for code outside the async runtime (the admin CLI).
    ///
    /// # Errors
    /// As [`Store::transaction`].
    pub fn transaction_blocking<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Tx<'_>) -> Result<T, E> + Send + 'static,
    {
        let (reply, answer) = mpsc::channel();
        self.submit(f, move |r| {
            let _ = reply.send(r);
        })?;
        answer.recv().map_err(|_| E::from(StoreError::Closed))?
    }

    fn submit<T, E, F>(&self, f: F, reply: impl FnOnce(Result<T, E>) + Send + 'static) -> Result<(), E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Tx<'_>) -> Result<T, E> + Send + 'static,
    {
        let job: Box<dyn Job> = Box::new(Pending { f, reply });
        self.jobs.send(job).map_err(|_| E::from(StoreError::Closed))
    }
}

/// SQLite's `pragma` (`integrity_check` or `quick_check`) of `conn`, the
/// database at `path`: [`StoreError::Damaged`] with the first problem it finds.
fn integrity(conn: &Connection, path: &Path, pragma: &'static str) -> Result<(), StoreError> {
    let mut stmt = conn.prepare(&format!("PRAGMA {pragma}(20)"))?;
    let rows: Vec<String> = stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<_, _>>()?;
    match rows.into_iter().find(|r| r != "ok") {
        None => Ok(()),
        Some(first) => Err(StoreError::Damaged { path: path.to_owned(), check: pragma, problem: first }),
    }
}

/// Maps SQLite's own verdict that the database at `path` is corrupt or not a
/// database, met by `check`, to [`StoreError::Damaged`]; other errors pass.
fn damaged_when_corrupt<'a>(path: &'a Path, check: &'static str) -> impl Fn(StoreError) -> StoreError + 'a {
    move |e: StoreError| match e {
        StoreError::Sqlite(ref s)
            if matches!(
                s.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            ) =>
        {
            StoreError::Damaged { path: path.to_owned(), check, problem: s.to_string() }
        }
        other => other,
    }
}

/// What [`backup`] copied.
#[derive(Clone, Copy, Debug)]
pub struct BackupReport {
    /// Database pages copied.
    pub pages: i32,
    /// Bytes written.
    pub bytes: u64,
}

/// Copies the database at `from` into the new file `to` with SQLite's online
/// backup API, while a steward may be serving from it: the copy is one
/// consistent snapshot (the whole database in one step, under one read
/// transaction, which in WAL mode holds up no writer). The copy is written under
/// a temporary name, checked with `quick_check`, and then renamed into place.
///
/// # Errors
/// No database at `from`; `to` exists; SQLite fails; the copy does not check.
pub fn backup(from: &Path, to: &Path) -> Result<BackupReport, StoreError> {
    use rusqlite::OpenFlags;
    use rusqlite::backup::{Backup, StepResult};
    if !from.is_file() {
        return Err(StoreError::Backup(format!("there is no database at {}", from.display())));
    }
    if to.exists() {
        return Err(StoreError::Backup(format!(
            "{} already exists; name a new file for the backup, or move that one away",
            to.display()
        )));
    }
    let source =
        Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    source.busy_timeout(std::time::Duration::from_secs(10))?;
    let name = to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = to.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let copied = (|| -> Result<i32, StoreError> {
        let mut dest = Connection::open(&tmp)?;
        let pages = {
            let step = Backup::new(&source, &mut dest)?;
            loop {
                match step.step(-1)? {
                    StepResult::Done => break step.progress().pagecount,
                    // A writer holds a lock for a moment: try again.
                    _ => thread::sleep(std::time::Duration::from_millis(20)),
                }
            }
        };
        integrity(&dest, &tmp, "quick_check")?;
        // A backup is one self-contained file: no -wal beside it.
        dest.pragma_update(None, "journal_mode", "DELETE")?;
        drop(dest);
        std::fs::File::open(&tmp).and_then(|f| f.sync_all()).map_err(|e| StoreError::Backup(e.to_string()))?;
        Ok(pages)
    })();
    let pages = match copied {
        Ok(p) => p,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    std::fs::rename(&tmp, to)
        .map_err(|e| StoreError::Backup(format!("cannot rename the backup to {}: {e}", to.display())))?;
    let bytes = std::fs::metadata(to).map(|m| m.len()).unwrap_or(0);
    Ok(BackupReport { pages, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 34: the games whose transcript a transaction wrote to are told
    /// once it is durable, after its caller heard; a transaction rolled back
    /// tells nothing; one that only reads tells nothing.
    #[tokio::test]
    async fn changes_tell_the_games_of_committed_transactions_only() {
        use crate::protocol::policy::{Auth, Secrecy};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let mut changes = store.changes();
        let (kept, undone) = (crate::ids::GameId::random(), crate::ids::GameId::random());
        let new_game = |id: &crate::ids::GameId| GameRow {
            id: id.clone(),
            variant: crate::rules::VariantId::Chess,
            options: crate::rules::Options::new(),
            auth: Auth::Token,
            secrecy: Secrecy::Hold,
            spectator_delay: 0,
            openpgp_tofu: false,
            state: "start".into(),
            turn: 1,
            outcome: None,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        };
        let (a, b) = (new_game(&kept), new_game(&undone));
        let failed: Result<(), StoreError> = store
            .transaction(move |tx| {
                tx.insert_game(&b)?;
                tx.append_event(&b.id, chrono::Utc::now(), "created", &serde_json::json!({}))?;
                Err(StoreError::Corrupt("refused".into()))
            })
            .await;
        assert!(failed.is_err());
        let id = kept.clone();
        store
            .transaction(move |tx| {
                tx.insert_game(&a)?;
                tx.append_event(&id, chrono::Utc::now(), "created", &serde_json::json!({}))?;
                tx.append_event(&id, chrono::Utc::now(), "moved", &serde_json::json!({}))
            })
            .await
            .unwrap();
        store.transaction(|tx| tx.pragma_text("user_version")).await.unwrap();
        assert_eq!(changes.try_recv().unwrap(), kept, "told once, however many entries");
        assert!(changes.try_recv().is_err(), "nothing else: neither the undone game nor a read");
    }

    #[tokio::test]
    async fn a_new_database_gets_the_schema_and_reopens() {
        let dir = std::env::temp_dir().join(format!("fairsteward-store-{}", crate::ids::GameId::random()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("steward.db");
        let store = Store::open(&path).unwrap();
        let mode: String = store.transaction(|tx| tx.pragma_text("journal_mode")).await.unwrap();
        assert_eq!(mode, "wal");
        let sync: String = store.transaction(|tx| tx.pragma_text("synchronous")).await.unwrap();
        assert_eq!(sync, "1", "NORMAL: the sync thread syncs the WAL before anyone hears of a commit");
        drop(store);
        let again = Store::open(&path).unwrap();
        let version: String = again.transaction(|tx| tx.pragma_text("user_version")).await.unwrap();
        assert_eq!(version, migrations::LATEST.to_string());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A kept HTTP request of one or a few bytes.
    fn inbound(body: Vec<u8>) -> InboundRow {
        InboundRow {
            id: 0,
            received_at: chrono::Utc::now(),
            door: "http".into(),
            game_id: None,
            size: body.len() as i64,
            body,
            sealed: false,
            outcome: "accepted".into(),
        }
    }

    /// Writers at once, in shared groups: each hears its result only after the
    /// WAL holding its commit was synced, i.e. after the durable count passed
    /// every commit made before its closure ran.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_answer_comes_before_its_commit_is_synced() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let writers = (0..200u8).map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                let counter = store.clone();
                let before = store
                    .transaction(move |tx| {
                        tx.insert_inbound(&inbound(vec![n]))?;
                        Ok::<_, StoreError>(counter.commits())
                    })
                    .await
                    .unwrap();
                let durable = store.durable_commits();
                assert!(durable > before, "answered with {durable} commits synced; {before} were made before it ran");
            })
        });
        for w in writers.collect::<Vec<_>>() {
            w.await.unwrap();
        }
        assert_eq!(store.durable_commits(), store.commits(), "every commit is synced once all are answered");
    }

    /// A closure nobody else waits with is synced by the store thread itself
    /// (no hand-over to the sync thread): still never answered before its
    /// commit is on disk, one after another, and a failed one is answered too.
    #[tokio::test]
    async fn a_lone_closure_is_answered_only_once_its_commit_is_synced() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        for n in 0..20u8 {
            let counter = store.clone();
            let made = store
                .transaction(move |tx| {
                    tx.insert_inbound(&inbound(vec![n]))?;
                    Ok::<_, StoreError>(counter.commits() + 1)
                })
                .await
                .unwrap();
            assert!(store.durable_commits() >= made, "commit {made} answered before it was synced");
        }
        let refused: Result<(), StoreError> =
            store.transaction(|_| Err(StoreError::Corrupt("on purpose".into()))).await;
        assert!(refused.is_err());
        assert_eq!(store.durable_commits(), store.commits());
    }

    /// A cached statement keeps its plan when bound anew: SQLite would plan a
    /// `WHERE … = ?1 ORDER BY …` statement again at every binding unless the
    /// connection asks for stable plans.
    #[tokio::test]
    async fn a_cached_statement_is_not_planned_again_for_new_values() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let replanned = store
            .transaction(|tx| {
                let sql = "SELECT seq FROM events WHERE game_id = ?1 ORDER BY seq DESC LIMIT 1";
                for game in ["g1", "g2", "g3", "g4"] {
                    let mut stmt = tx.0.prepare_cached(sql)?;
                    let rows = stmt.query_map([game], |r| r.get::<_, i64>(0))?.count();
                    assert_eq!(rows, 0);
                }
                let sql::Stmt::Sqlite(stmt) = tx.0.prepare_cached(sql)? else { unreachable!("a SQLite store") };
                Ok::<_, StoreError>(stmt.get_status(rusqlite::StatementStatus::RePrepare))
            })
            .await
            .unwrap();
        assert_eq!(replanned, 0, "the statement was planned again {replanned} times");
    }

    #[tokio::test]
    async fn the_database_and_its_wal_and_shm_are_the_owners_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("steward.db");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let store = Store::open(&path).unwrap();
        store.transaction(|tx| tx.count_inbound()).await.unwrap();
        for suffix in ["", "-wal", "-shm"] {
            let file = PathBuf::from(format!("{}{suffix}", path.display()));
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
        drop(store);
        // An older store, readable by all, is brought to 0600 when opened.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let _again = Store::open(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[tokio::test]
    async fn a_failed_attempt_is_undone_and_the_transaction_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let before = store.commits();
        let seen = |key: &'static str| move |tx: &Tx<'_>| tx.mail_seen(key);
        store
            .transaction(|tx| {
                tx.mark_mail_seen("kept", chrono::Utc::now(), "accepted")?;
                let failed: Result<(), StoreError> = tx.attempt(|tx| {
                    tx.mark_mail_seen("undone", chrono::Utc::now(), "accepted")?;
                    Err(StoreError::Corrupt("a refusal".into()))
                });
                assert!(failed.is_err());
                tx.attempt(|tx| tx.mark_mail_seen("taken", chrono::Utc::now(), "accepted"))
            })
            .await
            .unwrap();
        assert_eq!(store.commits() - before, 1);
        for (key, want) in [("kept", true), ("undone", false), ("taken", true)] {
            assert_eq!(store.transaction(seen(key)).await.unwrap(), want, "{key}");
        }
    }

    /// Closures that wait together share one commit; one that fails is undone
    /// alone, and every caller hears only after the commit.
    #[test]
    fn closures_waiting_together_share_one_commit() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let before = store.commits();
        // The first closure holds the thread until the others are queued behind it.
        let (started, is_started) = mpsc::channel();
        let (release, held) = mpsc::channel::<()>();
        let (first_done, first) = mpsc::channel();
        store
            .submit(
                move |tx: &Tx<'_>| {
                    started.send(()).unwrap();
                    held.recv().unwrap();
                    tx.mark_mail_seen("first", chrono::Utc::now(), "accepted")
                },
                move |r: Result<(), StoreError>| first_done.send(r.is_ok()).unwrap(),
            )
            .unwrap();
        is_started.recv().unwrap();
        let (done, results) = mpsc::channel();
        for (key, fails) in [("b", false), ("c", true), ("d", false)] {
            let done = done.clone();
            store
                .submit(
                    move |tx: &Tx<'_>| {
                        tx.mark_mail_seen(key, chrono::Utc::now(), "accepted")?;
                        if fails { Err(StoreError::Corrupt("refused".into())) } else { Ok(()) }
                    },
                    move |r: Result<(), StoreError>| done.send((key, r.is_ok())).unwrap(),
                )
                .unwrap();
        }
        release.send(()).unwrap();
        assert!(first.recv().unwrap());
        let mut heard: Vec<_> = (0..3).map(|_| results.recv().unwrap()).collect();
        heard.sort();
        assert_eq!(heard, [("b", true), ("c", false), ("d", true)]);
        assert_eq!(store.commits() - before, 2, "the first alone, then b, c and d together");
        for (key, want) in [("first", true), ("b", true), ("c", false), ("d", true)] {
            assert_eq!(store.transaction_blocking(move |tx| tx.mail_seen(key)).unwrap(), want, "{key}");
        }
    }

    #[tokio::test]
    async fn an_error_rolls_the_transaction_back() {
        let dir = std::env::temp_dir().join(format!("fairsteward-store-{}", crate::ids::GameId::random()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&dir.join("steward.db")).unwrap();
        let before = store.commits();
        let r: Result<(), StoreError> = store
            .transaction(|tx| {
                tx.insert_inbound(&inbound(b"x".to_vec()))?;
                Err(StoreError::Corrupt("abandon".into()))
            })
            .await;
        assert!(r.is_err());
        assert_eq!(store.commits(), before, "a closure alone that fails is rolled back, not committed");
        let n: i64 = store.transaction(|tx| tx.count_inbound()).await.unwrap();
        assert_eq!(n, 0);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
