//! Replaying a transcript against a live server, in causal order.
//!
//! The client side of the recording is sent line by line, each line only
//! once the server messages a host acts on that preceded it in the
//! recording have arrived: the responses, the server→client requests and
//! the `notifications/*/list_changed` (a host re-lists after one).
//! Responses are matched by id, server notifications and server→client
//! requests by method and order of occurrence. Other notifications
//! (logging, progress, resource updates) are matched when they come but
//! never waited for: servers send them on timers, and a replay does not
//! reproduce the time a host sat idle. One that never comes is a note, not
//! a finding. Responses may arrive in any order and unsolicited
//! notifications anywhere. Every wait has a deadline; nothing sleeps.
//!
//! While it replays, the checker reads every stdout line as the stdio
//! contract demands (`stdout-is-protocol`), counts the answers of every
//! request (`request-answered-once`) and watches for answers to
//! notifications (`notification-unanswered`). Each recorded response is
//! compared with the live one after the ignore rules (`transcript-match`).
//!
//! Secrets are redacted on both sides before anything is compared or kept:
//! the variables the transcript's header names, its patterns, and the
//! variables of the checker's environment that look secret by the
//! recorder's rule, since a secret set only where the check runs (in CI)
//! must reach neither a report nor a blessed transcript.

pub(crate) mod bless;
mod live;
mod rewrite;
mod script;
pub(crate) mod settle;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use self::rewrite::with_member;
use self::script::{Expect, ExpectKind, ExpectState, Script, SendKind, SendLine, Slot, Step};
use crate::client::conformance;
use crate::client::duration::{after, format_duration};
use crate::client::{Channel, Client, Observation, Received};
use crate::compare::diff::IgnoreRules;
use crate::jsonrpc::RequestId;
use crate::laws::{LawId, Profile};
#[cfg(all(test, feature = "cli"))]
use crate::process::ServerProcess;
#[cfg(feature = "cli")]
use crate::process::SpawnError;
use crate::report::{Coverage, Exchange, ExchangeStatus, Finding, Location};
use crate::revision::Revision;
use crate::transcript::{
    Direction, RedactError, Redaction, Redactor, Transcript, Unfilled, env_secret_names, filler,
};

/// How a replay runs.
#[derive(Debug, Clone)]
pub(crate) struct ReplayOptions {
    /// The profile findings are graded in.
    pub profile: Profile,
    /// The deadline of each step: the server messages a client line waits
    /// for.
    pub timeout: Duration,
    /// The deadline of a step while the server has not written anything yet,
    /// for servers that take long to start (`npx`, `uv run`).
    pub startup_timeout: Duration,
    /// How long the server may take to close stdout and exit after stdin
    /// closes, before it is killed.
    pub grace: Duration,
    /// The header's ignore rules and the directory config's.
    pub ignore: IgnoreRules,
    /// Keep the live stdout lines, for `--bless`.
    pub keep_live: bool,
    /// The exact command that accepts this transcript's mismatches.
    pub bless_hint: String,
    /// More variables and patterns to redact (`redactEnv` and `redact` in
    /// `mcp-replay.json`, and the variables of `fill`), after the header's.
    pub redaction: Redaction,
    /// The variables whose values fill the placeholders of the client's
    /// lines: those the person running the replay named, never those the
    /// transcript lists.
    pub fill: Vec<String>,
    /// How a note words the way to name a variable for `fill`.
    pub fill_hint: fn(&str) -> String,
    /// The arguments of the recorded command that still hold a placeholder
    /// once filled: it was passed to the server as it stands.
    pub command_left: Vec<String>,
}

/// What a replay found.
#[derive(Debug)]
pub(crate) struct ReplayOutcome {
    /// The server command, as a shell would show it, secrets redacted.
    pub command: String,
    /// Remarks that are no findings: recorded notifications that were not
    /// waited for and never came.
    pub notes: Vec<String>,
    /// Every client request, in transcript order.
    pub exchanges: Vec<Exchange>,
    /// The findings, in the order they were made.
    pub findings: Vec<Finding>,
    /// How many recorded responses differ from the live ones.
    pub mismatches: usize,
    /// `false` when the replay stopped early (a deadline passed or the
    /// server closed stdout), so the live session is incomplete.
    pub complete: bool,
    /// Whether the live session differs from the recording in more than
    /// the content of responses (a recorded message that never came, an
    /// answer to a line that had none), so that blessing must rewrite the
    /// whole server side rather than replace the responses that changed.
    pub reshaped: bool,
    /// The live stdout lines (only with `keep_live`), in arrival order.
    pub live: Vec<LiveLine>,
    /// The server wrote nothing at all on stdout within this startup
    /// allowance: the session could not be checked (a server slow to start
    /// has broken no law), and the replay stopped.
    pub silent: Option<Duration>,
    /// Each recorded response that differs from the live one, with both
    /// sides as compared, for telling noise from regressions.
    pub mismatched: Vec<Mismatch>,
    /// The mismatches past [`MAX_KEPT_MISMATCHES`], compact.
    pub overflow: Vec<Overflow>,
    /// The index of the finding that counts `overflow`.
    pub left_out_finding: Option<usize>,
    /// The transcript lines of the recorded responses that a live one was
    /// compared with (matched or not).
    pub compared: HashSet<usize>,
    /// What the replay observed of the server's requirements.
    pub coverage: Coverage,
}

/// How many recorded responses that differ from the live ones a replay
/// keeps in full (the diff, both sides, a finding each); past it they are
/// counted, and one finding says how many were left out.
pub(crate) const MAX_KEPT_MISMATCHES: usize = 100;

/// A recorded response past [`MAX_KEPT_MISMATCHES`] that differs from the
/// live one: both sides as compact JSON text (a fraction of the memory of
/// parsed values and a diff), so that noise is still told from regressions.
#[derive(Debug, Clone)]
pub(crate) struct Overflow {
    /// The transcript line of the recorded response.
    pub line: usize,
    /// The recorded response, after the ignore rules, as JSON text.
    pub expected: Box<str>,
    /// The live response, after the ignore rules, as JSON text.
    pub actual: Box<str>,
}

/// The message of the finding that counts the mismatches past the bound.
pub(crate) fn left_out_message(count: usize, line: usize) -> String {
    let s = if count == 1 { "" } else { "s" };
    format!(
        "{count} more response{s} differ from the recording, from line {line} on: past the first {MAX_KEPT_MISMATCHES} of a transcript, differences are counted and left out of the report (no diff)"
    )
}

/// A recorded response that differs from the live one.
#[derive(Debug, Clone)]
pub(crate) struct Mismatch {
    /// The transcript line of the recorded response.
    pub line: usize,
    /// The index of its `transcript-match` finding.
    pub finding: usize,
    /// The recorded response, after the ignore rules.
    pub expected: Value,
    /// The live response (recorded id, secrets redacted), after the
    /// ignore rules.
    pub actual: Value,
}

/// One live stdout line, kept for `--bless`.
#[derive(Debug, Clone)]
pub(crate) struct LiveLine {
    /// How many client lines had been sent when it arrived.
    pub segment: usize,
    /// The line as the transcript should record it: ids mapped back to the
    /// recorded ones and secrets redacted.
    pub bytes: Vec<u8>,
    /// `false` when the line ended stdout without a newline.
    pub eol: bool,
    /// The transcript lines of the recorded responses this line differs
    /// from, and so replaces when blessed.
    pub replaces: Vec<usize>,
}

/// Why a replay could not run at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReplayError {
    /// The transcript's redaction patterns are unusable.
    #[error("{}:1: the header's redaction is unusable", .path.display())]
    Redact {
        /// The transcript.
        path: std::path::PathBuf,
        /// The pattern and what is wrong with it.
        #[source]
        source: RedactError,
    },
    /// A client line was cut when recorded: the replay cannot send what the
    /// host sent.
    #[error(
        "{}:{line}: the client line was cut when recorded ({kept} bytes kept, {cut} more not): it cannot be replayed",
        .path.display()
    )]
    CutClientLine {
        /// The transcript.
        path: std::path::PathBuf,
        /// The line of the cut event.
        line: usize,
        /// The bytes of it the transcript holds.
        kept: usize,
        /// The bytes of it that were not recorded.
        cut: u64,
    },
    /// A recorded server line is JSON beyond the limits of what the
    /// checker reads as a message: nothing the live server writes can be
    /// compared with it, so the transcript cannot be checked.
    #[error(
        "{}:{line}: the recorded server line cannot be read as a message ({why}): no live line can be compared with it; re-record the session, or edit the line to what the server should write",
        .path.display()
    )]
    UnreadableServerLine {
        /// The transcript.
        path: std::path::PathBuf,
        /// The line of the event.
        line: usize,
        /// What is beyond the limits.
        why: &'static str,
    },
    /// The transcript sends no request and expects no answer (a header
    /// alone, or notifications alone): replaying it would judge nothing,
    /// and a pass would say the server kept a session nobody had with it.
    #[error(
        "{}: the transcript records no request (only a header, or only notifications), so replaying it checks nothing: record a session in which the client sends a request",
        .path.display()
    )]
    NoRequest {
        /// The transcript.
        path: std::path::PathBuf,
    },
    /// The server could not be started.
    #[cfg(feature = "cli")]
    #[error(transparent)]
    Spawn(#[from] SpawnError),
}

/// Replays `transcript` against a fresh process of `command`.
#[cfg(all(test, feature = "cli"))]
pub(crate) fn replay(
    transcript: &Transcript,
    command: &crate::process::ServerCommand,
    options: &ReplayOptions,
) -> Result<ReplayOutcome, ReplayError> {
    let server = ServerProcess::spawn(command)?;
    let display = server.command().to_owned();
    replay_on(server, &display, transcript, options)
}

/// Replays `transcript` against `server` (shown as `command`), a fresh
/// process started for it (started before the transcript was read, so that
/// it gets ready while the transcript is read and the script built), or a
/// server in the checker's own process.
pub(crate) fn replay_on<C: Channel>(
    server: C,
    command: &str,
    transcript: &Transcript,
    options: &ReplayOptions,
) -> Result<ReplayOutcome, ReplayError> {
    // The names the header lists, and those of the checker's environment
    // that look secret: a secret set only where the check runs (in CI) must
    // not reach a diff, a report or a blessed transcript either.
    let mut redaction = transcript.header.redact.clone();
    for name in env_secret_names()
        .into_iter()
        .chain(options.redaction.env.iter().cloned())
    {
        if !redaction.env.contains(&name) {
            redaction.env.push(name);
        }
    }
    // After the header's, so that the placeholders the recording wrote keep
    // their numbers.
    for pattern in &options.redaction.patterns {
        if !redaction.patterns.contains(pattern) {
            redaction.patterns.push(pattern.clone());
        }
    }
    for name in &options.fill {
        if !redaction.env.contains(name) {
            redaction.env.push(name.clone());
        }
    }
    let redactor = Redactor::from_env(&redaction).map_err(|source| ReplayError::Redact {
        path: transcript.path.clone(),
        source,
    })?;
    let mut unfilled = Unfilled::default();
    for arg in &options.command_left {
        unfilled.saw(1, arg.as_bytes());
    }
    // The command as the report shows it: the values put back into a
    // recorded command are secrets too.
    let command = String::from_utf8_lossy(&redactor.redact(command.as_bytes())).into_owned();
    // Each recorded message is kept as text, and read (the ignore rules
    // applied) when it is compared: see `script::Recorded`.
    let mut script = Script::build(transcript, &redactor);
    if let Some((line, kept, cut)) = script.cut_client {
        return Err(ReplayError::CutClientLine {
            path: transcript.path.clone(),
            line,
            kept,
            cut,
        });
    }
    if let Some((line, why)) = script.unreadable_server {
        return Err(ReplayError::UnreadableServerLine {
            path: transcript.path.clone(),
            line,
            why,
        });
    }
    // A request, or a malformed line whose recorded answer is awaited, is
    // something the server must do; notifications alone ask nothing of it
    // (a server that never started keeps them as well as any).
    let awaits_answer = |expect: &Expect| matches!(expect.kind, ExpectKind::NoId);
    if script.slots.is_empty() && !script.expects.iter().any(awaits_answer) {
        return Err(ReplayError::NoRequest {
            path: transcript.path.clone(),
        });
    }
    let mut client = Client::new(server, redactor, MAX_SCHEMA_FINDINGS);
    if let Some(revision) = recorded_revision(transcript) {
        client.speak(revision);
    }
    let mut run = Run {
        path: &transcript.path,
        command,
        options,
        filler: filler(&options.fill, |name| std::env::var(name).ok()),
        unfilled,
        client,
        slots: script.slots,
        expects: script.expects,
        resolved: 0,
        live_ids: HashMap::new(),
        used_ids: HashSet::new(),
        max_number_id: 0,
        findings: Vec::new(),
        unjudged: Vec::new(),
        unjudged_left_out: 0,
        mismatches: 0,
        silent: None,
        mismatched: Vec::new(),
        compared: HashSet::new(),
        changed: Vec::new(),
        overflow: Vec::new(),
        reshaped: false,
        sends: 0,
        last_line: 0,
        not_protocol_finding: None,
        live: Vec::new(),
    };
    let complete = run.play(&script.steps);
    run.enter_observations();
    if let Some(index) = run.not_protocol_finding {
        let more = run.client.more_not_protocol();
        run.findings[index].message.push_str(&more);
    }
    run.schema_tally();
    let mut left_out_finding = None;
    if let Some(first) = run.overflow.first() {
        let message = left_out_message(run.overflow.len(), first.line);
        let finding = Finding::new(
            LawId::TranscriptMatch,
            options.profile,
            run.location(first.line),
            message,
        )
        .with_hint(format!(
            "accept the new responses with `{}`",
            options.bless_hint
        ));
        left_out_finding = Some(run.findings.len());
        run.findings.push(finding);
    }
    let exchanges = run.exchanges();
    // Once the replay stopped early, what did not come might have come
    // later: only a whole session notes what never came.
    let mut notes = std::mem::take(&mut script.notes);
    notes.append(&mut run.unjudged);
    let left_out = run.unjudged_left_out + run.client.unjudged_left_out();
    if left_out > 0 {
        notes.push(format!(
            "{left_out} more values the judge of JSON Schema could not decide are left out of these notes"
        ));
    }
    notes.extend(run.unfilled.notes(&options.fill, options.fill_hint));
    if complete {
        notes.extend(run.missing_notifications());
    }
    let coverage = run.client.coverage().clone();
    Ok(ReplayOutcome {
        coverage,
        notes,
        command: run.command,
        exchanges,
        findings: run.findings,
        mismatches: run.mismatches,
        silent: run.silent,
        mismatched: run.mismatched,
        overflow: run.overflow,
        left_out_finding,
        compared: run.compared,
        complete,
        reshaped: run.reshaped,
        live: run.live,
    })
}

/// The revision a transcript records: its protocol event, or the
/// `protocolVersion` of the first modern request's `_meta`.
fn recorded_revision(transcript: &Transcript) -> Option<Revision> {
    if let Some(revision) = transcript.protocol() {
        return Revision::parse(revision);
    }
    transcript
        .lines(Direction::ClientToServer)
        .filter_map(|(_, payload)| payload.to_json())
        .find_map(|message| conformance::requested(message.get("params")))
}

/// `line` (a request) with `params._meta.progressToken` set to `live` where
/// it was `recorded`, the request's recorded id; `None` where it names
/// another token or none.
fn with_progress_token(line: &[u8], recorded: &RequestId, live: &RequestId) -> Option<Vec<u8>> {
    let mut value: Value = serde_json::from_slice(line).ok()?;
    let token = value
        .get_mut("params")?
        .get_mut("_meta")?
        .get_mut("progressToken")?;
    if *token != recorded.to_value() {
        return None;
    }
    *token = live.to_value();
    Some(value.to_string().into_bytes())
}

/// How many messages that break the schema a replay reports one by one.
const MAX_SCHEMA_FINDINGS: usize = 10;

/// A replay in progress.
struct Run<'a, C> {
    path: &'a Path,
    /// See [`ReplayOutcome::command`].
    command: String,
    options: &'a ReplayOptions,
    /// Fills the placeholders of the variables named for the run.
    filler: Redactor,
    /// The placeholders sent as they stand.
    unfilled: Unfilled,
    /// The client the server is spoken to through. It holds messages to
    /// the recorded revision (the transcript's protocol event, or a modern
    /// request's `_meta`), else to the one the live `initialize` answer
    /// names.
    client: Client<C>,
    slots: Vec<Slot>,
    expects: Vec<Expect>,
    /// Every expectation before this index is met or missed.
    resolved: usize,
    /// The slot of each request id sent.
    live_ids: HashMap<RequestId, usize>,
    used_ids: HashSet<RequestId>,
    max_number_id: i64,
    findings: Vec<Finding>,
    /// What a law asked of an answer and could not be decided, as notes
    /// (at most `MAX_UNJUDGED`), and how many more were left out.
    unjudged: Vec<String>,
    unjudged_left_out: usize,
    mismatches: usize,
    /// See [`ReplayOutcome::silent`].
    silent: Option<Duration>,
    /// See [`ReplayOutcome::mismatched`].
    mismatched: Vec<Mismatch>,
    /// See [`ReplayOutcome::compared`].
    compared: HashSet<usize>,
    /// The transcript lines of the recorded responses that differ.
    changed: Vec<usize>,
    /// See [`ReplayOutcome::overflow`].
    overflow: Vec<Overflow>,
    /// See [`ReplayOutcome::reshaped`].
    reshaped: bool,
    /// How many client lines have been sent.
    sends: usize,
    /// The transcript line of the last client line sent (0 before any).
    last_line: usize,
    /// The index of the `stdout-is-protocol` finding among the findings:
    /// the other lines that were no message are counted in it.
    not_protocol_finding: Option<usize>,
    live: Vec<LiveLine>,
}

/// Why a wait ended without its condition.
enum Stop {
    Timeout(Duration),
    /// The deadline passed before the server wrote anything at all.
    Silent(Duration),
    Closed,
}

impl<C: Channel> Run<'_, C> {
    /// Plays the script; returns whether it ran to the end.
    fn play(&mut self, steps: &[Step]) -> bool {
        let mut registered = 0;
        for step in steps {
            match step {
                Step::Expect(index) => registered = index + 1,
                Step::Send(send) => {
                    if let Err(stop) = self.wait_until(|run| run.resolved_through(registered))
                        && self.stopped(&stop, registered)
                    {
                        return false;
                    }
                    self.send(send);
                }
            }
        }
        // stdin closes only once every request is answered or given up on:
        // some servers drop in-flight answers at end of input.
        if let Err(stop) = self.wait_until(|run| {
            run.resolved_through(run.expects.len()) && run.unanswered().next().is_none()
        }) && self.stopped(&stop, self.expects.len())
        {
            return false;
        }
        self.finish();
        true
    }

    /// Whether every expectation before `limit` that gates the client is
    /// met or missed.
    fn resolved_through(&mut self, limit: usize) -> bool {
        while self.resolved < limit
            && (self.expects[self.resolved].state != ExpectState::Waiting
                || !self.expects[self.resolved].gates)
        {
            self.resolved += 1;
        }
        self.resolved >= limit
    }

    /// The recorded notifications that were not waited for and never came,
    /// by method: notes, not findings.
    fn missing_notifications(&self) -> Vec<String> {
        let mut missing: Vec<(&str, Vec<usize>)> = Vec::new();
        for expect in &self.expects {
            let ExpectKind::Notification(method) = &expect.kind else {
                continue;
            };
            if expect.gates || expect.state != ExpectState::Waiting {
                continue;
            }
            match missing.iter_mut().find(|(known, _)| *known == method) {
                Some((_, lines)) => lines.push(expect.line),
                None => missing.push((method, vec![expect.line])),
            }
        }
        missing
            .into_iter()
            .map(|(method, lines)| {
                let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
                match lines.as_slice() {
                    [line] => format!(
                        "the recorded notification `{method}` (line {line}) did not come; a replay does not wait for it"
                    ),
                    _ => format!(
                        "{} recorded `{method}` notifications (lines {}) did not come; a replay does not wait for them",
                        lines.len(),
                        lines.join(", ")
                    ),
                }
            })
            .collect()
    }

    fn unanswered(&self) -> impl Iterator<Item = &Slot> {
        self.slots.iter().filter(|slot| {
            slot.live.is_some() && slot.answers == 0 && !slot.cancelled && slot.response.is_none()
        })
    }

    /// Reads stdout until `done` holds, the step's deadline passes or stdout
    /// ends. Until the server has written anything at all, the deadline is
    /// the longer startup allowance; from its first output on, the step's
    /// own timeout runs.
    fn wait_until(&mut self, mut done: impl FnMut(&mut Self) -> bool) -> Result<(), Stop> {
        let start = Instant::now();
        let startup = self.options.timeout.max(self.options.startup_timeout);
        loop {
            if done(self) {
                return Ok(());
            }
            let (deadline, allowance) = match self.client.first_output() {
                Some(first) => (
                    after(start.max(first), self.options.timeout),
                    self.options.timeout,
                ),
                None => (after(start, startup), startup),
            };
            match self.client.recv(deadline) {
                Received::Line {
                    bytes,
                    eol,
                    messages,
                } => self.on_line(bytes, eol, messages),
                Received::Closed => return Err(Stop::Closed),
                // A server that has written nothing at all may be one that
                // starts slowly: that is no law it broke.
                Received::Timeout if !self.client.wrote_anything() => {
                    return Err(Stop::Silent(allowance));
                }
                Received::Timeout => return Err(Stop::Timeout(allowance)),
            }
        }
    }

    /// Reports what a stopped wait left unresolved among the first `limit`
    /// expectations (and the unanswered requests). Returns `true` when the
    /// replay cannot go on: a request went unanswered or stdout ended; the
    /// server is then killed.
    fn stopped(&mut self, stop: &Stop, limit: usize) -> bool {
        let why = match stop {
            Stop::Silent(allowance) => {
                self.silent = Some(*allowance);
                self.client.channel().kill();
                return true;
            }
            Stop::Timeout(allowance) => format!("within {}", format_duration(*allowance)),
            Stop::Closed => {
                let status = self
                    .client
                    .channel()
                    .exit_status(after(Instant::now(), self.options.grace))
                    .map_or_else(
                        || "still running".to_owned(),
                        |status| format!("exit status {status}"),
                    );
                match self.client.stderr_words() {
                    Some(words) => {
                        format!("before the server closed stdout ({status}; stderr ends: {words})")
                    }
                    None => format!("before the server closed stdout ({status})"),
                }
            }
        };
        let mut fatal = matches!(stop, Stop::Closed);
        for index in self.resolved..limit {
            if self.expects[index].state != ExpectState::Waiting || !self.expects[index].gates {
                continue;
            }
            self.expects[index].state = ExpectState::Missed;
            let line = self.expects[index].line;
            let message = match &self.expects[index].kind {
                ExpectKind::Response(slot) => {
                    fatal = true;
                    let slot = &self.slots[*slot];
                    let message = format!(
                        "no response to `{}` id={} (line {}) {why}",
                        slot.method, slot.recorded, slot.line
                    );
                    let slot_line = slot.line;
                    self.finding(LawId::RequestAnsweredOnce, slot_line, message);
                    continue;
                }
                ExpectKind::NoId => {
                    format!("the recorded response without an id (line {line}) did not come {why}")
                }
                ExpectKind::Notification(method) => {
                    format!("the recorded notification `{method}` (line {line}) did not come {why}")
                }
                ExpectKind::ServerRequest { method, .. } => {
                    format!(
                        "the recorded server request `{method}` (line {line}) did not come {why}"
                    )
                }
            };
            self.reshape_finding(line, message);
        }
        if limit == self.expects.len() {
            let unanswered: Vec<(usize, String)> = self
                .unanswered()
                .map(|slot| {
                    (
                        slot.line,
                        format!(
                            "no response to `{}` id={} (line {}) {why}",
                            slot.method, slot.recorded, slot.line
                        ),
                    )
                })
                .collect();
            for (line, message) in unanswered {
                fatal = true;
                self.finding(LawId::RequestAnsweredOnce, line, message);
            }
        }
        // Sent requests without an answer keep the status `Unanswered` they
        // got when sent; those never sent stay `NotSent`.
        if fatal {
            self.client.channel().kill();
        }
        fatal
    }

    /// Closes stdin, reads what the server still writes until it closes
    /// stdout, and makes sure it ends (killing it after the grace period).
    fn finish(&mut self) {
        self.client.channel().close_input();
        let deadline = after(Instant::now(), self.options.grace);
        loop {
            match self.client.recv(deadline) {
                Received::Line {
                    bytes,
                    eol,
                    messages,
                } => self.on_line(bytes, eol, messages),
                Received::Closed => break,
                Received::Timeout => {
                    self.client.channel().kill();
                    return;
                }
            }
        }
        if self.client.channel().exit_status(deadline).is_none() {
            self.client.channel().kill();
        }
    }

    fn send(&mut self, send: &SendLine) {
        // Counted even when the line is not sent, so that live lines keep
        // their place between the transcript's client lines.
        self.sends += 1;
        self.last_line = send.line;
        self.client.at(send.line);
        let restored = self.filler.restore(&send.bytes);
        self.unfilled.saw(send.line, &restored);
        let mut bytes = restored.into_owned();
        match &send.kind {
            SendKind::Request(slot) => {
                let recorded = self.slots[*slot].recorded.clone();
                let live = if self.used_ids.contains(&recorded) {
                    self.fresh_id(&recorded)
                } else {
                    recorded.clone()
                };
                if live != recorded
                    && let Some(rewritten) = with_member(&bytes, "id", &live.to_value())
                {
                    bytes = rewritten;
                    // A client that made the request's id its progress
                    // token (as the TypeScript SDK does) meant a token no
                    // other request in flight has: the fresh id keeps it so.
                    if let Some(retokened) = with_progress_token(&bytes, &recorded, &live) {
                        bytes = retokened;
                    }
                }
                self.open(*slot, live, Some(&bytes));
            }
            SendKind::Batch(slots) => {
                for &slot in slots {
                    let id = self.slots[slot].recorded.clone();
                    self.open(slot, id, None);
                }
            }
            SendKind::Notification { method, cancels } => {
                if let Some(slot) = cancels
                    && let Some(live) = &self.slots[*slot].live
                    && *live != self.slots[*slot].recorded
                    && let Ok(mut value) = serde_json::from_slice::<Value>(&bytes)
                    && let Some(params) = value.get_mut("params").and_then(Value::as_object_mut)
                {
                    params.insert("requestId".to_owned(), live.to_value());
                    bytes = value.to_string().into_bytes();
                }
                self.client.sent_notification(method);
            }
            SendKind::Answer(expect) => {
                if let Some(index) = expect {
                    let ExpectKind::ServerRequest { recorded, live, .. } =
                        &self.expects[*index].kind
                    else {
                        unreachable!("answers pair with server requests");
                    };
                    // The live server never asked: there is nothing to answer.
                    let Some(live) = live else { return };
                    if live != recorded
                        && let Some(rewritten) = with_member(&bytes, "id", &live.to_value())
                    {
                        bytes = rewritten;
                    }
                }
            }
            SendKind::Other => {
                self.client.sent_malformed();
            }
        }
        if send.eol {
            bytes.push(b'\n');
        }
        self.client.send(bytes);
    }

    /// Counts the request of `slot` as sent with `live`; `line` is the
    /// request line, for a `tools/call` to name its tool.
    fn open(&mut self, slot: usize, live: RequestId, line: Option<&[u8]>) {
        if let Ok(n) = live.to_string().parse::<i64>() {
            self.max_number_id = self.max_number_id.max(n);
        }
        self.used_ids.insert(live.clone());
        match line {
            Some(line) => self
                .client
                .expect_line(live.clone(), &self.slots[slot].method, line),
            None => self
                .client
                .expect_answer(live.clone(), &self.slots[slot].method),
        }
        self.live_ids.insert(live.clone(), slot);
        let slot = &mut self.slots[slot];
        slot.live = Some(live);
        if slot.status == ExchangeStatus::NotSent {
            slot.status = if slot.cancelled {
                ExchangeStatus::Cancelled
            } else {
                ExchangeStatus::Unanswered
            };
        }
    }

    /// An id not used yet in this session, of the same JSON type as
    /// `recorded` (the recording reused an id after its answer came).
    fn fresh_id(&self, recorded: &RequestId) -> RequestId {
        if recorded.is_string() {
            let base = recorded.to_value().as_str().unwrap_or_default().to_owned();
            (1..)
                .map(|n| RequestId::string(format!("{base}~{n}")))
                .find(|id| !self.used_ids.contains(id))
                .expect("some suffix is free")
        } else {
            RequestId::number(self.max_number_id + 1)
        }
    }

    fn location(&self, line: usize) -> Location {
        Location::Transcript {
            path: self.path.to_owned(),
            line,
        }
    }

    /// Enters what the client observed among the findings: a finding
    /// about a request at the request's line, any other at the line last
    /// sent.
    fn enter_observations(&mut self) {
        for observation in self.client.take_observations() {
            self.enter(observation);
        }
        for unjudged in self.client.take_unjudged() {
            if self.unjudged.len() >= crate::client::MAX_UNJUDGED {
                self.unjudged_left_out += 1;
                continue;
            }
            let line = unjudged
                .request
                .as_ref()
                .and_then(|id| self.live_ids.get(id))
                .map_or(unjudged.at.max(1), |&slot| self.slots[slot].line);
            self.unjudged.push(format!(
                "{}:{line}: {}",
                self.path.display(),
                unjudged.note()
            ));
        }
    }

    fn enter(&mut self, observation: Observation) {
        let line = observation
            .request
            .as_ref()
            .and_then(|id| self.live_ids.get(id))
            .map_or(observation.at.max(1), |&slot| self.slots[slot].line);
        if let Some(&slot) = observation
            .request
            .as_ref()
            .and_then(|id| self.live_ids.get(id))
            && observation.law == LawId::RequestAnsweredOnce
        {
            self.slots[slot].status = ExchangeStatus::Failed;
        }
        if observation.law == LawId::StdoutIsProtocol {
            self.not_protocol_finding.get_or_insert(self.findings.len());
        }
        let finding = Finding::new(
            observation.law,
            self.options.profile,
            self.location(line),
            observation.message,
        );
        self.findings.push(match observation.requirement {
            Some(requirement) => finding.with_requirement(requirement),
            None => finding,
        });
    }

    fn finding(&mut self, law: LawId, line: usize, message: impl Into<String>) {
        let finding = Finding::new(law, self.options.profile, self.location(line), message);
        self.findings.push(finding);
    }

    /// A `transcript-match` finding about the session's shape (a recorded
    /// message that never came, an answer the recording lacks): `--bless`
    /// accepts it by rewriting the server side, so it says how.
    fn reshape_finding(&mut self, line: usize, message: String) {
        self.reshaped = true;
        let finding = Finding::new(
            LawId::TranscriptMatch,
            self.options.profile,
            self.location(line),
            message,
        )
        .with_hint(self.bless_hint());
        self.findings.push(finding);
    }

    /// The hint of a finding `--bless` can accept.
    fn bless_hint(&self) -> String {
        format!("accept the live session with `{}`", self.options.bless_hint)
    }

    fn exchanges(&self) -> Vec<Exchange> {
        self.slots
            .iter()
            .map(|slot| Exchange {
                line: slot.line,
                method: slot.method.clone(),
                id: slot.recorded.to_string(),
                answer_line: slot.response.map(|index| self.expects[index].line),
                status: slot.status,
            })
            .collect()
    }
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;
    use crate::process::ServerCommand;

    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    const LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    const LIST_OK: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#;

    /// A transcript of `(dir, message)` events, with a header that may carry
    /// extra fields.
    fn transcript(header_extra: &str, events: &[(&str, &str)]) -> Transcript {
        let mut text = format!(
            r#"{{"format":"mcp-replay-transcript","version":1,"tool":"t","created":"c","command":["server"]{header_extra}}}"#
        );
        text.push('\n');
        for (dir, msg) in events {
            text.push_str(&format!(r#"{{"t":0,"dir":"{dir}","msg":{msg}}}"#));
            text.push('\n');
        }
        Transcript::from_reader(text.as_bytes(), "t.jsonl").unwrap()
    }

    fn sh(script: &str) -> ServerCommand {
        ServerCommand::new(vec!["sh".into(), "-c".into(), script.into()])
    }

    fn options(timeout: Duration) -> ReplayOptions {
        ReplayOptions {
            profile: Profile::Core,
            timeout,
            startup_timeout: timeout,
            grace: Duration::from_secs(5),
            ignore: IgnoreRules::default(),
            keep_live: true,
            bless_hint: "mcp-replay check --bless t.jsonl".into(),
            redaction: Redaction::default(),
            fill: Vec::new(),
            fill_hint: |name| format!("`--fill-env {name}`"),
            command_left: Vec::new(),
        }
    }

    fn run(events: &[(&str, &str)], script: &str) -> ReplayOutcome {
        replay(
            &transcript("", events),
            &sh(script),
            &options(Duration::from_secs(20)),
        )
        .unwrap()
    }

    fn laws(outcome: &ReplayOutcome) -> Vec<(LawId, String)> {
        outcome
            .findings
            .iter()
            .map(|f| (f.law, f.message.clone()))
            .collect()
    }

    fn session() -> Vec<(&'static str, &'static str)> {
        vec![
            ("c2s", INIT),
            ("s2c", INIT_OK),
            ("c2s", INITIALIZED),
            ("c2s", LIST),
            ("s2c", LIST_OK),
        ]
    }

    /// A transcript read from its event lines, given whole.
    fn transcript_of(events: &[&str]) -> Transcript {
        let mut text = r#"{"format":"mcp-replay-transcript","version":1,"tool":"t","created":"c","command":["server"]}"#.to_owned();
        for event in events {
            text.push('\n');
            text.push_str(event);
        }
        text.push('\n');
        Transcript::from_reader(text.as_bytes(), "t.jsonl").unwrap()
    }

    #[test]
    fn a_cut_client_line_cannot_be_replayed_and_is_named() {
        let transcript = transcript_of(&[
            r#"{"t":0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}"#,
            r#"{"t":0,"dir":"c2s","text":"{\"jsonrpc\":","cut":70000000}"#,
        ]);
        let err = replay(
            &transcript,
            &sh("cat >/dev/null"),
            &options(Duration::from_secs(20)),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.jsonl:3: the client line was cut when recorded (11 bytes kept, 70000000 more not): it cannot be replayed"
        );
    }

    #[test]
    fn a_cut_server_line_is_no_message_even_when_its_start_parses() {
        // The start of a cut line is `1`, which parses as JSON; the live
        // `1` must not pass for it.
        let transcript = transcript_of(&[
            &format!(r#"{{"t":0,"dir":"c2s","msg":{INIT}}}"#),
            &format!(r#"{{"t":0,"dir":"s2c","msg":{INIT_OK}}}"#),
            r#"{"t":0,"dir":"s2c","msg":1,"cut":5000}"#,
        ]);
        let outcome = replay(
            &transcript,
            &sh(&format!("read a; echo '{INIT_OK}'; cat >/dev/null")),
            &options(Duration::from_secs(20)),
        )
        .unwrap();
        assert_eq!(
            outcome.notes,
            [
                "t.jsonl:4: the server line was cut when recorded (1 bytes kept, 5000 more not): it is compared as a line that is not a message"
            ]
        );
        assert_eq!(laws(&outcome), vec![]);
    }

    #[test]
    fn a_session_answered_as_recorded_passes() {
        let outcome = run(
            &session(),
            &format!("read a; echo '{INIT_OK}'; read b; read c; echo '{LIST_OK}'; cat >/dev/null"),
        );
        assert_eq!(laws(&outcome), vec![]);
        assert!(outcome.complete);
        assert_eq!(
            outcome
                .exchanges
                .iter()
                .map(|e| (e.line, e.method.as_str(), e.status))
                .collect::<Vec<_>>(),
            vec![
                (2, "initialize", ExchangeStatus::Passed),
                (5, "tools/list", ExchangeStatus::Passed)
            ]
        );
        assert_eq!(outcome.live.len(), 2);
        assert_eq!(outcome.live[1].segment, 3);
    }

    #[test]
    fn mismatches_past_the_bound_are_counted_not_kept() {
        let n = MAX_KEPT_MISMATCHES + 150;
        let requests: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#, i + 2))
            .collect();
        let recorded: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"n":1}}}}"#, i + 2))
            .collect();
        let mut events = vec![("c2s", INIT), ("s2c", INIT_OK)];
        for (request, answer) in requests.iter().zip(&recorded) {
            events.push(("c2s", request));
            events.push(("s2c", answer));
        }
        // Every ping answered `{}`, where the recording has `{"n":1}`.
        let outcome = run(
            &events,
            &format!(
                "read a; echo '{INIT_OK}'; i=2; while read -r l; do echo \"{{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":$i,\\\"result\\\":{{}}}}\"; i=$((i+1)); done"
            ),
        );
        assert!(outcome.complete);
        assert_eq!(outcome.mismatches, n);
        assert_eq!(outcome.mismatched.len(), MAX_KEPT_MISMATCHES);
        let with_diff = outcome.findings.iter().filter(|f| f.diff.is_some()).count();
        assert_eq!(with_diff, MAX_KEPT_MISMATCHES);
        assert_eq!(outcome.findings.len(), MAX_KEPT_MISMATCHES + 1);
        let last = outcome.findings.last().unwrap();
        assert_eq!(last.law, LawId::TranscriptMatch);
        let first_left_out = 2 * (MAX_KEPT_MISMATCHES + 1) + 3;
        assert_eq!(
            last.message,
            format!(
                "150 more responses differ from the recording, from line {first_left_out} on: past the first 100 of a transcript, differences are counted and left out of the report (no diff)"
            )
        );
        // Every exchange still says how it went.
        let failed = outcome
            .exchanges
            .iter()
            .filter(|e| e.status == ExchangeStatus::Failed)
            .count();
        assert_eq!(failed, n);
    }

    #[test]
    fn a_changed_answer_is_a_mismatch_with_a_diff_and_the_bless_command() {
        let outcome = run(
            &session(),
            &format!(
                "read a; echo '{INIT_OK}'; read b; read c; echo '{}'; cat >/dev/null",
                LIST_OK.replace("[]", r#"[{"name":"echo","inputSchema":{"type":"object"}}]"#)
            ),
        );
        assert_eq!(outcome.mismatches, 1);
        let finding = &outcome.findings[0];
        assert_eq!(finding.law, LawId::TranscriptMatch);
        assert_eq!(
            finding.message,
            "`tools/list` id=2 (line 5): the response differs from the recording"
        );
        assert_eq!(
            finding.location,
            Location::Transcript {
                path: "t.jsonl".into(),
                line: 6
            }
        );
        let diff = finding.diff.as_deref().unwrap();
        assert!(
            diff.starts_with("--- expected: t.jsonl:6\n+++ actual: sh -c "),
            "{diff}"
        );
        assert!(diff.contains("-    \"tools\": []\n"), "{diff}");
        assert!(diff.contains("+        \"name\": \"echo\"\n"), "{diff}");
        assert_eq!(
            finding.hint.as_deref(),
            Some("accept the new responses with `mcp-replay check --bless t.jsonl`")
        );
        assert_eq!(outcome.exchanges[1].status, ExchangeStatus::Failed);
    }

    #[test]
    fn answers_may_come_in_any_order_between_unsolicited_notifications() {
        let events = [
            ("c2s", INIT),
            ("c2s", LIST),
            ("s2c", INIT_OK),
            ("s2c", LIST_OK),
        ];
        let note = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        let outcome = run(
            &events,
            &format!(
                "read a; read b; echo '{note}'; echo '{LIST_OK}'; echo '{note}'; echo '{INIT_OK}'; cat >/dev/null"
            ),
        );
        assert_eq!(laws(&outcome), vec![]);
        assert!(outcome.complete);
    }

    #[test]
    fn a_recorded_list_change_that_never_comes_is_a_mismatch_and_replay_goes_on() {
        let note = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        let events = [
            ("c2s", INIT),
            ("s2c", note),
            ("s2c", INIT_OK),
            ("c2s", LIST),
            ("s2c", LIST_OK),
        ];
        // The startup allowance ends with the server's first output: from
        // then on the step's own timeout runs.
        let mut options = options(Duration::from_millis(300));
        options.startup_timeout = Duration::from_secs(600);
        let outcome = replay(
            &transcript("", &events),
            &sh(&format!(
                "read a; echo '{INIT_OK}'; read b; echo '{LIST_OK}'; cat >/dev/null"
            )),
            &options,
        )
        .unwrap();
        assert_eq!(
            laws(&outcome),
            vec![(
                LawId::TranscriptMatch,
                "the recorded notification `notifications/tools/list_changed` (line 3) did not come within 300ms".to_owned()
            )]
        );
        assert_eq!(
            outcome.findings[0].hint.as_deref(),
            Some("accept the live session with `mcp-replay check --bless t.jsonl`")
        );
        assert!(outcome.reshaped);
        assert!(outcome.complete);
        assert_eq!(outcome.exchanges[1].status, ExchangeStatus::Passed);
    }

    #[test]
    fn other_notifications_do_not_hold_back_the_next_client_line() {
        // The server sends its log line only once the next request came:
        // a replay that waited for it before sending would wait in vain
        // until the step's deadline, and then miss it.
        let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
        let events = [
            ("c2s", INIT),
            ("s2c", INIT_OK),
            ("s2c", log),
            ("c2s", LIST),
            ("s2c", LIST_OK),
        ];
        let outcome = run(
            &events,
            &format!(
                "read a; echo '{INIT_OK}'; read b; echo '{log}'; echo '{LIST_OK}'; cat >/dev/null"
            ),
        );
        assert_eq!(laws(&outcome), vec![]);
        assert_eq!(outcome.notes, Vec::<String>::new());
        assert!(!outcome.reshaped);
    }

    #[test]
    fn notifications_that_never_come_are_notes_by_method() {
        let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
        let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#;
        let events = [
            ("c2s", INIT),
            ("s2c", log),
            ("s2c", INIT_OK),
            ("s2c", log),
            ("s2c", progress),
            ("c2s", LIST),
            ("s2c", LIST_OK),
            ("s2c", log),
        ];
        let outcome = run(
            &events,
            &format!(
                "read a; echo '{INIT_OK}'; read b; echo '{log}'; echo '{LIST_OK}'; cat >/dev/null"
            ),
        );
        assert_eq!(laws(&outcome), vec![]);
        assert!(outcome.complete);
        assert_eq!(
            outcome.notes,
            vec![
                "2 recorded `notifications/message` notifications (lines 5, 9) did not come; a replay does not wait for them".to_owned(),
                "the recorded notification `notifications/progress` (line 6) did not come; a replay does not wait for it".to_owned(),
            ]
        );
    }

    #[test]
    fn a_server_that_writes_nothing_is_not_checked_and_is_stopped() {
        let outcome = replay(
            &transcript("", &session()),
            &sh("exec sleep 60"),
            &options(Duration::from_millis(200)),
        )
        .unwrap();
        // Silence from the start may be a slow start: no law is broken.
        assert_eq!(laws(&outcome), vec![]);
        assert_eq!(outcome.silent, Some(Duration::from_millis(200)));
        assert!(!outcome.complete);
        assert_eq!(outcome.exchanges[0].status, ExchangeStatus::Unanswered);
        assert_eq!(outcome.exchanges[1].status, ExchangeStatus::NotSent);
    }

    /// The last lines of stderr are quoted, not only the last one: a
    /// runtime often prints its version after the line that explains the
    /// crash. See: #25
    #[test]
    fn a_server_that_dies_is_reported_with_its_status_and_stderr() {
        let outcome = run(
            &session(),
            "read a; printf 'Error: boom\\n    at main (server.js:3)\\n\\n' >&2; printf '1\\n2\\n3\\n4\\nfatal: no config\\n' >&2; exit 3",
        );
        assert_eq!(
            laws(&outcome),
            vec![(
                LawId::RequestAnsweredOnce,
                "no response to `initialize` id=1 (line 2) before the server closed stdout (exit status 3; stderr ends: \"1\" ⏎ \"2\" ⏎ \"3\" ⏎ \"4\" ⏎ \"fatal: no config\")".to_owned()
            )]
        );
        assert!(!outcome.complete);
    }

    #[test]
    fn a_second_answer_and_an_answered_notification_are_named() {
        let events = [
            ("c2s", INIT),
            ("s2c", INIT_OK),
            ("c2s", INITIALIZED),
            ("c2s", LIST),
            ("s2c", LIST_OK),
        ];
        let outcome = run(
            &events,
            &format!(
                "read a; echo '{INIT_OK}'; echo '{INIT_OK}'; read b; echo '{{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{{}}}}'; read c; echo '{LIST_OK}'; cat >/dev/null"
            ),
        );
        assert_eq!(
            laws(&outcome),
            vec![
                (
                    LawId::RequestAnsweredOnce,
                    "`initialize` id=1 was answered 2 times".to_owned()
                ),
                // A result with a null id answers nothing, and no schema
                // allows it.
                (
                    LawId::Schema,
                    "a response breaks the 2024-11-05 schema: /id: expected a string or an integer, found null".to_owned()
                ),
                (
                    LawId::NotificationUnanswered,
                    "a response without an id answers no request; the last notification sent was `notifications/initialized`".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_response_with_an_id_never_sent_is_unsolicited() {
        // Even right behind a notification: a notification has no id, so an
        // answer that carries one cannot be its answer.
        let events = [("c2s", INIT), ("s2c", INIT_OK), ("c2s", INITIALIZED)];
        let outcome = run(
            &events,
            &format!(
                "read a; echo '{INIT_OK}'; read b; echo '{{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{{}}}}'; cat >/dev/null"
            ),
        );
        assert_eq!(
            laws(&outcome),
            vec![(
                LawId::RequestAnsweredOnce,
                "a response with id 99 answers no request that was sent".to_owned()
            )]
        );
    }

    #[test]
    fn an_answer_must_keep_the_id_type() {
        let events = [("c2s", INIT), ("s2c", INIT_OK)];
        let outcome = run(
            &events,
            &format!(
                "read a; echo '{}'; cat >/dev/null",
                INIT_OK.replace("\"id\":1", "\"id\":\"1\"")
            ),
        );
        assert_eq!(
            laws(&outcome),
            vec![(
                LawId::RequestAnsweredOnce,
                "the answer to `initialize` id=1 carries id \"1\": the id must keep its JSON type"
                    .to_owned()
            )]
        );
        assert!(outcome.complete);
    }

    #[test]
    fn banners_on_stdout_are_not_protocol() {
        let events = [("c2s", INIT), ("s2c", INIT_OK)];
        let outcome = run(
            &events,
            &format!("echo 'Server ready'; read a; echo '{INIT_OK}'; cat >/dev/null"),
        );
        assert_eq!(
            laws(&outcome),
            vec![(
                LawId::StdoutIsProtocol,
                "a stdout line is no JSON-RPC message: not JSON (expected value): `Server ready`"
                    .to_owned()
            )]
        );
    }

    #[test]
    fn a_flood_of_lines_that_are_no_messages_is_one_finding_and_ends_at_the_deadline() {
        let events = [("c2s", INIT), ("s2c", INIT_OK)];
        let outcome = replay(
            &transcript("", &events),
            &sh("read a; echo 'Server ready'; exec yes 'log: working'"),
            &options(Duration::from_millis(300)),
        )
        .unwrap();
        let found = laws(&outcome);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, LawId::StdoutIsProtocol);
        assert!(
            found[0].1.starts_with(
                "a stdout line is no JSON-RPC message: not JSON (expected value): `Server ready` ("
            ),
            "{found:?}"
        );
        assert!(found[0].1.ends_with(" more such lines)"), "{found:?}");
        assert_eq!(
            found[1],
            (
                LawId::RequestAnsweredOnce,
                "no response to `initialize` id=1 (line 2) within 300ms".to_owned()
            )
        );
    }

    #[test]
    fn a_line_longer_than_the_limit_is_no_message() {
        let events = [("c2s", INIT), ("s2c", INIT_OK)];
        let outcome = run(
            &events,
            &format!(
                "read a; head -c {} /dev/zero | tr '\\0' x; echo; echo '{INIT_OK}'; cat >/dev/null",
                crate::process::MAX_LINE + 1
            ),
        );
        let x80 = "x".repeat(80);
        assert_eq!(
            laws(&outcome),
            vec![(
                LawId::StdoutIsProtocol,
                format!(
                    "a stdout line is no JSON-RPC message: a line longer than 64 MiB, the most mcp-replay reads as one message: `{x80}…`"
                )
            )]
        );
        assert!(outcome.complete);
    }

    #[test]
    fn server_requests_get_the_recorded_answer_under_the_live_id() {
        let events = [
            ("c2s", INIT),
            (
                "s2c",
                r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#,
            ),
            (
                "c2s",
                r#"{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}"#,
            ),
            ("s2c", INIT_OK),
        ];
        let outcome = run(
            &events,
            &format!(
                r#"read a; echo '{{"jsonrpc":"2.0","id":"live-9","method":"roots/list"}}'; read b; case "$b" in *'"id":"live-9","result":{{"roots":[]}}'*) echo '{INIT_OK}';; *) echo "got $b" >&2;; esac; cat >/dev/null"#
            ),
        );
        assert_eq!(laws(&outcome), vec![]);
        let blessed = String::from_utf8(outcome.live[0].bytes.clone()).unwrap();
        assert_eq!(
            blessed,
            r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#
        );
    }

    #[test]
    fn reused_ids_are_sent_fresh_and_mapped_back() {
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let pong = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let events = [("c2s", ping), ("s2c", pong), ("c2s", ping), ("s2c", pong)];
        let outcome = run(
            &events,
            &format!(
                r#"read a; echo '{pong}'; read b; case "$b" in *'"id":2,'*) echo '{{"jsonrpc":"2.0","id":2,"result":{{}}}}';; esac; cat >/dev/null"#
            ),
        );
        assert_eq!(laws(&outcome), vec![]);
        assert_eq!(
            String::from_utf8(outcome.live[1].bytes.clone()).unwrap(),
            pong
        );
    }

    #[test]
    fn a_progress_token_that_was_the_reused_id_follows_the_fresh_one() {
        let call = |token: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","_meta":{{"progressToken":{token}}}}}}}"#
            )
        };
        let done = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        let (first, second) = (call("1"), call("1"));
        let events = [
            ("c2s", first.as_str()),
            ("s2c", done),
            ("c2s", second.as_str()),
            ("s2c", done),
        ];
        // The server answers the second call only if its token is the
        // fresh id, 2.
        let outcome = run(
            &events,
            &format!(
                r#"read a; echo '{done}'; read b; case "$b" in *'"progressToken":2'*) echo '{{"jsonrpc":"2.0","id":2,"result":{{"content":[]}}}}';; esac; cat >/dev/null"#
            ),
        );
        assert_eq!(laws(&outcome), vec![]);
        // A token that is not the id stays as recorded.
        assert_eq!(
            with_progress_token(
                call("\"p\"").as_bytes(),
                &RequestId::number(1),
                &RequestId::number(2)
            ),
            None
        );
    }

    #[test]
    fn a_cancelled_request_needs_no_answer() {
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        let events = [
            ("c2s", INIT),
            ("s2c", INIT_OK),
            ("c2s", LIST),
            ("c2s", cancel),
        ];
        let outcome = run(
            &events,
            &format!("read a; echo '{INIT_OK}'; cat >/dev/null"),
        );
        assert_eq!(laws(&outcome), vec![]);
        assert_eq!(outcome.exchanges[1].status, ExchangeStatus::Cancelled);
    }

    #[test]
    fn a_request_cancelled_before_its_recorded_answer_needs_none_now() {
        // The recorded server answered despite the cancel; this one honours
        // it. Either is right, so neither fails the replay.
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}"#;
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        let late = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
        let events = [
            ("c2s", INIT),
            ("s2c", INIT_OK),
            ("c2s", call),
            ("c2s", cancel),
            ("s2c", late),
            ("c2s", &LIST.replace("\"id\":2", "\"id\":3")),
            ("s2c", &LIST_OK.replace("\"id\":2", "\"id\":3")),
        ];
        let outcome = run(
            &events,
            &format!(
                "read a; echo '{INIT_OK}'; read b; read c; read d; echo '{}'; cat >/dev/null",
                LIST_OK.replace("\"id\":2", "\"id\":3")
            ),
        );
        assert_eq!(laws(&outcome), vec![]);
        assert!(outcome.complete);
        assert_eq!(outcome.exchanges[1].status, ExchangeStatus::Cancelled);
        assert_eq!(outcome.exchanges[2].status, ExchangeStatus::Passed);
    }

    #[test]
    fn secrets_are_restored_when_sent_and_redacted_when_compared() {
        // PATH stands in for a secret: it is set wherever tests run, and long
        // enough to be redacted (HOME can be as short as `/root`).
        let home = std::env::var("PATH").unwrap();
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"[REDACTED:PATH]"}}}"#;
        let answer = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"[REDACTED:PATH]"}]}}"#;
        let header = r#","redact":{"env":["PATH"]}"#;
        let mut filling = options(Duration::from_secs(20));
        filling.fill = vec!["PATH".to_owned()];
        let outcome = replay(
            &transcript(header, &[("c2s", call), ("s2c", answer)]),
            &sh(&format!(
                r#"read a; case "$a" in *'"text":"{home}"'*) echo '{}';; esac; cat >/dev/null"#,
                answer.replace("[REDACTED:PATH]", &home)
            )),
            &filling,
        )
        .unwrap();
        assert_eq!(laws(&outcome), vec![]);
        assert_eq!(outcome.notes, Vec::<String>::new());
        // The line is kept as the server wrote it, but for the secret.
        assert_eq!(
            String::from_utf8(outcome.live[0].bytes.clone()).unwrap(),
            answer
        );
    }

    /// A variable the transcript lists but the run does not name fills
    /// nothing: the placeholder is sent as it stands, with a note saying
    /// how to allow it.
    #[test]
    fn a_placeholder_the_run_does_not_name_is_sent_as_it_stands() {
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"[REDACTED:PATH]"}}}"#;
        let answer = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"[REDACTED:PATH]"}]}}"#;
        let header = r#","redact":{"env":["PATH"]}"#;
        let outcome = replay(
            &transcript(header, &[("c2s", call), ("s2c", answer)]),
            &sh(&format!(
                r#"read a; case "$a" in *'"text":"[REDACTED:PATH]"'*) echo '{answer}';; esac; cat >/dev/null"#
            )),
            &options(Duration::from_secs(20)),
        )
        .unwrap();
        assert_eq!(laws(&outcome), vec![]);
        assert_eq!(
            outcome.notes,
            [
                "`[REDACTED:PATH]` (line 2) was sent as it stands: a placeholder is filled only from a variable named for the run, never from the names a transcript lists; `--fill-env PATH` fills it with the value of `PATH`"
            ]
        );
    }

    /// A server that asks for the roots once initialized, and exits with
    /// status 3 unless the answer it gets contains `expect`.
    fn asks(method: &str, expect: &str) -> String {
        format!(
            r#"read a; echo '{INIT_OK}'; echo '{{"jsonrpc":"2.0","id":"s1","method":"{method}"}}'; read b; case "$b" in *'{expect}'*) cat >/dev/null;; *) echo "got $b" >&2; exit 3;; esac"#
        )
    }

    #[test]
    fn a_server_request_the_recording_lacks_is_a_transcript_match_finding() {
        let outcome = run(
            &[("c2s", INIT), ("s2c", INIT_OK)],
            &asks("roots/list", "-32601"),
        );
        assert_eq!(
            laws(&outcome),
            vec![(
                LawId::TranscriptMatch,
                "the server sent a request the recording lacks: `roots/list`, after line 2 (the ignore rule `method:roots/list` allows it)".into()
            )]
        );
        assert_eq!(
            outcome.findings[0].location,
            Location::Transcript {
                path: "t.jsonl".into(),
                line: 2
            }
        );
    }

    #[test]
    fn a_method_ignore_rule_allows_an_unrecorded_server_request() {
        let mut options = options(Duration::from_secs(20));
        options.ignore = IgnoreRules::parse(["method:roots/list"]).unwrap();
        let outcome = replay(
            &transcript("", &[("c2s", INIT), ("s2c", INIT_OK)]),
            &sh(&asks("roots/list", "-32601")),
            &options,
        )
        .unwrap();
        assert_eq!(laws(&outcome), vec![]);
    }

    #[test]
    fn an_unrecorded_ping_from_the_server_is_answered_and_passes() {
        let outcome = run(
            &[("c2s", INIT), ("s2c", INIT_OK)],
            &asks("ping", r#""id":"s1","result":{}"#),
        );
        assert_eq!(laws(&outcome), vec![]);
    }
}
