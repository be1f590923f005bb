//! Why an envelope, a signature, a sealed move or a reveal was refused.
//!
//! Every message says what was wrong and what to send instead, so a door can pass
//! it to the player unchanged (HTTP answer or reply mail). [`EnvelopeError::code`]
//! gives a stable short name for JSON answers and logs.

use super::envelope::{FIELDS, MAX_ENVELOPE_BYTES, MIN_SALT_BYTES};

/// A refused envelope (or sealed move, or reveal), with the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// The text holds no `-----BEGIN FAIRSTEWARD MOVE-----` block.
    #[error(
        "no move envelope found; send the block from -----BEGIN FAIRSTEWARD MOVE----- to -----END FAIRSTEWARD MOVE----- as `fairsteward player` prints it"
    )]
    NotFound,
    /// A BEGIN line without its END line: the block was cut off.
    #[error(
        "the envelope has no -----END FAIRSTEWARD MOVE----- line, so it was cut off; send the whole block again, from BEGIN to END"
    )]
    Unterminated,
    /// The block is larger than [`MAX_ENVELOPE_BYTES`].
    #[error("the envelope is {size} bytes, more than the {max} allowed; send one envelope holding one move", max = MAX_ENVELOPE_BYTES)]
    TooLarge {
        /// Its size in bytes (at least; counting stops soon after the limit).
        size: usize,
    },
    /// More than one envelope, and they differ.
    #[error("the message holds more than one different envelope; send one envelope per message")]
    Ambiguous,
    /// Text around a block given to [`super::Envelope::parse`].
    #[error("text outside the envelope block: {0:?}; send only the block, from BEGIN to END")]
    OutsideBlock(String),
    /// A line inside the block that is not `key: value`.
    #[error(
        "the line {0:?} in the envelope is not `key: value`; send the envelope exactly as `fairsteward player` printed it"
    )]
    BadLine(String),
    /// A key the format does not have.
    #[error("unknown field {0:?} in the envelope; send only the fields {list}", list = FIELDS.join(", "))]
    UnknownField(String),
    /// A key given twice.
    #[error("the field {0:?} appears more than once in the envelope; send it once")]
    DuplicateField(String),
    /// A required key is missing.
    #[error("the envelope has no `{0}:` line; every envelope names its game, seat and turn")]
    MissingField(&'static str),
    /// A value that is not what its key needs.
    #[error("the `{field}:` value {value:?} is not {expected}; send {expected}")]
    BadValue {
        /// The key.
        field: &'static str,
        /// The value as given (cut to 80 characters).
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A base64 value that does not decode, or decodes to the wrong length.
    #[error(
        "truncated or garbled base64 in `{0}:`; send the envelope again exactly as printed, with the whole value (a mail client may have cut or wrapped the line)"
    )]
    Base64(&'static str),
    /// A hex value that does not decode, or decodes to the wrong length.
    #[error("truncated or garbled hex in `{0}:`; send the envelope again exactly as printed, with the whole value")]
    Hex(&'static str),
    /// Not exactly one of move, sealed, commit, or move/sealed + salt.
    #[error(
        "the envelope holds {found}; send exactly one of `move:`, `sealed:`, `commit:` or `action:` (with `salt:` added to `move:` or `sealed:` for a reveal)"
    )]
    BadBody {
        /// What it held, e.g. "both `move:` and `commit:`".
        found: String,
    },
    /// A reveal's salt shorter than [`MIN_SALT_BYTES`].
    #[error(
        "the salt has {got} bytes; send the salt of at least {min} random bytes that `fairsteward player commit` made for the commitment",
        min = MIN_SALT_BYTES
    )]
    ShortSalt {
        /// Its length in bytes.
        got: usize,
    },
    /// A signature was required but the envelope has no `sig:` line.
    #[error(
        "the envelope is not signed; sign it with the seat's key: `fairsteward player sign --key FILE …` (or send the move with the seat's token)"
    )]
    MissingSignature,
    /// The signature does not verify with the key it was checked against.
    #[error(
        "the signature does not verify with the seat's registered key: the envelope was altered after signing, or signed with another key; sign it again with this seat's key"
    )]
    BadSignature,
    /// A sealed move that this steward cannot open.
    #[error(
        "sealed to another key or altered: the steward cannot open this sealed move (wrong steward key, or the game, seat or turn differ from the ones it was sealed for); seal it again to the steward's sealing key with `fairsteward player seal --url …`"
    )]
    SealedElsewhere,
    /// A sealed value too short or of an impossible length.
    #[error(
        "the sealed value is {got} bytes, which no sealed move has (it was truncated?); seal the move again and send the whole envelope"
    )]
    SealedLength {
        /// Its length in bytes.
        got: usize,
    },
    /// A sealing key that is not a usable X25519 public key.
    #[error(
        "the steward's sealing key is not a usable X25519 public key; fetch it again (GET /api/steward) and check its fingerprint"
    )]
    BadStewardKey,
    /// A reveal whose move and salt do not hash to the commitment.
    #[error(
        "the revealed move and salt do not match the commitment for game {game}, seat {seat}, turn {turn}; send the move and salt you committed to (as saved by `fairsteward player commit --save`)"
    )]
    RevealMismatch {
        /// The game.
        game: String,
        /// The seat.
        seat: String,
        /// The turn.
        turn: u32,
    },
    /// [`super::Envelope::check_reveal`] on an envelope that is not a reveal.
    #[error("this envelope is not a reveal; send `move:` with the `salt:` of your commitment")]
    NotAReveal,
}

impl EnvelopeError {
    /// A stable short name for the error, for JSON answers and logs.
    pub fn code(&self) -> &'static str {
        match self {
            EnvelopeError::NotFound => "no_envelope",
            EnvelopeError::Unterminated => "truncated_envelope",
            EnvelopeError::TooLarge { .. } => "envelope_too_large",
            EnvelopeError::Ambiguous => "several_envelopes",
            EnvelopeError::OutsideBlock(_) | EnvelopeError::BadLine(_) => "bad_envelope_line",
            EnvelopeError::UnknownField(_) => "unknown_field",
            EnvelopeError::DuplicateField(_) => "duplicate_field",
            EnvelopeError::MissingField(_) => "missing_field",
            EnvelopeError::BadValue { .. } => "bad_value",
            EnvelopeError::Base64(_) | EnvelopeError::Hex(_) => "garbled",
            EnvelopeError::BadBody { .. } => "bad_body",
            EnvelopeError::ShortSalt { .. } => "short_salt",
            EnvelopeError::MissingSignature => "signature_required",
            EnvelopeError::BadSignature => "bad_signature",
            EnvelopeError::SealedElsewhere => "sealed_elsewhere",
            EnvelopeError::SealedLength { .. } => "garbled",
            EnvelopeError::BadStewardKey => "bad_steward_key",
            EnvelopeError::RevealMismatch { .. } => "reveal_mismatch",
            EnvelopeError::NotAReveal => "not_a_reveal",
        }
    }
}
