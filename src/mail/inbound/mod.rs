//! Understanding an incoming mail: from raw RFC 5322 bytes to what the player
//! meant. Pure code — no I/O, no clock, no store; the doors (IMAP, maildir, the
//! MTA pipe) hand bytes in, and the steward decides what to do with the reading.
//!
//! | step | where | what |
//! |---|---|---|
//! | parse | [`read`] | mail-parser: headers, MIME tree, transfer encodings, charsets |
//! | classify | [`read`] | [`AutoReason`]: mail that must never be answered |
//! | choose a body | [`read`] | text/plain first, else text from HTML; format=flowed unwrapped |
//! | strip | `fresh` (private) | quoted reply, attribution lines, forwarded and original-message blocks, signatures, inline PGP armor |
//! | intent | [`mod@intent`] | an envelope block, a command, a bare move, or what could not be read |
//!
//! Nothing here checks a move's legality or a capability's MAC: the reading only
//! says what the text *looks like*; `rules` and `protocol` judge it. The capability
//! lookup uses [`ReadMail::recipients`], every address the mail was sent or
//! delivered to (`To`, `Cc`, `Delivered-To`, `X-Original-To`, `Envelope-To`).

pub mod encrypted;
mod fresh;
mod html;
pub mod intent;
#[cfg(test)]
mod own_mails;
pub mod read;
pub mod signed_conditional; // issue 33

pub use intent::{ConditionalWords, Intent, InvitationIntent, intent, invitation_intent, subject_added};
pub use read::{AutoReason, ReadError, ReadMail, Sender, read_mail};
