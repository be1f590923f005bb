//! Move text (`docs/rules/trialectic-dame.md` §6): reading what a player writes,
//! apart from judging it.
//!
//! A move is written as its cells: a step `126-117`, a capture as the start and
//! every landing cell joined by `x` (`144x342x540`; `-` and `x` are
//! interchangeable in input), a placement `@333`. A text is accepted when it
//! names exactly one legal move: an exact path first, else (two cells only) the
//! one capture with that start and final cell.

use super::moves::{DameMove, Play};
use super::record::{Board, CellId};
use super::state::{DameState, EMPTY};
use crate::rules::MoveError;

/// Move text as read, before it is judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// `@cell`.
    Place(CellId),
    /// Cells joined by `-` or `x`.
    Cells(Vec<CellId>),
}

/// The longest text read as a move: a path of this many cells at most.
const MAX_CELLS: usize = 64;

fn is_separator(c: char) -> bool {
    matches!(c, '-' | 'x' | '–' | '—' | '−' | '×')
}

/// Reads move text on `board` (§6 syntax), without a position.
///
/// # Errors
/// [`MoveError::NotAMove`], saying what was expected.
pub fn read(board: &Board, text: &str) -> Result<Written, MoveError> {
    let t = text.trim();
    let not = |why: String| MoveError::NotAMove { text: t.to_owned(), why };
    if let Some(rest) = t.strip_prefix('@') {
        return board
            .cell(rest)
            .map(Written::Place)
            .ok_or_else(|| not(format!("a placement is @ and a cell, and there is no cell {rest:?}")));
    }
    let parts: Vec<&str> = t.split(is_separator).collect();
    if parts.len() < 2 {
        return Err(not(
            "write a move as its cells: a step as from-to, a capture as the start and every landing cell joined \
             by x, a placement as @ and the cell"
                .to_owned(),
        ));
    }
    if parts.len() > MAX_CELLS {
        return Err(not(format!("a path of more than {MAX_CELLS} cells")));
    }
    let mut cells = Vec::with_capacity(parts.len());
    for p in parts {
        if p.is_empty() {
            return Err(not("a cell is missing between two separators".to_owned()));
        }
        match board.cell(p) {
            Some(c) => cells.push(c),
            None => return Err(not(format!("there is no cell {p:?} on this board"))),
        }
    }
    Ok(Written::Cells(cells))
}

/// At most this many possible moves are named in a refusal.
const SHOWN: usize = 12;

fn possible(legal: &[DameMove]) -> String {
    let mut names: Vec<&str> = legal.iter().take(SHOWN).map(|m| m.text.as_str()).collect();
    if legal.len() > SHOWN {
        names.push("…");
    }
    names.join(" ")
}

/// Finds the legal move that `text` names, for the seat to move in `state`
/// whose legal moves are `legal`.
///
/// # Errors
/// Not a move, not legal (with the reason and the possible moves), ambiguous.
pub fn find(
    board: &Board,
    state: &DameState,
    seat: usize,
    legal: &[DameMove],
    text: &str,
) -> Result<DameMove, MoveError> {
    let written = read(board, text)?;
    let t = text.trim().to_owned();
    let illegal = |reason: String| MoveError::Illegal { text: t.clone(), reason };
    if legal.is_empty() {
        return Err(illegal(format!("{} has no legal move now", seat_word(seat))));
    }
    let placing = legal.iter().any(|m| matches!(m.play, Play::Place(_)));
    let capturing = legal.iter().any(|m| matches!(m.play, Play::Capture { .. }));
    match written {
        Written::Place(c) => {
            if let Some(m) = legal.iter().find(|m| m.play == Play::Place(c)) {
                return Ok(m.clone());
            }
            let why = if !placing {
                "placements are only for the first turn in setup variant 2".to_owned()
            } else if state.cells[c as usize] != EMPTY {
                format!("{} is not empty", board.name(c))
            } else {
                format!("{} is on another seat's baseline or a corner of yours", board.name(c))
            };
            Err(illegal(format!("{why}; possible: {}", possible(legal))))
        }
        Written::Cells(cells) => {
            if let Some(m) = legal.iter().find(|m| !matches!(m.play, Play::Place(_)) && m.play.cells() == cells) {
                return Ok(m.clone());
            }
            let (from, to) = (cells[0], *cells.last().expect("two cells"));
            if cells.len() == 2 {
                let fits: Vec<&DameMove> = legal
                    .iter()
                    .filter(|m| matches!(&m.play, Play::Capture { path, .. } if path[0] == from && path.last() == Some(&to)))
                    .collect();
                match fits.as_slice() {
                    [one] => return Ok((*one).clone()),
                    [] => {}
                    many => {
                        return Err(MoveError::Ambiguous {
                            text: t,
                            candidates: many.iter().map(|m| m.text.clone()).collect(),
                        });
                    }
                }
            }
            let stone = state.cells[from as usize];
            let why = if placing {
                "your first turn is placing your 12th stone: write @ and a cell".to_owned()
            } else if stone == EMPTY {
                format!("there is no stone on {}", board.name(from))
            } else if !state.controls(seat, stone) {
                let owner = state.control[super::state::colour(stone)] as usize;
                format!("the stone on {} is {}'s", board.name(from), seat_word(owner))
            } else if capturing && legal.iter().any(|m| m.play.cells().starts_with(&cells)) {
                "a capture goes on until no jump is left: write every landing cell".to_owned()
            } else if capturing {
                "capturing is compulsory".to_owned()
            } else {
                format!("the stone on {} cannot go to {}", board.name(from), board.name(to))
            };
            Err(illegal(format!("{why}; possible: {}", possible(legal))))
        }
    }
}

fn seat_word(s: usize) -> &'static str {
    super::turn::seat_word(s)
}

/// Whether `text` reads as a move on `board` (§6), legal or not.
pub fn is_move_text(board: &Board, text: &str) -> bool {
    read(board, text).is_ok()
}

/// The help text's forms, with examples from `legal` (any seat's moves).
pub fn forms(legal: &[DameMove]) -> String {
    let step = legal.iter().find(|m| matches!(m.play, Play::Step(..))).map(|m| m.text.as_str());
    let capture = legal.iter().find(|m| matches!(m.play, Play::Capture { .. })).map(|m| m.text.as_str());
    let place = legal.iter().find(|m| matches!(m.play, Play::Place(_))).map(|m| m.text.as_str());
    let like = |example: Option<&str>| example.map(|e| format!(", like {e}")).unwrap_or_default();
    let mut parts = vec![
        format!("a step as from-to{}", like(step)),
        format!(
            "a capture as the start and every landing cell joined by x{} (start and final cell are enough when \
             only one capture fits)",
            like(capture)
        ),
    ];
    if let Some(p) = place {
        parts.push(format!("your 12th stone as @ and its cell, like {p}"));
    }
    format!("write moves like this: {}", parts.join("; "))
}
