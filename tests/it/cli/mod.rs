//! The command line through the real binary: `rules`, `game`, `player`, `demo`,
//! and `check` with the data directory's discovery.

mod check;
mod demo;
mod game;
mod player;
mod rules;
