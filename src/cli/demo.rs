//! `fairsteward demo`: watch the steward referee a short game, the headline
//! variant's tour ([`VariantId::tour`]: its moves and their story belong to the
//! variant).
//!
//! A steward runs in-process on a fresh temporary directory, with its HTTP API on
//! 127.0.0.1 and an unused port (never another interface). The tour's players
//! play it through the real API — create the game, then every seat posts its
//! moves with its own token — and after each turn the demo waits for the
//! steward's board mails in the spool and prints them.
//!
//! Each turn's statuses and the end of the game are checked against what the
//! steward answers; any difference is an error (exit status 1). Apart from the
//! game id and the times, the output is the same on every run.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use base64::Engine;
use clap::Args;
use serde_json::{Value, json};

use crate::config::{Config, Overrides, RawConfig, RawHttp};
use crate::rules::{Options, VariantId};

/// `fairsteward demo`.
#[derive(Debug, Args)]
#[command(after_help = "The steward listens on 127.0.0.1 (an unused port) only while the demo runs, and \
                        its data directory is a fresh temporary directory, removed at the end unless --keep \
                        is given. Mails link to http://demo.fairsteward.invalid, since the demo's steward is \
                        gone when it ends. Exit status 0 when the game went as scripted, 1 otherwise.")]
pub struct DemoArgs {
    /// Keep the temporary data directory (database and spool) and print its path
    /// on stderr at the end.
    #[arg(long)]
    keep: bool,
}

/// The URL the demo's mails link to (the demo's own port changes from run to run).
const PUBLIC_URL: &str = "http://demo.fairsteward.invalid";

/// How long to wait for one HTTP answer or one turn's mails.
const PATIENCE: Duration = Duration::from_secs(15);

/// Writes a line on stdout; a closed pipe (`| head`) is not worth a panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// A fresh temporary directory, removed when dropped unless kept.
struct TempDir {
    path: PathBuf,
    keep: bool,
}

impl TempDir {
    fn new(keep: bool) -> anyhow::Result<TempDir> {
        let base = std::env::temp_dir();
        for _ in 0..16 {
            let path = base.join(format!("fairsteward-demo-{}-{}", std::process::id(), crate::ids::GameId::random()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path, keep }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e).with_context(|| format!("cannot create a directory in {}", base.display())),
            }
        }
        bail!("cannot find an unused directory name in {}", base.display())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if self.keep {
            eprintln!("fairsteward: the demo's data directory is kept: {}", self.path.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Runs the demo.
///
/// # Errors
/// The steward could not start, or the game did not go as scripted.
pub fn run(args: &DemoArgs) -> anyhow::Result<()> {
    // The demo's addresses are placeholders by design: warning about them would be noise.
    super::init_logging_at("warn,fairsteward::config::placeholders=off");
    let dir = TempDir::new(args.keep)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(demo(&dir.path))
}

/// Starts the steward on `data_dir`, plays the script against it, stops it.
async fn demo(data_dir: &Path) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .await
        .context("cannot listen on 127.0.0.1")?;
    let addr = listener.local_addr()?;
    let raw = RawConfig {
        http: RawHttp { public_url: Some(PUBLIC_URL.to_owned()), ..RawHttp::default() },
        ..RawConfig::default()
    };
    let config = Config::from_raw(
        raw,
        &Overrides { data_dir: Some(data_dir.to_path_buf()), listen: Some(addr.to_string()), database: None },
    )?;
    let spool = config.spool_dir.clone();
    // The demo creates its game as the operator would: with the operator token.
    let operator = crate::server::operator_token(&config)?.reveal().to_owned();
    let (stop, stop_signal) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(crate::server::serve(config, listener, async move {
        let _ = stop_signal.await;
    }));
    let played = play(&format!("http://{addr}"), &spool, &operator).await;
    // Stop the steward whatever happened, and wait until it has drained and closed.
    let _ = stop.send(());
    let stopped = match server.await {
        Ok(r) => r.context("the steward failed"),
        Err(e) => Err(anyhow!("the steward stopped abnormally: {e}")),
    };
    match (played, stopped) {
        // A steward that could not run explains a failed game better than the game does.
        (_, Err(e)) => Err(e),
        (played, Ok(())) => played,
    }
}

/// The HTTP client of the two players.
struct Players {
    http: reqwest::Client,
    base: String,
}

impl Players {
    /// Sends a request and reads the JSON answer; a status other than `expect` is
    /// an error naming the steward's message.
    async fn call(&self, request: reqwest::RequestBuilder, what: &str, expect: u16) -> anyhow::Result<Value> {
        let response = request.send().await.with_context(|| format!("{what}: no answer from the steward"))?;
        let status = response.status();
        let body: Value = response.json().await.with_context(|| format!("{what}: the answer is not JSON"))?;
        if status.as_u16() != expect {
            let message = body.get("message").and_then(Value::as_str).unwrap_or("no message");
            bail!("{what}: the steward answered {status}: {message}");
        }
        Ok(body)
    }

    async fn game(&self, id: &str) -> anyhow::Result<Value> {
        self.call(self.http.get(format!("{}/api/games/{id}", self.base)), "reading the game", 200).await
    }
}

/// Plays the tour against the steward at `base`, printing the mails from `spool`.
async fn play(base: &str, spool: &Path, operator: &str) -> anyhow::Result<()> {
    let tour = VariantId::tour();
    let rules = tour.variant.rulebook(&Options::new())?;
    let seat_names: Vec<String> = rules.seat_names().iter().map(|n| capitalized(n)).collect();
    let turn_word = capitalized(tour.turn_word);
    let players = Players {
        http: reqwest::Client::builder()
            .timeout(PATIENCE)
            .no_proxy()
            .build()
            .context("cannot build the HTTP client")?,
        base: base.to_owned(),
    };
    say!("Fairsteward demo: a steward on a temporary directory, its HTTP API on 127.0.0.1, mail to the spool.");
    let who: Vec<String> =
        tour.players.iter().zip(&seat_names).map(|((name, _), seat)| format!("{name} ({seat})")).collect();
    say!("{} play {} {}s of {} through the API.", who.join(" and "), tour.turns.len(), tour.turn_word, tour.title);
    say!();

    let seats: Vec<Value> = tour.players.iter().map(|(name, email)| json!({"name": name, "email": email})).collect();
    let created = players
        .call(
            players
                .http
                .post(format!("{base}/api/games"))
                .bearer_auth(operator)
                .json(&json!({"variant": tour.variant.name(), "seats": seats})),
            "creating the game",
            201,
        )
        .await?;
    let id = created["game"]["id"].as_str().context("the created game has no id")?.to_owned();
    let tokens: Vec<String> = created["tokens"]
        .as_array()
        .context("the created game has no tokens")?
        .iter()
        .map(|t| t["token"].as_str().map(str::to_owned).context("a seat token is missing"))
        .collect::<anyhow::Result<_>>()?;
    if tokens.len() != tour.players.len() {
        bail!("the steward handed out {} tokens for {} seats", tokens.len(), tour.players.len());
    }
    say!("POST /api/games created game {id}; each seat got its secret token, shown only this once.");
    print_mails(spool, &format!("{id}.0."), "started", tour.players.len()).await?;

    for (n, script) in tour.turns.iter().enumerate() {
        let turn = n + 1;
        let mut resolved = false;
        for (seat, mv) in script.moves.iter().enumerate() {
            if resolved {
                bail!(
                    "{} {turn}: the steward resolved the turn before {}'s move was in",
                    tour.turn_word,
                    seat_names[seat]
                );
            }
            let receipt = players
                .call(
                    players
                        .http
                        .post(format!("{base}/api/games/{id}/moves"))
                        .bearer_auth(&tokens[seat])
                        .json(&json!({"turn": turn, "move": mv})),
                    &format!("{} {turn}: {} {mv}", tour.turn_word, tour.players[seat].0),
                    200,
                )
                .await?;
            resolved = receipt["resolved"].as_bool().unwrap_or(false);
        }
        if !resolved {
            bail!("{} {turn}: every move is in, but the steward did not resolve the turn", tour.turn_word);
        }
        let game = players.game(&id).await?;
        let history = game["history"].as_array().context("the game has no history")?;
        let done = history
            .iter()
            .find(|t| t["turn"].as_u64() == Some(turn as u64))
            .with_context(|| format!("{} {turn} is not in the game's history", tour.turn_word))?;
        let moves = done["moves"].as_array().context("a resolved turn without moves")?;
        let status = |i: usize| moves.get(i).and_then(|m| m["status"].as_str()).unwrap_or("none");
        let san = |i: usize| moves.get(i).and_then(|m| m["move"].as_str()).unwrap_or("?");
        let fate = |i: usize| match moves.get(i).and_then(|m| m["reason"].as_str()) {
            Some(why) => format!("{} ({why})", status(i)),
            None => status(i).to_owned(),
        };
        let seats = 0..script.moves.len();
        let given: Vec<&str> = seats.clone().map(status).collect();
        if given != script.statuses {
            let line = |f: &dyn Fn(usize) -> String| seats.clone().map(f).collect::<Vec<_>>().join(", ");
            bail!(
                "{} {turn}: expected {}; the steward says {}",
                tour.turn_word,
                line(&|i| format!("{} {} {}", seat_names[i], script.moves[i], script.statuses[i])),
                line(&|i| format!("{} {} {}", seat_names[i], san(i), status(i))),
            );
        }
        say!();
        let played: Vec<String> = seats.clone().map(|i| format!("{} {}", seat_names[i], san(i))).collect();
        say!("== {turn_word} {turn}: {}", played.join(", "));
        for line in wrap(script.narration, 84) {
            say!("   {line}");
        }
        let fates: Vec<String> = seats.clone().map(|i| format!("{} {} - {}", seat_names[i], san(i), fate(i))).collect();
        let mut verdict = format!("   Steward: {}", fates.join(", "));
        if let Some(notes) = done["notes"].as_array() {
            for note in notes.iter().filter_map(Value::as_str) {
                verdict.push_str("; {");
                verdict.push_str(note);
                verdict.push('}');
            }
        }
        say!("{verdict}");
        print_mails(spool, &format!("{id}.{turn}."), "turn", tour.players.len()).await?;
    }

    let game = players.game(&id).await?;
    let outcome = &game["outcome"];
    let result = outcome["result"].as_str().unwrap_or("");
    let reason = outcome["reason"].as_str().unwrap_or("");
    if (result, reason) != tour.ending {
        bail!(
            "the game should have ended {} by {} after {} {turn}s; the steward says {outcome}",
            tour.ending.0,
            tour.ending.1,
            tour.turns.len(),
            turn = tour.turn_word
        );
    }
    let winner = outcome["winner"].as_str().unwrap_or("nobody");
    let player = game["seats"]
        .as_array()
        .and_then(|seats| seats.iter().find(|s| s["seat"].as_str() == Some(winner)))
        .and_then(|s| s["player"].as_str())
        .unwrap_or("?");
    say!();
    say!(
        "Final state: game {id} is over after {} {}s: {result} ({reason}), {} ({player}) wins.",
        tour.turns.len(),
        tour.turn_word,
        capitalized(winner)
    );
    say!("Final position: {}", game["state"].as_str().unwrap_or("?"));
    Ok(())
}

/// Waits until the spool holds `count` mails of `kind` whose Message-ID starts with
/// `prefix` (`<game>.<turn>.`), then prints them in seat order.
async fn print_mails(spool: &Path, prefix: &str, kind: &str, count: usize) -> anyhow::Result<()> {
    let marker = format!(".{kind}@");
    let started = Instant::now();
    let files = loop {
        let mut files: Vec<PathBuf> = match std::fs::read_dir(spool) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(prefix) && n.contains(&marker) && n.ends_with(".eml"))
                })
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read the spool {}", spool.display())),
        };
        if files.len() >= count {
            files.sort();
            break files;
        }
        if started.elapsed() > PATIENCE {
            bail!(
                "the spool {} holds {} of the {count} {kind} mails {prefix}* after {} s",
                spool.display(),
                files.len(),
                PATIENCE.as_secs()
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    for file in files {
        let raw = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
        let mail = Mail::parse(&raw).with_context(|| format!("{} is not a mail", file.display()))?;
        say!();
        say!("   --- To: {}", mail.to);
        say!("   --- Subject: {}", mail.subject);
        for line in mail.body.lines() {
            say!("   | {line}");
        }
    }
    Ok(())
}

/// The parts of a spooled mail the demo prints.
struct Mail {
    to: String,
    subject: String,
    body: String,
}

impl Mail {
    /// Reads an RFC 5322 message as the steward writes it (one text part, 7bit,
    /// quoted-printable or base64, or multipart with such a text/plain part).
    fn parse(raw: &[u8]) -> anyhow::Result<Mail> {
        let text = String::from_utf8_lossy(raw).replace("\r\n", "\n");
        let (headers, body) = entity(&text)?;
        let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        Ok(Mail {
            to: header("to").context("no To header")?,
            subject: header("subject").context("no Subject header")?,
            body: text_part(&headers, body)?.context("no text/plain part")?,
        })
    }
}

/// Splits an entity into its header fields (unfolded, names in lower case) and body.
fn entity(text: &str) -> anyhow::Result<(Vec<(String, String)>, &str)> {
    let (head, body) = text.split_once("\n\n").context("no blank line after the headers")?;
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = headers.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
        } else if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    Ok((headers, body))
}

/// The decoded first text/plain part of an entity (the entity itself if it is one).
fn text_part(headers: &[(String, String)], body: &str) -> anyhow::Result<Option<String>> {
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let content_type = header("content-type").unwrap_or_else(|| "text/plain".to_owned());
    let kind = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    if kind.starts_with("multipart/") {
        let boundary = content_type
            .split(';')
            .find_map(|p| p.trim().strip_prefix("boundary="))
            .context("a multipart mail without a boundary")?
            .trim_matches('"');
        let delimiter = format!("\n--{boundary}");
        for part in format!("\n{body}").split(&delimiter).skip(1) {
            if part.starts_with("--") {
                break;
            }
            let (headers, body) = entity(part.strip_prefix('\n').unwrap_or(part))?;
            if let Some(text) = text_part(&headers, body)? {
                return Ok(Some(text));
            }
        }
        return Ok(None);
    }
    if kind != "text/plain" {
        return Ok(None);
    }
    let encoding = header("content-transfer-encoding").unwrap_or_default().to_ascii_lowercase();
    Ok(Some(match encoding.as_str() {
        "base64" => {
            let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
            let bytes = base64::engine::general_purpose::STANDARD.decode(compact).context("bad base64 body")?;
            String::from_utf8_lossy(&bytes).replace("\r\n", "\n")
        }
        "quoted-printable" => quoted_printable(body),
        _ => body.to_owned(),
    }))
}

/// Decodes a quoted-printable body (soft line breaks, `=XX` escapes).
fn quoted_printable(text: &str) -> String {
    let joined = text.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `white` → `White`.
fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Breaks `text` into lines of at most `width` characters at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mails_are_read_in_every_transfer_encoding() {
        let plain =
            Mail::parse(b"To: Alice <a@x.org>\r\nSubject: Game 1\r\n  continued\r\n\r\nline one\r\nline two\r\n")
                .unwrap();
        assert_eq!((plain.to.as_str(), plain.subject.as_str()), ("Alice <a@x.org>", "Game 1 continued"));
        assert_eq!(plain.body, "line one\nline two\n");
        let qp = Mail::parse(
            b"To: a@x.org\r\nSubject: s\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nB=C3=B6rd =\r\nend\r\n",
        )
        .unwrap();
        assert_eq!(qp.body, "B\u{f6}rd end\n");
        let b64 =
            Mail::parse(b"To: a@x.org\r\nSubject: s\r\nContent-Transfer-Encoding: base64\r\n\r\naGVs\r\nbG8=\r\n")
                .unwrap();
        assert_eq!(b64.body, "hello");
        let multipart = Mail::parse(
            b"To: a@x.org\r\nSubject: s\r\nContent-Type: multipart/alternative;\r\n boundary=\"=_b\"\r\n\r\n--=_b\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nB=C3=B6rd\r\n--=_b\r\nContent-Type: text/html\r\n\r\n<p>html</p>\r\n--=_b--\r\n",
        )
        .unwrap();
        assert_eq!(multipart.body, "B\u{f6}rd");
    }

    #[test]
    fn narration_wraps_at_spaces() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert!(VariantId::tour().turns.iter().all(|p| wrap(p.narration, 84).iter().all(|l| l.len() <= 84)));
    }
}
