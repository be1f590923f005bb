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
//! **Letters.** The steward queues its board mails and notices as what to say
//! ([`OutboxRow::letter`], a [`Letter`]), not as bytes: the templates and
//! lettre's formatting are not paid on the store thread (issue 13 point 1).
//! Before handing a page of mails over, the drainer formats that page's letters
//! in memory; the letter stays queued until its mail is marked sent, and a
//! resend formats it again. A letter formats to the same bytes every time (its
//! date, Message-ID and MIME boundaries are fixed, its record and boards are
//! read from facts that never change), so a resend is byte for byte the first
//! handover without the bytes ever being stored.
//!
//! **Board pictures.** A board mail is queued without its PNG: its row names
//! the picture ([`OutboxRow::picture`]) and its message holds a placeholder
//! (issue 13 point 1). Before handing a page of mails over, the drainer draws
//! the pictures of that page not drawn yet — SVG from the picture's source,
//! then PNG, at most [`DRAWS_AT_ONCE`] at a time, each once however many mails
//! carry it — and writes each to its file ([`PictureFiles`]), synced before any
//! mail carrying it goes out; then it puts each mail's PNG in its place
//! ([`crate::letters::compose::put_picture`]). A resend uses the same file,
//! never a new drawing, so it is byte for byte the same mail. A picture that
//! cannot be drawn is stored as a small stand-in (and a warning logged): the
//! mail goes with its text board, and every resend with the same stand-in. A
//! picture no unsent mail carries any more is dropped in the commit that marks
//! its last mail sent, and its file right after.
//!
//! **In the background.** Formatting letters, drawing pictures, making a mail
//! ready and writing it to the spool run on [`crate::background`]'s threads, at
//! the lowest priority: under load the mails wait and the moves do not.
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
use crate::letters::compose::{ComposeError, Letter, put_picture};
use crate::protocol::{StewardKeys, open_record};
use crate::render::cache::{PictureError, Pictures};
use crate::store::{
    OUTBOX_LABEL, OutboxRow, PictureFiles, PictureSource, Reader, Store, StoreError, StoredPicture, Tx,
};

/// The first wait after a failure.
pub const FIRST_RETRY: Duration = Duration::from_secs(1);
/// The longest wait between attempts.
pub const LAST_RETRY: Duration = Duration::from_secs(5 * 60);
/// How often an idle drainer looks at the queue without being woken.
pub const IDLE_LOOK: Duration = Duration::from_secs(5);
/// Mails read from the queue at a time; also the most marked sent in one commit.
pub const FLUSH_EVERY: usize = 32;
/// How many board pictures the drainer draws at once.
pub const DRAWS_AT_ONCE: usize = 2;
/// How old a temporary picture file must be to be a crash's leftover, not a
/// write in progress (of this drainer or another process's).
const LEFTOVER_AGE: Duration = Duration::from_secs(3600);
/// How long the drainer may go on handing mails over once a shutdown began
/// (issue 29 point 2): then it stops, even within a delivery, and what it has
/// not handed over stays queued for the next start.
pub const LAST_PASS: Duration = Duration::from_secs(10);

/// Where mails go.
#[derive(Clone, Debug)]
pub enum Sink {
    /// One `.eml` file per message in this directory.
    Spool(PathBuf),
    /// An SMTP server (`[mail.smtp]`).
    Smtp(SmtpSink),
}

impl Sink {
    /// Makes every mail delivered so far durable: an SMTP server's 250 already
    /// says so; the spool's renames need a sync of its directory, one for a
    /// whole page of mails rather than one each.
    async fn settle(&self) -> Result<(), Failure> {
        match self {
            Sink::Spool(dir) => {
                let dir = dir.clone();
                tokio::task::spawn_blocking(move || super::spool::sync(&dir))
                    .await
                    .unwrap_or_else(|e| Err(std::io::Error::other(e)))
                    .map_err(|e| Failure::Server(format!("cannot sync the spool: {e}")))
            }
            Sink::Smtp(_) => Ok(()),
        }
    }

    /// Where mails go, for log lines.
    pub fn describe(&self) -> String {
        match self {
            Sink::Spool(dir) => format!("the spool {}", dir.display()),
            Sink::Smtp(s) => format!("SMTP {}", s.server()),
        }
    }

    /// Hands one mail over (and logs it): the row's message, opened with
    /// `keys` if it was sealed, with its stored picture `png` put in — made
    /// ready (and written, to the spool) on a background thread. `Ok` once the
    /// sink has it; for good once [`Sink::settle`] has returned `Ok` after it.
    async fn deliver(&self, row: &OutboxRow, keys: &Arc<StewardKeys>, png: Option<Arc<[u8]>>) -> Result<(), Failure> {
        let (ready, keys) = (row.clone(), keys.clone());
        let message = move || message_of(&ready, &keys, png.as_deref());
        match self {
            Sink::Spool(dir) => {
                let (dir, id) = (dir.clone(), row.message_id.clone());
                let spooled = |e: std::io::Error| Failure::Server(format!("cannot write to the spool: {e}"));
                let write = move || message().and_then(|m| super::spool::write(&dir, &id, &m).map_err(spooled));
                let path = crate::background::run(write).await.map_err(spooled)??;
                tracing::info!(message_id = %row.message_id, to = %row.recipient, path = %path.display(), "mail spooled");
            }
            Sink::Smtp(smtp) => {
                let message = crate::background::run(message)
                    .await
                    .map_err(|e| Failure::Server(format!("cannot make the mail ready: {e}")))??;
                smtp.send(&row.recipient, &message).await?;
                tracing::info!(message_id = %row.message_id, to = %row.recipient, server = %smtp.server(), "mail sent");
            }
        }
        Ok(())
    }
}

/// The bytes to hand over for `row`: its message, opened with `keys` if
/// sealed, with its board picture (`png`, the stored one) put in.
fn message_of(row: &OutboxRow, keys: &StewardKeys, png: Option<&[u8]>) -> Result<Vec<u8>, Failure> {
    if row.letter.is_some() {
        return Err(Failure::Mail("the queued letter was not formatted".into()));
    }
    let message = if row.sealed {
        open_record(&row.message, keys, OUTBOX_LABEL).map_err(|e| {
            // Sealed to another key (the keys were replaced): it stays queued,
            // held back, for the operator to see in the log.
            tracing::error!(message_id = %row.message_id, error = %e, "a sealed mail cannot be opened with the steward's keys");
            Failure::Mail(format!("the sealed mail cannot be opened with the steward's keys: {e}"))
        })?
    } else {
        row.message.clone()
    };
    let (Some(picture), Some(png)) = (&row.picture, png) else { return Ok(message) };
    put_picture(&message, &picture.key, png).ok_or_else(|| {
        tracing::error!(message_id = %row.message_id, picture = %picture.key, "a queued mail lacks the placeholder of its picture");
        Failure::Mail(format!("the queued mail lacks the placeholder of its picture {}", picture.key))
    })
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
    /// Draws board pictures, a few at a time, off the async threads and at a
    /// lower priority than the moves.
    pictures: Pictures,
    /// Where the drawn pictures are kept until their mails are sent.
    files: PictureFiles,
    /// Reads the board mails' records as their letters are formatted, beside
    /// the store thread.
    reader: Arc<Reader>,
    /// Turns true when the daemon shuts down (`None`: never).
    shutdown: Option<watch::Receiver<bool>>,
    /// How long mails may still be handed over after the shutdown began.
    last_pass: Duration,
    /// When handing over stops: set when the shutdown is first seen.
    cutoff: std::sync::OnceLock<Instant>,
}

/// A picture a mail carries, as the drainer has it.
struct FetchedPicture {
    png: Arc<[u8]>,
    /// Drawn and written now: its name is durable once the directory is synced.
    written: bool,
    /// Why it could not be drawn (`png` is then a stand-in).
    failed: Option<String>,
}

/// A page of the queue: its mails and the stored pictures they carry.
struct Page {
    rows: Vec<OutboxRow>,
    pictures: HashMap<String, StoredPicture>,
    /// Why a queued letter of the page could not be formatted, by row id.
    unformatted: HashMap<i64, String>,
}

impl Page {
    /// The page of unsent mails after row `after`, with their pictures.
    fn read(tx: &Tx<'_>, after: i64) -> Result<Page, StoreError> {
        let rows = tx.unsent_mail_after(after, FLUSH_EVERY as u32)?;
        let keys: Vec<&str> = rows.iter().filter_map(|r| r.picture.as_ref().map(|p| p.key.as_str())).collect();
        let pictures = tx.pictures(&keys)?;
        Ok(Page { rows, pictures, unformatted: HashMap::new() })
    }

    fn empty() -> Page {
        Page { rows: Vec::new(), pictures: HashMap::new(), unformatted: HashMap::new() }
    }
}

impl Drainer {
    /// A drainer with nothing paused or held; `keys` open sealed rows.
    pub fn new(store: Store, sink: Sink, keys: Arc<StewardKeys>) -> Drainer {
        // In the background: mails' pictures give way to the moves being answered.
        let pictures = Pictures::new(DRAWS_AT_ONCE, FLUSH_EVERY, 0).in_background();
        let files = PictureFiles::of(store.path());
        let reader = Arc::new(Reader::new(store.path()));
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
        }
    }

    /// This drainer, stopping `last_pass` after `shutdown` turns true (or its
    /// sender goes away), even within a pass or a delivery.
    pub fn with_shutdown(self, shutdown: watch::Receiver<bool>, last_pass: Duration) -> Drainer {
        Drainer { shutdown: Some(shutdown), last_pass, ..self }
    }

    /// Whether handing mails over must stop now (the shutdown began
    /// `last_pass` ago).
    fn cut_off(&self) -> bool {
        let Some(shutdown) = &self.shutdown else { return false };
        // A sender gone is a shutdown too.
        if !*shutdown.borrow() && shutdown.has_changed().is_ok() {
            return false;
        }
        Instant::now() >= *self.cutoff.get_or_init(|| Instant::now() + self.last_pass)
    }

    /// Completes when handing mails over must stop; never without a shutdown.
    async fn cutoff_reached(&self) {
        let Some(shutdown) = &self.shutdown else { return std::future::pending().await };
        let _ = shutdown.clone().wait_for(|stop| *stop).await;
        tokio::time::sleep_until(*self.cutoff.get_or_init(|| Instant::now() + self.last_pass)).await;
    }

    /// Makes the mails of `page` (but those held back) ready to hand over:
    /// formats their queued letters into `page` (in memory: a letter formats to
    /// the same bytes every time), and returns the PNG of every picture they
    /// carry, read from its file or drawn into it (the files synced) — all
    /// before any of these mails goes out, so a resend is byte for byte the
    /// same. A picture left out could not be drawn or written now: its mails
    /// wait; a letter that cannot be formatted is in `page.unformatted`.
    ///
    /// # Errors
    /// Store failures.
    async fn prepare(&self, page: &mut Page) -> Result<HashMap<String, Arc<[u8]>>, StoreError> {
        let now = Instant::now();
        let held = |row: &OutboxRow| self.held.get(&row.id).is_some_and(|b| b.until > now);
        let letters: Vec<(i64, String)> =
            page.rows.iter().filter(|r| !held(r)).filter_map(|r| Some((r.id, r.letter.clone()?))).collect();
        // Formatted off the async threads, at the lowest priority; each letter
        // also gives its picture's source when it keeps it.
        let formatted: Vec<Formatted> = if letters.is_empty() {
            Vec::new()
        } else {
            let reader = self.reader.clone();
            let format = move || letters.into_iter().map(|(id, json)| format_letter(&reader, id, &json)).collect();
            crate::background::run(format).await.unwrap_or_else(|e| {
                // Its mails wait for the next pass.
                tracing::warn!(error = %e, "cannot format queued letters now");
                Vec::new()
            })
        };
        let from_letters: HashMap<String, Arc<PictureSource>> =
            formatted.iter().filter_map(|f| f.picture.clone()).collect();
        let mut ready = HashMap::new();
        let mut to_fetch = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for row in &page.rows {
            let Some(picture) = &row.picture else { continue };
            if held(row) || !seen.insert(picture.key.as_str()) {
                continue;
            }
            match (page.pictures.get(&picture.key), from_letters.get(&picture.key)) {
                (Some(StoredPicture::Drawn(png)), _) => {
                    ready.insert(picture.key.clone(), png.clone());
                }
                (Some(StoredPicture::Source(source)), _) | (None, Some(source)) => {
                    to_fetch.push((picture.key.clone(), source.clone()));
                }
                // Its letter could not be read now: the mail waits.
                (None, None) if row.letter.is_some() && !formatted.iter().any(|f| f.id == row.id) => {}
                (None, None) => {
                    tracing::warn!(picture = %picture.key, message_id = %row.message_id, "a queued mail's picture is not stored; it goes with a stand-in image");
                    ready.insert(picture.key.clone(), Arc::from(crate::render::png::STAND_IN));
                }
            }
        }
        if to_fetch.is_empty() && formatted.is_empty() {
            return Ok(ready);
        }
        // Drawn off the async threads, at the lowest priority, a few at a time
        // (the permits of `pictures`).
        let fetched =
            futures_util::future::join_all(to_fetch.into_iter().map(|(key, source)| self.picture(key, source))).await;
        let mut failed = Vec::new();
        let mut written = false;
        let mut fetched_ready = HashMap::new();
        for (key, picture) in fetched {
            let Some(picture) = picture else { continue };
            written |= picture.written;
            failed.extend(picture.failed.map(|why| (key.clone(), why)));
            fetched_ready.insert(key, picture.png);
        }
        if written {
            let files = self.files.clone();
            match crate::background::run(move || files.sync()).await {
                Ok(Ok(())) => ready.extend(fetched_ready),
                // Their mails wait for the next pass.
                Ok(Err(e)) => tracing::warn!(error = %e, "cannot sync the pictures' directory"),
                Err(e) => tracing::warn!(error = %e, "cannot sync the pictures' directory now"),
            }
        } else {
            ready.extend(fetched_ready);
        }
        let mut messages = HashMap::new();
        for Formatted { id, message, .. } in formatted {
            let Some(message) = message else { continue };
            match message {
                Ok(message) => {
                    messages.insert(id, message);
                }
                Err(e) => {
                    tracing::error!(row = id, error = %e, "a queued letter cannot be formatted");
                    page.unformatted.insert(id, format!("the queued letter cannot be formatted: {e}"));
                }
            }
        }
        if !failed.is_empty() {
            self.store
                .transaction(move |tx| {
                    for (key, why) in &failed {
                        tx.note_picture_failed(key, why)?;
                    }
                    Ok::<_, StoreError>(())
                })
                .await?;
        }
        // The bytes stay in memory: the letter stays queued until its mail is
        // marked sent, and a resend formats it again, to the same bytes.
        for row in &mut page.rows {
            if let Some(message) = messages.remove(&row.id) {
                row.message = message;
                row.letter = None;
            }
        }
        Ok(ready)
    }

    /// The PNG of picture `key`: its file, or drawn from `source` and written
    /// to its file (a stand-in, when it cannot be drawn). `None` when it cannot
    /// be had now (the renderer is busy, a file cannot be read or written):
    /// its mails wait for the next pass.
    async fn picture(&self, key: String, source: Arc<PictureSource>) -> (String, Option<FetchedPicture>) {
        let files = self.files.clone();
        let k = key.clone();
        match crate::background::run(move || files.read(&k)).await {
            Ok(Ok(Some(png))) => {
                return (key, Some(FetchedPicture { png: png.into(), written: false, failed: None }));
            }
            Ok(Ok(None)) => {}
            Ok(Err(e)) => {
                tracing::warn!(picture = %key, error = %e, "cannot read a drawn picture; its mails wait");
                return (key, None);
            }
            Err(_) => return (key, None),
        }
        let size_px = source.size_px;
        let drawn = match crate::background::run(move || source.drawing()).await {
            Ok(Ok(drawing)) => self.pictures.png(drawing, size_px).await.map_err(|e| match e {
                PictureError::Busy => None,
                PictureError::Render(e) => Some(e.to_string()),
            }),
            Ok(Err(e)) => Err(Some(e.to_string())),
            Err(_) => Err(None),
        };
        let (png, failed) = match drawn {
            Ok(png) => (png, None),
            Err(None) => return (key, None),
            Err(Some(e)) => {
                tracing::warn!(picture = %key, error = %e, "cannot draw a board picture; its mails go with the text board and a stand-in image");
                (Arc::from(crate::render::png::STAND_IN), Some(e))
            }
        };
        let (files, k, bytes) = (self.files.clone(), key.clone(), png.clone());
        match crate::background::run(move || files.write(&k, &bytes)).await {
            Ok(Ok(())) => (key, Some(FetchedPicture { png, written: true, failed })),
            Ok(Err(e)) => {
                tracing::warn!(picture = %key, error = %e, "cannot write a drawn picture; its mails wait");
                (key, None)
            }
            Err(_) => (key, None),
        }
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

    async fn pass_inner(&mut self) -> Result<Pass, StoreError> {
        let mut pass = Pass::default();
        let mut page = self.store.transaction(|tx| Page::read(tx, 0)).await?;
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
                        delivered = self.sink.deliver(row, &self.keys, png.flatten().cloned()) => delivered,
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
            if !sent.is_empty()
                && let Err(e) = self.sink.settle().await
            {
                // Not durably delivered: they stay unsent and go again (same bytes).
                tracing::warn!(error = %e, mails = sent.len(), "mail delivery failed; the queue waits");
                failed.extend(sent.drain(..).map(|id| (id, e.to_string())));
                unneeded.clear();
                pass.stopped = true;
            }
            pass.delivered += sent.len();
            // One commit: what was delivered, what failed, and the next page.
            let more = full && !pass.stopped;
            let now = Utc::now();
            let dropped;
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
                    Ok::<_, StoreError>((if more { Page::read(tx, last)? } else { Page::empty() }, dropped))
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

/// A queued letter as the drainer formatted it.
struct Formatted {
    /// Its outbox row.
    id: i64,
    /// Its bytes, or why it cannot be formatted; `None` when its record cannot
    /// be read now (the letter waits for the next pass).
    message: Option<Result<Vec<u8>, ComposeError>>,
    /// Its picture's key and source, when the letter keeps them.
    picture: Option<(String, Arc<PictureSource>)>,
}

/// The queued letter `json` of row `id` formatted, its record read with
/// `reader` if it has one.
fn format_letter(reader: &Reader, id: i64, json: &str) -> Formatted {
    let letter = match Letter::from_json(json) {
        Ok(letter) => letter,
        Err(e) => return Formatted { id, message: Some(Err(e)), picture: None },
    };
    let picture = letter.picture_source().map(|(key, source)| (key.to_owned(), Arc::new(source)));
    let settled = match letter.record_query().map(|q| q.game_id().map(|game| (game, q.through))) {
        None => Ok(None),
        Some(Err(e)) => Err(ComposeError::Context(format!("the record's game: {e}"))),
        Some(Ok((game, through))) => match reader.settled_moves(&game, through) {
            Ok(moves) => Ok(Some(moves)),
            Err(e) => {
                tracing::warn!(row = id, error = %e, "cannot read a board mail's record now; it waits");
                return Formatted { id, message: None, picture };
            }
        },
    };
    Formatted { id, message: Some(settled.and_then(|s| letter.format_with(s))), picture }
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
    let mut drainer = Drainer::new(store, sink, keys).with_shutdown(shutdown.clone(), LAST_PASS);
    if let Err(e) = drainer.remove_unneeded_pictures().await {
        tracing::warn!(error = %e, "cannot look for pictures no queued mail needs");
    }
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
            // server is known to be down; it hands over nothing after the cutoff
            // (and the timeout is a backstop for the pictures and the store).
            if !drainer.paused() {
                let _ = tokio::time::timeout(LAST_PASS + Duration::from_secs(5), drainer.pass()).await;
            }
            tracing::info!("outbox drainer stopped; what was not handed over stays queued for the next start");
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize) -> OutboxRow {
        OutboxRow::sample(n, None)
    }

    pub(super) fn keys(dir: &std::path::Path) -> Arc<StewardKeys> {
        Arc::new(StewardKeys::load_or_create(&dir.join("keys")).unwrap())
    }

    /// A store in `dir` with `total` mails queued.
    async fn queued(dir: &std::path::Path, total: usize) -> Store {
        let store = Store::open(&dir.join("steward.db")).unwrap();
        store
            .transaction(move |tx| {
                for n in 0..total {
                    tx.queue_mail(&row(n), Utc::now())?;
                }
                Ok::<_, StoreError>(())
            })
            .await
            .unwrap();
        store
    }

    #[tokio::test]
    async fn one_pass_pages_through_the_whole_queue_and_marks_it_sent() {
        // Removed when dropped: the store's threads may still touch its files
        // as the test ends, which made a removal here fail now and then.
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let total = 2 * FLUSH_EVERY + 5;
        let store = queued(dir, total).await;
        let spool = dir.join("spool");
        let mut drainer = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir));
        let pass = drainer.pass().await.unwrap();
        assert_eq!(pass, Pass { delivered: total, refused: 0, stopped: false });
        assert!(!drainer.paused());
        assert_eq!(std::fs::read_dir(&spool).unwrap().count(), total);
        assert!(store.transaction(|tx| tx.unsent_mail(10)).await.unwrap().is_empty(), "every mail marked sent");
        assert_eq!(drainer.pass().await.unwrap(), Pass::default(), "nothing twice");
    }

    /// Issue 29 point 2: a shutdown stops a drainer stuck on a server that
    /// never answers, with a large queue, within its last pass; every mail
    /// stays queued.
    #[tokio::test]
    async fn a_shutdown_cuts_a_stuck_pass_short_and_leaves_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        let total = 2000;
        let store = queued(dir.path(), total).await;
        // An SMTP server that accepts and never says a word.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = silent.local_addr().unwrap().port();
        let held = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = silent.accept().await {
                open.push(socket);
            }
        });
        let raw = format!("host = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\ntimeout_seconds = 60");
        let config = super::super::smtp::SmtpConfig::from_raw(toml::from_str(&raw).unwrap()).unwrap();
        let sink = Sink::Smtp(SmtpSink::new(&config, &"moves@steward.example".parse().unwrap()).unwrap());
        let (stop, stopping) = watch::channel(false);
        let mut drainer =
            Drainer::new(store.clone(), sink, keys(dir.path())).with_shutdown(stopping, Duration::from_millis(300));
        let pass = tokio::spawn(async move { drainer.pass().await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!pass.is_finished(), "the pass waits on the silent server");
        let began = std::time::Instant::now();
        stop.send(true).unwrap();
        let pass = tokio::time::timeout(Duration::from_secs(5), pass)
            .await
            .expect("the pass stops soon after the cutoff, not at the server's 60 s timeout")
            .unwrap()
            .unwrap();
        assert!(began.elapsed() >= Duration::from_millis(250), "it went on until the cutoff");
        assert_eq!((pass.delivered, pass.stopped), (0, true));
        assert_eq!(store.transaction(|tx| tx.unsent_mail(5000)).await.unwrap().len(), total, "all still queued");
        held.abort();
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

#[cfg(test)]
mod picture_tests {
    use lettre::message::Mailbox;
    use mail_parser::MimeHeaders;

    use super::tests::keys;
    use super::*;
    use crate::letters::compose::{Draft, Extras, MailKind, queue};
    use crate::render::source::start_of;
    use crate::rules::VariantId;
    use crate::store::BoardPicture;

    /// The picture of the chess start seen from `seat`, as the steward makes it.
    fn start_picture(seat: u8) -> BoardPicture {
        BoardPicture::new(start_of(VariantId::Chess, seat, 320))
    }

    /// A board mail of turn `turn` to `seat` carrying `picture`, queued as its
    /// letter, with a text board of its own: the store keeps the picture's
    /// source (as for mails queued by earlier versions).
    fn board_mail(turn: u32, seat: usize, picture: &BoardPicture) -> OutboxRow {
        board_mail_with(turn, seat, picture, false)
    }

    /// [`board_mail`] whose letter keeps its picture's source as its text
    /// board's, as the steward queues board mails now: no `pictures` row.
    fn letter_board_mail(turn: u32, seat: usize, picture: &BoardPicture) -> OutboxRow {
        board_mail_with(turn, seat, picture, true)
    }

    fn board_mail_with(turn: u32, seat: usize, picture: &BoardPicture, letter_keeps_source: bool) -> OutboxRow {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: crate::ids::GameId = "8KQ2ZJ".parse().unwrap();
        let (context, text_board) = if letter_keeps_source {
            (minijinja::context! { game => "8KQ2ZJ", turn => turn }, picture.source.clone())
        } else {
            (minijinja::context! { game => "8KQ2ZJ", turn => turn, board => "  1  R N B Q K B N R  1" }, None)
        };
        queue(Draft {
            from: &from,
            game: &game,
            turn,
            seat,
            kind: MailKind::Turn,
            to_name: "Alice",
            to_email: "alice@example.org",
            subject: format!("Game 8KQ2ZJ: turn {turn}"),
            template: "turn.txt",
            context,
            date: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            extras: Extras { html: Some("turn.html"), picture: Some(picture.clone()), text_board, ..Extras::default() },
        })
        .unwrap()
    }

    /// The PNG of the board image part of a delivered mail.
    fn image_of(message: &[u8]) -> Vec<u8> {
        let mail = mail_parser::MessageParser::default().parse(message).unwrap();
        let image = mail.parts.iter().find(|p| p.content_id() == Some("board")).expect("the board image part");
        image.contents().to_vec()
    }

    /// Every `outbox.message` cell, as stored.
    fn stored_messages(db: &std::path::Path) -> Vec<Vec<u8>> {
        let conn = rusqlite::Connection::open(db).unwrap();
        let mut stmt = conn.prepare("SELECT message FROM outbox ORDER BY id").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    }

    #[tokio::test]
    async fn a_board_mail_is_queued_without_its_png_and_delivered_with_it_drawn_once() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("steward.db");
        let store = Store::open(&db).unwrap();
        let (white, black) = (start_picture(0), start_picture(1));
        // Two mails of the same position and view, one of the other view.
        let rows = [board_mail(1, 0, &white), board_mail(2, 0, &white), board_mail(1, 1, &black)];
        store.transaction(move |tx| rows.iter().try_for_each(|r| tx.queue_mail(r, Utc::now()))).await.unwrap();
        for message in stored_messages(&db) {
            assert!(!message.windows(4).any(|w| w == b"\x89PNG"), "no PNG in the row");
            assert!(!message.windows(11).any(|w| w == b"iVBORw0KGgo"), "no base64 PNG in the row");
            assert!(message.len() < 8 * 1024, "{} bytes", message.len());
        }
        assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (2, 0), "one picture per view");

        let spool = dir.path().join("spool");
        assert_eq!(drain_once(&store, &Sink::Spool(spool.clone()), keys(dir.path())).await.unwrap(), 3);
        let read = |name: &str| std::fs::read(crate::mail::spool::file_for(&spool, name)).unwrap();
        let (a, b, c) = (
            read("8KQ2ZJ.1.0.turn@steward.example"),
            read("8KQ2ZJ.2.0.turn@steward.example"),
            read("8KQ2ZJ.1.1.turn@steward.example"),
        );
        let source = |p: &BoardPicture| p.source.clone().unwrap();
        let parts = crate::render::png::Parts::default();
        let drawn = |p: &BoardPicture| {
            crate::render::png::drawing_png(&source(p).drawing().unwrap(), source(p).size_px, &parts).unwrap()
        };
        assert_eq!(image_of(&a), drawn(&white), "the delivered mail carries its picture");
        assert_eq!(image_of(&b), drawn(&white));
        assert_eq!(image_of(&c), drawn(&black), "the other side's view");
        assert_ne!(drawn(&white), drawn(&black));
        assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (0, 0), "no unsent mail needs them");
        let files = PictureFiles::of(&db);
        assert_eq!(std::fs::read_dir(files.dir()).unwrap().count(), 0, "nor their files");
    }

    /// A board mail whose letter keeps its picture's source: nothing is kept
    /// in `pictures` as it is queued; the drainer draws the picture from the
    /// letter, once per view, keeps its file while an unsent mail needs it (a
    /// start's clean-up included), and removes it once none does.
    #[tokio::test]
    async fn a_letter_keeps_its_picture_source_and_the_drainer_draws_from_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("steward.db");
        let store = Store::open(&db).unwrap();
        let (white, black) = (start_picture(0), start_picture(1));
        let rows = [letter_board_mail(1, 0, &white), letter_board_mail(2, 0, &white), letter_board_mail(1, 1, &black)];
        assert!(rows.iter().all(|r| r.picture.as_ref().is_some_and(|p| p.source.is_none())), "kept by the letter");
        store.transaction(move |tx| rows.iter().try_for_each(|r| tx.queue_mail(r, Utc::now()))).await.unwrap();
        assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (0, 0), "no row on the move's path");

        // A page made ready: the pictures drawn into their files from the letters.
        let drainer = Drainer::new(store.clone(), Sink::Spool(dir.path().join("spool")), keys(dir.path()));
        let mut page = store.transaction(|tx| Page::read(tx, 0)).await.unwrap();
        let pngs = drainer.prepare(&mut page).await.unwrap();
        assert_eq!(pngs.len(), 2, "one picture per view");
        let files = PictureFiles::of(&db);
        assert_eq!(drainer.remove_unneeded_pictures().await.unwrap(), 0, "unsent mails need both files");
        assert!(files.read(&white.key).unwrap().is_some() && files.read(&black.key).unwrap().is_some());

        let spool = dir.path().join("spool");
        assert_eq!(drain_once(&store, &Sink::Spool(spool.clone()), keys(dir.path())).await.unwrap(), 3);
        let read = |name: &str| std::fs::read(crate::mail::spool::file_for(&spool, name)).unwrap();
        let source = |p: &BoardPicture| p.source.clone().unwrap();
        let parts = crate::render::png::Parts::default();
        let drawn = |p: &BoardPicture| {
            crate::render::png::drawing_png(&source(p).drawing().unwrap(), source(p).size_px, &parts).unwrap()
        };
        assert_eq!(image_of(&read("8KQ2ZJ.1.0.turn@steward.example")), drawn(&white));
        assert_eq!(image_of(&read("8KQ2ZJ.2.0.turn@steward.example")), drawn(&white));
        assert_eq!(image_of(&read("8KQ2ZJ.1.1.turn@steward.example")), drawn(&black), "the other side's view");
        assert_eq!(std::fs::read_dir(files.dir()).unwrap().count(), 0, "no unsent mail needs the files");
    }

    #[tokio::test]
    async fn a_resend_after_a_crash_is_byte_for_byte_the_same_from_the_stored_picture() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let picture = start_picture(0);
        let row = board_mail(1, 0, &picture);
        store.transaction(move |tx| tx.queue_mail(&row, Utc::now())).await.unwrap();
        let spool = dir.path().join("spool");
        let sink = Sink::Spool(spool.clone());

        // The first drainer draws and stores the picture and hands the mail over,
        // then "crashes" before the commit that marks it sent.
        let first = Drainer::new(store.clone(), sink.clone(), keys(dir.path()));
        let mut page = store.transaction(|tx| Page::read(tx, 0)).await.unwrap();
        assert!(page.rows[0].letter.is_some() && page.rows[0].message.is_empty(), "queued as its letter");
        let pngs = first.prepare(&mut page).await.unwrap();
        let row = &page.rows[0];
        assert!(row.letter.is_none() && !row.message.is_empty(), "formatted for the handover");
        let stored = store.transaction(|tx| Page::read(tx, 0)).await.unwrap();
        assert!(stored.rows[0].letter.is_some(), "the letter stays queued until the mail is sent");
        assert!(stored.rows[0].message.is_empty(), "the bytes are not stored: a resend formats them again");
        first.sink.deliver(row, &first.keys, Some(pngs[&picture.key].clone())).await.unwrap();
        drop(first);
        let file = crate::mail::spool::file_for(&spool, &row.message_id);
        let delivered = std::fs::read(&file).unwrap();
        let files = PictureFiles::of(store.path());
        let png = files.read(&picture.key).unwrap().expect("the drawn picture's file");
        assert_eq!(image_of(&delivered), png, "the picture delivered is the one stored");
        assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (1, 0), "no PNG in the database");

        // A new drainer (a restart) sends it again: the same bytes, the same Message-ID.
        std::fs::remove_file(&file).unwrap();
        let mut again = Drainer::new(store.clone(), sink.clone(), keys(dir.path()));
        assert_eq!(again.pass().await.unwrap().delivered, 1);
        assert_eq!(std::fs::read(&file).unwrap(), delivered, "the resend is byte for byte the same");
        assert_eq!(store.transaction(|tx| tx.count_pictures()).await.unwrap(), (0, 0));
        assert_eq!(files.read(&picture.key).unwrap(), None, "its file went with it");

        // A picture whose file is gone (a database restored without them) is
        // drawn again from its source: the same bytes.
        let row = board_mail(2, 0, &picture);
        store.transaction(move |tx| tx.queue_mail(&row, Utc::now())).await.unwrap();
        let mut page = store.transaction(|tx| Page::read(tx, 0)).await.unwrap();
        again.prepare(&mut page).await.unwrap();
        std::fs::remove_file(files.dir().join(format!("{}.png", picture.key))).unwrap();
        assert_eq!(again.pass().await.unwrap().delivered, 1);
        let redrawn = std::fs::read(crate::mail::spool::file_for(&spool, "8KQ2ZJ.2.0.turn@steward.example")).unwrap();
        assert_eq!(image_of(&redrawn), png);
    }

    #[tokio::test]
    async fn a_start_removes_the_picture_files_no_queued_mail_needs() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let (needed, orphan) = (start_picture(0), start_picture(1));
        let row = board_mail(1, 0, &needed);
        store.transaction(move |tx| tx.queue_mail(&row, Utc::now())).await.unwrap();
        let files = PictureFiles::of(store.path());
        files.write(&needed.key, b"needed").unwrap();
        files.write(&orphan.key, b"left by a crash").unwrap();
        let drainer = Drainer::new(store.clone(), Sink::Spool(dir.path().join("spool")), keys(dir.path()));
        assert_eq!(drainer.remove_unneeded_pictures().await.unwrap(), 1);
        assert_eq!(files.read(&needed.key).unwrap().as_deref(), Some(&b"needed"[..]));
        assert_eq!(files.read(&orphan.key).unwrap(), None);
    }

    #[tokio::test]
    async fn a_picture_that_cannot_be_drawn_is_decided_once_and_the_mail_still_goes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        // Not a position of its variant: no board can be made of it.
        let broken = BoardPicture::new(crate::render::source::PictureSource {
            state: "not a position".into(),
            ..start_of(VariantId::Chess, 0, 320)
        });
        let rows = [board_mail(1, 0, &broken), board_mail(2, 0, &broken)];
        store.transaction(move |tx| rows.iter().try_for_each(|r| tx.queue_mail(r, Utc::now()))).await.unwrap();
        let spool = dir.path().join("spool");
        let drainer = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir.path()));
        let mut page = store.transaction(|tx| Page::read(tx, 0)).await.unwrap();
        let pngs = drainer.prepare(&mut page).await.unwrap();
        assert_eq!(&*pngs[&broken.key], crate::render::png::STAND_IN);
        let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
        let (source, failed): (Option<String>, Option<String>) = conn
            .query_row("SELECT source, failed FROM pictures WHERE key = ?1", [&broken.key], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert!(source.is_some() && failed.is_some(), "the failure is stored: {failed:?}");
        let file = PictureFiles::of(store.path()).read(&broken.key).unwrap();
        assert_eq!(file.as_deref(), Some(crate::render::png::STAND_IN), "every resend carries the same stand-in");
        assert_eq!(drain_once(&store, &Sink::Spool(spool.clone()), keys(dir.path())).await.unwrap(), 2);
        let mail = std::fs::read(crate::mail::spool::file_for(&spool, "8KQ2ZJ.1.0.turn@steward.example")).unwrap();
        assert_eq!(image_of(&mail), crate::render::png::STAND_IN);
        let parsed = mail_parser::MessageParser::default().parse(&mail).unwrap();
        assert!(parsed.body_text(0).unwrap().contains("R N B Q K B N R"), "the text board goes");
    }

    #[tokio::test]
    async fn a_letter_that_cannot_be_formatted_is_held_back_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let damaged = OutboxRow {
            message: Vec::new(),
            letter: Some("{\"not\": \"a letter\"}".into()),
            ..OutboxRow::sample(1, None)
        };
        let fine = board_mail(2, 0, &start_picture(0));
        store
            .transaction(move |tx| [damaged, fine].iter().try_for_each(|r| tx.queue_mail(r, Utc::now())))
            .await
            .unwrap();
        let spool = dir.path().join("spool");
        let mut drainer = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir.path()));
        assert_eq!(drainer.pass().await.unwrap(), Pass { delivered: 1, refused: 1, stopped: false });
        let left = store.transaction(|tx| tx.unsent_mail(10)).await.unwrap();
        assert_eq!(left.len(), 1, "the damaged one stays queued");
        assert_eq!(left[0].letter.as_deref(), Some("{\"not\": \"a letter\"}"), "as it was");
        let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
        let error: String =
            conn.query_row("SELECT last_error FROM outbox WHERE id = ?1", [left[0].id], |r| r.get(0)).unwrap();
        assert!(error.contains("cannot be formatted"), "{error}");
        assert!(crate::mail::spool::file_for(&spool, "8KQ2ZJ.2.0.turn@steward.example").exists());
    }

    /// Two drainers at once (`fairsteward sweep` beside the daemon): one read
    /// a letter's row, the other formatted and sent it meanwhile, which drops
    /// the letter. The late one formats the letter it read to the same bytes:
    /// at worst the same mail again, never an empty or a different one (an
    /// earlier version dropped stored bytes and overwrote the spooled mail
    /// with an empty file).
    #[tokio::test]
    async fn a_letter_another_drainer_sent_meanwhile_is_not_sent_again_empty() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let mail = board_mail(3, 1, &start_picture(1));
        store.transaction(move |tx| tx.queue_mail(&mail, Utc::now())).await.unwrap();
        let spool = dir.path().join("spool");
        let late = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir.path()));
        let mut stale = store.transaction(|tx| Page::read(tx, 0)).await.unwrap();
        assert!(stale.rows[0].letter.is_some(), "read while still a letter");
        let mut first = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir.path()));
        assert_eq!(first.pass().await.unwrap().delivered, 1);
        let file = crate::mail::spool::file_for(&spool, "8KQ2ZJ.3.1.turn@steward.example");
        let sent = std::fs::read(&file).unwrap();
        assert!(sent.len() > 1000, "the mail, picture and all");
        let pngs = late.prepare(&mut stale).await.unwrap();
        let row = &stale.rows[0];
        late.sink.deliver(row, &late.keys, row.picture.as_ref().map(|p| pngs[&p.key].clone())).await.unwrap();
        let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
        let (kept, letter): (Vec<u8>, Option<String>) =
            conn.query_row("SELECT message, letter FROM outbox", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert!(kept.is_empty() && letter.is_none(), "a sent mail's bytes and letter stay dropped");
        assert_eq!(std::fs::read(&file).unwrap(), sent, "the spooled mail as it was, byte for byte");
    }
}
