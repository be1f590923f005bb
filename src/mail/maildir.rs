//! The maildir door: every message in `new/` is handled by the [`door`](super::door)
//! and then moved to `cur/` with the `S` (seen) flag. A crash between the two
//! leaves the message in `new/`; it is handled again and the steward recognises
//! it (same Message-ID), so nothing is acted on twice. A backlog is handled in
//! [`Batch`]es, in name order, whose transactions share the store's commits;
//! each message is moved only after its own commit.
//!
//! Only regular files no larger than [`MAX_MAIL_BYTES`] (the limit of `ingest`)
//! are read. Each entry is opened without following a symbolic link
//! (`O_NOFOLLOW`) and without waiting for a writer (`O_NONBLOCK`, for a FIFO), and
//! what was opened is checked with `fstat`, so a link swapped in between a look
//! and the open is never read through. Anything else — a link, a FIFO, a socket, a
//! directory, a file over the limit, a file that cannot be opened — is moved to
//! `rejected/` beside `new/` with a warning in the log, read by nobody, and not
//! looked at again.
//!
//! No message can stop the door. A message whose handling fails for a reason a
//! retry may cure (the store is unavailable) stays in `new/` and the sweep ends
//! there, to be run again at the next poll. A message that fails otherwise (a
//! bug, or data the steward cannot store) is left for the next sweeps while
//! the door goes on with the rest; after [`ATTEMPTS`] failures it is moved to
//! `held/` beside `new/`, kept for the operator, with an error in the log (move
//! it back to `new/` once the cause is mended).

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::Utc;
use tokio::sync::watch;

use super::MAX_MAIL_BYTES;
use super::door::{Batch, Handled};
use crate::steward::{Steward, StewardError};

/// The directory, beside `new/` and `cur/`, that entries the door will not read
/// are moved to.
pub const REJECTED: &str = "rejected";

/// The directory, beside `new/` and `cur/`, that messages whose handling kept
/// failing are moved to, for the operator.
pub const HELD: &str = "held";

/// How many sweeps may fail to handle a message (for a reason other than an
/// unavailable store) before it is moved to [`HELD`].
pub const ATTEMPTS: u32 = 3;

/// What the door remembers between sweeps: how often each message in `new/`
/// failed.
#[derive(Debug, Default)]
pub struct Failures(HashMap<PathBuf, u32>);

/// Handles every message now in `dir/new`; returns what became of each. Entries
/// that are not regular files within the size limit are moved to
/// [`REJECTED`] and are not in the answer. A message that fails is left in
/// `new/` (see the module docs); this one-off sweep remembers no failures.
///
/// # Errors
/// The directory cannot be read, or the store is unavailable (the message
/// stays in `new/`).
pub async fn sweep(steward: &Steward, dir: &Path) -> Result<Vec<(PathBuf, Handled)>, MaildirError> {
    sweep_counting(steward, dir, &mut Failures::default()).await
}

/// [`sweep`], counting failures in `failures` across sweeps and moving a
/// message that failed [`ATTEMPTS`] times to [`HELD`].
///
/// # Errors
/// As [`sweep`].
pub async fn sweep_counting(
    steward: &Steward,
    dir: &Path,
    failures: &mut Failures,
) -> Result<Vec<(PathBuf, Handled)>, MaildirError> {
    let new = dir.join("new");
    let cur = dir.join("cur");
    std::fs::create_dir_all(&cur).map_err(|e| MaildirError::Io(cur.clone(), e))?;
    let mut names: Vec<PathBuf> = std::fs::read_dir(&new)
        .map_err(|e| MaildirError::Io(new.clone(), e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        // Dot files are not messages (maildir readers skip them).
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect();
    names.sort();
    let mut done = Vec::new();
    let mut batch = Batch::default();
    let mut names = names.into_iter().peekable();
    while let Some(path) = names.next() {
        match read_entry(&path) {
            Ok(raw) => batch.push(path, raw),
            // Another reader took it meanwhile.
            Err(Refused::Gone) => {}
            Err(Refused::Hostile(why)) => reject(dir, &path, &why),
        }
        if !batch.is_due(names.peek().is_some()) {
            continue;
        }
        let mut unavailable = None;
        for (path, outcome) in batch.handle(steward, Utc::now()).await {
            let outcome = match outcome {
                Ok(outcome) => outcome,
                // Not stored: it stays in new/ for the next sweep.
                Err(e) if e.is_transient() => {
                    unavailable.get_or_insert(e);
                    continue;
                }
                Err(e) => {
                    failures.failed(dir, &path, &e);
                    continue;
                }
            };
            failures.0.remove(&path);
            // Moved to cur/ only now that its commit is on disk.
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let target = cur.join(format!("{}:2,S", name.split(':').next().unwrap_or(&name)));
            std::fs::rename(&path, &target).map_err(|e| MaildirError::Io(path.clone(), e))?;
            done.push((target, outcome));
        }
        if let Some(e) = unavailable {
            return Err(e.into());
        }
    }
    // Forget messages no longer in new/ (another reader took them).
    failures.0.retain(|path, _| path.exists());
    Ok(done)
}

impl Failures {
    /// Counts a failure of `path`; at the [`ATTEMPTS`]th, moves it to [`HELD`].
    fn failed(&mut self, dir: &Path, path: &Path, error: &StewardError) {
        let count = self.0.entry(path.to_owned()).or_default();
        *count += 1;
        if *count < ATTEMPTS {
            tracing::warn!(
                message = %path.display(), attempt = *count, error = %error,
                "maildir door: a message could not be handled; it stays in new/ and is tried again, the door goes on"
            );
            return;
        }
        let held = dir.join(HELD);
        let target = held.join(path.file_name().unwrap_or_default());
        match std::fs::create_dir_all(&held).and_then(|()| std::fs::rename(path, &target)) {
            Ok(()) => {
                self.0.remove(path);
                tracing::error!(
                    message = %path.display(), moved_to = %target.display(), attempts = ATTEMPTS, error = %error,
                    "maildir door: a message failed every attempt and was set aside for the operator; move it back to new/ once the cause is mended"
                );
            }
            Err(e) => tracing::error!(
                message = %path.display(), error = %error, move_error = %e,
                "maildir door: a message failed every attempt and could not be set aside; it stays in new/"
            ),
        }
    }
}

/// Why an entry of `new/` was not read.
enum Refused {
    /// It is no longer there.
    Gone,
    /// It is not a message the door reads: why.
    Hostile(String),
}

/// Reads one entry of `new/`: a regular file of at most [`MAX_MAIL_BYTES`],
/// opened without following links or waiting on a FIFO.
fn read_entry(path: &Path) -> Result<Vec<u8>, Refused> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            _ if e.kind() == std::io::ErrorKind::NotFound => Refused::Gone,
            Some(libc::ELOOP) => Refused::Hostile("a symbolic link".into()),
            _ => Refused::Hostile(format!("cannot be opened: {e}")),
        })?;
    // What was opened, not what the name points to now.
    let meta = file.metadata().map_err(|e| Refused::Hostile(format!("cannot be examined: {e}")))?;
    if !meta.file_type().is_file() {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        let kind = if t.is_dir() {
            "a directory"
        } else if t.is_fifo() {
            "a FIFO"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else {
            "not a regular file"
        };
        return Err(Refused::Hostile(kind.into()));
    }
    if meta.len() > MAX_MAIL_BYTES as u64 {
        return Err(Refused::Hostile(format!("{} bytes, over the limit of {MAX_MAIL_BYTES}", meta.len())));
    }
    let mut raw = Vec::with_capacity(meta.len() as usize);
    // A file that grows while it is read is still cut at the limit.
    file.take(MAX_MAIL_BYTES as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(|e| Refused::Hostile(format!("cannot be read: {e}")))?;
    if raw.len() > MAX_MAIL_BYTES {
        return Err(Refused::Hostile(format!("grew over the limit of {MAX_MAIL_BYTES} bytes while read")));
    }
    Ok(raw)
}

/// Moves `path` (the entry itself, never what a link points to) to
/// `dir/rejected/`, so the next sweep does not meet it again.
fn reject(dir: &Path, path: &Path, why: &str) {
    let rejected = dir.join(REJECTED);
    let target = rejected.join(path.file_name().unwrap_or_default());
    let moved = std::fs::create_dir_all(&rejected).and_then(|()| std::fs::rename(path, &target));
    match moved {
        Ok(()) => tracing::warn!(
            entry = %path.display(), moved_to = %target.display(), why,
            "maildir door: an entry that is not a mail it reads was moved aside, unread"
        ),
        Err(e) => tracing::warn!(
            entry = %path.display(), why, error = %e,
            "maildir door: an entry that is not a mail it reads could not be moved aside; it stays unread"
        ),
    }
}

/// Sweeps `dir` every `every` until `shutdown` turns true.
pub async fn run(steward: Steward, dir: PathBuf, every: Duration, mut shutdown: watch::Receiver<bool>) {
    let mut failures = Failures::default();
    loop {
        match sweep_counting(&steward, &dir, &mut failures).await {
            Ok(done) if !done.is_empty() => {
                tracing::info!(maildir = %dir.display(), messages = done.len(), "maildir swept")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(maildir = %dir.display(), error = %e, "maildir sweep failed; will retry"),
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            return;
        }
    }
}

/// Why a maildir sweep stopped.
#[derive(Debug, thiserror::Error)]
pub enum MaildirError {
    /// A file system error.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// The store failed.
    #[error(transparent)]
    Steward(#[from] StewardError),
}
