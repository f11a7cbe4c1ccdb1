//! The steps of the quiet start's session: the quiet start, version
//! negotiation for 2025-03-26 after a cancellation sent first, the tool
//! list and a batch in that revision, and last SIGTERM.

use std::time::Instant;

use rustix::process::Signal;
use serde_json::json;

use crate::client::duration::after;
use crate::jsonrpc::{method, notification_line};
use crate::laws::{LawId, Profile, Severity};
use crate::process::shell_status;
use crate::revision::{Era, Revision};

use super::Negotiated;
use super::session::{Answer, Init, Session, Tally, describe, seconds};
use super::steps;
use super::tools::{self};

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
            None => after(longest, s.options().timeout),
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

/// `sigterm-exit-143`: SIGTERM while serving ends the process within the
/// grace period; under `core`, with 143 (exit(143), or death by signal
/// 15), REQ-C-032's status. The specification names no status: under
/// `spec` any ending within the grace period holds. Ends the session.
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
        Some(_) if s.ledger.profile() == Profile::Spec => {}
        Some(status) => s.ledger.fail_core_only(
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

/// Version negotiation for 2025-03-26 ([`CANCELLED_FIRST`]) as the
/// quiet start's process's first request, with a cancellation before it
/// ([`cancelled_first`]): the answer names the requested revision when
/// the server supports it, and another it supports when not (which
/// [`super::era`] holds to the other sessions' answers); a refusal is a
/// finding. Returns what the server said when it opened the session
/// (after `notifications/initialized`).
pub(super) fn negotiate(s: &mut Session<'_>) -> Option<Init> {
    let law = LawId::Initialize;
    s.ledger.era = Some(Era::Legacy);
    let asked = CANCELLED_FIRST.as_str();
    let step = format!("initialize for revision {asked}");
    let (answer, init) = cancelled_first(s, &step)?;
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
            s.initialized(LawId::RequestAnsweredOnce).then_some(init)
        }
        (Err(error), _) => {
            steps::refused(s, &step, &error);
            s.ledger.held(law);
            s.ledger.refused = Some(error);
            None
        }
        (Ok(_), None) => None,
    }
}

/// The tool list in the revision the session opened with, so that the
/// `schema` law holds the revision's descriptors to it, and a batch in a
/// revision that has them.
pub(super) fn list_and_batch(s: &mut Session<'_>, init: &Init) {
    s.step("tools/list");
    let _ = tools::list(s, LawId::RequestAnsweredOnce);
    if Revision::parse(&init.revision).is_some_and(Revision::batches) {
        batch(s);
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
