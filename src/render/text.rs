//! A board as monospace text, with the variant's coordinates around it.
//!
//! Any board the variant describes is drawn: every cell sits at its centre after
//! the viewing seat's turn (so that seat is at the bottom), cells sharing a
//! centre line share a row or a column, and the variant's edge labels go where
//! their side of the board lies in that view. A square grid comes out as the
//! familiar diagram (files `a`…`n`, ranks `1`…`14`, holes blank); hexagons and
//! triangles, whose centres lie half a cell apart, come out staggered; the levels
//! of a stacked board stand side by side.

use crate::rules::{BoardView, Cell, CellShape, MovePath, PieceView, Point, Seat};

/// Draws `board` as text, seen from `viewer`'s side (turned as the variant says,
/// so that seat sits at the bottom). Pieces are their letters (upper case for the
/// first seat, lower case for the others, as a FEN writes them), `.` is an empty cell,
/// `*` marks a marked cell (in a simultaneous game: a paused piece). Pieces of a third or
/// fourth seat are drawn as [`board_for_seats`] draws them, with seat numbers.
pub fn board(view: &BoardView, viewer: Seat) -> String {
    board_for_seats(view, viewer, &[], &[])
}

/// Draws `board` as [`board`] does, naming the seats of games with more than two:
/// then every cell is three columns wide and a piece is its seat's letter (the
/// board's own [`BoardShape::seat_letters`](crate::rules::BoardShape), else the
/// first letter of its name in `seat_names`, or its number from 1 when the names
/// do not give distinct letters) and its piece letter, as `sK` or `wP`. Games
/// with two seats look exactly as [`board`] draws them. The cells of
/// `last_moves`' paths are marked `+`, the cells they captured `x`.
pub fn board_for_seats(view: &BoardView, viewer: Seat, seat_names: &[&str], last_moves: &[MovePath]) -> String {
    let max_owner = view.pieces.iter().map(|(_, p)| p.owner.index() + 1).max().unwrap_or(0);
    let wide = seat_names.len() > 2 || max_owner > 2;
    let own = &view.shape.seat_letters;
    let letters = if own.len() >= max_owner.max(seat_names.len()) && !own.is_empty() {
        own.clone()
    } else {
        seat_letters(seat_names, max_owner.max(seat_names.len()))
    };
    let style = if wide { Style::Seats(letters) } else { Style::Case };
    draw(view, viewer, &style, last_moves)
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
            Style::Case if p.owner.index() == 0 => p.kind.letter().to_string(),
            Style::Case => p.kind.letter().to_ascii_lowercase().to_string(),
            Style::Seats(letters) => {
                let seat = letters.get(p.owner.index()).copied().unwrap_or('?');
                format!("{seat}{}", p.kind.letter())
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

/// Centre lines further apart than this (in thousandths of a cell) are parts
/// of the board drawn apart, and get an empty column or line between them.
const GAP: i64 = 1250;

/// The empty column between parts of a level drawn apart (levels themselves
/// are kept apart by two `(u8::MAX, 0)` columns).
const APART: (u8, i64) = (u8::MAX, 1);

/// A coordinate rounded to a thousandth of a cell, so centres on one line
/// compare equal after a turn.
fn key(v: f32) -> i64 {
    (v * 1000.0).round() as i64
}

/// The index of the line in `lines` (sorted) nearest to `v`.
fn nearest(lines: &[i64], v: i64) -> Option<usize> {
    (0..lines.len()).min_by_key(|&i| (lines[i] - v).abs())
}

/// Where a cell sits in the view turned by `turn`: the middle of its outline's
/// extent (so an up and a down triangle of one row share a row).
fn spot(c: &CellShape, turn: f32) -> Point {
    let corners: Vec<Point> = c.outline.corners(c.centre).into_iter().map(|p| p.turned(turn)).collect();
    let (lo, hi) = corners.iter().fold(((f32::MAX, f32::MAX), (f32::MIN, f32::MIN)), |(lo, hi), p| {
        ((lo.0.min(p.x), lo.1.min(p.y)), (hi.0.max(p.x), hi.1.max(p.y)))
    });
    Point::new((lo.0 + hi.0) / 2.0, (lo.1 + hi.1) / 2.0)
}

fn draw(view: &BoardView, viewer: Seat, style: &Style, last_moves: &[MovePath]) -> String {
    let shape = &view.shape;
    let turn = shape.turn(viewer);
    let width: usize = if matches!(style, Style::Case) { 2 } else { 3 };
    let mut levels: Vec<u8> = shape.cells.iter().map(|c| c.cell.level).collect();
    levels.sort_unstable();
    levels.dedup();
    let spots: Vec<(Cell, i64, i64)> = shape
        .cells
        .iter()
        .map(|c| {
            let p = spot(c, turn);
            (c.cell, key(p.x), key(p.y))
        })
        .collect();
    // Columns: each level's distinct centre lines, left to right, levels apart
    // by two empty columns. Rows: every distinct centre line, top first.
    let mut columns: Vec<(u8, i64)> = Vec::new();
    let mut level_columns: Vec<(u8, Vec<i64>)> = Vec::new();
    for &level in &levels {
        let mut xs: Vec<i64> = spots.iter().filter(|s| s.0.level == level).map(|s| s.1).collect();
        xs.sort_unstable();
        xs.dedup();
        if !columns.is_empty() {
            columns.extend([(u8::MAX, 0), (u8::MAX, 0)]);
        }
        for (i, &x) in xs.iter().enumerate() {
            // Parts of a level drawn apart (small boards beside
            // their main board) stay apart: an empty column between them.
            if i > 0 && x - xs[i - 1] > GAP {
                columns.push(APART);
            }
            columns.push((level, x));
        }
        level_columns.push((level, xs));
    }
    let mut rows: Vec<i64> = spots.iter().map(|s| s.2).collect();
    rows.sort_unstable_by(|a, b| b.cmp(a));
    rows.dedup();
    // Likewise an empty line between rows drawn apart (stacked boards).
    let gaps: Vec<i64> = rows.windows(2).filter(|w| w[0] - w[1] > GAP).map(|w| (w[0] + w[1]) / 2).collect();
    rows.extend(gaps);
    rows.sort_unstable_by(|a, b| b.cmp(a));
    let column_of = |level: u8, x: i64| -> Option<usize> {
        let (_, xs) = level_columns.iter().find(|(l, _)| *l == level)?;
        let i = nearest(xs, x)?;
        columns.iter().position(|&c| c == (level, xs[i]))
    };
    let row_of = |y: i64| (0..rows.len()).min_by_key(|&i| (rows[i] - y).abs());

    let mut grid: Vec<Vec<Option<Cell>>> = vec![vec![None; columns.len()]; rows.len()];
    for &(cell, x, y) in &spots {
        if let (Some(col), Some(row)) = (column_of(cell.level, x), row_of(y)) {
            grid[row][col] = Some(cell);
        }
    }
    // Staggered boards (hexagons) never use two neighbouring columns in one row:
    // there a column is half a cell wide, so rows interleave.
    // (The empty columns between parts drawn apart are not looked at.)
    let real = |row: &Vec<Option<Cell>>| -> Vec<Option<Cell>> {
        row.iter().zip(&columns).filter(|(_, c)| **c != APART).map(|(cell, _)| *cell).collect()
    };
    let staggered = grid.iter().all(|row| real(row).windows(2).all(|w| w[0].is_none() || w[1].is_none()))
        && grid.iter().any(|row| row.iter().filter(|c| c.is_some()).count() > 1);
    let step = if staggered { width.div_ceil(2) } else { width };

    // Edge labels: above, below, left or right, by where their side faces now.
    let mut top = vec![String::new(); columns.len()];
    let mut bottom = vec![String::new(); columns.len()];
    let mut left = vec![String::new(); rows.len()];
    let mut right = vec![String::new(); rows.len()];
    for l in &shape.labels {
        let at = l.at.turned(turn);
        let out = l.outward.turned(turn);
        let (slots, index) = if out.y.abs() >= out.x.abs() {
            (if out.y > 0.0 { &mut top } else { &mut bottom }, column_of(l.level, key(at.x)))
        } else {
            (if out.x < 0.0 { &mut left } else { &mut right }, row_of(key(at.y)))
        };
        if let Some(slot) = index.and_then(|i| slots.get_mut(i))
            && slot.is_empty()
        {
            slot.clone_from(&l.text);
        }
    }

    let path: Vec<Cell> = last_moves.iter().flat_map(|p| p.cells.iter().copied()).collect();
    let captured: Vec<Cell> = last_moves.iter().flat_map(|p| p.captures.iter().copied()).collect();
    let side = left.iter().map(String::len).max().unwrap_or(0).max(3) + 1;
    let span = side + step * columns.len().saturating_sub(1) + width;
    // Writes `text` into `line` so that it ends where column `i`'s cell ends.
    let put = |line: &mut Vec<char>, i: usize, text: &str| {
        let end = side + step * i + width;
        let start = end.saturating_sub(text.chars().count());
        for (k, ch) in text.chars().enumerate() {
            if let Some(slot) = line.get_mut(start + k) {
                *slot = ch;
            }
        }
    };
    let edge = |labels: &[String]| {
        let mut line = vec![' '; span];
        for (i, l) in labels.iter().enumerate() {
            put(&mut line, i, l);
        }
        format!("{}\n", line.into_iter().collect::<String>().trim_end())
    };
    let mut out = String::new();
    if top.iter().any(|l| !l.is_empty()) {
        out.push_str(&edge(&top));
    }
    for (r, cells) in grid.iter().enumerate() {
        let mut line = vec![' '; span];
        for (k, ch) in format!("{:>w$}", left[r], w = side - 1).chars().enumerate() {
            line[k] = ch;
        }
        for (i, cell) in cells.iter().enumerate() {
            let Some(cell) = *cell else { continue };
            let mark = if view.marked.contains(&cell) {
                '*'
            } else if captured.contains(&cell) {
                'x'
            } else if path.contains(&cell) {
                '+'
            } else {
                ' '
            };
            let content = style.cell(Some(view.pieces.iter().find(|(c, _)| *c == cell).map(|(_, p)| p)));
            put(&mut line, i, &format!("{mark}{content}"));
        }
        let mut line: String = line.into_iter().collect();
        if !right[r].is_empty() {
            line.push_str(&format!("  {}", right[r]));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if bottom.iter().any(|l| !l.is_empty()) {
        out.push_str(&edge(&bottom));
    }
    // What `*` means is the game's to say: its legend, printed under the
    // board, explains it (a paused piece, a mated seat's piece).
    if !path.is_empty() {
        out.push_str(if captured.is_empty() { "    + last move\n" } else { "    + last move, x captured\n" });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fixtures::{four_armies, hexagons, kings_at_home, triangles, two_levels};
    use crate::rules::{BoardView, Options, PieceKind, VariantId};

    /// The words of a legend: runs of letters and digits.
    fn words(legend: &[String]) -> Vec<String> {
        legend.join("\n").split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_owned).collect()
    }

    /// Every game's legend names what the text board of its start position
    /// writes, from every seat's side: each seat letter and piece letter of
    /// a many-seat board, each piece letter and the letter case of a
    /// two-seat one, and the level names beside a stacked board. The
    /// symbols are read off the drawn board, not copied from the legend.
    #[test]
    fn every_legend_names_what_its_start_board_writes() {
        for id in VariantId::ALL {
            let rules = id.rulebook(&Options::new()).unwrap();
            let legend = rules.legend();
            assert!(!legend.is_empty(), "{id}: no legend");
            let words = words(&legend);
            let named = |w: &str| words.iter().any(|x| x == w);
            let view = rules.board(&rules.start()).unwrap();
            for viewer in 0..rules.seat_names().len() {
                let text = board_for_seats(&view, Seat::new(viewer as u8), rules.seat_names(), &[]);
                let mut pieces = 0;
                for line in text.lines() {
                    let tokens: Vec<&str> =
                        line.split_whitespace().map(|t| t.trim_start_matches(['+', 'x', '*'])).collect();
                    // A two-seat board's row of cells starts or ends with its
                    // rank number; the lines of file letters are coordinates. A
                    // many-seat board's pieces are two letters, unlike any
                    // coordinate, wherever they are.
                    let wide = rules.seat_names().len() > 2;
                    let number = |t: &&str| t.chars().all(|c| c.is_ascii_digit());
                    let row = tokens.first().is_some_and(number) || tokens.last().is_some_and(number);
                    if !wide && !row {
                        continue;
                    }
                    for t in tokens.iter().filter(|t| !number(t)) {
                        let c: Vec<char> = t.chars().collect();
                        match c[..] {
                            // A many-seat board: seat letter, piece letter.
                            [seat, piece] if seat.is_ascii_lowercase() && piece.is_ascii_uppercase() => {
                                assert!(named(&seat.to_string()), "{id}: seat letter {seat} not in {legend:?}");
                                assert!(named(&piece.to_string()), "{id}: piece {piece} not in {legend:?}");
                                pieces += 1;
                            }
                            // A two-seat board: the case tells the seat.
                            [piece] if !wide && piece.is_ascii_alphabetic() => {
                                let up = piece.to_ascii_uppercase().to_string();
                                assert!(named(&up), "{id}: {piece} ({up}) not in {legend:?}");
                                let case = if piece.is_ascii_uppercase() { "upper" } else { "lower" };
                                assert!(named(case), "{id}: {case} case not explained in {legend:?}");
                                pieces += 1;
                            }
                            // A level name beside a stacked board (QL1, KL6).
                            _ if t.len() > 2 && t.chars().any(|c| c.is_ascii_digit()) => {
                                let kind: String = t.chars().filter(char::is_ascii_alphabetic).collect();
                                assert!(named(&format!("{kind}1")), "{id}: level {t} not in {legend:?}");
                            }
                            _ => {}
                        }
                    }
                }
                assert!(pieces > 0, "{id}: no piece read off\n{text}");
                if text.contains(" .") || text.starts_with('.') {
                    assert!(legend.join(" ").contains(". is an empty"), "{id}: . not explained in {legend:?}");
                }
            }
        }
    }

    /// Every game lists every option it knows, defaults included, and a game
    /// made from that list runs by the same options (a Dame triangle is
    /// named, not given as a record, so `board` is left out there).
    #[test]
    fn effective_options_are_complete_and_read_back() {
        for id in VariantId::ALL {
            let rules = id.rulebook(&Options::new()).unwrap();
            let listed = rules.effective_options();
            let mut again = Options::new();
            for (name, value) in &listed {
                if !(*name == "board" && value == "triangle") {
                    again = again.set(*name, value.clone());
                }
            }
            let rebuilt = id.rulebook(&again).unwrap_or_else(|e| panic!("{id}: {listed:?} read back: {e}"));
            assert_eq!(rebuilt.effective_options(), listed, "{id}");
            // An option the game does not list is one it refuses.
            let unknown = Options::new().set("surely_not_an_option", "on");
            assert!(id.rulebook(&unknown).is_err(), "{id}");
        }
        // A default the game was created without is listed.
        let vierschach = VariantId::ALL.into_iter().find(|id| id.rulebook(&Options::new().set("mode", "ffa")).is_ok());
        let id = vierschach.expect("a game with a mode");
        let ffa = id.rulebook(&Options::new().set("mode", "ffa")).unwrap().effective_options();
        assert!(ffa.contains(&("mode", "ffa".to_owned())), "{ffa:?}");
        assert!(ffa.contains(&("mated", "remove".to_owned())), "{ffa:?}");
    }

    #[test]
    fn start_position_from_both_sides() {
        let rules = VariantId::Chess.rulebook(&Options::new()).unwrap();
        let view = rules.board(&rules.start()).unwrap();
        let white = board(&view, Seat::new(0));
        let lines: Vec<&str> = white.lines().collect();
        assert_eq!(lines[0], "     a b c d e f g h");
        assert_eq!(lines[1], "  8  r n b q k b n r  8");
        assert_eq!(lines[8], "  1  R N B Q K B N R  1");
        let black = board(&view, Seat::new(1));
        assert_eq!(black.lines().nth(1).unwrap(), "  1  R N B K Q B N R  1");
    }

    #[test]
    fn paused_pieces_are_marked() {
        let rules = VariantId::Fairschach.rulebook(&Options::new()).unwrap();
        let view = rules.board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR s KQkq e3,d6 e4,d5 0 2").unwrap();
        let text = board(&view, Seat::new(0));
        assert!(text.contains("  4  . . . .*P . . .  4"), "{text}");
        assert!(!text.contains("paused"), "the legend, not the board, says what * means: {text}");
        assert!(rules.legend().iter().any(|l| l.starts_with("* before a piece: paused this pair")));
    }

    #[test]
    fn four_seats_on_a_plus_shaped_board() {
        let view = crate::render::fixtures::four_armies();
        let text = board_for_seats(&view, Seat::new(0), &["south", "west", "north", "east"], &[]);
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
        let numbered = board(&view, Seat::new(0));
        assert!(numbered.lines().nth(14).unwrap().contains("1R 1N 1B 1Q 1K"), "{numbered}");
        assert!(numbered.lines().nth(4).unwrap().contains("2R 2P"), "{numbered}");
        // Names that share a first letter are numbered too.
        let shared = board_for_seats(&view, Seat::new(0), &["red", "blue", "ruby", "black"], &[]);
        assert!(shared.contains("3R 3N"), "{shared}");
    }

    #[test]
    fn fourteen_ranks_flipped_keep_two_digit_alignment() {
        let view = crate::render::fixtures::four_armies();
        let text = board_for_seats(&view, Seat::new(2), &["south", "west", "north", "east"], &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "      n  m  l  k  j  i  h  g  f  e  d  c  b  a");
        assert_eq!(lines[1], "  1           sR sN sB sK sQ sB sN sR           1");
        assert_eq!(lines[11], " 11  eR eP  .  .  .  .  .  .  .  .  .  . wP wR  11");
        assert_eq!(lines[14], " 14           nR nN nB nQ nK nB nN nR           14");
    }

    const FOUR: [&str; 4] = ["south", "west", "north", "east"];

    #[test]
    fn west_and_east_see_their_own_army_at_the_bottom() {
        let view = four_armies();
        let west = board_for_seats(&view, Seat::new(1), &FOUR, &[]);
        let lines: Vec<&str> = west.lines().collect();
        assert_eq!(lines.len(), 16, "{west}");
        // Ranks run along the top and bottom now, files down the sides: a at the bottom.
        assert_eq!(lines[0], "     14 13 12 11 10  9  8  7  6  5  4  3  2  1");
        assert_eq!(lines[14], "  a           wR wN wB wQ wK wB wN wR           a");
        assert_eq!(lines[13], "  b           wP wP wP wP wP wP wP wP           b");
        assert_eq!(lines[1], "  n           eR eN eB eK eQ eB eN eR           n");
        let east = board_for_seats(&view, Seat::new(3), &FOUR, &[]);
        let lines: Vec<&str> = east.lines().collect();
        assert_eq!(lines[0], "      1  2  3  4  5  6  7  8  9 10 11 12 13 14");
        assert_eq!(lines[14], "  n           eR eN eB eQ eK eB eN eR           n");
        assert_ne!(west, east);
    }

    #[test]
    fn a_board_may_name_its_seats_letters() {
        // White, brown and black share initials: the board names them w, n, b.
        let mut view = hexagons();
        kings_at_home(&mut view);
        let names = ["white", "brown", "black"];
        let numbered = board_for_seats(&view, Seat::new(0), &names, &[]);
        assert!(numbered.contains("1K") && numbered.contains("3K"), "{numbered}");
        let mut shape = (*view.shape).clone();
        shape.seat_letters = vec!['w', 'n', 'b'];
        view.shape = std::sync::Arc::new(shape);
        let lettered = board_for_seats(&view, Seat::new(0), &names, &[]);
        for king in ["wK", "nK", "bK"] {
            assert!(lettered.contains(king), "{king}: {lettered}");
        }
    }

    #[test]
    fn hexagons_come_out_staggered_and_readable() {
        let mut view = hexagons();
        let text = board(&view, Seat::new(0));
        let lines: Vec<&str> = text.lines().collect();
        // Five rows of 3, 4, 5, 4 and 3 cells, neighbours two columns apart and
        // each row shifted by one against the next, then the first seat's letters.
        assert_eq!(lines.len(), 6, "{text}");
        assert_eq!(lines[0], "       . . .", "{text}");
        assert_eq!(lines[1], "      . . . .", "{text}");
        assert_eq!(lines[2], "     . . . . .", "{text}");
        assert_eq!(lines[4], "       . . .", "{text}");
        assert_eq!(lines[5], "       c d e", "{text}");
        // Every seat finds its own king on the bottom row of its view.
        kings_at_home(&mut view);
        for s in 0..3u8 {
            let text = board_for_seats(&view, Seat::new(s), &["red", "green", "blue"], &[]);
            let rows: Vec<&str> = text.lines().filter(|l| l.contains('.')).collect();
            assert_eq!(rows.len(), 5, "{text}");
            let mine = format!("{}K", ["r", "g", "b"][usize::from(s)]);
            assert!(rows[4].contains(&mine), "seat {s}: {text}");
            assert!(rows[..4].iter().all(|r| !r.contains(&mine)), "seat {s}: {text}");
        }
    }

    #[test]
    fn triangles_and_levels_come_out_in_rows() {
        let mut view = triangles();
        view.pieces =
            vec![(Cell { file: 0, rank: 0, level: 0 }, PieceView { owner: Seat::new(0), kind: PieceKind::Man })];
        let text = board(&view, Seat::new(0));
        let lines: Vec<&str> = text.lines().collect();
        // Rows of 1, 3 and 5 triangles, apex up; the man at the bottom left.
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[2].trim(), "M . . . .", "{text}");
        assert_eq!(lines[0].trim(), ".", "{text}");
        let levels = board(&two_levels(), Seat::new(0));
        let lines: Vec<&str> = levels.lines().collect();
        assert_eq!(lines[0], "     a b     a b", "{levels}");
        assert_eq!(lines[1], "  2  . .     . .  2", "{levels}");
    }

    /// Parts of a board drawn apart (3D chess's stacked boards, its attack
    /// boards beside them) keep an empty column or line between them.
    #[test]
    fn parts_drawn_apart_stay_apart() {
        let mut shape = (*two_levels().shape).clone();
        shape.cells.retain(|c| c.cell.level == 0);
        for c in &mut shape.cells {
            c.centre = Point::new(c.centre.x * 2.0, c.centre.y * 3.0);
        }
        shape.labels.clear();
        let view = BoardView { shape: std::sync::Arc::new(shape), pieces: Vec::new(), marked: Vec::new() };
        let text = board(&view, Seat::new(0));
        assert_eq!(text, "     .   .\n\n     .   .\n", "{text}");
    }

    #[test]
    fn a_multi_jump_is_marked_along_its_path() {
        let mut view = triangles();
        view.pieces = vec![(
            Cell { file: 4, rank: 0, level: 0 },
            PieceView { owner: Seat::new(0), kind: PieceKind::DraughtsKing },
        )];
        let c = |file, rank| Cell { file, rank, level: 0 };
        let jump =
            MovePath { cells: vec![c(0, 0), c(0, 2), c(4, 0)], captures: vec![c(1, 1), c(2, 1)], grip: Vec::new() };
        let text = board_for_seats(&view, Seat::new(0), &[], &[jump]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0].trim(), "+.", "{text}");
        assert_eq!(lines[1].trim(), ".x.x.", "{text}");
        assert_eq!(lines[2].trim(), "+. . . .+C", "{text}");
        assert_eq!(lines[3], "    + last move, x captured");
    }
}
