//! The requests a server sends to its client, per revision: `ping`,
//! `roots/list`, `sampling/createMessage`, `elicitation/create`
//! (2025-06-18 on) and the task requests of 2025-11-25.
//!
//! In 2026-07-28 a server writes no request at all (L40); the same three
//! kinds travel instead inside an `input_required` result, as
//! `{method, params}` objects without `jsonrpc` or `id`, and
//! [`input_request`] checks those.

use serde_json::{Map, Value};

use super::content::{ROLES, sampling_content};
use super::descriptors::tool;
use super::forms::field;
use super::walk::{
    Walk, exactly, id, integer, number, object, one_of, string, strings, unit_interval,
};
use crate::revision::Revision;

/// The `params` of a legacy server request (`params` is `None` when the
/// request has none). A method the revision does not define has no rules
/// beyond the envelope's.
pub(crate) fn request_params(
    revision: Revision,
    method: &str,
    walk: &mut Walk,
    params: Option<&Value>,
) {
    if !revision.server_request_methods().contains(&method) {
        return;
    }
    let needs_params = matches!(
        method,
        "sampling/createMessage"
            | "elicitation/create"
            | "tasks/get"
            | "tasks/result"
            | "tasks/cancel"
    );
    let Some(params) = params else {
        if needs_params {
            walk.fail("missing required property `params`");
        }
        return;
    };
    walk.at("params", |walk| {
        let Some(object) = walk.object(params) else {
            return;
        };
        // Before 2025-11-25 the envelope checks `_meta` on every request.
        let task_by_id = matches!(method, "tasks/get" | "tasks/result" | "tasks/cancel");
        if revision == Revision::V2025_11_25 && !task_by_id {
            walk.optional(object, "_meta", request_meta);
        }
        match method {
            "sampling/createMessage" => create_message(revision, walk, object),
            "elicitation/create" => elicit(revision, walk, params),
            "tasks/list" => walk.optional(object, "cursor", string),
            _ if task_by_id => walk.required(object, "taskId", string),
            _ => {}
        }
    });
}

/// A request's `params._meta`: an object whose `progressToken`, if any, is
/// a string or an integer.
pub(crate) fn request_meta(walk: &mut Walk, value: &Value) {
    if let Some(meta) = walk.object(value) {
        walk.optional(meta, "progressToken", id);
    }
}

/// One entry of an `input_required` result's `inputRequests` (2026-07-28).
pub(crate) fn input_request(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(request) = walk.object(value) else {
        return;
    };
    const KINDS: &[&str] = &["sampling/createMessage", "roots/list", "elicitation/create"];
    let Some(method) = request.get("method") else {
        walk.fail("missing required property `method`");
        return;
    };
    let method = match method.as_str() {
        Some(method) if KINDS.contains(&method) => method,
        _ => {
            walk.at("method", |walk| one_of(KINDS)(walk, method));
            return;
        }
    };
    match (method, request.get("params")) {
        ("roots/list", None) => {}
        ("roots/list", Some(params)) => walk.at("params", |walk| {
            if let Some(params) = walk.object(params) {
                walk.optional(params, "_meta", object);
            }
        }),
        (_, None) => walk.fail("missing required property `params`"),
        ("sampling/createMessage", Some(params)) => walk.at("params", |walk| {
            if let Some(params) = walk.object(params) {
                create_message(revision, walk, params);
            }
        }),
        (_, Some(params)) => walk.at("params", |walk| elicit(revision, walk, params)),
    }
}

/// `sampling/createMessage` params.
fn create_message(revision: Revision, walk: &mut Walk, params: &Map<String, Value>) {
    walk.required(params, "messages", |walk, value| {
        walk.array(value, |walk, value| sampling_message(revision, walk, value));
    });
    walk.required(params, "maxTokens", integer);
    walk.optional(params, "systemPrompt", string);
    walk.optional(
        params,
        "includeContext",
        one_of(&["none", "thisServer", "allServers"]),
    );
    walk.optional(params, "temperature", number);
    walk.optional(params, "stopSequences", strings);
    walk.optional(params, "metadata", object);
    walk.optional(params, "modelPreferences", |walk, value| {
        let Some(preferences) = walk.object(value) else {
            return;
        };
        walk.optional(preferences, "hints", |walk, value| {
            walk.array(value, |walk, value| {
                if let Some(hint) = walk.object(value) {
                    walk.optional(hint, "name", string);
                }
            });
        });
        for priority in ["costPriority", "speedPriority", "intelligencePriority"] {
            walk.optional(preferences, priority, unit_interval);
        }
    });
    if revision >= Revision::V2025_11_25 {
        walk.optional(params, "tools", |walk, value| {
            walk.array(value, |walk, value| tool(revision, walk, value));
        });
        walk.optional(params, "toolChoice", object);
    }
}

fn sampling_message(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(message) = walk.object(value) else {
        return;
    };
    walk.required(message, "role", one_of(ROLES));
    walk.required(message, "content", |walk, value| {
        sampling_content(revision, walk, value);
    });
    if revision >= Revision::V2025_11_25 {
        walk.optional(message, "_meta", object);
    }
}

/// `elicitation/create` params: a form (2025-06-18 on) or, from
/// 2025-11-25, a URL to open.
fn elicit(revision: Revision, walk: &mut Walk, params: &Value) {
    let form = |walk: &mut Walk, value: &Value| elicit_form(revision, walk, value);
    if revision < Revision::V2025_11_25 {
        form(walk, params);
        return;
    }
    let url = |walk: &mut Walk, value: &Value| {
        let Some(params) = walk.object(value) else {
            return;
        };
        walk.required(params, "message", string);
        walk.required(params, "mode", exactly("url"));
        walk.required(params, "url", string);
        if revision == Revision::V2025_11_25 {
            walk.required(params, "elicitationId", string);
        }
    };
    let looks_like_url = params.get("mode").and_then(Value::as_str) == Some("url");
    walk.any_of(params, &[&form, &url], usize::from(looks_like_url));
}

fn elicit_form(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(params) = walk.object(value) else {
        return;
    };
    walk.required(params, "message", string);
    if revision >= Revision::V2025_11_25 {
        walk.optional(params, "mode", exactly("form"));
    }
    walk.required(params, "requestedSchema", |walk, value| {
        let Some(schema) = walk.object(value) else {
            return;
        };
        walk.required(schema, "type", exactly("object"));
        walk.required(schema, "properties", |walk, value| {
            walk.map(value, |walk, value| field(revision, walk, value));
        });
        walk.optional(schema, "required", strings);
        if revision >= Revision::V2025_11_25 {
            walk.optional(schema, "$schema", string);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(revision: Revision, method: &str, params: Option<&str>) -> Vec<String> {
        let params: Option<Value> = params.map(|text| serde_json::from_str(text).unwrap());
        let mut walk = Walk::default();
        request_params(revision, method, &mut walk, params.as_ref());
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn sampling_needs_messages_and_a_token_budget() {
        assert_eq!(
            found(
                Revision::V2024_11_05,
                "sampling/createMessage",
                Some(
                    r#"{"messages": [{"role": "robot", "content": {"type": "text", "text": "hi"}}]}"#
                )
            ),
            [
                r#"/params/messages/0/role: expected one of "user", "assistant", found "robot""#,
                "/params: missing required property `maxTokens`"
            ]
        );
        assert_eq!(
            found(Revision::V2024_11_05, "sampling/createMessage", None),
            ["missing required property `params`"]
        );
    }

    #[test]
    fn elicitation_exists_from_2025_06_18_and_gains_urls() {
        let url = r#"{"mode": "url", "message": "sign in", "url": "https://example.com"}"#;
        // Unknown in 2025-03-26, so only the envelope applies.
        assert!(found(Revision::V2025_03_26, "elicitation/create", Some(url)).is_empty());
        assert_eq!(
            found(Revision::V2025_06_18, "elicitation/create", Some(url)),
            ["/params: missing required property `requestedSchema`"]
        );
        assert_eq!(
            found(Revision::V2025_11_25, "elicitation/create", Some(url)),
            ["/params: missing required property `elicitationId`"]
        );
    }

    #[test]
    fn input_requests_name_one_of_three_kinds() {
        let check = |text: &str| {
            let value: Value = serde_json::from_str(text).unwrap();
            let mut walk = Walk::default();
            input_request(Revision::V2026_07_28, &mut walk, &value);
            walk.into_violations()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        };
        assert!(check(r#"{"method": "roots/list"}"#).is_empty());
        assert_eq!(
            check(r#"{"method": "ping"}"#),
            [
                r#"/method: expected one of "sampling/createMessage", "roots/list", "elicitation/create", found "ping""#
            ]
        );
    }
}
