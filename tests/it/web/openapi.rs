//! The API's contract (issue 34): the OpenAPI document the steward serves at
//! `/api/openapi.json` is the checked-in `docs/openapi.json` (a change to the
//! API shows in review as a change to that file); every operation in it says
//! who may call it, what it answers and with what errors, with examples that
//! fit their schemas; the page at `/api` shows every operation from the same
//! document without any asset from elsewhere; and schemathesis (`scripts/test` installs it into
//! `target/schemathesis`) runs every one of its checks against the real
//! binary, positive and negative cases and stateful sequences through the
//! document's links, with games of every variant to reach.

use std::path::{Path, PathBuf};

use fairsteward::rules::{Options, VariantId};
use serde_json::{Value, json};

use crate::support::{Server, Steward};

/// The checked-in copy of the document.
fn checked_in() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join("openapi.json")
}

/// Every operation of the document: (method, path, operation).
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("the document has paths") {
        for (method, op) in item.as_object().unwrap() {
            if ["get", "post", "put", "delete", "patch"].contains(&method.as_str()) {
                out.push((method.clone(), path.clone(), op.clone()));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_served_document_is_the_checked_in_one() {
    let s = Server::start().await;
    let served = s.get("/api/openapi.json", None).await;
    assert_eq!(served.status, 200);
    assert!(served.content_type.starts_with("application/json"), "{}", served.content_type);
    // Regenerate deliberately: FAIRSTEWARD_BLESS_OPENAPI=1 cargo test --test it -- openapi
    if std::env::var_os("FAIRSTEWARD_BLESS_OPENAPI").is_some() {
        std::fs::write(checked_in(), &served.text).unwrap();
    }
    let kept = std::fs::read_to_string(checked_in()).expect("docs/openapi.json is checked in");
    assert!(
        served.text == kept,
        "the API's document changed: if that is intended, run `FAIRSTEWARD_BLESS_OPENAPI=1 cargo test --test it -- openapi` and commit docs/openapi.json with the change"
    );
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_says_who_may_call_it_and_every_answer_with_examples() {
    let s = Server::start().await;
    let doc = s.get("/api/openapi.json", None).await.json();
    assert_eq!(doc["openapi"], "3.1.0");
    let ops = operations(&doc);
    assert!(ops.len() >= 40, "every API operation is in the document, {} found", ops.len());
    // Links and generated clients name operations by their ids: one each.
    let mut ids: Vec<&str> = ops.iter().map(|(_, _, op)| op["operationId"].as_str().expect("an operationId")).collect();
    ids.sort_unstable();
    let repeated: Vec<&&str> = ids.windows(2).filter(|w| w[0] == w[1]).map(|w| &w[0]).collect();
    assert!(repeated.is_empty(), "operationIds used twice: {repeated:?}");
    for (method, path, op) in &ops {
        let name = format!("{} {path}", method.to_uppercase());
        assert!(path.starts_with("/api/") || path == "/steward.asc", "{name}: only the API is in the document");
        assert!(op["summary"].as_str().is_some_and(|s| s.len() > 10), "{name} says what it does");
        assert!(op["tags"].as_array().is_some_and(|t| !t.is_empty()), "{name} has a tag");
        let answers = op["responses"].as_object().unwrap();
        // A withdrawn operation (deprecated) only says where its successor is.
        let withdrawn = op["deprecated"] == true;
        assert!(withdrawn || answers.keys().any(|status| status.starts_with('2')), "{name} has a success answer");
        for shared in ["429", "500", "503"] {
            assert!(answers.contains_key(shared), "{name} describes {shared}");
        }
        for (status, answer) in answers {
            let answer = match answer["$ref"].as_str() {
                Some(r) => &doc["components"]["responses"][r.rsplit('/').next().unwrap()],
                None => answer,
            };
            assert!(answer["description"].as_str().is_some_and(|d| !d.is_empty()), "{name} {status} is described");
            if status.starts_with('4') || status.starts_with('5') {
                let schema = &answer["content"]["application/json"]["schema"]["$ref"];
                assert_eq!(schema, "#/components/schemas/ErrorBody", "{name} {status} answers the error shape");
            }
        }
        if let Some(body) = op.get("requestBody") {
            for (content_type, media) in body["content"].as_object().unwrap() {
                let example = media.get("example").or_else(|| {
                    let r = media["schema"]["$ref"].as_str()?;
                    doc["components"]["schemas"][r.rsplit('/').next().unwrap()].get("example")
                });
                assert!(example.is_some(), "{name}'s {content_type} body has an example");
            }
            for status in ["413", "415"] {
                assert!(answers.contains_key(status), "{name} takes a body and describes {status}");
            }
        }
        // Every path parameter is declared and described.
        for segment in path.split('/').filter(|s| s.starts_with('{')) {
            let param = segment.trim_matches(|c| c == '{' || c == '}');
            let declared = op["parameters"].as_array().into_iter().flatten().find(|p| p["name"] == param);
            let declared = declared.unwrap_or_else(|| panic!("{name} declares {param}"));
            assert_eq!(declared["in"], "path");
            assert!(declared["description"].as_str().is_some_and(|d| !d.is_empty()), "{name}: {param} described");
        }
    }
    // Every schema the operations refer to is there, described field by field.
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let text = doc.to_string();
    for name in schemas.keys() {
        assert!(text.contains(&format!("\"#/components/schemas/{name}\"")), "{name} is used");
    }
    // The security schemes the operations name exist.
    for (_, _, op) in &ops {
        for way in op["security"].as_array().into_iter().flatten() {
            for scheme in way.as_object().unwrap().keys() {
                assert!(doc["components"]["securitySchemes"].get(scheme).is_some(), "{scheme} is defined");
            }
        }
    }
    s.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_page_shows_every_operation_with_nothing_from_elsewhere() {
    let s = Server::start().await;
    let doc = s.get("/api/openapi.json", None).await.json();
    let page = s.get("/api", None).await;
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"), "{}", page.content_type);
    let html = page.text;
    for (method, path, _) in operations(&doc) {
        // minijinja escapes `/` in text as `&#x2f;`.
        let shown = format!("<code>{} {}</code>", method.to_uppercase(), path.replace('/', "&#x2f;"));
        assert!(html.contains(&shown), "the page shows {shown}");
    }
    for name in doc["components"]["schemas"].as_object().unwrap().keys() {
        assert!(html.contains(&format!("id=\"schema-{name}\"")), "the page shows the schema {name}");
    }
    assert!(html.contains("&quot;variant&quot;"), "the page shows the examples");
    // Every asset is this steward's own: no URL to another host, no script but its own.
    for attr in ["src=\"", "href=\""] {
        for (at, _) in html.match_indices(attr) {
            let url = &html[at + attr.len()..];
            let url = &url[..url.find('"').unwrap()];
            assert!(url.starts_with('/') || url.starts_with('#'), "{attr}{url} is this steward's own");
        }
    }
    assert!(!html.contains("//cdn") && !html.contains("https://"), "no CDN");
    s.shut_down().await;
}

/// Checks every answer's example against its schema (JSON Schema 2020-12, as
/// OpenAPI 3.1 has it), with the validator schemathesis brings
/// (jsonschema-rs), and lists the JSON success answers without one.
const CHECK_EXAMPLES: &str = r##"
import json, sys
import jsonschema_rs
doc = json.load(sys.stdin)
bad = []
count = 0
missing = []
for path, item in doc["paths"].items():
    for method, op in item.items():
        if method not in ("get", "post", "put", "delete", "patch"):
            continue
        for status, answer in op["responses"].items():
            if "$ref" in answer:
                continue
            for ct, media in answer.get("content", {}).items():
                schema = media.get("schema")
                example = media.get("example")
                if example is None and schema and "$ref" in schema:
                    example = doc["components"]["schemas"][schema["$ref"].split("/")[-1]].get("example")
                if example is None:
                    if status.startswith("2") and ct.startswith("application/json"):
                        missing.append(f"{method.upper()} {path} {status}")
                    continue
                if not ct.startswith("application/json") or schema is None:
                    continue
                count += 1
                root = {"$ref": "#/x", "x": schema, "components": doc["components"]}
                errors = list(jsonschema_rs.Draft202012Validator(root, validate_formats=True).iter_errors(example))
                if errors:
                    bad.append(f"{method.upper()} {path} {status}: {errors[0].message[:300]} at {list(errors[0].instance_path)}")
print(json.dumps({"checked": count, "bad": bad, "missing": missing}))
"##;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_has_an_example_that_fits_its_schema() {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/schemathesis/bin/python");
    assert!(python.exists(), "schemathesis's Python is not at {}: run scripts/test", python.display());
    let s = Server::start().await;
    let doc = s.get("/api/openapi.json", None).await.text;
    s.shut_down().await;
    let mut child = std::process::Command::new(python)
        .args(["-c", CHECK_EXAMPLES])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(doc.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the check ran");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["checked"].as_u64().unwrap() > 50, "{report}");
    assert_eq!(report["bad"], json!([]), "examples that do not fit their schemas");
    assert_eq!(report["missing"], json!([]), "JSON success answers without an example");
}

/// Creates a game of `variant` with one player per seat: its id, and the first
/// seat's token and calendar key.
async fn create(api: &crate::support::Api, variant: VariantId) -> (String, String, String) {
    let rules = variant.rulebook(&Options::new()).unwrap();
    let seats: Vec<Value> = (0..rules.seat_names().len())
        .map(|i| json!({"name": format!("Player{i}"), "email": format!("p{i}@example.org")}))
        .collect();
    let created = api.post_json("/api/games", None, &json!({"variant": variant.name(), "seats": seats})).await.ok(201);
    let id = created["game"]["id"].as_str().unwrap().to_owned();
    let first = &created["tokens"][0];
    // The feed's address is …/api/calendar/<key>/deadlines.ics.
    let feed = first["calendar"].as_str().unwrap();
    let key = feed.rsplit('/').nth(1).unwrap().to_owned();
    (id, first["token"].as_str().unwrap().to_owned(), key)
}

/// schemathesis's command, or a failure that says to run `scripts/test`.
fn schemathesis() -> PathBuf {
    let st = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/schemathesis/bin/st");
    assert!(
        st.exists(),
        "schemathesis is not installed at {}: run scripts/test, which installs it (PyPI) into target/schemathesis",
        st.display()
    );
    st
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_no_fault_in_the_running_steward() {
    let st = schemathesis();
    let dir = tempfile::tempdir().unwrap();
    let steward = Steward::start(dir.path()).await;
    let api = steward.api();
    // A game of every variant for the operations on a game to reach; the
    // headline game's first seat is the `seat` token.
    let mut games = Vec::new();
    let (mut seat, mut calendar) = (String::new(), String::new());
    for variant in VariantId::ALL {
        let (id, token, key) = create(&api, variant).await;
        if variant == VariantId::HEADLINE {
            (seat, calendar) = (token, key);
        }
        games.push(id);
    }
    // A tournament and a game whose players are invited, for theirs.
    let players: Vec<Value> =
        (0..3).map(|i| json!({"name": format!("Entrant{i}"), "email": format!("e{i}@example.org")})).collect();
    let headline = VariantId::HEADLINE.name();
    let cup = json!({"name": "Contract cup", "variant": headline, "players": players});
    let tournament =
        api.post_json("/api/tournaments", Some(&steward.operator), &cup).await.ok(201)["tournament"]["id"].clone();
    let two = &players[..2];
    let invited = json!({"variant": headline, "invite": true, "seats": two});
    let invited = api.post_json("/api/games", None, &invited).await.ok(201)["id"].clone();
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemathesis.toml")).unwrap();
    let ids = games.iter().map(|g| format!("{g:?}")).collect::<Vec<_>>().join(", ");
    let config = format!(
        r#"{base}
[auth.openapi.operator]
bearer = "{operator}"
[auth.openapi.organiser]
bearer = "{operator}"
[auth.openapi.seat]
bearer = "{seat}"

[dictionaries.games]
values = [{ids}]

# The operations on a game mostly reach the games above, sometimes an unknown id;
# a seat's and its calendar's mostly the headline game's first seat; a
# tournament's and an invited game's mostly those created above.
[[operations]]
include-path-regex = "^/api/games/\\{{id\\}}"
parameters = {{ "path.id" = {{ dictionary = "games", probability = 0.8 }} }}
[dictionaries.seats]
values = ["{seat}"]
[[operations]]
include-path-regex = "^/api/seats/\\{{token\\}}"
parameters = {{ "path.token" = {{ dictionary = "seats", probability = 0.8 }} }}
[dictionaries.calendars]
values = ["{calendar}"]
[[operations]]
include-path-regex = "^/api/calendar/\\{{key\\}}"
parameters = {{ "path.key" = {{ dictionary = "calendars", probability = 0.8 }} }}
[dictionaries.tournaments]
values = [{tournament}]
[[operations]]
include-path-regex = "^/api/tournaments/\\{{id\\}}"
parameters = {{ "path.id" = {{ dictionary = "tournaments", probability = 0.8 }} }}
[dictionaries.invited]
values = [{invited}]
[[operations]]
include-path-regex = "^/api/invited-games/\\{{id\\}}"
parameters = {{ "path.id" = {{ dictionary = "invited", probability = 0.8 }} }}
"#,
        operator = steward.operator,
    );
    let config_path = dir.path().join("schemathesis.toml");
    std::fs::write(&config_path, config).unwrap();
    let url = format!("http://{}/api/openapi.json", steward.addr);
    let seed = std::env::var("FAIRSTEWARD_SCHEMATHESIS_SEED").unwrap_or_else(|_| "20261207".to_owned());
    let cwd = dir.path().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(st)
            .arg("--config-file")
            .arg(&config_path)
            .args(["--no-color", "run", &url, "--checks", "all", "--max-examples", "25", "--seed", &seed])
            .env("NO_PROXY", "*")
            .env("no_proxy", "*")
            .current_dir(cwd)
            .output()
            .expect("schemathesis runs")
    })
    .await
    .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "schemathesis found faults (or could not run):\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // It did test: every operation, and the stateful phase through the links.
    assert!(report.contains("Stateful"), "{report}");
    assert!(!steward.log().contains("panicked"), "the steward did not panic");
}

/// Every file under `dir` ending in `.rs`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The document names a schema by its type's name alone: two types of one
/// name (in two modules) would be one schema, the second silently replacing
/// the first. Each type deriving `ToSchema` has a name of its own, or an `as`.
#[test]
fn every_schema_has_a_name_of_its_own() {
    let mut names: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for path in rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            if !(line.trim_start().starts_with("#[derive(") && line.contains("ToSchema")) {
                continue;
            }
            // The item the derive is on: the next line declaring a struct or an enum.
            let mut renamed = None;
            for next in &lines[n + 1..] {
                if let Some(rest) = next.trim_start().strip_prefix("#[schema(as = ") {
                    renamed = rest.split([',', ')']).next().map(str::to_owned);
                }
                let words: Vec<&str> = next.split_whitespace().collect();
                if let Some(at) = words.iter().position(|w| *w == "struct" || *w == "enum") {
                    let name = words[at + 1].trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_');
                    let name = renamed.take().unwrap_or_else(|| name.to_owned());
                    names.entry(name).or_default().push(format!("{}:{}", path.display(), n + 1));
                    break;
                }
            }
        }
    }
    assert!(names.len() > 40, "the schemas were found: {}", names.len());
    let twice: Vec<_> = names.iter().filter(|(_, at)| at.len() > 1).collect();
    assert!(twice.is_empty(), "schema names used by two types: {twice:?}");
}
