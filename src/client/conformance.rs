//! The `schema` law: every message a server writes, held to the model of
//! the revision in force, and every result to its method's result type.
//!
//! Replay and the probes both judge what a server writes through
//! [`violations`], so the law means the same thing everywhere. The revision
//! in force is the one the session negotiated: the `protocolVersion` of the
//! `initialize` result (legacy), or the one a request's `_meta` names
//! (modern). Until one is known, nothing is judged.

use serde_json::Value;

use crate::model::{self, SchemaViolation};
use crate::revision::{Revision, meta};

/// How many violations one finding quotes; the rest are counted.
const QUOTED: usize = 3;

/// Every way `message` breaks `revision`'s schema: the message as a server
/// may write it, and, for a response whose request's method is known, its
/// result against that method's result type. Each violation is named once,
/// its pointer rooted at the message.
pub(crate) fn violations(
    revision: Revision,
    message: &Value,
    method: Option<&str>,
) -> Vec<SchemaViolation> {
    let mut res = model::validate_server_message(revision, message);
    if let (Some(method), Some(result)) = (method, message.get("result")) {
        for violation in model::validate_result(revision, method, result) {
            let violation = SchemaViolation {
                pointer: format!("/result{}", violation.pointer),
                message: violation.message,
            };
            // A rule both types share (`resultType` on every 2026-07-28
            // result) is one violation, not two.
            if !res.contains(&violation) {
                res.push(violation);
            }
        }
    }
    res
}

/// A finding's words for `violations` of `what` (e.g. "the answer to
/// `tools/list` id=2"): the first few quoted, the rest counted.
pub(crate) fn describe(revision: Revision, what: &str, violations: &[SchemaViolation]) -> String {
    let quoted: Vec<String> = violations
        .iter()
        .take(QUOTED)
        .map(ToString::to_string)
        .collect();
    let more = match violations.len().saturating_sub(QUOTED) {
        0 => String::new(),
        n => format!(" (and {n} more)"),
    };
    format!(
        "{what} breaks the {revision} schema: {}{more}",
        quoted.join("; ")
    )
}

/// The revision an `initialize` result names, if it is one of the five.
pub(crate) fn negotiated(result: &Value) -> Option<Revision> {
    result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .and_then(Revision::parse)
}

/// The revision a modern request names in its `_meta`, if it names one of
/// the five.
pub(crate) fn requested(params: Option<&Value>) -> Option<Revision> {
    params?
        .get("_meta")?
        .get(meta::PROTOCOL_VERSION)?
        .as_str()
        .and_then(Revision::parse)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_result_is_held_to_its_method_and_each_violation_named_once() {
        let message = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": 5, "inputSchema": {"type": "object"}}]}});
        let found = violations(Revision::V2025_06_18, &message, Some("tools/list"));
        assert!(!found.is_empty());
        assert!(
            found
                .iter()
                .all(|v| v.pointer.starts_with("/result/tools/0/name")),
            "{found:?}"
        );
        assert_eq!(
            violations(Revision::V2025_06_18, &message, None),
            Vec::<SchemaViolation>::new()
        );
        let modern = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}});
        let found = violations(Revision::V2026_07_28, &modern, Some("tools/list"));
        let mut named: Vec<String> = found.iter().map(ToString::to_string).collect();
        named.sort();
        let all = named.len();
        named.dedup();
        assert_eq!(named.len(), all, "{found:?}");
        // `resultType` is missing from both the message and the result.
        assert_eq!(
            named.iter().filter(|v| v.contains("resultType")).count(),
            1,
            "{found:?}"
        );
    }

    #[test]
    fn findings_quote_three_violations_and_count_the_rest() {
        let violation = |n: usize| SchemaViolation {
            pointer: format!("/result/{n}"),
            message: "wrong".to_owned(),
        };
        let all: Vec<SchemaViolation> = (0..5).map(violation).collect();
        assert_eq!(
            describe(Revision::V2024_11_05, "the answer to `ping` id=1", &all),
            "the answer to `ping` id=1 breaks the 2024-11-05 schema: /result/0: wrong; /result/1: wrong; /result/2: wrong (and 2 more)"
        );
    }

    #[test]
    fn revisions_are_read_from_initialize_and_from_meta() {
        assert_eq!(
            negotiated(&json!({"protocolVersion": "2025-03-26"})),
            Some(Revision::V2025_03_26)
        );
        assert_eq!(negotiated(&json!({"protocolVersion": "1900-01-01"})), None);
        let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        assert_eq!(requested(Some(&params)), Some(Revision::V2026_07_28));
        assert_eq!(requested(None), None);
    }
}
