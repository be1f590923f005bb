//! The pieces' art: each army's look (colours and the mark that tells it apart
//! without hue), each kind's design in a 100-unit box, and the definitions a
//! picture refers to by id.

use std::fmt::Write as _;

use super::drawing::PAUSE;
use super::{Marks, num};
use crate::rules::{Army, BoardView, PieceKind};

/// How one army's pieces look.
pub(super) struct Look {
    /// The body colour.
    pub(super) fill: &'static str,
    /// The outline.
    pub(super) line: &'static str,
    /// Inner lines (eye, slits), in contrast to the fill.
    pub(super) detail: &'static str,
    /// The mark that tells this army apart without hue, drawn about the line
    /// y = 86 of the piece box (the base a king or a pawn stands on) and moved to each design's
    /// own [`Design::mark_y`].
    pub(super) badge: &'static str,
}

/// The looks of [`Army::ALL`], in its order. White and black differ by lightness;
/// every other army carries a mark of its own: sand three dots, brown a bar,
/// yellow a ring, red two short uprights, blue three light dots. So any armies a
/// game may put together (white, black, sand and brown; white, brown and black;
/// yellow, red and blue) differ in lightness or mark, not in hue alone.
pub(super) const LOOKS: [Look; 7] = [
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

pub(super) fn look(army: Army) -> &'static Look {
    &LOOKS[army.index()]
}

/// A piece design in a 100×100 box: body shapes drawn back to front, each filled
/// and outlined, then inner lines in the detail colour.
pub(super) struct Design {
    pub(super) body: &'static [&'static str],
    pub(super) detail: &'static str,
    /// Where the army's mark sits: the middle of the base (86) for the pieces
    /// that stand on one, the band of the lowest stone for draughts pieces.
    pub(super) mark_y: f32,
}

/// The base every piece stands on.
pub(super) const BASE: &str =
    "M25 79 H75 A5 5 0 0 1 80 84 V88 A5 5 0 0 1 75 93 H25 A5 5 0 0 1 20 88 V84 A5 5 0 0 1 25 79 Z";

pub(super) fn design(kind: PieceKind) -> Design {
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
pub(super) const KNIGHT_EYE: (f32, f32, f32) = (43.0, 34.0, 3.4);

/// The letter of a piece design (`k q r b n p`, `m` a draughts man, `c` a crowned one).
pub(super) fn kind_id(kind: PieceKind) -> char {
    kind.letter().to_ascii_lowercase()
}

/// The id of a piece design in an army's look: `p1k` is the black king.
pub(super) fn piece_id(army: Army, kind: PieceKind) -> String {
    format!("p{}{}", army.index(), kind_id(kind))
}

/// The definitions by id: the pieces in use (each drawn once and placed with
/// `<use>`), the hatching and the pause badge.
pub(super) fn defs(view: &BoardView, marks: &Marks) -> Vec<(String, String)> {
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
