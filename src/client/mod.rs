//! The one client: a server spoken to over a `Channel`, with
//! the laws every line it writes is held to, whatever the client is doing.
//!
//! A replay and the law probes are scripts over this client. The client
//! owns what they share:
//!
//! - reading each stdout line as the stdio contract demands
//!   (`stdout-is-protocol`): one finding for the first line that is no
//!   message, the others counted in it;
//! - the ids of the requests sent, and what each response answers: the
//!   request it names, a second answer to one (`request-answered-once`), an
//!   id whose JSON type changed, or nothing sent at all;
//! - the revision in force and so the `schema` law for every message, and
//!   whether batches are messages; from 2025-06-18 on, the `outputSchema`
//!   each tool of a `tools/list` answer declares, which the
//!   `structuredContent` of every successful call of that tool must meet;
//! - secrets of the checker's environment kept out of every quote.
//!
//! What a script makes of a response without an id (an answered
//! notification, a recorded answer to a malformed line, a stray inside a
//! fence) is the script's to judge, as is where a finding is reported: the
//! client records each one as an `Observation` at the position the
//! script last named, and about the request it concerns. A value the
//! judge of JSON Schema cannot decide (a `structuredContent` whose verdict
//! hangs on a pattern the engines read differently, say) is neither a
//! finding nor a pass: the client records it as `Unjudged`, with why, for
//! the script to report as such.

pub(crate) mod channel;
pub(crate) mod conformance;
#[doc(hidden)]
pub mod duration;
pub(crate) mod memory;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub(crate) use self::channel::{Channel, Incoming};
use crate::jsonrpc::wire;
use crate::jsonrpc::{ErrorCode, Inbound, RequestId, Response, RpcError, method, parse_rpc_error};
use crate::laws::LawId;
use crate::report::Coverage;
use crate::revision::Revision;
use crate::schema::judge::{Judgement, Schema};
use crate::transcript::Redactor;

/// The requirement a stdout line observes: only messages go there.
const STDOUT_ONLY_MESSAGES: &str = "srv-stdio-only-messages-on-stdout";

/// The requirement the answer to a request sent after a notification
/// observes: the server went on without answering the notification.
const NOTIFICATION_UNANSWERED: &str = "srv-notification-never-answered";

/// The requirements every message read observes: a line holds one message,
/// in JSON-RPC 2.0, in UTF-8 (which 2025-03-26 on name).
const ONE_MESSAGE_PER_LINE: &str = "srv-stdio-one-message-per-line";
const JSON_RPC_2_0: &str = "srv-jsonrpc-2-0";
const UTF8: &str = "srv-stdio-utf8";

/// The requirements of a message's shape the `schema` law judges.
const SCHEMA_VALID: &str = "srv-schema-valid-messages";
const RESULT_OR_ERROR: &str = "srv-response-result-or-error";
const RESULT_OBJECT: &str = "srv-result-object";
const RESULT_TYPE: &str = "srv-result-type";
const ERROR_CODE_AND_MESSAGE: &str = "srv-error-code-and-message";
const NOTIFICATION_NO_ID: &str = "srv-notification-no-id";
const NO_REQUESTS: &str = "srv-stdio-no-requests";

/// The requirement a response to a request sent observes.
const RESPONSE_SAME_ID: &str = "srv-response-same-id";

/// The requirement the `structuredContent` of a successful `tools/call`
/// observes, when its tool declared an `outputSchema`.
const OUTPUT_SCHEMA: &str = "srv-tools-output-schema";

/// How many of the last lines of a server's stderr a finding quotes.
pub const STDERR_LINES: usize = 5;

/// How much of the end of a server's stderr those lines are read from.
const STDERR_TAIL: usize = 4096;

/// The default deadline of one replay or probe step.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The default deadline of a step while the server has written nothing yet.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(20);

/// What the server answered: a result or an error.
pub(crate) type Answer = Result<Value, RpcError>;

/// A law broken by what the server wrote, where the script was when it
/// came.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Observation {
    /// The law.
    pub law: LawId,
    /// The position the script last named (see [`Client::at`]).
    pub at: usize,
    /// The request it is about, by the id it was sent with.
    pub request: Option<RequestId>,
    /// What happened, in words.
    pub message: String,
    /// The requirement of the registry it shows broken, where the client
    /// knows it.
    pub requirement: Option<&'static str>,
}

/// What a law asks of an answer that the client could not decide, where
/// the script was when it came.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unjudged {
    /// The law.
    pub law: LawId,
    /// The position the script last named (see [`Client::at`]).
    pub at: usize,
    /// The request it is about, by the id it was sent with.
    pub request: Option<RequestId>,
    /// What was not judged (`the structuredContent of `add` id=3`).
    pub what: String,
    /// Why it was not.
    pub why: String,
}

impl Unjudged {
    /// The remark a report carries for it.
    pub fn note(&self) -> String {
        format!("not judged ({}): {}: {}", self.law, self.what, self.why)
    }
}

/// What a response answers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// The first answer to a request sent: `sent` is the id it was sent
    /// with (the response's may differ in JSON type, which is observed).
    Answers {
        /// The id the request was sent with.
        sent: RequestId,
        /// Its method.
        method: String,
    },
    /// A further answer to a request answered before (observed, unless
    /// strays are expected).
    Again {
        /// The id the request was sent with.
        sent: RequestId,
        /// Its method.
        method: String,
    },
    /// It answers no request sent: its id was never sent (observed, unless
    /// strays are expected), or it has none, which the script judges.
    Stray,
}

/// One message the server wrote, as the client read it.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// A response (what it says is [`Message::answer`]).
    Response {
        /// Its id; `None` when absent or null.
        id: Option<RequestId>,
        /// What it answers.
        reply: Reply,
    },
    /// A notification.
    Notification {
        /// Its method.
        method: String,
    },
    /// A request to the client.
    Request {
        /// Its id.
        id: RequestId,
        /// Its method.
        method: String,
    },
}

/// A message with what the client made of it.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    /// The message as the server wrote it.
    pub value: Value,
    /// The same message with the secrets of the checker's environment
    /// redacted, when it held any.
    pub redacted: Option<Value>,
    /// What it is.
    pub kind: Kind,
}

/// What a response without an id most likely answers: the line last
/// sent that has no id to answer with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cause {
    /// The latest malformed line (sent after the latest notification), at
    /// the position it was sent at: its parse error carries no id.
    Malformed {
        /// Where it was sent.
        at: usize,
    },
    /// The latest notification (sent after the latest malformed line),
    /// which a server must not answer.
    Notification {
        /// Its method.
        method: String,
        /// Where it was sent.
        at: usize,
    },
    /// Nothing without an id was sent.
    Nothing,
}

/// A line sent that has no id: a notification or a malformed line.
#[derive(Debug, Clone)]
struct Idless {
    /// How many such lines were sent before it.
    seq: usize,
    at: usize,
    method: String,
}

impl Message {
    /// What a response says: its result, or its error. Read from the
    /// message when asked, so that a script that compares whole messages
    /// copies nothing.
    pub fn answer(&self) -> Answer {
        match Inbound::of_value(&self.value) {
            Some(Inbound::Response { outcome, .. }) => outcome.cloned().map_err(parse_rpc_error),
            _ => Ok(Value::Null),
        }
    }

    /// [`Message::answer`], taken out of the message rather than copied:
    /// a result of many mebibytes is held once.
    pub fn into_answer(self) -> Answer {
        if !matches!(self.kind, Kind::Response { .. }) {
            return Ok(Value::Null);
        }
        match self.value {
            Value::Object(mut members) => {
                if let Some(result) = members.remove("result") {
                    return Ok(result);
                }
                match members.remove("error") {
                    Some(error) => Err(parse_rpc_error(&error)),
                    None => Ok(Value::Null),
                }
            }
            _ => Ok(Value::Null),
        }
    }
}

/// What one wait brought.
#[derive(Debug)]
pub(crate) enum Received {
    /// A line: its messages (none when it is no message; several for a
    /// batch).
    Line {
        /// The line as written, without its newline.
        bytes: Vec<u8>,
        /// `false` when it ended stdout without a newline.
        eol: bool,
        /// Its messages, in order.
        messages: Vec<Message>,
    },
    /// stdout ended.
    Closed,
    /// The deadline passed first.
    Timeout,
}

/// Lines of one kind: the first, in words, and how many there were; a
/// server that floods stdout costs a count, not a list.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tally {
    /// The first line, in words.
    pub first: Option<String>,
    /// How many lines there were.
    pub count: usize,
}

impl Tally {
    /// Counts one more line; `what` says what it was, if it is the first.
    pub fn add(&mut self, what: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(what());
        }
    }

    /// Counts `other`'s lines after these.
    pub fn absorb(&mut self, other: Tally) {
        self.count += other.count;
        if self.first.is_none() {
            self.first = other.first;
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

/// How many observations of one law a client makes (but `schema`, whose
/// limit is the client's own); the rest are dropped, so that a server that answers every request twice, or floods
/// responses to no request, costs a count, not a finding each.
pub(crate) const MAX_OBSERVATIONS_PER_LAW: usize = 32;

/// How many notification methods a client counts one by one; those of
/// the others are counted together under [`OTHER_METHODS`].
pub(crate) const MAX_METHODS: usize = 64;

/// How many values the judge of JSON Schema could not decide are kept
/// until the script takes them; the rest are counted.
pub(crate) const MAX_UNJUDGED: usize = 32;

/// The key of [`Client::notifications`] that counts the methods past
/// [`MAX_METHODS`], and the methods longer than [`MAX_METHOD_KEY`].
pub(crate) const OTHER_METHODS: &str = "(other methods)";

/// The longest method name counted under its own name, in bytes.
const MAX_METHOD_KEY: usize = 256;

/// A client of one server.
pub(crate) struct Client<C> {
    channel: C,
    redactor: Redactor,
    /// The revision messages are held to; `None` until known.
    revision: Option<Revision>,
    /// The revision was given, not learnt from an `initialize` answer.
    revision_given: bool,
    /// Batches are messages (revision 2025-03-26).
    batches: bool,
    /// The method of every request sent, by the id it was sent with.
    methods: HashMap<RequestId, String>,
    /// The requests sent and not answered yet, oldest first.
    pending: Vec<RequestId>,
    /// How many answers each answered request got.
    answers: HashMap<RequestId, usize>,
    /// Strays are expected (a fence is up): a second answer or an unknown
    /// id is the script's to judge, not a finding.
    strays_expected: bool,
    /// The position findings are made at.
    at: usize,
    observations: Vec<Observation>,
    /// How many observations of each law were made, kept or not.
    observed: BTreeMap<LawId, usize>,
    /// What a law asked of an answer and could not be decided, not taken
    /// yet (at most [`MAX_UNJUDGED`]), and how many more were left out.
    unjudged: Vec<Unjudged>,
    unjudged_left_out: usize,
    /// How many lines were no message (the first is observed).
    n_not_protocol: usize,
    /// The lines that were no message before the first response.
    pre_serving: Tally,
    /// Whether any message arrived.
    saw_message: bool,
    /// When the first line arrived, and how long after the start the
    /// first response came.
    first_output: Option<Instant>,
    first_answer: Option<Duration>,
    /// Whether any message was held to a revision's schema, how many broke
    /// it, and how many of those are observed one by one.
    schema_judged: bool,
    n_schema: usize,
    max_schema: usize,
    /// How many notifications of each method the server sent.
    notifications: BTreeMap<String, usize>,
    /// The latest notification and malformed line sent, and how many lines
    /// without an id were sent.
    last_notification: Option<Idless>,
    last_malformed: Option<Idless>,
    n_idless: usize,
    /// The `outputSchema` of each tool the latest `tools/list` answers
    /// named, by tool.
    output_schemas: HashMap<String, Value>,
    /// The tool each `tools/call` sent names, by the id it was sent with.
    calls: HashMap<RequestId, String>,
    /// The revision each request sent names in its `_meta`, by its id: its
    /// answer is judged in the era it was asked in.
    asked_in: HashMap<RequestId, Revision>,
    /// What the session observed of the requirements every message is
    /// held to, the revisions spoken and the capabilities declared.
    coverage: Coverage,
    /// A notification was sent and no request has been sent since.
    notification_unproven: bool,
    /// The requests sent right after a notification: their answer shows
    /// the server went on past the notification without answering it.
    after_notification: HashSet<RequestId>,
}

impl<C: Channel> Client<C> {
    /// A client of the server behind `channel`; secrets of the checker's
    /// environment are redacted with `redactor` wherever a line is quoted;
    /// at most `max_schema` messages that break the schema are observed
    /// one by one (the rest are counted, see [`Client::schema_more`]).
    pub fn new(channel: C, redactor: Redactor, max_schema: usize) -> Client<C> {
        Client {
            channel,
            redactor,
            revision: None,
            revision_given: false,
            batches: false,
            methods: HashMap::new(),
            pending: Vec::new(),
            answers: HashMap::new(),
            strays_expected: false,
            at: 0,
            observations: Vec::new(),
            observed: BTreeMap::new(),
            unjudged: Vec::new(),
            unjudged_left_out: 0,
            n_not_protocol: 0,
            pre_serving: Tally::default(),
            saw_message: false,
            first_output: None,
            first_answer: None,
            schema_judged: false,
            n_schema: 0,
            max_schema,
            notifications: BTreeMap::new(),
            last_notification: None,
            last_malformed: None,
            n_idless: 0,
            output_schemas: HashMap::new(),
            calls: HashMap::new(),
            asked_in: HashMap::new(),
            coverage: Coverage::default(),
            notification_unproven: false,
            after_notification: HashSet::new(),
        }
    }

    /// What the session has observed so far of the requirements every
    /// message is held to (a stdout line is a message; a response answers
    /// its request), with the revisions spoken and the capabilities the
    /// server declared.
    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// The channel, for what only its owner does (signals, exits).
    pub fn channel(&mut self) -> &mut C {
        &mut self.channel
    }

    /// The channel, to read.
    #[cfg(test)]
    pub fn channel_ref(&self) -> &C {
        &self.channel
    }

    /// The redactor quotes go through.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// How the server ended, in words, waiting until `deadline` for it:
    /// `exited with status 1 (stderr ends: "…" ⏎ "…")`, or `closed stdout`
    /// when it still runs; the last few lines of its stderr quoted (at most
    /// [`STDERR_LINES`], each cut to an excerpt, secrets redacted), since
    /// the line that explains a crash is seldom the last one (a runtime
    /// prints its version after the stack).
    pub fn ending_words(&mut self, deadline: Instant) -> String {
        let ended = match self.channel.exit_status(deadline) {
            Some(status) => format!("exited with status {status}"),
            None => "closed stdout".to_owned(),
        };
        match self.stderr_words() {
            Some(words) => format!("{ended} (stderr ends: {words})"),
            None => ended,
        }
    }

    /// The last few non-blank lines of the server's stderr, quoted and
    /// joined by ` ⏎ `; `None` when it wrote none.
    pub fn stderr_words(&self) -> Option<String> {
        let tail = self.channel.stderr_tail(STDERR_TAIL);
        let mut lines: Vec<String> = tail
            .lines()
            .rev()
            .filter(|line| !line.trim().is_empty())
            .take(STDERR_LINES)
            .map(|line| wire::quoted(&self.redactor.redact(line.trim_end().as_bytes())))
            .collect();
        if lines.is_empty() {
            return None;
        }
        lines.reverse();
        Some(lines.join(" ⏎ "))
    }

    /// Holds every later message to `revision` (the recorded one, or the one
    /// the server showed it speaks); an `initialize` answer no longer
    /// changes it.
    pub fn speak(&mut self, revision: Revision) {
        self.revision = Some(revision);
        self.revision_given = true;
        self.batches = revision.batches();
    }

    /// The revision in force, once known.
    #[cfg(test)]
    pub fn revision(&self) -> Option<Revision> {
        self.revision
    }

    /// Names the script's position; observations made from now on carry it.
    pub fn at(&mut self, position: usize) {
        self.at = position;
    }

    /// While `expected`, a second answer to a request or an answer with an
    /// id never sent is a stray the script judges, not a finding (inside a
    /// fence it answers the fenced line).
    pub fn expect_strays(&mut self, expected: bool) {
        self.strays_expected = expected;
    }

    /// Counts a request as sent with `id`, so that its answer is known.
    pub fn expect_answer(&mut self, id: RequestId, method: &str) {
        if std::mem::take(&mut self.notification_unproven) {
            self.after_notification.insert(id.clone());
        }
        self.methods.insert(id.clone(), method.to_owned());
        self.pending.push(id);
    }

    /// Counts a request sent with `id` as a `tools/call` of `tool`, so that
    /// its answer is held to the tool's `outputSchema`.
    pub fn calls_tool(&mut self, id: RequestId, tool: &str) {
        self.calls.insert(id, tool.to_owned());
    }

    /// Counts a request line sent with `id` for `method` as
    /// [`Client::expect_answer`] does, and, for a `tools/call`, as a call of
    /// the tool its params name.
    /// A request whose `_meta` names one of the five revisions has its
    /// answer judged in that revision, whatever the session speaks: a
    /// request is judged by the era it was sent in.
    pub fn expect_line(&mut self, id: RequestId, method: &str, line: &[u8]) {
        if let Ok(request) = serde_json::from_slice::<Value>(line) {
            if method == method::TOOLS_CALL
                && let Some(tool) = request.pointer("/params/name").and_then(Value::as_str)
            {
                self.calls_tool(id.clone(), tool);
            }
            if let Some(revision) = conformance::requested(request.get("params")) {
                self.asked_in.insert(id.clone(), revision);
            }
        }
        self.expect_answer(id, method);
    }

    /// Counts a notification as sent (at the position named last).
    pub fn sent_notification(&mut self, method: &str) {
        self.notification_unproven = true;
        self.n_idless += 1;
        self.last_notification = Some(Idless {
            seq: self.n_idless,
            at: self.at,
            method: method.to_owned(),
        });
    }

    /// Counts a malformed line as sent (at the position named last).
    pub fn sent_malformed(&mut self) {
        self.n_idless += 1;
        self.last_malformed = Some(Idless {
            seq: self.n_idless,
            at: self.at,
            method: String::new(),
        });
    }

    /// What a response without an id most likely answers: the latest line
    /// without an id that was sent.
    pub fn cause_without_id(&self) -> Cause {
        let seq = |sent: &Option<Idless>| sent.as_ref().map_or(0, |sent| sent.seq);
        match (&self.last_malformed, &self.last_notification) {
            (Some(malformed), _) if malformed.seq > seq(&self.last_notification) => {
                Cause::Malformed { at: malformed.at }
            }
            (_, Some(notification)) => Cause::Notification {
                method: notification.method.clone(),
                at: notification.at,
            },
            _ => Cause::Nothing,
        }
    }

    /// Observes `what`, a response without an id that answers nothing the
    /// script expected: once a notification has been sent, most likely its
    /// answer (`notification-unanswered`, where the notification was sent;
    /// a client that keeps sending while it waits cannot tell which line
    /// it answers), else an answer to no request (`request-answered-once`).
    pub fn unanswerable(&mut self, what: &str) {
        match &self.last_notification {
            Some(Idless { method, at, .. }) => {
                let message =
                    format!("{what} answers no request; the last notification sent was `{method}`");
                let at = *at;
                self.keep(Observation {
                    law: LawId::NotificationUnanswered,
                    at,
                    request: None,
                    message,
                    requirement: None,
                });
            }
            None => self.observe(
                LawId::RequestAnsweredOnce,
                None,
                format!("{what} answers no request that was sent"),
            ),
        }
    }

    /// Queues bytes for the server, exactly as given.
    pub fn send(&mut self, bytes: Vec<u8>) {
        self.channel.send(bytes);
    }

    /// The requests sent and not answered yet, oldest first.
    pub fn pending(&self) -> &[RequestId] {
        &self.pending
    }

    /// Records a finding the script made of what it read.
    pub fn observe(&mut self, law: LawId, request: Option<RequestId>, message: String) {
        let at = self.at;
        self.keep(Observation {
            law,
            at,
            request,
            message,
            requirement: None,
        });
    }

    /// Keeps `observation`, unless [`MAX_OBSERVATIONS_PER_LAW`] of its law
    /// were made already.
    fn keep(&mut self, observation: Observation) {
        let made = self.observed.entry(observation.law).or_default();
        *made += 1;
        // The schema's are counted apart (see `Client::schema_more`).
        if *made <= MAX_OBSERVATIONS_PER_LAW || observation.law == LawId::Schema {
            self.observations.push(observation);
        }
    }

    /// The observations made since the last call.
    pub fn take_observations(&mut self) -> Vec<Observation> {
        std::mem::take(&mut self.observations)
    }

    /// What could not be decided since the last call.
    pub fn take_unjudged(&mut self) -> Vec<Unjudged> {
        std::mem::take(&mut self.unjudged)
    }

    /// How many values that could not be decided were left out, past
    /// [`MAX_UNJUDGED`] not taken yet.
    pub fn unjudged_left_out(&self) -> usize {
        self.unjudged_left_out
    }

    /// Keeps `unjudged`, unless [`MAX_UNJUDGED`] are waiting to be taken:
    /// then it is only counted.
    fn keep_unjudged(&mut self, unjudged: Unjudged) {
        if self.unjudged.len() < MAX_UNJUDGED {
            self.unjudged.push(unjudged);
        } else {
            self.unjudged_left_out += 1;
        }
    }

    /// The words a `stdout-is-protocol` finding (the observation of the
    /// first line that was no message) ends with, counting the other such
    /// lines: `" (2 more such lines)"`, or nothing.
    pub fn more_not_protocol(&self) -> String {
        match self.n_not_protocol {
            0 | 1 => String::new(),
            2 => " (1 more such line)".to_owned(),
            n => format!(" ({} more such lines)", n - 1),
        }
    }

    /// Whether some line was no message.
    #[cfg(test)]
    pub fn wrote_not_protocol(&self) -> bool {
        self.n_not_protocol > 0
    }

    /// Whether any message arrived.
    pub fn saw_message(&self) -> bool {
        self.saw_message
    }

    /// Whether the server wrote anything at all on stdout.
    pub fn wrote_anything(&self) -> bool {
        self.first_output.is_some()
    }

    /// When the server first wrote on stdout.
    pub fn first_output(&self) -> Option<Instant> {
        self.first_output
    }

    /// How long after its start the server answered its first request.
    pub fn first_answer(&self) -> Option<Duration> {
        self.first_answer
    }

    /// Whether a response has arrived: the server is serving.
    pub fn serving(&self) -> bool {
        self.first_answer.is_some()
    }

    /// [`Client::pre_serving`], taken: a later call starts a new count.
    pub fn take_pre_serving(&mut self) -> Tally {
        std::mem::take(&mut self.pre_serving)
    }

    /// Whether any message was held to a revision's schema.
    pub fn schema_judged(&self) -> bool {
        self.schema_judged
    }

    /// How many messages broke the schema beyond those observed.
    pub fn schema_more(&self) -> usize {
        self.n_schema.saturating_sub(self.max_schema)
    }

    /// How many notifications of each method the server sent.
    pub fn notifications(&self) -> &BTreeMap<String, usize> {
        &self.notifications
    }

    /// Answers a request from the server as a client with nothing to offer
    /// does: a `ping` with an empty result, anything else with
    /// method-not-found and `why`.
    pub fn decline(&mut self, id: RequestId, method: &str, why: String) {
        let answer = if method == method::PING {
            Response::ok(id, json!({}))
        } else {
            Response::error(Some(id), ErrorCode::METHOD_NOT_FOUND, why)
        };
        let mut line = answer.to_line().into_bytes();
        line.push(b'\n');
        self.channel.send(line);
    }

    /// Waits until `deadline` for the next stdout line, and reads it.
    pub fn recv(&mut self, deadline: Instant) -> Received {
        let (bytes, eol, cut) = match self.channel.recv(deadline) {
            Incoming::Line { bytes, eol, cut } => (bytes, eol, cut),
            Incoming::Closed => return Received::Closed,
            Incoming::Timeout => return Received::Timeout,
        };
        self.first_output.get_or_insert_with(Instant::now);
        self.coverage.observe(STDOUT_ONLY_MESSAGES);
        let parsed = if cut {
            Err(wire::cut(&bytes))
        } else {
            wire::parse(&bytes, self.batches)
        };
        let value = match parsed {
            Ok(value) => value,
            Err(not) => {
                let excerpt = wire::excerpt(&self.redactor.redact(&bytes));
                let what = format!("{}: `{excerpt}`", not.reason);
                if !self.serving() {
                    self.pre_serving.add(|| what.clone());
                }
                self.not_protocol_line(format!("a stdout line is no JSON-RPC message: {what}"));
                return Received::Line {
                    bytes,
                    eol,
                    messages: Vec::new(),
                };
            }
        };
        self.saw_message = true;
        for id in [ONE_MESSAGE_PER_LINE, JSON_RPC_2_0] {
            self.coverage.observe(id);
        }
        if self
            .revision
            .is_some_and(|revision| revision >= Revision::V2025_03_26)
        {
            self.coverage.observe(UTF8);
        }
        if !eol {
            self.not_protocol_line(
                "the last stdout line has no newline: the message is cut short or unterminated"
                    .to_owned(),
            );
        }
        // Ids and methods are read from the line as written, since the
        // server needs its own ids back; what is compared or quoted is
        // redacted.
        let redacted = match self.redactor.redact(&bytes) {
            Cow::Owned(redacted) => serde_json::from_slice::<Value>(&redacted).ok(),
            Cow::Borrowed(_) => None,
        };
        let mut messages = Vec::new();
        match (value, redacted) {
            (Value::Array(items), redacted) => {
                let mut redacted = match redacted {
                    Some(Value::Array(redacted)) => redacted.into_iter().map(Some).collect(),
                    _ => Vec::new(),
                }
                .into_iter();
                for item in items {
                    let shown = redacted.next().flatten();
                    messages.push(self.read(item, shown));
                }
            }
            (value, redacted) => messages.push(self.read(value, redacted)),
        }
        Received::Line {
            bytes,
            eol,
            messages,
        }
    }

    /// Reads one message: the schema, and what it answers. `wire::parse`
    /// returned it, so it is a request, a notification or a response; its
    /// members are read in place.
    fn read(&mut self, value: Value, redacted: Option<Value>) -> Message {
        self.judge_schema(&value);
        let kind = match Inbound::of_value(&value) {
            Some(Inbound::Response { id, .. }) => {
                if self.first_answer.is_none() {
                    self.first_answer = Some(self.channel.started_at().elapsed());
                }
                let reply = self.route(id.as_ref());
                if let Reply::Answers { sent, method } = &reply {
                    self.judge_tool_answer(sent, method, &value);
                }
                Kind::Response { id, reply }
            }
            // A server's message with a method and a null id is matched as
            // the notification the official schemas read it as (their
            // `JSONRPCNotification` does not forbid the member); it is no
            // request, since no answer can carry a null id back.
            Some(Inbound::Notification { method, .. } | Inbound::NullId { method, .. }) => {
                let method = method.into_owned();
                let known = self.notifications.len() < MAX_METHODS
                    || self.notifications.contains_key(&method);
                let key = if known && method.len() <= MAX_METHOD_KEY {
                    method.clone()
                } else {
                    OTHER_METHODS.to_owned()
                };
                *self.notifications.entry(key).or_default() += 1;
                Kind::Notification { method }
            }
            Some(Inbound::Request { id, method, .. }) => Kind::Request {
                id,
                method: method.into_owned(),
            },
            Some(Inbound::Malformed { .. }) | None => {
                unreachable!("`wire::parse` returns messages")
            }
        };
        Message {
            value,
            redacted,
            kind,
        }
    }

    /// What a response with `id` answers, with what it breaks observed.
    fn route(&mut self, id: Option<&RequestId>) -> Reply {
        let Some(id) = id else {
            return Reply::Stray;
        };
        if let Some(at) = self.pending.iter().position(|sent| sent == id) {
            let sent = self.pending.remove(at);
            self.answers.insert(sent.clone(), 1);
            self.coverage.observe(RESPONSE_SAME_ID);
            if self.after_notification.remove(&sent) {
                self.coverage.observe(NOTIFICATION_UNANSWERED);
            }
            let method = self.methods.get(&sent).cloned().unwrap_or_default();
            return Reply::Answers { sent, method };
        }
        if let Some(at) = self.pending.iter().position(|sent| same_text(sent, id)) {
            let sent = self.pending.remove(at);
            self.answers.insert(sent.clone(), 1);
            let method = self.methods.get(&sent).cloned().unwrap_or_default();
            self.observe(
                LawId::RequestAnsweredOnce,
                Some(sent.clone()),
                format!(
                    "the answer to `{method}` id={sent} carries id {id}: the id must keep its JSON type"
                ),
            );
            return Reply::Answers { sent, method };
        }
        let answered = self
            .answers
            .keys()
            .find(|sent| *sent == id || same_text(sent, id))
            .cloned();
        if let Some(sent) = answered {
            let method = self.methods.get(&sent).cloned().unwrap_or_default();
            let count = self.answers.entry(sent.clone()).or_default();
            *count += 1;
            let count = *count;
            if !self.strays_expected {
                self.observe(
                    LawId::RequestAnsweredOnce,
                    Some(sent.clone()),
                    format!("`{method}` id={sent} was answered {count} times"),
                );
            }
            return Reply::Again { sent, method };
        }
        if !self.strays_expected {
            self.observe(
                LawId::RequestAnsweredOnce,
                None,
                format!("a response with id {id} answers no request that was sent"),
            );
        }
        Reply::Stray
    }

    /// Counts a stdout line that is no message; the first is observed
    /// (`stdout-is-protocol`), the others are counted in it, so that a
    /// server that floods stdout makes one finding, not one per line.
    fn not_protocol_line(&mut self, message: String) {
        self.n_not_protocol += 1;
        if self.n_not_protocol == 1 {
            self.observe(LawId::StdoutIsProtocol, None, message);
        }
    }

    /// The `schema` law for one message: the message as the revision in
    /// force allows, and a response's result as its request's method's
    /// type. An `initialize` answer names the revision in force from then
    /// on, unless one was given.
    fn judge_schema(&mut self, value: &Value) {
        let id = value
            .get("id")
            .filter(|_| value.get("method").is_none())
            .and_then(RequestId::from_value);
        let method = id.as_ref().and_then(|id| self.methods.get(id)).cloned();
        if !self.revision_given
            && method.as_deref() == Some(method::INITIALIZE)
            && let Some(result) = value.get("result")
            && let Some(revision) = conformance::negotiated(result)
        {
            self.revision = Some(revision);
            self.batches = revision.batches();
        }
        if matches!(
            method.as_deref(),
            Some(method::INITIALIZE | method::SERVER_DISCOVER)
        ) && let Some(capabilities) = value.pointer("/result/capabilities")
        {
            self.coverage.declare(capabilities);
        }
        let asked_in = id.as_ref().and_then(|id| self.asked_in.get(id)).copied();
        let Some(revision) = asked_in.or(self.revision) else {
            return;
        };
        self.coverage.revisions.insert(revision);
        self.schema_judged = true;
        self.observe_shape(revision, value);
        let violations = conformance::violations(revision, value, method.as_deref());
        if violations.is_empty() {
            return;
        }
        self.n_schema += 1;
        if self.n_schema > self.max_schema {
            return;
        }
        let what = match (&method, value.get("method").and_then(Value::as_str)) {
            (Some(method), _) => match &id {
                Some(id) => format!("the answer to `{method}` id={id}"),
                None => format!("the answer to `{method}`"),
            },
            (None, Some(name)) if value.get("id").is_some() => {
                format!("the server request `{name}`")
            }
            (None, Some(name)) => format!("the notification `{name}`"),
            (None, None) => "a response".to_owned(),
        };
        let request = method.and(id);
        self.observe(
            LawId::Schema,
            request,
            conformance::describe(revision, &what, &violations),
        );
    }

    /// Notes the requirements of the message's shape that the `schema`
    /// law judges of `value` in `revision`: every message, and what a
    /// response, a result, an error or a notification must hold.
    fn observe_shape(&mut self, revision: Revision, value: &Value) {
        self.coverage.observe(SCHEMA_VALID);
        let is_response = value.get("method").is_none();
        if is_response {
            self.coverage.observe(RESULT_OR_ERROR);
            if value.get("result").is_some() {
                self.coverage.observe(RESULT_OBJECT);
                if revision.is_modern() {
                    self.coverage.observe(RESULT_TYPE);
                }
            }
            if value.get("error").is_some() {
                self.coverage.observe(ERROR_CODE_AND_MESSAGE);
            }
        } else if value.get("id").is_none() {
            self.coverage.observe(NOTIFICATION_NO_ID);
        }
        if revision.is_modern() {
            self.coverage.observe(NO_REQUESTS);
        }
    }

    /// What the answer to a tool request says beyond its result type: a
    /// `tools/list` page names the `outputSchema` of its tools, and the
    /// `structuredContent` of a successful `tools/call` must meet its
    /// tool's (MCP 2025-06-18 server/tools#output-schema, spec/README.md
    /// §7 L25), under the `schema` law, in the revisions that have
    /// structured output.
    fn judge_tool_answer(&mut self, sent: &RequestId, method: &str, value: &Value) {
        let Some(result) = value.get("result") else {
            self.calls.remove(sent);
            return;
        };
        let Some(revision) = self
            .revision
            .filter(|revision| revision.structured_output())
        else {
            self.calls.remove(sent);
            return;
        };
        match method {
            method::TOOLS_LIST => {
                let Some(tools) = result.get("tools").and_then(Value::as_array) else {
                    return;
                };
                // A first page starts the list again.
                for tool in tools {
                    if let (Some(name), Some(schema)) = (
                        tool.get("name").and_then(Value::as_str),
                        tool.get("outputSchema").filter(|schema| schema.is_object()),
                    ) {
                        self.output_schemas.insert(name.to_owned(), schema.clone());
                    }
                }
            }
            method::TOOLS_CALL => {
                let Some(tool) = self.calls.remove(sent) else {
                    return;
                };
                let Some(schema) = self.output_schemas.get(&tool) else {
                    return;
                };
                if result.get("isError") == Some(&Value::Bool(true))
                    || result
                        .get("resultType")
                        .and_then(Value::as_str)
                        .is_some_and(|kind| kind != "complete")
                {
                    return;
                }
                // The one judge, under the standard reading: a keyword it
                // decides that fails is a finding; a value it cannot decide
                // is neither a finding nor a pass.
                let judged = result
                    .get("structuredContent")
                    .map(|structured| Schema::standard(schema).judgement(structured));
                let decided = !matches!(judged, Some(Judgement::Unjudged(_)));
                let violations = match judged {
                    None => vec![crate::model::SchemaViolation {
                        pointer: "/result".to_owned(),
                        message: "the tool declares an `outputSchema`, and the result has no `structuredContent`".to_owned(),
                    }],
                    Some(Judgement::Valid) => Vec::new(),
                    Some(Judgement::Invalid(broken)) => broken
                        .into_iter()
                        .map(|broken| crate::model::SchemaViolation {
                            pointer: format!("/result/structuredContent{}", broken.pointer),
                            message: broken.message,
                        })
                        .collect(),
                    Some(Judgement::Unjudged(why)) => {
                        self.coverage.miss(
                            OUTPUT_SCHEMA,
                            format!("the judge of JSON Schema could not decide a `structuredContent`: {why}"),
                        );
                        let unjudged = Unjudged {
                            law: LawId::Schema,
                            at: self.at,
                            request: Some(sent.clone()),
                            what: format!(
                                "the `structuredContent` of the `tools/call` of `{tool}` id={sent} against the tool's outputSchema"
                            ),
                            why,
                        };
                        self.keep_unjudged(unjudged);
                        Vec::new()
                    }
                };
                if decided {
                    self.coverage.observe(OUTPUT_SCHEMA);
                }
                if violations.is_empty() {
                    return;
                }
                self.schema_judged = true;
                self.n_schema += 1;
                if self.n_schema > self.max_schema {
                    return;
                }
                let quoted: Vec<String> =
                    violations.iter().take(3).map(ToString::to_string).collect();
                let more = match violations.len().saturating_sub(3) {
                    0 => String::new(),
                    n => format!(" (and {n} more)"),
                };
                let message = format!(
                    "the answer to `tools/call` of `{tool}` id={sent} breaks the tool's outputSchema ({revision} server/tools#output-schema): {}{more}",
                    quoted.join("; ")
                );
                self.observations.push(Observation {
                    law: LawId::Schema,
                    at: self.at,
                    request: Some(sent.clone()),
                    message,
                    requirement: Some(OUTPUT_SCHEMA),
                });
            }
            _ => {}
        }
    }

    /// Holds `result`, the answer to `method` that showed the server speaks
    /// `revision`, to that revision's schema, and every later message too
    /// (era detection answers before the revision is known).
    pub fn judge_result_as(&mut self, revision: Revision, method: &str, result: &Value) {
        self.speak(revision);
        self.schema_judged = true;
        let message = json!({"jsonrpc": "2.0", "id": 0, "result": result});
        let violations = conformance::violations(revision, &message, Some(method));
        if !violations.is_empty() {
            self.n_schema += 1;
            let what = format!("the answer to `{method}`");
            self.observe(
                LawId::Schema,
                None,
                conformance::describe(revision, &what, &violations),
            );
        }
    }
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

#[cfg(test)]
mod tests;
