//! Checking a transcript offline: the hash chain, the steward's signatures, the
//! players' signatures, every commitment against its reveal — and, by replaying
//! the rules, every resolution. Pure: the caller reads the transcript and the key.
//!
//! The first thing that does not hold is reported with the entry it was found in.
//!
//! Completeness: a transcript cut after any signed entry still chains and is
//! signed at its end, so only the head a player holds (printed in every board
//! mail) shows that nothing was cut off or added: [`verify_head`] checks it.
//! An `ended` entry must follow the event that ends the game — a resignation, a
//! timeout, the last seat's draw offer, or the rules' outcome of a turn as
//! replayed — and state that event's result; nothing may follow it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::openpgp::{key::PlayerPgpKey, key::same_fingerprint as same_pgp_fingerprint, proof::OpenPgpProof};
use super::transcript::{Entry, GENESIS, head_message};
use super::{Action, Body, Envelope};
use crate::ids::hex;
use crate::rules::{DynVariant, EndReason, GameResult, Options, Outcome, Seat, SeatSet, VariantId};

/// What a transcript that holds contains.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The game.
    pub game: String,
    /// Entries checked.
    pub entries: usize,
    /// Steward signatures checked.
    pub steward_signatures: usize,
    /// Player signatures checked.
    pub player_signatures: usize,
    /// Commitments checked against their reveals.
    pub commitments: usize,
    /// Turns replayed through the rules.
    pub turns: usize,
    /// Sealed moves whose content could not be compared with their envelope
    /// (the envelope is encrypted to the steward).
    pub sealed: usize,
    /// The last entry's hash: the head the transcript ends at.
    pub head: String,
    /// Whether the head was compared with one the caller holds (see
    /// [`verify_head`]); without that, a transcript cut after a signed entry
    /// cannot be told from a whole one.
    pub head_checked: bool,
    /// How the game ended, as checked against its cause: `1-0 (resignation),
    /// after black's resignation`; `None` while the game is on.
    pub ended: Option<String>,
    /// Seats whose player an organiser replaced.
    pub replaced: usize,
    /// Whether an organiser ended the game (adjudicated or aborted it) rather
    /// than the play: `ended` then names who and why.
    pub decided: bool,
    /// A finished game an organiser cancelled afterwards (a tournament
    /// withdrawal under ICCF's rule): who and why, in words. Its result stands
    /// in the transcript but no longer counts in the standings.
    pub cancelled: Option<String>,
}

/// The first thing that does not hold.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("entry {seq}{kind}: {why}")]
pub struct Failure {
    /// The entry's place (line number when it could not be read).
    pub seq: usize,
    /// The entry's kind, as ` (kind)`, when known.
    pub kind: String,
    /// What is wrong.
    pub why: String,
}

fn fail(seq: usize, kind: &str, why: impl Into<String>) -> Failure {
    Failure { seq, kind: if kind.is_empty() { String::new() } else { format!(" ({kind})") }, why: why.into() }
}

/// One seat as the `created` entry names it.
struct SeatInfo {
    name: String,
    key: Option<[u8; 32]>,
    /// The seat's OpenPGP key (armour), as the transcript records it (issue 33).
    pgp: Option<String>,
}

/// The game as replayed so far.
struct Replay {
    game: String,
    rules: Box<dyn DynVariant>,
    seats: Vec<SeatInfo>,
    commit_reveal: bool,
    state: String,
    history: Vec<String>,
    turn: u32,
    commitments: BTreeMap<(u32, String), String>,
    over: bool,
    /// The outcome the last event gives and that event in words: the next
    /// entry must be `ended` with that outcome.
    due_end: Option<(Outcome, String)>,
    /// Seats whose draw offer stands (offers lapse when a turn resolves or
    /// one seat declines).
    draw_offers: SeatSet,
}

impl Replay {
    fn seat(&self, name: &str) -> Option<Seat> {
        self.seats.iter().position(|s| s.name.eq_ignore_ascii_case(name)).map(|i| Seat::new(i as u8))
    }

    fn seat_names(&self) -> Vec<String> {
        self.seats.iter().map(|s| s.name.clone()).collect()
    }

    /// The seat an entry's `seat` names.
    fn seat_of(&self, body: &Value) -> Result<(Seat, String), String> {
        let name = text(body, "seat")?;
        Ok((self.seat(name).ok_or_else(|| format!("no seat {name}"))?, name.to_owned()))
    }

    /// Checks the signed envelope an action entry quotes, if any: the seat's,
    /// for this game and `turn`, signed with its key, and asking for one of
    /// `expected`.
    fn check_action(
        &self,
        body: &Value,
        seat: &str,
        turn: u32,
        expected: &[fn(&Action) -> bool],
        summary: &mut Summary,
    ) -> Result<(), String> {
        let Some(env) = body.get("envelope") else { return Ok(()) };
        let env = env.as_str().ok_or("envelope is not text")?;
        let env = check_envelope(self, env, seat, turn, summary)?;
        match &env.body {
            Body::Action(a) if env.is_signed() && expected.iter().any(|f| f(a)) => Ok(()),
            Body::Action(a) => {
                Err(format!("{seat}'s envelope asks for {a}, or is not signed, which is not this entry"))
            }
            other => Err(format!("{seat}'s envelope holds a {}, not an action", other.kind())),
        }
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key).and_then(Value::as_str).ok_or_else(|| format!("{key} is missing or not text"))
}

fn number(v: &Value, key: &str) -> Result<u64, String> {
    v.get(key).and_then(Value::as_u64).ok_or_else(|| format!("{key} is missing or not a number"))
}

/// Checks a transcript (JSON lines, as `GET /api/games/{id}/transcript` gives
/// it) against the steward's Ed25519 public key. Whether it is complete is not
/// checked ([`Summary::head_checked`] is false): see [`verify_head`].
///
/// # Errors
/// The first entry that does not hold, and why.
pub fn verify(transcript: &str, steward_key: &[u8; 32]) -> Result<Summary, Failure> {
    verify_head(transcript, steward_key, None)
}

/// Reads a head as a player copies it from a board mail: 64 hex digits,
/// optionally after `sha256` (`sha256 ab12…` or `sha256:ab12…`).
///
/// # Errors
/// Anything else, with what to give instead.
pub fn parse_head(given: &str) -> Result<String, String> {
    let t = given.trim();
    let t = t.strip_prefix("sha256").map_or(t, |r| r.trim_start_matches([':', ' ']));
    if t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(t.to_ascii_lowercase())
    } else {
        Err(format!(
            "{given:?} is not a transcript head; give the 64 hex digits after `Transcript head: entry N, sha256` in your latest board mail"
        ))
    }
}

/// As [`verify`], and with `head` (64 hex digits, see [`parse_head`]) the
/// transcript must end exactly at that entry: a transcript cut short (its last
/// hash is not `head`) or extended (`head` is an earlier entry) fails.
///
/// # Errors
/// The first entry that does not hold, and why.
pub fn verify_head(transcript: &str, steward_key: &[u8; 32], head: Option<&str>) -> Result<Summary, Failure> {
    let mut summary = Summary::default();
    let mut hashes: Vec<String> = Vec::new();
    let mut prev = GENESIS.to_owned();
    let mut replay: Option<Replay> = None;
    let mut last_signed = false;
    let lines: Vec<&str> = transcript.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return Err(fail(0, "", "the transcript is empty"));
    }
    let mut steward_key = rotation::starting_key(&lines, steward_key);
    // Rebound so the checks below use the key in force (it changes at a rotation).
    let steward_key = &mut steward_key;
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let entry: Value = serde_json::from_str(line).map_err(|e| fail(n, "", format!("not a JSON object: {e}")))?;
        let kind = entry.get("kind").and_then(Value::as_str).unwrap_or("").to_owned();
        let f = |why: String| fail(n, &kind, why);
        let seq = number(&entry, "seq").map_err(f)?;
        if seq != n as u64 {
            return Err(f(format!("its seq is {seq}, expected {n}: an entry is missing, doubled or out of order")));
        }
        let game = text(&entry, "game").map_err(f)?.to_owned();
        if let Some(r) = &replay
            && r.game != game
        {
            return Err(f(format!("it belongs to game {game}, the transcript to {}", r.game)));
        }
        let at = text(&entry, "at").map_err(f)?;
        let given_prev = text(&entry, "prev").map_err(f)?;
        if given_prev != prev {
            return Err(f(format!("its prev is {given_prev}, but the entry before hashes to {prev}")));
        }
        let body = entry.get("body").ok_or_else(|| f("body is missing".into()))?;
        let body_text = body.to_string();
        let hash = Entry { game: &game, seq: n as u32, at, kind: &kind, prev: &prev, body: &body_text }.hash();
        let given_hash = text(&entry, "hash").map_err(f)?;
        if given_hash != hash {
            return Err(f(format!("its content hashes to {hash}, not to the {given_hash} it states: it was altered")));
        }
        last_signed = false;
        if let Some(sig) = entry.get("signature") {
            let sig = sig.as_str().ok_or_else(|| f("signature is not text".into()))?;
            let sig = super::decode_base64(sig).map_err(|e| f(format!("signature: {e}")))?;
            if !super::verify_signature(steward_key, &head_message(&game, n as u32, &hash), &sig) {
                return Err(f(
                    "the steward's signature over this head does not verify with the given steward key".into()
                ));
            }
            summary.steward_signatures += 1;
            last_signed = true;
        }
        if kind == "key_rotated" {
            // Signed (above) by the key it replaces; the heads after it by the new one.
            if !last_signed {
                return Err(f("a key rotation not signed by the steward's key before it".into()));
            }
            *steward_key = rotation::next_key(body, steward_key).map_err(f)?;
        }
        check_event(&mut replay, &game, &kind, body, &mut summary).map_err(f)?;
        hashes.push(hash.clone());
        prev = hash;
        summary.entries = n;
        summary.game = game;
    }
    if !last_signed {
        return Err(fail(
            lines.len(),
            "",
            "the last entry is not signed by the steward: the transcript was cut or extended",
        ));
    }
    if let Some((_, cause)) = replay.as_ref().and_then(|r| r.due_end.as_ref()) {
        return Err(fail(
            lines.len(),
            "",
            format!("{cause} ended the game, but no ended entry follows: the transcript was cut"),
        ));
    }
    summary.head = prev;
    if let Some(given) = head {
        let given = parse_head(given).map_err(|why| fail(0, "", why))?;
        if given != summary.head {
            let n = lines.len();
            return Err(match hashes.iter().position(|h| *h == given) {
                Some(i) => fail(
                    i + 1,
                    "",
                    format!(
                        "the head you gave is this entry, but the transcript goes on to entry {n}: it was extended past your head (if your mail is older than the transcript, give the head of your latest board mail)"
                    ),
                ),
                None => fail(
                    n,
                    "",
                    format!(
                        "the transcript ends here, at {}, and no entry of it has the head {given} you gave: it was cut short, or it is not the transcript your mail vouches for",
                        summary.head
                    ),
                ),
            });
        }
        summary.head_checked = true;
    }
    Ok(summary)
}

fn check_event(
    replay: &mut Option<Replay>,
    game: &str,
    kind: &str,
    body: &Value,
    summary: &mut Summary,
) -> Result<(), String> {
    if kind == "created" {
        if replay.is_some() {
            return Err("a second created entry".into());
        }
        *replay = Some(created(game, body)?);
        return Ok(());
    }
    let r = replay.as_mut().ok_or("the transcript does not start with the created entry")?;
    // A cancellation follows the end: it takes a finished game out of a
    // tournament's standings (a running one is aborted instead).
    if kind == "cancelled" {
        if !r.over {
            return Err("a cancellation of a game that is not over (a running game is aborted, not cancelled)".into());
        }
        if summary.cancelled.is_some() {
            return Err("a second cancellation".into());
        }
        let by = organiser(body)?;
        let reason = text(body, "reason")?;
        summary.cancelled = Some(format!("by {by} ({reason})"));
        return Ok(());
    }
    if summary.cancelled.is_some() {
        return Err("an event after the game was cancelled".into());
    }
    if r.over {
        return Err("an event after the game ended".into());
    }
    if kind != "ended"
        && let Some((_, cause)) = &r.due_end
    {
        return Err(format!("{cause} ended the game, but this entry follows instead of the ended entry"));
    }
    match kind {
        "committed" => {
            let turn = number(body, "turn")? as u32;
            let seat = text(body, "seat")?.to_owned();
            let commitment = text(body, "commitment")?.to_owned();
            if let Some(env) = body.get("envelope").and_then(Value::as_str) {
                let env = check_envelope(r, env, &seat, turn, summary)?;
                match env.body {
                    Body::Commit(c) if hex(&c) == commitment => {}
                    _ => return Err("the commit envelope does not hold the recorded commitment".into()),
                }
            }
            if r.commitments.insert((turn, seat.to_ascii_lowercase()), commitment).is_some() {
                return Err(format!("a second commitment by {seat} for turn {turn}"));
            }
        }
        "resolved" => resolved(r, body, summary)?,
        "ended" => ended(r, body, summary)?,
        // Clocks: a timeout ends the game when the rules say so (then its `ended`
        // entry follows); where play goes on without the late seats, they leave
        // the board as a resignation takes them off.
        "timeout" => {
            let late: Vec<Seat> = body
                .get("seats")
                .and_then(Value::as_array)
                .ok_or("seats are missing")?
                .iter()
                .map(|s| r.seat_of(s).map(|(seat, _)| seat))
                .collect::<Result<_, _>>()?;
            let set = late.iter().fold(SeatSet::EMPTY, |set, s| set.with(*s));
            let mut outcome = r.rules.timeout(&r.state, set).map_err(|e| format!("the timeout: {e}"))?;
            let mut after = r.state.clone();
            if outcome.is_none() {
                for &seat in &late {
                    let (next, _, ended) = r.rules.retire(&after, seat).map_err(|e| format!("the timeout: {e}"))?;
                    after = next;
                    if let Some(o) = ended {
                        outcome = Some(Outcome { reason: EndReason::Time, ..o });
                        break;
                    }
                }
            }
            match body.get("state").and_then(Value::as_str) {
                Some(stated) if stated != after => {
                    return Err(format!("the timeout gives {after} by the rules, the steward wrote {stated}"));
                }
                None if after != r.state => {
                    return Err("by the rules the late seats leave the board, but the entry records no state".into());
                }
                _ => {}
            }
            let ends = body.get("ends_game").and_then(Value::as_bool).ok_or("ends_game is missing")?;
            if ends != outcome.is_some() {
                return Err(format!(
                    "it says ends_game {ends}, but by the rules the timeout {} the game",
                    if outcome.is_some() { "ends" } else { "does not end" }
                ));
            }
            r.state = after;
            if let Some(o) = outcome {
                let names: Vec<String> = late.iter().map(|s| r.seats[s.index()].name.clone()).collect();
                r.due_end = Some((o, format!("the timeout of {}", names.join(" and "))));
            }
        }
        "resigned" => {
            let (seat, name) = r.seat_of(body)?;
            let turn = number(body, "turn")? as u32;
            r.check_action(body, &name, turn, &[|a| *a == Action::Resign], summary)?;
            let (after, _, outcome) =
                r.rules.retire(&r.state, seat).map_err(|e| format!("{name}'s resignation: {e}"))?;
            match body.get("state").and_then(Value::as_str) {
                // Play went on without the seat: the steward wrote the state.
                Some(stated) if stated != after => {
                    return Err(format!("{name}'s resignation gives {after} by the rules, the steward wrote {stated}"));
                }
                None if after != r.state => {
                    return Err(format!(
                        "by the rules {name}'s resignation changes the board, but the entry records no state"
                    ));
                }
                _ => {}
            }
            if outcome.is_none() && after == r.state {
                return Err(format!(
                    "by the rules {name} cannot resign alone here: it neither ends the game nor leaves the board"
                ));
            }
            r.state = after;
            if let Some(o) = outcome {
                r.due_end = Some((o, format!("{name}'s resignation")));
            }
        }
        "draw_offered" => {
            let (seat, name) = r.seat_of(body)?;
            let turn = number(body, "turn")? as u32;
            r.check_action(body, &name, turn, &[|a| *a == Action::OfferDraw, |a| *a == Action::AcceptDraw], summary)?;
            r.draw_offers = r.draw_offers.with(seat);
            let draw = r.rules.agreed_draw(&r.state).map_err(|e| format!("the state before the offer: {e}"))?;
            if draw.seats.iter().all(|s| r.draw_offers.contains(s)) {
                r.due_end = Some((draw.outcome, "the draw every seat agreed to".into()));
            }
        }
        "draw_declined" => {
            let (_, name) = r.seat_of(body)?;
            let turn = number(body, "turn")? as u32;
            r.check_action(body, &name, turn, &[|a| *a == Action::DeclineDraw], summary)?;
            r.draw_offers = SeatSet::EMPTY;
        }
        "leave" => {
            // A signed leave is quoted in the game its envelope names.
            if let Some(env) = body.get("envelope").and_then(Value::as_str) {
                // An OpenPGP-signed leave (issue 33) names its seat in the signed bytes.
                let seat = if OpenPgpProof::is_proof_text(env) {
                    OpenPgpProof::parse(env).and_then(|p| p.envelope().map_err(|e| e.to_string()))
                } else {
                    Envelope::parse(env).map_err(|e| e.to_string())
                }
                .map_err(|e| format!("the leave envelope: {e}"))?
                .seat;
                let on_leave = body.get("seats").and_then(Value::as_array).into_iter().flatten();
                if !on_leave.filter_map(Value::as_str).any(|s| s.eq_ignore_ascii_case(&seat)) {
                    return Err(format!("the leave is signed by {seat}, a seat it does not name"));
                }
                let turn = r.turn;
                r.check_action(body, &seat, turn, &[|a| matches!(a, Action::Leave { .. })], summary)?;
            }
        }
        // The organiser's desk (issue 31): an organiser's decisions, each
        // naming who decided it.
        "adjudicated" => {
            let by = organiser(body)?;
            let reason = text(body, "reason")?;
            let names = r.seat_names();
            let decision = text(body, "decision")?;
            let result = GameResult::from_decision(decision, &names).map_err(|e| format!("the decision: {e}"))?;
            let o = Outcome { result, reason: EndReason::Adjudicated };
            let stated = text(body, "result")?;
            if stated != o.recorded_result(&names) {
                return Err(format!(
                    "it decides {decision:?}, which is {}, but states {stated}",
                    o.recorded_result(&names)
                ));
            }
            r.due_end = Some((o, format!("the adjudication by {by} ({reason})")));
        }
        "aborted" => {
            let by = organiser(body)?;
            let reason = text(body, "reason")?;
            r.due_end = Some((Outcome::aborted(), format!("the abort by {by} ({reason})")));
        }
        "deadline_extended" => {
            organiser(body)?;
            r.seat_of(body)?;
            number(body, "hours")?;
        }
        // issue 33: a seat's OpenPGP key registered or replaced; it checks the
        // seat's OpenPGP-signed moves from here on.
        "openpgp_key" => {
            let (seat, _) = r.seat_of(body)?;
            let key = body.get("openpgp_key").and_then(Value::as_str);
            if let Some(k) = key {
                let read = PlayerPgpKey::parse(k).map_err(|e| format!("the OpenPGP key: {e}"))?;
                if let Some(stated) = body.get("fingerprint").and_then(Value::as_str)
                    && !same_pgp_fingerprint(stated, read.fingerprint())
                {
                    return Err(format!("the OpenPGP key's fingerprint is {}, not {stated}", read.fingerprint()));
                }
            }
            r.seats[seat.index()].pgp = key.map(str::to_owned);
        }
        "replaced" => {
            organiser(body)?;
            let (seat, _) = r.seat_of(body)?;
            text(body, "player")?;
            // The new player's key signs the seat's envelopes from here on.
            r.seats[seat.index()].key = match body.get("public_key").and_then(Value::as_str) {
                Some(k) => Some(
                    super::public_key_from_base64(k).ok_or_else(|| format!("the public key {k:?} is not readable"))?,
                ),
                None => None,
            };
            // The new player brings no OpenPGP key of the old one's, only
            // their own if one was given (issue 33).
            r.seats[seat.index()].pgp = match body.get("openpgp_key").and_then(Value::as_str) {
                Some(k) => {
                    PlayerPgpKey::parse(k).map_err(|e| format!("the new player's OpenPGP key: {e}"))?;
                    Some(k.to_owned())
                }
                None => None,
            };
            summary.replaced += 1;
        }
        "relinked" => {
            organiser(body)?;
            r.seat_of(body)?;
        }
        // A move played from the seat's conditional line (issue 32) is marked
        // `"conditional": true`; its move is checked with the turn's resolution.
        "moved" if body.get("conditional").is_some_and(|c| !c.is_boolean()) => {
            return Err("the conditional mark of a move is not true or false".into());
        }
        "moved" | "revealed" | "reveals_requested" | "grace" | "key_rotated" => {}
        other => return Err(format!("unknown kind {other:?}")),
    }
    Ok(())
}

/// Who made an organiser's decision, in words: `the operator` or `director
/// NAME (tournament T…)`.
fn organiser(body: &Value) -> Result<String, String> {
    let by = body.get("by").ok_or("by is missing: an organiser's decision names who made it")?;
    match text(by, "role")? {
        "operator" => Ok("the operator".to_owned()),
        "director" => Ok(format!("director {} (tournament {})", text(by, "name")?, text(by, "tournament")?)),
        other => Err(format!("by names the role {other:?}, neither operator nor director")),
    }
}

/// An `ended` entry: it must state the outcome of the event just before it.
fn ended(r: &mut Replay, body: &Value, summary: &mut Summary) -> Result<(), String> {
    let (o, cause) = r.due_end.take().ok_or(
        "an ended entry with no event before it that ends the game (a resignation, a timeout, a draw all seats agreed to, the rules' outcome of a turn, or an organiser's adjudication or abort)",
    )?;
    let names = r.seat_names();
    let (result, reason) = (text(body, "result")?, text(body, "reason")?);
    let winner = body.get("winner").and_then(Value::as_str);
    let expected = o.recorded_result(&names);
    let winners: Vec<String> = o.result.winners().iter().map(|s| names[s.index()].clone()).collect();
    let expected_winner = (!winners.is_empty()).then(|| winners.join(" and "));
    if result != expected || reason != o.reason.as_str() || winner != expected_winner.as_deref() {
        return Err(format!(
            "it records {result} ({reason}), winner {winner:?}, but {cause} gives {expected} ({}), winner {expected_winner:?}",
            o.reason
        ));
    }
    r.over = true;
    summary.decided = matches!(o.reason, EndReason::Adjudicated | EndReason::Aborted);
    summary.ended = Some(format!("{}, after {cause}", o.text(&names)));
    Ok(())
}

/// `keys rotate`: a `key_rotated` entry, signed by the steward's key so far,
/// names the next (`signing_key`, `sealing_key`, their `fingerprint`) and the
/// one it replaces (`previous_signing_key`).
mod rotation {
    use serde_json::Value;

    use super::text;
    use crate::protocol::{fingerprint, public_key_from_base64};

    /// The key the transcript starts with: `given` itself, unless `given` is a
    /// key a rotation in the transcript introduced; then the first rotation's
    /// previous key (each step is checked on the way: a head `given` signed
    /// vouches for the chain before it).
    pub(super) fn starting_key(lines: &[&str], given: &[u8; 32]) -> [u8; 32] {
        let keys = |field: &str| -> Vec<[u8; 32]> {
            lines
                .iter()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter(|e| e.get("kind").and_then(Value::as_str) == Some("key_rotated"))
                .filter_map(|e| e.get("body").and_then(|b| b.get(field)).and_then(Value::as_str).map(str::to_owned))
                .filter_map(|k| public_key_from_base64(&k))
                .collect()
        };
        let introduced = keys("signing_key");
        match keys("previous_signing_key").first() {
            Some(first) if introduced.contains(given) => *first,
            _ => *given,
        }
    }

    /// The key after the rotation `body`, checked against the `current` one.
    pub(super) fn next_key(body: &Value, current: &[u8; 32]) -> Result<[u8; 32], String> {
        let key = |field: &str| {
            public_key_from_base64(text(body, field)?).ok_or_else(|| format!("{field} is not a public key"))
        };
        if key("previous_signing_key")? != *current {
            return Err("the rotation names a previous key that is not the key before it".into());
        }
        let (signing, sealing) = (key("signing_key")?, key("sealing_key")?);
        let stated = text(body, "fingerprint")?;
        if !crate::protocol::same_fingerprint(stated, &fingerprint(&signing, &sealing)) {
            return Err(format!("the rotation's fingerprint {stated} is not that of the keys it names"));
        }
        Ok(signing)
    }
}

fn created(game: &str, body: &Value) -> Result<Replay, String> {
    let variant: VariantId = text(body, "variant")?.parse().map_err(|e: crate::rules::UnknownVariant| e.to_string())?;
    let mut options = Options::new();
    if let Some(map) = body.get("options").and_then(Value::as_object) {
        for (k, v) in map {
            options = options.set(k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned));
        }
    }
    let rules = variant.rulebook(&options).map_err(|e| format!("the game's options: {e}"))?;
    let seats = body
        .get("seats")
        .and_then(Value::as_array)
        .ok_or("seats are missing")?
        .iter()
        .map(|s| {
            let key = match s.get("public_key").and_then(Value::as_str) {
                Some(k) => Some(
                    super::public_key_from_base64(k).ok_or_else(|| format!("the public key {k:?} is not readable"))?,
                ),
                None => None,
            };
            let pgp = s.get("openpgp_key").and_then(Value::as_str).map(str::to_owned);
            Ok(SeatInfo { name: text(s, "seat")?.to_owned(), key, pgp })
        })
        .collect::<Result<Vec<_>, String>>()?;
    // The seats are the variant's, in its order: the replay names them by index.
    let names: Vec<&str> = seats.iter().map(|s| s.name.as_str()).collect();
    let expected = rules.seat_names();
    if names.len() != expected.len() || names.iter().zip(expected).any(|(a, b)| !a.eq_ignore_ascii_case(b)) {
        return Err(format!("the seats {} are not {}'s seats {}", names.join(", "), variant, expected.join(", ")));
    }
    let state = rules.canonical_state(text(body, "state")?).map_err(|e| format!("the start state: {e}"))?;
    Ok(Replay {
        game: game.to_owned(),
        rules,
        seats,
        commit_reveal: body.get("secrecy").and_then(Value::as_str) == Some("commit-reveal"),
        state,
        history: Vec::new(),
        turn: 1,
        commitments: BTreeMap::new(),
        over: false,
        due_end: None,
        draw_offers: SeatSet::EMPTY,
    })
}

/// Reads an envelope quoted in the transcript and checks that it is the seat's,
/// for this game and turn, and (if signed) signed by the seat's key.
fn check_envelope(r: &Replay, text: &str, seat: &str, turn: u32, summary: &mut Summary) -> Result<Envelope, String> {
    if OpenPgpProof::is_proof_text(text) {
        return check_openpgp(r, text, seat, turn, summary);
    }
    let env = Envelope::parse(text).map_err(|e| format!("the envelope of {seat}: {e}"))?;
    if !env.game.eq_ignore_ascii_case(&r.game) || !env.seat.eq_ignore_ascii_case(seat) || env.turn != turn {
        return Err(format!("the envelope of {seat} is for game {}, seat {}, turn {}", env.game, env.seat, env.turn));
    }
    if env.sig.is_some() {
        let s = r.seat(seat).ok_or_else(|| format!("no seat {seat}"))?;
        let key = r.seats[s.index()]
            .key
            .ok_or_else(|| format!("{seat}'s envelope is signed but the seat registered no key"))?;
        env.verify(&key).map_err(|e| format!("{seat}'s signature: {e}"))?;
        summary.player_signatures += 1;
    }
    Ok(env)
}

/// An OpenPGP-signed move quoted in the transcript (issue 33): the signature
/// over the signed bytes must verify with the seat's recorded OpenPGP key (not
/// revoked or expired when made), and the envelope read again from the signed
/// bytes must be the seat's, for this game and turn.
fn check_openpgp(r: &Replay, text: &str, seat: &str, turn: u32, summary: &mut Summary) -> Result<Envelope, String> {
    let proof = OpenPgpProof::parse(text).map_err(|e| format!("the OpenPGP proof of {seat}: {e}"))?;
    let s = r.seat(seat).ok_or_else(|| format!("no seat {seat}"))?;
    let armored = r.seats[s.index()]
        .pgp
        .as_deref()
        .ok_or_else(|| format!("{seat}'s move is OpenPGP-signed but the seat registered no OpenPGP key"))?;
    let key = PlayerPgpKey::parse(armored).map_err(|e| format!("{seat}'s OpenPGP key: {e}"))?;
    // Offline, the time that counts is the signature's own: `now` = 0 checks nothing later.
    crate::protocol::openpgp::signed::check(&key, &proof.signed, &proof.signature, 0)
        .map_err(|e| format!("{seat}'s OpenPGP signature: {e}"))?;
    let env = proof.envelope().map_err(|e| format!("{seat}'s OpenPGP-signed part: {e}"))?;
    if !env.game.eq_ignore_ascii_case(&r.game) || !env.seat.eq_ignore_ascii_case(seat) || env.turn != turn {
        return Err(format!(
            "the OpenPGP-signed move of {seat} is for game {}, seat {}, turn {}",
            env.game, env.seat, env.turn
        ));
    }
    summary.player_signatures += 1;
    Ok(env)
}

fn resolved(r: &mut Replay, body: &Value, summary: &mut Summary) -> Result<(), String> {
    if r.over {
        return Err("a resolution after the game ended".into());
    }
    let turn = number(body, "turn")? as u32;
    if turn != r.turn {
        return Err(format!("it resolves turn {turn}, but turn {} was due", r.turn));
    }
    if let Some(before) = body.get("state_before").and_then(Value::as_str)
        && before != r.state
    {
        return Err(format!("it starts from {before}, but the replay stands at {}", r.state));
    }
    let moves = body.get("moves").and_then(Value::as_array).ok_or("moves are missing")?;
    let mut given = Vec::new();
    for m in moves {
        let seat_name = text(m, "seat")?;
        let seat = r.seat(seat_name).ok_or_else(|| format!("no seat {seat_name}"))?;
        let uci = text(m, "uci")?.to_owned();
        let entered = m.get("entered").and_then(Value::as_str);
        if let Some(env) = m.get("envelope").and_then(Value::as_str) {
            let env = check_envelope(r, env, seat_name, turn, summary)?;
            match &env.body {
                Body::Move(t) | Body::Reveal { text: t, .. } => {
                    if Some(t.trim()) != entered.map(str::trim) {
                        return Err(format!("{seat_name}'s envelope says {t:?}, the resolution {entered:?}"));
                    }
                }
                Body::Sealed(_) => summary.sealed += 1,
                Body::Commit(_) | Body::Action(_) => {
                    return Err(format!("{seat_name}'s move envelope is a {}", env.body.kind()));
                }
            }
        }
        if r.commit_reveal {
            let salt =
                m.get("salt").and_then(Value::as_str).ok_or_else(|| format!("{seat_name}'s reveal has no salt"))?;
            let salt = super::decode_hex(salt).map_err(|e| format!("{seat_name}'s salt: {e}"))?;
            if salt.len() < super::MIN_SALT_BYTES {
                return Err(format!(
                    "{seat_name}'s salt has {} bytes, fewer than the {} a reveal needs",
                    salt.len(),
                    super::MIN_SALT_BYTES
                ));
            }
            let entered = entered.ok_or_else(|| format!("{seat_name}'s revealed move is missing"))?;
            let committed = r
                .commitments
                .get(&(turn, seat_name.to_ascii_lowercase()))
                .ok_or_else(|| format!("{seat_name} revealed without a commitment for turn {turn}"))?;
            let actual = hex(&super::commitment(&r.game, &seat_name.to_ascii_lowercase(), turn, entered, &salt));
            if &actual != committed {
                return Err(format!("{seat_name}'s reveal hashes to {actual}, not to its commitment {committed}"));
            }
            summary.commitments += 1;
        }
        if let Some(entered) = entered {
            let checked = r
                .rules
                .check_move(&r.state, seat, entered)
                .map_err(|e| format!("{seat_name}'s move {entered:?}: {e}"))?;
            if checked.canonical != uci {
                return Err(format!("{seat_name} entered {entered:?}, which is {}, not {uci}", checked.canonical));
            }
        }
        given.push((seat, uci));
    }
    // Only the states the rules can still use, as the steward reads them:
    // a long game's transcript verifies in time linear in its length.
    let window = r.rules.repetition_window(&r.state).map_err(|e| format!("the state cannot be read: {e}"))?;
    let recent = &r.history[r.history.len() - window.map_or(r.history.len(), |n| n.min(r.history.len()))..];
    let result = r.rules.resolve(recent, &r.state, &given).map_err(|e| format!("the moves cannot be resolved: {e}"))?;
    let state = text(body, "state")?;
    if result.state != state {
        return Err(format!("the rules give {}, the steward wrote {state}", result.state));
    }
    for m in &result.moves {
        let name = &r.seats[m.seat.index()].name;
        let stated = moves
            .iter()
            .find(|v| v.get("seat").and_then(Value::as_str).is_some_and(|s| s.eq_ignore_ascii_case(name)))
            .and_then(|v| v.get("status"))
            .and_then(Value::as_str);
        if stated != Some(m.result.as_str()) {
            return Err(format!("{name}'s move is {} by the rules, the steward wrote {stated:?}", m.result.as_str()));
        }
    }
    if let Some(o) = result.outcome {
        r.due_end = Some((o, format!("the rules' outcome of turn {turn}")));
    }
    r.draw_offers = SeatSet::EMPTY;
    r.history.push(std::mem::replace(&mut r.state, result.state));
    r.turn += 1;
    summary.turns += 1;
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A replay just created, of the first variant the registry lists.
    fn replay() -> (Option<Replay>, Summary) {
        let v = VariantId::ALL[0];
        let rules = v.rulebook(&Options::new()).unwrap();
        let seats: Vec<Value> = rules.seat_names().iter().map(|n| json!({"seat": n})).collect();
        let body = json!({"variant": v.name(), "seats": seats, "state": rules.start()});
        let (mut r, mut s) = (None, Summary::default());
        check_event(&mut r, "G", "created", &body, &mut s).unwrap();
        (r, s)
    }

    #[test]
    fn a_cancellation_follows_the_end_once_and_nothing_follows_it() {
        let cancel = json!({"reason": "P0 withdrew", "by": {"role": "operator"}, "tournament": "T1"});
        let (mut r, mut s) = replay();
        let early = check_event(&mut r, "G", "cancelled", &cancel, &mut s).unwrap_err();
        assert!(early.contains("not over"), "{early}");
        r.as_mut().unwrap().over = true;
        let unsigned = json!({"reason": "P0 withdrew"});
        assert!(check_event(&mut r, "G", "cancelled", &unsigned, &mut s).unwrap_err().contains("by is missing"));
        check_event(&mut r, "G", "cancelled", &cancel, &mut s).unwrap();
        assert_eq!(s.cancelled.as_deref(), Some("by the operator (P0 withdrew)"));
        assert!(check_event(&mut r, "G", "cancelled", &cancel, &mut s).unwrap_err().contains("second"));
        assert!(check_event(&mut r, "G", "grace", &json!({}), &mut s).unwrap_err().contains("cancelled"));
    }
}
