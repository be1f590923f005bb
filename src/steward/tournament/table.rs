//! What anyone may see of a tournament: players, games, standings, the
//! crosstable; and its exports (CSV, PGN).

use serde::Serialize;

use crate::clock::leave::LeavePolicy;
use crate::ids::{GameId, TournamentId};
use crate::rules::{Outcome, Score};
use crate::steward::{Refusal, Steward, StewardError, internal, load};
use crate::store::{TournamentGameRow, Tx, time_text};
use crate::tournament::standings::{ScoredGame, Standing, standings};

/// A tournament as anyone may see it (no addresses, no tokens).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TournamentView {
    /// The id.
    pub id: String,
    /// The name.
    pub name: String,
    /// The variant.
    pub variant: String,
    /// `inviting`, `running` or `finished`.
    #[schema(schema_with = tournament_status)]
    pub status: String,
    /// Double round.
    pub double: bool,
    /// Round by round.
    pub rounds: bool,
    /// Team mode.
    pub teams: bool,
    /// How much of a player's leave stops the clocks of its games:
    /// `"allowed"`, `"none"` or `{"capped_days": N}` (days a year).
    pub leave: LeavePolicy,
    /// The seats of the game, in order.
    pub seats: Vec<String>,
    /// Whether the variant writes PGN (then `games.pgn` holds every game).
    pub has_pgn: bool,
    /// The end date, if any (RFC 3339).
    pub ends_at: Option<String>,
    /// The players, in order.
    pub players: Vec<TournamentPlayerView>,
    /// The table, best first (players whose games were all cancelled left out).
    pub standings: Vec<StandingView>,
    /// `crosstable[i][j]`: player i's scores in the counted games with player j.
    pub crosstable: Vec<Vec<CrossCell>>,
    /// The planned games.
    pub games: Vec<TournamentGameView>,
    /// Games counted in the standings.
    pub finished: usize,
    /// Games being played.
    pub running: usize,
    /// Games not created yet (later rounds, or invitations pending).
    pub planned: usize,
    /// Games cancelled or aborted (not counted).
    pub cancelled: usize,
    /// The names of its directors.
    pub directors: Vec<String>,
}

/// A player as the tournament shows them.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TournamentPlayerView {
    /// The player's number (0..).
    pub player: usize,
    /// The name.
    pub name: String,
    /// When they withdrew, if they did.
    pub withdrawn_at: Option<String>,
}

/// A line of the table, with the player's name.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct StandingView {
    /// The line as the table computes it.
    #[serde(flatten)]
    pub line: Standing,
    /// The player's name.
    pub name: String,
}

/// One cell of the crosstable: the scores, in game order ("1", "½", "0").
#[derive(Clone, Debug, Default, Serialize, utoipa::ToSchema)]
pub struct CrossCell {
    /// Each counted game's score of the row's player against the column's.
    pub scores: Vec<String>,
}

/// A planned game.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TournamentGameView {
    /// Its place in the plan.
    pub slot: usize,
    /// The round.
    pub round: u32,
    /// The game, once created.
    pub game: Option<String>,
    /// The player in each seat.
    pub players: Vec<usize>,
    /// The players' names, in seat order.
    pub names: Vec<String>,
    /// `planned`, `running`, `finished`, `cancelled` (a withdrawal) or `aborted`.
    #[schema(schema_with = game_status)]
    pub status: String,
    /// The result in words, when finished.
    pub result: Option<String>,
    /// Each seat's score, when it counts.
    #[schema(value_type = Option<Vec<f64>>)]
    pub scores: Option<Vec<Score>>,
}

/// The schema of [`TournamentView::status`].
fn tournament_status() -> utoipa::openapi::schema::Object {
    super::one_of(["inviting", "running", "finished"], "`inviting`, `running` or `finished`.")
}

/// The schema of [`TournamentGameView::status`].
fn game_status() -> utoipa::openapi::schema::Object {
    super::one_of(
        ["planned", "running", "finished", "cancelled", "aborted"],
        "`planned`, `running`, `finished`, `cancelled` (a withdrawal) or `aborted`.",
    )
}

/// Whether an ended game is left out: aborted (by a director's tool).
fn aborted(o: &Outcome) -> bool {
    o.reason.as_str() == "aborted"
}

/// The score of each seat of a planned game that counts; `None` otherwise.
pub(super) fn game_scores(tx: &Tx<'_>, g: &TournamentGameRow) -> Result<Option<(Vec<Score>, String)>, StewardError> {
    let Some(id) = &g.game else { return Ok(None) };
    if g.cancelled {
        return Ok(None);
    }
    let loaded = load(tx, id.as_str())?;
    let Some(o) = loaded.row.outcome else { return Ok(None) };
    if aborted(&o) {
        return Ok(None);
    }
    let mut history = tx.history(id)?;
    history.push(loaded.row.state.clone());
    let scores = loaded.rules.tournament_scores(&history, &o).map_err(internal)?;
    Ok(Some((scores, loaded.outcome_text(o))))
}

impl Steward {
    /// The tournament `id` as anyone may see it, in the caller's transaction.
    pub(crate) fn tournament_view_in(&self, tx: &Tx<'_>, id: &TournamentId) -> Result<TournamentView, StewardError> {
        let t = tx.tournament(id)?.ok_or_else(|| Refusal::UnknownTournament(id.to_string()))?;
        let players = tx.tournament_players(id)?;
        let planned = tx.tournament_games(id)?;
        let n = players.len();
        let mut scored = Vec::new();
        let mut games = Vec::new();
        let (mut finished, mut running, mut waiting, mut cancelled) = (0, 0, 0, 0);
        let mut cross = vec![vec![CrossCell::default(); n]; n];
        for g in &planned {
            let names =
                g.players.iter().map(|&p| players.get(p).map_or_else(String::new, |x| x.name.clone())).collect();
            let counted = game_scores(tx, g)?;
            let over = match &g.game {
                Some(id) => tx.game(id)?.and_then(|r| r.outcome),
                None => None,
            };
            let (status, result) = match (&g.game, g.cancelled, &counted, over) {
                (None, true, _, _) | (Some(_), true, _, _) => ("cancelled", None),
                (None, false, _, _) => ("planned", None),
                (Some(_), false, Some((_, text)), _) => ("finished", Some(text.clone())),
                (Some(_), false, None, Some(_)) => ("aborted", None),
                (Some(_), false, None, None) => ("running", None),
            };
            match status {
                "finished" => finished += 1,
                "running" => running += 1,
                "planned" => waiting += 1,
                _ => cancelled += 1,
            }
            if let Some((scores, _)) = &counted {
                for (i, &p) in g.players.iter().enumerate() {
                    for &q in &g.players {
                        if p != q && p < n && q < n {
                            cross[p][q].scores.push(scores[i].to_string());
                        }
                    }
                }
                scored.push(ScoredGame { players: g.players.clone(), scores: scores.clone() });
            }
            games.push(TournamentGameView {
                slot: g.slot,
                round: g.round,
                game: g.game.as_ref().map(ToString::to_string),
                players: g.players.clone(),
                names,
                status: status.to_owned(),
                result,
                scores: counted.map(|(s, _)| s),
            });
        }
        // A player who withdrew with every game cancelled has left the table.
        let gone =
            |p: usize| players[p].withdrawn_at.is_some() && !scored.iter().any(|g: &ScoredGame| g.players.contains(&p));
        let table = standings(n, &scored)
            .into_iter()
            .filter(|s| s.player < n && !gone(s.player))
            .map(|line| StandingView { name: players[line.player].name.clone(), line })
            .collect();
        let rulebook = t
            .variant
            .parse::<crate::rules::VariantId>()
            .ok()
            .and_then(|v| v.rulebook(&crate::rules::Options::new()).ok());
        let seats =
            rulebook.as_ref().map(|r| r.seat_names().iter().map(|s| (*s).to_owned()).collect()).unwrap_or_default();
        let has_pgn = rulebook.as_ref().is_some_and(|r| crate::rules::record::writes_pgn(r.as_ref()));
        Ok(TournamentView {
            id: t.id.to_string(),
            name: t.name.clone(),
            variant: t.variant.clone(),
            status: t.status.clone(),
            double: t.spec["double"].as_bool().unwrap_or(false),
            rounds: t.spec["rounds"].as_bool().unwrap_or(false),
            teams: t.spec["teams"].as_bool().unwrap_or(false),
            // Read as the clocks read it: a tournament created without one allows leave.
            leave: serde_json::from_value::<Option<LeavePolicy>>(t.spec["leave"].clone())
                .ok()
                .flatten()
                .unwrap_or_default(),
            seats,
            has_pgn,
            ends_at: t.ends_at.map(time_text),
            players: players
                .iter()
                .map(|p| TournamentPlayerView {
                    player: p.player,
                    name: p.name.clone(),
                    withdrawn_at: p.withdrawn_at.map(time_text),
                })
                .collect(),
            standings: table,
            crosstable: cross,
            games,
            finished,
            running,
            planned: waiting,
            cancelled,
            directors: tx.directors_of(id)?,
        })
    }

    /// The tournament `id` as anyone may see it.
    ///
    /// # Errors
    /// An unknown tournament; store failures.
    pub async fn tournament(&self, id: String) -> Result<TournamentView, StewardError> {
        let id = parse_id(&id)?;
        let this = self.clone();
        self.store.transaction(move |tx| this.tournament_view_in(tx, &id)).await
    }

    /// Every tournament, newest first (for the desk).
    ///
    /// # Errors
    /// Store failures.
    pub async fn tournaments(&self) -> Result<Vec<TournamentView>, StewardError> {
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                let mut out = Vec::new();
                for t in tx.tournaments()? {
                    out.push(this.tournament_view_in(tx, &t.id)?);
                }
                Ok(out)
            })
            .await
    }

    /// The standings as CSV: rank, player, name, points, tie-break, wins,
    /// played, withdrawn, then one column per player with the crosstable cell.
    ///
    /// # Errors
    /// An unknown tournament; store failures.
    pub async fn tournament_csv(&self, id: String) -> Result<String, StewardError> {
        let v = self.tournament(id).await?;
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let mut out = String::from("rank,player,name,points,tiebreak,wins,played,withdrawn");
        for p in &v.players {
            out.push(',');
            out.push_str(&quote(&format!("{}. {}", p.player + 1, p.name)));
        }
        out.push('\n');
        for s in &v.standings {
            let p = s.line.player;
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{}",
                s.line.rank,
                p + 1,
                quote(&s.name),
                serde_json::to_string(&s.line.points).unwrap_or_default(),
                serde_json::to_string(&s.line.tiebreak).unwrap_or_default(),
                s.line.wins,
                s.line.played,
                v.players[p].withdrawn_at.is_some()
            ));
            for q in 0..v.players.len() {
                out.push(',');
                if p == q {
                    out.push('x');
                } else {
                    out.push_str(&quote(&v.crosstable[p][q].scores.join(" ")));
                }
            }
            out.push('\n');
        }
        Ok(out)
    }

    /// One PGN of every game of the tournament (as spectators see them), in
    /// plan order; `None` when its variant writes no PGN.
    ///
    /// # Errors
    /// An unknown tournament; store failures.
    pub async fn tournament_pgn(&self, id: String) -> Result<Option<String>, StewardError> {
        let v = self.tournament(id).await?;
        if !v.has_pgn {
            return Ok(None);
        }
        let mut out = String::new();
        for g in v.games.iter().filter(|g| g.status != "cancelled") {
            let Some(game) = &g.game else { continue };
            if let Some(pgn) = self.record(game.clone(), None).await?.pgn {
                out.push_str(pgn.trim_end());
                out.push_str("\n\n");
            }
        }
        Ok(Some(out))
    }
}

/// A tournament id from a path.
pub(crate) fn parse_id(id: &str) -> Result<TournamentId, StewardError> {
    id.parse().map_err(|_| Refusal::UnknownTournament(id.to_owned()).into())
}

/// A game id from a request body.
pub(super) fn parse_game(id: &str) -> Result<GameId, StewardError> {
    id.parse().map_err(|_| Refusal::UnknownGame(id.to_owned()).into())
}
