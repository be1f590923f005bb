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

#[test]
#[should_panic(expected = "1 of 3 games failed:\nsecond: row 2 fails")]
fn a_failing_row_is_named_and_the_others_still_run() {
    let ran = std::sync::atomic::AtomicUsize::new(0);
    let game = |r: &u32| ["first", "second", "third"][*r as usize - 1].to_owned();
    let checked = std::panic::catch_unwind(AssertUnwindSafe(|| {
        each(&[1, 2, 3], game, |r| {
            ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            assert!(*r != 2, "row {r} fails");
        })
    }));
    assert_eq!(ran.into_inner(), 3, "every row ran");
    std::panic::resume_unwind(checked.expect_err("the table fails"));
}
