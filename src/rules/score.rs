//! A seat's score in one game, as a tournament table counts it, in half points
//! of the game's own scale (see [`Variant::tournament_scores`](super::Variant::tournament_scores)).

use std::fmt;

/// A seat's score in one game, in half points of the game's own scale:
/// `Score(2)` is 1, `Score(1)` is ½, a three-point score is `Score(6)`.
///
/// Half points keep every score exact: draws, shared places and the
/// tie-breaks built on them never round.
///
/// ```
/// use fairsteward::rules::Score;
///
/// assert_eq!(Score::whole(1) + Score(1), Score(3));
/// assert_eq!(Score(3).to_string(), "1½");
/// assert_eq!(serde_json::to_string(&Score(3)).unwrap(), "1.5");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub u32);

impl Score {
    /// The score in half points.
    pub const fn halves(self) -> u32 {
        self.0
    }

    /// A score of `points` whole points.
    pub const fn whole(points: u32) -> Score {
        Score(points.saturating_mul(2))
    }
}

impl std::ops::Add for Score {
    type Output = Score;

    fn add(self, other: Score) -> Score {
        Score(self.0.saturating_add(other.0))
    }
}

impl std::ops::AddAssign for Score {
    fn add_assign(&mut self, other: Score) {
        *self = *self + other;
    }
}

impl std::iter::Sum for Score {
    fn sum<I: Iterator<Item = Score>>(iter: I) -> Score {
        iter.fold(Score(0), |a, b| a + b)
    }
}

impl<'a> std::iter::Sum<&'a Score> for Score {
    fn sum<I: Iterator<Item = &'a Score>>(iter: I) -> Score {
        iter.copied().sum()
    }
}

/// As tables print it: `0`, `½`, `1`, `1½`, `3`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0 / 2, self.0 % 2) {
            (0, 1) => f.write_str("½"),
            (whole, 1) => write!(f, "{whole}½"),
            (whole, _) => write!(f, "{whole}"),
        }
    }
}

/// As a JSON number: `1`, `0.5`, `1.5` (a whole score has no fraction).
impl serde::Serialize for Score {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(2) {
            serializer.serialize_u32(self.0 / 2)
        } else {
            serializer.serialize_f64(f64::from(self.0) / 2.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_print_as_tables_do() {
        let shown: Vec<String> = (0..6).map(|h| Score(h).to_string()).collect();
        assert_eq!(shown, ["0", "½", "1", "1½", "2", "2½"]);
        assert_eq!(Score::whole(3), Score(6));
        assert_eq!(Score::whole(3).halves(), 6);
        assert_eq!([Score(1), Score(2), Score(1)].iter().sum::<Score>(), Score(4));
        let json: Vec<String> = [0, 1, 2, 3].map(|h| serde_json::to_string(&Score(h)).unwrap()).to_vec();
        assert_eq!(json, ["0", "0.5", "1", "1.5"]);
    }

    /// Places by elimination: out first 0, then 1, …; level seats share.
    #[test]
    fn elimination_places() {
        use crate::rules::{GameResult, Seat, SeatSet, elimination_scores, result_scores};
        let halves = |v: Vec<Score>| v.into_iter().map(Score::halves).collect::<Vec<_>>();
        let win = GameResult::Win(Seat::new(2));
        assert_eq!(halves(elimination_scores(&[Some(5), Some(2), None, Some(9)], win)), [2, 0, 6, 4]);
        // Two out in the same state share places 0 and 1.
        assert_eq!(halves(elimination_scores(&[Some(4), Some(4), None], GameResult::Win(Seat::new(2)))), [1, 1, 4]);
        // A draw among the three still in after one left: 2 each.
        let standing = SeatSet::EMPTY.with(Seat::new(0)).with(Seat::new(1)).with(Seat::new(3));
        assert_eq!(
            halves(elimination_scores(&[None, None, Some(3), None], GameResult::DrawAmong(standing))),
            [4, 4, 0, 4]
        );
        assert_eq!(halves(elimination_scores(&[None; 4], GameResult::Draw)), [3, 3, 3, 3]);
        assert_eq!(halves(result_scores(3, GameResult::points(&[3, 1, 0]))), [6, 2, 0]);
        assert_eq!(halves(result_scores(2, GameResult::Draw)), [1, 1]);
    }
}
