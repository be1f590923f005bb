//! The drainer against a spool and a stand-in server: order, backoff, holds, batches.

use chrono::Utc;

use super::drainer::Backoff;
use super::*;
use crate::mail::smtp::SmtpSink;
use crate::store::{OUTBOX_LABEL, OutboxRow};

fn row(n: usize) -> OutboxRow {
    OutboxRow::sample(n, None)
}

pub(super) fn keys(dir: &std::path::Path) -> Arc<StewardKeys> {
    Arc::new(StewardKeys::load_or_create(&dir.join("keys")).unwrap())
}

/// A store in `dir` with `total` mails queued.
async fn queued(dir: &std::path::Path, total: usize) -> Store {
    let store = Store::open(&dir.join("steward.db")).unwrap();
    store
        .transaction(move |tx| {
            for n in 0..total {
                tx.queue_mail(&row(n), Utc::now())?;
            }
            Ok::<_, StoreError>(())
        })
        .await
        .unwrap();
    store
}

#[tokio::test]
async fn one_pass_pages_through_the_whole_queue_and_marks_it_sent() {
    // Removed when dropped: the store's threads may still touch its files
    // as the test ends, which made a removal here fail now and then.
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let total = 2 * FLUSH_EVERY + 5;
    let store = queued(dir, total).await;
    let spool = dir.join("spool");
    let mut drainer = Drainer::new(store.clone(), Sink::Spool(spool.clone()), keys(dir));
    let pass = drainer.pass().await.unwrap();
    assert_eq!(pass, Pass { delivered: total, refused: 0, stopped: false });
    assert!(!drainer.paused());
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), total);
    assert!(store.transaction(|tx| tx.unsent_mail(10)).await.unwrap().is_empty(), "every mail marked sent");
    assert_eq!(drainer.pass().await.unwrap(), Pass::default(), "nothing twice");
}

/// Issue 29 point 2: a shutdown stops a drainer stuck on a server that
/// never answers, with a large queue, within its last pass; every mail
/// stays queued.
#[tokio::test]
async fn a_shutdown_cuts_a_stuck_pass_short_and_leaves_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let total = 2000;
    let store = queued(dir.path(), total).await;
    // An SMTP server that accepts and never says a word.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            open.push(socket);
        }
    });
    let raw = format!("host = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\ntimeout_seconds = 60");
    let config = super::super::smtp::SmtpConfig::from_raw(toml::from_str(&raw).unwrap()).unwrap();
    let sink = Sink::Smtp(SmtpSink::new(&config, &"moves@steward.example".parse().unwrap()).unwrap());
    let (stop, stopping) = watch::channel(false);
    let mut drainer =
        Drainer::new(store.clone(), sink, keys(dir.path())).with_shutdown(stopping, Duration::from_millis(300));
    let pass = tokio::spawn(async move { drainer.pass().await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!pass.is_finished(), "the pass waits on the silent server");
    let began = std::time::Instant::now();
    stop.send(true).unwrap();
    let pass = tokio::time::timeout(Duration::from_secs(5), pass)
        .await
        .expect("the pass stops soon after the cutoff, not at the server's 60 s timeout")
        .unwrap()
        .unwrap();
    assert!(began.elapsed() >= Duration::from_millis(250), "it went on until the cutoff");
    assert_eq!((pass.delivered, pass.stopped), (0, true));
    assert_eq!(store.transaction(|tx| tx.unsent_mail(5000)).await.unwrap().len(), total, "all still queued");
    held.abort();
}

#[tokio::test]
async fn a_sink_that_fails_pauses_the_queue_and_records_the_attempt() {
    let dir = std::env::temp_dir().join(format!("fairsteward-outbox-{}", crate::ids::GameId::random()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = Store::open(&dir.join("steward.db")).unwrap();
    store
        .transaction(|tx| {
            tx.queue_mail(&row(1), Utc::now())?;
            tx.queue_mail(&row(2), Utc::now())
        })
        .await
        .unwrap();
    // A spool "directory" that is a file: every write fails.
    let blocked = dir.join("not-a-dir");
    std::fs::write(&blocked, b"x").unwrap();
    let mut drainer = Drainer::new(store.clone(), Sink::Spool(blocked), keys(&dir));
    let pass = drainer.pass().await.unwrap();
    assert_eq!(pass, Pass { delivered: 0, refused: 0, stopped: true });
    assert!(drainer.paused());
    assert_eq!(drainer.backoff(), Some(FIRST_RETRY));
    let pass = drainer.pass().await.unwrap();
    assert!(pass.stopped);
    assert_eq!(drainer.backoff(), Some(FIRST_RETRY * 2), "the wait doubles");
    assert_eq!(store.transaction(|tx| tx.unsent_mail(10)).await.unwrap().len(), 2, "both still queued");
    let conn = rusqlite::Connection::open(dir.join("steward.db")).unwrap();
    let rows: Vec<(i64, Option<String>)> = conn
        .prepare("SELECT attempts, last_error FROM outbox ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows[0].0, 2, "the oldest mail was tried twice: {rows:?}");
    assert!(rows[0].1.as_deref().is_some_and(|e| e.contains("spool")), "{rows:?}");
    assert_eq!(rows[1], (0, None), "the queue waits behind it: {rows:?}");
    // Back to working: the first delivery clears the pause.
    let mut drainer = Drainer { sink: Sink::Spool(dir.join("spool")), ..drainer };
    assert_eq!(drainer.pass().await.unwrap().delivered, 2);
    assert_eq!(drainer.backoff(), None);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_sealed_mail_is_opened_only_as_it_is_handed_over() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("steward.db")).unwrap();
    let keys = keys(dir.path());
    let clear = row(7);
    let sealed = OutboxRow {
        message: crate::protocol::seal_record(&clear.message, &keys, OUTBOX_LABEL),
        sealed: true,
        ..clear.clone()
    };
    store.transaction(move |tx| tx.queue_mail(&sealed, Utc::now())).await.unwrap();
    let db = std::fs::read(dir.path().join("steward.db-wal")).unwrap();
    assert!(!db.windows(6).any(|w| w == b"body 7"), "the queued mail is sealed in the store");
    let spool = dir.path().join("spool");
    assert_eq!(drain_once(&store, &Sink::Spool(spool.clone()), keys).await.unwrap(), 1);
    let files: Vec<_> = std::fs::read_dir(&spool).unwrap().map(|e| std::fs::read(e.unwrap().path()).unwrap()).collect();
    assert_eq!(files, [clear.message], "handed over opened");
    // Another steward's keys cannot open it: it stays queued, held back.
    let other = Store::open(&dir.path().join("other.db")).unwrap();
    let again = OutboxRow {
        message: crate::protocol::seal_record(
            b"x",
            &StewardKeys::load_or_create(&dir.path().join("k2")).unwrap(),
            OUTBOX_LABEL,
        ),
        sealed: true,
        ..row(8)
    };
    other.transaction(move |tx| tx.queue_mail(&again, Utc::now())).await.unwrap();
    let mut drainer = Drainer::new(other.clone(), Sink::Spool(spool.clone()), self::keys(dir.path()));
    assert_eq!(drainer.pass().await.unwrap(), Pass { delivered: 0, refused: 1, stopped: false });
    assert_eq!(other.transaction(|tx| tx.unsent_mail(10)).await.unwrap().len(), 1, "still queued");
}

#[test]
fn the_backoff_doubles_up_to_five_minutes() {
    let mut b = Backoff::after(None);
    let mut delays = vec![b.delay.as_secs()];
    for _ in 0..10 {
        b = Backoff::after(Some(b));
        delays.push(b.delay.as_secs());
    }
    assert_eq!(delays, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
}
