//! Backup sets (issue 36): what a restore needs, together in one directory —
//! the database's snapshot ([`super::backup`], SQLite's online backup) and the
//! data directory's keys, operator token and store mark, which are not in the
//! database — named by the time it was taken, `fairsteward-YYYYMMDDTHHMMSSZ`.
//! A set is built under a hidden name and renamed into place whole, so a set
//! that is there is complete; the newest `keep` sets are kept, older ones
//! removed. The steward takes them on `[backup] schedule`, and `fairsteward
//! backup --into DIR` takes one by hand.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, Utc};

use super::{StoreError, backup};

/// What [`take_backup_set`] made and removed.
#[derive(Clone, Debug)]
pub struct BackupSet {
    /// The new set's directory.
    pub path: PathBuf,
    /// Database pages copied.
    pub pages: i32,
    /// Bytes written, database and files.
    pub bytes: u64,
    /// Older sets removed to keep `keep`.
    pub removed: Vec<PathBuf>,
}

/// The prefix of a set's name; the rest is its time.
const PREFIX: &str = "fairsteward-";
/// A set's time in its name: sortable, and valid in every file system.
const TIME_FORMAT: &str = "%Y%m%dT%H%M%SZ";

/// The data directory's files a restore needs beside the database's copy:
/// every plain file there but the live database's own (the steward's keys,
/// current and retired, the operator token, the mark that a store was created
/// here); directories (the spool, pictures, held mail, backups) are not, nor
/// the token of the last clean stop, which would spare a restored database
/// its check before serving.
fn belongs_in_a_set(name: &str, database: &str) -> bool {
    name != database
        && name != super::CLEAN_STOP_FILE
        && !["-wal", "-shm", "-journal"].iter().any(|suffix| name == format!("{database}{suffix}"))
}

fn io(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Backup(format!("cannot {what} {}: {e}", path.display()))
}

/// Takes a backup set of the store in `data_dir` (its database at
/// `database`) into the directory `into` (made if missing), named by `now`,
/// then removes the oldest sets there beyond `keep`. Runs while a steward
/// serves: the database's snapshot holds up no move.
///
/// # Errors
/// No database; the directory cannot be made or written; SQLite fails; the
/// copy does not check. A set that failed leaves nothing behind.
pub fn take_backup_set(
    data_dir: &Path,
    database: &Path,
    into: &Path,
    keep: u32,
    now: DateTime<Utc>,
) -> Result<BackupSet, StoreError> {
    std::fs::create_dir_all(into).map_err(|e| io("make the backup directory", into, e))?;
    let mut name = format!("{PREFIX}{}", now.format(TIME_FORMAT));
    // Two sets in one second (by hand beside the schedule): the second waits a name.
    for n in 2.. {
        if !into.join(&name).exists() {
            break;
        }
        name = format!("{PREFIX}{}-{n}", now.format(TIME_FORMAT));
    }
    let partial = into.join(format!(".{name}.partial"));
    let _ = std::fs::remove_dir_all(&partial);
    let built = build(data_dir, database, &partial);
    let (pages, bytes) = match built {
        Ok(done) => done,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(e);
        }
    };
    let path = into.join(&name);
    std::fs::rename(&partial, &path).map_err(|e| io("name the backup", &path, e))?;
    sync(into)?;
    let removed = rotate(into, keep)?;
    Ok(BackupSet { path, pages, bytes, removed })
}

/// Writes the set into `dir`, each file synced.
fn build(data_dir: &Path, database: &Path, dir: &Path) -> Result<(i32, u64), StoreError> {
    std::fs::create_dir(dir).map_err(|e| io("make", dir, e))?;
    let report = backup(database, &dir.join("steward.db"))?;
    let mut bytes = report.bytes;
    let database_name = database.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let entries = std::fs::read_dir(data_dir).map_err(|e| io("read", data_dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io("read", data_dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !belongs_in_a_set(&name, &database_name) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let to = dir.join(&name);
        bytes += std::fs::copy(entry.path(), &to).map_err(|e| io("copy", &entry.path(), e))?;
        std::fs::File::open(&to).and_then(|f| f.sync_all()).map_err(|e| io("sync", &to, e))?;
    }
    sync(dir)?;
    Ok((report.pages, bytes))
}

/// Makes a directory's entries durable (a rename or a new file in it).
fn sync(dir: &Path) -> Result<(), StoreError> {
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| io("sync", dir, e))
}

/// The sets in `dir`, oldest first. Only names this module makes count:
/// nothing else an operator keeps there is touched.
pub fn backup_sets(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut sets: Vec<(NaiveDateTime, String, PathBuf)> = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("read", dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| io("read", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(PREFIX) else { continue };
        let time = rest.split('-').next().unwrap_or(rest);
        if let Ok(at) = NaiveDateTime::parse_from_str(time, TIME_FORMAT)
            && entry.file_type().is_ok_and(|t| t.is_dir())
        {
            sets.push((at, name, entry.path()));
        }
    }
    sets.sort();
    Ok(sets.into_iter().map(|(_, _, path)| path).collect())
}

/// Removes the oldest sets beyond `keep`; returns them.
fn rotate(dir: &Path, keep: u32) -> Result<Vec<PathBuf>, StoreError> {
    let sets = backup_sets(dir)?;
    let surplus = sets.len().saturating_sub(keep as usize);
    let mut removed = Vec::new();
    for old in sets.into_iter().take(surplus) {
        std::fs::remove_dir_all(&old).map_err(|e| io("remove the old backup", &old, e))?;
        removed.push(old);
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_in(data: &Path) -> PathBuf {
        let db = data.join("steward.db");
        drop(super::super::Store::open(&db).unwrap());
        for file in ["steward-signing.pem", "steward-signing.retired-1.pem", "operator-token"] {
            std::fs::write(data.join(file), file).unwrap();
        }
        // A clean stop's token (issue 37): left out of every set.
        std::fs::write(data.join(super::super::CLEAN_STOP_FILE), "0123abcd\n").unwrap();
        std::fs::create_dir(data.join("spool")).unwrap();
        std::fs::write(data.join("spool/a-mail.eml"), "a mail").unwrap();
        db
    }

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap()
    }

    #[test]
    fn a_set_holds_the_database_and_the_keys_and_the_newest_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (data, into) = (dir.path().join("data"), dir.path().join("backups"));
        std::fs::create_dir(&data).unwrap();
        let db = store_in(&data);
        std::fs::create_dir_all(&into).unwrap();
        std::fs::write(into.join("notes.txt"), "the operator's").unwrap();
        let mut taken = Vec::new();
        for i in 0..4 {
            let set = take_backup_set(&data, &db, &into, 2, at(i * 86_400)).unwrap();
            assert!(set.pages > 0 && set.bytes > 0);
            taken.push(set);
        }
        let first = &taken[0].path;
        assert_eq!(first.file_name().unwrap(), "fairsteward-20270115T080000Z");
        assert_eq!(backup_sets(&into).unwrap(), vec![taken[2].path.clone(), taken[3].path.clone()]);
        assert_eq!(taken[2].removed, vec![taken[0].path.clone()]);
        assert!(into.join("notes.txt").is_file(), "only sets are rotated");
        let newest = &taken[3].path;
        let mut names: Vec<String> =
            std::fs::read_dir(newest).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, ["operator-token", "steward-signing.pem", "steward-signing.retired-1.pem", "steward.db"]);
        assert_eq!(std::fs::read_to_string(newest.join("operator-token")).unwrap(), "operator-token");
        // The database in a set opens as a store.
        drop(super::super::Store::open(&newest.join("steward.db")).unwrap());
        let hidden =
            std::fs::read_dir(&into).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with('.'));
        assert_eq!(hidden.count(), 0, "no partial set left");
    }

    #[test]
    fn two_sets_in_one_second_get_two_names_and_a_failed_one_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (data, into) = (dir.path().join("data"), dir.path().join("backups"));
        std::fs::create_dir(&data).unwrap();
        let db = store_in(&data);
        let a = take_backup_set(&data, &db, &into, 5, at(0)).unwrap();
        let b = take_backup_set(&data, &db, &into, 5, at(0)).unwrap();
        assert_ne!(a.path, b.path);
        assert_eq!(backup_sets(&into).unwrap().len(), 2);
        let missing = take_backup_set(&data, &data.join("nothing.db"), &into, 5, at(60)).unwrap_err();
        assert!(missing.to_string().contains("no database"), "{missing}");
        assert_eq!(std::fs::read_dir(&into).unwrap().count(), 2, "the failed set left nothing");
    }
}
