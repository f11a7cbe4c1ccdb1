//! The steps of the legacy conversation that only it has: `initialize`,
//! notifications, `ping`, an unknown method, a string id, cancellations.
//! The suite (`suite.rs`) declares the conversation, with the steps it
//! shares with other sessions (`steps.rs`).

use serde_json::{Value, json};

use crate::jsonrpc::{ErrorCode, PROTOCOL_2024_11_05, RequestId, method, notification_line};
use crate::laws::{LawId, Profile};

use super::Negotiated;
use super::session::{Init, Session, describe, error_words, short};
use super::steps;

/// `initialize`: the result names the revision, the server and its
/// capabilities.
pub(super) fn initialize(s: &mut Session<'_>) -> Option<Init> {
    let law = LawId::Initialize;
    let step = s.step("initialize");
    let answer = s.initialize(law, PROTOCOL_2024_11_05);
    // Lines that were no protocol message before the first response are
    // still part of the start.
    let noise = s.take_pre_serving();
    if let Some(first) = &noise.first {
        s.ledger.fail(
            LawId::QuietBeforeServing,
            &step,
            format!(
                "wrote on stdout before its first response: {first}{}",
                noise.in_all()
            ),
        );
    }
    let (answer, init) = answer?;
    let result = match answer {
        Ok(result) => result,
        Err(error) => {
            s.ledger.fail(
                law,
                &step,
                format!("initialize answered {}", error_words(&error)),
            );
            // Kept for the era verdict: a modern-only server refuses it.
            // The process is left running for end of input.
            s.ledger.refused = Some(error);
            return None;
        }
    };
    let mut problems = Vec::new();
    match result.get("protocolVersion") {
        Some(Value::String(revision)) => {
            s.ledger.negotiated.push(Negotiated {
                requested: PROTOCOL_2024_11_05.to_owned(),
                answered: revision.clone(),
                step: step.clone(),
            });
            if s.ledger.profile() == Profile::Core && revision != PROTOCOL_2024_11_05 {
                problems.push(format!(
                    "answered revision {} to a request for \"{PROTOCOL_2024_11_05}\", \
                     which MCP-CORE answers",
                    crate::jsonrpc::wire::quoted(revision.as_bytes())
                ));
            } else if revision.is_empty() {
                problems.push("answered an empty `protocolVersion`".to_owned());
            }
        }
        _ => problems.push("the result has no string `protocolVersion`".to_owned()),
    }
    let info = result.get("serverInfo");
    for field in ["name", "version"] {
        if !info
            .and_then(|info| info.get(field))
            .is_some_and(Value::is_string)
        {
            problems.push(format!("`serverInfo` has no string `{field}`"));
        }
    }
    if !result.get("capabilities").is_some_and(Value::is_object) {
        problems.push("the result has no `capabilities` object".to_owned());
    }
    for problem in problems {
        let echo = problem.starts_with("answered revision");
        s.ledger.fail(law, &step, problem);
        if echo {
            s.ledger.names("srv-init-same-version");
        }
    }
    s.ledger.held(law);
    init
}

/// `notification-unanswered`: `notifications/initialized` and an unknown
/// notification get no response.
pub(super) fn notifications(s: &mut Session<'_>) {
    let law = LawId::NotificationUnanswered;
    let cases = [
        (method::INITIALIZED, None),
        ("notifications/mcp-replay/probe", Some(json!({}))),
    ];
    for (name, params) in cases {
        if !steps::unanswered(s, law, name, params.as_ref()) {
            return;
        }
    }
    s.ledger.held(law);
}

/// `ping` answers `{}`. Returns the ping's id: a finished request to cancel
/// later.
pub(super) fn ping(s: &mut Session<'_>) -> Option<RequestId> {
    let law = LawId::Ping;
    let step = s.step("ping");
    let id = s.number_id();
    match s.call_with(law, id.clone(), method::PING, None)? {
        Ok(result) if is_empty_result(&result) => s.ledger.held(law),
        Ok(result) => s.ledger.fail(
            law,
            &step,
            format!("ping answered {}; expected {{}}", short(&result)),
        ),
        Err(error) => s.ledger.fail(
            law,
            &step,
            format!("ping answered {}; expected {{}}", error_words(&error)),
        ),
    }
    Some(id)
}

/// An empty result; `_meta` is allowed in every result.
fn is_empty_result(result: &Value) -> bool {
    result
        .as_object()
        .is_some_and(|object| object.keys().all(|key| key == "_meta"))
}

/// `unknown-method`: a method nobody serves gets -32601.
pub(super) fn unknown_method(s: &mut Session<'_>) {
    let law = LawId::UnknownMethod;
    let name = "mcp-replay/no-such-method";
    let step = s.step(format!("request for the unknown method {name}"));
    match s.call(law, name, Some(json!({}))) {
        None => {}
        Some(Err(error)) if error.code == ErrorCode::METHOD_NOT_FOUND => s.ledger.held(law),
        // The method was refused, with the wrong code: Python SDK v1 servers
        // answer -32602 for any method they do not know. The spec profile
        // passes official-SDK servers, so it only warns.
        Some(answer) => steps::not_the_code(s, law, &step, &answer, ErrorCode::METHOD_NOT_FOUND),
    }
}

/// `request-answered-once` with a string id: the answer echoes it as a
/// string. (Duplicates and unsolicited responses are caught all along.)
pub(super) fn string_id(s: &mut Session<'_>) {
    let law = LawId::RequestAnsweredOnce;
    s.step("ping with a string id");
    let id = s.string_id();
    if s.call_with(law, id, method::PING, None).is_some() {
        s.ledger.held(law);
    }
}

/// `cancel-tolerated`: cancelling an id never sent, and one already
/// answered, gets no reply and no crash.
pub(super) fn cancellations(s: &mut Session<'_>, finished: Option<RequestId>) {
    let law = LawId::CancelTolerated;
    let step = s.step("ping after notifications/cancelled for unknown and finished requests");
    let cancel = |id: Value| {
        notification_line(
            method::CANCELLED,
            Some(&json!({"requestId": id, "reason": "mcp-replay probe"})),
        )
    };
    let mut lines = vec![cancel(json!(999_999))];
    if let Some(finished) = finished {
        lines.push(cancel(finished.to_value()));
    }
    let Some(strays) = s.fenced(law, &lines) else {
        return;
    };
    for stray in strays {
        s.ledger.fail(
            law,
            &step,
            format!("answered a cancellation with {}", describe(&stray)),
        );
    }
    s.ledger.held(law);
}
