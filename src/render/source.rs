//! What a board picture of a game is drawn from: the game's variant and
//! options, the position, the marks and the side it is seen from, and the size.
//!
//! A board mail is queued with this, not with its picture: it is a few hundred
//! bytes, made without drawing anything, so the command's transaction stays
//! small and quick; the outbox drainer makes the SVG and the PNG from it later,
//! off the store thread (the store's `BoardPicture`). Its text form is
//! stable (the same source always gives the same text), so it keys the picture.

use serde_json::Value;

use super::svg::{Drawing, Marks, board_drawing};
use crate::rules::{Cell, MovePath, Options, RulesError, Seat, SeatSet, VariantId};

/// A board picture's source; see the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PictureSource {
    /// The game's rules.
    pub variant: VariantId,
    /// The game's options (they may shape the board).
    pub options: Options,
    /// The position, as the variant's state string.
    pub state: String,
    /// The last moves and the seats to move.
    pub marks: Marks,
    /// The seat whose side is at the bottom.
    pub seat: Seat,
    /// The PNG's longer side, in pixels.
    pub size_px: u32,
}

/// Why a source cannot be read back, or its board not made.
#[derive(Debug, thiserror::Error)]
#[error("not a picture source: {0}")]
pub struct BadSource(String);

impl PictureSource {
    /// The board as a drawing, seen from the source's seat.
    ///
    /// # Errors
    /// The variant refuses the options or the state.
    pub fn drawing(&self) -> Result<Drawing, BadSource> {
        let rules = self.variant.rulebook(&self.options).map_err(|e| BadSource(e.to_string()))?;
        let view = rules.board(&self.state).map_err(|e: RulesError| BadSource(e.to_string()))?;
        Ok(board_drawing(&view, &self.marks, self.seat))
    }

    /// The board as text ([`super::text::board_for_seats`]), seen from the
    /// source's seat, its last moves marked (the size is the picture's only).
    ///
    /// # Errors
    /// The variant refuses the options or the state.
    pub fn text(&self) -> Result<String, BadSource> {
        let rules = self.variant.rulebook(&self.options).map_err(|e| BadSource(e.to_string()))?;
        let view = rules.board(&self.state).map_err(|e: RulesError| BadSource(e.to_string()))?;
        Ok(super::text::board_for_seats(&view, self.seat, rules.seat_names(), &self.marks.last_moves))
    }

    /// The legend under the text board ([`crate::rules::DynVariant::legend`]):
    /// what its letters mean in this game; empty when the variant refuses the options.
    pub fn legend(&self) -> Vec<String> {
        self.variant.rulebook(&self.options).map(|rules| rules.legend()).unwrap_or_default()
    }

    /// The move forms the source's seat writes, with examples from its legal
    /// moves in the position ([`crate::rules::DynVariant::move_forms`]); `None`
    /// when the variant refuses the options or the position.
    pub fn move_forms(&self) -> Option<String> {
        let rules = self.variant.rulebook(&self.options).ok()?;
        rules.move_forms(&self.state, self.seat).ok()
    }

    /// The board as SVG, seen from the source's seat.
    ///
    /// # Errors
    /// The variant refuses the options or the state.
    pub fn svg(&self) -> Result<String, BadSource> {
        self.drawing().map(|d| d.svg())
    }

    /// The source as compact JSON text; the same source gives the same text.
    /// Written straight from the fields (it is made for every board mail, on
    /// the store's thread): the fields and their order are the text's, and
    /// must stay so, for the text keys stored pictures.
    pub fn to_text(&self) -> String {
        #[derive(serde::Serialize)]
        struct Text<'a> {
            variant: &'a str,
            options: std::collections::BTreeMap<&'a str, &'a str>,
            state: &'a str,
            paths: Vec<[Vec<[u8; 3]>; 2]>,
            to_move: Vec<usize>,
            seat: usize,
            size_px: u32,
        }
        let cells = |cells: &[Cell]| -> Vec<[u8; 3]> { cells.iter().map(|c| [c.file, c.rank, c.level]).collect() };
        let text = Text {
            variant: self.variant.name(),
            options: self.options.iter().collect(),
            state: &self.state,
            paths: self.marks.last_moves.iter().map(|p| [cells(&p.cells), cells(&p.captures)]).collect(),
            to_move: self.marks.to_move.iter().map(|s| s.index()).collect(),
            seat: self.seat.index(),
            size_px: self.size_px,
        };
        serde_json::to_string(&text).unwrap_or_else(|e| unreachable!("a picture source always serializes: {e}"))
    }

    /// Reads back what [`PictureSource::to_text`] wrote.
    ///
    /// # Errors
    /// The text is not such a source.
    pub fn from_text(text: &str) -> Result<PictureSource, BadSource> {
        let bad = |what: &str| BadSource(what.to_owned());
        let v: Value = serde_json::from_str(text).map_err(|e| BadSource(e.to_string()))?;
        let seat = |v: &Value| -> Result<Seat, BadSource> {
            v.as_u64()
                .and_then(|i| u8::try_from(i).ok())
                .filter(|&i| i < SeatSet::MAX)
                .map(Seat::new)
                .ok_or_else(|| bad("a seat"))
        };
        let cells = |v: &Value| -> Result<Vec<Cell>, BadSource> {
            v.as_array()
                .ok_or_else(|| bad("cells"))?
                .iter()
                .map(|c| {
                    let n: Vec<u8> = serde_json::from_value(c.clone()).map_err(|e| BadSource(e.to_string()))?;
                    match n[..] {
                        [file, rank, level] => Ok(Cell { file, rank, level }),
                        _ => Err(bad("a cell")),
                    }
                })
                .collect()
        };
        let last_moves = v["paths"]
            .as_array()
            .ok_or_else(|| bad("paths"))?
            .iter()
            .map(|p| Ok(MovePath { cells: cells(&p[0])?, captures: cells(&p[1])?, grip: Vec::new() }))
            .collect::<Result<_, BadSource>>()?;
        let to_move =
            v["to_move"].as_array().ok_or_else(|| bad("to_move"))?.iter().map(seat).collect::<Result<_, _>>()?;
        let options = v["options"]
            .as_object()
            .ok_or_else(|| bad("options"))?
            .iter()
            .fold(Options::new(), |o, (k, v)| o.set(k.clone(), v.as_str().unwrap_or_default().to_owned()));
        Ok(PictureSource {
            variant: v["variant"].as_str().ok_or_else(|| bad("variant"))?.parse().map_err(|_| bad("a variant"))?,
            options,
            state: v["state"].as_str().ok_or_else(|| bad("state"))?.to_owned(),
            marks: Marks { last_moves, to_move },
            seat: seat(&v["seat"])?,
            size_px: v["size_px"].as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| bad("size_px"))?,
        })
    }
}

/// The start of `variant` on its default options, seen from `seat`, unmarked
/// (for tests).
#[cfg(test)]
pub(crate) fn start_of(variant: VariantId, seat: u8, size_px: u32) -> PictureSource {
    PictureSource {
        variant,
        options: Options::new(),
        state: variant.rulebook(&Options::new()).unwrap().start(),
        marks: Marks::default(),
        seat: Seat::new(seat),
        size_px,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_reads_back_as_written_and_draws_its_board() {
        let rules = VariantId::Vierschach.rulebook(&Options::new()).unwrap();
        let source = PictureSource {
            variant: VariantId::Vierschach,
            options: Options::new().set("mode", "ffa"),
            state: rules.start(),
            marks: Marks {
                last_moves: vec![MovePath {
                    cells: vec![Cell { file: 4, rank: 1, level: 0 }, Cell { file: 4, rank: 3, level: 0 }],
                    captures: vec![],
                    grip: vec![],
                }],
                to_move: vec![Seat::new(1)],
            },
            seat: Seat::new(2),
            size_px: 800,
        };
        let text = source.to_text();
        assert!(text.len() < 1024, "{} bytes", text.len());
        assert_eq!(PictureSource::from_text(&text).unwrap(), source);
        assert_eq!(PictureSource::from_text(&text).unwrap().to_text(), text, "stable");
        let svg = source.svg().unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
        assert!(PictureSource::from_text("{\"variant\":\"go\"}").is_err());
    }

    /// The text keys the pictures already stored and names the board of every
    /// queued letter: written field by field, it must stay byte for byte what
    /// it was (fields in this order, options sorted, compact).
    #[test]
    fn the_text_is_the_stored_form_byte_for_byte() {
        let source = PictureSource {
            variant: VariantId::Vierschach,
            options: Options::new().set("mode", "ffa").set("clock", "none"),
            state: "a\"b".to_owned(),
            marks: Marks {
                last_moves: vec![MovePath {
                    cells: vec![Cell { file: 4, rank: 1, level: 0 }, Cell { file: 4, rank: 3, level: 2 }],
                    captures: vec![Cell { file: 5, rank: 6, level: 0 }],
                    grip: vec![],
                }],
                to_move: vec![Seat::new(1), Seat::new(3)],
            },
            seat: Seat::new(2),
            size_px: 640,
        };
        assert_eq!(
            source.to_text(),
            r#"{"variant":"vierschach","options":{"clock":"none","mode":"ffa"},"state":"a\"b","paths":[[[[4,1,0],[4,3,2]],[[5,6,0]]]],"to_move":[1,3],"seat":2,"size_px":640}"#
        );
        let bare = PictureSource { options: Options::new(), marks: Marks::default(), ..source };
        assert_eq!(
            bare.to_text(),
            r#"{"variant":"vierschach","options":{},"state":"a\"b","paths":[],"to_move":[],"seat":2,"size_px":640}"#
        );
    }
}
