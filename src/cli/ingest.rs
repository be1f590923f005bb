//! `fairsteward ingest`: one mail on stdin, for an MTA pipe (`| fairsteward ingest`).
//!
//! Exit codes per sysexits: 0 once the mail is handled and stored (answered,
//! refused with an answer, or deliberately ignored) or set aside, 75
//! (EX_TEMPFAIL) only when a retry may cure it — the store could not be opened,
//! reached or committed to — so the MTA keeps the mail and retries, 65
//! (EX_DATAERR) for a message over the size limit, 78 (EX_CONFIG) for a bad
//! configuration. A mail the steward fails on for another reason (a retry would
//! fail the same way) is set aside in `held-mail/` in the data directory, for
//! the operator, and the MTA is told it was delivered: no mail can make it retry
//! for days. A data directory that holds no store is refused with 75 too: the
//! pipe names the wrong directory, and the mail waits at the MTA until it is
//! mended.

use std::io::Read;
use std::process::ExitCode;
use std::sync::Arc;

use chrono::Utc;
use clap::Args;
use tokio::sync::Notify;

use super::serve::ConfigArgs;
use crate::mail::door::handle;

/// The largest mail taken (bigger ones are refused: EX_DATAERR); the same limit
/// for every door.
pub use crate::mail::MAX_MAIL_BYTES;

/// `fairsteward ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {
    #[command(flatten)]
    config: ConfigArgs,
}

/// Runs `ingest` and returns the sysexits status.
pub fn exit_status(args: &IngestArgs) -> ExitCode {
    super::init_logging_at("warn");
    let config = match args.config.load(None) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fairsteward: {}", format!("{e:#}").replace('\n', " "));
            return ExitCode::from(78);
        }
    };
    // A pipe pointed at the wrong directory would answer every reply "no such
    // game" from an empty store made for it: the MTA keeps the mail instead,
    // until the pipe names the steward's data directory (issue 36).
    if !super::serve::store_exists(&config) {
        let refusal = args.config.no_store(&config);
        eprintln!(
            "fairsteward: the mail was not handled, try again later: {}",
            format!("{refusal:#}").replace('\n', " ")
        );
        return ExitCode::from(75);
    }
    let mut raw = Vec::new();
    if let Err(e) = std::io::stdin().take(MAX_MAIL_BYTES as u64 + 1).read_to_end(&mut raw) {
        eprintln!("fairsteward: cannot read the mail on stdin: {e}");
        return ExitCode::from(75);
    }
    if raw.len() > MAX_MAIL_BYTES {
        eprintln!("fairsteward: the mail is larger than {} MiB; refused", MAX_MAIL_BYTES / 1024 / 1024);
        return ExitCode::from(65);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fairsteward: cannot start the async runtime: {e}");
            return ExitCode::from(75);
        }
    };
    let result = runtime.block_on(async {
        let steward = crate::server::open(&config, Arc::new(Notify::new())).map_err(|e| Failed::Retry(e.into()))?;
        let handled = match handle(&steward, &raw, Utc::now()).await {
            Ok(handled) => handled,
            Err(e) if e.is_transient() => return Err(Failed::Retry(e.into())),
            Err(e) => return Err(Failed::Hold(e.into())),
        };
        // Send what was queued now when mail goes to the spool; with SMTP the
        // daemon's drainer sends it.
        if config.smtp.is_none() {
            let sink = crate::mail::outbox::Sink::Spool(config.spool_dir.clone());
            let _ = crate::mail::outbox::drain_once(steward.store(), &sink, steward.keys_arc()).await;
        }
        Ok(handled)
    });
    let one_line = |e: &anyhow::Error| format!("{e:#}").replace('\n', " ");
    match result {
        Ok(h) => {
            println!("{h}");
            ExitCode::SUCCESS
        }
        Err(Failed::Retry(e)) => {
            eprintln!("fairsteward: the mail was not handled, try again later: {}", one_line(&e));
            ExitCode::from(75)
        }
        Err(Failed::Hold(e)) => match set_aside(&config.data_dir, &raw) {
            Ok(path) => {
                tracing::error!(held = %path.display(), error = %one_line(&e), "a mail the steward could not handle was set aside for the operator");
                eprintln!(
                    "fairsteward: the mail could not be handled ({}); it was set aside as {} for the operator (feed it again with `fairsteward ingest < FILE` once the cause is mended)",
                    one_line(&e),
                    path.display()
                );
                println!("held: {}", path.display());
                ExitCode::SUCCESS
            }
            Err(io) => {
                eprintln!(
                    "fairsteward: the mail was not handled ({}) and could not be set aside ({io}); try again later",
                    one_line(&e)
                );
                ExitCode::from(75)
            }
        },
    }
}

/// Why `ingest` did not handle a mail.
enum Failed {
    /// A retry may cure it (the store could not be opened or reached).
    Retry(anyhow::Error),
    /// A retry would fail the same way: the mail is set aside.
    Hold(anyhow::Error),
}

/// The directory in the data directory that mails `ingest` could not handle
/// are set aside in.
pub const HELD_MAIL_DIR: &str = "held-mail";

/// Writes `raw` (synced, owner-only) into [`HELD_MAIL_DIR`] under a name of
/// its time and content, and returns the path.
fn set_aside(data_dir: &std::path::Path, raw: &[u8]) -> std::io::Result<std::path::PathBuf> {
    let dir = data_dir.join(HELD_MAIL_DIR);
    std::fs::create_dir_all(&dir)?;
    let hash = crate::ids::hex(ring::digest::digest(&ring::digest::SHA256, raw).as_ref());
    let path = dir.join(format!("{}-{}.eml", Utc::now().format("%Y%m%dT%H%M%S"), &hash[..16]));
    crate::store::write_renamed(&path, raw)?;
    // The name is durable once the directory is synced: the MTA is told the
    // mail was delivered.
    std::fs::File::open(&dir)?.sync_all()?;
    Ok(path)
}
