//! The one source of "now" for the steward (issue: a clock you can drive).
//!
//! The daemon reads the system clock; `fairsteward sweep --now T` and
//! `fairsteward game new --now T` fix it; tests hold a [`Clock::manual`] and move
//! it. Nothing else in the steward or its doors reads the system time for game
//! purposes.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, TimeDelta, Utc};

/// Where the steward takes the time from.
#[derive(Clone, Debug, Default)]
pub enum Clock {
    /// The system clock.
    #[default]
    System,
    /// A time set by hand (shared: every clone sees the same time).
    Manual(Arc<Mutex<DateTime<Utc>>>),
}

impl Clock {
    /// A clock that stands at `t` until set or advanced.
    pub fn manual(t: DateTime<Utc>) -> Clock {
        Clock::Manual(Arc::new(Mutex::new(t)))
    }

    /// The time now.
    pub fn now(&self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Manual(t) => *t.lock().unwrap_or_else(std::sync::PoisonError::into_inner),
        }
    }

    /// Sets a manual clock (a system clock ignores it).
    pub fn set(&self, to: DateTime<Utc>) {
        if let Clock::Manual(t) = self {
            *t.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = to;
        }
    }

    /// Moves a manual clock on by `by`.
    pub fn advance(&self, by: TimeDelta) {
        if let Clock::Manual(t) = self {
            let mut t = t.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            *t += by;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_is_shared_by_its_clones() {
        let t0 = DateTime::parse_from_rfc3339("2026-03-01T00:00:00Z").unwrap().with_timezone(&Utc);
        let c = Clock::manual(t0);
        let d = c.clone();
        c.advance(TimeDelta::hours(2));
        assert_eq!(d.now(), t0 + TimeDelta::hours(2));
        d.set(t0);
        assert_eq!(c.now(), t0);
    }
}
