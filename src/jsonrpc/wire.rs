//! What a server may put on stdout: one JSON-RPC 2.0 message per line.
//!
//! Both the replay and the probes read every stdout line through
//! [`classify`], so `stdout-is-protocol` means the same thing everywhere.

use serde_json::Value;

#[cfg(test)]
use crate::jsonrpc::Frame;
use crate::jsonrpc::{RequestId, json_kind};

pub use crate::jsonrpc::MAX_LINE;

/// Why a stdout line is not a protocol message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotProtocol {
    /// What is wrong, in words (e.g. `not JSON: expected value`).
    pub reason: String,
    /// The start of the line, lossy and shortened, for messages.
    pub excerpt: String,
}

/// Reads one stdout line (without its `\n`) as a protocol message.
///
/// A trailing `\r` is tolerated, as every SDK strips it. Batches (arrays) are
/// accepted only when `batches` is set (revision 2025-03-26); their elements
/// must be messages too, and the first one is returned.
///
/// # Errors
///
/// [`NotProtocol`] for a blank line, bytes that are not UTF-8, text that is
/// not exactly one JSON value, a value that is not an object, a missing or
/// wrong `"jsonrpc":"2.0"`, or an object that is neither a request, a
/// notification nor a response.
#[cfg(test)]
pub fn classify(line: &[u8], batches: bool) -> Result<Frame, NotProtocol> {
    let first = match parse(line, batches)? {
        Value::Array(items) => items.into_iter().next(),
        value => Some(value),
    };
    match first {
        Some(Value::Object(object)) => Ok(Frame::from_object(object)),
        _ => unreachable!("`parse` returns messages: objects, or batches of them"),
    }
}

/// Reads one stdout line as `classify` does, and returns it as JSON: an
/// object, or on revision 2025-03-26 a non-empty array of them. The line is
/// parsed once, for those who need the whole message rather than its frame.
///
/// # Errors
///
/// As [`classify`].
pub fn parse(line: &[u8], batches: bool) -> Result<Value, NotProtocol> {
    let fail = |reason: String| NotProtocol {
        reason,
        excerpt: excerpt(line),
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err(fail("a blank line".to_owned()));
    }
    let text = std::str::from_utf8(line).map_err(|e| {
        fail(format!(
            "not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })?;
    if text.starts_with('\u{feff}') {
        return Err(fail("starts with a byte order mark".to_owned()));
    }
    // A line of more values than are read into memory is weighed first:
    // JSON, it is beyond the checker's limits; no JSON, it says where it
    // breaks, as any line does, read without building its values.
    if crate::jsonrpc::too_many_values(line).is_some() {
        return Err(
            match serde_json::from_str::<&serde_json::value::RawValue>(text) {
                Ok(_) => fail(crate::jsonrpc::TOO_MANY_VALUES.to_owned()),
                Err(e) => {
                    let what = e.to_string();
                    let what = what.split(" at line ").next().unwrap_or(&what).to_owned();
                    fail(format!("not JSON ({what})"))
                }
            },
        );
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        // Valid JSON nested too deep or with a lone surrogate is the
        // checker's limit, not the server's fault: say so, as the recorder
        // keeps such a line as text.
        if let Some(why) = beyond_limits(line) {
            return fail(why.to_owned());
        }
        let what = e.to_string();
        let what = what.split(" at line ").next().unwrap_or(&what).to_owned();
        fail(format!("not JSON ({what})"))
    })?;
    match &value {
        Value::Object(object) => message(object).map_err(fail)?,
        Value::Array(items) if batches && !items.is_empty() => {
            for item in items {
                let Value::Object(object) = item else {
                    return Err(fail(format!(
                        "a batch element is {}, not an object",
                        json_kind(item)
                    )));
                };
                message(object).map_err(|reason| fail(format!("in a batch: {reason}")))?;
            }
        }
        other => {
            return Err(fail(format!(
                "{} is not a JSON-RPC message",
                json_kind(other)
            )));
        }
    }
    Ok(value)
}

/// What is wrong with a line longer than [`MAX_LINE`], of which only the
/// start was kept.
pub fn cut(start: &[u8]) -> NotProtocol {
    NotProtocol {
        reason: format!(
            "a line longer than {} MiB, the most mcp-replay reads as one message",
            MAX_LINE / (1024 * 1024)
        ),
        excerpt: excerpt(start),
    }
}

/// Checks one object as a message, by the rules [`Frame::from_object`]
/// classifies with, without taking it apart.
fn message(object: &serde_json::Map<String, Value>) -> Result<(), String> {
    match object.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => return Err(format!("`jsonrpc` is {other}, not \"2.0\"")),
        None => return Err("no `\"jsonrpc\":\"2.0\"`".to_owned()),
    }
    if object.contains_key("result") && object.contains_key("error") {
        return Err("a response with both `result` and `error`".to_owned());
    }
    match object.get("method") {
        Some(Value::String(_)) => match object.get("id") {
            Some(id) if !id.is_null() && RequestId::from_value(id).is_none() => {
                Err("the id is neither a number nor a string".to_owned())
            }
            _ => Ok(()),
        },
        Some(other) => Err(format!("`method` is {}, not a string", json_kind(other))),
        None if object.contains_key("result") || object.contains_key("error") => Ok(()),
        None => Err("the object has no `method`".to_owned()),
    }
}

/// The start of a line as lossy text, at most 80 characters, for messages.
///
/// Control characters are shown escaped (`\u{1b}`): a server's bytes must
/// not steer the terminal that shows the report, nor hide in it.
pub fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut out = String::new();
    for c in text.chars().take(80) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if text.chars().nth(80).is_some() {
        out.push('…');
    }
    out
}

/// Text a server wrote, for a message: [`excerpt`] in double quotes. The
/// quotes are the message's, not an escape: what is inside is escaped
/// once, control characters only, so a report shows the server's words
/// as they were (and JSON output encodes them once more, as it encodes
/// everything).
pub fn quoted(text: &[u8]) -> String {
    format!("\"{}\"", excerpt(text))
}

/// Why a line that is JSON is not read as a message, when that is so: it is
/// beyond the limits of the grammar the checker reads (nested deeper
/// than serde_json reads, a number beyond a 64-bit float, a lone
/// surrogate). `None` for a message, and for a line that is no JSON at all.
pub(crate) fn beyond_limits(line: &[u8]) -> Option<&'static str> {
    let text = std::str::from_utf8(line).ok()?;
    if let Some(why) = crate::jsonrpc::too_many_values(line) {
        return serde_json::from_str::<&serde_json::value::RawValue>(text)
            .is_ok()
            .then_some(why);
    }
    let raw = serde_json::from_str::<&serde_json::value::RawValue>(text).ok()?;
    if raw.get().len() != text.len() {
        return None;
    }
    // JSON to serde_json's own reading, yet not by ours: too deep, a
    // number out of range or a lone surrogate, the three limits, which
    // serde_json's reading into a `Value` names.
    let err = serde_json::from_str::<serde_json::Value>(text).err()?;
    let what = err.to_string();
    Some(if what.starts_with("recursion limit exceeded") {
        "nested deeper than 127 levels, beyond what mcp-replay reads as a message"
    } else if what.starts_with("number out of range") {
        "a number beyond the range of a 64-bit float, beyond what mcp-replay reads as a message"
    } else {
        "a string holds a lone surrogate escape (such as \\ud800), beyond what mcp-replay reads as a message"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_pass() {
        assert!(classify(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, false).is_ok());
        assert!(
            classify(
                br#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
                false
            )
            .is_ok()
        );
        assert!(classify(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r", false).is_ok());
    }

    #[test]
    fn banners_and_logs_fail() {
        assert_eq!(
            classify(b"Server started", false).unwrap_err().reason,
            "not JSON (expected value)"
        );
        assert_eq!(classify(b"", false).unwrap_err().reason, "a blank line");
        assert_eq!(
            classify(b"{", false).unwrap_err().reason,
            "not JSON (EOF while parsing an object)"
        );
        assert_eq!(
            classify(b"\xff", false).unwrap_err().reason,
            "not UTF-8 (invalid byte at offset 0)"
        );
    }

    #[test]
    fn json_that_is_not_json_rpc_fails() {
        assert_eq!(
            classify(br#"{"id":1,"result":{}}"#, false)
                .unwrap_err()
                .reason,
            "no `\"jsonrpc\":\"2.0\"`"
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"1.0","id":1,"result":{}}"#, false)
                .unwrap_err()
                .reason,
            "`jsonrpc` is \"1.0\", not \"2.0\""
        );
        assert_eq!(
            classify(b"42", false).unwrap_err().reason,
            "a number is not a JSON-RPC message"
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0"}"#, false).unwrap_err().reason,
            "the object has no `method`"
        );
    }

    #[test]
    fn quoted_text_is_escaped_once() {
        assert_eq!(
            quoted(b"[\n  {\n    \"expected\": \"string\""),
            r#""[\n  {\n    "expected": "string"""#
        );
    }

    #[test]
    fn excerpts_are_short_and_show_control_characters_escaped() {
        assert_eq!(excerpt(b"\x1b[2Jready\0\t"), "\\u{1b}[2Jready\\u{0}\\t");
        let long = "x".repeat(100);
        assert_eq!(excerpt(long.as_bytes()), format!("{}…", &long[..80]));
        assert_eq!(excerpt(&long.as_bytes()[..80]), long[..80]);
    }

    #[test]
    fn the_checks_agree_with_how_frames_classify() {
        // Every object `parse` lets through is a well-formed frame, and every
        // one it turns away for its members is a malformed one, for the
        // same reason.
        let objects = [
            r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0"}"#,
        ];
        for text in objects {
            let object: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap();
            let checked = message(&object);
            match Frame::from_object(object) {
                Frame::Malformed { reason, .. } => assert_eq!(checked, Err(reason), "{text}"),
                _ => assert_eq!(checked, Ok(()), "{text}"),
            }
        }
    }

    #[test]
    fn json_beyond_the_limits_is_not_called_not_json() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#,
            "[".repeat(130),
            "]".repeat(130)
        );
        assert_eq!(
            classify(deep.as_bytes(), false).unwrap_err().reason,
            "nested deeper than 127 levels, beyond what mcp-replay reads as a message"
        );
        let lone = br#"{"jsonrpc":"2.0","id":1,"result":"\ud800"}"#;
        assert!(
            classify(lone, false)
                .unwrap_err()
                .reason
                .starts_with("a string holds a lone surrogate escape")
        );
    }

    #[test]
    fn batches_only_where_allowed() {
        let batch =
            br#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]"#;
        assert!(classify(batch, true).is_ok());
        assert!(classify(batch, false).is_err());
    }
}
