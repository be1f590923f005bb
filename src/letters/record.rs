//! The game's record as mails show it: every move numbered as the games count
//! them (a number per round of the seat order), the moves since a reader's own
//! last move, and the whole record one line per number (`12. e4 e5`).

use std::collections::BTreeMap;

use crate::ids::GameId;
use crate::rules::{DynVariant, Options, Seat, SeatResult, VariantId};
use crate::store::SettledMove;

/// One resolved move of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMove {
    /// The turn it was resolved in.
    pub turn: u32,
    /// Whose move.
    pub seat: Seat,
    /// The seat's name (`white`, `south`).
    pub seat_name: String,
    /// The move in the players' notation.
    pub notation: String,
    /// What became of it.
    pub result: SeatResult,
}

/// A move with its number in the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Numbered {
    /// The record's number for it.
    pub number: u32,
    /// Whether it is the first move under its number (`12.`), not a later one (`12...`).
    pub opens: bool,
    /// The move.
    pub mv: RecordMove,
}

impl Numbered {
    /// `12.` for the first move under a number, `12...` for a later one.
    pub fn label(&self) -> String {
        Numbered::label_of(self.number, self.opens)
    }

    /// The label of a move numbered `number`, the first under it or not.
    pub fn label_of(number: u32, opens: bool) -> String {
        if opens { format!("{number}.") } else { format!("{number}...") }
    }
}

/// Numbers `moves` (in the order they were made: by turn, then seat) as the
/// games' records do.
pub fn numbered(moves: Vec<RecordMove>) -> Vec<Numbered> {
    let mut previous = None;
    moves
        .into_iter()
        .map(|mv| {
            let number = record_number(previous, mv.seat);
            let opens = previous.is_none_or(|(n, _)| n != number);
            previous = Some((number, mv.seat));
            Numbered { number, opens, mv }
        })
        .collect()
}

/// The number a record gives a move by `seat` that follows the move numbered
/// `previous.0` by `previous.1` (`None`: the game's first move). A number covers
/// one round of the seat order and goes up when a seat moves that does not come
/// after the previous mover: the first seat's move in a two-seat game (`12. e4
/// e5`), every turn in a simultaneous one, the first seat still playing in a
/// four-seat round.
fn record_number(previous: Option<(u32, Seat)>, seat: Seat) -> u32 {
    match previous {
        None => 1,
        Some((n, before)) if seat.index() <= before.index() => n + 1,
        Some((n, _)) => n,
    }
}

/// Where a record stands for numbering what comes next: the number and the
/// seat of its last move (`None` before the first). Cheap to keep: it is all
/// [`owed_label`] needs, whatever the record's length.
pub type RecordEnd = Option<(u32, Seat)>;

/// The [`RecordEnd`] of a numbered record.
pub fn end_of(record: &[Numbered]) -> RecordEnd {
    record.last().map(|n| (n.number, n.mv.seat))
}

/// The [`RecordEnd`] after moves by `seats`, in the order they were made (by
/// turn, then seat): the same as numbering the record and taking its end,
/// without the moves' texts.
pub fn end_after(seats: impl IntoIterator<Item = Seat>) -> RecordEnd {
    seats.into_iter().fold(None, |previous, seat| Some((record_number(previous, seat), seat)))
}

/// The label (`12.`, `12...`) the record will give the move `seat` owes now,
/// when the record ends at `end` and `to_move` owe a move in this turn: the
/// move number players see, one for everything that shows it (mail subject and
/// body, API, page). Seats moving together are numbered in seat order, as their
/// moves will be (a simultaneous pair: `12.` for the first seat, `12...` for the
/// second). A seat that
/// owes nothing gets the label of the first move owed.
pub fn owed_label(end: RecordEnd, to_move: &[Seat], seat: Seat) -> String {
    let mut order: Vec<Seat> = to_move.to_vec();
    order.sort_by_key(|s| s.index());
    let seat = if order.contains(&seat) { seat } else { order.first().copied().unwrap_or(seat) };
    let previous =
        order.iter().take_while(|s| **s != seat).fold(end, |previous, s| Some((record_number(previous, *s), *s)));
    let number = record_number(previous, seat);
    let opens = previous.is_none_or(|(n, _)| n != number);
    Numbered::label_of(number, opens)
}

/// The moves a board mail to `reader` lists: every move since the reader's own
/// last one; when that was in the latest turn (the reader has just moved, or the
/// seats move together), the whole latest turn, the reader's move included, so
/// its status shows. A seat that has not moved yet gets the record from the start.
pub fn since_last(record: &[Numbered], reader: Seat) -> &[Numbered] {
    let Some(mine) = record.iter().rposition(|n| n.mv.seat == reader) else { return record };
    let latest = record.last().map(|n| n.mv.turn);
    if Some(record[mine].mv.turn) == latest {
        let turn = record[mine].mv.turn;
        let start = record.iter().position(|n| n.mv.turn == turn).unwrap_or(mine);
        &record[start..]
    } else {
        &record[mine + 1..]
    }
}

/// The whole record, one line per number. Two seats: `12. e4 e5`, as a
/// two-seat record is written; more seats name each: `3. south e2-e4, west b8-c8, …`. A struck
/// move stays in the record, marked `(struck)`.
pub fn lines(record: &[Numbered], seats: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current: Option<u32> = None;
    for n in record {
        let mut text = if seats > 2 { format!("{} {}", n.mv.seat_name, n.mv.notation) } else { n.mv.notation.clone() };
        if matches!(n.mv.result, SeatResult::Struck(_)) {
            text.push_str(" (struck)");
        }
        match lines.last_mut() {
            Some(line) if current == Some(n.number) => {
                line.push_str(if seats > 2 { ", " } else { " " });
                line.push_str(&text);
            }
            _ => lines.push(format!("{} {text}", n.label())),
        }
        current = Some(n.number);
    }
    lines
}

/// What a settled move's stored status says it did; `None` for a move
/// still pending (not in the record yet).
pub fn settled_result(status: &str, reason: Option<&str>) -> Option<SeatResult> {
    match status {
        "played" => Some(SeatResult::Played),
        "first" => Some(SeatResult::First),
        "struck" => Some(SeatResult::Struck(reason.unwrap_or_default().to_owned())),
        _ => None,
    }
}

/// The game's numbered record from its settled moves (as
/// [`crate::store::Reader::settled_moves`] reads them; pending moves are not in it).
pub fn of_settled(rules: &dyn DynVariant, settled: Vec<SettledMove>) -> Vec<Numbered> {
    let names = rules.seat_names();
    let moves = settled
        .into_iter()
        .filter_map(|m| {
            let result = settled_result(&m.status, m.reason.as_deref())?;
            Some(RecordMove {
                turn: m.turn,
                seat: m.seat,
                seat_name: m.seat.name_in(names),
                notation: m.notation,
                result,
            })
        })
        .collect();
    numbered(moves)
}

/// A listed move, as the turn templates show it (`moves`).
pub fn move_variables(n: &Numbered) -> minijinja::Value {
    let reason = match &n.mv.result {
        SeatResult::Struck(why) => Some(why.clone()),
        _ => None,
    };
    minijinja::context! {
        number => n.label(),
        seat => n.mv.seat_name.clone(),
        notation => n.mv.notation.clone(),
        status => n.mv.result.as_str(),
        reason => reason,
    }
}

/// A board mail's record as a query, not as its lines: the mail is queued with
/// this, and the record is read from the store as the outbox drainer formats the
/// mail (off the store thread). A game's record grows with every turn; written
/// into every queued mail, it made each move's transaction read the whole game
/// and store it again per seat.
///
/// The record of a turn never changes once the turn is resolved, so the mail
/// reads the same whenever it is formatted.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordQuery {
    /// The game.
    pub game: String,
    /// Its variant's name: the record is numbered and its seats named as the
    /// variant does.
    pub variant: String,
    /// The game's options (they make the rulebook).
    pub options: BTreeMap<String, String>,
    /// The last turn the record goes to: the turn the mail reports.
    pub through: u32,
    /// The reader's seat: `moves` lists the moves since its own last.
    pub reader: u8,
}

/// The template variables a [`RecordQuery`] gives a board mail.
#[derive(Debug)]
pub struct RecordVariables {
    /// The moves since the reader's own last ([`since_last`]), each as
    /// [`move_variables`].
    pub moves: Vec<minijinja::Value>,
    /// The whole record, one line per number ([`lines`]).
    pub record: Vec<String>,
}

impl RecordQuery {
    /// The query for the record of `game` through turn `through`, as `reader` reads it.
    pub fn new(game: &GameId, variant: VariantId, options: &Options, through: u32, reader: Seat) -> RecordQuery {
        RecordQuery {
            game: game.to_string(),
            variant: variant.name().to_owned(),
            options: options.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
            through,
            reader: u8::try_from(reader.index()).unwrap_or(u8::MAX),
        }
    }

    /// The game asked about.
    ///
    /// # Errors
    /// The stored text is not a game id.
    pub fn game_id(&self) -> Result<GameId, String> {
        self.game.parse().map_err(|e: crate::ids::BadGameId| e.to_string())
    }

    /// The variables from the game's settled moves through [`RecordQuery::through`].
    ///
    /// # Errors
    /// The variant or its options are unknown (a damaged or foreign letter).
    pub fn variables(&self, settled: Vec<SettledMove>) -> Result<RecordVariables, String> {
        let variant: VariantId = self.variant.parse().map_err(|e: crate::rules::UnknownVariant| e.to_string())?;
        let options = self.options.iter().fold(Options::new(), |o, (k, v)| o.set(k.clone(), v.clone()));
        let rules = variant.rulebook(&options).map_err(|e| e.to_string())?;
        let seats = rules.seat_names().len();
        let settled = settled.into_iter().filter(|m| m.turn <= self.through).collect();
        let record = of_settled(rules.as_ref(), settled);
        let reader = Seat::new(self.reader);
        Ok(RecordVariables {
            moves: since_last(&record, reader).iter().map(move_variables).collect(),
            record: lines(&record, seats),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(turn: u32, seat: u8, name: &str, notation: &str) -> RecordMove {
        RecordMove {
            turn,
            seat: Seat::new(seat),
            seat_name: name.to_owned(),
            notation: notation.to_owned(),
            result: SeatResult::Played,
        }
    }

    // The shapes below are two-seat turns, simultaneous turns and four-seat
    // rounds: the numbering sees only the seats.

    #[test]
    fn two_seat_turns_are_numbered_in_pairs() {
        let moves = vec![
            mv(1, 0, "white", "e4"),
            mv(2, 1, "black", "e5"),
            mv(3, 0, "white", "Nf3"),
            mv(4, 1, "black", "Nc6"),
            mv(5, 0, "white", "Bb5"),
        ];
        let record = numbered(moves);
        assert_eq!(lines(&record, 2), ["1. e4 e5", "2. Nf3 Nc6", "3. Bb5"]);
        let black = since_last(&record, Seat::new(1));
        assert_eq!(black.iter().map(Numbered::label).collect::<Vec<_>>(), ["3."]);
        let white = since_last(&record[..4], Seat::new(0));
        assert_eq!(white.iter().map(|n| format!("{} {}", n.label(), n.mv.notation)).collect::<Vec<_>>(), ["2... Nc6"]);
    }

    #[test]
    fn simultaneous_turns_share_a_number_and_the_reader_sees_the_whole_turn() {
        let mut struck = mv(2, 1, "black", "Qxd1");
        struck.result = SeatResult::Struck("the queen was taken first".into());
        let moves = vec![mv(1, 0, "white", "e4"), mv(1, 1, "black", "d5"), mv(2, 0, "white", "exd5"), struck];
        let record = numbered(moves);
        assert_eq!(lines(&record, 2), ["1. e4 d5", "2. exd5 Qxd1 (struck)"]);
        let white = since_last(&record, Seat::new(0));
        assert_eq!(white.iter().map(|n| n.mv.notation.as_str()).collect::<Vec<_>>(), ["exd5", "Qxd1"]);
    }

    #[test]
    fn four_seats_are_numbered_by_rounds_and_skip_a_retired_seat() {
        let moves = vec![
            mv(1, 0, "south", "e2-e4"),
            mv(2, 1, "west", "b5-c5"),
            mv(3, 2, "north", "e13-e12"),
            mv(4, 3, "east", "m10-l10"),
            mv(5, 0, "south", "d2-d4"),
            mv(6, 2, "north", "d13-d12"),
            mv(7, 3, "east", "m9-l9"),
            mv(8, 0, "south", "f2-f3"),
        ];
        let record = numbered(moves);
        assert_eq!(
            lines(&record, 4),
            [
                "1. south e2-e4, west b5-c5, north e13-e12, east m10-l10",
                "2. south d2-d4, north d13-d12, east m9-l9",
                "3. south f2-f3",
            ]
        );
        // West last moved in round 1: it hears of the six moves since.
        let west = since_last(&record, Seat::new(1));
        assert_eq!(
            west.iter().map(|n| format!("{} {}", n.label(), n.mv.seat_name)).collect::<Vec<_>>(),
            ["1... north", "1... east", "2. south", "2... north", "2... east", "3. south"]
        );
        // South has just moved: its own move, with its status.
        assert_eq!(since_last(&record, Seat::new(0)).len(), 1);
    }

    #[test]
    fn the_move_owed_is_labelled_as_the_record_will_label_it() {
        let (white, black) = (Seat::new(0), Seat::new(1));
        // Chess: black's first reply is turn 2 but move 1...
        let record = numbered(vec![mv(1, 0, "white", "e4")]);
        assert_eq!(owed_label(end_of(&record), &[black], black), "1...");
        assert_eq!(owed_label(end_of(&record), &[black], white), "1...", "a seat not to move hears the move owed");
        assert_eq!(owed_label(None, &[white], white), "1.");
        let record = numbered(vec![mv(1, 0, "white", "e4"), mv(2, 1, "black", "e5")]);
        assert_eq!(owed_label(end_of(&record), &[white], white), "2.");
        // Fairschach: both move together, one number per pair.
        let record = numbered(vec![mv(1, 0, "white", "e4"), mv(1, 1, "black", "d5")]);
        assert_eq!(owed_label(end_of(&record), &[white, black], white), "2.");
        assert_eq!(owed_label(end_of(&record), &[black, white], black), "2...");
        assert_eq!(owed_label(None, &[white, black], black), "1...");
        // Four seats, north retired: east follows south in round 2.
        let seats = [0u8, 1, 2, 3, 0];
        let end = end_after(seats.iter().map(|&s| Seat::new(s)));
        assert_eq!(end, Some((2, Seat::new(0))));
        assert_eq!(owed_label(end, &[Seat::new(3)], Seat::new(3)), "2...");
        assert_eq!(owed_label(end_after([]), &[Seat::new(0)], Seat::new(0)), "1.");
        // The cheap end agrees with the numbered record's.
        let record = numbered(seats.iter().enumerate().map(|(i, &s)| mv(i as u32 + 1, s, "x", "m")).collect());
        assert_eq!(end_of(&record), end);
        let next = numbered(
            seats.iter().chain([3u8].iter()).enumerate().map(|(i, &s)| mv(i as u32 + 1, s, "x", "m")).collect(),
        );
        assert_eq!(next.last().unwrap().label(), owed_label(end, &[Seat::new(3)], Seat::new(3)));
    }
}
