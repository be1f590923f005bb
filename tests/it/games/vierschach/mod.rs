//! Vierschach: its command line, games over HTTP and by mail, free-for-all.

mod cli;
mod ffa;
mod http;
mod mail;
