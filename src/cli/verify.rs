//! `fairsteward verify`: checks a game's transcript offline — the hash chain, the
//! steward's and the players' signatures, commitments against reveals — and
//! replays the rules to re-check every resolution.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;

use crate::protocol::verify::{Summary, parse_head, verify_head};

/// `fairsteward verify`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["transcript", "url"])))]
pub struct VerifyArgs {
    /// The transcript file (JSON lines, as GET /api/games/{id}/transcript gives it).
    #[arg(long, value_name = "FILE")]
    transcript: Option<PathBuf>,
    /// Fetch the transcript from this URL (…/api/games/{id}/transcript).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The steward's Ed25519 public key (base64, as GET /api/steward gives it as
    /// signing_key). With --url and no key, the key is fetched from the same
    /// steward: compare its fingerprint with the one in your mails.
    #[arg(long, value_name = "KEY")]
    steward_key: Option<String>,
    /// The transcript head of your latest board mail (the 64 hex digits after
    /// `Transcript head: entry N, sha256`): the transcript must end exactly
    /// there, neither cut short nor extended. Without it, completeness is not
    /// checked.
    #[arg(long, value_name = "HASH")]
    head: Option<String>,
}

/// Why `verify` did not succeed: the input could not be read (exit 2) or the
/// transcript does not hold (exit 1).
#[derive(Debug)]
pub enum VerifyError {
    /// Bad input.
    Input(anyhow::Error),
    /// The transcript does not hold.
    Failed(crate::protocol::verify::Failure),
}

fn fetch(url: &str) -> anyhow::Result<String> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let response = reqwest::get(url).await.with_context(|| format!("cannot fetch {url}"))?;
        let status = response.status();
        let body = response.text().await.with_context(|| format!("cannot read {url}"))?;
        if !status.is_success() {
            bail!("{url} answered {status}: {}", body.trim());
        }
        Ok(body)
    })
}

fn steward_key(args: &VerifyArgs) -> anyhow::Result<([u8; 32], bool)> {
    if let Some(k) = &args.steward_key {
        let key = crate::protocol::public_key_from_base64(k.trim())
            .with_context(|| format!("--steward-key {k:?} is not an Ed25519 public key (32 bytes, base64)"))?;
        return Ok((key, false));
    }
    let Some(url) = &args.url else { bail!("give --steward-key (the signing_key of GET /api/steward)") };
    let base = url.split("/api/").next().unwrap_or(url);
    let info: serde_json::Value = serde_json::from_str(&fetch(&format!("{base}/api/steward"))?)
        .context("the steward's key answer is not JSON")?;
    let k = info.get("signing_key").and_then(|v| v.as_str()).context("the steward's key answer has no signing_key")?;
    Ok((crate::protocol::public_key_from_base64(k).context("the steward's signing_key is not readable")?, true))
}

/// Runs `verify`.
pub fn run(args: &VerifyArgs) -> Result<Summary, VerifyError> {
    let text = match (&args.transcript, &args.url) {
        (Some(path), _) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))
            .map_err(VerifyError::Input)?,
        (None, Some(url)) => fetch(url).map_err(VerifyError::Input)?,
        (None, None) => return Err(VerifyError::Input(anyhow::anyhow!("give --transcript FILE or --url URL"))),
    };
    let head = args.head.as_deref().map(parse_head).transpose().map_err(|e| VerifyError::Input(anyhow::anyhow!(e)))?;
    let (key, fetched) = steward_key(args).map_err(VerifyError::Input)?;
    if fetched {
        eprintln!(
            "fairsteward: note: the steward key was fetched from the steward itself; compare its fingerprint with your mails"
        );
    }
    verify_head(&text, &key, head.as_deref()).map_err(VerifyError::Failed)
}

/// What `verify` prints when the transcript holds: one line per claim, each
/// one the check made.
pub fn report(s: &Summary) -> String {
    let mut out = format!(
        "transcript of game {} holds:
",
        s.game
    );
    out.push_str(&format!(
        "  {} entries chained, each hashing to the hash it states and naming the one before
",
        s.entries
    ));
    out.push_str(&format!(
        "  {} steward signatures verified with the steward key, the last entry among them
",
        s.steward_signatures
    ));
    out.push_str(&format!(
        "  {} player signatures verified with the seats' registered keys
",
        s.player_signatures
    ));
    out.push_str(&format!(
        "  {} reveals matched their commitments
",
        s.commitments
    ));
    let sealed = if s.sealed > 0 {
        format!(
            " ({} sealed moves taken as the steward opened them: their envelopes are encrypted to the steward)",
            s.sealed
        )
    } else {
        String::new()
    };
    out.push_str(&format!(
        "  {} turns replayed through the rules, every resolution as the rules give it{sealed}
",
        s.turns
    ));
    if s.replaced > 0 {
        out.push_str(&format!(
            "  {} seats given to a new player by an organiser
",
            s.replaced
        ));
    }
    match &s.ended {
        Some(e) if s.decided => out.push_str(&format!(
            "  ended {e}: decided by an organiser, not played to its end
"
        )),
        Some(e) => out.push_str(&format!(
            "  ended {e}, as the rules give it
"
        )),
        None => out.push_str(
            "  the game is not over in this transcript
",
        ),
    }
    if let Some(c) = &s.cancelled {
        out.push_str(&format!(
            "  cancelled afterwards {c}: its result no longer counts in the tournament's standings
"
        ));
    }
    if s.head_checked {
        out.push_str(&format!(
            "  complete: it ends at the head you gave, {}
",
            s.head
        ));
    } else {
        out.push_str(&format!(
            "  NOT checked for completeness: it ends at {}, but a transcript cut after a signed entry looks the same; give --head with the head of your latest board mail
",
            s.head
        ));
    }
    out
}

/// Runs `verify` and prints its verdict: exit 0 when all holds, 1 naming the first
/// bad entry, 2 for input that cannot be read.
pub fn exit_status(args: &VerifyArgs) -> ExitCode {
    match run(args) {
        Ok(s) => {
            print!("{}", report(&s));
            ExitCode::SUCCESS
        }
        Err(VerifyError::Failed(f)) => {
            eprintln!("fairsteward: the transcript does not hold: {f}");
            ExitCode::FAILURE
        }
        Err(VerifyError::Input(e)) => {
            eprintln!("fairsteward: {}", format!("{e:#}").replace('\n', " "));
            ExitCode::from(2)
        }
    }
}
