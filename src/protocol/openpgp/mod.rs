//! OpenPGP (issue 33), with rPGP (the `pgp` crate: pure Rust, MIT OR Apache-2.0;
//! see docs/openpgp.md for why): players' keys and the moves they sign from the
//! mail clients they already have, and the steward's own key, which signs its
//! mails and opens the replies encrypted to it.
//!
//! Pure code: no I/O and no clock read here — every time a signature or a key
//! carries, and the time a key's expiry is judged at, is an argument. The key
//! files and the mail's MIME live with their doors ([`keys`](mod@super::keys)
//! keeps the steward's key file, `mail` wraps and unwraps PGP/MIME).
//!
//! | module | what |
//! |---|---|
//! | [`key`] | a player's public key: read, bounded, secret keys refused, fingerprint |
//! | [`signed`] | a signature over bytes checked against a player's key: bad, another key, expired, revoked |
//! | [`mime`] | the signed entity of a raw message (the exact bytes of the first part, or a cleartext block) |
//! | [`proof`] | what a signed move keeps: the signed bytes and the signature, as transcript text, and the envelope read from them |
//! | [`steward_key`] | the steward's key (an Ed25519 primary that signs, a Cv25519 subkey that decrypts), its Autocrypt header and its detached signatures over its mails (RFC 3156) |
//! | [`encrypt`] | encrypting the steward's mails to a player's key (its encryption subkey, not revoked or expired) and its own |
//! | [`decrypt`] | opening a reply encrypted to the steward's key (the current one or one retired by `keys rotate`), bounded in size and nesting |

pub mod decrypt;
pub mod encrypt;
pub mod key;
pub mod mime;
pub mod proof;
pub mod signed;
pub mod steward_key;
