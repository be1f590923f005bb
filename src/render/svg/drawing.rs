//! A board picture in layers: the frame and cells, what lies under the pieces,
//! the pieces, what lies over them; and each layer as an SVG document.

use std::fmt::Write as _;

use super::art::{defs, look, piece_id};
use super::glyphs::label;
use super::layout::{BAR, Layout, MARGIN, PX_PER_UNIT, SQ, Xy};
use super::{Marks, num};
use crate::rules::{BoardView, Cell, CellShape, PieceKind, PieceView, Seat};

pub(super) const FRAME: &str = "#f4f2ee";
pub(super) const FRAME_EDGE: &str = "#c9c4ba";
pub(super) const LIGHT: &str = "#dee3e6";
pub(super) const DARK: &str = "#8ca2ad";
pub(super) const MID: &str = "#b6c4cb";
/// The cell colours by [`CellShape::shade`]: light, dark, and a third between.
pub(super) const SHADES: [&str; 3] = [LIGHT, DARK, MID];
pub(super) const LABEL_INK: &str = "#4d5459";
pub(super) const MOVE_TINT: &str = "#f5d22e";
pub(super) const ARROW: &str = "#e2650c";
pub(super) const PAUSE: &str = "#6a3d9a";

/// Writes the outline of `c` with `attrs`, shrunk by `inset` units on every side
/// for upright squares (polygons are drawn as they are).
pub(super) fn cell_outline(out: &mut String, layout: &Layout, c: &CellShape, attrs: &str, inset: f32) {
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

/// A board picture in layers, so that many pictures can be drawn quickly: the
/// first layer depends only on the board and the side it is seen from (the
/// frame, the cells, the coordinates), then what lies under the pieces (tinted
/// and hatched cells, the to-move bars, the crosses on captured cells), the
/// pieces, and what lies over them (the arrows, the pause badges).
/// [`Drawing::svg`] is the whole SVG document; [`crate::render::png`] rasterises the
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
    pub(super) fn svg_with(&self, top: &str) -> String {
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

/// Draws `view` as [`super::board_svg`] does, in layers (see [`Drawing`]).
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

/// The board's edge coordinates (the variant's labels), each set just outside
/// the to-move bars on its side, upright whatever the view's turn.
pub(super) fn coordinates(out: &mut String, layout: &Layout) {
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
pub(super) fn bars(out: &mut String, layout: &Layout, marks: &Marks) {
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
pub(super) fn arrow(out: &mut String, (x0, y0): (f32, f32), (x1, y1): (f32, f32)) {
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
