//! A player's withdrawal, by ICCF's rule: with under half of their games
//! finished, all their games are cancelled and leave the standings; otherwise
//! their unfinished games are lost by default.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::create::forfeit_result;
use super::table::{TournamentView, game_scores, parse_id};
use crate::rules::{Seat, SeatSet};
use crate::steward::{Organiser, Refusal, Steward, StewardError};

impl Steward {
    /// Withdraws player `player` (0..) from tournament `id`.
    ///
    /// # Errors
    /// An organiser who may not direct the tournament; an unknown tournament or
    /// player; a player who withdrew already.
    pub async fn withdraw_player(
        &self,
        by: &Organiser,
        id: String,
        player: usize,
        now: DateTime<Utc>,
    ) -> Result<TournamentView, StewardError> {
        let id = parse_id(&id)?;
        Steward::may_direct(by, &id)?;
        let (this, by) = (self.clone(), by.clone());
        let view = self
            .store
            .transaction(move |tx| {
                tx.tournament(&id)?.ok_or_else(|| Refusal::UnknownTournament(id.to_string()))?;
                let players = tx.tournament_players(&id)?;
                let p = players.get(player).ok_or_else(|| {
                    Refusal::BadRequest(format!(
                        "tournament {id} has players 0 to {}; there is no player {player}",
                        players.len().saturating_sub(1)
                    ))
                })?;
                if p.withdrawn_at.is_some() {
                    return Err(Refusal::BadRequest(format!("{} has withdrawn already", p.name)).into());
                }
                let name = p.name.clone();
                let theirs: Vec<_> =
                    tx.tournament_games(&id)?.into_iter().filter(|g| !g.cancelled && g.players.contains(&player)).collect();
                let mut finished = 0;
                for g in &theirs {
                    if game_scores(tx, g)?.is_some() {
                        finished += 1;
                    }
                }
                tx.withdraw_tournament_player(&id, player, now)?;
                if 2 * finished < theirs.len() {
                    let reason = format!(
                        "{name} withdrew with {finished} of {} games finished (under half): all their games are cancelled",
                        theirs.len()
                    );
                    // Marked first, so that the end of an aborted game is not
                    // announced as a result.
                    for g in &theirs {
                        tx.cancel_tournament_game(&id, g.slot)?;
                    }
                    for g in &theirs {
                        let Some(game) = &g.game else { continue };
                        match tx.game(game)? {
                            Some(r) if r.outcome.is_none() => this.abort_in(tx, game, &reason, &by, now)?,
                            // A finished game keeps its result in its transcript,
                            // but a signed entry says it no longer counts, so that
                            // a player verifying it sees why it left the standings.
                            Some(_) => {
                                let body = json!({"reason": reason, "by": by.record(), "tournament": id.to_string()});
                                tx.append_event(game, now, "cancelled", &body)?;
                                this.sign_head(tx, game)?;
                            }
                            None => {}
                        }
                    }
                } else {
                    let reason = format!(
                        "{name} withdrew with {finished} of {} games finished: their unfinished games are lost by default",
                        theirs.len()
                    );
                    for g in &theirs {
                        let Some(game) = &g.game else { continue };
                        if tx.game(game)?.is_some_and(|r| r.outcome.is_none()) {
                            let out: SeatSet = g
                                .players
                                .iter()
                                .enumerate()
                                .filter(|(_, q)| **q == player)
                                .map(|(i, _)| Seat::new(i as u8))
                                .collect();
                            let result = forfeit_result(tx, game, out)?;
                            this.adjudicate_in(tx, game, result, &reason, &by, now)?;
                        }
                    }
                }
                tracing::info!(tournament = %id, player, finished, games = theirs.len(), "player withdrawn");
                this.tournament_view_in(tx, &id)
            })
            .await?;
        self.outbox.notify_one();
        Ok(view)
    }
}
