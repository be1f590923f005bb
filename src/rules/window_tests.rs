//! [`Variant::repetition_window`] is exact: random games resolved turn by turn
//! through [`DynVariant::resolve`], once with the whole history and once with
//! only the window the state asks for, give identical resolutions, and the
//! final state's outcome is the same from its own window.
//!
//! The games are seeded (a small xorshift), so a failure replays. Some prefer
//! quiet moves and taking their own last move back, so that positions repeat.

use super::{Cell, DynVariant, EndReason, Options, PieceKind, Seat, VariantId};

/// xorshift64*: enough randomness for choosing moves, the same on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (> 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// How a game's moves are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// Any legal move.
    Random,
    /// Mostly quiet piece moves (no pawn, no capture), taking the seat's own
    /// earlier moves back where it can: positions come back.
    Shuffle,
}

/// What the games went through, to show that the test exercised the window.
#[derive(Debug, Default)]
struct Tally {
    turns: usize,
    /// Turns whose window left earlier states out.
    narrowed: usize,
    endings: Vec<EndReason>,
    /// Turns with fewer seats to move than at the start (Fairschach after the
    /// FSR 8 switch, which doubles its counter).
    fewer_movers: usize,
}

impl Tally {
    fn ended_by(&self, reason: EndReason) -> usize {
        self.endings.iter().filter(|&&r| r == reason).count()
    }
}

/// The last `window` states of `history` (all of them for `None`).
fn tail(history: &[String], window: Option<usize>) -> &[String] {
    let keep = window.map_or(history.len(), |n| n.min(history.len()));
    &history[history.len() - keep..]
}

/// From, to and whether it captures, for a move as the board draws it.
fn ends(rules: &dyn DynVariant, before: &str, mv: &str) -> Option<(Cell, Cell, bool)> {
    let path = rules.move_path(Some(before), mv)?;
    Some((*path.cells.first()?, *path.cells.last()?, !path.captures.is_empty()))
}

/// A move for `seat` in `state`, in `style`; `taken` holds the seat's quiet
/// moves (from, to) not yet taken back, latest last.
fn choose(
    rules: &dyn DynVariant,
    state: &str,
    seat: Seat,
    style: Style,
    taken: &mut Vec<(Cell, Cell)>,
    rng: &mut XorShift,
) -> String {
    let legal = rules.legal_moves(state, seat).expect("the state reads");
    assert!(!legal.is_empty(), "{seat:?} is to move in {state} but has no move");
    if style == Style::Random || rng.chance(10) {
        return legal[rng.below(legal.len())].clone();
    }
    let board = rules.board(state).expect("the state reads");
    let kind_on = |cell: Cell| board.pieces.iter().find(|(c, _)| *c == cell).map(|(_, p)| p.kind);
    let moves: Vec<(&String, Cell, Cell, bool)> = legal
        .iter()
        .filter_map(|m| ends(rules, state, m).map(|(from, to, captures)| (m, from, to, captures)))
        .collect();
    // Take back the latest of the last two quiet moves that can go back now
    // (a Fairschach piece that just moved is paused for a pair).
    for back in (taken.len().saturating_sub(2)..taken.len()).rev() {
        let (from, to) = taken[back];
        if let Some((mv, ..)) = moves.iter().find(|(_, f, t, captures)| (*f, *t) == (to, from) && !captures) {
            taken.remove(back);
            return (*mv).clone();
        }
    }
    let quiet: Vec<_> =
        moves.iter().filter(|(_, from, _, captures)| !captures && kind_on(*from) != Some(PieceKind::Pawn)).collect();
    match quiet.as_slice() {
        [] => legal[rng.below(legal.len())].clone(),
        quiet => {
            let (mv, from, to, _) = quiet[rng.below(quiet.len())];
            taken.push((*from, *to));
            (*mv).clone()
        }
    }
}

/// Plays `games` seeded games of at most `max_turns` turns, checking every
/// turn's resolution with the window against the one with the whole history.
fn play(rules: &dyn DynVariant, games: usize, max_turns: usize, shuffle_percent: u64, seed: u64) -> Tally {
    let mut rng = XorShift(seed);
    let mut tally = Tally::default();
    let seats = rules.seat_names().len();
    let start_movers = rules.seats_to_move(&rules.start()).expect("the start reads").len();
    for game in 0..games {
        let style = if rng.chance(shuffle_percent) { Style::Shuffle } else { Style::Random };
        let mut taken: Vec<Vec<(Cell, Cell)>> = vec![Vec::new(); seats];
        let mut history: Vec<String> = Vec::new();
        let mut state = rules.start();
        for turn in 1..=max_turns {
            let to_move = rules.seats_to_move(&state).expect("the state reads");
            let moves: Vec<(Seat, String)> = to_move
                .iter()
                .map(|seat| (seat, choose(rules, &state, seat, style, &mut taken[seat.index()], &mut rng)))
                .collect();
            let whole = rules
                .resolve(&history, &state, &moves)
                .unwrap_or_else(|e| panic!("game {game} turn {turn} {state} {moves:?}: {e}"));
            let window = rules.repetition_window(&state).expect("the state reads");
            let recent = tail(&history, window);
            let windowed = rules.resolve(recent, &state, &moves);
            assert_eq!(
                windowed.as_ref(),
                Ok(&whole),
                "game {game} turn {turn}: {state} {moves:?} with the last {} of {} states",
                recent.len(),
                history.len()
            );
            tally.turns += 1;
            tally.narrowed += usize::from(recent.len() < history.len());
            tally.fewer_movers += usize::from(to_move.len() < start_movers);
            history.push(std::mem::replace(&mut state, whole.state));
            if let Some(outcome) = whole.outcome {
                // The final state's own window gives its outcome too.
                let window = rules.repetition_window(&state).expect("the state reads");
                let own = rules.outcome(tail(&history, window), &state);
                assert_eq!(own, Ok(Some(outcome)), "game {game} turn {turn}: the outcome of {state}");
                tally.endings.push(outcome.reason);
                break;
            }
        }
    }
    tally
}

/// Chess: a window of `halfmoves + 1` states resolves exactly as the whole game.
#[test]
fn the_chess_window_resolves_as_the_whole_history() {
    let rules = VariantId::Chess.rulebook(&Options::new()).expect("chess has no options");
    let tally = play(&*rules, 300, 150, 60, 0x5eed_c4e5);
    assert!(tally.ended_by(EndReason::ThreefoldRepetition) >= 20, "{tally:?}");
    assert!(tally.narrowed * 2 > tally.turns, "{tally:?}");
}

/// Fairschach, with every pause rule and with the FSR 8 switch (which doubles
/// the counter): a window of `halfmove + 1` states resolves as the whole game.
#[test]
fn the_fairschach_window_resolves_as_the_whole_history() {
    let mut total = Tally::default();
    let option_sets = [
        Options::new(),
        Options::new().set("pause", "off"),
        Options::new().set("pause", "capturable"),
        Options::new().set("pause", "off").set("normal_below", "26"),
    ];
    for (i, options) in option_sets.into_iter().enumerate() {
        let rules = VariantId::Fairschach.rulebook(&options).expect("known options");
        let tally = play(&*rules, 50, 150, 60, 0xfa12_5c4a + i as u64);
        total.turns += tally.turns;
        total.narrowed += tally.narrowed;
        total.fewer_movers += tally.fewer_movers;
        total.endings.extend(tally.endings);
    }
    assert!(total.ended_by(EndReason::ThreefoldRepetition) >= 10, "{total:?}");
    assert!(total.narrowed * 2 > total.turns, "{total:?}");
    assert!(total.fewer_movers > 0, "no game reached normal mode: {total:?}");
}

/// 3D chess (issue 37): a window of `halfmove + 1` states resolves as the
/// whole game, board moves and their passengers included.
#[test]
fn the_tri_d_chess_window_resolves_as_the_whole_history() {
    let rules = VariantId::TriDChess.rulebook(&Options::new()).expect("3D chess has no options");
    let tally = play(&*rules, 120, 150, 60, 0x3d_c4e5);
    assert!(tally.ended_by(EndReason::ThreefoldRepetition) >= 10, "{tally:?}");
    assert!(tally.narrowed * 2 > tally.turns, "{tally:?}");
}

/// The variants without a repetition rule need no history at all (window 0).
#[test]
fn variants_without_repetition_need_no_history() {
    for variant in [VariantId::Vierschach, VariantId::Dreierschach, VariantId::TrialecticDame] {
        let rules = variant.rulebook(&Options::new()).expect("default options");
        assert_eq!(rules.repetition_window(&rules.start()), Ok(Some(0)), "{variant:?}");
        let tally = play(&*rules, 3, 60, 0, 0xd00d + variant as u64);
        assert!(tally.narrowed > 0, "{variant:?}: {tally:?}");
    }
}
