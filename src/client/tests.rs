//! The client over a scripted channel: what each kind of line means.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::*;

/// A channel that hands out the lines it was given, then times out.
#[derive(Default)]
struct Scripted {
    lines: VecDeque<Incoming>,
    sent: Vec<u8>,
}

impl Scripted {
    fn of(lines: &[&str]) -> Scripted {
        Scripted {
            lines: lines
                .iter()
                .map(|line| Incoming::Line {
                    bytes: line.as_bytes().to_vec(),
                    eol: true,
                    cut: false,
                })
                .collect(),
            sent: Vec::new(),
        }
    }
}

impl Channel for Scripted {
    fn send(&mut self, bytes: Vec<u8>) {
        self.sent.extend(bytes);
    }
    fn recv(&mut self, _deadline: Instant) -> Incoming {
        self.lines.pop_front().unwrap_or(Incoming::Timeout)
    }
    fn close_input(&mut self) {}
    fn exit_status(&mut self, _deadline: Instant) -> Option<i32> {
        None
    }
    fn kill(&mut self) {}
    fn stderr_tail(&self, _max: usize) -> String {
        String::new()
    }
    fn started_at(&self) -> Instant {
        Instant::now()
    }
}

fn client(lines: &[&str]) -> Client<Scripted> {
    Client::new(Scripted::of(lines), Redactor::default(), 5)
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(1)
}

/// The kinds of the messages of the next line.
fn next(client: &mut Client<Scripted>) -> Vec<Kind> {
    match client.recv(soon()) {
        Received::Line { messages, .. } => messages.into_iter().map(|m| m.kind).collect(),
        other => panic!("no line: {other:?}"),
    }
}

fn laws(client: &mut Client<Scripted>) -> Vec<(LawId, String)> {
    client
        .take_observations()
        .into_iter()
        .map(|o| (o.law, o.message))
        .collect()
}

#[test]
fn an_answer_names_the_request_it_answers_and_a_second_one_is_a_finding() {
    let mut c = client(&[
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    ]);
    c.expect_answer(RequestId::number(1), "tools/list");
    assert!(matches!(
        next(&mut c).as_slice(),
        [Kind::Response { reply: Reply::Answers { method, .. }, .. }] if method == "tools/list"
    ));
    assert!(c.pending().is_empty());
    assert!(laws(&mut c).is_empty());
    assert!(matches!(
        next(&mut c).as_slice(),
        [Kind::Response {
            reply: Reply::Again { .. },
            ..
        }]
    ));
    assert_eq!(
        laws(&mut c),
        [(
            LawId::RequestAnsweredOnce,
            "`tools/list` id=1 was answered 2 times".to_owned()
        )]
    );
}

#[test]
fn an_id_that_changed_its_type_answers_but_is_a_finding() {
    let mut c = client(&[r#"{"jsonrpc":"2.0","id":"7","result":{}}"#]);
    c.expect_answer(RequestId::number(7), "ping");
    assert!(matches!(
        next(&mut c).as_slice(),
        [Kind::Response { reply: Reply::Answers { sent, .. }, .. }] if *sent == RequestId::number(7)
    ));
    let observed = laws(&mut c);
    assert_eq!(observed.len(), 1);
    assert!(
        observed[0].1.contains("must keep its JSON type"),
        "{observed:?}"
    );
}

#[test]
fn strays_are_the_scripts_to_judge_while_expected() {
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#,
    ];
    let mut c = client(&lines);
    c.expect_answer(RequestId::number(1), "ping");
    c.expect_strays(true);
    for _ in 0..4 {
        next(&mut c);
    }
    assert!(laws(&mut c).is_empty());
    let mut c = client(&lines);
    c.expect_answer(RequestId::number(1), "ping");
    for _ in 0..4 {
        next(&mut c);
    }
    // A response without an id is never the client's to judge.
    assert_eq!(
        laws(&mut c)
            .into_iter()
            .map(|(_, message)| message)
            .collect::<Vec<_>>(),
        [
            "`ping` id=1 was answered 2 times",
            "a response with id 99 answers no request that was sent"
        ]
    );
}

#[test]
fn lines_that_are_no_messages_make_one_finding_with_a_count() {
    let mut c = client(&["hello", "world", r#"{"jsonrpc":"2.0","method":"x"}"#, "!"]);
    c.at(3);
    for _ in 0..4 {
        let _ = c.recv(soon());
    }
    assert_eq!(c.take_pre_serving().count, 3);
    let observed = c.take_observations();
    let [first] = observed.as_slice() else {
        panic!("{observed:?}");
    };
    assert_eq!(first.at, 3);
    assert_eq!(first.law, LawId::StdoutIsProtocol);
    assert_eq!(
        first.message,
        "a stdout line is no JSON-RPC message: not JSON (expected value): `hello`"
    );
    assert_eq!(c.more_not_protocol(), " (2 more such lines)");
    assert_eq!(c.notifications().get("x"), Some(&1));
}

#[test]
fn batches_are_messages_only_where_the_revision_has_them() {
    let batch = r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]"#;
    let mut c = client(&[batch]);
    c.speak(Revision::parse("2025-03-26").unwrap());
    c.expect_answer(RequestId::number(1), "ping");
    c.expect_answer(RequestId::number(2), "ping");
    assert_eq!(next(&mut c).len(), 2);
    assert!(c.pending().is_empty());
    let mut c = client(&[batch]);
    c.speak(Revision::parse("2025-06-18").unwrap());
    assert!(next(&mut c).is_empty());
    assert!(c.wrote_not_protocol());
}

#[test]
fn an_initialize_answer_names_the_revision_unless_one_was_given() {
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    let mut c = client(&[answer]);
    c.expect_answer(RequestId::number(1), "initialize");
    next(&mut c);
    assert_eq!(c.revision(), Revision::parse("2025-03-26"));
    let mut c = client(&[answer]);
    c.speak(Revision::parse("2024-11-05").unwrap());
    c.expect_answer(RequestId::number(1), "initialize");
    next(&mut c);
    assert_eq!(c.revision(), Revision::parse("2024-11-05"));
}

#[test]
fn messages_that_break_the_schema_are_observed_up_to_the_limit() {
    let bad = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":"none"}}"#;
    let mut c = Client::new(Scripted::of(&[bad, bad, bad]), Redactor::default(), 1);
    c.speak(Revision::parse("2025-06-18").unwrap());
    for n in 1..=3 {
        c.expect_answer(RequestId::number(n), "tools/list");
    }
    for _ in 0..3 {
        next(&mut c);
    }
    let observed = c.take_observations();
    // The first answer broke the schema; the two after it are also second
    // answers to id 1.
    assert_eq!(
        observed.iter().filter(|o| o.law == LawId::Schema).count(),
        1
    );
    assert_eq!(observed[0].request, Some(RequestId::number(1)));
    assert_eq!(c.schema_more(), 2);
}

#[test]
fn a_server_request_is_declined_as_a_bare_client_would() {
    let mut c = client(&[r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#]);
    let kinds = next(&mut c);
    let [Kind::Request { id, method }] = kinds.as_slice() else {
        panic!("{kinds:?}");
    };
    c.decline(id.clone(), method, "no roots".to_owned());
    let sent = String::from_utf8(c.channel_ref().sent.clone()).unwrap();
    assert!(sent.contains(r#""id":"s1""#) && sent.contains("-32601") && sent.ends_with('\n'));
}

#[test]
fn a_response_without_an_id_is_put_down_to_the_latest_line_without_one() {
    let mut c = client(&[]);
    assert_eq!(c.cause_without_id(), Cause::Nothing);
    c.unanswerable("a response without an id");
    c.at(4);
    c.sent_notification("notifications/initialized");
    c.at(5);
    c.sent_malformed();
    assert_eq!(c.cause_without_id(), Cause::Malformed { at: 5 });
    c.at(6);
    c.sent_notification("notifications/cancelled");
    assert_eq!(
        c.cause_without_id(),
        Cause::Notification {
            method: "notifications/cancelled".to_owned(),
            at: 6
        }
    );
    c.unanswerable("a response without an id");
    let observed = c.take_observations();
    assert_eq!(
        observed
            .iter()
            .map(|o| (o.law, o.at, o.message.as_str()))
            .collect::<Vec<_>>(),
        [
            (
                LawId::RequestAnsweredOnce,
                0,
                "a response without an id answers no request that was sent"
            ),
            (
                LawId::NotificationUnanswered,
                6,
                "a response without an id answers no request; the last notification sent was `notifications/cancelled`"
            )
        ]
    );
}

#[test]
fn structured_content_is_held_to_the_output_schema_its_tool_declared() {
    let list = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[
        {"name":"sum","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}},
        {"name":"free","inputSchema":{"type":"object"}}]}}"#
        .replace('\n', "");
    let lines = [
        list.as_str(),
        // A number: held.
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"sum":3}}}"#,
        // A string: broken.
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"sum":"3"}}}"#,
        // None at all: broken.
        r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"3"}]}}"#,
        // A failed run owes no structured content.
        r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}"#,
        // A tool without an outputSchema answers what it likes.
        r#"{"jsonrpc":"2.0","id":6,"result":{"content":[],"structuredContent":{"sum":"x"}}}"#,
    ];
    let mut c = client(&lines);
    c.speak(Revision::V2025_06_18);
    c.expect_answer(RequestId::number(1), "tools/list");
    for (id, tool) in [(2, "sum"), (3, "sum"), (4, "sum"), (5, "sum"), (6, "free")] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
        );
        c.expect_line(RequestId::number(id), "tools/call", line.as_bytes());
    }
    for _ in 0..lines.len() {
        next(&mut c);
    }
    assert_eq!(
        laws(&mut c),
        [
            (
                LawId::Schema,
                "the answer to `tools/call` of `sum` id=3 breaks the tool's outputSchema (2025-06-18 server/tools#output-schema): /result/structuredContent/sum: expected a number, found a string".to_owned()
            ),
            (
                LawId::Schema,
                "the answer to `tools/call` of `sum` id=4 breaks the tool's outputSchema (2025-06-18 server/tools#output-schema): /result: the tool declares an `outputSchema`, and the result has no `structuredContent`".to_owned()
            ),
        ]
    );
    // Revision 2025-03-26 has no structured output: nothing is held.
    let mut old = client(&[lines[0], lines[2]]);
    old.speak(Revision::V2025_03_26);
    old.expect_answer(RequestId::number(1), "tools/list");
    old.expect_line(
        RequestId::number(3),
        "tools/call",
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sum"}}"#,
    );
    next(&mut old);
    next(&mut old);
    assert_eq!(laws(&mut old), []);
}

/// The kinds of `outputSchema` a lenient validator refused valid answers
/// to: a correct answer is no finding, a broken one is, and one the judge
/// cannot decide is neither, but unjudged with why. See: #25
#[test]
fn structured_content_the_judge_cannot_decide_is_unjudged_not_held() {
    let list = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "tuple", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object",
            "properties": {"v": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}}}},
        {"name": "one", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object",
            "properties": {"v": {"enum": [1]}}}},
        {"name": "tenth", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object",
            "properties": {"v": {"multipleOf": 0.1}}}}
    ]}})
    .to_string();
    let answer = |id: i64, v: Value| {
        json!({"jsonrpc": "2.0", "id": id, "result": {"content": [], "structuredContent": {"v": v}}})
            .to_string()
    };
    let lines = [
        list,
        answer(2, json!(["a", 1])),
        answer(3, json!(["a", 1, 2])),
        answer(4, json!(1.0)),
        answer(5, json!(0.3)),
        answer(6, json!(0.35)),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut c = client(&lines);
    c.speak(Revision::V2025_06_18);
    c.expect_answer(RequestId::number(1), "tools/list");
    for (id, tool) in [
        (2, "tuple"),
        (3, "tuple"),
        (4, "one"),
        (5, "tenth"),
        (6, "tenth"),
    ] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
        );
        c.expect_line(RequestId::number(id), "tools/call", line.as_bytes());
    }
    for _ in 0..lines.len() {
        next(&mut c);
    }
    let observed = c.take_observations();
    assert!(
        observed
            .iter()
            .all(|o| o.requirement == Some("srv-tools-output-schema")),
        "{observed:?}"
    );
    let found: Vec<(LawId, String)> = observed.into_iter().map(|o| (o.law, o.message)).collect();
    let ids: Vec<bool> = ["id=3 ", "id=6 "]
        .iter()
        .map(|id| found.iter().any(|(_, message)| message.contains(id)))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(ids, [true, true], "{found:?}");
    assert!(
        found[0]
            .1
            .contains("/result/structuredContent/v/2: no value is allowed here"),
        "{found:?}"
    );
    // The requirement is observed where the judge decided, and missed,
    // with why, where it could not.
    assert!(c.coverage().observed.contains("srv-tools-output-schema"));
    assert!(
        c.coverage().missed["srv-tools-output-schema"].contains("0.3"),
        "{:?}",
        c.coverage().missed
    );
    let unjudged = c.take_unjudged();
    assert_eq!(unjudged.len(), 1, "{unjudged:?}");
    assert_eq!(unjudged[0].law, LawId::Schema);
    assert_eq!(unjudged[0].request, Some(RequestId::number(5)));
    assert!(
        unjudged[0].why.contains("0.3") && unjudged[0].why.contains("0.1"),
        "{unjudged:?}"
    );
    assert!(
        unjudged[0].note().starts_with(
            "not judged (schema): the `structuredContent` of the `tools/call` of `tenth` id=5"
        ),
        "{}",
        unjudged[0].note()
    );
}

/// A request is judged by the era it was sent in: the answer to one whose
/// `_meta` names 2026-07-28 is held to that revision in a session that
/// speaks 2024-11-05, and the answer to one without `_meta` to the session's.
#[test]
fn an_answer_is_judged_in_the_revision_its_request_named() {
    let mut c = client(&[
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#,
    ]);
    c.speak(Revision::V2024_11_05);
    let modern = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    c.expect_line(RequestId::number(1), "tools/list", modern.as_bytes());
    let legacy = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    c.expect_line(RequestId::number(2), "tools/list", legacy.as_bytes());
    next(&mut c);
    let found = laws(&mut c);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, LawId::Schema);
    assert!(
        found[0].1.contains("2026-07-28 schema") && found[0].1.contains("resultType"),
        "{}",
        found[0].1
    );
    next(&mut c);
    assert_eq!(laws(&mut c), []);
}

/// What a session shows of the requirements every message is held to is
/// noted as it is read: a line that is a message, an answer to a request
/// sent, a notification sent and gone past, the shape of a message held to
/// the revision; and what the server declared. Nothing is noted of what
/// did not come. See: #26
#[test]
fn coverage_notes_what_the_session_showed_and_nothing_else() {
    let mut c = client(&[
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
    ]);
    c.expect_answer(RequestId::number(1), method::INITIALIZE);
    assert!(c.coverage().observed.is_empty());
    next(&mut c);
    c.sent_notification("notifications/initialized");
    c.expect_answer(RequestId::number(2), method::PING);
    next(&mut c);
    let coverage = c.coverage();
    for id in [
        "srv-stdio-only-messages-on-stdout",
        "srv-stdio-one-message-per-line",
        "srv-stdio-utf8",
        "srv-jsonrpc-2-0",
        "srv-response-same-id",
        "srv-notification-never-answered",
        "srv-schema-valid-messages",
        "srv-result-object",
    ] {
        assert!(coverage.observed.contains(id), "{id}: {coverage:?}");
    }
    for id in [
        "srv-error-code-and-message",
        "srv-result-type",
        "srv-stdio-no-requests",
    ] {
        assert!(!coverage.observed.contains(id), "{id}: {coverage:?}");
    }
    assert_eq!(
        coverage.revisions.iter().copied().collect::<Vec<_>>(),
        vec![Revision::V2025_06_18]
    );
    let declared: Vec<&str> = coverage.capabilities.iter().map(String::as_str).collect();
    assert_eq!(declared, vec!["logging", "tools", "tools.listChanged"]);
}
