//! The outbox drainer: sends what the steward queued, after its transaction
//! committed, to the spool or to an SMTP server.
//!
//! **At least once, never lost.** A mail is marked sent only after the sink took
//! it — the spool file is on disk, or the SMTP server answered 250 to its data —
//! so a crash in between sends it again after the restart: with the same bytes
//! and the same Message-ID, so the copy is recognisable (and the spool simply
//! replaces its file). A mail is never dropped: one the server refuses keeps its
//! row, its attempts and the last error, and is tried again later.
//!
//! **Batched bookkeeping.** The rows of delivered mails are marked in one store
//! transaction per page of the queue (at most [`FLUSH_EVERY`] mails), together
//! with the failures and the read of the next page — one commit instead of one
//! per mail. A crash loses at most that batch's marks, which means resends.
//!
//! **Sealed answers.** An answer that may name a pending move is queued sealed
//! to the steward's own key ([`OutboxRow::sealed`]); the drainer opens it in
//! memory just before handing it to the sink, and its row stays sealed after
//! (issue 11 point 3). The spool, though, is the players' delivered mail: what
//! lands there is in clear (mode 0600), as in a mailbox.
//!
//! **Backoff.** When the server is unreachable (or answers 4xx, or the spool or
//! the store fails), the pass stops at the first such failure, records it on that
//! mail (`attempts`, `last_error`) and the whole queue waits 1 s, then 2, 4, … up
//! to 5 minutes, without hammering the server on every new mail; the first
//! delivery resets it. A mail the server refuses for good (5xx, a bad address) is
//! held back on its own with the same doubling and does not hold up the others
//! (held mails are remembered in memory only: a restart tries them once more).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use super::smtp::{Failure, SmtpSink};
use crate::protocol::{StewardKeys, open_record};
use crate::store::{OUTBOX_LABEL, OutboxRow, Store, StoreError};

/// The first wait after a failure.
pub const FIRST_RETRY: Duration = Duration::from_secs(1);
/// The longest wait between attempts.
pub const LAST_RETRY: Duration = Duration::from_secs(5 * 60);
/// How often an idle drainer looks at the queue without being woken.
pub const IDLE_LOOK: Duration = Duration::from_secs(5);
/// Mails read from the queue at a time; also the most marked sent in one commit.
pub const FLUSH_EVERY: usize = 32;
/// How long the last pass at shutdown may take.
const LAST_PASS: Duration = Duration::from_secs(10);

/// Where mails go.
#[derive(Clone, Debug)]
pub enum Sink {
    /// One `.eml` file per message in this directory.
    Spool(PathBuf),
    /// An SMTP server (`[mail.smtp]`).
    Smtp(SmtpSink),
}

impl Sink {
    /// Where mails go, for log lines.
    pub fn describe(&self) -> String {
        match self {
            Sink::Spool(dir) => format!("the spool {}", dir.display()),
            Sink::Smtp(s) => format!("SMTP {}", s.server()),
        }
    }

    /// Hands one mail over (and logs it): `message` is the row's message,
    /// opened if it was sealed. `Ok` only once the sink has it for good.
    async fn deliver(&self, row: &OutboxRow, message: Vec<u8>) -> Result<(), Failure> {
        match self {
            Sink::Spool(dir) => {
                let (dir, id, bytes) = (dir.clone(), row.message_id.clone(), message);
                let path = tokio::task::spawn_blocking(move || super::spool::write(&dir, &id, &bytes))
                    .await
                    .unwrap_or_else(|e| Err(std::io::Error::other(e)))
                    .map_err(|e| Failure::Server(format!("cannot write to the spool: {e}")))?;
                tracing::info!(message_id = %row.message_id, to = %row.recipient, path = %path.display(), "mail spooled");
            }
            Sink::Smtp(smtp) => {
                smtp.send(&row.recipient, &message).await?;
                tracing::info!(message_id = %row.message_id, to = %row.recipient, server = %smtp.server(), "mail sent");
            }
        }
        Ok(())
    }
}

/// A wait that doubles: how long, and until when.
#[derive(Clone, Copy, Debug)]
struct Backoff {
    delay: Duration,
    until: Instant,
}

impl Backoff {
    /// The wait after one more failure, `previous` being the last wait if the
    /// failures go on.
    fn after(previous: Option<Backoff>) -> Backoff {
        let delay = previous.map_or(FIRST_RETRY, |b| (b.delay * 2).min(LAST_RETRY));
        Backoff { delay, until: Instant::now() + delay }
    }
}

/// What one pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    /// Mails the sink took (and that are now marked sent).
    pub delivered: usize,
    /// Mails the server refused for good this time (held back).
    pub refused: usize,
    /// The pass stopped because the server (or the spool) was unavailable.
    pub stopped: bool,
}

/// The drainer's state between passes: the queue-wide pause and the mails held back.
#[derive(Debug)]
pub struct Drainer {
    store: Store,
    sink: Sink,
    /// Opens sealed rows.
    keys: Arc<StewardKeys>,
    /// The whole queue waits (the server was unavailable, or the store failed).
    paused: Option<Backoff>,
    /// Mails the server refused, each waiting on its own, by row id.
    held: HashMap<i64, Backoff>,
}

impl Drainer {
    /// A drainer with nothing paused or held; `keys` open sealed rows.
    pub fn new(store: Store, sink: Sink, keys: Arc<StewardKeys>) -> Drainer {
        Drainer { store, sink, keys, paused: None, held: HashMap::new() }
    }

    /// The bytes to hand over for `row`: its message, opened if sealed.
    fn message_of(&self, row: &OutboxRow) -> Result<Vec<u8>, Failure> {
        if !row.sealed {
            return Ok(row.message.clone());
        }
        open_record(&row.message, &self.keys, OUTBOX_LABEL).map_err(|e| {
            // Sealed to another key (the keys were replaced): it stays queued,
            // held back, for the operator to see in the log.
            tracing::error!(message_id = %row.message_id, error = %e, "a sealed mail cannot be opened with the steward's keys");
            Failure::Mail(format!("the sealed mail cannot be opened with the steward's keys: {e}"))
        })
    }

    /// Whether the queue is waiting out a backoff right now.
    pub fn paused(&self) -> bool {
        self.paused.is_some_and(|b| b.until > Instant::now())
    }

    /// The current queue-wide wait, if the last attempt failed.
    pub fn backoff(&self) -> Option<Duration> {
        self.paused.map(|b| b.delay)
    }

    /// When the next pass is due without a wake-up.
    fn next_look(&self) -> Instant {
        let idle = Instant::now() + IDLE_LOOK;
        if let Some(p) = self.paused {
            return p.until;
        }
        self.held.values().map(|b| b.until).min().map_or(idle, |h| h.min(idle))
    }

    /// One pass over the queue, oldest first: delivers every unsent mail that is
    /// not held back, until the queue is empty or the server is unavailable.
    ///
    /// # Errors
    /// Store failures (then the queue pauses as for an unavailable server).
    pub async fn pass(&mut self) -> Result<Pass, StoreError> {
        let result = self.pass_inner().await;
        match &result {
            Ok(pass) if pass.stopped => {
                // A delivery earlier in this pass means the server was up a moment ago: start over at 1 s.
                self.paused = Some(Backoff::after(if pass.delivered > 0 { None } else { self.paused }));
            }
            Ok(_) => self.paused = None,
            Err(_) => self.paused = Some(Backoff::after(self.paused)),
        }
        if let Some(p) = self.paused {
            tracing::warn!(retry_in = ?p.delay, sink = %self.sink.describe(), "outbox paused; mails wait in the queue");
        }
        result
    }

    async fn pass_inner(&mut self) -> Result<Pass, StoreError> {
        let mut pass = Pass::default();
        let mut page = self.store.transaction(|tx| tx.unsent_mail_after(0, FLUSH_EVERY as u32)).await?;
        loop {
            let Some(last) = page.last().map(|r| r.id) else { return Ok(pass) };
            let full = page.len() == FLUSH_EVERY;
            let mut sent = Vec::new();
            let mut failed = Vec::new();
            for row in &page {
                if self.held.get(&row.id).is_some_and(|b| b.until > Instant::now()) {
                    continue;
                }
                let delivered = match self.message_of(row) {
                    Ok(message) => self.sink.deliver(row, message).await,
                    Err(e) => Err(e),
                };
                match delivered {
                    Ok(()) => {
                        self.held.remove(&row.id);
                        sent.push(row.id);
                    }
                    Err(Failure::Mail(e)) => {
                        let hold = Backoff::after(self.held.get(&row.id).copied());
                        tracing::warn!(message_id = %row.message_id, to = %row.recipient, error = %e, retry_in = ?hold.delay, "mail refused; holding it back");
                        self.held.insert(row.id, hold);
                        failed.push((row.id, e));
                        pass.refused += 1;
                    }
                    Err(Failure::Server(e)) => {
                        tracing::warn!(message_id = %row.message_id, error = %e, "mail delivery failed; the queue waits");
                        failed.push((row.id, e));
                        pass.stopped = true;
                        break;
                    }
                }
            }
            pass.delivered += sent.len();
            // One commit: what was delivered, what failed, and the next page.
            let more = full && !pass.stopped;
            let now = Utc::now();
            page = self
                .store
                .transaction(move |tx| {
                    tx.mark_sent_many(&sent, now)?;
                    for (id, error) in &failed {
                        tx.mark_failed(*id, error)?;
                    }
                    if more { tx.unsent_mail_after(last, FLUSH_EVERY as u32) } else { Ok(Vec::new()) }
                })
                .await?;
        }
    }
}

/// Delivers every unsent mail once, as one pass of a fresh [`Drainer`]; returns
/// how many were delivered.
///
/// # Errors
/// Store failures. A failed delivery is recorded on its row and retried later.
pub async fn drain_once(store: &Store, sink: &Sink, keys: Arc<StewardKeys>) -> Result<usize, StoreError> {
    Drainer::new(store.clone(), sink.clone(), keys).pass().await.map(|p| p.delivered)
}

/// Drains the outbox whenever `wake` is notified, and every few seconds besides,
/// until `shutdown` turns true (or its sender goes away). While the queue waits
/// out a backoff, wake-ups are left for later: new mails join the queue and go
/// with the next attempt.
pub async fn run(
    store: Store,
    sink: Sink,
    keys: Arc<StewardKeys>,
    wake: Arc<Notify>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut drainer = Drainer::new(store, sink, keys);
    loop {
        if !drainer.paused()
            && let Err(e) = drainer.pass().await
        {
            tracing::error!(error = %e, "outbox drain failed");
        }
        let paused = drainer.paused();
        let stop = tokio::select! {
            () = wake.notified(), if !paused => false,
            () = tokio::time::sleep_until(drainer.next_look()) => false,
            changed = shutdown.changed() => changed.is_err() || *shutdown.borrow(),
        };
        if stop {
            // One last pass so nothing committed waits for the next start, unless the
            // server is known to be down; bounded, so shutdown never hangs on it.
            if !drainer.paused() {
                let _ = tokio::time::timeout(LAST_PASS, drainer.pass()).await;
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize) -> OutboxRow {
        OutboxRow {
            id: 0,
            message_id: format!("8KQ2ZJ.{n}.0.turn@steward.example"),
            game_id: "8KQ2ZJ".into(),
            recipient: "alice@example.org".into(),
            subject: format!("mail {n}"),
            message: format!("Subject: mail {n}\r\n\r\nbody {n}\r\n").into_bytes(),
            sealed: false,
        }
    }

    fn keys(dir: &std::path::Path) -> Arc<StewardKeys> {
        Arc::new(StewardKeys::load_or_create(&dir.join("keys")).unwrap())
    }

    #[tokio::test]
    async fn one_pass_pages_through_the_whole_queue_and_marks_it_sent() {
        let dir = std::env::temp_dir().join(format!("fairsteward-outbox-{}", crate::ids::GameId::random()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&dir.join("steward.db")).unwrap();
        let total = 2 * FLUSH_EVERY + 5;
        store
            .transaction(move |tx| {
                for n in 0..total {
                    tx.queue_mail(&row(n), Utc::now())?;
                }
                Ok::<_, StoreError>(())
            })
            .await
            .unwrap();
        let spool = dir.join("spool");
        let mut drainer = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(&dir));
        let pass = drainer.pass().await.unwrap();
        assert_eq!(pass, Pass { delivered: total, refused: 0, stopped: false });
        assert!(!drainer.paused());
        assert_eq!(std::fs::read_dir(&spool).unwrap().count(), total);
        assert!(store.transaction(|tx| tx.unsent_mail(10)).await.unwrap().is_empty(), "every mail marked sent");
        assert_eq!(drainer.pass().await.unwrap(), Pass::default(), "nothing twice");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn a_sink_that_fails_pauses_the_queue_and_records_the_attempt() {
        let dir = std::env::temp_dir().join(format!("fairsteward-outbox-{}", crate::ids::GameId::random()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&dir.join("steward.db")).unwrap();
        store
            .transaction(|tx| {
                tx.queue_mail(&row(1), Utc::now())?;
                tx.queue_mail(&row(2), Utc::now())
            })
            .await
            .unwrap();
        // A spool "directory" that is a file: every write fails.
        let blocked = dir.join("not-a-dir");
        std::fs::write(&blocked, b"x").unwrap();
        let mut drainer = Drainer::new(store.clone(), Sink::Spool(blocked), keys(&dir));
        let pass = drainer.pass().await.unwrap();
        assert_eq!(pass, Pass { delivered: 0, refused: 0, stopped: true });
        assert!(drainer.paused());
        assert_eq!(drainer.backoff(), Some(FIRST_RETRY));
        let pass = drainer.pass().await.unwrap();
        assert!(pass.stopped);
        assert_eq!(drainer.backoff(), Some(FIRST_RETRY * 2), "the wait doubles");
        assert_eq!(store.transaction(|tx| tx.unsent_mail(10)).await.unwrap().len(), 2, "both still queued");
        let conn = rusqlite::Connection::open(dir.join("steward.db")).unwrap();
        let rows: Vec<(i64, Option<String>)> = conn
            .prepare("SELECT attempts, last_error FROM outbox ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows[0].0, 2, "the oldest mail was tried twice: {rows:?}");
        assert!(rows[0].1.as_deref().is_some_and(|e| e.contains("spool")), "{rows:?}");
        assert_eq!(rows[1], (0, None), "the queue waits behind it: {rows:?}");
        // Back to working: the first delivery clears the pause.
        let mut drainer = Drainer { sink: Sink::Spool(dir.join("spool")), ..drainer };
        assert_eq!(drainer.pass().await.unwrap().delivered, 2);
        assert_eq!(drainer.backoff(), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn a_sealed_mail_is_opened_only_as_it_is_handed_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let keys = keys(dir.path());
        let clear = row(7);
        let sealed = OutboxRow {
            message: crate::protocol::seal_record(&clear.message, &keys, OUTBOX_LABEL),
            sealed: true,
            ..clear.clone()
        };
        store.transaction(move |tx| tx.queue_mail(&sealed, Utc::now())).await.unwrap();
        let db = std::fs::read(dir.path().join("steward.db-wal")).unwrap();
        assert!(!db.windows(6).any(|w| w == b"body 7"), "the queued mail is sealed in the store");
        let spool = dir.path().join("spool");
        assert_eq!(drain_once(&store, &Sink::Spool(spool.clone()), keys).await.unwrap(), 1);
        let files: Vec<_> =
            std::fs::read_dir(&spool).unwrap().map(|e| std::fs::read(e.unwrap().path()).unwrap()).collect();
        assert_eq!(files, [clear.message], "handed over opened");
        // Another steward's keys cannot open it: it stays queued, held back.
        let other = Store::open(&dir.path().join("other.db")).unwrap();
        let again = OutboxRow {
            message: crate::protocol::seal_record(
                b"x",
                &StewardKeys::load_or_create(&dir.path().join("k2")).unwrap(),
                OUTBOX_LABEL,
            ),
            sealed: true,
            ..row(8)
        };
        other.transaction(move |tx| tx.queue_mail(&again, Utc::now())).await.unwrap();
        let mut drainer = Drainer::new(other.clone(), Sink::Spool(spool.clone()), self::keys(dir.path()));
        assert_eq!(drainer.pass().await.unwrap(), Pass { delivered: 0, refused: 1, stopped: false });
        assert_eq!(other.transaction(|tx| tx.unsent_mail(10)).await.unwrap().len(), 1, "still queued");
    }

    #[test]
    fn the_backoff_doubles_up_to_five_minutes() {
        let mut b = Backoff::after(None);
        let mut delays = vec![b.delay.as_secs()];
        for _ in 0..10 {
            b = Backoff::after(Some(b));
            delays.push(b.delay.as_secs());
        }
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
    }
}
