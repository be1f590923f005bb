//! Composing the steward's mails: minijinja templates from `templates/` (embedded
//! in the binary), formatted as RFC 5322 by lettre with a stable Message-ID.
//!
//! Message-IDs are `<game.turn.seat.kind@domain>`, so a resent mail is recognisable,
//! and every mail of a game refers to the seat's first mail of that game
//! (`In-Reply-To`/`References`), which keeps each game in one thread.

use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use lettre::Message;
use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use minijinja::Environment;

use crate::ids::GameId;
use crate::store::OutboxRow;

fn templates() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, text) in [
            ("turn.txt", include_str!("../../templates/turn.txt")),
            ("started.txt", include_str!("../../templates/started.txt")),
            ("notice.txt", include_str!("../../templates/notice.txt")),
            ("trust.txt", include_str!("../../templates/trust.txt")),
            ("howto.txt", include_str!("../../templates/howto.txt")),
            ("clocks.txt", include_str!("../../templates/clocks.txt")),
            ("reminder.txt", include_str!("../../templates/reminder.txt")),
            ("leave.txt", include_str!("../../templates/leave.txt")),
        ] {
            // The templates are part of the binary; a syntax error is a build bug
            // caught by the tests below.
            env.add_template(name, text).expect("embedded template parses");
        }
        env
    })
}

/// What a mail is about; part of its Message-ID.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MailKind {
    /// The game has begun.
    Started,
    /// A turn was resolved: the new board.
    Turn,
    /// A seat offered a draw.
    DrawOffer,
    /// The game ended outside a turn (resignation, agreement).
    Ended,
    /// A seat committed to a move (commit-reveal games).
    Committed,
    /// Every seat has committed: reveal now.
    Reveal,
    /// Moves due soon: a digest over a player's games (clocks).
    Reminder,
    /// A seat is past its deadline, in grace (clocks).
    Grace,
    /// A seat ran out of time (clocks).
    Timeout,
    /// A player declared leave (clocks).
    Leave,
}

impl MailKind {
    fn as_str(self) -> &'static str {
        match self {
            MailKind::Started => "started",
            MailKind::Turn => "turn",
            MailKind::DrawOffer => "draw",
            MailKind::Ended => "ended",
            MailKind::Committed => "commit",
            MailKind::Reveal => "reveal",
            MailKind::Reminder => "reminder",
            MailKind::Grace => "grace",
            MailKind::Timeout => "timeout",
            MailKind::Leave => "leave",
        }
    }
}

/// Failure to compose a mail: a template or address problem, never the player's.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    /// The template failed to render.
    #[error("template {0}: {1}")]
    Template(&'static str, minijinja::Error),
    /// lettre refused the message.
    #[error("message: {0}")]
    Message(#[from] lettre::error::Error),
    /// A recipient address is not valid.
    #[error("recipient {0:?} is not a mail address")]
    Address(String),
}

/// One mail to compose.
pub struct Draft<'a> {
    /// The steward's sender address.
    pub from: &'a Mailbox,
    /// The game.
    pub game: &'a GameId,
    /// The turn it belongs to (0 for the start).
    pub turn: u32,
    /// The recipient's seat index.
    pub seat: usize,
    /// What it is.
    pub kind: MailKind,
    /// The recipient's name and address.
    pub to_name: &'a str,
    /// The recipient's address.
    pub to_email: &'a str,
    /// The subject line.
    pub subject: String,
    /// The template, e.g. `turn.txt`.
    pub template: &'static str,
    /// The template's variables.
    pub context: minijinja::Value,
    /// The Date header (the steward's clock, passed in).
    pub date: DateTime<Utc>,
}

fn message_id(from: &Mailbox, game: &GameId, turn: u32, seat: usize, kind: MailKind, extra: &str) -> String {
    format!("{game}.{turn}.{seat}.{}{extra}@{}", kind.as_str(), from.email.domain())
}

fn render(template: &'static str, context: &minijinja::Value) -> Result<String, ComposeError> {
    templates().get_template(template).and_then(|t| t.render(context)).map_err(|e| ComposeError::Template(template, e))
}

/// `Name <address>`, or the bare address when the name does not fit.
fn recipient(name: &str, email: &str) -> Result<Mailbox, ComposeError> {
    format!("{} <{}>", name.replace(['<', '>', '"'], ""), email)
        .parse()
        .or_else(|_| email.parse())
        .map_err(|_| ComposeError::Address(email.to_owned()))
}

/// Renders and formats a mail, ready for the outbox.
///
/// # Errors
/// A template or address problem.
pub fn compose(d: Draft<'_>) -> Result<OutboxRow, ComposeError> {
    compose_with_suffix(d, "")
}

/// As [`compose`], with `suffix` added to the Message-ID's kind, for several
/// mails of one kind in one turn (say, two draw offers).
///
/// # Errors
/// A template or address problem.
pub fn compose_with_suffix(d: Draft<'_>, suffix: &str) -> Result<OutboxRow, ComposeError> {
    let body = render(d.template, &d.context)?;
    let to = recipient(d.to_name, d.to_email)?;
    let id = message_id(d.from, d.game, d.turn, d.seat, d.kind, suffix);
    let mut builder = Message::builder()
        .from(d.from.clone())
        .to(to)
        .subject(d.subject.clone())
        .date(d.date.into())
        .message_id(Some(format!("<{id}>")));
    if d.kind != MailKind::Started {
        let root = format!("<{}>", message_id(d.from, d.game, 0, d.seat, MailKind::Started, ""));
        builder = builder.in_reply_to(root.clone()).references(root);
    }
    let message = builder.header(ContentType::TEXT_PLAIN).body(body)?;
    Ok(OutboxRow {
        id: 0,
        message_id: id,
        game_id: d.game.to_string(),
        recipient: d.to_email.to_owned(),
        subject: d.subject,
        message: message.formatted(),
    })
}

/// A mail to one player that is not about one game's turn (a reminder digest
/// over several games, a leave notice).
pub struct DigestDraft<'a> {
    /// The steward's sender address.
    pub from: &'a Mailbox,
    /// What it is.
    pub kind: MailKind,
    /// What makes its Message-ID unique and stable: `<kind>.<key>@domain`.
    pub key: String,
    /// The game it is about, or the first of them (the outbox row's game).
    pub game: String,
    /// The recipient's name.
    pub to_name: &'a str,
    /// The recipient's address.
    pub to_email: &'a str,
    /// The subject line.
    pub subject: String,
    /// The template.
    pub template: &'static str,
    /// The template's variables.
    pub context: minijinja::Value,
    /// The Date header.
    pub date: DateTime<Utc>,
}

/// Renders and formats a digest mail, ready for the outbox.
///
/// # Errors
/// A template or address problem.
pub fn compose_digest(d: DigestDraft<'_>) -> Result<OutboxRow, ComposeError> {
    let body = render(d.template, &d.context)?;
    let to = recipient(d.to_name, d.to_email)?;
    let id = format!("{}.{}@{}", d.kind.as_str(), d.key, d.from.email.domain());
    let message = Message::builder()
        .from(d.from.clone())
        .to(to)
        .subject(d.subject.clone())
        .date(d.date.into())
        .message_id(Some(format!("<{id}>")))
        .header(ContentType::TEXT_PLAIN)
        .body(body)?;
    Ok(OutboxRow {
        id: 0,
        message_id: id,
        game_id: d.game,
        recipient: d.to_email.to_owned(),
        subject: d.subject,
        message: message.formatted(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_renders() {
        for name in ["turn.txt", "started.txt", "notice.txt", "reminder.txt", "leave.txt"] {
            let t = templates().get_template(name).unwrap();
            t.render(minijinja::context! { game => "8KQ2ZJ", moves => Vec::<u8>::new(), items => Vec::<u8>::new(), games => Vec::<u8>::new() })
                .unwrap();
        }
    }

    #[test]
    fn message_ids_are_stable_and_threaded() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let draft = || Draft {
            from: &from,
            game: &game,
            turn: 3,
            seat: 1,
            kind: MailKind::Turn,
            to_name: "Bob",
            to_email: "bob@example.org",
            subject: "Game 8KQ2ZJ, turn 3".into(),
            template: "notice.txt",
            context: minijinja::context! { game => "8KQ2ZJ", text => "hello" },
            date: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
        };
        let a = compose(draft()).unwrap();
        let b = compose(draft()).unwrap();
        assert_eq!(a.message_id, "8KQ2ZJ.3.1.turn@steward.example");
        assert_eq!(a.message, b.message, "the same mail formats to the same bytes");
        let text = String::from_utf8(a.message).unwrap();
        assert!(text.contains("Message-ID: <8KQ2ZJ.3.1.turn@steward.example>"), "{text}");
        assert!(text.contains("In-Reply-To: <8KQ2ZJ.0.1.started@steward.example>"), "{text}");
    }
}
