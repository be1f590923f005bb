//! The words of conditional lines, apart from the game: the mail grammar
//! (`if Nf6 then e5, if Nc6 then Nf3 if d6 then d4`) and the HTTP JSON
//! (`[["Nf6", "e5"], ["Nc6", "Nf3", "d6", "d4"]]`), both read into [`Line`]s
//! and written back. Pure: no game, no store; whether the moves are legal is
//! the steward's question ([`super`]).
//!
//! The mail grammar, case-insensitive: a line is `if CONDITION then REPLY`,
//! and goes deeper with another `if … then …` right after the reply; a comma,
//! a semicolon or a new line after a reply ends the line. A condition is one
//! or more moves, each optionally after the name of the seat that plays it
//! (`west Nc6` or `west:Nc6`), separated by spaces, commas or `and`.

use serde_json::{Map, Value, json};

/// At most this many lines per seat and game (lichess keeps as many).
pub const MAX_LINES: usize = 30;
/// At most this many steps (condition and reply) per line.
pub const MAX_STEPS: usize = 30;
/// At most this many bytes per move text.
pub const MAX_MOVE_BYTES: usize = 32;

/// A move of a condition, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CondMove {
    /// The seat named before it, if one was (lower case as written).
    pub seat: Option<String>,
    /// The move text.
    pub text: String,
}

/// One step of a line: when the others play `condition`, reply `reply`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The moves of the others since the seat's own last move.
    pub condition: Vec<CondMove>,
    /// The seat's move then.
    pub reply: String,
}

/// A line: steps played one after the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The steps, first first.
    pub steps: Vec<Step>,
}

/// Conditional lines that cannot be read, or exceed the bounds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrammarError {
    /// The words do not follow the grammar.
    #[error("{0}")]
    Words(String),
    /// Too many lines, steps or bytes.
    #[error("{0}")]
    TooLarge(String),
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Sep,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for piece in text.split_inclusive([',', ';', '\n']) {
        let (body, sep) = match piece.strip_suffix([',', ';', '\n']) {
            Some(b) => (b, true),
            None => (piece, false),
        };
        out.extend(body.split_whitespace().map(Token::Word));
        if sep {
            out.push(Token::Sep);
        }
    }
    out
}

fn is(word: &str, keyword: &str) -> bool {
    word.eq_ignore_ascii_case(keyword)
}

/// Reads lines in the mail grammar. `seats` are the game's seat names: a word
/// that is one of them names the seat of the move after it.
///
/// # Errors
/// The words do not follow the grammar (the error says where), or exceed the
/// bounds ([`check_bounds`]).
pub fn parse_text(text: &str, seats: &[&str]) -> Result<Vec<Line>, GrammarError> {
    let toks = tokens(text);
    let mut lines: Vec<Line> = Vec::new();
    let mut current: Option<Line> = None;
    let mut i = 0;
    let seat_of = |w: &str| seats.iter().find(|s| is(w, s)).map(|s| s.to_ascii_lowercase());
    while i < toks.len() {
        match toks[i] {
            Token::Sep => {
                if let Some(line) = current.take() {
                    lines.push(line);
                }
                i += 1;
                continue;
            }
            Token::Word(w) if is(w, "if") => i += 1,
            Token::Word(w) => {
                return Err(GrammarError::Words(format!(
                    "expected `if` where {w:?} stands: write each line as `if THEIR-MOVE then YOUR-MOVE`, lines separated by commas"
                )));
            }
        }
        // The condition, up to `then`.
        let mut condition = Vec::new();
        let mut pending_seat: Option<String> = None;
        loop {
            let Some(tok) = toks.get(i) else {
                return Err(GrammarError::Words("a line ends before its `then YOUR-MOVE`".into()));
            };
            i += 1;
            let Token::Word(w) = *tok else { continue };
            if is(w, "then") {
                break;
            }
            if is(w, "and") || is(w, "if") {
                continue;
            }
            if let Some((seat, mv)) = w.split_once(':')
                && let Some(seat) = seat_of(seat)
                && !mv.is_empty()
            {
                condition.push(CondMove { seat: Some(seat), text: mv.to_owned() });
                continue;
            }
            if pending_seat.is_none()
                && let Some(seat) = seat_of(w)
            {
                pending_seat = Some(seat);
                continue;
            }
            condition.push(CondMove { seat: pending_seat.take(), text: w.to_owned() });
        }
        if let Some(seat) = pending_seat {
            return Err(GrammarError::Words(format!("the seat {seat} is named without a move after it")));
        }
        if condition.is_empty() {
            return Err(GrammarError::Words("an `if` with no move before its `then`".into()));
        }
        let reply = match toks.get(i) {
            Some(Token::Word(w)) if !is(w, "if") && !is(w, "then") => *w,
            _ => return Err(GrammarError::Words("a `then` with no move after it".into())),
        };
        i += 1;
        current
            .get_or_insert_with(|| Line { steps: Vec::new() })
            .steps
            .push(Step { condition, reply: reply.to_owned() });
        // A line goes on with an `if` right after the reply; anything else ends it.
        match toks.get(i) {
            Some(Token::Word(w)) if is(w, "if") => {}
            Some(Token::Word(w)) => {
                return Err(GrammarError::Words(format!(
                    "{w:?} follows the reply {reply:?}: a reply is one move; end the line with a comma, or go deeper with `if`"
                )));
            }
            _ => {
                if let Some(line) = current.take() {
                    lines.push(line);
                }
            }
        }
    }
    if let Some(line) = current.take() {
        lines.push(line);
    }
    check_bounds(&lines)?;
    Ok(lines)
}

/// Reads the JSON form: each line an array alternating conditions and
/// replies; a condition is a move text, or an object from seat names to move
/// texts (games of three and four seats).
///
/// # Errors
/// Not of that shape (the error shows it), or beyond the bounds.
pub fn parse_json(lines: &Value) -> Result<Vec<Line>, GrammarError> {
    let shape = r#"{"lines": [["Nf6", "e5"], ["Nc6", "Nf3", "d6", "d4"]]} (a condition may be an object {"west": "Nc6", "north": "e5"})"#;
    let bad = |what: String| GrammarError::Words(format!("{what}; send {shape}"));
    let Value::Array(items) = lines else { return Err(bad("\"lines\" must be an array of lines".into())) };
    if items.len() > MAX_LINES {
        return Err(too_many_lines(items.len()));
    }
    let mut out = Vec::with_capacity(items.len());
    for (n, item) in items.iter().enumerate() {
        let Value::Array(words) = item else { return Err(bad(format!("line {} is not an array", n + 1))) };
        if words.is_empty() || words.len() % 2 != 0 {
            return Err(bad(format!(
                "line {} has {} entries; a line alternates condition and reply, so it has an even number, at least 2",
                n + 1,
                words.len()
            )));
        }
        if words.len() / 2 > MAX_STEPS {
            return Err(too_many_steps(n + 1, words.len() / 2));
        }
        let mut steps = Vec::new();
        for (k, pair) in words.chunks(2).enumerate() {
            let at = format!("line {} step {}", n + 1, k + 1);
            let condition = match &pair[0] {
                Value::String(s) => vec![CondMove { seat: None, text: s.trim().to_owned() }],
                Value::Object(map) if !map.is_empty() => map
                    .iter()
                    .map(|(seat, mv)| match mv {
                        Value::String(s) => {
                            Ok(CondMove { seat: Some(seat.trim().to_ascii_lowercase()), text: s.trim().to_owned() })
                        }
                        _ => Err(bad(format!("{at}: the move of {seat} is not a string"))),
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(bad(format!("{at}: a condition is a move text or an object of seat names to moves"))),
            };
            let Value::String(reply) = &pair[1] else {
                return Err(bad(format!("{at}: the reply is not a move text")));
            };
            steps.push(Step { condition, reply: reply.trim().to_owned() });
        }
        out.push(Line { steps });
    }
    check_bounds(&out)?;
    Ok(out)
}

fn too_many_lines(n: usize) -> GrammarError {
    GrammarError::TooLarge(format!("{n} lines were sent; a seat keeps at most {MAX_LINES} conditional lines per game"))
}

fn too_many_steps(line: usize, n: usize) -> GrammarError {
    GrammarError::TooLarge(format!(
        "line {line} has {n} steps; a line holds at most {MAX_STEPS} (condition and reply each)"
    ))
}

/// The bounds: [`MAX_LINES`] lines, [`MAX_STEPS`] steps each, moves of at
/// most [`MAX_MOVE_BYTES`] bytes, none empty.
///
/// # Errors
/// Which bound was passed, and where.
pub fn check_bounds(lines: &[Line]) -> Result<(), GrammarError> {
    if lines.len() > MAX_LINES {
        return Err(too_many_lines(lines.len()));
    }
    for (n, line) in lines.iter().enumerate() {
        if line.steps.len() > MAX_STEPS {
            return Err(too_many_steps(n + 1, line.steps.len()));
        }
        for (k, step) in line.steps.iter().enumerate() {
            let texts = step.condition.iter().map(|c| c.text.as_str()).chain(std::iter::once(step.reply.as_str()));
            for t in texts {
                if t.is_empty() {
                    return Err(GrammarError::Words(format!("line {} step {} has an empty move", n + 1, k + 1)));
                }
                if t.len() > MAX_MOVE_BYTES {
                    return Err(GrammarError::TooLarge(format!(
                        "line {} step {}: a move text of {} bytes; moves are at most {MAX_MOVE_BYTES} bytes",
                        n + 1,
                        k + 1,
                        t.len()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The lines in the mail grammar, one line of text each.
pub fn write_text(lines: &[Line]) -> String {
    lines
        .iter()
        .map(|line| {
            line.steps
                .iter()
                .map(|s| {
                    let cond: Vec<String> = s
                        .condition
                        .iter()
                        .map(|c| match &c.seat {
                            Some(seat) => format!("{seat} {}", c.text),
                            None => c.text.clone(),
                        })
                        .collect();
                    format!("if {} then {}", cond.join(" and "), s.reply)
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(",\n")
}

/// The lines in the JSON form [`parse_json`] reads.
pub fn write_json(lines: &[Line]) -> Value {
    Value::Array(
        lines
            .iter()
            .map(|line| {
                Value::Array(
                    line.steps
                        .iter()
                        .flat_map(|s| {
                            let cond = if s.condition.iter().all(|c| c.seat.is_some()) {
                                let map: Map<String, Value> = s
                                    .condition
                                    .iter()
                                    .map(|c| (c.seat.clone().unwrap_or_default(), json!(c.text)))
                                    .collect();
                                Value::Object(map)
                            } else if s.condition.len() == 1 {
                                json!(s.condition[0].text)
                            } else {
                                json!(s.condition.iter().map(|c| c.text.clone()).collect::<Vec<_>>().join(" "))
                            };
                            [cond, json!(s.reply)]
                        })
                        .collect(),
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(cond: &[&str], reply: &str) -> Step {
        Step {
            condition: cond.iter().map(|c| CondMove { seat: None, text: (*c).to_owned() }).collect(),
            reply: reply.to_owned(),
        }
    }

    #[test]
    fn two_lines_and_a_deep_one() {
        let lines = parse_text("if Nf6 then e5, IF Nc6 Then Nf3 if d6 then d4", &["white", "black"]).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].steps, vec![step(&["Nf6"], "e5")]);
        assert_eq!(lines[1].steps, vec![step(&["Nc6"], "Nf3"), step(&["d6"], "d4")]);
    }

    #[test]
    fn newlines_and_semicolons_separate_lines() {
        let lines = parse_text("\n if e5 then Nf3;\nif c5 then Nf3\n\n", &[]).unwrap();
        assert_eq!(lines.len(), 2);
    }

    #[test]
    fn seats_name_the_moves_of_a_condition() {
        let lines =
            parse_text("if west Nc6, North:e5 and east d5 then d4", &["south", "west", "north", "east"]).unwrap();
        let c = &lines[0].steps[0].condition;
        assert_eq!(c.len(), 3);
        assert_eq!(c[0], CondMove { seat: Some("west".into()), text: "Nc6".into() });
        assert_eq!(c[1], CondMove { seat: Some("north".into()), text: "e5".into() });
        assert_eq!(c[2].seat.as_deref(), Some("east"));
    }

    #[test]
    fn mistakes_are_named() {
        assert!(matches!(parse_text("Nf6 then e5", &[]), Err(GrammarError::Words(m)) if m.contains("expected `if`")));
        assert!(parse_text("if Nf6", &[]).is_err());
        assert!(parse_text("if then e5", &[]).is_err());
        assert!(parse_text("if Nf6 then", &[]).is_err());
        assert!(matches!(parse_text("if Nf6 then e5 d4", &[]), Err(GrammarError::Words(m)) if m.contains("one move")));
        assert!(parse_text("if west then e5", &["west"]).is_err());
    }

    #[test]
    fn bounds_are_refused() {
        let many = vec!["if e5 then Nf3"; MAX_LINES + 1].join(", ");
        assert!(matches!(parse_text(&many, &[]), Err(GrammarError::TooLarge(_))));
        let deep = vec!["if e5 then Nf3"; MAX_STEPS + 1].join(" ");
        assert!(matches!(parse_text(&deep, &[]), Err(GrammarError::TooLarge(m)) if m.contains("steps")));
        let long = format!("if {} then e4", "x".repeat(MAX_MOVE_BYTES + 1));
        assert!(matches!(parse_text(&long, &[]), Err(GrammarError::TooLarge(m)) if m.contains("bytes")));
        assert!(parse_text(&vec!["if e5 then Nf3"; MAX_LINES].join(", "), &[]).is_ok());
    }

    #[test]
    fn json_reads_and_writes_back() {
        let v = json!([["Nf6", "e5"], ["Nc6", "Nf3", "d6", "d4"], [{"west": "Nc6", "north": "e5"}, "d4"]]);
        let lines = parse_json(&v).unwrap();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2].steps[0].condition.len(), 2);
        assert_eq!(write_json(&lines), v);
        let text = write_text(&lines);
        assert_eq!(parse_text(&text, &["west", "north"]).unwrap(), lines);
    }

    #[test]
    fn json_mistakes_are_named() {
        assert!(parse_json(&json!("if e5 then d4")).is_err());
        assert!(parse_json(&json!([["e5"]])).is_err());
        assert!(parse_json(&json!([[1, "e5"]])).is_err());
        assert!(parse_json(&json!([[]])).is_err());
        let many: Vec<Value> = (0..=MAX_LINES).map(|_| json!(["e5", "d4"])).collect();
        assert!(matches!(parse_json(&Value::Array(many)), Err(GrammarError::TooLarge(_))));
    }
}
