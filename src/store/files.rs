//! New files written whole beside the database — the spool's mails, the drawn
//! board pictures: under a temporary name of the writer's own, synced, then
//! renamed, so a reader never sees half of one; and the temporary files a
//! crash left behind, recognised by their suffix and age.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The suffix of every temporary file.
const TEMPORARY: &str = ".tmp";

/// A temporary name for `path` that no other write uses, in this process or
/// another (the daemon and a `fairsteward sweep` beside it may write the same
/// file at once: each renames only the bytes it wrote).
pub(crate) fn temporary_for(path: &Path) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{}-{n}{TEMPORARY}", std::process::id()));
    PathBuf::from(name)
}

/// Writes `bytes` as the file `path`, readable by its owner only: under a
/// temporary name of the writer's own (process and call), synced, then renamed; a failed write
/// removes its temporary file. The name is durable once the directory is synced.
///
/// # Errors
/// File system errors.
pub(crate) fn write_renamed(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = temporary_for(path);
    let written = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Whether `entry` is a temporary file older than `age`: what a write cut
/// short by a crash left (a write in progress is younger).
pub(crate) fn is_leftover(entry: &std::fs::DirEntry, age: std::time::Duration) -> bool {
    entry.file_name().to_string_lossy().ends_with(TEMPORARY)
        && entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|a| a >= age))
}
