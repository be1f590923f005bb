//! A game's record as the variants export it: the resolved turns with their
//! states and moves, and the pieces of a PGN file that every PGN writer shares
//! (tags, move text wrapped at 80 columns).
//!
//! A variant that has a PGN form writes it in [`super::Variant::pgn`] from a
//! [`GameRecord`]; the doors build the record from the store and never look
//! inside it.

use std::fmt::Write as _;

use super::{DynVariant, Outcome, SeatMove};

/// The media type of a PGN file.
pub const PGN_MEDIA_TYPE: &str = "application/x-chess-pgn; charset=utf-8";

/// One resolved turn of a game, states and moves as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedTurn {
    /// The turn number, from 1.
    pub turn: u32,
    /// The state the turn was played in.
    pub before: String,
    /// The state it produced.
    pub after: String,
    /// Each seat's move in canonical text (`mv`), its notation as played and its
    /// fate, in seat order.
    pub moves: Vec<SeatMove<String>>,
    /// Remarks for the players (a same-square meeting, a switch of mode).
    pub notes: Vec<String>,
}

/// What a game's export needs: who played, where, when, every resolved turn and
/// the outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's id (`8KQ2ZJ`).
    pub game: String,
    /// Where it is played: the game page's address.
    pub site: String,
    /// The day it began, `YYYY.MM.DD` as PGN writes dates.
    pub date: String,
    /// The players' names, in seat order.
    pub players: Vec<String>,
    /// The start state.
    pub start: String,
    /// The resolved turns, in order.
    pub turns: Vec<RecordedTurn>,
    /// How it ended, if it has.
    pub outcome: Option<Outcome>,
}

/// Whether `rules` writes its games as PGN at all (asked of an unplayed game),
/// so that a door offers a PGN download only where there is one.
pub fn writes_pgn(rules: &dyn DynVariant) -> bool {
    let unplayed = GameRecord {
        game: String::new(),
        site: String::new(),
        date: String::new(),
        players: Vec::new(),
        start: rules.start(),
        turns: Vec::new(),
        outcome: None,
    };
    rules.pgn(&unplayed).is_some()
}

impl GameRecord {
    /// The result token of a two-seat PGN: `1-0`, `0-1`, `1/2-1/2`, or `*` while
    /// the game runs.
    pub fn result_token(&self) -> &'static str {
        self.outcome.filter(Outcome::counts).map_or("*", |o| o.result.two_seat_score())
    }

    /// The Seven Tag Roster for a two-seat game (`White` and `Black` from the
    /// first two players), in its order.
    pub fn roster(&self) -> Vec<(String, String)> {
        let player = |i: usize| self.players.get(i).cloned().unwrap_or_else(|| "?".to_owned());
        vec![
            ("Event".to_owned(), format!("Fairsteward game {}", self.game)),
            ("Site".to_owned(), self.site.clone()),
            ("Date".to_owned(), self.date.clone()),
            ("Round".to_owned(), "-".to_owned()),
            ("White".to_owned(), player(0)),
            ("Black".to_owned(), player(1)),
            ("Result".to_owned(), self.result_token().to_owned()),
        ]
    }
}

/// Writes PGN tag pairs, escaping `\` and `"` as the PGN standard asks and
/// dropping line breaks (a tag value is one line).
pub fn pgn_tags(out: &mut String, tags: &[(String, String)]) {
    for (name, value) in tags {
        let value: String = value
            .chars()
            .filter(|c| !c.is_control())
            .flat_map(|c| match c {
                '\\' | '"' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        let _ = writeln!(out, "[{name} \"{value}\"]");
    }
}

/// A PGN comment holding `text`: braces cannot nest, so a closing brace in the
/// text becomes a parenthesis.
pub fn pgn_comment(text: &str) -> String {
    format!("{{{}}}", text.replace('}', ")").replace('{', "("))
}

/// The move text: the tokens joined by spaces, wrapped below 80 columns (a
/// comment may be broken at its spaces, as PGN allows), and a final newline.
pub fn pgn_movetext(tokens: &[String]) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in tokens.iter().flat_map(|t| t.split(' ')).filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.len() + 1 + word.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_escape_quotes_and_backslashes() {
        let mut out = String::new();
        pgn_tags(&mut out, &[("White".into(), "Al \"The\" \\ Bo\nb".into())]);
        assert_eq!(out, "[White \"Al \\\"The\\\" \\\\ Bob\"]\n");
    }

    #[test]
    fn movetext_wraps_below_80_columns() {
        let tokens: Vec<String> = (1..=40).map(|n| format!("{n}. e4 e5")).collect();
        let text = pgn_movetext(&tokens);
        assert!(text.lines().all(|l| l.len() < 80), "{text}");
        assert!(text.starts_with("1. e4 e5 2. e4 e5"), "{text}");
        assert_eq!(pgn_comment("a {b} c"), "{a (b) c}");
    }
}
