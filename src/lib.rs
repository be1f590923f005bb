//! Fairsteward referees correspondence board games, Fairschach first.
//!
//! The crate is laid out as the architecture: [`rules`] is the pure game logic every
//! other part stands on, and [`cli`] is the command line.

#![warn(missing_docs)]

pub mod cli;
pub mod rules;
