//! The mail doors. Inbound: reading players' mails and handing them to the
//! steward. Outbound: draining the outbox (mails the steward composed with
//! [`crate::letters`]) into an SMTP server or the spool.
//!
//! | door | direction | where |
//! |---|---|---|
//! | SMTP | out | `[mail.smtp]`: lettre over plain, STARTTLS or TLS ([`smtp`]) |
//! | spool | out | one `.eml` per message under `data_dir/spool`, when `[mail.smtp]` is absent |
//! | MTA pipe | in | `fairsteward ingest` reads one message on stdin ([`door`]) |
//! | IMAP | in | `[mail.imap]`: unmarked messages are handled, then flagged `\Seen $FairstewardDone` ([`imap`]) |
//! | maildir | in | `[mail.maildir]`: new messages are handled and moved to `cur/` ([`maildir`]) |

/// The largest mail any door takes (`ingest`, IMAP, maildir): bigger ones are
/// refused unread.
pub const MAX_MAIL_BYTES: usize = 10 * 1024 * 1024;

/// An error with its causes on one line, `outer: inner: innermost` (a cause
/// whose text the line holds already is left out), for log lines and the
/// command line.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

pub mod door;
pub mod imap;
pub mod inbound;
pub mod maildir;
pub mod outbox;
pub mod pgp_mime;
pub mod smtp;
pub mod spool;
