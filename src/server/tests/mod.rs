//! The serve loop, driven through the replay double with no host and no
//! child process (MCP-CORE r1 §2¶13): the contract paragraph by paragraph,
//! properties over any sequence of lines, and the checks that keep the docs
//! and the test list in step with the contract.

mod contract;
mod docs;
mod eras;
mod open;
mod property;

use serde_json::{Value, json};

use super::*;
use crate::transcript::ReplayTransport;

/// A tool answering with one fixed report, under any name.
struct Fixed {
    name: &'static str,
    report: &'static str,
}

impl Tool for Fixed {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            self.name,
            "answers a fixed report",
            json!({"type": "object"}),
        )
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        ToolOutput::ok(self.report)
    }
}

/// `echo {text}`: answers with its text.
struct Echo;

impl Tool for Echo {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "echo",
            "answers with its text",
            json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": false
            }),
        )
    }

    fn run(&self, args: &Value) -> ToolOutput {
        ToolOutput::ok(args["text"].as_str().unwrap_or_default())
    }
}

/// `fail`: always fails.
struct Fail;

impl Tool for Fail {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("fail", "always fails", json!({"type": "object"}))
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        ToolOutput::error("FAIL REQ-X-001: the gate found 2 findings")
    }
}

/// `panics`: panics.
struct Panics;

impl Tool for Panics {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("panics", "panics", json!({"type": "object"}))
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        panic!("the tool broke");
    }
}

/// `args`: answers with the arguments it received.
struct Args;

impl Tool for Args {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "args",
            "answers with its arguments",
            json!({"type": "object"}),
        )
    }

    fn run(&self, args: &Value) -> ToolOutput {
        ToolOutput::ok(args.to_string())
    }
}

fn server() -> Server {
    let tools = ToolSet::new()
        .with(Fixed {
            name: "zeta",
            report: "z",
        })
        .with(Echo)
        .with(Fail)
        .with(Panics)
        .with(Args);
    Server::new("test-server", "1.2.3", tools).without_capture()
}

/// Serves `lines` and returns every line written.
fn serve_raw(server: &Server, lines: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let mut transport = ReplayTransport::from_lines(lines);
    server
        .serve(&mut transport)
        .expect("the replay double never fails");
    transport.written().to_vec()
}

/// Serves `lines` and parses every line written as JSON.
fn serve(server: &Server, lines: &[&str]) -> Vec<Value> {
    let lines = lines.iter().map(|line| line.as_bytes().to_vec()).collect();
    serve_raw(server, lines)
        .iter()
        .map(|line| serde_json::from_slice(line).expect("every answer is JSON"))
        .collect()
}

fn call(id: i64, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

fn error_code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}
