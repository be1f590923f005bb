//! Issue 33: the steward's OpenPGP key file is kept like its Ed25519 keys. Once
//! the store has recorded the key (every start records it), a missing
//! `steward-openpgp.asc` is refused at start-up with the file and the way out;
//! a store from before the key existed gets one made instead.

use crate::support as common;

use super::startup::{one_line, refused, restore_the_key, store_with_games};

const KEY: &str = "steward-openpgp.asc";

#[test]
fn a_missing_steward_openpgp_key_is_not_made_anew_while_games_exist() {
    let dir = store_with_games(1);
    let key = dir.path().join(KEY);
    let saved = std::fs::read(&key).expect("`game new` made the steward's OpenPGP key");
    std::fs::remove_file(&key).unwrap();
    one_line(
        refused(dir.path(), None),
        &["steward-openpgp.asc is missing", "holds 1 games", restore_the_key(), "keys rotate"],
    );
    assert!(!key.exists(), "no new key was made");
    // The way out works: the restored key starts the steward, with the same key.
    std::fs::write(&key, &saved).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut s = common::Steward::start(dir.path()).await;
        assert_eq!(s.api().get("/api/steward", None).await.status, 200);
        s.stop();
    });
    assert_eq!(std::fs::read(&key).unwrap(), saved);
}

/// A data directory from before issue 33 (its store names no OpenPGP key of
/// the steward's) gets its key made at the first start, and from then on a
/// missing key file is refused.
#[test]
fn a_store_from_before_the_openpgp_key_gets_one_made_and_then_keeps_it() {
    let dir = store_with_games(1);
    let key = dir.path().join(KEY);
    std::fs::remove_file(&key).unwrap();
    common::backend::Db::of(dir.path()).execute("DELETE FROM steward_openpgp_keys", &[]);
    if !common::backend::on_postgres() {
        // Folded into the database file, as after a clean stop.
        let db = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
        db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut s = common::Steward::start(dir.path()).await;
        assert_eq!(s.api().get("/api/steward", None).await.status, 200);
        s.stop();
    });
    assert!(key.exists(), "the first start made the OpenPGP key");
    std::fs::remove_file(&key).unwrap();
    one_line(refused(dir.path(), None), &["steward-openpgp.asc is missing", restore_the_key()]);
}
