//! `fairsteward migrate --to postgres://…` (issue 35): moves the SQLite store
//! of a data directory to PostgreSQL, then checks the copy: every game reads
//! the same through the steward before and after, and every transcript
//! verifies.

use std::sync::Arc;

use anyhow::{Context, anyhow, bail};
use clap::Args;
use serde_json::{Value, json};

use super::serve::ConfigArgs;
use crate::config::Config;
use crate::steward::Steward;

/// `fairsteward migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// The PostgreSQL store to copy into (postgres://user:password@host:port/dbname);
    /// it must hold no games. The environment keeps a password out of the process list.
    #[arg(long, value_name = "URL", env = "FAIRSTEWARD_MIGRATE_TO", hide_env_values = true)]
    to: String,
}

/// What each game reads as, by id: its status and its transcript.
type Readings = Vec<(String, Value, String)>;

async fn readings(steward: &Steward) -> anyhow::Result<Readings> {
    let mut out = Vec::new();
    for status in steward.list().await.context("listing the games")? {
        let id = status.id.clone();
        let events =
            steward.transcript(id.clone(), None).await.with_context(|| format!("reading {id}'s transcript"))?;
        out.push((id.clone(), serde_json::to_value(status)?, crate::steward::transcript_lines(&id, &events)));
    }
    Ok(out)
}

fn open(config: &Config) -> anyhow::Result<Steward> {
    crate::server::open(config, Arc::new(tokio::sync::Notify::new())).map_err(|e| anyhow!("{e}"))
}

/// Runs `migrate`; returns its report.
pub fn run(args: &MigrateArgs) -> anyhow::Result<Value> {
    let mut config = args.config.load(None)?;
    if config.database_url.is_some() {
        bail!(
            "migrate copies the SQLite store of the data directory to --to; leave database (and --database, FAIRSTEWARD_DATABASE) out"
        );
    }
    let to = args.to.clone();
    if !to.starts_with("postgres://") && !to.starts_with("postgresql://") {
        bail!(
            "--to {:?} is not a PostgreSQL URL; write postgres://user:password@host:port/dbname",
            crate::store::postgres::redacted(&to)
        );
    }
    if !config.database().is_file() {
        bail!("there is no store in {} to migrate", config.data_dir.display());
    }
    // One time for both readings: what depends on the clock reads the same.
    config.clock = crate::clock::Clock::manual(chrono::Utc::now());
    let runtime = tokio::runtime::Runtime::new().context("starting the runtime")?;
    let report = runtime.block_on(async move {
        let before = {
            let steward = open(&config)?;
            readings(&steward).await?
        };
        let from = config.database();
        let to_url = to.clone();
        let copied = tokio::task::spawn_blocking(move || crate::store::postgres::copy_sqlite(&from, &to_url))
            .await?
            .map_err(|e| anyhow!("copying to {}: {e}", crate::store::postgres::redacted(&to)))?;
        let mut after_config = config.clone();
        after_config.database_url = Some(to.clone());
        let steward = open(&after_config)?;
        let after = readings(&steward).await?;
        let key = steward.keys().signing_public();
        check(&before, &after, &key)?;
        Ok::<_, anyhow::Error>(json!({
            "to": crate::store::postgres::redacted(&to),
            "tables": copied.tables.iter().map(|(t, n)| json!({"table": t, "rows": n})).collect::<Vec<_>>(),
            "games": after.len(),
            "transcripts_verified": after.len(),
            "games_read_the_same": true,
        }))
    })?;
    Ok(report)
}

/// Every game reads the same before and after, and its transcript verifies.
fn check(before: &Readings, after: &Readings, key: &[u8; 32]) -> anyhow::Result<()> {
    if before.len() != after.len() {
        bail!("the copy holds {} games, the SQLite store {}", after.len(), before.len());
    }
    for ((id, status, lines), (id_after, status_after, lines_after)) in before.iter().zip(after) {
        if id != id_after || status != status_after {
            bail!("game {id} reads differently after the copy:\n before: {status}\n after:  {status_after}");
        }
        if lines != lines_after {
            bail!("game {id}'s transcript differs after the copy");
        }
        if !lines_after.is_empty() {
            crate::protocol::verify::verify(lines_after, key)
                .map_err(|e| anyhow!("game {id}'s transcript does not verify after the copy: {e}"))?;
        }
    }
    Ok(())
}
