//! The command line: `fairsteward <command>`.
//!
//! Errors are printed as one line, `fairsteward: <what was wrong>`, with exit
//! status 2 for bad input (clap uses 2 for usage errors as well).

pub(crate) mod admin;
pub(crate) mod check;
pub(crate) mod demo;
pub(crate) mod game;
pub(crate) mod generate;
pub(crate) mod ingest;
pub(crate) mod migrate;
pub(crate) mod player;
pub(crate) mod rules;
pub(crate) mod serve;
pub(crate) mod sweep;
pub(crate) mod verify;

use std::io::Write;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

/// Fairsteward referees correspondence board games, simultaneous and
/// turn-based, for two to four players, by mail and HTTP.
#[derive(Debug, Parser)]
#[command(name = "fairsteward", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the steward: the HTTP API on 127.0.0.1:8080, mail to the spool.
    Serve(serve::ServeArgs),
    /// Player tools: keygen, sign, seal, commit, reveal and submit move envelopes.
    Player(player::PlayerArgs),
    /// The rules engine: legal moves, turn resolution, perft (JSON on stdout).
    Rules(Box<rules::RulesArgs>),
    /// Check a game's transcript offline: chain, signatures, commitments, and
    /// every resolution replayed through the rules (exit 0 when all holds).
    Verify(verify::VerifyArgs),
    /// Handle one mail on stdin (for an MTA pipe); exit 75 asks the MTA to retry.
    Ingest(ingest::IngestArgs),
    /// Admin commands on the steward's store: create, show and list games (JSON on
    /// stdout; `list` prints a table).
    Game(game::GameArgs),
    /// Run one deadline sweep as of a time (timeouts, grace notices, reminders),
    /// then write the queued mails to the spool (JSON report on stdout).
    Sweep(sweep::SweepArgs),
    /// Print the operator token, which `POST /api/games` needs (made, mode 0600,
    /// if there is none yet; where there is no store, only with --create).
    OperatorToken(admin::OperatorTokenArgs),
    /// Check the configuration: say, one line each, what will not work and how
    /// to fix it (placeholders, SMTP, IMAP, the maildir, the data directory, the
    /// keys, the store, public_url); exit 1 when something would lose mail.
    Check(check::CheckArgs),
    /// Copy the SQLite store to an empty PostgreSQL database (--to URL), then
    /// check that every game reads the same and every transcript verifies
    /// (JSON report on stdout). Stop the steward first.
    Migrate(migrate::MigrateArgs),
    /// Copy the database to FILE with SQLite's online backup, while the steward
    /// serves (JSON on stdout).
    Backup(admin::BackupArgs),
    /// The steward's keys: `keys rotate` replaces them, recording the change in
    /// every open game's transcript and mailing the players (JSON on stdout).
    Keys(admin::KeysArgs),
    /// Watch the steward referee a short game of the headline variant, printing every board mail.
    ///
    /// A steward on a temporary directory and 127.0.0.1; the variant's tour,
    /// a scripted game told turn by turn, played through its real HTTP API.
    Demo(demo::DemoArgs),
    /// Write the man pages, or print a shell's completion script, made from
    /// this command line's own help.
    Generate(generate::GenerateArgs),
}

/// Prints a command's failure as one line and turns it into an exit status.
fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("fairsteward: {}", format!("{err:#}").replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

/// Sends the daemon's log lines to stderr (`RUST_LOG` overrides the level).
pub(crate) fn init_logging() {
    init_logging_at("info");
}

/// Sends log lines from `default` up to stderr (`RUST_LOG` overrides the level).
pub(crate) fn init_logging_at(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// Parses the command line, runs the command and returns the exit status.
pub fn main() -> ExitCode {
    // Every file and directory a command makes (database, -wal, -shm, keys,
    // spool, tokens) is its owner's only, whoever made it (issue 11 point 3).
    // SAFETY: umask(2) only sets the process's file mode mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
    // One TLS crypto provider (ring) for every rustls user (SMTP, IMAP); a second
    // install (from a test that runs main twice) is refused and harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            e.exit()
        }
        Err(e) => {
            // The contract is one line naming the problem; clap's usage block
            // is a `--help` away.
            let text = e.to_string();
            let mut lines = text.lines().filter(|l| !l.trim().is_empty());
            let mut first = lines.next().unwrap_or("invalid arguments").trim_start_matches("error: ").to_owned();
            // "…not provided:" is followed by the indented arguments it means.
            if first.ends_with(':') {
                let named: Vec<&str> = lines.take_while(|l| l.starts_with(' ')).map(str::trim).collect();
                first = format!("{first} {}", named.join(", "));
            }
            eprintln!("fairsteward: {} (see --help)", first.trim_end());
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Rules(args) => rules::run(args),
        // A failed sweep is the store's or the configuration's: exit status 1.
        Command::Sweep(args) => match sweep::run(args) {
            Ok(value) => Ok(value),
            Err(err) => return report(Err(err)),
        },
        Command::Serve(args) => return report(serve::run(args)),
        Command::Player(args) => return player::run(args),
        Command::Verify(args) => return verify::exit_status(args),
        Command::Ingest(args) => return ingest::exit_status(args),
        Command::Demo(args) => return report(demo::run(args)),
        Command::Generate(args) => return report(generate::run(args)),
        Command::OperatorToken(args) => return report(admin::operator_token(args)),
        Command::Check(args) => return check::exit_status(args),
        Command::Keys(args) => match admin::keys(args) {
            Ok(value) => Ok(value),
            Err(err) => return report(Err(err)),
        },
        Command::Migrate(args) => match migrate::run(args) {
            Ok(value) => Ok(value),
            Err(err) => return report(Err(err)),
        },
        Command::Backup(args) => match admin::backup(args) {
            Ok(value) => Ok(value),
            Err(err) => return report(Err(err)),
        },
        Command::Game(args) => match game::run(args) {
            // A table (`game list`) is printed as it is, not as JSON.
            Ok(serde_json::Value::String(text)) => {
                let _ = write!(std::io::stdout().lock(), "{text}");
                return ExitCode::SUCCESS;
            }
            Ok(value) => Ok(value),
            Err(game::Failure::Input(err)) => Err(err),
            Err(game::Failure::Internal(err)) => return report(Err(err)),
        },
    };
    match result {
        Ok(value) => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a message.
            let _ = writeln!(out, "{value}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("fairsteward: {}", format!("{err:#}").replace('\n', " "));
            ExitCode::from(2)
        }
    }
}
