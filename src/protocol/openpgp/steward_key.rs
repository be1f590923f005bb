//! The steward's OpenPGP key: made at the first start, kept in the data
//! directory (`steward-openpgp.asc`, mode 0600, see [`keys`](mod@super::super::keys)),
//! rotated with the other keys by `fairsteward keys rotate`.
//!
//! A v4 key in the formats every client reads (GnuPG 2.2 included): an EdDSA
//! (Ed25519) primary key that certifies and signs, and an ECDH Cv25519 subkey
//! that encrypts; one user id, `Fairsteward <the steward's From address>`; no
//! passphrase (the file's mode protects it, as for the other steward keys); no
//! expiry. Its preferences name AES and SHA-2 and ZLIB/ZIP compression only.
//!
//! It is published three ways: the `Autocrypt:` header of every mail the
//! steward sends ([`StewardPgpKey::autocrypt_header`], Autocrypt Level 1),
//! `GET /api/steward` (field `openpgp`) and the page's `/steward.asc`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use pgp::composed::{
    ArmorOptions, Deserializable, DetachedSignature, EncryptionCaps, KeyType, SecretKeyParamsBuilder, SignedPublicKey,
    SignedSecretKey, SubkeyParamsBuilder, SubpacketConfig,
};
use pgp::crypto::ecc_curve::ECCCurve;
use pgp::crypto::hash::HashAlgorithm;
use pgp::crypto::sym::SymmetricKeyAlgorithm;
use pgp::packet::{Subpacket, SubpacketData};
use pgp::ser::Serialize as _;
use pgp::types::{CompressionAlgorithm, KeyDetails as _, Password, Timestamp};

/// An OpenPGP operation that failed; the text says which and why.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {why}")]
pub struct PgpError {
    what: &'static str,
    why: String,
}

impl PgpError {
    fn of(what: &'static str) -> impl FnOnce(pgp::errors::Error) -> PgpError {
        move |e| PgpError { what, why: e.to_string() }
    }
}

/// The steward's OpenPGP secret key.
#[derive(Clone)]
pub struct StewardPgpKey {
    secret: SignedSecretKey,
}

/// Seconds since the epoch as an OpenPGP timestamp (clamped to its range).
fn timestamp(unix_seconds: i64) -> Timestamp {
    Timestamp::from_secs(u32::try_from(unix_seconds.max(0)).unwrap_or(u32::MAX))
}

impl StewardPgpKey {
    /// A new key for `address` (the steward's From address), created at `now`
    /// (seconds since the epoch).
    ///
    /// # Errors
    /// rPGP refused to make it (it should not).
    pub fn generate(address: &str, now: i64) -> Result<StewardPgpKey, PgpError> {
        let created = timestamp(now);
        let mut rng = rand::thread_rng();
        let subkey = SubkeyParamsBuilder::default()
            .key_type(KeyType::ECDH(ECCCurve::Curve25519Legacy))
            .can_encrypt(EncryptionCaps::All)
            .created_at(created)
            .build()
            .map_err(|e| PgpError { what: "the encryption subkey's parameters", why: e.to_string() })?;
        let params = SecretKeyParamsBuilder::default()
            .key_type(KeyType::Ed25519Legacy)
            .can_certify(true)
            .can_sign(true)
            .created_at(created)
            .primary_user_id(format!("Fairsteward <{}>", address.trim()))
            .preferred_symmetric_algorithms(
                [SymmetricKeyAlgorithm::AES256, SymmetricKeyAlgorithm::AES192, SymmetricKeyAlgorithm::AES128]
                    .into_iter()
                    .collect(),
            )
            .preferred_hash_algorithms(
                [HashAlgorithm::Sha256, HashAlgorithm::Sha512, HashAlgorithm::Sha384].into_iter().collect(),
            )
            .preferred_compression_algorithms(
                [CompressionAlgorithm::ZLIB, CompressionAlgorithm::ZIP].into_iter().collect(),
            )
            .subkey(subkey)
            .build()
            .map_err(|e| PgpError { what: "the key's parameters", why: e.to_string() })?;
        let secret = params.generate(&mut rng).map_err(PgpError::of("making the key"))?;
        Ok(StewardPgpKey { secret })
    }

    /// The key from its armoured secret key text (as [`StewardPgpKey::to_armored_secret`] writes it).
    ///
    /// # Errors
    /// Not an armoured OpenPGP secret key, or its self-signatures do not verify.
    pub fn from_armored(text: &str) -> Result<StewardPgpKey, PgpError> {
        let (secret, _) = SignedSecretKey::from_string(text).map_err(PgpError::of("reading the secret key"))?;
        secret.verify_bindings().map_err(PgpError::of("checking the secret key"))?;
        Ok(StewardPgpKey { secret })
    }

    /// The armoured secret key, for its file.
    ///
    /// # Errors
    /// rPGP cannot write it (it should not).
    pub fn to_armored_secret(&self) -> Result<String, PgpError> {
        self.secret.to_armored_string(ArmorOptions::default()).map_err(PgpError::of("writing the secret key"))
    }

    /// The secret key itself (for [`super::decrypt`]).
    pub fn secret(&self) -> &SignedSecretKey {
        &self.secret
    }

    /// The transferable public key.
    pub fn public(&self) -> SignedPublicKey {
        self.secret.to_public_key()
    }

    /// The armoured public key (`-----BEGIN PGP PUBLIC KEY BLOCK-----`), LF line ends.
    pub fn public_armored(&self) -> String {
        self.public().to_armored_string(ArmorOptions::default()).unwrap_or_default()
    }

    /// The binary transferable public key (what Autocrypt's `keydata` holds).
    pub fn public_bytes(&self) -> Vec<u8> {
        self.public().to_bytes().unwrap_or_default()
    }

    /// The primary key's fingerprint, 40 upper-case hex digits (as `gpg --with-colons` prints it).
    pub fn fingerprint(&self) -> String {
        format!("{:X}", self.secret.primary_key.fingerprint())
    }

    /// The user id (`Fairsteward <address>`).
    pub fn user_id(&self) -> Option<String> {
        self.secret.details.users.first().map(|u| String::from_utf8_lossy(u.id.id()).into_owned())
    }

    /// The address in the user id (between `<` and `>`).
    pub fn address(&self) -> Option<String> {
        let uid = self.user_id()?;
        let (_, rest) = uid.split_once('<')?;
        Some(rest.split_once('>')?.0.to_owned())
    }

    /// The value of an `Autocrypt:` header for mails from `address` (Autocrypt
    /// Level 1): `addr=…; prefer-encrypt=mutual; keydata=` and the base64 of the
    /// binary public key, folded into lines of at most 76 characters (each
    /// continuation line begins with a space), CRLF line ends, no trailing CRLF.
    pub fn autocrypt_header(&self, address: &str) -> String {
        let keydata = BASE64.encode(self.public_bytes());
        let mut value = format!("addr={}; prefer-encrypt=mutual; keydata=", address.trim());
        for chunk in keydata.as_bytes().chunks(72) {
            value.push_str("\r\n ");
            value.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        }
        value
    }

    /// A detached signature over `data` (binary, SHA-256: PGP/MIME's
    /// `micalg=pgp-sha256`) made at `now` (seconds since the epoch), armoured
    /// with LF line ends. Ed25519 signatures are deterministic: the same data
    /// and time give the same bytes, so a resent mail is the same mail.
    ///
    /// # Errors
    /// rPGP failed to sign (it should not).
    pub fn sign_detached(&self, data: &[u8], now: i64) -> Result<String, PgpError> {
        let key = &self.secret.primary_key;
        // Never before the key itself (a steward clock set back): clients
        // refuse a signature older than its key.
        let now = now.max(i64::from(key.created_at().as_secs()));
        let hashed = vec![
            Subpacket::regular(SubpacketData::IssuerFingerprint(key.fingerprint()))
                .map_err(PgpError::of("the signature's issuer"))?,
            Subpacket::regular(SubpacketData::SignatureCreationTime(timestamp(now)))
                .map_err(PgpError::of("the signature's time"))?,
        ];
        let unhashed = vec![
            Subpacket::regular(SubpacketData::IssuerKeyId(key.legacy_key_id()))
                .map_err(PgpError::of("the signature's issuer"))?,
        ];
        let signature = DetachedSignature::sign_binary_data_with_subpackets(
            rand::thread_rng(),
            key,
            &Password::empty(),
            HashAlgorithm::Sha256,
            data,
            SubpacketConfig::UserDefined { hashed, unhashed },
        )
        .map_err(PgpError::of("signing"))?;
        signature.to_armored_string(ArmorOptions::default()).map_err(PgpError::of("writing the signature"))
    }
}

/// The secret never appears in debug output.
impl std::fmt::Debug for StewardPgpKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StewardPgpKey").field("fingerprint", &self.fingerprint()).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_reads_back_and_signs() {
        let key = StewardPgpKey::generate("moves@steward.example", 1_800_000_000).unwrap();
        assert_eq!(key.user_id().as_deref(), Some("Fairsteward <moves@steward.example>"));
        assert_eq!(key.address().as_deref(), Some("moves@steward.example"));
        assert_eq!(key.fingerprint().len(), 40);
        let again = StewardPgpKey::from_armored(&key.to_armored_secret().unwrap()).unwrap();
        assert_eq!(again.fingerprint(), key.fingerprint());
        let a = key.sign_detached(b"part\r\n", 1_800_000_100).unwrap();
        assert_eq!(a, again.sign_detached(b"part\r\n", 1_800_000_100).unwrap(), "deterministic");
        let (sig, _) = pgp::composed::DetachedSignature::from_string(&a).unwrap();
        sig.verify(&key.public(), b"part\r\n").unwrap();
        assert!(sig.verify(&key.public(), b"part\n").is_err());
        let header = key.autocrypt_header("moves@steward.example");
        assert!(header.starts_with("addr=moves@steward.example; prefer-encrypt=mutual; keydata=\r\n "));
        assert!(header.split("\r\n").all(|l| l.len() <= 76), "{header}");
        assert!(format!("{key:?}").contains(&key.fingerprint()));
        assert!(StewardPgpKey::from_armored("not a key").is_err());
    }
}
