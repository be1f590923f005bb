//! Sealing: a move encrypted to the steward's X25519 key, so that mail servers on
//! the way cannot read it (docs/trust.md), and bound to its game, seat and turn.
//!
//! The construction (an ECIES in the manner of HPKE's base mode):
//!
//! 1. The sender makes a fresh X25519 key pair `(e, E)` for this one message and
//!    computes `shared = X25519(e, S)` with the steward's sealing key `S`; an
//!    all-zero `shared` (a small-order `S`) is refused.
//! 2. `key = HKDF-SHA256(salt = "fairsteward-seal-v1", ikm = shared,
//!    info = E ‖ S, length 32)`.
//! 3. The plaintext, the move's UTF-8, is padded so its length does not show:
//!    one `0x80` byte, then `0x00` bytes up to the next multiple of 32.
//! 4. `ChaCha20-Poly1305(key, nonce = 12 zero bytes, aad = "GAME|seat|turn")`
//!    (game upper case, seat lower case, turn decimal). The all-zero nonce is
//!    safe because every key is used once: `e` is new for each message.
//! 5. The sealed value is `E (32 bytes) ‖ ciphertext ‖ tag (16 bytes)`: 80 bytes
//!    for a move of up to 31 bytes, and always 48 plus a multiple of 32.
//!
//! The steward opens it with its long-lived secret `s`: `shared = X25519(s, E)`,
//! the same key, and the AEAD check fails for another steward's key, any altered
//! byte, and any other game, seat or turn.
//!
//! **What the steward keeps sealed at rest** — a held move until its turn
//! resolves, the kept copy of a player's message, an answer naming a pending
//! move — it seals to itself with a symmetric key instead ([`seal_at_rest`]):
//! nobody else ever opens these, and an X25519 agreement per record cost two
//! scalar multiplications on the store's thread for every move. The at-rest
//! key is `HKDF-SHA256(salt = "fairsteward-at-rest-v1", ikm = s)` of the sealing
//! secret `s` (so `keys rotate` retires it with `s`); each record gets its own
//! key, `HKDF-Expand(that, info = r)` for 16 fresh random bytes `r`, and is
//! `r ‖ ChaCha20-Poly1305(key, nonce = 12 zero bytes, aad, padded bytes) ‖ tag`,
//! with the same padding and associated data as above. Its length is a multiple
//! of 32, which no X25519-sealed value's is (48 plus a multiple of 32), so a
//! record kept by an older version still opens the old way.
//!
//! ring does all of this except keeping a static X25519 secret: its
//! `agreement::EphemeralPrivateKey` can be neither stored nor reloaded, and the
//! steward's sealing key must outlive restarts. So the X25519 operations use
//! `x25519-dalek` 2 (the maintained dalek-cryptography implementation over
//! `curve25519-dalek`, constant-time, feature `static_secrets`). The sender uses
//! it too, which lets the tests pin the ephemeral secret for a known-answer test
//! against an independent implementation; HKDF and ChaCha20-Poly1305 are ring's.

use ring::{aead, hkdf};
use x25519_dalek::{PublicKey, SharedSecret, StaticSecret};

use super::error::EnvelopeError;
use super::keys::StewardKeys;

/// The HKDF salt; also the construction's version.
const HKDF_SALT: &[u8] = b"fairsteward-seal-v1";
/// Plaintexts are padded to a multiple of this many bytes.
const PAD_BLOCK: usize = 32;
/// Bytes a sealed value adds around the padded plaintext: `E` and the tag.
const OVERHEAD: usize = 32 + 16;
/// The shortest sealed value (an empty move, padded to one block).
pub const MIN_SEALED_BYTES: usize = OVERHEAD + PAD_BLOCK;

/// The associated data: `GAME|seat|turn`.
pub fn sealing_aad(game: &str, seat: &str, turn: u32) -> String {
    format!("{}|{}|{}", game.trim().to_ascii_uppercase(), seat.trim().to_ascii_lowercase(), turn)
}

/// Seals `text` to the steward's sealing key for one game, seat and turn.
///
/// Meant for the steward's own key ([`StewardKeys::sealing_public`]); a key from
/// outside goes through [`try_seal`].
///
/// # Panics
/// If `steward_public` is one of the few small-order points, which no X25519
/// public key made from a secret is.
pub fn seal(text: &str, steward_public: &[u8; 32], game: &str, seat: &str, turn: u32) -> Vec<u8> {
    try_seal(text, steward_public, game, seat, turn).expect("a sealing key made by StewardKeys is never of small order")
}

/// Seals `text` to a sealing key from outside (a player's CLI).
///
/// # Errors
/// [`EnvelopeError::BadStewardKey`] when the key is a small-order point, with
/// which the agreement would be all zeros (and the seal readable by anyone).
pub fn try_seal(
    text: &str,
    steward_public: &[u8; 32],
    game: &str,
    seat: &str,
    turn: u32,
) -> Result<Vec<u8>, EnvelopeError> {
    seal_with(super::random_bytes::<32>(), text, steward_public, game, seat, turn)
}

/// [`try_seal`] with a given ephemeral secret (tests use fixed ones).
fn seal_with(
    ephemeral: [u8; 32],
    text: &str,
    steward_public: &[u8; 32],
    game: &str,
    seat: &str,
    turn: u32,
) -> Result<Vec<u8>, EnvelopeError> {
    seal_bytes_with(ephemeral, text.as_bytes(), steward_public, &sealing_aad(game, seat, turn))
}

/// The construction over bytes with the given associated data.
fn seal_bytes_with(
    ephemeral: [u8; 32],
    bytes: &[u8],
    steward_public: &[u8; 32],
    aad: &str,
) -> Result<Vec<u8>, EnvelopeError> {
    let secret = StaticSecret::from(ephemeral);
    let e_public = PublicKey::from(&secret).to_bytes();
    let shared = secret.diffie_hellman(&PublicKey::from(*steward_public));
    if !shared.was_contributory() {
        return Err(EnvelopeError::BadStewardKey);
    }
    let key = aead_key(shared.as_bytes(), &e_public, steward_public);
    let mut buf = pad(bytes);
    key.seal_in_place_append_tag(nonce(), aead::Aad::from(aad.as_bytes()), &mut buf)
        .expect("ChaCha20-Poly1305 seals any message shorter than 256 GiB");
    let mut out = Vec::with_capacity(32 + buf.len());
    out.extend_from_slice(&e_public);
    out.extend_from_slice(&buf);
    Ok(out)
}

/// The associated data of a sealed record: a label no `GAME|seat|turn` of a move
/// can equal (a game id has no `-`), so a record never opens as a move.
fn record_aad(label: &str) -> String {
    format!("fairsteward-record|{label}")
}

/// Seals bytes the steward keeps or queues but must not hold in clear (a raw
/// inbound message, an answer naming a move: issue 11 point 3) with its at-rest
/// key ([`seal_at_rest`]); `label` says what they are and must be given again to
/// open them.
pub fn seal_record(bytes: &[u8], steward: &StewardKeys, label: &str) -> Vec<u8> {
    seal_at_rest(bytes, steward, &record_aad(label))
}

/// Opens what [`seal_record`] sealed under `label` (or what an older version
/// sealed to the steward's X25519 key).
///
/// # Errors
/// As [`open_sealed`] for another key, another label, a cut or altered value.
pub fn open_record(sealed: &[u8], steward: &StewardKeys, label: &str) -> Result<Vec<u8>, EnvelopeError> {
    open_kept(sealed, steward, &record_aad(label))
}

/// Seals a pending move the steward holds until its turn resolves, bound to its
/// game, seat and turn, with the at-rest key.
pub fn seal_held(text: &str, steward: &StewardKeys, game: &str, seat: &str, turn: u32) -> Vec<u8> {
    seal_at_rest(text.as_bytes(), steward, &sealing_aad(game, seat, turn))
}

/// Opens what [`seal_held`] sealed (or an older version's held move, sealed to
/// the steward's X25519 key).
///
/// # Errors
/// As [`open_sealed`].
pub fn open_held(
    sealed: &[u8],
    steward: &StewardKeys,
    game: &str,
    seat: &str,
    turn: u32,
) -> Result<String, EnvelopeError> {
    text(open_kept(sealed, steward, &sealing_aad(game, seat, turn)))
}

/// Random bytes that give each at-rest record its own key.
const AT_REST_RANDOM: usize = 16;

/// The at-rest construction (module docs): `r ‖ ciphertext ‖ tag`.
fn seal_at_rest(bytes: &[u8], steward: &StewardKeys, aad: &str) -> Vec<u8> {
    seal_at_rest_with(super::random_bytes::<AT_REST_RANDOM>(), bytes, steward, aad)
}

/// [`seal_at_rest`] with given random bytes (tests use fixed ones).
fn seal_at_rest_with(random: [u8; AT_REST_RANDOM], bytes: &[u8], steward: &StewardKeys, aad: &str) -> Vec<u8> {
    let current = steward.at_rest_keys().next().expect("the current sealing key comes first");
    let mut buf = pad(bytes);
    at_rest_key(&current, &random)
        .seal_in_place_append_tag(nonce(), aead::Aad::from(aad.as_bytes()), &mut buf)
        .expect("ChaCha20-Poly1305 seals any message shorter than 256 GiB");
    [&random[..], &buf].concat()
}

/// Whether `sealed` has an at-rest record's length (a multiple of 32, at least
/// one block): an X25519-sealed value never has.
fn is_at_rest(sealed: &[u8]) -> bool {
    sealed.len() >= AT_REST_RANDOM + PAD_BLOCK + 16 && sealed.len().is_multiple_of(PAD_BLOCK)
}

/// Opens what the steward kept sealed: an at-rest record, or a value an older
/// version sealed to its X25519 key.
fn open_kept(sealed: &[u8], steward: &StewardKeys, aad: &str) -> Result<Vec<u8>, EnvelopeError> {
    if !is_at_rest(sealed) {
        return open_bytes(sealed, steward, aad);
    }
    let (random, ciphertext) = sealed.split_at(AT_REST_RANDOM);
    let opened = steward.at_rest_keys().find_map(|prk| {
        let mut buf = ciphertext.to_vec();
        let len =
            at_rest_key(&prk, random).open_in_place(nonce(), aead::Aad::from(aad.as_bytes()), &mut buf).ok()?.len();
        buf.truncate(len);
        Some(buf)
    });
    let padded = opened.ok_or(EnvelopeError::SealedElsewhere)?;
    Ok(unpad(&padded).ok_or_else(not_padded)?.to_vec())
}

fn at_rest_key(prk: &hkdf::Prk, random: &[u8]) -> aead::LessSafeKey {
    let info = [random];
    let okm = prk.expand(&info, &aead::CHACHA20_POLY1305).expect("32 bytes is a valid HKDF-SHA256 output length");
    aead::LessSafeKey::new(aead::UnboundKey::from(okm))
}

fn not_padded() -> EnvelopeError {
    EnvelopeError::BadValue {
        field: "sealed",
        value: "(opened)".to_owned(),
        expected: "bytes padded with 0x80 and zeros to a multiple of 32 bytes",
    }
}

/// Opens a sealed move with the steward's keys.
///
/// # Errors
/// [`EnvelopeError::SealedElsewhere`] ("sealed to another key or altered") when
/// the value was sealed to another key, altered, or sealed for another game, seat
/// or turn; [`EnvelopeError::SealedLength`] for a length no sealed value has;
/// [`EnvelopeError::BadValue`] when it opens but does not hold padded UTF-8 text.
pub fn open_sealed(
    sealed: &[u8],
    steward: &StewardKeys,
    game: &str,
    seat: &str,
    turn: u32,
) -> Result<String, EnvelopeError> {
    text(open_bytes(sealed, steward, &sealing_aad(game, seat, turn)))
}

/// An opened move as text.
fn text(opened: Result<Vec<u8>, EnvelopeError>) -> Result<String, EnvelopeError> {
    String::from_utf8(opened?).map_err(|_| EnvelopeError::BadValue {
        field: "sealed",
        value: "(opened)".to_owned(),
        expected: "UTF-8 text padded with 0x80 and zeros to a multiple of 32 bytes",
    })
}

/// Opens a sealed value with the steward's keys and the given associated data.
fn open_bytes(sealed: &[u8], steward: &StewardKeys, aad: &str) -> Result<Vec<u8>, EnvelopeError> {
    check_sealed_length(sealed)?;
    let (e_public, ciphertext) = sealed.split_at(32);
    let e_public: [u8; 32] = e_public.try_into().expect("split at 32");
    let mut buf = ciphertext.to_vec();
    let open = |shared: &SharedSecret, public: &[u8; 32], buf: &mut Vec<u8>| {
        let key = aead_key(shared.as_bytes(), &e_public, public);
        key.open_in_place(nonce(), aead::Aad::from(aad.as_bytes()), buf).map(|p| p.len()).ok()
    };
    // The current key, then the keys `keys rotate` retired (a move sealed before
    // the rotation, or held in the store since).
    let current = steward.agree(&e_public).ok_or(EnvelopeError::SealedElsewhere)?;
    let mut opened = open(&current, &steward.sealing_public(), &mut buf);
    for (shared, public) in steward.agree_retired(&e_public) {
        if opened.is_some() {
            break;
        }
        buf = ciphertext.to_vec();
        opened = open(&shared, &public, &mut buf);
    }
    let len = opened.ok_or(EnvelopeError::SealedElsewhere)?;
    Ok(unpad(&buf[..len]).ok_or_else(not_padded)?.to_vec())
}

/// Refuses lengths no sealed value has (a cut-off value, usually).
pub(crate) fn check_sealed_length(sealed: &[u8]) -> Result<(), EnvelopeError> {
    if sealed.len() < MIN_SEALED_BYTES || !(sealed.len() - OVERHEAD).is_multiple_of(PAD_BLOCK) {
        return Err(EnvelopeError::SealedLength { got: sealed.len() });
    }
    Ok(())
}

fn aead_key(shared: &[u8; 32], e_public: &[u8; 32], steward_public: &[u8; 32]) -> aead::LessSafeKey {
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, HKDF_SALT).extract(shared);
    let info: [&[u8]; 2] = [e_public, steward_public];
    let okm = prk.expand(&info, &aead::CHACHA20_POLY1305).expect("32 bytes is a valid HKDF-SHA256 output length");
    aead::LessSafeKey::new(aead::UnboundKey::from(okm))
}

fn nonce() -> aead::Nonce {
    aead::Nonce::assume_unique_for_key([0; aead::NONCE_LEN])
}

fn pad(text: &[u8]) -> Vec<u8> {
    let len = (text.len() / PAD_BLOCK + 1) * PAD_BLOCK;
    let mut out = Vec::with_capacity(len + 16);
    out.extend_from_slice(text);
    out.push(0x80);
    out.resize(len, 0);
    out
}

/// The text inside the padding, if the padding is exactly what [`pad`] makes.
fn unpad(padded: &[u8]) -> Option<&[u8]> {
    let end = padded.iter().rposition(|&b| b != 0)?;
    (padded[end] == 0x80 && padded.len() - end <= PAD_BLOCK).then(|| &padded[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::hex;

    fn keys() -> (tempfile::TempDir, StewardKeys) {
        let dir = tempfile::tempdir().unwrap();
        let keys = StewardKeys::load_or_create(dir.path()).unwrap();
        (dir, keys)
    }

    #[test]
    fn records_round_trip_any_bytes_and_open_only_under_their_label() {
        let (_dir, k) = keys();
        let raw: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let sealed = seal_record(&raw, &k, "inbound");
        assert_eq!(open_record(&sealed, &k, "inbound").unwrap(), raw);
        assert!(matches!(open_record(&sealed, &k, "outbox"), Err(EnvelopeError::SealedElsewhere)));
        let (_other_dir, other) = keys();
        assert!(open_record(&sealed, &other, "inbound").is_err(), "another steward's key");
        let as_move = seal("Nf3", &k.sealing_public(), "8KQ2ZJ", "white", 1);
        assert!(open_record(&as_move, &k, "inbound").is_err(), "a sealed move is not a record");
        assert!(open_record(&[], &k, "inbound").is_err());
    }

    #[test]
    fn at_rest_records_open_only_with_their_key_and_associated_data() {
        let (_dir, k) = keys();
        for len in [0, 1, 31, 32, 100, 1000] {
            let raw: Vec<u8> = (0..=255u8).cycle().take(len).collect();
            let sealed = seal_record(&raw, &k, "inbound");
            assert_eq!(sealed.len(), AT_REST_RANDOM + (len / PAD_BLOCK + 1) * PAD_BLOCK + 16);
            assert!(is_at_rest(&sealed), "a multiple of 32 bytes: {len}");
            assert_eq!(open_record(&sealed, &k, "inbound").unwrap(), raw);
        }
        let held = seal_held("{\"entered\":\"e4\"}", &k, "8KQ2ZJ", "white", 3);
        assert_eq!(open_held(&held, &k, "8kq2zj", "White", 3).unwrap(), "{\"entered\":\"e4\"}");
        for (game, seat, turn) in [("8KQ2ZK", "white", 3), ("8KQ2ZJ", "black", 3), ("8KQ2ZJ", "white", 4)] {
            assert_eq!(
                open_held(&held, &k, game, seat, turn),
                Err(EnvelopeError::SealedElsewhere),
                "{game} {seat} {turn}"
            );
        }
        assert!(open_record(&held, &k, "inbound").is_err(), "a held move is not a record");
        assert!(open_held(&seal_record(b"e4", &k, "inbound"), &k, "8KQ2ZJ", "white", 3).is_err());
        assert!(open_sealed(&held, &k, "8KQ2ZJ", "white", 3).is_err(), "the players' door takes no at-rest value");
        let (_other_dir, other) = keys();
        assert_eq!(open_held(&held, &other, "8KQ2ZJ", "white", 3), Err(EnvelopeError::SealedElsewhere));
        for i in [0, 15, 16, held.len() - 1] {
            let mut bad = held.clone();
            bad[i] ^= 1;
            assert_eq!(open_held(&bad, &k, "8KQ2ZJ", "white", 3), Err(EnvelopeError::SealedElsewhere), "byte {i}");
        }
        assert_ne!(held, seal_held("{\"entered\":\"e4\"}", &k, "8KQ2ZJ", "white", 3), "a key of its own each time");
        assert!(matches!(
            open_held(&held[..held.len() - 1], &k, "8KQ2ZJ", "white", 3),
            Err(EnvelopeError::SealedLength { .. })
        ));
    }

    /// Known answer for the at-rest construction, computed independently with
    /// Python's `cryptography` package from the module docs (sealing secret
    /// 0x01 × 32, random bytes 0x03 × 16, "Nf3" held for 8KQ2ZJ, white, turn 12):
    ///
    /// ```text
    /// from cryptography.hazmat.primitives import hashes, hmac
    /// from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
    /// from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    /// h = hmac.HMAC(b"fairsteward-at-rest-v1", hashes.SHA256()); h.update(bytes([1]*32)); prk = h.finalize()
    /// r = bytes([3]*16); key = HKDFExpand(hashes.SHA256(), 32, r).derive(prk)
    /// print((r + ChaCha20Poly1305(key).encrypt(bytes(12), b"Nf3\x80" + bytes(28), b"8KQ2ZJ|white|12")).hex())
    /// ```
    #[test]
    fn at_rest_known_answer() {
        let k = StewardKeys::from_secrets_for_tests([9; 32], [1; 32]);
        let sealed = seal_at_rest_with([3; 16], b"Nf3", &k, &sealing_aad("8KQ2ZJ", "white", 12));
        assert_eq!(
            hex(&sealed),
            "03030303030303030303030303030303cde50281f87d36c6557a305f469cb4dbd2aec0de60904c42e3060f1417cd5b886efd113c335df1ada56d0ef12cfaeace"
        );
        assert_eq!(open_held(&sealed, &k, "8KQ2ZJ", "white", 12).unwrap(), "Nf3");
    }

    #[test]
    fn what_older_versions_sealed_to_the_x25519_key_still_opens() {
        let (_dir, k) = keys();
        let record = seal_bytes_with(
            crate::protocol::random_bytes::<32>(),
            b"raw mail",
            &k.sealing_public(),
            &record_aad("inbound"),
        )
        .unwrap();
        assert!(!is_at_rest(&record));
        assert_eq!(open_record(&record, &k, "inbound").unwrap(), b"raw mail");
        let held = seal("{\"entered\":\"Nf3\"}", &k.sealing_public(), "8KQ2ZJ", "black", 7);
        assert_eq!(open_held(&held, &k, "8KQ2ZJ", "black", 7).unwrap(), "{\"entered\":\"Nf3\"}");
        assert!(open_held(&held, &k, "8KQ2ZJ", "black", 8).is_err());
    }

    #[test]
    fn at_rest_records_kept_before_a_rotation_still_open() {
        let (dir, old) = keys();
        let record = seal_record(b"kept", &old, "outbox");
        let held = seal_held("Nf3", &old, "8KQ2ZJ", "white", 3);
        StewardKeys::stage_rotation(dir.path()).unwrap().install("20261127T120000.000Z").unwrap();
        let new = StewardKeys::load_or_create(dir.path()).unwrap();
        assert_eq!(open_record(&record, &new, "outbox").unwrap(), b"kept");
        assert_eq!(open_held(&held, &new, "8KQ2ZJ", "white", 3).unwrap(), "Nf3");
        let after = seal_record(b"later", &new, "outbox");
        assert!(open_record(&after, &old, "outbox").is_err(), "the old key cannot open the new record");
    }

    #[test]
    fn a_move_sealed_to_a_retired_key_still_opens_and_a_new_one_seals_anew() {
        let (dir, old) = keys();
        let before = seal("Nf3", &old.sealing_public(), "8KQ2ZJ", "white", 3);
        let staged = StewardKeys::stage_rotation(dir.path()).unwrap();
        staged.install("20261125T120000.000Z").unwrap();
        let new = StewardKeys::load_or_create(dir.path()).unwrap();
        assert_eq!(new.fingerprint(), staged.keys.fingerprint(), "the installed keys are the staged ones");
        assert_ne!(new.fingerprint(), old.fingerprint());
        assert_eq!(open_sealed(&before, &new, "8KQ2ZJ", "white", 3).unwrap(), "Nf3");
        let after = seal("Nc3", &new.sealing_public(), "8KQ2ZJ", "white", 4);
        assert_eq!(open_sealed(&after, &new, "8KQ2ZJ", "white", 4).unwrap(), "Nc3");
        assert!(open_sealed(&after, &old, "8KQ2ZJ", "white", 4).is_err(), "the old key cannot open the new seal");
        assert!(open_sealed(&before, &new, "8KQ2ZJ", "white", 4).is_err(), "still bound to its turn");
    }

    #[test]
    fn round_trip() {
        let (_dir, k) = keys();
        for text in ["Nf3", "", "O-O-O", "exd8=Q+", &"x".repeat(31), &"y".repeat(32), "Dа5 ünïcode"] {
            let sealed = seal(text, &k.sealing_public(), "8KQ2ZJ", "white", 12);
            assert_eq!(sealed.len(), 32 + (text.len() / 32 + 1) * 32 + 16);
            assert_eq!(open_sealed(&sealed, &k, "8KQ2ZJ", "white", 12).unwrap(), text);
        }
    }

    #[test]
    fn lengths_are_hidden_within_a_block() {
        let (_dir, k) = keys();
        let a = seal("e4", &k.sealing_public(), "8KQ2ZJ", "white", 1);
        let b = seal("Qxf7#", &k.sealing_public(), "8KQ2ZJ", "white", 1);
        assert_eq!(a.len(), b.len());
        assert_ne!(a, seal("e4", &k.sealing_public(), "8KQ2ZJ", "white", 1), "fresh ephemeral key each time");
    }

    #[test]
    fn case_of_game_and_seat_does_not_matter() {
        let (_dir, k) = keys();
        let sealed = seal("Nf3", &k.sealing_public(), "8kq2zj", "White", 12);
        assert_eq!(open_sealed(&sealed, &k, "8KQ2ZJ", "white", 12).unwrap(), "Nf3");
    }

    #[test]
    fn sealed_to_another_key() {
        let (_a, k) = keys();
        let (_b, other) = keys();
        let sealed = seal("Nf3", &other.sealing_public(), "8KQ2ZJ", "white", 12);
        let err = open_sealed(&sealed, &k, "8KQ2ZJ", "white", 12).unwrap_err();
        assert_eq!(err, EnvelopeError::SealedElsewhere);
        assert!(err.to_string().starts_with("sealed to another key or altered"));
    }

    #[test]
    fn other_game_seat_or_turn_fails() {
        let (_dir, k) = keys();
        let sealed = seal("Nf3", &k.sealing_public(), "8KQ2ZJ", "white", 12);
        for (game, seat, turn) in [("8KQ2ZK", "white", 12), ("8KQ2ZJ", "black", 12), ("8KQ2ZJ", "white", 13)] {
            assert_eq!(
                open_sealed(&sealed, &k, game, seat, turn),
                Err(EnvelopeError::SealedElsewhere),
                "{game} {seat} {turn}"
            );
        }
    }

    #[test]
    fn altered_bytes_fail() {
        let (_dir, k) = keys();
        let sealed = seal("Nf3", &k.sealing_public(), "8KQ2ZJ", "white", 12);
        for i in [0, 31, 32, 50, sealed.len() - 1] {
            let mut bad = sealed.clone();
            bad[i] ^= 1;
            assert_eq!(open_sealed(&bad, &k, "8KQ2ZJ", "white", 12), Err(EnvelopeError::SealedElsewhere), "byte {i}");
        }
    }

    #[test]
    fn truncated_values_are_refused_by_length() {
        let (_dir, k) = keys();
        let sealed = seal("Nf3", &k.sealing_public(), "8KQ2ZJ", "white", 12);
        for len in [0, 47, 79, sealed.len() - 1] {
            assert_eq!(
                open_sealed(&sealed[..len], &k, "8KQ2ZJ", "white", 12),
                Err(EnvelopeError::SealedLength { got: len })
            );
        }
    }

    #[test]
    fn small_order_keys_are_refused() {
        assert_eq!(try_seal("Nf3", &[0; 32], "8KQ2ZJ", "white", 12), Err(EnvelopeError::BadStewardKey));
        let mut one = [0u8; 32];
        one[0] = 1;
        assert_eq!(try_seal("Nf3", &one, "8KQ2ZJ", "white", 12), Err(EnvelopeError::BadStewardKey));
    }

    #[test]
    fn padding() {
        assert_eq!(pad(b""), [&[0x80u8][..], &[0; 31]].concat());
        assert_eq!(unpad(&pad(b"Nf3")), Some(&b"Nf3"[..]));
        assert_eq!(unpad(&pad(&[0; 40])), Some(&[0u8; 40][..]), "zeros in the text survive");
        assert_eq!(unpad(&[0; 32]), None);
        assert_eq!(unpad(&[b'a'; 32]), None);
        assert_eq!(unpad(&[&[0x80u8][..], &[0; 32]].concat()), None, "more than a block of padding");
    }

    /// Known answer, computed independently with Python's `cryptography`
    /// package from the module docs (steward secret 0x01 × 32, ephemeral secret
    /// 0x02 × 32, move "Nf3", game 8KQ2ZJ, seat white, turn 12):
    ///
    /// ```text
    /// from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    /// from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    /// from cryptography.hazmat.primitives import hashes, serialization
    /// from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    /// raw = serialization.Encoding.Raw, serialization.PublicFormat.Raw
    /// s = X25519PrivateKey.from_private_bytes(bytes([1]*32)); S = s.public_key().public_bytes(*raw)
    /// e = X25519PrivateKey.from_private_bytes(bytes([2]*32)); E = e.public_key().public_bytes(*raw)
    /// shared = e.exchange(s.public_key())
    /// key = HKDF(hashes.SHA256(), 32, b"fairsteward-seal-v1", E + S).derive(shared)
    /// pt = b"Nf3" + b"\x80" + bytes(28)
    /// print(S.hex()); print((E + ChaCha20Poly1305(key).encrypt(bytes(12), pt, b"8KQ2ZJ|white|12")).hex())
    /// ```
    #[test]
    fn known_answer() {
        let steward_public = PublicKey::from(&StaticSecret::from([1u8; 32])).to_bytes();
        assert_eq!(hex(&steward_public), "a4e09292b651c278b9772c569f5fa9bb13d906b46ab68c9df9dc2b4409f8a209");
        let sealed = seal_with([2; 32], "Nf3", &steward_public, "8KQ2ZJ", "white", 12).unwrap();
        assert_eq!(
            hex(&sealed),
            "ce8d3ad1ccb633ec7b70c17814a5c76ecd029685050d344745ba05870e587d59d14fbf7276e5a8325d9a0f45a66ae3dad8078011531101d2fddb9b685204898cf864f145b409152a7a0f02a73361cce4"
        );
        let k = StewardKeys::from_secrets_for_tests([9; 32], [1; 32]);
        assert_eq!(open_sealed(&sealed, &k, "8KQ2ZJ", "white", 12).unwrap(), "Nf3");
    }
}
