//! `fairsteward generate`: the man pages and the shell completions, made from
//! the same command-line definition as `--help` (issue 36: the Debian package
//! ships them; ripgrep's `--generate` is the model), so they cannot drift from
//! the commands they describe.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, CommandFactory, Subcommand};

/// `fairsteward generate`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  fairsteward generate man /usr/local/share/man/man1\n  \
                        fairsteward generate completion bash > /etc/bash_completion.d/fairsteward")]
pub struct GenerateArgs {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Write the man pages into DIR: fairsteward.1, and fairsteward-<command>.1
    /// for each command (and each command's commands).
    Man {
        /// The directory to write them into (made if missing).
        dir: PathBuf,
    },
    /// Print the completion script for SHELL on stdout.
    Completion {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// Runs `generate`.
///
/// # Errors
/// The directory cannot be made or a page written, or stdout is closed.
pub fn run(args: &GenerateArgs) -> anyhow::Result<()> {
    let command = super::Cli::command();
    match &args.what {
        What::Man { dir } => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
            clap_mangen::generate_to(command, dir)
                .with_context(|| format!("cannot write the man pages into {}", dir.display()))?;
        }
        What::Completion { shell } => {
            let mut command = command;
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut command, "fairsteward", &mut script);
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a message.
            let _ = std::io::Write::write_all(&mut out, &script);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_man_page_per_command_names_its_options() {
        let dir = tempfile::tempdir().unwrap();
        run(&GenerateArgs { what: What::Man { dir: dir.path().to_owned() } }).unwrap();
        let page = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
        let main = page("fairsteward.1");
        assert!(main.starts_with(".ie") || main.contains(".TH fairsteward 1"), "{main}");
        for command in super::super::Cli::command().get_subcommands() {
            let name = format!("fairsteward-{}.1", command.get_name());
            assert!(dir.path().join(&name).is_file(), "{name} missing");
        }
        let serve = page("fairsteward-serve.1");
        assert!(serve.contains("FAIRSTEWARD_DATA_DIR") && serve.contains("data\\-dir"), "{serve}");
    }
}
