//! `mcp-replay mock`: recorded sessions served back as a fake server.
//! Matching, id remapping, notification placement, server requests, the
//! unmatched-request error and strict mode on a transcript written here;
//! then REQ-C-032 (docs/req-c-032.md), one test per
//! acceptance criterion, as for `serve`; and the gate: every bundled
//! transcript replays green against its own mock, whose probes hold too.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rustix::process::Signal;
use serde_json::{Value, json};

use crate::util::{
    Host, assert_idle_server_stays, assert_refuses_single_result_flags, bin, initialize,
    notification, request, shell_status,
};

/// The session the tests serve: a legacy handshake, a tool list, three
/// calls of `echo` (the first twice, with a log message before its answer
/// and a list change after it), a call of `ask` that asks the client for a
/// sampling first, and a progress notification of `slow`.
fn session(dir: &Path) -> PathBuf {
    let meta = |token: &str| json!({"progressToken": token});
    let lines = [
        json!({"format": "mcp-replay-transcript", "version": 1, "tool": "mcp-replay 0.1.0",
               "created": "2026-12-01T00:00:00Z", "command": ["recorded-server"],
               "ignore": ["/params/arguments/now"]}),
        json!({"t": 0.0, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "recorder", "version": "1"}}}}),
        json!({"t": 0.1, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 0, "result": {
               "protocolVersion": "2025-06-18",
               "capabilities": {"tools": {"listChanged": true}, "logging": {}},
               "serverInfo": {"name": "recorded", "version": "1.0"}}}}),
        json!({"t": 0.2, "dir": "c2s", "msg": {"jsonrpc": "2.0", "method": "notifications/initialized"}}),
        json!({"t": 0.3, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}),
        json!({"t": 0.4, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
               {"name": "ask", "inputSchema": {"type": "object"}},
               {"name": "echo", "inputSchema": {"type": "object",
                "properties": {"text": {"type": "string"}}, "required": ["text"]}},
               {"name": "slow", "inputSchema": {"type": "object"}}]}}}),
        json!({"t": 0.5, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "echo", "arguments": {"text": "a", "now": "10:00"}}}}),
        json!({"t": 0.6, "dir": "s2c", "msg": {"jsonrpc": "2.0", "method": "notifications/message",
               "params": {"level": "info", "data": "echoing a"}}}),
        json!({"t": 0.7, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 2,
               "result": {"content": [{"type": "text", "text": "a"}], "isError": false}}}),
        json!({"t": 0.8, "dir": "s2c", "msg": {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}}),
        json!({"t": 0.9, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "echo", "arguments": {"text": "b"}}}}),
        json!({"t": 1.0, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 3,
               "result": {"content": [{"type": "text", "text": "b"}], "isError": false}}}),
        json!({"t": 1.1, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "echo", "arguments": {"text": "a", "now": "10:01"}}}}),
        json!({"t": 1.2, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 4,
               "result": {"content": [{"type": "text", "text": "a again"}], "isError": false}}}),
        json!({"t": 1.3, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
               "params": {"name": "ask", "arguments": {}}}}),
        json!({"t": 1.4, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 0, "method": "sampling/createMessage",
               "params": {"messages": [], "maxTokens": 5}}}),
        json!({"t": 1.5, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 0,
               "result": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}}}),
        json!({"t": 1.6, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 5,
               "result": {"content": [{"type": "text", "text": "asked"}], "isError": false}}}),
        json!({"t": 1.7, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 6, "method": "tools/call",
               "params": {"name": "slow", "arguments": {}, "_meta": meta("p-recorded")}}}),
        json!({"t": 1.8, "dir": "s2c", "msg": {"jsonrpc": "2.0", "method": "notifications/progress",
               "params": {"progressToken": "p-recorded", "progress": 1}}}),
        json!({"t": 1.9, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 6,
               "result": {"content": [{"type": "text", "text": "slow"}], "isError": false}}}),
        json!({"t": 2.0, "exit": {"code": 0}}),
    ];
    let path = dir.join("session.jsonl");
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn mock(args: &[&str]) -> Host {
    let mut cmd = Command::new(bin());
    cmd.arg("mock").args(args);
    Host::spawn(cmd)
}

/// A mock of the test session, after the handshake.
fn opened(dir: &Path, extra: &[&str]) -> Host {
    let path = session(dir);
    let mut args = vec![path.to_str().unwrap()];
    args.extend(extra);
    let mut host = mock(&args);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    let init = answer(&mut host);
    assert_eq!(init["id"], 1, "{init}");
    host.send(format!("{}\n", notification("notifications/initialized")).as_bytes());
    host
}

fn answer(host: &mut Host) -> Value {
    serde_json::from_slice(&host.line()).expect("every stdout line is a JSON-RPC message")
}

fn send(host: &mut Host, id: Value, method: &str, params: Value) {
    host.send(format!("{}\n", request(id, method, params)).as_bytes());
}

fn echo(host: &mut Host, id: i64, text: &str) -> Value {
    send(
        host,
        json!(id),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": text}}),
    );
    answer(host)
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text result: {answer}"))
}

fn manifest() -> Value {
    let out = Command::new(bin()).arg("manifest").output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The last line of stderr, parsed as a ResponseEnvelope.
fn envelope(stderr: &str) -> Value {
    let last = stderr.lines().last().expect("stderr is not empty");
    let envelope: Value = serde_json::from_str(last)
        .unwrap_or_else(|err| panic!("the last stderr line is no JSON ({err}): {stderr}"));
    assert_eq!(envelope["ok"], false, "{envelope}");
    assert!(envelope["data"].is_null(), "{envelope}");
    assert!(envelope["meta"]["duration_ms"].is_u64(), "{envelope}");
    envelope
}

/// Exact params first (the ignore rule leaves `now` out), identical
/// requests in recorded order and then the last again, and a call of a
/// recorded tool with params never recorded answered by name.
#[test]
fn requests_are_matched_exactly_then_in_order_then_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &[]);
    assert_eq!(text(&echo(&mut host, 10, "b")), "b");
    // `echo a` twice recorded: the first answer, then the second, then the
    // second for ever. Each is preceded by nothing once the log is sent.
    let first = echo(&mut host, 11, "a");
    assert_eq!(first["method"], "notifications/message", "{first}");
    assert_eq!(text(&answer(&mut host)), "a");
    assert_eq!(
        answer(&mut host)["method"],
        "notifications/tools/list_changed"
    );
    assert_eq!(text(&echo(&mut host, 12, "a")), "a again");
    assert_eq!(text(&echo(&mut host, 13, "a")), "a again");
    // Params never recorded: the recorded calls of the same tool answer.
    let by_name = echo(&mut host, 14, "never recorded");
    assert_eq!(by_name["id"], 14);
    assert!(by_name["result"]["content"].is_array(), "{by_name}");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// Every answer carries the caller's id, number or string, never the
/// recorded one.
#[test]
fn answers_carry_the_callers_ids() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &[]);
    for id in [json!("a-string-id"), json!(987_654), json!("7")] {
        send(
            &mut host,
            id.clone(),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "b"}}),
        );
        let answer = answer(&mut host);
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(text(&answer), "b");
    }
    send(&mut host, json!("list"), "tools/list", Value::Null);
    assert_eq!(answer(&mut host)["id"], "list");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// Recorded notifications go out in their recorded place: before the
/// answer they preceded, after the one they followed; a progress
/// notification carries the caller's progress token. Client notifications
/// are never answered.
#[test]
fn notifications_keep_their_recorded_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &[]);
    assert_eq!(echo(&mut host, 20, "a")["method"], "notifications/message");
    let lines = [answer(&mut host), answer(&mut host)];
    assert_eq!(lines[0]["id"], 20);
    assert_eq!(lines[1]["method"], "notifications/tools/list_changed");
    send(
        &mut host,
        json!(21),
        "tools/call",
        json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": 42}}),
    );
    let progress = answer(&mut host);
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], 42, "{progress}");
    assert_eq!(text(&answer(&mut host)), "slow");
    // A notification of the client's gets nothing: the next line answers
    // the ping behind it.
    host.send(format!("{}\n", notification("notifications/cancelled")).as_bytes());
    send(&mut host, json!(22), "ping", Value::Null);
    let pong = answer(&mut host);
    assert_eq!(pong["id"], 22, "{pong}");
    assert_eq!(pong["result"], json!({}));
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// A recorded server request goes out, and the answer it led to waits for
/// the client's answer, while other requests are served meanwhile.
#[test]
fn a_server_request_is_sent_and_its_answer_awaited() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &[]);
    send(
        &mut host,
        json!(30),
        "tools/call",
        json!({"name": "ask", "arguments": {}}),
    );
    let asked = answer(&mut host);
    assert_eq!(asked["method"], "sampling/createMessage", "{asked}");
    let asked_id = asked["id"].clone();
    // Served meanwhile.
    assert_eq!(text(&echo(&mut host, 31, "b")), "b");
    host.send(
        format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": asked_id, "result": {"role": "assistant",
                   "content": {"type": "text", "text": "hi"}, "model": "m"}})
        )
        .as_bytes(),
    );
    let done = answer(&mut host);
    assert_eq!(done["id"], 30, "{done}");
    assert_eq!(text(&done), "asked");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// A request nothing recorded answers gets an error naming the closest
/// recorded request: -32601 for a method never recorded, -32001 for a
/// recorded method whose params match none (strict mode).
#[test]
fn an_unmatched_request_names_the_closest_recorded_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &[]);
    send(
        &mut host,
        json!(40),
        "resources/read",
        json!({"uri": "file:///x"}),
    );
    let error = answer(&mut host);
    assert_eq!(error["id"], 40);
    assert_eq!(error["error"]["code"], -32601, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("resources/read"), "{message}");
    assert!(
        message.contains("the closest recorded request is"),
        "{message}"
    );
    let at = error["error"]["data"]["closest"]["at"].as_str().unwrap();
    assert!(at.contains("session.jsonl:"), "{error}");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// `--strict` answers exact matches only; the error names the recorded
/// call of the same tool, with a short excerpt of its params.
#[test]
fn strict_mode_answers_exact_matches_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &["--strict"]);
    assert_eq!(text(&echo(&mut host, 50, "b")), "b");
    let error = echo(&mut host, 51, "bee");
    assert_eq!(error["id"], 51);
    assert_eq!(error["error"]["code"], -32001, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(
            r#"no recorded request matches tools/call {"arguments":{"text":"bee"},"name":"echo"}"#
        ),
        "{message}"
    );
    assert!(
        message.contains(
            r#"the closest recorded request is tools/call {"arguments":{"text":"b"},"name":"echo"}"#
        ),
        "{message}"
    );
    assert!(message.contains("strict"), "{message}");
    // Without --strict the same call is answered by name: by the first
    // recorded call of `echo`, its log message first.
    let mut loose = opened(dir.path(), &[]);
    assert_eq!(
        echo(&mut loose, 51, "bee")["method"],
        "notifications/message"
    );
    let by_name = answer(&mut loose);
    assert_eq!(by_name["id"], 51);
    assert_eq!(text(&by_name), "a");
    host.close_stdin();
    loose.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
    assert_eq!(loose.wait().code(), Some(0));
}

/// What the recorded tool list refuses is refused as a server would:
/// arguments its schema rejects are an isError result, an unknown tool is
/// -32601, a call without a name -32602.
#[test]
fn tool_calls_the_recorded_list_refuses_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &[]);
    send(
        &mut host,
        json!(60),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": 5}}),
    );
    let invalid = answer(&mut host);
    assert_eq!(invalid["result"]["isError"], true, "{invalid}");
    assert!(text(&invalid).contains("invalid arguments for `echo`"));
    send(
        &mut host,
        json!(61),
        "tools/call",
        json!({"name": "nope", "arguments": {}}),
    );
    assert_eq!(answer(&mut host)["error"]["code"], -32601);
    send(&mut host, json!(62), "tools/call", json!({"arguments": {}}));
    assert_eq!(answer(&mut host)["error"]["code"], -32602);
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// `initialize` answers the client's revision when it is a legacy one,
/// with the recorded capabilities and server.
#[test]
fn initialize_negotiates_the_clients_revision() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    // In strict mode too: another client's `initialize` gets the recorded
    // handshake.
    for extra in [None, Some("--strict")] {
        let mut args = vec![path.to_str().unwrap()];
        args.extend(extra);
        let mut host = mock(&args);
        host.send(format!("{}\n", initialize(1)).as_bytes());
        let init = answer(&mut host);
        assert_eq!(init["result"]["protocolVersion"], "2024-11-05", "{init}");
        assert_eq!(init["result"]["serverInfo"]["name"], "recorded");
        assert_eq!(
            init["result"]["capabilities"]["logging"],
            json!({}),
            "{extra:?}"
        );
        host.close_stdin();
        assert_eq!(host.wait().code(), Some(0));
    }
}

// REQ-C-032: tool manifest shows stdout: "protocol" and a protocol name on
// every protocol server command, and neither field on any other command.
#[test]
fn the_manifest_declares_mock_a_protocol_command() {
    let manifest = manifest();
    let entry = &manifest["commands"]["mock"];
    assert_eq!(entry["stdout"], "protocol");
    assert_eq!(entry["protocol"], "mcp-stdio");
    assert_eq!(entry["mcp"], false);
    assert_eq!(entry["flags"]["transcripts"]["positional"], "leading");
    assert_eq!(entry["flags"]["transcripts"]["required"], true);
    assert_eq!(entry["flags"]["strict"]["type"], "boolean");
    for code in ["0", "1", "2", "143"] {
        assert!(entry["exit_codes"].get(code).is_some(), "{code}");
    }
}

// REQ-C-032: an invalid flag exits 2 with stdout empty; in JSON mode the
// last line of stderr parses as a ResponseEnvelope with error.code:
// "ARG_ERROR".
#[test]
fn an_invalid_flag_exits_2_with_the_envelope_in_json_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    let out = Command::new(bin())
        .args(["mock", "--format", "json", "--strict=maybe"])
        .arg(&path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{:?}", out.stdout);
    let envelope = envelope(&String::from_utf8_lossy(&out.stderr));
    assert_eq!(envelope["error"]["code"], "ARG_ERROR");
    assert_eq!(envelope["error"]["phase"], "validation");
    // No transcript at all is an invalid command line too.
    let out = Command::new(bin())
        .args(["mock", "--format", "json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

// REQ-C-032: a failure while preparing to serve exits with a code from the
// command's declared exit_codes, writes nothing to stdout, and in JSON mode
// ends stderr with the envelope.
#[test]
fn a_transcript_that_cannot_be_read_exits_2_before_serving() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let broken = dir.path().join("broken.jsonl");
    let good = session(dir.path());
    let mut text = std::fs::read_to_string(&good).unwrap();
    text.push_str("{\"t\": 3.0, \"dir\": \"sideways\"}\n");
    std::fs::write(&broken, text).unwrap();
    let declared = &manifest()["commands"]["mock"]["exit_codes"];
    for (path, names) in [(&missing, "missing.jsonl"), (&broken, "broken.jsonl:23")] {
        let out = Command::new(bin())
            .args(["mock", "--format", "json"])
            .arg(&good)
            .arg(path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{names}");
        assert!(declared.get("2").is_some());
        assert!(out.stdout.is_empty(), "{:?}", out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let envelope = envelope(&stderr);
        assert_eq!(envelope["error"]["code"], "TRANSCRIPT_ERROR");
        assert_eq!(envelope["meta"]["exit_code"], 2);
        let message = envelope["error"]["message"].as_str().unwrap();
        assert!(message.contains(names), "{message}");
    }
    // In text mode: the plain error, no envelope.
    let out = Command::new(bin())
        .arg("mock")
        .arg(&missing)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("missing.jsonl"), "{stderr}");
    assert!(!stderr.contains(r#""ok":false"#), "{stderr}");
}

// REQ-C-032: tool <cmd> --help prints help to stdout, exits 0, and does not
// read stdin.
#[test]
fn help_prints_to_stdout_and_never_reads_stdin() {
    let mut host = mock(&["--help"]);
    let status = host.wait();
    assert_eq!(status.code(), Some(0), "{}", host.stderr());
    let stdout = String::from_utf8_lossy(&host.rest()).into_owned();
    assert!(stdout.contains("Usage: mcp-replay mock"), "{stdout}");
    assert!(stdout.contains("--strict"), "{stdout}");
    assert!(!stdout.contains("jsonrpc"), "{stdout}");
}

// REQ-C-032: once serving begins, every byte on stdout is a protocol
// message: a client that speaks the declared protocol reads the server's
// first response without skipping any line.
#[test]
fn every_stdout_byte_is_a_protocol_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &[]);
    assert_eq!(text(&echo(&mut host, 2, "b")), "b");
    host.close_stdin();
    let rest = String::from_utf8_lossy(&host.rest()).into_owned();
    assert!(rest.is_empty(), "{rest}");
    assert_eq!(host.wait().code(), Some(0));
}

// REQ-C-032: a malformed request is answered with a protocol error and the
// server keeps running.
#[test]
fn a_malformed_request_is_answered_in_the_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &[]);
    host.send(b"{not json\n");
    let error = answer(&mut host);
    assert_eq!(error["error"]["code"], -32700, "{error}");
    host.send(b"{\"jsonrpc\":\"2.0\",\"params\":{}}\n");
    assert_eq!(answer(&mut host)["error"]["code"], -32700);
    assert_eq!(text(&echo(&mut host, 7, "b")), "b");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

// REQ-C-032: closing the server's stdin ends the process with exit 0 and no
// envelope on stderr.
#[test]
fn closing_stdin_exits_0_without_an_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &["--format", "json"]);
    // A call that waits for the client's answer is answered at end of
    // input all the same.
    send(
        &mut host,
        json!(3),
        "tools/call",
        json!({"name": "ask", "arguments": {}}),
    );
    assert_eq!(answer(&mut host)["method"], "sampling/createMessage");
    host.close_stdin();
    assert_eq!(answer(&mut host)["id"], 3);
    assert_eq!(host.wait().code(), Some(0));
    let stderr = host.stderr();
    assert!(!stderr.contains(r#""ok":false"#), "{stderr}");
}

// REQ-C-032: SIGTERM while serving ends the process with 143, and in JSON
// mode the last line of stderr is an envelope.
#[test]
fn sigterm_while_serving_exits_143_with_the_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = opened(dir.path(), &["--format", "json"]);
    host.signal(Signal::TERM);
    let status = host.wait();
    assert_eq!(shell_status(status), 143, "{}", host.stderr());
    let envelope = envelope(&host.stderr());
    assert_eq!(envelope["error"]["code"], "SIGTERM");
    assert_eq!(envelope["meta"]["exit_code"], 143);
    assert_eq!(envelope["error"]["phase"], "serving");
}

// REQ-C-032: a server that stays idle past the default timeout after
// serving begins is not terminated by the framework.
#[test]
fn an_idle_mock_is_not_timed_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    let mut cmd = Command::new(bin());
    cmd.arg("mock").arg(&path);
    assert_idle_server_stays(cmd);
}

// REQ-C-032: a protocol command does not accept --idempotency-key,
// --dry-run, --output, or --confirm-destructive.
#[test]
fn mock_refuses_the_flags_of_single_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    assert_refuses_single_result_flags(
        &["mock".as_ref(), path.as_os_str()],
        &manifest()["commands"]["mock"]["flags"],
    );
}

/// The bundled transcripts, each with the mock of itself.
fn bundled() -> Vec<String> {
    let mut paths: Vec<String> = std::fs::read_dir("transcripts")
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .map(|path| path.display().to_string())
        .collect();
    paths.sort();
    paths
}

/// The gate: each bundled transcript replays green against a mock of
/// itself, and the mock holds every law of the `core` profile, the CLI
/// probes included.
#[test]
fn check_is_green_against_a_mock_of_each_bundled_transcript() {
    let transcripts = bundled();
    assert!(transcripts.len() >= 4, "{transcripts:?}");
    for transcript in &transcripts {
        let out = Command::new(bin())
            .args([
                "check",
                "--profile",
                "core",
                "--format",
                "json",
                "--cli-probes",
            ])
            .arg(transcript)
            .args(["--", bin(), "mock", transcript])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let records = crate::util::json_lines(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{transcript}: {records:#?}");
        let replay = records.iter().find(|r| r["type"] == "transcript");
        assert_eq!(
            replay.map(|r| r["status"].clone()),
            Some(json!("pass")),
            "{transcript}: {records:#?}"
        );
        for law in [
            "help-does-not-serve",
            "bad-flag-exits-2",
            "ping",
            "initialize",
        ] {
            let status = records
                .iter()
                .find(|r| r["type"] == "law" && r["law"] == law)
                .map(|r| r["status"].clone());
            assert_eq!(status, Some(json!("pass")), "{transcript}: {law}");
        }
    }
}

/// A recorded answer goes out as it was recorded, byte for byte, member
/// order included, with only the id changed: the recorded session's own
/// requests, sent with the recorded ids, get back exactly the recorded
/// lines.
#[test]
fn answers_are_the_recorded_lines() {
    let path = "transcripts/typescript-sdk-demo.jsonl";
    let transcript = std::fs::read_to_string(path).unwrap();
    let events: Vec<Value> = transcript
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let raw = |dir: &str, nth: usize| -> String {
        let event = events.iter().filter(|e| e["dir"] == dir).nth(nth).unwrap();
        // The recorded text of `msg`: the event's line from `"msg":` on.
        let line = transcript
            .lines()
            .find(|line| serde_json::from_str::<Value>(line).ok().as_ref() == Some(event))
            .unwrap();
        let start = line.find(r#""msg":"#).unwrap() + 6;
        line[start..line.len() - 1].to_owned()
    };
    let mut host = mock(&[path]);
    // initialize, then tools/list (the third client line, after the
    // initialized notification and ping).
    for (client, server) in [(0, 0), (2, 1), (3, 2)] {
        host.send(format!("{}\n", raw("c2s", client)).as_bytes());
        let line = String::from_utf8(host.line()).unwrap();
        assert_eq!(line.trim_end(), raw("s2c", server));
    }
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// The recorded server-everything session (scripts/mock-client.sh) replays
/// green against its mock: three lists, tools, a resource, prompts, and a
/// list change the server announced after `ping`.
#[test]
fn a_recorded_server_everything_session_replays_against_its_mock() {
    let transcript = "tests/data/server-everything.jsonl";
    let out = Command::new(bin())
        .args(["check", "--no-probes", "--format", "json", transcript])
        .args(["--", bin(), "mock", transcript])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let records = crate::util::json_lines(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{records:#?}");
    let replay = records.iter().find(|r| r["type"] == "transcript").unwrap();
    assert_eq!(replay["status"], "pass", "{replay}");
    assert_eq!(replay["exchanges"].as_array().unwrap().len(), 15);
}
