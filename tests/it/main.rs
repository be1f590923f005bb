//! Fairsteward's integration tests: one test crate (`cargo test --test it`),
//! one module per area, the shared helpers in [`support`].
//!
//! The tests use the crate as a door does (real sockets on `127.0.0.1:0`, real
//! SQLite files in temporary directories, the real `fairsteward` binary, the
//! real mail servers of `scripts/mailstack.sh`): nothing is mocked.
//!
//! # Running a part
//!
//! Test names are paths, so a filter picks an area, a file or a test:
//!
//! ```text
//! cargo test --test it                       # everything
//! cargo test --test it mail::                # one area
//! cargo test --test it games::vierschach::   # one game
//! cargo test --test it fuzz::                # the fuzzers' short run
//! cargo test --test it games::perft -- --ignored   # what is ignored there
//! ```
//!
//! # One process, many tests
//!
//! Every test runs in this one process beside the others, on the harness's
//! threads. So a test never changes process-wide state (environment variables,
//! the current directory, the umask, a global tracing subscriber or panic hook):
//! it gives a child process its environment instead. Files go into its own
//! temporary directory (`tempfile`), sockets bind port 0, and accounts on the
//! mail servers are unique (`support::mailstack::unique`).
//!
//! # Adding an area or a test file
//!
//! - A new file of an existing area: `tests/it/<area>/<name>.rs`, and
//!   `mod <name>;` in `tests/it/<area>/mod.rs`.
//! - A new area: `tests/it/<area>/mod.rs` (a `//!` line saying what the area
//!   covers, then its `mod` lines), and `mod <area>;` below. A single-file area
//!   is `tests/it/<area>.rs`.
//! - A former standalone file `tests/<name>.rs` moves in with `git mv` to where
//!   it belongs; then `mod common;` becomes `use crate::support as common;` (or
//!   `use crate::support::<helper>;` for a `#[path = "common/<helper>.rs"]`
//!   include), and paths to data under `tests/` follow the data.
//! - Helpers go into `support/` as ordinary modules; a helper nothing uses is
//!   deleted, not allowed dead.
//! - Per-game tests that differ only in their data are one test over a table
//!   (`support::table::each`), as `games::perft` and `games::oracle`.
//! - Data files live beside the tests that read them (`games/data/`,
//!   `mail/fixtures/`); proptest keeps its regressions in
//!   `tests/proptest-regressions/<module path>.txt`.

mod cli;
mod clock;
mod conditional; // issue 32, slice C
mod desk;
mod fuzz;
mod games;
mod house;
mod invitation;
mod limits;
mod mail;
mod operator;
mod package; // issue 36: the Debian package
mod settings; // issue 32, slice M: mail as the player wants it
mod store;
mod support;
mod tournament;
mod trust;
mod web;
