//! Which moves a side may enter (`docs/rules/fairschach.md` §2), computed by the rules
//! file's own definition on shakmaty's board and attack tables, never by asking
//! shakmaty to accept a position: in Fairschach the side "not to move" may be in
//! check, or both may be.

use std::fmt;

use shakmaty::{Bitboard, Board, CastlingSide, Color, File, Piece, Rank, Role, Square, attacks};

use super::position::{FsPosition, side_index};

/// A move as fixed at entry: start square, target square and promotion piece (§2).
/// Castling is the king's two-square step. `Display` is UCI.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FsMove {
    /// Start square.
    pub from: Square,
    /// Target square (the king's, for castling).
    pub to: Square,
    /// The piece a pawn promotes to.
    pub promotion: Option<Role>,
}

impl FsMove {
    fn sort_key(self) -> (u32, u32, u32, u32, u8) {
        let p = self.promotion.map_or(0, |r| r.char() as u8);
        (
            u32::from(self.from.file()),
            u32::from(self.from.rank()),
            u32::from(self.to.file()),
            u32::from(self.to.rank()),
            p,
        )
    }
}

impl PartialOrd for FsMove {
    fn partial_cmp(&self, other: &FsMove) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Byte order of the UCI text.
impl Ord for FsMove {
    fn cmp(&self, other: &FsMove) -> std::cmp::Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

impl fmt::Display for FsMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(role) = self.promotion {
            write!(f, "{}", role.char())?;
        }
        Ok(())
    }
}

/// How a move is carried out in a given position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An ordinary move or capture of a standing piece (`captured`).
    Normal { captured: Option<Role> },
    /// En passant: the pawn passed over stands on `victim`.
    EnPassant { victim: Square },
    /// Castling; the rook goes from `rook_from` to `rook_to`.
    Castle { rook_from: Square, rook_to: Square },
}

/// A move with the facts about it in one position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Classified {
    pub mv: FsMove,
    pub color: Color,
    pub role: Role,
    pub kind: Kind,
}

impl Classified {
    /// The piece as it arrives (a promoting pawn arrives as its new piece).
    pub fn arriving(&self) -> Piece {
        Piece { color: self.color, role: self.mv.promotion.unwrap_or(self.role) }
    }

    /// Whether this is a pawn's two-square step.
    pub fn is_double_step(&self) -> bool {
        self.role == Role::Pawn && u32::from(self.mv.from.rank()).abs_diff(u32::from(self.mv.to.rank())) == 2
    }

    /// The square a double-stepping pawn passes over.
    pub fn passed_square(&self) -> Square {
        Square::from_coords(
            self.mv.from.file(),
            Rank::new((u32::from(self.mv.from.rank()) + u32::from(self.mv.to.rank())) / 2),
        )
    }
}

/// Whether `color`'s king is attacked on `board` (no king: not attacked).
pub(crate) fn in_check(board: &Board, color: Color) -> bool {
    board.king_of(color).is_some_and(|k| board.attacks_to(k, !color, board.occupied()).any())
}

/// Whether `sq` is attacked by `by` on `board`.
pub(crate) fn attacked(board: &Board, sq: Square, by: Color) -> bool {
    board.attacks_to(sq, by, board.occupied()).any()
}

/// The rank a side's pawns promote on.
fn last_rank(color: Color) -> Rank {
    match color {
        Color::White => Rank::Eighth,
        Color::Black => Rank::First,
    }
}

/// The rook's start and target squares for a castling move of `color`'s king to `king_to`.
pub(crate) fn castling_rook(color: Color, king_to: Square) -> (Square, Square) {
    let rank = color.fold_wb(Rank::First, Rank::Eighth);
    let side = if king_to.file() == File::G { CastlingSide::KingSide } else { CastlingSide::QueenSide };
    let rook_from = match side {
        CastlingSide::KingSide => Square::from_coords(File::H, rank),
        CastlingSide::QueenSide => Square::from_coords(File::A, rank),
    };
    (rook_from, Square::from_coords(side.rook_to_file(), rank))
}

/// Every move of standard chess for `color` on `board`, with the given castling
/// rights and en-passant square, before the king-safety and king-capture rules.
/// Castling is included only when it is fully legal (FIDE's conditions).
pub(crate) fn pseudo_moves(board: &Board, color: Color, castling: Bitboard, ep: Option<Square>) -> Vec<Classified> {
    let mut out = Vec::with_capacity(48);
    let own = board.by_color(color);
    let enemy = board.by_color(!color);
    let occupied = board.occupied();
    let mut push = |from: Square, to: Square, role: Role, kind: Kind| {
        if role == Role::Pawn && to.rank() == last_rank(color) {
            for promo in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                out.push(Classified { mv: FsMove { from, to, promotion: Some(promo) }, color, role, kind });
            }
        } else {
            out.push(Classified { mv: FsMove { from, to, promotion: None }, color, role, kind });
        }
    };
    for from in own {
        let Some(role) = board.role_at(from) else { continue };
        if role == Role::Pawn {
            let dir: i32 = color.fold_wb(8, -8);
            let one = Square::new((i32::from(from) + dir) as u32);
            if !occupied.contains(one) {
                push(from, one, role, Kind::Normal { captured: None });
                let start_rank = color.fold_wb(Rank::Second, Rank::Seventh);
                if from.rank() == start_rank {
                    let two = Square::new((i32::from(from) + 2 * dir) as u32);
                    if !occupied.contains(two) {
                        push(from, two, role, Kind::Normal { captured: None });
                    }
                }
            }
            let targets = attacks::pawn_attacks(color, from);
            for to in targets & enemy {
                push(from, to, role, Kind::Normal { captured: board.role_at(to) });
            }
            if let Some(ep) = ep
                && targets.contains(ep)
                && !occupied.contains(ep)
            {
                let victim = Square::from_coords(ep.file(), from.rank());
                if board.piece_at(victim) == Some(Piece { color: !color, role: Role::Pawn }) {
                    push(from, ep, role, Kind::EnPassant { victim });
                }
            }
        } else {
            let piece = Piece { color, role };
            for to in attacks::attacks(from, piece, occupied) & !own {
                push(from, to, role, Kind::Normal { captured: board.role_at(to) });
            }
        }
    }
    castling_moves(board, color, castling, &mut out);
    out
}

fn castling_moves(board: &Board, color: Color, castling: Bitboard, out: &mut Vec<Classified>) {
    let rank = color.fold_wb(Rank::First, Rank::Eighth);
    let king = Square::from_coords(File::E, rank);
    if board.piece_at(king) != Some(Piece { color, role: Role::King }) || attacked(board, king, !color) {
        return;
    }
    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        let king_to = Square::from_coords(side.king_to_file(), rank);
        let (rook_from, rook_to) = castling_rook(color, king_to);
        if !castling.contains(rook_from) || board.piece_at(rook_from) != Some(Piece { color, role: Role::Rook }) {
            continue;
        }
        let between = attacks::between(king, rook_from);
        let king_path = attacks::between(king, king_to).with(king_to);
        if (between & board.occupied()).any() || king_path.into_iter().any(|sq| attacked(board, sq, !color)) {
            continue;
        }
        out.push(Classified {
            mv: FsMove { from: king, to: king_to, promotion: None },
            color,
            role: Role::King,
            kind: Kind::Castle { rook_from, rook_to },
        });
    }
}

/// Plays one classified move alone on `board` with standard chess rules and returns
/// the pieces removed (for the halfmove counter).
pub(crate) fn play_alone(board: &mut Board, c: &Classified) -> Vec<(Square, Piece)> {
    let mut removed = Vec::new();
    board.discard_piece_at(c.mv.from);
    match c.kind {
        Kind::Normal { .. } => {}
        Kind::EnPassant { victim } => {
            if let Some(p) = board.remove_piece_at(victim) {
                removed.push((victim, p));
            }
        }
        Kind::Castle { rook_from, rook_to } => {
            board.discard_piece_at(rook_from);
            board.set_piece_at(rook_to, Piece { color: c.color, role: Role::Rook });
        }
    }
    if let Some(p) = board.remove_piece_at(c.mv.to) {
        removed.push((c.mv.to, p));
    }
    board.set_piece_at(c.mv.to, c.arriving());
    removed
}

/// Why a move of standard chess is not one a side may enter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exclusion {
    CapturesKing,
    LeavesKingInCheck,
    Paused,
}

impl Exclusion {
    pub fn explain(self, from: Square) -> String {
        match self {
            Exclusion::CapturesKing => "it would capture the king, which no move may do (§2 rule 1)".to_owned(),
            Exclusion::LeavesKingInCheck => "your king would be attacked after this move (§2 rule 2)".to_owned(),
            Exclusion::Paused => format!(
                "the piece on {from} moved in the last pair and is paused in this one (FSR 9); \
                 move another piece"
            ),
        }
    }
}

/// The moves of standard chess that obey §2's two rules: no king capture, own king
/// not attacked after the move alone. Excluded moves come back with the reason.
pub(crate) fn standard_moves(
    board: &Board,
    color: Color,
    castling: Bitboard,
    ep: Option<Square>,
) -> (Vec<Classified>, Vec<(Classified, Exclusion)>) {
    let mut legal = Vec::new();
    let mut excluded = Vec::new();
    for c in pseudo_moves(board, color, castling, ep) {
        if board.role_at(c.mv.to) == Some(Role::King) && board.color_at(c.mv.to) == Some(!color) {
            excluded.push((c, Exclusion::CapturesKing));
            continue;
        }
        let mut after = board.clone();
        play_alone(&mut after, &c);
        if in_check(&after, color) {
            excluded.push((c, Exclusion::LeavesKingInCheck));
        } else {
            legal.push(c);
        }
    }
    (legal, excluded)
}

/// What `color` may enter in `pos`, with the pause applied and lifted as §2 says.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub legal: Vec<Classified>,
    pub excluded: Vec<(Classified, Exclusion)>,
}

/// The moves `color` may enter in `pos`. `pauses_apply` is false under `pause = off`.
pub(crate) fn entry(pos: &FsPosition, color: Color, pauses_apply: bool) -> Entry {
    if let super::position::Mode::Normal(to_move) = pos.mode
        && to_move != color
    {
        return Entry { legal: Vec::new(), excluded: Vec::new() };
    }
    let (standard, mut excluded) = standard_moves(&pos.board, color, pos.castling, pos.ep[side_index(color)]);
    let paused = if pauses_apply { pos.paused & pos.board.by_color(color) } else { Bitboard::EMPTY };
    if paused.is_empty() || in_check(&pos.board, color) {
        return Entry { legal: standard, excluded };
    }
    let (held, free): (Vec<Classified>, Vec<Classified>) = standard.iter().partition(|c| paused.contains(c.mv.from));
    // §2, Decision: a pause that leaves no move is lifted for the whole pair.
    if free.is_empty() && !held.is_empty() {
        return Entry { legal: standard, excluded };
    }
    excluded.extend(held.into_iter().map(|c| (c, Exclusion::Paused)));
    Entry { legal: free, excluded }
}

/// The move in SAN, as it would be played by `c.color` on `board`; `rivals` are the
/// other moves of that side there, for disambiguation. No check marks: in
/// Fairschach a check depends on the other move of the pair.
pub(crate) fn san(board: &Board, c: &Classified, rivals: &[Classified]) -> String {
    let mv = c.mv;
    if let Kind::Castle { rook_from, .. } = c.kind {
        return if rook_from.file() == File::H { "O-O".to_owned() } else { "O-O-O".to_owned() };
    }
    let capture = matches!(c.kind, Kind::EnPassant { .. }) || board.color_at(mv.to) == Some(!c.color);
    let mut s = String::new();
    if c.role == Role::Pawn {
        if capture || mv.from.file() != mv.to.file() {
            s.push(mv.from.file().char());
        }
    } else {
        s.push(c.role.upper_char());
        let others: Vec<&Classified> =
            rivals.iter().filter(|o| o.role == c.role && o.mv.to == mv.to && o.mv.from != mv.from).collect();
        if !others.is_empty() {
            let file_unique = others.iter().all(|o| o.mv.from.file() != mv.from.file());
            let rank_unique = others.iter().all(|o| o.mv.from.rank() != mv.from.rank());
            if file_unique {
                s.push(mv.from.file().char());
            } else if rank_unique {
                s.push(mv.from.rank().char());
            } else {
                s.push_str(&mv.from.to_string());
            }
        }
    }
    if capture {
        s.push('x');
    }
    s.push_str(&mv.to.to_string());
    if let Some(p) = mv.promotion {
        s.push('=');
        s.push(p.upper_char());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(fen: &str, color: Color) -> Vec<String> {
        let pos = FsPosition::from_fen(fen).unwrap();
        let mut m: Vec<FsMove> = entry(&pos, color, true).legal.iter().map(|c| c.mv).collect();
        m.sort();
        m.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn start_position_has_twenty_moves_per_side() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1";
        assert_eq!(moves(start, Color::White).len(), 20);
        assert_eq!(moves(start, Color::Black).len(), 20);
        assert_eq!(moves(start, Color::White)[0], "a2a3");
    }

    #[test]
    fn san_disambiguates() {
        let board: Board = "4k3/8/8/8/8/8/8/N1N1K3".parse().unwrap();
        let (legal, _) = standard_moves(&board, Color::White, Bitboard::EMPTY, None);
        let b2: Vec<String> = legal.iter().filter(|c| c.mv.to == Square::B3).map(|c| san(&board, c, &legal)).collect();
        assert_eq!(b2, ["Nab3", "Ncb3"]);
    }
}
