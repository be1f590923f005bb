//! The invitation mail and the answers to replies: not about one game, so
//! composed here (templates `invitation.txt`, `invitation_answer.txt`) as
//! the reminder digests are, with the invitation's reply address.

use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use lettre::Message;
use lettre::message::Mailbox;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use minijinja::{Environment, context};
use ring::digest;

use super::{Invited, Steward, StewardError, internal};
use crate::contact::PlayerAddress;
use crate::ids::hex;
use crate::store::{InvitationRow, OutboxRow};

/// What an invitation is to.
pub(super) struct About {
    /// The tournament's or invited game's id.
    pub(super) id: String,
    /// In words.
    pub(super) to: String,
    /// The variant.
    pub(super) variant: String,
    /// The seat (games).
    pub(super) seat: Option<String>,
    /// The other players' names.
    pub(super) others: Vec<String>,
    /// Whether accepting needs a public key.
    pub(super) key_required: bool,
}

fn templates() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.add_template("invitation.txt", include_str!("../../../templates/invitation.txt"))
            .expect("embedded template parses");
        env.add_template("invitation_answer.txt", include_str!("../../../templates/invitation_answer.txt"))
            .expect("embedded template parses");
        env
    })
}

/// One plain-text mail to `to`, automatic (RFC 3834), replying to the
/// invitation's address.
#[allow(clippy::too_many_arguments)]
fn letter(
    steward: &Steward,
    message_id: String,
    about: &str,
    to_name: &str,
    to_email: &str,
    reply_to: Option<Mailbox>,
    in_reply_to: Option<&str>,
    subject: String,
    body: String,
    now: DateTime<Utc>,
) -> Result<OutboxRow, StewardError> {
    let to = PlayerAddress::parse(to_email).map_err(internal)?.mailbox(to_name);
    let mut builder = Message::builder()
        .from(steward.from.clone())
        .to(to)
        .subject(subject.clone())
        .date(now.into())
        .message_id(Some(format!("<{message_id}>")))
        .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("Auto-Submitted"), "auto-generated".into()))
        .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("X-Auto-Response-Suppress"), "All".into()));
    if let Some(r) = reply_to {
        builder = builder.reply_to(r);
    }
    if let Some(theirs) =
        in_reply_to.filter(|a| a.len() <= 250 && a.chars().all(|c| c.is_ascii_graphic() && !"<>".contains(c)))
    {
        builder = builder.in_reply_to(format!("<{theirs}>")).references(format!("<{theirs}>"));
    }
    let message = builder.header(ContentType::TEXT_PLAIN).body(body).map_err(internal)?;
    Ok(OutboxRow {
        id: 0,
        message_id,
        game_id: about.to_owned(),
        recipient: to_email.to_owned(),
        subject,
        message: message.formatted(),
        letter: None,
        sealed: false,
        picture: None,
    })
}

fn reply_address(steward: &Steward, id: i64, email: &str) -> Option<Mailbox> {
    let address =
        crate::protocol::capability::invitation_address(&steward.keys, steward.from.email.as_ref(), id, email)?;
    format!("{} <{address}>", steward.from.name.as_deref().unwrap_or("Fairsteward")).parse().ok()
}

/// The invitation mail of invitation `id` with its `token`.
pub(super) fn invitation(
    steward: &Steward,
    id: i64,
    token: &str,
    name: &str,
    email: &str,
    about: &About,
    now: DateTime<Utc>,
) -> Result<OutboxRow, StewardError> {
    let link = format!("{}/invitations/{token}", steward.public_url);
    let body = templates()
        .get_template("invitation.txt")
        .and_then(|t| {
            t.render(context! {
                name => name, to => &about.to, others => about.others.join(", "), link => link,
                key_required => about.key_required, id => &about.id,
            })
        })
        .map_err(internal)?;
    letter(
        steward,
        format!("invite.{id}@{}", steward.from.email.domain()),
        &about.id,
        name,
        email,
        reply_address(steward, id, email),
        None,
        format!("Invitation to {}", about.to),
        body,
        now,
    )
}

/// The answer to a reply to invitation `row`, to its invited address.
pub(super) fn answer(
    steward: &Steward,
    row: &InvitationRow,
    what: &Invited,
    to: &super::super::AnswerTo,
    text: &str,
    now: DateTime<Utc>,
) -> Result<OutboxRow, StewardError> {
    let id = match what {
        Invited::Tournament(t) => t.to_string(),
        Invited::Game(g) => g.clone(),
    };
    let key = to.message_id.clone().unwrap_or_else(|| text.to_owned());
    let suffix = &hex(digest::digest(&digest::SHA256, key.as_bytes()).as_ref())[..12];
    let body = templates()
        .get_template("invitation_answer.txt")
        .and_then(|t| t.render(context! { text => text, id => &id }))
        .map_err(internal)?;
    let subject = if to.subject.trim().is_empty() {
        format!("Invitation to {id}: your answer")
    } else if to.subject.trim_start().to_ascii_lowercase().starts_with("re:") {
        to.subject.trim().chars().take(200).collect()
    } else {
        format!("Re: {}", to.subject.trim().chars().take(200).collect::<String>())
    };
    letter(
        steward,
        format!("invite.{}.answer-{suffix}@{}", row.id, steward.from.email.domain()),
        &id,
        row.name.as_deref().unwrap_or_default(),
        &row.email,
        reply_address(steward, row.id, &row.email),
        to.message_id.as_deref(),
        subject,
        body,
        now,
    )
}
