//! Finding what a reply encrypted to the steward holds (issue 33), and reading
//! the opened message in the outer mail's place. Pure: the door opens the
//! ciphertext with the steward's keys ([`crate::protocol::openpgp::decrypt`]).
//!
//! Two shapes, as mail clients send them:
//!
//! * **PGP/MIME** (RFC 3156; Thunderbird, K-9/FairEmail with OpenKeychain,
//!   mutt, Evolution, GPG Suite): `multipart/encrypted;
//!   protocol="application/pgp-encrypted"`, whose second part
//!   (`application/octet-stream`) is the armoured message. Its plaintext is a
//!   MIME entity: a `text/plain` part, or a `multipart/mixed` with protected
//!   headers (`Subject` and others inside, the outer subject `...`).
//! * **Inline PGP**: a `-----BEGIN PGP MESSAGE-----` block in a `text/plain`
//!   body; its plaintext is the reply's text.
//!
//! The opened reply is read as a plain reply: its text for the move or command,
//! the outer mail's headers for who sent it and to which reply address (a
//! protected `Subject` replaces the outer one when that is a placeholder).

use mail_parser::{MessageParser, MimeHeaders};

use super::fresh::fresh_text;
use super::read::{ReadMail, read_mail};

/// The most MIME parts looked at for the encrypted one.
const MAX_PARTS: usize = 64;

/// The ciphertext a reply carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Encrypted {
    /// The second part of a `multipart/encrypted` mail (armoured or binary).
    PgpMime(Vec<u8>),
    /// An inline `-----BEGIN PGP MESSAGE-----` block (armoured).
    Inline(Vec<u8>),
}

impl Encrypted {
    /// The ciphertext.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Encrypted::PgpMime(b) | Encrypted::Inline(b) => b,
        }
    }
}

const BEGIN: &str = "-----BEGIN PGP MESSAGE-----";
const END: &str = "-----END PGP MESSAGE-----";

/// The encrypted content of `raw`, read as `mail`: `None` for a mail that is not
/// encrypted.
pub fn find_encrypted(raw: &[u8], mail: &ReadMail) -> Option<Encrypted> {
    if let Some(msg) = MessageParser::default().parse(raw) {
        let encrypted = msg.content_type().is_some_and(|ct| {
            ct.ctype().eq_ignore_ascii_case("multipart")
                && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("encrypted"))
        });
        if encrypted {
            let part = msg.parts.iter().take(MAX_PARTS).skip(1).find(|p| {
                p.content_type().is_some_and(|ct| {
                    ct.ctype().eq_ignore_ascii_case("application")
                        && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("octet-stream"))
                })
            });
            // A multipart/encrypted without its octet-stream part: an empty
            // ciphertext, refused as garbled.
            return Some(Encrypted::PgpMime(part.map(|p| p.contents().to_vec()).unwrap_or_default()));
        }
    }
    // Inline: the first block that is not quoted.
    let text = &mail.text;
    let mut from = 0;
    while let Some(at) = text[from..].find(BEGIN).map(|i| from + i) {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let quoted = text[line_start..at].trim_start().starts_with('>');
        let end = text[at..].find(END).map(|i| at + i + END.len());
        match end {
            Some(end) if !quoted => return Some(Encrypted::Inline(text.as_bytes()[at..end].to_vec())),
            Some(end) => from = end,
            None if !quoted => return Some(Encrypted::Inline(text.as_bytes()[at..].to_vec())),
            None => break,
        }
    }
    None
}

/// `outer` read with what its encrypted content opened to (`plain`).
pub fn opened(outer: &ReadMail, found: &Encrypted, plain: &[u8]) -> ReadMail {
    let mut mail = outer.clone();
    let inner = match found {
        Encrypted::PgpMime(_) => read_mail(plain).ok().filter(|m| !m.text.trim().is_empty()),
        Encrypted::Inline(_) => None,
    };
    match inner {
        Some(inner) => {
            let placeholder = matches!(outer.subject.trim(), "" | "..." | "…" | "Encrypted Message" | "[...]");
            if placeholder && !inner.subject.is_empty() {
                mail.subject = inner.subject;
            }
            mail.text = inner.text;
            mail.fresh = inner.fresh;
            mail.garbled = inner.garbled;
            mail.attached_message = inner.attached_message;
        }
        None => {
            let text = String::from_utf8_lossy(plain).replace("\r\n", "\n").replace('\r', "\n");
            mail.fresh = fresh_text(&text);
            mail.text = text;
            mail.garbled = false;
            mail.attached_message = false;
        }
    }
    mail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgp_mime_and_inline_are_found_and_quoted_blocks_are_not() {
        let mime = b"From: a@example.org\r\nSubject: ...\r\nMIME-Version: 1.0\r\nContent-Type: multipart/encrypted; protocol=\"application/pgp-encrypted\"; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n\r\n--b\r\nContent-Type: application/octet-stream; name=\"encrypted.asc\"\r\n\r\n-----BEGIN PGP MESSAGE-----\r\n\r\nabc\r\n-----END PGP MESSAGE-----\r\n\r\n--b--\r\n";
        let read = read_mail(mime).unwrap();
        let found = find_encrypted(mime, &read).unwrap();
        assert!(matches!(&found, Encrypted::PgpMime(b) if b.starts_with(b"-----BEGIN PGP MESSAGE-----")));
        let inline = b"From: a@example.org\r\nSubject: Re: x\r\n\r\n-----BEGIN PGP MESSAGE-----\r\n\r\nabc\r\n-----END PGP MESSAGE-----\r\n";
        let read = read_mail(inline).unwrap();
        assert!(matches!(find_encrypted(inline, &read), Some(Encrypted::Inline(_))));
        let quoted = b"From: a@example.org\r\nSubject: Re: x\r\n\r\nNf3\r\n> -----BEGIN PGP MESSAGE-----\r\n> abc\r\n> -----END PGP MESSAGE-----\r\n";
        let read = read_mail(quoted).unwrap();
        assert_eq!(find_encrypted(quoted, &read), None);
        let opened = opened(&read, &Encrypted::Inline(Vec::new()), b"e4\r\n");
        assert_eq!(opened.fresh.trim(), "e4");
    }

    #[test]
    fn protected_headers_replace_a_placeholder_subject() {
        let outer = read_mail(b"From: a@example.org\r\nSubject: ...\r\n\r\nx\r\n").unwrap();
        let inner = b"Content-Type: multipart/mixed; boundary=\"i\"; protected-headers=\"v1\"\r\nSubject: Re: Game 8KQ2ZJ\r\n\r\n--i\r\nContent-Type: text/plain; charset=UTF-8; format=flowed\r\n\r\nNf3\r\n\r\n--i--\r\n";
        let mail = opened(&outer, &Encrypted::PgpMime(Vec::new()), inner);
        assert_eq!(mail.subject, "Re: Game 8KQ2ZJ");
        assert_eq!(mail.fresh.trim(), "Nf3");
    }
}
