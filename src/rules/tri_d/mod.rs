//! 3D chess (Tri-D) on the "Star Trek" board: three fixed 4×4 main boards and
//! four movable 2×2 attack boards (`docs/rules/tri-d-chess.md`, the tournament rules
//! of M. Klein and J. Meder with our Decisions).
//!
//! Every piece move is a chess move on the 6×10 projection of the set; it may
//! land on any square of the target column, on any level (the projection
//! rule, §4). A move is either a piece move or one attack-board move (§7).
//!
//! One idea per module: `geometry` for squares, columns, pins and the tables
//! the generator reads (§1–2); `state` for the position and its state string
//! (§11); `moves` for generation, attacks and playing a move (§4–8);
//! `notation` for move text (§10); `picture` for the board the renderers draw.
//! This file holds the rulebook, the end of the game (§9) and the [`Variant`]
//! implementation.
//!
//! ```
//! use fairsteward::rules::{Options, VariantId};
//!
//! let rules = VariantId::TriDChess.rulebook(&Options::new()).unwrap();
//! let start = rules.start();
//! assert_eq!(rules.perft(&start, 2), Ok(400));
//! let white = rules.seat("white").unwrap();
//! let r = rules.resolve(&[], &start, &[(white, "Nc3N".into())]).unwrap();
//! assert!(r.state.starts_with("nbbn/pppp/4/4/4/4/4/2N1/4/4/PPPP/NBB1 "));
//! ```

mod geometry;
mod moves;
mod notation;
mod picture;
mod state;
#[cfg(test)]
mod tests;

pub use geometry::{Level, Pin, Square};
pub use moves::{MoveKind, TdMove};
pub use state::{Colour, Kind, TdState};

use super::{
    BoardView, EndReason, MoveError, MovePath, MoveText, Options, OptionsError, Outcome, Resolution, RulesError, Seat,
    SeatMove, SeatResult, SeatSet, StateError, Variant, VariantId,
};

/// The seat that plays White, first to move.
pub const WHITE: Seat = Seat::new(0);
/// The seat that plays Black.
pub const BLACK: Seat = Seat::new(1);

fn seat_of(colour: Colour) -> Seat {
    Seat::new(colour as u8)
}

/// The Tri-D rulebook. It has no options (§13): every gap in the rules text is
/// closed by a Decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TriDChess;

impl TriDChess {
    /// The rulebook, refusing any option.
    ///
    /// # Errors
    /// Any option given.
    pub fn new(options: &Options) -> Result<TriDChess, OptionsError> {
        options.only(VariantId::TriDChess, &[])?;
        Ok(TriDChess)
    }

    /// §9 **Decision**: a dead position is drawn automatically with K v K,
    /// K+B v K and K+N v K.
    fn dead(st: &TdState) -> bool {
        let kings = st.bits.kind[Kind::King as usize];
        let others = st.bits.occupied() & !kings;
        match others.count_ones() {
            0 => true,
            1 => st.bits.kind[Kind::Bishop as usize] & others != 0 || st.bits.kind[Kind::Knight as usize] & others != 0,
            _ => false,
        }
    }

    /// The move whose canonical text is `text`, legal in `st`.
    fn canonical_move(st: &TdState, text: &str) -> Option<TdMove> {
        let mut found = None;
        moves::for_each_legal(st, &mut |m| {
            if m.to_string() == text {
                found = Some(m);
                return true;
            }
            false
        });
        found
    }
}

impl Variant for TriDChess {
    type State = TdState;
    type Move = TdMove;

    fn id(&self) -> VariantId {
        VariantId::TriDChess
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &["white", "black"]
    }

    fn start(&self) -> TdState {
        TdState::start()
    }

    fn parse_state(&self, text: &str) -> Result<TdState, StateError> {
        TdState::read(text.trim()).map_err(|problems| StateError {
            variant: VariantId::TriDChess,
            text: text.to_owned(),
            problems,
        })
    }

    fn seats_to_move(&self, state: &TdState) -> SeatSet {
        SeatSet::only(seat_of(state.side))
    }

    fn legal_moves(&self, state: &TdState, seat: Seat) -> Vec<TdMove> {
        if seat != seat_of(state.side) {
            return Vec::new();
        }
        let mut moves = moves::legal_moves(state);
        // The key is worked out once per move, not per comparison.
        moves.sort_by_cached_key(TdMove::order_key);
        moves
    }

    fn count_legal_moves(&self, state: &TdState, seat: Seat) -> usize {
        if seat == seat_of(state.side) { moves::count_legal(state) } else { 0 }
    }

    fn parse_move(&self, state: &TdState, seat: Seat, text: &str) -> Result<TdMove, MoveError> {
        if seat != seat_of(state.side) {
            return Err(MoveError::Illegal {
                text: text.to_owned(),
                reason: format!("it is {}'s move", state::colour_name(state.side)),
            });
        }
        notation::find(state, text)
    }

    fn notation(&self, state: &TdState, _seat: Seat, mv: TdMove) -> String {
        notation::short(state, mv)
    }

    fn advance(&self, state: &TdState, moves: &[(Seat, TdMove)]) -> Result<Resolution<TdState, TdMove>, RulesError> {
        let moves = super::moves_by_seat(self, self.seats_to_move(state), moves)?;
        let (seat, mv) = moves[0];
        if !moves::is_legal(state, mv) {
            return Err(RulesError::Move {
                seat,
                seat_name: self.seat_name(seat),
                error: MoveError::Illegal { text: mv.to_string(), reason: "not a legal move in this position".into() },
            });
        }
        let notation = notation::short(state, mv);
        Ok(Resolution {
            state: moves::play(state, mv),
            moves: vec![SeatMove { seat, mv, notation, result: SeatResult::Played }],
            notes: Vec::new(),
            outcome: None,
        })
    }

    fn next_state(&self, state: &TdState, moves: &[(Seat, TdMove)]) -> Result<TdState, RulesError> {
        match moves {
            [(seat, mv)] if *seat == seat_of(state.side) && moves::is_legal(state, *mv) => Ok(moves::play(state, *mv)),
            _ => self.advance(state, moves).map(|r| r.state),
        }
    }

    /// §9: checkmate, stalemate, the dead positions of the Decision, threefold
    /// repetition and the fifty-move rule (both automatic, Decision), in that
    /// order, so a mate on the hundredth ply stands.
    fn outcome(&self, history: &[TdState], state: &TdState) -> Option<Outcome> {
        if !moves::has_legal_move(state) {
            return Some(if moves::side_in_check(state) {
                Outcome::win(seat_of(state.side.other()), EndReason::Checkmate)
            } else {
                Outcome::draw(EndReason::Stalemate)
            });
        }
        if TriDChess::dead(state) {
            return Some(Outcome::draw(EndReason::InsufficientMaterial));
        }
        let key = |s: &TdState| s.repetition_key(moves::ep_capture_legal(s));
        let now = key(state);
        if history.iter().filter(|h| key(h) == now).count() + 1 >= 3 {
            return Some(Outcome::draw(EndReason::ThreefoldRepetition));
        }
        if state.halfmove >= 100 {
            return Some(Outcome::draw(EndReason::FiftyMoveRule));
        }
        None
    }

    /// Only positions since the last capture, pawn step, promotion or corner
    /// promotion pending can repeat a later one, and the halfmove counter counts
    /// the plies since: a capture lowers the material for good, a promotion the
    /// pawns, and no pawn ever goes back (its own steps go forward, and a board
    /// carrying a piece moves only forward or sideways for its owner, section 7),
    /// so a pawn's step leaves the pawns' progress ahead of every earlier
    /// position with the same material. One more state is kept as margin, as
    /// in chess.
    fn repetition_window(&self, state: &TdState) -> Option<usize> {
        usize::try_from(state.halfmove).ok().map(|plies| plies.saturating_add(1))
    }

    fn board(&self, state: &TdState) -> BoardView {
        picture::view(state)
    }

    fn move_path(&self, before: Option<&TdState>, canonical: &str) -> Option<MovePath> {
        let mv = match before {
            Some(st) => TriDChess::canonical_move(st, canonical)?,
            None => notation::read_canonical(canonical)?,
        };
        // A board move is taken hold of by its board's squares: its path lies
        // on the pin it goes to, which is not drawn before it stands there.
        let grip = if before.is_some() { picture::grip(&mv) } else { Vec::new() };
        Some(MovePath { grip, ..picture::path(before, &mv) })
    }

    /// §9 **Decision**: the seat whose time runs out loses, but the game is
    /// drawn if the opponent has only his king; both at once is a draw.
    fn timeout(&self, state: &TdState, late: SeatSet) -> Option<Outcome> {
        let first = late.iter().next()?;
        if late.len() >= 2 {
            return Some(Outcome::draw(EndReason::Time));
        }
        let opponent = if first == WHITE { Colour::Black } else { Colour::White };
        if state.bits.colour[opponent.index()].count_ones() == 1 {
            return Some(Outcome::draw(EndReason::Time));
        }
        Some(Outcome::win(seat_of(opponent), EndReason::Time))
    }

    fn move_text(&self, text: &str) -> Option<MoveText> {
        notation::is_move_text(text).then_some(MoveText::Move)
    }

    fn move_forms(&self, state: &TdState, seat: Seat) -> String {
        if seat == seat_of(state.side) { notation::forms(state) } else { notation::forms(&TdState::start()) }
    }

    fn guide(&self) -> Option<&'static str> {
        Some(include_str!("../../../docs/rules/tri-d-chess.md"))
    }

    /// 3D chess has no options.
    fn effective_options(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    fn legend(&self) -> Vec<String> {
        vec![
            super::legend::CHESS_PIECES.to_owned(),
            super::legend::WHITE_UPPER.to_owned(),
            "the levels side by side, named on the right: W White's main board, N the neutral one, B Black's; \
             QL1 to QL6 and KL1 to KL6 the attack boards on the queen's or king's side pins they stand on"
                .to_owned(),
        ]
    }
}
