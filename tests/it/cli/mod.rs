//! The command line through the real binary: `rules`, `game`, `player` and `demo`.

mod demo;
mod game;
mod player;
mod rules;
