//! The store's SQL, whichever database runs it (issue 35): one connection type
//! with the few calls the store makes (`prepare_cached`, `execute`,
//! `query_row`, `query_map`), parameters, rows and column values, over SQLite
//! (rusqlite) or PostgreSQL (the `postgres` crate).
//!
//! The store's statements are written once, in the SQL both databases read
//! (`?1` parameters, `ON CONFLICT`, `RETURNING`); for PostgreSQL the
//! parameters become `$1` here. Where the two differ, the statement asks
//! [`Conn::backend`]. Values are SQLite's few kinds (integer, real, text,
//! bytes, null) on both sides: a PostgreSQL column reads as the kind its type
//! holds, and a parameter is written as the type PostgreSQL inferred for it,
//! so the store's Rust types need not know which database runs.

use std::cell::RefCell;
use std::collections::HashMap;

use super::StoreError;

/// The result of the store's SQL calls.
pub(crate) type Res<T> = Result<T, StoreError>;

/// Which database runs the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// One SQLite file (the default).
    Sqlite,
    /// A PostgreSQL server (issue 35).
    Postgres,
}

/// A PostgreSQL connection with its prepared statements (the store prepares
/// each statement once per connection, as SQLite's statement cache does).
pub(crate) struct PgConn {
    pub(crate) client: postgres::Client,
    statements: HashMap<String, postgres::Statement>,
    /// Whether a statement of the open transaction failed: PostgreSQL then
    /// refuses everything up to a rollback (to a savepoint), where SQLite goes
    /// on, so a closure that went on after an error must not be committed.
    aborted: bool,
    /// Where the closure's transaction stands. `BEGIN` waits for the first
    /// statement that is not a plain read: in READ COMMITTED every statement
    /// sees its own snapshot inside a transaction as well, so reads before it
    /// are the same outside, and a closure that only reads costs no `BEGIN`
    /// and `COMMIT` round trips.
    state: TxState,
    /// Statements without parameters or results (a savepoint's `RELEASE`)
    /// held back to travel with the next ones, a round trip fewer each.
    later: String,
}

/// Whether `BEGIN` was sent for the closure running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TxState {
    /// No closure runs.
    Idle,
    /// A closure runs; nothing it did needed a transaction yet.
    Pending,
    /// `BEGIN` was sent.
    Open,
}

/// Whether `sql` only reads, so that it may run before the transaction's
/// `BEGIN`: a plain `SELECT` that locks nothing and calls no server function
/// with an effect (`pg_notify`, advisory locks).
fn only_reads(sql: &str) -> bool {
    let head = sql.trim_start();
    head.get(..6).is_some_and(|w| w.eq_ignore_ascii_case("SELECT"))
        && !["FOR UPDATE", "FOR SHARE", "FOR NO KEY", "FOR KEY", "pg_", "nextval", "setval"]
            .iter()
            .any(|w| sql.contains(w))
}

impl PgConn {
    /// Wraps a connected client.
    pub(crate) fn new(client: postgres::Client) -> PgConn {
        PgConn { client, statements: HashMap::new(), aborted: false, state: TxState::Idle, later: String::new() }
    }

    /// Notes a statement's failure (see `aborted`).
    fn noted<T>(&mut self, result: Result<T, postgres::Error>) -> Res<T> {
        if result.is_err() {
            self.aborted = true;
        }
        Ok(result?)
    }

    fn statement(&mut self, sql: &str) -> Res<postgres::Statement> {
        self.ready_for(sql)?;
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let prepared = self.client.prepare(&dollar_parameters(sql));
        let s = self.noted(prepared)?;
        self.statements.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    /// Opens a transaction for a closure (sent with its first write).
    pub(crate) fn begin(&mut self) -> Res<()> {
        self.aborted = false;
        self.later.clear();
        self.state = TxState::Pending;
        Ok(())
    }

    /// Sends `BEGIN` and what was held back, if `sql` needs them first.
    fn ready_for(&mut self, sql: &str) -> Res<()> {
        if self.state == TxState::Pending && !only_reads(sql) {
            self.state = TxState::Open;
            let sent = self.client.batch_execute("BEGIN");
            self.noted(sent)?;
        }
        if !self.later.is_empty() {
            let later = std::mem::take(&mut self.later);
            let sent = self.client.batch_execute(&later);
            self.noted(sent)?;
        }
        Ok(())
    }

    /// Runs statements without parameters, after `BEGIN` and what was held
    /// back, in one round trip.
    fn batch(&mut self, sql: &str) -> Res<()> {
        let mut text = String::new();
        if self.state == TxState::Pending {
            self.state = TxState::Open;
            text.push_str("BEGIN;");
        }
        text.push_str(&std::mem::take(&mut self.later));
        text.push_str(sql);
        let done = self.client.batch_execute(&text);
        self.noted(done)
    }

    /// Commits the open transaction, running `last` (statements without
    /// parameters) just before the `COMMIT`, in the same round trip; refuses
    /// (and rolls back) one in which a statement failed outside a savepoint
    /// rolled back since. A closure that wrote nothing has nothing to commit.
    pub(crate) fn commit(&mut self, last: &str) -> Res<()> {
        if self.aborted {
            self.rollback()?;
            return Err(StoreError::Commit("a statement of the transaction failed, so nothing of it was kept".into()));
        }
        if self.state != TxState::Open {
            self.state = TxState::Idle;
            return if last.is_empty() { Ok(()) } else { self.autocommit(last) };
        }
        let text = format!("{}{last}COMMIT", std::mem::take(&mut self.later));
        self.state = TxState::Idle;
        let done = self.client.batch_execute(&text);
        if done.is_err() {
            // A statement before the COMMIT failed: the transaction is open
            // and refuses everything; nothing of it is kept.
            let _ = self.client.batch_execute("ROLLBACK");
        }
        Ok(done?)
    }

    /// Runs `sql` outside any transaction.
    fn autocommit(&mut self, sql: &str) -> Res<()> {
        Ok(self.client.batch_execute(sql)?)
    }

    /// Rolls the open transaction back.
    pub(crate) fn rollback(&mut self) -> Res<()> {
        self.aborted = false;
        self.later.clear();
        let open = self.state == TxState::Open;
        self.state = TxState::Idle;
        if open { Ok(self.client.batch_execute("ROLLBACK")?) } else { Ok(()) }
    }
}

impl std::fmt::Debug for PgConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgConn").field("statements", &self.statements.len()).finish_non_exhaustive()
    }
}

/// The connection a transaction runs on.
#[derive(Clone, Copy)]
pub(crate) enum Conn<'c> {
    /// SQLite's, inside its open transaction.
    Sqlite(&'c rusqlite::Connection),
    /// PostgreSQL's, inside its open transaction.
    Postgres(&'c RefCell<PgConn>),
}

impl<'c> Conn<'c> {
    /// Which database this is.
    pub(crate) fn backend(&self) -> Backend {
        match self {
            Conn::Sqlite(_) => Backend::Sqlite,
            Conn::Postgres(_) => Backend::Postgres,
        }
    }

    /// The statement `sql`, prepared once per connection.
    pub(crate) fn prepare_cached(&self, sql: &str) -> Res<Stmt<'c>> {
        match *self {
            Conn::Sqlite(c) => Ok(Stmt::Sqlite(c.prepare_cached(sql)?)),
            Conn::Postgres(c) => {
                let statement = c.borrow_mut().statement(sql)?;
                Ok(Stmt::Postgres(c, statement))
            }
        }
    }

    /// Runs `sql` and returns how many rows it changed.
    pub(crate) fn execute(&self, sql: &str, params: impl Params) -> Res<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    /// The first row of `sql`, through `f`; [`StoreError::NoRow`] when there is none.
    pub(crate) fn query_row<T>(&self, sql: &str, params: impl Params, f: impl FnOnce(&Row<'_>) -> Res<T>) -> Res<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }

    /// Runs statements without parameters or results (a savepoint's
    /// `RELEASE`) when the next statements go, in their round trip.
    pub(crate) fn release_later(&self, sql: &str) -> Res<()> {
        match self {
            Conn::Sqlite(_) => self.execute_batch(sql),
            Conn::Postgres(c) => {
                let mut c = c.borrow_mut();
                if c.state != TxState::Open {
                    // Nothing was sent to release.
                    drop(c);
                    return self.execute_batch(sql);
                }
                c.later.push_str(sql);
                c.later.push(';');
                Ok(())
            }
        }
    }

    /// Runs statements without parameters (savepoints, schema).
    pub(crate) fn execute_batch(&self, sql: &str) -> Res<()> {
        match self {
            Conn::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Conn::Postgres(c) => {
                let mut c = c.borrow_mut();
                let done = c.batch(sql);
                if done.is_ok() && sql.starts_with("ROLLBACK TO") {
                    // Back before what failed: the transaction goes on.
                    c.aborted = false;
                }
                done
            }
        }
    }
}

/// A prepared statement.
pub(crate) enum Stmt<'c> {
    Sqlite(rusqlite::CachedStatement<'c>),
    Postgres(&'c RefCell<PgConn>, postgres::Statement),
}

impl Stmt<'_> {
    /// Runs the statement and returns how many rows it changed.
    pub(crate) fn execute(&mut self, params: impl Params) -> Res<usize> {
        let values = params.values();
        match self {
            Stmt::Sqlite(s) => Ok(s.execute(rusqlite::params_from_iter(values.iter()))?),
            Stmt::Postgres(c, s) => {
                let mut c = c.borrow_mut();
                let n = c.client.execute(&*s, &pg_params(&values));
                let n = c.noted(n)?;
                Ok(usize::try_from(n).unwrap_or(usize::MAX))
            }
        }
    }

    /// The first row, through `f`; [`StoreError::NoRow`] when there is none.
    pub(crate) fn query_row<T>(&mut self, params: impl Params, f: impl FnOnce(&Row<'_>) -> Res<T>) -> Res<T> {
        let values = params.values();
        match self {
            Stmt::Sqlite(s) => {
                let mut rows = s.query(rusqlite::params_from_iter(values.iter()))?;
                match rows.next()? {
                    Some(r) => f(&Row::Sqlite(r)),
                    None => Err(StoreError::NoRow),
                }
            }
            Stmt::Postgres(c, s) => {
                let mut c = c.borrow_mut();
                let rows = c.client.query(&*s, &pg_params(&values));
                let rows = c.noted(rows)?;
                drop(c);
                match rows.first() {
                    Some(r) => f(&Row::Postgres(r)),
                    None => Err(StoreError::NoRow),
                }
            }
        }
    }

    /// Every row, through `f`, as an iterator of results (as rusqlite's).
    pub(crate) fn query_map<T>(
        &mut self,
        params: impl Params,
        mut f: impl FnMut(&Row<'_>) -> Res<T>,
    ) -> Res<std::vec::IntoIter<Res<T>>> {
        let values = params.values();
        let mapped: Vec<Res<T>> = match self {
            Stmt::Sqlite(s) => {
                let mut rows = s.query(rusqlite::params_from_iter(values.iter()))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    out.push(f(&Row::Sqlite(r)));
                }
                out
            }
            Stmt::Postgres(c, s) => {
                let mut c = c.borrow_mut();
                let rows = c.client.query(&*s, &pg_params(&values));
                let rows = c.noted(rows)?;
                drop(c);
                rows.iter().map(|r| f(&Row::Postgres(r))).collect()
            }
        };
        Ok(mapped.into_iter())
    }
}

/// `?N` (and a bare `?`) as PostgreSQL's `$N`, outside quoted text.
pub(crate) fn dollar_parameters(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut chars = sql.chars().peekable();
    let (mut quoted, mut next_bare) = (None::<char>, 1u32);
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (Some(q), c) if c == q => {
                quoted = None;
                out.push(c);
            }
            (Some(_), c) => out.push(c),
            (None, '\'' | '"') => {
                quoted = Some(c);
                out.push(c);
            }
            (None, '?') => {
                out.push('$');
                if chars.peek().is_some_and(char::is_ascii_digit) {
                    while let Some(d) = chars.next_if(char::is_ascii_digit) {
                        out.push(d);
                    }
                } else {
                    out.push_str(&next_bare.to_string());
                    next_bare += 1;
                }
            }
            (None, c) => out.push(c),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

/// One value, as SQLite knows values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match *self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Integer(i),
            Value::Real(f) => ValueRef::Real(f),
            Value::Text(t) => ValueRef::Text(t.as_bytes()),
            Value::Bytes(b) => ValueRef::Blob(b),
        }))
    }
}

impl postgres::types::ToSql for Value<'_> {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use postgres::types::Type;
        match *self {
            Value::Null => Ok(postgres::types::IsNull::Yes),
            Value::Int(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(i)?.to_sql(ty, out),
                Type::BOOL => (i != 0).to_sql(ty, out),
                Type::FLOAT8 => (i as f64).to_sql(ty, out),
                _ => i.to_string().as_str().to_sql(ty, out),
            },
            Value::Real(f) => match *ty {
                Type::FLOAT4 => (f as f32).to_sql(ty, out),
                _ => f.to_sql(ty, out),
            },
            Value::Text(t) => t.to_sql(ty, out),
            Value::Bytes(b) => b.to_sql(ty, out),
        }
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

fn pg_params<'v>(values: &'v [Value<'v>]) -> Vec<&'v (dyn postgres::types::ToSql + Sync)> {
    values.iter().map(|v| v as &(dyn postgres::types::ToSql + Sync)).collect()
}

/// A Rust value the store binds as a parameter.
pub(crate) trait ToParam {
    /// The value as SQLite knows it.
    fn value(&self) -> Value<'_>;
}

impl<T: ToParam + ?Sized> ToParam for &T {
    fn value(&self) -> Value<'_> {
        (**self).value()
    }
}

impl<T: ToParam> ToParam for Option<T> {
    fn value(&self) -> Value<'_> {
        self.as_ref().map_or(Value::Null, ToParam::value)
    }
}

macro_rules! int_param {
    ($($t:ty)*) => {$(
        impl ToParam for $t {
            fn value(&self) -> Value<'_> {
                // The store's counters all fit: beyond i64 is a bug, kept visible.
                Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}
int_param!(i64 i32 i16 i8 u64 u32 u16 u8 usize);

impl ToParam for bool {
    fn value(&self) -> Value<'_> {
        Value::Int(i64::from(*self))
    }
}

impl ToParam for f64 {
    fn value(&self) -> Value<'_> {
        Value::Real(*self)
    }
}

impl ToParam for str {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl ToParam for String {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl ToParam for std::sync::Arc<str> {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl ToParam for [u8] {
    fn value(&self) -> Value<'_> {
        Value::Bytes(self)
    }
}

impl ToParam for Vec<u8> {
    fn value(&self) -> Value<'_> {
        Value::Bytes(self)
    }
}

impl ToParam for Value<'_> {
    fn value(&self) -> Value<'_> {
        self.clone()
    }
}

/// A statement's parameters: `params![a, b]`, an array of one type, `[]`, or
/// [`params_from_iter`].
pub(crate) trait Params {
    /// The values, in order.
    fn values(&self) -> Vec<Value<'_>>;
}

impl Params for &[&dyn ToParam] {
    fn values(&self) -> Vec<Value<'_>> {
        self.iter().map(|p| p.value()).collect()
    }
}

impl<const N: usize> Params for &[&dyn ToParam; N] {
    fn values(&self) -> Vec<Value<'_>> {
        self.iter().map(|p| p.value()).collect()
    }
}

impl Params for [&dyn ToParam; 0] {
    fn values(&self) -> Vec<Value<'_>> {
        Vec::new()
    }
}

macro_rules! array_params {
    ($($n:literal)*) => {$(
        impl<T: ToParam> Params for [T; $n] {
            fn values(&self) -> Vec<Value<'_>> {
                self.iter().map(ToParam::value).collect()
            }
        }
    )*};
}
array_params!(1 2 3 4 5 6 7 8);

/// Parameters taken from an iterator (a list of any length).
pub(crate) struct ParamsFromIter<T>(Vec<T>);

/// The parameters `values`, in order.
pub(crate) fn params_from_iter<T: ToParam>(values: impl IntoIterator<Item = T>) -> ParamsFromIter<T> {
    ParamsFromIter(values.into_iter().collect())
}

impl<T: ToParam> Params for ParamsFromIter<T> {
    fn values(&self) -> Vec<Value<'_>> {
        self.0.iter().map(ToParam::value).collect()
    }
}

/// A statement's parameters, of mixed types: `params![game.as_str(), turn]`.
macro_rules! params {
    () => { [] as [&dyn $crate::store::sql::ToParam; 0] };
    ($($p:expr),+ $(,)?) => { &[$(&$p as &dyn $crate::store::sql::ToParam),+] as &[&dyn $crate::store::sql::ToParam] };
}
pub(crate) use params;

// ---------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------

/// One row of a result.
pub(crate) enum Row<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r postgres::Row),
}

/// A column named by its position or its name.
pub(crate) trait ColumnIndex: Copy + std::fmt::Debug {
    /// The column's position in `row`.
    fn position(self, row: &Row<'_>) -> Res<usize>;
}

impl ColumnIndex for usize {
    fn position(self, _: &Row<'_>) -> Res<usize> {
        Ok(self)
    }
}

impl ColumnIndex for &str {
    fn position(self, row: &Row<'_>) -> Res<usize> {
        let found = match row {
            Row::Sqlite(r) => r.as_ref().column_index(self).ok(),
            Row::Postgres(r) => r.columns().iter().position(|c| c.name() == self),
        };
        found.ok_or_else(|| StoreError::Corrupt(format!("no column {self:?} in the row")))
    }
}

impl Row<'_> {
    /// Column `idx` as a `T`.
    pub(crate) fn get<I: ColumnIndex, T: FromValue>(&self, idx: I) -> Res<T> {
        let i = idx.position(self)?;
        let value = self.value(i)?;
        T::from_value(value).map_err(|why| StoreError::Corrupt(format!("column {idx:?}: {why}")))
    }

    fn value(&self, i: usize) -> Res<Owned> {
        match self {
            Row::Sqlite(r) => Owned::of_sqlite(r.get_ref(i)?),
            Row::Postgres(r) => {
                use postgres::types::Type;
                let column = r.columns().get(i).ok_or_else(|| StoreError::Corrupt(format!("no column {i}")))?;
                let ty = column.type_().clone();
                let v = match ty {
                    Type::INT8 => r.try_get::<_, Option<i64>>(i)?.map(Owned::Int),
                    Type::INT4 => r.try_get::<_, Option<i32>>(i)?.map(|v| Owned::Int(v.into())),
                    Type::INT2 => r.try_get::<_, Option<i16>>(i)?.map(|v| Owned::Int(v.into())),
                    Type::BOOL => r.try_get::<_, Option<bool>>(i)?.map(|v| Owned::Int(v.into())),
                    Type::FLOAT8 => r.try_get::<_, Option<f64>>(i)?.map(Owned::Real),
                    Type::FLOAT4 => r.try_get::<_, Option<f32>>(i)?.map(|v| Owned::Real(v.into())),
                    Type::BYTEA => r.try_get::<_, Option<Vec<u8>>>(i)?.map(Owned::Bytes),
                    _ => r.try_get::<_, Option<String>>(i)?.map(Owned::Text),
                };
                Ok(v.unwrap_or(Owned::Null))
            }
        }
    }
}

/// A column's value, read.
#[derive(Debug)]
pub(crate) enum Owned {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bytes(Vec<u8>),
}

impl Owned {
    /// A SQLite value, read.
    ///
    /// # Errors
    /// Text that is not UTF-8 (a corrupt store).
    pub(crate) fn of_sqlite(v: rusqlite::types::ValueRef<'_>) -> Res<Owned> {
        use rusqlite::types::ValueRef;
        Ok(match v {
            ValueRef::Null => Owned::Null,
            ValueRef::Integer(v) => Owned::Int(v),
            ValueRef::Real(v) => Owned::Real(v),
            ValueRef::Text(t) => {
                Owned::Text(String::from_utf8(t.to_vec()).map_err(|e| StoreError::Corrupt(format!("text: {e}")))?)
            }
            ValueRef::Blob(b) => Owned::Bytes(b.to_vec()),
        })
    }

    /// The value as a parameter.
    pub(crate) fn as_value(&self) -> Value<'_> {
        match self {
            Owned::Null => Value::Null,
            Owned::Int(i) => Value::Int(*i),
            Owned::Real(f) => Value::Real(*f),
            Owned::Text(t) => Value::Text(t),
            Owned::Bytes(b) => Value::Bytes(b),
        }
    }
}

/// A Rust value a column reads as.
pub(crate) trait FromValue: Sized {
    /// The value, or why it is not one (taken whole: text and bytes move
    /// into the result instead of being copied again).
    fn from_value(v: Owned) -> Result<Self, String>;
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: Owned) -> Result<Self, String> {
        match v {
            Owned::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

macro_rules! int_value {
    ($($t:ty)*) => {$(
        impl FromValue for $t {
            fn from_value(v: Owned) -> Result<Self, String> {
                match v {
                    Owned::Int(i) => <$t>::try_from(i).map_err(|_| format!("{i} is out of range")),
                    other => Err(format!("expected an integer, found {other:?}")),
                }
            }
        }
    )*};
}
int_value!(i64 i32 i16 i8 u64 u32 u16 u8 usize);

impl FromValue for bool {
    fn from_value(v: Owned) -> Result<Self, String> {
        i64::from_value(v).map(|i| i != 0)
    }
}

impl FromValue for f64 {
    fn from_value(v: Owned) -> Result<Self, String> {
        match v {
            Owned::Real(f) => Ok(f),
            Owned::Int(i) => Ok(i as f64),
            other => Err(format!("expected a number, found {other:?}")),
        }
    }
}

impl FromValue for String {
    fn from_value(v: Owned) -> Result<Self, String> {
        match v {
            Owned::Text(t) => Ok(t),
            other => Err(format!("expected text, found {other:?}")),
        }
    }
}

impl FromValue for Vec<u8> {
    fn from_value(v: Owned) -> Result<Self, String> {
        match v {
            Owned::Bytes(b) => Ok(b),
            Owned::Text(t) => Ok(t.into_bytes()),
            other => Err(format!("expected bytes, found {other:?}")),
        }
    }
}

/// `optional()` on a single-row read: no row is `None`.
pub(crate) trait OptionalExtension<T> {
    /// `Ok(None)` for [`StoreError::NoRow`].
    fn optional(self) -> Res<Option<T>>;
}

impl<T> OptionalExtension<T> for Res<T> {
    fn optional(self) -> Res<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(StoreError::NoRow) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_reads_may_run_before_begin() {
        assert!(only_reads("SELECT spec FROM game_clocks WHERE game_id = ?1"));
        assert!(only_reads("  select 1 FROM games WHERE id = ?1"));
        assert!(!only_reads("SELECT * FROM games WHERE id = ?1 FOR UPDATE"));
        assert!(!only_reads("SELECT id FROM outbox ORDER BY id FOR UPDATE SKIP LOCKED"));
        assert!(!only_reads("SELECT pg_advisory_xact_lock(?1)"));
        assert!(!only_reads("SELECT pg_notify(?1, ?2)"));
        assert!(!only_reads("INSERT INTO moves (game_id) VALUES (?1) RETURNING id"));
        assert!(!only_reads("WITH t AS (UPDATE outbox SET sent_at = ?1 RETURNING id) SELECT id FROM t"));
    }

    #[test]
    fn parameters_become_dollar_numbers_outside_quotes() {
        assert_eq!(
            dollar_parameters("SELECT a FROM t WHERE b = ?1 AND c = ?12"),
            "SELECT a FROM t WHERE b = $1 AND c = $12"
        );
        assert_eq!(dollar_parameters("VALUES (?, ?)"), "VALUES ($1, $2)");
        assert_eq!(dollar_parameters("WHERE a LIKE '%?%' AND b = ?2"), "WHERE a LIKE '%?%' AND b = $2");
        assert_eq!(dollar_parameters("SELECT \"?x\", ?1"), "SELECT \"?x\", $1");
    }

    #[test]
    fn sqlite_rows_read_as_the_store_s_types() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        let conn = Conn::Sqlite(&c);
        conn.execute_batch("CREATE TABLE t (i INTEGER, s TEXT, b BLOB)").unwrap();
        conn.execute("INSERT INTO t VALUES (?1, ?2, ?3)", params![7u32, "x", vec![1u8, 2]]).unwrap();
        conn.execute("INSERT INTO t VALUES (?1, ?2, ?3)", params![None::<i64>, None::<String>, None::<Vec<u8>>])
            .unwrap();
        let first = conn
            .query_row("SELECT i, s, b FROM t ORDER BY i DESC", [], |r| {
                Ok((r.get::<_, u32>(0)?, r.get::<_, String>("s")?, r.get::<_, Vec<u8>>(2)?))
            })
            .unwrap();
        assert_eq!(first, (7, "x".to_owned(), vec![1, 2]));
        let all: Vec<Option<i64>> = conn
            .prepare_cached("SELECT i FROM t ORDER BY i")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Res<_>>()
            .unwrap();
        assert_eq!(all, vec![None, Some(7)]);
        let none = conn.query_row("SELECT i FROM t WHERE i = ?1", [99], |r| r.get::<_, i64>(0)).optional().unwrap();
        assert_eq!(none, None);
        assert!(matches!(
            conn.query_row("SELECT s FROM t WHERE s = 'x'", [], |r| r.get::<_, i64>(0)),
            Err(StoreError::Corrupt(_))
        ));
    }
}
