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
use crate::mail::inbound::{ConditionalWords, Intent, InvitationIntent, ReadMail, read_mail};
use crate::protocol::Envelope;
use crate::protocol::capability::{self, Capability};
use crate::protocol::openpgp::{
    self,
    proof::{NoMove, OpenPgpProof},
};
use crate::steward::{
    Answer, AnswerTo, ConditionalInput, ConditionalLines, ConditionalOp, Door, DrawAction, Inbound,
    InvitationReplyWord, MailCommand, MailIn, MailOutcome, Reading, SignedConditional, Steward, StewardError,
    openpgp_tofu_note,
};

/// What became of a message: the steward's typed outcome (`Display` gives the
/// line `ingest` prints, e.g. `accepted: move`).
pub type Handled = MailOutcome;

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
  if THEIR-MOVE then YOUR-MOVE, if … then … if … then …
               conditional moves, in the forms above: played for you when the others play so
  conditional  your conditional lines (`conditional clear` drops them)
  standings    the table of the game's tournament
  help         this text
  mail my turn  board mails only when it is your move (also: mail every,
               mail digest at 7, mail pictures attached|linked|none; mail alone: your setting)
  alias you@example.org    let another address of yours act for you (confirmed by mail)
  address new@example.org  move your seat to a new address (confirmed by mail)
A move typed only into the subject (after ours) is read when the reply holds none.
A signed or sealed envelope (fairsteward player …) may be pasted instead.
Only mails from your registered address, or an alias you confirmed, act for your seat."
    )
}

/// The answer to a mail about conditional moves (issue 32): the lines kept,
/// which only this seat ever sees.
fn conditional_text(c: &ConditionalLines) -> String {
    if c.count == 0 {
        return format!(
            "You keep no conditional lines in game {}. To set some, reply with lines like: if THEIR-MOVE then YOUR-MOVE, if THEIR-MOVE then YOUR-MOVE if THEIR-NEXT then YOUR-NEXT (the moves written as in your board mails)",
            c.game
        );
    }
    format!(
        "Your conditional lines in game {} ({} kept; nobody else sees them):\n{}\nWhen the others play the moves of a line's first `if`, its reply is played for you. Replying with new lines replaces these; `conditional clear` drops them.",
        c.game, c.count, c.text
    )
}

/// A batch of raw messages a door handles together (a maildir's `new/`, an
/// IMAP mailbox's unmarked messages): their transactions wait for the store
/// together and share its commits, so a backlog is not one fsync per mail.
/// Bounded in mails and in bytes, since every message of it is in memory.
#[derive(Debug)]
pub struct Batch<T> {
    messages: Vec<(T, Vec<u8>)>,
    bytes: usize,
}

impl<T> Default for Batch<T> {
    fn default() -> Self {
        Batch { messages: Vec::new(), bytes: 0 }
    }
}

impl<T> Batch<T> {
    /// The most messages in one batch.
    pub const MAILS: usize = 32;
    /// A batch takes no more once it holds this many bytes (so it holds at most
    /// this plus one message of [`MAX_MAIL_BYTES`](super::MAX_MAIL_BYTES)).
    pub const BYTES: usize = 16 * 1024 * 1024;

    /// Adds `raw`, known to the door as `tag`.
    pub fn push(&mut self, tag: T, raw: Vec<u8>) {
        self.bytes += raw.len();
        self.messages.push((tag, raw));
    }

    /// Whether to handle the batch now: it holds something, and it is full or
    /// nothing more is to come (`more` is whether the door has more messages).
    pub fn is_due(&self, more: bool) -> bool {
        let full = self.messages.len() >= Self::MAILS || self.bytes >= Self::BYTES;
        !self.messages.is_empty() && (full || !more)
    }

    /// Handles every message, in order (each is [`handle`]d; their store
    /// transactions are queued in this order), and empties the batch. Each
    /// outcome is known only after its commit, so the door may then mark its
    /// message handled.
    pub async fn handle(&mut self, steward: &Steward, now: DateTime<Utc>) -> Vec<(T, Result<Handled, StewardError>)> {
        let messages = std::mem::take(&mut self.messages);
        self.bytes = 0;
        // A later mail may need an earlier one (black's reply to white's
        // move): submitted together only where the store runs them in order;
        // else (PostgreSQL's connections side by side) one after the other.
        let outcomes = if steward.store().runs_in_order() {
            futures_util::future::join_all(messages.iter().map(|(_, raw)| handle(steward, raw, now))).await
        } else {
            let mut outcomes = Vec::with_capacity(messages.len());
            for (_, raw) in &messages {
                outcomes.push(handle(steward, raw, now).await);
            }
            outcomes
        };
        messages.into_iter().map(|(tag, _)| tag).zip(outcomes).collect()
    }
}

/// Handles one raw message: the door reads it and finds which seat its
/// recipients prove; the steward takes it whole in one store transaction
/// (seen-check, sender check, command, resolution, answer, board mails).
///
/// # Errors
/// Only store failures: the message was then not handled (nothing of it was
/// kept) and should be offered again (an MTA pipe exits 75, IMAP leaves it
/// unflagged).
pub async fn handle(steward: &Steward, raw: &[u8], now: DateTime<Utc>) -> Result<Handled, StewardError> {
    let read = read_mail(raw);
    let key = match &read {
        Ok(mail) => mail.message_id.as_ref().map_or_else(|| body_key(raw), |id| seen_key(id, raw)),
        Err(_) => body_key(raw),
    };
    let mut encrypted = false;
    let mail = match read {
        Err(e) => MailIn {
            key: key.clone(),
            raw: raw.to_vec(),
            sender: None,
            answer_to: AnswerTo::default(),
            inbound: Inbound::Unreadable(e.to_string()),
        },
        Ok(mail) => {
            let (mail, opened, undecryptable) = open_encrypted(steward, raw, mail);
            encrypted = opened.is_some();
            // A signature inside an encrypted reply is read as the signature
            // of a signed reply (RFC 3156 §6.1 and §6.2; docs/encrypted-moves.md).
            let signed = match &opened {
                Some(inside) => encrypted_signed_command(raw, inside, &mail, now),
                None if undecryptable.is_some() => None,
                None => openpgp_command(raw, &mail, now),
            };
            MailIn {
                key: key.clone(),
                raw: raw.to_vec(),
                sender: mail.from.as_ref().map(|f| f.address.clone()),
                answer_to: AnswerTo { message_id: mail.message_id.clone(), subject: mail.subject.clone() },
                inbound: inbound(steward, raw, &mail, signed, undecryptable),
            }
        }
    };
    // The receipt of an encrypted move does not name it: it would travel in clear.
    let wording: crate::steward::Wording = if encrypted { answer_text_encrypted } else { answer_text };
    let handled = steward.take_mail(mail, wording, now).await?;
    tracing::info!(message = %key, outcome = %handled, "mail handled");
    Ok(handled)
}

/// What an encrypted reply opened to, in memory only: its plaintext and the
/// signatures made in the same OpenPGP message.
struct Inside {
    /// PGP/MIME (the plaintext is a MIME entity) or inline (it is the text).
    mime: bool,
    opened: openpgp::decrypt::Opened,
}

/// A reply encrypted to the steward's OpenPGP key (issue 33), opened in memory
/// and read in the outer mail's place: its move is then held like any pending
/// move (sealed at rest), and the raw mail kept is the ciphertext. When it does
/// not open, the reason (for an answer to the registered address). `Some`:
/// it was encrypted and opened.
fn open_encrypted(steward: &Steward, raw: &[u8], mail: ReadMail) -> (ReadMail, Option<Inside>, Option<String>) {
    use crate::mail::inbound::encrypted::{Encrypted, find_encrypted, opened};
    let Some(found) = find_encrypted(raw, &mail) else { return (mail, None, None) };
    let keys = steward.keys().openpgp_secrets();
    match openpgp::decrypt::open(found.bytes(), &keys) {
        Ok(o) => {
            let mail = opened(&mail, &found, &o.plain);
            (mail, Some(Inside { mime: matches!(found, Encrypted::PgpMime(_)), opened: o }), None)
        }
        Err(e) => (mail, None, Some(e.to_string())),
    }
}

/// The command of a reply encrypted to the steward and signed inside
/// (issue 33): signed and encrypted in one OpenPGP message (RFC 3156 §6.2), the
/// signature over the plaintext; or signed, then encrypted (§6.1), a
/// `multipart/signed` entity (or an inline cleartext block) inside. Read as
/// [`openpgp_command`] reads a signed reply: `None` when it is not signed, or
/// its signed text names no game. `mail` is the reply as opened.
fn encrypted_signed_command(raw: &[u8], inside: &Inside, mail: &ReadMail, now: DateTime<Utc>) -> Option<MailCommand> {
    use openpgp::mime::{Kind, SignedEntity};
    if mail.automatic.is_some() {
        return None;
    }
    let plain = &inside.opened.plain;
    let entity = match &inside.opened.signatures {
        // Bounded as a signed part and a signature block in clear are: both are
        // kept with the move and go into the transcript.
        Some(_) if plain.len() > openpgp::mime::MAX_SIGNED_BYTES => {
            let problem = openpgp::mime::MimeProblem::TooLarge { size: plain.len() };
            return Some(MailCommand::BadEnvelope(problem.to_string()));
        }
        Some(signature) if signature.len() > openpgp::signed::MAX_SIGNATURE_BYTES => {
            return Some(MailCommand::BadEnvelope(format!(
                "the OpenPGP signatures inside your encrypted reply take {} bytes, more than the {} taken; sign with one key",
                signature.len(),
                openpgp::signed::MAX_SIGNATURE_BYTES
            )));
        }
        Some(signature) => SignedEntity {
            kind: if inside.mime { Kind::EncryptedMime } else { Kind::EncryptedInline },
            signed: plain.clone(),
            signature: signature.clone(),
        },
        None => {
            let entity_bytes: &[u8] = if inside.mime { plain } else { &[] };
            match openpgp::mime::find_signed_entity(entity_bytes, &mail.text) {
                Ok(Some(e)) => e,
                Ok(None) => return None,
                Err(problem) => return Some(MailCommand::BadEnvelope(problem.to_string())),
            }
        }
    };
    signed_entity_command(raw, entity, mail, now)
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

/// What a readable mail is: automatic, a confirmation, or a mail about a game
/// with the capability its recipients carry and what it asks.
fn inbound(
    steward: &Steward,
    raw: &[u8],
    mail: &ReadMail,
    signed: Option<MailCommand>,
    undecryptable: Option<String>,
) -> Inbound {
    if let Some(why) = &mail.automatic {
        return Inbound::Automatic(why.to_string());
    }
    let from = steward.from_address();
    if let Some(c) = mail.recipients.iter().find_map(|r| capability::read_confirmation(&from, r)) {
        return Inbound::Confirmation(c);
    }
    // A reply to an invitation (issue 31): `accept` or `decline`.
    if let Some(reply) = mail.recipients.iter().find_map(|r| capability::read_invitation(&from, r)) {
        let word = match crate::mail::inbound::invitation_intent(&mail.fresh) {
            InvitationIntent::Accept => InvitationReplyWord::Accept,
            InvitationIntent::Decline => InvitationReplyWord::Decline,
            InvitationIntent::Other(line) => InvitationReplyWord::Unreadable(line),
            InvitationIntent::Empty => InvitationReplyWord::Empty,
        };
        let openpgp_key = offered_openpgp_key(raw, &mail.text);
        return Inbound::Invitation { reply, word, openpgp_key };
    }
    let capability: Option<Capability> =
        mail.recipients.iter().find_map(|r| capability::check(steward.keys(), &from, r));
    // An OpenPGP-signed mail (issue 33) carries its game, seat and turn inside
    // the signature: it reads alike for every game.
    if let Some(command) = signed {
        return Inbound::Game { capability, reading: Reading::new(move |_| command.clone()) };
    }
    // The steward reads the mail for its game once it knows it (in the mail's
    // transaction): what a move is, is the game's variant's to say.
    if let Some(why) = undecryptable {
        let reading = Reading::new(move |_| MailCommand::Undecryptable(why.clone()));
        return Inbound::Game { capability, reading };
    }
    let read = mail.clone();
    let reading = Reading::new(move |game| command(&read.intent(game)));
    Inbound::Game { capability, reading }
}

/// The command of an OpenPGP-signed mail (issue 33; docs/openpgp.md): the
/// envelope its signed part carries, with the signature and the exact signed
/// bytes attached, for the steward to check against the seat's registered key.
/// `None` for a mail that is not signed, or whose signed part names no game
/// (a client that signs every mail): it is read as any other mail.
///
/// The signed entity is found in the raw bytes by
/// [`openpgp::mime::find_signed_entity`], which takes any MIME entity: a
/// decrypted inner message can be handed to it the same way.
fn openpgp_command(raw: &[u8], mail: &ReadMail, now: DateTime<Utc>) -> Option<MailCommand> {
    if mail.automatic.is_some() {
        return None;
    }
    if openpgp::mime::encrypted(raw) {
        return Some(MailCommand::BadEnvelope(
            "your mail is marked encrypted (multipart/encrypted) but holds no encrypted part the steward can read; encrypt your reply to the steward's key as PGP/MIME or inline (docs/encrypted-moves.md)".into(),
        ));
    }
    let entity = match openpgp::mime::find_signed_entity(raw, &mail.text) {
        Ok(Some(e)) => e,
        Ok(None) => return None,
        Err(problem) => return Some(MailCommand::BadEnvelope(problem.to_string())),
    };
    signed_entity_command(raw, entity, mail, now)
}

/// The envelope a signed entity of the mail `raw` carries (read as `mail`),
/// with its proof; `None` when its signed text names no game.
fn signed_entity_command(
    raw: &[u8],
    entity: openpgp::mime::SignedEntity,
    mail: &ReadMail,
    now: DateTime<Utc>,
) -> Option<MailCommand> {
    let mut proof = OpenPgpProof::new(entity, now.timestamp());
    // For trust on first use: who sent it, and the key it offers.
    proof.sender = mail.from.as_ref().map(|f| f.address.clone());
    proof.offered_key =
        proof.sender.as_deref().and_then(|from| autocrypt_key(raw, from)).or_else(|| proof.attached_key());
    // Conditional lines signed for a game, seat and turn (issue 33).
    if let Some(found) = crate::mail::inbound::signed_conditional::read(&proof.text()) {
        return Some(match found {
            Ok(lines) => MailCommand::SignedConditional(SignedConditional {
                game: lines.game,
                seat: lines.seat,
                turn: lines.turn,
                op: match lines.words {
                    ConditionalWords::Set(text) => ConditionalOp::Set(ConditionalInput::Text(text)),
                    ConditionalWords::List => ConditionalOp::List,
                    ConditionalWords::Clear => ConditionalOp::Clear,
                },
                proof: Box::new(proof),
            }),
            Err(problem) => MailCommand::BadEnvelope(problem),
        });
    }
    match proof.envelope() {
        Ok(env) => Some(MailCommand::Envelope(env)),
        Err(NoMove::Missing) => None,
        Err(e @ NoMove::Bad(_)) => Some(MailCommand::BadEnvelope(e.to_string())),
    }
}

/// An OpenPGP public key a mail brings on purpose (issue 33: accepting an
/// invitation): pasted into its text (a `-----BEGIN PGP PUBLIC KEY BLOCK-----`
/// block at the start of a line, not quoted) or attached as
/// `application/pgp-keys` (Thunderbird's "Attach My Public Key"); at most the
/// first 64 MIME parts are looked at. The key is checked (and bounded) where
/// it is taken. Not the `Autocrypt:` header: a client sends that unasked.
fn offered_openpgp_key(raw: &[u8], text: &str) -> Option<String> {
    const BEGIN: &str = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
    const END: &str = "-----END PGP PUBLIC KEY BLOCK-----";
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    if let Some(start) = lines.iter().position(|l| l.trim() == BEGIN)
        && let Some(len) = lines[start..].iter().position(|l| l.trim() == END)
    {
        return Some(lines[start..=start + len].iter().map(|l| l.trim()).collect::<Vec<_>>().join("\n") + "\n");
    }
    let msg = mail_parser::MessageParser::default().parse(raw)?;
    msg.parts.iter().take(64).find_map(|p| {
        use mail_parser::MimeHeaders as _;
        let ct = p.content_type()?;
        let keys = ct.ctype().eq_ignore_ascii_case("application")
            && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("pgp-keys"));
        keys.then(|| String::from_utf8_lossy(p.contents()).into_owned())
    })
}

/// The key of an `Autocrypt:` header (autocrypt.org, level 1) for `from`'s
/// address, armoured; `None` when there is none for it or it does not read.
fn autocrypt_key(raw: &[u8], from: &str) -> Option<String> {
    let msg = mail_parser::MessageParser::default().parse_headers(raw)?;
    let value = msg.header_raw("Autocrypt")?;
    let mut addr = None;
    let mut keydata = None;
    for attr in value.split(';') {
        let (k, v) = attr.split_once('=')?;
        match k.trim().to_ascii_lowercase().as_str() {
            "addr" => addr = Some(v.trim().to_owned()),
            "keydata" => keydata = Some(v.to_owned()),
            _ => {}
        }
    }
    if !addr?.eq_ignore_ascii_case(from.trim()) {
        return None;
    }
    let key = openpgp::key::PlayerPgpKey::from_autocrypt(&keydata?).ok()?;
    Some(key.armored())
}

/// The command an intent asks for.
fn command(intent: &Intent) -> MailCommand {
    match intent {
        Intent::Envelope(text) => match Envelope::find(text) {
            Ok(Some(env)) => MailCommand::Envelope(env),
            Ok(None) => MailCommand::LostEnvelope,
            Err(e) => MailCommand::BadEnvelope(e.to_string()),
        },
        Intent::Move(text) => MailCommand::Move(text.clone()),
        Intent::Resign => MailCommand::Resign,
        Intent::OfferDraw => MailCommand::Draw(DrawAction::Offer),
        Intent::AcceptDraw => MailCommand::Draw(DrawAction::Accept),
        Intent::DeclineDraw => MailCommand::Draw(DrawAction::Decline),
        Intent::Status => MailCommand::Status,
        Intent::Standings => MailCommand::Standings,
        Intent::Help => MailCommand::Help,
        Intent::Leave { from, to } => MailCommand::Leave(crate::clock::leave::LeaveRequest { from: *from, to: *to }),
        Intent::Mail(change) => MailCommand::Mail(*change),
        Intent::Alias(address) => MailCommand::Address(crate::store::AddressKind::Alias, address.clone()),
        Intent::Address(address) => MailCommand::Address(crate::store::AddressKind::Email, address.clone()),
        Intent::Forwarded => MailCommand::Forwarded,
        Intent::Unreadable(line) => MailCommand::Unreadable(line.clone()),
        Intent::Empty => MailCommand::Empty,
        // issue 32
        Intent::Conditional(words) => MailCommand::Conditional(match words {
            ConditionalWords::Set(text) => ConditionalOp::Set(ConditionalInput::Text(text.clone())),
            ConditionalWords::List => ConditionalOp::List,
            ConditionalWords::Clear => ConditionalOp::Clear,
        }),
    }
}

/// [`answer_text`] for a reply that came encrypted (issue 33): a receipt for a
/// move not yet resolved does not name it, nor does `status` name the seat's
/// pending move, since the answer goes out unencrypted.
fn answer_text_encrypted(answer: &Answer<'_>) -> String {
    match answer {
        // A key taken on first use is said here too: its fingerprint is public.
        Answer::Receipt(r) if !r.resolved && r.already_resolved.is_none() => {
            format!(
                "Accepted: your encrypted {} for turn {} (receipt {}, received at {}, transcript entry {}). It is held sealed, and named in no mail until every seat has moved; the board follows then.",
                r.kind, r.turn, r.receipt, r.received_at, r.entry
            ) + &r.openpgp_key_taken.as_deref().map_or(String::new(), openpgp_tofu_note)
        }
        Answer::Status { .. } => answer_text(answer)
            .lines()
            .map(|l| {
                if l.starts_with("Your move for this turn is in:") {
                    "Your move for this turn is in (not named here: this answer is not encrypted)."
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => answer_text(answer),
    }
}

/// The mail door's words for an answer to the seat's registered address.
fn answer_text(answer: &Answer<'_>) -> String {
    match answer {
        Answer::Receipt(r) => {
            let what = match &r.notation {
                Some(m) => format!("{} {m}", r.kind),
                None => format!("commitment {}", r.commitment.as_deref().unwrap_or("")),
            };
            match &r.already_resolved {
                // A repeat for a turn resolved since: say so and where the game is.
                Some(a) => format!("Received before: {what} for turn {} (receipt {}). {}", r.turn, r.receipt, a.note),
                None => format!(
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
                ) + &r.openpgp_key_taken.as_deref().map_or(String::new(), openpgp_tofu_note),
            }
        }
        Answer::Status { view, seat } => {
            let owed: Vec<&str> = view.to_move.iter().map(String::as_str).collect();
            format!(
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
                    .find(|s| s.seat.eq_ignore_ascii_case(seat))
                    .and_then(|s| s.pending_move.as_ref())
                    .map_or(String::new(), |m| format!("Your move for this turn is in: {m}.")),
            )
        }
        Answer::Help { forms } => help(forms),
        Answer::Conditional(c) => conditional_text(c), // issue 32
        // issue 33
        Answer::OpenPgpKeyTaken { action, fingerprint } => format!(
            "Accepted: your signed {}; every seat is told.{}",
            match action {
                crate::protocol::Action::Resign => "resignation",
                crate::protocol::Action::OfferDraw => "draw offer",
                crate::protocol::Action::AcceptDraw => "acceptance of the draw",
                crate::protocol::Action::DeclineDraw => "refusal of the draw",
                crate::protocol::Action::Leave { .. } => "leave",
            },
            openpgp_tofu_note(fingerprint)
        ),
        Answer::Standings(s) => format!(
            "{} (tournament {}), as it stands now.\n\n{}\nThe crosstable and all games: {}",
            s.name, s.tournament, s.table, s.page
        ),
        Answer::NoTournament { game } => format!(
            "Game {game} is not part of a tournament, so there are no standings to send. A reply to its board mail is read as your move (its first line), or one of: resign, draw, accept draw, decline draw, status, leave, help."
        ),
        Answer::Leave { request, answer } => {
            let balance: Vec<String> = answer.balance.iter().map(|b| format!("{b}")).collect();
            format!(
                "Leave from {} to {} is granted; the clocks of your games stand on those days and your opponents are told.\nBalance: {}",
                request.from,
                request.to,
                balance.join("; ")
            )
        }
        Answer::MailSettings(m) => format!(
            "Your mail setting: {}.\nIt belongs to your address {} and holds in all your games. Reminders, deadline notices and the mail that ends a game always come.\nTo change it, reply with one line: mail every | mail my turn | mail digest at 7 | mail pictures attached | mail pictures linked | mail pictures none | mail encrypted | mail plain",
            m.message, m.player
        ),
        Answer::AddressAsked(r) => format!(
            "Asked: {}. Nothing changes until then; the confirmation is valid until {}.",
            r.message, r.expires_at
        ),
        Answer::Refused(r) => format!("Not accepted: {}\nNothing already accepted was changed.", r.message(Door::Mail)),
        Answer::Forwarded => "Your mail is a forwarded mail with nothing of your own to act on. To move, reply to the board mail with your move as the first line.".to_owned(),
        Answer::Unreadable { line, forms } => format!(
            "The steward could not read a move or a command in your mail; the first line was {line:?}. Send your move as the first line ({forms}), or one of: resign, draw, accept draw, decline draw, status, standings, help, mail (your mail setting: mail every, mail my turn, mail digest at 7, mail pictures none)."
        ),
        Answer::Empty { forms } => {
            format!("Your mail holds nothing but quoted text. Write your move as the first line of the reply ({forms}).")
        }
        // Invitations (issue 31).
        Answer::Invitation(a) => a.message.clone(),
        Answer::InvitationUnread { line } => format!(
            "{}Reply to the invitation mail with `accept` or `decline` as the first line, or open the link in it to answer on the web (there you can also set your name and give a public key).",
            match line {
                Some(l) => format!("Your reply's first line, {l:?}, says neither accept nor decline. "),
                None => "Your reply holds nothing but quoted text. ".to_owned(),
            }
        ),
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
