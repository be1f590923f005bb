//! Invitations (issue 31 point 3; migrations 12 and 13): an invitation to a
//! tournament's player place or to a seat of a game still to create, its token
//! kept hashed, its answer; the games waiting for their invited players; and the
//! few reads and writes of a tournament's players that inviting needs.

use super::sql::{OptionalExtension, Res, Row, params};
use chrono::{DateTime, Utc};

use super::StoreError;
use super::tx::{Tx, parse_time, time_text};
use crate::ids::TournamentId;

/// An invitation as stored (never its token).
#[derive(Clone, Debug)]
pub struct InvitationRow {
    /// Row id: named in the reply address of the invitation mail.
    pub id: i64,
    /// The tournament it invites to, if any.
    pub tournament: Option<TournamentId>,
    /// The invited game (an `invited_games` id) it invites to, if any.
    pub invited_game: Option<String>,
    /// The tournament's player index, or the game's seat index.
    pub player: u32,
    /// The invited address.
    pub email: String,
    /// The name: as invited, then as the invitee gave it on accepting.
    pub name: Option<String>,
    /// The public key the invitee gave on accepting.
    pub public_key: Option<String>,
    /// The OpenPGP public key (armoured) the invitee gave on accepting (issue 33).
    pub openpgp_key: Option<String>,
    /// `pending`, `accepted` or `declined`.
    pub answer: String,
    /// When it was answered.
    pub answered_at: Option<DateTime<Utc>>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it stopped counting (its player was replaced, or play started
    /// without its answer): answers are then refused.
    pub closed_at: Option<DateTime<Utc>>,
}

const INVITATION_COLUMNS: &str = "rowid AS id, tournament, invited_game, player, email, name, public_key, openpgp_key, answer, answered_at, created_at, closed_at";

fn invitation_row(r: &Row<'_>) -> Res<InvitationRow> {
    let time = |name: &str| -> Res<Option<DateTime<Utc>>> {
        r.get::<_, Option<String>>(name)?.as_deref().map(parse_time).transpose()
    };
    Ok(InvitationRow {
        id: r.get("id")?,
        tournament: r
            .get::<_, Option<String>>("tournament")?
            .map(|t| t.parse().map_err(|e: crate::ids::BadTournamentId| super::tx::corrupt(e.to_string())))
            .transpose()?,
        invited_game: r.get("invited_game")?,
        player: r.get("player")?,
        email: r.get("email")?,
        name: r.get("name")?,
        public_key: r.get("public_key")?,
        openpgp_key: r.get("openpgp_key")?,
        answer: r.get("answer")?,
        answered_at: time("answered_at")?,
        created_at: parse_time(&r.get::<_, String>("created_at")?)?,
        closed_at: time("closed_at")?,
    })
}

/// A new invitation to store.
#[derive(Clone, Debug)]
pub struct NewInvitation<'a> {
    /// The token's hash (SHA-256, hex).
    pub token_hash: &'a str,
    /// The tournament, or
    pub tournament: Option<&'a TournamentId>,
    /// the invited game.
    pub invited_game: Option<&'a str>,
    /// The player's index in the tournament, or the seat's in the game.
    pub player: u32,
    /// The invited address.
    pub email: &'a str,
    /// The name the organiser gave.
    pub name: &'a str,
}

/// A game waiting for its invited players.
#[derive(Clone, Debug)]
pub struct InvitedGameRow {
    /// Its id (`I` and six characters).
    pub id: String,
    /// The game to create, as JSON.
    pub spec: String,
    /// `inviting`, `starting` or `started`.
    pub status: String,
    /// The game once created.
    pub game: Option<String>,
    /// When it was asked for.
    pub created_at: DateTime<Utc>,
}

/// A tournament as inviting sees it.
#[derive(Clone, Debug)]
pub struct InvitedTournamentRow {
    /// Its name.
    pub name: String,
    /// The variant's name.
    pub variant: String,
    /// Its spec (JSON, slice C's).
    pub spec: String,
    /// `inviting`, `running` or `finished`.
    pub status: String,
}

/// A tournament's player as inviting sees it.
#[derive(Clone, Debug)]
pub struct InvitedPlayerRow {
    /// The index (0..).
    pub player: u32,
    /// The name.
    pub name: String,
    /// The address.
    pub email: String,
    /// The public key, if given.
    pub public_key: Option<String>,
    /// The OpenPGP public key (armoured), if given (issue 33).
    pub openpgp_key: Option<String>,
}

impl<'c> Tx<'c> {
    /// Stores an invitation; returns its row id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_invitation(&self, i: &NewInvitation<'_>, now: DateTime<Utc>) -> Result<i64, StoreError> {
        self.0.query_row(
            "INSERT INTO invitations (token_hash, tournament, invited_game, player, email, name, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING rowid",
            params![
                i.token_hash,
                i.tournament.map(TournamentId::as_str),
                i.invited_game,
                i.player,
                i.email,
                i.name,
                time_text(now)
            ],
            |r| r.get(0),
        )
    }

    /// The invitation whose token hashes to `hash`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn invitation_by_token(&self, hash: &str) -> Result<Option<InvitationRow>, StoreError> {
        self.0
            .query_row(
                &format!("SELECT {INVITATION_COLUMNS} FROM invitations WHERE token_hash = ?1"),
                params![hash],
                invitation_row,
            )
            .optional()
    }

    /// The invitation with row id `id`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn invitation(&self, id: i64) -> Result<Option<InvitationRow>, StoreError> {
        self.0
            .query_row(
                &format!("SELECT {INVITATION_COLUMNS} FROM invitations WHERE rowid = ?1"),
                params![id],
                invitation_row,
            )
            .optional()
    }

    /// Records an answer (`accepted` or `declined`) with the name and keys
    /// given (`keys`: the Ed25519 key and the armoured OpenPGP key).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn answer_invitation(
        &self,
        id: i64,
        answer: &str,
        name: Option<&str>,
        keys: (Option<&str>, Option<&str>),
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (public_key, openpgp_key) = keys;
        self.0
            .prepare_cached(
                "UPDATE invitations SET answer = ?2, name = COALESCE(?3, name), public_key = ?4, answered_at = ?5,
                        openpgp_key = ?6
                 WHERE rowid = ?1",
            )?
            .execute(params![id, answer, name, public_key, time_text(now), openpgp_key])?;
        Ok(())
    }

    /// Sets the keys an invitation carries before its answer (a replacement's,
    /// issue 33; `keys`: the Ed25519 key and the armoured OpenPGP key).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_invitation_keys(&self, id: i64, keys: (Option<&str>, Option<&str>)) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE invitations SET public_key = ?2, openpgp_key = ?3 WHERE rowid = ?1")?
            .execute(params![id, keys.0, keys.1])?;
        Ok(())
    }

    /// Closes an invitation: later answers are refused.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn close_invitation(&self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE invitations SET closed_at = ?2 WHERE rowid = ?1 AND closed_at IS NULL")?
            .execute(params![id, time_text(now)])?;
        Ok(())
    }

    /// Every invitation of a tournament, by player, oldest first.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn tournament_invitations(&self, tournament: &TournamentId) -> Result<Vec<InvitationRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(&format!(
            "SELECT {INVITATION_COLUMNS} FROM invitations WHERE tournament = ?1 ORDER BY player, rowid"
        ))?;
        let rows = stmt.query_map(params![tournament.as_str()], invitation_row)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Every invitation of an invited game, by seat, oldest first.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn invited_game_invitations(&self, invited_game: &str) -> Result<Vec<InvitationRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(&format!(
            "SELECT {INVITATION_COLUMNS} FROM invitations WHERE invited_game = ?1 ORDER BY player, rowid"
        ))?;
        let rows = stmt.query_map(params![invited_game], invitation_row)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Stores a game waiting for its invited players.
    ///
    /// # Errors
    /// SQLite errors (a duplicate id among them).
    pub fn insert_invited_game(&self, id: &str, spec: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("INSERT INTO invited_games (id, spec, status, created_at) VALUES (?1, ?2, 'inviting', ?3)")?
            .execute(params![id, spec, time_text(now)])?;
        Ok(())
    }

    /// The invited game `id` (any case).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn invited_game(&self, id: &str) -> Result<Option<InvitedGameRow>, StoreError> {
        self.0
            .query_row(
                "SELECT id, spec, status, game, created_at FROM invited_games WHERE id = upper(?1)",
                params![id],
                |r| {
                    Ok(InvitedGameRow {
                        id: r.get(0)?,
                        spec: r.get(1)?,
                        status: r.get(2)?,
                        game: r.get(3)?,
                        created_at: parse_time(&r.get::<_, String>(4)?)?,
                    })
                },
            )
            .optional()
    }

    /// Sets an invited game's status, and its game once created.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_invited_game(&self, id: &str, status: &str, game: Option<&str>) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE invited_games SET status = ?2, game = COALESCE(?3, game) WHERE id = ?1")?
            .execute(params![id, status, game])?;
        Ok(())
    }

    /// A tournament as inviting needs it.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn invited_tournament(&self, tournament: &TournamentId) -> Result<Option<InvitedTournamentRow>, StoreError> {
        self.0
            .query_row(
                "SELECT name, variant, spec, status FROM tournaments WHERE id = ?1",
                params![tournament.as_str()],
                |r| {
                    Ok(InvitedTournamentRow { name: r.get(0)?, variant: r.get(1)?, spec: r.get(2)?, status: r.get(3)? })
                },
            )
            .optional()
    }

    /// The invited games waiting to be created: `starting`, and `creating`
    /// with no game (left by a steward that died while creating it).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn invited_games_to_create(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT id FROM invited_games WHERE status IN ('starting', 'creating') AND game IS NULL ORDER BY id",
        )?;
        let ids: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// A tournament's players, in order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn invited_players(&self, tournament: &TournamentId) -> Result<Vec<InvitedPlayerRow>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT player, name, email, public_key, openpgp_key FROM tournament_players WHERE tournament = ?1 ORDER BY player",
        )?;
        let rows = stmt
            .query_map(params![tournament.as_str()], |r| {
                Ok(InvitedPlayerRow {
                    player: r.get(0)?,
                    name: r.get(1)?,
                    email: r.get(2)?,
                    public_key: r.get(3)?,
                    openpgp_key: r.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Sets a tournament player's name, address and keys (an accepted
    /// invitation's, or a replacement's; `keys`: the Ed25519 key and the
    /// armoured OpenPGP key).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_invited_player(
        &self,
        tournament: &TournamentId,
        player: u32,
        name: &str,
        email: &str,
        keys: (Option<&str>, Option<&str>),
    ) -> Result<(), StoreError> {
        let (public_key, openpgp_key) = keys;
        self.0
            .prepare_cached(
                "UPDATE tournament_players SET name = ?3, email = ?4, public_key = ?5, openpgp_key = ?6
                 WHERE tournament = ?1 AND player = ?2",
            )?
            .execute(params![tournament.as_str(), player, name, email, public_key, openpgp_key])?;
        Ok(())
    }
}

impl<'c> Tx<'c> {
    /// Sets a tournament's status (for the stand-in of slice C's start).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_invited_tournament_status(&self, tournament: &TournamentId, status: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached("UPDATE tournaments SET status = ?2 WHERE id = ?1")?
            .execute(params![tournament.as_str(), status])?;
        Ok(())
    }

    /// The tournament and name of the director whose token hashes to `hash`
    /// (for the stand-in of slice B's organiser).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn invitation_director(&self, hash: &str) -> Result<Option<(TournamentId, String)>, StoreError> {
        let row: Option<(String, String)> = self
            .0
            .query_row("SELECT tournament, name FROM directors WHERE token_hash = ?1", params![hash], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        row.map(|(t, name)| {
            t.parse::<TournamentId>()
                .map(|t| (t, name))
                .map_err(|e| StoreError::Corrupt(format!("director's tournament: {}", e.0)))
        })
        .transpose()
    }
}
