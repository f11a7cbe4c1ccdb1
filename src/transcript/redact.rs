//! Redaction: secret values out of recorded lines, and back into replayed
//! ones.
//!
//! The recorder replaces the value of each secret environment variable `NAME`
//! by `[REDACTED:NAME]` and each match of the N-th `--redact` pattern by
//! `[REDACTED:pattern-N]`, in every recorded line of every stream. Only the
//! transcript is redacted; the bytes forwarded between host and server stay
//! exact.
//!
//! In a line that is JSON the replacement happens inside JSON strings (keys
//! and values, matched on their decoded text, so an escaped secret is found
//! too) and in bare tokens such as numbers (which become strings), and the
//! line is still valid JSON afterwards. Other lines are matched byte for byte.
//!
//! Replay goes the other way: [`Redactor::restore`] puts the current value of
//! `NAME` back in place of `[REDACTED:NAME]` in the client's lines, and the
//! server's actual lines are redacted with [`Redactor::redact`] before they
//! are compared with the recorded ones, so a redacted transcript replays.

use std::borrow::Cow;

use regex::bytes::{Captures, Regex, RegexBuilder};

use super::{LineKind, Redaction};

/// Why a redaction could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("invalid redaction pattern `{pattern}`")]
pub struct RedactError {
    /// The pattern as given.
    pub pattern: String,
    /// What the regex compiler said.
    #[source]
    pub source: regex::Error,
}

/// Replaces secret values and pattern matches by placeholders.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// The secrets as (variable name, value), longest value first.
    secrets: Vec<(String, String)>,
    /// One alternation of every secret value, longest first, so a single
    /// pass finds them all.
    secret_re: Option<Regex>,
    patterns: Vec<Regex>,
}

impl Redactor {
    /// A redactor for the variables and patterns of `redaction`, taking each
    /// variable's value from `lookup`. Variables that `lookup` does not know,
    /// or whose value is empty, are left out.
    ///
    /// # Errors
    ///
    /// [`RedactError`] when a pattern is not a valid regular expression.
    pub fn new(
        redaction: &Redaction,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Redactor, RedactError> {
        let mut secrets: Vec<(String, String)> = redaction
            .env
            .iter()
            .filter_map(|name| Some((name.clone(), lookup(name)?)))
            .filter(|(_, value)| !value.is_empty())
            .collect();
        // Longest first, so a value that contains another is replaced whole;
        // equal lengths keep the names' order, so the result is stable.
        secrets.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
        let secret_re = if secrets.is_empty() {
            None
        } else {
            let alternation = secrets
                .iter()
                .map(|(_, value)| regex::escape(value))
                .collect::<Vec<_>>()
                .join("|");
            Some(
                RegexBuilder::new(&alternation)
                    .size_limit(64 << 20)
                    .build()
                    .map_err(|source| RedactError {
                        pattern: "(the values of the secret variables)".to_owned(),
                        source,
                    })?,
            )
        };
        let patterns = redaction
            .patterns
            .iter()
            .map(|pattern| {
                Regex::new(pattern).map_err(|source| RedactError {
                    pattern: pattern.clone(),
                    source,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Redactor {
            secrets,
            secret_re,
            patterns,
        })
    }

    /// A redactor for `redaction` with the values of the current environment.
    ///
    /// # Errors
    ///
    /// As [`Redactor::new`].
    pub fn from_env(redaction: &Redaction) -> Result<Redactor, RedactError> {
        Redactor::new(redaction, |name| std::env::var(name).ok())
    }

    /// Whether this redactor never changes anything.
    pub fn is_empty(&self) -> bool {
        self.secret_re.is_none() && self.patterns.is_empty()
    }

    /// The line (without its terminator) with every secret value and pattern
    /// match replaced by its placeholder. A JSON line stays valid JSON.
    pub fn redact<'a>(&self, line: &'a [u8]) -> Cow<'a, [u8]> {
        if self.is_empty() {
            return Cow::Borrowed(line);
        }
        // An escape sequence can hide a secret from a match on the raw bytes,
        // so only a line with neither a match nor a backslash is left alone
        // without a closer look.
        if !line.contains(&b'\\') && !self.matches(line) {
            return Cow::Borrowed(line);
        }
        match LineKind::of(line) {
            LineKind::Json(json) => match self.redact_json(json) {
                Some(redacted) => Cow::Owned(redacted),
                None => Cow::Borrowed(line),
            },
            LineKind::Text(_) | LineKind::Bytes(_) => self.redact_plain(line),
        }
    }

    /// The line with `[REDACTED:NAME]` replaced by the value of `NAME`, for
    /// every secret this redactor knows a value for. In a JSON line the value
    /// is escaped as the JSON string it stands in.
    pub fn restore<'a>(&self, line: &'a [u8]) -> Cow<'a, [u8]> {
        if self.secrets.is_empty() || memchr::memmem::find(line, PLACEHOLDER_START).is_none() {
            return Cow::Borrowed(line);
        }
        let json = matches!(LineKind::of(line), LineKind::Json(_));
        let mut out = line.to_vec();
        for (name, value) in &self.secrets {
            let placeholder = Redaction::env_placeholder(name);
            let replacement = if json {
                let quoted = serde_json::to_string(value).expect("a string serializes");
                quoted[1..quoted.len() - 1].to_owned()
            } else {
                value.clone()
            };
            out = replace_all(&out, placeholder.as_bytes(), replacement.as_bytes());
        }
        Cow::Owned(out)
    }

    fn matches(&self, bytes: &[u8]) -> bool {
        self.secret_re.as_ref().is_some_and(|re| re.is_match(bytes))
            || self.patterns.iter().any(|re| re.is_match(bytes))
    }

    fn redact_plain<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let mut out = Cow::Borrowed(bytes);
        if let Some(re) = &self.secret_re {
            let replaced = re.replace_all(&out, |caps: &Captures<'_>| {
                let found = &caps[0];
                let (name, _) = self
                    .secrets
                    .iter()
                    .find(|(_, value)| value.as_bytes() == found)
                    .expect("the alternation matches only secret values");
                Redaction::env_placeholder(name).into_bytes()
            });
            if let Cow::Owned(replaced) = replaced {
                out = Cow::Owned(replaced);
            }
        }
        for (index, re) in self.patterns.iter().enumerate() {
            let placeholder = Redaction::pattern_placeholder(index);
            let replaced = re.replace_all(&out, placeholder.as_bytes());
            if let Cow::Owned(replaced) = replaced {
                out = Cow::Owned(replaced);
            }
        }
        out
    }

    /// Redacts the strings and bare tokens of a JSON text; `None` when
    /// nothing changed.
    fn redact_json(&self, text: &str) -> Option<Vec<u8>> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut copied = 0;
        let mut at = 0;
        while at < bytes.len() {
            let start = at;
            let replacement = if bytes[at] == b'"' {
                at = string_end(bytes, at) + 1;
                self.redact_json_string(&text[start..at])
            } else if is_token_byte(bytes[at]) {
                while at < bytes.len() && is_token_byte(bytes[at]) {
                    at += 1;
                }
                match self.redact_plain(&bytes[start..at]) {
                    // A redacted number becomes a string, so the line stays JSON.
                    Cow::Owned(redacted) => Some(json_string(&String::from_utf8_lossy(&redacted))),
                    Cow::Borrowed(_) => None,
                }
            } else {
                at += 1;
                None
            };
            if let Some(replacement) = replacement {
                out.extend_from_slice(&bytes[copied..start]);
                out.extend_from_slice(replacement.as_bytes());
                copied = at;
            }
        }
        if copied == 0 {
            return None;
        }
        out.extend_from_slice(&bytes[copied..]);
        Some(out)
    }

    /// Redacts one JSON string literal (with its quotes); `None` when nothing
    /// changed.
    fn redact_json_string(&self, literal: &str) -> Option<String> {
        let decoded: Cow<'_, str> = if literal.contains('\\') {
            // A lone surrogate escape cannot be decoded to a Rust string; such
            // a literal is matched as it stands.
            match serde_json::from_str::<String>(literal) {
                Ok(decoded) => Cow::Owned(decoded),
                Err(_) => Cow::Borrowed(&literal[1..literal.len() - 1]),
            }
        } else {
            Cow::Borrowed(&literal[1..literal.len() - 1])
        };
        match self.redact_plain(decoded.as_bytes()) {
            Cow::Owned(redacted) => Some(json_string(&String::from_utf8_lossy(&redacted))),
            Cow::Borrowed(_) => None,
        }
    }
}

const PLACEHOLDER_START: &[u8] = b"[REDACTED:";

/// The index of the quote that closes the string opening at `open`.
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut at = open + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at,
            _ => at += 1,
        }
    }
    bytes.len() - 1
}

/// Bytes of the bare JSON tokens: numbers, `true`, `false`, `null`.
fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'+' | b'.')
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

fn replace_all(haystack: &[u8], needle: &[u8], replacement: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut copied = 0;
    for at in memchr::memmem::find_iter(haystack, needle) {
        out.extend_from_slice(&haystack[copied..at]);
        out.extend_from_slice(replacement);
        copied = at + needle.len();
    }
    out.extend_from_slice(&haystack[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor(env: &[(&str, &str)], patterns: &[&str]) -> Redactor {
        let redaction = Redaction {
            env: env.iter().map(|(name, _)| (*name).to_owned()).collect(),
            patterns: patterns.iter().map(|p| (*p).to_owned()).collect(),
        };
        let values: Vec<(String, String)> = env
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        Redactor::new(&redaction, |name| {
            values
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        })
        .unwrap()
    }

    fn redact(redactor: &Redactor, line: &str) -> String {
        String::from_utf8(redactor.redact(line.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn secret_in_a_json_string_is_replaced() {
        let r = redactor(&[("API_TOKEN", "tok-12345")], &[]);
        assert_eq!(
            redact(&r, r#"{"a":"Bearer tok-12345","b":1}"#),
            r#"{"a":"Bearer [REDACTED:API_TOKEN]","b":1}"#
        );
    }

    #[test]
    fn escaped_secret_is_found_and_the_line_stays_json() {
        let r = redactor(&[("DB_PASSWORD", "p\"a/ss\\wd")], &[]);
        let line = r#"{"env":{"DB_PASSWORD":"p\"a\/ss\\wd"},"n":"x\n"}"#;
        let out = redact(&r, line);
        assert_eq!(
            out,
            r#"{"env":{"DB_PASSWORD":"[REDACTED:DB_PASSWORD]"},"n":"x\n"}"#
        );
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
    }

    #[test]
    fn secret_as_a_bare_number_becomes_a_string() {
        let r = redactor(&[("PIN_SECRET", "4711081")], &[]);
        assert_eq!(
            redact(&r, r#"{"pin":4711081,"other":47110}"#),
            r#"{"pin":"[REDACTED:PIN_SECRET]","other":47110}"#
        );
    }

    #[test]
    fn text_and_bytes_lines_are_matched_as_bytes() {
        let r = redactor(&[("KEY", "hunter22")], &["sk-[a-z0-9]+"]);
        assert_eq!(
            redact(&r, "starting with hunter22 and sk-abc123"),
            "starting with [REDACTED:KEY] and [REDACTED:pattern-1]"
        );
        let bytes = r.redact(b"\xff hunter22");
        assert_eq!(&bytes[..], b"\xff [REDACTED:KEY]");
    }

    #[test]
    fn longer_value_wins_over_a_value_it_contains() {
        let r = redactor(&[("A_KEY", "abcdef"), ("B_KEY", "abcdefgh")], &[]);
        assert_eq!(
            redact(&r, "x abcdefgh y abcdef"),
            "x [REDACTED:B_KEY] y [REDACTED:A_KEY]"
        );
    }

    #[test]
    fn untouched_lines_are_borrowed() {
        let r = redactor(&[("API_KEY", "zzzzzz")], &["sk-[0-9]+"]);
        let line = br#"{"jsonrpc":"2.0","id":1,"result":{"text":"a\nb"}}"#;
        assert!(matches!(r.redact(line), Cow::Borrowed(_)));
        assert!(matches!(
            Redactor::default().redact(b"zzzzzz"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn restore_puts_the_values_back() {
        let r = redactor(&[("DB_PASSWORD", "p\"w")], &[]);
        let json = r#"{"pw":"[REDACTED:DB_PASSWORD]"}"#;
        assert_eq!(&r.restore(json.as_bytes())[..], br#"{"pw":"p\"w"}"#);
        assert_eq!(&r.restore(b"pw=[REDACTED:DB_PASSWORD]")[..], b"pw=p\"w");
        let line = br#"{"pw":"p\"w"}"#;
        assert_eq!(&r.restore(&r.redact(line))[..], line);
    }

    #[test]
    fn bad_pattern_is_named() {
        let redaction = Redaction {
            env: Vec::new(),
            patterns: vec!["(unclosed".to_owned()],
        };
        let err = Redactor::new(&redaction, |_| None).unwrap_err();
        assert_eq!(err.to_string(), "invalid redaction pattern `(unclosed`");
    }
}
