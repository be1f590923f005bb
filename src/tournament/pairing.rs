// STAND-IN for slice A: the lead takes A's file at merge.
//! Who plays whom (stand-in: circle method for two seats, every group otherwise).

/// One game of a tournament's plan: its round (1..) and the player in each seat.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlannedGame {
    /// The round, from 1.
    pub round: u32,
    /// The player (index) in each seat, in seat order.
    pub players: Vec<usize>,
}

/// Why no plan can be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    /// Fewer players than seats.
    #[error("a tournament of a {seats}-seat game needs at least {seats} players, {players} given")]
    TooFewPlayers {
        /// Players given.
        players: usize,
        /// Seats of the game.
        seats: usize,
    },
    /// Teams mode for a game without four seats.
    #[error("teams mode needs a four-seat game")]
    TeamsNeedFourSeats,
}

/// The games of a tournament of `players` players of a `seats`-seat game.
///
/// # Errors
/// Too few players; teams without four seats.
pub fn pair(players: usize, seats: usize, double: bool, teams: bool) -> Result<Vec<PlannedGame>, PairingError> {
    if players < seats || seats < 2 {
        return Err(PairingError::TooFewPlayers { players, seats });
    }
    if teams && seats != 4 {
        return Err(PairingError::TeamsNeedFourSeats);
    }
    let mut games = Vec::new();
    if seats == 2 {
        let n = players + players % 2;
        let mut ring: Vec<usize> = (0..n).collect();
        for r in 0..n - 1 {
            for i in 0..n / 2 {
                let (a, b) = (ring[i], ring[n - 1 - i]);
                if a < players && b < players {
                    let flip = if i == 0 { r % 2 == 1 } else { i % 2 == 1 };
                    let pair = if flip { vec![b, a] } else { vec![a, b] };
                    games.push(PlannedGame { round: r as u32 + 1, players: pair });
                }
            }
            let last = ring.pop().unwrap_or(0);
            ring.insert(1, last);
        }
        if double {
            let rounds = (n - 1) as u32;
            let back: Vec<_> = games
                .iter()
                .map(|g| PlannedGame { round: g.round + rounds, players: vec![g.players[1], g.players[0]] })
                .collect();
            games.extend(back);
        }
        return Ok(games);
    }
    let mut groups = Vec::new();
    subsets(players, seats, 0, &mut Vec::new(), &mut groups);
    let times = if double { 2 } else { 1 };
    let mut k = 0;
    for _ in 0..times {
        for g in &groups {
            let mut seated = g.clone();
            seated.rotate_left(k % seats);
            k += 1;
            games.push(PlannedGame { round: 0, players: seated });
        }
    }
    // Rounds: each game in the first round where none of its players plays yet.
    let mut busy: Vec<Vec<usize>> = Vec::new();
    for g in &mut games {
        let r = busy.iter().position(|b| g.players.iter().all(|p| !b.contains(p))).unwrap_or_else(|| {
            busy.push(Vec::new());
            busy.len() - 1
        });
        busy[r].extend(&g.players);
        g.round = r as u32 + 1;
    }
    games.sort_by_key(|g| g.round);
    Ok(games)
}

fn subsets(n: usize, k: usize, from: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if cur.len() == k {
        out.push(cur.clone());
        return;
    }
    for i in from..n {
        cur.push(i);
        subsets(n, k, i + 1, cur, out);
        cur.pop();
    }
}
