//! Reply capabilities: the steward's address with a subaddress that proves which
//! game, seat and turn a reply belongs to (DESIGN §4).
//!
//! ```text
//! moves+<GAME>.<seat>.<turn>.<mac>@steward.example
//! mac = the first 10 bytes, lower-case hex, of
//!       HMAC-SHA256(steward capability secret, "GAME|seat|turn")
//! ```
//!
//! Board mails carry it in `Reply-To`, so "hit reply, type Nf3, send" reaches
//! the steward with the seat's proof in the recipient address. Mail servers may
//! change the case of local parts; reading is case-insensitive.

use super::StewardKeys;
use crate::ids::hex;

/// How many bytes of the HMAC the address carries (80 bits).
const MAC_BYTES: usize = 10;

/// What a valid capability proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capability {
    /// The game id, upper case.
    pub game: String,
    /// The seat name, lower case.
    pub seat: String,
    /// The turn the board mail asked for.
    pub turn: u32,
}

fn mac(keys: &StewardKeys, game: &str, seat: &str, turn: u32) -> String {
    let tag = keys.capability_tag(format!("{game}|{seat}|{turn}").as_bytes());
    hex(&tag.as_ref()[..MAC_BYTES])
}

/// The capability address for (game, seat, turn) under the steward's address
/// `from` (`moves@steward.example`); `None` if `from` has no `@`.
pub fn address(keys: &StewardKeys, from: &str, game: &str, seat: &str, turn: u32) -> Option<String> {
    let (local, domain) = from.rsplit_once('@')?;
    let local = local.split('+').next().unwrap_or(local);
    let (game, seat) = (game.to_ascii_uppercase(), seat.to_ascii_lowercase());
    Some(format!("{local}+{game}.{seat}.{turn}.{}@{domain}", mac(keys, &game, &seat, turn)))
}

/// Reads and checks a capability in `address`, one of the recipients of a mail,
/// for the steward whose address is `from`. `None` when it is not one of ours or
/// its MAC does not match (forged or altered).
pub fn check(keys: &StewardKeys, from: &str, address: &str) -> Option<Capability> {
    let address = address.trim().trim_start_matches('<').trim_end_matches('>');
    let (local, domain) = address.rsplit_once('@')?;
    let (base, base_domain) = from.rsplit_once('@')?;
    let base = base.split('+').next().unwrap_or(base);
    if !domain.eq_ignore_ascii_case(base_domain) {
        return None;
    }
    let (name, detail) = local.split_once('+')?;
    if !name.eq_ignore_ascii_case(base) {
        return None;
    }
    let mut parts = detail.split('.');
    let (game, seat, turn, given) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (game, seat) = (game.to_ascii_uppercase(), seat.to_ascii_lowercase());
    let turn: u32 = turn.parse().ok()?;
    let expected = mac(keys, &game, &seat, turn);
    // Both are hex of a MAC; compare without leaking where they differ.
    let given = given.to_ascii_lowercase();
    let same = given.len() == expected.len()
        && given.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    same.then_some(Capability { game, seat, turn })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> StewardKeys {
        StewardKeys::from_secrets_for_tests([1; 32], [2; 32])
    }

    #[test]
    fn an_address_reads_back_in_any_case() {
        let k = keys();
        let a = address(&k, "moves@steward.example", "8kq2zj", "White", 12).unwrap();
        assert!(a.starts_with("moves+8KQ2ZJ.white.12."), "{a}");
        assert!(a.ends_with("@steward.example"));
        let want = Capability { game: "8KQ2ZJ".into(), seat: "white".into(), turn: 12 };
        assert_eq!(check(&k, "moves@steward.example", &a), Some(want.clone()));
        assert_eq!(check(&k, "moves@steward.example", &a.to_ascii_uppercase()), Some(want.clone()));
        assert_eq!(check(&k, "Moves@Steward.Example", &format!("<{a}>")), Some(want));
    }

    #[test]
    fn altered_or_foreign_capabilities_are_refused() {
        let k = keys();
        let a = address(&k, "moves@steward.example", "8KQ2ZJ", "white", 12).unwrap();
        for forged in [
            a.replace(".white.", ".black."),
            a.replace(".12.", ".13."),
            a.replace("8KQ2ZJ", "8KQ2ZK"),
            a.replace("@steward.example", "@elsewhere.example"),
            a.replace("moves+", "other+"),
            a.replace(".12.", ".12.0."),
            "moves@steward.example".to_owned(),
            "moves+8KQ2ZJ.white.12@steward.example".to_owned(),
        ] {
            assert_eq!(check(&k, "moves@steward.example", &forged), None, "{forged}");
        }
        let mut chars: Vec<char> = a.chars().collect();
        let at = a.find('@').unwrap() - 1;
        chars[at] = if chars[at] == '0' { '1' } else { '0' };
        let flipped: String = chars.into_iter().collect();
        assert_eq!(check(&k, "moves@steward.example", &flipped), None);
    }
}
