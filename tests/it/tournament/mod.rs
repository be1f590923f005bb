//! Tournaments (issue 31): creation, play over HTTP, standings and their
//! exports, directors, withdrawals, the end date, the mails and the pages.

mod api;
mod pages;
mod play;
