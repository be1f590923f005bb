//! Property tests for 3D chess over random legal play (`docs/rules/tri-d-chess.md`),
//! through [`DynVariant`], the face the steward uses. Each case plays a game
//! from the start or from the §14 example, choosing moves with a PRNG seeded
//! by proptest, and checks after every ply: the state string reads back
//! unchanged (§11); the legal list is sorted by byte value and unique (§10),
//! and every move in it is accepted by `check_move` from its canonical text
//! and from its short notation; resolving is deterministic; no king is ever
//! captured (§8); the game's end is reported once and nothing is played after.

use fairsteward::rules::{DynVariant, Options, VariantId};
use proptest::prelude::*;
use proptest::test_runner::Config;

const STARTS: [&str; 3] = [
    "nbbn/pppp/4/4/4/4/4/4/4/4/PPPP/NBBN wQL1:PP/RQ,wKL1:PP/KR,bQL6:rq/pp,bKL6:kr/pp w KQkq - - - 0 1",
    "4/4/4/2P1/4/4/4/4/4/1p2/4/4 wKL1:2/2,wQL2:2/1K,bQL4:2/1k,bKL6:2/2 b - - - - 0 30",
    "P3/4/4/4/4/2k1/4/4/4/4/4/4 wQL1:2/2,wKL1:2/K1,bKL4:2/2,bQL5:2/2 w - - - a8B 0 21",
];

fn rules() -> Box<dyn DynVariant> {
    VariantId::TriDChess.rulebook(&Options::new()).unwrap()
}

/// The kings in a state string's placement and boards (the pins' names left
/// out: `wKL1:PP/KR`).
fn kings(state: &str) -> (usize, usize) {
    let mut fields = state.split(' ');
    let mut pieces = fields.next().unwrap_or("").to_owned();
    for board in fields.next().unwrap_or("").split(',') {
        pieces.push_str(board.split_once(':').map_or("", |b| b.1));
    }
    (pieces.matches('K').count(), pieces.matches('k').count())
}

proptest! {
    #![proptest_config(Config { cases: 24, ..Config::default() })]

    #[test]
    fn random_play_keeps_the_rules(start in 0..STARTS.len(), seed in any::<u64>(), plies in 10usize..60) {
        let r = rules();
        let mut rng = seed | 1;
        let mut state = STARTS[start].to_owned();
        let mut history: Vec<String> = Vec::new();
        for _ in 0..plies {
            let canonical = r.canonical_state(&state);
            prop_assert_eq!(canonical.as_ref(), Ok(&state));
            prop_assert_eq!(kings(&state), (1, 1));
            let seat = r.seats_to_move(&state).unwrap().iter().next().unwrap();
            let legal = r.legal_moves(&state, seat).unwrap();
            prop_assert!(legal.windows(2).all(|w| w[0] < w[1]), "sorted and unique in {}", state);
            if legal.is_empty() {
                prop_assert!(r.outcome(&history, &state).unwrap().is_some(), "no move and no end in {}", state);
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mv = &legal[(rng % legal.len() as u64) as usize];
            let checked = r.check_move(&state, seat, mv).unwrap();
            prop_assert_eq!(&checked.canonical, mv);
            let again = r.check_move(&state, seat, &checked.notation).map(|c| c.canonical);
            prop_assert_eq!(again.as_ref(), Ok(mv), "{} in {}", checked.notation, state);
            let resolved = r.resolve(&history, &state, &[(seat, mv.clone())]).unwrap();
            prop_assert_eq!(&r.resolve(&history, &state, &[(seat, mv.clone())]).unwrap(), &resolved);
            history.push(state);
            state = resolved.state;
            if resolved.outcome.is_some() {
                let next = r.seats_to_move(&state).unwrap().iter().next().unwrap();
                let after = r.legal_moves(&state, next).unwrap();
                if let Some(m) = after.first() {
                    prop_assert!(r.resolve(&history, &state, &[(next, m.clone())]).is_err(), "played after the end");
                }
                break;
            }
        }
    }
}
