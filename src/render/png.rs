//! A board picture as PNG, rendered from the SVG of [`super::svg`] with resvg.
//!
//! resvg is built without its font stack: the SVG draws everything as shapes, so
//! nothing here loads or needs a font.
//!
//! Pictures for mails and pages are drawn from a [`Drawing`]'s layers
//! ([`drawing_png`]): the first layer (frame, cells, coordinates) is the same for
//! every position of a board seen from one side, and a piece looks the same
//! wherever it stands, so both are rasterised once and kept in [`Parts`]; each
//! picture then starts from a copy of its first layer, sets the pieces' kept
//! pixels in place and draws only its marks. Drawing every piece's outlines
//! anew was most of a picture's cost. A piece lands on the nearest whole pixel
//! (at most half a pixel from where the SVG puts it).
//!
//! Every picture is written as a palette PNG ([`super::palette`]: its flat
//! colours kept exactly, its anti-aliased edges mapped to the nearest of at most
//! 256 colours), a sixth of the full-colour PNG's weight and the same to the eye
//! (issue 38); a picture a palette would change visibly is written in full
//! colour, as every picture was before ([`Encoding::FullColour`], kept as the
//! baseline the pictures bench and the eye test compare with).

use std::sync::{Arc, Mutex};

use resvg::{tiny_skia, usvg};

use super::lru::Lru;
use super::svg::Drawing;

/// Why a picture could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The SVG could not be read.
    #[error("cannot read the board svg: {0}")]
    Svg(#[from] usvg::Error),
    /// The requested size is zero or too large for a pixmap.
    #[error("cannot render a board of {0} pixels")]
    Size(u32),
    /// A piece the drawing has no design for (a bug, never the input's fault).
    #[error("the drawing has no design {0:?}")]
    NoDesign(String),
    /// The PNG encoder failed.
    #[error("cannot encode the board png: {0}")]
    Encode(String),
}

/// A 1×1 transparent PNG: the image a board mail carries when its picture
/// cannot be drawn (its text part still shows the board).
pub const STAND_IN: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\0\x05\0\x01\xff\x89\x99=\x1d\0\0\0\0IEND\xaeB`\x82";

/// The largest picture side rendered, in pixels.
pub const MAX_SIZE_PX: u32 = 4096;

/// Renders `svg` to PNG so that its longer side is `size_px` pixels (the other
/// side keeps the picture's proportions).
///
/// # Errors
/// Unreadable SVG, a size of 0 or above [`MAX_SIZE_PX`], or an encoder failure.
///
/// # Examples
/// ```
/// use fairsteward::render::{png::board_png, svg::{Marks, board_svg}};
/// use fairsteward::rules::{Options, Seat, VariantId};
/// let rules = VariantId::HEADLINE.rulebook(&Options::new()).unwrap();
/// let svg = board_svg(&rules.board(&rules.start()).unwrap(), &Marks::default(), Seat::new(0));
/// let png = board_png(&svg, 320).unwrap();
/// assert_eq!(&png[1..4], b"PNG");
/// ```
pub fn board_png(svg: &str, size_px: u32) -> Result<Vec<u8>, RenderError> {
    board_png_with(svg, size_px, Encoding::now())
}

/// How a picture's pixels are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Encoding {
    /// A palette PNG where that keeps the picture visually the same (see the
    /// module docs), else full colour: what the steward sends.
    #[default]
    Palette,
    /// A full-colour RGBA PNG, as every picture was before issue 38: the
    /// baseline the pictures bench and the eye test measure against.
    FullColour,
}

/// Whether [`board_png`] and [`drawing_png`] write full colour, as before
/// issue 38: for the HTTP bench's baseline round only ([`set_full_colour_baseline`]).
static FULL_COLOUR_BASELINE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes every picture of this process full colour (`true`), as the steward
/// drew them before issue 38, or palette PNGs again (`false`, the default):
/// for benchmarks that measure a whole steward against that baseline in the
/// same run (`benches/http.rs`); nothing else calls it.
#[doc(hidden)]
pub fn set_full_colour_baseline(on: bool) {
    FULL_COLOUR_BASELINE.store(on, std::sync::atomic::Ordering::Relaxed);
}

impl Encoding {
    /// [`Encoding::Palette`], unless a benchmark asked for its baseline.
    fn now() -> Encoding {
        if FULL_COLOUR_BASELINE.load(std::sync::atomic::Ordering::Relaxed) {
            Encoding::FullColour
        } else {
            Encoding::Palette
        }
    }
}

/// [`board_png`] written as `encoding` says.
///
/// # Errors
/// As [`board_png`].
pub fn board_png_with(svg: &str, size_px: u32, encoding: Encoding) -> Result<Vec<u8>, RenderError> {
    if size_px == 0 || size_px > MAX_SIZE_PX {
        return Err(RenderError::Size(size_px));
    }
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default())?;
    let size = tree.size();
    let scale = size_px as f32 / size.width().max(size.height());
    let width = ((size.width() * scale).round() as u32).max(1);
    let height = ((size.height() * scale).round() as u32).max(1);
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or(RenderError::Size(size_px))?;
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    encode(pixmap, encoding)
}

/// How many bytes of rasterised parts a [`Parts`] keeps by default: the first
/// layers of a few boards and views at mail sizes (1.6 MB for 640 pixels
/// square) and the pieces.
pub const PARTS_BYTES: usize = 12 * 1024 * 1024;

/// Rasterised parts kept for the next picture: first layers by their SVG and
/// size, pieces by design, scale and size. Bounded in bytes, the least recently
/// used dropped first; share it behind an `Arc` (drawing threads take turns at
/// its lock only to look up and to keep).
pub struct Parts {
    kept: Mutex<Lru<Arc<tiny_skia::Pixmap>>>,
}

impl Default for Parts {
    fn default() -> Parts {
        Parts::new(PARTS_BYTES)
    }
}

impl std::fmt::Debug for Parts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (count, bytes) = self.kept();
        f.debug_struct("Parts").field("kept", &count).field("bytes", &bytes).finish()
    }
}

impl Parts {
    /// Keeps at most `budget` bytes of parts.
    pub fn new(budget: usize) -> Parts {
        Parts { kept: Mutex::new(Lru::new(budget)) }
    }

    /// How many parts and bytes are kept.
    pub fn kept(&self) -> (usize, usize) {
        let kept = self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (kept.len(), kept.bytes())
    }

    /// The part of `key`, made by `make` when it is not kept.
    fn get_or_make(
        &self,
        key: &str,
        make: impl FnOnce() -> Result<tiny_skia::Pixmap, RenderError>,
    ) -> Result<Arc<tiny_skia::Pixmap>, RenderError> {
        let key = super::lru::key_of(key.as_bytes(), 0);
        if let Some(part) = self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&key) {
            return Ok(part);
        }
        let part = Arc::new(make()?);
        let bytes = part.data().len();
        self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key, part.clone(), bytes);
        Ok(part)
    }
}

/// The margin around a piece's box in its kept pixels, in piece units:
/// outlines reach a little beyond the 100-unit box.
const PIECE_MARGIN: f32 = 4.0;

/// Renders `drawing` to PNG so that its longer side is `size_px` pixels, as
/// [`board_png`] renders its SVG, from its layers (see the module docs), with
/// the parts kept in `parts`.
///
/// # Errors
/// A size of 0 or above [`MAX_SIZE_PX`], or an encoder failure.
pub fn drawing_png(drawing: &Drawing, size_px: u32, parts: &Parts) -> Result<Vec<u8>, RenderError> {
    drawing_png_with(drawing, size_px, parts, Encoding::now())
}

/// [`drawing_png`] written as `encoding` says.
///
/// # Errors
/// As [`drawing_png`].
pub fn drawing_png_with(
    drawing: &Drawing,
    size_px: u32,
    parts: &Parts,
    encoding: Encoding,
) -> Result<Vec<u8>, RenderError> {
    encode(drawing_pixmap(drawing, size_px, parts)?, encoding)
}

/// The pixels [`drawing_png`] encodes (premultiplied RGBA): drawn from the
/// drawing's layers with the parts kept in `parts`.
///
/// # Errors
/// A size of 0 or above [`MAX_SIZE_PX`], or a layer resvg cannot read.
pub fn drawing_pixmap(drawing: &Drawing, size_px: u32, parts: &Parts) -> Result<tiny_skia::Pixmap, RenderError> {
    if size_px == 0 || size_px > MAX_SIZE_PX {
        return Err(RenderError::Size(size_px));
    }
    // The documents' nominal size, as usvg reads it from width and height.
    let (nominal_w, nominal_h) = drawing.nominal_px();
    let scale = size_px as f32 / nominal_w.max(nominal_h);
    let width = ((nominal_w * scale).round() as u32).max(1);
    let height = ((nominal_h * scale).round() as u32).max(1);
    let layer = |svg: &str, pixmap: &mut tiny_skia::Pixmap| -> Result<(), RenderError> {
        let tree = usvg::Tree::from_str(svg, &usvg::Options::default())?;
        resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
        Ok(())
    };

    let background_svg = drawing.background_svg();
    let background = parts.get_or_make(&format!("background {size_px}\n{background_svg}"), || {
        let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or(RenderError::Size(size_px))?;
        layer(&background_svg, &mut pixmap)?;
        Ok(pixmap)
    })?;
    let mut pixmap = (*background).clone();
    if let Some(under) = drawing.under_svg() {
        layer(&under, &mut pixmap)?;
    }
    // Pixels per user unit of the drawing.
    let unit_px = scale * nominal_w / drawing.size().0;
    for piece in drawing.pieces() {
        let k = unit_px * piece.scale;
        let key = format!("piece {} {} {}", piece.id, piece.scale.to_bits(), unit_px.to_bits());
        let sprite = parts.get_or_make(&key, || {
            let svg =
                drawing.piece_svg(&piece.id, PIECE_MARGIN).ok_or_else(|| RenderError::NoDesign(piece.id.clone()))?;
            let tree = usvg::Tree::from_str(&svg, &usvg::Options::default())?;
            let side = (tree.size().width() * k).ceil() as u32;
            let mut sprite = tiny_skia::Pixmap::new(side.max(1), side.max(1)).ok_or(RenderError::Size(size_px))?;
            resvg::render(&tree, tiny_skia::Transform::from_scale(k, k), &mut sprite.as_mut());
            Ok(sprite)
        })?;
        let left = ((piece.x - PIECE_MARGIN * piece.scale) * unit_px).round() as i32;
        let top = ((piece.y - PIECE_MARGIN * piece.scale) * unit_px).round() as i32;
        blend_over(&mut pixmap, &sprite, left, top);
    }
    if let Some(over) = drawing.over_svg() {
        layer(&over, &mut pixmap)?;
    }
    Ok(pixmap)
}

/// Sets `sprite` over `pixmap` with its top left corner at (`left`, `top`),
/// clipped to the pixmap: premultiplied source-over, `d = s + d·(255 − sα)/255`,
/// in integers. tiny-skia's `draw_pixmap` runs a general pattern pipeline per
/// pixel, several times slower for a plain copy like this.
fn blend_over(pixmap: &mut tiny_skia::Pixmap, sprite: &tiny_skia::Pixmap, left: i32, top: i32) {
    let (pw, ph) = (pixmap.width() as i32, pixmap.height() as i32);
    let (sw, sh) = (sprite.width() as i32, sprite.height() as i32);
    let (x0, x1) = (left.max(0), (left + sw).min(pw));
    let (y0, y1) = (top.max(0), (top + sh).min(ph));
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let (src, dst) = (sprite.data(), pixmap.data_mut());
    for y in y0..y1 {
        let s_row = ((y - top) * sw + (x0 - left)) as usize * 4;
        let d_row = (y * pw + x0) as usize * 4;
        let n = (x1 - x0) as usize * 4;
        for (s, d) in src[s_row..s_row + n].chunks_exact(4).zip(dst[d_row..d_row + n].chunks_exact_mut(4)) {
            match s[3] {
                0 => {}
                255 => d.copy_from_slice(s),
                a => {
                    let keep = 255 - u16::from(a);
                    for (dc, sc) in d.iter_mut().zip(s) {
                        // (x + 127) / 255, rounded, for x up to 255·255.
                        let x = u16::from(*dc) * keep + 127;
                        *dc = sc.saturating_add(((x + (x >> 8)) >> 8) as u8);
                    }
                }
            }
        }
    }
}

/// The pixmap's premultiplied pixels as straight RGBA, in place. Almost every
/// pixel of a board is opaque (only the frame's rounded corners are not), so
/// those are left as they are.
fn demultiply(data: &mut [u8]) {
    for px in data.chunks_exact_mut(4) {
        let a = px[3];
        if a != 0 && a != 255 {
            for c in &mut px[..3] {
                *c = ((u16::from(*c) * 255 + u16::from(a) / 2) / u16::from(a)).min(255) as u8;
            }
        }
    }
}

/// The pixmap as a PNG written as `encoding` says: with a palette when
/// [`super::palette::quantize`] finds one that keeps it the same to the eye,
/// else in full colour.
///
/// # Errors
/// The PNG encoder failed.
pub fn encode(pixmap: tiny_skia::Pixmap, encoding: Encoding) -> Result<Vec<u8>, RenderError> {
    let indexed = match encoding {
        Encoding::Palette => super::palette::quantize(&pixmap),
        Encoding::FullColour => None,
    };
    match indexed {
        Some(indexed) => encode_indexed(&indexed),
        None => encode_full_colour(pixmap).map_err(|e| e.to_string()),
    }
    .map_err(RenderError::Encode)
}

/// A palette picture as an indexed PNG: `PLTE`, `tRNS` for the translucent
/// entries (first in the palette, so the chunk stays short), rows unfiltered
/// (the indices of a flat area are one byte repeated, and an outline's the
/// row above's, which [`super::deflate`] looks for first) and compressed by
/// [`super::deflate::zlib`].
fn encode_indexed(indexed: &super::palette::Indexed) -> Result<Vec<u8>, String> {
    let idat = super::deflate::zlib(&indexed.data, indexed.width + 1);
    // The sizes of a pixmap, which are u32.
    let (width, height) = (indexed.width as u32, indexed.height() as u32);
    let mut out = Vec::with_capacity(idat.len() + 1024);
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(indexed.palette.iter().flat_map(|c| [c[0], c[1], c[2]]).collect::<Vec<u8>>());
    if indexed.translucent > 0 {
        encoder.set_trns(indexed.palette[..indexed.translucent].iter().map(|c| c[3]).collect::<Vec<u8>>());
    }
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    // The indices compressed above, as the one IDAT chunk.
    writer.write_chunk(png::chunk::IDAT, &idat).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The pixmap as an RGBA PNG ([`Encoding::FullColour`]), compressed with
/// fdeflate's fast mode: measured in
/// the HTTP benchmark, the default compression of tiny-skia's `encode_png` was
/// most of a board picture's cost, for files only somewhat smaller. Every row
/// is filtered with Paeth: for an 8×8 board of 640 pixels (measured with png
/// 0.18) that makes 81 KB in 0.49 ms, where the adaptive filter, which tries
/// all five filters on every row, made 78 KB in 0.76 ms, and Up alone 166 KB.
fn encode_full_colour(pixmap: tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let (width, height) = (pixmap.width(), pixmap.height());
    let mut rgba = pixmap.take();
    demultiply(&mut rgba);
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::Filter::Paeth);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgba)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixtures::four_armies;
    use crate::render::svg::{Marks, board_drawing, board_svg};
    use crate::rules::{Cell, MovePath, Options, Seat, VariantId};

    /// The width and height in a PNG's IHDR chunk.
    fn png_size(png: &[u8]) -> (u32, u32) {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
        assert_eq!(&png[12..16], b"IHDR");
        let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
        (be(&png[16..20]), be(&png[20..24]))
    }

    #[test]
    fn a_board_becomes_a_png_of_the_size_asked() {
        let chess = VariantId::Chess.rulebook(&Options::new()).unwrap();
        let svg = board_svg(&chess.board(&chess.start()).unwrap(), &Marks::default(), Seat::new(0));
        let png = board_png(&svg, 480).unwrap();
        assert_eq!(png_size(&png), (480, 480));
        let decoded = tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (480, 480));
        // Not blank: the frame, light and dark squares all show.
        let mut colours: Vec<_> = decoded.pixels().iter().map(|p| (p.red(), p.green(), p.blue())).collect();
        colours.sort_unstable();
        colours.dedup();
        assert!(colours.len() > 20, "{} colours", colours.len());

        let plus = board_png(&board_svg(&four_armies(), &Marks::default(), Seat::new(2)), 700).unwrap();
        assert_eq!(png_size(&plus), (700, 700));
    }

    #[test]
    fn a_wide_board_keeps_its_proportions() {
        let mut view = four_armies();
        view.shape = std::sync::Arc::new(crate::rules::BoardShape::squares(14, 7, &[], true, vec![0.0, 180.0]));
        let (w, h) = png_size(&board_png(&board_svg(&view, &Marks::default(), Seat::new(0)), 600).unwrap());
        assert_eq!(w, 600);
        assert!((300..400).contains(&h), "{h}");
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(matches!(board_png("<svg", 100), Err(RenderError::Svg(_))));
        assert!(matches!(
            board_png("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>", 0),
            Err(RenderError::Size(0))
        ));
        assert!(matches!(board_png("", MAX_SIZE_PX + 1), Err(RenderError::Size(_))));
    }

    /// The pixels of a PNG as straight RGBA, whatever its colour type (a
    /// palette expanded, with its `tRNS` alphas).
    pub(crate) fn pixels(png: &[u8]) -> (u32, u32, Vec<u8>) {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        let rgba = match info.color_type {
            png::ColorType::Rgba => buf,
            png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
            other => panic!("an unexpected colour type {other:?}"),
        };
        (info.width, info.height, rgba)
    }

    /// The colour type in a PNG's IHDR chunk (3: a palette, 6: RGBA).
    fn colour_type(png: &[u8]) -> u8 {
        png[25]
    }

    #[test]
    fn every_board_is_a_palette_png_that_looks_like_the_full_colour_one() {
        // Issue 38: every game's start, from every side, as the steward draws it.
        let parts = Parts::default();
        for variant in VariantId::ALL {
            let rules = variant.rulebook(&Options::new()).unwrap();
            let view = rules.board(&rules.start()).unwrap();
            for seat in 0..rules.seat_names().len() {
                let drawing = board_drawing(&view, &Marks::default(), Seat::new(seat as u8));
                let palette = drawing_png(&drawing, 640, &parts).unwrap();
                let full = drawing_png_with(&drawing, 640, &parts, Encoding::FullColour).unwrap();
                assert_eq!(colour_type(&palette), 3, "{variant} seat {seat}: a palette PNG");
                assert_eq!(colour_type(&full), 6, "the baseline is RGBA");
                assert!(
                    palette.len() * 3 < full.len(),
                    "{variant} seat {seat}: {} bytes against {} in full colour",
                    palette.len(),
                    full.len()
                );
                let ((w, h, a), (w2, h2, b)) = (pixels(&palette), pixels(&full));
                assert_eq!((w, h), (w2, h2));
                let total: u64 = a.iter().zip(&b).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
                let mean = total as f64 / a.len() as f64;
                assert!(
                    mean <= crate::render::palette::MAX_MEAN_ERROR,
                    "{variant} seat {seat}: a mean difference of {mean}"
                );
                // The frame's rounded corners stay transparent.
                assert_eq!(&a[..4], &b[..4], "{variant} seat {seat}: the top left corner pixel");
            }
        }
    }

    /// Boards with their marks, for the layered pictures' tests.
    fn marked_boards() -> Vec<Drawing> {
        let c = |file: u8, rank: u8| Cell { file, rank, level: 0 };
        let chess = VariantId::Chess.rulebook(&Options::new()).unwrap();
        let after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let marks = Marks { last_moves: vec![MovePath::step(c(4, 1), c(4, 3))], to_move: vec![Seat::new(1)] };
        let mut all = vec![
            board_drawing(&chess.board(after).unwrap(), &marks, Seat::new(0)),
            board_drawing(&chess.board(after).unwrap(), &marks, Seat::new(1)),
            board_drawing(&four_armies(), &Marks { to_move: vec![Seat::new(2)], ..Marks::default() }, Seat::new(3)),
        ];
        let mut hex = crate::render::fixtures::hexagons();
        crate::render::fixtures::kings_at_home(&mut hex);
        hex.marked = vec![hex.pieces[0].0];
        all.push(board_drawing(&hex, &Marks { to_move: vec![Seat::new(1)], ..Marks::default() }, Seat::new(1)));
        all
    }

    #[test]
    fn a_layered_picture_does_not_depend_on_what_was_kept() {
        let warm = Parts::default();
        for d in marked_boards() {
            let first = drawing_png(&d, 480, &warm).unwrap();
            let again = drawing_png(&d, 480, &warm).unwrap();
            let cold = drawing_png(&d, 480, &Parts::default()).unwrap();
            assert_eq!(first, again);
            assert_eq!(first, cold, "the same bytes whether the parts were kept or drawn");
        }
        let (count, bytes) = warm.kept();
        assert!(count > 4 && bytes > 0, "first layers and pieces are kept: {count}, {bytes} bytes");
    }

    #[test]
    fn a_layered_picture_looks_like_the_whole_svg_drawn_at_once() {
        for d in marked_boards() {
            let parts = Parts::default();
            let (w, h, layered) = pixels(&drawing_png(&d, 640, &parts).unwrap());
            let (w2, h2, whole) = pixels(&board_png(&d.svg(), 640).unwrap());
            assert_eq!((w, h), (w2, h2));
            // Pieces land on whole pixels (at most half a pixel off), so only
            // their anti-aliased edges may differ: compared over blocks of 8×8
            // pixels, that is a small difference (a piece missing or out of
            // place would differ by hundreds).
            let block = 8u32;
            let mut worst = 0.0f64;
            for by in (0..h).step_by(block as usize) {
                for bx in (0..w).step_by(block as usize) {
                    for channel in 0..4 {
                        let sum = |px: &[u8]| -> f64 {
                            let (ys, xs) = (by..(by + block).min(h), bx..(bx + block).min(w));
                            ys.flat_map(|y| {
                                xs.clone().map(move |x| f64::from(px[((y * w + x) * 4 + channel) as usize]))
                            })
                            .sum()
                        };
                        worst = worst.max((sum(&layered) - sum(&whole)).abs() / f64::from(block * block));
                    }
                }
            }
            assert!(worst < 40.0, "an 8x8 block differs by {worst:.1} on average");
        }
    }

    #[test]
    fn a_sprite_is_blended_over_and_clipped_at_the_edges() {
        let mut pixmap = tiny_skia::Pixmap::new(4, 4).unwrap();
        pixmap.fill(tiny_skia::Color::from_rgba8(200, 100, 0, 255));
        let mut sprite = tiny_skia::Pixmap::new(2, 2).unwrap();
        // Premultiplied: opaque blue, half-covering blue, empty, opaque grey.
        let px: [[u8; 4]; 4] = [[0, 0, 255, 255], [0, 0, 128, 128], [0, 0, 0, 0], [10, 20, 30, 255]];
        sprite.data_mut().copy_from_slice(&px.concat());
        let at = |p: &tiny_skia::Pixmap, x: usize, y: usize| p.data()[(y * 4 + x) * 4..][..4].to_vec();
        // Half of it hangs over the right and the top edge: only its bottom
        // left pixel (empty) and nothing else lands, on (3, 0).
        blend_over(&mut pixmap, &sprite, 3, -1);
        assert_eq!(at(&pixmap, 3, 0), vec![200, 100, 0, 255]);
        blend_over(&mut pixmap, &sprite, 0, 0);
        assert_eq!(at(&pixmap, 0, 0), vec![0, 0, 255, 255], "opaque: copied");
        assert_eq!(at(&pixmap, 1, 0), vec![100, 50, 128, 255], "half: 128 + half of the orange below");
        assert_eq!(at(&pixmap, 0, 1), vec![200, 100, 0, 255], "empty: unchanged");
        assert_eq!(at(&pixmap, 1, 1), vec![10, 20, 30, 255]);
        let mut straight = vec![64, 32, 0, 128, 9, 9, 9, 255, 0, 0, 0, 0];
        demultiply(&mut straight);
        assert_eq!(straight, vec![128, 64, 0, 128, 9, 9, 9, 255, 0, 0, 0, 0]);
    }

    #[test]
    fn the_first_layer_and_the_pieces_are_kept_for_the_next_position() {
        let parts = Parts::default();
        let chess = VariantId::Chess.rulebook(&Options::new()).unwrap();
        let start = board_drawing(&chess.board(&chess.start()).unwrap(), &Marks::default(), Seat::new(0));
        drawing_png(&start, 320, &parts).unwrap();
        let kept = parts.kept();
        // One background and the twelve pieces.
        assert_eq!(kept.0, 13);
        let after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let next = board_drawing(&chess.board(after).unwrap(), &Marks::default(), Seat::new(0));
        drawing_png(&next, 320, &parts).unwrap();
        assert_eq!(parts.kept(), kept, "nothing new to keep for another position of the same board and side");
    }

    /// Writes the sample pictures to /tmp/boards for a look:
    /// `cargo test --lib render::png::tests::samples -- --ignored`.
    #[test]
    #[ignore = "writes files for a person to look at"]
    fn samples() {
        let dir = std::path::Path::new("/tmp/boards");
        std::fs::create_dir_all(dir).unwrap();
        let parts = Parts::default();
        let write = |name: &str, drawing: &Drawing| {
            std::fs::write(dir.join(format!("{name}.svg")), drawing.svg()).unwrap();
            std::fs::write(dir.join(format!("{name}.png")), drawing_png(drawing, 640, &parts).unwrap()).unwrap();
        };

        let chess = VariantId::Chess.rulebook(&Options::new()).unwrap();
        let marks = Marks { to_move: vec![Seat::new(0)], ..Marks::default() };
        write("chess-start", &board_drawing(&chess.board(&chess.start()).unwrap(), &marks, Seat::new(0)));

        let fs = VariantId::Fairschach.rulebook(&Options::new()).unwrap();
        let mut history = Vec::new();
        let mut state = fs.start();
        let mut last = Vec::new();
        for pair in [["e4", "d5"], ["Nf3", "Nc6"], ["Bb5", "Bg4"], ["exd5", "Qd6"]] {
            let moves = vec![(Seat::new(0), pair[0].to_owned()), (Seat::new(1), pair[1].to_owned())];
            let r = fs.resolve(&history, &state, &moves).unwrap();
            last = r
                .moves
                .iter()
                .filter(|m| m.result.as_str() != "struck")
                .filter_map(|m| fs.move_path(Some(&state), &m.mv))
                .collect();
            history.push(std::mem::replace(&mut state, r.state));
        }
        let marks = Marks { last_moves: last, to_move: vec![Seat::new(0), Seat::new(1)] };
        let view = fs.board(&state).unwrap();
        write("fairschach-paused", &board_drawing(&view, &marks, Seat::new(0)));
        write("fairschach-paused-black", &board_drawing(&view, &marks, Seat::new(1)));

        let c = |file: u8, rank: u8| Cell { file, rank, level: 0 };
        let marks = Marks { last_moves: vec![MovePath::step(c(3, 1), c(3, 3))], to_move: vec![Seat::new(1)] };
        let mut view = four_armies();
        for (cell, _) in &mut view.pieces {
            if *cell == c(3, 1) {
                *cell = c(3, 3);
            }
        }
        view.pieces.sort_by_key(|(cell, _)| *cell);
        for seat in 0..4 {
            write(&format!("four-armies-{seat}"), &board_drawing(&view, &marks, Seat::new(seat)));
        }

        // The made-up boards of other shapes, every seat to move.
        let all = Marks { to_move: vec![Seat::new(0), Seat::new(1), Seat::new(2)], ..Marks::default() };
        let mut hex = crate::render::fixtures::hexagons();
        crate::render::fixtures::kings_at_home(&mut hex);
        write("hexagons-1", &board_drawing(&hex, &all, Seat::new(1)));
        let mut tri = crate::render::fixtures::triangles();
        crate::render::fixtures::kings_at_home(&mut tri);
        let jump =
            MovePath { cells: vec![c(0, 0), c(0, 2), c(4, 0)], captures: vec![c(1, 1), c(2, 1)], grip: Vec::new() };
        write("triangles", &board_drawing(&tri, &Marks { last_moves: vec![jump], ..all }, Seat::new(0)));
        let two = crate::render::fixtures::two_levels();
        write(
            "two-levels",
            &board_drawing(&two, &Marks { to_move: vec![Seat::new(1)], ..Marks::default() }, Seat::new(1)),
        );
    }
}
