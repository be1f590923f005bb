//! Work nobody waits for — a mail's board picture, a queued letter's
//! formatting, a mail made ready and written to the spool — on a few threads of
//! their own at the lowest scheduling priority, so that it gives way to the
//! moves and answers being served: under load the mails wait, the moves do not.
//!
//! The threads run under Linux's `SCHED_IDLE` policy, and at nice +[`NICE`]
//! should the policy be refused. A nice value alone lowers a thread's share of
//! the CPU, but a move's thread that wakes (an answer's commit synced, a
//! request read) may still wait for a nice +19 thread's time slice to end; a
//! `SCHED_IDLE` thread gives the CPU up at once: about a fifth more moves per
//! second in the HTTP benchmark (docs/benchmarks.md, "What a move costs"). Neither starves
//! the mails: Linux still gives such a thread a small share when the machine
//! is never idle.

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

/// Runs `work` on a background thread (`SCHED_IDLE`, nice +[`NICE`]), and waits for it
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

/// Puts the calling thread under the `SCHED_IDLE` policy (any thread may
/// lower its own) and lowers its nice value by [`NICE`], which counts where
/// the policy is refused; a failure leaves the thread as it was.
fn lower_own_priority() {
    // SAFETY: gettid, sched_setscheduler and setpriority only read their
    // arguments; the thread id is the caller's own.
    let (idle, nice) = unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::pid_t;
        let param = libc::sched_param { sched_priority: 0 };
        let idle = libc::sched_setscheduler(tid, libc::SCHED_IDLE, &param);
        let idle_error = std::io::Error::last_os_error();
        (
            if idle == 0 { Ok(()) } else { Err(idle_error) },
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, NICE),
        )
    };
    if let Err(e) = idle {
        tracing::debug!(error = %e, "background work runs without SCHED_IDLE");
    }
    if nice != 0 {
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

    /// The scheduling policy of the calling thread.
    fn own_policy() -> i32 {
        // SAFETY: sched_getscheduler only reads the thread id, the caller's own.
        unsafe { libc::sched_getscheduler(libc::syscall(libc::SYS_gettid) as libc::pid_t) }
    }

    #[tokio::test]
    async fn work_runs_on_a_thread_of_its_own_at_the_lowest_priority() {
        let (here, policy) = (own_nice(), own_policy());
        let (name, nice, idle) = super::run(|| {
            (std::thread::current().name().map(str::to_owned), own_nice(), own_policy() == libc::SCHED_IDLE)
        })
        .await
        .unwrap();
        assert!(name.is_some_and(|n| n.starts_with("background-")));
        assert_eq!(nice, super::NICE.max(here), "nice +{} from {here}", super::NICE);
        assert!(idle, "SCHED_IDLE");
        assert_eq!((own_nice(), own_policy()), (here, policy), "the caller's thread keeps its priority");
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
