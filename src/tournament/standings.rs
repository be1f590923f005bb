//! The tournament table: points, the tie-break, wins, the direct encounter, ranks.
//!
//! Every seat's score comes from its game's own scoring
//! ([`Variant::tournament_scores`](crate::rules::Variant::tournament_scores)), in
//! half points, so every sum here is exact. The tie-break is Sonneborn-Berger,
//! read pairwise so that it serves games of any number of seats: in each game, a
//! player gets the tournament total of every opponent who scored less in that
//! game, and half the total of every opponent who scored the same. With two
//! seats that is exactly Sonneborn-Berger (opponents beaten, plus half of those
//! drawn; each game of a double round robin counts). `docs/tournaments.md`
//! ("Scoring and tie-breaks") works examples.

use std::cmp::Ordering;
use std::fmt;

use crate::rules::Score;

/// A finished game as the table counts it: the player in each seat and each seat's score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoredGame {
    /// The player (index into the tournament's players) in each seat, in seat order.
    pub players: Vec<usize>,
    /// Each seat's score, in seat order.
    pub scores: Vec<Score>,
}

/// The tie-break, exact: a whole number of quarter points (a half of a half point).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tiebreak(u64);

impl Tiebreak {
    /// A tie-break of `quarters` quarter points.
    pub const fn from_quarters(quarters: u64) -> Tiebreak {
        Tiebreak(quarters)
    }

    /// The tie-break in quarter points.
    pub const fn quarters(self) -> u64 {
        self.0
    }
}

/// As a decimal, exactly: `12`, `12.25`, `12.5`, `12.75`.
impl fmt::Display for Tiebreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / 4;
        match self.0 % 4 {
            1 => write!(f, "{whole}.25"),
            2 => write!(f, "{whole}.5"),
            3 => write!(f, "{whole}.75"),
            _ => write!(f, "{whole}"),
        }
    }
}

/// As a JSON number: `12`, `12.25` (quarters are exact in binary).
impl serde::Serialize for Tiebreak {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(4) {
            serializer.serialize_u64(self.0 / 4)
        } else {
            serializer.serialize_f64(self.0 as f64 / 4.0)
        }
    }
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct Standing {
    /// The player (index into the tournament's players).
    pub player: usize,
    /// The place, from 1; players still level after every tie-break share it
    /// (1, 2, 2, 4).
    pub rank: usize,
    /// The player's points, the sum of their scores.
    #[schema(value_type = f64)]
    pub points: Score,
    /// Sonneborn-Berger, or its pairwise reading for games of more seats.
    #[schema(value_type = f64)]
    pub tiebreak: Tiebreak,
    /// Games won: the game's top score, held by at most half its seats (a lone
    /// winner, or a winning team of two out of four).
    pub wins: u32,
    /// Games counted.
    pub played: u32,
}

/// `2 ×` what the player in place `i` of `game` earns against the one in place
/// `j`: 2 for scoring more, 1 for the same, 0 for less.
fn versus(game: &ScoredGame, i: usize, j: usize) -> u64 {
    match game.scores[i].cmp(&game.scores[j]) {
        Ordering::Greater => 2,
        Ordering::Equal => 1,
        Ordering::Less => 0,
    }
}

/// Whether a game can be counted: as many scores as seats, players in range and
/// none twice. A game that is not is left out rather than trusted.
fn well_formed(players: usize, game: &ScoredGame) -> bool {
    let p = &game.players;
    p.len() == game.scores.len()
        && p.len() >= 2
        && p.iter().all(|&x| x < players)
        && p.iter().enumerate().all(|(i, x)| !p[..i].contains(x))
}

/// Whether the player in place `i` won `game` (see [`Standing::wins`]).
fn is_win(game: &ScoredGame, i: usize) -> bool {
    let top = game.scores.iter().copied().max().unwrap_or_default();
    let at_top = game.scores.iter().filter(|&&s| s == top).count();
    game.scores[i] == top && 2 * at_top <= game.scores.len()
}

/// The table of `players` players after `games`, best first: by points, then the
/// tie-break, then wins, then the direct encounter among the players still level
/// (what each scored, pairwise as the tie-break reads a game, against the others
/// of that group in the games they shared); players level on all four share a
/// rank and are listed by index. Malformed games (scores and players of different
/// lengths, a player out of range or twice) are left out.
///
/// ```
/// use fairsteward::rules::Score;
/// use fairsteward::tournament::standings::{ScoredGame, standings};
///
/// let win = |w: usize, l: usize| ScoredGame { players: vec![w, l], scores: vec![Score(2), Score(0)] };
/// let table = standings(3, &[win(0, 1), win(1, 2), win(2, 0)]);
/// // Everyone 1 point and a Sonneborn-Berger of 1: all share first place.
/// assert!(table.iter().all(|s| s.rank == 1 && s.points == Score(2) && s.tiebreak.to_string() == "1"));
/// ```
pub fn standings(players: usize, games: &[ScoredGame]) -> Vec<Standing> {
    let games: Vec<&ScoredGame> = games.iter().filter(|g| well_formed(players, g)).collect();
    let mut points = vec![Score(0); players];
    let mut wins = vec![0u32; players];
    let mut played = vec![0u32; players];
    for g in &games {
        for (i, &p) in g.players.iter().enumerate() {
            points[p] += g.scores[i];
            played[p] += 1;
            wins[p] += u32::from(is_win(g, i));
        }
    }
    let mut tiebreak = vec![0u64; players];
    for g in &games {
        for (i, &p) in g.players.iter().enumerate() {
            for (j, &o) in g.players.iter().enumerate() {
                if i != j {
                    tiebreak[p] += versus(g, i, j) * u64::from(points[o].halves());
                }
            }
        }
    }
    let key = |p: usize| (points[p], tiebreak[p], wins[p]);
    let mut order: Vec<usize> = (0..players).collect();
    order.sort_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));
    // The direct encounter, within each group level on the first three.
    let mut direct = vec![0u64; players];
    let mut start = 0;
    while start < players {
        let len = order[start..].iter().take_while(|&&p| key(p) == key(order[start])).count();
        let group = &order[start..start + len];
        if len > 1 {
            for g in &games {
                for (i, &p) in g.players.iter().enumerate() {
                    if !group.contains(&p) {
                        continue;
                    }
                    for (j, &o) in g.players.iter().enumerate() {
                        if i != j && group.contains(&o) {
                            direct[p] += versus(g, i, j);
                        }
                    }
                }
            }
        }
        start += len;
    }
    let full = |p: usize| (points[p], tiebreak[p], wins[p], direct[p]);
    order.sort_by(|&a, &b| full(b).cmp(&full(a)).then(a.cmp(&b)));
    let mut table: Vec<Standing> = Vec::with_capacity(players);
    for (at, &p) in order.iter().enumerate() {
        let rank = match table.last() {
            Some(prev) if full(prev.player) == full(p) => prev.rank,
            _ => at + 1,
        };
        table.push(Standing {
            player: p,
            rank,
            points: points[p],
            tiebreak: Tiebreak(tiebreak[p]),
            wins: wins[p],
            played: played[p],
        });
    }
    table
}

/// The crosstable of `players` players after `games`: cell `[i][j]` holds what
/// player `i` scored in each game (in the order of `games`) that `i` and `j` played
/// together; the diagonal is empty. Malformed games are left out as in [`standings`].
pub fn crosstable(players: usize, games: &[ScoredGame]) -> Vec<Vec<Vec<Score>>> {
    let mut table = vec![vec![Vec::new(); players]; players];
    for g in games.iter().filter(|g| well_formed(players, g)) {
        for (i, &p) in g.players.iter().enumerate() {
            for &o in &g.players {
                if o != p {
                    table[p][o].push(g.scores[i]);
                }
            }
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(players: &[usize], halves: &[u32]) -> ScoredGame {
        ScoredGame { players: players.to_vec(), scores: halves.iter().map(|&h| Score(h)).collect() }
    }

    /// Four players, single round robin: A beats B and C, draws D; B beats C and
    /// D; C draws D. Points: A 2½, B 2, C ½, D 1. SB: A = B 2 + C ½ + ½·D 1 = 3;
    /// B = C ½ + D 1 = 1½; C = ½·D 1 = ½; D = ½·A 2½ + ½·C ½ = 1½.
    #[test]
    fn sonneborn_berger_by_hand() {
        let (a, b, c, d) = (0, 1, 2, 3);
        let games = [
            game(&[a, b], &[2, 0]),
            game(&[c, a], &[0, 2]),
            game(&[a, d], &[1, 1]),
            game(&[b, c], &[2, 0]),
            game(&[d, b], &[0, 2]),
            game(&[c, d], &[1, 1]),
        ];
        let table = standings(4, &games);
        let line = |p: usize| table.iter().find(|s| s.player == p).unwrap().clone();
        assert_eq!(line(a).points, Score(5));
        assert_eq!(line(a).tiebreak.to_string(), "3");
        assert_eq!(line(b).tiebreak.to_string(), "1.5");
        assert_eq!(line(c).tiebreak.to_string(), "0.5");
        assert_eq!(line(d).tiebreak.to_string(), "1.5");
        assert_eq!(table.iter().map(|s| (s.player, s.rank)).collect::<Vec<_>>(), [(a, 1), (b, 2), (d, 3), (c, 4)]);
        assert_eq!((line(a).wins, line(a).played), (2, 3));
        assert_eq!(serde_json::to_value(line(b)).unwrap()["tiebreak"], serde_json::json!(1.5));
    }

    /// Level on points, SB and wins: the direct encounter decides; level on that
    /// too, the rank is shared.
    #[test]
    fn direct_encounter_then_shared_rank() {
        // 0 beat 1; both drew everyone else, and 2 and 3 drew each other.
        let games = [
            game(&[0, 1], &[2, 0]),
            game(&[1, 0], &[2, 0]),
            game(&[0, 2], &[1, 1]),
            game(&[1, 2], &[1, 1]),
            game(&[2, 3], &[1, 1]),
        ];
        let table = standings(4, &games);
        let ranks: Vec<(usize, usize)> = table.iter().map(|s| (s.player, s.rank)).collect();
        // 0 and 1: 1½ each, SB 2¼, one win; they split their games: shared.
        assert_eq!(ranks[..2], [(0, 1), (1, 1)]);
        let lone = standings(3, &[game(&[0, 1], &[2, 0]), game(&[1, 2], &[2, 0]), game(&[2, 0], &[2, 0])]);
        assert!(lone.iter().all(|s| s.rank == 1));
        // 0 beat 1, 2 beat 0, 1 beat 3, 3 beat 4: 0, 1 and 2 have 1 point, SB 1
        // and one win each; among them 0 and 2 scored 1 and 1 nothing.
        let decided = standings(
            5,
            &[game(&[0, 1], &[2, 0]), game(&[2, 0], &[2, 0]), game(&[1, 3], &[2, 0]), game(&[3, 4], &[2, 0])],
        );
        let ranks: Vec<(usize, usize)> = decided.iter().map(|s| (s.player, s.rank)).collect();
        assert_eq!(ranks, [(0, 1), (2, 1), (1, 3), (3, 4), (4, 5)]);
    }

    /// Three seats, 3 / 1 / 0: the pairwise reading (winner beats both, the 1
    /// beats the 0).
    #[test]
    fn pairwise_tiebreak_for_three_seats() {
        let games = [game(&[0, 1, 2], &[6, 2, 0]), game(&[1, 2, 0], &[2, 2, 2])];
        // Totals: 0: 3 + 1 = 4, 1: 1 + 1 = 2, 2: 0 + 1 = 1 (halves 8, 4, 2).
        let table = standings(3, &games);
        let tb = |p: usize| table.iter().find(|s| s.player == p).unwrap().tiebreak;
        // 0: game 1 beats 1 (2) and 2 (1) = 3; game 2 draws both: ½·2 + ½·1 = 1½ → 4½.
        assert_eq!(tb(0).to_string(), "4.5");
        // 1: beats 2 (1), loses to 0; then ½·4 + ½·1 = 2½ → 3½.
        assert_eq!(tb(1).to_string(), "3.5");
        // 2: loses to both, then ½·4 + ½·2 = 3.
        assert_eq!(tb(2).to_string(), "3");
        assert_eq!(table.iter().map(|s| s.wins).collect::<Vec<_>>(), [1, 0, 0]);
    }

    #[test]
    fn malformed_games_are_left_out() {
        let games = [game(&[0, 0], &[2, 0]), game(&[0, 7], &[2, 0]), game(&[0, 1], &[2]), game(&[0, 1], &[1, 1])];
        let table = standings(2, &games);
        assert!(table.iter().all(|s| s.played == 1 && s.points == Score(1)));
        let cross = crosstable(2, &games);
        assert_eq!(cross[0][1], [Score(1)]);
        assert!(cross[0][0].is_empty());
    }
}
