//! Content blocks, resource contents and their annotations, per revision.
//!
//! A tool result and a prompt message carry content blocks; which `type`s
//! exist is the revision's (L27: 2024-11-05 `text`, `image`, `resource`;
//! 2025-03-26 adds `audio`; 2025-06-18 adds `resource_link`), as
//! [`Revision::content_types`] lists them. From 2025-06-18 every block may
//! carry `_meta`, and annotations gain `lastModified`.

use serde_json::{Map, Value};

use super::walk::{Walk, boolean, integer, object, one_of, quoted, string, strings, unit_interval};
use crate::revision::Revision;

/// Who a message or an annotation is for.
pub(crate) const ROLES: &[&str] = &["user", "assistant"];

/// Whether the revision defines `_meta` on content blocks, resource
/// contents and the descriptors of tools, resources and prompts.
pub(crate) fn has_meta(revision: Revision) -> bool {
    revision >= Revision::V2025_06_18
}

/// One content block of a tool result or a prompt message.
pub(crate) fn content_block(revision: Revision, walk: &mut Walk, value: &Value) {
    block_of(revision, revision.content_types(), "", walk, value);
}

/// One content block of a sampling message: text, image and (2025-03-26
/// on) audio; from 2025-11-25 also a tool call and its result, alone or in
/// a list.
pub(crate) fn sampling_content(revision: Revision, walk: &mut Walk, value: &Value) {
    let allowed: &[&str] = match revision {
        Revision::V2024_11_05 => &["text", "image"],
        Revision::V2025_03_26 | Revision::V2025_06_18 => &["text", "image", "audio"],
        _ => &["text", "image", "audio", "tool_use", "tool_result"],
    };
    let block = |walk: &mut Walk, value: &Value| {
        block_of(revision, allowed, " in a sampling message", walk, value)
    };
    if revision >= Revision::V2025_11_25 && value.is_array() {
        walk.array(value, block);
    } else {
        block(walk, value);
    }
}

/// A content block whose `type` is one of `allowed`; `place` says where
/// the block is, for the message that names a type out of place.
fn block_of(revision: Revision, allowed: &[&str], place: &str, walk: &mut Walk, value: &Value) {
    let Some(block) = walk.object(value) else {
        return;
    };
    let kind = match block.get("type") {
        Some(Value::String(kind)) if allowed.contains(&kind.as_str()) => kind.as_str(),
        Some(Value::String(kind)) => {
            walk.at("type", |walk| {
                walk.fail(format!(
                    "content type \"{kind}\" does not exist{place} in {revision} (it has {})",
                    quoted(allowed)
                ));
            });
            return;
        }
        Some(other) => {
            walk.at("type", |walk| string(walk, other));
            return;
        }
        None => {
            walk.fail("missing required property `type`");
            return;
        }
    };
    match kind {
        "text" => walk.required(block, "text", string),
        "image" | "audio" => {
            walk.required(block, "data", string);
            walk.required(block, "mimeType", string);
        }
        "resource" => walk.required(block, "resource", |walk, value| {
            resource_contents(revision, walk, value);
        }),
        "tool_use" | "tool_result" => {
            tool_exchange(revision, kind, walk, block);
            // These two name no annotations.
            walk.optional(block, "_meta", object);
            return;
        }
        _ => {
            // `resource_link`: a resource descriptor with a `type`.
            walk.required(block, "name", string);
            walk.required(block, "uri", string);
            walk.optional(block, "title", string);
            walk.optional(block, "description", string);
            walk.optional(block, "mimeType", string);
            walk.optional(block, "size", integer);
            if revision >= Revision::V2025_11_25 {
                walk.optional(block, "icons", icons);
            }
        }
    }
    walk.optional(block, "annotations", |walk, value| {
        annotations(revision, walk, value);
    });
    if has_meta(revision) {
        walk.optional(block, "_meta", object);
    }
}

/// A tool call a model asks for in a sampling result (`tool_use`), or the
/// result the client sends back (`tool_result`), 2025-11-25 on.
fn tool_exchange(revision: Revision, kind: &str, walk: &mut Walk, block: &Map<String, Value>) {
    if kind == "tool_use" {
        walk.required(block, "id", string);
        walk.required(block, "name", string);
        walk.required(block, "input", object);
        return;
    }
    walk.required(block, "toolUseId", string);
    walk.required(block, "content", |walk, value| {
        walk.array(value, |walk, value| content_block(revision, walk, value));
    });
    walk.optional(block, "isError", boolean);
    if !revision.is_modern() {
        walk.optional(block, "structuredContent", object);
    }
}

/// The annotations of a content block or a resource: who it is for, how
/// much it matters, and (2025-06-18 on) when it last changed.
pub(crate) fn annotations(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(annotations) = walk.object(value) else {
        return;
    };
    walk.optional(annotations, "audience", |walk, value| {
        walk.array(value, one_of(ROLES));
    });
    walk.optional(annotations, "priority", unit_interval);
    if revision >= Revision::V2025_06_18 {
        walk.optional(annotations, "lastModified", string);
    }
}

/// The contents of a resource: text or a base64 blob, with its URI.
pub(crate) fn resource_contents(revision: Revision, walk: &mut Walk, value: &Value) {
    let text = |walk: &mut Walk, value: &Value| contents_of(revision, "text", walk, value);
    let blob = |walk: &mut Walk, value: &Value| contents_of(revision, "blob", walk, value);
    let looks_like_blob = value.get("blob").is_some() && value.get("text").is_none();
    walk.any_of(value, &[&text, &blob], usize::from(looks_like_blob));
}

fn contents_of(revision: Revision, body: &str, walk: &mut Walk, value: &Value) {
    let Some(contents) = walk.object(value) else {
        return;
    };
    walk.required(contents, "uri", string);
    walk.required(contents, body, string);
    walk.optional(contents, "mimeType", string);
    if has_meta(revision) {
        walk.optional(contents, "_meta", object);
    }
}

/// A prompt message: a role and one content block.
pub(crate) fn prompt_message(revision: Revision, walk: &mut Walk, value: &Value) {
    let Some(message) = walk.object(value) else {
        return;
    };
    walk.required(message, "role", one_of(ROLES));
    walk.required(message, "content", |walk, value| {
        content_block(revision, walk, value);
    });
}

/// A list of icons (2025-11-25 on).
pub(crate) fn icons(walk: &mut Walk, value: &Value) {
    walk.array(value, |walk, value| {
        let Some(icon) = walk.object(value) else {
            return;
        };
        walk.required(icon, "src", string);
        walk.optional(icon, "mimeType", string);
        walk.optional(icon, "sizes", strings);
        walk.optional(icon, "theme", one_of(&["light", "dark"]));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(revision: Revision, block: &str) -> Vec<String> {
        let value: Value = serde_json::from_str(block).unwrap();
        let mut walk = Walk::default();
        content_block(revision, &mut walk, &value);
        walk.into_violations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn audio_arrives_in_2025_03_26() {
        let audio = r#"{"type": "audio", "data": "AAA=", "mimeType": "audio/wav"}"#;
        assert_eq!(
            found(Revision::V2024_11_05, audio),
            [
                r#"/type: content type "audio" does not exist in 2024-11-05 (it has "text", "image", "resource")"#
            ]
        );
        assert!(found(Revision::V2025_03_26, audio).is_empty());
    }

    #[test]
    fn resource_links_need_a_name_and_a_uri() {
        let link = r#"{"type": "resource_link", "uri": "file:///a", "size": 1.5}"#;
        assert_eq!(
            found(Revision::V2025_06_18, link),
            [
                "missing required property `name`",
                "/size: expected an integer, found a number"
            ]
        );
        assert_eq!(found(Revision::V2025_03_26, link).len(), 1);
    }

    #[test]
    fn embedded_resources_hold_text_or_a_blob() {
        let embedded = r#"{"type": "resource", "resource": {"uri": "file:///a", "blob": 7}}"#;
        assert_eq!(
            found(Revision::V2024_11_05, embedded),
            ["/resource/blob: expected a string, found a number"]
        );
        let text = r#"{"type": "resource", "resource": {"uri": "file:///a", "text": "hi"}}"#;
        assert!(found(Revision::V2024_11_05, text).is_empty());
    }

    #[test]
    fn annotations_and_meta_follow_the_revision() {
        let block = r#"{"type": "text", "text": "x", "_meta": 1, "annotations": {"priority": 2, "lastModified": 3}}"#;
        assert_eq!(
            found(Revision::V2025_03_26, block),
            ["/annotations/priority: expected a number from 0 to 1, found 2"]
        );
        assert_eq!(
            found(Revision::V2025_06_18, block),
            [
                "/annotations/priority: expected a number from 0 to 1, found 2",
                "/annotations/lastModified: expected a string, found a number",
                "/_meta: expected an object, found a number"
            ]
        );
    }
}
