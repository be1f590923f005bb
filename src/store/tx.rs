//! The open transaction and what every table's rows share: times, seats, cached reads.

use chrono::{DateTime, SecondsFormat, Utc};

use super::StoreError;
use super::sql::{Conn, Res};
use crate::rules::Seat;

/// Formats a time as the store keeps it: RFC 3339, UTC, milliseconds, `Z`.
pub fn time_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub(super) fn parse_time(text: &str) -> Res<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("time {text:?}: {e}")))
}

pub(super) fn corrupt(what: impl Into<String>) -> StoreError {
    StoreError::Corrupt(what.into())
}

/// The open transaction, with the store's operations, and the games whose
/// transcript it wrote to (told to the live event streams once the transaction
/// is durable; issue 34).
pub struct Tx<'c>(pub(super) Conn<'c>, std::cell::RefCell<Vec<crate::ids::GameId>>, pub(super) Memo);

/// What a transaction already knows and need not read again: a game's time
/// control (never changed once stored) and the transcript heads it wrote
/// itself. A move asked for each several times, a round trip each on
/// PostgreSQL. Forgotten when an [`Tx::attempt`] is undone.
#[derive(Default)]
pub(super) struct Memo {
    pub(super) clocks:
        std::cell::RefCell<std::collections::HashMap<crate::ids::GameId, Option<crate::clock::ClockSpec>>>,
    pub(super) heads: std::cell::RefCell<std::collections::HashMap<crate::ids::GameId, super::events::Head>>,
}

impl Memo {
    fn forget(&self) {
        self.clocks.borrow_mut().clear();
        self.heads.borrow_mut().clear();
    }
}

pub(super) fn seat_of(i: i64) -> Res<Seat> {
    u8::try_from(i)
        .ok()
        .filter(|&i| i < crate::rules::SeatSet::MAX)
        .map(Seat::new)
        .ok_or_else(|| corrupt(format!("seat {i}")))
}

impl<'c> Tx<'c> {
    pub(super) fn new(conn: Conn<'c>) -> Tx<'c> {
        Tx(conn, std::cell::RefCell::new(Vec::new()), Memo::default())
    }

    /// Which database runs this transaction.
    pub fn backend(&self) -> super::Backend {
        self.0.backend()
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
        self.0.execute_batch("SAVEPOINT attempt")?;
        match f(self) {
            Ok(value) => {
                self.0.release_later("RELEASE attempt")?;
                Ok(value)
            }
            Err(e) => {
                self.2.forget();
                self.0.execute_batch("ROLLBACK TO attempt; RELEASE attempt")?;
                Err(e)
            }
        }
    }

    /// A pragma's value as text (SQLite's; for tests).
    ///
    /// # Errors
    /// SQLite errors.
    #[cfg(test)]
    pub(crate) fn pragma_text(&self, name: &str) -> Res<String> {
        self.0.query_row(&format!("PRAGMA {name}"), [], |r| {
            Ok(match r.get::<_, Option<i64>>(0) {
                Ok(Some(i)) => i.to_string(),
                _ => r.get::<_, String>(0)?,
            })
        })
    }
}
