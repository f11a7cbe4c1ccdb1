//! Judging what a server writes during a replay: each stdout line is read as
//! the stdio contract demands, matched with the recorded message it answers
//! or stands for, and compared with it.

use std::borrow::Cow;
use std::time::Instant;

use serde_json::Value;

use super::Run;
use super::rewrite::with_member;
use super::script::{ExpectKind, ExpectState, MessageKind, message_kind};
use super::{LiveLine, Mismatch, Sent};
use crate::check::diff::{self, Expected as _};
use crate::check::schema;
use crate::check::wire;
use crate::jsonrpc::{RequestId, Response, method};
use crate::laws::LawId;
use crate::report::{ExchangeStatus, Finding};
use crate::transcript::Redactor;

impl Run<'_> {
    /// Takes in one stdout line: judges it, matches it, keeps it for
    /// `--bless` when asked to.
    pub(super) fn on_line(&mut self, bytes: Vec<u8>, eol: bool, cut: bool) {
        self.first_output.get_or_insert_with(Instant::now);
        let changed_before = self.changed.len();
        let mut restored_ids = Vec::new();
        let parsed = if cut {
            Err(wire::cut(&bytes))
        } else {
            wire::parse(&bytes, self.batches)
        };
        match parsed {
            // The line is quoted with its secrets redacted, like every
            // live line the report shows.
            Err(not_protocol) => self.not_protocol(|redactor| {
                format!(
                    "a stdout line is not a JSON-RPC message ({}): `{}`",
                    not_protocol.reason,
                    wire::excerpt(&redactor.redact(&bytes))
                )
            }),
            Ok(value) => {
                if !eol {
                    self.not_protocol(|_| {
                        "the last stdout line has no newline: the message is cut short or unterminated"
                            .to_owned()
                    });
                }
                // The recorder redacted the recorded lines this way: compare
                // like with like. Ids and methods are read from the line as
                // it is, since the live server needs its own ids back.
                let redacted = match self.redactor.redact(&bytes) {
                    Cow::Owned(redacted) => serde_json::from_slice::<Value>(&redacted).ok(),
                    Cow::Borrowed(_) => None,
                };
                match (value, redacted) {
                    (Value::Array(items), redacted) => {
                        let mut redacted = match redacted {
                            Some(Value::Array(redacted)) => {
                                redacted.into_iter().map(Some).collect()
                            }
                            _ => Vec::new(),
                        }
                        .into_iter();
                        for item in items {
                            let comparable = redacted.next().flatten();
                            restored_ids.push(self.on_message(item, comparable));
                        }
                    }
                    (value, redacted) => restored_ids.push(self.on_message(value, redacted)),
                }
            }
        }
        if self.options.keep_live {
            let bytes = self.for_transcript(&bytes, &restored_ids);
            self.live.push(LiveLine {
                segment: self.sends,
                bytes,
                eol,
                replaces: self.changed[changed_before..].to_vec(),
            });
        }
    }

    /// A stdout line that is no message: the first is a `stdout-is-protocol`
    /// finding at the transcript line last sent, the others are counted in
    /// it, so that a server that floods stdout makes one finding, not one
    /// per line. `message` is only asked of the first; it quotes the line
    /// with its secrets redacted, like every live line the report shows.
    fn not_protocol(&mut self, message: impl FnOnce(&Redactor) -> String) {
        self.n_not_protocol += 1;
        if self.not_protocol_finding.is_none() {
            self.not_protocol_finding = Some(self.findings.len());
            let message = message(&self.redactor);
            self.finding(LawId::StdoutIsProtocol, self.last_line.max(1), message);
        }
    }

    /// The live line as a transcript records it: secrets redacted, and the
    /// recorded ids in place of the live ones.
    fn for_transcript(&self, bytes: &[u8], restored_ids: &[Option<Value>]) -> Vec<u8> {
        let redacted = self.redactor.redact(bytes);
        match restored_ids {
            [] | [None] => redacted.into_owned(),
            [Some(id)] => with_member(&redacted, "id", id).unwrap_or_else(|| redacted.into_owned()),
            batch => {
                let Ok(Value::Array(mut items)) = serde_json::from_slice::<Value>(&redacted) else {
                    return redacted.into_owned();
                };
                for (item, id) in items.iter_mut().zip(batch) {
                    if let (Some(id), Some(object)) = (id, item.as_object_mut()) {
                        object.insert("id".to_owned(), id.clone());
                    }
                }
                Value::Array(items).to_string().into_bytes()
            }
        }
    }

    /// Handles one live message (`redacted` is the same message with its
    /// secrets redacted, when it has any); returns the recorded id that
    /// stands for its live id, when they differ.
    fn on_message(&mut self, value: Value, redacted: Option<Value>) -> Option<Value> {
        self.judge_schema(&value);
        match message_kind(&value) {
            MessageKind::Response(Some(id)) => self.on_response(&id, redacted.unwrap_or(value)),
            MessageKind::Response(None) => {
                self.on_response_without_id(redacted.unwrap_or(value));
                None
            }
            MessageKind::Notification(method) => {
                if let Some(expect) = self.expects.iter_mut().find(|expect| {
                    expect.state == ExpectState::Waiting
                        && matches!(&expect.kind, ExpectKind::Notification(m) if *m == method)
                }) {
                    expect.state = ExpectState::Met;
                }
                None
            }
            MessageKind::Request(id, method) => self.on_server_request(id, &method),
            MessageKind::Other => None,
        }
    }

    /// The `schema` law for one live message: the message as its revision
    /// allows, and a response's result as its request's method's type. The
    /// first few messages that break it are findings, at the request's line
    /// (or the last client line sent); the others are counted in the last.
    fn judge_schema(&mut self, value: &Value) {
        let slot = match message_kind(value) {
            MessageKind::Response(Some(id)) => self.live_ids.get(&id).copied(),
            _ => None,
        };
        let method = slot.map(|slot| self.slots[slot].method.clone());
        // The revision a live `initialize` answer names is in force from
        // that answer on, where the recording names none.
        if self.revision.is_none()
            && method.as_deref() == Some(method::INITIALIZE)
            && let Some(result) = value.get("result")
        {
            self.revision = schema::negotiated(result);
        }
        let Some(revision) = self.revision else {
            return;
        };
        let violations = schema::violations(revision, value, method.as_deref());
        if violations.is_empty() {
            return;
        }
        self.n_schema += 1;
        if self.n_schema > MAX_SCHEMA_FINDINGS {
            return;
        }
        let (what, line) = match slot {
            Some(slot) => {
                let slot = &self.slots[slot];
                let what = format!(
                    "the answer to `{}` id={} (line {})",
                    slot.method, slot.recorded, slot.line
                );
                (what, slot.line)
            }
            None => {
                let what = match message_kind(value) {
                    MessageKind::Notification(method) => {
                        format!("the notification `{method}`")
                    }
                    MessageKind::Request(_, method) => format!("the server request `{method}`"),
                    _ => "a message".to_owned(),
                };
                (what, self.last_line.max(1))
            }
        };
        let message = schema::describe(revision, &what, &violations);
        self.finding(LawId::Schema, line, message);
    }

    /// Counts the messages that broke the schema past the first few in the
    /// last finding that quotes one.
    pub(super) fn schema_tally(&mut self) {
        let more = self.n_schema.saturating_sub(MAX_SCHEMA_FINDINGS);
        if more == 0 {
            return;
        }
        if let Some(last) = self
            .findings
            .iter_mut()
            .rev()
            .find(|finding| finding.law == LawId::Schema)
        {
            let s = if more == 1 { "" } else { "s" };
            last.message
                .push_str(&format!(" ({more} more message{s} break it)"));
        }
    }

    fn on_response(&mut self, id: &RequestId, value: Value) -> Option<Value> {
        let slot = match self.live_ids.get(id) {
            Some(&slot) => slot,
            None => match self.loose_ids.get(&loose_key(id)) {
                Some(&slot) => {
                    let expected = self.slots[slot]
                        .live
                        .clone()
                        .expect("opened slots are live");
                    let message = format!(
                        "`{}` id={} (line {}) was answered with id {id}: the id must keep its JSON type",
                        self.slots[slot].method, expected, self.slots[slot].line
                    );
                    self.finding(LawId::RequestAnsweredOnce, self.slots[slot].line, message);
                    self.slots[slot].status = ExchangeStatus::Failed;
                    slot
                }
                None => {
                    // An id the replay never sent cannot answer a
                    // notification, which has no id: it is unsolicited.
                    let message =
                        format!("a response with id {id} answers no request that was sent");
                    self.finding(LawId::RequestAnsweredOnce, self.last_line.max(1), message);
                    return None;
                }
            },
        };
        self.slots[slot].answers += 1;
        let recorded = self.slots[slot].recorded.clone();
        if self.slots[slot].answers > 1 {
            let message = format!(
                "`{}` id={} (line {}) was answered {} times",
                self.slots[slot].method, recorded, self.slots[slot].line, self.slots[slot].answers
            );
            self.finding(LawId::RequestAnsweredOnce, self.slots[slot].line, message);
            self.slots[slot].status = ExchangeStatus::Failed;
            return Some(recorded.to_value());
        }
        if self.slots[slot].status == ExchangeStatus::Unanswered {
            self.slots[slot].status = ExchangeStatus::Passed;
        }
        if let Some(index) = self.slots[slot].response {
            let mut actual = value;
            if let Some(object) = actual.as_object_mut() {
                object.insert("id".to_owned(), recorded.to_value());
            }
            let what = format!(
                "`{}` id={} (line {}): the response differs from the recording",
                self.slots[slot].method, recorded, self.slots[slot].line
            );
            if !self.matches_recording(index, actual, what) {
                self.slots[slot].status = ExchangeStatus::Failed;
            }
        }
        (self.slots[slot].live.as_ref() != Some(&recorded)).then(|| recorded.to_value())
    }

    fn on_response_without_id(&mut self, value: Value) {
        if let Some(index) = self.expects.iter().position(|expect| {
            expect.state == ExpectState::Waiting && matches!(expect.kind, ExpectKind::NoId)
        }) {
            let what = "the response without an id differs from the recording".to_owned();
            self.matches_recording(index, value, what);
            return;
        }
        // An answer without an id is due to the latest malformed line, when
        // that came after the latest notification.
        let malformed_is_latest = match (&self.last_malformed, &self.last_notification) {
            (Some(malformed), Some(notification)) => malformed.seq > notification.seq,
            (Some(_), None) => true,
            (None, _) => false,
        };
        match &self.last_malformed {
            Some(malformed) if malformed_is_latest => {
                let line = malformed.line;
                self.reshape_finding(
                    line,
                    format!(
                        "the malformed line {line} was answered, but the recording has no answer to it"
                    ),
                );
            }
            _ => self.without_id("a response without an id"),
        }
    }

    /// Meets the recorded response `expects[index]` (the ignore rules applied
    /// when the replay began) with `actual` (already redacted, with the
    /// recorded id); a mismatch after the ignore rules is
    /// a `transcript-match` finding with the diff and the command that
    /// accepts it. Returns whether they match.
    fn matches_recording(&mut self, index: usize, mut actual: Value, what: String) -> bool {
        self.expects[index].state = ExpectState::Met;
        let line = self.expects[index].line;
        self.compared.insert(line);
        self.options.ignore.apply(&mut actual);
        let headers = || {
            (
                format!("expected: {}:{line}", self.path.display()),
                format!("actual: {}", self.command),
            )
        };
        let expected = self.expects[index].value.resolve(&self.options.ignore);
        let Some(diff) = diff::compare_applied(&expected, &actual, headers) else {
            return true;
        };
        let expected = expected.into_owned();
        self.mismatches += 1;
        self.changed.push(line);
        self.mismatched.push(Mismatch {
            line,
            finding: self.findings.len(),
            expected,
            actual,
        });
        let finding = Finding::new(
            LawId::TranscriptMatch,
            self.options.profile,
            self.location(line),
            what,
        )
        .with_diff(diff)
        .with_hint(format!(
            "accept the new responses with `{}`",
            self.options.bless_hint
        ));
        self.findings.push(finding);
        false
    }

    /// A response without an id that answers no request. A notification has
    /// no id, so its answer carries none: once a notification has been sent,
    /// such a response most likely answers it (a fence cannot tell which,
    /// since the replay keeps sending while it waits).
    fn without_id(&mut self, what: &str) {
        match self.last_notification.clone() {
            Some(Sent { method, line, .. }) => self.finding(
                LawId::NotificationUnanswered,
                line,
                format!(
                    "{what} answers no request; the last notification sent was `{method}` (line {line})"
                ),
            ),
            _ => self.finding(
                LawId::RequestAnsweredOnce,
                self.last_line.max(1),
                format!("{what} answers no request that was sent"),
            ),
        }
    }

    fn on_server_request(&mut self, id: RequestId, method: &str) -> Option<Value> {
        let found = self.expects.iter_mut().find(|expect| {
            expect.state == ExpectState::Waiting
                && matches!(&expect.kind, ExpectKind::ServerRequest { method: m, live: None, .. } if m == method)
        });
        if let Some(expect) = found {
            expect.state = ExpectState::Met;
            if let ExpectKind::ServerRequest { recorded, live, .. } = &mut expect.kind {
                *live = Some(id.clone());
                return (*recorded != id).then(|| recorded.to_value());
            }
            return None;
        }
        // A request the recording lacks is a deviation from it, unless an
        // ignore rule allows the method. A ping is none: servers send it on
        // timers, and a replay does not reproduce the time a host sat idle.
        if method != method::PING && !self.options.ignore.allows_request(method) {
            let line = self.last_line.max(1);
            // No hint: the one hint of a transcript's `transcript-match`
            // findings is the bless command, which cannot record the host's
            // answer to a request it never saw.
            let message = format!(
                "the server sent a request the recording lacks: `{method}`, after line {line} (the ignore rule `method:{method}` allows it)"
            );
            self.finding(LawId::TranscriptMatch, line, message);
        }
        // Answer it as a host would, so the server is not left waiting.
        let answer = if method == method::PING {
            Response::ok(id, Value::Object(serde_json::Map::new()))
        } else {
            Response::error(
                Some(id),
                crate::jsonrpc::ErrorCode::METHOD_NOT_FOUND,
                format!("mcp-replay: the transcript records no answer to `{method}`"),
            )
        };
        self.server.send(answer.to_line().as_bytes());
        None
    }
}

/// How many messages that break the schema a replay reports one by one.
const MAX_SCHEMA_FINDINGS: usize = 10;

/// An id keyed by its text alone: `7` and `"7"` meet here.
pub(super) fn loose_key(id: &RequestId) -> String {
    match id.to_value() {
        Value::String(text) => text,
        other => other.to_string(),
    }
}
