//! Shrinking: a failing case's arguments made smaller, one step at a time,
//! while they still fail the same way.
//!
//! Each step is a candidate strictly smaller than the arguments it comes
//! from (shorter as JSON, or as long and earlier in byte order), so
//! shrinking ends: a member left out, a string cut in half or a character
//! dropped or made `a`, a number brought towards zero, an array or object
//! emptied or one item fewer, `true` made `false`.

use serde_json::{Map, Value};

use super::checks::Kind;
use crate::schema::judge::Verdict;

/// How many candidates one failure's shrinking tries at most.
pub(super) const MAX_ATTEMPTS: usize = 200;

/// ...and one that costs a deadline each time it comes back (a hang, no
/// answer after the call).
pub(super) const MAX_SLOW_ATTEMPTS: usize = 12;

/// How many candidates one round offers at most.
const MAX_CANDIDATES: usize = 256;

/// The candidates one step smaller than `arguments`, the largest steps
/// first.
pub(super) fn candidates(arguments: &Option<Value>) -> Vec<Option<Value>> {
    let Some(value) = arguments else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for smaller in smaller_values(value) {
        out.push(Some(smaller));
        if out.len() >= MAX_CANDIDATES {
            break;
        }
    }
    let key = size(value);
    out.retain(|candidate| candidate.as_ref().is_some_and(|c| size(c) < key));
    out
}

/// The order candidates shrink by: the length of the JSON, then its bytes.
fn size(value: &Value) -> (usize, String) {
    let text = value.to_string();
    (text.len(), text)
}

/// Values one step smaller than `value`, at the top or inside it.
fn smaller_values(value: &Value) -> Vec<Value> {
    let mut out = own_steps(value);
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                for smaller in smaller_values(child) {
                    let mut copy: Map<String, Value> = map.clone();
                    copy.insert(key.clone(), smaller);
                    out.push(Value::Object(copy));
                    if out.len() >= MAX_CANDIDATES {
                        return out;
                    }
                }
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                for smaller in smaller_values(child) {
                    let mut copy = items.clone();
                    copy[index] = smaller;
                    out.push(Value::Array(copy));
                    if out.len() >= MAX_CANDIDATES {
                        return out;
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// The steps that change `value` itself.
fn own_steps(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match value {
        Value::Object(map) => {
            for key in map.keys() {
                let mut copy = map.clone();
                copy.remove(key);
                out.push(Value::Object(copy));
            }
        }
        Value::Array(items) => {
            if !items.is_empty() {
                out.push(Value::Array(Vec::new()));
                let half = items.len() / 2;
                if half > 0 {
                    out.push(Value::Array(items[..half].to_vec()));
                    out.push(Value::Array(items[half..].to_vec()));
                }
                if items.len() <= 32 {
                    for index in 0..items.len() {
                        let mut copy = items.clone();
                        copy.remove(index);
                        out.push(Value::Array(copy));
                    }
                }
            }
        }
        Value::String(text) => {
            let chars: Vec<char> = text.chars().collect();
            if !chars.is_empty() {
                out.push(Value::from(""));
                let half = chars.len() / 2;
                if half > 0 {
                    out.push(Value::from(chars[..half].iter().collect::<String>()));
                    out.push(Value::from(chars[half..].iter().collect::<String>()));
                }
                if chars.len() <= 32 {
                    for index in 0..chars.len() {
                        let mut copy = chars.clone();
                        copy.remove(index);
                        out.push(Value::from(copy.into_iter().collect::<String>()));
                    }
                    for index in 0..chars.len() {
                        if chars[index] != 'a' {
                            let mut copy = chars.clone();
                            copy[index] = 'a';
                            out.push(Value::from(copy.into_iter().collect::<String>()));
                        }
                    }
                }
            }
        }
        Value::Number(number) => {
            if let Some(n) = number.as_i64() {
                if n != 0 {
                    out.push(Value::from(0));
                    out.push(Value::from(n / 2));
                    out.push(Value::from(n - n.signum()));
                }
            } else if let Some(n) = number.as_u64() {
                out.push(Value::from(0));
                out.push(Value::from(n / 2));
            } else if let Some(f) = number.as_f64() {
                out.push(Value::from(0));
                if f.trunc() != f && f.abs() < 9.0e15 {
                    out.push(Value::from(f.trunc() as i64));
                }
            }
        }
        Value::Bool(true) => out.push(Value::Bool(false)),
        Value::Bool(false) | Value::Null => {}
    }
    out
}

/// Whether a candidate judged `verdict` can fail as a case labelled
/// `label` did: a check that rests on the label needs the same one (an
/// invalid case, the same keyword broken).
pub(super) fn same_label(kind: Kind, label: &Verdict, verdict: &Verdict) -> bool {
    match kind {
        Kind::ErrorForValid => *verdict == Verdict::Valid,
        Kind::AcceptedInvalid => match (label, verdict) {
            (Verdict::Invalid(a), Verdict::Invalid(b)) => {
                a.keyword == b.keyword && a.pointer == b.pointer
            }
            _ => false,
        },
        Kind::ErrorForInvalid | Kind::ErrorWithoutText => matches!(verdict, Verdict::Invalid(_)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A stand-in for a server: shrinking by these candidates, as the runner
    /// does, while `fails` holds.
    fn shrink(mut value: Value, fails: impl Fn(&Value) -> bool) -> Value {
        'rounds: loop {
            for candidate in candidates(&Some(value.clone())) {
                let candidate = candidate.unwrap();
                if fails(&candidate) {
                    value = candidate;
                    continue 'rounds;
                }
            }
            return value;
        }
    }

    #[test]
    fn a_crash_on_non_ascii_text_shrinks_to_one_character() {
        let start =
            json!({"query": "abc日本語 xyz", "limit": 37, "tags": ["x", "y"], "deep": {"a": true}});
        let shrunk = shrink(start, |v| {
            v.get("query")
                .and_then(Value::as_str)
                .is_some_and(|q| !q.is_ascii())
        });
        assert_eq!(shrunk, json!({"query": "日"}));
    }

    #[test]
    fn numbers_shrink_towards_zero_and_keep_what_matters() {
        let shrunk = shrink(json!({"n": 1000, "m": -77}), |v| {
            v.get("n").and_then(Value::as_i64).is_some_and(|n| n > 50)
        });
        assert_eq!(shrunk, json!({"n": 51}));
    }

    #[test]
    fn every_candidate_is_smaller() {
        let value = json!({"a": [1, 2, {"b": "zz"}], "c": 1.5, "d": true, "e": null});
        let key = size(&value);
        for candidate in candidates(&Some(value)) {
            assert!(size(candidate.as_ref().unwrap()) < key);
        }
        assert!(candidates(&None).is_empty());
    }
}
