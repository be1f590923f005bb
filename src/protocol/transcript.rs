//! The transcript's hash chain and the steward's signed heads.
//!
//! Every accepted event of a game is one entry. An entry's hash is the SHA-256 of
//! these bytes (UTF-8, each line ending in `\n`):
//!
//! ```text
//! fairsteward-transcript-v1
//! <game id>
//! <seq>
//! <at, RFC 3339 UTC as printed>
//! <kind>
//! <prev: the previous entry's hash in lower-case hex; 64 zeros for seq 1>
//! <body: the entry's JSON body, compact, keys in the order printed>
//! ```
//!
//! The body is hashed exactly as the transcript prints it: a verifier that reads a
//! line with an order-preserving JSON parser and prints the body back compactly
//! gets the same bytes. The steward signs a head (the newest entry) with its
//! Ed25519 key over [`head_message`]; each transcript line that carries a
//! `signature` is such a head.

use ring::digest;

use crate::ids::hex;

/// The `prev` of the first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One transcript entry, as hashed.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'a> {
    /// The game id (upper case).
    pub game: &'a str,
    /// Its place in the transcript, from 1.
    pub seq: u32,
    /// Server time, as printed in the transcript.
    pub at: &'a str,
    /// What happened (`created`, `moved`, `resolved`, …).
    pub kind: &'a str,
    /// The previous entry's hash ([`GENESIS`] for the first).
    pub prev: &'a str,
    /// The body, compact JSON.
    pub body: &'a str,
}

impl Entry<'_> {
    /// The entry's hash, lower-case hex.
    pub fn hash(&self) -> String {
        let text = format!(
            "fairsteward-transcript-v1\n{}\n{}\n{}\n{}\n{}\n{}\n",
            self.game, self.seq, self.at, self.kind, self.prev, self.body
        );
        hex(digest::digest(&digest::SHA256, text.as_bytes()).as_ref())
    }
}

/// What the steward signs to vouch for a transcript up to and including `seq`.
pub fn head_message(game: &str, seq: u32, hash: &str) -> Vec<u8> {
    format!("fairsteward-head-v1\n{game}\n{seq}\n{hash}\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_covers_every_field() {
        let e = Entry {
            game: "8KQ2ZJ",
            seq: 1,
            at: "2026-11-23T10:00:00.000Z",
            kind: "created",
            prev: GENESIS,
            body: "{}",
        };
        // printf 'fairsteward-transcript-v1\n8KQ2ZJ\n1\n2026-11-23T10:00:00.000Z\ncreated\n%064d\n{}\n' 0 | sha256sum
        assert_eq!(e.hash(), "52097d6268e3782c4a01aa56e1ddcfcd07c107fdac6481e2b5011a8b190e87eb");
        let base = e.hash();
        for changed in [
            Entry { game: "8KQ2ZK", ..e },
            Entry { seq: 2, ..e },
            Entry { at: "2026-11-23T10:00:00.001Z", ..e },
            Entry { kind: "moved", ..e },
            Entry { prev: "1", ..e },
            Entry { body: "{ }", ..e },
        ] {
            assert_ne!(changed.hash(), base);
        }
    }
}
