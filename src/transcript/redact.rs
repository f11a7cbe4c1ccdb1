//! Redaction: secret values out of recorded lines, and back into replayed
//! ones.
//!
//! The recorder replaces the value of each secret environment variable `NAME`
//! by `[REDACTED:NAME]` and each match of the N-th `--redact` pattern by
//! `[REDACTED:pattern-N]`, in every recorded line of every stream. Only the
//! transcript is redacted; the bytes forwarded between host and server stay
//! exact.
//!
//! Every value and pattern is matched against the original text in one
//! pass, so a pattern never matches inside a placeholder; where matches
//! overlap, their union is replaced, by the placeholder of the one that
//! starts first, so no part of a secret survives next to a placeholder. A
//! value that spans several lines is also matched line by line. Values
//! shorter than 6 bytes are never redacted, whatever their name: they would
//! turn common words and numbers into placeholders.
//!
//! In a line that is JSON the replacement happens inside JSON strings (keys
//! and values, matched on their decoded text, so an escaped secret is found
//! too) and in bare tokens such as numbers (which become strings). Only the
//! matched characters change: every other byte of the line, escapes
//! included, stays as it was, and the line is still valid JSON. Other lines
//! are matched byte for byte.
//!
//! Replay goes the other way: [`Redactor::restore`] puts the current value of
//! `NAME` back in place of `[REDACTED:NAME]` in the client's lines, and the
//! server's actual lines are redacted with [`Redactor::redact`] before they
//! are compared with the recorded ones, so a redacted transcript replays.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem::Finder;
#[cfg(feature = "cli")]
use regex::bytes::Regex;

use super::secrets::secret_value;
use super::{LineKind, Redaction};

/// Values shorter than this many bytes are not redacted: a two-letter value
/// would turn every message into placeholders and hide nothing worth hiding.
pub(crate) const MIN_SECRET_LEN: usize = 6;

/// Why a redaction could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("invalid redaction pattern `{pattern}`")]
#[non_exhaustive]
pub struct RedactError {
    /// The pattern as given.
    pub pattern: String,
    /// What the regex compiler said, or that this build has no regular
    /// expressions (they come with the `cli` feature).
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

/// Replaces secret values and pattern matches by placeholders.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// The variables with a known value, longest value first.
    secrets: Vec<Secret>,
    /// Every value to redact (and each line of a value of several lines),
    /// with the secret it belongs to, by index into `secrets`. There are
    /// few (one or two per secret variable), so each is searched on its
    /// own, overlapping matches included.
    needles: Vec<(Finder<'static>, usize)>,
    #[cfg(feature = "cli")]
    patterns: Vec<Regex>,
}

/// One variable whose value is redacted or restored.
#[derive(Debug, Clone)]
struct Secret {
    value: String,
    /// `[REDACTED:NAME]`.
    placeholder: String,
    /// The placeholder as it stands inside a JSON string.
    placeholder_json: String,
    /// The value as it stands inside a JSON string.
    value_json: String,
}

/// A stretch of text to replace: `[start, end)`, and whose placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Span {
    start: usize,
    end: usize,
    which: Which,
}

/// Whose placeholder replaces a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Which {
    /// A secret, by index into `Redactor::secrets`.
    Secret(usize),
    /// A pattern, by index.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    Pattern(usize),
}

impl Redactor {
    /// A redactor for the variables and patterns of `redaction`, taking each
    /// variable's value from `lookup` (for a name `NAME:password`, the
    /// password of the URL in `NAME`). Variables that `lookup` does not know,
    /// or whose value is empty, are left out; values shorter than 6 bytes
    /// are restored but never redacted.
    ///
    /// # Errors
    ///
    /// [`RedactError`] when a pattern is not a valid regular expression.
    pub fn new(
        redaction: &Redaction,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Redactor, RedactError> {
        let mut found: Vec<(String, String)> = redaction
            .env
            .iter()
            .filter_map(|name| Some((name.clone(), secret_value(name, &lookup)?)))
            .filter(|(_, value)| !value.is_empty())
            .collect();
        // Longest first, so a value that contains another is replaced whole;
        // equal lengths keep the names' order, so the result is stable.
        found.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
        let secrets: Vec<Secret> = found
            .into_iter()
            .map(|(name, value)| {
                let placeholder = Redaction::env_placeholder(&name);
                Secret {
                    placeholder_json: json_string_content(&placeholder),
                    placeholder,
                    value_json: json_string_content(&value),
                    value,
                }
            })
            .collect();
        let mut needles: Vec<(Finder<'static>, usize)> = Vec::new();
        for (index, secret) in secrets.iter().enumerate() {
            let lines = secret
                .value
                .split('\n')
                .map(|line| line.trim_end_matches('\r'));
            for needle in std::iter::once(secret.value.as_str()).chain(lines) {
                if needle.len() >= MIN_SECRET_LEN
                    && !needles
                        .iter()
                        .any(|(finder, _)| finder.needle() == needle.as_bytes())
                {
                    needles.push((Finder::new(needle).into_owned(), index));
                }
            }
        }
        // Compiled within the bounds of `patterns`: a few bytes of pattern
        // can compile to megabytes.
        #[cfg(feature = "cli")]
        let patterns = {
            let mut budget = crate::patterns::Budget::default();
            redaction
                .patterns
                .iter()
                .map(|pattern| {
                    budget.bytes(pattern).map_err(|source| RedactError {
                        pattern: pattern.clone(),
                        source: source.into(),
                    })
                })
                .collect::<Result<_, _>>()?
        };
        #[cfg(not(feature = "cli"))]
        if let Some(pattern) = redaction.patterns.first() {
            return Err(RedactError {
                pattern: pattern.clone(),
                source: "redaction patterns need the `cli` feature of mcp-replay".into(),
            });
        }
        Ok(Redactor {
            secrets,
            needles,
            #[cfg(feature = "cli")]
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
        #[cfg(feature = "cli")]
        if !self.patterns.is_empty() {
            return false;
        }
        self.needles.is_empty()
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
        if memchr::memchr(b'\\', line).is_none() && !self.matches(line) {
            return Cow::Borrowed(line);
        }
        match LineKind::of(line) {
            LineKind::Json(json) => match self.redact_json(json) {
                Some(redacted) => Cow::Owned(redacted),
                None => Cow::Borrowed(line),
            },
            LineKind::Text(_) | LineKind::Bytes(_) => {
                let mut spans = Vec::new();
                self.spans(line, &mut spans);
                if spans.is_empty() {
                    return Cow::Borrowed(line);
                }
                let mut out = Vec::with_capacity(line.len());
                let mut copied = 0;
                for span in &spans {
                    out.extend_from_slice(&line[copied..span.start]);
                    out.extend_from_slice(self.placeholder(span.which).as_bytes());
                    copied = span.end;
                }
                out.extend_from_slice(&line[copied..]);
                Cow::Owned(out)
            }
        }
    }

    /// The line with `[REDACTED:NAME]` replaced by the value of `NAME`, for
    /// every secret this redactor knows a value for. In a JSON line the value
    /// is escaped as the JSON string it stands in.
    pub fn restore<'a>(&self, line: &'a [u8]) -> Cow<'a, [u8]> {
        static PLACEHOLDER_START: LazyLock<Finder<'static>> =
            LazyLock::new(|| Finder::new(b"[REDACTED:"));
        if self.secrets.is_empty() || PLACEHOLDER_START.find(line).is_none() {
            return Cow::Borrowed(line);
        }
        let json = matches!(LineKind::of(line), LineKind::Json(_));
        let mut out = Cow::Borrowed(line);
        for secret in &self.secrets {
            let (placeholder, value) = if json {
                (&secret.placeholder_json, &secret.value_json)
            } else {
                (&secret.placeholder, &secret.value)
            };
            if let Some(replaced) = replace_all(&out, placeholder.as_bytes(), value.as_bytes()) {
                out = Cow::Owned(replaced);
            }
        }
        out
    }

    fn matches(&self, bytes: &[u8]) -> bool {
        #[cfg(feature = "cli")]
        if self.patterns.iter().any(|re| re.is_match(bytes)) {
            return true;
        }
        self.needles
            .iter()
            .any(|(finder, _)| finder.find(bytes).is_some())
    }

    /// The placeholder of `which`, as plain text.
    fn placeholder(&self, which: Which) -> Cow<'_, str> {
        match which {
            Which::Secret(index) => Cow::Borrowed(&self.secrets[index].placeholder),
            Which::Pattern(index) => Cow::Owned(Redaction::pattern_placeholder(index)),
        }
    }

    /// The placeholder of `which`, as it stands inside a JSON string.
    fn placeholder_json(&self, which: Which) -> Cow<'_, str> {
        match which {
            Which::Secret(index) => Cow::Borrowed(&self.secrets[index].placeholder_json),
            Which::Pattern(index) => Cow::Owned(Redaction::pattern_placeholder(index)),
        }
    }

    /// Every stretch of `text` to replace, in order, none overlapping:
    /// overlapping matches are merged, under the placeholder of the first.
    fn spans(&self, text: &[u8], spans: &mut Vec<Span>) {
        spans.clear();
        for (finder, secret) in &self.needles {
            // Every occurrence, those that overlap another included: their
            // union is what is replaced.
            let mut from = 0;
            while let Some(at) = finder.find(&text[from..]) {
                spans.push(Span {
                    start: from + at,
                    end: from + at + finder.needle().len(),
                    which: Which::Secret(*secret),
                });
                from += at + 1;
            }
        }
        #[cfg(feature = "cli")]
        for (index, re) in self.patterns.iter().enumerate() {
            // An empty match would put a placeholder between characters and
            // hide nothing.
            spans.extend(re.find_iter(text).filter(|m| !m.is_empty()).map(|m| Span {
                start: m.start(),
                end: m.end(),
                which: Which::Pattern(index),
            }));
        }
        if spans.len() < 2 {
            return;
        }
        // By start, the longest first, secrets before patterns.
        spans.sort_unstable_by_key(|span| (span.start, std::cmp::Reverse(span.end), span.which));
        let mut merged = 0;
        for index in 1..spans.len() {
            let span = spans[index];
            if span.start < spans[merged].end {
                spans[merged].end = spans[merged].end.max(span.end);
            } else {
                merged += 1;
                spans[merged] = span;
            }
        }
        spans.truncate(merged + 1);
    }

    /// Redacts the strings and bare tokens of a JSON text; `None` when
    /// nothing changed.
    fn redact_json(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut spans = Vec::new();
        let mut decoded = Decoded::default();
        let mut copied = 0;
        let mut at = 0;
        while at < bytes.len() {
            let start = at;
            if bytes[at] == b'"' {
                at = string_end(bytes, at) + 1;
                let content = &bytes[start + 1..at - 1];
                let escaped = memchr::memchr(b'\\', content).is_some();
                if escaped {
                    decoded.decode(content);
                    self.spans(&decoded.text, &mut spans);
                } else {
                    self.spans(content, &mut spans);
                }
                if spans.is_empty() {
                    continue;
                }
                out.extend_from_slice(&bytes[copied..start + 1]);
                // Only the matched characters change; the raw text around
                // them, escapes included, is kept.
                let mut kept = 0;
                for span in &spans {
                    let (raw_start, raw_end) = if escaped {
                        (decoded.raw_start[span.start], decoded.raw_end[span.end - 1])
                    } else {
                        (span.start, span.end)
                    };
                    out.extend_from_slice(&content[kept..raw_start.max(kept)]);
                    out.extend_from_slice(self.placeholder_json(span.which).as_bytes());
                    kept = raw_end.max(kept);
                }
                out.extend_from_slice(&content[kept..]);
                out.push(b'"');
                copied = at;
            } else if is_token_byte(bytes[at]) {
                while at < bytes.len() && is_token_byte(bytes[at]) {
                    at += 1;
                }
                let token = &bytes[start..at];
                self.spans(token, &mut spans);
                if spans.is_empty() {
                    continue;
                }
                // A redacted number becomes a string, so the line stays JSON.
                let mut text = String::new();
                let mut kept = 0;
                for span in &spans {
                    text.push_str(&String::from_utf8_lossy(&token[kept..span.start]));
                    text.push_str(&self.placeholder(span.which));
                    kept = span.end;
                }
                text.push_str(&String::from_utf8_lossy(&token[kept..]));
                out.extend_from_slice(&bytes[copied..start]);
                out.push(b'"');
                out.extend_from_slice(json_string_content(&text).as_bytes());
                out.push(b'"');
                copied = at;
            } else {
                at += 1;
            }
        }
        if copied == 0 {
            return None;
        }
        out.extend_from_slice(&bytes[copied..]);
        Some(out)
    }
}

/// The content of one JSON string decoded to the text it stands for, with
/// the raw bytes each decoded byte came from.
#[derive(Debug, Default)]
struct Decoded {
    text: Vec<u8>,
    /// For each byte of `text`, where its escape (or itself) starts in the
    /// raw content.
    raw_start: Vec<usize>,
    /// For each byte of `text`, where its escape (or itself) ends.
    raw_end: Vec<usize>,
}

impl Decoded {
    /// Decodes `raw`, the content of a valid JSON string literal without its
    /// quotes. A lone surrogate escape stands for U+FFFD: it cannot be part
    /// of a value that came from the environment, and its raw text is kept.
    fn decode(&mut self, raw: &[u8]) {
        self.text.clear();
        self.raw_start.clear();
        self.raw_end.clear();
        let mut at = 0;
        while at < raw.len() {
            let start = at;
            let mut utf8 = [0u8; 4];
            let bytes: &[u8] = if raw[at] == b'\\' {
                let escape = raw[at + 1];
                at += 2;
                match escape {
                    b'u' => {
                        let high = hex4(&raw[at..at + 4]);
                        at += 4;
                        let mut code = high;
                        if (0xD800..0xDC00).contains(&high) && raw[at..].starts_with(b"\\u") {
                            let low = hex4(&raw[at + 2..at + 6]);
                            if (0xDC00..0xE000).contains(&low) {
                                code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                                at += 6;
                            }
                        }
                        char::from_u32(code)
                            .unwrap_or(char::REPLACEMENT_CHARACTER)
                            .encode_utf8(&mut utf8)
                            .as_bytes()
                    }
                    b'b' => b"\x08",
                    b'f' => b"\x0c",
                    b'n' => b"\n",
                    b'r' => b"\r",
                    b't' => b"\t",
                    // `\"`, `\\` and `\/` stand for themselves.
                    _ => &raw[start + 1..start + 2],
                }
            } else {
                at += 1;
                &raw[start..at]
            };
            for &byte in bytes {
                self.text.push(byte);
                self.raw_start.push(start);
                self.raw_end.push(at);
            }
        }
    }
}

/// The value of four hex digits (a valid JSON string has them after `\u`).
fn hex4(digits: &[u8]) -> u32 {
    digits.iter().fold(0, |n, &d| {
        let value = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            _ => d - b'A' + 10,
        };
        n * 16 + u32::from(value)
    })
}

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

/// `text` escaped as the content of a JSON string, without the quotes.
fn json_string_content(text: &str) -> String {
    let quoted = serde_json::to_string(text).expect("a string serializes");
    quoted[1..quoted.len() - 1].to_owned()
}

/// `haystack` with every `needle` replaced; `None` when there is none.
fn replace_all(haystack: &[u8], needle: &[u8], replacement: &[u8]) -> Option<Vec<u8>> {
    let mut found = memchr::memmem::find_iter(haystack, needle).peekable();
    found.peek()?;
    let mut out = Vec::with_capacity(haystack.len());
    let mut copied = 0;
    for at in found {
        out.extend_from_slice(&haystack[copied..at]);
        out.extend_from_slice(replacement);
        copied = at + needle.len();
    }
    out.extend_from_slice(&haystack[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

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
    #[cfg(not(feature = "cli"))]
    fn patterns_are_refused_without_regular_expressions() {
        let redaction = Redaction {
            env: Vec::new(),
            patterns: vec!["sk-[0-9]+".to_owned()],
        };
        let err = Redactor::new(&redaction, |_| None).unwrap_err();
        assert_eq!(err.pattern, "sk-[0-9]+");
        assert_eq!(
            err.source.to_string(),
            "redaction patterns need the `cli` feature of mcp-replay"
        );
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
    #[cfg(feature = "cli")]
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
    #[cfg(feature = "cli")]
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
    fn escapes_around_a_secret_are_kept_as_written() {
        let r = redactor(&[("API_TOKEN", "tok-12345")], &[]);
        assert_eq!(
            redact(&r, r#"{"a":"\u00e9 \/ tok-12345 \n","b":"\u00e9"}"#),
            r#"{"a":"\u00e9 \/ [REDACTED:API_TOKEN] \n","b":"\u00e9"}"#
        );
        // A secret written with escapes is replaced with its escapes.
        assert_eq!(
            redact(&r, r#"{"a":"x\u0074ok-12345\ty"}"#),
            r#"{"a":"x[REDACTED:API_TOKEN]\ty"}"#
        );
    }

    #[test]
    fn a_lone_surrogate_is_kept_as_written() {
        let r = redactor(&[("API_TOKEN", "tok-12345")], &[]);
        let out = redact(&r, r#"{"a":"\ud800 tok-12345\n\ud83d\ude00"}"#);
        assert_eq!(out, r#"{"a":"\ud800 [REDACTED:API_TOKEN]\n\ud83d\ude00"}"#);
    }

    #[test]
    #[cfg(feature = "cli")]
    fn patterns_never_match_inside_placeholders() {
        let r = redactor(
            &[("API_TOKEN", "tok-12345")],
            &["[A-Z_]{5,}", "[a-z]+-[0-9]"],
        );
        assert_eq!(
            redact(&r, "x tok-12345 y SHOUT"),
            "x [REDACTED:API_TOKEN] y [REDACTED:pattern-1]"
        );
        assert_eq!(
            redact(&r, r#"{"a":"x tok-12345 y SHOUT"}"#),
            r#"{"a":"x [REDACTED:API_TOKEN] y [REDACTED:pattern-1]"}"#
        );
    }

    #[test]
    #[cfg(feature = "cli")]
    fn overlapping_matches_leave_no_part_of_a_secret() {
        let r = redactor(&[("A_KEY", "abcdef12"), ("B_KEY", "ef12ghij")], &[]);
        assert_eq!(redact(&r, "<abcdef12ghij>"), "<[REDACTED:A_KEY]>");
        assert_eq!(
            redact(&r, "<ef12ghij abcdef12>"),
            "<[REDACTED:B_KEY] [REDACTED:A_KEY]>"
        );
        let r = redactor(&[("A_KEY", "secret-value")], &["value-[0-9]+"]);
        assert_eq!(redact(&r, "secret-value-42"), "[REDACTED:A_KEY]");
    }

    #[test]
    #[cfg(feature = "cli")]
    fn empty_matches_change_nothing() {
        let r = redactor(&[], &["x*"]);
        assert!(matches!(r.redact(b"abc"), Cow::Borrowed(_)));
        assert_eq!(redact(&r, "axxb"), "a[REDACTED:pattern-1]b");
        assert_eq!(
            redact(&r, r#"{"a":"axxb","n":1}"#),
            r#"{"a":"a[REDACTED:pattern-1]b","n":1}"#
        );
    }

    #[test]
    fn short_values_are_restored_but_never_redacted() {
        // A token recorded long may be short where the transcript replays.
        let r = redactor(&[("TOKEN", "1")], &[]);
        assert!(r.is_empty());
        assert!(matches!(r.redact(br#"{"id":1,"n":"1"}"#), Cow::Borrowed(_)));
        assert_eq!(
            &r.restore(br#"{"t":"[REDACTED:TOKEN]"}"#)[..],
            br#"{"t":"1"}"#
        );
    }

    #[test]
    fn every_line_of_a_value_of_several_lines_is_redacted() {
        let key = "-----BEGIN KEY-----\nMIIEvQIBADANBg\nshort\r\nkqhkiG9w0BAQEF\n-----END KEY-----";
        let r = redactor(&[("PRIVATE_KEY", key)], &[]);
        // A server that prints the value as it is: one line at a time.
        assert_eq!(redact(&r, "MIIEvQIBADANBg"), "[REDACTED:PRIVATE_KEY]");
        assert_eq!(redact(&r, "kqhkiG9w0BAQEF"), "[REDACTED:PRIVATE_KEY]");
        assert_eq!(redact(&r, "short"), "short");
        // In JSON the whole value is one string, and is replaced whole.
        let line = format!(r#"{{"key":{}}}"#, serde_json::to_string(key).unwrap());
        assert_eq!(redact(&r, &line), r#"{"key":"[REDACTED:PRIVATE_KEY]"}"#);
    }

    /// JSON values whose strings hold the secret anywhere, in keys too.
    fn json_with(secret: &'static str) -> impl Strategy<Value = serde_json::Value> {
        let text = prop::collection::vec(
            prop_oneof![
                Just(secret.to_owned()),
                "[ -~]{0,4}",
                "[\\x00-\\x1f\"\\\\/\u{e9}\u{1F600}]{1,3}",
            ],
            0..4,
        )
        .prop_map(|parts| parts.concat());
        let leaf = prop_oneof![
            text.clone().prop_map(serde_json::Value::String),
            any::<i64>().prop_map(serde_json::Value::from),
            Just(serde_json::Value::Null),
        ];
        leaf.prop_recursive(3, 24, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::vec((text.clone(), inner), 0..4)
                    .prop_map(|entries| serde_json::Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// Every string of `value`, keys included.
    fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            serde_json::Value::Object(map) => {
                for (key, v) in map {
                    out.push(key.clone());
                    strings(v, out);
                }
            }
            _ => {}
        }
    }

    proptest! {
        #[test]
        fn redacted_json_stays_json_hides_the_secret_and_restores(
            value in json_with("tok-\"x/\u{e9}9"),
            ascii in any::<bool>(),
        ) {
            let secret = "tok-\"x/\u{e9}9";
            let r = redactor(&[("API_TOKEN", secret)], &[]);
            let mut line = serde_json::to_string(&value).unwrap();
            if ascii {
                // As Python's json.dumps writes it: every non-ASCII
                // character as an escape.
                line = line
                    .chars()
                    .map(|c| if c.is_ascii() { c.to_string() } else {
                        c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect()
                    })
                    .collect();
            }
            let redacted = r.redact(line.as_bytes());
            let parsed: serde_json::Value = serde_json::from_slice(&redacted).unwrap();
            let mut found = Vec::new();
            strings(&parsed, &mut found);
            prop_assert!(found.iter().all(|s| !s.contains(secret)), "{}", String::from_utf8_lossy(&redacted));
            let restored = r.restore(&redacted);
            let back: serde_json::Value = serde_json::from_slice(&restored).unwrap();
            prop_assert_eq!(back, value);
        }
    }

    #[test]
    fn the_password_of_a_url_is_redacted_and_restored_alone() {
        let url = "postgres://app:s3cr3t-pass@db:5432/app";
        let redactor = Redactor::new(
            &Redaction {
                env: vec!["DATABASE_URL:password".to_owned()],
                patterns: Vec::new(),
            },
            |name| (name == "DATABASE_URL").then(|| url.to_owned()),
        )
        .unwrap();
        let line = format!(r#"{{"url":"{url}"}}"#);
        let redacted = redact(&redactor, &line);
        assert_eq!(
            redacted,
            r#"{"url":"postgres://app:[REDACTED:DATABASE_URL:password]@db:5432/app"}"#
        );
        assert_eq!(
            String::from_utf8(redactor.restore(redacted.as_bytes()).into_owned()).unwrap(),
            line
        );
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
