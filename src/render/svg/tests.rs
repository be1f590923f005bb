//! The pictures checked by their markup and by their pixels.

use resvg::{tiny_skia, usvg};

use super::art::{LOOKS, look, piece_id};
use super::drawing::{ARROW, DARK, FRAME, LIGHT, MOVE_TINT, PAUSE, SHADES};
use super::glyphs::glyph;
use super::layout::{BAR, GAP, MARGIN, PX_PER_UNIT, SQ};
use super::*;
use crate::render::fixtures::{four_armies, hexagons, kings_at_home, triangles, two_levels};
use crate::rules::{Army, BoardShape, Cell, Options, Outline, PieceKind, PieceView, Point, VariantId};

/// What `num` wrote before: the float rounded to hundredths, formatted with
/// two decimals, trailing zeros and point trimmed.
fn num_by_float_formatting(v: f32) -> String {
    let r = (v * 100.0).round() / 100.0;
    let r = if r == 0.0 { 0.0 } else { r };
    let s = format!("{r:.2}");
    let s = s.trim_end_matches('0');
    s.strip_suffix('.').unwrap_or(s).to_owned()
}

#[test]
fn numbers_print_as_two_decimal_formatting_would() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut values = vec![0.0, -0.0, 0.004, -0.004, 0.005, -0.005, 0.5, -0.5, 1.0, -1.25, 10.1, 99.999, 1999.995];
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        values.push(((x % 4_000_000) as f32 - 2_000_000.0) / 997.0);
    }
    values.extend((-20_000..20_000).map(|k| k as f32 / 100.0));
    for v in values {
        assert_eq!(num(v), num_by_float_formatting(v), "{v}");
    }
}

fn c(file: u8, rank: u8) -> Cell {
    Cell { file, rank, level: 0 }
}

/// Parses the SVG as the PNG renderer does: it must be well-formed.
fn parse(svg: &str) -> usvg::Tree {
    usvg::Tree::from_str(svg, &usvg::Options::default()).unwrap_or_else(|e| panic!("invalid svg ({e}):\n{svg}"))
}

/// Renders at one pixel per unit and returns the colour at (`x`, `y`) in units.
fn pixel(svg: &str, x: f32, y: f32) -> (u8, u8, u8) {
    let tree = parse(svg);
    let size = tree.size();
    let scale = 1.0 / PX_PER_UNIT;
    let (w, h) = ((size.width() * scale).round() as u32, (size.height() * scale).round() as u32);
    let mut pixmap = tiny_skia::Pixmap::new(w, h).unwrap();
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    let p = pixmap.pixel(x as u32, y as u32).unwrap().demultiply();
    (p.red(), p.green(), p.blue())
}

fn rgb(hex: &str) -> (u8, u8, u8) {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
    ((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

/// The top-left corner of the square `cell` in `viewer`'s picture of `view`.
fn origin(view: &BoardView, viewer: u8, cell: Cell) -> (f32, f32) {
    let (x, y) = Layout::new(&view.shape, Seat::new(viewer)).centre(cell).expect("on the board");
    (x - SQ / 2.0, y - SQ / 2.0)
}

/// Every kind of every seat, on a 8×4 board: seat `r` on rank `r`.
fn all_pieces() -> BoardView {
    let pieces = (0..4u8)
        .flat_map(|owner| {
            PieceKind::ALL
                .into_iter()
                .enumerate()
                .map(move |(f, kind)| (c(f as u8, owner), PieceView { owner: Seat::new(owner), kind }))
        })
        .collect();
    let shape = BoardShape::squares(8, 4, &[], true, vec![0.0, 180.0]);
    BoardView { shape: std::sync::Arc::new(shape), pieces, marked: Vec::new() }
}

#[test]
fn every_piece_kind_of_every_seat_is_drawn() {
    let svg = board_svg(&all_pieces(), &Marks::default(), Seat::new(0));
    parse(&svg);
    for owner in 0..4 {
        for kind in "kqrbnpmc".chars() {
            let id = format!("p{owner}{kind}");
            assert_eq!(svg.matches(&format!(r#"<g id="{id}""#)).count(), 1, "{id} defined once");
            assert_eq!(svg.matches(&format!(r##"xlink:href="#{id}""##)).count(), 1, "{id} placed once");
        }
    }
    // Each army's body colour shows on its queen's crown (b2 is light, so the
    // crown's fill is not the square's).
    for owner in 0..4u8 {
        let (x, y) = origin(&all_pieces(), 0, c(1, owner));
        assert_eq!(pixel(&svg, x + 50.0, y + 55.0), rgb(LOOKS[usize::from(owner)].fill), "seat {owner}");
    }
}

#[test]
fn the_extra_armies_carry_a_mark_besides_their_colour() {
    let svg = board_svg(&all_pieces(), &Marks::default(), Seat::new(0));
    let group = |id: &str| {
        let start = svg.find(&format!(r#"<g id="{id}""#)).unwrap();
        svg[start..start + svg[start..].find("</g>").unwrap()].to_owned()
    };
    assert!(!group("p0k").contains("<circle") && !group("p1k").contains("M29 86"));
    assert_eq!(group("p2k").matches("<circle").count(), 3, "three dots on the sand army's base");
    assert!(group("p3k").contains("M29 86 H71"), "a bar across the brown army's base");
}

#[test]
fn holes_are_not_drawn() {
    let view = four_armies();
    let svg = board_svg(&view, &Marks::default(), Seat::new(0));
    parse(&svg);
    let cells = svg.split("<g id=\"cells\"").nth(1).unwrap().split("</g>").next().unwrap();
    assert_eq!(cells.matches("<rect").count(), 160, "160 squares (docs/rules/vierschach.md §1)");
    // a1 and b13 are holes: the frame shows where they would be.
    let (x, y) = origin(&view, 0, c(3, 0));
    assert_eq!(pixel(&svg, x - 3.0 * SQ + 50.0, y + 50.0), rgb(FRAME));
    let (x, y) = origin(&view, 0, c(3, 12));
    assert_eq!(pixel(&svg, x - 2.0 * SQ + 50.0, y + 50.0), rgb(FRAME));
    // Light iff x + y is even (docs/rules/vierschach.md §1): e3 light, d3 dark.
    let (x, y) = origin(&view, 0, c(4, 2));
    assert_eq!(pixel(&svg, x + 50.0, y + 50.0), rgb(LIGHT));
    let (x, y) = origin(&view, 0, c(3, 2));
    assert_eq!(pixel(&svg, x + 50.0, y + 50.0), rgb(DARK));
}

#[test]
fn chess_squares_are_light_on_the_right() {
    let rules = VariantId::Chess.rulebook(&Options::new()).unwrap();
    let view = rules.board(&rules.start()).unwrap();
    let svg = board_svg(&view, &Marks::default(), Seat::new(0));
    for (cell, colour) in [(c(7, 0), LIGHT), (c(0, 0), DARK), (c(4, 3), LIGHT), (c(3, 3), DARK)] {
        let (x, y) = origin(&view, 0, cell);
        assert_eq!(pixel(&svg, x + 3.0, y + 3.0), rgb(colour), "{cell:?}");
    }
}

#[test]
fn paused_cells_last_moves_and_seats_to_move_are_marked() {
    let rules = VariantId::Fairschach.rulebook(&Options::new()).unwrap();
    let view = rules.board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2").unwrap();
    let marks = Marks {
        last_moves: vec![MovePath::step(c(4, 1), c(4, 3)), MovePath::step(c(3, 6), c(3, 4))],
        to_move: vec![Seat::new(0), Seat::new(1)],
    };
    let svg = board_svg(&view, &marks, Seat::new(0));
    parse(&svg);
    assert_eq!(svg.matches("url(#hatch)").count(), 2, "e4 and d5 hatched");
    assert_eq!(svg.matches(r##"xlink:href="#pause""##).count(), 2, "e4 and d5 badged");
    assert_eq!(svg.matches(MOVE_TINT).count(), 4, "e2, e4, d7, d5 tinted");
    assert_eq!(svg.matches(&format!(r#"fill="{ARROW}""#)).count(), 2, "two arrows");
    assert_eq!(svg.matches(r#"rx="4""#).count(), 2, "two to-move bars");

    // The pause badge sits at the top right of e4; the bars lie along the
    // bottom (white) and the top (black).
    let (x, y) = origin(&view, 0, c(4, 3));
    assert_eq!(pixel(&svg, x + 80.0, y + 20.0), rgb(PAUSE));
    let bar_mid = |top: bool| {
        let y = if top { MARGIN - GAP - BAR / 2.0 } else { MARGIN + 8.0 * SQ + GAP + BAR / 2.0 };
        pixel(&svg, MARGIN + 150.0, y)
    };
    assert_eq!(bar_mid(false), rgb(LOOKS[0].fill));
    assert_eq!(bar_mid(true), rgb(LOOKS[1].fill));
    // Seen from black's side, the bars change places.
    let turned = board_svg(&view, &marks, Seat::new(1));
    assert_eq!(pixel(&turned, MARGIN + 150.0, MARGIN - GAP - BAR / 2.0), rgb(LOOKS[0].fill));
}

#[test]
fn a_board_names_the_armies_of_its_seats() {
    // Three seats dressed white, brown and black (not the default white,
    // black, sand): the second seat's pieces and bar are brown.
    let mut view = hexagons();
    kings_at_home(&mut view);
    let mut shape = (*view.shape).clone();
    shape.armies = vec![Army::White, Army::Brown, Army::Black];
    view.shape = std::sync::Arc::new(shape);
    let marks = Marks { to_move: vec![Seat::new(1)], ..Marks::default() };
    let svg = board_svg(&view, &marks, Seat::new(0));
    parse(&svg);
    let brown = piece_id(Army::Brown, PieceKind::King);
    assert!(svg.contains(&format!(r#"<g id="{brown}" fill="{}""#, look(Army::Brown).fill)), "{svg}");
    assert!(svg.contains(&format!(
        r#"fill="{}" stroke="{}" stroke-width="2.5""#,
        look(Army::Brown).fill,
        look(Army::Brown).line
    )));
    assert!(!svg.contains(look(Army::Sand).fill), "no sand army on this board");
}

#[test]
fn every_army_differs_from_the_others_in_lightness_or_mark() {
    // Colour-blind players tell armies apart by lightness or by the mark on
    // the base: every two looks differ in one of them by a clear margin.
    let lightness = |hex: &str| {
        let (r, g, b) = rgb(hex);
        0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b)
    };
    for (i, a) in LOOKS.iter().enumerate() {
        for b in &LOOKS[i + 1..] {
            let apart = (lightness(a.fill) - lightness(b.fill)).abs() > 60.0;
            assert!(apart || a.badge != b.badge, "{} and {} look alike", a.fill, b.fill);
        }
    }
    // Stones carry the mark on their band, not below it.
    let view = BoardView {
        shape: std::sync::Arc::new(BoardShape {
            armies: vec![Army::Yellow, Army::Red, Army::Blue],
            ..BoardShape::squares(3, 1, &[], true, vec![0.0, 120.0, 240.0])
        }),
        pieces: (0..3u8).map(|s| (c(s, 0), PieceView { owner: Seat::new(s), kind: PieceKind::Man })).collect(),
        marked: Vec::new(),
    };
    let svg = board_svg(&view, &Marks::default(), Seat::new(0));
    parse(&svg);
    assert_eq!(svg.matches(r#"<g transform="translate(0 -9)">"#).count(), 3, "{svg}");
    let (x, y) = origin(&view, 0, c(1, 0));
    assert_eq!(pixel(&svg, x + 50.0, y + 60.0), rgb(look(Army::Red).fill));
}

#[test]
fn four_seats_sit_clockwise_from_the_bottom() {
    let view = four_armies();
    let mid = MARGIN + 14.0 * SQ / 2.0 + 30.0;
    let outer = MARGIN + 14.0 * SQ + GAP + BAR / 2.0;
    let inner = MARGIN - GAP - BAR / 2.0;
    for (seat, (x, y)) in [(0, (mid, outer)), (1, (inner, mid)), (2, (mid, inner)), (3, (outer, mid))] {
        let marks = Marks { to_move: vec![Seat::new(seat)], ..Marks::default() };
        let svg = board_svg(&view, &marks, Seat::new(0));
        assert_eq!(pixel(&svg, x, y), rgb(LOOKS[usize::from(seat)].fill), "seat {seat}");
    }
}

#[test]
fn coordinates_are_drawn_as_paths_for_every_file_and_rank() {
    let svg = board_svg(&four_armies(), &Marks::default(), Seat::new(2));
    parse(&svg);
    assert!(!svg.contains("<text"));
    for ch in "abcdefghijklmn0123456789".chars() {
        let (_, path) = glyph(ch).unwrap();
        assert!(svg.contains(&format!(r#"<path d="{path}""#)), "{ch} drawn");
    }
    // 14 files twice, ranks 1-9 twice, 10-14 (two glyphs) twice.
    let coordinates = svg.split("<g id=\"coordinates\"").nth(1).unwrap().split("</g>").next().unwrap();
    assert_eq!(coordinates.matches("<path").count(), 2 * 14 + 2 * 9 + 2 * 2 * 5);
}

#[test]
fn the_same_position_gives_the_same_bytes() {
    let marks = Marks { last_moves: vec![MovePath::step(c(3, 1), c(3, 3))], to_move: vec![Seat::new(1)] };
    let mut view = four_armies();
    view.marked = vec![c(3, 3), c(0, 4)];
    let first = board_svg(&view, &marks, Seat::new(0));
    assert_eq!(first, board_svg(&view, &marks, Seat::new(0)));
    // The order of the view's lists does not matter.
    view.pieces.reverse();
    view.marked.reverse();
    assert_eq!(first, board_svg(&view, &marks, Seat::new(0)));
    assert!(first.len() < 64 * 1024, "{} bytes", first.len());
}

#[test]
fn what_lies_outside_the_grid_is_left_out() {
    let mut view = all_pieces();
    view.pieces.push((c(9, 9), PieceView { owner: Seat::new(0), kind: PieceKind::King }));
    view.marked.push(c(9, 0));
    let marks = Marks {
        last_moves: vec![MovePath::step(c(0, 0), c(20, 20)), MovePath::step(c(1, 1), c(1, 1))],
        ..Marks::default()
    };
    let svg = board_svg(&view, &marks, Seat::new(0));
    parse(&svg);
    assert_eq!(svg.matches(r##"xlink:href="#p0k""##).count(), 1);
    assert!(!svg.contains("url(#hatch)") && !svg.contains(ARROW));
}

#[test]
fn numbers_print_the_same_every_time() {
    assert_eq!(num(0.0), "0");
    assert_eq!(num(-0.001), "0");
    assert_eq!(num(12.5), "12.5");
    assert_eq!(num(1.0 / 3.0), "0.33");
    assert_eq!(num(754.0), "754");
}

/// The centres of the cells of `view` in `viewer`'s picture, and the lowest.
fn placed(view: &BoardView, viewer: Seat) -> (Layout<'_>, f32) {
    let layout = Layout::new(&view.shape, viewer);
    let bottom = view.shape.cells.iter().filter_map(|c| layout.centre(c.cell)).map(|p| p.1).fold(f32::MIN, f32::max);
    (layout, bottom)
}

/// Where the piece placed with `<use … x= y=>` or `translate()` on `cell`
/// sits in the SVG text: the centre read back from the markup.
fn king_centre(svg: &str, seat: usize) -> (f32, f32) {
    let needle = format!(r##"<use xlink:href="#p{seat}k" x=""##);
    let at = svg.find(&needle).unwrap_or_else(|| panic!("seat {seat}'s king placed:\n{svg}"));
    let rest = &svg[at + needle.len()..];
    let x: f32 = rest[..rest.find('"').unwrap()].parse().unwrap();
    let rest = &rest[rest.find("y=\"").unwrap() + 3..];
    let y: f32 = rest[..rest.find('"').unwrap()].parse().unwrap();
    (x + SQ / 2.0, y + SQ / 2.0)
}

#[test]
fn every_seat_of_four_sees_its_own_pieces_at_the_bottom() {
    let mut view = four_armies();
    let homes = kings_at_home(&mut view);
    let svgs: Vec<String> = (0..4).map(|s| board_svg(&view, &Marks::default(), Seat::new(s))).collect();
    for (s, svg) in svgs.iter().enumerate() {
        parse(svg);
        let (layout, bottom) = placed(&view, Seat::new(s as u8));
        let (_, y) = king_centre(svg, s);
        assert_eq!(y, bottom, "seat {s}'s king on the bottom rank of its view");
        assert_eq!(layout.centre(homes[s]).unwrap().1, bottom);
        for other in (0..4).filter(|&o| o != s) {
            assert!(king_centre(svg, other).1 < bottom, "seat {other} not at the bottom of seat {s}'s view");
        }
        // The seat's army colour shows on its king, bottom band.
        let (x, y) = king_centre(svg, s);
        assert_eq!(pixel(svg, x - 10.0, y + 5.0), rgb(LOOKS[s].fill), "seat {s}");
    }
    for a in 0..4 {
        for b in a + 1..4 {
            assert_ne!(svgs[a], svgs[b], "seats {a} and {b} see different pictures");
        }
    }
}

#[test]
fn hexagons_for_three_seats_are_drawn_turned_for_each() {
    let mut view = hexagons();
    let homes = kings_at_home(&mut view);
    let marks = Marks { to_move: vec![Seat::new(1)], ..Marks::default() };
    for s in 0..3u8 {
        let svg = board_svg(&view, &marks, Seat::new(s));
        parse(&svg);
        let cells = svg.split("<g id=\"cells\"").nth(1).unwrap().split("</g>").next().unwrap();
        assert_eq!(cells.matches("<polygon").count(), 19, "19 hexagons");
        for shade in SHADES {
            assert!(cells.contains(shade), "three colours: {shade}");
        }
        let (layout, bottom) = placed(&view, Seat::new(s));
        let y = layout.centre(homes[usize::from(s)]).unwrap().1;
        assert!((y - bottom).abs() < 1.0, "seat {s}'s home row at the bottom of its view ({y} vs {bottom})");
        // The king drawn there, scaled into its hexagon.
        let scale = Outline::HexagonPointed.piece_scale();
        assert!(svg.contains(&format!(r##"<use xlink:href="#p{s}k" transform="##)), "{svg}");
        assert!(svg.contains(&format!("scale({})", num(scale))));
        // Seat 2's bar: along the bottom for itself, turned for the others.
        let bar = svg.split(r#"class="to-move seat-2""#).nth(1).unwrap().split("/>").next().unwrap().to_owned();
        assert_eq!(bar.contains("rotate("), s != 1, "{bar}");
    }
    // The labels of the first seat's edge are drawn (only the letters a..e).
    let svg = board_svg(&view, &Marks::default(), Seat::new(0));
    let coordinates = svg.split("<g id=\"coordinates\"").nth(1).unwrap().split("</g>").next().unwrap();
    assert_eq!(coordinates.matches("<path").count(), 3);
}

#[test]
fn triangles_hold_draughts_men_and_kings() {
    let mut view = triangles();
    view.pieces = vec![
        (c(0, 0), PieceView { owner: Seat::new(0), kind: PieceKind::Man }),
        (c(2, 1), PieceView { owner: Seat::new(1), kind: PieceKind::DraughtsKing }),
    ];
    let svg = board_svg(&view, &Marks::default(), Seat::new(2));
    parse(&svg);
    let cells = svg.split("<g id=\"cells\"").nth(1).unwrap().split("</g>").next().unwrap();
    assert_eq!(cells.matches("<polygon").count(), 9);
    assert_eq!(cells.matches(LIGHT).count(), 6, "six triangles up");
    assert!(svg.contains(r#"<g id="p0m""#) && svg.contains(r#"<g id="p1c""#));
    assert_eq!(svg.matches("scale(0.62)").count(), 2, "pieces shrunk into their triangles");
    // The man shows in its colour at its triangle's centroid.
    let (x, y) = Layout::new(&view.shape, Seat::new(2)).centre(c(0, 0)).unwrap();
    assert_eq!(pixel(&svg, x, y + 3.0), rgb(LOOKS[0].fill));
}

#[test]
fn levels_stand_side_by_side() {
    let mut view = two_levels();
    view.pieces = vec![(Cell { file: 0, rank: 0, level: 1 }, PieceView { owner: Seat::new(1), kind: PieceKind::Rook })];
    for viewer in [Seat::new(0), Seat::new(1)] {
        let svg = board_svg(&view, &Marks::default(), viewer);
        parse(&svg);
        let layout = Layout::new(&view.shape, viewer);
        let right_of_0 = view
            .shape
            .cells
            .iter()
            .filter(|c| c.cell.level == 0)
            .map(|c| layout.centre(c.cell).unwrap().0)
            .fold(f32::MIN, f32::max);
        let left_of_1 = view
            .shape
            .cells
            .iter()
            .filter(|c| c.cell.level == 1)
            .map(|c| layout.centre(c.cell).unwrap().0)
            .fold(f32::MAX, f32::min);
        assert!(left_of_1 > right_of_0 + SQ, "level 1 right of level 0");
        assert_eq!(
            svg.split("<g id=\"cells\"").nth(1).unwrap().split("</g>").next().unwrap().matches("<rect").count(),
            8
        );
        let (x, y) = layout.centre(Cell { file: 0, rank: 0, level: 1 }).unwrap();
        assert_eq!(pixel(&svg, x, y + 5.0), rgb(LOOKS[1].fill), "the rook on level 1");
    }
    // Each level has its own coordinates: a and b under both.
    let svg = board_svg(&view, &Marks::default(), Seat::new(0));
    let coordinates = svg.split("<g id=\"coordinates\"").nth(1).unwrap().split("</g>").next().unwrap();
    assert_eq!(coordinates.matches("<path").count(), 2 * 8);
}

#[test]
fn a_multi_jump_marks_its_whole_path_and_its_captures() {
    let mut view = triangles();
    view.pieces = vec![(c(4, 0), PieceView { owner: Seat::new(0), kind: PieceKind::DraughtsKing })];
    let jump = MovePath { cells: vec![c(0, 0), c(0, 2), c(4, 0)], captures: vec![c(1, 1), c(2, 1)], grip: Vec::new() };
    let marks = Marks { last_moves: vec![jump], ..Marks::default() };
    let svg = board_svg(&view, &marks, Seat::new(0));
    parse(&svg);
    assert_eq!(svg.matches(r#"class="last-move""#).count(), 3, "from, the landing, to");
    assert_eq!(svg.matches(r#"class="captured""#).count(), 2, "both jumped men crossed");
    assert_eq!(svg.matches(r#"class="arrow-path""#).count(), 1);
    assert_eq!(svg.matches(r#"class="arrow""#).count(), 1);
    // The cross lies over the captured cell's centre.
    let (x, y) = Layout::new(&view.shape, Seat::new(0)).centre(c(1, 1)).unwrap();
    assert_eq!(pixel(&svg, x, y), rgb(ARROW));
    let _ = Point::new(0.0, 0.0);
}

#[test]
fn the_interactive_board_names_every_cell_and_adds_only_a_layer() {
    for v in crate::rules::VariantId::ALL {
        let rules = v.rulebook(&crate::rules::Options::new()).unwrap();
        let view = rules.board(&rules.start()).unwrap();
        let plain = board_svg(&view, &Marks::default(), Seat::new(0));
        let page = board_svg_interactive(&view, &Marks::default(), Seat::new(0));
        let hits = page.split("<g id=\"hits\"").nth(1).unwrap();
        assert_eq!(hits.matches("data-cell=").count(), view.shape.cells.len(), "{v}");
        // Each cell uses an outline the layer defines; cells of one shape
        // share it (squares and hexagons: one; triangles: two).
        let outlines = hits.matches("<polygon id=\"hit").count();
        assert!((1..=4).contains(&outlines), "{v}: {outlines} outlines");
        for i in 0..outlines {
            assert!(hits.contains(&format!("href=\"#hit{i}\"")), "{v}: outline {i} is used");
        }
        assert!(hits.len() < 80 * view.shape.cells.len() + 1000, "{v}: the layer is {} bytes", hits.len());
        let mut names: Vec<&str> = view.shape.cells.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), view.shape.cells.len(), "{v}: cell names are unique");
        assert!(
            page.starts_with(plain.trim_end_matches("</svg>\n")),
            "{v}: the page's picture is the mail's plus a layer"
        );
        assert!(!plain.contains("data-cell"), "{v}: mail pictures are unchanged");
    }
}
