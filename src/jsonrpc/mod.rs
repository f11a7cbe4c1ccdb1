//! JSON-RPC 2.0 frames as MCP uses them over stdio: one JSON object per line.
//!
//! This room is shared by both halves of the crate. The server core classifies
//! inbound lines with [`Frame::parse`] and builds its answers with
//! [`Response`]; the checker uses the same types to read what a server under
//! test writes. Nothing here does I/O. `wire` reads a line as a server's
//! stdout line must be: one message, within the limits of the grammar.

#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod wire;

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

/// The method names the crate knows, each spelled once.
pub mod method {
    /// The legacy handshake request.
    pub const INITIALIZE: &str = "initialize";
    /// The notification a host sends after the initialize result.
    pub const INITIALIZED: &str = "notifications/initialized";
    /// Cancellation of an in-flight request (a notification).
    pub const CANCELLED: &str = "notifications/cancelled";
    /// Liveness check; the answer is `{}`.
    pub const PING: &str = "ping";
    /// The tool list.
    pub const TOOLS_LIST: &str = "tools/list";
    /// A tool invocation.
    pub const TOOLS_CALL: &str = "tools/call";
    /// The server's log notification (needs the `logging` capability).
    pub const LOG_MESSAGE: &str = "notifications/message";
    /// Progress of an in-flight request (a notification).
    pub const PROGRESS: &str = "notifications/progress";
    /// The modern revision's discovery request: versions and capabilities.
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// The modern revision's subscription stream.
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// The prompt list.
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// One prompt, rendered.
    pub const PROMPTS_GET: &str = "prompts/get";
    /// The resource list.
    pub const RESOURCES_LIST: &str = "resources/list";
    /// The resource template list.
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// One resource's contents.
    pub const RESOURCES_READ: &str = "resources/read";
    /// The legacy revisions' log level request.
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    /// The tool list changed (a server notification).
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
}

/// The longest line taken in whole, newline excluded: 64 MiB, for every
/// stream of the protocol this crate reads (a host's lines in the server
/// library, a server's in `check`, `record` and the in-memory client).
///
/// No protocol message comes near it, so a longer line is runaway output
/// (or a stream that never ends its line): a reader delivers it cut to its
/// first KiB (`CUT_KEEP`) as soon as it passes this length, and reads and
/// drops the rest of it, so that memory stays bounded.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// How much of a line longer than [`MAX_LINE`] is kept, for messages.
pub const CUT_KEEP: usize = 1024;

/// The most JSON values (objects, arrays, strings, numbers, literals) one
/// message may hold to be read into memory: a line of [`MAX_LINE`] bytes of
/// tiny values would take some 16 to 90 times its size once read, so a
/// message is weighed by its values before it is read, whatever its bytes.
/// Half a million values read into about 50 MiB.
pub const MAX_VALUES: usize = 1 << 19;

/// Why a message is not read into memory when it holds more than
/// [`MAX_VALUES`] values.
pub const TOO_MANY_VALUES: &str =
    "it holds more than 524288 JSON values, more than mcp-replay reads into memory as one message";

/// Why `text` is not read as JSON into memory: it holds more than
/// [`MAX_VALUES`] values ([`TOO_MANY_VALUES`]). One pass over the bytes,
/// counting the commas, brackets and braces outside strings (an upper
/// bound on the values), and stopping as soon as the bound is passed.
pub fn too_many_values(text: &[u8]) -> Option<&'static str> {
    // Each value past the first takes one of those bytes: a text shorter
    // than the bound cannot pass it, and most lines are read unscanned.
    if text.len() < MAX_VALUES {
        return None;
    }
    let mut values = 1usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b',' | b'[' | b'{' => {
                values += 1;
                if values > MAX_VALUES {
                    return Some(TOO_MANY_VALUES);
                }
            }
            _ => {}
        }
    }
    None
}

/// The protocol revision the core library answers.
pub const PROTOCOL_2024_11_05: &str = "2024-11-05";

/// A JSON-RPC error code. The set is open: servers may use any integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// Invalid method parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// A resource that does not exist (legacy revisions; 2026-07-28 answers
    /// -32602 instead, and forbids this code).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// 2026-07-28: a header disagrees with the body (HTTP only).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// 2026-07-28: the request lacks a client capability the server needs;
    /// `data.requiredCapabilities` says which.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// 2026-07-28: the server does not serve the requested revision;
    /// `data{supported, requested}` says which it does.
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The id of a request: a JSON number or string.
///
/// `Display` keeps `7` and `"7"` apart, because a response must echo the id
/// with its JSON type; a number keeps its form as serde_json reads it, so
/// `1` and `1.0` stay apart too.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestId(IdRepr);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum IdRepr {
    /// An integer that fits an `i64`: most ids, held without an allocation.
    /// Every such id is held this way, so equal ids compare equal.
    Integer(i64),
    /// Any other number, as serde_json writes it: a float keeps its
    /// fraction (`1.0`), and an integer past `i64` its digits.
    Number(String),
    String(String),
}

impl RequestId {
    /// An integer id.
    pub fn number(n: i64) -> RequestId {
        RequestId(IdRepr::Integer(n))
    }

    /// A string id.
    pub fn string(s: impl Into<String>) -> RequestId {
        RequestId(IdRepr::String(s.into()))
    }

    /// Reads an id from a JSON value: numbers and strings are ids; anything
    /// else (null, bool, array, object) is not.
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::Number(n) => Some(RequestId::from_number(n)),
            Value::String(s) => Some(RequestId(IdRepr::String(s.clone()))),
            _ => None,
        }
    }

    fn from_number(n: &Number) -> RequestId {
        match n.as_i64() {
            Some(n) => RequestId(IdRepr::Integer(n)),
            None => RequestId(IdRepr::Number(n.to_string())),
        }
    }

    /// The id as a JSON value, for echoing it in a response.
    pub fn to_value(&self) -> Value {
        match &self.0 {
            IdRepr::Integer(n) => Value::from(*n),
            IdRepr::Number(text) => {
                serde_json::from_str(text).expect("a number id holds valid JSON number text")
            }
            IdRepr::String(s) => Value::String(s.clone()),
        }
    }

    /// Whether the id is a JSON string.
    pub fn is_string(&self) -> bool {
        matches!(self.0, IdRepr::String(_))
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            IdRepr::Integer(n) => n.fmt(f),
            IdRepr::Number(text) => f.write_str(text),
            IdRepr::String(s) => write!(f, "{}", Value::String(s.clone())),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            IdRepr::Integer(n) => serializer.serialize_i64(*n),
            IdRepr::String(s) => serializer.serialize_str(s),
            IdRepr::Number(text) => match text.parse::<u64>() {
                Ok(n) => serializer.serialize_u64(n),
                Err(_) => self.to_value().serialize(serializer),
            },
        }
    }
}

/// The error object of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The error code.
    pub code: ErrorCode,
    /// A short description.
    pub message: String,
    /// Optional extra information.
    pub data: Option<Value>,
}

/// The message of the error (-32600) that answers a request whose id is
/// `null` ([`Frame::NullId`]), as the core library and the mock write it.
pub(crate) const NULL_ID_MESSAGE: &str = "invalid request: the id is null; a request's id is a string or an integer (MCP basic#requests), and a notification has no id (JSON-RPC 2.0 §4)";

/// One inbound line, classified.
///
/// Classification follows MCP-CORE r1 §1¶08-10 and JSON-RPC 2.0 §4: an `id`
/// that is present and not null makes a request; an absent `id` makes a
/// notification; a `null` id makes neither (see [`Frame::NullId`]); a line
/// that is not a JSON object, or an object without `method` (and not a
/// response), is malformed.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// A request: it must be answered exactly once.
    Request {
        /// The id to echo.
        id: RequestId,
        /// The method name.
        method: String,
        /// The params, if any.
        params: Option<Value>,
    },
    /// A notification: it must never be answered.
    Notification {
        /// The method name.
        method: String,
        /// The params, if any.
        params: Option<Value>,
    },
    /// A request object whose `id` is `null`.
    ///
    /// JSON-RPC 2.0 §4 makes only a request *without* an `id` a
    /// notification, and MCP never allows a null id (every revision's
    /// `RequestId` is a string or an integer; MCP basic#requests: "Unlike
    /// base JSON-RPC, the ID MUST NOT be null"). So it is no request to
    /// serve and no notification to absorb: it is an invalid request,
    /// answered with -32600 and `"id": null` (JSON-RPC 2.0 §5: the answer
    /// carries the request's id). MCP-CORE r1 §1¶09 reads a null id as a
    /// notification; the crate follows JSON-RPC and MCP here, since a host
    /// that sent a request with a null id waits for its answer.
    NullId {
        /// The method name.
        method: String,
        /// The params, if any.
        params: Option<Value>,
    },
    /// A response (to a request the reader sent).
    Response {
        /// The id the response carries; `None` when absent or null.
        id: Option<RequestId>,
        /// `Ok(result)` or `Err(error)`.
        outcome: Result<Value, RpcError>,
    },
    /// A line that is no valid frame.
    Malformed {
        /// What is wrong with it, in words.
        reason: String,
        /// The id, when one could be read (so an error can echo it).
        id: Option<RequestId>,
    },
}

impl Frame {
    /// Classifies one line (without its terminator). Never panics.
    pub fn parse(line: &[u8]) -> Frame {
        match Inbound::parse(line) {
            Some(inbound) => inbound.into_frame(),
            None => match read_object(line) {
                Ok(object) => Frame::from_object(object),
                Err(reason) => Frame::Malformed { reason, id: None },
            },
        }
    }

    /// Classifies an already parsed JSON object.
    pub fn from_object(mut object: Map<String, Value>) -> Frame {
        let classified = classify(
            object.remove("id"),
            object.remove("method"),
            object.remove("params"),
            object.remove("result"),
            object.remove("error"),
        );
        match classified {
            Inbound::Request { id, method, params } => Frame::Request {
                id,
                method: method.into_owned(),
                params,
            },
            Inbound::Notification { method, params } => Frame::Notification {
                method: method.into_owned(),
                params,
            },
            Inbound::NullId { method, params } => Frame::NullId {
                method: method.into_owned(),
                params,
            },
            Inbound::Response { id, outcome } => Frame::Response {
                id,
                outcome: outcome.map_err(|error| parse_rpc_error(&error)),
            },
            Inbound::Malformed { reason, id } => Frame::Malformed { reason, id },
        }
    }

    /// Whether this frame is a notification.
    pub fn is_notification(&self) -> bool {
        matches!(self, Frame::Notification { .. })
    }

    /// Whether this frame is a request.
    pub fn is_request(&self) -> bool {
        matches!(self, Frame::Request { .. })
    }
}

/// One frame, classified by its members (MCP-CORE r1 §1¶08-10), which are
/// parsed values (`M` = [`Value`]) or raw JSON text borrowed from the line
/// (`M` = `&RawValue`).
///
/// The serve loop reads lines as raw members, so that a request costs no
/// copy of its method and no parse of params it does not read;
/// [`Frame::parse`] builds its owned frame from the same classification.
#[derive(Debug)]
pub(crate) enum Inbound<'a, M> {
    /// A request: it must be answered exactly once.
    Request {
        id: RequestId,
        method: Cow<'a, str>,
        params: Option<M>,
    },
    /// A notification: it must never be answered.
    Notification {
        method: Cow<'a, str>,
        params: Option<M>,
    },
    /// A request whose id is `null`: see [`Frame::NullId`].
    NullId {
        method: Cow<'a, str>,
        params: Option<M>,
    },
    /// A response: its result, or its error object.
    Response {
        id: Option<RequestId>,
        outcome: Result<M, M>,
    },
    /// A line that is no valid frame.
    Malformed {
        reason: String,
        id: Option<RequestId>,
    },
}

impl<'a> Inbound<'a, &'a Value> {
    /// Classifies a parsed message as [`Frame::from_object`] does, borrowing
    /// its members instead of taking them: `None` when it is no object.
    pub(crate) fn of_value(value: &'a Value) -> Option<Inbound<'a, &'a Value>> {
        let object = value.as_object()?;
        Some(classify(
            object.get("id"),
            object.get("method"),
            object.get("params"),
            object.get("result"),
            object.get("error"),
        ))
    }
}

impl<'a> Inbound<'a, &'a RawValue> {
    /// Classifies one line, borrowing its members; `None` when the line is
    /// no JSON object at all (or not JSON), whose reason the general reader
    /// words.
    pub(crate) fn parse(line: &'a [u8]) -> Option<Inbound<'a, &'a RawValue>> {
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            return None;
        }
        let envelope = serde_json::from_slice::<Envelope<'a>>(line).ok()?;
        Some(classify(
            envelope.id,
            envelope.method,
            envelope.params,
            envelope.result,
            envelope.error,
        ))
    }

    /// The owned frame, with every member read into a [`Value`]; a member
    /// that cannot be (nested deeper than serde_json reads) makes the frame
    /// malformed, keeping its id.
    fn into_frame(self) -> Frame {
        let read = |name: &str, raw: &RawValue| {
            if let Some(why) = too_many_values(raw.get().as_bytes()) {
                return Err(format!("`{name}` cannot be read: {why}"));
            }
            serde_json::from_str::<Value>(raw.get())
                .map_err(|err| format!("`{name}` cannot be read: {err}"))
        };
        match self {
            Inbound::Request { id, method, params } => {
                match params.map(|params| read("params", params)).transpose() {
                    Ok(params) => Frame::Request {
                        id,
                        method: method.into_owned(),
                        params,
                    },
                    Err(reason) => Frame::Malformed {
                        reason,
                        id: Some(id),
                    },
                }
            }
            Inbound::Notification { method, params } => {
                match params.map(|params| read("params", params)).transpose() {
                    Ok(params) => Frame::Notification {
                        method: method.into_owned(),
                        params,
                    },
                    Err(reason) => Frame::Malformed { reason, id: None },
                }
            }
            Inbound::NullId { method, params } => {
                match params.map(|params| read("params", params)).transpose() {
                    Ok(params) => Frame::NullId {
                        method: method.into_owned(),
                        params,
                    },
                    Err(reason) => Frame::Malformed { reason, id: None },
                }
            }
            Inbound::Response { id, outcome } => {
                let outcome = match outcome {
                    Ok(result) => read("result", result).map(Ok),
                    Err(error) => read("error", error).map(|error| Err(parse_rpc_error(&error))),
                };
                match outcome {
                    Ok(outcome) => Frame::Response { id, outcome },
                    Err(reason) => Frame::Malformed { reason, id },
                }
            }
            Inbound::Malformed { reason, id } => Frame::Malformed { reason, id },
        }
    }
}

/// Reads a line that [`Inbound::parse`] could not take as a JSON object,
/// or says in words why it is none.
///
/// The borrowing reader takes every object this one does (it is the more
/// lenient: it skips what it does not classify, without a nesting limit), so
/// in practice this only words the reason.
pub(crate) fn read_object(line: &[u8]) -> Result<Map<String, Value>, String> {
    if let Some(why) = too_many_values(line) {
        return Err(format!("not read: {why}"));
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(format!(
            "expected a JSON object, found {}",
            json_kind(&other)
        )),
        Err(err) => Err(format!("not JSON: {err}")),
    }
}

/// Classifies a frame by the members that are present (`Some`, even when
/// null).
fn classify<'a, M: Member<'a>>(
    raw_id: Option<M>,
    method: Option<M>,
    params: Option<M>,
    result: Option<M>,
    error: Option<M>,
) -> Inbound<'a, M> {
    let id_null = raw_id.as_ref().is_some_and(Member::is_null);
    let read_id = raw_id.as_ref().map(Member::request_id);
    match method.map(Member::text) {
        Some(Ok(method)) => match read_id {
            // JSON-RPC 2.0 §4: only a request without an id is a
            // notification.
            Some(_) if id_null => Inbound::NullId { method, params },
            Some(Ok(id)) => Inbound::Request { id, method, params },
            Some(Err(reason)) => Inbound::Malformed { reason, id: None },
            None => Inbound::Notification { method, params },
        },
        Some(Err(kind)) => Inbound::Malformed {
            reason: format!("`method` is {kind}, not a string"),
            id: read_id.and_then(Result::ok),
        },
        None => {
            let id = read_id.and_then(Result::ok);
            if let Some(result) = result {
                Inbound::Response {
                    id,
                    outcome: Ok(result),
                }
            } else if let Some(error) = error {
                Inbound::Response {
                    id,
                    outcome: Err(error),
                }
            } else {
                Inbound::Malformed {
                    reason: "the object has no `method`".to_owned(),
                    id,
                }
            }
        }
    }
}

/// What classifying a frame needs to know of one of its members, parsed or
/// raw.
trait Member<'a>: Sized {
    /// Whether the member is `null`.
    fn is_null(&self) -> bool;

    /// The member as a request id, or why it is none: only numbers and
    /// strings are ids.
    fn request_id(&self) -> Result<RequestId, String>;

    /// The member's string, or the kind of value it is instead, in words.
    fn text(self) -> Result<Cow<'a, str>, &'static str>;
}

impl<'a> Member<'a> for Value {
    fn is_null(&self) -> bool {
        self.is_null()
    }

    fn request_id(&self) -> Result<RequestId, String> {
        RequestId::from_value(self)
            .ok_or_else(|| "the id is neither a number nor a string".to_owned())
    }

    fn text(self) -> Result<Cow<'a, str>, &'static str> {
        match self {
            Value::String(text) => Ok(Cow::Owned(text)),
            other => Err(json_kind(&other)),
        }
    }
}

impl<'a> Member<'a> for &'a Value {
    fn is_null(&self) -> bool {
        Value::is_null(self)
    }

    fn request_id(&self) -> Result<RequestId, String> {
        RequestId::from_value(self)
            .ok_or_else(|| "the id is neither a number nor a string".to_owned())
    }

    fn text(self) -> Result<Cow<'a, str>, &'static str> {
        match self {
            Value::String(text) => Ok(Cow::Borrowed(text)),
            other => Err(json_kind(other)),
        }
    }
}

impl<'a> Member<'a> for &'a RawValue {
    fn is_null(&self) -> bool {
        self.get() == "null"
    }

    fn request_id(&self) -> Result<RequestId, String> {
        let text = self.get();
        match text.as_bytes().first() {
            Some(b'"') => serde_json::from_str::<String>(text)
                .map(RequestId::string)
                .map_err(|err| format!("the id cannot be read: {err}")),
            Some(b'-' | b'0'..=b'9') => {
                // Integer text in JSON has no leading zeros or plus sign, so
                // it parses as serde_json would read it; `-0` reads as a
                // float.
                let digits = text.strip_prefix('-').unwrap_or(text);
                if digits.bytes().all(|b| b.is_ascii_digit())
                    && text != "-0"
                    && let Ok(n) = text.parse::<i64>()
                {
                    return Ok(RequestId(IdRepr::Integer(n)));
                }
                serde_json::from_str::<Number>(text)
                    .map(|n| RequestId::from_number(&n))
                    .map_err(|err| format!("the id cannot be read: {err}"))
            }
            _ => Err("the id is neither a number nor a string".to_owned()),
        }
    }

    fn text(self) -> Result<Cow<'a, str>, &'static str> {
        let text = self.get();
        if !text.starts_with('"') {
            return Err(raw_kind(self));
        }
        // Without escapes, the string is the line's own bytes.
        if let Ok(borrowed) = serde_json::from_str::<&'a str>(text) {
            return Ok(Cow::Borrowed(borrowed));
        }
        serde_json::from_str::<String>(text)
            .map(Cow::Owned)
            .map_err(|_| "a string that cannot be read")
    }
}

/// The JSON kind of a raw value, in words, from its first byte.
fn raw_kind(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        Some(b'"') => "a string",
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        _ => "a number",
    }
}

/// The members of a frame object that classify it, borrowed from the line:
/// `Some` when present, even when null; a later duplicate replaces an
/// earlier one, as in a parsed object. Other members are skipped unread.
#[derive(Default)]
struct Envelope<'a> {
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Envelope<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC frame object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Envelope<'de>, A::Error> {
                let mut res = Envelope::default();
                while let Some(key) = map.next_key::<Key>()? {
                    let slot = match key {
                        Key::Id => &mut res.id,
                        Key::Method => &mut res.method,
                        Key::Params => &mut res.params,
                        Key::Result => &mut res.result,
                        Key::Error => &mut res.error,
                        Key::Other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(map.next_value()?);
                }
                Ok(res)
            }
        }

        deserializer.deserialize_map(Visitor)
    }
}

/// A member name of a frame object.
enum Key {
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl serde::de::Visitor<'_> for Visitor {
            type Value = Key;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Key, E> {
                Ok(match name {
                    "id" => Key::Id,
                    "method" => Key::Method,
                    "params" => Key::Params,
                    "result" => Key::Result,
                    "error" => Key::Error,
                    _ => Key::Other,
                })
            }
        }

        deserializer.deserialize_identifier(Visitor)
    }
}

/// The error object of a response, as an [`RpcError`]: what it lacks is 0
/// or empty.
pub(crate) fn parse_rpc_error(error: &Value) -> RpcError {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let data = error.get("data").cloned();
    RpcError {
        code: ErrorCode(code),
        message,
        data,
    }
}

/// The JSON kind of a value, in words, for error messages.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A response the server writes, built by its constructors.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    id: Option<RequestId>,
    outcome: Result<Value, RpcError>,
}

impl Response {
    /// A success response.
    pub fn ok(id: RequestId, result: Value) -> Response {
        Response {
            id: Some(id),
            outcome: Ok(result),
        }
    }

    /// An error response. `id` is `None` when the request's id could not be
    /// read; the line then carries `"id": null`, as JSON-RPC 2.0 §5 asks.
    pub fn error(id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> Response {
        Response {
            id,
            outcome: Err(RpcError {
                code,
                message: message.into(),
                data: None,
            }),
        }
    }

    /// Adds `data` to an error response; a no-op on a success response.
    pub fn with_data(mut self, data: Value) -> Response {
        if let Err(error) = &mut self.outcome {
            error.data = Some(data);
        }
        self
    }

    /// The id this response answers.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The result or the error.
    pub fn outcome(&self) -> &Result<Value, RpcError> {
        &self.outcome
    }

    /// The response as one line of compact JSON, without a terminator.
    ///
    /// serde_json escapes control characters inside strings, so the line
    /// never contains a raw newline.
    pub fn to_line(&self) -> String {
        #[derive(Serialize)]
        struct Wire<'a> {
            jsonrpc: &'static str,
            id: Option<&'a RequestId>,
            #[serde(skip_serializing_if = "Option::is_none")]
            result: Option<&'a Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<WireError<'a>>,
        }
        #[derive(Serialize)]
        struct WireError<'a> {
            code: i64,
            message: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            data: Option<&'a Value>,
        }
        let (result, error) = match &self.outcome {
            Ok(result) => (Some(result), None),
            Err(error) => (
                None,
                Some(WireError {
                    code: error.code.0,
                    message: &error.message,
                    data: error.data.as_ref(),
                }),
            ),
        };
        let wire = Wire {
            jsonrpc: "2.0",
            id: self.id.as_ref(),
            result,
            error,
        };
        serde_json::to_string(&wire).expect("a response always serializes")
    }
}

/// A request line, as a client writes it.
pub fn request_line(id: &RequestId, method: &str, params: Option<&Value>) -> String {
    let mut object = Map::with_capacity(4);
    object.insert("jsonrpc".to_owned(), Value::from("2.0"));
    object.insert("id".to_owned(), id.to_value());
    object.insert("method".to_owned(), Value::from(method));
    if let Some(params) = params {
        object.insert("params".to_owned(), params.clone());
    }
    Value::Object(object).to_string()
}

/// A notification line, as a client writes it.
pub fn notification_line(method: &str, params: Option<&Value>) -> String {
    let mut object = Map::with_capacity(3);
    object.insert("jsonrpc".to_owned(), Value::from("2.0"));
    object.insert("method".to_owned(), Value::from(method));
    if let Some(params) = params {
        object.insert("params".to_owned(), params.clone());
    }
    Value::Object(object).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values are counted by the commas, brackets and braces outside
    /// strings, up to the bound; a string's own commas count for nothing.
    #[test]
    fn a_message_is_weighed_by_its_values_before_it_is_read() {
        assert_eq!(
            too_many_values(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            None
        );
        let within = format!("[0{}]", ",0".repeat(MAX_VALUES - 2));
        assert_eq!(too_many_values(within.as_bytes()), None);
        let past = format!("[0{}]", ",0".repeat(MAX_VALUES));
        assert_eq!(too_many_values(past.as_bytes()), Some(TOO_MANY_VALUES));
        let commas_in_a_string = format!(r#"{{"text":"{}\",\\"}}"#, ",".repeat(MAX_VALUES * 2));
        assert_eq!(too_many_values(commas_in_a_string.as_bytes()), None);
        assert!(TOO_MANY_VALUES.contains(&MAX_VALUES.to_string()));
        // Nothing of it is read: the frame is malformed, with the reason.
        let frame = Frame::parse(past.as_bytes());
        assert!(
            matches!(&frame, Frame::Malformed { reason, .. } if reason.contains(TOO_MANY_VALUES)),
            "{frame:?}"
        );
        let request = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"m","params":{past}}}"#);
        assert!(matches!(
            Frame::parse(request.as_bytes()),
            Frame::Malformed { id: Some(_), .. }
        ));
    }
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn request_with_number_id() {
        let frame = Frame::parse(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
        assert_eq!(
            frame,
            Frame::Request {
                id: RequestId::number(7),
                method: "ping".into(),
                params: None
            }
        );
    }

    /// JSON-RPC 2.0 §4: only a missing id makes a notification; MCP allows
    /// no null id, so a null one makes an invalid request.
    #[test]
    fn null_id_is_neither_a_request_nor_a_notification() {
        let frame = Frame::parse(br#"{"jsonrpc":"2.0","id":null,"method":"ping","params":{}}"#);
        assert_eq!(
            frame,
            Frame::NullId {
                method: "ping".into(),
                params: Some(json!({}))
            }
        );
        assert!(!frame.is_notification() && !frame.is_request());
        // Without a method it is still what it was: a response, or no frame.
        assert!(matches!(
            Frame::parse(br#"{"jsonrpc":"2.0","id":null,"result":{}}"#),
            Frame::Response { id: None, .. }
        ));
        assert!(matches!(
            Frame::parse(br#"{"jsonrpc":"2.0","id":null,"method":7}"#),
            Frame::Malformed { id: None, .. }
        ));
    }

    #[test]
    fn absent_id_is_a_notification() {
        let frame = Frame::parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(frame.is_notification());
    }

    #[test]
    fn object_without_method_is_malformed_and_keeps_its_id() {
        let frame = Frame::parse(br#"{"jsonrpc":"2.0","id":3}"#);
        assert_eq!(
            frame,
            Frame::Malformed {
                reason: "the object has no `method`".into(),
                id: Some(RequestId::number(3))
            }
        );
    }

    #[test]
    fn non_json_and_non_utf8_are_malformed() {
        assert!(matches!(Frame::parse(b"hello"), Frame::Malformed { .. }));
        assert!(matches!(
            Frame::parse(b"\xff\xfe{"),
            Frame::Malformed { .. }
        ));
        assert!(matches!(Frame::parse(b"[1,2]"), Frame::Malformed { .. }));
        assert!(matches!(Frame::parse(b""), Frame::Malformed { .. }));
    }

    #[test]
    fn bool_id_is_malformed() {
        let frame = Frame::parse(br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#);
        assert!(matches!(frame, Frame::Malformed { id: None, .. }));
    }

    #[test]
    fn ids_keep_their_json_type() {
        assert_eq!(RequestId::number(7).to_string(), "7");
        assert_eq!(RequestId::string("7").to_string(), "\"7\"");
        assert_ne!(RequestId::number(7), RequestId::string("7"));
        let big = RequestId::from_value(&json!(1.5)).unwrap();
        assert_eq!(big.to_value(), json!(1.5));
    }

    #[test]
    fn ids_serialize_as_they_came() {
        for text in [
            "7",
            "-3",
            "0",
            "18446744073709551615",
            "1.5",
            "1e3",
            r#""7""#,
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            let id = RequestId::from_value(&value).unwrap();
            assert_eq!(serde_json::to_value(&id).unwrap(), value, "{text}");
        }
    }

    /// An id read from the line's text equals the id read from the parsed
    /// value, whatever form the number takes.
    #[test]
    fn ids_read_from_text_equal_ids_read_from_values() {
        for text in [
            "0",
            "-0",
            "7",
            "-9223372036854775808",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "1.0",
            "1e0",
            "1E2",
            "-1.5e-3",
            r#""7""#,
            r#""a\"b\u00e9""#,
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"m"}}"#);
            let Frame::Request { id, .. } = Frame::parse(line.as_bytes()) else {
                panic!("{line}");
            };
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(Some(&id), RequestId::from_value(&value).as_ref(), "{text}");
            assert_eq!(serde_json::to_value(&id).unwrap(), value, "{text}");
        }
        let line = br#"{"jsonrpc":"2.0","id":1e400,"method":"m"}"#;
        assert!(
            matches!(Frame::parse(line), Frame::Malformed { id: None, ref reason } if reason.starts_with("the id cannot be read")),
            "{:?}",
            Frame::parse(line)
        );
    }

    /// A frame whose params nest deeper than serde_json reads into a value
    /// is malformed, but keeps its id, so an error can echo it.
    #[test]
    fn params_nested_too_deep_keep_the_id() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let line = format!(r#"{{"jsonrpc":"2.0","id":"d","method":"m","params":{deep}}}"#);
        match Frame::parse(line.as_bytes()) {
            Frame::Malformed { reason, id } => {
                assert_eq!(id, Some(RequestId::string("d")));
                assert!(
                    reason.starts_with("`params` cannot be read: recursion limit"),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn response_lines() {
        let ok = Response::ok(RequestId::string("a"), json!({}));
        assert_eq!(ok.to_line(), r#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
        let err = Response::error(None, ErrorCode::PARSE_ERROR, "parse error");
        assert_eq!(
            err.to_line(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#
        );
    }

    fn arb_member() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            Just(json!(1.5)),
            prop_oneof![Just("ping"), Just(""), Just("7"), Just("tools/call")]
                .prop_map(Value::from),
            Just(json!({"code": -32601, "message": "m"})),
            Just(json!([1, {"a": null}])),
        ]
    }

    fn arb_key() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("id"),
            Just("method"),
            Just("params"),
            Just("result"),
            Just("error"),
            Just("jsonrpc"),
            Just("other"),
        ]
    }

    proptest! {
        /// The fast path classifies every object, duplicate members and
        /// whitespace included, exactly as the general path does.
        #[test]
        fn parse_agrees_with_from_object(
            members in prop::collection::vec((arb_key(), arb_member()), 0..8),
            pad in prop_oneof![Just(""), Just(" "), Just("\t\r ")],
        ) {
            let body: Vec<String> = members
                .iter()
                .map(|(key, value)| format!("{}:{value}", Value::from(*key)))
                .collect();
            let line = format!("{pad}{{{}}}{pad}", body.join(","));
            let object: Map<String, Value> = serde_json::from_str(&line).unwrap();
            prop_assert_eq!(Frame::parse(line.as_bytes()), Frame::from_object(object));
        }
    }

    #[test]
    fn non_objects_keep_their_reasons() {
        let reason = |line: &[u8]| match Frame::parse(line) {
            Frame::Malformed { reason, .. } => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            reason(br#"["id", "ping"]"#),
            "expected a JSON object, found an array"
        );
        assert_eq!(
            reason(b"{\"id\": 1,"),
            "not JSON: EOF while parsing a value at line 1 column 9"
        );
    }

    #[test]
    fn response_frames_parse() {
        let frame =
            Frame::parse(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#);
        match frame {
            Frame::Response {
                id,
                outcome: Err(e),
            } => {
                assert_eq!(id, Some(RequestId::number(1)));
                assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
