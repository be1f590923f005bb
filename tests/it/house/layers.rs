//! The house has floors: no import circle between the top-level modules of
//! `src/` (issue 30 point 5). Each top-level module is a file `src/X.rs` or a
//! folder `src/X/`; a reference is any `crate::X` in its code or its doc
//! comments (a reader follows a doc link as a compiler follows a `use`), and
//! also `super::X` from a file at the top of a folder. Plain `//` comments do
//! not count. The test fails naming one circle it finds.
//!
//! The floors today, each referring only to those before it: `ids`, `clock`,
//! `contact`, `background`, `rules`; `tournament`, `render`, `protocol`; `store`;
//! `letters`; `steward`; `mail`; `config`; `web`; `server`; `cli`.
//!
//! The pure floors are checked more strictly: `rules` refers to no other
//! module, and `tournament` (pairing and standings, issue 31) only to `rules`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The root modules that are not part of the library's floors.
const NOT_MODULES: [&str; 2] = ["lib", "main"];

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The top-level modules of `src/`: `X` for each `src/X.rs` and `src/X/`.
fn top_modules(src: &Path) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for entry in std::fs::read_dir(src).expect("src/ readable") {
        let path = entry.expect("an entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        let module = path.is_dir() || path.extension().is_some_and(|x| x == "rs");
        if module && !NOT_MODULES.contains(&name.as_str()) {
            modules.insert(name);
        }
    }
    modules
}

/// The top-level module a file of `src/` belongs to.
fn owner(src: &Path, file: &Path) -> Option<String> {
    let first = file.strip_prefix(src).ok()?.components().next()?;
    let name = first.as_os_str().to_str()?;
    Some(name.strip_suffix(".rs").unwrap_or(name).to_owned())
}

/// `text` without plain `//` comments (doc comments `///` and `//!` stay),
/// without block comments, and without the insides of string literals (a
/// `crate::x` in a message is no reference).
fn code_and_docs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut kept = String::new();
        let mut chars = line.char_indices().peekable();
        let mut in_string = false;
        while let Some((i, c)) = chars.next() {
            if in_string {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            if c == '"' {
                in_string = true;
                kept.push('"');
                continue;
            }
            if line[i..].starts_with("//") {
                let rest = &line[i..];
                if rest.starts_with("///") || rest.starts_with("//!") {
                    // A doc comment: its text counts as it is.
                    kept.push_str(rest);
                }
                break;
            }
            kept.push(c);
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// The names `X` of every `crate::X` in `text`.
fn crate_references(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        let tail = &rest[at + "crate::".len()..];
        // `fairsteward::crate::` never occurs; `$crate::` and `xcrate::` are no reference.
        let standalone = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        let name: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if standalone && !name.is_empty() {
            found.insert(name);
        }
        rest = tail;
    }
    found
}

/// The graph: for each top-level module, the others its files refer to.
fn graph(src: &Path) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let modules = top_modules(src);
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in rust_files(src) {
        let Some(from) = owner(src, &file) else { continue };
        if !modules.contains(&from) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let mut refs = crate_references(&code_and_docs(&text));
        // `super::X` from a folder's top file (`src/steward/mod.rs`, or a
        // top-level `src/x.rs`) names another top-level module too.
        let top_file = file.parent() == Some(src)
            || (file.file_name().is_some_and(|n| n == "mod.rs") && file.parent().and_then(Path::parent) == Some(src));
        if top_file {
            let code = code_and_docs(&text);
            let mut rest = code.as_str();
            while let Some(at) = rest.find("super::") {
                let tail = &rest[at + "super::".len()..];
                let name: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                refs.insert(name);
                rest = tail;
            }
        }
        let shown = file.strip_prefix(src.parent().unwrap_or(src)).unwrap_or(&file).display().to_string();
        for to in refs.into_iter().filter(|m| modules.contains(m) && *m != from) {
            edges.entry(from.clone()).or_default().entry(to).or_default().insert(shown.clone());
        }
    }
    edges
}

/// One circle of `edges`, as the modules along it (the first repeated last).
fn a_circle(edges: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = path.iter().position(|n| n == node).expect("an open node is on the path");
                let mut circle = path[start..].to_vec();
                circle.push(node.to_owned());
                return Some(circle);
            }
            None => {}
        }
        marks.insert(node.to_owned(), Mark::Open);
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flat_map(BTreeMap::keys) {
            if let Some(circle) = visit(next, edges, marks, path) {
                return Some(circle);
            }
        }
        path.pop();
        marks.insert(node.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in edges.keys() {
        if let Some(circle) = visit(node, edges, &mut marks, &mut Vec::new()) {
            return Some(circle);
        }
    }
    None
}

#[test]
fn no_import_circle_between_the_top_level_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = graph(&src);
    if let Some(circle) = a_circle(&edges) {
        let steps: Vec<String> = circle
            .windows(2)
            .map(|w| {
                let files: Vec<&str> = edges[&w[0]][&w[1]].iter().map(String::as_str).collect();
                format!("  {} -> {} (in {})", w[0], w[1], files.join(", "))
            })
            .collect();
        panic!("an import circle between the top-level modules of src/: {}\n{}", circle.join(" -> "), steps.join("\n"));
    }
}

/// The pure modules and the only top-level modules each may refer to.
const PURE: [(&str, &[&str]); 2] = [("rules", &[]), ("tournament", &["rules"])];

#[test]
fn the_pure_modules_refer_only_to_what_they_stand_on() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = graph(&src);
    let mut found = Vec::new();
    for (module, allowed) in PURE {
        assert!(src.join(module).is_dir(), "src/{module}/ exists");
        for (to, files) in edges.get(module).into_iter().flatten() {
            if !allowed.contains(&to.as_str()) {
                let files: Vec<&str> = files.iter().map(String::as_str).collect();
                found.push(format!("  {module} -> {to} (in {})", files.join(", ")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a pure module refers to a module it must not (no I/O, no clock, no store):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reader_sees_references_as_written() {
    let text = "use crate::store::Tx;\n/// See [`crate::mail::door`].\n// crate::web is only a remark\nlet s = \"crate::cli\"; $crate::x; mycrate::y\n";
    let refs = crate_references(&code_and_docs(text));
    assert_eq!(refs.into_iter().collect::<Vec<_>>(), ["mail", "store"]);
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        edges.entry(a.into()).or_default().entry(b.into()).or_default().insert(String::new());
    }
    assert_eq!(a_circle(&edges), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    edges.get_mut("c").unwrap().remove("a");
    assert_eq!(a_circle(&edges), None);
}
