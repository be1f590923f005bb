//! The coordinates' stroke alphabet: letters and digits as paths, because the
//! PNG renderer has no fonts.

use std::fmt::Write as _;

use super::num;

/// The stroke glyphs of the coordinates: advance width and path, in a box 10
/// units high with the baseline at 10 (lower-case letters reach up to 4; `g` and
/// `j` hang down to 13).
pub(super) fn glyph(c: char) -> Option<(f32, &'static str)> {
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

/// The height of the coordinates' glyphs, in units.
pub(super) const LABEL_SIZE: f32 = 22.0;
/// The space between two glyphs, in glyph units (a glyph is 10 high).
pub(super) const LABEL_SPACING: f32 = 1.6;

/// The width of `text` in stroke glyphs of [`LABEL_SIZE`], in units.
pub(super) fn label_width(text: &str) -> f32 {
    let glyphs: Vec<f32> = text.chars().filter_map(glyph).map(|g| g.0).collect();
    let width = glyphs.iter().sum::<f32>() + LABEL_SPACING * glyphs.len().saturating_sub(1) as f32;
    width * LABEL_SIZE / 10.0
}

/// Writes `text` in stroke glyphs, centred on (`cx`, `cy`), [`LABEL_SIZE`] units high.
pub(super) fn label(out: &mut String, text: &str, cx: f32, cy: f32) {
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
