//! The open transaction and what every table's rows share: times, seats, cached reads.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::Transaction;

use super::StoreError;
use crate::rules::Seat;

/// Formats a time as the store keeps it: RFC 3339, UTC, milliseconds, `Z`.
pub fn time_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub(super) fn parse_time(text: &str) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e)))
}

pub(super) fn corrupt(what: impl Into<String>) -> rusqlite::Error {
    let what: String = what.into();
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, what.into())
}

/// The open transaction, with the store's operations, and the games whose
/// transcript it wrote to (told to the live event streams once the transaction
/// is durable; issue 34).
pub struct Tx<'c>(pub(super) &'c Transaction<'c>, std::cell::RefCell<Vec<crate::ids::GameId>>);

/// `query_row` through the connection's statement cache: rusqlite's own
/// `Connection::query_row` parses and plans its SQL anew on every call, which
/// for the few single-row reads of every move (the seat's token, the move
/// already given, the transcript's head, the clock) showed in the store thread's
/// profile.
pub(super) trait QueryRowCached {
    /// As `rusqlite::Connection::query_row`, with the statement cached.
    fn query_row_cached<T, P, F>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>;
}

impl QueryRowCached for rusqlite::Connection {
    fn query_row_cached<T, P, F>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

pub(super) fn seat_of(i: i64) -> rusqlite::Result<Seat> {
    u8::try_from(i)
        .ok()
        .filter(|&i| i < crate::rules::SeatSet::MAX)
        .map(Seat::new)
        .ok_or_else(|| corrupt(format!("seat {i}")))
}

impl<'c> Tx<'c> {
    pub(super) fn new(tx: &'c Transaction<'c>) -> Tx<'c> {
        Tx(tx, std::cell::RefCell::new(Vec::new()))
    }

    /// Notes that `game` changed in this transaction (its transcript grew).
    pub(super) fn touch(&self, game: &crate::ids::GameId) {
        let mut touched = self.1.borrow_mut();
        if !touched.contains(game) {
            touched.push(game.clone());
        }
    }

    /// The games that changed in this transaction, in the order they first did.
    pub(super) fn take_touched(&self) -> Vec<crate::ids::GameId> {
        std::mem::take(&mut self.1.borrow_mut())
    }

    /// Runs `f` under a savepoint: when it fails, what it wrote is undone and the
    /// transaction goes on without it (a refused command leaves nothing, while
    /// the mail it came in is still marked seen and answered in the same
    /// transaction).
    ///
    /// # Errors
    /// `f`'s own error, or a store failure converted into `E`.
    pub fn attempt<T, E: From<StoreError>>(&self, f: impl FnOnce(&Tx<'c>) -> Result<T, E>) -> Result<T, E> {
        super::run_cached(self.0, "SAVEPOINT attempt").map_err(StoreError::from)?;
        match f(self) {
            Ok(value) => {
                super::run_cached(self.0, "RELEASE attempt").map_err(StoreError::from)?;
                Ok(value)
            }
            Err(e) => {
                super::undo_to(self.0, "attempt").map_err(StoreError::from)?;
                Err(e)
            }
        }
    }

    /// A pragma's value as text (for tests and diagnostics).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn pragma_text(&self, name: &str) -> rusqlite::Result<String> {
        self.0.pragma_query_value(None, name, |r| {
            let v: rusqlite::types::Value = r.get(0)?;
            Ok(match v {
                rusqlite::types::Value::Integer(i) => i.to_string(),
                rusqlite::types::Value::Text(t) => t,
                other => format!("{other:?}"),
            })
        })
    }
}
