//! The board of a game as a picture shows it: the position now, the moves of the
//! last resolved turn, and the seats that owe a move, read in one transaction.

use super::{Refusal, Steward, StewardError, internal, load};
use crate::render::svg::Marks;
use crate::rules::{BoardView, Seat, SeatSet};

/// What the board renderers need to draw a game now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardPicture {
    /// The position now.
    pub view: BoardView,
    /// The last resolved turn's moves (those played, not the struck ones), the
    /// seats that owe a move (none once the game is over), and the seat count.
    pub marks: Marks,
    /// Whether to draw it turned by half a turn: seen from the seat opposite the
    /// first (the second of two, the third of four).
    pub flipped: bool,
    /// The variant's seat names, in seat order (for the text renderer).
    pub seat_names: &'static [&'static str],
}

/// Whether `seat` of a game with `seats` sits opposite the first seat, and so
/// sees the board turned.
pub fn sits_opposite(seat: Seat, seats: usize) -> bool {
    seats.is_multiple_of(2) && seat.index() == seats / 2
}

impl Steward {
    /// The board of `game` now, seen from the side of `seat` (a seat name or its
    /// number from 1) or, without one, from the first seat's side. Public: the
    /// last turn's moves are known to everyone once it is resolved, and a pending
    /// move never shows.
    ///
    /// # Errors
    /// Unknown game; a seat the game does not have.
    pub async fn board(&self, game: String, seat: Option<String>) -> Result<BoardPicture, StewardError> {
        self.store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let seats = g.rules.seat_names().len();
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
                        .filter_map(|m| g.rules.move_cells(&m.canonical))
                        .collect(),
                    None => Vec::new(),
                };
                Ok(BoardPicture {
                    view,
                    marks: Marks { last_moves, to_move: to_move.iter().collect(), seats },
                    flipped: viewer.is_some_and(|s| sits_opposite(s, seats)),
                    seat_names: g.rules.seat_names(),
                })
            })
            .await
    }
}
