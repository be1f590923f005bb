//! Answers to players' mails: receipts, refusals, status and help, always sent to
//! the seat's registered address — never to whoever wrote — and limited per
//! address, so two robots can never keep each other busy.

use chrono::{DateTime, Duration, Utc};
use minijinja::context;
use ring::digest;

use super::{Loaded, Refusal, Steward, StewardError};
use crate::ids::hex;
use crate::letters::compose::{Draft, Extras, MailKind, compose_with_suffix};
use crate::rules::Seat;
use crate::store::Tx;

/// At most this many answers an hour to the mails of one proven sender; more
/// are dropped (logged).
pub const ANSWERS_PER_HOUR: u32 = 10;

/// At most this many answers an hour per seat to mails that proved nothing
/// (an envelope whose signature does not verify): apart from the player's own
/// share, so forged mail never uses it up.
pub const UNPROVEN_ANSWERS_PER_HOUR: u32 = 1;

/// Whose share of answers an answer spends. Answers always go to the seat's
/// registered address; what is counted is who made the steward write them, so
/// that mail forged in a player's name cannot spend the player's own share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnswerShare {
    /// A sender that proved itself: the `From` address of a mail whose reply
    /// capability that address may use, or whose envelope's signature verified
    /// with the seat's key.
    Proven(String),
    /// A mail that proved no seat.
    Unproven,
}

impl AnswerShare {
    /// The rate key and the hourly limit of this share for `seat` of `game`.
    fn key_and_limit(&self, game: &str, seat: &str) -> (String, u32) {
        match self {
            AnswerShare::Proven(sender) => (format!("answer|{}", sender.trim().to_lowercase()), ANSWERS_PER_HOUR),
            AnswerShare::Unproven => (format!("answer-unproven|{game}|{seat}"), UNPROVEN_ANSWERS_PER_HOUR),
        }
    }
}

/// The player's mail an answer refers to.
#[derive(Clone, Debug, Default)]
pub struct AnswerTo {
    /// Its Message-ID (without angle brackets), for threading and to keep the
    /// answer's own Message-ID stable when the same mail comes again.
    pub message_id: Option<String>,
    /// Its subject.
    pub subject: String,
}

impl Steward {
    /// Queues an answer about `seat` of `g` to the seat's registered address,
    /// in the caller's transaction; `false` when `share` had its hourly
    /// answers already.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn answer_in(
        &self,
        tx: &Tx<'_>,
        g: &Loaded,
        seat: Seat,
        to: &AnswerTo,
        text: String,
        share: &AnswerShare,
        now: DateTime<Utc>,
    ) -> Result<bool, StewardError> {
        let this = self;
        let row = &g.seats[seat.index()];
        let (key, limit) = share.key_and_limit(g.row.id.as_str(), &g.seat_name(seat));
        if tx.rate_count(&key, now - Duration::hours(1))? >= limit {
            tracing::warn!(game = %g.row.id, to = %row.email, share = %key, "answer dropped: this sender's hourly answers are used up");
            return Ok(false);
        }
        tx.rate_spend(&key, now)?;
        let key = to.message_id.clone().unwrap_or_else(|| text.clone());
        let suffix = format!("-{}", &hex(digest::digest(&digest::SHA256, key.as_bytes()).as_ref())[..12]);
        let subject = if to.subject.trim().is_empty() {
            format!("Game {}: your mail", g.row.id)
        } else if to.subject.trim_start().to_ascii_lowercase().starts_with("re:") {
            to.subject.trim().to_owned()
        } else {
            format!("Re: {}", to.subject.trim())
        };
        let head = tx.signed_head(&g.row.id)?;
        let trust = head.map(|(seq, hash, signature)| {
            context! {
                fingerprint => this.keys.fingerprint(), head_seq => seq, head_hash => hash, head_signature => signature,
            }
        });
        let mail = compose_with_suffix(
            Draft {
                from: &this.from,
                game: &g.row.id,
                turn: g.row.turn,
                seat: seat.index(),
                kind: MailKind::Answer,
                to_name: &row.name,
                to_email: &row.email,
                subject,
                template: "answer.txt",
                context: context! {
                    forms => super::mails::move_forms(g, &g.row.state, seat),
                    trust => trust,
                    ..super::mails::seat_context(this, g, seat, text)
                },
                date: now,
                extras: Extras {
                    reply_to: this.reply_address(g, seat, g.row.turn),
                    answers: to.message_id.clone(),
                    ..Extras::default()
                },
            },
            &suffix,
        )?;
        tx.queue_mail(&seal_answer(&this.keys, mail), now)?;
        Ok(true)
    }

    /// The steward's own address (`moves@steward.example`).
    pub fn from_address(&self) -> String {
        self.from.email.to_string()
    }

    /// The reply capability address of `seat` for `turn`, as a mailbox.
    pub(super) fn reply_address(&self, game: &Loaded, seat: Seat, turn: u32) -> Option<lettre::message::Mailbox> {
        let address = crate::protocol::capability::address(
            &self.keys,
            self.from.email.as_ref(),
            game.row.id.as_str(),
            &game.seat_name(seat),
            turn,
        )?;
        // The address alone is parsed: the mailbox's whole text would go through
        // the RFC 2822 parser, for every board mail, on the store's thread.
        match address.parse::<lettre::Address>() {
            Ok(email) => {
                // As the mailbox's text read: no name becomes ours, a blank one none.
                let name = match self.from.name.as_deref().map(str::trim) {
                    None => Some("Fairsteward".to_owned()),
                    Some("") => None,
                    Some(name) => Some(name.to_owned()),
                };
                Some(lettre::message::Mailbox::new(name, email))
            }
            Err(e) => {
                // The capability adds 35 characters to mail.from's local part, and a
                // local part holds 64: without Reply-To replies cannot be matched.
                tracing::warn!(address = %address, error = %e, "the reply capability is not a valid address; the mail goes without Reply-To (use a shorter mail.from)");
                None
            }
        }
    }
}

/// An answer sealed for the outbox: an answer may name the sender's pending move
/// ("Accepted: move Nf3", the status), so its bytes stay sealed to the steward's
/// own key until the drainer hands them over (issue 11 point 3). Its subject
/// echoes the player's, which may name the move too: the row keeps a neutral one.
pub(super) fn seal_answer(
    keys: &crate::protocol::StewardKeys,
    mail: crate::store::OutboxRow,
) -> crate::store::OutboxRow {
    crate::store::OutboxRow {
        subject: format!("Game {}: answer (sealed until sent)", mail.game_id),
        message: crate::protocol::seal_record(&mail.message, keys, crate::store::OUTBOX_LABEL),
        sealed: true,
        ..mail
    }
}

/// A game named with a seat it does not have (a signed envelope may claim any).
pub(super) fn no_seat(game: &Loaded, seat: &str) -> StewardError {
    Refusal::EnvelopeMismatch(format!("game {} has no seat {seat:?}", game.row.id)).into()
}

/// The seat of `game` called `name` (any case): the one lookup of a seat named
/// by a capability, an envelope or a command.
pub(super) fn seat_named(game: &Loaded, name: &str) -> Option<Seat> {
    (0..game.seats.len()).map(|i| Seat::new(i as u8)).find(|&s| game.seat_name(s).eq_ignore_ascii_case(name))
}
