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
//! to the steward's own key ([`OutboxRow::sealed`](crate::store::OutboxRow::sealed)); the drainer opens it in
//! memory just before handing it to the sink, and its row stays sealed after
//! (issue 11 point 3). The spool, though, is the players' delivered mail: what
//! lands there is in clear (mode 0600), as in a mailbox.
//!
//! **Letters.** The steward queues its board mails and notices as what to say
//! ([`OutboxRow::letter`](crate::store::OutboxRow::letter), a [`Letter`](crate::letters::compose::Letter)), not as bytes: the templates and
//! lettre's formatting are not paid on the store thread (issue 13 point 1).
//! Before handing a page of mails over, the drainer formats that page's letters
//! in memory; the letter stays queued until its mail is marked sent, and a
//! resend formats it again. A letter formats to the same bytes every time (its
//! date, Message-ID and MIME boundaries are fixed, its record and boards are
//! read from facts that never change), so a resend is byte for byte the first
//! handover without the bytes ever being stored.
//!
//! **Board pictures.** A board mail is queued without its PNG: its row names
//! the picture ([`OutboxRow::picture`](crate::store::OutboxRow::picture)) and its message holds a placeholder
//! (issue 13 point 1). Before handing a page of mails over, the drainer draws
//! the pictures of that page not drawn yet — SVG from the picture's source,
//! then PNG, at most [`DRAWS_AT_ONCE`] at a time, each once however many mails
//! carry it — and writes each to its file ([`PictureFiles`](crate::store::PictureFiles)), synced before any
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

mod drainer;
#[cfg(test)]
mod picture_tests;
mod prepare;
mod sink;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};

use crate::protocol::StewardKeys;
use crate::store::{Store, StoreError};

pub use drainer::Drainer;
pub use sink::Sink;

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

/// Delivers every unsent mail once, as one pass of a fresh [`Drainer`]; returns
/// how many were delivered. To the spool it writes also the mails a running
/// steward has claimed: a command (`sweep`, `ingest`) returns with its mails
/// in the spool, and a mail written twice is the same file with the same
/// bytes. Over SMTP it leaves them to that steward, which sends them once.
///
/// # Errors
/// Store failures. A failed delivery is recorded on its row and retried later.
pub async fn drain_once(store: &Store, sink: &Sink, keys: Arc<StewardKeys>) -> Result<usize, StoreError> {
    let mut drainer = Drainer::new(store.clone(), sink.clone(), keys);
    drainer.takes_claimed = matches!(sink, Sink::Spool(_));
    drainer.pass().await.map(|p| p.delivered)
}

/// Drains the outbox whenever `wake` is notified, and every few seconds besides,
/// until `shutdown` turns true (or its sender goes away). While the queue waits
/// out a backoff, wake-ups are left for later: new mails join the queue and go
/// with the next attempt.
pub async fn run(store: Store, sink: Sink, keys: Arc<StewardKeys>, wake: Arc<Notify>, shutdown: watch::Receiver<bool>) {
    run_counted(Drainer::new(store, sink, keys), wake, shutdown).await;
}

/// [`run`] with `drainer` (made with [`Drainer::new`], counting into the
/// daemon's metrics with [`Drainer::with_metrics`]: issue 36).
pub async fn run_counted(drainer: Drainer, wake: Arc<Notify>, mut shutdown: watch::Receiver<bool>) {
    let mut drainer = drainer.with_shutdown(shutdown.clone(), LAST_PASS);
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
