//! The signed entity of a raw message, as RFC 3156 and RFC 4880 §7 define it.
//!
//! **PGP/MIME**: a message whose top-level type is `multipart/signed;
//! protocol="application/pgp-signature"`. The signature covers the exact bytes
//! of the first body part — its MIME headers and body, up to but not including
//! the line break before the next boundary delimiter — with every line ending
//! CRLF. Those bytes are cut from the raw message as it came (never a
//! re-serialisation); a message stored with bare LF line ends (a maildir, a pipe)
//! has them turned into CRLF, which is what the sender signed. The second part
//! holds the ASCII-armoured signature.
//!
//! **Inline**: a `-----BEGIN PGP SIGNED MESSAGE-----` block (cleartext
//! signature framework) at the start of an unquoted line of the body text; the
//! signed bytes are its text, dash-unescaped, trailing white space cut, CRLF.
//!
//! [`encrypted`] tells a `multipart/encrypted` message apart (decrypting is
//! another module's work: an entry point that takes the decrypted inner entity
//! can hand its bytes to [`find_signed_entity`]).

use mail_parser::{MessageParser, MimeHeaders};
use pgp::composed::CleartextSignedMessage;

use super::signed::{read_signatures, signature_bytes};

/// The largest signed part taken (text, and any attachment beside it).
pub const MAX_SIGNED_BYTES: usize = 256 * 1024;

/// How a message was signed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// PGP/MIME: `multipart/signed`, the signature over the first part's bytes.
    Mime,
    /// An inline cleartext signature in the body text.
    Cleartext,
    /// Signed and encrypted in one OpenPGP message (RFC 3156 §6.2) in a
    /// PGP/MIME `multipart/encrypted` reply: the signature (one-pass) is over
    /// the literal data, which is a MIME entity.
    EncryptedMime,
    /// Signed and encrypted in one OpenPGP message in an inline `-----BEGIN
    /// PGP MESSAGE-----` block: the signature is over the literal data, the
    /// reply's text.
    EncryptedInline,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 4] = [Kind::Mime, Kind::Cleartext, Kind::EncryptedMime, Kind::EncryptedInline];

    /// The name in a proof's text.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Mime => "pgp-mime",
            Kind::Cleartext => "cleartext",
            Kind::EncryptedMime => "encrypted-pgp-mime",
            Kind::EncryptedInline => "encrypted-inline",
        }
    }

    /// Whether the signed bytes are a MIME entity (headers, then a body).
    pub const fn is_mime(self) -> bool {
        matches!(self, Kind::Mime | Kind::EncryptedMime)
    }
}

/// A signed entity: the bytes signed and the signature block (binary packets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedEntity {
    /// PGP/MIME or inline.
    pub kind: Kind,
    /// The exact bytes the signature covers (CRLF line ends).
    pub signed: Vec<u8>,
    /// The signature packets, binary.
    pub signature: Vec<u8>,
}

/// A signed message that cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MimeProblem {
    /// The signed part is larger than [`MAX_SIGNED_BYTES`].
    #[error(
        "the signed part of your mail has {size} bytes, more than the {MAX_SIGNED_BYTES} taken; send the move without large attachments"
    )]
    TooLarge {
        /// Its size.
        size: usize,
    },
    /// The multipart/signed structure does not read.
    #[error("your mail says it is OpenPGP-signed (multipart/signed) but {0}; let your mail client sign it again")]
    Malformed(String),
    /// The signature part does not read.
    #[error("{0}")]
    Signature(String),
}

/// Whether the message is `multipart/encrypted` (RFC 3156 §4).
pub fn encrypted(raw: &[u8]) -> bool {
    let Some(msg) = MessageParser::default().parse_headers(raw) else { return false };
    msg.content_type().is_some_and(|ct| {
        ct.ctype().eq_ignore_ascii_case("multipart")
            && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("encrypted"))
    })
}

/// The signed entity of a raw message (or of a decrypted inner entity: any
/// bytes that start with MIME headers): PGP/MIME first, else an inline
/// cleartext block in `body_text` (the decoded body, as the mail door reads it).
///
/// # Errors
/// A [`MimeProblem`] for a message that is signed but cannot be taken.
pub fn find_signed_entity(raw: &[u8], body_text: &str) -> Result<Option<SignedEntity>, MimeProblem> {
    if let Some(e) = pgp_mime(raw)? {
        return Ok(Some(e));
    }
    cleartext(body_text)
}

fn pgp_mime(raw: &[u8]) -> Result<Option<SignedEntity>, MimeProblem> {
    let Some(msg) = MessageParser::default().parse_headers(raw) else { return Ok(None) };
    let Some(ct) = msg.content_type() else { return Ok(None) };
    let signed = ct.ctype().eq_ignore_ascii_case("multipart")
        && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("signed"))
        && ct.attribute("protocol").is_some_and(|p| p.trim().eq_ignore_ascii_case("application/pgp-signature"));
    if !signed {
        return Ok(None);
    }
    let boundary = ct
        .attribute("boundary")
        .map(str::to_owned)
        .ok_or_else(|| MimeProblem::Malformed("it has no boundary".into()))?;
    let body_start = header_end(raw).ok_or_else(|| MimeProblem::Malformed("it has no body".into()))?;
    let delims = delimiters(raw, body_start, boundary.as_bytes());
    let [(_, first_end), (second_start, second_end), ..] = delims.as_slice() else {
        return Err(MimeProblem::Malformed("it does not hold two parts".into()));
    };
    // The line break before the second delimiter belongs to the delimiter.
    let mut part_end = *second_start;
    if part_end > *first_end && raw[part_end - 1] == b'\n' {
        part_end -= 1;
        if part_end > *first_end && raw[part_end - 1] == b'\r' {
            part_end -= 1;
        }
    }
    let part = &raw[*first_end..part_end];
    if part.len() > MAX_SIGNED_BYTES {
        return Err(MimeProblem::TooLarge { size: part.len() });
    }
    let sig_end = delims.get(2).map_or(raw.len(), |(s, _)| *s);
    let sig_part = &raw[*second_end..sig_end.max(*second_end)];
    let begin = b"-----BEGIN PGP SIGNATURE-----";
    let end = b"-----END PGP SIGNATURE-----";
    let from =
        find(sig_part, begin).ok_or_else(|| MimeProblem::Malformed("its second part holds no signature".into()))?;
    let to = find(&sig_part[from..], end)
        .map(|i| from + i + end.len())
        .ok_or_else(|| MimeProblem::Malformed("its signature is cut off".into()))?;
    let sigs = read_signatures(&sig_part[from..to]).map_err(|e| MimeProblem::Signature(e.to_string()))?;
    Ok(Some(SignedEntity { kind: Kind::Mime, signed: crlf(part), signature: signature_bytes(&sigs) }))
}

fn cleartext(text: &str) -> Result<Option<SignedEntity>, MimeProblem> {
    let begin = "-----BEGIN PGP SIGNED MESSAGE-----";
    let end = "-----END PGP SIGNATURE-----";
    // Only an unquoted block at the start of a line (a quoted one is someone else's).
    let mut at = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == begin {
            at = Some(offset);
            break;
        }
        offset += line.len();
    }
    let Some(start) = at else { return Ok(None) };
    let Some(stop) = text[start..].find(end).map(|i| start + i + end.len()) else {
        return Err(MimeProblem::Malformed("the inline signature block is cut off".into()));
    };
    let block = &text[start..stop];
    if block.len() > MAX_SIGNED_BYTES {
        return Err(MimeProblem::TooLarge { size: block.len() });
    }
    let (msg, _) = CleartextSignedMessage::from_string(&format!("{block}\n")).map_err(|e| {
        MimeProblem::Signature(format!("the inline signature cannot be read ({})", super::key::short(&e.to_string())))
    })?;
    if msg.signatures().len() > super::signed::MAX_SIGNATURES {
        return Err(MimeProblem::Signature("too many signatures".into()));
    }
    Ok(Some(SignedEntity {
        kind: Kind::Cleartext,
        signed: msg.signed_text().into_bytes(),
        signature: signature_bytes(msg.signatures()),
    }))
}

/// Where the body starts: after the first empty line.
fn header_end(raw: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < raw.len() {
        let line_end = raw[i..].iter().position(|&b| b == b'\n').map_or(raw.len(), |p| i + p + 1);
        let line = &raw[i..line_end];
        if line == b"\n" || line == b"\r\n" {
            return Some(line_end);
        }
        i = line_end;
    }
    None
}

/// The boundary delimiter lines after `from`: (start of the line, end of the
/// line including its line break). The close delimiter is one too.
fn delimiters(raw: &[u8], from: usize, boundary: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < raw.len() && out.len() < 3 {
        let line_end = raw[i..].iter().position(|&b| b == b'\n').map_or(raw.len(), |p| i + p + 1);
        let line = &raw[i..line_end];
        if let Some(rest) = line.strip_prefix(b"--").and_then(|l| l.strip_prefix(boundary)) {
            let rest = rest.strip_prefix(b"--").unwrap_or(rest);
            if rest.iter().all(u8::is_ascii_whitespace) {
                out.push((i, line_end));
            }
        }
        i = line_end;
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Bare LF line ends made CRLF (CRLF left as is).
pub fn crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 32);
    let mut prev = 0u8;
    for &b in bytes {
        if b == b'\n' && prev != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        prev = b;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_part_is_cut_exactly_and_bare_line_feeds_become_crlf() {
        let raw = "Content-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=\"b\"\n\npreamble\n--b\nContent-Type: text/plain\n\nline one\nline two\n--b\nContent-Type: application/pgp-signature\n\n-----BEGIN PGP SIGNATURE-----\nnot base64 !\n-----END PGP SIGNATURE-----\n--b--\n";
        // The signature does not read: the problem says so (nothing panics).
        let e = find_signed_entity(raw.as_bytes(), "").unwrap_err();
        assert!(matches!(e, MimeProblem::Signature(_)), "{e:?}");
        let body = header_end(raw.as_bytes()).unwrap();
        let d = delimiters(raw.as_bytes(), body, b"b");
        assert_eq!(d.len(), 3);
        assert_eq!(&raw[d[0].1..d[1].0], "Content-Type: text/plain\n\nline one\nline two\n");
        assert_eq!(crlf(b"a\nb\r\nc\n"), b"a\r\nb\r\nc\r\n");
    }

    #[test]
    fn unsigned_mail_finds_nothing_and_a_cut_off_structure_is_malformed() {
        let plain = "Content-Type: text/plain\r\n\r\nNf3\r\n";
        assert_eq!(find_signed_entity(plain.as_bytes(), "Nf3\n"), Ok(None));
        let cut = "Content-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nNf3\r\n";
        assert!(matches!(find_signed_entity(cut.as_bytes(), ""), Err(MimeProblem::Malformed(_))));
        assert!(!encrypted(plain.as_bytes()));
        assert!(encrypted(
            b"Content-Type: multipart/encrypted; protocol=\"application/pgp-encrypted\"; boundary=x\r\n\r\n"
        ));
        // A quoted inline block is someone else's.
        assert_eq!(cleartext("> -----BEGIN PGP SIGNED MESSAGE-----\n> x\n"), Ok(None));
    }
}
