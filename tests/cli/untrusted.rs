//! Input nobody vouched for: what a transcript, a config or a baseline can
//! make `check` and `mock` run, read and send (docs/security.md), and the
//! lines the readers refuse; and the small holes of issue 17: a request
//! with a null id, a byte-order mark.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::{Host, bin, initialize, request};

/// `mcp-replay check` run in `dir`, killed if it outlives a generous
/// deadline.
fn check(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay");
    cmd.current_dir(dir)
        .arg("check")
        .env_remove("NO_COLOR")
        .env_remove("MCP_REPLAY_FILL_ENV")
        .timeout(Duration::from_secs(120));
    cmd
}

/// A transcript of `lines` (the header first) at `path`.
fn write_transcript(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// A transcript header recording `command`, with more members.
fn header(command: &[&str], more: Value) -> Value {
    let mut header = json!({"format": "mcp-replay-transcript", "version": 1,
        "tool": "mcp-replay 0.1.0", "created": "2026-12-01T00:00:00Z", "command": command});
    if let Value::Object(more) = more {
        header.as_object_mut().unwrap().extend(more);
    }
    header
}

fn c2s(message: Value) -> Value {
    json!({"t": 0.0, "dir": "c2s", "msg": message})
}

fn s2c(message: Value) -> Value {
    json!({"t": 0.0, "dir": "s2c", "msg": message})
}

fn answer(host: &mut Host) -> Value {
    serde_json::from_slice(&host.line()).expect("every stdout line is a JSON-RPC message")
}

/// The stdout of `cmd`, which must exit with `code`.
fn stdout_with_code(cmd: &mut assert_cmd::Command, code: i32) -> String {
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// JSON-RPC 2.0 §4 makes only a missing id a notification and MCP allows
/// no null id: the demo server (the core library) and `mock` answer a
/// request with a null id -32600 with id null, so its client is not left
/// waiting, and go on serving.
#[test]
fn a_request_with_a_null_id_gets_an_invalid_request_error_from_the_library_and_the_mock() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("session.jsonl");
    write_transcript(
        &recorded,
        &[
            header(&["recorded-server"], json!({})),
            c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            s2c(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
        ],
    );
    let servers: [Vec<&str>; 2] = [
        vec!["demo-server"],
        vec!["mock", recorded.to_str().unwrap()],
    ];
    for args in servers {
        let mut cmd = Command::new(bin());
        cmd.args(&args);
        let mut host = Host::spawn(cmd);
        host.send(format!("{}\n", initialize(0)).as_bytes());
        assert_eq!(answer(&mut host)["id"], 0, "{args:?}");
        host.send(b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n");
        let refused = answer(&mut host);
        assert_eq!(refused["id"], Value::Null, "{args:?}: {refused}");
        assert_eq!(refused["error"]["code"], -32600, "{args:?}: {refused}");
        host.send(format!("{}\n", request(json!(2), "ping", Value::Null)).as_bytes());
        assert_eq!(answer(&mut host)["id"], 2, "{args:?}");
        host.close_stdin();
        assert_eq!(host.wait().code(), Some(0), "{args:?}");
    }
}

/// A replay that sends a line with a null id does not blame the server for
/// answering it: it is no notification, so `notification-unanswered` has
/// nothing to say. A recorded -32600 answer is compared as the answer to
/// that line; where the recording has none (a server that kept silent, as
/// the SDKs do), the answer is a change of the session's shape, which
/// `--bless` accepts, and no law is broken.
#[test]
fn answering_a_null_id_breaks_no_law_in_a_replay() {
    let dir = tempfile::tempdir().unwrap();
    let null_ping = c2s(json!({"jsonrpc": "2.0", "id": null, "method": "ping"}));
    let ping = c2s(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    let pong = s2c(json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let refusal = s2c(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
        "message": "invalid request: the id is null; a request's id is a string or an integer (MCP basic#requests), and a notification has no id (JSON-RPC 2.0 §4)"}}));
    let demo = header(&["mcp-replay", "demo-server"], json!({}));
    write_transcript(
        &dir.path().join("answered.jsonl"),
        &[demo.clone(), null_ping.clone(), refusal, ping.clone(), pong.clone()],
    );
    write_transcript(
        &dir.path().join("silent.jsonl"),
        &[demo, null_ping, ping, pong],
    );
    let replay = |file: &str, code: i32| {
        stdout_with_code(
            check(dir.path()).args(["--no-probes", file, "--", bin(), "demo-server"]),
            code,
        )
    };
    let stdout = replay("answered.jsonl", 0);
    assert!(stdout.contains("PASS answered.jsonl"), "{stdout}");
    let stdout = replay("silent.jsonl", 1);
    assert!(!stdout.contains("notification-unanswered"), "{stdout}");
    assert!(
        stdout.contains("error[transcript-match] silent.jsonl:2: the malformed line 2 was answered, but the recording has no answer to it"),
        "{stdout}"
    );
}
