//! The Debian package (issue 36): the unit's hardening as `systemd-analyze`
//! rates it, and the package itself — built by `scripts/package --dev`
//! (scripts/test builds it and names it in `FAIRSTEWARD_TEST_DEB`), installed
//! with `dpkg -i` on this machine, the steward started as its unit says with
//! the packaged configuration, upgraded in place while it runs, and installed
//! over a data directory written by the version before the package
//! (`data-dir-c9f6b0c.tar.gz`, made by `make-data-dir.py` with that version's
//! binary: a game of every variant, moves, mails in the outbox, keys).
//!
//! The package test installs into the system's own paths (`/usr/bin`,
//! `/etc/fairsteward`, `/var/lib/fairsteward`), so it runs as root, one at a
//! time (a lock file), refuses to touch a data directory it did not make, and
//! purges what it installed when it ends. It is ignored in the suite's run: the
//! binary finds `/etc/fairsteward/fairsteward.toml` by itself, so every other
//! test running meanwhile would read the package's configuration; scripts/test
//! runs it alone afterwards (`cargo test --test it package:: -- --ignored`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{backend, client, send};

const DATA_DIR: &str = "/var/lib/fairsteward";
const CONFIG: &str = "/etc/fairsteward/fairsteward.toml";
/// Left beside the data directory this test makes (not in it: the steward
/// owns every file there), so that a later run may clear it after a run that
/// died; a data directory without it is not this test's.
const MARK: &str = "/var/lib/fairsteward.made-by-the-package-test";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[track_caller]
fn run(program: &str, args: &[&str]) -> Output {
    let out = Command::new(program).args(args).output().unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {}: {}\n{}{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `fairsteward` as the package's user, from a directory that is not the
/// data directory: what an operator types.
fn as_steward(args: &[&str]) -> Output {
    Command::new("runuser")
        .args(["-u", "fairsteward", "--", "/usr/bin/fairsteward"])
        .args(args)
        .current_dir("/")
        .env_remove("FAIRSTEWARD_CONFIG")
        .env_remove("FAIRSTEWARD_DATA_DIR")
        .output()
        .unwrap()
}

#[test]
fn the_unit_is_hardened_as_the_docs_say() {
    let unit_path = repo().join("deploy/fairsteward.service");
    let unit = std::fs::read_to_string(&unit_path).unwrap();
    for line in [
        "ProtectSystem=strict",
        "ReadWritePaths=/var/lib/fairsteward",
        "PrivateDevices=true",
        "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
        "SystemCallFilter=@system-service",
        "CapabilityBoundingSet=",
        "NoNewPrivileges=true",
        "User=fairsteward",
    ] {
        assert!(unit.lines().any(|l| l == line), "{line} missing from {}", unit_path.display());
    }
    let out = run("systemd-analyze", &["security", "--offline=true", unit_path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let overall = text
        .lines()
        .find_map(|l| l.split_once("Overall exposure level for fairsteward.service: "))
        .map(|(_, rest)| rest.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| panic!("no overall rating in:\n{text}"));
    let level: f64 = overall.split(' ').next().unwrap().parse().unwrap();
    assert!(level <= 2.0, "exposure {overall}:\n{text}");
    let docs = std::fs::read_to_string(repo().join("docs/operator.md")).unwrap();
    assert!(
        docs.contains(&format!("exposure level for fairsteward.service: {overall}")),
        "docs/operator.md should show the rating systemd-analyze gives now: {overall}"
    );
}

/// Serialises the package tests of every test run on this machine: they
/// share the system's paths.
struct Lock {
    _held: std::fs::File,
}

impl Lock {
    fn take() -> Lock {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::create("/tmp/fairsteward-package-test.lock").unwrap();
        // SAFETY: flock(2) on a descriptor this struct owns; released when it closes.
        assert_eq!(unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) }, 0);
        Lock { _held: file }
    }
}

/// What the test installed; purged and cleared however the test ends.
struct Installed {
    _lock: Lock,
    steward: Option<Child>,
}

impl Installed {
    /// Clears what an earlier run of this test left, refusing to touch an
    /// install that is not the test's.
    fn clean_slate() -> Installed {
        let lock = Lock::take();
        let data = Path::new(DATA_DIR);
        assert!(
            !data.exists() || Path::new(MARK).exists(),
            "{DATA_DIR} exists and was not made by this test: a real install? The package test will not touch it"
        );
        let installed = Installed { _lock: lock, steward: None };
        installed.purge();
        installed
    }

    fn purge(&self) {
        let _ = Command::new("dpkg").args(["--purge", "fairsteward"]).output();
        let _ = std::fs::remove_dir_all(DATA_DIR);
        let _ = std::fs::remove_file(MARK);
    }

    /// `dpkg -i`, non-interactive (an admin's edited conffile is kept).
    fn install(&self, deb: &Path) {
        run("dpkg", &["--force-confold", "-i", deb.to_str().unwrap()]);
        std::fs::write(MARK, "").unwrap();
    }

    /// Starts the steward as the installed unit says (its user, environment
    /// and command line), on `listen`; waits until it answers.
    async fn start(&mut self, listen: &str) -> String {
        let unit = ["/lib/systemd/system/fairsteward.service", "/usr/lib/systemd/system/fairsteward.service"]
            .iter()
            .find_map(|p| std::fs::read_to_string(p).ok())
            .expect("the unit is installed");
        let value = |key: &str| unit.lines().find_map(|l| l.strip_prefix(key)).map(str::to_owned);
        let user = value("User=").expect("User=");
        let exec = value("ExecStart=").expect("ExecStart=");
        // setpriv and env exec: the child is the steward itself, as under systemd.
        let mut command = Command::new("setpriv");
        command.args(["--reuid", &user, "--regid", &user, "--init-groups", "--", "env", "-i"]);
        for assignment in unit.lines().filter_map(|l| l.strip_prefix("Environment=")) {
            command.arg(assignment);
        }
        command.args(exec.split_whitespace()).args(["--listen", listen]).current_dir("/");
        let child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        self.steward = Some(child);
        let base = format!("http://{listen}");
        let started = Instant::now();
        loop {
            if let Ok(r) = client().get(format!("{base}/api/steward")).send().await
                && r.status().is_success()
            {
                return base;
            }
            if let Some(status) = self.steward.as_mut().unwrap().try_wait().unwrap() {
                let mut err = String::new();
                let _ = self.steward.take().unwrap().stderr.unwrap().read_to_string(&mut err);
                panic!("the packaged steward exited ({status}): {err}");
            }
            assert!(started.elapsed() < Duration::from_secs(30), "the packaged steward does not answer");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Stops the steward as systemd would (SIGTERM) and waits for it.
    fn stop(&mut self) {
        if let Some(mut child) = self.steward.take() {
            // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            let status = child.wait().unwrap();
            assert!(status.success(), "the steward stopped with {status}");
        }
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        if let Some(mut child) = self.steward.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.purge();
    }
}

fn free_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

/// The package with its version's Debian revision raised, as the next upload
/// would be: unpacked and packed again with `dpkg-deb`.
fn next_version(deb: &Path, dir: &Path) -> PathBuf {
    let tree = dir.join("tree");
    run("dpkg-deb", &["-R", deb.to_str().unwrap(), tree.to_str().unwrap()]);
    let control = tree.join("DEBIAN/control");
    let text = std::fs::read_to_string(&control).unwrap();
    let version = text.lines().find_map(|l| l.strip_prefix("Version: ")).unwrap().to_owned();
    let next = format!("{version}+next");
    std::fs::write(&control, text.replace(&format!("Version: {version}"), &format!("Version: {next}"))).unwrap();
    let out = dir.join("next.deb");
    run("dpkg-deb", &["--root-owner-group", "-b", tree.to_str().unwrap(), out.to_str().unwrap()]);
    out
}

/// The store's unsent mails, by Message-ID (read-only, beside the steward).
fn unsent_mails() -> Vec<String> {
    let conn = rusqlite::Connection::open_with_flags(
        Path::new(DATA_DIR).join("steward.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let mut ids: Vec<String> = conn
        .prepare("SELECT message_id FROM outbox WHERE sent_at IS NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    ids.sort();
    ids
}

/// The steward's key files, by name.
fn keys() -> Vec<(String, Vec<u8>)> {
    let mut keys: Vec<(String, Vec<u8>)> = std::fs::read_dir(DATA_DIR)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("steward-"))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    keys.sort();
    assert!(keys.len() >= 3, "{keys:?}");
    keys
}

fn mode_and_owner(path: &str) -> (u32, String) {
    let out = run("stat", &["-c", "%a %U:%G", path]);
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let (mode, owner) = text.split_once(' ').unwrap();
    (u32::from_str_radix(mode, 8).unwrap(), owner.to_owned())
}

/// The configuration an operator writes after installing: the steward's
/// address, and an SMTP server that is down, so mails wait in the outbox.
fn configure(listen: &str) {
    let smtp = free_address();
    let (_, port) = smtp.rsplit_once(':').unwrap();
    std::fs::write(
        CONFIG,
        format!(
            "data_dir = \"{DATA_DIR}\"\n[http]\nlisten = \"{listen}\"\npublic_url = \"http://{listen}\"\n\
             [mail]\nfrom = \"Club <moves@games.club.org>\"\n\
             [mail.smtp]\nhost = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\n"
        ),
    )
    .unwrap();
}

async fn games(base: &str, operator: &str) -> Vec<Value> {
    let answer = send(&client(), format!("{base}/api/games"), reqwest::Method::GET, Some(operator), None).await;
    let mut games = answer.ok(200)["games"].as_array().unwrap().clone();
    games.sort_by_key(|g| g["id"].as_str().unwrap().to_owned());
    games
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "installs /etc/fairsteward/fairsteward.toml, which every other test's binary would read: scripts/test runs it alone, after the suite"]
async fn the_package_installs_starts_upgrades_in_place_and_takes_over_an_earlier_data_directory() {
    if backend::skip_on_postgres("the package's configuration runs SQLite's store") {
        return;
    }
    let deb = PathBuf::from(std::env::var("FAIRSTEWARD_TEST_DEB").unwrap_or_else(|_| {
        panic!("FAIRSTEWARD_TEST_DEB is not set: run scripts/test, which builds the package with scripts/package --dev")
    }));
    let work = tempfile::tempdir().unwrap();
    let mut installed = Installed::clean_slate();

    // -- installed: the user, the directories and their modes, the docs.
    installed.install(&deb);
    run("id", &["fairsteward"]);
    assert_eq!(mode_and_owner(DATA_DIR), (0o700, "fairsteward:fairsteward".to_owned()));
    assert_eq!(mode_and_owner(CONFIG), (0o640, "root:fairsteward".to_owned()), "it may hold passwords");
    for file in [
        "/usr/bin/fairsteward",
        "/usr/share/man/man1/fairsteward.1.gz",
        "/usr/share/man/man1/fairsteward-check.1.gz",
        "/usr/share/bash-completion/completions/fairsteward",
        "/usr/share/zsh/vendor-completions/_fairsteward",
        "/usr/share/fish/vendor_completions.d/fairsteward.fish",
        "/etc/systemd/system/multi-user.target.wants/fairsteward.service",
    ] {
        assert!(Path::new(file).exists(), "{file} not installed");
    }
    let completes =
        run("bash", &["-c", "source /usr/share/bash-completion/completions/fairsteward && complete -p fairsteward"]);
    assert!(String::from_utf8_lossy(&completes.stdout).contains("fairsteward"));
    // Before the first start: check finds the configuration and says what to set.
    let check = as_steward(&["check"]);
    let text = String::from_utf8_lossy(&check.stdout).into_owned();
    assert!(text.contains(&format!("read {CONFIG}")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("warning") && l.contains("mail.from")), "{text}");
    // No store yet: operator-token refuses rather than making a stray token.
    let refused = as_steward(&["operator-token"]);
    assert!(!refused.status.success(), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains(DATA_DIR), "{refused:?}");

    // -- configured and started as the unit says; a game, moves, mails waiting.
    let listen = free_address();
    configure(&listen);
    let base = installed.start(&listen).await;
    let operator = String::from_utf8(as_steward(&["operator-token"]).stdout).unwrap().trim().to_owned();
    assert_eq!(operator.len(), 64, "the token from the configured data directory: {operator:?}");
    let seats = json!([{"name": "Ada", "email": "ada@games.club.org"}, {"name": "Bo", "email": "bo@games.club.org"}]);
    let created = send(
        &client(),
        format!("{base}/api/games"),
        reqwest::Method::POST,
        Some(&operator),
        Some(("application/json", json!({"variant": "chess", "seats": seats}).to_string().into_bytes())),
    )
    .await
    .ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t["token"].as_str().unwrap().to_owned()).collect();
    for (turn, text) in ["e4", "e5", "Nf3"].iter().enumerate() {
        let body = json!({"turn": turn + 1, "move": text}).to_string().into_bytes();
        send(
            &client(),
            format!("{base}/api/games/{id}/moves"),
            reqwest::Method::POST,
            Some(&tokens[turn % 2]),
            Some(("application/json", body)),
        )
        .await
        .ok(200);
    }
    let check = as_steward(&["check"]);
    let text = String::from_utf8_lossy(&check.stdout).into_owned();
    assert!(text.lines().any(|l| l.starts_with("ok") && l.contains("schema version")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("error") && l.contains("mail.smtp")), "the SMTP server is down: {text}");
    let before = (games(&base, &operator).await, keys(), std::fs::read_to_string(CONFIG).unwrap());
    let waiting = unsent_mails();
    assert!(!waiting.is_empty(), "mails wait in the outbox while SMTP is down");

    // -- upgraded in place while it runs, then restarted (systemd's
    // restart-after-upgrade): every game, waiting mail, key and the
    // operator's configuration kept.
    installed.install(&next_version(&deb, work.path()));
    assert_eq!(mode_and_owner(CONFIG), (0o640, "root:fairsteward".to_owned()));
    installed.stop();
    let base = installed.start(&listen).await;
    let after = (games(&base, &operator).await, keys(), std::fs::read_to_string(CONFIG).unwrap());
    assert_eq!(after, before, "games, keys and configuration across the upgrade");
    let still = unsent_mails();
    assert!(waiting.iter().all(|m| still.contains(m)), "mails waiting before the upgrade wait after it");
    installed.stop();

    // -- purged: the configuration goes, the games stay (docs/operator.md).
    installed.purge_package_only();
    assert!(!Path::new(CONFIG).exists());
    assert!(Path::new(DATA_DIR).join("steward.db").exists(), "a purge keeps the games");

    // -- installed over the data directory of the version before the package.
    std::fs::remove_dir_all(DATA_DIR).unwrap();
    std::fs::create_dir_all(DATA_DIR).unwrap();
    let fixture = repo().join("tests/it/package/data-dir-c9f6b0c.tar.gz");
    run("tar", &["-xzf", fixture.to_str().unwrap(), "-C", DATA_DIR, "--strip-components=1"]);
    let old_mails = unsent_mails();
    let old_keys = keys();
    installed.install(&deb);
    run("chown", &["-R", "fairsteward:fairsteward", DATA_DIR]);
    run("chmod", &["0700", DATA_DIR]);
    let listen = free_address();
    configure(&listen);
    let base = installed.start(&listen).await;
    let operator = String::from_utf8(as_steward(&["operator-token"]).stdout).unwrap().trim().to_owned();
    let old_games = games(&base, &operator).await;
    let mut variants: Vec<&str> = old_games.iter().map(|g| g["variant"].as_str().unwrap()).collect();
    variants.sort_unstable();
    assert_eq!(
        variants,
        ["chess", "dreierschach", "fairschach", "tri-d-chess", "trialectic-dame", "vierschach"],
        "a game of every variant"
    );
    for game in &old_games {
        let id = game["id"].as_str().unwrap();
        assert_eq!(game["turn"], 3, "{game}");
        let verified = Command::new("/usr/bin/fairsteward")
            .args(["verify", "--url", &format!("{base}/api/games/{id}/transcript")])
            .output()
            .unwrap();
        assert!(verified.status.success(), "{id}: {}", String::from_utf8_lossy(&verified.stderr));
    }
    assert_eq!(keys(), old_keys, "the earlier version's keys are the steward's");
    let kept = unsent_mails();
    assert!(old_mails.iter().all(|m| kept.contains(m)), "the earlier version's waiting mails still wait");
    assert_eq!(old_mails.len(), 48, "the fixture's outbox");
    installed.stop();
}

impl Installed {
    /// `dpkg --purge`, leaving the data directory as the package does.
    fn purge_package_only(&self) {
        run("dpkg", &["--purge", "fairsteward"]);
    }
}
