//! `fairsteward ingest`: one mail on stdin, for an MTA pipe (`| fairsteward ingest`).
//!
//! Exit codes per sysexits: 0 once the mail is handled and stored (answered,
//! refused with an answer, or deliberately ignored), 75 (EX_TEMPFAIL) when the
//! store could not be reached so the MTA keeps the mail and retries, 65
//! (EX_DATAERR) for a message over the size limit, 78 (EX_CONFIG) for a bad
//! configuration.

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
        let steward = crate::server::open(&config, Arc::new(Notify::new()))?;
        let handled = handle(&steward, &raw, Utc::now()).await?;
        // Send what was queued now when mail goes to the spool; with SMTP the
        // daemon's drainer sends it.
        if config.smtp.is_none() {
            let sink = crate::mail::outbox::Sink::Spool(config.spool_dir.clone());
            let _ = crate::mail::outbox::drain_once(steward.store(), &sink, steward.keys_arc()).await;
        }
        anyhow::Ok(handled)
    });
    match result {
        Ok(h) => {
            println!("{h}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "fairsteward: the mail was not handled, try again later: {}",
                format!("{e:#}").replace('\n', " ")
            );
            ExitCode::from(75)
        }
    }
}
