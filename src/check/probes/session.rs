//! One probe session: a fresh server process spoken to as a client, with
//! every wait bounded and every stray line accounted for.
//!
//! The session reads the server's stdout through [`wire::classify`], so a
//! line that is no protocol message counts against `stdout-is-protocol` (or,
//! before the first response, against `quiet-before-serving`). Responses are
//! matched to the requests sent by id; a response that matches none is a
//! *stray*, and what a stray means depends on what was sent just before it:
//! inside a fence (a notification or malformed line followed by a ping) it
//! answers that line, elsewhere it is unsolicited.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::check::duration::after;
use crate::check::probes::{Ledger, ProbeOptions};
use crate::check::schema;
use crate::check::wire;
use crate::jsonrpc::{
    ErrorCode, Frame, RequestId, Response, RpcError, method, notification_line, request_line,
};
use crate::laws::LawId;
use crate::process::{Output, Recv, ServerCommand, ServerProcess, SpawnError, shell_status};
use crate::revision::Revision;
use crate::transcript::Redactor;

/// What the server answered: a result or an error.
pub(super) type Answer = Result<Value, RpcError>;

/// A response that answers no request the session is waiting for.
#[derive(Debug, Clone)]
pub(super) struct Stray {
    /// Its id; `None` when absent or null.
    pub id: Option<RequestId>,
    /// What it says.
    pub answer: Answer,
}

/// What the server said in `initialize`.
#[derive(Debug, Clone)]
pub(super) struct Init {
    /// The revision it answered.
    pub revision: String,
    /// Its capabilities (`Value::Null` when absent).
    pub capabilities: Value,
}

impl Init {
    /// Whether the server declared the capability `name`.
    pub fn declares(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|v| !v.is_null())
    }
}

/// A fresh process has this many step timeouts (or the startup timeout, if
/// that is longer) to answer its first request: interpreters and package
/// runners start slowly, and the sessions start side by side on a machine
/// that may be busy.
const STARTUP_STEPS: u32 = 3;

/// The ids of probe requests that are numbers stay below this; string ids
/// hold numbers from here on, so that a server which turns a string id into
/// a number is caught rather than confused with another request.
const STRING_ID_BASE: i64 = 1000;

/// A client's view of one server process, with the ledger of what it found.
pub(super) struct Session<'a> {
    process: ServerProcess,
    options: &'a ProbeOptions,
    /// What the session found; its findings name the session.
    pub ledger: Ledger,
    /// The step under way, for findings made while reading.
    step: String,
    next_id: i64,
    /// The requests sent and not answered yet, oldest first.
    pending: Vec<RequestId>,
    /// How long after its start the server answered its first request (a
    /// settle window watched first included: its start may have hidden in
    /// it).
    first_answer: Option<Duration>,
    /// The method of every request sent, by id, for the `schema` law.
    methods: HashMap<RequestId, String>,
    /// The revision the server's last `initialize` answer named.
    revision: Option<Revision>,
    /// Whether any message was held to a revision's schema, and how many
    /// findings that made.
    schema_judged: bool,
    n_schema: usize,
    /// The requests answered, to tell a duplicate from a stray.
    answered: HashSet<RequestId>,
    /// Answers that arrived before anyone waited for them (out of order).
    early: HashMap<RequestId, Answer>,
    /// Collects strays while a fence is up.
    strays: Option<Vec<Stray>>,
    /// A response has arrived: the server is serving.
    serving: bool,
    /// Lines that were no protocol message, read before the first response.
    pub pre_serving: Tally,
    /// The first line that was no protocol message (before serving too: a
    /// banner is no message either), with the step it arrived in, and how
    /// many such lines there were.
    not_protocol: Option<(String, String)>,
    n_not_protocol: usize,
    /// Whether any protocol message arrived (so `stdout-is-protocol` was
    /// exercised).
    saw_message: bool,
    /// How many notifications of each method the server sent.
    pub notifications: BTreeMap<String, usize>,
    /// Batches are protocol messages on revision 2025-03-26.
    batches: bool,
    /// Why the session cannot go on, once it cannot.
    dead: Option<String>,
    /// The session is opening: a failure is a reason to skip, not a finding.
    prologue: bool,
    /// Secrets of the checker's environment, redacted from every line the
    /// server writes before it is classified, quoted or parsed.
    redactor: &'a Redactor,
}

impl<'a> Session<'a> {
    /// Starts a fresh server process for the session `name`.
    pub fn start(
        name: &'static str,
        command: &ServerCommand,
        options: &'a ProbeOptions,
        redactor: &'a Redactor,
    ) -> Result<Session<'a>, SpawnError> {
        let process = ServerProcess::spawn(command)?;
        Ok(Session {
            process,
            options,
            ledger: Ledger::new(command.display(), options.profile, name),
            step: "start".to_owned(),
            next_id: 0,
            pending: Vec::new(),
            first_answer: None,
            methods: HashMap::new(),
            revision: None,
            schema_judged: false,
            n_schema: 0,
            answered: HashSet::new(),
            early: HashMap::new(),
            strays: None,
            serving: false,
            pre_serving: Tally::default(),
            not_protocol: None,
            n_not_protocol: 0,
            saw_message: false,
            notifications: BTreeMap::new(),
            batches: false,
            dead: None,
            prologue: false,
            redactor,
        })
    }

    /// `line` with the secrets of the checker's environment redacted.
    fn redacted(&self, line: Vec<u8>) -> Vec<u8> {
        match self.redactor.redact(&line) {
            Cow::Owned(redacted) => redacted,
            Cow::Borrowed(_) => line,
        }
    }

    /// Names the step under way.
    pub fn step(&mut self, step: impl Into<String>) -> String {
        self.step = step.into();
        self.step.clone()
    }

    /// Why the session cannot go on, if it cannot.
    pub fn dead(&self) -> Option<&str> {
        self.dead.as_deref()
    }

    /// Skips `law` when the session cannot go on; returns whether it can.
    pub fn alive_for(&mut self, law: LawId) -> bool {
        match &self.dead {
            Some(reason) => {
                let reason = reason.clone();
                self.ledger.skip(law, reason);
                false
            }
            None => true,
        }
    }

    /// How long the server may take to exit after stdin closes or SIGTERM:
    /// the grace period, or twice the time from its start to its first
    /// answer if that is longer. A server that took seconds to start (an
    /// interpreter on a loaded machine) takes long to stop too, and that is
    /// the machine's pace, not the server's fault.
    pub fn grace(&self) -> Duration {
        let paced = self
            .first_answer
            .map_or(Duration::ZERO, |first| first.saturating_mul(2));
        self.options.grace.max(paced)
    }

    /// The options the probes run with.
    pub fn options(&self) -> &ProbeOptions {
        self.options
    }

    /// The server process, for signals, exits and stdin.
    pub fn process(&mut self) -> &mut ServerProcess {
        &mut self.process
    }

    /// A fresh number id.
    pub fn number_id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId::number(self.next_id)
    }

    /// A fresh string id that holds a number no number id will take.
    pub fn string_id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId::string((STRING_ID_BASE + self.next_id).to_string())
    }

    /// The request line for `id`, counted as pending once sent.
    pub fn request_with(&mut self, id: RequestId, name: &str, params: Option<Value>) -> String {
        let line = request_line(&id, name, params.as_ref());
        self.methods.insert(id.clone(), name.to_owned());
        self.pending.push(id);
        line
    }

    /// The `schema` law for one message the server wrote: the message as
    /// the revision in force allows (the one the last `initialize` answer
    /// named), and a response's result as its request's method's type.
    fn judge_schema(&mut self, value: &Value) {
        let method = value
            .get("id")
            .filter(|_| value.get("method").is_none())
            .and_then(RequestId::from_value)
            .and_then(|id| self.methods.get(&id).cloned());
        if method.as_deref() == Some(method::INITIALIZE)
            && let Some(result) = value.get("result")
        {
            self.revision = schema::negotiated(result);
        }
        let Some(revision) = self.revision else {
            return;
        };
        self.schema_judged = true;
        let violations = schema::violations(revision, value, method.as_deref());
        if violations.is_empty() || self.n_schema >= MAX_SCHEMA_FINDINGS {
            return;
        }
        self.n_schema += 1;
        let what = match (&method, value.get("method").and_then(Value::as_str)) {
            (Some(method), _) => format!("the answer to `{method}`"),
            (None, Some(name)) if value.get("id").is_some() => {
                format!("the server request `{name}`")
            }
            (None, Some(name)) => format!("the notification `{name}`"),
            (None, None) => "a response".to_owned(),
        };
        let step = self.step.clone();
        self.ledger.fail(
            LawId::Schema,
            &step,
            schema::describe(revision, &what, &violations),
        );
    }

    /// Sends lines in one write, each followed by a newline.
    pub fn send_lines(&mut self, lines: &[String]) {
        let mut bytes = Vec::new();
        for line in lines {
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
        self.process.send_raw(bytes);
    }

    /// Sends a request and waits for its answer; a timeout or a closed
    /// stdout is a finding of `law` at the current step, and ends the session.
    pub fn call(&mut self, law: LawId, name: &str, params: Option<Value>) -> Option<Answer> {
        let id = self.number_id();
        self.call_with(law, id, name, params)
    }

    /// [`Session::call`] with a chosen id.
    pub fn call_with(
        &mut self,
        law: LawId,
        id: RequestId,
        name: &str,
        params: Option<Value>,
    ) -> Option<Answer> {
        let wait = self.options.timeout;
        self.call_within(law, id, name, params, wait)
    }

    /// [`Session::call_with`] with a wait of its own.
    fn call_within(
        &mut self,
        law: LawId,
        id: RequestId,
        name: &str,
        params: Option<Value>,
        wait: Duration,
    ) -> Option<Answer> {
        if !self.alive_for(law) {
            return None;
        }
        let line = self.request_with(id.clone(), name, params);
        self.send_lines(&[line]);
        self.await_answer(law, &id, wait)
    }

    /// Sends `lines` with a `ping` right behind them, in one write, waits
    /// for the ping's answer, then sends a second `ping` and waits for that
    /// one too. Returns the strays that arrived before the second ping's
    /// answer; `None` (after a finding of `law`) when a ping went
    /// unanswered.
    ///
    /// A server that answers in order answers `lines` (if at all) before
    /// the first ping; JSON-RPC lets a server answer in any order, though,
    /// and one that answers the first ping before the line it read first
    /// has had a whole round trip more when the second ping's answer comes.
    pub fn fenced(&mut self, law: LawId, lines: &[String]) -> Option<Vec<Stray>> {
        if !self.alive_for(law) {
            return None;
        }
        let id = self.number_id();
        let mut lines = lines.to_vec();
        lines.push(self.request_with(id.clone(), method::PING, None));
        self.send_lines(&lines);
        self.strays = Some(Vec::new());
        let mut answer = self.await_answer(law, &id, self.options.timeout);
        if answer.is_some() {
            let second = self.number_id();
            let line = self.request_with(second.clone(), method::PING, None);
            self.send_lines(&[line]);
            answer = self.await_answer(law, &second, self.options.timeout);
        }
        let strays = self.strays.take().unwrap_or_default();
        answer.map(|_| strays)
    }

    /// Waits up to `wait` for the answer to `id`; see [`Session::call`].
    fn await_answer(&mut self, law: LawId, id: &RequestId, wait: Duration) -> Option<Answer> {
        let deadline = after(Instant::now(), wait);
        loop {
            if let Some(answer) = self.early.remove(id) {
                return Some(answer);
            }
            match self.next_response(deadline) {
                Next::Response(rid, answer) => self.route(rid, answer),
                // A server that has written nothing at all may be one that
                // starts slowly: no law is broken, and the probes could not
                // check it.
                Next::Timeout if !self.saw_message && self.n_not_protocol == 0 => {
                    self.ledger.silent.get_or_insert(wait);
                    self.stop(format!(
                        "the server wrote nothing on stdout within {} of its start",
                        seconds(wait)
                    ));
                    return None;
                }
                Next::Timeout => {
                    let message =
                        format!("no answer within {}; the server was stopped", seconds(wait));
                    self.fail_and_stop(law, message);
                    return None;
                }
                Next::Closed => {
                    let message = format!("the server {} before answering", self.exit_words());
                    self.fail_and_stop(law, message);
                    return None;
                }
            }
        }
    }

    /// Reads until stdout closes or `deadline` passes, routing responses,
    /// or, with `until_answered`, until no request is pending; returns
    /// whether stdout closed.
    pub fn drain(&mut self, deadline: Instant, until_answered: bool) -> bool {
        loop {
            if until_answered && self.pending.is_empty() {
                return false;
            }
            match self.next_response(deadline) {
                Next::Response(rid, answer) => self.route(rid, answer),
                Next::Timeout => return false,
                Next::Closed => return true,
            }
        }
    }

    /// The requests sent and not answered yet.
    pub fn pending(&self) -> &[RequestId] {
        &self.pending
    }

    /// Watches stdout until `deadline` before anything is sent; returns the
    /// lines that arrived (nothing should), leaving out protocol messages
    /// when `messages_allowed`. A line that is no message also counts
    /// against `stdout-is-protocol`.
    pub fn watch(&mut self, deadline: Instant, messages_allowed: bool) -> Tally {
        let mut lines = Tally::default();
        while let Recv::Output(Output::Line {
            bytes, eol, cut, ..
        }) = self.process.recv(deadline)
        {
            let bytes = self.redacted(bytes);
            let classified = if cut {
                Err(wire::cut(&bytes))
            } else {
                wire::classify(&bytes, self.batches)
            };
            let message = match classified {
                Ok(_) if eol => {
                    self.saw_message = true;
                    true
                }
                Ok(_) => {
                    self.saw_message = true;
                    self.not_protocol_line(|| "the last line ends without a newline".to_owned());
                    false
                }
                Err(not) => {
                    self.not_protocol_line(|| format!("{}: `{}`", not.reason, not.excerpt));
                    false
                }
            };
            if !(message && messages_allowed) {
                lines.add(|| wire::excerpt(&bytes));
            }
        }
        lines
    }

    /// Counts a stdout line that is no protocol message; the first is kept,
    /// with its step, for the session's `stdout-is-protocol` finding.
    fn not_protocol_line(&mut self, what: impl FnOnce() -> String) {
        self.n_not_protocol += 1;
        if self.not_protocol.is_none() {
            self.not_protocol = Some((self.step.clone(), what()));
        }
    }

    /// Holds the rest of the session's messages to `revision`'s schema, and
    /// `result`, the answer to `method` that showed the server speaks it,
    /// too (era detection answers before the revision is known).
    pub fn speaking(&mut self, revision: Revision, method: &str, result: &Value) {
        self.revision = Some(revision);
        let message = json!({"jsonrpc": "2.0", "id": 0, "result": result});
        let violations = schema::violations(revision, &message, Some(method));
        self.schema_judged = true;
        if !violations.is_empty() {
            let step = self.step.clone();
            let what = format!("the answer to `{method}`");
            self.ledger.fail(
                LawId::Schema,
                &step,
                schema::describe(revision, &what, &violations),
            );
        }
    }

    /// The wait for a fresh process's first answer: three step timeouts, or
    /// the startup timeout if that is longer.
    fn startup_wait(&self) -> Duration {
        self.options
            .timeout
            .saturating_mul(STARTUP_STEPS)
            .max(self.options.startup_timeout)
    }

    /// Era detection, as the spec tells a client that speaks both eras:
    /// sends `server/discover` with `params` as the session's first request
    /// and waits for its answer, with a fresh process's allowance. Returns
    /// the answer, or `None` when none came (a legacy server may stay
    /// silent, or end its loop at a request it does not know: that decides
    /// the era, and is no finding; the session is over).
    pub fn discover(&mut self, law: LawId, params: Value) -> Option<Answer> {
        if !self.alive_for(law) {
            return None;
        }
        let id = self.number_id();
        let line = self.request_with(id.clone(), method::SERVER_DISCOVER, Some(params));
        self.send_lines(&[line]);
        self.prologue = true;
        let wait = self.startup_wait();
        let answer = self.await_answer(law, &id, wait);
        self.prologue = false;
        answer
    }

    /// Sends `initialize` for `revision` and waits for the answer, which is
    /// graded by the caller. Returns the answer and, for a result, what it
    /// says.
    pub fn initialize(&mut self, law: LawId, revision: &str) -> Option<(Answer, Option<Init>)> {
        let params = json!({
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")},
        });
        let id = self.number_id();
        let wait = self.startup_wait();
        let answer = self.call_within(law, id, method::INITIALIZE, Some(params), wait)?;
        let init = answer.as_ref().ok().map(|result| Init {
            revision: result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
        });
        if let Some(init) = &init {
            self.batches = init.revision == "2025-03-26";
        }
        Some((answer, init))
    }

    /// The usual start of a session that probes something else:
    /// `initialize`, then `notifications/initialized` behind a fence.
    ///
    /// The main session grades these steps; here a failure only means the
    /// session cannot probe `law`, which is skipped with the reason.
    #[allow(
        dead_code,
        reason = "the probes open through `open_or_refused` now, to tell a modern-only server's refusal"
    )]
    pub fn open(&mut self, law: LawId, revision: &str) -> Option<Init> {
        match self.open_or_refused(law, revision) {
            Ok(init) => Some(init),
            Err(Some(error)) => {
                self.stop(format!("initialize answered {}", error_words(&error)));
                None
            }
            Err(None) => None,
        }
    }

    /// [`Session::open`], but a server that refuses `initialize` with an
    /// error is left running and the error returned (`Err(Some)`), so that
    /// the session can open again with another revision; `Err(None)` when
    /// the session cannot go on.
    pub fn open_or_refused(
        &mut self,
        law: LawId,
        revision: &str,
    ) -> Result<Init, Option<RpcError>> {
        self.prologue = true;
        self.step("initialize");
        let opened = match self.initialize(law, revision) {
            Some((_, Some(init))) => Ok(init),
            Some((Err(error), None)) => Err(Some(error)),
            _ => Err(None),
        };
        self.prologue = false;
        let init = opened?;
        if self.initialized(law) {
            Ok(init)
        } else {
            Err(None)
        }
    }

    /// Sends `notifications/initialized` behind a fence, once `initialize`
    /// has been answered with a result; returns whether the session can go
    /// on (a failure is a reason to skip `law`, not a finding).
    pub fn initialized(&mut self, law: LawId) -> bool {
        self.prologue = true;
        self.step("ping after notifications/initialized");
        let initialized = notification_line(method::INITIALIZED, None);
        let _ = self.fenced(law, &[initialized]);
        self.prologue = false;
        self.alive_for(law)
    }

    /// Ends the session: kills the server, with the reason for what is left.
    pub fn stop(&mut self, reason: String) {
        self.process.kill();
        self.dead.get_or_insert(reason);
    }

    fn fail_and_stop(&mut self, law: LawId, message: String) {
        if self.prologue {
            let reason = format!("at step `{}`, {message}", self.step);
            self.stop(reason);
            return;
        }
        let reason = format!("the server stopped answering at step `{}`", self.step);
        let step = self.step.clone();
        self.ledger.fail(law, &step, message);
        self.stop(reason);
    }

    /// How the process ended, in words: "exited with status 1", or "closed
    /// stdout" when it is still running.
    pub fn exit_words(&mut self) -> String {
        let deadline = after(Instant::now(), self.grace());
        match self.process.wait(deadline) {
            Some(status) => format!("exited with status {}", shell_status(status)),
            None => "closed stdout".to_owned(),
        }
    }

    fn route(&mut self, id: Option<RequestId>, answer: Answer) {
        if let Some(id) = &id {
            if let Some(at) = self.pending.iter().position(|p| p == id) {
                let id = self.pending.remove(at);
                self.answered.insert(id.clone());
                self.early.insert(id, answer);
                return;
            }
            if let Some(at) = self.pending.iter().position(|p| same_text(p, id)) {
                let sent = self.pending.remove(at);
                let step = self.step.clone();
                self.ledger.fail(
                    LawId::RequestAnsweredOnce,
                    &step,
                    format!("the answer to request id {sent} carries id {id}: the id's JSON type changed"),
                );
                self.answered.insert(sent.clone());
                self.early.insert(sent, answer);
                return;
            }
            // Inside a fence, a second response for an answered id is the
            // reply to the fenced line (a cancellation of that id, say).
            if self.answered.contains(id) && self.strays.is_none() {
                let step = self.step.clone();
                self.ledger.fail(
                    LawId::RequestAnsweredOnce,
                    &step,
                    format!("a second response for request id {id}"),
                );
                return;
            }
        }
        let stray = Stray { id, answer };
        match &mut self.strays {
            Some(strays) => strays.push(stray),
            None => {
                let step = self.step.clone();
                self.ledger.fail(
                    LawId::RequestAnsweredOnce,
                    &step,
                    format!("an unsolicited response: {}", describe(&stray)),
                );
            }
        }
    }

    fn next_response(&mut self, deadline: Instant) -> Next {
        loop {
            let (bytes, eol, cut) = match self.process.recv(deadline) {
                Recv::Timeout => return Next::Timeout,
                Recv::Output(Output::Closed { .. }) => return Next::Closed,
                Recv::Output(Output::Line {
                    bytes, eol, cut, ..
                }) => (self.redacted(bytes), eol, cut),
            };
            let parsed = if cut {
                Err(wire::cut(&bytes))
            } else {
                wire::parse(&bytes, self.batches)
            };
            let frame = match parsed {
                Ok(value) => {
                    self.judge_schema(&value);
                    first_frame(value)
                }
                Err(not) => {
                    let what = || format!("{}: `{}`", not.reason, not.excerpt);
                    // Before the first response such a line is also part
                    // of the start, which `quiet-before-serving` judges.
                    if !self.serving {
                        self.pre_serving.add(what);
                    }
                    self.not_protocol_line(what);
                    continue;
                }
            };
            self.saw_message = true;
            if !eol {
                self.not_protocol_line(|| "the last line ends without a newline".to_owned());
            }
            match frame {
                Frame::Response { id, outcome } => {
                    if !self.serving {
                        self.first_answer = Some(self.process.spawned_at().elapsed());
                    }
                    self.serving = true;
                    return Next::Response(id, outcome);
                }
                Frame::Notification { method, .. } => {
                    *self.notifications.entry(method).or_default() += 1;
                }
                Frame::Request { id, method, .. } => {
                    // A server may ping its client, or ask it for roots and
                    // the like; the probe client has nothing to offer.
                    let answer = if method == method::PING {
                        Response::ok(id, json!({}))
                    } else {
                        Response::error(
                            Some(id),
                            ErrorCode::METHOD_NOT_FOUND,
                            format!("the mcp-replay probe client does not serve {method}"),
                        )
                    };
                    self.process.send(answer.to_line().as_bytes());
                }
                Frame::Malformed { .. } => unreachable!("classify never returns a malformed frame"),
            }
        }
    }

    /// Ends the session: records `stdout-is-protocol` and returns the ledger.
    ///
    /// Every session makes this finding alike (a banner starts them all), and
    /// each keeps its own: one finding per session, told apart by its name.
    pub fn finish(mut self) -> Ledger {
        if let Some((step, what)) = self.not_protocol.take() {
            let more = match self.n_not_protocol {
                0 | 1 => String::new(),
                n => format!(" ({} more such lines)", n - 1),
            };
            self.ledger.fail_per_session(
                LawId::StdoutIsProtocol,
                &step,
                format!("a stdout line is no JSON-RPC message: {what}{more}"),
            );
        } else if self.saw_message {
            self.ledger.held(LawId::StdoutIsProtocol);
        }
        if self.schema_judged {
            self.ledger.held(LawId::Schema);
        } else {
            self.ledger.skip(
                LawId::Schema,
                "no message came in a revision mcp-replay knows (the server's initialize answer named none of the five)",
            );
        }
        self.ledger
    }

    /// Holds every message the session reads from now on to `revision`'s
    /// schema, for a session that speaks a revision without a handshake
    /// (2026-07-28 on a fresh process).
    pub fn assume(&mut self, revision: Revision) {
        self.revision = Some(revision);
    }

    /// [`Session::call`] as a fresh process's first request: with the
    /// allowance of a process that may still be starting.
    pub fn first_call(&mut self, law: LawId, name: &str, params: Option<Value>) -> Option<Answer> {
        let id = self.number_id();
        let wait = self.startup_wait();
        self.call_within(law, id, name, params, wait)
    }
}

/// How many messages that break the schema one session reports.
const MAX_SCHEMA_FINDINGS: usize = 5;

/// The frame of a message [`wire::parse`] accepted: the message, or the
/// first of a batch.
fn first_frame(value: Value) -> Frame {
    let first = match value {
        Value::Array(items) => items.into_iter().next(),
        value => Some(value),
    };
    match first {
        Some(Value::Object(object)) => Frame::from_object(object),
        _ => unreachable!("`wire::parse` returns messages: objects, or batches of them"),
    }
}

/// Lines of one kind: the first, in words, and how many there were; a
/// server that floods stdout costs a count, not a list.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// The first line, in words.
    pub first: Option<String>,
    /// How many lines there were.
    pub count: usize,
}

impl Tally {
    /// Counts one more line; `what` says what it was, if it is the first.
    fn add(&mut self, what: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(what());
        }
    }

    /// `" (N lines in all)"`, or nothing for one line.
    pub fn in_all(&self) -> String {
        match self.count {
            0 | 1 => String::new(),
            n => format!(" ({n} lines in all)"),
        }
    }
}

enum Next {
    Response(Option<RequestId>, Answer),
    Timeout,
    Closed,
}

/// Whether two ids hold the same text with different JSON types (`7` and
/// `"7"`).
fn same_text(a: &RequestId, b: &RequestId) -> bool {
    a.is_string() != b.is_string() && text_of(a) == text_of(b)
}

fn text_of(id: &RequestId) -> String {
    match id.to_value() {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// A stray response in words, for messages.
pub(super) fn describe(stray: &Stray) -> String {
    let id = stray
        .id
        .as_ref()
        .map_or_else(|| "without an id".to_owned(), |id| format!("with id {id}"));
    match &stray.answer {
        Ok(result) => format!("a result {id}: {}", short(result)),
        Err(error) => format!(
            "error {} {id} ({:?})",
            error.code,
            wire::excerpt(error.message.as_bytes())
        ),
    }
}

/// An error response in words, its message shortened: `error -32601
/// ("method not found")`.
pub(super) fn error_words(error: &RpcError) -> String {
    format!(
        "error {} ({:?})",
        error.code,
        wire::excerpt(error.message.as_bytes())
    )
}

/// A JSON value as compact text, shortened for messages.
pub(super) fn short(value: &Value) -> String {
    wire::excerpt(value.to_string().as_bytes())
}

/// A duration for messages: `5 s`, `300 ms`.
pub(super) fn seconds(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else if duration.as_secs() == 0 {
        format!("{} ms", duration.as_millis())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_with_the_same_text_and_another_type() {
        assert!(same_text(
            &RequestId::string("1001"),
            &RequestId::number(1001)
        ));
        assert!(!same_text(&RequestId::number(7), &RequestId::number(7)));
        assert!(!same_text(&RequestId::string("7"), &RequestId::number(8)));
    }

    #[test]
    fn durations_in_words() {
        assert_eq!(seconds(Duration::from_secs(5)), "5 s");
        assert_eq!(seconds(Duration::from_millis(300)), "300 ms");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5 s");
    }
}
