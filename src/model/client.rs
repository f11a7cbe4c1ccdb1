//! What a client may write in each revision, for the host laws: the
//! envelope of every message a host writes, the `params` of the requests
//! and notifications the revision defines for a client, and the results it
//! answers the server's requests with.
//!
//! As for the server's side, a property a type does not name is never
//! looked at, and a method the revision does not define has only the
//! envelope's rules: JSON-RPC lets a host call methods of its own. What the
//! envelope leaves to other laws is left out here: whether an id is a
//! string or an integer (`host-request-ids`), whether `ping` was answered
//! `{}` (`host-answers-server-requests`).

use serde_json::{Map, Value};

use super::content::{ROLES, sampling_content};
use super::descriptors::implementation;
use super::walk::{Walk, id, integer, number, object, one_of, string};
use crate::revision::{Revision, meta};

/// The levels `logging/setLevel` takes (RFC 5424's names).
const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// One message a client wrote (parsed): a request, a notification or a
/// response, with `"jsonrpc": "2.0"`.
pub(crate) fn client_message(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(message) = walk.object(value) else {
        return;
    };
    match message.get("jsonrpc") {
        Some(Value::String(version)) if version == "2.0" => {}
        Some(_) => walk.at("jsonrpc", |walk| walk.fail("expected \"2.0\"")),
        None => walk.fail("missing required property `jsonrpc`"),
    }
    match message.get("method") {
        Some(Value::String(method)) => {
            let request = message.get("id").is_some_and(|id| !id.is_null());
            let params = message.get("params");
            if request {
                request_params(revision, method, walk, params);
            } else {
                notification_params(revision, method, walk, params);
            }
        }
        Some(method) => walk.at("method", |walk| string(walk, method)),
        None => response(walk, message),
    }
}

/// A response: exactly one of `result` and `error`; an error with an
/// integer `code` and a string `message`. The result's type is its
/// method's ([`client_result`]), which the line alone does not name.
fn response(walk: &mut Walk, message: &Map<String, Value>) {
    match (message.get("result"), message.get("error")) {
        (Some(_), Some(_)) => walk.fail("a response has `result` or `error`, not both"),
        (None, None) => walk.fail(
            "missing required property `method` (a message), or `result` or `error` (a response)",
        ),
        (Some(result), None) => walk.at("result", |walk| object(walk, result)),
        (None, Some(error)) => walk.at("error", |walk| {
            if let Some(error) = walk.object(error) {
                walk.required(error, "code", integer);
                walk.required(error, "message", string);
            }
        }),
    }
}

/// The `params` of a request, for the methods the revision defines; on
/// 2026-07-28 every request's `params._meta` names the protocol version and
/// the client capabilities.
fn request_params(revision: Revision, method: &str, walk: &mut Walk, params: Option<&Value>) {
    let modern = revision.requires_request_meta();
    let Some(params) = params else {
        let needs = modern
            || revision.client_methods().contains(&method)
                && matches!(
                    method,
                    "initialize"
                        | "tools/call"
                        | "prompts/get"
                        | "resources/read"
                        | "resources/subscribe"
                        | "resources/unsubscribe"
                        | "completion/complete"
                        | "logging/setLevel"
                );
        if needs {
            walk.fail("missing required property `params`");
        }
        return;
    };
    walk.at("params", |walk| {
        let Some(params) = walk.object(params) else {
            return;
        };
        if modern {
            walk.required(params, "_meta", |walk, value| {
                let Some(meta) = walk.object(value) else {
                    return;
                };
                walk.required(meta, meta::PROTOCOL_VERSION, string);
                walk.required(meta, meta::CLIENT_CAPABILITIES, |walk, value| {
                    client_capabilities(revision, walk, value)
                });
                walk.optional(meta, meta::CLIENT_INFO, |walk, value| {
                    implementation(revision, walk, value)
                });
                walk.optional(meta, meta::PROGRESS_TOKEN, id);
            });
        } else {
            walk.optional(params, "_meta", |walk, value| {
                if let Some(meta) = walk.object(value) {
                    walk.optional(meta, meta::PROGRESS_TOKEN, id);
                }
            });
        }
        if !revision.client_methods().contains(&method) {
            return;
        }
        match method {
            "initialize" => {
                walk.required(params, "protocolVersion", string);
                walk.required(params, "capabilities", |walk, value| {
                    client_capabilities(revision, walk, value)
                });
                walk.required(params, "clientInfo", |walk, value| {
                    implementation(revision, walk, value)
                });
            }
            "tools/call" => {
                walk.required(params, "name", string);
                walk.optional(params, "arguments", object);
                if modern {
                    walk.optional(params, "inputResponses", |walk, value| {
                        walk.map(value, |walk, value| input_response(revision, walk, value))
                    });
                    walk.optional(params, "requestState", string);
                }
            }
            "prompts/get" => {
                walk.required(params, "name", string);
                walk.optional(params, "arguments", |walk, value| walk.map(value, string));
                if modern {
                    walk.optional(params, "inputResponses", |walk, value| {
                        walk.map(value, |walk, value| input_response(revision, walk, value))
                    });
                    walk.optional(params, "requestState", string);
                }
            }
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                walk.required(params, "uri", string);
                if modern && method == "resources/read" {
                    walk.optional(params, "inputResponses", |walk, value| {
                        walk.map(value, |walk, value| input_response(revision, walk, value))
                    });
                    walk.optional(params, "requestState", string);
                }
            }
            "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
                walk.optional(params, "cursor", string);
            }
            "completion/complete" => {
                walk.required(params, "ref", |walk, value| {
                    if let Some(reference) = walk.object(value) {
                        walk.required(reference, "type", string);
                    }
                });
                walk.required(params, "argument", |walk, value| {
                    if let Some(argument) = walk.object(value) {
                        walk.required(argument, "name", string);
                        walk.required(argument, "value", string);
                    }
                });
            }
            "logging/setLevel" => walk.required(params, "level", one_of(LEVELS)),
            "subscriptions/listen" => walk.required(params, "notifications", object),
            _ => {}
        }
    });
}

/// The `params` of a notification a client sends, for those the revision
/// defines.
fn notification_params(revision: Revision, method: &str, walk: &mut Walk, params: Option<&Value>) {
    let needs = matches!(method, "notifications/cancelled" | "notifications/progress");
    let Some(params) = params else {
        if needs {
            walk.fail("missing required property `params`");
        }
        return;
    };
    walk.at("params", |walk| {
        let Some(params) = walk.object(params) else {
            return;
        };
        match method {
            "notifications/cancelled" => {
                // 2025-11-25 made the id optional (a task is cancelled by
                // `tasks/cancel`); every other revision requires it.
                if revision == Revision::V2025_11_25 {
                    walk.optional(params, "requestId", id);
                } else {
                    walk.required(params, "requestId", id);
                }
                walk.optional(params, "reason", string);
            }
            "notifications/progress" => {
                walk.required(params, "progressToken", id);
                walk.required(params, "progress", number);
                walk.optional(params, "total", number);
                if revision >= Revision::V2025_03_26 {
                    walk.optional(params, "message", string);
                }
            }
            _ => {}
        }
    });
}

/// `ClientCapabilities`: each capability the revision names is an object
/// when present.
fn client_capabilities(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(capabilities) = walk.object(value) else {
        return;
    };
    walk.optional(capabilities, "roots", |walk, value| {
        if let Some(roots) = walk.object(value) {
            walk.optional(roots, "listChanged", super::walk::boolean);
        }
    });
    walk.optional(capabilities, "sampling", object);
    walk.optional(capabilities, "experimental", object);
    if revision >= Revision::V2025_06_18 {
        walk.optional(capabilities, "elicitation", object);
    }
}

/// One value of a 2026-07-28 retry's `inputResponses`: the result of the
/// input request of the same key (a sampling, roots or elicitation result).
fn input_response(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(response) = walk.object(value) else {
        return;
    };
    if response.contains_key("roots") {
        list_roots(walk, response);
    } else if response.contains_key("action") {
        elicit(walk, response);
    } else {
        create_message(revision, walk, response);
    }
}

/// Every way `result` breaks the result type of the server request
/// `method` in `revision`: `roots/list` → `ListRootsResult`,
/// `sampling/createMessage` → `CreateMessageResult`, `elicitation/create`
/// → `ElicitResult`; any other method's result is an object.
pub(crate) fn client_result(revision: Revision, method: &str, walk: &mut Walk, value: &Value) {
    let Some(result) = walk.object(value) else {
        return;
    };
    match method {
        "roots/list" => list_roots(walk, result),
        "sampling/createMessage" => create_message(revision, walk, result),
        "elicitation/create" if revision >= Revision::V2025_06_18 => elicit(walk, result),
        _ => {}
    }
}

/// `ListRootsResult`: `roots`, each with a `file://` `uri` and maybe a
/// `name`.
fn list_roots(walk: &mut Walk, result: &Map<String, Value>) {
    walk.required(result, "roots", |walk, value| {
        walk.array(value, |walk, value| {
            let Some(root) = walk.object(value) else {
                return;
            };
            walk.required(root, "uri", |walk, value| match value.as_str() {
                Some(uri) if uri.starts_with("file://") => {}
                Some(_) => walk.fail("a root's `uri` must be a file:// URI"),
                None => string(walk, value),
            });
            walk.optional(root, "name", string);
        });
    });
}

/// `CreateMessageResult`: `role`, `content` and `model`.
fn create_message(revision: Revision, walk: &mut Walk, result: &Map<String, Value>) {
    walk.required(result, "role", one_of(ROLES));
    walk.required(result, "content", |walk, value| {
        sampling_content(revision, walk, value)
    });
    walk.required(result, "model", string);
    walk.optional(result, "stopReason", string);
}

/// `ElicitResult`: an `action`, and the `content` accepted.
fn elicit(walk: &mut Walk, result: &Map<String, Value>) {
    walk.required(result, "action", one_of(&["accept", "decline", "cancel"]));
    walk.optional(result, "content", object);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn found(revision: Revision, message: Value) -> Vec<String> {
        let mut walk = Walk::default();
        client_message(revision, &mut walk, &message);
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn result_found(revision: Revision, method: &str, result: Value) -> Vec<String> {
        let mut walk = Walk::default();
        client_result(revision, method, &mut walk, &result);
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_legacy_session_of_an_sdk_client_is_valid() {
        let legacy = Revision::V2025_11_25;
        for message in [
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}}}, "clientInfo": {"name": "host", "version": "1.0.0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": 2}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "timeout"}}),
            json!({"jsonrpc": "2.0", "id": "s-1", "result": {}}),
            json!({"jsonrpc": "2.0", "id": "s-2", "error": {"code": -32601, "message": "no"}}),
        ] {
            assert_eq!(
                found(legacy, message.clone()),
                Vec::<String>::new(),
                "{message}"
            );
        }
    }

    #[test]
    fn broken_messages_are_named_where_they_break() {
        let legacy = Revision::V2025_06_18;
        for (message, expected) in [
            (json!([]), "expected an object, found an array"),
            (
                json!({"id": 1, "method": "ping"}),
                "missing required property `jsonrpc`",
            ),
            (
                json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}),
                "/jsonrpc: expected \"2.0\"",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
                "/params: missing required property `clientInfo`",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 7}}),
                "/params/name: expected a string, found a number",
            ),
            (
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}),
                "/params: missing required property `requestId`",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 3, "result": {}, "error": {"code": 1, "message": "x"}}),
                "a response has `result` or `error`, not both",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 3, "error": {"code": "bad", "message": "x"}}),
                "/error/code: expected an integer",
            ),
        ] {
            let found = found(legacy, message.clone()).join("; ");
            assert!(found.contains(expected), "{message}: `{found}`");
        }
    }

    #[test]
    fn a_modern_request_carries_its_meta() {
        let modern = Revision::V2026_07_28;
        let meta = json!({meta::PROTOCOL_VERSION: "2026-07-28", meta::CLIENT_CAPABILITIES: {}});
        assert_eq!(
            found(
                modern,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            found(
                modern,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            ),
            ["missing required property `params`"]
        );
        assert_eq!(
            found(
                modern,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {meta::PROTOCOL_VERSION: "2026-07-28"}}})
            ),
            [
                "/params/_meta: missing required property `io.modelcontextprotocol/clientCapabilities`"
            ]
        );
    }

    #[test]
    fn results_to_server_requests_have_their_types() {
        let revision = Revision::V2025_06_18;
        assert!(
            result_found(
                revision,
                "roots/list",
                json!({"roots": [{"uri": "file:///w", "name": "w"}]})
            )
            .is_empty()
        );
        assert_eq!(
            result_found(
                revision,
                "roots/list",
                json!({"roots": [{"uri": "https://x"}]})
            ),
            ["/roots/0/uri: a root's `uri` must be a file:// URI"]
        );
        assert!(
            result_found(
                revision,
                "sampling/createMessage",
                json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"})
            )
            .is_empty()
        );
        assert_eq!(
            result_found(
                revision,
                "sampling/createMessage",
                json!({"role": "assistant", "content": {"type": "text", "text": "hi"}})
            ),
            ["missing required property `model`"]
        );
        assert!(
            result_found(revision, "elicitation/create", json!({"action": "decline"})).is_empty()
        );
        assert!(
            !result_found(revision, "elicitation/create", json!({"action": "maybe"})).is_empty()
        );
    }
}
