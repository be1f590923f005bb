//! `fairsteward demo` driven through the real binary: it plays its scripted
//! Fairschach game through the HTTP API, prints every board mail, shows the
//! first-move right and a same-square meeting, ends in checkmate, exits 0, leaves
//! nothing behind, and prints the same text on every run apart from the game id.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs `fairsteward demo ARGS`; returns its output and its process id.
fn demo(args: &[&str]) -> (Output, u32) {
    let child = Command::new(env!("CARGO_BIN_EXE_fairsteward"))
        .arg("demo")
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fairsteward binary runs");
    let pid = child.id();
    (child.wait_with_output().expect("the demo finishes"), pid)
}

/// Runs the demo, which must succeed silently on stderr; returns stdout.
fn demo_stdout() -> (String, u32) {
    let (out, pid) = demo(&[]);
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "the demo failed: {stderr}\n{stdout}");
    assert!(stderr.trim().is_empty(), "the demo wrote to stderr: {stderr}");
    (stdout, pid)
}

/// The game id from "created game XXXXXX;".
fn game_id(stdout: &str) -> String {
    let rest = stdout.split("created game ").nth(1).unwrap_or_else(|| panic!("no game created:\n{stdout}"));
    rest[..6].to_owned()
}

#[test]
fn the_demo_plays_a_dozen_pairs_and_prints_every_board_mail() {
    let (stdout, _) = demo_stdout();
    let id = game_id(&stdout);

    // Twelve pairs, in order, each followed by two board mails (one per seat).
    for n in 1..=12 {
        assert!(stdout.contains(&format!("\n== Pair {n}: White ")), "pair {n} is missing:\n{stdout}");
    }
    assert!(!stdout.contains("== Pair 13"), "{stdout}");
    let subjects: Vec<&str> = stdout.lines().filter(|l| l.trim_start().starts_with("--- Subject: ")).collect();
    let started = subjects.iter().filter(|s| s.contains("begins")).count();
    let boards = subjects
        .iter()
        .filter(|s| s.contains(&format!("Game {id}, ")) || s.contains(&format!("Game {id} is over")))
        .count();
    assert_eq!((started, boards, subjects.len()), (2, 24, 26), "{subjects:#?}");
    let to: Vec<&str> = stdout.lines().filter(|l| l.trim_start().starts_with("--- To: ")).collect();
    assert_eq!(to.iter().filter(|l| l.ends_with("Alice <alice@example.org>")).count(), 13);
    assert_eq!(to.iter().filter(|l| l.ends_with("Bob <bob@example.org>")).count(), 13);
    // Every board mail carries a board and the state.
    assert_eq!(stdout.matches("|      a b c d e f g h").count(), 2 * 13, "White's boards (two rulers each)");
    assert_eq!(stdout.matches("|      h g f e d c b a").count(), 2 * 13, "Black's boards, flipped");
    assert_eq!(stdout.matches("| State: ").count(), 24);
}

#[test]
fn the_demo_shows_the_first_move_right_and_a_struck_move() {
    let (stdout, _) = demo_stdout();
    assert!(stdout.contains("== Pair 6: White O-O, Black Qxb5"), "{stdout}");
    assert!(stdout.contains("First-move right"), "{stdout}");
    assert!(
        stdout.contains("Steward: White O-O - struck (it is not legal after Qxb5, played first), Black Qxb5 - first"),
        "{stdout}"
    );
    // The statuses are in both board mails of that pair, numbered as the record.
    assert_eq!(stdout.matches("|   6. white: O-O - struck (it is not legal after Qxb5, played first)").count(), 2);
    assert_eq!(stdout.matches("|   6... black: Qxb5 - first").count(), 2);
    // And the record below the board keeps the struck move, in both mails of
    // pairs 6 to 12.
    assert_eq!(stdout.matches("|   6. O-O (struck) Qxb5\n").count(), 2 * 7, "{stdout}");
}

#[test]
fn the_demo_shows_a_same_square_meeting() {
    let (stdout, _) = demo_stdout();
    assert!(stdout.contains("== Pair 3: White Nd5, Black d5"), "{stdout}");
    assert!(stdout.contains("Same-square meeting: White's knight and Black's pawn both arrive on d5."), "{stdout}");
    assert!(stdout.contains("Steward: White Nd5 - played, Black d5 - played; {d5: Nd5 takes d5 pawn}"), "{stdout}");
    assert_eq!(stdout.matches("|   {d5: Nd5 takes d5 pawn}").count(), 2, "the note is in both mails");
}

#[test]
fn the_demo_ends_in_checkmate_with_a_final_state_line() {
    let (stdout, _) = demo_stdout();
    let id = game_id(&stdout);
    assert!(
        stdout.contains(&format!(
            "\nFinal state: game {id} is over after 12 pairs: 0-1 (checkmate), Black (Bob) wins.\n"
        )),
        "{stdout}"
    );
    assert!(
        stdout
            .trim_end()
            .ends_with("Final position: r1b1r1k1/ppp2ppp/2n5/P1P1p3/2q1n3/R1P2N2/3P1bPP/2BQK2R s K - f2,c5 0 13"),
        "{stdout}"
    );
    assert_eq!(stdout.matches(&format!("--- Subject: Game {id} is over: 0-1 (checkmate)")).count(), 2);
}

#[test]
fn the_demo_prints_the_same_text_every_time_and_leaves_nothing_behind() {
    let (first, pid_a) = demo_stdout();
    let (second, pid_b) = demo_stdout();
    let (a, b) = (game_id(&first), game_id(&second));
    // Each run has its own steward keys: the signed transcript head differs.
    let mask = |text: &str, id: &str| -> String {
        text.replace(id, "GAMEID")
            .lines()
            .map(|l| match l.split_once(": ") {
                Some((k, _))
                    if ["Transcript head", "Steward signature", "Steward key fingerprint"]
                        .contains(&k.trim_start_matches([' ', '|'])) =>
                {
                    k
                }
                // The verify command names the (per-run) head too, and the
                // private link its per-run key.
                _ => l.split_once(" --head ").or_else(|| l.split_once("#sign-in=")).map_or(l, |(cmd, _)| cmd),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(mask(&first, &a), mask(&second, &b));
    // No port, no path, no time in the output.
    assert!(!first.contains("127.0.0.1:"), "{first}");
    assert!(!first.contains(&std::env::temp_dir().display().to_string()), "{first}");
    for pid in [pid_a, pid_b] {
        let prefix = format!("fairsteward-demo-{pid}-");
        let left: Vec<PathBuf> = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "the demo left {left:?} behind");
    }
}

#[test]
fn keep_leaves_the_store_and_the_spool() {
    let (out, _) = demo(&["--keep"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let line = stderr.lines().find(|l| l.contains("kept: ")).unwrap_or_else(|| panic!("no kept path: {stderr}"));
    let dir = PathBuf::from(line.split("kept: ").nth(1).unwrap().trim());
    let mails = std::fs::read_dir(dir.join("spool")).unwrap().filter_map(Result::ok).count();
    let database = dir.join("steward.db").is_file();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(mails, 26, "2 start mails and 24 board mails in the spool");
    assert!(database);
}
