//! What a mail asks for: an envelope block, a move, a command — or nothing we can
//! read. Whether a word is move text is the game's variant's to say
//! ([`DynVariant::move_text`]): this module keeps no grammar of moves, only
//! cleans what mail adds around them (move numbers, annotation marks, figurines,
//! quotes, a capital a phone put on a file). Whether `Nf3` is legal, or an
//! envelope's signature good, is for `rules` and `protocol` to say.
//!
//! The order of the search (see [`intent`]):
//! 1. an envelope block (`-----BEGIN FAIRSTEWARD …-----` … `-----END FAIRSTEWARD …-----`)
//!    in the fresh text;
//! 2. the first meaningful line of the fresh text (greetings such as `Hi Steward,`
//!    are skipped): a command, or a line with exactly one move-looking token;
//! 3. a later fresh line that is nothing but a move (`Sorry for the delay!` ⏎ `Nf3`),
//!    else the one move in the text the player added to our subject (`Re: Game
//!    8KQ2ZJ, turn 3: your move — Nf3`, or a subject of their own such as `Nf3`),
//!    for webmail users who delete the quote and type only into the subject;
//! 4. an envelope block anywhere in the full text, quoted or forwarded (a player
//!    resending the mail with their signed move);
//! 5. a forwarded mail: [`Intent::Forwarded`] — a forward is never a move unless the
//!    forwarder wrote one on top;
//! 6. otherwise [`Intent::Unreadable`] with the first line, or [`Intent::Empty`].
//!
//! Commands are matched case-insensitively, whole line, after dropping punctuation
//! and filler words (`I`, `please`, `the`, `thanks` …), so `I resign.`, `Draw?` and
//! `Accept the draw, please` are read, but `I resign if you take my queen` is not.
//! English and German: `resign`/`aufgeben`, `draw`/`remis`, `accept draw`/`remis
//! angenommen`, `decline draw`/`remis abgelehnt`, `status`, `standings`/`tabelle`
//! (a tournament's table), `help`/`hilfe`, and
//! `leave 2026-12-24 to 2027-01-02` (also `until`, `bis`, `-`, and `24.12.2026`),
//! and (issue 32) `mail every|my turn|digest [at] 7|pictures attached|linked|none`
//! and (issue 33) `mail encrypted|plain`,
//! `alias ADDRESS`, `address ADDRESS` (also `email ADDRESS`).

use chrono::NaiveDate;
use serde::Serialize;

use super::fresh::is_forward_marker;
use crate::rules::DynVariant;

/// What the sender of a mail asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Intent {
    /// An envelope block (docs/trust.md), de-quoted, from its BEGIN line to its END line.
    Envelope(String),
    /// A move as written, for the rules to parse: enclosing punctuation, move
    /// numbers (`1.`, `12...`), annotation marks (`!`, `?`) and `e.p.` removed;
    /// figurines (`♘`) as letters; an upper-case file that a phone capitalised
    /// (`E4`, `Exd5`) lowered. `B` is left alone: it is a bishop.
    Move(String),
    /// Resign the game.
    Resign,
    /// Offer a draw.
    OfferDraw,
    /// Accept the draw offered.
    AcceptDraw,
    /// Decline the draw offered.
    DeclineDraw,
    /// Send me the game's state.
    Status,
    /// Send me the standings of the tournament this game belongs to (issue 31).
    Standings,
    /// Send me the commands.
    Help,
    /// I am away on these days, both included (for the clock).
    Leave {
        /// The first day away.
        from: NaiveDate,
        /// The last day away.
        to: NaiveDate,
    },
    /// `mail …` (issue 32): change the player's mail setting; nothing named
    /// (`mail` alone) asks for it.
    Mail(crate::store::MailSettingsChange),
    /// `alias you@example.org` (issue 32): add an alias, with the confirmation
    /// round trip.
    Alias(String),
    /// `address new@example.org` or `email …` (issue 32): change the seat's
    /// registered address, with the confirmation round trip.
    Address(String),
    /// A forwarded mail with nothing of the forwarder's own to act on.
    Forwarded,
    /// Text that is none of the above: the line we looked at, for the error reply
    /// (at most 200 characters).
    Unreadable(String),
    /// No text at all besides quotes and signatures.
    Empty,
    /// Conditional moves (issue 32): lines to keep, or list or clear them.
    Conditional(ConditionalWords),
}

/// What a mail says about conditional moves (issue 32).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ConditionalWords {
    /// `if Nf6 then e5, if Nc6 then Nf3 if d6 then d4`: the lines as written
    /// (the lines of text from the first `if` on), for the steward to read.
    Set(String),
    /// `conditional`: list mine.
    List,
    /// `conditional clear`: drop mine.
    Clear,
}

/// Conditional moves (issue 32) from the line `lines[0]` on: `conditional`,
/// `conditional clear`, or lines of `if … then …` (an optional `conditional`
/// before the first `if`); the lines that follow belong to them as long as
/// each starts with `if`.
fn conditional(lines: &[&str]) -> Option<Intent> {
    let first = lines.first()?.to_lowercase();
    let words: Vec<&str> = first
        .split_whitespace()
        .map(|w| w.trim_matches(is_word_punct))
        .filter(|w| !w.is_empty() && !FILLERS.contains(w))
        .collect();
    let head = |w: &str| matches!(w, "conditional" | "conditionals" | "conditional-moves");
    match words.as_slice() {
        [w] | [w, "list" | "show"] if head(w) => return Some(Intent::Conditional(ConditionalWords::List)),
        [w, "clear" | "delete" | "cancel" | "none" | "off"] | ["clear" | "delete" | "cancel", w] if head(w) => {
            return Some(Intent::Conditional(ConditionalWords::Clear));
        }
        _ => {}
    }
    let starts_if = |l: &str| l.to_lowercase().trim_start().starts_with("if ");
    let mut taken: Vec<String> = Vec::new();
    let first_line = lines[0].trim_start();
    let after_head =
        first_line.split_once(char::is_whitespace).filter(|(w, _)| head(w.to_lowercase().trim_matches(is_word_punct)));
    match after_head {
        Some((_, rest)) if starts_if(rest) => taken.push(rest.trim().to_owned()),
        _ if starts_if(first_line) => taken.push(first_line.trim().to_owned()),
        _ => return None,
    }
    taken.extend(lines[1..].iter().take_while(|l| starts_if(l)).map(|l| l.trim().to_owned()));
    Some(Intent::Conditional(ConditionalWords::Set(taken.join("\n"))))
}

/// What `fresh` (the sender's own text), `full_text` (the whole body, quotes
/// included) and `subject_added` (what the sender added to our subject, see
/// [`subject_added`]) ask for; see the module docs for the order of the search.
/// `variant` is the game's, which says what move text is; without it (no game
/// known yet) no word is read as a move.
pub fn intent(fresh: &str, full_text: &str, subject_added: &str, variant: Option<&dyn DynVariant>) -> Intent {
    if let Some(found) = envelope(fresh) {
        return found;
    }
    let lines: Vec<&str> = fresh.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut first = None;
    for (n, line) in lines.iter().enumerate() {
        if let Some(found) = conditional(&lines[n..]) {
            return found; // issue 32
        }
        if let Some(found) = command(line) {
            return found;
        }
        match moves_in(line, variant).as_slice() {
            [] => {}
            [one] => return Intent::Move(one.clone()),
            _ => return Intent::Unreadable(clip(line)),
        }
        if is_greeting(line) {
            continue;
        }
        first = Some(n);
        break;
    }
    if let Some(n) = first {
        let bare: Vec<String> = lines[n + 1..].iter().filter_map(|l| bare_move(l, variant)).collect();
        if let [one, rest @ ..] = bare.as_slice()
            && rest.iter().all(|m| m == one)
        {
            return Intent::Move(one.clone());
        }
    }
    if let [one] = moves_in(subject_added, variant).as_slice() {
        return Intent::Move(one.clone());
    }
    if let Some(found) = envelope(full_text) {
        return found;
    }
    if full_text.lines().any(is_forward_marker) {
        return Intent::Forwarded;
    }
    match first {
        Some(n) => Intent::Unreadable(clip(lines[n])),
        None => Intent::Empty,
    }
}

// ---------------------------------------------------------------------------
// Subjects

/// Prefixes mail programs put before a subject they reply to or forward, in
/// many languages (`Re:`, `AW:`, `SV:`, `Antw:`, `WG:`, `Fwd:` …), compared
/// without case; a count (`Re[2]:`, `Re^2:`) may follow.
const REPLY_PREFIXES: &[&str] =
    &["re", "aw", "antw", "antwort", "sv", "vs", "vá", "r", "rif", "ref", "réf", "odp", "wg", "fw", "fwd", "tr", "enc"];

/// What the sender added to the subject of our mail about `game`: the text after
/// our own subject (`Re: Game 8KQ2ZJ, turn 3: your move — Nf3` gives `Nf3`), or
/// the whole subject when it is not ours (`Nf3`, `Re: Nf3`). Our subjects are the
/// ones `steward/mails.rs` writes (`Game <id>, your move 12...`, `Game <id>,
/// black to move 12.`; before issue 32 `Game <id>, turn <n>: your move`, `Game <id>:
/// turn <n> played`, `Game <id> (<variant>) begins[: your move]`); another of our
/// subjects (a notice, an answer) gives nothing, as nothing is known to be added.
pub fn subject_added<'a>(subject: &'a str, game: &str) -> &'a str {
    let mut rest = subject.trim();
    while let Some(after) = reply_prefix(rest) {
        rest = after;
    }
    let Some(ours) = strip_prefix_caseless(rest, "game ").and_then(|r| strip_prefix_caseless(r, game)) else {
        return rest;
    };
    let tail = our_subject_tail(ours).unwrap_or("");
    tail.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '-' | '–' | '—' | ':' | ',' | ';' | '|' | '/'))
}

fn strip_prefix_caseless<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}

/// The subject after one reply or forward prefix (`Re: `, `AW:`, `Re[2]: `).
fn reply_prefix(subject: &str) -> Option<&str> {
    let colon = subject.find(':')?;
    let word = subject[..colon].trim();
    let word = word.split(['[', '^']).next().unwrap_or(word).trim();
    let lower = word.to_lowercase();
    REPLY_PREFIXES.contains(&lower.as_str()).then(|| subject[colon + 1..].trim_start())
}

/// The text after the part of our subject that follows `Game <id>`, if it is one
/// whose end is known.
fn our_subject_tail(after_id: &str) -> Option<&str> {
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    // `, your move <n>.`, `, your move <n>...`, `, black to move <n>.` (issue 32)
    if let Some(r) = after_id.strip_prefix(", ") {
        let words = r.find("move ").map(|at| &r[at + "move ".len()..]).filter(|_| {
            r.starts_with("your move ")
                || r.find(" to move ").is_some_and(|at| r[..at].chars().all(|c| c.is_alphanumeric() || c == ' '))
        });
        if let Some(w) = words {
            let n = digits(w);
            if n > 0 {
                let rest = &w[n..];
                let dots = rest.len() - rest.trim_start_matches('.').len();
                if dots > 0 {
                    return Some(&rest[dots..]);
                }
            }
        }
    }
    // `, turn <n>: your move`
    if let Some(r) = after_id.strip_prefix(", turn ") {
        let n = digits(r);
        return (n > 0).then(|| r[n..].strip_prefix(": your move")).flatten();
    }
    // `: turn <n> played`
    if let Some(r) = after_id.strip_prefix(": turn ") {
        let n = digits(r);
        return (n > 0).then(|| r[n..].strip_prefix(" played")).flatten();
    }
    // ` (<variant>) begins: your move`, ` (<variant>) begins`
    if let Some(r) = after_id.strip_prefix(" (") {
        let r = &r[r.find(") begins")? + ") begins".len()..];
        return Some(r.strip_prefix(": your move").unwrap_or(r));
    }
    // A bare `Game <id>` followed by the player's text.
    after_id.starts_with(|c: char| c.is_whitespace() || matches!(c, '-' | '–' | '—')).then_some(after_id)
}

fn clip(line: &str) -> String {
    line.chars().take(200).collect()
}

// ---------------------------------------------------------------------------
// Envelopes

/// A line with quote marks (`>`, `> > `) and a PGP dash-escape (`- -----BEGIN`)
/// removed, trimmed.
fn dequote(line: &str) -> &str {
    let mut t = line.trim();
    while let Some(rest) = t.strip_prefix('>') {
        t = rest.trim_start();
    }
    if let Some(rest) = t.strip_prefix("- -") {
        t = &t[t.len() - rest.len() - 1..];
    }
    t.trim_end()
}

/// The label of an envelope BEGIN line (`FAIRSTEWARD MOVE`).
fn begin_label(line: &str) -> Option<&str> {
    let label = line.strip_prefix("-----BEGIN ")?.strip_suffix("-----")?;
    label.starts_with("FAIRSTEWARD").then_some(label)
}

/// The first envelope block of `text`, de-quoted; a BEGIN without its END is
/// unreadable.
fn envelope(text: &str) -> Option<Intent> {
    let mut lines = text.lines().map(dequote);
    let (begin, label) = lines.by_ref().find_map(|l| begin_label(l).map(|label| (l, label)))?;
    let end = format!("-----END {label}-----");
    let mut block = format!("{begin}\n");
    for line in lines {
        if line.is_empty() {
            continue;
        }
        block.push_str(line);
        block.push('\n');
        if line == end {
            return Some(Intent::Envelope(block));
        }
    }
    Some(Intent::Unreadable(clip(&format!("{begin} without its {end} line"))))
}

// ---------------------------------------------------------------------------
// Commands

/// Words dropped before a line is compared with the commands.
const FILLERS: &[&str] = &[
    "i", "i'll", "i’ll", "will", "please", "pls", "plz", "the", "a", "an", "your", "my", "this", "game", "hereby",
    "thanks", "thx", "ok", "okay", "bitte", "ich", "das", "danke", "dein", "deine", "dem",
];

const COMMANDS: &[(&str, Intent)] = &[
    ("resign", Intent::Resign),
    ("resigns", Intent::Resign),
    ("resigned", Intent::Resign),
    ("give up", Intent::Resign),
    ("aufgeben", Intent::Resign),
    ("gebe auf", Intent::Resign),
    ("draw", Intent::OfferDraw),
    ("offer draw", Intent::OfferDraw),
    ("draw offer", Intent::OfferDraw),
    ("propose draw", Intent::OfferDraw),
    ("remis", Intent::OfferDraw),
    ("biete remis", Intent::OfferDraw),
    ("remis anbieten", Intent::OfferDraw),
    ("accept", Intent::AcceptDraw),
    ("accepted", Intent::AcceptDraw),
    ("accept draw", Intent::AcceptDraw),
    ("accept draw offer", Intent::AcceptDraw),
    ("draw accepted", Intent::AcceptDraw),
    ("draw offer accepted", Intent::AcceptDraw),
    ("agree draw", Intent::AcceptDraw),
    ("draw agreed", Intent::AcceptDraw),
    ("remis angenommen", Intent::AcceptDraw),
    ("remis annehmen", Intent::AcceptDraw),
    ("nehme remis an", Intent::AcceptDraw),
    ("decline", Intent::DeclineDraw),
    ("declined", Intent::DeclineDraw),
    ("decline draw", Intent::DeclineDraw),
    ("decline draw offer", Intent::DeclineDraw),
    ("draw declined", Intent::DeclineDraw),
    ("draw offer declined", Intent::DeclineDraw),
    ("reject draw", Intent::DeclineDraw),
    ("refuse draw", Intent::DeclineDraw),
    ("no draw", Intent::DeclineDraw),
    ("remis abgelehnt", Intent::DeclineDraw),
    ("remis ablehnen", Intent::DeclineDraw),
    ("lehne remis ab", Intent::DeclineDraw),
    ("status", Intent::Status),
    ("board", Intent::Status),
    ("show board", Intent::Status),
    ("standings", Intent::Standings),
    ("standing", Intent::Standings),
    ("show standings", Intent::Standings),
    ("table", Intent::Standings),
    ("tabelle", Intent::Standings),
    ("help", Intent::Help),
    ("hilfe", Intent::Help),
    ("commands", Intent::Help),
];

/// Characters trimmed off both ends of a word.
fn is_word_punct(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '"'
            | '\''
            | '('
            | ')'
            | '['
            | ']'
            | '*'
            | '_'
            | '“'
            | '”'
            | '‘'
            | '’'
            | '„'
            | '«'
            | '»'
            | '¡'
            | '¿'
    )
}

/// A command on `line`, if the whole line or its first sentence is one
/// (`I resign. Well played!`).
fn command(line: &str) -> Option<Intent> {
    if let Some(found) = whole_command(line) {
        return Some(found);
    }
    let end = line.char_indices().find_map(|(i, c)| {
        let rest = &line[i + c.len_utf8()..];
        (matches!(c, '.' | '!' | '?') && rest.starts_with(char::is_whitespace) && !rest.trim().is_empty())
            .then_some(i + c.len_utf8())
    })?;
    whole_command(&line[..end]).filter(|found| !matches!(found, Intent::Unreadable(_)))
}

/// A command that is the whole of `line`.
fn whole_command(line: &str) -> Option<Intent> {
    if line.trim() == "?" {
        return Some(Intent::Help);
    }
    let lower = line.to_lowercase();
    let words: Vec<&str> =
        lower.split_whitespace().map(|w| w.trim_matches(is_word_punct)).filter(|w| !w.is_empty()).collect();
    if words.first() == Some(&"leave") {
        return leave(&words[1..]).or_else(|| Some(Intent::Unreadable(clip(line))));
    }
    // Issue 32: the mail setting, an alias, a new address.
    if matches!(words.first(), Some(&"mail" | &"mails")) {
        return mail_setting(&words[1..]).or_else(|| Some(Intent::Unreadable(clip(line))));
    }
    if let [first, rest @ ..] = words.as_slice()
        && let Some(make) = address_command(first)
    {
        return match rest {
            [address] if address.contains('@') => Some(make(address.trim_matches(['<', '>']).to_owned())),
            // `alias` followed by nothing like an address is not this command.
            _ => rest.iter().any(|w| w.contains('@')).then(|| Intent::Unreadable(clip(line))),
        };
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words[i] == "thank" && words.get(i + 1) == Some(&"you") {
            i += 2;
            continue;
        }
        if !FILLERS.contains(&words[i]) {
            kept.push(words[i]);
        }
        i += 1;
    }
    let key = kept.join(" ");
    COMMANDS.iter().find(|(k, _)| *k == key).map(|(_, intent)| intent.clone())
}

/// The command word of `alias ADDRESS` and `address ADDRESS` (also `email`,
/// `new address`'s first word is not one: the whole line is one word and an
/// address).
fn address_command(word: &str) -> Option<fn(String) -> Intent> {
    match word {
        "alias" | "add-alias" => Some(Intent::Alias),
        "address" | "email" | "e-mail" | "adresse" => Some(Intent::Address),
        _ => None,
    }
}

/// The words after `mail`: `every`, `my turn`, `digest [at] 7`, `pictures
/// attached|linked|none`, `encrypted|plain` (issue 33), in any order and with
/// filler words; nothing asks for the setting. `None` for a word that is none
/// of these.
fn mail_setting(words: &[&str]) -> Option<Intent> {
    use crate::store::{Delivery, MailSettingsChange, Pictures};
    const SKIP: &[&str] = &[
        "at", "only", "when", "it", "is", "it's", "its", "a", "per", "day", "please", "pls", "on", "hour", "utc", "me",
        "send", "mail", "mails", "me", "to", "be", "one", "o'clock", "oclock", "h", "am", "and", "with", "setting",
        "settings", "thanks", "danke", "bitte", "board",
    ];
    let mut change = MailSettingsChange::default();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let next = words.get(i + 1).copied();
        match w {
            "every" | "all" | "each" | "always" => change.delivery = Some(Delivery::Every),
            "my" => {
                if !matches!(next, Some("turn" | "move" | "moves" | "turns")) {
                    return None;
                }
                change.delivery = Some(Delivery::MyTurn);
                i += 1;
            }
            "my_turn" | "myturn" => change.delivery = Some(Delivery::MyTurn),
            "move" | "moves" | "turn" | "turns" => {}
            "digest" | "daily" | "once" => change.delivery = Some(Delivery::Digest),
            "picture" | "pictures" | "image" | "images" | "png" => {
                let p = match next {
                    Some("attached" | "attach" | "on" | "yes" | "inline") => Pictures::Attached,
                    Some("linked" | "link" | "links") => Pictures::Linked,
                    Some("none" | "off" | "no" | "never") => Pictures::None,
                    _ => return None,
                };
                change.pictures = Some(p);
                i += 1;
            }
            // Issue 33: the steward's mails encrypted to the player's OpenPGP key.
            "encrypted" | "encrypt" | "encryption" | "pgp" | "openpgp" => {
                change.encrypt = Some(!matches!(next, Some("off" | "no" | "never")));
                if matches!(next, Some("off" | "no" | "never" | "on" | "yes")) {
                    i += 1;
                }
            }
            "plain" | "unencrypted" | "cleartext" => change.encrypt = Some(false),
            "no" if matches!(next, Some("encryption")) => {
                change.encrypt = Some(false);
                i += 1;
            }
            "attached" => change.pictures = Some(Pictures::Attached),
            "linked" => change.pictures = Some(Pictures::Linked),
            "no" if matches!(next, Some("picture" | "pictures" | "images" | "image")) => {
                change.pictures = Some(Pictures::None);
                i += 1;
            }
            "text" if matches!(next, Some("only")) => {
                change.pictures = Some(Pictures::None);
                i += 1;
            }
            w if SKIP.contains(&w) => {}
            w => {
                // An hour: `7`, `07`, `7h`, `7:00`, `07.00`, `7am`, `7pm`.
                let (digits, rest) = w.split_at(w.find(|c: char| !c.is_ascii_digit()).unwrap_or(w.len()));
                let hour: u32 = digits.parse().ok()?;
                let pm = matches!(rest, "pm" | "p.m") || next == Some("pm");
                let hour = match rest {
                    "" | "h" | "am" | "pm" | "a.m" | "p.m" | ":00" | ".00" | "uhr" => hour,
                    _ => return None,
                };
                let hour = if pm && hour < 12 { hour + 12 } else { hour };
                // Out of range is the steward's to refuse, with what to send.
                change.digest_hour = Some(u8::try_from(hour.min(255)).ok()?);
                if change.delivery.is_none() {
                    change.delivery = Some(Delivery::Digest);
                }
                if next == Some("pm") {
                    i += 1;
                }
            }
        }
        i += 1;
    }
    Some(Intent::Mail(change))
}

/// `leave D1 [to|until|till|bis|-] D2` or `leave D1`: dates as `2026-12-24` or
/// `24.12.2026`; the last day is not before the first.
fn leave(words: &[&str]) -> Option<Intent> {
    const CONNECTORS: &[&str] = &[
        "from", "to", "until", "till", "through", "thru", "bis", "vom", "von", "-", "–", "—", "on", "please", "pls",
        "bitte", "thanks", "danke",
    ];
    let mut dates = Vec::new();
    for word in words {
        let word = word.trim_matches(|c: char| is_word_punct(c) && c != '.').trim_end_matches('.');
        if CONNECTORS.contains(&word) {
            continue;
        }
        if let Some(d) = date(word) {
            dates.push(d);
            continue;
        }
        // `2026-12-24–2027-01-02` or `2026-12-24-2027-01-02` as one word.
        let split = word.split_once(['–', '—']).or_else(|| {
            let cut = word.match_indices('-').nth(2)?.0;
            Some((&word[..cut], &word[cut + 1..]))
        })?;
        dates.push(date(split.0)?);
        dates.push(date(split.1)?);
    }
    let (from, to) = match dates.as_slice() {
        [one] => (*one, *one),
        [from, to] => (*from, *to),
        _ => return None,
    };
    (from <= to).then_some(Intent::Leave { from, to })
}

fn date(word: &str) -> Option<NaiveDate> {
    crate::clock::leave::parse_day(word).or_else(|| crate::clock::leave::parse_dotted_day(word))
}

fn is_greeting(line: &str) -> bool {
    const GREETINGS: &[&str] = &[
        "hi",
        "hello",
        "hey",
        "dear",
        "hallo",
        "moin",
        "servus",
        "liebe",
        "lieber",
        "bonjour",
        "salut",
        "ciao",
        "hola",
        "greetings",
        "howdy",
        "good",
    ];
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    words.len() <= 4 && words.first().is_some_and(|w| GREETINGS.contains(&w.trim_matches(is_word_punct)))
}

// ---------------------------------------------------------------------------
// Moves

/// The distinct move tokens of a line, in order.
fn moves_in(line: &str, variant: Option<&dyn DynVariant>) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for word in line.split_whitespace() {
        if let Some(m) = move_token(word, variant)
            && !found.contains(&m)
        {
            found.push(m);
        }
    }
    found
}

/// The move of a line that holds nothing else (a move number and annotation
/// marks aside).
fn bare_move(line: &str, variant: Option<&dyn DynVariant>) -> Option<String> {
    let mut words = line.split_whitespace().filter(|w| !is_move_number(w.trim_matches(is_word_punct)));
    let m = move_token(words.next()?, variant)?;
    words.all(|w| matches!(w, "e.p." | "ep" | "!" | "?" | "!!" | "??" | "!?" | "?!")).then_some(m)
}

fn is_move_number(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

/// One word as a move: cleaned (see [`Intent::Move`]) if the variant reads it as
/// move text.
fn move_token(word: &str, variant: Option<&dyn DynVariant>) -> Option<String> {
    let variant = variant?;
    let mut t: String = word
        .chars()
        .map(|c| match c {
            '♔' | '♚' => 'K',
            '♕' | '♛' => 'Q',
            '♖' | '♜' => 'R',
            '♗' | '♝' => 'B',
            '♘' | '♞' => 'N',
            '–' | '—' => '-',
            c => c,
        })
        .collect();
    t = t.trim_matches(|c: char| is_word_punct(c) && !matches!(c, '!' | '?' | '.')).to_owned();
    t = t.trim_start_matches(['!', '?', '.']).to_owned();
    if let Some(rest) = t.strip_suffix("e.p.").or_else(|| t.strip_suffix("ep.")) {
        t = rest.to_owned();
    }
    t = t.trim_end_matches(['!', '?', '.']).to_owned();
    // A move number glued on: `1.e4`, `12...Nf6`, `1…e5`.
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        let after = &t[digits..];
        let rest = after.trim_start_matches(['.', '…']);
        if rest.len() < after.len() {
            t = rest.to_owned();
        }
    }
    if variant.move_text(&t).is_some() {
        return Some(t);
    }
    // A file a phone capitalised (`E4`, `Exd5`): lowered when only that reads.
    if t.starts_with(|c: char| c.is_ascii_uppercase()) {
        let lowered = format!("{}{}", t[..1].to_ascii_lowercase(), &t[1..]);
        if variant.move_text(&lowered).is_some() {
            return Some(lowered);
        }
    }
    None
}

// ---------------------------------------------------------------------------
// Invitations (issue 31, slice D)

/// What a reply to an invitation mail says: accept, decline, or neither.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvitationIntent {
    /// `accept`, `yes`, `I accept`, `annehmen`, `zusagen` …
    Accept,
    /// `decline`, `no`, `ablehnen`, `absagen` …
    Decline,
    /// The first line, read as neither (clipped).
    Other(String),
    /// Nothing but quotes and signatures.
    Empty,
}

const INVITATION_WORDS: &[(&str, bool)] = &[
    ("accept", true),
    ("accepted", true),
    ("accept invitation", true),
    ("yes", true),
    ("yes accept", true),
    ("join", true),
    ("annehmen", true),
    ("angenommen", true),
    ("zusagen", true),
    ("ja", true),
    ("decline", false),
    ("declined", false),
    ("decline invitation", false),
    ("no", false),
    ("no decline", false),
    ("sorry decline", false),
    ("ablehnen", false),
    ("abgelehnt", false),
    ("absagen", false),
    ("nein", false),
];

/// What the sender's own text `fresh` answers an invitation: its first
/// meaningful line (greetings skipped), matched whole after dropping
/// punctuation and filler words, so `I accept, thanks!` and `Decline.` are read.
pub fn invitation_intent(fresh: &str) -> InvitationIntent {
    let Some(line) = fresh.lines().map(str::trim).filter(|l| !l.is_empty()).find(|l| !is_greeting(l)) else {
        return InvitationIntent::Empty;
    };
    let lower = line.to_lowercase();
    let key: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(is_word_punct))
        .filter(|w| !w.is_empty() && !FILLERS.contains(w))
        .collect();
    match INVITATION_WORDS.iter().find(|(k, _)| *k == key.join(" ")) {
        Some((_, true)) => InvitationIntent::Accept,
        Some((_, false)) => InvitationIntent::Decline,
        None => InvitationIntent::Other(clip(line)),
    }
}

#[cfg(test)]
mod invitation_tests {
    use super::*;

    #[test]
    fn invitation_answers_are_read_from_the_first_line() {
        assert_eq!(invitation_intent("Accept"), InvitationIntent::Accept);
        assert_eq!(invitation_intent("Hi Steward,\n\nI accept, thanks!\n"), InvitationIntent::Accept);
        assert_eq!(invitation_intent("decline."), InvitationIntent::Decline);
        assert_eq!(invitation_intent("Yes, I accept!"), InvitationIntent::Accept);
        assert_eq!(invitation_intent("Sorry, I decline."), InvitationIntent::Decline);
        assert_eq!(invitation_intent("Nein"), InvitationIntent::Decline);
        assert_eq!(invitation_intent("maybe later"), InvitationIntent::Other("maybe later".into()));
        assert_eq!(invitation_intent("  \n"), InvitationIntent::Empty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::chess::Chess;
    use crate::rules::{Options, VariantId};

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    /// The mail as a chess game's variant reads it.
    fn chess(fresh: &str, full: &str) -> Intent {
        intent(fresh, full, "", Some(&Chess))
    }

    fn vierschach(fresh: &str) -> Intent {
        let v = VariantId::Vierschach.rulebook(&Options::new()).unwrap();
        intent(fresh, fresh, "", Some(v.as_ref()))
    }

    #[test]
    fn conditional_lines_commands_and_their_end() {
        // issue 32: lines from the first `if` on, as long as lines start with `if`.
        let c = |words: ConditionalWords| Intent::Conditional(words);
        assert_eq!(
            chess("if Nf6 then e5, if Nc6 then Nf3", ""),
            c(ConditionalWords::Set("if Nf6 then e5, if Nc6 then Nf3".into()))
        );
        assert_eq!(
            chess("Hello,\nIF Nf6 then e5\nif Nc6 then Nf3 if d6 then d4\n\nBest, Bob", ""),
            c(ConditionalWords::Set("IF Nf6 then e5\nif Nc6 then Nf3 if d6 then d4".into()))
        );
        assert_eq!(chess("Conditional: if e4 then e5", ""), c(ConditionalWords::Set("if e4 then e5".into())));
        assert_eq!(chess("conditional", ""), c(ConditionalWords::List));
        assert_eq!(chess("Conditionals please", ""), c(ConditionalWords::List));
        assert_eq!(chess("conditional clear", ""), c(ConditionalWords::Clear));
        // A move that starts with none of these is still a move.
        assert_eq!(chess("e4", "e4"), Intent::Move("e4".into()));
    }

    #[test]
    fn the_variant_says_what_a_move_is() {
        // Chess: German letters, coordinates, ICCF; Vierschach: its own board.
        for (line, want) in [("Sf3", "Sf3"), ("Lxc4!", "Lxc4"), ("1. e2-e4", "e2-e4"), ("7163", "7163"), ("sf3", "sf3")]
        {
            assert_eq!(chess(line, line), Intent::Move(want.into()), "{line}");
        }
        assert_eq!(chess("k10-k12", ""), Intent::Unreadable("k10-k12".into()), "no k-file in chess");
        for (line, want) in [
            ("k10-k12", "k10-k12"),
            ("My move: k10k12, thanks", "k10k12"),
            ("e13-e14=Q", "e13-e14=Q"),
            ("Nk1-j3", "Nk1-j3"),
            ("Sj3", "Sj3"),
            ("1. d2–d4", "d2-d4"),
        ] {
            assert_eq!(vierschach(line), Intent::Move(want.into()), "{line}");
        }
        assert_eq!(vierschach("5254"), Intent::Unreadable("5254".into()), "no numeric notation in Vierschach");
        assert_eq!(vierschach("sf3"), Intent::Unreadable("sf3".into()), "upper-case piece letters only");
        // Without a game nothing is a move; commands and envelopes are still read.
        assert_eq!(intent("Nf3", "Nf3", "", None), Intent::Unreadable("Nf3".into()));
        assert_eq!(intent("resign", "", "", None), Intent::Resign);
    }

    #[test]
    fn what_the_player_added_to_our_subject() {
        let g = "8KQ2ZJ";
        for (subject, want) in [
            ("Re: Game 8KQ2ZJ, turn 3: your move — Nf3", "Nf3"),
            ("AW: Game 8KQ2ZJ, turn 3: your move Sf3", "Sf3"),
            ("RE: AW: Game 8KQ2ZJ: turn 12 played - e4", "e4"),
            ("Re[2]: Game 8KQ2ZJ (vierschach) begins: your move k10-k12", "k10-k12"),
            ("Re: Game 8KQ2ZJ (chess) begins Nf3", "Nf3"),
            ("Re: game 8kq2zj Nf3", "Nf3"),
            ("Nf3", "Nf3"),
            ("Re: Nf3", "Nf3"),
            ("Re: Game 8KQ2ZJ, turn 3: your move", ""),
            ("Re: Game 8KQ2ZJ, your move 12...", ""),
            ("Re: Game 8KQ2ZJ, your move 12. - Nf3", "Nf3"),
            ("AW: Game 8KQ2ZJ, white and black to move 3.", ""),
            ("Re: Game 8KQ2ZJ, south to move 4... Nf3", "Nf3"),
            ("Re: Game 8KQ2ZJ: draw offered by white", ""),
        ] {
            assert_eq!(subject_added(subject, g), want, "{subject}");
        }
        // Read only when the body holds no move; the body's move wins.
        let added = subject_added("Re: Game 8KQ2ZJ, turn 3: your move — Nf3", g);
        assert_eq!(intent("", "> quoted\n", added, Some(&Chess)), Intent::Move("Nf3".into()));
        assert_eq!(intent("Thanks!", "Thanks!", added, Some(&Chess)), Intent::Move("Nf3".into()));
        assert_eq!(intent("e4", "e4", added, Some(&Chess)), Intent::Move("e4".into()));
        assert_eq!(intent("resign", "resign", added, Some(&Chess)), Intent::Resign);
        // The turn number in our own subject is not a move.
        assert_eq!(
            intent("", "", subject_added("Re: Game 8KQ2ZJ, turn 5254: your move", g), Some(&Chess)),
            Intent::Empty
        );
    }

    #[test]
    fn moves_in_lines() {
        let cases = [
            ("Nf3", "Nf3"),
            ("1. e4", "e4"),
            ("e4!", "e4"),
            ("My move: Nf3", "Nf3"),
            ("Nf3 thanks", "Nf3"),
            ("12... Nf6", "Nf6"),
            ("1.e4", "e4"),
            ("“Rad1”", "Rad1"),
            ("exd6 e.p.", "exd6"),
            ("exd6e.p.", "exd6"),
            ("♘f3", "Nf3"),
            ("E4", "e4"),
            ("Exd5", "exd5"),
            ("Bc4", "Bc4"),
            ("*Nf3*", "Nf3"),
            ("I play Nf3, please.", "Nf3"),
            ("5254", "5254"),
            ("O–O", "O-O"),
        ];
        for (line, want) in cases {
            assert_eq!(chess(line, line), Intent::Move(want.to_owned()), "{line}");
        }
        assert_eq!(chess("e4 or d4?", ""), Intent::Unreadable("e4 or d4?".into()));
        assert_eq!(chess("Nf3 Nf3", ""), Intent::Move("Nf3".into()));
    }

    #[test]
    fn commands() {
        let cases = [
            ("resign", Intent::Resign),
            ("I resign.", Intent::Resign),
            ("Resign please", Intent::Resign),
            ("Draw?", Intent::OfferDraw),
            ("I offer a draw", Intent::OfferDraw),
            ("Accept draw!", Intent::AcceptDraw),
            ("I accept the draw, thank you", Intent::AcceptDraw),
            ("Remis angenommen.", Intent::AcceptDraw),
            ("decline draw", Intent::DeclineDraw),
            ("No draw, thanks.", Intent::DeclineDraw),
            ("STATUS", Intent::Status),
            ("standings", Intent::Standings),
            ("Standings, please!", Intent::Standings),
            ("Tabelle bitte", Intent::Standings),
            ("help", Intent::Help),
            ("?", Intent::Help),
            ("I resign. Well played, Alice!", Intent::Resign),
            ("Draw? The position is dead equal.", Intent::OfferDraw),
        ];
        for (line, want) in cases {
            assert_eq!(chess(line, line), want, "{line}");
        }
        assert_eq!(
            chess("I resign if you take my queen", ""),
            Intent::Unreadable("I resign if you take my queen".into())
        );
    }

    #[test]
    fn leave() {
        let want = Intent::Leave { from: d("2026-12-24"), to: d("2027-01-02") };
        for line in [
            "leave 2026-12-24 to 2027-01-02",
            "Leave 2026-12-24 until 2027-01-02.",
            "leave 2026-12-24 - 2027-01-02",
            "leave: 2026-12-24–2027-01-02",
            "leave 2026-12-24-2027-01-02",
            "leave from 2026-12-24 till 2027-01-02 please",
            "Leave 24.12.2026 bis 02.01.2027",
        ] {
            assert_eq!(chess(line, ""), want, "{line}");
        }
        assert_eq!(chess("leave 2026-12-24", ""), Intent::Leave { from: d("2026-12-24"), to: d("2026-12-24") });
        for bad in ["leave 2027-01-02 to 2026-12-24", "leave next week", "leave 2026-02-30", "leave"] {
            assert_eq!(chess(bad, ""), Intent::Unreadable(bad.into()), "{bad}");
        }
    }

    #[test]
    fn search_order() {
        let env = "-----BEGIN FAIRSTEWARD MOVE-----\ngame: 8KQ2ZJ\nmove: Nf3\n-----END FAIRSTEWARD MOVE-----\n";
        // An envelope in the fresh text wins.
        assert_eq!(chess(&format!("Hi\n{env}"), ""), Intent::Envelope(env.into()));
        // A quoted envelope: de-quoted, and only when the fresh text has no move.
        let quoted: String = env.lines().map(|l| format!("> {l}\n")).collect();
        let full = format!("Did this arrive?\n\nOn Mon, Bob wrote:\n{quoted}");
        assert_eq!(chess("Did this arrive?\n", &full), Intent::Envelope(env.into()));
        assert_eq!(chess("e4\n", &format!("e4\n{quoted}")), Intent::Move("e4".into()));
        // Greetings are skipped; a bare move on a later line is taken.
        assert_eq!(chess("Hi Steward,\n\nSorry for the delay!\n\nNf3\n\nBob\n", ""), Intent::Move("Nf3".into()));
        assert_eq!(chess("Which one?\ne4\nd4\n", ""), Intent::Unreadable("Which one?".into()));
        // Forwards.
        let fwd = "FYI\n\n---------- Forwarded message ---------\nWhite: e4\n";
        assert_eq!(chess("FYI\n", fwd), Intent::Forwarded);
        assert_eq!(chess("Nf3\n", fwd), Intent::Move("Nf3".into()));
        // Nothing at all.
        assert_eq!(chess("", "> quoted only\n"), Intent::Empty);
        // A truncated envelope.
        assert!(matches!(chess("-----BEGIN FAIRSTEWARD MOVE-----\ngame: X\n", ""), Intent::Unreadable(_)));
    }

    #[test]
    fn dequote_handles_quotes_and_dash_escapes() {
        assert_eq!(dequote("> > -----BEGIN FAIRSTEWARD MOVE-----"), "-----BEGIN FAIRSTEWARD MOVE-----");
        assert_eq!(dequote("- -----END FAIRSTEWARD MOVE-----"), "-----END FAIRSTEWARD MOVE-----");
        assert_eq!(dequote(">>seat: white  "), "seat: white");
    }
}

#[cfg(test)]
mod settings_tests {
    //! Issue 32: `mail …`, `alias …`, `address …` / `email …`.
    use super::*;
    use crate::rules::chess::Chess;
    use crate::store::{Delivery, MailSettingsChange, Pictures};

    fn read(line: &str) -> Intent {
        intent(line, line, "", Some(&Chess))
    }

    fn mail(delivery: Option<Delivery>, digest_hour: Option<u8>, pictures: Option<Pictures>) -> Intent {
        Intent::Mail(MailSettingsChange { delivery, digest_hour, pictures, encrypt: None })
    }

    #[test]
    fn the_mail_setting_is_read_tolerantly() {
        use Delivery::*;
        for (line, want) in [
            ("mail", mail(None, None, None)),
            ("Mail?", mail(None, None, None)),
            ("mail every", mail(Some(Every), None, None)),
            ("mail every move, please", mail(Some(Every), None, None)),
            ("mail my turn", mail(Some(MyTurn), None, None)),
            ("Mail: only when it is my move", mail(Some(MyTurn), None, None)),
            ("mail digest", mail(Some(Digest), None, None)),
            ("mail digest at 7", mail(Some(Digest), Some(7), None)),
            ("mail daily at 7pm", mail(Some(Digest), Some(19), None)),
            ("mail at 18:00", mail(Some(Digest), Some(18), None)),
            ("mail pictures none", mail(None, None, Some(Pictures::None))),
            ("mail pictures linked", mail(None, None, Some(Pictures::Linked))),
            ("mail pictures attached", mail(None, None, Some(Pictures::Attached))),
            ("mail no pictures", mail(None, None, Some(Pictures::None))),
            ("mail my turn, pictures off", mail(Some(MyTurn), None, Some(Pictures::None))),
            // Out of range is the steward's to refuse, saying what to send.
            ("mail digest at 25", mail(Some(Digest), Some(25), None)),
        ] {
            assert_eq!(read(line), want, "{line}");
        }
        for (line, encrypt) in [
            ("mail encrypted", true),
            ("Mail: encrypted, please", true),
            ("mail encryption on", true),
            ("mail pgp", true),
            ("mail plain", false),
            ("mail unencrypted", false),
            ("mail encryption off", false),
            ("mail no encryption", false),
        ] {
            assert_eq!(
                read(line),
                Intent::Mail(MailSettingsChange { encrypt: Some(encrypt), ..Default::default() }),
                "{line}"
            );
        }
        assert_eq!(read("mail me later"), Intent::Unreadable("mail me later".into()));
        assert_eq!(read("mail pictures maybe"), Intent::Unreadable("mail pictures maybe".into()));
    }

    #[test]
    fn alias_and_address_take_one_address() {
        assert_eq!(read("alias Work@Example.org"), Intent::Alias("work@example.org".into()));
        assert_eq!(read("Alias: <me@example.org>."), Intent::Alias("me@example.org".into()));
        assert_eq!(read("address new@example.org"), Intent::Address("new@example.org".into()));
        assert_eq!(read("email new@example.org"), Intent::Address("new@example.org".into()));
        assert_eq!(
            read("alias a@example.org b@example.org"),
            Intent::Unreadable("alias a@example.org b@example.org".into())
        );
        // `alias` without an address is not this command (and not a move either).
        assert_eq!(read("alias"), Intent::Unreadable("alias".into()));
    }
}
