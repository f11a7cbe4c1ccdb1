//! The transcript read as a script: the client lines to send, and the
//! recorded server messages each of them waits for.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::compare::diff::{Expected, IgnoreRules};
use crate::jsonrpc::{Frame, Inbound, RequestId, method};
use crate::report::ExchangeStatus;
use crate::transcript::{Direction, EventKind, Payload, Redactor, Transcript};

/// The transcript read as a script: what to send, what to wait for.
#[derive(Debug, Default)]
pub(super) struct Script {
    pub(super) steps: Vec<Step>,
    pub(super) slots: Vec<Slot>,
    pub(super) expects: Vec<Expect>,
    /// The first client line the recorder cut (its transcript line, the
    /// bytes kept, the bytes cut): it cannot be sent as the host sent it.
    pub(super) cut_client: Option<(usize, usize, u64)>,
    /// What the script leaves out, for the report's notes.
    pub(super) notes: Vec<String>,
    /// The first recorded server line that is JSON beyond the limits of
    /// what the checker reads as a message (its transcript line, and why):
    /// no live line can be compared with it.
    pub(super) unreadable_server: Option<(usize, &'static str)>,
}

#[derive(Debug)]
pub(super) enum Step {
    /// Send a client line.
    Send(SendLine),
    /// From here on, the recorded server message `expects[i]` precedes
    /// every client line.
    Expect(usize),
}

#[derive(Debug)]
pub(super) struct SendLine {
    pub(super) line: usize,
    pub(super) bytes: Vec<u8>,
    pub(super) eol: bool,
    pub(super) kind: SendKind,
}

#[derive(Debug)]
pub(super) enum SendKind {
    /// A request: `slots[i]`.
    Request(usize),
    /// A batch array holding these requests (ids are sent as recorded).
    Batch(Vec<usize>),
    /// A notification; for `notifications/cancelled`, the request it names.
    Notification {
        method: String,
        cancels: Option<usize>,
    },
    /// The host's answer to the recorded server request `expects[i]`.
    Answer(Option<usize>),
    /// Anything else (a malformed line), sent as recorded.
    Other,
}

/// One client request.
#[derive(Debug)]
pub(super) struct Slot {
    pub(super) line: usize,
    pub(super) method: String,
    pub(super) recorded: RequestId,
    pub(super) live: Option<RequestId>,
    pub(super) answers: u32,
    /// The recorded response, `expects[i]`.
    pub(super) response: Option<usize>,
    /// The host cancelled it before an answer was recorded: none is
    /// required, and one that comes is not compared.
    pub(super) cancelled: bool,
    pub(super) status: ExchangeStatus,
}

/// One recorded server message that a live one must match.
#[derive(Debug)]
pub(super) struct Expect {
    pub(super) line: usize,
    pub(super) kind: ExpectKind,
    /// Whether the client lines after it wait for it: see
    /// [`gates_the_client`].
    pub(super) gates: bool,
    pub(super) value: Recorded,
    pub(super) state: ExpectState,
}

/// A recorded server message as the script keeps it: its JSON text, after
/// redaction, read into a [`Value`] (and the ignore rules applied) only
/// when a live message is compared with it. A parsed `Value` costs many
/// times its text (a map node per object), and a long transcript holds
/// many messages that wait for their turn.
#[derive(Debug)]
pub(super) struct Recorded(Box<str>);

impl Recorded {
    /// The message `text` (one JSON value).
    fn new(text: &str) -> Recorded {
        Recorded(text.into())
    }
}

impl Expected for Recorded {
    fn resolve(&self, rules: &IgnoreRules) -> Cow<'_, Value> {
        // The text was read as JSON when the script was built.
        let mut value = serde_json::from_str(&self.0).unwrap_or(Value::Null);
        rules.apply(&mut value);
        Cow::Owned(value)
    }
}

#[derive(Debug)]
pub(super) enum ExpectKind {
    /// The response to `slots[i]`.
    Response(usize),
    /// A response without an id (the answer to a malformed line).
    NoId,
    /// A notification of this method.
    Notification(String),
    /// A server→client request of this method with this recorded id; the
    /// live id once it arrived.
    ServerRequest {
        method: String,
        recorded: RequestId,
        live: Option<RequestId>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ExpectState {
    Waiting,
    Met,
    Missed,
}

impl Script {
    /// The script of `transcript`, its recorded server messages redacted
    /// by `redactor` as the live ones will be: a value the recording holds
    /// in clear that is a secret where the check runs is compared (and
    /// shown) as a placeholder on both sides.
    pub(super) fn build(transcript: &Transcript, redactor: &Redactor) -> Script {
        let mut script = Script::default();
        // The latest request of each recorded id, and the latest server
        // request of each recorded id, to pair responses with.
        let mut open: HashMap<RequestId, usize> = HashMap::new();
        let mut server_requests: HashMap<RequestId, usize> = HashMap::new();
        let mut cancels = Vec::new();
        for event in &transcript.events {
            let EventKind::Line {
                dir,
                payload,
                eol,
                cut,
            } = &event.kind
            else {
                continue;
            };
            match dir {
                Direction::ClientToServer if cut.is_some() => {
                    let kept = payload.as_bytes().len();
                    script.cut_client =
                        script.cut_client.or(cut.map(|cut| (event.line, kept, cut)));
                }
                Direction::ServerToClient if cut.is_some() => {
                    // Its start may happen to parse (a number, a string):
                    // it is still not the message the server sent.
                    script.notes.push(format!(
                        "{}:{}: the server line was cut when recorded ({} bytes kept, {} more not): it is compared as a line that is not a message",
                        transcript.path.display(),
                        event.line,
                        payload.as_bytes().len(),
                        cut.unwrap_or(0),
                    ));
                }
                Direction::ClientToServer => {
                    let kind = script.client_line(
                        event.line,
                        payload,
                        &mut open,
                        &server_requests,
                        &mut cancels,
                    );
                    script.steps.push(Step::Send(SendLine {
                        line: event.line,
                        bytes: payload.as_bytes().to_vec(),
                        eol: *eol,
                        kind,
                    }));
                }
                Direction::ServerToClient => {
                    let redacted = redactor.redact(payload.as_bytes());
                    // A line with surrounding whitespace is still read, as
                    // `Payload::to_json` reads it.
                    // A line of more values than are read into memory is
                    // weighed before it is read.
                    let Some(text) = std::str::from_utf8(&redacted)
                        .ok()
                        .map(|text| text.trim_matches(['\t', '\n', '\r', ' ']))
                        .filter(|text| crate::jsonrpc::too_many_values(text.as_bytes()).is_none())
                        .filter(|text| serde_json::from_str::<Value>(text).is_ok())
                    else {
                        // A line that is no JSON was no message when it was
                        // recorded either: the live laws judge what the
                        // server writes now. A line that is JSON the
                        // checker cannot read is another matter: whatever
                        // it answered, nothing can be compared with it.
                        if let Some(why) = payload.beyond_limits() {
                            script.unreadable_server.get_or_insert((event.line, why));
                        }
                        continue;
                    };
                    // A batch is one message per element, each kept as its
                    // own text.
                    let items: Vec<&RawValue> = match serde_json::from_str::<Vec<&RawValue>>(text) {
                        Ok(items) if text.starts_with('[') => items,
                        _ => vec![serde_json::from_str::<&RawValue>(text).expect("read above")],
                    };
                    for item in items {
                        script.server_message(
                            event.line,
                            item.get(),
                            &open,
                            &mut server_requests,
                            &cancels,
                        );
                    }
                }
                Direction::Stderr => {}
            }
        }
        for slot in cancels {
            let slot: &mut Slot = &mut script.slots[slot];
            slot.cancelled = slot.response.is_none();
        }
        script
    }

    fn client_line(
        &mut self,
        line: usize,
        payload: &Payload,
        open: &mut HashMap<RequestId, usize>,
        server_requests: &HashMap<RequestId, usize>,
        cancels: &mut Vec<usize>,
    ) -> SendKind {
        let mut slot_of = |slots: &mut Vec<Slot>, id: RequestId, method: String| {
            slots.push(Slot {
                line,
                method,
                recorded: id.clone(),
                live: None,
                answers: 0,
                response: None,
                cancelled: false,
                status: ExchangeStatus::NotSent,
            });
            open.insert(id, slots.len() - 1);
            slots.len() - 1
        };
        match payload.to_json() {
            Some(Value::Object(object)) => match Frame::from_object(object) {
                Frame::Request { id, method, .. } => {
                    SendKind::Request(slot_of(&mut self.slots, id, method))
                }
                Frame::Notification { method, params } => {
                    let cancels_slot = (method == method::CANCELLED)
                        .then(|| params.as_ref()?.get("requestId"))
                        .flatten()
                        .and_then(RequestId::from_value)
                        .and_then(|id| open.get(&id).copied());
                    cancels.extend(cancels_slot);
                    SendKind::Notification {
                        method,
                        cancels: cancels_slot,
                    }
                }
                Frame::Response { id: Some(id), .. } => {
                    SendKind::Answer(server_requests.get(&id).copied())
                }
                // A null id is no notification (JSON-RPC 2.0 §4), and no
                // request either (MCP allows no null id): a server may
                // answer it (-32600, id null) as it answers a malformed
                // line, and `notification-unanswered` has nothing to say.
                _ => SendKind::Other,
            },
            Some(Value::Array(items)) => {
                let mut slots = Vec::new();
                for item in items {
                    if let Value::Object(object) = item
                        && let Frame::Request { id, method, .. } = Frame::from_object(object)
                    {
                        slots.push(slot_of(&mut self.slots, id, method));
                    }
                }
                SendKind::Batch(slots)
            }
            Some(_) => SendKind::Other,
            // JSON beyond the limits of what the checker reads as a
            // message (a number past an f64, deep nesting, a lone
            // surrogate) is still what the host sent, and a server may read
            // it, as JSON-RPC sets no such limits: it is read by its
            // members, as the core library reads a line, so that a request
            // among them is paired with its answer.
            None if payload.beyond_limits().is_some() => {
                let bytes = payload.as_bytes().trim_ascii();
                if bytes.starts_with(b"[") && crate::jsonrpc::too_many_values(bytes).is_none() {
                    let items = serde_json::from_slice::<Vec<&RawValue>>(bytes).unwrap_or_default();
                    let mut slots = Vec::new();
                    for item in items {
                        if let Some(Inbound::Request { id, method, .. }) =
                            Inbound::parse(item.get().as_bytes())
                        {
                            slots.push(slot_of(&mut self.slots, id, method.into_owned()));
                        }
                    }
                    return SendKind::Batch(slots);
                }
                match Inbound::parse(bytes) {
                    Some(Inbound::Request { id, method, .. }) => {
                        SendKind::Request(slot_of(&mut self.slots, id, method.into_owned()))
                    }
                    Some(Inbound::Notification { method, .. }) => SendKind::Notification {
                        method: method.into_owned(),
                        cancels: None,
                    },
                    Some(Inbound::Response { id: Some(id), .. }) => {
                        SendKind::Answer(server_requests.get(&id).copied())
                    }
                    _ => SendKind::Other,
                }
            }
            None => SendKind::Other,
        }
    }

    fn server_message(
        &mut self,
        line: usize,
        text: &str,
        open: &HashMap<RequestId, usize>,
        server_requests: &mut HashMap<RequestId, usize>,
        cancelled: &[usize],
    ) {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let kind = match message_kind(&value) {
            MessageKind::Response(Some(id)) => {
                // A recorded response to no recorded request cannot be
                // matched; the live laws judge such answers.
                let Some(&slot) = open.get(&id) else { return };
                // An answer recorded after the host cancelled the request
                // won a race: the server may as well honour the cancel, or
                // answer it otherwise. Neither is required, so it is not
                // waited for.
                if self.slots[slot].response.is_some() || cancelled.contains(&slot) {
                    return;
                }
                self.slots[slot].response = Some(self.expects.len());
                ExpectKind::Response(slot)
            }
            MessageKind::Response(None) => ExpectKind::NoId,
            MessageKind::Notification(method) => ExpectKind::Notification(method),
            MessageKind::Request(id, method) => {
                server_requests.insert(id.clone(), self.expects.len());
                ExpectKind::ServerRequest {
                    method,
                    recorded: id,
                    live: None,
                }
            }
            MessageKind::Other => return,
        };
        self.steps.push(Step::Expect(self.expects.len()));
        self.expects.push(Expect {
            line,
            gates: gates_the_client(&kind),
            kind,
            value: Recorded::new(text),
            state: ExpectState::Waiting,
        });
    }
}

/// Whether a host waits for a recorded server message before its next
/// line: it acts on answers, on server requests, and on list changes (it
/// re-lists after `notifications/*/list_changed`). Servers send other
/// notifications (logging, progress, resource updates) on timers of their
/// own, which a replay that does not reproduce the host's idle time cannot
/// bring about, so the replay does not wait for them.
fn gates_the_client(kind: &ExpectKind) -> bool {
    match kind {
        ExpectKind::Notification(method) => {
            method.starts_with("notifications/") && method.ends_with("/list_changed")
        }
        ExpectKind::Response(_) | ExpectKind::NoId | ExpectKind::ServerRequest { .. } => true,
    }
}

/// What a JSON-RPC message is, read from its fields.
pub(super) enum MessageKind {
    Response(Option<RequestId>),
    Notification(String),
    Request(RequestId, String),
    Other,
}

pub(super) fn message_kind(value: &Value) -> MessageKind {
    let id = value
        .get("id")
        .filter(|id| !id.is_null())
        .map(RequestId::from_value);
    match (value.get("method").and_then(Value::as_str), id) {
        (Some(method), None) => MessageKind::Notification(method.to_owned()),
        (Some(method), Some(Some(id))) => MessageKind::Request(id, method.to_owned()),
        (Some(_), Some(None)) => MessageKind::Other,
        (None, id) if value.get("result").is_some() || value.get("error").is_some() => {
            MessageKind::Response(id.flatten())
        }
        (None, _) => MessageKind::Other,
    }
}
