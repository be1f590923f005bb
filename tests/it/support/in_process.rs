//! A steward opened in this process without HTTP (`fairsteward::server::open`),
//! for tests that call it directly: its configuration on a data directory, the
//! players' seats, and its transcripts as `GET /api/games/{id}/transcript`
//! writes them (JSON lines), for `protocol::verify`.

use std::path::Path;

use fairsteward::config::{Config, Overrides, RawConfig};
use fairsteward::steward::NewSeat;
use fairsteward::store::EventRow;
use serde_json::json;

/// The embedded defaults on `dir`.
pub fn config(dir: &Path) -> Config {
    Config::from_raw(
        RawConfig::default(),
        &Overrides {
            data_dir: Some(dir.to_owned()),
            listen: None,
            database: crate::support::backend::database_for(dir),
        },
    )
    .unwrap()
}

/// The embedded defaults on `dir`, on a manual clock set to `now`.
pub fn config_at(dir: &Path, now: chrono::DateTime<chrono::Utc>) -> Config {
    let mut config = config(dir);
    config.clock = fairsteward::clock::Clock::manual(now);
    config
}

/// The steward on `config`, opened in this process (no HTTP, no doors).
pub fn open(config: &Config) -> fairsteward::steward::Steward {
    fairsteward::server::open(config, std::sync::Arc::new(tokio::sync::Notify::new())).unwrap()
}

/// A seat for the player `name`, at `<name>@example.org`.
pub fn seat(name: &str) -> NewSeat {
    NewSeat {
        openpgp_key: None,
        name: name.into(),
        email: format!("{}@example.org", name.to_lowercase()),
        public_key: None,
        time_zone: None,
    }
}

/// The events of game `id` as transcript lines.
pub fn transcript(id: &str, events: &[EventRow]) -> String {
    events
        .iter()
        .map(|e| {
            let mut line = json!({
                "game": id, "seq": e.seq, "at": fairsteward::store::time_text(e.at), "kind": e.kind,
                "prev": e.prev, "hash": e.hash, "body": e.body,
            });
            if let Some(s) = &e.signature {
                line["signature"] = json!(s);
            }
            format!("{line}\n")
        })
        .collect()
}
