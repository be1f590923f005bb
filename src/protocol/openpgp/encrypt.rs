//! Encrypting the steward's mails to a player's OpenPGP key (issue 33 point 4:
//! "a player with a key may choose to receive them encrypted").
//!
//! The key's encryption component is its newest subkey flagged for encryption
//! (communications or storage) that is neither revoked nor expired at the time
//! given; a key without one may encrypt with its primary key if that is flagged
//! for encryption. A key with no such component, or a revoked or expired one,
//! cannot be encrypted to: [`EncryptProblem`] says so and what to do.
//!
//! The message is a SEIPD v1 packet (AES-256, no compression: the board picture
//! is a PNG already, and compression in encrypted mail is a known leak) with one
//! PKESK v3 per recipient — what every client reads, GnuPG 2.2 included. The
//! random numbers come from a seed the caller derives from a steward secret and
//! the mail, so a resent mail is the same bytes (see `mail::pgp_mime`).

use pgp::composed::{ArmorOptions, MessageBuilder, SignedPublicKey};
use pgp::crypto::sym::SymmetricKeyAlgorithm;
use pgp::packet::{Signature, SignatureType};
use pgp::types::{KeyDetails, Timestamp};
use rand::SeedableRng as _;

use super::key::{group, short};

/// Why a key cannot be encrypted to; `Display` is for the player.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncryptProblem {
    /// No (sub)key flagged for encryption.
    #[error(
        "the OpenPGP key {fingerprint} has no encryption subkey, so mails cannot be encrypted to it; add one (`gpg --quick-add-key {compact} cv25519 encr`) and register the key again (`gpg --armor --export YOUR-ADDRESS`)"
    )]
    NoEncryptionKey {
        /// The key's fingerprint, grouped.
        fingerprint: String,
        /// The same without spaces, for the command.
        compact: String,
    },
    /// The key, or every encryption subkey, is revoked.
    #[error("the OpenPGP key {fingerprint} is revoked; register a new key")]
    Revoked {
        /// The revoked key's (or subkey's) fingerprint.
        fingerprint: String,
    },
    /// The key, or every encryption subkey, has expired.
    #[error(
        "the OpenPGP key {fingerprint} has expired; extend its expiry (`gpg --quick-set-expire`) and register it again"
    )]
    Expired {
        /// The expired key's (or subkey's) fingerprint.
        fingerprint: String,
    },
    /// rPGP failed to encrypt (it should not).
    #[error("the mail cannot be encrypted ({0})")]
    Failed(String),
}

/// The part of a key that encrypts.
#[derive(Clone, Copy, Debug)]
pub enum Component<'a> {
    /// The primary key (flagged for encryption itself).
    Primary(&'a pgp::packet::PublicKey),
    /// An encryption subkey.
    Subkey(&'a pgp::packet::PublicSubkey),
}

impl Component<'_> {
    /// Its fingerprint, upper-case hex in groups of four.
    pub fn fingerprint(&self) -> String {
        let fp = match self {
            Component::Primary(k) => k.fingerprint(),
            Component::Subkey(k) => k.fingerprint(),
        };
        group(&format!("{fp:X}"))
    }
}

fn secs(t: Timestamp) -> i64 {
    i64::from(t.as_secs())
}

/// The newest of `sigs` (by creation time).
fn newest<'a>(sigs: impl Iterator<Item = &'a Signature>) -> Option<&'a Signature> {
    sigs.filter(|s| s.created().is_some()).max_by_key(|s| s.created().map(secs))
}

/// Whether a component made at `created`, whose newest self-signature is
/// `sig`, has expired at `now`.
fn expired(created: Timestamp, sig: Option<&Signature>, now: i64) -> bool {
    match sig.and_then(|s| s.key_expiration_time()) {
        Some(d) if d.as_secs() > 0 => secs(created) + i64::from(d.as_secs()) < now,
        _ => false,
    }
}

fn encrypts(sig: &Signature) -> bool {
    let flags = sig.key_flags();
    flags.encrypt_comms() || flags.encrypt_storage()
}

/// The component of `key` that encrypts at `now` (seconds since the epoch).
///
/// # Errors
/// An [`EncryptProblem`]: none is flagged for encryption, or the key (or every
/// encryption subkey) is revoked or expired.
pub fn encryption_component(key: &SignedPublicKey, now: i64) -> Result<Component<'_>, EncryptProblem> {
    let primary = &key.primary_key;
    let primary_fp = group(&format!("{:X}", primary.fingerprint()));
    if !key.details.revocation_signatures.is_empty() {
        return Err(EncryptProblem::Revoked { fingerprint: primary_fp });
    }
    let primary_sigs =
        || key.details.users.iter().flat_map(|u| u.signatures.iter()).chain(&key.details.direct_signatures);
    if expired(primary.created_at(), newest(primary_sigs()), now) {
        return Err(EncryptProblem::Expired { fingerprint: primary_fp });
    }
    let mut problem = None;
    let mut best: Option<(&pgp::packet::PublicSubkey, i64)> = None;
    for sub in &key.public_subkeys {
        let fingerprint = group(&format!("{:X}", sub.key.fingerprint()));
        let binding = newest(sub.signatures.iter().filter(|s| s.typ() == Some(SignatureType::SubkeyBinding)));
        let Some(binding) = binding.filter(|b| encrypts(b)) else { continue };
        if sub.signatures.iter().any(|s| s.typ() == Some(SignatureType::SubkeyRevocation)) {
            problem.get_or_insert(EncryptProblem::Revoked { fingerprint });
            continue;
        }
        if expired(sub.key.created_at(), Some(binding), now) {
            problem.get_or_insert(EncryptProblem::Expired { fingerprint });
            continue;
        }
        let created = secs(sub.key.created_at());
        if best.is_none_or(|(_, t)| created >= t) {
            best = Some((&sub.key, created));
        }
    }
    if let Some((sub, _)) = best {
        return Ok(Component::Subkey(sub));
    }
    if let Some(p) = problem {
        return Err(p);
    }
    if newest(primary_sigs()).is_some_and(encrypts) {
        return Ok(Component::Primary(primary));
    }
    let compact = format!("{:X}", primary.fingerprint());
    Err(EncryptProblem::NoEncryptionKey { fingerprint: primary_fp, compact })
}

/// `plain` encrypted to every key of `recipients` (their encryption
/// components at `now`), ASCII-armoured with LF line ends; `seed` feeds the
/// random numbers (the same seed and input give the same bytes).
///
/// # Errors
/// A recipient cannot be encrypted to ([`encryption_component`]), or rPGP failed.
pub fn encrypt(
    plain: &[u8],
    recipients: &[&SignedPublicKey],
    now: i64,
    seed: [u8; 32],
) -> Result<String, EncryptProblem> {
    let components = recipients.iter().map(|k| encryption_component(k, now)).collect::<Result<Vec<_>, _>>()?;
    let failed = |e: pgp::errors::Error| EncryptProblem::Failed(short(&e.to_string()));
    let mut rng = rand::rngs::StdRng::from_seed(seed);
    let mut builder = MessageBuilder::from_bytes("", plain.to_vec()).seipd_v1(&mut rng, SymmetricKeyAlgorithm::AES256);
    for c in components {
        match c {
            Component::Primary(k) => builder.encrypt_to_key(&mut rng, k).map_err(failed)?,
            Component::Subkey(k) => builder.encrypt_to_key(&mut rng, k).map_err(failed)?,
        };
    }
    builder.to_armored_string(&mut rng, ArmorOptions::default()).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::openpgp::decrypt::decrypt;
    use crate::protocol::openpgp::steward_key::StewardPgpKey;

    #[test]
    fn a_message_encrypted_to_two_keys_opens_with_either_and_is_the_same_bytes_again() {
        let (a, b) = (
            StewardPgpKey::generate("a@example.org", 1_800_000_000).unwrap(),
            StewardPgpKey::generate("b@example.org", 1_800_000_000).unwrap(),
        );
        let (pa, pb) = (a.public(), b.public());
        let sealed = encrypt(b"Content-Type: text/plain\r\n\r\nNf3\r\n", &[&pa, &pb], 1_800_000_100, [7; 32]).unwrap();
        assert!(sealed.starts_with("-----BEGIN PGP MESSAGE-----"), "{sealed}");
        assert_eq!(
            sealed,
            encrypt(b"Content-Type: text/plain\r\n\r\nNf3\r\n", &[&pa, &pb], 1_800_000_100, [7; 32]).unwrap()
        );
        assert_ne!(
            sealed,
            encrypt(b"Content-Type: text/plain\r\n\r\nNf3\r\n", &[&pa, &pb], 1_800_000_100, [8; 32]).unwrap()
        );
        for k in [&a, &b] {
            assert_eq!(decrypt(sealed.as_bytes(), &[k.secret()]).unwrap(), b"Content-Type: text/plain\r\n\r\nNf3\r\n");
        }
        let c = encryption_component(&pa, 1_800_000_100).unwrap();
        assert!(matches!(c, Component::Subkey(_)), "the Cv25519 subkey");
        assert_ne!(c.fingerprint(), group(&a.fingerprint()));
    }
}
