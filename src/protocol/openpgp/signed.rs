//! Checking an OpenPGP signature over given bytes against a player's key.
//!
//! The signature must be a binary (0x00) or text (0x01) document signature, made
//! by the key's primary key or one of its subkeys (the issuer subpackets say
//! which), and verify over exactly the bytes given. The signing component must
//! not be revoked, and must not have expired, neither when the signature was made
//! nor at `now` (the time the steward received it). A signature by any other key
//! is told apart from a bad signature, so the answer can say which.

use pgp::composed::{Deserializable, DetachedSignature, SignedPublicKey};
use pgp::packet::{Signature, SignatureType};
use pgp::types::{KeyDetails, Timestamp};

use super::key::{PlayerPgpKey, group, short};

/// The most signatures one signature block may hold.
pub const MAX_SIGNATURES: usize = 8;
/// The largest signature block taken, binary (an RSA 4096 signature is ~ 600 bytes).
pub const MAX_SIGNATURE_BYTES: usize = 16 * 1024;

/// Why a signature is not taken; `Display` is for the player.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureProblem {
    /// The signature block does not read.
    #[error("the OpenPGP signature cannot be read ({0})")]
    Unreadable(String),
    /// Made by a key that is not the seat's.
    #[error(
        "the OpenPGP signature was made by key {issuer}, not by the seat's registered key {registered}; sign with your registered key, or register this key first"
    )]
    OtherKey {
        /// The issuer, as the signature names it.
        issuer: String,
        /// The seat's key's fingerprint.
        registered: String,
    },
    /// Made by the seat's key, but does not verify over the signed bytes.
    #[error(
        "the OpenPGP signature does not verify: the signed part was changed after signing (by you, a mail server or a list), or the signature is forged; sign the mail again and send it unchanged"
    )]
    Bad,
    /// The signing key had expired.
    #[error(
        "the OpenPGP key {fingerprint} had expired {when}; extend its expiry (`gpg --quick-set-expire`), register it again, and sign again"
    )]
    Expired {
        /// The key's fingerprint.
        fingerprint: String,
        /// When it was checked: "when the signature was made" or "when the mail came".
        when: &'static str,
    },
    /// The signing key is revoked.
    #[error("the OpenPGP key {fingerprint} is revoked; register a new key and sign with it")]
    Revoked {
        /// The revoked key's (or subkey's) fingerprint.
        fingerprint: String,
    },
    /// The key cannot sign (no signing flag).
    #[error("the OpenPGP key {fingerprint} is not marked for signing; sign with a signing (sub)key")]
    NotForSigning {
        /// The component's fingerprint.
        fingerprint: String,
    },
}

/// A signature that verified: who made it and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The fingerprint of the component that signed (the primary key or a subkey).
    pub signer: String,
    /// The signature's creation time (seconds since the epoch).
    pub created: i64,
}

/// Reads a signature block: binary packets, or ASCII armour.
///
/// # Errors
/// [`SignatureProblem::Unreadable`].
pub fn read_signatures(block: &[u8]) -> Result<Vec<Signature>, SignatureProblem> {
    let unreadable = |e: pgp::errors::Error| SignatureProblem::Unreadable(short(&e.to_string()));
    let text = std::str::from_utf8(block).ok().filter(|t| t.contains("-----BEGIN PGP SIGNATURE-----"));
    let sigs: Vec<DetachedSignature> = match text {
        Some(t) => {
            if t.len() > MAX_SIGNATURE_BYTES * 2 {
                return Err(SignatureProblem::Unreadable("too large".into()));
            }
            let (it, _) = DetachedSignature::from_string_many(t).map_err(unreadable)?;
            it.take(MAX_SIGNATURES + 1).collect::<Result<_, _>>().map_err(unreadable)?
        }
        None => {
            if block.len() > MAX_SIGNATURE_BYTES {
                return Err(SignatureProblem::Unreadable("too large".into()));
            }
            DetachedSignature::from_bytes_many(block)
                .map_err(unreadable)?
                .take(MAX_SIGNATURES + 1)
                .collect::<Result<_, _>>()
                .map_err(unreadable)?
        }
    };
    if sigs.is_empty() {
        return Err(SignatureProblem::Unreadable("no signature in the block".into()));
    }
    if sigs.len() > MAX_SIGNATURES {
        return Err(SignatureProblem::Unreadable(format!("more than {MAX_SIGNATURES} signatures")));
    }
    Ok(sigs.into_iter().map(|s| s.signature).collect())
}

/// The signatures as binary packets (what a proof keeps).
pub fn signature_bytes(sigs: &[Signature]) -> Vec<u8> {
    use pgp::ser::Serialize as _;
    let mut out = Vec::new();
    for s in sigs {
        let _ = DetachedSignature::new(s.clone()).to_writer(&mut out);
    }
    out
}

/// Checks the signatures in `block` over `signed` against `key`, at `now`
/// (seconds since the epoch). One good signature by the key is enough.
///
/// # Errors
/// The [`SignatureProblem`] of the first signature (one by the key is preferred).
pub fn check(key: &PlayerPgpKey, signed: &[u8], block: &[u8], now: i64) -> Result<Checked, SignatureProblem> {
    let sigs = read_signatures(block)?;
    let mut first_problem = None;
    for sig in &sigs {
        match check_one(key.key(), key.fingerprint(), sig, signed, now) {
            Ok(c) => return Ok(c),
            // A problem with the seat's own key says more than another key's signature.
            Err(p @ SignatureProblem::OtherKey { .. }) => {
                first_problem.get_or_insert(p);
            }
            Err(p) => return Err(p),
        }
    }
    Err(first_problem.unwrap_or(SignatureProblem::Unreadable("no signature".into())))
}

fn issuer_text(sig: &Signature) -> String {
    if let Some(fp) = sig.issuer_fingerprint().first() {
        return group(&format!("{fp:X}"));
    }
    match sig.issuer_key_id().first() {
        Some(id) => crate::ids::hex(id.as_ref()).to_ascii_uppercase(),
        None => "(unnamed)".into(),
    }
}

/// Whether `sig` names `k` as its issuer (or names nobody).
fn names<K: KeyDetails>(sig: &Signature, k: &K) -> bool {
    let (ids, fps) = (sig.issuer_key_id(), sig.issuer_fingerprint());
    (ids.is_empty() && fps.is_empty())
        || ids.iter().any(|id| **id == k.legacy_key_id())
        || fps.iter().any(|fp| **fp == k.fingerprint())
}

fn secs(t: Timestamp) -> i64 {
    i64::from(t.as_secs())
}

/// Whether a component created at `created` with self-signatures `sigs`
/// (the newest carrying the expiry) has expired at `at`.
fn expired(created: Timestamp, sigs: &[&Signature], at: i64) -> bool {
    let newest = sigs.iter().filter(|s| s.created().is_some()).max_by_key(|s| s.created().map(secs));
    match newest.and_then(|s| s.key_expiration_time()) {
        Some(d) if d.as_secs() > 0 => secs(created) + i64::from(d.as_secs()) < at,
        _ => false,
    }
}

fn check_one(
    key: &SignedPublicKey,
    fingerprint: &str,
    sig: &Signature,
    signed: &[u8],
    now: i64,
) -> Result<Checked, SignatureProblem> {
    if !matches!(sig.typ(), Some(SignatureType::Binary | SignatureType::Text)) {
        return Err(SignatureProblem::Unreadable(format!(
            "a {:?} signature, not a signature over a document",
            sig.typ()
        )));
    }
    let created = sig.created().map(secs).unwrap_or(now);
    let primary = &key.primary_key;
    // The primary key's own self-signatures (expiry, flags): user certifications
    // and direct-key signatures.
    let primary_sigs: Vec<&Signature> = key
        .details
        .users
        .iter()
        .flat_map(|u| u.signatures.iter())
        .chain(key.details.direct_signatures.iter())
        .filter(|s| names(s, primary))
        .collect();
    let primary_revoked = !key.details.revocation_signatures.is_empty();
    let primary_fp = group(&format!("{:X}", primary.fingerprint()));

    if names(sig, primary) && sig.verify(primary, signed).is_ok() {
        if primary_revoked {
            return Err(SignatureProblem::Revoked { fingerprint: primary_fp });
        }
        // Key flags given (not every old key has them) without "sign": a
        // certification-only primary key signs no documents.
        let flagged = primary_sigs.iter().any(|s| s.key_flags().certify() || s.key_flags().sign());
        if flagged && !primary_sigs.iter().any(|s| s.key_flags().sign()) {
            return Err(SignatureProblem::NotForSigning { fingerprint: primary_fp });
        }
        for (at, when) in [(created, "when the signature was made"), (now, "when the mail came")] {
            if expired(primary.created_at(), &primary_sigs, at) {
                return Err(SignatureProblem::Expired { fingerprint: primary_fp, when });
            }
        }
        return Ok(Checked { signer: primary_fp, created });
    }
    for sub in &key.public_subkeys {
        if !names(sig, &sub.key) {
            continue;
        }
        if sig.verify(&sub.key, signed).is_err() {
            continue;
        }
        let sub_fp = group(&format!("{:X}", sub.key.fingerprint()));
        if primary_revoked {
            return Err(SignatureProblem::Revoked { fingerprint: primary_fp });
        }
        if sub.signatures.iter().any(|s| s.typ() == Some(SignatureType::SubkeyRevocation)) {
            return Err(SignatureProblem::Revoked { fingerprint: sub_fp });
        }
        let bindings: Vec<&Signature> =
            sub.signatures.iter().filter(|s| s.typ() == Some(SignatureType::SubkeyBinding)).collect();
        if !bindings.iter().any(|s| s.key_flags().sign()) {
            return Err(SignatureProblem::NotForSigning { fingerprint: sub_fp });
        }
        for (at, when) in [(created, "when the signature was made"), (now, "when the mail came")] {
            if expired(primary.created_at(), &primary_sigs, at) {
                return Err(SignatureProblem::Expired { fingerprint: primary_fp.clone(), when });
            }
            if expired(sub.key.created_at(), &bindings, at) {
                return Err(SignatureProblem::Expired { fingerprint: sub_fp, when });
            }
        }
        return Ok(Checked { signer: sub_fp, created });
    }
    // Named the seat's key (or nothing) but verified with none of its parts: bad.
    let ours = names(sig, primary) || key.public_subkeys.iter().any(|s| names(sig, &s.key));
    let named = !(sig.issuer_key_id().is_empty() && sig.issuer_fingerprint().is_empty());
    if ours || !named {
        return Err(SignatureProblem::Bad);
    }
    Err(SignatureProblem::OtherKey { issuer: issuer_text(sig), registered: fingerprint.to_owned() })
}
