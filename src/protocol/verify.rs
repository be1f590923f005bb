//! Checking a transcript offline: the hash chain, the steward's signatures, the
//! players' signatures, every commitment against its reveal — and, by replaying
//! the rules, every resolution. Pure: the caller reads the transcript and the key.
//!
//! The first thing that does not hold is reported with the entry it was found in.

use std::collections::BTreeMap;

use serde_json::Value;

use super::transcript::{Entry, GENESIS, head_message};
use super::{Body, Envelope};
use crate::ids::hex;
use crate::rules::{DynVariant, Options, Seat, VariantId};

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
}

impl Replay {
    fn seat(&self, name: &str) -> Option<Seat> {
        self.seats.iter().position(|s| s.name.eq_ignore_ascii_case(name)).map(|i| Seat::new(i as u8))
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key).and_then(Value::as_str).ok_or_else(|| format!("{key} is missing or not text"))
}

fn number(v: &Value, key: &str) -> Result<u64, String> {
    v.get(key).and_then(Value::as_u64).ok_or_else(|| format!("{key} is missing or not a number"))
}

/// Checks a transcript (JSON lines, as `GET /api/games/{id}/transcript` gives
/// it) against the steward's Ed25519 public key.
///
/// # Errors
/// The first entry that does not hold, and why.
pub fn verify(transcript: &str, steward_key: &[u8; 32]) -> Result<Summary, Failure> {
    let mut summary = Summary::default();
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
        "ended" => r.over = true,
        // Clocks: a timeout that ends the game is followed by its `ended` entry;
        // one that does not (a seat out of a game with more seats) changes no state.
        "timeout" => {
            if r.over {
                return Err("an event after the game ended".into());
            }
            if let Some(stated) = body.get("state").and_then(Value::as_str) {
                // Play went on without the late seats: replay them leaving.
                let mut after = r.state.clone();
                for s in body.get("seats").and_then(Value::as_array).into_iter().flatten() {
                    let name = text(s, "seat")?;
                    let seat = r.seat(name).ok_or_else(|| format!("no seat {name}"))?;
                    let (next, _, ended) =
                        r.rules.retire(&after, seat).map_err(|e| format!("{name}'s timeout: {e}"))?;
                    after = next;
                    if ended.is_some() {
                        break;
                    }
                }
                if after != stated {
                    return Err(format!("the timeout gives {after} by the rules, the steward wrote {stated}"));
                }
                r.state = after;
            }
            if body.get("ends_game").and_then(Value::as_bool) == Some(true) {
                r.over = true;
            }
        }
        "resigned" if body.get("state").is_some() => {
            // Play went on without the seat: replay what its resignation does.
            if r.over {
                return Err("an event after the game ended".into());
            }
            let name = text(body, "seat")?;
            let seat = r.seat(name).ok_or_else(|| format!("no seat {name}"))?;
            let (after, _, _) = r.rules.retire(&r.state, seat).map_err(|e| format!("{name}'s resignation: {e}"))?;
            let stated = text(body, "state")?;
            if after != stated {
                return Err(format!("{name}'s resignation gives {after} by the rules, the steward wrote {stated}"));
            }
            r.state = after;
        }
        "moved" | "revealed" | "reveals_requested" | "resigned" | "draw_offered" | "draw_declined" | "grace"
        | "leave" | "key_rotated" => {
            if r.over && kind != "ended" {
                return Err("an event after the game ended".into());
            }
        }
        other => return Err(format!("unknown kind {other:?}")),
    }
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
            Ok(SeatInfo { name: text(s, "seat")?.to_owned(), key })
        })
        .collect::<Result<Vec<_>, String>>()?;
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
    })
}

/// Reads an envelope quoted in the transcript and checks that it is the seat's,
/// for this game and turn, and (if signed) signed by the seat's key.
fn check_envelope(r: &Replay, text: &str, seat: &str, turn: u32, summary: &mut Summary) -> Result<Envelope, String> {
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
                Body::Commit(_) => return Err(format!("{seat_name}'s move envelope is a commitment")),
            }
        }
        if r.commit_reveal {
            let salt =
                m.get("salt").and_then(Value::as_str).ok_or_else(|| format!("{seat_name}'s reveal has no salt"))?;
            let salt = super::decode_hex(salt).map_err(|e| format!("{seat_name}'s salt: {e}"))?;
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
    let result =
        r.rules.resolve(&r.history, &r.state, &given).map_err(|e| format!("the moves cannot be resolved: {e}"))?;
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
    r.history.push(std::mem::replace(&mut r.state, result.state));
    r.turn += 1;
    summary.turns += 1;
    Ok(())
}
