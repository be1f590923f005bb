//! Fairschach as PGN (issue 17), readable by chess programs such as python-chess.
//!
//! A pair is two moves chosen in the same position and played at once (§4), which
//! PGN cannot say. So each pair is written as the plies a chess program can
//! replay one after the other to reach the board the pair produced, under the
//! pair's number:
//!
//! * `12. Nf3 Nc6`: White's move, then Black's, when playing them in that order
//!   gives the pair's board (the usual case);
//! * `12. -- Kd7 {first} Qe6 --`: Black's move first, then White's, with null
//!   moves (`--`) around them, when only that order does (Black moved first by
//!   first-move right, or White's move lands where Black's left);
//! * a struck move is a null move with a comment, `15. Qd2 {first} -- {struck:
//!   Bxf2 …}`; notes on a meeting follow the pair, `{d5: Nd5 takes d5 pawn}`.
//!
//! When no order reaches the pair's board (equal pieces that took each other on
//! one square, two pieces that changed places), the move text stops there and
//! the rest of the game follows in a comment in Fairschach's own notation
//! (§8), so a chess program still reads the file without an error. The game's
//! own tags give the rules (`FairschachPause`, `FairschachNormalBelow`) and the
//! final position as Fairschach FEN (`FairschachFEN`).

use shakmaty::{Bitboard, Board, Color, Role, Square};

use super::moves::{FsMove, play_alone, san, standard_moves};
use super::pair::castling_after;
use super::position::{FsPosition, Mode, side_index};
use super::{BLACK, Fairschach, WHITE};
use crate::rules::record::{GameRecord, RecordedTurn, pgn_comment, pgn_movetext, pgn_tags};
use crate::rules::{SeatMove, SeatResult, Variant};

/// The position as a chess program replaying the file has it: one move after
/// the other, the side to move alternating.
#[derive(Clone)]
struct Replay {
    board: Board,
    castling: Bitboard,
    /// The en-passant square of the side to move.
    ep: Option<Square>,
    turn: Color,
}

impl Replay {
    fn new(pos: &FsPosition) -> Replay {
        Replay {
            board: pos.board.clone(),
            castling: pos.castling,
            ep: pos.ep[side_index(Color::White)],
            turn: Color::White,
        }
    }

    /// Plays `mv` for the side to move by standard chess (own king safe after
    /// it), as a chess program reads it; its SAN there, or `None` if it is not
    /// legal there.
    fn play(&mut self, mv: FsMove) -> Option<String> {
        let (legal, _) = standard_moves(&self.board, self.turn, self.castling, self.ep);
        let c = *legal.iter().find(|c| c.mv == mv)?;
        let text = san(&self.board, &c, &legal);
        play_alone(&mut self.board, &c);
        self.castling = castling_after(self.castling, &[c]);
        self.ep = c.is_double_step().then(|| c.passed_square());
        self.turn = !self.turn;
        Some(text)
    }

    /// A null move: the other side to move, no en-passant right.
    fn pass(&mut self) {
        self.ep = None;
        self.turn = !self.turn;
    }
}

/// A move's canonical text (UCI) read back.
fn parse_uci(text: &str) -> Option<FsMove> {
    let b = text.as_bytes();
    if !(4..=5).contains(&b.len()) {
        return None;
    }
    let from = Square::from_ascii(&b[0..2]).ok()?;
    let to = Square::from_ascii(&b[2..4]).ok()?;
    let promotion = match b.get(4) {
        Some(&c) => Some(Role::from_char(char::from(c))?),
        None => None,
    };
    Some(FsMove { from, to, promotion })
}

/// One ply to write: a seat's move (with its comment) or a null move.
enum Ply<'a> {
    Move(&'a SeatMove<String>),
    Pass(Option<&'a SeatMove<String>>),
}

/// The comment a ply carries: a struck move's text and reason, a first move's mark.
fn ply_comment(m: &SeatMove<String>) -> Option<String> {
    match &m.result {
        SeatResult::First => Some(pgn_comment("first")),
        SeatResult::Struck(why) if why.is_empty() => Some(pgn_comment(&format!("struck: {}", m.notation))),
        SeatResult::Struck(why) => Some(pgn_comment(&format!("struck: {} ({why})", m.notation))),
        SeatResult::Played => None,
    }
}

/// Plays `plies` on a copy of `replay`; the copy and the tokens, if every move is
/// legal in turn and the board ends as `after`'s.
fn try_plies(replay: &Replay, number: u32, plies: &[Ply<'_>], after: &FsPosition) -> Option<(Replay, Vec<String>)> {
    let mut r = replay.clone();
    let mut tokens = Vec::new();
    for (i, ply) in plies.iter().enumerate() {
        let (text, comment) = match ply {
            Ply::Move(m) => (r.play(parse_uci(&m.mv)?)?, ply_comment(m)),
            Ply::Pass(m) => {
                r.pass();
                ("--".to_owned(), m.and_then(ply_comment))
            }
        };
        // The pair's first ply carries its number: `N.` for White's, `N...` for Black's.
        let white = r.turn == Color::Black;
        tokens.push(match (white, i) {
            (true, 0) => format!("{number}. {text}"),
            (false, 0) => format!("{number}... {text}"),
            _ => text,
        });
        tokens.extend(comment);
    }
    (r.board == after.board).then_some((r, tokens))
}

/// The plies that may write `turn`, the likeliest first.
fn orders<'a>(turn: &'a RecordedTurn, before: &FsPosition) -> Vec<Vec<Ply<'a>>> {
    let of = |seat| turn.moves.iter().find(|m| m.seat == seat);
    let played = |m: &SeatMove<String>| !matches!(m.result, SeatResult::Struck(_));
    let ply = |m: &'a SeatMove<String>| if played(m) { Ply::Move(m) } else { Ply::Pass(Some(m)) };
    match (before.mode, of(WHITE), of(BLACK)) {
        (Mode::Simultaneous, Some(w), Some(b)) => {
            let mut orders = vec![vec![ply(w), ply(b)]];
            if played(w) && played(b) {
                orders.push(vec![Ply::Pass(None), Ply::Move(b), Ply::Move(w), Ply::Pass(None)]);
            }
            orders
        }
        (Mode::Normal(Color::White), Some(w), _) => vec![vec![ply(w)]],
        (Mode::Normal(Color::Black), _, Some(b)) => vec![vec![ply(b)]],
        _ => Vec::new(),
    }
}

/// A pair in Fairschach's notation (§8): `12. Kf1* (Bxf2)`, with its notes.
fn fairschach_text(number: u32, turn: &RecordedTurn) -> String {
    let text = |m: &SeatMove<String>| match m.result {
        SeatResult::Played => m.notation.clone(),
        SeatResult::First => format!("{}*", m.notation),
        SeatResult::Struck(_) => format!("({})", m.notation),
    };
    let moves: Vec<String> = turn.moves.iter().map(text).collect();
    let notes: Vec<String> = turn.notes.iter().map(|n| format!("[{n}]")).collect();
    [vec![format!("{number}.")], moves, notes].concat().join(" ")
}

/// The PGN of a Fairschach game (see the module's documentation).
pub(super) fn pgn(rules: &Fairschach, record: &GameRecord) -> String {
    let mut tags = record.roster();
    let start = rules.parse_state(&record.start).unwrap_or_else(|_| FsPosition::start());
    let last = record.turns.last().and_then(|t| rules.parse_state(&t.after).ok()).unwrap_or_else(|| start.clone());
    if start != FsPosition::start() {
        let fen = format!("{} w {} - 0 1", start.board, castling_text(start.castling));
        tags.push(("SetUp".to_owned(), "1".to_owned()));
        tags.push(("FEN".to_owned(), fen));
    }
    tags.push(("FairschachPause".to_owned(), rules.pause.to_string()));
    let normal = rules.normal_below.map_or_else(|| "off".to_owned(), |n| n.to_string());
    tags.push(("FairschachNormalBelow".to_owned(), normal));
    tags.push(("FairschachFEN".to_owned(), last.to_string()));

    let mut tokens = Vec::new();
    let mut replay = Some(Replay::new(&start));
    let mut rest = Vec::new();
    for turn in &record.turns {
        let (Ok(before), Ok(after)) = (rules.parse_state(&turn.before), rules.parse_state(&turn.after)) else {
            continue;
        };
        let number = before.pair;
        let written = replay
            .as_ref()
            .and_then(|r| orders(turn, &before).iter().find_map(|plies| try_plies(r, number, plies, &after)));
        match written {
            Some((r, pair_tokens)) => {
                replay = Some(r);
                tokens.extend(pair_tokens);
                tokens.extend(turn.notes.iter().map(|n| pgn_comment(n)));
            }
            None => {
                replay = None;
                rest.push(fairschach_text(number, turn));
            }
        }
    }
    if !rest.is_empty() {
        tokens.push(pgn_comment(&format!(
            "The pairs from here on cannot be replayed as chess moves one after the other (a pair is played at once); in Fairschach notation: {}",
            rest.join(" ")
        )));
    }
    if let Some(o) = record.outcome {
        tokens.push(pgn_comment(&format!("{} by {}", o.result.two_seat_score(), o.reason)));
    }
    tokens.push(record.result_token().to_owned());
    let mut out = String::new();
    pgn_tags(&mut out, &tags);
    out.push('\n');
    out.push_str(&pgn_movetext(&tokens));
    out
}

/// FEN's castling field for the corners whose rook keeps its right.
fn castling_text(rights: Bitboard) -> String {
    let text: String = [(Square::H1, 'K'), (Square::A1, 'Q'), (Square::H8, 'k'), (Square::A8, 'q')]
        .into_iter()
        .filter(|(sq, _)| rights.contains(*sq))
        .map(|(_, c)| c)
        .collect();
    if text.is_empty() { "-".to_owned() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Options, Outcome, Seat, VariantId};

    /// Plays `pairs` (White's and Black's move text each) from the start and
    /// returns the record.
    fn record(pairs: &[(&str, &str)]) -> GameRecord {
        let rules = VariantId::Fairschach.rulebook(&Options::new()).unwrap();
        let mut state = rules.start();
        let mut turns = Vec::new();
        let mut history = Vec::new();
        for (n, (w, b)) in pairs.iter().enumerate() {
            let moves = [(Seat::new(0), w.to_string()), (Seat::new(1), b.to_string())];
            let r = rules.resolve(&history, &state, &moves).unwrap();
            turns.push(RecordedTurn {
                turn: n as u32 + 1,
                before: state.clone(),
                after: r.state.clone(),
                moves: r.moves,
                notes: r.notes,
            });
            history.push(state);
            state = r.state;
        }
        GameRecord {
            game: "8KQ2ZJ".into(),
            site: "http://127.0.0.1/games/8KQ2ZJ".into(),
            date: "2026.11.25".into(),
            players: vec!["Alice".into(), "Bob".into()],
            start: rules.start(),
            turns,
            outcome: None,
        }
    }

    /// The PGN, its lines joined by spaces (the move text wraps).
    fn pgn_of(r: &GameRecord) -> String {
        VariantId::Fairschach.rulebook(&Options::new()).unwrap().pgn(r).unwrap().replace('\n', " ")
    }

    #[test]
    fn plain_pairs_are_one_move_number_each() {
        let text = pgn_of(&record(&[("e4", "e5"), ("Nf3", "Nc6")]));
        assert!(text.contains("[White \"Alice\"] [Black \"Bob\"] [Result \"*\"]"), "{text}");
        assert!(text.contains("[FairschachPause \"moved\"]"), "{text}");
        assert!(text.ends_with("1. e4 e5 2. Nf3 Nc6 * "), "{text}");
    }

    #[test]
    fn a_capture_of_a_piece_that_moved_away_is_written_black_first() {
        // Pair 4: White's bishop takes on c6 while Black's knight leaves it: the
        // capture catches nothing (§4.5), which only Black-first replays.
        let text = pgn_of(&record(&[("e4", "Nc6"), ("Bb5", "a5"), ("d3", "h6"), ("Bxc6", "Ne5")]));
        assert!(text.contains("4. -- Ne5 Bc6 --"), "{text}");
        assert!(!text.contains("cannot be replayed"), "{text}");
    }

    #[test]
    fn a_pawn_capture_of_a_pawn_that_moved_on_ends_the_replay() {
        // A pawn that lands diagonally on an empty square is no chess move.
        let text = pgn_of(&record(&[("e4", "d5"), ("Nc3", "Nf6"), ("exd5", "d4")]));
        assert!(text.contains("1. e4 d5 2. Nc3 Nf6 {The pairs from here on cannot be replayed"), "{text}");
        assert!(text.contains("3. exd5 d4 [d5:"), "{text}");
    }

    #[test]
    fn a_meeting_of_equal_pieces_ends_the_replay_in_a_comment() {
        // Both knights arrive on d5 and take each other (§4.3).
        let text = pgn_of(&record(&[("Nc3", "Nf6"), ("e4", "e6"), ("Nd5", "Nd5")]));
        assert!(text.contains("1. Nc3 Nf6 2. e4 e6 {The pairs from here on cannot be replayed"), "{text}");
        assert!(text.contains("in Fairschach notation: 3. Nd5 Nd5 [d5:"), "{text}");
    }

    #[test]
    fn the_result_ends_the_move_text() {
        let mut r = record(&[("e4", "e5")]);
        r.outcome = Some(Outcome::win(Seat::new(0), crate::rules::EndReason::Resignation));
        let text = pgn_of(&r);
        assert!(text.contains("[Result \"1-0\"]"), "{text}");
        assert!(text.trim_end().ends_with("{1-0 by resignation} 1-0"), "{text}");
    }
}
