//! A mail, taken whole in ONE store transaction (docs/architecture.md): the seen-check, the
//! sender check, the command (move, commitment, reveal, resign, draw, leave,
//! status, standings, help, mail setting, alias or new address), its resolution and notices, the answer, the seen-mark and the
//! kept copy. A crash anywhere leaves nothing (the mail is offered again) or
//! everything. A refused command runs under a savepoint, so it leaves nothing
//! but its answer; a timeout settled before it stands.
//!
//! The mail door hands over a typed [`MailIn`] (what it read and which seat the
//! recipients prove) and gets a typed [`MailOutcome`] back; the words of the
//! answer are the door's ([`Answer`] is what it words).

use std::fmt;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::command::Gate;
use super::{
    AnswerShare, AnswerTo, Credential, DrawAction, GameView, LeaveAnswer, MoveRequest, Receipt, Refusal, Steward,
};
use super::{Door, StewardError, Submission};
use crate::clock::leave::LeaveRequest;
use crate::protocol::capability::{Capability, Confirmation};
use crate::protocol::{Action, Body, Envelope};
use crate::rules::DynVariant;
use crate::store::Tx;

/// The door's reading of what a mail asks, made once the steward knows the
/// game: what move text is, is the game's variant's to say. The steward calls
/// it in the mail's transaction with the game's id and rulebook (for a mail from
/// a seat's own address), or with `None`, when only envelopes and commands can
/// be read.
#[derive(Clone)]
pub struct Reading(Arc<ReadFn>);

/// A game's id and rulebook, as a [`Reading`] is given them.
pub type GameRead<'a> = Option<(&'a str, &'a dyn DynVariant)>;

type ReadFn = dyn Fn(GameRead<'_>) -> MailCommand + Send + Sync;

impl Reading {
    /// A reading by `read`.
    pub fn new(read: impl Fn(GameRead<'_>) -> MailCommand + Send + Sync + 'static) -> Reading {
        Reading(Arc::new(read))
    }

    /// What the mail asks, read for `game`.
    pub fn read(&self, game: GameRead<'_>) -> MailCommand {
        (self.0)(game)
    }
}

impl fmt::Debug for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reading(..)")
    }
}

/// What a mail asks for a game, as the mail door read it.
#[derive(Clone, Debug)]
pub enum MailCommand {
    /// A move in the text of the mail, for the capability's turn.
    Move(String),
    /// An envelope pasted into the mail: signed, sealed, a commitment, a reveal
    /// or a signed action.
    Envelope(Envelope),
    /// An envelope block that does not read, with why.
    BadEnvelope(String),
    /// A reply encrypted to the steward that does not open (issue 33): why.
    Undecryptable(String),
    /// An envelope marker, but no envelope found behind it.
    LostEnvelope,
    /// `resign`.
    Resign,
    /// `draw`, `accept draw`, `decline draw`.
    Draw(DrawAction),
    /// `status`.
    Status,
    /// `standings`: the table of the game's tournament (issue 31).
    Standings,
    /// `help`.
    Help,
    /// `leave FROM to TO`.
    Leave(LeaveRequest),
    /// `mail …`: the player's mail setting, changed or asked (issue 32).
    Mail(crate::store::MailSettingsChange),
    /// `alias …` or `address …`: an alias or a new registered address, with
    /// the confirmation round trip (issue 32); only from the registered address.
    Address(crate::store::AddressKind, String),
    /// A forwarded mail with nothing of the sender's own.
    Forwarded,
    /// A first line that is neither a move nor a command.
    Unreadable(String),
    /// Nothing but quoted text.
    Empty,
    /// Conditional moves: set, list or clear the seat's lines (issue 32).
    Conditional(super::ConditionalOp),
    /// Conditional lines in an OpenPGP-signed mail whose signed part names
    /// game, seat and turn (issue 33): the signature proves the seat.
    SignedConditional(SignedConditional),
}

/// Conditional lines signed with OpenPGP (issue 33; docs/openpgp.md): the
/// game, seat and turn the signed part names, what it asks, and the signature.
#[derive(Clone, Debug)]
pub struct SignedConditional {
    /// The game named (upper case).
    pub game: String,
    /// The seat named.
    pub seat: String,
    /// The turn named: the signature holds for that turn only (a replay of an
    /// older mail names an older turn).
    pub turn: u32,
    /// Set, list or clear.
    pub op: super::ConditionalOp,
    /// The signature and the signed bytes.
    pub proof: Box<crate::protocol::openpgp::proof::OpenPgpProof>,
}

/// The sentence an answer adds when a seat's OpenPGP key was taken on first
/// use from the mail it answers (issue 33).
pub fn openpgp_tofu_note(fingerprint: &str) -> String {
    format!(
        "\nTrust on first use: your OpenPGP key {fingerprint} was taken from this signed mail and is registered for your seat; it checks your signed moves from now on. Compare the fingerprint with your own (gpg --fingerprint); if it is not yours, tell the organiser."
    )
}

/// What the door found a mail to be.
#[derive(Clone, Debug)]
pub enum Inbound {
    /// Not readable as mail, with why: kept, not answered.
    Unreadable(String),
    /// Automatic mail (a bounce, an auto-reply, a list), with why: never answered.
    Automatic(String),
    /// A reply to an address confirmation, to the confirmation address.
    Confirmation(Confirmation),
    /// A reply to an invitation mail, to its reply address (issue 31): the
    /// address read (its MAC is checked with the invitation) and what it says.
    Invitation {
        /// The reply address read.
        reply: crate::protocol::capability::InvitationReply,
        /// Accept, decline or neither.
        word: super::InvitationReplyWord,
        /// An OpenPGP public key attached to or pasted in the mail (issue 33),
        /// registered with an acceptance.
        openpgp_key: Option<String>,
    },
    /// A mail about a game: the reply capability its recipients carry (checked
    /// by the door), if any, and what it asks.
    Game {
        /// The valid reply capability among the recipients.
        capability: Option<Capability>,
        /// What the mail asks, read once the game is known.
        reading: Reading,
    },
}

/// One mail as the door hands it to the steward.
#[derive(Clone, Debug)]
pub struct MailIn {
    /// The key it is recognised by when it comes again.
    pub key: String,
    /// The raw message, kept (size-capped, sealed) for disputes.
    pub raw: Vec<u8>,
    /// The `From` address.
    pub sender: Option<String>,
    /// The mail an answer refers to.
    pub answer_to: AnswerTo,
    /// What it is.
    pub inbound: Inbound,
}

/// What the door words into an answer to the seat's registered address.
#[derive(Debug)]
pub enum Answer<'a> {
    /// A move, commitment or reveal taken (or taken before).
    Receipt(&'a Receipt),
    /// The game as it stands, for `seat`.
    Status {
        /// The game.
        view: &'a GameView,
        /// The seat asking.
        seat: &'a str,
    },
    /// The table of the tournament the game belongs to (issue 31).
    Standings(&'a super::StandingsAnswer),
    /// `standings` asked in a game that belongs to no tournament.
    NoTournament {
        /// The game.
        game: &'a str,
    },
    /// The commands the door reads, and the game's move forms.
    Help {
        /// The move forms of the game, with examples (the variant's words).
        forms: &'a str,
    },
    /// Leave granted.
    Leave {
        /// What was asked.
        request: LeaveRequest,
        /// The account after it.
        answer: &'a LeaveAnswer,
    },
    /// The seat's conditional lines as kept (issue 32).
    Conditional(&'a super::ConditionalLines),
    /// A signed resignation or draw offer, accept or decline taken, which
    /// brought the seat's OpenPGP key on first use (issue 33): the answer says
    /// so (otherwise the notices to every seat are answer enough).
    OpenPgpKeyTaken {
        /// What was taken.
        action: Action,
        /// The key's fingerprint.
        fingerprint: &'a str,
    },
    /// The player's mail setting, as it is now (issue 32).
    MailSettings(&'a super::MailSettingsAnswer),
    /// An alias or a new address asked: the confirmation mail went out (issue 32).
    AddressAsked(&'a super::AddressRequest),
    /// A command refused, with why; nothing was taken.
    Refused(&'a Refusal),
    /// A forwarded mail with nothing to act on.
    Forwarded,
    /// A first line that reads as nothing (clipped).
    Unreadable {
        /// The line.
        line: &'a str,
        /// The move forms of the game, with examples.
        forms: &'a str,
    },
    /// Nothing but quoted text.
    Empty {
        /// The move forms of the game, with examples.
        forms: &'a str,
    },
    /// An answer to an invitation taken (issue 31).
    Invitation(&'a super::InvitationAnswered),
    /// A reply to an invitation that says neither accept nor decline: its
    /// first line, or none.
    InvitationUnread {
        /// The line read.
        line: Option<&'a str>,
    },
}

/// The door's words for an [`Answer`].
pub type Wording = fn(&Answer<'_>) -> String;

/// What a mail's command did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// A submission: `move`, `commit` or `reveal`.
    Submission(&'static str),
    /// A resignation (every seat is told).
    Resignation,
    /// A draw offer, accept or decline (every seat is told).
    Draw,
    /// The status, answered.
    Status,
    /// The tournament's standings, answered.
    Standings,
    /// Help, answered.
    Help,
    /// Conditional lines kept, listed or cleared (issue 32).
    Conditional,
    /// Leave granted, answered.
    Leave,
    /// The mail setting changed or asked, answered (issue 32).
    MailSettings,
    /// An alias or a new address asked, answered (issue 32).
    AddressAsked,
    /// An address confirmation: `alias confirmed`, `address changed`, `already confirmed`.
    Confirmed(&'static str),
    /// An invitation answered: `accepted` or `declined` (issue 31).
    Invitation(&'static str),
}

/// Why a mail was refused (answered to the seat's registered address, or, for
/// a foreign sender, told to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The steward refused the command: the refusal's code.
    Command(&'static str),
    /// A capability used from an address not bound to its seat.
    ForeignSender,
    /// A forwarded mail.
    Forwarded,
    /// `standings` in a game that belongs to no tournament.
    NoTournament,
    /// Nothing readable.
    Unreadable,
    /// Only quoted text.
    Empty,
}

/// Why a mail was neither acted on nor answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ignored {
    /// The same mail came before.
    SeenBefore,
    /// Not readable as mail.
    Unreadable(String),
    /// Automatic mail.
    Automatic(String),
    /// No reply capability and no signed envelope.
    NoProof,
    /// An unsigned envelope without a reply capability.
    UnsignedEnvelope,
    /// An unsigned leave envelope without a reply capability.
    UnsignedLeave,
    /// An envelope marker without an envelope.
    LostEnvelope,
    /// A confirmation that is not taken, with why.
    ConfirmationNotTaken(String),
    /// A refusal for a sender who proves no seat: the code.
    Unproven(&'static str),
    /// The game or seat to answer does not exist (a signed envelope may name any).
    NobodyToAnswer(String),
}

/// What became of a mail: typed, for the door to log and map to exit codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailOutcome {
    /// Taken by the steward.
    Accepted(Taken),
    /// Refused, with an answer saying why.
    Refused(Refused),
    /// Not acted on and not answered.
    Ignored(Ignored),
}

impl fmt::Display for Taken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Taken::Submission(kind) => kind,
            Taken::Resignation => "resignation",
            Taken::Draw => "draw",
            Taken::Status => "status",
            Taken::Standings => "standings",
            Taken::Help => "help",
            Taken::Conditional => "conditional",
            Taken::Leave => "leave",
            Taken::MailSettings => "mail setting",
            Taken::AddressAsked => "address asked",
            Taken::Confirmed(what) => what,
            Taken::Invitation("accepted") => "invitation accepted",
            Taken::Invitation(_) => "invitation declined",
        })
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refused::Command(code) => code,
            Refused::ForeignSender => "foreign_sender",
            Refused::Forwarded => "forwarded",
            Refused::NoTournament => "no_tournament",
            Refused::Unreadable => "unreadable",
            Refused::Empty => "empty",
        })
    }
}

impl fmt::Display for Ignored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ignored::SeenBefore => f.write_str("seen before"),
            Ignored::Unreadable(why) => write!(f, "unreadable: {why}"),
            Ignored::Automatic(why) => write!(f, "automatic mail ({why})"),
            Ignored::NoProof => f.write_str("no reply capability and no signed envelope: the sender proves no seat"),
            Ignored::UnsignedEnvelope => f.write_str("an unsigned envelope without a reply capability"),
            Ignored::UnsignedLeave => f.write_str("an unsigned leave envelope without a reply capability"),
            Ignored::LostEnvelope => f.write_str("an envelope that could not be found again"),
            Ignored::ConfirmationNotTaken(why) => write!(f, "confirmation not taken: {why}"),
            Ignored::Unproven(code) => write!(f, "{code} from a sender who proves no seat"),
            Ignored::NobodyToAnswer(why) => write!(f, "nobody to answer: {why}"),
        }
    }
}

/// `accepted: move`, `refused: illegal_move`, `ignored: seen before`: the line
/// `fairsteward ingest` prints and the store keeps.
impl fmt::Display for MailOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MailOutcome::Accepted(t) => write!(f, "accepted: {t}"),
            MailOutcome::Refused(r) => write!(f, "refused: {r}"),
            MailOutcome::Ignored(i) => write!(f, "ignored: {i}"),
        }
    }
}

/// A refusal made a result: a player's mistake becomes `Ok(Err(refusal))`, a
/// store failure stays an error (and rolls the mail's transaction back).
fn refusal<T>(r: Result<T, StewardError>) -> Result<Result<T, Refusal>, StewardError> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(StewardError::Refused(r)) => Ok(Err(r)),
        Err(e) => Err(e),
    }
}

/// One mail being taken: what the steward needs at every step.
struct Taking<'m> {
    mail: &'m MailIn,
    /// The mail, sealed for keeping before the transaction.
    kept: &'m super::KeptCopy,
    word: Wording,
    now: DateTime<Utc>,
    /// Whose share of answers an answer to this mail spends (known once the
    /// mail is read: see [`Steward::answer_share`]).
    share: AnswerShare,
    /// What became of a move the mail carried: accepted, or refused with its
    /// code; counted once the mail's transaction committed (issue 36).
    moved: &'m std::cell::Cell<Option<Result<(), &'static str>>>,
}

impl Steward {
    /// Takes one mail in one store transaction; see the module docs.
    ///
    /// # Errors
    /// Only store failures: then nothing of the mail was kept, and it should be
    /// offered again (an MTA pipe exits 75, IMAP leaves it unflagged).
    pub async fn take_mail(
        &self,
        mail: MailIn,
        word: Wording,
        now: DateTime<Utc>,
    ) -> Result<MailOutcome, StewardError> {
        let this = self.clone();
        let kept = self.kept_copy(&mail.raw);
        let taken = self
            .store
            .transaction(move |tx| {
                if tx.mail_seen(&mail.key)? {
                    return Ok((MailOutcome::Ignored(Ignored::SeenBefore), None));
                }
                let moved = std::cell::Cell::new(None);
                let taking =
                    Taking { mail: &mail, kept: &kept, word, now, share: AnswerShare::Unproven, moved: &moved };
                let outcome = this.mail_in(tx, &taking)?;
                let text = outcome.to_string();
                tx.mark_mail_seen(&mail.key, now, &text)?;
                // An accepted submission kept its raw message with its receipt.
                if !matches!(outcome, MailOutcome::Accepted(Taken::Submission(_))) {
                    tx.insert_inbound(&kept.row(now, Door::Mail, None, &text))?;
                }
                Ok::<_, StewardError>((outcome, moved.get()))
            })
            .await;
        let (outcome, moved) = match taken {
            Ok(taken) => taken,
            Err(e) => {
                self.metrics.inbound_mail("failed");
                return Err(e);
            }
        };
        self.metrics.inbound_mail(match outcome {
            MailOutcome::Accepted(_) => "accepted",
            MailOutcome::Refused(_) => "refused",
            MailOutcome::Ignored(_) => "ignored",
        });
        match moved {
            Some(Ok(())) => self.metrics.move_accepted(Door::Mail.name()),
            Some(Err(code)) => self.metrics.move_refused(Door::Mail.name(), code),
            None => {}
        }
        self.outbox.notify_one();
        // An acceptance by mail may complete an invited game: create it now.
        if outcome == MailOutcome::Accepted(Taken::Invitation("accepted")) {
            self.create_invited_games(now).await;
        }
        Ok(outcome)
    }

    fn mail_in(&self, tx: &Tx<'_>, t: &Taking<'_>) -> Result<MailOutcome, StewardError> {
        let mail = t.mail;
        let (cap, reading) = match &mail.inbound {
            Inbound::Unreadable(why) => return Ok(MailOutcome::Ignored(Ignored::Unreadable(why.clone()))),
            Inbound::Automatic(why) => return Ok(MailOutcome::Ignored(Ignored::Automatic(why.clone()))),
            Inbound::Confirmation(c) => {
                // Only the new address answers its confirmation; nobody else is answered.
                let done = tx.attempt(|tx| self.confirm_address_in(tx, c.clone(), mail.sender.clone(), t.now));
                return Ok(match refusal(done)? {
                    Ok((done, _)) => MailOutcome::Accepted(Taken::Confirmed(done)),
                    Err(r) => MailOutcome::Ignored(Ignored::ConfirmationNotTaken(r.to_string())),
                });
            }
            Inbound::Invitation { reply, word, openpgp_key } => {
                let (sender, to) = (mail.sender.as_deref(), &mail.answer_to);
                let key = openpgp_key.as_deref();
                return self.invitation_mail_in(tx, reply, word, key, sender, to, t.word, t.now);
            }
            Inbound::Game { capability, reading } => (capability.as_ref(), reading),
        };
        // The capability acts only for its seat's own addresses; an unknown game
        // or seat in a valid capability (a deleted game) proves nothing either.
        let bound = match cap {
            Some(c) => refusal(self.command_in(tx, &c.game, &Gate::Named(c.seat.clone()), t.now, |ctx| {
                self.sender_may_act_in(ctx.tx, &ctx.game, ctx.seat()?, mail.sender.as_deref())
            }))?
            .unwrap_or(false),
            None => false,
        };

        // What a move is, is the variant's to say: the capability's game, for a
        // mail from the seat's own address (signed envelopes name their game).
        let game_known = match cap.filter(|_| bound) {
            Some(c) => refusal(super::load(tx, &c.game))?.ok(),
            None => None,
        };
        let command = reading.read(game_known.as_ref().map(|g| (g.row.id.as_str(), g.rules.as_ref())));
        let t = &Taking { share: self.answer_share(tx, mail, bound, &command), ..*t };
        let forms = match (&game_known, cap) {
            (Some(g), Some(c)) => g.rules.seat(&c.seat).ok().and_then(|s| g.rules.move_forms(&g.row.state, s).ok()),
            _ => None,
        }
        .unwrap_or_else(|| "a move in the game's notation".to_owned());

        // A signed envelope proves its own seat; everything else needs the capability.
        match &command {
            MailCommand::SignedConditional(sc) => return self.mail_signed_conditional(tx, sc, t),
            MailCommand::BadEnvelope(why) => {
                return match cap {
                    Some(c) if !bound => self.foreign(tx, c, t),
                    Some(c) => self.refused(tx, &c.game, &c.seat, &Refusal::BadEnvelope(why.clone()), t),
                    None => Ok(MailOutcome::Ignored(Ignored::Unproven(Refusal::BadEnvelope(String::new()).code()))),
                };
            }
            MailCommand::Undecryptable(why) => {
                return match cap {
                    Some(c) if !bound => self.foreign(tx, c, t),
                    Some(c) => self.refused(tx, &c.game, &c.seat, &Refusal::Undecryptable(why.clone()), t),
                    None => Ok(MailOutcome::Ignored(Ignored::Unproven(Refusal::Undecryptable(String::new()).code()))),
                };
            }
            MailCommand::Envelope(env) => {
                if !env.is_signed() {
                    match cap {
                        None => return Ok(MailOutcome::Ignored(Ignored::UnsignedEnvelope)),
                        Some(c) if !bound => return self.foreign(tx, c, t),
                        Some(_) => {}
                    }
                }
                // A signed envelope needs no capability; the capability of a
                // foreign sender lends it nothing.
                let credential = cap.filter(|c| bound && c.game == env.game).cloned().map(Credential::Capability);
                if let Body::Action(action) = &env.body {
                    // Signed: the signature proves the seat; unsigned: the reply address must.
                    let credential = if env.is_signed() { Some(Credential::Signed(env.clone())) } else { credential };
                    return self.mail_action(tx, *action, &env.game, &env.seat, credential, t);
                }
                let req = MoveRequest {
                    game: env.game.clone(),
                    credential,
                    submission: Submission::Envelope(env.clone()),
                    kept: t.kept.clone(),
                    door: Door::Mail,
                };
                return self.mail_submit(tx, req, &env.seat, t);
            }
            _ => {}
        }
        let Some(cap) = cap else { return Ok(MailOutcome::Ignored(Ignored::NoProof)) };
        if !bound {
            return self.foreign(tx, cap, t);
        }
        let credential = Some(Credential::Capability(cap.clone()));
        let (game, seat) = (cap.game.as_str(), cap.seat.as_str());
        match &command {
            MailCommand::Move(text) => {
                let req = MoveRequest {
                    game: cap.game.clone(),
                    credential,
                    submission: Submission::Move { turn: cap.turn, text: text.clone() },
                    kept: t.kept.clone(),
                    door: Door::Mail,
                };
                self.mail_submit(tx, req, seat, t)
            }
            MailCommand::Resign => self.mail_action(tx, Action::Resign, game, seat, credential, t),
            MailCommand::Draw(d) => self.mail_action(tx, d.action(), game, seat, credential, t),
            MailCommand::Leave(r) => {
                self.mail_action(tx, Action::Leave { from: r.from, to: r.to }, game, seat, credential, t)
            }
            MailCommand::Status => {
                let view = self.command_in(tx, game, &Gate::Look(credential), t.now, |c| {
                    super::view::game_view(self, c.tx, &c.game, c.seat)
                });
                match refusal(view)? {
                    Ok(view) => {
                        let outcome = MailOutcome::Accepted(Taken::Status);
                        self.reply(tx, game, seat, &Answer::Status { view: &view, seat }, outcome, t)
                    }
                    Err(r) => self.refused(tx, game, seat, &r, t),
                }
            }
            MailCommand::Conditional(op) => {
                // issue 32: the reply proves the seat; the answer is sealed in the outbox.
                let kept = self.command_in(
                    tx,
                    game,
                    &Gate::Seat(credential.clone().ok_or_else(|| super::internal("a bound reply without capability"))?),
                    t.now,
                    |c| self.conditional_in(c.tx, &c.game, c.seat()?, op, t.now),
                );
                match refusal(kept)? {
                    Ok(kept) => {
                        let outcome = MailOutcome::Accepted(Taken::Conditional);
                        self.reply(tx, game, seat, &Answer::Conditional(&kept), outcome, t)
                    }
                    Err(r) => self.refused(tx, game, seat, &r, t),
                }
            }
            MailCommand::Standings => {
                // A look, like `status`: nothing is written in the game's transcript.
                let found = self.command_in(tx, game, &Gate::Look(credential), t.now, |c| {
                    self.standings_answer_in(c.tx, &c.game.row.id)
                });
                match refusal(found)? {
                    Ok(Some(s)) => {
                        let outcome = MailOutcome::Accepted(Taken::Standings);
                        self.reply(tx, game, seat, &Answer::Standings(&s), outcome, t)
                    }
                    Ok(None) => {
                        let outcome = MailOutcome::Refused(Refused::NoTournament);
                        self.reply(tx, game, seat, &Answer::NoTournament { game }, outcome, t)
                    }
                    Err(r) => self.refused(tx, game, seat, &r, t),
                }
            }
            MailCommand::Help => {
                self.reply(tx, game, seat, &Answer::Help { forms: &forms }, MailOutcome::Accepted(Taken::Help), t)
            }
            MailCommand::Mail(change) => {
                let done = self.command_in(tx, game, &Gate::Named(seat.to_owned()), t.now, |c| {
                    let player = super::senders::address_key(&c.game.seats[c.seat()?.index()].email);
                    Steward::change_mail_in(c.tx, &player, change, t.now)
                });
                match refusal(done)? {
                    Ok(m) => {
                        let outcome = MailOutcome::Accepted(Taken::MailSettings);
                        self.reply(tx, game, seat, &Answer::MailSettings(&m), outcome, t)
                    }
                    Err(r) => self.refused(tx, game, seat, &r, t),
                }
            }
            MailCommand::Address(kind, address) => {
                let sender = mail.sender.as_deref().map(super::senders::address_key).unwrap_or_default();
                let done = self.command_in(tx, game, &Gate::Named(seat.to_owned()), t.now, |c| {
                    let s = c.seat()?;
                    // An alias acts for the seat, but may not add aliases or move the seat.
                    if sender != super::senders::address_key(&c.game.seats[s.index()].email) {
                        return Err(Refusal::BadRequest(format!(
                            "an alias or a new address is asked only from the seat's registered address, not from an alias ({sender}); send `{} {address}` from the registered address, or use your games page ({}/me)",
                            if *kind == crate::store::AddressKind::Alias { "alias" } else { "address" },
                            self.public_url
                        ))
                        .into());
                    }
                    self.request_address_in(c.tx, &c.game, s, *kind, address, t.now)
                });
                match refusal(done)? {
                    Ok(r) => {
                        let outcome = MailOutcome::Accepted(Taken::AddressAsked);
                        self.reply(tx, game, seat, &Answer::AddressAsked(&r), outcome, t)
                    }
                    Err(r) => self.refused(tx, game, seat, &r, t),
                }
            }
            MailCommand::Forwarded => {
                self.reply(tx, game, seat, &Answer::Forwarded, MailOutcome::Refused(Refused::Forwarded), t)
            }
            MailCommand::Unreadable(line) => {
                let answer = Answer::Unreadable { line, forms: &forms };
                self.reply(tx, game, seat, &answer, MailOutcome::Refused(Refused::Unreadable), t)
            }
            MailCommand::Empty => {
                self.reply(tx, game, seat, &Answer::Empty { forms: &forms }, MailOutcome::Refused(Refused::Empty), t)
            }
            MailCommand::LostEnvelope => Ok(MailOutcome::Ignored(Ignored::LostEnvelope)),
            MailCommand::Envelope(_)
            | MailCommand::BadEnvelope(_)
            | MailCommand::Undecryptable(_)
            | MailCommand::SignedConditional(_) => {
                unreachable!("envelopes and encrypted replies that do not open are taken above")
            }
        }
    }

    /// Whose share of answers this mail spends: its sender's, when the sender
    /// proved itself (`bound`: the mail's reply capability belongs to a seat
    /// registered at its `From` address or a confirmed alias; or the envelope it
    /// holds is signed with the key of the seat it names); else the seat's small
    /// share for unproven mail.
    fn answer_share(&self, tx: &Tx<'_>, mail: &MailIn, bound: bool, command: &MailCommand) -> AnswerShare {
        let signed = match command {
            MailCommand::Envelope(env) if env.is_signed() => super::load(tx, &env.game).ok().is_some_and(|g| {
                super::moves::envelope_seat(&g, env).is_ok_and(|seat| Steward::check_signature(&g, seat, env).is_ok())
                    // A key offered for trust on first use that made the signature (issue 33).
                    || super::moves::tofu_candidate(&g, env).is_some_and(|(_, key)| {
                        env.openpgp.as_deref().is_some_and(|p| {
                            crate::protocol::openpgp::signed::check(&key, &p.signed, &p.signature, p.received_at)
                                .is_ok()
                        })
                    })
            }),
            MailCommand::SignedConditional(sc) => super::load(tx, &sc.game).ok().is_some_and(|g| {
                super::answers::seat_named(&g, &sc.seat).is_some_and(|seat| {
                    super::moves::check_openpgp(&g, seat, &sc.proof).is_ok()
                        || super::moves::tofu_candidate_of(&g, seat, &sc.proof).is_some_and(|key| {
                            let p = &sc.proof;
                            crate::protocol::openpgp::signed::check(&key, &p.signed, &p.signature, p.received_at)
                                .is_ok()
                        })
                })
            }),
            _ => false,
        };
        match (&mail.sender, bound || signed) {
            (Some(sender), true) => AnswerShare::Proven(sender.clone()),
            // A signed envelope in a mail without a From: the signature's seat.
            (None, true) => match command {
                MailCommand::Envelope(env) => AnswerShare::Proven(format!("{}|{}", env.game, env.seat)),
                _ => AnswerShare::Unproven,
            },
            (_, false) => AnswerShare::Unproven,
        }
    }

    /// A valid capability in a mail from an address not bound to its seat:
    /// nothing is taken, the sender hears nothing, the registered address is
    /// told (at most once an hour per seat).
    fn foreign(&self, tx: &Tx<'_>, cap: &Capability, t: &Taking<'_>) -> Result<MailOutcome, StewardError> {
        let sender = t.mail.sender.clone().unwrap_or_else(|| "(no From address)".to_owned());
        // Whether the player was told now (false: told within the hour already).
        let told = refusal(self.command_in(tx, &cap.game, &Gate::Named(cap.seat.clone()), t.now, |c| {
            self.foreign_sender_in(c.tx, &c.game, c.seat()?, &sender, &t.mail.answer_to.subject, t.now)
        }))?
        .unwrap_or(false);
        tracing::info!(game = %cap.game, seat = %cap.seat, sender = %sender, told, "a mail from an address not bound to the seat: nothing taken");
        Ok(MailOutcome::Refused(Refused::ForeignSender))
    }

    /// A move, commitment or reveal from a mail; `seat` is answered when it is refused.
    fn mail_submit(
        &self,
        tx: &Tx<'_>,
        req: MoveRequest,
        seat: &str,
        t: &Taking<'_>,
    ) -> Result<MailOutcome, StewardError> {
        let submitted = refusal(self.submit_in(tx, &req, t.now))?;
        t.moved.set(Some(submitted.as_ref().map(|_| ()).map_err(Refusal::code)));
        match submitted {
            Ok(r) => {
                tracing::info!(game = %r.game, seat = %r.seat, turn = r.turn, resolved = r.resolved, "{} accepted by mail", r.kind);
                let outcome = MailOutcome::Accepted(Taken::Submission(r.kind));
                self.reply(tx, &r.game, &r.seat, &Answer::Receipt(&r), outcome, t)
            }
            Err(r) => self.refused(tx, &req.game, seat, &r, t),
        }
    }

    /// A resignation, draw or leave from a mail (a command or a signed envelope).
    fn mail_action(
        &self,
        tx: &Tx<'_>,
        action: Action,
        game: &str,
        seat: &str,
        credential: Option<Credential>,
        t: &Taking<'_>,
    ) -> Result<MailOutcome, StewardError> {
        // An OpenPGP-signed action may bring its seat's key on first use (issue 33).
        let signed = match &credential {
            Some(Credential::Signed(env)) if env.openpgp.is_some() => Some(env.clone()),
            _ => None,
        };
        let taken = match action {
            Action::Resign => {
                let gate = Gate::Act(credential, action);
                self.with_key_on_first_use(tx, signed.as_ref(), t.now, |tx| {
                    self.command_in(tx, game, &gate, t.now, |c| self.resign_in(c)).map(|_| Taken::Resignation)
                })
            }
            Action::OfferDraw | Action::AcceptDraw | Action::DeclineDraw => {
                let draw = match action {
                    Action::DeclineDraw => DrawAction::Decline,
                    Action::AcceptDraw => DrawAction::Accept,
                    _ => DrawAction::Offer,
                };
                let gate = Gate::Act(credential, action);
                self.with_key_on_first_use(tx, signed.as_ref(), t.now, |tx| {
                    self.command_in(tx, game, &gate, t.now, |c| self.draw_in(c, draw)).map(|_| Taken::Draw)
                })
            }
            Action::Leave { from, to } => {
                let request = LeaveRequest { from, to };
                // Leave belongs to the player and runs on the steward's clock.
                let now = self.now();
                let answer = match credential {
                    Some(Credential::Signed(env)) => self.with_key_on_first_use(tx, signed.as_ref(), t.now, |tx| {
                        tx.attempt(|tx| self.declare_leave_signed_in(tx, env, now))
                    }),
                    Some(Credential::Capability(_)) => self
                        .command_in(tx, game, &Gate::Named(seat.to_owned()), t.now, |c| {
                            let player = c.game.seats[c.seat()?.index()].email.clone();
                            self.declare_leave_in(c.tx, &player, request, None, now)
                        })
                        .map(|a| (a, None)),
                    _ => return Ok(MailOutcome::Ignored(Ignored::UnsignedLeave)),
                };
                return match refusal(answer)? {
                    Ok((a, key)) => {
                        let outcome = MailOutcome::Accepted(Taken::Leave);
                        let note = key.as_deref().map(openpgp_tofu_note);
                        self.reply_noting(tx, game, seat, &Answer::Leave { request, answer: &a }, outcome, t, note)
                    }
                    Err(r) => self.refused(tx, game, seat, &r, t),
                };
            }
        };
        match refusal(taken)? {
            // The notices to every seat say what happened; the sender needs no
            // more, unless its key was taken on first use (issue 33).
            Ok((taken, None)) => Ok(MailOutcome::Accepted(taken)),
            Ok((taken, Some(key))) => {
                let answer = Answer::OpenPgpKeyTaken { action, fingerprint: &key };
                self.reply(tx, game, seat, &answer, MailOutcome::Accepted(taken), t)
            }
            Err(r) => self.refused(tx, game, seat, &r, t),
        }
    }

    /// `act`, after taking the OpenPGP key `signed` offers on first use (issue
    /// 33; [`Steward::take_openpgp_key_for`]), both under one savepoint so that
    /// a refusal of `act` takes the key back too. With it, the fingerprint taken.
    fn with_key_on_first_use<T>(
        &self,
        tx: &Tx<'_>,
        signed: Option<&Envelope>,
        now: DateTime<Utc>,
        act: impl FnOnce(&Tx<'_>) -> Result<T, StewardError>,
    ) -> Result<(T, Option<String>), StewardError> {
        let game = signed.and_then(|env| super::load(tx, &env.game).ok().map(|g| (env, g)));
        match game {
            Some((env, g)) if super::moves::tofu_candidate(&g, env).is_some() => tx.attempt(|tx| {
                let key = self.take_openpgp_key_for(tx, &g, env, now)?;
                Ok((act(tx)?, key))
            }),
            _ => act(tx).map(|v| (v, None)),
        }
    }

    /// Conditional lines in an OpenPGP-signed mail (issue 33): the signature
    /// (by the seat's registered key, or one taken on first use) proves the
    /// seat, for the turn it names; then the lines are taken exactly as from a
    /// reply or `PUT /api/games/{id}/conditional`, and refused with the same
    /// words where the game does not offer them.
    fn mail_signed_conditional(
        &self,
        tx: &Tx<'_>,
        sc: &SignedConditional,
        t: &Taking<'_>,
    ) -> Result<MailOutcome, StewardError> {
        let done = self.command_in(tx, &sc.game, &Gate::Named(sc.seat.clone()), t.now, |c| {
            let seat = c.seat()?;
            let key = self.take_openpgp_key_of(c.tx, &c.game, seat, &sc.proof, t.now)?;
            let reloaded;
            let game = match key {
                Some(_) => {
                    reloaded = super::load(c.tx, &sc.game)?;
                    &reloaded
                }
                None => &c.game,
            };
            super::moves::check_openpgp(game, seat, &sc.proof)?;
            if sc.turn != game.row.turn {
                return Err(Refusal::EnvelopeMismatch(format!(
                    "your signed conditional lines are for turn {}, but game {} is at turn {}; sign them again for turn {} (a signature holds only for the turn it names)",
                    sc.turn, game.row.id, game.row.turn, game.row.turn
                ))
                .into());
            }
            Ok((self.conditional_in(c.tx, game, seat, &sc.op, t.now)?, key))
        });
        match refusal(done)? {
            Ok((kept, key)) => {
                let outcome = MailOutcome::Accepted(Taken::Conditional);
                let note = key.as_deref().map(openpgp_tofu_note);
                self.reply_noting(tx, &sc.game, &sc.seat, &Answer::Conditional(&kept), outcome, t, note)
            }
            Err(r) => self.refused(tx, &sc.game, &sc.seat, &r, t),
        }
    }

    /// Answers a refusal to `seat`.
    fn refused(
        &self,
        tx: &Tx<'_>,
        game: &str,
        seat: &str,
        r: &Refusal,
        t: &Taking<'_>,
    ) -> Result<MailOutcome, StewardError> {
        self.reply(tx, game, seat, &Answer::Refused(r), MailOutcome::Refused(Refused::Command(r.code())), t)
    }

    /// Queues the answer, worded by the door, to the registered address of
    /// `seat`; `outcome` is what became of the mail.
    fn reply(
        &self,
        tx: &Tx<'_>,
        game: &str,
        seat: &str,
        answer: &Answer<'_>,
        outcome: MailOutcome,
        t: &Taking<'_>,
    ) -> Result<MailOutcome, StewardError> {
        self.reply_noting(tx, game, seat, answer, outcome, t, None)
    }

    /// [`Steward::reply`] with `note` added to the door's words.
    #[allow(clippy::too_many_arguments)]
    fn reply_noting(
        &self,
        tx: &Tx<'_>,
        game: &str,
        seat: &str,
        answer: &Answer<'_>,
        outcome: MailOutcome,
        t: &Taking<'_>,
        note: Option<String>,
    ) -> Result<MailOutcome, StewardError> {
        let text = (t.word)(answer) + note.as_deref().unwrap_or_default();
        let queued = self.command_in(tx, game, &Gate::Named(seat.to_owned()), t.now, |c| {
            self.answer_in(c.tx, &c.game, c.seat()?, &t.mail.answer_to, text, &t.share, t.now)
        });
        Ok(match refusal(queued)? {
            Ok(_) => outcome,
            // An unknown game or seat named by a signed envelope: nobody to answer.
            Err(r) => MailOutcome::Ignored(Ignored::NobodyToAnswer(r.to_string())),
        })
    }
}
