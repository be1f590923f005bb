//! The mail door: one raw message in → read it → find who sent it (a reply
//! capability in a recipient address, or a signed envelope) → the steward →
//! an answer to the seat's registered address.
//!
//! Automatic mail (bounces, auto-replies, lists) is never answered; a message
//! seen before (the same Message-ID with the same content, or the same bytes) is
//! ignored; a mail that proves no seat gets no answer, because nobody verified
//! its sender. A reply capability acts only for a mail whose `From` is the
//! seat's registered address or a confirmed alias (`steward/senders.rs`); from
//! anyone else nothing is taken and the registered address is told. A signed
//! envelope stands on its signature, from any sender. Every message is kept in
//! the store (size-capped) for disputes.

use chrono::{DateTime, Utc};
use ring::digest;

use crate::ids::hex;
use crate::mail::inbound::{Intent, ReadMail, read_mail};
use crate::protocol::capability::{self, Capability};
use crate::protocol::{Action, Body, Envelope};
use crate::steward::{AnswerTo, Credential, Door, DrawAction, MoveRequest, Steward, StewardError, Submission};

/// What became of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handled {
    /// Taken by the steward (a move, commitment, reveal or command); answered.
    Accepted(String),
    /// Refused with an answer saying why (the refusal's code).
    Refused(String),
    /// Not acted on and not answered, with the reason (automatic, duplicate,
    /// unauthenticated, unreadable).
    Ignored(String),
}

/// The text of `help`; `forms` are the move forms of the game, with examples
/// (the variant supplies them: [`crate::rules::DynVariant::move_forms`]).
fn help(forms: &str) -> String {
    format!(
        "Reply to the latest board mail; the first line of your reply is read.
  a move:      {forms}
  resign       give up the game
  draw         offer a draw (or accept the draw offered)
  accept draw  accept the draw offered
  decline draw decline it
  status       the game as it stands
  help         this text
A move typed only into the subject (after ours) is read when the reply holds none.
A signed or sealed envelope (fairsteward player …) may be pasted instead.
Only mails from your registered address, or an alias you confirmed, act for your seat."
    )
}

/// Handles one raw message.
///
/// # Errors
/// Only store failures: the message was then not handled and should be offered
/// again (an MTA pipe exits 75, IMAP leaves it unflagged).
pub async fn handle(steward: &Steward, raw: &[u8], now: DateTime<Utc>) -> Result<Handled, StewardError> {
    let read = read_mail(raw);
    let key = match &read {
        Ok(mail) => mail.message_id.as_ref().map_or_else(|| body_key(raw), |id| seen_key(id, raw)),
        Err(_) => body_key(raw),
    };
    if steward.mail_seen(&key).await? {
        return Ok(Handled::Ignored("seen before".into()));
    }
    let handled = match read {
        Err(e) => Handled::Ignored(format!("unreadable: {e}")),
        Ok(mail) => act(steward, &mail, raw, now).await?,
    };
    let outcome = match &handled {
        Handled::Accepted(what) => format!("mail: {what}"),
        Handled::Refused(code) => format!("refused: {code}"),
        Handled::Ignored(why) => format!("ignored: {why}"),
    };
    steward.mail_done(&key, raw, &outcome, now).await?;
    tracing::info!(message = %key, outcome = %outcome, "mail handled");
    Ok(handled)
}

fn body_key(raw: &[u8]) -> String {
    format!("sha256:{}", hex(digest::digest(&digest::SHA256, raw).as_ref()))
}

/// The key a mail with a Message-ID is recognised by: the Message-ID and a hash
/// of what the sender wrote (the body and the From, To, Cc, Subject and
/// Message-ID headers), so that a redelivery is recognised though servers add
/// trace headers, but a different mail that reuses the Message-ID is still read.
fn seen_key(message_id: &str, raw: &[u8]) -> String {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, i + 4))
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|i| (i, i + 2)));
    let (head, body) = split.map_or((raw, &[][..]), |(h, b)| (&raw[..h], &raw[b..]));
    let mut ctx = digest::Context::new(&digest::SHA256);
    // Header lines, unfolded: a line starting with white space continues the last.
    let mut keep = false;
    for line in head.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.first().is_some_and(|b| *b == b' ' || *b == b'\t') {
            if keep {
                ctx.update(line);
            }
            continue;
        }
        let name = line.split(|&b| b == b':').next().unwrap_or_default();
        keep = [&b"from"[..], b"to", b"cc", b"subject", b"message-id"].iter().any(|n| name.eq_ignore_ascii_case(n));
        if keep {
            ctx.update(b"\n");
            ctx.update(line);
        }
    }
    ctx.update(b"\n\n");
    // Line ends as stored may differ between doors (CRLF over IMAP, LF in a maildir).
    for part in body.split(|&b| b == b'\r') {
        ctx.update(part);
    }
    format!("{message_id} sha256:{}", hex(ctx.finish().as_ref()))
}

async fn act(steward: &Steward, mail: &ReadMail, raw: &[u8], now: DateTime<Utc>) -> Result<Handled, StewardError> {
    if let Some(why) = &mail.automatic {
        return Ok(Handled::Ignored(format!("automatic mail ({why})")));
    }
    let from = steward.from_address();
    let sender = mail.from.as_ref().map(|f| f.address.clone());
    if let Some(c) = mail.recipients.iter().find_map(|r| capability::read_confirmation(&from, r)) {
        // Only the new address answers its confirmation; nobody else is answered.
        return match steward.confirm_address(c, sender, now).await {
            Ok(done) => Ok(Handled::Accepted(done.to_owned())),
            Err(StewardError::Refused(r)) => Ok(Handled::Ignored(format!("confirmation not taken: {r}"))),
            Err(e) => Err(e),
        };
    }
    let cap: Option<Capability> = mail.recipients.iter().find_map(|r| capability::check(steward.keys(), &from, r));
    let to = AnswerTo { message_id: mail.message_id.clone(), subject: mail.subject.clone() };
    // The capability acts only for its seat's own addresses; an unknown game or
    // seat in a valid capability (a deleted game) proves nothing either.
    let bound = match &cap {
        Some(c) => match steward.sender_may_act(c.game.clone(), c.seat.clone(), sender.clone()).await {
            Ok(b) => b,
            Err(StewardError::Refused(_)) => false,
            Err(e) => return Err(e),
        },
        None => false,
    };

    // The game's variant says what move text is (a signed envelope names its own game).
    let rules = match cap.as_ref().filter(|_| bound) {
        Some(c) => match steward.rules(c.game.clone()).await {
            Ok(r) => Some(r),
            Err(StewardError::Refused(_)) => None,
            Err(e) => return Err(e),
        },
        None => None,
    };
    let intent = mail.intent(rules.as_ref().map(|r| (r.id.as_str(), r.rules.as_ref())));

    // A signed envelope proves its own seat; everything else needs the capability.
    let envelope = match &intent {
        Intent::Envelope(text) => match Envelope::find(text) {
            Ok(Some(env)) => Some(env),
            Ok(None) => None,
            Err(e) => {
                if let Some(c) = cap.as_ref().filter(|_| !bound) {
                    return foreign(steward, c, sender, &mail.subject, now).await;
                }
                return answer_refusal(steward, cap.as_ref(), &to, "bad_envelope", &e.to_string(), now).await;
            }
        },
        _ => None,
    };
    if let Some(env) = envelope {
        if env.sig.is_none() {
            match &cap {
                None => return Ok(Handled::Ignored("an unsigned envelope without a reply capability".into())),
                Some(c) if !bound => return foreign(steward, c, sender, &mail.subject, now).await,
                Some(_) => {}
            }
        }
        let (game, seat) = (env.game.clone(), env.seat.clone());
        // A signed envelope needs no capability; the capability of a foreign
        // sender lends it nothing.
        let credential = cap.clone().filter(|c| bound && c.game == game).map(Credential::Capability);
        if let Body::Action(action) = env.body {
            let about = Capability { game: game.clone(), seat, turn: env.turn };
            // Signed: the signature proves the seat; unsigned: the reply address must.
            let credential = if env.sig.is_some() { Some(Credential::Signed(env)) } else { credential };
            return signed_action(steward, action, game, credential, &about, &to, now).await;
        }
        let req = MoveRequest {
            game: game.clone(),
            credential,
            submission: Submission::Envelope(env),
            raw: raw.to_vec(),
            door: "mail",
        };
        let about = Capability { game, seat, turn: 0 };
        return submit(steward, req, &about, &to, now).await;
    }
    let Some(cap) = cap else {
        return Ok(Handled::Ignored("no reply capability and no signed envelope: the sender proves no seat".into()));
    };
    if !bound {
        return foreign(steward, &cap, sender, &mail.subject, now).await;
    }
    let credential = Some(Credential::Capability(cap.clone()));
    let forms = rules.as_ref().map_or_else(|| "a move in the game's notation".to_owned(), |r| r.move_forms(&cap.seat));
    match &intent {
        Intent::Move(text) => {
            let req = MoveRequest {
                game: cap.game.clone(),
                credential,
                submission: Submission::Move { turn: cap.turn, text: text.clone() },
                raw: raw.to_vec(),
                door: "mail",
            };
            submit(steward, req, &cap, &to, now).await
        }
        Intent::Resign => {
            command(steward, &cap, &to, now, steward.resign(cap.game.clone(), credential, now).await, "resignation")
                .await
        }
        Intent::OfferDraw | Intent::AcceptDraw | Intent::DeclineDraw => {
            let action = match intent {
                Intent::DeclineDraw => DrawAction::Decline,
                Intent::AcceptDraw => DrawAction::Accept,
                _ => DrawAction::Offer,
            };
            let r = steward.draw(cap.game.clone(), credential, action, now).await;
            command(steward, &cap, &to, now, r, "draw").await
        }
        Intent::Status => match steward.status(cap.game.clone(), credential).await {
            Ok(view) => {
                let owed: Vec<&str> = view.to_move.iter().map(String::as_str).collect();
                let text = format!(
                    "Status of game {}: turn {}, {}.\nState: {}\n{}",
                    view.id,
                    view.turn,
                    match &view.outcome {
                        Some(o) => format!("over: {} ({})", o.result, o.reason),
                        None if owed.is_empty() => "nobody owes a move".to_owned(),
                        None => format!("{} to move", owed.join(" and ")),
                    },
                    view.state,
                    view.seats
                        .iter()
                        .find(|s| s.seat.eq_ignore_ascii_case(&cap.seat))
                        .and_then(|s| s.pending_move.as_ref())
                        .map_or(String::new(), |m| format!("Your move for this turn is in: {m}.")),
                );
                reply(steward, &cap, &to, text, now, Handled::Accepted("status".into())).await
            }
            Err(e) => refusal_of(steward, &cap, &to, e, now).await,
        },
        Intent::Help => reply(steward, &cap, &to, help(&forms), now, Handled::Accepted("help".into())).await,
        Intent::Leave { from, to: until } => {
            let action = Action::Leave { from: *from, to: *until };
            signed_action(steward, action, cap.game.clone(), credential, &cap, &to, now).await
        }
        Intent::Forwarded => {
            let text = "Your mail is a forwarded mail with nothing of your own to act on. To move, reply to the board mail with your move as the first line.".to_owned();
            reply(steward, &cap, &to, text, now, Handled::Refused("forwarded".into())).await
        }
        Intent::Unreadable(line) => {
            let text = format!(
                "The steward could not read a move or a command in your mail; the first line was {line:?}. Send your move as the first line ({forms}), or one of: resign, draw, accept draw, decline draw, status, help."
            );
            reply(steward, &cap, &to, text, now, Handled::Refused("unreadable".into())).await
        }
        Intent::Empty => {
            let text = format!(
                "Your mail holds nothing but quoted text. Write your move as the first line of the reply ({forms})."
            );
            reply(steward, &cap, &to, text, now, Handled::Refused("empty".into())).await
        }
        Intent::Envelope(_) => Ok(Handled::Ignored("an envelope that could not be found again".into())),
    }
}

/// A valid capability in a mail from an address not bound to its seat: nothing
/// is taken, the sender hears nothing, the registered address is told (at most
/// once an hour per seat).
async fn foreign(
    steward: &Steward,
    cap: &Capability,
    sender: Option<String>,
    subject: &str,
    now: DateTime<Utc>,
) -> Result<Handled, StewardError> {
    let sender = sender.unwrap_or_else(|| "(no From address)".to_owned());
    // Whether the player was told now (false: told within the hour already).
    let told =
        match steward.foreign_sender(cap.game.clone(), cap.seat.clone(), sender.clone(), subject.to_owned(), now).await
        {
            Ok(told) => told,
            Err(StewardError::Refused(_)) => false,
            Err(e) => return Err(e),
        };
    tracing::info!(game = %cap.game, seat = %cap.seat, sender = %sender, told, "a mail from an address not bound to the seat: nothing taken");
    Ok(Handled::Refused("foreign_sender".into()))
}

async fn submit(
    steward: &Steward,
    req: MoveRequest,
    about: &Capability,
    to: &AnswerTo,
    now: DateTime<Utc>,
) -> Result<Handled, StewardError> {
    match steward.submit_move(req, now).await {
        Ok(r) => {
            let what = match &r.notation {
                Some(m) => format!("{} {m}", r.kind),
                None => format!("commitment {}", r.commitment.as_deref().unwrap_or("")),
            };
            let text = format!(
                "Accepted: {what} for turn {} (receipt {}, received at {}, transcript entry {}).{}",
                r.turn,
                r.receipt,
                r.received_at,
                r.entry,
                if r.resolved {
                    " It completed the turn; the new board follows."
                } else {
                    " The board follows when every seat has moved."
                }
            );
            // A repeat for a turn resolved since: say so and where the game is.
            let text = match &r.already_resolved {
                Some(a) => format!("Received before: {what} for turn {} (receipt {}). {}", r.turn, r.receipt, a.note),
                None => text,
            };
            let cap = Capability { seat: r.seat.clone(), game: r.game.clone(), turn: r.turn };
            reply(steward, &cap, to, text, now, Handled::Accepted(r.kind.to_owned())).await
        }
        Err(e) => refusal_of(steward, about, to, e, now).await,
    }
}

/// An `action:` envelope (resign, draw, leave) read from a mail.
async fn signed_action(
    steward: &Steward,
    action: Action,
    game: String,
    credential: Option<Credential>,
    about: &Capability,
    to: &AnswerTo,
    now: DateTime<Utc>,
) -> Result<Handled, StewardError> {
    match action {
        Action::Resign => {
            command(steward, about, to, now, steward.resign(game, credential, now).await, "resignation").await
        }
        Action::OfferDraw | Action::AcceptDraw | Action::DeclineDraw => {
            let draw = match action {
                Action::DeclineDraw => DrawAction::Decline,
                Action::AcceptDraw => DrawAction::Accept,
                _ => DrawAction::Offer,
            };
            command(steward, about, to, now, steward.draw(game, credential, draw, now).await, "draw").await
        }
        Action::Leave { from, to: until } => {
            let result = match credential {
                Some(Credential::Signed(env)) => steward.declare_leave_signed(env).await,
                Some(Credential::Capability(_)) => {
                    let player = steward.seat_address(game, about.seat.clone()).await?;
                    steward.declare_leave(player, crate::clock::leave::LeaveRequest { from, to: until }).await
                }
                _ => return Ok(Handled::Ignored("an unsigned leave envelope without a reply capability".into())),
            };
            match result {
                Ok(answer) => {
                    let balance: Vec<String> = answer.balance.iter().map(|b| format!("{b}")).collect();
                    let text = format!(
                        "Leave from {from} to {until} is granted; the clocks of your games stand on those days and your opponents are told.\nBalance: {}",
                        balance.join("; ")
                    );
                    reply(steward, about, to, text, now, Handled::Accepted("leave".into())).await
                }
                Err(e) => refusal_of(steward, about, to, e, now).await,
            }
        }
    }
}

async fn command(
    steward: &Steward,
    cap: &Capability,
    to: &AnswerTo,
    now: DateTime<Utc>,
    result: Result<crate::steward::GameView, StewardError>,
    what: &str,
) -> Result<Handled, StewardError> {
    match result {
        // The notices to every seat say what happened; the sender needs no more.
        Ok(_) => Ok(Handled::Accepted(what.to_owned())),
        Err(e) => refusal_of(steward, cap, to, e, now).await,
    }
}

async fn refusal_of(
    steward: &Steward,
    about: &Capability,
    to: &AnswerTo,
    e: StewardError,
    now: DateTime<Utc>,
) -> Result<Handled, StewardError> {
    match e {
        StewardError::Refused(r) => {
            answer_refusal(steward, Some(about), to, r.code(), &r.message(Door::Mail), now).await
        }
        StewardError::Internal(detail) => Err(StewardError::Internal(detail)),
    }
}

async fn answer_refusal(
    steward: &Steward,
    about: Option<&Capability>,
    to: &AnswerTo,
    code: &str,
    message: &str,
    now: DateTime<Utc>,
) -> Result<Handled, StewardError> {
    match about {
        Some(cap) => {
            let text = format!("Not accepted: {message}\nNothing already accepted was changed.");
            reply(steward, cap, to, text, now, Handled::Refused(code.to_owned())).await
        }
        None => Ok(Handled::Ignored(format!("{code} from a sender who proves no seat"))),
    }
}

async fn reply(
    steward: &Steward,
    cap: &Capability,
    to: &AnswerTo,
    text: String,
    now: DateTime<Utc>,
    handled: Handled,
) -> Result<Handled, StewardError> {
    match steward.answer(cap.game.clone(), cap.seat.clone(), to.clone(), text, now).await {
        Ok(_) => Ok(handled),
        // An unknown game or seat named by a signed envelope: nobody to answer.
        Err(StewardError::Refused(r)) => Ok(Handled::Ignored(format!("nobody to answer: {r}"))),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::seen_key;

    #[test]
    fn a_redelivery_keeps_its_key_and_another_content_gets_its_own() {
        let mail =
            "From: a@example.org\r\nTo: moves@steward.example\r\nSubject: Re: x\r\nMessage-ID: <1@c>\r\n\r\ne4\r\n";
        let key = seen_key("1@c", mail.as_bytes());
        assert!(key.starts_with("1@c sha256:"), "{key}");
        // A server's trace headers and LF line ends are the same mail.
        let traced = format!("Received: from a by b\r\nDelivered-To: moves@steward.example\r\n{mail}");
        assert_eq!(seen_key("1@c", traced.as_bytes()), key);
        assert_eq!(seen_key("1@c", mail.replace("\r\n", "\n").as_bytes()), key);
        // Another body, sender or recipient with the same Message-ID is another mail.
        for other in [
            mail.replace("e4", "resign"),
            mail.replace("a@example.org", "m@evil.example"),
            mail.replace("To: moves@", "To: other@"),
        ] {
            assert_ne!(seen_key("1@c", other.as_bytes()), key, "{other}");
        }
    }
}
