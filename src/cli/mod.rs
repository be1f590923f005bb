//! The command line: `fairsteward <command>`.
//!
//! Errors are printed as one line, `fairsteward: <what was wrong>`, with exit
//! status 2 for bad input (clap uses 2 for usage errors as well).

pub mod rules;

use std::io::Write;
use std::process::ExitCode;

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
    /// The rules engine: legal moves, turn resolution, perft (JSON on stdout).
    Rules(rules::RulesArgs),
}

/// Parses the command line, runs the command and returns the exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Rules(args) => rules::run(args),
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
