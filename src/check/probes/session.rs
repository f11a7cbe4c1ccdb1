//! One probe session: a fresh server process spoken to through the
//! checker's client, with every wait bounded and every stray line
//! accounted for.
//!
//! The client ([`crate::client`]) reads the server's stdout and
//! holds it to the live laws; the session names the step under way, so
//! that each finding says where it was made, and decides what a stray
//! means: inside a fence (a notification or malformed line followed by a
//! ping) it answers that line, elsewhere it is unsolicited.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::check::probes::gate::{Gate, Place};
use crate::check::probes::watch::{Noticed, Watch};
use crate::check::probes::{Ledger, ProbeOptions};
use crate::client::duration::after;
use crate::client::{Client, Kind, Received, Reply};
use crate::jsonrpc::wire;
use crate::jsonrpc::{Frame, RequestId, RpcError, method, notification_line, request_line};
use crate::laws::LawId;
use crate::process::{ServerCommand, ServerProcess, SpawnError};
use crate::revision::{Revision, meta};
use crate::transcript::Redactor;

pub(super) use crate::client::{Answer, Tally};

/// The `_meta` of a modern request that speaks `version`.
pub(super) fn request_meta(version: &str) -> Value {
    json!({
        meta::PROTOCOL_VERSION: version,
        meta::CLIENT_CAPABILITIES: {},
        meta::CLIENT_INFO: {"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// 2026-07-28 request params: `extra` with the standard `_meta`.
pub(super) fn modern_params(extra: Value) -> Value {
    let mut params = match extra {
        Value::Object(params) => params,
        _ => Map::new(),
    };
    params.insert(
        "_meta".to_owned(),
        request_meta(Revision::V2026_07_28.as_str()),
    );
    Value::Object(params)
}

/// The params of the probes' `initialize` for `revision`: no capability,
/// and the client named.
fn initialize_params(revision: &str) -> Value {
    json!({
        "protocolVersion": revision,
        "capabilities": {},
        "clientInfo": {"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The `_meta` key that tags a stream's notifications with its listen
/// request's id (MCP 2026-07-28 basic/patterns/subscriptions).
pub(super) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// How many messages one recording keeps ([`Session::record`]); the rest
/// are counted.
pub(super) const MAX_RECORDED: usize = 1_000;

/// How many bytes of lines one recording keeps the messages of.
pub(super) const MAX_RECORDED_BYTES: usize = 4 << 20;

/// How many strays one fence keeps; the rest are counted.
pub(super) const MAX_STRAYS: usize = 16;

/// The messages one recording kept ([`Session::record`]), and what it
/// counted of those it did not keep: a server that floods a stream costs
/// a count, not the stream.
#[derive(Debug, Default)]
pub(super) struct Recorded {
    /// The first messages, in order.
    pub messages: Vec<Value>,
    /// How many messages came in all, kept or not.
    pub count: usize,
    /// The bytes of the lines they came in.
    pub bytes: usize,
    /// The messages not kept, by method and whether they carry a
    /// subscription's tag (`_meta` [`SUBSCRIPTION_ID`]): at most
    /// [`client::MAX_METHODS`] methods, the rest under
    /// [`client::OTHER_METHODS`].
    ///
    /// [`client::MAX_METHODS`]: crate::client::MAX_METHODS
    /// [`client::OTHER_METHODS`]: crate::client::OTHER_METHODS
    pub dropped: BTreeMap<(String, bool), usize>,
}

impl Recorded {
    /// Keeps or counts one message, from a line of `bytes`.
    fn add(&mut self, message: &Value, bytes: usize) {
        self.count += 1;
        self.bytes += bytes;
        if self.messages.len() < MAX_RECORDED && self.bytes <= MAX_RECORDED_BYTES {
            self.messages.push(message.clone());
            return;
        }
        let method = message.get("method").and_then(Value::as_str);
        let key = match method {
            Some(method)
                if method.len() <= 256
                    && (self.dropped.len() < crate::client::MAX_METHODS
                        || self.dropped.keys().any(|(known, _)| known == method)) =>
            {
                method.to_owned()
            }
            Some(_) => crate::client::OTHER_METHODS.to_owned(),
            None => String::new(),
        };
        let tagged = message
            .pointer("/params/_meta")
            .and_then(|meta| meta.get(SUBSCRIPTION_ID))
            .is_some();
        *self.dropped.entry((key, tagged)).or_default() += 1;
    }
}

/// The strays one fence collected: the first [`MAX_STRAYS`], and how many
/// came in all.
#[derive(Debug, Default)]
pub(super) struct Strays {
    kept: Vec<Stray>,
    count: usize,
}

impl Strays {
    fn push(&mut self, stray: Stray) {
        self.count += 1;
        if self.kept.len() < MAX_STRAYS {
            self.kept.push(stray);
        }
    }

    /// How many strays came, kept or not.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether none came.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The first stray.
    pub fn first(&self) -> Option<&Stray> {
        self.kept.first()
    }
}

impl From<Vec<Stray>> for Strays {
    fn from(strays: Vec<Stray>) -> Strays {
        let mut all = Strays::default();
        for stray in strays {
            all.push(stray);
        }
        all
    }
}

impl IntoIterator for Strays {
    type Item = Stray;
    type IntoIter = std::vec::IntoIter<Stray>;

    fn into_iter(self) -> Self::IntoIter {
        self.kept.into_iter()
    }
}

impl<'s> IntoIterator for &'s Strays {
    type Item = &'s Stray;
    type IntoIter = std::slice::Iter<'s, Stray>;

    fn into_iter(self) -> Self::IntoIter {
        self.kept.iter()
    }
}

/// A response that answers no request the session is waiting for.
#[derive(Debug, Clone)]
pub(super) struct Stray {
    /// Its id; `None` when absent or null.
    pub id: Option<RequestId>,
    /// What it says.
    pub answer: Answer,
}

/// What came back for a batch ([`Session::batch`]).
#[derive(Debug)]
pub(super) struct Batched {
    /// Each line that answered some of the batch's requests: whether it was
    /// an array, and how many it answered.
    pub lines: Vec<(bool, usize)>,
    /// Whether every request of the batch was answered.
    pub answered: bool,
    /// The responses that answered no request sent.
    pub strays: Strays,
}

/// What the server said of itself when the session opened: the result of
/// `initialize`, or for a stateless session of `server/discover`.
#[derive(Debug, Clone)]
pub(super) struct Init {
    /// The revision the probe asked for.
    pub asked: String,
    /// The revision it answered.
    pub revision: String,
    /// Its capabilities (`Value::Null` when absent).
    pub capabilities: Value,
    /// The law of the answer that declared them: `initialize`, or
    /// `discover` for a `DiscoverResult`.
    pub opening: LawId,
}

impl Init {
    /// What an `initialize` result says.
    fn of_initialize(asked: &str, result: &Value) -> Init {
        Init {
            asked: asked.to_owned(),
            revision: result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
            opening: LawId::Initialize,
        }
    }

    /// What was asked and what came back, for a skip's reason: `the probe
    /// asked revision "2024-11-05" and the server answered it`, or `… and
    /// the server answered "2025-03-26"`.
    pub fn negotiation(&self) -> String {
        let answered = crate::jsonrpc::wire::quoted(self.revision.as_bytes());
        if self.asked == self.revision {
            format!("the probe asked revision {answered} and the server answered it")
        } else {
            format!(
                "the probe asked revision {} and the server answered {answered}",
                crate::jsonrpc::wire::quoted(self.asked.as_bytes())
            )
        }
    }

    /// Whether the server declared the capability `name`.
    pub fn declares(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|v| !v.is_null())
    }

    /// The answer that declared the capabilities, in words.
    pub fn declared_in(&self) -> &'static str {
        match self.opening {
            LawId::Discover => "DiscoverResult",
            _ => "initialize result",
        }
    }
}

/// A fresh process has this many step timeouts (or the startup timeout, if
/// that is longer) to answer its first request: interpreters and package
/// runners start slowly, and the sessions start side by side on a machine
/// that may be busy.
pub(super) const STARTUP_STEPS: u32 = 3;

/// A first request that gets no answer while the server has answered
/// another process's first request is waited for this many times as long
/// as that answer took from its process's start ([`Session::paced_end`]).
const PACE_TIMES: u32 = 3;

/// ... and at least this much longer than that answer took: a server that
/// answers in a few milliseconds still gets a scheduler's hiccup.
const PACE_SLACK: Duration = Duration::from_secs(1);

/// How often a first wait looks again at the other processes' first
/// answers, which set its pace, until one has come.
const PACE_RECHECK: Duration = Duration::from_millis(50);

/// The ids of probe requests that are numbers stay below this; string ids
/// hold numbers from here on, so that a server which turns a string id into
/// a number is caught rather than confused with another request.
const STRING_ID_BASE: i64 = 1000;

/// What a process was opened as, by the requests that showed its era.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opened {
    /// No session: nothing sent, or a `server/discover` that showed the
    /// legacy era.
    Not,
    /// A legacy session: `initialize` was answered with a result.
    Legacy,
    /// `initialize` was refused with an error, and the process runs on (a
    /// modern-only server, spoken to statelessly from then on).
    Refused,
    /// The process speaks the modern era (2026-07-28 statelessly, or a
    /// modern error to `server/discover`).
    Modern,
}

/// One server process spoken to as a client, with the ledger of what it
/// found.
pub(super) struct Session<'a> {
    client: Client<ServerProcess>,
    options: &'a ProbeOptions,
    /// What the session found; its findings name the session.
    pub ledger: Ledger,
    /// The steps named so far; the client's position is the index of the
    /// one under way.
    steps: Vec<String>,
    next_id: i64,
    /// Answers that arrived before anyone waited for them (out of order).
    early: HashMap<RequestId, Answer>,
    /// Collects strays while a fence is up.
    strays: Option<Strays>,
    /// The messages read, while a probe of a stream records them.
    recorded: Option<Recorded>,
    /// Why the session cannot go on, once it cannot.
    dead: Option<String>,
    /// The session is opening: a failure is a reason to skip, not a finding.
    prologue: bool,
    /// The `stdout-is-protocol` finding, with its step, once made.
    not_protocol: Option<(String, String)>,
    /// Every request the shared probes send carries 2026-07-28's `_meta`
    /// (see [`Session::params`]).
    stateless: bool,
    /// The start gate of the suite, which paces first answers.
    gate: &'a Gate,
    /// The process's place in the gate while it starts.
    place: Option<Place<'a>>,
    /// A first request that got no answer within the server's pace: how
    /// long it was waited for, and the other process's first answer that
    /// set the pace.
    unanswered: Option<(Duration, Duration)>,
    /// What the process was opened as.
    opened: Opened,
    /// Whether anything was sent to the process.
    sent: bool,
    /// The notifications earlier processes of the same lane sent, by
    /// method (see [`Session::notifications`]).
    carried: BTreeMap<String, usize>,
    /// What the server's own notifications are held to.
    watch: Watch,
}

impl<'a> Session<'a> {
    /// Starts a fresh server process for the session `name`.
    pub fn start(
        name: &'static str,
        command: &ServerCommand,
        options: &'a ProbeOptions,
        redactor: &'a Redactor,
        gate: &'a Gate,
    ) -> Result<Session<'a>, SpawnError> {
        let process = ServerProcess::spawn(command)?;
        Ok(Session {
            client: Client::new(process, redactor.clone(), MAX_SCHEMA_FINDINGS),
            options,
            ledger: Ledger::new(command.display(), options.profile, name),
            steps: vec!["start".to_owned()],
            next_id: 0,
            early: HashMap::new(),
            strays: None,
            recorded: None,
            dead: None,
            prologue: false,
            not_protocol: None,
            stateless: false,
            gate,
            place: None,
            unanswered: None,
            opened: Opened::Not,
            sent: false,
            carried: BTreeMap::new(),
            watch: Watch::default(),
        })
    }

    /// What the process was opened as.
    pub fn opened(&self) -> Opened {
        self.opened
    }

    /// Whether anything was sent to the process.
    pub fn sent(&self) -> bool {
        self.sent
    }

    /// What the server's own notifications are held to: the progress
    /// tokens of the requests sent, the log level set, the resources
    /// subscribed to.
    pub fn watched(&mut self) -> &mut Watch {
        &mut self.watch
    }

    /// Counts the notifications an earlier process of the same lane sent
    /// as this one's too, so that what a server sent is judged whole
    /// whichever process of the lane it reached.
    pub fn carry(&mut self, notifications: BTreeMap<String, usize>) {
        self.carried = notifications;
    }

    /// The step could not observe the requirement `id`, and why: it is
    /// reported not observed (the runner counts the requirements a step
    /// declares as observed once it ran, unless it said so).
    pub fn miss(&mut self, id: &'static str, why: impl Into<String>) {
        self.ledger.miss(id, why);
    }

    /// The session, holding `place` in the start gate until its process
    /// has answered its first request (or ended).
    pub(super) fn holding(mut self, place: Place<'a>) -> Session<'a> {
        self.place = Some(place);
        self
    }

    /// Ends the process's start in the gate, if it holds a place: with the
    /// time its first answer took, or as silent after `silent`.
    fn started(&mut self, silent: Option<Duration>) {
        let answered = self.client.first_answer();
        if answered.is_none() && silent.is_none() && self.dead.is_none() {
            return;
        }
        if let Some(place) = self.place.take() {
            place.release(answered, silent);
        }
    }

    /// When a first request sent to this process that has no answer yet
    /// stops being waited for, once another process of the suite has
    /// answered its first request: that answer's time from its spawn,
    /// [`PACE_TIMES`] times over and at least [`PACE_SLACK`] more, from
    /// this process's spawn. A server that answered one process so fast
    /// and this one not at all has shown its pace: waiting the whole
    /// startup allowance for it has no cause.
    fn paced_end(&mut self) -> Option<(Instant, Duration)> {
        let slowest = self.gate.slowest()?;
        let paced = slowest
            .saturating_mul(PACE_TIMES)
            .max(slowest.saturating_add(PACE_SLACK));
        Some((after(self.client.channel().spawned_at(), paced), slowest))
    }

    /// A first request that was not answered within the server's pace
    /// ([`Session::paced_end`]): how long it was waited for from the
    /// process's start, and the other process's first answer that set the
    /// pace.
    pub fn unanswered_within_pace(&self) -> Option<(Duration, Duration)> {
        self.unanswered
    }

    /// The slowest start to a first answer among the suite's processes so
    /// far.
    pub fn slowest_start(&self) -> Option<Duration> {
        self.gate.slowest()
    }

    /// Ends a session whose process was left unspoken to while another
    /// used up its allowance without the server writing anything: the
    /// server is silent, this process has written nothing either, and it
    /// is not spoken to. Returns whether it was so ended.
    pub fn silent_server(&mut self) -> bool {
        let Some(silent) = self.gate.silent() else {
            return false;
        };
        if self.client.wrote_anything() {
            return false;
        }
        self.ledger.silent.get_or_insert(silent);
        self.stop(format!(
            "the server wrote nothing on stdout within {} of its start",
            seconds(silent)
        ));
        true
    }

    /// Whether every start the suite asked for so far is over.
    pub fn starts_over(&self) -> bool {
        self.gate.starts_over()
    }

    /// Names the step under way.
    pub fn step(&mut self, step: impl Into<String>) -> String {
        let step = step.into();
        self.client.at(self.steps.len());
        self.steps.push(step.clone());
        step
    }

    /// The step under way.
    fn current(&self) -> String {
        self.steps.last().cloned().unwrap_or_default()
    }

    /// Enters what the client observed in the ledger, at the step each was
    /// made in.
    fn enter_observations(&mut self) {
        for observation in self.client.take_observations() {
            let step = self.steps.get(observation.at).cloned().unwrap_or_default();
            // Every session makes this finding alike (a banner starts them
            // all), and each keeps its own: see `finish`.
            if observation.law == LawId::StdoutIsProtocol {
                self.not_protocol.get_or_insert((step, observation.message));
                continue;
            }
            self.ledger
                .fail(observation.law, &step, observation.message);
            if let Some(requirement) = observation.requirement {
                self.ledger.names(requirement);
            }
        }
        for unjudged in self.client.take_unjudged() {
            let step = self.steps.get(unjudged.at).cloned().unwrap_or_default();
            self.ledger.note(unjudged.law, &step, &unjudged.note());
        }
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
            .client
            .first_answer()
            .map_or(Duration::ZERO, |first| first.saturating_mul(2));
        self.options.grace.max(paced)
    }

    /// The options the probes run with.
    pub fn options(&self) -> &ProbeOptions {
        self.options
    }

    /// The server process, for signals, exits and stdin.
    pub fn process(&mut self) -> &mut ServerProcess {
        self.client.channel()
    }

    /// How many notifications of each method the server sent, to this
    /// process and to the earlier processes of its lane.
    pub fn notifications(&self) -> BTreeMap<String, usize> {
        let mut all = self.carried.clone();
        for (method, n) in self.client.notifications() {
            *all.entry(method.clone()).or_default() += n;
        }
        all
    }

    /// The lines that were no message, read before the first response; a
    /// later call starts a new count.
    pub fn take_pre_serving(&mut self) -> Tally {
        self.client.take_pre_serving()
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
        self.watch.sent(&id, params.as_ref());
        self.client.expect_line(id, name, line.as_bytes());
        line
    }

    /// From now on, [`Session::params`] gives every request 2026-07-28's
    /// `_meta`: the session speaks the stateless era.
    pub fn speak_statelessly(&mut self) {
        self.stateless = true;
        self.opened = Opened::Modern;
    }

    /// The process speaks the modern era (its `server/discover` answered a
    /// modern error), though not statelessly for these probes: no legacy
    /// session is opened on it.
    pub fn spoke_modern(&mut self) {
        self.opened = Opened::Modern;
    }

    /// The params of a request of the probes both eras share: `params` as
    /// given in a legacy session; in a stateless one, with the standard
    /// 2026-07-28 `_meta`, which every request of that revision carries.
    pub fn params(&self, params: Option<Value>) -> Option<Value> {
        match self.stateless {
            false => params,
            true => Some(modern_params(params.unwrap_or_else(|| json!({})))),
        }
    }

    /// Sends lines in one write, each followed by a newline.
    pub fn send_lines(&mut self, lines: &[String]) {
        let mut bytes = Vec::new();
        for line in lines {
            // The client tells what a response without an id answers by
            // the lines without an id sent before it.
            match Frame::parse(line.as_bytes()) {
                Frame::Notification { method, .. } => self.client.sent_notification(&method),
                // A null id is no notification (JSON-RPC 2.0 §4): its answer,
                // if any, carries no id a request was sent with.
                Frame::Malformed { .. } | Frame::NullId { .. } => self.client.sent_malformed(),
                _ => {}
            }
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
        self.sent = true;
        self.client.send(bytes);
    }

    /// Sends a request and waits for its answer; a timeout or a closed
    /// stdout is a finding of `law` at the current step, and ends the session.
    pub fn call(&mut self, law: LawId, name: &str, params: Option<Value>) -> Option<Answer> {
        let id = self.number_id();
        self.call_with(law, id, name, params)
    }

    /// [`Session::call`], but a request that gets no answer ends the
    /// session without a finding (what it ran may just be slow).
    pub fn call_or_stop(
        &mut self,
        law: LawId,
        name: &str,
        params: Option<Value>,
    ) -> Option<Answer> {
        self.prologue = true;
        let answer = self.call(law, name, params);
        self.prologue = false;
        answer
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
    pub fn fenced(&mut self, law: LawId, lines: &[String]) -> Option<Strays> {
        if !self.alive_for(law) {
            return None;
        }
        // A fence is a request of the session's era: in a stateless session
        // it carries 2026-07-28's `_meta` (which removed `ping`, so a
        // modern server answers it -32601: an answer all the same).
        let id = self.number_id();
        let mut lines = lines.to_vec();
        let params = self.params(None);
        lines.push(self.request_with(id.clone(), method::PING, params));
        self.send_lines(&lines);
        self.strays = Some(Strays::default());
        self.client.expect_strays(true);
        let mut answer = self.await_answer(law, &id, self.options.timeout);
        if answer.is_some() {
            let second = self.number_id();
            let params = self.params(None);
            let line = self.request_with(second.clone(), method::PING, params);
            self.send_lines(&[line]);
            answer = self.await_answer(law, &second, self.options.timeout);
        }
        self.client.expect_strays(false);
        let strays = self.strays.take().unwrap_or_default();
        answer.map(|_| strays)
    }

    /// From now on, the messages the server writes are kept, in order, for
    /// [`Session::take_recorded`]: a probe of a stream reads what came in
    /// between its requests' answers. The first [`MAX_RECORDED`] are kept
    /// (within [`MAX_RECORDED_BYTES`] of lines), the rest counted.
    pub fn record(&mut self) {
        self.recorded.get_or_insert_with(Recorded::default);
    }

    /// The messages kept since [`Session::record`], which stops keeping
    /// them.
    pub fn take_recorded(&mut self) -> Recorded {
        self.recorded.take().unwrap_or_default()
    }

    /// Sends `members` as one JSON-RPC batch (revision 2025-03-26), each a
    /// request with its id or, without one, a notification, fenced as
    /// [`Session::fenced`] does: a `ping` behind the batch, and a second
    /// once the first is answered. Returns what came before the second
    /// `ping`'s answer: for each line that answered some of the batch's
    /// requests, whether it was an array and how many it answered; whether
    /// every request was answered; and the strays (answers to the
    /// notifications, or to the batch as a whole). `None` (after a finding
    /// of `law`) when a `ping` went unanswered.
    pub fn batch(
        &mut self,
        law: LawId,
        members: &[(Option<RequestId>, &str, Option<Value>)],
    ) -> Option<Batched> {
        if !self.alive_for(law) {
            return None;
        }
        let mut items = Vec::new();
        let mut ids = Vec::new();
        for (id, name, params) in members {
            let line = match id {
                Some(id) => {
                    ids.push(id.clone());
                    self.request_with(id.clone(), name, params.clone())
                }
                None => {
                    self.client.sent_notification(name);
                    notification_line(name, params.as_ref())
                }
            };
            items.push(serde_json::from_str::<Value>(&line).unwrap_or(Value::Null));
        }
        let first = self.number_id();
        let ping = self.request_with(first.clone(), method::PING, None);
        let mut bytes = Value::Array(items).to_string().into_bytes();
        bytes.push(b'\n');
        bytes.extend_from_slice(ping.as_bytes());
        bytes.push(b'\n');
        // The array is one line the client sent, not a malformed one: its
        // requests are pending.
        self.sent = true;
        self.client.send(bytes);
        self.strays = Some(Strays::default());
        self.client.expect_strays(true);
        let deadline = after(Instant::now(), self.options.timeout);
        let mut lines = Vec::new();
        let mut second: Option<RequestId> = None;
        let fenced = loop {
            if let Some(second) = &second
                && self.early.contains_key(second)
            {
                break true;
            }
            if second.is_none() && self.early.contains_key(&first) {
                let id = self.number_id();
                let line = self.request_with(id.clone(), method::PING, None);
                self.send_lines(&[line]);
                second = Some(id);
            }
            match self.client.recv(deadline) {
                Received::Line {
                    bytes, messages, ..
                } => {
                    let count = messages
                        .iter()
                        .filter(|message| {
                            matches!(&message.kind, Kind::Response { reply: Reply::Answers { sent, .. }, .. } if ids.contains(sent))
                        })
                        .count();
                    if count > 0 {
                        lines.push((bytes.first() == Some(&b'['), count));
                    }
                    self.take_messages(messages, bytes.len());
                    self.enter_observations();
                }
                Received::Timeout => {
                    let message = format!(
                        "no answer to the ping behind a batch within {}; the server was stopped",
                        seconds(self.options.timeout)
                    );
                    self.fail_and_stop(law, message);
                    break false;
                }
                Received::Closed => {
                    let message = format!(
                        "the server {} before answering the ping behind a batch",
                        self.exit_words()
                    );
                    self.fail_and_stop(law, message);
                    break false;
                }
            }
        };
        self.client.expect_strays(false);
        let strays = self.strays.take().unwrap_or_default();
        let answered = ids.iter().all(|id| self.early.contains_key(id));
        for id in ids.iter().chain([&first]).chain(second.as_ref()) {
            self.early.remove(id);
        }
        fenced.then_some(Batched {
            lines,
            answered,
            strays,
        })
    }

    /// [`Session::initialize`] with `lines` sent first, in the same write,
    /// as the very first input of the process: returns the answer, what it
    /// says, and the strays that came before it (the replies to `lines`). A
    /// server that ends or stops answering first is a finding of `law`.
    pub fn initialize_after(
        &mut self,
        law: LawId,
        revision: &str,
        lines: &[String],
    ) -> Option<(Answer, Option<Init>, Strays)> {
        if !self.alive_for(law) {
            return None;
        }
        let params = initialize_params(revision);
        let id = self.number_id();
        let mut lines = lines.to_vec();
        lines.push(self.request_with(id.clone(), method::INITIALIZE, Some(params)));
        self.send_lines(&lines);
        self.strays = Some(Strays::default());
        self.client.expect_strays(true);
        let wait = self.first_wait();
        let answer = self.await_answer(law, &id, wait);
        self.client.expect_strays(false);
        let strays = self.strays.take().unwrap_or_default();
        let answer = answer?;
        let init = answer
            .as_ref()
            .ok()
            .map(|result| Init::of_initialize(revision, result));
        self.opened_by(&answer);
        Some((answer, init, strays))
    }

    /// What an answer to `initialize` opened: a legacy session, or a
    /// refusal the process runs on after.
    fn opened_by(&mut self, answer: &Answer) {
        self.opened = match answer {
            Ok(_) => Opened::Legacy,
            Err(_) => Opened::Refused,
        };
    }

    /// Waits up to `wait` for the answer to `id`; see [`Session::call`].
    fn await_answer(&mut self, law: LawId, id: &RequestId, wait: Duration) -> Option<Answer> {
        self.await_answer_until(law, id, after(Instant::now(), wait), wait)
    }

    /// [`Session::await_answer`] until `deadline`, `wait` after the request
    /// was sent.
    fn await_answer_until(
        &mut self,
        law: LawId,
        id: &RequestId,
        deadline: Instant,
        wait: Duration,
    ) -> Option<Answer> {
        loop {
            if let Some(answer) = self.early.remove(id) {
                return Some(answer);
            }
            match self.next_response(deadline) {
                Next::Line => {}
                // A server that has written nothing at all may be one that
                // starts slowly: no law is broken, and the probes could not
                // check it.
                Next::Timeout if !self.client.wrote_anything() => {
                    self.ledger.silent.get_or_insert(wait);
                    self.started(Some(wait));
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
        let waiting: Vec<RequestId> = self.client.pending().to_vec();
        let until: Option<&[RequestId]> = until_answered.then_some(&waiting);
        self.drain_until(deadline, until)
    }

    /// [`Session::drain`], with `until` the requests whose answers end it
    /// (requests sent before them, which the server may rightly never
    /// answer, such as a cancelled one, do not hold it).
    pub fn drain_until(&mut self, deadline: Instant, until: Option<&[RequestId]>) -> bool {
        loop {
            if let Some(ids) = until
                && !ids.iter().any(|id| self.client.pending().contains(id))
            {
                return false;
            }
            match self.next_response(deadline) {
                Next::Line => {}
                Next::Timeout => return false,
                Next::Closed => return true,
            }
        }
    }

    /// The answer to `id` that came in while no one waited for it (in a
    /// drain, say), taken.
    pub fn take_answer(&mut self, id: &RequestId) -> Option<Answer> {
        self.early.remove(id)
    }

    /// The requests sent and not answered yet.
    pub fn pending(&self) -> &[RequestId] {
        self.client.pending()
    }

    /// Watches stdout until `deadline` before anything is sent; returns the
    /// lines that arrived (nothing should), leaving out protocol messages
    /// when `messages_allowed`, and whether stdout closed. A line that is
    /// no message also counts against `stdout-is-protocol`.
    pub fn watch(&mut self, deadline: Instant, messages_allowed: bool) -> (Tally, bool) {
        let mut lines = Tally::default();
        let closed = loop {
            match self.client.recv(deadline) {
                Received::Line {
                    bytes,
                    eol,
                    messages,
                } => {
                    let message = eol && !messages.is_empty();
                    self.take_messages(messages, bytes.len());
                    if !(message && messages_allowed) {
                        let shown = self.client.redactor().redact(&bytes).into_owned();
                        lines.add(|| wire::excerpt(&shown));
                    }
                }
                Received::Timeout => break false,
                Received::Closed => break true,
            }
        };
        self.enter_observations();
        (lines, closed)
    }

    /// Holds the rest of the session's messages to `revision`'s schema, and
    /// `result`, the answer to `method` that showed the server speaks it,
    /// too (era detection answers before the revision is known).
    pub fn speaking(&mut self, revision: Revision, method: &str, result: &Value) {
        self.client.judge_result_as(revision, method, result);
        self.enter_observations();
    }

    /// The wait for this process's first answer, sent now: its
    /// [`Session::startup_allowance`], or for a process left unspoken to
    /// longer than a step (watched for the quiet start while the others
    /// used up their allowance), what is left of it since its spawn, and
    /// at least a step.
    fn first_wait(&mut self) -> Duration {
        let allowance = self.startup_allowance();
        let idle = self.client.channel().spawned_at().elapsed();
        if idle < self.options.timeout {
            return allowance;
        }
        allowance.saturating_sub(idle).max(self.options.timeout)
    }

    /// The wait for a fresh process's first answer: three step timeouts,
    /// the startup timeout, or three times the slowest first answer of the
    /// suite's processes so far, whichever is longest (a machine busy
    /// enough to slow one start slows the next).
    pub fn startup_allowance(&self) -> Duration {
        let paced = self.gate.slowest().map_or(Duration::ZERO, |slowest| {
            slowest.saturating_mul(STARTUP_STEPS)
        });
        self.options
            .timeout
            .saturating_mul(STARTUP_STEPS)
            .max(self.options.startup_timeout)
            .max(paced)
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
        let wait = self.first_wait();
        let answer = self.await_paced(law, &id, wait);
        self.prologue = false;
        answer
    }

    /// [`Session::await_answer`] for a process's first request whose
    /// silence is an answer too (era detection: a legacy server may ignore
    /// a request before its handshake): the wait ends at the startup
    /// allowance, or, once another process of the suite has answered its
    /// first request, at the server's pace ([`Session::paced_end`]),
    /// whichever comes first. A wait the pace ended is no finding and
    /// leaves the process running: `None`, with
    /// [`Session::unanswered_within_pace`] set.
    fn await_paced(&mut self, law: LawId, id: &RequestId, wait: Duration) -> Option<Answer> {
        let allowance = after(Instant::now(), wait);
        loop {
            if let Some(answer) = self.early.remove(id) {
                return Some(answer);
            }
            let paced = self.paced_end().filter(|(end, _)| *end < allowance);
            let end = match paced {
                Some((end, _)) => end,
                // Until another process has answered: the allowance,
                // looked at again now and then for the pace.
                None => allowance.min(after(Instant::now(), PACE_RECHECK)),
            };
            match self.next_response(end) {
                Next::Line => {}
                // A wait cut short (a stop signal ends every wait at once)
                // ends as any first wait does.
                Next::Timeout if Instant::now() < end => {
                    return self.await_answer_until(law, id, allowance, wait);
                }
                Next::Timeout => match paced {
                    Some((_, slowest)) => {
                        let waited = self.client.channel().spawned_at().elapsed();
                        self.unanswered = Some((waited, slowest));
                        // The start is over: the server is up, and its
                        // answer to another process set its pace.
                        if let Some(place) = self.place.take() {
                            place.release(None, None);
                        }
                        return None;
                    }
                    None if Instant::now() < allowance => {}
                    None => return self.await_answer_until(law, id, allowance, wait),
                },
                Next::Closed => return self.await_answer_until(law, id, allowance, wait),
            }
        }
    }

    /// Sends `initialize` for `revision` and waits for the answer, which is
    /// graded by the caller. Returns the answer and, for a result, what it
    /// says.
    pub fn initialize(&mut self, law: LawId, revision: &str) -> Option<(Answer, Option<Init>)> {
        let params = initialize_params(revision);
        let id = self.number_id();
        let wait = self.first_wait();
        let answer = self.call_within(law, id, method::INITIALIZE, Some(params), wait)?;
        let init = answer
            .as_ref()
            .ok()
            .map(|result| Init::of_initialize(revision, result));
        self.opened_by(&answer);
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
        self.client.channel().kill();
        self.dead.get_or_insert(reason);
        self.started(None);
    }

    fn fail_and_stop(&mut self, law: LawId, message: String) {
        if self.prologue {
            let reason = format!("at step `{}`, {message}", self.current());
            self.stop(reason);
            return;
        }
        let step = self.current();
        let reason = format!("the server stopped answering at step `{step}`");
        self.ledger.fail(law, &step, message);
        self.stop(reason);
    }

    /// How the process ended, in words: "exited with status 1", or "closed
    /// stdout" when it is still running.
    pub fn exit_words(&mut self) -> String {
        let deadline = after(Instant::now(), self.grace());
        self.client.ending_words(deadline)
    }

    /// Takes in the messages of one line of `bytes`: answers are kept for
    /// whoever waits for them, strays judged, the server's requests
    /// declined.
    fn take_messages(&mut self, messages: Vec<crate::client::Message>, bytes: usize) {
        let share = bytes / messages.len().max(1);
        for message in messages {
            if let Some(recorded) = &mut self.recorded {
                recorded.add(&message.value, share);
            }
            let kind = message.kind.clone();
            let (answer, value) = match kind {
                Kind::Response { .. } => (message.into_answer(), Value::Null),
                _ => (Ok(Value::Null), message.value),
            };
            match kind {
                Kind::Response { id, reply } => match reply {
                    Reply::Answers { sent, .. } => {
                        self.early.insert(sent, answer);
                    }
                    // Inside a fence, a second answer or one that names no
                    // request sent is the reply to the fenced line (a
                    // cancellation of that id, say); outside, the client
                    // has made it a finding, except when it has no id.
                    Reply::Again { .. } | Reply::Stray => match &mut self.strays {
                        Some(strays) => strays.push(Stray { id, answer }),
                        None if id.is_none() => {
                            let stray = Stray { id, answer };
                            self.client.unanswerable(&describe(&stray));
                        }
                        None => {}
                    },
                },
                Kind::Notification { method } => {
                    let params = value.get("params");
                    let pending = self.client.pending();
                    let noticed = self.watch.notice(&method, params, pending, self.stateless);
                    for noticed in noticed {
                        self.enter_noticed(noticed);
                    }
                }
                // A server may ping its client, or ask it for roots and the
                // like; the probe client has nothing to offer.
                Kind::Request { id, method } => {
                    let why = format!("the mcp-replay probe client does not serve {method}");
                    self.client.decline(id, &method, why);
                }
            }
        }
    }

    /// Makes what a notification broke a finding at the step under way.
    fn enter_noticed(&mut self, noticed: Noticed) {
        let step = self.current();
        match noticed.severity {
            Some(severity) => self
                .ledger
                .fail_as(noticed.law, severity, &step, noticed.message),
            None => self.ledger.fail(noticed.law, &step, noticed.message),
        }
        self.ledger.names(noticed.requirement);
    }

    fn next_response(&mut self, deadline: Instant) -> Next {
        let next = match self.client.recv(deadline) {
            Received::Timeout => Next::Timeout,
            Received::Closed => Next::Closed,
            Received::Line {
                messages, bytes, ..
            } => {
                self.take_messages(messages, bytes.len());
                Next::Line
            }
        };
        if self.place.is_some() && self.client.first_answer().is_some() {
            self.started(None);
        }
        self.enter_observations();
        next
    }

    /// Ends the session: records `stdout-is-protocol` and `schema`, notes
    /// in the ledger's coverage the requirements the client observed of
    /// every message read, and returns the ledger.
    ///
    /// Every session makes the first finding alike (a banner starts them
    /// all), and each keeps its own: one finding per session, told apart by
    /// its name.
    pub fn finish(mut self) -> Ledger {
        self.enter_observations();
        if let Some((step, message)) = self.not_protocol.take() {
            let message = message + &self.client.more_not_protocol();
            self.ledger
                .fail_per_session(LawId::StdoutIsProtocol, &step, message);
        } else if self.client.saw_message() {
            self.ledger.held(LawId::StdoutIsProtocol);
        }
        if self.client.schema_judged() {
            self.ledger.held(LawId::Schema);
        } else {
            self.ledger.skip(
                LawId::Schema,
                "no message came in a revision mcp-replay knows (the server's initialize answer named none of the five)",
            );
        }
        // The revisions are the runner's to note: the client holds a
        // legacy server's refusal of `server/discover` to 2026-07-28, which
        // the server does not speak for it.
        let seen = self.client.coverage();
        let coverage = &mut self.ledger.coverage;
        coverage.observed.extend(seen.observed.iter().copied());
        coverage
            .capabilities
            .extend(seen.capabilities.iter().cloned());
        self.ledger
    }

    /// Holds every message the session reads from now on to `revision`'s
    /// schema, for a session that speaks a revision without a handshake
    /// (2026-07-28 on a fresh process).
    pub fn assume(&mut self, revision: Revision) {
        self.client.speak(revision);
    }

    /// [`Session::call`] as a fresh process's first request: with the
    /// allowance of a process that may still be starting.
    pub fn first_call(&mut self, law: LawId, name: &str, params: Option<Value>) -> Option<Answer> {
        let id = self.number_id();
        let wait = self.first_wait();
        self.call_within(law, id, name, params, wait)
    }
}

/// An answer in words, for messages.
pub(super) fn answer_words(answer: &Answer) -> String {
    match answer {
        Ok(result) => format!("the result {}", short(result)),
        Err(error) => error_words(error),
    }
}

/// How many messages that break the schema one session reports.
const MAX_SCHEMA_FINDINGS: usize = 5;

enum Next {
    Line,
    Timeout,
    Closed,
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
            "error {} {id} ({})",
            error.code,
            wire::quoted(error.message.as_bytes())
        ),
    }
}

/// An error response in words, its message shortened: `error -32601
/// ("method not found")`.
pub(super) fn error_words(error: &RpcError) -> String {
    format!(
        "error {} ({})",
        error.code,
        wire::quoted(error.message.as_bytes())
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

    /// A server's error message is shown escaped once: its newlines as
    /// `\n`, its quotes as they are (the TypeScript SDK sends a schema
    /// validator's report, JSON with newlines, as the message).
    #[test]
    fn error_messages_are_escaped_once() {
        let error = RpcError {
            code: crate::ErrorCode::INVALID_PARAMS,
            message: "[\n  {\n    \"expected\": \"string\"".into(),
            data: None,
        };
        assert_eq!(
            error_words(&error),
            r#"error -32602 ("[\n  {\n    "expected": "string"")"#
        );
    }

    #[test]
    fn durations_in_words() {
        assert_eq!(seconds(Duration::from_secs(5)), "5 s");
        assert_eq!(seconds(Duration::from_millis(300)), "300 ms");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5 s");
    }
}
