//! Where mails go: the spool or an SMTP server, and the bytes handed to it.

use std::path::PathBuf;
use std::sync::Arc;

use crate::letters::compose::put_picture;
use crate::mail::smtp::{Failure, SmtpSink};
use crate::protocol::{StewardKeys, open_record};
use crate::store::{OUTBOX_LABEL, OutboxRow};

/// Where mails go.
#[derive(Clone, Debug)]
pub enum Sink {
    /// One `.eml` file per message in this directory.
    Spool(PathBuf),
    /// An SMTP server (`[mail.smtp]`).
    Smtp(SmtpSink),
}

impl Sink {
    /// Makes every mail delivered so far durable: an SMTP server's 250 already
    /// says so; the spool's renames need a sync of its directory, one for a
    /// whole page of mails rather than one each.
    pub(super) async fn settle(&self) -> Result<(), Failure> {
        match self {
            Sink::Spool(dir) => {
                let dir = dir.clone();
                tokio::task::spawn_blocking(move || crate::mail::spool::sync(&dir))
                    .await
                    .unwrap_or_else(|e| Err(std::io::Error::other(e)))
                    .map_err(|e| Failure::Server(format!("cannot sync the spool: {e}")))
            }
            Sink::Smtp(_) => Ok(()),
        }
    }

    /// Where mails go, for log lines.
    pub fn describe(&self) -> String {
        match self {
            Sink::Spool(dir) => format!("the spool {}", dir.display()),
            Sink::Smtp(s) => format!("SMTP {}", s.server()),
        }
    }

    /// Hands one mail over (and logs it): the row's message, opened with
    /// `keys` if it was sealed, with its stored picture `png` put in, signed,
    /// and encrypted to the armoured OpenPGP key `encrypt_to` when its
    /// recipient chose that — made ready (and written, to the spool) on a
    /// background thread. `Ok` once the sink has it; for good once
    /// [`Sink::settle`] has returned `Ok` after it.
    pub(super) async fn deliver(
        &self,
        row: &OutboxRow,
        keys: &Arc<StewardKeys>,
        png: Option<Arc<[u8]>>,
        encrypt_to: Option<Arc<str>>,
    ) -> Result<(), Failure> {
        let (ready, keys) = (row.clone(), keys.clone());
        let message = move || message_of(&ready, &keys, png.as_deref(), encrypt_to.as_deref());
        match self {
            Sink::Spool(dir) => {
                let (dir, id) = (dir.clone(), row.message_id.clone());
                let spooled = |e: std::io::Error| Failure::Server(format!("cannot write to the spool: {e}"));
                let write = move || message().and_then(|m| crate::mail::spool::write(&dir, &id, &m).map_err(spooled));
                let path = crate::background::run(write).await.map_err(spooled)??;
                tracing::info!(message_id = %row.message_id, to = %row.recipient, path = %path.display(), "mail spooled");
            }
            Sink::Smtp(smtp) => {
                let message = crate::background::run(message)
                    .await
                    .map_err(|e| Failure::Server(format!("cannot make the mail ready: {e}")))??;
                smtp.send(&row.recipient, &message).await?;
                tracing::info!(message_id = %row.message_id, to = %row.recipient, server = %smtp.server(), "mail sent");
            }
        }
        Ok(())
    }
}

/// The bytes to hand over for `row`: its message, opened with `keys` if
/// sealed, with its board picture (`png`, the stored one) put in, signed, and
/// encrypted to `encrypt_to` (an armoured OpenPGP key) if given.
pub(super) fn message_of(
    row: &OutboxRow,
    keys: &StewardKeys,
    png: Option<&[u8]>,
    encrypt_to: Option<&str>,
) -> Result<Vec<u8>, Failure> {
    if row.letter.is_some() {
        return Err(Failure::Mail("the queued letter was not formatted".into()));
    }
    let message = if row.sealed {
        open_record(&row.message, keys, OUTBOX_LABEL).map_err(|e| {
            // Sealed to another key (the keys were replaced): it stays queued,
            // held back, for the operator to see in the log.
            tracing::error!(message_id = %row.message_id, error = %e, "a sealed mail cannot be opened with the steward's keys");
            Failure::Mail(format!("the sealed mail cannot be opened with the steward's keys: {e}"))
        })?
    } else {
        row.message.clone()
    };
    let message = match (&row.picture, png) {
        (Some(picture), Some(png)) => put_picture(&message, &picture.key, png).ok_or_else(|| {
            tracing::error!(message_id = %row.message_id, picture = %picture.key, "a queued mail lacks the placeholder of its picture");
            Failure::Mail(format!("the queued mail lacks the placeholder of its picture {}", picture.key))
        })?,
        _ => message,
    };
    // Every mail the steward sends is signed (PGP/MIME) and carries its key in
    // an Autocrypt header (issue 33): the last step, over the final bytes; for
    // a player who chose it, signed and then encrypted to their key.
    let Some(key) = keys.openpgp() else { return Ok(message) };
    if let Some(armored) = encrypt_to {
        match encrypted(&message, row, keys, key, armored) {
            Ok(m) => return Ok(m),
            // The key was replaced by one that cannot encrypt, or expired:
            // the mail goes signed only rather than not at all.
            Err(e) => tracing::warn!(message_id = %row.message_id, to = %row.recipient, error = %e,
                "cannot encrypt a mail to the player's OpenPGP key; it goes signed only"),
        }
    }
    Ok(crate::mail::pgp_mime::sign_mail(&message, key).unwrap_or(message))
}

/// `message` signed by `key` and encrypted to the player's key `armored` and
/// to `key` itself (as a client encrypts to itself: the steward's own copy,
/// the spool, stays readable to the operator). The random numbers are seeded
/// from a steward secret, the mail and the player's key, so a resend is the
/// same bytes.
fn encrypted(
    message: &[u8],
    row: &OutboxRow,
    keys: &StewardKeys,
    key: &crate::protocol::openpgp::steward_key::StewardPgpKey,
    armored: &str,
) -> Result<Vec<u8>, String> {
    let player = crate::protocol::openpgp::key::PlayerPgpKey::parse(armored).map_err(|e| e.to_string())?;
    let mut input = b"fairsteward: the random numbers of an encrypted mail\0".to_vec();
    input.extend_from_slice(ring::digest::digest(&ring::digest::SHA256, message).as_ref());
    input.extend_from_slice(row.message_id.as_bytes());
    input.push(0);
    input.extend_from_slice(player.fingerprint().as_bytes());
    let tag = keys.capability_tag(&input);
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&tag.as_ref()[..32]);
    crate::mail::pgp_mime::sign_and_encrypt_mail(message, key, player.key(), seed)
}
