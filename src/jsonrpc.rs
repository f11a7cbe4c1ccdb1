//! JSON-RPC 2.0 frames as MCP uses them over stdio: one JSON object per line.
//!
//! This room is shared by both halves of the crate. The server core classifies
//! inbound lines with [`Frame::parse`] and builds its answers with
//! [`Response`]; the checker uses the same types to read what a server under
//! test writes. Nothing here does I/O.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The id of a request: a JSON number or string, kept exactly as received.
///
/// `Display` keeps `7` and `"7"` apart, because a response must echo the id
/// with its JSON type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestId(IdRepr);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum IdRepr {
    /// The number's JSON text, so that `1`, `1.0` and `1e0` stay distinct.
    Number(String),
    String(String),
}

impl RequestId {
    /// An integer id.
    pub fn number(n: i64) -> RequestId {
        RequestId(IdRepr::Number(n.to_string()))
    }

    /// A string id.
    pub fn string(s: impl Into<String>) -> RequestId {
        RequestId(IdRepr::String(s.into()))
    }

    /// Reads an id from a JSON value: numbers and strings are ids; anything
    /// else (null, bool, array, object) is not.
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::Number(n) => Some(RequestId(IdRepr::Number(n.to_string()))),
            Value::String(s) => Some(RequestId(IdRepr::String(s.clone()))),
            _ => None,
        }
    }

    /// The id as a JSON value, for echoing it in a response.
    pub fn to_value(&self) -> Value {
        match &self.0 {
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
            IdRepr::Number(text) => f.write_str(text),
            IdRepr::String(s) => write!(f, "{}", Value::String(s.clone())),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Every answer echoes an id, so the common cases skip re-parsing the
        // number's text into a `Value`; integer text is already canonical.
        match &self.0 {
            IdRepr::String(s) => serializer.serialize_str(s),
            IdRepr::Number(text) => {
                if let Ok(n) = text.parse::<i64>() {
                    serializer.serialize_i64(n)
                } else if let Ok(n) = text.parse::<u64>() {
                    serializer.serialize_u64(n)
                } else {
                    self.to_value().serialize(serializer)
                }
            }
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

/// One inbound line, classified.
///
/// Classification follows MCP-CORE r1 §1¶08-10: an `id` that is present and
/// not null makes a request; an absent or null `id` makes a notification; a
/// line that is not a JSON object, or an object without `method` (and not a
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
        // The fast path reads the five members that classify a frame straight
        // into a struct, skipping the others, without building the object. A
        // line it cannot take (not an object, duplicate members, not JSON)
        // goes the general way, which also words the reason.
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first == Some(&b'{')
            && let Ok(envelope) = serde_json::from_slice::<Envelope>(line)
        {
            return Frame::classify(
                envelope.id,
                envelope.method,
                envelope.params,
                envelope.result,
                envelope.error,
            );
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(object)) => Frame::from_object(object),
            Ok(other) => Frame::Malformed {
                reason: format!("expected a JSON object, found {}", json_kind(&other)),
                id: None,
            },
            Err(err) => Frame::Malformed {
                reason: format!("not JSON: {err}"),
                id: None,
            },
        }
    }

    /// Classifies an already parsed JSON object.
    pub fn from_object(mut object: Map<String, Value>) -> Frame {
        Frame::classify(
            object.remove("id"),
            object.remove("method"),
            object.remove("params"),
            object.remove("result"),
            object.remove("error"),
        )
    }

    /// Classifies a frame by the members that are present (`Some`, even when
    /// null).
    fn classify(
        raw_id: Option<Value>,
        method: Option<Value>,
        params: Option<Value>,
        result: Option<Value>,
        error: Option<Value>,
    ) -> Frame {
        let id_present = matches!(raw_id, Some(ref v) if !v.is_null());
        let id = raw_id.as_ref().and_then(RequestId::from_value);
        match method {
            Some(Value::String(method)) => {
                if !id_present {
                    Frame::Notification { method, params }
                } else if let Some(id) = id {
                    Frame::Request { id, method, params }
                } else {
                    Frame::Malformed {
                        reason: "the id is neither a number nor a string".to_owned(),
                        id: None,
                    }
                }
            }
            Some(other) => Frame::Malformed {
                reason: format!("`method` is {}, not a string", json_kind(&other)),
                id,
            },
            None => {
                if let Some(result) = result {
                    Frame::Response {
                        id,
                        outcome: Ok(result),
                    }
                } else if let Some(error) = error {
                    Frame::Response {
                        id,
                        outcome: Err(parse_rpc_error(error)),
                    }
                } else {
                    Frame::Malformed {
                        reason: "the object has no `method`".to_owned(),
                        id,
                    }
                }
            }
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

/// The members of a frame object that classify it; `Some` when present,
/// even when null. Other members are skipped unread.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// A member that is present, null included.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

fn parse_rpc_error(error: Value) -> RpcError {
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

    #[test]
    fn null_id_is_a_notification() {
        let frame =
            Frame::parse(br#"{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled"}"#);
        assert!(frame.is_notification());
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
