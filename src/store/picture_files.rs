//! Drawn board pictures, as files beside the database: `<database>-pictures/<key>.png`,
//! one per picture however many mails carry it (its content key, the SHA-256
//! over its source, names it).
//!
//! They are kept out of the database because a picture is tens of kilobytes
//! and lives only until its mails are sent: in SQLite each one was written to
//! the WAL, copied into the database by a checkpoint and freed again, all on
//! the store's threads, several times the bytes of the move itself. A file is
//! written once, by the drainer's background thread, and removed once.
//!
//! A file is written under a temporary name, synced and renamed, and the
//! directory is synced before any mail carrying it is handed over, so a resend
//! after a crash finds the same bytes. The `pictures` row keeps the picture's
//! source: a file that is gone (say, a database restored from a backup without
//! this directory) is drawn again from it.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// The directory of a database's drawn pictures.
#[derive(Clone, Debug)]
pub struct PictureFiles {
    dir: PathBuf,
}

impl PictureFiles {
    /// The pictures of the database at `database`: `<database>-pictures/`, as
    /// SQLite names its `-wal` beside it.
    pub fn of(database: &Path) -> PictureFiles {
        let mut dir = database.as_os_str().to_owned();
        dir.push("-pictures");
        PictureFiles { dir: PathBuf::from(dir) }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of picture `key`; `None` for a key that is not 64 hex digits
    /// (a damaged row must not name a path elsewhere).
    fn file(&self, key: &str) -> Option<PathBuf> {
        (key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit())).then(|| self.dir.join(format!("{key}.png")))
    }

    /// The drawn picture `key`, or `None` if it is not drawn (or its key is not one).
    ///
    /// # Errors
    /// File system errors other than a missing file.
    pub fn read(&self, key: &str) -> std::io::Result<Option<Vec<u8>>> {
        let Some(path) = self.file(key) else { return Ok(None) };
        match std::fs::read(path) {
            Ok(png) => Ok(Some(png)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes picture `key`: its bytes are on disk when this returns, its name
    /// once [`PictureFiles::sync`] has run after it.
    ///
    /// # Errors
    /// File system errors; a key that is not one.
    pub fn write(&self, key: &str, png: &[u8]) -> std::io::Result<()> {
        let path = self.file(key).ok_or_else(|| std::io::Error::other(format!("{key:?} is not a picture key")))?;
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&self.dir)?;
        super::write_renamed(&path, png)
    }

    /// Makes the names of the pictures written so far durable.
    ///
    /// # Errors
    /// File system errors.
    pub fn sync(&self) -> std::io::Result<()> {
        std::fs::File::open(&self.dir)?.sync_all()
    }

    /// Removes the pictures `keys` (those already gone are no error).
    pub fn remove(&self, keys: &[String]) {
        for path in keys.iter().filter_map(|k| self.file(k)) {
            if let Err(e) = std::fs::remove_file(&path)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!(path = %path.display(), error = %e, "cannot remove a sent mail's picture");
            }
        }
    }

    /// Removes every file but the pictures `needed` says are, and the
    /// temporary files younger than `age` (a write in progress): what a crash
    /// between a commit and the removal it was to be followed by left. Returns
    /// how many.
    ///
    /// # Errors
    /// The directory cannot be read (a missing one holds none).
    pub fn remove_unneeded(&self, needed: impl Fn(&str) -> bool, age: std::time::Duration) -> std::io::Result<usize> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let unneeded = match name.strip_suffix(".png") {
                Some(key) => !needed(key),
                None => super::is_leftover(&entry, age),
            };
            if unneeded && std::fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    #[test]
    fn a_picture_is_written_read_and_removed_by_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let files = PictureFiles::of(&dir.path().join("steward.db"));
        assert_eq!(files.dir(), dir.path().join("steward.db-pictures"));
        assert_eq!(files.read(KEY).unwrap(), None, "not drawn yet");
        files.write(KEY, b"png one").unwrap();
        files.write(KEY, b"png one").unwrap();
        files.sync().unwrap();
        assert_eq!(files.read(KEY).unwrap().as_deref(), Some(&b"png one"[..]));
        assert_eq!(std::fs::read_dir(files.dir()).unwrap().count(), 1, "one file, no temporary left");
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(files.dir()), mode(&files.dir().join(format!("{KEY}.png")))), (0o700, 0o600));
        files.remove(&[KEY.to_owned(), KEY.to_owned()]);
        assert_eq!(files.read(KEY).unwrap(), None);
    }

    #[test]
    fn a_key_that_is_not_one_names_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let files = PictureFiles::of(&dir.path().join("steward.db"));
        for bad in ["../../etc/passwd", "", &KEY[1..], &format!("{}/x", &KEY[..62])] {
            assert!(files.write(bad, b"x").is_err(), "{bad}");
            assert_eq!(files.read(bad).unwrap(), None, "{bad}");
        }
        assert!(!files.dir().exists() || std::fs::read_dir(files.dir()).unwrap().count() == 0);
    }

    #[test]
    fn only_unneeded_pictures_and_old_temporary_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let files = PictureFiles::of(&dir.path().join("steward.db"));
        let other = KEY.replace('0', "f");
        files.write(KEY, b"kept").unwrap();
        files.write(&other, b"orphan").unwrap();
        std::fs::write(files.dir().join(format!("{KEY}.png.1-0.tmp")), b"half").unwrap();
        assert_eq!(files.remove_unneeded(|k| k == KEY, std::time::Duration::from_secs(3600)).unwrap(), 1);
        assert_eq!(files.read(KEY).unwrap().as_deref(), Some(&b"kept"[..]));
        assert_eq!(files.read(&other).unwrap(), None);
        assert_eq!(std::fs::read_dir(files.dir()).unwrap().count(), 2, "a young temporary file stays");
        assert_eq!(files.remove_unneeded(|k| k == KEY, std::time::Duration::ZERO).unwrap(), 1);
        assert_eq!(std::fs::read_dir(files.dir()).unwrap().count(), 1);
    }
}
