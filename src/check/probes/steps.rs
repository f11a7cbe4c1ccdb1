//! The steps the probe scripts share, on a floor of their own between the
//! session and the scripts: the tool laws and the lists a server declares,
//! spoken in either era; notifications that must go unanswered; malformed
//! input; end of input at the end of an open session; and the version
//! negotiation probe, which the modern session's process carries for a
//! legacy server.

use std::time::Instant;

use serde_json::{Value, json};

use crate::client::duration::after;
use crate::jsonrpc::{ErrorCode, RequestId, RpcError, method, notification_line};
use crate::laws::{LawId, Profile, Severity};
use crate::process::shell_status;
use crate::revision::{Era, Revision};

use super::session::{
    Answer, Init, Session, Strays, answer_words, describe, error_words, seconds, short,
};
use super::tools::{self, Listing, is_error_result, tool_error_is_result};
use super::{Ledger, Negotiated};

/// The laws this session probes as the legacy conversation does, in
/// 2026-07-28: the tool laws and `capabilities-honest`. They are graded
/// in each era a server speaks; for a modern-only server this session's
/// verdict replaces the legacy sessions' skips (see `era.rs`).
pub(super) const CONVERSATION_LAWS: &[LawId] = &[
    LawId::CapabilitiesHonest,
    LawId::ToolsListSorted,
    LawId::ToolsListValid,
    LawId::InvalidParams,
    LawId::UnknownTool,
    LawId::ToolErrorIsResult,
];

/// The tool list, twice: `capabilities-honest` for tools, `tools-list-valid`
/// and `tools-list-sorted`. `Err` says why the tool laws cannot be probed.
pub(super) fn tool_list(s: &mut Session<'_>, init: &Init) -> Result<Listing, String> {
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
                s.ledger.names("srv-tools-capability-declared");
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
    if !declared {
        s.ledger.names("srv-tools-capability-declared");
    }
    for (problem, should) in tools::validate(&listing) {
        let requirement = if problem.contains("listed twice") {
            "srv-tools-name-unique"
        } else if problem.starts_with("page ") || problem.starts_with("pagination") {
            "srv-pagination-stable-cursors"
        } else {
            "srv-tools-input-schema-object"
        };
        // A SHOULD of the specification (a name listed twice) is a
        // warning under spec.
        if should && s.ledger.profile() == Profile::Spec {
            s.ledger
                .fail_as(LawId::ToolsListValid, Severity::Warning, &step, problem);
        } else {
            s.ledger.fail(LawId::ToolsListValid, &step, problem);
        }
        s.ledger.names(requirement);
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
                "{}; the spec asks a stable tool order from {since} on",
                init.negotiation()
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
pub(super) const UNKNOWN_CURSOR: &str = "mcp-replay-probe-unknown-cursor";

/// `tools-list-valid`: a server that paginates answers a cursor it never
/// issued with an error (-32602 by the pagination page's SHOULD), not with
/// a page, which a client cannot tell from the first. A SHOULD: a warning
/// under both profiles. A server whose list fits one page issues no
/// cursor and is not asked.
pub(super) fn unknown_cursor(s: &mut Session<'_>) {
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
        s.ledger.names("srv-pagination-invalid-cursor");
    }
}

/// A resource URI no server has, for `invalid-params`.
pub(super) const NO_SUCH_RESOURCE: &str = "mcp-replay-probe://no-such-resource";

/// `invalid-params`: `resources/read` of a URI the server does not have.
pub(super) fn unknown_resource(s: &mut Session<'_>, init: &Init) {
    let law = LawId::InvalidParams;
    let step = s.step(format!("resources/read of the unknown {NO_SUCH_RESOURCE}"));
    let params = s.params(Some(json!({ "uri": NO_SUCH_RESOURCE })));
    let modern = Revision::parse(&init.revision).is_some_and(|r| r.era() == Era::Modern);
    let requirement = match modern {
        true => "srv-resources-read-unknown-32602",
        false => "srv-resources-read-unknown-error",
    };
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
            s.ledger.names(requirement);
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
            s.ledger.names(requirement);
        }
        _ => {}
    }
}

/// An answer that is not the error `expected` JSON-RPC names for it: an
/// error with another code is a warning under `spec` (the spec asks a
/// protocol error and names no code; SDK servers answer others) and a
/// `core`-only error; a result is an error under both.
pub(super) fn not_the_code(
    s: &mut Session<'_>,
    law: LawId,
    step: &str,
    answer: &Answer,
    expected: ErrorCode,
) {
    let what = match expected {
        ErrorCode::INVALID_PARAMS => "invalid params",
        ErrorCode::METHOD_NOT_FOUND => "an unknown method",
        _ => "this error",
    };
    match answer {
        Err(error) if s.ledger.profile() == Profile::Spec => s.ledger.fail_as(
            law,
            Severity::Warning,
            step,
            format!(
                "answered {}; JSON-RPC's code for {what} is {}",
                error_words(error),
                expected.0
            ),
        ),
        _ => {
            let message = format!(
                "answered {}; expected error {}",
                answer_words(answer),
                expected.0
            );
            // Under core, an error with another code is the spec's warning.
            if answer.is_err() {
                s.ledger.fail_core_only(law, step, message);
            } else {
                s.ledger.fail(law, step, message);
            }
        }
    }
}

/// `invalid-params`: `tools/call` without a name, and with arguments that
/// are no object, get -32602; spec only warns on another error code.
pub(super) fn invalid_params(s: &mut Session<'_>, listing: &Listing) {
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
    for (step, params) in cases {
        let step = s.step(step);
        let params = s.params(Some(params));
        match s.call(law, method::TOOLS_CALL, params) {
            None => return,
            Some(Err(error)) if error.code == ErrorCode::INVALID_PARAMS => {}
            // The spec asks a protocol error without naming the code; the
            // TypeScript SDK answers -32603.
            Some(answer) => not_the_code(s, law, &step, &answer, ErrorCode::INVALID_PARAMS),
        }
    }
    s.ledger.held(law);
}

/// `unknown-tool`: calling a tool that is not listed is a JSON-RPC error;
/// core asks -32601, spec any code, and only warns on an isError result.
pub(super) fn unknown_tool(s: &mut Session<'_>, listing: &Listing) {
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

/// `capabilities-honest` for what the server sent on its own: log messages
/// only with `logging`, list changes only with the `listChanged` of their
/// list, resource updates only with `resources.subscribe`. (On 2026-07-28
/// the list changes of a promised `listChanged` come on a listen stream,
/// which `modern.rs` holds them to.)
pub(super) fn honest_notifications(s: &mut Session<'_>, init: &Init) {
    let law = LawId::CapabilitiesHonest;
    let step = "notifications the server sent".to_owned();
    let notifications = s.notifications();
    let sent = |name: &str| notifications.get(name).copied().unwrap_or(0);
    let logs = sent(method::LOG_MESSAGE);
    if logs > 0 && !init.declares("logging") {
        s.ledger.fail(
            law,
            &step,
            format!("sent {logs} notifications/message without declaring the logging capability"),
        );
        s.ledger.names("srv-logging-capability");
    }
    for list in ["tools", "prompts", "resources"] {
        let name = format!("notifications/{list}/list_changed");
        let changes = sent(&name);
        let promised =
            init.capabilities.pointer(&format!("/{list}/listChanged")) == Some(&Value::Bool(true));
        if changes > 0 && !promised {
            s.ledger.fail(
                law,
                &step,
                format!("sent {changes} {name} without declaring {list}.listChanged"),
            );
        }
    }
    let updates = sent("notifications/resources/updated");
    let subscribe = init.capabilities.pointer("/resources/subscribe") == Some(&Value::Bool(true));
    if updates > 0 && !subscribe {
        s.ledger.fail(
            law,
            &step,
            format!(
                "sent {updates} notifications/resources/updated without declaring resources.subscribe"
            ),
        );
        s.ledger.names("srv-resources-updated-subscribed");
    }
    let floor = s.watched().log_floor;
    match floor {
        Some(_) if s.watched().logs_after_floor > 0 => {}
        Some(_) => s.miss(
            "srv-logging-respects-level",
            "the server sent no log message after logging/setLevel",
        ),
        None if init.declares("logging") => s.miss(
            "srv-logging-respects-level",
            "logging/setLevel was not answered with a result",
        ),
        None => s.miss(
            "srv-logging-respects-level",
            "the server does not declare the `logging` capability",
        ),
    }
    s.ledger.held(law);
}

/// How many tools [`valid_call`] calls at most, looking for one that
/// succeeds.
const MAX_VALID_CALLS: usize = 3;

/// The requirements only a successful `tools/call` shows.
pub(super) const SUCCESSFUL_CALL: &[&str] = &[
    "srv-tools-result-content",
    "srv-tools-output-schema",
    "srv-progress-known-token",
    "srv-progress-increases",
    "srv-progress-stops",
];

/// `schema` for a successful `tools/call`: a tool called with arguments
/// its inputSchema accepts (the simplest, as fuzz draws them first), so
/// that a complete result is held to `CallToolResult` (its `content`, each
/// block's type, its `structuredContent` against the tool's
/// `outputSchema`), which the other probes' failing calls never reach.
/// Each call carries a progress token, so that what progress the server
/// reports is held to it.
///
/// A tool is run for real only where that is allowed: the tools named
/// with `--tool`, whatever their annotations say, or without it only the
/// tools annotated `readOnlyHint: true`, as fuzz calls them by default.
/// Where none may be called, what only a successful call shows is not
/// observed, and the reason names `--tool`. The calls stop at the first
/// result that is no `isError` one. A tool that does not answer in time
/// ends the session without a finding: it may just be slow at its work.
pub(super) fn valid_call(s: &mut Session<'_>, tools: &[Value], revision: &str) {
    let named = s.options().tools.clone();
    let allowed = |tool: &Value, name: &str| match named.is_empty() {
        true => tool.pointer("/annotations/readOnlyHint") == Some(&json!(true)),
        false => named.iter().any(|named| named == name),
    };
    let candidates: Vec<(String, Value, bool)> = tools
        .iter()
        .filter_map(|tool| {
            let name = tool.get("name")?.as_str()?;
            let schema = tool
                .get("inputSchema")
                .filter(|schema| schema.is_object())?;
            if !allowed(tool, name) {
                return None;
            }
            let arguments = crate::schema::valid_arguments(schema, name)?;
            let structured = tool.get("outputSchema").is_some_and(Value::is_object);
            Some((name.to_owned(), arguments, structured))
        })
        .collect();
    if candidates.is_empty() {
        let why = match named.is_empty() {
            true => "no tool may be called: none is annotated readOnlyHint: true; name one with --tool to call it".to_owned(),
            false => format!(
                "no tool named with --tool ({}) is listed with an inputSchema to draw its arguments from",
                named.join(", ")
            ),
        };
        for id in SUCCESSFUL_CALL {
            s.miss(id, why.clone());
        }
        return;
    }
    let progress_before = s.watched().progress_seen;
    let mut succeeded = None;
    let mut asked_input = false;
    for (index, (name, arguments, structured)) in
        candidates.into_iter().take(MAX_VALID_CALLS).enumerate()
    {
        s.step(format!(
            "tools/call of `{name}` with valid arguments {}",
            short(&arguments)
        ));
        let request = json!({"name": name, "arguments": arguments});
        let mut params = s.params(Some(request.clone())).unwrap_or_else(|| json!({}));
        let token = json!(format!("mcp-replay-progress-{}", index + 1));
        match params.get_mut("_meta").and_then(Value::as_object_mut) {
            Some(request_meta) => {
                request_meta.insert(crate::revision::meta::PROGRESS_TOKEN.to_owned(), token);
            }
            None => params["_meta"] = json!({ crate::revision::meta::PROGRESS_TOKEN: token }),
        }
        match s.call_or_stop(LawId::Schema, method::TOOLS_CALL, Some(params)) {
            Some(Ok(result)) if asks_for_input(&result) => {
                input_required(s, method::TOOLS_CALL, &request, &result);
                succeeded = Some(structured);
                asked_input = true;
                break;
            }
            Some(Ok(result)) if !is_error_result(&result) => {
                succeeded = Some(structured);
                break;
            }
            Some(_) => {}
            None => break,
        }
    }
    // Progress a server sends after its answer comes in before the
    // answer to a request behind the call, and is judged at this step.
    if succeeded.is_some() && s.dead().is_none() {
        s.step("ping after the call, for the progress that may follow its answer");
        let _ = s.fenced(LawId::RequestAnsweredOnce, &[]);
    }
    match succeeded {
        None => {
            for id in &SUCCESSFUL_CALL[..2] {
                s.miss(
                    id,
                    "no call of a tool allowed to run succeeded: each answered an isError result or an error, or none answered",
                );
            }
        }
        Some(false) => s.miss(
            "srv-tools-output-schema",
            "the tool called declares no outputSchema",
        ),
        Some(true) if !Revision::named_where(revision, Revision::structured_output) => s.miss(
            "srv-tools-output-schema",
            format!("the revision answered, {revision}, has no structured output"),
        ),
        Some(true) => {}
    }
    if !asked_input {
        s.miss(
            "srv-mrtr-fields",
            "no call asked for input (an input_required result)",
        );
    }
    if s.watched().progress_seen == progress_before {
        for id in &SUCCESSFUL_CALL[2..] {
            s.miss(
                id,
                "the server sent no progress for the calls' progress tokens",
            );
        }
    }
}

/// A revision no server supports, for version negotiation.
pub(super) const UNSUPPORTED_REVISION: &str = "1900-01-01";

/// `parse-error-keeps-serving`: a line that is not JSON, and a JSON object
/// that is no frame, do not end the loop. Core also asks error -32700 with
/// id null; spec accepts silence, -32700 or -32600 and fails only on a crash
/// or a hang.
///
/// The conversation runs it last, so that a server a malformed line kills
/// has answered everything else first.
pub(super) fn malformed(s: &mut Session<'_>) {
    let law = LawId::ParseErrorKeepsServing;
    if !s.alive_for(law) {
        return;
    }
    let cases = [
        ("a line that is not JSON", "this is not JSON {"),
        (
            "a JSON object with no method",
            r#"{"jsonrpc":"2.0","params":{}}"#,
        ),
    ];
    for (what, line) in cases {
        let step = s.step(format!("ping after {what}"));
        let Some(strays) = s.fenced(law, &[line.to_owned()]) else {
            break;
        };
        grade_parse_replies(&mut s.ledger, &step, &strays);
    }
    s.ledger.held(law);
}

pub(super) fn grade_parse_replies(ledger: &mut Ledger, step: &str, strays: &Strays) {
    let law = LawId::ParseErrorKeepsServing;
    let core = ledger.profile() == Profile::Core;
    // Every failure under core below is the spec's silence or warning.
    if strays.is_empty() && core {
        ledger.fail_core_only(
            law,
            step,
            "no reply to a malformed line; MCP-CORE asks error -32700 with id null",
        );
    }
    if strays.len() > 1 {
        let severity = if core {
            Severity::Error
        } else {
            Severity::Warning
        };
        ledger.fail_as(
            law,
            severity,
            step,
            format!("{} replies to one malformed line", strays.len()),
        );
    }
    for stray in strays {
        let code = stray.answer.as_ref().err().map(|error| error.code);
        let accepted = stray.id.is_none()
            && match code {
                Some(ErrorCode::PARSE_ERROR) => true,
                Some(ErrorCode::INVALID_REQUEST) => !core,
                _ => false,
            };
        if accepted {
            continue;
        }
        if core {
            ledger.fail_core_only(
                law,
                step,
                format!(
                    "answered {}; MCP-CORE asks error -32700 with id null",
                    describe(stray)
                ),
            );
        } else {
            ledger.fail_as(
                law,
                Severity::Warning,
                step,
                format!(
                    "answered {}; expected silence, or error -32700 or -32600 without an id",
                    describe(stray)
                ),
            );
        }
    }
}

/// `eof-drains` at the end of an open session: three requests sent right
/// before stdin closes are all answered before the process exits; with
/// `stateless` (a modern-only server, whose `initialize` was refused)
/// 2026-07-28 requests, whose every answer drains. Requests of the session
/// still unanswered before (a cancelled one) do not count. How the process
/// then ends is `eof-exit-zero`'s, judged with nothing pending
/// ([`eof_idle`]): a server that answers and never exits keeps this law.
///
/// Whether a request still in flight when stdin closes is answered can be
/// a race inside the server, its exit against its own handlers (the
/// Python SDK cancels the work in flight when its read loop ends), which
/// the machine's scheduling decides from one run to the next. The probe
/// removes the checker's part of it: the same three requests are sent
/// first with stdin open. A server that does not answer them then (it
/// holds requests back until more input comes) drops them at end of
/// input whatever the scheduling: a finding. One that answers them at
/// once, and then leaves some of the same three unanswered when stdin
/// closes right behind them before it exits, lost them to that race: the
/// law is not judged on this run, and the reason names the race.
pub(super) fn eof_pending(s: &mut Session<'_>, stateless: bool) {
    let drains = LawId::EofDrains;
    if !s.alive_for(drains) {
        return;
    }
    let three = |s: &mut Session<'_>| {
        let mut lines = Vec::new();
        let mut ids = Vec::new();
        for name in [method::PING, method::TOOLS_LIST, method::PING] {
            let id = s.number_id();
            let (name, params) = if stateless {
                (
                    method::TOOLS_LIST,
                    Some(super::session::modern_params(serde_json::json!({}))),
                )
            } else {
                (name, None)
            };
            ids.push(id.clone());
            lines.push(s.request_with(id, name, params));
        }
        (lines, ids)
    };
    let grace = s.grace();
    s.step("three requests sent back to back, stdin open");
    let (lines, ids) = three(s);
    s.send_lines(&lines);
    s.drain_until(after(Instant::now(), grace), Some(&ids));
    let held_back: Vec<RequestId> = ids
        .iter()
        .filter(|id| s.pending().contains(id))
        .cloned()
        .collect();
    let step = s.step("three requests sent right before stdin closed");
    let ids = match held_back.is_empty() {
        true => {
            let (lines, ids) = three(s);
            s.send_lines(&lines);
            ids
        }
        // What was held back is what stdin now closes on.
        false => held_back.clone(),
    };
    s.process().close_stdin();
    let deadline = after(Instant::now(), grace);
    s.drain_until(deadline, Some(&ids));
    let unanswered: Vec<String> = ids
        .iter()
        .filter(|id| s.pending().contains(id))
        .map(ToString::to_string)
        .collect();
    let status = match unanswered.is_empty() {
        true => None,
        false => s.process().wait(deadline),
    };
    if !unanswered.is_empty() {
        let when = match status {
            Some(status) => format!("exited with status {}", shell_status(status)),
            None => format!("was still running {} after stdin closed", seconds(grace)),
        };
        match (held_back.is_empty(), status) {
            (true, Some(_)) => s.ledger.skip(
                drains,
                format!(
                    "not judged on this run: {} of 3 requests sent right before stdin closed were never answered (ids {}) and the server {when}, though it answered the same three at once with stdin open; whether a request still in flight at end of input is answered races the server's exit against its own handlers, which the scheduling decides",
                    unanswered.len(),
                    unanswered.join(", ")
                ),
            ),
            (true, None) => s.ledger.fail(
                drains,
                &step,
                format!(
                    "{} of 3 requests were never answered (ids {}); the server {when}",
                    unanswered.len(),
                    unanswered.join(", ")
                ),
            ),
            (false, _) => s.ledger.fail(
                drains,
                &step,
                format!(
                    "{} of 3 requests sent back to back were not answered within {} with stdin open, nor once it closed (ids {}); the server {when}",
                    unanswered.len(),
                    seconds(grace),
                    unanswered.join(", ")
                ),
            ),
        }
    }
    if unanswered.is_empty() || !held_back.is_empty() || status.is_none() {
        s.ledger.held(drains);
    }
    // The process has ended, or is ending: nothing after this can be
    // probed on it.
    s.stop("the session ended at end of input".to_owned());
}

/// `eof-exit-zero` at the end of an open session: with every request
/// answered, stdin closes, and the process exits within the grace period
/// (under `core`, with status 0 and writing nothing more: the
/// specification asks the process to end, and names no status, nor
/// silence once the requests are answered; those are MCP-CORE's and
/// REQ-C-032's). A server that never exits when its host closes stdin
/// breaks this law alone, whatever it answered before ([`eof_pending`]
/// judges the answers).
pub(super) fn eof_idle(s: &mut Session<'_>) {
    let exit_zero = LawId::EofExitZero;
    if !s.alive_for(exit_zero) {
        return;
    }
    let step = s.step("end of input");
    let answered = s.notifications();
    s.process().close_stdin();
    let grace = s.grace();
    let deadline = after(Instant::now(), grace);
    s.drain(deadline, false);
    let after: Vec<String> = s
        .notifications()
        .iter()
        .filter_map(
            |(method, &n)| match n - answered.get(method).copied().unwrap_or(0) {
                0 => None,
                1 => Some(method.clone()),
                more => Some(format!("{more} × {method}")),
            },
        )
        .collect();
    let core = s.ledger.profile() == Profile::Core;
    if core && !after.is_empty() {
        s.ledger.fail_core_only(
            exit_zero,
            &step,
            format!(
                "wrote {} after answering every request, with stdin closed",
                after.join(", ")
            ),
        );
    }
    match s.process().wait(deadline) {
        Some(status) if shell_status(status) == 0 => {}
        Some(_) if !core => {}
        Some(status) => s.ledger.fail_core_only(
            exit_zero,
            &step,
            format!(
                "exited with status {} when stdin closed; expected 0",
                shell_status(status)
            ),
        ),
        None => {
            s.ledger.fail(
                exit_zero,
                &step,
                format!(
                    "still running {} after stdin closed; the server was stopped",
                    seconds(grace)
                ),
            );
            s.stop("the server did not exit at end of input".to_owned());
        }
    }
    s.ledger.held(exit_zero);
    // The process has ended: nothing after this can be probed on it.
    if s.dead().is_none() {
        s.stop("the session ended at end of input".to_owned());
    }
}

/// The version negotiation probe's opening: `initialize` with a revision
/// no server supports ([`version`]), then `notifications/initialized`. A
/// legacy server's modern session goes on so after `server/discover`
/// showed the legacy era, as a client that speaks both eras falls back to
/// `initialize` on the same process. Returns what the server said, or why
/// no session opened.
pub(super) fn negotiation(s: &mut Session<'_>) -> Result<Init, String> {
    s.ledger.era = Some(Era::Legacy);
    match version(s) {
        Some(init) if s.initialized(LawId::Initialize) => Ok(init),
        Some(_) => Err(s
            .dead()
            .unwrap_or("notifications/initialized went unfenced")
            .to_owned()),
        None => {
            let answered = s
                .ledger
                .refused
                .as_ref()
                .map_or_else(|| "no result".to_owned(), error_words);
            Err(format!(
                "initialize answered {answered} for the unsupported revision {UNSUPPORTED_REVISION}"
            ))
        }
    }
}

/// `tool-error-is-result` under the spec profile, which makes invalid
/// arguments an isError result from revision 2025-11-25 on, in the
/// revision the negotiation probe's `initialize` answered.
pub(super) fn tool_errors_answered(s: &mut Session<'_>, init: &Init) {
    let law = LawId::ToolErrorIsResult;
    let listing = if Revision::named_where(&init.revision, Revision::tool_input_errors_are_results)
    {
        s.step("tools/list");
        tools::list(s, law)
    } else {
        None
    };
    tool_errors_since(s, init, listing);
}

/// `initialize` with a revision no server supports: the answer is a result
/// with a revision the server does support. The spec only warns on the
/// `-32602 {supported, requested}` error its lifecycle page shows.
///
/// Returns what the server said when it answered with a result, so that
/// the session can go on in that revision.
pub(super) fn version(s: &mut Session<'_>) -> Option<Init> {
    let law = LawId::Initialize;
    let step = s.step(format!(
        "initialize with the unsupported revision {UNSUPPORTED_REVISION}"
    ));
    let (answer, init) = s.initialize(law, UNSUPPORTED_REVISION)?;
    let opened = answer.is_ok().then(|| init.clone()).flatten();
    if let Some(init) = &opened {
        s.ledger.negotiated.push(Negotiated {
            requested: UNSUPPORTED_REVISION.to_owned(),
            answered: init.revision.clone(),
            step: step.clone(),
        });
    }
    match (answer, init) {
        (Ok(_), Some(init)) if init.revision == UNSUPPORTED_REVISION => {
            s.ledger.fail(
                law,
                &step,
                format!(
                    "echoed the unsupported revision {UNSUPPORTED_REVISION}; a server answers one it supports"
                ),
            );
            s.ledger.names("srv-init-other-version");
        }
        (Ok(_), Some(init)) if init.revision.is_empty() => {
            s.ledger
                .fail(law, &step, "the result has no string `protocolVersion`");
        }
        (Ok(_), _) => {}
        (Err(error), _) => {
            refused(s, &step, &error);
            s.ledger.refused = Some(error);
        }
    }
    s.ledger.held(law);
    opened
}

/// `initialize` refused with `error`: version negotiation answers a result
/// with a revision the server supports. The spec only warns on the
/// `-32602 {supported, requested}` error its lifecycle page shows. (A
/// modern-only server refuses every revision; the findings of its
/// refusals are dropped once the sessions are over, see `era`.)
pub(super) fn refused(s: &mut Session<'_>, step: &str, error: &RpcError) {
    let law = LawId::Initialize;
    let negotiates = error.code == ErrorCode::INVALID_PARAMS
        && error.data.as_ref().is_some_and(|data| {
            data.get("supported").is_some_and(Value::is_array)
                && data.get("requested").is_some_and(Value::is_string)
        });
    let message = format!(
        "refused with {}; version negotiation answers a result with a supported revision",
        error_words(error)
    );
    if negotiates && s.ledger.profile() == Profile::Spec {
        s.ledger.fail_as(law, Severity::Warning, step, message);
        s.ledger.names("srv-init-other-version");
    } else {
        s.ledger.fail(law, step, message);
        s.ledger.names("srv-init-other-version");
    }
}

/// `tool-error-is-result` under the spec profile, which applies it from
/// revision 2025-11-25 on: a session that negotiated such a revision
/// violates a tool's inputSchema. Skipped, with the reason, when the
/// server answered an earlier revision or served no tools.
pub(super) fn tool_errors_since(
    s: &mut Session<'_>,
    init: &Init,
    listing: Option<Result<tools::Listing, RpcError>>,
) {
    let law = LawId::ToolErrorIsResult;
    let rule = Revision::tool_input_errors_are_results;
    let since = Revision::first_where(rule).unwrap_or(Revision::LATEST_LEGACY);
    if !Revision::named_where(&init.revision, rule) {
        s.ledger.skip(
            law,
            format!(
                "{}; the spec makes invalid arguments an isError result from {since} on",
                init.negotiation()
            ),
        );
        return;
    }
    match listing {
        Some(Ok(listing)) => tool_error_is_result(s, &listing),
        Some(Err(error)) => s.ledger.skip(
            law,
            format!(
                "the server serves no tools (tools/list answered error {})",
                error.code
            ),
        ),
        None => {}
    }
}

/// The keys of the client requests an `input_required` result may hold,
/// each with the client capability that allows it.
pub(super) const INPUT_KINDS: &[(&str, &str)] = &[
    ("elicitation/create", "elicitation"),
    ("sampling/createMessage", "sampling"),
    ("roots/list", "roots"),
];

/// Whether `result` is an `InputRequiredResult` (2026-07-28).
pub(super) fn asks_for_input(result: &Value) -> bool {
    result.get("resultType") == Some(&json!("input_required"))
}

/// `schema` for an `InputRequiredResult` (MCP 2026-07-28
/// basic/patterns/mrtr), the answer to `method` with `request` (its params
/// without `_meta`): it holds `inputRequests` or `requestState`, and asks
/// for nothing the request's `clientCapabilities` did not declare (the
/// probes declare none, so only `requestState` is legal). Then the retry
/// a client makes: the same request with a new id and the `requestState`
/// echoed exactly (and no `inputResponses`, as nothing could be asked),
/// which is answered with a result (another `InputRequiredResult` where
/// input is still missing, as the spec says a server should; an error is
/// a warning); and a retry whose `requestState` the server never issued,
/// which it must treat as untrusted: any answer, and it goes on serving.
pub(super) fn input_required(s: &mut Session<'_>, method: &str, request: &Value, result: &Value) {
    let law = LawId::Schema;
    let step = s.step(format!("the input_required answer to {method}"));
    let asks = result.get("inputRequests").and_then(Value::as_object);
    let state = result.get("requestState").and_then(Value::as_str);
    if asks.is_none() && state.is_none() {
        s.ledger.fail(
            law,
            &step,
            "the InputRequiredResult has neither `inputRequests` nor `requestState`; it must hold at least one",
        );
        s.ledger.names("srv-mrtr-fields");
    }
    for (key, asked) in asks.into_iter().flatten() {
        let kind = asked.get("method").and_then(Value::as_str).unwrap_or("?");
        let capability = INPUT_KINDS
            .iter()
            .find(|(name, _)| *name == kind)
            .map_or("a matching", |(_, capability)| capability);
        s.ledger.fail(
            law,
            &step,
            format!(
                "asks for `{key}`, a {kind} request, but the request's clientCapabilities declared no {capability} capability (they were {{}})"
            ),
        );
        s.ledger.names("srv-mrtr-declared-kinds");
    }
    let Some(state) = state else {
        return;
    };
    if state.len() > MAX_STATE {
        // A state is echoed whole or not at all: one of many mebibytes,
        // asked for again and again, would be kept and sent each time.
        s.ledger.skip(
            LawId::RequestAnsweredOnce,
            format!(
                "the retry of an InputRequiredResult was not sent: its requestState is {} MiB, more than the {} MiB the probes echo (docs/limits.md)",
                state.len() >> 20,
                MAX_STATE >> 20
            ),
        );
        return;
    }
    let retry = |state: &str| {
        let mut params = request.clone();
        if let Some(object) = params.as_object_mut() {
            object.insert("requestState".to_owned(), json!(state));
        }
        params
    };
    let step = s.step(format!(
        "{method} again, with the requestState it was given"
    ));
    let params = s.params(Some(retry(state)));
    match s.call(LawId::RequestAnsweredOnce, method, params) {
        Some(Err(error)) => {
            s.ledger.fail_as(
                law,
                Severity::Warning,
                &step,
                format!(
                    "answered {} to the retry that echoed its requestState; a request still missing input gets another InputRequiredResult",
                    error_words(&error)
                ),
            );
            s.ledger.names("srv-mrtr-missing-asks-again");
        }
        Some(Ok(_)) => {}
        None => return,
    }
    s.step(format!(
        "{method} with a requestState the server never issued"
    ));
    let params = s.params(Some(retry(FORGED_STATE)));
    if s.call(LawId::RequestAnsweredOnce, method, params).is_some() {
        s.step("ping after the forged requestState");
        let _ = s.call(LawId::RequestAnsweredOnce, method::PING, s.params(None));
    }
}

/// The longest `requestState` the probes echo in a retry, in bytes.
pub(super) const MAX_STATE: usize = 1 << 20;

/// A `requestState` no server issued, for the retry that forges one.
pub(super) const FORGED_STATE: &str = "mcp-replay-probe-forged-state";

#[cfg(test)]
mod tests {
    use super::super::session::Stray;
    use super::*;
    use crate::jsonrpc::RequestId;
    use serde_json::json;

    fn error(id: Option<RequestId>, code: i64) -> Stray {
        Stray {
            id,
            answer: Err(RpcError {
                code: ErrorCode(code),
                message: "m".into(),
                data: None,
            }),
        }
    }

    /// The severities and messages `grade_parse_replies` finds in `profile`.
    fn graded(profile: Profile, strays: &[Stray]) -> Vec<(Severity, String)> {
        let mut ledger = Ledger::new("server".into(), profile, "");
        grade_parse_replies(&mut ledger, "step", &Strays::from(strays.to_vec()));
        ledger
            .findings
            .into_iter()
            .map(|f| (f.severity, f.message))
            .collect()
    }

    #[test]
    fn a_parse_error_with_id_null_passes_both_profiles() {
        for profile in [Profile::Core, Profile::Spec] {
            assert_eq!(graded(profile, &[error(None, -32700)]), []);
        }
    }

    #[test]
    fn silence_and_invalid_request_pass_spec_only() {
        assert_eq!(graded(Profile::Spec, &[]), []);
        assert_eq!(graded(Profile::Spec, &[error(None, -32600)]), []);
        assert_eq!(
            graded(Profile::Core, &[]),
            [(
                Severity::Error,
                "no reply to a malformed line; MCP-CORE asks error -32700 with id null".to_owned()
            )]
        );
        assert_eq!(
            graded(Profile::Core, &[error(None, -32600)]),
            [(
                Severity::Error,
                "answered error -32600 without an id (\"m\"); MCP-CORE asks error -32700 with id null"
                    .to_owned()
            )]
        );
    }

    #[test]
    fn other_replies_are_warnings_under_spec() {
        let result = Stray {
            id: None,
            answer: Ok(json!({})),
        };
        let with_id = error(Some(RequestId::number(3)), -32700);
        assert_eq!(
            graded(Profile::Spec, &[result, with_id.clone()]),
            [
                (Severity::Warning, "2 replies to one malformed line".to_owned()),
                (
                    Severity::Warning,
                    "answered a result without an id: {}; expected silence, or error -32700 or -32600 without an id".to_owned()
                ),
                (
                    Severity::Warning,
                    "answered error -32700 with id 3 (\"m\"); expected silence, or error -32700 or -32600 without an id".to_owned()
                ),
            ]
        );
        assert_eq!(graded(Profile::Core, &[with_id])[0].0, Severity::Error);
    }
}
