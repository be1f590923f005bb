//! One registry of variants (issue 12): no code outside `src/rules/` names a
//! variant. The doors, the steward, the renderers, the store, the CLI and the
//! templates reach games only through `rules::DynVariant` and `VariantId`'s
//! registry, so a new game is one rules module and nothing else changes.
//!
//! The search is strict: a variant's name as a word, in any case, in code,
//! comments or template text, outside `src/rules/` and outside unit-test code
//! (a file's `#[cfg(test)]` module and `tests.rs` or `*_tests.rs` files, which may well play a
//! real game). Names come from the registry, so a variant added there is
//! searched for too.

use std::path::{Path, PathBuf};

use fairsteward::rules::VariantId;

/// Every file under `dir`, recursively, in path order.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Whether `line` holds `name` (lower case) as a word, in any case.
fn names(line: &str, name: &str) -> bool {
    let lower = line.to_lowercase();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    lower
        .match_indices(name)
        .any(|(at, _)| !word(lower[..at].chars().next_back()) && !word(lower[at + name.len()..].chars().next()))
}

/// The lines of `text` that are not unit-test code.
fn non_test_lines(path: &Path, text: &str) -> Vec<(usize, String)> {
    if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n == "tests.rs" || n.ends_with("_tests.rs")) {
        return Vec::new();
    }
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if path.extension().is_some_and(|e| e == "rs") && line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        lines.push((n + 1, line.to_owned()));
    }
    lines
}

#[test]
fn no_code_outside_the_rules_names_a_variant() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = root.join("src").join("rules");
    let mut found = Vec::new();
    let mut searched = 0;
    for path in files(&root.join("src")).into_iter().chain(files(&root.join("templates"))) {
        if path.starts_with(&rules) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        searched += 1;
        for (n, line) in non_test_lines(&path, &text) {
            for name in VariantId::names() {
                if names(&line, name) {
                    found.push(format!("{}:{n}: {name}: {}", path.strip_prefix(root).unwrap().display(), line.trim()));
                }
            }
        }
    }
    assert!(searched > 20, "the search saw only {searched} files");
    assert!(found.is_empty(), "variant names outside src/rules/ (ask the variant instead):\n{}", found.join("\n"));
}

#[test]
fn the_search_finds_a_name_as_a_word_in_any_case() {
    assert!(names("match v { VariantId::Chess => 1 }", "chess"));
    assert!(names("\"vierschach\" =>", "vierschach"));
    assert!(names("Fairschach's pairs", "fairschach"));
    assert!(!names("Fairsteward and chessboard", "chess"));
    assert!(!names("my_chess_thing", "chess"));
    let code = "fn a() {}\n// Chess here\n#[cfg(test)]\nmod tests { VariantId::Chess }\n";
    assert_eq!(non_test_lines(Path::new("x.rs"), code).len(), 2);
    assert!(non_test_lines(Path::new("src/a/tests.rs"), code).is_empty());
    assert!(non_test_lines(Path::new("src/a/picture_tests.rs"), code).is_empty());
}
