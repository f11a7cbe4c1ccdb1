//! What a tool's `inputSchema` uses that `fuzz` does not generate for:
//! the judge decides it, but no case sets out to meet or break it.

use std::collections::BTreeSet;

use serde_json::Value;

use super::keywords::whole;
use super::run::ANNOTATIONS;
use super::{MAX_DEPTH, NUMBER_FORMATS, Schema, escape_token, format_values, is_integer, quoted};
use crate::schema::bounds::{LONG_ARRAY, LONG_TEXT};

/// The most features [`not_generated_for`] lists; the rest are counted.
const MAX_FEATURES: usize = 32;

/// Keywords the judge decides but the generator does not aim at: the
/// values drawn may break them (and are then judged invalid), but no case
/// sets out to meet or break them. A schema that uses them is reported.
const JUDGED_ONLY: &[&str] = &[
    "not",
    "if",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$recursiveRef",
];

/// What a schema uses that fuzz does not generate for, each with where it
/// is (`` `patternProperties` at /properties/meta ``), in document order and
/// once each.
pub(crate) fn not_generated_for(schema: &Schema<'_>) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    walk_features(schema, schema.root(), "", &mut found, &mut seen, 0);
    if found.len() > MAX_FEATURES {
        found.truncate(MAX_FEATURES);
        found.push(format!("more, past the first {MAX_FEATURES} listed"));
    }
    found
}

fn walk_features(
    schema: &Schema<'_>,
    node: &Value,
    at: &str,
    found: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
    depth: usize,
) {
    fn note(found: &mut Vec<String>, seen: &mut BTreeSet<String>, what: String) {
        // One past the most listed says that there are more.
        if found.len() <= MAX_FEATURES && seen.insert(what.clone()) {
            found.push(what);
        }
    }
    if depth > MAX_DEPTH {
        note(
            found,
            seen,
            format!("nesting deeper than {MAX_DEPTH} levels at {}", place(at)),
        );
        return;
    }
    let Value::Object(map) = node else {
        return;
    };
    for (keyword, argument) in map {
        let here = format!("{at}/{}", escape_token(keyword));
        let what = match keyword.as_str() {
            "$ref" => match argument.as_str() {
                Some(reference) if schema.resolve(reference).is_some() => None,
                Some(reference) => Some(format!("`$ref` {reference:?} at {}", place(at))),
                None => Some(format!("a `$ref` that is no string at {}", place(at))),
            },
            "format" => argument
                .as_str()
                .filter(|format| {
                    format_values(format).is_none() && !NUMBER_FORMATS.contains(format)
                })
                .map(|format| format!("format {format:?} at {}", place(at))),
            "pattern" => argument
                .as_str()
                .filter(|pattern| {
                    schema.regex(pattern).is_none() || schema.example(pattern).is_none()
                })
                .map(|pattern| format!("pattern {} at {}", quoted(pattern), place(at))),
            "items" if argument.is_array() => Some(format!("`items` as a list at {}", place(at))),
            "minLength" if whole(argument).is_some_and(|n| n > LONG_TEXT as u64) => Some(format!(
                "a `minLength` past the {LONG_TEXT} characters fuzz draws at {}",
                place(at)
            )),
            "minItems" if whole(argument).is_some_and(|n| n > LONG_ARRAY as u64) => Some(format!(
                "a `minItems` past the {LONG_ARRAY} items fuzz draws at {}",
                place(at)
            )),
            "multipleOf" if argument.as_number().is_some_and(|n| !is_integer(n)) => {
                Some(format!("a fractional `multipleOf` at {}", place(at)))
            }
            known if JUDGED_ONLY.contains(&known) => Some(format!("`{known}` at {}", place(at))),
            known
                if ANNOTATIONS.contains(&known)
                    || KNOWN.contains(&known)
                    || known.starts_with("x-") =>
            {
                None
            }
            unknown => Some(format!("the unknown keyword `{unknown}` at {}", place(at))),
        };
        if let Some(what) = what {
            note(found, seen, what);
        }
        match keyword.as_str() {
            "enum" | "const" | "default" | "examples" | "required" => {}
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
            | "dependencies" => {
                if let Value::Object(children) = argument {
                    for (name, child) in children {
                        let child_at = format!("{here}/{}", escape_token(name));
                        walk_features(schema, child, &child_at, found, seen, depth + 1);
                    }
                }
            }
            _ => match argument {
                Value::Object(_) => walk_features(schema, argument, &here, found, seen, depth + 1),
                Value::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        let child_at = format!("{here}/{index}");
                        walk_features(schema, item, &child_at, found, seen, depth + 1);
                    }
                }
                _ => {}
            },
        }
    }
}

/// The keywords the generator aims at.
const KNOWN: &[&str] = &[
    "$ref",
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
];

/// A schema location in words: the schema's root, or a pointer into it.
fn place(at: &str) -> String {
    if at.is_empty() {
        "the schema's root".to_owned()
    } else {
        at.to_owned()
    }
}
