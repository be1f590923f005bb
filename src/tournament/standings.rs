// STAND-IN for slice A: the lead takes A's file at merge.
//! The table (stand-in).

use crate::rules::Score;

/// A finished game as the table counts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoredGame {
    /// The player in each seat.
    pub players: Vec<usize>,
    /// Each seat's score.
    pub scores: Vec<Score>,
}

/// The tie-break: your score times each opponent's total, summed (quarter points).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tiebreak(pub u64);

impl std::fmt::Display for Tiebreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0 as f64 / 4.0)
    }
}

impl serde::Serialize for Tiebreak {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0 as f64 / 4.0)
    }
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Standing {
    /// The player.
    pub player: usize,
    /// 1-based; tied players share.
    pub rank: usize,
    /// Points.
    pub points: Score,
    /// The tie-break.
    pub tiebreak: Tiebreak,
    /// Games won.
    pub wins: u32,
    /// Games played.
    pub played: u32,
}

/// The table, best first.
pub fn standings(players: usize, games: &[ScoredGame]) -> Vec<Standing> {
    let mut points = vec![Score(0); players];
    let mut wins = vec![0u32; players];
    let mut played = vec![0u32; players];
    for g in games {
        let best = g.scores.iter().copied().max().unwrap_or_default();
        let all_equal = g.scores.iter().all(|&s| s == best);
        for (&p, &s) in g.players.iter().zip(&g.scores) {
            points[p] = points[p] + s;
            played[p] += 1;
            if s == best && !all_equal {
                wins[p] += 1;
            }
        }
    }
    let mut tb = vec![0u64; players];
    for g in games {
        for (i, (&p, &s)) in g.players.iter().zip(&g.scores).enumerate() {
            for (j, &q) in g.players.iter().enumerate() {
                if i != j {
                    tb[p] += u64::from(s.0) * u64::from(points[q].0);
                }
            }
        }
    }
    let mut lines: Vec<Standing> = (0..players)
        .map(|p| Standing {
            player: p,
            rank: 0,
            points: points[p],
            tiebreak: Tiebreak(tb[p]),
            wins: wins[p],
            played: played[p],
        })
        .collect();
    lines.sort_by(|a, b| {
        (b.points, b.tiebreak, b.wins).cmp(&(a.points, a.tiebreak, a.wins)).then(a.player.cmp(&b.player))
    });
    for i in 0..lines.len() {
        let tied = i > 0
            && (lines[i].points, lines[i].tiebreak, lines[i].wins)
                == (lines[i - 1].points, lines[i - 1].tiebreak, lines[i - 1].wins);
        lines[i].rank = if tied { lines[i - 1].rank } else { i + 1 };
    }
    lines
}
