//! The in-process steward harness shared by the HTTP integration tests.
//!
//! A [`Server`] is `fairsteward::server::serve` on a loopback port with its own
//! temporary data directory (or a given one) and a oneshot shutdown; [`Api`]
//! talks to it with reqwest as a player would; [`Answer`] checks the answers;
//! [`eventually`] polls; [`spool_files`] and [`parse_mail`] read what the
//! steward spools. The other helpers are the submodules below.

pub mod backend; // issue 35
pub mod dame_game;
pub mod dreierschach_game;
pub mod in_process;
pub mod leak;
pub mod mailstack;
pub mod oracle_ply;
pub mod oracle_run;
pub mod perft_data;
pub mod pipe;
pub mod rules_cli;
pub mod stewards; // issue 35
pub mod table;
pub mod transcript;
pub mod web;
pub mod webdriver;
pub mod xorshift;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use fairsteward::config::{Config, Overrides, RawConfig, RawHttp};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The default sender's domain, part of every Message-ID.
pub const MAIL_DOMAIN: &str = "steward.example";

// ---------------------------------------------------------------------------
// A steward on a loopback port
// ---------------------------------------------------------------------------

/// A running steward; it shuts down when dropped (the shutdown sender goes away).
pub struct Server {
    pub base: String,
    pub client: reqwest::Client,
    pub config: Config,
    /// The operator token (`POST /api/games` needs it).
    pub operator: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), fairsteward::server::ServerError>>>,
    _dir: Option<tempfile::TempDir>,
}

impl Server {
    /// A steward with its own temporary data directory.
    pub async fn start() -> Server {
        let dir = tempfile::tempdir().expect("a temporary data directory");
        let mut s = Server::start_in(dir.path()).await;
        s._dir = Some(dir);
        s
    }

    /// A steward on `data_dir` (which outlives it, so a second one can take over).
    pub async fn start_in(data_dir: &Path) -> Server {
        Server::start_with(data_dir, fairsteward::clock::Clock::System).await
    }

    /// A steward with its own temporary data directory that takes the time
    /// from `clock` (a manual clock the test moves).
    pub async fn start_at(clock: fairsteward::clock::Clock) -> Server {
        let dir = tempfile::tempdir().expect("a temporary data directory");
        let mut s = Server::start_with(dir.path(), clock).await;
        s._dir = Some(dir);
        s
    }

    async fn start_with(data_dir: &Path, clock: fairsteward::clock::Clock) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind a loopback port");
        let addr = listener.local_addr().unwrap();
        let raw = RawConfig {
            http: RawHttp { public_url: Some(format!("http://{addr}")), ..RawHttp::default() },
            ..RawConfig::default()
        };
        let overrides = Overrides {
            data_dir: Some(data_dir.to_owned()),
            listen: Some(addr.to_string()),
            database: backend::database_for(data_dir),
        };
        let mut config = Config::from_raw(raw, &overrides).expect("a valid configuration");
        config.clock = clock;
        // The token serve would make at its start, made (or read) the same way
        // now, so the first request can carry it.
        let operator = fairsteward::server::operator_token(&config).expect("the operator token").reveal().to_owned();
        let (stop, stopped) = oneshot::channel::<()>();
        let shutdown = async move {
            let _ = stopped.await;
        };
        let task = tokio::spawn(fairsteward::server::serve(config.clone(), listener, shutdown));
        start_up_swept(&format!("http://{addr}")).await;
        Server {
            base: format!("http://{addr}"),
            client: client(),
            config,
            operator,
            stop: Some(stop),
            task: Some(task),
            _dir: None,
        }
    }

    /// Shuts the steward down and waits until it has.
    pub async fn shut_down(mut self) {
        drop(self.stop.take());
        let task = self.task.take().unwrap();
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("the steward shuts down within 10 s")
            .expect("the serve task does not panic")
            .expect("the steward serves and stops without error");
    }

    /// A client of this steward (it creates games with the operator token).
    pub fn api(&self) -> Api {
        Api { base: self.base.clone(), client: self.client.clone(), operator: Some(self.operator.clone()) }
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Answer {
        self.api().get(path, token).await
    }

    /// Posts `body` as `application/json` (whether or not it is valid JSON).
    pub async fn post(&self, path: &str, token: Option<&str>, body: impl Into<Vec<u8>>) -> Answer {
        self.api().post(path, token, body).await
    }

    pub async fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> Answer {
        self.api().post_json(path, token, body).await
    }

    /// The game as `token` (or the public) sees it; must be 200.
    pub async fn game(&self, id: &str, token: Option<&str>) -> Value {
        self.api().game(id, token).await
    }

    /// Sends the JSON move `text` for `turn`.
    pub async fn mv(&self, id: &str, token: &str, turn: u32, text: &str) -> Answer {
        self.post_json(&format!("/api/games/{id}/moves"), Some(token), &json!({"turn": turn, "move": text})).await
    }
}

/// An HTTP client for the tests: no proxy, a generous timeout (pictures take a while).
pub fn client() -> reqwest::Client {
    // reqwest speaks TLS through rustls with ring; the provider is chosen once per process.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(30)).build().expect("an HTTP client")
}

/// A JSON-speaking or envelope-speaking client of one steward.
#[derive(Clone)]
pub struct Api {
    pub base: String,
    pub client: reqwest::Client,
    /// The operator token, sent on `POST /api/games` when no other token is
    /// given (as the operator who invites the players would).
    pub operator: Option<String>,
}

impl Api {
    /// This client without the operator token.
    pub fn anonymous(&self) -> Api {
        Api { operator: None, ..self.clone() }
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Answer {
        send(&self.client, format!("{}{path}", self.base), reqwest::Method::GET, token, None).await
    }

    /// Posts `body` as `application/json` (whether or not it is valid JSON).
    /// Creating a game (`/api/games`) without a token sends the operator token.
    pub async fn post(&self, path: &str, token: Option<&str>, body: impl Into<Vec<u8>>) -> Answer {
        let token = match (token, path) {
            (None, "/api/games") => self.operator.as_deref(),
            _ => token,
        };
        let body = Some(("application/json", body.into()));
        send(&self.client, format!("{}{path}", self.base), reqwest::Method::POST, token, body).await
    }

    pub async fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> Answer {
        self.post(path, token, body.to_string()).await
    }

    /// Posts envelope text as `text/plain`.
    pub async fn post_text(&self, path: &str, token: Option<&str>, text: &str) -> Answer {
        let body = Some(("text/plain; charset=utf-8", text.as_bytes().to_vec()));
        send(&self.client, format!("{}{path}", self.base), reqwest::Method::POST, token, body).await
    }

    pub async fn game(&self, id: &str, token: Option<&str>) -> Value {
        self.get(&format!("/api/games/{id}"), token).await.ok(200)
    }
}

/// Sends one request (a bearer `token` and a body of the given content type when
/// given) and reads the whole answer.
pub async fn send(
    client: &reqwest::Client,
    url: String,
    method: reqwest::Method,
    token: Option<&str>,
    body: Option<(&str, Vec<u8>)>,
) -> Answer {
    let mut req = client.request(method, &url);
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    if let Some((content_type, b)) = body {
        req = req.header("Content-Type", content_type).body(b);
    }
    let resp = req.send().await.unwrap_or_else(|e| panic!("request to {url}: {e}"));
    let header = |name: &str| resp.headers().get(name).map(|v| v.to_str().unwrap().to_owned());
    let content_type = header("content-type").unwrap_or_default();
    let cache_control = header("cache-control").unwrap_or_default();
    let www_authenticate = header("www-authenticate");
    let status = resp.status().as_u16();
    let body = resp.bytes().await.expect("a readable body").to_vec();
    let text = String::from_utf8_lossy(&body).into_owned();
    Answer { status, content_type, cache_control, www_authenticate, body, text }
}

// ---------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------

/// An answer: status, the headers the tests look at, the body and its text.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub cache_control: String,
    pub www_authenticate: Option<String>,
    pub body: Vec<u8>,
    /// The body as text (lossy for binary bodies).
    pub text: String,
}

impl Answer {
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("answer {} is not JSON ({e}): {}", self.status, self.text))
    }

    /// The JSON body of a success with `status`.
    #[track_caller]
    pub fn ok(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "expected {status}, got {}: {}", self.status, self.text);
        assert!(self.content_type.starts_with("application/json"), "content type {:?}", self.content_type);
        self.json()
    }

    /// Checks an error answer: the status, `{"error": code, "message": ...}` and
    /// nothing else, with a message long enough to help (over 20 bytes). Returns
    /// the message.
    #[track_caller]
    pub fn error(&self, status: u16, code: &str) -> String {
        self.error_longer_than(status, code, 20)
    }

    /// As [`Answer::error`], with a message of more than `min` bytes.
    #[track_caller]
    pub fn error_longer_than(&self, status: u16, code: &str, min: usize) -> String {
        assert_eq!(self.status, status, "expected {status} {code}, got {}: {}", self.status, self.text);
        assert!(
            self.content_type.starts_with("application/json"),
            "content type {:?}: {}",
            self.content_type,
            self.text
        );
        let v = self.json();
        let obj = v.as_object().unwrap_or_else(|| panic!("error body is an object: {v}"));
        assert_eq!(obj.len(), 2, "an error has exactly error and message: {v}");
        assert_eq!(v["error"], code, "error code: {v}");
        let message = v["message"].as_str().unwrap_or_else(|| panic!("message is text: {v}")).to_owned();
        assert!(message.len() > min, "a helpful message: {message:?}");
        message
    }
}

// ---------------------------------------------------------------------------
// Waiting and the spool
// ---------------------------------------------------------------------------

/// Polls `check` every 25 ms until it returns `Some`, for at most 10 s.
pub async fn eventually<T>(what: &str, check: impl FnMut() -> Option<T>) -> T {
    eventually_within(Duration::from_secs(10), what, check).await
}

/// Polls `check` every 25 ms until it returns `Some`, for at most `limit`.
pub async fn eventually_within<T>(limit: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out after {} s waiting for {what}", limit.as_secs());
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Waits until the steward serving `base` has run its start-up sweep, read
/// off its `/metrics` (served to loopback clients): since issue 37 that sweep
/// runs beside the first requests, and a test that moves the clock, sweeps
/// itself or reads what the sweep settles must not race it.
pub async fn start_up_swept(base: &str) {
    let client = client();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = client.get(format!("{base}/metrics")).send().await
            && let Ok(text) = r.text().await
            && text.lines().any(|l| {
                l.strip_prefix("fairsteward_sweep_duration_seconds_count ")
                    .and_then(|n| n.trim().parse::<f64>().ok())
                    .is_some_and(|n| n >= 1.0)
            })
        {
            return;
        }
        assert!(Instant::now() < deadline, "the steward at {base} did not finish its start-up sweep within 60 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `fairsteward sweep --now T` (the real binary) on `data_dir`: the report it prints.
pub fn sweep(data_dir: &Path, at: chrono::DateTime<chrono::Utc>) -> Value {
    sweep_with(data_dir, &[], at)
}

/// [`sweep`] with more arguments for the command (say, `--config FILE`).
pub fn sweep_with(data_dir: &Path, args: &[&std::ffi::OsStr], at: chrono::DateTime<chrono::Utc>) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .arg("sweep")
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .envs(backend::database_env(data_dir))
        .args(["--now", &at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)])
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "sweep --now {at} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("sweep printed no JSON ({e}): {stdout}"))
}

/// The operator token a steward made in `data_dir` (the default
/// `operator-token` file): what `fairsteward operator-token` prints.
pub fn operator_token(data_dir: &Path) -> String {
    let path = data_dir.join("operator-token");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the operator token {}: {e}", path.display()))
        .trim()
        .to_owned()
}

/// Whether `text` has `word` as a whole word (between characters other than
/// letters and digits): `5254` in a chess answer, not inside a hash's hex.
pub fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == word)
}

/// The `.eml` files of a spool directory, by file name.
pub fn spool_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return BTreeMap::new() };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// The text of an answer mail to `who` that contains `needle`, once spooled
/// (white space made single, so that wrapped lines read as one).
pub async fn answer_containing(spool: &Path, who: &str, needle: &str) -> String {
    eventually(&format!("an answer to {who} with {needle:?}"), || {
        spool_files(spool)
            .into_iter()
            .filter(|(n, b)| n.contains("answer") && String::from_utf8_lossy(b).contains(who))
            .map(|(_, b)| parse_mail(&b).text("text/plain").split_whitespace().collect::<Vec<_>>().join(" "))
            .find(|t| t.contains(needle))
    })
    .await
}

/// Pipes one raw mail into `fairsteward ingest --data-dir data_dir` (the MTA
/// pipe); returns its stdout line (`accepted: move`, `refused: illegal_move`, …).
pub fn ingest(data_dir: &Path, mail: &str) -> String {
    let data = data_dir.display().to_string();
    let out = pipe::fairsteward(&["ingest", "--data-dir", &data], mail.as_bytes());
    assert!(out.status.success(), "ingest failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

// ---------------------------------------------------------------------------
// A small RFC 5322 / MIME reader (enough to check what the steward writes)
// ---------------------------------------------------------------------------

/// A leaf part of a mail.
pub struct Part {
    /// The content type, lower case, without parameters.
    pub kind: String,
    /// The Content-ID without its angle brackets.
    pub content_id: Option<String>,
    /// The content with its transfer encoding undone.
    pub content: Vec<u8>,
    /// Of a text part: the content as text, lines ending in LF; else empty.
    pub text: String,
}

/// A parsed message: headers in order (names as written), the decoded text
/// body (of a multipart mail: its first text/plain part) and every leaf part.
pub struct Mail {
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The leaf parts, depth first.
    pub parts: Vec<Part>,
}

impl Mail {
    /// The single value of a header (case-insensitive name); panics when absent
    /// or repeated.
    #[track_caller]
    pub fn header(&self, name: &str) -> &str {
        let found: Vec<&str> =
            self.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str()).collect();
        assert_eq!(found.len(), 1, "exactly one {name} header in {:?}", self.headers);
        found[0]
    }

    /// The content types of the leaf parts, in order; the PGP/MIME signature
    /// every steward mail carries (issue 33) is left out: it wraps the content.
    pub fn kinds(&self) -> Vec<&str> {
        self.parts.iter().map(|p| p.kind.as_str()).filter(|k| *k != "application/pgp-signature").collect()
    }

    /// The text of the first part of type `kind`; panics when there is none.
    #[track_caller]
    pub fn text(&self, kind: &str) -> String {
        self.parts.iter().find(|p| p.kind == kind).unwrap_or_else(|| panic!("a {kind} part")).text.clone()
    }

    /// Every decoded part, joined: what a reader of any part could see.
    pub fn all_text(&self) -> String {
        self.parts.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n")
    }
}

/// Parses `bytes` as an RFC 5322 message, asserting the syntax on the way:
/// ASCII only, CRLF line ends, lines of at most 998 characters, header fields
/// `name: value` with folded continuations, an empty line before the body, a
/// text/plain part.
#[track_caller]
pub fn parse_mail(bytes: &[u8]) -> Mail {
    assert!(bytes.is_ascii(), "a mail is 7-bit ASCII");
    let text = std::str::from_utf8(bytes).unwrap();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            assert!(i > 0 && bytes[i - 1] == b'\r', "bare LF at byte {i}");
        }
        if *b == b'\r' {
            assert_eq!(bytes.get(i + 1), Some(&b'\n'), "bare CR at byte {i}");
        }
    }
    let (head, body) = text.split_once("\r\n\r\n").expect("an empty line between header and body");
    for line in body.split("\r\n") {
        assert!(line.len() <= 998, "body line too long: {line}");
    }
    let headers = parse_header_fields(head);
    let parts = mime_leaves(&headers, body);
    let body = parts.iter().find(|p| p.kind == "text/plain").map(|p| p.text.clone()).expect("a text/plain part");
    Mail { headers, body, parts }
}

#[track_caller]
fn parse_header_fields(head: &str) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.split("\r\n") {
        assert!(line.len() <= 998, "header line too long: {line}");
        if line.starts_with([' ', '\t']) {
            let last = headers.last_mut().expect("a continuation follows a header field");
            last.1.push(' ');
            last.1.push_str(line.trim());
        } else {
            let (name, value) = line.split_once(':').unwrap_or_else(|| panic!("not a header field: {line:?}"));
            assert!(
                !name.is_empty() && name.bytes().all(|b| (33..=126).contains(&b) && b != b':'),
                "bad field name {name:?}"
            );
            headers.push((name.to_owned(), value.trim().to_owned()));
        }
    }
    headers
}

/// The leaf parts of a MIME entity, depth first, decoded.
#[track_caller]
fn mime_leaves(headers: &[(String, String)], body: &str) -> Vec<Part> {
    let field = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
    let content_type = field("Content-Type").unwrap_or_else(|| "text/plain".to_owned());
    let kind = content_type.split(';').next().unwrap().trim().to_ascii_lowercase();
    if kind.starts_with("multipart/") {
        let boundary = content_type
            .split(';')
            .find_map(|p| p.trim().strip_prefix("boundary="))
            .unwrap_or_else(|| panic!("a boundary in {content_type}"))
            .trim_matches('"')
            .to_owned();
        let delimiter = format!("\r\n--{boundary}");
        let body = format!("\r\n{body}");
        let (_preamble, rest) = body.split_once(&delimiter).expect("a first boundary");
        let mut leaves = Vec::new();
        for section in rest.split(&delimiter) {
            if section.starts_with("--") {
                break;
            }
            let section = section.strip_prefix("\r\n").expect("a line break after the boundary");
            let (head, part) = section.split_once("\r\n\r\n").unwrap_or((section, ""));
            leaves.extend(mime_leaves(&parse_header_fields(head), part));
        }
        return leaves;
    }
    let content_id = field("Content-ID").map(|v| v.trim_matches(['<', '>']).to_owned());
    let content = match field("Content-Transfer-Encoding").map(|v| v.to_ascii_lowercase()).as_deref() {
        None | Some("7bit" | "8bit") => body.as_bytes().to_vec(),
        Some("quoted-printable") => decode_quoted_printable(body),
        Some("base64") => {
            use base64::Engine as _;
            let joined: String = body.split_whitespace().collect();
            base64::engine::general_purpose::STANDARD.decode(joined).expect("valid base64 body")
        }
        Some(other) => panic!("unexpected Content-Transfer-Encoding {other}"),
    };
    let text = if kind.starts_with("text/") {
        String::from_utf8(content.clone()).expect("a UTF-8 body").replace("\r\n", "\n")
    } else {
        String::new()
    };
    vec![Part { kind, content_id, content, text }]
}

fn decode_quoted_printable(text: &str) -> Vec<u8> {
    let (bytes, mut out, mut i) = (text.as_bytes(), Vec::new(), 0);
    while i < bytes.len() {
        if bytes[i] == b'=' {
            if !bytes[i + 1..].starts_with(b"\r\n") {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).expect("a quoted-printable escape"));
            }
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The real binary as a child process, its log read as it comes
// ---------------------------------------------------------------------------

/// `fairsteward serve` on `data_dir` and a loopback port, with `RUST_LOG=debug`;
/// its stderr is collected line by line. The child is killed when this is
/// dropped, however the test ends.
pub struct Steward {
    child: std::process::Child,
    reader: Option<std::thread::JoinHandle<()>>,
    lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    pub addr: std::net::SocketAddr,
    /// The operator token the child made (or found) in its data directory.
    pub operator: String,
}

impl Steward {
    /// Starts the binary and waits for the line that says where it listens.
    pub async fn start(data_dir: &Path) -> Steward {
        Steward::start_with(data_dir, &[]).await
    }

    /// [`Steward::start`] with more arguments for `serve` (say, `--config FILE`).
    pub async fn start_with(data_dir: &Path, args: &[&std::ffi::OsStr]) -> Steward {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let mut child = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
            .args(["serve", "--data-dir"])
            .arg(data_dir)
            .envs(backend::database_env(data_dir))
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the fairsteward binary starts");
        let stderr = child.stderr.take().unwrap();
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let reader = {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(stderr).lines() {
                    match line {
                        Ok(l) => lines.lock().unwrap().push(l),
                        Err(_) => break,
                    }
                }
            })
        };
        let mut s =
            Steward { child, reader: Some(reader), lines, addr: ([127, 0, 0, 1], 0).into(), operator: String::new() };
        s.addr = eventually("the listening line on stderr", || {
            s.lines.lock().unwrap().iter().find_map(|l| {
                let rest = l.split("listening on http://").nth(1)?;
                rest.split_whitespace().next()?.trim_end_matches(|c: char| !c.is_ascii_digit()).parse().ok()
            })
        })
        .await;
        s.operator = operator_token(data_dir);
        start_up_swept(&format!("http://{}", s.addr)).await;
        s
    }

    /// A client of the child (it creates games with the operator token).
    pub fn api(&self) -> Api {
        Api { base: format!("http://{}", self.addr), client: client(), operator: Some(self.operator.clone()) }
    }

    /// The child's process id (for its `/proc/<pid>/status`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The log so far, lines joined with LF.
    pub fn log(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    /// How many lines of the log so far contain `needle`.
    pub fn count(&self, needle: &str) -> usize {
        self.lines.lock().unwrap().iter().filter(|l| l.contains(needle)).count()
    }

    /// Sends SIGTERM and waits (at most `limit`) for the child to exit; its
    /// exit status and how long the stop took.
    pub fn terminate(&mut self, limit: Duration) -> (std::process::ExitStatus, Duration) {
        let start = Instant::now();
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        let sent = unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        assert_eq!(sent, 0, "SIGTERM sent");
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status, start.elapsed());
            }
            assert!(start.elapsed() < limit, "the steward did not stop within {} s of SIGTERM", limit.as_secs());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the child and reads its log to the end.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
    }
}

impl Drop for Steward {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The fenced blocks of a Markdown text, each as its lines with a final
/// newline (what a file shown verbatim in the docs must equal).
pub fn fenced_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match current.as_mut() {
            None if line.starts_with("```") => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    blocks
}
