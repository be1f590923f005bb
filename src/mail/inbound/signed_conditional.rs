//! Conditional lines in an OpenPGP-signed mail (issue 33): the signed text
//! names the game, the seat and the turn, as a signed move does, and holds
//! `if … then …` lines (or `conditional` / `conditional clear`) instead of
//! `move:` or `action:`:
//!
//! ```text
//! game: 8KQ2ZJ
//! seat: white
//! turn: 12
//! if Nf6 then e5, if Nc6 then Nf3
//! ```
//!
//! Quoted lines (`>`) never count. Pure code, like the rest of the reading.

use super::intent::{ConditionalWords, Intent, intent};

/// What the signed lines name and ask.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedLines {
    /// The game (upper case).
    pub game: String,
    /// The seat.
    pub seat: String,
    /// The turn.
    pub turn: u32,
    /// Set, list or clear.
    pub words: ConditionalWords,
}

/// The keys of an envelope that make the signed text a move or an action
/// rather than conditional lines.
const ENVELOPE_KEYS: &[&str] = &["move", "action", "commit", "salt", "sealed", "nonce"];

/// The conditional lines of a signed text (`\n` line ends): `None` when it
/// names no game (`game:`), is an envelope (a move, action, commitment …) or
/// holds no conditional lines; an error (what to write instead) when it names
/// the game but not the seat or a readable turn.
pub fn read(text: &str) -> Option<Result<SignedLines, String>> {
    if text.contains("-----BEGIN FAIRSTEWARD") {
        return None;
    }
    let unquoted: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.starts_with('>')).collect();
    let key_of = |line: &str| -> Option<(String, String)> {
        let (k, v) = line.split_once(':')?;
        let k = k.trim().to_ascii_lowercase();
        (["game", "seat", "turn"].contains(&k.as_str()) || ENVELOPE_KEYS.contains(&k.as_str()))
            .then(|| (k, v.trim().to_owned()))
    };
    let fields: Vec<(String, String)> = unquoted.iter().filter_map(|l| key_of(l)).collect();
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let game = field("game")?;
    if fields.iter().any(|(k, _)| ENVELOPE_KEYS.contains(&k.as_str())) {
        return None;
    }
    let rest: Vec<&str> = unquoted.iter().copied().filter(|l| key_of(l).is_none()).collect();
    let rest = rest.join("\n");
    let Intent::Conditional(words) = intent(&rest, &rest, "", None) else { return None };
    let usage = "write these lines above your conditional lines in the mail you sign:\ngame: GAME-ID\nseat: YOUR-SEAT\nturn: TURN (the turn now owed, as in the board mail's subject)";
    let Some(seat) = field("seat").filter(|s| !s.is_empty()) else {
        return Some(Err(format!("your signed conditional lines name the game but not your seat; {usage}")));
    };
    let Some(turn) = field("turn").and_then(|t| t.parse::<u32>().ok()) else {
        return Some(Err(format!("your signed conditional lines do not name the turn as a number; {usage}")));
    };
    Some(Ok(SignedLines { game: game.to_ascii_uppercase(), seat, turn, words }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_conditional_lines_name_game_seat_and_turn() {
        let text = "Hello,\ngame: 8kq2zj\nseat: white\nturn: 3\nif Nf6 then e5, if Nc6 then Nf3\n> game: OLDGAM\n";
        let found = read(text).unwrap().unwrap();
        assert_eq!((found.game.as_str(), found.seat.as_str(), found.turn), ("8KQ2ZJ", "white", 3));
        assert_eq!(found.words, ConditionalWords::Set("if Nf6 then e5, if Nc6 then Nf3".into()));
        let clear = read("game: 8KQ2ZJ\nseat: black\nturn: 1\nconditional clear\n").unwrap().unwrap();
        assert_eq!(clear.words, ConditionalWords::Clear);
        // A move, no game, or no lines: not conditional lines.
        assert_eq!(read("game: 8KQ2ZJ\nseat: white\nturn: 3\nmove: e4\n"), None);
        assert_eq!(read("if Nf6 then e5\n"), None);
        assert_eq!(read("game: 8KQ2ZJ\nseat: white\nturn: 3\nthanks\n"), None);
        assert_eq!(read("> game: 8KQ2ZJ\nif Nf6 then e5\n"), None);
        let bad = read("game: 8KQ2ZJ\nseat: white\nturn: three\nif Nf6 then e5\n").unwrap().unwrap_err();
        assert!(bad.contains("turn"), "{bad}");
    }
}
