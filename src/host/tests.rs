//! The judge on scripted sessions: for each host law, a host that keeps
//! it and one that breaks it.

use std::path::PathBuf;

use super::{Ending, Judge, Verdict};
use crate::laws::{LawId, Profile, Severity};
use crate::report::{LawStatus, Location};

/// One event of a scripted session.
enum Ev<'a> {
    /// A line the host wrote.
    C(&'a str),
    /// A line the server wrote.
    S(&'a str),
    /// The host closed stdin.
    Eof,
    /// The host sent a signal.
    Sig(i32),
    /// The server exited.
    Exit,
    /// Time passes, in seconds.
    Wait(f64),
}

use Ev::{C, Eof, Exit, S, Sig, Wait};

/// Runs the judge over `events`, a millisecond apart unless told
/// otherwise; each event's line is its place in the script, from 2.
fn run(events: &[Ev<'_>], ending: Ending) -> Verdict {
    let mut judge = Judge::new(Profile::Spec);
    let mut t = 0.0;
    let at = |line: usize| Location::Transcript {
        path: PathBuf::from("t.jsonl"),
        line,
    };
    for (index, event) in events.iter().enumerate() {
        let line = index + 2;
        t += 0.001;
        match event {
            C(text) => judge.host_line(text.as_bytes(), true, t, at(line)),
            S(text) => judge.server_line(text.as_bytes(), t, at(line)),
            Eof => judge.end_of_input(t, at(line)),
            Sig(signal) => judge.signal(*signal, t, at(line)),
            Exit => judge.server_exit(t),
            Wait(seconds) => t += seconds,
        }
    }
    judge.finish(ending, at(events.len() + 2))
}

fn complete(events: &[Ev<'_>]) -> Verdict {
    run(events, Ending::Recorded { complete: true })
}

/// The messages of the findings about `law`, with their severity.
fn found(verdict: &Verdict, law: LawId) -> Vec<(Severity, String)> {
    verdict
        .findings
        .iter()
        .filter(|finding| finding.law == law)
        .map(|finding| (finding.severity, finding.message.clone()))
        .collect()
}

fn status(verdict: &Verdict, law: LawId) -> LawStatus {
    verdict
        .outcomes
        .iter()
        .find(|outcome| outcome.law == law)
        .map(|outcome| outcome.status.clone())
        .unwrap()
}

/// Asserts one finding about `law`, of `severity`, whose message says
/// `words`.
#[track_caller]
fn one(verdict: &Verdict, law: LawId, severity: Severity, words: &str) {
    let found = found(verdict, law);
    assert_eq!(found.len(), 1, "{law}: {found:?}");
    assert_eq!(found[0].0, severity, "{law}: {found:?}");
    assert!(
        found[0].1.contains(words),
        "{law}: `{}` lacks `{words}`",
        found[0].1
    );
    assert_eq!(status(verdict, law), LawStatus::Failed);
}

#[track_caller]
fn clean(verdict: &Verdict) {
    assert!(verdict.findings.is_empty(), "{:#?}", verdict.findings);
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1.0"}}}"#;
const INIT_ROOTS: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{},"elicitation":{}},"clientInfo":{"name":"host","version":"1.0"}}}"#;
const ANSWER: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
const LISTED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
const DISCOVERED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete","ttlMs":0,"cacheScope":"public"}}"#;
const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"dual","version":"2"}}}}"#;

/// The opening of a legacy session.
fn opened<'a>(init: &'a str) -> Vec<Ev<'a>> {
    vec![C(init), S(ANSWER), C(INITIALIZED)]
}

#[test]
fn a_clean_legacy_session_keeps_every_law_it_exercises() {
    let mut events = opened(INIT);
    events.extend([
        C(LIST),
        S(LISTED),
        S(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
        Eof,
        Exit,
    ]);
    let verdict = complete(&events);
    clean(&verdict);
    assert_eq!(verdict.host.as_deref(), Some("host 1.0"));
    for law in [
        LawId::HostFirstMessage,
        LawId::HostInitializedSent,
        LawId::HostRequestIds,
        LawId::HostNotificationsUnanswered,
        LawId::HostMessagesValid,
        LawId::HostShutdownOrder,
    ] {
        assert_eq!(status(&verdict, law), LawStatus::Held, "{law}");
    }
    // What the session did not exercise is not counted as held.
    assert_eq!(
        status(&verdict, LawId::HostCancelValid),
        LawStatus::Skipped("the host cancelled nothing".into())
    );
    assert_eq!(
        status(&verdict, LawId::HostAnswersServerRequests),
        LawStatus::Skipped("the server sent the host no request".into())
    );
    assert_eq!(verdict.outcomes.len(), 12);
}

#[test]
fn host_first_message() {
    // A request before initialize.
    let verdict = complete(&[C(LIST), S(LISTED), C(INIT), S(ANSWER), C(INITIALIZED)]);
    one(
        &verdict,
        LawId::HostFirstMessage,
        Severity::Error,
        "`tools/list` before `initialize`",
    );
    // A request before the answer: a warning; ping is allowed.
    let verdict = complete(&[
        C(INIT),
        C(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
        C(r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#),
        S(ANSWER),
        C(INITIALIZED),
    ]);
    one(
        &verdict,
        LawId::HostFirstMessage,
        Severity::Warning,
        "`tools/list` before the answer to `initialize`",
    );
    // No initialize at all.
    let verdict = complete(&[C(LIST), S(LISTED), Eof, Exit]);
    one(
        &verdict,
        LawId::HostFirstMessage,
        Severity::Error,
        "no `initialize` follows",
    );
    // A dual-era probe first is exempt, and falling back after a legacy
    // answer is right.
    let verdict = complete(&[
        C(DISCOVER),
        S(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#),
        C(INIT),
        S(ANSWER),
        C(INITIALIZED),
        Eof,
        Exit,
    ]);
    clean(&verdict);
    assert_eq!(verdict.host.as_deref(), Some("dual 2"));
    assert_eq!(status(&verdict, LawId::HostFirstMessage), LawStatus::Held);
    assert!(matches!(
        status(&verdict, LawId::HostEraProbe),
        LawStatus::Skipped(reason) if reason.contains("falling back to initialize was right")
    ));
}

#[test]
fn host_initialized_sent() {
    let verdict = complete(&[C(INIT), S(ANSWER), C(LIST), S(LISTED), Eof, Exit]);
    one(
        &verdict,
        LawId::HostInitializedSent,
        Severity::Error,
        "no `notifications/initialized`",
    );
    let verdict = complete(&[C(INIT), C(INITIALIZED), S(ANSWER), Eof, Exit]);
    one(
        &verdict,
        LawId::HostInitializedSent,
        Severity::Error,
        "before the answer",
    );
    // A host that leaves over a version it cannot use is exempt.
    let other = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    let verdict = complete(&[C(INIT), S(other), Eof, Exit]);
    clean(&verdict);
    assert!(matches!(
        status(&verdict, LawId::HostInitializedSent),
        LawStatus::Skipped(reason) if reason.contains("another revision")
    ));
}

#[test]
fn host_request_ids() {
    let mut events = opened(INIT);
    events.extend([
        C(r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#),
        C(r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#),
        C(r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#),
        C(r#"{"jsonrpc":"2.0","id":true,"method":"tools/list"}"#),
    ]);
    let verdict = complete(&events);
    let found = found(&verdict, LawId::HostRequestIds);
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(
        found[0]
            .1
            .contains("reuses the id 0, used before in the session by `initialize`")
    );
    assert!(found[1].1.contains("the id null"));
    assert!(found[2].1.contains("the id 1.5"));
    assert!(
        found[3]
            .1
            .contains("the id true is neither a string nor an integer")
    );

    // On 2026-07-28 an id may come back once its request is answered, not
    // before.
    let call = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    let first = call(5);
    let answer = r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}"#;
    let verdict = complete(&[C(&first), S(answer), C(&first), C(&first)]);
    one(
        &verdict,
        LawId::HostRequestIds,
        Severity::Error,
        "which still awaits its answer",
    );
}

#[test]
fn host_answers_server_requests() {
    let roots = r#"{"jsonrpc":"2.0","id":"r","method":"roots/list"}"#;
    let ping = r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#;
    let mut events = opened(INIT_ROOTS);
    events.extend([
        S(roots),
        S(ping),
        C(r#"{"jsonrpc":"2.0","id":"r","result":{"roots":[{"uri":"file:///w"}]}}"#),
        C(r#"{"jsonrpc":"2.0","id":"p","result":{}}"#),
        Eof,
        Exit,
    ]);
    let verdict = complete(&events);
    clean(&verdict);
    assert_eq!(
        status(&verdict, LawId::HostAnswersServerRequests),
        LawStatus::Held
    );
    assert_eq!(
        status(&verdict, LawId::HostCapabilitiesHonest),
        LawStatus::Held
    );

    // roots/list dropped: the answer to the ping after it proves the host
    // read it.
    let mut events = opened(INIT_ROOTS);
    events.extend([
        S(roots),
        S(ping),
        C(r#"{"jsonrpc":"2.0","id":"p","result":{}}"#),
        Eof,
        Exit,
    ]);
    let verdict = complete(&events);
    one(
        &verdict,
        LawId::HostAnswersServerRequests,
        Severity::Error,
        "the server's `roots/list` (line 5) was never answered",
    );
    // Without proof, a request that came just before the host closed stdin
    // may have crossed it; one the host had a second for may not.
    let mut events = opened(INIT_ROOTS);
    events.extend([S(roots), Eof, Exit]);
    clean(&complete(&events));
    let mut events = opened(INIT_ROOTS);
    events.extend([S(roots), Wait(1.5), Eof, Exit]);
    one(
        &complete(&events),
        LawId::HostAnswersServerRequests,
        Severity::Error,
        "never answered",
    );

    // ping gets an empty result; an id the server never sent gets nothing;
    // one answer each.
    let mut events = opened(INIT);
    events.extend([
        S(ping),
        C(r#"{"jsonrpc":"2.0","id":"p","result":{"pong":true}}"#),
        C(r#"{"jsonrpc":"2.0","id":"p","result":{}}"#),
        C(r#"{"jsonrpc":"2.0","id":"q","result":{}}"#),
    ]);
    let found = found(&complete(&events), LawId::HostAnswersServerRequests);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].1.contains("ping gets an empty result"));
    assert!(found[1].1.contains("a second response"));
    assert!(
        found[2]
            .1
            .contains("the id \"q\", which the server never sent")
    );

    // A 2026-07-28 host writes no responses.
    let verdict = complete(&[
        C(DISCOVER),
        S(DISCOVERED),
        C(r#"{"jsonrpc":"2.0","id":"x","result":{}}"#),
    ]);
    one(
        &verdict,
        LawId::HostAnswersServerRequests,
        Severity::Error,
        "writes no responses",
    );
}

#[test]
fn host_capabilities_honest() {
    let elicit = r#"{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}"#;
    let refused = r#"{"jsonrpc":"2.0","id":"e","error":{"code":-32601,"message":"no"}}"#;
    let mut events = opened(INIT_ROOTS);
    events.extend([S(elicit), C(refused)]);
    one(
        &complete(&events),
        LawId::HostCapabilitiesHonest,
        Severity::Error,
        "though the host declared the capability",
    );
    // roots/list refused: a SHOULD.
    let mut events = opened(INIT_ROOTS);
    events.extend([
        S(r#"{"jsonrpc":"2.0","id":"r","method":"roots/list"}"#),
        C(r#"{"jsonrpc":"2.0","id":"r","error":{"code":-32601,"message":"no"}}"#),
    ]);
    one(
        &complete(&events),
        LawId::HostCapabilitiesHonest,
        Severity::Warning,
        "`roots/list`",
    );
    // A refusal of what the host did not declare is its right.
    let mut events = opened(INIT);
    events.extend([S(elicit), C(refused)]);
    clean(&complete(&events));
    // A roots change announced without roots.listChanged: a MUST from
    // 2025-06-18, a SHOULD before.
    let changed = r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#;
    let mut events = opened(INIT_ROOTS);
    events.push(C(changed));
    one(
        &complete(&events),
        LawId::HostCapabilitiesHonest,
        Severity::Error,
        "without `roots.listChanged`",
    );
    let old_init = INIT.replace("2025-11-25", "2024-11-05");
    let old_answer = ANSWER.replace("2025-11-25", "2024-11-05");
    let verdict = complete(&[C(&old_init), S(&old_answer), C(INITIALIZED), C(changed)]);
    one(
        &verdict,
        LawId::HostCapabilitiesHonest,
        Severity::Warning,
        "(2024-11-05)",
    );
}

#[test]
fn host_notifications_unanswered() {
    let mut events = opened(INIT);
    events.extend([
        S(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#),
        C(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"unknown"}}"#),
    ]);
    one(
        &complete(&events),
        LawId::HostNotificationsUnanswered,
        Severity::Error,
        "a notification gets no response",
    );
    // An error answering a server line that was no message is allowed.
    let mut events = opened(INIT);
    events.extend([
        S("garbage"),
        C(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#),
    ]);
    clean(&complete(&events));
}

#[test]
fn host_cancel_valid() {
    let cancel = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        )
    };
    // In flight, and crossing its answer: both fine.
    let mut events = opened(INIT);
    let in_flight = cancel("1");
    events.extend([C(LIST), C(&in_flight), S(LISTED)]);
    let verdict = complete(&events);
    clean(&verdict);
    assert_eq!(status(&verdict, LawId::HostCancelValid), LawStatus::Held);
    let mut events = opened(INIT);
    events.extend([C(LIST), S(LISTED), C(&in_flight)]);
    clean(&complete(&events));
    // Long after its answer.
    let mut events = opened(INIT);
    events.extend([C(LIST), S(LISTED), Wait(1.5), C(&in_flight)]);
    one(
        &complete(&events),
        LawId::HostCancelValid,
        Severity::Error,
        "answered 1.50",
    );
    // After an answer the host provably read (it answered a later ping).
    let mut events = opened(INIT);
    events.extend([
        C(LIST),
        S(LISTED),
        S(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#),
        C(r#"{"jsonrpc":"2.0","id":"p","result":{}}"#),
        C(&in_flight),
    ]);
    one(
        &complete(&events),
        LawId::HostCancelValid,
        Severity::Error,
        "only a request in flight is cancelled",
    );
    // An id never sent, and initialize.
    let mut events = opened(INIT);
    let never = cancel("\"nope\"");
    events.push(C(&never));
    one(
        &complete(&events),
        LawId::HostCancelValid,
        Severity::Error,
        "which the host never sent",
    );
    let initialize = cancel("0");
    let verdict = complete(&[C(INIT), C(&initialize), S(ANSWER), C(INITIALIZED)]);
    one(
        &verdict,
        LawId::HostCancelValid,
        Severity::Error,
        "names `initialize`",
    );
}

#[test]
fn host_messages_valid() {
    let mut events = opened(INIT);
    events.extend([
        C("hello"),
        C(""),
        C(r#"[{"jsonrpc":"2.0","id":5,"method":"ping"}]"#),
        C(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":7}}"#),
        C(r#"{"id":7,"method":"ping"}"#),
    ]);
    let found = found(&complete(&events), LawId::HostMessagesValid);
    assert_eq!(found.len(), 5, "{found:?}");
    assert!(found[0].1.contains("the line is no JSON"));
    assert!(found[1].1.contains("an empty line"));
    assert!(found[2].1.contains("only 2025-03-26 has batches"));
    assert!(found[3].1.contains("/params/name: expected a string"));
    assert!(found[4].1.contains("missing required property `jsonrpc`"));

    // 2025-03-26 has batches, but never with initialize.
    let init = INIT.replace("2025-11-25", "2025-03-26");
    let answer = ANSWER.replace("2025-11-25", "2025-03-26");
    let batch = r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}]"#;
    clean(&complete(&[C(&init), S(&answer), C(INITIALIZED), C(batch)]));
    let batched = format!("[{init}]");
    one(
        &complete(&[C(&batched)]),
        LawId::HostMessagesValid,
        Severity::Error,
        "`initialize` in a batch",
    );

    // 2026-07-28: `_meta` on every request.
    let verdict = complete(&[
        C(DISCOVER),
        S(DISCOVERED),
        C(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#),
    ]);
    one(
        &verdict,
        LawId::HostMessagesValid,
        Severity::Error,
        "missing required property `_meta`",
    );

    // An answer to a server request holds its result type.
    let mut events = opened(INIT_ROOTS);
    events.extend([
        S(r#"{"jsonrpc":"2.0","id":"r","method":"roots/list"}"#),
        C(r#"{"jsonrpc":"2.0","id":"r","result":{"roots":[{"uri":"https://x"}]}}"#),
    ]);
    one(
        &complete(&events),
        LawId::HostMessagesValid,
        Severity::Error,
        "must be a file:// URI",
    );
}

#[test]
fn host_shutdown_order() {
    let ended = |events: &[Ev<'_>], ending: Ending| {
        let mut all = opened(INIT);
        all.extend(events.iter().map(|event| match event {
            Eof => Eof,
            Sig(signal) => Sig(*signal),
            Exit => Exit,
            Wait(seconds) => Wait(*seconds),
            _ => unreachable!(),
        }));
        run(&all, ending)
    };
    let complete = Ending::Recorded { complete: true };
    let cut = Ending::Recorded { complete: false };
    // Stdin closed, the server exits: as the specification asks.
    let verdict = ended(&[Eof, Exit], complete);
    assert_eq!(status(&verdict, LawId::HostShutdownOrder), LawStatus::Held);
    // Stdin closed, a wait, SIGTERM: held.
    let verdict = ended(&[Eof, Wait(2.0), Sig(15), Exit], complete);
    assert_eq!(status(&verdict, LawId::HostShutdownOrder), LawStatus::Held);
    // SIGTERM at once after closing stdin.
    one(
        &ended(&[Eof, Sig(15), Exit], complete),
        LawId::HostShutdownOrder,
        Severity::Warning,
        "a host waits for the server to exit",
    );
    // SIGTERM with stdin open.
    one(
        &ended(&[Sig(15), Exit], complete),
        LawId::HostShutdownOrder,
        Severity::Warning,
        "SIGTERM while the server's stdin was still open",
    );
    // The recorder killed with stdin open.
    one(
        &ended(&[], cut),
        LawId::HostShutdownOrder,
        Severity::Warning,
        "without closing stdin first",
    );
    // What cannot be told is skipped, and says why.
    for (events, ending, why) in [
        (&[Eof][..], cut, "whether the host waited is not recorded"),
        (&[Exit][..], complete, "the server ended the session itself"),
        (
            &[Eof, Exit][..],
            Ending::NotRecorded,
            "a version-1 transcript",
        ),
    ] {
        let verdict = ended(events, ending);
        assert!(
            matches!(status(&verdict, LawId::HostShutdownOrder), LawStatus::Skipped(reason) if reason.contains(why)),
            "{why}: {:?}",
            status(&verdict, LawId::HostShutdownOrder)
        );
    }
}

#[test]
fn host_mrtr_retry() {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ask","arguments":{{}},{meta}}}}}"#
    );
    let input_required = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"who":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s-1"}}"#;
    let retry = |id: u32, state: &str, responses: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ask","arguments":{{}},"requestState":{state},"inputResponses":{responses},{meta}}}}}"#
        )
    };
    let good = retry(2, "\"s-1\"", r#"{"who":{"action":"decline"}}"#);
    let verdict = complete(&[C(&call), S(input_required), C(&good)]);
    clean(&verdict);
    assert_eq!(status(&verdict, LawId::HostMrtrRetry), LawStatus::Held);
    for (retried, words) in [
        (
            retry(2, "\"s-2\"", r#"{"who":{"action":"decline"}}"#),
            "changed the requestState",
        ),
        (retry(2, "\"s-1\"", "{}"), "answers no `who`"),
        (
            retry(1, "\"s-1\"", r#"{"who":{"action":"decline"}}"#),
            "goes under the id 1",
        ),
    ] {
        one(
            &complete(&[C(&call), S(input_required), C(&retried)]),
            LawId::HostMrtrRetry,
            Severity::Error,
            words,
        );
    }
}

#[test]
fn host_progress_tokens() {
    let call = |id: u32, token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","_meta":{{"progressToken":{token}}}}}}}"#
        )
    };
    let (first, second) = (call(1, "\"t\""), call(2, "\"t\""));
    let mut events = opened(INIT);
    events.extend([C(&first), C(&second)]);
    one(
        &complete(&events),
        LawId::HostProgressTokens,
        Severity::Error,
        "which `tools/call` (line 5) still in flight carries",
    );
    // Progress for a server request the host has not answered, rising.
    let sampling = r#"{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5,"_meta":{"progressToken":9}}}"#;
    let progress = |value: f64| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":9,"progress":{value}}}}}"#
        )
    };
    let (low, high) = (progress(1.0), progress(2.0));
    let mut events = opened(INIT);
    events.extend([S(sampling), C(&low), C(&high)]);
    let verdict = complete(&events);
    clean(&verdict);
    let mut events = opened(INIT);
    events.extend([S(sampling), C(&high), C(&low)]);
    one(
        &complete(&events),
        LawId::HostProgressTokens,
        Severity::Error,
        "goes from 2 to 1",
    );
    let mut events = opened(INIT);
    events.push(C(&low));
    one(
        &complete(&events),
        LawId::HostProgressTokens,
        Severity::Error,
        "which no server request awaiting the host's answer carries",
    );
}

#[test]
fn host_era_probe() {
    let discovered = DISCOVERED;
    let init = INIT.replace("\"id\":0", "\"id\":2");
    let verdict = complete(&[C(DISCOVER), S(discovered), C(&init)]);
    one(
        &verdict,
        LawId::HostEraProbe,
        Severity::Warning,
        "after the server answered a 2026-07-28 request",
    );
    let verdict = complete(&[C(DISCOVER), S(discovered), Eof, Exit]);
    clean(&verdict);
    assert_eq!(status(&verdict, LawId::HostEraProbe), LawStatus::Held);
    assert!(matches!(
        status(&verdict, LawId::HostFirstMessage),
        LawStatus::Skipped(reason) if reason.contains("a 2026-07-28 session has no initialize")
    ));
}

/// The official SDK clients' sessions bundled with the crate (the
/// TypeScript 1.x and Python 2.x clients, against the demo server, `serve`,
/// `mock`, server-everything and the notes example, and as hosts against
/// `mcp-replay mock exercise` in both eras, recorded by
/// `scripts/mock-client.sh --record`) keep every host law, in both
/// profiles.
// See: #27
#[test]
fn the_official_sdk_clients_keep_the_host_laws() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut judged = 0;
    let mut exercised = 0;
    for dir in [
        "transcripts",
        "examples/notes/transcripts",
        "tests/data",
        "tests/data/hosts",
    ] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|ext| ext != "jsonl") {
                continue;
            }
            let transcript = crate::transcript::Transcript::read(&path).unwrap();
            for profile in [Profile::Core, Profile::Spec] {
                let verdict = super::judge_transcript(&transcript, profile);
                assert!(
                    verdict.findings.is_empty(),
                    "{}: {:#?}",
                    path.display(),
                    verdict.findings
                );
                assert!(verdict.host.is_some(), "{}", path.display());
                if dir == "tests/data/hosts" {
                    // Exercised: the server asked, the host answered,
                    // cancelled, and ended the session on record.
                    for law in [
                        LawId::HostAnswersServerRequests,
                        LawId::HostCancelValid,
                        LawId::HostShutdownOrder,
                    ] {
                        assert_eq!(
                            status(&verdict, law),
                            LawStatus::Held,
                            "{}: {law}",
                            path.display()
                        );
                    }
                }
            }
            judged += 1;
            exercised += usize::from(dir == "tests/data/hosts");
        }
    }
    assert!(judged >= 13, "judged {judged}");
    assert_eq!(exercised, 3);
}

/// A host that writes garbage without end costs the judge bounded memory:
/// the first findings of a law are listed, the rest counted.
#[test]
fn findings_past_the_first_ten_of_a_law_are_counted() {
    let garbage: Vec<Ev<'_>> = (0..25).map(|_| C("garbage")).collect();
    let verdict = complete(&garbage);
    assert_eq!(found(&verdict, LawId::HostMessagesValid).len(), 10);
    assert!(
        verdict
            .notes
            .contains(&"15 more findings of host-messages-valid not listed".to_owned()),
        "{:?}",
        verdict.notes
    );
}

/// The host's requirements of a verdict, graded as a run grades a host.
fn graded(verdict: Verdict) -> Vec<crate::report::RequirementOutcome> {
    let mut report = crate::report::Report::default();
    report.hosts.push(
        verdict
            .into_result("t.jsonl".to_owned(), std::time::Duration::ZERO)
            .graded(&[], false),
    );
    report.grade_requirements();
    report.requirements
}

fn requirement<'a>(
    outcomes: &'a [crate::report::RequirementOutcome],
    id: &str,
) -> &'a crate::report::RequirementStatus {
    &outcomes
        .iter()
        .find(|outcome| outcome.id == id)
        .unwrap_or_else(|| panic!("no outcome for {id}"))
        .status
}

/// Every host requirement gets an outcome: held where the session showed
/// it kept, failed where a finding names it, not observed with why where
/// the record cannot show it, not applicable to the revision spoken or a
/// capability the host did not declare.
#[test]
fn every_host_requirement_gets_an_outcome() {
    use crate::laws::registry::{REGISTRY, Side};
    use crate::report::RequirementStatus as R;

    let mut events = opened(INIT);
    events.extend([
        // The id of `initialize` again.
        C(r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#),
        S(r#"{"jsonrpc":"2.0","id":0,"result":{"tools":[]}}"#),
        S(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#),
        C(r#"{"jsonrpc":"2.0","id":"p","result":{}}"#),
    ]);
    let verdict = run(&events, Ending::NotRecorded);
    assert_eq!(
        verdict.findings[0].requirement,
        Some("host-request-id-unique"),
        "{:#?}",
        verdict.findings
    );
    assert!(
        verdict
            .coverage
            .revisions
            .contains(&crate::revision::Revision::V2025_11_25)
    );
    let outcomes = graded(verdict);
    assert_eq!(
        outcomes.len(),
        REGISTRY.iter().filter(|r| r.side == Side::Host).count()
    );
    assert!(outcomes.iter().all(|outcome| outcome.side == Side::Host));
    assert_eq!(outcomes[0].subject, "host 1.0 (t.jsonl)");
    assert_eq!(requirement(&outcomes, "host-request-id-unique"), &R::Failed);
    assert_eq!(requirement(&outcomes, "host-request-id-type"), &R::Held);
    assert_eq!(requirement(&outcomes, "host-ping-empty-result"), &R::Held);
    assert_eq!(requirement(&outcomes, "host-init-initialized"), &R::Held);
    assert!(
        matches!(
            requirement(&outcomes, "host-stdio-shutdown-order"),
            R::NotObserved(why) if why.contains("version-1 transcript")
        ),
        "{:?}",
        requirement(&outcomes, "host-stdio-shutdown-order")
    );
    assert!(matches!(
        requirement(&outcomes, "host-mrtr-new-id"),
        R::NotApplicable(why) if why.contains("2025-11-25")
    ));
    // The host declared no roots: what roots ask does not apply.
    assert!(
        matches!(
            requirement(&outcomes, "host-roots-file-uris"),
            R::NotObserved(_) | R::NotApplicable(_)
        ),
        "{:?}",
        requirement(&outcomes, "host-roots-file-uris")
    );
}

/// A host that declares a capability is held to what it asks; one that
/// declares others is not.
#[test]
fn the_capabilities_a_host_declares_decide_what_applies() {
    use crate::report::RequirementStatus as R;
    let mut events = opened(INIT_ROOTS);
    events.extend([
        S(r#"{"jsonrpc":"2.0","id":"r","method":"roots/list"}"#),
        C(r#"{"jsonrpc":"2.0","id":"r","result":{"roots":[]}}"#),
        Eof,
        Exit,
    ]);
    let verdict = complete(&events);
    clean(&verdict);
    assert!(verdict.coverage.capabilities.contains("roots"));
    let outcomes = graded(verdict);
    assert_eq!(requirement(&outcomes, "host-roots-capability"), &R::Held);
    assert_eq!(
        requirement(&outcomes, "host-stdio-shutdown-order"),
        &R::Held
    );
    assert!(
        matches!(
            requirement(&outcomes, "host-sampling-errors"),
            R::NotApplicable(why) if why == "the host does not declare `sampling`"
        ),
        "{:?}",
        requirement(&outcomes, "host-sampling-errors")
    );
    assert!(matches!(
        requirement(&outcomes, "host-sampling-capability"),
        R::NotObserved(why) if why.contains("sampling/createMessage")
    ));
}
