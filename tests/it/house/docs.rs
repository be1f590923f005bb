//! The documentation keeps its word (issue 30): every relative link in README.md
//! and docs/**/*.md names a file that exists (and a `#anchor`, a heading of it),
//! every shell example marked runnable (a fenced block whose info string is
//! `sh runnable`, see docs/testing.md) runs with the built binary on PATH and exits
//! 0, and `serve` warns about the placeholders the README says it warns about.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fairsteward");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md and every Markdown file under docs/, relative to the root.
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut docs = vec![Path::new(ROOT).join("README.md")];
    walk(&Path::new(ROOT).join("docs"), &mut docs);
    docs
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        match fence {
            Some(f) if trimmed.starts_with(f) && trimmed.trim_start_matches(['`', '~']).trim().is_empty() => {
                fence = None
            }
            Some(_) => {}
            None if trimmed.starts_with("````") => fence = Some("````"),
            None if trimmed.starts_with("```") => fence = Some("```"),
            None => out.push(line),
        }
    }
    out
}

/// `line` without its inline code spans.
fn without_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The targets of the Markdown links and images in `text`: `[…](target)`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].trim().to_owned());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the headings of `text`, with GitHub's `-1`, `-2` for repeats.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in prose(text) {
        let Some(heading) = line.strip_prefix('#') else { continue };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(&heading.replace('`', ""));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

#[test]
fn every_relative_link_names_a_file_and_a_heading() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').map_or((target.as_str(), None), |(p, a)| (p, Some(a)));
            let file = if path.is_empty() { doc.clone() } else { doc.parent().unwrap().join(path) };
            let relative = file.strip_prefix(ROOT).map(Path::to_path_buf).unwrap_or_else(|_| file.clone());
            let normal: PathBuf = relative.components().fold(PathBuf::new(), |mut p, c| {
                match c {
                    std::path::Component::ParentDir => {
                        p.pop();
                    }
                    std::path::Component::CurDir => {}
                    other => p.push(other),
                }
                p
            });
            let name = doc.strip_prefix(ROOT).unwrap().display().to_string();
            if !Path::new(ROOT).join(&normal).exists() {
                broken.push(format!("{name}: {target}: no file {}", normal.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                let target_text = std::fs::read_to_string(Path::new(ROOT).join(&normal)).unwrap_or_default();
                if !anchors(&target_text).contains(anchor) {
                    broken.push(format!("{name}: {target}: no heading #{anchor} in {}", normal.display()));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} links found: is the link reader broken?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The runnable blocks of `text`: (line of the fence, the script).
fn runnable(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        match current.as_mut() {
            None if line.trim() == "```sh runnable" => current = Some((n + 1, String::new())),
            None => {}
            Some(_) if line.trim() == "```" => out.extend(current.take()),
            Some((_, script)) => {
                script.push_str(line);
                script.push('\n');
            }
        }
    }
    out
}

#[test]
fn every_runnable_example_runs() {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    let mut failed = Vec::new();
    for doc in documents() {
        let name = doc.strip_prefix(ROOT).unwrap().display().to_string();
        for (line, script) in runnable(&std::fs::read_to_string(&doc).unwrap()) {
            ran += 1;
            let dir = tempfile::tempdir().unwrap();
            let out = Command::new("bash")
                .args(["-eu", "-c", &script])
                .current_dir(dir.path())
                .env("PATH", &path)
                .env_remove("RUST_LOG")
                .stdin(Stdio::null())
                .output()
                .expect("bash runs");
            if !out.status.success() {
                failed.push(format!(
                    "{name}:{line} exited {:?}\n--- script\n{script}--- stdout\n{}--- stderr\n{}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(ran >= 8, "only {ran} runnable examples in README.md and docs/");
    assert!(failed.is_empty(), "{} of {ran} runnable examples failed:\n{}", failed.len(), failed.join("\n"));
}

/// `serve` on its embedded defaults warns, before it listens, that `public_url`
/// and the sender's domain are placeholders, naming the keys to set.
#[test]
fn serve_warns_about_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path().join("data"))
        .current_dir(dir.path())
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(line) => {
                let done = line.contains("listening on");
                lines.push(line);
                if done {
                    break;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let log = lines.join("\n");
    assert!(log.contains("listening on"), "serve did not start:\n{log}");
    let warned = |key: &str, section: &str| {
        lines
            .iter()
            .any(|l| l.contains("WARN") && l.contains(key) && l.contains(section) && l.contains("fairsteward.toml"))
    };
    assert!(warned("http.public_url is http://127.0.0.1:0", "[http]"), "{log}");
    assert!(warned("mail.from is moves@steward.example", "[mail]"), "{log}");
}

#[test]
fn the_readme_is_at_most_300_lines() {
    let lines = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap().lines().count();
    assert!(lines <= 300, "README.md has {lines} lines");
}

/// Every document the code cites (`docs/….md`, and `docs/rules/<game>.md §N`)
/// exists at that path, with a numbered section `N` where one is named: the
/// code's comments send a reader there.
#[test]
fn every_document_the_code_cites_exists() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches", "scripts", "templates", "deploy", "tools"] {
        walk(&Path::new(ROOT).join(dir), &mut files);
    }
    let (mut cited, mut missing) = (0, Vec::new());
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let name = file.strip_prefix(ROOT).unwrap().display().to_string();
        for (at, _) in text.match_indices("docs/") {
            // A path that only ends in docs/ (e.g. `../docs/`) is an include, checked by the compiler.
            let rest = &text[at..];
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || "/_.-".contains(c))).unwrap_or(rest.len());
            let path = rest[..end].trim_end_matches('.');
            if !path.ends_with(".md") {
                continue;
            }
            cited += 1;
            let Ok(doc) = std::fs::read_to_string(Path::new(ROOT).join(path)) else {
                missing.push(format!("{name}: {path}: no such file"));
                continue;
            };
            // A section after the path (`§8`, also after a closing backtick): must be a heading "## 8.".
            let after = rest[end..].trim_start_matches(['`', ')']).trim_start();
            if let Some(section) = after.strip_prefix('§') {
                let number: String = section.chars().take_while(|c| c.is_ascii_digit()).collect();
                if !number.is_empty() && !doc.lines().any(|l| l.starts_with(&format!("## {number}."))) {
                    missing.push(format!("{name}: {path} §{number}: no section {number}"));
                }
            }
        }
    }
    assert!(cited > 100, "only {cited} citations found: is the reader broken?");
    assert!(missing.is_empty(), "cited documents that do not exist:\n{}", missing.join("\n"));
}
