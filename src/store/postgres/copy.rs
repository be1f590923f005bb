//! Moving a SQLite store to PostgreSQL (issue 35, `fairsteward migrate --to`):
//! every row of every table copied as it is, ids kept, in one PostgreSQL
//! transaction, into a database that holds no store yet.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::super::StoreError;
use super::super::sql::{Conn, Owned, Value};

/// What [`copy_sqlite`] copied: each table and its rows, in the order copied.
#[derive(Debug, Default, serde::Serialize)]
pub struct CopyReport {
    /// `(table, rows)`.
    pub tables: Vec<(String, u64)>,
}

/// The tables in the order PostgreSQL's schema creates them (a table after
/// those it references), read from `schema.sql`.
fn tables_in_order() -> Vec<&'static str> {
    super::SCHEMA
        .lines()
        .filter_map(|l| l.strip_prefix("CREATE TABLE "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|t| *t != "schema_version")
        .collect()
}

/// Copies the SQLite store at `from` (which must be at this program's schema
/// version; open it with the steward first to migrate it) into the empty
/// PostgreSQL store at `to`, creating its schema.
///
/// # Errors
/// Either database cannot be opened; the SQLite store is at another version;
/// the PostgreSQL store already holds games; a row does not copy.
pub fn copy_sqlite(from: &Path, to: &str) -> Result<CopyReport, StoreError> {
    let lite = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    let version: u32 = lite.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version != super::VERSION {
        return Err(StoreError::Corrupt(format!(
            "the SQLite store {} has schema version {version}, not this program's {}; run this version of fairsteward on it once (serve, or game list) to bring it up to date, then migrate",
            from.display(),
            super::VERSION
        )));
    }
    let pg = std::cell::RefCell::new(super::open(to)?);
    let target = Conn::Postgres(&pg);
    let games: i64 = target.query_row("SELECT COUNT(*) FROM games", [], |r| r.get(0))?;
    if games > 0 {
        return Err(StoreError::Corrupt(format!(
            "the PostgreSQL store {} already holds {games} games; migrate into an empty database",
            super::redacted(to)
        )));
    }
    pg.borrow_mut().begin()?;
    let copied = copy_tables(&lite, target);
    let report = match copied {
        Ok(report) => {
            pg.borrow_mut().commit("")?;
            report
        }
        Err(e) => {
            let _ = pg.borrow_mut().rollback();
            return Err(e);
        }
    };
    Ok(report)
}

fn copy_tables(lite: &Connection, target: Conn<'_>) -> Result<CopyReport, StoreError> {
    let mut report = CopyReport::default();
    for table in tables_in_order() {
        let mut columns: Vec<String> = lite
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}') ORDER BY cid"))?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        // The store addresses invitations by SQLite's hidden rowid, a column
        // of its own on PostgreSQL.
        let select = if table == "invitations" {
            columns.insert(0, "rowid".into());
            format!("SELECT rowid, * FROM {table} ORDER BY rowid")
        } else {
            format!("SELECT * FROM {table}")
        };
        let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
        let insert = format!("INSERT INTO {table} ({}) VALUES ({})", columns.join(", "), placeholders.join(", "));
        let mut read = lite.prepare(&select)?;
        let mut rows = read.query([])?;
        let mut write = target.prepare_cached(&insert)?;
        let mut n = 0u64;
        while let Some(row) = rows.next()? {
            let values: Vec<Owned> =
                (0..columns.len()).map(|i| Owned::of_sqlite(row.get_ref(i)?)).collect::<Result<_, StoreError>>()?;
            let params: Vec<Value<'_>> = values.iter().map(Owned::as_value).collect();
            write.execute(super::super::sql::params_from_iter(params))?;
            n += 1;
        }
        report.tables.push((table.to_owned(), n));
    }
    // The SQLite steward's claims and leases die with it: the stewards on
    // PostgreSQL take the mails and duties at once.
    target.execute_batch("UPDATE outbox SET claimed_by = NULL, claimed_until = NULL; DELETE FROM leases")?;
    // The identities go on after the ids copied.
    let identities: Vec<(String, String)> = target
        .prepare_cached(
            "SELECT table_name, column_name FROM information_schema.columns
                  WHERE is_identity = 'YES' AND table_schema = current_schema() ORDER BY table_name",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, StoreError>>()?;
    for (table, column) in identities {
        target.execute_batch(&format!(
            "SELECT setval(pg_get_serial_sequence('{table}', '{column}'), COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)"
        ))?;
    }
    Ok(report)
}
