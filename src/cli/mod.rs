//! The command line: `fairsteward <command>`.
//!
//! Errors are printed as one line, `fairsteward: <what was wrong>`, with exit
//! status 2 for bad input (clap uses 2 for usage errors as well).

pub(crate) mod rules;
pub(crate) mod serve;

use std::io::Write;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

/// Fairsteward referees correspondence board games: Fairschach (simultaneous
/// chess), chess and multi-player variants.
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
    /// The rules engine: legal moves, turn resolution, perft (JSON on stdout).
    Rules(Box<rules::RulesArgs>),
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
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// Parses the command line, runs the command and returns the exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(
            e.kind(),
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        ) =>
        {
            e.exit()
        }
        Err(e) => {
            // The contract is one line naming the problem; clap's usage block
            // is a `--help` away.
            let text = e.to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            eprintln!("fairsteward: {} (see --help)", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Rules(args) => rules::run(args),
        Command::Serve(args) => return report(serve::run(args)),
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
