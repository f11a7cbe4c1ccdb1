//! The main probe session: a whole conversation with one server process,
//! from `initialize` to a cancellation, one law after another.
//!
//! The order matters only in that the riskiest steps come last: a server
//! that dies on a cancellation has answered everything else first.

use serde_json::{Value, json};

use crate::jsonrpc::{ErrorCode, PROTOCOL_2024_11_05, RequestId, method, notification_line};
use crate::laws::{LawId, Profile, Severity};
use crate::revision::{Era, Revision};

use super::lifecycle;
use super::session::{Answer, Init, Session, describe, error_words, short};
use super::tools::{self, Listing, is_error_result, tool_error_is_result};
use super::{Ledger, Negotiated};

/// The laws that need a tool list.
pub(super) const TOOL_LAWS: &[LawId] = &[
    LawId::ToolsListSorted,
    LawId::ToolsListValid,
    LawId::InvalidParams,
    LawId::UnknownTool,
    LawId::ToolErrorIsResult,
];

/// The laws this session probes after `initialize`.
const AFTER_INITIALIZE: &[LawId] = &[
    LawId::NotificationUnanswered,
    LawId::Ping,
    LawId::UnknownMethod,
    LawId::CapabilitiesHonest,
    LawId::ToolsListSorted,
    LawId::ToolsListValid,
    LawId::InvalidParams,
    LawId::UnknownTool,
    LawId::ToolErrorIsResult,
    LawId::RequestAnsweredOnce,
    LawId::CancelTolerated,
    LawId::ParseErrorKeepsServing,
];

pub(super) fn run(mut s: Session<'_>) -> Ledger {
    s.ledger.era = Some(crate::revision::Era::Legacy);
    let init = initialize(&mut s);
    let Some(init) = init else {
        let reason = s.dead().map_or_else(
            || "initialize failed at step `initialize`".to_owned(),
            str::to_owned,
        );
        for law in AFTER_INITIALIZE {
            s.ledger.skip(*law, reason.clone());
        }
        // A server that refused `initialize` (a modern-only server) and
        // still runs owes end of input all the same, in stateless requests;
        // one that could not be opened has it skipped here, and probed on a
        // session of its own unless it wrote nothing at all.
        if s.ledger.refused.is_some() {
            lifecycle::eof_tail(&mut s);
        } else {
            s.ledger.skip(LawId::EofDrains, reason.clone());
            s.ledger.skip(LawId::EofExitZero, reason);
        }
        return s.finish();
    };
    notifications(&mut s);
    let finished = ping(&mut s);
    unknown_method(&mut s);
    // MCP-CORE makes invalid arguments an isError result in every
    // revision; the spec profile asks it from 2025-11-25 on, which the
    // SIGTERM session negotiates for it.
    let tool_errors = s.ledger.profile() == Profile::Core;
    tool_laws(&mut s, &init, tool_errors);
    string_id(&mut s);
    cancellations(&mut s, finished);
    // Last: a server that a malformed line kills has answered everything
    // else first. The notifications it sent after one count too.
    lifecycle::malformed(&mut s);
    honest_notifications(&mut s, &init);
    // End of input ends the session: what was sent before is all answered
    // by now, and a server a malformed line ended gets a session of its
    // own for it (see `probes::run`).
    lifecycle::eof_tail(&mut s);
    s.finish()
}

/// The tool laws of an open session, in whichever era it speaks (each
/// request through [`Session::params`]): `capabilities-honest` for the
/// lists `init` declares, then `tools-list-valid` and `tools-list-sorted`,
/// `invalid-params`, `unknown-tool`, and with `tool_errors` (the profile or
/// the revision makes invalid arguments an isError result)
/// `tool-error-is-result`. A server that serves no tool list has the tool
/// laws skipped with its answer.
pub(super) fn tool_laws(s: &mut Session<'_>, init: &Init, tool_errors: bool) {
    let listing = tool_list(s, init);
    other_capabilities(s, init);
    match &listing {
        Ok(listing) => {
            invalid_params(s, listing);
            unknown_tool(s, listing);
            if tool_errors {
                tool_error_is_result(s, listing);
            }
        }
        Err(reason) => {
            for law in TOOL_LAWS {
                s.ledger.skip(*law, reason.clone());
            }
        }
    }
}

/// `initialize`: the result names the revision, the server and its
/// capabilities.
fn initialize(s: &mut Session<'_>) -> Option<Init> {
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
                    crate::check::wire::quoted(revision.as_bytes())
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
        s.ledger.fail(law, &step, problem);
    }
    s.ledger.held(law);
    init
}

/// `notification-unanswered`: `notifications/initialized` and an unknown
/// notification get no response.
fn notifications(s: &mut Session<'_>) {
    let law = LawId::NotificationUnanswered;
    let cases = [
        (method::INITIALIZED, None),
        ("notifications/mcp-replay/probe", Some(json!({}))),
    ];
    for (name, params) in cases {
        if !unanswered(s, law, name, params.as_ref()) {
            return;
        }
    }
    s.ledger.held(law);
}

/// Sends the notification `name` behind a fence, at a step of its own:
/// whatever comes back for it answers it, a finding of `law`. Returns
/// `false` when the session cannot go on.
pub(super) fn unanswered(
    s: &mut Session<'_>,
    law: LawId,
    name: &str,
    params: Option<&Value>,
) -> bool {
    let step = s.step(format!("ping after {name}"));
    let line = notification_line(name, params);
    let Some(strays) = s.fenced(law, &[line]) else {
        return false;
    };
    for stray in strays {
        s.ledger.fail(
            law,
            &step,
            format!("answered the notification {name} with {}", describe(&stray)),
        );
    }
    true
}

/// `ping` answers `{}`. Returns the ping's id: a finished request to cancel
/// later.
fn ping(s: &mut Session<'_>) -> Option<RequestId> {
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
fn unknown_method(s: &mut Session<'_>) {
    let law = LawId::UnknownMethod;
    let name = "mcp-replay/no-such-method";
    let step = s.step(format!("request for the unknown method {name}"));
    match s.call(law, name, Some(json!({}))) {
        None => {}
        Some(Err(error)) if error.code == ErrorCode::METHOD_NOT_FOUND => s.ledger.held(law),
        // The method was refused, with the wrong code: Python SDK v1 servers
        // answer -32602 for any method they do not know. The spec profile
        // passes official-SDK servers, so it only warns.
        Some(Err(error)) if s.ledger.profile() == Profile::Spec => s.ledger.fail_as(
            law,
            Severity::Warning,
            &step,
            format!(
                "answered {}; JSON-RPC's code for an unknown method is -32601",
                error_words(&error)
            ),
        ),
        // Under core, an error with another code is the spec's warning.
        Some(answer @ Err(_)) => s.ledger.fail_core_only(
            law,
            &step,
            format!("answered {}; expected error -32601", answer_words(&answer)),
        ),
        Some(answer) => s.ledger.fail(
            law,
            &step,
            format!("answered {}; expected error -32601", answer_words(&answer)),
        ),
    }
}

/// The tool list, twice: `capabilities-honest` for tools, `tools-list-valid`
/// and `tools-list-sorted`. `Err` says why the tool laws cannot be probed.
fn tool_list(s: &mut Session<'_>, init: &Init) -> Result<Listing, String> {
    let step = s.step("tools/list");
    let declared = init.declares("tools");
    let listing = match tools::list(s, LawId::ToolsListValid) {
        None => {
            return Err(s.dead().unwrap_or("tools/list got no answer").to_owned());
        }
        Some(Err(error)) => {
            if declared {
                s.ledger.fail(
                    LawId::CapabilitiesHonest,
                    &step,
                    format!(
                        "declares the tools capability, but tools/list answered {}",
                        error_words(&error)
                    ),
                );
            }
            return Err(format!(
                "the server serves no tools (tools/list answered error {})",
                error.code
            ));
        }
        Some(Ok(listing)) => listing,
    };
    // Tools that are served must be declared: that is part of the
    // handshake. An empty list hides nothing, so leaving it undeclared is
    // only dishonest.
    let declared_in = init.declared_in();
    match listing.tools.len() {
        _ if declared => {}
        0 => s.ledger.fail(
            LawId::CapabilitiesHonest,
            &step,
            format!("serves tools/list, but its {declared_in} declares no tools capability"),
        ),
        n => s.ledger.fail(
            init.opening,
            &step,
            format!(
                "serves {n} tool{} in tools/list, but its {declared_in} declares no tools capability",
                if n == 1 { "" } else { "s" }
            ),
        ),
    }
    for problem in tools::validate(&listing) {
        s.ledger.fail(LawId::ToolsListValid, &step, problem);
    }
    if listing.pages > 1 {
        unknown_cursor(s);
    }
    s.ledger.held(LawId::ToolsListValid);

    let law = LawId::ToolsListSorted;
    let rule = Revision::deterministic_tool_order;
    if s.ledger.profile() == Profile::Spec && !Revision::named_where(&init.revision, rule) {
        let since = Revision::first_where(rule).unwrap_or(Revision::LATEST);
        s.ledger.skip(
            law,
            format!(
                "the server negotiated revision {}; the spec asks a stable tool order from {since} on",
                crate::check::wire::quoted(init.revision.as_bytes())
            ),
        );
        return Ok(listing);
    }
    let names = listing.names();
    if s.ledger.profile() == Profile::Core {
        let mut sorted = names.clone();
        sorted.sort();
        if sorted != names {
            s.ledger.fail(
                law,
                &step,
                format!("tools/list is not sorted by name: {}", names.join(", ")),
            );
        }
        s.ledger.held(law);
    }
    let step = s.step("tools/list again");
    if let Some(Ok(again)) = tools::list(s, law) {
        let again = again.names();
        let same_set = {
            let (mut a, mut b) = (names.clone(), again.clone());
            a.sort();
            b.sort();
            a == b
        };
        // The order must be the same as long as the set is: a server that
        // changed its tools in between may reorder them.
        if same_set {
            if again != names {
                s.ledger.fail(
                    law,
                    &step,
                    format!(
                        "the same tools came back in another order: {} then {}",
                        names.join(", "),
                        again.join(", ")
                    ),
                );
            }
            s.ledger.held(law);
        } else {
            s.ledger
                .skip(law, "the tool set changed between two tools/list calls");
        }
    }
    Ok(listing)
}

/// A cursor the server never issued, to a server that paginates.
const UNKNOWN_CURSOR: &str = "mcp-replay-probe-unknown-cursor";

/// `tools-list-valid`: a server that paginates answers a cursor it never
/// issued with an error (-32602 by the pagination page's SHOULD), not with
/// a page, which a client cannot tell from the first. A SHOULD: a warning
/// under both profiles. A server whose list fits one page issues no
/// cursor and is not asked.
fn unknown_cursor(s: &mut Session<'_>) {
    let law = LawId::ToolsListValid;
    let step = s.step(format!(
        "tools/list with the unknown cursor {UNKNOWN_CURSOR:?}"
    ));
    let params = s.params(Some(json!({ "cursor": UNKNOWN_CURSOR })));
    if let Some(Ok(_)) = s.call(law, method::TOOLS_LIST, params) {
        s.ledger.fail_as(
            law,
            Severity::Warning,
            &step,
            "answered a page to a cursor it never issued, which a client cannot tell from a first page; an invalid cursor should get error -32602",
        );
    }
}

/// A resource URI no server has, for `invalid-params`.
const NO_SUCH_RESOURCE: &str = "mcp-replay-probe://no-such-resource";

/// `capabilities-honest` for the other capabilities a server may declare:
/// their methods are served (not -32601). Prompts: `prompts/list`, and
/// `prompts/get` of the first listed prompt that needs no argument.
/// Resources: `resources/list`, `resources/templates/list`, and
/// `resources/read` of the first listed resource, which must be read (the
/// server listed it); and under `invalid-params`, `resources/read` of a
/// URI the server does not have is an error, not a result (2026-07-28:
/// -32602, a MUST; before it -32002 by the resources page's example, so a
/// result is a warning under `spec`). The results' shapes are the
/// schema's.
fn other_capabilities(s: &mut Session<'_>, init: &Init) {
    let law = LawId::CapabilitiesHonest;
    let not_served = |s: &mut Session<'_>, step: &str, capability: &str, name: &str| {
        s.ledger.fail(
            law,
            step,
            format!(
                "declares the {capability} capability, but {name} is not served (error -32601)"
            ),
        );
    };
    let call = |s: &mut Session<'_>, capability: &str, name: &str, extra: Option<Value>| {
        let step = s.step(name);
        let params = s.params(extra);
        let answer = s.call(law, name, params);
        if let Some(Err(error)) = &answer
            && error.code == ErrorCode::METHOD_NOT_FOUND
        {
            not_served(s, &step, capability, name);
            return None;
        }
        answer
    };
    if init.declares("prompts")
        && let Some(Ok(listed)) = call(s, "prompts", "prompts/list", None)
        && let Some(prompt) = listed
            .get("prompts")
            .and_then(Value::as_array)
            .and_then(|prompts| {
                prompts.iter().find(|prompt| {
                    !prompt
                        .get("arguments")
                        .and_then(Value::as_array)
                        .is_some_and(|arguments| {
                            arguments
                                .iter()
                                .any(|a| a.get("required") == Some(&Value::Bool(true)))
                        })
                })
            })
            .and_then(|prompt| prompt.get("name"))
            .and_then(Value::as_str)
    {
        let prompt = prompt.to_owned();
        call(
            s,
            "prompts",
            "prompts/get",
            Some(json!({"name": prompt, "arguments": {}})),
        );
    }
    if !init.declares("resources") {
        return;
    }
    let listed = call(s, "resources", "resources/list", None);
    call(s, "resources", "resources/templates/list", None);
    let uri = listed
        .as_ref()
        .and_then(|answer| answer.as_ref().ok())
        .and_then(|result| result.get("resources"))
        .and_then(Value::as_array)
        .and_then(|resources| resources.first())
        .and_then(|resource| resource.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(uri) = uri {
        let step = s.step(format!("resources/read of the listed {uri}"));
        let params = s.params(Some(json!({ "uri": uri })));
        match s.call(law, "resources/read", params) {
            Some(Err(error)) if error.code == ErrorCode::METHOD_NOT_FOUND => {
                not_served(s, &step, "resources", "resources/read");
            }
            Some(Err(error)) => s.ledger.fail(
                law,
                &step,
                format!(
                    "lists the resource {uri}, but reading it answered {}",
                    error_words(&error)
                ),
            ),
            _ => {}
        }
    }
    unknown_resource(s, init);
}

/// `invalid-params`: `resources/read` of a URI the server does not have.
fn unknown_resource(s: &mut Session<'_>, init: &Init) {
    let law = LawId::InvalidParams;
    let step = s.step(format!("resources/read of the unknown {NO_SUCH_RESOURCE}"));
    let params = s.params(Some(json!({ "uri": NO_SUCH_RESOURCE })));
    let modern = Revision::parse(&init.revision).is_some_and(|r| r.era() == Era::Modern);
    match s.call(law, "resources/read", params) {
        Some(Ok(result)) => {
            let message = format!(
                "answered the result {}; a resource the server does not have is an error ({})",
                short(&result),
                if modern { "-32602" } else { "-32002" }
            );
            if modern || s.ledger.profile() == Profile::Core {
                s.ledger.fail(law, &step, message);
            } else {
                s.ledger.fail_as(law, Severity::Warning, &step, message);
            }
        }
        Some(Err(error)) if modern && error.code != ErrorCode::INVALID_PARAMS => {
            s.ledger.fail_as(
                law,
                Severity::Warning,
                &step,
                format!(
                    "answered {}; 2026-07-28 makes a resource not found error -32602",
                    error_words(&error)
                ),
            );
        }
        _ => {}
    }
}

/// `invalid-params`: `tools/call` without a name, and with arguments that
/// are no object, get -32602; spec only warns on another error code.
fn invalid_params(s: &mut Session<'_>, listing: &Listing) {
    let law = LawId::InvalidParams;
    let tool = listing.names().into_iter().next();
    let mut cases = vec![(
        "tools/call without a name".to_owned(),
        json!({"arguments": {}}),
    )];
    if let Some(tool) = tool {
        cases.push((
            format!("tools/call {tool} with arguments that are a string"),
            json!({"name": tool, "arguments": "not an object"}),
        ));
    }
    let core = s.ledger.profile() == Profile::Core;
    for (step, params) in cases {
        let step = s.step(step);
        let params = s.params(Some(params));
        match s.call(law, method::TOOLS_CALL, params) {
            None => return,
            Some(Err(error)) if error.code == ErrorCode::INVALID_PARAMS => {}
            // The spec asks a protocol error without naming the code; the
            // TypeScript SDK answers -32603.
            Some(Err(error)) if !core => s.ledger.fail_as(
                law,
                Severity::Warning,
                &step,
                format!(
                    "answered {}; JSON-RPC's code for invalid params is -32602",
                    error_words(&error)
                ),
            ),
            // Under core, an error with another code is the spec's warning.
            Some(answer @ Err(_)) => s.ledger.fail_core_only(
                law,
                &step,
                format!("answered {}; expected error -32602", answer_words(&answer)),
            ),
            Some(answer) => s.ledger.fail(
                law,
                &step,
                format!("answered {}; expected error -32602", answer_words(&answer)),
            ),
        }
    }
    s.ledger.held(law);
}

/// `unknown-tool`: calling a tool that is not listed is a JSON-RPC error;
/// core asks -32601, spec any code, and only warns on an isError result.
fn unknown_tool(s: &mut Session<'_>, listing: &Listing) {
    let law = LawId::UnknownTool;
    let names = listing.names();
    let mut tool = "mcp-replay-no-such-tool".to_owned();
    while names.contains(&tool) {
        tool.push('-');
    }
    let step = s.step(format!("tools/call of the unknown tool {tool}"));
    let core = s.ledger.profile() == Profile::Core;
    let params = s.params(Some(json!({"name": tool, "arguments": {}})));
    match s.call(law, method::TOOLS_CALL, params) {
        None => {}
        Some(Err(error)) if !core || error.code == ErrorCode::METHOD_NOT_FOUND => {}
        // Any code holds under spec.
        Some(Err(error)) => s.ledger.fail_core_only(
            law,
            &step,
            format!(
                "answered {}; MCP-CORE asks -32601",
                error_words(&error)
            ),
        ),
        Some(Ok(result)) if is_error_result(&result) && !core => s.ledger.fail_as(
            law,
            Severity::Warning,
            &step,
            "answered an isError result, as the Python and TypeScript v1 SDKs do; the spec asks a JSON-RPC error",
        ),
        // Under core, the isError result the spec only warns on.
        Some(Ok(result)) if is_error_result(&result) => s.ledger.fail_core_only(
            law,
            &step,
            format!(
                "answered the result {}; expected a JSON-RPC error -32601",
                short(&result)
            ),
        ),
        Some(Ok(result)) => s.ledger.fail(
            law,
            &step,
            format!(
                "answered the result {}; expected a JSON-RPC error{}",
                short(&result),
                if core { " -32601" } else { "" }
            ),
        ),
    }
    s.ledger.held(law);
}

/// `request-answered-once` with a string id: the answer echoes it as a
/// string. (Duplicates and unsolicited responses are caught all along.)
fn string_id(s: &mut Session<'_>) {
    let law = LawId::RequestAnsweredOnce;
    s.step("ping with a string id");
    let id = s.string_id();
    if s.call_with(law, id, method::PING, None).is_some() {
        s.ledger.held(law);
    }
}

/// `cancel-tolerated`: cancelling an id never sent, and one already
/// answered, gets no reply and no crash.
fn cancellations(s: &mut Session<'_>, finished: Option<RequestId>) {
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

/// `capabilities-honest` for what the server sent on its own: log messages
/// only with `logging`, list changes only with `tools.listChanged`.
pub(super) fn honest_notifications(s: &mut Session<'_>, init: &Init) {
    let law = LawId::CapabilitiesHonest;
    let step = "notifications the server sent".to_owned();
    let sent = |s: &Session<'_>, name: &str| s.notifications().get(name).copied().unwrap_or(0);
    let logs = sent(s, method::LOG_MESSAGE);
    if logs > 0 && !init.declares("logging") {
        s.ledger.fail(
            law,
            &step,
            format!("sent {logs} notifications/message without declaring the logging capability"),
        );
    }
    let changes = sent(s, "notifications/tools/list_changed");
    let promised = init.capabilities.pointer("/tools/listChanged") == Some(&Value::Bool(true));
    if changes > 0 && !promised {
        s.ledger.fail(
            law,
            &step,
            format!("sent {changes} notifications/tools/list_changed without declaring tools.listChanged"),
        );
    }
    s.ledger.held(law);
}

/// An answer in words, for messages.
fn answer_words(answer: &Answer) -> String {
    match answer {
        Ok(result) => format!("the result {}", short(result)),
        Err(error) => error_words(error),
    }
}
