//! The plans of `tournament::pair` for every number of players from the seats to
//! 12 (and for three and four seats up to the largest tournament it takes), single
//! and double, with and without teams: every player plays as many games as every
//! other, every two players meet equally often within one (and at least once),
//! every player takes each seat equally often within one, partners are spread
//! evenly, and nobody plays twice in a round.

use std::collections::BTreeMap;

use fairsteward::tournament::pairing::{MAX_PLAYERS_MORE_SEATS, PlannedGame, pair};

/// What a plan does for its players, counted.
struct Balance {
    games_per_player: Vec<usize>,
    meetings: BTreeMap<(usize, usize), usize>,
    seats: Vec<Vec<usize>>,
    partners: BTreeMap<(usize, usize), usize>,
}

fn count(n: usize, k: usize, plan: &[PlannedGame]) -> Balance {
    let mut b = Balance {
        games_per_player: vec![0; n],
        meetings: BTreeMap::new(),
        seats: vec![vec![0; k]; n],
        partners: BTreeMap::new(),
    };
    for a in 0..n {
        for c in a + 1..n {
            b.meetings.insert((a, c), 0);
            b.partners.insert((a, c), 0);
        }
    }
    for g in plan {
        assert_eq!(g.players.len(), k, "a game of {k} seats: {g:?}");
        for (s, &p) in g.players.iter().enumerate() {
            b.games_per_player[p] += 1;
            b.seats[p][s] += 1;
            for &o in &g.players[s + 1..] {
                *b.meetings.get_mut(&(p.min(o), p.max(o))).expect("two different players") += 1;
            }
        }
        if k == 4 {
            for (x, y) in [(g.players[0], g.players[2]), (g.players[1], g.players[3])] {
                *b.partners.get_mut(&(x.min(y), x.max(y))).expect("two different players") += 1;
            }
        }
    }
    b
}

fn spread<'a>(values: impl IntoIterator<Item = &'a usize>) -> (usize, usize) {
    values.into_iter().fold((usize::MAX, 0), |(lo, hi), &v| (lo.min(v), hi.max(v)))
}

/// Checks one plan and returns games per player, for the summary.
fn check(n: usize, k: usize, double: bool, teams: bool) -> usize {
    let case = format!("{n} players, {k} seats, double {double}, teams {teams}");
    let plan = pair(n, k, double, teams).unwrap_or_else(|e| panic!("{case}: {e}"));
    if n <= 12 {
        assert_eq!(plan, pair(n, k, double, teams).unwrap(), "{case}: the same plan every time");
    }
    let b = count(n, k, &plan);
    let (lo, hi) = spread(&b.games_per_player);
    assert_eq!(lo, hi, "{case}: every player plays as many games: {:?}", b.games_per_player);
    let (lo, hi) = spread(b.meetings.values());
    assert!(lo >= 1 && hi - lo <= 1, "{case}: pairs meet {lo} to {hi} times");
    for (p, seats) in b.seats.iter().enumerate() {
        let (lo, hi) = spread(seats);
        assert!(hi - lo <= 1, "{case}: player {p} takes the seats {seats:?} times");
    }
    if teams {
        let (lo, hi) = spread(b.partners.values());
        assert!(hi - lo <= 1, "{case}: partners {lo} to {hi} times");
    }
    // Rounds: numbered from 1 without gaps, nobody twice in one.
    let mut rounds: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for g in &plan {
        rounds.entry(g.round).or_default().extend(&g.players);
    }
    assert_eq!(rounds.keys().copied().collect::<Vec<_>>(), (1..=rounds.len() as u32).collect::<Vec<_>>(), "{case}");
    for (r, players) in &rounds {
        let mut sorted = players.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), players.len(), "{case}: a player twice in round {r}");
    }
    if k == 2 {
        let cycles = if double { 2 } else { 1 };
        assert!(b.meetings.values().all(|&m| m == cycles), "{case}: every pair meets {cycles} time(s)");
        assert_eq!(rounds.len(), cycles * (n - 1 + n % 2), "{case}: the Berger rounds");
        if double {
            // Each pair once with each colours.
            let mut white: BTreeMap<(usize, usize), usize> = BTreeMap::new();
            for g in &plan {
                *white.entry((g.players[0], g.players[1])).or_default() += 1;
            }
            assert!(white.values().all(|&w| w == 1), "{case}: colours swapped in the second cycle");
        }
    }
    b.games_per_player[0]
}

#[test]
fn two_seats_round_robin_from_2_to_12() {
    for n in 2..=12 {
        for double in [false, true] {
            let games = check(n, 2, double, false);
            assert_eq!(games, (n - 1) * if double { 2 } else { 1 });
        }
    }
}

/// Berger colours: in a single round robin no player has more than one White
/// (or Black) more than the other colour.
#[test]
fn berger_colours_are_balanced() {
    for n in 2..=16 {
        let plan = pair(n, 2, false, false).unwrap();
        let mut white = vec![0i64; n];
        for g in &plan {
            white[g.players[0]] += 1;
            white[g.players[1]] -= 1;
        }
        assert!(white.iter().all(|w| w.abs() <= 1), "{n} players: White minus Black {white:?}");
    }
}

#[test]
fn three_seats_from_3_to_12() {
    let mut summary = Vec::new();
    for n in 3..=12 {
        for double in [false, true] {
            summary.push(format!("{n}{}: {}", if double { "d" } else { "" }, check(n, 3, double, false)));
        }
    }
    eprintln!("three seats, games per player: {}", summary.join(", "));
}

#[test]
fn four_seats_from_4_to_12() {
    let mut summary = Vec::new();
    for n in 4..=12 {
        for double in [false, true] {
            summary.push(format!("{n}{}: {}", if double { "d" } else { "" }, check(n, 4, double, false)));
        }
    }
    eprintln!("four seats, games per player: {}", summary.join(", "));
}

#[test]
fn four_seats_in_teams_from_4_to_12() {
    for n in 4..=12 {
        for double in [false, true] {
            check(n, 4, double, true);
        }
    }
}

/// The cases the issue names: a 6-player three-seat tournament (six games, three
/// each, one in every seat) and a 5-player four-seat one (every group of four:
/// each pair meets three times, everyone once in every seat).
#[test]
fn the_issues_cases() {
    let six = pair(6, 3, false, false).unwrap();
    assert_eq!(six.len(), 6);
    assert!(count(6, 3, &six).seats.iter().all(|s| s == &[1, 1, 1]));
    let five = pair(5, 4, false, false).unwrap();
    assert_eq!(five.len(), 5);
    let b = count(5, 4, &five);
    assert!(b.meetings.values().all(|&m| m == 3));
    assert!(b.seats.iter().all(|s| s == &[1, 1, 1, 1]));
}

/// Beyond 12, up to the largest tournament `pair` takes: still a balanced plan,
/// single and double, with and without teams.
#[test]
fn larger_tournaments_up_to_the_limit() {
    for k in [3, 4] {
        for n in 13..=MAX_PLAYERS_MORE_SEATS {
            for double in [false, true] {
                check(n, k, double, false);
                if k == 4 {
                    check(n, k, double, true);
                }
            }
        }
    }
}
