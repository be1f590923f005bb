//! The legal moves over HTTP (issue 32, point 5): `GET /api/games/{id}/legal`,
//! for a seat (its token, or `?seat=`) or for a spectator (the seats to move).
//! The same list as the game page embeds for its script and as
//! `fairsteward rules <variant> legal` prints: the variant's `legal_moves` in
//! the state now, each with the notation the variant writes.

use serde::Serialize;

use super::command::Gate;
use super::{Credential, Loaded, Refusal, Steward, StewardError, internal};
use crate::letters::record::RecordEnd;
use crate::rules::Seat;

/// A legal move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"canonical": "e2e4", "notation": "e4"}))]
pub struct LegalMove {
    /// The canonical text (what `rules … legal` prints).
    pub canonical: String,
    /// The players' notation.
    pub notation: String,
}

/// One seat's legal moves now.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SeatLegal {
    /// The seat's name.
    pub seat: String,
    /// Whether it owes a move now. A seat that does not has no moves listed,
    /// and `note` says who is to move.
    pub owes_move: bool,
    /// The move number it owes (`12...`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_number: Option<String>,
    /// Its legal moves, in the variant's order (as `rules … legal` prints them).
    pub moves: Vec<LegalMove>,
    /// Why the list is empty, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The answer of `GET /api/games/{id}/legal`.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({
    "game": "8KQ2ZJ", "turn": 3, "move_number": "2.", "state": "…",
    "seats": [{"seat": "white", "owes_move": true, "move_number": "2.",
               "moves": [{"canonical": "g1f3", "notation": "Nf3"}, {"canonical": "d2d4", "notation": "d4"}]}]
}))]
pub struct LegalView {
    /// The game.
    pub game: String,
    /// The turn now owed (what a move is sent with).
    pub turn: u32,
    /// The move number owed now (of the first seat to move).
    pub move_number: Option<String>,
    /// The state the moves are legal in.
    pub state: String,
    /// The seats asked about: the one named or proven, or (spectators) every
    /// seat to move.
    pub seats: Vec<SeatLegal>,
}

impl Steward {
    /// The legal moves now of the seat `credential` proves, of the seat named
    /// `seat`, or (neither) of every seat to move. Spectators are refused in a
    /// game that shows them its position with a delay: the moves now would show
    /// the position now.
    ///
    /// # Errors
    /// Unknown game or seat; a wrong credential; a game over; a spectator of a
    /// delayed game.
    pub async fn legal(
        &self,
        game: String,
        credential: Option<Credential>,
        seat: Option<String>,
    ) -> Result<LegalView, StewardError> {
        let now = self.now();
        self.command(game, Gate::Look(credential), now, move |c| {
            let g = &c.game;
            if let Some(o) = g.row.outcome {
                return Err(Refusal::GameOver(format!("{}; it has no legal moves", g.outcome_text(o))).into());
            }
            let named = match seat.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                None => None,
                Some(name) => Some(super::answers::seat_named(g, name).ok_or_else(|| {
                    let names: Vec<String> = g.seats.iter().map(|s| g.seat_name(s.seat)).collect();
                    Refusal::BadRequest(format!(
                        "game {} has no seat {name:?}; ask ?seat= one of {}",
                        g.row.id,
                        names.join(", ")
                    ))
                })?),
            };
            if c.seat.is_none() && g.row.spectator_delay > 0 {
                return Err(Refusal::Forbidden(format!(
                    "game {} shows spectators its position {} turn(s) behind, so its legal moves now are for its seats: send a seat token (Authorization: Bearer <token>)",
                    g.row.id, g.row.spectator_delay
                ))
                .into());
            }
            let owing: Vec<Seat> = g.rules.seats_to_move(&g.row.state).map_err(internal)?.iter().collect();
            let end = super::numbers::record_end(c.tx, g)?;
            let asked: Vec<Seat> = match (named, c.seat) {
                (Some(s), _) => vec![s],
                (None, Some(s)) => vec![s],
                (None, None) => owing.clone(),
            };
            let seats = asked.into_iter().map(|s| seat_legal(g, &owing, end, s)).collect::<Result<_, _>>()?;
            Ok(LegalView {
                game: g.row.id.to_string(),
                turn: g.row.turn,
                move_number: owing.first().and_then(|&s| super::numbers::owed(end, &owing, s)),
                state: g.row.state.clone(),
                seats,
            })
        })
        .await
    }
}

/// The legal moves of `seat` in the game's state now.
fn seat_legal(g: &Loaded, owing: &[Seat], end: RecordEnd, seat: Seat) -> Result<SeatLegal, StewardError> {
    let name = g.seat_name(seat);
    if !owing.contains(&seat) {
        let names: Vec<String> = owing.iter().map(|&s| g.seat_name(s)).collect();
        return Ok(SeatLegal {
            note: Some(format!(
                "{name} is not to move in turn {}; {} to move",
                g.row.turn,
                if names.is_empty() { "nobody".to_owned() } else { names.join(" and ") }
            )),
            seat: name,
            owes_move: false,
            move_number: None,
            moves: Vec::new(),
        });
    }
    let state = &g.row.state;
    let moves: Vec<LegalMove> = g
        .rules
        .legal_moves(state, seat)
        .map_err(internal)?
        .into_iter()
        .map(|canonical| {
            let notation = g.rules.notation(state, seat, &canonical).unwrap_or_else(|_| canonical.clone());
            LegalMove { canonical, notation }
        })
        .collect();
    let note = moves.is_empty().then(|| format!("{name} has no legal move"));
    Ok(SeatLegal { seat: name, owes_move: true, move_number: super::numbers::owed(end, owing, seat), moves, note })
}
