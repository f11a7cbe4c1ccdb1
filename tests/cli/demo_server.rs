//! The demo server (`mcp-replay demo-server`) under an outside probe: a
//! real process on pipes, held to the 14 laws of the `core` profile and to
//! the parts of MCP-CORE r1 only a whole process can show.

use std::process::Command;
use std::time::{Duration, Instant};

use mcp_replay::process::{Output, Recv, ServerProcess, shell_status};
use rustix::process::Signal;
use serde_json::{Value, json};

/// Generous: the machine may be loaded, and no test waits this long unless
/// it is about to fail.
const DEADLINE: Duration = Duration::from_secs(20);

/// A demo server process with a line-level conversation API.
struct Demo {
    process: ServerProcess,
}

impl Demo {
    fn spawn() -> Demo {
        Demo::spawn_with(|_| {})
    }

    fn spawn_with(configure: impl FnOnce(&mut Command)) -> Demo {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-replay"));
        command.arg("demo-server");
        configure(&mut command);
        let process = ServerProcess::spawn_command(command, "mcp-replay demo-server".into())
            .expect("the demo server starts");
        Demo { process }
    }

    fn send(&mut self, line: &str) {
        assert!(self.process.send(line.as_bytes()), "stdin is open");
    }

    /// The next stdout line, as JSON; fails the test on a timeout, the end
    /// of stdout, or a line that is not JSON.
    fn recv(&mut self) -> Value {
        match self.process.recv(Instant::now() + DEADLINE) {
            Recv::Output(Output::Line { bytes, eol, .. }) => {
                assert!(eol, "a line without newline: {bytes:?}");
                serde_json::from_slice(&bytes).unwrap_or_else(|err| {
                    panic!(
                        "stdout carries a non-JSON line ({err}): {}",
                        String::from_utf8_lossy(&bytes)
                    )
                })
            }
            Recv::Output(Output::Closed { .. }) => {
                panic!("stdout closed; stderr: {}", self.stderr())
            }
            Recv::Timeout => panic!("no answer in {DEADLINE:?}; stderr: {}", self.stderr()),
        }
    }

    /// Sends a request and returns its answer, which must carry its id.
    fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line.to_string());
        let answer = self.recv();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        answer
    }

    fn initialize(&mut self) -> Value {
        let params = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}
        });
        let answer = self.request(json!(0), "initialize", params);
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        answer
    }

    fn call(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        self.request(
            json!(id),
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
    }

    /// Closes stdin and waits for the exit; the status as a shell shows it.
    fn close_and_wait(&mut self) -> i32 {
        self.process.close_stdin();
        self.wait()
    }

    fn wait(&mut self) -> i32 {
        let status = self
            .process
            .wait(Instant::now() + DEADLINE)
            .unwrap_or_else(|| panic!("still running after {DEADLINE:?}"));
        shell_status(status)
    }

    fn stderr(&self) -> String {
        self.process.stderr_text(4096)
    }
}

fn code(answer: &Value) -> Option<i64> {
    answer["error"]["code"].as_i64()
}

fn report(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no report: {answer}"))
}

/// Law `quiet-before-serving` (MCP-CORE r1 §1¶06): the first line on stdout
/// is the answer to the first request; nothing comes before it.
#[test]
fn quiet_before_serving() {
    let mut demo = Demo::spawn();
    demo.send(r#"{"jsonrpc":"2.0","id":"first","method":"ping"}"#);
    let first = demo.recv();
    assert_eq!(
        first,
        json!({"jsonrpc": "2.0", "id": "first", "result": {}})
    );
    assert_eq!(demo.close_and_wait(), 0);
}

/// Law `initialize` (MCP-CORE r1 §1¶07, §2¶15): the legacy revision the
/// client asked for when the server speaks it (2025-06-18 here), serverInfo
/// and the tools capability.
#[test]
fn initialize_answers_the_requested_legacy_revision() {
    let mut demo = Demo::spawn();
    let answer = demo.initialize();
    let result = &answer["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(result["serverInfo"]["name"], "mcp-replay-demo");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        result["capabilities"],
        json!({"tools": {"listChanged": false}})
    );
    assert_eq!(demo.close_and_wait(), 0);
}

/// Laws `notification-unanswered` and `cancel-tolerated` (MCP-CORE r1
/// §1¶09): no answer to any notification; the next line is the answer to
/// the request sent right behind them. A null id makes no notification
/// (JSON-RPC 2.0 §4; MCP allows no null id): it gets -32600 with id null.
#[test]
fn notifications_are_never_answered() {
    let mut demo = Demo::spawn();
    demo.initialize();
    demo.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"gone"}}"#);
    demo.send(r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#);
    demo.send(r#"{"jsonrpc":"2.0","method":"ping","params":"odd"}"#);
    let answer = demo.request(json!(1), "ping", json!({}));
    assert_eq!(answer["result"], json!({}));
    demo.send(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
    let answer = demo.recv();
    assert_eq!(code(&answer), Some(-32600), "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(demo.close_and_wait(), 0);
}

/// Law `parse-error-keeps-serving` (MCP-CORE r1 §1¶10): -32700 for a
/// non-JSON line and for an object without method, and the server goes on.
#[test]
fn parse_errors_keep_serving() {
    let mut demo = Demo::spawn();
    demo.initialize();
    demo.send("this is not json");
    let answer = demo.recv();
    assert_eq!(code(&answer), Some(-32700), "{answer}");
    assert_eq!(answer["id"], Value::Null);
    demo.send(r#"{"jsonrpc":"2.0","id":5}"#);
    let answer = demo.recv();
    assert_eq!(code(&answer), Some(-32700), "{answer}");
    assert_eq!(answer["id"], 5);
    let answer = demo.request(json!(6), "ping", json!({}));
    assert_eq!(answer["result"], json!({}));
    assert_eq!(demo.close_and_wait(), 0);
}

/// Law `ping` (MCP-CORE r1 §2¶15): ping answers `{}`, before and after
/// initialize.
#[test]
fn ping_answers_an_empty_object() {
    let mut demo = Demo::spawn();
    assert_eq!(
        demo.request(json!(1), "ping", json!({}))["result"],
        json!({})
    );
    demo.initialize();
    assert_eq!(
        demo.request(json!(2), "ping", json!({}))["result"],
        json!({})
    );
    assert_eq!(demo.close_and_wait(), 0);
}

/// Laws `tools-list-sorted` and `tools-list-valid` (MCP-CORE r1 §2¶15):
/// the demo's four tools, sorted by name, stable between calls, each with an
/// object input schema.
#[test]
fn tools_list_is_sorted_and_stable() {
    let mut demo = Demo::spawn();
    demo.initialize();
    let first = demo.request(json!(1), "tools/list", json!({}));
    let second = demo.request(json!(2), "tools/list", json!({}));
    assert_eq!(first["result"], second["result"]);
    let tools = first["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "echo", "fail", "stderr-child"]);
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["description"].is_string(), "{tool}");
    }
    assert_eq!(demo.close_and_wait(), 0);
}

/// Laws `unknown-tool`, `invalid-params` and `unknown-method` (MCP-CORE r1
/// §2¶15): -32601 for an unknown tool and an unknown method; -32602 for a
/// call without name or with non-object arguments.
#[test]
fn protocol_errors_have_their_codes() {
    let mut demo = Demo::spawn();
    demo.initialize();
    assert_eq!(code(&demo.call(1, "no-such-tool", json!({}))), Some(-32601));
    let answer = demo.request(json!(2), "tools/call", json!({"arguments": {}}));
    assert_eq!(code(&answer), Some(-32602));
    let answer = demo.request(
        json!(3),
        "tools/call",
        json!({"name": "echo", "arguments": "hi"}),
    );
    assert_eq!(code(&answer), Some(-32602));
    assert_eq!(
        code(&demo.request(json!(4), "resources/list", json!({}))),
        Some(-32601)
    );
    assert_eq!(
        code(&demo.request(json!(5), "prompts/get", json!({}))),
        Some(-32601)
    );
    assert_eq!(demo.close_and_wait(), 0);
}

/// Law `tool-error-is-result` (MCP-CORE r1 §3¶19): arguments that break the
/// input schema, and a tool that fails, answer `isError: true` results.
#[test]
fn tool_errors_are_results() {
    let mut demo = Demo::spawn();
    demo.initialize();
    let answer = demo.call(1, "add", json!({"a": 1, "b": "two"}));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(
        report(&answer),
        "invalid arguments for `add`:\n/b: expected a number, found a string"
    );
    let answer = demo.call(2, "add", json!({"a": 1}));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let answer = demo.call(3, "echo", json!({"text": "hi", "extra": 1}));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let answer = demo.call(4, "fail", json!({}));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(report(&answer), "fail: this tool always fails");
    assert_eq!(demo.close_and_wait(), 0);
}

/// The demo's tools do what they say.
#[test]
fn echo_and_add_answer() {
    let mut demo = Demo::spawn();
    demo.initialize();
    let answer = demo.call(1, "echo", json!({"text": "héllo\nworld"}));
    assert_eq!(
        answer["result"],
        json!({"content": [{"type": "text", "text": "héllo\nworld"}], "isError": false})
    );
    assert_eq!(report(&demo.call(2, "add", json!({"a": 2, "b": 40}))), "42");
    assert_eq!(
        report(&demo.call(3, "add", json!({"a": 0.5, "b": 0.25}))),
        "0.75"
    );
    assert_eq!(
        report(&demo.call(4, "add", json!({"a": i64::MAX, "b": 1}))),
        "9.223372036854776e+18"
    );
    assert_eq!(demo.close_and_wait(), 0);
}

/// Law `request-answered-once` (MCP-CORE r1 §1¶09): string ids are echoed as
/// strings, number ids as numbers, each exactly once.
#[test]
fn string_ids_are_echoed() {
    let mut demo = Demo::spawn();
    demo.initialize();
    demo.request(json!("7"), "ping", json!({}));
    demo.request(json!(7), "ping", json!({}));
    demo.request(
        json!("a string id"),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    assert_eq!(demo.close_and_wait(), 0);
}

/// Laws `eof-exit-zero` and `eof-drains` (MCP-CORE r1 §1¶09-10): requests
/// written before stdin closes are all answered, in order, then the process
/// exits 0 with nothing more on stdout.
#[test]
fn eof_drains_every_request_and_exits_zero() {
    let mut demo = Demo::spawn();
    let n = 500;
    let mut burst = String::new();
    for id in 0..n {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": format!("message {id}")}}});
        burst.push_str(&line.to_string());
        burst.push('\n');
    }
    assert!(demo.process.send_raw(burst.into_bytes()));
    demo.process.close_stdin();
    for id in 0..n {
        let answer = demo.recv();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(report(&answer), format!("message {id}"));
    }
    let end = demo.process.recv(Instant::now() + DEADLINE);
    assert!(
        matches!(end, Recv::Output(Output::Closed { .. })),
        "{end:?}"
    );
    assert_eq!(demo.wait(), 0, "stderr: {}", demo.stderr());
}

/// Law `eof-exit-zero` on a server that never got a request.
#[test]
fn eof_right_away_exits_zero_with_empty_stdout() {
    let mut demo = Demo::spawn();
    demo.process.close_stdin();
    let end = demo.process.recv(Instant::now() + DEADLINE);
    assert!(
        matches!(end, Recv::Output(Output::Closed { .. })),
        "{end:?}"
    );
    assert_eq!(demo.wait(), 0);
}

/// Law `sigterm-exit-143` (REQ-C-032 "Exit codes"): SIGTERM while serving
/// ends the process with 143.
#[test]
fn sigterm_exits_143() {
    let mut demo = Demo::spawn();
    demo.initialize();
    demo.process.signal(Signal::TERM);
    assert_eq!(demo.wait(), 143);
}

/// MCP-CORE r1 §4¶22, §5¶27 and §5¶28 through a real process: the stderr-child
/// tool's child writes to stderr and to the stdout it inherited, and reads
/// the stdin it inherited. The protocol channel carries only the answers;
/// the child's lines are in the report; the child read nothing of the
/// host's messages.
#[test]
fn a_child_cannot_corrupt_the_channel_or_read_the_host() {
    let mut demo = Demo::spawn();
    demo.initialize();
    // The call and the ping go out together, so a child reading the
    // server's real stdin would find the ping there.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "stderr-child", "arguments": {"text": "over here"}}});
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert!(
        demo.process
            .send_raw(format!("{call}\n{ping}\n").into_bytes())
    );
    let answer = demo.recv();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        report(&answer),
        "the child exited with status 0; the capture caught:\n\
         child stdin: 0 bytes\n\
         child stderr: over here\n\
         child stdout: over here\n\
         tool stdout: the child is done\n"
    );
    let answer = demo.recv();
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    assert_eq!(demo.close_and_wait(), 0);
    assert!(!demo.stderr().contains("over here"), "{}", demo.stderr());
}

/// MCP-CORE r1 §5¶29: the server depends on nothing on PATH; with an empty
/// PATH it serves, child process included.
#[test]
fn serves_with_an_empty_path() {
    let mut demo = Demo::spawn_with(|command| {
        command.env_clear().env("PATH", "");
    });
    demo.initialize();
    let answer = demo.call(1, "stderr-child", json!({}));
    assert!(report(&answer).contains("child stderr: hello"), "{answer}");
    assert_eq!(report(&demo.call(2, "echo", json!({"text": "ok"}))), "ok");
    assert_eq!(demo.close_and_wait(), 0);
}

/// The README's first exchange with the demo server: the request of its
/// `echo '…' | cargo run --release --quiet -- demo-server` line, sent to
/// the demo server, answers what `tests/golden/quick-start.jsonl` holds,
/// which the README shows (the docs' sample test holds it to the file).
#[test]
fn the_readmes_first_request_gets_the_answer_it_shows() {
    let readme = include_str!("../../README.md");
    let command = readme
        .lines()
        .skip_while(|line| !line.starts_with("echo '"))
        .take(2)
        .collect::<Vec<_>>();
    assert!(
        command.len() == 2
            && command[1]
                .trim_start()
                .starts_with("| cargo run --release --quiet -- demo-server"),
        "the README's quick start is `echo '…' \\` then `| cargo run --release --quiet -- demo-server`: {command:?}"
    );
    let request = command[0]
        .strip_prefix("echo '")
        .and_then(|rest| rest.strip_suffix("' \\"))
        .expect("one quoted request");
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .arg("demo-server")
        .write_stdin(format!("{request}\n"))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    crate::util::assert_golden(
        "quick-start.jsonl",
        &String::from_utf8(output.stdout).unwrap(),
    );
}
