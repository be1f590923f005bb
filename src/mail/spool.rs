//! The spool: one RFC 5322 `.eml` file per message, for a steward without SMTP.
//!
//! Files are named after the Message-ID, written to a temporary name and renamed,
//! so a reader never sees half a mail and a resend after a crash replaces the
//! file with identical bytes instead of adding a second copy. The temporary name
//! is the writer's own (process and call): the daemon's outbox and a
//! `fairsteward sweep` or `ingest` beside it may spool the same mail at once, and
//! each renames only the bytes it wrote. What a crash leaves behind is removed
//! when the daemon starts ([`remove_leftovers`]).
//!
//! The spool is the players' delivered mail, in clear (an answer may name the
//! mover's pending move): the directory is the owner's only (0700) and so is
//! every file (0600), like a mailbox.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// The spool file for a Message-ID (characters other than letters, digits, `.`,
/// `-`, `_` and `@` become `_`).
pub fn file_for(dir: &Path, message_id: &str) -> PathBuf {
    let name: String = message_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@') { c } else { '_' })
        .collect();
    dir.join(format!("{name}.eml"))
}

/// Writes one message into the spool and returns its path: its bytes are on
/// disk, its name is once [`sync`] has run after it (the outbox writes a page of
/// mails, then syncs the directory once before it marks them sent).
///
/// # Errors
/// File system errors.
pub fn write(dir: &Path, message_id: &str, message: &[u8]) -> std::io::Result<PathBuf> {
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let path = file_for(dir, message_id);
    crate::store::write_renamed(&path, message).map(|()| path)
}

/// Removes the temporary files older than `age` that writes cut short by a
/// crash left in the spool (a write in progress is younger). Returns how many.
///
/// # Errors
/// The directory cannot be read (a missing one holds none).
pub fn remove_leftovers(dir: &Path, age: std::time::Duration) -> std::io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        if crate::store::is_leftover(&entry, age) && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

/// Makes the names of the messages written so far durable. A rename is durable
/// only once its directory is: otherwise a power loss could undo it after the
/// outbox marked the mail sent.
///
/// # Errors
/// File system errors.
pub fn sync(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::store::temporary_for;

    #[test]
    fn writing_twice_leaves_one_file() {
        let dir = std::env::temp_dir().join(format!("fairsteward-spool-{}", crate::ids::GameId::random()));
        let a = write(&dir, "8KQ2ZJ.1.0.turn@steward.example", b"Subject: x\r\n\r\nhello\r\n").unwrap();
        let b = write(&dir, "8KQ2ZJ.1.0.turn@steward.example", b"Subject: x\r\n\r\nhello\r\n").unwrap();
        assert_eq!(a, b);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert!(a.ends_with("8KQ2ZJ.1.0.turn@steward.example.eml"));
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&dir), mode(&a)), (0o700, 0o600), "the players' mail is the owner's only");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The daemon and a `fairsteward sweep` beside it may spool one mail at
    /// once: every write succeeds, a reader only ever sees the whole mail, and
    /// one file is left.
    #[test]
    fn writers_of_the_same_mail_at_once_never_show_half_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let spool = dir.path().join("spool");
        let id = "8KQ2ZJ.4.1.turn@steward.example";
        let mail: Vec<u8> = b"Subject: x\r\n\r\n".iter().chain(&[b'm'; 200_000]).copied().collect();
        let path = file_for(&spool, id);
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let reader = scope.spawn(|| {
                let mut seen = 0;
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(bytes) = std::fs::read(&path) {
                        assert!(bytes == mail, "a reader saw {} of {} bytes", bytes.len(), mail.len());
                        seen += 1;
                    }
                }
                seen
            });
            let writers: Vec<_> =
                (0..4).map(|_| scope.spawn(|| (0..25).map(|_| write(&spool, id, &mail)).collect::<Vec<_>>())).collect();
            let written: Vec<_> = writers.into_iter().flat_map(|w| w.join().unwrap()).collect();
            // The reader stops before anything is checked, so a failure cannot hang the test.
            stop.store(true, Ordering::Relaxed);
            let seen = reader.join();
            for w in written {
                assert_eq!(w.unwrap(), path);
            }
            assert!(seen.unwrap() > 0, "the reader found the file");
        });
        let names: Vec<_> = std::fs::read_dir(&spool).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [path.file_name().unwrap()], "one file, no temporary ones");
    }

    #[test]
    fn only_old_temporary_files_are_removed_as_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let mail = write(dir.path(), "8KQ2ZJ.1.0.turn@steward.example", b"Subject: x\r\n\r\nhello\r\n").unwrap();
        let old = temporary_for(&file_for(dir.path(), "8KQ2ZJ.2.0.turn@steward.example"));
        let fresh = temporary_for(&file_for(dir.path(), "8KQ2ZJ.3.0.turn@steward.example"));
        for t in [&old, &fresh] {
            std::fs::write(t, b"Subject: half").unwrap();
        }
        let day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
        std::fs::File::options().write(true).open(&old).unwrap().set_modified(day_ago).unwrap();
        let hour = std::time::Duration::from_secs(3600);
        assert_eq!(remove_leftovers(dir.path(), hour).unwrap(), 1);
        assert!(!old.exists() && fresh.exists() && mail.exists(), "only the day-old temporary file goes");
        assert_eq!(remove_leftovers(&dir.path().join("none"), hour).unwrap(), 0, "no spool yet: nothing to do");
    }
}
