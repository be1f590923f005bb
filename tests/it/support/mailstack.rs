//! The local mail servers that `scripts/test` starts (`scripts/mailstack.sh`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where scripts/mailstack.sh put the servers.
#[derive(Clone, Debug)]
pub struct Stack {
    pub smtp_host: String,
    pub smtp_port: u16,
    pub imap_host: String,
    pub imap_port: u16,
    pub pass: String,
}

#[track_caller]
pub fn stack() -> Stack {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!(
                "{name} is not set: the mail tests need the local SMTP and IMAP servers. Run the tests with \
                 scripts/test, which starts OpenSMTPD and Dovecot (scripts/mailstack.sh) and exports MAILSTACK_*; \
                 or, as root, eval \"$(scripts/mailstack.sh)\" before cargo test"
            )
        })
    };
    let port = |name: &str| var(name).parse::<u16>().unwrap_or_else(|e| panic!("{name}={:?}: {e}", var(name)));
    Stack {
        smtp_host: var("MAILSTACK_SMTP_HOST"),
        smtp_port: port("MAILSTACK_SMTP_PORT"),
        imap_host: var("MAILSTACK_IMAP_HOST"),
        imap_port: port("MAILSTACK_IMAP_PORT"),
        pass: var("MAILSTACK_PASS"),
    }
}

/// A local part no other test, and no other test run, uses.
pub fn unique(tag: &str) -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("fs-{tag}-{}-{:x}-{}", std::process::id(), nanos % (1 << 48), COUNTER.fetch_add(1, Ordering::SeqCst))
}
