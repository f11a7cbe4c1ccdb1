//! One line a server wrote, as its revision's `JSONRPCMessage`: a response,
//! an error, a notification, a request (legacy revisions only) or, on
//! 2025-03-26, a batch of them.
//!
//! The envelope is checked as the schemas state it, and four rules more
//! (the module docs of [`crate::model`] say why): an error answering an
//! unreadable line (-32700, -32600) may carry a null or no `id` in every
//! revision; a response carries exactly one of `result` and `error`; a line
//! with a `method` and an `id` that is not null is a request, whose id must
//! be a string or an integer; and a 2026-07-28 server writes no request at
//! all. The `params` of the
//! notifications and requests the revision defines are checked too, as the
//! official `ServerNotification` and `ServerRequest` types hold them.

use serde_json::{Map, Value};

use super::requests::{request_meta, request_params};
use super::results::{result_meta, task};
use super::walk::{
    Walk, any, boolean, exactly, id, integer, number, object, one_of, string, strings,
};
use crate::jsonrpc::ErrorCode;
use crate::revision::Revision;

/// The log levels of `notifications/message`, from RFC 5424.
const LOG_LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// One parsed line, as a server may write it in `revision`.
pub(crate) fn server_message(revision: Revision, walk: &mut Walk, value: &Value) {
    match value {
        Value::Array(items) if revision.batches() => batch(revision, walk, items),
        Value::Array(_) => walk.fail(format!(
            "a batch (JSON array) is no message in {revision}: only 2025-03-26 has batches"
        )),
        other => single(revision, walk, other),
    }
}

/// A batch (2025-03-26): all responses, or all requests and notifications.
fn batch(revision: Revision, walk: &mut Walk, items: &[Value]) {
    let is_call = |item: &Value| item.get("method").is_some();
    let calls = items.iter().filter(|item| is_call(item)).count();
    if calls != 0 && calls != items.len() {
        walk.fail("a batch mixes responses with requests or notifications");
    }
    for (index, item) in items.iter().enumerate() {
        walk.at(&index.to_string(), |walk| single(revision, walk, item));
    }
}

fn single(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(message) = walk.object(value) else {
        return;
    };
    walk.required(message, "jsonrpc", exactly("2.0"));
    if let Some(method) = message.get("method") {
        let Some(method) = method.as_str() else {
            walk.at("method", |walk| string(walk, method));
            return;
        };
        // An id that is present and not null makes a request; a null id,
        // which no request may carry, leaves a notification.
        if message.get("id").is_some_and(|id| !id.is_null()) {
            request(revision, method, walk, message);
        } else {
            notification(revision, method, walk, message);
        }
    } else if message.contains_key("error") {
        if message.contains_key("result") {
            walk.fail("a response carries both `result` and `error` (JSON-RPC 2.0 §5)");
        }
        error_response(revision, walk, message);
    } else if message.contains_key("result") {
        walk.required(message, "id", id);
        walk.required(message, "result", |walk, value| {
            result(revision, walk, value)
        });
    } else {
        walk.fail(
            "no `method`, `result` or `error`: neither a request, a notification nor a response",
        );
    }
}

/// The generic `Result` every answer holds: an object, with `_meta` an
/// object; in 2026-07-28 also a `resultType` string and the server's
/// `Implementation` under its `_meta` key.
fn result(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(result) = walk.object(value) else {
        return;
    };
    if revision.is_modern() {
        walk.required(result, "resultType", string);
    }
    walk.optional(result, "_meta", |walk, value| {
        result_meta(revision, walk, value)
    });
}

/// An error response. Its `id` is a string or an integer; from 2025-11-25
/// it may be left out. An answer to an unreadable line (-32700, -32600)
/// may carry a null or no id in every revision: JSON-RPC 2.0 §5 asks for
/// null there, and no MCP schema can express that answer.
fn error_response(revision: Revision, walk: &mut Walk, message: &Map<String, Value>) {
    let code = message
        .get("error")
        .and_then(|error| error.get("code"))
        .and_then(Value::as_i64)
        .map(ErrorCode);
    let unreadable = matches!(
        code,
        Some(ErrorCode::PARSE_ERROR | ErrorCode::INVALID_REQUEST)
    );
    match message.get("id") {
        None if unreadable || revision.error_id_may_be_absent() => {}
        None => walk.fail(
            "missing required property `id` (before 2025-11-25 only the answer to an unreadable line, -32700 or -32600, may leave it out)",
        ),
        Some(Value::Null) if unreadable => {}
        Some(Value::Null) => walk.at("id", |walk| {
            walk.fail("expected a string or an integer, found null (only the answer to an unreadable line, -32700 or -32600, may carry a null id)");
        }),
        Some(value) => walk.at("id", |walk| id(walk, value)),
    }
    walk.required(message, "error", |walk, value| {
        let Some(error) = walk.object(value) else {
            return;
        };
        walk.required(error, "code", integer);
        walk.required(error, "message", string);
        walk.optional(error, "data", any);
    });
}

fn request(revision: Revision, method: &str, walk: &mut Walk, message: &Map<String, Value>) {
    if !revision.server_requests() {
        walk.fail(format!(
            "a request (`{method}`) written by the server: in {revision} a server sends none, it asks for input in an `input_required` result"
        ));
        return;
    }
    walk.required(message, "id", id);
    let params = message.get("params");
    if let Some(params) = params {
        walk.at("params", |walk| {
            let Some(params) = walk.object(params) else {
                return;
            };
            if revision < Revision::V2025_11_25 {
                walk.optional(params, "_meta", request_meta);
            }
        });
        if !params.is_object() {
            return;
        }
    }
    request_params(revision, method, walk, params);
}

fn notification(revision: Revision, method: &str, walk: &mut Walk, message: &Map<String, Value>) {
    let params = message.get("params");
    if let Some(params) = params {
        let is_object = walk.at("params", |walk| {
            let Some(params) = walk.object(params) else {
                return false;
            };
            if revision < Revision::V2025_11_25 {
                walk.optional(params, "_meta", object);
            }
            true
        });
        if !is_object {
            return;
        }
    }
    let Some(kind) = notification_kind(revision, method) else {
        return;
    };
    let Some(params) = params else {
        if kind.needs_params {
            walk.fail("missing required property `params`");
        }
        return;
    };
    walk.at("params", |walk| {
        let Some(params) = params.as_object() else {
            return;
        };
        // The one notification of 2025-11-25 whose params name no `_meta`.
        if revision >= Revision::V2025_11_25 && method != "notifications/elicitation/complete" {
            walk.optional(params, "_meta", |walk, value| {
                notification_meta(revision, walk, value)
            });
        }
        (kind.params)(revision, walk, params);
    });
}

/// What the revision says about one server notification.
struct NotificationKind {
    needs_params: bool,
    params: fn(Revision, &mut Walk, &Map<String, Value>),
}

fn notification_kind(revision: Revision, method: &str) -> Option<NotificationKind> {
    let kind = |needs_params, params| {
        Some(NotificationKind {
            needs_params,
            params,
        })
    };
    match method {
        "notifications/cancelled" => kind(true, cancelled),
        "notifications/progress" => kind(true, progress),
        "notifications/message" => kind(true, log_message),
        "notifications/resources/updated" => kind(true, |_, walk, params| {
            walk.required(params, "uri", string);
        }),
        "notifications/tools/list_changed"
        | "notifications/prompts/list_changed"
        | "notifications/resources/list_changed" => kind(false, |_, _, _| {}),
        "notifications/tasks/status" if revision == Revision::V2025_11_25 => kind(true, task),
        "notifications/elicitation/complete" if revision == Revision::V2025_11_25 => {
            kind(true, |_, walk, params| {
                walk.required(params, "elicitationId", string);
            })
        }
        "notifications/subscriptions/acknowledged" if revision.is_modern() => {
            kind(true, |_, walk, params| {
                walk.required(params, "notifications", subscription_filter);
            })
        }
        _ => None,
    }
}

/// A notification's `params._meta` (2025-11-25 on: an object; in
/// 2026-07-28 its subscription id is a request id).
fn notification_meta(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(meta) = walk.object(value) else {
        return;
    };
    if revision.is_modern() {
        walk.optional(meta, crate::revision::meta::SUBSCRIPTION_ID, id);
    }
}

fn cancelled(revision: Revision, walk: &mut Walk, params: &Map<String, Value>) {
    // 2025-11-25 lets a cancellation leave out the request id (a task is
    // cancelled by its own request).
    if revision == Revision::V2025_11_25 {
        walk.optional(params, "requestId", id);
    } else {
        walk.required(params, "requestId", id);
    }
    walk.optional(params, "reason", string);
}

fn progress(revision: Revision, walk: &mut Walk, params: &Map<String, Value>) {
    walk.required(params, "progressToken", id);
    walk.required(params, "progress", number);
    walk.optional(params, "total", number);
    if revision >= Revision::V2025_03_26 {
        walk.optional(params, "message", string);
    }
}

fn log_message(_: Revision, walk: &mut Walk, params: &Map<String, Value>) {
    walk.required(params, "level", one_of(LOG_LEVELS));
    walk.required(params, "data", any);
    walk.optional(params, "logger", string);
}

/// Which notifications a `subscriptions/listen` stream carries (2026-07-28).
fn subscription_filter(walk: &mut Walk, value: &Value) {
    let Some(filter) = walk.object(value) else {
        return;
    };
    for flag in [
        "toolsListChanged",
        "promptsListChanged",
        "resourcesListChanged",
    ] {
        walk.optional(filter, flag, boolean);
    }
    walk.optional(filter, "resourceSubscriptions", strings);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(revision: Revision, line: &str) -> Vec<String> {
        let value: Value = serde_json::from_str(line).unwrap();
        let mut walk = Walk::default();
        server_message(revision, &mut walk, &value);
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn answers_to_unreadable_lines_pass_in_either_form_in_every_revision() {
        for revision in Revision::ALL {
            for line in [
                r#"{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}}"#,
                r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "parse error"}}"#,
                r#"{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "invalid request"}}"#,
            ] {
                assert!(found(*revision, line).is_empty(), "{revision}: {line}");
            }
        }
    }

    #[test]
    fn other_errors_need_an_id_as_their_revision_says() {
        let no_id = r#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "no such method"}}"#;
        assert_eq!(found(Revision::V2025_06_18, no_id).len(), 1);
        assert!(found(Revision::V2025_11_25, no_id).is_empty());
        let null_id =
            r#"{"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "x"}}"#;
        for revision in Revision::ALL {
            assert_eq!(found(*revision, null_id).len(), 1, "{revision}");
        }
        assert_eq!(
            found(
                Revision::V2024_11_05,
                r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}}"#
            ),
            [
                "/error/code: expected an integer, found a string",
                "/error: missing required property `message`"
            ]
        );
    }

    #[test]
    fn a_response_has_one_of_result_and_error() {
        let both =
            r#"{"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}"#;
        assert_eq!(
            found(Revision::V2024_11_05, both),
            ["a response carries both `result` and `error` (JSON-RPC 2.0 §5)"]
        );
    }

    #[test]
    fn modern_results_carry_a_result_type_and_servers_send_no_requests() {
        let bare = r#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#;
        assert!(found(Revision::V2025_11_25, bare).is_empty());
        assert_eq!(
            found(Revision::V2026_07_28, bare),
            ["/result: missing required property `resultType`"]
        );
        let ping = r#"{"jsonrpc": "2.0", "id": "s1", "method": "ping"}"#;
        assert!(found(Revision::V2025_11_25, ping).is_empty());
        assert_eq!(found(Revision::V2026_07_28, ping).len(), 1);
    }

    #[test]
    fn notification_params_follow_their_method() {
        assert_eq!(
            found(
                Revision::V2024_11_05,
                r#"{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud"}}"#
            ),
            [
                r#"/params/level: expected one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", found "loud""#,
                "/params: missing required property `data`"
            ]
        );
        assert!(
            found(
                Revision::V2024_11_05,
                r#"{"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"level": 1}}"#
            )
            .is_empty()
        );
    }

    #[test]
    fn batches_exist_only_in_2025_03_26() {
        let batch = r#"[{"jsonrpc": "2.0", "id": 1, "result": {}}, {"jsonrpc": "2.0", "method": "notifications/progress"}]"#;
        assert_eq!(
            found(Revision::V2025_03_26, batch),
            [
                "a batch mixes responses with requests or notifications",
                "/1: missing required property `params`"
            ]
        );
        assert_eq!(found(Revision::V2025_06_18, batch).len(), 1);
    }
}
