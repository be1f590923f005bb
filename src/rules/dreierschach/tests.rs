//! Hand-built positions for every rule and Decision of `docs/rules/dreierschach.md`,
//! named after its sections, and its §12 test figures. Each expected move list
//! and state string was also checked against the independent oracle in
//! `tools/dreierschach_oracle/`.

use super::*;
use crate::rules::{GameResult, MoveError, MoveText, Variant};
use state::{EMPTY_BOARD, piece};

const START: &str = "nRnP2bPbR/nBnP3bPbN/nNnP4bPbB/nKnP5bPbQ/nQnP6bPbK/nBnP7bPbN/nNnP8bPbB/nRnP9bPbR/nP10bP/11/10/wPwPwPwPwPwPwPwPwP/wRwBwNwKwQwBwNwR w a1,a8,f1,f13,m8,m13 - 0 1";

/// §12: the state after the author's `7d9 Sj8 12k10` (as `k12-k10`).
const SAMPLE: &str = "nRnP2bPbR/nBnP3bPbN/1nP2bP2bB/nKnP1nN3bPbQ/nQnP6bPbK/nBnP7bPbN/nNnP8bPbB/nRnP9bPbR/nP10bP/8wP2/10/wPwPwPwPwPwP1wPwP/wRwBwNwKwQwBwNwR w a1,a8,f1,f13,m8,m13 k12-k10 0 2";

const RULES: Dreierschach = Dreierschach { en_passant: EnPassant::Round, names: Names::V22, no_progress: None };

fn hex(name: &str) -> Hex {
    Hex::parse(name, Names::V22).unwrap_or_else(|| panic!("no cell {name}"))
}

/// A state string from pieces (`("wR", "a1 a8")`: White's rooks on a1 and a8)
/// and the five fields after the placement.
fn build(pieces: &[(&str, &str)], rest: &str) -> String {
    let mut state = DsState::start();
    state.board = EMPTY_BOARD;
    for (code, cells) in pieces {
        let b = code.as_bytes();
        let seat = SEAT_LETTERS.iter().position(|&c| c as u8 == b[0]).expect("seat letter");
        let kind = Kind::from_letter(b[1]).expect("piece letter");
        for name in cells.split_whitespace() {
            state.board[hex(name).cell()] = piece(seat, kind);
        }
    }
    let text = state.to_string();
    let placement = text.split(' ').next().expect("placement");
    format!("{placement} {rest}")
}

fn parse(rules: &Dreierschach, text: &str) -> DsState {
    rules.parse_state(text).unwrap_or_else(|e| panic!("{e}"))
}

fn legal(rules: &Dreierschach, text: &str) -> Vec<String> {
    let state = parse(rules, text);
    Variant::legal_moves(rules, &state, seat_of(state.turn)).iter().map(ToString::to_string).collect()
}

/// The legal moves of the piece on `from`, as their targets.
fn targets(rules: &Dreierschach, text: &str, from: &str) -> Vec<String> {
    let prefix = format!("{from}-");
    legal(rules, text).into_iter().filter_map(|m| m.strip_prefix(&prefix).map(str::to_owned)).collect()
}

/// Plays the moves in any notation; returns the state string and the outcome as
/// points with its reason.
fn play(rules: &Dreierschach, text: &str, moves: &str) -> (String, Option<(String, EndReason)>) {
    let mut state = parse(rules, text);
    let mut outcome = None;
    for m in moves.split_whitespace() {
        let seat = seat_of(state.turn);
        let mv = Variant::check_move(rules, &state, seat, m).unwrap_or_else(|e| panic!("{m} in {state}: {e}"));
        let r = Variant::resolve(rules, &[], &state, &[(seat, mv)]).unwrap_or_else(|e| panic!("{m} in {state}: {e}"));
        assert_eq!(rules.parse_state(&r.state.to_string()).as_ref(), Ok(&r.state), "round trip of {}", r.state);
        state = r.state;
        outcome = r.outcome.map(|o| (o.result.score_text(3), o.reason));
    }
    (state.to_string(), outcome)
}

fn read(rules: &Dreierschach, text: &str, mv: &str) -> Result<String, MoveError> {
    let state = parse(rules, text);
    rules.parse_move(&state, seat_of(state.turn), mv).map(|m| m.to_string())
}

fn outcome(rules: &Dreierschach, text: &str) -> Option<(String, EndReason)> {
    Variant::outcome(rules, &[], &parse(rules, text)).map(|o| (o.result.score_text(3), o.reason))
}

fn s(text: &str) -> String {
    text.to_owned()
}

// §9 and §12: the start ---------------------------------------------------------------

/// §9: the start state string, exactly, and its reading.
#[test]
fn section_9_start_string() {
    assert_eq!(DsState::start().to_string(), START);
    assert_eq!(parse(&RULES, START), DsState::start());
    assert_eq!(RULES.start().to_string(), START);
}

/// §12: 44 first moves — 9 pawns × 2 directions × 1 or 2 steps, and the knights
/// a3 → c2 d4 d5 c6 and a7 → c6 d8 d9 c10; no bishop, queen or king move (§3:
/// every diagonal passage is shut by two pawns). Sorted by byte value (§8).
#[test]
fn section_12_forty_four_first_moves() {
    let moves = legal(&RULES, START);
    assert_eq!(moves.len(), 44);
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted, "§8: sorted by byte value");
    let pieces: Vec<&String> = moves.iter().filter(|m| !m.starts_with('b')).collect();
    assert_eq!(pieces, ["a3-c2", "a3-c6", "a3-d4", "a3-d5", "a7-c10", "a7-c6", "a7-d8", "a7-d9"]);
    let pawns: Vec<&String> = moves.iter().filter(|m| m.starts_with('b')).collect();
    assert_eq!(pawns.len(), 36);
    assert_eq!(targets(&RULES, START, "b4"), ["c4", "c5", "d4", "d6"]);
    assert_eq!(targets(&RULES, START, "b9"), ["c10", "c9", "d11", "d9"]);
}

/// §12: perft 1 and 2 from the start (and 3, which the oracle counts too).
#[test]
fn section_12_perft() {
    let start = DsState::start();
    assert_eq!(RULES.perft(&start, 1), 44);
    assert_eq!(RULES.perft(&start, 2), 1930);
    assert_eq!(RULES.perft(&start, 3), 84_348);
    assert_eq!(RULES.count_legal_moves(&start, WHITE), 44);
    assert_eq!(RULES.count_legal_moves(&start, BROWN), 0, "brown is not to move");
}

/// §12: the author's sample game. `7d9` is b7-d9 (b9 reaches d9 too, a7-d9 is a
/// knight's); `Sj8` is k6-j8; `12k10` is refused as ambiguous (the black pawns on
/// k12 and m12 both reach k10; the knight l13 needs a letter); `k12-k10` is taken.
#[test]
fn section_12_sample_game() {
    assert_eq!(read(&RULES, START, "7d9"), Ok(s("b7-d9")));
    let (after1, _) = play(&RULES, START, "7d9");
    assert_eq!(read(&RULES, &after1, "Sj8"), Ok(s("k6-j8")));
    let (after2, _) = play(&RULES, &after1, "Sj8");
    assert_eq!(
        read(&RULES, &after2, "12k10"),
        Err(MoveError::Ambiguous { text: s("12k10"), candidates: vec![s("k12-k10"), s("m12-k10")] })
    );
    assert_eq!(read(&RULES, &after2, "Sk10"), Ok(s("l13-k10")), "the knight, by its letter");
    let (after3, outcome) = play(&RULES, &after2, "k12-k10");
    assert_eq!(after3, SAMPLE);
    assert_eq!(outcome, None);
    assert_eq!(play(&RULES, START, "b7-d9 k6-j8 k12-k10").0, SAMPLE);
}

/// §12 and §2: `Le8` in the sample position. The bishop a6 has exactly c7, e8,
/// g9, i10, k11 and m12 (a capture): its first step a6→c7 passes between b6 (a
/// pawn) and b7 (empty since 7d9). The bishop a2 and the queen a5 have no move.
#[test]
fn section_12_le8_and_the_passage_rule() {
    assert_eq!(targets(&RULES, SAMPLE, "a6"), ["c7", "e8", "g9", "i10", "k11", "m12"]);
    assert_eq!(targets(&RULES, SAMPLE, "a2"), Vec::<String>::new());
    assert_eq!(targets(&RULES, SAMPLE, "a5"), Vec::<String>::new());
    assert_eq!(read(&RULES, SAMPLE, "Le8"), Ok(s("a6-e8")));
    assert_eq!(read(&RULES, SAMPLE, "Bxm12"), Ok(s("a6-m12")));
}

// §2: directions and the passage rule ---------------------------------------------------

/// §2: a diagonal step passes between two cells and needs one of them empty; a
/// piece of any colour, the mover's own included, fills a cell; every step of a
/// slide obeys it.
#[test]
fn section_2_the_passage_rule_for_sliders() {
    let kings = [("wK", "a8"), ("nK", "m8"), ("bK", "f13")];
    // e5→g6 (D1) passes between f5 and f6.
    let shut = build(&[kings[0], kings[1], kings[2], ("wB", "e5"), ("bP", "f5"), ("wN", "f6")], "w - - 0 1");
    let t = targets(&RULES, &shut, "e5");
    assert!(!t.contains(&s("g6")), "f5 (black) and f6 (white's own) shut the passage: {t:?}");
    let open = build(&[kings[0], kings[1], kings[2], ("wB", "e5"), ("bP", "f5"), ("wN", "h7")], "w - - 0 1");
    let t = targets(&RULES, &open, "e5");
    for cell in ["g6", "i7", "k8", "m9"] {
        assert!(t.contains(&s(cell)), "one of f5, f6 empty: the bishop slides through {cell}: {t:?}");
    }
    // The second step g6→i7 passes between h6 and h7: shut there, the slide stops at g6.
    let second = build(&[kings[0], kings[1], kings[2], ("wB", "e5"), ("bP", "h6"), ("nP", "h7")], "w - - 0 1");
    let t = targets(&RULES, &second, "e5");
    assert!(t.contains(&s("g6")) && !t.contains(&s("i7")), "{t:?}");
    // A queen's diagonal obeys it as well.
    let queen = build(&[kings[0], kings[1], kings[2], ("wQ", "e5"), ("bP", "f5"), ("wN", "f6")], "w - - 0 1");
    assert!(!targets(&RULES, &queen, "e5").contains(&s("g6")));
}

/// §2: the king's diagonal step and the pawn's capture obey the passage rule.
#[test]
fn section_2_the_passage_rule_for_kings_and_pawns() {
    // King e5 → g6 between f5 and f6.
    let shut = build(&[("wK", "e5"), ("nK", "m8"), ("bK", "f13"), ("bP", "f5"), ("nB", "f6")], "w - - 0 1");
    assert!(!targets(&RULES, &shut, "e5").contains(&s("g6")));
    let open = build(&[("wK", "e5"), ("nK", "m8"), ("bK", "f13"), ("bP", "f5")], "w - - 0 1");
    assert!(targets(&RULES, &open, "e5").contains(&s("g6")));
    // White pawn d5 takes f6 (D1) between e5 and e6.
    let pawn = |extra: &str| {
        build(&[("wK", "a8"), ("nK", "m8"), ("bK", "f13"), ("wP", "d5"), ("bN", "f6"), ("nP", extra)], "w - - 0 1")
    };
    assert!(targets(&RULES, &pawn("e5 e6"), "d5").iter().all(|t| t != "f6"), "shut: no capture");
    assert!(targets(&RULES, &pawn("e5"), "d5").contains(&s("f6")), "open: the capture");
}

/// §2, §6: attacks obey the passage rule too: a bishop gives no check through a
/// shut passage, and the king may step where only a shut passage leads.
#[test]
fn section_2_attacks_obey_the_passage_rule() {
    // Black's bishop g6 looks at e5 along D4, between f6 and f5.
    let check = build(&[("wK", "e5"), ("nK", "m8"), ("bK", "f13"), ("bB", "g6"), ("nP", "f6")], "w - - 0 1");
    assert!(moves::in_check(&parse(&RULES, &check), 0));
    let shut =
        build(&[("wK", "e5"), ("nK", "m8"), ("bK", "f13"), ("bB", "g6"), ("nP", "f6"), ("wN", "f5")], "w - - 0 1");
    assert!(!moves::in_check(&parse(&RULES, &shut), 0));
    // The knight f5 shuts the passage: it is pinned (every move of it is illegal).
    assert_eq!(targets(&RULES, &shut, "f5"), Vec::<String>::new());
}

/// §2: the knight's twelve jumps; cells in between do not matter.
#[test]
fn section_2_knight_jumps_over_pieces() {
    let text = build(
        &[("wK", "a8"), ("nK", "m8"), ("bK", "f13"), ("wN", "d5"), ("wP", "c4 c5 d4 d6 e5 e6"), ("bP", "e4")],
        "w - - 0 1",
    );
    assert_eq!(targets(&RULES, &text, "d5"), ["a3", "a4", "b2", "b6", "c2", "c7", "e3", "e8", "f4", "f8", "g6", "g7"]);
}

// §4: the pieces ----------------------------------------------------------------------------

/// §4: the rook slides along the six straight directions through empty cells and
/// captures a piece of either opponent, never its own nor a king.
#[test]
fn section_4_rook_captures_either_opponent() {
    let text = build(
        &[
            ("wK", "a8"),
            ("nK", "m8"),
            ("bK", "f13"),
            ("wR", "e5"),
            ("nP", "e8"),
            ("bN", "h5"),
            ("wP", "d5"),
            ("nB", "c3"),
        ],
        "w - - 0 1",
    );
    let t = targets(&RULES, &text, "e5");
    for cell in ["e6", "e7", "e8", "f5", "g5", "h5", "e4", "e1", "f6", "m13", "d4", "c3"] {
        assert!(t.contains(&s(cell)), "{cell} in {t:?}");
    }
    assert!(!t.contains(&s("d5")) && !t.contains(&s("e9")) && !t.contains(&s("i5")) && !t.contains(&s("b2")), "{t:?}");
    // A king is never captured: a rook that attacks one has no move onto it.
    let king = build(&[("wK", "a8"), ("nK", "a6"), ("bK", "f13"), ("wR", "a1")], "w - - 0 1");
    assert_eq!(
        targets(&RULES, &king, "a1"),
        [
            "a2", "a3", "a4", "a5", "b1", "b2", "c1", "c3", "d1", "d4", "e1", "e5", "f1", "f6", "g7", "h8", "i9",
            "j10", "k11", "l12", "m13"
        ]
    );
}

/// §4: pawns move only away from their baseline, each seat in its own two
/// straight directions (one step onto an empty cell; two in the same direction
/// from the start line, both empty), and capture in three diagonal directions.
#[test]
fn section_4_pawn_directions_of_each_seat() {
    let pieces = [("wK", "a8"), ("nK", "m8"), ("bK", "f13"), ("wP", "b3 d5"), ("nP", "h4 i8"), ("bP", "h12 g9")];
    let at = |turn: &str| build(&pieces, &format!("{turn} - - 0 1"));
    let pawn_moves = |turn: &str| {
        let text = at(turn);
        let state = parse(&RULES, &text);
        legal(&RULES, &text)
            .into_iter()
            .filter(|m| state.piece_at(hex(m.split('-').next().unwrap())).is_some_and(|p| p.1 == Kind::Pawn))
            .collect::<Vec<_>>()
    };
    // White: S1 and S2 (up-left, up-right), two steps from row b.
    assert_eq!(pawn_moves("w"), ["b3-c3", "b3-c4", "b3-d3", "d5-e5", "d5-e6"]);
    // Brown: S3 and S4 (right, down-right), two steps from e1 f2 … m9.
    assert_eq!(pawn_moves("n"), ["h4-f4", "h4-g4", "h4-h5", "h4-h6", "i8-h8", "i8-i9"]);
    // Black: S5 and S0 (down-left, left), two steps from e12 … m12.
    assert_eq!(pawn_moves("b"), ["g9-f8", "g9-g8", "h12-f10", "h12-g11", "h12-h10", "h12-h11"]);
    // b3-d5 would be two steps up-right, but d5 is taken: only b3-c4.
    // A pawn on a dead-end cell (m9–m12 for White) has no move and stays.
    let dead = build(&[("wK", "a2"), ("nK", "j5"), ("bK", "f13"), ("wP", "m10")], "w - - 0 1");
    assert_eq!(targets(&RULES, &dead, "m10"), Vec::<String>::new());
    // The first step blocked: no double step either.
    let blocked = build(&[("wK", "a2"), ("nK", "j5"), ("bK", "f13"), ("wP", "b4"), ("nP", "c4")], "w - - 0 1");
    assert_eq!(targets(&RULES, &blocked, "b4"), ["c5", "d6"]);
}

/// §4: a pawn that arrives on any cell of an opponent's baseline, by a step or a
/// capture, corners included, becomes a queen, rook, bishop or knight of its own
/// seat as part of the move: four moves, one per piece. **Decision**: compulsory,
/// and the choice is free (a second queen while the first stands).
#[test]
fn section_4_promotion() {
    let text = build(
        &[("wK", "a2"), ("wQ", "a5"), ("nK", "j5"), ("bK", "f13"), ("wP", "k7 k11 m10"), ("nR", "m8"), ("bN", "l13")],
        "w - - 0 1",
    );
    let pawns: Vec<String> = legal(&RULES, &text).into_iter().filter(|m| m.starts_with('k')).collect();
    assert_eq!(
        pawns,
        [
            "k11-l11",
            "k11-l12",
            "k11-l13=B",
            "k11-l13=N",
            "k11-l13=Q",
            "k11-l13=R",
            "k7-l7=B",
            "k7-l7=N",
            "k7-l7=Q",
            "k7-l7=R",
            "k7-l8",
            "k7-m8=B",
            "k7-m8=N",
            "k7-m8=Q",
            "k7-m8=R"
        ]
    );
    // Every spelling of the piece; none is ambiguous without one.
    for (text_mv, canonical) in
        [("k7-l7=D", "k7-l7=Q"), ("k7-l7=Q", "k7-l7=Q"), ("l7T", "k7-l7=R"), ("k7xm8S", "k7-m8=N")]
    {
        assert_eq!(read(&RULES, &text, text_mv), Ok(s(canonical)), "{text_mv}");
    }
    assert!(matches!(read(&RULES, &text, "k7-l7"), Err(MoveError::Ambiguous { .. })), "compulsory: name the piece");
    let (after, _) = play(&RULES, &text, "k7-l7=Q");
    assert!(after.starts_with("nR1wP3/wQ5bN/5wP2/"), "a second white queen on l7: {after}");
}

// §4: en passant ---------------------------------------------------------------------------

/// White's pawn b5 double-steps to d5 over c5; Brown's pawn d4 and Black's pawn
/// e6 could both capture onto c5; `extra` adds pieces.
fn en_passant_start(extra: &[(&str, &str)]) -> String {
    let mut pieces = vec![("wK", "a8"), ("nK", "j5"), ("bK", "i13"), ("wP", "b5"), ("nP", "d4"), ("bP", "e6")];
    pieces.extend_from_slice(extra);
    build(&pieces, "w - - 0 1")
}

/// §4, **Decision** (`en_passant = round`): after a double step either opponent
/// may take en passant — onto the skipped cell, removing the pawn — until the
/// double-stepping seat is to move again.
#[test]
fn section_4_en_passant_lasts_the_round() {
    let (after, _) = play(&RULES, &en_passant_start(&[]), "b5-d5");
    assert_eq!(after, "6/7/8/nK8/9bK/11/12/13/5bP6/3nPwP6/10/9/7wK n - b5-d5 0 1");
    assert_eq!(targets(&RULES, &after, "d4"), ["c4", "c5", "e6"]);
    let (taken, _) = play(&RULES, &after, "d4-c5");
    assert_eq!(taken, "6/7/8/nK8/9bK/11/12/13/5bP6/11/4nP5/9/7wK b - - 0 1");
    // Brown lets it pass; Black may still take.
    let (later, _) = play(&RULES, &after, "j5-j6");
    assert_eq!(later, "6/7/8/1nK7/9bK/11/12/13/5bP6/3nPwP6/10/9/7wK b - b5-d5 1 1");
    assert_eq!(targets(&RULES, &later, "e6"), ["c5", "d4", "e5"]);
    let (taken, _) = play(&RULES, &later, "e6-c5");
    assert_eq!(taken, "6/7/8/1nK7/9bK/11/12/13/12/3nP7/4bP5/9/7wK w - - 0 2");
    // Nobody takes: when White is to move again, the right is gone.
    let (round, _) = play(&RULES, &later, "i13-i12");
    assert_eq!(round, "6/7/8/1nK7/8bK1/11/12/13/5bP6/3nPwP6/10/9/7wK w - - 2 2");
}

/// §11 option `en_passant = next`: only the next seat may take en passant.
#[test]
fn section_11_en_passant_next() {
    let next = Dreierschach { en_passant: EnPassant::Next, ..RULES };
    let (after, _) = play(&next, &en_passant_start(&[]), "b5-d5");
    assert!(targets(&next, &after, "d4").contains(&s("c5")));
    let (later, _) = play(&next, &after, "j5-j6");
    assert_eq!(later, "6/7/8/1nK7/9bK/11/12/13/5bP6/3nPwP6/10/9/7wK b - - 1 1");
    assert_eq!(targets(&next, &later, "e6"), ["d4", "e5"]);
    // A live entry of a seat other than the last mover is refused under `next`.
    let stale = "6/7/8/1nK7/9bK/11/12/13/5bP6/3nPwP6/10/9/7wK b - b5-d5 1 1";
    let err = next.parse_state(stale).expect_err("refused");
    assert!(err.to_string().contains("only the last mover's entry"), "{err}");
    assert!(RULES.parse_state(stale).is_ok());
}

/// §4 and §9: the capture obeys the passage rule, and the right is dropped when
/// the skipped cell is filled or the pawn is gone.
#[test]
fn section_4_en_passant_passes_and_lapses() {
    // e6→c5 passes between d6 and d5: with d6 filled (d5 is the pawn) it is shut.
    let (shut, _) = play(&RULES, &en_passant_start(&[("nN", "d6")]), "b5-d5 j5-j6");
    assert_eq!(targets(&RULES, &shut, "e6"), ["d4", "e5"]);
    // Brown's knight fills the skipped cell: the entry is dropped.
    let (filled, _) = play(&RULES, &en_passant_start(&[("nN", "b7")]), "b5-d5 b7-c5");
    assert_eq!(filled, "6/7/8/nK8/9bK/11/12/13/5bP6/3nPwP6/4nN5/9/7wK b - - 1 1");
    // Brown's rook takes the pawn: the entry goes with it.
    let (gone, _) = play(&RULES, &en_passant_start(&[("nR", "d9")]), "b5-d5 d9-d5");
    assert_eq!(gone, "6/7/8/nK8/9bK/11/12/13/5bP6/3nPnR6/10/9/7wK b - - 0 1");
}

// §5: castling --------------------------------------------------------------------------------

/// Every king and rook at home, nothing between: each seat may castle both ways.
fn castling_position(extra: &[(&str, &str)], turn: &str) -> String {
    let mut pieces =
        vec![("wK", "a4"), ("wR", "a1 a8"), ("nK", "j5"), ("nR", "m8 f1"), ("bK", "i13"), ("bR", "f13 m13")];
    pieces.extend_from_slice(extra);
    build(&pieces, &format!("{turn} a1,a8,f1,f13,m8,m13 - 0 1"))
}

fn castlings(rules: &Dreierschach, text: &str) -> Vec<String> {
    let state = parse(rules, text);
    moves::legal_moves(&state, state.turn)
        .into_iter()
        .filter(|m| matches!(m.kind, MoveKind::Castle(_)))
        .map(|m| m.to_string())
        .collect()
}

/// §5 and §12: the castling squares, written as the king's move: a4→a2 short,
/// a4→a7 long; j5→l7 and j5→g2; i13→g13 and i13→l13. The rook goes over the
/// king to the cell next to it.
#[test]
fn section_5_castling_squares() {
    assert_eq!(castlings(&RULES, &castling_position(&[], "w")), ["a4-a2", "a4-a7"]);
    assert_eq!(castlings(&RULES, &castling_position(&[], "n")), ["j5-l7", "j5-g2"]);
    assert_eq!(castlings(&RULES, &castling_position(&[], "b")), ["i13-g13", "i13-l13"]);
    let (short, _) = play(&RULES, &castling_position(&[], "w"), "0-0");
    assert_eq!(short, "nR4bR/7/8/nK8/9bK/11/12/nR11bR/12/11/10/9/1wKwR4wR n f1,f13,m8,m13 - 1 1");
    let (all_long, _) = play(&RULES, &castling_position(&[], "w"), "a4-a7 O-O-O 0-0-0");
    assert_eq!(all_long, "nR5/6bK/7bR/9/10/nR10/nK11/12bR/12/11/10/9/wR4wRwK1 w - - 3 2");
    // No other king move is a castling: a4-a3 is a step, and costs both rights.
    let (step, _) = play(&RULES, &castling_position(&[], "w"), "a4-a3");
    assert!(step.contains(" n f1,f13,m8,m13 - 1 1"), "{step}");
}

/// §5: no castling out of check, nor across or onto a cell either opponent
/// attacks; on the long side all three cells must be safe.
#[test]
fn section_5_castling_needs_safe_cells() {
    // Black's knight d6 checks a4.
    assert_eq!(castlings(&RULES, &castling_position(&[("bN", "d6")], "w")), Vec::<String>::new());
    // a2 attacked (by Black's or by Brown's knight on d4): only the long side.
    assert_eq!(castlings(&RULES, &castling_position(&[("bN", "d4")], "w")), ["a4-a7"]);
    assert_eq!(castlings(&RULES, &castling_position(&[("nN", "d4")], "w")), ["a4-a7"]);
    // a7 (the king's target) or a5 attacked: only the short side.
    assert_eq!(castlings(&RULES, &castling_position(&[("bN", "d9")], "w")), ["a4-a2"]);
    assert_eq!(castlings(&RULES, &castling_position(&[("bN", "d7")], "w")), ["a4-a2"]);
    // A cell between filled: not that side.
    assert_eq!(castlings(&RULES, &castling_position(&[("wN", "a6")], "w")), ["a4-a2"]);
}

/// §5, **Decision**: rights are kept per rook. A rook that moves (even back)
/// loses its own right only; a rook taken on its start cell loses its right; a
/// king move loses both.
#[test]
fn section_5_rights_per_rook() {
    let (back, _) = play(&RULES, &castling_position(&[], "w"), "a1-b1 j5-j6 i13-i12 b1-a1 j6-j5 i12-i13");
    assert_eq!(back, "nR4bR/7/8/nK8/9bK/11/12/nR11bR/12/11/10/9/wR2wK3wR w a8 - 6 3");
    assert_eq!(castlings(&RULES, &back), ["a4-a7"]);
    let (taken, _) = play(&RULES, &castling_position(&[("bN", "d3")], "b"), "d3-a1");
    assert_eq!(taken, "nR4bR/7/8/nK8/9bK/11/12/nR11bR/12/11/10/9/bN2wK3wR w a8,f1,f13,m8,m13 - 0 2");
    // A right whose rook or king is not at home is refused in a state string.
    let err = RULES.parse_state(&taken.replace(" a8,f1", " a1,a8,f1")).expect_err("refused");
    assert!(err.to_string().contains("castling right a1: no white rook there"), "{err}");
}

// §6: check and legal moves --------------------------------------------------------------------

/// §6: either opponent gives check; a pinned piece stays; a move may leave
/// another seat's king attacked; kings are never captured (**Decision**), and a
/// king left in check by someone else's move is simply in check on its turn.
#[test]
fn section_6_check_by_either_opponent() {
    let by = |attacker: (&str, &str)| {
        let text = build(&[("wK", "e5"), ("nK", "m8"), ("bK", "f13"), attacker], "w - - 0 1");
        moves::in_check(&parse(&RULES, &text), 0)
    };
    assert!(by(("nR", "e9")), "Brown's rook");
    assert!(by(("bR", "e9")), "Black's rook");
    assert!(!by(("wR", "e9")), "its own rook");
    // White's knight e7 stands between the king e5 and Brown's rook e9: pinned.
    let pin = build(&[("wK", "e5"), ("wN", "e7"), ("nR", "e9"), ("nK", "m8"), ("bK", "f13")], "w - - 0 1");
    assert_eq!(targets(&RULES, &pin, "e7"), Vec::<String>::new());
    let err = read(&RULES, &pin, "Se7-h8").expect_err("pinned");
    assert!(err.to_string().contains("knight on e7 is pinned"), "{err}");
    // White's rook a1 attacks Brown's king a6 (Black's move left it so): White
    // may not take it, and may leave it attacked.
    let exposed = build(&[("wK", "a8"), ("nK", "a6"), ("bK", "f13"), ("wR", "a1")], "w - - 0 1");
    let list = legal(&RULES, &exposed);
    assert!(!list.contains(&s("a1-a6")) && list.contains(&s("a1-a5")) && list.contains(&s("a1-b1")));
    let (after, outcome) = play(&RULES, &exposed, "a1-b1");
    assert_eq!(outcome, None);
    // Brown is no longer attacked; had White stayed, Brown must answer.
    assert!(!moves::in_check(&parse(&RULES, &after), 1));
    let (stay, _) = play(&RULES, &exposed, "a8-b9");
    assert!(moves::in_check(&parse(&RULES, &stay), 1), "Brown is in check on its turn");
    let state = parse(&RULES, &stay);
    let answers = RULES.legal_moves(&state, BROWN);
    assert!(!answers.is_empty());
    for mv in answers {
        let next = RULES.next_state(&state, &[(BROWN, mv)]).expect("legal");
        assert!(!moves::in_check(&next, 1), "{mv} answers the check");
    }
}

// §7: the end of the game and the scores ---------------------------------------------------

/// §7: checkmate ends the game at once; the mated seat scores 0, the winner is
/// the first seat after it in turn order with a piece attacking its king
/// (**Decision**), 3 points; the other seat 1. The state's seat is the mated one.
#[test]
fn section_7_checkmate_scores_3_1_0() {
    // White's queen mates Brown's king a2 on a3; Black does not attack it: White 3.
    let queen = "6/7/2wQ5/9/6wK3/11/7bN4/13/12/2bR1bK6/10/9/1nK6 w - - 0 1";
    let (after, ended) = play(&RULES, queen, "k8-a3");
    assert_eq!(after, "6/7/8/9/6wK3/11/7bN4/13/12/2bR1bK6/10/9/1nKwQ5 n - - 1 1");
    assert_eq!(ended, Some((s("3-0-1"), EndReason::Checkmate)));
    // Brown's king mated with both White's and Black's pieces on it: Black
    // moves next after Brown, so Black scores 3 though White's move mated.
    let both = "6/7/5wR2/9/3bRnK1wK3/11/12/6bK6/12/10nR/4bR5/9/8 w - - 0 1";
    let (after, ended) = play(&RULES, both, "k11-i9");
    assert_eq!(ended, Some((s("1-0-3"), EndReason::Checkmate)));
    let state = parse(&RULES, &after);
    assert!(moves::attacked(&state.board, state.kings[1], 1) && moves::attacked(&state.board, state.kings[1], 4));
    // White's forced king move uncovers Black's rook on Brown's king: Black 3.
    let discovered = "6/7/8/9/6bK3/2bR1bQ6/2wK9/3wR9/12/nK10/10/9/2wN5 w - - 0 1";
    assert_eq!(legal(&RULES, discovered), ["g4-g3"], "White is in check with one move");
    assert_eq!(play(&RULES, discovered, "g4-g3").1, Some((s("1-0-3"), EndReason::Checkmate)));
    // Brown mates Black; White, first after Black, attacks too: White 3, Brown 1.
    let black = "6/5wKwR/8/7nB1/5nK4/11/3wR1bK6/13/5nQ6/8bP2/10/9/8 n - - 0 1";
    let (after, ended) = play(&RULES, black, "j12-k11");
    assert_eq!(ended, Some((s("3-1-0"), EndReason::Checkmate)));
    assert!(after.contains(" b - - "), "the mated seat is the state's seat: {after}");
    // The game is over.
    assert!(outcome(&RULES, &after).is_some());
    let dynamic: &dyn crate::rules::DynVariant = &RULES;
    assert!(dynamic.resolve(&[], &after, &[(BLACK, s("l13-k12"))]).is_err());
}

/// §7: a seat not in check without a legal move is stalemated: a draw, 1 each.
#[test]
fn section_7_stalemate() {
    let text = "6/1bK5/8/9/10/2nR1bR6/11nK/13/12/11/9bQ/9/6wK1 b - - 0 1";
    let (after, outcome) = play(&RULES, text, "h7-b1");
    assert_eq!(after, "6/1bK5/8/9/10/2nR8/11nK/13/12/11/9bQ/bR8/6wK1 w - - 1 2");
    assert_eq!(outcome, Some((s("1-1-1"), EndReason::Stalemate)));
}

/// §7: only the three kings left is a draw, 1 each; no other material rule.
#[test]
fn section_7_three_kings_alone() {
    let text = build(&[("wK", "a4"), ("nK", "j5"), ("bK", "i13"), ("nN", "a5")], "w - - 7 3");
    let (_, ended) = play(&RULES, &text, "a4-a5");
    assert_eq!(ended, Some((s("1-1-1"), EndReason::InsufficientMaterial)));
    let bishop = build(&[("wK", "a4"), ("nK", "j5"), ("bK", "i13"), ("wB", "c3")], "w - - 7 3");
    assert_eq!(outcome(&RULES, &bishop), None, "a lone bishop plays on");
}

/// §7, §11: with `no_progress = N`, N plies without a capture or a pawn move
/// draw the game, 1 each; by default the count goes on.
#[test]
fn section_11_no_progress() {
    let text = build(&[("wK", "a4"), ("nK", "j5"), ("bK", "i13"), ("wR", "e5")], "w - - 149 50");
    let limited = Dreierschach { no_progress: Some(150), ..RULES };
    assert_eq!(play(&limited, &text, "e5-e6").1, Some((s("1-1-1"), EndReason::NoProgress)));
    assert_eq!(play(&RULES, &text, "e5-e6").1, None);
    let (after, _) = play(&RULES, &text, "e5-e6");
    assert!(after.ends_with(" n - - 150 50"), "{after}");
}

/// §7, **Decisions**: resignation scores 0 for the resigner and 2 each for the
/// others, or as after a mate if its king is in check; a timeout is a
/// resignation at that moment; a draw agreed by all three is 1 each.
#[test]
fn section_7_resignation_timeout_agreement() {
    let start = DsState::start();
    let resign = |state: &DsState, seat: Seat| {
        Variant::resignation(&RULES, state, seat).map(|o| (o.result.score_text(3), o.reason))
    };
    assert_eq!(resign(&start, BROWN), Some((s("2-0-2"), EndReason::Resignation)));
    assert_eq!(resign(&start, WHITE), Some((s("0-2-2"), EndReason::Resignation)));
    // Brown's king a6 is attacked by White's rook when Brown resigns: Black
    // comes first after Brown but does not attack it, White does: 3-0-1.
    let exposed = parse(&RULES, &build(&[("wK", "a8"), ("nK", "a6"), ("bK", "f13"), ("wR", "a1")], "w - - 0 1"));
    assert_eq!(resign(&exposed, BROWN), Some((s("3-0-1"), EndReason::Resignation)));
    let late = |seats: &[Seat]| {
        Variant::timeout(&RULES, &exposed, seats.iter().copied().collect()).map(|o| (o.result.score_text(3), o.reason))
    };
    assert_eq!(late(&[BROWN]), Some((s("3-0-1"), EndReason::Time)));
    assert_eq!(late(&[BLACK]), Some((s("2-2-0"), EndReason::Time)));
    assert_eq!(late(&[]), None);
    let draw = Variant::agreed_draw(&RULES, &start);
    assert_eq!((draw.outcome.result, draw.outcome.reason), (GameResult::points(&[1, 1, 1]), EndReason::Agreement));
    assert_eq!(Variant::agreed_draw(&RULES, &start).seats.len(), 3, "all three must agree");
}

/// §3: White, Brown, Black in turn; the round grows after Black's move; the
/// halfmove counter counts plies since a capture or a pawn move.
#[test]
fn section_3_turn_order_and_counters() {
    let (after, _) = play(&RULES, START, "a3-c2 k6-j8 l13-k10");
    assert!(after.ends_with(" w a1,a8,f1,f13,m8,m13 - 3 2"), "{after}");
    let state = parse(&RULES, &after);
    assert_eq!(Variant::seats_to_move(&RULES, &state), SeatSet::only(WHITE));
    assert!(Variant::legal_moves(&RULES, &state, BROWN).is_empty(), "only the seat to move has moves");
    let (pawn, _) = play(&RULES, &after, "b1-c1");
    assert!(pawn.ends_with(" n a1,a8,f1,f13,m8,m13 - 0 2"), "{pawn}");
}

// §8: move notation ---------------------------------------------------------------------------

/// §8: from-to with `-`, `x` or nothing; the author's notation with German or
/// English letters and an optional start letter, number or cell; castling with 0
/// or O; check marks ignored; a trailing `=` (a draw offer, **Decision**) read
/// past. Cells are lower case, so lower-case piece letters are not read.
#[test]
fn section_8_notation() {
    for (text, canonical) in [
        ("a7-c6", "a7-c6"),
        ("a7xc6", "a7-c6"),
        ("a7c6", "a7-c6"),
        ("Sa7-c6", "a7-c6"),
        ("S7c6", "a7-c6"),
        ("N7xc6", "a7-c6"),
        ("Sd9", "a7-d9"),
        ("Nd9", "a7-d9"),
        ("S3c6", "a3-c6"),
        ("7d9", "b7-d9"),
        ("b7-d9+", "b7-d9"),
        ("b7-d9++", "b7-d9"),
        ("b7-d9#", "b7-d9"),
        ("a7-c6=", "a7-c6"),
        (" a7-c6 ", "a7-c6"),
    ] {
        assert_eq!(read(&RULES, START, text), Ok(s(canonical)), "{text}");
    }
    // `d9` alone: the pawns b7 and b9 both reach it; the author's `7d9` tells.
    assert_eq!(
        read(&RULES, START, "d9"),
        Err(MoveError::Ambiguous { text: s("d9"), candidates: vec![s("b7-d9"), s("b9-d9")] })
    );
    assert!(matches!(read(&RULES, START, "Sc6"), Err(MoveError::Ambiguous { .. })), "a3 and a7 both reach c6");
    for text in ["sc6", "nc6", "Zc6", "a7-c66", "a0-c6", "hello", "7"] {
        assert!(matches!(read(&RULES, START, text), Err(MoveError::NotAMove { .. })), "{text}");
        assert!(Variant::move_text(&RULES, text).is_none(), "{text}");
    }
    for text in ["a7-c6", "Sg7", "S6g7", "S6xg7", "Le8", "7d9", "i4D", "h4-i4=Q", "0-0", "O-O-O", "a7-c6="] {
        assert!(Variant::move_text(&RULES, text).is_some(), "{text}");
    }
    // §8: a trailing `=` with no piece letter offers a draw with the move.
    assert_eq!(Variant::move_text(&RULES, "a7-c6="), Some(MoveText::OffersDraw));
    assert_eq!(Variant::move_text(&RULES, "h4-i4=Q"), Some(MoveText::Move));
    let err = read(&RULES, START, "hello").expect_err("not a move").to_string();
    assert!(err.contains("write moves from-to like a3-c2 or a3xc2") && err.contains("Sc2, Nc2"), "{err}");
    let err = read(&RULES, START, "a2-c3").expect_err("no move").to_string();
    assert!(err.contains("bishop on a2 cannot move to c3"), "{err}");
}

// §9: the state string ----------------------------------------------------------------------

/// §9: a state string is read strictly; every problem is named.
#[test]
fn section_9_refusals() {
    let refused = |text: &str, why: &str| {
        let err = RULES.parse_state(text).expect_err(text).to_string();
        assert!(err.contains(why), "{text}: {err}");
    };
    refused("x w - - 0 1", "expected 13 (m down to a)");
    refused(&START.replace(" 0 1", " 0"), "expected 6 fields");
    refused(&START.replace("/11/10/", "/12/10/"), "row d (\"12\") covers 12 cells, it has 11");
    refused(&START.replace("/11/10/", "/xQ10/10/"), "not a piece");
    refused(&START.replace(" w a1", " r a1"), "seat \"r\"");
    refused(&START.replace("a1,a8,f1", "a8,a1,f1"), "in cell order");
    refused(&START.replace("a1,a8,f1", "a2,a8,f1"), "not a rook's start cell");
    refused(&START.replace(" - 0 1", " b1-d2 0 1"), "not a pawn's double step");
    refused(&START.replace(" 0 1", " 0 0"), "round");
    refused(&START.replace(" 0 1", " 01 1"), "halfmove");
    refused(&START.replace("wRwBwNwKwQ", "wRwBwNwKwK"), "white has 2 kings (a4, a5)");
    refused(&START.replace("nKnP5", "nRnP5"), "brown has no king");
    refused(
        &START.replace("/11/10/", "/wP10/10/").replace("wRwBwNwKwQwBwNwR", "wRwBwNwKwQwBwNwP"),
        "white pawn on a8, its own baseline",
    );
    refused(&build(&[("wK", "a4"), ("nK", "j5"), ("bK", "i13"), ("wP", "l7")], "w - - 0 1"), "should have promoted");
    // An entry for the seat to move has lapsed; its pawn must stand and the cell it skipped be empty.
    refused(
        &START
            .replace(" - 0 1", " b1-d1 0 1")
            .replace("wPwPwPwPwPwPwPwPwP", "1wPwPwPwPwPwPwPwP")
            .replace("/11/10/", "/wP10/10/"),
        "lapses when white is to move again",
    );
    let ep = "6/7/8/nK8/9bK/11/12/13/5bP6/3nPwP6/10/9/7wK n - b5-d5 0 1";
    assert!(RULES.parse_state(ep).is_ok());
    refused(&ep.replace("3nPwP6", "3nP7"), "no white pawn on d5");
    refused(&ep.replace("/10/9/7wK", "/4nN5/9/7wK"), "the skipped cell c5 is occupied");
    // The seat that moved last cannot have left its king attacked (§6).
    refused(&build(&[("wK", "a4"), ("nK", "j5"), ("bK", "i13"), ("wR", "i4")], "w - - 0 1"), "black moved last");
}

/// §9: states read back unchanged; the round and halfmove are written as read.
#[test]
fn section_9_round_trip() {
    for text in [START, SAMPLE, "6/7/8/nK8/9bK/11/12/13/5bP6/3nPwP6/10/9/7wK n - b5-d5 0 1"] {
        assert_eq!(parse(&RULES, text).to_string(), text);
    }
}

// §8 and §11: V2.3 names ------------------------------------------------------------------

/// §8, §11 `names = v2.3`: move text and display use the V2.3 names (letter and
/// number swapped: V2.2 d9 is V2.3 i4); the state string and the canonical moves
/// keep V2.2, and stored canonical moves read back as themselves.
#[test]
fn section_11_names_v2_3() {
    let v23 = Dreierschach { names: Names::V23, ..RULES };
    let start = DsState::start();
    // White's knight a3 (V2.3 c1) to c6 (V2.3 f3).
    assert_eq!(read(&v23, START, "c1-f3"), Ok(s("a3-c6")));
    assert_eq!(read(&v23, START, "Scf3"), Ok(s("a3-c6")));
    assert!(matches!(read(&v23, START, "S1f3"), Err(MoveError::Ambiguous { .. })), "both knights stand on number 1");
    assert_eq!(Variant::notation(&v23, &start, WHITE, v23.parse_move(&start, WHITE, "c1-f3").unwrap()), "c1-f3");
    // b7-d9 in V2.2; in V2.3 names it is g2-i4.
    assert_eq!(read(&v23, START, "g2-i4"), Ok(s("b7-d9")));
    assert!(read(&v23, START, "a3-c6").is_err(), "V2.2 names are not the players' names here");
    let dynamic: &dyn crate::rules::DynVariant = &v23;
    let r = dynamic.resolve(&[], START, &[(WHITE, s("a3-c6"))]).expect("the canonical text reads back");
    assert_eq!(r.moves[0].mv, "a3-c6");
    assert_eq!(r.moves[0].notation, "c1-f3");
    assert_eq!(dynamic.notation(START, WHITE, "a3-c6"), Ok(s("c1-f3")));
    assert_eq!(
        dynamic.legal_moves(START, WHITE).unwrap(),
        RULES.legal_moves(&start, WHITE).iter().map(ToString::to_string).collect::<Vec<_>>()
    );
    let shape = Variant::board(&v23, &start).shape;
    assert_eq!(shape.cell(cell(hex("d9"))).map(|c| c.name.as_str()), Some("i4"));
    // The rows carry numbers now, the lines letters.
    let bottom: Vec<&str> = shape.labels.iter().filter(|l| l.outward.y < -0.99).map(|l| l.text.as_str()).collect();
    assert_eq!(bottom, ["a", "b", "c", "d", "e", "f", "g", "h"]);
}

/// §11: options are read by name and value; others are refused.
#[test]
fn section_11_options() {
    let o = |pairs: &[(&str, &str)]| pairs.iter().fold(Options::new(), |o, (k, v)| o.set(*k, *v));
    assert_eq!(Dreierschach::new(&Options::new()), Ok(RULES));
    let all = Dreierschach::new(&o(&[("en_passant", "next"), ("names", "v2.3"), ("no_progress", "150")])).unwrap();
    assert_eq!((all.en_passant, all.names, all.no_progress), (EnPassant::Next, Names::V23, Some(150)));
    assert_eq!(Dreierschach::new(&o(&[("no_progress", "off")])).unwrap().no_progress, None);
    for bad in [("en_passant", "never"), ("names", "v3"), ("no_progress", "0"), ("mode", "ffa")] {
        assert!(Dreierschach::new(&o(&[bad])).is_err(), "{bad:?}");
    }
}

// The board as the renderers see it ----------------------------------------------------------

/// §1: 126 pointed hexagons in three shades of 42, labels at both ends of every
/// row and line, each seat turned to the bottom, three armies and letters.
#[test]
fn the_board_for_the_renderers() {
    let view = Variant::board(&RULES, &DsState::start());
    let shape = &view.shape;
    assert_eq!(shape.cells.len(), 126);
    for shade in 0..3 {
        assert_eq!(shape.cells.iter().filter(|c| c.shade == shade).count(), 42);
    }
    assert!(shape.cells.iter().all(|c| c.outline == Outline::HexagonPointed && c.name == c.cell.coordinates()));
    // Rows a–m at their left ends, f–m at their right ends; numbers 1–8 along
    // the bottom, 9–13 along the top.
    let texts: Vec<&str> = shape.labels.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(shape.labels.len(), 13 + 8 + 8 + 5, "{texts:?}");
    for letter in ["a", "e", "f", "m"] {
        let n = texts.iter().filter(|t| **t == letter).count();
        assert_eq!(n, if letter < "f" { 1 } else { 2 }, "{letter}");
    }
    for number in 1..=13 {
        assert_eq!(texts.iter().filter(|t| **t == number.to_string()).count(), 1, "{number}");
    }
    assert_eq!(shape.seat_turns, [0.0, 120.0, 240.0]);
    assert_eq!(shape.armies, [Army::White, Army::Brown, Army::Black]);
    assert_eq!(shape.seat_letters, ['w', 'n', 'b']);
    assert_eq!(view.pieces.len(), 51);
    // Each seat's baseline lies lowest in its own view.
    for (seat, turn) in shape.seat_turns.iter().enumerate() {
        let y = |name: &str| shape.cell(cell(hex(name))).unwrap().centre.turned(*turn).y;
        let base = SEATS[seat].baseline.map(|h| y(&h.to_string()));
        let lowest = shape.cells.iter().map(|c| c.centre.turned(*turn).y).fold(f32::MAX, f32::min);
        assert!(base.iter().all(|b| (b - lowest).abs() < 1e-3), "seat {seat}: {base:?} vs {lowest}");
    }
}

/// The move paths for the pictures: a castling king passes the cells between;
/// en passant takes the double-stepped pawn; a capture takes its target.
#[test]
fn move_paths() {
    let c = |name: &str| cell(hex(name));
    let castle = parse(&RULES, &castling_position(&[], "w"));
    let path = Variant::move_path(&RULES, Some(&castle), "a4-a7").unwrap();
    assert_eq!(path.cells, [c("a4"), c("a5"), c("a6"), c("a7")]);
    assert!(path.captures.is_empty());
    let (ep, _) = play(&RULES, &en_passant_start(&[]), "b5-d5");
    let path = Variant::move_path(&RULES, Some(&parse(&RULES, &ep)), "d4-c5").unwrap();
    assert_eq!((path.cells, path.captures), (vec![c("d4"), c("c5")], vec![c("d5")]));
    let take = Variant::move_path(&RULES, Some(&parse(&RULES, SAMPLE)), "a6-m12").unwrap();
    assert_eq!(take.captures, [c("m12")]);
    assert_eq!(Variant::move_path(&RULES, None, "b7-d9"), Some(MovePath::step(c("b7"), c("d9"))));
    assert_eq!(Variant::move_path(&RULES, None, "O-O"), None);
}

/// §7, **Decision**: threefold repetition and a move limit are off; the knights
/// going back and forth three times end nothing.
#[test]
fn section_7_no_repetition_rule() {
    let round = "a3-c2 k6-j8 l13-k10 c2-a3 j8-k6 k10-l13";
    let (after, ended) = play(&RULES, START, &format!("{round} {round} {round}"));
    assert_eq!(ended, None);
    assert!(after.starts_with(&START[..START.len() - 6]), "the start position again: {after}");
    assert!(after.ends_with(" w a1,a8,f1,f13,m8,m13 - 18 7"), "{after}");
}
