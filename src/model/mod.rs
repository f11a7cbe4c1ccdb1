//! The crate's own model of the five MCP revisions' message schemas, for
//! the `schema` law (L3, L8, L25–L27, L38–L40 of the digest's §7).
//!
//! [`validate_server_message`] holds one line a server wrote to its
//! revision's `JSONRPCMessage`, [`validate_result`] holds a result to the
//! result type of the method it answers (the digest's §8 map), and
//! [`validate_structured_content`] holds a tool's `structuredContent` to
//! the `outputSchema` it declared. Each returns every violation it finds,
//! with a JSON Pointer to where it is; an empty list means the value
//! passes.
//!
//! The model is written by hand from the specification, one Rust function
//! per type, with the differences between revisions as [`Revision`]'s
//! rules or as explicit comparisons of revisions. A test holds it to the
//! official `schema.json` files of the MCP specification (where they are at
//! hand; CI has them): a corpus of valid and
//! broken messages of every revision gets the same verdict from the model
//! and from a full JSON Schema validator, except for the cases below, each
//! of which the corpus marks and the test asserts.
//!
//! # What the model does not check
//!
//! Properties a type does not name are never looked at, as the schemas
//! allow them almost everywhere. String formats (`uri`, `byte`) are not
//! checked: 2020-12 treats `format` as an annotation, and a client does not
//! fail a server over the spelling of a URI.
//!
//! # Where the model departs from the official schemas
//!
//! - **The answer to an unreadable line.** JSON-RPC 2.0 §5 says the
//!   response to a line whose id cannot be read (a parse error, -32700, or
//!   an invalid request, -32600) carries `"id": null`. No MCP schema can
//!   express that answer: until 2025-06-18 every error response must carry
//!   a string or integer id, and from 2025-11-25 the id may be left out but
//!   never be null. Where the MCP schema cannot express the answer,
//!   JSON-RPC 2.0, which MCP builds on, governs: an error response with
//!   code -32700 or -32600 passes with a null id or with none, in every
//!   revision. Any other error follows its revision's schema (an id is
//!   required until 2025-06-18, may be absent from 2025-11-25, and is
//!   never null). `docs/laws.md` ("The answer to a malformed line") records
//!   the decision and what the core library writes per revision.
//! - **Both `result` and `error`.** The schemas' `anyOf` accepts a response
//!   with both; JSON-RPC 2.0 §5 and L8 forbid it, and so does the model.
//! - **An id of the wrong type on a request.** A line with a `method` and
//!   an `id` that is not null is a request, whatever the id's type. The
//!   schemas' `anyOf` reads a line whose id is of another type (`true`,
//!   `1.5`, `[]`) as a notification, since a notification names no `id`;
//!   JSON-RPC 2.0 §4 allows only strings, numbers and null there, and MCP
//!   only strings and integers, so the model fails the id.
//! - **Requests from a 2026-07-28 server.** The 2026-07-28 `JSONRPCMessage`
//!   still admits a request, but a server must never write one on stdio
//!   (L40): it asks for input in an `input_required` result instead.
//! - **`resultType` values.** The 2026-07-28 schema types `resultType` as
//!   any string and accepts a `tools/call` result that matches either
//!   `CallToolResult` or `InputRequiredResult`. A client can only know
//!   `complete`, and `input_required` on `tools/call`, `prompts/get` and
//!   `resources/read` (L38), so the model picks the result type by
//!   `resultType` and fails any other value: `{"resultType": "complete"}`
//!   alone is no `CallToolResult`, even though it would pass as an
//!   `InputRequiredResult` without its fields.

mod client;
mod content;
mod descriptors;
mod forms;
mod messages;
mod requests;
mod results;
mod walk;

#[cfg(test)]
mod crosscheck;

use std::fmt;

use serde_json::Value;

use crate::revision::Revision;
use crate::schema::validate::validate as json_schema_violations;

/// One way a message breaks its revision's schema: where (a JSON Pointer
/// into the value checked) and what, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaViolation {
    /// The JSON Pointer of the offending value; empty for the value itself.
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

/// Every way `message` (one line a server wrote, parsed) breaks
/// `revision`'s `JSONRPCMessage` as a server may send it: a response, an
/// error, a notification, a request (legacy revisions only) or, on
/// 2025-03-26, a batch.
///
/// A result is held to the generic `Result` only (an object; in 2026-07-28
/// with `resultType`); [`validate_result`] holds it to its method's type,
/// which the line alone does not name. The `params` of the notifications
/// and server requests the revision defines are checked; other methods get
/// the envelope's rules only. Extra properties are allowed wherever the
/// schemas allow them, which is almost everywhere.
pub fn validate_server_message(revision: Revision, message: &Value) -> Vec<SchemaViolation> {
    let mut walk = walk::Walk::default();
    messages::server_message(revision, &mut walk, message);
    walk.into_violations()
}

/// Every way `result` breaks the result type of `method` in `revision`:
/// `initialize` → `InitializeResult`, `ping` → `EmptyResult`, `tools/list`
/// → `ListToolsResult`, `tools/call` → `CallToolResult` (2025-11-25: or
/// `CreateTaskResult`; 2026-07-28: or `InputRequiredResult`), and so on
/// for prompts, resources, completions, `server/discover` and
/// `subscriptions/listen`.
///
/// Content block types are the revision's; `structuredContent` is an
/// object in 2025-06-18 and 2025-11-25 and any value in 2026-07-28; every
/// 2026-07-28 result carries `resultType`, and its cacheable results
/// `ttlMs` (an integer ≥ 0) and `cacheScope` (`public` or `private`). A
/// method the revision does not define has no result type: no violations.
pub fn validate_result(revision: Revision, method: &str, result: &Value) -> Vec<SchemaViolation> {
    let mut walk = walk::Walk::default();
    results::result_of(revision, method, &mut walk, result);
    walk.into_violations()
}

/// Every way `message` (one line a host wrote, parsed) breaks `revision`'s
/// rules for what a client sends: the envelope (`"jsonrpc": "2.0"`, one of
/// `result` and `error` in a response), the `params` of the requests and
/// notifications the revision defines for a client, and on 2026-07-28 the
/// `_meta` of every request. The result of a response is held to its
/// server request's type by [`validate_client_result`].
pub(crate) fn validate_client_message(revision: Revision, message: &Value) -> Vec<SchemaViolation> {
    let mut walk = walk::Walk::default();
    client::client_message(revision, &mut walk, message);
    walk.into_violations()
}

/// Every way `result` (a host's answer to the server request `method`)
/// breaks its type in `revision`: `ListRootsResult`, `CreateMessageResult`,
/// `ElicitResult`.
pub(crate) fn validate_client_result(
    revision: Revision,
    method: &str,
    result: &Value,
) -> Vec<SchemaViolation> {
    let mut walk = walk::Walk::default();
    client::client_result(revision, method, &mut walk, result);
    walk.into_violations()
}

/// Every way `structured` (a `tools/call` result's `structuredContent`)
/// breaks the `outputSchema` its tool declared (L25), by the crate's judge
/// of JSON Schema 2020-12 (`src/schema/`): what it cannot decide (a
/// pattern in a build without the `cli` feature, a reference out of the
/// schema) is not enforced, so a value a full validator accepts is never
/// refused.
pub fn validate_structured_content(
    output_schema: &Value,
    structured: &Value,
) -> Vec<SchemaViolation> {
    json_schema_violations(output_schema, structured)
        .into_iter()
        .map(|violation| SchemaViolation {
            pointer: violation.path,
            message: violation.message,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn violations_name_where_and_what() {
        let found = validate_result(
            Revision::V2024_11_05,
            "tools/list",
            &parse(r#"{"tools": [{"name": 7, "inputSchema": {"type": "object"}}]}"#),
        );
        assert_eq!(
            found,
            [SchemaViolation {
                pointer: "/tools/0/name".into(),
                message: "expected a string, found a number".into(),
            }]
        );
        assert_eq!(
            found[0].to_string(),
            "/tools/0/name: expected a string, found a number"
        );
    }

    #[test]
    fn structured_content_is_held_to_the_output_schema() {
        let schema = parse(
            r#"{"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}"#,
        );
        assert!(validate_structured_content(&schema, &parse(r#"{"sum": 3}"#)).is_empty());
        assert_eq!(
            validate_structured_content(&schema, &parse(r#"{"sum": "3"}"#)),
            [SchemaViolation {
                pointer: "/sum".into(),
                message: "expected a number, found a string".into(),
            }]
        );
        assert_eq!(
            validate_structured_content(&schema, &parse("{}"))[0].to_string(),
            "missing required property `sum`"
        );
    }

    #[test]
    fn a_line_and_its_result_are_judged_apart() {
        let line = parse(r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": 3}}"#);
        assert!(validate_server_message(Revision::V2024_11_05, &line).is_empty());
        assert_eq!(
            validate_result(Revision::V2024_11_05, "tools/list", &line["result"]).len(),
            1
        );
    }
}
