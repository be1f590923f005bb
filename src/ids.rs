//! Identifiers and secrets: game and tournament ids, seat tokens, receipt ids.
//!
//! Randomness comes from the operating system through ring. Seat tokens are shown
//! once, at game creation; the store keeps only their SHA-256.

use std::fmt;
use std::str::FromStr;

use ring::rand::{SecureRandom, SystemRandom};

/// The alphabet of game ids: digits and upper-case letters without the easily
/// confused I, L, O and U (Crockford's base 32).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // The system RNG only fails when the OS has no entropy source at all.
    SystemRandom::new().fill(&mut bytes).expect("the operating system's random number generator failed");
    bytes
}

/// A game's id: six characters of Crockford base 32, e.g. `8KQ2ZJ`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(String);

impl GameId {
    /// The length of a game id.
    pub const LEN: usize = 6;

    /// A new random game id.
    pub fn random() -> GameId {
        GameId(random_bytes::<{ GameId::LEN }>().iter().map(|b| ALPHABET[usize::from(b & 31)] as char).collect())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A tournament's id: `T` and six characters of Crockford base 32, e.g.
/// `T4M9QX2`, so it never reads as a game id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TournamentId(String);

impl TournamentId {
    /// A new random tournament id.
    pub fn random() -> TournamentId {
        TournamentId(format!("T{}", GameId::random()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TournamentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Text that is not a tournament id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a tournament id (T and six letters and digits, like T4M9QX2)")]
pub struct BadTournamentId(pub String);

impl FromStr for TournamentId {
    type Err = BadTournamentId;

    /// Reads a tournament id, case-insensitively.
    fn from_str(s: &str) -> Result<TournamentId, BadTournamentId> {
        let t = s.trim();
        match t.strip_prefix(['T', 't']).map(str::parse::<GameId>) {
            Some(Ok(g)) if t.len() == GameId::LEN + 1 => Ok(TournamentId(format!("T{g}"))),
            _ => Err(BadTournamentId(s.to_owned())),
        }
    }
}

/// Text that is not a game id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a game id (six letters and digits, like 8KQ2ZJ)")]
pub struct BadGameId(pub String);

impl FromStr for GameId {
    type Err = BadGameId;

    /// Reads a game id, case-insensitively (players type them from mails).
    fn from_str(s: &str) -> Result<GameId, BadGameId> {
        let upper = s.trim().to_ascii_uppercase();
        if upper.len() == GameId::LEN && upper.bytes().all(|b| ALPHABET.contains(&b)) {
            Ok(GameId(upper))
        } else {
            Err(BadGameId(s.to_owned()))
        }
    }
}

/// A seat's secret token: 32 random bytes, hex. Whoever holds it plays the seat.
#[derive(Clone, PartialEq, Eq)]
pub struct SeatToken(String);

impl SeatToken {
    /// A new random token.
    pub fn random() -> SeatToken {
        SeatToken(hex(&random_bytes::<32>()))
    }

    /// A token as presented by a client.
    pub fn from_presented(text: &str) -> SeatToken {
        SeatToken(text.trim().to_owned())
    }

    /// The token text, to hand to the player once.
    pub fn reveal(&self) -> &str {
        &self.0
    }

    /// What the store keeps: the SHA-256 of the token, hex.
    pub fn hash(&self) -> String {
        hex(ring::digest::digest(&ring::digest::SHA256, self.0.as_bytes()).as_ref())
    }
}

/// Tokens never appear in logs or debug output.
impl fmt::Debug for SeatToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SeatToken(…)")
    }
}

/// A receipt id: 16 random bytes, hex, given to the sender of an accepted move.
pub fn new_receipt() -> String {
    format!("r-{}", hex(&random_bytes::<12>()))
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(ring::digest::digest(&ring::digest::SHA256, bytes).as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_are_six_unambiguous_characters() {
        let id = GameId::random();
        assert_eq!(id.as_str().len(), 6);
        assert_eq!(id.as_str().parse::<GameId>(), Ok(id.clone()));
        assert_eq!(id.as_str().to_lowercase().parse::<GameId>(), Ok(id));
        assert!("8KQ2Z".parse::<GameId>().is_err());
        assert!("8KQ2ZI".parse::<GameId>().is_err(), "I is not in the alphabet");
    }

    #[test]
    fn tournament_ids_start_with_t_and_never_read_as_game_ids() {
        let t = TournamentId::random();
        assert_eq!(t.as_str().len(), 7);
        assert_eq!(t.to_string().to_lowercase().parse::<TournamentId>().unwrap(), t);
        assert!(t.as_str().parse::<GameId>().is_err());
        assert!("8KQ2ZJ".parse::<TournamentId>().is_err());
        assert!("T8KQ2ZJX".parse::<TournamentId>().is_err());
    }

    #[test]
    fn tokens_hash_and_hide() {
        let t = SeatToken::random();
        assert_eq!(t.reveal().len(), 64);
        assert_eq!(t.hash(), SeatToken::from_presented(&format!(" {} ", t.reveal())).hash());
        assert_ne!(t.hash(), t.reveal());
        assert_eq!(format!("{t:?}"), "SeatToken(…)");
    }
}
