//! PostgreSQL's schema (src/store/postgres/schema.sql, issue 35) against SQLite's:
//! a fresh store as the steward makes it, read through SQLite's PRAGMAs, and the
//! file applied with `psql` to a fresh database, read through PostgreSQL's
//! catalogs. Table by table and column by column they must agree: names and
//! order, types (through the mapping below), NOT NULL, defaults (as values),
//! primary keys, identity columns for SQLite's rowid aliases, UNIQUE constraints,
//! foreign keys, CHECK constraints and the other indexes; and the version. A
//! query of src/store that reads a hidden rowid needs a PostgreSQL column for it.
//!
//! The server comes from `PGSTACK_URL` (scripts/test starts one); without it the
//! test fails, so a run that skipped it never looks green.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use fairsteward::store::Store;

/// The file under test, relative to the crate root.
const SCHEMA: &str = "src/store/postgres/schema.sql";

/// SQLite's hidden rowid made a PostgreSQL column, where the code reads a row's
/// id as its rowid: (table, column, the files whose queries read it). See the
/// comment at each in the schema.
const HIDDEN_ROWIDS: &[(&str, &str, &[&str])] =
    &[("invitations", "rowid", &["src/store/invitations.rs", "src/store/postgres/copy.rs"])];

/// PostgreSQL's stand-in for `PRAGMA user_version`.
const VERSION_TABLE: &str = "schema_version";

/// A column's default, as a value rather than as either engine spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DefaultValue {
    Integer(i64),
    Text(String),
    /// Neither an integer nor a quoted string: compared as written.
    Other(String),
}

/// One column, in either engine's terms mapped to PostgreSQL's.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Column {
    name: String,
    /// PostgreSQL's type name (`bigint`, `text`, …).
    ty: String,
    not_null: bool,
    default: Option<DefaultValue>,
    /// Position in the primary key, from 1; 0: not in it.
    pk: usize,
    /// An identity column (PostgreSQL) or a rowid alias (SQLite).
    identity: bool,
    /// `C` for text compared as bytes; empty for a type without collation.
    collation: String,
}

/// A foreign key: its columns, the referenced table and columns, and its actions.
type ForeignKey = (Vec<String>, String, Vec<String>, String, String);

#[derive(Debug, Default, PartialEq)]
struct Table {
    columns: Vec<Column>,
    uniques: BTreeSet<Vec<String>>,
    foreign_keys: BTreeSet<ForeignKey>,
    checks: usize,
    /// Index name -> its definition in PostgreSQL's words.
    indexes: BTreeMap<String, String>,
}

#[test]
fn postgres_schema_matches_sqlite_at_the_latest_version() {
    let Some(url) = std::env::var("PGSTACK_URL").ok().filter(|u| !u.is_empty()) else {
        panic!(
            "PGSTACK_URL is not set: this test needs a PostgreSQL server. Run scripts/test, which starts \
             one, or set PGSTACK_URL=postgres://user@host:port/postgres"
        );
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema = std::fs::read_to_string(root.join(SCHEMA)).unwrap_or_else(|e| panic!("reading {SCHEMA}: {e}"));

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("steward.db");
    drop(Store::open(&db).expect("a fresh store opens"));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    let (sqlite, sqlite_indexes) = read_sqlite(&conn);

    let first_line = schema.lines().next().unwrap_or_default();
    assert!(
        first_line.contains(&format!("version {version}")),
        "{SCHEMA} opens with {first_line:?}; SQLite's store is at version {version}: add the migrations' \
         PostgreSQL counterparts and say the version there"
    );

    let pg = Database::create(&url);
    pg.run_file(&schema);
    let postgres = read_postgres(&pg);

    let mut differences = compare(&sqlite, &postgres);
    let stored = pg.query(&format!("SELECT version FROM {VERSION_TABLE}"));
    if stored != vec![vec![version.to_string()]] {
        differences.push(format!("{VERSION_TABLE} holds {stored:?}; it must hold one row, SQLite's {version}"));
    }
    // Each SQLite index, as PostgreSQL reads its own CREATE INDEX, against the
    // index the schema made: the same columns, expressions and WHERE.
    for (table, name, sql) in &sqlite_indexes {
        let Some(actual) = postgres.get(table).and_then(|t| t.indexes.get(name)) else {
            differences.push(format!("{table}: index {name} ({sql}) is missing in PostgreSQL"));
            continue;
        };
        match pg.reading_of(name, sql) {
            Ok(expected) if &expected == actual => {}
            Ok(expected) => differences.push(format!(
                "{table}: index {name}: SQLite's reads as {expected:?} in PostgreSQL, the schema has {actual:?}"
            )),
            Err(e) => differences.push(format!(
                "{table}: index {name}: SQLite's {sql:?} is not PostgreSQL ({e}); write its equivalent and \
                 teach this test the difference"
            )),
        }
    }
    // A query reading a table's hidden rowid (not through an INTEGER PRIMARY
    // KEY) needs a column for it in PostgreSQL, which has no rowid.
    for file in files_reading_rowids(&root.join("src/store")) {
        let file = file.strip_prefix(root).unwrap_or(&file).to_string_lossy().into_owned();
        if !HIDDEN_ROWIDS.iter().any(|(_, _, files)| files.contains(&file.as_str())) {
            differences.push(format!(
                "{file} reads a rowid: give its table a PostgreSQL column for it and list it in HIDDEN_ROWIDS"
            ));
        }
    }
    let sqlite_index_names: BTreeSet<&str> = sqlite_indexes.iter().map(|(_, n, _)| n.as_str()).collect();
    for (table, t) in &postgres {
        for name in t.indexes.keys().filter(|n| !sqlite_index_names.contains(n.as_str())) {
            differences.push(format!("{table}: index {name} is in PostgreSQL only"));
        }
    }
    assert!(
        differences.is_empty(),
        "{SCHEMA} differs from SQLite's schema at version {version}:\n  {}",
        differences.join("\n  ")
    );
}

/// The PostgreSQL schemas as released, one per earlier version (issue 36: the
/// migrations are tested from each): `schema.sql` as it stood at that version.
const EARLIER: &[(u32, &str)] =
    &[(19, "tests/it/store/data/postgres-schema-19.sql"), (20, "tests/it/store/data/postgres-schema-20.sql")];

/// Issue 36: a store at each earlier schema version, with a row in every
/// table, is brought up to date when a steward opens it: its schema then reads
/// as a new store's, and every row is kept.
#[test]
fn a_postgres_store_of_every_earlier_version_migrates_to_a_new_stores_schema() {
    let Some(url) = std::env::var("PGSTACK_URL").ok().filter(|u| !u.is_empty()) else {
        panic!("PGSTACK_URL is not set: this test needs a PostgreSQL server. Run scripts/test, which starts one");
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema = std::fs::read_to_string(root.join(SCHEMA)).unwrap();
    let fresh = Database::named(&url, "fresh");
    fresh.run_file(&schema);
    let expected = read_postgres(&fresh);
    let latest: u32 = fresh.query(&format!("SELECT version FROM {VERSION_TABLE}"))[0][0].parse().unwrap();
    let versions: Vec<u32> = EARLIER.iter().map(|(v, _)| *v).collect();
    assert_eq!(versions, (19..latest).collect::<Vec<_>>(), "EARLIER needs the schema of every released version");
    for (version, file) in EARLIER {
        let old = Database::named(&url, &format!("v{version}"));
        old.run_file(&std::fs::read_to_string(root.join(file)).unwrap());
        let tables = fill(&old);
        let pictures = tempfile::tempdir().unwrap();
        let (store_url, path) = (old.url.clone(), pictures.path().join("steward.db"));
        std::thread::spawn(move || drop(Store::connect(&store_url, &path, 1).expect("the old store opens")))
            .join()
            .unwrap();
        assert_eq!(old.query(&format!("SELECT version FROM {VERSION_TABLE}")), vec![vec![latest.to_string()]]);
        assert_eq!(read_postgres(&old), expected, "from version {version}: the schema differs from a new store's");
        for table in tables {
            let rows = old.query(&format!("SELECT count(*) FROM {table}"));
            assert_eq!(rows, vec![vec!["1".to_owned()]], "from version {version}: the row of {table}");
        }
    }
}

/// One row in every table of `db`, each column given a value of its type
/// (foreign keys not enforced while filling): a migration that cannot run
/// over rows fails on them, as it would on a club's store. Returns the tables.
fn fill(db: &Database) -> Vec<String> {
    let columns = db.query(
        "SELECT table_name, column_name, data_type FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name <> 'schema_version'
          ORDER BY table_name, ordinal_position",
    );
    let mut tables: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for c in columns {
        let value = match c[2].as_str() {
            "bigint" | "integer" | "smallint" => "1".to_owned(),
            "bytea" => "'\\x00'::bytea".to_owned(),
            "boolean" => "true".to_owned(),
            "double precision" | "real" | "numeric" => "1.0".to_owned(),
            _ if c[1].ends_with("_at") || c[1] == "at" || c[1] == "until" => "'2026-01-01T00:00:00.000Z'".to_owned(),
            _ => format!("'{}-{}'", c[0], c[1]),
        };
        let (names, values) = tables.entry(c[0].clone()).or_default();
        names.push(format!("\"{}\"", c[1]));
        values.push(value);
    }
    let mut script = String::from("SET session_replication_role = replica;\n");
    for (table, (names, values)) in &tables {
        script.push_str(&format!("INSERT INTO {table} ({}) VALUES ({});\n", names.join(", "), values.join(", ")));
    }
    db.run_file(&script);
    tables.into_keys().collect()
}

/// A `CREATE INDEX` of SQLite's: (table, index, its SQL).
type SqliteIndex = (String, String, String);

/// SQLite's tables, and its `CREATE INDEX` statements.
fn read_sqlite(conn: &rusqlite::Connection) -> (BTreeMap<String, Table>, Vec<SqliteIndex>) {
    let rows = |sql: &str| -> Vec<Vec<rusqlite::types::Value>> {
        let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        let n = stmt.column_count();
        stmt.query_map([], |r| (0..n).map(|i| r.get(i)).collect()).unwrap().collect::<rusqlite::Result<_>>().unwrap()
    };
    let text = |v: &rusqlite::types::Value| match v {
        rusqlite::types::Value::Text(s) => s.clone(),
        rusqlite::types::Value::Integer(i) => i.to_string(),
        _ => String::new(),
    };
    let int = |v: &rusqlite::types::Value| match v {
        rusqlite::types::Value::Integer(i) => *i,
        _ => 0,
    };
    let mut tables = BTreeMap::new();
    let mut indexes = Vec::new();
    // (schema, name, type, ncol, wr, strict); SQLite's own tables (sqlite_sequence
    // for AUTOINCREMENT) have no counterpart.
    for t in rows("PRAGMA main.table_list") {
        let (name, kind, without_rowid, strict) = (text(&t[1]), text(&t[2]), int(&t[4]) == 1, int(&t[5]) == 1);
        if kind != "table" || name.starts_with("sqlite_") {
            continue;
        }
        let create: String = conn
            .query_row("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1", [&name], |r| r.get(0))
            .unwrap();
        let code = without_comments(&create).to_ascii_uppercase();
        // Every column compares as BINARY (bytes), which the PostgreSQL side
        // matches with COLLATE "C"; another collation needs its own mapping.
        assert!(!code.contains("COLLATE"), "{name}: a column collation; map it to PostgreSQL and here");
        let mut table =
            Table { checks: code.matches("CHECK (").count() + code.matches("CHECK(").count(), ..Table::default() };
        // (cid, name, type, notnull, dflt_value, pk)
        let info = rows(&format!("PRAGMA table_info(\"{name}\")"));
        let pk_columns = info.iter().filter(|c| int(&c[5]) > 0).count();
        for c in &info {
            let (column, declared, pk) = (text(&c[1]), text(&c[2]).to_ascii_uppercase(), int(&c[5]) as usize);
            let ty = match declared.as_str() {
                "INTEGER" => "bigint",
                "TEXT" => "text",
                "BLOB" => "bytea",
                "REAL" => "double precision",
                other => panic!("{name}.{column}: SQLite type {other:?} has no PostgreSQL mapping here"),
            };
            // A rowid table's lone INTEGER PRIMARY KEY is the rowid itself: the
            // id SQLite gives a new row, which PostgreSQL's identity gives.
            let identity = !without_rowid && pk == 1 && pk_columns == 1 && declared == "INTEGER";
            // STRICT makes key columns NOT NULL; a rowid alias is never NULL.
            let not_null = int(&c[3]) == 1 || identity || (pk > 0 && (strict || without_rowid));
            assert!(pk == 0 || not_null, "{name}.{column}: a key column that may be NULL has no PostgreSQL form");
            table.columns.push(Column {
                name: column,
                ty: ty.into(),
                not_null,
                default: match &c[4] {
                    rusqlite::types::Value::Null => None,
                    v => Some(literal(&text(v))),
                },
                pk,
                identity,
                collation: if ty == "text" { "C".into() } else { String::new() },
            });
        }
        // (seq, name, unique, origin, partial): origin u is a UNIQUE constraint,
        // pk the primary key (above), c a CREATE INDEX.
        for i in rows(&format!("PRAGMA index_list(\"{name}\")")) {
            let (index, origin) = (text(&i[1]), text(&i[3]));
            match origin.as_str() {
                "u" => {
                    let columns =
                        rows(&format!("PRAGMA index_info(\"{index}\")")).iter().map(|c| text(&c[2])).collect();
                    table.uniques.insert(columns);
                }
                "c" => {
                    let sql: String = conn
                        .query_row("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?1", [&index], |r| {
                            r.get(0)
                        })
                        .unwrap();
                    indexes.push((name.clone(), index, sql));
                }
                _ => {}
            }
        }
        // (id, seq, table, from, to, on_update, on_delete, match), one row per column.
        let mut keys: BTreeMap<i64, ForeignKey> = BTreeMap::new();
        for f in rows(&format!("PRAGMA foreign_key_list(\"{name}\")")) {
            let key = keys.entry(int(&f[0])).or_insert_with(|| {
                (
                    Vec::new(),
                    text(&f[2]),
                    Vec::new(),
                    text(&f[5]).to_ascii_uppercase(),
                    text(&f[6]).to_ascii_uppercase(),
                )
            });
            key.0.push(text(&f[3]));
            key.2.push(text(&f[4]));
        }
        table.foreign_keys = keys.into_values().collect();
        tables.insert(name, table);
    }
    (tables, indexes)
}

/// PostgreSQL's tables in the database's current schema, but the version table.
fn read_postgres(pg: &Database) -> BTreeMap<String, Table> {
    let mut tables: BTreeMap<String, Table> = BTreeMap::new();
    let here = "c.relnamespace = current_schema()::regnamespace";
    let columns = pg.query(&format!(
        "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                coalesce(pg_get_expr(d.adbin, d.adrelid), ''), d.adbin IS NOT NULL, a.attidentity,
                coalesce(co.collname, '')
           FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
           LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
           LEFT JOIN pg_collation co ON co.oid = a.attcollation
          WHERE {here} AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY c.relname, a.attnum"
    ));
    for r in columns {
        let identity = match r[6].as_str() {
            "" => false,
            "d" => true,
            // ALWAYS would refuse the ids a copy from SQLite brings.
            _ => panic!("{}.{}: an identity GENERATED ALWAYS; use BY DEFAULT", r[0], r[1]),
        };
        tables.entry(r[0].clone()).or_default().columns.push(Column {
            name: r[1].clone(),
            ty: r[2].clone(),
            not_null: r[3] == "t",
            default: (r[5] == "t").then(|| literal(&r[4])),
            pk: 0,
            identity,
            collation: r[7].clone(),
        });
    }
    let names = |key: &str, rel: &str| {
        format!(
            "coalesce((SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest({key}) WITH ORDINALITY k(n, i)
                JOIN pg_attribute a ON a.attrelid = {rel} AND a.attnum = k.n), '')"
        )
    };
    let constraints = pg.query(&format!(
        "SELECT c.relname, con.contype, {}, coalesce(f.relname, ''), {}, con.confupdtype, con.confdeltype
           FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
           LEFT JOIN pg_class f ON f.oid = con.confrelid
          WHERE {here}
          ORDER BY c.relname, con.conname",
        names("con.conkey", "con.conrelid"),
        names("con.confkey", "con.confrelid"),
    ));
    // pg_constraint's action codes, in SQLite's words.
    let action = |code: &str| {
        match code {
            "a" => "NO ACTION",
            "r" => "RESTRICT",
            "c" => "CASCADE",
            "n" => "SET NULL",
            "d" => "SET DEFAULT",
            _ => "?",
        }
        .to_string()
    };
    for r in constraints {
        let table = tables.entry(r[0].clone()).or_default();
        let columns: Vec<String> = r[2].split(',').map(str::to_owned).collect();
        match r[1].as_str() {
            "p" => {
                for (at, name) in columns.iter().enumerate() {
                    if let Some(c) = table.columns.iter_mut().find(|c| &c.name == name) {
                        c.pk = at + 1;
                    }
                }
            }
            "u" => {
                table.uniques.insert(columns);
            }
            "f" => {
                let to = r[4].split(',').map(str::to_owned).collect();
                table.foreign_keys.insert((columns, r[3].clone(), to, action(&r[5]), action(&r[6])));
            }
            "c" => table.checks += 1,
            other => panic!("{}: a constraint of kind {other:?} this test does not know", r[0]),
        }
    }
    // The indexes no key or UNIQUE constraint made.
    let indexes = pg.query(&format!(
        "SELECT c.relname, i.relname, pg_get_indexdef(x.indexrelid)
           FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
          WHERE {here} AND NOT EXISTS (
                SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.contype IN ('p', 'u', 'x'))"
    ));
    for r in indexes {
        tables.entry(r[0].clone()).or_default().indexes.insert(r[1].clone(), r[2].clone());
    }
    tables.remove(VERSION_TABLE);
    tables
}

/// Every difference, one line each, naming the table and column.
fn compare(sqlite: &BTreeMap<String, Table>, postgres: &BTreeMap<String, Table>) -> Vec<String> {
    let mut out = Vec::new();
    for name in postgres.keys().filter(|n| !sqlite.contains_key(*n)) {
        out.push(format!("{name}: a table in PostgreSQL only"));
    }
    for (name, s) in sqlite {
        let Some(p) = postgres.get(name) else {
            out.push(format!("{name}: a table missing in PostgreSQL"));
            continue;
        };
        let mut p_columns = p.columns.clone();
        let mut p_uniques = p.uniques.clone();
        for &(_, hidden, _) in HIDDEN_ROWIDS.iter().filter(|(t, _, _)| t == name) {
            match p_columns.iter().position(|c| c.name == hidden) {
                Some(at) => {
                    let c = p_columns.remove(at);
                    if !(c.identity && c.not_null && c.ty == "bigint" && p_uniques.remove(&vec![hidden.to_owned()])) {
                        out.push(format!(
                            "{name}.{hidden}: SQLite's rowid needs a unique bigint identity, found {c:?}"
                        ));
                    }
                }
                None => {
                    out.push(format!("{name}.{hidden}: SQLite's rowid, read by the code, is missing in PostgreSQL"))
                }
            }
            if s.columns.iter().any(|c| c.name == hidden) {
                out.push(format!("{name}.{hidden}: SQLite has a real column of the name of its hidden rowid"));
            }
        }
        let order = |cs: &[Column]| cs.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        if order(&s.columns) != order(&p_columns) {
            out.push(format!(
                "{name}: columns differ: SQLite {:?}, PostgreSQL {:?}",
                order(&s.columns),
                order(&p_columns)
            ));
        }
        for sc in &s.columns {
            let Some(pc) = p_columns.iter().find(|c| c.name == sc.name) else { continue };
            let column = format!("{name}.{}", sc.name);
            let mut differs = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
                out.push(format!("{column}: {what}: SQLite {a:?}, PostgreSQL {b:?}"));
            };
            if sc.ty != pc.ty {
                differs("type (SQLite's mapped)", &sc.ty, &pc.ty);
            }
            if sc.not_null != pc.not_null {
                differs("NOT NULL", &sc.not_null, &pc.not_null);
            }
            if sc.default != pc.default {
                differs("default", &sc.default, &pc.default);
            }
            if sc.pk != pc.pk {
                differs("position in the primary key", &sc.pk, &pc.pk);
            }
            if sc.identity != pc.identity {
                differs("rowid alias / identity", &sc.identity, &pc.identity);
            }
            if sc.collation != pc.collation {
                differs("collation (SQLite's BINARY is \"C\")", &sc.collation, &pc.collation);
            }
        }
        if s.uniques != p_uniques {
            out.push(format!("{name}: UNIQUE constraints differ: SQLite {:?}, PostgreSQL {p_uniques:?}", s.uniques));
        }
        if s.foreign_keys != p.foreign_keys {
            out.push(format!(
                "{name}: foreign keys differ: SQLite {:?}, PostgreSQL {:?}",
                s.foreign_keys, p.foreign_keys
            ));
        }
        if s.checks != p.checks {
            out.push(format!("{name}: CHECK constraints: SQLite {}, PostgreSQL {}", s.checks, p.checks));
        }
    }
    out
}

/// A default as a value: `0`, `'text'` (SQLite), `'text'::text` (PostgreSQL).
fn literal(written: &str) -> DefaultValue {
    let w = written.trim();
    if let Ok(i) = w.parse() {
        return DefaultValue::Integer(i);
    }
    if let Some(rest) = w.strip_prefix('\'')
        && let Some(end) = rest.rfind('\'')
    {
        let tail = &rest[end + 1..];
        if tail.is_empty() || tail.starts_with("::") {
            return DefaultValue::Text(rest[..end].replace("''", "'"));
        }
    }
    DefaultValue::Other(w.to_owned())
}

/// The Rust files under `dir` naming `rowid` as a word (not `last_insert_rowid`,
/// which an INTEGER PRIMARY KEY's identity answers).
fn files_reading_rowids(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_reading_rowids(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let word = |at: usize| {
                let before = text[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_');
                let after = text[at + 5..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_');
                !before && !after
            };
            if text.match_indices("rowid").any(|(at, _)| word(at)) {
                out.push(path);
            }
        }
    }
    out
}

/// SQL without its `--` comments (none of this schema's strings holds `--`).
fn without_comments(sql: &str) -> String {
    sql.lines().map(|l| l.split("--").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// A database of its own on the server, dropped when the test ends (passed or not).
struct Database {
    server: String,
    url: String,
    name: String,
}

impl Database {
    fn create(server: &str) -> Database {
        Database::named(server, "schema")
    }

    /// A fresh database of its own for this process and `tag`.
    fn named(server: &str, tag: &str) -> Database {
        let name = format!("fs_{tag}_{}", std::process::id());
        let db = Database { server: server.to_owned(), url: with_database(server, &name), name };
        // A database left by an earlier run under the same process id.
        psql(&db.server, &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", db.name))
            .unwrap_or_else(|e| panic!("{e}"));
        psql(&db.server, &format!("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'", db.name))
            .unwrap_or_else(|e| panic!("{e}"));
        db
    }

    /// Runs a file of SQL in one transaction, stopping at the first error.
    fn run_file(&self, sql: &str) {
        run_psql(&self.url, &["-1", "-f", "-"], sql).unwrap_or_else(|e| panic!("applying {SCHEMA}: {e}"));
    }

    fn query(&self, sql: &str) -> Vec<Vec<String>> {
        psql(&self.url, sql)
            .unwrap_or_else(|e| panic!("{e}"))
            .lines()
            .map(|l| l.split('\u{1f}').map(str::to_owned).collect())
            .collect()
    }

    /// PostgreSQL's definition of SQLite's `CREATE INDEX` for `index`, made in
    /// place of the schema's own inside a transaction that is rolled back.
    fn reading_of(&self, index: &str, sql: &str) -> Result<String, String> {
        let script =
            format!("BEGIN;\nDROP INDEX {index};\n{sql};\nSELECT pg_get_indexdef('{index}'::regclass);\nROLLBACK;\n");
        run_psql(&self.url, &["-f", "-"], &script).map(|out| out.trim().to_owned())
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Err(e) = psql(&self.server, &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)) {
            eprintln!("could not drop the test's database {}: {e}", self.name);
        }
    }
}

/// `url` with its database name replaced by `name` (the query string kept).
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let host_at = base.find("://").map_or(0, |i| i + 3);
    let base = match base[host_at..].find('/') {
        Some(slash) => format!("{}/{name}", &base[..host_at + slash]),
        None => format!("{base}/{name}"),
    };
    query.map_or(base.clone(), |q| format!("{base}?{q}"))
}

fn psql(url: &str, sql: &str) -> Result<String, String> {
    run_psql(url, &["-c", sql], "")
}

/// `psql` unaligned and tuples only, fields split by U+001F, stopping at the
/// first error; `input` on its stdin.
fn run_psql(url: &str, args: &[&str], input: &str) -> Result<String, String> {
    let mut child = Command::new("psql")
        .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-F", "\u{1f}", "-d", url])
        .args(args)
        .env("PGCONNECT_TIMEOUT", "10")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("psql does not start ({e}): install Debian's postgresql-client"));
    child.stdin.take().expect("stdin is piped").write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("psql on {url}: {}", String::from_utf8_lossy(&out.stderr).trim()))
    }
}
