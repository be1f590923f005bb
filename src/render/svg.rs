//! A board as SVG, for web pages and (through [`super::png`]) for mail.
//!
//! Everything is drawn as shapes: the pieces are this module's own designs and the
//! coordinates a small stroke alphabet, because the PNG renderer is built without
//! fonts (resvg with `default-features = false`). The output depends only on the arguments, so the same
//! position always gives the same bytes.
//!
//! # What the picture shows
//! * The cells the variant describes ([`crate::rules::BoardShape`]): squares,
//!   hexagons, triangles or any polygon, each level of a stacked board beside the
//!   one before; holes (a plus-shaped board's corners) are simply not cells, so the frame
//!   shows through.
//! * The view of one seat: the board turned by that seat's turn, so the seat sits
//!   at the bottom (half a turn for the second of two, quarter turns for four).
//! * The variant's edge coordinates (files `a`…`n`, ranks `1`…`14` on square
//!   boards), upright, outside the to-move bars.
//! * The armies the variant names for its seats ([`crate::rules::Army`]; by
//!   default white, black, sand and brown), told apart by more than hue, for
//!   colour-blind players: white and black by lightness, the others by a mark on
//!   every piece's base (sand a row of dots, brown a bar, yellow a ring, red two
//!   uprights, blue light dots). The piece set's kinds: king to pawn, draughts
//!   men and kings (stones carry the mark on their band).
//! * Marked cells (a simultaneous game's paused pieces) hatched, with a "pause" badge (‖) on
//!   the piece.
//! * The last turn's moves: every cell of each move's path tinted, an arrow along
//!   the path (through a castling king's passed square, a multi-jump's landings)
//!   and a cross on every captured cell.
//! * The seats to move: a bar in the seat's colour along its side of the board, and
//!   that seat's king in the corner at the bar's end.
//!
//! The marks carry classes for style sheets and tests: `last-move` (a tinted
//! cell), `arrow` (and `arrow-path` for the earlier steps of a longer path),
//! `captured` (a crossed cell), `marked` (a hatched cell) and `to-move seat-N`
//! (a bar, N from 1).

use std::fmt::Write as _;

use crate::rules::{
    Army, BoardShape, BoardView, Cell, CellShape, EdgeLabel, MovePath, Outline, PieceKind, PieceView, Point, Seat,
};

/// What a picture shows beyond the pieces and the marked cells of the view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// The paths of the last turn's moves, each drawn as tinted cells, an arrow
    /// along the path and a cross on every captured cell: one move in
    /// turn-based games, every seat's of a simultaneous turn.
    pub last_moves: Vec<MovePath>,
    /// The seats that owe a move now; each gets a bar along its side of the
    /// board (the side the variant's seat turns put it on).
    pub to_move: Vec<Seat>,
}

/// The side of a square, in user units; piece designs use a 100-unit box.
const SQ: f32 = 100.0;
/// The gap between the board and a to-move bar.
const GAP: f32 = 6.0;
/// The thickness of a to-move bar.
const BAR: f32 = 16.0;
/// The band for the coordinates, outside the bar.
const LABEL: f32 = 44.0;
/// The frame around the board: gap, bar, coordinates.
const MARGIN: f32 = GAP + BAR + LABEL;
/// The space between two levels drawn side by side: room for both frames.
const LEVEL_GAP: f32 = 2.0 * MARGIN;
/// The picture's nominal size in CSS pixels per user unit (a square is 50 px).
const PX_PER_UNIT: f32 = 0.5;

const FRAME: &str = "#f4f2ee";
const FRAME_EDGE: &str = "#c9c4ba";
const LIGHT: &str = "#dee3e6";
const DARK: &str = "#8ca2ad";
const MID: &str = "#b6c4cb";
/// The cell colours by [`CellShape::shade`]: light, dark, and a third between.
const SHADES: [&str; 3] = [LIGHT, DARK, MID];
const LABEL_INK: &str = "#4d5459";
const MOVE_TINT: &str = "#f5d22e";
const ARROW: &str = "#e2650c";
const PAUSE: &str = "#6a3d9a";

/// How one army's pieces look.
struct Look {
    /// The body colour.
    fill: &'static str,
    /// The outline.
    line: &'static str,
    /// Inner lines (eye, slits), in contrast to the fill.
    detail: &'static str,
    /// The mark that tells this army apart without hue, drawn about the line
    /// y = 86 of the piece box (the base a king or a pawn stands on) and moved to each design's
    /// own [`Design::mark_y`].
    badge: &'static str,
}

/// The looks of [`Army::ALL`], in its order. White and black differ by lightness;
/// every other army carries a mark of its own: sand three dots, brown a bar,
/// yellow a ring, red two short uprights, blue three light dots. So any armies a
/// game may put together (white, black, sand and brown; white, brown and black;
/// yellow, red and blue) differ in lightness or mark, not in hue alone.
const LOOKS: [Look; 7] = [
    Look { fill: "#fbfbf7", line: "#1d1d1d", detail: "#1d1d1d", badge: "" },
    Look { fill: "#2c2c2c", line: "#0a0a0a", detail: "#ececec", badge: "" },
    Look {
        fill: "#e6be6e",
        line: "#3a2708",
        detail: "#3a2708",
        badge: r##"<circle cx="36" cy="86" r="3.4" fill="#3a2708"/><circle cx="50" cy="86" r="3.4" fill="#3a2708"/><circle cx="64" cy="86" r="3.4" fill="#3a2708"/>"##,
    },
    Look {
        fill: "#8a4418",
        line: "#1e0c02",
        detail: "#f6e2c8",
        badge: r##"<path d="M29 86 H71" stroke="#f6e2c8" stroke-width="4.5" stroke-linecap="round"/>"##,
    },
    Look {
        fill: "#f4d03f",
        line: "#3b3000",
        detail: "#3b3000",
        badge: r##"<circle cx="50" cy="86" r="4.6" fill="none" stroke="#3b3000" stroke-width="2.6"/>"##,
    },
    Look {
        fill: "#c0392b",
        line: "#2a0602",
        detail: "#fde3dd",
        badge: r##"<path d="M43 82 V90 M57 82 V90" stroke="#fde3dd" stroke-width="4" stroke-linecap="round"/>"##,
    },
    Look {
        fill: "#2459a8",
        line: "#050f24",
        detail: "#dfe9fb",
        badge: r##"<circle cx="36" cy="86" r="3.4" fill="#dfe9fb"/><circle cx="50" cy="86" r="3.4" fill="#dfe9fb"/><circle cx="64" cy="86" r="3.4" fill="#dfe9fb"/>"##,
    },
];

fn look(army: Army) -> &'static Look {
    &LOOKS[army.index()]
}

/// A piece design in a 100×100 box: body shapes drawn back to front, each filled
/// and outlined, then inner lines in the detail colour.
struct Design {
    body: &'static [&'static str],
    detail: &'static str,
    /// Where the army's mark sits: the middle of the base (86) for the pieces
    /// that stand on one, the band of the lowest stone for draughts pieces.
    mark_y: f32,
}

/// The base every piece stands on.
const BASE: &str = "M25 79 H75 A5 5 0 0 1 80 84 V88 A5 5 0 0 1 75 93 H25 A5 5 0 0 1 20 88 V84 A5 5 0 0 1 25 79 Z";

fn design(kind: PieceKind) -> Design {
    match kind {
        PieceKind::King => Design {
            body: &[
                "M46 7 H54 V14 H61 V22 H54 V44 H46 V22 H39 V14 H46 Z",
                "M34 66 C19 54 20 34 35 34 C43 34 48 40 50 47 C52 40 57 34 65 34 C80 34 81 54 66 66 Z",
                "M33 63 H67 A4 4 0 0 1 67 71 H33 A4 4 0 0 1 33 63 Z",
                "M36 71 Q35 76 29 79 H71 Q65 76 64 71 Z",
                BASE,
            ],
            detail: "M50 49 V62",
            mark_y: 86.0,
        },
        PieceKind::Queen => Design {
            body: &[
                "M33 64 L21 30 L37 48 L37 21 L46 45 L50 16 L54 45 L63 21 L63 48 L79 30 L67 64 Z",
                "M33 63 H67 A4 4 0 0 1 67 71 H33 A4 4 0 0 1 33 63 Z",
                "M36 71 Q35 76 29 79 H71 Q65 76 64 71 Z",
                BASE,
                "M21 25.5 A4.5 4.5 0 1 1 21 34.5 A4.5 4.5 0 1 1 21 25.5 Z",
                "M37 16.5 A4.5 4.5 0 1 1 37 25.5 A4.5 4.5 0 1 1 37 16.5 Z",
                "M50 11 A5 5 0 1 1 50 21 A5 5 0 1 1 50 11 Z",
                "M63 16.5 A4.5 4.5 0 1 1 63 25.5 A4.5 4.5 0 1 1 63 16.5 Z",
                "M79 25.5 A4.5 4.5 0 1 1 79 34.5 A4.5 4.5 0 1 1 79 25.5 Z",
            ],
            detail: "",
            mark_y: 86.0,
        },
        PieceKind::Rook => Design {
            body: &[
                "M33 44 L31 79 H69 L67 44 Z",
                "M25 18 H36 V26 H44.5 V18 H55.5 V26 H64 V18 H75 V37 L68 44 H32 L25 37 Z",
                BASE,
            ],
            detail: "M32 37 H68 M31.5 72 H68.5",
            mark_y: 86.0,
        },
        PieceKind::Bishop => Design {
            body: &[
                "M41 66 Q41 75 31 79 H69 Q59 75 59 66 Z",
                "M50 17 C67 29 70 47 61 61 H39 C30 47 33 29 50 17 Z",
                "M35 59 H65 A4 4 0 0 1 65 67 H35 A4 4 0 0 1 35 59 Z",
                BASE,
                "M50 7 A5.5 5.5 0 1 1 50 18 A5.5 5.5 0 1 1 50 7 Z",
            ],
            detail: "M44 47 L58 33",
            mark_y: 86.0,
        },
        PieceKind::Knight => Design {
            body: &[
                "M33 79 C33 68 38 61 47 55 L40 55 C33 61 26 63 21 58 C17 54 19 49 23 45 \
                 L42 25 L40 13 L50 20 C66 19 78 33 78 52 C78 64 73 71 72 79 Z",
                BASE,
            ],
            detail: "M55 22 C67 26 74 38 73 56 M27 53 L29 52",
            mark_y: 86.0,
        },
        PieceKind::Man => Design {
            body: &["M18 58 V70 A32 13 0 0 0 82 70 V58 Z", "M18 58 A32 13 0 1 1 82 58 A32 13 0 1 1 18 58 Z"],
            detail: "M31 58 A19 7.5 0 1 1 69 58 A19 7.5 0 1 1 31 58",
            mark_y: 77.0,
        },
        PieceKind::DraughtsKing => Design {
            body: &[
                "M18 64 V74 A32 13 0 0 0 82 74 V64 Z",
                "M18 64 A32 13 0 1 1 82 64 A32 13 0 1 1 18 64 Z",
                "M18 46 V56 A32 13 0 0 0 82 56 V46 Z",
                "M18 46 A32 13 0 1 1 82 46 A32 13 0 1 1 18 46 Z",
            ],
            detail: "M38 50 L36 39 L44 44 L50 35 L56 44 L64 39 L62 50 Z",
            mark_y: 82.0,
        },
        PieceKind::Pawn => Design {
            body: &[
                "M39 50 Q39 66 28 79 H72 Q61 66 61 50 Z",
                "M34 45 H66 A4 4 0 0 1 66 53 H34 A4 4 0 0 1 34 45 Z",
                "M50 18 A13 13 0 1 1 50 44 A13 13 0 1 1 50 18 Z",
                BASE,
            ],
            detail: "",
            mark_y: 86.0,
        },
    }
}

/// The knight's eye: a dot in the detail colour.
const KNIGHT_EYE: (f32, f32, f32) = (43.0, 34.0, 3.4);

/// The stroke glyphs of the coordinates: advance width and path, in a box 10
/// units high with the baseline at 10 (lower-case letters reach up to 4; `g` and
/// `j` hang down to 13).
fn glyph(c: char) -> Option<(f32, &'static str)> {
    Some(match c {
        'a' => (5.0, "M5 7 A2.5 3 0 0 0 0 7 A2.5 3 0 0 0 5 7 M5 4 V10"),
        'b' => (5.0, "M0 0 V10 M0 7 A2.5 3 0 0 1 5 7 A2.5 3 0 0 1 0 7"),
        'c' => (4.6, "M4.6 5 A2.5 3 0 1 0 4.6 9"),
        'd' => (5.0, "M5 0 V10 M5 7 A2.5 3 0 0 0 0 7 A2.5 3 0 0 0 5 7"),
        'e' => (5.0, "M0 7 H5 A2.5 3 0 0 0 0 7 A2.5 3 0 0 0 4.4 8.9"),
        'f' => (4.0, "M4.2 0.7 Q3.6 0 2.8 0 Q1.4 0 1.4 1.8 V10 M0 4 H3.8"),
        'g' => (5.0, "M5 7 A2.5 3 0 0 0 0 7 A2.5 3 0 0 0 5 7 M5 4 V11 Q5 13 2.6 13 Q1 13 0.3 12.2"),
        'h' => (5.0, "M0 0 V10 M0 6.6 Q0.4 4 2.6 4 Q5 4 5 6.6 V10"),
        'i' => (1.0, "M0.5 4 V10 M0.5 1.3 V1.6"),
        'j' => (3.0, "M2.6 4 V11 Q2.6 13 0.8 13 H0 M2.6 1.3 V1.6"),
        'k' => (4.6, "M0 0 V10 M4.6 4 L0 8 M1.8 6.6 L4.8 10"),
        'l' => (2.2, "M0.4 0 V8.4 Q0.4 10 2.2 10"),
        'm' => (7.6, "M0 10 V4 M0 6.3 Q0.3 4 2 4 Q3.8 4 3.8 6.3 V10 M3.8 6.3 Q4.1 4 5.8 4 Q7.6 4 7.6 6.3 V10"),
        'n' => (5.0, "M0 10 V4 M0 6.6 Q0.4 4 2.6 4 Q5 4 5 6.6 V10"),
        '0' => (5.0, "M2.5 0 A2.5 5 0 0 1 2.5 10 A2.5 5 0 0 1 2.5 0"),
        '1' => (3.2, "M0 2.2 L2.8 0 V10"),
        '2' => (5.0, "M0.1 2.5 Q0.4 0 2.5 0 Q5 0 5 2.6 Q5 4.6 0 10 H5.2"),
        '3' => (5.0, "M0.2 1 Q1.2 0 2.5 0 Q4.9 0 4.9 2.4 Q4.9 4.7 2 4.7 Q5.1 4.7 5.1 7.3 Q5.1 10 2.5 10 Q1 10 0 9"),
        '4' => (5.4, "M3.9 10 V0 L0 7 H5.4"),
        '5' => (5.0, "M4.8 0 H0.8 L0.4 4.3 Q1.4 3.6 2.6 3.6 Q5.1 3.6 5.1 6.8 Q5.1 10 2.5 10 Q1 10 0 9"),
        '6' => {
            (5.0, "M4.4 0.7 Q3.6 0 2.6 0 Q0 0 0 5.4 V6.8 Q0 10 2.6 10 Q5.1 10 5.1 6.8 Q5.1 3.8 2.6 3.8 Q0 3.8 0 6.4")
        }
        '7' => (5.0, "M0 0 H5 L1.7 10"),
        '8' => (
            5.2,
            "M2.6 4.7 A2.2 2.35 0 1 1 2.6 0 A2.2 2.35 0 1 1 2.6 4.7 A2.6 2.65 0 1 0 2.6 10 A2.6 2.65 0 1 0 2.6 4.7",
        ),
        '9' => (
            5.0,
            "M0.7 9.3 Q1.5 10 2.5 10 Q5.1 10 5.1 4.6 V3.2 Q5.1 0 2.5 0 Q0 0 0 3.2 Q0 6.2 2.5 6.2 Q5.1 6.2 5.1 3.6",
        ),
        // File z, and level names on stacked boards (W N B, QL1 … KL6).
        'z' => (5.0, "M0 4 H5 L0 10 H5"),
        'B' => (5.6, "M0 10 V0 H2.9 Q5.2 0 5.2 2.5 Q5.2 4.9 2.9 4.9 H0 M2.9 4.9 Q5.6 4.9 5.6 7.4 Q5.6 10 2.9 10 H0"),
        'K' => (5.6, "M0 0 V10 M5.6 0 L0 6.2 M2 4 L5.6 10"),
        'L' => (4.6, "M0 0 V10 H4.6"),
        'N' => (6.0, "M0 10 V0 L6 10 V0"),
        'Q' => (7.0, "M3.5 0 A3.5 5 0 1 0 3.5 10 A3.5 5 0 1 0 3.5 0 M4.4 7.2 L7 10.6"),
        'W' => (8.4, "M0 0 L2.1 10 L4.2 2.6 L6.3 10 L8.4 0"),
        ' ' => (2.4, ""),
        _ => return None,
    })
}

/// A number for the SVG text: at most two decimals, no trailing zeros, so equal
/// inputs always print the same. Written from whole hundredths: formatting the
/// float with `{:.2}` took the standard library's exact (Dragon) path, which
/// was most of the time spent making a picture's SVG in the profile.
fn num(v: f32) -> String {
    let hundredths = (v * 100.0).round() as i64;
    let sign = if hundredths < 0 { "-" } else { "" };
    let (whole, fraction) = (hundredths.unsigned_abs() / 100, hundredths.unsigned_abs() % 100);
    match fraction {
        0 => format!("{sign}{whole}"),
        f if f % 10 == 0 => format!("{sign}{whole}.{}", f / 10),
        f => format!("{sign}{whole}.{f:02}"),
    }
}

/// A point of the picture, in user units (`y` downwards).
type Xy = (f32, f32);

/// Where everything of a board lies in one seat's picture: the variant's plane
/// turned so the viewing seat sits at the bottom, levels side by side.
struct Layout<'a> {
    shape: &'a BoardShape,
    /// The viewing seat's turn, degrees counter-clockwise.
    turn: f32,
    /// Per level: the offset added to a turned point (in units).
    offsets: Vec<(u8, Xy)>,
    /// The size of the whole picture.
    size: Xy,
}

/// A to-move bar in the picture.
struct Bar {
    /// Its four corners.
    corners: [Xy; 4],
    /// The centre of the corner beyond its start, where the seat's king stands.
    king: Xy,
    /// Along the bar, and outward from the board.
    n: Xy,
    d: Xy,
    /// In the bar's own frame (`n` across, `d` down): its start, its inner
    /// edge and its length.
    local: (f32, f32, f32),
}

impl<'a> Layout<'a> {
    fn new(shape: &'a BoardShape, viewer: Seat) -> Layout<'a> {
        let turn = shape.turn(viewer);
        let mut levels: Vec<u8> = shape.cells.iter().map(|c| c.cell.level).collect();
        levels.sort_unstable();
        levels.dedup();
        // The turned extent of each level, before placing.
        let boxes: Vec<(u8, [f32; 4])> = levels
            .iter()
            .map(|&level| {
                let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
                for c in shape.cells.iter().filter(|c| c.cell.level == level) {
                    for p in c.outline.corners(c.centre) {
                        let (x, y) = raw(p, turn);
                        b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
                    }
                }
                (level, b)
            })
            .collect();
        let height = boxes.iter().map(|(_, b)| b[3] - b[1]).fold(0.0, f32::max);
        let mut x = MARGIN;
        let mut offsets = Vec::new();
        for (level, b) in &boxes {
            let (w, h) = (b[2] - b[0], b[3] - b[1]);
            offsets.push((*level, (x - b[0], MARGIN + (height - h) / 2.0 - b[1])));
            x += w + LEVEL_GAP;
        }
        let width = if boxes.is_empty() { SQ } else { x - LEVEL_GAP - MARGIN };
        let height = if boxes.is_empty() { SQ } else { height };
        let mut layout = Layout { shape, turn, offsets, size: (width + 2.0 * MARGIN, height + 2.0 * MARGIN) };
        layout.fit_the_frame();
        layout
    }

    /// Widens the picture (and moves the board) so that every seat's bar and
    /// king and every label lie inside it: a turn off the quarters puts them
    /// beyond the plain margin.
    fn fit_the_frame(&mut self) {
        let mut points: Vec<Xy> = Vec::new();
        for seat in (0..self.shape.seat_turns.len()).map(|s| Seat::new(s as u8)) {
            if let Some(bar) = self.bar(seat) {
                points.extend(bar.corners);
                let (x, y) = bar.king;
                points.extend([(x - MARGIN / 2.0, y - MARGIN / 2.0), (x + MARGIN / 2.0, y + MARGIN / 2.0)]);
            }
        }
        for l in &self.shape.labels {
            let (x, y) = self.label_centre(l);
            let half = label_width(&l.text).max(LABEL) / 2.0;
            points.extend([(x - half, y - LABEL / 2.0), (x + half, y + LABEL / 2.0)]);
        }
        let low = points.iter().fold((0.0f32, 0.0f32), |m, p| (m.0.min(p.0), m.1.min(p.1)));
        let high = points.iter().fold(self.size, |m, p| (m.0.max(p.0), m.1.max(p.1)));
        // Square boards fit already; only shift by whole amounts that matter.
        let shift = (if low.0 < -0.5 { -low.0 + GAP } else { 0.0 }, if low.1 < -0.5 { -low.1 + GAP } else { 0.0 });
        let grow = (
            if high.0 > self.size.0 + 0.5 { high.0 - self.size.0 + GAP } else { 0.0 },
            if high.1 > self.size.1 + 0.5 { high.1 - self.size.1 + GAP } else { 0.0 },
        );
        for (_, o) in &mut self.offsets {
            *o = (o.0 + shift.0, o.1 + shift.1);
        }
        self.size = (self.size.0 + shift.0 + grow.0, self.size.1 + shift.1 + grow.1);
    }

    /// The centre of an edge label: outside the to-move bars on its side.
    fn label_centre(&self, l: &EdgeLabel) -> Xy {
        let (x, y) = self.place(l.level, l.at);
        let (dx, dy) = self.direction(l.outward);
        let (dx, dy) = (dx / SQ, dy / SQ);
        // Letters sit on the x-height band: above and below the board, pull them
        // towards it by a little.
        let outer = GAP + BAR + LABEL / 2.0 - 2.0 * dy.abs();
        // A label wider than the band (a level's name) beside the board is
        // moved out so that its near end stays where a short one's would.
        let wide = dx.abs() * (label_width(&l.text) - LABEL).max(0.0) / 2.0;
        (x + dx * (outer + wide), y + dy * (outer + wide))
    }

    /// Where `seat`'s to-move bar lies: along the side the seat sits on, just
    /// outside the outermost corners of the cells that way.
    fn bar(&self, seat: Seat) -> Option<Bar> {
        let corners: Vec<Xy> = self.shape.cells.iter().flat_map(|c| self.corners(c)).collect();
        if corners.is_empty() {
            return None;
        }
        // Outward (d) and along the side (n), in the picture.
        let down = Point::new(0.0, -1.0).turned(-self.shape.turn(seat));
        let (dx, dy) = self.direction(down);
        let d = (dx / SQ, dy / SQ);
        let n = (d.1, -d.0);
        let dot = |p: &Xy, v: Xy| p.0 * v.0 + p.1 * v.1;
        let edge = corners.iter().map(|p| dot(p, d)).fold(f32::MIN, f32::max);
        let from = corners.iter().map(|p| dot(p, n)).fold(f32::MAX, f32::min);
        let to = corners.iter().map(|p| dot(p, n)).fold(f32::MIN, f32::max);
        let at = |u: f32, v: f32| (u * n.0 + v * d.0, u * n.1 + v * d.1);
        Some(Bar {
            corners: [at(from, edge + GAP), at(to, edge + GAP), at(to, edge + GAP + BAR), at(from, edge + GAP + BAR)],
            king: at(from - MARGIN / 2.0, edge + MARGIN / 2.0),
            n,
            d,
            local: (from, edge + GAP, to - from),
        })
    }

    /// A point of `level`'s plane in the picture.
    fn place(&self, level: u8, p: Point) -> Xy {
        let (x, y) = raw(p, self.turn);
        let (dx, dy) = self.offsets.iter().find(|(l, _)| *l == level).map_or((MARGIN, MARGIN), |(_, o)| *o);
        (x + dx, y + dy)
    }

    /// The cell's drawing, if the board has it.
    fn cell(&self, cell: Cell) -> Option<&'a CellShape> {
        self.shape.cell(cell)
    }

    fn centre(&self, cell: Cell) -> Option<Xy> {
        self.cell(cell).map(|c| self.place(c.cell.level, c.centre))
    }

    fn corners(&self, c: &CellShape) -> Vec<Xy> {
        c.outline.corners(c.centre).into_iter().map(|p| self.place(c.cell.level, p)).collect()
    }

    /// Whether cells are upright squares here, drawn as `<rect>`s.
    fn upright(&self, c: &CellShape) -> bool {
        c.outline == Outline::Square && self.turn.rem_euclid(90.0) == 0.0
    }

    /// A direction of the variant's plane (`y` up) in the picture (`y` down).
    fn direction(&self, p: Point) -> Xy {
        raw(p, self.turn)
    }
}

/// `p` turned by `turn` degrees and scaled to units, `y` flipped downwards.
fn raw(p: Point, turn: f32) -> Xy {
    let q = p.turned(turn);
    (q.x * SQ, -q.y * SQ)
}

/// Writes the outline of `c` with `attrs`, shrunk by `inset` units on every side
/// for upright squares (polygons are drawn as they are).
fn cell_outline(out: &mut String, layout: &Layout, c: &CellShape, attrs: &str, inset: f32) {
    let corners = layout.corners(c);
    if layout.upright(c) {
        let x = corners.iter().map(|p| p.0).fold(f32::MAX, f32::min);
        let y = corners.iter().map(|p| p.1).fold(f32::MAX, f32::min);
        let _ = writeln!(
            out,
            r#"<rect {attrs} x="{}" y="{}" width="{}" height="{}"/>"#,
            num(x + inset),
            num(y + inset),
            num(SQ - 2.0 * inset),
            num(SQ - 2.0 * inset)
        );
    } else {
        let points: Vec<String> = corners.iter().map(|(x, y)| format!("{},{}", num(*x), num(*y))).collect();
        let _ = writeln!(out, r#"<polygon {attrs} points="{}"/>"#, points.join(" "));
    }
}

/// Draws `view` as an SVG document, seen from `viewer`'s side: the board turned
/// as the variant says (`BoardShape::seat_turns`), so that seat sits at the
/// bottom; levels side by side, left to right. It is [`board_drawing`]'s
/// [`Drawing::svg`].
///
/// Pieces, marks and moves on cells the board does not have are left out.
///
/// # Examples
/// ```
/// use fairsteward::render::svg::{Marks, board_svg};
/// use fairsteward::rules::{Options, Seat, VariantId};
/// let rules = VariantId::HEADLINE.rulebook(&Options::new()).unwrap();
/// let view = rules.board(&rules.start()).unwrap();
/// let svg = board_svg(&view, &Marks::default(), Seat::new(1));
/// assert!(svg.starts_with("<svg") && !svg.contains("<text"));
/// ```
pub fn board_svg(view: &BoardView, marks: &Marks, viewer: Seat) -> String {
    board_drawing(view, marks, viewer).svg()
}

/// The board as a web page shows it for playing: [`board_svg`]'s picture with
/// one more layer on top, a transparent outline per cell that carries the
/// cell's name in the variant's notation (`<use class="hit" data-cell="e4" …>`),
/// for the page's script to click, highlight and focus. Cells of one outline
/// share it: each is a `<use>` of the outline, defined once in the layer, moved
/// to its place, so a board of many cells stays small; the layer's fill (black,
/// fully transparent) is inherited, for the page's style to override per cell.
/// Mail pictures are drawn by [`board_svg`] and do not change.
pub fn board_svg_interactive(view: &BoardView, marks: &Marks, viewer: Seat) -> String {
    let layout = Layout::new(&view.shape, viewer);
    let mut outlines: Vec<String> = Vec::new();
    let mut uses = String::new();
    for c in &view.shape.cells {
        let name: String = c.name.chars().filter(|ch| ch.is_alphanumeric() || "-_.:".contains(*ch)).collect();
        let corners = layout.corners(c);
        let Some(&(x0, y0)) = corners.first() else { continue };
        let outline: Vec<String> = corners.iter().map(|(x, y)| format!("{},{}", num(x - x0), num(y - y0))).collect();
        let outline = outline.join(" ");
        let i = outlines.iter().position(|o| *o == outline).unwrap_or_else(|| {
            outlines.push(outline);
            outlines.len() - 1
        });
        let _ =
            writeln!(uses, r##"<use class="hit" data-cell="{name}" href="#hit{i}" x="{}" y="{}"/>"##, num(x0), num(y0));
    }
    let mut hits = String::from("<g id=\"hits\" fill=\"#000\" fill-opacity=\"0\">\n<defs>\n");
    for (i, points) in outlines.iter().enumerate() {
        let _ = writeln!(hits, r#"<polygon id="hit{i}" points="{points}"/>"#);
    }
    hits.push_str("</defs>\n");
    hits.push_str(&uses);
    hits.push_str("</g>\n");
    board_drawing(view, marks, viewer).svg_with(&hits)
}

/// A board picture in layers, so that many pictures can be drawn quickly: the
/// first layer depends only on the board and the side it is seen from (the
/// frame, the cells, the coordinates), then what lies under the pieces (tinted
/// and hatched cells, the to-move bars, the crosses on captured cells), the
/// pieces, and what lies over them (the arrows, the pause badges).
/// [`Drawing::svg`] is the whole SVG document; [`super::png`] rasterises the
/// layers one by one and keeps the first layer and each piece for the next
/// picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    /// The size in user units.
    size: Xy,
    /// The definitions by id: piece designs, the hatching, the pause badge.
    defs: Vec<(String, String)>,
    /// Frame, cells, coordinates.
    background: String,
    /// Tints, hatching, bars, crosses.
    under: String,
    /// The pieces, in cell order.
    pieces: Vec<Placed>,
    /// Arrows, pause badges.
    over: String,
}

/// A piece set on the board: its design's id, and its box's top left corner
/// and scale (1: a square's side).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Placed {
    pub(crate) id: String,
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) scale: f32,
}

impl Drawing {
    /// The whole picture as one SVG document.
    pub fn svg(&self) -> String {
        self.svg_with("")
    }

    /// The whole picture as one SVG document with `top` (SVG elements) drawn
    /// over everything.
    fn svg_with(&self, top: &str) -> String {
        let mut out = String::with_capacity(16 * 1024);
        out.push_str(&self.open());
        out.push_str("<defs>\n");
        for (_, markup) in &self.defs {
            out.push_str(markup);
        }
        out.push_str("</defs>\n");
        out.push_str(&self.background);
        out.push_str(&self.under);
        for p in &self.pieces {
            let _ = if p.scale == 1.0 {
                writeln!(out, r##"<use xlink:href="#{}" x="{}" y="{}"/>"##, p.id, num(p.x), num(p.y))
            } else {
                writeln!(
                    out,
                    r##"<use xlink:href="#{}" transform="translate({} {}) scale({})"/>"##,
                    p.id,
                    num(p.x),
                    num(p.y),
                    num(p.scale)
                )
            };
        }
        out.push_str(&self.over);
        out.push_str(top);
        out.push_str("</svg>\n");
        out
    }

    /// The opening tag of a document of this picture's size.
    fn open(&self) -> String {
        let (w, h) = self.size;
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\">\n",
            num(w),
            num(h),
            num(w * PX_PER_UNIT),
            num(h * PX_PER_UNIT),
        )
    }

    /// A document of this picture's size holding `body` and the definitions it
    /// refers to.
    fn layer(&self, body: &str) -> String {
        let mut out = self.open();
        // Referred to as `xlink:href="#id"` or `url(#id)`.
        let refers = |id: &str| body.contains(&format!("#{id}\"")) || body.contains(&format!("#{id})"));
        let used: Vec<&String> = self.defs.iter().filter(|(id, _)| refers(id)).map(|(_, m)| m).collect();
        if !used.is_empty() {
            out.push_str("<defs>\n");
            used.into_iter().for_each(|m| out.push_str(m));
            out.push_str("</defs>\n");
        }
        out.push_str(body);
        out.push_str("</svg>\n");
        out
    }

    /// The first layer as a document: frame, cells, coordinates. The same for
    /// every position of a board seen from one side.
    pub(crate) fn background_svg(&self) -> String {
        self.layer(&self.background)
    }

    /// What lies under the pieces, as a document (`None`: nothing).
    pub(crate) fn under_svg(&self) -> Option<String> {
        (!self.under.is_empty()).then(|| self.layer(&self.under))
    }

    /// What lies over the pieces, as a document (`None`: nothing).
    pub(crate) fn over_svg(&self) -> Option<String> {
        (!self.over.is_empty()).then(|| self.layer(&self.over))
    }

    /// The pieces.
    pub(crate) fn pieces(&self) -> &[Placed] {
        &self.pieces
    }

    /// A document of one piece alone, its box with a margin of `margin` units on
    /// every side (outlines reach a little beyond the box).
    pub(crate) fn piece_svg(&self, id: &str, margin: f32) -> Option<String> {
        let (_, markup) = self.defs.iter().find(|(d, _)| d == id)?;
        let side = num(SQ + 2.0 * margin);
        Some(format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 {side} {side}\" width=\"{side}\" height=\"{side}\">\n<defs>\n{markup}</defs>\n<use xlink:href=\"#{id}\" x=\"{m}\" y=\"{m}\"/>\n</svg>\n",
            m = num(margin)
        ))
    }

    /// The size in user units.
    pub(crate) fn size(&self) -> Xy {
        self.size
    }

    /// The documents' nominal size in pixels (their `width` and `height`).
    pub(crate) fn nominal_px(&self) -> Xy {
        (self.size.0 * PX_PER_UNIT, self.size.1 * PX_PER_UNIT)
    }
}

/// Draws `view` as [`board_svg`] does, in layers (see [`Drawing`]).
pub fn board_drawing(view: &BoardView, marks: &Marks, viewer: Seat) -> Drawing {
    let layout = Layout::new(&view.shape, viewer);
    let on_board = |c: &Cell| layout.cell(*c).is_some();
    let (w, h) = layout.size;

    // The frame, the cells and the coordinates: the same for every position.
    let mut background = String::with_capacity(8 * 1024);
    let _ = writeln!(
        background,
        r#"<rect x="1" y="1" width="{}" height="{}" rx="12" fill="{FRAME}" stroke="{FRAME_EDGE}" stroke-width="2"/>"#,
        num(w - 2.0),
        num(h - 2.0)
    );
    background.push_str(r#"<g id="cells" shape-rendering="crispEdges">"#);
    background.push('\n');
    for c in &view.shape.cells {
        let colour = SHADES[usize::from(c.shade) % SHADES.len()];
        cell_outline(&mut background, &layout, c, &format!(r#"fill="{colour}""#), 0.0);
    }
    background.push_str("</g>\n");
    coordinates(&mut background, &layout);

    // What lies on the cells under the pieces.
    let mut under = String::new();
    let mut tinted: Vec<Cell> =
        marks.last_moves.iter().flat_map(|p| p.cells.iter().copied()).filter(|c| on_board(c)).collect();
    tinted.sort();
    tinted.dedup();
    for cell in &tinted {
        if let Some(c) = layout.cell(*cell) {
            let attrs = format!(r#"class="last-move" fill="{MOVE_TINT}" fill-opacity="0.5""#);
            cell_outline(&mut under, &layout, c, &attrs, 0.0);
        }
    }

    let mut paused: Vec<Cell> = view.marked.iter().copied().filter(|c| on_board(c)).collect();
    paused.sort();
    paused.dedup();
    for cell in &paused {
        if let Some(c) = layout.cell(*cell) {
            let attrs = format!(r#"class="marked" fill="url(#hatch)" stroke="{PAUSE}" stroke-width="5""#);
            cell_outline(&mut under, &layout, c, &attrs, 2.5);
        }
    }

    bars(&mut under, &layout, marks);

    // The captured cells are crossed under the pieces: a capturing piece that
    // stands there now stays in full view.
    let mut captured: Vec<Cell> =
        marks.last_moves.iter().flat_map(|p| p.captures.iter().copied()).filter(|c| on_board(c)).collect();
    captured.sort();
    captured.dedup();
    for cell in captured {
        if let Some((x, y)) = layout.centre(cell) {
            let r = 26.0;
            let _ = writeln!(
                under,
                r##"<path class="captured" d="M{} {} L{} {} M{} {} L{} {}" stroke="{ARROW}" stroke-width="9" stroke-linecap="round"/>"##,
                num(x - r),
                num(y - r),
                num(x + r),
                num(y + r),
                num(x + r),
                num(y - r),
                num(x - r),
                num(y + r)
            );
        }
    }
    // The pieces, in cell order.
    let mut on: Vec<&(Cell, PieceView)> = view.pieces.iter().filter(|(c, _)| on_board(c)).collect();
    on.sort_by_key(|(c, _)| *c);
    let mut pieces = Vec::with_capacity(on.len());
    for (cell, piece) in on {
        let Some(c) = layout.cell(*cell) else { continue };
        let (x, y) = layout.place(c.cell.level, c.centre);
        let scale = c.outline.piece_scale();
        let id = piece_id(view.shape.army(piece.owner), piece.kind);
        pieces.push(Placed { id, x: x - SQ * scale / 2.0, y: y - SQ * scale / 2.0, scale });
    }

    // The last moves' arrows and the pause badges lie over the pieces.
    let mut over = String::new();
    for path in &marks.last_moves {
        let mut points: Vec<Xy> = path.cells.iter().filter_map(|c| layout.centre(*c)).collect();
        points.dedup();
        if points.len() < 2 {
            continue;
        }
        let (last, before) = (points[points.len() - 1], points[points.len() - 2]);
        if points.len() > 2 {
            // Every step but the last as a line, the last as the arrow.
            let line: Vec<String> =
                points[..points.len() - 1].iter().map(|(x, y)| format!("{},{}", num(*x), num(*y))).collect();
            let _ = writeln!(
                over,
                r#"<polyline class="arrow-path" points="{}" fill="none" stroke="{ARROW}" stroke-opacity="0.85" stroke-width="14" stroke-linejoin="round" stroke-linecap="round"/>"#,
                line.join(" ")
            );
        }
        arrow(&mut over, before, last);
    }
    for cell in &paused {
        if let Some((x, y)) = layout.centre(*cell) {
            let _ =
                writeln!(over, r##"<use xlink:href="#pause" x="{}" y="{}"/>"##, num(x - SQ / 2.0), num(y - SQ / 2.0));
        }
    }
    Drawing { size: (w, h), defs: defs(view, marks), background, under, pieces, over }
}

/// The letter of a piece design (`k q r b n p`, `m` a draughts man, `c` a crowned one).
fn kind_id(kind: PieceKind) -> char {
    kind.letter().to_ascii_lowercase()
}

/// The id of a piece design in an army's look: `p1k` is the black king.
fn piece_id(army: Army, kind: PieceKind) -> String {
    format!("p{}{}", army.index(), kind_id(kind))
}

/// The definitions by id: the pieces in use (each drawn once and placed with
/// `<use>`), the hatching and the pause badge.
fn defs(view: &BoardView, marks: &Marks) -> Vec<(String, String)> {
    let mut used: Vec<(Army, PieceKind)> = view
        .pieces
        .iter()
        .map(|(_, p)| (view.shape.army(p.owner), p.kind))
        .chain(marks.to_move.iter().map(|&s| (view.shape.army(s), PieceKind::King)))
        .collect();
    used.sort_unstable();
    used.dedup();
    let mut defs = Vec::with_capacity(used.len() + 2);
    for (army, kind) in used {
        let a = look(army);
        let d = design(kind);
        let id = piece_id(army, kind);
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<g id="{id}" fill="{}" stroke="{}" stroke-width="3" stroke-linejoin="round" stroke-linecap="round">"#,
            a.fill, a.line
        );
        for shape in d.body {
            let _ = write!(out, r#"<path d="{shape}"/>"#);
        }
        if !d.detail.is_empty() {
            let _ = write!(out, r#"<path d="{}" fill="none" stroke="{}"/>"#, d.detail, a.detail);
        }
        if kind == PieceKind::Knight {
            let (cx, cy, r) = KNIGHT_EYE;
            let _ = write!(out, r#"<circle cx="{cx}" cy="{cy}" r="{r}" fill="{}" stroke="none"/>"#, a.detail);
        }
        if d.mark_y == 86.0 {
            out.push_str(a.badge);
        } else if !a.badge.is_empty() {
            let _ = write!(out, r#"<g transform="translate(0 {})">{}</g>"#, num(d.mark_y - 86.0), a.badge);
        }
        out.push_str("</g>\n");
        defs.push((id, out));
    }
    defs.push((
        "hatch".to_owned(),
        format!(
            "<pattern id=\"hatch\" width=\"14\" height=\"14\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"5\" height=\"14\" fill=\"{PAUSE}\" fill-opacity=\"0.38\"/></pattern>\n"
        ),
    ));
    defs.push((
        "pause".to_owned(),
        format!(
            "<g id=\"pause\"><circle cx=\"80\" cy=\"20\" r=\"15\" fill=\"{PAUSE}\" stroke=\"#ffffff\" stroke-width=\"3\"/><path d=\"M75 13 V27 M85 13 V27\" stroke=\"#ffffff\" stroke-width=\"4.5\" stroke-linecap=\"round\"/></g>\n"
        ),
    ));
    defs
}

/// The height of the coordinates' glyphs, in units.
const LABEL_SIZE: f32 = 22.0;
/// The space between two glyphs, in glyph units (a glyph is 10 high).
const LABEL_SPACING: f32 = 1.6;

/// The width of `text` in stroke glyphs of [`LABEL_SIZE`], in units.
fn label_width(text: &str) -> f32 {
    let glyphs: Vec<f32> = text.chars().filter_map(glyph).map(|g| g.0).collect();
    let width = glyphs.iter().sum::<f32>() + LABEL_SPACING * glyphs.len().saturating_sub(1) as f32;
    width * LABEL_SIZE / 10.0
}

/// Writes `text` in stroke glyphs, centred on (`cx`, `cy`), [`LABEL_SIZE`] units high.
fn label(out: &mut String, text: &str, cx: f32, cy: f32) {
    let scale = LABEL_SIZE / 10.0;
    let mut x = cx - label_width(text) / 2.0;
    let y = cy - LABEL_SIZE / 2.0;
    for (advance, path) in text.chars().filter_map(glyph) {
        if !path.is_empty() {
            let _ = writeln!(
                out,
                r#"<path d="{path}" transform="translate({} {}) scale({})"/>"#,
                num(x),
                num(y),
                num(scale)
            );
        }
        x += (advance + LABEL_SPACING) * scale;
    }
}

/// The board's edge coordinates (the variant's labels), each set just outside
/// the to-move bars on its side, upright whatever the view's turn.
fn coordinates(out: &mut String, layout: &Layout) {
    let _ = writeln!(
        out,
        r#"<g id="coordinates" fill="none" stroke="{LABEL_INK}" stroke-width="1.45" stroke-linecap="round" stroke-linejoin="round">"#
    );
    for l in &layout.shape.labels {
        let (x, y) = layout.label_centre(l);
        label(out, &l.text, x, y);
    }
    out.push_str("</g>\n");
}

/// A bar along the side of each seat to move, and the seat's king in the corner
/// at the bar's clockwise end. A seat's side is where the viewer's turn, less
/// that seat's own, carries the bottom.
fn bars(out: &mut String, layout: &Layout, marks: &Marks) {
    let mut seats = marks.to_move.clone();
    seats.sort();
    seats.dedup();
    for seat in seats {
        let Some(bar) = layout.bar(seat) else { return };
        let a = look(layout.shape.army(seat));
        let class = format!(r#"class="to-move seat-{}""#, seat.index() + 1);
        let style = format!(r#"rx="4" fill="{}" stroke="{}" stroke-width="2.5""#, a.fill, a.line);
        let (d, n) = (bar.d, bar.n);
        let quarter = (d.0.abs() - 1.0).abs() < 1e-4 || (d.1.abs() - 1.0).abs() < 1e-4;
        if quarter {
            let xs = bar.corners.map(|p| p.0);
            let ys = bar.corners.map(|p| p.1);
            let (x0, y0) = (xs.iter().copied().fold(f32::MAX, f32::min), ys.iter().copied().fold(f32::MAX, f32::min));
            let (x1, y1) = (xs.iter().copied().fold(f32::MIN, f32::max), ys.iter().copied().fold(f32::MIN, f32::max));
            let _ = writeln!(
                out,
                r#"<rect {class} x="{}" y="{}" width="{}" height="{}" {style}/>"#,
                num(x0),
                num(y0),
                num(x1 - x0),
                num(y1 - y0),
            );
        } else {
            // Drawn in the bar's own frame, turned into place.
            let degrees = n.1.atan2(n.0).to_degrees();
            let (from, inner, length) = bar.local;
            let _ = writeln!(
                out,
                r#"<rect {class} x="{}" y="{}" width="{}" height="{BAR}" transform="rotate({})" {style}/>"#,
                num(from),
                num(inner),
                num(length),
                num(degrees),
            );
        }
        // The corner beyond the bar's start holds the seat's king, upright.
        let (cx, cy) = bar.king;
        let scale = MARGIN / SQ * 0.84;
        let _ = writeln!(
            out,
            r##"<use xlink:href="#{}" transform="translate({} {}) scale({})"/>"##,
            piece_id(layout.shape.army(seat), PieceKind::King),
            num(cx - SQ * scale / 2.0),
            num(cy - SQ * scale / 2.0),
            num(scale)
        );
    }
}

/// An arrow from one cell's centre towards another's, stopping short of the
/// target's centre so the arriving piece stays visible.
fn arrow(out: &mut String, (x0, y0): (f32, f32), (x1, y1): (f32, f32)) {
    let (dx, dy) = (x1 - x0, y1 - y0);
    let len = (dx * dx + dy * dy).sqrt();
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    let (shaft, head_w, head_l, short) = (7.0, 21.0, 32.0, 30.0);
    let tip = (x1 - ux * short, y1 - uy * short);
    let neck = (tip.0 - ux * head_l, tip.1 - uy * head_l);
    let start = (x0 + ux * 12.0, y0 + uy * 12.0);
    let points = [
        (start.0 + nx * shaft, start.1 + ny * shaft),
        (neck.0 + nx * shaft, neck.1 + ny * shaft),
        (neck.0 + nx * head_w, neck.1 + ny * head_w),
        tip,
        (neck.0 - nx * head_w, neck.1 - ny * head_w),
        (neck.0 - nx * shaft, neck.1 - ny * shaft),
        (start.0 - nx * shaft, start.1 - ny * shaft),
    ];
    let d: Vec<String> = points.iter().map(|(x, y)| format!("{} {}", num(*x), num(*y))).collect();
    let _ = writeln!(
        out,
        r##"<path class="arrow" d="M{} Z" fill="{ARROW}" fill-opacity="0.85" stroke="#ffffff" stroke-opacity="0.9" stroke-width="2.5" stroke-linejoin="round"/>"##,
        d.join(" L")
    );
}

#[cfg(test)]
mod tests {
    use resvg::{tiny_skia, usvg};

    use super::*;
    use crate::render::fixtures::{four_armies, hexagons, kings_at_home, triangles, two_levels};
    use crate::rules::{Options, Point, VariantId};

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
        assert_eq!(cells.matches("<rect").count(), 160, "160 squares (rules/vierschach.md §1)");
        // a1 and b13 are holes: the frame shows where they would be.
        let (x, y) = origin(&view, 0, c(3, 0));
        assert_eq!(pixel(&svg, x - 3.0 * SQ + 50.0, y + 50.0), rgb(FRAME));
        let (x, y) = origin(&view, 0, c(3, 12));
        assert_eq!(pixel(&svg, x - 2.0 * SQ + 50.0, y + 50.0), rgb(FRAME));
        // Light iff x + y is even (rules/vierschach.md §1): e3 light, d3 dark.
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
        let bottom =
            view.shape.cells.iter().filter_map(|c| layout.centre(c.cell)).map(|p| p.1).fold(f32::MIN, f32::max);
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
        view.pieces =
            vec![(Cell { file: 0, rank: 0, level: 1 }, PieceView { owner: Seat::new(1), kind: PieceKind::Rook })];
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
        let jump =
            MovePath { cells: vec![c(0, 0), c(0, 2), c(4, 0)], captures: vec![c(1, 1), c(2, 1)], grip: Vec::new() };
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
}
