//! OpenPGP (issue 33): players' keys, and moves signed from the mail clients
//! players already have — PGP/MIME (RFC 3156 `multipart/signed`) and inline
//! cleartext signatures. Pure code: no I/O, and no clock read here (the time a
//! key's expiry is judged at is an argument). The crate is rPGP (`pgp`, MIT OR
//! Apache-2.0, pure Rust); see docs/openpgp.md for why.
//!
//! | module | what |
//! |---|---|
//! | [`key`] | a player's public key: read, bounded, secret keys refused, fingerprint |
//! | [`signed`] | a signature over bytes checked against a player's key: bad, another key, expired, revoked |
//! | [`mime`] | the signed entity of a raw message (the exact bytes of the first part, or a cleartext block) |
//! | [`proof`] | what a signed move keeps: the signed bytes and the signature, as transcript text, and the envelope read from them |

pub mod key;
pub mod mime;
pub mod proof;
pub mod signed;
