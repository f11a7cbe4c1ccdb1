//! The core server library: the smallest correct way to write an MCP server
//! that speaks line-delimited JSON-RPC 2.0 over stdio (MCP-CORE r1).
//!
//! A [`Server`] is a name, a version and a [`ToolSet`], driven over a
//! [`Transport`]. The loop reads one line at a time and classifies it by
//! its id: a request is answered exactly once, a notification never, and a
//! line that is no frame gets a parse error while the loop goes on. It ends
//! only at end of input or on a dead channel.
//!
//! ```no_run
//! use mcp_replay::server::{Server, Tool, ToolDescriptor, ToolOutput, ToolSet};
//! use serde_json::{Value, json};
//!
//! struct Echo;
//!
//! impl Tool for Echo {
//!     fn descriptor(&self) -> ToolDescriptor {
//!         let schema = json!({
//!             "type": "object",
//!             "properties": {"text": {"type": "string"}},
//!             "required": ["text"]
//!         });
//!         ToolDescriptor::new("echo", "Answers with its text", schema)
//!     }
//!
//!     fn run(&self, args: &Value) -> ToolOutput {
//!         ToolOutput::ok(args["text"].as_str().unwrap_or_default())
//!     }
//! }
//!
//! let server = Server::new("echo-server", "1.0.0", ToolSet::new().with(Echo));
//! server.serve_stdio().expect("the protocol channel works");
//! ```

mod capture;
pub(crate) mod schema;
mod tools;
mod transport;

use std::any::Any;
use std::borrow::Cow;
use std::panic::{self, AssertUnwindSafe};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use self::capture::{Live, ProtectedStdio};
use self::transport::StdioTransport;
use crate::jsonrpc::{
    ErrorCode, Inbound, PROTOCOL_2024_11_05, RequestId, Response, json_kind, method, read_object,
};

pub use self::capture::Capture;
pub use self::tools::{Tool, ToolDescriptor, ToolOutput, ToolSet};
pub use self::transport::{Transport, TransportError};

/// The most memory the loop keeps in its line and answer buffers between
/// lines; a longer line or answer gets a buffer of its own, which goes with
/// it.
const RETAINED: usize = 64 * 1024;

/// The protocol revisions the loop answers, newest first (MCP-CORE r1
/// §1¶07). Newer revisions join this list as the loop learns them.
pub const PROTOCOL_REVISIONS: &[&str] = &[PROTOCOL_2024_11_05];

/// An MCP server: a name, a version and the tools it offers (MCP-CORE r1
/// §2¶13).
#[derive(Debug)]
pub struct Server {
    name: String,
    version: String,
    tools: ToolSet,
    capture: bool,
}

impl Server {
    /// A server offering `tools`, named `name` at `version` in its
    /// `initialize` answer.
    pub fn new(name: impl Into<String>, version: impl Into<String>, tools: ToolSet) -> Server {
        Server {
            name: name.into(),
            version: version.into(),
            tools,
            capture: true,
        }
    }

    /// The same server without the capture guard: what tools write goes
    /// straight to the process's stderr.
    ///
    /// The capture redirects process-global descriptors, so two loops in one
    /// process cannot both capture at once (MCP-CORE r1 §4¶24); this is for
    /// tests that run several loops side by side.
    pub fn without_capture(mut self) -> Server {
        self.capture = false;
        self
    }

    /// The tools this server offers.
    pub fn tools(&self) -> &ToolSet {
        &self.tools
    }

    /// Serves the host on stdin and stdout until stdin ends.
    ///
    /// While serving, the protocol uses private copies of stdin and stdout;
    /// fd 0 points at `/dev/null`, and fd 1 at the capture (or at stderr,
    /// without one), so a stray `println!` or a child process can neither
    /// corrupt the protocol channel nor read the host's messages. Both are
    /// put back when this returns.
    ///
    /// # Errors
    ///
    /// [`TransportError::Read`] or [`TransportError::Write`] when the host's
    /// end of the channel dies; [`TransportError::ClaimStdio`] or
    /// [`TransportError::StdioBusy`] when stdio cannot be set aside;
    /// [`TransportError::CaptureFile`] when the capture guard cannot start.
    pub fn serve_stdio(&self) -> Result<(), TransportError> {
        let mut capture = self.new_capture()?;
        let stdio = ProtectedStdio::claim(capture.as_mut())?;
        let res = {
            let mut transport = StdioTransport::new(&stdio.stdin, &stdio.stdout);
            self.serve_with(&mut transport, capture.as_mut())
        };
        // Stray stdout still in std's buffer drains into the capture file
        // as fd 1 is put back; dropping the capture then passes it on.
        drop(stdio);
        res
    }

    /// Serves the host at the other end of `transport` until its input ends.
    ///
    /// Requests are answered in the order they arrive, each exactly once;
    /// notifications are absorbed; a line that is no frame is answered with a
    /// parse error and the loop goes on (MCP-CORE r1 §1¶08-10).
    ///
    /// ```
    /// use mcp_replay::server::{Server, ToolSet};
    /// use mcp_replay::transcript::ReplayTransport;
    ///
    /// let server = Server::new("s", "1", ToolSet::new()).without_capture();
    /// let mut transport = ReplayTransport::from_lines([r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#]);
    /// server.serve(&mut transport).unwrap();
    /// assert_eq!(transport.written(), [br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec()]);
    /// ```
    ///
    /// # Errors
    ///
    /// The transport's error when the channel dies;
    /// [`TransportError::CaptureFile`] or [`TransportError::Redirect`] when
    /// the capture guard cannot start.
    pub fn serve(&self, transport: &mut impl Transport) -> Result<(), TransportError> {
        let mut capture = self.new_capture()?;
        self.serve_with(transport, capture.as_mut())
    }

    fn new_capture(&self) -> Result<Option<Capture>, TransportError> {
        self.capture.then(Capture::new).transpose()
    }

    fn serve_with(
        &self,
        transport: &mut dyn Transport,
        mut capture: Option<&mut Capture>,
    ) -> Result<(), TransportError> {
        let mut line = Vec::with_capacity(4096);
        // The buffer every answer is written into, handed back after each.
        let mut spare = Vec::with_capacity(256);
        loop {
            // A huge line or answer is no reason to hold its memory for the
            // rest of the session.
            if line.capacity() > RETAINED {
                line = Vec::with_capacity(4096);
            }
            if spare.capacity() > RETAINED {
                spare = Vec::with_capacity(256);
            }
            if !transport.read_line(&mut line)? {
                break;
            }
            spare.clear();
            let buf = std::mem::take(&mut spare);
            let Some(answer) = self.answer(&line, buf, transport, capture.as_deref_mut())? else {
                continue;
            };
            transport.write_line(&answer.line)?;
            spare = answer.line;
            if let Some(live) = answer.live {
                // The host gets its answer before the capture is put away:
                // putting fd 2 back and reading what the run said can wait.
                transport.flush_if_idle()?;
                live.pass_on()?;
            }
            if let Some(err) = answer.failure {
                return Err(err);
            }
        }
        Ok(())
    }

    /// The answer to one inbound line, if it gets one.
    ///
    /// # Errors
    ///
    /// The transport's error when the answers written so far cannot be
    /// sent before a tool runs.
    fn answer<'c>(
        &self,
        line: &[u8],
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Option<Answer<'c>>, TransportError> {
        let line = trim_line(line);
        let Some(inbound) = Inbound::parse(line) else {
            // Not a JSON object, or not JSON at all.
            let reason = read_object(line)
                .err()
                .unwrap_or_else(|| "the object cannot be read as a frame".to_owned());
            return Ok(Some(parse_error(None, &reason)));
        };
        let answer = match inbound {
            Inbound::Request { id, method, params } => {
                Some(self.dispatch(id, &method, params, buf, transport, capture)?)
            }
            // MCP-CORE r1 §1¶09: notifications are absorbed without a reply,
            // whatever their method.
            Inbound::Notification { .. } => None,
            // This server sends no requests, so a response answers nothing it
            // asked; replying to it would start a conversation about nothing.
            Inbound::Response { .. } => None,
            // MCP-CORE r1 §1¶10: every line that is no frame (not JSON, not
            // an object, no method, an id that is neither number nor string)
            // is a parse error, echoing the id when one could be read.
            Inbound::Malformed { reason, id } => Some(parse_error(id, &reason)),
        };
        Ok(answer)
    }

    /// The answer to one request, written into `buf`.
    fn dispatch<'c>(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, TransportError> {
        let line = match method {
            method::INITIALIZE => result_line(&id, &self.initialize_result(params), buf),
            method::PING => result_line(&id, &json!({}), buf),
            method::TOOLS_LIST => {
                let tools: Vec<&ToolDescriptor> = self.tools.descriptors().collect();
                result_line(&id, &json!({ "tools": tools }), buf)
            }
            method::TOOLS_CALL => return self.call(id, params, buf, transport, capture),
            other => Response::error(
                Some(id),
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {other}"),
            )
            .to_line()
            .into_bytes(),
        };
        Ok(Answer::line(line))
    }

    fn initialize_result(&self, params: Option<&RawValue>) -> Value {
        let params = params.and_then(|params| serde_json::from_str::<Value>(params.get()).ok());
        let requested = params
            .as_ref()
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str);
        json!({
            "protocolVersion": negotiate(requested),
            "serverInfo": {"name": self.name, "version": self.version},
            "capabilities": {"tools": {"listChanged": false}},
        })
    }

    fn call<'c>(
        &self,
        id: RequestId,
        params: Option<&RawValue>,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, TransportError> {
        let call = match CallParams::read(params) {
            Ok(call) => call,
            Err(message) => {
                let error = Response::error(Some(id), ErrorCode::INVALID_PARAMS, message);
                return Ok(Answer::line(error.to_line().into_bytes()));
            }
        };
        let (name, args) = (&*call.name, &call.arguments);
        let Some((descriptor, tool)) = self.tools.get(name) else {
            let message = format!("unknown tool `{name}`");
            let error = Response::error(Some(id), ErrorCode::METHOD_NOT_FOUND, message);
            return Ok(Answer::line(error.to_line().into_bytes()));
        };
        let violations = schema::validate(&descriptor.input_schema, args);
        if !violations.is_empty() {
            let mut report = format!("invalid arguments for `{name}`:");
            for violation in &violations {
                report.push('\n');
                report.push_str(&violation.to_string());
            }
            return Ok(Answer::line(
                ToolOutput::error(report).answer_line(&id, buf),
            ));
        }
        // A tool may take long, or end the process: the answers written so
        // far go out before it runs, so none of them waits for it or is
        // lost with it.
        transport.flush()?;
        let (output, live, failure) = run_tool(name, tool, args, capture);
        Ok(Answer {
            line: output.answer_line(&id, buf),
            live,
            failure,
        })
    }
}

/// An answer line, and the capture of the run behind it when putting the
/// capture away can wait until the answer is out.
struct Answer<'c> {
    line: Vec<u8>,
    live: Option<Live<'c>>,
    /// Why serving cannot go on once the answer is out: fd 2 could not be
    /// put back after the run.
    failure: Option<TransportError>,
}

impl Answer<'_> {
    fn line(line: Vec<u8>) -> Answer<'static> {
        Answer {
            line,
            live: None,
            failure: None,
        }
    }
}

/// The parse error (-32700) that answers a line that is no frame.
fn parse_error(id: Option<RequestId>, reason: &str) -> Answer<'static> {
    let error = Response::error(id, ErrorCode::PARSE_ERROR, format!("parse error: {reason}"));
    Answer::line(error.to_line().into_bytes())
}

/// A success answer as one line, serialized straight from `result` into
/// `line`.
fn result_line(id: &RequestId, result: &impl Serialize, mut line: Vec<u8>) -> Vec<u8> {
    #[derive(Serialize)]
    struct Wire<'a, T> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        result: &'a T,
    }
    let wire = Wire {
        jsonrpc: "2.0",
        id,
        result,
    };
    serde_json::to_writer(&mut line, &wire).expect("a result always serializes");
    line
}

/// The revision to answer: the requested one when supported, else the
/// newest supported (MCP lifecycle#version-negotiation).
fn negotiate(requested: Option<&str>) -> &'static str {
    PROTOCOL_REVISIONS
        .iter()
        .find(|revision| Some(**revision) == requested)
        .unwrap_or(&PROTOCOL_REVISIONS[0])
}

/// A line as the host meant it: without the `\r` of a CRLF terminator and
/// without a leading UTF-8 byte-order mark, as the official SDKs read lines.
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

/// The tool name and arguments of a `tools/call` (MCP-CORE r1 §2¶15).
#[derive(Deserialize)]
struct CallParams<'p> {
    /// Borrowed from the line unless it has escapes.
    #[serde(borrow)]
    name: Cow<'p, str>,
    /// An object; hosts that have no arguments to pass send none, or null,
    /// which read as an empty object.
    #[serde(default)]
    arguments: Value,
}

impl<'p> CallParams<'p> {
    /// Reads the params of a `tools/call`, or says why they are invalid
    /// params.
    fn read(params: Option<&'p RawValue>) -> Result<CallParams<'p>, String> {
        // The usual call reads straight into the struct; anything it cannot
        // take (a missing or odd `name`, a duplicate member, params that are
        // no object) is read again as a value, to word the reason.
        if let Some(params) = params
            && let Ok(mut call) = serde_json::from_str::<CallParams<'p>>(params.get())
        {
            match call.arguments {
                Value::Object(_) => return Ok(call),
                Value::Null => {
                    call.arguments = Value::Object(Map::new());
                    return Ok(call);
                }
                _ => {}
            }
        }
        let params = match params.map(|params| serde_json::from_str::<Value>(params.get())) {
            None => None,
            Some(Ok(params)) => Some(params),
            Some(Err(err)) => return Err(format!("tools/call params cannot be read: {err}")),
        };
        let (name, arguments) = call_params(params.as_ref())?;
        Ok(CallParams {
            name: Cow::Owned(name.to_owned()),
            arguments: arguments
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        })
    }
}

/// The tool name and arguments of a `tools/call` read as a value, or why
/// they are invalid params.
fn call_params(params: Option<&Value>) -> Result<(&str, Option<&Value>), String> {
    let params = match params {
        Some(Value::Object(params)) => params,
        None | Some(Value::Null) => return Err("tools/call needs params with a `name`".into()),
        Some(other) => {
            return Err(format!(
                "tools/call params must be an object, found {}",
                json_kind(other)
            ));
        }
    };
    let name = match params.get("name") {
        Some(Value::String(name)) => name,
        Some(other) => {
            return Err(format!(
                "tools/call `name` must be a string, found {}",
                json_kind(other)
            ));
        }
        None => return Err("tools/call is missing the tool `name`".into()),
    };
    let args = match params.get("arguments") {
        None | Some(Value::Null) => None,
        Some(args @ Value::Object(_)) => Some(args),
        Some(other) => {
            return Err(format!(
                "tools/call `arguments` must be an object, found {}",
                json_kind(other)
            ));
        }
    };
    Ok((name, args))
}

/// Runs one tool inside the capture guard; a panic becomes a failed run.
///
/// The capture comes back still live unless the tool asked for it in its
/// report; the caller finishes it once the answer is out. A failure to put
/// fd 2 back comes back too: the answer still goes out, then serving ends.
fn run_tool<'c>(
    name: &str,
    tool: &dyn Tool,
    args: &Value,
    capture: Option<&'c mut Capture>,
) -> (ToolOutput, Option<Live<'c>>, Option<TransportError>) {
    let guarded = || panic::catch_unwind(AssertUnwindSafe(|| tool.run(args)));
    let (outcome, live) = match capture {
        Some(capture) => match capture.start(guarded) {
            Ok((outcome, live)) => (outcome, Some(live)),
            // A failed redirect is no failure of the tool's, but the agent
            // still needs to read why nothing happened.
            Err(err) => {
                let report = format!("the tool `{name}` did not run: {err}");
                return (ToolOutput::error(report), None, None);
            }
        },
        None => (guarded(), None),
    };
    let mut output = outcome.unwrap_or_else(|payload| {
        ToolOutput::error(format!(
            "the tool `{name}` panicked: {}",
            panic_message(&*payload)
        ))
    });
    match live {
        Some(live) if output.append_capture => {
            let failure = live.append_to(&mut output.report).err();
            (output, None, failure)
        }
        live => (output, live, None),
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "(a panic without a message)"
    }
}

#[cfg(test)]
mod tests;
