//! Work nobody waits for — a mail's board picture, a queued letter's
//! formatting, a mail made ready and written to the spool — on a few threads of
//! their own at the lowest scheduling priority, so that it gives way to the
//! moves and answers being served: under load the mails wait, the moves do not.

use std::panic::AssertUnwindSafe;
use std::sync::{Mutex, OnceLock, mpsc};

/// How much lower than the steward's other threads background work runs (a
/// nice value; a thread may lower its own priority without privileges): the
/// lowest, which still gives it a share when the machine is never idle.
pub const NICE: i32 = 19;

/// The background threads: one per core, at most four.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4)
}

type Work = Box<dyn FnOnce() + Send>;

/// The queue the background threads take their work from, started on first use.
fn queue() -> &'static Mutex<mpsc::Sender<Work>> {
    static QUEUE: OnceLock<Mutex<mpsc::Sender<Work>>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (send, receive) = mpsc::channel::<Work>();
        let receive = std::sync::Arc::new(Mutex::new(receive));
        for i in 0..threads() {
            let receive = receive.clone();
            let started = std::thread::Builder::new().name(format!("background-{i}")).spawn(move || {
                lower_own_priority();
                loop {
                    let next = receive.lock().unwrap_or_else(std::sync::PoisonError::into_inner).recv();
                    let Ok(work) = next else { return };
                    // A panic ends that piece of work (its caller hears of it),
                    // not the thread.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(work));
                }
            });
            if let Err(e) = started {
                tracing::error!(error = %e, "cannot start a background thread");
            }
        }
        Mutex::new(send)
    })
}

/// Runs `work` on a background thread at nice +[`NICE`], and waits for it
/// without holding up the async threads.
///
/// # Errors
/// No background thread could be started, or `work` panicked.
pub async fn run<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, std::io::Error> {
    let (done, result) = tokio::sync::oneshot::channel();
    let work: Work = Box::new(move || {
        let _ = done.send(work());
    });
    queue()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .send(work)
        .map_err(|_| std::io::Error::other("the background threads are gone"))?;
    result.await.map_err(|_| std::io::Error::other("the background work did not finish"))
}

/// Lowers the calling thread's scheduling priority by [`NICE`] (Linux: a
/// thread's own nice value); a failure leaves it as it was.
fn lower_own_priority() {
    // SAFETY: gettid and setpriority only read their arguments; the thread id
    // is the caller's own.
    let done = unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, NICE)
    };
    if done != 0 {
        tracing::debug!(error = %std::io::Error::last_os_error(), "background work runs at normal priority");
    }
}

#[cfg(test)]
mod tests {
    /// The nice value of the calling thread.
    fn own_nice() -> i32 {
        // SAFETY: as in `lower_own_priority`.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::getpriority(libc::PRIO_PROCESS, tid)
        }
    }

    #[tokio::test]
    async fn work_runs_on_a_thread_of_its_own_at_the_lowest_priority() {
        let here = own_nice();
        let (name, nice) = super::run(|| (std::thread::current().name().map(str::to_owned), own_nice())).await.unwrap();
        assert!(name.is_some_and(|n| n.starts_with("background-")));
        assert_eq!(nice, super::NICE.max(here), "nice +{} from {here}", super::NICE);
        assert_eq!(own_nice(), here, "the caller's thread keeps its priority");
    }

    #[tokio::test]
    async fn a_panic_is_an_error_and_the_threads_go_on() {
        for _ in 0..2 * super::threads() {
            let result = super::run(|| -> u8 { panic!("on purpose") }).await;
            assert!(result.is_err());
        }
        assert_eq!(super::run(|| 7).await.unwrap(), 7);
    }
}
