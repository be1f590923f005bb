//! What an `action:` envelope asks for: a resignation, a draw offer, accept or
//! decline, or leave. In a game with `auth = signature` these need the seat's
//! signature as moves do, so they travel in the same envelope (docs/trust.md):
//!
//! ```text
//! -----BEGIN FAIRSTEWARD MOVE-----
//! game: 8KQ2ZJ
//! seat: white
//! turn: 12
//! action: resign
//! nonce: 4f1c9a0b7e2d51aa
//! sig: <base64>
//! -----END FAIRSTEWARD MOVE-----
//! ```
//!
//! The value is one of `resign`, `draw-offer`, `draw-accept`, `draw-decline` or
//! `leave FROM TO` (dates `YYYY-MM-DD`, both days included). The turn is the turn
//! now owed, so a signed action cannot be replayed later in the game.

use std::fmt;
use std::str::FromStr;

use chrono::NaiveDate;

/// An action a seat signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `resign`.
    Resign,
    /// `draw-offer`.
    OfferDraw,
    /// `draw-accept`.
    AcceptDraw,
    /// `draw-decline`.
    DeclineDraw,
    /// `leave FROM TO`: the player's leave (it stops the clocks of all their games).
    Leave {
        /// The first day.
        from: NaiveDate,
        /// The last day.
        to: NaiveDate,
    },
}

/// What `action:` may hold, for error messages.
pub const ACTION_VALUES: &str =
    "resign, draw-offer, draw-accept, draw-decline or leave YYYY-MM-DD YYYY-MM-DD (first and last day)";

impl Action {
    /// The transcript kind of the event this action leads to (`resigned`,
    /// `draw_offered`, `draw_declined` or `leave`).
    pub fn event_kind(&self) -> &'static str {
        match self {
            Action::Resign => "resigned",
            Action::OfferDraw | Action::AcceptDraw => "draw_offered",
            Action::DeclineDraw => "draw_declined",
            Action::Leave { .. } => "leave",
        }
    }
}

impl Action {
    /// The HTTP path that takes a signed envelope holding this action (POST, the
    /// envelope as the body).
    pub fn http_path(&self, game: &str) -> String {
        match self {
            Action::Resign => format!("/api/games/{game}/resign"),
            Action::OfferDraw | Action::AcceptDraw | Action::DeclineDraw => format!("/api/games/{game}/draw"),
            Action::Leave { .. } => "/api/leave".to_owned(),
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Resign => f.write_str("resign"),
            Action::OfferDraw => f.write_str("draw-offer"),
            Action::AcceptDraw => f.write_str("draw-accept"),
            Action::DeclineDraw => f.write_str("draw-decline"),
            Action::Leave { from, to } => write!(f, "leave {} {}", from.format("%Y-%m-%d"), to.format("%Y-%m-%d")),
        }
    }
}

/// An `action:` value that is none of [`ACTION_VALUES`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an action; write one of {ACTION_VALUES}")]
pub struct BadAction(pub String);

impl FromStr for Action {
    type Err = BadAction;

    /// Reads an action; case and runs of white space are not held against it.
    fn from_str(s: &str) -> Result<Action, BadAction> {
        let words: Vec<String> = s.split_whitespace().map(str::to_ascii_lowercase).collect();
        let date = crate::clock::leave::parse_day;
        let action = match words.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["resign"] => Some(Action::Resign),
            ["draw-offer"] => Some(Action::OfferDraw),
            ["draw-accept"] => Some(Action::AcceptDraw),
            ["draw-decline"] => Some(Action::DeclineDraw),
            ["leave", from, to] => match (date(from), date(to)) {
                (Some(from), Some(to)) => Some(Action::Leave { from, to }),
                _ => None,
            },
            _ => None,
        };
        action.ok_or_else(|| BadAction(s.chars().take(80).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_reads_back_as_printed() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        for a in [
            Action::Resign,
            Action::OfferDraw,
            Action::AcceptDraw,
            Action::DeclineDraw,
            Action::Leave { from: d("2026-12-24"), to: d("2027-01-02") },
        ] {
            assert_eq!(a.to_string().parse::<Action>(), Ok(a));
        }
        assert_eq!(" RESIGN ".parse::<Action>(), Ok(Action::Resign));
        for bad in ["", "resign now", "draw", "leave 2026-12-24", "leave 2026-02-30 2026-03-01", "move"] {
            assert!(bad.parse::<Action>().is_err(), "{bad:?}");
        }
    }
}
