//! The API's page (issue 34): the OpenAPI document at `/api/openapi.json` as
//! a page a person reads, at `/api`. It is made from the same document, once,
//! when the router is built, and needs nothing from the internet: no script,
//! no CDN, the pages' own style sheet. Each operation shows its method and
//! path, what it does, who may call it, its parameters, its request body with
//! an example, and every answer with its status; each schema its fields.

use serde::Serialize;
use serde_json::Value;

/// One operation, as the page lists it.
#[derive(Serialize)]
struct OperationView {
    method: String,
    path: String,
    anchor: String,
    summary: String,
    description: String,
    security: String,
    parameters: Vec<ParameterView>,
    bodies: Vec<BodyView>,
    responses: Vec<ResponseView>,
}

#[derive(Serialize)]
struct ParameterView {
    name: String,
    place: String,
    required: bool,
    kind: TypeView,
    description: String,
}

#[derive(Serialize)]
struct BodyView {
    content_type: String,
    kind: TypeView,
    example: Option<String>,
}

#[derive(Serialize)]
struct ResponseView {
    status: String,
    description: String,
    bodies: Vec<BodyView>,
}

/// A schema's type in words, with the named schema it refers to (linked).
#[derive(Serialize, Default)]
struct TypeView {
    text: String,
    link: Option<String>,
}

#[derive(Serialize)]
struct SchemaView {
    name: String,
    description: String,
    kind: String,
    fields: Vec<FieldView>,
    example: Option<String>,
}

#[derive(Serialize)]
struct FieldView {
    name: String,
    required: bool,
    kind: TypeView,
    description: String,
}

#[derive(Serialize)]
struct TagView {
    name: String,
    description: String,
    operations: Vec<OperationView>,
}

const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

/// The name a `$ref` points at (`#/components/schemas/Receipt` → `Receipt`).
fn ref_name(reference: &str) -> &str {
    reference.rsplit('/').next().unwrap_or(reference)
}

/// A schema's type in words: a named schema, `[T]`, `a | b`, `string (uri)`, …
fn type_of(schema: &Value) -> TypeView {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = ref_name(r).to_owned();
        return TypeView { text: name.clone(), link: Some(name) };
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(parts) = schema.get(key).and_then(Value::as_array) {
            let views: Vec<TypeView> = parts.iter().map(type_of).collect();
            let link = views.iter().find_map(|v| v.link.clone());
            let joiner = if key == "allOf" { " & " } else { " | " };
            return TypeView { text: views.into_iter().map(|v| v.text).collect::<Vec<_>>().join(joiner), link };
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let words: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        return TypeView { text: words.join(" | "), link: None };
    }
    let types: Vec<String> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    let mut link = None;
    let words: Vec<String> = types
        .iter()
        .map(|t| match t.as_str() {
            "array" => {
                let item = schema.get("items").map(type_of).unwrap_or_default();
                link = item.link.clone();
                format!("[{}]", if item.text.is_empty() { "any" } else { &item.text })
            }
            "object" if schema.get("additionalProperties").is_some_and(Value::is_object) => {
                let value = type_of(&schema["additionalProperties"]);
                link = value.link.clone();
                format!("{{name: {}}}", value.text)
            }
            other => match schema.get("format").and_then(Value::as_str) {
                Some(format) => format!("{other} ({format})"),
                None => other.to_owned(),
            },
        })
        .collect();
    let text = if words.is_empty() { "any".to_owned() } else { words.join(" | ") };
    TypeView { text, link }
}

fn text(value: Option<&Value>) -> String {
    value.and_then(Value::as_str).unwrap_or_default().to_owned()
}

fn pretty(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// The bodies of a request body or a response (its `content`), each with its
/// example: the body's own, else its schema's (through a `$ref`).
fn bodies(doc: &Value, content: Option<&Value>) -> Vec<BodyView> {
    let Some(Value::Object(content)) = content else { return Vec::new() };
    content
        .iter()
        .map(|(content_type, media)| {
            let schema = media.get("schema").cloned().unwrap_or(Value::Null);
            BodyView {
                content_type: content_type.clone(),
                kind: type_of(&schema),
                example: media
                    .get("example")
                    .or_else(|| schema.get("example"))
                    .or_else(|| {
                        let name = ref_name(schema.get("$ref")?.as_str()?);
                        doc["components"]["schemas"][name].get("example")
                    })
                    .map(pretty),
            }
        })
        .collect()
}

/// A response, through `#/components/responses/…` when it is shared.
fn response(doc: &Value, status: &str, answer: &Value) -> ResponseView {
    let answer = match answer.get("$ref").and_then(Value::as_str) {
        Some(r) => &doc["components"]["responses"][ref_name(r)],
        None => answer,
    };
    ResponseView {
        status: status.to_owned(),
        description: text(answer.get("description")),
        bodies: bodies(doc, answer.get("content")),
    }
}

/// Who may call an operation, in words: its security schemes by name, a
/// cookie named as one.
fn security(doc: &Value, operation: &Value) -> String {
    let Some(Value::Array(ways)) = operation.get("security") else { return "anyone".to_owned() };
    let word = |name: &str| {
        let scheme = &doc["components"]["securitySchemes"][name];
        if scheme["in"] == "cookie" { format!("{name} cookie") } else { format!("{name} token") }
    };
    let words: Vec<String> = ways
        .iter()
        .map(|way| match way.as_object() {
            Some(names) if !names.is_empty() => names.keys().map(|n| word(n)).collect::<Vec<_>>().join(" and "),
            _ => "anyone".to_owned(),
        })
        .collect();
    words.join(", or ")
}

fn operation(doc: &Value, method: &str, path: &str, op: &Value) -> OperationView {
    let parameters = op
        .get("parameters")
        .and_then(Value::as_array)
        .map(|ps| {
            ps.iter()
                .map(|p| ParameterView {
                    name: text(p.get("name")),
                    place: text(p.get("in")),
                    required: p.get("required").and_then(Value::as_bool).unwrap_or(false),
                    kind: p.get("schema").map(type_of).unwrap_or_default(),
                    description: text(p.get("description")),
                })
                .collect()
        })
        .unwrap_or_default();
    let responses = op
        .get("responses")
        .and_then(Value::as_object)
        .map(|rs| rs.iter().map(|(status, answer)| response(doc, status, answer)).collect())
        .unwrap_or_default();
    OperationView {
        method: method.to_uppercase(),
        path: path.to_owned(),
        anchor: format!("{method}-{}", path.trim_matches('/').replace(['{', '}'], "").replace(['/', '.'], "-")),
        summary: text(op.get("summary")).replace('\n', " "),
        // The handlers' doc comments are Markdown (`code`, lists).
        description: super::guide::to_html(&text(op.get("description"))),
        security: security(doc, op),
        parameters,
        bodies: bodies(doc, op.get("requestBody").and_then(|b| b.get("content"))),
        responses,
    }
}

fn schema(name: &str, schema: &Value) -> SchemaView {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let fields = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|ps| {
            ps.iter()
                .map(|(field, s)| FieldView {
                    name: field.clone(),
                    required: required.contains(&field.as_str()),
                    kind: type_of(s),
                    description: text(s.get("description")),
                })
                .collect()
        })
        .unwrap_or_default();
    SchemaView {
        name: name.to_owned(),
        description: text(schema.get("description")),
        kind: type_of(schema).text,
        fields,
        example: schema.get("example").map(pretty),
    }
}

/// The page's context: the document's title and description, its operations
/// grouped by tag in the document's order, and its schemas.
pub(super) fn context(doc: &Value) -> minijinja::Value {
    let mut tags: Vec<TagView> = doc["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| TagView { name: text(t.get("name")), description: text(t.get("description")), operations: Vec::new() })
        .collect();
    if let Some(paths) = doc["paths"].as_object() {
        for (path, item) in paths {
            for method in METHODS {
                let Some(op) = item.get(method) else { continue };
                let tag = op["tags"][0].as_str().unwrap_or("other").to_owned();
                let view = operation(doc, method, path, op);
                match tags.iter_mut().find(|t| t.name == tag) {
                    Some(t) => t.operations.push(view),
                    None => tags.push(TagView { name: tag, description: String::new(), operations: vec![view] }),
                }
            }
        }
    }
    tags.retain(|t| !t.operations.is_empty());
    let schemas: Vec<SchemaView> = doc["components"]["schemas"]
        .as_object()
        .map(|s| s.iter().map(|(name, s)| schema(name, s)).collect())
        .unwrap_or_default();
    minijinja::context! {
        title => text(doc["info"].get("title")),
        version => text(doc["info"].get("version")),
        description => text(doc["info"].get("description")),
        tags => minijinja::Value::from(minijinja::value::Serde(tags)),
        schemas => minijinja::Value::from(minijinja::value::Serde(schemas)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_read_as_words_with_their_links() {
        assert_eq!(type_of(&json!({"$ref": "#/components/schemas/Receipt"})).text, "Receipt");
        let list = type_of(&json!({"type": "array", "items": {"$ref": "#/components/schemas/SeatView"}}));
        assert_eq!((list.text.as_str(), list.link.as_deref()), ("[SeatView]", Some("SeatView")));
        assert_eq!(type_of(&json!({"type": ["string", "null"]})).text, "string | null");
        assert_eq!(type_of(&json!({"type": "integer", "format": "int32"})).text, "integer (int32)");
        assert_eq!(type_of(&json!({"enum": ["offer", "accept"]})).text, "\"offer\" | \"accept\"");
        assert_eq!(type_of(&json!({"oneOf": [{"type": "null"}, {"$ref": "#/x/Head"}]})).text, "null | Head");
    }

    #[test]
    fn a_shared_answer_is_read_through_its_reference() {
        let doc = json!({"components": {"responses": {"TooMany": {"description": "Too many."}}}});
        let view = response(&doc, "429", &json!({"$ref": "#/components/responses/TooMany"}));
        assert_eq!(view.description, "Too many.");
    }

    #[test]
    fn who_may_call_reads_as_words() {
        let doc = json!({"components": {"securitySchemes": {"session": {"type": "apiKey", "in": "cookie"}}}});
        assert_eq!(security(&doc, &json!({})), "anyone");
        assert_eq!(security(&doc, &json!({"security": [{}, {"seat": []}]})), "anyone, or seat token");
        assert_eq!(security(&doc, &json!({"security": [{"operator": []}]})), "operator token");
        assert_eq!(
            security(&doc, &json!({"security": [{"seat": []}, {"session": []}]})),
            "seat token, or session cookie"
        );
    }
}
