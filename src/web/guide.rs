//! The rules for players as HTML: each variant's page ([`crate::rules::Variant::guide`],
//! the file `docs/rules/<id>.md`) is CommonMark with tables, which pulldown-cmark turns
//! into HTML. Raw HTML in the source is shown as text, never passed through, and
//! headings move one level down (`#` is an `<h2>`), below the page's own `<h1>`.

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// One level down, `######` staying the last.
fn lower(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        HeadingLevel::H2 => HeadingLevel::H3,
        HeadingLevel::H3 => HeadingLevel::H4,
        HeadingLevel::H4 => HeadingLevel::H5,
        _ => HeadingLevel::H6,
    }
}

/// The guide as HTML.
pub fn to_html(text: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events = Parser::new_ext(text, options).map(|event| match event {
        // Text, so the writer escapes it: the source is ours, but a page never
        // carries markup it did not make.
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        // A paragraph's lines are one line of HTML, as a browser shows them anyway.
        Event::SoftBreak => Event::Text(CowStr::Borrowed(" ")),
        Event::Start(Tag::Heading { level, id, classes, attrs }) => {
            Event::Start(Tag::Heading { level: lower(level), id, classes, attrs })
        }
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(lower(level))),
        other => other,
    });
    let mut out = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut out, events);
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
    fn tables_code_blocks_and_nested_lists_become_html() {
        let html = to_html(
            "## 1. State\n\n| a | b |\n|---|---|\n| `x` | 2 |\n\n```\n<placement> <side>\n```\n\n* one\n  * inner\n* two\n",
        );
        assert!(html.starts_with("<h3>1. State</h3>"), "{html}");
        assert!(html.contains("<table>") && html.contains("<td><code>x</code></td>"), "{html}");
        assert!(html.contains("<pre><code>&lt;placement&gt; &lt;side&gt;\n</code></pre>"), "{html}");
        assert!(html.contains("<li>one\n<ul>\n<li>inner</li>"), "{html}");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = to_html("<script>alert(1)</script>\n\nA <b onclick=\"x\">word</b>.\n");
        assert!(!html.contains("<script") && !html.contains("<b "), "{html}");
        assert!(html.contains("&lt;script&gt;") && html.contains("&lt;b onclick="), "{html}");
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

    #[test]
    fn every_rules_page_holds_the_guide_and_then_the_full_rules() {
        for v in crate::rules::VariantId::ALL {
            let rules = v.rulebook(&crate::rules::Options::new()).unwrap();
            let html = to_html(rules.guide().unwrap());
            let full = html.find("the rules the steward enforces</h2>").unwrap_or_else(|| panic!("{v}: {html}"));
            assert!(full > 0 && html[full..].contains("<h3>1. "), "{v}: the numbered sections follow");
        }
    }
}
