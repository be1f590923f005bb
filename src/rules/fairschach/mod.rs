//! Fairschach: chess in which White and Black move at the same time
//! (`docs/rules/fairschach.md`, W. and U. Zühlke, rules FSR 1–9, with our Decisions).
//!
//! Both seats owe a move in every pair; [`Variant::resolve`] works the pair in by
//! first-move right (§3b) or simultaneous execution (§4), sets the pauses of the
//! next pair (§5) and, with `normal_below`, switches to normal chess (§7).

mod moves;
mod pair;
mod pgn;
mod position;
#[cfg(test)]
mod tests;
pub(crate) mod tour;

use std::fmt;

use shakmaty::Color;

pub use moves::FsMove;
pub use position::{FsPosition, Mode};

use super::chess::{board_view, cell, color_of, occupant, seat_of};
use super::notation::{self, CHESS_BOARD, Candidate, Castle, Position, Refusal, Sq};
use super::{
    BoardView, EndReason, MoveError, MovePath, MoveText, Options, OptionsError, Outcome, Resolution, RulesError, Seat,
    SeatMove, SeatResult, SeatSet, StateError, Variant, VariantId,
};
use moves::{Classified, Entry, Exclusion, Kind, entry, in_check, san};

/// Which pieces are paused in the next pair (§5, option `pause`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum PauseRule {
    /// Every piece but the king that moved and still stands (FSR 9 as written).
    #[default]
    Moved,
    /// Only such a piece that stands attacked (the author's practice).
    Capturable,
    /// No pauses.
    Off,
}

impl PauseRule {
    /// The option value.
    pub const fn as_str(self) -> &'static str {
        match self {
            PauseRule::Moved => "moved",
            PauseRule::Capturable => "capturable",
            PauseRule::Off => "off",
        }
    }
}

impl fmt::Display for PauseRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for PauseRule {
    type Err = OptionsError;

    fn from_str(s: &str) -> Result<PauseRule, OptionsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "moved" => Ok(PauseRule::Moved),
            "capturable" => Ok(PauseRule::Capturable),
            "off" => Ok(PauseRule::Off),
            _ => {
                Err(OptionsError::BadValue { name: "pause", value: s.to_owned(), expected: "moved, capturable or off" })
            }
        }
    }
}

/// The Fairschach rulebook with a game's options (§9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fairschach {
    /// The pause rule (default `moved`).
    pub pause: PauseRule,
    /// The FSR 8 switch: `Some(n)` switches to normal chess at n pieces or fewer.
    pub normal_below: Option<u32>,
}

/// The seat that plays White.
pub const WHITE: Seat = super::chess::WHITE;
/// The seat that plays Black.
pub const BLACK: Seat = super::chess::BLACK;

impl Fairschach {
    /// The rulebook from a game's options: `pause` and `normal_below`.
    ///
    /// # Errors
    /// An unknown option or a value it does not take.
    pub fn new(options: &Options) -> Result<Fairschach, OptionsError> {
        options.only(VariantId::Fairschach, &["pause", "normal_below"])?;
        let pause = options.get("pause").map(str::parse).transpose()?.unwrap_or_default();
        let normal_below = match options.get("normal_below").map(str::trim) {
            None | Some("off") => None,
            Some(n) => Some(n.parse::<u32>().map_err(|_| OptionsError::BadValue {
                name: "normal_below",
                value: n.to_owned(),
                expected: "off or a number of pieces",
            })?),
        };
        Ok(Fairschach { pause, normal_below })
    }

    fn entry(&self, pos: &FsPosition, color: Color) -> Entry {
        entry(pos, color, self.pause != PauseRule::Off)
    }

    /// The move `mv` of `color` classified in `pos`, if `color` may enter it.
    fn classify(&self, pos: &FsPosition, seat: Seat, mv: FsMove) -> Result<Classified, RulesError> {
        let e = self.entry(pos, color_of(seat));
        e.legal.iter().find(|c| c.mv == mv).copied().ok_or_else(|| RulesError::Move {
            seat,
            seat_name: self.seat_name(seat),
            error: MoveError::Illegal {
                text: mv.to_string(),
                reason: e
                    .excluded
                    .iter()
                    .find(|(c, _)| c.mv == mv)
                    .map_or_else(|| "not a move of this side here".to_owned(), |(c, why)| why.explain(c.mv.from)),
            },
        })
    }

    /// Whether `color` has a legal move (after lifting pauses, which cannot take the
    /// last move away: §2's lifting rule restores them).
    fn has_move(&self, pos: &FsPosition, color: Color) -> bool {
        !self.entry(pos, color).legal.is_empty()
    }
}

fn to_candidate(c: &Classified) -> Candidate<FsMove> {
    Candidate {
        mv: c.mv,
        piece: c.role.into(),
        from: c.mv.from.into(),
        to: c.mv.to.into(),
        promotion: c.mv.promotion.map(Into::into),
        castle: match c.kind {
            Kind::Castle { rook_from, .. } => Some(Castle { long: rook_from < c.mv.from, rook: rook_from.into() }),
            _ => None,
        },
        capture: matches!(c.kind, Kind::Normal { captured: Some(_) } | Kind::EnPassant { .. }),
    }
}

fn refusal(why: Exclusion, c: &Classified) -> Refusal {
    match why {
        Exclusion::LeavesKingInCheck => Refusal::ExposesKing,
        other => Refusal::Other(other.explain(c.mv.from)),
    }
}

/// The moves of standard chess on `board` that leave `color`'s own king attacked
/// or capture a king, with the reason: the refusals of chess, shared with it.
pub(crate) fn refused_standard(
    board: &shakmaty::Board,
    color: Color,
    castling: shakmaty::Bitboard,
    ep: Option<shakmaty::Square>,
) -> Vec<(Candidate<FsMove>, Refusal)> {
    moves::standard_moves(board, color, castling, ep)
        .1
        .iter()
        .map(|(c, why)| (to_candidate(c), refusal(*why, c)))
        .collect()
}

impl Variant for Fairschach {
    type State = FsPosition;
    type Move = FsMove;

    fn id(&self) -> VariantId {
        VariantId::Fairschach
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &["white", "black"]
    }

    fn start(&self) -> FsPosition {
        FsPosition::start()
    }

    fn parse_state(&self, text: &str) -> Result<FsPosition, StateError> {
        FsPosition::from_fen(text)
    }

    fn seats_to_move(&self, state: &FsPosition) -> SeatSet {
        match state.mode {
            Mode::Simultaneous => SeatSet::first(2),
            Mode::Normal(color) => SeatSet::only(seat_of(color)),
        }
    }

    fn legal_moves(&self, state: &FsPosition, seat: Seat) -> Vec<FsMove> {
        let mut moves: Vec<FsMove> = self.entry(state, color_of(seat)).legal.iter().map(|c| c.mv).collect();
        moves.sort_unstable();
        moves
    }

    fn parse_move(&self, state: &FsPosition, seat: Seat, text: &str) -> Result<FsMove, MoveError> {
        let color = color_of(seat);
        let e = self.entry(state, color);
        let legal: Vec<Candidate<FsMove>> = e.legal.iter().map(to_candidate).collect();
        let occupant = |sq: Sq| occupant(&state.board, color, sq);
        let refused = || e.excluded.iter().map(|(c, why)| (to_candidate(c), refusal(*why, c))).collect();
        let san = |cand: &Candidate<FsMove>| {
            e.legal
                .iter()
                .find(|c| c.mv == cand.mv)
                .map_or_else(|| cand.mv.to_string(), |c| san(&state.board, c, &e.legal))
        };
        let position = Position {
            board: &CHESS_BOARD,
            legal,
            in_check: in_check(&state.board, color),
            occupant: &occupant,
            refused: &refused,
            san: &san,
        };
        notation::find(text, &position)
    }

    fn notation(&self, state: &FsPosition, seat: Seat, mv: FsMove) -> String {
        let e = self.entry(state, color_of(seat));
        e.legal.iter().find(|c| c.mv == mv).map_or_else(|| mv.to_string(), |c| san(&state.board, c, &e.legal))
    }

    fn advance(
        &self,
        state: &FsPosition,
        moves: &[(Seat, FsMove)],
    ) -> Result<Resolution<FsPosition, FsMove>, RulesError> {
        let moves = super::moves_by_seat(self, self.seats_to_move(state), moves)?;
        let classified =
            moves.iter().map(|&(seat, mv)| self.classify(state, seat, mv)).collect::<Result<Vec<_>, RulesError>>()?;
        match state.mode {
            Mode::Normal(_) => {
                let (next, notation) = pair::normal_move(state, classified[0])?;
                let (seat, mv) = moves[0];
                Ok(Resolution {
                    state: next,
                    moves: vec![SeatMove { seat, mv, notation, result: SeatResult::Played }],
                    notes: Vec::new(),
                    outcome: None,
                })
            }
            Mode::Simultaneous => {
                let worked = pair::work_pair(state, self.pause, self.normal_below, classified[0], classified[1])?;
                let seat_moves = moves
                    .iter()
                    .zip(worked.sides)
                    .map(|(&(seat, mv), side)| SeatMove { seat, mv, notation: side.notation, result: side.result })
                    .collect();
                Ok(Resolution { state: worked.position, moves: seat_moves, notes: worked.notes, outcome: None })
            }
        }
    }

    /// §6, in its order: checkmate, stalemate, insufficient material, threefold
    /// repetition, fifty-move rule.
    fn outcome(&self, history: &[FsPosition], state: &FsPosition) -> Option<Outcome> {
        let sides: &[Color] = match state.mode {
            Mode::Simultaneous => &[Color::White, Color::Black],
            Mode::Normal(Color::White) => &[Color::White],
            Mode::Normal(Color::Black) => &[Color::Black],
        };
        let status: Vec<(Color, bool, bool)> =
            sides.iter().map(|&c| (c, in_check(&state.board, c), self.has_move(state, c))).collect();
        let mated: Vec<Color> = status.iter().filter(|(_, check, moves)| *check && !moves).map(|s| s.0).collect();
        match mated[..] {
            [_, _] => return Some(Outcome::draw(EndReason::BothCheckmated)),
            [loser] => return Some(Outcome::win(seat_of(!loser), EndReason::Checkmate)),
            _ => {}
        }
        if status.iter().any(|(_, check, moves)| !check && !moves) {
            return Some(Outcome::draw(EndReason::Stalemate));
        }
        if insufficient_material(&state.board) {
            return Some(Outcome::draw(EndReason::InsufficientMaterial));
        }
        if history.iter().filter(|h| h.is_repetition_of(state)).count() + 1 >= 3 {
            return Some(Outcome::draw(EndReason::ThreefoldRepetition));
        }
        let limit = match state.mode {
            Mode::Simultaneous => 50,
            Mode::Normal(_) => 100,
        };
        if state.halfmove >= limit {
            return Some(Outcome::draw(EndReason::FiftyMoveRule));
        }
        None
    }

    /// As in chess: a pair or move that moves a pawn or removes a piece changes
    /// the position for good, so only positions since can repeat a later one. The
    /// halfmove counter is at least the turns since (one per pair or move, doubled
    /// at the FSR 8 switch), so the last `halfmove` states reach back to that
    /// position; one more is kept as margin.
    fn repetition_window(&self, state: &FsPosition) -> Option<usize> {
        usize::try_from(state.halfmove).ok().map(|turns| turns.saturating_add(1))
    }

    fn board(&self, state: &FsPosition) -> BoardView {
        board_view(&state.board, state.paused.into_iter().map(cell).collect())
    }

    fn move_path(&self, before: Option<&FsPosition>, canonical: &str) -> Option<MovePath> {
        super::chess::uci_path(before.map(|s| &s.board), canonical)
    }

    fn move_text(&self, text: &str) -> Option<MoveText> {
        notation::is_move_text(&CHESS_BOARD, text).then_some(MoveText::Move)
    }

    fn move_forms(&self, state: &FsPosition, seat: Seat) -> String {
        let e = self.entry(state, color_of(seat));
        let (pos, e) = if e.legal.is_empty() {
            let start = FsPosition::start();
            let e = self.entry(&start, color_of(seat));
            (start, e)
        } else {
            (state.clone(), e)
        };
        let legal: Vec<Candidate<FsMove>> = e.legal.iter().map(to_candidate).collect();
        let san = |cand: &Candidate<FsMove>| {
            e.legal
                .iter()
                .find(|c| c.mv == cand.mv)
                .map_or_else(|| cand.mv.to_string(), |c| san(&pos.board, c, &e.legal))
        };
        let position = Position {
            board: &CHESS_BOARD,
            legal,
            in_check: false,
            occupant: &|_| None,
            refused: &Vec::new,
            san: &san,
        };
        notation::forms(&position)
    }

    fn pgn(&self, record: &super::GameRecord) -> Option<String> {
        Some(pgn::pgn(self, record))
    }

    fn guide(&self) -> Option<&'static str> {
        Some(include_str!("../../../docs/rules/fairschach.md"))
    }

    /// §9: `pause` and `normal_below`.
    fn effective_options(&self) -> Vec<(&'static str, String)> {
        vec![("pause", self.pause.to_string()), ("normal_below", super::legend::off_or(self.normal_below))]
    }

    fn legend(&self) -> Vec<String> {
        let mut lines = vec![super::legend::CHESS_PIECES.to_owned(), super::legend::WHITE_UPPER.to_owned()];
        if self.pause != PauseRule::Off {
            lines.push("* before a piece: paused this pair, it may not move (§5)".to_owned());
        }
        lines
    }
}

/// §6.3 (Decision): as lichess and python-chess define it — neither side has more
/// than a lone king, king and one knight, or king and bishops all on one colour.
fn insufficient_material(board: &shakmaty::Board) -> bool {
    let heavy = board.pawns() | board.rooks() | board.queens();
    if heavy.any() {
        return false;
    }
    let minors = board.knights() | board.bishops();
    if board.knights().any() {
        // Only K+N v K: one knight and nothing else but kings.
        return minors.count() == 1;
    }
    let bishops = board.bishops();
    (bishops & shakmaty::Bitboard::DARK_SQUARES).is_empty() || (bishops & shakmaty::Bitboard::LIGHT_SQUARES).is_empty()
}
