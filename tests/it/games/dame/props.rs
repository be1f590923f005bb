//! Property tests for Trialectic Dame over random legal play
//! (`docs/rules/trialectic-dame.md`).
//!
//! Games start on the reconstructed triangle, the triangle of side 12 or the
//! hand-made hexagon of `tests/it/games/data/dame-hexagon.json`, under an option set
//! drawn by proptest, and are played by picking legal moves with a small PRNG.
//! After every move:
//! * the state string reads back to the same state, and prints the same;
//! * the legal list is sorted, without repeats, holds steps only when it holds
//!   no capture, every move in it is accepted back by `check_move` and played
//!   by `next_state`, and every other step or placement is refused by it;
//! * stones are conserved except by capture (and the placement, and the
//!   removal of an enclosed seat's stones under `enclosure = remove`);
//! * every capture sequence is complete and followed the rules, replayed here
//!   on the board record: each hop takes exactly one opponent stone on a line
//!   (a man's over its neighbour), lands right behind it, never on a man's
//!   promotion cell before the last hop, and ends on a promotion cell or where
//!   no jump is left (§4).

use std::sync::Arc;

use fairsteward::rules::dame::{Board, DameMove, Play, TrialecticDame};
use fairsteward::rules::{Options, Seat, Variant};
use proptest::prelude::*;
use proptest::test_runner::Config;

const BOARDS: [&str; 3] = ["triangle", "side12", "hexagon"];
const OPTION_SETS: [&[(&str, &str)]; 6] = [
    &[],
    &[("setup", "2")],
    &[("enclosure", "take")],
    &[("enclosure", "remove"), ("dame_first", "on")],
    &[("no_progress", "16")],
    &[("setup", "2"), ("enclosure", "take"), ("dame_first", "on")],
];

fn rulebook(board: usize, options: usize) -> TrialecticDame {
    let mut o = OPTION_SETS[options].iter().fold(Options::new(), |o, (k, v)| o.set(*k, *v));
    match BOARDS[board] {
        "side12" => o = o.set("side", "12"),
        "hexagon" => {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/dame-hexagon.json");
            o = o.set("board", std::fs::read_to_string(path).unwrap());
        }
        _ => {}
    }
    TrialecticDame::new(&o).unwrap()
}

/// splitmix64
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The stones of a state string, cell by cell in row order (`.`, `y`, `R`, …),
/// and its control field.
fn cells_of(state: &str) -> (Vec<char>, Vec<char>) {
    let fields: Vec<&str> = state.split(' ').collect();
    (fields[0].chars().filter(|&c| c != '/').collect(), fields[2].chars().collect())
}

fn colour(stone: char) -> usize {
    "yrb".find(stone.to_ascii_lowercase()).expect("a stone")
}

/// Whether the stone on `at` (of `stone`) can jump in `cells` for `mover`.
fn can_jump(board: &Board, cells: &[char], control: &[char], mover: char, at: u16, stone: char) -> bool {
    (0..board.direction_count()).any(|d| hop(board, cells, control, mover, at, stone, d).is_some())
}

/// A jump of `stone` from `at` in direction `d`: the taken cell and the landing.
fn hop(
    board: &Board,
    cells: &[char],
    control: &[char],
    mover: char,
    at: u16,
    stone: char,
    d: usize,
) -> Option<(u16, u16)> {
    let none = u16::MAX;
    let mut over = board.neighbour(at, d);
    if stone.is_ascii_uppercase() {
        while over != none && cells[over as usize] == '.' {
            over = board.neighbour(over, d);
        }
    }
    if over == none || cells[over as usize] == '.' || control[colour(cells[over as usize])] == mover {
        return None;
    }
    let land = board.neighbour(over, d);
    (land != none && cells[land as usize] == '.').then_some((over, land))
}

/// Replays a capture path; returns what was taken per colour, or why the path
/// breaks the rules.
fn replay_capture(board: &Board, before: &str, mover: char, path: &[u16]) -> Result<[usize; 3], String> {
    let (mut cells, control) = cells_of(before);
    let stone = cells[path[0] as usize];
    cells[path[0] as usize] = '.';
    let mut taken = [0; 3];
    for (i, w) in path.windows(2).enumerate() {
        let (from, to) = (w[0], w[1]);
        let hops: Vec<(u16, u16)> = (0..board.direction_count())
            .filter_map(|d| hop(board, &cells, &control, mover, from, stone, d))
            .filter(|&(_, land)| land == to)
            .collect();
        let [(over, _)] = hops.as_slice() else {
            return Err(format!("hop {} {}-{}: {} ways", i + 1, board.name(from), board.name(to), hops.len()));
        };
        taken[colour(cells[*over as usize])] += 1;
        cells[*over as usize] = '.';
        let last = i + 2 == path.len();
        if stone.is_ascii_lowercase() && board.promotes(colour(stone), to) && !last {
            return Err(format!("a man passed the promotion cell {}", board.name(to)));
        }
    }
    let end = *path.last().unwrap();
    let promoted = stone.is_ascii_lowercase() && board.promotes(colour(stone), end);
    cells[end as usize] = stone;
    if !promoted && can_jump(board, &cells, &control, mover, end, stone) {
        return Err(format!("the sequence could go on from {}", board.name(end)));
    }
    Ok(taken)
}

fn count(state: &str) -> [usize; 3] {
    let mut n = [0; 3];
    for c in cells_of(state).0.into_iter().filter(|&c| c != '.') {
        n[colour(c)] += 1;
    }
    n
}

fn play_out(board: usize, options: usize, seed: u64, plies: usize) -> Result<(), TestCaseError> {
    let rules = rulebook(board, options);
    let record: Arc<Board> = Arc::clone(rules.board_record());
    let remove = OPTION_SETS[options].contains(&("enclosure", "remove"));
    let mut rng = Rng(seed);
    let mut state = Variant::start(&rules);
    for ply in 0..plies {
        let text = state.to_string();
        let read = rules.parse_state(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&read, &state, "reads back");
        prop_assert_eq!(read.to_string(), text.clone(), "prints the same");
        if Variant::outcome(&rules, &[], &state).is_some() {
            break;
        }
        let seat = Seat::new(state.seat as u8);
        let legal = Variant::legal_moves(&rules, &state, seat);
        prop_assert!(!legal.is_empty(), "{}: a game that goes on has a move", text);
        let texts: Vec<&str> = legal.iter().map(|m| m.text.as_str()).collect();
        prop_assert!(texts.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats: {:?}", texts);
        let captures = texts.iter().filter(|t| t.contains('x')).count();
        prop_assert!(captures == 0 || captures == texts.len(), "captures are compulsory: {:?}", texts);
        for m in &legal {
            let back =
                Variant::check_move(&rules, &state, seat, &m.text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&back, m);
            prop_assert!(Variant::next_state(&rules, &state, &[(seat, m.clone())]).is_ok(), "{} {}", text, m.text);
        }
        // Every other step (of a stone on the board) or placement is refused when played.
        let cells = record.len() as u16;
        let stones: Vec<u16> =
            cells_of(&text).0.iter().enumerate().filter(|(_, c)| **c != '.').map(|(i, _)| i as u16).collect();
        let steps = stones
            .iter()
            .flat_map(|&from| (0..cells).filter(move |&to| to != from).map(move |to| Play::Step(from, to)));
        for play in steps.chain((0..cells).map(Play::Place)) {
            let text = play.text(&record);
            if legal.iter().any(|m| m.text == text) {
                continue;
            }
            let mv = DameMove { text, play };
            prop_assert!(Variant::next_state(&rules, &state, &[(seat, mv.clone())]).is_err(), "{}", mv.text);
        }
        let mv = legal[rng.below(legal.len())].clone();
        let mover = ['y', 'r', 'b'][state.seat];
        let mut expected = count(&text);
        let cells = mv.play.cells();
        if mv.text.starts_with('@') {
            expected[state.seat] += 1;
        } else if mv.text.contains('x') {
            let taken = replay_capture(&record, &text, mover, &cells)
                .map_err(|e| TestCaseError::fail(format!("{text}: {}: {e}", mv.text)))?;
            for c in 0..3 {
                expected[c] -= taken[c];
            }
        }
        let next = Variant::resolve(&rules, &[], &state, &[(seat, mv.clone())])
            .map_err(|e| TestCaseError::fail(e.to_string()))?
            .state;
        let after = count(&next.to_string());
        let control = cells_of(&next.to_string()).1;
        for c in 0..3 {
            let removed = remove && after[c] == 0 && control[c] == '-';
            prop_assert!(
                after[c] == expected[c] || removed,
                "ply {}: {} {}: colour {} has {} stones, expected {}",
                ply,
                text,
                mv.text,
                c,
                after[c],
                expected[c]
            );
        }
        state = next;
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 160, ..Config::default() })]

    #[test]
    fn random_play_keeps_the_rules(board in 0..BOARDS.len(), options in 0..OPTION_SETS.len(), seed in any::<u64>()) {
        play_out(board, options, seed, 300)?;
    }
}
