//! What an OpenPGP-signed move keeps, and what the signed text must say.
//!
//! # What the signed text carries
//!
//! A reply's quoted board mail and its subject are not what the player signed
//! for this turn (a quote may be of any earlier mail, and the subject is outside
//! the signature), so the signed part itself must name the game, the seat and
//! the turn, in the envelope's lines (docs/player.md):
//!
//! ```text
//! game: 8KQ2ZJ
//! seat: white
//! turn: 12
//! move: Nf3
//! ```
//!
//! `move:` may be `action:` (`resign`, `draw-offer`, `draw-accept`,
//! `draw-decline`, `leave 2026-12-20 2026-12-27`), `commit:`, or `move:` with `salt:`
//! (a reveal), exactly as in an envelope; a `-----BEGIN FAIRSTEWARD MOVE-----`
//! block (without `sig:`) may hold them instead. Quoted lines (`>`) never count.
//! A signature over another game or turn therefore names that game or turn, and
//! is refused for this one (a replay).
//!
//! # The record
//!
//! The transcript keeps, where an Ed25519 envelope's text would stand:
//!
//! ```text
//! -----BEGIN FAIRSTEWARD OPENPGP MOVE-----
//! kind: pgp-mime | cleartext | encrypted-pgp-mime | encrypted-inline
//! signed: <base64 of the exact signed bytes>
//! signature: <base64 of the binary signature packets>
//! -----END FAIRSTEWARD OPENPGP MOVE-----
//! ```
//!
//! `fairsteward verify` reads the envelope again from the signed bytes and checks
//! the signature with the seat's key recorded in the transcript.
//!
//! A reply encrypted to the steward keeps the same record: signed then
//! encrypted (RFC 3156 §6.1, a `multipart/signed` entity inside) as `pgp-mime`,
//! a cleartext block inside as `cleartext`, and signed and encrypted in one
//! OpenPGP message (§6.2) as `encrypted-pgp-mime` or `encrypted-inline`: the
//! literal data as the signed bytes, the signature packets beside them (not
//! the ciphertext, which only the steward's key opens: so anyone can check the
//! record once it is revealed). The
//! record is part of the move, so it is held sealed with it until the turn
//! resolves, and only then written into the transcript.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use super::mime::{Kind, SignedEntity};
use crate::protocol::{Envelope, EnvelopeError};

/// The first line of a proof's text.
pub const PROOF_BEGIN: &str = "-----BEGIN FAIRSTEWARD OPENPGP MOVE-----";
/// The last line of a proof's text.
pub const PROOF_END: &str = "-----END FAIRSTEWARD OPENPGP MOVE-----";

/// An OpenPGP signature over a signed part, as a move keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenPgpProof {
    /// PGP/MIME or inline.
    pub kind: Kind,
    /// The exact signed bytes.
    pub signed: Vec<u8>,
    /// The binary signature packets.
    pub signature: Vec<u8>,
    /// When the steward received it (seconds since the epoch): a key must not
    /// have expired then; 0 when read back from a transcript.
    pub received_at: i64,
    /// The mail's `From` address, for trust on first use (not recorded).
    pub sender: Option<String>,
    /// A public key the mail offers (its `Autocrypt:` header for the sender's
    /// address, or an `application/pgp-keys` part inside the signed part),
    /// armoured: taken on first use where the game allows it (not recorded).
    pub offered_key: Option<String>,
}

/// Why a signed part holds no move (or its lines do not read).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoMove {
    /// No `game:` line in the signed text.
    #[error(
        "the signed part of your mail does not name the game and turn, so the signature cannot be bound to this move (a quoted board mail and the subject are not signed for this turn); write these lines in the mail you sign:\ngame: GAME-ID\nseat: YOUR-SEAT\nturn: TURN\nmove: YOUR-MOVE"
    )]
    Missing,
    /// The lines do not read as an envelope.
    #[error("the signed lines do not read: {0}")]
    Bad(EnvelopeError),
}

const KEYS: &[&str] = &["game", "seat", "turn", "move", "action", "commit", "salt", "sealed", "nonce"];

impl OpenPgpProof {
    /// The proof of a signed entity received at `received_at`.
    pub fn new(entity: SignedEntity, received_at: i64) -> OpenPgpProof {
        OpenPgpProof {
            kind: entity.kind,
            signed: entity.signed,
            signature: entity.signature,
            received_at,
            sender: None,
            offered_key: None,
        }
    }

    /// The proof's text (see the module docs).
    pub fn to_text(&self) -> String {
        format!(
            "{PROOF_BEGIN}\nkind: {}\nsigned: {}\nsignature: {}\n{PROOF_END}\n",
            self.kind.name(),
            BASE64.encode(&self.signed),
            BASE64.encode(&self.signature)
        )
    }

    /// Whether `text` is a proof's text (rather than an envelope's).
    pub fn is_proof_text(text: &str) -> bool {
        text.trim_start().starts_with(PROOF_BEGIN)
    }

    /// Reads a proof's text back.
    ///
    /// # Errors
    /// Why it does not read.
    pub fn parse(text: &str) -> Result<OpenPgpProof, String> {
        let mut kind = None;
        let (mut signed, mut signature) = (None, None);
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("-----")) {
            let (k, v) = line.split_once(':').ok_or_else(|| format!("the line {line:?} is not key: value"))?;
            let v = v.trim();
            match k.trim() {
                "kind" => {
                    kind = Some(
                        Kind::ALL.into_iter().find(|k| k.name() == v).ok_or_else(|| format!("unknown kind {v:?}"))?,
                    );
                }
                "signed" => signed = Some(BASE64.decode(v).map_err(|_| "signed is not base64".to_owned())?),
                "signature" => signature = Some(BASE64.decode(v).map_err(|_| "signature is not base64".to_owned())?),
                other => return Err(format!("unknown line {other:?}")),
            }
        }
        Ok(OpenPgpProof {
            kind: kind.ok_or("kind is missing")?,
            signed: signed.ok_or("signed is missing")?,
            signature: signature.ok_or("signature is missing")?,
            received_at: 0,
            sender: None,
            offered_key: None,
        })
    }

    /// The signed text as a reader sees it: for PGP/MIME the first part's body
    /// text (transfer encodings and format=flowed undone, the text of a
    /// multipart/mixed inside); for inline signatures the signed text; for a
    /// message signed and encrypted in one (RFC 3156 §6.2) the text of the
    /// MIME entity it holds (PGP/MIME; the plaintext itself when it holds none)
    /// or its plaintext (inline). `\n` line ends.
    pub fn text(&self) -> String {
        let raw = || String::from_utf8_lossy(&self.signed).replace("\r\n", "\n");
        // Read here, not by the mail door's reader: `verify` reads it
        // offline the same way (protocol does not lean on the doors).
        let mime = || {
            mail_parser::MessageParser::default()
                .parse(&self.signed)
                .and_then(|m| m.body_text(0).map(|t| t.replace("\r\n", "\n")))
        };
        match self.kind {
            Kind::Mime => mime().unwrap_or_default(),
            // As the mail door reads a decrypted PGP/MIME reply: a MIME entity
            // with text, else the plaintext itself (`mail::inbound::encrypted`).
            Kind::EncryptedMime => mime().filter(|t| !t.trim().is_empty()).unwrap_or_else(raw),
            Kind::Cleartext | Kind::EncryptedInline => raw(),
        }
    }

    /// A public key offered inside the signed part (an `application/pgp-keys`
    /// attachment, as Thunderbird's "attach my public key" sends it), armoured.
    pub fn attached_key(&self) -> Option<String> {
        if !self.kind.is_mime() {
            return None;
        }
        let msg = mail_parser::MessageParser::default().parse(&self.signed)?;
        msg.parts.iter().take(64).find_map(|p| {
            use mail_parser::MimeHeaders as _;
            let ct = p.content_type()?;
            let keys = ct.ctype().eq_ignore_ascii_case("application")
                && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("pgp-keys"));
            keys.then(|| String::from_utf8_lossy(p.contents()).into_owned())
        })
    }

    /// The envelope the signed text carries, with this proof attached.
    ///
    /// # Errors
    /// [`NoMove`] when the signed text names no game, or its lines do not read.
    pub fn envelope(&self) -> Result<Envelope, NoMove> {
        let mut env = envelope_in(&self.text())?;
        env.sig = None;
        env.openpgp = Some(Box::new(self.clone()));
        Ok(env)
    }
}

/// The envelope in a signed text: a FAIRSTEWARD MOVE block, or its lines
/// written bare; quoted lines never count.
fn envelope_in(text: &str) -> Result<Envelope, NoMove> {
    let unquoted: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with('>')).collect();
    let unquoted = unquoted.join("\n");
    match Envelope::find(&unquoted) {
        Ok(Some(env)) => return Ok(env),
        Ok(None) => {}
        Err(e) => return Err(NoMove::Bad(e)),
    }
    let lines: Vec<&str> = unquoted
        .lines()
        .map(str::trim)
        .filter(|l| l.split_once(':').is_some_and(|(k, _)| KEYS.iter().any(|key| k.trim().eq_ignore_ascii_case(key))))
        .collect();
    if !lines.iter().any(|l| l.split_once(':').is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case("game"))) {
        return Err(NoMove::Missing);
    }
    let block = format!("{}\n{}\n{}\n", crate::protocol::BEGIN_LINE, lines.join("\n"), crate::protocol::END_LINE);
    Envelope::parse(&block).map_err(NoMove::Bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Body;

    fn proof(kind: Kind, signed: &str) -> OpenPgpProof {
        OpenPgpProof {
            kind,
            signed: signed.as_bytes().to_vec(),
            signature: vec![1, 2, 3],
            received_at: 0,
            sender: None,
            offered_key: None,
        }
    }

    #[test]
    fn the_record_reads_back_and_the_envelope_comes_from_the_signed_text_only() {
        let p = proof(
            Kind::Mime,
            "Content-Type: text/plain\r\n\r\nHello\r\ngame: 8kq2zj\r\nseat: White\r\nturn: 12\r\nmove: Nf3\r\n> game: OLDGAM\r\n> turn: 3\r\n",
        );
        let back = OpenPgpProof::parse(&p.to_text()).unwrap();
        assert_eq!(back, p);
        assert!(OpenPgpProof::is_proof_text(&p.to_text()));
        let env = back.envelope().unwrap();
        assert_eq!((env.game.as_str(), env.seat.as_str(), env.turn), ("8KQ2ZJ", "white", 12));
        assert_eq!(env.body, Body::Move("Nf3".into()));
        assert!(env.is_signed() && env.sig.is_none());
        assert_eq!(env.record_text(), p.to_text());
    }

    #[test]
    fn a_message_signed_and_encrypted_in_one_reads_its_mime_entity_or_its_plaintext() {
        let lines = "game: 8KQ2ZJ\r\nseat: black\r\nturn: 3\r\nmove: Nc6\r\n";
        // PGP/MIME: the literal data is a MIME entity (quoted-printable here).
        let entity = format!(
            "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{lines}--=20\r\nsent\r\n"
        );
        let p = proof(Kind::EncryptedMime, &entity);
        let back = OpenPgpProof::parse(&p.to_text()).unwrap();
        assert_eq!(back, p);
        assert!(p.to_text().contains("kind: encrypted-pgp-mime\n"));
        let env = back.envelope().unwrap();
        assert_eq!((env.seat.as_str(), env.turn, env.body.clone()), ("black", 3, Body::Move("Nc6".into())));
        // A PGP/MIME plaintext that is no MIME entity reads as text, as the door reads it.
        let p = proof(Kind::EncryptedMime, lines);
        assert_eq!(p.envelope().unwrap().turn, 3);
        // Inline: the plaintext is the text.
        let p = proof(Kind::EncryptedInline, lines);
        assert_eq!(OpenPgpProof::parse(&p.to_text()).unwrap(), p);
        assert_eq!(p.envelope().unwrap().body, Body::Move("Nc6".into()));
        assert_eq!(p.attached_key(), None);
        assert!(OpenPgpProof::parse("kind: encrypted-other\nsigned: AA==\nsignature: AA==\n").is_err());
    }

    #[test]
    fn a_signed_text_without_game_lines_or_with_bad_ones_holds_no_move() {
        assert_eq!(proof(Kind::Cleartext, "Nf3\r\n").envelope().unwrap_err(), NoMove::Missing);
        // Only quoted lines name a game: still none.
        assert_eq!(
            proof(Kind::Cleartext, "> game: 8KQ2ZJ\r\n> turn: 1\r\nNf3\r\n").envelope().unwrap_err(),
            NoMove::Missing
        );
        let bad = proof(Kind::Cleartext, "game: 8KQ2ZJ\r\nseat: white\r\nturn: x\r\nmove: Nf3\r\n").envelope();
        assert!(matches!(bad, Err(NoMove::Bad(_))), "{bad:?}");
        assert!(OpenPgpProof::parse("kind: other\nsigned: AA==\nsignature: AA==\n").is_err());
    }
}

#[cfg(test)]
mod attached_tests {
    use super::*;

    #[test]
    fn a_public_key_attached_inside_the_signed_part_is_offered() {
        let signed = "Content-Type: multipart/mixed; boundary=\"k\"\r\n\r\n--k\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ngame: X\r\n--k\r\nContent-Type: application/pgp-keys; name=\"k.asc\"\r\nContent-Disposition: attachment; filename=\"k.asc\"\r\n\r\n-----BEGIN PGP PUBLIC KEY BLOCK-----\r\nAAAA\r\n-----END PGP PUBLIC KEY BLOCK-----\r\n--k--\r\n";
        let p = OpenPgpProof {
            kind: Kind::Mime,
            signed: signed.as_bytes().to_vec(),
            signature: Vec::new(),
            received_at: 0,
            sender: None,
            offered_key: None,
        };
        let key = p.attached_key().expect("the attached key");
        assert!(key.contains("BEGIN PGP PUBLIC KEY BLOCK"), "{key}");
    }
}
