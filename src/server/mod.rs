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

mod batch;
mod call;
mod capture;
pub(crate) mod era;
pub(crate) mod schema;
mod tools;
mod transport;
mod wire;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use self::call::{CallParams, check_structured, run_tool};
use self::capture::ProtectedStdio;
use self::era::Session;
pub(crate) use self::transport::StdioTransport;
use self::wire::{
    Answer, WireId, error_line, method_not_found, parse_error, refusal_line, result_line,
};
use crate::jsonrpc::{ErrorCode, Inbound, RequestId, method, read_object};
use crate::revision::{Revision, meta};

pub use self::capture::Capture;
pub use self::tools::{Tool, ToolAnnotations, ToolDescriptor, ToolOutput, ToolSet};
pub use self::transport::{Transport, TransportError};

/// The most memory the loop keeps in its line and answer buffers between
/// lines; a longer line or answer gets a buffer of its own, which goes with
/// it.
const RETAINED: usize = 64 * 1024;

/// The protocol revisions the loop answers, oldest first: the four legacy
/// ones through `initialize`, and 2026-07-28 statelessly, on requests that
/// carry `params._meta`.
pub const PROTOCOL_REVISIONS: &[Revision] = Revision::ALL;

/// Who may keep a cached list result (`cacheScope`, MCP 2026-07-28
/// server/utilities/caching).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum CacheScope {
    /// Any client, and any cache between, may reuse the result.
    Public,
    /// Only the client that asked may reuse the result.
    Private,
}

/// An MCP server: a name, a version and the tools it offers (MCP-CORE r1
/// §2¶13).
#[derive(Debug)]
pub struct Server {
    name: String,
    version: String,
    tools: ToolSet,
    capture: bool,
    instructions: Option<String>,
    ttl_ms: u64,
    cache_scope: CacheScope,
    /// The `_meta` of every modern result, serialized once.
    result_meta: Box<RawValue>,
}

impl Server {
    /// A server offering `tools`, named `name` at `version` in its
    /// `initialize` answer and in the `_meta` of its modern results.
    pub fn new(name: impl Into<String>, version: impl Into<String>, tools: ToolSet) -> Server {
        let (name, version) = (name.into(), version.into());
        let info = json!({ meta::SERVER_INFO: {"name": name, "version": version} });
        let result_meta =
            RawValue::from_string(info.to_string()).expect("a JSON value is raw JSON");
        Server {
            name,
            version,
            tools,
            capture: true,
            instructions: None,
            ttl_ms: 0,
            cache_scope: CacheScope::Public,
            result_meta,
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

    /// The same server with instructions for the host's model: sent in the
    /// `initialize` answer and in `server/discover`.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Server {
        self.instructions = Some(instructions.into());
        self
    }

    /// The same server with other cache hints on its modern `tools/list`
    /// and `server/discover` results: how long, in milliseconds, a client
    /// may reuse them, and who may. The default is `0` and
    /// [`CacheScope::Public`]: reuse nothing, and nothing in the lists
    /// differs between clients.
    pub fn with_cache_hints(mut self, ttl_ms: u64, scope: CacheScope) -> Server {
        self.ttl_ms = ttl_ms;
        self.cache_scope = scope;
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
        let mut session = Session::Undecided;
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
            let Some(answer) = self.answer(
                &mut session,
                &line,
                buf,
                true,
                transport,
                capture.as_deref_mut(),
            )?
            else {
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

    /// The answer to one inbound line, if it gets one; `batches` says
    /// whether the line may be a batch (it may not inside one).
    ///
    /// # Errors
    ///
    /// The transport's error when the answers written so far cannot be
    /// sent before a tool runs.
    fn answer<'c>(
        &self,
        session: &mut Session,
        line: &[u8],
        buf: Vec<u8>,
        batches: bool,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Option<Answer<'c>>, TransportError> {
        let line = trim_line(line);
        let Some(inbound) = Inbound::parse(line) else {
            if batches
                && matches!(*session, Session::Legacy(revision) if revision.batches())
                && line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
                && let Ok(elements) = serde_json::from_slice::<Vec<&RawValue>>(line)
                && !elements.is_empty()
            {
                return self.batch(session, &elements, buf, transport, capture);
            }
            // Not a JSON object, or not JSON at all.
            let reason = read_object(line)
                .err()
                .unwrap_or_else(|| "the object cannot be read as a frame".to_owned());
            return Ok(Some(parse_error(None, *session, &reason, buf)));
        };
        let answer = match inbound {
            Inbound::Request { id, method, params } => {
                Some(self.dispatch(session, id, &method, params, buf, transport, capture)?)
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
            Inbound::Malformed { reason, id } => Some(parse_error(id, *session, &reason, buf)),
        };
        Ok(answer)
    }

    /// The answer to one request, written into `buf`, in the era the
    /// process serves (or enters with this request).
    #[allow(clippy::too_many_arguments)]
    fn dispatch<'c>(
        &self,
        session: &mut Session,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, TransportError> {
        let revision = match *session {
            Session::Legacy(revision) => revision,
            Session::Modern => {
                return self.dispatch_modern(id, method, params, buf, transport, capture);
            }
            Session::Undecided => {
                if method != method::INITIALIZE && era::speaks_modern(method, params) {
                    *session = Session::Modern;
                    return self.dispatch_modern(id, method, params, buf, transport, capture);
                }
                Revision::V2024_11_05
            }
        };
        let line = match method {
            method::INITIALIZE => {
                let (revision, result) = self.initialize_result(params);
                *session = Session::Legacy(revision);
                result_line(&id, &result, buf)
            }
            method::PING => result_line(&id, &json!({}), buf),
            method::TOOLS_LIST => result_line(&id, &self.tools_list(revision), buf),
            method::TOOLS_CALL => return self.call(id, revision, params, buf, transport, capture),
            other => method_not_found(&id, other, buf),
        };
        Ok(Answer::line(line))
    }

    /// The answer to a request of the stateless revision: its `_meta` is
    /// checked first, and the methods 2026-07-28 removed are unknown.
    fn dispatch_modern<'c>(
        &self,
        id: RequestId,
        method: &str,
        params: Option<&RawValue>,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, TransportError> {
        let checked = if method == method::INITIALIZE {
            Err(era::initialize_refused(params))
        } else {
            era::check_modern(params)
        };
        let revision = match checked {
            Ok(revision) => revision,
            Err(refusal) => return Ok(Answer::line(refusal_line(&id, &refusal, buf))),
        };
        let line = match method {
            method::SERVER_DISCOVER => result_line(&id, &self.discover_result(), buf),
            method::TOOLS_LIST => result_line(&id, &self.tools_list(revision), buf),
            method::TOOLS_CALL => return self.call(id, revision, params, buf, transport, capture),
            other => method_not_found(&id, other, buf),
        };
        Ok(Answer::line(line))
    }

    /// The `initialize` answer, and the revision it negotiated (MCP-CORE r1
    /// §2¶15; MCP lifecycle#version-negotiation).
    fn initialize_result(&self, params: Option<&RawValue>) -> (Revision, Value) {
        let params = params.and_then(|params| serde_json::from_str::<Value>(params.get()).ok());
        let requested = params
            .as_ref()
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str);
        let revision = era::negotiate(requested);
        let mut result = json!({
            "protocolVersion": revision.as_str(),
            "serverInfo": {"name": self.name, "version": self.version},
            "capabilities": self.capabilities(),
        });
        if let Some(instructions) = &self.instructions {
            result["instructions"] = json!(instructions);
        }
        (revision, result)
    }

    fn capabilities(&self) -> Value {
        json!({"tools": {"listChanged": false}})
    }

    /// The `server/discover` answer (MCP 2026-07-28 server/discover).
    fn discover_result(&self) -> impl Serialize + '_ {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Discover<'a> {
            supported_versions: Vec<&'static str>,
            capabilities: Value,
            #[serde(skip_serializing_if = "Option::is_none")]
            instructions: Option<&'a str>,
            #[serde(flatten)]
            cacheable: Cacheable<'a>,
        }
        Discover {
            supported_versions: era::modern_revisions(),
            capabilities: self.capabilities(),
            instructions: self.instructions.as_deref(),
            cacheable: self.cacheable(),
        }
    }

    /// The `tools/list` answer under `revision`: the descriptors sorted by
    /// name, each with the fields the revision knows, and on the modern
    /// revision the result type, the cache hints and the server's `_meta`.
    fn tools_list(&self, revision: Revision) -> impl Serialize + '_ {
        #[derive(Serialize)]
        struct ToolList<'a> {
            tools: Vec<tools::Listed<'a>>,
            #[serde(flatten)]
            cacheable: Option<Cacheable<'a>>,
        }
        ToolList {
            tools: self
                .tools
                .descriptors()
                .map(|descriptor| descriptor.listed(revision))
                .collect(),
            cacheable: revision
                .cacheable(method::TOOLS_LIST)
                .then(|| self.cacheable()),
        }
    }

    fn cacheable(&self) -> Cacheable<'_> {
        Cacheable {
            result_type: "complete",
            ttl_ms: self.ttl_ms,
            cache_scope: self.cache_scope,
            meta: &self.result_meta,
        }
    }

    fn call<'c>(
        &self,
        id: RequestId,
        revision: Revision,
        params: Option<&RawValue>,
        buf: Vec<u8>,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Answer<'c>, TransportError> {
        let call = match CallParams::read(params) {
            Ok(call) => call,
            Err(message) => {
                let error = error_line(
                    WireId::Id(&id),
                    ErrorCode::INVALID_PARAMS,
                    &message,
                    None,
                    buf,
                );
                return Ok(Answer::line(error));
            }
        };
        let (name, args) = (&*call.name, &call.arguments);
        let meta = self.result_meta.get();
        let Some((descriptor, tool)) = self.tools.get(name) else {
            let message = format!("unknown tool `{name}`");
            let error = error_line(
                WireId::Id(&id),
                ErrorCode::METHOD_NOT_FOUND,
                &message,
                None,
                buf,
            );
            return Ok(Answer::line(error));
        };
        let violations = schema::validate(&descriptor.input_schema, args);
        if !violations.is_empty() {
            let mut report = format!("invalid arguments for `{name}`:");
            for violation in &violations {
                report.push('\n');
                report.push_str(&violation.to_string());
            }
            let output = ToolOutput::error(report);
            return Ok(Answer::line(output.answer_line(&id, revision, meta, buf)));
        }
        // A tool may take long, or end the process: the answers written so
        // far go out before it runs, so none of them waits for it or is
        // lost with it.
        transport.flush()?;
        let (mut output, live, failure) = run_tool(name, tool, args, capture);
        if let Some(output_schema) = &descriptor.output_schema {
            check_structured(name, output_schema, &mut output);
        }
        Ok(Answer {
            line: output.answer_line(&id, revision, meta, buf),
            live,
            failure,
        })
    }
}

/// What every cacheable modern result carries besides its own fields (MCP
/// 2026-07-28 server/utilities/caching; basic/index#resulttype).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Cacheable<'a> {
    result_type: &'static str,
    ttl_ms: u64,
    cache_scope: CacheScope,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}

/// A line as the host meant it: without the `\r` of a CRLF terminator and
/// without a leading UTF-8 byte-order mark, as the official SDKs read lines.
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

#[cfg(test)]
mod tests;
