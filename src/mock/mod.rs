//! `mcp-replay mock`: recorded sessions served back over stdio, as a fake
//! server a client can be tested against, offline and deterministic.
//!
//! A [`Mock`] reads transcripts into recorded calls (`recorded.rs`) and
//! answers each live request with a recorded one (`matching.rs` says
//! which), under the caller's id. The recorded server's notifications go
//! out where they were recorded, after the request they followed; a
//! recorded server request is sent and the rest of its call waits for the
//! client's answer, while other requests are served. What the recording
//! cannot answer is answered as a lawful server would: the handshake of
//! the era the client speaks, `ping`, the refusals of a modern request's
//! `_meta`, tool calls the recorded tool list refuses, and otherwise an
//! error naming the closest recorded request. So a mock keeps the laws of
//! `mcp-replay check` whenever its recording does. `docs/mock.md` is the
//! user's side of this.
//!
//! The mock is built on the same [`Transport`] seam as the core server
//! library, and on its era rules (`server::era`); it runs no tools and
//! prints nothing.

mod exercise;
mod matching;
mod recorded;
mod splice;

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use self::matching::{Matcher, Request, excerpt, live_normalized};
use self::recorded::{Action, Recorded, speaks_modern};
use crate::config::ConfigError;
use crate::host::{Live, Watched};
use crate::jsonrpc::{ErrorCode, Frame, RequestId, method};
use crate::revision::{Era, Revision, meta};
use crate::server::era::{self, Refusal, Session};
use crate::server::{ServeError, StdioTransport, ToolOutput, Transport, TransportError};
use crate::transcript::{RedactError, Redactor, TranscriptError, filler};

/// The code of the error answering a request of a recorded method that no
/// recorded request matches (JSON-RPC's range for implementation-defined
/// server errors). A method never recorded gets -32601 instead.
pub const NO_MATCH: ErrorCode = ErrorCode(-32001);

pub use self::exercise::SCENARIOS;

/// Takes this process's stdin and stdout for a protocol session: private
/// copies of the descriptors, so nothing else of the process reaches them.
fn claim_stdio() -> Result<(std::fs::File, std::fs::File), ServeError> {
    use std::os::fd::AsFd as _;
    let claim = |fd: std::os::fd::BorrowedFd<'_>| {
        fd.try_clone_to_owned()
            .map(std::fs::File::from)
            .map_err(ServeError::ClaimStdio)
    };
    Ok((
        claim(std::io::stdin().as_fd())?,
        claim(std::io::stdout().as_fd())?,
    ))
}

/// Serves the built-in scenario `exercise` (see [`SCENARIOS`]) on stdin and
/// stdout until stdin ends, every line judged by `live` when given: a
/// server that asks the host for what it declared, pings it, announces a
/// list change, offers a call to cancel and, on 2026-07-28, an
/// `input_required` answer to retry.
///
/// # Errors
///
/// As [`Mock::serve_stdio`].
pub fn serve_exercise_stdio(live: Option<&Live>) -> Result<(), ServeError> {
    let (stdin, stdout) = claim_stdio()?;
    let mut transport = StdioTransport::new(&stdin, &stdout);
    let mut exercise = exercise::Exercise::new();
    let served = match live {
        Some(live) => exercise.serve(&mut Watched::new(&mut transport, live)),
        None => exercise.serve(&mut transport),
    };
    transport.flush().and(served).map_err(ServeError::from)
}

/// Why a mock cannot start: each names the file, and the line where it
/// applies.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MockError {
    /// No transcript was given.
    #[error("no transcript to serve; name one or more")]
    NoTranscript,
    /// A transcript cannot be read.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// An ignore rule of a transcript's header does not parse.
    #[error("{}:1: {message}", .path.display())]
    Ignore {
        /// The transcript.
        path: PathBuf,
        /// What is wrong with the rule.
        message: String,
    },
    /// The `mcp-replay.json` near a transcript cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A transcript's redaction patterns do not compile.
    #[error("{}:1: the header's redactions cannot be used", .path.display())]
    Redact {
        /// The transcript.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: RedactError,
    },
    /// A recorded line is JSON beyond the limits of what mcp-replay reads
    /// as a message: the mock could neither match it nor answer with it.
    #[error(
        "{}:{line}: the recorded {side} line cannot be read as a message ({why}); the mock cannot serve it",
        .path.display()
    )]
    Unreadable {
        /// The transcript.
        path: PathBuf,
        /// The line of the event.
        line: usize,
        /// `client` or `server`.
        side: &'static str,
        /// What is beyond the limits.
        why: &'static str,
    },
}

/// Recorded sessions, ready to be served.
#[derive(Debug)]
pub struct Mock {
    recorded: Recorded,
    strict: bool,
    /// Fills the placeholders of the variables named for the run.
    filler: Redactor,
}

impl Mock {
    /// A mock of the transcripts at `paths`, served in the order given.
    ///
    /// # Errors
    ///
    /// [`MockError`] when a transcript cannot be read or used.
    pub fn load(paths: &[PathBuf]) -> Result<Mock, MockError> {
        Ok(Mock {
            recorded: Recorded::read(paths)?,
            strict: false,
            filler: Redactor::default(),
        })
    }

    /// The same mock answering exact matches only (`--strict`).
    pub fn strict(mut self, strict: bool) -> Mock {
        self.strict = strict;
        self
    }

    /// The same mock filling the placeholders `[REDACTED:NAME]` of the
    /// recorded lines it sends with the values of the variables `names`
    /// (`--fill-env`); any other placeholder is sent as it stands. A
    /// transcript's own list of redacted variables fills nothing: it would
    /// let a recording pull any variable of the mock's environment into
    /// what the client is sent.
    pub fn fill_env(mut self, names: &[String]) -> Mock {
        self.filler = filler(names, |name| std::env::var(name).ok());
        self
    }

    /// Serves the client on stdin and stdout until stdin ends.
    ///
    /// # Errors
    ///
    /// [`ServeError::Transport`] when the client's end of the channel
    /// dies, [`ServeError::ClaimStdio`] when stdin and stdout cannot be
    /// taken.
    pub fn serve_stdio(&self) -> Result<(), ServeError> {
        self.serve_stdio_judged(None)
    }

    /// Serves the client on stdin and stdout until stdin ends, every line
    /// of either side judged by `live` when given (the host laws, as
    /// `mcp-replay mock --judge-host` holds the host to them).
    ///
    /// # Errors
    ///
    /// As [`Mock::serve_stdio`].
    pub fn serve_stdio_judged(&self, live: Option<&Live>) -> Result<(), ServeError> {
        let (stdin, stdout) = claim_stdio()?;
        let mut transport = StdioTransport::new(&stdin, &stdout);
        let served = match live {
            Some(live) => self.serve(&mut Watched::new(&mut transport, live)),
            None => self.serve(&mut transport),
        };
        transport.flush().and(served).map_err(ServeError::from)
    }

    /// Serves the client at the other end of `transport` until its input
    /// ends: every request is answered once, no notification is, and a
    /// line that is no frame gets -32700.
    ///
    /// # Errors
    ///
    /// The transport's error when the channel dies.
    pub fn serve(&self, transport: &mut impl Transport) -> Result<(), TransportError> {
        let mut live = Conversation {
            mock: self,
            matcher: Matcher::new(&self.recorded, self.strict),
            session: Session::Undecided,
            parked: Vec::new(),
            preamble: !self.recorded.preamble.is_empty(),
            asked: 0,
        };
        let mut line = Vec::with_capacity(4096);
        while transport.read_line(&mut line)? {
            live.line(&line, transport)?;
        }
        // The client can answer nothing more: what waited for it goes out
        // without it, so every request is answered.
        for parked in std::mem::take(&mut live.parked) {
            live.play(parked.run, transport, false)?;
        }
        transport.flush()
    }
}

/// One call being played: which, how far, for whom.
#[derive(Debug)]
struct Run {
    call: usize,
    next: usize,
    id: RequestId,
    token: Option<Value>,
    revision: Option<Revision>,
    responded: bool,
}

/// A run waiting for the client's answer to a server request.
#[derive(Debug)]
struct Parked {
    waiting: RequestId,
    run: Run,
}

/// The state of one session.
struct Conversation<'m> {
    mock: &'m Mock,
    matcher: Matcher,
    session: Session,
    parked: Vec<Parked>,
    /// Whether the preamble is still to be sent.
    preamble: bool,
    /// How many server requests were sent under ids of the mock's own.
    asked: u64,
}

/// The lines a batch's members are answered with, held to go out as one
/// array.
struct Batch<'t, T> {
    inner: &'t mut T,
    lines: Vec<Vec<u8>>,
}

impl<T: Transport> Transport for Batch<'_, T> {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        self.inner.read_line(line)
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), TransportError> {
        self.lines.push(line.to_vec());
        Ok(())
    }
}

impl Conversation<'_> {
    /// One inbound line; in a 2025-03-26 session an array is a batch
    /// (MCP 2025-03-26 basic#batching), whose members are answered in one
    /// array, none for notifications, as the core library answers it.
    fn line(&mut self, line: &[u8], transport: &mut impl Transport) -> Result<(), TransportError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if matches!(self.session, Session::Legacy(revision) if revision.batches())
            && line.first() == Some(&b'[')
            && crate::jsonrpc::too_many_values(line).is_none()
            && let Ok(members) =
                serde_json::from_slice::<Vec<Box<serde_json::value::RawValue>>>(line)
            && !members.is_empty()
        {
            let mut batch = Batch {
                inner: transport,
                lines: Vec::new(),
            };
            for member in &members {
                self.member(member.get().as_bytes(), &mut batch)?;
            }
            if batch.lines.is_empty() {
                return Ok(());
            }
            let mut answers = vec![b'['];
            answers.extend_from_slice(&batch.lines.join(&b","[..]));
            answers.push(b']');
            return transport.write_line(&answers);
        }
        self.member(line, transport)
    }

    /// One message, or one member of a batch.
    fn member(
        &mut self,
        line: &[u8],
        transport: &mut impl Transport,
    ) -> Result<(), TransportError> {
        match Frame::parse(line) {
            Frame::Request { id, method, params } => {
                if std::mem::take(&mut self.preamble) {
                    for (_, action) in &self.mock.recorded.preamble {
                        let (Action::Notify(message) | Action::Ask(message)) = action else {
                            continue;
                        };
                        self.send(message, transport)?;
                    }
                }
                self.request(id, &method, params.as_ref(), transport)
            }
            Frame::Response { id: Some(id), .. } => {
                if let Some(at) = self.parked.iter().position(|p| p.waiting == id) {
                    let parked = self.parked.remove(at);
                    self.play(parked.run, transport, true)?;
                }
                Ok(())
            }
            // JSON-RPC 2.0 §4: only a missing id makes a notification, and
            // MCP allows no null id; the answer carries the request's id,
            // null, as the core library writes it.
            Frame::NullId { .. } => transport.write_line(&error_line(
                &Id::Null,
                ErrorCode::INVALID_REQUEST,
                crate::jsonrpc::NULL_ID_MESSAGE,
                None,
            )),
            // Notifications are never answered; a response to nothing the
            // mock asked answers nothing.
            Frame::Notification { .. } | Frame::Response { .. } => Ok(()),
            Frame::Malformed { reason, id } => {
                let wire = match id {
                    Some(id) => Id::Echo(id),
                    None => self.unknown_id(),
                };
                transport.write_line(&error_line(
                    &wire,
                    ErrorCode::PARSE_ERROR,
                    &format!("parse error: {reason}"),
                    None,
                ))
            }
        }
    }

    /// How an error writes an id that could not be read, as the core
    /// library writes it: absent where the revision's schema allows it,
    /// else `null`.
    fn unknown_id(&self) -> Id {
        let absent = match self.session {
            Session::Undecided => false,
            Session::Legacy(revision) => revision.error_id_may_be_absent(),
            Session::Modern => true,
        };
        if absent { Id::Absent } else { Id::Null }
    }

    fn request(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<&Value>,
        transport: &mut impl Transport,
    ) -> Result<(), TransportError> {
        let raw = params.and_then(|params| serde_json::value::to_raw_value(params).ok());
        let raw = raw.as_deref();
        // A mock of legacy sessions only is a legacy server: a modern
        // request is served as any other, so `server/discover` gets -32601
        // and a client that speaks both eras falls back to `initialize`.
        if self.session == Session::Undecided
            && self.mock.recorded.speaks_modern()
            && method != method::INITIALIZE
            && speaks_modern(method, params)
        {
            self.session = Session::Modern;
        }
        let modern = self.session == Session::Modern;
        if modern {
            let checked = if method == method::INITIALIZE {
                Err(era::initialize_refused(raw))
            } else {
                era::check_modern(raw)
            };
            if let Err(refusal) = checked {
                return transport.write_line(&refusal_line(&id, &refusal));
            }
        }
        let request = Request {
            method,
            params,
            era: if modern { Era::Modern } else { Era::Legacy },
        };
        let revision = self.negotiate(method, params);
        let run = |call| Run {
            call,
            next: 0,
            id: id.clone(),
            token: recorded::progress_token(params),
            revision,
            responded: false,
        };
        if let Some(call) = self.matcher.exact(&self.mock.recorded, &request) {
            return self.play(run(call), transport, true);
        }
        if modern && Revision::LATEST.removed_methods().contains(&method) {
            let message = format!(
                "method not found: {method} (removed in {})",
                Revision::LATEST.as_str()
            );
            return transport.write_line(&error_line(
                &Id::Echo(id),
                ErrorCode::METHOD_NOT_FOUND,
                &message,
                None,
            ));
        }
        if !modern
            && method == method::PING
            && !Matcher::method_recorded(&self.mock.recorded, &request)
        {
            return transport.write_line(&result_line(&id, &json!({})));
        }
        if method == method::TOOLS_CALL
            && let Some(line) = self.refuse_call(&id, params)
        {
            return transport.write_line(&line);
        }
        if let Some(call) = self.matcher.loose(&self.mock.recorded, &request) {
            return self.play(run(call), transport, true);
        }
        if let Some(revision) = revision {
            return transport.write_line(&result_line(&id, &self.initialize_result(revision)));
        }
        transport.write_line(&self.unmatched(&id, &request))
    }

    /// The revision an `initialize` negotiates, which the session serves
    /// from now on: the client's, when it is a legacy revision this crate
    /// knows, else the recorded one, else 2024-11-05 (MCP-CORE r1 §1¶07).
    fn negotiate(&mut self, method: &str, params: Option<&Value>) -> Option<Revision> {
        if method != method::INITIALIZE || self.session == Session::Modern {
            return None;
        }
        let revision = params
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str)
            .and_then(Revision::parse)
            .filter(|revision| !revision.is_modern())
            .or(self.mock.recorded.legacy_revision)
            .unwrap_or(Revision::V2024_11_05);
        self.session = Session::Legacy(revision);
        Some(revision)
    }

    /// The refusal of a `tools/call` the recording would not have run: no
    /// tool name or arguments that are no object (-32602), a tool the
    /// recorded list lacks (-32601), arguments its input schema refuses (an
    /// `isError` result, MCP-CORE r1 §3¶19).
    fn refuse_call(&self, id: &RequestId, params: Option<&Value>) -> Option<Vec<u8>> {
        let refused =
            |code, message: String| Some(error_line(&Id::Echo(id.clone()), code, &message, None));
        let name = params.and_then(|params| params.get("name"));
        let Some(name) = name.and_then(Value::as_str) else {
            return refused(
                ErrorCode::INVALID_PARAMS,
                "tools/call params need a string `name`".to_owned(),
            );
        };
        let empty = Value::Object(Map::new());
        let arguments = params
            .and_then(|params| params.get("arguments"))
            .unwrap_or(&empty);
        if !arguments.is_object() {
            return refused(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "tools/call `arguments` must be an object, found {}",
                    crate::jsonrpc::json_kind(arguments)
                ),
            );
        }
        let tools = self.mock.recorded.tools.as_ref()?;
        let Some(schema) = tools.get(name) else {
            return refused(
                ErrorCode::METHOD_NOT_FOUND,
                format!("unknown tool `{name}`"),
            );
        };
        let violations = crate::schema::validate::validate(schema, arguments);
        if violations.is_empty() {
            return None;
        }
        let mut report = format!("invalid arguments for `{name}`:");
        for violation in &violations {
            report.push('\n');
            report.push_str(&violation.to_string());
        }
        let revision = match self.session {
            Session::Legacy(revision) => revision,
            Session::Undecided => Revision::V2024_11_05,
            Session::Modern => Revision::LATEST,
        };
        let meta = self.result_meta().to_string();
        Some(ToolOutput::error(report).answer_line(id, revision, &meta, Vec::new()))
    }

    /// The `_meta` of a modern result the mock makes: the recorded
    /// server's name and version.
    fn result_meta(&self) -> Value {
        json!({ meta::SERVER_INFO: self.server_info() })
    }

    fn server_info(&self) -> Value {
        self.mock.recorded.server_info.clone().unwrap_or_else(
            || json!({"name": "mcp-replay-mock", "version": env!("CARGO_PKG_VERSION")}),
        )
    }

    /// The `initialize` result of a recording that has none (a stateless
    /// session): the recorded discovery's capabilities and instructions,
    /// and the recorded server's name.
    fn initialize_result(&self, revision: Revision) -> Value {
        let discover = self.mock.recorded.discover.as_ref();
        let capabilities = discover
            .and_then(|d| d.get("capabilities"))
            .cloned()
            .unwrap_or_else(|| match self.mock.recorded.tools {
                Some(_) => json!({"tools": {}}),
                None => json!({}),
            });
        let mut result = json!({
            "protocolVersion": revision.as_str(),
            "capabilities": capabilities,
            "serverInfo": self.server_info(),
        });
        if let Some(instructions) = discover.and_then(|d| d.get("instructions")) {
            result["instructions"] = instructions.clone();
        }
        result
    }

    /// The error answering a request no recorded one matches, naming the
    /// closest recorded request.
    fn unmatched(&self, id: &RequestId, request: &Request<'_>) -> Vec<u8> {
        let recorded = &self.mock.recorded;
        let (code, what) = if Matcher::method_recorded(recorded, request) {
            (NO_MATCH, "no recorded request matches")
        } else {
            (
                ErrorCode::METHOD_NOT_FOUND,
                "method not found: nothing recorded answers",
            )
        };
        let asked = excerpt(&live_normalized(recorded, request));
        let mut message = format!("mcp-replay mock: {what} {} {asked}", request.method);
        let mut data = json!({"method": request.method});
        match Matcher::closest(recorded, request) {
            Some(index) => {
                let call = &recorded.calls[index];
                let at = call.at(&recorded.sources);
                let params = excerpt(&call.normalized);
                message.push_str(&format!(
                    "; the closest recorded request is {} {params} ({at})",
                    call.method
                ));
                data["closest"] = json!({"method": call.method, "params": params, "at": at});
            }
            None => message.push_str("; the transcripts record no request"),
        }
        if self.mock.strict && code == NO_MATCH {
            message.push_str(" (strict mode: exact params only)");
        }
        error_line(&Id::Echo(id.clone()), code, &message, Some(&data))
    }

    /// Plays `run` from where it stands: notifications and the response go
    /// out; a server request goes out and parks the run until the client
    /// answers it (when `wait`, else it is left out). A call the recording
    /// never answered is answered with an error.
    fn play(
        &mut self,
        mut run: Run,
        transport: &mut impl Transport,
        wait: bool,
    ) -> Result<(), TransportError> {
        let call = &self.mock.recorded.calls[run.call];
        while let Some(action) = call.script.get(run.next) {
            run.next += 1;
            match action {
                Action::Notify(message) => {
                    let retokened = match (&call.progress_token, &run.token) {
                        (Some(recorded), Some(live)) => retoken(message, recorded, live),
                        _ => None,
                    };
                    self.send(retokened.as_deref().unwrap_or(message), transport)?;
                }
                Action::Ask(message) => {
                    if !wait {
                        continue;
                    }
                    let recorded = splice::member(message, "id")
                        .and_then(|id| serde_json::from_str::<Value>(id).ok())
                        .and_then(|id| RequestId::from_value(&id));
                    let (waiting, fresh) = match recorded {
                        Some(id) if !self.parked.iter().any(|p| p.waiting == id) => (id, None),
                        _ => {
                            // The recorded id is in flight already: the
                            // client could not tell the answers apart.
                            self.asked += 1;
                            let id = RequestId::string(format!("mcp-replay-mock-{}", self.asked));
                            let text =
                                splice::set_member(message, "id", &id.to_value().to_string());
                            (id, text)
                        }
                    };
                    self.send(fresh.as_deref().unwrap_or(message), transport)?;
                    self.parked.push(Parked { waiting, run });
                    return Ok(());
                }
                Action::Respond(message) => {
                    let mut message =
                        splice::set_member(message, "id", &run.id.to_value().to_string())
                            .unwrap_or_else(|| message.clone());
                    if let Some(revision) = run.revision
                        && let Some(rewritten) = renegotiate(&message, revision)
                    {
                        message = rewritten;
                    }
                    self.send(&message, transport)?;
                    run.responded = true;
                }
            }
        }
        if !run.responded {
            let message = format!(
                "mcp-replay mock: the recording has no answer to this request ({})",
                call.at(&self.mock.recorded.sources)
            );
            transport.write_line(&error_line(&Id::Echo(run.id), NO_MATCH, &message, None))?;
        }
        Ok(())
    }

    /// Sends a recorded line, each member named once (`splice::unique`),
    /// the secrets of the variables named for the run put back.
    fn send(&self, line: &str, transport: &mut impl Transport) -> Result<(), TransportError> {
        let line = splice::unique(line).unwrap_or(std::borrow::Cow::Borrowed(line));
        transport.write_line(&self.mock.filler.restore(line.as_bytes()))
    }
}

/// A recorded progress notification with the live request's progress
/// token in place of the recorded one; `None` when it carries another.
fn retoken(message: &str, recorded: &Value, live: &Value) -> Option<String> {
    let params = splice::member(message, "params")?;
    let token = splice::member(params, meta::PROGRESS_TOKEN)?;
    if serde_json::from_str::<Value>(token).ok()? != *recorded {
        return None;
    }
    let params = splice::set_member(params, meta::PROGRESS_TOKEN, &live.to_string())?;
    splice::set_member(message, "params", &params)
}

/// A recorded `initialize` answer naming the revision the live session
/// negotiated; `None` when it has no `protocolVersion` to change.
fn renegotiate(message: &str, revision: Revision) -> Option<String> {
    let result = splice::member(message, "result")?;
    splice::member(result, "protocolVersion")?;
    let version = Value::from(revision.as_str()).to_string();
    let result = splice::set_member(result, "protocolVersion", &version)?;
    splice::set_member(message, "result", &result)
}

/// The id of an error answer.
enum Id {
    Echo(RequestId),
    Null,
    Absent,
}

fn error_line(id: &Id, code: ErrorCode, message: &str, data: Option<&Value>) -> Vec<u8> {
    let mut error = json!({"code": code.0, "message": message});
    if let Some(data) = data {
        error["data"] = data.clone();
    }
    let mut line = json!({"jsonrpc": "2.0"});
    match id {
        Id::Echo(id) => line["id"] = id.to_value(),
        Id::Null => line["id"] = Value::Null,
        Id::Absent => {}
    }
    line["error"] = error;
    line.to_string().into_bytes()
}

fn refusal_line(id: &RequestId, refusal: &Refusal) -> Vec<u8> {
    error_line(
        &Id::Echo(id.clone()),
        refusal.code,
        &refusal.message,
        refusal.data.as_ref(),
    )
}

fn result_line(id: &RequestId, result: &Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result})
        .to_string()
        .into_bytes()
}

#[cfg(test)]
mod tests;
