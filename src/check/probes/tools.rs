//! The tool list as a probe reads it: every page followed (with a bound),
//! each descriptor checked, and a tool whose inputSchema can be violated.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::jsonrpc::{RpcError, json_kind, method};
use crate::laws::LawId;

use super::session::{Answer, Session, error_words, short};

/// Pages are followed up to this many; a list that goes on is broken.
const MAX_PAGES: usize = 64;

/// Every item of a list (the tools of `tools/list`, the prompts of
/// `prompts/list`, …), page after page.
#[derive(Debug, Clone, Default)]
pub(super) struct Listing {
    /// The descriptors, in the order served.
    pub tools: Vec<Value>,
    /// What is wrong with the pagination, in words.
    pub problems: Vec<String>,
    /// How many pages were read.
    pub pages: usize,
    /// Each page's result, without its items: its cache hints, its
    /// `_meta`.
    pub results: Vec<Value>,
}

impl Listing {
    /// The tool names, in the order served (descriptors without a string
    /// name are left out).
    pub fn names(&self) -> Vec<String> {
        self.tools
            .iter()
            .filter_map(|tool| tool.get("name").and_then(Value::as_str))
            .map(str::to_owned)
            .collect()
    }
}

/// Lists the tools in `session`, each page requested in the session's era
/// ([`Session::params`]); a timeout is a finding of `law`.
/// `None` when the session ended; `Err` when the first page is an error.
pub(super) fn list(session: &mut Session<'_>, law: LawId) -> Option<Result<Listing, RpcError>> {
    list_of(session, law, method::TOOLS_LIST, "tools")
}

/// Every item of the list `method`, under `key`, page after page, each
/// page requested in the session's era ([`Session::params`]); a timeout is
/// a finding of `law`. `None` when the session ended; `Err` when the first
/// page is an error.
pub(super) fn list_of(
    session: &mut Session<'_>,
    law: LawId,
    method: &str,
    key: &str,
) -> Option<Result<Listing, RpcError>> {
    paginate(key, |cursor| {
        let params = session.params(cursor.map(|cursor| json!({ "cursor": cursor })));
        session.call(law, method, params)
    })
}

/// Follows `nextCursor` from the first page until a page has none, a
/// cursor repeats, or [`MAX_PAGES`] pages were read.
pub(super) fn paginate(
    key: &str,
    mut fetch: impl FnMut(Option<&str>) -> Option<Answer>,
) -> Option<Result<Listing, RpcError>> {
    let mut listing = Listing::default();
    let mut cursors = BTreeSet::new();
    let mut cursor: Option<String> = None;
    for page in 1.. {
        let result = match fetch(cursor.as_deref())? {
            Ok(result) => {
                listing.pages = page;
                result
            }
            Err(error) if page == 1 => return Some(Err(error)),
            Err(error) => {
                listing.problems.push(format!(
                    "page {page} (cursor {}) answered {}",
                    crate::jsonrpc::wire::quoted(cursor.unwrap_or_default().as_bytes()),
                    error_words(&error)
                ));
                break;
            }
        };
        match result.get(key) {
            Some(Value::Array(items)) => listing.tools.extend(items.iter().cloned()),
            other => listing.problems.push(format!(
                "page {page} has no `{key}` array ({})",
                other.map_or("absent", json_kind)
            )),
        }
        let mut rest = result.clone();
        if let Some(rest) = rest.as_object_mut() {
            rest.remove(key);
        }
        listing.results.push(rest);
        match result.get("nextCursor") {
            None | Some(Value::Null) => break,
            Some(Value::String(next)) => {
                if !cursors.insert(next.clone()) {
                    listing.problems.push(format!(
                        "pagination does not end: cursor {} comes back on page {page}",
                        crate::jsonrpc::wire::quoted(next.as_bytes())
                    ));
                    break;
                }
                if page == MAX_PAGES {
                    listing.problems.push(format!(
                        "pagination does not end: page {MAX_PAGES} still has a `nextCursor`"
                    ));
                    break;
                }
                cursor = Some(next.clone());
            }
            Some(other) => {
                listing.problems.push(format!(
                    "page {page} has a `nextCursor` that is {}, not a string",
                    json_kind(other)
                ));
                break;
            }
        }
    }
    Some(Ok(listing))
}

/// What is wrong with the descriptors: names missing or repeated, input
/// schemas that are no object schema, pagination that does not end; each
/// with whether the specification only says SHOULD of it (a name listed
/// twice: names SHOULD be unique), after the rest.
pub(super) fn validate(listing: &Listing) -> Vec<(String, bool)> {
    let mut problems = listing.problems.clone();
    let mut should = Vec::new();
    let mut names = BTreeSet::new();
    for (index, tool) in listing.tools.iter().enumerate() {
        let Some(tool) = tool.as_object() else {
            problems.push(format!(
                "tool #{} is {}, not an object",
                index + 1,
                json_kind(tool)
            ));
            continue;
        };
        let name = match tool.get("name") {
            Some(Value::String(name)) if !name.is_empty() => name.clone(),
            _ => {
                problems.push(format!("tool #{} has no name", index + 1));
                continue;
            }
        };
        if !names.insert(name.clone()) {
            should.push(format!("tool name `{name}` is listed twice"));
        }
        match tool.get("inputSchema") {
            Some(Value::Object(schema)) => match schema.get("type") {
                Some(Value::String(kind)) if kind == "object" => {}
                Some(other) => problems.push(format!(
                    "tool `{name}`: inputSchema has type {other}, not \"object\""
                )),
                None => problems.push(format!(
                    "tool `{name}`: inputSchema has no `\"type\": \"object\"`"
                )),
            },
            Some(other) => problems.push(format!(
                "tool `{name}`: inputSchema is {}, not an object schema",
                json_kind(other)
            )),
            None => problems.push(format!("tool `{name}` has no inputSchema")),
        }
    }
    let problems = problems.into_iter().map(|problem| (problem, false));
    problems
        .chain(should.into_iter().map(|problem| (problem, true)))
        .collect()
}

/// A call that violates a tool's inputSchema: the tool, the arguments, and
/// what is wrong with them in words. Missing required arguments come first;
/// then a property of the wrong type.
pub(super) fn violation(listing: &Listing) -> Option<(String, Value, String)> {
    let schemas = || {
        listing.tools.iter().filter_map(|tool| {
            let name = tool.get("name")?.as_str()?;
            let schema = tool.get("inputSchema")?.as_object()?;
            Some((name, schema))
        })
    };
    for (name, schema) in schemas() {
        let required = schema.get("required").and_then(Value::as_array);
        if let Some(Value::String(first)) = required.and_then(|r| r.first()) {
            return Some((
                name.to_owned(),
                json!({}),
                format!("no arguments (`{first}` is required)"),
            ));
        }
    }
    for (name, schema) in schemas() {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (property, spec) in properties {
            if let Some(wrong) = spec
                .get("type")
                .and_then(Value::as_str)
                .and_then(wrong_value)
            {
                let mut arguments = Map::new();
                arguments.insert(property.clone(), wrong);
                return Some((
                    name.to_owned(),
                    Value::Object(arguments),
                    format!("`{property}` of the wrong type"),
                ));
            }
        }
    }
    None
}

/// A value that is not of JSON Schema type `kind`.
fn wrong_value(kind: &str) -> Option<Value> {
    Some(match kind {
        "string" => json!(12345),
        "number" | "integer" => json!("not a number"),
        "boolean" => json!("not a boolean"),
        "object" => json!("not an object"),
        "array" => json!("not an array"),
        "null" => json!("not null"),
        _ => return None,
    })
}

/// `tool-error-is-result`: arguments that violate a tool's inputSchema get
/// a result with `isError: true` and a text report (asked in the session's
/// era, [`Session::params`]).
pub(super) fn tool_error_is_result(s: &mut Session<'_>, listing: &Listing) {
    let law = LawId::ToolErrorIsResult;
    let Some((tool, arguments, what)) = violation(listing) else {
        s.ledger.skip(
            law,
            "no tool has an inputSchema with required or typed properties to violate",
        );
        return;
    };
    let step = s.step(format!("tools/call {tool} with {what}"));
    let params = s.params(Some(json!({"name": tool, "arguments": arguments})));
    match s.call(law, method::TOOLS_CALL, params) {
        None => return,
        Some(Ok(result)) if is_error_result(&result) => {
            if !has_text(&result) {
                s.ledger.fail(
                    law,
                    &step,
                    "answered an isError result without a text report in `content`",
                );
            }
        }
        Some(Ok(result)) => s.ledger.fail(
            law,
            &step,
            format!(
                "accepted arguments that violate the tool's inputSchema: {}",
                short(&result)
            ),
        ),
        Some(Err(error)) => s.ledger.fail(
            law,
            &step,
            format!(
                "answered {}; a tool that fails answers a result with isError: true",
                error_words(&error)
            ),
        ),
    }
    s.ledger.held(law);
}

/// Whether a `tools/call` result is a failed run.
pub(super) fn is_error_result(result: &Value) -> bool {
    result.get("isError") == Some(&Value::Bool(true))
}

/// Whether a result carries a text block in `content`.
fn has_text(result: &Value) -> bool {
    result
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|content| {
            content.iter().any(|block| {
                block.get("type") == Some(&json!("text"))
                    && block.get("text").is_some_and(Value::is_string)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::ErrorCode;

    fn pages(answers: Vec<Value>) -> impl FnMut(Option<&str>) -> Option<Answer> {
        let mut answers = answers.into_iter();
        move |_| answers.next().map(Ok)
    }

    #[test]
    fn pages_are_followed_to_the_end() {
        let listing = paginate(
            "tools",
            pages(vec![
                json!({"tools": [{"name": "a"}], "nextCursor": "1"}),
                json!({"tools": [{"name": "b"}]}),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(listing.names(), ["a", "b"]);
        assert!(listing.problems.is_empty());
    }

    #[test]
    fn a_repeating_cursor_ends_the_walk() {
        let listing = paginate("tools", |_| {
            Some(Ok(json!({"tools": [], "nextCursor": "again"})))
        })
        .unwrap()
        .unwrap();
        assert_eq!(
            listing.problems,
            ["pagination does not end: cursor \"again\" comes back on page 2"]
        );
    }

    #[test]
    fn endless_fresh_cursors_stop_at_the_bound() {
        let mut n = 0;
        let listing = paginate("tools", |_| {
            n += 1;
            Some(Ok(json!({"tools": [], "nextCursor": n.to_string()})))
        })
        .unwrap()
        .unwrap();
        assert_eq!(n, MAX_PAGES);
        assert_eq!(
            listing.problems,
            ["pagination does not end: page 64 still has a `nextCursor`"]
        );
    }

    #[test]
    fn a_first_page_error_is_the_answer() {
        let error = RpcError {
            code: ErrorCode::METHOD_NOT_FOUND,
            message: "no".into(),
            data: None,
        };
        let answer = paginate("tools", |_| Some(Err(error.clone()))).unwrap();
        assert_eq!(answer.unwrap_err(), error);
    }

    #[test]
    fn descriptors_are_validated() {
        let listing = Listing {
            tools: vec![
                json!({"name": "a", "inputSchema": {"type": "object"}}),
                json!({"name": "a", "inputSchema": {}}),
                json!({"name": "b", "inputSchema": {"type": "string"}}),
                json!({"name": "c"}),
                json!({"inputSchema": {"type": "object"}}),
            ],
            problems: Vec::new(),
            pages: 1,
            results: Vec::new(),
        };
        assert_eq!(
            validate(&listing),
            [
                ("tool `a`: inputSchema has no `\"type\": \"object\"`", false),
                (
                    "tool `b`: inputSchema has type \"string\", not \"object\"",
                    false
                ),
                ("tool `c` has no inputSchema", false),
                ("tool #5 has no name", false),
                // Names SHOULD be unique: a SHOULD, after the rest.
                ("tool name `a` is listed twice", true),
            ]
            .map(|(problem, should)| (problem.to_owned(), should))
        );
    }

    #[test]
    fn required_arguments_are_left_out_first() {
        let listing = Listing {
            tools: vec![
                json!({"name": "typed", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}),
                json!({"name": "needs", "inputSchema": {"type": "object", "required": ["x"]}}),
            ],
            problems: Vec::new(),
            pages: 1,
            results: Vec::new(),
        };
        let (tool, arguments, what) = violation(&listing).unwrap();
        assert_eq!((tool.as_str(), arguments), ("needs", json!({})));
        assert_eq!(what, "no arguments (`x` is required)");
        let typed_only = Listing {
            tools: listing.tools[..1].to_vec(),
            problems: Vec::new(),
            pages: 1,
            results: Vec::new(),
        };
        let (tool, arguments, _) = violation(&typed_only).unwrap();
        assert_eq!(
            (tool.as_str(), arguments),
            ("typed", json!({"n": "not a number"}))
        );
        let untyped = Listing {
            tools: vec![json!({"name": "free", "inputSchema": {"type": "object"}})],
            problems: Vec::new(),
            pages: 1,
            results: Vec::new(),
        };
        assert!(violation(&untyped).is_none());
    }
}
