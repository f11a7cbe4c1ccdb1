//! The modern session: revision 2026-07-28, stateless, on a process of its
//! own.
//!
//! It finds the era as the spec tells a client that speaks both: it sends
//! `server/discover` first. A `DiscoverResult`, or an error a modern server
//! gives (such as -32022), means the server speaks 2026-07-28; any other
//! error, or silence, means it does not, and the modern laws are skipped
//! with what the server answered (never judged by one particular code).
//! A modern server then gets the laws of that revision: `discover` (the
//! result's shape, -32022 with `data{supported, requested}` for a version it
//! does not serve, -32602 for missing `_meta` keys), `list-cache-hints`
//! (`ttlMs` and `cacheScope` on `tools/list`), and `unknown-method` for the
//! methods 2026-07-28 removed, and statelessness (every method the session
//! sends, first of its method on a fresh process). Every request, the
//! fences' `ping`s too, carries the revision's `_meta`: a request is judged
//! by the era it was sent in. Then the legacy conversation's tool laws in
//! this revision, each request with its own `_meta` (`tools-list-valid`,
//! `tools-list-sorted`, `invalid-params`, `unknown-tool`,
//! `tool-error-is-result`, and `capabilities-honest` against the
//! `DiscoverResult`'s capabilities): graded in this era as in the
//! legacy one, and the only verdict of a modern-only server, which opens
//! no conversation; last, one tool called with valid arguments, so that a
//! successful result is held to `CallToolResult`. Every finding's step
//! names this session,
//! so a report says which era each finding belongs to.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::jsonrpc::{ErrorCode, method, notification_line};
use crate::laws::{LawId, Profile, Severity};
use crate::revision::{Era, Revision, meta};

use super::session::{
    Answer, Init, MAX_RECORDED, Recorded, SUBSCRIPTION_ID, Session, answer_words, describe,
    error_words, modern_params as params, request_meta, seconds, short,
};
use super::start::joined;
use super::step::Facts;
use super::tools::{self, Listing};
use super::{Ledger, steps};

/// The revision this session speaks.
const MODERN: Revision = Revision::V2026_07_28;

/// A tool no server has, for the statelessness probe of a server whose
/// tools have no inputSchema to break.
const NO_SUCH_TOOL: &str = "mcp-replay-probe-no-such-tool";

/// A version no server serves, for the -32022 probe.
const UNSUPPORTED: &str = "1900-01-01";

/// The laws this session probes.
const LAWS: &[LawId] = &[LawId::Discover, LawId::ListCacheHints];

/// Era detection, the modern session's first step: `server/discover`
/// first, as the spec tells a client that speaks both eras. A
/// `DiscoverResult` shows 2026-07-28: the session speaks it statelessly
/// from here on, and the result is held to `discover`. An error only a
/// modern server gives shows the modern era without 2026-07-28; any other
/// answer, or none, a legacy server. Either way the modern laws are
/// skipped with the answer, and `facts` says why the steps that need the
/// revision do not run.
pub(super) fn discover(s: &mut Session<'_>, facts: &mut Facts<'_>) {
    s.ledger.era = Some(Era::Modern);
    let step = s.step("server/discover");
    let answer = s.discover(LawId::Discover, params(json!({})));
    let result = match answer {
        Some(Ok(result)) => result,
        Some(Err(error)) if is_modern_error(&error.code) => {
            s.ledger.modern = Some(Vec::new());
            s.spoke_modern();
            let reason = format!(
                "server/discover for {MODERN} answered {}: the server speaks the modern era, but not {MODERN}",
                error_words(&error)
            );
            for law in LAWS {
                s.ledger.skip(*law, reason.clone());
            }
            s.miss("srv-discover-answers", reason.clone());
            facts.no_modern = Some(reason);
            return;
        }
        Some(Err(error)) => return legacy(s, facts, &format!("answered {}", error_words(&error))),
        None => {
            let what = match (s.dead(), s.unanswered_within_pace()) {
                (Some(why), _) => format!("got no answer ({why})"),
                // The server ignores a request before its handshake, as
                // older Python SDK servers do: it goes on as a client that
                // speaks both eras falls back, on the same process.
                (None, Some((waited, slowest))) => format!(
                    "got no answer within {} of the process's start, where the server answered another process's first request in {}",
                    seconds(waited),
                    seconds(slowest)
                ),
                (None, None) => "got no answer".to_owned(),
            };
            return legacy(s, facts, &what);
        }
    };
    let versions = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    s.ledger.modern = Some(versions);
    s.speaking(MODERN, method::SERVER_DISCOVER, &result);
    // Every request from here on is a 2026-07-28 request, fences too.
    s.speak_statelessly();
    discover_result(s, &step, &result);
    facts.init = Some(Init {
        asked: MODERN.as_str().to_owned(),
        revision: MODERN.as_str().to_owned(),
        capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
        opening: LawId::Discover,
    });
    facts.discovered = Some(result);
}

/// Whether an error to `server/discover` is one only a modern server
/// gives: a version it does not serve, or a client capability it needs.
fn is_modern_error(code: &ErrorCode) -> bool {
    matches!(
        *code,
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
    )
}

/// A legacy server: the modern laws do not apply to it, and the steps
/// that need 2026-07-28 do not run.
fn legacy(s: &mut Session<'_>, facts: &mut Facts<'_>, what: &str) {
    s.ledger.no_discover = Some(format!("server/discover {what}"));
    let reason = format!(
        "the server speaks no {MODERN}: server/discover {what}, which a legacy server gives"
    );
    for law in LAWS {
        s.ledger.skip(*law, reason.clone());
    }
    s.miss("srv-discover-answers", reason.clone());
    facts.no_modern = Some(reason);
}

/// `discover`: the result names the versions (2026-07-28 among them) and
/// the capabilities.
fn discover_result(s: &mut Session<'_>, step: &str, result: &Value) {
    let law = LawId::Discover;
    match result.get("supportedVersions").and_then(Value::as_array) {
        Some(versions) if versions.iter().any(|v| v == MODERN.as_str()) => {}
        Some(versions) => {
            s.ledger.fail(
                law,
                step,
                format!(
                    "answered a DiscoverResult for {MODERN} whose supportedVersions leave it out: {}",
                    short(&Value::Array(versions.clone()))
                ),
            );
            s.ledger.names("srv-discover-answers");
        }
        None => {
            s.ledger.fail(
                law,
                step,
                "the DiscoverResult has no `supportedVersions` array",
            );
            s.ledger.names("srv-discover-answers");
        }
    }
    if !result.get("capabilities").is_some_and(Value::is_object) {
        s.ledger
            .fail(law, step, "the DiscoverResult has no `capabilities` object");
        s.ledger.names("srv-discover-answers");
    }
    hints(s, LawId::Discover, step, "server/discover", result);
    server_info(s, step, "server/discover", result);
    s.ledger.held(law);
}

/// `discover`: a result the client may cache for its `ttlMs` stays true
/// that long: a second `server/discover` within a TTL above zero names the
/// same versions and capabilities. Under `spec` a warning: the caching
/// page lets the client keep the result, and says nothing of a server
/// that changes it.
pub(super) fn stable_discover(s: &mut Session<'_>, first: &Value) {
    let law = LawId::Discover;
    let Some(ttl) = first
        .get("ttlMs")
        .and_then(Value::as_u64)
        .filter(|ttl| *ttl > 0)
    else {
        return;
    };
    let step = s.step(format!("server/discover again, within its ttlMs of {ttl}"));
    let Some(Ok(again)) = s.call(law, method::SERVER_DISCOVER, Some(params(json!({})))) else {
        return;
    };
    let severity = match s.ledger.profile() {
        Profile::Core => Severity::Error,
        Profile::Spec => Severity::Warning,
    };
    for field in ["supportedVersions", "capabilities"] {
        if first.get(field) != again.get(field) {
            s.ledger.fail_as(
                law,
                severity,
                &step,
                format!(
                    "answered `{field}` {} where the first answer, which a client may cache for {ttl} ms, said {}",
                    again.get(field).map_or("absent".to_owned(), short),
                    first.get(field).map_or("absent".to_owned(), short)
                ),
            );
            s.ledger.names("srv-discover-stable-within-ttl");
        }
    }
}

/// `discover`: a 2026-07-28 result names the server in `_meta`
/// (`io.modelcontextprotocol/serverInfo`), which the revision says a server
/// SHOULD do: a warning under both profiles. The schema holds its shape
/// when it is there.
fn server_info(s: &mut Session<'_>, step: &str, method: &str, result: &Value) {
    let info = result.get("_meta").and_then(|m| m.get(meta::SERVER_INFO));
    if info.is_none() {
        s.ledger.fail_as(
            LawId::Discover,
            Severity::Warning,
            step,
            format!(
                "the {method} result has no `_meta` `{}`; a {MODERN} server should name itself in every result",
                meta::SERVER_INFO
            ),
        );
        s.ledger.names("srv-meta-server-info");
    }
}

/// `cancel-tolerated` for a cancellation of an id never sent, behind a
/// fence, right after `server/discover` was answered as the first request
/// of a fresh process: no answer, no crash (on a process of the
/// statelessness probe, so that a server it ends has answered this session
/// everything; a cancellation after other requests is sent later, see
/// [`every_era`]).
fn fenced_cancel(s: &mut Session<'_>) {
    let law = LawId::CancelTolerated;
    let step = s.step("ping after notifications/cancelled right after server/discover");
    let params = json!({"requestId": 999_998, "reason": "mcp-replay probe"});
    let line = notification_line(method::CANCELLED, Some(&params));
    let Some(strays) = s.fenced(law, &[line]) else {
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

/// `discover`: a request for a version the server does not serve gets
/// -32022 with `data{supported, requested}`; the draft-era -32004 is named.
pub(super) fn unsupported_version(s: &mut Session<'_>, discovered: &Value) {
    let law = LawId::Discover;
    let step = s.step(format!(
        "tools/list for the unsupported version {UNSUPPORTED}"
    ));
    let mut request = params(json!({}));
    request["_meta"] = request_meta(UNSUPPORTED);
    let Some(answer) = s.call(law, method::TOOLS_LIST, Some(request)) else {
        return;
    };
    match answer {
        Err(error) if error.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
            let data = error.data.as_ref();
            let supported = data
                .and_then(|d| d.get("supported"))
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().all(Value::is_string));
            let requested = data.and_then(|d| d.get("requested")) == Some(&json!(UNSUPPORTED));
            if !(supported && requested) {
                s.ledger.fail(
                    law,
                    &step,
                    format!(
                        "answered -32022 without `data{{supported, requested}}` (supported as strings, requested {UNSUPPORTED:?}): {}",
                        error.data.as_ref().map_or("no data".to_owned(), short)
                    ),
                );
                s.ledger.names("srv-version-unsupported-32022");
            } else {
                same_versions(s, &step, data, discovered);
            }
        }
        Err(error) if error.code == ErrorCode(-32004) => {
            s.ledger.fail(
                law,
                &step,
                "answered -32004, the code a draft of 2026-07-28 used; the revision renumbered it -32022",
            );
            s.ledger.names("srv-version-unsupported-32022");
        }
        other => {
            s.ledger.fail(
                law,
                &step,
                format!(
                    "answered {}; a version the server does not serve gets error -32022",
                    answer_words(&other)
                ),
            );
            s.ledger.names("srv-version-unsupported-32022");
        }
    }
}

/// `discover`: the versions a -32022 error lists in `data.supported`, which
/// a client retries from, are the ones the `DiscoverResult` names in
/// `supportedVersions`: one the error lists and the server does not
/// serve sends the client into another refusal, and one it leaves out is
/// never retried. The revision says a client should retry from the list
/// and does not say in so many words that the two agree: a warning under
/// both profiles.
fn same_versions(s: &mut Session<'_>, step: &str, data: Option<&Value>, discovered: &Value) {
    let strings = |value: Option<&Value>| -> Option<std::collections::BTreeSet<String>> {
        value?
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    let (Some(listed), Some(served)) = (
        strings(data.and_then(|d| d.get("supported"))),
        strings(discovered.get("supportedVersions")),
    ) else {
        return;
    };
    if listed != served {
        let words = |set: &std::collections::BTreeSet<String>| {
            set.iter().cloned().collect::<Vec<_>>().join(", ")
        };
        s.ledger.fail_as(
            LawId::Discover,
            Severity::Warning,
            step,
            format!(
                "answered -32022 with `data.supported` [{}], where the DiscoverResult's `supportedVersions` are [{}]: a client retries with a version from the error's list",
                words(&listed),
                words(&served)
            ),
        );
        s.ledger.names("srv-version-unsupported-32022");
    }
}

/// `discover`: a request without `_meta`, or without its client
/// capabilities, is malformed: -32602.
pub(super) fn missing_meta(s: &mut Session<'_>) {
    let law = LawId::Discover;
    let mut without_capabilities = request_meta(MODERN.as_str());
    if let Some(object) = without_capabilities.as_object_mut() {
        object.remove(meta::CLIENT_CAPABILITIES);
    }
    let cases = [
        ("tools/list without `_meta`", json!({})),
        (
            "tools/list without the client's capabilities in `_meta`",
            json!({"_meta": without_capabilities}),
        ),
    ];
    client_info_optional(s);
    for (what, request) in cases {
        let step = s.step(what);
        let Some(answer) = s.call(law, method::TOOLS_LIST, Some(request)) else {
            return;
        };
        match answer {
            Err(error) if error.code == ErrorCode::INVALID_PARAMS => {}
            other => s.ledger.fail(
                law,
                &step,
                format!(
                    "answered {}; a request missing a required `_meta` key gets error -32602",
                    answer_words(&other)
                ),
            ),
        }
    }
}

/// `discover`: `clientInfo` is the one optional key of a request's
/// `_meta` (a client SHOULD send it), so a request without it is served:
/// a server that refuses it makes a SHOULD of the client a MUST, and
/// turns conformant clients away.
fn client_info_optional(s: &mut Session<'_>) {
    let law = LawId::Discover;
    let mut without_info = request_meta(MODERN.as_str());
    if let Some(object) = without_info.as_object_mut() {
        object.remove(meta::CLIENT_INFO);
    }
    let step = s.step("tools/list without the client's `clientInfo` in `_meta`");
    let Some(answer) = s.call(
        law,
        method::TOOLS_LIST,
        Some(json!({"_meta": without_info})),
    ) else {
        return;
    };
    if let Err(error) = answer
        && error.code != ErrorCode::METHOD_NOT_FOUND
    {
        s.ledger.fail(
            law,
            &step,
            format!(
                "answered {}; `clientInfo` is optional in a request's `_meta` (a client SHOULD send it), so the request must be served",
                error_words(&error)
            ),
        );
        s.ledger.names("srv-meta-client-info-optional");
    }
}

/// `list-cache-hints`: `tools/list` carries `ttlMs` and `cacheScope`.
/// Returns the answer, for the statelessness probe.
pub(super) fn cache_hints(s: &mut Session<'_>) -> Option<Answer> {
    let law = LawId::ListCacheHints;
    let step = s.step("tools/list");
    let answer = s.call(law, method::TOOLS_LIST, Some(params(json!({}))));
    match &answer {
        None => {}
        Some(Ok(result)) => {
            hints(s, law, &step, "tools/list", result);
            server_info(s, &step, "tools/list", result);
            s.ledger.held(law);
        }
        Some(Err(error)) => s.ledger.skip(
            law,
            format!(
                "the server serves no tools (tools/list answered {})",
                error_words(error)
            ),
        ),
    }
    answer
}

/// A request the statelessness probe sends on a fresh process.
#[derive(Clone)]
pub(super) struct First {
    /// The method.
    method: &'static str,
    /// Its params, without `_meta`; for `tools/call`, chosen once the tools
    /// are listed.
    extra: Value,
}

/// The requests of one fresh process, each with its name in steps and what
/// the session's own process answered it after other requests.
type Plan = Vec<(First, String, Answer)>;

impl First {
    fn new(method: &'static str, extra: Value) -> First {
        First { method, extra }
    }
}

/// The requests of the statelessness probe, one list per fresh process
/// (one), each sent in order with nothing before it: every method the
/// session sends is the first of its method there, the lists the
/// `DiscoverResult` declares too, and every one of them before
/// `server/discover`, so that a server that serves a request only once
/// another has been answered on its process shows it. A removed method
/// comes first, which a legacy server serves before its handshake, so
/// that a server that tells its first message apart shows it;
/// `tools/call` before `tools/list`, so that a call that needs a listing
/// first shows it; `server/discover` after the lists, followed by a
/// cancellation (for `cancel-tolerated`).
pub(super) fn first_requests(discovered: &Value) -> Vec<Vec<First>> {
    let mut removed = removed().into_iter();
    let mut plan = Vec::new();
    if let Some((method, extra)) = removed.next() {
        plan.push(First::new(method, extra));
    }
    plan.push(First::new(method::TOOLS_CALL, Value::Null));
    plan.push(First::new(method::TOOLS_LIST, json!({})));
    for (capability, list) in [("prompts", "prompts/list"), ("resources", "resources/list")] {
        if discovered
            .pointer(&format!("/capabilities/{capability}"))
            .is_some_and(|declared| !declared.is_null())
        {
            plan.push(First::new(list, json!({})));
        }
    }
    plan.push(First::new(method::SERVER_DISCOVER, json!({})));
    plan.extend(removed.map(|(method, extra)| First::new(method, extra)));
    vec![plan]
}

/// `discover`, statelessness (MCP 2026-07-28 basic#statelessness): no
/// request depends on an earlier one on the same process. Every method
/// the session sends, the removed ones included, is sent on a fresh
/// process as the first of its method ([`first_requests`]), and there
/// answered alike (a result with the same `resultType` and cache hints, an
/// `isError` one, or the same error code) as on this process after other
/// requests; the fresh processes are spoken to at once. An answer of
/// another kind is graded as this session grades it (a removed method
/// under `unknown-method`, `tools/list` under `list-cache-hints`).
///
/// The `tools/call` runs no tool: its arguments break the tool's
/// inputSchema (which a server checks before it runs anything), or it
/// names a tool the server does not have; a server that serves no tools
/// gets none. `server/discover` is sent again here, and its answer held
/// to the first.
pub(super) fn stateless<'a>(
    s: &mut Session<'a>,
    discovered: &Value,
    fresh: Vec<Session<'a>>,
    groups: Vec<Vec<First>>,
    listed: Option<Answer>,
    removed_answers: Vec<Option<Answer>>,
) {
    let law = LawId::Discover;
    let tools = listed
        .as_ref()
        .and_then(|answer| answer.as_ref().ok())
        .and_then(|result| result.get("tools"))
        .and_then(Value::as_array);
    let call = tools.map(|tools| {
        let listing = Listing {
            tools: tools.clone(),
            problems: Vec::new(),
            pages: 1,
            results: Vec::new(),
        };
        match tools::violation(&listing) {
            Some((tool, arguments, what)) => (
                json!({"name": tool, "arguments": arguments}),
                format!("tools/call of `{tool}` with {what}"),
            ),
            None => (
                json!({"name": NO_SUCH_TOOL, "arguments": {}}),
                format!("tools/call of the unknown tool `{NO_SUCH_TOOL}`"),
            ),
        }
    });
    let removed_answers: Vec<(&str, Option<Answer>)> = removed()
        .into_iter()
        .map(|(name, _)| name)
        .zip(removed_answers)
        .collect();
    // What this process answered after other requests, request by request;
    // a request this process could not answer is left out.
    let mut plans: Vec<(Session<'a>, Plan)> = Vec::new();
    for (group, fresh) in groups.into_iter().zip(fresh) {
        let mut plan = Vec::new();
        for mut first in group {
            let (what, here) = match first.method {
                method::SERVER_DISCOVER => {
                    ("server/discover".to_owned(), Some(Ok(discovered.clone())))
                }
                method::TOOLS_LIST => ("tools/list".to_owned(), listed.clone()),
                method::TOOLS_CALL => {
                    let Some((extra, what)) = call.clone() else {
                        continue;
                    };
                    first.extra = extra;
                    s.step(format!("{what} after server/discover and tools/list"));
                    let here = s.call(law, first.method, Some(params(first.extra.clone())));
                    (what, here)
                }
                name if removed_method(name) => (
                    format!("{name} on a {MODERN} request"),
                    removed_answers
                        .iter()
                        .find(|(removed, _)| *removed == name)
                        .and_then(|(_, answer)| answer.clone()),
                ),
                name => {
                    s.step(format!("{name} after other requests"));
                    let here = s.call(law, name, Some(params(first.extra.clone())));
                    (name.to_owned(), here)
                }
            };
            if let Some(here) = here {
                plan.push((first, what, here));
            }
        }
        if !plan.is_empty() {
            plans.push((fresh, plan));
        }
    }
    // `server/discover` again, after everything above.
    let step = s.step("server/discover after other requests");
    if let Some(again) = s.call(law, method::SERVER_DISCOVER, Some(params(json!({}))))
        && answer_kind(&again) != answer_kind(&Ok(discovered.clone()))
    {
        s.ledger.fail(
            law,
            &step,
            format!(
                "answered {}, where server/discover as the first request of this process answered {}: a {MODERN} request must not depend on an earlier one",
                answer_words(&again),
                answer_words(&Ok(discovered.clone()))
            ),
        );
        s.ledger.names("srv-stateless-no-prior-context");
    }
    let ledgers: Vec<Ledger> = std::thread::scope(|scope| {
        let handles: Vec<_> = plans
            .into_iter()
            .map(|(fresh, plan)| scope.spawn(move || first_requests_on(fresh, &plan)))
            .collect();
        handles.into_iter().map(joined).collect()
    });
    for ledger in ledgers {
        s.ledger.merge(ledger);
    }
}

/// The requests of `plan` on `fresh`, in order, each held to what the
/// session's own process answered after other requests; an answer of
/// another kind is graded as that one was, too.
fn first_requests_on(mut fresh: Session<'_>, plan: &Plan) -> Ledger {
    let law = LawId::Discover;
    fresh.ledger.era = Some(Era::Modern);
    fresh.speak_statelessly();
    fresh.assume(MODERN);
    let mut before: Vec<&str> = Vec::new();
    for (first, what, here) in plan {
        let params = Some(params(first.extra.clone()));
        let (step, there) = match before.is_empty() {
            true => {
                let step = fresh.step(format!("{what} as the first request of a fresh process"));
                (step, fresh.first_call(law, first.method, params))
            }
            false => {
                let step = fresh.step(format!(
                    "{what} as the first {} of a fresh process, after {}",
                    first.method,
                    before.join(", ")
                ));
                (step, fresh.call(law, first.method, params))
            }
        };
        before.push(first.method);
        let Some(there) = there else {
            break;
        };
        if first.method == method::SERVER_DISCOVER {
            fenced_cancel(&mut fresh);
            before.push(method::CANCELLED);
        }
        // An answer like the other process's has been graded there.
        if answer_kind(here) == answer_kind(&there) {
            continue;
        }
        // What else the answer breaks is one finding with this one.
        let mark = fresh.ledger.mark();
        fresh.ledger.fail(
            law,
            &step,
            format!(
                "answered {}, where a process that had answered other requests answered {}: a {MODERN} request must not depend on an earlier one",
                answer_words(&there),
                answer_words(here)
            ),
        );
        fresh.ledger.names("srv-stateless-no-prior-context");
        match (first.method, &there) {
            (method::TOOLS_LIST, Ok(result)) => {
                hints(
                    &mut fresh,
                    LawId::ListCacheHints,
                    &step,
                    "tools/list",
                    result,
                );
            }
            (name, _) if removed_method(name) => grade_removed(&mut fresh, &step, name, there),
            _ => {}
        }
        fresh.ledger.one_cause(mark, &format!("{step}: the answer"));
    }
    fresh.finish()
}

/// The laws of every era, spoken in this one, so that a modern-only server
/// (which opens no legacy conversation) is held to them too, and a
/// dual-era server in both eras: an unknown notification and a cancellation
/// of an id never sent get no answer (`notification-unanswered`,
/// `cancel-tolerated`), and a string id comes back a string
/// (`request-answered-once`).
pub(super) fn every_era(s: &mut Session<'_>) {
    let cases = [
        (
            LawId::NotificationUnanswered,
            "notifications/mcp-replay/probe",
            json!({}),
        ),
        (
            LawId::CancelTolerated,
            method::CANCELLED,
            json!({"requestId": 999_999, "reason": "mcp-replay probe"}),
        ),
    ];
    for (law, name, params) in cases {
        if !steps::unanswered(s, law, name, Some(&params)) {
            return;
        }
        s.ledger.held(law);
    }
    let law = LawId::RequestAnsweredOnce;
    s.step("tools/list with a string id");
    let id = s.string_id();
    if s.call_with(law, id, method::TOOLS_LIST, Some(params(json!({}))))
        .is_some()
    {
        s.ledger.held(law);
    }
}

/// The requirements a `subscriptions/listen` stream shows.
const LISTEN: [&str; 3] = [
    "srv-subscriptions-acknowledged-first",
    "srv-subscriptions-asked-kinds",
    "srv-subscriptions-silent-after-cancel",
];

/// The notification that opens a `subscriptions/listen` stream.
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// The list notifications of 2026-07-28, with the capability that promises
/// each and the key a listen request asks for it with.
const LIST_CHANGES: [(&str, &str, &str); 3] = [
    (
        "tools",
        "notifications/tools/list_changed",
        "toolsListChanged",
    ),
    (
        "prompts",
        "notifications/prompts/list_changed",
        "promptsListChanged",
    ),
    (
        "resources",
        "notifications/resources/list_changed",
        "resourcesListChanged",
    ),
];

/// `subscriptions/listen` (MCP 2026-07-28 basic/patterns/subscriptions),
/// for a server whose `DiscoverResult` promises a `listChanged`: the list
/// notifications come only on a listen stream, so one sent before any
/// stream opened breaks `capabilities-honest` (an error: a MUST of the
/// revision). A listen request for the promised kinds is then answered
/// by its stream (`request-answered-once`): its first tagged message is
/// `notifications/subscriptions/acknowledged`, which accepts no kind that
/// was not asked for; every stream notification carries the listen
/// request's id as `_meta` `io.modelcontextprotocol/subscriptionId`, and
/// is of a kind asked for; and once the client cancels the stream, no
/// message for it follows. Each part is fenced by two requests, never
/// timed. (The result that closes a stream at end of input is not
/// checked.)
pub(super) fn listen(s: &mut Session<'_>, capabilities: &Value) {
    // The list notifications so far came before any stream; those of the
    // streams below without their tag are outside one too.
    let mut outside: Vec<usize> = LIST_CHANGES
        .iter()
        .map(|(_, name, _)| s.notifications().get(*name).copied().unwrap_or(0))
        .collect();
    listen_stream(s, capabilities, &mut outside);
    for ((_, name, _), sent) in LIST_CHANGES.iter().zip(outside) {
        if sent > 0 {
            s.ledger.fail_as(
                LawId::CapabilitiesHonest,
                Severity::Error,
                "notifications the server sent",
                format!(
                    "sent {sent} {name} outside a subscriptions/listen stream (without `_meta` `{SUBSCRIPTION_ID}`); {MODERN} delivers list notifications only on one"
                ),
            );
            s.ledger.names("srv-subscriptions-none-outside");
        }
    }
}

/// The stream of [`listen`]; counts into `outside` the list notifications
/// it read that no stream's id tags.
///
/// What the server writes between a request and its fence's answers is
/// recorded within bounds ([`Session::record`]): a stream that floods is
/// judged from the messages kept, its untagged list changes are counted
/// whether kept or not, and the flood is reported once, as a warning. After
/// the cancellation, what comes before the first fence's answer may have
/// been on its way before the server read the cancellation, and is not
/// judged; what comes after it is.
fn listen_stream(s: &mut Session<'_>, capabilities: &Value, outside: &mut [usize]) {
    let asked: Vec<(&str, &str)> = LIST_CHANGES
        .iter()
        .filter(|(capability, _, _)| {
            capabilities.pointer(&format!("/{capability}/listChanged")) == Some(&Value::Bool(true))
        })
        .map(|(_, name, key)| (*name, *key))
        .collect();
    if asked.is_empty() {
        for id in LISTEN {
            s.miss(id, "the server promises no listChanged to listen for");
        }
        return;
    }
    let law = LawId::RequestAnsweredOnce;
    let fence_one = |s: &mut Session<'_>| {
        s.call(law, method::TOOLS_LIST, Some(params(json!({}))))
            .is_some()
    };
    let id = s.number_id();
    let tag = id.to_value();
    let notifications: Map<String, Value> = asked
        .iter()
        .map(|(_, key)| ((*key).to_owned(), Value::Bool(true)))
        .collect();
    let step = s.step(format!(
        "subscriptions/listen for {}",
        asked
            .iter()
            .map(|(_, key)| *key)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    s.record();
    let line = s.request_with(
        id.clone(),
        "subscriptions/listen",
        Some(params(json!({ "notifications": notifications }))),
    );
    s.send_lines(&[line]);
    let fenced = fence_one(s) && fence_one(s);
    let opened = s.take_recorded();
    let mut flood = Flood::default();
    flood.add(&opened);
    let tag_pointer = format!("/params/_meta/{}", SUBSCRIPTION_ID.replace('/', "~1"));
    let tagged = |message: &Value| {
        message.get("method").is_some() && message.pointer(&tag_pointer) == Some(&tag)
    };
    let untagged = |recorded: &Recorded, outside: &mut [usize]| {
        for message in &recorded.messages {
            let name = message.get("method").and_then(Value::as_str);
            if let Some(at) = LIST_CHANGES
                .iter()
                .position(|(_, change, _)| Some(*change) == name)
                && message.pointer(&tag_pointer).is_none()
            {
                outside[at] += 1;
            }
        }
        for ((name, tagged), count) in &recorded.dropped {
            if let Some(at) = LIST_CHANGES
                .iter()
                .position(|(_, change, _)| change == name)
                && !tagged
            {
                outside[at] += count;
            }
        }
    };
    if !fenced {
        untagged(&opened, outside);
        flood.report(s, &step);
        return;
    }
    if let Some(error) = opened
        .messages
        .iter()
        .find(|m| m.get("id") == Some(&tag) && m.get("error").is_some())
    {
        s.ledger.fail(
            LawId::CapabilitiesHonest,
            &step,
            format!(
                "promises listChanged, but refused subscriptions/listen: {}",
                short(&error["error"])
            ),
        );
        s.ledger.names("srv-subscriptions-listen-served");
        return;
    }
    let mut problems = Vec::new();
    match opened.messages.iter().find(|m| tagged(m)) {
        None => problems.push(format!(
            "sent no {ACKNOWLEDGED} tagged with the listen request's id {tag}"
        )),
        Some(first) if first.get("method") != Some(&json!(ACKNOWLEDGED)) => problems.push(format!(
            "the stream's first message is {}, not {ACKNOWLEDGED}",
            short(first)
        )),
        Some(ack) => {
            let accepted = ack
                .pointer("/params/notifications")
                .and_then(Value::as_object);
            for (key, value) in accepted.into_iter().flatten() {
                let requested = asked.iter().any(|(_, asked)| asked == key);
                if !requested && value != &Value::Bool(false) && !value.is_null() {
                    problems.push(format!(
                        "the acknowledgement accepts {key}, which the listen request did not ask for"
                    ));
                }
            }
        }
    }
    untagged(&opened, outside);
    let unasked = opened
        .messages
        .iter()
        .filter_map(|message| {
            message
                .get("method")
                .and_then(Value::as_str)
                .map(|name| (message, name))
        })
        .filter(|(message, name)| {
            tagged(message)
                && LIST_CHANGES.iter().any(|(_, change, _)| change == name)
                && !asked.iter().any(|(asked, _)| asked == name)
        })
        .map(|(_, name)| name.to_owned())
        .collect::<BTreeSet<String>>();
    for name in unasked {
        problems.push(format!("sent {name} on a stream that did not ask for it"));
    }
    for problem in problems {
        let requirement = match problem.contains("on a stream that did not ask") {
            true => "srv-subscriptions-asked-kinds",
            false => "srv-subscriptions-acknowledged-first",
        };
        s.ledger.fail(law, &step, problem);
        s.ledger.names(requirement);
    }
    let step = s.step("notifications/cancelled for the listen stream");
    s.record();
    let cancel = notification_line(
        method::CANCELLED,
        Some(&json!({"requestId": tag, "reason": "mcp-replay probe"})),
    );
    s.send_lines(&[cancel]);
    // Answered once the server read the cancellation: what came before
    // may have been written before it, and is counted only.
    let read = fence_one(s);
    let in_flight = s.take_recorded();
    flood.add(&in_flight);
    untagged(&in_flight, outside);
    if !read {
        flood.report(s, &step);
        return;
    }
    s.record();
    let fenced = fence_one(s);
    let after = s.take_recorded();
    flood.add(&after);
    untagged(&after, outside);
    flood.report(s, &step);
    if !fenced {
        return;
    }
    let late: Vec<&Value> = after
        .messages
        .iter()
        .filter(|message| tagged(message) || message.get("id") == Some(&tag))
        .collect();
    let dropped_late: usize = after
        .dropped
        .iter()
        .filter(|((_, tagged), _)| *tagged)
        .map(|(_, count)| count)
        .sum();
    if let Some(first) = late.first() {
        let more = match late.len() - 1 + dropped_late {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        s.ledger.fail(
            law,
            &step,
            format!(
                "sent {}{more} for the listen stream after the client cancelled it; no message for it may follow",
                short(first)
            ),
        );
        s.ledger.names("srv-subscriptions-silent-after-cancel");
    }
    s.ledger.held(law);
}

/// What the recordings of one stream counted past what they kept.
#[derive(Debug, Default)]
struct Flood {
    count: usize,
    kept: usize,
    bytes: usize,
}

impl Flood {
    fn add(&mut self, recorded: &Recorded) {
        self.count += recorded.count;
        self.kept += recorded.messages.len();
        self.bytes += recorded.bytes;
    }

    /// A warning, once, when some messages were counted and not kept.
    fn report(&self, s: &mut Session<'_>, step: &str) {
        if self.count == self.kept {
            return;
        }
        s.ledger.fail_as(
            LawId::RequestAnsweredOnce,
            Severity::Warning,
            step,
            format!(
                "the server wrote {} messages ({} MiB) while the listen stream's requests were answered, a flood: {} were kept and judged (at most {MAX_RECORDED} a wait), the rest counted",
                self.count,
                self.bytes >> 20,
                self.kept
            ),
        );
    }
}

/// A `subscriptions/listen` stream open when stdin closes: the server
/// should close it gracefully, answering the listen request with
/// `{resultType: "complete", _meta: {subscriptionId}}` (MCP 2026-07-28
/// basic/patterns/subscriptions, a SHOULD: a warning in both profiles)
/// before it exits. Ends the session.
pub(super) fn listen_at_end(s: &mut Session<'_>, capabilities: &Value) {
    let law = LawId::RequestAnsweredOnce;
    let asked: Map<String, Value> = LIST_CHANGES
        .iter()
        .filter(|(capability, _, _)| {
            capabilities.pointer(&format!("/{capability}/listChanged")) == Some(&Value::Bool(true))
        })
        .map(|(_, _, key)| ((*key).to_owned(), Value::Bool(true)))
        .collect();
    if asked.is_empty() {
        s.miss(
            "srv-subscriptions-graceful-close",
            "the server promises no listChanged to listen for",
        );
        return;
    }
    if s.dead().is_some() {
        return;
    }
    let id = s.number_id();
    let step = s.step("subscriptions/listen, then end of input");
    let line = s.request_with(
        id.clone(),
        "subscriptions/listen",
        Some(params(json!({ "notifications": asked }))),
    );
    s.send_lines(&[line]);
    // The acknowledgement comes before the answer to a request behind it.
    if s.call(law, method::TOOLS_LIST, Some(params(json!({}))))
        .is_none()
    {
        return;
    }
    s.process().close_stdin();
    let deadline = crate::client::duration::after(std::time::Instant::now(), s.grace());
    s.drain_until(deadline, Some(std::slice::from_ref(&id)));
    let closing = s.take_answer(&id);
    let tag = id.to_value();
    let problem = match &closing {
        None => "the listen stream got no closing result at end of input".to_owned(),
        Some(Err(error)) => format!(
            "closed the listen stream at end of input with {}",
            error_words(error)
        ),
        Some(Ok(result)) if result.get("resultType") != Some(&json!("complete")) => format!(
            "closed the listen stream with {}, whose resultType is not \"complete\"",
            short(result)
        ),
        Some(Ok(result))
            if result.pointer(&format!("/_meta/{}", SUBSCRIPTION_ID.replace('/', "~1")))
                != Some(&tag) =>
        {
            format!(
                "closed the listen stream with {}, whose `_meta` does not name the subscription {tag}",
                short(result)
            )
        }
        Some(Ok(_)) => String::new(),
    };
    if !problem.is_empty() {
        s.ledger.fail_as(
            law,
            Severity::Warning,
            &step,
            format!("{problem}; a server closes a stream gracefully with `{{resultType: \"complete\", _meta: {{subscriptionId}}}}`"),
        );
        s.ledger.names("srv-subscriptions-graceful-close");
    }
    s.stop("the session ended at end of input".to_owned());
}

/// What kind of answer `answer` is, for comparing two answers to one
/// request: a result (and whether it is an `isError` one), or an error's
/// code.
fn answer_kind(answer: &Answer) -> String {
    match answer {
        Ok(result) => {
            let kind = match result.get("isError") == Some(&Value::Bool(true)) {
                true => "isError",
                false => "result",
            };
            let result_type = result.get("resultType").map_or("none".to_owned(), short);
            let hints = result.get("ttlMs").is_some() && result.get("cacheScope").is_some();
            format!("{kind} of resultType {result_type}, hints {hints}")
        }
        Err(error) => error.code.to_string(),
    }
}

/// The cache hints of a cacheable result: an integer `ttlMs` ≥ 0 and a
/// `cacheScope` of `public` or `private`.
pub(super) fn hints(s: &mut Session<'_>, law: LawId, step: &str, method: &str, result: &Value) {
    if result
        .get("ttlMs")
        .and_then(Value::as_i64)
        .is_none_or(|ttl| ttl < 0)
    {
        s.ledger.fail(
            law,
            step,
            format!(
                "the {method} result has no integer `ttlMs` of 0 or more: {}",
                result.get("ttlMs").map_or("absent".to_owned(), short)
            ),
        );
    }
    match result.get("cacheScope").and_then(Value::as_str) {
        Some("public" | "private") => {}
        _ => s.ledger.fail(
            law,
            step,
            format!(
                "the {method} result has no `cacheScope` of \"public\" or \"private\": {}",
                result.get("cacheScope").map_or("absent".to_owned(), short)
            ),
        ),
    }
}

/// The methods 2026-07-28 removed, with the params each is sent with.
fn removed() -> [(&'static str, Value); 3] {
    [
        (method::PING, json!({})),
        (method::LOGGING_SET_LEVEL, json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "mcp-replay://probe"})),
    ]
}

/// Whether 2026-07-28 removed `name`.
fn removed_method(name: &str) -> bool {
    removed().iter().any(|(removed, _)| *removed == name)
}

/// `unknown-method` on 2026-07-28: `ping`, `logging/setLevel` and
/// `resources/subscribe` are removed, so a modern request for them gets
/// -32601 (the spec profile warns on another error code). Returns the
/// answers, in [`removed`]'s order, for the statelessness probe.
pub(super) fn removed_methods(s: &mut Session<'_>) -> Vec<Option<Answer>> {
    let law = LawId::UnknownMethod;
    let mut answers = Vec::new();
    for (name, extra) in removed() {
        let step = s.step(format!("{name} on a {MODERN} request"));
        let Some(answer) = s.call(law, name, Some(params(extra))) else {
            return answers;
        };
        answers.push(Some(answer.clone()));
        grade_removed(s, &step, name, answer);
    }
    s.ledger.held(law);
    answers
}

/// `unknown-method` for the answer to the removed method `name` at `step`.
fn grade_removed(s: &mut Session<'_>, step: &str, name: &str, answer: Answer) {
    let law = LawId::UnknownMethod;
    match answer {
        Err(error) if error.code == ErrorCode::METHOD_NOT_FOUND => {}
        Err(error) if s.ledger.profile() == Profile::Spec => s.ledger.fail_as(
            law,
            Severity::Warning,
            step,
            format!(
                "answered {}; {MODERN} removed {name}, and JSON-RPC's code for an unknown method is -32601",
                error_words(&error)
            ),
        ),
        // Under core, an error with another code is the spec's warning.
        other @ Err(_) => s.ledger.fail_core_only(
            law,
            step,
            format!(
                "answered {}; {MODERN} removed {name}: expected error -32601",
                answer_words(&other)
            ),
        ),
        other => s.ledger.fail(
            law,
            step,
            format!(
                "answered {}; {MODERN} removed {name}: expected error -32601",
                answer_words(&other)
            ),
        ),
    }
    s.ledger.held(law);
}
