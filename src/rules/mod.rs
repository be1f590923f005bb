//! The rules of every game the steward referees: pure, deterministic game logic.
//!
//! Nothing here does I/O, reads a clock, draws a random number or iterates a
//! `HashMap` into its output: `fairsteward verify` replays every resolution and
//! must get the same bytes. A game is a [`Variant`] value (the rulebook, with its
//! options already applied) plus a state string as its rules file defines it.
//!
//! # Turns
//! A *turn* is what the steward waits for. [`Variant::seats_to_move`] names the seats
//! that owe a move in a state: one seat in turn-based games, several at once in
//! simultaneous ones (Fairschach's pairs). When every such seat has entered a move,
//! [`Variant::resolve`] works them into the state together and says, per seat,
//! whether its move was [`SeatResult::Played`], played [`SeatResult::First`] or
//! [`SeatResult::Struck`]. Turn-based and simultaneous games go through that one path.
//!
//! # Adding a variant
//! A game is one module here. It provides, through [`Variant`]:
//! - **its rules**: the state string of its rules file (`start`, `parse_state`),
//!   the seats, `seats_to_move`, `legal_moves`, `advance`, `outcome`, and where
//!   they differ from two-seat chess `resignation`, `retire`, `timeout` and
//!   `agreed_draw`;
//! - **its notation**: `parse_move` (every form its rules file accepts, with the
//!   reason when a move is refused), `notation` (how a move is written back),
//!   `move_text` (what the mail door takes for a move) and `move_forms` (the
//!   forms, with examples, for help texts);
//! - **its board description**: `board` gives a [`BoardView`] over a
//!   [`BoardShape`] (cells with their outlines on one or more levels, holes left
//!   out, edge labels, and the turn that puts each seat at the bottom), and
//!   `move_path` the cells a move passes, captures and is taken hold of by
//!   ([`MovePath`]);
//! - **its piece set**: the [`PieceKind`]s on its board (chess pieces, draughts
//!   men and kings).
//!
//! Then add its name to [`VariantId`] and one arm to [`VariantId::rulebook`] (and
//! to [`VariantId::state_key`]). Nothing else changes: the steward, the doors, the
//! renderers, the templates and the CLI reach games only through [`DynVariant`]
//! and the registry, and `tests/it/house/variant_names.rs` fails if code outside this
//! folder names a variant. `docs/adding-a-game.md` lists the files in order.

mod board;
pub mod cell_path;
pub mod chess;
pub mod dame;
pub mod dreierschach;
mod error;
pub mod fairschach;
mod legend;
pub mod mailbox;
pub(crate) mod notation;
mod options;
mod outcome;
pub mod record;
mod registry;
mod score;
mod seat;
pub mod tour;
pub mod tri_d;
mod turn;
mod variant;
pub mod vierschach;
#[cfg(test)]
mod window_tests;

pub use board::{
    Army, BoardShape, BoardView, Cell, CellShape, EdgeLabel, MovePath, Outline, PieceKind, PieceView, Point,
    coordinate_move_cells,
};
pub use error::{MoveError, RulesError, StateError};
pub use options::{Options, OptionsError};
pub use outcome::{AgreedDraw, EndReason, GameResult, Outcome};
pub use record::{GameRecord, RecordedTurn};
pub use registry::{UnknownVariant, VariantId};
pub use score::Score;
pub use seat::{Seat, SeatSet};
pub use turn::{CheckedMove, MoveText, Resolution, SeatMove, SeatResult, TextResolution};
pub use variant::{DynVariant, Variant, elimination_scores, result_scores};
pub(crate) use variant::{moves_by_seat, read_canonical};
