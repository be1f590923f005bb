//! The mail doors. Outbound today: composing the steward's mails from
//! `templates/` and draining the outbox into the spool. Inbound (IMAP, maildir,
//! the MTA pipe) and SMTP delivery come with the mail issue.
//!
//! | door | direction | where |
//! |---|---|---|
//! | spool | out | one `.eml` per message under `data_dir/spool` |

pub mod compose;
pub mod inbound;
pub mod outbox;
pub mod spool;
