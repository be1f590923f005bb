//! Fairsteward referees correspondence board games, simultaneous and turn-based.
//!
//! The crate is laid out as the architecture, and data flows one way:
//! door ([`web`], [`mail`]) → [`steward`] (one transaction) → [`store`] and the
//! outbox → mail out. The steward writes its mails with [`letters`], which knows
//! neither the steward nor the doors. [`rules`] is the pure game logic every other part stands on;
//! [`render`] draws boards; [`cli`] is the command line.

#![warn(missing_docs)]

pub mod background;
pub mod cli;
pub mod clock;
pub mod config;
pub mod contact;
pub mod ids;
pub mod letters;
pub mod mail;
pub mod metrics; // issue 36
pub mod protocol;
pub mod render;
pub mod rules;
pub mod server;
pub mod steward;
pub mod store;
pub mod tournament;
pub mod web;
