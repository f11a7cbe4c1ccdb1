//! Resources: what a server lets the host read by URI, listed by
//! `resources/list` and `resources/templates/list` and read by
//! `resources/read` (MCP server/resources).
//!
//! A [`ResourceSet`] maps URIs to resources and keeps templates for the
//! URIs it cannot list one by one; each comes with a reader that turns a
//! URI into its contents. Lists come out sorted (resources by URI,
//! templates by URI template), so two calls give the same order.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::revision::Revision;

/// A resource as `resources/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Resource {
    /// The URI `resources/read` asks for.
    pub uri: String,
    /// The resource's name.
    pub name: String,
    /// A name for people to read (2025-06-18 on).
    pub title: Option<String>,
    /// What the resource holds, for the agent choosing it.
    pub description: Option<String>,
    /// The MIME type of its contents.
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    pub size: Option<u64>,
}

impl Resource {
    /// A resource from its two required parts.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Resource {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }
    }

    /// With a title for people to read.
    pub fn with_title(mut self, title: impl Into<String>) -> Resource {
        self.title = Some(title.into());
        self
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Resource {
        self.description = Some(description.into());
        self
    }

    /// With the MIME type of its contents.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Resource {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With its size in bytes.
    pub fn with_size(mut self, size: u64) -> Resource {
        self.size = Some(size);
        self
    }
}

/// A family of resources whose URIs follow an RFC 6570 template, as
/// `resources/templates/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The URI template, such as `notes://{id}`.
    pub uri_template: String,
    /// The family's name.
    pub name: String,
    /// A name for people to read (2025-06-18 on).
    pub title: Option<String>,
    /// What the resources hold.
    pub description: Option<String>,
    /// The MIME type of their contents, when they share one.
    pub mime_type: Option<String>,
}

impl ResourceTemplate {
    /// A template from its two required parts.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> ResourceTemplate {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
        }
    }

    /// With a title for people to read.
    pub fn with_title(mut self, title: impl Into<String>) -> ResourceTemplate {
        self.title = Some(title.into());
        self
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> ResourceTemplate {
        self.description = Some(description.into());
        self
    }

    /// With the MIME type of the resources' contents.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> ResourceTemplate {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Whether `uri` is one the template describes: its literal parts in
    /// order, and each `{expression}` a non-empty run of characters without
    /// `/` (`{+expression}` and `{#expression}` may hold `/`). A template
    /// with query expressions (`{?x}`) matches its literal start.
    pub(crate) fn matches(&self, uri: &str) -> bool {
        template_matches(&self.uri_template, uri)
    }
}

fn template_matches(template: &str, uri: &str) -> bool {
    let Some(open) = template.find('{') else {
        return template == uri;
    };
    let Some(rest) = uri.strip_prefix(&template[..open]) else {
        return false;
    };
    let Some(close) = template[open..].find('}').map(|at| open + at) else {
        return false;
    };
    let expression = &template[open + 1..close];
    let after = &template[close + 1..];
    // Query and fragment-continuation forms may be absent altogether.
    if let Some('?' | '&') = expression.chars().next() {
        return true;
    }
    let slashes = matches!(expression.chars().next(), Some('+' | '#'));
    // The expression takes at least one character, then the rest of the
    // template must match what follows; try each length.
    for (at, c) in rest.char_indices() {
        if c == '/' && !slashes {
            break;
        }
        if template_matches(after, &rest[at + c.len_utf8()..]) {
            return true;
        }
    }
    false
}

/// What reading a resource gives: text or binary contents under a URI.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The URI the contents are of.
        uri: String,
        /// Their MIME type.
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary contents, base64-encoded.
    Blob {
        /// The URI the contents are of.
        uri: String,
        /// Their MIME type.
        mime_type: Option<String>,
        /// The bytes, in base64.
        blob: String,
    },
}

impl ResourceContents {
    /// Text contents of `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> ResourceContents {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
        }
    }

    /// Binary contents of `uri`, already in base64.
    pub fn blob(uri: impl Into<String>, base64: impl Into<String>) -> ResourceContents {
        ResourceContents::Blob {
            uri: uri.into(),
            mime_type: None,
            blob: base64.into(),
        }
    }

    /// The same contents with a MIME type.
    pub fn with_mime_type(mut self, mime: impl Into<String>) -> ResourceContents {
        match &mut self {
            ResourceContents::Text { mime_type, .. } | ResourceContents::Blob { mime_type, .. } => {
                *mime_type = Some(mime.into());
            }
        }
        self
    }
}

impl Serialize for ResourceContents {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let (uri, mime_type, key, value) = match self {
            ResourceContents::Text {
                uri,
                mime_type,
                text,
            } => (uri, mime_type, "text", text),
            ResourceContents::Blob {
                uri,
                mime_type,
                blob,
            } => (uri, mime_type, "blob", blob),
        };
        map.serialize_entry("uri", uri)?;
        if let Some(mime_type) = mime_type {
            map.serialize_entry("mimeType", mime_type)?;
        }
        map.serialize_entry(key, value)?;
        map.end()
    }
}

/// Why a resource could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceError {
    /// There is no resource at the URI: -32002 through 2025-11-25, -32602
    /// on 2026-07-28 (MCP server/resources#error-handling).
    NotFound,
    /// Reading it failed: -32603 with this message.
    Failed(String),
}

/// What a resource reader answers.
pub type ReadResult = Result<Vec<ResourceContents>, ResourceError>;

type Reader = Box<dyn Fn(&str) -> ReadResult>;

/// The registry of resources and resource templates.
///
/// Registering a URI (or a URI template) again replaces the earlier entry.
/// `resources/read` reads a listed URI with its own reader; any other URI
/// goes to the templates that match it, in template order, until one
/// reader finds it.
#[derive(Default)]
pub struct ResourceSet {
    resources: BTreeMap<String, (Resource, Reader)>,
    templates: BTreeMap<String, (ResourceTemplate, Reader)>,
}

impl ResourceSet {
    /// An empty registry.
    pub fn new() -> ResourceSet {
        ResourceSet::default()
    }

    /// The registry with `resource` listed, read by `read` (which gets the
    /// URI asked for).
    pub fn with(
        mut self,
        resource: Resource,
        read: impl Fn(&str) -> ReadResult + 'static,
    ) -> ResourceSet {
        self.resources
            .insert(resource.uri.clone(), (resource, Box::new(read)));
        self
    }

    /// The registry with `template` listed, its URIs read by `read`, which
    /// answers [`ResourceError::NotFound`] for a URI that matches the
    /// template but names nothing.
    pub fn with_template(
        mut self,
        template: ResourceTemplate,
        read: impl Fn(&str) -> ReadResult + 'static,
    ) -> ResourceSet {
        self.templates
            .insert(template.uri_template.clone(), (template, Box::new(read)));
        self
    }

    /// Whether nothing is registered, neither resource nor template.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.templates.is_empty()
    }

    /// The resources, sorted by URI.
    pub fn resources(&self) -> impl Iterator<Item = &Resource> {
        self.resources.values().map(|(resource, _)| resource)
    }

    /// The templates, sorted by URI template.
    pub fn templates(&self) -> impl Iterator<Item = &ResourceTemplate> {
        self.templates.values().map(|(template, _)| template)
    }

    /// Reads `uri`.
    pub(crate) fn read(&self, uri: &str) -> ReadResult {
        if let Some((_, read)) = self.resources.get(uri) {
            return read(uri);
        }
        for (template, read) in self.templates.values() {
            if template.matches(uri) {
                match read(uri) {
                    Err(ResourceError::NotFound) => continue,
                    found => return found,
                }
            }
        }
        Err(ResourceError::NotFound)
    }
}

impl fmt::Debug for ResourceSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceSet")
            .field("resources", &self.resources.keys().collect::<Vec<_>>())
            .field("templates", &self.templates.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A resource or template serialized with only the fields its revision
/// knows.
pub(crate) struct Listed<'a, T> {
    pub item: &'a T,
    pub revision: Revision,
}

impl Serialize for Listed<'_, Resource> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.item;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("uri", &r.uri)?;
        map.serialize_entry("name", &r.name)?;
        if let Some(title) = r.title.as_ref().filter(|_| self.revision.titles()) {
            map.serialize_entry("title", title)?;
        }
        if let Some(description) = &r.description {
            map.serialize_entry("description", description)?;
        }
        if let Some(mime_type) = &r.mime_type {
            map.serialize_entry("mimeType", mime_type)?;
        }
        if let Some(size) = r.size {
            map.serialize_entry("size", &size)?;
        }
        map.end()
    }
}

impl Serialize for Listed<'_, ResourceTemplate> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let t = self.item;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("uriTemplate", &t.uri_template)?;
        map.serialize_entry("name", &t.name)?;
        if let Some(title) = t.title.as_ref().filter(|_| self.revision.titles()) {
            map.serialize_entry("title", title)?;
        }
        if let Some(description) = &t.description {
            map.serialize_entry("description", description)?;
        }
        if let Some(mime_type) = &t.mime_type {
            map.serialize_entry("mimeType", mime_type)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_their_literal_parts_and_one_segment_per_expression() {
        assert!(template_matches("notes://{id}", "notes://7"));
        assert!(!template_matches("notes://{id}", "notes://"));
        assert!(!template_matches("notes://{id}", "notes://a/b"));
        assert!(template_matches("notes://{+path}", "notes://a/b"));
        assert!(template_matches("n://{a}/x/{b}.md", "n://1/x/2.md"));
        assert!(!template_matches("n://{a}/x/{b}.md", "n://1/y/2.md"));
        assert!(template_matches("n://search{?q}", "n://search?q=1"));
        assert!(!template_matches("file:///{p}", "notes://x"));
    }

    #[test]
    fn a_listed_uri_is_read_by_its_reader_and_the_rest_by_matching_templates() {
        let set = ResourceSet::new()
            .with(Resource::new("notes://index", "index"), |uri| {
                Ok(vec![ResourceContents::text(uri, "all notes")])
            })
            .with_template(
                ResourceTemplate::new("notes://{id}", "note"),
                |uri| match uri.strip_prefix("notes://") {
                    Some("1") => Ok(vec![ResourceContents::text(uri, "first")]),
                    _ => Err(ResourceError::NotFound),
                },
            );
        let text = |result: ReadResult| match result {
            Ok(contents) => serde_json::to_value(&contents).unwrap()[0]["text"].clone(),
            Err(err) => serde_json::Value::String(format!("{err:?}")),
        };
        assert_eq!(text(set.read("notes://index")), "all notes");
        assert_eq!(text(set.read("notes://1")), "first");
        assert_eq!(text(set.read("notes://2")), "NotFound");
        assert_eq!(text(set.read("other://1")), "NotFound");
    }
}
