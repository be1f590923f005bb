//! A player's name and mail address, checked by one validator that game creation
//! and the mail composer share: what creation accepts, the composer can send.
//!
//! - A name is one line of at most [`MAX_NAME_CHARS`] characters with no control
//!   characters, so it can neither add lines to a mail nor make a header too long.
//!   It holds no bidirectional controls (a right-to-left override makes a name
//!   show other than it reads) and something visible (not only spaces,
//!   zero-width or other invisible characters, or combining marks alone), so
//!   players can tell who is who (issue 29). Two seats of a game may not show the
//!   same name: [`PlayerName::shown_as`] is what that compares.
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
    /// A name with a bidirectional control (U+061C, U+200E, U+200F,
    /// U+202A–U+202E, U+2066–U+2069), which can make it show other than it reads.
    #[error(
        "the player name holds a bidirectional control character (U+{0:04X}), which makes a name show other than it reads; send the name without it (right-to-left names need none)"
    )]
    BidiInName(u32),
    /// A name with nothing visible in it.
    #[error(
        "the player name shows nothing: it holds only spaces, invisible (zero-width, format) characters or combining marks; send a name with letters, digits or signs such as \"Alice\""
    )]
    InvisibleName,
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
    /// and paragraph separators), a bidirectional control, nothing visible, or
    /// more than [`MAX_NAME_CHARS`] characters.
    pub fn parse(text: &str) -> Result<PlayerName, ContactError> {
        let name = text.trim();
        if name.is_empty() {
            return Err(ContactError::EmptyName);
        }
        if name.chars().any(is_control) {
            return Err(ContactError::ControlInName);
        }
        if let Some(c) = name.chars().find(|&c| is_bidi_control(c)) {
            return Err(ContactError::BidiInName(u32::from(c)));
        }
        if !name.chars().any(is_visible) {
            return Err(ContactError::InvisibleName);
        }
        let chars = name.chars().count();
        if chars > MAX_NAME_CHARS {
            return Err(ContactError::LongName(chars));
        }
        Ok(PlayerName(name.to_owned()))
    }

    /// A name from the store, made safe however it was stored: control
    /// characters become spaces, bidirectional controls are dropped, and it is
    /// cut to [`MAX_NAME_CHARS`] characters. (Games created before names were
    /// checked may hold anything.)
    pub fn lenient(text: &str) -> PlayerName {
        let clean: String = text
            .chars()
            .filter(|&c| !is_bidi_control(c))
            .map(|c| if is_control(c) { ' ' } else { c })
            .take(MAX_NAME_CHARS)
            .collect::<String>();
        PlayerName(clean.trim().to_owned())
    }

    /// The name as a reader tells it apart from others: without invisible
    /// characters, white space runs made one space, trimmed, in lower case.
    /// Two seats of a game whose names give the same text show the same name.
    pub fn shown_as(&self) -> String {
        let visible: String = self.0.chars().filter(|&c| !is_invisible(c)).collect();
        visible.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
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

/// The bidirectional controls: marks, embeddings, overrides and isolates.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Characters that show nothing by themselves: the soft hyphen, zero-width
/// spaces and joiners, word joiners and invisible operators, the byte-order
/// mark, variation selectors, tag characters, and the fillers (Hangul, braille
/// blank) that fonts draw empty.
fn is_invisible(c: char) -> bool {
    is_bidi_control(c)
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200D}'
                | '\u{2060}'..='\u{2065}'
                | '\u{206A}'..='\u{206F}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E007F}'
                | '\u{E0100}'..='\u{E01EF}'
        )
}

/// Combining marks of the combining blocks (diacritics, and Hebrew and Arabic
/// points): a mark shows only on a character before it.
fn is_combining(c: char) -> bool {
    matches!(
        c,
        '\u{0300}'..='\u{036F}'
            | '\u{0483}'..='\u{0489}'
            | '\u{0591}'..='\u{05BD}'
            | '\u{05BF}'
            | '\u{05C1}'
            | '\u{05C2}'
            | '\u{05C4}'
            | '\u{05C5}'
            | '\u{05C7}'
            | '\u{0610}'..='\u{061A}'
            | '\u{064B}'..='\u{065F}'
            | '\u{0670}'
            | '\u{06D6}'..='\u{06DC}'
            | '\u{06DF}'..='\u{06E4}'
            | '\u{06E7}'
            | '\u{06E8}'
            | '\u{06EA}'..='\u{06ED}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{3099}'
            | '\u{309A}'
            | '\u{FE20}'..='\u{FE2F}'
    )
}

/// Whether `c` shows something by itself.
fn is_visible(c: char) -> bool {
    !c.is_whitespace() && !is_control(c) && !is_invisible(c) && !is_combining(c)
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
        assert_eq!(PlayerName::lenient("\u{202E}evE").as_str(), "evE");
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

    /// Issue 29: a name shows what it reads, and shows something.
    #[test]
    fn names_with_bidi_controls_or_nothing_visible_are_refused() {
        for (bad, code) in [
            ("Alice\u{202E}gnp.exe", 0x202E),
            ("\u{200F}Bob", 0x200F),
            ("Bob\u{2066}x\u{2069}", 0x2066),
            ("Eve\u{061C}", 0x061C),
            ("Eve\u{200E}", 0x200E),
        ] {
            assert_eq!(PlayerName::parse(bad), Err(ContactError::BidiInName(code)), "{bad:?}");
        }
        for blank in [
            "\u{200B}",
            "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}",
            " \u{00AD} ",
            "\u{3000}\u{200B}\u{2003}",
            "\u{0301}\u{0308}",
            "\u{3164}\u{2800}",
            "\u{FE0F}",
        ] {
            assert_eq!(PlayerName::parse(blank), Err(ContactError::InvisibleName), "{blank:?}");
        }
        // Right-to-left names, joiners inside names and marks on letters are fine.
        for good in ["אליס", "علي", "e\u{0301}lise", "👩\u{200D}💻 Dev", "ناز\u{200C}نین", "♞"] {
            assert!(PlayerName::parse(good).is_ok(), "{good:?}");
        }
        let error = PlayerName::parse("\u{200B}").unwrap_err().to_string();
        assert!(error.contains("send a name"), "{error}");
    }

    #[test]
    fn names_shown_alike_compare_alike() {
        let shown = |n: &str| PlayerName::parse(n).unwrap().shown_as();
        assert_eq!(shown("Alice"), shown("  alice "));
        assert_eq!(shown("Alice"), shown("AL\u{200B}ICE"));
        assert_eq!(shown("Alice Smith"), shown("alice \u{00A0} smith"));
        assert_eq!(shown("Jürgen"), shown("JÜRGEN"));
        assert_ne!(shown("Alice"), shown("Alicia"));
    }
}
