//! Property tests for Dreierschach over random legal play (`docs/rules/dreierschach.md`).
//!
//! Every game starts from one of a few positions (the start, and thinned-out
//! starts that reach castling, en passant, promotion and mates sooner) and is
//! played by choosing one of the seat's `legal_moves` with a small PRNG seeded by
//! proptest, under either en-passant rule. After every move:
//!
//! * the state string reads back unchanged (§9);
//! * every seat still has its one king, and no legal move lands on a king (§6,
//!   Decision: kings are never captured);
//! * `perft(1)` equals the number of legal moves listed, which are sorted by
//!   byte value and unique (§8, §10), and only the seat to move has any;
//! * each legal move reads back from its canonical text and from the players'
//!   notation, and no legal move leaves the mover's king attacked: after it the
//!   seat that moved is never in check (the state reads, §6);
//! * the turn goes White → Brown → Black and the round grows after Black (§3, §9);
//! * the game ends exactly when the seat to move has no legal move, or only the
//!   kings are left (§7), with points that sum to 4 (3/1/0) or 3 (1/1/1).

use fairsteward::rules::dreierschach::{Dreierschach, DsState, EnPassant, Kind};
use fairsteward::rules::{DynVariant, EndReason, GameResult, Seat, Variant};
use proptest::prelude::*;
use proptest::test_runner::Config;

const STARTS: &[&str] = &[
    // §9: the start.
    "nRnP2bPbR/nBnP3bPbN/nNnP4bPbB/nKnP5bPbQ/nQnP6bPbK/nBnP7bPbN/nNnP8bPbB/nRnP9bPbR/nP10bP/11/10/wPwPwPwPwPwPwPwPwP/wRwBwNwKwQwBwNwR w a1,a8,f1,f13,m8,m13 - 0 1",
    // No pawns, no queens: open lines, passages, castling, mates.
    "nR4bR/nB5bN/nN6bB/nK8/9bK/nB9bN/nN10bB/nR11bR/12/11/10/9/wRwBwNwK1wBwNwR w a1,a8,f1,f13,m8,m13 - 0 1",
    // Kings and pawns: double steps, en passant, promotions.
    "1nP2bP1/1nP3bP1/1nP4bP1/nKnP5bP1/1nP6bPbK/1nP7bP1/1nP8bP1/1nP9bP1/nP10bP/11/10/wPwPwPwPwPwPwPwPwP/3wK4 w - - 0 1",
    // Pawns, rooks and knights.
    "nRnP2bPbR/1nP3bPbN/nNnP4bP1/nKnP5bP1/1nP6bPbK/1nP7bPbN/nNnP8bP1/nRnP9bPbR/nP10bP/11/10/wPwPwPwPwPwPwPwPwP/wR1wNwK2wNwR w a1,a8,f1,f13,m8,m13 - 0 1",
];

fn config() -> Config {
    Config { cases: 96, failure_persistence: None, max_shrink_iters: 100, ..Config::default() }
}

/// A small xorshift PRNG: the game is a function of the seed.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn kings(state: &DsState) -> [usize; 3] {
    let mut n = [0; 3];
    for (_, seat, _) in state.pieces().filter(|p| p.2 == Kind::King) {
        n[seat] += 1;
    }
    n
}

fn check_game(start: usize, mut seed: u64, plies: usize, ep: EnPassant) -> Result<(), TestCaseError> {
    let rules = Dreierschach { en_passant: ep, ..Dreierschach::default() };
    let dynamic: &dyn DynVariant = &rules;
    let mut state = Variant::parse_state(&rules, STARTS[start]).expect("a valid start");
    seed |= 1;
    for ply in 0..plies {
        let text = state.to_string();
        prop_assert_eq!(Variant::parse_state(&rules, &text).map(|s| s.to_string()), Ok(text.clone()), "round trip");
        prop_assert_eq!(kings(&state), [1, 1, 1], "one king each: {}", text);
        let seat = Seat::new(state.turn() as u8);
        let legal = Variant::legal_moves(&rules, &state, seat);
        let names: Vec<String> = legal.iter().map(ToString::to_string).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(&sorted, &names, "sorted and unique: {}", text);
        prop_assert_eq!(Variant::perft(&rules, &state, 1), legal.len() as u64, "perft(1): {}", text);
        for other in (0..3u8).map(Seat::new).filter(|&s| s != seat) {
            prop_assert!(Variant::legal_moves(&rules, &state, other).is_empty());
        }
        for mv in &legal {
            prop_assert!(
                state.piece_at(mv.to()).is_none_or(|(_, k)| k != Kind::King),
                "{} takes a king in {}",
                mv,
                text
            );
        }
        let outcome = Variant::outcome(&rules, &[], &state);
        let kings_alone = state.pieces().all(|p| p.2 == Kind::King);
        match outcome {
            Some(o) => {
                let points = match o.result {
                    GameResult::Points { points, seats: 3 } => points,
                    r => return Err(TestCaseError::fail(format!("not in points: {r:?}"))),
                };
                let sum: u8 = points.iter().sum();
                match o.reason {
                    EndReason::Checkmate => {
                        prop_assert!(legal.is_empty());
                        prop_assert_eq!(sum, 4);
                        prop_assert_eq!(points[seat.index()], 0, "the mated seat scores 0");
                    }
                    EndReason::Stalemate => prop_assert!(legal.is_empty() && points == [1, 1, 1, 0]),
                    EndReason::InsufficientMaterial => prop_assert!(kings_alone && points == [1, 1, 1, 0]),
                    r => return Err(TestCaseError::fail(format!("unexpected end {r} in {text}"))),
                }
                return Ok(());
            }
            None => prop_assert!(!legal.is_empty() && !kings_alone, "no end in {}", text),
        }
        let mv = legal[(next(&mut seed) % legal.len() as u64) as usize];
        let canonical = mv.to_string();
        prop_assert_eq!(Variant::parse_move(&rules, &state, seat, &canonical), Ok(mv), "canonical {}", canonical);
        let notation = dynamic.notation(&text, seat, &canonical).expect("notation");
        prop_assert_eq!(dynamic.check_move(&text, seat, &notation).map(|c| c.canonical), Ok(canonical.clone()));
        let r = Variant::resolve(&rules, &[], &state, &[(seat, mv)]).expect("a legal move resolves");
        prop_assert_eq!(r.moves[0].mv, mv);
        let after = r.state;
        prop_assert_eq!(after.turn(), (seat.index() + 1) % 3, "turn order after ply {}", ply);
        prop_assert_eq!(after.round(), state.round() + u32::from(seat.index() == 2));
        // The mover's king is safe: a state whose last mover is in check does not read.
        prop_assert!(Variant::parse_state(&rules, &after.to_string()).is_ok(), "{} after {}", after, canonical);
        state = after;
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_play_keeps_the_rules(start in 0..STARTS.len(), seed in any::<u64>(), plies in 1usize..=120, next_only in any::<bool>()) {
        check_game(start, seed, plies, if next_only { EnPassant::Next } else { EnPassant::Round })?;
    }
}
