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

mod art;
mod drawing;
mod glyphs;
mod layout;
#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use crate::rules::{BoardView, MovePath, Seat};

pub use drawing::{Drawing, board_drawing};
use layout::Layout;

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
