//! The mail server recipes of `deploy/mail/` (issue 36), each against the real
//! server from Debian's packages: Postfix, Exim and OpenSMTPD, run privately on
//! loopback by `scripts/mtastack.sh` with the recipe files verbatim (only the
//! binary, the configuration file and the pipe's user substituted). A reply sent
//! to the MTA over SMTP goes through the recipe's pipe into `fairsteward ingest`
//! and its move lands in the game; while `ingest` answers 75 (the data directory
//! holds no store) the MTA keeps the mail in its queue, and once that is mended a
//! queue flush delivers it. `docs/mail-servers.md` shows every recipe file
//! verbatim, so the two cannot drift.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::pipe::header;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_fairsteward");
/// How long a delivery or a deferral may take to show (a deadline, not a pause).
const DEADLINE: Duration = Duration::from_secs(90);

/// The exit status of scripts/mtastack.sh when the MTA's packages cannot be had.
const UNAVAILABLE: i32 = 3;

/// One private MTA started by scripts/mtastack.sh; stopped when dropped.
struct Mta {
    dir: String,
    port: u16,
    uid: u32,
    gid: u32,
}

impl Mta {
    /// Starts `name` delivering to the steward configured in `config`, or
    /// `None` (said on stderr) when its packages cannot be obtained.
    fn start(name: &'static str, config: &Path) -> Option<Mta> {
        let out = Command::new("bash")
            .arg(format!("{ROOT}/scripts/mtastack.sh"))
            .args(["start", name])
            .env("MTASTACK_FAIRSTEWARD", BIN)
            .env("MTASTACK_CONFIG", config)
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(UNAVAILABLE) {
            eprintln!("skipped: {name} cannot be obtained here: {stderr}");
            return None;
        }
        assert!(out.status.success(), "scripts/mtastack.sh start {name} failed:\n{stderr}");
        let exports = String::from_utf8_lossy(&out.stdout);
        let var = |key: &str| {
            exports
                .lines()
                .find_map(|l| l.strip_prefix(&format!("export {key}=")))
                .unwrap_or_else(|| panic!("no {key} in {exports}"))
                .to_owned()
        };
        Some(Mta {
            dir: var("MTASTACK_DIR"),
            port: var("MTASTACK_PORT").parse().unwrap(),
            uid: var("MTASTACK_UID").parse().unwrap(),
            gid: var("MTASTACK_GID").parse().unwrap(),
        })
    }

    /// The queue, in the MTA's own words (`postqueue -p`, `exim -bp` with each
    /// message's log, `smtpctl show queue`).
    fn queue(&self) -> String {
        self.script("queue")
    }

    /// Delivers what waits in the queue now.
    fn flush(&self) {
        self.script("flush");
    }

    fn script(&self, what: &str) -> String {
        let out = Command::new("bash")
            .arg(format!("{ROOT}/scripts/mtastack.sh"))
            .args([what, &self.dir])
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "mtastack.sh {what} {}: {}", self.dir, String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The MTA's log.
    fn log(&self) -> String {
        self.script("log")
    }

    /// Runs the binary as the pipe's user (who owns the data directory).
    fn fairsteward(&self, args: &[&str], stdin: &[u8]) -> Output {
        let mut child = Command::new(BIN)
            .args(args)
            .uid(self.uid)
            .gid(self.gid)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    }
}

impl Drop for Mta {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(format!("{ROOT}/scripts/mtastack-stop.sh"))
            .arg(&self.dir)
            .stdin(Stdio::null())
            .output();
    }
}

/// Polls `f` until it gives a value or the deadline passes (then panics with `what`).
#[track_caller]
fn poll<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < DEADLINE, "gave up waiting: {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Submits `mail` over SMTP to 127.0.0.1:`port`, from `from` to `to`.
fn submit(port: u16, from: &str, to: &str, mail: &str) {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("the MTA listens");
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut answer = |expect: &str| loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("the MTA answers");
        assert!(line.starts_with(expect), "expected {expect}, the MTA said {line:?}");
        if line.as_bytes().get(3) != Some(&b'-') {
            break;
        }
    };
    answer("220");
    let say = |w: &mut TcpStream, line: &str| w.write_all(format!("{line}\r\n").as_bytes()).unwrap();
    say(&mut writer, "EHLO client.example");
    answer("250");
    say(&mut writer, &format!("MAIL FROM:<{from}>"));
    answer("250");
    say(&mut writer, &format!("RCPT TO:<{to}>"));
    answer("250");
    say(&mut writer, "DATA");
    answer("354");
    for line in mail.split("\r\n") {
        let stuffed = if line.starts_with('.') { format!(".{line}") } else { line.to_owned() };
        say(&mut writer, &stuffed);
    }
    say(&mut writer, ".");
    answer("250");
    say(&mut writer, "QUIT");
    answer("221");
}

fn reply(from: &str, to: &str, id: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: Game board\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 07 Dec 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

/// The reply address (Reply-To) the steward gave `seat` for `turn`, from the spool.
fn reply_address(data: &Path, seat: &str, turn: u32) -> Option<String> {
    let marker = format!(".{seat}.{turn}.");
    std::fs::read_dir(data.join("spool")).ok()?.filter_map(Result::ok).find_map(|e| {
        let text = std::fs::read_to_string(e.path()).ok()?;
        let r = header(&text, "Reply-To");
        let addr = r.rsplit_once('<').map_or(r.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned();
        addr.contains(&marker).then_some(addr)
    })
}

/// The MTA's words for a mail deferred because `ingest` exited 75.
fn deferred_marker(mta: &str) -> &'static str {
    match mta {
        // Postfix and OpenSMTPD quote the pipe's own words; Exim's message log
        // names the status.
        "exim" => "returned 75",
        _ => "try again later",
    }
}

/// The MTA's words (in its log) for a mail bounced because `ingest` exited 78.
fn bounced_marker(mta: &str) -> &'static str {
    match mta {
        "postfix" => "status=bounced",
        "exim" => "returned 78",
        _ => "result=PermFail",
    }
}

/// A game of chess played by mail through `name`'s recipe, with a temporary
/// failure on the way, and a permanent one at the end.
fn a_reply_through(name: &'static str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("fairsteward.toml");
    let Some(mta) = Mta::start(name, &config) else { return };

    let database =
        crate::support::backend::database_for(&data).map(|url| format!("database = {url:?}\n")).unwrap_or_default();
    std::fs::write(
        &config,
        format!(
            "data_dir = {:?}\n{database}[mail]\nfrom = \"Fairsteward <moves@yourclub.org>\"\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    std::fs::create_dir(&data).unwrap();
    std::os::unix::fs::chown(&data, Some(mta.uid), Some(mta.gid)).unwrap();
    let conf = config.display().to_string();
    let out = mta.fairsteward(
        &[
            "game",
            "new",
            "--config",
            &conf,
            "--variant",
            "chess",
            "--seat",
            "Alice <alice@example.org>",
            "--seat",
            "Bob <bob@example.org>",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let game = serde_json::from_slice::<Value>(&out.stdout).unwrap()["game"]["id"].as_str().unwrap().to_owned();
    // `ingest` (with mail to the spool) sends the queued start mails: they carry the reply addresses.
    let out = mta.fairsteward(&["ingest", "--config", &conf], b"x");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let show = |data_dir: &Path| -> Value {
        let d = data_dir.display().to_string();
        let out = mta.fairsteward(&["game", "show", "--config", &conf, "--data-dir", &d, &game], b"");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };

    // Alice's reply goes through the MTA and its pipe into the game.
    let alice = reply_address(&data, "white", 1).expect("Alice's start mail");
    assert!(alice.starts_with(&format!("moves+{game}.white.1.")) && alice.ends_with("@yourclub.org"), "{alice}");
    submit(mta.port, "alice@example.org", &alice, &reply("Alice <alice@example.org>", &alice, "a1", "e4"));
    poll(&format!("{name} delivers Alice's e4 to the game"), || {
        let view = show(&data);
        (view["history"][0]["moves"][0]["move"] == "e4").then_some(())
    });

    // The pipe ran as the steward's user: the board mail it wrote for Bob is theirs.
    let bob_mail = poll("Bob's board mail for turn 2 in the spool", || {
        std::fs::read_dir(data.join("spool"))
            .ok()?
            .filter_map(Result::ok)
            .find(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(&format!("+{game}.black.2."))))
    });
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&bob_mail.metadata().unwrap()), mta.uid);

    // The pipe names a data directory without a store: ingest exits 75 and the MTA keeps the mail.
    let bob = poll("Bob's board mail for turn 2", || reply_address(&data, "black", 2));
    let away = dir.path().join("data.away");
    std::fs::rename(&data, &away).unwrap();
    submit(mta.port, "bob@example.org", &bob, &reply("Bob <bob@example.org>", &bob, "b1", "e5"));
    let queue = poll(&format!("{name} defers Bob's reply after exit 75"), || {
        let q = mta.queue();
        (q.contains(&bob) && q.contains(deferred_marker(name))).then_some(q)
    });
    assert_eq!(show(&away)["turn"], 2, "nothing landed while the mail waits:\n{queue}");

    // Mended: the queue flushed, the move lands and the queue empties.
    std::fs::rename(&away, &data).unwrap();
    mta.flush();
    poll(&format!("{name} delivers Bob's e5 once mended"), || {
        let view = show(&data);
        (view["history"][1]["moves"][0]["move"] == "e5").then_some(())
    });
    poll(&format!("{name}'s queue empties"), || (!mta.queue().contains(&bob)).then_some(()));
    assert_eq!(show(&data)["turn"], 3);

    // Without its configuration file ingest exits 78 (EX_CONFIG), which the MTA
    // takes as permanent: the mail bounces and leaves the queue.
    let alice2 = poll("Alice's board mail for turn 3", || reply_address(&data, "white", 3));
    let config_away = dir.path().join("fairsteward.toml.away");
    std::fs::rename(&config, &config_away).unwrap();
    submit(mta.port, "alice@example.org", &alice2, &reply("Alice <alice@example.org>", &alice2, "a2", "Nf3"));
    poll(&format!("{name} bounces Alice's Nf3 after exit 78"), || {
        mta.log().lines().any(|l| l.contains(&alice2) && l.contains(bounced_marker(name))).then_some(())
    });
    poll(&format!("{name} keeps nothing of the bounced mail"), || (!mta.queue().contains(&alice2)).then_some(()));
    std::fs::rename(&config_away, &config).unwrap();
    assert_eq!(show(&data)["turn"], 3, "the bounced move did not land");
}

#[test]
fn postfix_delivers_a_reply_through_the_recipe_and_retries_after_exit_75() {
    a_reply_through("postfix");
}

#[test]
fn exim_delivers_a_reply_through_the_recipe_and_retries_after_exit_75() {
    a_reply_through("exim");
}

#[test]
fn opensmtpd_delivers_a_reply_through_the_recipe_and_retries_after_exit_75() {
    a_reply_through("opensmtpd");
}

/// Every recipe file under deploy/mail/ is shown verbatim in
/// docs/mail-servers.md, as one fenced block.
#[test]
fn the_mail_server_docs_show_every_recipe_verbatim() {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/mail-servers.md")).unwrap();
    let blocks = crate::support::fenced_blocks(&doc);
    let mut files: Vec<PathBuf> = Vec::new();
    for mta in ["postfix", "exim", "opensmtpd"] {
        let dir = Path::new(ROOT).join("deploy/mail").join(mta);
        let mut these: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        assert!(!these.is_empty(), "no recipe in {}", dir.display());
        files.append(&mut these);
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            blocks.contains(&text),
            "docs/mail-servers.md has no block equal to {}:\n{text}",
            file.strip_prefix(ROOT).unwrap().display()
        );
    }
}
