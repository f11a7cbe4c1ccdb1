//! The model held to the official schemas: every case of a corpus of valid
//! and broken server messages and results gets one verdict from the model
//! and one from a full JSON Schema validator (the `jsonschema` crate, a
//! dev-dependency) over the official `schema.json` of each revision, where
//! they are at hand (`crate::official_schemas`: `MCP_REPLAY_SCHEMAS`, or
//! `../shared/spec/schema/` beside the project).
//!
//! A message is validated against the official `JSONRPCMessage` and, when
//! it is a notification or a request the revision's `ServerNotification` or
//! `ServerRequest` union names, against that member as well (the envelope
//! alone does not look at `params`). A result is validated against its
//! method's result type (the digest's §8 map) by a wrapper schema that
//! `$ref`s into the loaded file. In 2026-07-28 a method whose result may be
//! an `InputRequiredResult` is checked against the type its `resultType`
//! names, as the model does; the cases marked `M` below check that
//! departure against the plain union.
//!
//! Each case has one letter per revision, oldest first: `v` both say
//! valid, `i` both say invalid, `-` the case does not apply; `M` the model
//! fails what the official schema passes, `O` the model passes what the
//! official schema fails. `M` and `O` are the departures the module docs of
//! `crate::model` list, and only cases named as departures may use them.

mod messages;
mod results;

use std::collections::HashMap;

use serde_json::{Value, json};

use super::walk::is_integer;
use super::{validate_result, validate_server_message};
use crate::revision::Revision;

/// What a case's JSON is.
pub(super) enum Subject {
    /// One line a server wrote.
    Message,
    /// The result of this method.
    Result(&'static str),
}

/// One case of the corpus.
pub(super) struct Case {
    pub name: &'static str,
    pub subject: Subject,
    /// One letter per revision, oldest first (see the module docs).
    pub verdicts: &'static str,
    pub json: &'static str,
}

/// The official schemas, loaded once, with the validators built from them.
struct Official {
    documents: HashMap<Revision, Value>,
    validators: HashMap<(Revision, String), jsonschema::Validator>,
}

impl Official {
    /// The schemas of every revision, where they are at hand
    /// (`crate::official_schemas`).
    fn load(test: &str) -> Option<Official> {
        let documents = crate::official_schemas::schemas(test, Revision::ALL)?;
        Some(Official {
            documents: Revision::ALL.iter().copied().zip(documents).collect(),
            validators: HashMap::new(),
        })
    }

    fn definitions(&self, revision: Revision) -> (&'static str, &serde_json::Map<String, Value>) {
        let document = &self.documents[&revision];
        for key in ["definitions", "$defs"] {
            if let Some(Value::Object(definitions)) = document.get(key) {
                return (key, definitions);
            }
        }
        panic!("{revision}: the schema has no definitions");
    }

    /// Whether `value` is valid against `wrapper`, the top of a schema
    /// document whose definitions are the revision's.
    fn is_valid(&mut self, revision: Revision, wrapper: Value, value: &Value) -> bool {
        let key = (revision, wrapper.to_string());
        if !self.validators.contains_key(&key) {
            let mut document = self.documents[&revision].clone();
            let object = document.as_object_mut().expect("a schema is an object");
            for (keyword, schema) in wrapper.as_object().expect("a wrapper is an object") {
                object.insert(keyword.clone(), schema.clone());
            }
            let validator = jsonschema::options()
                .should_validate_formats(false)
                .build(&document)
                .unwrap_or_else(|err| panic!("{revision}: {wrapper}: {err}"));
            self.validators.insert(key.clone(), validator);
        }
        self.validators[&key].is_valid(value)
    }

    fn reference(&self, revision: Revision, name: &str) -> Value {
        let (key, definitions) = self.definitions(revision);
        assert!(
            definitions.contains_key(name),
            "{revision} defines no `{name}`"
        );
        json!({"$ref": format!("#/{key}/{name}")})
    }

    /// The member of the union `union` whose `method` is `method`, if the
    /// revision has the union and it has such a member.
    fn member(&self, revision: Revision, union: &str, method: &str) -> Option<String> {
        let (_, definitions) = self.definitions(revision);
        let members = definitions.get(union)?.get("anyOf")?.as_array()?;
        members
            .iter()
            .filter_map(|member| member.get("$ref")?.as_str()?.rsplit('/').next())
            .find(|name| {
                definitions[*name].pointer("/properties/method/const") == Some(&json!(method))
            })
            .map(str::to_owned)
    }

    /// The official verdict on a line a server wrote.
    fn message(&mut self, revision: Revision, message: &Value) -> bool {
        let mut parts = vec![self.reference(revision, "JSONRPCMessage")];
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            // The schemas read a line whose id is no request id as a
            // notification, which names no id.
            let is_request = message
                .get("id")
                .is_some_and(|id| id.is_string() || is_integer(id));
            let union = if is_request {
                "ServerRequest"
            } else {
                "ServerNotification"
            };
            if let Some(member) = self.member(revision, union, method) {
                parts.push(self.reference(revision, &member));
            }
        }
        self.is_valid(revision, json!({"allOf": parts}), message)
    }

    /// The official verdict on the result of `method`: against the union of
    /// its result types, or (`by_result_type`) against the one its
    /// `resultType` names.
    fn result(
        &mut self,
        revision: Revision,
        method: &str,
        result: &Value,
        by_result_type: bool,
    ) -> bool {
        let mut types = result_types(revision, method);
        if by_result_type && types.len() > 1 && revision.is_modern() {
            let asks = result.get("resultType") == Some(&json!("input_required"));
            types = vec![if asks { types[1] } else { types[0] }];
        }
        let branches: Vec<Value> = types
            .iter()
            .map(|name| self.reference(revision, name))
            .collect();
        self.is_valid(revision, json!({"anyOf": branches}), result)
    }
}

/// The result types of `method` in `revision`, as the digest's §8 maps
/// them: the method's own first, then the alternatives.
fn result_types(revision: Revision, method: &str) -> Vec<&'static str> {
    let own = match method {
        "initialize" => "InitializeResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            "EmptyResult"
        }
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        "server/discover" => "DiscoverResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        "tasks/get" => "GetTaskResult",
        "tasks/result" => "GetTaskPayloadResult",
        "tasks/list" => "ListTasksResult",
        "tasks/cancel" => "CancelTaskResult",
        other => panic!("no result type for `{other}`"),
    };
    let mut types = vec![own];
    match (revision, method) {
        (Revision::V2025_11_25, "tools/call") => types.push("CreateTaskResult"),
        (Revision::V2026_07_28, "tools/call" | "prompts/get" | "resources/read") => {
            types.push("InputRequiredResult");
        }
        _ => {}
    }
    types
}

fn corpus() -> impl Iterator<Item = &'static Case> {
    messages::CASES.iter().chain(results::CASES)
}

#[test]
fn the_corpus_is_broad_and_well_formed() {
    let cases: Vec<&Case> = corpus().collect();
    let runs: usize = cases
        .iter()
        .map(|case| {
            case.verdicts
                .chars()
                .filter(|verdict| *verdict != '-')
                .count()
        })
        .sum();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    for case in &cases {
        assert_eq!(case.verdicts.len(), Revision::ALL.len(), "{}", case.name);
        assert!(
            case.verdicts
                .chars()
                .all(|verdict| "vi-MO".contains(verdict)),
            "{}: {}",
            case.name,
            case.verdicts
        );
        let departs = case.verdicts.contains(['M', 'O']);
        assert_eq!(
            departs,
            case.name.contains("departure"),
            "{}: only departures may disagree, and each must",
            case.name
        );
        serde_json::from_str::<Value>(case.json)
            .unwrap_or_else(|err| panic!("{}: {err}", case.name));
    }
    for letter in ['v', 'i', 'M', 'O'] {
        assert!(
            cases.iter().any(|case| case.verdicts.contains(letter)),
            "no case is `{letter}`"
        );
    }
    assert!(runs >= 400, "{runs} runs");
}

#[test]
fn the_model_and_the_official_schemas_agree_on_the_corpus() {
    let test = "model::crosscheck::the_model_and_the_official_schemas_agree_on_the_corpus";
    let Some(mut official) = Official::load(test) else {
        return;
    };
    let mut disagreements = Vec::new();
    for case in corpus() {
        let value: Value = serde_json::from_str(case.json).unwrap();
        for (revision, expected) in Revision::ALL.iter().copied().zip(case.verdicts.chars()) {
            if expected == '-' {
                continue;
            }
            let (model, official_verdict) = match case.subject {
                Subject::Message => (
                    validate_server_message(revision, &value),
                    official.message(revision, &value),
                ),
                Subject::Result(method) => {
                    let by_result_type = expected != 'M';
                    (
                        validate_result(revision, method, &value),
                        official.result(revision, method, &value, by_result_type),
                    )
                }
            };
            let model_verdict = model.is_empty();
            let (want_model, want_official) = match expected {
                'v' => (true, true),
                'i' => (false, false),
                'M' => (false, true),
                _ => (true, false),
            };
            if (model_verdict, official_verdict) != (want_model, want_official) {
                let said: Vec<String> = model.iter().map(ToString::to_string).collect();
                disagreements.push(format!(
                    "{revision} `{}` ({expected}): model {} {said:?}, official {}",
                    case.name,
                    if model_verdict { "valid" } else { "invalid" },
                    if official_verdict { "valid" } else { "invalid" },
                ));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} verdicts differ from the corpus:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// Every value inside `value`, by JSON Pointer, the root first.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(object) => {
            for (key, item) in object {
                let token = key.replace('~', "~0").replace('/', "~1");
                pointers(item, format!("{at}/{token}"), out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
}

/// `value` with the member at `pointer` removed (`None`) or replaced.
fn mutated(value: &Value, pointer: &str, replacement: Option<&Value>) -> Option<Value> {
    let (parent, token) = pointer.rsplit_once('/')?;
    let token = token.replace("~1", "/").replace("~0", "~");
    let mut copy = value.clone();
    match copy.pointer_mut(parent)? {
        Value::Object(object) => match replacement {
            Some(replacement) => {
                object.insert(token, replacement.clone());
            }
            None => {
                object.remove(&token);
            }
        },
        Value::Array(items) => {
            let index: usize = token.parse().ok()?;
            match replacement {
                Some(replacement) => items[index] = replacement.clone(),
                None => {
                    items.remove(index);
                }
            }
        }
        _ => return None,
    }
    Some(copy)
}

/// Every valid case, broken one member at a time (removed, or replaced by
/// a value of each JSON kind), gets the same verdict from the model and the
/// official schemas, unless the broken value falls under a documented
/// departure.
#[test]
fn mutations_of_valid_cases_agree() {
    let test = "model::crosscheck::mutations_of_valid_cases_agree";
    let Some(mut official) = Official::load(test) else {
        return;
    };
    let kinds = [
        json!(null),
        json!(true),
        json!(-1),
        json!(1.5),
        json!("s"),
        json!([]),
        json!({}),
    ];
    let mut disagreements = Vec::new();
    let (mut runs, mut departures) = (0, 0);
    for case in corpus() {
        let value: Value = serde_json::from_str(case.json).unwrap();
        let mut at = Vec::new();
        pointers(&value, String::new(), &mut at);
        for (revision, expected) in Revision::ALL.iter().copied().zip(case.verdicts.chars()) {
            if expected != 'v' {
                continue;
            }
            for pointer in at.iter().skip(1) {
                let mut variants: Vec<Value> = kinds
                    .iter()
                    .filter_map(|kind| mutated(&value, pointer, Some(kind)))
                    .collect();
                variants.extend(mutated(&value, pointer, None));
                for variant in variants {
                    if departs(revision, &case.subject, &variant) {
                        departures += 1;
                        continue;
                    }
                    runs += 1;
                    let (model, official_verdict) = match case.subject {
                        Subject::Message => (
                            validate_server_message(revision, &variant).is_empty(),
                            official.message(revision, &variant),
                        ),
                        Subject::Result(method) => (
                            validate_result(revision, method, &variant).is_empty(),
                            official.result(revision, method, &variant, true),
                        ),
                    };
                    if model != official_verdict {
                        disagreements.push(format!(
                            "{revision} `{}` {pointer}: model {model}, official {official_verdict}: {variant}",
                            case.name
                        ));
                    }
                }
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {runs} verdicts differ:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    assert!(
        runs > 10_000 && departures < runs / 20,
        "{runs} runs, {departures} departures"
    );
}

/// Whether `variant` falls under one of the model's documented departures
/// from the official schemas, which the corpus asserts case by case.
fn departs(revision: Revision, subject: &Subject, variant: &Value) -> bool {
    match subject {
        Subject::Message => {
            let Some(message) = variant.as_object() else {
                return false;
            };
            let id = message.get("id");
            if message.contains_key("method") && id.is_some_and(|id| !id.is_null()) {
                let readable = id.is_some_and(|id| id.is_string() || is_integer(id));
                return revision.is_modern() || !readable;
            }
            if message.contains_key("error") && message.contains_key("result") {
                return true;
            }
            let code = message.get("error").and_then(|error| error.get("code"));
            let unreadable = code == Some(&json!(-32700)) || code == Some(&json!(-32600));
            unreadable && id.is_none_or(Value::is_null)
        }
        Subject::Result(method) => {
            revision.is_modern()
                && match variant.get("resultType") {
                    Some(Value::String(kind)) => {
                        kind != "complete"
                            && !(kind == "input_required" && revision.may_require_input(method))
                    }
                    _ => false,
                }
        }
    }
}
