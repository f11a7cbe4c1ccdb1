//! Answer lines as they go on the wire: results, errors, and the id an
//! error carries when the request's could not be read.

use serde::Serialize;
use serde_json::Value;

use super::capture::EndedRun;
use super::era::{Refusal, Session};
use super::transport::ServeError;
use crate::jsonrpc::{ErrorCode, RequestId};

/// The id of an error answer as it goes on the wire.
#[derive(Debug, Clone, Copy)]
pub(super) enum WireId<'a> {
    /// The request's id, echoed.
    Id(&'a RequestId),
    /// `"id": null`.
    Null,
    /// No `id` member.
    Absent,
}

impl WireId<'_> {
    fn is_absent(&self) -> bool {
        matches!(self, WireId::Absent)
    }
}

impl Serialize for WireId<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            WireId::Id(id) => id.serialize(serializer),
            WireId::Null | WireId::Absent => serializer.serialize_unit(),
        }
    }
}

/// An error answer as one line, written into `line`.
pub(super) fn error_line(
    id: WireId<'_>,
    code: ErrorCode,
    message: &str,
    data: Option<&Value>,
    mut line: Vec<u8>,
) -> Vec<u8> {
    #[derive(Serialize)]
    struct Wire<'a> {
        jsonrpc: &'static str,
        #[serde(skip_serializing_if = "WireId::is_absent")]
        id: WireId<'a>,
        error: WireError<'a>,
    }
    #[derive(Serialize)]
    struct WireError<'a> {
        code: i64,
        message: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<&'a Value>,
    }
    let wire = Wire {
        jsonrpc: "2.0",
        id,
        error: WireError {
            code: code.0,
            message,
            data,
        },
    };
    serde_json::to_writer(&mut line, &wire).expect("an error always serializes");
    line
}

/// An answer line, and the capture of the run behind it when putting the
/// capture away can wait until the answer is out.
pub(super) struct Answer<'c> {
    pub line: Vec<u8>,
    pub live: Option<EndedRun<'c>>,
    /// Why serving cannot go on once the answer is out: fd 2 could not be
    /// put back after the run.
    pub failure: Option<ServeError>,
}

impl Answer<'_> {
    pub fn line(line: Vec<u8>) -> Answer<'static> {
        Answer {
            line,
            live: None,
            failure: None,
        }
    }
}

/// The parse error (-32700) that answers a line that is no frame, with the
/// id when one could be read, else the id form the session's revision
/// takes ([`Session::unknown_id_absent`]).
pub(super) fn parse_error(
    id: Option<RequestId>,
    session: Session,
    reason: &str,
    buf: Vec<u8>,
) -> Answer<'static> {
    let unknown = if session.unknown_id_absent() {
        WireId::Absent
    } else {
        WireId::Null
    };
    let id = id.as_ref().map_or(unknown, WireId::Id);
    let message = format!("parse error: {reason}");
    Answer::line(error_line(id, ErrorCode::PARSE_ERROR, &message, None, buf))
}

/// The invalid request (-32600) that answers a request whose id is `null`
/// (see [`Frame::NullId`](crate::Frame::NullId)): with `"id": null`, the
/// request's own id, in every revision (JSON-RPC 2.0 §5.1).
pub(super) fn null_id(buf: Vec<u8>) -> Answer<'static> {
    Answer::line(error_line(
        WireId::Null,
        ErrorCode::INVALID_REQUEST,
        crate::jsonrpc::NULL_ID_MESSAGE,
        None,
        buf,
    ))
}

/// -32601 for `method`.
pub(super) fn method_not_found(id: &RequestId, method: &str, buf: Vec<u8>) -> Vec<u8> {
    let message = format!("method not found: {method}");
    error_line(
        WireId::Id(id),
        ErrorCode::METHOD_NOT_FOUND,
        &message,
        None,
        buf,
    )
}

/// The error answering a refused request.
pub(super) fn refusal_line(id: &RequestId, refusal: &Refusal, buf: Vec<u8>) -> Vec<u8> {
    error_line(
        WireId::Id(id),
        refusal.code,
        &refusal.message,
        refusal.data.as_ref(),
        buf,
    )
}

/// A success answer as one line, serialized straight from `result` into
/// `line`.
pub(super) fn result_line(id: &RequestId, result: &impl Serialize, mut line: Vec<u8>) -> Vec<u8> {
    #[derive(Serialize)]
    struct Wire<'a, T> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        result: &'a T,
    }
    let wire = Wire {
        jsonrpc: "2.0",
        id,
        result,
    };
    serde_json::to_writer(&mut line, &wire).expect("a result always serializes");
    line
}
