//! Correspondence clocks: the arithmetic of reflection time, deadlines and leave.
//!
//! Everything here except [`source`] is pure: times come in as arguments and no
//! module reads the system clock, a file or the database. The steward
//! (`steward/clock.rs`) loads a seat's [`SeatClock`] and the game's [`Stops`] (the
//! leave of its players) and asks [`status`] what the clock says at a given
//! instant; the sweep, the views, the mails and the calendar feed all ask the
//! same function, so they cannot disagree.
//!
//! A seat's clock runs from the moment a turn was announced to it until its move
//! (in commit-reveal games its commitment, and then its reveal) is accepted.
//! Every time is server time in UTC; a seat's time zone is for display only, so a
//! change to or from daylight saving time never moves a deadline.

pub mod control;
pub mod ics;
pub mod leave;
pub mod source;

use chrono::{DateTime, TimeDelta, Utc};

pub use control::{ClockSpec, ClockSpecError, TimeControl};
pub use source::Clock;

/// What the steward needs from `[schedule]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Reminder points, hours before a deadline, largest first.
    pub reminders_hours: Vec<u32>,
    /// Days of leave a player may take per calendar year.
    pub leave_days_per_year: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { reminders_hours: vec![48, 12], leave_days_per_year: 30 }
    }
}

/// Stretches of time in which a game's clocks stand still (leave), sorted and
/// merged: no two overlap or touch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stops(Vec<(DateTime<Utc>, DateTime<Utc>)>);

impl Stops {
    /// The union of the given half-open intervals `[start, end)`; empty ones are dropped.
    pub fn new(mut intervals: Vec<(DateTime<Utc>, DateTime<Utc>)>) -> Stops {
        intervals.retain(|(s, e)| s < e);
        intervals.sort();
        let mut merged: Vec<(DateTime<Utc>, DateTime<Utc>)> = Vec::with_capacity(intervals.len());
        for (s, e) in intervals {
            match merged.last_mut() {
                Some((_, last_end)) if s <= *last_end => *last_end = (*last_end).max(e),
                _ => merged.push((s, e)),
            }
        }
        Stops(merged)
    }

    /// The intervals.
    pub fn intervals(&self) -> &[(DateTime<Utc>, DateTime<Utc>)] {
        &self.0
    }

    /// Whether the clocks stand still at `t`.
    pub fn contains(&self, t: DateTime<Utc>) -> bool {
        self.0.iter().any(|&(s, e)| s <= t && t < e)
    }

    /// The running time between `from` and `to`: the wall time less the stops
    /// (zero when `to` is not after `from`).
    pub fn running_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> TimeDelta {
        if to <= from {
            return TimeDelta::zero();
        }
        let stopped: TimeDelta = self
            .0
            .iter()
            .map(|&(s, e)| {
                let (s, e) = (s.max(from), e.min(to));
                if s < e { e - s } else { TimeDelta::zero() }
            })
            .sum();
        (to - from) - stopped
    }

    /// The instant at which `running` of running time has passed since `from`:
    /// the stops on the way are stepped over. A stop that begins exactly when the
    /// time is used up does not move the instant.
    pub fn advance(&self, from: DateTime<Utc>, running: TimeDelta) -> DateTime<Utc> {
        let mut t = from;
        let mut left = running.max(TimeDelta::zero());
        for &(s, e) in &self.0 {
            if e <= t {
                continue;
            }
            if s > t {
                let gap = s - t;
                if left <= gap {
                    return t + left;
                }
                left -= gap;
            }
            t = e;
        }
        t + left
    }
}

/// A seat's clock as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatClock {
    /// Moves counted so far (for `period`).
    pub moves: u32,
    /// Reflection time charged on finished moves (with `double_after_days`).
    pub used: TimeDelta,
    /// The time the seat has for its current move, as it stood when the move
    /// was announced.
    pub bank: TimeDelta,
    /// Since when the clock runs: when the turn now owed was announced to the
    /// seat. `None`: the seat owes nothing and its clock stands.
    pub announced_at: Option<DateTime<Utc>>,
    /// The turn announced (with `stage`, the key of reminders and grace notices).
    pub turn: u32,
    /// 0 for a move or commitment, 1 for a reveal in commit-reveal games.
    pub stage: u32,
    /// Set when the seat timed out in a game that went on without it.
    pub flagged_at: Option<DateTime<Utc>>,
}

impl SeatClock {
    /// A new seat's clock: nothing used, the first bank, not running.
    pub fn new(spec: &ClockSpec) -> SeatClock {
        SeatClock {
            moves: 0,
            used: TimeDelta::zero(),
            bank: spec.first_bank(),
            announced_at: None,
            turn: 0,
            stage: 0,
            flagged_at: None,
        }
    }

    /// The clock after the seat's move (or commitment) was accepted at `at`:
    /// the time is charged, the bank renewed by the control, and the clock stops.
    /// `counts` is false for a step that is not a move of its own (a reveal).
    pub fn stopped(&self, spec: &ClockSpec, stops: &Stops, at: DateTime<Utc>, counts: bool) -> SeatClock {
        let Some(since) = self.announced_at else { return self.clone() };
        let charged = spec.charge(stops.running_between(since, at));
        let bank = if counts {
            spec.bank_after_move(self.bank, charged, self.moves)
        } else {
            spec.bank_after_step(self.bank, charged)
        };
        SeatClock {
            moves: self.moves + u32::from(counts),
            used: self.used + charged,
            bank,
            announced_at: None,
            ..self.clone()
        }
    }

    /// The clock started for `turn` (and `stage`) at `at`.
    pub fn started(&self, at: DateTime<Utc>, turn: u32, stage: u32) -> SeatClock {
        SeatClock { announced_at: Some(at), turn, stage, ..self.clone() }
    }
}

/// What a seat's clock says at an instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatStatus {
    /// Reflection time charged so far, the running move included.
    pub used: TimeDelta,
    /// Time left for the current move (the bank if the clock stands); negative
    /// once the deadline has passed.
    pub left: TimeDelta,
    /// Whether the clock runs (the seat owes a move and has not timed out).
    pub running: bool,
    /// When the current move is due (running clocks only).
    pub deadline: Option<DateTime<Utc>>,
    /// When the timeout applies: the deadline plus the grace.
    pub flag_at: Option<DateTime<Utc>>,
}

impl SeatStatus {
    /// Past the deadline, possibly still in grace.
    pub fn is_late(&self, now: DateTime<Utc>) -> bool {
        self.deadline.is_some_and(|d| now > d)
    }

    /// Past the deadline and the grace: the timeout applies.
    pub fn is_out(&self, now: DateTime<Utc>) -> bool {
        self.flag_at.is_some_and(|f| now > f)
    }
}

/// What `clock` says at `now`, with the game's `stops`.
///
/// A move accepted at the deadline itself is in time; one a millisecond later is
/// late.
pub fn status(spec: &ClockSpec, clock: &SeatClock, stops: &Stops, now: DateTime<Utc>) -> SeatStatus {
    match clock.announced_at.filter(|_| clock.flagged_at.is_none()) {
        None => SeatStatus { used: clock.used, left: clock.bank, running: false, deadline: None, flag_at: None },
        Some(since) => {
            let charged = spec.charge(stops.running_between(since, now));
            let deadline = stops.advance(since, spec.running_for(clock.bank));
            let flag_at = stops.advance(deadline, spec.grace());
            SeatStatus {
                used: clock.used + charged,
                left: clock.bank - charged,
                running: true,
                deadline: Some(deadline),
                flag_at: Some(flag_at),
            }
        }
    }
}

/// A duration for people: `2d 03h 15m`, `5h 02m`, `0m` (seconds are dropped; a
/// negative duration gets a minus sign).
pub fn human(d: TimeDelta) -> String {
    let sign = if d < TimeDelta::zero() { "-" } else { "" };
    let mins = d.num_minutes().abs();
    let (days, hours, minutes) = (mins / 1440, (mins / 60) % 24, mins % 60);
    match (days, hours) {
        (0, 0) => format!("{sign}{minutes}m"),
        (0, _) => format!("{sign}{hours}h {minutes:02}m"),
        _ => format!("{sign}{days}d {hours:02}h {minutes:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::control::days;
    use serde_json::json;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn spec(text: &str) -> ClockSpec {
        ClockSpec::from_json(&json!(text)).unwrap()
    }

    #[test]
    fn stops_merge_and_are_stepped_over() {
        let stops = Stops::new(vec![
            (t("2026-12-24T00:00:00Z"), t("2026-12-26T00:00:00Z")),
            (t("2026-12-25T00:00:00Z"), t("2027-01-03T00:00:00Z")),
            (t("2027-02-01T00:00:00Z"), t("2027-02-01T00:00:00Z")),
        ]);
        assert_eq!(stops.intervals(), &[(t("2026-12-24T00:00:00Z"), t("2027-01-03T00:00:00Z"))]);
        assert!(stops.contains(t("2026-12-24T00:00:00Z")));
        assert!(!stops.contains(t("2027-01-03T00:00:00Z")));
        // From the 22nd noon, 3 days of running time: 1.5 days before the leave,
        // 1.5 days after it.
        assert_eq!(stops.advance(t("2026-12-22T12:00:00Z"), days(3)), t("2027-01-04T12:00:00Z"));
        assert_eq!(stops.running_between(t("2026-12-22T12:00:00Z"), t("2027-01-04T12:00:00Z")), days(3));
        // Used up exactly as the leave begins: the instant is the leave's start.
        assert_eq!(stops.advance(t("2026-12-21T00:00:00Z"), days(3)), t("2026-12-24T00:00:00Z"));
        // Starting inside a leave.
        assert_eq!(stops.advance(t("2026-12-30T00:00:00Z"), days(1)), t("2027-01-04T00:00:00Z"));
        assert_eq!(stops.running_between(t("2026-12-30T00:00:00Z"), t("2027-01-02T00:00:00Z")), TimeDelta::zero());
    }

    #[test]
    fn days_per_move_gives_each_move_fresh_days() {
        let s = spec("days_per_move days=3");
        let start = t("2026-03-01T10:00:00Z");
        let c = SeatClock::new(&s).started(start, 1, 0);
        let st = status(&s, &c, &Stops::default(), t("2026-03-02T10:00:00Z"));
        assert_eq!((st.used, st.left, st.deadline), (days(1), days(2), Some(t("2026-03-04T10:00:00Z"))));
        let c = c.stopped(&s, &Stops::default(), t("2026-03-03T10:00:00Z"), true);
        assert_eq!((c.moves, c.used, c.bank, c.announced_at), (1, days(2), days(3), None));
        let st = status(&s, &c.started(t("2026-03-05T00:00:00Z"), 2, 0), &Stops::default(), t("2026-03-05T00:00:00Z"));
        assert_eq!(st.deadline, Some(t("2026-03-08T00:00:00Z")));
    }

    #[test]
    fn a_deadline_is_in_time_and_a_millisecond_later_is_late() {
        let s = spec("days_per_move days=1");
        let c = SeatClock::new(&s).started(t("2026-03-01T10:00:00Z"), 1, 0);
        let deadline = t("2026-03-02T10:00:00Z");
        let at = |x| status(&s, &c, &Stops::default(), x);
        assert!(!at(deadline).is_late(deadline));
        assert!(!at(deadline - TimeDelta::seconds(1)).is_out(deadline - TimeDelta::seconds(1)));
        let after = deadline + TimeDelta::seconds(1);
        assert!(at(after).is_late(after) && at(after).is_out(after));
    }

    #[test]
    fn period_time_accumulates() {
        let s = spec("period moves=2 days=10");
        let none = Stops::default();
        let mut c = SeatClock::new(&s);
        let mut now = t("2026-01-01T00:00:00Z");
        // Move 1 takes 3 days, move 2 takes 4: 3 days are carried into the next period.
        for used in [3, 4] {
            c = c.started(now, c.moves + 1, 0);
            now += days(used);
            c = c.stopped(&s, &none, now, true);
        }
        assert_eq!((c.moves, c.used, c.bank), (2, days(7), days(13)));
        c = c.started(now, 3, 0);
        assert_eq!(status(&s, &c, &none, now).deadline, Some(now + days(13)));
    }

    #[test]
    fn fischer_adds_the_increment_up_to_the_cap() {
        let s = spec("fischer base_days=5 increment_days=2 cap_days=6");
        let none = Stops::default();
        let start = t("2026-01-01T00:00:00Z");
        let c = SeatClock::new(&s).started(start, 1, 0);
        assert_eq!(status(&s, &c, &none, start).deadline, Some(start + days(5)));
        let c = c.stopped(&s, &none, start + days(1), true);
        assert_eq!(c.bank, days(6), "4 left + 2 would be 6: at the cap");
        let c = c.started(start + days(2), 2, 0).stopped(&s, &none, start + days(6), true);
        assert_eq!(c.bank, days(4), "6 - 4 + 2");
    }

    #[test]
    fn double_after_days_brings_the_deadline_forward() {
        let s = spec("period moves=10 days=50 double_after_days=20");
        let start = t("2026-01-01T00:00:00Z");
        let c = SeatClock::new(&s).started(start, 1, 0);
        // 50 charged days = 20 plain + 15 doubled.
        let st = status(&s, &c, &Stops::default(), start);
        assert_eq!(st.deadline, Some(start + days(35)));
        let st = status(&s, &c, &Stops::default(), start + days(25));
        assert_eq!((st.used, st.left), (days(30), days(20)));
    }

    #[test]
    fn leave_stops_the_clock_and_moves_the_deadline() {
        let s = spec("days_per_move days=3");
        // The deadline would be Dec 25 noon, inside the leave Dec 24 to Jan 2.
        let start = t("2026-12-22T12:00:00Z");
        let stops = Stops::new(vec![(t("2026-12-24T00:00:00Z"), t("2027-01-03T00:00:00Z"))]);
        let c = SeatClock::new(&s).started(start, 4, 0);
        let st = status(&s, &c, &stops, t("2026-12-28T00:00:00Z"));
        assert!(stops.contains(t("2026-12-28T00:00:00Z")));
        assert_eq!(st.used, TimeDelta::hours(36));
        assert_eq!(st.deadline, Some(t("2027-01-04T12:00:00Z")));
        let stopped = c.stopped(&s, &stops, t("2027-01-03T06:00:00Z"), true);
        assert_eq!(stopped.used, TimeDelta::hours(42));
    }

    #[test]
    fn grace_follows_the_deadline() {
        let s = spec("days_per_move days=2 grace_hours=24");
        let start = t("2026-05-01T00:00:00Z");
        let c = SeatClock::new(&s).started(start, 1, 0);
        let late = t("2026-05-03T12:00:00Z");
        let st = status(&s, &c, &Stops::default(), late);
        assert_eq!(st.deadline, Some(t("2026-05-03T00:00:00Z")));
        assert_eq!(st.flag_at, Some(t("2026-05-04T00:00:00Z")));
        assert!(st.is_late(late) && !st.is_out(late));
        // A move in grace leaves no debt.
        let c = c.stopped(&s, &Stops::default(), late, true);
        assert_eq!((c.used, c.bank), (TimeDelta::hours(60), days(2)));
    }

    #[test]
    fn a_flagged_or_standing_clock_has_no_deadline() {
        let s = spec("days_per_move days=2");
        let c = SeatClock::new(&s);
        assert_eq!(status(&s, &c, &Stops::default(), t("2026-05-01T00:00:00Z")).deadline, None);
        let mut c = c.started(t("2026-05-01T00:00:00Z"), 1, 0);
        c.flagged_at = Some(t("2026-05-04T00:00:00Z"));
        assert!(!status(&s, &c, &Stops::default(), t("2026-05-05T00:00:00Z")).running);
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(human(TimeDelta::minutes(3 * 1440 + 62)), "3d 01h 02m");
        assert_eq!(human(TimeDelta::minutes(62)), "1h 02m");
        assert_eq!(human(TimeDelta::seconds(59)), "0m");
        assert_eq!(human(-TimeDelta::minutes(90)), "-1h 30m");
    }
}
