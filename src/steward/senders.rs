//! Who may act for a seat by mail: the seat's registered address, or an alias the
//! player confirmed (docs/player.md, "Who may act by mail").
//!
//! A reply capability proves which seat a mail is for, but anyone who sees a board
//! mail (forwarded, or over a shoulder) could use it; so the mail door acts on it
//! only when the `From` address is bound to the seat. Addresses are compared as a
//! whole in lower case ([`address_key`]), local part included, as most providers
//! treat it, and as leave is keyed.
//!
//! Aliases and changes of address are asked with the seat token (HTTP) or by the
//! operator (CLI) and take effect only when the new address answers the
//! confirmation mail sent to it: its reply address names the request and carries
//! a MAC bound to the request and the new address
//! ([`crate::protocol::capability::confirmation_address`]).

use chrono::{DateTime, Duration, Utc};
use lettre::message::Mailbox;
use serde::Serialize;

use super::command::Gate;
use super::{Credential, Loaded, Refusal, Steward, StewardError, load};
use crate::letters::compose::{Draft, Extras, MailKind, compose_with_suffix};
use crate::protocol::capability::{self, Confirmation};
use crate::rules::Seat;
use crate::store::{AddressKind, OutboxRow, Tx};

/// At most this many alias and address requests per seat per day: each mails an
/// address the asker chose.
pub const ADDRESS_REQUESTS_PER_DAY: u32 = 5;

/// At most this many alias and address requests per player (registered
/// address) per day, over all the player's seats.
pub const ADDRESS_REQUESTS_PER_PLAYER_PER_DAY: u32 = 10;

/// A confirmation mail is valid this many days.
pub const CONFIRM_DAYS: i64 = 7;

/// The form addresses are compared in: trimmed, without angle brackets, lower case.
pub fn address_key(address: &str) -> String {
    address.trim().trim_start_matches('<').trim_end_matches('>').trim().to_lowercase()
}

/// Who asks for an alias or a change of address.
#[derive(Clone, Debug)]
pub enum Asker {
    /// The holder of a seat token (HTTP): the request is for that seat.
    Token(String),
    /// The operator (CLI), for the seat of this name.
    Operator(String),
    /// A player signed in on the web (issue 32: the `/me` page), for their
    /// seat in the game asked about.
    Session {
        /// The session's registered address.
        address: String,
        /// The games the session was signed in for.
        games: Vec<String>,
    },
}

/// A request made: the answer to `POST /api/games/{id}/aliases` and `…/email`.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({
    "request": 12, "kind": "alias", "game": "8KQ2ZJ", "seat": "black", "address": "alice@example.net",
    "expires_at": "2026-12-14T10:00:00.000Z",
    "message": "a confirmation mail was sent to alice@example.net; the alias takes effect when it is answered from alice@example.net"
}))]
pub struct AddressRequest {
    /// The request's id.
    pub request: i64,
    /// `alias` or `email`.
    #[schema(value_type = String, pattern = "^(alias|email)$")]
    pub kind: &'static str,
    /// The game.
    pub game: String,
    /// The seat.
    pub seat: String,
    /// The new address.
    pub address: String,
    /// Until when the confirmation mail is valid.
    pub expires_at: String,
    /// What happens next.
    pub message: String,
}

/// Text from a mail's header, safe to quote in a mail body: one line, no control
/// characters, at most 200 characters.
fn quote(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).take(200).collect()
}

impl Steward {
    /// Whether a mail from `from` may act for `seat` of `game`: `from` is the
    /// seat's registered address or a confirmed alias of it.
    ///
    /// # Errors
    /// Unknown game or seat; store failures.
    pub async fn sender_may_act(&self, game: String, seat: String, from: Option<String>) -> Result<bool, StewardError> {
        let this = self.clone();
        let now = self.now();
        self.command(game, Gate::Named(seat), now, move |c| {
            this.sender_may_act_in(c.tx, &c.game, c.seat()?, from.as_deref())
        })
        .await
    }

    /// [`Steward::sender_may_act`] in the caller's transaction.
    pub(super) fn sender_may_act_in(
        &self,
        tx: &Tx<'_>,
        g: &Loaded,
        s: Seat,
        from: Option<&str>,
    ) -> Result<bool, StewardError> {
        let Some(from) = from.map(address_key).filter(|f| !f.is_empty()) else { return Ok(false) };
        let player = address_key(&g.seats[s.index()].email);
        Ok(from == player || tx.is_alias(&player, &from)?)
    }

    /// Tells the registered address of `seat` that a mail from `from` (with
    /// `subject`) tried to act for it and was not taken, and how to add `from`
    /// as an alias. At most one such notice per seat per hour; returns whether
    /// this one was queued.
    ///
    /// # Errors
    /// Unknown game or seat; store failures.
    pub async fn foreign_sender(
        &self,
        game: String,
        seat: String,
        from: String,
        subject: String,
        now: DateTime<Utc>,
    ) -> Result<bool, StewardError> {
        let this = self.clone();
        self.command(game, Gate::Named(seat), now, move |c| {
            this.foreign_sender_in(c.tx, &c.game, c.seat()?, &from, &subject, now)
        })
        .await
    }

    /// [`Steward::foreign_sender`] in the caller's transaction.
    pub(super) fn foreign_sender_in(
        &self,
        tx: &Tx<'_>,
        g: &Loaded,
        s: Seat,
        from: &str,
        subject: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StewardError> {
        let (this, seat) = (self, g.seat_name(s));
        if tx.sender_notices_since(&g.row.id, s, now - Duration::hours(1))? > 0 {
            tracing::info!(game = %g.row.id, seat = %seat, "no second notice about a foreign sender within the hour");
            return Ok(false);
        }
        let (id, name, from) = (g.row.id.as_str(), g.seat_name(s), quote(from));
        // The command is shown with the address only for a plain one: a
        // sender may choose one that would do harm pasted somewhere.
        let plain = from.chars().all(|c| c.is_ascii_alphanumeric() || "@.+-_".contains(c));
        let shown = if plain { from.clone() } else { "<that address>".to_owned() };
        let text = format!(
            "A mail from {from} (subject: {subject:?}) tried to act for your seat ({name}) in game {id}. \
             Nothing was taken, and nothing was sent to that address.\n\n\
             Only mails from your registered address or from an alias you confirmed act for your seat. \
             If {from} is yours, add it as an alias: reply to this mail, from your registered address, \
             with the line\n\n  alias {shown}\n\n\
             then reply from {from} to the confirmation mail the steward sends there. \
             Or, signed in on the web (the private link in your latest board mail), use \
             \"Another address of yours\" on your games page: {url}/me\n\
             You hear of such mails at most once an hour for this seat.",
            subject = quote(subject),
            url = this.public_url,
        );
        let row = &g.seats[s.index()];
        let suffix = format!("-{}", now.timestamp_millis());
        let subject = format!("Game {id}: a mail from another address tried to act for you");
        // Its reply address is the seat's, so `alias …` written in the reply acts.
        let reply_to = this.reply_address(g, s, g.row.turn);
        let mail = this.letter(g, s, &row.email, MailKind::Sender, &suffix, subject, text, reply_to, now)?;
        tx.queue_mail(&mail, now)?;
        Ok(true)
    }

    /// Asks for an alias or a change of address for a seat of `game`: records the
    /// request, mails the confirmation to the new address and a word to the
    /// registered one. Nothing changes until the new address replies
    /// ([`Steward::confirm_address`]).
    ///
    /// # Errors
    /// A bad token or seat, an address that is not one or changes nothing, too
    /// many requests; store failures.
    pub async fn request_address(
        &self,
        game: String,
        asker: Asker,
        kind: AddressKind,
        address: String,
        now: DateTime<Utc>,
    ) -> Result<AddressRequest, StewardError> {
        let this = self.clone();
        let gate = match asker {
            Asker::Token(t) => Gate::Seat(Credential::Token(t)),
            Asker::Operator(name) => Gate::Named(name),
            Asker::Session { address, games } => Gate::Seat(Credential::Session { address, seat: None, games }),
        };
        self.command(game, gate, now, move |c| this.request_address_in(c.tx, &c.game, c.seat()?, kind, &address, now))
            .await
    }

    /// [`Steward::request_address`] in the caller's transaction, for `seat`
    /// of `g` (the mail door's commands `alias …` and `address …` too).
    pub(super) fn request_address_in(
        &self,
        tx: &Tx<'_>,
        g: &Loaded,
        s: Seat,
        kind: AddressKind,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<AddressRequest, StewardError> {
        let this = self;
        let address = address.trim().to_owned();
        this.check_new_address(tx, g, s, kind, &address)?;
        if tx.address_requests_since(&g.row.id, s, now - Duration::days(1))? >= ADDRESS_REQUESTS_PER_DAY {
            return Err(Refusal::TooMany {
                what: format!(
                    "this seat asked for {ADDRESS_REQUESTS_PER_DAY} aliases or changes of address in the last 24 hours"
                ),
                wait: "wait a day, or reply to the confirmation mails already sent".into(),
            }
            .into());
        }
        let row = &g.seats[s.index()];
        let player = address_key(&row.email);
        // Per player too: a player with many seats must not multiply the
        // confirmation mails sent to addresses nobody has verified.
        super::spend_daily(tx, &format!("address|{player}"), ADDRESS_REQUESTS_PER_PLAYER_PER_DAY, now, || {
            (
                format!(
                    "the player of this seat asked for {ADDRESS_REQUESTS_PER_PLAYER_PER_DAY} aliases or changes of address in the last 24 hours, over all their games"
                ),
                "wait a day, or reply to the confirmation mails already sent".into(),
            )
        })?;
        let id = tx.insert_address_request(kind, &g.row.id, s, &player, &address, now)?;
        let (game_id, name) = (g.row.id.as_str(), g.seat_name(s));
        let what = match kind {
            AddressKind::Alias => format!(
                "be added as an alias of the player of seat {name} in game {game_id}: mails from it would act for every seat registered at the player's address"
            ),
            AddressKind::Email => format!("become the registered address of seat {name} in game {game_id}"),
        };
        let expires = now + Duration::days(CONFIRM_DAYS);
        let confirm_at = capability::confirmation_address(&this.keys, this.from.email.as_ref(), id, &address)
            .and_then(|a| format!("Fairsteward <{a}>").parse::<Mailbox>().ok())
            .ok_or_else(|| {
                super::internal("the confirmation address is not a mail address (use a shorter mail.from)")
            })?;
        let confirm = this.letter(
            g,
            s,
            &address,
            MailKind::Confirm,
            &format!("-{id}"),
            format!("Game {game_id}: confirm this address"),
            format!(
                "It was asked that this address, {address}, {what}.\n\n\
                 To confirm, reply to this mail from {address}: the reply goes to the confirmation address \
                 in its Reply-To, and what you write does not matter. Until then nothing changes. \
                 The confirmation is valid until {}. If you did not ask for this, ignore this mail.",
                crate::store::time_text(expires)
            ),
            Some(confirm_at),
            now,
        )?;
        let told = this.letter(
            g,
            s,
            &row.email,
            MailKind::Confirm,
            &format!("-{id}-asked"),
            format!("Game {game_id}: a new address was asked for your seat"),
            format!(
                "It was asked that {address} {what}. A confirmation mail went to {address}; nothing changes \
                 unless it is answered from there. If you did not ask for this, tell the steward's operator."
            ),
            None,
            now,
        )?;
        tx.queue_mail(&confirm, now)?;
        tx.queue_mail(&told, now)?;
        Ok::<_, StewardError>(AddressRequest {
            request: id,
            kind: kind.name(),
            game: game_id.to_owned(),
            seat: name,
            address: address.clone(),
            expires_at: crate::store::time_text(expires),
            message: format!(
                "a confirmation mail was sent to {address}; the {} takes effect when it is answered from {address}",
                match kind {
                    AddressKind::Alias => "alias",
                    AddressKind::Email => "new address",
                }
            ),
        })
    }

    /// Refuses a new address that is not one or changes nothing.
    fn check_new_address(
        &self,
        tx: &Tx<'_>,
        g: &Loaded,
        s: Seat,
        kind: AddressKind,
        address: &str,
    ) -> Result<(), StewardError> {
        let example = r#"send {"address": "you@example.org"}"#;
        // The validator game creation uses: what it accepts, the composer can mail.
        if let Err(e) = crate::contact::PlayerAddress::parse(address) {
            return Err(Refusal::BadRequest(e.to_string()).into());
        }
        let key = address_key(address);
        let own = address_key(self.from.email.as_ref());
        let (own_local, own_domain) = own.rsplit_once('@').unwrap_or((own.as_str(), ""));
        let (local, domain) = key.rsplit_once('@').unwrap_or((key.as_str(), ""));
        if domain == own_domain && local.split('+').next() == own_local.split('+').next() {
            return Err(Refusal::BadRequest(format!("{address} is the steward's own address; {example}")).into());
        }
        let player = address_key(&g.seats[s.index()].email);
        if key == player {
            return Err(Refusal::BadRequest(format!(
                "{address} is already the registered address of this seat; {example} with another address"
            ))
            .into());
        }
        if kind == AddressKind::Alias && tx.is_alias(&player, &key)? {
            return Err(Refusal::BadRequest(format!(
                "{address} is already a confirmed alias of this player; {example} with another address"
            ))
            .into());
        }
        Ok(())
    }

    /// Takes the reply to a confirmation mail, which came to the confirmation
    /// address `c` from `from`: the alias or the new address takes effect, and
    /// the player is told. Returns what was done (`alias confirmed`, `address
    /// changed`, `already confirmed`).
    ///
    /// # Errors
    /// A refusal when the address names no request, its MAC does not match, the
    /// reply is not from the new address, it came too late, or the seat's address
    /// changed since; store failures.
    pub async fn confirm_address(
        &self,
        c: Confirmation,
        from: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<&'static str, StewardError> {
        let this = self.clone();
        let (done, queued) = self.store.transaction(move |tx| this.confirm_address_in(tx, c, from, now)).await?;
        if queued {
            self.outbox.notify_one();
        }
        Ok(done)
    }

    /// [`Steward::confirm_address`] in the caller's transaction; also says
    /// whether mail was queued.
    pub(super) fn confirm_address_in(
        &self,
        tx: &Tx<'_>,
        c: Confirmation,
        from: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<(&'static str, bool), StewardError> {
        let this = self;
        let bad = |why: String| StewardError::from(Refusal::BadRequest(why));
        let r = tx
            .address_request(c.id)?
            .filter(|r| capability::confirmation_matches(&this.keys, &c, &r.address))
            .ok_or_else(|| bad(format!("confirmation {} is not one the steward sent", c.id)))?;
        let from = from.map(|f| address_key(&f)).unwrap_or_default();
        if from != address_key(&r.address) {
            return Err(bad(format!("the confirmation of {} came from {from:?}", r.address)));
        }
        if r.confirmed_at.is_some() {
            return Ok(("already confirmed", false));
        }
        if now > r.requested_at + Duration::days(CONFIRM_DAYS) {
            return Err(bad(format!("the confirmation of {} came after {CONFIRM_DAYS} days", r.address)));
        }
        let g = load(tx, r.game.as_str())?;
        let row = &g.seats[r.seat.index()];
        if address_key(&row.email) != r.player {
            return Err(bad(format!("the address of the seat changed since {} was asked", r.address)));
        }
        tx.confirm_address_request(r.id, now)?;
        let (game_id, name) = (g.row.id.as_str(), g.seat_name(r.seat));
        let mut mails: Vec<OutboxRow> = Vec::new();
        let done = match r.kind {
            AddressKind::Alias => {
                tx.insert_alias(&r.player, &address_key(&r.address), now)?;
                mails.push(this.letter(
                    &g,
                    r.seat,
                    &row.email,
                    MailKind::Confirm,
                    &format!("-{}-done", r.id),
                    format!("Game {game_id}: {} is now an alias of yours", r.address),
                    format!(
                        "{} confirmed it: mails from it now act for every seat registered at your address, \
                         as mails from your address do. Answers still go to your registered address.",
                        r.address
                    ),
                    None,
                    now,
                )?);
                "alias confirmed"
            }
            AddressKind::Email => {
                tx.set_seat_email(&g.row.id, r.seat, &r.address)?;
                let text = format!(
                    "The registered address of seat {name} in game {game_id} is now {} (confirmed by a reply \
                     from it); mails go there from now on, and only mails from it or its aliases act for the seat.",
                    r.address
                );
                for (to, tag) in [(r.address.as_str(), "done"), (row.email.as_str(), "old")] {
                    mails.push(this.letter(
                        &g,
                        r.seat,
                        to,
                        MailKind::Confirm,
                        &format!("-{}-{tag}", r.id),
                        format!("Game {game_id}: the address of your seat changed"),
                        text.clone(),
                        None,
                        now,
                    )?);
                }
                "address changed"
            }
        };
        for m in &mails {
            tx.queue_mail(m, now)?;
        }
        Ok((done, !mails.is_empty()))
    }

    /// A short mail on notice.txt about `seat` of `g` to `to`.
    #[allow(clippy::too_many_arguments)]
    fn letter(
        &self,
        g: &Loaded,
        seat: Seat,
        to: &str,
        kind: MailKind,
        suffix: &str,
        subject: String,
        text: String,
        reply_to: Option<Mailbox>,
        now: DateTime<Utc>,
    ) -> Result<OutboxRow, StewardError> {
        let row = &g.seats[seat.index()];
        Ok(compose_with_suffix(
            Draft {
                from: &self.from,
                game: &g.row.id,
                turn: g.row.turn,
                seat: seat.index(),
                kind,
                to_name: &row.name,
                to_email: to,
                subject,
                template: "notice.txt",
                context: super::mails::seat_context(self, g, seat, text),
                date: now,
                extras: Extras { reply_to, ..Extras::default() },
            },
            suffix,
        )?)
    }
}
