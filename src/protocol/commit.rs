//! Commitments for commit-reveal games (docs/trust.md): a seat first sends the hash of
//! its move and a random salt, and reveals move and salt once every seat has
//! committed.
//!
//! The commitment is SHA-256 over the UTF-8 text
//! `GAME|seat|turn|move|salthex`: the game id upper case, the seat lower case, the
//! turn in decimal, the move as in the envelope (without surrounding white space),
//! and the salt in lower-case hex. Game, seat, turn and salt never hold a `|`, so
//! the text splits back in one way only, whatever the move holds.

use ring::digest;

use super::envelope::MIN_SALT_BYTES;
use crate::ids::hex;

/// The text a commitment hashes: `GAME|seat|turn|move|salthex`.
///
/// ```
/// let input = fairsteward::protocol::commitment_input("8kq2zj", "White", 12, "Nf3", &[0xab; 16]);
/// assert_eq!(input, "8KQ2ZJ|white|12|Nf3|abababababababababababababababab");
/// ```
pub fn commitment_input(game: &str, seat: &str, turn: u32, text: &str, salt: &[u8]) -> String {
    format!(
        "{}|{}|{}|{}|{}",
        game.trim().to_ascii_uppercase(),
        seat.trim().to_ascii_lowercase(),
        turn,
        text.trim(),
        hex(salt)
    )
}

/// The commitment to a move: SHA-256 of [`commitment_input`].
///
/// The salt's length is not checked here; reveals shorter than
/// [`MIN_SALT_BYTES`] are refused where envelopes are parsed.
pub fn commitment(game: &str, seat: &str, turn: u32, text: &str, salt: &[u8]) -> [u8; 32] {
    let input = commitment_input(game, seat, turn, text, salt);
    digest::digest(&digest::SHA256, input.as_bytes()).as_ref().try_into().expect("SHA-256 is 32 bytes")
}

/// A fresh salt: [`MIN_SALT_BYTES`] random bytes.
pub fn random_salt() -> Vec<u8> {
    super::random_bytes::<MIN_SALT_BYTES>().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answer, computed independently of this code:
    ///
    /// ```text
    /// python3 -c 'import hashlib; print(hashlib.sha256(
    ///     b"8KQ2ZJ|white|12|Nf3|000102030405060708090a0b0c0d0e0f").hexdigest())'
    /// ```
    #[test]
    fn known_answer() {
        let salt: Vec<u8> = (0u8..16).collect();
        assert_eq!(
            commitment_input("8KQ2ZJ", "white", 12, "Nf3", &salt),
            "8KQ2ZJ|white|12|Nf3|000102030405060708090a0b0c0d0e0f"
        );
        assert_eq!(
            hex(&commitment("8KQ2ZJ", "white", 12, "Nf3", &salt)),
            "5e52d42dcda8d6c83584ab65dba660c1f95dfa48da1f69b1fbedcc839eb82c77"
        );
        // Case and white space are normalised as envelopes are.
        assert_eq!(
            commitment("8kq2zj", " White ", 12, " Nf3 ", &salt),
            commitment("8KQ2ZJ", "white", 12, "Nf3", &salt)
        );
    }

    /// A move holding `|` still hashes unambiguously; known answer from
    /// `python3 -c 'import hashlib; print(hashlib.sha256(b"0000AA|north|3|A|B C|ffffffffffffffffffffffffffffffff").hexdigest())'`.
    #[test]
    fn known_answer_with_bar_in_move() {
        assert_eq!(
            hex(&commitment("0000AA", "north", 3, "A|B C", &[0xff; 16])),
            "112e7ba91c7d10b6926ac75dbcf0792c1e6a1bba801872dd257f0d194ad61354"
        );
    }

    #[test]
    fn every_input_counts() {
        let salt = [7u8; 16];
        let base = commitment("8KQ2ZJ", "white", 12, "Nf3", &salt);
        assert_ne!(base, commitment("8KQ2ZK", "white", 12, "Nf3", &salt));
        assert_ne!(base, commitment("8KQ2ZJ", "black", 12, "Nf3", &salt));
        assert_ne!(base, commitment("8KQ2ZJ", "white", 13, "Nf3", &salt));
        assert_ne!(base, commitment("8KQ2ZJ", "white", 12, "Nc3", &salt));
        assert_ne!(base, commitment("8KQ2ZJ", "white", 12, "Nf3", &[8u8; 16]));
    }

    #[test]
    fn salts_are_fresh_and_long_enough() {
        let (a, b) = (random_salt(), random_salt());
        assert!(a.len() >= MIN_SALT_BYTES);
        assert_ne!(a, b);
    }
}
