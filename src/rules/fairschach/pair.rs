//! Working a pair of moves into the position (`docs/rules/fairschach.md` §3–§5, §7).

use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

use super::PauseRule;
use super::moves::{Classified, Kind, attacked, in_check, play_alone, san, standard_moves};
use super::position::{FsPosition, Mode, side_index};
use crate::rules::notation::Piece as Named;
use crate::rules::{RulesError, SeatResult};

/// One side's move in a worked pair.
#[derive(Clone, Debug)]
pub(crate) struct SideResult {
    pub color: Color,
    pub notation: String,
    pub result: SeatResult,
}

/// A worked pair: the new position, each side's fate, and notes for the players.
#[derive(Clone, Debug)]
pub(crate) struct Worked {
    pub position: FsPosition,
    pub sides: Vec<SideResult>,
    pub notes: Vec<String>,
}

/// What happened on the board, for the bookkeeping of §4.7, §5 and §1.
struct Board2 {
    board: Board,
    /// Moves carried out, each classified in the position it was played in.
    played: Vec<Classified>,
    /// Whether any piece left the board.
    removed: bool,
}

/// §4.3: king, queen, rook, bishop = knight, pawn.
fn strength(role: Role) -> u8 {
    match role {
        Role::King => 5,
        Role::Queen => 4,
        Role::Rook => 3,
        Role::Bishop | Role::Knight => 2,
        Role::Pawn => 1,
    }
}

fn king_captured(sq: Square) -> RulesError {
    RulesError::Internal(format!("a king would be captured on {sq}, which the rules exclude"))
}

/// Works a pair of legal moves (classified in `pos`) into a simultaneous-mode position.
pub(crate) fn work_pair(
    pos: &FsPosition,
    pause: PauseRule,
    normal_below: Option<u32>,
    white: Classified,
    black: Classified,
) -> Result<Worked, RulesError> {
    let w_check = in_check(&pos.board, Color::White);
    let b_check = in_check(&pos.board, Color::Black);
    let mut notes = Vec::new();
    let (outcome, sides) = match (w_check, b_check) {
        // §3(b): the side in check moves first.
        (true, false) => first_move_right(pos, white, black)?,
        (false, true) => first_move_right(pos, black, white)?,
        // §3(a) and §3(c): simultaneous execution.
        _ => simultaneous(pos, white, black, &mut notes)?,
    };
    let mut position = bookkeeping(pos, pause, &outcome);
    if let Some(limit) = normal_below {
        switch_to_normal(&mut position, limit, &mut notes);
    }
    let mut sides = sides;
    sides.sort_by_key(|s| side_index(s.color));
    Ok(Worked { position, sides, notes })
}

/// §3(b): A, in check, moves first; B's move follows if still legal, else is struck.
fn first_move_right(pos: &FsPosition, a: Classified, b: Classified) -> Result<(Board2, Vec<SideResult>), RulesError> {
    let (a_legal, _) = standard_moves(&pos.board, a.color, pos.castling, pos.ep[side_index(a.color)]);
    let a_san = san(&pos.board, &a, &a_legal);
    let mut board = pos.board.clone();
    let removed_a = play_alone(&mut board, &a);
    if removed_a.iter().any(|(_, p)| p.role == Role::King) {
        return Err(king_captured(a.mv.to));
    }
    let castling = castling_after(pos.castling, &[a]);
    // B keeps its ep square from P only while the pawn that made it still stands;
    // A's double step in this pair gives B no ep right until the next pair.
    let b_ep = pos.ep[side_index(b.color)].filter(|&ep| {
        let pawn_rank = if ep.rank() == Rank::Third { Rank::Fourth } else { Rank::Fifth };
        board.piece_at(Square::from_coords(ep.file(), pawn_rank)) == Some(Piece { color: a.color, role: Role::Pawn })
    });
    let (b_legal, _) = standard_moves(&board, b.color, castling, b_ep);
    let mut played = vec![a];
    let b_result = match b_legal.iter().find(|c| c.mv == b.mv) {
        Some(&b1) => {
            let notation = san(&board, &b1, &b_legal);
            let removed_b = play_alone(&mut board, &b1);
            if removed_b.iter().any(|(_, p)| p.role == Role::King) {
                return Err(king_captured(b1.mv.to));
            }
            played.push(b1);
            let removed = !removed_a.is_empty() || !removed_b.is_empty();
            return Ok((
                Board2 { board, played, removed },
                vec![
                    SideResult { color: a.color, notation: a_san, result: SeatResult::First },
                    SideResult { color: b.color, notation, result: SeatResult::Played },
                ],
            ));
        }
        None => {
            let (b_rivals, _) = standard_moves(&pos.board, b.color, pos.castling, pos.ep[side_index(b.color)]);
            let notation = san(&pos.board, &b, &b_rivals);
            let reason = if board.piece_at(b.mv.from) != Some(Piece { color: b.color, role: b.role }) {
                format!("{a_san}, played first, took the {} on {}", Named::from(b.role).name(), b.mv.from)
            } else if in_check(&board, b.color) {
                format!("it does not answer the check after {a_san}, played first")
            } else {
                format!("it is not legal after {a_san}, played first")
            };
            SideResult { color: b.color, notation, result: SeatResult::Struck(reason) }
        }
    };
    Ok((
        Board2 { board, played, removed: !removed_a.is_empty() },
        vec![SideResult { color: a.color, notation: a_san, result: SeatResult::First }, b_result],
    ))
}

/// One piece on its way in a simultaneous pair.
#[derive(Clone, Copy)]
struct Mover {
    from: Square,
    to: Square,
    piece: Piece,
    /// The SAN of the move it belongs to, for notes.
    main: usize,
}

/// §4: both moves start and arrive at the same instant.
fn simultaneous(
    pos: &FsPosition,
    white: Classified,
    black: Classified,
    notes: &mut Vec<String>,
) -> Result<(Board2, Vec<SideResult>), RulesError> {
    let pair = [white, black];
    let sans: Vec<String> = pair
        .iter()
        .map(|c| {
            let (rivals, _) = standard_moves(&pos.board, c.color, pos.castling, pos.ep[side_index(c.color)]);
            san(&pos.board, c, &rivals)
        })
        .collect();
    // 1. Lift every moving piece: both main pieces and a castling rook.
    let mut movers = Vec::with_capacity(4);
    for (i, c) in pair.iter().enumerate() {
        movers.push(Mover { from: c.mv.from, to: c.mv.to, piece: c.arriving(), main: i });
        if let Kind::Castle { rook_from, rook_to } = c.kind {
            movers.push(Mover {
                from: rook_from,
                to: rook_to,
                piece: Piece { color: c.color, role: Role::Rook },
                main: i,
            });
        }
    }
    let vacated: Bitboard = movers.iter().map(|m| m.from).collect();
    let mut board = pos.board.clone();
    for m in &movers {
        board.discard_piece_at(m.from);
    }
    let lifted = board.clone();
    let mut removed = false;

    for m in &movers {
        let rival = movers.iter().find(|n| n.to == m.to && n.piece.color != m.piece.color);
        match rival {
            // 3. Same target: the stronger captures the weaker; equals both leave.
            Some(n) => {
                if m.piece.color == Color::Black {
                    continue; // the pair was settled when White's mover came up
                }
                removed = true;
                let (ms, ns) = (strength(m.piece.role), strength(n.piece.role));
                let sq = m.to;
                if ms == ns {
                    if m.piece.role == Role::King {
                        return Err(king_captured(sq));
                    }
                    notes.push(format!("{sq}: {} and {} take each other", sans[m.main], sans[n.main]));
                } else {
                    let (winner, loser) = if ms > ns { (m, n) } else { (n, m) };
                    if loser.piece.role == Role::King {
                        return Err(king_captured(sq));
                    }
                    board.set_piece_at(sq, winner.piece);
                    notes.push(format!(
                        "{sq}: {} takes {} {}",
                        sans[winner.main],
                        sans[loser.main],
                        Named::from(loser.piece.role).name()
                    ));
                }
            }
            None => {
                // 4. A piece still standing on the target is captured;
                // 5. one that moved away is not: the mover lands all the same.
                match lifted.piece_at(m.to) {
                    Some(p) if p.color == m.piece.color => {
                        return Err(RulesError::Internal(format!(
                            "{} would land on its own piece on {}",
                            sans[m.main], m.to
                        )));
                    }
                    Some(p) if p.role == Role::King => return Err(king_captured(m.to)),
                    Some(_) => removed = true,
                    None if vacated.contains(m.to) && pos.board.color_at(m.to) == Some(!m.piece.color) => {
                        let away = movers.iter().find(|n| n.from == m.to).map_or("", |n| sans[n.main].as_str());
                        if movers.iter().any(|n| n.from == m.to && n.to == m.from) {
                            if m.piece.color == Color::White {
                                notes.push(format!("{}/{}: {} and {away} change places", m.from, m.to, sans[m.main]));
                            }
                        } else {
                            notes.push(format!(
                                "{}: {} takes nothing, the piece moved away ({away})",
                                m.to, sans[m.main]
                            ));
                        }
                    }
                    None => {}
                }
                board.set_piece_at(m.to, m.piece);
            }
        }
    }
    // 6. En passant removes the passed pawn only if it still stands, whatever
    // happens to the capturing pawn on its target square.
    for c in &pair {
        if let Kind::EnPassant { victim } = c.kind
            && !vacated.contains(victim)
            && board.piece_at(victim) == Some(Piece { color: !c.color, role: Role::Pawn })
        {
            board.discard_piece_at(victim);
            removed = true;
        }
    }
    let sides = pair
        .iter()
        .zip(sans)
        .map(|(c, notation)| SideResult { color: c.color, notation, result: SeatResult::Played })
        .collect();
    Ok((Board2 { board, played: pair.to_vec(), removed }, sides))
}

/// §4.7: castling rights are lost by a king or rook that moved and by a rook
/// captured on its corner; every such event touches the king's or a corner square.
pub(crate) fn castling_after(rights: Bitboard, played: &[Classified]) -> Bitboard {
    let mut rights = rights;
    for c in played {
        let mut touched = vec![c.mv.from, c.mv.to];
        if let Kind::Castle { rook_from, .. } = c.kind {
            touched.push(rook_from);
        }
        for sq in touched {
            rights.discard(sq);
            if sq.file() == File::E && (sq.rank() == Rank::First || sq.rank() == Rank::Eighth) {
                rights.discard(Square::from_coords(File::A, sq.rank()));
                rights.discard(Square::from_coords(File::H, sq.rank()));
            }
        }
    }
    rights
}

/// After a pair: castling rights, ep squares (§1), pauses (§5) and the counters.
fn bookkeeping(pos: &FsPosition, pause: PauseRule, worked: &Board2) -> FsPosition {
    let board = &worked.board;
    let mut ep = [None, None];
    let mut paused = Bitboard::EMPTY;
    for c in &worked.played {
        let stands = board.piece_at(c.mv.to) == Some(c.arriving());
        if c.is_double_step() && stands {
            ep[side_index(!c.color)] = Some(c.passed_square());
        }
        let pausable = c.role != Role::King && stands;
        let keep = match pause {
            PauseRule::Moved => pausable,
            PauseRule::Capturable => pausable && attacked(board, c.mv.to, !c.color),
            PauseRule::Off => false,
        };
        if keep {
            paused.add(c.mv.to);
        }
    }
    let pawn_moved = worked.played.iter().any(|c| c.role == Role::Pawn);
    FsPosition {
        board: board.clone(),
        mode: Mode::Simultaneous,
        castling: castling_after(pos.castling, &worked.played),
        ep,
        paused,
        halfmove: if pawn_moved || worked.removed { 0 } else { pos.halfmove + 1 },
        pair: pos.pair + 1,
    }
}

/// §7 (FSR 8): with `limit` pieces or fewer and exactly one king in check, the game
/// turns into normal chess for good, the side in check to move.
fn switch_to_normal(pos: &mut FsPosition, limit: u32, notes: &mut Vec<String>) {
    if pos.board.occupied().count() as u32 > limit {
        return;
    }
    let to_move = match (in_check(&pos.board, Color::White), in_check(&pos.board, Color::Black)) {
        (true, false) => Color::White,
        (false, true) => Color::Black,
        _ => return,
    };
    pos.mode = Mode::Normal(to_move);
    pos.paused = Bitboard::EMPTY;
    pos.ep[side_index(!to_move)] = None;
    pos.halfmove *= 2;
    notes.push(format!(
        "{limit} pieces or fewer and {to_move} in check: the game continues as normal chess, {to_move} to move (FSR 8)"
    ));
}

/// A single move in normal mode (after the FSR 8 switch): standard chess.
pub(crate) fn normal_move(pos: &FsPosition, c: Classified) -> Result<(FsPosition, String), RulesError> {
    let (rivals, _) = standard_moves(&pos.board, c.color, pos.castling, pos.ep[side_index(c.color)]);
    let notation = san(&pos.board, &c, &rivals);
    let mut board = pos.board.clone();
    let removed = play_alone(&mut board, &c);
    if removed.iter().any(|(_, p)| p.role == Role::King) {
        return Err(king_captured(c.mv.to));
    }
    let mut ep = [None, None];
    if c.is_double_step() {
        ep[side_index(!c.color)] = Some(c.passed_square());
    }
    let next = FsPosition {
        board,
        mode: Mode::Normal(!c.color),
        castling: castling_after(pos.castling, &[c]),
        ep,
        paused: Bitboard::EMPTY,
        halfmove: if c.role == Role::Pawn || !removed.is_empty() { 0 } else { pos.halfmove + 1 },
        pair: if c.color == Color::Black { pos.pair + 1 } else { pos.pair },
    };
    Ok((next, notation))
}
