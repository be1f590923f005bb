//! Tournaments as pure logic (issue 31): the pairing's balance for every
//! size a club runs, and the standings against an independent computation.

mod pairing_balance;
mod standings;
