//! The organiser's desk (issue 31): who may act on games besides their seats
//! (the operator, a tournament's director), and the director's tools —
//! adjudicate, abort, extend a deadline, replace a player, send a seat a new
//! link — each one store transaction that writes a transcript entry `verify`
//! understands; and the lists of games an organiser or a player sees.
//!
//! Every tool takes the [`Organiser`] who acts: a director acts on the games of
//! its own tournament only ([`Organiser::may_act_on`]).

use chrono::{DateTime, TimeDelta, Utc};
use minijinja::context;
use serde::Serialize;
use serde_json::json;

use super::{Credential, GameView, Loaded, NewSeat, Refusal, Steward, StewardError, internal, load, mails, view};
use crate::ids::{GameId, SeatToken, TournamentId};
use crate::letters::compose::{Draft, Extras, MailKind, compose_with_suffix};
use crate::protocol::OperatorToken;
use crate::protocol::policy::Auth;
use crate::rules::{EndReason, GameResult, Outcome, Seat};
use crate::store::Tx;

/// The longest reason an organiser may give (it goes into the transcript and
/// every seat's mail).
pub const MAX_REASON_CHARS: usize = 500;

/// The longest deadline extension one request may give, in hours (a year).
pub const MAX_EXTENSION_HOURS: u32 = 24 * 366;

/// Who acts at the desk: the operator, or a tournament's director.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Organiser {
    /// The steward's operator (the operator token): may act on every game.
    Operator,
    /// A director of one tournament (a director's token): may act on that
    /// tournament's games only.
    Director {
        /// The tournament it directs.
        tournament: TournamentId,
        /// The director's name, as the operator named it.
        name: String,
    },
}

impl Organiser {
    /// [`Refusal::Forbidden`] unless this organiser may act on `game` (a
    /// director: only the games of its tournament).
    ///
    /// # Errors
    /// The refusal; store failures.
    pub(crate) fn may_act_on(&self, tx: &Tx<'_>, game: &GameId) -> Result<(), StewardError> {
        match self {
            Organiser::Operator => Ok(()),
            Organiser::Director { tournament, .. } => {
                if tx.tournament_of_game(game)?.is_some_and(|(t, _)| &t == tournament) {
                    Ok(())
                } else {
                    Err(Refusal::Forbidden(format!(
                        "this director's token acts for tournament {tournament} only, and game {game} is not one of its games"
                    ))
                    .into())
                }
            }
        }
    }

    /// Who acted, as the transcript records it (no secret).
    pub fn record(&self) -> serde_json::Value {
        match self {
            Organiser::Operator => json!({"role": "operator"}),
            Organiser::Director { tournament, name } => {
                json!({"role": "director", "name": name, "tournament": tournament.to_string()})
            }
        }
    }

    /// Who acted, in words: `the operator`, `director Ann Example (tournament T…)`.
    pub fn words(&self) -> String {
        match self {
            Organiser::Operator => "the operator".to_owned(),
            Organiser::Director { tournament, name } => format!("director {name} (tournament {tournament})"),
        }
    }

    /// The tournament a director acts for; `None` for the operator.
    pub fn tournament(&self) -> Option<&TournamentId> {
        match self {
            Organiser::Operator => None,
            Organiser::Director { tournament, .. } => Some(tournament),
        }
    }
}

/// A reason an organiser gives, checked: one line of text, not empty, at most
/// [`MAX_REASON_CHARS`] characters.
fn reason_text(reason: &str, what: &str) -> Result<String, Refusal> {
    let r = reason.trim();
    if r.is_empty() {
        return Err(Refusal::BadRequest(format!(
            "{what} needs a reason: say in a few words why (it goes into the transcript and the players' mail)"
        )));
    }
    if r.chars().count() > MAX_REASON_CHARS {
        return Err(Refusal::BadRequest(format!(
            "the reason has more than {MAX_REASON_CHARS} characters; say it shorter"
        )));
    }
    if r.chars().any(char::is_control) {
        return Err(Refusal::BadRequest("the reason must be one line of text, without control characters".into()));
    }
    Ok(r.to_owned())
}

/// The seat of `g` named `name` (any case), or a refusal naming the seats.
fn seat_of(g: &Loaded, name: &str) -> Result<Seat, StewardError> {
    super::answers::seat_named(g, name).ok_or_else(|| {
        Refusal::BadRequest(format!(
            "game {} has no seat {name:?}; its seats are {}",
            g.row.id,
            g.rules.seat_names().join(", ")
        ))
        .into()
    })
}

/// A seat's new token, returned once to the organiser who made it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"game": "8KQ2ZJ", "seat": "black", "player": "Carol", "token": "3q2+7w…", "mailed_to": "carol@example.org"}))]
pub struct NewToken {
    /// The game.
    pub game: String,
    /// The seat's name.
    pub seat: String,
    /// The player now in the seat.
    pub player: String,
    /// The new token (shown this once; the old one no longer works).
    pub token: String,
    /// The address it was mailed to (the seat's registered address).
    pub mailed_to: String,
}

/// A deadline extended.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"game": "8KQ2ZJ", "seat": "white", "hours": 72, "deadline": "2027-01-09T18:00:00Z"}))]
pub struct Extended {
    /// The game.
    pub game: String,
    /// The seat.
    pub seat: String,
    /// The hours added.
    pub hours: u32,
    /// The seat's deadline now, when its clock runs (UTC).
    pub deadline: Option<String>,
}

impl Steward {
    /// The organiser a bearer token names: the operator token, or a director's
    /// token (hashed in `directors`, as seat tokens are: [`SeatToken::hash`]).
    ///
    /// # Errors
    /// Store failures.
    pub async fn organiser(&self, operator: &OperatorToken, token: &str) -> Result<Option<Organiser>, StewardError> {
        let token = token.trim();
        if token.is_empty() {
            return Ok(None);
        }
        if operator.matches(token) {
            return Ok(Some(Organiser::Operator));
        }
        let hash = SeatToken::from_presented(token).hash();
        let found = self.store.transaction(move |tx| Ok::<_, StewardError>(tx.director(&hash)?)).await?;
        Ok(found.map(|(tournament, name)| Organiser::Director { tournament, name }))
    }

    /// The director whose token hashes to `hash` ([`SeatToken::hash`]), as the
    /// desk's session cookie names it; `None` once the director is gone.
    ///
    /// # Errors
    /// Store failures.
    pub async fn director_by_hash(&self, hash: String) -> Result<Option<Organiser>, StewardError> {
        let found = self.store.transaction(move |tx| Ok::<_, StewardError>(tx.director(&hash)?)).await?;
        Ok(found.map(|(tournament, name)| Organiser::Director { tournament, name }))
    }

    /// Loads `game` for an organiser's tool: it must exist, `by` may act on it,
    /// the timeouts that fell before `now` are settled, and it must be on.
    fn desk_load(
        &self,
        tx: &Tx<'_>,
        game: &GameId,
        by: &Organiser,
        now: DateTime<Utc>,
    ) -> Result<Loaded, StewardError> {
        if !tx.game_exists(game)? {
            return Err(Refusal::UnknownGame(game.to_string()).into());
        }
        by.may_act_on(tx, game)?;
        self.settle_flags_in(tx, game.as_str(), now)?;
        let g = load(tx, game.as_str())?;
        if let Some(o) = g.row.outcome {
            return Err(Refusal::GameOver(g.outcome_text(o)).into());
        }
        Ok(g)
    }

    /// In the caller's transaction: ends `game` with `result`, decided by `by`
    /// for `reason`; writes an `adjudicated` transcript entry then the `ended`
    /// one (reason `adjudicated`), stops the clocks, queues the result mails.
    /// Refused if the game is over.
    ///
    /// # Errors
    /// The game is unknown, over, or not `by`'s; an empty reason; a result that
    /// does not fit the game's seats; store failures.
    pub(crate) fn adjudicate_in(
        &self,
        tx: &Tx<'_>,
        game: &GameId,
        result: GameResult,
        reason: &str,
        by: &Organiser,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let reason = reason_text(reason, "an adjudication")?;
        let g = self.desk_load(tx, game, by, now)?;
        let names: Vec<String> = g.seats.iter().map(|s| g.seat_name(s.seat)).collect();
        let decision = result.decision_text(&names).map_err(Refusal::BadRequest)?;
        let outcome = Outcome { result, reason: EndReason::Adjudicated };
        tx.append_event(
            &g.row.id,
            now,
            "adjudicated",
            &json!({
                "decision": decision,
                "result": outcome.recorded_result(&names),
                "reason": reason,
                "by": by.record(),
                "turn": g.row.turn,
            }),
        )?;
        self.end(tx, &g, outcome, now)?;
        let head = self.sign_head(tx, &g.row.id)?;
        let text = format!("The game was adjudicated by {}: {reason}", by.words());
        for mail in mails::notice(self, &g, mails::Notice::Ended, &text, Some(outcome), &head, now)? {
            tx.queue_mail(&mail, now)?;
        }
        tracing::info!(game = %g.row.id, by = %by.words(), "game adjudicated");
        Ok(())
    }

    /// In the caller's transaction: ends `game` without a result (an `aborted`
    /// entry, then `ended` with reason `aborted`); standings leave it out.
    ///
    /// # Errors
    /// The game is unknown, over, or not `by`'s; an empty reason; store failures.
    pub(crate) fn abort_in(
        &self,
        tx: &Tx<'_>,
        game: &GameId,
        reason: &str,
        by: &Organiser,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let reason = reason_text(reason, "aborting a game")?;
        let g = self.desk_load(tx, game, by, now)?;
        tx.append_event(&g.row.id, now, "aborted", &json!({"reason": reason, "by": by.record(), "turn": g.row.turn}))?;
        let outcome = Outcome::aborted();
        self.end(tx, &g, outcome, now)?;
        let head = self.sign_head(tx, &g.row.id)?;
        let text = format!("The game was aborted by {}, without a result: {reason}", by.words());
        for mail in mails::notice(self, &g, mails::Notice::Ended, &text, Some(outcome), &head, now)? {
            tx.queue_mail(&mail, now)?;
        }
        tracing::info!(game = %g.row.id, by = %by.words(), "game aborted");
        Ok(())
    }

    /// Adjudicates `game` (see [`Steward::adjudicate_in`]) in a transaction of
    /// its own; `decision` is the result in the game's terms (see
    /// [`GameResult::from_decision`]).
    ///
    /// # Errors
    /// As [`Steward::adjudicate_in`]; a decision that does not read.
    pub async fn adjudicate(
        &self,
        game: String,
        decision: String,
        reason: String,
        by: Organiser,
        now: DateTime<Utc>,
    ) -> Result<GameView, StewardError> {
        self.desk_command(game, move |this, tx, id| {
            let g = load(tx, id.as_str())?;
            let names: Vec<String> = g.seats.iter().map(|s| g.seat_name(s.seat)).collect();
            let result = GameResult::from_decision(&decision, &names).map_err(Refusal::BadRequest)?;
            this.adjudicate_in(tx, id, result, &reason, &by, now)?;
            view::game_view(this, tx, &load(tx, id.as_str())?, None)
        })
        .await
    }

    /// Aborts `game` (see [`Steward::abort_in`]) in a transaction of its own.
    ///
    /// # Errors
    /// As [`Steward::abort_in`].
    pub async fn abort(
        &self,
        game: String,
        reason: String,
        by: Organiser,
        now: DateTime<Utc>,
    ) -> Result<GameView, StewardError> {
        self.desk_command(game, move |this, tx, id| {
            this.abort_in(tx, id, &reason, &by, now)?;
            view::game_view(this, tx, &load(tx, id.as_str())?, None)
        })
        .await
    }

    /// Gives `seat` of `game` `hours` more for its move now owed (or, when its
    /// clock stands, for its next move): a `deadline_extended` entry.
    ///
    /// # Errors
    /// A game without a time control; hours out of 1..=[`MAX_EXTENSION_HOURS`];
    /// as [`Steward::adjudicate_in`].
    pub async fn extend_deadline(
        &self,
        game: String,
        seat: String,
        hours: u32,
        reason: String,
        by: Organiser,
        now: DateTime<Utc>,
    ) -> Result<Extended, StewardError> {
        self.desk_command(game, move |this, tx, id| {
            if !(1..=MAX_EXTENSION_HOURS).contains(&hours) {
                return Err(Refusal::BadRequest(format!(
                    "an extension is a whole number of hours from 1 to {MAX_EXTENSION_HOURS}, e.g. {{\"hours\": 72}}"
                ))
                .into());
            }
            let reason = reason_text(&reason, "an extension")?;
            let g = this.desk_load(tx, id, &by, now)?;
            let seat = seat_of(&g, &seat)?;
            let Some(gc) = this.load_clock(tx, &g)? else {
                return Err(Refusal::BadRequest(format!(
                    "game {} has no time control, so there is no deadline to extend",
                    g.row.id
                ))
                .into());
            };
            let mut c = gc.seats[seat.index()].clone();
            if c.flagged_at.is_some() {
                return Err(Refusal::BadRequest(format!(
                    "{} timed out and is out of the game; there is no deadline to extend",
                    g.seat_name(seat)
                ))
                .into());
            }
            c.bank += TimeDelta::hours(i64::from(hours));
            tx.save_seat_clock(&g.row.id, seat, &c)?;
            let deadline = crate::clock::status(&gc.spec, &c, &gc.stops, now).deadline.map(crate::store::time_text);
            let name = g.seat_name(seat);
            tx.append_event(
                &g.row.id,
                now,
                "deadline_extended",
                &json!({"seat": name, "hours": hours, "deadline": deadline, "reason": reason, "by": by.record(), "turn": g.row.turn}),
            )?;
            let head = this.sign_head(tx, &g.row.id)?;
            let when = deadline.as_deref().map_or_else(
                || "for the next move".to_owned(),
                |d| format!("the move now owed is due {d}"),
            );
            let text = format!("{} gave {name} {hours} hours more ({when}): {reason}", by.words());
            for mail in mails::to_seats(
                this,
                &g,
                MailKind::Leave,
                &format!("-extended-{}", head.seq),
                None,
                &format!("{name}'s deadline was extended"),
                |_| text.clone(),
                None,
                &head,
                now,
            )? {
                tx.queue_mail(&mail, now)?;
            }
            Ok(Extended { game: g.row.id.to_string(), seat: name, hours, deadline })
        })
        .await
    }

    /// Puts a new player into `seat` of `game`: the new player inherits the
    /// position and the clock; the old token stops working; the new token is
    /// mailed to the new address and returned (once) to the organiser. A
    /// `replaced` entry records the names and the new public key.
    ///
    /// # Errors
    /// A bad name, address or key; a name another seat shows; as
    /// [`Steward::adjudicate_in`].
    pub async fn replace_player(
        &self,
        game: String,
        seat: String,
        new: NewSeat,
        reason: String,
        by: Organiser,
        now: DateTime<Utc>,
    ) -> Result<NewToken, StewardError> {
        let token = SeatToken::random();
        let secret = token.reveal().to_owned();
        let hash = token.hash();
        self.desk_command(game, move |this, tx, id| {
            let reason = reason_text(&reason, "a replacement")?;
            let g = this.desk_load(tx, id, &by, now)?;
            let seat = seat_of(&g, &seat)?;
            let seat_name = g.seat_name(seat);
            let refuse = |e: crate::contact::ContactError| Refusal::BadRequest(format!("the new player of {seat_name}: {e}"));
            let name = crate::contact::PlayerName::parse(&new.name).map_err(refuse)?;
            let email = crate::contact::PlayerAddress::parse(&new.email).map_err(refuse)?;
            if let Some(other) = g.seats.iter().find(|s| s.seat != seat && crate::contact::PlayerName::lenient(&s.name).shown_as() == name.shown_as()) {
                return Err(Refusal::BadRequest(format!(
                    "{} already shows the name {:?}; give the new player a name of its own",
                    g.seat_name(other.seat),
                    name.as_str()
                ))
                .into());
            }
            let key = super::checked_public_key(&format!("the new player of {seat_name}"), new.public_key.as_deref())?;
            // issue 33: or an OpenPGP key, read and checked as at creation.
            let pgp = super::checked_openpgp_key(&format!("the new player of {seat_name}"), new.openpgp_key.as_deref())?;
            if key.is_none() && pgp.is_none() && g.row.auth == Auth::Signature {
                return Err(Refusal::BadRequest(
                    "this game needs signed moves (auth = signature): give the new player's public_key (`fairsteward player keygen`) or openpgp_key (`gpg --armor --export ADDRESS`)".into(),
                )
                .into());
            }
            let old = g.seats[seat.index()].name.clone();
            tx.replace_seat_player(&g.row.id, seat, name.as_str(), &email.to_string(), key.as_deref(), &hash)?;
            if pgp.is_some() {
                tx.set_openpgp_key(&g.row.id, seat, pgp.as_deref())?;
            }
            let mut body = json!({"seat": seat_name, "player": name.as_str(), "previous_player": old, "reason": reason, "by": by.record(), "turn": g.row.turn});
            if let Some(k) = &key {
                body["public_key"] = json!(k);
            }
            if let Some(k) = &pgp {
                body["openpgp_key"] = json!(k);
            }
            tx.append_event(&g.row.id, now, "replaced", &body)?;
            let head = this.sign_head(tx, &g.row.id)?;
            // The player who leaves hears it at the address the seat had (no link:
            // it no longer signs anyone in).
            let farewell = format!(
                "{} gave your seat {seat_name} to another player ({reason}). Your seat token no longer works, and this address no longer acts for the seat.",
                by.words()
            );
            this.seat_mail(tx, &g, seat, "you no longer play this game", &farewell, &format!("-left-{}", head.seq), &head, false, now)?;
            let g = load(tx, id.as_str())?;
            let text = format!("{} replaced {old} in seat {seat_name} by {}: {reason}", by.words(), name.as_str());
            for mail in mails::to_seats(
                this,
                &g,
                MailKind::Started,
                &format!("-replaced-{}", head.seq),
                Some(seat),
                &format!("{} takes over {seat_name}", name.as_str()),
                |_| text.clone(),
                None,
                &head,
                now,
            )? {
                tx.queue_mail(&mail, now)?;
            }
            let welcome = format!(
                "You take over seat {seat_name} from {old}, with its position and its clock ({}: {reason}). Your seat token is\n\n  {secret}\n\nKeep it to yourself: whoever holds it plays the seat (send it as `Authorization: Bearer <token>`). You can also play by replying to the board mails, or on the web with the private link below.",
                by.words()
            );
            this.seat_mail(tx, &g, seat, "you take over a seat", &welcome, &format!("-seat-{}", head.seq), &head, true, now)?;
            Ok(NewToken {
                game: g.row.id.to_string(),
                seat: seat_name,
                player: name.to_string(),
                token: secret,
                mailed_to: email.to_string(),
            })
        })
        .await
    }

    /// Gives `seat` of `game` a new token, mailed to the seat's registered
    /// address only and returned (once) to the organiser; the old token stops
    /// working. A `relinked` entry records it, without the token.
    ///
    /// # Errors
    /// As [`Steward::adjudicate_in`].
    pub async fn relink(
        &self,
        game: String,
        seat: String,
        by: Organiser,
        now: DateTime<Utc>,
    ) -> Result<NewToken, StewardError> {
        let token = SeatToken::random();
        let secret = token.reveal().to_owned();
        let hash = token.hash();
        self.desk_command(game, move |this, tx, id| {
            let g = this.desk_load(tx, id, &by, now)?;
            let seat = seat_of(&g, &seat)?;
            let seat_name = g.seat_name(seat);
            tx.set_seat_token(&g.row.id, seat, &hash)?;
            tx.append_event(&g.row.id, now, "relinked", &json!({"seat": seat_name, "by": by.record(), "turn": g.row.turn}))?;
            let head = this.sign_head(tx, &g.row.id)?;
            let text = format!(
                "{} sent you a new link to your seat {seat_name}; the token you had no longer works. Your new seat token is\n\n  {secret}\n\nKeep it to yourself: whoever holds it plays the seat (send it as `Authorization: Bearer <token>`). The private link below signs you in on the web.",
                by.words()
            );
            this.seat_mail(tx, &g, seat, "a new link to your seat", &text, &format!("-relink-{}", head.seq), &head, true, now)?;
            let row = &g.seats[seat.index()];
            Ok(NewToken {
                game: g.row.id.to_string(),
                seat: seat_name,
                player: row.name.clone(),
                token: secret,
                mailed_to: row.email.clone(),
            })
        })
        .await
    }

    /// Queues a mail to `seat`'s address as `g` has it, which may hold a secret
    /// (a new token) and, with `sign_in`, the seat's private sign-in link:
    /// formatted now and sealed to the steward's own key until it is sent, as
    /// answers are.
    #[allow(clippy::too_many_arguments)]
    fn seat_mail(
        &self,
        tx: &Tx<'_>,
        g: &Loaded,
        seat: Seat,
        subject: &str,
        text: &str,
        suffix: &str,
        head: &super::Head,
        sign_in: bool,
        now: DateTime<Utc>,
    ) -> Result<(), StewardError> {
        let row = &g.seats[seat.index()];
        let mail = compose_with_suffix(
            Draft {
                from: &self.from,
                game: &g.row.id,
                turn: g.row.turn,
                seat: seat.index(),
                kind: MailKind::Answer,
                to_name: &row.name,
                to_email: &row.email,
                subject: format!("Game {}: {subject}", g.row.id),
                template: "notice.txt",
                context: context! {
                    links => mails::links(self, g, seat, sign_in.then_some(now)),
                    trust => mails::trust(self, g, head),
                    ..mails::seat_context(self, g, seat, text.to_owned())
                },
                date: now,
                extras: Extras { reply_to: self.reply_address(g, seat, g.row.turn), ..Extras::default() },
            },
            suffix,
        )
        .map_err(internal)?;
        tx.queue_mail(&super::answers::seal_answer(&self.keys, mail), now)?;
        Ok(())
    }

    /// Runs an organiser's tool on `game` in a transaction of its own (the
    /// timeouts settled first stand even when the tool is refused) and wakes
    /// the outbox.
    async fn desk_command<T: Send + 'static>(
        &self,
        game: String,
        act: impl FnOnce(&Steward, &Tx<'_>, &GameId) -> Result<T, StewardError> + Send + 'static,
    ) -> Result<T, StewardError> {
        let id: GameId = game.parse().map_err(|_| Refusal::UnknownGame(game.clone()))?;
        let this = self.clone();
        let result = self
            .store
            .transaction(move |tx| match tx.attempt(|tx| act(&this, tx, &id)) {
                Err(e @ (StewardError::Internal(_) | StewardError::Unavailable(_))) => Err(e),
                other => Ok(other),
            })
            .await?;
        self.outbox.notify_one();
        result
    }
}

/// What the desk's list of games filters by (all optional; all given must hold).
#[derive(Clone, Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GameFilter {
    /// `running` or `finished`.
    #[serde(default)]
    pub status: Option<String>,
    /// Games waiting for a move: with a name or address, only those where that
    /// player owes one (empty: every running game someone owes a move in).
    #[serde(default)]
    pub to_move: Option<String>,
    /// Games where a seat is past its deadline.
    #[serde(default, deserialize_with = "flag")]
    pub overdue: bool,
    /// Games where a player is on leave now.
    #[serde(default, deserialize_with = "flag")]
    pub on_leave: bool,
    /// A player's name or address, or a game id (any part, any case).
    #[serde(default)]
    pub q: Option<String>,
}

/// A query flag: present (empty), `1`, `true`, `yes` or `on` is true.
fn flag<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let text: Option<String> = serde::Deserialize::deserialize(d)?;
    match text.as_deref().map(str::trim).map(str::to_ascii_lowercase).as_deref() {
        None | Some("0" | "false" | "no" | "off") => Ok(false),
        Some("" | "1" | "true" | "yes" | "on") => Ok(true),
        Some(other) => Err(serde::de::Error::custom(format!("{other:?} is not a flag; give true or false"))),
    }
}

impl GameFilter {
    /// Refuses a status that is neither `running` nor `finished`.
    fn check(&self) -> Result<(), Refusal> {
        match self.status.as_deref().map(str::trim) {
            None | Some("" | "running" | "finished") => Ok(()),
            Some(other) => Err(Refusal::BadRequest(format!(
                "status={other} is not a status; give status=running or status=finished"
            ))),
        }
    }
}

/// One seat in the desk's list of games.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct DeskSeat {
    /// The seat's name.
    pub seat: String,
    /// The player.
    pub player: String,
    /// The player's registered address (organisers see it).
    pub email: String,
    /// Whether the seat owes a move now.
    pub owes_move: bool,
    /// When its move is due (UTC), when its clock runs.
    pub deadline: Option<String>,
    /// Past its deadline.
    pub late: bool,
    /// The player is on leave now.
    pub on_leave: bool,
}

/// One game in the desk's list.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct DeskGame {
    /// The id.
    pub id: String,
    /// The variant.
    pub variant: String,
    /// `running` or `finished`.
    #[schema(value_type = String)]
    pub status: &'static str,
    /// The turn now owed.
    pub turn: u32,
    /// The seats.
    pub seats: Vec<DeskSeat>,
    /// The seats that owe a move.
    pub to_move: Vec<String>,
    /// The result once finished (`1-0`, `*` for an aborted game, a description).
    pub result: Option<String>,
    /// Why it ended.
    pub reason: Option<String>,
    /// The tournament it belongs to.
    pub tournament: Option<String>,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
}

impl DeskGame {
    fn matches(&self, f: &GameFilter) -> bool {
        let status_ok = match f.status.as_deref().map(str::trim) {
            Some("running") => self.status == "running",
            Some("finished") => self.status == "finished",
            _ => true,
        };
        let to_move_ok = match f.to_move.as_deref().map(str::trim) {
            None => true,
            Some("") => !self.to_move.is_empty(),
            Some(who) => {
                let who = who.to_lowercase();
                self.seats.iter().any(|s| {
                    s.owes_move && (s.player.to_lowercase().contains(&who) || s.email.to_lowercase().contains(&who))
                })
            }
        };
        let q_ok = match f.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            None => true,
            Some(q) => {
                let q = q.to_lowercase();
                self.id.to_lowercase().contains(&q)
                    || self
                        .seats
                        .iter()
                        .any(|s| s.player.to_lowercase().contains(&q) || s.email.to_lowercase().contains(&q))
            }
        };
        status_ok
            && to_move_ok
            && q_ok
            && (!f.overdue || self.seats.iter().any(|s| s.late))
            && (!f.on_leave || self.seats.iter().any(|s| s.on_leave))
    }
}

impl Steward {
    /// The games `by` may act on (a director: its tournament's), newest first,
    /// filtered by `filter`.
    ///
    /// # Errors
    /// A bad filter; store failures.
    pub async fn desk_games(&self, by: Organiser, filter: GameFilter) -> Result<Vec<DeskGame>, StewardError> {
        filter.check()?;
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                let ids: Vec<GameId> = match by.tournament() {
                    None => tx.games()?.into_iter().map(|r| r.id).collect(),
                    Some(t) => tx.tournament_game_ids(t)?,
                };
                let now = this.now();
                let mut out = Vec::new();
                for id in ids {
                    let g = load(tx, id.as_str())?;
                    let game = this.desk_game(tx, &g, now)?;
                    if game.matches(&filter) {
                        out.push(game);
                    }
                }
                Ok(out)
            })
            .await
    }

    /// One game as the desk lists it.
    fn desk_game(&self, tx: &Tx<'_>, g: &Loaded, now: DateTime<Utc>) -> Result<DeskGame, StewardError> {
        let v = view::game_view(self, tx, g, None)?;
        let players: Vec<String> = g.seats.iter().map(|s| s.email.to_lowercase()).collect();
        let leaves = tx.leaves_ending_after(&players, now)?;
        let seats = g
            .seats
            .iter()
            .zip(&v.seats)
            .map(|(s, sv)| DeskSeat {
                seat: sv.seat.clone(),
                player: s.name.clone(),
                email: s.email.clone(),
                owes_move: sv.owes_move,
                deadline: sv.clock.as_ref().and_then(|c| c.deadline.clone()),
                late: sv.clock.as_ref().is_some_and(|c| c.late) && g.row.outcome.is_none(),
                on_leave: leaves
                    .iter()
                    .any(|l| l.player.eq_ignore_ascii_case(&s.email) && l.starts_at <= now && now < l.ends_at),
            })
            .collect();
        Ok(DeskGame {
            id: v.id,
            variant: v.variant,
            status: if g.row.outcome.is_some() { "finished" } else { "running" },
            turn: v.turn,
            seats,
            to_move: v.to_move,
            result: v.outcome.as_ref().map(|o| o.result.clone()),
            reason: v.outcome.as_ref().map(|o| o.reason.clone()),
            tournament: tx.tournament_of_game(&g.row.id)?.map(|(t, _)| t.to_string()),
            created_at: v.created_at,
            updated_at: v.updated_at,
        })
    }

    /// One game for the desk's admin view: the game as the public sees it
    /// (without the spectator delay) and the desk's summary with the players'
    /// addresses. Refused unless `by` may act on it.
    ///
    /// # Errors
    /// Unknown game; not `by`'s; store failures.
    pub async fn desk_game_view(&self, game: String, by: Organiser) -> Result<(GameView, DeskGame), StewardError> {
        let id: GameId = game.parse().map_err(|_| Refusal::UnknownGame(game.clone()))?;
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                if !tx.game_exists(&id)? {
                    return Err(Refusal::UnknownGame(id.to_string()).into());
                }
                by.may_act_on(tx, &id)?;
                let g = load(tx, id.as_str())?;
                // The organiser sees the whole record, as a seat would (no
                // pending move: the viewer is no seat).
                let mut v = view::game_view(&this, tx, &g, None)?;
                if v.delayed {
                    let full = view::game_view(&this, tx, &g, Some(Seat::new(0)))?;
                    v.state = full.state;
                    v.history = full.history;
                    v.delayed = false;
                }
                let d = this.desk_game(tx, &g, this.now())?;
                Ok((v, d))
            })
            .await
    }

    /// Every game of a player: for a seat token, the games of the seat's
    /// registered address; for a web session, the games of its address. Each
    /// shows the player's own pending move only where the credential proves
    /// the seat (the token's game, the session's games).
    ///
    /// # Errors
    /// A token that is no seat's ([`Refusal::BadToken`]); store failures.
    pub async fn my_games(&self, credential: Credential) -> Result<Vec<MyGame>, StewardError> {
        let this = self.clone();
        self.store
            .transaction(move |tx| {
                let (address, proven): (String, Vec<String>) = match &credential {
                    Credential::Token(t) => {
                        let (game, _, email) =
                            tx.seat_by_token(&SeatToken::from_presented(t).hash())?.ok_or(Refusal::BadToken)?;
                        (email, vec![game.to_string()])
                    }
                    Credential::Session { address, games, .. } => (address.clone(), games.clone()),
                    _ => return Err(Refusal::BadToken.into()),
                };
                let mut out = Vec::new();
                for id in tx.games_of(&address)? {
                    let g = load(tx, id.as_str())?;
                    let seat = if proven.iter().any(|p| p.eq_ignore_ascii_case(id.as_str())) {
                        g.seats.iter().find(|s| s.email.eq_ignore_ascii_case(&address)).map(|s| s.seat)
                    } else {
                        None
                    };
                    let view = view::game_view(&this, tx, &g, seat)?;
                    out.push(MyGame::of(&g, &address, view));
                }
                Ok(out)
            })
            .await
    }
}

/// One of a player's games as `GET /api/me/games` lists it (issue 32): the
/// game as `GET /api/games/{id}` shows it, and what the player's own /me page
/// shows of it: the player's seats, the others at the table, whether it is the
/// player's move, its number, and the earliest deadline of the player's seats.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct MyGame {
    /// The game.
    #[serde(flatten)]
    pub game: GameView,
    /// The seats the player holds.
    pub your_seats: Vec<String>,
    /// The other seats and their players (`black: Bob`).
    pub opponents: Vec<String>,
    /// Whether one of the player's seats owes a move now.
    pub your_move: bool,
    /// The move number the player owes (`12...`), when it is the player's move.
    pub your_move_number: Option<String>,
    /// The earliest deadline of the player's seats (UTC), if clocks run.
    pub deadline: Option<String>,
}

impl MyGame {
    fn of(g: &super::Loaded, address: &str, game: GameView) -> MyGame {
        let mine: Vec<String> =
            g.seats.iter().filter(|s| s.email.eq_ignore_ascii_case(address)).map(|s| g.seat_name(s.seat)).collect();
        let own = |s: &super::SeatView| mine.contains(&s.seat);
        let owing = game.seats.iter().filter(|s| own(s) && s.move_number.is_some()).collect::<Vec<_>>();
        MyGame {
            opponents: game.seats.iter().filter(|s| !own(s)).map(|s| format!("{}: {}", s.seat, s.player)).collect(),
            your_move: game.seats.iter().any(|s| own(s) && s.owes_move),
            your_move_number: owing.iter().find(|s| s.owes_move).or(owing.first()).and_then(|s| s.move_number.clone()),
            deadline: game
                .seats
                .iter()
                .filter(|s| own(s))
                .filter_map(|s| s.clock.as_ref().and_then(|c| c.deadline.clone()))
                .min(),
            your_seats: mine,
            game,
        }
    }
}
