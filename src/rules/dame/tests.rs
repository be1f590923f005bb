//! Tests by rules-file section (`docs/rules/trialectic-dame.md`): the §10 figures, then
//! a hand-built position for every rule and Decision.

use super::*;
use crate::rules::GameResult;

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

// §1: the board as data

fn triangle_json() -> serde_json::Value {
    serde_json::to_value(Board::triangle(DEFAULT_SIDE).unwrap().to_raw()).unwrap()
}

/// The problems of the triangle's record after `change`.
fn problems(change: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = triangle_json();
    change(&mut v);
    Board::from_json(&v.to_string()).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn s1_the_triangle_record_round_trips_through_json() {
    let json = triangle_json().to_string();
    let board = Board::from_json(&json).unwrap();
    assert_eq!(board, Board::triangle(DEFAULT_SIDE).unwrap());
    assert_eq!(board.to_raw().rows[0], ["900"]);
    assert_eq!(board.to_raw().rows[9][..3], ["009", "018", "027"]);
    // A rulebook on the record as JSON plays as the default.
    let r = rules(&[("board", &json)]);
    assert_eq!(Variant::perft(&r, &Variant::start(&r), 3), 1_068);
}

#[test]
fn s1_a_record_is_checked_when_it_is_loaded() {
    type Change = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(Change, &str)> = vec![
        (Box::new(|v| v["neighbours"]["333"]["d1"] = "432".into()), "333 d1 is 432, but 432 d4 is 342"),
        (
            Box::new(|v| v["directions"]["d4"] = "d2".into()),
            "the opposite of d1 is d4, but the opposite of d4 is not d1",
        ),
        (Box::new(|v| v["directions"]["d4"] = "d4".into()), "d4 is its own opposite"),
        (Box::new(|v| v["directions"]["d4"] = "up".into()), "\"up\", is not a direction"),
        (
            Box::new(|v| v["seats"]["y"]["sideways"] = serde_json::json!(["d1"])),
            "y: forward, sideways and backward share",
        ),
        (Box::new(|v| v["rows"][1][1] = "801".into()), "cell 801 appears twice"),
        (Box::new(|v| v["rows"][0][0] = "9x0".into()), "bad cell name \"9x0\""),
        (Box::new(|v| v["rows"][0][0] = "9 0".into()), "bad cell name \"9 0\""),
        (Box::new(|v| v["neighbours"]["333"]["d1"] = "999".into()), "333 d1: unknown cell \"999\""),
        (Box::new(|v| v["neighbours"]["333"]["up"] = "423".into()), "333: unknown direction \"up\""),
        (Box::new(|v| v["seats"]["y"]["corners"] = serde_json::json!(["009"])), "corners: must be two cells"),
        (Box::new(|v| v["seats"]["y"]["corners"] = serde_json::json!(["009", "900"])), "corners: must be two cells"),
        (Box::new(|v| v["seats"]["r"]["start"][0] = "027".into()), "r start: 027 is a start cell of y too"),
        (Box::new(|v| v["seats"]["y"]["start"][0] = "108".into()), "y start: 108 is on the baseline of r"),
        (Box::new(|v| v["seats"]["y"]["forward"] = serde_json::json!(["d7"])), "y forward: unknown direction \"d7\""),
        (Box::new(|v| v["seats"]["g"] = v["seats"]["y"].clone()), "unknown seat \"g\""),
        (Box::new(|v| v["colours"] = serde_json::json!([])), "unknown field `colours`"),
        (
            Box::new(|v| {
                v["seats"]["r"]["start"] = serde_json::json!([]);
                v["seats"]["b"]["start"] = serde_json::json!([]);
            }),
            "fewer than two seats have start cells",
        ),
    ];
    for (change, expected) in cases {
        let said = problems(change);
        assert!(said.contains(expected), "{expected:?} not in {said:?}");
    }
    // Repeated keys are refused, not silently merged.
    let json = triangle_json().to_string().replacen("\"d1\":\"d4\"", "\"d1\":\"d4\",\"d1\":\"d4\"", 1);
    assert!(Board::from_json(&json).unwrap_err().to_string().contains("d1 appears twice"));
    // Every problem is listed.
    let said = problems(|v| {
        v["rows"][0][0] = "9x0".into();
        v["directions"]["d4"] = "d4".into();
    });
    assert!(said.contains("9x0") && said.contains("its own opposite"), "{said}");
    // The own baseline holds start cells on the triangle itself (§1 Decision).
    assert!(Board::triangle(DEFAULT_SIDE).unwrap().seat(0).start.iter().any(|c| *c >= 45));
}

/// A record of five cells in a row, with directions `e` and `w`, from parts.
fn row_record(forward: &str, start: [&str; 3], neighbours: serde_json::Value) -> String {
    serde_json::json!({
        "rows": [["a1", "a2", "a3", "a4", "a5"]],
        "directions": {"e": "w", "w": "e"},
        "neighbours": neighbours,
        "seats": {
            "y": {"forward": [forward], "sideways": [], "backward": [], "baseline": ["a1", "a2"],
                  "corners": ["a1", "a2"], "start": [start[0]]},
            "r": {"forward": [], "sideways": [], "backward": [], "baseline": ["a4", "a5"],
                  "corners": ["a4", "a5"], "start": [start[1]]},
            "b": {"forward": [], "sideways": [], "backward": [], "baseline": ["a2", "a4"],
                  "corners": ["a2", "a4"], "start": [start[2]]},
        }
    })
    .to_string()
}

fn straight() -> serde_json::Value {
    serde_json::json!({"a1": {"e": "a2"}, "a2": {"e": "a3", "w": "a1"}, "a3": {"e": "a4", "w": "a2"},
                       "a4": {"e": "a5", "w": "a3"}, "a5": {"w": "a4"}})
}

#[test]
fn s1_lines_may_not_run_in_a_circle_nor_meet() {
    let ring = serde_json::json!({"a1": {"e": "a2", "w": "a5"}, "a2": {"e": "a3", "w": "a1"}, "a3": {"e": "a4", "w": "a2"},
                                  "a4": {"e": "a5", "w": "a3"}, "a5": {"e": "a1", "w": "a4"}});
    let said = Board::from_json(&row_record("e", ["a1", "a5", "a3"], ring)).unwrap_err().to_string();
    assert!(said.contains("runs in a circle"), "{said}");
    assert!(Board::from_json(&row_record("e", ["a1", "a5", "a3"], straight())).is_ok());
}

// §2: the reconstructed board

#[test]
fn s2_triangles_of_other_sides() {
    let twelve = Board::triangle(12).unwrap();
    assert_eq!(twelve.len(), 78);
    assert_eq!(twelve.name(0), "b00", "components above 9 as base-36 digits");
    let r = rules(&[("side", "12")]);
    let start = Variant::start(&r);
    assert_eq!(stones(&start).count(), 33);
    assert_eq!(
        start.to_string(),
        "./../.../r..b/rr.bb/rr..bb/rr...bb/rr....bb/rr.....bb/........../...yyyyy.../...yyyyyy... y yrb - 0 1"
    );
    for refused in ["8", "11", "34", "ten"] {
        let err = TrialecticDame::new(&Options::new().set("side", refused)).unwrap_err().to_string();
        assert!(err.contains("side"), "{refused}: {err}");
    }
    assert!(TrialecticDame::new(&Options::new().set("side", "8")).unwrap_err().to_string().contains("side 8"));
    let both = Options::new().set("side", "12").set("board", triangle_json().to_string());
    assert!(TrialecticDame::new(&both).unwrap_err().to_string().contains("not both"));
}

// §3: seats, turn order, setup

#[test]
fn s3_the_turn_skips_seats_that_are_out_and_counts_rounds_b_to_y() {
    let r = rules(&[]);
    // Blue out: red's move passes over blue to yellow, a new round (r → b → y).
    let s = position(&[("y", "333"), ("r", "801")], "r yr- - 0 3");
    assert_eq!(tail(&play(&r, &s, "801-711").0), "y yr- - 0 4");
    // Yellow out: blue's move passes over yellow to red, a new round (b → y → r).
    let s = position(&[("r", "801"), ("b", "090")], "b -rb - 0 3");
    assert_eq!(tail(&play(&r, &s, "090-081").0), "r -rb - 0 4");
}

#[test]
fn s3_setup_2_places_a_twelfth_stone_first() {
    let r = rules(&[("setup", "2")]);
    let start = Variant::start(&r).to_string();
    let placements = legal(&r, &start);
    assert_eq!(placements.len(), 15);
    assert!(placements.iter().all(|m| m.starts_with('@')), "{placements:?}");
    // Not on another seat's baseline, not on its own corners.
    for refused in ["@108", "@009", "@090", "@801"] {
        assert!(!placements.contains(&refused.to_owned()), "{refused}");
    }
    let s = state(&r, &start);
    let err = Variant::parse_move(&r, &s, YELLOW, "@108").unwrap_err().to_string();
    assert!(err.contains("another seat's baseline"), "{err}");
    let err = Variant::parse_move(&r, &s, YELLOW, "126-117").unwrap_err().to_string();
    assert!(err.contains("placing your 12th stone"), "{err}");
    let (after, _) = play(&r, &start, "@333");
    assert!(after.ends_with(" r yrb rb 0 1"), "{after}");
    let (after, _) = play(&r, &start, "@333 @522 @342");
    assert!(after.ends_with(" y yrb - 0 2"), "{after}");
    assert_eq!(stones(&state(&r, &after)).count(), 36);
    assert_eq!(legal(&r, &after).len(), 14 + 3, "the new stone has moves too: {:?}", legal(&r, &after));
}

#[test]
fn s3_a_placement_is_the_whole_turn_even_when_a_capture_is_possible() {
    let r = rules(&[("setup", "2")]);
    let s = position(&[("y", "333"), ("r", "423 801"), ("b", "090")], "y yrb y 0 1");
    let moves = legal(&r, &s);
    assert!(moves.iter().all(|m| m.starts_with('@')) && !moves.is_empty(), "{moves:?}");
    let (after, _) = play(&r, &s, "@144");
    assert!(after.ends_with(" r yrb - 0 1"), "{after}");
}

// §4: moves

#[test]
fn s4_men_step_forward_and_sideways_not_backward() {
    let r = rules(&[]);
    let s = position(&[("y", "333"), ("r", "801"), ("b", "090")], "y yrb - 0 1");
    assert_eq!(legal(&r, &s), ["333-324", "333-342", "333-423", "333-432"]);
}

#[test]
fn s4_men_capture_backwards_but_never_their_own() {
    let r = rules(&[]);
    let back = position(&[("y", "333"), ("r", "243"), ("b", "090")], "y yrb - 0 1");
    assert_eq!(legal(&r, &back), ["333x153"]);
    let own = position(&[("y", "333 243"), ("r", "801"), ("b", "090")], "y yrb - 0 1");
    assert!(legal(&r, &own).iter().all(|m| m.contains('-')), "{:?}", legal(&r, &own));
}

#[test]
fn s4_a_dame_flies_and_lands_directly_behind_the_stone() {
    let r = rules(&[]);
    let s = position(&[("Y", "333"), ("r", "423 801"), ("b", "090")], "y yrb - 0 1");
    assert_eq!(legal(&r, &s), ["333x513"], "not 333x603: it lands right behind");
    // Without a capture it moves any distance along a line.
    let s = position(&[("Y", "333"), ("r", "801"), ("b", "090")], "y yrb - 0 1");
    let moves = legal(&r, &s);
    assert!(moves.contains(&"333-603".to_owned()) && moves.contains(&"333-036".to_owned()), "{moves:?}");
    assert_eq!(moves.len(), 3 + 3 + 3 + 3 + 3 + 3);
}

#[test]
fn s4_capturing_is_compulsory_and_goes_on_to_the_end() {
    let r = rules(&[]);
    let s = position(&[("y", "333"), ("r", "423 432 801"), ("b", "522 090")], "y yrb - 0 1");
    let st = state(&r, &s);
    let err = Variant::parse_move(&r, &st, YELLOW, "333-342").unwrap_err().to_string();
    assert!(err.contains("capturing is compulsory"), "{err}");
    let err = Variant::parse_move(&r, &st, YELLOW, "333x513x531").unwrap_err().to_string();
    assert!(err.contains("goes on until no jump is left") && err.contains("333x513x531x333"), "{err}");
}

#[test]
fn s4_no_majority_rule_among_sequences() {
    let r = rules(&[]);
    let s = position(&[("y", "333"), ("r", "423 342"), ("b", "441")], "y yrb - 0 1");
    assert_eq!(legal(&r, &s), ["333x351x531", "333x513"]);
}

#[test]
fn s4_promotion_ends_the_move_even_mid_sequence() {
    let r = rules(&[]);
    // 405 is on red's baseline: yellow's man promotes there and stops, though
    // it could jump 504 next.
    let s = position(&[("y", "225"), ("r", "315 504"), ("b", "090")], "y yrb - 0 1");
    assert_eq!(legal(&r, &s), ["225x405"]);
    let (after, _) = play(&r, &s, "225x405");
    assert_eq!(after, position(&[("Y", "405"), ("r", "504"), ("b", "090")], "r yrb - 0 1"));
    // By a step too.
    let s = position(&[("y", "117"), ("r", "801"), ("b", "090")], "y yrb - 0 1");
    assert_eq!(play(&r, &s, "117-108").0, position(&[("Y", "108"), ("r", "801"), ("b", "090")], "r yrb - 0 1"));
    // A man standing on a promotion cell (hand-made) stays a man.
    let s = position(&[("y", "405"), ("r", "801"), ("b", "090")], "y yrb - 0 1");
    assert_eq!(play(&r, &s, "405-414").0, position(&[("y", "414"), ("r", "801"), ("b", "090")], "r yrb - 0 1"));
}

#[test]
fn s4_dame_first_makes_a_dame_capture() {
    let s = position(&[("Y", "333"), ("y", "126"), ("r", "423 216 801"), ("b", "090")], "y yrb - 0 1");
    assert_eq!(legal(&rules(&[]), &s), ["126x306", "333x513x117"]);
    assert_eq!(legal(&rules(&[("dame_first", "on")]), &s), ["333x513x117"]);
    // An adopted Dame counts (enclosure variant 1).
    let s = position(&[("R", "333"), ("y", "126"), ("b", "423 216")], "y yyb - 0 1");
    assert_eq!(legal(&rules(&[("enclosure", "take"), ("dame_first", "on")]), &s), ["333x513x117"]);
    assert_eq!(legal(&rules(&[("enclosure", "take")]), &s), ["126x306", "333x513x117"]);
}

// §5: adopted stones, the end of the game, scores

#[test]
fn s5_adopted_stones_keep_their_colour_s_ways() {
    let r = rules(&[("enclosure", "take")]);
    // Red's man, yellow's now: red's forward and sideways directions.
    let s = position(&[("r", "333"), ("b", "090")], "y -yb - 0 1");
    assert_eq!(legal(&r, &s), ["333-234", "333-243", "333-342", "333-432"]);
    // It promotes on red's promotion cells: yellow's baseline.
    let s = position(&[("r", "144"), ("b", "090")], "y -yb - 0 1");
    assert!(play(&r, &s, "144-054").0.ends_with("/.....R...b b -yb - 0 1"), "{}", play(&r, &s, "144-054").0);
    // Yellow may not jump it, and must capture with it.
    let s = position(&[("y", "333"), ("r", "423"), ("b", "513 090")], "y yyb - 0 1");
    assert_eq!(legal(&r, &s), ["423x603"]);
}

#[test]
fn s5_an_enclosure_chain_goes_to_the_same_mover() {
    let s = position(&[("r", "009"), ("b", "090"), ("y", "018 027 108 207 081 072 180 270 333")], "y yrb - 0 1");
    let go = |enclosure| play(&rules(&[("enclosure", enclosure)]), &s, "333-423");
    let (base, o) = go("none");
    assert_eq!((tail(&base), o), ("y yrb - 0 2", None), "red and blue pass");
    let (take, o) = go("take");
    assert_eq!((tail(&take), o), ("b yyy - 0 1", win(YELLOW, EndReason::LastSeat)));
    let (remove, o) = go("remove");
    assert_eq!((tail(&remove), o), ("b y-- - 0 1", win(YELLOW, EndReason::LastSeat)));
    assert_eq!(stones(&state(&rules(&[]), &remove)).count(), 9);
}

/// Five cells in a row where no man can step and none can jump.
fn stuck_rules() -> TrialecticDame {
    rules(&[("board", &row_record("w", ["a1", "a5", "a3"], straight()))])
}

#[test]
fn s5_when_no_seat_can_move_the_game_is_drawn() {
    let r = stuck_rules();
    let start = Variant::start(&r);
    assert_eq!(start.to_string(), "y...r y yrb - 0 1".replace("y...r", "y.b.r"));
    let o = Variant::outcome(&r, &[], &start).unwrap();
    assert_eq!((o.result, o.reason), (GameResult::Draw, EndReason::NoSeatCanMove));
    assert!(legal(&r, &start.to_string()).is_empty());
    assert_eq!(Variant::perft(&r, &start, 1), 0);
    // Two seats in the game: ½ each, 0 for the one that is out.
    let two = state(&r, "y.r.. y yr- - 0 1");
    let o = Variant::outcome(&r, &[], &two).unwrap();
    assert_eq!(o.result, GameResult::DrawAmong(SeatSet::only(YELLOW).with(RED)));
}

#[test]
fn s5_no_progress_counts_dame_moves() {
    let r = rules(&[("no_progress", "3")]);
    let s = position(&[("Y", "333"), ("y", "144"), ("R", "801"), ("b", "090")], "y yrb - 2 1");
    let (after, o) = play(&r, &s, "333-342");
    assert_eq!((tail(&after), o), ("y yrb - 3 1", Some(Outcome::draw(EndReason::NoProgress))));
    let (after, o) = play(&r, &s, "144-234");
    assert_eq!((tail(&after), o), ("r yrb - 0 1", None), "a man's move is progress");
    let off = rules(&[]);
    assert_eq!(play(&off, &s, "333-342").1, None);
    // Blue out: a draw among yellow and red.
    let s = position(&[("Y", "333"), ("R", "801")], "y yr- - 2 1");
    let o = play(&r, &s, "333-342").1.unwrap();
    assert_eq!(o.result, GameResult::DrawAmong(SeatSet::only(YELLOW).with(RED)));
}

#[test]
fn s5_a_resigning_seat_leaves_and_play_goes_on() {
    let r = rules(&[]);
    let s = state(&r, &position(&[("y", "333"), ("r", "801"), ("b", "090")], "y yrb - 0 1"));
    let (after, notes, o) = Variant::retire(&r, &s, RED);
    assert_eq!((after.to_string(), o), (position(&[("y", "333"), ("b", "090")], "y y-b - 0 1"), None));
    assert!(notes[0].contains("red leaves"), "{notes:?}");
    assert_eq!(Variant::agreed_draw(&r, &after).seats, SeatSet::only(YELLOW).with(BLUE));
    // The seat to move resigns: the turn passes on, the last seat wins.
    let (last, _, o) = Variant::retire(&r, &after, YELLOW);
    // The game ended at yellow's turn: the state shows it (§7).
    assert_eq!(last.to_string(), position(&[("b", "090")], "y --b - 0 1"));
    assert_eq!(o, win(BLUE, EndReason::Resignation));
    let (turned, _, o) = Variant::retire(&r, &s, YELLOW);
    assert_eq!((tail(&turned.to_string()), o), ("r -rb - 0 1", None));
    // A timeout is a resignation: the caller takes the seat out with `retire`.
    assert_eq!(Variant::timeout(&r, &s, SeatSet::only(YELLOW)), None);
    // Adopted stones leave with their controller.
    let take = rules(&[("enclosure", "take")]);
    let s = state(&take, &position(&[("y", "333"), ("r", "801"), ("b", "090")], "y ybb - 0 1"));
    let (after, _, o) = Variant::retire(&take, &s, BLUE);
    assert_eq!((after.to_string(), o), (position(&[("y", "333")], "y y-- - 0 1"), win(YELLOW, EndReason::Resignation)));
}

#[test]
fn s5_an_agreed_draw_scores_the_seats_still_in() {
    let r = rules(&[]);
    let all = state(&r, START);
    assert_eq!(Variant::agreed_draw(&r, &all).outcome, Outcome::draw(EndReason::Agreement));
    let two = state(&r, &position(&[("y", "333"), ("b", "090")], "y y-b - 0 1"));
    assert_eq!(Variant::agreed_draw(&r, &two).outcome.result, GameResult::DrawAmong(SeatSet::only(YELLOW).with(BLUE)));
    assert_eq!(Variant::agreed_draw(&r, &all).seats.len(), 3);
}

// §6: move notation

#[test]
fn s6_dash_and_x_are_interchangeable_and_abbreviations_must_be_unique() {
    let r = rules(&[]);
    let start = state(&r, START);
    assert_eq!(Variant::parse_move(&r, &start, YELLOW, "126x117").unwrap().text, "126-117");
    let two = position(&[("Y", "333"), ("r", "423 801"), ("b", "153 090")], "y yrb - 0 1");
    let st = state(&r, &two);
    assert_eq!(Variant::parse_move(&r, &st, YELLOW, "333x513").unwrap().text, "333x063x513");
    assert_eq!(Variant::parse_move(&r, &st, YELLOW, "333-063-513").unwrap().text, "333x063x513");
    assert_eq!(Variant::parse_move(&r, &st, YELLOW, "333x063").unwrap().text, "333x513x063");
    // A partial path is refused.
    let loop_ = state(&r, &position(&[("y", "333"), ("r", "423 432 801"), ("b", "522 090")], "y yrb - 0 1"));
    assert!(matches!(Variant::parse_move(&r, &loop_, YELLOW, "333x513x531"), Err(MoveError::Illegal { .. })));
    // An exact one-jump path wins over the longer path it abbreviates.
    let s = state(&r, &position(&[("y", "225"), ("r", "315 324 414"), ("b", "090")], "y yrb - 0 1"));
    assert_eq!(legal(&r, &s.to_string()), ["225x405", "225x423x405"]);
    assert_eq!(Variant::parse_move(&r, &s, YELLOW, "225x405").unwrap().text, "225x405");
    assert_eq!(Variant::parse_move(&r, &s, YELLOW, "225-423-405").unwrap().text, "225x423x405");
    // Not moves at all.
    for text in ["", "126", "126-", "126-999", "@", "@999", "Nf3", "126--117"] {
        assert!(matches!(Variant::parse_move(&r, &start, YELLOW, text), Err(MoveError::NotAMove { .. })), "{text:?}");
        assert!(Variant::move_text(&r, text).is_none(), "{text:?}");
    }
    for text in ["126-117", "144x342x540", "@333", "126–117"] {
        assert!(Variant::move_text(&r, text).is_some(), "{text:?}");
    }
    let err = Variant::parse_move(&r, &start, YELLOW, "216-306").unwrap_err().to_string();
    assert!(err.contains("red's"), "{err}");
    let err = Variant::parse_move(&r, &start, YELLOW, "333-342").unwrap_err().to_string();
    assert!(err.contains("no stone on 333"), "{err}");
}

// §7: the state string

#[test]
fn s7_state_strings_are_checked() {
    let r = rules(&[]);
    let take = rules(&[("enclosure", "take")]);
    let bad = |r: &TrialecticDame, text: &str, expected: &str| {
        let err = r.parse_state(text).unwrap_err().to_string();
        assert!(err.contains(expected), "{text}: {expected:?} not in {err}");
    };
    bad(&r, "./.. y yrb - 0", "6 fields");
    bad(&r, &START.replace(" y yrb", "  y yrb"), "6 fields");
    bad(&r, &START.replace("./..", "./...").replace("/rr.bb", "/rrbb"), "row 2 has 3 characters");
    bad(&r, &START.replace("r.b/", "rgb/"), "'g' is not");
    bad(&r, &START.replace(" y yrb", " g yrb"), "seat");
    bad(&r, &START.replace(" yrb -", " yr -"), "three characters");
    bad(&r, &START.replace(" - 0 1", " ry 0 1"), "order y, r, b");
    bad(&r, &START.replace(" - 0 1", " yy 0 1"), "order y, r, b");
    bad(&r, &START.replace(" 0 1", " 01 1"), "plies");
    bad(&r, &START.replace(" 0 1", " +1 1"), "plies");
    bad(&r, &START.replace(" 0 1", " 0 0"), "round: must be 1");
    bad(&r, &START.replace(" yrb - ", " y-b - "), "r stones are on the board but nobody controls them");
    bad(&r, &position(&[("y", "333"), ("b", "090")], "y yrb - 0 1"), "no r stone");
    bad(&r, &position(&[("y", "333"), ("b", "090")], "r y-b - 0 1"), "r is to move but not in the game");
    bad(&r, &position(&[("y", "333"), ("r", "801"), ("b", "090")], "y yyb - 0 1"), "only enclosure variant 1");
    bad(
        &take,
        &position(&[("y", "333"), ("r", "801"), ("b", "090")], "y byb - 0 1"),
        "y controls r's stones but not its own",
    );
    bad(&r, "./../.../..../...../....../......./......../........./.......... y --- - 0 1", "nobody");
    // Accepted: adoption under take, a finished game with one seat left.
    for ok in [position(&[("r", "333"), ("b", "090")], "y -yb - 0 1"), position(&[("y", "333")], "b y-- - 0 7")] {
        assert_eq!(take.parse_state(&ok).unwrap().to_string(), ok);
    }
}

// §8: hand-made states and finished ones

#[test]
fn s8_a_hand_made_state_whose_seat_cannot_move() {
    let r = rules(&[]);
    let s = position(&[("b", "090"), ("y", "081 072"), ("Y", "180 270"), ("r", "414")], "b yrb - 0 1");
    assert!(legal(&r, &s).is_empty());
    let st = state(&r, &s);
    assert_eq!(tail(&Variant::settled(&r, &st).to_string()), "y yrb - 0 2");
    assert_eq!(Variant::outcome(&r, &[], &st), None);
    let dyn_rules: &dyn crate::rules::DynVariant = &r;
    assert_eq!(dyn_rules.settled(&s).unwrap(), Variant::settled(&r, &st).to_string());
    // Enclosure variant 2: blue is removed, the last mover is red.
    let remove = rules(&[("enclosure", "remove")]);
    assert_eq!(tail(&Variant::settled(&remove, &state(&remove, &s)).to_string()), "y yr- - 0 2");
}

#[test]
fn s8_a_finished_state_has_no_moves() {
    let r = rules(&[]);
    let s = state(&r, &position(&[("y", "513")], "y y-- - 0 1"));
    assert!(Variant::legal_moves(&r, &s, YELLOW).is_empty());
    assert_eq!((Variant::perft(&r, &s, 0), Variant::perft(&r, &s, 2)), (1, 0));
    let p = rules(&[("no_progress", "3")]);
    let s = state(&p, &position(&[("Y", "333"), ("r", "801"), ("b", "090")], "y yrb - 3 1"));
    assert!(Variant::legal_moves(&p, &s, YELLOW).is_empty());
    assert!(Variant::resolve(&p, &[], &s, &[]).is_err());
}

// The board for the renderers (the pictures drawn of it: tests/it/games/pictures.rs)

#[test]
fn the_board_is_drawn_from_the_record() {
    let r = rules(&[]);
    let view = Variant::board(&r, &state(&r, AFTER_CAPTURE));
    assert_eq!(view.shape.cells.len(), 55);
    assert_eq!(view.shape.seat_turns, [0.0, 120.0, 240.0]);
    assert_eq!(view.shape.seat_letters, ['y', 'r', 'b']);
    assert_eq!(view.pieces.len(), 32);
    assert_eq!(view.pieces.iter().filter(|(_, p)| p.kind == PieceKind::DraughtsKing).count(), 1);
    // The Dame on 018: bottom row, second from the left.
    let dame = view.pieces.iter().find(|(_, p)| p.kind == PieceKind::DraughtsKing).unwrap();
    assert_eq!((dame.0, dame.1.owner), (Cell { file: 1, rank: 0, level: 0 }, RED));
    assert!(view.shape.cells.iter().all(|c| c.outline == crate::rules::Outline::Triangle { up: true }));
    // Every baseline cell is named beside the board.
    assert_eq!(view.shape.labels.len(), 30);
    assert_eq!(view.shape.labels[0].text, "009");
}

#[test]
fn a_multi_jump_path_marks_every_landing_and_every_capture() {
    let r = rules(&[]);
    let s = state(&r, &position(&[("Y", "333"), ("r", "423 801"), ("b", "153 090")], "y yrb - 0 1"));
    let path = Variant::move_path(&r, Some(&s), "333x063x513").unwrap();
    let at = |name: &str| r.drawing.cells[r.board.cell(name).unwrap() as usize];
    assert_eq!(path.cells, [at("333"), at("063"), at("513")]);
    assert_eq!(path.captures, [at("153"), at("423")]);
    assert_eq!(Variant::move_path(&r, None, "333x063x513").unwrap().cells.len(), 3);
    assert_eq!(Variant::move_path(&r, None, "e2e4"), None);
}

#[test]
fn a_capture_not_in_the_legal_list_is_not_played() {
    let first = rules(&[("dame_first", "on")]);
    let s = state(&first, &position(&[("Y", "333"), ("y", "126"), ("r", "423 216 801"), ("b", "090")], "y yrb - 0 1"));
    let c = |n: &str| first.board.cell(n).unwrap();
    let capture = |path: &[&str], taken: &[&str]| DameMove {
        text: path.join("x"),
        play: Play::Capture { path: path.iter().map(|n| c(n)).collect(), taken: taken.iter().map(|n| c(n)).collect() },
    };
    let play = |r: &TrialecticDame, mv: DameMove| Variant::next_state(r, &s, &[(YELLOW, mv)]);
    let man = capture(&["126", "306"], &["216"]);
    assert!(play(&first, man.clone()).is_err(), "dame_first: the Dame must capture");
    assert!(play(&rules(&[]), man).is_ok());
    assert!(play(&first, capture(&["333", "513"], &["423"])).is_err(), "the sequence goes on");
    assert!(play(&first, capture(&["333", "513", "117"], &["423", "216"])).is_ok());
    let step = DameMove { text: "333-342".into(), play: Play::Step(c("333"), c("342")) };
    assert!(play(&rules(&[]), step).is_err(), "capturing is compulsory");
}

/// Every string in a JSON value, as paths of keys and indices.
fn string_leaves(v: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        serde_json::Value::String(_) => out.push(path.clone()),
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                string_leaves(item, path, out);
                path.pop();
            }
        }
        serde_json::Value::Object(map) => {
            for (k, item) in map {
                path.push(k.clone());
                string_leaves(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 400, ..Default::default() })]

    /// A record changed by copying names over other names (cells, directions,
    /// seat items) is read or refused with reasons, never a panic; a record
    /// that is read gives a game that starts, moves and draws.
    #[test]
    fn a_changed_record_is_read_or_refused(swaps in proptest::collection::vec((0usize..10_000, 0usize..10_000), 1..4)) {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/games/data/dame-hexagon.json")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut leaves = Vec::new();
        string_leaves(&v, &mut Vec::new(), &mut leaves);
        for (from, to) in swaps {
            let (from, to) = (&leaves[from % leaves.len()], &leaves[to % leaves.len()]);
            let pointer = |p: &[String]| format!("/{}", p.join("/"));
            let value = v.pointer(&pointer(from)).cloned().unwrap();
            *v.pointer_mut(&pointer(to)).unwrap() = value;
        }
        match TrialecticDame::new(&Options::new().set("board", v.to_string())) {
            Err(e) => proptest::prop_assert!(!e.to_string().is_empty()),
            Ok(r) => {
                let start = Variant::start(&r);
                let _ = Variant::perft(&r, &start, 3);
                let view = Variant::board(&r, &start);
                proptest::prop_assert_eq!(view.shape.cells.len(), r.board.len());
                // That the text board draws it: tests/it/games/pictures.rs.
            }
        }
    }
}
