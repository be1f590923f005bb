//! A tournament's mails: one start mail per player listing all their games
//! (with, for each game where the player moves first, the address to send that
//! first move to), a result notice to every player when one of its games ends,
//! and the standings, answered to a player's `standings` by mail.

use chrono::{DateTime, Utc};
use minijinja::{Value, context};

use super::create::TournamentSeatSecret;
use super::table::TournamentView;
use crate::ids::GameId;
use crate::letters::compose::{DigestDraft, MailKind, compose_digest_replying, render};
use crate::rules::Seat;
use crate::steward::{Steward, StewardError, internal, load, mails};
use crate::store::{TournamentGameRow, TournamentRow, Tx};

/// The lines of the table a mail shows (the top ones when there are many).
pub(crate) const MAIL_STANDING_LINES: usize = 10;

/// The lines of the table an answer to `standings` shows: the whole table of
/// any tournament a club runs, bounded all the same.
pub const ANSWER_STANDING_LINES: usize = 60;

/// The standings of a game's tournament, as an answer to `standings` by mail
/// (the mail door words the answer around them).
#[derive(Clone, Debug)]
pub struct StandingsAnswer {
    /// The tournament's id.
    pub tournament: String,
    /// Its name.
    pub name: String,
    /// The table as `tournament_standings.txt` renders it.
    pub table: String,
    /// The tournament's public page (crosstable and all games).
    pub page: String,
}

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
    /// The standings of the tournament `game` belongs to, for an answer by
    /// mail; `None` when the game belongs to no tournament. Reads only.
    pub(crate) fn standings_answer_in(
        &self,
        tx: &Tx<'_>,
        game: &GameId,
    ) -> Result<Option<StandingsAnswer>, StewardError> {
        let Some((id, _)) = tx.tournament_of_game(game)? else { return Ok(None) };
        let view = self.tournament_view_in(tx, &id)?;
        let table =
            render("tournament_standings.txt", &standings_context(&view, ANSWER_STANDING_LINES)).map_err(internal)?;
        Ok(Some(StandingsAnswer {
            page: format!("{}/tournaments/{id}", self.public_url),
            tournament: id.to_string(),
            name: view.name,
            table,
        }))
    }

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
            // A reply to the start mail acts for one game: the first where the
            // player moves first, else the first listed.
            let mut reply_to: Option<(bool, String, lettre::message::Mailbox)> = None;
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
                let you_owe = to_move.contains(seat);
                // The first move by mail: the game's reply capability for this
                // seat and turn is the authority, with or without a mail to reply to.
                let capability = self.reply_address(&g, seat, g.row.turn);
                if let Some(c) = &capability
                    && reply_to.as_ref().is_none_or(|(owed, _, _)| you_owe && !owed)
                {
                    reply_to = Some((you_owe, s.game.to_string(), c.clone()));
                }
                games.push(context! {
                    game => s.game.clone(),
                    seat => s.seat.clone(),
                    opponents => opponents.join(" and "),
                    you_owe => you_owe,
                    mail_to => capability.filter(|_| you_owe).map(|c| c.email.to_string()),
                    forms => if you_owe { mails::move_forms(&g, &g.row.state, seat) } else { None },
                    next_turn => g.row.turn + 1,
                    signed => g.row.auth == crate::protocol::policy::Auth::Signature,
                    commit_reveal => g.row.secrecy == crate::protocol::policy::Secrecy::CommitReveal,
                    links => mails::links(self, &g, seat, Some(now)),
                });
            }
            let key = format!("{}.{}.{}", t.id, p.player, mine[0].game);
            let mail = compose_digest_replying(
                DigestDraft {
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
                        by_mail => reply_to.as_ref().is_some_and(|(owed, _, _)| *owed),
                    reply_game => reply_to.as_ref().map(|(_, game, _)| game.clone()),
                        public_url => self.public_url.as_str(),
                    },
                    date: now,
                },
                reply_to.as_ref().map(|(_, _, mailbox)| mailbox),
            )
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
        let planned = tx.tournament_games(&t.id)?;
        for p in tx.tournament_players(&t.id)?.iter().filter(|p| p.withdrawn_at.is_none()) {
            let reply_to = self.standings_reply_to(tx, &planned, p.player, game)?;
            let mail = compose_digest_replying(
                DigestDraft {
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
                        standings_by_reply => reply_to.is_some(),
                        ..standings_context(&view, MAIL_STANDING_LINES)
                    },
                    date: now,
                },
                reply_to.as_ref(),
            )
            .map_err(internal)?;
            tx.queue_mail(&mail, now)?;
        }
        Ok(())
    }

    /// The Reply-To of a result notice to `player`: their own reply
    /// capability in one of their games of the tournament (`planned`), so that
    /// `standings` in a reply is answered with the table — the game that
    /// ended when they played in it, else the first of theirs still running,
    /// else the first of theirs. The door reads `standings` as a look, which
    /// no turn played since makes stale. `None` when they have no game or the
    /// capability makes no valid address.
    fn standings_reply_to(
        &self,
        tx: &Tx<'_>,
        planned: &[TournamentGameRow],
        player: usize,
        ended: &GameId,
    ) -> Result<Option<lettre::message::Mailbox>, StewardError> {
        let mut best: Option<(u8, &GameId, usize)> = None;
        for g in planned.iter().filter(|g| !g.cancelled) {
            let (Some(id), Some(seat)) = (&g.game, g.players.iter().position(|&x| x == player)) else { continue };
            let rank = if id == ended {
                0
            } else if tx.game(id)?.is_some_and(|r| r.outcome.is_none()) {
                1
            } else {
                2
            };
            if best.is_none_or(|(r, _, _)| rank < r) {
                best = Some((rank, id, seat));
            }
        }
        let Some((_, id, seat)) = best else { return Ok(None) };
        let g = load(tx, id.as_str())?;
        let seat = u8::try_from(seat).map_err(internal)?;
        Ok(self.reply_address(&g, Seat::new(seat), g.row.turn))
    }
}

#[cfg(test)]
mod tests {
    use minijinja::context;

    use crate::letters::compose::render;

    /// One game of a start mail's list, as `queue_start_mails` gives it.
    fn game(id: &str, you_owe: bool, signed: bool, commit_reveal: bool) -> minijinja::Value {
        context! {
            game => id,
            seat => "white",
            opponents => "Bob (black)",
            you_owe => you_owe,
            mail_to => you_owe.then(|| format!("moves+{id}.white.1.mac@steward.example")),
            forms => you_owe.then_some("write moves like Nf3"),
            next_turn => 1,
            signed => signed,
            commit_reveal => commit_reveal,
            links => context! { page => format!("http://s/games/{id}") },
        }
    }

    #[test]
    fn the_start_mail_says_where_each_first_move_goes_and_what_to_send() {
        let text = render(
            "tournament_started.txt",
            &context! {
                tournament => "T8KQ2ZJ",
                tournament_name => "Club",
                variant => "chess",
                player => "Ann",
                games => vec![
                    game("AAAAAA", true, false, false),
                    game("BBBBBB", true, true, false),
                    game("CCCCCC", true, false, true),
                    game("DDDDDD", false, false, false),
                ],
                by_mail => true,
                reply_game => "AAAAAA",
                public_url => "http://s",
            },
        )
        .unwrap();
        assert!(
            text.contains(
                "To move by mail, write to moves+AAAAAA.white.1.mac@steward.example\n  with your move as the first line (write moves like Nf3)."
            ),
            "{text}"
        );
        assert!(text.contains("fairsteward player sign --key <YOUR-KEY> --game BBBBBB"), "{text}");
        assert!(text.contains("send the envelope it prints by mail to moves+BBBBBB.white.1.mac@"), "{text}");
        assert!(text.contains("fairsteward player commit --game CCCCCC"), "{text}");
        assert!(text.contains("send the envelope it prints by mail to moves+CCCCCC.white.1.mac@"), "{text}");
        assert!(!text.contains("DDDDDD.white"), "no address where the player does not move first: {text}");
        assert!(text.contains("A reply to this mail is read for game AAAAAA."), "{text}");
        assert!(text.contains("Reply `standings` to this mail"), "{text}");
    }
}
