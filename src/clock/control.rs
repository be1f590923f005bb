//! Time controls as a game chooses them at creation: the kind (`days_per_move`,
//! `period`, `fischer`) with its numbers, and the options `double_after_days` and
//! `grace_hours`. Read from the game's `clock` option, either an object
//!
//! ```json
//! {"kind": "period", "moves": 10, "days": 50, "double_after_days": 20, "grace_hours": 24}
//! ```
//!
//! or the same as one line of text, `period moves=10 days=50 grace_hours=24` (handy for
//! `fairsteward game new --option clock=...`). Numbers may be given as JSON numbers or
//! as text. Every refusal says which value is wrong and what would be accepted.

use std::fmt;

use chrono::TimeDelta;
use serde_json::{Map, Value, json};

/// The name of the game option that holds the time control.
pub const OPTION: &str = "clock";

/// How the reflection time of a seat is granted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Each move gets a fresh `days` (lichess's correspondence control): 1–14.
    DaysPerMove {
        /// Days per move.
        days: u32,
    },
    /// `moves` moves in `days` days, unused time carried into the next period
    /// (ICCF-classic, e.g. 10 moves in 50 days).
    Period {
        /// Moves per period.
        moves: u32,
        /// Days per period.
        days: u32,
    },
    /// `base_days` at the start, `increment_days` added after each move, never more
    /// than `cap_days` in the bank (ICCF's Fischer control).
    Fischer {
        /// The time at the start.
        base_days: u32,
        /// Added after each move.
        increment_days: u32,
        /// The most a seat can have.
        cap_days: u32,
    },
}

/// A game's clock: the control and its options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockSpec {
    /// The control.
    pub control: TimeControl,
    /// ICCF: days used on one move beyond this many count double.
    pub double_after_days: Option<u32>,
    /// Hours after a deadline before the timeout applies (0: at once). At the
    /// deadline the late seat gets a last reminder and the others a notice.
    pub grace_hours: u32,
}

/// A clock option that cannot be used; the text says what to send instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("option clock: {0}")]
pub struct ClockSpecError(pub String);

fn err(text: impl Into<String>) -> ClockSpecError {
    ClockSpecError(text.into())
}

const SHAPES: &str = r#"{"kind": "days_per_move", "days": 3}, {"kind": "period", "moves": 10, "days": 50} or {"kind": "fischer", "base_days": 30, "increment_days": 1, "cap_days": 50}, each optionally with "double_after_days" and "grace_hours""#;

const DAY: i64 = 86_400;

/// `n` days as a duration.
pub fn days(n: u32) -> TimeDelta {
    TimeDelta::seconds(i64::from(n) * DAY)
}

/// `n` hours as a duration.
pub fn hours(n: u32) -> TimeDelta {
    TimeDelta::seconds(i64::from(n) * 3600)
}

impl ClockSpec {
    /// Reads the `clock` option: an object or a line of text.
    ///
    /// # Errors
    /// An unknown kind or key, a missing or out-of-range number.
    pub fn from_json(value: &Value) -> Result<ClockSpec, ClockSpecError> {
        let map = match value {
            Value::Object(m) => m.clone(),
            Value::String(s) => text_to_map(s)?,
            other => return Err(err(format!("must be an object or a text, not {other}; send {SHAPES}"))),
        };
        ClockSpec::from_map(&map)
    }

    fn from_map(map: &Map<String, Value>) -> Result<ClockSpec, ClockSpecError> {
        let kind = match map.get("kind") {
            Some(Value::String(k)) => k.trim().to_ascii_lowercase().replace('-', "_"),
            Some(other) => return Err(err(format!("kind must be a text, not {other}"))),
            None => return Err(err(format!("kind is missing; send {SHAPES}"))),
        };
        let allowed: &[&str] = match kind.as_str() {
            "days_per_move" => &["kind", "days", "double_after_days", "grace_hours"],
            "period" => &["kind", "moves", "days", "double_after_days", "grace_hours"],
            "fischer" => &["kind", "base_days", "increment_days", "cap_days", "double_after_days", "grace_hours"],
            other => {
                return Err(err(format!(
                    "kind {other:?} is not a time control; use days_per_move, period or fischer: {SHAPES}"
                )));
            }
        };
        if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(err(format!(
                "{kind} does not take {unknown:?}; its keys are {}",
                allowed.iter().filter(|k| **k != "kind").copied().collect::<Vec<_>>().join(", ")
            )));
        }
        let control = match kind.as_str() {
            "days_per_move" => TimeControl::DaysPerMove { days: number(map, "days", 1..=14, "days per move")? },
            "period" => TimeControl::Period {
                moves: number(map, "moves", 1..=100, "moves per period")?,
                days: number(map, "days", 1..=365, "days per period")?,
            },
            _ => {
                let base_days = number(map, "base_days", 1..=365, "days at the start")?;
                let increment_days = number(map, "increment_days", 0..=30, "days added per move")?;
                let cap_days = match map.get("cap_days") {
                    None => base_days,
                    Some(_) => number(map, "cap_days", 1..=365, "the most days a seat may have")?,
                };
                if cap_days < base_days {
                    return Err(err(format!(
                        "cap_days ({cap_days}) is less than base_days ({base_days}); the cap is the most a seat may have, so make it at least {base_days}"
                    )));
                }
                TimeControl::Fischer { base_days, increment_days, cap_days }
            }
        };
        let double_after_days = match map.get("double_after_days") {
            None | Some(Value::Null) => None,
            Some(_) => Some(number(map, "double_after_days", 1..=365, "days after which a move's time counts double")?),
        };
        let grace_hours = match map.get("grace_hours") {
            None | Some(Value::Null) => 0,
            Some(_) => number(map, "grace_hours", 0..=336, "hours of grace after a deadline")?,
        };
        Ok(ClockSpec { control, double_after_days, grace_hours })
    }

    /// The canonical JSON object (as stored and shown).
    pub fn to_json(&self) -> Value {
        let mut v = match self.control {
            TimeControl::DaysPerMove { days } => json!({"kind": "days_per_move", "days": days}),
            TimeControl::Period { moves, days } => json!({"kind": "period", "moves": moves, "days": days}),
            TimeControl::Fischer { base_days, increment_days, cap_days } => json!({
                "kind": "fischer", "base_days": base_days, "increment_days": increment_days, "cap_days": cap_days,
            }),
        };
        if let Some(d) = self.double_after_days {
            v["double_after_days"] = json!(d);
        }
        if self.grace_hours > 0 {
            v["grace_hours"] = json!(self.grace_hours);
        }
        v
    }

    /// The time a seat has for its first move.
    pub fn first_bank(&self) -> TimeDelta {
        match self.control {
            TimeControl::DaysPerMove { days: d } | TimeControl::Period { days: d, .. } => days(d),
            TimeControl::Fischer { base_days, .. } => days(base_days),
        }
    }

    /// The grace after a deadline.
    pub fn grace(&self) -> TimeDelta {
        hours(self.grace_hours)
    }

    /// The reflection time charged for `elapsed` on one move: with
    /// `double_after_days`, the part beyond it counts double.
    pub fn charge(&self, elapsed: TimeDelta) -> TimeDelta {
        let elapsed = elapsed.max(TimeDelta::zero());
        match self.double_after_days.map(days) {
            Some(limit) if elapsed > limit => limit + (elapsed - limit) * 2,
            _ => elapsed,
        }
    }

    /// The running time after which `charge` reaches `charged` (the inverse of
    /// [`ClockSpec::charge`], rounded down to the millisecond).
    pub fn running_for(&self, charged: TimeDelta) -> TimeDelta {
        let charged = charged.max(TimeDelta::zero());
        match self.double_after_days.map(days) {
            Some(limit) if charged > limit => limit + TimeDelta::milliseconds((charged - limit).num_milliseconds() / 2),
            _ => charged,
        }
    }

    /// The bank after a move that was charged `charged`, made from a bank of
    /// `bank`, as the seat's `moves_before + 1`-th counted move. A move made in
    /// grace leaves no debt: the bank never goes below zero.
    pub fn bank_after_move(&self, bank: TimeDelta, charged: TimeDelta, moves_before: u32) -> TimeDelta {
        let rest = (bank - charged).max(TimeDelta::zero());
        match self.control {
            TimeControl::DaysPerMove { days: d } => days(d),
            TimeControl::Period { moves, days: d } => {
                if (moves_before + 1).is_multiple_of(moves) {
                    rest + days(d)
                } else {
                    rest
                }
            }
            TimeControl::Fischer { increment_days, cap_days, .. } => (rest + days(increment_days)).min(days(cap_days)),
        }
    }

    /// The bank after a step that is not a move of its own (a reveal after a
    /// commitment): the time is spent, nothing is added.
    pub fn bank_after_step(&self, bank: TimeDelta, charged: TimeDelta) -> TimeDelta {
        match self.control {
            TimeControl::DaysPerMove { days: d } => days(d),
            _ => (bank - charged).max(TimeDelta::zero()),
        }
    }
}

impl fmt::Display for ClockSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: u32, one: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {one}s") };
        match self.control {
            TimeControl::DaysPerMove { days } => write!(f, "{} per move", plural(days, "day"))?,
            TimeControl::Period { moves, days } => write!(f, "{} in {}", plural(moves, "move"), plural(days, "day"))?,
            TimeControl::Fischer { base_days, increment_days, cap_days } => write!(
                f,
                "Fischer: {} + {} per move, at most {}",
                plural(base_days, "day"),
                plural(increment_days, "day"),
                plural(cap_days, "day")
            )?,
        }
        if let Some(d) = self.double_after_days {
            write!(f, "; days beyond {d} on one move count double")?;
        }
        if self.grace_hours > 0 {
            write!(f, "; {} of grace after a deadline", plural(self.grace_hours, "hour"))?;
        }
        Ok(())
    }
}

/// Reads `period moves=10 days=50` into a map.
fn text_to_map(text: &str) -> Result<Map<String, Value>, ClockSpecError> {
    let mut words = text.split_whitespace();
    let kind = words.next().ok_or_else(|| err(format!("is empty; send {SHAPES}")))?;
    let mut map = Map::new();
    map.insert("kind".into(), Value::String(kind.to_owned()));
    for w in words {
        let (k, v) = w
            .split_once('=')
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| err(format!("{w:?} is not KEY=VALUE; write it like \"period moves=10 days=50\"")))?;
        if map.insert(k.to_owned(), Value::String(v.to_owned())).is_some() {
            return Err(err(format!("{k} is given twice")));
        }
    }
    Ok(map)
}

fn number(
    map: &Map<String, Value>,
    key: &str,
    range: std::ops::RangeInclusive<u32>,
    what: &str,
) -> Result<u32, ClockSpecError> {
    let bounds = format!("a whole number from {} to {}", range.start(), range.end());
    let value = map.get(key).ok_or_else(|| err(format!("{key} ({what}) is missing; give {bounds}")))?;
    let n = match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    let n = n.ok_or_else(|| err(format!("{key} ({what}) is {value}, not {bounds}")))?;
    u32::try_from(n)
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| err(format!("{key} ({what}) is {n}; give {bounds}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(v: Value) -> ClockSpec {
        ClockSpec::from_json(&v).unwrap_or_else(|e| panic!("{v}: {e}"))
    }

    fn refused(v: Value) -> String {
        ClockSpec::from_json(&v).expect_err("refused").to_string()
    }

    #[test]
    fn every_kind_reads_from_json_and_text() {
        assert_eq!(spec(json!({"kind": "days_per_move", "days": 3})).control, TimeControl::DaysPerMove { days: 3 });
        assert_eq!(spec(json!("days_per_move days=3")), spec(json!({"kind": "days_per_move", "days": "3"})));
        let p = spec(json!("period moves=10 days=50 double_after_days=20 grace_hours=24"));
        assert_eq!(p.control, TimeControl::Period { moves: 10, days: 50 });
        assert_eq!((p.double_after_days, p.grace_hours), (Some(20), 24));
        let f = spec(json!({"kind": "fischer", "base_days": 30, "increment_days": 1, "cap_days": 50}));
        assert_eq!(f.control, TimeControl::Fischer { base_days: 30, increment_days: 1, cap_days: 50 });
        // The canonical JSON reads back to the same spec.
        for s in [p, f] {
            assert_eq!(spec(s.to_json()), s);
        }
        assert_eq!(
            spec(json!({"kind": "fischer", "base_days": 10, "increment_days": 1})).control,
            TimeControl::Fischer { base_days: 10, increment_days: 1, cap_days: 10 }
        );
    }

    #[test]
    fn bad_values_are_refused_with_what_to_send() {
        assert!(refused(json!({"kind": "days_per_move", "days": 15})).contains("from 1 to 14"));
        assert!(refused(json!({"kind": "days_per_move", "days": 0})).contains("from 1 to 14"));
        assert!(refused(json!({"kind": "days_per_move"})).contains("days (days per move) is missing"));
        assert!(refused(json!({"kind": "blitz"})).contains("days_per_move, period or fischer"));
        assert!(refused(json!({"days": 3})).contains("kind is missing"));
        assert!(
            refused(json!({"kind": "period", "moves": 10, "days": 50, "increment_days": 1})).contains("does not take")
        );
        assert!(
            refused(json!({"kind": "fischer", "base_days": 30, "increment_days": 1, "cap_days": 20}))
                .contains("at least 30")
        );
        assert!(refused(json!({"kind": "days_per_move", "days": 2.5})).contains("whole number"));
        assert!(refused(json!({"kind": "days_per_move", "days": 3, "grace_hours": -1})).contains("grace_hours"));
        assert!(refused(json!(7)).contains("object or a text"));
        assert!(refused(json!("period moves=10 days")).contains("KEY=VALUE"));
    }

    #[test]
    fn double_after_days_charges_the_excess_twice() {
        let s = spec(json!({"kind": "period", "moves": 10, "days": 50, "double_after_days": 20}));
        assert_eq!(s.charge(days(5)), days(5));
        assert_eq!(s.charge(days(20)), days(20));
        assert_eq!(s.charge(days(23)), days(26));
        assert_eq!(s.running_for(days(26)), days(23));
        assert_eq!(s.running_for(days(20)), days(20));
        let plain = spec(json!({"kind": "period", "moves": 10, "days": 50}));
        assert_eq!(plain.charge(days(23)), days(23));
        assert_eq!(plain.charge(TimeDelta::seconds(-5)), TimeDelta::zero());
    }

    #[test]
    fn banks_follow_each_control() {
        let d = spec(json!("days_per_move days=3"));
        assert_eq!(d.bank_after_move(days(3), days(2), 0), days(3));
        let p = spec(json!("period moves=2 days=10"));
        // Move 1 used 3 days: 7 left for move 2; move 2 used 4: 3 left + 10 for the next period.
        assert_eq!(p.bank_after_move(days(10), days(3), 0), days(7));
        assert_eq!(p.bank_after_move(days(7), days(4), 1), days(13));
        // A move in grace (more than the bank) leaves no debt.
        assert_eq!(p.bank_after_move(days(3), days(4), 2), TimeDelta::zero());
        let f = spec(json!("fischer base_days=5 increment_days=2 cap_days=6"));
        assert_eq!(f.bank_after_move(days(5), days(1), 0), days(6));
        assert_eq!(f.bank_after_move(days(6), days(4), 1), days(4));
        assert_eq!(f.bank_after_step(days(6), days(4)), days(2));
    }

    #[test]
    fn descriptions_read_well() {
        assert_eq!(spec(json!("days_per_move days=1")).to_string(), "1 day per move");
        assert_eq!(
            spec(json!("period moves=10 days=50 grace_hours=24")).to_string(),
            "10 moves in 50 days; 24 hours of grace after a deadline"
        );
        assert_eq!(
            spec(json!("fischer base_days=30 increment_days=1 cap_days=50 double_after_days=20")).to_string(),
            "Fischer: 30 days + 1 day per move, at most 50 days; days beyond 20 on one move count double"
        );
    }
}
