//! The board of a game as a picture shows it: the position now, the moves of the
//! last resolved turn, and the seats that owe a move, read in one transaction.

use super::{Refusal, Steward, StewardError, internal, load};
use crate::render::svg::Marks;
use crate::rules::{BoardView, Seat, SeatSet};

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
    /// number from 1: that seat at the bottom) or, without one, from the first
    /// seat's side. Public: the
    /// last turn's moves are known to everyone once it is resolved, and a pending
    /// move never shows.
    ///
    /// # Errors
    /// Unknown game; a seat the game does not have.
    pub async fn board(&self, game: String, seat: Option<String>) -> Result<BoardPicture, StewardError> {
        self.store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let viewer = match seat.as_deref() {
                    Some(name) => Some(g.rules.seat(name).map_err(|e| Refusal::BadRequest(e.to_string()))?),
                    None => None,
                };
                let view = g.rules.board(&g.row.state).map_err(internal)?;
                let to_move = if g.row.outcome.is_some() {
                    SeatSet::EMPTY
                } else {
                    g.rules.seats_to_move(&g.row.state).map_err(internal)?
                };
                let last_moves = match tx.turns(&g.row.id)?.last() {
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
                    viewer: viewer.unwrap_or(Seat::new(0)),
                    seat_names: g.rules.seat_names(),
                })
            })
            .await
    }
}
