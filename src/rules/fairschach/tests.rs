//! Hand-built positions for every rule of `docs/rules/fairschach.md`, named after its
//! sections. Each gives the exact FEN and statuses the rules file prescribes.

use super::*;
use crate::rules::{GameResult, MoveError, Variant};

/// A rulebook with options.
fn rules(pause: PauseRule, normal_below: Option<u32>) -> Fairschach {
    Fairschach { pause, normal_below }
}

/// The result of one pair: FEN, the two statuses (`None` for no move) and outcome.
#[derive(Debug)]
struct Pair {
    fen: String,
    white: Option<&'static str>,
    black: Option<&'static str>,
    outcome: Option<Outcome>,
    notes: Vec<String>,
    struck_reason: Option<String>,
}

fn resolve_with(r: Fairschach, history: &[&str], fen: &str, white: Option<&str>, black: Option<&str>) -> Pair {
    let state = r.parse_state(fen).expect(fen);
    let history: Vec<FsPosition> = history.iter().map(|h| r.parse_state(h).expect(h)).collect();
    let mut moves = Vec::new();
    if let Some(w) = white {
        moves.push((WHITE, r.check_move(&state, WHITE, w).unwrap_or_else(|e| panic!("{w}: {e}"))));
    }
    if let Some(b) = black {
        moves.push((BLACK, r.check_move(&state, BLACK, b).unwrap_or_else(|e| panic!("{b}: {e}"))));
    }
    let res = r.resolve(&history, &state, &moves).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(r.parse_state(&res.state.to_string()).as_ref(), Ok(&res.state), "FEN round trip");
    let status = |seat: Seat| res.moves.iter().find(|m| m.seat == seat).map(|m| m.result.as_str());
    Pair {
        fen: res.state.to_string(),
        white: status(WHITE),
        black: status(BLACK),
        outcome: res.outcome,
        notes: res.notes.clone(),
        struck_reason: res.moves.iter().find_map(|m| match &m.result {
            SeatResult::Struck(why) => Some(why.clone()),
            _ => None,
        }),
    }
}

fn resolve(fen: &str, white: &str, black: &str) -> Pair {
    resolve_with(Fairschach::default(), &[], fen, Some(white), Some(black))
}

fn legal(r: Fairschach, fen: &str, seat: Seat) -> Vec<String> {
    r.legal_moves(&r.parse_state(fen).unwrap(), seat).iter().map(ToString::to_string).collect()
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 0 1";

// ---- §1 State -------------------------------------------------------------------

/// §1: ep squares are recorded after a double step whether or not a capture is
/// possible; moved pieces are paused; a pawn move resets the halfmove counter.
#[test]
fn section_1_first_pair_from_the_start() {
    let p = resolve(START, "e4", "d5");
    assert_eq!(p.fen, "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2");
    assert_eq!((p.white, p.black), (Some("played"), Some("played")));
    assert_eq!(p.outcome, None);
    let p = resolve(START, "Nf3", "a5");
    assert_eq!(p.fen, "rnbqkbnr/1ppppppp/8/p7/8/5N2/PPPPPPPP/RNBQKB1R s KQkq a6 f3,a5 0 2");
}

/// §1: a capture aimed at a piece that moved away, and a swap, remove nothing and
/// do not reset the halfmove counter.
#[test]
fn section_1_halfmove_not_reset_by_swap() {
    let p = resolve("3r2k1/8/8/8/8/8/8/3R2K1 s - - - 5 30", "Rxd8", "Rxd1");
    assert_eq!(p.fen, "3R2k1/8/8/8/8/8/8/3r2K1 s - - d1,d8 6 31");
}

/// §1: a struck move does not count for the halfmove counter; the pair of the
/// first move alone does.
#[test]
fn section_1_halfmove_counts_the_first_move_alone() {
    // Kf2 answers the bishop's check first and blocks the pawn's step to f2.
    let p = resolve("4k3/8/8/8/1b6/5p2/8/4K3 s - - - 7 10", "Kf2", "f2");
    assert_eq!(p.fen, "4k3/8/8/8/1b6/5p2/5K2/8 s - - - 8 11");
    assert_eq!((p.white, p.black), (Some("first"), Some("struck")));
}

// ---- §2 Which moves a player may enter ------------------------------------------

/// §2: the side "not to move" may be in check: Black moves freely while White is
/// in check, but may not capture the king (rule 1).
#[test]
fn section_2_rule_1_no_king_capture() {
    let fen = "4k3/8/8/8/8/8/4r3/4K3 s - - - 0 10";
    let black = legal(Fairschach::default(), fen, BLACK);
    assert!(!black.contains(&"e2e1".to_owned()), "{black:?}");
    assert!(black.contains(&"e2e7".to_owned()) && black.contains(&"e2a2".to_owned()));
    let r = Fairschach::default();
    let err = r.parse_move(&r.parse_state(fen).unwrap(), BLACK, "Rxe1").unwrap_err();
    assert!(matches!(&err, MoveError::Illegal { reason, .. } if reason.contains("capture the king")), "{err}");
    // White, in check, must answer it.
    assert_eq!(legal(r, fen, WHITE), ["e1d1", "e1e2", "e1f1"]);
}

/// §2 rule 2: after the move alone, the mover's own king is not attacked — pins
/// and the ep capture that uncovers a rank count.
#[test]
fn section_2_rule_2_own_king_not_attacked() {
    let r = Fairschach::default();
    let fen = "4k3/4r3/8/8/8/8/4N3/4K3 s - - - 0 10";
    let err = r.parse_move(&r.parse_state(fen).unwrap(), WHITE, "Nc3").unwrap_err();
    assert!(matches!(&err, MoveError::Illegal { reason, .. } if reason.contains("attacked")), "{err}");
    // Ep capture that would expose the king on the fifth rank.
    let fen = "8/8/8/K2pP2r/8/8/8/7k s - d6 - 0 10";
    assert!(!legal(r, fen, WHITE).contains(&"e5d6".to_owned()));
}

/// §2: castling follows FIDE: not out of, through or into check.
#[test]
fn section_2_castling_conditions() {
    let r = Fairschach::default();
    assert!(legal(r, "4k3/8/8/8/8/8/8/4K2R s K - - 0 5", WHITE).contains(&"e1g1".to_owned()));
    // f1 attacked by the bishop on c4: no castling through it.
    assert!(!legal(r, "4k3/8/8/8/2b5/8/8/4K2R s K - - 0 5", WHITE).contains(&"e1g1".to_owned()));
    // In check: no castling.
    assert!(!legal(r, "4k3/8/8/8/1b6/8/8/4K2R s K - - 0 5", WHITE).contains(&"e1g1".to_owned()));
    // Without the right: no castling.
    assert!(!legal(r, "4k3/8/8/8/8/8/8/4K2R s - - - 0 5", WHITE).contains(&"e1g1".to_owned()));
}

/// §2, FSR 9: a piece on a paused square may not move, with a reason that says so.
#[test]
fn section_2_paused_piece_may_not_move() {
    let r = Fairschach::default();
    let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2";
    let white = legal(r, fen, WHITE);
    assert!(!white.iter().any(|m| m.starts_with("e4")), "{white:?}");
    let err = r.parse_move(&r.parse_state(fen).unwrap(), WHITE, "exd5").unwrap_err();
    assert!(matches!(&err, MoveError::Illegal { reason, .. } if reason.contains("paused")), "{err}");
    // Under pause = off the paused list is ignored.
    assert!(legal(rules(PauseRule::Off, None), fen, WHITE).contains(&"e4d5".to_owned()));
}

/// §2, FSR 9: a paused piece may move when its side's king is in check.
#[test]
fn section_2_paused_piece_moves_out_of_check() {
    let fen = "4r1k1/8/8/8/R7/8/8/4K3 s - - a4 0 20";
    assert!(legal(Fairschach::default(), fen, WHITE).contains(&"a4e4".to_owned()));
}

/// §2, Decision: a pause that leaves no legal move is lifted for the pair — but
/// only then.
#[test]
fn section_2_decision_pause_lifted_when_it_leaves_no_move() {
    let r = Fairschach::default();
    let stuck = "8/8/8/7k/4N3/1q6/8/K7 s - - e4 0 30";
    assert_eq!(legal(r, stuck, WHITE), ["e4c3", "e4c5", "e4d2", "e4d6", "e4f2", "e4f6", "e4g3", "e4g5"]);
    assert_eq!(r.outcome(&[], &r.parse_state(stuck).unwrap()), None, "not stalemate: the pause is lifted");
    let free = "8/8/8/7k/4N3/1q6/7P/K7 s - - e4 0 30";
    assert_eq!(legal(r, free, WHITE), ["h2h3", "h2h4"]);
}

/// §2: every accepted notation names the same move.
#[test]
fn section_2_notations() {
    let r = Fairschach::default();
    let s = r.start();
    let nf3 = r.parse_move(&s, WHITE, "Nf3").unwrap();
    for text in ["Ng1f3", "Ng1-f3", "g1f3", "7163", "nf3"] {
        assert_eq!(r.parse_move(&s, WHITE, text), Ok(nf3), "{text}");
    }
    let e4 = r.parse_move(&s, WHITE, "e4").unwrap();
    for text in ["e2-e4", "e2e4", "5254"] {
        assert_eq!(r.parse_move(&s, WHITE, text), Ok(e4), "{text}");
    }
    let castle = r.parse_state("r3k3/8/8/8/8/8/8/4K2R s Kq - - 0 9").unwrap();
    let oo = r.parse_move(&castle, WHITE, "O-O").unwrap();
    assert_eq!(oo.to_string(), "e1g1");
    for text in ["0-0", "e1g1", "e1h1", "5171", "Kg1"] {
        assert_eq!(r.parse_move(&castle, WHITE, text), Ok(oo), "{text}");
    }
    assert_eq!(r.parse_move(&castle, BLACK, "0-0-0").unwrap().to_string(), "e8c8");
    let promo = r.parse_state("4k3/P7/8/8/8/8/8/4K3 s - - - 0 9").unwrap();
    assert_eq!(r.parse_move(&promo, WHITE, "a8=Q").unwrap().to_string(), "a7a8q");
    assert_eq!(r.parse_move(&promo, WHITE, "17184").unwrap().to_string(), "a7a8n");
    assert!(matches!(r.parse_move(&promo, WHITE, "a8"), Err(MoveError::Ambiguous { .. })));
}

// ---- §3 Working a pair into the position ----------------------------------------

/// §3(a): neither king in check — simultaneous execution, both `played`.
#[test]
fn section_3a_neither_in_check_is_simultaneous() {
    let p = resolve("4k3/8/8/3p4/4P3/8/8/4K3 s - - - 0 10", "exd5", "Ke7");
    assert_eq!(p.fen, "8/4k3/8/3P4/8/8/8/4K3 s - - d5 0 11");
    assert_eq!((p.white, p.black), (Some("played"), Some("played")));
}

/// §3(b): the side in check moves first; the other's move follows when still legal.
#[test]
fn section_3b_first_move_right_then_played() {
    let p = resolve("4k3/8/8/8/8/8/4r3/R3K3 s - - - 0 10", "Kf1", "Rb2");
    assert_eq!(p.fen, "4k3/8/8/8/8/8/1r6/R4K2 s - - b2 1 11");
    assert_eq!((p.white, p.black), (Some("first"), Some("played")));
}

/// §3(b): a move whose piece was taken by the first move is struck.
#[test]
fn section_3b_struck_when_the_piece_is_taken() {
    let p = resolve("4k3/8/8/8/8/8/4r3/R3K3 s - - - 0 10", "Kxe2", "Re7");
    assert_eq!(p.fen, "4k3/8/8/8/8/8/4K3/R7 s - - - 0 11");
    assert_eq!((p.white, p.black), (Some("first"), Some("struck")));
    assert!(p.struck_reason.unwrap().contains("took the rook on e2"));
}

/// §3(b): a move blocked by the first move is struck; the pair is the first move
/// alone.
#[test]
fn section_3b_struck_when_blocked() {
    let p = resolve("4k3/8/8/8/1b6/r7/2P5/4K3 s - - - 0 12", "c3", "Re3");
    assert_eq!(p.fen, "4k3/8/8/8/1b6/r1P5/8/4K3 s - - c3 0 13");
    assert_eq!((p.white, p.black), (Some("first"), Some("struck")));
}

/// §3(b), FSR 7: the first move gives check; the other move does not answer it and
/// is struck; the next pair starts with that side in check and first-move right.
#[test]
fn section_3b_fsr_7_new_special_case() {
    let p = resolve("4k3/8/p7/8/8/8/4r2Q/4K3 s - - - 0 10", "Qxe2", "a5");
    assert_eq!(p.fen, "4k3/8/p7/8/8/8/4Q3/4K3 s - - e2 0 11");
    assert_eq!((p.white, p.black), (Some("first"), Some("struck")));
    assert!(p.struck_reason.unwrap().contains("does not answer the check"));
    // Next pair: Black in check moves first, White's move follows (the queen is
    // paused, White not in check, so White moves the king).
    let p = resolve(&p.fen, "Kd2", "Kd8");
    assert_eq!(p.fen, "3k4/8/p7/8/8/8/3KQ3/8 s - - - 1 12");
    assert_eq!((p.white, p.black), (Some("played"), Some("first")));
}

/// §3(b): B keeps its ep square from P while the pawn that made it stands.
#[test]
fn section_3b_ep_of_the_second_side_survives() {
    let p = resolve("4k3/8/8/8/3pP3/8/8/r3K3 s - e3 - 0 20", "Kf2", "dxe3");
    assert_eq!(p.fen, "4k3/8/8/8/8/4p3/5K2/r7 s - - e3 0 21");
    assert_eq!((p.white, p.black), (Some("first"), Some("played")));
}

/// §3(b): an intended en-passant capture whose target the first move occupied
/// becomes an ordinary capture (the double-stepped pawn stays).
#[test]
fn section_3b_ep_target_occupied_becomes_a_capture() {
    let p = resolve("4k3/8/8/8/3pP3/r6K/6N1/8 s - e3 - 0 20", "Ne3", "dxe3");
    assert_eq!(p.fen, "4k3/8/8/8/4P3/r3p2K/8/8 s - - e3 0 21");
    assert_eq!((p.white, p.black), (Some("first"), Some("played")));
}

/// §3(b): the first side's double step gives the other an ep right only from the
/// next pair on.
#[test]
fn section_3b_double_step_first_gives_ep_next_pair() {
    let p = resolve("4k3/8/8/8/r6K/8/4P3/8 s - - - 0 20", "e4", "Ke7");
    assert_eq!(p.fen, "8/4k3/8/8/r3P2K/8/8/8 s - e3 e4 0 21");
    assert_eq!((p.white, p.black), (Some("first"), Some("played")));
}

/// §3(c), FSR 7: both in check — simultaneous execution.
#[test]
fn section_3c_both_in_check_is_simultaneous() {
    let p = resolve("r6k/8/8/8/8/8/8/K6R s - - - 0 30", "Kb2", "Kg7");
    assert_eq!(p.fen, "r7/6k1/8/8/8/8/1K6/7R s - - - 1 31");
    assert_eq!((p.white, p.black), (Some("played"), Some("played")));
}

// ---- §4 Simultaneous execution --------------------------------------------------

/// §4.1: pieces do not block each other on the way, even when their paths cross.
#[test]
fn section_4_1_paths_cross() {
    // White's rook a4-h4 and Black's bishop a7-g1 cross on d4; both arrive.
    let p = resolve("4k3/b7/8/8/R7/8/8/4K3 s - - - 0 10", "Rh4", "Bg1");
    assert_eq!(p.fen, "4k3/8/8/8/7R/8/8/4K1b1 s - - g1,h4 1 11");
}

/// §4.2 (Decision) and §4.3: a promoting pawn arrives as its new piece; the queen
/// beats the rook on the same square, a knight loses to it.
#[test]
fn section_4_2_promotion_arrives_as_the_new_piece() {
    let p = resolve("r7/4P2k/8/8/8/8/8/4K3 s - - - 0 30", "e8=Q", "Re8");
    assert_eq!(p.fen, "4Q3/7k/8/8/8/8/8/4K3 s - - e8 0 31");
    assert_eq!(p.notes, ["e8: e8=Q takes Re8 rook"]);
    let p = resolve("r7/4P2k/8/8/8/8/8/4K3 s - - - 0 30", "e8=N", "Re8");
    assert_eq!(p.fen, "4r3/7k/8/8/8/8/8/4K3 s - - e8 0 31");
}

/// §4.3, FSR 4: same target — the stronger captures the weaker (the rules file's
/// own example, `{d5: Nd5 takes d5 pawn}`); no ep square for the taken pawn.
#[test]
fn section_4_3_stronger_takes_weaker() {
    let p = resolve("4k3/3p4/8/8/5N2/8/8/R3K3 s - - - 0 20", "Nd5", "d5");
    assert_eq!(p.fen, "4k3/8/8/3N4/8/8/8/R3K3 s - - d5 0 21");
    assert_eq!(p.notes, ["d5: Nd5 takes d5 pawn"]);
}

/// §4.3: bishop = knight — equally strong pieces capture each other.
#[test]
fn section_4_3_equals_both_leave() {
    let p = resolve("4k3/8/8/4n3/8/8/8/R3KB2 s - - - 3 20", "Bc4", "Nc4");
    assert_eq!(p.fen, "4k3/8/8/8/8/8/8/R3K3 s - - - 0 21");
    assert_eq!(p.notes, ["c4: Bc4 and Nc4 take each other"]);
}

/// §4.3: the king is the strongest piece.
#[test]
fn section_4_3_king_takes_an_arriving_pawn() {
    let p = resolve("4k3/8/8/8/8/4p3/8/3K4 s - - - 0 20", "Ke2", "e2");
    assert_eq!(p.fen, "4k3/8/8/8/8/8/4K3/8 s - - - 0 21");
    assert_eq!(p.outcome, Some(Outcome::draw(EndReason::InsufficientMaterial)));
}

/// §4.4, FSR 5: a piece that arrives where an enemy piece still stands captures it.
#[test]
fn section_4_4_capture_of_a_standing_piece() {
    let p = resolve("4k3/8/8/3p4/4P3/8/8/R3K3 s - - - 0 10", "exd5", "Kf7");
    assert_eq!(p.fen, "8/5k2/8/3P4/8/8/8/R3K3 s - - d5 0 11");
}

/// §4.5, FSR 5: a move aimed at a piece that leaves ends on its target all the same.
#[test]
fn section_4_5_moved_away() {
    let p = resolve("4k3/8/8/3p4/4P3/8/8/4K3 s - - - 0 10", "exd5", "d4");
    assert_eq!(p.fen, "4k3/8/8/3P4/3p4/8/8/4K3 s - - d4,d5 0 11");
    assert_eq!(p.notes, ["d5: exd5 takes nothing, the piece moved away (d4)"]);
}

/// §4.5: two pieces aiming at each other's start squares change places.
#[test]
fn section_4_5_swap() {
    let p = resolve("3r2k1/8/8/8/8/8/8/3R2K1 s - - - 5 30", "Rxd8", "Rxd1");
    assert_eq!(p.fen, "3R2k1/8/8/8/8/8/8/3r2K1 s - - d1,d8 6 31");
    assert_eq!(p.notes, ["d1/d8: Rxd8 and Rxd1 change places"]);
    assert_eq!(p.outcome, None, "both in check, both can step away");
}

/// §4.6: the pawn captured en passant is removed only if it still stands.
#[test]
fn section_4_6_ep_victim_moved_on() {
    let p = resolve("4k3/8/8/3pP3/8/8/8/4K3 s - d6 - 0 20", "exd6", "d4");
    assert_eq!(p.fen, "4k3/8/3P4/8/3p4/8/8/4K3 s - - d4,d6 0 21");
}

/// §4.6: … and is removed when it stands.
#[test]
fn section_4_6_ep_victim_removed() {
    let p = resolve("4k3/8/8/3pP3/8/8/8/R3K3 s - d6 - 0 20", "exd6", "Kf7");
    assert_eq!(p.fen, "8/5k2/3P4/8/8/8/8/R3K3 s - - d6 0 21");
}

/// §4.6: the ep capture removes the passed pawn even when the capturing pawn is
/// itself taken on its target square by rule 3.
#[test]
fn section_4_6_ep_and_same_target_at_one_instant() {
    let p = resolve("4k3/1n6/8/3pP3/8/8/8/R3K3 s - d6 - 0 20", "exd6", "Nd6");
    assert_eq!(p.fen, "4k3/8/3n4/8/8/8/8/R3K3 s - - d6 0 21");
    assert_eq!(p.notes, ["d6: Nd6 takes exd6 pawn"]);
}

/// §4.7: a rook captured on its corner loses its right; a castling king loses both.
#[test]
fn section_4_7_castling_rights() {
    let p = resolve("4k3/8/8/8/8/8/1b6/R3K2R s KQ - - 0 15", "O-O", "Bxa1");
    assert_eq!(p.fen, "4k3/8/8/8/8/8/8/b4RK1 s - - a1 0 16");
    // A capture aimed at the rook that castled away takes nothing.
    let p = resolve("4k3/8/8/8/4b3/8/8/4K2R s K - - 0 15", "O-O", "Bxh1");
    assert_eq!(p.fen, "4k3/8/8/8/8/8/8/5RKb s - - h1 1 16");
    assert_eq!(p.notes, ["h1: Bxh1 takes nothing, the piece moved away (O-O)"]);
    // A rook move loses only its own side's right.
    let p = resolve("r3k2r/8/8/8/8/8/8/R3K2R s KQkq - - 0 15", "Rb1", "Kf8");
    assert_eq!(p.fen, "r4k1r/8/8/8/8/8/8/1R2K2R s K - b1 1 16");
}

// ---- §5 Pauses ------------------------------------------------------------------

/// §5 `moved`: the king and the rook of a castling are never paused.
#[test]
fn section_5_moved_never_pauses_king_or_castling_rook() {
    let p = resolve("r3k3/8/8/8/8/8/8/4K2R s Kq - - 0 9", "O-O", "O-O-O");
    assert_eq!(p.fen, "2kr4/8/8/8/8/8/8/5RK1 s - - - 1 10");
}

/// §5 `capturable`: only a moved piece that stands attacked is paused; the enemy
/// king's attack counts.
#[test]
fn section_5_capturable() {
    let r = rules(PauseRule::Capturable, None);
    let p = resolve_with(r, &[], START, Some("Nf3"), Some("e5"));
    assert_eq!(p.fen, "rnbqkbnr/pppp1ppp/8/4p3/8/5N2/PPPPPPPP/RNBQKB1R s KQkq e6 e5 0 2");
    let p = resolve_with(r, &[], START, Some("e4"), Some("d5"));
    assert_eq!(p.fen, "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2");
    // A knight next to the enemy king is attacked by it.
    let fen = "4k3/p7/8/6N1/8/8/8/4K3 s - - - 0 20";
    let p = resolve_with(r, &[], fen, Some("Nf7"), Some("Kd8"));
    assert_eq!(p.fen, "3k4/p4N2/8/8/8/8/8/4K3 s - - - 1 21", "d8 does not touch f7");
    let p = resolve_with(r, &[], fen, Some("Nf7"), Some("Ke7"));
    assert_eq!(p.fen, "8/p3kN2/8/8/8/8/8/4K3 s - - f7 1 21");
}

/// §5 `off`: no pauses at all.
#[test]
fn section_5_off() {
    let p = resolve_with(rules(PauseRule::Off, None), &[], START, Some("e4"), Some("d5"));
    assert_eq!(p.fen, "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 - 0 2");
}

/// §5: pauses last exactly one pair.
#[test]
fn section_5_pauses_last_one_pair() {
    let p = resolve(START, "e4", "d5");
    let p = resolve(&p.fen, "Nf3", "Nc6");
    assert_eq!(p.fen, "r1bqkbnr/ppp1pppp/2n5/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R s KQkq - f3,c6 1 3");
}

// ---- §6 End of the game ---------------------------------------------------------

/// §6.1: checkmate after a pair.
#[test]
fn section_6_1_checkmate() {
    let p = resolve("k7/8/1K6/8/8/8/8/7R s - - - 0 40", "Rh8", "Kb8");
    assert_eq!(p.fen, "1k5R/8/1K6/8/8/8/8/8 s - - h8 1 41");
    assert_eq!(p.outcome, Some(Outcome::win(WHITE, EndReason::Checkmate)));
    assert_eq!(p.outcome.unwrap().result, GameResult::Win(WHITE));
}

/// §6.1: both checkmated at once is a draw.
#[test]
fn section_6_1_both_checkmated() {
    let r = Fairschach::default();
    let s = r.parse_state("rr5k/8/8/8/8/8/8/K5RR s - - - 0 30").unwrap();
    assert_eq!(r.outcome(&[], &s), Some(Outcome::draw(EndReason::BothCheckmated)));
}

/// §6.2: a side not in check without a legal move is stalemated, even when the
/// other side could move.
#[test]
fn section_6_2_stalemate() {
    let r = Fairschach::default();
    let s = r.parse_state("8/8/8/7k/8/1q6/8/K7 s - - - 0 30").unwrap();
    assert_eq!(r.outcome(&[], &s), Some(Outcome::draw(EndReason::Stalemate)));
}

/// §6.3: insufficient material (K+N v K after a same-target capture).
#[test]
fn section_6_3_insufficient_material() {
    let p = resolve("4k3/3p4/8/8/5N2/8/8/4K3 s - - - 0 20", "Nd5", "d5");
    assert_eq!(p.fen, "4k3/8/8/3N4/8/8/8/4K3 s - - d5 0 21");
    assert_eq!(p.outcome, Some(Outcome::draw(EndReason::InsufficientMaterial)));
    let r = Fairschach::default();
    for (fen, dead) in [
        ("4k3/8/8/8/8/8/8/4KB2 s - - - 0 9", true),
        ("4kb2/8/8/8/8/8/8/2B1K3 s - - - 0 9", true), // f8 and c1: both dark
        ("4k1b1/8/8/8/8/8/8/2B1K3 s - - - 0 9", false), // g8 light, c1 dark
        ("4k3/8/8/8/8/8/8/3NKN2 s - - - 0 9", false),
        ("4kn2/8/8/8/8/8/8/4KN2 s - - - 0 9", false),
    ] {
        assert_eq!(insufficient_material(r.parse_state(fen).unwrap().board()), dead, "{fen}");
    }
}

/// Plays `pairs` from the start, with history, and returns the pair (1-based) that
/// ended the game by threefold repetition and the last FEN.
fn repeat(r: Fairschach, pairs: &[(&str, &str)]) -> (Option<usize>, String) {
    let mut history: Vec<String> = Vec::new();
    let mut fen = START.to_owned();
    for (i, (w, b)) in pairs.iter().enumerate() {
        let h: Vec<&str> = history.iter().map(String::as_str).collect();
        let p = resolve_with(r, &h, &fen, Some(w), Some(b));
        history.push(std::mem::replace(&mut fen, p.fen));
        if let Some(o) = p.outcome {
            assert_eq!(o, Outcome::draw(EndReason::ThreefoldRepetition));
            return (Some(i + 1), fen);
        }
    }
    (None, fen)
}

/// §6.4: threefold repetition of fields 1–5 over the game's history, the start
/// position counted.
#[test]
fn section_6_4_threefold_repetition_counts_the_start() {
    let cycle = [("Nf3", "Nf6"), ("Nc3", "Nc6"), ("Ng1", "Ng8"), ("Nb1", "Nb8")];
    let pairs: Vec<_> = cycle.iter().chain(cycle.iter()).copied().collect();
    let (ended, fen) = repeat(rules(PauseRule::Off, None), &pairs);
    assert_eq!(ended, Some(8), "the start position for the third time");
    assert_eq!(fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR s KQkq - - 8 9");
}

/// §6.4: the paused field is part of the position: with pauses the position after
/// four pairs differs from the start, and the first repeated one is after pair 1.
#[test]
fn section_6_4_threefold_repetition_compares_pauses() {
    let cycle = [("Nf3", "Nf6"), ("Nc3", "Nc6"), ("Ng1", "Ng8"), ("Nb1", "Nb8")];
    let pairs: Vec<_> = cycle.iter().cycle().take(12).copied().collect();
    let (ended, fen) = repeat(Fairschach::default(), &pairs);
    assert_eq!(ended, Some(9));
    assert_eq!(fen, "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R s KQkq - f3,f6 9 10");
}

/// §6.5: the halfmove field reaches 50.
#[test]
fn section_6_5_fifty_move_rule() {
    let p = resolve("4k3/8/8/8/8/8/8/R3K3 s - - - 49 80", "Ra2", "Kd7");
    assert_eq!(p.fen, "8/3k4/8/8/8/8/R7/4K3 s - - a2 50 81");
    assert_eq!(p.outcome, Some(Outcome::draw(EndReason::FiftyMoveRule)));
}

/// §6: checkmate comes before the fifty-move rule.
#[test]
fn section_6_order_mate_before_fifty() {
    let p = resolve("k7/8/1K6/8/8/8/8/7R s - - - 49 40", "Rh8", "Kb8");
    assert_eq!(p.outcome, Some(Outcome::win(WHITE, EndReason::Checkmate)));
}

/// A finished game takes no more pairs.
#[test]
fn section_6_no_pair_after_the_end() {
    let r = Fairschach::default();
    let s = r.parse_state("4k3/8/8/8/8/8/8/4K3 s - - - 0 9").unwrap();
    let w = r.check_move(&s, WHITE, "Kd2").unwrap();
    let b = r.check_move(&s, BLACK, "Kd7").unwrap();
    assert!(matches!(r.resolve(&[], &s, &[(WHITE, w), (BLACK, b)]), Err(RulesError::GameOver(_))));
}

// ---- §7 The FSR 8 switch --------------------------------------------------------

/// §7: with `normal_below`, N pieces or fewer and exactly one king in check, the
/// game turns into normal chess: the checked side to move, no pauses, halfmove
/// doubled, the pair number kept as the full-move number.
#[test]
fn section_7_switch_to_normal_chess() {
    let r = rules(PauseRule::Moved, Some(4));
    let p = resolve_with(r, &[], "4k3/8/8/8/8/8/8/R3K3 s - - - 10 40", Some("Ra7"), Some("Ke7"));
    assert_eq!(p.fen, "8/R3k3/8/8/8/8/8/4K3 b - - - 22 41");
    assert_eq!(p.notes.len(), 1, "the switch is announced");
    // Normal mode: Black moves alone; White's status is absent.
    let p2 = resolve_with(r, &[], &p.fen, None, Some("Kd6"));
    assert_eq!(p2.fen, "8/R7/3k4/8/8/8/8/4K3 w - - - 23 42");
    assert_eq!((p2.white, p2.black), (None, Some("played")));
    // A move from the side not to move is refused.
    let s = r.parse_state(&p.fen).unwrap();
    assert!(matches!(r.check_move(&s, WHITE, "Ra8"), Err(RulesError::NotToMove { .. })));
    assert!(r.legal_moves(&s, WHITE).is_empty());
    // Without the option, or above the limit, nothing switches.
    let p = resolve_with(
        rules(PauseRule::Moved, Some(2)),
        &[],
        "4k3/8/8/8/8/8/8/R3K3 s - - - 10 40",
        Some("Ra7"),
        Some("Ke7"),
    );
    assert_eq!(p.fen, "8/R3k3/8/8/8/8/8/4K3 s - - a7 11 41");
}

/// §7: at the switch only the ep square usable by the side to move is kept.
#[test]
fn section_7_switch_keeps_only_the_movers_ep_square() {
    let r = rules(PauseRule::Moved, Some(6));
    // White double-steps and Black's rook checks: Black's ep square e3 would
    // survive the pair, but the switch (White to move) drops it.
    let p = resolve_with(r, &[], "4k3/r7/8/3p4/8/8/4P3/7K s - - - 3 30", Some("e4"), Some("Ra1"));
    assert_eq!(p.fen, "4k3/8/8/3p4/4P3/8/8/r6K w - - - 0 31");
    let p = resolve_with(
        rules(PauseRule::Moved, None),
        &[],
        "4k3/r7/8/3p4/8/8/4P3/7K s - - - 3 30",
        Some("e4"),
        Some("Ra1"),
    );
    assert_eq!(p.fen, "4k3/8/8/3p4/4P3/8/8/r6K s - e3 a1,e4 0 31");
}

/// §7: normal mode keeps normal chess counters (halfmove to 100, full moves).
#[test]
fn section_7_normal_mode_counters() {
    let r = rules(PauseRule::Moved, Some(6));
    let p = resolve_with(r, &[], "8/8/3k4/8/8/8/8/R3K3 w - - - 99 60", Some("Ra2"), None);
    assert_eq!(p.fen, "8/8/3k4/8/8/8/R7/4K3 b - - - 100 60");
    assert_eq!(p.outcome, Some(Outcome::draw(EndReason::FiftyMoveRule)));
}

// ---- §8 Notation ------------------------------------------------------------------

/// §8: the moves of a pair come back in SAN as played.
#[test]
fn section_8_san_of_a_pair() {
    let r = Fairschach::default();
    let s = r.start();
    let w = r.check_move(&s, WHITE, "g1f3").unwrap();
    let b = r.check_move(&s, BLACK, "7775").unwrap();
    let res = r.resolve(&[], &s, &[(WHITE, w), (BLACK, b)]).unwrap();
    let sans: Vec<&str> = res.moves.iter().map(|m| m.notation.as_str()).collect();
    assert_eq!(sans, ["Nf3", "g5"]);
}
