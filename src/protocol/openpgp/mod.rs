//! OpenPGP (issue 33), with rPGP (the `pgp` crate: pure Rust, MIT OR Apache-2.0).
//!
//! Pure code: no I/O and no clock — every time a signature or a key carries is
//! an argument. The key files and the mail's MIME live with their doors
//! ([`keys`](mod@super::keys) keeps the steward's key file, `mail` wraps and unwraps
//! PGP/MIME).
//!
//! * [`steward_key`]: the steward's own OpenPGP key (an Ed25519 primary that
//!   signs, a Cv25519 subkey that decrypts), its Autocrypt header and its
//!   detached signatures over board mails (RFC 3156).
//! * [`decrypt`]: opening a reply encrypted to the steward's key (the current
//!   one or one retired by `keys rotate`), bounded in size and nesting.

pub mod decrypt;
pub mod steward_key;
