//! Trialectic Dame: its command line, a game over HTTP and by mail, the oracle, property tests.

mod cli;
mod http;
mod mail;
mod oracle;
mod props;
