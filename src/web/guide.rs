//! The rules for players as HTML: each variant writes its guide
//! ([`crate::rules::Variant::guide`]) in a small Markdown subset — `#` and `##`
//! headings, paragraphs, `- ` lists (continued by indented lines), `` `code` ``
//! and `**bold**` — which this turns into escaped HTML.

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Inline marks: `code` and **bold**, on escaped text.
fn inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{}</code>", escape(part)));
            continue;
        }
        for (j, piece) in part.split("**").enumerate() {
            if j % 2 == 1 {
                out.push_str(&format!("<strong>{}</strong>", escape(piece)));
            } else {
                out.push_str(&escape(piece));
            }
        }
    }
    out
}

/// The guide as HTML: blocks separated by blank lines; headings start with `#`.
pub fn to_html(text: &str) -> String {
    let mut out = String::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut items: Vec<String> = Vec::new();
    let flush = |out: &mut String, paragraph: &mut Vec<&str>, items: &mut Vec<String>| {
        if !paragraph.is_empty() {
            out.push_str(&format!("<p>{}</p>\n", inline(&paragraph.join(" "))));
            paragraph.clear();
        }
        if !items.is_empty() {
            out.push_str("<ul>\n");
            for item in items.drain(..) {
                out.push_str(&format!("<li>{}</li>\n", inline(&item)));
            }
            out.push_str("</ul>\n");
        }
    };
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(&mut out, &mut paragraph, &mut items);
        } else if let Some(h) = trimmed.strip_prefix("## ") {
            flush(&mut out, &mut paragraph, &mut items);
            out.push_str(&format!("<h3>{}</h3>\n", inline(h)));
        } else if let Some(h) = trimmed.strip_prefix("# ") {
            flush(&mut out, &mut paragraph, &mut items);
            out.push_str(&format!("<h2>{}</h2>\n", inline(h)));
        } else if let Some(item) = trimmed.strip_prefix("- ") {
            if !paragraph.is_empty() {
                let mut none = Vec::new();
                flush(&mut out, &mut paragraph, &mut none);
            }
            items.push(item.to_owned());
        } else if line.starts_with(' ') && !items.is_empty() {
            if let Some(last) = items.last_mut() {
                last.push(' ');
                last.push_str(trimmed);
            }
        } else {
            paragraph.push(trimmed);
        }
    }
    flush(&mut out, &mut paragraph, &mut items);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subset_becomes_escaped_html() {
        let html = to_html("# Title <x>\n\nOne\nparagraph with `a<b` and **bold**.\n\n- item one\n  goes on\n- two\n");
        assert_eq!(
            html,
            "<h2>Title &lt;x&gt;</h2>\n<p>One paragraph with <code>a&lt;b</code> and <strong>bold</strong>.</p>\n<ul>\n<li>item one goes on</li>\n<li>two</li>\n</ul>\n"
        );
    }

    #[test]
    fn every_game_has_a_guide_and_it_renders() {
        for v in crate::rules::VariantId::ALL {
            let rules = v.rulebook(&crate::rules::Options::new()).unwrap();
            let text = rules.guide().unwrap_or_else(|| panic!("{v} has no rules page for players"));
            let html = to_html(text);
            assert!(html.starts_with("<h2>"), "{v}: {html}");
            assert!(!html.contains("**") && !html.contains('`'), "{v}: unclosed marks in {html}");
        }
    }
}
