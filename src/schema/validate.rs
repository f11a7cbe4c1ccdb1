//! The lean validator: the judge (`judge/`) under the standard reading,
//! with what it cannot decide ignored.
//!
//! Arguments that violate a tool's `inputSchema` are the tool's failure, not
//! the protocol's: the loop answers them with an `isError` result whose
//! report lists what is wrong, path by path (MCP-CORE r1 §3¶19; MCP
//! 2025-11-25 server/tools#error-handling), and a tool's structured output
//! is held to its `outputSchema` the same way. Every keyword of JSON Schema
//! 2020-12 the judge decides is enforced; one it leaves undecided (a
//! `pattern` in a build without `cli`, a reference out of the schema, a
//! `multipleOf` whose readings of fractions differ) is ignored, so the
//! validator never rejects a value a full validator would accept.

use std::fmt;

use serde_json::Value;

use super::judge::{Judgement, Schema};

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
/// order. An empty list means the value is valid, or that what would make
/// it invalid is not decided.
pub(crate) fn validate(schema: &Value, value: &Value) -> Vec<Violation> {
    validate_counting(schema, value).0
}

/// [`validate`], and the number of schema applications it took.
fn validate_counting(schema: &Value, value: &Value) -> (Vec<Violation>, usize) {
    let (judgement, steps) = Schema::standard(schema).judgement_counting(value);
    let violations = match judgement {
        Judgement::Invalid(broken) => broken
            .into_iter()
            .map(|broken| Violation {
                path: broken.pointer,
                message: broken.message,
            })
            .collect(),
        Judgement::Valid | Judgement::Unjudged(_) => Vec::new(),
    };
    (violations, steps)
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
        assert!(messages(json!({"nullable": false, "format": "uri"}), json!("x")).is_empty());
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
    /// of the arguments, not exponentially (two branches that descend,
    /// tried at each of 40 levels, would be 2^40 applications).
    #[test]
    fn recursive_schemas_cost_linear_work_in_the_depth_of_the_value() {
        let schema = expression_schema();
        let (valid, small) =
            validate_counting(&schema, &nested(10, json!({"op": "lit", "value": 1})));
        assert!(valid.is_empty(), "{valid:?}");
        let (valid, large) =
            validate_counting(&schema, &nested(40, json!({"op": "lit", "value": 1})));
        assert!(valid.is_empty(), "{valid:?}");
        assert!(
            large < 6 * small,
            "{small} steps at depth 10, {large} at depth 40"
        );
        let (invalid, steps) =
            validate_counting(&schema, &nested(40, json!({"op": "lit", "value": "one"})));
        assert_eq!(
            invalid.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["arguments: matches none of the 3 schemas of `oneOf`"]
        );
        assert!(
            steps < 6 * small,
            "{steps} steps for an invalid value at depth 40"
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
