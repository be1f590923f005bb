//! Dreierschach: its command line, games over HTTP and by mail, property tests.

mod cli;
mod http;
mod mail;
mod props;
