//! Hand-built positions for every rule and Decision of `docs/rules/vierschach.md`,
//! named after its sections. Each expected state string was also checked against
//! the independent oracle in `tools/vierschach_oracle/`.

use super::*;
use crate::rules::{GameResult, MoveError, Variant};
use state::{EMPTY_BOARD, piece};

const START: &str = "nRnNnBnKnQnBnNnR/nPnPnPnPnPnPnPnP/8/wRwP10ePeR/wNwP10ePeN/wBwP10ePeB/wQwP10ePeK/wKwP10ePeQ/wBwP10ePeB/wNwP10ePeN/wRwP10ePeR/8/sPsPsPsPsPsPsPsP/sRsNsBsQsKsBsNsR s d1,k1,a4,n4,a11,n11,d14,k14 - aaaa 0 1";

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|| panic!("no square {name}"))
}

/// A state string from pieces (`("sR", "b10 c11")`: South's rooks on b10 and c11)
/// and the six fields after the placement.
fn build(pieces: &[(&str, &str)], rest: &str) -> String {
    let mut state = VsState::start();
    state.board = EMPTY_BOARD;
    for (code, squares) in pieces {
        let b = code.as_bytes();
        let seat = SEAT_LETTERS.iter().position(|&c| c as u8 == b[0]).expect("seat letter");
        let kind = Kind::from_letter(b[1]).expect("piece letter");
        for name in squares.split_whitespace() {
            state.board[sq(name).cell()] = piece(seat, kind);
        }
    }
    let text = state.to_string();
    let placement = text.split(' ').next().expect("placement");
    format!("{placement} {rest}")
}

fn parse(rules: &Vierschach, text: &str) -> VsState {
    rules.parse_state(text).unwrap_or_else(|e| panic!("{e}"))
}

fn legal(rules: &Vierschach, text: &str) -> Vec<String> {
    let state = parse(rules, text);
    Variant::legal_moves(rules, &state, seat_of(state.turn)).iter().map(ToString::to_string).collect()
}

/// Plays the moves in any notation; returns the state string, the outcome as
/// per-seat scores with its reason, and the notes of the last move.
fn play(rules: &Vierschach, text: &str, moves: &str) -> (String, Option<(String, EndReason)>, Vec<String>) {
    let mut state = parse(rules, text);
    let mut outcome = None;
    let mut notes = Vec::new();
    for m in moves.split_whitespace() {
        let seat = seat_of(state.turn);
        let mv = Variant::check_move(rules, &state, seat, m).unwrap_or_else(|e| panic!("{m} in {state}: {e}"));
        let r = Variant::resolve(rules, &[], &state, &[(seat, mv)]).unwrap_or_else(|e| panic!("{m} in {state}: {e}"));
        assert_eq!(rules.parse_state(&r.state.to_string()).as_ref(), Ok(&r.state), "round trip of {}", r.state);
        state = r.state;
        outcome = r.outcome.map(|o| (o.result.score_text(4), o.reason));
        notes = r.notes;
    }
    (state.to_string(), outcome, notes)
}

const TEAMS: Vierschach = Vierschach::teams();
const FFA: Vierschach = Vierschach::ffa();

// §10 and §13: the start -----------------------------------------------------------

/// §10: the start state string, exactly.
#[test]
fn section_10_start_string() {
    assert_eq!(VsState::start().to_string(), START);
    assert_eq!(parse(&TEAMS, START), VsState::start());
}

/// §13: 20 legal moves for South: 8 pawns × 2, knights e1 → d3 f3, j1 → i3 k3.
#[test]
fn section_13_twenty_moves() {
    let moves = legal(&TEAMS, START);
    assert_eq!(moves.len(), 20);
    for m in ["d2-d3", "d2-d4", "k2-k4", "e1-d3", "e1-f3", "j1-i3", "j1-k3"] {
        assert!(moves.contains(&m.to_owned()), "{m}");
    }
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted, "sorted by byte value");
}

/// §13: perft 1–3 = 20 / 395 / 7 800, teams and free-for-all alike.
#[test]
fn section_13_perft() {
    for rules in [TEAMS, FFA] {
        let start = Variant::start(&rules);
        let counts: Vec<u64> = (1..=3).map(|d| Variant::perft(&rules, &start, d)).collect();
        assert_eq!(counts, [20, 395, 7_800], "{:?}", rules.mode);
    }
}

/// §13: after d2-d4 the state string of the rules file; West's b4 has only b4-c4.
#[test]
fn section_13_after_d4() {
    let (after, outcome, _) = play(&TEAMS, START, "d2-d4");
    assert_eq!(
        after,
        "nRnNnBnKnQnBnNnR/nPnPnPnPnPnPnPnP/8/wRwP10ePeR/wNwP10ePeN/wBwP10ePeB/wQwP10ePeK/wKwP10ePeQ/wBwP10ePeB/wNwP10ePeN/wRwP1sP8ePeR/8/1sPsPsPsPsPsPsP/sRsNsBsQsKsBsNsR w d1,k1,a4,n4,a11,n11,d14,k14 d3 aaaa 0 1"
    );
    assert_eq!(outcome, None);
    let west = legal(&TEAMS, &after);
    assert_eq!(west.len(), 19);
    assert_eq!(west.iter().filter(|m| m.starts_with("b4-")).collect::<Vec<_>>(), ["b4-c4"]);
}

/// §13: after f2-f3 or f2-f4 West's b6 is pinned by South's queen g1 and West has 18 moves.
#[test]
fn section_13_pinned_b6() {
    for first in ["f2-f3", "f2-f4"] {
        let (after, _, _) = play(&TEAMS, START, first);
        let west = legal(&TEAMS, &after);
        assert_eq!(west.len(), 18, "{first}");
        assert!(!west.iter().any(|m| m.starts_with("b6-")), "{first}: {west:?}");
    }
}

/// §13 corners: a bishop on a4 never reaches d1; a rook on d3 cannot go to c3; a
/// knight on d3 of an empty board has exactly b4, c5, e1, e5, f2, f4.
#[test]
fn section_13_corners() {
    let kings = [("sK", "h8"), ("wK", "a11"), ("nK", "k14"), ("eK", "n11")];
    let with = |extra: (&str, &str)| {
        let mut p = kings.to_vec();
        p.push(extra);
        build(&p, "s - - aaaa 0 1")
    };
    let bishop: Vec<String> = legal(&TEAMS, &with(("sB", "a4"))).into_iter().filter(|m| m.starts_with("a4-")).collect();
    assert_eq!(
        bishop,
        ["a4-b5", "a4-c6", "a4-d7", "a4-e8", "a4-f9", "a4-g10", "a4-h11", "a4-i12", "a4-j13"]
            .iter()
            .map(|s| s.to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    );
    let rook = legal(&TEAMS, &with(("sR", "d3")));
    assert!(!rook.contains(&"d3-c3".to_owned()));
    assert!(rook.contains(&"d3-k3".to_owned()) && rook.contains(&"d3-d1".to_owned()));
    let knight: Vec<String> = legal(&TEAMS, &with(("sN", "d3"))).into_iter().filter(|m| m.starts_with("d3-")).collect();
    assert_eq!(knight, ["d3-b4", "d3-c5", "d3-e1", "d3-e5", "d3-f2", "d3-f4"]);
}

// §4: captures and kings -------------------------------------------------------------

/// §4: pieces never capture their own pieces, frozen pieces or a king (Decision:
/// kings are never captured); the partner's only with `partner_capture`.
#[test]
fn section_4_what_can_be_captured() {
    // South's rook on h5 sees: the West king h9 (never), a frozen West knight? No:
    // West is active here; the North (partner) bishop e5 and the East knight k5.
    let pieces = [
        ("sK", "h1"),
        ("sR", "h5"),
        ("wK", "h9"),
        ("nK", "g14"),
        ("nB", "e5"),
        ("eK", "n4"),
        ("eN", "k5"),
        ("sP", "h3"),
    ];
    let text = build(&pieces, "s - - aaaa 0 1");
    let rook: Vec<String> = legal(&TEAMS, &text).into_iter().filter(|m| m.starts_with("h5-")).collect();
    assert!(rook.contains(&"h5-k5".to_owned()), "an active enemy: {rook:?}");
    assert!(!rook.contains(&"h5-h9".to_owned()), "never the king");
    assert!(rook.contains(&"h5-h8".to_owned()));
    assert!(!rook.contains(&"h5-e5".to_owned()) && rook.contains(&"h5-f5".to_owned()), "not the partner");
    assert!(!rook.contains(&"h5-h3".to_owned()), "never its own");
    let pc = Vierschach { partner_capture: true, ..TEAMS };
    assert!(legal(&pc, &text).contains(&"h5-e5".to_owned()), "partner_capture");
    // East frozen: its knight can no longer be taken.
    let frozen = build(&pieces, "s - - aaam 0 1");
    let frozen_moves = legal(&TEAMS, &frozen);
    assert!(!frozen_moves.contains(&"h5-k5".to_owned()) && frozen_moves.contains(&"h5-j5".to_owned()));
}

// §4: pawns ---------------------------------------------------------------------------

/// §4 promotion on each other seat's back rank: the partner's (North, rank 14)
/// with `ally_promotion`, West's (file a) and East's (file n) always; four choices.
#[test]
fn section_4_promotion_on_each_back_rank() {
    let text = build(
        &[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sP", "e13 b6 m6"), ("wR", "a7"), ("eR", "n7")],
        "s - - aaaa 0 1",
    );
    assert_eq!(
        legal(&TEAMS, &text),
        [
            "b6-a7=B",
            "b6-a7=N",
            "b6-a7=Q",
            "b6-a7=R",
            "b6-b7",
            "e13-e14=B",
            "e13-e14=N",
            "e13-e14=Q",
            "e13-e14=R",
            "h1-g1",
            "h1-g2",
            "h1-h2",
            "h1-i1",
            "h1-i2",
            "m6-m7",
            "m6-n7=B",
            "m6-n7=N",
            "m6-n7=Q",
            "m6-n7=R"
        ]
    );
    let no_ally = Vierschach { ally_promotion: false, ..TEAMS };
    let moves = legal(&no_ally, &text);
    assert!(moves.contains(&"e13-e14".to_owned()) && !moves.iter().any(|m| m.starts_with("e13-e14=")));
    assert!(moves.contains(&"m6-n7=Q".to_owned()), "enemy back ranks always promote");
    let (after, _, _) = play(&TEAMS, &text, "bxa7=N");
    assert!(after.starts_with("3nK4/1sP6/8/14/14/14/14/sN12eR/"), "{after}");
    let (after, _, _) = play(&TEAMS, &text, "e14=D");
    assert!(after.starts_with("1sQ1nK4/"), "German letter for the queen: {after}");
    // A pawn left on the partner's back rank without promoting stays there, stuck.
    let (stuck, _, _) = play(&no_ally, &text, "e13-e14");
    assert!(stuck.starts_with("1sP1nK4/"), "{stuck}");
    assert!(TEAMS.parse_state(&stuck).is_err(), "with ally_promotion that pawn should have promoted");
    // West promotes on South's back rank.
    let west =
        build(&[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("wP", "e2"), ("sB", "f1")], "w - - aaaa 0 1");
    assert_eq!(legal(&TEAMS, &west), ["a4-a5", "a4-b4", "a4-b5", "e2-f1=B", "e2-f1=N", "e2-f1=Q", "e2-f1=R", "e2-f2"]);
}

/// §4 jumping a partner's pawn (Decision on the reading): two squares forward over
/// the partner's pawn onto an empty square, from any square, no en-passant right,
/// promoting where it lands; never over an own pawn; not with `pawn_jump = off`,
/// not in free-for-all.
#[test]
fn section_4_jumping_a_partners_pawn() {
    let text = build(
        &[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sP", "f5 g5 g6 e12"), ("nP", "f6 e13")],
        "s - - aaaa 0 1",
    );
    assert_eq!(
        legal(&TEAMS, &text),
        [
            "e12-e14=B",
            "e12-e14=N",
            "e12-e14=Q",
            "e12-e14=R",
            "f5-f7",
            "g6-g7",
            "h1-g1",
            "h1-g2",
            "h1-h2",
            "h1-i1",
            "h1-i2"
        ]
    );
    let off = Vierschach { pawn_jump: false, ..TEAMS };
    assert_eq!(legal(&off, &text), ["g6-g7", "h1-g1", "h1-g2", "h1-h2", "h1-i1", "h1-i2"]);
    assert_eq!(legal(&FFA, &text), ["g5-f6", "g6-g7", "h1-g1", "h1-g2", "h1-h2", "h1-i1", "h1-i2"]);
    let (after, _, _) = play(&TEAMS, &text, "f5-f7");
    assert_eq!(after, "3nK4/1nP6/1sP6/14/14/14/14/5sP8/5nPsP7/6sP7/wK12eK/8/8/4sK3 w - - aaaa 0 1");
    // From the start line the jump lands where a double step would, without its right.
    let start_line =
        build(&[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sP", "d2"), ("nP", "d3")], "s - - aaaa 0 1");
    let (after, _, _) = play(&TEAMS, &start_line, "d4");
    assert!(after.ends_with(" w - - aaaa 0 1"), "{after}");
}

/// §4 en passant (Decision): after e2-e4 any enemy pawn that captures onto e3 may
/// take, until South's next turn (West declines, East still may); never the partner.
#[test]
fn section_4_en_passant_lasts_until_the_double_steppers_turn() {
    let text = build(
        &[
            ("sK", "h1"),
            ("nK", "g14"),
            ("eK", "n4"),
            ("wK", "a4"),
            ("sP", "e2"),
            ("wP", "d4"),
            ("eP", "f4"),
            ("nN", "k13"),
        ],
        "s - - aaaa 0 1",
    );
    let (after, _, _) = play(&TEAMS, &text, "e2-e4");
    assert_eq!(after, "3nK4/7nN/8/14/14/14/14/14/14/14/wK2wPsPeP7eK/8/8/4sK3 w - e3 aaaa 0 1");
    assert!(legal(&TEAMS, &after).contains(&"d4-e3".to_owned()));
    let (taken, _, _) = play(&TEAMS, &text, "e2-e4 dxe3");
    assert_eq!(taken, "3nK4/7nN/8/14/14/14/14/14/14/14/wK4eP7eK/1wP6/8/4sK3 n - - aaaa 0 1");
    let (east_to_move, _, _) = play(&TEAMS, &text, "e2-e4 a4-a5 k13-j11");
    assert!(east_to_move.contains(" e - e3 "), "{east_to_move}");
    let (by_east, _, _) = play(&TEAMS, &text, "e2-e4 a4-a5 k13-j11 f4-e3");
    assert_eq!(by_east, "3nK4/8/8/9nN4/14/14/14/14/14/wK13/3wP9eK/1eP6/8/4sK3 s - - aaaa 0 2");
    let (expired, _, _) = play(&TEAMS, &text, "e2-e4 a4-a5 k13-j11 n4-n5");
    assert!(expired.ends_with(" s - - aaaa 3 2"), "expires at South's turn: {expired}");
    // North's pawn on f4 would be South's partner: no capture.
    let partner = build(
        &[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sP", "e4"), ("nP", "f4")],
        "n - e3 aaaa 0 1",
    );
    assert!(!legal(&TEAMS, &partner).iter().any(|m| m.starts_with("f4-e3")));
}

// §5: castling --------------------------------------------------------------------------

/// §5: each seat's `O-O` and `O-O-O`, written as the king's move; never over an
/// attacked square.
#[test]
fn section_5_castling_for_every_seat() {
    let pieces = [
        ("sK", "h1"),
        ("sR", "d1 k1"),
        ("wK", "a7"),
        ("wR", "a4 a11"),
        ("nK", "g14"),
        ("nR", "d14 k14"),
        ("eK", "n8"),
        ("eR", "n4 n11"),
    ];
    let text = build(&pieces, "s d1,k1,a4,n4,a11,n11,d14,k14 - aaaa 0 1");
    let (short, _, _) = play(&TEAMS, &text, "O-O 0-0 g14-e14 O-O");
    assert_eq!(short, "1nKnR4nR/8/8/wR13/13eK/13eR/14/14/wR13/wK13/13eR/8/8/sR4sRsK1 s - - aaaa 4 2");
    let (long, _, _) = play(&TEAMS, &text, "O-O-O a7-a9 O-O-O n8-n6");
    assert_eq!(long, "nR3nRnK2/8/8/13eR/14/wK13/wR13/13eR/13eK/14/wR13/8/8/2sKsR3sR s - - aaaa 4 2");
    let state = parse(&TEAMS, &text);
    assert_eq!(Variant::notation(&TEAMS, &state, SOUTH, TEAMS.parse_move(&state, SOUTH, "h1-j1").unwrap()), "O-O");
    // A West bishop on d4 attacks g1: no O-O-O for South.
    let mut attacked = pieces.to_vec();
    attacked.push(("wB", "d4"));
    let moves = legal(&TEAMS, &build(&attacked, "s d1,k1,a4,n4,a11,n11,d14,k14 - aaaa 0 1"));
    assert!(moves.contains(&"h1-j1".to_owned()) && !moves.contains(&"h1-f1".to_owned()));
}

// §6: check ------------------------------------------------------------------------------

/// §6 rule 2: in teams mode with `mated = freeze`, a move may not add an attack on
/// the partner's king; trading one check for another is allowed. With `remove` the
/// rule does not apply.
#[test]
fn section_6_partners_king() {
    let text = build(
        &[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sN", "g10"), ("eR", "g8")],
        "s - - aaaa 0 1",
    );
    assert_eq!(legal(&TEAMS, &text), ["h1-h2", "h1-i1", "h1-i2"]);
    let remove = Vierschach { mated: Mated::Remove, ..TEAMS };
    assert_eq!(legal(&remove, &text).len(), 11);
    let trade = build(
        &[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sN", "g10"), ("eR", "g8"), ("eN", "f12")],
        "s - - aaaa 0 1",
    );
    assert_eq!(legal(&TEAMS, &trade), ["g10-f12", "h1-h2", "h1-i1", "h1-i2"]);
}

/// §6: frozen pieces give no check and protect nothing.
#[test]
fn section_6_frozen_pieces_attack_nothing() {
    let pieces = [("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("wR", "h5 i9"), ("eP", "i2")];
    let frozen = build(&pieces, "s - - amaa 0 1");
    assert_eq!(legal(&TEAMS, &frozen), ["h1-g1", "h1-g2", "h1-h2", "h1-i1", "h1-i2"]);
    let active = build(&pieces, "s - - aaaa 0 1");
    assert_eq!(legal(&TEAMS, &active), ["h1-g1", "h1-g2", "h1-i1"]);
}

// §7: the turn procedure -----------------------------------------------------------------

/// The position of §7's tests: South's c11-a11 mates West; East's rook n11 can
/// later lift the mate.
fn west_mated_position() -> String {
    build(
        &[("sK", "h1"), ("nK", "g14"), ("eK", "n8"), ("wK", "a4"), ("sR", "b10 c11"), ("eR", "n11"), ("nN", "f13")],
        "s - - aaaa 0 1",
    )
}

/// §7: mate of one seat while play goes on: West is mated when it is to move, its
/// pieces freeze, and North moves next.
#[test]
fn section_7_mate_of_one_seat_while_play_goes_on() {
    let (after, outcome, notes) = play(&TEAMS, &west_mated_position(), "Rca11");
    assert_eq!(after, "3nK4/2nN5/8/sR12eR/1sR12/14/13eK/14/14/14/wK13/8/8/4sK3 n - - amaa 1 1");
    assert_eq!(outcome, None);
    assert_eq!(notes, ["west is checkmated: its pieces are frozen"]);
    let view = Variant::board(&TEAMS, &parse(&TEAMS, &after));
    assert_eq!(view.marked, [Cell { file: 0, rank: 3, level: 0 }], "the frozen king is marked");
}

/// §7 (Decision): a frozen army thaws at its own turn when others lifted the mate.
#[test]
fn section_7_a_thawed_army() {
    let (after, outcome, notes) = play(&TEAMS, &west_mated_position(), "c11-a11 f13-h12 n11xa11 h1-h2");
    assert_eq!(after, "3nK4/8/4nN3/eR13/1sR12/14/13eK/14/14/14/wK13/8/4sK3/8 w - - aaaa 1 2");
    assert_eq!(outcome, None);
    assert_eq!(notes, ["west is no longer mated: its pieces thaw"]);
}

/// §7: a stalemated seat is skipped (status s), its pieces stay active; the round
/// grows when the turn passes from East to South, skipped seats counted.
#[test]
fn section_7_stalemate_skips_a_seat() {
    let text = build(
        &[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a7"), ("nR", "m11 d6"), ("wN", "a10")],
        "n - - aaaa 0 1",
    );
    let (after, outcome, notes) = play(&TEAMS, &text, "d6-d5");
    assert_eq!(after, "3nK4/8/8/12nR1/wN13/14/14/wK13/14/3nR10/13eK/8/8/4sK3 s - - aaas 1 2");
    assert_eq!(outcome, None);
    assert_eq!(notes, ["east is stalemated and skips its turn"]);
}

/// §7 with `mated = remove`: the mated seat's pieces leave the board, it is out,
/// and the halfmove counter restarts.
#[test]
fn section_7_mated_pieces_removed() {
    let remove = Vierschach { mated: Mated::Remove, ..TEAMS };
    let (after, _, notes) = play(&remove, &west_mated_position(), "c11-a11");
    assert_eq!(after, "3nK4/2nN5/8/sR12eR/1sR12/14/13eK/14/14/14/14/8/8/4sK3 n - - axaa 0 1");
    assert_eq!(notes, ["west is checkmated: its pieces are removed"]);
}

// §8: the end ------------------------------------------------------------------------------

/// §8: a team wins when both enemy kings are mated; 1 each for the winners.
#[test]
fn section_8_team_victory() {
    let text = build(&[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("nR", "m11 d9")], "n - - amaa 0 1");
    let (after, outcome, _) = play(&TEAMS, &text, "Rn9#");
    assert_eq!(after, "3nK4/8/8/12nR1/14/13nR/14/14/14/14/wK12eK/8/8/4sK3 e - - amam 1 1");
    assert_eq!(outcome, Some(("1-0-1-0".to_owned(), EndReason::Checkmate)));
    let state = parse(&TEAMS, &after);
    let o = Variant::outcome(&TEAMS, &[], &state).expect("over");
    assert_eq!(o.result, GameResult::Winners(SeatSet::only(SOUTH).with(NORTH)));
    assert_eq!(Variant::legal_moves(&TEAMS, &state, EAST), Vec::<VsMove>::new());
    assert!(matches!(Variant::resolve(&TEAMS, &[], &state, &[]), Err(RulesError::GameOver(_))));
}

/// §8: one enemy mated, the other stalemated: a draw, ½ each.
#[test]
fn section_8_mated_and_stalemated_draw() {
    let text = build(&[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("nR", "m11 d6")], "n - - amaa 0 1");
    let (after, outcome, _) = play(&TEAMS, &text, "d6-d5");
    assert_eq!(after, "3nK4/8/8/12nR1/14/14/14/14/14/3nR10/wK12eK/8/8/4sK3 e - - amas 1 1");
    assert_eq!(outcome, Some(("1/2-1/2-1/2-1/2".to_owned(), EndReason::Stalemate)));
}

/// §8 free-for-all: West is mated and removed, then East; the game goes on
/// between South and North, and the last seat standing wins.
#[test]
fn section_8_ffa_order_of_elimination() {
    let text = build(
        &[
            ("sK", "h1"),
            ("nK", "k14"),
            ("eK", "n4"),
            ("wK", "a4"),
            ("sR", "b10 c11 m11 d9"),
            ("nN", "f13"),
            ("eN", "j7"),
        ],
        "s - - aaaa 0 1",
    );
    let (after, outcome, _) = play(&FFA, &text, "c11-a11");
    assert_eq!(after, "7nK/2nN5/8/sR11sR1/1sR12/3sR10/14/9eN4/14/14/13eK/8/8/4sK3 n - - axaa 0 1");
    assert_eq!(outcome, None);
    let (after, outcome, _) = play(&FFA, &text, "c11-a11 f13-g11 j7-i5 d9-n9 g11-f13");
    assert_eq!(after, "7nK/2nN5/8/sR11sR1/1sR12/13sR/14/14/14/14/14/8/8/4sK3 s - - axax 0 3");
    assert_eq!(outcome, None);
    let last = build(&[("sK", "h1"), ("nK", "k14"), ("sR", "j5 d9")], "s - - axax 0 1");
    let (after, outcome, _) = play(&FFA, &last, "d9-k9");
    assert_eq!(after, "8/8/8/14/14/10sR3/14/14/14/9sR4/14/8/8/4sK3 n - - axxx 0 1");
    assert_eq!(outcome, Some(("1-0-0-0".to_owned(), EndReason::Checkmate)));
    // With frozen mated pieces two mated seats leave two seats standing: play goes on.
    let ffa_freeze = Vierschach { mated: Mated::Freeze, ..FFA };
    let (after, outcome, _) = play(&ffa_freeze, &text, "c11-a11 f13-g11 j7-i5 d9-n9 g11-f13");
    assert!(after.ends_with(" s - - amam 5 3"), "{after}");
    assert_eq!(outcome, None);
}

/// §8 free-for-all draw (Decision): ½ to each seat with status a or s, 0 to the others.
#[test]
fn section_8_ffa_draw_scores() {
    let no_progress = Vierschach { no_progress: Some(2), ..FFA };
    let text = build(&[("sK", "h1"), ("nK", "k14"), ("eK", "n4"), ("sR", "d9")], "s - - axaa 0 1");
    let (_, outcome, _) = play(&no_progress, &text, "d9-d8");
    assert_eq!(outcome, None);
    let (after, outcome, _) = play(&no_progress, &text, "d9-d8 k14-k13");
    assert!(after.ends_with(" e - - axaa 2 1"), "{after}");
    assert_eq!(outcome, Some(("1/2-0-1/2-1/2".to_owned(), EndReason::NoProgress)));
}

/// §8 (Decision): a resigning seat's team loses; in free-for-all the seat goes out
/// and the turn passes on.
#[test]
fn section_8_resignation() {
    let start = Variant::start(&TEAMS);
    let o = Variant::resignation(&TEAMS, &start, WEST).expect("teams: over");
    assert_eq!((o.result.score_text(4), o.reason), ("1-0-1-0".to_owned(), EndReason::Resignation));
    assert_eq!(Variant::resignation(&FFA, &start, WEST), None, "three seats remain");
    let r = FFA.resign(&start, SOUTH);
    assert!(r.state.to_string().ends_with(" w a4,n4,a11,n11,d14,k14 - xaaa 0 1"), "{}", r.state);
    let placement = r.state.to_string().split(' ').next().unwrap().to_owned();
    assert!(!placement.contains("sP") && !placement.contains("sK"), "{placement}");
    assert_eq!(r.outcome, None);
    let two_left = build(&[("sK", "h1"), ("nK", "k14"), ("sR", "d9")], "s - - axax 0 1");
    let state = parse(&FFA, &two_left);
    let o = Variant::resignation(&FFA, &state, NORTH).expect("one left");
    assert_eq!((o.result, o.reason), (GameResult::Win(SOUTH), EndReason::Resignation));
    let r = FFA.resign(&state, NORTH);
    assert_eq!(r.outcome.map(|o| (o.result, o.reason)), Some((GameResult::Win(SOUTH), EndReason::Resignation)));
}

/// §8: the round counts passes from East to South, skipped seats included.
#[test]
fn section_10_round_counter() {
    let (after, _, _) = play(&TEAMS, START, "e2-e4 b5-c5 e13-e11 m5-l5 Nf3");
    assert!(after.ends_with(" w d1,k1,a4,n4,a11,n11,d14,k14 e12 aaaa 1 2"), "{after}");
}

// §9: notation -----------------------------------------------------------------------------

/// §9: from-to, SAN-like and German spellings name the same move; marks are ignored.
#[test]
fn section_9_spellings() {
    let start = Variant::start(&TEAMS);
    let nf3 = TEAMS.parse_move(&start, SOUTH, "e1-f3").unwrap();
    for text in ["Nf3", "Sf3", "e1f3", "e1xf3", "Ne1-f3", "Nef3", "N1f3", "Nf3+", "Nf3!?"] {
        assert_eq!(TEAMS.parse_move(&start, SOUTH, text), Ok(nf3), "{text}");
    }
    assert_eq!(Variant::notation(&TEAMS, &start, SOUTH, nf3), "Nf3");
    let d4 = TEAMS.parse_move(&start, SOUTH, "d4").unwrap();
    assert_eq!(d4.to_string(), "d2-d4");
    assert_eq!(Variant::notation(&TEAMS, &start, SOUTH, d4), "d2-d4");
    assert!(matches!(TEAMS.parse_move(&start, SOUTH, "Nd4"), Err(MoveError::Illegal { .. })));
    assert!(matches!(TEAMS.parse_move(&start, SOUTH, "d2-c3"), Err(MoveError::NotAMove { .. })));
    assert!(matches!(TEAMS.parse_move(&start, SOUTH, "O-O"), Err(MoveError::Illegal { .. })));
}

/// §9: a text that fits two legal moves is refused with both named, as the
/// players write them.
#[test]
fn section_9_ambiguous_and_promotion_choice() {
    let text = build(&[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sN", "e5 i5")], "s - - aaaa 0 1");
    let state = parse(&TEAMS, &text);
    match TEAMS.parse_move(&state, SOUTH, "Ng6") {
        Err(MoveError::Ambiguous { candidates, .. }) => assert_eq!(candidates, ["Neg6", "Nig6"]),
        other => panic!("{other:?}"),
    }
    let mv = TEAMS.parse_move(&state, SOUTH, "Neg6").unwrap();
    assert_eq!(Variant::notation(&TEAMS, &state, SOUTH, mv), "Neg6");
    let promo = build(&[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sP", "e13")], "s - - aaaa 0 1");
    let state = parse(&TEAMS, &promo);
    assert!(matches!(TEAMS.parse_move(&state, SOUTH, "e14"), Err(MoveError::Ambiguous { .. })));
    let q = TEAMS.parse_move(&state, SOUTH, "e13-e14=Q").unwrap();
    assert_eq!(
        (q.to_string(), Variant::notation(&TEAMS, &state, SOUTH, q)),
        ("e13-e14=Q".to_owned(), "e13-e14=Q".to_owned())
    );
}

/// §9 (issue 32): a pawn move is written with its origin, as the pawns of four
/// seats go four ways and a bare target does not say which pawn moved; the bare
/// target, SAN's file and the from-to forms are all read.
#[test]
fn section_9_pawn_moves_name_their_origin() {
    // South pawns on c6 and e6 can both take West's knight on d7; North's pawn on
    // e8 could take it too, when North is to move.
    let pieces =
        [("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sP", "c6 e6 h4"), ("nP", "e8"), ("wN", "d7")];
    let south = parse(&TEAMS, &build(&pieces, "s - - aaaa 0 1"));
    let written = |state: &VsState, seat: Seat, text: &str| {
        let mv = TEAMS.parse_move(state, seat, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        Variant::notation(&TEAMS, state, seat, mv)
    };
    for (text, expected) in [
        ("cxd7", "c6xd7"),
        ("c6xd7", "c6xd7"),
        ("c6d7", "c6xd7"),
        ("exd7", "e6xd7"),
        ("e6-d7", "e6xd7"),
        ("h5", "h4-h5"),
        ("h4h5", "h4-h5"),
        ("h4-h5", "h4-h5"),
        ("c7", "c6-c7"),
        ("e7", "e6-e7"),
    ] {
        assert_eq!(written(&south, SOUTH, text), expected, "{text}");
    }
    // Two pawns take on d7: the capture without its file is refused, both named
    // with their origins.
    match TEAMS.parse_move(&south, SOUTH, "xd7") {
        Err(MoveError::Ambiguous { candidates, .. }) => assert_eq!(candidates, ["c6xd7", "e6xd7"]),
        other => panic!("{other:?}"),
    }
    // North's capture onto the same square reads differently from South's.
    let north = parse(&TEAMS, &build(&pieces, "n - - aaaa 0 1"));
    assert_eq!(written(&north, NORTH, "exd7"), "e8xd7");
    assert_eq!(written(&north, NORTH, "e7"), "e8-e7");
    // A capture that promotes, and en passant.
    let promo = build(
        &[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sP", "d13"), ("wR", "e14")],
        "s - - aaaa 0 1",
    );
    assert_eq!(written(&parse(&TEAMS, &promo), SOUTH, "dxe14=N"), "d13xe14=N");
    let ep =
        build(&[("sK", "h1"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4"), ("sP", "e2"), ("wP", "d4")], "s - - aaaa 0 1");
    let (after, _, _) = play(&TEAMS, &ep, "e2-e4");
    assert_eq!(written(&parse(&TEAMS, &after), WEST, "dxe3"), "d4xe3");
}

// §10: strict state strings -----------------------------------------------------------------

/// §10: a state string is read strictly; each problem is named.
#[test]
fn section_10_bad_state_strings() {
    let bad = [
        (START.replace(" aaaa ", " aaa "), "status"),
        (START.replacen("/8/", "/9/", 1), "rank 12"),
        (START.replacen("wRwP10ePeR", "wRwP55ePeR", 1), "rank 11"),
        (START.replacen("wRwP10ePeR", "wRwP010ePeR", 1), "rank 11"),
        (START.replace(" s d1", " x d1"), "seat"),
        (START.replace("d1,k1,a4", "k1,d1,a4"), "square order"),
        (START.replace("d1,k1,a4", "d1,e1,a4"), "not a rook start square"),
        (START.replace(" - aaaa", " d3 aaaa"), "no south pawn on d4"),
        (START.replace("sRsNsBsQsKsBsNsR", "sRsNsBsQsQsBsNsR"), "south has no king"),
        (START.replace(" 0 1", " 0 0"), "round"),
        (START.replace(" 0 1", " -1 1"), "halfmove"),
        (START.replace(" aaaa ", " maaa "), "do not end the game"),
        (START.replace(" aaaa ", " xaaa "), "out"),
        (START.replace("  ", " ").replace(" s d1", "  s d1"), "7 fields"),
    ];
    for (text, phrase) in bad {
        let err = TEAMS.parse_state(&text).expect_err(&text);
        assert!(err.to_string().contains(phrase), "{phrase:?} not in {err}");
    }
}

/// §10: the rules file's strings round-trip, and the CLI-facing rulebook reads them.
#[test]
fn section_10_round_trip_through_the_rulebook() {
    let rules = VariantId::Vierschach.rulebook(&Options::new()).expect("defaults");
    assert_eq!(rules.canonical_state(START).as_deref(), Ok(START));
    assert_eq!(rules.start(), START);
    let ffa = VariantId::Vierschach.rulebook(&Options::new().set("mode", "ffa")).expect("ffa");
    assert_eq!(ffa.perft(START, 2), Ok(395));
}

// §12: options ------------------------------------------------------------------------------

#[test]
fn section_12_options() {
    assert_eq!(Vierschach::new(&Options::new()), Ok(TEAMS));
    assert_eq!(Vierschach::new(&Options::new().set("mode", "ffa")), Ok(FFA));
    let o = Options::new()
        .set("mode", "ffa")
        .set("mated", "freeze")
        .set("partner_capture", "on")
        .set("pawn_jump", "off")
        .set("ally_promotion", "off")
        .set("no_progress", "50");
    let r = Vierschach::new(&o).expect("all options");
    assert_eq!(
        (r.mated, r.partner_capture, r.pawn_jump, r.ally_promotion, r.no_progress),
        (Mated::Freeze, true, false, false, Some(50))
    );
    assert!(Vierschach::new(&Options::new().set("mode", "pairs")).is_err());
    assert!(Vierschach::new(&Options::new().set("no_progress", "0")).is_err());
    assert!(Vierschach::new(&Options::new().set("pause", "off")).is_err());
}

// Invariants over random play ----------------------------------------------------------------

/// Seeded random games under several option sets: legal lists are sorted and
/// unique, every move reads back from its canonical text and from its SAN-like
/// notation, and every state string reads back unchanged (so each seat that is
/// not out keeps exactly one king).
#[test]
fn random_playouts_keep_the_invariants() {
    let mut seed: u64 = 0x5EED_4444_0000_0001;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let rulebooks = [
        TEAMS,
        FFA,
        Vierschach { mated: Mated::Remove, ..TEAMS },
        Vierschach { partner_capture: true, pawn_jump: false, ..TEAMS },
        Vierschach { mated: Mated::Freeze, ..FFA },
    ];
    let mut plies = 0;
    for rules in rulebooks {
        for _ in 0..3 {
            let mut state = Variant::start(&rules);
            for _ in 0..150 {
                if Variant::outcome(&rules, &[], &state).is_some() {
                    break;
                }
                let seat = seat_of(state.turn);
                let moves = Variant::legal_moves(&rules, &state, seat);
                assert!(moves.windows(2).all(|w| w[0].to_string() < w[1].to_string()), "sorted, unique: {state}");
                assert_eq!(moves.len(), Variant::count_legal_moves(&rules, &state, seat));
                let mv = moves[(next() % moves.len() as u64) as usize];
                assert_eq!(rules.parse_move(&state, seat, &mv.to_string()), Ok(mv), "{mv} in {state}");
                let san = Variant::notation(&rules, &state, seat, mv);
                assert_eq!(rules.parse_move(&state, seat, &san), Ok(mv), "{san} ({mv}) in {state}");
                let r = Variant::resolve(&rules, &[], &state, &[(seat, mv)]).expect("a legal move resolves");
                assert_eq!(rules.parse_state(&r.state.to_string()).as_ref(), Ok(&r.state), "{}", r.state);
                assert_eq!(Variant::next_state(&rules, &state, &[(seat, mv)]).as_ref(), Ok(&r.state));
                state = r.state;
                plies += 1;
            }
        }
    }
    assert!(plies > 1000, "{plies} plies");
}

/// §9: German letters, and refusals that say why (pinned, no piece, not yours,
/// in check) with the forms Vierschach reads, from its legal moves.
#[test]
fn section_9_german_letters_and_reasons() {
    let start = parse(&TEAMS, START);
    for (text, canonical) in [("Sj1-k3", "j1-k3"), ("Sk3", "j1-k3"), ("j1k3", "j1-k3"), ("k2xk4", "k2-k4")] {
        assert_eq!(TEAMS.parse_move(&start, SOUTH, text).unwrap().to_string(), canonical, "{text}");
    }
    let why = |state: &VsState, text: &str| TEAMS.parse_move(state, SOUTH, text).unwrap_err().to_string();
    let e = why(&start, "nj1-k3");
    assert!(e.contains("not a move") && e.contains("write moves like") && !e.contains("7163"), "{e}");
    assert!(why(&start, "e5-e6").contains("there is no piece on e5"));
    assert!(why(&start, "b7-c7").contains("the pawn on b7 is not yours"), "{}", why(&start, "b7-c7"));
    let pinned = parse(
        &TEAMS,
        &build(
            &[("sK", "h1"), ("sN", "h3"), ("eR", "h9"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4")],
            "s - - aaaa 0 1",
        ),
    );
    let e = why(&pinned, "Sg5");
    assert!(e.contains("your knight on h3 is pinned"), "{e}");
    let checked = parse(
        &TEAMS,
        &build(
            &[("sK", "h1"), ("sN", "e1"), ("eR", "h9"), ("nK", "g14"), ("eK", "n4"), ("wK", "a4")],
            "s - - aaaa 0 1",
        ),
    );
    let e = why(&checked, "Se1-d3");
    assert!(e.contains("your king is in check and Ne1-d3 does not answer it"), "{e}");
}
