//! A board picture as PNG, rendered from the SVG of [`super::svg`] with resvg.
//!
//! resvg is built without its font stack: the SVG draws everything as shapes, so
//! nothing here loads or needs a font.

use resvg::{tiny_skia, usvg};

/// Why a picture could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The SVG could not be read.
    #[error("cannot read the board svg: {0}")]
    Svg(#[from] usvg::Error),
    /// The requested size is zero or too large for a pixmap.
    #[error("cannot render a board of {0} pixels")]
    Size(u32),
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
    encode(pixmap).map_err(|e| RenderError::Encode(e.to_string()))
}

/// The pixmap as an RGBA PNG, compressed with fdeflate's fast mode: measured in
/// the HTTP benchmark, the default compression of tiny-skia's `encode_png` was
/// most of a board picture's cost, for files only somewhat smaller.
fn encode(pixmap: tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let (width, height) = (pixmap.width(), pixmap.height());
    let rgba = pixmap.take_demultiplied();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgba)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixtures::four_armies;
    use crate::render::svg::{Marks, board_svg};
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

    /// Writes the sample pictures to /tmp/boards for a look:
    /// `cargo test --lib render::png::tests::samples -- --ignored`.
    #[test]
    #[ignore = "writes files for a person to look at"]
    fn samples() {
        let dir = std::path::Path::new("/tmp/boards");
        std::fs::create_dir_all(dir).unwrap();
        let write = |name: &str, svg: &str| {
            std::fs::write(dir.join(format!("{name}.svg")), svg).unwrap();
            std::fs::write(dir.join(format!("{name}.png")), board_png(svg, 640).unwrap()).unwrap();
        };

        let chess = VariantId::Chess.rulebook(&Options::new()).unwrap();
        let marks = Marks { to_move: vec![Seat::new(0)], ..Marks::default() };
        write("chess-start", &board_svg(&chess.board(&chess.start()).unwrap(), &marks, Seat::new(0)));

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
        write("fairschach-paused", &board_svg(&view, &marks, Seat::new(0)));
        write("fairschach-paused-black", &board_svg(&view, &marks, Seat::new(1)));

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
            write(&format!("four-armies-{seat}"), &board_svg(&view, &marks, Seat::new(seat)));
        }

        // The made-up boards of other shapes, every seat to move.
        let all = Marks { to_move: vec![Seat::new(0), Seat::new(1), Seat::new(2)], ..Marks::default() };
        let mut hex = crate::render::fixtures::hexagons();
        crate::render::fixtures::kings_at_home(&mut hex);
        write("hexagons-1", &board_svg(&hex, &all, Seat::new(1)));
        let mut tri = crate::render::fixtures::triangles();
        crate::render::fixtures::kings_at_home(&mut tri);
        let jump = MovePath { cells: vec![c(0, 0), c(0, 2), c(4, 0)], captures: vec![c(1, 1), c(2, 1)] };
        write("triangles", &board_svg(&tri, &Marks { last_moves: vec![jump], ..all }, Seat::new(0)));
        let two = crate::render::fixtures::two_levels();
        write("two-levels", &board_svg(&two, &Marks { to_move: vec![Seat::new(1)], ..Marks::default() }, Seat::new(1)));
    }
}
