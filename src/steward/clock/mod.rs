//! Clocks in the steward: the hooks the move path calls (start, stop, announce),
//! what the views and board mails show, and — in the submodules — the sweep
//! (timeouts, grace, reminders), leave and the calendar feed.
//!
//! The arithmetic is [`crate::clock`]; this module loads a game's clocks and its
//! players' leave in the caller's transaction, asks [`crate::clock::status`], and
//! writes the result back in that same transaction.

mod leave;
mod mails;
mod sweep;

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, NaiveDate, SecondsFormat, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use serde_json::Value;

pub use leave::{LEAVES_PER_DAY, LeaveAnswer};
pub use sweep::{GameSweep, SweepReport, TimeoutReport};

use super::{Loaded, NewSeat, Refusal, Steward, StewardError};
use crate::clock::leave::{Declared, LeavePolicy};
use crate::clock::{ClockSpec, SeatClock, SeatStatus, Stops, human};
use crate::ids::{GameId, TournamentId};
use crate::rules::{Seat, SeatSet};
use crate::store::{LeaveRow, Tx, time_text};

/// A game's clocks as loaded in a transaction.
pub(super) struct GameClock {
    pub(super) spec: ClockSpec,
    /// One per seat, in seat order.
    pub(super) seats: Vec<SeatClock>,
    pub(super) stops: Stops,
    pub(super) zones: Vec<Option<Tz>>,
    pub(super) leaves: Vec<LeaveRow>,
    /// How much of the players' leave stops these clocks.
    pub(super) policy: LeavePolicy,
}

/// A game's leave policy: its tournament's (with the tournament), or the
/// steward's allowance for a game outside a tournament.
pub(super) fn leave_policy(tx: &Tx<'_>, game: &GameId) -> Result<(LeavePolicy, Option<TournamentId>), StewardError> {
    let Some((t, _)) = tx.tournament_of_game(game)? else { return Ok((LeavePolicy::Allowed, None)) };
    let policy = tx
        .tournament(&t)?
        .and_then(|row| serde_json::from_value::<Option<LeavePolicy>>(row.spec["leave"].clone()).ok().flatten())
        .unwrap_or_default();
    Ok((policy, Some(t)))
}

/// A stretch of time `[start, end)` in which a game's clocks stand still.
pub(super) type Stretch = (DateTime<Utc>, DateTime<Utc>);

/// A leave row as a policy reads it.
pub(super) fn declared(l: &LeaveRow) -> Declared<'_> {
    Declared { from: l.from, to: l.to, starts_at: l.starts_at, ends_at: l.ends_at, days: &l.days }
}

/// The days of each leave in `rows` (any players', each player's in the order
/// declared) that stop a game's clocks under `policy`, by row id; and the
/// stretches they stop them.
pub(super) fn honoured(policy: LeavePolicy, rows: &[LeaveRow]) -> (BTreeMap<i64, Vec<NaiveDate>>, Vec<Stretch>) {
    let mut by_player: BTreeMap<&str, Vec<&LeaveRow>> = BTreeMap::new();
    for l in rows {
        by_player.entry(l.player.as_str()).or_default().push(l);
    }
    let (mut days, mut stops) = (BTreeMap::new(), Vec::new());
    for mut theirs in by_player.into_values() {
        theirs.sort_by_key(|l| l.id);
        let d: Vec<Declared<'_>> = theirs.iter().map(|l| declared(l)).collect();
        for (l, honoured) in theirs.iter().zip(policy.honoured(&d)) {
            days.insert(l.id, honoured);
        }
        stops.extend(policy.stops(&d));
    }
    (days, stops)
}

impl GameClock {
    pub(super) fn status(&self, seat: Seat, now: DateTime<Utc>) -> SeatStatus {
        crate::clock::status(&self.spec, &self.seats[seat.index()], &self.stops, now)
    }
}

/// Takes the clock option out of a new game's options (like the trust options:
/// the rest are the variant's).
///
/// # Errors
/// A clock option that does not read: a refusal saying what to send.
pub(super) fn take_option(raw: &mut BTreeMap<String, Value>) -> Result<Option<ClockSpec>, Refusal> {
    raw.remove(crate::clock::control::OPTION)
        .map(|v| ClockSpec::from_json(&v).map_err(|e| Refusal::BadRequest(e.to_string())))
        .transpose()
}

/// Reads the seats' time zones (IANA names, e.g. `Europe/Berlin`).
///
/// # Errors
/// A name that is not in the time zone database.
pub(super) fn time_zones(seats: &[NewSeat], names: &[&str]) -> Result<Vec<Option<String>>, Refusal> {
    seats
        .iter()
        .enumerate()
        .map(|(i, s)| match s.time_zone.as_deref().map(str::trim).filter(|z| !z.is_empty()) {
            None => Ok(None),
            Some(z) => z.parse::<Tz>().map(|tz| Some(tz.name().to_owned())).map_err(|_| {
                Refusal::BadRequest(format!(
                    "seat {} ({}): time_zone {z:?} is not an IANA time zone; give one like \"Europe/Berlin\", \"America/New_York\" or \"UTC\"",
                    i + 1,
                    names.get(i).copied().unwrap_or("?")
                ))
            }),
        })
        .collect()
}

/// A time in UTC for mails: `2026-03-30 12:00 UTC`, with the zone's local time
/// alongside when there is one: `(14:00 CEST, Europe/Berlin)`.
pub(super) fn mail_time(t: DateTime<Utc>, zone: Option<Tz>) -> String {
    let utc = t.format("%Y-%m-%d %H:%M UTC").to_string();
    match zone {
        Some(z) if z != Tz::UTC => {
            let local = t.with_timezone(&z);
            let same_day = local.date_naive() == t.date_naive();
            let shown = if same_day { local.format("%H:%M %Z") } else { local.format("%Y-%m-%d %H:%M %Z") };
            format!("{utc} ({shown}, {})", z.name())
        }
        _ => utc,
    }
}

fn local_text(t: DateTime<Utc>, zone: Option<Tz>) -> Option<String> {
    zone.map(|z| t.with_timezone(&z).to_rfc3339_opts(SecondsFormat::Secs, false))
}

/// A game's time control, as the API shows it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ClockView {
    /// The control as stored: `{"kind": "period", "moves": 10, "days": 50, …}`.
    #[schema(value_type = Object)]
    pub control: Value,
    /// The same in words.
    pub description: String,
    /// The instant the clocks below were read at (UTC).
    pub as_of: String,
    /// Whether the clocks stand still now because a player is on leave.
    pub on_leave: bool,
    /// The players' leave that stops this game's clocks: `{"from", "to"}`, days included.
    #[schema(value_type = Vec<Object>)]
    pub leave: Vec<Value>,
    /// How much leave stops this game's clocks: `"allowed"`, `"none"` or
    /// `{"capped_days": N}` (its tournament's rule).
    pub leave_policy: LeavePolicy,
}

/// One seat's clock, as the API shows it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SeatClockView {
    /// Whether the clock runs now (the seat owes a move).
    pub running: bool,
    /// Moves counted so far.
    pub moves: u32,
    /// Reflection time used, the running move included: `2d 03h 15m`.
    pub used: String,
    /// The same in seconds.
    pub used_seconds: i64,
    /// Time left for the move owed (for a standing clock: for the next move).
    pub left: String,
    /// The same in seconds (negative once late).
    pub left_seconds: i64,
    /// When the move owed is due (UTC).
    pub deadline: Option<String>,
    /// The same in the seat's time zone (RFC 3339 with its offset).
    pub deadline_local: Option<String>,
    /// When the timeout applies: the deadline plus the grace (UTC).
    pub final_deadline: Option<String>,
    /// The same in the seat's time zone.
    pub final_deadline_local: Option<String>,
    /// The seat's time zone (IANA), if it gave one.
    pub time_zone: Option<String>,
    /// Past the deadline (possibly in grace).
    pub late: bool,
    /// Timed out in a game that went on without it.
    pub timed_out: bool,
}

impl Steward {
    /// The time now, from the steward's one clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// Loads a game's clocks, if it has any.
    pub(super) fn load_clock(&self, tx: &Tx<'_>, game: &Loaded) -> Result<Option<GameClock>, StewardError> {
        let id = &game.row.id;
        let Some(spec) = tx.game_clock(id)? else { return Ok(None) };
        let stored = tx.seat_clocks(id)?;
        let seats: Vec<SeatClock> = game
            .seats
            .iter()
            .map(|s| {
                stored
                    .iter()
                    .find(|(seat, _)| *seat == s.seat)
                    .map_or_else(|| SeatClock::new(&spec), |(_, c)| c.clone())
            })
            .collect();
        let players: Vec<String> = game.seats.iter().map(|s| s.email.to_lowercase()).collect();
        // The clocks reckon from the earliest running clock's announcement (or
        // now): a leave over before then changes nothing they compute.
        let since = seats.iter().filter_map(|c| c.announced_at).chain([self.now()]).min().unwrap_or_else(|| self.now());
        // Under a cap, every leave of the year counts towards it.
        let (policy, _) = leave_policy(tx, id)?;
        let from = match policy {
            LeavePolicy::CappedDays(_) => leave::new_year(since.year()),
            _ => since,
        };
        let all = if policy == LeavePolicy::None { Vec::new() } else { tx.leaves_ending_after(&players, from)? };
        let (days, stops) = honoured(policy, &all);
        let stops = Stops::new(stops);
        let leaves =
            all.into_iter().filter(|l| l.ends_at > since && days.get(&l.id).is_some_and(|d| !d.is_empty())).collect();
        let zones = tx.time_zones(id)?.into_iter().map(|z| z.and_then(|z| z.parse::<Tz>().ok())).collect();
        Ok(Some(GameClock { spec, seats, stops, zones, leaves, policy }))
    }

    fn save_clock(tx: &Tx<'_>, game: &Loaded, seat: Seat, c: &SeatClock) -> Result<(), StewardError> {
        Ok(tx.save_seat_clock(&game.row.id, seat, c)?)
    }

    /// Hook at creation: stores the seats' time zones and the game's clock, and
    /// starts the clocks of the seats that owe the first move.
    pub(super) fn clock_start(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        spec: Option<ClockSpec>,
        zones: &[Option<String>],
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        for (s, zone) in game.seats.iter().zip(zones) {
            if zone.is_some() {
                tx.set_time_zone(&game.row.id, s.seat, zone.as_deref())?;
            }
        }
        let Some(spec) = spec else { return Ok(()) };
        tx.insert_game_clock(&game.row.id, &spec)?;
        let to_move = game.rules.seats_to_move(&game.row.state).map_err(super::internal)?;
        for s in &game.seats {
            let c = SeatClock::new(&spec);
            let c = if to_move.contains(s.seat) { c.started(now, game.row.turn, 0) } else { c };
            Self::save_clock(tx, game, s.seat, &c)?;
        }
        Ok(())
    }

    /// Hook when a seat's move, commitment or reveal is accepted: its clock stops
    /// and the time is charged. `counts` is false for a reveal (the move was
    /// counted at its commitment).
    pub(super) fn clock_moved(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        seat: Seat,
        now: DateTime<Utc>,
        counts: bool,
    ) -> Result<(), StewardError> {
        let Some(gc) = self.load_clock(tx, game)? else { return Ok(()) };
        let c = gc.seats[seat.index()].stopped(&gc.spec, &gc.stops, now, counts);
        Self::save_clock(tx, game, seat, &c)
    }

    /// Hook when every seat has committed: the clocks of the seats that must
    /// reveal run again (stage 1) until their reveal is accepted.
    pub(super) fn clock_reveals_requested(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        seats: SeatSet,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let Some(gc) = self.load_clock(tx, game)? else { return Ok(()) };
        for seat in seats.iter() {
            let c = gc.seats[seat.index()].started(now, game.row.turn, 1);
            Self::save_clock(tx, game, seat, &c)?;
        }
        Ok(())
    }

    /// Hook after a turn was resolved into `state`: the seats that owe the next
    /// move are announced it now, and their clocks start.
    pub(super) fn clock_turn_resolved(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        state: &str,
        over: bool,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        if over {
            return Ok(());
        }
        let Some(gc) = self.load_clock(tx, game)? else { return Ok(()) };
        let to_move = game.rules.seats_to_move(state).map_err(super::internal)?;
        for s in &game.seats {
            let c = &gc.seats[s.seat.index()];
            if to_move.contains(s.seat) && c.flagged_at.is_none() {
                Self::save_clock(tx, game, s.seat, &c.started(now, game.row.turn + 1, 0))?;
            }
        }
        Ok(())
    }

    /// Hook at the end of a game: every clock that still runs stops.
    pub(super) fn clock_stop_all(&self, tx: &Tx<'_>, game: &Loaded, now: DateTime<Utc>) -> Result<(), StewardError> {
        let Some(gc) = self.load_clock(tx, game)? else { return Ok(()) };
        for (i, c) in gc.seats.iter().enumerate() {
            if c.announced_at.is_some() && c.flagged_at.is_none() {
                Self::save_clock(tx, game, Seat::new(i as u8), &c.stopped(&gc.spec, &gc.stops, now, false))?;
            }
        }
        Ok(())
    }

    /// The lines about the clocks in a board mail (empty for a game without one).
    pub(super) fn clock_lines(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, StewardError> {
        let Some(gc) = self.load_clock(tx, game)? else { return Ok(Vec::new()) };
        let mut lines = vec![format!("Clocks ({}), as of {}:", gc.spec, mail_time(now, None))];
        for s in &game.seats {
            let st = gc.status(s.seat, now);
            let zone = gc.zones[s.seat.index()];
            let c = &gc.seats[s.seat.index()];
            let state = if c.flagged_at.is_some() {
                "timed out".to_owned()
            } else if let Some(d) = st.deadline {
                format!("left {}, deadline {}", human(st.left.max(chrono::TimeDelta::zero())), mail_time(d, zone))
            } else {
                format!("clock stands, {} for the next move", human(st.left))
            };
            lines.push(format!("  {} ({}): used {}, {state}", game.seat_name(s.seat), s.name, human(st.used)));
        }
        if gc.stops.contains(now) {
            lines.push("  The clocks stand still: a player is on leave.".to_owned());
        }
        Ok(lines)
    }

    /// The clocks for the game view: the control, and one view per seat.
    pub(super) fn clock_views(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
    ) -> Result<(Option<ClockView>, Vec<Option<SeatClockView>>), StewardError> {
        let Some(gc) = self.load_clock(tx, game)? else { return Ok((None, vec![None; game.seats.len()])) };
        let now = self.now();
        let over = game.row.outcome.is_some();
        let seats = game
            .seats
            .iter()
            .map(|s| {
                let st = gc.status(s.seat, now);
                let zone = gc.zones[s.seat.index()];
                let c = &gc.seats[s.seat.index()];
                let running = st.running && !over;
                let deadline = st.deadline.filter(|_| running);
                let flag = st.flag_at.filter(|_| running);
                Some(SeatClockView {
                    running,
                    moves: c.moves,
                    used: human(st.used),
                    used_seconds: st.used.num_seconds(),
                    left: human(st.left),
                    left_seconds: st.left.num_seconds(),
                    deadline: deadline.map(time_text),
                    deadline_local: deadline.and_then(|d| local_text(d, zone)),
                    final_deadline: flag.map(time_text),
                    final_deadline_local: flag.and_then(|d| local_text(d, zone)),
                    time_zone: zone.map(|z| z.name().to_owned()),
                    late: running && st.is_late(now),
                    timed_out: c.flagged_at.is_some(),
                })
            })
            .collect();
        let view = ClockView {
            control: gc.spec.to_json(),
            description: gc.spec.to_string(),
            as_of: time_text(now),
            on_leave: gc.stops.contains(now),
            leave: gc
                .leaves
                .iter()
                .map(|l| serde_json::json!({"from": l.from.to_string(), "to": l.to.to_string()}))
                .collect(),
            leave_policy: gc.policy,
        };
        Ok((Some(view), seats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn mail_times_show_utc_and_the_local_time_across_dst() {
        let berlin: Tz = "Europe/Berlin".parse().unwrap();
        // Before and after the change to summer time on 2026-03-29.
        assert_eq!(
            mail_time(t("2026-03-28T12:00:00Z"), Some(berlin)),
            "2026-03-28 12:00 UTC (13:00 CET, Europe/Berlin)"
        );
        assert_eq!(
            mail_time(t("2026-03-30T12:00:00Z"), Some(berlin)),
            "2026-03-30 12:00 UTC (14:00 CEST, Europe/Berlin)"
        );
        let sydney: Tz = "Australia/Sydney".parse().unwrap();
        assert_eq!(
            mail_time(t("2026-03-30T20:00:00Z"), Some(sydney)),
            "2026-03-30 20:00 UTC (2026-03-31 07:00 AEDT, Australia/Sydney)"
        );
        assert_eq!(mail_time(t("2026-03-30T20:00:00Z"), None), "2026-03-30 20:00 UTC");
        assert_eq!(local_text(t("2026-10-25T12:00:00Z"), Some(berlin)).unwrap(), "2026-10-25T13:00:00+01:00");
    }
}
