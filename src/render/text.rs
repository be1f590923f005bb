//! A board as monospace text, with coordinates on all four sides.
//!
//! Any square grid up to 14×14 is drawn: files `a`…`n`, ranks `1`…`14` right-aligned
//! in three columns, holes (Vierschach's corners) left blank.

use crate::rules::{BoardView, Cell, Geometry, PieceView};

/// Draws `board` as text, seen from the first seat's side or, with `flipped`, from
/// the opposite side. Pieces are FEN letters (upper case for the first seat, lower
/// case for the second), `.` is an empty square, `*` marks a marked cell (for
/// Fairschach: a paused piece). Pieces of a third or fourth seat are drawn as
/// [`board_for_seats`] draws them, with seat numbers.
pub fn board(view: &BoardView, flipped: bool) -> String {
    board_for_seats(view, flipped, &[])
}

/// Draws `board` as [`board`] does, naming the seats of games with more than two:
/// then every cell is three columns wide and a piece is its seat's letter (the
/// first letter of its name in `seat_names`, or its number from 1 when the names
/// do not give distinct letters) and its FEN letter in upper case, as `sK` or
/// `wP`. Games with two seats look exactly as [`board`] draws them.
pub fn board_for_seats(view: &BoardView, flipped: bool, seat_names: &[&str]) -> String {
    let max_owner = view.pieces.iter().map(|(_, p)| p.owner.index() + 1).max().unwrap_or(0);
    let wide = seat_names.len() > 2 || max_owner > 2;
    let style =
        if wide { Style::Seats(seat_letters(seat_names, max_owner.max(seat_names.len()))) } else { Style::Case };
    match &view.geometry {
        Geometry::Square { files, ranks, holes } => square(view, *files, *ranks, holes, flipped, &style),
    }
}

/// How pieces are written.
enum Style {
    /// One column: upper case for the first seat, lower case for the others.
    Case,
    /// Two columns: the seat's letter, then the piece in upper case.
    Seats(Vec<char>),
}

impl Style {
    fn piece(&self, p: &PieceView) -> String {
        match self {
            Style::Case if p.owner.index() == 0 => p.kind.to_ascii_uppercase().to_string(),
            Style::Case => p.kind.to_string(),
            Style::Seats(letters) => {
                let seat = letters.get(p.owner.index()).copied().unwrap_or('?');
                format!("{seat}{}", p.kind.to_ascii_uppercase())
            }
        }
    }

    /// A cell's content without its mark: piece, empty square, or hole.
    fn cell(&self, content: Option<Option<&PieceView>>) -> String {
        let narrow = matches!(self, Style::Case);
        match content {
            None if narrow => " ".to_owned(),
            None => "  ".to_owned(),
            Some(None) if narrow => ".".to_owned(),
            Some(None) => " .".to_owned(),
            Some(Some(p)) => self.piece(p),
        }
    }
}

/// The first letters of the seat names when they are distinct, else `1`, `2`, …
fn seat_letters(seat_names: &[&str], seats: usize) -> Vec<char> {
    let letters: Vec<char> = seat_names.iter().map(|n| n.chars().next().unwrap_or('?').to_ascii_lowercase()).collect();
    let mut distinct = letters.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if letters.len() >= seats && distinct.len() == letters.len() && letters.iter().all(char::is_ascii_alphabetic) {
        letters
    } else {
        (0..seats.max(letters.len())).map(|i| char::from_digit(i as u32 + 1, 36).unwrap_or('?')).collect()
    }
}

fn file_label(file: u8) -> char {
    char::from(b'a' + file)
}

fn square(view: &BoardView, files: u8, ranks: u8, holes: &[Cell], flipped: bool, style: &Style) -> String {
    let file_order: Vec<u8> = if flipped { (0..files).rev().collect() } else { (0..files).collect() };
    let rank_order: Vec<u8> = if flipped { (0..ranks).collect() } else { (0..ranks).rev().collect() };
    let pad = if matches!(style, Style::Case) { " " } else { "  " };
    let labels: String = file_order.iter().map(|&f| format!("{pad}{}", file_label(f))).collect();
    let mut out = format!("    {labels}\n");
    for &rank in &rank_order {
        let mut line = format!("{:>3} ", rank + 1);
        for &file in &file_order {
            let cell = Cell { file, rank, level: 0 };
            let mark = if view.marked.contains(&cell) { '*' } else { ' ' };
            let content = if holes.contains(&cell) {
                None
            } else {
                Some(view.pieces.iter().find(|(c, _)| *c == cell).map(|(_, p)| p))
            };
            line.push(mark);
            line.push_str(&style.cell(content));
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

    #[test]
    fn four_seats_on_a_plus_shaped_board() {
        let view = crate::render::fixtures::four_armies();
        let text = board_for_seats(&view, false, &["south", "west", "north", "east"]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 16, "{text}");
        assert_eq!(lines[0], "      a  b  c  d  e  f  g  h  i  j  k  l  m  n");
        assert_eq!(lines[1], " 14           nR nN nB nK nQ nB nN nR           14");
        assert_eq!(lines[3], " 12            .  .  .  .  .  .  .  .           12");
        assert_eq!(lines[4], " 11  wR wP  .  .  .  .  .  .  .  .  .  . eP eR  11");
        assert_eq!(lines[8], "  7  wK wP  .  .  .  .  .  .  .  .  .  . eP eQ  7");
        assert_eq!(lines[14], "  1           sR sN sB sQ sK sB sN sR           1");
        assert_eq!(lines[15], lines[0]);
        // Without names, seats are numbered.
        let numbered = board(&view, false);
        assert!(numbered.lines().nth(14).unwrap().contains("1R 1N 1B 1Q 1K"), "{numbered}");
        assert!(numbered.lines().nth(4).unwrap().contains("2R 2P"), "{numbered}");
        // Names that share a first letter are numbered too.
        let shared = board_for_seats(&view, false, &["red", "blue", "ruby", "black"]);
        assert!(shared.contains("3R 3N"), "{shared}");
    }

    #[test]
    fn fourteen_ranks_flipped_keep_two_digit_alignment() {
        let view = crate::render::fixtures::four_armies();
        let text = board_for_seats(&view, true, &["south", "west", "north", "east"]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "      n  m  l  k  j  i  h  g  f  e  d  c  b  a");
        assert_eq!(lines[1], "  1           sR sN sB sK sQ sB sN sR           1");
        assert_eq!(lines[11], " 11  eR eP  .  .  .  .  .  .  .  .  .  . wP wR  11");
        assert_eq!(lines[14], " 14           nR nN nB nQ nK nB nN nR           14");
    }
}
