//! Keys: the steward's signing and sealing keys, a player's signing key, and
//! Ed25519 signature checks.
//!
//! Every private key is a PKCS#8 v1 file in PEM (`-----BEGIN PRIVATE KEY-----`),
//! the format `openssl genpkey -algorithm ed25519` (or `x25519`) writes, so keys
//! can be made, inspected and used with other tools (OpenSSL, Python's
//! `cryptography`); text before the BEGIN line is a comment. Files are created
//! with mode 0600, written to a temporary name, synced, and linked into place, so
//! a crash never leaves half a key and an existing key is never overwritten.
//!
//! The steward's files in its data directory:
//!
//! | file | key | for |
//! |---|---|---|
//! | `steward-signing.pem` | Ed25519 | signing transcript heads in every mail |
//! | `steward-sealing.pem` | X25519 | opening sealed moves ([`seal`](mod@super::seal)); the at-rest key is derived from it |
//! | `steward-openpgp.asc` | OpenPGP (Ed25519 + Cv25519), armoured | signing mails (PGP/MIME), opening encrypted replies ([`openpgp`](mod@super::openpgp)) |
//!
//! The steward's **fingerprint** names both public keys at once: the first 16
//! bytes of SHA-256(signing public key ‖ sealing public key), in lower-case hex,
//! in groups of four digits (`3f2a 9c01 …`, eight groups). A player who checks it
//! against a board mail knows both the key that signs the transcript and the key
//! moves are sealed to.

use std::fmt;
use std::fs;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD as BASE64, STANDARD_PAD_INDIFFERENT};
use ring::digest;
use ring::signature::{self, Ed25519KeyPair, KeyPair};
use x25519_dalek::{PublicKey, SharedSecret, StaticSecret};

use super::openpgp::steward_key::StewardPgpKey;

/// The file of the steward's Ed25519 signing key, in its data directory.
pub const SIGNING_KEY_FILE: &str = "steward-signing.pem";
/// The file of the steward's X25519 sealing key, in its data directory.
pub const SEALING_KEY_FILE: &str = "steward-sealing.pem";
/// The file of the steward's secret for reply capabilities (32 random bytes in
/// PEM armour), in its data directory.
pub const CAPABILITY_KEY_FILE: &str = "steward-capability.pem";
/// The file of the steward's OpenPGP secret key (armoured), in its data directory.
pub const OPENPGP_KEY_FILE: &str = "steward-openpgp.asc";
/// The prefix of a retired OpenPGP key's file, followed by the time of the
/// rotation and `.asc`: replies encrypted to it still open.
const RETIRED_OPENPGP_PREFIX: &str = "steward-openpgp.retired-";

/// PKCS#8 v1 of an Ed25519 private key (RFC 8410) is this prefix and the 32-byte seed.
const ED25519_PKCS8_PREFIX: [u8; 16] =
    [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
/// PKCS#8 v1 of an X25519 private key (RFC 8410) is this prefix and the 32 bytes.
const X25519_PKCS8_PREFIX: [u8; 16] =
    [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20];
const PEM_LABEL: &str = "PRIVATE KEY";

/// A key file that could not be read, written or understood.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file does not hold the key it should.
    #[error("{} is not {expected} (PKCS#8 PEM, -----BEGIN PRIVATE KEY-----)", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// The key it should hold.
        expected: &'static str,
    },
    /// A new key would overwrite a file.
    #[error("{} already exists; choose another file or move that one away first", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> KeyError + '_ {
    move |source| KeyError::Io { path: path.to_owned(), source }
}

/// Checks an Ed25519 signature.
pub fn verify_signature(public_key: &[u8; 32], msg: &[u8], sig: &[u8]) -> bool {
    signature::UnparsedPublicKey::new(&signature::ED25519, public_key).verify(msg, sig).is_ok()
}

/// An Ed25519 (or X25519) public key from base64 (32 bytes; padding optional,
/// surrounding white space ignored), as `fairsteward player keygen` prints it and
/// `public_key` holds at game creation. `None` if it is not 32 bytes of base64.
pub fn public_key_from_base64(text: &str) -> Option<[u8; 32]> {
    STANDARD_PAD_INDIFFERENT.decode(text.trim()).ok()?.try_into().ok()
}

/// The steward's fingerprint over both of its public keys (see the module docs).
pub fn fingerprint(signing_public: &[u8; 32], sealing_public: &[u8; 32]) -> String {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(signing_public);
    ctx.update(sealing_public);
    let hash = ctx.finish();
    hash.as_ref()[..16].chunks(2).map(crate::ids::hex).collect::<Vec<_>>().join(" ")
}

/// Whether two fingerprints are the same, ignoring case, spaces and colons.
pub fn same_fingerprint(a: &str, b: &str) -> bool {
    let norm =
        |s: &str| s.chars().filter(|c| c.is_ascii_hexdigit()).map(|c| c.to_ascii_lowercase()).collect::<String>();
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && a == b
}

/// The steward's keys: Ed25519 for signing, X25519 for sealed moves.
pub struct StewardKeys {
    signing: Ed25519KeyPair,
    sealing: StaticSecret,
    sealing_public: [u8; 32],
    /// Sealing keys replaced by `keys rotate`, newest first: moves sealed to
    /// them (in flight, or held in the store) still open.
    retired_sealing: Vec<StaticSecret>,
    capability: ring::hmac::Key,
    /// The OpenPGP key (issue 33); `None` until [`StewardKeys::load_or_create_for`]
    /// made it (it needs the steward's address).
    openpgp: Option<StewardPgpKey>,
    /// OpenPGP keys replaced by `keys rotate`, newest first: replies encrypted
    /// to them still open.
    retired_openpgp: Vec<StewardPgpKey>,
}

/// The HKDF salt that derives the at-rest key from a sealing secret; also that
/// construction's version.
const AT_REST_SALT: &[u8] = b"fairsteward-at-rest-v1";

/// The prefix of a retired sealing key's file, followed by the time of the
/// rotation and `.pem`.
const RETIRED_SEALING_PREFIX: &str = "steward-sealing.retired-";
/// The prefix of a retired signing key's file (kept for the record).
const RETIRED_SIGNING_PREFIX: &str = "steward-signing.retired-";

/// New steward keys written beside the current ones (`*.pem.new`), to be put in
/// place by [`StagedKeys::install`] once the rotation is recorded.
#[derive(Debug)]
pub struct StagedKeys {
    dir: PathBuf,
    /// The new keys (with the current capability secret, and every sealing key
    /// so far retired, the current one included).
    pub keys: std::sync::Arc<StewardKeys>,
}

impl StewardKeys {
    /// Loads the keys from `dir`, creating the directory and any missing key file
    /// (mode 0600). A key file readable by others is used, with a warning.
    ///
    /// # Errors
    /// A [`KeyError`] when a file cannot be read or written, or does not hold its key.
    pub fn load_or_create(dir: &Path) -> Result<StewardKeys, KeyError> {
        fs::create_dir_all(dir).map_err(io_error(dir))?;
        let signing_path = dir.join(SIGNING_KEY_FILE);
        let signing = load_or_make(
            &signing_path,
            new_ed25519_pkcs8,
            |der| Ed25519KeyPair::from_pkcs8_maybe_unchecked(der).ok(),
            "an Ed25519 private key",
        )?;
        let sealing_path = dir.join(SEALING_KEY_FILE);
        let sealing = load_or_make(
            &sealing_path,
            || [&X25519_PKCS8_PREFIX[..], &super::random_bytes::<32>()].concat(),
            x25519_from_pkcs8,
            "an X25519 private key",
        )?;
        let capability = load_or_make_capability(dir)?;
        let mut keys = StewardKeys::from_parts(signing, sealing, capability);
        keys.retired_sealing = retired_sealing(dir)?;
        let openpgp_path = dir.join(OPENPGP_KEY_FILE);
        keys.openpgp = match fs::read_to_string(&openpgp_path) {
            Ok(text) => {
                warn_if_exposed(&openpgp_path);
                Some(read_openpgp(&openpgp_path, &text)?)
            }
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(io_error(&openpgp_path)(e)),
        };
        keys.retired_openpgp = retired_openpgp(dir)?;
        Ok(keys)
    }

    /// [`StewardKeys::load_or_create`], and the OpenPGP key too: made for
    /// `address` (the steward's From address, in its user id) at `now` (seconds
    /// since the epoch) when the directory has none.
    ///
    /// # Errors
    /// A [`KeyError`] when a file cannot be read or written, or does not hold its key.
    pub fn load_or_create_for(dir: &Path, address: &str, now: i64) -> Result<StewardKeys, KeyError> {
        let mut keys = StewardKeys::load_or_create(dir)?;
        if keys.openpgp.is_none() {
            let path = dir.join(OPENPGP_KEY_FILE);
            let key = new_openpgp(&path, address, now)?;
            match write_secret(&path, key.to_armored_secret().map_err(openpgp_error(&path))?.as_bytes()) {
                Ok(()) => {
                    tracing::info!(path = %path.display(), fingerprint = %key.fingerprint(), "created the steward's OpenPGP key");
                    keys.openpgp = Some(key);
                }
                // Another process made it meanwhile: use theirs.
                Err(KeyError::Exists { .. }) => {
                    let text = fs::read_to_string(&path).map_err(io_error(&path))?;
                    keys.openpgp = Some(read_openpgp(&path, &text)?);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(keys)
    }

    /// Writes new signing and sealing keys beside the current ones
    /// (`steward-signing.pem.new`, `steward-sealing.pem.new`, mode 0600) and
    /// returns them; nothing changes for the running keys until
    /// [`StagedKeys::install`]. The capability secret stays: reply addresses in
    /// mails already sent keep working.
    ///
    /// # Errors
    /// A [`KeyError`] when a file cannot be read or written.
    pub fn stage_rotation(dir: &Path) -> Result<StagedKeys, KeyError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        StewardKeys::stage_rotation_at(dir, now)
    }

    /// [`StewardKeys::stage_rotation`], the new OpenPGP key created at `now`
    /// (seconds since the epoch: the steward's clock).
    ///
    /// # Errors
    /// A [`KeyError`] when a file cannot be read or written.
    pub fn stage_rotation_at(dir: &Path, now: i64) -> Result<StagedKeys, KeyError> {
        let current = StewardKeys::load_or_create(dir)?;
        let signing_new = dir.join(format!("{SIGNING_KEY_FILE}.new"));
        let sealing_new = dir.join(format!("{SEALING_KEY_FILE}.new"));
        let openpgp_new = dir.join(format!("{OPENPGP_KEY_FILE}.new"));
        // Left by a rotation that did not finish: it was never installed.
        for p in [&signing_new, &sealing_new, &openpgp_new] {
            match fs::remove_file(p) {
                Err(e) if e.kind() != ErrorKind::NotFound => return Err(io_error(p)(e)),
                _ => {}
            }
        }
        let signing_der = new_ed25519_pkcs8();
        let sealing_der = [&X25519_PKCS8_PREFIX[..], &super::random_bytes::<32>()].concat();
        write_secret(&signing_new, pem_encode(&signing_der).as_bytes())?;
        write_secret(&sealing_new, pem_encode(&sealing_der).as_bytes())?;
        let format = |path: &Path, expected| KeyError::Format { path: path.to_owned(), expected };
        let signing = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&signing_der)
            .map_err(|_| format(&signing_new, "an Ed25519 private key"))?;
        let sealing = x25519_from_pkcs8(&sealing_der).ok_or_else(|| format(&sealing_new, "an X25519 private key"))?;
        let capability = load_or_make_capability(dir)?;
        let mut keys = StewardKeys::from_parts(signing, sealing, capability);
        keys.retired_sealing = std::iter::once(current.sealing.clone()).chain(current.retired_sealing).collect();
        // A new OpenPGP key for the same address; the current one is retired
        // and still opens replies encrypted to it.
        if let Some(old) = &current.openpgp {
            let address = old.address().unwrap_or_default();
            let key = new_openpgp(&openpgp_new, &address, now)?;
            write_secret(&openpgp_new, key.to_armored_secret().map_err(openpgp_error(&openpgp_new))?.as_bytes())?;
            keys.openpgp = Some(key);
            keys.retired_openpgp = std::iter::once(old.clone()).chain(current.retired_openpgp).collect();
        }
        Ok(StagedKeys { dir: dir.to_owned(), keys: std::sync::Arc::new(keys) })
    }

    /// The steward's key files that `dir` lacks. `openpgp_known`: whether the
    /// store has recorded a steward OpenPGP key (issue 33), so that
    /// `steward-openpgp.asc` must be there too; a store from before that key
    /// existed gets one made at its first start instead.
    pub fn missing_files(dir: &Path, openpgp_known: bool) -> Vec<PathBuf> {
        let openpgp = openpgp_known.then_some(OPENPGP_KEY_FILE);
        [SIGNING_KEY_FILE, SEALING_KEY_FILE, CAPABILITY_KEY_FILE]
            .into_iter()
            .chain(openpgp)
            .map(|f| dir.join(f))
            .filter(|p| !p.exists())
            .collect()
    }

    fn from_parts(signing: Ed25519KeyPair, sealing: StaticSecret, capability: [u8; 32]) -> StewardKeys {
        let sealing_public = PublicKey::from(&sealing).to_bytes();
        StewardKeys {
            signing,
            sealing,
            sealing_public,
            retired_sealing: Vec::new(),
            capability: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &capability),
            openpgp: None,
            retired_openpgp: Vec::new(),
        }
    }

    /// The steward's OpenPGP key, when it has one (see [`StewardKeys::load_or_create_for`]).
    pub fn openpgp(&self) -> Option<&StewardPgpKey> {
        self.openpgp.as_ref()
    }

    /// Every OpenPGP secret key that opens replies: the current one, then the
    /// retired ones, newest first.
    pub fn openpgp_secrets(&self) -> Vec<&pgp::composed::SignedSecretKey> {
        self.openpgp.iter().chain(&self.retired_openpgp).map(StewardPgpKey::secret).collect()
    }

    /// The HMAC-SHA256 of `message` under the steward's capability secret.
    pub(crate) fn capability_tag(&self, message: &[u8]) -> ring::hmac::Tag {
        ring::hmac::sign(&self.capability, message)
    }

    /// Keys from fixed secrets, for known-answer tests.
    #[cfg(test)]
    pub(crate) fn from_secrets_for_tests(signing_seed: [u8; 32], sealing: [u8; 32]) -> StewardKeys {
        let signing = Ed25519KeyPair::from_seed_unchecked(&signing_seed).expect("any 32 bytes are a seed");
        StewardKeys::from_parts(signing, StaticSecret::from(sealing), [7; 32])
    }

    /// The Ed25519 public key that checks the steward's signatures.
    pub fn signing_public(&self) -> [u8; 32] {
        self.signing.public_key().as_ref().try_into().expect("Ed25519 public keys are 32 bytes")
    }

    /// [`StewardKeys::signing_public`] in base64.
    pub fn signing_public_base64(&self) -> String {
        BASE64.encode(self.signing_public())
    }

    /// The X25519 public key moves are sealed to.
    pub fn sealing_public(&self) -> [u8; 32] {
        self.sealing_public
    }

    /// [`StewardKeys::sealing_public`] in base64.
    pub fn sealing_public_base64(&self) -> String {
        BASE64.encode(self.sealing_public)
    }

    /// An Ed25519 signature over `msg`.
    pub fn sign(&self, msg: &[u8]) -> [u8; 64] {
        self.signing.sign(msg).as_ref().try_into().expect("Ed25519 signatures are 64 bytes")
    }

    /// The fingerprint of both public keys (see the module docs).
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.signing_public(), &self.sealing_public)
    }

    /// The X25519 agreement with a sender's ephemeral key; `None` if it is all
    /// zeros (a small-order point: not a real sender).
    pub(crate) fn agree(&self, ephemeral_public: &[u8; 32]) -> Option<SharedSecret> {
        let shared = self.sealing.diffie_hellman(&PublicKey::from(*ephemeral_public));
        shared.was_contributory().then_some(shared)
    }

    /// The at-rest keys ([`seal_at_rest`](super::seal::seal_at_rest)), derived
    /// from the current sealing secret and then from each retired one, newest
    /// first: records kept before a rotation still open.
    pub(crate) fn at_rest_keys(&self) -> impl Iterator<Item = ring::hkdf::Prk> + '_ {
        std::iter::once(&self.sealing)
            .chain(&self.retired_sealing)
            .map(|secret| ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, AT_REST_SALT).extract(secret.as_bytes()))
    }

    /// The agreements with a sender's ephemeral key under each sealing key the
    /// steward retired in `keys rotate`, newest first, with that key's public half.
    pub(crate) fn agree_retired(&self, ephemeral_public: &[u8; 32]) -> Vec<(SharedSecret, [u8; 32])> {
        self.retired_sealing
            .iter()
            .map(|k| (k.diffie_hellman(&PublicKey::from(*ephemeral_public)), PublicKey::from(k).to_bytes()))
            .filter(|(shared, _)| shared.was_contributory())
            .collect()
    }
}

/// Secrets never appear in debug output.
impl fmt::Debug for StewardKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StewardKeys").field("fingerprint", &self.fingerprint()).finish_non_exhaustive()
    }
}

impl StagedKeys {
    /// Removes the staged files (a rotation that was not recorded).
    pub fn discard(&self) {
        for live in [SIGNING_KEY_FILE, SEALING_KEY_FILE, OPENPGP_KEY_FILE] {
            let _ = fs::remove_file(self.dir.join(format!("{live}.new")));
        }
    }

    /// Puts the staged keys in place: the current signing and sealing keys
    /// move to `steward-*.retired-<stamp>.pem` (the sealing one still opens
    /// moves sealed to it), the new ones take their names.
    ///
    /// # Errors
    /// A [`KeyError`] when a file cannot be renamed.
    pub fn install(&self, stamp: &str) -> Result<(), KeyError> {
        for (live, retired_prefix) in
            [(SIGNING_KEY_FILE, RETIRED_SIGNING_PREFIX), (SEALING_KEY_FILE, RETIRED_SEALING_PREFIX)]
        {
            let live = self.dir.join(live);
            let retired = self.dir.join(format!("{retired_prefix}{stamp}.pem"));
            let staged = self.dir.join(format!("{}.new", live.file_name().unwrap_or_default().to_string_lossy()));
            fs::hard_link(&live, &retired).map_err(io_error(&retired))?;
            fs::rename(&staged, &live).map_err(io_error(&live))?;
        }
        let (live, staged) = (self.dir.join(OPENPGP_KEY_FILE), self.dir.join(format!("{OPENPGP_KEY_FILE}.new")));
        if staged.exists() {
            let retired = self.dir.join(format!("{RETIRED_OPENPGP_PREFIX}{stamp}.asc"));
            fs::hard_link(&live, &retired).map_err(io_error(&retired))?;
            fs::rename(&staged, &live).map_err(io_error(&live))?;
        }
        if let Ok(d) = fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// The files of keys retired in `dir` whose names start with `prefix` and end
/// with `ext`, newest first (the names sort by time); none when `dir` cannot be read.
fn retired_files(dir: &Path, prefix: &str, ext: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(prefix) && n.ends_with(ext)))
        .collect();
    paths.sort();
    paths.reverse();
    paths
}

/// The sealing keys retired in `dir`, newest first (the names sort by time).
fn retired_sealing(dir: &Path) -> Result<Vec<StaticSecret>, KeyError> {
    retired_files(dir, RETIRED_SEALING_PREFIX, ".pem")
        .iter()
        .map(|p| {
            let text = fs::read_to_string(p).map_err(io_error(p))?;
            pem_decode(&text)
                .and_then(|der| x25519_from_pkcs8(&der))
                .ok_or_else(|| KeyError::Format { path: p.clone(), expected: "an X25519 private key" })
        })
        .collect()
}

/// The OpenPGP keys retired in `dir`, newest first (the names sort by time).
fn retired_openpgp(dir: &Path) -> Result<Vec<StewardPgpKey>, KeyError> {
    retired_files(dir, RETIRED_OPENPGP_PREFIX, ".asc")
        .iter()
        .map(|p| {
            let text = fs::read_to_string(p).map_err(io_error(p))?;
            read_openpgp(p, &text)
        })
        .collect()
}

fn read_openpgp(path: &Path, text: &str) -> Result<StewardPgpKey, KeyError> {
    StewardPgpKey::from_armored(text)
        .map_err(|_| KeyError::Format { path: path.to_owned(), expected: "an OpenPGP secret key (armoured)" })
}

fn new_openpgp(path: &Path, address: &str, now: i64) -> Result<StewardPgpKey, KeyError> {
    StewardPgpKey::generate(address, now).map_err(openpgp_error(path))
}

fn openpgp_error(path: &Path) -> impl FnOnce(super::openpgp::steward_key::PgpError) -> KeyError + '_ {
    move |e| KeyError::Io { path: path.to_owned(), source: std::io::Error::other(e.to_string()) }
}

/// A player's Ed25519 signing key, kept in a PKCS#8 PEM file.
pub struct PlayerKey {
    pair: Ed25519KeyPair,
    pkcs8: Vec<u8>,
}

impl PlayerKey {
    /// A new random key.
    pub fn generate() -> PlayerKey {
        let pkcs8 = new_ed25519_pkcs8();
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&pkcs8).expect("a PKCS#8 v1 Ed25519 key");
        PlayerKey { pair, pkcs8 }
    }

    /// Reads a key file: PKCS#8 PEM (v1 or v2), as [`PlayerKey::save`] or
    /// `openssl genpkey -algorithm ed25519` write it.
    ///
    /// # Errors
    /// A [`KeyError`] when the file cannot be read or holds no Ed25519 key.
    pub fn load(path: &Path) -> Result<PlayerKey, KeyError> {
        let text = fs::read_to_string(path).map_err(io_error(path))?;
        let format = || KeyError::Format { path: path.to_owned(), expected: "an Ed25519 private key" };
        let pkcs8 = pem_decode(&text).ok_or_else(format)?;
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&pkcs8).map_err(|_| format())?;
        Ok(PlayerKey { pair, pkcs8 })
    }

    /// Writes the key to a new file, mode 0600, with a comment line naming the
    /// public key. An existing file is never overwritten.
    ///
    /// # Errors
    /// [`KeyError::Exists`] when the file exists; [`KeyError::Io`] when it cannot
    /// be written.
    pub fn save(&self, path: &Path) -> Result<(), KeyError> {
        let text = format!(
            "Fairsteward player key (Ed25519). Keep it secret. Public key: {}\n{}",
            self.public_key_base64(),
            pem_encode(&self.pkcs8)
        );
        write_secret(path, text.as_bytes())
    }

    /// The public key, to register for a seat.
    pub fn public_key(&self) -> [u8; 32] {
        self.pair.public_key().as_ref().try_into().expect("Ed25519 public keys are 32 bytes")
    }

    /// [`PlayerKey::public_key`] in base64, as `public_key` at game creation takes it.
    pub fn public_key_base64(&self) -> String {
        BASE64.encode(self.public_key())
    }

    /// An Ed25519 signature over `msg`.
    pub fn sign(&self, msg: &[u8]) -> [u8; 64] {
        self.pair.sign(msg).as_ref().try_into().expect("Ed25519 signatures are 64 bytes")
    }
}

/// Secrets never appear in debug output.
impl fmt::Debug for PlayerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlayerKey").field("public_key", &self.public_key_base64()).finish_non_exhaustive()
    }
}

/// A new Ed25519 key as PKCS#8 v1 (RFC 8410): the prefix and a random seed.
/// ring writes v2, with the public key appended, which OpenSSL 3.0 and Python's
/// `cryptography` refuse to read; v1 is what they write themselves.
fn new_ed25519_pkcs8() -> Vec<u8> {
    [&ED25519_PKCS8_PREFIX[..], &super::random_bytes::<32>()].concat()
}

fn x25519_from_pkcs8(der: &[u8]) -> Option<StaticSecret> {
    let secret: [u8; 32] = der.strip_prefix(&X25519_PKCS8_PREFIX[..])?.try_into().ok()?;
    Some(StaticSecret::from(secret))
}

/// Loads the key in `path`, or makes one (`make` returns PKCS#8 DER) and writes it.
fn load_or_make<T>(
    path: &Path,
    make: impl FnOnce() -> Vec<u8>,
    read: impl Fn(&[u8]) -> Option<T>,
    expected: &'static str,
) -> Result<T, KeyError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => {
            warn_if_exposed(path);
            text
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let text = pem_encode(&make());
            match write_secret(path, text.as_bytes()) {
                Ok(()) => {
                    tracing::info!(path = %path.display(), "created a steward key");
                    text
                }
                // Another process made it meanwhile: use theirs.
                Err(KeyError::Exists { .. }) => fs::read_to_string(path).map_err(io_error(path))?,
                Err(e) => return Err(e),
            }
        }
        Err(e) => return Err(io_error(path)(e)),
    };
    pem_decode(&text).and_then(|der| read(&der)).ok_or_else(|| KeyError::Format { path: path.to_owned(), expected })
}

fn warn_if_exposed(path: &Path) {
    if let Ok(meta) = fs::metadata(path)
        && meta.permissions().mode() & 0o077 != 0
    {
        tracing::warn!(path = %path.display(), mode = format!("{:o}", meta.permissions().mode() & 0o777), "a steward key file is readable by others; chmod 600 it");
    }
}

/// The reply-capability secret in `dir`, made at the first start; a key
/// rotation keeps it (the capabilities in mails already sent stay valid).
fn load_or_make_capability(dir: &Path) -> Result<[u8; 32], KeyError> {
    load_or_make(
        &dir.join(CAPABILITY_KEY_FILE),
        || super::random_bytes::<32>().to_vec(),
        |raw| <[u8; 32]>::try_from(raw).ok(),
        "32 secret bytes",
    )
}

/// Writes a new secret file, mode 0600: a temporary file, synced, then linked
/// into place (which fails if the file exists), then the directory synced.
pub(crate) fn write_secret(path: &Path, contents: &[u8]) -> Result<(), KeyError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let written = (|| {
        let mut file = fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
        file.write_all(contents)?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io_error(path)(e));
    }
    let placed = match fs::hard_link(&tmp, path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(KeyError::Exists { path: path.to_owned() }),
        // A file system without hard links: check, then rename (not atomic, but
        // only a second process making the same key at the same instant could lose).
        Err(_) if path.exists() => Err(KeyError::Exists { path: path.to_owned() }),
        Err(_) => fs::rename(&tmp, path).map_err(io_error(path)),
    };
    let _ = fs::remove_file(&tmp);
    placed?;
    // The new name must survive a crash too.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn pem_encode(der: &[u8]) -> String {
    let b64 = BASE64.encode(der);
    let mut out = format!("-----BEGIN {PEM_LABEL}-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END {PEM_LABEL}-----\n"));
    out
}

/// The DER inside the first `PRIVATE KEY` PEM block; text around it is ignored.
fn pem_decode(text: &str) -> Option<Vec<u8>> {
    let begin = format!("-----BEGIN {PEM_LABEL}-----");
    let end = format!("-----END {PEM_LABEL}-----");
    let mut lines = text.lines().map(str::trim).skip_while(|l| *l != begin).skip(1);
    let mut b64 = String::new();
    for line in lines.by_ref() {
        if line == end {
            return BASE64.decode(b64).ok();
        }
        b64.push_str(line);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn steward_keys_are_created_0600_and_reload_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let a = StewardKeys::load_or_create(&data).unwrap();
        for file in [SIGNING_KEY_FILE, SEALING_KEY_FILE, CAPABILITY_KEY_FILE] {
            assert_eq!(mode(&data.join(file)), 0o600, "{file}");
        }
        let leftovers: Vec<_> = fs::read_dir(&data).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 3, "no temporary files left: {leftovers:?}");
        let b = StewardKeys::load_or_create(&data).unwrap();
        assert_eq!(a.signing_public(), b.signing_public());
        assert_eq!(a.sealing_public(), b.sealing_public());
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert!(verify_signature(&a.signing_public(), b"head", &b.sign(b"head")));
        let sealed = super::super::seal("Nf3", &a.sealing_public(), "8KQ2ZJ", "white", 1);
        assert_eq!(super::super::open_sealed(&sealed, &b, "8KQ2ZJ", "white", 1).unwrap(), "Nf3");
    }

    #[test]
    fn a_missing_key_file_is_made_again_and_the_other_kept() {
        let dir = tempfile::tempdir().unwrap();
        let a = StewardKeys::load_or_create(dir.path()).unwrap();
        fs::remove_file(dir.path().join(SEALING_KEY_FILE)).unwrap();
        let b = StewardKeys::load_or_create(dir.path()).unwrap();
        assert_eq!(a.signing_public(), b.signing_public());
        assert_ne!(a.sealing_public(), b.sealing_public());
    }

    #[test]
    fn a_garbled_key_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(SIGNING_KEY_FILE), "not a key").unwrap();
        let err = StewardKeys::load_or_create(dir.path()).unwrap_err();
        assert!(matches!(err, KeyError::Format { .. }), "{err}");
        assert!(err.to_string().contains(SIGNING_KEY_FILE), "{err}");
    }

    /// Keys made by `openssl genpkey -algorithm ed25519` / `x25519` load; the
    /// public keys are from `openssl pkey -pubout -outform DER | tail -c 32 | base64`.
    #[test]
    fn openssl_keys_load() {
        let dir = tempfile::tempdir().unwrap();
        let ed = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINntVn9WIR89T16dKhlZQbsY4BHc7wEimW+0WXdXGCge\n-----END PRIVATE KEY-----\n";
        let x = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VuBCIEIABJQx1XA8Jb12GWVa/ZUkkX3FxpFTElOxNAlNkFnmN5\n-----END PRIVATE KEY-----\n";
        fs::write(dir.path().join("player.pem"), ed).unwrap();
        let player = PlayerKey::load(&dir.path().join("player.pem")).unwrap();
        assert_eq!(player.public_key_base64(), "Q1zN8iQJRl2XpgNazBKSOBzjCqc/K3REwPe/dFau9tM=");
        fs::write(dir.path().join(SIGNING_KEY_FILE), ed).unwrap();
        fs::write(dir.path().join(SEALING_KEY_FILE), x).unwrap();
        let steward = StewardKeys::load_or_create(dir.path()).unwrap();
        assert_eq!(steward.signing_public_base64(), "Q1zN8iQJRl2XpgNazBKSOBzjCqc/K3REwPe/dFau9tM=");
        assert_eq!(steward.sealing_public_base64(), "81vBPEThlAzeADsGBhId5pMH5OxAGxWM4oVYjSx+0U8=");
    }

    #[test]
    fn player_keys_save_0600_never_overwrite_and_reload() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("alice.key");
        let key = PlayerKey::generate();
        key.save(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(&key.public_key_base64()), "the comment names the public key");
        let der = pem_decode(&text).unwrap();
        assert!(der.len() == 48 && der.starts_with(&ED25519_PKCS8_PREFIX), "PKCS#8 v1, as OpenSSL writes it");
        assert!(matches!(PlayerKey::generate().save(&path), Err(KeyError::Exists { .. })));
        let again = PlayerKey::load(&path).unwrap();
        assert_eq!(again.public_key(), key.public_key());
        assert!(verify_signature(&key.public_key(), b"m", &again.sign(b"m")));
        assert!(!verify_signature(&key.public_key(), b"n", &again.sign(b"m")));
        assert!(!verify_signature(&PlayerKey::generate().public_key(), b"m", &again.sign(b"m")));
        assert!(!format!("{key:?}").contains("pkcs8"), "no secret in debug output");
    }

    #[test]
    fn public_keys_from_base64() {
        let key = PlayerKey::generate();
        let b64 = key.public_key_base64();
        assert_eq!(public_key_from_base64(&format!(" {b64}\n")), Some(key.public_key()));
        assert_eq!(public_key_from_base64(b64.trim_end_matches('=')), Some(key.public_key()));
        assert_eq!(public_key_from_base64(&b64[..40]), None);
        assert_eq!(public_key_from_base64("not base64!"), None);
    }

    /// The fingerprint's known answer, from
    /// `python3 -c 'import hashlib; print(hashlib.sha256(bytes([1]*32 + [2]*32)).hexdigest()[:32])'`.
    #[test]
    fn fingerprint_known_answer() {
        assert_eq!(fingerprint(&[1; 32], &[2; 32]), "f818 afd3 7a6d c3bc 92fb 4473 1011 2770");
        assert!(same_fingerprint(
            "f818 afd3 7a6d c3bc 92fb 4473 1011 2770",
            &"f818 afd3 7a6d c3bc 92fb 4473 1011 2770".to_uppercase().replace(' ', ":")
        ));
        assert!(!same_fingerprint("", ""));
        let dir = tempfile::tempdir().unwrap();
        let k = StewardKeys::load_or_create(dir.path()).unwrap();
        assert_eq!(k.fingerprint(), fingerprint(&k.signing_public(), &k.sealing_public()));
        assert_eq!(k.fingerprint().len(), 8 * 4 + 7);
        assert!(format!("{k:?}").contains(&k.fingerprint()));
    }
}
