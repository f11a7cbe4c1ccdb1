//! The fields of an elicitation form (2025-06-18 on): each property of a
//! `requestedSchema` is a primitive schema, a string, a number, a boolean or
//! a choice from a list; from 2025-11-25 each may carry a `default`, and a
//! choice may be titled or let the user pick several.

use serde_json::Value;

use super::walk::{Branch, Walk, boolean, exactly, integer, number, one_of, string, strings};
use crate::revision::Revision;

/// One property schema of a form.
pub(crate) fn field(revision: Revision, walk: &mut Walk, value: &Value) {
    let text = |walk: &mut Walk, value: &Value| text_field(revision, walk, value);
    let numeric = |walk: &mut Walk, value: &Value| numeric_field(revision, walk, value);
    let flag = |walk: &mut Walk, value: &Value| {
        if let Some(field) = described(walk, value) {
            walk.required(field, "type", exactly("boolean"));
            walk.optional(field, "default", boolean);
        }
    };
    let choice = |walk: &mut Walk, value: &Value| choice_field(revision, walk, value);
    let titled_choice = |walk: &mut Walk, value: &Value| titled_choice_field(walk, value);
    let several = |walk: &mut Walk, value: &Value| several_field(false, walk, value);
    let titled_several = |walk: &mut Walk, value: &Value| several_field(true, walk, value);
    let kind = value.get("type").and_then(Value::as_str);
    let closest = match kind {
        Some("number" | "integer") => 1,
        Some("boolean") => 2,
        Some("array") if value.pointer("/items/anyOf").is_some() => 6,
        Some("array") => 5,
        _ if value.get("oneOf").is_some() => 4,
        _ if value.get("enum").is_some() => 3,
        _ => 0,
    };
    let mut branches: Vec<Branch<'_>> = vec![&text, &numeric, &flag, &choice];
    if revision >= Revision::V2025_11_25 {
        branches.extend([&titled_choice as Branch<'_>, &several, &titled_several]);
    }
    let closest = if closest < branches.len() { closest } else { 0 };
    walk.any_of(value, &branches, closest);
}

/// The fields every primitive schema may carry: `title`, `description`.
fn described<'v>(walk: &mut Walk, value: &'v Value) -> Option<&'v serde_json::Map<String, Value>> {
    let field = walk.object(value)?;
    walk.optional(field, "title", string);
    walk.optional(field, "description", string);
    Some(field)
}

fn text_field(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(field) = described(walk, value) else {
        return;
    };
    walk.required(field, "type", exactly("string"));
    walk.optional(field, "minLength", integer);
    walk.optional(field, "maxLength", integer);
    walk.optional(
        field,
        "format",
        one_of(&["email", "uri", "date", "date-time"]),
    );
    if revision >= Revision::V2025_11_25 {
        walk.optional(field, "default", string);
    }
}

fn numeric_field(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(field) = described(walk, value) else {
        return;
    };
    walk.required(field, "type", one_of(&["number", "integer"]));
    walk.optional(field, "minimum", number);
    walk.optional(field, "maximum", number);
    if revision >= Revision::V2025_11_25 {
        walk.optional(field, "default", number);
    }
}

/// A choice of one string from `enum`, with `enumNames` to show.
fn choice_field(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(field) = described(walk, value) else {
        return;
    };
    walk.required(field, "type", exactly("string"));
    walk.required(field, "enum", strings);
    if revision >= Revision::V2025_11_25 {
        // The untitled choice of 2025-11-25 names no `enumNames`, so any
        // value passes there; only the default is held.
        walk.optional(field, "default", string);
    } else {
        walk.optional(field, "enumNames", strings);
    }
}

/// A choice of one string from titled options (2025-11-25 on).
fn titled_choice_field(walk: &mut Walk, value: &Value) {
    let Some(field) = described(walk, value) else {
        return;
    };
    walk.required(field, "type", exactly("string"));
    walk.required(field, "oneOf", titled_options);
    walk.optional(field, "default", string);
}

/// A choice of several strings, from `items.enum` or from titled options
/// in `items.anyOf` (2025-11-25 on).
fn several_field(titled: bool, walk: &mut Walk, value: &Value) {
    let Some(field) = described(walk, value) else {
        return;
    };
    walk.required(field, "type", exactly("array"));
    walk.required(field, "items", |walk, value| {
        let Some(items) = walk.object(value) else {
            return;
        };
        if titled {
            walk.required(items, "anyOf", titled_options);
        } else {
            walk.required(items, "type", exactly("string"));
            walk.required(items, "enum", strings);
        }
    });
    walk.optional(field, "minItems", integer);
    walk.optional(field, "maxItems", integer);
    walk.optional(field, "default", strings);
}

fn titled_options(walk: &mut Walk, value: &Value) {
    walk.array(value, |walk, value| {
        if let Some(option) = walk.object(value) {
            walk.required(option, "const", string);
            walk.required(option, "title", string);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(revision: Revision, value: &str) -> Vec<String> {
        let value: Value = serde_json::from_str(value).unwrap();
        let mut walk = Walk::default();
        field(revision, &mut walk, &value);
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn primitive_fields_are_one_of_four_kinds() {
        for valid in [
            r#"{"type": "string", "format": "email"}"#,
            r#"{"type": "integer", "minimum": 0}"#,
            r#"{"type": "boolean", "default": true}"#,
            r#"{"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}"#,
        ] {
            assert!(found(Revision::V2025_06_18, valid).is_empty(), "{valid}");
        }
        assert_eq!(
            found(Revision::V2025_06_18, r#"{"type": "object"}"#),
            [r#"/type: expected "string", found "object""#]
        );
        assert_eq!(
            found(
                Revision::V2025_06_18,
                r#"{"type": "number", "maximum": "9"}"#
            ),
            ["/maximum: expected a number, found a string"]
        );
    }

    #[test]
    fn several_choices_arrive_in_2025_11_25() {
        let several = r#"{"type": "array", "items": {"type": "string", "enum": ["a"]}}"#;
        assert_eq!(found(Revision::V2025_06_18, several).len(), 1);
        assert!(found(Revision::V2025_11_25, several).is_empty());
        // A string field with options is a plain string field to the
        // `anyOf` if the options are broken; a list of several is not.
        assert!(
            found(
                Revision::V2025_11_25,
                r#"{"type": "string", "oneOf": [{}]}"#
            )
            .is_empty()
        );
        let titled = r#"{"type": "array", "items": {"anyOf": [{"const": "a"}]}}"#;
        assert_eq!(
            found(Revision::V2025_11_25, titled),
            ["/items/anyOf/0: missing required property `title`"]
        );
    }
}
