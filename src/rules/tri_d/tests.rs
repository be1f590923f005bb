//! Tests named after the sections of `docs/rules/tri-d-chess.md`: every §14 figure,
//! and a hand-built position for every rule and Decision.

use super::*;
use crate::rules::{DynVariant, Variant};

/// A state string built from pieces named like `Kd0KL1` (upper case White,
/// lower case Black), the boards like `wQL1` (marking and pin), and the tail
/// `side castling ep moved pending halfmove fullmove`.
fn pos(boards: &[&str], pieces: &[&str], tail: &str) -> String {
    let files = "zabcde";
    let mut main = [[['.'; 4]; 4]; 3];
    let mut pins: Vec<(String, [[char; 2]; 2])> = boards.iter().map(|b| (b.to_string(), [['.'; 2]; 2])).collect();
    for p in pieces {
        let letter = p.chars().next().unwrap();
        let sq = &p[1..];
        let x = files.find(&sq[..1]).unwrap();
        let y: usize = sq[1..2].parse().unwrap();
        let level = &sq[2..];
        match level {
            "W" | "N" | "B" => {
                let b = "WNB".find(level).unwrap();
                main[b][y - (1 + 2 * b)][x - 1] = letter;
            }
            _ => {
                let (_, squares) = pins.iter_mut().find(|(name, _)| &name[1..] == level).expect(level);
                let n: usize = level[2..].parse().unwrap();
                let low_rank = [0, 4, 2, 6, 4, 8][n - 1];
                let low_file = if level.starts_with('K') { 4 } else { 0 };
                squares[y - low_rank][x - low_file] = letter;
            }
        }
    }
    let row = |cells: &[char]| {
        let mut out = String::new();
        let mut empty = 0;
        for &c in cells {
            if c == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push(c);
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        out
    };
    let mut rows = Vec::new();
    for b in (0..3).rev() {
        for r in (0..4).rev() {
            rows.push(row(&main[b][r]));
        }
    }
    let mut boards: Vec<(usize, bool, String)> = pins
        .iter()
        .map(|(name, sq)| {
            let n: usize = name[3..].parse().unwrap();
            (n, name[1..].starts_with('K'), format!("{}:{}/{}", name, row(&sq[1]), row(&sq[0])))
        })
        .collect();
    boards.sort();
    let boards: Vec<String> = boards.into_iter().map(|b| b.2).collect();
    format!("{} {} {tail}", rows.join("/"), boards.join(","))
}

const START_BOARDS: [&str; 4] = ["wQL1", "wKL1", "bQL6", "bKL6"];
const KINGS: [&str; 2] = ["Kd0KL1", "kd9KL6"];

fn rules() -> Box<dyn DynVariant> {
    VariantId::TriDChess.rulebook(&Options::new()).unwrap()
}

fn seat(st: &str) -> Seat {
    rules().seats_to_move(st).unwrap().iter().next().unwrap()
}

fn legal(st: &str) -> Vec<String> {
    let r = rules();
    r.legal_moves(st, seat(st)).unwrap_or_else(|e| panic!("{e}"))
}

/// The legal moves from `from` (a square or a pin), without the prefix.
fn moves_from(st: &str, from: &str) -> Vec<String> {
    legal(st).into_iter().filter_map(|m| m.strip_prefix(&format!("{from}-")).map(str::to_owned)).collect()
}

/// Plays moves (any accepted notation) from `st`, turn by turn, with history.
fn play(st: &str, moves: &str) -> (String, Option<Outcome>) {
    let r = rules();
    let mut history: Vec<String> = Vec::new();
    let mut state = r.canonical_state(st).unwrap();
    let mut outcome = None;
    for text in moves.split_whitespace() {
        let s = seat(&state);
        let res = r.resolve(&history, &state, &[(s, text.to_owned())]).unwrap_or_else(|e| panic!("{text}: {e}"));
        history.push(state);
        state = res.state;
        outcome = res.outcome;
    }
    (state, outcome)
}

fn refused(st: &str, text: &str) -> MoveError {
    let r = TriDChess;
    let state = r.parse_state(st).unwrap();
    Variant::parse_move(&r, &state, seat_of(state.side), text).expect_err(text)
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    out.sort();
    out
}

// §14: the test figures.

#[test]
fn s14_perft_from_the_start() {
    let r = rules();
    let start = r.start();
    assert_eq!(start, state::START);
    assert_eq!(r.perft(&start, 1), Ok(20));
    assert_eq!(r.perft(&start, 2), Ok(400));
    assert_eq!(r.perft(&start, 3), Ok(9128));
}

#[test]
fn s14_whites_twenty_first_moves() {
    let mut expected = vec!["a1W-b3W", "a1W-b3N", "d1W-c3W", "d1W-c3N"];
    let pawns: Vec<String> =
        "abcd".chars().flat_map(|x| ["3W", "3N", "4W", "4N"].map(|t| format!("{x}2W-{x}{t}"))).collect();
    expected.extend(pawns.iter().map(String::as_str));
    assert_eq!(legal(state::START), sorted(&expected));
}

/// §14: after any first pair of moves White may castle short; the 9 128 count it.
#[test]
fn s14_short_castling_after_the_first_pair() {
    let (st, _) = play(state::START, "a2W-a3W a7B-a6B");
    assert!(legal(&st).contains(&"d0KL1-e0KL1".to_owned()), "{st}");
    assert!(!legal(state::START).iter().any(|m| m.starts_with("d0KL1")));
}

#[test]
fn s14_rook_with_a_knight_above_its_file() {
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Rb1W", "nb3N"], "w - - - - 0 10");
    let expected = ["b2W", "b3W", "b3N", "a1W", "a1QL1", "z1QL1", "c1W", "d1W", "d1KL1", "e1KL1"];
    assert_eq!(moves_from(&st, "b1W"), sorted(&expected));
}

#[test]
fn s14_queen_across_the_levels() {
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Qb3W"], "w - - - - 0 10");
    let moves = moves_from(&st, "b3W");
    assert_eq!(moves.len(), 28, "{moves:?}");
    for m in ["b4N", "b8B", "e0KL1", "d5B"] {
        assert!(moves.contains(&m.to_owned()), "{m}");
    }
    assert!(!moves.contains(&"b3N".to_owned()), "no vertical move (§4.3)");
}

#[test]
fn s14_only_the_two_kings() {
    let st = pos(&START_BOARDS, &KINGS, "w - - - - 0 10");
    assert_eq!(moves_from(&st, "d0KL1"), sorted(&["c1W", "d1W", "d1KL1", "e0KL1", "e1KL1"]));
}

#[test]
fn s14_rook_across_the_void_z_file() {
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Rz0QL1", "pz8QL6"], "w - - - - 0 10");
    assert_eq!(moves_from(&st, "z0QL1"), sorted(&["a0QL1", "z1QL1", "z8QL6"]));
}

const ANHANG: &str = "4/4/4/2P1/4/4/4/4/4/1p2/4/4 wKL1:2/2,wQL2:2/1K,bQL4:2/1k,bKL6:2/2 b - - - - 0 30";

#[test]
fn s14_the_rules_own_attack_board_example() {
    let built = pos(&["wQL2", "wKL1", "bQL4", "bKL6"], &["Ka4QL2", "Pc5B", "ka6QL4", "pb3W"], "b - - - - 0 30");
    assert_eq!(built, ANHANG);
    let boards: Vec<String> = legal(ANHANG).into_iter().filter(|m| !m.as_bytes()[0].is_ascii_lowercase()).collect();
    assert_eq!(boards, sorted(&["QL4-QL3", "QL4-QL5", "QL4-KL4", "KL6-KL4", "KL6-KL5", "KL6-QL6"]));
    let (after, outcome) = play(ANHANG, "QL4-QL5");
    assert_eq!(after, "4/4/4/2P1/4/4/4/4/4/1p2/4/4 wKL1:2/2,wQL2:2/1K,bQL5:2/1k,bKL6:2/2 w - - - - 1 31");
    assert_eq!(outcome, None);
}

// §4: the projection rule.

/// §4.2, §4.4: a rider lands on any free level of a column, also under or over
/// a blocking piece, and goes no further; void columns are flown over.
#[test]
fn s4_riders_land_on_every_level_and_stop_at_a_piece() {
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Ra2W", "Pa4N"], "w - - - - 0 10");
    let moves = moves_from(&st, "a2W");
    assert!(moves.contains(&"a3W".to_owned()) && moves.contains(&"a3N".to_owned()));
    assert!(moves.contains(&"a4W".to_owned()), "under the own pawn on a4N");
    assert!(!moves.iter().any(|m| m.starts_with("a5")), "a4 holds a piece: the ride ends");
    let st = pos(&["wQL1", "wKL1", "bQL6", "bKL6"], &[KINGS[0], KINGS[1], "Bd1W"], "w - - - - 0 10");
    let moves = moves_from(&st, "d1W");
    assert!(!moves.iter().any(|m| m.starts_with("z5")), "z5 is void without a board on QL2 or QL5");
    assert!(moves.contains(&"a4N".to_owned()) && moves.contains(&"a4W".to_owned()));
}

/// §4.5: the knight jumps over full columns.
#[test]
fn s4_knights_jump() {
    let moves = moves_from(state::START, "a1W");
    assert_eq!(moves, sorted(&["b3W", "b3N"]));
}

// §5: pawns.

/// §5: a pawn steps onto any empty square of the column ahead, never captures
/// forward; the double step needs the skipped column empty on every level.
#[test]
fn s5_pawn_steps_and_the_double_step() {
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Pb2W", "nb3N"], "w - - - - 0 10");
    assert_eq!(moves_from(&st, "b2W"), sorted(&["b3W"]), "b3N holds a knight: no capture forward, no double step");
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Pb2W", "nc3N"], "w - - - - 0 10");
    assert_eq!(moves_from(&st, "b2W"), sorted(&["b3W", "b3N", "b4W", "b4N", "c3N"]));
}

/// §5, §11: a moved pawn back on an original square has no double step, and
/// the state string lists it.
#[test]
fn s5_a_moved_pawn_on_an_original_square_has_no_double_step() {
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Pa2W"], "w - - a2W - 0 10");
    assert_eq!(moves_from(&st, "a2W"), sorted(&["a3W", "a3N"]));
    // A pawn from a1QL1 stepping to a2W has moved.
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Pa1QL1"], "w - - - - 0 10");
    let (after, _) = play(&st, "a1QL1-a2W");
    assert!(after.contains(" a2W - 0 10"), "{after}");
}

/// §5 en passant: only right after the double step, any level, onto any empty
/// square of the skipped column.
#[test]
fn s5_en_passant() {
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Pb2W", "pa4N"], "w - - - - 0 10");
    let (after, _) = play(&st, "b2W-b4W");
    assert!(after.contains(" b - b4W - - 0 10"), "{after}");
    let takes: Vec<String> = moves_from(&after, "a4N");
    assert!(takes.contains(&"b3W".to_owned()) && takes.contains(&"b3N".to_owned()), "{takes:?}");
    let (taken, _) = play(&after, "a4N-b3N");
    assert!(!taken.contains('P'), "the white pawn is gone: {taken}");
    // One move later the chance is gone.
    let (later, _) = play(&after, "Kd9KL6-c8B Kd0KL1-c1W");
    assert!(!moves_from(&later, "a4N").iter().any(|m| m.starts_with("b3")), "{later}");
}

/// §5: promotion is compulsory; a and d promote on 9 (White) while a board
/// stands on the corner pin, else on 8.
#[test]
fn s5_promotion_ranks_follow_the_corner_boards() {
    let st = pos(&START_BOARDS, &[KINGS[0], "kd9KL6", "Pb7B"], "w - - - - 0 10");
    assert_eq!(moves_from(&st, "b7B"), sorted(&["b8B=B", "b8B=N", "b8B=Q", "b8B=R"]));
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Pa7B"], "w - - - - 0 10");
    assert_eq!(moves_from(&st, "a7B"), sorted(&["a8B", "a8QL6"]), "QL6 stands: a promotes on 9");
    let st = pos(&["wQL1", "wKL1", "bQL4", "bKL6"], &[KINGS[0], KINGS[1], "Pa7B"], "w - - - - 0 10");
    assert_eq!(moves_from(&st, "a7B").len(), 4, "no board on QL6: a8B promotes");
}

/// §5 corner promotion, the owner moving the board: he names the piece with
/// the board move.
#[test]
fn s5_corner_promotion_by_the_owner() {
    // White's knight rides the empty... no: QL6 carries a white knight, so White moves it.
    let st = pos(&["wQL1", "wKL1", "bQL6", "bKL4"], &["Kd0KL1", "kc8B", "Pa8B", "Nz9QL6"], "w - - - - 3 20");
    let moves = legal(&st);
    assert!(moves.contains(&"QL6-KL6=Q".to_owned()), "{moves:?}");
    assert!(!moves.contains(&"QL6-KL6".to_owned()));
    let (after, _) = play(&st, "QL6-KL6=N");
    assert!(after.starts_with("N1k1/"), "{after}");
    assert!(after.contains(" b - - - - 0 20"), "a promotion resets the halfmove counter: {after}");
}

/// §5 corner promotion by the opponent's board move (Decision): pending; the
/// owner names the piece first in his next move; the board move is illegal if
/// any promotion would attack the mover's king.
#[test]
fn s5_pending_promotion() {
    let st = pos(&["wQL1", "wKL1", "bQL6", "bKL4"], &["Kd0KL1", "kc5N", "Pa8B"], "b - - - - 3 20");
    let (after, _) = play(&st, "QL6-QL5");
    assert!(after.contains(" w - - - a8B 0 21"), "{after}");
    let moves = legal(&after);
    assert!(moves.iter().all(|m| m.starts_with("a8B=")), "every move names the piece first");
    assert!(moves.contains(&"a8B=N;d0KL1-d1W".to_owned()));
    assert!(moves.contains(&"a8B=Q;a8B-a1W".to_owned()), "the new queen may move at once");
    assert!(moves.windows(2).all(|w| w[0] < w[1]), "sorted by byte value with the prefix");
    let refusal = refused(&after, "d0KL1-d1W").to_string();
    assert!(refusal.contains("a8B=Q;"), "{refusal}");
    let (promoted, _) = play(&after, "a8B=N;d0KL1-d1W");
    assert!(promoted.starts_with("N3/"), "{promoted}");
    assert!(promoted.contains(" b - - - - 0 21"), "{promoted}");
    // With the black king where a queen on a8B would see it, Black may not
    // move QL6 away.
    let st = pos(&["wQL1", "wKL1", "bQL6", "bKL4"], &["Kd0KL1", "kd5B", "Pa8B"], "b - - - - 3 20");
    assert!(!legal(&st).iter().any(|m| m.starts_with("QL6-")), "a8B=Q or =B would attack d5");
}

/// §5 Decision: a pawn carried onto its promotion rank promotes with the move.
#[test]
fn s5_carried_onto_the_promotion_rank() {
    let st = pos(&["wQL1", "wKL1", "bQL6", "bKL4"], &["Kd0KL1", "kb8B", "Pe7KL4"], "w - - - - 0 20");
    let moves: Vec<String> = legal(&st).into_iter().filter(|m| m.starts_with("KL4-KL6")).collect();
    assert_eq!(moves, sorted(&["KL4-KL6=B", "KL4-KL6=N", "KL4-KL6=Q", "KL4-KL6=R"]));
    let all = legal(&st);
    assert!(all.windows(2).all(|w| w[0] < w[1]), "board moves, promotions and piece moves in byte order");
    let (after, _) = play(&st, "KL4-KL6=Q");
    assert!(after.contains("bKL6:1Q/2"), "{after}");
}

// §6: castling.

/// Kings and rooks at home; pawns on e1 and e8 close the e-file between the
/// rooks (without them each rook would attack the other's king's-side corner).
const CASTLE: [&str; 8] = ["Kd0KL1", "Re0KL1", "Rz0QL1", "Pe1KL1", "kd9KL6", "re9KL6", "rz9QL6", "pe8KL6"];

#[test]
fn s6_castling_both_ways() {
    let st = pos(&START_BOARDS, &CASTLE, "w KQkq - - - 0 5");
    let moves = moves_from(&st, "d0KL1");
    assert!(moves.contains(&"e0KL1".to_owned()) && moves.contains(&"a0QL1".to_owned()), "{moves:?}");
    let (short, _) = play(&st, "O-O");
    assert!(short.contains("wKL1:1P/RK"), "king and rook swap: {short}");
    assert!(short.contains(" b kq "), "{short}");
    let (long, _) = play(&st, "0-0-0");
    assert!(long.contains("wQL1:2/1K,wKL1:1P/RR"), "{long}");
    assert_eq!(play(&st, "d0KL1-e0KL1").0, short, "the king's from-to");
}

/// §6 Decision: castling is illegal while the fullmove number is 1.
#[test]
fn s6_no_castling_on_the_first_move() {
    let st = pos(&START_BOARDS, &CASTLE, "w KQkq - - - 0 1");
    assert_eq!(moves_from(&st, "d0KL1").iter().filter(|m| *m == "e0KL1" || *m == "a0QL1").count(), 0);
}

/// §6: not from or to an attacked column; the columns passed need not be safe.
#[test]
fn s6_castling_and_attacked_columns() {
    let with = |extra: &str| {
        let mut pieces = CASTLE.to_vec();
        pieces.push(extra);
        pos(&START_BOARDS, &pieces, "w KQkq - - - 0 5")
    };
    // A black bishop on b3N attacks e0 across c2 and d1: no short castling; long still.
    let m = moves_from(&with("bb3N"), "d0KL1");
    assert!(!m.contains(&"e0KL1".to_owned()) && m.contains(&"a0QL1".to_owned()), "{m:?}");
    // A black rook on c5N sees the passed (void) c0: long castling all the same.
    let m = moves_from(&with("rc5N"), "d0KL1");
    assert!(m.contains(&"a0QL1".to_owned()), "{m:?}");
    // A black knight on b2W attacks a0: no long castling.
    let m = moves_from(&with("nb2W"), "d0KL1");
    assert!(!m.contains(&"a0QL1".to_owned()) && m.contains(&"e0KL1".to_owned()), "{m:?}");
}

/// §6 Decision, §7: a king carried by its board loses castling.
#[test]
fn s6_a_carried_king_loses_castling() {
    let st = pos(&START_BOARDS, &["Kd0KL1", "Rz0QL1", "kd9KL6"], "w Q - - - 0 5");
    let (after, _) = play(&st, "KL1-KL3");
    assert!(after.contains(" b - "), "{after}");
}

// §7: attack-board moves.

/// §7: a board moves only with at most one piece; its controller moves it;
/// with a piece forward or sideways only, empty also backward; passengers are
/// translated (QL ↔ KL: z ↔ d, a ↔ e).
#[test]
fn s7_who_moves_a_board_and_where() {
    // An empty white board on QL3 goes back to QL1 or QL2 as well.
    let st = pos(&["wQL3", "wKL1", "bQL6", "bKL6"], &KINGS, "w - - - - 0 10");
    let m = moves_from(&st, "QL3");
    assert_eq!(m, sorted(&["QL1", "QL2", "QL4", "QL5", "KL3"]));
    // With a white pawn on it: forward (QL2, QL4, QL5: higher position ranks)
    // and sideways (KL3) only.
    let st = pos(&["wQL3", "wKL1", "bQL6", "bKL6"], &[KINGS[0], KINGS[1], "Pz3QL3"], "w - - - - 0 10");
    assert_eq!(moves_from(&st, "QL3"), sorted(&["QL2", "QL4", "QL5", "KL3"]));
    let (after, _) = play(&st, "QL3-KL3");
    assert!(after.contains("wKL3:P1/2"), "z3 carried to d3: {after}");
    // A black piece on a white board: Black controls it, White does not.
    let st = pos(&["wQL3", "wKL1", "bQL6", "bKL6"], &[KINGS[0], KINGS[1], "nz3QL3"], "w - - - - 0 10");
    assert!(moves_from(&st, "QL3").is_empty());
    let st = pos(&["wQL3", "wKL1", "bQL6", "bKL6"], &[KINGS[0], KINGS[1], "nz3QL3"], "b - - - - 0 10");
    assert_eq!(moves_from(&st, "QL3"), sorted(&["QL1", "KL3"]), "Black's forward is down");
    // Two pieces: it stays.
    let st = pos(&["wQL3", "wKL1", "bQL6", "bKL6"], &[KINGS[0], KINGS[1], "Pz3QL3", "Pa2QL3"], "w - - - - 0 10");
    assert!(moves_from(&st, "QL3").is_empty());
}

/// §7: a passenger pawn counts as moved: on an original square it is listed
/// in `moved` and has no double step.
#[test]
fn s7_a_passenger_pawn_has_moved() {
    let st = pos(&["wQL1", "wKL2", "bQL6", "bKL6"], &["Kb1W", "kd9KL6", "Pz1QL1"], "w - - - - 0 10");
    let (after, _) = play(&st, "QL1-KL1");
    assert!(after.contains("wKL1:P1/2") && after.contains(" b - - d1KL1 - 1 10"), "{after}");
    let (next, _) = play(&after, "kd9KL6-c8B");
    assert_eq!(moves_from(&next, "d1KL1"), sorted(&["d2W"]), "no double step after a ride");
}

// §8: check.

/// §8: a king directly above or below an enemy piece is not attacked by it;
/// a board move may give check.
#[test]
fn s8_check_across_levels() {
    let above = pos(&START_BOARDS, &["Kb3W", "kd9KL6", "rb3N"], "b - - - - 0 10");
    assert!(rules().canonical_state(&above).is_ok(), "the rook above does not attack the king");
    let beside = pos(&START_BOARDS, &["Kb3W", "kd9KL6", "rc3N"], "b - - - - 0 10");
    let err = rules().canonical_state(&beside).unwrap_err().to_string();
    assert!(err.contains("white is not to move but in check"), "{err}");
    let st = pos(&["wQL1", "wKL1", "bQL4", "bKL6"], &["Ke1KL1", "kd9KL6", "ra6QL4"], "b - - - - 0 10");
    let r = rules();
    let res = r.resolve(&[], &st, &[(BLACK, "QL4-KL4".into())]).unwrap();
    assert_eq!(res.moves[0].notation, "QL4-KL4+", "the rook carried to e6KL4 sees e1 across the void e5–e2");
}

// §9: the end of the game.

#[test]
fn s9_dead_positions_are_drawn() {
    let r = rules();
    let draw = Some(Outcome::draw(EndReason::InsufficientMaterial));
    for extra in [None, Some("Bb2W"), Some("nb6B")] {
        let mut pieces = KINGS.to_vec();
        pieces.extend(extra);
        assert_eq!(r.outcome(&[], &pos(&START_BOARDS, &pieces, "w - - - - 0 10")).unwrap(), draw, "{extra:?}");
    }
    let rook = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Rb2W"], "w - - - - 0 10");
    assert_eq!(r.outcome(&[], &rook).unwrap(), None);
}

#[test]
fn s9_threefold_repetition() {
    let (_, outcome) = play(state::START, "Na1W-b3W Na8B-b6B Nb3W-a1W Nb6B-a8B Na1W-b3W Na8B-b6B Nb3W-a1W Nb6B-a8B");
    assert_eq!(outcome, Some(Outcome::draw(EndReason::ThreefoldRepetition)));
    let (_, before) = play(state::START, "Na1W-b3W Na8B-b6B Nb3W-a1W Nb6B-a8B Na1W-b3W Na8B-b6B Nb3W-a1W");
    assert_eq!(before, None);
}

#[test]
fn s9_fifty_moves() {
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Rb2W"], "w - - - - 99 60");
    assert_eq!(play(&st, "Kd0KL1-c1W").1, Some(Outcome::draw(EndReason::FiftyMoveRule)));
}

/// §9 Decision: a timeout loses, but not against a lone king.
#[test]
fn s9_timeout() {
    let r = rules();
    let late = |s: Seat| SeatSet::only(s);
    let start = r.start();
    assert_eq!(r.timeout(&start, late(WHITE)).unwrap(), Some(Outcome::win(BLACK, EndReason::Time)));
    let lone = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Rb2W"], "w - - - - 0 10");
    assert_eq!(r.timeout(&lone, late(WHITE)).unwrap(), Some(Outcome::draw(EndReason::Time)));
    assert_eq!(r.timeout(&lone, late(BLACK)).unwrap(), Some(Outcome::win(WHITE, EndReason::Time)));
    assert_eq!(r.timeout(&start, late(WHITE).with(BLACK)).unwrap(), Some(Outcome::draw(EndReason::Time)));
}

/// §9: stalemate and checkmate of a king alone on its attack board, whose
/// neighbouring pins are all taken (so the board cannot carry it away); a mate
/// on the hundredth ply stands (§9, fifty-move rule).
#[test]
fn s9_stalemate_and_checkmate() {
    let r = rules();
    let boards = ["wQL6", "wKL4", "bKL5", "bKL6"];
    // The queen on c7B sees c8, d8 and e9; the rook on e4KL5 the e-file up to e9.
    let stale = pos(&boards, &["Kb2W", "kd9KL6", "Qc7B", "Re4KL5"], "b - - - - 0 40");
    assert!(legal(&stale).is_empty());
    assert_eq!(r.outcome(&[], &stale).unwrap(), Some(Outcome::draw(EndReason::Stalemate)));
    // The queen on a4N goes to d7B: check along the d-file, c8 and e8 covered.
    let before = pos(&boards, &["Kb2W", "kd9KL6", "Qa4N", "Re4KL5"], "w - - - - 99 40");
    let (after, outcome) = play(&before, "Qd7B");
    assert!(after.ends_with(" b - - - - 100 40"), "{after}");
    assert_eq!(outcome, Some(Outcome::win(WHITE, EndReason::Checkmate)), "the mate stands on the hundredth ply");
}

// §10: move text.

#[test]
fn s10_from_to_and_short_forms() {
    let st = state::START;
    let r = rules();
    let read = |t: &str| r.check_move(st, WHITE, t).map(|c| c.canonical).unwrap_or_else(|e| panic!("{t}: {e}"));
    for (text, canonical) in [
        ("a2W-a4N", "a2W-a4N"),
        ("a2Wa4N", "a2W-a4N"),
        ("a2Wxa4N", "a2W-a4N"),
        ("a2w-a4n", "a2W-a4N"),
        ("b4N", "b2W-b4N"),
        ("Nc3N", "d1W-c3N"),
        ("nc3n", "d1W-c3N"),
        ("Sc3N", "d1W-c3N"),
        ("Nab3W", "a1W-b3W"),
        ("N1b3w", "a1W-b3W"),
        ("d2-d4n", "d2W-d4N"),
    ] {
        assert_eq!(read(text), canonical, "{text}");
    }
    assert_eq!(r.check_move(st, WHITE, "Nc3N").unwrap().notation, "Nc3N");
}

/// §10 Decision: the level may be left out only when one legal move fits.
#[test]
fn s10_nc3_is_ambiguous_at_the_start() {
    match refused(state::START, "Nc3") {
        MoveError::Ambiguous { candidates, .. } => assert_eq!(candidates, ["Nc3N", "Nc3W"]),
        e => panic!("{e}"),
    }
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Nb1W", "Pc3W"], "w - - - - 0 10");
    assert_eq!(rules().check_move(&st, WHITE, "Nc3").unwrap().canonical, "b1W-c3N");
}

#[test]
fn s10_german_levels_and_board_moves() {
    let r = rules();
    for text in ["QL4-QL5", "DP4-DP5", "dp4-dp5", "ql4ql5"] {
        assert_eq!(r.check_move(ANHANG, BLACK, text).unwrap().canonical, "QL4-QL5", "{text}");
    }
    let st = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Pc7B"], "w - - - - 0 10");
    assert_eq!(r.check_move(&st, WHITE, "c7s-c8s=Q").unwrap().canonical, "c7B-c8B=Q");
    assert_eq!(r.check_move(&st, WHITE, "c8B=Q").unwrap().canonical, "c7B-c8B=Q");
    match refused(&st, "c8B") {
        MoveError::Ambiguous { candidates, .. } => assert_eq!(candidates.len(), 4),
        e => panic!("{e}"),
    }
}

#[test]
fn s10_castling_spellings() {
    let st = pos(&START_BOARDS, &CASTLE, "w KQkq - - - 0 5");
    let r = rules();
    for text in ["O-O", "0-0", "d0KL1-e0KL1", "Kd0KL1-e0KL1"] {
        assert_eq!(r.check_move(&st, WHITE, text).unwrap().canonical, "d0KL1-e0KL1", "{text}");
    }
    for text in ["O-O-O", "0-0-0", "d0KL1-a0QL1"] {
        assert_eq!(r.check_move(&st, WHITE, text).unwrap().canonical, "d0KL1-a0QL1", "{text}");
    }
    assert_eq!(
        r.check_move(&st, WHITE, "O-O").unwrap().notation,
        "O-O+",
        "the rook on d0KL1 checks along the open d-file"
    );
}

#[test]
fn s10_refusals_say_why() {
    let why = |st: &str, t: &str| refused(st, t).to_string();
    assert!(why(state::START, "a3W-a4W").contains("there is no piece on a3W"));
    assert!(why(state::START, "a7B-a6B").contains("the piece on a7B is not yours"));
    assert!(why(state::START, "a1W-a3W").contains("your knight on a1W cannot move to a3W"));
    assert!(why(state::START, "QL1-QL3").contains("carries more than one piece"));
    assert!(why(state::START, "z5QL2-z6QL2").contains("no square z5QL2"), "{}", why(state::START, "z5QL2-z6QL2"));
    assert!(matches!(refused(state::START, "hello"), MoveError::NotAMove { .. }));
    let e = why(state::START, "hello");
    assert!(e.contains("write moves like"), "{e}");
    assert!(rules().move_text("hello").is_none() && rules().move_text("a8B=N;d0KL1-d1W").is_some());
}

// §11: the state string.

#[test]
fn s11_bad_states_are_refused_with_every_problem() {
    let r = rules();
    let problems = |s: &str| r.canonical_state(s).unwrap_err().to_string();
    let e = problems("nbbn/pppp/4/4/4/4/4/4/4/4/PPPP/NBBN wQL1:PP/RQ,wKL1:PP/KR w KQkq - - - 0 1");
    assert!(e.contains("expected 4 attack boards"), "{e}");
    let e =
        problems("nbbn/pppp/4/4/4/4/4/4/4/4/PPPP/NBBN wQL1:PP/RQ,wKL1:PP/KR,bQL6:rq/pp,bKL6:kr/pp x KQkq - - - z 1");
    assert!(e.contains("side \"x\"") && e.contains("halfmove \"z\""), "{e}");
    let e = problems(&pos(&START_BOARDS, &["Kd0KL1", "Kb2W", "kd9KL6"], "w - - - - 0 10"));
    assert!(e.contains("white has 2 kings"), "{e}");
    let e = problems(&pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Pb8B"], "w - - - - 0 10"));
    assert!(e.contains("promotion rank"), "{e}");
    let e = problems(&pos(&START_BOARDS, &KINGS, "w K - - - 0 10"));
    assert!(e.contains("castling right K needs the king on d0KL1 and the rook on e0KL1"), "{e}");
    let e = problems(&pos(&START_BOARDS, &KINGS, "w - b4W a2W a8B 0 10"));
    assert!(e.contains("ep b4W") && e.contains("moved: no pawn") && e.contains("pending a8B"), "{e}");
}

#[test]
fn s11_states_read_back_unchanged() {
    let r = rules();
    for s in [state::START, ANHANG] {
        assert_eq!(r.canonical_state(s).unwrap(), s);
    }
}

// Random play: properties over many positions.

/// A small deterministic generator for the playouts.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Random games: every state reads back unchanged, its square sets agree with
/// its board, the legal list is sorted and unique, every move reads back from
/// its canonical text and from its short notation, and no king is ever taken.
#[test]
fn random_play_keeps_its_invariants() {
    let rules = TriDChess;
    let mut rng = Xorshift(0x3D_C4E5_5EED);
    let mut plies = 0;
    for _ in 0..6 {
        let mut st = Variant::start(&rules);
        for _ in 0..120 {
            let text = st.to_string();
            assert_eq!(rules.parse_state(&text).as_ref(), Ok(&st), "{text}");
            assert!(state::bits_agree(&st), "{text}");
            let side = seat_of(st.side);
            let moves = Variant::legal_moves(&rules, &st, side);
            let texts: Vec<String> = moves.iter().map(ToString::to_string).collect();
            assert!(texts.windows(2).all(|w| w[0] < w[1]), "sorted and unique: {text}");
            assert_eq!(rules.count_legal_moves(&st, side), moves.len());
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.below(moves.len())];
            assert_eq!(rules.parse_move(&st, side, &mv.to_string()), Ok(mv), "{text}: {mv}");
            let short = Variant::notation(&rules, &st, side, mv);
            assert_eq!(rules.parse_move(&st, side, &short), Ok(mv), "{text}: {mv} as {short}");
            st = moves::play(&st, mv);
            for colour in [Colour::White, Colour::Black] {
                assert_eq!(st.bits.pieces(Kind::King, colour).count_ones(), 1, "{mv} took a king in {text}");
            }
            plies += 1;
        }
    }
    assert!(plies > 300, "{plies}");
}

// The board for the renderers (the pictures drawn of it: tests/it/games/pictures.rs).

/// The board that moved is marked on all four squares, its path ending on
/// its passenger; a piece move between levels goes from one panel to another.
#[test]
fn moves_are_drawn_across_panels_and_boards() {
    let r = rules();
    let path = r.move_path(Some(ANHANG), "QL4-QL5").unwrap();
    assert_eq!(path.cells.len(), 4);
    let after = play(ANHANG, "QL4-QL5").0;
    let view = r.board(&after).unwrap();
    let king = view.pieces.iter().find(|(_, p)| p.owner == BLACK).unwrap().0;
    assert_eq!(path.to(), Some(king));
    assert!(path.cells.iter().all(|&c| view.shape.cell(c).is_some()));
    // As the text board draws it: tests/it/games/pictures.rs.
    let step = r.move_path(Some(state::START), "a2W-a4N").unwrap();
    let shape = &r.board(state::START).unwrap().shape;
    let names: Vec<&str> = step.cells.iter().map(|&c| shape.cell(c).unwrap().name.as_str()).collect();
    assert_eq!(names, ["a2W", "a4N"]);
    let take = pos(&START_BOARDS, &[KINGS[0], KINGS[1], "Rb1W", "nb3N"], "w - - - - 0 10");
    assert_eq!(r.move_path(Some(&take), "b1W-b3N").unwrap().captures.len(), 1);
    assert!(r.move_path(Some(&take), "b1W-b3W").unwrap().captures.is_empty());
}

/// A board move's path lies on the pin it goes to, not drawn before it: the
/// web page takes hold of it by the four squares of the board it carries (the
/// passenger's among them); a piece move needs no grip.
/// Where a player takes hold of `mv` played in `before` (the path's grip).
fn grip(r: &dyn DynVariant, before: &str, mv: &str) -> Vec<crate::rules::Cell> {
    r.move_path(Some(before), mv).map(|p| p.grip).unwrap_or_default()
}

#[test]
fn board_moves_are_taken_hold_of_by_their_board() {
    let r = rules();
    let shape = &r.board(ANHANG).unwrap().shape;
    let path = r.move_path(Some(ANHANG), "QL4-QL5").unwrap();
    assert!(path.cells.iter().all(|&c| shape.cell(c).is_none()), "QL5 is not drawn before the move");
    for mv in ["QL4-QL5", "QL4-QL3", "QL4-KL4"] {
        let mut names: Vec<&str> =
            grip(&*r, ANHANG, mv).iter().map(|&c| shape.cell(c).expect("a drawn square").name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["a6QL4", "a7QL4", "z6QL4", "z7QL4"], "{mv}");
    }
    assert!(grip(&*r, ANHANG, "a6QL4-a7B").is_empty(), "the passenger's own move is on the board");
    assert_eq!(grip(&*r, ANHANG, "KL6-KL5").len(), 4);
    assert!(grip(&*r, state::START, "c2W-c3N").is_empty());
    assert!(grip(&*r, ANHANG, "not a move").is_empty());
}
