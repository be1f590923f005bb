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
//!
//! [`sign_and_encrypt_mail`] goes one step further for a player who chose
//! encrypted mail: the signed entity, with protected headers inside, encrypted
//! to the player's key and the steward's own (RFC 3156 section 6.1,
//! `multipart/encrypted`), the outer subject [`HIDDEN_SUBJECT`]. Its random
//! numbers come from a seed, so a resent mail is the same bytes too.

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

/// A mail cut into what stays outside and what goes into the signed part.
struct Cut<'a> {
    /// Header fields that stay on the outside (all but the content's and `Autocrypt`).
    outer: Vec<&'a [u8]>,
    /// `Content-Type` and `Content-Transfer-Encoding`, as written.
    inner: Vec<&'a [u8]>,
    body: &'a [u8],
    /// The From address.
    from: String,
    /// The `Date` (seconds since the epoch).
    date: Option<i64>,
}

fn cut(message: &[u8]) -> Option<Cut<'_>> {
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
            // Ours is added later.
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
    Some(Cut { outer, inner, body, from, date })
}

/// A boundary built from `message`'s hash that `within` does not hold.
fn boundary(kind: &str, message: &[u8], within: &[u8]) -> String {
    let hash = digest::digest(&digest::SHA256, message);
    let mut boundary = format!("=-fairsteward-{kind}-{}", crate::ids::hex(&hash.as_ref()[..12]));
    while within.windows(boundary.len()).any(|w| w == boundary.as_bytes()) {
        boundary.push('x');
    }
    boundary
}

/// The `multipart/signed` entity around `part` — its `Content-Type` header
/// field, the blank line and the body — signed by `key` at `date`.
fn signed_entity(part: &[u8], key: &StewardPgpKey, date: i64, message: &[u8]) -> Option<Vec<u8>> {
    let signature = match key.sign_detached(part, date) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "cannot sign a mail; it goes unsigned");
            return None;
        }
    };
    let boundary = boundary("signed", message, part);
    let mut out = Vec::with_capacity(part.len() + 1024);
    out.extend_from_slice(
        format!(
            "Content-Type: multipart/signed; micalg=pgp-sha256;\r\n protocol=\"application/pgp-signature\";\r\n boundary=\"{boundary}\"\r\n\r\n"
        )
        .as_bytes(),
    );
    out.extend_from_slice(b"This is an OpenPGP/MIME signed message (RFC 4880 and 3156)\r\n");
    out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
    out.extend_from_slice(part);
    out.extend_from_slice(format!("\r\n--{boundary}\r\n").as_bytes());
    last_armored_part(
        &mut out,
        b"Content-Type: application/pgp-signature; name=\"signature.asc\"\r\nContent-Description: OpenPGP digital signature\r\nContent-Disposition: attachment; filename=\"signature.asc\"\r\n\r\n",
        &signature,
        &boundary,
    );
    Some(out)
}

/// The last part of a PGP/MIME mail: `head` (its header fields and the blank
/// line), the armour with CRLF line ends, then the closing `boundary`.
fn last_armored_part(out: &mut Vec<u8>, head: &[u8], armored: &str, boundary: &str) {
    out.extend_from_slice(head);
    for line in armored.lines() {
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
}

/// The outer header fields, then our `Autocrypt:` header.
fn outer_head(out: &mut Vec<u8>, outer: &[&[u8]], key: &StewardPgpKey, from: &str) {
    for field in outer {
        out.extend_from_slice(field);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"Autocrypt: ");
    out.extend_from_slice(key.autocrypt_header(from).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// `message` (RFC 5322, CRLF line ends, as lettre formats it) signed by `key`
/// in PGP/MIME, with an `Autocrypt:` header; `None` when it is not a mail this
/// can wrap (no header/body split, no `From`), or signing failed (logged).
pub fn sign_mail(message: &[u8], key: &StewardPgpKey) -> Option<Vec<u8>> {
    let Cut { outer, inner, body, from, date } = cut(message)?;
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
    let entity = signed_entity(&part, key, date.unwrap_or(0), message)?;
    let mut out = Vec::with_capacity(entity.len() + 2048);
    outer_head(&mut out, &outer, key, &from);
    out.extend_from_slice(&entity);
    Some(out)
}

/// The header fields copied into the encrypted part as protected headers
/// (what Thunderbird and the Autocrypt "protected headers" draft copy).
const PROTECTED: [&[u8]; 8] = [b"from", b"to", b"cc", b"reply-to", b"subject", b"date", b"message-id", b"in-reply-to"];

/// What the outside `Subject:` of an encrypted mail says (as Thunderbird and
/// Delta Chat write it): the real subject is inside.
pub const HIDDEN_SUBJECT: &str = "...";

/// `message` signed by `key` and then encrypted (RFC 3156 section 6.1) to the
/// player's key `to` and to `key` itself, with protected headers: the signed
/// part carries `From`, `To`, `Reply-To`, `Subject`, `Date`, `Message-ID`
/// (and `Cc`, `In-Reply-To` when there) and `protected-headers="v1"` on its
/// `Content-Type`; outside, the `Subject` is [`HIDDEN_SUBJECT`] and every
/// other header stays as it was (the reply address included), with our
/// `Autocrypt:` header. `seed` feeds the encryption's random numbers.
///
/// # Errors
/// Not a mail this can wrap, signing failed, or `to` cannot be encrypted to
/// (no encryption subkey, revoked, expired); the text says which.
pub fn sign_and_encrypt_mail(
    message: &[u8],
    key: &StewardPgpKey,
    to: &pgp::composed::SignedPublicKey,
    seed: [u8; 32],
) -> Result<Vec<u8>, String> {
    use crate::protocol::openpgp::encrypt::encrypt;
    let Cut { outer, inner, body, from, date } =
        cut(message).ok_or_else(|| "not a mail with a From header and a body".to_owned())?;
    let mut part = Vec::with_capacity(body.len() + 1024);
    let mut typed = false;
    for field in &inner {
        part.extend_from_slice(field);
        if name_of(field).eq_ignore_ascii_case(b"content-type") {
            part.extend_from_slice(b";\r\n protected-headers=\"v1\"");
            typed = true;
        }
        part.extend_from_slice(b"\r\n");
    }
    if !typed {
        part.extend_from_slice(b"Content-Type: text/plain; charset=us-ascii; protected-headers=\"v1\"\r\n");
    }
    let mut outside: Vec<&[u8]> = Vec::with_capacity(outer.len());
    let mut hidden = false;
    for field in &outer {
        let name = name_of(field).to_ascii_lowercase();
        if PROTECTED.contains(&name.as_slice()) {
            part.extend_from_slice(field);
            part.extend_from_slice(b"\r\n");
        }
        if name == b"subject" {
            hidden = true;
        } else {
            outside.push(field);
        }
    }
    part.extend_from_slice(b"\r\n");
    part.extend_from_slice(body);
    let date = date.unwrap_or(0);
    let entity = signed_entity(&part, key, date, message).ok_or_else(|| "cannot sign".to_owned())?;
    let own = key.public();
    // Judged at the mail's date: a resend is the same bytes.
    let armored = encrypt(&entity, &[to, &own], date, seed).map_err(|e| e.to_string())?;
    let boundary = boundary("encrypted", message, armored.as_bytes());
    let mut out = Vec::with_capacity(armored.len() + 2048);
    outer_head(&mut out, &outside, key, &from);
    if hidden {
        out.extend_from_slice(format!("Subject: {HIDDEN_SUBJECT}\r\n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "Content-Type: multipart/encrypted;\r\n protocol=\"application/pgp-encrypted\";\r\n boundary=\"{boundary}\"\r\n\r\n"
        )
        .as_bytes(),
    );
    out.extend_from_slice(b"This is an OpenPGP/MIME encrypted message (RFC 4880 and 3156)\r\n");
    out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
    out.extend_from_slice(
        b"Content-Type: application/pgp-encrypted\r\nContent-Description: PGP/MIME version identification\r\n\r\nVersion: 1\r\n\r\n",
    );
    out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
    last_armored_part(
        &mut out,
        b"Content-Type: application/octet-stream; name=\"encrypted.asc\"\r\nContent-Description: OpenPGP encrypted message\r\nContent-Disposition: inline; filename=\"encrypted.asc\"\r\n\r\n",
        &armored,
        &boundary,
    );
    Ok(out)
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

    #[test]
    fn an_encrypted_mail_hides_its_subject_and_holds_the_signed_mail_with_protected_headers() {
        let key = StewardPgpKey::generate("moves@steward.example", 1_700_000_000).unwrap();
        let player = StewardPgpKey::generate("a@example.org", 1_700_000_000).unwrap();
        let mail = b"From: Fairsteward <moves@steward.example>\r\nTo: a@example.org\r\nReply-To: moves+G.w.1.mac@steward.example\r\nSubject: Game G, your move 1\r\nDate: Tue, 1 Dec 2026 10:00:00 +0000\r\nMessage-ID: <G.1.0.turn@steward.example>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain;\r\n charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nNf3 please\r\n";
        let sealed = sign_and_encrypt_mail(mail, &key, &player.public(), [3; 32]).unwrap();
        assert_eq!(sealed, sign_and_encrypt_mail(mail, &key, &player.public(), [3; 32]).unwrap(), "the same bytes");
        let text = String::from_utf8(sealed.clone()).unwrap();
        let head = &text[..text.find("\r\n\r\n").unwrap()];
        assert!(head.contains("\r\nSubject: ...\r\n") && !text.contains("your move"), "{text}");
        assert!(head.contains("Reply-To: moves+G.w.1.mac@steward.example"), "{head}");
        assert!(head.contains("Autocrypt: addr=moves@steward.example"), "{head}");
        assert!(head.contains("multipart/encrypted;\r\n protocol=\"application/pgp-encrypted\""), "{head}");
        assert!(text.contains("Content-Type: application/pgp-encrypted\r\nContent-Description: PGP/MIME version identification\r\n\r\nVersion: 1\r\n"));
        assert!(!text.contains("Nf3"));
        let armored = &text[text.find("-----BEGIN PGP MESSAGE-----").unwrap()..];
        for k in [&player, &key] {
            let inner = crate::protocol::openpgp::decrypt::decrypt(armored.as_bytes(), &[k.secret()]).unwrap();
            let (part, sig) = signed_parts(&inner).unwrap();
            let part_text = String::from_utf8(part.clone()).unwrap();
            assert!(
                part_text.starts_with("Content-Type: text/plain;\r\n charset=utf-8;\r\n protected-headers=\"v1\"\r\n"),
                "{part_text}"
            );
            assert!(part_text.contains("\r\nSubject: Game G, your move 1\r\n"), "{part_text}");
            assert!(part_text.ends_with("\r\n\r\nNf3 please\r\n"), "{part_text}");
            let (sig, _) = pgp::composed::DetachedSignature::from_string(&sig).unwrap();
            sig.verify(&key.public(), &part).unwrap();
        }
        let signed_only = StewardPgpKey::generate("b@example.org", 1_700_000_000).unwrap().public();
        let mut no_subkey = signed_only.clone();
        no_subkey.public_subkeys.clear();
        let e = sign_and_encrypt_mail(mail, &key, &no_subkey, [3; 32]).unwrap_err();
        assert!(e.contains("no encryption subkey"), "{e}");
    }
}
