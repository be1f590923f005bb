//! A game as the API shows it: public facts for everyone, a seat's own pending
//! move only for that seat.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Loaded, Refusal, Steward, StewardError, internal};
use crate::rules::Seat;
use crate::store::{Tx, time_text};

/// The game option that holds spectators back: how many resolved turns behind
/// the game they see it (a steward setting, kept apart from the variant's
/// options, which refuse names they do not know).
pub const SPECTATOR_DELAY_OPTION: &str = "spectator_delay";

/// The largest spectator delay, in turns.
pub const MAX_SPECTATOR_DELAY: u32 = 100;

/// Takes [`SPECTATOR_DELAY_OPTION`] out of a new game's options: a number of
/// turns from 0 to [`MAX_SPECTATOR_DELAY`] (as a number or as text); 0 when
/// absent.
///
/// # Errors
/// Anything else.
pub(super) fn take_spectator_delay(raw: &mut BTreeMap<String, serde_json::Value>) -> Result<u32, Refusal> {
    let value = match raw.remove(SPECTATOR_DELAY_OPTION) {
        None => return Ok(0),
        Some(serde_json::Value::Number(n)) => n.as_u64(),
        Some(serde_json::Value::String(s)) => s.trim().parse::<u64>().ok(),
        Some(_) => None,
    };
    value.filter(|&n| n <= u64::from(MAX_SPECTATOR_DELAY)).map(|n| n as u32).ok_or_else(|| {
        Refusal::BadRequest(format!(
            "option {SPECTATOR_DELAY_OPTION} is the number of turns spectators see the game behind: a whole number from 0 to {MAX_SPECTATOR_DELAY}"
        ))
    })
}

/// How many of a game's `resolved` turns `viewer` sees: all for a seat and
/// once the game is over; for spectators all but the game's last
/// `spectator_delay`.
pub(super) fn visible_turns(g: &Loaded, resolved: usize, viewer: Option<Seat>) -> usize {
    if viewer.is_some() || g.row.outcome.is_some() {
        resolved
    } else {
        resolved.saturating_sub(g.row.spectator_delay as usize)
    }
}

/// One seat in a game view.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SeatView {
    /// The seat's name in the variant.
    pub seat: String,
    /// The player.
    pub player: String,
    /// Whether the seat owes a move for the current turn.
    pub owes_move: bool,
    /// When the seat's move for the current turn was accepted (not what it is).
    pub moved_at: Option<String>,
    /// Whether the seat offers a draw.
    pub draw_offer: bool,
    /// Commit-reveal games: when the seat committed for the current turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed_at: Option<String>,
    /// Commit-reveal games: the seat's commitment for the current turn (hex).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// The seat's own pending move: present only for the seat's own token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_move: Option<String>,
    /// The seat's clock (games with a time control).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<super::SeatClockView>,
    /// The move number the seat owes now (`12...`), when it owes one (issue 32).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_number: Option<String>,
    /// The seat's partner, in a game played in teams (issue 32).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partner: Option<String>,
    /// The fingerprint of the seat's registered OpenPGP key (issue 33).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openpgp_fingerprint: Option<String>,
}

/// One move of a resolved turn.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct MoveView {
    /// Its number in the game's record (`12.`, `12...`): the move number
    /// players see (issue 32); absent for a move still pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    /// Whose.
    pub seat: String,
    /// In SAN.
    #[serde(rename = "move")]
    pub notation: String,
    /// `played`, `first` or `struck`.
    pub status: String,
    /// Why it was struck.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A resolved turn.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct TurnView {
    /// The turn number.
    pub turn: u32,
    /// The record's number of the turn's first move (`12.`, `12...`): the
    /// move number players see for this turn (issue 32).
    pub move_number: Option<String>,
    /// The moves, in seat order.
    pub moves: Vec<MoveView>,
    /// Remarks such as same-square meetings.
    pub notes: Vec<String>,
    /// The state after the turn.
    pub state: String,
    /// When it was resolved.
    pub resolved_at: String,
}

/// The end of a game.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct OutcomeView {
    /// `1-0`, `0-1`, `1/2-1/2` (two seats) or a description.
    pub result: String,
    /// The winning seat, if any.
    pub winner: Option<String>,
    /// Why it ended.
    pub reason: String,
}

/// A game.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct GameView {
    /// The id.
    pub id: String,
    /// The variant.
    pub variant: String,
    /// Its options (the variant's).
    #[schema(value_type = Object)]
    pub options: serde_json::Map<String, serde_json::Value>,
    /// Every option the game runs by, the defaults it was created without
    /// included (`Variant::effective_options`): name to value.
    #[schema(value_type = Object)]
    pub effective_options: serde_json::Map<String, serde_json::Value>,
    /// How moves prove their seat: `token` or `signature`.
    pub auth: String,
    /// How moves stay secret: `hold` or `commit-reveal`.
    pub secrecy: String,
    /// What the seats owing a move send now: `move`, or in commit-reveal games
    /// `commit` until all have committed, then `reveal`; `none` once over.
    pub phase: String,
    /// The state string now.
    pub state: String,
    /// The turn now owed: the count of resolved turns plus one, the number
    /// moves and envelopes are sent with (`{"turn": N}`).
    pub turn: u32,
    /// The move number owed now as the game's record counts it (`12.`,
    /// `12...`; issue 32): of the first seat to move; `None` once over.
    pub move_number: Option<String>,
    /// The seats, in seat order.
    pub seats: Vec<SeatView>,
    /// The teams, in a game played in teams: the seats of each (issue 32).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<Vec<String>>,
    /// Seats that owe a move now.
    pub to_move: Vec<String>,
    /// Seats whose move for this turn is in.
    pub moved: Vec<String>,
    /// Set when the game has ended.
    pub outcome: Option<OutcomeView>,
    /// The resolved turns, in order.
    pub history: Vec<TurnView>,
    /// When the game was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// The transcript head, signed by the steward.
    pub transcript_head: Option<super::Head>,
    /// The time control (games with one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<super::ClockView>,
    /// How many resolved turns spectators see the game behind (0: none).
    pub spectator_delay: u32,
    /// Whether this view is held back by that delay: `state` and `history`
    /// stop before the latest turns (spectators only, while the game runs).
    pub delayed: bool,
}

pub(super) fn game_view(
    steward: &Steward,
    tx: &Tx<'_>,
    g: &Loaded,
    viewer: Option<Seat>,
) -> Result<GameView, StewardError> {
    let id = &g.row.id;
    let over = g.row.outcome.is_some();
    let to_move =
        if over { crate::rules::SeatSet::EMPTY } else { g.rules.seats_to_move(&g.row.state).map_err(internal)? };
    let mut current = tx.moves_of_turn(id, g.row.turn)?;
    // Only the viewer's own pending move is opened, in memory.
    for m in &mut current {
        if Some(m.seat) == viewer {
            *m = steward.open_held(g, m.clone())?;
        }
    }
    let commitments = tx.commitments_of_turn(id, g.row.turn)?;
    let phase = match g.row.secrecy {
        _ if over => "none",
        crate::protocol::policy::Secrecy::Hold => "move",
        crate::protocol::policy::Secrecy::CommitReveal => {
            if to_move.iter().all(|s| commitments.iter().any(|c| c.seat == s)) { "reveal" } else { "commit" }
        }
    };
    let (clock, mut seat_clocks) = steward.clock_views(tx, g)?;
    let all_moves = tx.moves_of_game(id)?;
    // The record's numbers, of the settled moves every viewer may see.
    let numbered = numbered_moves(g, &all_moves);
    let end = crate::letters::record::end_of(&numbered);
    let owing: Vec<Seat> = to_move.iter().collect();
    let seats: Vec<SeatView> = g
        .seats
        .iter()
        .map(|s| {
            let mine = current.iter().find(|m| m.seat == s.seat);
            let committed = commitments.iter().find(|c| c.seat == s.seat);
            SeatView {
                committed_at: committed.map(|c| time_text(c.received_at)),
                commitment: committed.map(|c| c.commitment.clone()),
                seat: g.seat_name(s.seat),
                player: s.name.clone(),
                owes_move: to_move.contains(s.seat) && mine.is_none(),
                moved_at: mine.map(|m| time_text(m.received_at)),
                draw_offer: s.draw_offer,
                pending_move: mine.filter(|_| viewer == Some(s.seat)).map(|m| m.notation.clone()),
                clock: seat_clocks.get_mut(s.seat.index()).and_then(Option::take),
                move_number: to_move.contains(s.seat).then(|| super::numbers::owed(end, &owing, s.seat)).flatten(),
                partner: partner_of(g, s.seat).map(|p| g.seat_name(p)),
                openpgp_fingerprint: s
                    .openpgp_key
                    .as_deref()
                    .and_then(|k| crate::protocol::openpgp::key::PlayerPgpKey::parse(k).ok())
                    .map(|k| k.fingerprint().to_owned()),
            }
        })
        .collect();
    let turns = tx.turns(id)?;
    let visible = visible_turns(g, turns.len(), viewer);
    // Spectators held back see the state after the last turn shown to them.
    let state = turns.get(visible).map_or_else(|| g.row.state.clone(), |t| t.state_before.clone());
    // Indexed once: a long game's view costs its length, not its square (issue 37).
    let (mut labels, mut first_labels) = (BTreeMap::new(), BTreeMap::new());
    for n in &numbered {
        labels.entry((n.mv.turn, n.mv.seat)).or_insert_with(|| n.label());
        first_labels.entry(n.mv.turn).or_insert_with(|| n.label());
    }
    let mut moves_by_turn: BTreeMap<u32, Vec<&crate::store::MoveRow>> = BTreeMap::new();
    for m in &all_moves {
        moves_by_turn.entry(m.turn).or_default().push(m);
    }
    let history = turns
        .into_iter()
        .take(visible)
        .map(|t| TurnView {
            turn: t.turn,
            move_number: first_labels.remove(&t.turn),
            moves: moves_by_turn
                .remove(&t.turn)
                .unwrap_or_default()
                .into_iter()
                .map(|m| MoveView {
                    number: labels.get(&(m.turn, m.seat)).cloned(),
                    seat: g.seat_name(m.seat),
                    notation: m.notation.clone(),
                    status: m.status.clone(),
                    reason: m.reason.clone(),
                })
                .collect(),
            notes: t.notes,
            state: t.state_after,
            resolved_at: time_text(t.resolved_at),
        })
        .collect();
    let outcome = g.row.outcome.map(|o| OutcomeView {
        result: super::self_score(g, o).unwrap_or_else(|| g.outcome_text(o)),
        winner: g.winner_names(o),
        reason: o.reason.as_str().to_owned(),
    });
    Ok(GameView {
        id: id.to_string(),
        variant: g.row.variant.name().to_owned(),
        options: g.row.options.iter().map(|(k, v)| (k.to_owned(), serde_json::Value::from(v))).collect(),
        effective_options: g.rules.effective_options().into_iter().map(|(k, v)| (k.to_owned(), v.into())).collect(),
        auth: g.row.auth.name().to_owned(),
        secrecy: g.row.secrecy.name().to_owned(),
        phase: phase.to_owned(),
        delayed: state != g.row.state,
        state,
        turn: g.row.turn,
        move_number: owing.first().and_then(|&s| super::numbers::owed(end, &owing, s)),
        teams: g.rules.teams().iter().map(|t| t.iter().map(|s| g.seat_name(s)).collect()).collect(),
        to_move: seats.iter().filter(|s| s.owes_move).map(|s| s.seat.clone()).collect(),
        moved: seats.iter().filter(|s| s.moved_at.is_some()).map(|s| s.seat.clone()).collect(),
        seats,
        outcome,
        history,
        created_at: time_text(g.row.created_at),
        updated_at: time_text(g.row.updated_at),
        transcript_head: tx.signed_head(id)?.map(|(seq, hash, signature)| super::Head { seq, hash, signature }),
        clock,
        spectator_delay: g.row.spectator_delay,
    })
}

/// The settled moves of `moves` (pending ones are not in the record yet),
/// numbered as the game's record numbers them.
pub(super) fn numbered_moves(g: &Loaded, moves: &[crate::store::MoveRow]) -> Vec<crate::letters::record::Numbered> {
    let recorded = moves
        .iter()
        .filter_map(|m| {
            let result = crate::letters::record::settled_result(&m.status, m.reason.as_deref())?;
            Some(crate::letters::record::RecordMove {
                turn: m.turn,
                seat: m.seat,
                seat_name: g.seat_name(m.seat),
                notation: m.notation.clone(),
                result,
            })
        })
        .collect();
    crate::letters::record::numbered(recorded)
}

/// The other seat of `seat`'s team, in a game played in teams of two.
pub(super) fn partner_of(g: &Loaded, seat: Seat) -> Option<Seat> {
    g.rules.teams().into_iter().find(|t| t.contains(seat)).and_then(|t| t.iter().find(|&s| s != seat))
}
