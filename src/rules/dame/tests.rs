//! Tests by rules-file section (`rules/trialectic-dame.md`): the §10 figures, then
//! a hand-built position for every rule and Decision.

use super::*;

const START: &str = "./../r.b/rrbb/rr.bb/rr..bb/rr...bb/rr....bb/..yyyyy../..yyyyyy.. y yrb - 0 1";
/// §10: after `126-117 216x018`.
const AFTER_CAPTURE: &str = "./../r.b/rrbb/rr.bb/rr..bb/rr...bb/r.....bb/...yyyy../.Ryyyyyy.. b yrb - 0 1";

fn rules(options: &[(&str, &str)]) -> TrialecticDame {
    let o = options.iter().fold(Options::new(), |o, (k, v)| o.set(*k, *v));
    TrialecticDame::new(&o).unwrap_or_else(|e| panic!("{options:?}: {e}"))
}

/// A placement string of the side-10 triangle holding the listed stones
/// (`("y", "333 126")`: letter, then cell names), then `tail`.
fn position(stones: &[(&str, &str)], tail: &str) -> String {
    let board = Board::triangle(DEFAULT_SIDE).unwrap();
    let mut cells = vec!['.'; board.len()];
    for (letter, names) in stones {
        for name in names.split_whitespace() {
            let c = board.cell(name).unwrap_or_else(|| panic!("no cell {name}"));
            cells[c as usize] = letter.chars().next().unwrap();
        }
    }
    let rows: Vec<String> = board.rows().map(|r| cells[r].iter().collect()).collect();
    format!("{} {tail}", rows.join("/"))
}

fn state(r: &TrialecticDame, text: &str) -> DameState {
    r.parse_state(text).unwrap_or_else(|e| panic!("{e}"))
}

fn legal(r: &TrialecticDame, text: &str) -> Vec<String> {
    let s = state(r, text);
    Variant::legal_moves(r, &s, Seat::new(s.seat as u8)).iter().map(ToString::to_string).collect()
}

/// Plays `moves` (any accepted text) from `text`, as the CLI's `play` does;
/// returns the state string and the outcome.
fn play(r: &TrialecticDame, text: &str, moves: &str) -> (String, Option<Outcome>) {
    let mut s = Variant::settled(r, &state(r, text));
    for m in moves.split_whitespace() {
        assert_eq!(Variant::outcome(r, &[], &s), None, "the game goes on before {m}");
        let seat = Seat::new(s.seat as u8);
        let mv = Variant::check_move(r, &s, seat, m).unwrap_or_else(|e| panic!("{m} in {s}: {e}"));
        s = Variant::resolve(r, &[], &s, &[(seat, mv)]).unwrap().state;
    }
    let o = Variant::outcome(r, &[], &s);
    (s.to_string(), o)
}

fn tail(s: &str) -> &str {
    s.split_once(' ').map(|(_, t)| t).unwrap()
}

fn win(seat: Seat, reason: EndReason) -> Option<Outcome> {
    Some(Outcome::win(seat, reason))
}

// §10 figures

#[test]
fn s10_the_start() {
    let r = rules(&[]);
    let s = Variant::start(&r);
    assert_eq!(s.to_string(), START);
    assert_eq!(s.board.len(), 55);
    assert_eq!(stones(&s).count(), 33);
    assert_eq!(
        legal(&r, START),
        [
            "027-018", "027-117", "072-081", "072-171", "126-117", "126-225", "135-225", "135-234", "144-234",
            "144-243", "153-243", "153-252", "162-171", "162-252"
        ]
    );
    let two = rules(&[("setup", "2")]);
    assert_eq!(Variant::start(&two).to_string(), START.replace(" - 0 1", " yrb 0 1"));
}

#[test]
fn s10_the_compulsory_capture_promotes_and_ends_the_move() {
    let r = rules(&[]);
    let (after, _) = play(&r, START, "126-117");
    assert_eq!(legal(&r, &after), ["216x018"]);
    assert_eq!(play(&r, START, "126-117 216x018"), (AFTER_CAPTURE.to_owned(), None));
}

#[test]
fn s10_perft() {
    let count = |r: &TrialecticDame, s: &str, d| Variant::perft(r, &state(r, s), d);
    let r = rules(&[]);
    assert_eq!([1, 2, 3].map(|d| count(&r, START, d)), [14, 146, 1_068]);
    assert_eq!([1, 2, 3].map(|d| count(&r, AFTER_CAPTURE, d)), [14, 20, 270]);
    let two = rules(&[("setup", "2")]);
    let start = Variant::start(&two).to_string();
    assert_eq!([1, 2, 3].map(|d| count(&two, &start, d)), [15, 212, 2_816]);
}

#[test]
fn s10_a_man_zig_zags_backwards_round_a_loop() {
    let r = rules(&[]);
    let s = position(&[("y", "333"), ("r", "423 432 801"), ("b", "522 090")], "y yrb - 0 1");
    assert_eq!(legal(&r, &s), ["333x513x531x333", "333x531x513x333"]);
    let err = Variant::parse_move(&r, &state(&r, &s), YELLOW, "333x333").unwrap_err();
    assert!(matches!(&err, MoveError::Ambiguous { candidates, .. } if candidates.len() == 2), "{err}");
    let (after, _) = play(&r, &s, "333-531-513-333");
    assert_eq!(after, position(&[("y", "333"), ("r", "801"), ("b", "090")], "r yrb - 0 1"));
}

#[test]
fn s10_a_dame_flies_back_over_what_it_emptied() {
    let r = rules(&[]);
    let s = position(&[("Y", "333"), ("r", "423 801"), ("b", "153 090")], "y yrb - 0 1");
    assert_eq!(legal(&r, &s), ["333x063x513", "333x513x063"]);
}

#[test]
fn s10_taking_the_last_opponent_stone_wins() {
    let r = rules(&[]);
    let s = position(&[("y", "333"), ("b", "423")], "y y-b - 4 1");
    let (after, outcome) = play(&r, &s, "333x513");
    assert_eq!(after, position(&[("y", "513")], "y y-- - 0 1"));
    assert_eq!(outcome, win(YELLOW, EndReason::LastSeat));
}

#[test]
fn s10_a_seat_without_a_move_passes_or_is_enclosed() {
    let s = position(&[("b", "090"), ("y", "081 072"), ("Y", "180 270"), ("r", "405")], "r yrb - 0 1");
    let after = |enclosure| tail(&play(&rules(&[("enclosure", enclosure)]), &s, "405-414").0).to_owned();
    assert_eq!(after("none"), "y yrb - 0 2", "blue passed");
    assert_eq!(after("take"), "y yrr - 0 2");
    assert_eq!(after("remove"), "y yr- - 0 2");
    // The blue man stays on the board, red's now.
    let (taken, o) = play(&rules(&[("enclosure", "take")]), &s, "405-414");
    assert!(taken.starts_with(&position(&[("b", "090")], "")[..10]), "{taken}");
    assert_eq!(o, None);
}

#[test]
fn s10_an_enclosure_that_leaves_one_seat_ends_the_game() {
    let s = position(&[("r", "009"), ("Y", "108 207"), ("y", "018 027 054")], "y yr- - 0 1");
    let go = |enclosure| play(&rules(&[("enclosure", enclosure)]), &s, "054-144");
    let (base, o) = go("none");
    assert_eq!((tail(&base), o), ("y yr- - 0 2", None));
    let (take, o) = go("take");
    assert_eq!((tail(&take), o), ("r yy- - 0 1", win(YELLOW, EndReason::LastSeat)));
    let (remove, o) = go("remove");
    assert_eq!((tail(&remove), o), ("r y-- - 0 1", win(YELLOW, EndReason::LastSeat)));
}
