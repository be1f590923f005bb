//! The mail door through the MTA pipe: `fairsteward ingest` as a subprocess on a
//! temporary data directory, the spooled mails read back, and replies shaped by
//! the caller. Shared by the mail tests that play games wholly by mail.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Runs the binary with `args`, `stdin` piped in.
pub fn fairsteward(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .args(args)
        .envs(super::backend::database_env_of_args(args))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// A steward known only by its data directory; mail goes to its spool.
pub struct PipeSteward {
    _dir: tempfile::TempDir,
    /// The data directory.
    pub data: PathBuf,
}

impl PipeSteward {
    pub fn new() -> PipeSteward {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        PipeSteward { _dir: dir, data }
    }

    pub fn data_arg(&self) -> String {
        self.data.display().to_string()
    }

    /// `game new` with the variant, its options (`name=value`) and the seats
    /// (`Name <address>`); returns the game id.
    pub fn new_game(&self, variant: &str, options: &[&str], seats: &[&str]) -> String {
        let data = self.data_arg();
        let mut args = vec!["game", "new", "--data-dir", &data, "--variant", variant];
        for o in options {
            args.extend(["--option", o]);
        }
        for s in seats {
            args.extend(["--seat", s]);
        }
        let out = fairsteward(&args, b"");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["game"]["id"].as_str().unwrap().to_owned()
    }

    /// Pipes one mail into `ingest`; returns the exit code and its stdout line.
    pub fn ingest(&self, mail: &str) -> (i32, String) {
        let out = fairsteward(&["ingest", "--data-dir", &self.data_arg()], mail.as_bytes());
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    /// The spooled mails, file name and raw text, by name.
    pub fn spool(&self) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(self.data.join("spool"))
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
                    .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(e.path()).unwrap()))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    }

    /// The newest mail to `who` whose file name contains `kind` (highest turn).
    pub fn newest(&self, who: &str, kind: &str) -> String {
        self.spool()
            .into_iter()
            .filter(|(n, t)| n.contains(kind) && header(t, "To").contains(who))
            .max_by_key(|(n, _)| turn_of(n))
            .unwrap_or_else(|| {
                panic!("no {kind} mail to {who}: {:?}", self.spool().iter().map(|f| &f.0).collect::<Vec<_>>())
            })
            .1
    }

    /// The Reply-To address (the reply capability) of [`PipeSteward::newest`].
    pub fn reply_to(&self, who: &str, kind: &str) -> String {
        let r = header(&self.newest(who, kind), "Reply-To");
        let addr = r.rsplit_once('<').map_or(r.as_str(), |(_, a)| a.trim_end_matches('>')).to_owned();
        assert!(addr.starts_with("moves+"), "Reply-To {r:?}");
        addr
    }

    /// The answers to `who`, decoded, oldest first.
    pub fn answers_to(&self, who: &str) -> Vec<String> {
        self.spool()
            .into_iter()
            .filter(|(n, t)| n.contains(".answer-") && header(t, "To").contains(who))
            .map(|(_, t)| decode(&t))
            .collect()
    }

    /// Ingests `mail`, which must be handled as `outcome` (`refused: …`), and
    /// returns the one new answer to `who` beyond `seen` (which it joins).
    #[track_caller]
    pub fn answered(&self, mail: &str, who: &str, outcome: &str, seen: &mut Vec<String>) -> String {
        let (_, line) = self.ingest(mail);
        assert_eq!(line, outcome, "{mail}");
        let said = new_answer(seen, self.answers_to(who));
        seen.push(said.clone());
        said
    }

    /// `game show` as JSON.
    pub fn game(&self, id: &str) -> Value {
        let out = fairsteward(&["game", "show", "--data-dir", &self.data_arg(), id], b"");
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// The turn in a spooled mail's file name (`<game>.<turn>.…`).
pub fn turn_of(name: &str) -> u32 {
    name.split('.').nth(1).and_then(|t| t.parse().ok()).unwrap_or(0)
}

/// A header's (unfolded) value.
pub fn header(mail: &str, name: &str) -> String {
    let head = mail.split("\r\n\r\n").next().unwrap_or("");
    let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
    unfolded
        .lines()
        .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_owned()))
        .unwrap_or_default()
}

/// The text of a mail, with quoted-printable soft breaks and escapes undone.
pub fn decode(mail: &str) -> String {
    let t = mail.replace("=\r\n", "");
    let mut out = Vec::new();
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'=' && i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit() {
            out.push(u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap(), 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A plain-text reply with the given subject and body.
pub fn reply(from: &str, to: &str, id: &str, subject: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

/// An HTML-only reply (no text/plain part), as some webmail and phone clients send.
pub fn html_reply(from: &str, to: &str, id: &str, subject: &str, html: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}@client.example>\r\nDate: Mon, 23 Nov 2026 02:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>{html}</body></html>\r\n"
    )
}

/// The first `n` lines of `board`'s body, decoded and quoted as a mail client
/// quotes them (`> ` and CRLF).
pub fn quoted(board: &str, n: usize) -> String {
    decode(board)
        .split("\r\n\r\n")
        .skip(1)
        .collect::<Vec<_>>()
        .join("\r\n\r\n")
        .lines()
        .take(n)
        .map(|l| format!("> {l}\r\n"))
        .collect()
}

/// The one answer in `after` that is not in `before`.
#[track_caller]
pub fn new_answer(before: &[String], after: Vec<String>) -> String {
    let mut new: Vec<String> = after.into_iter().filter(|a| !before.contains(a)).collect();
    assert_eq!(new.len(), 1, "one new answer: {new:?}");
    new.pop().unwrap()
}
