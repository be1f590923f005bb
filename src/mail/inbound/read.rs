//! Reading one raw mail: headers, the recipients a capability may hide in, whether
//! it is automatic mail, the body text and what it asks for.
//!
//! mail-parser does the RFC 5322 and MIME work (transfer encodings, charsets
//! including ISO-8859-1 and Windows-1252, encoded words) and never panics. On top
//! of it this module chooses the body (text/plain first; text from HTML when there
//! is none, or when it is blank), unwraps `format=flowed` (RFC 3676, with `DelSp`),
//! and normalises line ends to `\n`.

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};

use mail_parser::decoders::charsets::map::charset_decoder;
use mail_parser::{Address, Encoding, HeaderValue, Message, MessageParser, MessagePart, MimeHeaders, PartType};
use serde::Serialize;

use super::fresh::fresh_text;
use super::html::html_to_text;
use super::intent::{Intent, intent, subject_added};
use crate::rules::DynVariant;

/// A mail's sender (the `From` header).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sender {
    /// The address, as written.
    pub address: String,
    /// The display name, if any.
    pub name: Option<String>,
}

/// Why a mail must never be answered (loop protection, RFC 3834 and RFC 3464).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum AutoReason {
    /// A `multipart/report`: a delivery status notification (bounce) or a read
    /// receipt; the value is its `report-type`.
    Report(String),
    /// `Return-Path: <>`: the null sender of bounces and notifications.
    EmptyReturnPath,
    /// Sent by `MAILER-DAEMON` or `postmaster`: the address.
    DaemonSender(String),
    /// `Auto-Submitted` other than `no`, or the older `X-Autoreply`/`X-Autorespond`:
    /// the header as `name: value`.
    AutoSubmitted(String),
    /// `Precedence: bulk`, `junk`, `list` or `auto_reply`: the value.
    Precedence(String),
    /// A mailing list's mail (`List-Id`, `List-Post` or `List-Unsubscribe`): the
    /// header's name.
    List(String),
    /// A subject that only responders write (`Automatic reply:`, `Out of Office`,
    /// `Abwesenheitsnotiz`, `Undeliverable:` …): the subject.
    Subject(String),
}

impl fmt::Display for AutoReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutoReason::Report(t) => write!(f, "a report ({t})"),
            AutoReason::EmptyReturnPath => f.write_str("an empty Return-Path"),
            AutoReason::DaemonSender(a) => write!(f, "sent by {a}"),
            AutoReason::AutoSubmitted(h) => write!(f, "automatic ({h})"),
            AutoReason::Precedence(p) => write!(f, "Precedence: {p}"),
            AutoReason::List(h) => write!(f, "list mail ({h})"),
            AutoReason::Subject(s) => write!(f, "an automatic reply's subject ({s:?})"),
        }
    }
}

/// A mail that could not be read at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// No bytes, or only white space.
    #[error("the mail is empty")]
    Empty,
    /// No header could be read.
    #[error("not a mail: no header could be read")]
    NotAMail,
}

/// What a mail says, as far as the steward cares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReadMail {
    /// The Message-ID, without angle brackets.
    pub message_id: Option<String>,
    /// The sender.
    pub from: Option<Sender>,
    /// Every address the mail was sent or delivered to, in this order and without
    /// duplicates (compared case-insensitively): `To`, `Cc`, `Delivered-To`,
    /// `X-Original-To`, `Envelope-To`, `X-Envelope-To`. The reply capability
    /// (`moves+<game>.<seat>.<turn>.<mac>@…`) is looked for among them.
    pub recipients: Vec<String>,
    /// The subject, decoded; empty if none.
    pub subject: String,
    /// `In-Reply-To` message ids, without angle brackets.
    pub in_reply_to: Vec<String>,
    /// `References` message ids, without angle brackets.
    pub references: Vec<String>,
    /// Why this mail must never be answered; None for a person's mail.
    pub automatic: Option<AutoReason>,
    /// The body text: text/plain (or text from HTML), decoded, `\n` line ends,
    /// format=flowed unwrapped.
    pub text: String,
    /// The sender's own text: [`ReadMail::text`] without quotes, attribution
    /// lines, forwarded or original messages, signatures and PGP armor.
    pub fresh: String,
    /// Whether the body was badly encoded (mail-parser decoded it as best it could).
    pub garbled: bool,
    /// Whether a whole mail is attached (`message/rfc822`): a forward.
    pub attached_message: bool,
}

impl ReadMail {
    /// What the mail asks for (see [`mod@super::intent`]), read for `game`: its id
    /// (to find what the sender added to our subject) and its variant, which says
    /// what move text is. Without a game only envelopes and commands are read.
    pub fn intent(&self, game: Option<(&str, &dyn DynVariant)>) -> Intent {
        let (added, variant) = match game {
            Some((id, variant)) => (subject_added(&self.subject, id), Some(variant)),
            None => ("", None),
        };
        let found = intent(&self.fresh, &self.text, added, variant);
        if found == Intent::Empty && self.attached_message { Intent::Forwarded } else { found }
    }
}

/// Reads a raw RFC 5322 mail. Never panics; any mail with a header gives a reading.
///
/// # Errors
/// [`ReadError::Empty`] for no bytes, [`ReadError::NotAMail`] when no header can be read.
pub fn read_mail(raw: &[u8]) -> Result<ReadMail, ReadError> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(ReadError::Empty);
    }
    let msg = MessageParser::default().parse(raw).ok_or(ReadError::NotAMail)?;
    if msg.headers().is_empty() {
        return Err(ReadError::NotAMail);
    }
    // Only the headers read raw below are unfolded and copied (not a 10 MB `To`).
    let raw_headers: Vec<(String, String)> = msg
        .headers_raw()
        .filter(|(name, _)| RAW_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(name)))
        .map(|(name, value)| (name.to_ascii_lowercase(), unfold(value)))
        .collect();
    let from = msg.from().and_then(Address::first).and_then(|a| {
        Some(Sender {
            address: a.address.as_deref()?.trim().to_owned(),
            name: a.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned),
        })
    });
    let subject = msg.subject().unwrap_or_default().trim().to_owned();
    let automatic = automatic(&msg, &raw_headers, from.as_ref(), &subject);
    let (text, garbled) = body_text(&msg);
    let fresh = fresh_text(&text);
    let attached_message = has_attached_message(&msg);
    Ok(ReadMail {
        message_id: msg.message_id().map(|id| id.trim().to_owned()).filter(|id| !id.is_empty()),
        from,
        recipients: recipients(&msg, &raw_headers),
        subject,
        in_reply_to: ids(msg.in_reply_to()),
        references: ids(msg.references()),
        automatic,
        text,
        fresh,
        garbled,
        attached_message,
    })
}

/// The headers read from their raw text (lower case): delivery addresses and the
/// marks of automatic mail.
const RAW_HEADERS: &[&str] = &[
    "delivered-to",
    "x-original-to",
    "envelope-to",
    "x-envelope-to",
    "return-path",
    "auto-submitted",
    "x-autoreply",
    "x-autorespond",
    "x-autoresponder",
    "precedence",
    "list-id",
    "list-post",
    "list-unsubscribe",
];

/// An address compared and hashed without regard to ASCII case, borrowed from
/// the mail (no copy per address).
#[derive(Clone, Copy)]
struct Caseless<'a>(&'a str);

impl PartialEq for Caseless<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_ignore_ascii_case(other.0)
    }
}

impl Eq for Caseless<'_> {}

impl Hash for Caseless<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for b in self.0.bytes() {
            state.write_u8(b.to_ascii_lowercase());
        }
        state.write_u8(0xff);
    }
}

/// A raw header value unfolded and trimmed.
fn unfold(value: &str) -> String {
    value.split(['\r', '\n']).map(str::trim).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
}

fn raw_values<'a>(raw_headers: &'a [(String, String)], name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    raw_headers.iter().filter(move |(n, _)| n == name).map(|(_, v)| v.as_str())
}

fn ids(value: &HeaderValue<'_>) -> Vec<String> {
    let clean = |s: &str| s.trim().trim_start_matches('<').trim_end_matches('>').to_owned();
    match value {
        HeaderValue::Text(id) => vec![clean(id)],
        HeaderValue::TextList(list) => list.iter().map(|id| clean(id)).collect(),
        _ => Vec::new(),
    }
    .into_iter()
    .filter(|id| !id.is_empty())
    .collect()
}

/// The recipients in order without duplicates. A set of the addresses seen keeps
/// this linear: a mail can name hundreds of thousands of addresses in one header,
/// and comparing each with all before it took minutes.
fn recipients<'a>(msg: &'a Message<'a>, raw_headers: &'a [(String, String)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<Caseless<'a>> = HashSet::new();
    let mut add = |address: &'a str| {
        let address = address.trim().trim_start_matches('<').trim_end_matches('>').trim();
        if address.contains('@') && seen.insert(Caseless(address)) {
            out.push(address.to_owned());
        }
    };
    for list in msg.all_to().chain(msg.all_cc()) {
        for addr in list.iter() {
            if let Some(a) = addr.address.as_deref() {
                add(a);
            }
        }
    }
    for name in ["delivered-to", "x-original-to", "envelope-to", "x-envelope-to"] {
        for value in raw_values(raw_headers, name) {
            for part in value.split([',', ' ']) {
                add(part);
            }
        }
    }
    out
}

/// Why the mail is automatic, checked in the order of [`AutoReason`]'s variants.
fn automatic(
    msg: &Message<'_>,
    raw_headers: &[(String, String)],
    from: Option<&Sender>,
    subject: &str,
) -> Option<AutoReason> {
    if let Some(ct) = msg.content_type()
        && ct.ctype().eq_ignore_ascii_case("multipart")
        && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("report"))
    {
        return Some(AutoReason::Report(ct.attribute("report-type").unwrap_or("unknown").to_ascii_lowercase()));
    }
    if raw_values(raw_headers, "return-path").any(|v| v.replace(' ', "").trim_matches(['<', '>']).is_empty()) {
        return Some(AutoReason::EmptyReturnPath);
    }
    let daemon = |address: &str| {
        let local = address.trim().trim_start_matches('<').split('@').next().unwrap_or_default();
        local.eq_ignore_ascii_case("mailer-daemon") || local.eq_ignore_ascii_case("postmaster")
    };
    if let Some(sender) = from.filter(|s| daemon(&s.address)) {
        return Some(AutoReason::DaemonSender(sender.address.clone()));
    }
    if let Some(path) = raw_values(raw_headers, "return-path").find(|v| daemon(v)) {
        return Some(AutoReason::DaemonSender(path.trim_matches(['<', '>']).to_owned()));
    }
    for name in ["auto-submitted", "x-autoreply", "x-autorespond", "x-autoresponder"] {
        if let Some(value) = raw_values(raw_headers, name).find(|v| {
            // `Auto-Submitted` is automatic unless it says `no`; the older
            // headers count when they say anything but `no`.
            let v = v.split(';').next().unwrap_or_default().trim();
            !v.eq_ignore_ascii_case("no") && (name == "auto-submitted" || !v.is_empty())
        }) {
            let shown = match name {
                "auto-submitted" => "Auto-Submitted",
                "x-autoreply" => "X-Autoreply",
                "x-autorespond" => "X-Autorespond",
                _ => "X-Autoresponder",
            };
            return Some(AutoReason::AutoSubmitted(format!("{shown}: {value}")));
        }
    }
    if let Some(value) = raw_values(raw_headers, "precedence")
        .map(|v| v.trim().to_ascii_lowercase())
        .find(|v| matches!(v.as_str(), "bulk" | "junk" | "list" | "auto_reply"))
    {
        return Some(AutoReason::Precedence(value));
    }
    for (name, shown) in [("list-id", "List-Id"), ("list-post", "List-Post"), ("list-unsubscribe", "List-Unsubscribe")]
    {
        if raw_values(raw_headers, name).next().is_some() {
            return Some(AutoReason::List(shown.to_owned()));
        }
    }
    let lower = subject.to_lowercase();
    const SUBJECTS: &[&str] = &[
        "automatic reply:",
        "autoreply:",
        "auto-reply:",
        "auto:",
        "out of office",
        "automatische antwort:",
        "abwesenheitsnotiz",
        "réponse automatique",
        "respuesta automática",
        "undeliverable:",
        "unzustellbar:",
        "undelivered mail returned to sender",
        "delivery status notification",
        "mail delivery failed",
        "returned mail:",
    ];
    if SUBJECTS.iter().any(|s| lower.starts_with(s)) {
        return Some(AutoReason::Subject(subject.to_owned()));
    }
    None
}

/// The chosen body text and whether its encoding was damaged.
fn body_text(msg: &Message<'_>) -> (String, bool) {
    let mut text = String::new();
    let mut garbled = false;
    for &id in &msg.text_body {
        let Some(part) = msg.parts.get(id as usize) else { continue };
        if let PartType::Text(t) = &part.body {
            let ct = part.content_type();
            let attr = |name: &str| ct.and_then(|c| c.attribute(name)).unwrap_or_default().to_ascii_lowercase();
            let t = match undeclared_8bit(msg, part, t) {
                Some(latin) => normalise_newlines(&latin),
                None => normalise_newlines(t),
            };
            let t = if attr("format") == "flowed" { unflow(&t, attr("delsp") == "yes") } else { t };
            push_part(&mut text, &t);
            garbled |= part.is_encoding_problem;
        }
    }
    if text.trim().is_empty() {
        text.clear();
        garbled = false;
        for &id in &msg.html_body {
            let Some(part) = msg.parts.get(id as usize) else { continue };
            if let PartType::Html(h) = &part.body {
                push_part(&mut text, &html_to_text(h));
                garbled |= part.is_encoding_problem;
            }
        }
    }
    (text, garbled)
}

/// A text part sent as raw 8-bit bytes without a `charset` that are not UTF-8
/// (old clients and scripts writing Latin-1): its bytes read as Windows-1252, the
/// superset of ISO-8859-1 that mail-parser uses for both. None if that is not the
/// case, and mail-parser's reading stands.
fn undeclared_8bit(msg: &Message<'_>, part: &MessagePart<'_>, decoded: &str) -> Option<String> {
    if !decoded.contains('\u{fffd}')
        || part.encoding != Encoding::None
        || part.content_type().and_then(|c| c.attribute("charset")).is_some()
    {
        return None;
    }
    let raw = msg.raw_message.get(part.offset_body as usize..part.offset_end as usize)?;
    if std::str::from_utf8(raw).is_ok() {
        return None;
    }
    charset_decoder(b"windows-1252").map(|decode| decode(raw))
}

fn push_part(text: &mut String, part: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(part);
}

fn normalise_newlines(t: &str) -> String {
    t.replace("\r\n", "\n").replace('\r', "\n")
}

/// Whether the mail carries another mail (`message/rfc822`), as forwarding as an
/// attachment does; a report's returned message does not count.
fn has_attached_message(msg: &Message<'_>) -> bool {
    msg.parts.iter().any(|p| matches!(p.body, PartType::Message(_)))
}

/// Unwraps `format=flowed` text (RFC 3676): a line ending in a space continues on
/// the next line of the same quote depth; space-stuffing is undone; with `delsp`
/// the trailing space is removed too. Quoted lines come out as `> ` + text.
fn unflow(text: &str, delsp: bool) -> String {
    let mut out = String::new();
    let mut open: Option<(usize, String)> = None;
    let flush = |out: &mut String, depth: usize, line: &str| {
        for _ in 0..depth {
            out.push('>');
        }
        if depth > 0 && !line.is_empty() {
            out.push(' ');
        }
        out.push_str(line);
        out.push('\n');
    };
    let body = text.strip_suffix('\n').unwrap_or(text);
    for line in body.split('\n') {
        let depth = line.bytes().take_while(|&b| b == b'>').count();
        let content = &line[depth..];
        let content = content.strip_prefix(' ').unwrap_or(content);
        let flowed = content.ends_with(' ') && content != "-- ";
        if let Some((d, para)) = open.take_if(|(d, _)| *d != depth) {
            flush(&mut out, d, &para);
        }
        let piece = if flowed && delsp { &content[..content.len() - 1] } else { content };
        let (_, para) = open.get_or_insert_with(|| (depth, String::new()));
        para.push_str(piece);
        if !flowed && let Some((d, para)) = open.take() {
            flush(&mut out, d, &para);
        }
    }
    if let Some((d, para)) = open {
        flush(&mut out, d, &para);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flowed_lines_join_within_a_quote_depth() {
        let text = "My move: \nNg5\n> Your move, \n> please.\n>> old \nnew\n-- \nsig\n";
        assert_eq!(unflow(text, false), "My move: Ng5\n> Your move, please.\n>> old \nnew\n-- \nsig\n");
        assert_eq!(unflow("Knight to \ng5\n", true), "Knight tog5\n");
        assert_eq!(unflow(" From here\n", false), "From here\n");
    }

    #[test]
    fn empty_and_garbage() {
        assert_eq!(read_mail(b""), Err(ReadError::Empty));
        assert_eq!(read_mail(b" \r\n\t"), Err(ReadError::Empty));
    }

    #[test]
    fn a_minimal_mail() {
        let raw = b"From: Bob <bob@example.org>\r\nTo: moves+8KQ2ZJ.black.3.ab12@steward.example\r\n\
                    Delivered-To: moves@steward.example\r\nMessage-ID: <x1@example.org>\r\n\
                    In-Reply-To: <8KQ2ZJ.2.1.turn@steward.example>\r\nSubject: Re: Game 8KQ2ZJ\r\n\r\nNf6\r\n";
        let r = read_mail(raw).unwrap();
        assert_eq!(r.from, Some(Sender { address: "bob@example.org".into(), name: Some("Bob".into()) }));
        assert_eq!(r.recipients, ["moves+8KQ2ZJ.black.3.ab12@steward.example", "moves@steward.example"]);
        assert_eq!(r.message_id.as_deref(), Some("x1@example.org"));
        assert_eq!(r.in_reply_to, ["8KQ2ZJ.2.1.turn@steward.example"]);
        assert_eq!(r.subject, "Re: Game 8KQ2ZJ");
        assert_eq!(r.automatic, None);
        assert_eq!(r.intent(Some(("8KQ2ZJ", &crate::rules::chess::Chess))), Intent::Move("Nf6".into()));
    }

    #[test]
    fn undeclared_latin1_is_read_as_windows_1252() {
        let raw = b"From: j@example.de\r\nSubject: x\r\n\r\nRemis angenommen.\r\nGr\xfc\xdfe, J\xfcrgen\r\n";
        let r = read_mail(raw).unwrap();
        assert_eq!(r.text, "Remis angenommen.\nGr\u{fc}\u{df}e, J\u{fc}rgen\n");
        assert_eq!(r.intent(None), Intent::AcceptDraw);
        // Declared UTF-8 stays as mail-parser read it.
        let raw = b"From: j@example.de\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nGr\xfc\xdfe\r\n";
        assert!(read_mail(raw).unwrap().text.contains('\u{fffd}'));
    }

    #[test]
    fn automatic_mail_is_recognised() {
        let with = |h: &str| {
            read_mail(format!("From: a@b.c\r\n{h}\r\nSubject: x\r\n\r\nhello\r\n").as_bytes()).unwrap().automatic
        };
        assert_eq!(
            with("Auto-Submitted: auto-replied"),
            Some(AutoReason::AutoSubmitted("Auto-Submitted: auto-replied".into()))
        );
        assert_eq!(with("Auto-Submitted: no"), None);
        assert_eq!(with("Precedence: Bulk"), Some(AutoReason::Precedence("bulk".into())));
        assert_eq!(with("Precedence: first-class"), None);
        assert_eq!(with("Return-Path: <>"), Some(AutoReason::EmptyReturnPath));
        assert_eq!(with("Return-Path: <a@b.c>"), None);
        assert_eq!(with("List-Id: <chess.lists.example>"), Some(AutoReason::List("List-Id".into())));
        assert_eq!(with("X-Autoreply: yes"), Some(AutoReason::AutoSubmitted("X-Autoreply: yes".into())));
        let daemon = read_mail(b"From: MAILER-DAEMON@mx.example\r\n\r\nx\r\n").unwrap().automatic;
        assert_eq!(daemon, Some(AutoReason::DaemonSender("MAILER-DAEMON@mx.example".into())));
    }
}
