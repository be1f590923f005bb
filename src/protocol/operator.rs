//! The operator's token: whoever holds it may create games over HTTP
//! (`POST /api/games` with `Authorization: Bearer <token>`), which makes the
//! steward mail the addresses it is given.
//!
//! The token is 32 random bytes in hex, kept in one file (by default
//! `operator-token` in the data directory), mode 0600, made at the first start
//! the way the steward's keys are (a temporary file, synced, linked into place,
//! never overwritten). `fairsteward operator-token` prints it.

use std::fmt;
use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use ring::hmac;

use super::keys::{KeyError, write_secret};

/// The default file of the operator token, in the data directory.
pub const OPERATOR_TOKEN_FILE: &str = "operator-token";

/// The operator's token, held so that a presented token is compared in constant time.
pub struct OperatorToken {
    text: String,
    /// A random key for this process: a presented token is compared by its
    /// HMAC under it, with ring's constant-time tag check.
    key: hmac::Key,
    tag: hmac::Tag,
}

impl OperatorToken {
    /// Reads the token from `path`, or makes one (mode 0600) when the file does
    /// not exist.
    ///
    /// # Errors
    /// [`KeyError::Io`] when the file cannot be read or written;
    /// [`KeyError::Format`] when it holds no token (empty, or not one line of at
    /// least 32 printable characters).
    pub fn load_or_create(path: &Path) -> Result<OperatorToken, KeyError> {
        let io = |source| KeyError::Io { path: path.to_owned(), source };
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    fs::create_dir_all(dir).map_err(io)?;
                }
                let made = format!("{}\n", crate::ids::hex(&super::random_bytes::<32>()));
                match write_secret(path, made.as_bytes()) {
                    Ok(()) => {
                        tracing::info!(path = %path.display(), "created the operator token");
                        made
                    }
                    // Another process made it meanwhile: use theirs.
                    Err(KeyError::Exists { .. }) => fs::read_to_string(path).map_err(io)?,
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(io(e)),
        };
        let token = text.trim();
        if token.len() < 32 || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(KeyError::Format {
                path: path.to_owned(),
                expected: "an operator token (one line of at least 32 printable characters)",
            });
        }
        Ok(OperatorToken::new(token))
    }

    fn new(token: &str) -> OperatorToken {
        let key = hmac::Key::new(hmac::HMAC_SHA256, &super::random_bytes::<32>());
        let tag = hmac::sign(&key, token.as_bytes());
        OperatorToken { text: token.to_owned(), key, tag }
    }

    /// Whether `presented` is the token, compared in constant time.
    pub fn matches(&self, presented: &str) -> bool {
        hmac::verify(&self.key, presented.as_bytes(), self.tag.as_ref()).is_ok()
    }

    /// The token, to print for the operator.
    pub fn reveal(&self) -> &str {
        &self.text
    }
}

/// The token never appears in logs or debug output.
impl fmt::Debug for OperatorToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OperatorToken(…)")
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn made_once_private_and_matched_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join(OPERATOR_TOKEN_FILE);
        let a = OperatorToken::load_or_create(&path).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let b = OperatorToken::load_or_create(&path).unwrap();
        assert_eq!(a.reveal(), b.reveal(), "the second start reads the same token");
        assert_eq!(a.reveal().len(), 64);
        assert!(a.matches(b.reveal()));
        assert!(!a.matches(&b.reveal()[..63]));
        assert!(!a.matches(""));
        assert!(!a.matches(&format!("{}0", b.reveal())));
        assert!(!format!("{a:?}").contains(a.reveal()));
    }

    #[test]
    fn a_file_without_a_token_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OPERATOR_TOKEN_FILE);
        fs::write(&path, "\n").unwrap();
        let err = OperatorToken::load_or_create(&path).unwrap_err();
        assert!(err.to_string().contains("operator token"), "{err}");
    }
}
