//! The board of a game as a picture shows it: the position now, the moves of the
//! last resolved turn, and the seats that owe a move, read in one transaction.

use super::view::visible_turns;
use super::{Credential, GameRefusal, Loaded, Refusal, Steward, StewardError, authenticate, internal, load};
use crate::render::svg::Marks;
use crate::rules::{BoardView, Seat, SeatSet};
use crate::store::Tx;

/// What the board renderers need to draw a game now.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardPicture {
    /// The position now.
    pub view: BoardView,
    /// The paths of the last resolved turn's moves (those played, not the struck
    /// ones) and the seats that owe a move (none once the game is over).
    pub marks: Marks,
    /// The seat whose view it is: that seat sits at the bottom.
    pub viewer: Seat,
    /// The variant's seat names, in seat order (for the text renderer).
    pub seat_names: &'static [&'static str],
}

impl Steward {
    /// The board of `game` now, seen from the side of `seat` (a seat name or its
    /// number from 1: that seat at the bottom) or, without one, from the side of
    /// the seat `credential` proves, else the first seat's. Public: the last
    /// turn's moves are known to everyone once it is resolved, and a pending
    /// move never shows; spectators (no credential) of a game with a spectator
    /// delay see the board as it stood that many turns ago.
    ///
    /// # Errors
    /// Unknown game; a seat the game does not have; a credential that is given
    /// but wrong.
    pub async fn board(
        &self,
        game: String,
        seat: Option<String>,
        credential: Option<Credential>,
    ) -> Result<BoardPicture, StewardError> {
        self.store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let own = match &credential {
                    Some(c) => Some(authenticate(tx, &g, Some(c))?),
                    None => None,
                };
                let side = match seat.as_deref() {
                    Some(name) => Some(g.rules.seat(name).map_err(|e| Refusal::BadGame(GameRefusal::Seat(e)))?),
                    None => own,
                };
                board_picture(tx, &g, side.unwrap_or(Seat::new(0)), own)
            })
            .await
    }
}

/// The board of `g` as `viewer` (a seat, or a spectator: `None`) may see it,
/// drawn from `side`'s side: the position after the turns shown to the viewer,
/// the moves played in the last of them marked, the seats to move barred.
pub(super) fn board_picture(
    tx: &Tx<'_>,
    g: &Loaded,
    side: Seat,
    viewer: Option<Seat>,
) -> Result<BoardPicture, StewardError> {
    let turns = tx.turns(&g.row.id)?;
    let visible = visible_turns(g, turns.len(), viewer);
    let state = turns.get(visible).map_or(g.row.state.as_str(), |t| t.state_before.as_str());
    let view = g.rules.board(state).map_err(internal)?;
    let to_move =
        if g.row.outcome.is_some() { SeatSet::EMPTY } else { g.rules.seats_to_move(state).map_err(internal)? };
    let last_moves = match visible.checked_sub(1).and_then(|i| turns.get(i)) {
        Some(turn) => tx
            .moves_of_turn(&g.row.id, turn.turn)?
            .iter()
            .filter(|m| m.status == "played" || m.status == "first")
            .filter_map(|m| g.rules.move_path(Some(&turn.state_before), &m.canonical))
            .collect(),
        None => Vec::new(),
    };
    Ok(BoardPicture {
        view,
        marks: Marks { last_moves, to_move: to_move.iter().collect() },
        viewer: side,
        seat_names: g.rules.seat_names(),
    })
}
