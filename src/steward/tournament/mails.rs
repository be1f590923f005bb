//! A tournament's mails: one start mail per player listing all their games,
//! and a result notice to every player when one of its games ends.

use chrono::{DateTime, Utc};
use minijinja::{Value, context};

use super::create::TournamentSeatSecret;
use super::table::TournamentView;
use crate::ids::GameId;
use crate::letters::compose::{DigestDraft, MailKind, compose_digest};
use crate::steward::{Steward, StewardError, internal, load, mails};
use crate::store::{TournamentRow, Tx};

/// The lines of the table a mail shows (the top ones when there are many).
pub(crate) const MAIL_STANDING_LINES: usize = 10;

/// The standings as the mails' `tournament_standings.txt` reads them.
pub(crate) fn standings_context(v: &TournamentView, lines: usize) -> Value {
    let shown: Vec<Value> = v
        .standings
        .iter()
        .take(lines)
        .map(|s| {
            context! {
                rank => s.line.rank,
                name => s.name.clone(),
                points => s.line.points.to_string(),
                tiebreak => s.line.tiebreak.to_string(),
                wins => s.line.wins,
                played => s.line.played,
            }
        })
        .collect();
    context! {
        lines => shown,
        more => v.standings.len().saturating_sub(lines),
        finished => v.finished,
        running => v.running,
    }
}

impl Steward {
    /// Queues one mail per player of `t` with a game in `secrets` (the games
    /// just created), listing those games with their links.
    pub(super) fn queue_start_mails(
        &self,
        tx: &Tx<'_>,
        t: &TournamentRow,
        secrets: &[TournamentSeatSecret],
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        if secrets.is_empty() {
            return Ok(());
        }
        let players = tx.tournament_players(&t.id)?;
        let rounds = t.spec["rounds"].as_bool().unwrap_or(false);
        let mut round = None;
        for p in &players {
            let mine: Vec<&TournamentSeatSecret> = secrets.iter().filter(|s| s.player == p.player).collect();
            if mine.is_empty() || p.withdrawn_at.is_some() {
                continue;
            }
            let mut games = Vec::new();
            for s in &mine {
                let g = load(tx, &s.game)?;
                let seat = g.rules.seat(&s.seat).map_err(internal)?;
                let to_move = g.rules.seats_to_move(&g.row.state).map_err(internal)?;
                let opponents: Vec<String> = g
                    .seats
                    .iter()
                    .filter(|x| x.seat != seat)
                    .map(|x| format!("{} ({})", x.name, g.seat_name(x.seat)))
                    .collect();
                if rounds {
                    let slot = tx.tournament_of_game(&g.row.id)?.map(|(_, slot)| slot);
                    round = tx.tournament_games(&t.id)?.into_iter().find(|x| Some(x.slot) == slot).map(|x| x.round);
                }
                games.push(context! {
                    game => s.game.clone(),
                    seat => s.seat.clone(),
                    opponents => opponents.join(" and "),
                    you_owe => to_move.contains(seat),
                    links => mails::links(self, &g, seat, Some(now)),
                });
            }
            let key = format!("{}.{}.{}", t.id, p.player, mine[0].game);
            let mail = compose_digest(DigestDraft {
                from: &self.from,
                kind: MailKind::Started,
                key,
                game: mine[0].game.clone(),
                to_name: &p.name,
                to_email: &p.email,
                subject: match round {
                    Some(r) => format!("{}: round {r} begins, your {} games", t.name, games.len()),
                    None => format!("{}: the tournament begins, your {} games", t.name, games.len()),
                },
                template: "tournament_started.txt",
                context: context! {
                    tournament => t.id.as_str(),
                    tournament_name => t.name.clone(),
                    variant => t.variant.clone(),
                    round => round,
                    player => p.name.clone(),
                    games => games,
                    public_url => self.public_url.as_str(),
                },
                date: now,
            })
            .map_err(internal)?;
            tx.queue_mail(&mail, now)?;
        }
        Ok(())
    }

    /// Queues the result notice of `game` (ended with `result`) to every
    /// player of `t` still in it, with the standings' top lines.
    pub(super) fn queue_result_notices(
        &self,
        tx: &Tx<'_>,
        t: &TournamentRow,
        game: &GameId,
        result: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let view = self.tournament_view_in(tx, &t.id)?;
        let g = load(tx, game.as_str())?;
        let names: Vec<String> = g.seats.iter().map(|s| format!("{} ({})", s.name, g.seat_name(s.seat))).collect();
        for p in tx.tournament_players(&t.id)?.iter().filter(|p| p.withdrawn_at.is_none()) {
            let mail = compose_digest(DigestDraft {
                from: &self.from,
                kind: MailKind::Ended,
                key: format!("{}.{}.{}", t.id, game, p.player),
                game: game.to_string(),
                to_name: &p.name,
                to_email: &p.email,
                subject: format!("{}: game {game} is over ({})", t.name, names.join(" - ")),
                template: "tournament_result.txt",
                context: context! {
                    tournament => t.id.as_str(),
                    tournament_name => t.name.clone(),
                    game => game.as_str(),
                    names => names.join(" - "),
                    result => result,
                    public_url => self.public_url.as_str(),
                    ..standings_context(&view, MAIL_STANDING_LINES)
                },
                date: now,
            })
            .map_err(internal)?;
            tx.queue_mail(&mail, now)?;
        }
        Ok(())
    }
}
