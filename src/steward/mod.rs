//! The referee: takes a move (or a resignation, a draw offer, a new game), decides,
//! and records everything in ONE store transaction — the receipt, the move, the
//! resolution when the turn is complete, the transcript entries and the mails to
//! send. Only after the commit does the sender hear "accepted".
//!
//! Turn-based and simultaneous games take the same path: the variant says which
//! seats owe a move; a turn resolves when each of them has one. Nothing here knows
//! "white" or "black". Until a turn resolves, the moves in it are told to nobody
//! but their own seat: the transcript and the other seats learn only *that* a seat
//! moved, and when.

mod mails;
mod refusal;
mod view;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use lettre::message::Mailbox;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::Notify;

pub use refusal::{Refusal, StewardError};
pub use view::{GameView, MoveView, SeatView, TurnView};

use crate::ids::{GameId, SeatToken, new_receipt};
use crate::rules::{DynVariant, GameResult, Options, Outcome, RulesError, Seat, SeatResult, VariantId};
use crate::store::{EventRow, GameRow, MoveRow, SeatRow, Store, TurnRow, Tx};

/// A seat of a game to create.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSeat {
    /// The player's name.
    pub name: String,
    /// The player's mail address.
    pub email: String,
    /// The player's Ed25519 public key (base64), optional.
    #[serde(default)]
    pub public_key: Option<String>,
}

/// A game to create.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// The variant's name (`chess`, `fairschach`).
    pub variant: String,
    /// The variant's options, e.g. `{"pause": "capturable"}`.
    #[serde(default)]
    pub options: BTreeMap<String, serde_json::Value>,
    /// The seats, in the variant's seat order.
    pub seats: Vec<NewSeat>,
}

/// A seat's secret, handed out once at creation.
#[derive(Clone, Debug, Serialize)]
pub struct SeatSecret {
    /// The seat's name in the variant.
    pub seat: String,
    /// The player.
    pub player: String,
    /// The token; whoever holds it plays the seat.
    pub token: String,
}

/// A created game: its view and the seat tokens (shown only this once).
#[derive(Clone, Debug, Serialize)]
pub struct CreatedGame {
    /// The game.
    pub game: GameView,
    /// One token per seat.
    pub tokens: Vec<SeatSecret>,
}

/// What the sender of an accepted move gets; the same again for a repeat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Receipt {
    /// The receipt id.
    pub receipt: String,
    /// The game.
    pub game: String,
    /// The seat.
    pub seat: String,
    /// The turn the move is for.
    pub turn: u32,
    /// The move as the rules read it (SAN).
    #[serde(rename = "move")]
    pub notation: String,
    /// When it was accepted (server time, UTC).
    pub received_at: String,
    /// Whether this move completed the turn and it was resolved.
    pub resolved: bool,
}

/// A move as it reaches the steward through a door.
#[derive(Clone, Debug)]
pub struct MoveRequest {
    /// The game id as given.
    pub game: String,
    /// The seat token as given.
    pub token: Option<String>,
    /// The turn the sender thinks is owed.
    pub turn: u32,
    /// The move text.
    pub text: String,
    /// The raw message, kept for disputes.
    pub raw: Vec<u8>,
    /// `http` or `mail`.
    pub door: &'static str,
}

/// What a seat does about a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawAction {
    /// Offer a draw, or accept the offers made (the same thing: a draw needs all).
    Offer,
    /// Same as `Offer`.
    Accept,
    /// Withdraw one's own offer and decline the others'.
    Decline,
}

/// The referee, over the store; cheap to clone.
#[derive(Clone)]
pub struct Steward {
    store: Store,
    from: Mailbox,
    public_url: String,
    outbox: Arc<Notify>,
}

/// A game loaded in a transaction, with its rulebook.
struct Loaded {
    row: GameRow,
    rules: Box<dyn DynVariant>,
    seats: Vec<SeatRow>,
}

impl Loaded {
    fn seat_name(&self, seat: Seat) -> String {
        self.rules.seat_names().get(seat.index()).map_or_else(|| format!("seat {}", seat.index() + 1), |s| (*s).to_owned())
    }

    fn outcome_text(&self, o: Outcome) -> String {
        let score = match self.seats.len() {
            2 => o.result.two_seat_score().to_owned(),
            _ => match o.result {
                GameResult::Win(s) => format!("{} wins", self.seat_name(s)),
                GameResult::Winners(set) => {
                    format!("{} win", set.iter().map(|s| self.seat_name(s)).collect::<Vec<_>>().join(" and "))
                }
                GameResult::Draw => "draw".to_owned(),
                GameResult::DrawAmong(set) => format!(
                    "draw, 1/2 each for {}",
                    set.iter().map(|s| self.seat_name(s)).collect::<Vec<_>>().join(", ")
                ),
            },
        };
        format!("{score} ({})", o.reason)
    }

    /// The names of the winning seats, joined with "and"; `None` for a draw.
    fn winner_names(&self, o: Outcome) -> Option<String> {
        let names: Vec<String> = o.result.winners().iter().map(|s| self.seat_name(s)).collect();
        (!names.is_empty()).then(|| names.join(" and "))
    }
}

fn internal(e: impl std::fmt::Display) -> StewardError {
    StewardError::Internal(e.to_string())
}

fn load(tx: &Tx<'_>, game: &str) -> Result<Loaded, StewardError> {
    let id: GameId = game.parse().map_err(|_| Refusal::UnknownGame(game.to_owned()))?;
    let row = tx.game(&id)?.ok_or_else(|| Refusal::UnknownGame(id.to_string()))?;
    let rules = row.variant.rulebook(&row.options).map_err(|e| internal(format!("stored options of {id}: {e}")))?;
    let seats = tx.seats(&id)?;
    Ok(Loaded { row, rules, seats })
}

fn authenticate(tx: &Tx<'_>, game: &Loaded, token: Option<&str>) -> Result<Seat, StewardError> {
    let token = token.filter(|t| !t.trim().is_empty()).ok_or(Refusal::BadToken)?;
    let hash = SeatToken::from_presented(token).hash();
    Ok(tx.seat_with_token(&game.row.id, &hash)?.ok_or(Refusal::BadToken)?)
}

fn options_from_json(variant: VariantId, raw: &BTreeMap<String, serde_json::Value>) -> Result<Options, Refusal> {
    let mut options = Options::new();
    for (k, v) in raw {
        let text = match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            _ => return Err(Refusal::BadRequest(format!("option {k} of {variant} must be a string or a number"))),
        };
        options = options.set(k.clone(), text);
    }
    Ok(options)
}

impl Steward {
    /// A steward over `store`, sending mail as `from`; `public_url` goes into
    /// mails; `outbox` is notified after each commit that queued mail.
    pub fn new(store: Store, from: Mailbox, public_url: String, outbox: Arc<Notify>) -> Steward {
        Steward { store, from, public_url, outbox }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Creates a game; the seat tokens are returned this once and stored hashed.
    ///
    /// # Errors
    /// An unknown variant or option, a wrong number of seats, a bad address.
    pub async fn create_game(&self, new: NewGame, now: DateTime<Utc>) -> Result<CreatedGame, StewardError> {
        let variant: VariantId = new.variant.parse().map_err(|e: crate::rules::UnknownVariant| Refusal::BadRequest(e.to_string()))?;
        let options = options_from_json(variant, &new.options)?;
        let rules = variant.rulebook(&options).map_err(|e| Refusal::BadRequest(e.to_string()))?;
        let names = rules.seat_names();
        if new.seats.len() != names.len() {
            return Err(Refusal::BadRequest(format!(
                "{variant} needs {} seats ({}), {} given",
                names.len(),
                names.join(", "),
                new.seats.len()
            ))
            .into());
        }
        for (i, s) in new.seats.iter().enumerate() {
            if s.name.trim().is_empty() {
                return Err(Refusal::BadRequest(format!("seat {} ({}) has no player name", i + 1, names[i])).into());
            }
            if s.email.trim().parse::<lettre::Address>().is_err() {
                return Err(Refusal::BadRequest(format!(
                    "seat {} ({}): {:?} is not a mail address",
                    i + 1,
                    names[i],
                    s.email
                ))
                .into());
            }
        }
        let tokens: Vec<SeatToken> = new.seats.iter().map(|_| SeatToken::random()).collect();
        let hashes: Vec<String> = tokens.iter().map(SeatToken::hash).collect();
        let this = self.clone();
        let start = rules.start();
        let (id, view) = self
            .store
            .transaction(move |tx| {
                let mut id = GameId::random();
                while tx.game_exists(&id)? {
                    id = GameId::random();
                }
                let row = GameRow {
                    id: id.clone(),
                    variant,
                    options: options.clone(),
                    state: start.clone(),
                    turn: 1,
                    outcome: None,
                    created_at: now,
                    updated_at: now,
                };
                tx.insert_game(&row)?;
                let mut seats = Vec::new();
                for (i, (s, hash)) in new.seats.iter().zip(&hashes).enumerate() {
                    let seat = SeatRow {
                        seat: Seat::new(i as u8),
                        name: s.name.trim().to_owned(),
                        email: s.email.trim().to_owned(),
                        public_key: s.public_key.clone(),
                        draw_offer: false,
                    };
                    tx.insert_seat(&id, &seat, hash)?;
                    seats.push(seat);
                }
                let game = Loaded { row, rules, seats };
                let players: Vec<_> = game.seats.iter().map(|s| json!({"seat": game.seat_name(s.seat), "player": s.name})).collect();
                tx.append_event(&id, now, "created", &json!({
                    "variant": variant.name(),
                    "options": options.iter().collect::<BTreeMap<_, _>>(),
                    "seats": players,
                    "state": game.row.state,
                }))?;
                for mail in mails::started(&this.from, &this.public_url, &game, now)? {
                    tx.queue_mail(&mail, now)?;
                }
                let view = view::game_view(tx, &game, None)?;
                Ok::<_, StewardError>((id, view))
            })
            .await?;
        self.outbox.notify_one();
        tracing::info!(game = %id, variant = %variant, "game created");
        let tokens = view
            .seats
            .iter()
            .zip(tokens)
            .map(|(s, t)| SeatSecret { seat: s.seat.clone(), player: s.player.clone(), token: t.reveal().to_owned() })
            .collect();
        Ok(CreatedGame { game: view, tokens })
    }

    /// Accepts a move: checks it, holds it, and resolves the turn when it is
    /// complete — all in one transaction. A repeat of an accepted move gets the
    /// same receipt; a different move for a turn already moved is refused.
    ///
    /// # Errors
    /// A [`Refusal`] for the sender's mistakes; nothing is changed then.
    pub async fn submit_move(&self, req: MoveRequest, now: DateTime<Utc>) -> Result<Receipt, StewardError> {
        let this = self.clone();
        let raw = req.raw.clone();
        let door = req.door;
        let game_text = req.game.clone();
        let result = self.store.transaction(move |tx| this.submit_in(tx, &req, now)).await;
        match &result {
            Ok(receipt) => {
                tracing::info!(game = %receipt.game, seat = %receipt.seat, turn = receipt.turn, resolved = receipt.resolved, "move accepted");
                if receipt.resolved {
                    self.outbox.notify_one();
                }
            }
            Err(StewardError::Refused(r)) => {
                tracing::info!(game = %game_text, code = r.code(), "move refused");
                let outcome = format!("refused: {}", r.code());
                let game = game_text.parse::<GameId>().ok();
                // Kept for disputes even though nothing was accepted.
                let kept = self
                    .store
                    .transaction(move |tx| {
                        let game = game.filter(|g| tx.game_exists(g).unwrap_or(false));
                        tx.insert_inbound(now, door, game.as_ref(), &raw, &outcome)
                    })
                    .await;
                if let Err(e) = kept {
                    tracing::error!(error = %e, "could not keep a refused message");
                }
            }
            Err(StewardError::Internal(e)) => tracing::error!(game = %game_text, error = %e, "move not accepted"),
        }
        result
    }

    fn submit_in(&self, tx: &Tx<'_>, req: &MoveRequest, now: DateTime<Utc>) -> Result<Receipt, StewardError> {
        let game = load(tx, &req.game)?;
        let seat = authenticate(tx, &game, req.token.as_deref())?;
        let id = game.row.id.clone();
        let seat_name = game.seat_name(seat);

        if let Some(earlier) = tx.move_of(&id, req.turn, seat)? {
            return if self.same_move(tx, &game, &earlier, seat, &req.text)? {
                Ok(receipt_of(&game, &earlier, seat_name))
            } else {
                Err(Refusal::AlreadyMoved { seat: seat_name, turn: req.turn, when: crate::store::time_text(earlier.received_at) }.into())
            };
        }
        if let Some(o) = game.row.outcome {
            return Err(Refusal::GameOver(game.outcome_text(o)).into());
        }
        if req.turn != game.row.turn {
            return Err(Refusal::WrongTurn { expected: game.row.turn, got: req.turn }.into());
        }
        let to_move = game.rules.seats_to_move(&game.row.state).map_err(internal)?;
        if !to_move.contains(seat) {
            let names: Vec<String> = to_move.iter().map(|s| game.seat_name(s)).collect();
            return Err(Refusal::NotYourTurn { seat: seat_name, turn: game.row.turn, to_move: names.join(" and ") }.into());
        }
        let checked = game.rules.check_move(&game.row.state, seat, &req.text).map_err(|e| match e {
            RulesError::Move { error, .. } => StewardError::Refused(Refusal::IllegalMove(error.to_string())),
            other => internal(other),
        })?;
        let given = tx.moves_of_turn(&id, game.row.turn)?;
        let complete = to_move.iter().all(|s| s == seat || given.iter().any(|m| m.seat == s));
        let row = MoveRow {
            turn: game.row.turn,
            seat,
            receipt: new_receipt(),
            entered: req.text.trim().to_owned(),
            canonical: checked.canonical,
            notation: checked.notation,
            received_at: now,
            status: "pending".to_owned(),
            reason: None,
            completes: complete,
        };
        tx.insert_move(&id, &row)?;
        tx.insert_inbound(now, req.door, Some(&id), &req.raw, "accepted")?;
        // The transcript says that the seat moved, never what, until resolution.
        tx.append_event(&id, now, "moved", &json!({"turn": row.turn, "seat": seat_name, "receipt": row.receipt}))?;

        if complete {
            let given = tx.moves_of_turn(&id, game.row.turn)?;
            self.resolve_turn(tx, &game, &given, now)?;
        }
        Ok(receipt_of(&game, &row, seat_name))
    }

    /// Whether `text` names the same move as the accepted `earlier` one.
    fn same_move(&self, tx: &Tx<'_>, game: &Loaded, earlier: &MoveRow, seat: Seat, text: &str) -> Result<bool, StewardError> {
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

    fn resolve_turn(&self, tx: &Tx<'_>, game: &Loaded, given: &[MoveRow], now: DateTime<Utc>) -> Result<(), StewardError> {
        let id = &game.row.id;
        let turns = tx.turns(id)?;
        let history: Vec<String> = turns.iter().map(|t| t.state_before.clone()).collect();
        let moves: Vec<(Seat, String)> = given.iter().map(|m| (m.seat, m.canonical.clone())).collect();
        let r = game.rules.resolve(&history, &game.row.state, &moves).map_err(|e| internal(format!("resolving {id} turn {}: {e}", game.row.turn)))?;
        for m in &r.moves {
            let reason = match &m.result {
                SeatResult::Struck(why) => Some(why.as_str()),
                _ => None,
            };
            tx.settle_move(id, game.row.turn, m.seat, m.result.as_str(), reason)?;
        }
        tx.insert_turn(id, &TurnRow {
            turn: game.row.turn,
            state_before: game.row.state.clone(),
            state_after: r.state.clone(),
            notes: r.notes.clone(),
            resolved_at: now,
        })?;
        tx.advance_game(id, &r.state, game.row.turn + 1, now)?;
        tx.clear_draw_offers(id)?;
        let moves_json: Vec<_> = r
            .moves
            .iter()
            .map(|m| {
                let mut v = json!({"seat": game.seat_name(m.seat), "move": m.notation, "uci": m.mv, "status": m.result.as_str()});
                if let SeatResult::Struck(why) = &m.result {
                    v["reason"] = json!(why);
                }
                v
            })
            .collect();
        tx.append_event(id, now, "resolved", &json!({"turn": game.row.turn, "moves": moves_json, "notes": r.notes, "state": r.state}))?;
        if let Some(o) = r.outcome {
            self.end(tx, game, o, now)?;
        }
        for mail in mails::turn(&self.from, &self.public_url, game, &r, now)? {
            tx.queue_mail(&mail, now)?;
        }
        Ok(())
    }

    fn end(&self, tx: &Tx<'_>, game: &Loaded, o: Outcome, now: DateTime<Utc>) -> Result<(), StewardError> {
        let score = match self_score(game, o) {
            Some(s) => s,
            None => game.outcome_text(o),
        };
        tx.end_game(&game.row.id, o, &score, now)?;
        let winner = game.winner_names(o);
        tx.append_event(&game.row.id, now, "ended", &json!({"result": score, "winner": winner, "reason": o.reason.as_str()}))?;
        tracing::info!(game = %game.row.id, result = %score, reason = %o.reason, "game over");
        Ok(())
    }

    /// Resigns the token's seat.
    ///
    /// # Errors
    /// Unknown game, bad token, game over.
    pub async fn resign(&self, game: String, token: Option<String>, now: DateTime<Utc>) -> Result<GameView, StewardError> {
        let this = self.clone();
        let view = self
            .store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let seat = authenticate(tx, &g, token.as_deref())?;
                if let Some(o) = g.row.outcome {
                    return Err(Refusal::GameOver(g.outcome_text(o)).into());
                }
                let outcome = g.rules.resignation(&g.row.state, seat).map_err(internal)?.ok_or_else(|| {
                    Refusal::BadRequest(format!("{} cannot resign alone in {}", g.seat_name(seat), g.row.variant))
                })?;
                tx.append_event(&g.row.id, now, "resigned", &json!({"seat": g.seat_name(seat), "turn": g.row.turn}))?;
                this.end(tx, &g, outcome, now)?;
                let text = format!("{} ({}) resigned.", g.seat_name(seat), g.seats[seat.index()].name);
                for mail in mails::notice(&this.from, &this.public_url, &g, mails::Notice::Ended, &text, Some(outcome), now)? {
                    tx.queue_mail(&mail, now)?;
                }
                let g = load(tx, g.row.id.as_str())?;
                view::game_view(tx, &g, Some(seat))
            })
            .await?;
        self.outbox.notify_one();
        Ok(view)
    }

    /// Offers, accepts or declines a draw for the token's seat. When every seat
    /// offers, the game is drawn by agreement. Offers lapse when a turn resolves.
    ///
    /// # Errors
    /// Unknown game, bad token, game over.
    pub async fn draw(&self, game: String, token: Option<String>, action: DrawAction, now: DateTime<Utc>) -> Result<GameView, StewardError> {
        let this = self.clone();
        let view = self
            .store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let seat = authenticate(tx, &g, token.as_deref())?;
                if let Some(o) = g.row.outcome {
                    return Err(Refusal::GameOver(g.outcome_text(o)).into());
                }
                let name = g.seat_name(seat);
                if action == DrawAction::Decline {
                    tx.clear_draw_offers(&g.row.id)?;
                    tx.append_event(&g.row.id, now, "draw_declined", &json!({"seat": name, "turn": g.row.turn}))?;
                    let text = format!("{name} declines the draw; play goes on.");
                    for mail in mails::notice(&this.from, &this.public_url, &g, mails::Notice::DrawDeclined, &text, None, now)? {
                        tx.queue_mail(&mail, now)?;
                    }
                } else {
                    tx.set_draw_offer(&g.row.id, seat, true)?;
                    tx.append_event(&g.row.id, now, "draw_offered", &json!({"seat": name, "turn": g.row.turn}))?;
                    let all = tx.seats(&g.row.id)?.iter().all(|s| s.draw_offer);
                    if all {
                        let o = Outcome::draw(crate::rules::EndReason::Agreement);
                        this.end(tx, &g, o, now)?;
                        for mail in mails::notice(&this.from, &this.public_url, &g, mails::Notice::Ended, "All seats agreed to a draw.", Some(o), now)? {
                            tx.queue_mail(&mail, now)?;
                        }
                    } else {
                        let text = format!("{name} offers a draw. To accept, POST /api/games/{}/draw with your token.", g.row.id);
                        for mail in mails::notice(&this.from, &this.public_url, &g, mails::Notice::DrawOffer(seat), &text, None, now)? {
                            tx.queue_mail(&mail, now)?;
                        }
                    }
                }
                let g = load(tx, g.row.id.as_str())?;
                view::game_view(tx, &g, Some(seat))
            })
            .await?;
        self.outbox.notify_one();
        Ok(view)
    }

    /// The game as anyone may see it; with a seat's token, that seat's own
    /// pending move too.
    ///
    /// # Errors
    /// Unknown game; a token that is given but wrong.
    pub async fn status(&self, game: String, token: Option<String>) -> Result<GameView, StewardError> {
        self.store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                let viewer = match token {
                    Some(t) => Some(authenticate(tx, &g, Some(&t))?),
                    None => None,
                };
                view::game_view(tx, &g, viewer)
            })
            .await
    }

    /// The transcript of a game: every accepted event, in order.
    ///
    /// # Errors
    /// Unknown game.
    pub async fn transcript(&self, game: String) -> Result<Vec<EventRow>, StewardError> {
        self.store
            .transaction(move |tx| {
                let g = load(tx, &game)?;
                Ok(tx.events(&g.row.id)?)
            })
            .await
    }

    /// Every game, newest first (for the admin).
    ///
    /// # Errors
    /// Store failures.
    pub async fn list(&self) -> Result<Vec<GameView>, StewardError> {
        self.store
            .transaction(move |tx| {
                let mut out = Vec::new();
                for row in tx.games()? {
                    let g = load(tx, row.id.as_str())?;
                    out.push(view::game_view(tx, &g, None)?);
                }
                Ok(out)
            })
            .await
    }
}

/// The two-seat score (`1-0`) of an outcome, when the game has two seats.
fn self_score(game: &Loaded, o: Outcome) -> Option<String> {
    (game.seats.len() == 2).then(|| o.result.two_seat_score().to_owned())
}

fn receipt_of(game: &Loaded, m: &MoveRow, seat: String) -> Receipt {
    Receipt {
        receipt: m.receipt.clone(),
        game: game.row.id.to_string(),
        seat,
        turn: m.turn,
        notation: m.notation.clone(),
        received_at: crate::store::time_text(m.received_at),
        resolved: m.completes,
    }
}
