//! The daemon: opens the store, starts the outbox drainer, serves HTTP until the
//! shutdown future completes, then drains what was queued.

use std::future::Future;
use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

use crate::config::Config;
use crate::mail::outbox::{self, Sink};
use crate::mail::smtp::SmtpSink;
use crate::protocol::StewardKeys;
use crate::steward::Steward;
use crate::store::Store;

/// Opens the store of `config` and builds the steward over it.
///
/// # Errors
/// The data directory or database cannot be created or opened.
pub fn open(config: &Config, outbox: Arc<Notify>) -> anyhow::Result<Steward> {
    protect_data_dir(config)?;
    let path = config.database();
    let store = Store::open(&path).with_context(|| format!("cannot open the database {}", path.display()))?;
    let keys = StewardKeys::load_or_create(&config.data_dir)
        .with_context(|| format!("cannot load or create the steward's keys in {}", config.data_dir.display()))?;
    tracing::info!(fingerprint = %keys.fingerprint(), "steward keys loaded");
    Ok(Steward::new(store, config.mail_from.clone(), config.public_url.clone(), outbox, Arc::new(keys))
        .with_clock(config.clock.clone(), config.schedule.clock.clone()))
}

/// Creates the data directory for the owner only (0700), and takes group and
/// other permissions off an older one, its files and its spool (issue 11 point
/// 3): files made later are 0600 by their makers (the store, the keys, the
/// spool) and by the process's umask (`cli::main`).
///
/// # Errors
/// The directory cannot be created or its mode set.
fn protect_data_dir(config: &Config) -> anyhow::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = &config.data_dir;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("cannot create the data directory {}", dir.display()))?;
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read the data directory {}", dir.display()))?;
    let files = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file());
    for path in [dir.clone(), config.spool_dir.clone()].into_iter().chain(files) {
        crate::store::make_private(&path)
            .with_context(|| format!("cannot make {} readable by its owner only", path.display()))?;
    }
    Ok(())
}

/// Where the outbox goes: the SMTP server of `[mail.smtp]`, or else the spool.
///
/// # Errors
/// The SMTP transport cannot be set up (say, an unreadable `ca_file`).
pub fn sink(config: &Config) -> anyhow::Result<Sink> {
    Ok(match &config.smtp {
        Some(smtp) => Sink::Smtp(SmtpSink::new(smtp, &config.mail_from)?),
        None => Sink::Spool(config.spool_dir.clone()),
    })
}

/// Serves the API on `listener` until `shutdown` completes.
///
/// # Errors
/// The store cannot be opened or the server fails.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let wake = Arc::new(Notify::new());
    let steward = open(&config, wake.clone())?;
    let sink = sink(&config)?;
    let (stop, stopped) = watch::channel(false);
    let mail = sink.describe();
    let drainer = tokio::spawn(outbox::run(steward.store().clone(), sink, steward.keys_arc(), wake, stopped));
    let maildir = config.maildir.clone().map(|m| {
        tracing::info!(maildir = %m.path.display(), "reading players' mails from the maildir");
        tokio::spawn(crate::mail::maildir::run(steward.clone(), m.path, m.poll, stop.subscribe()))
    });
    let imap = config.imap.clone().map(|i| {
        tracing::info!(imap = %i.describe(), "reading players' mails over IMAP");
        tokio::spawn(crate::mail::imap::run(steward.clone(), i, stop.subscribe()))
    });
    // Clocks: one sweep at once (deadlines may have passed while the daemon was
    // down), then on the schedule.
    if let Err(e) = steward.sweep(steward.now()).await {
        tracing::error!(error = %e, "the start-up sweep failed");
    }
    let sweeper = tokio::spawn(sweep_on_schedule(steward.clone(), config.schedule.sweep.clone(), stop.subscribe()));
    let addr = listener.local_addr()?;
    tracing::info!(
        listen = %addr,
        data_dir = %config.data_dir.display(),
        mail = %mail,
        "fairsteward listening on http://{addr}"
    );
    axum::serve(listener, crate::web::router(steward)).with_graceful_shutdown(shutdown).await?;
    tracing::info!("shutting down; draining the outbox");
    let _ = stop.send(true);
    if let Some(m) = maildir {
        let _ = m.await;
    }
    if let Some(i) = imap {
        let _ = i.await;
    }
    let _ = sweeper.await;
    let _ = drainer.await;
    Ok(())
}

/// Runs the deadline sweep at every time `schedule` names (read on the system
/// clock; the sweep itself takes the steward's time) until `shutdown` turns true.
async fn sweep_on_schedule(steward: Steward, schedule: cron::Schedule, mut shutdown: watch::Receiver<bool>) {
    loop {
        let Some(next) = schedule.upcoming(chrono::Utc).next() else {
            tracing::warn!("the sweep schedule names no future time; no more sweeps");
            return;
        };
        let wait = (next - chrono::Utc::now()).to_std().unwrap_or_default();
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            return;
        }
        if let Err(e) = steward.sweep(steward.now()).await {
            tracing::error!(error = %e, "the sweep failed; it runs again on schedule");
        }
    }
}

/// Completes on SIGINT or SIGTERM.
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
