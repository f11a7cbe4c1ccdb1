//! The demo server: an MCP stdio server built on mcp-replay's core library.
//!
//! Run it with `cargo run --example demo-server`, or as `mcp-replay
//! demo-server`, the server the bundled transcripts run against. It offers
//! four tools:
//!
//! - `echo {text}` answers with its text;
//! - `add {a, b}` answers with the sum of two numbers, as text and as the
//!   structured content `{"sum": n}` its output schema declares;
//! - `fail` always fails, as an `isError` result;
//! - `stderr-child {text?}` starts a child process that writes to its stderr
//!   and its stdout and reads its stdin; the report shows what the capture
//!   guard caught, and that the child read nothing of the host's messages.
//!
//! Every tool carries a title and annotations; the revisions that know
//! them (2025-03-26 and 2025-06-18 on) get them in `tools/list`.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::{Command, ExitCode};

use mcp_replay::{Server, Tool, ToolAnnotations, ToolDescriptor, ToolOutput, ToolSet};
use serde_json::{Number, Value, json};

/// Set in the environment of the `stderr-child` tool's child process, with
/// the text the child writes.
const CHILD_TEXT: &str = "MCP_REPLAY_DEMO_CHILD_TEXT";

/// Serves the demo tools on stdio until stdin ends, then exits 0.
pub fn main() -> ExitCode {
    if let Some(text) = std::env::var_os(CHILD_TEXT) {
        return child(&text);
    }
    let server = Server::new("mcp-replay-demo", env!("CARGO_PKG_VERSION"), tools());
    match server.serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            report(&err);
            // The host hung up: the session is over, which is a clean end
            // for a server (MCP-CORE r1 §1¶10). Otherwise serving never
            // began.
            if err.is_hang_up() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// The demo server's tools.
pub fn tools() -> ToolSet {
    ToolSet::new()
        .with(Echo)
        .with(Add)
        .with(Fail)
        .with(StderrChild)
}

/// The hints of a tool that changes nothing outside the server, gives the
/// same answer to the same arguments, and reaches no open world: every demo
/// tool is one (`stderr-child` starts a process, which writes only to the
/// capture).
fn harmless() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

/// Prints a serving error and its causes on stderr.
#[allow(clippy::print_stderr)]
fn report(err: &dyn std::error::Error) {
    eprintln!("demo-server: error: {err}");
    let mut source = err.source();
    while let Some(cause) = source {
        eprintln!("  caused by: {cause}");
        source = cause.source();
    }
}

/// The child process of `stderr-child`: it reads the stdin it inherited to
/// its end, then writes one line on stderr and one on the stdout it
/// inherited.
fn child(text: &OsString) -> ExitCode {
    let text = text.to_string_lossy();
    let mut stdin = Vec::new();
    let read = std::io::stdin().read_to_end(&mut stdin);
    let mut stderr = std::io::stderr();
    let mut stdout = std::io::stdout();
    let wrote = read
        .and_then(|n| writeln!(stderr, "child stdin: {n} bytes"))
        .and_then(|()| writeln!(stderr, "child stderr: {text}"))
        .and_then(|()| writeln!(stdout, "child stdout: {text}"))
        .and_then(|()| stdout.flush());
    match wrote {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

/// `echo {text}`: answers with its text.
struct Echo;

impl Tool for Echo {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "echo",
            "Answers with the text it is given.",
            json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to answer with."}},
                "required": ["text"],
                "additionalProperties": false
            }),
        )
        .with_title("Echo")
        .with_annotations(harmless())
    }

    fn run(&self, args: &Value) -> ToolOutput {
        ToolOutput::ok(args["text"].as_str().unwrap_or_default())
    }
}

/// `add {a, b}`: the sum of two numbers.
struct Add;

impl Tool for Add {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "add",
            "Adds two numbers.",
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "number", "description": "The first addend."},
                    "b": {"type": "number", "description": "The second addend."}
                },
                "required": ["a", "b"],
                "additionalProperties": false
            }),
        )
        .with_title("Add")
        .with_annotations(harmless())
        .with_output_schema(json!({
            "type": "object",
            "properties": {"sum": {"type": "number", "description": "a + b."}},
            "required": ["sum"],
            "additionalProperties": false
        }))
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let (Value::Number(a), Value::Number(b)) = (&args["a"], &args["b"]) else {
            return ToolOutput::error("add needs two numbers, `a` and `b`");
        };
        match sum(a, b) {
            // The text stays the bare number, which is what an agent reading
            // text alone wants; the structure goes beside it.
            Some(sum) => ToolOutput::ok(sum.to_string()).with_structured(json!({ "sum": sum })),
            None => ToolOutput::error(format!("{a} + {b} is out of range")),
        }
    }
}

/// Integers add exactly; anything else adds as floating point.
fn sum(a: &Number, b: &Number) -> Option<Number> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        if let Some(sum) = a.checked_add(b) {
            return Some(Number::from(sum));
        }
    }
    Number::from_f64(a.as_f64()? + b.as_f64()?)
}

/// `fail`: always fails, as a result the agent reads.
struct Fail;

impl Tool for Fail {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "fail",
            "Always fails: answers an isError result.",
            json!({"type": "object", "properties": {}}),
        )
        .with_title("Fail")
        .with_annotations(harmless())
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        ToolOutput::error("fail: this tool always fails")
    }
}

/// `stderr-child {text?}`: a child process writes; the capture catches it.
struct StderrChild;

impl Tool for StderrChild {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "stderr-child",
            "Starts a child process that writes a line to stderr and one to stdout; reports what the capture caught.",
            json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "What the child writes (default: hello)."}},
                "additionalProperties": false
            }),
        )
        .with_title("Child on stderr")
        .with_annotations(harmless())
    }

    fn run(&self, args: &Value) -> ToolOutput {
        let text = args["text"].as_str().unwrap_or("hello");
        // The child is this very program in its child role, so the tool works
        // with an empty PATH (MCP-CORE r1 §5¶29).
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(err) => return ToolOutput::error(format!("cannot find this program: {err}")),
        };
        // The child inherits stdin, stdout and stderr as they are while the
        // server serves: stdin reads nothing (it is /dev/null, so the child
        // cannot take the host's messages), and stdout and stderr go to the
        // capture (so the child cannot corrupt the protocol channel).
        let status = Command::new(&exe)
            .args(std::env::args_os().skip(1))
            .env(CHILD_TEXT, text)
            .status();
        // A stray line on the tool's own stdout, as a forgotten `println!`
        // would write: it is caught too.
        let _ = writeln!(std::io::stdout(), "tool stdout: the child is done");
        match status {
            Ok(status) if status.success() => {
                ToolOutput::ok("the child exited with status 0; the capture caught:").with_capture()
            }
            Ok(status) => {
                ToolOutput::error(format!("the child failed ({status}); the capture caught:"))
                    .with_capture()
            }
            Err(err) => ToolOutput::error(format!("cannot start `{}`: {err}", exe.display())),
        }
    }
}
