//! The store's operations, named for what the steward needs, inside a transaction.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::StoreError;
use crate::ids::GameId;
use crate::protocol::policy::{Auth, Secrecy};
use crate::protocol::transcript::{Entry, GENESIS};
use crate::rules::{EndReason, GameResult, Options, Outcome, Seat, VariantId};

/// The most of an inbound message kept for disputes.
pub const INBOUND_CAP: usize = 64 * 1024;

/// Formats a time as the store keeps it: RFC 3339, UTC, milliseconds, `Z`.
pub fn time_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub(super) fn parse_time(text: &str) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e)))
}

pub(super) fn corrupt(what: impl Into<String>) -> rusqlite::Error {
    let what: String = what.into();
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, what.into())
}

/// How a stored game ended.
pub type StoredOutcome = Outcome;

/// A game as stored.
#[derive(Clone, Debug)]
pub struct GameRow {
    /// The id.
    pub id: GameId,
    /// The variant.
    pub variant: VariantId,
    /// The options it was created with.
    pub options: Options,
    /// How moves prove their seat.
    pub auth: Auth,
    /// How moves stay secret until the turn is complete.
    pub secrecy: Secrecy,
    /// How many resolved turns spectators see the game behind (0: none).
    pub spectator_delay: u32,
    /// The state string now.
    pub state: String,
    /// The turn now owed (from 1).
    pub turn: u32,
    /// Set once the game has ended.
    pub outcome: Option<Outcome>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// A seat as stored (never its token).
#[derive(Clone, Debug)]
pub struct SeatRow {
    /// The seat.
    pub seat: Seat,
    /// The player's name.
    pub name: String,
    /// The player's mail address.
    pub email: String,
    /// The player's Ed25519 public key, if registered.
    pub public_key: Option<String>,
    /// Whether the seat offers (or accepts) a draw now.
    pub draw_offer: bool,
}

/// An accepted move.
#[derive(Clone, Debug)]
pub struct MoveRow {
    /// The turn it is for.
    pub turn: u32,
    /// Whose move.
    pub seat: Seat,
    /// The receipt id given to the sender.
    pub receipt: String,
    /// The text as sent.
    pub entered: String,
    /// Canonical form.
    pub canonical: String,
    /// Players' notation (SAN).
    pub notation: String,
    /// When it was accepted.
    pub received_at: DateTime<Utc>,
    /// `pending`, `played`, `first` or `struck`.
    pub status: String,
    /// Why it was struck.
    pub reason: Option<String>,
    /// Whether this move completed its turn (and so resolved it).
    pub completes: bool,
    /// While pending: the move sealed to the steward's own key (`entered`,
    /// `canonical` and `notation` are empty until the turn resolves).
    pub held: Option<Vec<u8>>,
    /// The signed or sealed envelope it came in, published once resolved.
    pub envelope: Option<String>,
    /// The envelope's nonce, if it came in one.
    pub nonce: Option<String>,
}

/// A commitment to a move (commit-reveal games).
#[derive(Clone, Debug)]
pub struct CommitmentRow {
    /// The turn.
    pub turn: u32,
    /// The seat.
    pub seat: Seat,
    /// SHA-256, hex.
    pub commitment: String,
    /// The receipt id given to the sender.
    pub receipt: String,
    /// When it was accepted.
    pub received_at: DateTime<Utc>,
    /// The commit envelope, if one was sent.
    pub envelope: Option<String>,
}

/// A resolved turn.
#[derive(Clone, Debug)]
pub struct TurnRow {
    /// The turn number.
    pub turn: u32,
    /// The state the turn was played in.
    pub state_before: String,
    /// The state it produced.
    pub state_after: String,
    /// Remarks for the players.
    pub notes: Vec<String>,
    /// When it was resolved.
    pub resolved_at: DateTime<Utc>,
}

/// One transcript entry.
#[derive(Clone, Debug)]
pub struct EventRow {
    /// Its place in the game's transcript, from 1.
    pub seq: u32,
    /// When it happened (server time).
    pub at: DateTime<Utc>,
    /// What happened.
    pub kind: String,
    /// The details.
    pub body: serde_json::Value,
    /// The previous entry's hash.
    pub prev: String,
    /// This entry's hash (see [`crate::protocol::transcript`]).
    pub hash: String,
    /// The steward's signature over this entry as a head, base64, if it signed one here.
    pub signature: Option<String>,
}

/// A queued mail.
#[derive(Clone, Debug)]
pub struct OutboxRow {
    /// Row id.
    pub id: i64,
    /// The stable Message-ID (without angle brackets).
    pub message_id: String,
    /// The game it is about.
    pub game_id: String,
    /// The recipient's address.
    pub recipient: String,
    /// The subject line.
    pub subject: String,
    /// The formatted RFC 5322 message; when `sealed`, sealed to the steward's
    /// own key ([`crate::protocol::seal_record`], label [`OUTBOX_LABEL`]) and
    /// opened only by the drainer as it hands the mail over.
    pub message: Vec<u8>,
    /// The mail as what to say ([`crate::letters::compose::Letter`] as JSON),
    /// while `message` is empty: the outbox drainer formats it off the store
    /// thread for every handover (to the same bytes each time), and the mark
    /// that it was sent drops it.
    pub letter: Option<String>,
    /// Whether `message` is sealed (an answer that may name a pending move).
    pub sealed: bool,
    /// The board picture the message carries: the message holds a placeholder
    /// where the outbox drainer puts the stored PNG ([`crate::letters::compose`]).
    pub picture: Option<super::BoardPicture>,
}

#[cfg(test)]
impl OutboxRow {
    /// A plain mail number `n` of game 8KQ2ZJ to alice, carrying `picture` (for tests).
    pub(crate) fn sample(n: usize, picture: Option<super::BoardPicture>) -> OutboxRow {
        OutboxRow {
            id: 0,
            message_id: format!("8KQ2ZJ.{n}.0.turn@steward.example"),
            game_id: "8KQ2ZJ".into(),
            recipient: "alice@example.org".into(),
            subject: format!("mail {n}"),
            message: format!("Subject: mail {n}\r\n\r\nbody {n}\r\n").into_bytes(),
            letter: None,
            sealed: false,
            picture,
        }
    }
}

/// The label under which sealed outbox messages are sealed.
pub const OUTBOX_LABEL: &str = "outbox";
/// The label under which sealed inbound messages are sealed.
pub const INBOUND_LABEL: &str = "inbound";

/// A raw inbound message as kept for disputes.
#[derive(Clone, Debug)]
pub struct InboundRow {
    /// Row id.
    pub id: i64,
    /// When it came.
    pub received_at: DateTime<Utc>,
    /// `http` or `mail`.
    pub door: String,
    /// The game it was for, when known.
    pub game_id: Option<String>,
    /// Its full size in bytes (the body holds at most [`INBOUND_CAP`]).
    pub size: i64,
    /// The kept bytes; when `sealed`, sealed to the steward's own key (label
    /// [`INBOUND_LABEL`]).
    pub body: Vec<u8>,
    /// Whether `body` is sealed.
    pub sealed: bool,
    /// `accepted`, `refused: <code>`, `mail: …`, `ignored: …`.
    pub outcome: String,
}

/// The last states of a game's history, latest first: [`Tx::recent_history`].
/// The turns' primary key (game, turn) gives them in this order, so SQLite
/// reads only the rows it returns.
/// A game's newest board mail to a seat (see [`Tx::latest_board_mail`]).
const LATEST_BOARD_MAIL: &str = "SELECT message_id, subject FROM outbox
     WHERE message_id >= ?4 AND message_id < ?5 AND game_id = ?1 AND (message_id LIKE ?2 OR message_id LIKE ?3)
     ORDER BY id DESC LIMIT 1";

const RECENT_HISTORY: &str = "SELECT state_before FROM turns WHERE game_id = ?1 ORDER BY turn DESC LIMIT ?2";

/// The open transaction, with the store's operations.
pub struct Tx<'c>(pub(super) &'c Transaction<'c>);

/// `query_row` through the connection's statement cache: rusqlite's own
/// `Connection::query_row` parses and plans its SQL anew on every call, which
/// for the few single-row reads of every move (the seat's token, the move
/// already given, the transcript's head, the clock) showed in the store thread's
/// profile.
pub(super) trait QueryRowCached {
    /// As `rusqlite::Connection::query_row`, with the statement cached.
    fn query_row_cached<T, P, F>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>;
}

impl QueryRowCached for rusqlite::Connection {
    fn query_row_cached<T, P, F>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

fn options_json(options: &Options) -> String {
    let map: serde_json::Map<String, serde_json::Value> =
        options.iter().map(|(k, v)| (k.to_owned(), serde_json::Value::from(v))).collect();
    serde_json::Value::Object(map).to_string()
}

fn options_from_json(text: &str) -> rusqlite::Result<Options> {
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(text).map_err(|e| corrupt(format!("options {text:?}: {e}")))?;
    Ok(map.into_iter().fold(Options::new(), |o, (k, v)| {
        let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
        o.set(k, v)
    }))
}

pub(super) fn seat_of(i: i64) -> rusqlite::Result<Seat> {
    u8::try_from(i)
        .ok()
        .filter(|&i| i < crate::rules::SeatSet::MAX)
        .map(Seat::new)
        .ok_or_else(|| corrupt(format!("seat {i}")))
}

fn game_row(r: &Row<'_>) -> rusqlite::Result<GameRow> {
    let id: String = r.get("id")?;
    let variant: String = r.get("variant")?;
    let result: Option<String> = r.get("result")?;
    let winner: Option<i64> = r.get("winner")?;
    let reason: Option<String> = r.get("end_reason")?;
    let outcome = match (result, reason) {
        (Some(_), Some(reason)) => {
            let reason = EndReason::from_name(&reason).ok_or_else(|| corrupt(format!("end reason {reason:?}")))?;
            let result = match winner {
                Some(w @ 0..=3) => GameResult::Win(seat_of(w)?),
                w => GameResult::from_winner_code(w).ok_or_else(|| corrupt(format!("winner {w:?}")))?,
            };
            Some(Outcome { result, reason })
        }
        _ => None,
    };
    Ok(GameRow {
        id: id.parse().map_err(|e: crate::ids::BadGameId| corrupt(e.to_string()))?,
        variant: variant.parse().map_err(|e: crate::rules::UnknownVariant| corrupt(e.to_string()))?,
        options: options_from_json(&r.get::<_, String>("options")?)?,
        auth: r
            .get::<_, String>("auth")?
            .parse()
            .map_err(|e: crate::protocol::policy::BadPolicy| corrupt(e.to_string()))?,
        secrecy: r
            .get::<_, String>("secrecy")?
            .parse()
            .map_err(|e: crate::protocol::policy::BadPolicy| corrupt(e.to_string()))?,
        spectator_delay: r.get("spectator_delay")?,
        state: r.get("state")?,
        turn: r.get("turn")?,
        outcome,
        created_at: parse_time(&r.get::<_, String>("created_at")?)?,
        updated_at: parse_time(&r.get::<_, String>("updated_at")?)?,
    })
}

fn move_row(r: &Row<'_>) -> rusqlite::Result<MoveRow> {
    Ok(MoveRow {
        turn: r.get("turn")?,
        seat: seat_of(r.get("seat")?)?,
        receipt: r.get("receipt")?,
        entered: r.get("entered")?,
        canonical: r.get("canonical")?,
        notation: r.get("notation")?,
        received_at: parse_time(&r.get::<_, String>("received_at")?)?,
        status: r.get("status")?,
        reason: r.get("reason")?,
        completes: r.get::<_, i64>("completes")? != 0,
        held: r.get("held")?,
        envelope: r.get("envelope")?,
        nonce: r.get("nonce")?,
    })
}

/// The range of Message-IDs of `game`'s mails, `[from, to)`: each begins with
/// the game's id and a dot (`8KQ2ZJ.12.0.turn@…`), so the Message-ID's own
/// index finds them (the outbox keeps no index by game).
pub(super) fn game_mails(game: &GameId) -> (String, String) {
    (format!("{game}."), format!("{game}/"))
}

/// A settled move as a game's record shows it (see [`super::Reader::settled_moves`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettledMove {
    /// The turn it was entered for.
    pub turn: u32,
    /// Whose move.
    pub seat: Seat,
    /// The move in the players' notation.
    pub notation: String,
    /// `played`, `first` or `struck`.
    pub status: String,
    /// Why it was struck.
    pub reason: Option<String>,
}

/// Links every transcript entry of every game into its hash chain (for
/// databases from before the chain existed).
pub(super) fn rechain_all(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let games: Vec<String> = tx
        .prepare("SELECT DISTINCT game_id FROM events")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for game in games {
        let rows: Vec<(u32, String, String, String)> = tx
            .prepare("SELECT seq, at, kind, body FROM events WHERE game_id = ?1 ORDER BY seq")?
            .query_map([&game], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut prev = GENESIS.to_owned();
        for (seq, at, kind, body) in rows {
            let hash = Entry { game: &game, seq, at: &at, kind: &kind, prev: &prev, body: &body }.hash();
            tx.execute(
                "UPDATE events SET prev_hash = ?3, hash = ?4 WHERE game_id = ?1 AND seq = ?2",
                params![game, seq, prev, hash],
            )?;
            prev = hash;
        }
    }
    Ok(())
}

impl<'c> Tx<'c> {
    pub(super) fn new(tx: &'c Transaction<'c>) -> Tx<'c> {
        Tx(tx)
    }

    /// Runs `f` under a savepoint: when it fails, what it wrote is undone and the
    /// transaction goes on without it (a refused command leaves nothing, while
    /// the mail it came in is still marked seen and answered in the same
    /// transaction).
    ///
    /// # Errors
    /// `f`'s own error, or a store failure converted into `E`.
    pub fn attempt<T, E: From<StoreError>>(&self, f: impl FnOnce(&Tx<'c>) -> Result<T, E>) -> Result<T, E> {
        super::run_cached(self.0, "SAVEPOINT attempt").map_err(StoreError::from)?;
        match f(self) {
            Ok(value) => {
                super::run_cached(self.0, "RELEASE attempt").map_err(StoreError::from)?;
                Ok(value)
            }
            Err(e) => {
                super::undo_to(self.0, "attempt").map_err(StoreError::from)?;
                Err(e)
            }
        }
    }

    /// A pragma's value as text (for tests and diagnostics).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn pragma_text(&self, name: &str) -> rusqlite::Result<String> {
        self.0.pragma_query_value(None, name, |r| {
            let v: rusqlite::types::Value = r.get(0)?;
            Ok(match v {
                rusqlite::types::Value::Integer(i) => i.to_string(),
                rusqlite::types::Value::Text(t) => t,
                other => format!("{other:?}"),
            })
        })
    }

    /// Stores a new game.
    ///
    /// # Errors
    /// SQLite errors (a duplicate id among them).
    pub fn insert_game(&self, g: &GameRow) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO games (id, variant, options, state, turn, created_at, updated_at, auth, secrecy, spectator_delay)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                g.id.as_str(),
                g.variant.name(),
                options_json(&g.options),
                g.state,
                g.turn,
                time_text(g.created_at),
                g.auth.name(),
                g.secrecy.name(),
                g.spectator_delay
            ])?;
        Ok(())
    }

    /// Whether a game id is taken.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn game_exists(&self, id: &GameId) -> Result<bool, StoreError> {
        Ok(self
            .0
            .prepare_cached("SELECT 1 FROM games WHERE id = ?1")?
            .query_row([id.as_str()], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Stores a seat with the hash of its token.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_seat(&self, game: &GameId, s: &SeatRow, token_hash: &str) -> Result<(), StoreError> {
        self.0.prepare_cached(
            "INSERT INTO seats (game_id, seat, name, email, public_key, token_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?.execute(
            params![game.as_str(), s.seat.index() as i64, s.name, s.email, s.public_key, token_hash],
        )?;
        Ok(())
    }

    /// A game, if it exists.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn game(&self, id: &GameId) -> Result<Option<GameRow>, StoreError> {
        Ok(self.0.prepare_cached("SELECT * FROM games WHERE id = ?1")?.query_row([id.as_str()], game_row).optional()?)
    }

    /// Every game, newest first.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn games(&self) -> Result<Vec<GameRow>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM games ORDER BY created_at DESC, id")?;
        let rows = stmt.query_map([], game_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The seats of a game, in seat order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn seats(&self, game: &GameId) -> Result<Vec<SeatRow>, StoreError> {
        // Every command loads its game's seats: the statement is kept.
        let mut stmt = self.0.prepare_cached(
            "SELECT seat, name, email, public_key, draw_offer FROM seats WHERE game_id = ?1 ORDER BY seat",
        )?;
        let rows = stmt
            .query_map([game.as_str()], |r| {
                Ok(SeatRow {
                    seat: seat_of(r.get(0)?)?,
                    name: r.get(1)?,
                    email: r.get(2)?,
                    public_key: r.get(3)?,
                    draw_offer: r.get::<_, i64>(4)? != 0,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The seat of `game` whose token has this hash.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn seat_with_token(&self, game: &GameId, token_hash: &str) -> Result<Option<Seat>, StoreError> {
        let seat: Option<i64> = self
            .0
            .query_row_cached(
                "SELECT seat FROM seats WHERE game_id = ?1 AND token_hash = ?2",
                params![game.as_str(), token_hash],
                |r| r.get(0),
            )
            .optional()?;
        Ok(seat.map(seat_of).transpose()?)
    }

    /// Records the new state and turn after a resolution.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn advance_game(&self, game: &GameId, state: &str, turn: u32, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE games SET state = ?2, turn = ?3, updated_at = ?4 WHERE id = ?1")?
            .execute(params![game.as_str(), state, turn, time_text(now)])?;
        Ok(())
    }

    /// Records the end of a game.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn end_game(&self, game: &GameId, outcome: Outcome, score: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        let winner = outcome.result.to_winner_code();
        self.0
            .prepare_cached(
                "UPDATE games SET result = ?2, winner = ?3, end_reason = ?4, updated_at = ?5 WHERE id = ?1",
            )?
            .execute(params![game.as_str(), score, winner, outcome.reason.as_str(), time_text(now)])?;
        Ok(())
    }

    /// The move a seat gave for a turn, if any.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn move_of(&self, game: &GameId, turn: u32, seat: Seat) -> Result<Option<MoveRow>, StoreError> {
        Ok(self
            .0
            .query_row_cached(
                "SELECT * FROM moves WHERE game_id = ?1 AND turn = ?2 AND seat = ?3",
                params![game.as_str(), turn, seat.index() as i64],
                move_row,
            )
            .optional()?)
    }

    /// The moves given for a turn, in seat order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn moves_of_turn(&self, game: &GameId, turn: u32) -> Result<Vec<MoveRow>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM moves WHERE game_id = ?1 AND turn = ?2 ORDER BY seat")?;
        let rows = stmt.query_map(params![game.as_str(), turn], move_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Every move of a game, by turn and seat.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn moves_of_game(&self, game: &GameId) -> Result<Vec<MoveRow>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM moves WHERE game_id = ?1 ORDER BY turn, seat")?;
        let rows = stmt.query_map([game.as_str()], move_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Stores an accepted move (pending).
    ///
    /// # Errors
    /// SQLite errors (a second move for the same turn and seat among them).
    pub fn insert_move(&self, game: &GameId, m: &MoveRow) -> Result<(), StoreError> {
        self.0.prepare_cached(
            "INSERT INTO moves (game_id, turn, seat, receipt, entered, canonical, notation, received_at, status, reason, completes,
                                held, envelope, nonce)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)")?.execute(
            params![
                game.as_str(),
                m.turn,
                m.seat.index() as i64,
                m.receipt,
                m.entered,
                m.canonical,
                m.notation,
                time_text(m.received_at),
                m.status,
                m.reason,
                i64::from(m.completes),
                m.held,
                m.envelope,
                m.nonce
            ],
        )?;
        Ok(())
    }

    /// Replaces a held (sealed) pending move by its clear form, once its turn is
    /// complete and being resolved.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn unhold_move(&self, game: &GameId, m: &MoveRow) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "UPDATE moves SET entered = ?4, canonical = ?5, notation = ?6, envelope = ?7, held = NULL
             WHERE game_id = ?1 AND turn = ?2 AND seat = ?3",
            )?
            .execute(params![
                game.as_str(),
                m.turn,
                m.seat.index() as i64,
                m.entered,
                m.canonical,
                m.notation,
                m.envelope
            ])?;
        Ok(())
    }

    /// Stores a commitment.
    ///
    /// # Errors
    /// SQLite errors (a second commitment for the same turn and seat among them).
    pub fn insert_commitment(&self, game: &GameId, c: &CommitmentRow) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO commitments (game_id, turn, seat, commitment, receipt, received_at, envelope)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                game.as_str(),
                c.turn,
                c.seat.index() as i64,
                c.commitment,
                c.receipt,
                time_text(c.received_at),
                c.envelope
            ])?;
        Ok(())
    }

    /// The commitments given for a turn, in seat order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn commitments_of_turn(&self, game: &GameId, turn: u32) -> Result<Vec<CommitmentRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT turn, seat, commitment, receipt, received_at, envelope FROM commitments
             WHERE game_id = ?1 AND turn = ?2 ORDER BY seat",
        )?;
        let rows = stmt
            .query_map(params![game.as_str(), turn], |r| {
                Ok(CommitmentRow {
                    turn: r.get(0)?,
                    seat: seat_of(r.get(1)?)?,
                    commitment: r.get(2)?,
                    receipt: r.get(3)?,
                    received_at: parse_time(&r.get::<_, String>(4)?)?,
                    envelope: r.get(5)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Records a move's fate once its turn is resolved.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn settle_move(
        &self,
        game: &GameId,
        turn: u32,
        seat: Seat,
        status: &str,
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE moves SET status = ?4, reason = ?5 WHERE game_id = ?1 AND turn = ?2 AND seat = ?3")?
            .execute(params![game.as_str(), turn, seat.index() as i64, status, reason])?;
        Ok(())
    }

    /// Stores a resolved turn.
    ///
    /// # Errors
    /// SQLite errors (resolving a turn twice among them: the key forbids it).
    pub fn insert_turn(&self, game: &GameId, t: &TurnRow) -> Result<(), StoreError> {
        let notes = serde_json::to_string(&t.notes).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.0
            .prepare_cached(
                "INSERT INTO turns (game_id, turn, state_before, state_after, notes, resolved_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![game.as_str(), t.turn, t.state_before, t.state_after, notes, time_text(t.resolved_at)])?;
        Ok(())
    }

    /// The positions a game's resolved turns were played in, in order: what
    /// the rules read as its history (repetitions). Only that column: a turn's
    /// notes and times are not read, nor parsed, on every resolution.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn history(&self, game: &GameId) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT state_before FROM turns WHERE game_id = ?1 ORDER BY turn")?;
        let rows = stmt.query_map([game.as_str()], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(rows)
    }

    /// The last `last` states of [`Tx::history`] (all of them when there are
    /// fewer), in turn order: the part of the history the rules can still use
    /// (see [`crate::rules::Variant::repetition_window`]). The query walks the
    /// primary key backwards from the game's latest turn, so its cost does not
    /// grow with the game.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn recent_history(&self, game: &GameId, last: usize) -> Result<Vec<String>, StoreError> {
        // SQLite's LIMIT is an i64; a window beyond it means "all".
        let limit = i64::try_from(last).unwrap_or(i64::MAX);
        let mut stmt = self.0.prepare_cached(RECENT_HISTORY)?;
        let mut rows =
            stmt.query_map(params![game.as_str(), limit], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
        rows.reverse();
        Ok(rows)
    }

    /// The resolved turns of a game, in order.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn turns(&self, game: &GameId) -> Result<Vec<TurnRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT turn, state_before, state_after, notes, resolved_at FROM turns WHERE game_id = ?1 ORDER BY turn",
        )?;
        let rows = stmt
            .query_map([game.as_str()], |r| {
                let notes: String = r.get(3)?;
                Ok(TurnRow {
                    turn: r.get(0)?,
                    state_before: r.get(1)?,
                    state_after: r.get(2)?,
                    notes: serde_json::from_str(&notes).map_err(|e| corrupt(e.to_string()))?,
                    resolved_at: parse_time(&r.get::<_, String>(4)?)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Appends a transcript entry, linked to the one before, and returns its
    /// sequence number and hash.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn append_event(
        &self,
        game: &GameId,
        at: DateTime<Utc>,
        kind: &str,
        body: &serde_json::Value,
    ) -> Result<(u32, String), StoreError> {
        let (seq, prev) = match self.head(game)? {
            Some((seq, hash)) => (seq + 1, hash),
            None => (1, GENESIS.to_owned()),
        };
        let at = time_text(at);
        let body = body.to_string();
        let hash = Entry { game: game.as_str(), seq, at: &at, kind, prev: &prev, body: &body }.hash();
        self.0.prepare_cached(
            "INSERT INTO events (game_id, seq, at, kind, body, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?.execute(
            params![game.as_str(), seq, at, kind, body, prev, hash],
        )?;
        Ok((seq, hash))
    }

    /// The newest transcript entry of a game: its sequence number and hash.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn head(&self, game: &GameId) -> Result<Option<(u32, String)>, StoreError> {
        Ok(self.head_and_signature(game)?.map(|(seq, hash, _)| (seq, hash)))
    }

    /// The newest transcript entry of a game: its sequence number, hash and
    /// signature (`None` until the steward signs it).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn head_and_signature(&self, game: &GameId) -> Result<Option<(u32, String, Option<String>)>, StoreError> {
        Ok(self
            .0
            .query_row_cached(
                "SELECT seq, hash, signature FROM events WHERE game_id = ?1 ORDER BY seq DESC LIMIT 1",
                [game.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?)
    }

    /// The newest entry the steward signed: its place, hash and signature.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn signed_head(&self, game: &GameId) -> Result<Option<(u32, String, String)>, StoreError> {
        Ok(self
            .0
            .query_row_cached(
                "SELECT seq, hash, signature FROM events WHERE game_id = ?1 AND signature IS NOT NULL ORDER BY seq DESC LIMIT 1",
                [game.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?)
    }

    /// The hash of the transcript entry that records `receipt`.
    ///
    /// # Errors
    /// SQLite errors; a receipt without an entry is a corrupt store.
    pub fn entry_with_receipt(&self, game: &GameId, receipt: &str) -> Result<String, StoreError> {
        self.0
            .query_row_cached(
                "SELECT hash FROM events WHERE game_id = ?1 AND json_extract(body, '$.receipt') = ?2 ORDER BY seq LIMIT 1",
                params![game.as_str(), receipt],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| StoreError::Corrupt(format!("receipt {receipt} of {game} has no transcript entry")))
    }

    /// Stores the steward's signature over the head `seq`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn sign_event(&self, game: &GameId, seq: u32, signature: &str) -> Result<(), StoreError> {
        self.0.prepare_cached("UPDATE events SET signature = ?3 WHERE game_id = ?1 AND seq = ?2")?.execute(params![
            game.as_str(),
            seq,
            signature
        ])?;
        Ok(())
    }

    /// The transcript of a game, in order.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn events(&self, game: &GameId) -> Result<Vec<EventRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT seq, at, kind, body, prev_hash, hash, signature FROM events WHERE game_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt
            .query_map([game.as_str()], |r| {
                let body: String = r.get(3)?;
                Ok(EventRow {
                    seq: r.get(0)?,
                    at: parse_time(&r.get::<_, String>(1)?)?,
                    kind: r.get(2)?,
                    body: serde_json::from_str(&body).map_err(|e| corrupt(e.to_string()))?,
                    prev: r.get(4)?,
                    hash: r.get(5)?,
                    signature: r.get(6)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Keeps a raw inbound message (`id` is ignored: a new one is given). The
    /// caller cuts the body to [`INBOUND_CAP`] bytes and seals it.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_inbound(&self, row: &InboundRow) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO inbound (received_at, door, game_id, size, body, sealed, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                time_text(row.received_at),
                row.door,
                row.game_id,
                row.size,
                row.body,
                row.sealed,
                row.outcome
            ])?;
        Ok(())
    }

    /// The kept inbound messages, oldest first: all, or those of one game.
    ///
    /// # Errors
    /// SQLite errors or a corrupt row.
    pub fn inbound(&self, game: Option<&GameId>) -> Result<Vec<InboundRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT id, received_at, door, game_id, size, body, sealed, outcome FROM inbound
             WHERE ?1 IS NULL OR game_id = ?1 ORDER BY id",
        )?;
        let rows = stmt
            .query_map([game.map(GameId::as_str)], |r| {
                Ok(InboundRow {
                    id: r.get(0)?,
                    received_at: parse_time(&r.get::<_, String>(1)?)?,
                    door: r.get(2)?,
                    game_id: r.get(3)?,
                    size: r.get(4)?,
                    body: r.get(5)?,
                    sealed: r.get(6)?,
                    outcome: r.get(7)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// How many inbound messages are kept.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn count_inbound(&self) -> rusqlite::Result<i64> {
        self.0.prepare_cached("SELECT COUNT(*) FROM inbound")?.query_row([], |r| r.get(0))
    }

    /// Queues a mail, and keeps the board picture it carries unless that is
    /// stored already; a mail with the same Message-ID is queued only once.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn queue_mail(&self, m: &OutboxRow, now: DateTime<Utc>) -> Result<(), StoreError> {
        if let Some(picture) = &m.picture {
            self.keep_picture(picture, now)?;
        }
        self.0.prepare_cached(
            "INSERT OR IGNORE INTO outbox (message_id, game_id, recipient, subject, message, sealed, created_at, picture, letter)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            m.message_id,
            m.game_id,
            m.recipient,
            m.subject,
            m.message,
            m.sealed,
            time_text(now),
            m.picture.as_ref().map(|p| p.key.as_str()),
            m.letter
        ])?;
        Ok(())
    }

    /// The newest board mail (the game's start or a turn's board) queued for
    /// `seat` of `game`: its Message-ID (without angle brackets) and subject.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn latest_board_mail(&self, game: &GameId, seat: usize) -> Result<Option<(String, String)>, StoreError> {
        let (turn, started) = (format!("{game}.%.{seat}.turn@%"), format!("{game}.%.{seat}.started@%"));
        let (from, to) = game_mails(game);
        Ok(self
            .0
            .query_row_cached(LATEST_BOARD_MAIL, params![game.as_str(), turn, started, from, to], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?)
    }

    /// Whether the mail door handled a mail with this key before.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mail_seen(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self
            .0
            .prepare_cached("SELECT 1 FROM mail_seen WHERE key = ?1")?
            .query_row([key], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Records a mail the door handled.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_mail_seen(&self, key: &str, at: DateTime<Utc>, outcome: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached("INSERT OR IGNORE INTO mail_seen (key, seen_at, outcome) VALUES (?1, ?2, ?3)")?
            .execute(params![key, time_text(at), outcome])?;
        Ok(())
    }

    /// Mails not yet sent, oldest first.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn unsent_mail(&self, limit: u32) -> Result<Vec<OutboxRow>, StoreError> {
        self.unsent_mail_after(0, limit)
    }

    /// Mails not yet sent with a row id above `after`, oldest first: the outbox
    /// drainer pages through the queue with it, so mails it holds back (refused
    /// by the server) never keep newer ones waiting.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn unsent_mail_after(&self, after: i64, limit: u32) -> Result<Vec<OutboxRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT id, message_id, game_id, recipient, subject, message, sealed, picture, letter FROM outbox
             WHERE sent_at IS NULL AND id > ?1 ORDER BY id LIMIT ?2",
        )?;
        let rows = stmt
            .query_map(params![after, limit], |r| {
                Ok(OutboxRow {
                    id: r.get(0)?,
                    message_id: r.get(1)?,
                    game_id: r.get(2)?,
                    recipient: r.get(3)?,
                    subject: r.get(4)?,
                    message: r.get(5)?,
                    sealed: r.get(6)?,
                    picture: r.get::<_, Option<String>>(7)?.map(|key| super::BoardPicture { key, source: None }),
                    letter: r.get(8)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Marks a mail delivered.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_sent(&self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.mark_sent_many(&[id], now)
    }

    /// Marks several mails delivered, in this one transaction: the drainer records
    /// a batch of accepted mails with one commit (one fsync) instead of one each.
    /// A delivered mail's bytes or letter are dropped: it is never sent again, and its row
    /// keeps who it went to, what it was about and when (its Message-ID,
    /// recipient, subject and times), so the store grows by a few hundred bytes
    /// per mail, not by the mail.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_sent_many(&self, ids: &[i64], now: DateTime<Utc>) -> Result<(), StoreError> {
        let mut stmt = self.0.prepare_cached(
            "UPDATE outbox SET sent_at = ?2, attempts = attempts + 1, last_error = NULL, message = x'', letter = NULL
             WHERE id = ?1",
        )?;
        let now = time_text(now);
        for id in ids {
            stmt.execute(params![id, now])?;
        }
        Ok(())
    }

    /// Records a failed delivery attempt.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_failed(&self, id: i64, error: &str) -> Result<(), StoreError> {
        self.0
            .execute("UPDATE outbox SET attempts = attempts + 1, last_error = ?2 WHERE id = ?1", params![id, error])?;
        Ok(())
    }

    /// Sets or clears a seat's draw offer.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_draw_offer(&self, game: &GameId, seat: Seat, offer: bool) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE seats SET draw_offer = ?3 WHERE game_id = ?1 AND seat = ?2")?
            .execute(params![game.as_str(), seat.index() as i64, i64::from(offer)])?;
        Ok(())
    }

    /// Withdraws every draw offer of a game (a turn was played).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn clear_draw_offers(&self, game: &GameId) -> Result<(), StoreError> {
        // Only the seats that offer: SQLite writes every row an UPDATE matches,
        // changed or not, and a page written is a page in the WAL.
        self.0
            .prepare_cached("UPDATE seats SET draw_offer = 0 WHERE game_id = ?1 AND draw_offer <> 0")?
            .execute([game.as_str()])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// A chess game with `turns` resolved turns played in the states `state 1`,
    /// `state 2`, … in turn order.
    fn game_with_turns(tx: &Tx<'_>, id: &GameId, turns: u32) -> Result<(), StoreError> {
        let now = Utc::now();
        tx.insert_game(&GameRow {
            id: id.clone(),
            variant: VariantId::Chess,
            options: Options::new(),
            auth: Auth::Token,
            secrecy: Secrecy::Hold,
            spectator_delay: 0,
            state: format!("state {}", turns + 1),
            turn: turns + 1,
            outcome: None,
            created_at: now,
            updated_at: now,
        })?;
        for turn in 1..=turns {
            tx.insert_turn(
                id,
                &TurnRow {
                    turn,
                    state_before: format!("state {turn}"),
                    state_after: format!("state {}", turn + 1),
                    notes: Vec::new(),
                    resolved_at: now,
                },
            )?;
        }
        Ok(())
    }

    /// The last states, in turn order, of this game only; all of them when the
    /// window is wider than the game; none for a window of 0 or a game without turns.
    #[test]
    fn recent_history_is_the_tail_of_the_history_in_turn_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let (game, other) = (GameId::random(), GameId::random());
        let (full, tails, other_tail, unknown) = store
            .transaction_blocking(move |tx| {
                game_with_turns(tx, &game, 12)?;
                game_with_turns(tx, &other, 30)?;
                let tails = [0, 1, 3, 11, 12, 13, usize::MAX]
                    .into_iter()
                    .map(|last| Ok((last, tx.recent_history(&game, last)?)))
                    .collect::<Result<Vec<_>, StoreError>>()?;
                let other_tail = tx.recent_history(&other, 4)?;
                let unknown = tx.recent_history(&GameId::random(), 5)?;
                Ok::<_, StoreError>((tx.history(&game)?, tails, other_tail, unknown))
            })
            .unwrap();
        let states = |from: u32, to: u32| (from..=to).map(|t| format!("state {t}")).collect::<Vec<_>>();
        assert_eq!(full, states(1, 12));
        for (last, tail) in tails {
            assert_eq!(tail, full[full.len().saturating_sub(last)..], "last {last}");
        }
        assert_eq!(other_tail, states(27, 30));
        assert!(unknown.is_empty());
    }

    /// The query walks the turns' primary key backwards from the game's last
    /// turn: no sort of all the game's turns before the limit applies.
    #[test]
    fn recent_history_walks_the_primary_key_without_sorting() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let plan = store
            .transaction_blocking(|tx| {
                let mut stmt = tx.0.prepare(&format!("EXPLAIN QUERY PLAN {RECENT_HISTORY}"))?;
                let rows = stmt
                    .query_map(params!["8KQ2ZJ", 5], |r| r.get::<_, String>(3))?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok::<_, StoreError>(rows.join("\n"))
            })
            .unwrap();
        assert!(plan.contains("SEARCH turns USING INDEX sqlite_autoindex_turns_1 (game_id=?)"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
    }

    /// The outbox keeps no index by game or by recipient for every mail (each
    /// was a page written at a random place per queued mail): a game's mails
    /// are a range of the Message-ID's index, and the answers to an address
    /// have a partial index of their own. No lookup scans the outbox.
    #[test]
    fn the_outbox_lookups_use_the_message_id_and_the_answers_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("steward.db")).unwrap();
        let (indexes, plans) = store
            .transaction_blocking(|tx| {
                let plan = |sql: &str, n: usize| -> rusqlite::Result<String> {
                    let mut stmt = tx.0.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                    let params: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
                    let rows = stmt
                        .query_map(rusqlite::params_from_iter(params), |r| r.get::<_, String>(3))?
                        .collect::<rusqlite::Result<Vec<_>>>()?;
                    Ok(rows.join("\n"))
                };
                let mut stmt =
                    tx.0.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'")?;
                let indexes = stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
                let plans = vec![plan(LATEST_BOARD_MAIL, 5)?, plan(super::super::senders::SENDER_NOTICES_SINCE, 5)?];
                Ok::<_, StoreError>((indexes, plans))
            })
            .unwrap();
        let mut indexes = indexes;
        indexes.sort();
        assert_eq!(indexes, ["outbox_picture", "outbox_unsent", "sqlite_autoindex_outbox_1"]);
        for (plan, index) in plans.iter().zip(["sqlite_autoindex_outbox_1", "sqlite_autoindex_outbox_1"]) {
            assert!(plan.contains(&format!("SEARCH outbox USING INDEX {index}")), "{plan}");
            assert!(!plan.contains("SCAN outbox"), "{plan}");
        }
        let (from, to) = game_mails(&"8KQ2ZJ".parse().unwrap());
        assert!(from.as_str() < "8KQ2ZJ.0.1.started@x" && "8KQ2ZJ.999.3.turn@x" < to.as_str());
        assert!(!("8KQ2ZJA.1.0.turn@x" >= from.as_str() && "8KQ2ZJA.1.0.turn@x" < to.as_str()), "another game's");
    }
}
