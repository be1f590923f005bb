//! The operator's commands on a data directory: `operator-token` (print the
//! token that creates games over HTTP), `backup` (a consistent copy of the
//! database while the steward serves) and `keys rotate`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::serve::ConfigArgs;

/// `fairsteward operator-token`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  curl -H \"Authorization: Bearer $(fairsteward operator-token)\" \
                        -d @game.json http://127.0.0.1:8080/api/games")]
pub struct OperatorTokenArgs {
    #[command(flatten)]
    config: ConfigArgs,
}

/// Prints the operator token, making it (mode 0600) if there is none yet.
///
/// # Errors
/// The configuration is bad, or the token file cannot be read or written.
pub fn operator_token(args: &OperatorTokenArgs) -> anyhow::Result<()> {
    let config = args.config.load(None)?;
    let token = crate::server::operator_token(&config)?;
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a message.
    let _ = writeln!(out, "{}", token.reveal());
    Ok(())
}

/// `fairsteward backup FILE`.
#[derive(Debug, Args)]
#[command(after_help = "Prints {\"backup\", \"pages\", \"bytes\"}. The keys (steward-*.pem) and the operator token \
                        are not in the database: keep a copy of them too (README, \"Backup and restore\").\n\n\
                        Example:\n  fairsteward backup /srv/backups/steward-$(date +%F).db --data-dir /var/lib/fairsteward")]
pub struct BackupArgs {
    /// The new file to write the copy of the database to (it must not exist).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    config: ConfigArgs,
}

/// Copies the database into `FILE` with SQLite's online backup, while the
/// steward may be serving.
///
/// # Errors
/// The configuration is bad, there is no database, `FILE` exists, or SQLite fails.
pub fn backup(args: &BackupArgs) -> anyhow::Result<Value> {
    let config = args.config.load(None)?;
    let report = crate::store::backup(&config.database(), &args.file).map_err(|e| anyhow!("backup failed: {e}"))?;
    Ok(json!({"backup": args.file.display().to_string(), "pages": report.pages, "bytes": report.bytes}))
}
