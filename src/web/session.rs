//! Signing players in on the web pages (issue 17).
//!
//! A board mail carries a private link, `/games/<id>#sign-in=<seat>.<key>`
//! ([`crate::protocol::capability::sign_in_key`]). The key travels in the
//! fragment, which browsers never send to a server nor put in a `Referer`; the
//! page's script takes it out of the address bar (`history.replaceState`) and
//! posts it, and the answer sets a session cookie and sends the browser back to
//! the page (303). A seat token pasted into the sign-in form does the same.
//!
//! The session is the player's registered address and the games it was proven
//! for, signed by the steward (no store:
//! `v2.<address, base64url>.<GAME-GAME-…>.<expiry, unix seconds>.<HMAC>`), in
//! an `HttpOnly`, `SameSite=Strict` cookie (`Secure` when the steward's public
//! URL is https). It acts only in those games (issue 29: a token or link of one
//! game must not open the player's others); signing in for another game of the
//! same address adds that game, and the cookie keeps the [`MAX_GAMES`] latest.
//! It is valid until it expires, in a game only while the address holds a seat
//! there; a change of a seat's address leaves the old address's sessions
//! without it. Version 1 cookies (the address alone, every game) are no longer
//! read: their players sign in again.
//!
//! Every form that acts carries a CSRF token derived from the session
//! ([`Session::csrf`]), and a POST whose `Origin` or `Sec-Fetch-Site` says it
//! came from another site is refused before anything else.

use axum::http::{HeaderMap, HeaderValue, header};
use base64::Engine as _;

use crate::ids::hex;
use crate::protocol::StewardKeys;

/// The session cookie's name.
pub const COOKIE: &str = "fairsteward_session";

/// How long a session lasts, in seconds (30 days).
pub const LIFETIME_SECONDS: i64 = 30 * 24 * 3600;

/// How many games a session holds at most: signing in for one more drops the
/// one signed in for longest ago (the cookie stays under 1 KB).
pub const MAX_GAMES: usize = 50;

/// A signed-in player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// The player's registered address, lower case.
    pub address: String,
    /// The games (upper-case ids) the player signed in for, the latest last:
    /// the session acts in these only.
    pub games: Vec<String>,
    /// The cookie's value, from which the CSRF token derives.
    value: String,
}

/// The steward's tag of `text` for the purpose `label` (a session cookie, a
/// CSRF token): the player pages' and the desk's cookies are signed alike.
pub(super) fn mac(keys: &StewardKeys, label: &str, text: &str) -> String {
    hex(&keys.capability_tag(format!("{label}|{text}").as_bytes()).as_ref()[..16])
}

/// Constant-time comparison of two texts.
pub(super) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The values of the request's cookies named `name`, in order.
pub(super) fn cookie_values<'h>(headers: &'h HeaderMap, name: &'h str) -> impl Iterator<Item = &'h str> + 'h {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(move |(n, _)| *n == name)
        .map(|(_, value)| value.trim())
}

/// Whether `id` may stand in a cookie's list of games: letters and digits.
fn is_game_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 16 && id.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

impl Session {
    /// A new session for `address` in `game`, valid until `now + LIFETIME_SECONDS`.
    pub fn new(keys: &StewardKeys, address: &str, game: &str, now: i64) -> Session {
        Session::signed(keys, address, vec![game.to_ascii_uppercase()], now)
    }

    fn signed(keys: &StewardKeys, address: &str, games: Vec<String>, now: i64) -> Session {
        let address = address.trim().to_ascii_lowercase();
        let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(address.as_bytes());
        let body = format!("v2.{encoded}.{}.{}", games.join("-"), now + LIFETIME_SECONDS);
        let value = format!("{body}.{}", mac(keys, "web-session", &body));
        Session { address, games, value }
    }

    /// This session with `game` added (or moved to the end, as the latest),
    /// renewed from `now`; the oldest games beyond [`MAX_GAMES`] are dropped.
    pub fn with_game(&self, keys: &StewardKeys, game: &str, now: i64) -> Session {
        let game = game.to_ascii_uppercase();
        let mut games: Vec<String> = self.games.iter().filter(|g| **g != game).cloned().collect();
        games.push(game);
        let extra = games.len().saturating_sub(MAX_GAMES);
        games.drain(..extra);
        Session::signed(keys, &self.address, games, now)
    }

    /// Whether the player signed in for `game` (any case).
    pub fn covers(&self, game: &str) -> bool {
        self.games.iter().any(|g| g.eq_ignore_ascii_case(game))
    }

    /// The session a cookie value proves at `now`, if it is ours and current.
    pub fn from_value(keys: &StewardKeys, value: &str, now: i64) -> Option<Session> {
        let (body, given) = value.rsplit_once('.')?;
        if !same(given, &mac(keys, "web-session", body)) {
            return None;
        }
        let mut parts = body.split('.');
        let (version, encoded, games, expires) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if version != "v2" || parts.next().is_some() || expires.parse::<i64>().ok()? < now {
            return None;
        }
        let address = String::from_utf8(base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(encoded).ok()?).ok()?;
        let games: Vec<String> = games.split('-').map(str::to_owned).collect();
        if games.len() > MAX_GAMES || !games.iter().all(|g| is_game_id(g)) {
            return None;
        }
        Some(Session { address, games, value: value.to_owned() })
    }

    /// The session in a request's cookies, if any is valid at `now`.
    pub fn from_headers(keys: &StewardKeys, headers: &HeaderMap, now: i64) -> Option<Session> {
        cookie_values(headers, COOKIE).find_map(|value| Session::from_value(keys, value, now))
    }

    /// The CSRF token of this session's forms.
    pub fn csrf(&self, keys: &StewardKeys) -> String {
        mac(keys, "web-csrf", &self.value)
    }

    /// Whether `token` is this session's CSRF token.
    pub fn csrf_matches(&self, keys: &StewardKeys, token: &str) -> bool {
        same(token.trim(), &self.csrf(keys))
    }

    /// The `Set-Cookie` value that stores this session.
    pub fn set_cookie(&self, secure: bool) -> HeaderValue {
        let secure = if secure { "; Secure" } else { "" };
        HeaderValue::from_str(&format!(
            "{COOKIE}={}; Path=/; Max-Age={LIFETIME_SECONDS}; HttpOnly; SameSite=Strict{secure}",
            self.value
        ))
        .expect("a session cookie is ASCII")
    }
}

/// The name of the cookie that only says "this browser has signed in here"
/// (no secret, `SameSite=Lax`): a `SameSite=Strict` session cookie does not come
/// with a link followed from another site (a webmail's "Game page"), so a page
/// asked that way by a browser with this mark reloads itself once, from here,
/// and then has its session ([`needs_reload`]).
pub const MARK: &str = "fairsteward_signed_in";

/// The `Set-Cookie` value of [`MARK`].
pub fn set_mark(secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!("{MARK}=1; Path=/; Max-Age={LIFETIME_SECONDS}; HttpOnly; SameSite=Lax{secure}"))
        .expect("ASCII")
}

/// The `Set-Cookie` values that end a session (and its mark).
pub fn clear_cookies(secure: bool) -> [HeaderValue; 2] {
    let secure = if secure { "; Secure" } else { "" };
    [COOKIE, MARK].map(|name| {
        HeaderValue::from_str(&format!("{name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict{secure}")).expect("ASCII")
    })
}

/// Whether a page asked without a session should reload itself once to get
/// it: the browser carries the [`MARK`] of an earlier sign-in, and the request
/// came from another site (so a `SameSite=Strict` cookie was held back).
pub fn needs_reload(headers: &HeaderMap, session: Option<&Session>) -> bool {
    let cross_site = headers.get("sec-fetch-site").is_some_and(|v| v.as_bytes() == b"cross-site");
    let marked = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .any(|pair| pair.trim().split_once('=').is_some_and(|(name, _)| name == MARK));
    session.is_none() && cross_site && marked
}

/// Whether a form's POST came from a page of this steward: `Sec-Fetch-Site`,
/// when the browser sends it, must be `same-origin`; else an `Origin`, when
/// sent, must be this host's. (The `SameSite=Strict` cookie and the CSRF token
/// guard the acting forms too; this also guards signing in.)
pub fn same_origin(headers: &HeaderMap) -> bool {
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if let Some(site) = text(header::HeaderName::from_static("sec-fetch-site")) {
        return site == "same-origin";
    }
    match (text(header::ORIGIN), text(header::HOST)) {
        (None, _) => true,
        (Some(origin), Some(host)) => origin.split_once("://").is_some_and(|(_, rest)| rest == host),
        (Some(_), None) => false,
    }
}

/// `next` (where a sign-in sends the browser on) if it is a path on this
/// steward, else `None`. Browsers read `//host`, `/\\host` and a path with a
/// tab or newline removed (`/%09/host` → `//host`) as another site, so a path
/// must start with one `/` that no `/` or `\` follows, and hold no backslash,
/// control character or whitespace, neither as given nor once
/// percent-decoded (the address bar decodes it again).
pub fn same_site_path(next: &str) -> Option<&str> {
    let decoded = percent_decoded(next);
    let plain = |p: &[u8]| {
        p.first() == Some(&b'/')
            && !matches!(p.get(1), Some(b'/' | b'\\'))
            && !p.iter().any(|&b| b == b'\\' || b.is_ascii_control() || b.is_ascii_whitespace() || b >= 0x80)
    };
    (plain(next.as_bytes()) && plain(&decoded)).then_some(next)
}

/// `text` with each `%XX` replaced by its byte (a `%` not followed by two hex
/// digits stays as it is).
fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> StewardKeys {
        StewardKeys::from_secrets_for_tests([1; 32], [2; 32])
    }

    #[test]
    fn sessions_round_trip_and_expire() {
        let k = keys();
        let s = Session::new(&k, "Alice@Example.org", "8kq2zj", 1000);
        assert_eq!(s.address, "alice@example.org");
        assert_eq!(s.games, ["8KQ2ZJ"]);
        assert_eq!(Session::from_value(&k, &s.value, 1000 + LIFETIME_SECONDS), Some(s.clone()));
        assert_eq!(Session::from_value(&k, &s.value, 1001 + LIFETIME_SECONDS), None, "expired");
        let forged = s.value.replacen("v2.", "v2.Ym9i", 1);
        assert_eq!(Session::from_value(&k, &forged, 1000), None, "altered");
        let unsigned = format!("{}.{}", s.value.rsplit_once('.').unwrap().0, "0".repeat(32));
        assert_eq!(Session::from_value(&k, &unsigned, 1000), None, "a MAC of its own");
    }

    #[test]
    fn cookies_are_read_among_others_and_csrf_tokens_belong_to_their_session() {
        let k = keys();
        let s = Session::new(&k, "alice@example.org", "8KQ2ZJ", 0);
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_str(&format!("a=b; {COOKIE}={}; c=d", s.value)).unwrap());
        assert_eq!(Session::from_headers(&k, &headers, 5), Some(s.clone()));
        let t = Session::new(&k, "alice@example.org", "8KQ2ZJ", 1);
        assert!(s.csrf_matches(&k, &s.csrf(&k)));
        assert!(!t.csrf_matches(&k, &s.csrf(&k)));
        let cookie = s.set_cookie(false);
        let cookie = cookie.to_str().unwrap();
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains("Secure"));
    }

    #[test]
    fn cross_site_posts_are_told_apart() {
        let h = |pairs: &[(&'static str, &str)]| {
            let mut m = HeaderMap::new();
            for (k, v) in pairs {
                m.insert(*k, HeaderValue::from_str(v).unwrap());
            }
            m
        };
        assert!(same_origin(&h(&[("sec-fetch-site", "same-origin")])));
        assert!(!same_origin(&h(&[("sec-fetch-site", "cross-site"), ("origin", "http://a")])));
        assert!(same_origin(&h(&[("origin", "http://127.0.0.1:8080"), ("host", "127.0.0.1:8080")])));
        assert!(!same_origin(&h(&[("origin", "http://evil.example"), ("host", "127.0.0.1:8080")])));
        assert!(same_origin(&h(&[])), "a client that sends neither (curl) is no browser to fool");
    }

    #[test]
    fn a_session_covers_the_games_it_was_signed_in_for_only() {
        let k = keys();
        let s = Session::new(&k, "alice@example.org", "AAAAAA", 0);
        assert!(s.covers("aaaaaa") && !s.covers("BBBBBB"));
        let t = s.with_game(&k, "bbbbbb", 10);
        assert_eq!(t.games, ["AAAAAA", "BBBBBB"]);
        assert_eq!(Session::from_value(&k, &t.value, 11), Some(t.clone()));
        assert_eq!(t.with_game(&k, "AAAAAA", 12).games, ["BBBBBB", "AAAAAA"], "the latest last, once");
        // A game written into the cookie does not fit its MAC.
        let widened = t.value.replacen(".AAAAAA-BBBBBB.", ".AAAAAA-BBBBBB-CCCCCC.", 1);
        assert_eq!(Session::from_value(&k, &widened, 11), None);
        // Bounded: the oldest games make way.
        let mut many = s.clone();
        for n in 0..MAX_GAMES + 5 {
            many = many.with_game(&k, &format!("G{n:05}"), 20);
        }
        assert_eq!(many.games.len(), MAX_GAMES);
        assert!(!many.covers("AAAAAA") && many.covers(&format!("G{:05}", MAX_GAMES + 4)));
        assert!(many.value.len() < 1024, "{}", many.value.len());
        assert_eq!(Session::from_value(&k, &many.value, 21), Some(many));
    }

    #[test]
    fn version_1_cookies_are_no_longer_read() {
        let k = keys();
        let body =
            format!("v1.{}.{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("alice@example.org"), 99);
        let v1 = format!("{body}.{}", mac(&k, "web-session", &body));
        assert_eq!(Session::from_value(&k, &v1, 0), None);
    }

    #[test]
    fn only_same_site_paths_may_follow_a_sign_in() {
        for bad in [
            "/%09/evil.example",
            "/\t/evil.example",
            "//evil.example",
            "/\\evil.example",
            "/%5Cevil.example",
            "/%2F/evil.example",
            "https://evil.example",
            "evil.example",
            "",
            "/games/ABC /x",
            "/%0d%0aSet-Cookie:x",
            "/g\u{e9}",
        ] {
            assert_eq!(same_site_path(bad), None, "{bad:?}");
        }
        for good in ["/", "/me", "/games/ABC?seat=1", "/games/ABC?seat=white&done=move", "/games/ABC%41"] {
            assert_eq!(same_site_path(good), Some(good), "{good:?}");
        }
    }
}
