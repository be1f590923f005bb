//! HTML to plain text, for mails that come without a text/plain part.
//!
//! Just enough of HTML for reading a reply: block elements end lines, `<br>` breaks
//! them, `<blockquote>` becomes `> ` quoting (so the quote stripper sees what Gmail,
//! Apple Mail and Outlook put in a blockquote), `<hr>` becomes Outlook's plain-text
//! rule, and `<head>`, `<style>`, `<script>` and comments are dropped. Entities are
//! decoded with mail-parser's HTML5 entity table. Never panics on broken markup:
//! an unclosed tag or comment simply ends the text.

use mail_parser::decoders::html::add_html_token;

/// Tags whose content is never shown.
const HIDDEN: &[&str] = &["head", "style", "script", "title", "template", "xml"];

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
        let after = skip_tag(&rest[name_start + name_len..]);
        if !closing && HIDDEN.contains(&name.as_str()) {
            return skip_until_close(after, &name);
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
}
