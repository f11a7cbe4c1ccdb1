//! The mock's session through the replay double: recorded sessions served
//! back byte for byte, and the lines it answers on its own.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::Mock;
use super::matching::excerpt;
use super::recorded::normalize;
use crate::compare::diff::IgnoreRules;
use crate::transcript::{ReplayTransport, Transcript};

fn bundled() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    paths.sort();
    paths
}

fn served(mock: &Mock, lines: &[Value]) -> Vec<Value> {
    let mut transport = ReplayTransport::from_lines(lines.iter().map(Value::to_string));
    mock.serve(&mut transport).unwrap();
    transport
        .written()
        .iter()
        .map(|line| serde_json::from_slice(line).unwrap())
        .collect()
}

/// Each bundled session, its client lines sent as recorded, gets back its
/// server lines exactly as recorded, in order.
#[test]
fn a_recorded_session_is_served_back_byte_for_byte() {
    let paths = bundled();
    assert!(paths.len() >= 4, "{paths:?}");
    for path in paths {
        let transcript = Transcript::read(&path).unwrap();
        let mock = Mock::load(std::slice::from_ref(&path)).unwrap();
        let mut transport = ReplayTransport::from_transcript(&transcript);
        mock.serve(&mut transport).unwrap();
        assert_eq!(
            transport.written(),
            ReplayTransport::expected(&transcript),
            "{}",
            path.display()
        );
    }
}

#[test]
fn normalized_params_leave_meta_and_ignored_members_out() {
    let rules = IgnoreRules::parse(["/params/arguments/now"]).unwrap();
    let with_meta = json!({"name": "t", "arguments": {"x": 1, "now": "10:00"},
                           "_meta": {"progressToken": 7}});
    assert_eq!(
        normalize("tools/call", Some(&with_meta), &rules),
        r#"{"arguments":{"x":1},"name":"t"}"#
    );
    let none = IgnoreRules::default();
    assert_eq!(normalize("tools/list", None, &none), "{}");
    assert_eq!(normalize("tools/list", Some(&Value::Null), &none), "{}");
    assert_eq!(
        normalize("tools/list", Some(&json!({"_meta": {}})), &none),
        "{}"
    );
}

#[test]
fn an_excerpt_is_short() {
    assert_eq!(excerpt("{}"), "{}");
    let long = format!("{{\"text\":\"{}\"}}", "é".repeat(200));
    let short = excerpt(&long);
    assert_eq!(short.chars().count(), 81);
    assert!(short.ends_with('…'));
}

/// What no recording answers: a batch, a malformed line, a notification,
/// a response to nothing the mock asked, a legacy `ping`.
#[test]
fn the_lines_a_mock_answers_on_its_own() {
    let path = bundled()
        .into_iter()
        .find(|path| path.ends_with("python-sdk-demo.jsonl"))
        .unwrap();
    let mock = Mock::load(&[path]).unwrap();
    let answers = served(
        &mock,
        &[
            json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 99, "result": {}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "no/such"}),
        ],
    );
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32700);
    assert!(answers[0]["id"].is_null());
    // This recording is stateless: its `ping` was refused as a removed
    // method, so a legacy client's ping is answered by the mock.
    assert_eq!(answers[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    assert_eq!(answers[2]["error"]["code"], -32601);
    let message = answers[2]["error"]["message"].as_str().unwrap();
    assert!(message.contains("no/such"), "{message}");
}

/// A modern request is held to its `_meta` before it is matched, as the
/// core library holds it.
#[test]
fn a_modern_request_is_held_to_its_meta() {
    let path = bundled()
        .into_iter()
        .find(|path| path.ends_with("python-sdk-demo.jsonl"))
        .unwrap();
    let mock = Mock::load(&[path]).unwrap();
    let meta = |version: &str| {
        json!({"io.modelcontextprotocol/protocolVersion": version,
               "io.modelcontextprotocol/clientCapabilities": {}})
    };
    let answers = served(
        &mock,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                   "params": {"_meta": meta("2026-07-28")}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                   "params": {"_meta": meta("1900-01-01")}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {}}),
        ],
    );
    assert_eq!(
        answers[0]["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    assert_eq!(answers[1]["error"]["code"], -32022);
    assert_eq!(answers[1]["error"]["data"]["requested"], "1900-01-01");
    assert_eq!(answers[2]["error"]["code"], -32602);
    assert_eq!(answers[3]["error"]["code"], -32022);
}

/// A 2025-03-26 session takes batches, as the core library does: one array
/// of answers, none for the notification; before a session opens, an array
/// is still a parse error.
#[test]
fn a_batch_of_a_2025_03_26_session_is_answered_with_one_array() {
    let path = bundled()
        .into_iter()
        .find(|path| path.ends_with("python-sdk-demo.jsonl"))
        .unwrap();
    let mock = Mock::load(&[path]).unwrap();
    let answers = served(
        &mock,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-03-26", "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!([
                {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                {"jsonrpc": "2.0", "method": "notifications/mcp-replay/probe"},
                {"jsonrpc": "2.0", "id": 3, "method": "no/such"},
            ]),
        ],
    );
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-03-26");
    let batch = answers[1].as_array().expect("one array");
    assert_eq!(batch.len(), 2, "{batch:?}");
    assert_eq!(batch[0], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    assert_eq!(batch[1]["id"], 3);
    assert_eq!(batch[1]["error"]["code"], -32601);
}
