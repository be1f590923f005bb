//! The mail door and mail out: reading real mails, the MTA pipe and maildir, board mails, SMTP and IMAP against real servers (`scripts/mailstack.sh`), a game end to end.

mod board_mails;
mod door;
pub(crate) mod e2e;
mod mta; // issue 36: the Postfix, Exim and OpenSMTPD recipes of deploy/mail/
mod read;
mod settings; // issue 32, slice M
mod smtp;
