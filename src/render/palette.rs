//! A board picture's pixels reduced to a palette of at most 256 colours, for a
//! PNG a sixth of the full-colour one's weight (issue 38).
//!
//! The pictures are flat colours (cells, frame, pieces' fills, marks) with
//! anti-aliased edges between them: a 640-pixel board has a few hundred to a
//! few thousand distinct colours, and 95 % of its pixels are of its 16 most
//! frequent ones. So the palette keeps every translucent colour (the frame's
//! rounded corners) and the most frequent opaque ones exactly, and lets Wu's
//! quantizer ([`quantette`]'s `WuU8x3`) choose the rest from the remaining edge
//! colours, weighted by how many pixels have each; every colour then takes the
//! palette entry nearest to it (`NearestNeighborColorMap`). The palettes of
//! [`PALETTES`] are tried in turn, 128 entries first: the first that keeps the
//! picture visually the same (on average at most [`MAX_MEAN_ERROR`] per
//! channel, and at most [`MAX_STRONG_SHARE`] of its pixels moved by more than
//! [`STRONG`] in a channel) is taken. A picture of at most 128 colours keeps
//! them all, exactly. A picture no palette keeps the same, or with more
//! translucent colours than [`MAX_TRANSLUCENT`], gets none: [`quantize`] says
//! `None` and the caller writes full colour.
//!
//! The result depends only on the pixels: colours are counted in a table
//! filled in pixel order, ordered by (count, colour) before anything is chosen
//! from it, and neither quantette call draws random numbers or uses threads
//! (its `threads` and `kmeans` features are off). So the same picture always
//! gives the same palette and the same bytes.
//!
//! Speed: the colours are counted per run of equal pixels, and a row equal to
//! the row above is counted and mapped once with its repeats, so the work
//! follows the edges rather than the area.

use quantette::color_map::{IndexedColorMap as _, NearestNeighborColorMap};
use quantette::deps::palette::Srgb;
use quantette::wu::{BinnerU8x3, WuU8x3};
use quantette::{PaletteBuf, PaletteCounts, PaletteSize};
use resvg::tiny_skia;

/// The palettes tried, smallest first: (entries in all, of which the most
/// frequent opaque colours kept exactly). The first whose difference stays
/// within bounds is taken: fewer entries, fewer distinct indices along the
/// edges, a smaller file (measured: 128 entries make the 14×14 plus-shaped
/// board's picture 6 % smaller than 256).
pub const PALETTES: [(usize, usize); 2] = [(128, 64), (256, 128)];

/// The most translucent colours kept (each exactly, with its alpha in `tRNS`).
pub const MAX_TRANSLUCENT: usize = 64;

/// The largest mean difference per channel (of 255) a palette may make: the
/// figure issue 38 measured for palette pictures "which nobody can see".
pub const MAX_MEAN_ERROR: f64 = 0.1;

/// A channel difference above which a pixel counts as strongly changed.
pub const STRONG: u8 = 64;

/// The largest share of strongly changed pixels a palette may make.
pub const MAX_STRONG_SHARE: f64 = 1e-4;

/// More distinct colours than this and the picture is not a board's: no palette.
const MAX_COLOURS: usize = 1 << 16;

/// A picture as palette indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Indexed {
    /// Straight (not premultiplied) RGBA entries, the translucent ones first.
    pub palette: Vec<[u8; 4]>,
    /// How many leading entries are translucent (the `tRNS` chunk's length).
    pub translucent: usize,
    /// The picture's rows as a PNG's image data holds them before
    /// compression: each row a filter byte 0 (none) and then one index per
    /// pixel, so the encoder compresses this buffer as it is. See
    /// [`Indexed::rows`].
    pub data: Vec<u8>,
    /// Pixels per row.
    pub width: usize,
    /// How the palette changed the picture.
    pub error: PaletteError,
}

impl Indexed {
    /// How many rows the picture has.
    pub fn height(&self) -> usize {
        self.data.len() / (self.width + 1)
    }

    /// Each row's indices, one per pixel, top to bottom.
    pub fn rows(&self) -> impl Iterator<Item = &[u8]> {
        self.data.chunks_exact(self.width + 1).map(|row| &row[1..])
    }
}

/// How far a palette picture is from its full-colour pixels.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PaletteError {
    /// The mean absolute difference per channel (R, G, B, A), of 255.
    pub mean: f64,
    /// The share of pixels that differ by more than [`STRONG`] in a channel.
    pub strong_share: f64,
    /// The largest difference in any channel of any pixel.
    pub max: u8,
}

/// The distinct colours of a picture and how many pixels have each, in the
/// order they were first met.
struct Colours {
    /// Open addressing: a slot holds an entry's number + 1, or 0 when empty.
    slots: Vec<u32>,
    /// Each entry's colour, premultiplied RGBA as a native-endian `u32`.
    colours: Vec<u32>,
    /// Each entry's pixel count.
    counts: Vec<u32>,
}

impl Colours {
    fn new() -> Colours {
        Colours { slots: vec![0; 1024], colours: Vec::new(), counts: Vec::new() }
    }

    fn slot_of(&self, colour: u32) -> usize {
        let mask = self.slots.len() - 1;
        // Fibonacci hashing: the high bits of the product spread nearby colours.
        let mut i = (colour.wrapping_mul(0x9E37_79B1).rotate_left(16) as usize) & mask;
        loop {
            match self.slots[i] {
                0 => return i,
                e if self.colours[e as usize - 1] == colour => return i,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds `n` pixels of `colour`; its entry's number, or `None` past
    /// [`MAX_COLOURS`].
    fn add(&mut self, colour: u32, n: u32) -> Option<u32> {
        let i = self.slot_of(colour);
        let e = match self.slots[i] {
            0 => {
                if self.colours.len() >= MAX_COLOURS {
                    return None;
                }
                self.colours.push(colour);
                self.counts.push(0);
                let e = self.colours.len() as u32;
                self.slots[i] = e;
                if self.colours.len() * 2 > self.slots.len() {
                    self.grow();
                }
                e - 1
            }
            e => e - 1,
        };
        self.counts[e as usize] += n;
        Some(e)
    }

    fn grow(&mut self) {
        self.slots = vec![0; self.slots.len() * 2];
        for (e, &colour) in self.colours.iter().enumerate() {
            let i = self.slot_of(colour);
            self.slots[i] = e as u32 + 1;
        }
    }
}

/// A row's pixels as runs of one colour: (entry, length).
type Runs = Vec<(u32, u32)>;

/// The rows of a picture with its runs of equal pixels counted: each row that
/// differs from the row above, with how many rows repeat it.
struct Scan {
    colours: Colours,
    /// (first row, rows, range in `runs`) per group of equal rows.
    groups: Vec<(usize, usize, std::ops::Range<usize>)>,
    runs: Runs,
}

fn scan(pixmap: &tiny_skia::Pixmap) -> Option<Scan> {
    let (w, h) = (pixmap.width() as usize, pixmap.height() as usize);
    let data = pixmap.data();
    let row = |y: usize| &data[y * w * 4..(y + 1) * w * 4];
    let mut s = Scan { colours: Colours::new(), groups: Vec::new(), runs: Vec::new() };
    let mut y = 0;
    while y < h {
        let first = row(y);
        let mut repeats = 1;
        while y + repeats < h && row(y + repeats) == first {
            repeats += 1;
        }
        let start = s.runs.len();
        let mut x = 0;
        while x < w {
            let here = pixel(first, x);
            let end = run_end(first, x, here);
            let length = (end - x) as u32;
            let e = s.colours.add(here, length * repeats as u32)?;
            s.runs.push((e, length));
            x = end;
        }
        s.groups.push((y, repeats, start..s.runs.len()));
        y += repeats;
    }
    Some(s)
}

/// Pixel `x` of `row` (RGBA bytes) as one `u32`.
fn pixel(row: &[u8], x: usize) -> u32 {
    u32::from_ne_bytes([row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]])
}

/// Where the run of `here` that starts at pixel `x` of `row` ends: four pixels
/// (16 bytes) at a time as one `u128`, the first that differs found in the
/// bits of their difference, so a run costs a few instructions however short
/// (a board's anti-aliased edges are mostly runs of one pixel).
fn run_end(row: &[u8], x: usize, here: u32) -> usize {
    let w = row.len() / 4;
    let four = u128::from(here) * 0x0000_0001_0000_0001_0000_0001_0000_0001;
    let mut end = x + 1;
    while end + 4 <= w {
        let bytes: [u8; 16] = row[4 * end..4 * end + 16].try_into().expect("16 bytes");
        let differ = u128::from_ne_bytes(bytes) ^ four;
        if differ != 0 {
            // The pixel at the lowest address is the low bits on a little-endian machine.
            let bit = if cfg!(target_endian = "little") { differ.trailing_zeros() } else { differ.leading_zeros() };
            return end + bit as usize / 32;
        }
        end += 4;
    }
    while end < w && pixel(row, end) == here {
        end += 1;
    }
    end
}

/// A premultiplied colour as straight RGBA.
fn straight(colour: u32) -> [u8; 4] {
    let [r, g, b, a] = colour.to_ne_bytes();
    match a {
        0 => [0, 0, 0, 0],
        255 => [r, g, b, a],
        a => {
            let un = |c: u8| ((u16::from(c) * 255 + u16::from(a) / 2) / u16::from(a)).min(255) as u8;
            [un(r), un(g), un(b), a]
        }
    }
}

/// The picture's pixels as palette indices, or `None` when a palette would
/// change it visibly (see the module docs).
pub fn quantize(pixmap: &tiny_skia::Pixmap) -> Option<Indexed> {
    let Scan { colours, groups, runs } = scan(pixmap)?;
    // Most frequent first, ties by colour: the order owes nothing to the table.
    let mut order: Vec<usize> = (0..colours.colours.len()).collect();
    order.sort_unstable_by_key(|&e| (std::cmp::Reverse(colours.counts[e]), colours.colours[e]));
    let (translucent, opaque): (Vec<usize>, Vec<usize>) =
        order.into_iter().partition(|&e| colours.colours[e].to_ne_bytes()[3] != 255);
    if translucent.len() > MAX_TRANSLUCENT {
        return None;
    }
    let (palette, lut, error) = PALETTES.iter().find_map(|&(entries, exact)| {
        let (palette, lut) = choose(&colours, &translucent, &opaque, entries, exact)?;
        let error = palette_error(&colours, &lut, &palette);
        (error.mean <= MAX_MEAN_ERROR && error.strong_share <= MAX_STRONG_SHARE).then_some((palette, lut, error))
    })?;

    let w = pixmap.width() as usize;
    let stride = w + 1;
    // Zeros: every row's filter byte is 0 already.
    let mut data = vec![0u8; stride * pixmap.height() as usize];
    for (first, repeats, range) in groups {
        let (row, rest) = data[first * stride..(first + repeats) * stride].split_at_mut(stride);
        fill_runs(&mut row[1..], runs[range].iter().map(|&(e, length)| (lut[e as usize], length as usize)));
        for copy in rest.chunks_exact_mut(stride) {
            copy.copy_from_slice(row);
        }
    }
    Some(Indexed { palette, translucent: translucent.len(), data, width: w, error })
}

/// Writes `runs` of (index, length) into `row`, which they fill exactly. Most
/// runs of a board's rows are a few pixels (its anti-aliased edges), so each
/// is first written as 16 bytes at once, into the room the runs after it
/// overwrite, and only a longer one is filled further: no call per run.
fn fill_runs(row: &mut [u8], runs: impl Iterator<Item = (u8, usize)>) {
    let mut x = 0;
    for (index, length) in runs {
        if x + 16 <= row.len() {
            row[x..x + 16].copy_from_slice(&[index; 16]);
            if length > 16 {
                row[x + 16..x + length].fill(index);
            }
        } else {
            row[x..x + length].fill(index);
        }
        x += length;
    }
}

/// A palette of at most `entries` colours for `colours` (the translucent ones
/// and the opaque ones, each most frequent first): every translucent colour,
/// then the `exact` most frequent opaque ones, then Wu's choice for the rest
/// (all of them exactly when they fit); and each colour's palette index.
fn choose(
    colours: &Colours,
    translucent: &[usize],
    opaque: &[usize],
    entries: usize,
    exact: usize,
) -> Option<(Vec<[u8; 4]>, Vec<u8>)> {
    let room = entries.checked_sub(translucent.len()).filter(|&r| r > 0)?;
    let mut palette: Vec<[u8; 4]> = translucent.iter().map(|&e| straight(colours.colours[e])).collect();
    let mut lut = vec![0u8; colours.colours.len()];
    for (i, &e) in translucent.iter().enumerate() {
        lut[e] = i as u8;
    }
    let exact = if opaque.len() <= room { opaque.len() } else { exact.min(room) };
    for (i, &e) in opaque[..exact].iter().enumerate() {
        lut[e] = (translucent.len() + i) as u8;
        palette.push(straight(colours.colours[e]));
    }
    let rest = &opaque[exact..];
    if !rest.is_empty() {
        let rgb = |e: usize| {
            let [r, g, b, _] = colours.colours[e].to_ne_bytes();
            Srgb::new(r, g, b)
        };
        // Wu's choice among the rest, weighted by their pixels (none when the
        // exact colours fill the room: the rest then take the nearest of those).
        if room > exact {
            let counted = PaletteCounts::new(
                rest.iter().map(|&e| rgb(e)).collect(),
                rest.iter().map(|&e| colours.counts[e]).collect(),
            )
            .ok()?;
            let wu = WuU8x3::run_palette_counts(&counted, BinnerU8x3::rgb())?;
            let chosen = wu.palette(PaletteSize::from_usize_clamped(room - exact));
            palette.extend(chosen.as_slice().iter().map(|c| [c.red, c.green, c.blue, 255]));
        }
        let opaque_palette: Vec<Srgb<u8>> =
            palette[translucent.len()..].iter().map(|c| Srgb::new(c[0], c[1], c[2])).collect();
        let nearest = NearestNeighborColorMap::new(PaletteBuf::new(opaque_palette).ok()?);
        for &e in rest {
            lut[e] = (translucent.len() + usize::from(nearest.palette_index(&rgb(e)))) as u8;
        }
    }
    Some((palette, lut))
}

/// How far the picture with each colour `e` drawn as `palette[lut[e]]` is
/// from its own colours.
fn palette_error(colours: &Colours, lut: &[u8], palette: &[[u8; 4]]) -> PaletteError {
    let (mut sum, mut strong, mut pixels, mut max) = (0u64, 0u64, 0u64, 0u8);
    for (e, (&colour, &count)) in colours.colours.iter().zip(&colours.counts).enumerate() {
        let (was, now) = (straight(colour), palette[usize::from(lut[e])]);
        let diffs = [0, 1, 2, 3].map(|c| was[c].abs_diff(now[c]));
        let worst = diffs.into_iter().max().unwrap_or(0);
        sum += diffs.iter().map(|&d| u64::from(d)).sum::<u64>() * u64::from(count);
        if worst > STRONG {
            strong += u64::from(count);
        }
        max = max.max(worst);
        pixels += u64::from(count);
    }
    let pixels = pixels.max(1) as f64;
    PaletteError { mean: sum as f64 / (pixels * 4.0), strong_share: strong as f64 / pixels, max }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pixmap of `w`×`h` filled by `colour(x, y)` (premultiplied RGBA).
    fn pixmap(w: u32, h: u32, colour: impl Fn(u32, u32) -> [u8; 4]) -> tiny_skia::Pixmap {
        let mut p = tiny_skia::Pixmap::new(w, h).unwrap();
        for (i, px) in p.data_mut().chunks_exact_mut(4).enumerate() {
            px.copy_from_slice(&colour(i as u32 % w, i as u32 / w));
        }
        p
    }

    /// The pixels a palette picture stands for, straight RGBA.
    fn expand(q: &Indexed) -> Vec<u8> {
        q.rows().flatten().flat_map(|&i| q.palette[usize::from(i)]).collect()
    }

    fn straight_pixels(p: &tiny_skia::Pixmap) -> Vec<u8> {
        p.data().chunks_exact(4).flat_map(|c| straight(u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))).collect()
    }

    #[test]
    fn a_picture_of_few_colours_keeps_them_all_exactly() {
        // Squares, a translucent corner and rows repeated: 6 colours in all.
        let p = pixmap(40, 30, |x, y| match (x, y) {
            (0, 0) => [0, 0, 0, 0],
            (1, 0) => [60, 50, 40, 128],
            _ if (x / 10 + y / 10).is_multiple_of(2) => [240, 217, 181, 255],
            _ if x % 10 == 9 => [120, 110, 100, 255],
            _ if y == 29 => [10, 20, 30, 255],
            _ => [181, 136, 99, 255],
        });
        let q = quantize(&p).expect("a palette");
        assert_eq!(q.palette.len(), 6);
        assert_eq!(q.translucent, 2, "the translucent colours first, for tRNS");
        assert_eq!(q.palette[..2], [[0, 0, 0, 0], [120, 100, 80, 128]], "straight, not premultiplied");
        assert_eq!(expand(&q), straight_pixels(&p), "nothing changed");
        assert_eq!(q.error, PaletteError::default());
    }

    /// A board-like pixel: two flat colours in square cells and, in part of
    /// the dark ones, a soft ramp of many blends (more than 256 colours in all).
    fn soft(x: u32, y: u32) -> [u8; 4] {
        let t = ((x * 7 + y * 3) % 600) as f32 / 599.0;
        if (x / 50 + y / 50).is_multiple_of(2) {
            [240, 217, 181, 255]
        } else if x % 50 < 30 {
            [181, 136, 99, 255]
        } else {
            let mix = |a: f32, b: f32| (a + (b - a) * t).round() as u8;
            [mix(181.0, 20.0), mix(136.0, 30.0), mix(99.0, 200.0), 255]
        }
    }

    fn soft_edges() -> tiny_skia::Pixmap {
        pixmap(300, 200, soft)
    }

    #[test]
    fn many_colours_keep_the_flat_ones_exact_and_the_blends_near() {
        let p = soft_edges();
        let q = quantize(&p).expect("a palette");
        assert!(q.palette.len() <= 256);
        let (a, b) = (expand(&q), straight_pixels(&p));
        for (got, want) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
            if want == [240, 217, 181, 255] || want == [181, 136, 99, 255] {
                assert_eq!(got, want, "a flat colour is kept exactly");
            }
            assert!(got.iter().zip(want).all(|(g, w)| g.abs_diff(*w) <= STRONG), "{got:?} for {want:?}");
        }
        let total: u64 = a.iter().zip(&b).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
        let mean = total as f64 / a.len() as f64;
        assert!((mean - q.error.mean).abs() < 1e-9, "the error reported is the error made: {mean} {:?}", q.error);
        assert!(q.error.mean <= MAX_MEAN_ERROR);
    }

    #[test]
    fn runs_end_where_the_colour_changes_however_long_they_are() {
        // Runs of every length from 1 to 40, of colours that differ in one
        // byte only (each byte position in turn), so that any lane of the
        // 16-byte comparison can be the first to differ.
        let mut pixels = Vec::new();
        let mut ends = Vec::new();
        for length in 1..=40usize {
            let mut colour = [7u8, 7, 7, 7];
            colour[length % 4] = length as u8;
            pixels.extend((0..length).flat_map(|_| colour));
            ends.push(pixels.len() / 4);
        }
        let row = pixels.as_slice();
        let mut x = 0;
        for &end in &ends {
            let here = u32::from_ne_bytes(row[4 * x..4 * x + 4].try_into().unwrap());
            assert_eq!(run_end(row, x, here), end, "the run from {x}");
            x = end;
        }
    }

    #[test]
    fn runs_fill_the_row_exactly() {
        for width in [1, 15, 16, 17, 40, 100] {
            // Lengths 1, 2, 3, … then what is left of the row.
            let mut runs = Vec::new();
            let (mut x, mut length) = (0, 1);
            while x < width {
                let l = length.min(width - x);
                runs.push((runs.len() as u8 + 1, l));
                (x, length) = (x + l, length + 5);
            }
            let want: Vec<u8> = runs.iter().flat_map(|&(i, l)| std::iter::repeat_n(i, l)).collect();
            let mut row = vec![0u8; width];
            fill_runs(&mut row, runs.into_iter());
            assert_eq!(row, want, "width {width}");
        }
    }

    #[test]
    fn the_same_pixels_give_the_same_palette() {
        let p = soft_edges();
        assert_eq!(quantize(&p), quantize(&p.clone()));
    }

    #[test]
    fn as_many_translucent_colours_as_allowed_leave_room_for_the_rest() {
        // 64 translucent colours, and blends enough to need Wu for the opaque ones.
        let p = pixmap(256, 64, |x, y| if y == 0 && x < 64 { [x as u8, 0, 0, 64 + x as u8] } else { soft(x, y) });
        let q = quantize(&p).expect("a palette");
        assert_eq!(q.translucent, MAX_TRANSLUCENT);
        assert!(q.palette.len() <= 256, "{} entries", q.palette.len());
        assert!(q.rows().flatten().all(|&i| usize::from(i) < q.palette.len()));
    }

    #[test]
    fn a_picture_a_palette_would_change_visibly_gets_none() {
        // Noise: every pixel its own colour.
        let noise = pixmap(256, 256, |x, y| [x as u8, y as u8, (x * 31 + y * 17) as u8, 255]);
        assert_eq!(quantize(&noise), None);
        // Too many translucent colours for tRNS entries of their own.
        let fade = pixmap(100, 2, |x, _| [x as u8, 0, 0, 100 + x as u8]);
        assert_eq!(quantize(&fade), None);
    }
}
