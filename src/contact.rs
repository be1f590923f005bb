//! A player's name and mail address, checked by one validator that game creation
//! and the mail composer share: what creation accepts, the composer can send.
//!
//! - A name is one line of at most [`MAX_NAME_CHARS`] characters with no control
//!   characters, so it can neither add lines to a mail nor make a header too long.
//! - An address is plain ASCII `local@domain`: a dot-atom local part of at most 64
//!   characters and a host name of letters, digits and hyphens. Quoted local parts,
//!   address literals (`user@[192.0.2.1]`) and non-ASCII addresses are refused: the
//!   composer could not write them into a header, and the steward does not speak
//!   SMTPUTF8.

use std::fmt;

use lettre::message::Mailbox;

/// The longest player name, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// The longest address (RFC 5321's path limit less the angle brackets).
pub const MAX_ADDRESS_CHARS: usize = 254;

/// Why a name or an address was refused; the message says what to send instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContactError {
    /// No name at all.
    #[error("the player name is empty; send a name such as \"Alice\"")]
    EmptyName,
    /// A name over [`MAX_NAME_CHARS`].
    #[error("the player name is {0} characters long; send at most {MAX_NAME_CHARS}")]
    LongName(usize),
    /// A name with a line break or another control character.
    #[error("the player name holds a line break or a control character; send it on one line of plain characters")]
    ControlInName,
    /// Not an address the steward can mail.
    #[error("{0:?} is not a mail address the steward can send to: {1}; send a plain address such as alice@example.org")]
    Address(String, &'static str),
}

/// A player's name: one line, no control characters, at most [`MAX_NAME_CHARS`]
/// characters, trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerName(String);

impl PlayerName {
    /// Checks a name as given at game creation.
    ///
    /// # Errors
    /// An empty name, a control character (CR, LF, tab, …, and the Unicode line
    /// and paragraph separators), or more than [`MAX_NAME_CHARS`] characters.
    pub fn parse(text: &str) -> Result<PlayerName, ContactError> {
        let name = text.trim();
        if name.is_empty() {
            return Err(ContactError::EmptyName);
        }
        if name.chars().any(is_control) {
            return Err(ContactError::ControlInName);
        }
        let chars = name.chars().count();
        if chars > MAX_NAME_CHARS {
            return Err(ContactError::LongName(chars));
        }
        Ok(PlayerName(name.to_owned()))
    }

    /// A name from the store, made safe however it was stored: control
    /// characters become spaces and it is cut to [`MAX_NAME_CHARS`] characters.
    /// (Games created before names were checked may hold anything.)
    pub fn lenient(text: &str) -> PlayerName {
        let clean: String =
            text.chars().map(|c| if is_control(c) { ' ' } else { c }).take(MAX_NAME_CHARS).collect::<String>();
        PlayerName(clean.trim().to_owned())
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PlayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// A mail address the steward can send to (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerAddress(lettre::Address);

impl PlayerAddress {
    /// Checks an address as given at game creation (surrounding white space is
    /// dropped).
    ///
    /// # Errors
    /// [`ContactError::Address`], saying what is wrong with it.
    pub fn parse(text: &str) -> Result<PlayerAddress, ContactError> {
        let address = text.trim();
        let refuse = |why: &'static str| Err(ContactError::Address(text.to_owned(), why));
        if !address.is_ascii() {
            return refuse("it is not plain ASCII (the steward does not send SMTPUTF8 mail)");
        }
        if address.len() > MAX_ADDRESS_CHARS {
            return refuse("it is longer than 254 characters");
        }
        let Some((local, domain)) = address.rsplit_once('@') else {
            return refuse("it has no @");
        };
        if !dot_atom(local) {
            return refuse(
                "the part before @ must be 1 to 64 letters, digits and !#$%&'*+-/=?^_`{|}~, in words joined by single dots (no quotes)",
            );
        }
        if !host_name(domain) {
            return refuse("the part after @ must be a host name such as example.org (no address literals)");
        }
        // What the composer will build the header from; the checks above keep to
        // a subset of what lettre takes, so this holds.
        match address.parse::<lettre::Address>() {
            Ok(a) => Ok(PlayerAddress(a)),
            Err(_) => refuse("it is not a valid address"),
        }
    }

    /// The address as lettre sends to it.
    pub fn address(&self) -> &lettre::Address {
        &self.0
    }

    /// `name <address>` for a header; the name is made safe with
    /// [`PlayerName::lenient`] and left out when empty. lettre quotes or encodes
    /// it as needed and folds the header.
    pub fn mailbox(&self, name: &str) -> Mailbox {
        let name = PlayerName::lenient(name);
        Mailbox::new(Some(name.0).filter(|n| !n.is_empty()), self.0.clone())
    }
}

impl fmt::Display for PlayerAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_ref())
    }
}

/// RFC 5322's dot-atom, at most 64 characters (RFC 5321's local-part limit).
fn dot_atom(local: &str) -> bool {
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
    (1..=64).contains(&local.len()) && local.split('.').all(|word| !word.is_empty() && word.chars().all(atext))
}

/// A host name: labels of letters, digits and inner hyphens, at most 63 each and
/// 253 in all; the last label not all digits (that would be an IP address).
fn host_name(domain: &str) -> bool {
    let label = |l: &str| {
        (1..=63).contains(&l.len())
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    (1..=253).contains(&domain.len())
        && domain.split('.').all(label)
        && !domain.rsplit('.').next().is_some_and(|tld| tld.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_short_line() {
        assert_eq!(PlayerName::parse("  Alice Ferreira ").unwrap().as_str(), "Alice Ferreira");
        assert_eq!(PlayerName::parse("Jürgen Groß 王").unwrap().as_str(), "Jürgen Groß 王");
        assert!(PlayerName::parse(&"é".repeat(100)).is_ok());
        assert_eq!(PlayerName::parse(&"é".repeat(101)), Err(ContactError::LongName(101)));
        assert_eq!(PlayerName::parse(" \t "), Err(ContactError::EmptyName));
        for bad in ["Eve\r\nBcc: x@y.org", "Eve\nmoves: resign", "Eve\tX", "Eve\u{0}", "Eve\u{2028}x", "Eve\u{85}x"] {
            assert_eq!(PlayerName::parse(bad), Err(ContactError::ControlInName), "{bad:?}");
        }
        assert_eq!(PlayerName::lenient("Eve\r\nBcc: x").as_str(), "Eve  Bcc: x");
        assert_eq!(PlayerName::lenient(&"x".repeat(5000)).as_str().len(), MAX_NAME_CHARS);
    }

    #[test]
    fn addresses_are_what_the_composer_can_send() {
        for good in [
            "alice@example.org",
            " bob.smith+chess@mail.example.co.uk ",
            "o'neil@example.ie",
            "x@localhost",
            "a!#$%&'*+-/=?^_`{|}~z@ex-ample.org",
        ] {
            let a = PlayerAddress::parse(good).unwrap_or_else(|e| panic!("{good}: {e}"));
            assert_eq!(a.to_string(), good.trim());
            // What lettre writes parses back as the same address.
            let header = a.mailbox("Alice \"the Knight\" <Ferreira>").to_string();
            let back: Mailbox = header.parse().unwrap_or_else(|e| panic!("{header}: {e}"));
            assert_eq!(back.email.to_string(), good.trim());
        }
        for bad in [
            "\"john doe\"@example.org",
            "\"a@b\"@example.org",
            "user@[192.0.2.1]",
            "user@[IPv6:2001:db8::1]",
            "user@192.0.2.1",
            "jürgen@example.de",
            "user@bücher.example",
            ".user@example.org",
            "us..er@example.org",
            "user.@example.org",
            "user@-example.org",
            "user@example..org",
            "user@",
            "@example.org",
            "user",
            "a b@example.org",
            "user@example.org\r\nBcc: x@y.org",
            "Alice <alice@example.org>",
            "",
        ] {
            assert!(matches!(PlayerAddress::parse(bad), Err(ContactError::Address(..))), "{bad:?} should be refused");
        }
        let long_local = format!("{}@example.org", "a".repeat(65));
        assert!(PlayerAddress::parse(&long_local).is_err());
        let long = format!("{}@{}.org", "a".repeat(64), vec!["b".repeat(63); 4].join("."));
        assert!(PlayerAddress::parse(&long).is_err(), "over 254 characters");
    }
}
