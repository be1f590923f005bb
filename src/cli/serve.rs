//! `fairsteward serve`: the daemon.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use crate::config::{Config, Overrides};

/// The configuration file read when neither `--config` nor `FAIRSTEWARD_CONFIG`
/// names one, if it exists (the Debian package installs it; issue 36).
pub const SYSTEM_CONFIG: &str = "/etc/fairsteward/fairsteward.toml";

/// Where the configuration comes from; the flags beat the environment, which
/// beats the file (issue 36: every command finds the configured data directory).
#[derive(Debug, Args, Clone, Default)]
pub struct ConfigArgs {
    /// The configuration file (fairsteward.toml); default
    /// /etc/fairsteward/fairsteward.toml if it exists, else none (every key
    /// has a default).
    #[arg(long, value_name = "FILE", env = "FAIRSTEWARD_CONFIG")]
    pub config: Option<PathBuf>,
    /// The data directory (database, keys, operator token, spool); default the
    /// configuration file's data_dir, else ./fairsteward-data.
    #[arg(long, value_name = "DIR", env = "FAIRSTEWARD_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Run the store on PostgreSQL (postgres://user:password@host:port/dbname)
    /// instead of SQLite's file in the data directory; as `database` in the
    /// file. The environment keeps a password out of the process list.
    #[arg(long, value_name = "URL", env = "FAIRSTEWARD_DATABASE", hide_env_values = true)]
    pub database: Option<String>,
}

impl ConfigArgs {
    /// The configuration file read: `--config` (or `FAIRSTEWARD_CONFIG`), else
    /// [`SYSTEM_CONFIG`] if it exists, else none.
    pub fn file(&self) -> Option<PathBuf> {
        discover(self.config.as_deref(), Path::new(SYSTEM_CONFIG))
    }

    /// The configuration in force, with `listen` from the command line if given.
    pub fn load(&self, listen: Option<String>) -> anyhow::Result<Config> {
        Ok(Config::load(
            self.file().as_deref(),
            &Overrides { data_dir: self.data_dir.clone(), listen, database: self.database.clone() },
        )?)
    }

    /// [`ConfigArgs::load`] for a command that works on an existing store and
    /// must not make an empty one in the wrong directory.
    ///
    /// # Errors
    /// The configuration is bad, or its data directory holds no store
    /// ([`ConfigArgs::no_store`]).
    pub fn load_existing(&self) -> anyhow::Result<Config> {
        let config = self.load(None)?;
        if !store_exists(&config) {
            return Err(self.no_store(&config));
        }
        Ok(config)
    }

    /// The refusal of a command that found no store where it looked: the
    /// directory, the configuration file read (or none), and the ways out.
    pub fn no_store(&self, config: &Config) -> anyhow::Error {
        let file = match self.file() {
            Some(f) => f.display().to_string(),
            None => format!("none (no --config or FAIRSTEWARD_CONFIG, and no {SYSTEM_CONFIG})"),
        };
        let what = match &config.database_url {
            Some(_) => format!("no {} marker of a PostgreSQL store", crate::server::STORE_MARKER_FILE),
            None => "no steward.db".to_owned(),
        };
        let dir = &config.data_dir;
        // A relative directory is where the command ran: say where that is.
        let shown = match std::path::absolute(dir) {
            Ok(full) if dir.is_relative() => format!("{} (here: {})", dir.display(), full.display()),
            _ => dir.display().to_string(),
        };
        anyhow::anyhow!(
            "there is no steward store in {shown}: {what} there; configuration file read: {file}. Name the steward's data directory with --data-dir or FAIRSTEWARD_DATA_DIR, or its configuration with --config or FAIRSTEWARD_CONFIG, or start `fairsteward serve` once to create the store there"
        )
    }
}

/// The configuration file to read: `given`, else `system` if it exists, else none.
fn discover(given: Option<&Path>, system: &Path) -> Option<PathBuf> {
    match given {
        Some(path) => Some(path.to_owned()),
        None => system.is_file().then(|| system.to_owned()),
    }
}

/// Whether the store of `config` exists: SQLite's file, or for PostgreSQL the
/// data directory's mark that a steward opened its store there, or the keys of
/// a steward joining others on a shared database (docs/postgresql.md).
pub fn store_exists(config: &Config) -> bool {
    match config.database_url {
        Some(_) => [crate::server::STORE_MARKER_FILE, crate::protocol::SIGNING_KEY_FILE]
            .iter()
            .any(|f| config.data_dir.join(f).is_file()),
        None => config.database().is_file(),
    }
}

/// `fairsteward serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// The address to listen on; default 127.0.0.1:8080.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    super::init_logging();
    let config = args.config.load(args.listen.clone())?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("cannot listen on {}", config.listen))?;
        Ok(crate::server::serve(config, listener, crate::server::signal()).await?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        config: ConfigArgs,
    }

    #[test]
    fn the_system_file_is_read_only_when_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("fairsteward.toml");
        let given = dir.path().join("given.toml");
        assert_eq!(discover(None, &system), None, "no file: the embedded defaults");
        assert_eq!(discover(Some(&given), &system), Some(given.clone()), "a named file, even if missing");
        std::fs::write(&system, "").unwrap();
        assert_eq!(discover(None, &system), Some(system.clone()));
        assert_eq!(discover(Some(&given), &system), Some(given), "the flag beats the system file");
    }

    #[test]
    fn the_flags_beat_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("fairsteward.toml");
        std::fs::write(&file, "data_dir = \"/from/the/file\"\n").unwrap();
        let f = file.to_str().unwrap();
        let data =
            |args: &[&str]| Cli::parse_from([&["fairsteward"], args].concat()).config.load(None).unwrap().data_dir;
        assert_eq!(data(&["--config", f]), PathBuf::from("/from/the/file"));
        assert_eq!(data(&["--config", f, "--data-dir", "/flag"]), PathBuf::from("/flag"));
        // The environment (FAIRSTEWARD_CONFIG, FAIRSTEWARD_DATA_DIR) is read by
        // clap; tests/it/cli/check.rs sets it on the binary (no test here
        // changes this process's environment under the others).
    }

    #[test]
    fn no_store_names_the_directory_the_file_and_the_ways_out() {
        let dir = tempfile::tempdir().unwrap();
        let args = ConfigArgs { data_dir: Some(dir.path().join("d")), ..ConfigArgs::default() };
        let config = args.load(None).unwrap();
        assert!(!store_exists(&config));
        let text = format!("{:#}", args.no_store(&config));
        for needed in [
            &dir.path().join("d").display().to_string(),
            "configuration file read",
            "--data-dir",
            "FAIRSTEWARD_DATA_DIR",
            "fairsteward serve",
        ] {
            assert!(text.contains(needed), "{needed}: {text}");
        }
    }
}
