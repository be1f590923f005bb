//! Which store the tests run on (issue 35): SQLite's file in each data
//! directory (the default), or, with `FAIRSTEWARD_TEST_BACKEND=postgres`, the
//! real PostgreSQL that `scripts/test` starts (`scripts/pgstack.sh`, which
//! exports `PGSTACK_URL`).
//!
//! On PostgreSQL every data directory gets a store of its own: a schema named
//! after the directory in the test database, reached through the URL's
//! `search_path`, so tests running side by side never see each other's games
//! (a schema costs nothing to make, where a database copies its template).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Whether this run tests the PostgreSQL store.
pub fn on_postgres() -> bool {
    std::env::var("FAIRSTEWARD_TEST_BACKEND").is_ok_and(|b| b == "postgres")
}

/// The test PostgreSQL's URL (its `postgres` database).
#[track_caller]
pub fn server_url() -> String {
    std::env::var("PGSTACK_URL").unwrap_or_else(|_| {
        panic!(
            "PGSTACK_URL is not set: the PostgreSQL tests need the local server. Run the tests with scripts/test, \
             which starts it (scripts/pgstack.sh), or, as root, eval \"$(scripts/pgstack.sh)\" before cargo test"
        )
    })
}

/// A store URL of its own for `name` on the test PostgreSQL: a fresh schema,
/// reached through the URL's `search_path`.
pub fn fresh_store_url(name: &str) -> String {
    let schema = format!("t_{name}");
    let server = server_url();
    let create = format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}");
    // The client blocks on a runtime of its own: not on a test's runtime thread.
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&server, postgres::NoTls).expect("connect to the test PostgreSQL");
        client.batch_execute(&create).expect("create the test schema");
    })
    .join()
    .expect("the schema is made");
    let sep = if server_url().contains('?') { '&' } else { '?' };
    format!("{}{sep}options=-csearch_path%3D{schema}", server_url())
}

/// The store URL of the data directory `data_dir` when this run tests
/// PostgreSQL (the same URL for the same directory, so a steward started again
/// on it finds its games); `None` on SQLite.
pub fn database_for(data_dir: &Path) -> Option<String> {
    if !on_postgres() {
        return None;
    }
    static MADE: Mutex<Option<HashMap<PathBuf, String>>> = Mutex::new(None);
    let key = data_dir.to_owned();
    let mut made = MADE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let made = made.get_or_insert_with(HashMap::new);
    if let Some(url) = made.get(&key) {
        return Some(url.clone());
    }
    let digest = ring::digest::digest(&ring::digest::SHA256, key.as_os_str().as_encoded_bytes());
    let name: String = digest.as_ref().iter().take(10).map(|b| format!("{b:02x}")).collect();
    let url = fresh_store_url(&name);
    made.insert(key, url.clone());
    Some(url)
}

/// The environment that points a `fairsteward` command at the store of
/// `data_dir` (nothing on SQLite, whose store the data directory holds).
pub fn database_env(data_dir: &Path) -> Vec<(&'static str, String)> {
    database_for(data_dir).map(|url| vec![("FAIRSTEWARD_DATABASE", url)]).unwrap_or_default()
}

/// [`database_env`] for the data directory a command line names
/// (`--data-dir DIR`), if it names one.
pub fn database_env_of_args<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Vec<(&'static str, String)> {
    args.windows(2)
        .find(|w| w[0].as_ref() == "--data-dir")
        .map(|w| database_env(Path::new(w[1].as_ref())))
        .unwrap_or_default()
}
