//! Passwords for programs (issue 34): what a correspondence program speaking
//! Xfcc (Scid vs. PC and the like) logs in with, beside the player's registered
//! address.
//!
//! A player sets one on their page (`/me`) or over HTTP
//! (`PUT /api/me/program-password`), chooses it or has the steward choose a
//! random one (a per-player token, shown once). The store keeps a slow salted
//! hash only: PBKDF2-HMAC-SHA256 from ring, [`PBKDF2_ITERATIONS`] rounds, a
//! 16-byte random salt. ring is already the steward's one crypto library, and
//! PBKDF2 at this count is what OWASP's password storage advice names for
//! SHA-256 (argon2 would be a new crate for the same purpose here).
//!
//! The password opens the games the sign-ins that set it were proven for
//! (issue 29: a seat token or private link of one game must not open the
//! player's others): a web session's games, or a seat token's game. Setting
//! it again, or "add my games", adds the games proven then.
//!
//! Failed logins are counted per address and per client address in
//! `rate_events` (migration 11); past [`FAILED_LOGINS_PER_ADDRESS`] or
//! [`FAILED_LOGINS_PER_CLIENT`] in an hour, logins are refused unchecked until
//! the hour has passed. The operator token is never a program password.

use std::num::NonZeroU32;

use chrono::TimeDelta;
use ring::pbkdf2;
use ring::rand::{SecureRandom, SystemRandom};
use serde::Serialize;

use super::{Credential, Refusal, Steward, StewardError, internal};
use crate::ids::{SeatToken, hex};
use crate::store::ProgramPasswordRow;

/// PBKDF2-HMAC-SHA256 rounds for a new password (OWASP's figure for SHA-256).
pub const PBKDF2_ITERATIONS: u32 = 600_000;

/// The shortest password a player may choose, in characters.
pub const MIN_PASSWORD_CHARS: usize = 10;

/// The longest, in bytes (a longer one costs hashing time for nothing).
pub const MAX_PASSWORD_BYTES: usize = 128;

/// Failed logins per address in an hour before further ones are refused.
pub const FAILED_LOGINS_PER_ADDRESS: u32 = 10;

/// Failed logins per client address in an hour before further ones are refused.
pub const FAILED_LOGINS_PER_CLIENT: u32 = 30;

/// The window failed logins are counted over.
const FAILED_LOGIN_WINDOW: TimeDelta = TimeDelta::hours(1);

/// The most games a password opens (the oldest proven drop out first).
const MAX_GAMES: usize = 200;

/// What to do with a player's program password.
#[derive(Clone, Debug)]
pub enum PasswordChange {
    /// Only read whether one is set.
    Keep,
    /// Set this one (chosen by the player).
    Set(String),
    /// Have the steward choose one (a per-player token), shown once.
    Generate,
    /// Add the games the credential proves, keeping the password.
    AddGames,
    /// Remove it: programs can no longer log in.
    Remove,
}

/// The answer about a player's program password.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"username": "alice@example.org", "set": true, "password": "7QK2M9X4HD8RZ1BV5TNC3WJF", "games": ["7YC2"], "message": "a program password is set (chosen by the steward); programs log in with the user name alice@example.org and it, and see 1 game"}))]
pub struct ProgramPasswordAnswer {
    /// The player's registered address, lower case: the program's user name.
    pub username: String,
    /// Whether a program password is set.
    pub set: bool,
    /// The password the steward just chose: shown this once, never stored in clear.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// The game ids it opens.
    pub games: Vec<String>,
    /// In words.
    pub message: String,
}

/// Why a program's login failed.
#[derive(Debug)]
pub enum LoginError {
    /// Unknown address, no password set, or the wrong one (not told apart).
    Failed,
    /// Too many failed logins lately for this address or client.
    TooMany,
    /// Ours.
    Steward(StewardError),
}

impl From<StewardError> for LoginError {
    fn from(e: StewardError) -> LoginError {
        LoginError::Steward(e)
    }
}

/// A player a program logged in as: the address and the games the password opens.
#[derive(Clone, Debug)]
pub struct ProgramLogin {
    /// The registered address, lower case.
    pub player: String,
    /// The game ids the password opens.
    pub games: Vec<String>,
}

fn random_salt() -> Result<[u8; 16], StewardError> {
    let mut salt = [0u8; 16];
    SystemRandom::new().fill(&mut salt).map_err(|_| internal("the system random number generator failed"))?;
    Ok(salt)
}

/// The stored form of `password`: `pbkdf2-sha256$<iterations>$<salt>$<hash>`.
fn hash_password(password: &str, iterations: u32) -> Result<String, StewardError> {
    let salt = random_salt()?;
    let rounds = NonZeroU32::new(iterations).ok_or_else(|| internal("zero PBKDF2 iterations"))?;
    let mut out = [0u8; 32];
    pbkdf2::derive(pbkdf2::PBKDF2_HMAC_SHA256, rounds, &salt, password.as_bytes(), &mut out);
    Ok(format!("pbkdf2-sha256${iterations}${}${}", hex(&salt), hex(&out)))
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// Whether `password` matches the stored `hash` (constant time in the hash).
fn verify_password(hash: &str, password: &str) -> bool {
    let mut parts = hash.split('$');
    let (Some("pbkdf2-sha256"), Some(iterations), Some(salt), Some(expected), None) =
        (parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Some(rounds), Some(salt), Some(expected)) =
        (iterations.parse::<u32>().ok().and_then(NonZeroU32::new), unhex(salt), unhex(expected))
    else {
        return false;
    };
    pbkdf2::verify(pbkdf2::PBKDF2_HMAC_SHA256, rounds, &salt, password.as_bytes(), &expected).is_ok()
}

/// A random password the steward chooses: 24 characters of Crockford base 32
/// (120 bits).
fn generated_password() -> Result<String, StewardError> {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut bytes = [0u8; 24];
    SystemRandom::new().fill(&mut bytes).map_err(|_| internal("the system random number generator failed"))?;
    Ok(bytes.iter().map(|b| ALPHABET[usize::from(b & 31)] as char).collect())
}

/// Checks a chosen password's length and characters.
fn check_chosen(password: &str) -> Result<(), Refusal> {
    if password.chars().count() < MIN_PASSWORD_CHARS || password.len() > MAX_PASSWORD_BYTES {
        return Err(Refusal::BadRequest(format!(
            "a program password has {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_BYTES} characters; choose a longer one (or a shorter one), or let the steward choose one"
        )));
    }
    if password.chars().any(char::is_control) || password.trim() != password {
        return Err(Refusal::BadRequest(
            "a program password has no control characters and no spaces at its ends; choose another".into(),
        ));
    }
    Ok(())
}

/// Hashes on a blocking thread: PBKDF2 at this count takes a noticeable time.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, StewardError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| internal(format!("password hashing stopped: {e}")))
}

impl Steward {
    /// Reads or changes the program password of the player a credential (a
    /// seat token or a web session) proves.
    ///
    /// # Errors
    /// A bad credential; a chosen password too short or too long; store failures.
    pub async fn program_password(
        &self,
        credential: Credential,
        change: PasswordChange,
    ) -> Result<ProgramPasswordAnswer, StewardError> {
        if let PasswordChange::Set(p) = &change {
            check_chosen(p)?;
        }
        // Who asks first: the slow hash below is spent only for a player, never
        // for whoever sends a stranger's token (issue 29: bounded work).
        if matches!(change, PasswordChange::Set(_) | PasswordChange::Generate) {
            let asking = credential.clone();
            self.store.transaction(move |tx| Self::player_of(tx, &asking).map(drop)).await?;
        }
        let (clear, hash) = match &change {
            PasswordChange::Set(p) => {
                let p = p.clone();
                (None, Some(blocking(move || hash_password(&p, PBKDF2_ITERATIONS)).await??))
            }
            PasswordChange::Generate => {
                let p = generated_password()?;
                let q = p.clone();
                (Some(p), Some(blocking(move || hash_password(&q, PBKDF2_ITERATIONS)).await??))
            }
            _ => (None, None),
        };
        let generated = clear.is_some();
        let now = self.now();
        self.store
            .transaction(move |tx| {
                let player = Self::player_of(tx, &credential)?;
                let proven: Vec<String> = match &credential {
                    Credential::Token(t) => tx
                        .seat_by_token(&SeatToken::from_presented(t).hash())?
                        .map(|(g, _, _)| vec![g.to_string()])
                        .unwrap_or_default(),
                    Credential::Session { games, .. } => games.iter().map(|g| g.to_ascii_uppercase()).collect(),
                    _ => Vec::new(),
                };
                let mut row = tx.program_password(&player)?;
                match (&change, hash) {
                    (PasswordChange::Remove, _) => {
                        tx.set_program_password(&player, None, now)?;
                        row = None;
                    }
                    (PasswordChange::Keep, _) => {}
                    (PasswordChange::AddGames, _) => {
                        let Some(r) = row.as_mut() else {
                            return Err(Refusal::BadRequest(
                                "no program password is set yet; set one first (it opens the games you are signed in for)"
                                    .into(),
                            )
                            .into());
                        };
                        add_games(&mut r.games, &proven);
                        tx.set_program_password(&player, Some(r), now)?;
                    }
                    (PasswordChange::Set(_) | PasswordChange::Generate, Some(hash)) => {
                        let mut games = row.map(|r| r.games).unwrap_or_default();
                        add_games(&mut games, &proven);
                        let r = ProgramPasswordRow { hash, generated, games };
                        tx.set_program_password(&player, Some(&r), now)?;
                        row = Some(r);
                    }
                    (PasswordChange::Set(_) | PasswordChange::Generate, None) => {
                        return Err(internal("a new password without its hash"));
                    }
                }
                let games = row.as_ref().map(|r| r.games.clone()).unwrap_or_default();
                let message = match &row {
                    None => "no program password is set: programs cannot log in as you".to_owned(),
                    Some(r) => format!(
                        "a program password is set ({}); programs log in with the user name {player} and it, and see {} game{}",
                        if r.generated { "chosen by the steward" } else { "chosen by you" },
                        r.games.len(),
                        if r.games.len() == 1 { "" } else { "s" },
                    ),
                };
                Ok(ProgramPasswordAnswer { username: player, set: row.is_some(), password: clear, games, message })
            })
            .await
    }

    /// Logs a program in with a registered address and its program password,
    /// from `client` (the client's IP address, for the failed-login limit).
    ///
    /// # Errors
    /// [`LoginError::Failed`] for any wrong or unknown name or password;
    /// [`LoginError::TooMany`] past the failed-login limits; store failures.
    pub async fn program_login(
        &self,
        username: &str,
        password: &str,
        client: &str,
    ) -> Result<ProgramLogin, LoginError> {
        let player = super::senders::address_key(username);
        if player.is_empty() || player.len() > 320 || password.is_empty() || password.len() > MAX_PASSWORD_BYTES {
            return Err(LoginError::Failed);
        }
        let by_player = format!("program-login|{player}");
        let by_client = format!("program-login-client|{client}");
        let now = self.now();
        let stored = {
            let (by_player, by_client, player) = (by_player.clone(), by_client.clone(), player.clone());
            self.store
                .transaction(move |tx| {
                    let since = now - FAILED_LOGIN_WINDOW;
                    if tx.rate_count(&by_player, since)? >= FAILED_LOGINS_PER_ADDRESS
                        || tx.rate_count(&by_client, since)? >= FAILED_LOGINS_PER_CLIENT
                    {
                        return Ok::<_, StewardError>(Err(LoginError::TooMany));
                    }
                    Ok(Ok(tx.program_password(&player)?))
                })
                .await?
        }?;
        let password = password.to_owned();
        let (ok, row) = blocking(move || match stored {
            Some(row) => (verify_password(&row.hash, &password), Some(row)),
            None => {
                // As long as a real check, so timing tells no address apart.
                let _ = verify_password(DUMMY_HASH, &password);
                (false, None)
            }
        })
        .await?;
        match row {
            Some(row) if ok => Ok(ProgramLogin { player, games: row.games }),
            _ => {
                self.store
                    .transaction(move |tx| {
                        tx.rate_spend(&by_player, now)?;
                        tx.rate_spend(&by_client, now)?;
                        Ok::<_, StewardError>(())
                    })
                    .await?;
                Err(LoginError::Failed)
            }
        }
    }
}

/// A hash of no one's password, checked when the address has none.
const DUMMY_HASH: &str = "pbkdf2-sha256$600000$00000000000000000000000000000000$0000000000000000000000000000000000000000000000000000000000000000";

/// Adds `proven` to `games` (no duplicates), keeping the latest [`MAX_GAMES`].
fn add_games(games: &mut Vec<String>, proven: &[String]) {
    for g in proven {
        games.retain(|x| x != g);
        games.push(g.clone());
    }
    let extra = games.len().saturating_sub(MAX_GAMES);
    games.drain(..extra);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_verifies_against_its_hash_only() {
        let h = hash_password("correct horse battery", 1000).unwrap();
        assert!(h.starts_with("pbkdf2-sha256$1000$"));
        assert!(verify_password(&h, "correct horse battery"));
        assert!(!verify_password(&h, "correct horse batterz"));
        assert!(!verify_password("garbage", "x"));
        assert!(!verify_password(DUMMY_HASH, ""));
        // Two hashes of one password differ by their salt.
        assert_ne!(h, hash_password("correct horse battery", 1000).unwrap());
    }

    #[test]
    fn chosen_passwords_are_checked() {
        assert!(check_chosen("short").is_err());
        assert!(check_chosen(" leading space").is_err());
        assert!(check_chosen(&"x".repeat(129)).is_err());
        assert!(check_chosen("long enough pass").is_ok());
        assert_eq!(generated_password().unwrap().len(), 24);
    }
}
