//! A player's OpenPGP public key (a "certificate"): ASCII-armoured, at most
//! [`MAX_KEY_BYTES`], exactly one key, every self-signature valid. A secret key
//! is refused with a warning to keep it to oneself. The fingerprint is the
//! primary key's, in upper-case hex in groups of four, as GnuPG prints it.

use pgp::composed::{Deserializable, SignedPublicKey};
use pgp::types::KeyDetails;

/// The largest armoured key taken (an RSA 4096 key with a few user ids and
/// subkeys is under 16 KiB).
pub const MAX_KEY_BYTES: usize = 64 * 1024;

/// Why a text is not a usable OpenPGP public key; `Display` says what to send instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyProblem {
    /// Nothing given.
    #[error(
        "the OpenPGP key is empty; paste the output of `gpg --armor --export YOUR-ADDRESS` (-----BEGIN PGP PUBLIC KEY BLOCK-----)"
    )]
    Empty,
    /// Larger than [`MAX_KEY_BYTES`].
    #[error(
        "the OpenPGP key has {size} bytes, more than the {MAX_KEY_BYTES} taken; export it without other people's signatures (`gpg --armor --export-options export-minimal --export YOUR-ADDRESS`)"
    )]
    TooLarge {
        /// Its size.
        size: usize,
    },
    /// A secret key.
    #[error(
        "this is a SECRET key: never send it to anyone, and make a new key if others saw it; send the public key (`gpg --armor --export YOUR-ADDRESS`) instead"
    )]
    Secret,
    /// Not an armoured public key.
    #[error(
        "not an ASCII-armoured OpenPGP public key ({0}); paste the output of `gpg --armor --export YOUR-ADDRESS`, from -----BEGIN PGP PUBLIC KEY BLOCK----- to -----END PGP PUBLIC KEY BLOCK-----"
    )]
    Unreadable(String),
    /// Several keys in one block.
    #[error("the block holds {0} keys; send exactly one, your own (`gpg --armor --export YOUR-ADDRESS`)")]
    Several(usize),
    /// A self-signature does not verify.
    #[error("the key's self-signatures do not verify ({0}); export it again from your own key ring")]
    BadSelfSignature(String),
}

/// A player's OpenPGP public key, read and checked.
#[derive(Clone, Debug)]
pub struct PlayerPgpKey {
    key: SignedPublicKey,
    fingerprint: String,
}

impl PlayerPgpKey {
    /// Reads an ASCII-armoured public key (text around the block is ignored).
    ///
    /// # Errors
    /// A [`KeyProblem`] saying what is wrong and what to send instead.
    pub fn parse(text: &str) -> Result<PlayerPgpKey, KeyProblem> {
        if text.len() > MAX_KEY_BYTES {
            return Err(KeyProblem::TooLarge { size: text.len() });
        }
        if text.contains("PRIVATE KEY BLOCK") || text.contains("SECRET KEY BLOCK") {
            return Err(KeyProblem::Secret);
        }
        let begin = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
        let end = "-----END PGP PUBLIC KEY BLOCK-----";
        let Some(start) = text.find(begin) else {
            return Err(if text.trim().is_empty() {
                KeyProblem::Empty
            } else {
                KeyProblem::Unreadable("no -----BEGIN PGP PUBLIC KEY BLOCK----- line".into())
            });
        };
        let stop = text[start..]
            .find(end)
            .map(|i| start + i + end.len())
            .ok_or_else(|| KeyProblem::Unreadable("no -----END PGP PUBLIC KEY BLOCK----- line".into()))?;
        // Mail and forms may bring CRLF or stray indentation.
        let block: String = text[start..stop].lines().map(|l| format!("{}\n", l.trim())).collect();
        let (keys, _) =
            SignedPublicKey::from_string_many(&block).map_err(|e| KeyProblem::Unreadable(short(&e.to_string())))?;
        let mut found = Vec::new();
        for k in keys.take(8) {
            found.push(k.map_err(|e| KeyProblem::Unreadable(short(&e.to_string())))?);
        }
        let key = match found.len() {
            0 => return Err(KeyProblem::Unreadable("no key in the block".into())),
            1 => found.remove(0),
            n => return Err(KeyProblem::Several(n)),
        };
        key.verify_bindings().map_err(|e| KeyProblem::BadSelfSignature(short(&e.to_string())))?;
        let fingerprint = group(&format!("{:X}", key.primary_key.fingerprint()));
        Ok(PlayerPgpKey { key, fingerprint })
    }

    /// Reads the base64 `keydata` of an `Autocrypt:` header (a binary key).
    ///
    /// # Errors
    /// As [`PlayerPgpKey::parse`].
    pub fn from_autocrypt(keydata: &str) -> Result<PlayerPgpKey, KeyProblem> {
        use base64::Engine as _;
        let compact: String = keydata.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.len() > MAX_KEY_BYTES {
            return Err(KeyProblem::TooLarge { size: compact.len() });
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(compact)
            .map_err(|_| KeyProblem::Unreadable("the Autocrypt keydata is not base64".into()))?;
        let key = SignedPublicKey::from_bytes(&bytes[..]).map_err(|e| KeyProblem::Unreadable(short(&e.to_string())))?;
        let armored =
            key.to_armored_string(Default::default()).map_err(|e| KeyProblem::Unreadable(short(&e.to_string())))?;
        PlayerPgpKey::parse(&armored)
    }

    /// The primary key's fingerprint: upper-case hex in groups of four.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The key as read.
    pub fn key(&self) -> &SignedPublicKey {
        &self.key
    }

    /// The key ASCII-armoured again (what the store and the transcript keep).
    pub fn armored(&self) -> String {
        self.key.to_armored_string(Default::default()).unwrap_or_default()
    }
}

/// Hex in groups of four, as GnuPG prints fingerprints.
pub(super) fn group(hex: &str) -> String {
    hex.as_bytes().chunks(4).map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>().join(" ")
}

/// An error text cut to one short line.
pub(super) fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.len() > 160 { format!("{}…", &line[..line.floor_char_boundary(160)]) } else { line.to_owned() }
}

/// Whether two fingerprints are the same, ignoring case and spaces.
pub fn same_fingerprint(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.chars().filter(char::is_ascii_hexdigit).map(|c| c.to_ascii_uppercase()).collect::<String>();
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_empty_large_and_garbled_keys_are_refused_saying_what_to_send() {
        assert_eq!(PlayerPgpKey::parse("  ").unwrap_err(), KeyProblem::Empty);
        let secret = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nxVgE\n-----END PGP PRIVATE KEY BLOCK-----\n";
        assert_eq!(PlayerPgpKey::parse(secret).unwrap_err(), KeyProblem::Secret);
        let big = "x".repeat(MAX_KEY_BYTES + 1);
        assert!(matches!(PlayerPgpKey::parse(&big).unwrap_err(), KeyProblem::TooLarge { .. }));
        let garbled = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----\n";
        let e = PlayerPgpKey::parse(garbled).unwrap_err();
        assert!(matches!(e, KeyProblem::Unreadable(_)), "{e:?}");
        assert!(e.to_string().contains("gpg --armor --export"), "{e}");
        assert!(matches!(PlayerPgpKey::parse("Nf3").unwrap_err(), KeyProblem::Unreadable(_)));
    }

    #[test]
    fn fingerprints_compare_without_spaces_or_case() {
        assert_eq!(group("ABCDEF0123"), "ABCD EF01 23");
        assert!(same_fingerprint("abcd ef01", "ABCDEF01"));
        assert!(!same_fingerprint("", ""));
    }
}
