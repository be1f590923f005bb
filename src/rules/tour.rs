//! A narrated sample game a variant may offer: what `fairsteward demo` plays.
//!
//! The tour is the variant's own: its moves, the statuses the steward must give
//! them and the words that explain each turn. The demo only plays it through the
//! API and checks the steward's answers against it, so it works for whichever
//! variant [`VariantId::tour`] names.

use super::VariantId;

/// A scripted game with a story.
#[derive(Debug)]
pub struct Tour {
    /// The variant it is played in.
    pub variant: VariantId,
    /// The game's name as the narration writes it.
    pub title: &'static str,
    /// What one turn is called (`pair`), in the singular.
    pub turn_word: &'static str,
    /// The players, in seat order: name and address.
    pub players: &'static [(&'static str, &'static str)],
    /// The turns, in order.
    pub turns: &'static [TourTurn],
    /// How the game ends: the result as the API writes it (`0-1`), and the reason.
    pub ending: (&'static str, &'static str),
}

/// One turn of a [`Tour`].
#[derive(Debug)]
pub struct TourTurn {
    /// The moves as the players type them, in seat order (every seat to move).
    pub moves: &'static [&'static str],
    /// The status the steward must give each move (`played`, `first`, `struck`).
    pub statuses: &'static [&'static str],
    /// What to tell the reader.
    pub narration: &'static str,
}

impl VariantId {
    /// The tour `fairsteward demo` plays: the headline game's
    /// ([`VariantId::HEADLINE`]).
    pub fn tour() -> &'static Tour {
        &super::fairschach::tour::TOUR
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Options, Seat};

    /// The tour is legal and its statuses and ending are what the rules say.
    #[test]
    fn the_tour_plays_as_narrated() {
        let tour = VariantId::tour();
        assert_eq!(tour.variant, VariantId::HEADLINE);
        let rules = tour.variant.rulebook(&Options::new()).unwrap();
        assert_eq!(tour.players.len(), rules.seat_names().len());
        let mut history = Vec::new();
        let mut state = rules.start();
        let mut outcome = None;
        for (n, turn) in tour.turns.iter().enumerate() {
            assert!(outcome.is_none(), "the game ended before turn {}", n + 1);
            let to_move: Vec<Seat> = rules.seats_to_move(&state).unwrap().iter().collect();
            assert_eq!(to_move.len(), turn.moves.len(), "turn {}", n + 1);
            let moves: Vec<(Seat, String)> =
                to_move.iter().zip(turn.moves).map(|(s, m)| (*s, (*m).to_owned())).collect();
            let r = rules.resolve(&history, &state, &moves).unwrap_or_else(|e| panic!("turn {}: {e}", n + 1));
            let statuses: Vec<&str> = r.moves.iter().map(|m| m.result.as_str()).collect();
            assert_eq!(statuses, turn.statuses, "turn {}", n + 1);
            history.push(std::mem::replace(&mut state, r.state));
            outcome = r.outcome;
        }
        let o = outcome.expect("the tour ends the game");
        assert_eq!((o.result.score_text(tour.players.len()).as_str(), o.reason.as_str()), tour.ending);
    }
}
