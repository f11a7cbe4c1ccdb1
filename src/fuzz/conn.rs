//! One server process as fuzz speaks to it: the checker's client over a
//! [`ServerProcess`], the era the session speaks, every request and answer
//! kept in a log a finding's transcript is written from.
//!
//! The client reads every stdout line as the stdio contract demands and
//! makes the observations of the live laws (`request-answered-once`,
//! `schema` with each tool's `outputSchema`); this room adds what fuzz
//! needs around it: requests with the era's params, answers by id in any
//! order, the lines that are no message, and how the process ended.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::client::duration::after;
use crate::client::{Answer, Client, Kind, Observation, Received, Unjudged};
use crate::jsonrpc::wire;
use crate::jsonrpc::{ErrorCode, RequestId, RpcError, method, notification_line, request_line};
use crate::process::{ServerCommand, ServerProcess, SpawnError};
use crate::revision::{Era, Revision, meta};
use crate::transcript::Redactor;

/// The revision a legacy session asks for: the latest with a handshake.
pub(super) const LEGACY: Revision = Revision::V2025_11_25;

/// The revision a modern session speaks.
pub(super) const MODERN: Revision = Revision::V2026_07_28;

/// How many messages breaking the schema one process reports one by one.
const MAX_SCHEMA_FINDINGS: usize = 50;

/// The log of one process keeps at most this many bytes of lines; a longer
/// session's transcript cannot be written from it.
const MAX_LOG: usize = 16 << 20;

/// Pages of `tools/list` followed, at most.
const MAX_PAGES: usize = 64;

/// What every process of a run shares: how to start it and the deadlines.
#[derive(Debug, Clone)]
pub(super) struct Setup {
    /// The command, with its working directory.
    pub command: ServerCommand,
    /// The deadline of one call, and of each step after the opening; a
    /// progress notification of a call starts its clock again.
    pub call_timeout: Duration,
    /// The most a call may take, whatever progress it reports.
    pub call_limit: Duration,
    /// The least a fresh process has for its first answer.
    pub startup_timeout: Duration,
    /// How long a process may take to exit once it closed stdout.
    pub grace: Duration,
    /// Secrets of the checker's environment, kept out of every quote and
    /// transcript.
    pub redactor: Redactor,
    /// When the run's time budget ends: no wait goes past it, and a wait it
    /// cuts short is [`Lost::Budget`], never a hang.
    pub run_end: Instant,
}

impl Setup {
    /// The wait for a fresh process's first answer: three call deadlines,
    /// or the startup timeout if that is longer (as the probes allow).
    pub fn startup_wait(&self) -> Duration {
        self.call_timeout
            .saturating_mul(3)
            .max(self.startup_timeout)
    }
}

/// One line of a process's session, as the log keeps it.
#[derive(Debug, Clone)]
pub(super) enum Logged {
    /// A line the client sent; `id` for a request.
    Sent {
        line: Vec<u8>,
        id: Option<RequestId>,
    },
    /// A message line the server wrote: a response (`answers`: the id of
    /// the request it answers) or a server request.
    Got {
        line: Vec<u8>,
        answers: Option<RequestId>,
    },
    /// The revision the session speaks, once the handshake named it.
    Protocol(Revision),
}

/// The lines of one process, in the order they went and came.
#[derive(Debug, Clone, Default)]
pub(super) struct Log {
    pub lines: Vec<Logged>,
    bytes: usize,
    /// Lines were left out past [`MAX_LOG`].
    pub overflowed: bool,
}

impl Log {
    fn push(&mut self, logged: Logged) {
        let size = match &logged {
            Logged::Sent { line, .. } | Logged::Got { line, .. } => line.len(),
            Logged::Protocol(_) => 0,
        };
        if self.bytes + size > MAX_LOG {
            self.overflowed = true;
            return;
        }
        self.bytes += size;
        self.lines.push(logged);
    }
}

/// What a wait brought.
#[derive(Debug)]
pub(super) enum Got {
    /// The answer to a request sent with `id`.
    Answer(RequestId, Answer),
    /// A stdout line that is no JSON-RPC message, quoted.
    Noise(String),
    /// A progress notification for the request sent with this id.
    Progress(RequestId),
    /// The server closed stdout.
    Closed,
    /// The deadline passed.
    Timeout,
}

/// Why a process could not be opened for fuzzing: no finding, an input
/// that could not be checked.
#[derive(Debug)]
pub(super) struct OpenError {
    pub message: String,
}

impl From<SpawnError> for OpenError {
    fn from(error: SpawnError) -> OpenError {
        OpenError {
            message: crate::report::chain(&error),
        }
    }
}

/// What the opening of the first process learnt.
#[derive(Debug, Clone)]
pub(super) struct Opened {
    pub era: Era,
    pub revision: Revision,
    /// Every tool of `tools/list`, as served.
    pub tools: Vec<Value>,
    /// What is wrong with the pagination, in words.
    pub list_problems: Vec<String>,
}

/// One server process spoken to.
pub(super) struct Conn<'a> {
    setup: &'a Setup,
    client: Client<ServerProcess>,
    revision: Option<Revision>,
    next_id: i64,
    /// Answers read before anyone waited for them.
    early: HashMap<RequestId, Answer>,
    /// What came and was not asked for yet, in order.
    queue: VecDeque<Got>,
    pub log: Log,
    /// The observations the client made, not taken yet.
    observations: Vec<Observation>,
    /// What the client could not decide, not taken yet.
    unjudged: Vec<Unjudged>,
    /// Whether the server has answered anything.
    answered: bool,
}

impl<'a> Conn<'a> {
    /// Starts a fresh process.
    pub fn spawn(setup: &'a Setup) -> Result<Conn<'a>, SpawnError> {
        let process = ServerProcess::spawn(&setup.command)?;
        Ok(Conn {
            setup,
            client: Client::new(process, setup.redactor.clone(), MAX_SCHEMA_FINDINGS),
            revision: None,
            next_id: 0,
            early: HashMap::new(),
            queue: VecDeque::new(),
            log: Log::default(),
            observations: Vec::new(),
            unjudged: Vec::new(),
            answered: false,
        })
    }

    /// Whether the session speaks 2026-07-28.
    fn modern(&self) -> bool {
        self.revision.is_some_and(Revision::is_modern)
    }

    /// Holds every later message to `revision`.
    fn speak(&mut self, revision: Revision) {
        self.revision = Some(revision);
        self.client.speak(revision);
        self.log.push(Logged::Protocol(revision));
    }

    /// The params of a request in the session's era: with 2026-07-28's
    /// `_meta` in a modern session.
    fn params(&self, params: Option<Value>) -> Option<Value> {
        if !self.modern() {
            return params;
        }
        let mut object = match params {
            Some(Value::Object(object)) => object,
            _ => Map::new(),
        };
        object.insert("_meta".to_owned(), modern_meta());
        Some(Value::Object(object))
    }

    /// Sends a request; returns its id.
    pub fn request(&mut self, name: &str, params: Option<Value>) -> RequestId {
        self.request_with_token(name, params, false)
    }

    /// Sends a request, with its id as its `progressToken` when `progress`;
    /// returns its id.
    fn request_with_token(
        &mut self,
        name: &str,
        params: Option<Value>,
        progress: bool,
    ) -> RequestId {
        self.next_id += 1;
        let id = RequestId::number(self.next_id);
        let mut params = self.params(params);
        if progress {
            let object = params.get_or_insert_with(|| Value::Object(Map::new()));
            if let Some(object) = object.as_object_mut() {
                let meta = object
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert(meta::PROGRESS_TOKEN.to_owned(), id.to_value());
                }
            }
        }
        let line = request_line(&id, name, params.as_ref());
        self.client.expect_line(id.clone(), name, line.as_bytes());
        self.send_line(line.into_bytes(), Some(id.clone()));
        id
    }

    /// Sends a `tools/call` of `tool` with `arguments` (none when `None`),
    /// its id as its `progressToken`, so that a tool that reports progress
    /// gets more time (MCP 2025-11-25 basic/lifecycle#timeouts).
    pub fn call(&mut self, tool: &str, arguments: Option<&Value>) -> RequestId {
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::from(tool));
        if let Some(arguments) = arguments {
            params.insert("arguments".to_owned(), arguments.clone());
        }
        self.request_with_token(method::TOOLS_CALL, Some(Value::Object(params)), true)
    }

    /// The request that shows the server still serves after a call: `ping`
    /// where the revision has it, else `tools/list`.
    pub fn next_request(&mut self) -> (RequestId, &'static str) {
        let name = match self.revision {
            Some(revision) if !revision.has_ping() => method::TOOLS_LIST,
            _ => method::PING,
        };
        (self.request(name, None), name)
    }

    fn notify(&mut self, name: &str) {
        let line = notification_line(name, None);
        self.client.sent_notification(name);
        self.send_line(line.into_bytes(), None);
    }

    fn send_line(&mut self, mut line: Vec<u8>, id: Option<RequestId>) {
        self.log.push(Logged::Sent {
            line: line.clone(),
            id,
        });
        line.push(b'\n');
        self.client.send(line);
    }

    /// The next thing that comes, until `deadline`.
    pub fn next(&mut self, deadline: Instant) -> Got {
        loop {
            if let Some(got) = self.queue.pop_front() {
                return got;
            }
            match self.client.recv(deadline) {
                Received::Timeout => return Got::Timeout,
                Received::Closed => return Got::Closed,
                Received::Line {
                    bytes, messages, ..
                } => {
                    self.observations.extend(self.client.take_observations());
                    if messages.is_empty() {
                        let shown = self.setup.redactor.redact(&bytes);
                        self.queue.push_back(Got::Noise(wire::excerpt(&shown)));
                        continue;
                    }
                    for message in messages {
                        self.take(message);
                    }
                }
            }
        }
    }

    /// Takes in one message: an answer is queued, a server request declined
    /// as a client with nothing to offer does.
    fn take(&mut self, message: crate::client::Message) {
        let line = message.value.to_string().into_bytes();
        let answer = match &message.kind {
            Kind::Response { .. } => message.answer(),
            _ => Ok(Value::Null),
        };
        match message.kind {
            Kind::Response {
                reply: crate::client::Reply::Answers { sent, .. },
                ..
            } => {
                self.answered = true;
                self.log.push(Logged::Got {
                    line,
                    answers: Some(sent.clone()),
                });
                self.queue.push_back(Got::Answer(sent, answer));
            }
            // A second answer or one to no request: the client observed it.
            Kind::Response { .. } => {}
            Kind::Notification { method } if method == method::PROGRESS => {
                if let Some(token) = message
                    .value
                    .pointer("/params/progressToken")
                    .and_then(RequestId::from_value)
                {
                    self.queue.push_back(Got::Progress(token));
                }
            }
            Kind::Notification { .. } => {}
            Kind::Request { id, method } => {
                self.log.push(Logged::Got {
                    line,
                    answers: None,
                });
                let why = format!("the mcp-replay fuzz client does not serve {method}");
                let answer = if method == method::PING {
                    crate::jsonrpc::Response::ok(id, json!({}))
                } else {
                    crate::jsonrpc::Response::error(Some(id), ErrorCode::METHOD_NOT_FOUND, why)
                };
                self.send_line(answer.to_line().into_bytes(), None);
            }
        }
    }

    /// The observations the client made since the last call.
    pub fn take_observations(&mut self) -> Vec<Observation> {
        self.observations.extend(self.client.take_observations());
        self.unjudged.extend(self.client.take_unjudged());
        std::mem::take(&mut self.observations)
    }

    /// What the client could not decide since the last call.
    pub fn take_unjudged(&mut self) -> Vec<Unjudged> {
        self.unjudged.extend(self.client.take_unjudged());
        std::mem::take(&mut self.unjudged)
    }

    /// Waits up to `wait` for the answer to `id`; lines that are no message
    /// are handed to `noise`, other answers kept for whoever asks.
    pub fn answer_to(
        &mut self,
        id: &RequestId,
        wait: Duration,
        noise: &mut Vec<String>,
    ) -> Result<Answer, Lost> {
        let start = Instant::now();
        let limit = after(start, self.setup.call_limit.max(wait));
        let mut deadline = after(start, wait);
        loop {
            if let Some(answer) = self.early.remove(id) {
                return Ok(answer);
            }
            match self.next(deadline.min(self.setup.run_end)) {
                // Work is under way: the clock starts again, up to the limit.
                Got::Progress(token) if token == *id => {
                    deadline = after(Instant::now(), wait).min(limit);
                }
                Got::Progress(_) => {}
                Got::Answer(sent, answer) if sent == *id => return Ok(answer),
                Got::Answer(sent, answer) => {
                    self.early.insert(sent, answer);
                }
                Got::Noise(line) => noise.push(line),
                Got::Closed => return Err(Lost::Closed),
                Got::Timeout if deadline > self.setup.run_end => return Err(Lost::Budget),
                Got::Timeout => return Err(Lost::Timeout(wait)),
            }
        }
    }

    /// How the process ended, in words: `exited with status 101 (stderr
    /// ends: …)`, or `closed stdout` when it still runs.
    pub fn exit_words(&mut self) -> String {
        let deadline = after(Instant::now(), self.setup.grace);
        self.client.ending_words(deadline)
    }

    /// Stops the process now.
    pub fn kill(&mut self) {
        self.client.channel().kill();
    }

    /// Closes stdin and gives the process its grace to end, then kills it.
    pub fn close(mut self) {
        self.client.channel().close_stdin();
        let deadline = after(Instant::now(), self.setup.grace);
        if self.client.channel().wait(deadline).is_none() {
            self.kill();
        }
    }

    /// Era detection as the spec tells a client that speaks both: a
    /// `server/discover` first; a `DiscoverResult` (or an error only a
    /// modern server gives) means 2026-07-28, any other error means a legacy
    /// server, which is then opened with `initialize` on the same process;
    /// no answer means a legacy server that does not answer before its
    /// handshake, opened on a fresh process.
    pub fn detect(setup: &'a Setup) -> Result<(Conn<'a>, Opened), OpenError> {
        let mut conn = Conn::spawn(setup)?;
        conn.next_id += 1;
        let id = RequestId::number(conn.next_id);
        let params = json!({"_meta": modern_meta()});
        let line = request_line(&id, method::SERVER_DISCOVER, Some(&params));
        conn.client
            .expect_answer(id.clone(), method::SERVER_DISCOVER);
        // Not logged: a finding's transcript opens as the era is known.
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        conn.client.send(bytes);
        let mut noise = Vec::new();
        match conn.answer_to(&id, setup.startup_wait(), &mut noise) {
            // A modern server that does not serve 2026-07-28 itself (its
            // versions are older drafts) is spoken to as a legacy one.
            Ok(Ok(result)) if !serves_modern(&result) => {
                drop(conn);
                let mut fresh = Conn::spawn(setup)?;
                let opened = fresh.handshake()?;
                Ok((fresh, opened))
            }
            Ok(Ok(_)) => {
                conn.take_observations();
                conn.speak(MODERN);
                let opened = conn.list(MODERN, Era::Modern)?;
                Ok((conn, opened))
            }
            Ok(Err(error)) if is_modern_error(&error) => Err(OpenError {
                message: format!(
                    "server/discover for {MODERN} answered {}: the server speaks the modern era, but not {MODERN}, the revision fuzz speaks",
                    error_words(&error)
                ),
            }),
            Ok(Err(_)) => {
                conn.take_observations();
                conn.log = Log::default();
                let opened = conn.handshake()?;
                Ok((conn, opened))
            }
            Err(Lost::Timeout(wait)) if !conn.client.wrote_anything() => {
                // A legacy server may stay silent before its handshake; one
                // that is only slow to start says nothing either.
                drop(conn);
                let mut fresh = Conn::spawn(setup)?;
                let opened = fresh.handshake().map_err(|error| OpenError {
                    message: format!(
                        "{} (server/discover got no answer within {} either)",
                        error.message,
                        super::seconds(wait)
                    ),
                })?;
                Ok((fresh, opened))
            }
            Err(Lost::Budget) => Err(OpenError {
                message: "the time budget ran out before server/discover was answered".to_owned(),
            }),
            Err(Lost::Timeout(_)) | Err(Lost::Closed) => {
                let mut fresh = Conn::spawn(setup)?;
                let opened = fresh.handshake()?;
                drop(conn);
                Ok((fresh, opened))
            }
        }
    }

    /// Opens a fresh process in the era the first one spoke.
    pub fn open(setup: &'a Setup, era: Era) -> Result<(Conn<'a>, Opened), OpenError> {
        let mut conn = Conn::spawn(setup)?;
        let opened = match era {
            Era::Modern => {
                conn.speak(MODERN);
                conn.list(MODERN, Era::Modern)?
            }
            Era::Legacy => conn.handshake()?,
        };
        Ok((conn, opened))
    }

    /// `initialize` for [`LEGACY`], then `notifications/initialized`, then
    /// the tool list.
    fn handshake(&mut self) -> Result<Opened, OpenError> {
        let params = json!({
            "protocolVersion": LEGACY.as_str(),
            "capabilities": {},
            "clientInfo": {"name": "mcp-replay-fuzz", "version": env!("CARGO_PKG_VERSION")},
        });
        let id = self.request(method::INITIALIZE, Some(params));
        let mut noise = Vec::new();
        let answer = match self.answer_to(&id, self.setup.startup_wait(), &mut noise) {
            Ok(answer) => answer,
            Err(lost) => return Err(self.lost("initialize", lost)),
        };
        let result = answer.map_err(|error| OpenError {
            message: format!("initialize answered {}", error_words(&error)),
        })?;
        let answered = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let Some(revision) = Revision::parse(&answered).filter(|r| !r.is_modern()) else {
            return Err(OpenError {
                message: format!(
                    "initialize answered the revision {answered:?}, which is none of the legacy revisions mcp-replay knows"
                ),
            });
        };
        self.speak(revision);
        self.notify(method::INITIALIZED);
        self.list(revision, Era::Legacy)
    }

    /// Every page of `tools/list`.
    fn list(&mut self, revision: Revision, era: Era) -> Result<Opened, OpenError> {
        let mut tools = Vec::new();
        let mut problems = Vec::new();
        let mut cursors = std::collections::BTreeSet::new();
        let mut cursor: Option<String> = None;
        for page in 1..=MAX_PAGES {
            let params = cursor.as_ref().map(|cursor| json!({"cursor": cursor}));
            let id = self.request(method::TOOLS_LIST, params);
            let wait = if self.answered {
                self.setup.call_timeout
            } else {
                self.setup.startup_wait()
            };
            let mut noise = Vec::new();
            let answer = match self.answer_to(&id, wait, &mut noise) {
                Ok(answer) => answer,
                Err(lost) => return Err(self.lost("tools/list", lost)),
            };
            let result = match answer {
                Ok(result) => result,
                Err(error) if page == 1 => {
                    return Err(OpenError {
                        message: format!("tools/list answered {}", error_words(&error)),
                    });
                }
                Err(error) => {
                    problems.push(format!("page {page} answered {}", error_words(&error)));
                    break;
                }
            };
            match result.get("tools") {
                Some(Value::Array(page_tools)) => tools.extend(page_tools.iter().cloned()),
                _ => problems.push(format!("page {page} has no `tools` array")),
            }
            match result.get("nextCursor") {
                Some(Value::String(next)) if cursors.insert(next.clone()) => {
                    cursor = Some(next.clone());
                }
                Some(Value::String(next)) => {
                    problems.push(format!("the cursor {next:?} comes back"));
                    break;
                }
                _ => break,
            }
        }
        Ok(Opened {
            era,
            revision,
            tools,
            list_problems: problems,
        })
    }

    fn lost(&mut self, what: &str, lost: Lost) -> OpenError {
        let message = match lost {
            Lost::Timeout(wait) if !self.client.wrote_anything() => format!(
                "not fuzzed: the server wrote nothing on stdout within {} of its start; a server that starts slowly needs a longer `--startup-timeout`",
                super::seconds(wait)
            ),
            Lost::Timeout(wait) => {
                format!("{what} got no answer within {}", super::seconds(wait))
            }
            Lost::Closed => format!("the server {} before answering {what}", self.exit_words()),
            Lost::Budget => format!("the time budget ran out before {what} was answered"),
        };
        self.kill();
        OpenError { message }
    }
}

/// Why an answer did not come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lost {
    /// The server closed stdout.
    Closed,
    /// The wait passed.
    Timeout(Duration),
    /// The run's time budget ended before the wait did: no answer, and no
    /// finding either.
    Budget,
}

/// The `_meta` of a 2026-07-28 request.
pub(super) fn modern_meta() -> Value {
    json!({
        meta::PROTOCOL_VERSION: MODERN.as_str(),
        meta::CLIENT_CAPABILITIES: {},
        meta::CLIENT_INFO: {"name": "mcp-replay-fuzz", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// Whether a `DiscoverResult` names 2026-07-28 among its versions (one
/// that names none is taken at its word too).
fn serves_modern(result: &Value) -> bool {
    match result.get("supportedVersions").and_then(Value::as_array) {
        Some(versions) => versions.iter().any(|v| v.as_str() == Some(MODERN.as_str())),
        None => true,
    }
}

/// Whether an error to `server/discover` is one only a modern server gives.
fn is_modern_error(error: &RpcError) -> bool {
    matches!(
        error.code,
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
    )
}

/// An error in words: `error -32601 ("method not found")`.
pub(super) fn error_words(error: &RpcError) -> String {
    format!(
        "error {} ({:?})",
        error.code,
        wire::excerpt(error.message.as_bytes())
    )
}
