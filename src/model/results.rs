//! The result of each method, per revision (the digest's §8 map).
//!
//! A method the revision does not define has no result type, so any
//! result of it passes. In 2026-07-28 every result carries `resultType`:
//! `complete`, or `input_required` on `tools/call`, `prompts/get` and
//! `resources/read`, which then is an `InputRequiredResult` (L38, L42);
//! and the complete results of the list methods, `resources/read` and
//! `server/discover` carry the cache hints `ttlMs` (an integer ≥ 0) and
//! `cacheScope` (`public` or `private`) (L39).

use serde_json::{Map, Value};

use super::content::{content_block, prompt_message, resource_contents};
use super::descriptors::{
    implementation, prompt, resource, resource_template, server_capabilities, tool,
};
use super::requests::input_request;
use super::walk::{Walk, any, boolean, id, integer, object, one_of, string, strings};
use crate::revision::{Revision, meta};

/// The result of `method` in `revision`.
pub(crate) fn result_of(revision: Revision, method: &str, walk: &mut Walk, value: &Value) {
    if !revision.client_methods().contains(&method) {
        return;
    }
    let Some(result) = walk.object(value) else {
        return;
    };
    walk.optional(result, "_meta", |walk, value| {
        result_meta(revision, walk, value)
    });
    if revision.is_modern() {
        match result.get("resultType") {
            None => walk.fail("missing required property `resultType`"),
            Some(Value::String(kind)) if kind == "complete" => {}
            Some(Value::String(kind))
                if kind == "input_required" && revision.may_require_input(method) =>
            {
                input_required(revision, walk, result);
                return;
            }
            Some(Value::String(kind)) => walk.at("resultType", |walk| {
                walk.fail(format!(
                    "`{method}` results are \"complete\"{}, not \"{kind}\"",
                    if revision.may_require_input(method) {
                        " or \"input_required\""
                    } else {
                        ""
                    }
                ));
            }),
            Some(other) => walk.at("resultType", |walk| string(walk, other)),
        }
        if revision.cacheable(method) {
            walk.required(result, "ttlMs", |walk, value| {
                if value.as_f64().is_some_and(|ms| ms < 0.0) {
                    walk.fail(format!("expected an integer ≥ 0, found {value}"));
                } else {
                    integer(walk, value);
                }
            });
            walk.required(result, "cacheScope", one_of(&["public", "private"]));
        }
    }
    match method {
        "initialize" => {
            walk.required(result, "protocolVersion", string);
            walk.required(result, "capabilities", |walk, value| {
                server_capabilities(revision, walk, value);
            });
            walk.required(result, "serverInfo", |walk, value| {
                implementation(revision, walk, value);
            });
            walk.optional(result, "instructions", string);
        }
        "server/discover" => {
            walk.required(result, "supportedVersions", strings);
            walk.required(result, "capabilities", |walk, value| {
                server_capabilities(revision, walk, value);
            });
            walk.optional(result, "instructions", string);
        }
        "tools/list" => list(walk, result, "tools", |walk, value| {
            tool(revision, walk, value);
        }),
        "prompts/list" => list(walk, result, "prompts", |walk, value| {
            prompt(revision, walk, value);
        }),
        "resources/list" => list(walk, result, "resources", |walk, value| {
            resource(revision, walk, value);
        }),
        "resources/templates/list" => list(walk, result, "resourceTemplates", |walk, value| {
            resource_template(revision, walk, value);
        }),
        "tasks/list" => list(walk, result, "tasks", |walk, value| {
            if let Some(value) = walk.object(value) {
                task(revision, walk, value);
            }
        }),
        "tools/call" if revision == Revision::V2025_11_25 => {
            // A task-augmented call answers with the task it created.
            let call = |walk: &mut Walk, value: &Value| call_tool(revision, walk, value);
            let created = |walk: &mut Walk, value: &Value| {
                if let Some(result) = walk.object(value) {
                    walk.required(result, "task", |walk, value| {
                        if let Some(value) = walk.object(value) {
                            task(revision, walk, value);
                        }
                    });
                }
            };
            let looks_created = result.contains_key("task") && !result.contains_key("content");
            walk.any_of(value, &[&call, &created], usize::from(looks_created));
        }
        "tools/call" => call_tool(revision, walk, value),
        "prompts/get" => {
            walk.optional(result, "description", string);
            walk.required(result, "messages", |walk, value| {
                walk.array(value, |walk, value| prompt_message(revision, walk, value));
            });
        }
        "resources/read" => walk.required(result, "contents", |walk, value| {
            walk.array(value, |walk, value| {
                resource_contents(revision, walk, value)
            });
        }),
        "completion/complete" => walk.required(result, "completion", |walk, value| {
            let Some(completion) = walk.object(value) else {
                return;
            };
            walk.required(completion, "values", |walk, value| {
                strings(walk, value);
                let count = value.as_array().map_or(0, Vec::len);
                if revision.is_modern() && count > 100 {
                    walk.fail(format!("expected at most 100 values, found {count}"));
                }
            });
            walk.optional(completion, "total", integer);
            walk.optional(completion, "hasMore", boolean);
        }),
        "subscriptions/listen" => walk.required(result, "_meta", |walk, value| {
            if let Some(listen_meta) = walk.object(value) {
                walk.required(listen_meta, meta::SUBSCRIPTION_ID, id);
            }
        }),
        "tasks/get" | "tasks/cancel" => task(revision, walk, result),
        // `ping`, `logging/setLevel`, `resources/(un)subscribe`, and
        // `tasks/result` (the payload of the task's own request): the
        // generic result.
        _ => {}
    }
}

/// A page of a list: the items under `key` and an optional `nextCursor`.
fn list(
    walk: &mut Walk,
    result: &Map<String, Value>,
    key: &str,
    item: impl FnMut(&mut Walk, &Value),
) {
    walk.required(result, key, |walk, value| walk.array(value, item));
    walk.optional(result, "nextCursor", string);
}

/// `CallToolResult`: content blocks, `isError`, and from 2025-06-18
/// `structuredContent` (an object until 2025-11-25, any value from
/// 2026-07-28).
fn call_tool(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(result) = walk.object(value) else {
        return;
    };
    walk.required(result, "content", |walk, value| {
        walk.array(value, |walk, value| content_block(revision, walk, value));
    });
    walk.optional(result, "isError", boolean);
    if revision.structured_output() {
        if revision.is_modern() {
            walk.optional(result, "structuredContent", any);
        } else {
            walk.optional(result, "structuredContent", object);
        }
    }
}

/// `InputRequiredResult` (2026-07-28): what the server needs before it can
/// answer.
fn input_required(revision: Revision, walk: &mut Walk, result: &Map<String, Value>) {
    walk.optional(result, "inputRequests", |walk, value| {
        walk.map(value, |walk, value| input_request(revision, walk, value));
    });
    walk.optional(result, "requestState", string);
}

/// A task (2025-11-25, experimental): its id, status and times.
pub(crate) fn task(_: Revision, walk: &mut Walk, task: &Map<String, Value>) {
    walk.required(task, "taskId", string);
    walk.required(
        task,
        "status",
        one_of(&[
            "working",
            "input_required",
            "completed",
            "failed",
            "cancelled",
        ]),
    );
    walk.required(task, "createdAt", string);
    walk.required(task, "lastUpdatedAt", string);
    walk.required(task, "ttl", |walk, value| {
        if !value.is_null() {
            integer(walk, value);
        }
    });
    walk.optional(task, "pollInterval", integer);
    walk.optional(task, "statusMessage", string);
}

/// A result's `_meta`: an object; in 2026-07-28 its
/// `io.modelcontextprotocol/serverInfo` is an `Implementation`.
pub(crate) fn result_meta(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(meta) = walk.object(value) else {
        return;
    };
    if revision.is_modern() {
        walk.optional(meta, crate::revision::meta::SERVER_INFO, |walk, value| {
            implementation(revision, walk, value);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(revision: Revision, method: &str, result: &str) -> Vec<String> {
        let value: Value = serde_json::from_str(result).unwrap();
        let mut walk = Walk::default();
        result_of(revision, method, &mut walk, &value);
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn methods_the_revision_lacks_have_no_result_type() {
        assert!(found(Revision::V2024_11_05, "server/discover", "[]").is_empty());
        assert!(found(Revision::V2026_07_28, "initialize", "7").is_empty());
        assert!(found(Revision::V2024_11_05, "x/unknown", "7").is_empty());
        assert_eq!(
            found(Revision::V2024_11_05, "ping", "7"),
            ["expected an object, found a number"]
        );
    }

    #[test]
    fn modern_list_results_carry_a_result_type_and_cache_hints() {
        let legacy = r#"{"tools": []}"#;
        assert!(found(Revision::V2025_11_25, "tools/list", legacy).is_empty());
        assert_eq!(
            found(Revision::V2026_07_28, "tools/list", legacy),
            [
                "missing required property `resultType`",
                "missing required property `ttlMs`",
                "missing required property `cacheScope`"
            ]
        );
        let bad_hints =
            r#"{"tools": [], "resultType": "complete", "ttlMs": -1, "cacheScope": "shared"}"#;
        assert_eq!(
            found(Revision::V2026_07_28, "tools/list", bad_hints),
            [
                "/ttlMs: expected an integer ≥ 0, found -1",
                r#"/cacheScope: expected one of "public", "private", found "shared""#
            ]
        );
    }

    #[test]
    fn structured_content_is_an_object_until_2026() {
        let array = r#"{"content": [], "structuredContent": [1, 2], "resultType": "complete"}"#;
        assert!(found(Revision::V2025_03_26, "tools/call", array).is_empty());
        assert_eq!(
            found(Revision::V2025_06_18, "tools/call", array),
            ["/structuredContent: expected an object, found an array"]
        );
        assert!(found(Revision::V2026_07_28, "tools/call", array).is_empty());
    }

    #[test]
    fn input_required_only_where_a_request_may_ask() {
        let asking = r#"{"resultType": "input_required", "requestState": "s"}"#;
        assert!(found(Revision::V2026_07_28, "tools/call", asking).is_empty());
        assert_eq!(
            found(Revision::V2026_07_28, "completion/complete", asking),
            [
                r#"/resultType: `completion/complete` results are "complete", not "input_required""#,
                "missing required property `completion`"
            ]
        );
    }

    #[test]
    fn a_task_call_answers_with_its_task() {
        let created = r#"{"task": {"taskId": "t", "status": "working", "createdAt": "a", "lastUpdatedAt": "b", "ttl": null}}"#;
        assert!(found(Revision::V2025_11_25, "tools/call", created).is_empty());
        assert_eq!(
            found(Revision::V2025_06_18, "tools/call", created),
            ["missing required property `content`"]
        );
    }
}
