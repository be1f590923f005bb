//! The operator's commands on a data directory: `operator-token` (print the
//! token that creates games over HTTP), `backup` (a consistent copy of the
//! database while the steward serves) and `keys rotate`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, anyhow};
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::serve::ConfigArgs;

/// `fairsteward operator-token`.
#[derive(Debug, Args)]
#[command(after_help = "Refuses (exit status 1) when there is no token yet and the data directory holds no \
                        steward store, naming the directory and the configuration file it read, unless --create \
                        is given: a token made in the wrong directory opens nothing.\n\n\
                        Example:\n  curl -H \"Authorization: Bearer $(fairsteward operator-token)\" \
                        -d @game.json http://127.0.0.1:8080/api/games")]
pub struct OperatorTokenArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Make the token (and the data directory) even where there is no store
    /// yet, for a steward that will start there.
    #[arg(long)]
    create: bool,
}

/// Prints the operator token; makes it (mode 0600) if there is none yet,
/// where the data directory holds a store, or anywhere with `--create`.
/// A token file already there is printed as it is.
///
/// # Errors
/// The configuration is bad, the data directory holds no store (without
/// `--create`), or the token file cannot be read or written.
pub fn operator_token(args: &OperatorTokenArgs) -> anyhow::Result<()> {
    let config = args.config.load(None)?;
    // A token already made is printed wherever it is; a new one only beside
    // a store, or when asked for (issue 36).
    if !args.create && !config.operator_token_file.exists() && !super::serve::store_exists(&config) {
        return Err(anyhow!("{:#}; or pass --create to make a token there anyway", args.config.no_store(&config)));
    }
    let token = crate::server::operator_token(&config)?;
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a message.
    let _ = writeln!(out, "{}", token.reveal());
    Ok(())
}

/// `fairsteward backup FILE` or `fairsteward backup --into DIR`.
#[derive(Debug, Args)]
#[command(after_help = "With FILE, copies the database there and prints {\"backup\", \"pages\", \"bytes\"}; the keys \
                        (steward-*.pem, steward-*.asc) and the operator token are not in the database: keep a copy of \
                        them too. With --into DIR, takes a whole backup set, the database and those files, into \
                        DIR/fairsteward-<time>/ and keeps the newest --keep sets there (what [backup] in the \
                        configuration does on its schedule); prints {\"backup\", \"pages\", \"bytes\", \"removed\"}. \
                        Restoring: docs/operator.md, \"Backup and restore\".\n\n\
                        Examples:\n  fairsteward backup --into /srv/backups/fairsteward --keep 30\n  \
                        fairsteward backup /srv/backups/steward-$(date +%F).db")]
#[command(group(clap::ArgGroup::new("target").required(true).args(["file", "into"])))]
pub struct BackupArgs {
    /// The new file to write the copy of the database to (it must not exist).
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// Take a backup set (the database, keys and operator token) into this
    /// directory instead.
    #[arg(long, value_name = "DIR")]
    into: Option<PathBuf>,
    /// With --into: how many sets to keep there, the newest; default
    /// [backup] keep of the configuration (7).
    #[arg(long, value_name = "N", requires = "into", value_parser = clap::value_parser!(u32).range(1..))]
    keep: Option<u32>,
    #[command(flatten)]
    config: ConfigArgs,
}

/// Copies the database into `FILE`, or takes a backup set into `--into`, with
/// SQLite's online backup, while the steward may be serving.
///
/// # Errors
/// The configuration is bad, there is no database, `FILE` exists, the
/// directory cannot be written, or SQLite fails.
pub fn backup(args: &BackupArgs) -> anyhow::Result<Value> {
    let config = args.config.load_existing()?;
    if config.database_url.is_some() {
        return Err(anyhow!(
            "the store is on PostgreSQL: back it up with PostgreSQL's tools (pg_dump, pg_basebackup; docs/postgresql.md), and keep a copy of the data directory's keys"
        ));
    }
    if let Some(into) = &args.into {
        let keep =
            args.keep.or(config.backups.as_ref().map(|b| b.keep)).unwrap_or(crate::config::Backups::DEFAULT_KEEP);
        let set = crate::store::take_backup_set(&config.data_dir, &config.database(), into, keep, chrono::Utc::now())
            .map_err(|e| anyhow!("backup failed: {e}"))?;
        let removed: Vec<String> = set.removed.iter().map(|p| p.display().to_string()).collect();
        return Ok(
            json!({"backup": set.path.display().to_string(), "pages": set.pages, "bytes": set.bytes, "removed": removed}),
        );
    }
    let file = args.file.as_ref().context("name a FILE or --into DIR")?;
    let report = crate::store::backup(&config.database(), file).map_err(|e| anyhow!("backup failed: {e}"))?;
    Ok(json!({"backup": file.display().to_string(), "pages": report.pages, "bytes": report.bytes}))
}

/// `fairsteward keys …`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    command: KeysCommand,
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Replace the steward's signing and sealing keys. Stop the steward first.
    ///
    /// Every open game's transcript gets a `key_rotated` entry naming the new
    /// public keys and fingerprint, signed with the old key (so `fairsteward
    /// verify` follows the change), and every player of an open game is mailed
    /// the new fingerprint (the mails go out when the steward runs next). The old
    /// keys stay in the data directory as steward-*.retired-<time>.pem: moves
    /// sealed to the old sealing key still open. Prints {"fingerprint",
    /// "previous_fingerprint", "games"}.
    Rotate(RotateArgs),
}

/// `fairsteward keys rotate`.
#[derive(Debug, Args)]
pub struct RotateArgs {
    #[command(flatten)]
    config: ConfigArgs,
}

/// Runs a `keys` command.
///
/// # Errors
/// The configuration, the store or the key files fail.
pub fn keys(args: &KeysArgs) -> anyhow::Result<Value> {
    super::init_logging_at("warn");
    let KeysCommand::Rotate(rotate) = &args.command;
    let config = rotate.config.load_existing()?;
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let steward = crate::server::open(&config, Arc::new(tokio::sync::Notify::new()))?;
        let previous = steward.keys().fingerprint();
        let now = steward.now();
        let staged = crate::protocol::StewardKeys::stage_rotation_at(&config.data_dir, now.timestamp())
            .map_err(|e| anyhow!("cannot write the new keys: {e}"))?;
        let new = staged.keys.clone();
        let stamp = now.format("%Y%m%dT%H%M%S%.3fZ").to_string();
        let staged = Arc::new(staged);
        let installer = staged.clone();
        let rotated =
            steward.rotate_keys(new.clone(), move || installer.install(&stamp).map_err(|e| e.to_string()), now).await;
        let games = match rotated {
            Ok(games) => games,
            Err(e) => {
                staged.discard();
                return Err(anyhow!("the keys were not rotated: {e}"));
            }
        };
        Ok(json!({
            "fingerprint": new.fingerprint(),
            "previous_fingerprint": previous,
            "games": games.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }))
    })
}
