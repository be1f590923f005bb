//! `[backup]`: the backups the steward takes by itself (issue 36). On by
//! default, so that a club that never thought of backups has a week of them;
//! a PostgreSQL store is backed up with PostgreSQL's own tools instead.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ConfigError;

/// `[backup]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBackup {
    /// Whether the steward takes backups by itself (default true).
    pub enabled: Option<bool>,
    /// When: a cron expression, as `[schedule] sweep`.
    pub schedule: Option<String>,
    /// Where: a directory, under `data_dir` when relative.
    pub dir: Option<PathBuf>,
    /// How many backups are kept; older ones are removed.
    pub keep: Option<u32>,
}

/// `[backup]` in force.
#[derive(Debug, Clone)]
pub struct Backups {
    /// The schedule's cron expression as read.
    pub schedule_text: String,
    /// When a backup is taken.
    pub schedule: cron::Schedule,
    /// The directory the backups go into.
    pub dir: PathBuf,
    /// How many are kept, the newest.
    pub keep: u32,
}

impl Backups {
    /// Daily, at 03:30 (the machine's clock is read as UTC).
    pub const DEFAULT_SCHEDULE: &'static str = "0 30 3 * * *";
    /// A week of daily backups.
    pub const DEFAULT_KEEP: u32 = 7;
    /// Under the data directory unless told otherwise.
    pub const DEFAULT_DIR: &'static str = "backups";

    /// `[backup]` in force, or `None` when `enabled = false`.
    pub(super) fn from_raw(raw: RawBackup, data_dir: &Path) -> Result<Option<Backups>, ConfigError> {
        let given = raw.schedule.unwrap_or_else(|| Backups::DEFAULT_SCHEDULE.to_owned());
        let (schedule_text, schedule) = super::cron("backup.schedule", &given)?;
        let keep = raw.keep.unwrap_or(Backups::DEFAULT_KEEP);
        if keep == 0 {
            return Err(ConfigError::Invalid(
                "backup.keep = 0 would remove every backup just taken; give 1 or more, or enabled = false to take none"
                    .into(),
            ));
        }
        let dir = raw.dir.unwrap_or_else(|| PathBuf::from(Backups::DEFAULT_DIR));
        let dir = if dir.is_absolute() { dir } else { data_dir.join(dir) };
        let backups = Backups { schedule_text, schedule, dir, keep };
        Ok(raw.enabled.unwrap_or(true).then_some(backups))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(toml: &str) -> Result<Option<Backups>, ConfigError> {
        Backups::from_raw(toml::from_str(toml).unwrap(), Path::new("/data"))
    }

    #[test]
    fn on_by_default_daily_a_week_under_the_data_directory() {
        let b = read("").unwrap().unwrap();
        assert_eq!((b.schedule_text.as_str(), b.keep), (Backups::DEFAULT_SCHEDULE, 7));
        assert_eq!(b.dir, Path::new("/data/backups"));
    }

    #[test]
    fn the_example_configuration_reads_and_shows_the_defaults() {
        let raw: super::super::RawConfig =
            toml::from_str(include_str!("../../deploy/fairsteward.toml.example")).unwrap();
        let config = super::super::Config::from_raw(raw, &super::super::Overrides::default()).unwrap();
        let (shown, default) = (config.backups.unwrap(), read("").unwrap().unwrap());
        assert_eq!((shown.schedule_text, shown.keep), (default.schedule_text, default.keep));
        assert_eq!(shown.dir, config.data_dir.join(Backups::DEFAULT_DIR));
    }

    #[test]
    fn the_keys_are_read_and_checked() {
        let b = read("schedule = \"15 2 * * *\"\ndir = \"/srv/backups\"\nkeep = 30").unwrap().unwrap();
        assert_eq!(
            (b.schedule_text.as_str(), b.dir.as_path(), b.keep),
            ("0 15 2 * * *", Path::new("/srv/backups"), 30)
        );
        assert!(read("enabled = false").unwrap().is_none());
        let zero = read("keep = 0").unwrap_err().to_string();
        assert!(zero.contains("backup.keep"), "{zero}");
        let cron = read("schedule = \"daily\"").unwrap_err().to_string();
        assert!(cron.contains("backup.schedule"), "{cron}");
        assert!(toml::from_str::<RawBackup>("every = 1").is_err(), "unknown keys are refused");
    }
}
