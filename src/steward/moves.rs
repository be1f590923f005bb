//! The move path: who sent it (token, signature), what it is (a move, a
//! commitment, a reveal), whether the game takes it now — and, once every seat
//! owing a move has one, the resolution. One store transaction per submission.
//!
//! A pending move is never stored in clear: it is held sealed with the steward's
//! at-rest key ([`protocol::seal_held`]: the game, seat and turn as associated
//! data) and opened when its turn resolves. The transcript and the other seats learn only *that* a seat moved.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::command::Gate;
use super::{Loaded, Receipt, Refusal, Steward, StewardError, internal, mails};
use crate::ids::{hex, new_receipt};
use crate::protocol::openpgp::{self, key::PlayerPgpKey, proof::OpenPgpProof, signed::SignatureProblem};
use crate::protocol::policy::{Auth, Secrecy};
use crate::protocol::{self, Body, Envelope, MIN_SALT_BYTES};
use crate::rules::{MoveText, RulesError, Seat, SeatResult};
use crate::store::{CommitmentRow, MoveRow, TurnRow, Tx, time_text};

/// What a door hands over: a move in one of its forms.
#[derive(Clone, Debug)]
pub enum Submission {
    /// A move in clear with the turn it is for (HTTP JSON, a bare mail line).
    Move {
        /// The turn the sender thinks is owed.
        turn: u32,
        /// The move text.
        text: String,
    },
    /// A commitment (commit-reveal games): SHA-256 in hex.
    Commit {
        /// The turn.
        turn: u32,
        /// `sha256(game|seat|turn|move|salt)`, hex.
        commitment: String,
    },
    /// A reveal (commit-reveal games).
    Reveal {
        /// The turn.
        turn: u32,
        /// The move committed to.
        text: String,
        /// The salt, hex.
        salt: String,
    },
    /// An envelope (docs/trust.md): signed, sealed, a commitment or a reveal.
    Envelope(Envelope),
}

/// A submission as it reaches the steward through a door.
#[derive(Clone, Debug)]
pub struct MoveRequest {
    /// The game id as given.
    pub game: String,
    /// The seat's token or reply capability (optional for signed envelopes).
    pub credential: Option<super::Credential>,
    /// What was sent.
    pub submission: Submission,
    /// The raw message, sealed for keeping ([`Steward::kept_copy`]).
    pub kept: super::KeptCopy,
    /// The door it came in through.
    pub door: super::Door,
}

/// What the sender means, once its seat is established.
enum Intent {
    Move(String),
    Commit([u8; 32]),
    Reveal { text: String, salt: Vec<u8> },
}

/// A submission bound to its seat and turn.
struct Claim {
    seat: Seat,
    turn: u32,
    intent: Intent,
    /// The envelope it came in (signed or sealed), as text.
    envelope: Option<String>,
    nonce: Option<String>,
    /// Played from the seat's conditional line (issue 32), not sent.
    conditional: bool,
}

/// A pending move as held (sealed to the steward's own key) until resolution.
#[derive(Serialize, Deserialize)]
struct Held {
    entered: String,
    canonical: String,
    notation: String,
    envelope: Option<String>,
    salt: Option<String>,
}

fn parse_hex(text: &str, what: &str) -> Result<Vec<u8>, Refusal> {
    protocol::decode_hex(text)
        .map_err(|_| Refusal::BadRequest(format!("the {what} is not hexadecimal: {:?}", text.trim())))
}

impl Steward {
    /// Accepts a move, a commitment or a reveal: checks it, holds it, and resolves
    /// the turn when it is complete — all in one transaction. A repeat of an
    /// accepted submission gets the same receipt; a different one for a turn
    /// already moved is refused.
    ///
    /// # Errors
    /// A [`Refusal`] for the sender's mistakes; nothing is changed then.
    pub async fn submit_move(&self, req: MoveRequest, now: DateTime<Utc>) -> Result<Receipt, StewardError> {
        let this = self.clone();
        let game_text = req.game.clone();
        let door = req.door;
        let result = self
            .store
            .transaction(move |tx| match this.submit_in(tx, &req, now) {
                Err(StewardError::Refused(r)) => {
                    // Kept for disputes even though nothing was accepted.
                    this.keep_refused(tx, &req, r.code(), now)?;
                    Ok(Err(r.into()))
                }
                other => other.map(Ok),
            })
            .await
            .and_then(|r| r);
        match &result {
            Ok(receipt) => {
                tracing::info!(game = %receipt.game, seat = %receipt.seat, turn = receipt.turn, resolved = receipt.resolved, "{} accepted", receipt.kind);
                // Every answer "accepted" counts, a repeat's too (issue 36).
                self.metrics.move_accepted(door.name());
            }
            Err(StewardError::Refused(r)) => {
                tracing::info!(game = %game_text, code = r.code(), "submission refused");
                self.metrics.move_refused(door.name(), r.code());
            }
            Err(e @ (StewardError::Internal(_) | StewardError::Unavailable(_))) => {
                tracing::error!(game = %game_text, error = %e, "submission not accepted")
            }
        }
        // A refusal may have settled a timeout that fell first.
        self.outbox.notify_one();
        result
    }

    /// Keeps the raw message of a refused submission for disputes.
    pub(super) fn keep_refused(
        &self,
        tx: &Tx<'_>,
        req: &MoveRequest,
        code: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let game = req.game.parse::<crate::ids::GameId>().ok();
        let game = match game {
            Some(g) if tx.game_exists(&g)? => Some(g),
            _ => None,
        };
        let outcome = format!("refused: {code}");
        tx.insert_inbound(&req.kept.row(now, req.door, game.as_ref(), &outcome))?;
        Ok(())
    }

    /// A submission after the commands' prologue ([`Gate::Submit`]), in the
    /// caller's transaction.
    pub(super) fn submit_in(
        &self,
        tx: &Tx<'_>,
        req: &MoveRequest,
        now: DateTime<Utc>,
    ) -> Result<Receipt, StewardError> {
        self.command_in(tx, &req.game, &Gate::Submit, now, |c| {
            let tx = c.tx;
            // Trust on first use (issue 33): the key is registered in this
            // savepoint, so a refusal below takes it back as well.
            let taken = self.take_openpgp_key_on_first_use(tx, &c.game, req, now)?;
            let reloaded;
            let game = match taken {
                Some(_) => {
                    reloaded = super::load(tx, c.game.row.id.as_str())?;
                    &reloaded
                }
                None => &c.game,
            };
            let claim = self.claim(tx, game, req)?;
            let mut receipt = match claim.intent {
                Intent::Move(_) | Intent::Reveal { .. } => self.accept_move(tx, game, claim, Some(req), now)?,
                Intent::Commit(_) => self.accept_commit(tx, game, claim, req, now)?,
            };
            self.sign_head(tx, &game.row.id)?;
            receipt.openpgp_key_taken = taken;
            Ok(receipt)
        })
    }

    /// Trust on first use (option `openpgp_tofu`, issue 33): an OpenPGP-signed
    /// submission for a seat that registered no OpenPGP key, from the seat's
    /// registered address, that offers a key (Autocrypt header or attached key)
    /// which made the signature: the key is registered (and recorded in the
    /// transcript). Its fingerprint, or `None` when nothing was taken.
    fn take_openpgp_key_on_first_use(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        req: &MoveRequest,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, StewardError> {
        let Submission::Envelope(env) = &req.submission else { return Ok(None) };
        self.take_openpgp_key_for(tx, game, env, now)
    }

    /// [`Steward::take_openpgp_key_on_first_use`] for any OpenPGP-signed
    /// envelope: a move, a commitment or reveal, or a signed action (draw
    /// offer, resignation, leave).
    pub(super) fn take_openpgp_key_for(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        env: &Envelope,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, StewardError> {
        let (Some(proof), Ok(seat)) = (env.openpgp.as_deref(), envelope_seat(game, env)) else { return Ok(None) };
        self.take_openpgp_key_of(tx, game, seat, proof, now)
    }

    /// [`Steward::take_openpgp_key_for`] for a signed mail that proves `seat`
    /// by `proof` (a signed envelope, or signed conditional lines).
    pub(super) fn take_openpgp_key_of(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        seat: Seat,
        proof: &OpenPgpProof,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, StewardError> {
        let Some(key) = tofu_candidate_of(game, seat, proof) else { return Ok(None) };
        if let Err(problem) = openpgp::signed::check(&key, &proof.signed, &proof.signature, proof.received_at) {
            return Err(Refusal::BadSignature(format!(
                "the key your mail offers ({}) would be taken on first use, but {problem}",
                key.fingerprint()
            ))
            .into());
        }
        let armored = key.armored();
        tx.set_openpgp_key(&game.row.id, seat, Some(&armored))?;
        tx.append_event(
            &game.row.id,
            now,
            "openpgp_key",
            &json!({
                "seat": game.seat_name(seat), "fingerprint": key.fingerprint(), "openpgp_key": armored,
                "trust_on_first_use": true,
            }),
        )?;
        Ok(Some(key.fingerprint().to_owned()))
    }

    /// Establishes the seat, the turn and the intent of a submission.
    fn claim(&self, tx: &Tx<'_>, game: &Loaded, req: &MoveRequest) -> Result<Claim, StewardError> {
        let token_seat = match &req.credential {
            Some(c) => Some(super::authenticate(tx, game, Some(c))?),
            None => None,
        };
        let env = match &req.submission {
            Submission::Envelope(env) => env,
            plain => {
                let seat = token_seat.ok_or(Refusal::BadToken)?;
                if game.row.auth == Auth::Signature {
                    return Err(Refusal::SignatureRequired.into());
                }
                let (turn, intent) = match plain {
                    Submission::Move { turn, text } => (*turn, Intent::Move(text.trim().to_owned())),
                    Submission::Commit { turn, commitment } => {
                        let bytes = parse_hex(commitment, "commitment")?;
                        let c: [u8; 32] = bytes
                            .try_into()
                            .map_err(|_| Refusal::BadRequest("a commitment is a SHA-256 hash: 64 hex digits".into()))?;
                        (*turn, Intent::Commit(c))
                    }
                    Submission::Reveal { turn, text, salt } => {
                        (*turn, Intent::Reveal { text: text.trim().to_owned(), salt: parse_hex(salt, "salt")? })
                    }
                    Submission::Envelope(_) => unreachable!("matched above"),
                };
                return Ok(Claim { seat, turn, intent, envelope: None, nonce: None, conditional: false });
            }
        };

        let seat = envelope_seat(game, env)?;
        if let Some(t) = token_seat.filter(|&t| t != seat) {
            return Err(Refusal::EnvelopeMismatch(format!(
                "the token is {}'s but the envelope is for {}",
                game.seat_name(t),
                game.seat_name(seat)
            ))
            .into());
        }
        match &env.sig {
            _ if env.openpgp.is_some() => Steward::check_signature(game, seat, env)?,
            Some(_) => Steward::check_signature(game, seat, env)?,
            None if game.row.auth == Auth::Signature => return Err(Refusal::SignatureRequired.into()),
            None if token_seat.is_none() => return Err(Refusal::BadToken.into()),
            None => {}
        }
        let intent = match &env.body {
            Body::Move(text) => Intent::Move(text.trim().to_owned()),
            Body::Sealed(bytes) => {
                let text = protocol::open_sealed(bytes, &self.keys, game.row.id.as_str(), &env.seat, env.turn)
                    .map_err(|e| Refusal::BadEnvelope(e.to_string()))?;
                match &env.salt {
                    Some(salt) => Intent::Reveal { text: text.trim().to_owned(), salt: salt.clone() },
                    None => Intent::Move(text.trim().to_owned()),
                }
            }
            Body::Commit(c) => Intent::Commit(*c),
            Body::Reveal { text, salt } => Intent::Reveal { text: text.trim().to_owned(), salt: salt.clone() },
            Body::Action(a) => {
                return Err(Refusal::BadRequest(format!(
                    "this envelope asks to {a}, it is not a move; POST it to {}",
                    a.http_path(game.row.id.as_str())
                ))
                .into());
            }
        };
        Ok(Claim {
            seat,
            turn: env.turn,
            intent,
            envelope: Some(env.record_text()),
            nonce: env.nonce.clone(),
            conditional: false,
        })
    }

    /// A signed envelope must be signed by its own seat's registered key.
    pub(super) fn check_signature(game: &Loaded, seat: Seat, env: &Envelope) -> Result<(), Refusal> {
        if let Some(proof) = &env.openpgp {
            return check_openpgp(game, seat, proof);
        }
        let key_of = |s: Seat| {
            game.seats.get(s.index()).and_then(|r| r.public_key.as_deref()).and_then(protocol::public_key_from_base64)
        };
        let Some(key) = key_of(seat) else {
            return Err(Refusal::BadSignature(format!(
                "{} registered no public key for game {}, so a signature cannot be checked; send the move with the seat token instead",
                game.seat_name(seat),
                game.row.id
            )));
        };
        if env.verify(&key).is_ok() {
            return Ok(());
        }
        let other = game
            .seats
            .iter()
            .map(|s| s.seat)
            .filter(|&s| s != seat)
            .find(|&s| key_of(s).is_some_and(|k| env.verify(&k).is_ok()));
        Err(match other {
            Some(o) => Refusal::BadSignature(format!(
                "the envelope for {} is signed with the key of {}; sign it with {}'s own key",
                game.seat_name(seat),
                game.seat_name(o),
                game.seat_name(seat)
            )),
            None => Refusal::BadSignature(format!(
                "the signature does not verify with {}'s registered key (the envelope was altered or signed with another key); sign the envelope again with `fairsteward player sign`",
                game.seat_name(seat)
            )),
        })
    }

    /// The checks every submission passes before it is taken: the game is on, the
    /// turn is the one owed, and the seat owes a move in it.
    fn check_owed(&self, game: &Loaded, seat: Seat, turn: u32) -> Result<crate::rules::SeatSet, StewardError> {
        if let Some(o) = game.row.outcome {
            return Err(Refusal::GameOver(game.outcome_text(o)).into());
        }
        if turn != game.row.turn {
            return Err(Refusal::WrongTurn { expected: game.row.turn, got: turn }.into());
        }
        let to_move = game.rules.seats_to_move(&game.row.state).map_err(internal)?;
        if !to_move.contains(seat) {
            let names: Vec<String> = to_move.iter().map(|s| game.seat_name(s)).collect();
            return Err(Refusal::NotYourTurn {
                seat: game.seat_name(seat),
                turn: game.row.turn,
                to_move: names.join(" and "),
            }
            .into());
        }
        Ok(to_move)
    }

    fn accept_commit(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        claim: Claim,
        req: &MoveRequest,
        now: DateTime<Utc>,
    ) -> Result<Receipt, StewardError> {
        let Intent::Commit(c) = claim.intent else { unreachable!("called for commitments") };
        let id = &game.row.id;
        let seat_name = game.seat_name(claim.seat);
        let commitment = hex(&c);
        let given = tx.commitments_of_turn(id, claim.turn)?;
        if let Some(earlier) = given.iter().find(|e| e.seat == claim.seat) {
            if earlier.commitment != commitment {
                self.check_not_resolved(tx, game, claim.seat, claim.turn)?;
                return Err(Refusal::AlreadyMoved {
                    seat: seat_name,
                    turn: claim.turn,
                    when: time_text(earlier.received_at),
                }
                .into());
            }
            if claim.turn < game.row.turn && claim.envelope.is_some() {
                let now_at = self.already_resolved(tx, game, claim.seat, claim.turn)?;
                return Err(replayed(claim.turn, &earlier.receipt, &now_at.note).into());
            }
            let entry = tx.entry_with_receipt(id, &earlier.receipt)?;
            let mut receipt = Receipt::commit(game, earlier, seat_name, entry);
            if claim.turn < game.row.turn {
                receipt.already_resolved = Some(self.already_resolved(tx, game, claim.seat, claim.turn)?);
            }
            return Ok(receipt);
        }
        if game.row.secrecy != Secrecy::CommitReveal {
            return Err(Refusal::NotCommitReveal.into());
        }
        self.check_not_resolved(tx, game, claim.seat, claim.turn)?;
        let to_move = self.check_owed(game, claim.seat, claim.turn)?;
        if opens_with_short_salt(game, claim.seat, claim.turn, &c) {
            return Err(Refusal::BadRequest(format!(
                "this commitment is the hash of a move you can play with an empty or one-byte salt: anyone can compute it, so it would show your move, and its reveal would be refused (a reveal needs the salt of at least {MIN_SALT_BYTES} random bytes that went into the commitment); commit again with `fairsteward player commit --game {id} --seat {seat_name} --turn {} --move YOUR-MOVE`, which draws such a salt",
                claim.turn
            ))
            .into());
        }
        let row = CommitmentRow {
            turn: claim.turn,
            seat: claim.seat,
            commitment: commitment.clone(),
            receipt: new_receipt(),
            received_at: now,
            envelope: claim.envelope,
        };
        tx.insert_commitment(id, &row)?;
        self.clock_moved(tx, game, claim.seat, now, true)?; // clocks: the move is fixed
        tx.insert_inbound(&req.kept.row(now, req.door, Some(id), "accepted"))?;
        let (_, entry) = tx.append_event(
            id,
            now,
            "committed",
            &json!({
                "turn": row.turn, "seat": seat_name, "commitment": commitment, "receipt": row.receipt,
                "envelope": row.envelope,
            }),
        )?;
        let all = to_move.iter().all(|s| s == claim.seat || given.iter().any(|c| c.seat == s));
        if all {
            tx.append_event(id, now, "reveals_requested", &json!({"turn": row.turn}))?;
            self.clock_reveals_requested(tx, game, to_move, now)?; // clocks
        }
        let head = self.sign_head(tx, id)?;
        let announcement = format!(
            "{seat_name} committed to a move for turn {} at {} (commitment {commitment}).",
            row.turn,
            time_text(now)
        );
        let text = if all {
            format!(
                "{announcement}\nEvery seat has committed for turn {}. Now send your reveal (your move and its salt): paste the envelope `fairsteward player reveal` prints into a reply to this mail.",
                row.turn
            )
        } else {
            announcement
        };
        let kind = if all { mails::Notice::RevealNow } else { mails::Notice::Committed(claim.seat) };
        for mail in mails::notice(self, game, kind, &text, None, &head, now)? {
            tx.queue_mail(&mail, now)?;
        }
        Ok(Receipt::commit(game, &row, seat_name, entry))
    }

    fn accept_move(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        claim: Claim,
        req: Option<&MoveRequest>,
        now: DateTime<Utc>,
    ) -> Result<Receipt, StewardError> {
        let id = &game.row.id;
        let seat = claim.seat;
        let conditional = claim.conditional;
        let seat_name = game.seat_name(seat);
        let (text, salt) = match &claim.intent {
            Intent::Move(t) => (t.clone(), None),
            Intent::Reveal { text, salt } => (text.clone(), Some(salt.clone())),
            Intent::Commit(_) => unreachable!("commitments go to accept_commit"),
        };
        let kind = if salt.is_some() { "reveal" } else { "move" };

        // The turn owed now is read once: for the seat's earlier move and the
        // moves given so far.
        let current = if claim.turn == game.row.turn { Some(tx.moves_of_turn(id, game.row.turn)?) } else { None };
        let earlier = match &current {
            Some(given) => given.iter().find(|m| m.seat == seat).cloned(),
            None => tx.move_of(id, claim.turn, seat)?,
        };
        if let Some(earlier) = earlier {
            let earlier = self.open_held(game, earlier)?;
            let same = self.same_move(tx, game, &earlier, seat, &text)?;
            if !same {
                self.check_not_resolved(tx, game, seat, claim.turn)?;
                return Err(Refusal::AlreadyMoved {
                    seat: seat_name,
                    turn: claim.turn,
                    when: time_text(earlier.received_at),
                }
                .into());
            }
            // An envelope for a resolved turn is a replay, even a byte-identical
            // one: the answer names the receipt it got, and nothing changes.
            if claim.turn < game.row.turn && claim.envelope.is_some() {
                let now_at = self.already_resolved(tx, game, claim.seat, claim.turn)?;
                return Err(replayed(claim.turn, &earlier.receipt, &now_at.note).into());
            }
            let entry = tx.entry_with_receipt(id, &earlier.receipt)?;
            let mut receipt = Receipt::moved(game, &earlier, seat_name, kind, entry);
            if claim.turn < game.row.turn {
                receipt.already_resolved = Some(self.already_resolved(tx, game, seat, claim.turn)?);
            }
            return Ok(receipt);
        }
        match (game.row.secrecy, &salt) {
            (Secrecy::Hold, Some(_)) => return Err(Refusal::NotCommitReveal.into()),
            (Secrecy::CommitReveal, None) => return Err(Refusal::CommitFirst.into()),
            _ => {}
        }
        self.check_not_resolved(tx, game, seat, claim.turn)?;
        let to_move = self.check_owed(game, seat, claim.turn)?;
        if let Some(salt) = &salt {
            let commitments = tx.commitments_of_turn(id, claim.turn)?;
            let Some(mine) = commitments.iter().find(|c| c.seat == seat) else {
                return Err(Refusal::NoCommitment { turn: claim.turn }.into());
            };
            let waiting: Vec<String> = to_move
                .iter()
                .filter(|s| !commitments.iter().any(|c| c.seat == *s))
                .map(|s| game.seat_name(s))
                .collect();
            if !waiting.is_empty() {
                return Err(Refusal::RevealTooEarly { waiting: waiting.join(" and ") }.into());
            }
            if salt.len() < MIN_SALT_BYTES {
                return Err(Refusal::BadRequest(format!(
                    "the salt has {} bytes; a reveal needs the salt of at least {MIN_SALT_BYTES} random bytes that went into the commitment",
                    salt.len()
                ))
                .into());
            }
            let expected = protocol::commitment(id.as_str(), &seat_name, claim.turn, &text, salt);
            if hex(&expected) != mine.commitment {
                return Err(Refusal::RevealMismatch { commitment: mine.commitment.clone() }.into());
            }
        }
        let checked = game.rules.check_move(&game.row.state, seat, &text).map_err(|e| match e {
            // The variant says why, and names its forms with examples from this position.
            RulesError::Move { error, .. } => StewardError::Refused(Refusal::IllegalMove(teaching(game, seat, error))),
            other => internal(other),
        })?;
        let given = match current {
            Some(given) => given,
            None => tx.moves_of_turn(id, game.row.turn)?,
        };
        let complete = to_move.iter().all(|s| s == seat || given.iter().any(|m| m.seat == s));
        let mut row = MoveRow {
            turn: game.row.turn,
            seat,
            receipt: new_receipt(),
            entered: String::new(),
            canonical: String::new(),
            notation: String::new(),
            received_at: now,
            status: "pending".to_owned(),
            reason: None,
            completes: complete,
            held: None,
            envelope: None,
            nonce: claim.nonce,
        };
        if complete && salt.is_none() {
            // The move that completes the turn is resolved below, in this same
            // transaction: it is public from the commit on, so sealing it would
            // only be undone (a seal and an opening on the store thread).
            // A reveal stays sealed: its salt travels in the held part.
            row.entered = text.clone();
            row.canonical = checked.canonical.clone();
            row.notation = checked.notation.clone();
            row.envelope = claim.envelope;
        } else {
            let held = Held {
                entered: text.clone(),
                canonical: checked.canonical.clone(),
                notation: checked.notation.clone(),
                envelope: claim.envelope,
                salt: salt.as_deref().map(hex),
            };
            let held_json = serde_json::to_string(&held).map_err(internal)?;
            row.held = Some(protocol::seal_held(&held_json, &self.keys, id.as_str(), &seat_name, game.row.turn));
        }
        tx.insert_move(id, &row)?;
        self.clock_moved(tx, game, seat, now, salt.is_none())?; // clocks: a reveal was counted at its commitment
        if let Some(req) = req {
            tx.insert_inbound(&req.kept.row(now, req.door, Some(id), "accepted"))?;
        }
        // The transcript says that the seat moved, never what, until resolution.
        let event = if salt.is_some() { "revealed" } else { "moved" };
        let mut body = json!({"turn": row.turn, "seat": seat_name, "receipt": row.receipt});
        if conditional {
            // Played from the seat's conditional line (issue 32): the steward submitted it.
            body["conditional"] = json!(true);
        }
        let (_, entry) = tx.append_event(id, now, event, &body)?;
        if complete {
            self.resolve_turn(tx, game, now)?;
            // A move written with a draw offer (a game's own mark, see Variant::move_text) offers it once
            // played, so the offer outlives the turn it was sent in.
            if game.rules.move_text(&text) == Some(MoveText::OffersDraw) {
                let after = super::load(tx, id.as_str())?;
                if after.row.outcome.is_none() {
                    let body = json!({"seat": seat_name, "turn": after.row.turn, "with_move": row.receipt});
                    self.offer_draw(tx, &after, seat, &body, now)?;
                }
            }
        }
        let shown = MoveRow { notation: checked.notation, ..row };
        Ok(Receipt::moved(game, &shown, seat_name, kind, entry))
    }

    /// A stored move with its held (sealed) part opened, in memory only.
    pub(super) fn open_held(&self, game: &Loaded, m: MoveRow) -> Result<MoveRow, StewardError> {
        Ok(self.open_held_with_salt(game, m)?.0)
    }

    /// [`Steward::open_held`], with the reveal's salt (hex) if it was one.
    fn open_held_with_salt(&self, game: &Loaded, m: MoveRow) -> Result<(MoveRow, Option<String>), StewardError> {
        let Some(sealed) = &m.held else { return Ok((m, None)) };
        let seat_name = game.seat_name(m.seat);
        let json = protocol::open_held(sealed, &self.keys, game.row.id.as_str(), &seat_name, m.turn).map_err(|e| {
            super::internal_while(
                format!("cannot open the held move of {} turn {} {seat_name}", game.row.id, m.turn),
                e,
            )
        })?;
        let held: Held = serde_json::from_str(&json).map_err(internal)?;
        let m = MoveRow {
            entered: held.entered,
            canonical: held.canonical,
            notation: held.notation,
            envelope: held.envelope,
            ..m
        };
        Ok((m, held.salt))
    }

    /// Whether `text` names the same move as the accepted `earlier` one.
    fn same_move(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        earlier: &MoveRow,
        seat: Seat,
        text: &str,
    ) -> Result<bool, StewardError> {
        if earlier.entered == text.trim() || earlier.canonical == text.trim() {
            return Ok(true);
        }
        // Read the text in the position the earlier move was made in.
        let state = if earlier.turn == game.row.turn {
            game.row.state.clone()
        } else {
            match tx.turns(&game.row.id)?.into_iter().find(|t| t.turn == earlier.turn) {
                Some(t) => t.state_before,
                None => return Ok(false),
            }
        };
        Ok(game.rules.check_move(&state, seat, text).is_ok_and(|m| m.canonical == earlier.canonical))
    }

    fn resolve_turn(&self, tx: &Tx<'_>, game: &Loaded, now: DateTime<Utc>) -> Result<(), StewardError> {
        let id = &game.row.id;
        let mut given = Vec::new();
        let mut salts = Vec::new();
        for m in tx.moves_of_turn(id, game.row.turn)? {
            // A move stored in clear (the one completing the turn) has nothing to unhold.
            let held = m.held.is_some();
            let (m, salt) = self.open_held_with_salt(game, m)?;
            if held {
                tx.unhold_move(id, &m)?;
            }
            salts.push(salt);
            given.push(m);
        }
        // Only the states a repetition can still reach back to: reading and
        // parsing the whole game on every turn would grow with its length.
        let window = game
            .rules
            .repetition_window(&game.row.state)
            .map_err(|e| super::internal_while(format!("resolving {id} turn {}", game.row.turn), e))?;
        let history = match window {
            Some(last) => tx.recent_history(id, last)?,
            None => tx.history(id)?,
        };
        let moves: Vec<(Seat, String)> = given.iter().map(|m| (m.seat, m.canonical.clone())).collect();
        let r = game
            .rules
            .resolve(&history, &game.row.state, &moves)
            .map_err(|e| super::internal_while(format!("resolving {id} turn {}", game.row.turn), e))?;
        for m in &r.moves {
            let reason = match &m.result {
                SeatResult::Struck(why) => Some(why.as_str()),
                _ => None,
            };
            tx.settle_move(id, game.row.turn, m.seat, m.result.as_str(), reason)?;
        }
        tx.insert_turn(
            id,
            &TurnRow {
                turn: game.row.turn,
                state_before: game.row.state.clone(),
                state_after: r.state.clone(),
                notes: r.notes.clone(),
                resolved_at: now,
            },
        )?;
        tx.advance_game(id, &r.state, game.row.turn + 1, now)?;
        // Counted as it is written (issue 36): a transaction that fails after
        // this, rarely, leaves the count one ahead of the store.
        self.metrics.turn_resolved();
        tx.clear_draw_offers(id)?;
        self.clock_turn_resolved(tx, game, &r.state, r.outcome.is_some(), now)?; // clocks
        let moves_json: Vec<_> = r
            .moves
            .iter()
            .map(|m| {
                let mut v = json!({"seat": game.seat_name(m.seat), "move": m.notation, "uci": m.mv, "status": m.result.as_str()});
                if let SeatResult::Struck(why) = &m.result {
                    v["reason"] = json!(why);
                }
                if let Some((g, salt)) = given.iter().zip(&salts).find(|(g, _)| g.seat == m.seat) {
                    v["entered"] = json!(g.entered);
                    if let Some(e) = &g.envelope {
                        v["envelope"] = json!(e);
                    }
                    if let Some(s) = salt {
                        v["salt"] = json!(s);
                    }
                }
                v
            })
            .collect();
        tx.append_event(id, now, "resolved", &json!({
            "turn": game.row.turn, "state_before": game.row.state, "moves": moves_json, "notes": r.notes, "state": r.state,
        }))?;
        if let Some(o) = r.outcome {
            self.end(tx, game, o, now)?;
        }
        // Conditional lines (issue 32): decided before the board mails, so that
        // they tell what fired and what was dropped; played after them.
        let fires = if r.outcome.is_none() { self.decide_conditionals(tx, id, now)? } else { Vec::new() };
        let conditional = self.take_conditional_notices(tx, game, &fires, now)?;
        let head = self.sign_head(tx, id)?;
        let clocks = self.clock_lines(tx, game, now)?;
        let mail_settings = super::mail_settings::of_seats(tx, game)?;
        let end = super::numbers::record_end(tx, game)?;
        let readers = mails::Readers { clocks: &clocks, conditional: &conditional, mail: &mail_settings, end };
        for mail in mails::turn(self, game, &r, &head, now, &readers)? {
            tx.queue_mail(&mail, now)?;
        }
        self.fire_conditionals(tx, id, fires, now)
    }

    /// Plays `canonical` for `seat` from its conditional line (issue 32):
    /// through the ordinary move path, validated again, marked in the
    /// transcript as played from a conditional line.
    pub(super) fn accept_conditional(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        seat: Seat,
        canonical: &str,
        now: DateTime<Utc>,
    ) -> Result<Receipt, StewardError> {
        let claim = Claim {
            seat,
            turn: game.row.turn,
            intent: Intent::Move(canonical.to_owned()),
            envelope: None,
            nonce: None,
            conditional: true,
        };
        let receipt = self.accept_move(tx, game, claim, None, now)?;
        self.sign_head(tx, &game.row.id)?;
        Ok(receipt)
    }
}

/// Whether a commitment opens by trial to a move the seat can play (its
/// canonical text or the notation the rules print) with an empty or one-byte
/// salt. A hash does not show its salt's length, so this is what the steward can
/// check at commit time: such a commitment hides nothing (an opponent finds the
/// move the same way), and its reveal would be refused as shorter than
/// [`MIN_SALT_BYTES`]. Longer short salts are refused at reveal. About 500
/// hashes per legal move.
fn opens_with_short_salt(game: &Loaded, seat: Seat, turn: u32, commitment: &[u8; 32]) -> bool {
    let Ok(moves) = game.rules.legal_moves(&game.row.state, seat) else { return false };
    let (id, seat_name) = (game.row.id.as_str(), game.seat_name(seat));
    let salts = std::iter::once(Vec::new()).chain((0..=255u8).map(|b| vec![b]));
    let salts: Vec<Vec<u8>> = salts.collect();
    moves.iter().any(|m| {
        let notation = game.rules.check_move(&game.row.state, seat, m).ok().map(|c| c.notation);
        std::iter::once(m.as_str())
            .chain(notation.as_deref())
            .any(|text| salts.iter().any(|salt| protocol::commitment(id, &seat_name, turn, text, salt) == *commitment))
    })
}

/// An illegal move's refusal names the forms the game reads, each with an
/// example from this position, besides the legal moves the variant lists
/// (issue 32: refusals that teach), unless the variant's words name them already.
fn teaching(game: &Loaded, seat: Seat, error: crate::rules::MoveError) -> crate::rules::MoveError {
    match error {
        crate::rules::MoveError::Illegal { text, reason } if !reason.contains("write moves") => {
            let reason = match game.rules.move_forms(&game.row.state, seat) {
                Ok(forms) => format!("{reason}; {forms}"),
                Err(_) => reason,
            };
            crate::rules::MoveError::Illegal { text, reason }
        }
        crate::rules::MoveError::NotAMove { text, why } if !why.contains("write moves") => {
            let why = match game.rules.move_forms(&game.row.state, seat) {
                Ok(forms) => format!("{why}; {forms}"),
                Err(_) => why,
            };
            crate::rules::MoveError::NotAMove { text, why }
        }
        other => other,
    }
}

fn replayed(turn: u32, receipt: &str, now_at: &str) -> Refusal {
    Refusal::Replayed(format!(
        "this envelope for turn {turn} was accepted before (receipt {receipt}) and that turn is resolved; nothing was changed. {now_at}"
    ))
}

impl Steward {
    /// Where the game stands, for a repeat of a submission whose turn `turn`
    /// is resolved: the turn now, the game's URL and the seat's latest board mail.
    fn already_resolved(
        &self,
        tx: &Tx<'_>,
        game: &Loaded,
        seat: Seat,
        turn: u32,
    ) -> Result<super::AlreadyResolved, StewardError> {
        let game_url = format!("{}/api/games/{}", self.public_url.trim_end_matches('/'), game.row.id);
        let board_mail = tx.latest_board_mail(&game.row.id, seat.index())?;
        let now = match game.row.outcome {
            Some(o) => format!("The game is over ({})", game.outcome_text(o)),
            None => match self.move_number_now(tx, game, seat)? {
                Some(label) => format!("The game is at move {label} (API turn {})", game.row.turn),
                None => format!("The game is at turn {}", game.row.turn),
            },
        };
        let mail = match &board_mail {
            Some((id, subject)) => format!("the latest board mail, {subject:?} (Message-ID <{id}>), or "),
            None => String::new(),
        };
        Ok(super::AlreadyResolved {
            note: format!("Turn {turn} was resolved already; nothing was changed. {now}: see {mail}{game_url}."),
            current_turn: game.row.turn,
            game_url,
            board_mail,
        })
    }
}

impl Steward {
    /// The move number owed now (`12...`): `seat`'s own when it owes one,
    /// else the first seat's to move; `None` once over.
    fn move_number_now(&self, tx: &Tx<'_>, game: &Loaded, seat: Seat) -> Result<Option<String>, StewardError> {
        if game.row.outcome.is_some() {
            return Ok(None);
        }
        let owing: Vec<Seat> = game.rules.seats_to_move(&game.row.state).map_err(internal)?.iter().collect();
        Ok(super::numbers::owed(super::numbers::record_end(tx, game)?, &owing, seat))
    }

    /// Refuses a submission for a turn resolved already (not a repeat of the
    /// seat's own accepted one, which gets its receipt again): it says so,
    /// names the turn and move number now and the latest board mail (issue 32).
    /// A game over is left to [`Steward::check_owed`], which says that.
    fn check_not_resolved(&self, tx: &Tx<'_>, game: &Loaded, seat: Seat, turn: u32) -> Result<(), StewardError> {
        if game.row.outcome.is_some() || turn == 0 || turn >= game.row.turn {
            return Ok(());
        }
        let at = self.already_resolved(tx, game, seat, turn)?;
        let move_number = self.move_number_now(tx, game, seat)?.unwrap_or_default();
        let now = at.note.split_once("nothing was changed. ").map_or(at.note.as_str(), |(_, rest)| rest).to_owned();
        Err(Refusal::TurnResolved { turn, now, current: game.row.turn, move_number }.into())
    }
}

/// The seat and the key an OpenPGP-signed envelope offers for trust on first
/// use: the game allows it, the seat has no OpenPGP key yet, the mail came from
/// the seat's registered address and offers a key that reads. The signature is
/// not checked here.
pub(super) fn tofu_candidate(game: &Loaded, env: &Envelope) -> Option<(Seat, PlayerPgpKey)> {
    let proof = env.openpgp.as_deref()?;
    let seat = envelope_seat(game, env).ok()?;
    Some((seat, tofu_candidate_of(game, seat, proof)?))
}

/// [`tofu_candidate`] for a mail signed by `proof` that names `seat`.
pub(super) fn tofu_candidate_of(game: &Loaded, seat: Seat, proof: &OpenPgpProof) -> Option<PlayerPgpKey> {
    if !game.row.openpgp_tofu {
        return None;
    }
    let row = game.seats.get(seat.index())?;
    if row.openpgp_key.is_some() {
        return None;
    }
    let sender = super::senders::address_key(proof.sender.as_deref()?);
    if sender != super::senders::address_key(&row.email) {
        return None;
    }
    PlayerPgpKey::parse(proof.offered_key.as_deref()?).ok()
}

/// An envelope read from an OpenPGP-signed part (issue 33): the signature must
/// be by the seat's registered OpenPGP key (its primary key or a signing
/// subkey), unrevoked and unexpired when made and when received.
pub(super) fn check_openpgp(game: &Loaded, seat: Seat, proof: &OpenPgpProof) -> Result<(), Refusal> {
    let registered = game.seats.get(seat.index()).and_then(|r| r.openpgp_key.as_deref());
    let Some(key) = registered.and_then(|k| PlayerPgpKey::parse(k).ok()) else {
        return Err(Refusal::BadSignature(format!(
            "your mail is OpenPGP-signed, but {} registered no OpenPGP key for game {}, so the signature cannot be checked; register your public key first (PUT /api/games/{}/seats/{}/openpgp-key with your seat token)",
            game.seat_name(seat),
            game.row.id,
            game.row.id,
            game.seat_name(seat)
        )));
    };
    match openpgp::signed::check(&key, &proof.signed, &proof.signature, proof.received_at) {
        Ok(_) => Ok(()),
        Err(problem) => {
            // Another seat's key says more than a bare fingerprint.
            if let SignatureProblem::OtherKey { .. } = &problem {
                let other = game.seats.iter().filter(|s| s.seat != seat).find(|s| {
                    s.openpgp_key.as_deref().and_then(|k| PlayerPgpKey::parse(k).ok()).is_some_and(|k| {
                        openpgp::signed::check(&k, &proof.signed, &proof.signature, proof.received_at).is_ok()
                    })
                });
                if let Some(o) = other {
                    return Err(Refusal::BadSignature(format!(
                        "the signed move for {} is signed with the OpenPGP key of {}; sign it with {}'s own key",
                        game.seat_name(seat),
                        game.seat_name(o.seat),
                        game.seat_name(seat)
                    )));
                }
            }
            Err(Refusal::BadSignature(problem.to_string()))
        }
    }
}

/// The seat an envelope names, in the game it was sent to.
///
/// # Errors
/// The envelope is for another game, or names no seat of this one.
pub(super) fn envelope_seat(game: &Loaded, env: &Envelope) -> Result<Seat, StewardError> {
    if env.game != game.row.id.as_str() {
        return Err(Refusal::EnvelopeMismatch(format!(
            "this envelope is for game {}, but it was sent to game {}",
            env.game, game.row.id
        ))
        .into());
    }
    super::answers::seat_named(game, &env.seat).ok_or_else(|| {
        let names: Vec<String> = game.seats.iter().map(|s| game.seat_name(s.seat)).collect();
        Refusal::EnvelopeMismatch(format!(
            "game {} has no seat {:?}; its seats are {}",
            game.row.id,
            env.seat,
            names.join(", ")
        ))
        .into()
    })
}
