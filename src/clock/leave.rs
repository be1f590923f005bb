//! Leave: a player's declared days off, during which the clocks of every seat in
//! that player's games stand still (as ICCF does), within a yearly allowance.
//!
//! A leave is given as two calendar dates, both included (`leave 2026-12-24 to
//! 2027-01-02`), read as UTC days: the clocks stop from 00:00 UTC of the first day
//! (or from the moment of the declaration, if that is later) to 00:00 UTC after the
//! last. The allowance counts days per calendar year; a leave across New Year takes
//! each day from its own year, and a day already on leave is not counted twice.
//!
//! Every leave is bounded, whoever asks and through whichever door: its dates
//! are written `YYYY-MM-DD` with a four-digit year, it begins today at the
//! earliest and ends at most [`HORIZON_MONTHS`] months ahead, and it takes no
//! more days of a year than the allowance has left. The horizon keeps a
//! request's cost small (its days are counted one by one) and every instant the
//! store writes far inside what it reads back.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, TimeDelta, Utc};

/// How far ahead a leave may end: two years from today (UTC). Correspondence
/// players plan holidays a season or a year ahead; nobody needs to book the
/// year 9999, and a bound keeps every date the clocks compute with ordinary.
pub const HORIZON_MONTHS: u32 = 24;

/// A leave asked for: the first and the last day, both included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaveRequest {
    /// The first day off.
    pub from: NaiveDate,
    /// The last day off.
    pub to: NaiveDate,
}

/// Why a leave is not granted; the text says what would be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LeaveError {
    /// A date that is not `YYYY-MM-DD`.
    #[error("{0:?} is not a date; write dates as YYYY-MM-DD, like 2026-12-24")]
    BadDate(String),
    /// The last day before the first.
    #[error("the leave ends ({to}) before it begins ({from}); give the first day, then the last")]
    Backwards {
        /// The first day.
        from: NaiveDate,
        /// The last day.
        to: NaiveDate,
    },
    /// A leave that begins before today.
    #[error("the leave begins {from}, before today ({today}, UTC); a leave can begin today at the earliest")]
    InThePast {
        /// The first day.
        from: NaiveDate,
        /// Today.
        today: NaiveDate,
    },
    /// A leave that ends beyond the horizon.
    #[error(
        "the leave ends {to}, more than two years ahead; a leave can end on {last} at the latest (today is {today}, UTC), so declare it nearer the time"
    )]
    TooFar {
        /// The last day asked for.
        to: NaiveDate,
        /// The last day that can be asked for now.
        last: NaiveDate,
        /// Today.
        today: NaiveDate,
    },
    /// Every day asked for is already on leave.
    #[error("every day from {from} to {to} is already on leave")]
    AlreadyOnLeave {
        /// The first day.
        from: NaiveDate,
        /// The last day.
        to: NaiveDate,
    },
    /// More days than the allowance has left.
    #[error(
        "the leave takes {wanted} new day(s) of {year}, but only {left} of the {per_year} days allowed in {year} are left ({used} taken); ask for {left} day(s) or fewer in {year}"
    )]
    Overuse {
        /// The year that would overflow.
        year: i32,
        /// Days of that year the leave would add.
        wanted: u32,
        /// Days of that year already taken.
        used: u32,
        /// Days left.
        left: u32,
        /// The allowance.
        per_year: u32,
    },
}

/// A year's account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct Balance {
    /// The calendar year.
    pub year: i32,
    /// Days taken.
    pub used: u32,
    /// Days left.
    pub left: u32,
}

impl fmt::Display for Balance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} day(s) taken, {} left", self.year, self.used, self.left)
    }
}

fn date(text: &str) -> Result<NaiveDate, LeaveError> {
    parse_day(text).ok_or_else(|| LeaveError::BadDate(text.trim().to_owned()))
}

/// Reads a day written `YYYY-MM-DD`: exactly four digits of year, two of month
/// and two of day (chrono's `%Y` alone also takes `+10000` or `-0001`). Every
/// door reads leave dates with this (the mail command's `DD.MM.YYYY` through
/// [`parse_dotted_day`]).
pub fn parse_day(text: &str) -> Option<NaiveDate> {
    let t = text.trim().as_bytes();
    let digits = |r: std::ops::Range<usize>| t[r].iter().all(u8::is_ascii_digit);
    let shaped = t.len() == 10 && t[4] == b'-' && t[7] == b'-' && digits(0..4) && digits(5..7) && digits(8..10);
    shaped.then(|| NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()).flatten()
}

/// Reads a day written `DD.MM.YYYY` (one or two digits of day and month, four
/// of year), as a German mail client's user writes it.
pub fn parse_dotted_day(text: &str) -> Option<NaiveDate> {
    let mut parts = text.trim().split('.');
    let (d, m, y) = (parts.next()?, parts.next()?, parts.next()?);
    let digits =
        |s: &str, n: std::ops::RangeInclusive<usize>| n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    if parts.next().is_some() || !digits(d, 1..=2) || !digits(m, 1..=2) || !digits(y, 4..=4) {
        return None;
    }
    NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
}

/// The last day a leave asked for on `today` may end.
pub fn last_day(today: NaiveDate) -> NaiveDate {
    today.checked_add_months(chrono::Months::new(HORIZON_MONTHS)).unwrap_or(NaiveDate::MAX)
}

/// Midnight UTC at the start of `day`.
pub fn start_of(day: NaiveDate) -> DateTime<Utc> {
    day.and_time(NaiveTime::MIN).and_utc()
}

impl LeaveRequest {
    /// Reads two `YYYY-MM-DD` dates.
    ///
    /// # Errors
    /// A date that does not read, or the last day before the first.
    pub fn new(from: &str, to: &str) -> Result<LeaveRequest, LeaveError> {
        let (from, to) = (date(from)?, date(to)?);
        if to < from {
            return Err(LeaveError::Backwards { from, to });
        }
        Ok(LeaveRequest { from, to })
    }

    /// Reads the mail command `leave 2026-12-24 to 2027-01-02` (also
    /// `leave: 2026-12-24 - 2027-01-02`, or one date for one day) from the first
    /// line of `text` that starts with `leave`. `None` when there is no such line.
    pub fn from_command(text: &str) -> Option<Result<LeaveRequest, LeaveError>> {
        let line = text.lines().map(str::trim).find(|l| {
            l.get(..5).is_some_and(|w| w.eq_ignore_ascii_case("leave"))
                && l[5..].chars().next().is_none_or(|c| c == ':' || c.is_whitespace())
        })?;
        let rest = line[5..].trim_start_matches(':').trim();
        let words: Vec<&str> = rest
            .split_whitespace()
            .filter(|w| !matches!(w.to_ascii_lowercase().as_str(), "to" | "-" | "until" | "from"))
            .collect();
        Some(match words.as_slice() {
            [one] => LeaveRequest::new(one, one),
            [from, to] => LeaveRequest::new(from, to),
            _ => Err(LeaveError::BadDate(rest.to_owned())),
        })
    }

    /// The days off, first to last.
    pub fn days(&self) -> impl Iterator<Item = NaiveDate> {
        self.from.iter_days().take_while(|d| *d <= self.to)
    }

    /// How many days.
    pub fn len(&self) -> u32 {
        (self.to - self.from).num_days() as u32 + 1
    }

    /// Never empty: a leave has at least one day.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// When the clocks stand still: from the first day's midnight (UTC) or the
    /// declaration, whichever is later, to the midnight after the last day.
    pub fn interval(&self, declared_at: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
        (start_of(self.from).max(declared_at), start_of(self.to) + TimeDelta::days(1))
    }

    /// Checks the leave against the days already `taken` and the allowance of
    /// `per_year` days, on `today`; returns the days it adds. The horizon is
    /// checked first, so a request's days are counted only when they are few.
    ///
    /// # Errors
    /// A leave that begins before today, ends beyond the horizon, adds no day,
    /// or overdraws a year.
    pub fn grant(
        &self,
        taken: &BTreeSet<NaiveDate>,
        per_year: u32,
        today: NaiveDate,
    ) -> Result<Vec<NaiveDate>, LeaveError> {
        if self.from < today {
            return Err(LeaveError::InThePast { from: self.from, today });
        }
        let last = last_day(today);
        if self.to > last {
            return Err(LeaveError::TooFar { to: self.to, last, today });
        }
        let new: Vec<NaiveDate> = self.days().filter(|d| !taken.contains(d)).collect();
        if new.is_empty() {
            return Err(LeaveError::AlreadyOnLeave { from: self.from, to: self.to });
        }
        let mut wanted: BTreeMap<i32, u32> = BTreeMap::new();
        for d in &new {
            *wanted.entry(d.year()).or_default() += 1;
        }
        for (year, wanted) in wanted {
            let b = balance(taken, per_year, year);
            if wanted > b.left {
                return Err(LeaveError::Overuse { year, wanted, used: b.used, left: b.left, per_year });
            }
        }
        Ok(new)
    }
}

impl fmt::Display for LeaveRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} to {}", self.from, self.to)
    }
}

/// The account of `year` given the days `taken`.
pub fn balance(taken: &BTreeSet<NaiveDate>, per_year: u32, year: i32) -> Balance {
    let used = taken.iter().filter(|d| d.year() == year).count() as u32;
    Balance { year, used, left: per_year.saturating_sub(used) }
}

/// How much of its players' leave stops a game's clocks (issue 31): a
/// tournament's rule for its games; a game outside a tournament follows the
/// steward's allowance ([`LeavePolicy::Allowed`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LeavePolicy {
    /// Every day of leave the steward grants stops the clocks (`"allowed"`).
    #[default]
    Allowed,
    /// At most this many days of a player's leave per calendar year stop the
    /// clocks, the first ones declared first, as ICCF does (`{"capped_days": 14}`).
    CappedDays(u32),
    /// Leave does not stop the clocks (`"none"`).
    None,
}

/// One of a player's leaves, as a policy reads it.
#[derive(Clone, Copy, Debug)]
pub struct Declared<'a> {
    /// The first day.
    pub from: NaiveDate,
    /// The last day.
    pub to: NaiveDate,
    /// When the clocks stand still from (the first day's midnight or the declaration).
    pub starts_at: DateTime<Utc>,
    /// When they run again.
    pub ends_at: DateTime<Utc>,
    /// The days this leave added to the player's account (days already on leave are not counted twice).
    pub days: &'a [NaiveDate],
}

impl LeavePolicy {
    /// The days of each of one player's leaves (given in the order they were
    /// declared, every leave of the years concerned) that stop a game's clocks
    /// under this policy.
    pub fn honoured(&self, leaves: &[Declared<'_>]) -> Vec<Vec<NaiveDate>> {
        match *self {
            LeavePolicy::Allowed => {
                leaves.iter().map(|l| l.from.iter_days().take_while(|d| *d <= l.to).collect()).collect()
            }
            LeavePolicy::None => leaves.iter().map(|_| Vec::new()).collect(),
            LeavePolicy::CappedDays(cap) => {
                // Declaration order: a later leave never takes a day from an
                // earlier one, so what a game's transcript records stays true.
                let mut used: BTreeMap<i32, u32> = BTreeMap::new();
                leaves
                    .iter()
                    .map(|l| {
                        l.days
                            .iter()
                            .copied()
                            .filter(|d| {
                                let n = used.entry(d.year()).or_default();
                                (*n < cap).then(|| *n += 1).is_some()
                            })
                            .collect()
                    })
                    .collect()
            }
        }
    }

    /// The stretches in which one player's leaves (as for
    /// [`LeavePolicy::honoured`]) stop a game's clocks.
    pub fn stops(&self, leaves: &[Declared<'_>]) -> Vec<(DateTime<Utc>, DateTime<Utc>)> {
        match self {
            LeavePolicy::Allowed => leaves.iter().map(|l| (l.starts_at, l.ends_at)).collect(),
            LeavePolicy::None => Vec::new(),
            LeavePolicy::CappedDays(_) => leaves
                .iter()
                .zip(self.honoured(leaves))
                .flat_map(|(l, days)| {
                    days.into_iter().map(move |d| (start_of(d).max(l.starts_at), start_of(d) + TimeDelta::days(1)))
                })
                .collect(),
        }
    }

    /// The policy in words, for mails and views.
    pub fn words(&self) -> String {
        match self {
            LeavePolicy::Allowed => "leave allowed".to_owned(),
            LeavePolicy::CappedDays(n) => format!("leave capped at {n} day(s) a year"),
            LeavePolicy::None => "no leave".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn the_mail_command_reads() {
        let r = LeaveRequest::from_command("Hello\n  leave 2026-12-24 to 2027-01-02\nthanks").unwrap().unwrap();
        assert_eq!((r.from, r.to, r.len()), (d("2026-12-24"), d("2027-01-02"), 10));
        assert_eq!(LeaveRequest::from_command("LEAVE: 2026-05-01 - 2026-05-03").unwrap().unwrap().len(), 3);
        assert_eq!(LeaveRequest::from_command("leave 2026-05-01").unwrap().unwrap().len(), 1);
        assert!(LeaveRequest::from_command("leaves are green\nNf3").is_none());
        assert!(matches!(LeaveRequest::from_command("leave soon").unwrap(), Err(LeaveError::BadDate(_))));
        assert!(matches!(
            LeaveRequest::from_command("leave 2026-05-03 to 2026-05-01").unwrap(),
            Err(LeaveError::Backwards { .. })
        ));
    }

    #[test]
    fn the_allowance_is_counted_per_year_and_refused_with_the_balance() {
        let today = d("2026-12-01");
        let mut taken = BTreeSet::new();
        // 8 days of 2026 and 2 of 2027.
        let r = LeaveRequest::new("2026-12-24", "2027-01-02").unwrap();
        let new = r.grant(&taken, 30, today).unwrap();
        assert_eq!(new.len(), 10);
        taken.extend(new);
        assert_eq!(balance(&taken, 30, 2026), Balance { year: 2026, used: 8, left: 22 });
        assert_eq!(balance(&taken, 30, 2027), Balance { year: 2027, used: 2, left: 28 });
        // Overlapping days are not counted twice.
        let again = LeaveRequest::new("2026-12-30", "2027-01-03").unwrap().grant(&taken, 30, today).unwrap();
        assert_eq!(again, vec![d("2027-01-03")]);
        // 23 more days of 2026 would overdraw: 22 are left.
        let err = LeaveRequest::new("2026-12-01", "2026-12-23").unwrap().grant(&taken, 30, today).unwrap_err();
        assert_eq!(err, LeaveError::Overuse { year: 2026, wanted: 23, used: 8, left: 22, per_year: 30 });
        assert!(err.to_string().contains("only 22 of the 30 days allowed in 2026 are left (8 taken)"), "{err}");
        assert!(matches!(
            LeaveRequest::new("2026-11-30", "2026-12-02").unwrap().grant(&taken, 30, today),
            Err(LeaveError::InThePast { .. })
        ));
        assert!(matches!(
            LeaveRequest::new("2026-12-25", "2026-12-26").unwrap().grant(&taken, 30, today),
            Err(LeaveError::AlreadyOnLeave { .. })
        ));
    }

    #[test]
    fn dates_have_four_digit_years_and_leave_ends_within_the_horizon() {
        for bad in ["+10000-01-01", "10000-01-01", "-0001-01-01", "2026-1-01", "2026-01-1", " 2026-02-30", "٢٠٢٦-٠١-٠١"]
        {
            assert_eq!(parse_day(bad), None, "{bad}");
            assert!(matches!(LeaveRequest::new(bad, "2026-12-24"), Err(LeaveError::BadDate(_))), "{bad}");
        }
        assert_eq!(parse_day(" 2026-12-24 "), Some(d("2026-12-24")));
        assert_eq!(parse_dotted_day("24.12.2026"), Some(d("2026-12-24")));
        assert_eq!(parse_dotted_day("1.2.2027"), Some(d("2027-02-01")));
        for bad in ["24.12.10000", "24.12.26", "24.12.2026.", "x.12.2026", "31.02.2027"] {
            assert_eq!(parse_dotted_day(bad), None, "{bad}");
        }
        let today = d("2026-12-05");
        assert_eq!(last_day(today), d("2028-12-05"));
        let taken = BTreeSet::new();
        assert_eq!(LeaveRequest::new("2028-12-05", "2028-12-05").unwrap().grant(&taken, 30, today).unwrap().len(), 1);
        for (from, to) in [("2028-12-06", "2028-12-06"), ("2026-12-24", "9999-12-31"), ("9999-12-31", "9999-12-31")] {
            let err = LeaveRequest::new(from, to).unwrap().grant(&taken, 30, today).unwrap_err();
            assert_eq!(err, LeaveError::TooFar { to: d(to), last: d("2028-12-05"), today });
            assert!(err.to_string().contains("2028-12-05 at the latest"), "{err}");
        }
    }

    #[test]
    fn a_policy_honours_all_none_or_the_first_days_declared() {
        let (a_days, b_days) =
            (vec![d("2026-12-24"), d("2026-12-25"), d("2026-12-26")], vec![d("2026-12-20"), d("2026-12-21")]);
        let a = Declared {
            from: d("2026-12-24"),
            to: d("2026-12-26"),
            starts_at: start_of(d("2026-12-24")),
            ends_at: start_of(d("2026-12-27")),
            days: &a_days,
        };
        let declared = start_of(d("2026-12-20")) + TimeDelta::hours(6);
        let b = Declared {
            from: d("2026-12-20"),
            to: d("2026-12-21"),
            starts_at: declared,
            ends_at: start_of(d("2026-12-22")),
            days: &b_days,
        };
        assert_eq!(LeavePolicy::Allowed.honoured(&[a, b]), vec![a_days.clone(), b_days.clone()]);
        assert_eq!(LeavePolicy::None.honoured(&[a, b]), vec![Vec::<NaiveDate>::new(), vec![]]);
        assert!(LeavePolicy::None.stops(&[a, b]).is_empty());
        // Capped at 4: the first leave declared takes 3, the second only 1.
        let capped = LeavePolicy::CappedDays(4);
        assert_eq!(capped.honoured(&[a, b]), vec![a_days.clone(), vec![d("2026-12-20")]]);
        let stops = capped.stops(&[a, b]);
        assert!(stops.contains(&(declared, start_of(d("2026-12-21")))), "{stops:?}");
        assert_eq!(stops.len(), 4);
        let policy: LeavePolicy = serde_json::from_str(r#"{"capped_days": 14}"#).unwrap();
        assert_eq!(policy, LeavePolicy::CappedDays(14));
        assert_eq!(serde_json::from_str::<LeavePolicy>(r#""none""#).unwrap(), LeavePolicy::None);
    }

    #[test]
    fn the_clocks_stop_from_the_declaration_at_the_earliest() {
        let r = LeaveRequest::new("2026-12-24", "2026-12-24").unwrap();
        let declared = start_of(d("2026-12-24")) + TimeDelta::hours(9);
        assert_eq!(r.interval(declared), (declared, start_of(d("2026-12-25"))));
        let early = start_of(d("2026-12-01"));
        assert_eq!(r.interval(early).0, start_of(d("2026-12-24")));
    }
}
