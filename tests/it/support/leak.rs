//! Looking for a pending move in clear: in the bytes of every file under a data
//! directory, in mails (their transfer encodings undone) and in HTTP answers
//! (issue 11 point 3). Used by tests/it/trust/wire.rs and tests/it/store/at_rest.rs.

use std::path::{Path, PathBuf};

use fairsteward::protocol::decode_base64;

pub fn is_base64_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

/// Where `uci` or `san` stands in clear in `hay`: the UCI form anywhere except
/// inside a run of 64 or more base64 characters (signatures, sealed values and
/// base64 mail bodies, where four given letters turn up by chance); the SAN form
/// with the delimiters clear storage would give it (JSON, `key: value`, `k=v`,
/// words, line ends). Returns a description of the first find.
pub fn clear_in(hay: &[u8], uci: &str, san: &str) -> Option<String> {
    let context = |at: usize, len: usize| {
        let from = at.saturating_sub(60);
        let to = (at + len + 60).min(hay.len());
        String::from_utf8_lossy(&hay[from..to]).into_owned()
    };
    let u = uci.as_bytes();
    for at in (0..hay.len().saturating_sub(u.len() - 1)).filter(|&i| hay[i..].starts_with(u)) {
        let mut from = at;
        while from > 0 && is_base64_byte(hay[from - 1]) {
            from -= 1;
        }
        let mut to = at + u.len();
        while to < hay.len() && is_base64_byte(hay[to]) {
            to += 1;
        }
        if to - from < 64 {
            return Some(format!("{uci:?} at byte {at}: …{}…", context(at, u.len())));
        }
    }
    let forms = [
        format!("\"{san}\""),
        format!(": {san}"),
        format!("={san}"),
        format!(" {san} "),
        format!(" {san}\n"),
        format!(" {san}\r"),
        format!("\n{san}\n"),
        format!("\n{san}\r"),
        format!(">{san}<"),
        format!("{san}\n"),
        format!("'{san}'"),
        format!("({san})"),
    ];
    for form in &forms {
        let f = form.as_bytes();
        if let Some(at) = (0..hay.len().saturating_sub(f.len() - 1)).find(|&i| hay[i..].starts_with(f)) {
            return Some(format!("{form:?} at byte {at}: …{}…", context(at, f.len())));
        }
    }
    None
}

/// A mail's body with its transfer encoding undone (quoted-printable or base64),
/// so that a move cannot hide behind it; of a multipart mail, every part so
/// undone, joined.
pub fn decoded_body(mail: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(mail);
    let Some((head, body)) = text.split_once("\r\n\r\n") else { return mail.to_vec() };
    // Unfolded header fields, names in lower case.
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in head.split("\r\n") {
        if line.starts_with([' ', '\t']) {
            if let Some((_, v)) = fields.last_mut() {
                v.push(' ');
                v.push_str(line.trim());
            }
        } else if let Some((n, v)) = line.split_once(':') {
            fields.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let content_type = field("content-type").unwrap_or_default();
    if content_type.to_ascii_lowercase().starts_with("multipart/") {
        let boundary = content_type
            .split(';')
            .find_map(|p| p.trim().strip_prefix("boundary="))
            .unwrap_or_default()
            .trim_matches('"');
        let delimiter = format!("\r\n--{boundary}");
        let mut out = Vec::new();
        for part in format!("\r\n{body}").split(&delimiter).skip(1) {
            if part.starts_with("--") {
                break;
            }
            out.extend(decoded_body(part.strip_prefix("\r\n").unwrap_or(part).as_bytes()));
            out.push(b'\n');
        }
        return out;
    }
    match field("content-transfer-encoding").map(|e| e.to_ascii_lowercase()).as_deref() {
        Some("base64") => decode_base64(&body.split_whitespace().collect::<String>()).unwrap_or_default(),
        Some("quoted-printable") => {
            let bytes = body.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'=' && bytes[i + 1..].starts_with(b"\r\n") {
                    i += 3;
                } else if bytes[i] == b'=' && i + 2 < bytes.len() {
                    out.push(
                        u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("00"), 16)
                            .unwrap_or(b'?'),
                    );
                    i += 3;
                } else {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
            out
        }
        _ => body.as_bytes().to_vec(),
    }
}

/// Every file under `dir`, at any depth, with its raw bytes; a mail (`.eml`) is
/// given a second time with its body decoded ([`decoded_body`]). Named by their
/// path under `dir`.
pub fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut places = Vec::new();
    for path in paths_under(dir).into_iter().filter(|p| p.is_file()) {
        let name = path.strip_prefix(dir).unwrap_or(&path).display().to_string();
        // A file may go between listing and reading (a spool file renamed into place).
        let Ok(bytes) = std::fs::read(&path) else { continue };
        if name.ends_with(".eml") {
            places.push((format!("decoded {name}"), decoded_body(&bytes)));
        }
        places.push((name, bytes));
    }
    places
}

/// Every directory and file under `dir` (not `dir` itself), depth first, sorted.
pub fn paths_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(d) => d.filter_map(Result::ok).map(|e| e.path()).collect(),
        Err(_) => return out,
    };
    entries.sort();
    for path in entries {
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        out.push(path.clone());
        if is_dir {
            out.extend(paths_under(&path));
        }
    }
    out
}

/// Panics naming the place when any of the `pending` moves (SAN, UCI) is in
/// clear in any of `places`.
#[track_caller]
pub fn assert_nowhere_in_clear(moment: &str, places: &[(String, Vec<u8>)], pending: &[(&str, &str)]) {
    for (san, uci) in pending {
        for (place, bytes) in places {
            if let Some(found) = clear_in(bytes, uci, san) {
                panic!("{moment}: the pending move {san} ({uci}) is in clear in {place}: {found}");
            }
        }
    }
}
