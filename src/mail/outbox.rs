//! The outbox drainer: sends what the steward queued, after its transaction
//! committed. A mail is marked sent only after it was delivered, so a crash in
//! between sends it again — with the same Message-ID, so the copy is recognisable.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio::sync::{Notify, watch};

use crate::store::{Store, StoreError};

/// Where mails go.
#[derive(Clone, Debug)]
pub enum Sink {
    /// One `.eml` file per message in this directory.
    Spool(PathBuf),
}

/// Delivers every unsent mail once; returns how many were delivered.
///
/// # Errors
/// Store failures. A failed delivery is recorded on its row and retried later.
pub async fn drain_once(store: &Store, sink: &Sink) -> Result<usize, StoreError> {
    let mut delivered = 0;
    loop {
        let batch = store.transaction(|tx| tx.unsent_mail(64)).await?;
        if batch.is_empty() {
            return Ok(delivered);
        }
        let mut progress = false;
        for row in batch {
            let result = match sink {
                Sink::Spool(dir) => {
                    let (dir, id, bytes) = (dir.clone(), row.message_id.clone(), row.message.clone());
                    tokio::task::spawn_blocking(move || super::spool::write(&dir, &id, &bytes))
                        .await
                        .unwrap_or_else(|e| Err(std::io::Error::other(e)))
                }
            };
            match result {
                Ok(path) => {
                    tracing::info!(message_id = %row.message_id, to = %row.recipient, path = %path.display(), "mail spooled");
                    store.transaction(move |tx| tx.mark_sent(row.id, Utc::now())).await?;
                    delivered += 1;
                    progress = true;
                }
                Err(e) => {
                    tracing::warn!(message_id = %row.message_id, error = %e, "mail delivery failed; will retry");
                    let error = e.to_string();
                    store.transaction(move |tx| tx.mark_failed(row.id, &error)).await?;
                }
            }
        }
        if !progress {
            return Ok(delivered);
        }
    }
}

/// Drains the outbox whenever `wake` is notified, and every few seconds besides
/// (failed deliveries are retried then), until `shutdown` turns true.
pub async fn run(store: Store, sink: Sink, wake: Arc<Notify>, mut shutdown: watch::Receiver<bool>) {
    let mut backoff = Duration::from_secs(1);
    loop {
        match drain_once(&store, &sink).await {
            Ok(_) => backoff = Duration::from_secs(1),
            Err(e) => {
                tracing::error!(error = %e, "outbox drain failed");
                backoff = (backoff * 2).min(Duration::from_secs(60));
            }
        }
        tokio::select! {
            () = wake.notified() => {}
            () = tokio::time::sleep(backoff.max(Duration::from_secs(5))) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            // One last drain so nothing committed waits for the next start.
            let _ = drain_once(&store, &sink).await;
            return;
        }
    }
}
