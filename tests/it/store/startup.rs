//! Start-up integrity (issue 11, point 5): the real binary on real data
//! directories refuses to start, with one line on stderr naming the problem and
//! the way out and a non-zero exit, when the store it would serve is not the
//! store it served before.

use crate::support as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fairsteward");

/// A data directory holding a store with `games` games, made by `fairsteward
/// game new`, on SQLite its WAL folded into the database file (as after a
/// clean stop).
pub(super) fn store_with_games(games: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..games {
        let out = Command::new(BIN)
            .args(["game", "new", "--variant", "chess", "--data-dir"])
            .arg(dir.path())
            .envs(common::backend::database_env(dir.path()))
            .args([
                "--seat",
                &format!("White {n} <white{n}@example.org>"),
                "--seat",
                &format!("Black {n} <black{n}@example.org>"),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "game new: {}", String::from_utf8_lossy(&out.stderr));
    }
    if !common::backend::on_postgres() {
        let db = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
        db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    }
    dir
}

/// `fairsteward serve` on `data_dir` (and its store: on PostgreSQL the
/// environment names it), or as `user` when given (a uid/gid for setpriv): it
/// must exit by itself. Returns the exit code and stderr's lines.
pub(super) fn refused(data_dir: &Path, user: Option<u32>) -> (i32, Vec<String>) {
    let mut cmd = match user {
        Some(id) => {
            let mut c = Command::new("setpriv");
            c.args([
                format!("--reuid={id}"),
                format!("--regid={id}"),
                "--clear-groups".into(),
                "--".into(),
                BIN.into(),
            ]);
            c
        }
        None => Command::new(BIN),
    };
    let child = cmd
        .args(["serve", "--data-dir"])
        .arg(data_dir)
        .args(["--listen", "127.0.0.1:0"])
        .envs(common::backend::database_env(data_dir))
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut child = child;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("serve started instead of refusing:\n{}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let lines = String::from_utf8_lossy(&out.stderr).lines().map(str::to_owned).collect();
    (out.status.code().unwrap_or(-1), lines)
}

/// Checks a refusal: exit 1, exactly one stderr line, `fairsteward: …`,
/// holding every one of `says`. Returns the line.
#[track_caller]
pub(super) fn one_line(result: (i32, Vec<String>), says: &[&str]) -> String {
    let (code, lines) = result;
    assert_eq!(lines.len(), 1, "exactly one line on stderr: {lines:#?}");
    assert_eq!(code, 1, "exit status: {lines:?}");
    let line = lines[0].clone();
    assert!(line.starts_with("fairsteward: "), "{line}");
    for s in says {
        assert!(line.contains(s), "{line:?} should say {s:?}");
    }
    line
}

/// The way out a refusal for a missing key file names: restoring it; on
/// PostgreSQL, whose store other stewards may share, copying the keys of a
/// running steward or restoring them.
pub(super) fn restore_the_key() -> &'static str {
    if common::backend::on_postgres() { "restore them from a backup" } else { "restore the key file from a backup" }
}

fn db(dir: &Path) -> PathBuf {
    dir.join("steward.db")
}

#[test]
fn a_truncated_database_is_refused_not_started_empty() {
    if common::backend::skip_on_postgres("a truncated steward.db is SQLite's file") {
        return;
    }
    let dir = store_with_games(6);
    let len = std::fs::metadata(db(dir.path())).unwrap().len();
    assert!(len >= 8 * 4096, "a database of several pages: {len}");
    std::fs::OpenOptions::new().write(true).open(db(dir.path())).unwrap().set_len(len / 2).unwrap();
    one_line(refused(dir.path(), None), &["steward.db", "is damaged", "restore the latest backup"]);

    // Cut to nothing: SQLite would take it for a new database.
    std::fs::OpenOptions::new().write(true).open(db(dir.path())).unwrap().set_len(0).unwrap();
    one_line(
        refused(dir.path(), None),
        &["steward.db is missing or empty", "shows a store existed", "store-created", "restore the database"],
    );
    assert_eq!(std::fs::metadata(db(dir.path())).unwrap().len(), 0, "nothing was written over it");
}

#[test]
fn a_corrupted_database_fails_the_integrity_check() {
    if common::backend::skip_on_postgres("garbled pages of steward.db and SQLite's integrity_check") {
        return;
    }
    let dir = store_with_games(6);
    let path = db(dir.path());
    // Garble the pages of the game tables (their b-tree roots), not the schema:
    // opening works, and only the integrity check can tell.
    let roots: Vec<usize> = {
        let db = rusqlite::Connection::open(&path).unwrap();
        let mut q =
            db.prepare("SELECT rootpage FROM sqlite_master WHERE name IN ('games', 'seats', 'events')").unwrap();
        q.query_map([], |r| r.get::<_, i64>(0)).unwrap().map(|r| r.unwrap() as usize).collect()
    };
    assert_eq!(roots.len(), 3);
    let mut bytes = std::fs::read(&path).unwrap();
    for page in roots {
        let start = (page - 1) * 4096;
        for b in &mut bytes[start + 8..start + 4000] {
            *b = 0x5a;
        }
    }
    std::fs::write(&path, bytes).unwrap();
    one_line(refused(dir.path(), None), &["steward.db is damaged", "integrity_check", "restore the latest backup"]);
}

/// Issue 37: after a clean stop (its token in the database and in
/// `store-stopped` agree) the steward serves at once and runs the full
/// integrity check beside the requests. Damage found there stops it with the
/// refusal a check before serving gives, and the next start, with no clean
/// stop behind it, refuses before it serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damage_found_beside_the_requests_after_a_clean_stop_stops_the_steward() {
    if common::backend::skip_on_postgres("SQLite's integrity_check of steward.db") {
        return;
    }
    let dir = store_with_games(6);
    let stopped = dir.path().join(fairsteward::server::CLEAN_STOP_FILE);
    let mut steward = common::Steward::start(dir.path()).await;
    assert!(!stopped.exists(), "no clean stop is on record while it serves");
    let (status, _) = steward.terminate(Duration::from_secs(30));
    assert!(status.success(), "a clean stop: {status:?}");
    steward.stop();
    let token = std::fs::read_to_string(&stopped).unwrap();
    assert_eq!(token.trim().len(), 32, "{token:?}");
    assert_eq!(fairsteward::store::clean_stop_token(&db(dir.path())).as_deref(), Some(token.trim()));
    // Served after the clean stop: the check ran beside the requests.
    let mut steward = common::Steward::start(dir.path()).await;
    common::eventually("the integrity check beside the requests", || {
        steward.log().contains("the store passed its integrity check").then_some(())
    })
    .await;
    assert!(steward.log().contains("its integrity check runs beside the requests"), "{}", steward.log());
    let (status, _) = steward.terminate(Duration::from_secs(30));
    assert!(status.success());
    steward.stop();
    // Bit rot while it is stopped, in a table the start does not read.
    let root: usize = rusqlite::Connection::open(db(dir.path()))
        .unwrap()
        .query_row("SELECT rootpage FROM sqlite_master WHERE name = 'events'", [], |r| r.get::<_, i64>(0))
        .unwrap() as usize;
    let mut bytes = std::fs::read(db(dir.path())).unwrap();
    for b in &mut bytes[(root - 1) * 4096 + 8..(root - 1) * 4096 + 4000] {
        *b = 0x5a;
    }
    std::fs::write(db(dir.path()), bytes).unwrap();
    let (code, lines) = refused(dir.path(), None);
    assert_eq!(code, 1, "{lines:#?}");
    let last = lines.last().unwrap();
    for says in ["fairsteward: ", "steward.db is damaged", "integrity_check", "restore the latest backup"] {
        assert!(last.contains(says), "{last:?} should say {says:?}");
    }
    assert!(lines.iter().any(|l| l.contains("listening on")), "it served first: {lines:#?}");
    assert!(!stopped.exists(), "no clean stop is recorded for a damaged store");
    one_line(refused(dir.path(), None), &["steward.db is damaged", "integrity_check", "restore the latest backup"]);
}

#[test]
fn a_deleted_database_beside_the_keys_is_refused() {
    if common::backend::skip_on_postgres("a deleted steward.db is SQLite's file") {
        return;
    }
    let dir = store_with_games(1);
    for f in ["steward.db", "steward.db-wal", "steward.db-shm"] {
        let _ = std::fs::remove_file(dir.path().join(f));
    }
    one_line(
        refused(dir.path(), None),
        &["is missing or empty", "steward-signing.pem", "restore the database", "move the data directory away"],
    );
    assert!(!db(dir.path()).exists(), "no new empty store was made");

    // Only the keys left (no marker): still a store that existed.
    std::fs::remove_file(dir.path().join("store-created")).unwrap();
    one_line(refused(dir.path(), None), &["is missing or empty", "steward-sealing.pem"]);
}

#[test]
fn a_missing_steward_key_is_not_regenerated_while_games_exist() {
    let dir = store_with_games(2);
    let key = dir.path().join("steward-signing.pem");
    let saved = std::fs::read(&key).unwrap();
    std::fs::remove_file(&key).unwrap();
    one_line(
        refused(dir.path(), None),
        &["steward-signing.pem is missing", "holds 2 games", restore_the_key(), "keys rotate"],
    );
    assert!(!key.exists(), "no new key was made");
    // The way out works: the restored key starts the steward.
    std::fs::write(&key, saved).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut s = common::Steward::start(dir.path()).await;
        assert_eq!(s.api().get("/api/steward", None).await.status, 200);
        s.stop();
    });
}

#[test]
fn a_data_directory_that_is_a_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    std::fs::write(&file, "not a directory").unwrap();
    one_line(refused(&file, None), &["data directory", "is not a directory", "--data-dir"]);
}

/// Run as root (as the tests are here), permission bits do not stop the
/// process; so the steward runs as `nobody` (setpriv) on a directory it may
/// read but not write. Run as another user, the directory is made read-only.
#[test]
fn a_data_directory_that_is_not_writable_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let root = std::fs::metadata(&data).unwrap().uid() == 0;
    let user = if root {
        // nobody must reach the directory: the temporary parent is 0700.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
        Some(65534)
    } else {
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o555)).unwrap();
        None
    };
    one_line(refused(&data, user), &["the data directory", "is not writable", "write access", "--data-dir"]);
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(std::fs::read_dir(&data).unwrap().count(), 0, "nothing was created");
}
