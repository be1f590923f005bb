//! Issue 36 through the real binary: `fairsteward check` on a good
//! configuration (the real SMTP and IMAP servers of scripts/mailstack.sh, a
//! started steward behind `public_url`) and on broken ones, each named by its
//! own error line; `operator-token` refusing a directory without a store; and
//! the configuration file and data directory found through the environment.

use std::net::{IpAddr, TcpListener, ToSocketAddrs};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{self as common, backend, mailstack};

const BIN: &str = env!("CARGO_BIN_EXE_fairsteward");

/// The binary run in `cwd` with `args`, our variables taken from the
/// environment and `env` put in.
fn fairsteward(cwd: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    Command::new(BIN)
        .current_dir(cwd)
        .args(args)
        .env_remove("FAIRSTEWARD_CONFIG")
        .env_remove("FAIRSTEWARD_DATA_DIR")
        .env_remove("RUST_LOG")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .output()
        .expect("the fairsteward binary runs")
}

/// `fairsteward check --config FILE --timeout 10`: its exit status and stdout.
fn check(config: &Path, env: &[(&str, String)]) -> (i32, String) {
    let out = fairsteward(config.parent().unwrap(), &["check", "--timeout", "10", "--config", path(config)], env);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.stderr.is_empty(), "check wrote to stderr: {}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().expect("check exits"), stdout)
}

/// The lines of a report about `name` (the second column).
fn lines_of<'a>(report: &'a str, name: &str) -> Vec<&'a str> {
    report.lines().filter(|l| l.split_whitespace().nth(1) == Some(name)).collect()
}

/// The one line about `name`, which must have `status` and every phrase.
#[track_caller]
fn finding<'a>(report: &'a str, status: &str, name: &str, phrases: &[&str]) -> &'a str {
    let lines = lines_of(report, name);
    assert_eq!(lines.len(), 1, "one line about {name} expected in:\n{report}");
    assert_eq!(lines[0].split_whitespace().next(), Some(status), "{name} is {status} in:\n{report}");
    for phrase in phrases {
        assert!(lines[0].contains(phrase), "{phrase:?} expected in {:?}", lines[0]);
    }
    lines[0]
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// A loopback port nobody listens on (bound, then let go).
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// This machine's name and the IPv4 address it resolves to: a `public_url`
/// that is not a placeholder (as `127.0.0.1` or `localhost` would be) and
/// still reaches a steward listening on that address.
fn host() -> (String, IpAddr) {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").expect("the host name").trim().to_owned();
    let addr = (name.as_str(), 0)
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.find(std::net::SocketAddr::is_ipv4))
        .unwrap_or_else(|| panic!("the host name {name:?} does not resolve (/etc/hosts): the check tests need it"));
    assert!(name != "localhost" && !name.ends_with(".test"), "the host name {name:?} is a placeholder");
    (name, addr.ip())
}

/// `fairsteward serve` on `data_dir` and `ip` (a port of the system's
/// choosing); killed when dropped.
struct Served {
    child: Child,
    port: u16,
}

impl Served {
    fn start(data_dir: &Path, ip: IpAddr) -> Served {
        use std::io::BufRead;
        let mut child = Command::new(BIN)
            .args(["serve", "--data-dir", path(data_dir), "--listen", &format!("{ip}:0")])
            .envs(backend::database_env(data_dir))
            .env_remove("FAIRSTEWARD_CONFIG")
            .env_remove("FAIRSTEWARD_DATA_DIR")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the fairsteward binary starts");
        let stderr = child.stderr.take().unwrap();
        let (tell, told) = std::sync::mpsc::channel();
        // Reads the log to its end, so the steward never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let addr = rest.split_whitespace().next().unwrap_or_default();
                    let _ = tell.send(
                        addr.rsplit(':')
                            .next()
                            .and_then(|p| p.trim_end_matches(|c: char| !c.is_ascii_digit()).parse::<u16>().ok()),
                    );
                }
            }
        });
        let port = told
            .recv_timeout(Duration::from_secs(60))
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("the steward on {} did not say where it listens", data_dir.display()));
        Served { child, port }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A configuration with nothing wrong but what `more` adds: a real sender,
/// `public_url` at this machine's name and a port nobody answers on (a
/// warning), `data_dir` at `data` (which need not exist: a warning).
fn base(data: &Path, more: &str) -> String {
    let (name, _) = host();
    format!(
        "data_dir = {:?}\n{more}\n[http]\npublic_url = \"http://{name}:{}\"\n[mail]\nfrom = \"Club <moves@club.org>\"\n",
        path(data),
        closed_port()
    )
}

/// `[mail.smtp]` and `[mail.imap]` at the mail stack, as `user` with `password`
/// and `mailbox`.
fn mail_doors(stack: &mailstack::Stack, user: &str, password: &str, mailbox: &str) -> String {
    format!(
        "[mail.smtp]\nhost = {:?}\nport = {}\ntls = \"none\"\n\
         [mail.imap]\nhost = {:?}\nport = {}\ntls = \"none\"\nusername = {user:?}\npassword = {password:?}\nmailbox = {mailbox:?}\n",
        stack.smtp_host, stack.smtp_port, stack.imap_host, stack.imap_port
    )
}

/// Writes `text` to `dir/fairsteward.toml`; returns its path.
fn config_file(dir: &Path, text: &str) -> PathBuf {
    let file = dir.join("fairsteward.toml");
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn a_good_configuration_is_all_ok_and_its_json_lists_the_same() {
    let stack = mailstack::stack();
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let (name, ip) = host();
    let steward = Served::start(&data, ip);
    let maildir = root.path().join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    // The mail doors before the tables: TOML puts later plain keys in the last table.
    let file = config_file(
        root.path(),
        &format!(
            "data_dir = {:?}\n[http]\npublic_url = \"http://{name}:{}\"\n[mail]\nfrom = \"Club <moves@club.org>\"\n{}\
             [mail.maildir]\npath = {:?}\n",
            path(&data),
            steward.port,
            mail_doors(&stack, &mailstack::unique("check"), &stack.pass, "INBOX"),
            path(&maildir)
        ),
    );
    let env = backend::database_env(&data);
    let (status, report) = check(&file, &env);
    assert_eq!(status, 0, "{report}");
    for line in report.lines() {
        assert!(line.starts_with("ok "), "every finding ok, not {line:?} in:\n{report}");
    }
    finding(&report, "ok", "config", &[path(&file)]);
    finding(&report, "ok", "data_dir", &[path(&data), "0700"]);
    finding(&report, "ok", "keys", &["steward-signing.pem", "0600"]);
    finding(&report, "ok", "operator_token", &["0600"]);
    finding(&report, "ok", "store", &["schema version"]);
    finding(&report, "ok", "mail.smtp", &["connected"]);
    finding(&report, "ok", "mail.imap", &["INBOX"]);
    finding(&report, "ok", "mail.maildir", &[path(&maildir)]);
    finding(&report, "ok", "http.reachable", &["answers as this steward"]);

    // --json: a list of {check, status, message, fix}, one per line above.
    let out = fairsteward(root.path(), &["check", "--json", "--timeout", "10", "--config", path(&file)], &env);
    assert_eq!(out.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&out.stdout).expect("check --json prints JSON");
    let list = list.as_array().expect("a list");
    assert_eq!(list.len(), report.lines().count(), "{list:?}");
    for (item, line) in list.iter().zip(report.lines()) {
        let keys: Vec<&str> = item.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 4, "{item}");
        for key in ["check", "status", "message", "fix"] {
            assert!(keys.contains(&key), "{key} in {item}");
        }
        assert_eq!(item["status"], "ok");
        assert_eq!(item["fix"], Value::Null);
        assert_eq!(line.split_whitespace().nth(1), item["check"].as_str(), "{item}");
    }
    drop(steward);
}

#[test]
fn a_placeholder_sender_with_a_mail_door_is_an_error() {
    let root = tempfile::tempdir().unwrap();
    let maildir = root.path().join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let text =
        format!("data_dir = {:?}\n[mail.maildir]\npath = {:?}\n", path(&root.path().join("data")), path(&maildir));
    let (status, report) = check(&config_file(root.path(), &text), &[]);
    assert_eq!(status, 1, "{report}");
    let line = finding(&report, "error", "mail.from", &["moves@steward.example", "Fix:", "[mail]"]);
    assert!(line.contains("reach nobody"), "{line}");
    finding(&report, "error", "http.public_url", &["127.0.0.1", "[http]"]);
    finding(&report, "ok", "mail.maildir", &[]);
    // Without a mail door the same placeholders only warn: a trial on one machine.
    let (status, report) =
        check(&config_file(root.path(), &format!("data_dir = {:?}\n", path(&root.path().join("d")))), &[]);
    assert_eq!(status, 0, "{report}");
    finding(&report, "warning", "mail.from", &["moves@steward.example"]);
    assert!(!root.path().join("data").exists() && !root.path().join("d").exists(), "check made no data directory");
}

#[test]
fn a_closed_smtp_port_is_an_error() {
    let root = tempfile::tempdir().unwrap();
    let port = closed_port();
    let smtp = format!("[mail.smtp]\nhost = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\n");
    // [mail.smtp] after the plain keys of base(): appended at the end.
    let text = base(&root.path().join("data"), "") + &smtp;
    let (status, report) = check(&config_file(root.path(), &text), &[]);
    assert_eq!(status, 1, "{report}");
    finding(&report, "error", "mail.smtp", &["mail cannot go out", &format!("127.0.0.1:{port}"), "Fix:", "port"]);
}

/// Dovecot answers a failed login after 2 s, and slows the next logins from
/// the same address a little (its auth penalty, reset by a good login): the
/// checks here allow 10 s.
#[test]
fn a_wrong_imap_password_is_an_error() {
    let stack = mailstack::stack();
    let root = tempfile::tempdir().unwrap();
    let text = base(&root.path().join("data"), "")
        + &mail_doors(&stack, &mailstack::unique("check"), &format!("{}-not", stack.pass), "INBOX");
    let (status, report) = check(&config_file(root.path(), &text), &[]);
    assert_eq!(status, 1, "{report}");
    finding(&report, "ok", "mail.smtp", &["connected"]);
    finding(&report, "error", "mail.imap", &["replies cannot be read", "Fix: check username and password"]);
}

#[test]
fn a_missing_imap_mailbox_is_an_error() {
    let stack = mailstack::stack();
    let root = tempfile::tempdir().unwrap();
    let text = base(&root.path().join("data"), "")
        + &mail_doors(&stack, &mailstack::unique("check"), &stack.pass, "No-Such-Box");
    let (status, report) = check(&config_file(root.path(), &text), &[]);
    assert_eq!(status, 1, "{report}");
    finding(&report, "error", "mail.imap", &["replies cannot be read", "Fix: create the mailbox \"No-Such-Box\""]);
}

#[test]
fn a_data_directory_anyone_may_write_is_an_error() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (status, report) = check(&config_file(root.path(), &base(&data, "")), &[]);
    assert_eq!(status, 1, "{report}");
    finding(&report, "error", "data_dir", &[path(&data), "mode 0777", &format!("Fix: chmod 700 {}", path(&data))]);
    assert_eq!(std::fs::metadata(&data).unwrap().permissions().mode() & 0o777, 0o777, "check changed nothing");
}

#[test]
fn a_public_url_that_does_not_answer_is_a_warning() {
    let root = tempfile::tempdir().unwrap();
    let (status, report) = check(&config_file(root.path(), &base(&root.path().join("data"), "")), &[]);
    assert_eq!(status, 0, "nothing else is wrong: {report}");
    assert!(!report.lines().any(|l| l.starts_with("error")), "{report}");
    finding(&report, "ok", "http.public_url", &[]);
    finding(&report, "warning", "http.reachable", &["does not answer", "Fix:", "reverse proxy"]);
}

#[test]
fn a_postgresql_url_that_does_not_connect_is_an_error() {
    if std::env::var_os("PGSTACK_URL").is_none() {
        eprintln!("skipped: PGSTACK_URL is not set (no test PostgreSQL)");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let url = format!("postgres://fairsteward:sekrit@127.0.0.1:{}/postgres", closed_port());
    let text = base(&root.path().join("data"), &format!("database = {url:?}"));
    let (status, report) = check(&config_file(root.path(), &text), &[]);
    assert_eq!(status, 1, "{report}");
    finding(&report, "error", "store", &["PostgreSQL", "Fix:"]);
    assert!(!report.contains("sekrit"), "the password is never printed: {report}");
}

/// A temporary directory with nothing in it, by its real path (a command run
/// in it names the directory as the system sees it).
fn empty_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    (dir, real)
}

/// Whether this machine has the system configuration file (the Debian
/// package's): a command without flags would read it, so those tests skip.
fn system_config_present() -> bool {
    let present = Path::new("/etc/fairsteward/fairsteward.toml").exists();
    if present {
        eprintln!("skipped: /etc/fairsteward/fairsteward.toml exists here and would be read");
    }
    present
}

#[test]
fn operator_token_refuses_a_directory_without_a_store_unless_told_to_create() {
    if system_config_present() {
        return;
    }
    let (_keep, dir) = empty_dir();
    let out = fairsteward(&dir, &["operator-token"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "refused: {stderr}");
    assert!(out.stdout.is_empty(), "no token printed");
    let data = dir.join("fairsteward-data");
    for needed in [
        path(&data),
        "no steward.db",
        "configuration file read: none",
        "--data-dir",
        "FAIRSTEWARD_DATA_DIR",
        "--config",
        "fairsteward serve",
        "--create",
    ] {
        assert!(stderr.contains(needed), "{needed:?} in {stderr}");
    }
    assert!(!data.exists(), "no data directory made");

    let out = fairsteward(&dir, &["operator-token", "--create"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(printed.trim().len(), 64, "{printed}");
    let file = data.join("operator-token");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), printed.trim());
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    // Made once, printed as it is from then on, without --create.
    let again = fairsteward(&dir, &["operator-token"], &[]);
    assert_eq!(String::from_utf8_lossy(&again.stdout), printed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_environment_names_the_served_data_directory_and_its_token_opens_the_api() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let steward = common::Steward::start(&data).await;
    let (_keep, elsewhere) = empty_dir();
    let mut env = backend::database_env(&data);
    env.push(("FAIRSTEWARD_DATA_DIR", path(&data).to_owned()));
    let by_env = {
        let (elsewhere, env) = (elsewhere.clone(), env.clone());
        tokio::task::spawn_blocking(move || fairsteward(&elsewhere, &["operator-token"], &env)).await.unwrap()
    };
    assert!(by_env.status.success(), "{}", String::from_utf8_lossy(&by_env.stderr));
    let token = String::from_utf8(by_env.stdout).unwrap().trim().to_owned();
    assert_eq!(token, steward.operator, "the token the steward uses");
    let body = json!({"variant": "chess", "seats": [
        {"name": "Alice", "email": "alice@example.org"}, {"name": "Bob", "email": "bob@example.org"}]});
    steward.api().anonymous().post_json("/api/games", Some(&token), &body).await.ok(201);

    // FAIRSTEWARD_CONFIG naming a file whose data_dir is the steward's.
    let file = config_file(root.path(), &format!("data_dir = {:?}\n", path(&data)));
    let mut env = backend::database_env(&data);
    env.push(("FAIRSTEWARD_CONFIG", path(&file).to_owned()));
    let (by_file, checked) = {
        let (elsewhere, env) = (elsewhere.clone(), env.clone());
        tokio::task::spawn_blocking(move || {
            (
                fairsteward(&elsewhere, &["operator-token"], &env),
                fairsteward(&elsewhere, &["check", "--timeout", "10"], &env),
            )
        })
        .await
        .unwrap()
    };
    assert_eq!(String::from_utf8_lossy(&by_file.stdout).trim(), token, "{}", String::from_utf8_lossy(&by_file.stderr));
    let report = String::from_utf8_lossy(&checked.stdout);
    finding(&report, "ok", "config", &[&format!("read {}", path(&file))]);
    finding(&report, "ok", "data_dir", &[path(&data)]);
    finding(&report, "ok", "store", &["schema version"]);
    assert!(!elsewhere.join("fairsteward-data").exists(), "nothing made where the commands ran");
    drop(steward);
}

#[test]
fn commands_on_an_existing_store_refuse_a_directory_without_one() {
    if system_config_present() {
        return;
    }
    let (_keep, dir) = empty_dir();
    let data = dir.join("fairsteward-data");
    for (args, code) in [
        (&["game", "show", "g1"][..], 2),
        (&["backup", "copy.db"][..], 1),
        (&["sweep"][..], 1),
        (&["keys", "rotate"][..], 1),
        (&["ingest"][..], 75),
    ] {
        let out = fairsteward(&dir, args, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "fairsteward {args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        for needed in [path(&data), "no steward store", "FAIRSTEWARD_DATA_DIR"] {
            assert!(stderr.contains(needed), "fairsteward {args:?}: {needed:?} in {stderr}");
        }
    }
    assert!(!data.exists() && !dir.join("copy.db").exists(), "nothing made");
}
