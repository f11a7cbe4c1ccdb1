//! The serve loop, driven through the replay double with no host and no
//! child process (MCP-CORE r1 §2¶13). Each test names the paragraph of
//! MCP-CORE r1 it holds the loop to.

use std::collections::HashMap;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::transcript::{ReplayTransport, Transcript};

/// A tool answering with one fixed report, under any name.
struct Fixed {
    name: &'static str,
    report: &'static str,
}

impl Tool for Fixed {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            self.name,
            "answers a fixed report",
            json!({"type": "object"}),
        )
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        ToolOutput::ok(self.report)
    }
}

/// `echo {text}`: answers with its text.
struct Echo;

impl Tool for Echo {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "echo",
            "answers with its text",
            json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": false
            }),
        )
    }

    fn run(&self, args: &Value) -> ToolOutput {
        ToolOutput::ok(args["text"].as_str().unwrap_or_default())
    }
}

/// `fail`: always fails.
struct Fail;

impl Tool for Fail {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("fail", "always fails", json!({"type": "object"}))
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        ToolOutput::error("FAIL REQ-X-001: the gate found 2 findings")
    }
}

/// `panics`: panics.
struct Panics;

impl Tool for Panics {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("panics", "panics", json!({"type": "object"}))
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        panic!("the tool broke");
    }
}

/// `args`: answers with the arguments it received.
struct Args;

impl Tool for Args {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new(
            "args",
            "answers with its arguments",
            json!({"type": "object"}),
        )
    }

    fn run(&self, args: &Value) -> ToolOutput {
        ToolOutput::ok(args.to_string())
    }
}

fn server() -> Server {
    let tools = ToolSet::new()
        .with(Fixed {
            name: "zeta",
            report: "z",
        })
        .with(Echo)
        .with(Fail)
        .with(Panics)
        .with(Args);
    Server::new("test-server", "1.2.3", tools).without_capture()
}

/// Serves `lines` and returns every line written.
fn serve_raw(server: &Server, lines: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let mut transport = ReplayTransport::from_lines(lines);
    server
        .serve(&mut transport)
        .expect("the replay double never fails");
    transport.written().to_vec()
}

/// Serves `lines` and parses every line written as JSON.
fn serve(server: &Server, lines: &[&str]) -> Vec<Value> {
    let lines = lines.iter().map(|line| line.as_bytes().to_vec()).collect();
    serve_raw(server, lines)
        .iter()
        .map(|line| serde_json::from_slice(line).expect("every answer is JSON"))
        .collect()
}

fn call(id: i64, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

fn error_code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}

/// MCP-CORE r1 §1¶05 and §1¶06: every answer is one compact JSON object on
/// one line, even when the report it carries has newlines in it.
#[test]
fn every_answer_is_one_json_object_on_one_line() {
    let lines = [
        call(
            1,
            json!({"name": "echo", "arguments": {"text": "a\nb\r\nc"}}),
        ),
        call(2, json!({"name": "fail"})),
        "not json".to_owned(),
    ];
    let lines = lines.iter().map(|line| line.as_bytes().to_vec()).collect();
    let written = serve_raw(&server(), lines);
    assert_eq!(written.len(), 3);
    for line in &written {
        assert!(!line.contains(&b'\n'), "a raw newline in {line:?}");
        let answer: Value = serde_json::from_slice(line).unwrap();
        assert!(answer.is_object());
        assert_eq!(answer["jsonrpc"], "2.0");
    }
    let first: Value = serde_json::from_slice(&written[0]).unwrap();
    assert_eq!(first["result"]["content"][0]["text"], "a\nb\r\nc");
}

/// MCP-CORE r1 §1¶07: initialize answers 2024-11-05, whatever the client
/// asked for, with serverInfo and the tools capability (§2¶15).
#[test]
fn initialize_answers_2024_11_05_whatever_the_client_asked() {
    let answers = serve(
        &server(),
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize"}"#,
        ],
    );
    assert_eq!(answers.len(), 3);
    for answer in &answers {
        assert_eq!(
            answer["result"],
            json!({
                "protocolVersion": "2024-11-05",
                "serverInfo": {"name": "test-server", "version": "1.2.3"},
                "capabilities": {"tools": {"listChanged": false}}
            })
        );
    }
}

/// MCP-CORE r1 §1¶08 and §1¶09: an id present and non-null makes a request,
/// answered exactly once; an absent or null id makes a notification, never
/// answered, whatever its method.
#[test]
fn requests_are_answered_once_and_notifications_never() {
    let answers = serve(
        &server(),
        &[
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#,
            r#"{"jsonrpc":"2.0","method":"no/such/notification","params":"odd"}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fail"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        ],
    );
    let ids: Vec<&Value> = answers.iter().map(|answer| &answer["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2)]);
}

/// MCP-CORE r1 §1¶09: the answer echoes the id with its JSON type, so `7`
/// and `"7"` stay apart.
#[test]
fn string_and_number_ids_are_echoed_with_their_type() {
    let answers = serve(
        &server(),
        &[
            r#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":-1,"method":"nope"}"#,
        ],
    );
    let ids: Vec<&Value> = answers.iter().map(|answer| &answer["id"]).collect();
    assert_eq!(ids, [&json!("7"), &json!(7), &json!(""), &json!(-1)]);
}

/// A host's response to nothing the server asked is absorbed: the server
/// sends no requests of its own.
#[test]
fn an_unsolicited_response_gets_no_reply() {
    let answers = serve(
        &server(),
        &[
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
        ],
    );
    assert_eq!(answers, [json!({"jsonrpc": "2.0", "id": 7, "result": {}})]);
}

/// MCP-CORE r1 §1¶10: a line that is no frame gets -32700 (with the id when
/// one can be read) and the loop goes on to the next line.
#[test]
fn malformed_lines_get_a_parse_error_and_the_loop_goes_on() {
    let lines: Vec<Vec<u8>> = vec![
        b"not json".to_vec(),
        b"\xff\xfe\x00garbage".to_vec(),
        b"[1,2,3]".to_vec(),
        b"".to_vec(),
        br#"{"jsonrpc":"2.0","id":9}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":"s","method":5}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec(),
    ];
    let answers: Vec<Value> = serve_raw(&server(), lines)
        .iter()
        .map(|line| serde_json::from_slice(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 8);
    for answer in &answers[..7] {
        assert_eq!(error_code(answer), Some(-32700), "{answer}");
    }
    let ids: Vec<&Value> = answers.iter().map(|answer| &answer["id"]).collect();
    assert_eq!(
        ids,
        [
            &Value::Null,
            &Value::Null,
            &Value::Null,
            &Value::Null,
            &json!(9),
            &json!("s"),
            &Value::Null,
            &json!(1)
        ]
    );
    assert_eq!(answers[7]["result"], json!({}));
}

/// MCP-CORE r1 §1¶06: a CRLF terminator and a leading byte-order mark are
/// read as the host meant the line.
#[test]
fn a_crlf_terminator_and_a_byte_order_mark_are_tolerated() {
    let lines = vec![
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r".to_vec(),
        b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}".to_vec(),
    ];
    let written = serve_raw(&server(), lines);
    assert_eq!(
        written,
        [
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":2,"result":{}}"#.to_vec()
        ]
    );
}

/// A transport whose reads or writes fail after a number of lines.
struct Dying {
    lines: Vec<&'static str>,
    fail_reads: bool,
    written: usize,
}

impl Transport for Dying {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        line.clear();
        match self.lines.pop() {
            Some(next) => {
                line.extend_from_slice(next.as_bytes());
                Ok(true)
            }
            None if self.fail_reads => Err(TransportError::Read(std::io::Error::other("gone"))),
            None => Ok(false),
        }
    }

    fn write_line(&mut self, _line: &[u8]) -> Result<(), TransportError> {
        if self.fail_reads {
            self.written += 1;
            Ok(())
        } else {
            Err(TransportError::Write(std::io::ErrorKind::BrokenPipe.into()))
        }
    }
}

/// MCP-CORE r1 §1¶10: the loop ends only at end of input (Ok) or a dead
/// channel (the transport's error).
#[test]
fn the_loop_ends_at_end_of_input_or_on_a_dead_channel() {
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut dead_reads = Dying {
        lines: vec![ping, "garbage"],
        fail_reads: true,
        written: 0,
    };
    let res = server().serve(&mut dead_reads);
    assert!(matches!(res, Err(TransportError::Read(_))), "{res:?}");
    assert_eq!(dead_reads.written, 2);

    let mut dead_writes = Dying {
        lines: vec![ping],
        fail_reads: false,
        written: 0,
    };
    let res = server().serve(&mut dead_writes);
    assert!(matches!(res, Err(TransportError::Write(_))), "{res:?}");

    let mut replay = ReplayTransport::from_lines([ping]);
    assert!(server().serve(&mut replay).is_ok());
}

/// MCP-CORE r1 §1¶11: the layer's one error enum; every variant cites the
/// mechanism that failed and names where the fix is.
#[test]
fn transport_errors_cite_the_contract_and_name_a_fix() {
    let io = || std::io::Error::other("x");
    let errors = [
        TransportError::Read(io()),
        TransportError::Write(io()),
        TransportError::ClaimStdio(io()),
        TransportError::StdioBusy,
        TransportError::CaptureFile(io()),
        TransportError::Redirect(io()),
        TransportError::CaptureBusy,
    ];
    let mut messages = Vec::new();
    for error in &errors {
        let message = error.to_string();
        assert!(message.contains("(MCP-CORE r1 §"), "no citation: {message}");
        // The fix follows the citation: after `);` or inside it, after `:`.
        let (_, after) = message.split_once("(MCP-CORE r1 §").unwrap();
        assert!(
            after.contains(':') || after.contains(';'),
            "no fix: {message}"
        );
        assert!(!message.ends_with('.'), "{message}");
        messages.push(message);
    }
    messages.sort();
    messages.dedup();
    assert_eq!(messages.len(), errors.len());
    assert!(TransportError::CaptureBusy.to_string().contains("§4¶24"));
}

/// MCP-CORE r1 §2¶12 and §2¶13: a recorded transcript drives the whole loop
/// through the replay double, and the answers equal the recorded ones.
#[test]
fn a_transcript_drives_the_loop_with_no_child_process() {
    let transcript = concat!(
        r#"{"format":"mcp-replay-transcript","version":1,"tool":"mcp-replay 0.1.0","created":"2026-01-01T00:00:00Z","command":["test-server"]}"#,
        "\n",
        r#"{"t":0.0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}}"#,
        "\n",
        r#"{"t":0.1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"tools":{"listChanged":false}},"protocolVersion":"2024-11-05","serverInfo":{"name":"test-server","version":"1.2.3"}}}}"#,
        "\n",
        r#"{"t":0.2,"dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
        "\n",
        r#"{"t":0.3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}"#,
        "\n",
        r#"{"t":0.4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"hi","type":"text"}],"isError":false}}}"#,
        "\n",
        r#"{"t":0.5,"exit":{"code":0}}"#,
        "\n",
    );
    let transcript = Transcript::from_reader(transcript.as_bytes(), "inline.jsonl").unwrap();
    let mut transport = ReplayTransport::from_transcript(&transcript);
    server().serve(&mut transport).unwrap();
    let parse = |lines: &[Vec<u8>]| -> Vec<Value> {
        lines
            .iter()
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    };
    assert_eq!(
        parse(transport.written()),
        parse(&ReplayTransport::expected(&transcript))
    );
}

/// MCP-CORE r1 §2¶14 and §2¶15: ping answers `{}`; tools/list answers the
/// descriptors sorted by name; an unknown method is -32601.
#[test]
fn ping_tools_list_and_unknown_methods() {
    let answers = serve(
        &server(),
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#,
        ],
    );
    assert_eq!(answers[0]["result"], json!({}));
    let names: Vec<&str> = answers[1]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["args", "echo", "fail", "panics", "zeta"]);
    assert_eq!(answers[1]["result"], answers[2]["result"]);
    assert_eq!(error_code(&answers[3]), Some(-32601));
}

/// MCP-CORE r1 §2¶15: a tools/call without a usable name or with
/// non-object arguments is -32602; an unknown tool is -32601.
#[test]
fn tools_call_params_are_checked() {
    let answers = serve(
        &server(),
        &[
            &call(1, json!({"arguments": {}})),
            &call(2, json!({"name": 5})),
            &call(3, json!({"name": "echo", "arguments": "text"})),
            &call(4, json!({"name": "echo", "arguments": [1]})),
            &call(5, json!("echo")),
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call"}"#,
            &call(7, json!({"name": "nope", "arguments": {}})),
        ],
    );
    let codes: Vec<Option<i64>> = answers.iter().map(error_code).collect();
    assert_eq!(
        codes,
        [
            Some(-32602),
            Some(-32602),
            Some(-32602),
            Some(-32602),
            Some(-32602),
            Some(-32602),
            Some(-32601)
        ]
    );
    assert!(
        answers[6]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope")
    );
}

/// MCP-CORE r1 §3¶16 and §3¶17: a tool is its descriptor plus `run`;
/// tools/list shows the descriptor as given, and `run` gets the arguments
/// (an empty object when the host sent none).
#[test]
fn a_tool_is_its_descriptor_and_its_run() {
    let answers = serve(
        &server(),
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            &call(
                2,
                json!({"name": "args", "arguments": {"x": [1, {"y": null}]}}),
            ),
            &call(3, json!({"name": "args"})),
            &call(4, json!({"name": "args", "arguments": null})),
        ],
    );
    assert_eq!(
        answers[0]["result"]["tools"][0],
        json!({"name": "args", "description": "answers with its arguments", "inputSchema": {"type": "object"}})
    );
    let report = |answer: &Value| answer["result"]["content"][0]["text"].clone();
    assert_eq!(report(&answers[1]), json!(r#"{"x":[1,{"y":null}]}"#));
    assert_eq!(report(&answers[2]), json!("{}"));
    assert_eq!(report(&answers[3]), json!("{}"));
}

/// MCP-CORE r1 §3¶18: the last registration of a name wins, through the
/// loop too.
#[test]
fn the_last_registration_of_a_name_wins() {
    let mut tools = ToolSet::new();
    tools.insert(Fixed {
        name: "t",
        report: "first",
    });
    tools.insert(Fixed {
        name: "t",
        report: "second",
    });
    let server = Server::new("s", "1", tools).without_capture();
    let answers = serve(
        &server,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            &call(2, json!({"name": "t"})),
        ],
    );
    assert_eq!(answers[0]["result"]["tools"].as_array().unwrap().len(), 1);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "second");
}

/// MCP-CORE r1 §3¶19: a tool's failure, arguments that break its input
/// schema, and a tool that panics are all results with `isError: true`,
/// never protocol errors; and the loop goes on.
#[test]
fn tool_failures_are_results_never_protocol_errors() {
    let answers = serve(
        &server(),
        &[
            &call(1, json!({"name": "fail"})),
            &call(2, json!({"name": "echo", "arguments": {"text": 5}})),
            &call(3, json!({"name": "echo", "arguments": {}})),
            &call(4, json!({"name": "panics"})),
            r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        ],
    );
    for answer in &answers[..4] {
        assert!(answer.get("error").is_none(), "{answer}");
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        assert_eq!(answer["result"]["content"][0]["type"], "text");
    }
    let report = |answer: &Value| {
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        report(&answers[1]),
        "invalid arguments for `echo`:\n/text: expected a string, found a number"
    );
    assert_eq!(
        report(&answers[2]),
        "invalid arguments for `echo`:\narguments: missing required property `text`"
    );
    assert_eq!(
        report(&answers[3]),
        "the tool `panics` panicked: the tool broke"
    );
    assert_eq!(answers[4]["result"], json!({}));
}

/// MCP-CORE r1 §3¶20: a report is carried byte for byte, so the REQ-citing
/// grammar of the runner a tool wraps reaches the agent unchanged.
#[test]
fn reports_reach_the_host_verbatim() {
    let answers = serve(&server(), &[&call(1, json!({"name": "fail"}))]);
    assert_eq!(
        answers[0]["result"]["content"][0]["text"],
        "FAIL REQ-X-001: the gate found 2 findings"
    );
    let text = "line 1\n\tREQ-F-006 ✓ \u{1F600} \"quoted\" \\ \u{0007}";
    let answers = serve(
        &server(),
        &[&call(
            2,
            json!({"name": "echo", "arguments": {"text": text}}),
        )],
    );
    assert_eq!(answers[0]["result"]["content"][0]["text"], text);
}

/// The answers keep the shapes of the 2024-11-05 schema: each result is
/// checked, with the crate's own validator, against its definition in the
/// official `schema.json` (read from `../shared/spec` when it is there).
#[test]
fn answers_match_the_2024_11_05_schema() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/spec/schema/2024-11-05/schema.json"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        // A clone without the shared spec next to it has nothing to compare
        // with; the shapes are also pinned by the exact-value tests above.
        return;
    };
    let spec: Value = serde_json::from_str(&text).unwrap();
    let answers = serve(
        &server(),
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            &call(3, json!({"name": "echo", "arguments": {"text": "x"}})),
            &call(4, json!({"name": "fail"})),
            r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"nope"}"#,
            r#"{"jsonrpc":"2.0","id":"7"}"#,
        ],
    );
    let expected = [
        ("JSONRPCResponse", Some("InitializeResult")),
        ("JSONRPCResponse", Some("ListToolsResult")),
        ("JSONRPCResponse", Some("CallToolResult")),
        ("JSONRPCResponse", Some("CallToolResult")),
        ("JSONRPCResponse", Some("EmptyResult")),
        ("JSONRPCError", None),
        ("JSONRPCError", None),
    ];
    assert_eq!(answers.len(), expected.len());
    let against = |definition: &str, value: &Value| {
        let mut root = spec.clone();
        root["$ref"] = json!(format!("#/definitions/{definition}"));
        schema::validate(&root, value)
    };
    for (answer, (message, result)) in answers.iter().zip(expected) {
        let violations = against(message, answer);
        assert!(
            violations.is_empty(),
            "{answer} breaks {message}: {violations:?}"
        );
        if let Some(result) = result {
            let violations = against(result, &answer["result"]);
            assert!(
                violations.is_empty(),
                "{answer} breaks {result}: {violations:?}"
            );
        }
    }
    // The comparison has teeth: an answer missing a required key fails it.
    let broken = json!({"protocolVersion": "2024-11-05", "capabilities": {}});
    assert_eq!(
        against("InitializeResult", &broken)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["arguments: missing required property `serverInfo`"]
    );
}

/// A line for the property test, with what the loop must do with it.
#[derive(Debug, Clone)]
enum Line {
    /// A request with a unique id: answered exactly once.
    Request(Vec<u8>, Value),
    /// A notification: never answered.
    Notification(Vec<u8>),
    /// Anything that is no frame: answered once, with -32700.
    Garbage(Vec<u8>),
}

fn request_line(id: Value, method: &str, params: Option<Value>) -> Vec<u8> {
    let mut object = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        object["params"] = params;
    }
    object.to_string().into_bytes()
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,20}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{0,6}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn arb_method() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("initialize".to_owned()),
        Just("ping".to_owned()),
        Just("tools/list".to_owned()),
        Just("tools/call".to_owned()),
        Just("notifications/cancelled".to_owned()),
        ".{0,12}",
    ]
}

/// Lines that are never a frame: they do not start with `{` (after a BOM
/// the loop strips), so they cannot be a JSON object.
fn arb_garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Arbitrary bytes, non-UTF-8 included.
        prop::collection::vec(any::<u8>(), 0..64),
        // Huge lines.
        (1usize..200_000).prop_map(|n| vec![b'x'; n]),
        // JSON that is no object.
        arb_json()
            .prop_filter("not an object", |v| !v.is_object())
            .prop_map(|v| v.to_string().into_bytes()),
    ]
    .prop_map(|mut bytes| {
        bytes.retain(|&b| b != b'\n');
        if bytes.first() == Some(&b'{')
            || bytes.starts_with(b"\xEF\xBB\xBF")
            || looks_like_object(&bytes)
        {
            bytes.insert(0, b'#');
        }
        bytes
    })
}

/// Whether `bytes` would parse as a JSON object (leading whitespace or a
/// trailing `\r` could hide the brace from the first-byte test).
fn looks_like_object(bytes: &[u8]) -> bool {
    matches!(serde_json::from_slice::<Value>(bytes), Ok(Value::Object(_)))
}

fn arb_line(index: usize) -> impl Strategy<Value = Line> {
    // Ids are made unique by embedding the line's index.
    let id = prop_oneof![
        Just(json!(index)),
        Just(json!(format!("id-{index}"))),
        Just(json!(-(index as i64) - 1)),
    ];
    prop_oneof![
        (id, arb_method(), proptest::option::of(arb_json())).prop_map(|(id, method, params)| {
            Line::Request(request_line(id.clone(), &method, params), id)
        }),
        (
            arb_method(),
            proptest::option::of(arb_json()),
            any::<bool>()
        )
            .prop_map(|(method, params, null_id)| {
                let mut object = json!({"jsonrpc": "2.0", "method": method});
                if let Some(params) = params {
                    object["params"] = params;
                }
                if null_id {
                    object["id"] = Value::Null;
                }
                Line::Notification(object.to_string().into_bytes())
            }),
        (id_or_none(index), arb_json()).prop_map(|(id, extra)| {
            // An object without `method`, `result` or `error`: no frame.
            let mut object = json!({"jsonrpc": "2.0", "extra": extra});
            if let Some(id) = id {
                object["id"] = id;
            }
            Line::Garbage(object.to_string().into_bytes())
        }),
        arb_garbage().prop_map(Line::Garbage),
        Just(Line::Request(
            request_line(
                json!(format!("call-{index}")),
                "tools/call",
                Some(json!({"name": "echo", "arguments": {"text": "x"}}))
            ),
            json!(format!("call-{index}"))
        )),
    ]
}

fn id_or_none(index: usize) -> impl Strategy<Value = Option<Value>> {
    proptest::option::of(Just(json!(format!("bad-{index}"))))
}

fn arb_lines() -> impl Strategy<Value = Vec<Line>> {
    (0usize..40).prop_flat_map(|n| (0..n).map(arb_line).collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// MCP-CORE r1 §1¶08-10 as a property: whatever the lines, the loop never
    /// panics, answers every request exactly once and in order, answers no
    /// notification, and answers every other line with one -32700.
    #[test]
    fn any_sequence_of_lines_is_served_by_the_contract(lines in arb_lines()) {
        let server = server();
        let input: Vec<Vec<u8>> = lines
            .iter()
            .map(|line| match line {
                Line::Request(bytes, _) | Line::Notification(bytes) | Line::Garbage(bytes) => bytes.clone(),
            })
            .collect();
        let written = serve_raw(&server, input);
        let answers: Vec<Value> = written
            .iter()
            .map(|line| serde_json::from_slice(line).expect("every answer is JSON"))
            .collect();
        let expected: Vec<&Line> = lines
            .iter()
            .filter(|line| !matches!(line, Line::Notification(_)))
            .collect();
        prop_assert_eq!(answers.len(), expected.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (answer, line) in answers.iter().zip(expected) {
            prop_assert_eq!(&answer["jsonrpc"], "2.0");
            match line {
                Line::Request(_, id) => {
                    prop_assert_eq!(&answer["id"], id);
                    prop_assert!(answer.get("result").is_some() != answer.get("error").is_some());
                    *seen.entry(id.to_string()).or_default() += 1;
                }
                Line::Garbage(_) => prop_assert_eq!(error_code(answer), Some(-32700)),
                Line::Notification(_) => unreachable!("filtered out"),
            }
        }
        prop_assert!(seen.values().all(|&n| n == 1));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The stdio transport splits a byte stream into the same lines the
    /// replay double hands over, so the loop answers both alike, and every
    /// answer is flushed by the end of input.
    #[test]
    fn the_stdio_transport_serves_a_stream_like_the_replay_double(lines in arb_lines(), crlf in any::<bool>()) {
        use std::io::{Read, Seek, Write};

        let server = server();
        let input: Vec<Vec<u8>> = lines
            .iter()
            .map(|line| match line {
                Line::Request(bytes, _) | Line::Notification(bytes) | Line::Garbage(bytes) => bytes.clone(),
            })
            .collect();
        let mut stdin = tempfile::tempfile().unwrap();
        for line in &input {
            stdin.write_all(line).unwrap();
            stdin.write_all(if crlf { b"\r\n" } else { b"\n" }).unwrap();
        }
        stdin.rewind().unwrap();
        let stdout = tempfile::tempfile().unwrap();
        let mut transport = StdioTransport::new(&stdin, &stdout);
        server.serve(&mut transport).unwrap();
        let mut written = Vec::new();
        (&stdout).rewind().unwrap();
        (&stdout).read_to_end(&mut written).unwrap();

        let mut expected = Vec::new();
        for line in serve_raw(&server, input) {
            expected.extend_from_slice(&line);
            expected.push(b'\n');
        }
        if crlf {
            // A line that ended in `\r` already keeps one `\r` here, which
            // may change a parse error's wording but nothing else.
            let shape = |bytes: &[u8]| -> Vec<(Value, Value, bool)> {
                bytes
                    .split(|&b| b == b'\n')
                    .filter(|line| !line.is_empty())
                    .map(|line| serde_json::from_slice::<Value>(line).unwrap())
                    .map(|answer| (answer["id"].clone(), answer["error"]["code"].clone(), answer.get("result").is_some()))
                    .collect()
            };
            prop_assert_eq!(shape(&written), shape(&expected));
        } else {
            prop_assert_eq!(written, expected);
        }
    }
}

/// The numbered paragraphs of MCP-CORE r1, by section.
const PARAGRAPHS: [(u32, std::ops::RangeInclusive<u32>); 5] = [
    (1, 5..=11),
    (2, 12..=15),
    (3, 16..=20),
    (4, 21..=26),
    (5, 27..=29),
];

/// The citations (`§S¶NN`, or a range `§S¶NN-MM`) in `text`.
fn citations(text: &str) -> Vec<(u32, u32)> {
    let mut res = Vec::new();
    for (_, rest) in text
        .match_indices('§')
        .map(|(at, _)| text.split_at(at + '§'.len_utf8()))
    {
        let Some((section, rest)) = rest.split_once('¶') else {
            continue;
        };
        let Ok(section) = section.parse::<u32>() else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(first) = digits.parse::<u32>() else {
            continue;
        };
        let last = rest[digits.len()..]
            .strip_prefix('-')
            .map(|tail| {
                tail.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .and_then(|last| last.parse::<u32>().ok())
            .unwrap_or(first);
        res.extend((first..=last).map(|paragraph| (section, paragraph)));
    }
    res
}

/// The doc comments right above each `#[test]` in `source`.
fn test_docs(source: &str) -> Vec<String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut res = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.trim() != "#[test]" {
            continue;
        }
        let doc: Vec<&str> = lines[..index]
            .iter()
            .rev()
            .map(|line| line.trim())
            .take_while(|line| line.starts_with("///"))
            .collect();
        res.push(doc.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
    res
}

/// Every numbered paragraph of MCP-CORE r1 is named by the doc comment of
/// at least one test; and, where the seed is at hand, the list of
/// paragraphs is the seed's own.
#[test]
fn every_paragraph_of_the_contract_has_a_test() {
    let sources = [
        include_str!("tests.rs"),
        include_str!("tools.rs"),
        include_str!("transport.rs"),
        include_str!("schema.rs"),
        include_str!("../../tests/capture.rs"),
        include_str!("../../tests/cli/demo_server.rs"),
    ];
    let named: std::collections::BTreeSet<(u32, u32)> = sources
        .iter()
        .flat_map(|source| test_docs(source))
        .flat_map(|doc| citations(&doc))
        .collect();
    let mut missing = Vec::new();
    for (section, paragraphs) in PARAGRAPHS {
        for paragraph in paragraphs {
            if !named.contains(&(section, paragraph)) {
                missing.push(format!("§{section}¶{paragraph:02}"));
            }
        }
    }
    assert!(missing.is_empty(), "no test names {missing:?}");

    let seeds = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/seeds");
    let Some(seed) = std::fs::read_dir(seeds)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("000_"))
        })
    else {
        // A clone without the shared seeds next to it checks the list above.
        return;
    };
    let text = std::fs::read_to_string(seed).unwrap();
    let numbered: Vec<u32> = text
        .lines()
        .map(|line| line.trim_start_matches("• "))
        .filter(|line| line.len() > 2 && line.as_bytes()[..2].iter().all(u8::is_ascii_digit))
        .filter_map(|line| line[..2].parse().ok())
        .collect();
    let listed: Vec<u32> = PARAGRAPHS
        .iter()
        .flat_map(|(_, range)| range.clone())
        .collect();
    assert_eq!(numbered, listed);
}

#[test]
fn citations_read_single_paragraphs_and_ranges() {
    assert_eq!(
        citations("MCP-CORE r1 §1¶08-10 and §4¶24, not § or ¶3, §2¶7"),
        [(1, 8), (1, 9), (1, 10), (4, 24), (2, 7)]
    );
}

/// The contents of the fenced blocks marked `rust` (or, in rustdoc, unmarked)
/// in `text`, one string per block.
fn code_blocks(text: &str, doc_comments: bool) -> Vec<String> {
    let mut res = Vec::new();
    let mut block: Option<String> = None;
    for line in text.lines() {
        let line = if doc_comments {
            match line.trim_start().strip_prefix("///") {
                Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
                None => continue,
            }
        } else {
            line
        };
        match (&mut block, line.trim_end()) {
            (None, "```rust") => block = Some(String::new()),
            (None, "```") if doc_comments => block = Some(String::new()),
            (Some(_), "```") => res.extend(block.take()),
            (Some(code), _) => {
                code.push_str(line);
                code.push('\n');
            }
            (None, _) => {}
        }
    }
    res
}

/// The guide's Rust code is code the build compiles: the 30-line server is
/// `examples/hello-server.rs`, and the test snippet is a doctest of
/// `Server::serve`.
#[test]
fn the_guide_shows_code_the_build_compiles() {
    let guide = code_blocks(include_str!("../../docs/server-library.md"), false);
    assert_eq!(guide.len(), 2);
    assert_eq!(guide[0], include_str!("../../examples/hello-server.rs"));
    let doctests = code_blocks(include_str!("mod.rs"), true);
    assert!(doctests.contains(&guide[1]), "{doctests:#?}");
    let server_lines = guide[0]
        .lines()
        .skip_while(|line| line.starts_with("//!") || line.is_empty())
        .count();
    assert!(server_lines <= 30, "the server takes {server_lines} lines");
}
