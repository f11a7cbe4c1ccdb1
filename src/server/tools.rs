//! Tools and the registry that maps their names to them (MCP-CORE r1 §3).
//!
//! A tool is a descriptor (name, description, input schema) plus a `run`
//! that turns arguments into a [`ToolOutput`]. A tool that fails says so in
//! its output (`is_error`), never by a protocol error: the host's agent reads
//! the report either way (§3¶19).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::jsonrpc::RequestId;

/// What a tool tells a host about itself: the entry `tools/list` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolDescriptor {
    /// The name `tools/call` dispatches on.
    pub name: String,
    /// What the tool does, for the agent choosing it.
    pub description: String,
    /// The JSON Schema of the arguments: an object schema
    /// (`{"type":"object",...}`).
    pub input_schema: Value,
}

impl ToolDescriptor {
    /// A descriptor from its three parts.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> ToolDescriptor {
        ToolDescriptor {
            name: name.into(),
            description: description.into(),
            input_schema,
        }
    }
}

/// What one tool run produced: a text report, and whether the run failed.
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
}

impl ToolOutput {
    /// A successful run.
    pub fn ok(report: impl Into<String>) -> ToolOutput {
        ToolOutput {
            report: report.into(),
            is_error: false,
            append_capture: false,
        }
    }

    /// A failed run: the report says what went wrong.
    pub fn error(report: impl Into<String>) -> ToolOutput {
        ToolOutput {
            report: report.into(),
            is_error: true,
            append_capture: false,
        }
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

    /// The answer to the `tools/call` request `id`, as one line written
    /// into `line`: the report as one text content item, and `isError`.
    ///
    /// Every call answers one, so the line is written directly, with only
    /// the id and the report going through the JSON serializer.
    pub(crate) fn answer_line(&self, id: &RequestId, mut line: Vec<u8>) -> Vec<u8> {
        line.reserve(96 + self.report.len());
        line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut line, id).expect("an id always serializes");
        line.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
        serde_json::to_writer(&mut line, &self.report).expect("a string always serializes");
        let end: &[u8] = if self.is_error {
            br#"}],"isError":true}}"#
        } else {
            br#"}],"isError":false}}"#
        };
        line.extend_from_slice(end);
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
    /// The tool's name, description and input schema.
    fn descriptor(&self) -> ToolDescriptor;

    /// Runs the tool. `args` is always a JSON object that satisfies the
    /// input schema.
    fn run(&self, args: &Value) -> ToolOutput;
}

/// A tool in the registry: its descriptor, taken once at registration.
struct Entry {
    descriptor: ToolDescriptor,
    tool: Box<dyn Tool>,
}

/// The registry: tool names mapped to tools, in name order. The last
/// registration of a name wins (MCP-CORE r1 §3¶18).
#[derive(Default)]
pub struct ToolSet {
    entries: BTreeMap<String, Entry>,
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
        let entry = Entry {
            descriptor,
            tool: Box::new(tool),
        };
        self.entries.insert(entry.descriptor.name.clone(), entry);
    }

    /// The registry with `tool` registered, for building one in an
    /// expression.
    pub fn with(mut self, tool: impl Tool + 'static) -> ToolSet {
        self.insert(tool);
        self
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
    pub(crate) fn get(&self, name: &str) -> Option<(&ToolDescriptor, &dyn Tool)> {
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
        assert_eq!(tool.run(&json!({})).report, "second");
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
        let line = ToolOutput::error("broken").answer_line(&RequestId::number(3), Vec::new());
        assert_eq!(
            String::from_utf8(line).unwrap(),
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"broken"}],"isError":true}}"#
        );
        let report = "line\n\t\"quoted\" \\ \u{7} ✓";
        let line = ToolOutput::ok(report).answer_line(&RequestId::string("a\"b"), Vec::new());
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
