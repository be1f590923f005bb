//! `fairsteward serve`: the daemon.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::config::{Config, Overrides};

/// Where the configuration comes from; the flags beat the file.
#[derive(Debug, Args, Clone, Default)]
pub struct ConfigArgs {
    /// The configuration file (fairsteward.toml); every key has a default.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The data directory (database and spool); default ./fairsteward-data.
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Run the store on PostgreSQL (postgres://user:password@host:port/dbname)
    /// instead of SQLite's file in the data directory; as `database` in the
    /// file. The environment keeps a password out of the process list.
    #[arg(long, value_name = "URL", env = "FAIRSTEWARD_DATABASE", hide_env_values = true)]
    pub database: Option<String>,
}

impl ConfigArgs {
    /// The configuration in force, with `listen` from the command line if given.
    pub fn load(&self, listen: Option<String>) -> anyhow::Result<Config> {
        Ok(Config::load(
            self.config.as_deref(),
            &Overrides { data_dir: self.data_dir.clone(), listen, database: self.database.clone() },
        )?)
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
