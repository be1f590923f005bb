//! The pictures of each game's board: the text board, the SVG and the PNG the
//! renderers draw from what a game's rules describe. They live here, not in
//! the rules' unit tests, so that `src/rules/` never reaches for `render`: the
//! rules describe the board, the renderers draw it.

use fairsteward::render::{png, svg, text};
use fairsteward::rules::{DynVariant, Options, Seat, VariantId};

// 3D chess ----------------------------------------------------------------------

/// docs/rules/tri-d-chess.md §14: the rules' own attack-board example.
const ANHANG: &str = "4/4/4/2P1/4/4/4/4/4/1p2/4/4 wKL1:2/2,wQL2:2/1K,bQL4:2/1k,bKL6:2/2 b - - - - 0 30";
const WHITE: Seat = Seat::new(0);
const BLACK: Seat = Seat::new(1);

fn tri_d() -> Box<dyn DynVariant> {
    VariantId::TriDChess.rulebook(&Options::new()).unwrap()
}

/// The start as a text board from both sides: the three main boards stacked,
/// attack boards beside them, ranks on one side and the levels' names on the
/// other; every seat sees its own board at the bottom.
#[test]
fn tri_d_the_text_board_from_both_sides() {
    let r = tri_d();
    let view = r.board(&r.start()).unwrap();
    assert_eq!(view.shape.cells.len(), 64);
    let white = text::board_for_seats(&view, WHITE, r.seat_names(), &[]);
    let lines: Vec<&str> = white.lines().collect();
    assert_eq!(lines[0], "     z a   a b c d   d e");
    assert_eq!(lines[1], "  9  r q             k r  QL6 KL6");
    assert_eq!(lines[2], "  8  p p   n b b n   p p");
    assert_eq!(lines[3], "  7        p p p p        B");
    assert_eq!(lines[6], "");
    assert_eq!(lines[8], "  5        . . . .        N");
    assert_eq!(lines[14], "  2        P P P P        W");
    assert_eq!(lines[16], "  0  R Q             K R  QL1 KL1");
    let black = text::board_for_seats(&view, BLACK, r.seat_names(), &[]);
    let lines: Vec<&str> = black.lines().collect();
    assert_eq!(lines[0], "         e d   d c b a   a z");
    assert_eq!(lines[1], "QL1 KL1  R K             Q R  0");
    assert_eq!(lines[16], "QL6 KL6  r k             q r  9");
}

/// The board that moved is marked on all four squares, its path ending on its
/// passenger (the rest of this test is in the rules' unit tests).
#[test]
fn tri_d_a_board_move_is_drawn_on_the_board_it_carries() {
    let r = tri_d();
    let path = r.move_path(Some(ANHANG), "QL4-QL5").unwrap();
    let seat = r.seats_to_move(ANHANG).unwrap().iter().next().unwrap();
    let after = r.resolve(&[], ANHANG, &[(seat, "QL4-QL5".to_owned())]).unwrap().state;
    let view = r.board(&after).unwrap();
    let text = text::board_for_seats(&view, WHITE, r.seat_names(), &[path]);
    assert!(text.contains("  4 +.+k                  QL5"), "{text}");
}

/// The picture names the levels in glyphs and draws the same position from
/// both sides (PNG too).
#[test]
fn tri_d_the_picture_from_both_sides() {
    let r = tri_d();
    let view = r.board(ANHANG).unwrap();
    let marks = svg::Marks { last_moves: vec![], to_move: vec![BLACK] };
    let white = svg::board_svg(&view, &marks, WHITE);
    let black = svg::board_svg(&view, &marks, BLACK);
    assert_ne!(white, black);
    assert!(!white.contains("<text"));
    let png = png::board_png(&black, 320).unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

// Trialectic Dame -----------------------------------------------------------------

fn dame(options: &Options) -> Box<dyn DynVariant> {
    VariantId::TrialecticDame.rulebook(options).unwrap_or_else(|e| panic!("{options:?}: {e}"))
}

/// Each seat's baseline on the default side-10 triangle (docs/rules/trialectic-dame.md §1).
const BASELINES: [[&str; 10]; 3] = [
    ["009", "018", "027", "036", "045", "054", "063", "072", "081", "090"],
    ["009", "108", "207", "306", "405", "504", "603", "702", "801", "900"],
    ["090", "180", "270", "360", "450", "540", "630", "720", "810", "900"],
];

#[test]
fn dame_every_seat_reads_its_own_side_at_the_bottom_of_the_text_board() {
    let r = dame(&Options::new());
    let view = r.board(&r.start()).unwrap();
    for (s, letter) in ["y", "r", "b"].into_iter().enumerate() {
        let text = text::board_for_seats(&view, Seat::new(s as u8), r.seat_names(), &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 11, "{text}");
        let bottom_row = lines[9];
        assert_eq!(bottom_row.matches(&format!("{letter}M")).count(), 6, "seat {s}: {text}");
        assert_eq!(bottom_row.matches('M').count(), 6, "seat {s}: {text}");
        let mut sorted = BASELINES[s].to_vec();
        sorted.sort_unstable();
        let mut shown: Vec<&str> = lines[10].split_whitespace().collect();
        shown.sort_unstable();
        assert_eq!(shown, sorted, "seat {s}: its baseline named along the bottom: {text}");
    }
    let yellow = text::board_for_seats(&view, Seat::new(0), r.seat_names(), &[]);
    assert_eq!(yellow.lines().next().unwrap(), "900                     .                    900");
    assert_eq!(yellow.lines().nth(9).unwrap(), "009   .   .  yM  yM  yM  yM  yM  yM   .   .  090");
    assert_eq!(yellow.lines().nth(10).unwrap(), "    009 018 027 036 045 054 063 072 081 090");
}

#[test]
fn dame_every_seat_sees_its_own_stones_at_the_bottom_of_its_picture() {
    let r = dame(&Options::new());
    let view = r.board(&r.start()).unwrap();
    // The armies' looks: yellow, red, blue (`Army::index` 4, 5, 6).
    let ids = ["#p4m", "#p5m", "#p6m"];
    for seat in 0..3u8 {
        let svg = svg::board_svg(&view, &Default::default(), Seat::new(seat));
        // The lowest stone's army, from `<use xlink:href="#p4m" transform="translate(x y) …">`.
        let lowest = svg
            .lines()
            .filter(|l| l.starts_with("<use xlink:href=\"#p"))
            .filter_map(|l| {
                let id = &l[17..21];
                let y: f32 = l.split("translate(").nth(1)?.split([' ', ')']).nth(1)?.parse().ok()?;
                Some((id, y))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        assert_eq!(lowest.0, ids[usize::from(seat)], "seat {seat}");
        assert_eq!(svg.matches(ids[usize::from(seat)]).count(), 11, "eleven stones");
    }
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

    /// A board record changed by copying names over other names, when it is
    /// read, gives a board the text board draws (the rules' own unit test
    /// checks the reading).
    #[test]
    fn dame_a_changed_record_that_reads_is_drawn(swaps in proptest::collection::vec((0usize..10_000, 0usize..10_000), 1..4)) {
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
        if let Ok(r) = VariantId::TrialecticDame.rulebook(&Options::new().set("board", v.to_string())) {
            let view = r.board(&r.start()).unwrap();
            let _ = text::board_for_seats(&view, Seat::new(2), r.seat_names(), &[]);
        }
    }
}
