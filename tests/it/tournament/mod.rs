//! Tournaments (issue 31): the pairing's balance for every size a club runs, the
//! standings against an independent computation, creation, play over HTTP,
//! standings and their exports, directors, withdrawals, the end date, the mails
//! and the pages.

mod api;
mod leave;
mod mail;
mod pages;
mod pairing_balance;
mod play;
mod recovery;
mod standings;
