//! What the sender wrote in this mail: the body text without what it quotes.
//!
//! Removed, in this order:
//! * inline PGP armor (`-----BEGIN PGP SIGNED MESSAGE-----`, its `Hash:` lines, the
//!   signature block); dash-escaped lines are unescaped;
//! * `>` quoted lines, wherever they stand (top-, bottom- and inline posting);
//! * attribution lines before a quote: `On … wrote:`, `Am … schrieb …:`, `Le … a écrit :`,
//!   `El … escribió:`, `Op … schreef …:`, `Il … ha scritto:`, `… wrote:` (also wrapped
//!   over two or three lines, as Gmail does with long addresses);
//! * everything from a signature separator (`-- `), an `-----Original Message-----`
//!   line (and its German, French, Spanish and Dutch forms), a forwarded-message
//!   marker, an Outlook header block (`From:` … `Sent:`), or a strong attribution
//!   line that is not followed by a quote;
//! * phone signatures such as `Sent from my iPhone` or `Von meinem iPhone gesendet`.
//!
//! Then blank lines are collapsed and the text is trimmed.

/// The fresh text of `text` (see the module docs).
pub(crate) fn fresh_text(text: &str) -> String {
    let lines: Vec<String> = text.lines().map(clean_line).collect();
    let lines = unwrap_clearsigned(lines);
    let mut kept: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].as_str();
        if is_quoted(line) {
            i += 1;
            continue;
        }
        if is_signature_separator(line)
            || is_original_message_marker(line)
            || is_forward_marker(line)
            || is_outlook_header_block(&lines, i)
            || (is_underscore_rule(line)
                && next_nonblank(&lines, i + 1).is_some_and(|j| is_outlook_header_block(&lines, j)))
        {
            break;
        }
        if let Some((n, strong)) = attribution(&lines, i) {
            let quote_follows = next_nonblank(&lines, i + n).is_some_and(|j| is_quoted(&lines[j]));
            if quote_follows {
                i += n;
                continue;
            }
            if strong {
                break;
            }
        }
        if !is_phone_signature(line) {
            kept.push(line);
        }
        i += 1;
    }
    let mut out = String::new();
    let mut blank = false;
    for line in kept {
        if line.trim().is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push('\n');
            blank = false;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Trailing whitespace off; no-break spaces as spaces; zero-width characters and
/// byte order marks removed.
fn clean_line(line: &str) -> String {
    line.chars()
        .filter(|c| !matches!(c, '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}'))
        .map(|c| if c == '\u{a0}' { ' ' } else { c })
        .collect::<String>()
        .trim_end()
        .to_owned()
}

/// Removes inline PGP signature armor, keeping the signed text (unescaped).
fn unwrap_clearsigned(lines: Vec<String>) -> Vec<String> {
    let Some(begin) = lines.iter().position(|l| l.trim() == "-----BEGIN PGP SIGNED MESSAGE-----") else {
        return lines;
    };
    let mut out: Vec<String> = lines[..begin].to_vec();
    let mut i = begin + 1;
    // Armor headers (`Hash: SHA256`) up to the first blank line.
    while i < lines.len() && !lines[i].trim().is_empty() {
        i += 1;
    }
    i += 1;
    while i < lines.len() && lines[i].trim() != "-----BEGIN PGP SIGNATURE-----" {
        let line = &lines[i];
        out.push(line.strip_prefix("- ").unwrap_or(line).to_owned());
        i += 1;
    }
    while i < lines.len() && lines[i].trim() != "-----END PGP SIGNATURE-----" {
        i += 1;
    }
    out.extend(lines.into_iter().skip(i + 1));
    out
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

fn next_nonblank(lines: &[String], from: usize) -> Option<usize> {
    (from..lines.len()).find(|&j| !lines[j].trim().is_empty())
}

/// `-- ` (or `--`, once trailing spaces were lost).
fn is_signature_separator(line: &str) -> bool {
    line.trim_end() == "--"
}

/// The text of a dash-framed marker line (`-----Original Message-----`,
/// `---------- Forwarded message ---------`), lower-cased; None for other lines.
fn framed(line: &str) -> Option<String> {
    let t = line.trim();
    if !t.starts_with("--") {
        return None;
    }
    Some(t.trim_matches(|c: char| c == '-' || c.is_whitespace()).to_lowercase())
}

fn is_original_message_marker(line: &str) -> bool {
    framed(line).is_some_and(|m| {
        [
            "original message",
            "ursprüngliche nachricht",
            "ursprungliche nachricht",
            "message d'origine",
            "mensaje original",
            "oorspronkelijk bericht",
            "messaggio originale",
        ]
        .contains(&m.as_str())
    })
}

/// A forwarded-message marker: Gmail's and Thunderbird's dash-framed lines, Apple
/// Mail's `Begin forwarded message:`, and their German, French and Spanish forms.
pub(crate) fn is_forward_marker(line: &str) -> bool {
    let t = line.trim().to_lowercase();
    if ["begin forwarded message:", "anfang der weitergeleiteten nachricht:", "début du message réexpédié :"]
        .contains(&t.as_str())
    {
        return true;
    }
    framed(line).is_some_and(|m| {
        [
            "forwarded message",
            "weitergeleitete nachricht",
            "message transféré",
            "mensaje reenviado",
            "messaggio inoltrato",
            "doorgestuurd bericht",
        ]
        .contains(&m.as_str())
    })
}

/// A header line of a quoted Outlook-style header block, e.g. `From: X`,
/// `*Sent:* …` (Gmail's plain text of bold labels): the label, lower-cased.
fn header_label(line: &str) -> Option<String> {
    let t = line.trim().trim_start_matches('*');
    let (label, value) = t.split_once(':')?;
    let label = label.trim_end_matches('*').trim().to_lowercase();
    (!value.trim().trim_start_matches('*').trim().is_empty() && label.len() <= 12).then_some(label)
}

/// `From:` followed within six lines by `Sent:`/`Date:` (or their German, French,
/// Spanish, Dutch and Italian forms): the header block Outlook writes above the
/// message it replies to or forwards.
fn is_outlook_header_block(lines: &[String], i: usize) -> bool {
    const FROM: &[&str] = &["from", "von", "de", "van", "da"];
    const SENT: &[&str] =
        &["sent", "date", "gesendet", "datum", "envoyé", "enviado", "fecha", "verzonden", "inviato", "data"];
    if !header_label(&lines[i]).is_some_and(|l| FROM.contains(&l.as_str())) {
        return false;
    }
    lines.iter().skip(i + 1).take(6).any(|l| header_label(l).is_some_and(|l| SENT.contains(&l.as_str())))
}

/// Outlook's rule above its header block: a line of underscores.
fn is_underscore_rule(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 10 && t.chars().all(|c| c == '_')
}

/// An attribution at line `i`: how many lines it takes (1 to 3, wrapped), and
/// whether it is a strong form (`On … wrote:`, `Am … schrieb …:` …) rather than
/// just `… wrote:`.
fn attribution(lines: &[String], i: usize) -> Option<(usize, bool)> {
    let mut joined = String::new();
    for n in 1..=3 {
        let line = lines.get(i + n - 1)?;
        if line.trim().is_empty() || is_quoted(line) {
            return None;
        }
        if n > 1 {
            joined.push(' ');
        }
        joined.push_str(line.trim());
        if joined.chars().count() > 300 {
            return None;
        }
        let lower = joined.to_lowercase();
        let strong = is_strong_attribution(&lower);
        if strong || (n == 1 && lower.ends_with(" wrote:")) {
            return Some((n, strong));
        }
        // Only a line that opens like an attribution may continue on the next.
        if n == 1 && !opens_attribution(&lower) {
            return None;
        }
    }
    None
}

fn opens_attribution(lower: &str) -> bool {
    ["on ", "am ", "le ", "el ", "op ", "il "].iter().any(|p| lower.starts_with(p))
}

fn is_strong_attribution(lower: &str) -> bool {
    let ends = |s: &str| lower.ends_with(s);
    (lower.starts_with("on ") && (ends("wrote:") || ends("wrote :")))
        || (lower.contains(" schrieb") && ends(":") && (lower.starts_with("am ") || lower.contains('@')))
        || (lower.starts_with("le ") && (ends("a écrit :") || ends("a écrit:")))
        || (lower.starts_with("el ") && ends("escribió:"))
        || (lower.starts_with("op ") && lower.contains(" schreef") && ends(":"))
        || (lower.starts_with("il ") && ends("ha scritto:"))
}

/// `Sent from my iPhone` and the like: lines a client adds, not the sender.
fn is_phone_signature(line: &str) -> bool {
    let t = line.trim().to_lowercase();
    if t.chars().count() > 80 {
        return false;
    }
    let t = t.trim_end_matches('.');
    [
        "sent from my ",
        "sent from outlook",
        "sent from mail for ",
        "sent from yahoo mail",
        "sent with proton mail",
        "get outlook for ",
    ]
    .iter()
    .any(|p| t.starts_with(p))
        || (t.starts_with("von meinem ") && t.ends_with("gesendet"))
        || ["gesendet von meinem ", "gesendet mit der ", "envoyé de mon ", "enviado desde mi ", "inviato da "]
            .iter()
            .any(|p| t.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bottom_post_keeps_what_follows_the_quote() {
        let text = "On 23/11/2026 14:02, Fairsteward wrote:\n> Your move.\n> -- \n> Fairsteward\n\nNf3\n\n-- \nAlice\n";
        assert_eq!(fresh_text(text), "Nf3\n");
    }

    #[test]
    fn top_post_with_wrapped_gmail_attribution() {
        let text =
            "e4\n\nOn Mon, 23 Nov 2026 at 14:02, Fairsteward <\nmoves+x@steward.example> wrote:\n\n> Your move\n";
        assert_eq!(fresh_text(text), "e4\n");
    }

    #[test]
    fn outlook_blocks_cut_the_rest() {
        let a = "Rad1\r\n\r\n-----Original Message-----\r\nFrom: Fairsteward\r\nNf3\r\n";
        assert_eq!(fresh_text(a), "Rad1\n");
        let b = "decline draw\n\n________________________________\nFrom: Fairsteward <m@s>\nSent: Monday\nTo: Bob\n\nDraw?\n";
        assert_eq!(fresh_text(b), "decline draw\n");
        let c = "Resign\n\n*From:* Fairsteward <m@s>\n*Sent:* Monday\n\ne4\n";
        assert_eq!(fresh_text(c), "Resign\n");
    }

    #[test]
    fn forward_marker_cuts() {
        let text = "FYI\n\n---------- Forwarded message ---------\nFrom: Fairsteward\n\nWhite: e4 - played\n";
        assert_eq!(fresh_text(text), "FYI\n");
        assert!(is_forward_marker("-------- Forwarded Message --------"));
        assert!(is_forward_marker("Begin forwarded message:"));
        assert!(!is_forward_marker("I forwarded message to you"));
    }

    #[test]
    fn pgp_clearsigned_armor_goes() {
        let text = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nQxf7#\n\n- -- \nAlice\n-----BEGIN PGP SIGNATURE-----\n\niQEz\n=abcd\n-----END PGP SIGNATURE-----\n";
        assert_eq!(fresh_text(text), "Qxf7#\n");
    }

    #[test]
    fn phone_signatures_and_plain_wrote_lines() {
        let text =
            "O-O\n\nSent from my iPhone\n\n> On 23 Nov 2026, at 14:02, Fairsteward <m@s> wrote:\n>\n> Your move\n";
        assert_eq!(fresh_text(text), "O-O\n");
        // "… wrote:" followed by unquoted text is the sender's own words.
        assert_eq!(fresh_text("My coach wrote:\nplay e4\n"), "My coach wrote:\nplay e4\n");
    }

    #[test]
    fn german_attribution() {
        let text = "Remis angenommen.\n\nGrüße\nJürgen\n\nAm 23.11.2026 um 14:02 schrieb Fairsteward:\n> Remis?\n";
        assert_eq!(fresh_text(text), "Remis angenommen.\n\nGrüße\nJürgen\n");
    }
}
