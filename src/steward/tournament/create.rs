//! Creating a tournament, starting its games (all at once, or a round), and
//! naming its directors.

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use serde_json::json;

use super::{MAX_PLAYERS, NewTournament};
use crate::ids::{SeatToken, TournamentId};
use crate::rules::{GameResult, Seat, SeatSet, VariantId};
use crate::steward::{
    NewGame, NewSeat, Organiser, Refusal, Steward, StewardError, clock, options_from_json, trust_options, view,
};
use crate::store::{TournamentGameRow, TournamentPlayerRow, TournamentRow, Tx};
use crate::tournament::pairing::pair;

/// A seat's token in a tournament game, handed out once at creation.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TournamentSeatSecret {
    /// The game.
    pub game: String,
    /// The seat's name in the variant.
    pub seat: String,
    /// The tournament's player (0..).
    pub player: usize,
    /// The player's name.
    pub name: String,
    /// The token; whoever holds it plays the seat.
    pub token: String,
}

/// A created tournament: its view and the seat tokens of the games created now
/// (shown only this once; the players get private links by mail).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct CreatedTournament {
    /// The tournament as anyone sees it.
    pub tournament: super::TournamentView,
    /// One per seat of each game created now.
    pub tokens: Vec<TournamentSeatSecret>,
}

/// A director's token, shown once.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"tournament": "T8KQ2ZJ", "name": "Dana", "token": "Zm9v…"}))]
pub struct NamedDirector {
    /// The tournament.
    pub tournament: String,
    /// The director's name.
    pub name: String,
    /// The token: `Authorization: Bearer <token>` acts on this tournament only.
    pub token: String,
}

/// Reads an end date: RFC 3339, or a date (the end of that day, UTC).
fn end_date(text: &str) -> Result<DateTime<Utc>, Refusal> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(23, 59, 59))
        .map(|t| t.and_utc())
        .ok_or_else(|| {
            Refusal::BadRequest(format!(
                "ends_at {text:?} is neither a date (2027-06-30) nor an RFC 3339 time (2027-06-30T18:00:00Z)"
            ))
        })
}

/// The number of seats of `variant` with the tournament's `options` (trust,
/// clock and delay options taken out), refusing what a game would refuse.
fn seats_of(
    variant: VariantId,
    options: &std::collections::BTreeMap<String, serde_json::Value>,
) -> Result<usize, StewardError> {
    let mut raw = options.clone();
    trust_options(&mut raw)?;
    clock::take_option(&mut raw)?;
    view::take_spectator_delay(&mut raw)?;
    let options = options_from_json(variant, &raw)?;
    let rules = variant.rulebook(&options).map_err(Refusal::from)?;
    Ok(rules.seat_names().len())
}

impl Steward {
    /// Refuses unless `by` may direct tournament `id`: the operator, or one of
    /// its own directors.
    pub(crate) fn may_direct(by: &Organiser, id: &TournamentId) -> Result<(), StewardError> {
        match by {
            Organiser::Operator => Ok(()),
            Organiser::Director { tournament, .. } if tournament == id => Ok(()),
            Organiser::Director { tournament, .. } => Err(Refusal::Forbidden(format!(
                "this director's token acts for tournament {tournament} only, not for tournament {id}"
            ))
            .into()),
        }
    }

    /// Creates a tournament: checks it, stores its players and plan, and
    /// starts it (or, with `invite`, sends the invitations instead).
    ///
    /// # Errors
    /// A director's token (creating needs the operator's); an unknown variant
    /// or option; too few or too many players; a duplicate name or address; a
    /// bad key or end date.
    pub async fn create_tournament(
        &self,
        by: &Organiser,
        new: NewTournament,
        now: DateTime<Utc>,
    ) -> Result<CreatedTournament, StewardError> {
        if let Organiser::Director { tournament, .. } = by {
            return Err(Refusal::Forbidden(format!(
                "a director's token acts for tournament {tournament} only; creating a tournament needs the operator token"
            ))
            .into());
        }
        let name = new.name.trim().to_owned();
        if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
            return Err(Refusal::BadRequest(
                "the tournament needs a name of 1 to 100 characters on one line, e.g. \"Club championship 2027\""
                    .into(),
            )
            .into());
        }
        let variant: VariantId = new.variant.parse::<VariantId>().map_err(Refusal::from)?;
        let seats = seats_of(variant, &new.options)?;
        if new.players.len() > MAX_PLAYERS {
            return Err(Refusal::BadRequest(format!(
                "a tournament has at most {MAX_PLAYERS} players, {} given; split it into groups",
                new.players.len()
            ))
            .into());
        }
        if new.players.len() < seats {
            return Err(Refusal::BadRequest(format!(
                "{variant} has {seats} seats, so a tournament of it needs at least {seats} players; {} given",
                new.players.len()
            ))
            .into());
        }
        let mut players = Vec::new();
        for (i, p) in new.players.iter().enumerate() {
            let refuse = |e: crate::contact::ContactError| Refusal::BadRequest(format!("player {}: {e}", i + 1));
            let shown = crate::contact::PlayerName::parse(&p.name).map_err(refuse)?;
            let email = crate::contact::PlayerAddress::parse(&p.email).map_err(refuse)?;
            let whose = format!("player {} ({})", i + 1, p.name);
            let key = crate::steward::checked_public_key(&whose, p.public_key.as_deref())?;
            let pgp = crate::steward::checked_openpgp_key(&whose, p.openpgp_key.as_deref())?;
            for (j, other) in players.iter().enumerate() {
                let other: &(crate::contact::PlayerName, String, Option<String>, Option<String>) = other;
                if other.0.shown_as() == shown.shown_as() {
                    return Err(Refusal::BadRequest(format!(
                        "players {} and {} both show the name {:?}; give every player a name of their own",
                        j + 1,
                        i + 1,
                        shown.as_str()
                    ))
                    .into());
                }
                if other.1.eq_ignore_ascii_case(&email.to_string()) {
                    return Err(Refusal::BadRequest(format!(
                        "players {} and {} both have the address {}; every player needs an address of their own",
                        j + 1,
                        i + 1,
                        other.1
                    ))
                    .into());
                }
            }
            players.push((shown, email.to_string(), key, pgp));
        }
        let plan = pair(players.len(), seats, new.double, new.teams)
            .map_err(|e| Refusal::BadRequest(format!("no plan can be made: {e}")))?;
        let ends_at = new.ends_at.as_deref().map(end_date).transpose()?;
        if ends_at.is_some_and(|t| t <= now) {
            return Err(Refusal::BadRequest("ends_at is in the past; give a date after today".into()).into());
        }
        // Every game of the plan is checked as a game now, so that a start
        // (now, or when the invitations are answered) cannot be refused.
        let rows: Vec<TournamentPlayerRow> = players
            .iter()
            .enumerate()
            .map(|(i, (n, e, k, pgp))| TournamentPlayerRow {
                player: i,
                name: n.to_string(),
                email: e.clone(),
                public_key: k.clone(),
                openpgp_key: pgp.clone(),
                withdrawn_at: None,
            })
            .collect();
        if let Some(first) = plan.first() {
            self.prepare_game(&game_of(variant, &new.options, &rows, &first.players))?;
        }
        let spec = json!({
            "options": new.options,
            "leave": new.leave,
            "double": new.double,
            "rounds": new.rounds,
            "teams": new.teams,
            "seats": seats,
        });
        let invite = new.invite;
        let this = self.clone();
        let created = self
            .store
            .transaction(move |tx| {
                let mut id = TournamentId::random();
                while tx.tournament(&id)?.is_some() {
                    id = TournamentId::random();
                }
                let row = TournamentRow {
                    id: id.clone(),
                    name,
                    variant: variant.name().to_owned(),
                    spec,
                    status: if invite { "inviting" } else { "running" }.to_owned(),
                    ends_at,
                    created_at: now,
                };
                tx.insert_tournament(&row)?;
                for p in &rows {
                    tx.insert_tournament_player(&id, p)?;
                }
                for (slot, g) in plan.iter().enumerate() {
                    let planned = TournamentGameRow {
                        slot,
                        round: g.round,
                        players: g.players.clone(),
                        game: None,
                        cancelled: false,
                    };
                    tx.insert_tournament_game(&id, &planned)?;
                }
                let tokens = if invite {
                    this.invite_tournament_in(tx, &id, now)?;
                    Vec::new()
                } else {
                    this.start_in(tx, &id, now)?
                };
                let view = this.tournament_view_in(tx, &id)?;
                Ok::<_, StewardError>(CreatedTournament { tournament: view, tokens })
            })
            .await?;
        self.outbox.notify_one();
        tracing::info!(tournament = %created.tournament.id, games = created.tokens.len(), "tournament created");
        Ok(created)
    }

    /// Creates the planned games (all, or round 1 in rounds mode) from the
    /// players as stored now, sends each player ONE start mail listing all
    /// their games, status → running.
    ///
    /// # Errors
    /// An unknown tournament; store failures.
    pub(crate) fn start_tournament_in(
        &self,
        tx: &Tx<'_>,
        id: &TournamentId,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        self.start_in(tx, id, now).map(|_| ())
    }

    /// [`Steward::start_tournament_in`], returning the seat tokens.
    fn start_in(
        &self,
        tx: &Tx<'_>,
        id: &TournamentId,
        now: DateTime<Utc>,
    ) -> Result<Vec<TournamentSeatSecret>, StewardError> {
        let t = tx.tournament(id)?.ok_or_else(|| Refusal::UnknownTournament(id.to_string()))?;
        tx.set_tournament_status(id, "running")?;
        let rounds = t.spec["rounds"].as_bool().unwrap_or(false);
        let first = tx.tournament_games(id)?.iter().filter(|g| g.game.is_none() && !g.cancelled).map(|g| g.round).min();
        match first {
            Some(r) => self.start_round_in(tx, &t, rounds.then_some(r), now),
            None => Ok(Vec::new()),
        }
    }

    /// Creates the planned games not yet created (of `round` only, when
    /// given), mails each player once, and forfeits the games of withdrawn
    /// players at once.
    pub(super) fn start_round_in(
        &self,
        tx: &Tx<'_>,
        t: &TournamentRow,
        round: Option<u32>,
        now: DateTime<Utc>,
    ) -> Result<Vec<TournamentSeatSecret>, StewardError> {
        let variant: VariantId =
            t.variant.parse().map_err(|e| crate::steward::internal_while("a stored tournament", e))?;
        let options: std::collections::BTreeMap<String, serde_json::Value> =
            serde_json::from_value(t.spec["options"].clone()).unwrap_or_default();
        let players = tx.tournament_players(&t.id)?;
        let mut secrets = Vec::new();
        let mut forfeits = Vec::new();
        for g in tx.tournament_games(&t.id)? {
            if g.game.is_some() || g.cancelled || round.is_some_and(|r| r != g.round) {
                continue;
            }
            let prepared = self.prepare_game(&game_of(variant, &options, &players, &g.players))?;
            let tokens: Vec<SeatToken> = g.players.iter().map(|_| SeatToken::random()).collect();
            let hashes: Vec<String> = tokens.iter().map(SeatToken::hash).collect();
            let (game, view) = self.create_game_in(tx, &prepared, &hashes, now, false)?;
            tx.set_tournament_game(&t.id, g.slot, &game)?;
            for ((seat, token), &p) in view.seats.iter().zip(&tokens).zip(&g.players) {
                secrets.push(TournamentSeatSecret {
                    game: game.to_string(),
                    seat: seat.seat.clone(),
                    player: p,
                    name: players[p].name.clone(),
                    token: token.reveal().to_owned(),
                });
            }
            let out: SeatSet = g
                .players
                .iter()
                .enumerate()
                .filter(|(_, p)| players[**p].withdrawn_at.is_some())
                .map(|(i, _)| Seat::new(i as u8))
                .collect();
            if !out.is_empty() {
                forfeits.push((game, out));
            }
        }
        self.queue_start_mails(tx, t, &secrets, now)?;
        // The games of a player who withdrew after half their games are lost
        // by default as they come up (ICCF's rule).
        for (game, out) in forfeits {
            let result = forfeit_result(tx, &game, out)?;
            self.adjudicate_in(tx, &game, result, "lost by default: the player withdrew", &Organiser::Operator, now)?;
        }
        Ok(secrets)
    }

    /// Names a director for tournament `id`; the token is returned this once.
    ///
    /// # Errors
    /// Not the operator; an unknown tournament; a bad name.
    pub async fn name_director(
        &self,
        by: &Organiser,
        id: &TournamentId,
        name: String,
        now: DateTime<Utc>,
    ) -> Result<NamedDirector, StewardError> {
        if *by != Organiser::Operator {
            return Err(Refusal::Forbidden("only the operator names directors; send the operator token".into()).into());
        }
        let name = name.trim().to_owned();
        if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
            return Err(Refusal::BadRequest(
                "the director needs a name of 1 to 100 characters, e.g. {\"name\": \"Dana\"}".into(),
            )
            .into());
        }
        let token = SeatToken::random();
        let hash = token.hash();
        let id = id.clone();
        let (tid, shown) = (id.to_string(), name.clone());
        self.store
            .transaction(move |tx| {
                tx.tournament(&id)?.ok_or_else(|| Refusal::UnknownTournament(id.to_string()))?;
                tx.insert_director(&hash, &id, &name, now)?;
                Ok::<_, StewardError>(())
            })
            .await?;
        Ok(NamedDirector { tournament: tid, name: shown, token: token.reveal().to_owned() })
    }
}

/// The game of a planned slot: the tournament's options, the players seated.
pub(super) fn game_of(
    variant: VariantId,
    options: &std::collections::BTreeMap<String, serde_json::Value>,
    players: &[TournamentPlayerRow],
    seated: &[usize],
) -> NewGame {
    NewGame {
        variant: variant.name().to_owned(),
        options: options.clone(),
        seats: seated
            .iter()
            .map(|&p| NewSeat {
                openpgp_key: players[p].openpgp_key.clone(),
                name: players[p].name.clone(),
                email: players[p].email.clone(),
                public_key: players[p].public_key.clone(),
                time_zone: None,
            })
            .collect(),
        invite: false,
    }
}

/// The result that gives the seats in `out` nothing: the others win together
/// (one other: it wins); in a game scored in points, the others share the
/// points of the game's own agreed draw.
pub(super) fn forfeit_result(tx: &Tx<'_>, game: &crate::ids::GameId, out: SeatSet) -> Result<GameResult, StewardError> {
    let g = crate::steward::load(tx, game.as_str())?;
    let n = g.seats.len() as u8;
    let others: SeatSet = (0..n).map(Seat::new).filter(|s| !out.contains(*s)).collect();
    let draw = g.rules.agreed_draw(&g.row.state).map_err(crate::steward::internal)?;
    if let GameResult::Points { points, .. } = draw.outcome.result {
        let shared: Vec<u8> = (0..usize::from(n))
            .map(|i| if others.contains(Seat::new(i as u8)) { points[i].max(1) } else { 0 })
            .collect();
        return Ok(GameResult::points(&shared));
    }
    Ok(match others.len() {
        0 => GameResult::Draw,
        1 => GameResult::Win(others.iter().next().unwrap_or(Seat::new(0))),
        _ => GameResult::Winners(others),
    })
}
