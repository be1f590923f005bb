//! Per-game tables: one test runs the same checks over a row of data per game.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `check` on every row, each to its end even when another fails, and
/// fails naming every game whose row failed, with its message (the panic hook
/// has printed each in full above).
#[track_caller]
pub fn each<R>(rows: &[R], game: impl Fn(&R) -> String, check: impl Fn(&R)) {
    let failed: Vec<String> = rows
        .iter()
        .filter_map(|row| catch_unwind(AssertUnwindSafe(|| check(row))).err().map(|e| (game(row), e)))
        .map(|(game, e)| format!("{game}: {}", message(&*e)))
        .collect();
    assert!(failed.is_empty(), "{} of {} games failed:\n{}", failed.len(), rows.len(), failed.join("\n"));
}

/// A panic's message, if it has one.
fn message(payload: &(dyn Any + Send)) -> &str {
    match payload.downcast_ref::<String>() {
        Some(s) => s,
        None => payload.downcast_ref::<&str>().copied().unwrap_or("(no message)"),
    }
}
