//! The judge's verdicts, keyword by keyword, and the class of schemas
//! where a lenient validator and a strict one part: closed tuples, pattern
//! properties beside `additionalProperties: false`, numbers equal by
//! value, references with siblings, the dialects' own keywords,
//! `unevaluated*`. The differential tests against the `jsonschema` crate
//! are in `tests/schema.rs`.

use super::*;
use serde_json::json;

fn verdict(schema: Value, value: Value) -> Verdict {
    Schema::new(&schema).judge(&value)
}

fn standard(schema: Value, value: Value) -> Verdict {
    Schema::standard(&schema).judge(&value)
}

fn broken(schema: Value, value: Value) -> String {
    match verdict(schema, value) {
        Verdict::Invalid(broken) => broken.to_string(),
        other => panic!("not invalid: {other:?}"),
    }
}

fn unjudged(verdict: Verdict) -> String {
    match verdict {
        Verdict::Unjudged(why) => why,
        other => panic!("not unjudged: {other:?}"),
    }
}

fn invalid_by(verdict: Verdict) -> String {
    match verdict {
        Verdict::Invalid(broken) => broken.keyword,
        other => panic!("not invalid: {other:?}"),
    }
}

fn search() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 5},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "mode": {"enum": ["fast", "exact"]}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

#[test]
fn the_keywords_of_tool_schemas_are_judged() {
    assert_eq!(verdict(search(), json!({"query": "a"})), Verdict::Valid);
    assert_eq!(
        verdict(
            search(),
            json!({"query": "abcde", "limit": 50.0, "mode": "fast"})
        ),
        Verdict::Valid
    );
    assert_eq!(
        broken(search(), json!({})),
        "arguments: missing required property `query`"
    );
    assert_eq!(
        broken(search(), json!({"query": ""})),
        "/query: 0 characters, against the `minLength` 1"
    );
    assert_eq!(
        broken(search(), json!({"query": "ééééé!"})),
        "/query: 6 characters, against the `maxLength` 5"
    );
    assert_eq!(
        broken(search(), json!({"query": "a", "limit": 51})),
        "/limit: 51 is out of bounds: `maximum` is 50"
    );
    assert_eq!(
        broken(search(), json!({"query": "a", "limit": 1.5})),
        "/limit: expected an integer, found a number"
    );
    assert_eq!(
        broken(search(), json!({"query": "a", "mode": "slow"})),
        "/mode: expected one of \"fast\", \"exact\", found \"slow\""
    );
    assert_eq!(
        broken(search(), json!({"query": "a", "extra": 1})),
        "/extra: unexpected property"
    );
    assert_eq!(
        broken(search(), json!({"query": 7})),
        "/query: expected a string, found a number"
    );
}

#[test]
fn every_broken_keyword_is_listed_once() {
    let schema = search();
    let judged = Schema::standard(&schema).judgement(&json!({"query": "", "limit": 0, "x": 1}));
    let Judgement::Invalid(all) = judged else {
        panic!("{judged:?}");
    };
    let keywords: Vec<&str> = all.iter().map(|b| b.keyword.as_str()).collect();
    assert_eq!(keywords, ["minimum", "minLength", "additionalProperties"]);
}

/// The portable reading leaves to the validator what the standard leaves
/// to it; the standard reading takes those keywords as annotations.
#[test]
fn formats_and_unknown_keywords_are_annotations_or_unjudged() {
    let nullable =
        json!({"type": "object", "properties": {"x": {"type": "string", "nullable": true}}});
    // `type` fails whatever `nullable` means.
    assert!(matches!(
        verdict(nullable.clone(), json!({"x": null})),
        Verdict::Invalid(_)
    ));
    assert!(matches!(
        standard(nullable, json!({"x": null})),
        Verdict::Invalid(_)
    ));
    let unknown =
        json!({"type": "object", "properties": {"x": {"minLength": 2, "nullable": true}}});
    assert_eq!(
        unjudged(verdict(unknown.clone(), json!({"x": "ab"}))),
        "the keyword `nullable` is unknown"
    );
    assert_eq!(
        standard(unknown.clone(), json!({"x": "ab"})),
        Verdict::Valid
    );
    assert!(matches!(
        verdict(unknown, json!({"x": "a"})),
        Verdict::Invalid(_)
    ));
    let email = json!({"type": "string", "format": "email"});
    assert_eq!(
        verdict(email.clone(), json!("user@example.com")),
        Verdict::Valid
    );
    assert!(matches!(
        verdict(email.clone(), json!("x")),
        Verdict::Unjudged(_)
    ));
    assert_eq!(standard(email, json!("x")), Verdict::Valid);
    let vendor = json!({"x-order": 1, "contentMediaType": "image/png", "deprecated": true});
    assert_eq!(verdict(vendor, json!("?")), Verdict::Valid);
}

#[cfg(feature = "cli")]
#[test]
fn patterns_are_judged_where_the_engines_agree() {
    let digits = json!({"type": "string", "pattern": "^\\d+$"});
    assert_eq!(verdict(digits.clone(), json!("123")), Verdict::Valid);
    assert_eq!(invalid_by(verdict(digits.clone(), json!("a"))), "pattern");
    assert!(matches!(verdict(digits, json!("٣")), Verdict::Unjudged(_)));
    let lookahead = json!({"type": "string", "pattern": "^(?=a)a$"});
    assert!(unjudged(verdict(lookahead, json!("a"))).contains("group construct"));
    let dollar = json!({"pattern": "^a$"});
    assert!(matches!(
        standard(dollar, json!("a\n")),
        Verdict::Unjudged(_)
    ));
}

#[cfg(not(feature = "cli"))]
#[test]
fn the_lean_build_leaves_patterns_unjudged() {
    let digits = json!({"type": "string", "pattern": "^\\d+$"});
    assert!(matches!(
        standard(digits.clone(), json!("123")),
        Verdict::Unjudged(_)
    ));
    // Other keywords still decide.
    assert!(matches!(standard(digits, json!(1)), Verdict::Invalid(_)));
}

#[test]
fn combinators_and_references() {
    let schema = json!({
        "type": "object",
        "properties": {
            "when": {"anyOf": [{"$ref": "#/$defs/day"}, {"type": "null"}]},
            "one": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
            "not": {"not": {"type": "string"}}
        },
        "$defs": {"day": {"type": "string", "enum": ["mon", "tue"]}}
    });
    assert_eq!(
        verdict(schema.clone(), json!({"when": "mon"})),
        Verdict::Valid
    );
    assert_eq!(
        verdict(schema.clone(), json!({"when": null})),
        Verdict::Valid
    );
    assert_eq!(
        broken(schema.clone(), json!({"when": "sun"})),
        "/when: matches none of the 2 schemas of `anyOf`"
    );
    // 1 is an integer and a number: both branches.
    assert_eq!(
        broken(schema.clone(), json!({"one": 1})),
        "/one: matches 2 of the 2 schemas of `oneOf`, not exactly one"
    );
    assert_eq!(verdict(schema.clone(), json!({"one": 1.5})), Verdict::Valid);
    assert_eq!(
        broken(schema, json!({"not": "x"})),
        "/not: matches the schema of `not`"
    );
}

/// `$ref`'s siblings apply in 2020-12 and are ignored in draft-07.
#[test]
fn references_and_their_siblings() {
    let siblings = json!({
        "$defs": {"n": {"type": "number"}},
        "$ref": "#/$defs/n",
        "maximum": 3
    });
    assert_eq!(verdict(siblings.clone(), json!(2)), Verdict::Valid);
    assert_eq!(invalid_by(verdict(siblings.clone(), json!(4))), "maximum");
    assert_eq!(invalid_by(verdict(siblings, json!("x"))), "type");
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"n": {"type": "number"}},
        "$ref": "#/definitions/n",
        "type": "string"
    });
    assert_eq!(verdict(draft7, json!(3)), Verdict::Valid);
    let escaped = json!({"$defs": {"a b": {"type": "number"}, "c/d": {"type": "string"}},
        "properties": {"x": {"$ref": "#/$defs/a%20b"}, "y": {"$ref": "#/$defs/c~1d"}}});
    assert_eq!(
        verdict(escaped.clone(), json!({"x": 1, "y": "s"})),
        Verdict::Valid
    );
    assert_eq!(invalid_by(verdict(escaped, json!({"x": "1"}))), "type");
    let anchored = json!({
        "$id": "https://example.com/root.json",
        "$defs": {"a": {"$anchor": "int", "type": "integer"}},
        "properties": {
            "x": {"$ref": "#int"},
            "y": {"$ref": "https://example.com/root.json#/$defs/a"},
            "z": {"$dynamicRef": "#int"}
        }
    });
    assert_eq!(
        verdict(anchored.clone(), json!({"x": 1, "y": 2, "z": 3})),
        Verdict::Valid
    );
    for member in ["x", "y", "z"] {
        assert_eq!(
            invalid_by(verdict(anchored.clone(), json!({member: 1.5}))),
            "type"
        );
    }
}

#[test]
fn references_the_judge_does_not_follow_are_unjudged() {
    let remote = json!({"$ref": "https://example.com/other.json"});
    assert!(unjudged(verdict(remote, json!(1))).contains("names no schema"));
    let embedded = json!({
        "$defs": {"a": {"$id": "https://example.com/a", "$defs": {"x": {"type": "string"}}, "$ref": "#/$defs/x"}},
        "$ref": "#/$defs/a"
    });
    assert!(unjudged(verdict(embedded, json!(1))).contains("embeds resources"));
    let looping = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    assert!(unjudged(verdict(looping, json!(1))).contains("refers to itself"));
    // A failure beside the loop still fails.
    let beside = json!({"allOf": [{"$ref": "#"}], "type": "string"});
    assert_eq!(invalid_by(verdict(beside, json!(1))), "type");
}

/// Zod 4's closed tuple, and the draft-07 tuple.
#[test]
fn tuples_open_and_closed() {
    let closed = json!({
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "number"}],
        "items": false
    });
    assert_eq!(verdict(closed.clone(), json!(["a", 1])), Verdict::Valid);
    assert_eq!(verdict(closed.clone(), json!(["a"])), Verdict::Valid);
    assert_eq!(verdict(closed.clone(), json!([])), Verdict::Valid);
    assert_eq!(
        broken(closed.clone(), json!(["a", 1, true])),
        "/2: no value is allowed here"
    );
    assert_eq!(invalid_by(verdict(closed, json!([1, 1]))), "type");
    let rest = json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}});
    assert_eq!(verdict(rest.clone(), json!(["a", 1, 2])), Verdict::Valid);
    assert_eq!(invalid_by(verdict(rest, json!(["a", 1, 2.5]))), "type");
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "items": [{"type": "string"}],
        "additionalItems": false
    });
    assert_eq!(verdict(draft7.clone(), json!(["a"])), Verdict::Valid);
    assert_eq!(invalid_by(verdict(draft7, json!(["a", 1]))), "false");
}

#[test]
fn contains_and_its_bounds() {
    let schema = json!({"contains": {"type": "string"}, "minContains": 2, "maxContains": 3});
    assert_eq!(
        verdict(schema.clone(), json!(["a", "b", 1])),
        Verdict::Valid
    );
    assert_eq!(
        invalid_by(verdict(schema.clone(), json!(["a", 1]))),
        "contains"
    );
    assert_eq!(
        invalid_by(verdict(schema, json!(["a", "b", "c", "d"]))),
        "contains"
    );
    let none = json!({"contains": {"type": "string"}, "minContains": 0});
    assert_eq!(verdict(none, json!([1])), Verdict::Valid);
    assert_eq!(
        invalid_by(verdict(json!({"contains": {"const": 1}}), json!([]))),
        "contains"
    );
    // Draft-07 has no `minContains`: one reading fails, the other holds.
    let draft7 = json!({"$schema": "http://json-schema.org/draft-07/schema#",
        "contains": {"type": "string"}, "minContains": 2});
    assert_eq!(verdict(draft7.clone(), json!(["a", "b"])), Verdict::Valid);
    assert!(matches!(
        verdict(draft7, json!(["a"])),
        Verdict::Unjudged(_)
    ));
}

#[test]
fn equal_values_by_value() {
    assert_eq!(verdict(json!({"enum": [1]}), json!(1.0)), Verdict::Valid);
    assert_eq!(verdict(json!({"const": 1.0}), json!(1)), Verdict::Valid);
    assert_eq!(
        verdict(
            json!({"const": {"a": [1, {"b": null}]}}),
            json!({"a": [1.0, {"b": null}]})
        ),
        Verdict::Valid
    );
    assert_eq!(
        invalid_by(verdict(json!({"enum": [true]}), json!(1))),
        "enum"
    );
    assert_eq!(
        invalid_by(verdict(json!({"const": [1, 2]}), json!([2, 1]))),
        "const"
    );
    let unique = json!({"uniqueItems": true});
    assert_eq!(
        broken(unique.clone(), json!([1, 1.0])),
        "arguments: item 1 repeats an earlier item"
    );
    assert_eq!(
        invalid_by(verdict(
            unique.clone(),
            json!([{"a": 1, "b": 2}, {"b": 2.0, "a": 1}])
        )),
        "uniqueItems"
    );
    assert_eq!(
        verdict(unique.clone(), json!([true, 1, "1", [1], {"1": 1}])),
        Verdict::Valid
    );
    assert_eq!(
        verdict(unique, json!([9007199254740993u64, 9007199254740992.0])),
        Verdict::Valid
    );
}

#[test]
fn numbers_compare_exactly_and_by_value() {
    let schema = json!({"type": "integer", "maximum": 9007199254740993u64});
    assert_eq!(
        verdict(schema.clone(), json!(9007199254740993u64)),
        Verdict::Valid
    );
    assert!(matches!(
        verdict(schema, json!(9007199254740994u64)),
        Verdict::Invalid(_)
    ));
    assert_eq!(
        invalid_by(verdict(
            json!({"maximum": 9007199254740992.0}),
            json!(9007199254740993u64)
        )),
        "maximum"
    );
    assert_eq!(
        verdict(json!({"type": "integer"}), json!(1.0)),
        Verdict::Valid
    );
    assert_eq!(
        verdict(json!({"exclusiveMinimum": 0}), json!(0.5)),
        Verdict::Valid
    );
    assert_eq!(
        invalid_by(verdict(json!({"exclusiveMinimum": 0}), json!(0))),
        "exclusiveMinimum"
    );
    let multiple = json!({"multipleOf": 0.1});
    assert!(matches!(
        verdict(multiple.clone(), json!(0.3)),
        Verdict::Unjudged(_)
    ));
    assert_eq!(verdict(multiple.clone(), json!(0.5)), Verdict::Valid);
    assert!(matches!(
        verdict(multiple, json!(0.35)),
        Verdict::Invalid(_)
    ));
    let draft4 = json!({"$schema": "http://json-schema.org/draft-04/schema#",
        "minimum": 1, "exclusiveMinimum": true});
    assert_eq!(invalid_by(verdict(draft4.clone(), json!(1))), "minimum");
    assert_eq!(verdict(draft4, json!(1.5)), Verdict::Valid);
    assert!(matches!(
        verdict(json!({"exclusiveMinimum": true}), json!(0.5)),
        Verdict::Unjudged(_)
    ));
}

#[test]
fn strings_are_measured_in_code_points() {
    let schema = json!({"minLength": 2, "maxLength": 2});
    assert_eq!(
        invalid_by(verdict(schema.clone(), json!("\u{1F600}"))),
        "minLength"
    );
    assert_eq!(
        verdict(schema.clone(), json!("\u{1F600}\u{1F600}")),
        Verdict::Valid
    );
    assert_eq!(verdict(schema, json!("é\u{301}")), Verdict::Valid);
    assert_eq!(
        verdict(json!({"minLength": 2.0}), json!("ab")),
        Verdict::Valid
    );
    assert!(matches!(
        verdict(json!({"minLength": -1}), json!("ab")),
        Verdict::Unjudged(_)
    ));
}

#[cfg(feature = "cli")]
#[test]
fn pattern_properties_beside_additional_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": false
    });
    assert_eq!(
        verdict(schema.clone(), json!({"name": "a", "x-a": 1, "x-b": 2})),
        Verdict::Valid
    );
    assert_eq!(
        broken(schema.clone(), json!({"name": "a", "y": 1})),
        "/y: unexpected property"
    );
    assert_eq!(
        broken(schema.clone(), json!({"x-a": "1"})),
        "/x-a: expected an integer, found a string"
    );
    // A pattern the engines may read differently: the name might match.
    let unsure = json!({"patternProperties": {"^(?=x)": {}}, "additionalProperties": false});
    assert!(matches!(
        verdict(unsure.clone(), json!({"y": 1})),
        Verdict::Unjudged(_)
    ));
    let names = json!({"propertyNames": {"pattern": "^[a-z]+$", "maxLength": 3}});
    assert_eq!(verdict(names.clone(), json!({"abc": 1})), Verdict::Valid);
    assert_eq!(
        broken(names, json!({"abcd": 1})),
        "/abcd: the property name `abcd` breaks `propertyNames`: 4 characters, against the `maxLength` 3"
    );
}

#[cfg(not(feature = "cli"))]
#[test]
fn the_lean_build_leaves_pattern_properties_unjudged() {
    let schema = json!({
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": false
    });
    assert!(matches!(
        standard(schema.clone(), json!({"x-a": 1})),
        Verdict::Unjudged(_)
    ));
    // What no pattern could save still fails.
    let typed = json!({"type": "object", "patternProperties": {"^x-": {}}, "additionalProperties": {"type": "integer"}});
    assert!(matches!(
        standard(typed.clone(), json!({"y": "1"})),
        Verdict::Unjudged(_)
    ));
    assert_eq!(standard(typed, json!({"y": 1})), Verdict::Valid);
}

#[test]
fn objects_and_their_dependencies() {
    let schema = json!({
        "dependentRequired": {"card": ["billing"]},
        "dependentSchemas": {"vip": {"required": ["level"]}},
        "minProperties": 1,
        "maxProperties": 3
    });
    assert_eq!(
        verdict(schema.clone(), json!({"card": 1, "billing": 2})),
        Verdict::Valid
    );
    assert_eq!(
        broken(schema.clone(), json!({"card": 1})),
        "arguments: `card` is present, so `billing` is required"
    );
    assert_eq!(
        invalid_by(verdict(schema.clone(), json!({"vip": true}))),
        "required"
    );
    assert_eq!(
        invalid_by(verdict(schema.clone(), json!({}))),
        "minProperties"
    );
    assert_eq!(
        invalid_by(verdict(schema, json!({"a": 1, "b": 2, "c": 3, "d": 4}))),
        "maxProperties"
    );
    // `dependencies` is draft-07's; 2020-12 validators differ on it.
    let old = json!({"dependencies": {"a": ["b"], "c": {"required": ["d"]}}});
    assert_eq!(
        verdict(old.clone(), json!({"a": 1, "b": 2})),
        Verdict::Valid
    );
    assert!(unjudged(verdict(old.clone(), json!({"a": 1}))).contains("`dependencies` fails"));
    let mut draft7 = old;
    draft7["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    assert_eq!(
        invalid_by(verdict(draft7.clone(), json!({"a": 1}))),
        "dependencies"
    );
    assert_eq!(
        invalid_by(verdict(draft7.clone(), json!({"c": 1}))),
        "required"
    );
    // And `prefixItems` is 2020-12's.
    let tuple = json!({"$schema": "http://json-schema.org/draft-07/schema#", "prefixItems": [{"type": "string"}]});
    assert!(matches!(
        verdict(tuple.clone(), json!([1])),
        Verdict::Unjudged(_)
    ));
    assert_eq!(verdict(tuple, json!(["a"])), Verdict::Valid);
}

#[test]
fn conditions() {
    let schema = json!({
        "if": {"properties": {"kind": {"const": "card"}}, "required": ["kind"]},
        "then": {"required": ["number"]},
        "else": {"required": ["iban"]}
    });
    assert_eq!(
        verdict(schema.clone(), json!({"kind": "card", "number": 1})),
        Verdict::Valid
    );
    assert_eq!(verdict(schema.clone(), json!({"iban": 1})), Verdict::Valid);
    assert_eq!(
        invalid_by(verdict(schema.clone(), json!({"kind": "card"}))),
        "required"
    );
    assert_eq!(
        invalid_by(verdict(schema, json!({"kind": "bank"}))),
        "required"
    );
    // An `if` that cannot be told: only an agreement of both branches
    // decides.
    let unsure = json!({"if": {"multipleOf": 0.1}, "then": {"minimum": 0}, "else": {"minimum": -1, "maximum": 1}});
    assert_eq!(verdict(unsure.clone(), json!(0.3)), Verdict::Valid);
    assert!(matches!(
        verdict(unsure.clone(), json!(-3.3)),
        Verdict::Invalid(_)
    ));
    let split = json!({"if": {"multipleOf": 0.1}, "then": {"maximum": 0}, "else": {"maximum": 1}});
    assert!(matches!(verdict(split, json!(0.3)), Verdict::Unjudged(_)));
    assert_eq!(verdict(json!({"then": false}), json!(1)), Verdict::Valid);
}

#[test]
fn boolean_schemas() {
    assert_eq!(verdict(json!(true), json!({"a": 1})), Verdict::Valid);
    assert_eq!(
        broken(json!(false), json!(1)),
        "arguments: no value is allowed here"
    );
    assert_eq!(
        broken(json!({"properties": {"x": false}}), json!({"x": 1})),
        "/x: no value is allowed here"
    );
    assert_eq!(verdict(json!({"not": false}), json!(1)), Verdict::Valid);
    assert_eq!(invalid_by(verdict(json!({"not": true}), json!(1))), "not");
    assert_eq!(
        verdict(json!({"anyOf": [false, true]}), json!(1)),
        Verdict::Valid
    );
}

#[test]
fn unevaluated_properties_read_the_applicators() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "allOf": [{"properties": {"b": {"type": "integer"}}}],
        "anyOf": [
            {"properties": {"c": {"const": 1}}, "required": ["c"]},
            {"properties": {"d": {"const": 2}}, "required": ["d"]}
        ],
        "unevaluatedProperties": false
    });
    assert_eq!(
        verdict(schema.clone(), json!({"a": "x", "b": 1, "c": 1})),
        Verdict::Valid
    );
    assert_eq!(verdict(schema.clone(), json!({"d": 2})), Verdict::Valid);
    // `c` is evaluated only by a branch that fails.
    assert_eq!(
        broken(schema.clone(), json!({"c": 2, "d": 2})),
        "/c: unexpected property"
    );
    assert_eq!(
        broken(schema, json!({"d": 2, "e": 0})),
        "/e: unexpected property"
    );
    let conditional = json!({
        "if": {"properties": {"kind": {"const": "a"}}},
        "then": {"properties": {"x": true}},
        "unevaluatedProperties": false
    });
    assert_eq!(
        verdict(conditional.clone(), json!({"kind": "a", "x": 1})),
        Verdict::Valid
    );
    // A failed `if` evaluates nothing: `kind` is unevaluated too.
    assert_eq!(
        broken(conditional, json!({"kind": "b", "x": 1})),
        "/kind: unexpected property"
    );
    let referenced = json!({
        "$defs": {"base": {"properties": {"id": {"type": "integer"}}}},
        "$ref": "#/$defs/base",
        "properties": {"name": true},
        "unevaluatedProperties": false
    });
    assert_eq!(
        verdict(referenced.clone(), json!({"id": 1, "name": "n"})),
        Verdict::Valid
    );
    assert_eq!(
        invalid_by(verdict(referenced, json!({"id": 1, "x": 0}))),
        "unevaluatedProperties"
    );
    // Nested: the inner keyword evaluates everything it sees.
    let nested =
        json!({"allOf": [{"unevaluatedProperties": true}], "unevaluatedProperties": false});
    assert_eq!(verdict(nested, json!({"any": 1})), Verdict::Valid);
    // Evaluated maybe, by a branch that cannot be told.
    let unsure = json!({
        "anyOf": [{"properties": {"x": {"multipleOf": 0.1}}}, {"properties": {"y": true}}],
        "unevaluatedProperties": false
    });
    assert!(matches!(
        verdict(unsure.clone(), json!({"x": 0.3})),
        Verdict::Unjudged(_)
    ));
    assert_eq!(
        invalid_by(verdict(unsure.clone(), json!({"x": 0.3, "z": 1}))),
        "unevaluatedProperties"
    );
    assert_eq!(verdict(unsure, json!({"x": 0.5})), Verdict::Valid);
}

#[test]
fn unevaluated_items_read_the_applicators() {
    let schema = json!({
        "prefixItems": [{"type": "string"}],
        "contains": {"type": "boolean"},
        "unevaluatedItems": {"type": "integer"}
    });
    assert_eq!(
        verdict(schema.clone(), json!(["a", true, 1, false])),
        Verdict::Valid
    );
    assert_eq!(
        broken(schema, json!(["a", true, 1.5])),
        "/2: expected an integer, found a number"
    );
    let closed = json!({"allOf": [{"prefixItems": [true, true]}], "unevaluatedItems": false});
    assert_eq!(verdict(closed.clone(), json!([1, 2])), Verdict::Valid);
    assert_eq!(
        broken(closed, json!([1, 2, 3])),
        "/2: no value is allowed here"
    );
    let all = json!({"anyOf": [{"items": true}, false], "unevaluatedItems": false});
    assert_eq!(verdict(all, json!([1, 2, 3])), Verdict::Valid);
}

/// An empty `enum` or `type` list allows nothing (the test suite's reading
/// and the Python package's; only the meta-schema frowns on them).
#[test]
fn empty_lists_allow_nothing() {
    assert_eq!(invalid_by(verdict(json!({"enum": []}), json!(1))), "enum");
    assert_eq!(
        invalid_by(verdict(json!({"type": []}), json!(null))),
        "type"
    );
}

#[test]
fn malformed_keywords_are_unjudged() {
    for schema in [
        json!({"type": 5}),
        json!({"type": "text"}),
        json!({"enum": 1}),
        json!({"anyOf": []}),
        json!({"allOf": {}}),
        json!({"required": "a"}),
        json!({"maxLength": "5"}),
        json!({"minimum": "0"}),
        json!({"multipleOf": 0}),
        json!({"multipleOf": -2}),
        json!({"properties": []}),
        json!({"$ref": 5}),
        json!({"items": 5}),
    ] {
        let value = match schema
            .as_object()
            .and_then(|m| m.keys().next())
            .map(String::as_str)
        {
            Some("required" | "properties") => json!({"a": 1}),
            Some("maxLength") => json!("abcdefg"),
            Some("minimum" | "multipleOf") => json!(-3),
            Some("items") => json!([1]),
            _ => json!(1),
        };
        assert!(
            matches!(verdict(schema.clone(), value.clone()), Verdict::Unjudged(_)),
            "{schema} on {value}: {:?}",
            verdict(schema.clone(), value.clone())
        );
    }
}

/// A schema that applies itself again through `allOf` at every level,
/// twice, reports the failure once and does its work once per level.
#[test]
fn a_schema_applied_again_at_the_same_value_counts_once() {
    let schema = json!({
        "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
        "allOf": [{"$ref": "#/$defs/node"}, {"$ref": "#/$defs/node"}],
        "properties": {"next": {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}}
    });
    let mut value = json!(3);
    for _ in 0..30 {
        value = json!({"next": value});
    }
    let (judged, steps) = Schema::standard(&schema).judgement_counting(&value);
    let Judgement::Invalid(all) = judged else {
        panic!("{judged:?}");
    };
    let pointer = "/next".repeat(30);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0].pointer, pointer);
    assert!(steps < 600, "{steps} steps");
}

/// Nesting as deep as a message may be (127 levels) under schemas that
/// nest as deep again is judged, or left unjudged, on a thread with
/// little more stack than a judgement may take, without overflowing it.
#[test]
fn deep_values_and_schemas_stay_within_a_threads_stack() {
    let mut schema = json!({"type": "object", "properties": {"a": {"$ref": "#"}}});
    for _ in 0..120 {
        schema = json!({"allOf": [schema], "$defs": {}});
    }
    // The references point at the root, which is the outermost `allOf`.
    let mut value = json!(1);
    for _ in 0..126 {
        value = json!({"a": value});
    }
    let handle = std::thread::Builder::new()
        .stack_size(MAX_STACK + (512 << 10))
        .spawn(move || {
            let judged = Schema::standard(&schema).judge(&value);
            matches!(judged, Verdict::Invalid(_) | Verdict::Unjudged(_))
        })
        .unwrap();
    assert!(handle.join().unwrap());
}

#[test]
fn long_judgements_stop_unjudged() {
    let branches: Vec<Value> = (0..1000).map(|n| json!({"const": n})).collect();
    let schema = json!({"items": {"anyOf": branches}});
    let value = Value::Array(vec![json!(-1); 2000]);
    // 2,000 items, each tried against 1,000 branches: more than the
    // judgement's bound of steps.
    let judged = Schema::standard(&schema).judge(&value);
    assert!(
        matches!(judged, Verdict::Invalid(_) | Verdict::Unjudged(_)),
        "{judged:?}"
    );
    let all = Schema::standard(&schema).judgement(&value);
    match all {
        Judgement::Invalid(broken) => assert!(broken.len() <= MAX_BROKEN),
        Judgement::Unjudged(why) => assert!(why.contains("steps"), "{why}"),
        Judgement::Valid => panic!("valid"),
    }
}

#[cfg(feature = "cli")]
#[test]
fn features_fuzz_does_not_generate_for_are_listed() {
    let schema = json!({
        "type": "object",
        "properties": {
            "meta": {"type": "object", "patternProperties": {"^a": {}}},
            "when": {"type": "string", "format": "mcp-replay-no-such-format"},
            "x": {"type": "string", "nullable": true},
            "ok": {"type": "string", "format": "date", "pattern": "^[0-9-]+$"}
        },
        "not": {"required": ["x"]},
        "unevaluatedProperties": false
    });
    let root = Schema::new(&schema);
    assert_eq!(
        not_generated_for(&root),
        [
            "`not` at the schema's root",
            "`patternProperties` at /properties/meta",
            "format \"mcp-replay-no-such-format\" at /properties/when",
            "the unknown keyword `nullable` at /properties/x",
            "`unevaluatedProperties` at the schema's root",
        ]
    );
}
