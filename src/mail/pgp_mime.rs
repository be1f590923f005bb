//! PGP/MIME on the steward's own mails (issue 33): every mail it sends carries
//! its OpenPGP key in an `Autocrypt:` header (Autocrypt Level 1) and an RFC 3156
//! signature by that key.
//!
//! [`sign_mail`] takes the bytes lettre formatted and makes them
//! `multipart/signed; micalg=pgp-sha256; protocol="application/pgp-signature"`:
//! the first part is the mail's content as it was — its `Content-Type` and
//! `Content-Transfer-Encoding` headers and its body, byte for byte — and the
//! second the armoured detached signature over exactly those bytes (CRLF line
//! ends: lettre writes them so). lettre encodes every text part as 7-bit,
//! quoted-printable or base64 with lines under 78 octets, and pictures as base64,
//! so no mail server on the way needs to (or may) re-encode the signed part.
//!
//! The signature's time is the mail's `Date` (never before the key was made):
//! Ed25519 signatures are deterministic, so a resent mail is the same bytes.

use chrono::DateTime;
use ring::digest;

use crate::protocol::openpgp::steward_key::StewardPgpKey;

/// The header fields of `head` (CRLF-separated lines), each with its
/// continuation lines, as written.
fn fields(head: &[u8]) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < head.len() {
        let line_end = head[i..].windows(2).position(|w| w == b"\r\n").map_or(head.len(), |p| i + p);
        let next = (line_end + 2).min(head.len());
        let continues = head.get(next).is_some_and(|b| *b == b' ' || *b == b'\t');
        if !continues {
            out.push(&head[start..line_end]);
            start = next;
        }
        i = next;
    }
    out
}

fn name_of(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|b| *b == b':').unwrap_or(field.len());
    field[..end].trim_ascii()
}

fn value_of(field: &[u8]) -> String {
    let start = field.iter().position(|b| *b == b':').map_or(field.len(), |p| p + 1);
    String::from_utf8_lossy(&field[start..]).replace("\r\n", "").trim().to_owned()
}

/// The address in a `From` value (`Name <a@b>` or `a@b`).
fn address_in(value: &str) -> String {
    match value.rsplit_once('<') {
        Some((_, rest)) => rest.split('>').next().unwrap_or_default().trim().to_owned(),
        None => value.trim().to_owned(),
    }
}

/// `message` (RFC 5322, CRLF line ends, as lettre formats it) signed by `key`
/// in PGP/MIME, with an `Autocrypt:` header; `None` when it is not a mail this
/// can wrap (no header/body split, no `From`), or signing failed (logged).
pub fn sign_mail(message: &[u8], key: &StewardPgpKey) -> Option<Vec<u8>> {
    let split = message.windows(4).position(|w| w == b"\r\n\r\n")?;
    let (head, body) = (&message[..split], &message[split + 4..]);
    let mut outer: Vec<&[u8]> = Vec::new();
    let mut inner: Vec<&[u8]> = Vec::new();
    let mut from = None;
    let mut date = None;
    for field in fields(head) {
        let name = name_of(field);
        if name.eq_ignore_ascii_case(b"content-type") || name.eq_ignore_ascii_case(b"content-transfer-encoding") {
            inner.push(field);
        } else if name.eq_ignore_ascii_case(b"autocrypt") {
            // Ours is added below.
        } else {
            if name.eq_ignore_ascii_case(b"from") {
                from = Some(address_in(&value_of(field)));
            } else if name.eq_ignore_ascii_case(b"date") {
                date = DateTime::parse_from_rfc2822(&value_of(field)).ok().map(|d| d.timestamp());
            }
            outer.push(field);
        }
    }
    let from = from.filter(|f| !f.is_empty())?;
    let mut part = Vec::with_capacity(body.len() + 256);
    if inner.is_empty() {
        part.extend_from_slice(b"Content-Type: text/plain; charset=us-ascii\r\n");
    }
    for field in &inner {
        part.extend_from_slice(field);
        part.extend_from_slice(b"\r\n");
    }
    part.extend_from_slice(b"\r\n");
    part.extend_from_slice(body);
    let signature = match key.sign_detached(&part, date.unwrap_or(0)) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "cannot sign a mail; it goes unsigned");
            return None;
        }
    };
    let hash = digest::digest(&digest::SHA256, message);
    let mut boundary = format!("=-fairsteward-signed-{}", crate::ids::hex(&hash.as_ref()[..12]));
    while part.windows(boundary.len()).any(|w| w == boundary.as_bytes()) {
        boundary.push('x');
    }
    let mut out = Vec::with_capacity(part.len() + 2048);
    for field in &outer {
        out.extend_from_slice(field);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"Autocrypt: ");
    out.extend_from_slice(key.autocrypt_header(&from).as_bytes());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(
        format!(
            "Content-Type: multipart/signed; micalg=pgp-sha256;\r\n protocol=\"application/pgp-signature\";\r\n boundary=\"{boundary}\"\r\n\r\n"
        )
        .as_bytes(),
    );
    out.extend_from_slice(b"This is an OpenPGP/MIME signed message (RFC 4880 and 3156)\r\n");
    out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
    out.extend_from_slice(&part);
    out.extend_from_slice(format!("\r\n--{boundary}\r\n").as_bytes());
    out.extend_from_slice(
        b"Content-Type: application/pgp-signature; name=\"signature.asc\"\r\nContent-Description: OpenPGP digital signature\r\nContent-Disposition: attachment; filename=\"signature.asc\"\r\n\r\n",
    );
    for line in signature.lines() {
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    Some(out)
}

/// The two parts of a `multipart/signed` mail as [`sign_mail`] writes it: the
/// signed bytes and the armoured signature (for tests and `verify`-like checks).
pub fn signed_parts(mail: &[u8]) -> Option<(Vec<u8>, String)> {
    let text = String::from_utf8_lossy(mail);
    let start = text.find("boundary=\"")? + "boundary=\"".len();
    let boundary = &text[start..start + text[start..].find('"')?];
    let delimiter = format!("\r\n--{boundary}");
    let first = mail.windows(delimiter.len()).position(|w| w == delimiter.as_bytes())? + delimiter.len() + 2;
    let end = first + mail[first..].windows(delimiter.len()).position(|w| w == delimiter.as_bytes())?;
    let part = mail[first..end].to_vec();
    let rest = &text[end + delimiter.len()..];
    let sig_start = rest.find("-----BEGIN PGP SIGNATURE-----")?;
    let sig_end = rest.find("-----END PGP SIGNATURE-----")? + "-----END PGP SIGNATURE-----".len();
    Some((part, rest[sig_start..sig_end].to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgp::composed::Deserializable as _;

    #[test]
    fn a_signed_mail_keeps_its_content_and_the_signature_verifies() {
        let key = StewardPgpKey::generate("moves@steward.example", 1_700_000_000).unwrap();
        let mail = b"From: Fairsteward <moves@steward.example>\r\nTo: a@example.org\r\nSubject: x\r\nDate: Tue, 1 Dec 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain;\r\n charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nNf3 please\r\n";
        let signed = sign_mail(mail, &key).unwrap();
        assert_eq!(signed, sign_mail(mail, &key).unwrap(), "the same bytes every time");
        let text = String::from_utf8(signed.clone()).unwrap();
        assert!(text.contains("Autocrypt: addr=moves@steward.example; prefer-encrypt=mutual; keydata=\r\n "), "{text}");
        assert!(text.lines().all(|l| l.len() < 78), "{text}");
        let (part, sig) = signed_parts(&signed).unwrap();
        assert_eq!(
            part,
            b"Content-Type: text/plain;\r\n charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nNf3 please\r\n"
        );
        let (sig, _) = pgp::composed::DetachedSignature::from_string(&sig).unwrap();
        sig.verify(&key.public(), &part).unwrap();
        let read = crate::mail::inbound::read_mail(&signed).unwrap();
        assert_eq!(read.text.trim(), "Nf3 please");
    }
}
