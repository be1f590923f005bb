//! `fairsteward player …` driven as a player would: the real binary, files in a
//! temporary directory, and the library to check what it printed. Offline: the
//! steward's sealing key is given with `--steward-key`, and the HTTP exchanges of
//! `submit` and `seal --url` go to a tiny one-shot server on 127.0.0.1:0.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread::JoinHandle;

use fairsteward::protocol::{Body, Envelope, StewardKeys, commitment, decode_hex, open_sealed, public_key_from_base64};

fn player(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairsteward")).arg("player").args(args).output().expect("run fairsteward")
}

fn player_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .arg("player")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fairsteward");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// A failure is one line on stderr, `fairsteward: …`, with the given status.
fn fails(out: &Output, code: i32) -> String {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout {:?} stderr {:?}",
        String::from_utf8_lossy(&out.stdout),
        stderr(out)
    );
    let err = stderr(out);
    assert!(err.starts_with("fairsteward: ") && err.trim_end().lines().count() == 1, "{err:?}");
    assert!(out.stdout.is_empty());
    err
}

fn keygen(dir: &Path, name: &str) -> (String, [u8; 32]) {
    let path = dir.join(name);
    let out = ok(&player(&["keygen", "--out", path.to_str().unwrap()]));
    let public = public_key_from_base64(out.trim()).expect("keygen prints a base64 public key");
    (path.to_str().unwrap().to_owned(), public)
}

const TARGET: [&str; 6] = ["--game", "8kq2zj", "--seat", "White", "--turn", "12"];

fn with_target<'a>(command: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    [&[command][..], &TARGET[..], extra].concat()
}

#[test]
fn keygen_writes_a_private_file_and_prints_the_public_key() {
    let dir = tempfile::tempdir().unwrap();
    let (path, public) = keygen(dir.path(), "alice.key");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_ne!(public, [0; 32]);
    let err = fails(&player(&["keygen", "--out", &path]), 2);
    assert!(err.contains("already exists"), "{err}");
}

#[test]
fn sign_prints_an_envelope_that_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path(), "alice.key");
    let out = ok(&player(&with_target("sign", &["--move", "Nf3", "--key", &key])));
    assert!(
        out.starts_with("-----BEGIN FAIRSTEWARD MOVE-----\ngame: 8KQ2ZJ\nseat: white\nturn: 12\nmove: Nf3\nnonce: "),
        "{out}"
    );
    let env = Envelope::parse(&out).unwrap();
    env.verify(&public).unwrap();
    assert_eq!(env.body, Body::Move("Nf3".into()));
    // Fresh nonces: the same move twice gives two different envelopes.
    let again = Envelope::parse(&ok(&player(&with_target("sign", &["--move", "Nf3", "--key", &key])))).unwrap();
    assert_ne!(env.nonce, again.nonce);
    let (_, other) = keygen(dir.path(), "bob.key");
    assert!(env.verify(&other).is_err());
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let (key, _) = keygen(dir.path(), "alice.key");
    let err = fails(
        &player(&["sign", "--game", "8KQ2Z", "--seat", "white", "--turn", "1", "--move", "e4", "--key", &key]),
        2,
    );
    assert!(err.contains("game id"), "{err}");
    fails(&player(&with_target("sign", &["--move", "", "--key", &key])), 2);
    fails(&player(&with_target("sign", &["--move", "e4", "--key", dir.path().join("none").to_str().unwrap()])), 2);
    fails(&player(&with_target("seal", &["--move", "e4"])), 2);
    fails(&player(&with_target("seal", &["--move", "e4", "--steward-key", "short"])), 2);
    fails(&player(&["reveal", "--game", "8KQ2ZJ"]), 2);
    fails(&player(&["sign", "--game", "8KQ2ZJ"]), 2);
}

#[test]
fn seal_prints_an_envelope_the_steward_opens() {
    let dir = tempfile::tempdir().unwrap();
    let steward = StewardKeys::load_or_create(&dir.path().join("steward")).unwrap();
    let (key, public) = keygen(dir.path(), "alice.key");
    let b64 = steward.sealing_public_base64();
    let out = ok(&player(&with_target("seal", &["--move", "Nf3", "--steward-key", &b64])));
    assert!(!out.contains("Nf3"));
    let env = Envelope::parse(&out).unwrap();
    assert!(env.sig.is_none());
    let Body::Sealed(sealed) = &env.body else { panic!("not sealed: {out}") };
    assert_eq!(open_sealed(sealed, &steward, &env.game, &env.seat, env.turn).unwrap(), "Nf3");
    assert!(open_sealed(sealed, &steward, &env.game, &env.seat, 13).is_err());

    let signed =
        Envelope::parse(&ok(&player(&with_target("seal", &["--move", "Nf3", "--steward-key", &b64, "--key", &key]))))
            .unwrap();
    signed.verify(&public).unwrap();
}

#[test]
fn commit_then_reveal_from_the_saved_file() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path(), "alice.key");
    let saved = dir.path().join("turn12.json");
    let out = player(&with_target("commit", &["--move", "Nf3", "--key", &key, "--save", saved.to_str().unwrap()]));
    let commit = Envelope::parse(&ok(&out)).unwrap();
    commit.verify(&public).unwrap();
    let Body::Commit(c) = commit.body else { panic!("not a commitment") };
    assert!(!ok(&out).contains("Nf3"));
    assert_eq!(std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777, 0o600);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(json["game"], "8KQ2ZJ");
    assert_eq!(json["move"], "Nf3");
    // The salt file is never replaced: it may hold the salt of an earlier commitment.
    let err = fails(&player(&with_target("commit", &["--move", "Nc3", "--save", saved.to_str().unwrap()])), 2);
    assert!(err.contains("never replaced"), "{err}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&saved).unwrap()).unwrap()["move"],
        "Nf3"
    );

    let reveal = Envelope::parse(&ok(&player(&["reveal", "--from", saved.to_str().unwrap(), "--key", &key]))).unwrap();
    reveal.verify(&public).unwrap();
    reveal.check_reveal(&c).unwrap();
    let Body::Reveal { text, salt } = &reveal.body else { panic!("not a reveal") };
    assert_eq!(text, "Nf3");
    assert!(salt.len() >= 16);
    assert_eq!(commitment("8KQ2ZJ", "white", 12, text, salt), c);
}

#[test]
fn commit_prints_the_salt_and_reveal_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = player(&with_target("commit", &["--move", "e4"]));
    let commit = Envelope::parse(&ok(&out)).unwrap();
    assert!(commit.sig.is_none());
    let Body::Commit(c) = commit.body else { panic!("not a commitment") };
    let err = stderr(&out);
    let salt = err.lines().find_map(|l| l.strip_prefix("salt: ")).expect("the salt on stderr").trim().to_owned();
    assert_eq!(decode_hex(&salt).unwrap().len(), 16);

    let reveal = Envelope::parse(&ok(&player(&with_target("reveal", &["--move", "e4", "--salt", &salt])))).unwrap();
    reveal.check_reveal(&c).unwrap();
    let wrong = Envelope::parse(&ok(&player(&with_target("reveal", &["--move", "d4", "--salt", &salt])))).unwrap();
    assert!(wrong.check_reveal(&c).is_err());

    // A sealed reveal: the move sealed, the salt beside it.
    let steward = StewardKeys::load_or_create(dir.path()).unwrap();
    let b64 = steward.sealing_public_base64();
    let sealed = Envelope::parse(&ok(&player(&with_target(
        "reveal",
        &["--move", "e4", "--salt", &salt, "--steward-key", &b64],
    ))))
    .unwrap();
    let Body::Sealed(bytes) = &sealed.body else { panic!("not sealed") };
    let text = open_sealed(bytes, &steward, &sealed.game, &sealed.seat, sealed.turn).unwrap();
    assert_eq!(commitment(&sealed.game, &sealed.seat, sealed.turn, &text, sealed.salt.as_deref().unwrap()), c);
}

#[test]
fn submit_print_finds_the_envelope_in_a_mail() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path(), "alice.key");
    let env = ok(&player(&with_target("sign", &["--move", "Nf3", "--key", &key])));
    let mail: String = format!(
        "Hello,\r\n\r\n{}\r\nAlice\r\n",
        env.lines().map(|l| format!("> {l}  ")).collect::<Vec<_>>().join("\r\n")
    );
    let file = dir.path().join("mail.txt");
    std::fs::write(&file, &mail).unwrap();
    let printed = ok(&player(&["submit", "--print", "--file", file.to_str().unwrap()]));
    assert_eq!(printed, env);
    Envelope::parse(&printed).unwrap().verify(&public).unwrap();
    assert_eq!(ok(&player_stdin(&["submit", "--print"], &mail)), env);
    let err = fails(&player(&["submit", "--print", "--game", "0000AA", "--file", file.to_str().unwrap()]), 2);
    assert!(err.contains("8KQ2ZJ"), "{err}");
    fails(&player_stdin(&["submit", "--print"], "no envelope here"), 2);
}

/// Answers `answers.len()` HTTP requests on 127.0.0.1:0 with the given status
/// and JSON body, and returns each request as received.
fn serve(answers: Vec<(u16, String)>) -> (String, JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut requests = Vec::new();
        for (status, body) in answers {
            let (mut stream, _) = listener.accept().unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let header_end = loop {
                let n = stream.read(&mut chunk).unwrap();
                assert!(n > 0, "connection closed mid-request");
                buf.extend_from_slice(&chunk[..n]);
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    break i + 4;
                }
            };
            let head = String::from_utf8_lossy(&buf[..header_end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse::<usize>().unwrap());
            while buf.len() < header_end + length {
                let n = stream.read(&mut chunk).unwrap();
                buf.extend_from_slice(&chunk[..n]);
            }
            requests.push(String::from_utf8(buf).unwrap());
            let response = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(response.as_bytes()).unwrap();
        }
        requests
    });
    (url, handle)
}

#[test]
fn submit_posts_the_envelope_as_text_with_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let env = ok(&player(&with_target("commit", &["--move", "e4"])));
    let file = dir.path().join("env.txt");
    std::fs::write(&file, &env).unwrap();
    let (url, server) = serve(vec![
        (200, r#"{"receipt":"r-1","kind":"commit"}"#.to_owned()),
        (
            409,
            r#"{"error":"already_moved","message":"white already moved in turn 12; nothing was changed"}"#.to_owned(),
        ),
    ]);
    let out =
        ok(&player(&["submit", "--url", &format!("{url}/"), "--token", "tok123", "--file", file.to_str().unwrap()]));
    assert_eq!(out, "{\"receipt\":\"r-1\",\"kind\":\"commit\"}\n");
    let err = fails(&player(&["submit", "--url", &url, "--game", "8KQ2ZJ", "--file", file.to_str().unwrap()]), 1);
    assert!(
        err.contains("white already moved in turn 12") && err.contains("already_moved") && err.contains("409"),
        "{err}"
    );

    let requests = server.join().unwrap();
    let first = &requests[0];
    assert!(first.starts_with("POST /api/games/8KQ2ZJ/moves HTTP/1.1\r\n"), "{first}");
    let lower = first.to_lowercase();
    assert!(lower.contains("\r\ncontent-type: text/plain; charset=utf-8\r\n"), "{first}");
    assert!(lower.contains("\r\nauthorization: bearer tok123\r\n"), "{first}");
    assert!(first.ends_with(&format!("\r\n\r\n{env}")), "{first}");
    assert!(!requests[1].to_lowercase().contains("authorization:"), "no token, no header");
}

#[test]
fn submit_to_nobody_is_status_1() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let env = ok(&player(&with_target("commit", &["--move", "e4"])));
    let err = fails(&player_stdin(&["submit", "--url", &url], &env), 1);
    assert!(err.contains("cannot reach the steward"), "{err}");
}

#[test]
fn seal_fetches_the_steward_key_and_checks_the_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let steward = StewardKeys::load_or_create(dir.path()).unwrap();
    let keys = serde_json::json!({
        "sealing_key": steward.sealing_public_base64(),
        "signing_key": steward.signing_public_base64(),
        "fingerprint": steward.fingerprint(),
    })
    .to_string();
    let (url, server) = serve(vec![(200, keys.clone()), (200, keys)]);
    let fp = steward.fingerprint();
    let out = player(&with_target("seal", &["--move", "Nf3", "--url", &url, "--fingerprint", &fp.to_uppercase()]));
    let env = Envelope::parse(&ok(&out)).unwrap();
    assert!(stderr(&out).contains(&fp), "{}", stderr(&out));
    let Body::Sealed(sealed) = &env.body else { panic!("not sealed") };
    assert_eq!(open_sealed(sealed, &steward, &env.game, &env.seat, env.turn).unwrap(), "Nf3");

    let err = fails(&player(&with_target("seal", &["--move", "Nf3", "--url", &url, "--fingerprint", "0000 1111"])), 1);
    assert!(err.contains("do not send it your move"), "{err}");
    let requests = server.join().unwrap();
    assert!(requests[0].starts_with("GET /api/steward HTTP/1.1\r\n"), "{}", requests[0]);
}
