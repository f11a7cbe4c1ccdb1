//! The smallest useful server on mcp-replay's core library: one tool, `greet`.
//! `docs/server-library.md` walks through it.

use mcp_replay::{ServeError, Server, Tool, ToolDescriptor, ToolOutput, ToolSet};
use serde_json::{Value, json};

struct Greet;

impl Tool for Greet {
    fn descriptor(&self) -> ToolDescriptor {
        let schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        });
        ToolDescriptor::new("greet", "Greets someone by name.", schema)
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let name = args["name"].as_str().unwrap_or_default();
        if name.is_empty() {
            return ToolOutput::error("greet: the name is empty");
        }
        ToolOutput::ok(format!("Hello, {name}!"))
    }
}

fn main() -> Result<(), ServeError> {
    let server = Server::new("hello-server", "1.0.0", ToolSet::new().with(Greet));
    server.serve_stdio()
}
