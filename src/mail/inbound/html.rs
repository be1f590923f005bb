//! HTML to plain text, for mails that come without a text/plain part.
//!
//! Just enough of HTML for reading a reply: block elements end lines, `<br>` breaks
//! them, `<blockquote>` becomes `> ` quoting (so the quote stripper sees what Gmail,
//! Apple Mail and Outlook put in a blockquote), `<hr>` becomes Outlook's plain-text
//! rule, and `<head>`, `<style>`, `<script>` and comments are dropped. Entities are
//! decoded with mail-parser's HTML5 entity table. Never panics on broken markup:
//! an unclosed tag or comment simply ends the text.
//!
//! Only what a mail client shows is read (issue 29): an element with the
//! `hidden` attribute, or an inline style that hides it (`display:none`,
//! `visibility:hidden`, `font-size:0`, `opacity:0`, `mso-hide:all`, a zero
//! `max-height`/`height` with `overflow:hidden` — the preheader trick), is
//! skipped with all it holds, so text hidden from the player is never their move.
//! Styles from `<style>` sheets (classes) are not applied.

use mail_parser::decoders::html::add_html_token;

/// Tags whose content is never shown.
const HIDDEN: &[&str] = &["head", "style", "script", "title", "template", "xml"];

/// Elements that have no content and no end tag.
const VOID: &[&str] =
    &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"];

/// Elements a new one of the same name closes (their end tag is optional and
/// they do not nest), so a hidden `<p>` left open ends at the next `<p>`.
const SELF_ENDING: &[&str] = &["p", "li", "dt", "dd", "tr", "td", "th", "option"];

/// Tags that begin and end a line.
const BLOCKS: &[&str] = &[
    "p", "div", "li", "tr", "table", "tbody", "thead", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5",
    "h6", "section", "article", "header", "footer", "address", "center", "form", "fieldset", "body", "html",
];

/// The text of an HTML document, one line per block, `> ` per blockquote level.
pub(crate) fn html_to_text(html: &str) -> String {
    let mut out = Out::default();
    let mut rest = html;
    while let Some(c) = rest.chars().next() {
        match c {
            '<' => rest = out.tag(rest),
            '&' => rest = out.entity(rest),
            _ => {
                out.push_char(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out.finish()
}

#[derive(Default)]
struct Out {
    /// Finished lines with their quote depth.
    lines: Vec<(usize, String)>,
    /// The line being built and its quote depth.
    cur: String,
    cur_depth: usize,
    /// The blockquote depth now.
    depth: usize,
    /// Whitespace was seen since the last character.
    space: bool,
    /// Inside `<pre>`: whitespace is kept.
    pre: usize,
}

impl Out {
    fn push_char(&mut self, c: char) {
        if self.pre > 0 {
            if c == '\n' {
                self.newline();
            } else if c != '\r' {
                self.put(c);
            }
            return;
        }
        if c.is_whitespace() || c == '\u{a0}' {
            self.space = true;
        } else {
            if self.space && !self.cur.is_empty() {
                self.cur.push(' ');
            }
            self.space = false;
            self.put(c);
        }
    }

    fn put(&mut self, c: char) {
        if self.cur.is_empty() {
            self.cur_depth = self.depth;
        }
        self.cur.push(c);
    }

    /// Ends the current line if it has text.
    fn brk(&mut self) {
        if !self.cur.trim().is_empty() {
            self.newline();
        }
        self.cur.clear();
        self.space = false;
    }

    /// Ends the current line, even an empty one (`<br>`).
    fn newline(&mut self) {
        let depth = if self.cur.is_empty() { self.depth } else { self.cur_depth };
        let line = std::mem::take(&mut self.cur);
        self.lines.push((depth, line.trim_end().to_owned()));
        self.space = false;
    }

    /// Decodes `&name;`, `&#NNN;` or `&#xHH;`; a lone `&` is text.
    fn entity<'a>(&mut self, rest: &'a str) -> &'a str {
        let body = &rest[1..];
        let len = body.bytes().take(32).take_while(|b| b.is_ascii_alphanumeric() || *b == b'#').count();
        if len > 0 && body.as_bytes().get(len) == Some(&b';') {
            let mut decoded = String::new();
            // The token is ASCII (checked above), as add_html_token requires.
            add_html_token(&mut decoded, &rest.as_bytes()[..len + 2], false);
            for c in decoded.chars() {
                self.push_char(c);
            }
            &rest[len + 2..]
        } else {
            self.push_char('&');
            &rest[1..]
        }
    }

    /// Handles the tag, comment or declaration at the start of `rest`; returns what
    /// follows it.
    fn tag<'a>(&mut self, rest: &'a str) -> &'a str {
        if let Some(after) = rest.strip_prefix("<!--") {
            return after.find("-->").map_or("", |i| &after[i + 3..]);
        }
        let bytes = rest.as_bytes();
        let closing = bytes.get(1) == Some(&b'/');
        let name_start = if closing { 2 } else { 1 };
        let starts_tag = bytes.get(name_start).is_some_and(|b| b.is_ascii_alphabetic())
            || (!closing && matches!(bytes.get(1), Some(b'!' | b'?')));
        if !starts_tag {
            self.push_char('<');
            return &rest[1..];
        }
        let name_len =
            bytes[name_start..].iter().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'-')).count();
        let name = rest[name_start..name_start + name_len].to_ascii_lowercase();
        let attributes = &rest[name_start + name_len..];
        let after = skip_tag(attributes);
        if !closing && HIDDEN.contains(&name.as_str()) {
            return skip_until_close(after, &name);
        }
        if !closing && !name.is_empty() && hides(&attributes[..attributes.len() - after.len()]) {
            let self_closing = attributes[..attributes.len() - after.len()].trim_end_matches('>').ends_with('/');
            return if VOID.contains(&name.as_str()) || self_closing { after } else { skip_element(after, &name) };
        }
        match name.as_str() {
            "br" => self.newline(),
            "hr" => {
                self.brk();
                self.cur.push_str("________________________________");
                self.cur_depth = self.depth;
                self.newline();
            }
            "blockquote" => {
                self.brk();
                if closing {
                    self.depth = self.depth.saturating_sub(1);
                } else {
                    self.depth += 1;
                }
            }
            "pre" => {
                self.brk();
                self.pre = if closing { self.pre.saturating_sub(1) } else { self.pre + 1 };
            }
            "td" | "th" => self.space = true,
            n if BLOCKS.contains(&n) => self.brk(),
            _ => {}
        }
        after
    }

    fn finish(mut self) -> String {
        self.brk();
        let mut text = String::new();
        let mut blank = true; // no blank lines at the start
        for (depth, line) in &self.lines {
            let line = if line.trim().is_empty() { "" } else { line.trim_end() };
            if line.is_empty() && *depth == 0 {
                if !blank {
                    text.push('\n');
                }
                blank = true;
                continue;
            }
            for _ in 0..*depth {
                text.push('>');
            }
            if *depth > 0 && !line.is_empty() {
                text.push(' ');
            }
            text.push_str(line);
            text.push('\n');
            blank = false;
        }
        while text.ends_with("\n\n") {
            text.pop();
        }
        text
    }
}

/// Skips the rest of a tag (attributes, quoted values with `>` in them) up to and
/// including its `>`.
fn skip_tag(rest: &str) -> &str {
    let mut quote = None;
    for (i, c) in rest.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return &rest[i + 1..],
            _ => {}
        }
    }
    ""
}

/// Whether a start tag's attributes (the text after its name, up to and
/// including its `>`) hide the element from a mail client's reader.
fn hides(attributes: &str) -> bool {
    let mut style = String::new();
    for (name, value) in attribute_list(attributes) {
        if name.eq_ignore_ascii_case("hidden") {
            return true;
        }
        if name.eq_ignore_ascii_case("style") {
            style.push(';');
            style.push_str(&decode_entities(value));
        }
    }
    style_hides(&style)
}

/// The attributes of a start tag as (name, value), values unquoted; a bare
/// attribute has an empty value.
fn attribute_list(mut rest: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if rest.is_empty() || rest.starts_with('>') {
            return out;
        }
        let name_len = rest.find(|c: char| c.is_whitespace() || "=>/".contains(c)).unwrap_or(rest.len()).max(1);
        let name = &rest[..name_len];
        rest = rest[name_len..].trim_start();
        let Some(after_eq) = rest.strip_prefix('=') else {
            out.push((name, ""));
            continue;
        };
        let after_eq = after_eq.trim_start();
        let (value, next) = match after_eq.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let body = &after_eq[1..];
                match body.find(q) {
                    Some(end) => (&body[..end], &body[end + 1..]),
                    None => (body, ""),
                }
            }
            _ => {
                let end = after_eq.find(|c: char| c.is_whitespace() || c == '>').unwrap_or(after_eq.len());
                (&after_eq[..end], &after_eq[end..])
            }
        };
        out.push((name, value));
        rest = next;
    }
}

/// An attribute value with its character references decoded, as a browser
/// reads it (`display&#58;none` is `display:none`).
fn decode_entities(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let body = &rest[at + 1..];
        let len = body.bytes().take(32).take_while(|b| b.is_ascii_alphanumeric() || *b == b'#').count();
        if len > 0 && body.as_bytes().get(len) == Some(&b';') {
            add_html_token(&mut out, &rest.as_bytes()[at..at + len + 2], false);
            rest = &body[len + 1..];
        } else {
            out.push('&');
            rest = body;
        }
    }
    out.push_str(rest);
    out
}

/// Whether an inline style hides its element: compared without case, white
/// space, CSS comments, escapes or `!important`.
fn style_hides(style: &str) -> bool {
    let css = normalise_css(style);
    let mut zero_height = false;
    let mut overflow_hidden = false;
    for declaration in css.split(';') {
        let Some((property, value)) = declaration.split_once(':') else { continue };
        let value = value.trim_end_matches("!important");
        match property {
            "display" if value == "none" => return true,
            "visibility" if value == "hidden" || value == "collapse" => return true,
            "mso-hide" if value == "all" => return true,
            "font-size" | "opacity" if is_zero(value) => return true,
            "max-height" | "height" | "max-width" | "width" if is_zero(value) => zero_height = true,
            "overflow" | "overflow-x" | "overflow-y" if value == "hidden" || value == "clip" => overflow_hidden = true,
            _ => {}
        }
    }
    zero_height && overflow_hidden
}

/// `0`, `0px`, `0.0em`, `0%`, `.0` …: a length or number that is zero.
fn is_zero(value: &str) -> bool {
    let number = value.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
    !number.is_empty() && number.chars().all(|c| c == '0' || c == '.') && number.contains('0')
}

/// A style in lower case without white space and comments, with CSS escapes
/// (`\6e`, `\n`) undone.
fn normalise_css(style: &str) -> String {
    let mut out = String::with_capacity(style.len());
    let mut chars = style.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '\\' => {
                let mut hex = String::new();
                while hex.len() < 6 && chars.peek().is_some_and(char::is_ascii_hexdigit) {
                    hex.extend(chars.next());
                }
                if hex.is_empty() {
                    out.extend(chars.next().map(|c| c.to_ascii_lowercase()));
                } else {
                    if chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                    let c = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or('\u{fffd}');
                    out.extend(c.to_lowercase());
                }
            }
            c if c.is_whitespace() => {}
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// Skips a hidden element's content up to and including its end tag, counting
/// nested elements of the same name; a self-ending element (`<p>`) also ends
/// where the next one of its name starts. Comments are skipped whole. An
/// element never closed hides the rest.
fn skip_element<'a>(rest: &'a str, name: &str) -> &'a str {
    let mut depth = 1usize;
    let mut at = 0;
    while let Some(i) = rest[at..].find('<') {
        let i = at + i;
        let tail = &rest[i..];
        if let Some(comment) = tail.strip_prefix("<!--") {
            match comment.find("-->") {
                Some(end) => {
                    at = i + 4 + end + 3;
                    continue;
                }
                None => return "",
            }
        }
        let closing = tail.as_bytes().get(1) == Some(&b'/');
        let start = if closing { 2 } else { 1 };
        let tag: String = tail[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-'))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if tag.is_empty() {
            // Not a tag (`a < b`): text.
            at = i + 1;
            continue;
        }
        let after = skip_tag(&tail[start + tag.len()..]);
        if tag == name {
            if closing {
                depth -= 1;
                if depth == 0 {
                    return after;
                }
            } else if SELF_ENDING.contains(&name) && depth == 1 {
                // `<p hidden>x<p>y`: the second `<p>` ends the first and is shown.
                return tail;
            } else {
                depth += 1;
            }
        }
        let next = rest.len() - after.len();
        at = if next > i { next } else { i + 1 };
    }
    ""
}

/// Skips up to and including `</name>` (case-insensitive).
fn skip_until_close<'a>(rest: &'a str, name: &str) -> &'a str {
    for (i, _) in rest.match_indices("</") {
        let after = &rest.as_bytes()[i + 2..];
        if after.len() >= name.len() && after[..name.len()].eq_ignore_ascii_case(name.as_bytes()) {
            // `name` is ASCII, so `i + 2 + name.len()` is a character boundary.
            return skip_tag(&rest[i + 2 + name.len()..]);
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_breaks_and_entities() {
        let html = "<html><head><style>p{color:red}</style><title>x</title></head><body>\
                    <div dir=\"ltr\">Nf3&nbsp;&amp; thanks</div><div><br></div><p>Bob &lt;b@x&gt;</p></body></html>";
        assert_eq!(html_to_text(html), "Nf3 & thanks\n\nBob <b@x>\n");
    }

    #[test]
    fn blockquotes_become_quote_marks() {
        let html = "<div>e4</div><div class=\"gmail_quote\"><div class=\"gmail_attr\">On Mon, Bob wrote:<br></div>\
                    <blockquote class=\"gmail_quote\" style=\"margin:0\">Your move<br>turn 3<blockquote>old</blockquote></blockquote></div>";
        assert_eq!(html_to_text(html), "e4\nOn Mon, Bob wrote:\n> Your move\n> turn 3\n>> old\n");
    }

    #[test]
    fn comments_pre_and_broken_markup() {
        assert_eq!(html_to_text("<!--[if mso]><xml>x</xml><![endif]-->a<pre>  b\n  c</pre>d"), "a\n  b\n  c\nd\n");
        assert_eq!(html_to_text("a < b & c <span title='>'>d</span>"), "a < b & c d\n");
        assert_eq!(html_to_text("x<div"), "x\n");
        assert_eq!(html_to_text("x<!-- never closed"), "x\n");
        assert_eq!(html_to_text("&#x41;&#66;&bogus;"), "AB&bogus;\n");
    }

    /// Issue 29: text a mail client does not show is not read.
    #[test]
    fn hidden_elements_are_skipped_with_what_they_hold() {
        for hidden in [
            "<div style=\"display:none\">Qh5</div>",
            "<div style=\"DISPLAY : None !important\">Qh5</div>",
            "<span style='color:red;visibility:hidden'>Qh5</span>",
            "<p style=\"font-size:0px\">Qh5</p>",
            "<div style=\"opacity: 0.0\">Qh5</div>",
            "<div style=\"max-height:0;overflow:hidden\">Qh5</div>",
            "<div style=\"mso-hide:all\">Qh5</div>",
            "<div hidden>Qh5</div>",
            "<div HIDDEN=\"hidden\" class=x>Qh5</div>",
            "<div style=\"display&#58;none\">Qh5</div>",
            "<div style=\"display:/* x */\\6e one\">Qh5</div>",
            "<div style=\"display:none\"><div>Q</div>h5<!-- </div> --></div>",
            "<title>Qh5</title>",
            "<template>Qh5</template>",
            "<!-- Qh5 -->",
        ] {
            assert_eq!(html_to_text(&format!("<body>{hidden}<div>e4</div></body>")), "e4\n", "{hidden}");
        }
        // Inline, hidden text leaves the shown words as they read.
        assert_eq!(html_to_text("Knight to <span style=\"display:none\">x</span>f3"), "Knight to f3\n");
        // A hidden paragraph left open ends at the next one, which is shown.
        assert_eq!(html_to_text("<p hidden>Qh5<p>e4"), "e4\n");
        // An element never closed hides the rest; a hidden image hides nothing else.
        assert_eq!(html_to_text("e4<div style=\"display:none\">Qh5"), "e4\n");
        assert_eq!(html_to_text("<img src=x style=\"display:none\">e4"), "e4\n");
        // Visible styles are read.
        for shown in [
            "<div style=\"display:block;font-size:10px;opacity:1\">e4</div>",
            "<div style=\"max-height:0\">e4</div>",
            "<div style=\"overflow:hidden;height:20px\">e4</div>",
            "<div aria-hidden=\"true\">e4</div>",
            "<div data-hidden=\"x\" title=\"display:none\">e4</div>",
        ] {
            assert_eq!(html_to_text(shown), "e4\n", "{shown}");
        }
    }
}
