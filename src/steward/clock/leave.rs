//! Leave, reached with a seat's token, and the calendar feed, reached with a
//! calendar key of its own (read-only; issue 29).
//!
//! Leave belongs to the player (the seat's mail address), not the seat: it stops
//! the clocks of every seat in all of that player's games for its days, is
//! recorded in each running game's transcript, and is told to the player and to
//! every opponent — one mail per person, whatever the number of games.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Datelike, NaiveDate, TimeDelta, Utc};
use serde::Serialize;
use serde_json::json;

use super::super::{Refusal, Steward, StewardError, load};
use super::mail_time;
use super::mails::{self, LeaveGame};
use crate::clock::ics;
use crate::clock::leave::{Balance, LeaveError, LeavePolicy, LeaveRequest, balance, start_of};
use crate::ids::{GameId, SeatToken};
use crate::rules::Seat;
use crate::store::{LeaveRow, Tx, time_text};

/// At most this many leaves a player may declare in 24 hours: each one is
/// written into every running game's transcript and mailed to every opponent.
pub const LEAVES_PER_DAY: u32 = 5;

/// Midnight UTC of New Year's Day of `year`: leaves ending after it are those
/// with days in `year` or later.
pub(super) fn new_year(year: i32) -> DateTime<Utc> {
    start_of(NaiveDate::from_ymd_opt(year, 1, 1).unwrap_or(NaiveDate::MIN))
}

/// A player's leave account, as the API shows it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({
    "player": "alice@example.org", "allowance_days": 30,
    "balance": [{"year": 2026, "used": 8, "left": 22}, {"year": 2027, "used": 2, "left": 28}],
    "leaves": [{"from": "2026-12-24", "to": "2027-01-02", "days": 10, "starts_at": "2026-12-24T00:00:00.000Z", "ends_at": "2027-01-03T00:00:00.000Z", "declared_at": "2026-12-01T09:30:00.000Z"}],
}))]
pub struct LeaveAnswer {
    /// The player (mail address).
    pub player: String,
    /// The leave just granted, if this answers a declaration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub granted: Option<LeaveEntry>,
    /// The running games whose clocks the leave stops (on at least one of its days).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<Vec<String>>,
    /// Every running game of the player and what the leave does there: the
    /// days that stop its clock under its tournament's leave rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_game: Option<Vec<LeaveInGame>>,
    /// Days allowed per calendar year.
    pub allowance_days: u32,
    /// This year's and next year's account.
    pub balance: Vec<Balance>,
    /// Every leave with days in this year or later, oldest first.
    pub leaves: Vec<LeaveEntry>,
}

/// One leave of a player's account.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"from": "2026-12-24", "to": "2027-01-02", "days": 10, "starts_at": "2026-12-24T00:00:00.000Z", "ends_at": "2027-01-03T00:00:00.000Z", "declared_at": "2026-12-01T09:30:00.000Z"}))]
pub struct LeaveEntry {
    /// The first day off (`YYYY-MM-DD`, UTC).
    pub from: String,
    /// The last day off, included.
    pub to: String,
    /// The days it takes of the allowance (days already on leave not counted twice).
    pub days: usize,
    /// When the clocks stop (RFC 3339, UTC).
    pub starts_at: String,
    /// When they run again.
    pub ends_at: String,
    /// When it was declared.
    pub declared_at: String,
}

/// What a leave just granted does in one running game of the player.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct LeaveInGame {
    /// The game.
    pub game: String,
    /// Its tournament, if it is in one.
    pub tournament: Option<String>,
    /// How much leave stops its clocks.
    pub leave_policy: LeavePolicy,
    /// The days of this leave that stop its clock.
    pub days_honoured: usize,
}

fn leave_entry(l: &LeaveRow) -> LeaveEntry {
    LeaveEntry {
        from: l.from.to_string(),
        to: l.to.to_string(),
        days: l.days.len(),
        starts_at: time_text(l.starts_at),
        ends_at: time_text(l.ends_at),
        declared_at: time_text(l.declared_at),
    }
}

fn seat_of_token(tx: &Tx<'_>, token: &str) -> Result<(GameId, Seat, String), StewardError> {
    let token = token.trim();
    if token.is_empty() {
        return Err(Refusal::BadToken.into());
    }
    Ok(tx.seat_by_token(&SeatToken::from_presented(token).hash())?.ok_or(Refusal::BadToken)?)
}

/// The player of a token's seat, for leave: a running game's token only. A
/// finished game's token reads its own game and nothing else (issue 29): it
/// no longer stands for the player in their other games.
fn player_of_running_token(tx: &Tx<'_>, token: &str) -> Result<String, StewardError> {
    let (id, _, email) = seat_of_token(tx, token)?;
    if tx.game(&id)?.is_some_and(|g| g.outcome.is_some()) {
        return Err(Refusal::LeaveRefused(format!(
            "this seat token is of game {id}, which is over: it reads that game only; declare leave with the token of a running game, or by a reply to its latest board mail"
        ))
        .into());
    }
    Ok(email)
}

impl Steward {
    fn leave_account(&self, tx: &Tx<'_>, player: &str, now: DateTime<Utc>) -> Result<LeaveAnswer, StewardError> {
        let year = now.year();
        let leaves = tx.leaves_ending_after(&[player.to_lowercase()], new_year(year))?;
        let taken: BTreeSet<_> = leaves.iter().flat_map(|l| l.days.iter().copied()).collect();
        let per_year = self.clock_settings.leave_days_per_year;
        Ok(LeaveAnswer {
            player: player.to_owned(),
            granted: None,
            games: None,
            per_game: None,
            allowance_days: per_year,
            balance: vec![balance(&taken, per_year, year), balance(&taken, per_year, year + 1)],
            leaves: leaves.iter().map(leave_entry).collect(),
        })
    }

    /// The leave account of the token's player.
    ///
    /// # Errors
    /// A token that is no seat's, or a finished game's.
    pub async fn leave_status(&self, token: String) -> Result<LeaveAnswer, StewardError> {
        let this = self.clone();
        let now = self.now();
        self.store
            .transaction(move |tx| {
                let email = player_of_running_token(tx, &token)?;
                this.leave_account(tx, &email, now)
            })
            .await
    }

    /// Declares leave for the player of the token's seat (HTTP).
    ///
    /// # Errors
    /// A bad token, or a finished game's; dates that do not read; a leave in the past, already taken, or
    /// beyond the yearly allowance (the refusal names the balance).
    pub async fn declare_leave_by_token(
        &self,
        token: String,
        from: String,
        to: String,
    ) -> Result<LeaveAnswer, StewardError> {
        let request = LeaveRequest::new(&from, &to).map_err(|e| Refusal::BadRequest(format!("leave: {e}")))?;
        let player = {
            let token = token.clone();
            self.store.transaction(move |tx| player_of_running_token(tx, &token)).await?
        };
        self.declare_leave(player, request).await
    }

    /// Declares leave for `player` (a mail address): the mail door calls this
    /// after reading `leave 2026-12-24 to 2027-01-02` from a sender it has
    /// authenticated ([`LeaveRequest::from_command`]).
    ///
    /// # Errors
    /// As [`Steward::declare_leave_by_token`]; a player with no seat anywhere.
    pub async fn declare_leave(&self, player: String, request: LeaveRequest) -> Result<LeaveAnswer, StewardError> {
        let this = self.clone();
        let now = self.now();
        let answer = self.store.transaction(move |tx| this.declare_leave_in(tx, &player, request, None, now)).await?;
        self.outbox.notify_one();
        Ok(answer)
    }

    /// Declares leave from a signed envelope with `action: leave FROM TO` (HTTP
    /// body or mail): for the player of the seat it names, which must have signed
    /// it with that seat's key for the game's current turn. A player with a seat
    /// in a running game that requires signatures must declare leave this way,
    /// naming such a game (see [`super::super::actions`]).
    ///
    /// # Errors
    /// As [`Steward::declare_leave_by_token`]; an envelope that is not a signed
    /// leave of that seat.
    pub async fn declare_leave_signed(&self, envelope: crate::protocol::Envelope) -> Result<LeaveAnswer, StewardError> {
        let this = self.clone();
        let now = self.now();
        let answer = self.store.transaction(move |tx| this.declare_leave_signed_in(tx, envelope, now)).await?;
        self.outbox.notify_one();
        Ok(answer)
    }

    /// [`Steward::declare_leave_signed`] in the caller's transaction.
    pub(in crate::steward) fn declare_leave_signed_in(
        &self,
        tx: &Tx<'_>,
        envelope: crate::protocol::Envelope,
        now: DateTime<Utc>,
    ) -> Result<LeaveAnswer, StewardError> {
        let crate::protocol::Body::Action(crate::protocol::Action::Leave { from, to }) = envelope.body else {
            return Err(Refusal::BadRequest(format!(
                "this envelope holds a {}, not `action: leave FROM TO`",
                envelope.body.kind()
            ))
            .into());
        };
        let g = load(tx, &envelope.game)?;
        let seat = super::super::actions::signed_seat(&g, &envelope)?;
        let player = g.seats[seat.index()].email.clone();
        let signed = (g.row.id.clone(), envelope.record_text());
        self.declare_leave_in(tx, &player, LeaveRequest { from, to }, Some(signed), now)
    }

    /// Refuses leave that is not signed as the player's games require: with a
    /// seat in a running game that requires signatures, leave must come signed
    /// by such a seat (`signed` names the game and holds the envelope).
    fn check_leave_signature(
        &self,
        tx: &Tx<'_>,
        player: &str,
        request: LeaveRequest,
        signed: Option<&GameId>,
    ) -> Result<(), StewardError> {
        let mut required: Option<Refusal> = None;
        for id in tx.running_games_of(player)? {
            let g = load(tx, id.as_str())?;
            if g.row.auth != crate::protocol::policy::Auth::Signature {
                continue;
            }
            if signed == Some(&id) {
                return Ok(());
            }
            let Some(s) = g.seats.iter().find(|s| s.email.eq_ignore_ascii_case(player)) else { continue };
            if required.is_none() {
                let action = crate::protocol::Action::Leave { from: request.from, to: request.to };
                required = Some(Refusal::SignedActionRequired {
                    why: format!(
                        "you hold seat {} in game {id}, which requires signatures (auth = signature), so leave must be signed with that seat's registered key{}",
                        g.seat_name(s.seat),
                        if signed.is_some() { " (the signed envelope names a game that does not)" } else { "" }
                    ),
                    command: super::super::actions::sign_command(&g, s.seat, &action),
                    path: action.http_path(id.as_str()),
                });
            }
        }
        required.map_or(Ok(()), |r| Err(r.into()))
    }

    pub(in crate::steward) fn declare_leave_in(
        &self,
        tx: &Tx<'_>,
        player: &str,
        request: LeaveRequest,
        signed: Option<(GameId, String)>,
        now: DateTime<Utc>,
    ) -> Result<LeaveAnswer, StewardError> {
        let key = player.trim().to_lowercase();
        self.check_leave_signature(tx, &key, request, signed.as_ref().map(|(id, _)| id))?;
        let per_year = self.clock_settings.leave_days_per_year;
        super::super::spend_daily(tx, &format!("leave|{key}"), LEAVES_PER_DAY, now, || {
            (
                format!(
                    "{player} declared {LEAVES_PER_DAY} leaves in the last 24 hours, the most a day allows (each one is mailed to every opponent)"
                ),
                "declare further leave tomorrow, or one leave covering all the days you need".into(),
            )
        })?;
        // The days already taken in the years this leave falls in: the allowance
        // is counted per year, and the index reads no other year's leaves.
        let earlier = tx.leaves_ending_after(std::slice::from_ref(&key), new_year(request.from.year()))?;
        let taken: BTreeSet<_> = earlier.iter().flat_map(|l| l.days.iter().copied()).collect();
        let days = request.grant(&taken, per_year, now.date_naive()).map_err(|e| match e {
            LeaveError::TooFar { .. } | LeaveError::BadDate(_) => Refusal::BadRequest(format!("leave {request}: {e}")),
            e => Refusal::LeaveRefused(format!("leave {request} for {player} is refused: {e}")),
        })?;
        let (starts_at, ends_at) = request.interval(now);
        let mut row = LeaveRow {
            id: 0,
            player: key.clone(),
            from: request.from,
            to: request.to,
            starts_at,
            ends_at,
            days,
            declared_at: now,
        };
        row.id = tx.insert_leave(&row)?;

        // Every running game of the player: a transcript entry, and who to tell.
        // Opponents by address (lower case): name, address as given, their games.
        let mut told: BTreeMap<String, (String, String, Vec<LeaveGame>)> = BTreeMap::new();
        let mut own_name = player.to_owned();
        let mut own_games = Vec::new();
        let mut ids = Vec::new();
        // The days each policy honours of this leave, given the player's
        // earlier leave of its years (declaration order: see LeavePolicy).
        let mut account_rows = earlier.clone();
        account_rows.push(row.clone());
        let mut per_policy: BTreeMap<String, Vec<NaiveDate>> = BTreeMap::new();
        let mut honoured_of = |policy: LeavePolicy| {
            let key = serde_json::to_string(&policy).unwrap_or_default();
            per_policy
                .entry(key)
                .or_insert_with(|| super::honoured(policy, &account_rows).0.remove(&row.id).unwrap_or_default())
                .clone()
        };
        let mut per_game = Vec::new();
        for id in tx.running_games_of(&key)? {
            let g = load(tx, id.as_str())?;
            let mine: Vec<_> = g.seats.iter().filter(|s| s.email.to_lowercase() == key).collect();
            if let Some(s) = mine.first() {
                own_name = s.name.clone();
            }
            let (policy, tournament) = super::leave_policy(tx, &id)?;
            let honoured = honoured_of(policy);
            let mut body = json!({
                "seats": mine.iter().map(|s| g.seat_name(s.seat)).collect::<Vec<_>>(),
                "from": request.from.to_string(), "to": request.to.to_string(),
                "starts_at": time_text(starts_at), "ends_at": time_text(ends_at),
                "leave_policy": policy,
                "days_honoured": honoured.iter().map(ToString::to_string).collect::<Vec<_>>(),
            });
            // What this game does with the leave, in words, when it is not the whole of it.
            let whose = tournament.as_ref().map_or_else(|| "this game".to_owned(), |t| format!("tournament {t}"));
            let note = match policy {
                LeavePolicy::Allowed => None,
                LeavePolicy::None => Some(format!("Its clock does NOT stop: {whose} allows no leave.")),
                LeavePolicy::CappedDays(n) if honoured.len() as u32 == request.len() => {
                    Some(format!("Its clock stops ({whose} caps leave at {n} day(s) a year)."))
                }
                LeavePolicy::CappedDays(n) => Some(format!(
                    "Its clock stops on {} of these days only ({}): {whose} caps leave at {n} day(s) a year.",
                    honoured.len(),
                    if honoured.is_empty() {
                        "none".to_owned()
                    } else {
                        honoured.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                    }
                )),
            };
            per_game.push(LeaveInGame {
                game: id.to_string(),
                tournament: tournament.as_ref().map(ToString::to_string),
                leave_policy: policy,
                days_honoured: honoured.len(),
            });
            if let Some((_, text)) = signed.as_ref().filter(|(signed_in, _)| *signed_in == id) {
                body["envelope"] = json!(text); // signed: the game it names proves who asked
            }
            tx.append_event(&id, now, "leave", &body)?;
            self.sign_head(tx, &id)?;
            let players =
                g.seats.iter().map(|s| format!("{} {}", g.seat_name(s.seat), s.name)).collect::<Vec<_>>().join(", ");
            let entry = LeaveGame { game: id.to_string(), variant: g.row.variant.name().to_owned(), players, note };
            if honoured.is_empty() {
                // Its clocks do not stop: the opponents are not told they do.
                own_games.push(entry);
                continue;
            }
            for s in g.seats.iter().filter(|s| s.email.to_lowercase() != key) {
                let slot =
                    told.entry(s.email.to_lowercase()).or_insert_with(|| (s.name.clone(), s.email.clone(), Vec::new()));
                if !slot.2.iter().any(|e| e.game == entry.game) {
                    slot.2.push(entry.clone());
                }
            }
            own_games.push(entry);
            ids.push(id.to_string());
        }
        let span = format!(
            "from {} to {} (both days included; the clocks stand still from {} to {})",
            request.from,
            request.to,
            mail_time(starts_at, None),
            mail_time(ends_at, None)
        );
        let mut account = self.leave_account(tx, &key, now)?;
        let own_text = if own_games.is_empty() {
            format!(
                "Your leave {span} is recorded. You have no running game now; it will stop the clocks of games that run then (as their tournament's leave rule allows)."
            )
        } else if own_games.iter().all(|g| g.note.is_none()) {
            format!("Your leave {span} is recorded. The clocks of these games stop for it:")
        } else {
            format!(
                "Your leave {span} is recorded. The clocks of these games stop for it, except where a tournament's leave rule says otherwise (as noted):"
            )
        };
        let mail = mails::leave(
            self,
            row.id,
            &own_name,
            player.trim(),
            format!("Leave recorded: {} to {}", request.from, request.to),
            &own_text,
            &own_games,
            &account.balance,
            now,
        )?;
        tx.queue_mail(&mail, now)?;
        for (name, address, games) in told.values() {
            let text = if games.iter().all(|g| g.note.is_none()) {
                format!(
                    "{own_name} is on leave {span}. The clocks of your games with {own_name} stand still for those days:"
                )
            } else {
                format!(
                    "{own_name} is on leave {span}. The clocks of these games with {own_name} stand still for those days, except where a tournament's leave rule says otherwise (as noted):"
                )
            };
            let mail = mails::leave(
                self,
                row.id,
                name,
                address,
                format!("{own_name} is on leave {} to {}", request.from, request.to),
                &text,
                games,
                &[],
                now,
            )?;
            tx.queue_mail(&mail, now)?;
        }
        tracing::info!(player = %key, from = %request.from, to = %request.to, games = ids.len(), "leave recorded");
        account.granted = Some(leave_entry(&row));
        account.games = Some(ids);
        account.per_game = Some(per_game);
        Ok(account)
    }

    /// The address of the calendar feed of `player`'s deadlines in `games`
    /// (see [`crate::protocol::capability::calendar_key`]), as handed out in
    /// board mails, reminders, the creation answer and the pages.
    pub fn calendar_url(&self, player: &str, games: &[String]) -> String {
        let key = crate::protocol::capability::calendar_key(&self.keys, player, games);
        format!("{}/api/calendar/{key}/deadlines.ics", self.public_url)
    }

    /// The upcoming deadlines of every seat registered at `player` (a mail
    /// address, any case) in those of `games` that run, as iCalendar text: a
    /// calendar key's feed. A game where the address holds no seat (any more)
    /// adds nothing.
    ///
    /// # Errors
    /// Store failures.
    pub async fn player_deadlines_ics(&self, player: String, games: Vec<String>) -> Result<String, StewardError> {
        let this = self.clone();
        let now = self.now();
        self.store
            .transaction(move |tx| {
                let mut events = Vec::new();
                for id in tx.running_games_of(&player)? {
                    if !games.iter().any(|g| g.eq_ignore_ascii_case(id.as_str())) {
                        continue;
                    }
                    let g = load(tx, id.as_str())?;
                    for s in g.seats.iter().filter(|s| s.email.eq_ignore_ascii_case(&player)) {
                        events.extend(this.deadline_events(tx, &g, s.seat, now)?);
                    }
                }
                let name = match games.as_slice() {
                    [one] => format!("Fairsteward {}", one.to_ascii_uppercase()),
                    _ => "Fairsteward: your games".to_owned(),
                };
                Ok(ics::calendar(&name, now, &events))
            })
            .await
    }

    /// The calendar events of `seat`'s deadline in `g` (and of the end of its
    /// grace), if its clock runs.
    fn deadline_events(
        &self,
        tx: &Tx<'_>,
        g: &super::super::Loaded,
        seat: Seat,
        now: DateTime<Utc>,
    ) -> Result<Vec<ics::Event>, StewardError> {
        let id = &g.row.id;
        let seat_name = g.seat_name(seat);
        let domain = self.from.email.domain().to_owned();
        let url = format!("{}/games/{id}", self.public_url);
        let mut events = Vec::new();
        if g.row.outcome.is_none()
            && let Some(gc) = self.load_clock(tx, g)?
        {
            let st = gc.status(seat, now);
            let c = &gc.seats[seat.index()];
            if let (Some(deadline), Some(flag)) = (st.deadline, st.flag_at) {
                let what = if c.stage == 1 { "reveal" } else { "move" };
                let alarms =
                    self.clock_settings.reminders_hours.iter().map(|h| TimeDelta::hours(i64::from(*h))).collect();
                let uid = |kind: &str| format!("{id}-{seat_name}-{}-{}-{kind}@{domain}", c.turn, c.stage);
                events.push(ics::Event {
                    uid: uid("deadline"),
                    at: deadline,
                    summary: format!("Fairsteward {id}: your {what} is due (turn {}, {seat_name})", c.turn),
                    description: format!(
                        "Game {id} ({}), turn {}: you play {seat_name}. Your {what} is due {}. Time control: {}.",
                        g.row.variant,
                        c.turn,
                        mail_time(deadline, gc.zones[seat.index()]),
                        gc.spec
                    ),
                    url: Some(url.clone()),
                    alarms,
                });
                if flag > deadline {
                    events.push(ics::Event {
                        uid: uid("grace"),
                        at: flag,
                        summary: format!("Fairsteward {id}: grace ends, loss on time (turn {}, {seat_name})", c.turn),
                        description: format!(
                            "Game {id}: if your {what} for turn {} has not arrived by {}, you lose on time.",
                            c.turn,
                            mail_time(flag, gc.zones[seat.index()])
                        ),
                        url: Some(url.clone()),
                        alarms: Vec::new(),
                    });
                }
            }
        }
        Ok(events)
    }
}
