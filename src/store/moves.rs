//! Moves, commitments and resolved turns: what the players sent and what it became.

use super::sql::{OptionalExtension, Res, Row, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, corrupt, parse_time, seat_of, time_text};
use crate::ids::GameId;
use crate::rules::Seat;

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

/// The last states of a game's history, latest first: [`Tx::recent_history`].
/// The turns' primary key (game, turn) gives them in this order, so SQLite
/// reads only the rows it returns.
const RECENT_HISTORY: &str = "SELECT state_before FROM turns WHERE game_id = ?1 ORDER BY turn DESC LIMIT ?2";

fn move_row(r: &Row<'_>) -> Res<MoveRow> {
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

impl<'c> Tx<'c> {
    /// The move a seat gave for a turn, if any.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn move_of(&self, game: &GameId, turn: u32, seat: Seat) -> Result<Option<MoveRow>, StoreError> {
        self.0
            .query_row(
                "SELECT * FROM moves WHERE game_id = ?1 AND turn = ?2 AND seat = ?3",
                params![game.as_str(), turn, seat.index() as i64],
                move_row,
            )
            .optional()
    }

    /// The moves given for a turn, in seat order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn moves_of_turn(&self, game: &GameId, turn: u32) -> Result<Vec<MoveRow>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM moves WHERE game_id = ?1 AND turn = ?2 ORDER BY seat")?;
        let rows = stmt.query_map(params![game.as_str(), turn], move_row)?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// Every move of a game, by turn and seat.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn moves_of_game(&self, game: &GameId) -> Result<Vec<MoveRow>, StoreError> {
        let mut stmt = self.0.prepare_cached("SELECT * FROM moves WHERE game_id = ?1 ORDER BY turn, seat")?;
        let rows = stmt.query_map([game.as_str()], move_row)?.collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }

    /// The seats of a game's settled moves (not pending), in the order they
    /// were made (by turn, then seat): all that numbering the record's next
    /// move needs, without the moves themselves.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn settled_seats(&self, game: &GameId) -> Result<Vec<Seat>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached("SELECT seat FROM moves WHERE game_id = ?1 AND status <> 'pending' ORDER BY turn, seat")?;
        let rows = stmt.query_map([game.as_str()], |r| r.get::<_, u8>(0))?.collect::<Res<Vec<_>>>()?;
        Ok(rows.into_iter().map(Seat::new).collect())
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
            .collect::<Res<Vec<_>>>()?;
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
        let rows = stmt.query_map([game.as_str()], |r| r.get(0))?.collect::<Res<Vec<String>>>()?;
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
        let mut rows = stmt.query_map(params![game.as_str(), limit], |r| r.get(0))?.collect::<Res<Vec<String>>>()?;
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
            .collect::<Res<Vec<_>>>()?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::policy::{Auth, Secrecy};
    use crate::rules::{Options, VariantId};
    use crate::store::{GameRow, Store};

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
            openpgp_tofu: false,
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
                let mut stmt = tx.0.prepare_cached(&format!("EXPLAIN QUERY PLAN {RECENT_HISTORY}"))?;
                let rows = stmt.query_map(params!["8KQ2ZJ", 5], |r| r.get::<_, String>(3))?.collect::<Res<Vec<_>>>()?;
                Ok::<_, StoreError>(rows.join("\n"))
            })
            .unwrap();
        assert!(plan.contains("SEARCH turns USING INDEX sqlite_autoindex_turns_1 (game_id=?)"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
    }
}
