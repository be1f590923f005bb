//! Conditional moves (issue 32): "if they play X, I play Y", lines several
//! moves deep. A seat's lines are checked on submission by playing them
//! through from the position now (each condition move legal for the seat that
//! plays it then, each reply legal after its condition), kept sealed at rest
//! as a pending move is ([`protocol::seal_held`]), and shown to nobody but the
//! seat.
//!
//! A step's condition is what the others play since the seat's own last move:
//! the opponent's move in two-seat games; in games where the seats move at once
//! the opponent's move of the same turn as the seat's own; in games of three
//! and four seats the moves of each other seat, in the order they play. After
//! each resolved turn, a seat that now owes a move and holds lines gets the
//! reply of the first line whose first condition matches what was played
//! (compared in canonical form); that line is shortened by its first step and
//! kept, lines that do not match are dropped. The reply goes through the
//! ordinary move path, and the seat's next board mail says what fired and
//! what was dropped.
//!
//! Commit-reveal games do not offer lines (a commitment binds one move, and a
//! line would hold in clear at the steward what the commitment hides), nor do
//! games that require signatures (a line would play unsigned moves).

mod grammar;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use grammar::{CondMove, GrammarError, Line, MAX_LINES, MAX_MOVE_BYTES, MAX_STEPS, Step};

use super::command::Gate;
use super::{Credential, Loaded, Refusal, Steward, StewardError, internal};
use crate::ids::GameId;
use crate::protocol::{self, policy::Auth, policy::Secrecy};
use crate::rules::{Seat, SeatSet};
use crate::store::Tx;

/// The associated-data turn the lines are sealed under (no turn is 0).
const LINES_AAD_TURN: u32 = 0;
/// The associated-data turn the board-mail notice is sealed under.
const NOTICE_AAD_TURN: u32 = u32::MAX;

/// Lines as a door hands them over.
#[derive(Clone, Debug)]
pub enum ConditionalInput {
    /// The JSON form (`{"lines": [...]}`'s value).
    Json(Value),
    /// The mail grammar (`if Nf6 then e5, if Nc6 then Nf3 if d6 then d4`).
    Text(String),
}

/// What a seat asks about its conditional lines.
#[derive(Clone, Debug)]
pub enum ConditionalOp {
    /// Replace the lines by these (checked first).
    Set(ConditionalInput),
    /// List them.
    List,
    /// Drop them all.
    Clear,
}

/// One entry of a line in the JSON form: a move text, or (a condition in
/// games of three and four seats) an object from seat names to move texts.
// The API document's schema of what `grammar::parse_json` reads and
// `grammar::write_json` writes.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LineEntry {
    /// A move, in the players' notation.
    Move(String),
    /// Each other seat's move, by seat name.
    BySeat(BTreeMap<String, String>),
}

/// A seat's conditional lines, as shown to that seat only.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"game": "7YC2", "seat": "black", "lines": [["Nf6", "e5"], ["Nc6", "Nf3", "d6", "d4"]], "text": "if Nf6 then e5\nif Nc6 then Nf3 if d6 then d4", "count": 2}))]
pub struct ConditionalLines {
    /// The game.
    pub game: String,
    /// The seat.
    pub seat: String,
    /// The lines in the JSON form (`[["Nf6", "e5"], ...]`), moves in the players' notation.
    #[schema(value_type = Vec<Vec<LineEntry>>)]
    pub lines: Value,
    /// The lines in the mail grammar, one per line of text.
    pub text: String,
    /// How many lines are kept.
    pub count: usize,
}

/// A move of a kept line, as checked.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct KeptMove {
    seat: u8,
    entered: String,
    canonical: String,
    notation: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct KeptStep {
    condition: Vec<KeptMove>,
    reply: KeptMove,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct KeptLine {
    steps: Vec<KeptStep>,
}

/// A reply decided after a turn, to be played once the turn's mails are queued.
pub(super) struct Fire {
    seat: Seat,
    canonical: String,
}

/// What a turn's board mails carry of the conditional lines: each seat's
/// paragraph (which line fired, which were dropped), and the seats whose reply
/// is played from a line right after the turn. Those get no board mail for the
/// turn (it would ask them for the move the line is about to play); their
/// paragraph waits for the board mail after their reply.
#[derive(Debug, Default)]
pub(super) struct ConditionalMail {
    /// The paragraph for each seat's board mail.
    pub notices: BTreeMap<Seat, String>,
    /// The seats whose reply fires after this turn's mails are queued.
    pub firing: SeatSet,
}

fn bad(msg: impl Into<String>) -> StewardError {
    Refusal::BadConditional(msg.into()).into()
}

impl From<GrammarError> for StewardError {
    fn from(e: GrammarError) -> StewardError {
        bad(e.to_string())
    }
}

impl Steward {
    /// Sets, lists or clears the conditional lines of the seat the credential
    /// proves (its token, or a signed-in page session).
    ///
    /// # Errors
    /// A [`Refusal`]: a bad token, lines that cannot be read or played
    /// ([`Refusal::BadConditional`], naming the line and step), a game that does
    /// not offer them ([`Refusal::ConditionalNotOffered`]).
    pub async fn conditional(
        &self,
        game: String,
        credential: Credential,
        op: ConditionalOp,
        now: DateTime<Utc>,
    ) -> Result<ConditionalLines, StewardError> {
        let this = self.clone();
        self.command(game, Gate::Seat(credential), now, move |c| {
            let seat = c.seat()?;
            this.conditional_in(c.tx, &c.game, seat, &op, now)
        })
        .await
    }

    /// [`Steward::conditional`] for a seat already proven, in the caller's transaction.
    pub(super) fn conditional_in(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        seat: Seat,
        op: &ConditionalOp,
        now: DateTime<Utc>,
    ) -> Result<ConditionalLines, StewardError> {
        let id = &game.row.id;
        match op {
            ConditionalOp::List => {}
            ConditionalOp::Clear => tx.set_conditional(id, seat, game.row.turn, None, now)?,
            ConditionalOp::Set(input) => {
                offered(game)?;
                if let Some(o) = game.row.outcome {
                    return Err(Refusal::GameOver(game.outcome_text(o)).into());
                }
                let names = game.rules.seat_names();
                let lines = match input {
                    ConditionalInput::Json(v) => grammar::parse_json(v)?,
                    ConditionalInput::Text(t) => grammar::parse_text(t, names)?,
                };
                let kept = self.check_lines(tx, game, seat, &lines)?;
                let held = if kept.is_empty() { None } else { Some(self.seal_lines(game, seat, &kept)?) };
                tx.set_conditional(id, seat, game.row.turn, held.as_deref(), now)?;
            }
        }
        let kept = self.lines_of(tx, game, seat)?;
        Ok(self.shown(game, seat, &kept))
    }

    fn shown(&self, game: &Loaded, seat: Seat, kept: &[KeptLine]) -> ConditionalLines {
        let named = game.seats.len() > 2;
        let lines: Vec<Line> = kept
            .iter()
            .map(|l| Line {
                steps: l
                    .steps
                    .iter()
                    .map(|s| Step {
                        condition: s
                            .condition
                            .iter()
                            .map(|m| CondMove {
                                seat: named.then(|| game.seat_name(Seat::new(m.seat)).to_ascii_lowercase()),
                                text: m.notation.clone(),
                            })
                            .collect(),
                        reply: s.reply.notation.clone(),
                    })
                    .collect(),
            })
            .collect();
        ConditionalLines {
            game: game.row.id.to_string(),
            seat: game.seat_name(seat),
            lines: grammar::write_json(&lines),
            text: grammar::write_text(&lines),
            count: lines.len(),
        }
    }

    fn seal_lines(&self, game: &Loaded, seat: Seat, kept: &[KeptLine]) -> Result<Vec<u8>, StewardError> {
        let json = serde_json::to_string(kept).map_err(internal)?;
        Ok(protocol::seal_held(&json, &self.keys, game.row.id.as_str(), &game.seat_name(seat), LINES_AAD_TURN))
    }

    fn lines_of(&self, tx: &Tx<'_>, game: &Loaded, seat: Seat) -> Result<Vec<KeptLine>, StewardError> {
        let Some(held) = tx.conditional_of(&game.row.id, seat)?.and_then(|r| r.held) else { return Ok(Vec::new()) };
        let json = protocol::open_held(&held, &self.keys, game.row.id.as_str(), &game.seat_name(seat), LINES_AAD_TURN)
            .map_err(|e| super::internal_while(format!("opening the conditional lines of {}", game.row.id), e))?;
        serde_json::from_str(&json).map_err(internal)
    }

    /// Plays each line through from the position now; the first step's
    /// condition answers the moves after the seat's own move (given, or still
    /// owed: then the lines wait for it).
    fn check_lines(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        seat: Seat,
        lines: &[Line],
    ) -> Result<Vec<KeptLine>, StewardError> {
        let id = &game.row.id;
        let rules = &game.rules;
        let to_move = rules.seats_to_move(&game.row.state).map_err(internal)?;
        let pending = if to_move.contains(seat) {
            match tx.move_of(id, game.row.turn, seat)? {
                Some(m) => Some(self.open_held(game, m)?.canonical),
                None => {
                    return Err(bad(format!(
                        "{} owes a move for turn {} now: send that move first; conditional lines answer the moves the others play after it",
                        game.seat_name(seat),
                        game.row.turn
                    )));
                }
            }
        } else {
            None
        };
        let history = match rules.repetition_window(&game.row.state).map_err(internal)? {
            Some(last) => tx.recent_history(id, last)?,
            None => tx.history(id)?,
        };
        let name = |s: Seat| game.seat_name(s);
        let mut out = Vec::with_capacity(lines.len());
        for (n, line) in lines.iter().enumerate() {
            let mut state = game.row.state.clone();
            let mut hist = history.clone();
            let mut pending = pending.clone();
            let mut steps = Vec::with_capacity(line.steps.len());
            for (k, step) in line.steps.iter().enumerate() {
                let at = format!("line {} step {}", n + 1, k + 1);
                let mut remaining: Vec<&CondMove> = step.condition.iter().collect();
                for c in &remaining {
                    if let Some(s) = &c.seat
                        && super::answers::seat_named(game, s).is_none_or(|s| s == seat)
                    {
                        return Err(bad(format!(
                            "{at}: {s:?} is not another seat of this game; name one of {}",
                            others(game, seat)
                        )));
                    }
                }
                let mut condition = Vec::new();
                loop {
                    let to_move = rules.seats_to_move(&state).map_err(internal)?;
                    if to_move.is_empty() {
                        return Err(bad(format!("{at}: the game is over before this step can come")));
                    }
                    if to_move.contains(seat) && pending.is_none() {
                        break;
                    }
                    let mut moves = Vec::new();
                    for s in to_move.iter() {
                        if s == seat {
                            moves.push((s, pending.take().unwrap_or_default()));
                            continue;
                        }
                        let lower = name(s).to_ascii_lowercase();
                        let idx = remaining
                            .iter()
                            .position(|c| c.seat.as_deref() == Some(lower.as_str()))
                            .or_else(|| remaining.iter().position(|c| c.seat.is_none()));
                        let Some(idx) = idx else {
                            return Err(bad(format!(
                                "{at}: {} moves before you there, but the condition names no move of {}; write the moves of the others since your move, e.g. `if {} MOVE then YOUR-MOVE`",
                                name(s),
                                name(s),
                                lower
                            )));
                        };
                        let c = remaining.remove(idx);
                        let checked = rules.check_move(&state, s, &c.text).map_err(|e| {
                            bad(format!(
                                "{at}: the condition {:?} is not a move {} can play there: {e}",
                                c.text,
                                name(s)
                            ))
                        })?;
                        condition.push(KeptMove {
                            seat: s.index() as u8,
                            entered: c.text.clone(),
                            canonical: checked.canonical.clone(),
                            notation: checked.notation,
                        });
                        moves.push((s, checked.canonical));
                    }
                    let r = rules.resolve(&hist, &state, &moves).map_err(|e| bad(format!("{at}: {e}")))?;
                    hist.push(std::mem::replace(&mut state, r.state));
                    if r.outcome.is_some() {
                        return Err(bad(format!(
                            "{at}: the game ends with these moves, so no reply follows; end the line before this step"
                        )));
                    }
                }
                if let Some(c) = remaining.first() {
                    return Err(bad(format!(
                        "{at}: the condition's move {:?} is not played before your reply{}",
                        c.text,
                        c.seat.as_ref().map(|s| format!(" ({s} does not move then)")).unwrap_or_default()
                    )));
                }
                if condition.is_empty() {
                    return Err(bad(format!("{at}: it is your move there without a move of the others to answer")));
                }
                let checked = rules.check_move(&state, seat, &step.reply).map_err(|e| {
                    let cond: Vec<&str> = condition.iter().map(|m| m.notation.as_str()).collect();
                    bad(format!("{at}: the reply {:?} is not legal after {}: {e}", step.reply, cond.join(", ")))
                })?;
                pending = Some(checked.canonical.clone());
                steps.push(KeptStep {
                    condition,
                    reply: KeptMove {
                        seat: seat.index() as u8,
                        entered: step.reply.clone(),
                        canonical: checked.canonical,
                        notation: checked.notation,
                    },
                });
            }
            out.push(KeptLine { steps });
        }
        Ok(out)
    }

    /// After a turn resolved and the game goes on: for each seat that now owes
    /// a move and holds lines, which line fires (its reply is returned, to be
    /// played by [`Steward::fire_conditionals`]) and which are dropped. The
    /// lines left and the seat's notice are stored here.
    pub(super) fn decide_conditionals(
        &self,
        tx: &Tx<'_>,
        id: &GameId,
        now: DateTime<Utc>,
    ) -> Result<Vec<Fire>, StewardError> {
        let seats = tx.conditional_seats(id)?;
        if seats.is_empty() {
            return Ok(Vec::new());
        }
        let game = super::load(tx, id.as_str())?;
        let to_move = game.rules.seats_to_move(&game.row.state).map_err(internal)?;
        let mut fires = Vec::new();
        for seat in seats {
            if !to_move.contains(seat) || tx.move_of(id, game.row.turn, seat)?.is_some() {
                continue;
            }
            let Some(row) = tx.conditional_of(id, seat)? else { continue };
            let lines = self.lines_of(tx, &game, seat)?;
            let mut played: Vec<(u8, String, String)> = Vec::new();
            for t in row.from_turn..game.row.turn {
                for m in tx.moves_of_turn(id, t)? {
                    if m.seat != seat {
                        played.push((m.seat.index() as u8, m.canonical, m.notation));
                    }
                }
            }
            let matches = |l: &KeptLine| {
                l.steps.first().is_some_and(|s| {
                    s.condition.len() == played.len()
                        && s.condition.iter().zip(&played).all(|(c, p)| c.seat == p.0 && c.canonical == p.1)
                })
            };
            let total = lines.len();
            let notice;
            match lines.iter().position(matches) {
                Some(i) => {
                    let reply = lines[i].steps[0].reply.clone();
                    let legal = game.rules.check_move(&game.row.state, seat, &reply.canonical).is_ok();
                    // Lines that agree with the one that fired go on with it.
                    let same: Vec<KeptLine> = if legal {
                        lines
                            .into_iter()
                            .filter(|l| matches(l) && l.steps[0].reply.canonical == reply.canonical)
                            .collect()
                    } else {
                        Vec::new()
                    };
                    let dropped = total - same.len();
                    let kept: Vec<KeptLine> = same
                        .into_iter()
                        .map(|mut l| {
                            l.steps.remove(0);
                            l
                        })
                        .filter(|l| !l.steps.is_empty())
                        .collect();
                    let held = if kept.is_empty() { None } else { Some(self.seal_lines(&game, seat, &kept)?) };
                    tx.set_conditional(id, seat, game.row.turn, held.as_deref(), now)?;
                    if legal {
                        let owing: Vec<Seat> = to_move.iter().collect();
                        let number = super::numbers::owed(super::numbers::record_end(tx, &game)?, &owing, seat);
                        notice = format!(
                            "your line {} fired: {} was played for you as move {} (API turn {}){}; {}.",
                            i + 1,
                            reply.notation,
                            number.unwrap_or_default(),
                            game.row.turn,
                            dropped_text(dropped),
                            kept_text(kept.len())
                        );
                        fires.push(Fire { seat, canonical: reply.canonical });
                    } else {
                        notice = format!(
                            "your line {} matched the moves played, but its reply {} is not legal now, so it was dropped with your other lines ({total} in all).",
                            i + 1,
                            reply.notation
                        );
                    }
                }
                None => {
                    tx.set_conditional(id, seat, game.row.turn, None, now)?;
                    let what: Vec<&str> = played.iter().map(|p| p.2.as_str()).collect();
                    notice = format!(
                        "none of your {total} line{} matched what was played ({}), so {} dropped.",
                        if total == 1 { "" } else { "s" },
                        if what.is_empty() { "no move".to_owned() } else { what.join(", ") },
                        if total == 1 { "it was" } else { "they were" }
                    );
                }
            }
            self.add_notice(tx, &game, seat, &notice, now)?;
        }
        Ok(fires)
    }

    fn add_notice(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        seat: Seat,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let (gid, seat_name) = (game.row.id.as_str(), game.seat_name(seat));
        let earlier = match tx.conditional_of(&game.row.id, seat)?.and_then(|r| r.notice) {
            Some(n) => Some(
                protocol::open_held(&n, &self.keys, gid, &seat_name, NOTICE_AAD_TURN)
                    .map_err(|e| super::internal_while("opening a conditional notice", e))?,
            ),
            None => None,
        };
        let text = match earlier {
            Some(e) => format!("{e} Then {text}"),
            None => {
                let mut t = text.to_owned();
                if let Some(first) = t.get_mut(0..1) {
                    first.make_ascii_uppercase();
                }
                t
            }
        };
        let sealed = protocol::seal_held(&text, &self.keys, gid, &seat_name, NOTICE_AAD_TURN);
        tx.set_conditional_notice(&game.row.id, seat, Some(&sealed), now)?;
        Ok(())
    }

    /// The notices waiting for the seats' next board mails, taken (each is
    /// told once).
    pub(super) fn take_conditional_notices(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        fires: &[Fire],
        now: DateTime<Utc>,
    ) -> Result<ConditionalMail, StewardError> {
        let firing = fires.iter().fold(SeatSet::EMPTY, |set, f| set.with(f.seat));
        let mut notices = BTreeMap::new();
        for (seat, sealed) in tx.conditional_notices(&game.row.id)? {
            if firing.contains(seat) {
                continue; // told in the board mail after its reply
            }
            let text =
                protocol::open_held(&sealed, &self.keys, game.row.id.as_str(), &game.seat_name(seat), NOTICE_AAD_TURN)
                    .map_err(|e| super::internal_while("opening a conditional notice", e))?;
            tx.set_conditional_notice(&game.row.id, seat, None, now)?;
            notices.insert(seat, text);
        }
        Ok(ConditionalMail { notices, firing })
    }

    /// Plays the replies [`Steward::decide_conditionals`] chose, each through
    /// the ordinary move path in the game as it stands then; one that is
    /// refused after all drops the seat's lines (and is said in its next mail).
    pub(super) fn fire_conditionals(
        &self,
        tx: &Tx<'_>,
        id: &GameId,
        fires: Vec<Fire>,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        for fire in fires {
            let game = super::load(tx, id.as_str())?;
            if game.row.outcome.is_some() {
                return Ok(());
            }
            let owed = game.rules.seats_to_move(&game.row.state).map_err(internal)?.contains(fire.seat);
            if !owed || tx.move_of(id, game.row.turn, fire.seat)?.is_some() {
                continue;
            }
            match tx.attempt(|tx| self.accept_conditional(tx, &game, fire.seat, &fire.canonical, now)) {
                Ok(_) => {}
                Err(StewardError::Refused(r)) => {
                    tracing::warn!(game = %id, code = r.code(), "a conditional reply was refused");
                    tx.set_conditional(id, fire.seat, game.row.turn, None, now)?;
                    let text =
                        format!("the reply of your conditional line was refused ({r}), so your lines were dropped.");
                    self.add_notice(tx, &game, fire.seat, &text, now)?;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

fn dropped_text(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => "; 1 other line did not match and was dropped".into(),
        n => format!("; {n} other lines did not match and were dropped"),
    }
}

fn kept_text(n: usize) -> String {
    match n {
        0 => "no line is left".into(),
        1 => "1 line goes on (send `conditional` to list it)".into(),
        n => format!("{n} lines go on (send `conditional` to list them)"),
    }
}

/// The other seats' names, for refusals.
fn others(game: &Loaded, seat: Seat) -> String {
    let all = SeatSet::first(game.seats.len() as u8);
    all.iter().filter(|&s| s != seat).map(|s| game.seat_name(s).to_ascii_lowercase()).collect::<Vec<_>>().join(", ")
}

/// Whether the game offers conditional lines at all.
fn offered(game: &Loaded) -> Result<(), StewardError> {
    if game.row.secrecy == Secrecy::CommitReveal {
        return Err(Refusal::ConditionalNotOffered(
            "this game uses commit-reveal: a commitment binds one move that not even the steward knows before every seat has committed, and a conditional line would hold your next moves in clear at the steward".into(),
        )
        .into());
    }
    if game.row.auth == Auth::Signature {
        return Err(Refusal::ConditionalNotOffered(
            "this game requires every move to be signed by the seat's key, and a move played from a conditional line would carry no signature of yours".into(),
        )
        .into());
    }
    Ok(())
}
