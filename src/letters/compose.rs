//! Composing the steward's mails: minijinja templates from `templates/` (embedded
//! in the binary), formatted as RFC 5322 by lettre with a stable Message-ID.
//!
//! Message-IDs are `<game.turn.seat.kind@domain>`, so a resent mail is recognisable,
//! and every mail of a game refers to the seat's first mail of that game
//! (`In-Reply-To`/`References`), which keeps each game in one thread.
//!
//! A mail is one `text/plain` part, or — when its [`Extras`] name an HTML template,
//! as the board mails do — `multipart/alternative`: the plain text first, then the
//! HTML (rendered with the same variables, autoescaped), which shows the board as
//! an inline PNG when one is given:
//!
//! ```text
//! multipart/alternative
//! ├── text/plain; charset=utf-8          the text template
//! └── multipart/related                  (just text/html when there is no PNG)
//!     ├── text/html; charset=utf-8       the HTML template, <img src="cid:board">
//!     └── image/png, Content-ID <board>  inline
//! ```
//!
//! The MIME boundaries derive from the Message-ID, so the same mail always
//! formats to the same bytes.
//!
//! **Board mails are queued as letters.** [`queue`] checks the recipient and
//! keeps the mail as a [`Letter`] (everything it is formatted from, the
//! template variables as JSON) instead of formatting it in the steward's
//! transaction; the outbox drainer formats it with [`Letter::format`] for each
//! handover — to the same bytes every time — and never stores the bytes.
//! [`compose`] formats the same letter at once, for the mails that are sealed
//! as they are queued.
//!
//! **The picture is not in the queued bytes.** A board mail is queued with a
//! placeholder line ([`picture_placeholder`]) as the image part's base64 body,
//! and its outbox row names the picture ([`BoardPicture`]); the outbox drainer
//! draws the picture off the store thread, stores it once, and puts it in with
//! [`put_picture`] just before handing the mail over. The queued letter (or
//! bytes) and the stored PNG fix the delivered bytes, so a resend is byte for
//! byte the same.

use std::sync::{Arc, OnceLock};

use chrono::{DateTime, Utc};
use lettre::Message;
use lettre::message::header::{ContentTransferEncoding, ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment, Body, Mailbox, MessageBuilder, MultiPart, SinglePart};
use minijinja::Environment;

use crate::contact::PlayerAddress;
use crate::ids::GameId;
use crate::letters::record::RecordQuery;
use crate::store::{BoardPicture, OutboxRow, PictureSource, SettledMove};

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
            ("links.txt", include_str!("../../templates/links.txt")),
            ("answer.txt", include_str!("../../templates/answer.txt")),
            ("turn.html", include_str!("../../templates/turn.html")),
            ("started.html", include_str!("../../templates/started.html")),
            ("text_board.html", include_str!("../../templates/text_board.html")),
            ("clocks.txt", include_str!("../../templates/clocks.txt")),
            ("reminder.txt", include_str!("../../templates/reminder.txt")),
            ("leave.txt", include_str!("../../templates/leave.txt")),
            // Issue 32: the daily digest of a player who chose it.
            ("digest.txt", include_str!("../../templates/digest.txt")),
            // Tournaments (issue 31): one start mail per player, result notices.
            ("tournament_started.txt", include_str!("../../templates/tournament_started.txt")),
            ("tournament_result.txt", include_str!("../../templates/tournament_result.txt")),
            ("tournament_standings.txt", include_str!("../../templates/tournament_standings.txt")),
        ] {
            // The templates are part of the binary; a syntax error is a build bug
            // caught by the tests below.
            env.add_template(name, text).expect("embedded template parses");
        }
        env.set_formatter(mail_html_formatter);
        env
    })
}

/// minijinja's formatter, except that a string in HTML is escaped only where
/// HTML needs it (`& < > " '`): the default also writes every `/` as `&#x2f;`,
/// five bytes each in every link and command of a board mail, which a mail
/// read on a metered phone pays for (issue 38).
fn mail_html_formatter(
    out: &mut minijinja::Output,
    state: &mut minijinja::State,
    value: &minijinja::Value,
) -> Result<(), minijinja::Error> {
    if matches!(state.auto_escape(), minijinja::AutoEscape::Html)
        && !value.is_safe()
        && let Some(text) = value.as_str()
    {
        let mut rest = text;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            out.write_str(&rest[..at])?;
            out.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#x27;",
            })?;
            rest = &rest[at + 1..];
        }
        return Ok(out.write_str(rest)?);
    }
    minijinja::escape_formatter(out, state, value)
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
    /// An answer to a player's mail: a receipt, an error, the status, help.
    Answer,
    /// Moves due soon: a digest over a player's games (clocks).
    Reminder,
    /// A seat is past its deadline, in grace (clocks).
    Grace,
    /// A seat ran out of time (clocks).
    Timeout,
    /// A player declared leave (clocks).
    Leave,
    /// A confirmation asked of a new address (alias or change of address), or
    /// the word that it was confirmed.
    Confirm,
    /// A mail from an unbound sender tried to act for the seat (to the seat's
    /// registered address, at most one an hour per seat).
    Sender,
    /// The steward's keys were rotated: the new fingerprint.
    KeyRotated,
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
            MailKind::Answer => "answer",
            MailKind::Reminder => "reminder",
            MailKind::Grace => "grace",
            MailKind::Timeout => "timeout",
            MailKind::Leave => "leave",
            MailKind::Confirm => "confirm",
            MailKind::Sender => "sender",
            MailKind::KeyRotated => "keys",
        }
    }
}

/// Failure to compose a mail: a template or address problem, never the player's.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    /// The template failed to render.
    #[error("template {0}: {1}")]
    Template(String, minijinja::Error),
    /// A queued letter's variables could not be written or read back.
    #[error("letter: {0}")]
    Context(String),
    /// lettre refused the message.
    #[error("message: {0}")]
    Message(#[from] lettre::error::Error),
    /// A recipient address is not valid.
    #[error("recipient {0:?} is not a mail address")]
    Address(String),
}

/// The Content-ID of the board image in an HTML part (`<img src="cid:board">`).
pub const BOARD_CID: &str = "board";

/// What a mail carries besides its plain text; `Extras::default()` for none.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// The HTML alternative's template (e.g. `turn.html`), rendered with the
    /// draft's variables plus `board_image` (whether `picture` is there).
    /// `None`: a plain-text mail.
    pub html: Option<&'static str>,
    /// The board picture, inline in the HTML part (Content-ID [`BOARD_CID`]):
    /// queued as a placeholder, put in by the outbox drainer. Ignored without
    /// `html`.
    pub picture: Option<BoardPicture>,
    /// The board as text, drawn from this source into the variables as `board`
    /// when the mail is formatted: by the outbox drainer for a queued mail, off
    /// the store thread.
    pub text_board: Option<Arc<PictureSource>>,
    /// The game's record, read from the store into the variables as `moves`
    /// and `record` when the mail is formatted (by the outbox drainer, off the
    /// store thread; see [`RecordQuery`]). Only a queued letter can have it.
    pub record: Option<RecordQuery>,
    /// Whether the variables get `forms` from the text board's position and
    /// side (the reader's), when the mail is formatted (off the store thread);
    /// needs `text_board`.
    pub forms: bool,
    /// A `Reply-To` header (the address replies should go to).
    pub reply_to: Option<Mailbox>,
    /// The player's mail this answers (Message-ID without angle brackets); it
    /// goes into `In-Reply-To` and `References` after the game's first mail.
    pub answers: Option<String>,
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
    /// The HTML alternative, the board image, Reply-To.
    pub extras: Extras,
}

fn message_id(from: &Mailbox, game: &GameId, turn: u32, seat: usize, kind: MailKind, extra: &str) -> String {
    format!("{game}.{turn}.{seat}.{}{extra}@{}", kind.as_str(), from.email.domain())
}

/// Renders `template` with `context` (a part of a mail's text, such as a
/// tournament's table in an answer).
///
/// # Errors
/// A template problem.
pub(crate) fn render(template: &str, context: &minijinja::Value) -> Result<String, ComposeError> {
    templates()
        .get_template(template)
        .and_then(|t| t.render(context))
        .map_err(|e| ComposeError::Template(template.to_owned(), e))
}

const AUTO_SUBMITTED: HeaderName = HeaderName::new_from_ascii_str("Auto-Submitted");
const AUTO_RESPONSE_SUPPRESS: HeaderName = HeaderName::new_from_ascii_str("X-Auto-Response-Suppress");
const LIST_ID: HeaderName = HeaderName::new_from_ascii_str("List-Id");

/// Marks a mail as the steward's automatic mail (issue 29): `Auto-Submitted:
/// auto-generated` (RFC 3834), so that well-behaved responders (vacation,
/// out-of-office) stay silent and no mail loop starts, and
/// `X-Auto-Response-Suppress: All`, which Exchange and Outlook heed instead.
fn automatic(builder: MessageBuilder) -> MessageBuilder {
    builder
        .raw_header(HeaderValue::new(AUTO_SUBMITTED, "auto-generated".to_owned()))
        .raw_header(HeaderValue::new(AUTO_RESPONSE_SUPPRESS, "All".to_owned()))
}

/// The `List-Id` of a game's mails (RFC 2919), so mail clients can filter a
/// game's mails into a folder: `Game 8KQ2ZJ <8kq2zj.games.steward.example>`,
/// under the domain of the steward's address `from`. There is no
/// `List-Unsubscribe`: a player does not leave their own game's mails.
fn list_id(game: &str, from: &str) -> String {
    let domain = from.rsplit_once('@').map_or(from, |(_, d)| d);
    format!("Game {game} <{}.games.{}>", game.to_ascii_lowercase(), domain.to_ascii_lowercase())
}

/// `Name <address>`, checked by the validator game creation uses
/// ([`crate::contact`]); a stored name is made safe whatever it holds.
fn recipient(name: &str, email: &str) -> Result<Mailbox, ComposeError> {
    let address = PlayerAddress::parse(email).map_err(|_| ComposeError::Address(email.to_owned()))?;
    Ok(address.mailbox(name))
}

/// The longest subject written, in characters; longer ones (say, `Re:` and a
/// player's subject) are cut with `…`. With names of at most
/// [`crate::contact::MAX_NAME_CHARS`] and addresses of at most
/// [`crate::contact::MAX_ADDRESS_CHARS`], this keeps every header line far below
/// RFC 5322's 998 octets, however lettre folds it.
pub const MAX_SUBJECT_CHARS: usize = 200;

/// The longest Message-ID of a player's mail referred to in `In-Reply-To`.
const MAX_ANSWERED_ID: usize = 250;

/// A subject for a header: one line, at most [`MAX_SUBJECT_CHARS`].
fn header_text(text: &str) -> String {
    let one_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let one_line = one_line.trim();
    if one_line.chars().count() <= MAX_SUBJECT_CHARS {
        return one_line.to_owned();
    }
    let mut cut: String = one_line.chars().take(MAX_SUBJECT_CHARS - 1).collect();
    cut.push('…');
    cut
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
    let (letter, mut row) = Letter::of(d, suffix)?;
    row.message = letter.format()?;
    Ok(row)
}

/// As [`compose_with_suffix`], but the mail is queued as its [`Letter`], to be
/// composed by the outbox drainer: what the templates and lettre cost is paid
/// off the store thread, once, before the mail's first handover. The
/// recipient's address is checked now.
///
/// # Errors
/// An address problem.
pub fn queue_with_suffix(d: Draft<'_>, suffix: &str) -> Result<OutboxRow, ComposeError> {
    // The letter keeps its text board's source; when that is the picture's
    // own, the store keeps no second copy (no `pictures` row on the move's
    // path): the drainer draws the picture from the letter.
    let letter_keeps_picture = match (&d.extras.picture, &d.extras.text_board) {
        (Some(p), Some(board)) => d.extras.html.is_some() && p.source.as_deref() == Some(board.as_ref()),
        _ => false,
    };
    let (letter, mut row) = Letter::of(d, suffix)?;
    row.letter = Some(letter.to_json()?);
    if let Some(p) = row.picture.as_mut().filter(|_| letter_keeps_picture) {
        p.source = None;
    }
    Ok(row)
}

/// As [`queue_with_suffix`] without a suffix.
///
/// # Errors
/// An address problem.
pub fn queue(d: Draft<'_>) -> Result<OutboxRow, ComposeError> {
    queue_with_suffix(d, "")
}

/// A mail as what to say, not yet its bytes: everything [`compose`] formats
/// it from, the template variables as JSON. The outbox keeps it (as JSON)
/// until its mail is sent; the drainer formats it ([`Letter::format`]) for each
/// handover, to the same bytes every time: a resend is byte for byte the first.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Letter {
    /// The game the mail belongs to, named in its `List-Id`. Letters queued
    /// before it existed have none, and no `List-Id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    game: Option<String>,
    from: Person,
    to: Person,
    subject: String,
    date: DateTime<Utc>,
    message_id: String,
    /// The game's first mail to the seat, which this one follows.
    thread_root: Option<String>,
    /// The player's mail this answers, checked.
    answers: Option<String>,
    reply_to: Option<Person>,
    template: String,
    html: Option<String>,
    /// The picture's content key, when the HTML shows it.
    picture: Option<String>,
    /// The text board's source ([`PictureSource::to_text`]), drawn into the
    /// variables as `board` when formatted. Letters queued before it existed
    /// have their board among the variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    board: Option<String>,
    /// The record, read when formatted into the variables as `moves` and
    /// `record`. Letters queued before it existed have their record among the
    /// variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    record: Option<RecordQuery>,
    /// Whether the variables get `forms`, the move forms the reader writes
    /// with examples from its legal moves, worked out from the text board's
    /// position and side when formatted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    forms: bool,
    /// The template variables, kept as the JSON they were written as: the
    /// letter is queued on the store's thread, so its variables are written
    /// straight to text there, never built into a JSON tree first.
    context: Box<serde_json::value::RawValue>,
}

impl Letter {
    /// The letter of `d` and the outbox row it goes in (with neither bytes nor
    /// letter yet).
    fn of(d: Draft<'_>, suffix: &str) -> Result<(Letter, OutboxRow), ComposeError> {
        let to = recipient(d.to_name, d.to_email)?;
        let id = message_id(d.from, d.game, d.turn, d.seat, d.kind, suffix);
        let thread_root =
            (d.kind != MailKind::Started).then(|| message_id(d.from, d.game, 0, d.seat, MailKind::Started, ""));
        // A player's Message-ID of any length would make one unfoldable line.
        let answers = d
            .extras
            .answers
            .filter(|a| a.len() <= MAX_ANSWERED_ID && a.chars().all(|c| c.is_ascii_graphic() && !"<>".contains(c)));
        let picture = d.extras.html.and(d.extras.picture);
        let context = serde_json::value::to_raw_value(&d.context).map_err(|e| ComposeError::Context(e.to_string()))?;
        let letter = Letter {
            game: Some(d.game.to_string()),
            from: Person::of(d.from),
            to: Person::of(&to),
            subject: header_text(&d.subject),
            date: d.date,
            message_id: id.clone(),
            thread_root,
            answers,
            reply_to: d.extras.reply_to.as_ref().map(Person::of),
            template: d.template.to_owned(),
            html: d.extras.html.map(str::to_owned),
            picture: picture.as_ref().map(|p| p.key.clone()),
            board: d.extras.text_board.as_deref().map(PictureSource::to_text),
            record: d.extras.record,
            forms: d.extras.forms && d.extras.text_board.is_some(),
            context,
        };
        let row = OutboxRow {
            id: 0,
            message_id: id,
            game_id: d.game.to_string(),
            recipient: d.to_email.to_owned(),
            subject: d.subject,
            message: Vec::new(),
            letter: None,
            sealed: false,
            picture,
        };
        Ok((letter, row))
    }

    fn to_json(&self) -> Result<String, ComposeError> {
        serde_json::to_string(self).map_err(|e| ComposeError::Context(e.to_string()))
    }

    /// The letter a queued row holds.
    ///
    /// # Errors
    /// The text is not a letter (written by another version, or damaged).
    pub fn from_json(text: &str) -> Result<Letter, ComposeError> {
        serde_json::from_str(text).map_err(|e| ComposeError::Context(format!("not a queued letter: {e}")))
    }

    /// The source of the letter's picture, when the letter keeps it (as its
    /// text board's source): its content key and the source.
    pub fn picture_source(&self) -> Option<(&str, PictureSource)> {
        let (key, board) = (self.picture.as_deref()?, self.board.as_deref()?);
        if BoardPicture::key_of(board) != key {
            return None;
        }
        Some((key, PictureSource::from_text(board).ok()?))
    }

    /// What the letter's record is read with, when it is read as the letter is
    /// formatted ([`Letter::format_with`]).
    pub fn record_query(&self) -> Option<&RecordQuery> {
        self.record.as_ref()
    }

    /// The mail's bytes (RFC 5322), with the picture's placeholder if it has one.
    ///
    /// # Errors
    /// A template or address problem; a letter whose record must be read
    /// ([`Letter::record_query`]: use [`Letter::format_with`]).
    pub fn format(&self) -> Result<Vec<u8>, ComposeError> {
        self.format_with(None)
    }

    /// [`Letter::format`], with the settled moves its [`Letter::record_query`]
    /// asks for (ignored when it asks for none).
    ///
    /// # Errors
    /// A template or address problem; a record query without `settled`.
    pub fn format_with(&self, settled: Option<Vec<SettledMove>>) -> Result<Vec<u8>, ComposeError> {
        let variables: serde_json::Value = serde_json::from_str(self.context.get())
            .map_err(|e| ComposeError::Context(format!("the letter's variables: {e}")))?;
        let mut context = minijinja::Value::from(minijinja::value::Serde(&variables));
        if let Some(query) = &self.record {
            let settled = settled
                .ok_or_else(|| ComposeError::Context("the game's record was not read for this letter".into()))?;
            let variables = query.variables(settled).map_err(|e| ComposeError::Context(format!("the record: {e}")))?;
            context = minijinja::context! { moves => variables.moves, record => variables.record, ..context };
        }
        if let Some(source) = &self.board {
            let source =
                PictureSource::from_text(source).map_err(|e| ComposeError::Context(format!("the text board: {e}")))?;
            let board = source.text().map_err(|e| ComposeError::Context(format!("the text board: {e}")))?;
            // The font size that fits the text board's widest line in a
            // 600-pixel mail window (issue 32): a monospace character is
            // about 0.62 of the font size wide, and about 500 pixels are left
            // inside the margins.
            let widest = board.lines().map(|l| l.chars().count()).max().unwrap_or(1).max(1);
            let board_font_px = (500.0 / (0.62 * widest as f64)).floor().clamp(6.0, 14.0) as u32;
            let legend = source.legend();
            context =
                minijinja::context! { board => board, board_font_px => board_font_px, legend => legend, ..context };
            if self.forms {
                context = minijinja::context! { forms => source.move_forms(), ..context };
            }
        }
        let body = render(&self.template, &context)?;
        let mut builder = Message::builder()
            .from(self.from.mailbox()?)
            .to(self.to.mailbox()?)
            .subject(self.subject.clone())
            .date(self.date.into())
            .message_id(Some(format!("<{}>", self.message_id)));
        builder = automatic(builder);
        if let Some(game) = &self.game {
            builder = builder.raw_header(HeaderValue::new(LIST_ID, list_id(game, &self.from.address)));
        }
        if let Some(reply_to) = &self.reply_to {
            builder = builder.reply_to(reply_to.mailbox()?);
        }
        if let Some(root) = &self.thread_root {
            let root = format!("<{root}>");
            match &self.answers {
                Some(theirs) => {
                    builder = builder.in_reply_to(format!("<{theirs}>")).references(format!("{root} <{theirs}>"))
                }
                None => builder = builder.in_reply_to(root.clone()).references(root),
            }
        }
        let message = match &self.html {
            None => builder.header(ContentType::TEXT_PLAIN).body(body)?,
            Some(name) => {
                let context = minijinja::context! { board_image => self.picture.is_some(), ..context };
                let html = render(name, &context)?;
                builder.multipart(alternative(&self.message_id, body, html, self.picture.as_deref()))?
            }
        };
        Ok(message.formatted())
    }
}

/// A mailbox as a letter keeps it: the name as it is, the address as text.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Person {
    name: Option<String>,
    address: String,
}

impl Person {
    fn of(mailbox: &Mailbox) -> Person {
        Person { name: mailbox.name.clone(), address: mailbox.email.to_string() }
    }

    fn mailbox(&self) -> Result<Mailbox, ComposeError> {
        let email = self.address.parse().map_err(|_| ComposeError::Address(self.address.clone()))?;
        Ok(Mailbox::new(self.name.clone(), email))
    }
}

/// The line that stands for the base64 body of the picture with content key
/// `key` (64 hex digits) in a queued mail. Only the last occurrence counts (see
/// [`put_picture`]). It is valid base64 itself (letters and digits, a multiple
/// of four long), so a queued mail still parses as MIME.
pub fn picture_placeholder(key: &str) -> String {
    format!("fairstewardboardpicture0{key}")
}

/// `message` with the picture `key` put in as the image part's base64 body, in
/// place of its placeholder; `None` if the message has no such placeholder.
///
/// The image part is the message's last part, so the placeholder sought is the
/// last one, on a line of its own right after the part's headers: a player's
/// text in an earlier part cannot stand in for it.
pub fn put_picture(message: &[u8], key: &str, png: &[u8]) -> Option<Vec<u8>> {
    let marker = format!("\r\n\r\n{}\r\n", picture_placeholder(key));
    let at = message.windows(marker.len()).rposition(|w| w == marker.as_bytes())?;
    // The same base64 lettre writes for an attachment: lines of 76, CRLF between.
    let body = Body::new_with_encoding(png.to_vec(), ContentTransferEncoding::Base64).ok()?.into_vec();
    let start = at + 4;
    let end = start + marker.len() - 6;
    let mut out = Vec::with_capacity(message.len() + body.len());
    out.extend_from_slice(&message[..start]);
    out.extend_from_slice(&body);
    out.extend_from_slice(&message[end..]);
    Some(out)
}

/// `text/plain` and `text/html` as alternatives, the HTML with the picture
/// inline (as its placeholder).
fn alternative(message_id: &str, text: String, html: String, picture: Option<&str>) -> MultiPart {
    // Stable boundaries: the same mail gives the same bytes. "=_" never occurs in
    // quoted-printable or base64 text, and the hash keeps them apart from any
    // 7bit body.
    let digest = ring::digest::digest(&ring::digest::SHA256, message_id.as_bytes());
    let tag: String = digest.as_ref()[..12].iter().map(|b| format!("{b:02x}")).collect();
    let alternative = MultiPart::alternative().boundary(format!("=_alt_{tag}")).singlepart(SinglePart::plain(text));
    match picture {
        None => alternative.singlepart(SinglePart::html(html)),
        Some(key) => {
            let placeholder =
                Body::dangerous_pre_encoded(picture_placeholder(key).into_bytes(), ContentTransferEncoding::Base64);
            alternative.multipart(
                MultiPart::related().boundary(format!("=_rel_{tag}")).singlepart(SinglePart::html(html)).singlepart(
                    Attachment::new_inline(BOARD_CID.to_owned())
                        .body(placeholder, ContentType::parse("image/png").expect("a MIME type")),
                ),
            )
        }
    }
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
    compose_digest_replying(d, None)
}

/// Renders and formats a digest mail with a `Reply-To` (a tournament's start
/// mail: the reply capability of one of its games, so that a reply acts).
///
/// # Errors
/// A template or address problem.
pub fn compose_digest_replying(d: DigestDraft<'_>, reply_to: Option<&Mailbox>) -> Result<OutboxRow, ComposeError> {
    let body = render(d.template, &d.context)?;
    let to = recipient(d.to_name, d.to_email)?;
    let id = format!("{}.{}@{}", d.kind.as_str(), d.key, d.from.email.domain());
    let message = Message::builder()
        .from(d.from.clone())
        .to(to)
        .subject(header_text(&d.subject))
        .date(d.date.into())
        .message_id(Some(format!("<{id}>")));
    let message = match reply_to {
        Some(r) => message.reply_to(r.clone()),
        None => message,
    };
    // A digest may cover several games: it belongs to no one game's list.
    let message = automatic(message).header(ContentType::TEXT_PLAIN).body(body)?;
    Ok(OutboxRow {
        id: 0,
        message_id: id,
        game_id: d.game,
        recipient: d.to_email.to_owned(),
        subject: d.subject,
        message: message.formatted(),
        letter: None,
        sealed: false,
        picture: None,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use mail_parser::MimeHeaders;

    use super::*;

    #[test]
    fn every_template_renders() {
        for name in [
            "turn.txt",
            "started.txt",
            "notice.txt",
            "turn.html",
            "started.html",
            "reminder.txt",
            "leave.txt",
            "digest.txt",
            "answer.txt",
        ] {
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
            extras: Extras::default(),
        };
        let a = compose(draft()).unwrap();
        let b = compose(draft()).unwrap();
        assert_eq!(a.message_id, "8KQ2ZJ.3.1.turn@steward.example");
        assert_eq!(a.message, b.message, "the same mail formats to the same bytes");
        let text = String::from_utf8(a.message).unwrap();
        assert!(text.contains("Message-ID: <8KQ2ZJ.3.1.turn@steward.example>"), "{text}");
        assert!(text.contains("In-Reply-To: <8KQ2ZJ.0.1.started@steward.example>"), "{text}");
    }

    /// A turn mail's variables, as the steward passes them (with a hostile name).
    fn turn_context() -> minijinja::Value {
        minijinja::context! {
            moves => vec![
                minijinja::context! { number => "1.", seat => "white", notation => "e4", status => "played" },
                minijinja::context! { number => "1...", seat => "black", notation => "Qh4", status => "struck", reason => "the queen was taken first" },
            ],
            record => vec!["1. e4 Qh4 (struck)"],
            ..turn_context_without_record()
        }
    }

    /// [`turn_context`] without `moves` and `record`, as a letter that reads
    /// its record when formatted is queued.
    fn turn_context_without_record() -> minijinja::Value {
        minijinja::context! {
            game => "8KQ2ZJ",
            variant => "fairschach",
            turn => 1,
            next_turn => 2,
            seat_name => "white",
            player => "Alice <script>alert(1)</script> & Co",
            notes => Vec::<String>::new(),
            board => "  8  r n b q k b n r  8\n  1  R N B Q K B N R  1",
            outcome => minijinja::Value::UNDEFINED,
            you_owe => true,
            to_move => "white and black",
            state => "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR s KQkq - - 0 2",
            public_url => "http://127.0.0.1:8080",
            trust => minijinja::context! { fingerprint => "SHA256:abcd", head_seq => 3, head_hash => "00ff", head_signature => "c2ln", auth => "token", secrecy => "hold" },
        }
    }

    /// A turn mail to Alice of game `game`, as the steward drafts it.
    pub(crate) fn board_draft<'a>(from: &'a Mailbox, game: &'a GameId, extras: Extras) -> Draft<'a> {
        Draft {
            from,
            game,
            turn: 1,
            seat: 0,
            kind: MailKind::Turn,
            to_name: "Alice",
            to_email: "alice@example.org",
            subject: "Game 8KQ2ZJ, turn 2: your move".into(),
            template: "turn.txt",
            context: turn_context(),
            date: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            extras,
        }
    }

    /// A 1×1 PNG.
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\0\x05\0\x01\xff\x89\x99=\x1d\0\0\0\0IEND\xaeB`\x82";

    #[test]
    fn a_board_mail_is_text_and_html_with_the_board_inline() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let picture = BoardPicture::new(crate::render::source::start_of(crate::rules::VariantId::Chess, 0, 640));
        let extras = || Extras {
            html: Some("turn.html"),
            picture: Some(picture.clone()),
            reply_to: Some("moves+8KQ2ZJ.0.2.mac@steward.example".parse().unwrap()),
            ..Extras::default()
        };
        let a = compose(board_draft(&from, &game, extras())).unwrap();
        let b = compose(board_draft(&from, &game, extras())).unwrap();
        assert_eq!(a.message, b.message, "stable boundaries: the same mail formats to the same bytes");
        assert_eq!(a.picture, Some(picture.clone()), "the row names the picture");
        assert!(!a.message.windows(4).any(|w| w == b"\x89PNG"), "no picture in the queued bytes");
        let queued = String::from_utf8(a.message.clone()).unwrap();
        assert!(queued.contains(&picture_placeholder(&picture.key)), "{queued}");
        use base64::Engine as _;
        let placeholder = base64::engine::general_purpose::STANDARD.decode(picture_placeholder(&picture.key));
        assert!(placeholder.is_ok(), "the queued mail parses as MIME: {placeholder:?}");
        let delivered = put_picture(&a.message, &picture.key, PNG).unwrap();
        assert_eq!(put_picture(&b.message, &picture.key, PNG).unwrap(), delivered, "the same bytes each time");
        assert!(
            put_picture(
                &a.message,
                &BoardPicture::new(crate::render::source::start_of(crate::rules::VariantId::Chess, 1, 640)).key,
                PNG
            )
            .is_none()
        );
        let text = String::from_utf8(delivered).unwrap();
        assert!(!text.contains("fairstewardboardpicture"), "{text}");
        assert!(text.contains("Reply-To: moves+8KQ2ZJ.0.2.mac@steward.example"), "{text}");
        assert!(text.contains("In-Reply-To: <8KQ2ZJ.0.0.started@steward.example>"), "{text}");

        let mail = mail_parser::MessageParser::default().parse(text.as_bytes()).unwrap();
        let kinds: Vec<String> = mail
            .parts
            .iter()
            .map(|p| {
                let ct = p.content_type().unwrap();
                format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or(""))
            })
            .collect();
        assert_eq!(kinds, ["multipart/alternative", "text/plain", "multipart/related", "text/html", "image/png"]);
        let plain = mail.body_text(0).unwrap();
        assert!(plain.contains("  1. white: e4 - played") && plain.contains("  1  R N B Q K B N R  1"), "{plain}");
        assert!(plain.contains("The game so far:") && plain.contains("\n  1. e4 Qh4 (struck)"), "{plain}");
        let html = mail.body_html(0).unwrap();
        assert!(html.contains(r#"<img src="cid:board""#), "{html}");
        assert!(
            !html.contains("<pre style=\"margin:0;padding:8px;background:#faf8f3"),
            "no text board beside the image: {html}"
        );
        assert!(html.contains("Alice &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co"), "the name is escaped: {html}");
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("the queen was taken first") && html.contains("struck"), "{html}");
        assert!(html.contains("Your move for turn 2"), "{html}");
        assert!(html.contains("POST http://127.0.0.1:8080/api/games/8KQ2ZJ/moves"), "the reply instructions: {html}");
        assert!(html.contains("&quot;turn&quot;: 2"), "escaped once, not twice: {html}");
        assert!(
            html.contains("Steward key fingerprint: SHA256:abcd") && html.contains("entry 3, sha256 00ff"),
            "{html}"
        );
        let image = &mail.parts[4];
        assert_eq!(image.content_id(), Some(BOARD_CID));
        assert_eq!(image.contents(), PNG);
    }

    #[test]
    fn a_picture_put_in_is_the_part_lettre_would_have_written() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let picture = BoardPicture::new(crate::render::source::start_of(crate::rules::VariantId::Chess, 0, 640));
        let extras = Extras { html: Some("turn.html"), picture: Some(picture.clone()), ..Extras::default() };
        let row = compose(board_draft(&from, &game, extras)).unwrap();
        // Many lines of base64, every byte value.
        let png: Vec<u8> = PNG.iter().copied().chain((0..5000u32).map(|i| (i * 7 % 256) as u8)).collect();
        let delivered = put_picture(&row.message, &picture.key, &png).unwrap();
        let part = Attachment::new_inline(BOARD_CID.to_owned())
            .body(png.clone(), ContentType::parse("image/png").unwrap())
            .formatted();
        assert!(delivered.windows(part.len()).any(|w| w == part), "the image part as lettre formats it");
        let mail = mail_parser::MessageParser::default().parse(&delivered).unwrap();
        assert_eq!(mail.parts[4].contents(), png);
        assert!(delivered.ends_with(&row.message[row.message.len() - 40..]), "the closing boundaries stay");
    }

    #[test]
    fn without_a_png_the_html_shows_the_text_board() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let row = compose(board_draft(&from, &game, Extras { html: Some("turn.html"), ..Extras::default() })).unwrap();
        let mail = mail_parser::MessageParser::default().parse(&row.message).unwrap();
        let kinds: Vec<String> =
            mail.parts.iter().map(|p| p.content_type().unwrap().subtype().unwrap_or("").to_owned()).collect();
        assert_eq!(kinds, ["alternative", "plain", "html"]);
        let html = mail.body_html(0).unwrap();
        assert!(!html.contains("cid:"), "{html}");
        assert!(html.contains("  1  R N B Q K B N R  1"), "{html}");
        assert!(!String::from_utf8_lossy(&row.message).contains("\r\nReply-To:"), "no Reply-To unless asked");
        if std::env::var_os("FAIRSTEWARD_PRINT_MAIL").is_some() {
            println!("{}", String::from_utf8_lossy(&row.message));
        }
    }

    /// The longest line of a formatted mail, in octets without the CRLF.
    fn longest_line(message: &[u8]) -> usize {
        message.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l).len()).max().unwrap_or(0)
    }

    #[test]
    fn every_header_stays_below_998_octets_and_a_name_cannot_add_lines() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let long_local = format!("{}@{}.example.org", "a".repeat(64), "b".repeat(63));
        let names = [
            "N".repeat(100),
            "Ärger ".repeat(16) + "Groß",
            "王".repeat(100),
            "\"quoted\" <angle> \\ back".repeat(4),
            // A name stored before names were checked.
            "Eve\r\nBcc: victim@example.org\r\n\r\nresign".to_owned(),
        ];
        let subjects = ["x".repeat(5000), "word ".repeat(1000), "Ä".repeat(3000), "Re: a\r\nBcc: x@y.org".to_owned()];
        for name in &names {
            for subject in &subjects {
                let draft = Draft {
                    to_name: name,
                    to_email: &long_local,
                    subject: subject.clone(),
                    extras: Extras { answers: Some("z".repeat(5000)), ..Extras::default() },
                    kind: MailKind::Answer,
                    ..board_draft(&from, &game, Extras::default())
                };
                let row = compose(draft).unwrap();
                assert!(longest_line(&row.message) < 998, "{}", String::from_utf8_lossy(&row.message));
                let text = String::from_utf8(row.message.clone()).unwrap();
                assert!(!text.contains("\r\nBcc:"), "no header injected: {text}");
                let mail = mail_parser::MessageParser::default().parse(&row.message).unwrap();
                let to = mail.to().and_then(|a| a.first()).unwrap();
                assert_eq!(to.address.as_deref(), Some(long_local.as_str()));
                assert!(mail.subject().unwrap().chars().count() <= MAX_SUBJECT_CHARS, "{:?}", mail.subject());
            }
        }
    }

    /// A letter keeps its variables as JSON: every template renders them
    /// read back exactly as it renders them as the steward passed them (none
    /// and undefined values, numbers, nested lists and maps included).
    #[test]
    fn variables_read_back_from_json_render_as_given() {
        let round_trip =
            |v: &minijinja::Value| minijinja::Value::from(minijinja::value::Serde(serde_json::to_value(v).unwrap()));
        let notice = minijinja::context! { game => "8KQ2ZJ", text => "hello", outcome => Option::<String>::None, trust => minijinja::Value::UNDEFINED };
        for (name, context) in [
            ("turn.txt", turn_context()),
            ("turn.html", minijinja::context! { board_image => true, ..turn_context() }),
            ("started.txt", turn_context()),
            ("started.html", minijinja::context! { board_image => false, ..turn_context() }),
            ("notice.txt", notice.clone()),
            ("answer.txt", notice),
        ] {
            assert_eq!(render(name, &round_trip(&context)).unwrap(), render(name, &context).unwrap(), "{name}");
        }
    }

    #[test]
    fn a_queued_letter_formats_to_the_bytes_composed_at_once() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let picture = BoardPicture::new(crate::render::source::start_of(crate::rules::VariantId::Chess, 0, 640));
        let drafts = || {
            vec![
                board_draft(
                    &from,
                    &game,
                    Extras {
                        html: Some("turn.html"),
                        picture: Some(picture.clone()),
                        text_board: Some(Arc::new(crate::render::source::start_of(
                            crate::rules::VariantId::Vierschach,
                            2,
                            800,
                        ))),
                        reply_to: Some("Fairsteward <moves+8KQ2ZJ.0.2.mac@steward.example>".parse().unwrap()),
                        answers: None,
                        record: None,
                        forms: false,
                    },
                ),
                board_draft(&from, &game, Extras { html: Some("turn.html"), ..Extras::default() }),
                Draft {
                    kind: MailKind::Started,
                    template: "started.txt",
                    ..board_draft(&from, &game, Extras::default())
                },
                Draft {
                    to_name: "王 \"quoted\" <angle> \\ Ärger",
                    kind: MailKind::Answer,
                    template: "answer.txt",
                    extras: Extras { answers: Some("theirs.1@mail.example".into()), ..Extras::default() },
                    ..board_draft(&from, &game, Extras::default())
                },
            ]
        };
        for (now, queued) in drafts().into_iter().zip(drafts()) {
            let now = compose_with_suffix(now, "-x").unwrap();
            let queued = queue_with_suffix(queued, "-x").unwrap();
            assert!(queued.message.is_empty(), "no bytes are queued with the letter");
            assert_eq!((&queued.message_id, &queued.picture), (&now.message_id, &now.picture));
            let letter = Letter::from_json(queued.letter.as_deref().unwrap()).unwrap();
            let later = letter.format().unwrap();
            assert_eq!(String::from_utf8_lossy(&later), String::from_utf8_lossy(&now.message));
        }
        assert!(Letter::from_json("{\"from\": 1}").is_err(), "a damaged letter is an error, not a panic");
    }

    /// A board mail queued with a record query reads its record when formatted:
    /// the same bytes as the mail composed at once with the record among its
    /// variables, in a two-seat and a four-seat game; only the record's own
    /// turns count, and a letter whose record was not read is an error.
    #[test]
    fn the_record_is_read_when_the_letter_is_formatted() {
        use crate::letters::record::{self, RecordQuery};
        use crate::rules::{Options, Seat, VariantId};
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let settled = |moves: &[(u32, u8, &str, &str)]| -> Vec<SettledMove> {
            moves
                .iter()
                .map(|&(turn, seat, notation, status)| SettledMove {
                    turn,
                    seat: Seat::new(seat),
                    notation: notation.to_owned(),
                    status: status.to_owned(),
                    reason: (status == "struck").then(|| "the queen was taken first".to_owned()),
                })
                .collect()
        };
        let fairschach = settled(&[(1, 0, "e4", "played"), (1, 1, "Qh4", "struck"), (2, 0, "Nf3", "played")]);
        let vierschach = settled(&[(1, 0, "e2-e4", "played"), (2, 1, "b5-c5", "played"), (3, 2, "e13-e12", "played")]);
        for (variant, reader, through, moves) in
            [(VariantId::Fairschach, 1u8, 1u32, fairschach), (VariantId::Vierschach, 0, 3, vierschach)]
        {
            let rules = variant.rulebook(&Options::new()).unwrap();
            let query = RecordQuery::new(&game, variant, &Options::new(), through, Seat::new(reader));
            // What the steward wrote into the variables before: the record of the turns so far.
            let so_far: Vec<SettledMove> = moves.iter().filter(|m| m.turn <= through).cloned().collect();
            let numbered = record::of_settled(rules.as_ref(), so_far);
            let context = minijinja::context! {
                moves => record::since_last(&numbered, Seat::new(reader)).iter().map(record::move_variables).collect::<Vec<_>>(),
                record => record::lines(&numbered, rules.seat_names().len()),
                ..turn_context_without_record()
            };
            let at_once = compose(Draft { context, ..board_draft(&from, &game, Extras::default()) }).unwrap();
            let queued = queue(Draft {
                context: turn_context_without_record(),
                ..board_draft(&from, &game, Extras { record: Some(query.clone()), ..Extras::default() })
            })
            .unwrap();
            let letter = Letter::from_json(queued.letter.as_deref().unwrap()).unwrap();
            assert_eq!(letter.record_query(), Some(&query));
            // The drainer reads every settled move up to the turn; later turns are left out.
            let later = letter.format_with(Some(moves.clone())).unwrap();
            assert_eq!(String::from_utf8_lossy(&later), String::from_utf8_lossy(&at_once.message), "{variant}");
            let text = String::from_utf8_lossy(&later);
            assert!(text.contains("The game so far:"), "{text}");
            let err = letter.format().unwrap_err();
            assert!(err.to_string().contains("record was not read"), "{err}");
        }
        let err = compose(board_draft(
            &from,
            &game,
            Extras {
                record: Some(RecordQuery::new(&game, VariantId::Chess, &Options::new(), 1, Seat::new(0))),
                ..Extras::default()
            },
        ))
        .unwrap_err();
        assert!(
            err.to_string().contains("record was not read"),
            "a mail composed at once cannot read its record: {err}"
        );
    }

    /// A queued board letter whose text board is its picture's source keeps
    /// that source for the drainer (the row asks the store for no copy); a
    /// mail formatted at once has no letter, so its row keeps the source.
    #[test]
    fn only_a_queued_letter_keeps_its_picture_source_itself() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let source = crate::render::source::start_of(crate::rules::VariantId::Chess, 0, 640);
        let picture = BoardPicture::new(source.clone());
        let extras = |text_board: Option<PictureSource>| Extras {
            html: Some("turn.html"),
            picture: Some(picture.clone()),
            text_board: text_board.map(Arc::new),
            ..Extras::default()
        };
        let queued = queue(board_draft(&from, &game, extras(Some(source.clone())))).unwrap();
        assert_eq!(
            queued.picture.as_ref().map(|p| (p.key.as_str(), p.source.is_none())),
            Some((picture.key.as_str(), true))
        );
        let letter = Letter::from_json(queued.letter.as_deref().unwrap()).unwrap();
        assert_eq!(letter.picture_source(), Some((picture.key.as_str(), source.clone())));
        let at_once = compose(board_draft(&from, &game, extras(Some(source.clone())))).unwrap();
        assert!(at_once.picture.unwrap().source.is_some(), "formatted at once: the store keeps the source");
        let other_board = crate::render::source::start_of(crate::rules::VariantId::Chess, 1, 640);
        let queued = queue(board_draft(&from, &game, extras(Some(other_board)))).unwrap();
        assert!(queued.picture.unwrap().source.is_some(), "another board: the store keeps the picture's source");
    }

    /// A letter that asks for the move forms gets them from its text board's
    /// position and side as it is formatted: the reader's forms, in its game's
    /// words, as the variant gives them; a letter that does not ask gets none.
    #[test]
    fn the_move_forms_are_worked_out_when_the_letter_is_formatted() {
        use crate::rules::{Options, Seat, VariantId};
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        for (variant, seat) in [(VariantId::Chess, 1u8), (VariantId::Vierschach, 3), (VariantId::Fairschach, 0)] {
            let source = crate::render::source::start_of(variant, seat, 640);
            let rules = variant.rulebook(&Options::new()).unwrap();
            let forms = rules.move_forms(&source.state, Seat::new(seat)).unwrap();
            let letter = |asks: bool| {
                let extras = Extras { text_board: Some(Arc::new(source.clone())), forms: asks, ..Extras::default() };
                let context = minijinja::context! { you_owe => true, ..turn_context() };
                let queued = queue(Draft { context, ..board_draft(&from, &game, extras) }).unwrap();
                let json = queued.letter.unwrap();
                assert!(!json.contains(&forms), "the letter keeps no forms");
                String::from_utf8(Letter::from_json(&json).unwrap().format().unwrap()).unwrap()
            };
            // Its start: a long line is wrapped (quoted-printable soft breaks).
            let first_line: String = forms.lines().next().unwrap().chars().take(30).collect();
            let first_line = first_line.as_str();
            let (asked, not_asked) = (letter(true), letter(false));
            assert!(asked.contains(first_line), "{variant}: {first_line:?} in\n{asked}");
            assert!(!not_asked.contains(first_line), "{variant}");
        }
    }

    /// The legend of `variant`'s text board, with its default options.
    fn source_legend(variant: crate::rules::VariantId) -> Vec<String> {
        variant.rulebook(&crate::rules::Options::new()).unwrap().legend()
    }

    /// The text board is drawn when the letter is formatted, from its source,
    /// seen from the source's seat; a source that draws nothing is an error
    /// naming it, which holds the letter back, not a mail without its board.
    #[test]
    fn the_text_board_is_drawn_from_its_source_when_formatted() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        let every = crate::rules::VariantId::ALL.map(|v| (v, 0));
        for (variant, seat) in
            [(crate::rules::VariantId::Chess, 1), (crate::rules::VariantId::Vierschach, 3)].into_iter().chain(every)
        {
            let legend = source_legend(variant);
            let source = crate::render::source::start_of(variant, seat, 640);
            let board = source.text().unwrap();
            let extras = Extras { html: Some("turn.html"), text_board: Some(Arc::new(source)), ..Extras::default() };
            let queued = queue(board_draft(&from, &game, extras)).unwrap();
            let json = queued.letter.unwrap();
            assert!(!json.contains(board.lines().next().unwrap()), "the letter keeps the source, not the board");
            let mail = Letter::from_json(&json).unwrap().format().unwrap();
            let parsed = mail_parser::MessageParser::default().parse(&mail).unwrap();
            let text = parsed.body_text(0).unwrap();
            let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
            let board_lines: Vec<&str> = board.lines().map(str::trim_end).collect();
            assert!(
                lines.windows(board_lines.len()).any(|w| w == board_lines),
                "{variant}: the board seen from seat {seat}\n{board}\nin\n{text}"
            );
            assert!(parsed.body_html(0).unwrap().contains(board.lines().nth(1).unwrap().trim()), "{variant}: HTML");
            // The legend stands under the board, in both parts (issue 32).
            for line in &legend {
                assert!(lines.contains(&format!("    {line}").as_str()), "{variant}: legend {line:?} in\n{text}");
            }
            assert!(parsed.body_html(0).unwrap().contains(&legend[1]), "{variant}: legend in the HTML");
        }
        let mut letter: serde_json::Value =
            serde_json::from_str(&queue(board_draft(&from, &game, Extras::default())).unwrap().letter.unwrap())
                .unwrap();
        letter["board"] = serde_json::Value::from("{\"variant\": \"no such game\"}");
        let err = Letter::from_json(&letter.to_string()).unwrap().format().unwrap_err();
        assert!(err.to_string().contains("the text board"), "{err}");
    }

    #[test]
    fn an_address_creation_refuses_is_refused_here_too() {
        let from: Mailbox = "Fairsteward <moves@steward.example>".parse().unwrap();
        let game: GameId = "8KQ2ZJ".parse().unwrap();
        for bad in ["\"john doe\"@example.org", "user@[192.0.2.1]", "jürgen@example.de"] {
            let draft = Draft { to_email: bad, ..board_draft(&from, &game, Extras::default()) };
            assert!(matches!(compose(draft), Err(ComposeError::Address(_))), "{bad}");
        }
    }
}
