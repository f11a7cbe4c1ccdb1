//! The core server library: the smallest correct way to write an MCP server
//! that speaks line-delimited JSON-RPC 2.0 over stdio (MCP-CORE r1).
//!
//! A [`Server`] is a name, a version and a [`ToolSet`], driven over a
//! [`Transport`]. The loop reads one line at a time and classifies it by
//! its id: a request is answered exactly once, a notification never, and a
//! line that is no frame gets a parse error while the loop goes on. It ends
//! only at end of input or on a dead channel.
//!
//! Besides tools, a server may offer resources ([`ResourceSet`]) and
//! prompts ([`PromptSet`]), answer methods of its own
//! ([`Server::with_method`]), and send progress, log messages and list
//! changes from a run through its [`Context`]; typed tools
//! ([`ToolSet::with_typed`]) get their arguments as a `Deserialize` type.
//!
//! ```no_run
//! use mcp_replay::{Server, Tool, ToolDescriptor, ToolOutput, ToolSet};
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
mod context;
mod dispatch;
pub(crate) mod era;
mod methods;
mod prompts;
mod resources;
mod tools;
mod transport;
mod wire;

use std::panic::{self, AssertUnwindSafe};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use self::capture::ProtectedStdio;
use self::era::Session;
use self::methods::Hooks;
pub(crate) use self::transport::StdioTransport;
use self::wire::{Answer, null_id, parse_error};
use crate::jsonrpc::{Inbound, read_object, too_many_values};
use crate::revision::{Revision, meta};

pub use self::capture::Capture;
pub use self::context::{Context, List, LogLevel};
pub use self::methods::{BUILT_IN, MethodError, MethodResult};
pub use self::prompts::{
    GetPrompt, Prompt, PromptArgument, PromptArguments, PromptMessage, PromptSet, Role,
};
pub use self::resources::{
    ReadResult, Resource, ResourceContents, ResourceError, ResourceSet, ResourceTemplate,
};
pub use self::tools::{Tool, ToolAnnotations, ToolDescriptor, ToolOutput, ToolSet};
pub use self::transport::{ServeError, Transport, TransportError};

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

/// Whether tool runs go through the capture guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CaptureMode {
    /// Under [`Server::serve_stdio`] only.
    Stdio,
    /// Under every loop.
    Always,
    /// Never.
    Never,
}

/// What one loop knows about its client: the era, and in a legacy session
/// the log level the client set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct State {
    session: Session,
    log_level: Option<LogLevel>,
}

/// An MCP server: a name, a version and what it offers (tools, and
/// optionally resources, prompts and methods of its own) (MCP-CORE r1
/// §2¶13).
#[derive(Debug)]
pub struct Server {
    name: String,
    version: String,
    tools: ToolSet,
    resources: ResourceSet,
    prompts: PromptSet,
    hooks: Hooks,
    capture: CaptureMode,
    instructions: Option<String>,
    ttl_ms: u64,
    cache_scope: CacheScope,
    logging: bool,
    list_changed: bool,
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
            resources: ResourceSet::new(),
            prompts: PromptSet::new(),
            hooks: Hooks::default(),
            capture: CaptureMode::Stdio,
            instructions: None,
            ttl_ms: 0,
            cache_scope: CacheScope::Public,
            logging: false,
            list_changed: false,
            result_meta,
        }
    }

    /// The same server without the capture guard: what tools write goes
    /// straight to the process's stderr, under
    /// [`serve_stdio`](Self::serve_stdio) too.
    pub fn without_capture(mut self) -> Server {
        self.capture = CaptureMode::Never;
        self
    }

    /// The same server with the capture guard under [`serve`](Self::serve)
    /// too. By default only [`serve_stdio`](Self::serve_stdio) captures:
    /// the capture redirects process-global descriptors, so two loops in
    /// one process cannot both capture at once (MCP-CORE r1 §4¶24), and a
    /// test serving through a transport of its own needs none.
    pub fn with_capture(mut self) -> Server {
        self.capture = CaptureMode::Always;
        self
    }

    /// The same server with instructions for the host's model: sent in the
    /// `initialize` answer and in `server/discover`.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Server {
        self.instructions = Some(instructions.into());
        self
    }

    /// The same server with other cache hints on its modern list results,
    /// `resources/read` and `server/discover`: how long, in milliseconds, a
    /// client may reuse them, and who may. The default is `0` and
    /// [`CacheScope::Public`]: reuse nothing, and nothing in the lists
    /// differs between clients.
    pub fn with_cache_hints(mut self, ttl_ms: u64, scope: CacheScope) -> Server {
        self.ttl_ms = ttl_ms;
        self.cache_scope = scope;
        self
    }

    /// The same server offering `resources`: `resources/list`,
    /// `resources/templates/list` and `resources/read` are served, and the
    /// `resources` capability advertised, once anything is registered.
    pub fn with_resources(mut self, resources: ResourceSet) -> Server {
        self.resources = resources;
        self
    }

    /// The same server offering `prompts`: `prompts/list` and
    /// `prompts/get` are served, and the `prompts` capability advertised,
    /// once any prompt is registered.
    pub fn with_prompts(mut self, prompts: PromptSet) -> Server {
        self.prompts = prompts;
        self
    }

    /// The same server declaring the `logging` capability: legacy clients
    /// may send `logging/setLevel`, and [`Context::log`] sends log
    /// messages the client allowed.
    pub fn with_logging(mut self) -> Server {
        self.logging = true;
        self
    }

    /// The same server declaring `listChanged: true` on each list it
    /// offers, so [`Context::list_changed`] may announce changes to legacy
    /// clients.
    pub fn with_list_changed(mut self) -> Server {
        self.list_changed = true;
        self
    }

    /// The same server answering the request method `name` with `handler`,
    /// which gets the params (`null` when there are none) and a [`Context`]
    /// for notifications, and answers a result object or a
    /// [`MethodError`].
    ///
    /// The loop still answers every such request exactly once: a panic is
    /// an internal error (-32603), a result that is no object too. On
    /// 2026-07-28 the request's `_meta` is checked first, the result gets
    /// `resultType` and the server's `_meta`, and the methods that revision
    /// removed (`resources/subscribe`, say) stay unknown (-32601).
    ///
    /// # Panics
    ///
    /// When `name` is one of [`BUILT_IN`], the methods the library answers
    /// itself.
    pub fn with_method(
        mut self,
        name: impl Into<String>,
        handler: impl Fn(&Value, &mut Context<'_>) -> MethodResult + 'static,
    ) -> Server {
        let name = name.into();
        assert!(
            !BUILT_IN.contains(&name.as_str()),
            "the library answers `{name}` itself; a hook cannot replace it"
        );
        self.hooks.requests.insert(name, Box::new(handler));
        self
    }

    /// The same server calling `handler` with the params of each
    /// notification `name` (`null` when there are none). A notification is
    /// never answered, whatever the handler does; a panic in it is
    /// dropped.
    pub fn with_notification(
        mut self,
        name: impl Into<String>,
        handler: impl Fn(&Value) + 'static,
    ) -> Server {
        self.hooks
            .notifications
            .insert(name.into(), Box::new(handler));
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
    /// [`ServeError::Transport`] when the host's end of the channel dies
    /// ([`ServeError::is_hang_up`]); [`ServeError::ClaimStdio`] or
    /// [`ServeError::StdioBusy`] when stdio cannot be set aside;
    /// [`ServeError::CaptureFile`] when the capture guard cannot start.
    pub fn serve_stdio(&self) -> Result<(), ServeError> {
        let mut capture = self.new_capture(self.capture != CaptureMode::Never)?;
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

    /// Serves as [`serve_stdio`](Self::serve_stdio) does, stdio claimed and
    /// tool runs captured, but through the transport `make` builds from
    /// close-on-exec copies of the protocol's stdin and stdout: a front
    /// that reads the host's lines on a thread of its own and hands the
    /// loop the ones it should answer.
    #[cfg(feature = "cli")]
    pub(crate) fn serve_stdio_via<T: Transport>(
        &self,
        make: impl FnOnce(std::fs::File, std::fs::File) -> std::io::Result<T>,
    ) -> Result<(), ServeError> {
        let mut capture = self.new_capture(self.capture != CaptureMode::Never)?;
        let stdio = ProtectedStdio::claim(capture.as_mut())?;
        let made = stdio
            .stdin
            .try_clone()
            .and_then(|stdin| Ok((stdin, stdio.stdout.try_clone()?)))
            .and_then(|(stdin, stdout)| make(stdin, stdout));
        let res = match made {
            Ok(mut transport) => self.serve_with(&mut transport, capture.as_mut()),
            Err(err) => Err(ServeError::ClaimStdio(err)),
        };
        drop(stdio);
        res
    }

    /// Serves the host at the other end of `transport` until its input ends.
    ///
    /// Requests are answered in the order they arrive, each exactly once;
    /// notifications are absorbed; a line that is no frame is answered with a
    /// parse error and the loop goes on (MCP-CORE r1 §1¶08-10). Tool runs go
    /// through the capture guard only when the server asked for it
    /// ([`with_capture`](Self::with_capture)).
    ///
    /// ```
    /// use mcp_replay::{Server, ToolSet};
    /// use mcp_replay::transcript::ReplayTransport;
    ///
    /// let server = Server::new("s", "1", ToolSet::new());
    /// let mut transport = ReplayTransport::from_lines([r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#]);
    /// server.serve(&mut transport).unwrap();
    /// assert_eq!(transport.written(), [br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec()]);
    /// ```
    ///
    /// # Errors
    ///
    /// [`ServeError::Transport`] with the transport's error when the channel
    /// dies; with the capture guard, [`ServeError::CaptureFile`] or
    /// [`ServeError::Redirect`] when it cannot start.
    pub fn serve(&self, transport: &mut impl Transport) -> Result<(), ServeError> {
        let mut capture = self.new_capture(self.capture == CaptureMode::Always)?;
        self.serve_with(transport, capture.as_mut())
    }

    fn new_capture(&self, wanted: bool) -> Result<Option<Capture>, ServeError> {
        wanted.then(Capture::new).transpose()
    }

    fn serve_with(
        &self,
        transport: &mut dyn Transport,
        mut capture: Option<&mut Capture>,
    ) -> Result<(), ServeError> {
        let mut line = Vec::with_capacity(4096);
        // The buffer every answer is written into, handed back after each.
        let mut spare = Vec::with_capacity(256);
        let mut state = State {
            session: Session::Undecided,
            log_level: None,
        };
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
                &mut state,
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
        state: &mut State,
        line: &[u8],
        buf: Vec<u8>,
        batches: bool,
        transport: &mut dyn Transport,
        capture: Option<&'c mut Capture>,
    ) -> Result<Option<Answer<'c>>, ServeError> {
        let line = trim_line(line);
        let Some(inbound) = Inbound::parse(line) else {
            // A line of more values than are read into memory is answered
            // before anything builds them (a batch's elements too).
            if let Some(why) = too_many_values(line) {
                return Ok(Some(parse_error(None, state.session, why, buf)));
            }
            if batches
                && matches!(state.session, Session::Legacy(revision) if revision.batches())
                && line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
                && let Ok(elements) = serde_json::from_slice::<Vec<&RawValue>>(line)
                && !elements.is_empty()
            {
                return self.batch(state, &elements, buf, transport, capture);
            }
            // Not a JSON object, or not JSON at all.
            let reason = read_object(line)
                .err()
                .unwrap_or_else(|| "the object cannot be read as a frame".to_owned());
            return Ok(Some(parse_error(None, state.session, &reason, buf)));
        };
        let answer = match inbound {
            Inbound::Request { id, method, params } => {
                // Params of more values than are read into memory are
                // invalid params, whatever the method: no handler reads them.
                match params.and_then(|params| too_many_values(params.get().as_bytes())) {
                    Some(why) => Some(Answer::line(wire::error_line(
                        wire::WireId::Id(&id),
                        crate::jsonrpc::ErrorCode::INVALID_PARAMS,
                        &format!("the params cannot be read: {why}"),
                        None,
                        buf,
                    ))),
                    None => {
                        Some(self.dispatch(state, id, &method, params, buf, transport, capture)?)
                    }
                }
            }
            // MCP-CORE r1 §1¶09: notifications are absorbed without a reply,
            // whatever their method; a hook may look at them.
            Inbound::Notification { method, params } => {
                if let Some(hook) = self.hooks.notification(&method) {
                    let params = params
                        .filter(|params| too_many_values(params.get().as_bytes()).is_none())
                        .and_then(|params| serde_json::from_str(params.get()).ok())
                        .unwrap_or(Value::Null);
                    let _ = panic::catch_unwind(AssertUnwindSafe(|| hook(&params)));
                }
                None
            }
            // JSON-RPC 2.0 §4 makes only a missing id a notification, and MCP
            // allows no null id: an invalid request, whose host waits for an
            // answer carrying its id, null.
            Inbound::NullId { .. } => Some(null_id(buf)),
            // This server sends no requests, so a response answers nothing it
            // asked; replying to it would start a conversation about nothing.
            Inbound::Response { .. } => None,
            // MCP-CORE r1 §1¶10: every line that is no frame (not JSON, not
            // an object, no method, an id that is neither number nor string)
            // is a parse error, echoing the id when one could be read.
            Inbound::Malformed { reason, id } => Some(parse_error(id, state.session, &reason, buf)),
        };
        Ok(answer)
    }
}

/// A line as the host meant it: without the `\r` of a CRLF terminator and
/// without a leading UTF-8 byte-order mark, as the official SDKs read lines.
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

#[cfg(test)]
mod tests;
