//! Opening a message encrypted to the steward's OpenPGP key: the second part of
//! an RFC 3156 `multipart/encrypted` reply, or an inline `-----BEGIN PGP
//! MESSAGE-----` block. A message signed and encrypted in one (RFC 3156 §6.2,
//! `gpg --sign --encrypt`) opens to its plaintext and its signature packets
//! ([`Opened::signatures`]): whose signature it is, is the steward's to check
//! against the seat's key ([`super::signed::check`] over the plaintext).
//!
//! Bounded: at most [`MAX_CIPHERTEXT_BYTES`] in, at most [`MAX_PLAINTEXT_BYTES`]
//! out (a compression bomb stops there), at most [`MAX_COMPRESSION_LAYERS`]
//! compressed layers, and an encrypted message inside an encrypted one is
//! refused.

use std::io::Read as _;

use pgp::composed::{Message, SignedSecretKey};
use pgp::packet::Signature;
use pgp::types::Password;

/// The largest ciphertext taken (armoured or binary).
pub const MAX_CIPHERTEXT_BYTES: usize = 1024 * 1024;
/// The largest plaintext an encrypted reply may hold.
pub const MAX_PLAINTEXT_BYTES: usize = 1024 * 1024;
/// The most compressed layers unwrapped.
pub const MAX_COMPRESSION_LAYERS: usize = 2;

/// Why an encrypted message could not be opened; the text is for the sender.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecryptError {
    /// More than [`MAX_CIPHERTEXT_BYTES`] of ciphertext.
    #[error("the encrypted message is larger than {} KiB", MAX_CIPHERTEXT_BYTES / 1024)]
    TooLarge,
    /// More than [`MAX_PLAINTEXT_BYTES`] once decrypted.
    #[error("the decrypted message is larger than {} KiB", MAX_PLAINTEXT_BYTES / 1024)]
    PlaintextTooLarge,
    /// Not an OpenPGP message (garbled armour or packets).
    #[error("the encrypted message is garbled (not an OpenPGP message: {0})")]
    Garbled(String),
    /// An OpenPGP message, but not encrypted.
    #[error("the OpenPGP message is not encrypted")]
    NotEncrypted,
    /// Encrypted, but to no key the steward has.
    #[error("the message is encrypted to another key, not to the steward's")]
    OtherKey,
    /// Encrypted to the steward, but it does not decrypt or fails its integrity check.
    #[error("the encrypted message does not open (damaged or tampered with: {0})")]
    Damaged(String),
    /// Encrypted again inside, or compressed too many times.
    #[error("the encrypted message is nested too deeply")]
    Nested,
}

/// Whether `data` is an armoured OpenPGP message (after leading white space).
fn is_armored(data: &[u8]) -> bool {
    let start = data.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(data.len());
    data[start..].starts_with(b"-----BEGIN PGP")
}

/// An opened message: the plaintext, and the signatures over it when it was
/// signed inside the encryption.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The plaintext (the literal data).
    pub plain: Vec<u8>,
    /// The signature packets (binary) of a message signed and encrypted in
    /// one, over exactly [`Opened::plain`]; `None` when it was not signed so.
    pub signatures: Option<Vec<u8>>,
}

/// Opens `data` (armoured or binary OpenPGP) with the first of `keys` it is
/// encrypted to (the steward's current key, then the retired ones) and returns
/// the plaintext.
///
/// # Errors
/// A [`DecryptError`] saying why it cannot be opened.
pub fn decrypt(data: &[u8], keys: &[&SignedSecretKey]) -> Result<Vec<u8>, DecryptError> {
    open(data, keys).map(|o| o.plain)
}

/// [`decrypt`], keeping the signatures of a message signed and encrypted in
/// one (at most [`super::signed::MAX_SIGNATURES`]; more are refused as damaged).
/// They are not checked here.
///
/// # Errors
/// A [`DecryptError`] saying why it cannot be opened.
pub fn open(data: &[u8], keys: &[&SignedSecretKey]) -> Result<Opened, DecryptError> {
    if data.len() > MAX_CIPHERTEXT_BYTES {
        return Err(DecryptError::TooLarge);
    }
    let garbled = |e: pgp::errors::Error| DecryptError::Garbled(e.to_string());
    let message = if is_armored(data) {
        Message::from_armor(data).map_err(garbled)?.0
    } else {
        Message::from_bytes(data).map_err(garbled)?
    };
    if !message.is_encrypted() {
        return Err(DecryptError::NotEncrypted);
    }
    if keys.is_empty() {
        return Err(DecryptError::OtherKey);
    }
    let password = Password::empty();
    let mut message =
        message.decrypt_with_keys(keys.iter().map(|_| &password).collect(), keys.to_vec()).map_err(|e| match e {
            pgp::errors::Error::MissingKey => DecryptError::OtherKey,
            e => DecryptError::Damaged(e.to_string()),
        })?;
    for _ in 0..=MAX_COMPRESSION_LAYERS {
        if !message.is_compressed() {
            break;
        }
        message = message.decompress().map_err(|e| DecryptError::Damaged(e.to_string()))?;
    }
    if message.is_compressed() || message.is_encrypted() {
        return Err(DecryptError::Nested);
    }
    // Each signature hashes the whole plaintext: bound how many.
    if let Message::Signed { reader, .. } = &message
        && reader.num_signatures() > super::signed::MAX_SIGNATURES
    {
        return Err(DecryptError::Damaged(format!("more than {} signatures", super::signed::MAX_SIGNATURES)));
    }
    let mut plain = Vec::new();
    (&mut message)
        .take(MAX_PLAINTEXT_BYTES as u64 + 1)
        .read_to_end(&mut plain)
        .map_err(|e| DecryptError::Damaged(e.to_string()))?;
    if plain.len() > MAX_PLAINTEXT_BYTES {
        return Err(DecryptError::PlaintextTooLarge);
    }
    // Read to its end, a signed message holds its final signature packets.
    let signatures = match &message {
        Message::Signed { reader, .. } if !reader.is_done() => {
            return Err(DecryptError::Damaged("its signature packets are missing".into()));
        }
        Message::Signed { reader, .. } => {
            let sigs: Vec<Signature> =
                reader.signatures().unwrap_or_default().iter().map(|s| s.signature().clone()).collect();
            (!sigs.is_empty()).then(|| super::signed::signature_bytes(&sigs))
        }
        _ => None,
    };
    Ok(Opened { plain, signatures })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::openpgp::steward_key::StewardPgpKey;

    /// `plain` encrypted to `to` (its subkey), signed inside by `signers` when any.
    fn message(to: &StewardPgpKey, signers: &[&StewardPgpKey], plain: &[u8]) -> Vec<u8> {
        use pgp::composed::MessageBuilder;
        use pgp::crypto::{hash::HashAlgorithm, sym::SymmetricKeyAlgorithm};
        let mut rng = rand::thread_rng();
        let public = to.public();
        let mut builder =
            MessageBuilder::from_bytes("", plain.to_vec()).seipd_v1(&mut rng, SymmetricKeyAlgorithm::AES128);
        builder.encrypt_to_key(&mut rng, &public.public_subkeys[0]).unwrap();
        for s in signers {
            builder.sign(&s.secret().primary_key, Password::empty(), HashAlgorithm::Sha256);
        }
        builder.to_vec(&mut rng).unwrap()
    }

    #[test]
    fn a_message_signed_and_encrypted_in_one_opens_with_its_signatures_over_the_plaintext() {
        use crate::protocol::openpgp::{key::PlayerPgpKey, signed};
        let now = 1_800_000_000;
        let steward = StewardPgpKey::generate("s@example.org", now).unwrap();
        let player = StewardPgpKey::generate("p@example.org", now).unwrap();
        let plain = b"game: 8KQ2ZJ\r\nseat: white\r\nturn: 1\r\nmove: Nf3\r\n";
        let opened = open(&message(&steward, &[&player], plain), &[steward.secret()]).unwrap();
        assert_eq!(opened.plain, plain);
        let sigs = opened.signatures.expect("the signature inside");
        let key = PlayerPgpKey::parse(&player.public_armored()).unwrap();
        assert!(signed::check(&key, &opened.plain, &sigs, now + 60).is_ok());
        assert_eq!(
            signed::check(&key, b"game: 8KQ2ZJ\r\nmove: Nh3\r\n", &sigs, now + 60),
            Err(signed::SignatureProblem::Bad)
        );
        // Not signed inside: no signatures. Too many signatures: refused.
        let opened = open(&message(&steward, &[], plain), &[steward.secret()]).unwrap();
        assert_eq!((opened.plain.as_slice(), opened.signatures), (&plain[..], None));
        let many = vec![&player; signed::MAX_SIGNATURES + 1];
        assert!(matches!(open(&message(&steward, &many, plain), &[steward.secret()]), Err(DecryptError::Damaged(_))));
    }

    #[test]
    fn garbage_and_plain_messages_are_refused() {
        let key = StewardPgpKey::generate("s@example.org", 1_800_000_000).unwrap();
        let keys = [key.secret()];
        assert!(matches!(
            decrypt(b"-----BEGIN PGP MESSAGE-----\n\nzzzz\n-----END PGP MESSAGE-----\n", &keys),
            Err(DecryptError::Garbled(_))
        ));
        assert!(matches!(decrypt(b"\x00\x01\x02", &keys), Err(DecryptError::Garbled(_))));
        assert_eq!(decrypt(&vec![b'a'; MAX_CIPHERTEXT_BYTES + 1], &keys), Err(DecryptError::TooLarge));
    }
}
