//! `fairsteward sweep [--now T]`: one deadline sweep against the store, as of `T`
//! (RFC 3339) or now — timeouts, grace notices and reminders, as the daemon's
//! scheduled sweep does — then the queued mails are written to the spool. Prints
//! what it did as one JSON object. For tests and operators: no test sleeps to
//! wait for a deadline.

use std::sync::Arc;

use anyhow::Context;
use chrono::{DateTime, Utc};
use clap::Args;
use serde_json::Value;
use tokio::sync::Notify;

use super::serve::ConfigArgs;
use crate::mail::outbox::{Sink, drain_once};

/// `fairsteward sweep`.
#[derive(Debug, Args)]
#[command(
    after_help = "Prints {\"now\", \"games\", \"timeouts\": [...], \"grace\": [...], \"reminders\", \"digests\", \
                        \"errors\", \"mails_spooled\"}.\n\nExample:\n  fairsteward sweep --data-dir ./fairsteward-data --now 2026-03-04T10:00:01Z"
)]
pub struct SweepArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// The time to sweep as of (RFC 3339, e.g. 2026-03-04T10:00:01Z); default now.
    #[arg(long, value_name = "TIME", value_parser = super::game::parse_now)]
    now: Option<DateTime<Utc>>,
}

/// Runs one sweep and returns its report.
///
/// # Errors
/// The configuration or the store fails.
pub fn run(args: &SweepArgs) -> anyhow::Result<Value> {
    super::init_logging_at("warn");
    let mut config = args.config.load_existing()?;
    if let Some(t) = args.now {
        config.clock = crate::clock::Clock::manual(t);
    }
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let steward = crate::server::open(&config, Arc::new(Notify::new()))?;
        let report = steward.sweep(steward.now()).await.map_err(|e| anyhow::anyhow!("{e}"))?;
        let spooled = drain_once(steward.store(), &Sink::Spool(config.spool_dir.clone()), steward.keys_arc())
            .await
            .context("writing the queued mails to the spool")?;
        let mut value = serde_json::to_value(report).context("printing the report")?;
        value["mails_spooled"] = Value::from(spooled);
        Ok(value)
    })
}
