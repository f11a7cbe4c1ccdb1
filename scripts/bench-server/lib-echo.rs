//! The core library with only the `echo` tool, and with the capture guard
//! switched off when the first argument is `--no-capture`: it shows what the
//! capture costs per call, everything else being equal.

use mcp_replay::{ServeError, Server, Tool, ToolDescriptor, ToolOutput, ToolSet};
use serde_json::{Value, json};

struct Echo;

impl Tool for Echo {
    fn descriptor(&self) -> ToolDescriptor {
        let schema = json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The text to answer with."}},
            "required": ["text"],
            "additionalProperties": false
        });
        ToolDescriptor::new("echo", "Answers with the text it is given.", schema)
    }

    fn run(&self, args: &Value) -> ToolOutput {
        ToolOutput::ok(args["text"].as_str().unwrap_or_default())
    }
}

fn main() -> Result<(), ServeError> {
    let mut server = Server::new("lib-echo", "1.0.0", ToolSet::new().with(Echo));
    if std::env::args().nth(1).as_deref() == Some("--no-capture") {
        server = server.without_capture();
    }
    server.serve_stdio()
}
