//! The drainer: its passes over the queue, its backoffs, its stop at shutdown.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio::sync::watch;
use tokio::time::Instant;

use super::prepare::Page;
use super::*;
use crate::mail::smtp::Failure;
use crate::protocol::StewardKeys;
use crate::render::cache::Pictures;
use crate::store::{PictureFiles, Reader, Store, StoreError};

/// A wait that doubles: how long, and until when.
#[derive(Clone, Copy, Debug)]
pub(super) struct Backoff {
    pub(super) delay: Duration,
    pub(super) until: Instant,
}

impl Backoff {
    /// The wait after one more failure, `previous` being the last wait if the
    /// failures go on.
    pub(super) fn after(previous: Option<Backoff>) -> Backoff {
        let delay = previous.map_or(FIRST_RETRY, |b| (b.delay * 2).min(LAST_RETRY));
        Backoff { delay, until: Instant::now() + delay }
    }
}

/// The drainer's state between passes: the queue-wide pause and the mails held back.
#[derive(Debug)]
pub struct Drainer {
    pub(super) store: Store,
    pub(super) sink: Sink,
    /// Opens sealed rows.
    pub(super) keys: Arc<StewardKeys>,
    /// The whole queue waits (the server was unavailable, or the store failed).
    pub(super) paused: Option<Backoff>,
    /// Mails the server refused, each waiting on its own, by row id.
    pub(super) held: HashMap<i64, Backoff>,
    /// Draws board pictures, a few at a time, off the async threads and at a
    /// lower priority than the moves.
    pub(super) pictures: Pictures,
    /// Where the drawn pictures are kept until their mails are sent.
    pub(super) files: PictureFiles,
    /// Reads the board mails' records as their letters are formatted, beside
    /// the store thread.
    pub(super) reader: Arc<Reader>,
    /// Turns true when the daemon shuts down (`None`: never).
    pub(super) shutdown: Option<watch::Receiver<bool>>,
    /// How long mails may still be handed over after the shutdown began.
    pub(super) last_pass: Duration,
    /// When handing over stops: set when the shutdown is first seen.
    pub(super) cutoff: std::sync::OnceLock<Instant>,
    /// Whether this drainer also takes mails another steward claimed (see
    /// [`super::drain_once`]).
    pub(super) takes_claimed: bool,
    /// Counts the mails handed over and the failed handovers (issue 36).
    pub(super) metrics: Option<crate::metrics::Metrics>,
}

impl Drainer {
    /// A drainer with nothing paused or held; `keys` open sealed rows.
    pub fn new(store: Store, sink: Sink, keys: Arc<StewardKeys>) -> Drainer {
        // In the background: mails' pictures give way to the moves being answered.
        let pictures = Pictures::new(DRAWS_AT_ONCE, FLUSH_EVERY, 0).in_background();
        let files = PictureFiles::of(store.path());
        let reader = Arc::new(Reader::of(&store));
        Drainer {
            store,
            sink,
            keys,
            paused: None,
            held: HashMap::new(),
            pictures,
            files,
            reader,
            shutdown: None,
            last_pass: LAST_PASS,
            cutoff: std::sync::OnceLock::new(),
            takes_claimed: false,
            metrics: None,
        }
    }

    /// This drainer, counting into `metrics` (issue 36).
    pub fn with_metrics(self, metrics: crate::metrics::Metrics) -> Drainer {
        Drainer { metrics: Some(metrics), ..self }
    }

    /// Counts a failed handover: `refused` or `unavailable`.
    fn count_failure(&self, reason: &'static str) {
        if let Some(m) = &self.metrics {
            m.mail_failed(reason);
        }
    }

    /// This drainer, stopping `last_pass` after `shutdown` turns true (or its
    /// sender goes away), even within a pass or a delivery.
    pub fn with_shutdown(self, shutdown: watch::Receiver<bool>, last_pass: Duration) -> Drainer {
        Drainer { shutdown: Some(shutdown), last_pass, ..self }
    }

    /// Whether handing mails over must stop now (the shutdown began
    /// `last_pass` ago).
    pub(super) fn cut_off(&self) -> bool {
        let Some(shutdown) = &self.shutdown else { return false };
        // A sender gone is a shutdown too.
        if !*shutdown.borrow() && shutdown.has_changed().is_ok() {
            return false;
        }
        Instant::now() >= *self.cutoff.get_or_init(|| Instant::now() + self.last_pass)
    }

    /// Completes when handing mails over must stop; never without a shutdown.
    pub(super) async fn cutoff_reached(&self) {
        let Some(shutdown) = &self.shutdown else { return std::future::pending().await };
        let _ = shutdown.clone().wait_for(|stop| *stop).await;
        tokio::time::sleep_until(*self.cutoff.get_or_init(|| Instant::now() + self.last_pass)).await;
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
    pub(super) fn next_look(&self) -> Instant {
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
            // Cut short by the shutdown: no pause, no warning; the rest waits for the next start.
            Ok(pass) if pass.stopped && self.cut_off() => {}
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

    pub(super) async fn pass_inner(&mut self) -> Result<Pass, StoreError> {
        let mut pass = Pass::default();
        let holder: Arc<str> = Arc::from(self.store.instance());
        let claimant = holder.clone();
        let takes_claimed = self.takes_claimed;
        let mut page = self.store.transaction(move |tx| Page::read(tx, 0, &claimant, takes_claimed)).await?;
        loop {
            let Some(last) = page.rows.last().map(|r| r.id) else { return Ok(pass) };
            let full = page.rows.len() == FLUSH_EVERY;
            if self.cut_off() {
                pass.stopped = true;
                return Ok(pass);
            }
            // Stored before any mail carrying them goes out: a resend finds them.
            let pngs = self.prepare(&mut page).await?;
            let mut sent = Vec::new();
            let mut unneeded = Vec::new();
            let mut failed = Vec::new();
            for row in &page.rows {
                if self.held.get(&row.id).is_some_and(|b| b.until > Instant::now()) {
                    continue;
                }
                let png = row.picture.as_ref().map(|p| pngs.get(&p.key));
                let unformatted = page.unformatted.get(&row.id);
                if unformatted.is_none() && (png.is_some_and(|p| p.is_none()) || row.letter.is_some()) {
                    // Its picture waits for the renderer, or its letter to be
                    // formatted: so does the mail.
                    pass.stopped = true;
                    continue;
                }
                if self.cut_off() {
                    pass.stopped = true;
                    break;
                }
                let delivered = match unformatted {
                    Some(e) => Err(Failure::Mail(e.clone())),
                    // A delivery the shutdown cuts off may have arrived: it goes
                    // again at the next start, with the same Message-ID.
                    None => tokio::select! {
                        delivered = self.sink.deliver(row, &self.keys, png.flatten().cloned(), page.encrypt_to.get(&row.id).cloned()) => delivered,
                        () = self.cutoff_reached() => {
                            pass.stopped = true;
                            break;
                        }
                    },
                };
                match delivered {
                    Ok(()) => {
                        self.held.remove(&row.id);
                        sent.push(row.id);
                        unneeded.extend(row.picture.as_ref().map(|p| p.key.clone()));
                    }
                    Err(Failure::Mail(e)) => {
                        let hold = Backoff::after(self.held.get(&row.id).copied());
                        tracing::warn!(message_id = %row.message_id, to = %row.recipient, error = %e, retry_in = ?hold.delay, "mail refused; holding it back");
                        self.held.insert(row.id, hold);
                        self.count_failure("refused");
                        failed.push((row.id, e));
                        pass.refused += 1;
                    }
                    Err(Failure::Server(e)) => {
                        tracing::warn!(message_id = %row.message_id, error = %e, "mail delivery failed; the queue waits");
                        self.count_failure("unavailable");
                        failed.push((row.id, e));
                        pass.stopped = true;
                        break;
                    }
                }
            }
            if !sent.is_empty()
                && let Err(e) = self.sink.settle().await
            {
                // Not durably delivered: they stay unsent and go again (same bytes).
                tracing::warn!(error = %e, mails = sent.len(), "mail delivery failed; the queue waits");
                self.count_failure("unavailable");
                failed.extend(sent.drain(..).map(|id| (id, e.to_string())));
                unneeded.clear();
                pass.stopped = true;
            }
            pass.delivered += sent.len();
            if let Some(m) = &self.metrics {
                m.mails_sent(sent.len());
            }
            // One commit: what was delivered, what failed, and the next page.
            let more = full && !pass.stopped;
            let now = Utc::now();
            let dropped;
            let claimant = holder.clone();
            (page, dropped) = self
                .store
                .transaction(move |tx| {
                    tx.mark_sent_many(&sent, now)?;
                    unneeded.sort_unstable();
                    unneeded.dedup();
                    let dropped =
                        tx.drop_unneeded_pictures(&unneeded.iter().map(String::as_str).collect::<Vec<_>>())?;
                    for (id, error) in &failed {
                        tx.mark_failed(*id, error)?;
                    }
                    Ok::<_, StoreError>((
                        if more { Page::read(tx, last, &claimant, takes_claimed)? } else { Page::empty() },
                        dropped,
                    ))
                })
                .await?;
            if !dropped.is_empty() {
                // A crash before this leaves them to the next start's clean-up.
                let files = self.files.clone();
                let _ = crate::background::run(move || files.remove(&dropped)).await;
            }
        }
    }

    /// Removes the picture files no stored picture names any more (a crash
    /// came between the commit that dropped a picture and its file's removal)
    /// and the temporary files of writes a crash cut short.
    ///
    /// # Errors
    /// Store failures.
    pub async fn remove_unneeded_pictures(&self) -> Result<usize, StoreError> {
        let keys: std::collections::HashSet<String> =
            self.store.transaction(|tx| tx.picture_keys()).await?.into_iter().collect();
        let files = self.files.clone();
        let removed = crate::background::run(move || files.remove_unneeded(|k| keys.contains(k), LEFTOVER_AGE))
            .await
            .map_err(|e| StoreError::Io(self.files.dir().to_owned(), e))?
            .map_err(|e| StoreError::Io(self.files.dir().to_owned(), e))?;
        if removed > 0 {
            tracing::info!(removed, dir = %self.files.dir().display(), "removed pictures no queued mail needs");
        }
        Ok(removed)
    }
}
