//! The judge of one session's host: a state machine fed the session's
//! events in order, which holds each host law's requirements as it goes.
//!
//! The requirements each law judges, as the code has them (docs/host-laws.md
//! says the same for people):
//!
//! - `host-first-message`: (a) legacy MUST: the host's first message is
//!   `initialize`, a request carrying 2026-07-28 `_meta` (a dual-era probe)
//!   before it exempt; (b) legacy SHOULD NOT: no request but `ping` between
//!   `initialize` and its answer.
//! - `host-initialized-sent`: (a) legacy MUST: `notifications/initialized`
//!   follows a successful `initialize` answer (a host that leaves without
//!   another request after an answer naming another version than it asked
//!   is exempt); (b) it never precedes the answer.
//! - `host-request-ids`: (a) every request id is a string or an integer,
//!   never null; (b) legacy: no id used twice in the session (the ids of a
//!   dual-era probe before `initialize` aside); (c) 2026-07-28: no id of a
//!   request still awaiting its answer.
//! - `host-answers-server-requests`: (a) legacy: each server request gets a
//!   response before the host ends the session; (b) exactly one; (c) `ping`
//!   gets an empty result; (d) no response to an id the server never sent;
//!   (e) 2026-07-28: no response at all.
//! - `host-capabilities-honest`: (a) a server request for a capability the
//!   host declared (`roots`, `sampling`, `elicitation`) is not refused with
//!   -32601 (SHOULD; elicitation on 2025-11-25 MUST); (b) no
//!   `notifications/roots/list_changed` without `roots.listChanged` (MUST
//!   from 2025-06-18, SHOULD before).
//! - `host-notifications-unanswered`: (a) no response without an id (one
//!   answering a server line that was no message, with an error, aside).
//! - `host-cancel-valid`: (a) `notifications/cancelled` names a request the
//!   host sent; (b) one still in flight, or whose answer crossed the
//!   cancellation; (c) legacy: never `initialize`.
//! - `host-messages-valid`: (a) every line is one JSON-RPC 2.0 message,
//!   ended by a newline; (b) valid for its method in the revision in force
//!   (`model::validate_client_message`), and a response for the result of
//!   the server request it answers; (c) a batch only on 2025-03-26, never
//!   with `initialize`; (d) 2026-07-28: `_meta` with the protocol version
//!   and client capabilities on every request, and none of the
//!   notifications it removed.
//! - `host-shutdown-order`: (a) the host closes the server's stdin before
//!   any signal; (b) it waits before a signal; (c) a recording that ends
//!   with neither (the recorder killed) broke (a).
//! - `host-mrtr-retry`: 2026-07-28: a retry after `input_required` (the
//!   next request of the same method naming the same tool, prompt or
//!   resource) (a) echoes `requestState` unchanged, (b) answers every key of
//!   `inputRequests`, (c) under a fresh id.
//! - `host-progress-tokens`: (a) a progress token is unique among the
//!   host's requests in flight; (b) legacy: the host's progress names the
//!   token of a server request it has not answered, and (c) increases;
//!   (d) 2026-07-28: the host sends no progress.
//! - `host-era-probe`: (a) 2026-07-28 SHOULD: after a modern answer (a
//!   result, or -32020 … -32022) to a modern request, no `initialize`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value};

use super::{Ending, RACE_WINDOW, SHUTDOWN_PATIENCE, Verdict};
use crate::jsonrpc::{Frame, RequestId, RpcError};
use crate::laws::{CATALOG, LawId, Profile, Severity, Side};
use crate::report::{Coverage, Finding, LawOutcome, LawStatus, Location};
use crate::revision::{Revision, meta};

/// How many requests, ids, server requests and tokens the judge keeps, each
/// way: a live session may last as long as the host likes, and the judge's
/// memory is bounded whatever it sends. Past it, answered requests are
/// forgotten first, and ids past the first this many are checked against
/// the requests in flight only (a note says so).
const TRACKED: usize = 100_000;

/// How many findings of one law a verdict lists; the rest are counted in a
/// note.
const LISTED: usize = 10;

/// Where the session stands between the eras.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    /// Nothing decides it yet.
    Undecided,
    /// `initialize` was sent: the legacy handshake.
    Legacy,
    /// A request with 2026-07-28 `_meta` got a modern answer, and no
    /// `initialize` came before it.
    Modern,
}

/// The host's `initialize`.
#[derive(Debug)]
struct Initialize {
    id: RequestId,
    /// The revision asked for, as written.
    requested: Option<String>,
    /// The answer: the revision named, or the error.
    answer: Option<Result<Option<String>, ()>>,
    /// Where the answer was, and whether the host sent a request after it.
    answered_at: Option<String>,
    requests_after: bool,
}

/// One request the host sent.
#[derive(Debug)]
struct Sent {
    method: String,
    at: Location,
    /// When the server's answer came, and which of its lines it was.
    answered: Option<(f64, usize)>,
    cancelled: bool,
    modern: bool,
    token: Option<Value>,
    /// The tool, prompt or resource it names.
    object: Option<String>,
}

/// One request the server sent.
#[derive(Debug)]
struct Asked {
    method: String,
    t: f64,
    /// Its place among the server's lines.
    index: usize,
    at: Location,
    token: Option<Value>,
    answered: bool,
}

/// An `input_required` answer awaiting its retry.
#[derive(Debug)]
struct Awaiting {
    method: String,
    object: Option<String>,
    id: RequestId,
    state: Option<String>,
    keys: Vec<String>,
    at: Location,
}

/// What the host declared it can do (`initialize`'s `capabilities`).
#[derive(Debug, Default)]
struct Declared {
    roots: bool,
    roots_list_changed: bool,
    sampling: bool,
    elicitation: bool,
}

/// The judge of one session's host.
#[derive(Debug)]
pub struct Judge {
    profile: Profile,
    findings: Vec<Finding>,
    /// The laws the session gave something to judge.
    observed: BTreeSet<LawId>,
    /// Why a law was not judged, where that is worth saying.
    skipped: BTreeMap<LawId, String>,
    /// The host's requirements the session observed, and those it could
    /// not, with why.
    coverage: Coverage,
    /// The requirements that only findings past the first [`LISTED`] of
    /// their law showed broken.
    unlisted_requirements: BTreeSet<&'static str>,
    /// The 2026-07-28 revisions the host's requests named.
    modern_spoken: BTreeSet<Revision>,
    /// Findings past the first [`LISTED`] of a law, counted.
    unlisted: BTreeMap<LawId, usize>,
    notes: Vec<String>,
    era: Era,
    /// The revision a legacy session negotiated.
    negotiated: Option<Revision>,
    host: Option<String>,
    host_lines: usize,
    /// A message that came before `initialize` and is no dual-era probe.
    early: Option<(String, Location)>,
    initialize: Option<Initialize>,
    initialized: bool,
    /// `notifications/initialized` came before the answer it follows.
    initialized_early: bool,
    early_requests: usize,
    requests: HashMap<RequestId, Sent>,
    /// The ids of the legacy session (from `initialize` on).
    session_ids: HashSet<RequestId>,
    /// More ids came than the judge keeps.
    ids_capped: bool,
    /// The sizes at which the tables of requests are pruned next.
    prune_requests: usize,
    prune_asked: usize,
    asked: HashMap<RequestId, Asked>,
    server_lines: usize,
    server_notifications: usize,
    /// Server lines that were no message, not yet answered with an error.
    unreadable: usize,
    declared: Declared,
    modern_answered: Option<String>,
    awaiting: Vec<Awaiting>,
    progress: HashMap<String, f64>,
    /// The last server line the host provably read (by its index).
    read: Option<usize>,
    eof: Option<(f64, Location)>,
    signals: Vec<(i32, f64, Location)>,
    exit: Option<f64>,
    last_t: f64,
}

/// Makes room in a table of requests: at `prune_at` entries, those `keep`
/// refuses (answered, cancelled) go, and the next pruning is set a quarter
/// of [`TRACKED`] further, so pruning costs each request O(1) on average;
/// `false` when the table holds twice [`TRACKED`] requests in flight, and
/// takes no more.
fn prune<V>(
    table: &mut HashMap<RequestId, V>,
    prune_at: &mut usize,
    keep: impl Fn(&V) -> bool,
) -> bool {
    if table.len() >= *prune_at {
        table.retain(|_, value| keep(value));
        *prune_at = (table.len() + TRACKED / 4).max(TRACKED);
    }
    table.len() < 2 * TRACKED
}

/// A request id as a map key that keeps `1` and `"1"` apart.
fn key(value: &Value) -> String {
    value.to_string()
}

/// An id value as the report shows it.
fn shown(id: &RequestId) -> String {
    id.to_string()
}

/// A short place in words: `line 12` of a transcript, the step of a live
/// session.
fn place(at: &Location) -> String {
    match at {
        Location::Transcript { line, .. } => format!("line {line}"),
        Location::Probe { step, .. } => step.clone(),
    }
}

/// Text a host wrote, as reports may quote it: printable characters only,
/// at most `most` of them.
fn quote(text: &str, most: usize) -> String {
    let mut res: String = text
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .take(most)
        .collect();
    if text.chars().count() > most {
        res.push('…');
    }
    res
}

fn is_integer(value: &Value) -> bool {
    value.is_i64() || value.is_u64()
}

/// The object a request names: a tool's or a prompt's `name`, a
/// resource's `uri`.
fn object_of(params: Option<&Value>) -> Option<String> {
    let params = params?;
    params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The `_meta` of a request's params.
fn meta_of(params: Option<&Value>) -> Option<&Map<String, Value>> {
    params?.get("_meta")?.as_object()
}

/// The protocol version a request's `_meta` names: a 2026-07-28 request.
fn modern_version(params: Option<&Value>) -> Option<&str> {
    meta_of(params)?.get(meta::PROTOCOL_VERSION)?.as_str()
}

impl Judge {
    /// A judge of a session that has not begun, under `profile`.
    pub fn new(profile: Profile) -> Judge {
        Judge {
            profile,
            findings: Vec::new(),
            observed: BTreeSet::new(),
            skipped: BTreeMap::new(),
            coverage: Coverage::default(),
            unlisted_requirements: BTreeSet::new(),
            modern_spoken: BTreeSet::new(),
            unlisted: BTreeMap::new(),
            notes: Vec::new(),
            era: Era::Undecided,
            negotiated: None,
            host: None,
            host_lines: 0,
            early: None,
            initialize: None,
            initialized: false,
            initialized_early: false,
            early_requests: 0,
            requests: HashMap::new(),
            session_ids: HashSet::new(),
            ids_capped: false,
            prune_requests: TRACKED,
            prune_asked: TRACKED,
            asked: HashMap::new(),
            server_lines: 0,
            server_notifications: 0,
            unreadable: 0,
            declared: Declared::default(),
            modern_answered: None,
            awaiting: Vec::new(),
            progress: HashMap::new(),
            read: None,
            eof: None,
            signals: Vec::new(),
            exit: None,
            last_t: 0.0,
        }
    }

    /// A remark for the verdict that is no finding.
    pub fn note(&mut self, note: String) {
        // The first hundred: a session can have as many remarks as lines.
        if self.notes.len() < 100 {
            self.notes.push(note);
        }
    }

    /// The host as it named itself so far.
    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }

    /// A finding of `law` that shows the requirement `requirement` broken
    /// (which the session so observed).
    fn find(
        &mut self,
        law: LawId,
        requirement: &'static str,
        severity: Severity,
        at: &Location,
        message: String,
    ) {
        self.observed.insert(law);
        self.coverage.observe(requirement);
        let listed = self.findings.iter().filter(|f| f.law == law).count();
        if listed >= LISTED {
            // The law is broken, and said so; the rest are counted, and the
            // requirements they alone show broken are not held.
            *self.unlisted.entry(law).or_default() += 1;
            self.unlisted_requirements.insert(requirement);
            return;
        }
        let finding = Finding::new(law, self.profile, at.clone(), message)
            .with_severity(severity)
            .with_requirement(requirement);
        self.findings.push(finding);
    }

    fn must(&mut self, law: LawId, requirement: &'static str, at: &Location, message: String) {
        self.find(law, requirement, Severity::Error, at, message);
    }

    fn should(&mut self, law: LawId, requirement: &'static str, at: &Location, message: String) {
        self.find(law, requirement, Severity::Warning, at, message);
    }

    /// The session showed the requirements `ids` of `law` kept or broken.
    fn observe(&mut self, law: LawId, ids: &[&'static str]) {
        self.observed.insert(law);
        for id in ids {
            debug_assert_eq!(
                crate::laws::registry::requirement(id).and_then(|r| r.law),
                Some(law),
                "`{id}` is no requirement of {law}"
            );
            self.coverage.observe(id);
        }
    }

    /// The revision a message of the host is held to: the one its own
    /// `_meta` names, else the one the session negotiated or asked for,
    /// else the newest legacy one.
    fn revision_for(&self, params: Option<&Value>) -> Revision {
        if let Some(version) = modern_version(params) {
            return Revision::parse(version)
                .filter(|revision| revision.is_modern())
                .unwrap_or(Revision::LATEST);
        }
        if self.era == Era::Modern {
            return Revision::LATEST;
        }
        if let Some(revision) = self.negotiated {
            return revision;
        }
        self.initialize
            .as_ref()
            .and_then(|init| init.requested.as_deref())
            .and_then(Revision::parse)
            .filter(|revision| !revision.is_modern())
            .unwrap_or(Revision::LATEST_LEGACY)
    }

    /// The revision in force, for rules that differ between eras.
    fn in_force(&self) -> Revision {
        self.revision_for(None)
    }

    /// One line the host wrote (without its newline; `eol` false when it
    /// ended the host's input without one), at time `t`.
    pub fn host_line(&mut self, line: &[u8], eol: bool, t: f64, at: Location) {
        self.last_t = t;
        self.host_lines += 1;
        self.observe(
            LawId::HostMessagesValid,
            &[
                "host-stdio-only-messages-on-stdin",
                "host-stdio-one-message-per-line",
                "host-stdio-utf8",
            ],
        );
        if !eol {
            self.must(
                LawId::HostMessagesValid,
                "host-stdio-one-message-per-line",
                &at,
                "the host's last line has no newline: every message ends with one".to_owned(),
            );
        }
        let value: Value = match std::str::from_utf8(line) {
            Err(_) => {
                self.must(
                    LawId::HostMessagesValid,
                    "host-stdio-utf8",
                    &at,
                    "the line is not UTF-8: every message is UTF-8 JSON".to_owned(),
                );
                return;
            }
            Ok(text) if text.trim().is_empty() => {
                self.must(
                    LawId::HostMessagesValid,
                    "host-stdio-only-messages-on-stdin",
                    &at,
                    "an empty line: the host writes nothing on the server's stdin but messages"
                        .to_owned(),
                );
                return;
            }
            Ok(text) => match serde_json::from_str(text) {
                Ok(value) => value,
                Err(_) if crate::transcript::beyond_limits(text.trim().as_bytes()).is_some() => {
                    // JSON, and a message for JSON-RPC, which sets no limits:
                    // the judge cannot read it, and says so.
                    let why = crate::transcript::beyond_limits(text.trim().as_bytes())
                        .unwrap_or_default();
                    self.note(format!(
                        "{}: the host's line is JSON beyond what mcp-replay reads as a message ({why}); it is not judged",
                        place(&at)
                    ));
                    return;
                }
                Err(err) => {
                    self.must(
                        LawId::HostMessagesValid,
                        "host-stdio-only-messages-on-stdin",
                        &at,
                        format!("the line is no JSON ({err}): `{}`", quote(text, 60)),
                    );
                    return;
                }
            },
        };
        match value {
            Value::Array(members) => {
                // A batch that opens the session is held to the revision its
                // `initialize` asks for.
                let asked = members
                    .iter()
                    .find(|member| member.get("method") == Some(&Value::from("initialize")))
                    .and_then(|member| member.get("params")?.get("protocolVersion")?.as_str())
                    .and_then(Revision::parse);
                let revision = match (&self.initialize, asked) {
                    (None, Some(asked)) => asked,
                    _ => self.in_force(),
                };
                if !revision.batches() {
                    self.must(
                        LawId::HostMessagesValid, "host-jsonrpc-2-0",
                        &at,
                        format!(
                            "a batch (a JSON array) in a {revision} session: only 2025-03-26 has batches"
                        ),
                    );
                    return;
                }
                if members.is_empty() {
                    self.must(
                        LawId::HostMessagesValid,
                        "host-jsonrpc-2-0",
                        &at,
                        "an empty batch: a batch holds one message at least".to_owned(),
                    );
                }
                for member in members {
                    self.message(member, t, &at, true);
                }
            }
            value => self.message(value, t, &at, false),
        }
    }

    /// One message of the host: a line, or a member of a batch.
    fn message(&mut self, value: Value, t: f64, at: &Location, in_batch: bool) {
        let params = value.get("params");
        let revision = if value.get("method") == Some(&Value::from("initialize"))
            && modern_version(params).is_none()
        {
            // An `initialize` asks for a legacy revision, whatever came before.
            params
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .and_then(Revision::parse)
                .filter(|revision| !revision.is_modern())
                .unwrap_or(Revision::LATEST_LEGACY)
        } else {
            self.revision_for(params)
        };
        let violations = crate::model::validate_client_message(revision, &value);
        let is_initialize = value.get("method") == Some(&Value::from("initialize"));
        let token = value
            .get("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::PROGRESS_TOKEN))
            .is_some();
        let mut held_to = vec!["host-jsonrpc-2-0"];
        if is_initialize && !revision.is_modern() {
            held_to.push("host-init-params");
        }
        if revision.requires_request_meta()
            && value.get("method").is_some()
            && value.get("id").is_some()
        {
            held_to.push("host-meta-required");
        }
        if token {
            held_to.push("host-progress-token-type");
        }
        self.observe(LawId::HostMessagesValid, &held_to);
        if let Some(first) = violations.first() {
            // The requirement the first violation shows broken.
            let schema_requirement = if first.pointer.contains("progressToken") {
                "host-progress-token-type"
            } else if revision.requires_request_meta()
                && (first.pointer.starts_with("/params/_meta")
                    || first.message.contains("`_meta`")
                    || (first.pointer.is_empty() && first.message.contains("`params`")))
                && value.get("id").is_some()
            {
                "host-meta-required"
            } else if is_initialize && !revision.is_modern() {
                "host-init-params"
            } else {
                "host-jsonrpc-2-0"
            };
            let what = match value.get("method").and_then(Value::as_str) {
                Some(method) => format!("`{}`", quote(method, 60)),
                None => "the response".to_owned(),
            };
            let shown: Vec<String> = violations.iter().take(3).map(ToString::to_string).collect();
            let more = match violations.len() {
                0..=3 => String::new(),
                n => format!(" (and {} more)", n - 3),
            };
            self.must(
                LawId::HostMessagesValid,
                schema_requirement,
                at,
                format!(
                    "{what} breaks the {revision} schema: {}{more}",
                    shown.join("; ")
                ),
            );
        }
        let raw_id = value.get("id").cloned();
        let Value::Object(object) = value else {
            return;
        };
        match Frame::from_object(object) {
            Frame::Request { id, method, params } => {
                self.request(id, raw_id, &method, params.as_ref(), at, in_batch);
            }
            Frame::NullId { method, .. } => {
                self.observed.insert(LawId::HostRequestIds);
                self.first_message(&method, false, at);
                self.must(
                    LawId::HostRequestIds,
                    "host-request-id-type",
                    at,
                    format!(
                        "`{}` has the id null: a request's id is a string or an integer",
                        quote(&method, 60)
                    ),
                );
            }
            Frame::Notification { method, params } => {
                self.notification(&method, params.as_ref(), t, at);
            }
            Frame::Response { id, outcome } => self.response(id, &outcome, t, at),
            Frame::Malformed { reason, .. } => {
                if raw_id.is_some() && reason.contains("id") {
                    self.observed.insert(LawId::HostRequestIds);
                    self.must(
                        LawId::HostRequestIds,
                        "host-request-id-type",
                        at,
                        format!(
                            "the id {} is neither a string nor an integer",
                            quote(&raw_id.map(|id| id.to_string()).unwrap_or_default(), 40)
                        ),
                    );
                }
            }
        }
    }

    /// What `host-first-message` makes of a message that is not
    /// `initialize`: `modern` for a request with 2026-07-28 `_meta`.
    fn first_message(&mut self, method: &str, modern: bool, at: &Location) {
        if self.era != Era::Undecided || modern || self.early.is_some() {
            return;
        }
        self.early = Some((method.to_owned(), at.clone()));
    }

    fn request(
        &mut self,
        id: RequestId,
        raw_id: Option<Value>,
        method: &str,
        params: Option<&Value>,
        at: &Location,
        in_batch: bool,
    ) {
        self.observe(LawId::HostRequestIds, &["host-request-id-type"]);
        let modern = modern_version(params).is_some();
        if let Some(revision) = modern_version(params)
            .and_then(Revision::parse)
            .filter(|revision| revision.is_modern())
        {
            self.modern_spoken.insert(revision);
        }
        if let Some(declared) = meta_of(params).and_then(|m| m.get(meta::CLIENT_CAPABILITIES)) {
            self.coverage.declare(declared);
        }
        if let Some(raw) = &raw_id
            && !raw.is_string()
            && !is_integer(raw)
        {
            self.must(
                LawId::HostRequestIds,
                "host-request-id-type",
                at,
                format!(
                    "`{}` has the id {}: a request's id is a string or an integer",
                    quote(method, 60),
                    quote(&raw.to_string(), 40)
                ),
            );
        }
        if self.host.is_none() {
            let info = if method == "initialize" {
                params.and_then(|p| p.get("clientInfo"))
            } else {
                meta_of(params).and_then(|m| m.get(meta::CLIENT_INFO))
            };
            if let Some(info) = info {
                let name = info.get("name").and_then(Value::as_str).unwrap_or("");
                let version = info.get("version").and_then(Value::as_str).unwrap_or("");
                let named = format!("{name} {version}");
                if !named.trim().is_empty() {
                    self.host = Some(quote(named.trim(), 80));
                }
            }
        }

        // Ids: a legacy session uses each once; a stateless one never
        // reuses the id of a request still awaiting its answer.
        let legacy = self.era == Era::Legacy || (method == "initialize" && !modern);
        if legacy && self.session_ids.len() >= TRACKED && !self.session_ids.contains(&id) {
            if !self.ids_capped {
                self.ids_capped = true;
                self.note(format!(
                    "the host sent more than {TRACKED} requests: ids past them are checked for reuse against the requests in flight only"
                ));
            }
        } else if legacy {
            self.observe(LawId::HostRequestIds, &["host-request-id-unique"]);
            if !self.session_ids.insert(id.clone()) {
                let before = self
                    .requests
                    .get(&id)
                    .map(|sent| format!(" by `{}` ({})", sent.method, place(&sent.at)))
                    .unwrap_or_default();
                self.must(
                    LawId::HostRequestIds,
                    "host-request-id-unique",
                    at,
                    format!(
                        "`{}` reuses the id {}, used before in the session{before}",
                        quote(method, 60),
                        shown(&id)
                    ),
                );
            }
        } else {
            self.coverage.observe("host-request-id-not-pending");
            if let Some(sent) = self.requests.get(&id)
                && sent.answered.is_none()
                && !sent.cancelled
            {
                let message = format!(
                    "`{}` has the id {} of `{}` ({}), which still awaits its answer",
                    quote(method, 60),
                    shown(&id),
                    sent.method,
                    place(&sent.at)
                );
                self.must(
                    LawId::HostRequestIds,
                    "host-request-id-not-pending",
                    at,
                    message,
                );
            }
        }

        if method == "initialize" && !modern {
            self.initialize_sent(&id, params, at, in_batch);
        } else {
            self.first_message(method, modern, at);
            let awaiting_answer = match &mut self.initialize {
                Some(init) if init.answer.is_some() => {
                    init.requests_after = true;
                    false
                }
                Some(_) => method != "ping",
                None => false,
            };
            if awaiting_answer {
                self.early_requests += 1;
                if self.early_requests == 1 {
                    self.should(
                        LawId::HostFirstMessage, "host-init-no-early-requests",
                        at,
                        format!(
                            "`{}` before the answer to `initialize`: until it comes, a host sends no request but ping",
                            quote(method, 60)
                        ),
                    );
                }
            }
        }

        // Progress tokens are unique among the requests in flight.
        let token = meta_of(params)
            .and_then(|meta| meta.get(meta::PROGRESS_TOKEN))
            .cloned();
        if let Some(token) = &token {
            self.observe(LawId::HostProgressTokens, &["host-progress-token-unique"]);
            let clash = self.requests.iter().find(|(other, sent)| {
                **other != id
                    && sent.answered.is_none()
                    && !sent.cancelled
                    && sent.token.as_ref() == Some(token)
            });
            if let Some((_, sent)) = clash {
                let message = format!(
                    "`{}` carries the progress token {}, which `{}` ({}) still in flight carries",
                    quote(method, 60),
                    quote(&token.to_string(), 40),
                    sent.method,
                    place(&sent.at)
                );
                self.must(
                    LawId::HostProgressTokens,
                    "host-progress-token-unique",
                    at,
                    message,
                );
            }
        }

        if modern {
            self.retry(&id, method, params, at);
        }
        if !prune(&mut self.requests, &mut self.prune_requests, |sent| {
            sent.answered.is_none() && !sent.cancelled
        }) {
            return;
        }
        self.requests.insert(
            id,
            Sent {
                method: method.to_owned(),
                at: at.clone(),
                answered: None,
                cancelled: false,
                modern,
                token,
                object: object_of(params),
            },
        );
    }

    fn initialize_sent(
        &mut self,
        id: &RequestId,
        params: Option<&Value>,
        at: &Location,
        in_batch: bool,
    ) {
        self.observe(
            LawId::HostFirstMessage,
            &["host-init-first", "host-init-no-early-requests"],
        );
        if let Some(declared) = params.and_then(|p| p.get("capabilities")) {
            self.coverage.declare(declared);
        }
        if in_batch {
            self.must(
                LawId::HostMessagesValid,
                "host-jsonrpc-2-0",
                at,
                "`initialize` in a batch: it is always sent alone".to_owned(),
            );
        }
        if let Some((method, early)) = self.early.take() {
            self.must(
                LawId::HostFirstMessage,
                "host-init-first",
                &early,
                format!(
                    "`{}` before `initialize` ({}): the host's first message is initialize",
                    quote(&method, 60),
                    place(at)
                ),
            );
        }
        if let Some(answered) = self.modern_answered.clone() {
            self.should(
                LawId::HostEraProbe, "host-era-stays-modern",
                at,
                format!(
                    "`initialize` after the server answered a 2026-07-28 request ({answered}): a host that got a modern answer stays in that era"
                ),
            );
        }
        let capabilities = params.and_then(|p| p.get("capabilities"));
        let has = |name: &str| {
            capabilities
                .and_then(|c| c.get(name))
                .is_some_and(Value::is_object)
        };
        self.declared = Declared {
            roots: has("roots"),
            roots_list_changed: capabilities
                .and_then(|c| c.get("roots"))
                .and_then(|r| r.get("listChanged"))
                == Some(&Value::Bool(true)),
            sampling: has("sampling"),
            elicitation: has("elicitation"),
        };
        self.era = Era::Legacy;
        self.initialize = Some(Initialize {
            id: id.clone(),
            requested: params
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            answer: None,
            answered_at: None,
            requests_after: false,
        });
    }

    /// A modern request that retries an `input_required` answer: the next
    /// request of its method naming the same object.
    fn retry(&mut self, id: &RequestId, method: &str, params: Option<&Value>, at: &Location) {
        let object = object_of(params);
        let Some(index) = self
            .awaiting
            .iter()
            .position(|awaiting| awaiting.method == method && awaiting.object == object)
        else {
            return;
        };
        let awaiting = self.awaiting.remove(index);
        self.observe(
            LawId::HostMrtrRetry,
            &["host-mrtr-inputs", "host-mrtr-new-id"],
        );
        if awaiting.state.is_some() {
            self.observe(LawId::HostMrtrRetry, &["host-mrtr-state-echoed"]);
        }
        let params = params.and_then(Value::as_object);
        if let Some(state) = &awaiting.state {
            match params.and_then(|p| p.get("requestState")) {
                Some(Value::String(echoed)) if echoed == state => {}
                Some(other) => self.must(
                    LawId::HostMrtrRetry, "host-mrtr-state-echoed",
                    at,
                    format!(
                        "the retry of `{method}` changed the requestState of the input_required answer ({}): {} is not {}",
                        place(&awaiting.at),
                        quote(&other.to_string(), 60),
                        quote(&Value::String(state.clone()).to_string(), 60)
                    ),
                ),
                None => self.must(
                    LawId::HostMrtrRetry, "host-mrtr-state-echoed",
                    at,
                    format!(
                        "the retry of `{method}` leaves out the requestState of the input_required answer ({})",
                        place(&awaiting.at)
                    ),
                ),
            }
        }
        let responses = params
            .and_then(|p| p.get("inputResponses"))
            .and_then(Value::as_object);
        let missing: Vec<&str> = awaiting
            .keys
            .iter()
            .filter(|key| !responses.is_some_and(|r| r.contains_key(key.as_str())))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            self.must(
                LawId::HostMrtrRetry,
                "host-mrtr-inputs",
                at,
                format!(
                    "the retry of `{method}` answers no {} of the input_required answer ({})",
                    missing
                        .iter()
                        .map(|key| format!("`{}`", quote(key, 40)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    place(&awaiting.at)
                ),
            );
        }
        if *id == awaiting.id {
            self.must(
                LawId::HostMrtrRetry, "host-mrtr-new-id",
                at,
                format!(
                    "the retry of `{method}` goes under the id {} of the request it retries: a retry is a new request",
                    shown(id)
                ),
            );
        }
    }

    fn notification(&mut self, method: &str, params: Option<&Value>, t: f64, at: &Location) {
        let cancelled_probe = method == "notifications/cancelled"
            && params
                .and_then(|p| p.get("requestId"))
                .and_then(RequestId::from_value)
                .and_then(|id| self.requests.get(&id))
                .is_some_and(|sent| sent.modern);
        self.first_message(method, cancelled_probe, at);
        let modern = self.era == Era::Modern;
        match method {
            "notifications/initialized" => {
                if modern {
                    self.must(
                        LawId::HostMessagesValid, "host-jsonrpc-2-0",
                        at,
                        "`notifications/initialized` in a 2026-07-28 session, which has no handshake"
                            .to_owned(),
                    );
                    return;
                }
                match self.initialize.as_ref().map(|init| init.answer.is_some()) {
                    Some(false) | None => {
                        self.initialized_early = true;
                        self.must(
                            LawId::HostInitializedSent, "host-init-initialized",
                            at,
                            "`notifications/initialized` before the answer to `initialize`: it follows a successful answer".to_owned(),
                        );
                    }
                    Some(true) => {
                        self.initialized = true;
                        if let Some(init) = &self.initialize
                            && let Some(index) = self.answer_index(&init.id)
                        {
                            self.saw(index);
                        }
                    }
                }
            }
            "notifications/cancelled" => self.cancelled(params, t, at),
            "notifications/progress" => self.progress(params, at),
            "notifications/roots/list_changed" => {
                if modern {
                    self.must(
                        LawId::HostMessagesValid, "host-jsonrpc-2-0",
                        at,
                        "`notifications/roots/list_changed` in a 2026-07-28 session, which removed it"
                            .to_owned(),
                    );
                    return;
                }
                let revision = self.in_force();
                let keeps = if revision >= Revision::V2025_06_18 {
                    "host-lifecycle-keeps-capabilities"
                } else {
                    "host-lifecycle-keeps-capabilities-2024"
                };
                self.observe(LawId::HostCapabilitiesHonest, &[keeps]);
                if !self.declared.roots_list_changed {
                    let message = format!(
                        "`notifications/roots/list_changed` without `roots.listChanged` declared in `initialize` ({revision})"
                    );
                    if revision >= Revision::V2025_06_18 {
                        self.must(LawId::HostCapabilitiesHonest, keeps, at, message);
                    } else {
                        self.should(LawId::HostCapabilitiesHonest, keeps, at, message);
                    }
                }
            }
            _ => {}
        }
    }

    /// The index among the server's lines of the answer to the host's
    /// request `id`.
    fn answer_index(&self, id: &RequestId) -> Option<usize> {
        self.requests
            .get(id)
            .and_then(|sent| sent.answered)
            .map(|(_, index)| index)
    }

    /// The host provably read the server's line `index`, and so every one
    /// before it.
    fn saw(&mut self, index: usize) {
        self.read = Some(self.read.map_or(index, |read| read.max(index)));
    }

    /// Whether the host can have missed the server's line `index`, written
    /// at `t`, by time `now`: it read nothing past it, and it came within
    /// the race window.
    fn may_have_missed(&self, index: usize, t: f64, now: f64) -> bool {
        self.read.is_none_or(|read| read < index) && now - t < RACE_WINDOW.as_secs_f64()
    }

    fn cancelled(&mut self, params: Option<&Value>, t: f64, at: &Location) {
        self.observed.insert(LawId::HostCancelValid);
        let Some(raw) = params.and_then(|p| p.get("requestId")) else {
            return;
        };
        let Some(id) = RequestId::from_value(raw) else {
            return;
        };
        let Some(sent) = self.requests.get(&id) else {
            let message = format!(
                "`notifications/cancelled` names the id {}, which the host never sent as a request",
                quote(&raw.to_string(), 40)
            );
            self.must(LawId::HostCancelValid, "host-cancel-in-flight", at, message);
            return;
        };
        let method = sent.method.clone();
        let sent_at = place(&sent.at);
        let answered = sent.answered;
        self.coverage.observe("host-cancel-in-flight");
        if self.era == Era::Legacy {
            self.coverage.observe("host-cancel-not-initialize");
        }
        if method == "initialize" && self.era == Era::Legacy {
            self.must(
                LawId::HostCancelValid, "host-cancel-not-initialize",
                at,
                format!("`notifications/cancelled` names `initialize` ({sent_at}), which a host never cancels"),
            );
        } else if let Some((answered_t, index)) = answered
            && !self.may_have_missed(index, answered_t, t)
        {
            self.must(
                LawId::HostCancelValid, "host-cancel-in-flight",
                at,
                format!(
                    "`notifications/cancelled` names `{method}` ({sent_at}), answered {:.3}s before: only a request in flight is cancelled",
                    (t - answered_t).max(0.0)
                ),
            );
        }
        if let Some(sent) = self.requests.get_mut(&id) {
            sent.cancelled = true;
        }
    }

    fn progress(&mut self, params: Option<&Value>, at: &Location) {
        self.observed.insert(LawId::HostProgressTokens);
        if self.era == Era::Modern {
            self.must(
                LawId::HostProgressTokens, "host-jsonrpc-2-0",
                at,
                "`notifications/progress` from the host in a 2026-07-28 session, where only the server sends progress".to_owned(),
            );
            return;
        }
        let Some(token) = params.and_then(|p| p.get("progressToken")) else {
            return;
        };
        self.coverage.observe("host-progress-known-token");
        let active = self
            .asked
            .values()
            .any(|asked| !asked.answered && asked.token.as_ref() == Some(token));
        if !active {
            self.must(
                LawId::HostProgressTokens, "host-progress-known-token",
                at,
                format!(
                    "`notifications/progress` names the token {}, which no server request awaiting the host's answer carries",
                    quote(&token.to_string(), 40)
                ),
            );
            return;
        }
        if let Some(progress) = params
            .and_then(|p| p.get("progress"))
            .and_then(Value::as_f64)
        {
            if self.progress.len() >= TRACKED {
                self.progress.clear();
            }
            let last = self.progress.insert(key(token), progress);
            if last.is_some() {
                self.coverage.observe("host-progress-increases");
            }
            if let Some(last) = last
                && progress <= last
            {
                self.must(
                    LawId::HostProgressTokens, "host-progress-increases",
                    at,
                    format!(
                        "the progress of the token {} goes from {last} to {progress}: it increases with every notification",
                        quote(&token.to_string(), 40)
                    ),
                );
            }
        }
    }

    fn response(
        &mut self,
        id: Option<RequestId>,
        outcome: &Result<Value, RpcError>,
        _t: f64,
        at: &Location,
    ) {
        self.first_message("(a response)", false, at);
        if self.era == Era::Modern {
            self.observed.insert(LawId::HostAnswersServerRequests);
            self.must(
                LawId::HostAnswersServerRequests,
                "host-stdio-no-responses",
                at,
                "a response in a 2026-07-28 session, where the host writes no responses".to_owned(),
            );
            return;
        }
        let Some(id) = id else {
            if self.unreadable > 0 && outcome.is_err() {
                // The answer JSON-RPC gives a line it cannot read.
                self.unreadable -= 1;
                return;
            }
            self.observed.insert(LawId::HostNotificationsUnanswered);
            self.must(
                LawId::HostNotificationsUnanswered, "host-notification-never-answered",
                at,
                "a response with no id answers no request: only a notification could have prompted it, and a notification gets no response".to_owned(),
            );
            return;
        };
        self.observe(
            LawId::HostAnswersServerRequests,
            &["host-answers-server-requests"],
        );
        let revision = self.in_force();
        let Some(asked) = self.asked.get_mut(&id) else {
            let message = format!(
                "a response to the id {}, which the server never sent as a request",
                shown(&id)
            );
            self.must(
                LawId::HostAnswersServerRequests,
                "host-answers-server-requests",
                at,
                message,
            );
            return;
        };
        if asked.answered {
            let message = format!(
                "a second response to the server's `{}` ({}): a request is answered once",
                asked.method,
                place(&asked.at)
            );
            self.must(
                LawId::HostAnswersServerRequests,
                "host-answers-server-requests",
                at,
                message,
            );
            return;
        }
        asked.answered = true;
        let method = asked.method.clone();
        let asked_at = place(&asked.at);
        let index = asked.index;
        self.saw(index);
        let declared = match method.as_str() {
            "roots/list" => self.declared.roots,
            "sampling/createMessage" => self.declared.sampling,
            "elicitation/create" => self.declared.elicitation,
            _ => false,
        };
        let declared_requirement = match method.as_str() {
            "roots/list" => "host-roots-capability",
            "sampling/createMessage" => "host-sampling-capability",
            _ => "host-elicitation-capability",
        };
        if declared {
            self.observe(LawId::HostCapabilitiesHonest, &[declared_requirement]);
        }
        if method == "ping" {
            self.observe(
                LawId::HostAnswersServerRequests,
                &["host-ping-empty-result"],
            );
        }
        let result_requirement = if method == "elicitation/create" {
            "host-elicitation-response"
        } else {
            "host-response-shape"
        };
        match outcome {
            Ok(result) => {
                if method == "ping" && result.as_object().is_none_or(|o| !o.is_empty()) {
                    self.must(
                        LawId::HostAnswersServerRequests, "host-ping-empty-result",
                        at,
                        format!(
                            "the answer to the server's `ping` ({asked_at}) is {}: ping gets an empty result",
                            quote(&result.to_string(), 60)
                        ),
                    );
                }
                self.observe(LawId::HostMessagesValid, &[result_requirement]);
                let violations = crate::model::validate_client_result(revision, &method, result);
                if !violations.is_empty() {
                    let shown: Vec<String> =
                        violations.iter().take(3).map(ToString::to_string).collect();
                    self.must(
                        LawId::HostMessagesValid, result_requirement,
                        at,
                        format!(
                            "the answer to the server's `{method}` ({asked_at}) breaks its {revision} result type: {}",
                            shown.join("; ")
                        ),
                    );
                }
            }
            Err(error) => {
                if method == "ping" {
                    self.must(
                        LawId::HostAnswersServerRequests, "host-ping-empty-result",
                        at,
                        format!(
                            "the server's `ping` ({asked_at}) answered with error {}: ping gets an empty result",
                            error.code.0
                        ),
                    );
                }
                if declared && error.code == crate::jsonrpc::ErrorCode::METHOD_NOT_FOUND {
                    let message = format!(
                        "the server's `{method}` ({asked_at}) refused as an unknown method (-32601), though the host declared the capability"
                    );
                    if method == "elicitation/create" && revision == Revision::V2025_11_25 {
                        self.must(
                            LawId::HostCapabilitiesHonest,
                            declared_requirement,
                            at,
                            message,
                        );
                    } else {
                        self.should(
                            LawId::HostCapabilitiesHonest,
                            declared_requirement,
                            at,
                            message,
                        );
                    }
                }
            }
        }
    }

    /// One line the server wrote, at time `t`.
    pub fn server_line(&mut self, line: &[u8], t: f64, at: Location) {
        self.last_t = t;
        let index = self.server_lines;
        self.server_lines += 1;
        let frame = Frame::parse(line);
        match frame {
            Frame::Request { id, method, params } => {
                let token = meta_of(params.as_ref())
                    .and_then(|m| m.get(meta::PROGRESS_TOKEN))
                    .cloned();
                if !prune(&mut self.asked, &mut self.prune_asked, |asked| {
                    !asked.answered
                }) {
                    return;
                }
                self.asked.insert(
                    id,
                    Asked {
                        method,
                        t,
                        index,
                        at,
                        token,
                        answered: false,
                    },
                );
            }
            Frame::Notification { .. } => self.server_notifications += 1,
            Frame::Response {
                id: Some(id),
                outcome,
            } => self.answered(&id, &outcome, t, index, &at),
            Frame::Malformed { .. } | Frame::NullId { .. } => self.unreadable += 1,
            Frame::Response { id: None, .. } => {}
        }
    }

    /// The server's answer to the host's request `id`.
    fn answered(
        &mut self,
        id: &RequestId,
        outcome: &Result<Value, RpcError>,
        t: f64,
        index: usize,
        at: &Location,
    ) {
        let Some(sent) = self.requests.get_mut(id) else {
            return;
        };
        if sent.answered.is_some() {
            return;
        }
        sent.answered = Some((t, index));
        let method = sent.method.clone();
        let modern = sent.modern;
        if let Some(init) = &mut self.initialize
            && init.id == *id
            && init.answer.is_none()
        {
            init.answered_at = Some(place(at));
            match outcome {
                Ok(result) => {
                    let version = result
                        .get("protocolVersion")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    self.negotiated = version
                        .as_deref()
                        .and_then(Revision::parse)
                        .filter(|revision| !revision.is_modern());
                    init.answer = Some(Ok(version));
                }
                Err(_) => init.answer = Some(Err(())),
            }
            return;
        }
        if modern {
            let is_modern = match outcome {
                Ok(_) => true,
                Err(error) => (-32022..=-32020).contains(&error.code.0),
            };
            if is_modern && self.initialize.is_none() && self.modern_answered.is_none() {
                self.modern_answered = Some(format!("`{method}`, {}", place(at)));
                self.era = Era::Modern;
            }
            if let Ok(result) = outcome
                && result.get("resultType").and_then(Value::as_str) == Some("input_required")
                && matches!(
                    method.as_str(),
                    "tools/call" | "prompts/get" | "resources/read"
                )
            {
                let keys = result
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .map(|requests| requests.keys().cloned().collect())
                    .unwrap_or_default();
                let object = self.requests.get(id).and_then(|sent| sent.object.clone());
                if self.awaiting.len() >= TRACKED {
                    self.awaiting.remove(0);
                }
                self.awaiting.push(Awaiting {
                    method,
                    object,
                    id: id.clone(),
                    state: result
                        .get("requestState")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    keys,
                    at: at.clone(),
                });
            }
        }
    }

    /// The host closed the server's stdin.
    pub fn end_of_input(&mut self, t: f64, at: Location) {
        self.last_t = t;
        if self.eof.is_none() {
            self.eof = Some((t, at));
        }
    }

    /// The host sent the server `signal`.
    pub fn signal(&mut self, signal: i32, t: f64, at: Location) {
        self.last_t = t;
        // The first signals tell the order; a host may send any number.
        if self.signals.len() < 16 {
            self.signals.push((signal, t, at));
        }
    }

    /// The server exited.
    pub fn server_exit(&mut self, t: f64) {
        self.last_t = t;
        if self.exit.is_none() {
            self.exit = Some(t);
        }
    }

    /// The verdict: the laws judged at the end of the session, then each
    /// host law's outcome. `end` is where the record ends, for what is
    /// found missing there.
    pub fn finish(mut self, ending: Ending, end: Location) -> Verdict {
        let end_t = self
            .eof
            .as_ref()
            .map(|(t, _)| *t)
            .or(self.exit)
            .unwrap_or(self.last_t);
        let ended_by_host = self.eof.is_some()
            || !self.signals.is_empty()
            || matches!(ending, Ending::Recorded { complete: false });

        // A message before `initialize` that never came.
        if self.era == Era::Undecided
            && let Some((method, at)) = self.early.take()
        {
            self.must(
                LawId::HostFirstMessage, "host-init-first",
                &at,
                format!(
                    "`{}` is the host's first message, and no `initialize` follows: the first message is initialize",
                    quote(&method, 60)
                ),
            );
        }

        if self.server_notifications > 0 {
            self.observe(
                LawId::HostNotificationsUnanswered,
                &["host-notification-never-answered"],
            );
        }
        if self.modern_answered.is_some() {
            self.observe(LawId::HostEraProbe, &["host-era-stays-modern"]);
        }
        if self.era == Era::Modern && self.host_lines > 0 {
            // A stateless session is judged for the responses it must not
            // hold.
            self.observe(
                LawId::HostAnswersServerRequests,
                &["host-stdio-no-responses"],
            );
        }
        self.judge_initialized(ended_by_host, &end);
        self.judge_unanswered(end_t, &end);
        self.judge_ending(ending, &end);

        self.close_coverage();

        for (law, count) in std::mem::take(&mut self.unlisted) {
            self.note(format!(
                "{count} more finding{} of {law} not listed",
                if count == 1 { "" } else { "s" }
            ));
        }
        let mut outcomes = Vec::new();
        for law in CATALOG.iter().filter(|law| law.side() == Side::Host) {
            let failed = self.findings.iter().any(|finding| finding.law == law.id);
            let status = if failed {
                LawStatus::Failed
            } else if self.observed.contains(&law.id) {
                LawStatus::Held
            } else {
                LawStatus::Skipped(self.skip_reason(law.id))
            };
            outcomes.push(LawOutcome::new(law.id, status));
        }
        Verdict {
            host: self.host,
            outcomes,
            findings: self.findings,
            notes: self.notes,
            coverage: self.coverage,
        }
    }

    /// The coverage at the end: the revisions the session spoke, each
    /// finding held to a requirement of one of them, and why each host
    /// requirement a law judges was not observed.
    fn close_coverage(&mut self) {
        let mut revisions = std::mem::take(&mut self.modern_spoken);
        if self.initialize.is_some() {
            revisions.insert(self.negotiated.unwrap_or_else(|| self.in_force()));
        }
        if self.era == Era::Modern && !revisions.iter().any(|revision| revision.is_modern()) {
            revisions.insert(Revision::LATEST);
        }
        self.coverage.revisions = revisions;
        // A finding names a requirement of a revision the session spoke, or
        // none (its law's first that applies is meant).
        if !self.coverage.revisions.is_empty() {
            for finding in &mut self.findings {
                let spoken = finding
                    .requirement
                    .and_then(crate::laws::registry::requirement)
                    .is_some_and(|requirement| {
                        self.coverage
                            .revisions
                            .iter()
                            .any(|revision| requirement.applies_to(*revision))
                    });
                if !spoken {
                    finding.requirement = None;
                }
            }
        }
        // A requirement only findings past the listed ones showed broken
        // is not held on the strength of the listed ones.
        for id in std::mem::take(&mut self.unlisted_requirements) {
            if self.findings.iter().any(|f| f.requirement == Some(id)) {
                continue;
            }
            self.coverage.observed.remove(id);
            self.coverage.missed.insert(
                id,
                format!("broken by a finding past the first {LISTED} of its law, not listed"),
            );
        }
        for requirement in crate::laws::registry::REGISTRY {
            if requirement.side != crate::laws::registry::Side::Host
                || self.coverage.observed.contains(requirement.id)
            {
                continue;
            }
            let Some(law) = requirement.law else {
                continue;
            };
            if let Some(why) = self.skipped.get(&law) {
                self.coverage.miss(requirement.id, why.clone());
            } else if self.observed.contains(&law) {
                let why = self.unexercised(requirement.id);
                self.coverage.miss(requirement.id, why);
            }
        }
    }

    /// Why a session that judged a requirement's law did not observe the
    /// requirement itself.
    fn unexercised(&self, id: &str) -> String {
        let modern_spoken = self
            .coverage
            .revisions
            .iter()
            .any(|revision| revision.is_modern());
        let why = match id {
            "host-stdio-no-responses" | "host-request-id-not-pending" | "host-meta-required"
                if self.era != Era::Modern && modern_spoken =>
            {
                "the session fell back to initialize: no 2026-07-28 session held the host to it"
            }
            "host-meta-required" => "the host sent no 2026-07-28 request",
            "host-request-id-not-pending" => "the host sent no 2026-07-28 request",
            "host-stdio-no-responses" => "no 2026-07-28 session was held",
            "host-request-id-unique" => "the host sent no request in a legacy session",
            "host-ping-empty-result" => "the server sent the host no ping",
            "host-response-shape" => "the host answered no server request",
            "host-elicitation-response" => "the host answered no elicitation/create",
            "host-init-params" => "the host sent no initialize",
            "host-notification-no-id" => {
                "a message with an id is a request to JSON-RPC: a notification that carries one is not told apart"
            }
            "host-lifecycle-keeps-version" | "host-lifecycle-keeps-version-2024" => {
                "each message is held to the agreed revision's schema, but a message of another revision is not told apart from an invalid one"
            }
            "host-lifecycle-keeps-capabilities" | "host-lifecycle-keeps-capabilities-2024" => {
                "the host announced no roots change"
            }
            "host-roots-capability" => {
                "the server sent no roots/list to a host that declared roots"
            }
            "host-sampling-capability" => {
                "the server sent no sampling/createMessage to a host that declared sampling"
            }
            "host-elicitation-capability" => {
                "the server sent no elicitation/create to a host that declared elicitation"
            }
            "host-stdio-cancel-notification" => {
                "the cancellations sent are judged; a request given up without one does not show"
            }
            "host-cancel-in-flight" | "host-cancel-not-initialize" => {
                "the host cancelled nothing the judge could name"
            }
            "host-cancel-invalid-ignored" | "host-elicitation-complete-unknown" => {
                "which notification a response without an id answers is not told apart"
            }
            "host-progress-token-type" | "host-progress-token-unique" => {
                "the host used no progress token"
            }
            "host-progress-known-token" => "the host sent no progress",
            "host-progress-increases" => "the host sent no second progress value for one token",
            "host-mrtr-state-echoed" => "no input_required answer carried a requestState",
            _ => "the session never exercised it",
        };
        why.to_owned()
    }

    /// `host-initialized-sent` at the end: a successful answer that no
    /// `notifications/initialized` followed.
    fn judge_initialized(&mut self, ended_by_host: bool, end: &Location) {
        let Some(init) = &self.initialize else {
            return;
        };
        let Some(Ok(answered)) = &init.answer else {
            let why = match init.answer {
                Some(Err(())) => "`initialize` was answered with an error",
                _ => "`initialize` was never answered",
            };
            self.skipped
                .insert(LawId::HostInitializedSent, why.to_owned());
            return;
        };
        if self.initialized || self.initialized_early {
            self.observe(LawId::HostInitializedSent, &["host-init-initialized"]);
            return;
        }
        let other_version = answered.is_some() && *answered != init.requested;
        if other_version && !init.requests_after {
            self.skipped.insert(
                LawId::HostInitializedSent,
                format!(
                    "the server answered another revision ({}) than the host asked ({}), and the host sent nothing more, as a host that cannot use it leaves",
                    quote(answered.as_deref().unwrap_or("none"), 20),
                    quote(init.requested.as_deref().unwrap_or("none"), 20)
                ),
            );
            return;
        }
        if !ended_by_host && !init.requests_after {
            self.skipped.insert(
                LawId::HostInitializedSent,
                "the session ended before the host said anything after the answer to `initialize`"
                    .to_owned(),
            );
            return;
        }
        let answered_at = init.answered_at.clone().unwrap_or_default();
        self.must(
            LawId::HostInitializedSent, "host-init-initialized",
            end,
            format!(
                "no `notifications/initialized` after the answer to `initialize` ({answered_at}): the host sends it before anything else"
            ),
        );
    }

    /// `host-answers-server-requests` at the end: a server request the host
    /// never answered, which it had the time to, or provably read.
    fn judge_unanswered(&mut self, end_t: f64, end: &Location) {
        let mut pending: Vec<(usize, String, String, f64)> = self
            .asked
            .values()
            .filter(|asked| !asked.answered)
            .map(|asked| (asked.index, asked.method.clone(), place(&asked.at), asked.t))
            .collect();
        pending.sort_by_key(|(index, ..)| *index);
        for (index, method, at, t) in pending {
            if self.era == Era::Modern {
                continue;
            }
            self.observe(
                LawId::HostAnswersServerRequests,
                &["host-answers-server-requests"],
            );
            if self.may_have_missed(index, t, end_t) {
                continue;
            }
            self.must(
                LawId::HostAnswersServerRequests, "host-answers-server-requests",
                end,
                format!(
                    "the server's `{method}` ({at}) was never answered: every request gets a response, an error if nothing else"
                ),
            );
        }
    }

    /// `host-shutdown-order`: the host closes stdin, waits, then signals.
    fn judge_ending(&mut self, ending: Ending, end: &Location) {
        let complete = match ending {
            Ending::NotRecorded => {
                self.skipped.insert(
                    LawId::HostShutdownOrder,
                    "a version-1 transcript does not record how the host ended the session"
                        .to_owned(),
                );
                return;
            }
            Ending::Recorded { complete } => complete,
        };
        let eof = self.eof.as_ref().map(|(t, _)| *t);
        let first_signal = self
            .signals
            .iter()
            .find(|(_, t, _)| self.exit.is_none_or(|exit| *t <= exit))
            .cloned();
        if let Some((signal, t, at)) = first_signal {
            let name = signal_name(signal);
            match eof {
                Some(eof) if eof <= t => {
                    let waited = t - eof;
                    if waited < SHUTDOWN_PATIENCE.as_secs_f64() {
                        self.should(
                            LawId::HostShutdownOrder, "host-stdio-shutdown-order",
                            &at,
                            format!(
                                "{name} {waited:.3}s after the host closed stdin: a host waits for the server to exit before a signal"
                            ),
                        );
                    } else {
                        self.observe(LawId::HostShutdownOrder, &["host-stdio-shutdown-order"]);
                    }
                }
                _ => self.should(
                    LawId::HostShutdownOrder, "host-stdio-shutdown-order",
                    &at,
                    format!(
                        "{name} while the server's stdin was still open: a host ends the session by closing stdin first"
                    ),
                ),
            }
            return;
        }
        match (eof, complete) {
            (Some(_), true) => {
                self.observe(LawId::HostShutdownOrder, &["host-stdio-shutdown-order"]);
            }
            (Some(_), false) => {
                self.skipped.insert(
                    LawId::HostShutdownOrder,
                    "the host closed stdin, and the record ends before the server's exit: whether the host waited is not recorded".to_owned(),
                );
            }
            (None, true) => {
                self.skipped.insert(
                    LawId::HostShutdownOrder,
                    "the server ended the session itself, with the host's input still open"
                        .to_owned(),
                );
            }
            (None, false) => self.should(
                LawId::HostShutdownOrder, "host-stdio-shutdown-order",
                end,
                "the record ends with the host's input still open and no exit: the host killed the recorder (SIGKILL) without closing stdin first".to_owned(),
            ),
        }
    }

    /// Why a law the session gave nothing to judge was skipped.
    fn skip_reason(&self, law: LawId) -> String {
        if let Some(reason) = self.skipped.get(&law) {
            return reason.clone();
        }
        if self.host_lines == 0 {
            return "the host wrote nothing".to_owned();
        }
        let modern = self.era == Era::Modern;
        let reason = match law {
            LawId::HostFirstMessage | LawId::HostInitializedSent if modern => {
                "a 2026-07-28 session has no initialize"
            }
            LawId::HostFirstMessage | LawId::HostInitializedSent => "the host sent no initialize",
            LawId::HostRequestIds => "the host sent no request",
            LawId::HostAnswersServerRequests => "the server sent the host no request",
            LawId::HostCapabilitiesHonest if modern => "a 2026-07-28 server sends no requests",
            LawId::HostCapabilitiesHonest => {
                "the server asked for no capability the host declared, and the host announced no roots change"
            }
            LawId::HostNotificationsUnanswered => "the server sent no notification",
            LawId::HostCancelValid => "the host cancelled nothing",
            LawId::HostMrtrRetry if !modern => "a legacy session has no input_required answers",
            LawId::HostMrtrRetry => "the host retried no input_required answer",
            LawId::HostProgressTokens => "the host used no progress token and sent no progress",
            LawId::HostEraProbe if self.requests.values().any(|sent| sent.modern) => {
                "no 2026-07-28 request got a modern answer: falling back to initialize was right"
            }
            LawId::HostEraProbe => "the host sent no 2026-07-28 request",
            _ => "nothing in the session to judge it by",
        };
        reason.to_owned()
    }
}

/// A signal's name, as a host sends it.
fn signal_name(signal: i32) -> String {
    match signal {
        1 => "SIGHUP".to_owned(),
        2 => "SIGINT".to_owned(),
        3 => "SIGQUIT".to_owned(),
        9 => "SIGKILL".to_owned(),
        10 => "SIGUSR1".to_owned(),
        12 => "SIGUSR2".to_owned(),
        15 => "SIGTERM".to_owned(),
        other => format!("signal {other}"),
    }
}
