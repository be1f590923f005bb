//! The standings of `tournament::standings` against an independent computation
//! (`data/sb.py`, Python with exact fractions): a 5-player and a 6-player double
//! round robin of a two-seat game with wins, draws and losses, and a 6-player
//! three-seat tournament in the game's own points; and the games' own scores
//! through `Variant::tournament_scores`, as the steward will ask them.

use std::io::Write;
use std::process::{Command, Stdio};

use fairsteward::rules::{EndReason, GameResult, Options, Outcome, Score, Seat, SeatSet, VariantId};
use fairsteward::tournament::pairing::{PlannedGame, pair};
use fairsteward::tournament::standings::{ScoredGame, Standing, crosstable, standings};

/// What `data/sb.py` says of `games`: per player (points, SB, wins) as fraction text.
fn python_table(players: usize, games: &[ScoredGame]) -> Vec<(String, String, u32)> {
    let points = |s: Score| {
        if s.halves().is_multiple_of(2) {
            serde_json::json!(s.halves() / 2)
        } else {
            serde_json::json!(f64::from(s.halves()) / 2.0)
        }
    };
    let input = serde_json::json!({
        "players": players,
        "games": games.iter().map(|g| serde_json::json!({
            "players": g.players,
            "scores": g.scores.iter().map(|&s| points(s)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/tournament/data/sb.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (scripts/test installs it)");
    child.stdin.take().expect("stdin").write_all(input.to_string().as_bytes()).expect("written");
    let out = child.wait_with_output().expect("sb.py ends");
    assert!(out.status.success(), "sb.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("sb.py prints JSON");
    rows.iter()
        .map(|r| {
            (
                r["points"].as_str().unwrap().to_owned(),
                r["sb"].as_str().unwrap().to_owned(),
                r["wins"].as_u64().unwrap() as u32,
            )
        })
        .collect()
}

/// A score or tie-break as Python's `Fraction` prints it ("5", "11/2", "45/4").
fn fraction(numerator: u64, denominator: u64) -> String {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let g = gcd(numerator, denominator).max(1);
    let (a, b) = (numerator / g, denominator / g);
    if b == 1 { a.to_string() } else { format!("{a}/{b}") }
}

/// Compares the table with Python's and checks its order: points, then SB, then wins.
fn compare(players: usize, games: &[ScoredGame]) -> Vec<Standing> {
    let table = standings(players, games);
    let python = python_table(players, games);
    assert_eq!(table.len(), players);
    for s in &table {
        let (points, sb, wins) = &python[s.player];
        assert_eq!(&fraction(u64::from(s.points.halves()), 2), points, "player {}: points", s.player);
        assert_eq!(&fraction(s.tiebreak.quarters(), 4), sb, "player {}: Sonneborn-Berger", s.player);
        assert_eq!(s.wins, *wins, "player {}: wins", s.player);
        assert_eq!(s.played as usize, games.iter().filter(|g| g.players.contains(&s.player)).count());
    }
    for w in table.windows(2) {
        let key = |s: &Standing| (s.points, s.tiebreak, s.wins);
        assert!(key(&w[0]) >= key(&w[1]), "best first: {:?} before {:?}", w[0], w[1]);
        assert!(w[1].rank >= w[0].rank, "ranks ascend");
    }
    assert_eq!(table[0].rank, 1);
    table
}

/// A two-seat game's result by a fixed pattern: wins for White, for Black, and draws.
fn two_seat_result(i: usize, g: &PlannedGame) -> GameResult {
    match (i * 7 + g.players[0] * 3 + g.players[1]) % 5 {
        0 | 3 => GameResult::Win(Seat::new(0)),
        1 => GameResult::Win(Seat::new(1)),
        _ => GameResult::Draw,
    }
}

/// Plays a two-seat double round robin by the pattern, scoring through the game's hook.
fn two_seat_double(players: usize, variant: VariantId) -> Vec<ScoredGame> {
    let rules = variant.rulebook(&Options::new()).unwrap();
    let start = rules.start();
    pair(players, 2, true, false)
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let outcome = Outcome { result: two_seat_result(i, g), reason: EndReason::Agreement };
            let scores = rules.tournament_scores(std::slice::from_ref(&start), &outcome).unwrap();
            ScoredGame { players: g.players.clone(), scores }
        })
        .collect()
}

#[test]
fn five_player_double_round_robin_against_python() {
    let games = two_seat_double(5, VariantId::Chess);
    assert!(games.iter().any(|g| g.scores == [Score(1), Score(1)]), "a draw among the results");
    assert!(games.iter().any(|g| g.scores == [Score(0), Score(2)]), "a Black win");
    let table = compare(5, &games);
    assert!(table.iter().all(|s| s.played == 8));
    let total: u32 = table.iter().map(|s| s.points.halves()).sum();
    assert_eq!(total, 2 * 20, "20 games, one point each");
    let cross = crosstable(5, &games);
    assert!(
        cross
            .iter()
            .enumerate()
            .all(|(i, row)| row.iter().enumerate().all(|(j, c)| c.len() == if i == j { 0 } else { 2 }))
    );
}

#[test]
fn six_player_double_round_robin_against_python() {
    let games = two_seat_double(6, VariantId::Fairschach);
    let table = compare(6, &games);
    assert!(table.iter().all(|s| s.played == 10));
}

/// Three seats in the game's own points (3 / 1 / 0 for a mate, 1 each for a
/// draw, 2 / 2 / 0 for a resignation), read pairwise by both computations.
#[test]
fn six_player_three_seat_tournament_against_python() {
    let rules = VariantId::Dreierschach.rulebook(&Options::new()).unwrap();
    let start = rules.start();
    let results = [[3, 1, 0], [1, 1, 1], [0, 2, 2], [1, 0, 3], [2, 0, 2], [1, 3, 0]];
    let games: Vec<ScoredGame> = pair(6, 3, false, false)
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let outcome = Outcome::points(&results[i % results.len()], EndReason::Checkmate);
            let scores = rules.tournament_scores(std::slice::from_ref(&start), &outcome).unwrap();
            ScoredGame { players: g.players.clone(), scores }
        })
        .collect();
    assert_eq!(games[0].scores, [Score::whole(3), Score::whole(1), Score(0)]);
    compare(6, &games);
}

/// The games' own scoring through the hook: two seats 1 / ½ / 0; three-seat
/// points as they are (an adjudicated win on the same scale); four seats in
/// teams by the team result and in free-for-all, like the three-seat draughts,
/// by the order in which seats left.
#[test]
fn each_game_scores_by_its_own_rules() {
    let rulebook = |v: VariantId, options: &[(&str, &str)]| {
        let o = options.iter().fold(Options::new(), |o, (k, v)| o.set(*k, *v));
        v.rulebook(&o).unwrap()
    };
    let halves = |scores: Vec<Score>| scores.into_iter().map(Score::halves).collect::<Vec<_>>();
    for v in [VariantId::Chess, VariantId::Fairschach, VariantId::TriDChess] {
        let rules = rulebook(v, &[]);
        let start = [rules.start()];
        let win = Outcome::win(Seat::new(1), EndReason::Checkmate);
        assert_eq!(halves(rules.tournament_scores(&start, &win).unwrap()), [0, 2], "{v}");
        assert_eq!(halves(rules.tournament_scores(&start, &Outcome::draw(EndReason::Agreement)).unwrap()), [1, 1]);
    }
    let three = rulebook(VariantId::Dreierschach, &[]);
    let start = [three.start()];
    let adjudicated = Outcome::win(Seat::new(2), EndReason::Time);
    assert_eq!(halves(three.tournament_scores(&start, &adjudicated).unwrap()), [0, 0, 6]);

    let teams = rulebook(VariantId::Vierschach, &[]);
    let start = [teams.start()];
    let won = Outcome {
        result: GameResult::Winners(SeatSet::EMPTY.with(Seat::new(1)).with(Seat::new(3))),
        reason: EndReason::Checkmate,
    };
    assert_eq!(halves(teams.tournament_scores(&start, &won).unwrap()), [0, 2, 0, 2]);

    // Free-for-all: West resigns, then East, then South: North is last standing.
    let ffa = rulebook(VariantId::Vierschach, &[("mode", "ffa")]);
    let mut history = vec![ffa.start()];
    let mut outcome = None;
    for seat in [1, 3, 0] {
        let (next, _, end) = ffa.retire(history.last().unwrap(), Seat::new(seat)).unwrap();
        history.push(next);
        outcome = end;
    }
    let outcome = outcome.expect("the last resignation ends the game");
    assert_eq!(outcome.result, GameResult::Win(Seat::new(2)));
    assert_eq!(ffa.elimination_order(&history).unwrap(), [Some(3), Some(1), None, Some(2)]);
    assert_eq!(halves(ffa.tournament_scores(&history, &outcome).unwrap()), [4, 0, 6, 2]);
    // A draw among the three still standing after West left: 0, then 2 each.
    let draw = Outcome {
        result: GameResult::DrawAmong(SeatSet::EMPTY.with(Seat::new(0)).with(Seat::new(2)).with(Seat::new(3))),
        reason: EndReason::Agreement,
    };
    assert_eq!(halves(ffa.tournament_scores(&history[..2], &draw).unwrap()), [4, 0, 4, 4]);

    // Draughts for three: yellow resigns, then red: blue wins.
    let dame = rulebook(VariantId::TrialecticDame, &[]);
    let mut history = vec![dame.start()];
    let mut outcome = None;
    for seat in [0, 1] {
        let (next, _, end) = dame.retire(history.last().unwrap(), Seat::new(seat)).unwrap();
        history.push(next);
        outcome = end;
    }
    let outcome = outcome.expect("one seat left wins");
    assert_eq!(halves(dame.tournament_scores(&history, &outcome).unwrap()), [0, 2, 4]);
}
