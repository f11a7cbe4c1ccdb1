//! The fixture server's clean behaviour, pinned: the law tests rely on it.

use mcp_replay::process::{Output, Recv, ServerCommand, ServerProcess, shell_status};
use predicates::prelude::*;
use rustix::process::Signal;
use serde_json::json;

use crate::util::{
    fixture_cmd, fixture_server, initialize, json_lines, notification, request, script, soon,
};

#[test]
fn clean_session_answers_every_request_and_exits_zero() {
    let input = script(&[
        initialize(1),
        notification("notifications/initialized"),
        request(json!(2), "ping", json!(null)),
        request(json!(3), "tools/list", json!(null)),
        request(
            json!(4),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
        request(
            json!(5),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        ),
        request(json!(6), "tools/call", json!({"name": "fail"})),
        request(json!("7"), "tools/call", json!({"name": "nope"})),
        request(json!(8), "tools/call", json!({"arguments": {}})),
        request(
            json!(9),
            "tools/call",
            json!({"name": "echo", "arguments": [1]}),
        ),
        request(
            json!(10),
            "tools/call",
            json!({"name": "add", "arguments": {"a": "x"}}),
        ),
        request(json!(11), "resources/list", json!(null)),
    ]);
    let output = fixture_cmd(&[]).write_stdin(input).assert().code(0);
    let lines = json_lines(&output.get_output().stdout);
    let results: Vec<_> = lines
        .iter()
        .map(|line| {
            (
                line["id"].clone(),
                line.get("result").cloned(),
                line["error"]["code"].clone(),
            )
        })
        .collect();
    assert_eq!(lines.len(), 11, "{lines:#?}");
    assert_eq!(lines[0]["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(lines[0]["result"]["serverInfo"]["name"], "fixture-server");
    assert_eq!(
        lines[0]["result"]["capabilities"],
        json!({"tools": {"listChanged": false}})
    );
    assert_eq!(results[1], (json!(2), Some(json!({})), json!(null)));
    let names: Vec<_> = lines[2]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "echo", "fail"]);
    assert_eq!(
        lines[3]["result"],
        json!({"content": [{"type": "text", "text": "hi"}], "isError": false})
    );
    assert_eq!(lines[4]["result"]["content"][0]["text"], "5");
    assert_eq!(lines[5]["result"]["isError"], true);
    assert_eq!(
        (lines[6]["id"].clone(), lines[6]["error"]["code"].clone()),
        (json!("7"), json!(-32601))
    );
    assert_eq!(lines[7]["error"]["code"], -32602);
    assert_eq!(lines[8]["error"]["code"], -32602);
    assert_eq!(lines[9]["result"]["isError"], true);
    assert_eq!(lines[10]["error"]["code"], -32601);
}

#[test]
fn malformed_lines_get_a_parse_error_and_the_loop_goes_on() {
    let input = script(&[
        "not json".to_owned(),
        r#"{"jsonrpc":"2.0","params":{}}"#.to_owned(),
        request(json!(1), "ping", json!(null)),
    ]);
    let output = fixture_cmd(&[]).write_stdin(input).assert().code(0);
    let lines = json_lines(&output.get_output().stdout);
    assert_eq!(lines.len(), 3);
    for line in &lines[..2] {
        assert_eq!(line["id"], json!(null));
        assert_eq!(line["error"]["code"], -32700);
    }
    assert_eq!(lines[2], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
}

#[test]
fn notifications_are_never_answered() {
    let input = script(&[
        notification("notifications/initialized"),
        notification("notifications/whatever"),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#
            .to_owned(),
    ]);
    fixture_cmd(&[])
        .write_stdin(input)
        .assert()
        .code(0)
        .stdout("");
}

#[test]
fn out_of_order_answers_back_to_back_requests_in_reverse() {
    let input = script(&[
        request(json!(1), "ping", json!(null)),
        request(json!(2), "ping", json!(null)),
        request(json!(3), "ping", json!(null)),
    ]);
    let output = fixture_cmd(&["--out-of-order", "8"])
        .write_stdin(input)
        .assert()
        .code(0);
    let ids: Vec<_> = json_lines(&output.get_output().stdout)
        .iter()
        .map(|line| line["id"].clone())
        .collect();
    assert_eq!(ids, [json!(3), json!(2), json!(1)]);
}

#[test]
fn pages_follow_the_cursor() {
    let input = script(&[
        request(json!(1), "tools/list", json!(null)),
        request(json!(2), "tools/list", json!({"cursor": "2"})),
        request(json!(3), "tools/list", json!({"cursor": "bogus"})),
    ]);
    let output = fixture_cmd(&["--page-size", "2"])
        .write_stdin(input)
        .assert()
        .code(0);
    let lines = json_lines(&output.get_output().stdout);
    assert_eq!(lines[0]["result"]["nextCursor"], "2");
    assert_eq!(lines[0]["result"]["tools"].as_array().unwrap().len(), 2);
    assert_eq!(lines[1]["result"]["tools"][0]["name"], "fail");
    assert_eq!(lines[1]["result"].get("nextCursor"), None);
    assert_eq!(lines[2]["error"]["code"], -32602);
}

#[test]
fn stress_modes_stay_correct() {
    let input = script(&[
        initialize(1),
        request(
            json!(2),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
    ]);
    let output = fixture_cmd(&[
        "--pad",
        "1000000",
        "--stderr-flood",
        "1048576",
        "--unsolicited",
    ])
    .write_stdin(input)
    .assert()
    .code(0);
    let lines = json_lines(&output.get_output().stdout);
    let methods: Vec<_> = lines.iter().map(|line| line["method"].clone()).collect();
    assert_eq!(
        methods,
        [
            json!("notifications/tools/list_changed"),
            json!(null),
            json!("notifications/tools/list_changed"),
            json!(null)
        ]
    );
    assert_eq!(
        lines[1]["result"]["capabilities"]["tools"]["listChanged"],
        true
    );
    assert_eq!(
        lines[3]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .len(),
        1_000_002
    );
    assert_eq!(output.get_output().stderr.len(), 1_048_576);
}

#[test]
fn like_rmcp_answers_json_that_is_not_json_rpc_without_an_id() {
    let input = script(&[
        "not json".to_owned(),
        r#"{"jsonrpc":"2.0","params":{}}"#.to_owned(),
        request(json!(1), "tools/call", json!({"name": "nope"})),
    ]);
    let output = fixture_cmd(&["--like", "rmcp"])
        .write_stdin(input)
        .assert()
        .code(0);
    let lines = json_lines(&output.get_output().stdout);
    assert_eq!(
        lines[0],
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}})
    );
    assert_eq!(lines[1]["error"]["code"], -32602);
    assert_eq!(lines.len(), 2);
}

#[test]
fn like_python_sdk_is_silent_on_garbage_and_negotiates_its_latest() {
    let input = script(&[
        request(
            json!(1),
            "initialize",
            json!({"protocolVersion": "1900-01-01", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        ),
        "not json".to_owned(),
        request(json!(2), "tools/call", json!({"name": "nope"})),
    ]);
    let output = fixture_cmd(&["--like", "python-sdk"])
        .write_stdin(input)
        .assert()
        .code(0);
    let lines = json_lines(&output.get_output().stdout);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(lines[1]["result"]["isError"], true);
}

#[test]
fn break_names_a_law_of_the_catalog() {
    fixture_cmd(&["--break", "no-such-law"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown law `no-such-law`"));
    fixture_cmd(&["--break", "transcript-match"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--echo-suffix"));
}

#[test]
fn help_says_it_is_for_tests() {
    fixture_cmd(&["--help"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("For mcp-replay's tests only"));
}

fn serving(args: &[&str]) -> ServerProcess {
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(args.iter().map(|arg| (*arg).to_owned()));
    let mut server = ServerProcess::spawn(&ServerCommand::new(argv)).unwrap();
    server.send(initialize(1).as_bytes());
    match server.recv(soon()) {
        Recv::Output(Output::Line { bytes, .. }) => {
            assert!(bytes.starts_with(br#"{"jsonrpc":"2.0","id":1,"#))
        }
        other => panic!("no initialize result: {other:?}"),
    }
    server
}

#[test]
fn sigterm_exits_143() {
    let mut server = serving(&[]);
    server.signal(Signal::TERM);
    let status = server.wait(soon()).expect("exits");
    assert_eq!(status.code(), Some(143));
}

#[test]
fn sdk_like_servers_die_by_sigterm() {
    use std::os::unix::process::ExitStatusExt;
    let mut server = serving(&["--like", "typescript-sdk"]);
    server.signal(Signal::TERM);
    let status = server.wait(soon()).expect("exits");
    assert_eq!(status.signal(), Some(15));
    assert_eq!(shell_status(status), 143);
}
