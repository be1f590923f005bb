//! When a tournament's game ends (the result notice, the next round, the
//! tournament's end), the director's adjudications, and the end date.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::table::{TournamentView, game_scores, parse_game, parse_id};
use crate::ids::{GameId, TournamentId};
use crate::rules::{GameResult, Seat, SeatSet};
use crate::steward::{Organiser, Refusal, Steward, StewardError, internal, load};
use crate::store::{TournamentGameRow, TournamentRow, Tx};

/// What the end date's sweep writes as the reason of its adjudications.
pub const END_DATE_REASON: &str = "unfinished at the tournament's end date: adjudicated as the game's own draw";

impl Steward {
    /// Hook of [`Steward::end`]: when a game of a tournament ends, its
    /// players hear the result (not of a cancelled or aborted game), the
    /// next round starts once every game begun is over, and a tournament
    /// with nothing left to play is finished.
    pub(crate) fn tournament_game_ended(
        &self,
        tx: &Tx<'_>,
        game: &GameId,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let Some((id, slot)) = tx.tournament_of_game(game)? else { return Ok(()) };
        let Some(t) = tx.tournament(&id)? else { return Ok(()) };
        let planned = tx.tournament_games(&id)?;
        if let Some(g) = planned.iter().find(|g| g.slot == slot)
            && let Some((_, text)) = game_scores(tx, g)?
        {
            self.queue_result_notices(tx, &t, game, &text, now)?;
        }
        self.advance_in(tx, &t, &planned, now)?;
        Ok(())
    }

    /// Moves the running tournament `t` on from its `planned` games: the due
    /// games not created yet — all of them without rounds, the next round once
    /// every game begun is over — are created, and a tournament with nothing
    /// left to play is finished. Whether it changed anything (so a second call
    /// does nothing).
    fn advance_in(
        &self,
        tx: &Tx<'_>,
        t: &TournamentRow,
        planned: &[TournamentGameRow],
        now: DateTime<Utc>,
    ) -> Result<bool, StewardError> {
        if t.status != "running" {
            return Ok(false);
        }
        let mut over = true;
        for g in planned.iter().filter(|g| !g.cancelled) {
            if let Some(game) = &g.game {
                over &= tx.game(game)?.is_some_and(|r| r.outcome.is_some());
            }
        }
        let next = planned.iter().filter(|g| !g.cancelled && g.game.is_none()).map(|g| g.round).min();
        let rounds = t.spec["rounds"].as_bool().unwrap_or(false);
        match next {
            Some(_) if !rounds => self.start_round_in(tx, t, None, now).map(|_| true),
            Some(r) if over => self.start_round_in(tx, t, Some(r), now).map(|_| true),
            None if over => tx.set_tournament_status(&t.id, "finished").map(|()| true).map_err(Into::into),
            _ => Ok(false),
        }
    }

    /// Finishes what a crash may have left half done in the running
    /// tournaments (every sweep calls this, the one at start-up first): the
    /// planned games not created although they are due — all of them in a
    /// tournament without rounds, the next round once every game begun is
    /// over — are created, and a tournament with nothing left to play is
    /// finished. Each tournament in a transaction of its own; a tournament
    /// with nothing to do is left as it is, so calling this again does
    /// nothing. Returns the tournaments it changed.
    ///
    /// # Errors
    /// Store failures reading the tournaments; a tournament that cannot be
    /// resumed is logged and tried again next time.
    pub async fn resume_tournaments(&self, now: DateTime<Utc>) -> Result<Vec<TournamentId>, StewardError> {
        let running: Vec<TournamentId> = self
            .store
            .transaction(|tx| {
                Ok::<_, StewardError>(
                    tx.tournaments()?.into_iter().filter(|t| t.status == "running").map(|t| t.id).collect(),
                )
            })
            .await?;
        let mut resumed = Vec::new();
        for id in running {
            let this = self.clone();
            let key = id.clone();
            match self.store.transaction(move |tx| this.resume_tournament_in(tx, &key, now)).await {
                Ok(true) => {
                    tracing::warn!(tournament = %id, "a tournament left half started was resumed");
                    resumed.push(id);
                }
                Ok(false) => {}
                Err(e) => tracing::error!(tournament = %id, error = %e, "a tournament could not be resumed"),
            }
        }
        if !resumed.is_empty() {
            self.outbox.notify_one();
        }
        Ok(resumed)
    }

    /// [`Steward::resume_tournaments`] for one tournament, in the caller's
    /// transaction: whether it did anything.
    fn resume_tournament_in(&self, tx: &Tx<'_>, id: &TournamentId, now: DateTime<Utc>) -> Result<bool, StewardError> {
        let Some(t) = tx.tournament(id)? else { return Ok(false) };
        let planned = tx.tournament_games(id)?;
        self.advance_in(tx, &t, &planned, now)
    }

    /// The director's adjudications: `results` maps game ids of tournament
    /// `id` to results (`"draw"`, a winning seat's name, seats joined by `+`,
    /// or points per seat as `[3, 1, 0]`).
    ///
    /// # Errors
    /// An organiser who may not direct it; a game not of this tournament or
    /// over; a result the game cannot have.
    pub async fn adjudicate_tournament(
        &self,
        by: &Organiser,
        id: String,
        results: BTreeMap<String, serde_json::Value>,
        reason: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<TournamentView, StewardError> {
        let id = parse_id(&id)?;
        Steward::may_direct(by, &id)?;
        if results.is_empty() {
            return Err(Refusal::BadRequest(
                "no results given; send {\"results\": {\"<game id>\": \"draw\"}} (or a winning seat's name, or points like [3, 1, 0])".into(),
            )
            .into());
        }
        let reason = reason
            .filter(|r| !r.trim().is_empty())
            .unwrap_or_else(|| "adjudicated by the tournament's director".into());
        let (this, by) = (self.clone(), by.clone());
        let view = self
            .store
            .transaction(move |tx| {
                tx.tournament(&id)?.ok_or_else(|| Refusal::UnknownTournament(id.to_string()))?;
                for (game, result) in &results {
                    let game = parse_game(game)?;
                    if tx.tournament_of_game(&game)?.is_none_or(|(t, _)| t != id) {
                        return Err(Refusal::BadRequest(format!("game {game} is not a game of tournament {id}")).into());
                    }
                    let result = read_result(tx, &game, result)?;
                    this.adjudicate_in(tx, &game, result, &reason, &by, now)?;
                }
                this.tournament_view_in(tx, &id)
            })
            .await?;
        self.outbox.notify_one();
        Ok(view)
    }

    /// The end date: every game of a running tournament past its end date
    /// that is still unfinished is adjudicated as the game's own agreed draw
    /// (draw, ½ each for the seats still in, or the game's draw points) —
    /// unless the director adjudicated it before. Returns the games adjudicated.
    ///
    /// # Errors
    /// Store failures.
    pub async fn sweep_tournament_ends(&self, now: DateTime<Utc>) -> Result<Vec<GameId>, StewardError> {
        let this = self.clone();
        let done = self
            .store
            .transaction(move |tx| {
                let mut done = Vec::new();
                for t in tx.tournaments_past_end(now)? {
                    done.extend(this.end_date_in(tx, &t.id, now)?);
                }
                Ok::<_, StewardError>(done)
            })
            .await?;
        if !done.is_empty() {
            self.outbox.notify_one();
            tracing::info!(games = done.len(), "unfinished tournament games adjudicated at the end date");
        }
        Ok(done)
    }

    fn end_date_in(&self, tx: &Tx<'_>, id: &TournamentId, now: DateTime<Utc>) -> Result<Vec<GameId>, StewardError> {
        let mut done = Vec::new();
        for g in tx.tournament_games(id)? {
            let Some(game) = g.game else {
                // Never started (a later round): nothing to adjudicate; left out.
                if !g.cancelled {
                    tx.cancel_tournament_game(id, g.slot)?;
                }
                continue;
            };
            if g.cancelled || tx.game(&game)?.is_none_or(|r| r.outcome.is_some()) {
                continue;
            }
            let loaded = load(tx, game.as_str())?;
            let draw = loaded.rules.agreed_draw(&loaded.row.state).map_err(internal)?;
            self.adjudicate_in(tx, &game, draw.outcome.result, END_DATE_REASON, &Organiser::Operator, now)?;
            done.push(game);
        }
        tx.set_tournament_status(id, "finished")?;
        Ok(done)
    }
}

/// A director's result for `game`, in the game's terms.
fn read_result(tx: &Tx<'_>, game: &GameId, value: &serde_json::Value) -> Result<GameResult, StewardError> {
    let g = load(tx, game.as_str())?;
    let names = g.rules.seat_names();
    let refuse = || {
        Refusal::BadRequest(format!(
            "game {game}: the result {value} is not one this game can have; send \"draw\", a winning seat ({}), seats joined by + (\"{}+{}\"), or points per seat in seat order like [{}]",
            names.join(", "),
            names[0],
            names[names.len() - 1],
            names.iter().map(|_| "1").collect::<Vec<_>>().join(", ")
        ))
    };
    match value {
        serde_json::Value::String(s) if s.trim().eq_ignore_ascii_case("draw") => {
            Ok(g.rules.agreed_draw(&g.row.state).map_err(internal)?.outcome.result)
        }
        serde_json::Value::String(s) => {
            let mut set = SeatSet::EMPTY;
            for part in s.split('+') {
                let seat = g.rules.seat(part.trim().to_lowercase().as_str()).map_err(|_| refuse())?;
                set = set.with(seat);
            }
            match set.len() {
                1 => Ok(GameResult::Win(set.iter().next().unwrap_or(Seat::new(0)))),
                n if n < names.len() => Ok(GameResult::Winners(set)),
                _ => Err(refuse().into()),
            }
        }
        serde_json::Value::Array(points) if points.len() == names.len() => {
            let points: Option<Vec<u8>> =
                points.iter().map(|p| p.as_u64().filter(|&p| p <= 15).map(|p| p as u8)).collect();
            Ok(GameResult::points(&points.ok_or_else(refuse)?))
        }
        _ => Err(refuse().into()),
    }
}
