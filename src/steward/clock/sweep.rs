//! The sweep: finds seats past their deadline and applies the clock rules, one
//! store transaction per game; then sends the reminders that are due, folded into
//! one digest per player, in one transaction.
//!
//! * A seat past its deadline and its grace times out: the variant says what that
//!   does ([`crate::rules::Variant::timeout`]). In two-seat games the late seat
//!   loses on time, and two seats whose deadlines fell at the same instant draw.
//!   When deadlines fell at different instants, the earliest decides.
//! * With `grace_hours`, at the deadline the late seat gets a last reminder and
//!   the others a notice naming who is late (once per seat, turn and stage).
//! * Reminders go out at the configured points before a deadline, at most one per
//!   seat, turn, stage and point; a point that lies before the move was announced
//!   is skipped (a 1-day move gets no 48-hour reminder).
//!
//! * A sweep reads only the games due (issue 37): after it looks at a game it
//!   plans when to look again (the next reminder point, deadline or final
//!   deadline), and any change of a clock makes the game due at once. Its cost
//!   follows the work due, not the games open.
//!
//! Every timeout and grace notice is a transcript entry. The same code runs on a
//! move's arrival ([`Steward::settle_flags_in`]), so a move that arrives after the
//! timeout is refused whether or not a sweep has run since.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use serde_json::json;

use super::super::{Loaded, Steward, StewardError, load};
use super::{GameClock, mail_time, mails};
use crate::clock::human;
use crate::ids::GameId;
use crate::rules::{EndReason, Outcome, Seat, SeatSet};
use crate::store::{Tx, time_text};

/// What one sweep did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SweepReport {
    /// The instant the sweep ran as of (UTC).
    pub now: String,
    /// Games with a clock that were examined: those due (issue 37: their
    /// planned time came, or a clock changed since the last sweep of them).
    pub games: usize,
    /// Timeouts applied.
    pub timeouts: Vec<TimeoutReport>,
    /// Grace notices sent.
    pub grace: Vec<GraceReport>,
    /// Reminder points recorded (seat, turn and point).
    pub reminders: usize,
    /// Reminder mails queued (one per player: a digest when several games are due).
    pub digests: usize,
    /// Daily digests queued (issue 32: players who chose one mail a day).
    pub daily_digests: usize,
    /// Games the sweep could not handle (logged; tried again next time).
    pub errors: Vec<String>,
    /// Work a crash left half done and this sweep finished: invited games
    /// created (`invited I… → game G…`) and tournaments resumed (`tournament T…`).
    pub resumed: Vec<String>,
}

/// One timeout.
#[derive(Clone, Debug, Serialize)]
pub struct TimeoutReport {
    /// The game.
    pub game: String,
    /// The seats that ran out of time (together).
    pub seats: Vec<String>,
    /// When their time (and grace) ran out.
    pub at: String,
    /// The result if the timeout ended the game (`1-0`, `1/2-1/2`, …).
    pub result: Option<String>,
}

/// One grace notice.
#[derive(Clone, Debug, Serialize)]
pub struct GraceReport {
    /// The game.
    pub game: String,
    /// The late seat.
    pub seat: String,
    /// Its deadline.
    pub deadline: String,
    /// When the timeout applies.
    pub final_deadline: String,
}

/// What the sweep did to one game.
#[derive(Clone, Debug, Default)]
pub struct GameSweep {
    /// Timeouts applied.
    pub timeouts: Vec<TimeoutReport>,
    /// Grace notices sent.
    pub grace: Vec<GraceReport>,
}

impl GameSweep {
    fn changed(&self) -> bool {
        !self.timeouts.is_empty() || !self.grace.is_empty()
    }
}

/// A reminder due to one seat.
pub(super) struct Due {
    pub(super) game: GameId,
    pub(super) variant: String,
    pub(super) seat_name: String,
    pub(super) player: String,
    pub(super) email: String,
    pub(super) turn: u32,
    /// The move number as the game's record counts it (issue 32).
    pub(super) move_number: String,
    pub(super) stage: u32,
    pub(super) hours: u32,
    pub(super) deadline: String,
    pub(super) left: String,
}

/// When the sweep must next look at a game, as of `now` (just after a sweep
/// of it): the earliest reminder point, deadline or final deadline still
/// ahead among the seats whose clocks run; `now` when something is due
/// already (a seat out of time that no timeout took yet, as after a timeout
/// that moved the play on; a grace notice not sent); `None` when no clock runs.
/// Any later change of a clock makes the game due at once, so a plan may come
/// early (a leave declared since) but never late.
fn next_sweep(
    tx: &Tx<'_>,
    g: &Loaded,
    gc: &GameClock,
    points: &[u32],
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, StewardError> {
    let mut next: Option<DateTime<Utc>> = None;
    let mut at = |t: DateTime<Utc>| next = Some(next.map_or(t, |n| n.min(t)));
    for s in &g.seats {
        let c = &gc.seats[s.seat.index()];
        let st = gc.status(s.seat, now);
        let (Some(deadline), Some(flag)) = (st.deadline, st.flag_at) else { continue };
        if c.flagged_at.is_some() {
            continue;
        }
        if st.is_out(now) {
            at(now);
        } else if now < deadline {
            points.iter().map(|h| deadline - TimeDelta::hours(i64::from(*h))).filter(|p| *p > now).for_each(&mut at);
            at(deadline);
        } else if gc.spec.grace_hours > 0 && !tx.grace_sent(&g.row.id, s.seat, c.turn, c.stage)? {
            at(now);
        }
        at(flag);
    }
    Ok(next)
}

fn stage_name(stage: u32) -> &'static str {
    if stage == 1 { "reveal" } else { "move" }
}

impl Steward {
    /// Runs one sweep as of `now`: timeouts and grace notices game by game, then
    /// the reminders that are due.
    ///
    /// # Errors
    /// Store failures outside a single game (one game's failure is reported in
    /// [`SweepReport::errors`] and the sweep goes on).
    pub async fn sweep(&self, now: DateTime<Utc>) -> Result<SweepReport, StewardError> {
        // First what a crash may have left half done (the start-up sweep finds
        // it): invited games waiting to be created, tournaments half started.
        let mut resumed = Vec::new();
        let mut errors = Vec::new();
        for (invited, made) in self.create_invited_games(now).await {
            match made {
                Ok(game) => resumed.push(format!("invited {invited} → game {game}")),
                Err(e) => errors.push(format!("invited {invited}: {e}")),
            }
        }
        match self.resume_tournaments(now).await {
            Ok(ids) => resumed.extend(ids.iter().map(|t| format!("tournament {t}"))),
            Err(e) => errors.push(format!("tournaments: {e}")),
        }
        // Only the games due: their planned time came, or a clock changed
        // since (issue 37). Other reminder points than those the plans were
        // reckoned with make every running game due once.
        let points = self.clock_settings.reminders_hours.clone();
        let ids = self
            .store
            .transaction(move |tx| {
                if tx.planned_reminders()?.as_deref() != Some(points.as_slice()) {
                    tx.replan_sweeps(&points)?;
                }
                Ok::<_, StewardError>(tx.clock_games_due(now)?)
            })
            .await?;
        let mut report =
            SweepReport { now: time_text(now), games: ids.len(), resumed, errors, ..SweepReport::default() };
        let mut settled = Vec::with_capacity(ids.len());
        for id in ids {
            let this = self.clone();
            let key = id.clone();
            match self
                .store
                .transaction(move |tx| {
                    let g = load(tx, key.as_str())?;
                    let r = this.settle_game(tx, &g, now)?;
                    // A game over needs no more sweeps, nor a second read below.
                    let over = g.row.outcome.is_some() || r.timeouts.iter().any(|t| t.result.is_some());
                    if over {
                        tx.plan_sweep(&g.row.id, None)?;
                    }
                    Ok::<_, StewardError>((r, over))
                })
                .await
            {
                Ok((r, over)) => {
                    report.timeouts.extend(r.timeouts);
                    report.grace.extend(r.grace);
                    if !over {
                        settled.push(id);
                    }
                }
                Err(e) => {
                    // Not planned anew: the game stays due, for the next sweep.
                    tracing::error!(game = %id, error = %e, "the sweep could not handle a game");
                    report.errors.push(format!("{id}: {e}"));
                }
            }
        }
        // Tournaments past their end date: what is unfinished is adjudicated (issue 31).
        if let Err(e) = self.sweep_tournament_ends(now).await {
            tracing::error!(error = %e, "the sweep could not adjudicate at a tournament's end date");
            report.errors.push(format!("tournaments: {e}"));
        }
        let this = self.clone();
        let (points, digests) = self.store.transaction(move |tx| this.send_reminders(tx, &settled, now)).await?;
        report.reminders = points;
        report.digests = digests;
        let this = self.clone();
        report.daily_digests = self.store.transaction(move |tx| this.send_digests(tx, now)).await?;
        self.outbox.notify_one();
        tracing::info!(
            now = %report.now,
            games = report.games,
            timeouts = report.timeouts.len(),
            grace = report.grace.len(),
            reminders = report.reminders,
            "sweep done"
        );
        Ok(report)
    }

    /// Settles the timeouts and grace notices of `game` that fell by `now`, in
    /// the caller's transaction (the prologue of every move and action, so a
    /// timeout that fell first stands); returns whether anything changed.
    ///
    /// # Errors
    /// Store failures.
    pub(in crate::steward) fn settle_flags_in(
        &self,
        tx: &Tx<'_>,
        game: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StewardError> {
        let Ok(id) = game.trim().to_ascii_uppercase().parse::<GameId>() else { return Ok(false) };
        // A clock row belongs to a game (its key references the game): none for a game that is not there.
        if tx.game_clock(&id)?.is_none() {
            return Ok(false);
        }
        let g = load(tx, id.as_str())?;
        Ok(self.settle_game(tx, &g, now)?.changed())
    }

    /// Timeouts and grace notices of one game, in the caller's transaction.
    pub(super) fn settle_game(&self, tx: &Tx<'_>, g: &Loaded, now: DateTime<Utc>) -> Result<GameSweep, StewardError> {
        let mut out = GameSweep::default();
        if g.row.outcome.is_some() {
            return Ok(out);
        }
        let Some(mut gc) = self.load_clock(tx, g)? else { return Ok(out) };
        loop {
            let out_seats: Vec<(Seat, DateTime<Utc>, DateTime<Utc>)> = g
                .seats
                .iter()
                .filter_map(|s| {
                    let st = gc.status(s.seat, now);
                    st.is_out(now).then(|| (s.seat, st.deadline.unwrap_or(now), st.flag_at.unwrap_or(now)))
                })
                .collect();
            let Some(earliest) = out_seats.iter().map(|(_, _, f)| *f).min() else { break };
            let first: Vec<(Seat, DateTime<Utc>, DateTime<Utc>)> =
                out_seats.into_iter().filter(|(_, _, f)| *f == earliest).collect();
            let late = first.iter().fold(SeatSet::EMPTY, |set, (s, _, _)| set.with(*s));
            let mut outcome = g.rules.timeout(&g.row.state, late).map_err(super::super::internal)?;
            // Where play goes on without a late seat (a free-for-all of more seats), the
            // seat leaves the board as a resignation would take it off.
            let mut after = g.row.state.clone();
            if outcome.is_none() {
                for (seat, _, _) in &first {
                    let (next, _, ended) = g.rules.retire(&after, *seat).map_err(super::super::internal)?;
                    after = next;
                    if let Some(o) = ended {
                        outcome = Some(Outcome { reason: EndReason::Time, ..o });
                        break;
                    }
                }
            }
            let goes_on = after != g.row.state;
            let stage = gc.seats[first[0].0.index()].stage;
            for (seat, _, flag) in &first {
                let mut c = gc.seats[seat.index()].stopped(&gc.spec, &gc.stops, *flag, false);
                c.flagged_at = Some(*flag);
                tx.save_seat_clock(&g.row.id, *seat, &c)?;
                gc.seats[seat.index()] = c;
            }
            let seats_json: Vec<_> = first
                .iter()
                .map(|(s, d, f)| json!({"seat": g.seat_name(*s), "deadline": time_text(*d), "final_deadline": time_text(*f)}))
                .collect();
            let mut body = json!({
                "turn": g.row.turn, "stage": stage_name(stage), "seats": seats_json, "ends_game": outcome.is_some(),
            });
            if goes_on {
                body["state_before"] = json!(g.row.state);
                body["state"] = json!(after);
                tx.advance_game(&g.row.id, &after, g.row.turn, now)?;
            }
            tx.append_event(&g.row.id, now, "timeout", &body)?;
            let names: Vec<String> =
                first.iter().map(|(s, _, _)| format!("{} ({})", g.seat_name(*s), g.seats[s.index()].name)).collect();
            let (_, d0, f0) = first[0];
            let due = if f0 > d0 {
                format!("was due {} and the grace ended {}", mail_time(d0, None), mail_time(f0, None))
            } else {
                format!("was due {}", mail_time(d0, None))
            };
            let what = if stage == 1 { "reveal" } else { "move" };
            let text = format!("{} ran out of time: the {what} for turn {} {due}.", names.join(" and "), g.row.turn,);
            let result = match outcome {
                Some(o) => {
                    self.end(tx, g, o, now)?;
                    Some(super::super::self_score(g, o).unwrap_or_else(|| g.outcome_text(o)))
                }
                None => None,
            };
            let head = self.sign_head(tx, &g.row.id)?;
            let suffix = format!(
                "-{}-{}",
                stage,
                first.iter().map(|(s, _, _)| s.index().to_string()).collect::<Vec<_>>().join(".")
            );
            for mail in mails::timeout(self, g, &text, outcome, &suffix, &head, now)? {
                tx.queue_mail(&mail, now)?;
            }
            tracing::info!(game = %g.row.id, seats = %names.join(", "), result = ?result, "timeout");
            out.timeouts.push(TimeoutReport {
                game: g.row.id.to_string(),
                seats: first.iter().map(|(s, _, _)| g.seat_name(*s)).collect(),
                at: time_text(earliest),
                result: result.clone(),
            });
            if outcome.is_some() {
                return Ok(out);
            }
            if goes_on {
                // The seats to move changed: their clocks start. The loaded game is
                // stale now; the next sweep looks again.
                self.clock_turn_resolved(tx, g, &after, false, now)?;
                return Ok(out);
            }
        }
        if gc.spec.grace_hours > 0 {
            self.grace_notices(tx, g, &gc, now, &mut out)?;
        }
        Ok(out)
    }

    fn grace_notices(
        &self,
        tx: &Tx<'_>,
        g: &Loaded,
        gc: &GameClock,
        now: DateTime<Utc>,
        out: &mut GameSweep,
    ) -> Result<(), StewardError> {
        for s in &g.seats {
            let st = gc.status(s.seat, now);
            let c = &gc.seats[s.seat.index()];
            let (Some(deadline), Some(flag)) = (st.deadline, st.flag_at) else { continue };
            if !st.is_late(now) || st.is_out(now) || tx.grace_sent(&g.row.id, s.seat, c.turn, c.stage)? {
                continue;
            }
            tx.insert_grace(&g.row.id, s.seat, c.turn, c.stage, now)?;
            let name = g.seat_name(s.seat);
            tx.append_event(
                &g.row.id,
                now,
                "grace",
                &json!({
                    "turn": c.turn, "stage": stage_name(c.stage), "seat": name,
                    "deadline": time_text(deadline), "final_deadline": time_text(flag),
                }),
            )?;
            let head = self.sign_head(tx, &g.row.id)?;
            let what = stage_name(c.stage);
            let zone = gc.zones[s.seat.index()];
            // The move number the record gives, beside the API's turn (issue 32).
            let owing: Vec<_> = g.rules.seats_to_move(&g.row.state).map_err(super::super::internal)?.iter().collect();
            let number = super::super::numbers::owed(super::super::numbers::record_end(tx, g)?, &owing, s.seat);
            // `move 12... (API turn 23)`, or `reveal for move 12...`.
            let which = match (&number, c.stage) {
                (Some(label), 1) => format!("reveal for move {label} (API turn {})", c.turn),
                (Some(label), _) => format!("move {label} (API turn {})", c.turn),
                (None, _) => format!("{what} for turn {}", c.turn),
            };
            let to_late = format!(
                "Last reminder: your {which} was due {}. You have until {} (grace); after that you lose on time.",
                mail_time(deadline, zone),
                mail_time(flag, zone)
            );
            let to_others = format!(
                "{name} ({}) is late: the {which} was due {}. Unless it arrives by {}, {name} loses on time.",
                s.name,
                mail_time(deadline, None),
                mail_time(flag, None)
            );
            let subject = match &number {
                Some(label) => format!("{name} is late (move {label})"),
                None => format!("{name} is late (turn {})", c.turn),
            };
            for mail in mails::grace(self, g, s.seat, c.stage, &subject, &to_late, &to_others, &head, now)? {
                tx.queue_mail(&mail, now)?;
            }
            out.grace.push(GraceReport {
                game: g.row.id.to_string(),
                seat: name,
                deadline: time_text(deadline),
                final_deadline: time_text(flag),
            });
        }
        Ok(())
    }

    /// Records the reminder points of `games` that are due and queues one mail
    /// per player; then plans when the sweep next looks at each of them.
    /// Returns (points recorded, mails queued).
    fn send_reminders(
        &self,
        tx: &Tx<'_>,
        games: &[GameId],
        now: DateTime<Utc>,
    ) -> Result<(usize, usize), StewardError> {
        let points = self.clock_settings.reminders_hours.clone();
        let mut due: Vec<Due> = Vec::new();
        let mut recorded = 0;
        for id in games {
            let g = load(tx, id.as_str())?;
            let clock = if g.row.outcome.is_none() { self.load_clock(tx, &g)? } else { None };
            let Some(gc) = clock else {
                tx.plan_sweep(id, None)?;
                continue;
            };
            for s in &g.seats {
                let st = gc.status(s.seat, now);
                let c = &gc.seats[s.seat.index()];
                let (Some(deadline), Some(since)) = (st.deadline, c.announced_at) else { continue };
                if now > deadline {
                    continue;
                }
                let mut fired = Vec::new();
                for &h in &points {
                    let point = deadline - TimeDelta::hours(i64::from(h));
                    if now >= point && point > since && !tx.reminder_sent(id, s.seat, c.turn, c.stage, h)? {
                        tx.insert_reminder(id, s.seat, c.turn, c.stage, h, now)?;
                        fired.push(h);
                    }
                }
                recorded += fired.len();
                // Several points due at once (say, after the daemon was down) make one line.
                if let Some(&hours) = fired.iter().min() {
                    let owing: Vec<_> =
                        g.rules.seats_to_move(&g.row.state).map_err(super::super::internal)?.iter().collect();
                    let end = super::super::numbers::record_end(tx, &g)?;
                    due.push(Due {
                        game: id.clone(),
                        variant: g.row.variant.name().to_owned(),
                        seat_name: g.seat_name(s.seat),
                        player: s.name.clone(),
                        email: s.email.clone(),
                        turn: c.turn,
                        move_number: super::super::numbers::owed(end, &owing, s.seat).unwrap_or_default(),
                        stage: c.stage,
                        hours,
                        deadline: mail_time(deadline, gc.zones[s.seat.index()]),
                        left: human(st.left),
                    });
                }
            }
            tx.plan_sweep(id, next_sweep(tx, &g, &gc, &points, now)?)?;
        }
        let mut by_player: BTreeMap<String, Vec<Due>> = BTreeMap::new();
        for d in due {
            by_player.entry(d.email.to_lowercase()).or_default().push(d);
        }
        let mails = by_player.len();
        for (_, items) in by_player {
            let mail = mails::reminder_digest(self, &items, now)?;
            tx.queue_mail(&mail, now)?;
        }
        Ok((recorded, mails))
    }
}
