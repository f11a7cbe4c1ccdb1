//! The judge and the lean validator held to a full validator, the
//! `jsonschema` crate, on schemas drawn from the keywords of JSON Schema
//! 2020-12 (and draft-07's and 2019-09's forms) and values drawn at random
//! and from the schemas themselves; and on a fixed corpus of the cases
//! where a lenient validator and a strict one part.
//!
//! What is held: every value `jsonschema` accepts, the lean validator
//! accepts; a value the judge calls valid, `jsonschema` accepts (and, under
//! the portable reading, accepts with `format` asserted too); a value the
//! judge calls invalid, `jsonschema` rejects. And the judge decides: most
//! values get a verdict, both ways.
//!
//! See: #25

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value, json};

use super::judge::{Schema, Verdict};
use super::validate::validate;

/// The values the schemas and the instances are made of: numbers equal by
/// value and not, integers past 2^53, fractions, short strings that
/// patterns and lengths part, non-ASCII and astral text.
fn atom() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(1.0),
        json!(-1),
        json!(2),
        json!(3),
        json!(10),
        json!(0.5),
        json!(2.5),
        json!(0.3),
        json!(-0.0),
        json!(9007199254740993u64),
        json!(9007199254740992.0),
        json!(1e300),
        json!(""),
        json!("a"),
        json!("b"),
        json!("ab"),
        json!("abc"),
        json!("x-a"),
        json!("1"),
        json!("A1_"),
        json!("é"),
        json!("٣"),
        json!("\u{1F600}"),
        json!("a\n"),
        json!("a\r"),
    ])
}

/// The property names schemas and instances share.
const NAMES: &[&str] = &["a", "b", "c", "x-a", "x-b", "1"];

fn names() -> impl Strategy<Value = Value> {
    prop::collection::btree_set(prop::sample::select(NAMES), 0..3)
        .prop_map(|names| Value::Array(names.into_iter().map(Value::from).collect()))
}

fn name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(NAMES)
}

/// An instance: atoms, and arrays and objects of them.
fn instance() -> impl Strategy<Value = Value> {
    atom().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(name(), inner, 0..4).prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(name, value)| (name.to_owned(), value))
                        .collect(),
                )
            }),
        ]
    })
}

fn count() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![json!(0), json!(1), json!(2), json!(3), json!(2.0)])
}

fn number() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(0),
        json!(1),
        json!(1.0),
        json!(2),
        json!(-1),
        json!(0.5),
        json!(2.5),
        json!(9007199254740992.0),
        json!(9007199254740993u64),
    ])
}

fn pattern() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "^a",
        "b$",
        "^x-",
        "^[a-c]+$",
        "^\\d+$",
        "^.$",
        "^\\w+$",
        "\\s",
        "^(?:a|b)*$",
        "^a{2,}$",
        "(?=a)",
        "^[^a]",
        "^a$",
    ])
}

/// A schema with no subschema: one or two keywords of one kind.
fn leaf() -> impl Strategy<Value = Value> {
    let kinds = prop::sample::select(vec![
        "null", "boolean", "object", "array", "number", "integer", "string",
    ]);
    prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        kinds.clone().prop_map(|kind| json!({"type": kind})),
        (kinds.clone(), kinds).prop_map(|(a, b)| json!({"type": [a, b]})),
        prop::collection::vec(atom(), 1..4).prop_map(|allowed| json!({"enum": allowed})),
        atom().prop_map(|constant| json!({"const": constant})),
        (
            prop::sample::select(vec![
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum"
            ]),
            number()
        )
            .prop_map(|(keyword, bound)| json!({ keyword: bound })),
        prop::sample::select(vec![json!(1), json!(2), json!(0.5), json!(0.1), json!(3)])
            .prop_map(|divisor| json!({"multipleOf": divisor})),
        (
            prop::sample::select(vec![
                "minLength",
                "maxLength",
                "minItems",
                "maxItems",
                "minProperties",
                "maxProperties"
            ]),
            count()
        )
            .prop_map(|(keyword, bound)| json!({ keyword: bound })),
        pattern().prop_map(|pattern| json!({"pattern": pattern})),
        prop::sample::select(vec!["email", "date", "uri", "no-such-format"])
            .prop_map(|format| json!({"type": "string", "format": format})),
        Just(json!({"uniqueItems": true})),
        names().prop_map(|required| json!({"required": required})),
        (name(), names()).prop_map(|(name, needed)| json!({"dependentRequired": {name: needed}})),
        (name(), names()).prop_map(|(name, needed)| json!({"dependencies": {name: needed}})),
        Just(json!({"nullable": true, "x-vendor": 1, "title": "t"})),
        Just(json!({"$ref": "#/$defs/d"})),
        // The root again, one level down: a reference that descends.
        Just(json!({"properties": {"a": {"$ref": "#"}}})),
        Just(json!({"items": {"$ref": "#"}})),
    ]
}

/// Merges the keywords of two schema objects (the second's win).
fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (a, _) => a,
    }
}

/// A schema: leaves, the applicators over them, and objects that mix
/// several keywords.
fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 40, 3, |inner| {
        let pair = (inner.clone(), inner.clone());
        prop_oneof![
            pair.clone()
                .prop_map(|(a, b)| json!({"properties": {"a": a, "b": b}})),
            (inner.clone(), pattern())
                .prop_map(|(a, pattern)| json!({"patternProperties": {pattern: a}})),
            inner.clone().prop_map(|a| json!({"additionalProperties": a})),
            (inner.clone(), pattern(), prop::bool::ANY).prop_map(|(a, pattern, closed)| {
                let mut schema = json!({
                    "properties": {"a": a},
                    "patternProperties": {pattern: {"type": "integer"}},
                });
                schema["additionalProperties"] = json!(!closed);
                schema
            }),
            inner.clone().prop_map(|a| json!({"propertyNames": a})),
            (name(), inner.clone()).prop_map(|(name, a)| json!({"dependentSchemas": {name: a}})),
            (name(), inner.clone()).prop_map(|(name, a)| json!({"dependencies": {name: a}})),
            inner.clone().prop_map(|a| json!({"items": a})),
            (pair.clone(), prop::bool::ANY).prop_map(|((a, b), closed)| {
                let mut schema = json!({"prefixItems": [a, b]});
                if closed {
                    schema["items"] = json!(false);
                }
                schema
            }),
            (inner.clone(), prop::option::of(count()), prop::option::of(count())).prop_map(
                |(a, min, max)| {
                    let mut schema = json!({"contains": a});
                    if let Some(min) = min {
                        schema["minContains"] = min;
                    }
                    if let Some(max) = max {
                        schema["maxContains"] = max;
                    }
                    schema
                }
            ),
            pair.clone().prop_map(|(a, b)| json!({"allOf": [a, b]})),
            pair.clone().prop_map(|(a, b)| json!({"anyOf": [a, b]})),
            pair.clone().prop_map(|(a, b)| json!({"oneOf": [a, b]})),
            inner.clone().prop_map(|a| json!({"not": a})),
            (inner.clone(), pair.clone())
                .prop_map(|(a, (b, c))| json!({"if": a, "then": b, "else": c})),
            (pair.clone(), prop::bool::ANY).prop_map(|((a, b), closed)| {
                json!({
                    "properties": {"a": true},
                    "anyOf": [a, b],
                    "unevaluatedProperties": !closed
                })
            }),
            (pair.clone(), prop::bool::ANY).prop_map(|((a, b), closed)| {
                json!({
                    "allOf": [{"properties": {"b": a}}, b],
                    "unevaluatedProperties": if closed { json!(false) } else { json!({"type": "integer"}) }
                })
            }),
            pair.clone().prop_map(|(a, b)| {
                json!({"prefixItems": [a], "contains": b, "unevaluatedItems": false})
            }),
            pair.clone().prop_map(|(a, b)| merge(a, b)),
            (pair, inner).prop_map(|((a, b), c)| merge(merge(a, b), c)),
        ]
    })
}

/// A root schema: a schema, its definition for `#/$defs/d`, and now and
/// then a declared dialect.
fn root() -> impl Strategy<Value = Value> {
    let dialect = prop::sample::select(vec![
        None,
        None,
        None,
        Some("https://json-schema.org/draft/2020-12/schema"),
        Some("http://json-schema.org/draft-07/schema#"),
        Some("https://json-schema.org/draft/2019-09/schema"),
    ]);
    (schema(), leaf(), dialect).prop_map(|(schema, definition, dialect)| {
        let mut root = match schema {
            Value::Object(map) => map,
            other => {
                let mut map = Map::new();
                map.insert("allOf".to_owned(), json!([other]));
                map
            }
        };
        // A definition that refers to itself without descending is a
        // loop, not a schema.
        let definition = match definition {
            Value::Object(map) if map.contains_key("$ref") => json!({"type": "object"}),
            other => other,
        };
        root.insert("$defs".to_owned(), json!({ "d": definition }));
        if let Some(dialect) = dialect {
            root.insert("$schema".to_owned(), json!(dialect));
        }
        Value::Object(root)
    })
}

/// The values a schema names (`enum`, `const`), as instances.
fn named_values(schema: &Value, out: &mut Vec<Value>) {
    match schema {
        Value::Object(map) => {
            for (keyword, argument) in map {
                match keyword.as_str() {
                    "const" => out.push(argument.clone()),
                    "enum" => out.extend(argument.as_array().into_iter().flatten().cloned()),
                    _ => named_values(argument, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| named_values(item, out)),
        _ => {}
    }
}

/// How the judge fared over a run.
#[derive(Debug, Default)]
struct Tally {
    schemas: usize,
    values: usize,
    valid: usize,
    invalid: usize,
    unjudged: usize,
}

/// Holds one schema's verdicts on `values` to `jsonschema`'s.
fn hold(schema: &Value, values: &[Value], tally: &mut Tally) -> Result<(), TestCaseError> {
    let Ok(oracle) = jsonschema::options()
        .should_validate_formats(false)
        .build(schema)
    else {
        // Not a schema `jsonschema` compiles (a reference loop, say).
        return Ok(());
    };
    let strict = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .ok();
    tally.schemas += 1;
    let standard = Schema::standard(schema);
    let portable = Schema::new(schema);
    for value in values {
        tally.values += 1;
        let accepted = oracle.is_valid(value);
        let violations = validate(schema, value);
        prop_assert!(
            !accepted || violations.is_empty(),
            "the lean validator rejects what jsonschema accepts: {schema} on {value}: {violations:?}"
        );
        match standard.judge(value) {
            Verdict::Valid => {
                tally.valid += 1;
                prop_assert!(
                    accepted,
                    "valid, and jsonschema rejects: {schema} on {value}"
                );
            }
            Verdict::Invalid(broken) => {
                tally.invalid += 1;
                prop_assert!(
                    !accepted,
                    "invalid ({broken}), and jsonschema accepts: {schema} on {value}"
                );
            }
            Verdict::Unjudged(_) => tally.unjudged += 1,
        }
        match portable.judge(value) {
            Verdict::Valid => prop_assert!(
                accepted && strict.as_ref().is_none_or(|strict| strict.is_valid(value)),
                "valid under the portable reading, and jsonschema rejects: {schema} on {value}"
            ),
            Verdict::Invalid(broken) => prop_assert!(
                !accepted,
                "invalid ({broken}) under the portable reading, and jsonschema accepts: {schema} on {value}"
            ),
            Verdict::Unjudged(_) => {}
        }
    }
    Ok(())
}

/// The values a run holds a schema to: random ones, the ones the schema
/// names, and (with `cli`) the cases `fuzz` draws from it.
fn values_for(schema: &Value, random: Vec<Value>) -> Vec<Value> {
    let mut values = random;
    named_values(schema, &mut values);
    #[cfg(feature = "cli")]
    values.extend(
        super::generate::cases(schema, 7, "differential", 12)
            .cases
            .into_iter()
            .filter_map(|case| case.arguments),
    );
    values
}

#[test]
fn the_judge_and_the_lean_validator_agree_with_jsonschema() {
    let config = Config {
        cases: 1500,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let tally = std::cell::RefCell::new(Tally::default());
    let strategy = (root(), prop::collection::vec(instance(), 8));
    let result = runner.run(&strategy, |(schema, random)| {
        let values = values_for(&schema, random);
        hold(&schema, &values, &mut tally.borrow_mut())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let tally = tally.into_inner();
    // The judge decides: most values get a verdict, both ways.
    let decided = tally.valid + tally.invalid;
    assert!(tally.schemas > 1000, "{tally:?}");
    assert!(decided * 10 > tally.values * 8, "{tally:?}");
    assert!(tally.valid * 5 > tally.values, "{tally:?}");
    assert!(tally.invalid * 8 > tally.values, "{tally:?}");
}

/// One case of the corpus: a schema, a value, and what the judge says of
/// it (with `cli`; the lean build leaves patterns undecided).
struct Case {
    schema: Value,
    value: Value,
    expected: Expected,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expected {
    Valid,
    Invalid,
    /// Valid, and unjudged in the lean build (a pattern decides it).
    ValidByPattern,
    /// Invalid, and unjudged in the lean build.
    InvalidByPattern,
    Unjudged,
}

fn case(schema: Value, value: Value, expected: Expected) -> Case {
    Case {
        schema,
        value,
        expected,
    }
}

/// The hard cases: where a lenient validator (one that ignores what it
/// does not know, or knows loosely) and a strict one part.
fn corpus() -> Vec<Case> {
    use Expected::{Invalid, InvalidByPattern, Unjudged, Valid, ValidByPattern};
    let closed_tuple = json!({
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "number"}],
        "items": false
    });
    let pattern_closed = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": false
    });
    let unevaluated = json!({
        "type": "object",
        "properties": {"kind": {"enum": ["a", "b"]}},
        "if": {"properties": {"kind": {"const": "a"}}},
        "then": {"properties": {"a": {"type": "integer"}}},
        "else": {"properties": {"b": {"type": "string"}}},
        "unevaluatedProperties": false
    });
    let zod_union = json!({
        "anyOf": [
            {"type": "object", "properties": {"t": {"const": "x"}, "x": {"type": "number"}}, "required": ["t", "x"], "additionalProperties": false},
            {"type": "object", "properties": {"t": {"const": "y"}, "y": {"type": "string"}}, "required": ["t", "y"], "additionalProperties": false}
        ]
    });
    let recursive = json!({
        "$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["value"], "additionalProperties": false}},
        "$ref": "#/$defs/node"
    });
    let siblings = json!({"$defs": {"n": {"type": "number"}}, "$ref": "#/$defs/n", "maximum": 10});
    let draft7_siblings = json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"n": {"type": "number"}}, "$ref": "#/definitions/n", "maximum": 10});
    let anchored =
        json!({"$defs": {"i": {"$anchor": "int", "type": "integer"}}, "items": {"$ref": "#int"}});
    let dynamic = json!({"$dynamicAnchor": "node", "type": "object", "properties": {"next": {"$dynamicRef": "#node"}, "v": {"type": "integer"}}});
    vec![
        // The three measured from outside.
        case(closed_tuple.clone(), json!(["a", 1]), Valid),
        case(closed_tuple.clone(), json!(["a"]), Valid),
        case(closed_tuple.clone(), json!(["a", 1, 2]), Invalid),
        case(closed_tuple, json!([1, "a"]), Invalid),
        case(
            pattern_closed.clone(),
            json!({"name": "n", "x-a": 1}),
            ValidByPattern,
        ),
        case(
            pattern_closed.clone(),
            json!({"name": "n", "y": 1}),
            InvalidByPattern,
        ),
        case(
            pattern_closed.clone(),
            json!({"x-a": 1.5}),
            InvalidByPattern,
        ),
        case(pattern_closed, json!({"name": 1}), Invalid),
        case(json!({"enum": [1]}), json!(1.0), Valid),
        case(json!({"enum": [1.0, "a"]}), json!(1), Valid),
        case(json!({"enum": [1]}), json!(true), Invalid),
        // Numbers by value.
        case(
            json!({"const": {"a": [1, 2.0]}}),
            json!({"a": [1.0, 2]}),
            Valid,
        ),
        case(json!({"type": "integer"}), json!(2.0), Valid),
        case(json!({"type": "integer"}), json!(2.5), Invalid),
        case(
            json!({"maximum": 9007199254740992.0}),
            json!(9007199254740993u64),
            Invalid,
        ),
        case(
            json!({"minimum": 9007199254740993u64}),
            json!(9007199254740992.0),
            Invalid,
        ),
        case(json!({"uniqueItems": true}), json!([1, 1.0]), Invalid),
        case(
            json!({"uniqueItems": true}),
            json!([{"a": 1}, {"a": 2}]),
            Valid,
        ),
        case(json!({"multipleOf": 0.5}), json!(2.5), Valid),
        case(json!({"multipleOf": 0.1}), json!(0.35), Invalid),
        case(json!({"multipleOf": 0.1}), json!(0.3), Unjudged),
        case(json!({"multipleOf": 3}), json!(9.0), Valid),
        // Strings in code points; formats annotate.
        case(json!({"maxLength": 1}), json!("\u{1F600}"), Valid),
        case(json!({"minLength": 2}), json!("\u{1F600}"), Invalid),
        case(json!({"format": "email"}), json!("not an address"), Valid),
        case(json!({"format": "date-time"}), json!(5), Valid),
        // References, with siblings, anchors and dynamic ones.
        case(siblings.clone(), json!(5), Valid),
        case(siblings.clone(), json!(11), Invalid),
        case(siblings, json!("5"), Invalid),
        case(draft7_siblings, json!(11), Valid),
        case(anchored.clone(), json!([1, 2]), Valid),
        case(anchored, json!([1, 2.5]), Invalid),
        case(dynamic.clone(), json!({"v": 1, "next": {"v": 2}}), Valid),
        case(dynamic, json!({"v": 1, "next": {"v": "2"}}), Invalid),
        case(
            recursive.clone(),
            json!({"value": 1, "children": [{"value": 2, "children": []}]}),
            Valid,
        ),
        case(
            recursive,
            json!({"value": 1, "children": [{"value": 2, "extra": 0}]}),
            Invalid,
        ),
        // Unions generators emit.
        case(zod_union.clone(), json!({"t": "x", "x": 1}), Valid),
        case(zod_union.clone(), json!({"t": "y", "y": "s"}), Valid),
        case(zod_union, json!({"t": "x", "y": "s"}), Invalid),
        case(
            json!({"oneOf": [{"type": "integer"}, {"type": "number"}]}),
            json!(1),
            Invalid,
        ),
        case(
            json!({"oneOf": [{"type": "integer"}, {"type": "string"}]}),
            json!(1),
            Valid,
        ),
        // Objects.
        case(
            json!({"propertyNames": {"maxLength": 2}}),
            json!({"abc": 1}),
            Invalid,
        ),
        case(
            json!({"dependentRequired": {"a": ["b"]}}),
            json!({"a": 1}),
            Invalid,
        ),
        case(
            json!({"dependentSchemas": {"a": {"required": ["b"]}}}),
            json!({"a": 1, "b": 2}),
            Valid,
        ),
        case(
            json!({"dependencies": {"a": ["b"]}}),
            json!({"a": 1, "b": 2}),
            Valid,
        ),
        case(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}),
            json!({"a": 1}),
            Invalid,
        ),
        case(json!({"minProperties": 1}), json!({}), Invalid),
        // Arrays.
        case(
            json!({"contains": {"type": "string"}, "minContains": 2}),
            json!(["a", 1]),
            Invalid,
        ),
        case(
            json!({"contains": {"type": "string"}, "maxContains": 1}),
            json!(["a", "b"]),
            Invalid,
        ),
        case(
            json!({"contains": {"type": "string"}, "minContains": 0}),
            json!([1]),
            Valid,
        ),
        case(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}),
            json!(["a", 1]),
            Invalid,
        ),
        // Unevaluated keywords, read through the applicators.
        case(unevaluated.clone(), json!({"kind": "a", "a": 1}), Valid),
        case(unevaluated.clone(), json!({"kind": "b", "b": "s"}), Valid),
        case(unevaluated.clone(), json!({"kind": "a", "b": "s"}), Invalid),
        case(unevaluated, json!({"kind": "b", "c": 1}), Invalid),
        case(
            json!({"prefixItems": [true], "unevaluatedItems": false}),
            json!([1, 2]),
            Invalid,
        ),
        case(
            json!({"allOf": [{"prefixItems": [true, true]}], "unevaluatedItems": false}),
            json!([1, 2]),
            Valid,
        ),
        // Conditions and negation.
        case(
            json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 0}}),
            json!("a"),
            Invalid,
        ),
        case(
            json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 0}}),
            json!(-1),
            Invalid,
        ),
        case(
            json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 0}}),
            json!(1),
            Valid,
        ),
        case(json!({"not": {"type": "null"}}), json!(null), Invalid),
        // Booleans as schemas.
        case(
            json!({"properties": {"a": false}}),
            json!({"a": 1}),
            Invalid,
        ),
        case(json!({"properties": {"a": false}}), json!({"b": 1}), Valid),
        case(json!({"items": true}), json!([1, "a"]), Valid),
        // Patterns, where the engines agree and where they do not.
        case(json!({"pattern": "^[a-z]+$"}), json!("abc"), ValidByPattern),
        case(
            json!({"pattern": "^[a-z]+$"}),
            json!("ab1"),
            InvalidByPattern,
        ),
        case(json!({"pattern": "^\\d+$"}), json!("\u{663}"), Unjudged),
        case(json!({"pattern": "^(?=a)"}), json!("a"), Unjudged),
        // Unknown keywords annotate.
        case(
            json!({"nullable": true, "type": "string"}),
            json!("s"),
            Valid,
        ),
        case(
            json!({"type": "string", "nullable": true}),
            json!(null),
            Invalid,
        ),
        // A reference out of the schema.
        case(
            json!({"$ref": "https://example.com/s.json"}),
            json!(1),
            Unjudged,
        ),
        // Malformed, or merely unusual.
        case(json!({"enum": []}), json!(1), Invalid),
        case(json!({"anyOf": []}), json!(1), Unjudged),
        case(json!({"minLength": "2"}), json!("a"), Unjudged),
        // A dialect of its own, and what draft-07 leaves to the validator.
        case(
            json!({"$schema": "https://example.com/my-dialect", "minimum": 2}),
            json!(1),
            Unjudged,
        ),
        case(
            json!({"$schema": "https://example.com/my-dialect", "minimum": 2}),
            json!(3),
            Valid,
        ),
        case(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "contentMediaType": "application/json"}),
            json!("{"),
            Unjudged,
        ),
        case(
            json!({"contentMediaType": "application/json"}),
            json!("{"),
            Valid,
        ),
    ]
}

#[test]
fn the_hard_cases_are_decided_as_jsonschema_decides_them() {
    for Case {
        schema,
        value,
        expected,
    } in corpus()
    {
        let judged = Schema::standard(&schema).judge(&value);
        let lean = !cfg!(feature = "cli");
        let expected = match expected {
            Expected::ValidByPattern if lean => Expected::Unjudged,
            Expected::InvalidByPattern if lean => Expected::Unjudged,
            Expected::ValidByPattern => Expected::Valid,
            Expected::InvalidByPattern => Expected::Invalid,
            other => other,
        };
        let found = match &judged {
            Verdict::Valid => Expected::Valid,
            Verdict::Invalid(_) => Expected::Invalid,
            Verdict::Unjudged(_) => Expected::Unjudged,
        };
        assert_eq!(found, expected, "{schema} on {value}: {judged:?}");
        // The corpus itself is held to `jsonschema` where it is decided,
        // and the lean validator never refuses what it accepts.
        if let Ok(oracle) = jsonschema::options()
            .should_validate_formats(false)
            .build(&schema)
        {
            let accepted = oracle.is_valid(&value);
            match found {
                Expected::Valid => assert!(accepted, "{schema} on {value}"),
                Expected::Invalid => assert!(!accepted, "{schema} on {value}"),
                _ => {}
            }
            if accepted {
                assert_eq!(validate(&schema, &value), [], "{schema} on {value}");
            }
        }
    }
}
