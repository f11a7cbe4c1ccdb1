//! MCP-CORE r1 paragraph by paragraph: each test names the paragraph it
//! holds the loop to.

use serde_json::{Value, json};

use super::*;
use crate::schema::validate as schema;
use crate::transcript::{ReplayTransport, Transcript};

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

/// MCP-CORE r1 §1¶07: initialize answers 2024-11-05 when the client asks
/// for a revision the library does not speak (or for none), and a legacy
/// revision it speaks when asked for one, with serverInfo and the tools
/// capability (§2¶15).
#[test]
fn initialize_answers_2024_11_05_unless_asked_for_a_known_legacy_revision() {
    let asked = [
        (Some("2025-06-18"), "2025-06-18"),
        (Some("2024-11-05"), "2024-11-05"),
        (None, "2024-11-05"),
        (Some("1900-01-01"), "2024-11-05"),
        (Some("2026-07-28"), "2024-11-05"),
    ];
    for (requested, answered) in asked {
        let params = match requested {
            Some(version) => {
                json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}})
            }
            None => json!({}),
        };
        let line = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params});
        let answers = serve(&server(), &[&line.to_string()]);
        assert_eq!(
            answers[0]["result"],
            json!({
                "protocolVersion": answered,
                "serverInfo": {"name": "test-server", "version": "1.2.3"},
                "capabilities": {"tools": {"listChanged": false}}
            }),
            "{requested:?}"
        );
    }
}

/// MCP-CORE r1 §1¶08 and §1¶09: an id present and non-null makes a request,
/// answered exactly once; an absent id makes a notification, never
/// answered, whatever its method.
#[test]
fn requests_are_answered_once_and_notifications_never() {
    let answers = serve(
        &server(),
        &[
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#,
            r#"{"jsonrpc":"2.0","method":"no/such/notification","params":"odd"}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fail"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        ],
    );
    let ids: Vec<&Value> = answers.iter().map(|answer| &answer["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2)]);
}

/// MCP-CORE r1 §1¶09 reads a null id as a notification; JSON-RPC 2.0 §4
/// makes only a missing id one, and MCP allows no null id, so the library
/// answers a request with a null id -32600, with the request's id (null),
/// in every era and inside a 2025-03-26 batch, and goes on serving.
#[test]
fn a_null_id_is_an_invalid_request_answered_with_id_null() {
    let null_ping = r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#;
    let initialize = |revision: &str| {
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": revision}})
            .to_string()
    };
    let discover = r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    for first in [
        None,
        Some(initialize("2024-11-05")),
        Some(initialize("2025-11-25")),
        Some(discover.to_owned()),
    ] {
        let mut lines: Vec<&str> = first.iter().map(String::as_str).collect();
        lines.extend([
            null_ping,
            r#"{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        ]);
        let answers = serve(&server(), &lines);
        let answers = &answers[usize::from(first.is_some())..];
        assert_eq!(answers.len(), 3, "{first:?}: {answers:?}");
        for answer in &answers[..2] {
            assert_eq!(answer["id"], Value::Null, "{first:?}: {answer}");
            assert_eq!(error_code(answer), Some(-32600), "{first:?}: {answer}");
        }
        assert_eq!(answers[2]["id"], json!(1), "{first:?}");
    }
    let batch = serve(
        &server(),
        &[
            &initialize("2025-03-26"),
            &format!(r#"[{null_ping},{{"jsonrpc":"2.0","id":2,"method":"ping"}}]"#),
        ],
    );
    assert_eq!(batch[1][0]["id"], Value::Null, "{batch:?}");
    assert_eq!(error_code(&batch[1][0]), Some(-32600), "{batch:?}");
    assert_eq!(batch[1][1]["id"], json!(2), "{batch:?}");
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
    assert!(
        matches!(res, Err(ServeError::Transport(TransportError::Read(_)))),
        "{res:?}"
    );
    assert_eq!(dead_reads.written, 2);

    let mut dead_writes = Dying {
        lines: vec![ping],
        fail_reads: false,
        written: 0,
    };
    let res = server().serve(&mut dead_writes);
    assert!(
        matches!(res, Err(ServeError::Transport(TransportError::Write(_)))),
        "{res:?}"
    );

    let mut replay = ReplayTransport::from_lines([ping]);
    assert!(server().serve(&mut replay).is_ok());
}

/// MCP-CORE r1 §1¶11: the layer's errors (the transport's, and what
/// serving fails with besides); every variant cites the mechanism that
/// failed and names where the fix is.
#[test]
fn serve_errors_cite_the_contract_and_name_a_fix() {
    let io = || std::io::Error::other("x");
    let errors = [
        ServeError::Transport(TransportError::Read(io())),
        ServeError::Transport(TransportError::Write(io())),
        ServeError::ClaimStdio(io()),
        ServeError::StdioBusy,
        ServeError::CaptureFile(io()),
        ServeError::Redirect(io()),
        ServeError::CaptureBusy,
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
    assert!(ServeError::CaptureBusy.to_string().contains("§4¶24"));
    assert!(errors[0].is_hang_up() && errors[1].is_hang_up());
    assert!(errors[2..].iter().all(|error| !error.is_hang_up()));
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
/// official `schema.json`, where the schemas are at hand
/// (`crate::official_schemas`; the shapes are also pinned by the
/// exact-value tests above).
#[test]
fn answers_match_the_2024_11_05_schema() {
    let test = "server::tests::contract::answers_match_the_2024_11_05_schema";
    let Some(spec) = crate::official_schemas::schema(test, "2024-11-05") else {
        return;
    };
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

/// A tool that notes how many bytes the protocol's stdout held when it ran.
struct Watches {
    stdout: std::rc::Rc<std::fs::File>,
    seen: std::rc::Rc<std::cell::Cell<Option<u64>>>,
}

impl Tool for Watches {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("watches", "watches stdout", json!({"type": "object"}))
    }

    fn run(&self, _args: &Value) -> ToolOutput {
        self.seen.set(Some(self.stdout.metadata().unwrap().len()));
        ToolOutput::ok("watched")
    }
}

/// The answers written before a tool runs are sent before it runs, even
/// when the host pipelined the call behind them: a tool that takes long, or
/// ends the process, keeps no other answer from the host.
#[test]
fn answers_go_out_before_a_tool_runs() {
    use std::io::{Seek, Write};

    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut stdin = tempfile::tempfile().unwrap();
    writeln!(stdin, "{ping}\n{}", call(2, json!({"name": "watches"}))).unwrap();
    stdin.rewind().unwrap();
    let stdout = std::rc::Rc::new(tempfile::tempfile().unwrap());
    let seen = std::rc::Rc::new(std::cell::Cell::new(None));
    let tool = Watches {
        stdout: stdout.clone(),
        seen: seen.clone(),
    };
    let server = Server::new("s", "1", ToolSet::new().with(tool)).without_capture();
    let mut transport = StdioTransport::new(&stdin, &stdout);
    server.serve(&mut transport).unwrap();
    let ping_answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    assert_eq!(seen.get(), Some(ping_answer.len() as u64 + 1));
}

/// MCP-CORE r1 §1¶09: a request whose params nest deeper than serde_json
/// reads (128 levels) is still answered, with its id: a method that does
/// not read its params answers as usual, and `tools/call` answers -32602;
/// a notification like it gets no answer; nothing panics or ends the loop.
#[test]
fn requests_nested_too_deep_are_answered_with_their_id() {
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let answers = serve(
        &server(),
        &[
            &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{deep}}}"#),
            &format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"args","arguments":{{"x":{deep}}}}}}}"#
            ),
            &format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{deep}}}"#),
            &format!(r#"{{"jsonrpc":"2.0","id":3,"method":"initialize","params":{deep}}}"#),
            &format!(r#"{{"jsonrpc":"2.0","id":4,"method":"ping","extra":{deep}}}"#),
        ],
    );
    let ids: Vec<&Value> = answers.iter().map(|answer| &answer["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2), &json!(3), &json!(4)]);
    assert_eq!(answers[0]["result"], json!({}));
    assert_eq!(error_code(&answers[1]), Some(-32602), "{}", answers[1]);
    let message = answers[1]["error"]["message"].as_str().unwrap();
    assert!(message.contains("recursion limit"), "{message}");
    assert_eq!(answers[2]["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(answers[3]["result"], json!({}));
}

/// A transport that notes the capacity of the buffer each read is handed.
struct Measuring {
    lines: Vec<Vec<u8>>,
    capacities: Vec<usize>,
}

impl Transport for Measuring {
    fn read_line(&mut self, line: &mut Vec<u8>) -> Result<bool, TransportError> {
        self.capacities.push(line.capacity());
        line.clear();
        match self.lines.pop() {
            Some(next) => {
                line.extend_from_slice(&next);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn write_line(&mut self, _line: &[u8]) -> Result<(), TransportError> {
        Ok(())
    }
}

/// A huge line is answered, and its memory goes with it: the loop does not
/// keep a buffer the size of the largest line for the rest of the session.
#[test]
fn a_huge_line_leaves_no_huge_buffer_behind() {
    let huge = call(
        1,
        json!({"name": "echo", "arguments": {"text": "x".repeat(8 << 20)}}),
    );
    let ping = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.to_vec();
    let mut transport = Measuring {
        lines: vec![ping.clone(), ping, huge.into_bytes()],
        capacities: Vec::new(),
    };
    server().serve(&mut transport).unwrap();
    assert_eq!(transport.capacities.len(), 4);
    assert!(
        transport.capacities.iter().all(|&c| c <= 64 * 1024),
        "{:?}",
        transport.capacities
    );
}
