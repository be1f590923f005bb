//! Move envelopes and the cryptography around them (docs/trust.md): the envelope
//! text, its canonical bytes, Ed25519 signatures, sealing to the steward's key,
//! commitments for commit-reveal games, the keys, the game's trust options
//! ([`policy`]) and the transcript hash chain ([`transcript`]).
//!
//! Nothing here decides a game or touches the store: a door finds and parses an
//! envelope, the steward checks it against the game. What follows is precise
//! enough to write a compatible client in another language; the known-answer
//! tests in [`commit`](mod@commit) and [`seal`](mod@seal) were computed with Python's `hashlib` and
//! `cryptography` from this text.
//!
//! # The envelope
//!
//! ```text
//! -----BEGIN FAIRSTEWARD MOVE-----
//! game: 8KQ2ZJ
//! seat: white
//! turn: 12
//! move: Nf3
//! nonce: 4f1c9a0b7e2d51aa
//! sig: <base64 of the 64-byte Ed25519 signature over the canonical bytes>
//! -----END FAIRSTEWARD MOVE-----
//! ```
//!
//! One `key: value` per line. The keys:
//!
//! | key | value | |
//! |---|---|---|
//! | `game` | the game id, six characters of Crockford base 32 | required |
//! | `seat` | the seat name, `[a-z0-9_-]{1,32}` | required |
//! | `turn` | decimal digits (a `u32`) | required |
//! | `move` | the move text, up to 256 bytes, no control characters | a move, or with `salt` a reveal |
//! | `sealed` | base64 (standard alphabet, padded) of a sealed move | instead of `move` |
//! | `commit` | 64 hex digits: the commitment | instead of `move` |
//! | `salt` | hex, at least 16 bytes | with `move` (or `sealed`): a reveal |
//! | `nonce` | hex, 8 to 64 bytes, random | optional; makes equal envelopes differ |
//! | `sig` | base64 of 64 bytes | optional; required by games with `auth = signature` |
//!
//! Exactly one of `move`, `sealed` and `commit` is present; `salt` joins `move`
//! (a reveal in clear, [`Body::Reveal`]) or `sealed` (a sealed reveal:
//! [`Body::Sealed`] and [`Envelope::salt`]), never `commit`. Any other key, a key
//! given twice, or a missing game, seat or turn is refused, as is a block of more
//! than [`MAX_ENVELOPE_BYTES`].
//!
//! # Reading what mail clients send
//!
//! [`Envelope::find`] locates the block anywhere in a mail or HTTP body. Each
//! line loses leading quote markers (`>`, `> >`, `>>`) and surrounding white
//! space (so `\r\n` line ends and trailing spaces do no harm); blank lines are
//! skipped; keys are case-insensitive; BEGIN/END lines are matched ignoring case
//! and the number of dashes. A line holding only base64 (after `sig`/`sealed`)
//! or hex (after `commit`/`salt`/`nonce`) characters continues the value above
//! it, which undoes a mail client's line wrapping. Quoted-printable and other
//! transfer encodings are the mail door's business and come decoded. Of several
//! blocks, the least quoted count (a reply's own envelope, not a quoted one).
//!
//! Values are normalised on reading: the game upper case, the seat lower case,
//! hex lower case, values trimmed; `turn` is digits only (no sign).
//!
//! # Canonical bytes (what a signature covers)
//!
//! The normalised fields other than `sig`, each as `key: value\n` (UTF-8, one
//! space after the colon, `\n` line ends), in the order `game`, `seat`, `turn`,
//! then the others sorted by key (bytewise): `commit`, `move`, `nonce`, `salt`,
//! `sealed`. Binary values are written as the envelope writes them: `sealed` in
//! padded standard base64, `commit` and `salt` in lower-case hex. For the example
//! above:
//!
//! ```text
//! game: 8KQ2ZJ\nseat: white\nturn: 12\nmove: Nf3\nnonce: 4f1c9a0b7e2d51aa\n
//! ```
//!
//! The signature is plain Ed25519 (RFC 8032) over these bytes, by the seat's
//! registered key. [`Envelope::to_text`] prints the BEGIN line, these lines, the
//! `sig:` line when signed, and the END line.
//!
//! # Sealing
//!
//! `sealed` = `E ‖ ChaCha20-Poly1305(key, nonce = 0¹², aad = "GAME|seat|turn",
//! move ‖ 0x80 ‖ 0x00… to a multiple of 32 bytes) ‖ tag`, where `E` is a fresh
//! X25519 public key, `key = HKDF-SHA256(salt = "fairsteward-seal-v1", ikm =
//! X25519(e, S), info = E ‖ S)` and `S` the steward's sealing key (`GET
//! /api/steward`, field `sealing_key`). See [`seal`](mod@seal) for the details and
//! why `x25519-dalek` joins ring here.
//!
//! # Commitments
//!
//! `commit = SHA-256("GAME|seat|turn|move|salthex")` — game upper case, seat lower
//! case, turn decimal, the move as it will be revealed, the salt (at least 16
//! random bytes) in lower-case hex. See [`commit`](mod@commit).
//!
//! # Keys
//!
//! PKCS#8 PEM files, mode 0600: the steward's in its data directory, a player's
//! wherever `fairsteward player keygen --out` puts it; public keys travel as
//! base64 of their 32 bytes. The steward's fingerprint covers both its public
//! keys. See [`keys`](mod@keys).

pub mod action;
pub mod capability;
pub mod commit;
pub mod envelope;
pub mod error;
pub mod keys;
pub mod openpgp;
pub mod operator;
pub mod policy;
pub mod seal;
pub mod transcript;
pub mod verify;

pub use action::Action;
pub use commit::{commitment, commitment_input, random_salt};
pub use envelope::{
    BEGIN_LINE, Body, END_LINE, Envelope, MAX_ENVELOPE_BYTES, MAX_MOVE_BYTES, MIN_NONCE_BYTES, MIN_SALT_BYTES,
    random_nonce,
};
pub use error::EnvelopeError;
pub use keys::{
    KeyError, PlayerKey, SEALING_KEY_FILE, SIGNING_KEY_FILE, StewardKeys, fingerprint, public_key_from_base64,
    same_fingerprint, verify_signature,
};
pub use operator::{OPERATOR_TOKEN_FILE, OperatorToken};
pub use seal::{open_held, open_record, open_sealed, seal, seal_held, seal_record, sealing_aad, try_seal};

use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};

/// Text that is not the base64 or hex it should be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not {0} (truncated or garbled?)")]
pub struct DecodeError(&'static str);

/// Standard base64 with padding, as envelopes and transcripts write it.
///
/// # Errors
/// [`DecodeError`] when `text` (trimmed) is not that.
pub fn decode_base64(text: &str) -> Result<Vec<u8>, DecodeError> {
    base64::engine::general_purpose::STANDARD.decode(text.trim()).map_err(|_| DecodeError("base64"))
}

/// Hex, either case, as envelopes and transcripts write it.
///
/// # Errors
/// [`DecodeError`] when `text` (trimmed) is not an even number of hex digits.
pub fn decode_hex(text: &str) -> Result<Vec<u8>, DecodeError> {
    envelope::from_hex(text.trim()).ok_or(DecodeError("hex"))
}

/// `N` random bytes from the operating system.
fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // The system RNG only fails when the OS has no entropy source at all.
    SystemRandom::new().fill(&mut bytes).expect("the operating system's random number generator failed");
    bytes
}
