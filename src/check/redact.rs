//! Secrets in transcripts: putting them back into what the client sends, and
//! taking them out of what the server answers.
//!
//! A recording replaces secret values by placeholders (`[REDACTED:NAME]` for
//! the value of environment variable `NAME`, `[REDACTED:pattern-N]` for a
//! match of the header's N-th pattern). Replay sends the current value of
//! `NAME` where the client's line has its placeholder, and redacts the same
//! values and patterns in the live server messages before they are compared,
//! so a redacted transcript replays against a server that sees real secrets.

use std::borrow::Cow;

use regex::Regex;
use serde_json::Value;

use crate::transcript::Redaction;

/// The redactions of one transcript, with the values they stand for now.
#[derive(Debug, Default)]
pub(crate) struct Redactor {
    /// `(placeholder, value)` for each redacted variable that is set,
    /// longest value first so that a value containing another wins.
    env: Vec<(String, String)>,
    /// Each pattern and its placeholder, in header order.
    patterns: Vec<(Regex, String)>,
}

impl Redactor {
    /// The redactor of a header's `redact` section; `lookup` reads the
    /// environment.
    ///
    /// # Errors
    ///
    /// A message naming the pattern that is not a valid regular expression.
    pub(crate) fn new(
        redaction: &Redaction,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Redactor, String> {
        let mut env: Vec<(String, String)> = redaction
            .env
            .iter()
            .filter_map(|name| {
                let value = lookup(name).filter(|value| !value.is_empty())?;
                Some((Redaction::env_placeholder(name), value))
            })
            .collect();
        env.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
        let patterns = redaction
            .patterns
            .iter()
            .enumerate()
            .map(|(index, pattern)| {
                Regex::new(pattern)
                    .map(|regex| (regex, Redaction::pattern_placeholder(index)))
                    .map_err(|err| format!("redaction pattern `{pattern}` is invalid: {err}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Redactor { env, patterns })
    }

    /// Whether there is nothing to restore or redact.
    pub(crate) fn is_empty(&self) -> bool {
        self.env.is_empty() && self.patterns.is_empty()
    }

    /// The client line with each variable placeholder replaced by the
    /// variable's value, escaped for a JSON string (placeholders stand inside
    /// strings).
    pub(crate) fn restore<'a>(&self, line: &'a [u8]) -> Cow<'a, [u8]> {
        let Ok(text) = std::str::from_utf8(line) else {
            return Cow::Borrowed(line);
        };
        if self.env.is_empty() || !text.contains("[REDACTED:") {
            return Cow::Borrowed(line);
        }
        let mut out = text.to_owned();
        for (placeholder, value) in &self.env {
            if out.contains(placeholder.as_str()) {
                let escaped = Value::from(value.as_str()).to_string();
                out = out.replace(placeholder.as_str(), &escaped[1..escaped.len() - 1]);
            }
        }
        Cow::Owned(out.into_bytes())
    }

    /// Replaces, in every string of `value`, the secret values by their
    /// placeholders and the pattern matches by theirs.
    pub(crate) fn redact(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                if let Cow::Owned(redacted) = self.redact_str(text) {
                    *text = redacted;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.redact(item)),
            Value::Object(object) => object.values_mut().for_each(|item| self.redact(item)),
            _ => {}
        }
    }

    fn redact_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (placeholder, value) in &self.env {
            if out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), placeholder));
            }
        }
        for (regex, placeholder) in &self.patterns {
            if let Cow::Owned(replaced) = regex.replace_all(&out, regex::NoExpand(placeholder)) {
                out = Cow::Owned(replaced);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn redactor(env: &[&str], patterns: &[&str]) -> Redactor {
        let redaction: Redaction =
            serde_json::from_value(json!({"env": env, "patterns": patterns})).unwrap();
        Redactor::new(&redaction, |name| match name {
            "TOKEN" => Some("s3cr\"t".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        })
        .unwrap()
    }

    #[test]
    fn placeholders_get_the_current_value_escaped() {
        let redactor = redactor(&["TOKEN", "UNSET"], &[]);
        let line = br#"{"params":{"a":"Bearer [REDACTED:TOKEN]","b":"[REDACTED:UNSET]"}}"#;
        assert_eq!(
            String::from_utf8(redactor.restore(line).into_owned()).unwrap(),
            r#"{"params":{"a":"Bearer s3cr\"t","b":"[REDACTED:UNSET]"}}"#
        );
    }

    #[test]
    fn live_values_and_patterns_are_redacted_in_every_string() {
        let redactor = redactor(&["TOKEN", "EMPTY"], &["[0-9]{4}-[0-9]{2}"]);
        let mut value = json!({"result":{"text":"token s3cr\"t at 2026-11","list":["s3cr\"t",1]}});
        redactor.redact(&mut value);
        assert_eq!(
            value,
            json!({"result":{"text":"token [REDACTED:TOKEN] at [REDACTED:pattern-1]","list":["[REDACTED:TOKEN]",1]}})
        );
    }

    #[test]
    fn a_bad_pattern_is_named() {
        let redaction: Redaction = serde_json::from_value(json!({"patterns": ["("]})).unwrap();
        let err = Redactor::new(&redaction, |_| None).unwrap_err();
        assert!(err.starts_with("redaction pattern `(` is invalid"), "{err}");
    }
}
