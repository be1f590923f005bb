//! Tournaments as pure logic: the plan of games ([`pairing`]) and the table
//! ([`standings`]).
//!
//! Like [`crate::rules`], this module does no I/O, reads no clock and draws no
//! random number (its searches use a fixed seed): the same players give the same
//! plan, the same results the same table. It knows games only through
//! [`crate::rules`] (a seat count, a [`crate::rules::Score`] per seat), never by
//! name; the steward stores what it computes.

pub mod pairing;
pub mod standings;

pub use pairing::{PairingError, PlannedGame, pair};
pub use standings::{ScoredGame, Standing, Tiebreak, crosstable, standings};
