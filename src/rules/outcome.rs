//! How a game ends: the score (`GameResult`), the reason (`EndReason`) and both
//! together (`Outcome`), with the texts and store codes they are kept as.

use std::fmt;

use super::{Seat, SeatSet};

/// How a finished game was scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// One seat won: 1 for it, 0 for the others.
    Win(Seat),
    /// Nobody won: ½ for every seat.
    Draw,
    /// Several seats won together, 1 each, the others 0 (a Vierschach team).
    Winners(SeatSet),
    /// A draw that scores ½ for these seats and 0 for the others (Vierschach
    /// free-for-all: seats mated or out before the draw get nothing).
    DrawAmong(SeatSet),
    /// Points in the game's own scale, per seat in seat order: Dreierschach's
    /// 3/1/0 for a mate, 2/2/0 for a resignation out of check, 1/1/1 for a
    /// draw. Build it with [`GameResult::points`].
    Points {
        /// The points of the first `seats` seats (the rest are 0).
        points: [u8; 4],
        /// The number of seats of the game.
        seats: u8,
    },
}

impl GameResult {
    /// [`GameResult::Points`] of a game whose seats scored `points`, in seat
    /// order (at most [`SeatSet::MAX`] seats; points above 15 count as 15).
    pub fn points(points: &[u8]) -> GameResult {
        let seats = points.len().min(usize::from(SeatSet::MAX));
        let mut all = [0; 4];
        for (to, &p) in all.iter_mut().zip(points) {
            *to = p.min(15);
        }
        GameResult::Points { points: all, seats: seats as u8 }
    }

    /// The result as PGN writes it for a two-seat game (`1-0`, `0-1`, `1/2-1/2`).
    pub fn two_seat_score(self) -> &'static str {
        match self {
            GameResult::Win(s) if s.index() == 0 => "1-0",
            GameResult::Win(_) => "0-1",
            GameResult::Winners(set) if set.contains(Seat(0)) => "1-0",
            GameResult::Winners(_) => "0-1",
            GameResult::Draw | GameResult::DrawAmong(_) => "1/2-1/2",
            GameResult::Points { points: [a, b, ..], .. } if a > b => "1-0",
            GameResult::Points { points: [a, b, ..], .. } if a < b => "0-1",
            GameResult::Points { .. } => "1/2-1/2",
        }
    }

    /// The score of `seat` in half points: 2 for a win, 1 for a draw, 0 for a
    /// loss. Of [`GameResult::Points`]: 2 for the seats with the most points
    /// when the points differ, 1 for every seat when they do not.
    pub fn half_points(self, seat: Seat) -> u8 {
        match self {
            GameResult::Win(s) => 2 * u8::from(s == seat),
            GameResult::Draw => 1,
            GameResult::Winners(set) => 2 * u8::from(set.contains(seat)),
            GameResult::DrawAmong(set) => u8::from(set.contains(seat)),
            GameResult::Points { .. } if self.winners().is_empty() => 1,
            GameResult::Points { .. } => 2 * u8::from(self.winners().contains(seat)),
        }
    }

    /// The scores of a game of `seats` seats, in seat order, separated by `-`:
    /// `1-0` and `1/2-1/2` for two seats (as [`GameResult::two_seat_score`]),
    /// `1-0-1-0` or `1/2-0-1/2-1/2` for four; [`GameResult::Points`] as the
    /// points, `3-1-0`.
    pub fn score_text(self, seats: usize) -> String {
        if let GameResult::Points { points, .. } = self {
            return points.iter().take(seats).map(u8::to_string).collect::<Vec<_>>().join("-");
        }
        if seats == 2 {
            return self.two_seat_score().to_owned();
        }
        let score = |i: usize| match self.half_points(Seat(i as u8)) {
            2 => "1",
            1 => "1/2",
            _ => "0",
        };
        (0..seats).map(score).collect::<Vec<_>>().join("-")
    }

    /// The seats that won (empty for a draw); of [`GameResult::Points`], the
    /// seats with the most points, unless every seat has as many.
    pub fn winners(self) -> SeatSet {
        match self {
            GameResult::Win(s) => SeatSet::only(s),
            GameResult::Winners(set) => set,
            GameResult::Draw | GameResult::DrawAmong(_) => SeatSet::EMPTY,
            GameResult::Points { points, seats } => {
                let points = &points[..usize::from(seats)];
                let best = points.iter().copied().max().unwrap_or(0);
                let top: SeatSet = (0..seats).filter(|&i| points[usize::from(i)] == best).map(Seat).collect();
                if top.len() == points.len() { SeatSet::EMPTY } else { top }
            }
        }
    }

    /// The result as the store's `winner` column keeps it: the winning seat, `NULL`
    /// for a draw, `16 + seats` for seats that won together and `32 + seats` for a
    /// draw among some seats (`seats` as a bit set, bit `i` for seat `i`), and
    /// for [`GameResult::Points`] `0x100000` plus the number of seats in bits 16
    /// to 18 and four bits of points per seat (seat `i` in bits `4i` to `4i + 3`).
    pub fn to_winner_code(self) -> Option<i64> {
        match self {
            GameResult::Win(s) => Some(s.index() as i64),
            GameResult::Draw => None,
            GameResult::Winners(set) => Some(16 + i64::from(set.0)),
            GameResult::DrawAmong(set) => Some(32 + i64::from(set.0)),
            GameResult::Points { points, seats } => Some(
                POINTS_CODE
                    + (i64::from(seats) << 16)
                    + points.iter().enumerate().map(|(i, &p)| i64::from(p.min(15)) << (4 * i)).sum::<i64>(),
            ),
        }
    }

    /// Reads [`GameResult::to_winner_code`] back; `None` for a code it never writes.
    pub fn from_winner_code(code: Option<i64>) -> Option<GameResult> {
        let set = |c: i64| SeatSet((c & 0xf) as u8);
        match code {
            None => Some(GameResult::Draw),
            Some(c @ 0..=3) => Some(GameResult::Win(Seat(c as u8))),
            Some(c @ 17..=31) => Some(GameResult::Winners(set(c))),
            Some(c @ 33..=47) => Some(GameResult::DrawAmong(set(c))),
            Some(c) if (POINTS_CODE..POINTS_CODE + (5 << 16)).contains(&c) => {
                let seats = ((c >> 16) & 0x7) as usize;
                let points: Vec<u8> = (0..seats).map(|i| ((c >> (4 * i)) & 0xf) as u8).collect();
                Some(GameResult::points(&points)).filter(|r| r.to_winner_code() == Some(c))
            }
            Some(_) => None,
        }
    }
}

impl GameResult {
    /// The result as an organiser states it and the transcript's `adjudicated`
    /// entry keeps it, for a game whose seats are called `names`: `draw`, a
    /// winner (`white`), several (`north and south`), a draw among some
    /// (`draw among north and east`), or points per seat (`white 3, brown 1,
    /// black 0`). [`GameResult::from_decision`] reads it back.
    ///
    /// # Errors
    /// A result that names a seat the game does not have.
    pub fn decision_text(self, names: &[String]) -> Result<String, String> {
        let name =
            |s: Seat| names.get(s.index()).cloned().ok_or_else(|| format!("the game has no seat {}", s.index() + 1));
        let list = |set: SeatSet| set.iter().map(name).collect::<Result<Vec<_>, _>>().map(|v| v.join(" and "));
        Ok(match self {
            GameResult::Draw => "draw".to_owned(),
            GameResult::Win(s) => name(s)?,
            GameResult::Winners(set) => list(set)?,
            GameResult::DrawAmong(set) => format!("draw among {}", list(set)?),
            GameResult::Points { points, seats } => (0..usize::from(seats))
                .map(|i| name(Seat(i as u8)).map(|n| format!("{n} {}", points[i])))
                .collect::<Result<Vec<_>, _>>()?
                .join(", "),
        })
    }

    /// Reads a result stated in the game's terms (see
    /// [`GameResult::decision_text`]; any case, seats separated by `and`,
    /// commas or spaces, points also as `3-1-0` in seat order) for a game
    /// whose seats are called `names`.
    ///
    /// # Errors
    /// What does not read, with the forms that do.
    pub fn from_decision(text: &str, names: &[String]) -> Result<GameResult, String> {
        let forms = format!(
            "give `draw`, a winning seat ({}), several winning seats joined with `and`, `draw among` seats, or points per seat like `{}`",
            names.join(", "),
            names.iter().enumerate().map(|(i, n)| format!("{n} {}", names.len() - i)).collect::<Vec<_>>().join(", ")
        );
        let t = text.trim().to_lowercase();
        let seat = |word: &str| -> Result<Seat, String> {
            names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(word))
                .map(|i| Seat(i as u8))
                .ok_or_else(|| format!("{word:?} is no seat of this game; {forms}"))
        };
        let words = |s: &str| -> Vec<String> {
            s.replace(',', " ").split_whitespace().filter(|w| *w != "and").map(str::to_owned).collect()
        };
        let seats_of = |s: &str| -> Result<SeatSet, String> {
            let mut set = SeatSet::EMPTY;
            for w in words(s) {
                let seat = seat(&w)?;
                if set.contains(seat) {
                    return Err(format!("{w} is named twice; {forms}"));
                }
                set = set.with(seat);
            }
            Ok(set)
        };
        if t.is_empty() {
            return Err(format!("the result is empty; {forms}"));
        }
        if t == "draw" {
            return Ok(GameResult::Draw);
        }
        if let Some(rest) = t.strip_prefix("draw among") {
            let set = seats_of(rest)?;
            if set.is_empty() {
                return Err(format!("a draw among whom? {forms}"));
            }
            return Ok(if set.len() == names.len() { GameResult::Draw } else { GameResult::DrawAmong(set) });
        }
        if t.chars().any(|c| c.is_ascii_digit()) {
            let mut points: Vec<Option<u8>> = vec![None; names.len()];
            let dashed: Vec<&str> = t.split('-').map(str::trim).collect();
            if dashed.len() == names.len() && dashed.iter().all(|p| p.parse::<u8>().is_ok()) {
                points = dashed.iter().map(|p| p.parse().ok()).collect();
            } else {
                let w = words(&t);
                if w.len() % 2 != 0 {
                    return Err(format!("points are given as a seat and its points each; {forms}"));
                }
                for pair in w.chunks(2) {
                    let s = seat(&pair[0])?;
                    let p: u8 =
                        pair[1].parse().map_err(|_| format!("{:?} is not a number of points; {forms}", pair[1]))?;
                    if points[s.index()].replace(p).is_some() {
                        return Err(format!("{} is given points twice; {forms}", pair[0]));
                    }
                }
            }
            let points: Vec<u8> = points
                .iter()
                .enumerate()
                .map(|(i, p)| p.ok_or_else(|| format!("no points for {}; give every seat its points", names[i])))
                .collect::<Result<_, _>>()?;
            if points.iter().any(|&p| p > 15) {
                return Err("a seat's points are at most 15".to_owned());
            }
            return Ok(GameResult::points(&points));
        }
        let set = seats_of(&t)?;
        match set.len() {
            0 => Err(format!("the result names no seat; {forms}")),
            1 => Ok(GameResult::Win(set.iter().next().unwrap_or(Seat(0)))),
            n if n == names.len() => Err(format!("every seat cannot win; for a draw give `draw`; {forms}")),
            _ => Ok(GameResult::Winners(set)),
        }
    }
}

/// Where [`GameResult::to_winner_code`] puts [`GameResult::Points`].
const POINTS_CODE: i64 = 0x10_0000;

/// Why a game ended. The names are the rules files' reason strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// A side in check with no legal move.
    Checkmate,
    /// Both sides checkmated at once (Fairschach §6).
    BothCheckmated,
    /// A side not in check with no legal move.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// The same position for the third time.
    ThreefoldRepetition,
    /// The halfmove counter reached its limit.
    FiftyMoveRule,
    /// A seat resigned.
    Resignation,
    /// The seats agreed a draw.
    Agreement,
    /// A seat ran out of time.
    Time,
    /// A number of plies without progress (Vierschach's `no_progress`).
    NoProgress,
    /// One seat is left with stones (Trialectic Dame).
    LastSeat,
    /// No seat in the game can move (Trialectic Dame's base game).
    NoSeatCanMove,
    /// An organiser (the operator or a tournament's director) decided the
    /// result of a game that was not played to its end (the organiser's desk).
    Adjudicated,
    /// An organiser ended the game without a result: it scores nothing and
    /// standings leave it out (see [`Outcome::counts`]).
    Aborted,
}

impl EndReason {
    /// Every reason.
    pub const ALL: [EndReason; 14] = [
        EndReason::Checkmate,
        EndReason::BothCheckmated,
        EndReason::Stalemate,
        EndReason::InsufficientMaterial,
        EndReason::ThreefoldRepetition,
        EndReason::FiftyMoveRule,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Time,
        EndReason::NoProgress,
        EndReason::LastSeat,
        EndReason::NoSeatCanMove,
        EndReason::Adjudicated,
        EndReason::Aborted,
    ];

    /// The reason with this name (as [`EndReason::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<EndReason> {
        EndReason::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// The reason as the rules files and the conformance JSON write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::BothCheckmated => "both checkmated",
            EndReason::Stalemate => "stalemate",
            EndReason::InsufficientMaterial => "insufficient material",
            EndReason::ThreefoldRepetition => "threefold repetition",
            EndReason::FiftyMoveRule => "fifty-move rule",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Time => "time",
            EndReason::NoProgress => "no progress",
            EndReason::LastSeat => "last seat in the game",
            EndReason::NoSeatCanMove => "no seat can move",
            EndReason::Adjudicated => "adjudicated",
            EndReason::Aborted => "aborted",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The end of a game: who scored, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The score.
    pub result: GameResult,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// A decisive outcome.
    pub const fn win(seat: Seat, reason: EndReason) -> Outcome {
        Outcome { result: GameResult::Win(seat), reason }
    }

    /// A drawn outcome.
    pub const fn draw(reason: EndReason) -> Outcome {
        Outcome { result: GameResult::Draw, reason }
    }

    /// The end of a game aborted by an organiser: no result. The store keeps it
    /// as a draw with the reason [`EndReason::Aborted`]; everything that scores
    /// asks [`Outcome::counts`] first.
    pub const fn aborted() -> Outcome {
        Outcome { result: GameResult::Draw, reason: EndReason::Aborted }
    }

    /// Whether the outcome scores: false for an aborted game, which standings
    /// leave out and PGN writes as `*`.
    pub fn counts(&self) -> bool {
        self.reason != EndReason::Aborted
    }

    /// An outcome in the game's own points, per seat in seat order.
    pub fn points(points: &[u8], reason: EndReason) -> Outcome {
        Outcome { result: GameResult::points(points), reason }
    }

    /// The outcome in words for a game whose seats are called `names` (in seat
    /// order): `1-0 (checkmate)` with two seats, `north wins (resignation)` with
    /// more, `white 3, brown 1, black 0 (checkmate)` in points. Mails and the
    /// transcript use it, and `verify` recomputes it.
    pub fn text(&self, names: &[String]) -> String {
        if !self.counts() {
            return format!("no result ({})", self.reason);
        }
        let name = |s: Seat| s.name_in(names);
        let list = |set: SeatSet, sep: &str| set.iter().map(name).collect::<Vec<_>>().join(sep);
        let score = match (names.len(), self.result) {
            (_, GameResult::Points { points, seats }) => (0..usize::from(seats))
                .map(|i| format!("{} {}", name(Seat(i as u8)), points[i]))
                .collect::<Vec<_>>()
                .join(", "),
            (2, r) => r.two_seat_score().to_owned(),
            (_, GameResult::Win(s)) => format!("{} wins", name(s)),
            (_, GameResult::Winners(set)) => format!("{} win", list(set, " and ")),
            (_, GameResult::Draw) => "draw".to_owned(),
            (_, GameResult::DrawAmong(set)) => format!("draw, 1/2 each for {}", list(set, ", ")),
        };
        format!("{score} ({})", self.reason)
    }

    /// The `result` of the transcript's `ended` entry: the two-seat score
    /// (`1-0`) with two seats, [`Outcome::text`] with more; `*` for an aborted
    /// game of two seats (as PGN writes a game without a result).
    pub fn recorded_result(&self, names: &[String]) -> String {
        if names.len() == 2 && !self.counts() {
            "*".to_owned()
        } else if names.len() == 2 {
            self.result.two_seat_score().to_owned()
        } else {
            self.text(names)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points in a game's own scale (Dreierschach's 3/1/0): text, scores,
    /// winners and the store's code, which reads back.
    #[test]
    fn points_read_and_write() {
        let names: Vec<String> = ["white", "brown", "black"].map(String::from).to_vec();
        let mate = Outcome::points(&[3, 1, 0], EndReason::Checkmate);
        assert_eq!(mate.text(&names), "white 3, brown 1, black 0 (checkmate)");
        assert_eq!(mate.recorded_result(&names), mate.text(&names));
        assert_eq!(mate.result.score_text(3), "3-1-0");
        assert_eq!(mate.result.winners(), SeatSet::only(Seat(0)));
        let resigned = GameResult::points(&[0, 2, 2]);
        assert_eq!(resigned.winners(), SeatSet::only(Seat(1)).with(Seat(2)));
        assert_eq!(resigned.half_points(Seat(0)), 0);
        let draw = GameResult::points(&[1, 1, 1]);
        assert_eq!(draw.winners(), SeatSet::EMPTY);
        assert_eq!(draw.half_points(Seat(2)), 1);
        for r in [mate.result, resigned, draw, GameResult::points(&[15, 0]), GameResult::points(&[0, 0, 0, 1])] {
            let code = r.to_winner_code();
            assert!(code.is_some_and(|c| c >= POINTS_CODE), "{r:?}: {code:?}");
            assert_eq!(GameResult::from_winner_code(code), Some(r));
        }
        assert_eq!(GameResult::from_winner_code(Some(POINTS_CODE + (5 << 16))), None);
        assert_eq!(GameResult::from_winner_code(Some(POINTS_CODE + (2 << 16) + 0x100)), None, "points of a third seat");
    }

    /// An organiser's decision reads in the game's terms and writes back to
    /// the same result (the transcript's `adjudicated` entry relies on it).
    #[test]
    fn decisions_read_and_write_back() {
        let two: Vec<String> = ["white", "black"].map(String::from).to_vec();
        let four: Vec<String> = ["south", "west", "north", "east"].map(String::from).to_vec();
        let three: Vec<String> = ["white", "brown", "black"].map(String::from).to_vec();
        let read = |t: &str, names: &[String]| GameResult::from_decision(t, names);
        assert_eq!(read("Black", &two), Ok(GameResult::Win(Seat(1))));
        assert_eq!(read(" draw ", &two), Ok(GameResult::Draw));
        assert_eq!(read("south and north", &four), Ok(GameResult::Winners(SeatSet::only(Seat(0)).with(Seat(2)))));
        assert_eq!(read("north, south", &four), read("south and north", &four));
        assert_eq!(
            read("draw among west and east", &four),
            Ok(GameResult::DrawAmong(SeatSet::only(Seat(1)).with(Seat(3))))
        );
        assert_eq!(read("white 1, brown 3, black 0", &three), Ok(GameResult::points(&[1, 3, 0])));
        assert_eq!(read("1-3-0", &three), Ok(GameResult::points(&[1, 3, 0])));
        for bad in ["", "brown", "white and black", "white white", "white 1", "white 16, black 0", "white x, black 1"] {
            assert!(read(bad, &two).is_err(), "{bad:?} reads");
        }
        for (r, names) in [
            (GameResult::Win(Seat(0)), &two),
            (GameResult::Draw, &two),
            (GameResult::Winners(SeatSet::only(Seat(1)).with(Seat(3))), &four),
            (GameResult::DrawAmong(SeatSet::only(Seat(0)).with(Seat(2)).with(Seat(3))), &four),
            (GameResult::points(&[3, 1, 0]), &three),
        ] {
            let text = r.decision_text(names).unwrap();
            assert_eq!(read(&text, names), Ok(r), "{text}");
        }
        let aborted = Outcome::aborted();
        assert!(!aborted.counts());
        assert_eq!(aborted.recorded_result(&two), "*");
        assert_eq!(aborted.text(&three), "no result (aborted)");
        assert_eq!(EndReason::from_name("adjudicated"), Some(EndReason::Adjudicated));
    }
}

/// A draw by agreement: whose agreement it needs and what it scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgreedDraw {
    /// The seats that must agree: those still in the game.
    pub seats: SeatSet,
    /// The outcome once they all have.
    pub outcome: Outcome,
}
