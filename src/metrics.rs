//! The operator's metrics (issue 36): counters and histograms the steward, the
//! doors, the outbox drainer and the deadline sweep feed as they work, and
//! gauges read from the store when `GET /metrics` is asked, served in
//! Prometheus's text exposition format (docs/operator.md, "Metrics and
//! health", lists each one).
//!
//! One [`Metrics`] per daemon, made by the server and handed to whoever counts
//! (cheap to clone: every clone counts into the same registry). The registry
//! is the Prometheus project's own Rust client (`prometheus-client`), which
//! writes OpenMetrics text; [`Metrics::encode`] serves that as is to a scraper
//! that asks for OpenMetrics, and as the classic text format (version 0.0.4)
//! to any other.
//!
//! Label values come from fixed sets only (a door's name, a refusal's code, a
//! mail's outcome): never a game id, an address or free text, so the number
//! of series stays bounded. Counters count what this process did since it
//! started; what another process did on the same store (`fairsteward
//! ingest`, another steward on PostgreSQL) shows only in the gauges read from
//! the store.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use chrono::{DateTime, Utc};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use crate::store::Readings;

/// The content type of the classic text format.
pub const TEXT_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
/// The content type of OpenMetrics' text format.
pub const OPENMETRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The doors a move comes through, counted from zero from the start.
const DOORS: [&str; 3] = ["http", "web", "mail"];
/// What becomes of a mail a mail door reads.
const INBOUND_OUTCOMES: [&str; 4] = ["accepted", "refused", "ignored", "failed"];
/// Why the outbox could not hand a mail over.
const FAILURES: [&str; 2] = ["refused", "unavailable"];
/// The states the games gauge counts by.
const GAME_STATES: [&str; 2] = ["running", "finished"];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DoorLabel {
    door: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusalLabels {
    door: &'static str,
    code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabel {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabel {
    state: &'static str,
}

/// The daemon's metrics; cheap to clone.
#[derive(Clone, Debug)]
pub struct Metrics {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    registry: Registry,
    moves_accepted: Family<DoorLabel, Counter>,
    moves_refused: Family<RefusalLabels, Counter>,
    turns_resolved: Counter,
    mails_sent: Counter,
    mails_failed: Family<ReasonLabel, Counter>,
    inbound_mails: Family<OutcomeLabel, Counter>,
    sweeps_failed: Counter,
    sweep_duration: Histogram,
    sweep_lateness: Histogram,
    store_transaction: Histogram,
    outbox_unsent: Gauge,
    outbox_oldest_age: Gauge<f64, AtomicU64>,
    games: Family<StateLabel, Gauge>,
    store_up: Gauge,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    /// A registry with every metric at zero.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("fairsteward");
        let moves_accepted = Family::<DoorLabel, Counter>::default();
        registry.register(
            "moves_accepted",
            "Moves, commitments and reveals accepted, by the door they came through",
            moves_accepted.clone(),
        );
        let moves_refused = Family::<RefusalLabels, Counter>::default();
        registry.register(
            "moves_refused",
            "Moves, commitments and reveals refused, by door and by the refusal's code",
            moves_refused.clone(),
        );
        let turns_resolved = Counter::default();
        registry.register(
            "turns_resolved",
            "Turns resolved: the turn's last move came in (through a door or from a conditional line) and the rules played the turn",
            turns_resolved.clone(),
        );
        let mails_sent = Counter::default();
        registry.register("mails_sent", "Mails handed to the SMTP server or written to the spool", mails_sent.clone());
        let mails_failed = Family::<ReasonLabel, Counter>::default();
        registry.register(
            "mails_failed",
            "Mail handovers that failed: refused (the server refused that mail) or unavailable (the server or spool could not be reached); the mail stays queued",
            mails_failed.clone(),
        );
        let inbound_mails = Family::<OutcomeLabel, Counter>::default();
        registry.register(
            "inbound_mails",
            "Mails read by the IMAP and maildir doors, by outcome (failed: a store failure, offered again)",
            inbound_mails.clone(),
        );
        let sweeps_failed = Counter::default();
        registry.register(
            "sweeps_failed",
            "Deadline sweeps that failed (they run again on schedule)",
            sweeps_failed.clone(),
        );
        // From a millisecond to about a minute.
        let sweep_duration = Histogram::new(exponential_buckets(0.001, 2.0, 17));
        registry.register_with_unit(
            "sweep_duration",
            "How long each deadline sweep took",
            Unit::Seconds,
            sweep_duration.clone(),
        );
        // From a tenth of a second to about an hour and a half.
        let sweep_lateness = Histogram::new(exponential_buckets(0.1, 2.0, 16));
        registry.register_with_unit(
            "sweep_lateness",
            "How long after its scheduled time each scheduled deadline sweep started",
            Unit::Seconds,
            sweep_lateness.clone(),
        );
        // From a tenth of a millisecond to about six seconds.
        let store_transaction = Histogram::new(exponential_buckets(0.0001, 2.0, 17));
        registry.register_with_unit(
            "store_commit",
            "How long each store transaction took from its submission to its answer: the wait for the store, the work and the commit synced to disk",
            Unit::Seconds,
            store_transaction.clone(),
        );
        let outbox_unsent = Gauge::default();
        registry.register(
            "outbox_unsent",
            "Mails queued and not yet handed over, read from the store",
            outbox_unsent.clone(),
        );
        let outbox_oldest_age = Gauge::<f64, AtomicU64>::default();
        registry.register_with_unit(
            "outbox_oldest_unsent_age",
            "How long the oldest unsent mail has waited (0 when none waits), read from the store",
            Unit::Seconds,
            outbox_oldest_age.clone(),
        );
        let games = Family::<StateLabel, Gauge>::default();
        registry.register("games", "Games by state (running, finished), read from the store", games.clone());
        let store_up = Gauge::default();
        registry.register(
            "store_up",
            "1 when the store answered this scrape's reads, 0 when not (the store's gauges then keep their last values)",
            store_up.clone(),
        );
        for door in DOORS {
            let _ = moves_accepted.get_or_create(&DoorLabel { door });
        }
        for outcome in INBOUND_OUTCOMES {
            let _ = inbound_mails.get_or_create(&OutcomeLabel { outcome });
        }
        for reason in FAILURES {
            let _ = mails_failed.get_or_create(&ReasonLabel { reason });
        }
        for state in GAME_STATES {
            let _ = games.get_or_create(&StateLabel { state });
        }
        Metrics {
            inner: Arc::new(Inner {
                registry,
                moves_accepted,
                moves_refused,
                turns_resolved,
                mails_sent,
                mails_failed,
                inbound_mails,
                sweeps_failed,
                sweep_duration,
                sweep_lateness,
                store_transaction,
                outbox_unsent,
                outbox_oldest_age,
                games,
                store_up,
            }),
        }
    }

    /// A move, commitment or reveal accepted through `door` (a door's name).
    pub fn move_accepted(&self, door: &'static str) {
        self.inner.moves_accepted.get_or_create(&DoorLabel { door }).inc();
    }

    /// One refused through `door`, with the refusal's `code`.
    pub fn move_refused(&self, door: &'static str, code: &'static str) {
        self.inner.moves_refused.get_or_create(&RefusalLabels { door, code }).inc();
    }

    /// A turn resolved.
    pub fn turn_resolved(&self) {
        self.inner.turns_resolved.inc();
    }

    /// `n` mails handed over.
    pub fn mails_sent(&self, n: usize) {
        self.inner.mails_sent.inc_by(n as u64);
    }

    /// A handover that failed: `refused` or `unavailable`.
    pub fn mail_failed(&self, reason: &'static str) {
        self.inner.mails_failed.get_or_create(&ReasonLabel { reason }).inc();
    }

    /// A mail a mail door read: `accepted`, `refused`, `ignored` or `failed`.
    pub fn inbound_mail(&self, outcome: &'static str) {
        self.inner.inbound_mails.get_or_create(&OutcomeLabel { outcome }).inc();
    }

    /// A deadline sweep that took `duration`, started `lateness` after its
    /// scheduled time (`None`: the sweep at start, which has no schedule).
    pub fn sweep_ran(&self, duration: Duration, lateness: Option<Duration>, ok: bool) {
        self.inner.sweep_duration.observe(duration.as_secs_f64());
        if let Some(late) = lateness {
            self.inner.sweep_lateness.observe(late.as_secs_f64());
        }
        if !ok {
            self.inner.sweeps_failed.inc();
        }
    }

    /// A store transaction that took `took` (see
    /// [`crate::store::Store::observe_transactions`]).
    pub fn store_transaction(&self, took: Duration) {
        self.inner.store_transaction.observe(took.as_secs_f64());
    }

    /// Sets the gauges read from the store: `readings` as read `now`, or
    /// `None` when the store did not answer.
    pub fn set_readings(&self, readings: Option<&Readings>, now: DateTime<Utc>) {
        let Some(r) = readings else {
            self.inner.store_up.set(0);
            return;
        };
        self.inner.store_up.set(1);
        self.inner.outbox_unsent.set(i64::try_from(r.unsent_mails).unwrap_or(i64::MAX));
        let age = r.oldest_unsent.map_or(0.0, |t| (now - t).num_milliseconds().max(0) as f64 / 1000.0);
        self.inner.outbox_oldest_age.set(age);
        for (state, n) in GAME_STATES.into_iter().zip([r.running_games, r.finished_games]) {
            self.inner.games.get_or_create(&StateLabel { state }).set(i64::try_from(n).unwrap_or(i64::MAX));
        }
    }

    /// The metrics as text: OpenMetrics when `openmetrics`, else the classic
    /// text format (version 0.0.4); with the content type to serve it with.
    pub fn encode(&self, openmetrics: bool) -> (&'static str, String) {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.inner.registry);
        if openmetrics { (OPENMETRICS_CONTENT_TYPE, text) } else { (TEXT_CONTENT_TYPE, classic_text(&text)) }
    }
}

/// OpenMetrics text as the classic text format (version 0.0.4) writes it: a
/// counter's family is named by its samples (`x_total`, not `x`), and the
/// `# UNIT` and `# EOF` lines, which that format does not have, are left out.
fn classic_text(openmetrics: &str) -> String {
    let counters: std::collections::BTreeSet<&str> = openmetrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|tag| {
            let rest = line.strip_prefix(tag)?;
            let (name, tail) = rest.split_once(' ')?;
            counters.contains(name).then(|| format!("{tag}{name}_total {tail}"))
        });
        match renamed {
            Some(l) => out.push_str(&l),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_named_by_their_samples_in_the_classic_format() {
        let m = Metrics::new();
        m.move_accepted("mail");
        m.move_refused("http", "illegal_move");
        m.sweep_ran(Duration::from_millis(5), Some(Duration::from_secs(1)), true);
        let (kind, text) = m.encode(false);
        assert_eq!(kind, TEXT_CONTENT_TYPE);
        assert!(text.contains("# TYPE fairsteward_moves_accepted_total counter\n"), "{text}");
        assert!(text.contains("fairsteward_moves_accepted_total{door=\"mail\"} 1\n"), "{text}");
        assert!(text.contains("fairsteward_moves_accepted_total{door=\"http\"} 0\n"), "{text}");
        assert!(text.contains("fairsteward_moves_refused_total{door=\"http\",code=\"illegal_move\"} 1\n"), "{text}");
        assert!(text.contains("# TYPE fairsteward_sweep_duration_seconds histogram\n"), "{text}");
        assert!(text.contains("fairsteward_sweep_duration_seconds_count 1\n"), "{text}");
        assert!(!text.contains("# EOF") && !text.contains("# UNIT"), "{text}");
        let (kind, open) = m.encode(true);
        assert_eq!(kind, OPENMETRICS_CONTENT_TYPE);
        assert!(open.ends_with("# EOF\n") && open.contains("# TYPE fairsteward_moves_accepted counter\n"), "{open}");
    }

    #[test]
    fn the_store_gauges_follow_the_readings() {
        let m = Metrics::new();
        let now = Utc::now();
        let r = Readings {
            unsent_mails: 3,
            oldest_unsent: Some(now - chrono::TimeDelta::seconds(90)),
            running_games: 2,
            finished_games: 1,
        };
        m.set_readings(Some(&r), now);
        let (_, text) = m.encode(false);
        assert!(text.contains("fairsteward_outbox_unsent 3\n"), "{text}");
        assert!(text.contains("fairsteward_outbox_oldest_unsent_age_seconds 90.0\n"), "{text}");
        assert!(text.contains("fairsteward_games{state=\"running\"} 2\n"), "{text}");
        assert!(text.contains("fairsteward_store_up 1\n"), "{text}");
        m.set_readings(None, now);
        assert!(m.encode(false).1.contains("fairsteward_store_up 0\n"));
    }
}
