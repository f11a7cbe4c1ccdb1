//! Tools and the registry that maps their names to them (MCP-CORE r1 §3).
//!
//! A tool is a descriptor (name, description, input schema, and the
//! optional `title`, `annotations` and `outputSchema` of the later
//! revisions) plus a `run` that turns arguments into a [`ToolOutput`]. A
//! tool that fails says so in its output (`is_error`), never by a protocol
//! error: the host's agent reads the report either way (§3¶19).

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use super::context::Context;
use crate::jsonrpc::RequestId;
use crate::revision::Revision;

/// What a tool tells a host about itself: the entry `tools/list` returns.
///
/// `tools/list` shows each field only to the revisions that know it:
/// `annotations` from 2025-03-26, `title` and `outputSchema` from
/// 2025-06-18.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolDescriptor {
    /// The name `tools/call` dispatches on.
    pub name: String,
    /// A name for people to read (2025-06-18 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the agent choosing it.
    pub description: String,
    /// The JSON Schema of the arguments: an object schema
    /// (`{"type":"object",...}`).
    pub input_schema: Value,
    /// The JSON Schema of the tool's structured output (2025-06-18 on). A
    /// tool that declares one answers every successful call with
    /// [`ToolOutput::structured`] content that satisfies it; the loop
    /// checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Hints about the tool's behaviour (2025-03-26 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
}

impl ToolDescriptor {
    /// A descriptor from its three required parts.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> ToolDescriptor {
        ToolDescriptor {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            annotations: None,
        }
    }

    /// The same descriptor with a title for people to read.
    pub fn with_title(mut self, title: impl Into<String>) -> ToolDescriptor {
        self.title = Some(title.into());
        self
    }

    /// The same descriptor with hints about the tool's behaviour.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> ToolDescriptor {
        self.annotations = Some(annotations);
        self
    }

    /// The same descriptor with the JSON Schema of the tool's structured
    /// output. The revisions before 2026-07-28 want an object schema
    /// (`{"type":"object",...}`).
    pub fn with_output_schema(mut self, output_schema: Value) -> ToolDescriptor {
        self.output_schema = Some(output_schema);
        self
    }

    /// The descriptor as `revision` knows it, for `tools/list`.
    pub(crate) fn listed(&self, revision: Revision) -> Listed<'_> {
        Listed {
            descriptor: self,
            revision,
        }
    }
}

/// A descriptor serialized with only the fields its revision knows.
pub(crate) struct Listed<'a> {
    descriptor: &'a ToolDescriptor,
    revision: Revision,
}

impl Serialize for Listed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (d, revision) = (self.descriptor, self.revision);
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &d.name)?;
        if let Some(title) = d.title.as_ref().filter(|_| revision.titles()) {
            map.serialize_entry("title", title)?;
        }
        map.serialize_entry("description", &d.description)?;
        map.serialize_entry("inputSchema", &d.input_schema)?;
        if let Some(schema) = d
            .output_schema
            .as_ref()
            .filter(|_| revision.structured_output())
        {
            map.serialize_entry("outputSchema", schema)?;
        }
        if let Some(annotations) = d
            .annotations
            .as_ref()
            .filter(|_| revision.tool_annotations())
        {
            map.serialize_entry("annotations", annotations)?;
        }
        map.end()
    }
}

/// Hints about how a tool behaves, for the host to show or to weigh
/// (2025-03-26 on). They are hints: a host must not trust them for safety.
///
/// Unset hints are left out, and a host then assumes the spec's defaults
/// (not read-only, destructive, not idempotent, open world).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A name for people to read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Whether the tool changes nothing in its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// Whether the tool may destroy what it changes (meaningful when it is
    /// not read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Whether calling the tool again with the same arguments changes
    /// nothing more (meaningful when it is not read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// Whether the tool reaches an open world (the web, say) rather than a
    /// closed one (its own data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// No hints.
    pub fn new() -> ToolAnnotations {
        ToolAnnotations::default()
    }

    /// With a title for people to read.
    pub fn title(mut self, title: impl Into<String>) -> ToolAnnotations {
        self.title = Some(title.into());
        self
    }

    /// With `readOnlyHint`.
    pub fn read_only(mut self, hint: bool) -> ToolAnnotations {
        self.read_only_hint = Some(hint);
        self
    }

    /// With `destructiveHint`.
    pub fn destructive(mut self, hint: bool) -> ToolAnnotations {
        self.destructive_hint = Some(hint);
        self
    }

    /// With `idempotentHint`.
    pub fn idempotent(mut self, hint: bool) -> ToolAnnotations {
        self.idempotent_hint = Some(hint);
        self
    }

    /// With `openWorldHint`.
    pub fn open_world(mut self, hint: bool) -> ToolAnnotations {
        self.open_world_hint = Some(hint);
        self
    }
}

/// What one tool run produced: a text report, whether the run failed, and
/// optionally structured content.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolOutput {
    /// The report the host's agent reads.
    pub report: String,
    /// Whether the run failed; the answer then carries `isError: true`.
    pub is_error: bool,
    /// Whether what the capture guard caught during the run is appended to
    /// the report (instead of being passed on to the process's stderr).
    pub append_capture: bool,
    /// The structured result (`structuredContent`, 2025-06-18 on); the
    /// revisions before leave it out and get the report alone.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// A successful run.
    pub fn ok(report: impl Into<String>) -> ToolOutput {
        ToolOutput {
            report: report.into(),
            is_error: false,
            append_capture: false,
            structured: None,
        }
    }

    /// A failed run: the report says what went wrong.
    pub fn error(report: impl Into<String>) -> ToolOutput {
        ToolOutput {
            report: report.into(),
            is_error: true,
            append_capture: false,
            structured: None,
        }
    }

    /// A successful run with a structured result: `value` goes out as the
    /// answer's `structuredContent`, and serialized as its text report, as
    /// the spec recommends for hosts that read only the text.
    pub fn structured(value: Value) -> ToolOutput {
        ToolOutput::ok(value.to_string()).with_structured(value)
    }

    /// The same output with `value` as its structured result, keeping the
    /// report as it is.
    pub fn with_structured(mut self, value: Value) -> ToolOutput {
        self.structured = Some(value);
        self
    }

    /// The same output, asking the serve loop to append what the run wrote
    /// on stderr (its children included) to the report.
    ///
    /// This is how a tool that wraps a runner shows the runner's own words:
    /// the capture is only complete once `run` has returned, so the loop
    /// does the appending. The report takes at most the last mebibyte of
    /// what the run wrote, starting at a line; the start goes on to the
    /// process's stderr, and the report says how many bytes went there.
    pub fn with_capture(mut self) -> ToolOutput {
        self.append_capture = true;
        self
    }

    /// The answer to the `tools/call` request `id` under `revision`, as one
    /// line written into `line`: the report as one text content item,
    /// `isError`, the structured content where the revision knows it, and,
    /// on a modern request, `resultType` and `meta` (the result's `_meta`,
    /// already serialized).
    ///
    /// Every call answers one, so the line is written directly, with only
    /// the id, the report and the structured content going through the JSON
    /// serializer.
    pub(crate) fn answer_line(
        &self,
        id: &RequestId,
        revision: Revision,
        meta: &str,
        mut line: Vec<u8>,
    ) -> Vec<u8> {
        line.reserve(96 + self.report.len());
        line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut line, id).expect("an id always serializes");
        line.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
        serde_json::to_writer(&mut line, &self.report).expect("a string always serializes");
        line.extend_from_slice(if self.is_error {
            br#"}],"isError":true"#
        } else {
            br#"}],"isError":false"#
        });
        if let Some(structured) = self.structured.as_ref().filter(|value| {
            // Before 2026-07-28 `structuredContent` is an object; anything
            // else is left out, and the text carries it.
            revision.structured_output() && (revision.is_modern() || value.is_object())
        }) {
            line.extend_from_slice(br#","structuredContent":"#);
            serde_json::to_writer(&mut line, structured).expect("a value always serializes");
        }
        if revision.requires_result_type() {
            line.extend_from_slice(br#","resultType":"complete","_meta":"#);
            line.extend_from_slice(meta.as_bytes());
        }
        line.extend_from_slice(b"}}");
        line
    }
}

/// A tool a server offers.
///
/// `run` receives the `arguments` of a `tools/call`, already checked against
/// the descriptor's input schema. It must not prompt: there is no terminal
/// and stdin is not its to read (MCP-CORE r1 §5¶28); anything that would ask
/// is a parameter. Whatever it writes to stderr, or to stdout while the
/// server serves stdio, is caught by the capture guard.
pub trait Tool {
    /// The tool's name, description and schemas.
    fn descriptor(&self) -> ToolDescriptor;

    /// Runs the tool. `args` is always a JSON object that satisfies the
    /// input schema.
    fn run(&self, args: &Value) -> ToolOutput;
}

/// How the registry runs a tool: a [`Tool`], or a handler with typed
/// arguments and a [`Context`].
pub(crate) trait Run {
    fn run(&self, args: &Value, cx: &mut Context<'_>) -> ToolOutput;
}

/// A [`Tool`] as the registry runs it.
struct Plain<T>(T);

impl<T: Tool> Run for Plain<T> {
    fn run(&self, args: &Value, _cx: &mut Context<'_>) -> ToolOutput {
        self.0.run(args)
    }
}

/// A handler whose arguments are read into `A`.
struct Typed<A, F> {
    /// The tool's name, for the report of arguments `A` refuses.
    name: String,
    handler: F,
    args: PhantomData<fn() -> A>,
}

impl<A, F> Run for Typed<A, F>
where
    A: DeserializeOwned,
    F: Fn(A, &mut Context<'_>) -> ToolOutput,
{
    fn run(&self, args: &Value, cx: &mut Context<'_>) -> ToolOutput {
        match A::deserialize(args) {
            Ok(args) => (self.handler)(args, cx),
            // The arguments passed the schema but not the type: the agent
            // reads why, as it would a schema violation (MCP-CORE r1 §3¶19).
            Err(err) => ToolOutput::error(format!("invalid arguments for `{}`: {err}", self.name)),
        }
    }
}

/// A tool in the registry: its descriptor, taken once at registration.
struct Registered {
    descriptor: ToolDescriptor,
    tool: Box<dyn Run>,
}

/// The registry: tool names mapped to tools, in name order. The last
/// registration of a name wins (MCP-CORE r1 §3¶18).
#[derive(Default)]
pub struct ToolSet {
    entries: BTreeMap<String, Registered>,
}

impl ToolSet {
    /// An empty registry.
    pub fn new() -> ToolSet {
        ToolSet::default()
    }

    /// Registers `tool` under its descriptor's name, replacing any tool
    /// registered under that name before.
    pub fn insert(&mut self, tool: impl Tool + 'static) {
        let descriptor = tool.descriptor();
        self.insert_entry(descriptor, Box::new(Plain(tool)));
    }

    /// The registry with `tool` registered, for building one in an
    /// expression.
    pub fn with(mut self, tool: impl Tool + 'static) -> ToolSet {
        self.insert(tool);
        self
    }

    /// Registers a tool whose arguments are read into `A`, replacing any
    /// tool registered under the descriptor's name before.
    ///
    /// The loop checks the arguments against the descriptor's input schema
    /// first, then reads them into `A`; arguments that `A` does not take
    /// are a failed run (`isError: true`) whose report says why, never a
    /// JSON-RPC error. `handler` gets the arguments and a [`Context`]
    /// through which it can send progress and log messages before its
    /// answer. With `A` = [`Value`], it gets the arguments as they came.
    ///
    /// ```
    /// use mcp_replay::{Context, ToolDescriptor, ToolOutput, ToolSet};
    /// use serde::Deserialize;
    /// use serde_json::json;
    ///
    /// #[derive(Deserialize)]
    /// struct Add {
    ///     a: f64,
    ///     b: f64,
    /// }
    ///
    /// let schema = json!({
    ///     "type": "object",
    ///     "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    ///     "required": ["a", "b"]
    /// });
    /// let tools = ToolSet::new().with_typed(
    ///     ToolDescriptor::new("add", "Adds two numbers", schema),
    ///     |args: Add, _cx: &mut Context<'_>| ToolOutput::ok((args.a + args.b).to_string()),
    /// );
    /// assert_eq!(tools.len(), 1);
    /// ```
    pub fn insert_typed<A, F>(&mut self, descriptor: ToolDescriptor, handler: F)
    where
        A: DeserializeOwned + 'static,
        F: Fn(A, &mut Context<'_>) -> ToolOutput + 'static,
    {
        let typed = Typed {
            name: descriptor.name.clone(),
            handler,
            args: PhantomData,
        };
        self.insert_entry(descriptor, Box::new(typed));
    }

    /// The registry with a typed tool registered (see
    /// [`insert_typed`](Self::insert_typed)), for building one in an
    /// expression.
    pub fn with_typed<A, F>(mut self, descriptor: ToolDescriptor, handler: F) -> ToolSet
    where
        A: DeserializeOwned + 'static,
        F: Fn(A, &mut Context<'_>) -> ToolOutput + 'static,
    {
        self.insert_typed(descriptor, handler);
        self
    }

    fn insert_entry(&mut self, descriptor: ToolDescriptor, tool: Box<dyn Run>) {
        let entry = Registered { descriptor, tool };
        self.entries.insert(entry.descriptor.name.clone(), entry);
    }

    /// The descriptors, sorted by name.
    pub fn descriptors(&self) -> impl Iterator<Item = &ToolDescriptor> {
        self.entries.values().map(|entry| &entry.descriptor)
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the registry is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tool registered under `name`, with its descriptor.
    pub(crate) fn get(&self, name: &str) -> Option<(&ToolDescriptor, &dyn Run)> {
        self.entries
            .get(name)
            .map(|entry| (&entry.descriptor, entry.tool.as_ref()))
    }
}

impl fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Named {
        name: &'static str,
        report: &'static str,
    }

    impl Tool for Named {
        fn descriptor(&self) -> ToolDescriptor {
            ToolDescriptor::new(self.name, "test", json!({"type": "object"}))
        }

        fn run(&self, _args: &Value) -> ToolOutput {
            ToolOutput::ok(self.report)
        }
    }

    /// MCP-CORE r1 §3¶18: the last registration of a name wins.
    #[test]
    fn last_registration_of_a_name_wins() {
        let tools = ToolSet::new()
            .with(Named {
                name: "a",
                report: "first",
            })
            .with(Named {
                name: "a",
                report: "second",
            });
        assert_eq!(tools.len(), 1);
        let (_, tool) = tools.get("a").expect("registered");
        let mut transport = crate::transcript::ReplayTransport::from_lines(Vec::<Vec<u8>>::new());
        let mut cx = Context::new(
            &mut transport,
            Revision::V2024_11_05,
            None,
            super::super::context::LogGate::Off,
            Default::default(),
        );
        assert_eq!(tool.run(&json!({}), &mut cx).report, "second");
    }

    /// MCP-CORE r1 §2¶15: descriptors come out sorted by name, whatever the
    /// registration order.
    #[test]
    fn descriptors_come_out_sorted_by_name() {
        let tools = ToolSet::new()
            .with(Named {
                name: "zeta",
                report: "",
            })
            .with(Named {
                name: "alpha",
                report: "",
            })
            .with(Named {
                name: "mid",
                report: "",
            });
        let names: Vec<_> = tools.descriptors().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["alpha", "mid", "zeta"]);
    }

    /// MCP-CORE r1 §3¶17, ¶19: the descriptor and the result use the wire
    /// names, and a failure is a result with `isError: true`.
    #[test]
    fn descriptor_and_result_use_the_wire_names() {
        let descriptor = ToolDescriptor::new("t", "d", json!({"type": "object"}));
        assert_eq!(
            serde_json::to_value(&descriptor).unwrap(),
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object"}})
        );
        let line = ToolOutput::error("broken").answer_line(
            &RequestId::number(3),
            Revision::V2024_11_05,
            "",
            Vec::new(),
        );
        assert_eq!(
            String::from_utf8(line).unwrap(),
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"broken"}],"isError":true}}"#
        );
        let report = "line\n\t\"quoted\" \\ \u{7} ✓";
        let line = ToolOutput::ok(report).answer_line(
            &RequestId::string("a\"b"),
            Revision::V2024_11_05,
            "",
            Vec::new(),
        );
        assert_eq!(
            serde_json::from_slice::<Value>(&line).unwrap(),
            json!({
                "jsonrpc": "2.0",
                "id": "a\"b",
                "result": {"content": [{"type": "text", "text": report}], "isError": false}
            })
        );
    }
}
