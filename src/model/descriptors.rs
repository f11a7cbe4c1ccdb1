//! What a server says about itself and what it offers: `Implementation`,
//! icons, capabilities, and the descriptors of tools, resources, resource
//! templates and prompts, per revision.
//!
//! The fields grow with the revisions: tool `annotations` from 2025-03-26;
//! `title`, `_meta` and `outputSchema` from 2025-06-18; `icons` from
//! 2025-11-25 (and a tool's `execution` in 2025-11-25 only); from 2026-07-28
//! a tool's schemas are any JSON Schema object whose root (for the input)
//! is an object.

use serde_json::Value;

use super::content::{annotations, has_meta, icons};
use super::walk::{Walk, boolean, exactly, integer, object, one_of, string, strings};
use crate::revision::Revision;

/// Who a server or client is: `name` and `version`, and from 2025-06-18 a
/// `title`, from 2025-11-25 icons, a website and a description.
pub(crate) fn implementation(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(implementation) = walk.object(value) else {
        return;
    };
    walk.required(implementation, "name", string);
    walk.required(implementation, "version", string);
    if revision.titles() {
        walk.optional(implementation, "title", string);
    }
    if revision >= Revision::V2025_11_25 {
        walk.optional(implementation, "icons", icons);
        walk.optional(implementation, "websiteUrl", string);
        walk.optional(implementation, "description", string);
    }
}

/// What the server can do, as `initialize` and `server/discover` say.
pub(crate) fn server_capabilities(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(capabilities) = walk.object(value) else {
        return;
    };
    let objects = |walk: &mut Walk, value: &Value| walk.map(value, object);
    walk.optional(capabilities, "experimental", objects);
    walk.optional(capabilities, "logging", object);
    if revision >= Revision::V2025_03_26 {
        walk.optional(capabilities, "completions", object);
    }
    let flags = |names: &'static [&'static str]| {
        move |walk: &mut Walk, value: &Value| {
            if let Some(feature) = walk.object(value) {
                for name in names {
                    walk.optional(feature, name, boolean);
                }
            }
        }
    };
    walk.optional(capabilities, "prompts", flags(&["listChanged"]));
    walk.optional(
        capabilities,
        "resources",
        flags(&["listChanged", "subscribe"]),
    );
    walk.optional(capabilities, "tools", flags(&["listChanged"]));
    if revision == Revision::V2025_11_25 {
        walk.optional(capabilities, "tasks", |walk, value| {
            let Some(tasks) = walk.object(value) else {
                return;
            };
            walk.optional(tasks, "cancel", object);
            walk.optional(tasks, "list", object);
            walk.optional(tasks, "requests", |walk, value| {
                let Some(requests) = walk.object(value) else {
                    return;
                };
                walk.optional(requests, "tools", |walk, value| {
                    if let Some(tools) = walk.object(value) {
                        walk.optional(tools, "call", object);
                    }
                });
            });
        });
    }
    if revision.is_modern() {
        walk.optional(capabilities, "extensions", objects);
    }
}

/// One entry of `tools/list`.
pub(crate) fn tool(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(tool) = walk.object(value) else {
        return;
    };
    walk.required(tool, "name", string);
    walk.optional(tool, "description", string);
    walk.required(tool, "inputSchema", |walk, value| {
        tool_schema(revision, true, walk, value);
    });
    if revision.tool_annotations() {
        walk.optional(tool, "annotations", |walk, value| {
            let Some(annotations) = walk.object(value) else {
                return;
            };
            walk.optional(annotations, "title", string);
            for hint in [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ] {
                walk.optional(annotations, hint, boolean);
            }
        });
    }
    if revision.titles() {
        walk.optional(tool, "title", string);
    }
    if revision.structured_output() {
        walk.optional(tool, "outputSchema", |walk, value| {
            tool_schema(revision, false, walk, value);
        });
    }
    if has_meta(revision) {
        walk.optional(tool, "_meta", object);
    }
    if revision >= Revision::V2025_11_25 {
        walk.optional(tool, "icons", icons);
    }
    if revision == Revision::V2025_11_25 {
        walk.optional(tool, "execution", |walk, value| {
            if let Some(execution) = walk.object(value) {
                walk.optional(
                    execution,
                    "taskSupport",
                    one_of(&["forbidden", "optional", "required"]),
                );
            }
        });
    }
}

/// A tool's `inputSchema` (`input`) or `outputSchema`. Until 2025-11-25
/// both are objects with `type: "object"`, `properties` of schema objects
/// and `required` names; from 2026-07-28 the input keeps only the root
/// `type: "object"`, and the output may be any schema object.
fn tool_schema(revision: Revision, input: bool, walk: &mut Walk, value: &Value) {
    let Some(schema) = walk.object(value) else {
        return;
    };
    if revision >= Revision::V2025_11_25 {
        walk.optional(schema, "$schema", string);
    }
    if revision.is_modern() {
        if input {
            walk.required(schema, "type", exactly("object"));
        }
        return;
    }
    walk.required(schema, "type", exactly("object"));
    walk.optional(schema, "properties", |walk, value| walk.map(value, object));
    walk.optional(schema, "required", strings);
}

/// The fields every resource, resource template and prompt descriptor has:
/// `name`, `description`, and from 2025-06-18 `title` and `_meta`, from
/// 2025-11-25 `icons`.
fn named(revision: Revision, walk: &mut Walk, descriptor: &serde_json::Map<String, Value>) {
    walk.required(descriptor, "name", string);
    walk.optional(descriptor, "description", string);
    if revision.titles() {
        walk.optional(descriptor, "title", string);
    }
    if has_meta(revision) {
        walk.optional(descriptor, "_meta", object);
    }
    if revision >= Revision::V2025_11_25 {
        walk.optional(descriptor, "icons", icons);
    }
}

/// One entry of `resources/list`.
pub(crate) fn resource(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(resource) = walk.object(value) else {
        return;
    };
    walk.required(resource, "uri", string);
    named(revision, walk, resource);
    walk.optional(resource, "mimeType", string);
    walk.optional(resource, "size", integer);
    walk.optional(resource, "annotations", |walk, value| {
        annotations(revision, walk, value);
    });
}

/// One entry of `resources/templates/list`.
pub(crate) fn resource_template(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(template) = walk.object(value) else {
        return;
    };
    walk.required(template, "uriTemplate", string);
    named(revision, walk, template);
    walk.optional(template, "mimeType", string);
    walk.optional(template, "annotations", |walk, value| {
        annotations(revision, walk, value);
    });
}

/// One entry of `prompts/list`.
pub(crate) fn prompt(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(prompt) = walk.object(value) else {
        return;
    };
    named(revision, walk, prompt);
    walk.optional(prompt, "arguments", |walk, value| {
        walk.array(value, |walk, value| {
            let Some(argument) = walk.object(value) else {
                return;
            };
            walk.required(argument, "name", string);
            walk.optional(argument, "description", string);
            walk.optional(argument, "required", boolean);
            if revision.titles() {
                walk.optional(argument, "title", string);
            }
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(
        check: impl FnOnce(Revision, &mut Walk, &Value),
        revision: Revision,
        value: &str,
    ) -> Vec<String> {
        let value: Value = serde_json::from_str(value).unwrap();
        let mut walk = Walk::default();
        check(revision, &mut walk, &value);
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_tool_needs_a_name_and_an_object_input_schema() {
        let tool_json = r#"{"inputSchema": {"type": "array"}}"#;
        assert_eq!(
            found(tool, Revision::V2024_11_05, tool_json),
            [
                "missing required property `name`",
                r#"/inputSchema/type: expected "object", found "array""#
            ]
        );
    }

    #[test]
    fn output_schemas_are_free_from_2026_07_28() {
        let tool_json = r#"{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}"#;
        assert_eq!(
            found(tool, Revision::V2025_06_18, tool_json),
            [r#"/outputSchema/type: expected "object", found "array""#]
        );
        assert!(found(tool, Revision::V2026_07_28, tool_json).is_empty());
        // Before 2025-06-18 the field is unknown, so anything goes.
        assert!(found(tool, Revision::V2025_03_26, tool_json).is_empty());
    }

    #[test]
    fn annotations_are_hints_of_the_right_type() {
        let tool_json = r#"{"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}}"#;
        assert!(found(tool, Revision::V2024_11_05, tool_json).is_empty());
        assert_eq!(
            found(tool, Revision::V2025_03_26, tool_json),
            ["/annotations/readOnlyHint: expected a boolean, found a string"]
        );
    }

    #[test]
    fn implementations_and_capabilities() {
        assert_eq!(
            found(
                implementation,
                Revision::V2025_11_25,
                r#"{"name": "s", "icons": [{}]}"#
            ),
            [
                "missing required property `version`",
                "/icons/0: missing required property `src`"
            ]
        );
        assert_eq!(
            found(
                server_capabilities,
                Revision::V2024_11_05,
                r#"{"tools": {"listChanged": "no"}, "logging": []}"#
            ),
            [
                "/logging: expected an object, found an array",
                "/tools/listChanged: expected a boolean, found a string"
            ]
        );
    }
}
