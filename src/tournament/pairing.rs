//! Who plays whom, in which seat and in which round: the plan of a tournament.
//!
//! Two-seat games are paired by the Berger tables (FIDE Handbook C.05,
//! Annex 1): every player meets every other once, the colours alternate as the
//! tables alternate them, and an odd number of players adds a bye. Games of
//! three and four seats are paired by a balanced design: every player plays
//! the same number of games, every two players meet equally often (within one
//! where no exact design exists) and every player takes each seat equally
//! often (within one). The design is found by a deterministic local search (a
//! fixed seed): the same call always gives the same plan. `docs/tournaments.md`
//! ("Pairing") explains both with examples.

use std::collections::BTreeSet;

/// One game of a tournament's plan: its round (1..) and the player (index into the
/// tournament's players, 0..) in each seat, in seat order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlannedGame {
    /// The round, from 1: no player plays twice in one round.
    pub round: u32,
    /// The player in each seat, in seat order.
    pub players: Vec<usize>,
}

/// The most players a tournament of a two-seat game takes (a round robin of 64
/// is 2016 games, or 4032 double).
pub const MAX_PLAYERS_TWO_SEATS: usize = 64;

/// The most players a tournament of a game of three or four seats takes: the
/// balanced designs are searched for, and the search is bounded.
pub const MAX_PLAYERS_MORE_SEATS: usize = 20;

/// Why a tournament cannot be paired.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    /// The game has fewer than two or more than four seats.
    #[error("a game of {seats} seats cannot be paired: tournaments pair games of 2, 3 or 4 seats")]
    Seats {
        /// The seats of the game.
        seats: usize,
    },
    /// Fewer players than the game has seats.
    #[error("{players} players are too few for a game of {seats} seats: a tournament needs at least {seats}")]
    TooFewPlayers {
        /// The players given.
        players: usize,
        /// The seats of the game.
        seats: usize,
    },
    /// More players than a tournament of this game takes.
    #[error(
        "{players} players are too many for one tournament of a {seats}-seat game: at most {max}; split them into groups"
    )]
    TooManyPlayers {
        /// The players given.
        players: usize,
        /// The seats of the game.
        seats: usize,
        /// The most this game takes.
        max: usize,
    },
    /// Teams asked for a game that is not of four seats.
    #[error("teams pair games of four seats (two against two); this game has {seats}: leave teams off")]
    TeamsNeedFourSeats {
        /// The seats of the game.
        seats: usize,
    },
    /// The search found no balanced plan (no case from 2 to the maximum of
    /// players does this; the tests walk them all).
    #[error("no balanced plan found for {players} players of a {seats}-seat game: try one player more or fewer")]
    NoBalancedPlan {
        /// The players given.
        players: usize,
        /// The seats of the game.
        seats: usize,
    },
}

/// The games of a tournament of `players` players of a `seats`-seat game: `double` plays
/// everything twice (two-seat: colours swapped); `teams` (four seats only) balances partners
/// (seats 0 and 2 against 1 and 3, as the four-seat game's teams mode seats them: South
/// and North against West and East).
///
/// Two seats: the Berger tables, rounds 1 to n−1 (n even; n odd plays n rounds, one
/// player free in each), the second cycle of a double round robin after them with
/// colours swapped. More seats: every player plays the same number of games, pairs
/// meet equally often within one, seats are taken equally often within one, and with
/// `teams` every two players are partners equally often within one; rounds group the
/// games so that nobody plays twice in a round. The plan is the same for the same
/// arguments.
///
/// # Errors
/// A [`PairingError`] saying what to change: seats other than 2 to 4, fewer players
/// than seats, more than [`MAX_PLAYERS_TWO_SEATS`] or [`MAX_PLAYERS_MORE_SEATS`],
/// or teams for a game that is not of four seats.
///
/// ```
/// use fairsteward::tournament::pairing::pair;
///
/// let plan = pair(4, 2, false, false).unwrap();
/// let round_1: Vec<_> = plan.iter().filter(|g| g.round == 1).map(|g| g.players.clone()).collect();
/// assert_eq!(round_1, [vec![0, 3], vec![1, 2]]); // Berger: 1–4, 2–3
/// ```
pub fn pair(players: usize, seats: usize, double: bool, teams: bool) -> Result<Vec<PlannedGame>, PairingError> {
    if !(2..=4).contains(&seats) {
        return Err(PairingError::Seats { seats });
    }
    if teams && seats != 4 {
        return Err(PairingError::TeamsNeedFourSeats { seats });
    }
    if players < seats {
        return Err(PairingError::TooFewPlayers { players, seats });
    }
    let max = if seats == 2 { MAX_PLAYERS_TWO_SEATS } else { MAX_PLAYERS_MORE_SEATS };
    if players > max {
        return Err(PairingError::TooManyPlayers { players, seats, max });
    }
    if seats == 2 {
        return Ok(berger(players, double));
    }
    design(players, seats, double, teams).ok_or(PairingError::NoBalancedPlan { players, seats })
}

/// The Berger tables for `n` players (a dummy added when `n` is odd: its games are the
/// byes), in FIDE's order: round `k` is the circle method's rotation `(k−1)·m/2 mod (m−1)`,
/// player m (the fixed one) White in even rounds, and in every other game the player
/// ahead of the rotation White.
fn berger(n: usize, double: bool) -> Vec<PlannedGame> {
    let m = n + n % 2;
    let dummy = (n % 2 == 1).then_some(m - 1);
    let rounds = m - 1;
    let mut games = Vec::new();
    for cycle in 0..if double { 2 } else { 1 } {
        for k in 1..=rounds {
            let r = ((k - 1) * (m / 2)) % rounds;
            let fixed = m - 1;
            let mut pairs = vec![if k % 2 == 1 { (r, fixed) } else { (fixed, r) }];
            for i in 1..m / 2 {
                pairs.push(((r + i) % rounds, (r + rounds - i) % rounds));
            }
            for (white, black) in pairs {
                if Some(white) == dummy || Some(black) == dummy {
                    continue;
                }
                let players = if cycle == 0 { vec![white, black] } else { vec![black, white] };
                games.push(PlannedGame { round: (cycle * rounds + k) as u32, players });
            }
        }
    }
    games
}

/// A small deterministic generator (SplitMix64) for the searches: a fixed seed, so
/// the same arguments give the same plan on every machine.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A symmetric count per pair of players.
struct PairCounts {
    n: usize,
    counts: Vec<u32>,
}

impl PairCounts {
    fn new(n: usize) -> PairCounts {
        PairCounts { n, counts: vec![0; n * n] }
    }

    fn get(&self, a: usize, b: usize) -> u32 {
        self.counts[a * self.n + b]
    }

    /// Adds `delta` (±1) to the pair and returns the change of Σ count².
    fn add(&mut self, a: usize, b: usize, delta: i64) -> i64 {
        let c = i64::from(self.get(a, b));
        let new = (c + delta).max(0) as u32;
        self.counts[a * self.n + b] = new;
        self.counts[b * self.n + a] = new;
        i64::from(new) * i64::from(new) - c * c
    }
}

/// The smallest Σ c² of `pairs` counts summing to `total`: all within one.
fn balanced_cost(total: u64, pairs: u64) -> i64 {
    let lambda = total / pairs;
    let extra = total % pairs;
    ((pairs - extra) * lambda * lambda + extra * (lambda + 1) * (lambda + 1)) as i64
}

/// How many moves one attempt of the design search tries.
const SEARCH_STEPS: usize = 400_000;
/// Attempts (fresh seeds) per number of games before more games are tried.
const SEARCH_ATTEMPTS: u64 = 4;

/// A plan for three or four seats: the groups of players (each player in the same
/// number), then partners (teams), then seats, then rounds. A double tournament
/// gives every player twice the games of a single one, in groups searched for
/// afresh so that pairs still meet equally often within one (the groups of the
/// single plan twice over only when no such groups are found). When partners or
/// seats cannot be balanced on one set of groups, the next set found is tried.
fn design(n: usize, k: usize, double: bool, teams: bool) -> Option<Vec<PlannedGame>> {
    let least = (n - 1).div_ceil(k - 1);
    let single: Vec<usize> = (least..=least + 2 * k).filter(|r| (n * r).is_multiple_of(k)).collect();
    // When the players divide into whole games, first in rounds where everyone plays.
    let in_rounds: &[bool] = if n.is_multiple_of(k) { &[true, false] } else { &[false] };
    let tries: Vec<(usize, bool, u64)> = single
        .iter()
        .flat_map(|&r| {
            in_rounds.iter().flat_map(move |&whole| {
                (0..SEARCH_ATTEMPTS).map(move |attempt| (if double { 2 * r } else { r }, whole, attempt))
            })
        })
        .collect();
    let mut fallback = None;
    // Of the plans found for the first workable number of games, the one with
    // the fewest rounds (the earliest on a tie).
    let mut best: Option<(usize, Vec<PlannedGame>)> = None;
    for (r, whole, attempt) in tries {
        if best.as_ref().is_some_and(|(found, _)| *found != r) {
            break;
        }
        let Some(mut games) = balanced_blocks(n, k, r, whole, attempt) else { continue };
        if fallback.is_none() && double {
            // The first single plan found, played twice, if nothing better is.
            fallback =
                single.iter().find_map(|&r| (0..SEARCH_ATTEMPTS).find_map(|a| balanced_blocks(n, k, r, false, a)));
        }
        if let Some(plan) = seat_and_round(n, k, teams, whole, &mut games) {
            let rounds = |p: &[PlannedGame]| p.last().map_or(0, |g| g.round);
            if best.as_ref().is_none_or(|(_, b)| rounds(&plan) < rounds(b)) {
                best = Some((r, plan));
            }
        }
    }
    if let Some((_, plan)) = best {
        return Some(plan);
    }
    let single = fallback?;
    let mut twice: Vec<Vec<usize>> =
        single.iter().cloned().chain(single.iter().map(|b| b.iter().rev().copied().collect())).collect();
    seat_and_round(n, k, teams, false, &mut twice)
}

/// Partners (teams), seats and rounds for the groups `games`; `whole`: the groups
/// come in rounds of `n / k` in which everyone plays, and keep them.
fn seat_and_round(n: usize, k: usize, teams: bool, whole: bool, games: &mut [Vec<usize>]) -> Option<Vec<PlannedGame>> {
    if teams {
        partners(n, games)?;
        team_seats(n, games)?;
    } else {
        seats(n, k, games)?;
    }
    let rounds = if whole { (0..games.len()).map(|g| (g / (n / k) + 1) as u32).collect() } else { rounds(games) };
    let mut plan: Vec<PlannedGame> =
        games.iter().cloned().zip(rounds).map(|(players, round)| PlannedGame { round, players }).collect();
    plan.sort_by_key(|g| g.round);
    Some(plan)
}

/// Groups of `k` of the `n` players, each player in `r` of them (`n·r` divisible by
/// `k`), every two players together equally often within one; `attempt` seeds the
/// search. The search swaps players between groups (which keeps every player's
/// count) and keeps a swap that does not raise Σ (pair count)², with a little slack
/// to leave local minima; the balanced sum is known in advance, so success is
/// recognised exactly. With `whole` (`k` divides `n`), the groups come in rounds of
/// `n / k` that hold every player once, and swaps stay within a round.
fn balanced_blocks(n: usize, k: usize, r: usize, whole: bool, attempt: u64) -> Option<Vec<Vec<usize>>> {
    let pairs = (n * (n - 1) / 2) as u64;
    let games = n * r / k;
    let target = balanced_cost((games * k * (k - 1) / 2) as u64, pairs);
    let seed = 0x5eed_0031 ^ ((n as u64) << 32) ^ ((k as u64) << 24) ^ ((r as u64) << 8) ^ attempt;
    let mut rng = Mix(seed ^ u64::from(whole) << 4);
    let round = if whole { n / k } else { games };
    search_blocks(n, k, games, round, target, &mut rng)
}

/// The search of [`balanced_blocks`]: swaps stay within runs of `round` groups.
fn search_blocks(
    n: usize,
    k: usize,
    games: usize,
    round: usize,
    target: i64,
    rng: &mut Mix,
) -> Option<Vec<Vec<usize>>> {
    // Deal the players round and round: no group repeats a player since k ≤ n,
    // and when k divides n every run of n / k groups holds every player once.
    let mut groups: Vec<Vec<usize>> = (0..games).map(|g| (0..k).map(|i| (g * k + i) % n).collect()).collect();
    let mut counts = PairCounts::new(n);
    let mut cost = 0;
    for g in &groups {
        for (i, &a) in g.iter().enumerate() {
            for &b in &g[i + 1..] {
                cost += counts.add(a, b, 1);
            }
        }
    }
    if games < 2 {
        return (cost == target).then_some(groups);
    }
    for _ in 0..SEARCH_STEPS {
        if cost == target {
            break;
        }
        let ga = rng.below(games);
        let gb = if round >= games { rng.below(games) } else { ga - ga % round + rng.below(round) };
        let (ia, ib) = (rng.below(k), rng.below(k));
        let (x, y) = (groups[ga][ia], groups[gb][ib]);
        if ga == gb || groups[ga].contains(&y) || groups[gb].contains(&x) {
            continue;
        }
        let delta = swap(&mut counts, &mut groups, (ga, ia), (gb, ib));
        // Keep improvements and sideways steps; a small rise now and then.
        if delta <= 0 || (delta <= 2 && rng.below(16) == 0) {
            cost += delta;
        } else {
            swap(&mut counts, &mut groups, (ga, ia), (gb, ib));
        }
    }
    (cost == target).then(|| {
        for g in &mut groups {
            g.sort_unstable();
        }
        if round >= games {
            groups.sort();
        }
        groups
    })
}

/// Swaps the player at `a` (group, place) with the one at `b`, updating the pair
/// counts; returns the change of Σ count². Swapping again undoes it.
fn swap(counts: &mut PairCounts, groups: &mut [Vec<usize>], a: (usize, usize), b: (usize, usize)) -> i64 {
    let (x, y) = (groups[a.0][a.1], groups[b.0][b.1]);
    let mut delta = 0;
    for (g, place, out, into) in [(a.0, a.1, x, y), (b.0, b.1, y, x)] {
        for (i, &other) in groups[g].iter().enumerate() {
            if i != place {
                delta += counts.add(out, other, -1);
                delta += counts.add(into, other, 1);
            }
        }
    }
    groups[a.0][a.1] = y;
    groups[b.0][b.1] = x;
    delta
}

/// Seats each game so that every player takes each seat equally often within one
/// (de Werra's equitable edge colouring of the players–games graph): while some
/// player sits in seat `a` at least twice more than in seat `b`, walk from it along
/// games where the walker sits in `a`, swapping it with the game's `b` player, until
/// the player reached is no longer out of balance.
fn seats(n: usize, k: usize, games: &mut [Vec<usize>]) -> Option<()> {
    let mut count = vec![vec![0i64; k]; n];
    for g in games.iter() {
        for (s, &p) in g.iter().enumerate() {
            count[p][s] += 1;
        }
    }
    let bound = 4 * games.len() * k * k + 16;
    for _ in 0..bound {
        let found = (0..n).find_map(|p| {
            let (hi, lo) = ((0..k).max_by_key(|&s| (count[p][s], k - s))?, (0..k).min_by_key(|&s| (count[p][s], s))?);
            (count[p][hi] >= count[p][lo] + 2).then_some((p, hi, lo))
        });
        let Some((mut walker, a, b)) = found else { return Some(()) };
        let mut visited = vec![false; games.len()];
        while let Some(g) = (0..games.len()).find(|&g| !visited[g] && games[g][a] == walker) {
            visited[g] = true;
            let other = games[g][b];
            games[g].swap(a, b);
            count[walker][a] -= 1;
            count[walker][b] += 1;
            count[other][b] -= 1;
            count[other][a] += 1;
            if count[other][a] - count[other][b] < 2 {
                break;
            }
            walker = other;
        }
    }
    None
}

/// The three ways of splitting four places into two pairs: places 0 and 2 against
/// 1 and 3 after the permutation.
const SPLITS: [[usize; 4]; 3] = [[0, 1, 2, 3], [0, 2, 1, 3], [0, 1, 3, 2]];

/// Chooses each four-player game's teams so that every two players are partners
/// equally often within one, by a local search on Σ (partner count)². Afterwards
/// places 0 and 2 of each game are partners, as are 1 and 3.
fn partners(n: usize, games: &mut [Vec<usize>]) -> Option<()> {
    let mut counts = PairCounts::new(n);
    let mut cost = 0;
    for g in games.iter() {
        cost += counts.add(g[0], g[2], 1) + counts.add(g[1], g[3], 1);
    }
    let target = balanced_cost(2 * games.len() as u64, (n * (n - 1) / 2) as u64);
    let mut rng = Mix(0x7ea_0031 ^ n as u64 ^ ((games.len() as u64) << 16));
    for _ in 0..SEARCH_STEPS {
        if cost == target {
            return Some(());
        }
        let g = rng.below(games.len());
        let split = SPLITS[1 + rng.below(2)];
        let old = games[g].clone();
        let new: Vec<usize> = split.iter().map(|&i| old[i]).collect();
        let delta = counts.add(old[0], old[2], -1)
            + counts.add(old[1], old[3], -1)
            + counts.add(new[0], new[2], 1)
            + counts.add(new[1], new[3], 1);
        if delta <= 0 || (delta <= 2 && rng.below(16) == 0) {
            games[g] = new;
            cost += delta;
        } else {
            counts.add(new[0], new[2], -1);
            counts.add(new[1], new[3], -1);
            counts.add(old[0], old[2], 1);
            counts.add(old[1], old[3], 1);
        }
    }
    (cost == target).then_some(())
}

/// The eight seatings that keep a game's teams: either team on seats 0 and 2, and
/// either partner first.
const TEAM_SEATINGS: [[usize; 4]; 8] =
    [[0, 1, 2, 3], [2, 1, 0, 3], [0, 3, 2, 1], [2, 3, 0, 1], [1, 0, 3, 2], [3, 0, 1, 2], [1, 2, 3, 0], [3, 2, 1, 0]];

/// Seats each team game (teams kept) so that every player takes each seat equally
/// often within one, by a local search on Σ (seat count)².
fn team_seats(n: usize, games: &mut [Vec<usize>]) -> Option<()> {
    let mut count = vec![[0i64; 4]; n];
    for g in games.iter() {
        for (s, &p) in g.iter().enumerate() {
            count[p][s] += 1;
        }
    }
    let balanced =
        |count: &[[i64; 4]]| count.iter().all(|c| c.iter().max().unwrap_or(&0) - c.iter().min().unwrap_or(&0) <= 1);
    let mut rng = Mix(0x5ea7_0031 ^ n as u64 ^ ((games.len() as u64) << 16));
    for _ in 0..SEARCH_STEPS {
        if balanced(&count) {
            return Some(());
        }
        let g = rng.below(games.len());
        let old = games[g].clone();
        let seating = TEAM_SEATINGS[1 + rng.below(7)];
        let new: Vec<usize> = seating.iter().map(|&i| old[i]).collect();
        let mut delta = 0;
        for s in 0..4 {
            for (p, d) in [(old[s], -1), (new[s], 1)] {
                let c = count[p][s];
                delta += (c + d) * (c + d) - c * c;
                count[p][s] += d;
            }
        }
        if delta <= 0 || (delta <= 2 && rng.below(16) == 0) {
            games[g] = new;
        } else {
            for s in 0..4 {
                count[new[s]][s] -= 1;
                count[old[s]][s] += 1;
            }
        }
    }
    balanced(&count).then_some(())
}

/// A round (from 1) for each group, so that no player is in two groups of one round:
/// a greedy colouring of the groups that share a player, the most constrained group
/// first (DSatur), the lowest free round each time.
fn rounds(groups: &[Vec<usize>]) -> Vec<u32> {
    let clash = |a: usize, b: usize| groups[a].iter().any(|p| groups[b].contains(p));
    let mut round: Vec<Option<u32>> = vec![None; groups.len()];
    for _ in 0..groups.len() {
        let taken = |g: usize, round: &[Option<u32>]| -> BTreeSet<u32> {
            (0..groups.len()).filter(|&o| o != g && clash(g, o)).filter_map(|o| round[o]).collect()
        };
        let next = (0..groups.len())
            .filter(|&g| round[g].is_none())
            .max_by_key(|&g| (taken(g, &round).len(), std::cmp::Reverse(g)));
        let Some(g) = next else { break };
        let used = taken(g, &round);
        round[g] = Some((1..).find(|r| !used.contains(r)).unwrap_or(1));
    }
    round.into_iter().map(|r| r.unwrap_or(1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIDE Handbook C.05 Annex 1, the table for 5 or 6 players.
    #[test]
    fn berger_table_for_six() {
        let plan = pair(6, 2, false, false).unwrap();
        let round = |r: u32| -> Vec<(usize, usize)> {
            plan.iter().filter(|g| g.round == r).map(|g| (g.players[0] + 1, g.players[1] + 1)).collect()
        };
        assert_eq!(round(1), [(1, 6), (2, 5), (3, 4)]);
        assert_eq!(round(2), [(6, 4), (5, 3), (1, 2)]);
        assert_eq!(round(3), [(2, 6), (3, 1), (4, 5)]);
        assert_eq!(round(4), [(6, 5), (1, 4), (2, 3)]);
        assert_eq!(round(5), [(3, 6), (4, 2), (5, 1)]);
        // Five players: the same table, player 6's games are the byes.
        let five = pair(5, 2, false, false).unwrap();
        assert_eq!(five.len(), 10);
        assert!(five.iter().all(|g| g.players.iter().all(|&p| p < 5)));
        assert_eq!(
            five.iter().filter(|g| g.round == 2).map(|g| g.players.clone()).collect::<Vec<_>>(),
            [vec![4, 2], vec![0, 1]]
        );
    }

    #[test]
    fn double_round_robin_swaps_colours() {
        let plan = pair(4, 2, true, false).unwrap();
        assert_eq!(plan.len(), 12);
        let first: Vec<_> = plan.iter().filter(|g| g.round <= 3).collect();
        let second: Vec<_> = plan.iter().filter(|g| g.round > 3).collect();
        for (a, b) in first.iter().zip(&second) {
            assert_eq!(b.round, a.round + 3);
            assert_eq!(b.players, [a.players[1], a.players[0]]);
        }
    }

    #[test]
    fn refusals_say_what_to_change() {
        assert_eq!(pair(2, 5, false, false), Err(PairingError::Seats { seats: 5 }));
        assert_eq!(pair(2, 3, false, false), Err(PairingError::TooFewPlayers { players: 2, seats: 3 }));
        assert_eq!(pair(6, 3, false, true), Err(PairingError::TeamsNeedFourSeats { seats: 3 }));
        let e = pair(65, 2, false, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "65 players are too many for one tournament of a 2-seat game: at most 64; split them into groups"
        );
        assert!(pair(21, 4, false, false).is_err());
    }

    #[test]
    fn the_smallest_designs() {
        // Three players of a three-seat game: one game.
        assert_eq!(pair(3, 3, false, false).unwrap(), [PlannedGame { round: 1, players: vec![0, 1, 2] }]);
        // Seven of three seats: the Fano plane, every pair once, three games each.
        let fano = pair(7, 3, false, false).unwrap();
        assert_eq!(fano.len(), 7);
        // Nine of three seats: four rounds of three games, everyone in every round.
        let nine = pair(9, 3, false, false).unwrap();
        assert_eq!(nine.len(), 12);
        assert!((1..=4).all(|r| nine.iter().filter(|g| g.round == r).count() == 3));
        // Five of four seats: every group of four, each pair three times.
        assert_eq!(pair(5, 4, false, false).unwrap().len(), 5);
    }

    #[test]
    fn the_plan_is_the_same_every_time() {
        assert_eq!(pair(10, 4, true, true), pair(10, 4, true, true));
        assert_eq!(pair(11, 3, false, false), pair(11, 3, false, false));
    }
}
