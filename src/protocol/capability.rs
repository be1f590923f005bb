//! Reply capabilities: the steward's address with a subaddress that proves which
//! game, seat and turn a reply belongs to (docs/trust.md).
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

use chrono::NaiveDate;

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
    same(&given.to_ascii_lowercase(), &expected).then_some(Capability { game, seat, turn })
}

/// The tag of a confirmation address's subaddress: `moves+confirm.<id>.<mac>`.
const CONFIRM: &str = "confirm";

/// A confirmation address read from a recipient; its MAC is checked against the
/// stored request with [`confirmation_matches`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirmation {
    /// The address request's id.
    pub id: i64,
    /// The MAC as given, lower-case hex.
    mac: String,
}

fn confirm_mac(keys: &StewardKeys, id: i64, address: &str) -> String {
    let tag = keys.capability_tag(format!("confirm|{id}|{}", address.to_lowercase()).as_bytes());
    hex(&tag.as_ref()[..MAC_BYTES])
}

/// The reply address of the confirmation mail for address request `id`, which
/// asks for `address`: `moves+confirm.<id>.<mac>@steward.example`, the MAC bound
/// to the id and the new address (so it proves the reply came through a mail
/// sent there). `None` if `from` has no `@`.
pub fn confirmation_address(keys: &StewardKeys, from: &str, id: i64, address: &str) -> Option<String> {
    tagged_address(from, CONFIRM, id, &confirm_mac(keys, id, address))
}

/// `from` with `+<tag>.<id>.<mac>` in its local part (after any `+` detail of
/// its own is dropped); `None` if `from` has no `@`.
fn tagged_address(from: &str, tag: &str, id: i64, mac: &str) -> Option<String> {
    let (local, domain) = from.rsplit_once('@')?;
    let local = local.split('+').next().unwrap_or(local);
    Some(format!("{local}+{tag}.{id}.{mac}@{domain}"))
}

/// The id and the MAC (lower case) of `address` when it is one of the
/// steward `from`'s `+<tag>.<id>.<mac>` addresses, any case; `None` otherwise.
fn read_tagged(from: &str, address: &str, tag: &str) -> Option<(i64, String)> {
    let address = address.trim().trim_start_matches('<').trim_end_matches('>');
    let (local, domain) = address.rsplit_once('@')?;
    let (base, base_domain) = from.rsplit_once('@')?;
    let base = base.split('+').next().unwrap_or(base);
    let (name, detail) = local.split_once('+')?;
    if !domain.eq_ignore_ascii_case(base_domain) || !name.eq_ignore_ascii_case(base) {
        return None;
    }
    let mut parts = detail.split('.');
    let (given_tag, id, mac) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || !given_tag.eq_ignore_ascii_case(tag) {
        return None;
    }
    Some((id.parse().ok()?, mac.to_ascii_lowercase()))
}

/// Reads a confirmation address in `address`, a recipient of a mail to the
/// steward whose address is `from`; `None` when it is not one.
pub fn read_confirmation(from: &str, address: &str) -> Option<Confirmation> {
    let (id, mac) = read_tagged(from, address, CONFIRM)?;
    Some(Confirmation { id, mac })
}

/// Whether `c` is the confirmation address of its request, which asked for `address`.
pub fn confirmation_matches(keys: &StewardKeys, c: &Confirmation, address: &str) -> bool {
    same(&c.mac, &confirm_mac(keys, c.id, address))
}

/// How many bytes of the HMAC a sign-in key carries (128 bits): it is a
/// bearer credential on the web, where guesses cost nothing but a request.
const SIGN_IN_BYTES: usize = 16;

/// How many days a board mail's private link signs its seat in. A link is a
/// key to the seat in whoever's hands: long enough for a player who reads mail
/// weekly (every board mail brings a fresh one, and a session lasts 30 days),
/// short enough that an old board mail, forwarded or left in a shared
/// mailbox, soon stops opening the seat.
pub const SIGN_IN_DAYS: i64 = 14;

/// The key of a board mail's private link to the game page: it signs the
/// seat's player in on the web (issue 17) until the end of the day `until`
/// (UTC). Bound to the game, the seat, the seat's registered address and that
/// day, so a change of address voids every link sent to the old one;
/// deterministic, so a resent mail carries the same bytes.
///
/// ```text
/// key = YYYYMMDD "-" the first 16 bytes, lower-case hex, of
///       HMAC-SHA256(steward capability secret, "sign-in|GAME|seat|address|YYYYMMDD")
/// ```
pub fn sign_in_key(keys: &StewardKeys, game: &str, seat: &str, address: &str, until: NaiveDate) -> String {
    let day = until.format("%Y%m%d").to_string();
    let message = format!(
        "sign-in|{}|{}|{}|{day}",
        game.to_ascii_uppercase(),
        seat.to_ascii_lowercase(),
        address.trim().to_ascii_lowercase()
    );
    format!("{day}-{}", hex(&keys.capability_tag(message.as_bytes()).as_ref()[..SIGN_IN_BYTES]))
}

/// Whether `key` is a sign-in key of (game, seat, address) that has not run
/// out by `today`, compared in constant time.
pub fn sign_in_matches(keys: &StewardKeys, game: &str, seat: &str, address: &str, key: &str, today: NaiveDate) -> bool {
    let key = key.trim().to_ascii_lowercase();
    let Some(until) = key.split_once('-').and_then(|(day, _)| NaiveDate::parse_from_str(day, "%Y%m%d").ok()) else {
        return false;
    };
    until >= today && same(&key, &sign_in_key(keys, game, seat, address, until))
}

/// The key of a calendar feed (issue 29): read-only, for the deadlines of
/// `address`'s seats in `games` and nothing else. A calendar app has no
/// cookies and its address leaks more easily than a mail, so the feed gets a
/// key of its own that no other door takes, not the seat token. Bound to the
/// address, so a seat whose address changes drops out of the old feeds;
/// deterministic, so the same games give the same address.
///
/// ```text
/// key = <address, base64url> "." <GAME-GAME-…> "." the first 16 bytes, lower-case hex, of
///       HMAC-SHA256(steward capability secret, "calendar|address|GAME-GAME-…")
/// ```
pub fn calendar_key(keys: &StewardKeys, address: &str, games: &[String]) -> String {
    use base64::Engine as _;
    let address = address.trim().to_ascii_lowercase();
    let games = games.iter().map(|g| g.to_ascii_uppercase()).collect::<Vec<_>>().join("-");
    let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(address.as_bytes());
    format!("{encoded}.{games}.{}", calendar_mac(keys, &address, &games))
}

fn calendar_mac(keys: &StewardKeys, address: &str, games: &str) -> String {
    hex(&keys.capability_tag(format!("calendar|{address}|{games}").as_bytes()).as_ref()[..SIGN_IN_BYTES])
}

/// The address and games a calendar key is for, if its MAC is right.
pub fn read_calendar_key(keys: &StewardKeys, key: &str) -> Option<(String, Vec<String>)> {
    use base64::Engine as _;
    let mut parts = key.trim().split('.');
    let (encoded, games, given) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let address = String::from_utf8(base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(encoded).ok()?).ok()?;
    same(&given.to_ascii_lowercase(), &calendar_mac(keys, &address, games))
        .then(|| (address, games.split('-').map(str::to_owned).collect()))
}

/// Whether two MACs in hex are equal, without leaking where they differ.
fn same(given: &str, expected: &str) -> bool {
    given.len() == expected.len() && given.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
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

    #[test]
    fn a_confirmation_address_is_bound_to_its_request_and_address() {
        let k = keys();
        let a = confirmation_address(&k, "moves@steward.example", 7, "Alice@Home.example").unwrap();
        assert!(a.starts_with("moves+confirm.7.") && a.ends_with("@steward.example"), "{a}");
        let c = read_confirmation("moves@steward.example", &a.to_ascii_uppercase()).unwrap();
        assert_eq!(c.id, 7);
        assert!(confirmation_matches(&k, &c, "alice@home.example"));
        assert!(!confirmation_matches(&k, &c, "mallory@home.example"));
        let other = read_confirmation("moves@steward.example", &a.replace("confirm.7.", "confirm.8.")).unwrap();
        assert!(!confirmation_matches(&k, &other, "alice@home.example"));
        // Not a capability, and a capability is not a confirmation.
        assert_eq!(check(&k, "moves@steward.example", &a), None);
        let cap = address(&k, "moves@steward.example", "8KQ2ZJ", "white", 1).unwrap();
        assert_eq!(read_confirmation("moves@steward.example", &cap), None);
        assert_eq!(read_confirmation("moves@steward.example", &a.replace("@steward.", "@other.")), None);
    }

    #[test]
    fn sign_in_keys_are_bound_to_game_seat_address_and_their_last_day() {
        let k = keys();
        let day = |d: u32| NaiveDate::from_ymd_opt(2026, 12, d).unwrap();
        let key = sign_in_key(&k, "8kq2zj", "White", "Alice@Example.org", day(14));
        assert!(key.starts_with("20261214-") && key.len() == 9 + 32, "{key}");
        assert!(sign_in_matches(&k, "8KQ2ZJ", "white", "alice@example.org", &key.to_uppercase(), day(1)));
        assert!(sign_in_matches(&k, "8KQ2ZJ", "white", "alice@example.org", &key, day(14)), "the whole last day");
        assert!(!sign_in_matches(&k, "8KQ2ZJ", "white", "alice@example.org", &key, day(15)), "run out");
        assert!(!sign_in_matches(&k, "8KQ2ZJ", "black", "alice@example.org", &key, day(1)));
        assert!(!sign_in_matches(&k, "8KQ2ZJ", "white", "alice@new.example", &key, day(1)));
        assert!(!sign_in_matches(&k, "8KQ2ZK", "white", "alice@example.org", &key, day(1)));
        // A later day written into the key does not fit its MAC.
        let later = key.replacen("20261214", "20271214", 1);
        assert!(!sign_in_matches(&k, "8KQ2ZJ", "white", "alice@example.org", &later, day(15)));
        assert!(!sign_in_matches(&k, "8KQ2ZJ", "white", "alice@example.org", "garbage", day(1)));
    }

    #[test]
    fn calendar_keys_name_their_address_and_games_only() {
        let k = keys();
        let games = vec!["8kq2zj".to_owned(), "AAAAAA".to_owned()];
        let key = calendar_key(&k, "Alice@Example.org", &games);
        let want = ("alice@example.org".to_owned(), vec!["8KQ2ZJ".to_owned(), "AAAAAA".to_owned()]);
        assert_eq!(read_calendar_key(&k, &key), Some(want));
        assert_eq!(read_calendar_key(&k, &key.replacen(".8KQ2ZJ-AAAAAA.", ".8KQ2ZJ-AAAAAA-BBBBBB.", 1)), None);
        assert_eq!(read_calendar_key(&k, &key.replacen(".8KQ2ZJ-AAAAAA.", ".8KQ2ZJ.", 1)), None);
        let bob = calendar_key(&k, "bob@example.org", &games);
        let (bob_address, rest) = bob.split_once('.').unwrap();
        let (_, alice_rest) = key.split_once('.').unwrap();
        assert_eq!(read_calendar_key(&k, &format!("{bob_address}.{alice_rest}")), None, "{rest}");
        assert_eq!(read_calendar_key(&k, "garbage"), None);
    }
}

// --- Invitations (issue 31, slice D) -----------------------------------------

/// The tag of an invitation's reply address: `moves+invite.<id>.<mac>`.
const INVITE: &str = "invite";

fn invite_mac(keys: &StewardKeys, id: i64, address: &str) -> String {
    let tag = keys.capability_tag(format!("invite|{id}|{}", address.trim().to_lowercase()).as_bytes());
    hex(&tag.as_ref()[..MAC_BYTES])
}

/// The reply address of the invitation mail of invitation `id`, sent to
/// `address`: `moves+invite.<id>.<mac>@steward.example`, the MAC bound to the
/// invitation and its address, so a reply `accept` or `decline` proves it came
/// through that mail. `None` if `from` has no `@`.
pub fn invitation_address(keys: &StewardKeys, from: &str, id: i64, address: &str) -> Option<String> {
    tagged_address(from, INVITE, id, &invite_mac(keys, id, address))
}

/// An invitation's reply address read from a recipient; its MAC is checked
/// against the stored invitation's address with [`invitation_matches`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvitationReply {
    /// The invitation's id.
    pub id: i64,
    /// The MAC as given, lower-case hex.
    mac: String,
}

/// Reads an invitation's reply address in `address`, a recipient of a mail to
/// the steward whose address is `from`; `None` when it is not one.
pub fn read_invitation(from: &str, address: &str) -> Option<InvitationReply> {
    let (id, mac) = read_tagged(from, address, INVITE)?;
    Some(InvitationReply { id, mac })
}

/// Whether `r` is the reply address of its invitation, sent to `address`.
pub fn invitation_matches(keys: &StewardKeys, r: &InvitationReply, address: &str) -> bool {
    same(&r.mac, &invite_mac(keys, r.id, address))
}

#[cfg(test)]
mod invitation_tests {
    use super::*;

    #[test]
    fn an_invitation_address_reads_back_and_binds_its_address() {
        let k = StewardKeys::from_secrets_for_tests([1; 32], [2; 32]);
        let a = invitation_address(&k, "moves@steward.example", 42, "Ann@Example.org").unwrap();
        assert!(a.starts_with("moves+invite.42."), "{a}");
        let r = read_invitation("moves@steward.example", &a.to_ascii_uppercase()).unwrap();
        assert_eq!(r.id, 42);
        assert!(invitation_matches(&k, &r, "ann@example.org"));
        assert!(!invitation_matches(&k, &r, "bob@example.org"), "bound to the invited address");
        let other = read_invitation("moves@steward.example", &a.replace(".42.", ".43.")).unwrap();
        assert!(!invitation_matches(&k, &other, "ann@example.org"), "bound to the invitation");
        assert_eq!(check(&k, "moves@steward.example", &a), None, "no game capability");
        assert_eq!(read_confirmation("moves@steward.example", &a), None, "no confirmation");
    }
}
