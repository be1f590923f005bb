//! The spool: one RFC 5322 `.eml` file per message, for a steward without SMTP.
//!
//! Files are named after the Message-ID, written to a temporary name and renamed,
//! so a reader never sees half a mail and a resend after a crash replaces the
//! file with identical bytes instead of adding a second copy.
//!
//! The spool is the players' delivered mail, in clear (an answer may name the
//! mover's pending move): the directory is the owner's only (0700) and so is
//! every file (0600), like a mailbox.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
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
    let tmp = path.with_extension("eml.tmp");
    // A leftover temporary file (a crash mid-write) may be older and more open.
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
    file.write_all(message)?;
    file.sync_all()?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
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
    use super::*;

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
}
