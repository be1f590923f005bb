//! `fairsteward player …`: the player's side of docs/trust.md. With this binary and a
//! mail client a player can play a signed, sealed, commit-reveal game:
//!
//! ```text
//! fairsteward player keygen --out alice.key          # prints the public key to register
//! fairsteward player sign   --key alice.key --game 8KQ2ZJ --seat white --turn 12 --move Nf3
//! fairsteward player seal   --url http://steward:8080 --key alice.key --game … --move Nf3
//! fairsteward player commit --key alice.key --game … --move Nf3 --save turn12.json
//! fairsteward player reveal --key alice.key --from turn12.json
//! fairsteward player submit --url http://steward:8080 --token T --file envelope.txt
//! ```
//!
//! Every command but `keygen` and `submit` prints one envelope on stdout, ready to
//! paste into a mail (or to pipe into `submit`); notes go to stderr. Bad input is
//! one line on stderr and exit status 2; a steward that refuses, or cannot be
//! reached, is one line on stderr (with the steward's own message) and status 1.
//!
//! `commit --save FILE` keeps what the reveal needs in a new file (never replacing
//! one, which may hold an earlier salt), as JSON, mode 0600:
//! `{"game": "8KQ2ZJ", "seat": "white", "turn": 12, "move": "Nf3", "salt": "<hex>"}`;
//! without `--save` the salt is printed on stderr.

use std::fmt;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};

use crate::ids::hex;
use crate::protocol::{
    Body, Envelope, EnvelopeError, MAX_MOVE_BYTES, PlayerKey, commitment, decode_hex, fingerprint,
    public_key_from_base64, random_nonce, random_salt, same_fingerprint, try_seal,
};

/// `fairsteward player <command>`.
#[derive(Debug, Args)]
pub struct PlayerArgs {
    #[command(subcommand)]
    command: PlayerCommand,
}

#[derive(Debug, Subcommand)]
enum PlayerCommand {
    /// Make an Ed25519 signing key (file mode 0600); prints the public key to
    /// register as the seat's `public_key` when the game is created.
    Keygen(KeygenArgs),
    /// Print a signed move envelope, or with --action a signed resignation,
    /// draw offer, accept or decline, or leave (required in games with
    /// auth = signature).
    Sign(SignArgs),
    /// Print a move sealed to the steward's key (and signed, with --key).
    Seal(SealArgs),
    /// Print a commitment to a move, and keep the salt the reveal needs.
    Commit(CommitArgs),
    /// Print the reveal of a committed move (sealed too, with --steward-key or --url).
    Reveal(RevealArgs),
    /// Send an envelope (from --file or stdin) to the steward's HTTP API and print
    /// its answer; --print only checks and prints it, to paste into a mail.
    Submit(SubmitArgs),
}

#[derive(Debug, Args)]
struct KeygenArgs {
    /// Where to write the private key; an existing file is never overwritten.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Which game, seat and turn a move is for.
#[derive(Debug, Args)]
struct Target {
    /// The game id, e.g. 8KQ2ZJ.
    #[arg(long)]
    game: String,
    /// Your seat, e.g. white.
    #[arg(long)]
    seat: String,
    /// The turn the move is for (the board mail says which).
    #[arg(long)]
    turn: u32,
    /// The move, e.g. Nf3.
    #[arg(long = "move", value_name = "MOVE")]
    mv: String,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["mv", "action"])))]
struct SignArgs {
    /// The game id, e.g. 8KQ2ZJ.
    #[arg(long)]
    game: String,
    /// Your seat, e.g. white.
    #[arg(long)]
    seat: String,
    /// The turn the move is for (the board mail says which); for --action, the
    /// turn now owed.
    #[arg(long)]
    turn: u32,
    /// The move, e.g. Nf3.
    #[arg(long = "move", value_name = "MOVE")]
    mv: Option<String>,
    /// Instead of a move: resign, draw-offer, draw-accept, draw-decline, or
    /// 'leave FROM TO' (dates YYYY-MM-DD, both days included). Send the
    /// envelope with `player submit`, or paste it into a mail to the steward.
    #[arg(long, value_name = "ACTION")]
    action: Option<String>,
    /// Your private key (from `player keygen`).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
}

/// Where the steward's sealing key comes from.
#[derive(Debug, Args)]
struct StewardKeyArgs {
    /// The steward's sealing key, base64 (`sealing_key` of GET /api/steward).
    #[arg(long, value_name = "B64", conflicts_with = "url")]
    steward_key: Option<String>,
    /// The steward's address: its keys are fetched from URL/api/steward.
    #[arg(long)]
    url: Option<String>,
    /// The steward fingerprint from your board mails; fetched keys must match it.
    #[arg(long, requires = "url")]
    fingerprint: Option<String>,
}

#[derive(Debug, Args)]
struct SealArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    steward: StewardKeyArgs,
    /// Also sign the envelope with this private key.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct CommitArgs {
    #[command(flatten)]
    target: Target,
    /// Also sign the envelope with this private key.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
    /// Keep game, seat, turn, move and salt in this new file (JSON, mode 0600) for
    /// `player reveal --from FILE`; without it the salt is printed on stderr.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct RevealArgs {
    /// The file `player commit --save` wrote.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["game", "seat", "turn", "mv", "salt"])]
    from: Option<PathBuf>,
    /// The game id (without --from).
    #[arg(long)]
    game: Option<String>,
    /// Your seat (without --from).
    #[arg(long)]
    seat: Option<String>,
    /// The turn (without --from).
    #[arg(long)]
    turn: Option<u32>,
    /// The move you committed to (without --from).
    #[arg(long = "move", value_name = "MOVE")]
    mv: Option<String>,
    /// The salt `player commit` printed, hex (without --from).
    #[arg(long, value_name = "HEX")]
    salt: Option<String>,
    /// Also sign the envelope with this private key.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
    #[command(flatten)]
    steward: StewardKeyArgs,
}

#[derive(Debug, Args)]
struct SubmitArgs {
    /// The steward's address, e.g. http://steward.example:8080.
    #[arg(long, required_unless_present = "print")]
    url: Option<String>,
    /// The game id; must be the envelope's (default: the envelope's).
    #[arg(long)]
    game: Option<String>,
    /// Your seat's secret token (not needed for a signed envelope).
    #[arg(long)]
    token: Option<String>,
    /// Read the envelope from this file instead of stdin; text around it (a whole
    /// mail) is fine.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Do not send: check the envelope and print it, to paste into a mail.
    #[arg(long)]
    print: bool,
}

/// What `commit --save` keeps and `reveal --from` reads.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Saved {
    game: String,
    seat: String,
    turn: u32,
    #[serde(rename = "move")]
    mv: String,
    /// Hex.
    salt: String,
}

/// A failure at or on the way to the steward: exit status 1, not 2.
#[derive(Debug)]
struct Remote(String);

impl fmt::Display for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Remote {}

fn remote(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Remote(message.into()))
}

/// Runs a player command: its output on stdout, or one line on stderr with exit
/// status 2 (bad input) or 1 (the steward refused or was unreachable).
pub fn run(args: &PlayerArgs) -> ExitCode {
    match dispatch(&args.command) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe is not worth a message.
            let _ = stdout.write_all(out.as_bytes()).and_then(|()| stdout.flush());
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("fairsteward: {}", format!("{err:#}").replace('\n', " "));
            if err.downcast_ref::<Remote>().is_some() { ExitCode::FAILURE } else { ExitCode::from(2) }
        }
    }
}

fn dispatch(command: &PlayerCommand) -> anyhow::Result<String> {
    match command {
        PlayerCommand::Keygen(a) => keygen(a),
        PlayerCommand::Sign(a) => {
            let body = match (&a.mv, &a.action) {
                (_, Some(action)) => Body::Action(action.parse().map_err(|e| anyhow::anyhow!("--action: {e}"))?),
                (Some(mv), None) => Body::Move(move_text(mv)?),
                (None, None) => bail!("give --move MOVE or --action ACTION"),
            };
            let key = load_key(Some(&a.key))?;
            envelope(&a.game, &a.seat, a.turn, body, None, key.as_ref())
        }
        PlayerCommand::Seal(a) => seal(a),
        PlayerCommand::Commit(a) => commit(a),
        PlayerCommand::Reveal(a) => reveal(a),
        PlayerCommand::Submit(a) => submit(a),
    }
}

fn keygen(a: &KeygenArgs) -> anyhow::Result<String> {
    let key = PlayerKey::generate();
    key.save(&a.out)?;
    eprintln!(
        "wrote the private key to {} (keep it secret); register the public key below as your seat's public_key when the game is created",
        a.out.display()
    );
    Ok(format!("{}\n", key.public_key_base64()))
}

fn load_key(path: Option<&Path>) -> anyhow::Result<Option<PlayerKey>> {
    path.map(|p| PlayerKey::load(p).context("cannot use the signing key")).transpose()
}

fn move_text(text: &str) -> anyhow::Result<String> {
    let t = text.trim();
    if t.is_empty() || t.len() > MAX_MOVE_BYTES || t.chars().any(char::is_control) {
        bail!("--move {text:?} is not a move: give one move on one line, like Nf3");
    }
    Ok(t.to_owned())
}

/// Builds an envelope with a fresh nonce, checks it by reading its own text back
/// (which also normalises it), signs it when a key is given, and returns its text.
fn envelope(
    game: &str,
    seat: &str,
    turn: u32,
    body: Body,
    salt: Option<Vec<u8>>,
    key: Option<&PlayerKey>,
) -> anyhow::Result<String> {
    let mut env = Envelope::new(game, seat, turn, body).with_nonce(&random_nonce());
    env.salt = salt;
    let mut env = Envelope::parse(&env.to_text()).context("cannot make that envelope")?;
    if let Some(key) = key {
        env.sign(key);
    }
    Ok(env.to_text())
}

/// The URL with a scheme and without a trailing slash.
fn base_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    if url.contains("://") { url.to_owned() } else { format!("http://{url}") }
}

/// Runs one HTTP exchange on a small runtime of its own.
fn http<T>(f: impl AsyncFnOnce(reqwest::Client) -> anyhow::Result<T>) -> anyhow::Result<T> {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the HTTP client")?;
    let client =
        reqwest::Client::builder().timeout(Duration::from_secs(30)).build().context("cannot start the HTTP client")?;
    runtime.block_on(f(client))
}

/// Why a request failed, with reqwest's causes (its own message names only the URL).
fn unreachable(what: &str, url: &str, e: &reqwest::Error) -> anyhow::Error {
    let mut text = format!("{what} {url}: {e}");
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    remote(text)
}

/// The steward's error message from a JSON error answer, or the body's first line.
fn server_message(status: reqwest::StatusCode, body: &str) -> String {
    let json: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let field = |k: &str| json.as_ref().and_then(|j| j.get(k)).and_then(|v| v.as_str()).map(str::to_owned);
    match (field("message"), field("error")) {
        (Some(m), Some(code)) => format!("{m} ({code}, HTTP {})", status.as_u16()),
        (Some(m), None) => format!("{m} (HTTP {})", status.as_u16()),
        _ => {
            let line = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
            let line: String = line.chars().take(200).collect();
            if line.is_empty() { format!("HTTP {status}") } else { format!("HTTP {status}: {line}") }
        }
    }
}

/// The sealing key to use: given, fetched (and checked against the fingerprint), or none.
fn sealing_key(a: &StewardKeyArgs) -> anyhow::Result<Option<[u8; 32]>> {
    if let Some(b64) = &a.steward_key {
        return public_key_from_base64(b64)
            .map(Some)
            .context("--steward-key is not a sealing key (32 bytes of base64, `sealing_key` of GET /api/steward)");
    }
    let Some(url) = &a.url else { return Ok(None) };
    let url = format!("{}/api/steward", base_url(url));
    let body = http(async |client| {
        let resp = client.get(&url).send().await.map_err(|e| unreachable("cannot reach the steward at", &url, &e))?;
        let status = resp.status();
        let body = resp.text().await.map_err(|e| unreachable("no answer from", &url, &e))?;
        if !status.is_success() {
            return Err(remote(format!("{url} answered: {}", server_message(status, &body))));
        }
        Ok(body)
    })?;
    #[derive(Deserialize)]
    struct Keys {
        sealing_key: String,
        signing_key: String,
        fingerprint: Option<String>,
    }
    let keys: Keys = serde_json::from_str(&body)
        .map_err(|e| remote(format!("{url} did not answer with the steward's keys ({e})")))?;
    let (Some(sealing), Some(signing)) =
        (public_key_from_base64(&keys.sealing_key), public_key_from_base64(&keys.signing_key))
    else {
        return Err(remote(format!("{url} answered with keys that are not 32 bytes of base64")));
    };
    let fp = fingerprint(&signing, &sealing);
    if let Some(served) = &keys.fingerprint
        && !same_fingerprint(served, &fp)
    {
        return Err(remote(format!(
            "the keys from {url} do not match the fingerprint it sent ({served}); do not send it your move"
        )));
    }
    if let Some(expected) = &a.fingerprint
        && !same_fingerprint(expected, &fp)
    {
        return Err(remote(format!(
            "the steward at {url} has fingerprint {fp}, not the {expected} you gave; do not send it your move"
        )));
    }
    eprintln!("sealing to the steward key with fingerprint {fp}; it should match the one in your board mails");
    Ok(Some(sealing))
}

fn seal(a: &SealArgs) -> anyhow::Result<String> {
    let t = &a.target;
    let text = move_text(&t.mv)?;
    let key = load_key(a.key.as_deref())?;
    let Some(steward) = sealing_key(&a.steward)? else {
        bail!("seal needs the steward's sealing key: --steward-key B64, or --url URL to fetch it");
    };
    let sealed = try_seal(&text, &steward, &t.game, &t.seat, t.turn)?;
    envelope(&t.game, &t.seat, t.turn, Body::Sealed(sealed), None, key.as_ref())
}

fn commit(a: &CommitArgs) -> anyhow::Result<String> {
    let t = &a.target;
    let text = move_text(&t.mv)?;
    let key = load_key(a.key.as_deref())?;
    let salt = random_salt();
    let c = commitment(&t.game, &t.seat, t.turn, &text, &salt);
    let out = envelope(&t.game, &t.seat, t.turn, Body::Commit(c), None, key.as_ref())?;
    let env = Envelope::parse(&out).expect("envelope() returns a readable envelope");
    match &a.save {
        Some(path) => {
            let saved = Saved { game: env.game, seat: env.seat, turn: env.turn, mv: text, salt: hex(&salt) };
            let json = serde_json::to_string_pretty(&saved).expect("plain data serialises");
            write_private(path, format!("{json}\n").as_bytes()).with_context(|| {
                format!(
                    "cannot save the salt to {} (an existing file is never replaced: choose a new name per turn)",
                    path.display()
                )
            })?;
            eprintln!(
                "kept the move and salt in {}; reveal with `fairsteward player reveal --from {}`",
                path.display(),
                path.display()
            );
        }
        None => eprintln!(
            "salt: {}\nkeep it: the reveal needs it (`fairsteward player reveal --game {} --seat {} --turn {} --move {:?} --salt {}`)",
            hex(&salt),
            env.game,
            env.seat,
            env.turn,
            text,
            hex(&salt)
        ),
    }
    Ok(out)
}

/// Writes a new file readable by its owner only (0600). An existing file may hold
/// the salt of an earlier commitment, so it is never replaced.
fn write_private(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    f.write_all(contents)?;
    f.sync_all()
}

fn reveal(a: &RevealArgs) -> anyhow::Result<String> {
    let saved = match &a.from {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            serde_json::from_str::<Saved>(&text)
                .with_context(|| format!("{} is not a file `player commit --save` wrote", path.display()))?
        }
        None => match (&a.game, &a.seat, a.turn, &a.mv, &a.salt) {
            (Some(game), Some(seat), Some(turn), Some(mv), Some(salt)) => {
                Saved { game: game.clone(), seat: seat.clone(), turn, mv: mv.clone(), salt: salt.clone() }
            }
            _ => bail!(
                "reveal needs --from FILE (from `player commit --save`), or all of --game, --seat, --turn, --move and --salt"
            ),
        },
    };
    let text = move_text(&saved.mv)?;
    let salt = decode_hex(&saved.salt)
        .map_err(|_| EnvelopeError::Hex("salt"))
        .context("the salt is not the hex `player commit` printed")?;
    let key = load_key(a.key.as_deref())?;
    match sealing_key(&a.steward)? {
        Some(steward) => {
            let sealed = try_seal(&text, &steward, &saved.game, &saved.seat, saved.turn)?;
            envelope(&saved.game, &saved.seat, saved.turn, Body::Sealed(sealed), Some(salt), key.as_ref())
        }
        None => envelope(&saved.game, &saved.seat, saved.turn, Body::Reveal { text, salt }, None, key.as_ref()),
    }
}

fn submit(a: &SubmitArgs) -> anyhow::Result<String> {
    let mut text = String::new();
    match &a.file {
        Some(path) => {
            text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        }
        None => {
            std::io::stdin().read_to_string(&mut text).context("cannot read the envelope from stdin")?;
        }
    }
    let env = Envelope::find(&text)?.ok_or(EnvelopeError::NotFound)?;
    if let Some(game) = &a.game
        && !game.trim().eq_ignore_ascii_case(&env.game)
    {
        bail!("the envelope is for game {}, not {}", env.game, game.trim());
    }
    if a.print {
        return Ok(env.to_text());
    }
    let Some(url) = &a.url else { bail!("submit needs --url URL (or --print to paste the envelope into a mail)") };
    let path = match &env.body {
        Body::Action(action) => action.http_path(&env.game),
        _ => format!("/api/games/{}/moves", env.game),
    };
    let url = format!("{}{path}", base_url(url));
    let body = env.to_text();
    let token = a.token.as_deref().map(str::trim).filter(|t| !t.is_empty());
    http(async |client| {
        let mut req = client.post(&url).header(reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8").body(body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await.map_err(|e| unreachable("cannot reach the steward at", &url, &e))?;
        let status = resp.status();
        let answer = resp.text().await.map_err(|e| unreachable("no answer from", &url, &e))?;
        if !status.is_success() {
            return Err(remote(format!("the steward refused the envelope: {}", server_message(status, &answer))));
        }
        Ok(if answer.ends_with('\n') { answer } else { format!("{answer}\n") })
    })
}
