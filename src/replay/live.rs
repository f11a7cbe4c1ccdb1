//! Judging what a server writes during a replay: each stdout line is read as
//! the stdio contract demands, matched with the recorded message it answers
//! or stands for, and compared with it.

use serde_json::Value;

use super::Run;
use super::rewrite::with_member;
use super::script::{ExpectKind, ExpectState};
use super::{LiveLine, MAX_KEPT_MISMATCHES, Mismatch, Overflow};
use crate::client::{Cause, Channel, Kind, Message, Reply};
use crate::compare::diff::{self, Expected as _};
use crate::jsonrpc::{RequestId, method};
use crate::laws::LawId;
use crate::report::{ExchangeStatus, Finding};

impl<C: Channel> Run<'_, C> {
    /// Takes in one stdout line, as the client read it: matches its
    /// messages, keeps it for `--bless` when asked to.
    pub(super) fn on_line(&mut self, bytes: Vec<u8>, eol: bool, messages: Vec<Message>) {
        // What the client observed reading the line comes first.
        self.enter_observations();
        let changed_before = self.changed.len();
        let restored_ids: Vec<Option<Value>> = messages
            .into_iter()
            .map(|message| self.on_message(message))
            .collect();
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

    /// The live line as a transcript records it: secrets redacted, and the
    /// recorded ids in place of the live ones.
    fn for_transcript(&self, bytes: &[u8], restored_ids: &[Option<Value>]) -> Vec<u8> {
        let redacted = self.client.redactor().redact(bytes);
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

    /// Handles one live message; returns the recorded id that stands for
    /// its live id, when they differ.
    fn on_message(&mut self, message: Message) -> Option<Value> {
        let shown = message.redacted.unwrap_or(message.value);
        match message.kind {
            Kind::Response {
                reply: Reply::Answers { sent, .. },
                ..
            } => self.on_response(&sent, shown),
            Kind::Response {
                reply: Reply::Again { sent, .. },
                ..
            } => {
                let slot = *self.live_ids.get(&sent)?;
                self.slots[slot].answers += 1;
                self.slots[slot].status = ExchangeStatus::Failed;
                Some(self.slots[slot].recorded.to_value())
            }
            Kind::Response { id: None, .. } => {
                self.on_response_without_id(shown);
                None
            }
            // The client made it a finding: it answers no request sent.
            Kind::Response { .. } => None,
            Kind::Notification { method } => {
                if let Some(expect) = self.expects.iter_mut().find(|expect| {
                    expect.state == ExpectState::Waiting
                        && matches!(&expect.kind, ExpectKind::Notification(m) if *m == method)
                }) {
                    expect.state = ExpectState::Met;
                }
                None
            }
            Kind::Request { id, method } => self.on_server_request(id, &method),
        }
    }

    /// Counts the messages that broke the schema past the first few in the
    /// last finding that quotes one.
    pub(super) fn schema_tally(&mut self) {
        let more = self.client.schema_more();
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

    /// The first answer to the request sent with `id` (the client tells a
    /// second one apart, as `Reply::Again`, and makes it its finding).
    fn on_response(&mut self, id: &RequestId, value: Value) -> Option<Value> {
        let slot = *self.live_ids.get(id)?;
        self.slots[slot].answers += 1;
        let recorded = self.slots[slot].recorded.clone();
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
        match self.client.cause_without_id() {
            Cause::Malformed { at: line } => {
                self.reshape_finding(
                    line,
                    format!(
                        "the malformed line {line} was answered, but the recording has no answer to it"
                    ),
                );
            }
            _ => self.client.unanswerable("a response without an id"),
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
        self.mismatches += 1;
        self.changed.push(line);
        // Past the bound, a mismatch is counted, not kept: its diff and
        // both sides would hold many times the transcript's size.
        if self.mismatched.len() >= MAX_KEPT_MISMATCHES {
            self.overflow.push(Overflow {
                line,
                expected: expected.to_string().into_boxed_str(),
                actual: actual.to_string().into_boxed_str(),
            });
            return false;
        }
        let expected = expected.into_owned();
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
        let why = format!("mcp-replay: the transcript records no answer to `{method}`");
        self.client.decline(id, method, why);
        None
    }
}
