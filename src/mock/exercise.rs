//! The built-in scenario `exercise`: a server that puts a host through
//! every duty the host laws name, in whichever era the host speaks.
//!
//! Legacy (`initialize`): once the host says `notifications/initialized`,
//! the server asks what the host declared it can do (`roots/list`,
//! `sampling/createMessage`, `elicitation/create` from 2025-06-18), then
//! `ping`s it, then announces `notifications/tools/list_changed`.
//! 2026-07-28 (a request with `_meta`): `server/discover`, cache hints on
//! every list, `tools/call ask` answered `input_required` (asking for the
//! input the request's capabilities declare, with a `requestState`) until
//! it is retried with that state, and `subscriptions/listen`, acknowledged
//! and followed by a list change on the stream.
//! In both eras the tools are `echo` (answers at once), `ask` and `slow`,
//! which answers only when the host cancels it or ends its input: a call
//! for the host to cancel. At end of input every request still open is
//! answered, as a lawful server answers.
//!
//! Every line goes through the [`Transport`], so `mock`'s judge sees the
//! session as the host does.

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::jsonrpc::{ErrorCode, Frame, RequestId, method};
use crate::revision::{Revision, meta};
use crate::server::era::{self, Session};
use crate::server::{Transport, TransportError};

/// The names `mcp-replay mock` knows as built-in scenarios.
pub const SCENARIOS: &[&str] = &["exercise"];

/// The server's name, as it answers `initialize` and `server/discover`.
const NAME: &str = "mcp-replay-exercise";

/// One session of the scenario.
#[derive(Debug)]
pub(crate) struct Exercise {
    session: Session,
    /// The host's declared capabilities, from `initialize`.
    capabilities: Value,
    next_id: u64,
    /// `slow` calls (and listen streams) waiting: the id, and whether it
    /// is a stream.
    held: Vec<(RequestId, bool)>,
    states: u64,
}

/// The tools, as `tools/list` lists them.
fn tools() -> Value {
    let text = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let empty = json!({"type": "object", "properties": {}});
    json!([
        {"name": "ask", "description": "Asks the host for input: on 2026-07-28 an input_required answer to retry; before it, the input is asked when the session opens", "inputSchema": empty},
        {"name": "echo", "description": "Answers its text at once", "inputSchema": text},
        {"name": "slow", "description": "Answers only when cancelled (then never) or at the end of input: a call for the host to cancel", "inputSchema": empty},
    ])
}

impl Exercise {
    pub(crate) fn new() -> Exercise {
        Exercise {
            session: Session::Undecided,
            capabilities: json!({}),
            next_id: 0,
            held: Vec::new(),
            states: 0,
        }
    }

    /// Serves the host at the other end of `transport` until its input
    /// ends, then answers what is still open.
    pub(crate) fn serve(&mut self, transport: &mut impl Transport) -> Result<(), TransportError> {
        let mut line = Vec::with_capacity(4096);
        while transport.read_line(&mut line)? {
            self.line(&line, transport)?;
        }
        for (id, stream) in std::mem::take(&mut self.held) {
            let result = if stream {
                json!({"resultType": "complete", "_meta": {meta::SUBSCRIPTION_ID: id.to_value()}})
            } else {
                text_result("the end of input came before a cancellation")
            };
            transport.write_line(&answer(&id, result))?;
        }
        transport.flush()
    }

    fn line(&mut self, line: &[u8], transport: &mut impl Transport) -> Result<(), TransportError> {
        match Frame::parse(line) {
            Frame::Request { id, method, params } => self.request(id, &method, params, transport),
            Frame::Notification { method, params } => {
                self.notification(&method, params.as_ref(), transport)
            }
            Frame::NullId { .. } => transport.write_line(&error(
                None,
                ErrorCode::INVALID_REQUEST,
                crate::jsonrpc::NULL_ID_MESSAGE,
                None,
            )),
            // The host's answers are the judge's to judge.
            Frame::Response { .. } => Ok(()),
            Frame::Malformed { reason, id } => transport.write_line(&error(
                id.as_ref(),
                ErrorCode::PARSE_ERROR,
                &format!("parse error: {reason}"),
                None,
            )),
        }
    }

    fn request(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        transport: &mut impl Transport,
    ) -> Result<(), TransportError> {
        let raw = params
            .as_ref()
            .and_then(|params| serde_json::value::to_raw_value(params).ok());
        let raw: Option<&RawValue> = raw.as_deref();
        if self.session == Session::Undecided
            && method != method::INITIALIZE
            && era::speaks_modern(method, raw)
        {
            self.session = Session::Modern;
        }
        if self.session == Session::Modern {
            let checked = if method == method::INITIALIZE {
                Err(era::initialize_refused(raw))
            } else {
                era::check_modern(raw)
            };
            match checked {
                Ok(_) => return self.modern(id, method, params.as_ref(), transport),
                Err(refusal) => {
                    return transport.write_line(&error(
                        Some(&id),
                        refusal.code,
                        &refusal.message,
                        refusal.data.as_ref(),
                    ));
                }
            }
        }
        self.legacy(id, method, params.as_ref(), transport)
    }

    fn legacy(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<&Value>,
        transport: &mut impl Transport,
    ) -> Result<(), TransportError> {
        let result = match method {
            method::INITIALIZE => {
                let requested = params
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str);
                let revision = requested
                    .and_then(Revision::parse)
                    .filter(|revision| !revision.is_modern())
                    .unwrap_or(Revision::LATEST_LEGACY);
                self.session = Session::Legacy(revision);
                self.capabilities = params
                    .and_then(|p| p.get("capabilities"))
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                json!({
                    "protocolVersion": revision.as_str(),
                    "capabilities": {"tools": {"listChanged": true}},
                    "serverInfo": {"name": NAME, "version": env!("CARGO_PKG_VERSION")},
                    "instructions": "mcp-replay's exercise of a host: call `echo`, cancel `slow`, and answer what the server asks",
                })
            }
            method::PING => json!({}),
            method::TOOLS_LIST => json!({"tools": tools()}),
            method::TOOLS_CALL => {
                let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
                match name {
                    Some("echo") => {
                        let text = params
                            .and_then(|p| p.get("arguments"))
                            .and_then(|a| a.get("text"))
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        text_result(text)
                    }
                    Some("ask") => text_result("the input was asked for when the session opened"),
                    Some("slow") => {
                        self.held.push((id, false));
                        return Ok(());
                    }
                    _ => {
                        return transport.write_line(&error(
                            Some(&id),
                            ErrorCode::INVALID_PARAMS,
                            "unknown tool: the tools are `ask`, `echo` and `slow`",
                            None,
                        ));
                    }
                }
            }
            _ => {
                return transport.write_line(&error(
                    Some(&id),
                    ErrorCode::METHOD_NOT_FOUND,
                    &format!("method not found: {method}"),
                    None,
                ));
            }
        };
        transport.write_line(&answer(&id, result))
    }

    /// A request of the stateless revision, its `_meta` checked.
    fn modern(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<&Value>,
        transport: &mut impl Transport,
    ) -> Result<(), TransportError> {
        let server_info = json!({"name": NAME, "version": env!("CARGO_PKG_VERSION")});
        let complete = |mut result: Value| {
            result["resultType"] = json!("complete");
            result["_meta"] = json!({ meta::SERVER_INFO: server_info.clone() });
            result
        };
        let cacheable = |result: Value| {
            let mut result = complete(result);
            result["ttlMs"] = json!(0);
            result["cacheScope"] = json!("public");
            result
        };
        let result = match method {
            method::SERVER_DISCOVER => {
                let mut supported = era::modern_revisions();
                supported.extend(Revision::LEGACY.iter().rev().map(|r| r.as_str()));
                cacheable(json!({
                    "supportedVersions": supported,
                    "capabilities": {"tools": {"listChanged": true}},
                }))
            }
            method::TOOLS_LIST => cacheable(json!({"tools": tools()})),
            method::SUBSCRIPTIONS_LISTEN => {
                let asked = params
                    .and_then(|p| p.get("notifications"))
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                let tools_changed = asked.get("toolsListChanged") == Some(&json!(true));
                let accepted = if tools_changed {
                    json!({"toolsListChanged": true})
                } else {
                    json!({})
                };
                let stream = json!({ meta::SUBSCRIPTION_ID: id.to_value() });
                transport.write_line(&notification(
                    "notifications/subscriptions/acknowledged",
                    json!({"notifications": accepted, "_meta": stream}),
                ))?;
                if tools_changed {
                    transport.write_line(&notification(
                        method::TOOLS_LIST_CHANGED,
                        json!({"_meta": stream}),
                    ))?;
                }
                self.held.push((id, true));
                return Ok(());
            }
            method::TOOLS_CALL => {
                let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
                match name {
                    Some("echo") => {
                        let text = params
                            .and_then(|p| p.get("arguments"))
                            .and_then(|a| a.get("text"))
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        complete(text_result(text))
                    }
                    Some("ask") => match params.and_then(|p| p.get("requestState")) {
                        Some(_) => complete(text_result("thank you for the input")),
                        None => self.input_required(params),
                    },
                    Some("slow") => {
                        self.held.push((id, false));
                        return Ok(());
                    }
                    _ => {
                        return transport.write_line(&error(
                            Some(&id),
                            ErrorCode::INVALID_PARAMS,
                            "unknown tool: the tools are `ask`, `echo` and `slow`",
                            None,
                        ));
                    }
                }
            }
            _ => {
                return transport.write_line(&error(
                    Some(&id),
                    ErrorCode::METHOD_NOT_FOUND,
                    &format!("method not found: {method}"),
                    None,
                ));
            }
        };
        transport.write_line(&answer(&id, result))
    }

    /// The first answer to `ask` on 2026-07-28: the input the request's
    /// capabilities declare, and a state to echo.
    fn input_required(&mut self, params: Option<&Value>) -> Value {
        let declared = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let mut requests = serde_json::Map::new();
        if declared.get("elicitation").is_some() {
            requests.insert("name".to_owned(), elicitation());
        }
        if declared.get("sampling").is_some() {
            requests.insert(
                "summary".to_owned(),
                json!({"method": "sampling/createMessage", "params": sampling()}),
            );
        }
        if declared.get("roots").is_some() {
            requests.insert("roots".to_owned(), json!({"method": "roots/list"}));
        }
        self.states += 1;
        let mut result = json!({
            "resultType": "input_required",
            "requestState": format!("exercise-state-{}", self.states),
        });
        if !requests.is_empty() {
            result["inputRequests"] = Value::Object(requests);
        }
        result
    }

    fn notification(
        &mut self,
        method: &str,
        params: Option<&Value>,
        transport: &mut impl Transport,
    ) -> Result<(), TransportError> {
        match method {
            method::INITIALIZED => {
                if let Session::Legacy(revision) = self.session {
                    self.exercise(revision, transport)?;
                }
            }
            method::CANCELLED => {
                let id = params
                    .and_then(|p| p.get("requestId"))
                    .and_then(RequestId::from_value);
                if let Some(id) = id {
                    // A cancelled call is never answered.
                    self.held.retain(|(held, _)| *held != id);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The legacy exercise: what the host declared it can do, asked for;
    /// then a ping; then a list change.
    fn exercise(
        &mut self,
        revision: Revision,
        transport: &mut impl Transport,
    ) -> Result<(), TransportError> {
        let capabilities = self.capabilities.clone();
        let declared = |name: &str| capabilities.get(name).is_some_and(Value::is_object);
        if declared("roots") {
            self.ask(transport, "roots/list", None)?;
        }
        if declared("sampling") {
            self.ask(transport, "sampling/createMessage", Some(sampling()))?;
        }
        if declared("elicitation") && revision >= Revision::V2025_06_18 {
            let params = elicitation()["params"].clone();
            self.ask(transport, "elicitation/create", Some(params))?;
        }
        self.ask(transport, method::PING, None)?;
        transport.write_line(&notification(method::TOOLS_LIST_CHANGED, Value::Null))
    }

    fn ask(
        &mut self,
        transport: &mut impl Transport,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), TransportError> {
        self.next_id += 1;
        let id = RequestId::string(format!("exercise-{}", self.next_id));
        let mut line = json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method});
        if let Some(params) = params {
            line["params"] = params;
        }
        transport.write_line(line.to_string().as_bytes())
    }
}

/// The params of the scenario's `sampling/createMessage`.
fn sampling() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello to mcp-replay."}}],
        "maxTokens": 16,
    })
}

/// The scenario's `elicitation/create`, as an input request.
fn elicitation() -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": "What is your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    })
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

fn answer(id: &RequestId, result: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result})
        .to_string()
        .into_bytes()
}

fn notification(method: &str, params: Value) -> Vec<u8> {
    let mut line = json!({"jsonrpc": "2.0", "method": method});
    if !params.is_null() {
        line["params"] = params;
    }
    line.to_string().into_bytes()
}

fn error(id: Option<&RequestId>, code: ErrorCode, message: &str, data: Option<&Value>) -> Vec<u8> {
    let mut error = json!({"code": code.0, "message": message});
    if let Some(data) = data {
        error["data"] = data.clone();
    }
    json!({
        "jsonrpc": "2.0",
        "id": id.map_or(Value::Null, RequestId::to_value),
        "error": error,
    })
    .to_string()
    .into_bytes()
}
