//! The store's operations for clocks, leave, reminders and grace notices
//! (migration 3), named for what `steward/clock.rs` needs.

use super::sql::{OptionalExtension, Res, Row, params};
use chrono::{DateTime, NaiveDate, TimeDelta, Utc};

use super::StoreError;
use super::tx::{Tx, corrupt, parse_time, seat_of, time_text};
use crate::clock::{ClockSpec, SeatClock};
use crate::ids::GameId;
use crate::rules::Seat;

/// A player's leave as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaveRow {
    /// Row id.
    pub id: i64,
    /// The player's mail address, lower case.
    pub player: String,
    /// The first day off.
    pub from: NaiveDate,
    /// The last day off.
    pub to: NaiveDate,
    /// When the clocks stop.
    pub starts_at: DateTime<Utc>,
    /// When they run again.
    pub ends_at: DateTime<Utc>,
    /// The days it took from the allowance.
    pub days: Vec<NaiveDate>,
    /// When it was declared.
    pub declared_at: DateTime<Utc>,
}

/// The planned sweep time that makes a game due at the next sweep, whatever
/// its time: the epoch (migration 21 writes it as `1970-01-01T00:00:00.000Z`).
const SWEEP_AT_ONCE: DateTime<Utc> = DateTime::UNIX_EPOCH;

/// The reminder points' name in `store_state`.
const SWEEP_REMINDERS: &str = "sweep_reminders";

/// The games due in a sweep ([`Tx::clock_games_due`]).
const CLOCK_GAMES_DUE: &str = "SELECT g.id FROM game_clocks c JOIN games g ON g.id = c.game_id WHERE c.sweep_at <= ?1 ORDER BY g.created_at, g.id";

fn opt_time(text: Option<String>) -> Res<Option<DateTime<Utc>>> {
    text.as_deref().map(parse_time).transpose()
}

fn seat_clock(r: &Row<'_>) -> Res<(Seat, SeatClock)> {
    Ok((
        seat_of(r.get("seat")?)?,
        SeatClock {
            moves: r.get("moves")?,
            used: TimeDelta::milliseconds(r.get("used_ms")?),
            bank: TimeDelta::milliseconds(r.get("bank_ms")?),
            announced_at: opt_time(r.get("announced_at")?)?,
            turn: r.get("turn")?,
            stage: r.get("stage")?,
            flagged_at: opt_time(r.get("flagged_at")?)?,
        },
    ))
}

fn leave_row(r: &Row<'_>) -> Res<LeaveRow> {
    let date = |key: &str| -> Res<NaiveDate> {
        let text: String = r.get(key)?;
        NaiveDate::parse_from_str(&text, "%Y-%m-%d").map_err(|e| corrupt(format!("{key} {text:?}: {e}")))
    };
    let days: String = r.get("days")?;
    let days: Vec<String> = serde_json::from_str(&days).map_err(|e| corrupt(format!("leave days {days:?}: {e}")))?;
    Ok(LeaveRow {
        id: r.get("id")?,
        player: r.get("player")?,
        from: date("from_date")?,
        to: date("to_date")?,
        starts_at: parse_time(&r.get::<_, String>("starts_at")?)?,
        ends_at: parse_time(&r.get::<_, String>("ends_at")?)?,
        days: days
            .iter()
            .map(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").map_err(|e| corrupt(format!("leave day {d:?}: {e}"))))
            .collect::<Res<_>>()?,
        declared_at: parse_time(&r.get::<_, String>("declared_at")?)?,
    })
}

impl Tx<'_> {
    /// Stores a game's time control.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_game_clock(&self, game: &GameId, spec: &ClockSpec) -> Result<(), StoreError> {
        self.0
            .prepare_cached("INSERT INTO game_clocks (game_id, spec, sweep_at) VALUES (?1, ?2, ?3)")?
            .execute(params![game.as_str(), spec.to_json().to_string(), time_text(SWEEP_AT_ONCE)])?;
        self.2.clocks.borrow_mut().insert(game.clone(), Some(*spec));
        Ok(())
    }

    /// A game's time control, if it has one.
    ///
    /// # Errors
    /// SQLite errors or a stored spec that no longer reads.
    pub fn game_clock(&self, game: &GameId) -> Result<Option<ClockSpec>, StoreError> {
        if let Some(spec) = self.2.clocks.borrow().get(game) {
            return Ok(*spec);
        }
        let text: Option<String> = self
            .0
            .query_row("SELECT spec FROM game_clocks WHERE game_id = ?1", [game.as_str()], |r| r.get(0))
            .optional()?;
        let spec = text
            .map(|t| {
                let v: serde_json::Value =
                    serde_json::from_str(&t).map_err(|e| StoreError::Corrupt(format!("clock of {game}: {e}")))?;
                ClockSpec::from_json(&v).map_err(|e| StoreError::Corrupt(format!("clock of {game}: {e}")))
            })
            .transpose()?;
        self.2.clocks.borrow_mut().insert(game.clone(), spec);
        Ok(spec)
    }

    /// Writes a seat's clock (inserting it the first time).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn save_seat_clock(&self, game: &GameId, seat: Seat, c: &SeatClock) -> Result<(), StoreError> {
        self.0.prepare_cached(
            "INSERT INTO seat_clocks (game_id, seat, moves, used_ms, bank_ms, announced_at, turn, stage, flagged_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (game_id, seat) DO UPDATE SET moves = ?3, used_ms = ?4, bank_ms = ?5, announced_at = ?6,
                 turn = ?7, stage = ?8, flagged_at = ?9")?.execute(
            params![
                game.as_str(),
                seat.index() as i64,
                c.moves,
                c.used.num_milliseconds(),
                c.bank.num_milliseconds(),
                c.announced_at.map(time_text),
                c.turn,
                c.stage,
                c.flagged_at.map(time_text)
            ],
        )?;
        // A clock that changed may bring the game's next deadline nearer: the
        // next sweep looks at the game and plans it anew.
        self.plan_sweep(game, Some(SWEEP_AT_ONCE))
    }

    /// The clocks of a game's seats, in seat order.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn seat_clocks(&self, game: &GameId) -> Result<Vec<(Seat, SeatClock)>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM seat_clocks WHERE game_id = ?1 ORDER BY seat")?;
        let rows = stmt.query_map([game.as_str()], seat_clock)?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// Sets a seat's time zone (an IANA name; display only).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_time_zone(&self, game: &GameId, seat: Seat, zone: Option<&str>) -> Result<(), StoreError> {
        self.0.prepare_cached("UPDATE seats SET time_zone = ?3 WHERE game_id = ?1 AND seat = ?2")?.execute(params![
            game.as_str(),
            seat.index() as i64,
            zone
        ])?;
        Ok(())
    }

    /// The seats' time zones, in seat order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn time_zones(&self, game: &GameId) -> Result<Vec<Option<String>>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT time_zone FROM seats WHERE game_id = ?1 ORDER BY seat")?;
        let rows = stmt.query_map([game.as_str()], |r| r.get(0))?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// The games with a clock the sweep must look at by `now` (their planned
    /// time has come, or a clock changed since they were planned), oldest
    /// first. Read through the index on `sweep_at`: a sweep costs the games
    /// due, not every running one (issue 37).
    ///
    /// # Errors
    /// SQLite errors or a corrupt id.
    pub fn clock_games_due(&self, now: DateTime<Utc>) -> Result<Vec<GameId>, StoreError> {
        let mut stmt = self.0.prepare_cached(CLOCK_GAMES_DUE)?;
        let ids = stmt.query_map([time_text(now)], |r| r.get::<_, String>(0))?.collect::<Res<Vec<_>>>()?;
        ids.into_iter()
            .map(|id| id.parse().map_err(|e: crate::ids::BadGameId| StoreError::Corrupt(e.to_string())))
            .collect()
    }

    /// Plans when the sweep next looks at `game`: at `at`, or never (`None`:
    /// nothing lies ahead until a clock changes).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn plan_sweep(&self, game: &GameId, at: Option<DateTime<Utc>>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE game_clocks SET sweep_at = ?2 WHERE game_id = ?1")?
            .execute(params![game.as_str(), at.map(time_text)])?;
        Ok(())
    }

    /// The reminder points (hours before a deadline) the planned sweep times
    /// were reckoned with; `None` before the first plan.
    ///
    /// # Errors
    /// SQLite errors or a stored value that does not read.
    pub fn planned_reminders(&self) -> Result<Option<Vec<u32>>, StoreError> {
        self.store_state(SWEEP_REMINDERS)?
            .map(|t| serde_json::from_str(&t).map_err(|e| corrupt(format!("store_state {SWEEP_REMINDERS} {t:?}: {e}"))))
            .transpose()
    }

    /// Records other reminder points and makes every running game with a
    /// clock due at once, to be planned with them.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn replan_sweeps(&self, reminders: &[u32]) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "UPDATE game_clocks SET sweep_at = ?1 WHERE game_id IN (SELECT id FROM games WHERE result IS NULL)",
            )?
            .execute([time_text(SWEEP_AT_ONCE)])?;
        self.set_store_state(SWEEP_REMINDERS, &serde_json::Value::from(reminders.to_vec()).to_string())
    }

    /// The seat whose token has this hash, in any game.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn seat_by_token(&self, token_hash: &str) -> Result<Option<(GameId, Seat, String)>, StoreError> {
        let row: Option<(String, i64, String)> = self
            .0
            .query_row("SELECT game_id, seat, email FROM seats WHERE token_hash = ?1", [token_hash], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?;
        row.map(|(g, s, e)| {
            Ok((g.parse().map_err(|e: crate::ids::BadGameId| StoreError::Corrupt(e.to_string()))?, seat_of(s)?, e))
        })
        .transpose()
    }

    /// The running games in which `player` (a mail address, any case) holds a
    /// seat, oldest first.
    ///
    /// # Errors
    /// SQLite errors or a corrupt id.
    pub fn running_games_of(&self, player: &str) -> Result<Vec<GameId>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT DISTINCT g.id, g.created_at FROM games g JOIN seats s ON s.game_id = g.id
             WHERE lower(s.email) = lower(?1) AND g.result IS NULL ORDER BY g.created_at, g.id",
        )?;
        let ids = stmt.query_map([player], |r| r.get::<_, String>(0))?.collect::<Res<Vec<_>>>()?;
        ids.into_iter()
            .map(|id| id.parse().map_err(|e: crate::ids::BadGameId| StoreError::Corrupt(e.to_string())))
            .collect()
    }

    /// Every game, running or over, in which `player` (a mail address, any
    /// case) holds a seat, newest first.
    ///
    /// # Errors
    /// SQLite errors or a corrupt id.
    pub fn games_of(&self, player: &str) -> Result<Vec<GameId>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT DISTINCT g.id, g.created_at FROM games g JOIN seats s ON s.game_id = g.id
             WHERE lower(s.email) = lower(?1) ORDER BY g.created_at DESC, g.id",
        )?;
        let ids = stmt.query_map([player], |r| r.get::<_, String>(0))?.collect::<Res<Vec<_>>>()?;
        ids.into_iter()
            .map(|id| id.parse().map_err(|e: crate::ids::BadGameId| StoreError::Corrupt(e.to_string())))
            .collect()
    }

    /// Whether the reminder at `hours` before the deadline went out for this seat,
    /// turn and stage.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn reminder_sent(
        &self,
        game: &GameId,
        seat: Seat,
        turn: u32,
        stage: u32,
        hours: u32,
    ) -> Result<bool, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT 1 FROM reminders_sent WHERE game_id = ?1 AND seat = ?2 AND turn = ?3 AND stage = ?4 AND hours = ?5",
                params![game.as_str(), seat.index() as i64, turn, stage, hours],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// Records a reminder point as done (at most once: the key forbids a second).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_reminder(
        &self,
        game: &GameId,
        seat: Seat,
        turn: u32,
        stage: u32,
        hours: u32,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0.prepare_cached(
            "INSERT INTO reminders_sent (game_id, seat, turn, stage, hours, sent_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?.execute(
            params![game.as_str(), seat.index() as i64, turn, stage, hours, time_text(now)],
        )?;
        Ok(())
    }

    /// Whether the grace notice for this seat, turn and stage went out.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn grace_sent(&self, game: &GameId, seat: Seat, turn: u32, stage: u32) -> Result<bool, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT 1 FROM grace_notices WHERE game_id = ?1 AND seat = ?2 AND turn = ?3 AND stage = ?4",
                params![game.as_str(), seat.index() as i64, turn, stage],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// Records a grace notice.
    ///
    /// # Errors
    /// SQLite errors (a second notice among them).
    pub fn insert_grace(
        &self,
        game: &GameId,
        seat: Seat,
        turn: u32,
        stage: u32,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO grace_notices (game_id, seat, turn, stage, sent_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![game.as_str(), seat.index() as i64, turn, stage, time_text(now)])?;
        Ok(())
    }

    /// Stores a leave and returns its id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_leave(&self, l: &LeaveRow) -> Result<i64, StoreError> {
        let days: Vec<String> = l.days.iter().map(|d| d.format("%Y-%m-%d").to_string()).collect();
        self.0.query_row(
            "INSERT INTO leaves (player, from_date, to_date, starts_at, ends_at, days, declared_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
            params![
                l.player,
                l.from.format("%Y-%m-%d").to_string(),
                l.to.format("%Y-%m-%d").to_string(),
                time_text(l.starts_at),
                time_text(l.ends_at),
                serde_json::Value::from(days).to_string(),
                time_text(l.declared_at)
            ],
            |r| r.get(0),
        )
    }

    /// The leaves of these players (mail addresses, any case) that end after
    /// `after`, oldest first: a question about the clocks or the allowance
    /// reads only its window, through the index on (player, ends_at), so it
    /// costs the same whatever a player's history holds.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn leaves_ending_after(&self, players: &[String], after: DateTime<Utc>) -> Result<Vec<LeaveRow>, StoreError> {
        let mut stmt =
            self.0.prepare_cached("SELECT * FROM leaves WHERE player = lower(?1) AND ends_at > ?2 ORDER BY id")?;
        let after = time_text(after);
        let mut out = Vec::new();
        for p in players {
            out.extend(stmt.query_map(params![p, after], leave_row)?.collect::<Res<Vec<_>>>()?);
        }
        out.sort_by_key(|l| l.id);
        out.dedup_by_key(|l| l.id);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn at(day: NaiveDate) -> DateTime<Utc> {
        crate::clock::leave::start_of(day)
    }

    /// Issue 37: the sweep finds the games due through the index on
    /// `sweep_at`, not by reading every game with a clock.
    #[test]
    fn the_games_due_are_read_through_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let plan = store
            .transaction_blocking(|tx| {
                let mut stmt = tx.0.prepare_cached(&format!("EXPLAIN QUERY PLAN {CLOCK_GAMES_DUE}"))?;
                let plan: Vec<String> = stmt.query_map(params!["x"], |r| r.get(3))?.collect::<Res<_>>()?;
                Ok::<_, StoreError>(plan.join("\n"))
            })
            .unwrap();
        assert!(plan.contains("USING INDEX game_clocks_sweep_at (sweep_at<?)"), "{plan}");
    }

    /// A player with 10 000 leaves behind them: the clocks' and the allowance's
    /// questions read only their window, through the (player, ends_at) index,
    /// so they cost the same as with 10.
    #[test]
    fn leaves_are_read_by_their_window_through_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let first = NaiveDate::from_ymd_opt(1990, 1, 1).unwrap();
        let today = NaiveDate::from_ymd_opt(2026, 12, 5).unwrap();
        let (plan, window, all) = store
            .transaction_blocking(move |tx| {
                let mut day = first;
                for i in 0..10_002 {
                    // 10 000 one-day leaves in the past, two ahead.
                    if i == 10_000 {
                        day = today + TimeDelta::days(10);
                    }
                    let row = LeaveRow {
                        id: 0,
                        player: "alice@example.org".into(),
                        from: day,
                        to: day,
                        starts_at: at(day),
                        ends_at: at(day) + TimeDelta::days(1),
                        days: vec![day],
                        declared_at: at(day),
                    };
                    tx.insert_leave(&row)?;
                    day += TimeDelta::days(1);
                }
                let mut stmt = tx.0.prepare_cached(
                    "EXPLAIN QUERY PLAN SELECT * FROM leaves WHERE player = lower(?1) AND ends_at > ?2 ORDER BY id",
                )?;
                let plan: Vec<String> = stmt.query_map(params!["x", "y"], |r| r.get(3))?.collect::<Res<_>>()?;
                let window = tx.leaves_ending_after(&["Alice@Example.org".into()], at(today))?;
                let all = tx.leaves_ending_after(&["alice@example.org".into()], at(first))?;
                Ok::<_, StoreError>((plan.join("\n"), window, all.len()))
            })
            .unwrap();
        assert!(plan.contains("USING INDEX leaves_player_end (player=? AND ends_at>?)"), "{plan}");
        assert_eq!(window.len(), 2, "only the leaves not over yet");
        assert!(window.iter().all(|l| l.from > today));
        assert_eq!(all, 10_002);
    }
}
