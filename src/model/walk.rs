//! The walk through one message: where it is (a JSON Pointer), what it has
//! found so far, and the leaf checks every type is built from.
//!
//! The model's types are functions `fn(&mut Walk, &Value)`: each checks one
//! value at the walk's current place and records what is wrong there. A
//! property that a type does not name is never looked at, because the
//! official schemas allow extra properties almost everywhere.

use serde_json::{Map, Value};

use super::SchemaViolation;
use crate::jsonrpc::json_kind;

/// One type of the model, as a branch of an `anyOf`.
pub(crate) type Branch<'a> = &'a dyn Fn(&mut Walk, &Value);

/// One walk: the pointer to the value being checked and the violations
/// found so far, in document order.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pointer: String,
    found: Vec<SchemaViolation>,
}

impl Walk {
    /// The violations found, in the order they were found.
    pub(crate) fn into_violations(self) -> Vec<SchemaViolation> {
        self.found
    }

    /// Whether nothing is wrong so far.
    pub(crate) fn is_clean(&self) -> bool {
        self.found.is_empty()
    }

    /// Records a violation at the current place.
    pub(crate) fn fail(&mut self, message: impl Into<String>) {
        self.found.push(SchemaViolation {
            pointer: self.pointer.clone(),
            message: message.into(),
        });
    }

    /// Runs `check` one step down, at the member `key`.
    pub(crate) fn at<R>(&mut self, key: &str, check: impl FnOnce(&mut Walk) -> R) -> R {
        let len = self.pointer.len();
        self.pointer.push('/');
        for ch in key.chars() {
            match ch {
                '~' => self.pointer.push_str("~0"),
                '/' => self.pointer.push_str("~1"),
                other => self.pointer.push(other),
            }
        }
        let res = check(self);
        self.pointer.truncate(len);
        res
    }

    /// Runs `check` one step down, at item `index` of an array.
    fn index(&mut self, index: usize, check: impl FnOnce(&mut Walk)) {
        let len = self.pointer.len();
        self.pointer.push('/');
        self.pointer.push_str(&index.to_string());
        check(self);
        self.pointer.truncate(len);
    }

    /// The value as an object, or a violation.
    pub(crate) fn object<'v>(&mut self, value: &'v Value) -> Option<&'v Map<String, Value>> {
        match value {
            Value::Object(object) => Some(object),
            other => {
                self.fail(format!("expected an object, found {}", json_kind(other)));
                None
            }
        }
    }

    /// Checks the member `key` of `object`, which must be there.
    pub(crate) fn required(
        &mut self,
        object: &Map<String, Value>,
        key: &str,
        check: impl FnOnce(&mut Walk, &Value),
    ) {
        match object.get(key) {
            Some(value) => self.at(key, |walk| check(walk, value)),
            None => self.fail(format!("missing required property `{key}`")),
        }
    }

    /// Checks the member `key` of `object` when it is there.
    pub(crate) fn optional(
        &mut self,
        object: &Map<String, Value>,
        key: &str,
        check: impl FnOnce(&mut Walk, &Value),
    ) {
        if let Some(value) = object.get(key) {
            self.at(key, |walk| check(walk, value));
        }
    }

    /// Checks every item of an array with `item`.
    pub(crate) fn array(&mut self, value: &Value, mut item: impl FnMut(&mut Walk, &Value)) {
        match value {
            Value::Array(items) => {
                for (index, value) in items.iter().enumerate() {
                    self.index(index, |walk| item(walk, value));
                }
            }
            other => self.fail(format!("expected an array, found {}", json_kind(other))),
        }
    }

    /// Checks every member of an object with `member` (a map type).
    pub(crate) fn map(&mut self, value: &Value, mut member: impl FnMut(&mut Walk, &Value)) {
        if let Some(object) = self.object(value) {
            for (key, value) in object {
                self.at(key, |walk| member(walk, value));
            }
        }
    }

    /// A value that must match at least one of `branches` (`anyOf`): nothing
    /// is recorded when one does; otherwise the violations of branch
    /// `closest`, the one the value looks most like, are.
    pub(crate) fn any_of(&mut self, value: &Value, branches: &[Branch<'_>], closest: usize) {
        let mut closest_trial = None;
        for (index, branch) in branches.iter().enumerate() {
            let mut trial = Walk {
                pointer: self.pointer.clone(),
                found: Vec::new(),
            };
            branch(&mut trial, value);
            if trial.is_clean() {
                return;
            }
            if index == closest {
                closest_trial = Some(trial);
            }
        }
        if let Some(trial) = closest_trial {
            self.found.extend(trial.found);
        }
    }
}

/// Any JSON value.
pub(crate) fn any(_: &mut Walk, _: &Value) {}

/// A JSON string.
pub(crate) fn string(walk: &mut Walk, value: &Value) {
    if !value.is_string() {
        walk.fail(format!("expected a string, found {}", json_kind(value)));
    }
}

/// A JSON boolean.
pub(crate) fn boolean(walk: &mut Walk, value: &Value) {
    if !value.is_boolean() {
        walk.fail(format!("expected a boolean, found {}", json_kind(value)));
    }
}

/// A JSON number.
pub(crate) fn number(walk: &mut Walk, value: &Value) {
    if !value.is_number() {
        walk.fail(format!("expected a number, found {}", json_kind(value)));
    }
}

/// Whether a value is an integer as JSON Schema counts them: a number
/// without a fraction (`3.0` is one).
pub(crate) fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// An integer.
pub(crate) fn integer(walk: &mut Walk, value: &Value) {
    if !is_integer(value) {
        walk.fail(format!("expected an integer, found {}", json_kind(value)));
    }
}

/// Any JSON object.
pub(crate) fn object(walk: &mut Walk, value: &Value) {
    walk.object(value);
}

/// A string or an integer: a request id or a progress token.
pub(crate) fn id(walk: &mut Walk, value: &Value) {
    if !value.is_string() && !is_integer(value) {
        walk.fail(format!(
            "expected a string or an integer, found {}",
            json_kind(value)
        ));
    }
}

/// An array of strings.
pub(crate) fn strings(walk: &mut Walk, value: &Value) {
    walk.array(value, string);
}

/// A number from 0 to 1 (a priority).
pub(crate) fn unit_interval(walk: &mut Walk, value: &Value) {
    match value.as_f64() {
        Some(n) if (0.0..=1.0).contains(&n) => {}
        Some(n) => walk.fail(format!("expected a number from 0 to 1, found {n}")),
        None => number(walk, value),
    }
}

/// A string from a fixed set.
pub(crate) fn one_of<'a>(allowed: &'a [&'a str]) -> impl Fn(&mut Walk, &Value) + 'a {
    move |walk, value| match value.as_str() {
        Some(text) if allowed.contains(&text) => {}
        Some(text) => walk.fail(format!(
            "expected one of {}, found \"{text}\"",
            quoted(allowed)
        )),
        None => string(walk, value),
    }
}

/// A string that must be exactly `expected`.
pub(crate) fn exactly<'a>(expected: &'a str) -> impl Fn(&mut Walk, &Value) + 'a {
    move |walk, value| match value.as_str() {
        Some(text) if text == expected => {}
        Some(text) => walk.fail(format!("expected \"{expected}\", found \"{text}\"")),
        None => string(walk, value),
    }
}

/// A list of names for a message: `"a", "b"`.
pub(crate) fn quoted(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    quoted.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(check: impl FnOnce(&mut Walk, &Value), value: Value) -> Vec<String> {
        let mut walk = Walk::default();
        check(&mut walk, &value);
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn pointers_escape_their_tokens() {
        let value = json!({"a/b~c": [1, "x"]});
        let check = |walk: &mut Walk, value: &Value| {
            let object = walk.object(value).unwrap();
            walk.required(object, "a/b~c", |walk, value| walk.array(value, string));
            walk.required(object, "gone", any);
        };
        assert_eq!(
            found(check, value),
            [
                "/a~1b~0c/0: expected a string, found a number",
                "missing required property `gone`"
            ]
        );
    }

    #[test]
    fn integers_are_numbers_without_a_fraction() {
        assert!(found(integer, json!(3)).is_empty());
        assert!(found(integer, json!(3.0)).is_empty());
        assert_eq!(
            found(integer, json!(3.5)),
            ["expected an integer, found a number"]
        );
        assert_eq!(
            found(id, json!(null)),
            ["expected a string or an integer, found null"]
        );
    }

    #[test]
    fn any_of_reports_the_closest_branch_only_when_none_matches() {
        let text = |walk: &mut Walk, value: &Value| {
            if let Some(object) = walk.object(value) {
                walk.required(object, "text", string);
            }
        };
        let blob = |walk: &mut Walk, value: &Value| {
            if let Some(object) = walk.object(value) {
                walk.required(object, "blob", string);
            }
        };
        let either = |walk: &mut Walk, value: &Value| walk.any_of(value, &[&text, &blob], 1);
        assert!(found(either, json!({"text": 1, "blob": "b"})).is_empty());
        assert_eq!(
            found(either, json!({"text": 1})),
            ["missing required property `blob`"]
        );
    }

    #[test]
    fn enumerations_name_what_they_allow() {
        assert_eq!(
            found(one_of(&["public", "private"]), json!("shared")),
            [r#"expected one of "public", "private", found "shared""#]
        );
        assert_eq!(
            found(unit_interval, json!(1.5)),
            ["expected a number from 0 to 1, found 1.5"]
        );
        assert_eq!(
            found(exactly("2.0"), json!("1.0")),
            [r#"expected "2.0", found "1.0""#]
        );
    }
}
