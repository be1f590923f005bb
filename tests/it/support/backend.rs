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

/// Whether to skip a test whose point is SQLite's file (see [`SQLITE_ONLY`]):
/// on PostgreSQL it says so on stderr, with `why`, and returns true.
pub fn skip_on_postgres(why: &str) -> bool {
    if on_postgres() {
        eprintln!("skipped on PostgreSQL: {why}");
    }
    on_postgres()
}

/// The tests that start with [`skip_on_postgres`]: their point is SQLite's
/// file itself, which a PostgreSQL store does not have.
pub const SQLITE_ONLY: &[&str] = &[
    "operator::a_backup_taken_while_serving_restores_into_a_new_data_directory: `backup` is SQLite's online backup",
    "store::startup::a_truncated_database_is_refused_not_started_empty: a truncated steward.db",
    "store::startup::a_corrupted_database_fails_the_integrity_check: garbled pages and SQLite's integrity_check",
    "store::startup::a_deleted_database_beside_the_keys_is_refused: a deleted steward.db",
    "store::startup::damage_found_beside_the_requests_after_a_clean_stop_stops_the_steward: SQLite's integrity_check beside the requests",
    "operator::backups_run_by_themselves_keep_the_newest_and_restore_a_working_steward: [backup] is SQLite's online backup",
    "package::the_package_installs_starts_upgrades_in_place_and_takes_over_an_earlier_data_directory: the packaged configuration runs SQLite's store",
];

/// One value read from the store (or bound into a statement): what SQLite
/// stores and what the PostgreSQL schema's BIGINT, TEXT and BYTEA columns hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
}

impl Cell {
    /// The integer; panics on anything else.
    #[track_caller]
    pub fn int(&self) -> i64 {
        match self {
            Cell::Int(n) => *n,
            other => panic!("not an integer: {other:?}"),
        }
    }

    /// The text; panics on anything else.
    #[track_caller]
    pub fn text(&self) -> String {
        self.opt_text().unwrap_or_else(|| panic!("NULL where text was expected"))
    }

    /// The text, or `None` for NULL; panics on anything else.
    #[track_caller]
    pub fn opt_text(&self) -> Option<String> {
        match self {
            Cell::Null => None,
            Cell::Text(t) => Some(t.clone()),
            other => panic!("not text: {other:?}"),
        }
    }

    /// The bytes (of a blob, or of a text); panics on anything else.
    #[track_caller]
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Cell::Bytes(b) => b.clone(),
            Cell::Text(t) => t.clone().into_bytes(),
            other => panic!("not bytes: {other:?}"),
        }
    }

    /// The cell as raw bytes for a search: text and blobs as they are, numbers
    /// in decimal, NULL as nothing.
    fn raw(&self) -> Vec<u8> {
        match self {
            Cell::Null => Vec::new(),
            Cell::Int(n) => n.to_string().into_bytes(),
            Cell::Text(t) => t.clone().into_bytes(),
            Cell::Bytes(b) => b.clone(),
        }
    }
}

impl From<i64> for Cell {
    fn from(n: i64) -> Cell {
        Cell::Int(n)
    }
}

impl From<&str> for Cell {
    fn from(t: &str) -> Cell {
        Cell::Text(t.to_owned())
    }
}

impl From<&String> for Cell {
    fn from(t: &String) -> Cell {
        Cell::Text(t.clone())
    }
}

impl From<String> for Cell {
    fn from(t: String) -> Cell {
        Cell::Text(t)
    }
}

/// The store of one data directory as a test reads and changes it behind the
/// steward's back, on either backend: SQLite's `steward.db` in the directory,
/// or the PostgreSQL schema [`database_for`] gave it. SQL is written for
/// SQLite with `?1`, `?2` parameters (turned into `$1`, `$2` on PostgreSQL),
/// and in the SQL both speak (no `rowid`: order by a real column).
pub struct Db {
    at: Place,
}

enum Place {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Db {
    /// The store of `data_dir`.
    pub fn of(data_dir: &Path) -> Db {
        match database_for(data_dir) {
            Some(url) => Db { at: Place::Postgres(url) },
            None => Db { at: Place::Sqlite(data_dir.join("steward.db")) },
        }
    }

    /// The rows `sql` gives with `params` bound, every cell read.
    #[track_caller]
    pub fn rows(&self, sql: &str, params: &[Cell]) -> Vec<Vec<Cell>> {
        match &self.at {
            Place::Sqlite(path) => {
                let conn = sqlite(path);
                let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
                let columns = stmt.column_count();
                let mut rows = stmt.query(rusqlite::params_from_iter(params.iter().map(to_sqlite))).unwrap();
                let mut out = Vec::new();
                while let Some(row) = rows.next().unwrap_or_else(|e| panic!("{sql}: {e}")) {
                    out.push((0..columns).map(|i| of_sqlite(row.get_ref(i).unwrap())).collect());
                }
                out
            }
            Place::Postgres(url) => {
                let (url, sql, params) = (url.clone(), dollars(sql), params.to_vec());
                on_own_thread(move || {
                    let mut client = postgres::Client::connect(&url, postgres::NoTls).expect("connect to the store");
                    let binds: Vec<&(dyn postgres::types::ToSql + Sync)> = params.iter().map(to_postgres).collect();
                    let rows = client.query(&sql, &binds).unwrap_or_else(|e| panic!("{sql}: {e}"));
                    rows.iter().map(|row| (0..row.len()).map(|i| of_postgres(row, i)).collect()).collect()
                })
            }
        }
    }

    /// The first cell of the one row `sql` gives, as an integer (a `count(*)`).
    #[track_caller]
    pub fn count(&self, sql: &str, params: &[Cell]) -> i64 {
        self.one(sql, params).map(|c| c.int()).unwrap_or_else(|| panic!("{sql}: no row"))
    }

    /// The first cell of the first row `sql` gives, if there is a row.
    #[track_caller]
    pub fn one(&self, sql: &str, params: &[Cell]) -> Option<Cell> {
        self.rows(sql, params).into_iter().next().map(|mut r| r.swap_remove(0))
    }

    /// Runs one statement; the rows it changed.
    #[track_caller]
    pub fn execute(&self, sql: &str, params: &[Cell]) -> usize {
        match &self.at {
            Place::Sqlite(path) => sqlite(path)
                .execute(sql, rusqlite::params_from_iter(params.iter().map(to_sqlite)))
                .unwrap_or_else(|e| panic!("{sql}: {e}")),
            Place::Postgres(url) => {
                let (url, sql, params) = (url.clone(), dollars(sql), params.to_vec());
                on_own_thread(move || {
                    let mut client = postgres::Client::connect(&url, postgres::NoTls).expect("connect to the store");
                    let binds: Vec<&(dyn postgres::types::ToSql + Sync)> = params.iter().map(to_postgres).collect();
                    client.execute(&sql, &binds).unwrap_or_else(|e| panic!("{sql}: {e}")) as usize
                })
            }
        }
    }

    /// Runs statements without parameters, `;`-separated (SQL of the backend
    /// at hand: see [`Db::is_postgres`]).
    #[track_caller]
    pub fn batch(&self, sql: &str) {
        match &self.at {
            Place::Sqlite(path) => sqlite(path).execute_batch(sql).unwrap_or_else(|e| panic!("{sql}: {e}")),
            Place::Postgres(url) => {
                let (url, sql) = (url.clone(), sql.to_owned());
                on_own_thread(move || {
                    let mut client = postgres::Client::connect(&url, postgres::NoTls).expect("connect to the store");
                    client.batch_execute(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
                })
            }
        }
    }

    /// Whether this store is on PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        matches!(self.at, Place::Postgres(_))
    }

    /// Every cell of every table of the store, one after the other (a newline
    /// between them), for the tests that search the store for what must not be
    /// there in clear: on SQLite the tests read the files themselves, so this
    /// is for PostgreSQL, whose store is in no file of the data directory.
    pub fn every_cell(&self) -> Vec<u8> {
        let tables: Vec<String> = match &self.at {
            Place::Sqlite(_) => self.rows("SELECT name FROM sqlite_master WHERE type = 'table'", &[]),
            Place::Postgres(_) => self.rows(
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
                &[],
            ),
        }
        .iter()
        .map(|r| r[0].text())
        .collect();
        let mut out = Vec::new();
        for table in tables {
            for row in self.rows(&format!("SELECT * FROM \"{table}\""), &[]) {
                for cell in row {
                    out.extend(cell.raw());
                    out.push(b'\n');
                }
            }
        }
        out
    }
}

/// The places outside the data directory's files where the store of
/// `data_dir` keeps what it keeps, for the searches of tests/it/support/leak.rs:
/// on PostgreSQL the store's every cell ([`Db::every_cell`]) as the place
/// [`STORE_PLACE`]; nothing on SQLite, whose `steward.db*` files are read.
pub fn store_places(data_dir: &Path) -> Vec<(String, Vec<u8>)> {
    if !on_postgres() {
        return Vec::new();
    }
    vec![(STORE_PLACE.to_owned(), Db::of(data_dir).every_cell())]
}

/// The name of the PostgreSQL store among the places [`store_places`] lists.
pub const STORE_PLACE: &str = "the PostgreSQL store";

/// Whether a place (a file under the data directory, or one of
/// [`store_places`]) is the store: SQLite's `steward.db`, its WAL, SHM and
/// pictures, or the PostgreSQL store.
pub fn is_store_place(name: &str) -> bool {
    name.starts_with("steward.db") || name == STORE_PLACE
}

/// A connection to SQLite's file that waits for the steward's writes.
fn sqlite(path: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    conn.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
    conn
}

fn to_sqlite(cell: &Cell) -> rusqlite::types::Value {
    match cell {
        Cell::Null => rusqlite::types::Value::Null,
        Cell::Int(n) => rusqlite::types::Value::Integer(*n),
        Cell::Text(t) => rusqlite::types::Value::Text(t.clone()),
        Cell::Bytes(b) => rusqlite::types::Value::Blob(b.clone()),
    }
}

fn of_sqlite(v: rusqlite::types::ValueRef<'_>) -> Cell {
    use rusqlite::types::ValueRef;
    match v {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(n) => Cell::Int(n),
        ValueRef::Real(f) => panic!("a REAL ({f}) in the store"),
        ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Cell::Bytes(b.to_vec()),
    }
}

/// SQLite's `?N` parameters as PostgreSQL's `$N`.
fn dollars(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

fn to_postgres(cell: &Cell) -> &(dyn postgres::types::ToSql + Sync) {
    static NULL: Option<i64> = None;
    match cell {
        Cell::Null => &NULL,
        Cell::Int(n) => n,
        Cell::Text(t) => t,
        Cell::Bytes(b) => b,
    }
}

fn of_postgres(row: &postgres::Row, i: usize) -> Cell {
    use postgres::types::Type;
    let ty = row.columns()[i].type_().clone();
    let cell = match ty {
        Type::INT8 => row.get::<_, Option<i64>>(i).map(Cell::Int),
        Type::INT4 => row.get::<_, Option<i32>>(i).map(|n| Cell::Int(n.into())),
        Type::INT2 => row.get::<_, Option<i16>>(i).map(|n| Cell::Int(n.into())),
        Type::BOOL => row.get::<_, Option<bool>>(i).map(|b| Cell::Int(b.into())),
        Type::TEXT | Type::VARCHAR | Type::NAME | Type::BPCHAR => row.get::<_, Option<String>>(i).map(Cell::Text),
        Type::BYTEA => row.get::<_, Option<Vec<u8>>>(i).map(Cell::Bytes),
        other => panic!("column {i} is of type {other}, which the tests do not read"),
    };
    cell.unwrap_or(Cell::Null)
}

/// Runs `f` on a thread of its own: the `postgres` client blocks on a runtime
/// of its own, which it cannot start on a test's runtime thread.
fn on_own_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(f).join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The store of `data_dir` opened in this process, as the steward opens it:
/// SQLite's `steward.db` there, or the PostgreSQL schema [`database_for`] gave
/// it (its pictures beside where the SQLite file would be, as the steward keeps them).
pub fn open_store(data_dir: &Path) -> fairsteward::store::Store {
    let config = super::in_process::config(data_dir);
    match &config.database_url {
        Some(url) => fairsteward::store::Store::connect(url, &config.database(), config.database_threads),
        None => fairsteward::store::Store::open(&config.database()),
    }
    .expect("the store opens")
}

/// [`SQLITE_ONLY`] names exactly the tests that call [`skip_on_postgres`]:
/// a test skipped on PostgreSQL is never skipped unlisted.
#[test]
fn sqlite_only_names_every_skipped_test() {
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut skipping = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("support/backend.rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        let module = file.strip_prefix(&root).unwrap().with_extension("");
        let module: Vec<&str> = module.iter().map(|c| c.to_str().unwrap()).filter(|c| *c != "mod").collect();
        for (at, _) in text.match_indices("skip_on_postgres(") {
            let before = &text[..at];
            let name = before[before.rfind("fn ").expect("a skip inside a function") + 3..]
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap();
            skipping.push(format!("{}::{name}", module.join("::")));
        }
    }
    let mut listed: Vec<String> =
        SQLITE_ONLY.iter().map(|e| e.split_once(": ").expect("name: reason").0.to_owned()).collect();
    skipping.sort();
    listed.sort();
    assert_eq!(skipping, listed, "the tests skipped on PostgreSQL and SQLITE_ONLY");
}
