//! Invitations (issue 31 point 3): a tournament or a game with invited players
//! instead of fixed seats. Each invitee gets a mail with a private link
//! (`/invitations/<token>`: confirm the address, set the name shown, give a
//! public key, or decline) and a reply address (`moves+invite.<id>.<mac>@…`:
//! a reply `accept` or `decline` answers too). The organiser sees who answered;
//! play starts when all have accepted, or when the organiser starts it after
//! replacing those who declined.
//!
//! Bounds: a token is 256 random bits, kept only as its SHA-256; an invitation
//! takes one answer (a repeat of it is answered "already", another answer is
//! refused); a replaced invitation, or one play started without, takes none.
//! Answers by mail spend the sender's hourly share of answers like every
//! other answer.
//!
//! A game with invited seats is not a game until it is created: its spec waits
//! in `invited_games` (migration 13), `inviting` → `starting` (all accepted,
//! or started by the organiser) → `started`, the game made (by
//! [`Steward::create_game_in`], with the seats as the invitees answered) in the
//! same transaction that marks it started. A store written by an earlier
//! steward may hold `creating` (claimed, then the steward died): it is
//! created like `starting`, by the next sweep — the one at start-up first.

mod mail;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{NewGame, Organiser, Refusal, Steward, StewardError, internal};
use crate::contact::{PlayerAddress, PlayerName};
use crate::ids::{GameId, SeatToken, TournamentId};
use crate::protocol::capability::{self, InvitationReply};
use crate::protocol::policy::Auth;
use crate::store::{InvitationRow, NewInvitation, Tx, time_text};

/// A player who takes the place of one who declined (or did not answer).
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Replacement {
    /// The name shown.
    #[schema(min_length = 1)]
    pub name: String,
    /// The address the invitation goes to.
    #[schema(format = Email)]
    pub email: String,
    /// The player's Ed25519 public key (base64), optional.
    #[serde(default)]
    pub public_key: Option<String>,
    /// The player's OpenPGP public key (ASCII armour), optional (issue 33).
    #[serde(default)]
    pub openpgp_key: Option<String>,
}

/// What an invitee gives on accepting: the name shown (else the one invited)
/// and, optionally, a public key.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptInvitation {
    /// The name to show; empty or absent keeps the invited name.
    #[serde(default)]
    pub name: Option<String>,
    /// The Ed25519 public key (base64) to sign moves with; empty or absent for none.
    #[serde(default)]
    pub public_key: Option<String>,
    /// The OpenPGP public key (ASCII armour) to sign moves with from a mail
    /// client (issue 33); empty or absent for none.
    #[serde(default)]
    pub openpgp_key: Option<String>,
}

/// An invitee's answer.
#[derive(Clone, Debug)]
pub enum InvitationAnswer {
    /// Yes, with the name and key.
    Accept(AcceptInvitation),
    /// No.
    Decline,
}

/// What a mail reply to an invitation says (the mail door's reading).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvitationReplyWord {
    /// `accept`.
    Accept,
    /// `decline`.
    Decline,
    /// Neither: the first line.
    Unreadable(String),
    /// Nothing of the sender's own.
    Empty,
}

/// The answer to an invitee's answer.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"answer": "accepted", "repeat": false, "starts": false, "tournament": "T8KQ2ZJ", "message": "You accepted the invitation to the tournament \"Club championship\" (T8KQ2ZJ), as Ann Example."}))]
pub struct InvitationAnswered {
    /// `accepted` or `declined`.
    #[schema(schema_with = given_answer)]
    pub answer: &'static str,
    /// Whether it had been given before (nothing changed).
    pub repeat: bool,
    /// Whether this answer completed the acceptances and play starts.
    pub starts: bool,
    /// The tournament, if the invitation is to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// The invited game, if the invitation is to a game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invited_game: Option<String>,
    /// What happened, in words.
    pub message: String,
}

/// One invitation as the organiser sees it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct InvitationStatus {
    /// The tournament's player index, or the game's seat index.
    pub player: u32,
    /// The seat's name in the variant (games only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<String>,
    /// The name (as accepted, else as invited).
    pub name: String,
    /// The invited address.
    pub email: String,
    /// `pending`, `accepted`, `declined`, or `not invited` (a tournament player
    /// without an invitation yet).
    #[schema(schema_with = place_answer)]
    pub answer: String,
    /// When it was answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_at: Option<String>,
    /// When the invitation was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invited_at: Option<String>,
    /// Whether it takes no answer any more (play started without it).
    pub closed: bool,
    /// Players this place had before, who declined or were replaced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replaced: Vec<String>,
}

/// The invitations of a tournament or of a game with invited seats.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct InvitationList {
    /// `tournament` or `game`.
    #[schema(schema_with = invited_kind)]
    pub kind: &'static str,
    /// The tournament's id, or the invited game's (`I…`).
    pub id: String,
    /// The variant.
    pub variant: String,
    /// The tournament's status, or the invited game's (`inviting`,
    /// `starting`, `creating`, `started`).
    #[schema(schema_with = invited_status)]
    pub status: String,
    /// The game, once created (invited games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// Whether every place has accepted.
    pub all_accepted: bool,
    /// One per player or seat, in order.
    pub invitations: Vec<InvitationStatus>,
}

/// An invitation as its invitee sees it (through its token).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct InvitationView {
    /// What it invites to, in words.
    pub to: String,
    /// `tournament` or `game`.
    #[schema(schema_with = invited_kind)]
    pub kind: &'static str,
    /// The tournament's or invited game's id.
    pub id: String,
    /// The variant.
    pub variant: String,
    /// The seat's name (games only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<String>,
    /// The name (as accepted, else as invited).
    pub name: String,
    /// The invited address.
    pub email: String,
    /// The other players' names.
    pub others: Vec<String>,
    /// `pending`, `accepted` or `declined`.
    #[schema(schema_with = invitation_answer)]
    pub answer: String,
    /// When it was answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_at: Option<String>,
    /// Whether it still takes an answer.
    pub open: bool,
    /// Whether accepting needs a public key (games that require signatures).
    pub key_required: bool,
    /// The game, once created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
}

/// The schema of [`InvitationAnswered::answer`].
fn given_answer() -> utoipa::openapi::schema::Object {
    super::tournament::one_of(["accepted", "declined"], "`accepted` or `declined`.")
}

/// The schema of [`InvitationView::answer`].
fn invitation_answer() -> utoipa::openapi::schema::Object {
    super::tournament::one_of(["pending", "accepted", "declined"], "`pending`, `accepted` or `declined`.")
}

/// The schema of [`InvitationStatus::answer`].
fn place_answer() -> utoipa::openapi::schema::Object {
    super::tournament::one_of(
        ["pending", "accepted", "declined", "not invited"],
        "`pending`, `accepted`, `declined`, or `not invited` (a tournament player without an invitation yet).",
    )
}

/// The schema of the `kind` of [`InvitationList`] and [`InvitationView`].
fn invited_kind() -> utoipa::openapi::schema::Object {
    super::tournament::one_of(["tournament", "game"], "`tournament` or `game`.")
}

/// The schema of [`InvitationList::status`]: a tournament's, or an invited game's.
fn invited_status() -> utoipa::openapi::schema::Object {
    super::tournament::one_of(
        ["inviting", "running", "finished", "starting", "creating", "started"],
        "A tournament's status (`inviting`, `running`, `finished`), or an invited game's (`inviting`, `starting`, `creating`, `started`).",
    )
}

/// What an organiser's request names: a tournament, or a game with invited seats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invited {
    /// A tournament.
    Tournament(TournamentId),
    /// An invited game (`I` and six characters).
    Game(String),
}

impl Invited {
    fn describe(&self) -> String {
        match self {
            Invited::Tournament(t) => format!("tournament {t}"),
            Invited::Game(g) => format!("invited game {g}"),
        }
    }
}

/// The refusal for an organiser acting outside its reach.
fn may_invite(by: &Organiser, what: &Invited) -> Result<(), Refusal> {
    match (by, what) {
        (Organiser::Operator, _) => Ok(()),
        (Organiser::Director { tournament, .. }, Invited::Tournament(t)) if t == tournament => Ok(()),
        (Organiser::Director { tournament, .. }, _) => Err(Refusal::Forbidden(format!(
            "this director's token acts for tournament {tournament} only, not for {}",
            what.describe()
        ))),
    }
}

/// What a game spec makes: its rulebook's seat names and its trust mode.
struct GameShape {
    seats: Vec<String>,
    auth: Auth,
    variant: String,
}

fn game_shape(spec: &NewGame) -> Result<GameShape, Refusal> {
    let variant: crate::rules::VariantId = spec.variant.parse::<crate::rules::VariantId>().map_err(Refusal::from)?;
    let mut raw = spec.options.clone();
    let (auth, _) = super::trust_options(&mut raw)?;
    super::clock::take_option(&mut raw)?;
    super::view::take_spectator_delay(&mut raw)?;
    let options = super::options_from_json(variant, &raw)?;
    let rules = variant.rulebook(&options).map_err(Refusal::from)?;
    Ok(GameShape {
        seats: rules.seat_names().iter().map(|s| (*s).to_owned()).collect(),
        auth,
        variant: variant.name().to_owned(),
    })
}

/// Whether a tournament's spec asks for signed moves (`auth = signature`,
/// among its options or at its top).
fn tournament_needs_key(spec: &str) -> bool {
    let v: serde_json::Value = serde_json::from_str(spec).unwrap_or_default();
    let signature = |x: &serde_json::Value| x.as_str() == Some(Auth::Signature.name());
    signature(&v[Auth::OPTION]) || signature(&v["options"][Auth::OPTION])
}

/// A name, address and optional key checked as game creation checks them.
fn checked_player(
    what: &str,
    name: &str,
    email: &str,
    key: Option<&str>,
) -> Result<(String, String, Option<String>), Refusal> {
    let refuse = |e: crate::contact::ContactError| Refusal::BadRequest(format!("{what}: {e}"));
    let name = PlayerName::parse(name).map_err(refuse)?.to_string();
    let email = PlayerAddress::parse(email).map_err(refuse)?.to_string();
    let key = super::checked_public_key(what, key)?;
    Ok((name, email, key))
}

/// The current invitation of each place: the newest that is not replaced
/// (replacing closes the old one and makes a new one).
fn current(rows: &[InvitationRow]) -> std::collections::BTreeMap<u32, &InvitationRow> {
    let mut out = std::collections::BTreeMap::new();
    for r in rows {
        out.insert(r.player, r); // oldest first: the newest stays
    }
    out
}

fn parse_spec(spec: &str) -> Result<NewGame, StewardError> {
    serde_json::from_str(spec).map_err(|e| internal(format!("the stored spec of an invited game: {e}")))
}

impl Steward {
    /// A game with invited seats (`POST /api/games` with `"invite": true`):
    /// checks the game as creation would, keeps it, and mails each seat's
    /// player an invitation. The game is created once all have accepted, or
    /// when the organiser starts it ([`Steward::start_invited`]).
    ///
    /// # Errors
    /// An unknown variant or option, a wrong number of seats, a bad name,
    /// address or key.
    pub async fn invite_game(&self, new: NewGame, now: DateTime<Utc>) -> Result<InvitationList, StewardError> {
        let shape = game_shape(&new)?;
        if new.seats.len() != shape.seats.len() {
            return Err(Refusal::BadRequest(format!(
                "{} needs {} seats ({}), {} given",
                shape.variant,
                shape.seats.len(),
                shape.seats.join(", "),
                new.seats.len()
            ))
            .into());
        }
        let mut spec = new.clone();
        let mut shown: Vec<String> = Vec::new();
        for (i, s) in spec.seats.iter_mut().enumerate() {
            let what = format!("seat {} ({})", i + 1, shape.seats[i]);
            let (name, email, key) = checked_player(&what, &s.name, &s.email, s.public_key.as_deref())?;
            let seen = PlayerName::parse(&name).map(|n| n.shown_as()).unwrap_or_default();
            if shown.contains(&seen) {
                return Err(Refusal::BadRequest(format!(
                    "{what} shows the same name as another seat, {name:?}; give every seat a name of its own"
                ))
                .into());
            }
            shown.push(seen);
            (s.name, s.email, s.public_key) = (name, email, key);
        }
        let text = serde_json::to_string(&spec).map_err(internal)?;
        let this = self.clone();
        let list = self
            .store
            .transaction(move |tx| {
                let mut id = format!("I{}", GameId::random());
                while tx.invited_game(&id)?.is_some() {
                    id = format!("I{}", GameId::random());
                }
                tx.insert_invited_game(&id, &text, now)?;
                let what = Invited::Game(id.clone());
                for (i, s) in spec.seats.iter().enumerate() {
                    this.invite_one(tx, &what, i as u32, &s.name, &s.email, now)?;
                }
                this.invitation_list(tx, &what)
            })
            .await?;
        self.outbox.notify_one();
        tracing::info!(invited = %list.id, "game with invited seats");
        Ok(list)
    }

    /// Invites every player of `tournament` that has no invitation yet (each
    /// gets one mail), in the caller's transaction. Slice C's
    /// `create_tournament` calls it for a tournament created with
    /// `"invite": true`.
    pub(crate) fn invite_tournament_in(
        &self,
        tx: &Tx<'_>,
        tournament: &TournamentId,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let what = Invited::Tournament(tournament.clone());
        let row = tx
            .invited_tournament(tournament)?
            .ok_or_else(|| Refusal::UnknownInvitation(format!("there is no tournament {tournament}")))?;
        if row.status != "inviting" {
            return Err(Refusal::InvitationClosed(format!(
                "tournament {tournament} is {}, not inviting: its players are set",
                row.status
            ))
            .into());
        }
        let invited = current(&tx.tournament_invitations(tournament)?).keys().copied().collect::<Vec<_>>();
        for p in tx.invited_players(tournament)? {
            if !invited.contains(&p.player) {
                self.invite_one(tx, &what, p.player, &p.name, &p.email, now)?;
            }
        }
        Ok(())
    }

    /// [`Steward::invite_tournament_in`] in a transaction of its own
    /// (`POST /api/tournaments/{id}/invite`): invites the players not invited
    /// yet, and answers the invitations' status.
    ///
    /// # Errors
    /// An unknown tournament, one not inviting, an organiser outside its reach.
    pub async fn invite_tournament(
        &self,
        by: &Organiser,
        tournament: TournamentId,
        now: DateTime<Utc>,
    ) -> Result<InvitationList, StewardError> {
        let what = Invited::Tournament(tournament.clone());
        may_invite(by, &what)?;
        let this = self.clone();
        let list = self
            .store
            .transaction(move |tx| {
                this.invite_tournament_in(tx, &tournament, now)?;
                this.invitation_list(tx, &what)
            })
            .await?;
        self.outbox.notify_one();
        Ok(list)
    }

    /// Makes one invitation and queues its mail.
    fn invite_one(
        &self,
        tx: &Tx<'_>,
        what: &Invited,
        player: u32,
        name: &str,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<i64, StewardError> {
        let token = SeatToken::random();
        let (tournament, game) = match what {
            Invited::Tournament(t) => (Some(t), None),
            Invited::Game(g) => (None, Some(g.as_str())),
        };
        let id = tx.insert_invitation(
            &NewInvitation { token_hash: &token.hash(), tournament, invited_game: game, player, email, name },
            now,
        )?;
        let about = self.about(tx, what, Some(player))?;
        let mail = mail::invitation(self, id, token.reveal(), name, email, &about, now)?;
        tx.queue_mail(&mail, now)?;
        Ok(id)
    }

    /// The keys the place of invitation `row` holds before its answer (issue
    /// 33): a tournament player's (as created, or a replacement's); for an
    /// invited game, a replacement's (kept on its invitation), else the
    /// organiser's for the seat when the invitation is to the address the seat
    /// was made with. (Ed25519, OpenPGP.)
    fn place_keys(
        &self,
        tx: &Tx<'_>,
        what: &Invited,
        row: &InvitationRow,
    ) -> Result<(Option<String>, Option<String>), StewardError> {
        Ok(match what {
            Invited::Tournament(t) => tx
                .invited_players(t)?
                .into_iter()
                .find(|p| p.player == row.player)
                .map(|p| (p.public_key, p.openpgp_key))
                .unwrap_or_default(),
            Invited::Game(g) => {
                let spec = match tx.invited_game(g)? {
                    Some(r) => Some(parse_spec(&r.spec)?),
                    None => None,
                };
                let seat = spec.as_ref().and_then(|s| s.seats.get(row.player as usize));
                let same = seat.filter(|s| s.email.trim().eq_ignore_ascii_case(row.email.trim()));
                (
                    row.public_key.clone().or_else(|| same.and_then(|s| s.public_key.clone())),
                    row.openpgp_key.clone().or_else(|| same.and_then(|s| s.openpgp_key.clone())),
                )
            }
        })
    }

    /// What an invitation is to, for mails and pages.
    fn about(&self, tx: &Tx<'_>, what: &Invited, player: Option<u32>) -> Result<mail::About, StewardError> {
        match what {
            Invited::Tournament(t) => {
                let row = tx
                    .invited_tournament(t)?
                    .ok_or_else(|| Refusal::UnknownInvitation(format!("there is no tournament {t}")))?;
                let players = tx.invited_players(t)?;
                Ok(mail::About {
                    id: t.to_string(),
                    to: format!("the {} tournament \"{}\" ({t})", row.variant, row.name),
                    variant: row.variant,
                    seat: None,
                    others: players.into_iter().filter(|p| Some(p.player) != player).map(|p| p.name).collect(),
                    key_required: tournament_needs_key(&row.spec),
                })
            }
            Invited::Game(g) => {
                let row = tx
                    .invited_game(g)?
                    .ok_or_else(|| Refusal::UnknownInvitation(format!("there is no invited game {g}")))?;
                let spec = parse_spec(&row.spec)?;
                let shape = game_shape(&spec)?;
                let names = current(&tx.invited_game_invitations(g)?)
                    .into_iter()
                    .map(|(p, r)| (p, r.name.clone().unwrap_or_default()))
                    .collect::<Vec<_>>();
                let seat = player.and_then(|p| shape.seats.get(p as usize).cloned());
                Ok(mail::About {
                    id: row.id.clone(),
                    to: format!(
                        "a game of {}{}",
                        shape.variant,
                        seat.as_ref().map(|s| format!(", playing {s}")).unwrap_or_default()
                    ),
                    variant: shape.variant,
                    seat,
                    others: names.into_iter().filter(|(p, _)| Some(*p) != player).map(|(_, n)| n).collect(),
                    key_required: shape.auth == Auth::Signature,
                })
            }
        }
    }

    /// The invitations of a tournament or invited game, as an organiser sees them.
    fn invitation_list(&self, tx: &Tx<'_>, what: &Invited) -> Result<InvitationList, StewardError> {
        let (rows, status, variant, game, places, seats) = match what {
            Invited::Tournament(t) => {
                let row = tx
                    .invited_tournament(t)?
                    .ok_or_else(|| Refusal::UnknownInvitation(format!("there is no tournament {t}")))?;
                let players = tx.invited_players(t)?;
                let places: Vec<(u32, String, String)> =
                    players.into_iter().map(|p| (p.player, p.name, p.email)).collect();
                (tx.tournament_invitations(t)?, row.status, row.variant, None, places, Vec::new())
            }
            Invited::Game(g) => {
                let row = tx
                    .invited_game(g)?
                    .ok_or_else(|| Refusal::UnknownInvitation(format!("there is no invited game {g}")))?;
                let spec = parse_spec(&row.spec)?;
                let shape = game_shape(&spec)?;
                let places =
                    spec.seats.iter().enumerate().map(|(i, s)| (i as u32, s.name.clone(), s.email.clone())).collect();
                (tx.invited_game_invitations(g)?, row.status, shape.variant, row.game, places, shape.seats)
            }
        };
        let now_current = current(&rows);
        let invitations: Vec<InvitationStatus> = places
            .into_iter()
            .map(|(player, name, email)| {
                let replaced: Vec<String> = rows
                    .iter()
                    .filter(|r| r.player == player && now_current.get(&player).is_none_or(|c| c.id != r.id))
                    .map(|r| format!("{} <{}> ({})", r.name.clone().unwrap_or_default(), r.email, r.answer))
                    .collect();
                let seat = seats.get(player as usize).cloned();
                match now_current.get(&player) {
                    Some(r) => InvitationStatus {
                        player,
                        seat,
                        name: r.name.clone().unwrap_or(name),
                        email: r.email.clone(),
                        answer: r.answer.clone(),
                        answered_at: r.answered_at.map(time_text),
                        invited_at: Some(time_text(r.created_at)),
                        closed: r.closed_at.is_some(),
                        replaced,
                    },
                    None => InvitationStatus {
                        player,
                        seat,
                        name,
                        email,
                        answer: "not invited".into(),
                        answered_at: None,
                        invited_at: None,
                        closed: false,
                        replaced,
                    },
                }
            })
            .collect();
        let all_accepted = !invitations.is_empty() && invitations.iter().all(|i| i.answer == "accepted");
        let (kind, id) = match what {
            Invited::Tournament(t) => ("tournament", t.to_string()),
            Invited::Game(g) => ("game", g.to_ascii_uppercase()),
        };
        Ok(InvitationList { kind, id, variant, status, game, all_accepted, invitations })
    }

    /// The invitations of a tournament or invited game (`GET /api/invitations`).
    ///
    /// # Errors
    /// Unknown, or outside the organiser's reach.
    pub async fn invitations(&self, by: &Organiser, what: Invited) -> Result<InvitationList, StewardError> {
        may_invite(by, &what)?;
        let this = self.clone();
        self.store.transaction(move |tx| this.invitation_list(tx, &what)).await
    }

    fn invitation_by_token(tx: &Tx<'_>, token: &str) -> Result<InvitationRow, StewardError> {
        let hash = SeatToken::from_presented(token).hash();
        Ok(tx.invitation_by_token(&hash)?.ok_or_else(|| {
            Refusal::UnknownInvitation("there is no invitation with this link (it may be cut short)".into())
        })?)
    }

    fn invited_of(row: &InvitationRow) -> Result<Invited, StewardError> {
        match (&row.tournament, &row.invited_game) {
            (Some(t), _) => Ok(Invited::Tournament(t.clone())),
            (None, Some(g)) => Ok(Invited::Game(g.clone())),
            (None, None) => Err(internal(format!("invitation {} invites to nothing", row.id))),
        }
    }

    /// An invitation as its invitee sees it.
    ///
    /// # Errors
    /// No invitation with this token.
    pub async fn invitation(&self, token: String) -> Result<InvitationView, StewardError> {
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                let row = Self::invitation_by_token(tx, &token)?;
                this.invitation_view(tx, &row)
            })
            .await
    }

    fn invitation_view(&self, tx: &Tx<'_>, row: &InvitationRow) -> Result<InvitationView, StewardError> {
        let what = Self::invited_of(row)?;
        let about = self.about(tx, &what, Some(row.player))?;
        let game = match &what {
            Invited::Game(g) => tx.invited_game(g)?.and_then(|r| r.game),
            Invited::Tournament(_) => None,
        };
        let current = match &what {
            Invited::Tournament(t) => current(&tx.tournament_invitations(t)?).get(&row.player).map(|r| r.id),
            Invited::Game(g) => current(&tx.invited_game_invitations(g)?).get(&row.player).map(|r| r.id),
        };
        Ok(InvitationView {
            to: about.to,
            kind: if row.tournament.is_some() { "tournament" } else { "game" },
            id: about.id,
            variant: about.variant,
            seat: about.seat,
            name: row.name.clone().unwrap_or_default(),
            email: row.email.clone(),
            others: about.others,
            answer: row.answer.clone(),
            answered_at: row.answered_at.map(time_text),
            open: row.closed_at.is_none() && row.answer == "pending" && current == Some(row.id),
            key_required: about.key_required,
            game,
        })
    }

    /// Answers the invitation with `token` (the link's page or its API).
    /// When the answer completes the acceptances of a game, the game is
    /// created before this returns.
    ///
    /// # Errors
    /// No such invitation; answered otherwise before or closed; a bad name or key.
    pub async fn answer_invitation(
        &self,
        token: String,
        answer: InvitationAnswer,
        now: DateTime<Utc>,
    ) -> Result<InvitationAnswered, StewardError> {
        let this = self.clone();
        let answered = self
            .store
            .transaction(move |tx| {
                let row = Self::invitation_by_token(tx, &token)?;
                this.answer_invitation_in(tx, &row, &answer, now)
            })
            .await?;
        self.outbox.notify_one();
        if answered.starts && answered.invited_game.is_some() {
            self.create_invited_games(now).await;
        }
        Ok(answered)
    }

    /// Records an answer to `row`, in the caller's transaction; when it is
    /// the last acceptance, starts the tournament or marks the game to create.
    fn answer_invitation_in(
        &self,
        tx: &Tx<'_>,
        row: &InvitationRow,
        answer: &InvitationAnswer,
        now: DateTime<Utc>,
    ) -> Result<InvitationAnswered, StewardError> {
        let what = Self::invited_of(row)?;
        let word = match answer {
            InvitationAnswer::Accept(_) => "accepted",
            InvitationAnswer::Decline => "declined",
        };
        let mut answered = InvitationAnswered {
            answer: word,
            repeat: false,
            starts: false,
            tournament: row.tournament.as_ref().map(ToString::to_string),
            invited_game: row.invited_game.clone(),
            message: String::new(),
        };
        if row.answer == word {
            let when = row.answered_at.map(time_text).unwrap_or_default();
            answered.repeat = true;
            answered.message = format!("You {word} this invitation on {when} already; nothing changed.");
            return Ok(answered);
        }
        if row.answer != "pending" {
            let when = row.answered_at.map(time_text).unwrap_or_default();
            return Err(Refusal::InvitationClosed(format!(
                "you {} this invitation on {when}; it cannot be {word} now",
                row.answer
            ))
            .into());
        }
        if let Some(closed) = row.closed_at {
            return Err(Refusal::InvitationClosed(format!(
                "this invitation was closed on {}: the organiser gave the place to another player or started play without it",
                time_text(closed)
            ))
            .into());
        }
        let about = self.about(tx, &what, Some(row.player))?;
        match answer {
            InvitationAnswer::Decline => {
                tx.answer_invitation(row.id, "declined", None, (None, None), now)?;
                answered.message = format!(
                    "You declined the invitation to {}. The organiser is told and may invite another player.",
                    about.to
                );
            }
            InvitationAnswer::Accept(a) => {
                let name = a.name.as_deref().map(str::trim).filter(|n| !n.is_empty());
                let name = name.or(row.name.as_deref()).unwrap_or_default();
                let (name, email, key) = checked_player("your answer", name, &row.email, a.public_key.as_deref())?;
                let pgp = super::checked_openpgp_key("your answer", a.openpgp_key.as_deref())?;
                // Keys the place has already (the organiser's, a replacement's)
                // stay unless the answer gives others (issue 33).
                let (had_key, had_pgp) = self.place_keys(tx, &what, row)?;
                let (key, pgp) = (key.or(had_key), pgp.or(had_pgp));
                if key.is_none() && pgp.is_none() && about.key_required {
                    return Err(Refusal::BadRequest(
                        "this game requires signed moves: give your Ed25519 public key (`fairsteward player keygen` prints one) as public_key, or your OpenPGP public key (`gpg --armor --export YOUR-ADDRESS`) as openpgp_key"
                            .into(),
                    )
                    .into());
                }
                if let Some(other) = about.others.iter().find(|o| {
                    PlayerName::parse(o).map(|o| o.shown_as()).ok()
                        == PlayerName::parse(&name).map(|n| n.shown_as()).ok()
                }) {
                    return Err(Refusal::BadRequest(format!(
                        "another player is called {other:?}; give a name of your own"
                    ))
                    .into());
                }
                tx.answer_invitation(row.id, "accepted", Some(&name), (key.as_deref(), pgp.as_deref()), now)?;
                if let Invited::Tournament(t) = &what {
                    tx.set_invited_player(t, row.player, &name, &email, (key.as_deref(), pgp.as_deref()))?;
                }
                if let Some(k) = pgp.as_deref().and_then(|k| crate::protocol::openpgp::key::PlayerPgpKey::parse(k).ok())
                {
                    answered.message = format!(" Your OpenPGP key {} is registered for it.", k.fingerprint());
                }
                answered.message =
                    format!("You accepted the invitation to {}, as {name}.{}", about.to, answered.message);
            }
        }
        let list = self.invitation_list(tx, &what)?;
        if list.all_accepted && list.status == "inviting" {
            answered.starts = true;
            match &what {
                Invited::Tournament(t) => {
                    self.start_tournament_in(tx, t, now)?;
                    answered
                        .message
                        .push_str(" Everyone has accepted: the tournament begins, and its games come by mail.");
                }
                Invited::Game(g) => {
                    tx.set_invited_game(g, "starting", None)?;
                    answered.message.push_str(" Everyone has accepted: the game begins, and its first mail follows.");
                }
            }
        }
        Ok(answered)
    }

    /// Creates the invited games waiting to start (all accepted, or started
    /// by the organiser), each in ONE transaction with its marking `started`,
    /// so that a crash leaves either no game and the invited game waiting, or
    /// both: the next call (every sweep, the start-up one included) finishes
    /// what a crash interrupted, and never makes a game twice. Returns the
    /// games created. A game whose creation is refused goes back to
    /// `inviting` (logged), so the organiser can replace a player and start it
    /// again.
    pub async fn create_invited_games(&self, now: DateTime<Utc>) -> Vec<(String, Result<GameId, StewardError>)> {
        let waiting = match self.store.transaction(|tx| Ok::<_, StewardError>(tx.invited_games_to_create()?)).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::error!(error = %e, "the invited games waiting to start could not be read");
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for id in waiting {
            match self.create_invited_game(&id, now).await {
                Ok(None) => {} // made meanwhile by another caller
                Ok(Some(game)) => out.push((id, Ok(game))),
                Err(e) => {
                    tracing::warn!(invited = %id, error = %e, "an invited game could not be created; it waits for the organiser");
                    out.push((id, Err(e)));
                }
            }
        }
        out
    }

    /// Creates invited game `id` if it still waits (`starting`, or `creating`
    /// as a steward before this one left it when it died): the game, its
    /// start mails, the status `started` and the closed invitations in one
    /// transaction. `None` when it was made already.
    async fn create_invited_game(&self, id: &str, now: DateTime<Utc>) -> Result<Option<GameId>, StewardError> {
        let key = id.to_owned();
        let this = self.clone();
        let made = self
            .store
            .transaction(move |tx| {
                let row = tx.invited_game(&key)?.ok_or_else(|| internal(format!("invited game {key} vanished")))?;
                if row.game.is_some() || !matches!(row.status.as_str(), "starting" | "creating") {
                    return Ok(None);
                }
                let mut spec = parse_spec(&row.spec)?;
                for (p, r) in current(&tx.invited_game_invitations(&key)?) {
                    if let Some(seat) = spec.seats.get_mut(p as usize) {
                        // The organiser's keys belong to the player the seat was
                        // made for, never to one who replaced them (issue 33).
                        let same = seat.email.trim().eq_ignore_ascii_case(r.email.trim());
                        seat.name = r.name.clone().unwrap_or_else(|| seat.name.clone());
                        seat.email = r.email.clone();
                        seat.public_key = r.public_key.clone().or_else(|| seat.public_key.clone().filter(|_| same));
                        seat.openpgp_key = r.openpgp_key.clone().or_else(|| seat.openpgp_key.clone().filter(|_| same));
                    }
                }
                spec.invite = false;
                let prepared = this.prepare_game(&spec)?;
                // The seats' links reach the players in the start mails; the
                // tokens themselves are answered to nobody.
                let hashes: Vec<String> = spec.seats.iter().map(|_| SeatToken::random().hash()).collect();
                let (game, _) = this.create_game_in(tx, &prepared, &hashes, now, true)?;
                tx.set_invited_game(&key, "started", Some(game.as_str()))?;
                for r in current(&tx.invited_game_invitations(&key)?).values() {
                    tx.close_invitation(r.id, now)?;
                }
                Ok::<_, StewardError>(Some(game))
            })
            .await;
        match made {
            Ok(game) => {
                if let Some(game) = &game {
                    self.outbox.notify_one();
                    tracing::info!(invited = %id, game = %game, "invited game created");
                }
                Ok(game)
            }
            Err(e) => {
                let key = id.to_owned();
                self.store
                    .transaction(move |tx| Ok::<_, StewardError>(tx.set_invited_game(&key, "inviting", None)?))
                    .await?;
                Err(e)
            }
        }
    }

    /// Starts a tournament or invited game now (the organiser), with the
    /// players who accepted and those who did not answer (their invitations
    /// close); refused while a place is declined and not replaced.
    /// Returns the invitations' status after (an invited game's `game` is set).
    ///
    /// # Errors
    /// Unknown, outside the organiser's reach, not inviting, a declined place.
    pub async fn start_invited(
        &self,
        by: &Organiser,
        what: Invited,
        now: DateTime<Utc>,
    ) -> Result<InvitationList, StewardError> {
        may_invite(by, &what)?;
        let this = self.clone();
        let w = what.clone();
        self.store
            .transaction(move |tx| {
                let list = this.invitation_list(tx, &w)?;
                if list.status != "inviting" {
                    return Err(Refusal::InvitationClosed(format!(
                        "{} is {}, not waiting for its players",
                        w.describe(),
                        list.status
                    ))
                    .into());
                }
                let declined: Vec<String> = list
                    .invitations
                    .iter()
                    .filter(|i| i.answer == "declined")
                    .map(|i| format!("{} ({}, place {})", i.name, i.email, i.player))
                    .collect();
                if !declined.is_empty() {
                    return Err(Refusal::BadRequest(format!(
                        "{} declined; replace them first (POST …/players/{{n}}/replace, or …/seats/{{n}}/replace for a game) with {{\"name\": …, \"email\": …}}",
                        declined.join(", ")
                    ))
                    .into());
                }
                let rows = match &w {
                    Invited::Tournament(t) => tx.tournament_invitations(t)?,
                    Invited::Game(g) => tx.invited_game_invitations(g)?,
                };
                for r in current(&rows).values().filter(|r| r.answer == "pending") {
                    tx.close_invitation(r.id, now)?;
                }
                match &w {
                    Invited::Tournament(t) => this.start_tournament_in(tx, t, now)?,
                    Invited::Game(g) => tx.set_invited_game(g, "starting", None)?,
                }
                Ok::<_, StewardError>(())
            })
            .await?;
        self.outbox.notify_one();
        if let Invited::Game(g) = &what {
            for (id, made) in self.create_invited_games(now).await {
                if id.eq_ignore_ascii_case(g) {
                    made?;
                }
            }
        }
        let this = self.clone();
        self.store.transaction(move |tx| this.invitation_list(tx, &what)).await
    }

    /// Gives place `player` of a tournament or invited game, declined or not
    /// answered, to another player, who is invited at once; the old
    /// invitation closes.
    ///
    /// # Errors
    /// Unknown, outside the organiser's reach, not inviting, a place that
    /// accepted, a bad name, address or key.
    pub async fn replace_invited(
        &self,
        by: &Organiser,
        what: Invited,
        player: u32,
        new: Replacement,
        now: DateTime<Utc>,
    ) -> Result<InvitationList, StewardError> {
        may_invite(by, &what)?;
        let (name, email, key) = checked_player("the new player", &new.name, &new.email, new.public_key.as_deref())?;
        let pgp = super::checked_openpgp_key("the new player", new.openpgp_key.as_deref())?;
        let this = self.clone();
        let list = self
            .store
            .transaction(move |tx| {
                let list = this.invitation_list(tx, &what)?;
                if list.status != "inviting" {
                    return Err(Refusal::InvitationClosed(format!(
                        "{} is {}: its players are set (a running game's seat is replaced at the desk)",
                        what.describe(),
                        list.status
                    ))
                    .into());
                }
                let Some(place) = list.invitations.iter().find(|i| i.player == player) else {
                    return Err(Refusal::BadRequest(format!(
                        "{} has no place {player}; places are numbered 0 to {}",
                        what.describe(),
                        list.invitations.len().saturating_sub(1)
                    ))
                    .into());
                };
                if place.answer == "accepted" {
                    return Err(Refusal::BadRequest(format!(
                        "{} accepted place {player}; only a place declined or not answered is replaced before play",
                        place.name
                    ))
                    .into());
                }
                let rows = match &what {
                    Invited::Tournament(t) => tx.tournament_invitations(t)?,
                    Invited::Game(g) => tx.invited_game_invitations(g)?,
                };
                if let Some(old) = current(&rows).get(&player) {
                    tx.close_invitation(old.id, now)?;
                }
                if let Invited::Tournament(t) = &what {
                    tx.set_invited_player(t, player, &name, &email, (key.as_deref(), pgp.as_deref()))?;
                }
                let id = this.invite_one(tx, &what, player, &name, &email, now)?;
                // The replacement's keys wait on the invitation (issue 33).
                tx.set_invitation_keys(id, (key.as_deref(), pgp.as_deref()))?;
                this.invitation_list(tx, &what)
            })
            .await?;
        self.outbox.notify_one();
        Ok(list)
    }

    /// A mail to an invitation's reply address, in the mail's transaction:
    /// the invitation must be the one the address names and the mail must come
    /// from the invited address; the answer goes to that address, worded by
    /// the door. Returns the outcome and whether a game now waits to be created.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn invitation_mail_in(
        &self,
        tx: &Tx<'_>,
        reply: &InvitationReply,
        word: &InvitationReplyWord,
        openpgp_key: Option<&str>,
        sender: Option<&str>,
        answer_to: &super::AnswerTo,
        wording: super::Wording,
        now: DateTime<Utc>,
    ) -> Result<super::MailOutcome, StewardError> {
        use super::{Answer, Ignored, MailOutcome, Refused, Taken};
        let Some(row) = tx.invitation(reply.id)? else {
            return Ok(MailOutcome::Ignored(Ignored::NoProof));
        };
        if !capability::invitation_matches(&self.keys, reply, &row.email) {
            return Ok(MailOutcome::Ignored(Ignored::NoProof));
        }
        if !sender.is_some_and(|s| s.trim().eq_ignore_ascii_case(row.email.trim())) {
            // Only the invited address answers its invitation; nobody is told.
            return Ok(MailOutcome::Refused(Refused::ForeignSender));
        }
        let (answer, outcome) = match word {
            InvitationReplyWord::Accept | InvitationReplyWord::Decline => {
                let answer = if *word == InvitationReplyWord::Accept {
                    // A key attached to or pasted in the accepting mail (issue 33).
                    InvitationAnswer::Accept(AcceptInvitation {
                        openpgp_key: openpgp_key.map(str::to_owned),
                        ..AcceptInvitation::default()
                    })
                } else {
                    InvitationAnswer::Decline
                };
                match tx.attempt(|tx| self.answer_invitation_in(tx, &row, &answer, now)) {
                    Ok(a) => {
                        let text = wording(&Answer::Invitation(&a));
                        (text, MailOutcome::Accepted(Taken::Invitation(a.answer)))
                    }
                    Err(StewardError::Refused(r)) => {
                        (wording(&Answer::Refused(&r)), MailOutcome::Refused(Refused::Command(r.code())))
                    }
                    Err(e) => return Err(e),
                }
            }
            InvitationReplyWord::Unreadable(line) => {
                (wording(&Answer::InvitationUnread { line: Some(line) }), MailOutcome::Refused(Refused::Unreadable))
            }
            InvitationReplyWord::Empty => {
                (wording(&Answer::InvitationUnread { line: None }), MailOutcome::Refused(Refused::Empty))
            }
        };
        // The sender's share of answers, as for every answer.
        let key = format!("answer|{}", row.email.trim().to_lowercase());
        if tx.rate_count(&key, now - chrono::Duration::hours(1))? >= super::ANSWERS_PER_HOUR {
            tracing::warn!(to = %row.email, "answer dropped: this sender's hourly answers are used up");
            return Ok(outcome);
        }
        tx.rate_spend(&key, now)?;
        let what = Self::invited_of(&row)?;
        let mail = mail::answer(self, &row, &what, answer_to, &answer, now)?;
        tx.queue_mail(&mail, now)?;
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directors_invite_for_their_own_tournament_only() {
        let t: TournamentId = "T8KQ2ZJ".parse().unwrap();
        let other: TournamentId = "T9KQ2ZJ".parse().unwrap();
        let d = Organiser::Director { tournament: t.clone(), name: "Dora".into() };
        assert!(may_invite(&d, &Invited::Tournament(t.clone())).is_ok());
        assert!(matches!(may_invite(&d, &Invited::Tournament(other)), Err(Refusal::Forbidden(_))));
        assert!(matches!(may_invite(&d, &Invited::Game("I8KQ2ZJ".into())), Err(Refusal::Forbidden(_))));
        assert!(may_invite(&Organiser::Operator, &Invited::Game("I8KQ2ZJ".into())).is_ok());
    }

    #[test]
    fn a_tournament_asks_for_keys_when_it_asks_for_signatures() {
        assert!(tournament_needs_key(r#"{"options": {"auth": "signature"}}"#));
        assert!(tournament_needs_key(r#"{"auth": "signature"}"#));
        assert!(!tournament_needs_key(r#"{"options": {"auth": "token"}}"#));
        assert!(!tournament_needs_key("not json"));
    }
}
