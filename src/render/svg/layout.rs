//! Where things lie in one seat's picture: the variant's plane turned so the
//! viewer sits at the bottom, levels side by side, the frame and its bars.

use super::glyphs::label_width;
use crate::rules::{BoardShape, Cell, CellShape, EdgeLabel, Outline, Point, Seat};

/// The side of a square, in user units; piece designs use a 100-unit box.
pub(super) const SQ: f32 = 100.0;
/// The gap between the board and a to-move bar.
pub(super) const GAP: f32 = 6.0;
/// The thickness of a to-move bar.
pub(super) const BAR: f32 = 16.0;
/// The band for the coordinates, outside the bar.
pub(super) const LABEL: f32 = 44.0;
/// The frame around the board: gap, bar, coordinates.
pub(super) const MARGIN: f32 = GAP + BAR + LABEL;
/// The space between two levels drawn side by side: room for both frames.
pub(super) const LEVEL_GAP: f32 = 2.0 * MARGIN;
/// The picture's nominal size in CSS pixels per user unit (a square is 50 px).
pub(super) const PX_PER_UNIT: f32 = 0.5;

/// A point of the picture, in user units (`y` downwards).
pub(super) type Xy = (f32, f32);

/// Where everything of a board lies in one seat's picture: the variant's plane
/// turned so the viewing seat sits at the bottom, levels side by side.
pub(super) struct Layout<'a> {
    pub(super) shape: &'a BoardShape,
    /// The viewing seat's turn, degrees counter-clockwise.
    pub(super) turn: f32,
    /// Per level: the offset added to a turned point (in units).
    pub(super) offsets: Vec<(u8, Xy)>,
    /// The size of the whole picture.
    pub(super) size: Xy,
}

/// A to-move bar in the picture.
pub(super) struct Bar {
    /// Its four corners.
    pub(super) corners: [Xy; 4],
    /// The centre of the corner beyond its start, where the seat's king stands.
    pub(super) king: Xy,
    /// Along the bar, and outward from the board.
    pub(super) n: Xy,
    pub(super) d: Xy,
    /// In the bar's own frame (`n` across, `d` down): its start, its inner
    /// edge and its length.
    pub(super) local: (f32, f32, f32),
}

impl<'a> Layout<'a> {
    pub(super) fn new(shape: &'a BoardShape, viewer: Seat) -> Layout<'a> {
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
    pub(super) fn fit_the_frame(&mut self) {
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
    pub(super) fn label_centre(&self, l: &EdgeLabel) -> Xy {
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
    pub(super) fn bar(&self, seat: Seat) -> Option<Bar> {
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
    pub(super) fn place(&self, level: u8, p: Point) -> Xy {
        let (x, y) = raw(p, self.turn);
        let (dx, dy) = self.offsets.iter().find(|(l, _)| *l == level).map_or((MARGIN, MARGIN), |(_, o)| *o);
        (x + dx, y + dy)
    }

    /// The cell's drawing, if the board has it.
    pub(super) fn cell(&self, cell: Cell) -> Option<&'a CellShape> {
        self.shape.cell(cell)
    }

    pub(super) fn centre(&self, cell: Cell) -> Option<Xy> {
        self.cell(cell).map(|c| self.place(c.cell.level, c.centre))
    }

    pub(super) fn corners(&self, c: &CellShape) -> Vec<Xy> {
        c.outline.corners(c.centre).into_iter().map(|p| self.place(c.cell.level, p)).collect()
    }

    /// Whether cells are upright squares here, drawn as `<rect>`s.
    pub(super) fn upright(&self, c: &CellShape) -> bool {
        c.outline == Outline::Square && self.turn.rem_euclid(90.0) == 0.0
    }

    /// A direction of the variant's plane (`y` up) in the picture (`y` down).
    pub(super) fn direction(&self, p: Point) -> Xy {
        raw(p, self.turn)
    }
}

/// `p` turned by `turn` degrees and scaled to units, `y` flipped downwards.
pub(super) fn raw(p: Point, turn: f32) -> Xy {
    let q = p.turned(turn);
    (q.x * SQ, -q.y * SQ)
}
