//! The envelope text of docs/trust.md: finding a block in a mail or HTTP body,
//! reading it, its canonical bytes, the text a player pastes, and its signature.
//!
//! Reading is tolerant of what mail does to text (see the [module docs](super)):
//! every line loses its `>` quote markers, surrounding white space and `\r`;
//! blank lines are skipped; keys are read case-insensitively; a base64 or hex
//! value wrapped onto following lines is joined again. Values are normalised
//! (game upper case, seat lower case, hex lower case), and the canonical bytes are
//! built from the normalised values, so a signature survives all of that.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use super::action::Action;
use super::commit::commitment;
use super::error::EnvelopeError;
use super::keys::{PlayerKey, verify_signature};
use super::seal::check_sealed_length;
use crate::ids::{GameId, hex};

/// The first line of an envelope block.
pub const BEGIN_LINE: &str = "-----BEGIN FAIRSTEWARD MOVE-----";
/// The last line of an envelope block.
pub const END_LINE: &str = "-----END FAIRSTEWARD MOVE-----";
/// The largest envelope block read, in bytes of the text as received (quote
/// markers and line ends included), BEGIN and END lines included. A sealed,
/// signed move takes about 300.
pub const MAX_ENVELOPE_BYTES: usize = 4096;
/// The longest move text, in bytes.
pub const MAX_MOVE_BYTES: usize = 256;
/// The shortest salt a reveal may carry, in bytes.
pub const MIN_SALT_BYTES: usize = 16;
/// The shortest nonce, in bytes (written as twice as many hex digits).
pub const MIN_NONCE_BYTES: usize = 8;
/// The longest nonce, in bytes.
pub const MAX_NONCE_BYTES: usize = 64;
/// The keys an envelope may have, in the order they are listed to players.
pub(crate) const FIELDS: [&str; 10] =
    ["game", "seat", "turn", "move", "sealed", "commit", "salt", "action", "nonce", "sig"];

/// A move envelope: a move, sealed move, commitment or reveal bound to a game,
/// seat and turn, optionally signed.
///
/// Build one with [`Envelope::new`] (which normalises as parsing does), or read
/// one with [`Envelope::find`] or [`Envelope::parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// The game id, upper case (`8KQ2ZJ`).
    pub game: String,
    /// The seat name, lower case (`white`).
    pub seat: String,
    /// The turn the move is for.
    pub turn: u32,
    /// What the envelope carries.
    pub body: Body,
    /// The salt of a *sealed* reveal (`sealed:` with `salt:`); `None` otherwise.
    /// A reveal in clear keeps its salt in [`Body::Reveal`].
    pub salt: Option<Vec<u8>>,
    /// Random lower-case hex, so that two otherwise equal envelopes differ.
    pub nonce: Option<String>,
    /// The Ed25519 signature over [`Envelope::canonical_bytes`] (64 bytes).
    pub sig: Option<Vec<u8>>,
    /// The OpenPGP signature this envelope was read from (issue 33): the fields
    /// above were read from the signed bytes it holds; `None` for envelopes
    /// read from text.
    pub openpgp: Option<Box<super::openpgp::proof::OpenPgpProof>>,
}

/// What an envelope carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// `move:` — a move in clear.
    Move(String),
    /// `sealed:` — a move sealed to the steward's key (see [`seal`](mod@super::seal)).
    Sealed(Vec<u8>),
    /// `commit:` — a commitment to a move (see [`super::commitment`]).
    Commit([u8; 32]),
    /// `move:` with `salt:` — the reveal of a committed move.
    Reveal {
        /// The move.
        text: String,
        /// The salt that went into the commitment.
        salt: Vec<u8>,
    },
    /// `action:` — a resignation, draw offer, accept or decline, or leave (see
    /// [`Action`]).
    Action(Action),
}

impl Body {
    /// What kind of body this is: `move`, `sealed`, `commit` or `reveal`.
    pub fn kind(&self) -> &'static str {
        match self {
            Body::Move(_) => "move",
            Body::Sealed(_) => "sealed",
            Body::Commit(_) => "commit",
            Body::Reveal { .. } => "reveal",
            Body::Action(_) => "action",
        }
    }
}

/// A fresh nonce: 8 random bytes as 16 lower-case hex digits.
pub fn random_nonce() -> String {
    hex(&super::random_bytes::<MIN_NONCE_BYTES>())
}

impl Envelope {
    /// An unsigned envelope without a nonce; the game is upper-cased, the seat
    /// lower-cased and the move text trimmed, as parsing would.
    pub fn new(game: &str, seat: &str, turn: u32, body: Body) -> Envelope {
        let body = match body {
            Body::Move(text) => Body::Move(text.trim().to_owned()),
            Body::Reveal { text, salt } => Body::Reveal { text: text.trim().to_owned(), salt },
            other => other,
        };
        Envelope {
            game: game.trim().to_ascii_uppercase(),
            seat: seat.trim().to_ascii_lowercase(),
            turn,
            body,
            salt: None,
            nonce: None,
            sig: None,
            openpgp: None,
        }
    }

    /// The same envelope with `nonce` (lower-cased).
    pub fn with_nonce(mut self, nonce: &str) -> Envelope {
        self.nonce = Some(nonce.trim().to_ascii_lowercase());
        self
    }

    /// Finds the envelope in a mail or HTTP body.
    ///
    /// Surrounding text is ignored. When the text holds several blocks, the least
    /// quoted ones count (a reply's own envelope, not the quoted earlier one);
    /// copies of the same envelope are one envelope.
    ///
    /// # Errors
    /// `Ok(None)` when there is no BEGIN line at all; an [`EnvelopeError`] when
    /// the block is cut off, too large, unreadable, or when the least quoted
    /// blocks differ ([`EnvelopeError::Ambiguous`]).
    pub fn find(text: &str) -> Result<Option<Envelope>, EnvelopeError> {
        let scan = scan(text);
        let Some(depth) = scan.blocks.iter().map(|b| b.depth).min() else { return Ok(None) };
        let mut chosen: Option<Envelope> = None;
        for block in scan.blocks.iter().filter(|b| b.depth == depth) {
            let envelope = block.read()?;
            match &chosen {
                None => chosen = Some(envelope),
                Some(c) if *c == envelope => {}
                Some(_) => return Err(EnvelopeError::Ambiguous),
            }
        }
        Ok(chosen)
    }

    /// Reads a text that is exactly one envelope block (blank lines around it
    /// allowed; quoting, `\r` and stray white space tolerated as by
    /// [`Envelope::find`]).
    ///
    /// # Errors
    /// An [`EnvelopeError`] naming the problem, including text outside the block
    /// and a block larger than [`MAX_ENVELOPE_BYTES`].
    pub fn parse(block: &str) -> Result<Envelope, EnvelopeError> {
        if block.len() > MAX_ENVELOPE_BYTES {
            return Err(EnvelopeError::TooLarge { size: block.len() });
        }
        let scan = scan(block);
        if let Some(line) = scan.outside {
            return Err(EnvelopeError::OutsideBlock(cut(line)));
        }
        match scan.blocks.as_slice() {
            [] => Err(EnvelopeError::NotFound),
            [one] => one.read(),
            _ => Err(EnvelopeError::Ambiguous),
        }
    }

    /// The lines as signed, in order: game, seat, turn, then the others (never
    /// `sig`) sorted by key.
    fn lines(&self) -> Vec<(&'static str, String)> {
        let mut rest: Vec<(&'static str, String)> = Vec::with_capacity(4);
        match &self.body {
            Body::Move(text) => rest.push(("move", text.trim().to_owned())),
            Body::Sealed(bytes) => rest.push(("sealed", BASE64.encode(bytes))),
            Body::Commit(c) => rest.push(("commit", hex(c))),
            Body::Reveal { text, salt } => {
                rest.push(("move", text.trim().to_owned()));
                rest.push(("salt", hex(salt)));
            }
            Body::Action(a) => rest.push(("action", a.to_string())),
        }
        if let Some(salt) = &self.salt
            && !matches!(self.body, Body::Reveal { .. })
        {
            rest.push(("salt", hex(salt)));
        }
        if let Some(nonce) = &self.nonce {
            rest.push(("nonce", nonce.trim().to_ascii_lowercase()));
        }
        rest.sort_by_key(|(key, _)| *key);
        let mut lines = vec![
            ("game", self.game.trim().to_ascii_uppercase()),
            ("seat", self.seat.trim().to_ascii_lowercase()),
            ("turn", self.turn.to_string()),
        ];
        lines.extend(rest);
        lines
    }

    /// The bytes a signature covers (docs/trust.md): every line but `sig:`, each as
    /// `key: value\n`, in the order game, seat, turn, then the rest sorted by
    /// key; values normalised as [`Envelope::parse`] leaves them.
    ///
    /// ```
    /// use fairsteward::protocol::{Body, Envelope};
    /// let e = Envelope::new("8kq2zj", "White", 12, Body::Move("Nf3".into())).with_nonce("4f1c9a0b7e2d51aa");
    /// assert_eq!(e.canonical_bytes(), b"game: 8KQ2ZJ\nseat: white\nturn: 12\nmove: Nf3\nnonce: 4f1c9a0b7e2d51aa\n");
    /// ```
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out = String::new();
        for (key, value) in self.lines() {
            out.push_str(key);
            out.push_str(": ");
            out.push_str(&value);
            out.push('\n');
        }
        out.into_bytes()
    }

    /// Whether a signature stands behind the envelope: an Ed25519 `sig:`, or the
    /// OpenPGP signature it was read from (checked by the steward against the
    /// seat's keys, like `sig:`).
    pub fn is_signed(&self) -> bool {
        self.sig.is_some() || self.openpgp.is_some()
    }

    /// The text the transcript keeps: the envelope's text, or for an envelope
    /// read from an OpenPGP-signed part the proof (signed bytes and signature).
    pub fn record_text(&self) -> String {
        match &self.openpgp {
            Some(p) => p.to_text(),
            None => self.to_text(),
        }
    }

    /// The whole block as a player pastes it: BEGIN line, the canonical lines,
    /// `sig:` when signed, END line; every line ends in `\n`.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(256);
        out.push_str(BEGIN_LINE);
        out.push('\n');
        out.push_str(&String::from_utf8(self.canonical_bytes()).expect("canonical bytes are built from strings"));
        if let Some(sig) = &self.sig {
            out.push_str("sig: ");
            out.push_str(&BASE64.encode(sig));
            out.push('\n');
        }
        out.push_str(END_LINE);
        out.push('\n');
        out
    }

    /// Signs the canonical bytes with the player's key (replacing any signature).
    pub fn sign(&mut self, key: &PlayerKey) {
        self.sig = Some(key.sign(&self.canonical_bytes()).to_vec());
    }

    /// Checks the signature against a seat's Ed25519 public key.
    ///
    /// # Errors
    /// [`EnvelopeError::MissingSignature`] without a `sig:`;
    /// [`EnvelopeError::BadSignature`] when it does not verify (altered, or signed
    /// with another key).
    pub fn verify(&self, public_key: &[u8; 32]) -> Result<(), EnvelopeError> {
        let sig = self.sig.as_deref().ok_or(EnvelopeError::MissingSignature)?;
        if verify_signature(public_key, &self.canonical_bytes(), sig) {
            Ok(())
        } else {
            Err(EnvelopeError::BadSignature)
        }
    }

    /// Checks a reveal in clear ([`Body::Reveal`]) against the commitment the
    /// seat made for this game, seat and turn. (A sealed reveal is checked with
    /// [`super::commitment`] once opened.)
    ///
    /// # Errors
    /// [`EnvelopeError::RevealMismatch`] when move and salt do not hash to
    /// `committed`; [`EnvelopeError::NotAReveal`] for any other body.
    pub fn check_reveal(&self, committed: &[u8; 32]) -> Result<(), EnvelopeError> {
        let Body::Reveal { text, salt } = &self.body else { return Err(EnvelopeError::NotAReveal) };
        if commitment(&self.game, &self.seat, self.turn, text, salt) == *committed {
            Ok(())
        } else {
            Err(EnvelopeError::RevealMismatch { game: self.game.clone(), seat: self.seat.clone(), turn: self.turn })
        }
    }
}

/// The block text, as [`Envelope::to_text`] prints it.
impl fmt::Display for Envelope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// A line of mail text without its quote markers (`>`, `> >`, `>>`), surrounding
/// white space and `\r`, with the number of quote markers.
fn unquote(raw: &str) -> (usize, &str) {
    let mut depth = 0;
    let mut rest = raw;
    loop {
        let t = rest.trim_start();
        match t.strip_prefix('>') {
            Some(r) => {
                depth += 1;
                rest = r;
            }
            None => return (depth, t.trim_end()),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Begin,
    End,
}

/// Whether a line is a BEGIN or END line. Case and the number of dashes are not
/// held against it.
fn marker(line: &str) -> Option<Marker> {
    if !(line.starts_with("---") && line.ends_with("---")) {
        return None;
    }
    let words = line.trim_matches('-').trim();
    if words.eq_ignore_ascii_case("BEGIN FAIRSTEWARD MOVE") {
        Some(Marker::Begin)
    } else if words.eq_ignore_ascii_case("END FAIRSTEWARD MOVE") {
        Some(Marker::End)
    } else {
        None
    }
}

/// A BEGIN … END block found in a text.
struct Block<'a> {
    /// Quote depth of its BEGIN line.
    depth: usize,
    /// The lines between BEGIN and END, unquoted and trimmed (collected only up to
    /// the size limit).
    lines: Vec<&'a str>,
    /// Bytes of raw text, BEGIN to END (or to the end of the text).
    size: usize,
    /// Whether an END line closed it.
    closed: bool,
}

impl Block<'_> {
    fn read(&self) -> Result<Envelope, EnvelopeError> {
        if self.size > MAX_ENVELOPE_BYTES {
            return Err(EnvelopeError::TooLarge { size: self.size });
        }
        if !self.closed {
            return Err(EnvelopeError::Unterminated);
        }
        from_lines(&self.lines)
    }
}

struct Scan<'a> {
    blocks: Vec<Block<'a>>,
    /// The first non-blank line outside every block.
    outside: Option<&'a str>,
}

fn scan(text: &str) -> Scan<'_> {
    let mut blocks = Vec::new();
    let mut current: Option<Block<'_>> = None;
    let mut outside = None;
    for raw in text.split('\n') {
        let (depth, line) = unquote(raw);
        let size = raw.len() + 1;
        let mark = marker(line);
        match current.as_mut() {
            None if mark == Some(Marker::Begin) => {
                current = Some(Block { depth, lines: Vec::new(), size, closed: false });
            }
            None => {
                if outside.is_none() && !line.is_empty() {
                    outside = Some(line);
                }
            }
            Some(block) => match mark {
                Some(Marker::End) => {
                    block.size += size;
                    block.closed = true;
                    blocks.extend(current.take());
                }
                // A BEGIN inside a block: the earlier one was cut off.
                Some(Marker::Begin) => {
                    blocks.extend(current.take());
                    current = Some(Block { depth, lines: Vec::new(), size, closed: false });
                }
                None => {
                    block.size += size;
                    if block.size <= MAX_ENVELOPE_BYTES {
                        block.lines.push(line);
                    }
                }
            },
        }
    }
    blocks.extend(current);
    Scan { blocks, outside }
}

/// `line`, cut to 80 characters for an error message.
fn cut(line: &str) -> String {
    match line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}

fn is_key(k: &str) -> bool {
    !k.is_empty() && k.len() <= 32 && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn is_base64_text(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// Whether `line` can be the wrapped rest of the value of `key`: base64 and hex
/// values hold no `:` or spaces, so a line of their alphabet alone is one.
fn continues(key: &str, line: &str) -> bool {
    match key {
        "sig" | "sealed" => is_base64_text(line),
        "commit" | "salt" | "nonce" => line.bytes().all(|b| b.is_ascii_hexdigit()),
        _ => false,
    }
}

/// Lower-case or upper-case hex to bytes; `None` if not hex.
pub(crate) fn from_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect()
}

fn bad(field: &'static str, value: &str, expected: &'static str) -> EnvelopeError {
    EnvelopeError::BadValue { field, value: cut(value), expected }
}

fn move_text(value: &str) -> Result<String, EnvelopeError> {
    const EXPECTED: &str = "a move, like Nf3";
    if value.is_empty() || value.len() > MAX_MOVE_BYTES || value.chars().any(char::is_control) {
        return Err(bad("move", value, EXPECTED));
    }
    Ok(value.to_owned())
}

fn salt_bytes(value: &str) -> Result<Vec<u8>, EnvelopeError> {
    let salt = from_hex(value).ok_or(EnvelopeError::Hex("salt"))?;
    if salt.len() < MIN_SALT_BYTES {
        return Err(EnvelopeError::ShortSalt { got: salt.len() });
    }
    Ok(salt)
}

/// Reads the lines of one block (unquoted, trimmed) into an envelope.
fn from_lines(lines: &[&str]) -> Result<Envelope, EnvelopeError> {
    let mut fields: Vec<(&'static str, String)> = Vec::new();
    for &line in lines {
        if line.is_empty() {
            continue;
        }
        if let Some((k, v)) = line.split_once(':')
            && is_key(k.trim())
        {
            let key = k.trim().to_ascii_lowercase();
            let Some(&name) = FIELDS.iter().find(|f| **f == key) else {
                return Err(EnvelopeError::UnknownField(k.trim().to_owned()));
            };
            if fields.iter().any(|(n, _)| *n == name) {
                return Err(EnvelopeError::DuplicateField(name.to_owned()));
            }
            fields.push((name, v.trim().to_owned()));
        } else if let Some((name, value)) = fields.last_mut()
            && continues(name, line)
        {
            value.push_str(line);
        } else {
            return Err(EnvelopeError::BadLine(cut(line)));
        }
    }
    let take = |name: &str| fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str());

    let game = take("game").ok_or(EnvelopeError::MissingField("game"))?;
    let game = game
        .parse::<GameId>()
        .map_err(|_| bad("game", game, "a game id of six letters and digits, like 8KQ2ZJ"))?
        .as_str()
        .to_owned();
    let seat = take("seat").ok_or(EnvelopeError::MissingField("seat"))?;
    if seat.is_empty() || seat.len() > 32 || !seat.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(bad("seat", seat, "a seat name, like white"));
    }
    let seat = seat.to_ascii_lowercase();
    let turn = take("turn").ok_or(EnvelopeError::MissingField("turn"))?;
    let turn = match turn.parse::<u32>() {
        Ok(n) if turn.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => return Err(bad("turn", turn, "a turn number, like 12")),
    };

    let (mv, sealed, commit, salt) = (take("move"), take("sealed"), take("commit"), take("salt"));
    let (body, sealed_salt) = match (mv, sealed, commit, salt) {
        _ if take("action").is_some() => match (mv, sealed, commit, salt, take("action")) {
            (None, None, None, None, Some(a)) => {
                (Body::Action(a.parse().map_err(|_| bad("action", a, super::action::ACTION_VALUES))?), None)
            }
            _ => return Err(EnvelopeError::BadBody { found: "`action:` together with a move".to_owned() }),
        },
        (Some(m), None, None, None) => (Body::Move(move_text(m)?), None),
        (Some(m), None, None, Some(s)) => (Body::Reveal { text: move_text(m)?, salt: salt_bytes(s)? }, None),
        (None, Some(s), None, salt) => {
            let bytes = BASE64.decode(s).map_err(|_| EnvelopeError::Base64("sealed"))?;
            check_sealed_length(&bytes)?;
            (Body::Sealed(bytes), salt.map(salt_bytes).transpose()?)
        }
        (None, None, Some(c), None) => {
            let c = from_hex(c).and_then(|b| <[u8; 32]>::try_from(b).ok()).ok_or(EnvelopeError::Hex("commit"))?;
            (Body::Commit(c), None)
        }
        _ => {
            let present: Vec<String> = ["move", "sealed", "commit", "salt"]
                .iter()
                .filter(|k| take(k).is_some())
                .map(|k| format!("`{k}:`"))
                .collect();
            let found = match present.as_slice() {
                [] => "no `move:`, `sealed:`, `commit:` or `action:`".to_owned(),
                [one] => format!("{one} without a move"),
                [init @ .., last] => format!("{} and {last} together", init.join(", ")),
            };
            return Err(EnvelopeError::BadBody { found });
        }
    };

    let nonce = match take("nonce") {
        None => None,
        Some(n) => match from_hex(n) {
            Some(b) if (MIN_NONCE_BYTES..=MAX_NONCE_BYTES).contains(&b.len()) => Some(n.to_ascii_lowercase()),
            _ => return Err(bad("nonce", n, "random hex of 8 to 64 bytes (16 to 128 hex digits)")),
        },
    };
    let sig = match take("sig") {
        None => None,
        Some(s) => match BASE64.decode(s) {
            Ok(b) if b.len() == 64 => Some(b),
            _ => return Err(EnvelopeError::Base64("sig")),
        },
    };
    Ok(Envelope { game, seat, turn, body, salt: sealed_salt, nonce, sig, openpgp: None })
}

#[cfg(test)]
mod tests;
