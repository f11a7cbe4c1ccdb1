//! A validator for the JSON Schema subset tool input schemas use.
//!
//! Arguments that violate a tool's `inputSchema` are the tool's failure, not
//! the protocol's: the loop answers them with an `isError` result whose
//! report lists what is wrong, path by path (MCP-CORE r1 §3¶19; MCP
//! 2025-11-25 server/tools#error-handling). The subset is what tool schemas
//! use in practice: `type` (one name or a list; `integer` is a number with
//! no fraction), `properties`, `required`, `additionalProperties` (`false` or
//! a schema), `items`, `enum`, `const`, `anyOf`, `oneOf`, `allOf` and local
//! `$ref`s (`#/$defs/…`, `#/definitions/…`), which schema generators emit for
//! optional and nested types. Other keywords are ignored, so the validator
//! never rejects arguments a full validator would accept for a reason it does
//! not understand; `oneOf` is held to "at least one", for the same reason.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde_json::{Map, Value};

use crate::jsonrpc::json_kind;

/// One way the arguments break the schema, at a JSON Pointer path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// The JSON Pointer of the offending value inside the arguments; empty
    /// for the arguments object itself.
    pub path: String,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "arguments: {}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Checks `value` against `schema`; every violation found, in document
/// order. An empty list means the value is valid.
pub(crate) fn validate(schema: &Value, value: &Value) -> Vec<Violation> {
    validate_counting(schema, value).0
}

/// [`validate`], and the number of schema applications it took.
fn validate_counting(schema: &Value, value: &Value) -> (Vec<Violation>, usize) {
    let mut validator = Validator {
        root: schema,
        verdicts: HashMap::new(),
        steps: 0,
    };
    let mut trial = Trial::default();
    validator.check(schema, value, &Path::Root, &mut trial);
    (trial.res, validator.steps)
}

/// Where a value sits inside the arguments: a chain of tokens on the stack,
/// rendered as a JSON Pointer only when a violation needs it, so valid
/// arguments cost no allocation for their paths.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn render(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.render(out);
                push_token(out, key);
            }
            Path::Index(parent, index) => {
                parent.render(out);
                out.push('/');
                out.push_str(&index.to_string());
            }
        }
    }
}

/// The keywords of one schema object the validator understands, gathered
/// in one pass over its members.
#[derive(Default)]
struct Keywords<'a> {
    reference: Option<&'a str>,
    all_of: Option<&'a Vec<Value>>,
    any_of: Option<&'a Vec<Value>>,
    one_of: Option<&'a Vec<Value>>,
    kind: Option<&'a Value>,
    allowed: Option<&'a Vec<Value>>,
    constant: Option<&'a Value>,
    items: Option<&'a Value>,
    required: Option<&'a Vec<Value>>,
    properties: Option<&'a Map<String, Value>>,
    additional: Option<&'a Value>,
}

impl<'a> Keywords<'a> {
    fn of(schema: &'a Map<String, Value>) -> Keywords<'a> {
        let mut res = Keywords::default();
        for (keyword, value) in schema {
            match (keyword.as_str(), value) {
                ("$ref", Value::String(reference)) => res.reference = Some(reference),
                ("allOf", Value::Array(branches)) => res.all_of = Some(branches),
                ("anyOf", Value::Array(branches)) => res.any_of = Some(branches),
                ("oneOf", Value::Array(branches)) => res.one_of = Some(branches),
                ("type", kind) => res.kind = Some(kind),
                ("enum", Value::Array(allowed)) => res.allowed = Some(allowed),
                ("const", constant) => res.constant = Some(constant),
                ("items", items) => res.items = Some(items),
                ("required", Value::Array(required)) => res.required = Some(required),
                ("properties", Value::Object(properties)) => res.properties = Some(properties),
                ("additionalProperties", additional) => res.additional = Some(additional),
                _ => {}
            }
        }
        res
    }
}

/// One validation: the root schema is where `$ref`s point into.
///
/// Every schema applies to a value at most once per trial, and every branch
/// of an `anyOf` or `oneOf` is judged at most once per value, so the work is
/// bounded by the size of the schema times the size of the value. Without
/// that, a recursive schema (a tagged enum of tree nodes, as schema
/// generators emit for a syntax tree) would try every branch at every level
/// of the value again for each branch tried above it: exponential in the
/// depth of the arguments, a hang for a valid call only thirty levels deep.
struct Validator<'a> {
    root: &'a Value,
    /// Whether a branch accepts a value, by the addresses of both.
    verdicts: HashMap<(usize, usize), bool>,
    /// Schema applications so far, so that tests can hold the work to its
    /// bound.
    steps: usize,
}

/// One attempt at matching a value: the violations found, and the `$ref`
/// targets already applied to each value, by the addresses of both.
#[derive(Default)]
struct Trial {
    res: Vec<Violation>,
    applied: HashSet<(usize, usize)>,
}

impl Validator<'_> {
    fn check(&mut self, schema: &Value, value: &Value, path: &Path<'_>, trial: &mut Trial) {
        self.steps += 1;
        // `true` and `{}` accept everything; `false` accepts nothing.
        let schema = match schema {
            Value::Object(schema) => schema,
            Value::Bool(false) => {
                trial
                    .res
                    .push(violation(path, "no value is allowed here".to_owned()));
                return;
            }
            _ => return,
        };
        let keywords = Keywords::of(schema);
        if let Some(reference) = keywords.reference {
            // Only local references resolve; anything else accepts, like an
            // unknown keyword. A target already applied to this value has
            // said all it has to say, and a schema that refers to itself
            // without descending ends here.
            if let Some(target) = reference
                .strip_prefix('#')
                .and_then(|pointer| self.root.pointer(pointer))
                && trial.applied.insert((address(target), address(value)))
            {
                self.check(target, value, path, trial);
            }
        }
        for branch in keywords.all_of.into_iter().flatten() {
            self.check(branch, value, path, trial);
        }
        for (keyword, branches) in [("anyOf", keywords.any_of), ("oneOf", keywords.one_of)] {
            if let Some(branches) = branches
                && !branches.is_empty()
                && !branches.iter().any(|branch| self.accepts(branch, value))
            {
                let message = format!(
                    "matches none of the {} schemas of `{keyword}`",
                    branches.len()
                );
                trial.res.push(violation(path, message));
            }
        }
        if let Some(expected) = keywords.kind
            && !type_matches(expected, value)
        {
            let message = format!(
                "expected {}, found {}",
                describe_type(expected),
                json_kind(value)
            );
            trial.res.push(violation(path, message));
            // The other keywords assume the right type; their messages would
            // only repeat this one.
            return;
        }
        if let Some(allowed) = keywords.allowed
            && !allowed.contains(value)
        {
            let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
            let message = format!("expected one of {}, found {value}", listed.join(", "));
            trial.res.push(violation(path, message));
        }
        if let Some(constant) = keywords.constant
            && constant != value
        {
            trial.res.push(violation(
                path,
                format!("expected {constant}, found {value}"),
            ));
        }
        match value {
            Value::Object(object) => self.check_object(&keywords, object, path, trial),
            Value::Array(items) => {
                if let Some(item_schema) = keywords.items {
                    for (index, item) in items.iter().enumerate() {
                        self.check(item_schema, item, &Path::Index(path, index), trial);
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether `value` satisfies `schema`, for choosing between branches.
    fn accepts(&mut self, schema: &Value, value: &Value) -> bool {
        let key = (address(schema), address(value));
        if let Some(&verdict) = self.verdicts.get(&key) {
            return verdict;
        }
        // A branch that, through `$ref`s, asks about itself for the same
        // value is taken to accept there, like a reference loop.
        self.verdicts.insert(key, true);
        let mut trial = Trial::default();
        self.check(schema, value, &Path::Root, &mut trial);
        let verdict = trial.res.is_empty();
        self.verdicts.insert(key, verdict);
        verdict
    }

    fn check_object(
        &mut self,
        keywords: &Keywords<'_>,
        object: &Map<String, Value>,
        path: &Path<'_>,
        trial: &mut Trial,
    ) {
        for name in keywords
            .required
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(name) {
                let message = format!("missing required property `{name}`");
                trial.res.push(violation(path, message));
            }
        }
        for (name, item) in object {
            let item_path = Path::Key(path, name);
            match keywords
                .properties
                .and_then(|properties| properties.get(name))
            {
                Some(item_schema) => self.check(item_schema, item, &item_path, trial),
                None => match keywords.additional {
                    Some(Value::Bool(false)) => {
                        trial
                            .res
                            .push(violation(&item_path, "unexpected property".to_owned()));
                    }
                    Some(item_schema) => self.check(item_schema, item, &item_path, trial),
                    None => {}
                },
            }
        }
    }
}

/// A JSON value's address, to know it again within one validation.
fn address(value: &Value) -> usize {
    std::ptr::from_ref(value) as usize
}

/// Appends one JSON Pointer reference token, escaped (RFC 6901 §3).
fn push_token(path: &mut String, token: &str) {
    path.push('/');
    for ch in token.chars() {
        match ch {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            other => path.push(other),
        }
    }
}

fn violation(path: &Path<'_>, message: String) -> Violation {
    let mut rendered = String::new();
    path.render(&mut rendered);
    Violation {
        path: rendered,
        message,
    }
}

fn type_matches(expected: &Value, value: &Value) -> bool {
    match expected {
        Value::String(name) => is_type(name, value),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .any(|name| is_type(name, value)),
        // A malformed `type` says nothing the validator can hold a value to.
        _ => true,
    }
}

fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        "array" => value.is_array(),
        "object" => value.is_object(),
        // An unknown type name is the schema's problem, not the caller's.
        _ => true,
    }
}

fn describe_type(expected: &Value) -> String {
    let article = |name: &str| match name {
        "null" => "null".to_owned(),
        "integer" | "array" | "object" => format!("an {name}"),
        other => format!("a {other}"),
    };
    match expected {
        Value::String(name) => article(name),
        Value::Array(names) => {
            let names: Vec<String> = names
                .iter()
                .filter_map(Value::as_str)
                .map(article)
                .collect();
            names.join(" or ")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(schema: Value, value: Value) -> Vec<String> {
        validate(&schema, &value)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn add_schema() -> Value {
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false
        })
    }

    #[test]
    fn valid_arguments_have_no_violations() {
        assert!(messages(add_schema(), json!({"a": 1, "b": 2.5})).is_empty());
    }

    #[test]
    fn wrong_type_names_the_path() {
        assert_eq!(
            messages(add_schema(), json!({"a": "1", "b": 2})),
            ["/a: expected a number, found a string"]
        );
    }

    #[test]
    fn missing_required_and_unexpected_properties_are_listed() {
        assert_eq!(
            messages(add_schema(), json!({"a": 1, "c": true})),
            [
                "arguments: missing required property `b`",
                "/c: unexpected property"
            ]
        );
    }

    #[test]
    fn integer_accepts_whole_numbers_only() {
        let schema = json!({"type": "integer"});
        assert!(messages(schema.clone(), json!(3)).is_empty());
        assert!(messages(schema.clone(), json!(3.0)).is_empty());
        assert_eq!(
            messages(schema, json!(3.5)),
            ["arguments: expected an integer, found a number"]
        );
    }

    #[test]
    fn type_lists_enum_and_const() {
        let schema = json!({"type": ["string", "null"]});
        assert!(messages(schema.clone(), Value::Null).is_empty());
        assert_eq!(
            messages(schema, json!(1)),
            ["arguments: expected a string or null, found a number"]
        );
        assert_eq!(
            messages(json!({"enum": ["fast", "slow"]}), json!("medium")),
            [r#"arguments: expected one of "fast", "slow", found "medium""#]
        );
        assert_eq!(
            messages(json!({"const": 1}), json!(2)),
            ["arguments: expected 1, found 2"]
        );
    }

    #[test]
    fn items_and_nested_paths_are_escaped() {
        let schema = json!({
            "type": "object",
            "properties": {"a/b~c": {"type": "array", "items": {"type": "string"}}}
        });
        assert_eq!(
            messages(schema, json!({"a/b~c": ["x", 2]})),
            ["/a~1b~0c/1: expected a string, found a number"]
        );
    }

    #[test]
    fn additional_properties_schema_applies_to_the_rest() {
        let schema = json!({"type": "object", "additionalProperties": {"type": "boolean"}});
        assert_eq!(
            messages(schema, json!({"x": true, "y": 0})),
            ["/y: expected a boolean, found a number"]
        );
    }

    #[test]
    fn local_refs_and_any_of_resolve() {
        let schema = json!({
            "type": "object",
            "properties": {"when": {"anyOf": [{"$ref": "#/$defs/day"}, {"type": "null"}]}},
            "$defs": {"day": {"type": "string", "enum": ["mon", "tue"]}}
        });
        assert!(messages(schema.clone(), json!({"when": "mon"})).is_empty());
        assert!(messages(schema.clone(), json!({"when": null})).is_empty());
        assert_eq!(
            messages(schema, json!({"when": "sun"})),
            ["/when: matches none of the 2 schemas of `anyOf`"]
        );
        let all_of = json!({"allOf": [{"$ref": "#/definitions/n"}], "definitions": {"n": {"type": "number"}}});
        assert_eq!(
            messages(all_of, json!("x")),
            ["arguments: expected a number, found a string"]
        );
    }

    #[test]
    fn a_schema_that_refers_to_itself_in_a_loop_terminates() {
        assert!(messages(json!({"$ref": "#"}), json!(1)).is_empty());
        let list = json!({"type": "object", "properties": {"next": {"$ref": "#"}}});
        assert_eq!(
            messages(list, json!({"next": {"next": 3}})),
            ["/next/next: expected an object, found a number"]
        );
    }

    #[test]
    fn unknown_keywords_and_boolean_schemas() {
        assert!(messages(json!({"minLength": 99, "format": "uri"}), json!("x")).is_empty());
        assert!(messages(json!(true), json!({"any": 1})).is_empty());
        assert_eq!(
            messages(json!({"properties": {"x": false}}), json!({"x": 1})),
            ["/x: no value is allowed here"]
        );
    }

    /// A tagged enum of tree nodes, the schema a generator emits for a
    /// recursive type: three branches, two of which descend.
    fn expression_schema() -> Value {
        json!({
            "$ref": "#/$defs/expr",
            "$defs": {"expr": {"oneOf": [
                {"type": "object", "properties": {"op": {"const": "lit"}, "value": {"type": "number"}}, "required": ["op", "value"]},
                {"type": "object", "properties": {"op": {"const": "neg"}, "arg": {"$ref": "#/$defs/expr"}}, "required": ["op", "arg"]},
                {"type": "object", "properties": {"op": {"const": "abs"}, "arg": {"$ref": "#/$defs/expr"}}, "required": ["op", "arg"]}
            ]}}
        })
    }

    fn nested(depth: usize, leaf: Value) -> Value {
        let mut value = leaf;
        for _ in 0..depth {
            value = json!({"op": "abs", "arg": value});
        }
        value
    }

    /// Each branch is judged once per value: the work grows with the depth
    /// of the arguments, not exponentially (three branches tried at each of
    /// 100 levels would be 3^100 applications).
    #[test]
    fn recursive_schemas_cost_linear_work_in_the_depth_of_the_value() {
        let schema = expression_schema();
        let (valid, small) =
            validate_counting(&schema, &nested(10, json!({"op": "lit", "value": 1})));
        assert!(valid.is_empty(), "{valid:?}");
        let (valid, large) =
            validate_counting(&schema, &nested(100, json!({"op": "lit", "value": 1})));
        assert!(valid.is_empty(), "{valid:?}");
        assert!(
            large < 12 * small,
            "{small} steps at depth 10, {large} at depth 100"
        );
        let (invalid, steps) =
            validate_counting(&schema, &nested(100, json!({"op": "lit", "value": "one"})));
        assert_eq!(
            invalid.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["arguments: matches none of the 3 schemas of `oneOf`"]
        );
        assert!(
            steps < 12 * small,
            "{steps} steps for an invalid value at depth 100"
        );
    }

    /// A schema that applies itself again through `allOf` at the same value
    /// reports each violation once and does not multiply its work at every
    /// level.
    #[test]
    fn a_schema_applied_again_at_the_same_value_counts_once() {
        let schema = json!({
            "allOf": [{"$ref": "#"}, {"$ref": "#"}],
            "type": "object",
            "properties": {"next": {"$ref": "#"}}
        });
        let mut value = json!(3);
        for _ in 0..60 {
            value = json!({"next": value});
        }
        let (violations, steps) = validate_counting(&schema, &value);
        let mut path = "/next".repeat(60);
        path.push_str(": expected an object, found a number");
        assert_eq!(
            violations
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [path]
        );
        assert!(steps < 400, "{steps} steps");
    }
}
