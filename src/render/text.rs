//! A board as monospace text, with coordinates on all four sides.

use crate::rules::{BoardView, Cell, Geometry};

/// Draws `board` as text, seen from the first seat's side or, with `flipped`, from
/// the opposite side. Pieces are FEN letters (upper case for the first seat, lower
/// case for the second), `.` is an empty square, `*` marks a marked cell (for
/// Fairschach: a paused piece).
pub fn board(view: &BoardView, flipped: bool) -> String {
    match &view.geometry {
        Geometry::Square { files, ranks, holes } => square(view, *files, *ranks, holes, flipped),
    }
}

fn file_label(file: u8) -> char {
    char::from(b'a' + file)
}

fn square(view: &BoardView, files: u8, ranks: u8, holes: &[Cell], flipped: bool) -> String {
    let file_order: Vec<u8> = if flipped { (0..files).rev().collect() } else { (0..files).collect() };
    let rank_order: Vec<u8> = if flipped { (0..ranks).collect() } else { (0..ranks).rev().collect() };
    let labels: String = file_order.iter().map(|&f| format!(" {}", file_label(f))).collect();
    let mut out = format!("    {labels}\n");
    for &rank in &rank_order {
        let mut line = format!("{:>3} ", rank + 1);
        for &file in &file_order {
            let cell = Cell { file, rank, level: 0 };
            let mark = if view.marked.contains(&cell) { '*' } else { ' ' };
            let glyph = if holes.contains(&cell) {
                ' '
            } else {
                match view.pieces.iter().find(|(c, _)| *c == cell) {
                    Some((_, p)) if p.owner.index() == 0 => p.kind.to_ascii_uppercase(),
                    Some((_, p)) => p.kind,
                    None => '.',
                }
            };
            line.push(mark);
            line.push(glyph);
        }
        out.push_str(&format!("{line}  {}\n", rank + 1));
    }
    out.push_str(&format!("    {labels}\n"));
    if !view.marked.is_empty() {
        out.push_str("    * paused this pair\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Options, VariantId};

    #[test]
    fn start_position_from_both_sides() {
        let rules = VariantId::Chess.rulebook(&Options::new()).unwrap();
        let view = rules.board(&rules.start()).unwrap();
        let white = board(&view, false);
        let lines: Vec<&str> = white.lines().collect();
        assert_eq!(lines[0], "     a b c d e f g h");
        assert_eq!(lines[1], "  8  r n b q k b n r  8");
        assert_eq!(lines[8], "  1  R N B Q K B N R  1");
        let black = board(&view, true);
        assert_eq!(black.lines().nth(1).unwrap(), "  1  R N B K Q B N R  1");
    }

    #[test]
    fn paused_pieces_are_marked() {
        let rules = VariantId::Fairschach.rulebook(&Options::new()).unwrap();
        let view = rules.board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2").unwrap();
        let text = board(&view, false);
        assert!(text.contains("  4  . . . .*P . . .  4"), "{text}");
        assert!(text.contains("* paused this pair"));
    }
}
