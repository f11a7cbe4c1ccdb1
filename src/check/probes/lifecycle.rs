//! The lifecycle probes: end of input, which ends the conversation, and
//! SIGTERM, which ends the quiet start's session (each again on a process
//! of its own when the server ended first); the quiet start; version
//! negotiation (2025-03-26 after a cancellation sent first, with a batch;
//! a revision no server supports); and malformed input, which the
//! conversation and the modern session run before their last probes.

use std::time::Instant;

use rustix::process::Signal;
use serde_json::{Value, json};

use crate::check::duration::after;
use crate::jsonrpc::{ErrorCode, PROTOCOL_2024_11_05, RpcError, method, notification_line};
use crate::laws::{LawId, Profile, Severity};
use crate::process::shell_status;
use crate::revision::{Era, Revision};

use super::modern;
use super::session::{Answer, Init, Session, Stray, Tally, describe, error_words, seconds};
use super::tools::{self, tool_error_is_result};
use super::{Ledger, Negotiated};

/// A revision no server supports, for version negotiation.
const UNSUPPORTED_REVISION: &str = "1900-01-01";

/// `quiet-before-serving`: nothing on stdout during the settle window after
/// the process starts, while nothing has been sent to it. Under spec, whose
/// contract is that stdout carries only protocol messages, a message in the
/// window is no finding; a line that is no message is, under both (and it
/// breaks `stdout-is-protocol` too).
///
/// The window is watched at the start of the session that starts beside
/// the gate, whose probes are short, while the other sessions speak to
/// their servers at once, so its length adds little to the suite. It
/// covers a slow start too: it lasts the settle window from spawn, or half
/// of it past the slowest first answer any other process of the suite
/// gave (that process started as this one did), whichever ends later, so
/// a server that waits some time for its client before it greets it
/// (`waiting for a client…`) is caught whether its interpreter started in
/// a tenth of a second or in ten. Until another process has answered, the
/// window stays open, for as long as a first answer is allowed.
pub(super) fn quiet_start(s: &mut Session<'_>) {
    let settle = s.options().settle;
    let spawned = s.process().spawned_at();
    let longest = after(spawned, s.startup_allowance());
    let messages_allowed = s.ledger.profile() == Profile::Spec;
    // The step names the window as the settle option gives it, so that a
    // report reads the same on a fast machine and a slow one.
    let step = s.step(format!(
        "the start, and the first {} after it",
        seconds(settle)
    ));
    let mut lines = Tally::default();
    loop {
        let end = match s.slowest_start() {
            Some(slowest) => after(spawned, slowest.saturating_add(settle / 2)),
            // Every other start ended without an answer: the plain window.
            None if s.starts_over() => spawned,
            // Until the others' starts end: they have the same allowance
            // from about the same spawn, and a step more covers the gap.
            None => longest + s.options().timeout,
        }
        .max(after(spawned, settle));
        let now = Instant::now();
        if now >= end {
            break;
        }
        let (seen, closed) = s.watch(end.min(now + QUIET_RECHECK), messages_allowed);
        lines.absorb(seen);
        if closed {
            break;
        }
    }

    if let Some(first) = &lines.first {
        s.ledger.fail(
            LawId::QuietBeforeServing,
            &step,
            format!(
                "wrote on stdout before the client's first message: `{first}`{}",
                lines.in_all()
            ),
        );
    }
    s.ledger.held(LawId::QuietBeforeServing);
}

/// How often the quiet start looks again at the other processes' first
/// answers, which move the end of its window.
const QUIET_RECHECK: std::time::Duration = std::time::Duration::from_millis(50);

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

fn grade_parse_replies(ledger: &mut Ledger, step: &str, strays: &[Stray]) {
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

/// `eof-drains` and `eof-exit-zero` on a session of their own, for a
/// server whose conversation ended before its end of input was probed (a
/// malformed line killed it, say): `initialize` with revision 2024-11-05;
/// a server that refuses it (a modern-only server) gets stateless
/// requests.
pub(super) fn eof(mut s: Session<'_>) -> Ledger {
    s.ledger.era = Some(Era::Legacy);
    if open_or_stateless(&mut s, LawId::EofDrains) {
        eof_tail(&mut s);
    } else {
        s.alive_for(LawId::EofDrains);
        s.alive_for(LawId::EofExitZero);
    }
    s.finish()
}

/// `eof-drains` and `eof-exit-zero` at the end of an open session: three
/// requests sent right before stdin closes are all answered, then the
/// process exits 0 within the grace period, writing nothing more. A
/// session whose `initialize` was refused (a modern-only server) sends
/// stateless requests, whose every answer drains. Requests of the session
/// still unanswered before (a cancelled one) do not count.
pub(super) fn eof_tail(s: &mut Session<'_>) {
    let (drains, exit_zero) = (LawId::EofDrains, LawId::EofExitZero);
    if !s.alive_for(drains) || !s.alive_for(exit_zero) {
        return;
    }
    let step = s.step("three requests sent right before stdin closed");
    let stateless = s.ledger.refused.is_some();
    let mut lines = Vec::new();
    let mut ids = Vec::new();
    for name in [method::PING, method::TOOLS_LIST, method::PING] {
        let id = s.number_id();
        let (name, params) = if stateless {
            (
                method::TOOLS_LIST,
                Some(modern::params(serde_json::json!({}))),
            )
        } else {
            (name, None)
        };
        ids.push(id.clone());
        lines.push(s.request_with(id, name, params));
    }
    s.send_lines(&lines);
    s.process().close_stdin();
    let grace = s.grace();
    let deadline = after(Instant::now(), grace);
    s.drain_until(deadline, Some(&ids));
    let answered = s.notifications().clone();
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
    let status = s.process().wait(deadline);
    let unanswered: Vec<String> = ids
        .iter()
        .filter(|id| s.pending().contains(id))
        .map(ToString::to_string)
        .collect();
    if !unanswered.is_empty() {
        let when = match status {
            Some(status) => format!("exited with status {}", shell_status(status)),
            None => format!("was still running {} after stdin closed", seconds(grace)),
        };
        s.ledger.fail(
            drains,
            &step,
            format!(
                "{} of 3 requests were never answered (ids {}); the server {when}",
                unanswered.len(),
                unanswered.join(", ")
            ),
        );
    }
    s.ledger.held(drains);
    let step = s.step("end of input");
    if unanswered.is_empty() && !after.is_empty() {
        s.ledger.fail(
            exit_zero,
            &step,
            format!(
                "wrote {} after answering every request, with stdin closed",
                after.join(", ")
            ),
        );
    }
    match status {
        Some(status) if shell_status(status) == 0 => {}
        Some(status) => s.ledger.fail(
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

/// The session that starts beside the gate: the quiet start (a process
/// watched, unspoken to, for the settle window past the slowest start),
/// then version negotiation for 2025-03-26 with a cancellation as its
/// very first message, the tool list and a batch, and last SIGTERM.
pub(super) fn quiet_then_signalled(mut s: Session<'_>) -> Ledger {
    quiet_start(&mut s);
    if s.silent_server() {
        for law in [
            LawId::CancelTolerated,
            LawId::Initialize,
            LawId::SigtermExit143,
        ] {
            s.alive_for(law);
        }
        return s.finish();
    }
    negotiate(&mut s, CANCELLED_FIRST);
    // A server that refused 2025-03-26 (a modern-only one) is signalled
    // all the same.
    sigterm_tail(&mut s);
    s.finish()
}

/// `sigterm-exit-143` on a session of its own, for a server that ended
/// before the session that starts beside the gate could signal it (a
/// cancellation sent first ended it, say): `initialize` with revision
/// 2024-11-05, or stateless requests for a server that refuses it.
pub(super) fn sigterm(mut s: Session<'_>) -> Ledger {
    s.ledger.era = Some(Era::Legacy);
    if open_or_stateless(&mut s, LawId::SigtermExit143) {
        sigterm_tail(&mut s);
    } else {
        s.alive_for(LawId::SigtermExit143);
    }
    s.finish()
}

/// `sigterm-exit-143`: SIGTERM while serving ends the process with 143
/// (exit(143), or death by signal 15) within the grace period. Ends the
/// session.
pub(super) fn sigterm_tail(s: &mut Session<'_>) {
    let law = LawId::SigtermExit143;
    if !s.alive_for(law) {
        return;
    }
    let step = s.step("SIGTERM while serving");
    s.process().signal(Signal::TERM);
    let grace = s.grace();
    match s.process().wait(after(Instant::now(), grace)) {
        Some(status) if shell_status(status) == 143 => {}
        Some(status) => s.ledger.fail(
            law,
            &step,
            format!(
                "ended with status {} after SIGTERM; expected 143",
                shell_status(status)
            ),
        ),
        None => {
            s.ledger.fail(
                law,
                &step,
                format!(
                    "still running {} after SIGTERM; the server was stopped",
                    seconds(grace)
                ),
            );
            s.stop("the server ignored SIGTERM".to_owned());
        }
    }
    s.ledger.held(law);
    if s.dead().is_none() {
        s.stop("the session ended at SIGTERM".to_owned());
    }
}

/// The version negotiation probe on its own session: `initialize` with a
/// revision no server supports, then, under the spec profile, which makes
/// invalid arguments an isError result from revision 2025-11-25 on,
/// `tool-error-is-result` in the revision answered. A legacy server's
/// modern session goes on so after `server/discover` showed the legacy
/// era, as a client that speaks both eras falls back to `initialize` on
/// the same process.
pub(super) fn negotiation(s: &mut Session<'_>) {
    s.ledger.era = Some(Era::Legacy);
    let spec = s.ledger.profile() == Profile::Spec;
    let opened = match version(s) {
        Some(init) => s.initialized(LawId::Initialize).then_some(init),
        None => None,
    };
    if !spec {
        return;
    }
    let law = LawId::ToolErrorIsResult;
    match opened {
        Some(init) => {
            let listing =
                if Revision::named_where(&init.revision, Revision::tool_input_errors_are_results) {
                    s.step("tools/list");
                    tools::list(s, law)
                } else {
                    None
                };
            tool_errors_since(s, &init, listing);
        }
        None if s.dead().is_some() => {
            s.alive_for(law);
        }
        None => {
            let answered = s
                .ledger
                .refused
                .as_ref()
                .map_or_else(|| "no result".to_owned(), error_words);
            s.ledger.skip(
                law,
                format!("initialize answered {answered} for the unsupported revision {UNSUPPORTED_REVISION}"),
            );
        }
    }
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
        (Ok(_), Some(init)) if init.revision == UNSUPPORTED_REVISION => s.ledger.fail(
            law,
            &step,
            format!(
                "echoed the unsupported revision {UNSUPPORTED_REVISION}; a server answers one it supports"
            ),
        ),
        (Ok(_), Some(init)) if init.revision.is_empty() => s.ledger.fail(
            law,
            &step,
            "the result has no string `protocolVersion`",
        ),
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
fn refused(s: &mut Session<'_>, step: &str, error: &RpcError) {
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
    } else {
        s.ledger.fail(law, step, message);
    }
}

/// Opens the session with revision 2024-11-05 to probe `law`; a server
/// that refuses it with an error is left running, the refusal kept for the
/// era verdict, and the session goes on with stateless requests (a
/// modern-only server refuses every `initialize`, and still owes `law`).
/// Returns whether the session can go on.
fn open_or_stateless(s: &mut Session<'_>, law: LawId) -> bool {
    match s.open_or_refused(law, PROTOCOL_2024_11_05) {
        Ok(_) => true,
        Err(Some(error)) => {
            s.ledger.refused = Some(error);
            true
        }
        Err(None) => false,
    }
}

/// A JSON-RPC batch, in 2025-03-26, the one revision whose servers MUST
/// receive them (MCP 2025-03-26 basic#batching): `tools/list`, an unknown
/// notification and `ping` in one array get their two answers in one
/// array (`request-answered-once`), and nothing for the notification
/// (`notification-unanswered`, an error). Answers on lines of their own
/// are an error under `core` and a warning under `spec` (JSON-RPC 2.0 §6
/// says SHOULD); a batch left unanswered, or refused as a whole, is a
/// warning under `core` and no finding under `spec`, since the official
/// SDKs that negotiate 2025-03-26 drop batches (the TypeScript and Python
/// SDKs drop an array, rmcp answers it -32600) and `spec` grades a server
/// as the SDKs behave; a fence, not a timeout, tells it.
fn batch(s: &mut Session<'_>) {
    let law = LawId::RequestAnsweredOnce;
    let step = s.step("a batch of tools/list, an unknown notification and ping");
    let (list, ping) = (s.number_id(), s.number_id());
    let members = [
        (Some(list), method::TOOLS_LIST, None),
        (
            None,
            "notifications/mcp-replay/probe",
            Some(serde_json::json!({})),
        ),
        (Some(ping), method::PING, None),
    ];
    let Some(batched) = s.batch(law, &members) else {
        return;
    };
    if !batched.answered {
        if s.ledger.profile() == Profile::Spec {
            return;
        }
        let refusal = match batched.strays.first() {
            Some(stray) => format!(", and answered {}", describe(stray)),
            None => String::new(),
        };
        s.ledger.fail_as(
            law,
            Severity::Warning,
            &step,
            format!(
                "answered revision 2025-03-26, whose servers must receive batches, but left the batch's requests unanswered{refusal}"
            ),
        );
        return;
    }
    for stray in batched.strays {
        s.ledger.fail(
            LawId::NotificationUnanswered,
            &step,
            format!("answered the notification of a batch: {}", describe(&stray)),
        );
    }
    if !matches!(batched.lines.as_slice(), [(true, 2)]) {
        let severity = match s.ledger.profile() {
            Profile::Core => Severity::Error,
            Profile::Spec => Severity::Warning,
        };
        let arrays = batched.lines.iter().filter(|(array, _)| *array).count();
        s.ledger.fail_as(
            law,
            severity,
            &step,
            format!(
                "answered the batch's two requests on {} lines ({arrays} of them arrays); a batch is answered with one array",
                batched.lines.len()
            ),
        );
    }
}

/// Version negotiation for `revision`, on a process of its own (each
/// `initialize` needs one): the answer names the requested revision when
/// the server supports it, and another it supports when not (which
/// [`super::era`] holds to the other sessions' answers); a refusal is a
/// finding. A session that opened lists the tools, so that the `schema`
/// law holds the revision's descriptors to it, and sends a batch in a
/// revision that has them.
pub(super) fn negotiate(s: &mut Session<'_>, revision: Revision) {
    let law = LawId::Initialize;
    s.ledger.era = Some(Era::Legacy);
    let asked = revision.as_str();
    let step = format!("initialize for revision {asked}");
    let opened = match revision == CANCELLED_FIRST {
        true => cancelled_first(s, &step),
        false => {
            s.step(step.clone());
            s.initialize(law, asked)
        }
    };
    let Some((answer, init)) = opened else {
        return;
    };
    match (answer, init) {
        (Ok(_), Some(init)) => {
            s.ledger.negotiated.push(Negotiated {
                requested: asked.to_owned(),
                answered: init.revision.clone(),
                step: step.clone(),
            });
            if init.revision.is_empty() {
                s.ledger
                    .fail(law, &step, "the result has no string `protocolVersion`");
            }
            s.ledger.held(law);
            if s.initialized(LawId::RequestAnsweredOnce) {
                s.step("tools/list");
                let _ = tools::list(s, LawId::RequestAnsweredOnce);
                if Revision::parse(&init.revision).is_some_and(Revision::batches) {
                    batch(s);
                }
            }
        }
        (Err(error), _) => {
            refused(s, &step, &error);
            s.ledger.held(law);
            s.ledger.refused = Some(error);
        }
        (Ok(_), None) => {}
    }
}

/// The revision negotiated after a cancellation sent first.
pub(super) const CANCELLED_FIRST: Revision = Revision::V2025_03_26;

/// `cancel-tolerated` for a cancellation as the very first message of a
/// process: `notifications/cancelled` for an id never sent, with the
/// session's `initialize` right behind it in the same write. The server
/// must answer the request and nothing else: one that exits, or answers
/// the cancellation, breaks the law (a SHOULD: MCP
/// basic/utilities/cancellation, a warning under spec); the revision's
/// negotiation is then not probed. Rides on a negotiation session, so
/// that it costs no process of its own.
fn cancelled_first(s: &mut Session<'_>, initialize: &str) -> Option<(Answer, Option<Init>)> {
    let law = LawId::CancelTolerated;
    let step = s.step(format!(
        "notifications/cancelled as the first message, then {initialize}"
    ));
    let cancel = notification_line(
        method::CANCELLED,
        Some(&json!({"requestId": 999_999, "reason": "mcp-replay probe"})),
    );
    let (answer, init, strays) = s.initialize_after(law, CANCELLED_FIRST.as_str(), &[cancel])?;
    for stray in strays {
        s.ledger.fail(
            law,
            &step,
            format!(
                "answered a cancellation sent as the first message with {}",
                describe(&stray)
            ),
        );
    }
    s.ledger.held(law);
    s.step(initialize);
    Some((answer, init))
}

/// `tool-error-is-result` under the spec profile, which applies it from
/// revision 2025-11-25 on: a session that negotiated such a revision
/// violates a tool's inputSchema. Skipped, with the reason, when the
/// server answered an earlier revision or served no tools.
fn tool_errors_since(
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
                "the server negotiated revision {}; the spec makes invalid arguments an isError result from {since} on",
                crate::check::wire::quoted(init.revision.as_bytes())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{RequestId, RpcError};
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
        grade_parse_replies(&mut ledger, "step", strays);
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
