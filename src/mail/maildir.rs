//! The maildir door: every message in `new/` is handled by the [`door`](super::door)
//! and then moved to `cur/` with the `S` (seen) flag. A crash between the two
//! leaves the message in `new/`; it is handled again and the steward recognises
//! it (same Message-ID), so nothing is acted on twice.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::Utc;
use tokio::sync::watch;

use super::door::{Handled, handle};
use crate::steward::{Steward, StewardError};

/// Handles every message now in `dir/new`; returns what became of each.
///
/// # Errors
/// The directory cannot be read, or the store failed (the message stays in `new/`).
pub async fn sweep(steward: &Steward, dir: &Path) -> Result<Vec<(PathBuf, Handled)>, MaildirError> {
    let new = dir.join("new");
    let cur = dir.join("cur");
    std::fs::create_dir_all(&cur).map_err(|e| MaildirError::Io(cur.clone(), e))?;
    let mut names: Vec<PathBuf> = std::fs::read_dir(&new)
        .map_err(|e| MaildirError::Io(new.clone(), e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    let mut done = Vec::new();
    for path in names {
        let raw = match std::fs::read(&path) {
            Ok(raw) => raw,
            // Another reader took it meanwhile.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(MaildirError::Io(path, e)),
        };
        let handled = handle(steward, &raw, Utc::now()).await?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let target = cur.join(format!("{}:2,S", name.split(':').next().unwrap_or(&name)));
        std::fs::rename(&path, &target).map_err(|e| MaildirError::Io(path.clone(), e))?;
        done.push((target, handled));
    }
    Ok(done)
}

/// Sweeps `dir` every `every` until `shutdown` turns true.
pub async fn run(steward: Steward, dir: PathBuf, every: Duration, mut shutdown: watch::Receiver<bool>) {
    loop {
        match sweep(&steward, &dir).await {
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
