//! Comparing a replayed response with the recorded one.
//!
//! Both sides first lose the fields the ignore rules name (volatile values
//! such as timestamps or versions) and have the parts of their strings that
//! the masks match replaced (a timestamp inside a tool's text, which most
//! servers return as JSON in a string), then are rendered as pretty JSON
//! with sorted keys, so that equal messages give equal text and unequal
//! ones a readable line diff.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

/// One segment of an ignore rule.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// A key of an object or an index of an array.
    Key(String),
    /// `*`: any one key or index.
    Any,
    /// `**`: any number of segments, none included.
    AnyDepth,
}

/// A JSON pointer (RFC 6901) in which a `*` segment matches any one key or
/// index and a `**` segment matches any number of segments.
///
/// The pointer is rooted at the whole message, e.g.
/// `/result/serverInfo/version` or `/**/timestamp`.
///
/// A rule `method:NAME` ignores no field: it allows the server to send a
/// request of method `NAME` (e.g. `method:roots/list`) that the recording
/// lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoreRule {
    pattern: String,
    segments: Vec<Segment>,
    /// For a `method:NAME` rule: the server request method it allows.
    method: Option<String>,
}

/// The prefix of a rule that allows an unrecorded server request.
const METHOD_RULE: &str = "method:";

impl IgnoreRule {
    /// Parses a pattern.
    ///
    /// # Errors
    ///
    /// A message naming the pattern when it does not start with `/` (and is
    /// not empty, which means the whole message) or holds a `~` that is not
    /// `~0` or `~1`.
    pub fn parse(pattern: &str) -> Result<IgnoreRule, String> {
        if let Some(method) = pattern.strip_prefix(METHOD_RULE) {
            if method.trim().is_empty() {
                return Err(format!(
                    "ignore rule `{pattern}` names no method (expected e.g. `method:roots/list`)"
                ));
            }
            return Ok(IgnoreRule {
                pattern: pattern.to_owned(),
                segments: Vec::new(),
                method: Some(method.trim().to_owned()),
            });
        }
        let mut segments = Vec::new();
        if !pattern.is_empty() {
            let Some(rest) = pattern.strip_prefix('/') else {
                return Err(format!(
                    "ignore rule `{pattern}` is not a JSON pointer: it must start with `/`"
                ));
            };
            for raw in rest.split('/') {
                segments.push(match raw {
                    "*" => Segment::Any,
                    "**" => Segment::AnyDepth,
                    _ => Segment::Key(unescape(raw).ok_or_else(|| {
                        format!(
                            "ignore rule `{pattern}` has a `~` that is neither `~0` (for `~`) nor `~1` (for `/`)"
                        )
                    })?),
                });
            }
        }
        Ok(IgnoreRule {
            pattern: pattern.to_owned(),
            segments,
            method: None,
        })
    }

    /// Removes every part of `value` the rule matches. A rule that matches
    /// the whole value turns it into `null`.
    pub fn apply(&self, value: &mut Value) {
        if self.method.is_some() {
            return;
        }
        if strip(value, &self.segments) {
            *value = Value::Null;
        }
    }
}

impl fmt::Display for IgnoreRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.pattern)
    }
}

fn unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Removes what `segments` match below `value`; returns `true` when `value`
/// itself is matched and must be removed by its parent.
///
/// A string that holds a JSON object or array (a tool's result is often JSON
/// in a text block) is entered as the value it holds when segments remain:
/// `/result/content/0/text/datetime` reaches the `datetime` of the JSON in
/// that text. The string is then written back compactly, on both sides of a
/// comparison alike.
fn strip(value: &mut Value, segments: &[Segment]) -> bool {
    let Some((first, rest)) = segments.split_first() else {
        return true;
    };
    if let Value::String(text) = value {
        if let Some(mut held) = held_json(text) {
            if strip(&mut held, segments) {
                return true;
            }
            *text = held.to_string();
        }
        return false;
    }
    match first {
        Segment::AnyDepth => {
            // `**` matching no segment at all.
            if strip(value, rest) {
                return true;
            }
            // `**` matching one segment or more: keep it for the children.
            retain_children(value, |child| strip(child, segments));
        }
        Segment::Any => retain_children(value, |child| strip(child, rest)),
        Segment::Key(key) => match value {
            Value::Object(object) => {
                if let Some(child) = object.get_mut(key)
                    && strip(child, rest)
                {
                    object.remove(key);
                }
            }
            Value::Array(items) => {
                if let Ok(index) = key.parse::<usize>()
                    && let Some(child) = items.get_mut(index)
                    && strip(child, rest)
                {
                    items.remove(index);
                }
            }
            _ => {}
        },
    }
    false
}

/// The JSON object or array a string holds, if it holds one.
fn held_json(text: &str) -> Option<Value> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    serde_json::from_str::<Value>(text).ok()
}

/// Visits every child of an object or array, removing those for which
/// `matched` returns `true`.
fn retain_children(value: &mut Value, mut matched: impl FnMut(&mut Value) -> bool) {
    match value {
        Value::Object(object) => object.retain(|_, child| !matched(child)),
        Value::Array(items) => items.retain_mut(|child| !matched(child)),
        _ => {}
    }
}

/// The ignore rules of one transcript: its header's and its directory
/// config's, with the config's masks (which need the `cli` feature).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IgnoreRules(Vec<IgnoreRule>, #[cfg(feature = "cli")] Vec<Mask>);

/// A regular expression whose matches in any string value are replaced by
/// [`Mask::MASKED`] on both sides of a comparison.
#[cfg(feature = "cli")]
#[derive(Debug, Clone)]
struct Mask {
    pattern: String,
    regex: regex::Regex,
}

#[cfg(feature = "cli")]
impl Mask {
    /// What a match becomes.
    const MASKED: &str = "<masked>";

    /// Replaces every match in the strings of `value`, keys excepted.
    fn apply(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if let std::borrow::Cow::Owned(masked) = self.regex.replace_all(text, Mask::MASKED)
                {
                    *text = masked;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.apply(item)),
            Value::Object(map) => map.values_mut().for_each(|item| self.apply(item)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

#[cfg(feature = "cli")]
impl PartialEq for Mask {
    fn eq(&self, other: &Mask) -> bool {
        self.pattern == other.pattern
    }
}

#[cfg(feature = "cli")]
impl Eq for Mask {}

impl IgnoreRules {
    /// Parses every pattern.
    ///
    /// # Errors
    ///
    /// The first pattern that does not parse, as [`IgnoreRule::parse`] says.
    pub fn parse<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<IgnoreRules, String> {
        patterns
            .into_iter()
            .map(IgnoreRule::parse)
            .collect::<Result<_, _>>()
            .map(|rules| {
                IgnoreRules(
                    rules,
                    #[cfg(feature = "cli")]
                    Vec::new(),
                )
            })
    }

    /// Adds masks: regular expressions (the syntax of the regex crate) whose
    /// matches inside string values are replaced by `<masked>` before
    /// comparing.
    ///
    /// # Errors
    ///
    /// A message naming the first pattern that does not parse, and why.
    #[cfg(feature = "cli")]
    pub fn with_masks<'a>(
        mut self,
        patterns: impl IntoIterator<Item = &'a str>,
    ) -> Result<IgnoreRules, String> {
        let mut budget = crate::patterns::Budget::default();
        for pattern in patterns {
            let regex = budget.text(pattern).map_err(|err| match err {
                crate::patterns::PatternError::Syntax(err) => {
                    format!("mask `{pattern}` is no regular expression: {err}")
                }
                err => format!("mask `{pattern}`: {err}"),
            })?;
            self.1.push(Mask {
                pattern: pattern.to_owned(),
                regex,
            });
        }
        Ok(self)
    }

    /// Adds the rules and masks of `other` after these.
    pub fn extend(&mut self, other: &IgnoreRules) {
        self.0.extend(other.0.iter().cloned());
        #[cfg(feature = "cli")]
        self.1.extend(other.1.iter().cloned());
    }

    /// Whether a `method:NAME` rule allows the server to send a request of
    /// `method` that the recording lacks.
    pub fn allows_request(&self, method: &str) -> bool {
        self.0
            .iter()
            .any(|rule| rule.method.as_deref() == Some(method))
    }

    /// Removes everything the rules match from `value`, then masks what the
    /// masks match in what is left.
    pub fn apply(&self, value: &mut Value) {
        for rule in &self.0 {
            rule.apply(value);
        }
        #[cfg(feature = "cli")]
        for mask in &self.1 {
            mask.apply(value);
        }
    }
}

/// The text both sides of a comparison are diffed as: pretty JSON with
/// sorted keys (serde_json's map is ordered by key in this crate).
pub fn canonical(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value always serializes");
    text.push('\n');
    text
}

/// A recorded value to compare with: a [`Value`] to which the rules have
/// been applied already, or a form kept compact that is read (and the rules
/// applied to) when it is compared.
pub(crate) trait Expected {
    /// The value, the ignore rules `rules` applied.
    fn resolve(&self, rules: &IgnoreRules) -> Cow<'_, Value>;
}

impl Expected for Value {
    fn resolve(&self, _rules: &IgnoreRules) -> Cow<'_, Value> {
        Cow::Borrowed(self)
    }
}

/// Compares `expected` with `actual`, the rules applied to both; returns a
/// plain unified diff, with the two headers `headers` makes, when they
/// differ. Nothing is formatted for a match.
#[cfg(test)]
pub(crate) fn compare(
    expected: &(impl Expected + ?Sized),
    mut actual: Value,
    rules: &IgnoreRules,
    headers: impl FnOnce() -> (String, String),
) -> Option<String> {
    rules.apply(&mut actual);
    let expected = expected.resolve(rules);
    compare_applied(&expected, &actual, headers)
}

/// [`compare`] for values to which the rules have been applied already.
pub(crate) fn compare_applied(
    expected: &Value,
    actual: &Value,
    headers: impl FnOnce() -> (String, String),
) -> Option<String> {
    if expected == actual {
        return None;
    }
    let (expected_header, actual_header) = headers();
    // A tool's result is often JSON inside one text string: shown as it
    // is, a change anywhere in it is one long changed line.
    let mut shown = expected.clone();
    let mut actual_shown = actual.clone();
    let expanded = expand_json_strings(&mut shown) | expand_json_strings(&mut actual_shown);
    // Strings that differ only in how their JSON is written (spacing, key
    // order) are shown as they are, or the diff would show no change.
    if expanded && shown != actual_shown {
        let mut diff = unified_diff(
            &canonical(&shown),
            &canonical(&actual_shown),
            (&expected_header, &actual_header),
        );
        diff.push_str("(strings that hold a JSON object or array are shown parsed)\n");
        return Some(diff);
    }
    Some(unified_diff(
        &canonical(expected),
        &canonical(actual),
        (&expected_header, &actual_header),
    ))
}

/// Replaces every string of `value` that holds a JSON object or array by
/// the value it holds, not looking into those; returns whether any was.
fn expand_json_strings(value: &mut Value) -> bool {
    match value {
        Value::String(text) => {
            // One level only: JSON in a string in a string stays a string,
            // so the shown value nests at most twice serde_json's limit.
            match held_json(text) {
                Some(parsed) => {
                    *value = parsed;
                    true
                }
                None => false,
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |any, item| expand_json_strings(item) | any),
        Value::Object(map) => map
            .values_mut()
            .fold(false, |any, item| expand_json_strings(item) | any),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

/// A plain unified diff of two texts (three lines of context), for files
/// and CI logs, the same in every build (`lines.rs`: the patience method,
/// bounded in time and memory).
pub fn unified_diff(expected: &str, actual: &str, headers: (&str, &str)) -> String {
    super::lines::unified(expected, actual, 3, headers)
}

/// One place where two messages differ: its JSON pointer (into the JSON a
/// string holds, where both sides' strings hold some), and the value on
/// each side (`None` where it is absent).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Difference {
    /// The pointer, as an ignore rule names it.
    pub pointer: String,
    /// The expected side's value there.
    pub expected: Option<Value>,
    /// The actual side's value there.
    pub actual: Option<Value>,
}

/// Every place where `expected` and `actual` differ, down to their leaves,
/// in document order. Strings that both hold JSON are compared as the JSON
/// they hold (one level deep, as diffs show them); arrays index by index.
pub(crate) fn differences(expected: &Value, actual: &Value) -> Vec<Difference> {
    let mut res = Vec::new();
    walk_differences(expected, actual, &mut String::new(), true, &mut res);
    res
}

fn walk_differences(
    expected: &Value,
    actual: &Value,
    pointer: &mut String,
    enter_strings: bool,
    res: &mut Vec<Difference>,
) {
    if expected == actual {
        return;
    }
    let leaf = |pointer: &str, res: &mut Vec<Difference>| {
        res.push(Difference {
            pointer: pointer.to_owned(),
            expected: Some(expected.clone()),
            actual: Some(actual.clone()),
        });
    };
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, left) in a {
                let len = pointer.len();
                push_token(pointer, key);
                match b.get(key) {
                    Some(right) => walk_differences(left, right, pointer, enter_strings, res),
                    None => res.push(Difference {
                        pointer: pointer.clone(),
                        expected: Some(left.clone()),
                        actual: None,
                    }),
                }
                pointer.truncate(len);
            }
            for (key, right) in b {
                if !a.contains_key(key) {
                    let len = pointer.len();
                    push_token(pointer, key);
                    res.push(Difference {
                        pointer: pointer.clone(),
                        expected: None,
                        actual: Some(right.clone()),
                    });
                    pointer.truncate(len);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for index in 0..a.len().max(b.len()) {
                let len = pointer.len();
                push_token(pointer, &index.to_string());
                match (a.get(index), b.get(index)) {
                    (Some(left), Some(right)) => {
                        walk_differences(left, right, pointer, enter_strings, res);
                    }
                    (left, right) => res.push(Difference {
                        pointer: pointer.clone(),
                        expected: left.cloned(),
                        actual: right.cloned(),
                    }),
                }
                pointer.truncate(len);
            }
        }
        (Value::String(a), Value::String(b)) if enter_strings => {
            match (held_json(a), held_json(b)) {
                (Some(left), Some(right)) => {
                    walk_differences(&left, &right, pointer, false, res);
                }
                _ => leaf(pointer, res),
            }
        }
        _ => leaf(pointer, res),
    }
}

/// The value at `pointer` (as [`differences`] names places) inside `value`,
/// entering strings that hold JSON.
pub(crate) fn pointee(value: &Value, pointer: &str) -> Option<Value> {
    let Some(rest) = pointer.strip_prefix('/') else {
        return pointer.is_empty().then(|| value.clone());
    };
    let mut current = value.clone();
    for raw in rest.split('/') {
        let token = unescape(raw)?;
        if let Value::String(text) = &current {
            current = held_json(text)?;
        }
        current = match current {
            Value::Object(mut object) => object.remove(&token)?,
            Value::Array(mut items) => {
                let index: usize = token.parse().ok()?;
                (index < items.len()).then(|| items.swap_remove(index))?
            }
            _ => return None,
        };
    }
    Some(current)
}

/// Appends `/token` to a JSON pointer, escaped as RFC 6901 asks.
fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// What two different values both are, when they are values that change by
/// themselves: a point in time (RFC 3339 or ISO 8601 date and time), or a
/// UUID. Such values differ from run to run at a grain coarser than two
/// runs back to back can show (a timestamp to the second), so two differing
/// values of the same such kind are taken for noise, not a regression.
pub(crate) fn volatile_kind(expected: &Value, actual: &Value) -> Option<&'static str> {
    let (Value::String(a), Value::String(b)) = (expected, actual) else {
        return None;
    };
    if is_date_time(a) && is_date_time(b) {
        Some("a date and time")
    } else if is_uuid(a) && is_uuid(b) {
        Some("a UUID")
    } else {
        None
    }
}

/// `YYYY-MM-DD` then `T` or a space, `HH:MM`, optional `:SS`, an optional
/// fraction, and an optional zone (`Z` or `±HH:MM` or `±HHMM`).
fn is_date_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|part| part.iter().all(u8::is_ascii_digit))
    };
    if !(digits(0..4)
        && bytes.get(4) == Some(&b'-')
        && digits(5..7)
        && bytes.get(7) == Some(&b'-')
        && digits(8..10)
        && matches!(bytes.get(10), Some(b'T' | b't' | b' '))
        && digits(11..13)
        && bytes.get(13) == Some(&b':')
        && digits(14..16))
    {
        return false;
    }
    let mut at = 16;
    if bytes.get(at) == Some(&b':') {
        if !digits(at + 1..at + 3) {
            return false;
        }
        at += 3;
        if matches!(bytes.get(at), Some(b'.' | b',')) {
            let start = at + 1;
            at = start;
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            if at == start {
                return false;
            }
        }
    }
    match &bytes[at..] {
        [] | [b'Z' | b'z'] => true,
        [b'+' | b'-', zone @ ..] => match zone {
            [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => {
                [h1, h2, m1, m2].iter().all(|b| b.is_ascii_digit())
            }
            [h1, h2] => h1.is_ascii_digit() && h2.is_ascii_digit(),
            _ => false,
        },
        _ => false,
    }
}

/// `8-4-4-4-12` hexadecimal digits.
fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ignored(patterns: &[&str], mut value: Value) -> Value {
        IgnoreRules::parse(patterns.iter().copied())
            .unwrap()
            .apply(&mut value);
        value
    }

    #[test]
    fn a_method_rule_allows_a_request_and_ignores_no_field() {
        let rules = IgnoreRules::parse(["method:roots/list"]).unwrap();
        assert!(rules.allows_request("roots/list"));
        assert!(!rules.allows_request("sampling/createMessage"));
        let value = json!({"result":{"a":1}});
        assert_eq!(ignored(&["method:roots/list"], value.clone()), value);
        assert_eq!(
            IgnoreRules::parse(["method:"]).unwrap_err(),
            "ignore rule `method:` names no method (expected e.g. `method:roots/list`)"
        );
    }

    #[test]
    fn a_plain_pointer_removes_one_field() {
        let value = json!({"result":{"serverInfo":{"name":"s","version":"1.2"}}});
        assert_eq!(
            ignored(&["/result/serverInfo/version"], value),
            json!({"result":{"serverInfo":{"name":"s"}}})
        );
    }

    #[test]
    fn a_star_matches_one_segment() {
        let value =
            json!({"result":{"content":[{"text":"a","type":"text"},{"text":"b","type":"text"}]}});
        assert_eq!(
            ignored(&["/result/content/*/text"], value),
            json!({"result":{"content":[{"type":"text"},{"type":"text"}]}})
        );
    }

    #[test]
    fn a_double_star_matches_any_depth_including_none() {
        let value = json!({"time":1,"result":{"time":2,"deep":[{"time":3,"keep":true}]}});
        assert_eq!(
            ignored(&["/**/time"], value),
            json!({"result":{"deep":[{"keep":true}]}})
        );
    }

    #[test]
    fn an_index_removes_one_array_element() {
        let value = json!({"a":[1,2,3]});
        assert_eq!(ignored(&["/a/1"], value), json!({"a":[1,3]}));
    }

    #[test]
    fn escapes_follow_rfc_6901() {
        let value = json!({"a/b":1,"c~d":2,"e":3});
        assert_eq!(ignored(&["/a~1b", "/c~0d"], value), json!({"e":3}));
    }

    #[test]
    fn the_empty_pointer_ignores_everything() {
        assert_eq!(ignored(&[""], json!({"a":1})), Value::Null);
    }

    #[test]
    fn missing_paths_change_nothing() {
        let value = json!({"a":{"b":1}});
        assert_eq!(ignored(&["/x/y", "/a/b/c", "/a/*/z"], value.clone()), value);
    }

    #[test]
    fn bad_patterns_are_named() {
        assert_eq!(
            IgnoreRule::parse("result/x").unwrap_err(),
            "ignore rule `result/x` is not a JSON pointer: it must start with `/`"
        );
        assert!(IgnoreRule::parse("/a~2").unwrap_err().contains("`~0`"));
    }

    #[test]
    #[cfg(feature = "cli")]
    fn masks_replace_matches_inside_strings_on_both_sides() {
        let rules = IgnoreRules::default()
            .with_masks([r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"])
            .unwrap();
        let text = |at: &str, zone: &str| json!({"content":[{"type":"text","text":format!("{{\"now\":\"{at}{zone}\"}}")}]});
        let mut expected = json!({"id":1,"result":text("2026-01-01T10:00:00", "+01:00")});
        rules.apply(&mut expected);
        assert_eq!(
            expected["result"]["content"][0]["text"],
            "{\"now\":\"<masked>+01:00\"}"
        );
        let same = json!({"id":1,"result":text("2026-11-29T22:07:13", "+01:00")});
        let headers = || -> (String, String) { panic!("no headers for a match") };
        assert_eq!(compare(&expected, same, &rules, headers), None);
        // What the mask does not match is still compared.
        let other = json!({"id":1,"result":text("2026-11-29T22:07:13", "+02:00")});
        let headers = || ("expected".to_owned(), "actual".to_owned());
        assert!(compare(&expected, other, &rules, headers).is_some());
        assert_eq!(
            IgnoreRules::default()
                .with_masks(["("])
                .unwrap_err()
                .lines()
                .next()
                .unwrap(),
            "mask `(` is no regular expression: regex parse error:"
        );
    }

    #[test]
    fn json_inside_a_string_is_diffed_parsed() {
        let env = |home: &str| {
            let text =
                json!({"HOME": home, "PATH": "/usr/bin", "SHELL": "/bin/sh", "TERM": "xterm"});
            json!({"id": 1, "result": {"content": [{"type": "text", "text": text.to_string()}]}})
        };
        let headers = || ("expected".to_owned(), "actual".to_owned());
        let diff = compare(
            &env("/root"),
            env("/home/ci"),
            &IgnoreRules::default(),
            headers,
        )
        .unwrap();
        assert!(
            diff.contains("\n-          \"HOME\": \"/root\",\n"),
            "{diff}"
        );
        assert!(
            diff.contains("\n+          \"HOME\": \"/home/ci\",\n"),
            "{diff}"
        );
        // One changed line each way, not the whole string.
        let changed = |sign: char| diff.lines().filter(|l| l.starts_with(sign)).count();
        assert_eq!((changed('-'), changed('+')), (2, 2), "{diff}");
        assert!(diff.ends_with("(strings that hold a JSON object or array are shown parsed)\n"));
        // The same JSON written otherwise is shown as written.
        let spaced =
            json!({"id": 1, "result": {"content": [{"type": "text", "text": "{ \"a\": 1 }"}]}});
        let tight =
            json!({"id": 1, "result": {"content": [{"type": "text", "text": "{\"a\":1}"}]}});
        let headers = || ("expected".to_owned(), "actual".to_owned());
        let diff = compare(&spaced, tight, &IgnoreRules::default(), headers).unwrap();
        assert!(
            diff.contains("+        \"text\": \"{\\\"a\\\":1}\","),
            "{diff}"
        );
        assert!(!diff.contains("shown parsed"), "{diff}");
    }

    #[test]
    fn a_pointer_reaches_into_json_held_in_a_string() {
        let text = |at: &str| json!({"result":{"content":[{"type":"text","text":format!("{{\"datetime\":\"{at}\",\"timezone\":\"UTC\"}}")}]}});
        let rules = IgnoreRules::parse(["/result/content/0/text/datetime"]).unwrap();
        let mut expected = text("2026-01-01T10:00:00+00:00");
        rules.apply(&mut expected);
        assert_eq!(
            expected["result"]["content"][0]["text"],
            "{\"timezone\":\"UTC\"}"
        );
        let headers = || -> (String, String) { panic!("no headers for a match") };
        assert_eq!(
            compare(
                &expected,
                text("2026-12-01T12:34:56+00:00"),
                &rules,
                headers
            ),
            None
        );
        // A string that holds no JSON is a leaf: a rule that goes on past
        // it matches nothing.
        let plain = json!({"a":"not json"});
        assert_eq!(ignored(&["/a/b"], plain.clone()), plain);
    }

    #[test]
    fn differences_name_each_leaf_by_its_pointer() {
        let expected = json!({"id":1,"result":{"a":1,"list":[1,2],"text":"{\"at\":\"x\",\"k\":1}","gone":true}});
        let actual = json!({"id":1,"result":{"a":2,"list":[1,2,3],"text":"{\"at\":\"y\",\"k\":1}","new/key":0}});
        let pointers: Vec<(String, Option<Value>, Option<Value>)> = differences(&expected, &actual)
            .into_iter()
            .map(|d| (d.pointer, d.expected, d.actual))
            .collect();
        assert_eq!(
            pointers,
            [
                ("/result/a".to_owned(), Some(json!(1)), Some(json!(2))),
                ("/result/gone".to_owned(), Some(json!(true)), None),
                ("/result/list/2".to_owned(), None, Some(json!(3))),
                (
                    "/result/text/at".to_owned(),
                    Some(json!("x")),
                    Some(json!("y"))
                ),
                ("/result/new~1key".to_owned(), None, Some(json!(0))),
            ]
        );
        assert_eq!(differences(&expected, &expected), []);
        for (pointer, _, actual_value) in &pointers {
            assert_eq!(
                pointee(&actual, pointer).as_ref(),
                actual_value.as_ref(),
                "{pointer}"
            );
        }
    }

    #[test]
    fn times_and_uuids_are_volatile_kinds() {
        let kind = |a: &str, b: &str| volatile_kind(&json!(a), &json!(b));
        assert_eq!(
            kind("2026-01-01T10:00:00+01:00", "2026-12-01T12:34:56.789Z"),
            Some("a date and time")
        );
        assert_eq!(
            kind("2026-01-01 10:00", "2026-01-02 11:00"),
            Some("a date and time")
        );
        assert_eq!(
            kind("2026-01-01T10:00:00", "2026-01-01T10:00:01-0500"),
            Some("a date and time")
        );
        assert_eq!(
            kind(
                "123e4567-e89b-12d3-a456-426614174000",
                "00000000-0000-4000-8000-000000000000"
            ),
            Some("a UUID")
        );
        // A date alone, a time against a word, numbers: not volatile.
        assert_eq!(kind("2026-01-01", "2026-01-02"), None);
        assert_eq!(kind("2026-01-01T10:00:00Z", "never"), None);
        assert_eq!(
            kind("2026-01-01T10:00:00Zulu", "2026-01-01T10:00:00Z"),
            None
        );
        assert_eq!(volatile_kind(&json!(1), &json!(2)), None);
    }

    #[test]
    fn equal_after_rules_is_no_diff() {
        let rules = IgnoreRules::parse(["/result/t"]).unwrap();
        let mut expected = json!({"id":1,"result":{"t":1,"v":"x"}});
        rules.apply(&mut expected);
        let actual = json!({"result":{"v":"x","t":2},"id":1});
        let headers = || -> (String, String) { panic!("no headers for a match") };
        assert_eq!(compare(&expected, actual, &rules, headers), None);
    }

    #[test]
    fn a_mismatch_is_a_unified_diff_of_sorted_pretty_json() {
        let expected =
            json!({"id":3,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}});
        let actual =
            json!({"result":{"isError":false,"content":[{"text":"hello!","type":"text"}]},"id":3});
        let diff = compare(&expected, actual, &IgnoreRules::default(), || {
            (
                "expected: t.jsonl:4".to_owned(),
                "actual: server".to_owned(),
            )
        })
        .unwrap();
        assert_eq!(
            diff,
            "\
--- expected: t.jsonl:4
+++ actual: server
@@ -3,7 +3,7 @@
   \"result\": {
     \"content\": [
       {
-        \"text\": \"hello\",
+        \"text\": \"hello!\",
         \"type\": \"text\"
       }
     ],
"
        );
    }
}
