//! `mcp-replay serve` and `mcp-replay manifest`: the checker as an MCP
//! server, held to REQ-C-032 (docs/req-c-032.md),
//! one test per acceptance criterion. The criteria about registration are
//! unit tests of `src/manifest/mod.rs`, named after the field each refuses.

use std::process::{Command, Stdio};

use rustix::process::Signal;
use serde_json::{Value, json};

use crate::util::{
    Host, STEP, assert_idle_server_stays, assert_refuses_single_result_flags, bin, fixture_server,
    initialize, request, shell_status,
};

fn serve(args: &[&str]) -> Host {
    let mut cmd = Command::new(bin());
    cmd.arg("serve").args(args);
    Host::spawn(cmd)
}

fn manifest() -> Value {
    let out = Command::new(bin()).arg("manifest").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the manifest is one JSON document")
}

fn answer(host: &mut Host) -> Value {
    serde_json::from_slice(&host.line()).expect("every stdout line is a JSON-RPC message")
}

fn call(host: &mut Host, id: i64, name: &str, arguments: Value) -> Value {
    let line = request(
        json!(id),
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    );
    host.send(format!("{line}\n").as_bytes());
    let answer = answer(host);
    assert_eq!(answer["id"], id, "{answer}");
    answer
}

/// The last line of stderr, parsed as a ResponseEnvelope.
fn envelope(stderr: &str) -> Value {
    let last = stderr.lines().last().expect("stderr is not empty");
    let envelope: Value = serde_json::from_str(last)
        .unwrap_or_else(|err| panic!("the last stderr line is no JSON ({err}): {stderr}"));
    assert_eq!(envelope["ok"], false, "{envelope}");
    assert!(envelope["data"].is_null(), "{envelope}");
    assert!(envelope["warnings"].is_array(), "{envelope}");
    assert!(envelope["meta"]["duration_ms"].is_u64(), "{envelope}");
    assert!(envelope["error"]["message"].is_string(), "{envelope}");
    envelope
}

// REQ-C-032: tool manifest shows stdout: "protocol" and a protocol name on
// every protocol server command, and neither field on any other command.
#[test]
fn manifest_shows_stdout_protocol_exactly_on_the_servers() {
    let manifest = manifest();
    let commands = manifest["commands"].as_object().unwrap();
    for name in ["serve", "mock", "demo-server"] {
        assert_eq!(commands[name]["stdout"], "protocol", "{name}");
        assert_eq!(commands[name]["protocol"], "mcp-stdio", "{name}");
    }
    for (name, entry) in commands {
        if !matches!(name.as_str(), "serve" | "mock" | "demo-server") {
            assert!(entry.get("stdout").is_none(), "{name}");
            assert!(entry.get("protocol").is_none(), "{name}");
        }
        assert!(entry["danger_level"].is_string(), "{name}");
        assert!(entry["required_scopes"].is_array(), "{name}");
        assert_eq!(entry["exit_codes"]["0"]["name"], "SUCCESS", "{name}");
        for (code, meaning) in entry["exit_codes"].as_object().unwrap() {
            for field in ["name", "description", "retryable", "side_effects"] {
                assert!(meaning.get(field).is_some(), "{name} {code} {field}");
            }
        }
    }
    assert_eq!(commands["serve"]["exit_codes"]["143"]["name"], "SIGTERM");
    assert_eq!(commands["check"]["flags"]["timeout"]["type"], "duration");
}

// REQ-C-032: tool manifest shows mcp: false on every command the tool's MCP
// server leaves out, and no mcp field on any other command.
// REQ-C-032: a manifest with mcp: true on any command fails validation
// against the manifest schema (registration refuses it; see
// `manifest::tests::mcp_true_is_refused_on_any_command`).
#[test]
fn manifest_marks_the_commands_serve_leaves_out() {
    let manifest = manifest();
    let commands = manifest["commands"].as_object().unwrap();
    for name in ["record", "serve", "mock", "demo-server"] {
        assert_eq!(commands[name]["mcp"], false, "{name}");
    }
    for name in ["check", "laws"] {
        assert!(commands[name].get("mcp").is_none(), "{name}");
    }
    assert_eq!(commands["check"]["flags"]["bless"]["mcp"], false);
    assert!(!manifest.to_string().contains(r#""mcp":true"#));
}

// REQ-C-032: an invalid flag exits 2 with stdout empty; in JSON mode the
// last line of stderr parses as a ResponseEnvelope with error.code:
// "ARG_ERROR".
#[test]
fn an_invalid_flag_exits_2_with_the_envelope_in_json_mode() {
    let out = Command::new(bin())
        .args(["serve", "--format", "json", "--read-only=maybe"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{:?}", out.stdout);
    let envelope = envelope(&String::from_utf8_lossy(&out.stderr));
    assert_eq!(envelope["error"]["code"], "ARG_ERROR");
    assert_eq!(envelope["error"]["phase"], "validation");
    assert_eq!(envelope["meta"]["exit_code"], 2);

    // In text mode the error is clap's plain text, and no envelope.
    let out = Command::new(bin())
        .args(["serve", "--format", "yaml"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid value 'yaml'"), "{stderr}");
    assert!(!stderr.contains("ARG_ERROR"), "{stderr}");
}

// REQ-C-032: a failure while preparing to serve exits with a code from the
// command's declared exit_codes, writes nothing to stdout, and in JSON mode
// ends stderr with the envelope.
#[test]
fn a_failure_before_serving_exits_with_a_declared_code_and_the_envelope() {
    // The capture guard's temp file cannot be made: serving never begins.
    let out = Command::new(bin())
        .args(["serve", "--format", "json"])
        .env("TMPDIR", "/nonexistent/mcp-replay-serve")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let code = out.status.code().expect("an exit, not a signal");
    assert!(
        manifest()["commands"]["serve"]["exit_codes"]
            .get(code.to_string())
            .is_some(),
        "{code} is not declared"
    );
    assert_ne!(code, 0);
    assert!(out.stdout.is_empty(), "{:?}", out.stdout);
    let envelope = envelope(&String::from_utf8_lossy(&out.stderr));
    assert_eq!(envelope["error"]["code"], "SERVE_ERROR");
    assert_eq!(envelope["meta"]["exit_code"], code);
}

// REQ-C-032: tool <cmd> --help prints help to stdout, exits 0, and does not
// read stdin.
#[test]
fn help_prints_to_stdout_and_never_reads_stdin() {
    // Stdin is a pipe that stays open and is never written: a command that
    // read it would wait, and miss the deadline.
    let mut host = serve(&["--help"]);
    let status = host.wait();
    assert_eq!(status.code(), Some(0), "{}", host.stderr());
    let stdout = String::from_utf8_lossy(&host.rest()).into_owned();
    assert!(stdout.contains("Usage: mcp-replay serve"), "{stdout}");
    assert!(!stdout.contains("jsonrpc"), "{stdout}");
}

// REQ-C-032: once serving begins, every byte on stdout is a protocol
// message: a client that speaks the declared protocol reads the server's
// first response without skipping any line.
#[test]
fn every_stdout_byte_is_a_protocol_message() {
    let mut host = serve(&[]);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    let first = answer(&mut host);
    assert_eq!(first["id"], 1);
    assert_eq!(first["result"]["serverInfo"]["name"], "mcp-replay");
    // A checked server that shouts on its stdout and its stderr, and
    // breaks the laws: none of it reaches the protocol channel.
    let noisy = [
        "sh",
        "-c",
        "echo NOISY-STDOUT; echo NOISY-STDERR >&2; cat >/dev/null",
    ];
    let answer = call(
        &mut host,
        2,
        "check",
        json!({"command": noisy, "no_replay": true, "settle": "50ms", "timeout": "2s", "grace": "1s"}),
    );
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    host.close_stdin();
    let rest = String::from_utf8_lossy(&host.rest()).into_owned();
    assert!(rest.is_empty(), "{rest}");
    assert_eq!(host.wait().code(), Some(0));
}

// REQ-C-032: a malformed request is answered with a protocol error and the
// server keeps running.
#[test]
fn a_malformed_request_is_answered_in_the_protocol() {
    let mut host = serve(&[]);
    host.send(b"{not json\n");
    let error = answer(&mut host);
    assert_eq!(error["error"]["code"], -32700, "{error}");
    host.send(format!("{}\n", request(json!(7), "ping", Value::Null)).as_bytes());
    let pong = answer(&mut host);
    assert_eq!(pong["id"], 7);
    assert_eq!(pong["result"], json!({}));
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

// REQ-C-032: closing the server's stdin ends the process with exit 0 and no
// envelope on stderr.
#[test]
fn closing_stdin_exits_0_without_an_envelope() {
    let mut host = serve(&["--format", "json"]);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
    let stderr = host.stderr();
    assert!(!stderr.contains(r#""ok":false"#), "{stderr}");
}

// REQ-C-032: SIGTERM while serving ends the process with 143, and in JSON
// mode the last line of stderr is an envelope.
#[test]
fn sigterm_while_serving_exits_143_with_the_envelope() {
    let mut host = serve(&["--format", "json"]);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    host.signal(Signal::TERM);
    let status = host.wait();
    assert_eq!(shell_status(status), 143, "{}", host.stderr());
    assert_eq!(status.code(), Some(143), "an exit, after the envelope");
    let envelope = envelope(&host.stderr_to_end());
    assert_eq!(envelope["meta"]["exit_code"], 143);
    assert_eq!(envelope["error"]["phase"], "serving");
}

// REQ-C-032: a server that stays idle past the default timeout after
// serving begins is not terminated by the framework.
#[test]
fn an_idle_server_is_not_timed_out() {
    let mut cmd = Command::new(bin());
    cmd.arg("serve");
    assert_idle_server_stays(cmd);
}

// REQ-C-032: a protocol command does not accept --idempotency-key,
// --dry-run, --output, or --confirm-destructive.
#[test]
fn serve_refuses_the_flags_of_single_results() {
    assert_refuses_single_result_flags(
        &["serve".as_ref()],
        &manifest()["commands"]["serve"]["flags"],
    );
}

// REQ-C-032: a command without stdout behaves exactly as before under
// REQ-F-004, REQ-F-006, REQ-F-011, and REQ-C-007: its report is on stdout,
// a bad flag still exits 2 with stdout empty.
#[test]
fn commands_without_stdout_protocol_keep_their_output() {
    let out = Command::new(bin())
        .args(["laws", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(r#""id":"schema""#));
    let out = Command::new(bin())
        .args(["check", "--format", "json", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        envelope(&String::from_utf8_lossy(&out.stderr))["error"]["code"],
        "ARG_ERROR"
    );
}

// REQ-C-032: the tool's MCP server lists no command marked mcp: false in its
// tool list, and a call naming one is answered with a protocol error, not
// run.
#[test]
fn serve_lists_no_mcp_false_command_and_refuses_calls_naming_one() {
    let mut host = serve(&[]);
    host.send(
        format!(
            "{}\n",
            request(
                json!(1),
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
            )
        )
        .as_bytes(),
    );
    answer(&mut host);
    host.send(format!("{}\n", request(json!(2), "tools/list", json!({}))).as_bytes());
    let list = answer(&mut host);
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["check", "fuzz", "laws"]);
    let off: Vec<String> = manifest()["commands"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, entry)| entry.get("mcp") == Some(&json!(false)))
        .map(|(name, _)| name.clone())
        .collect();
    assert!(off.contains(&"record".to_owned()));
    for (id, name) in (3..).zip(off.iter().map(String::as_str).chain(["bless"])) {
        let refused = call(&mut host, id, name, json!({}));
        assert_eq!(refused["error"]["code"], -32601, "{name}: {refused}");
    }
    // `--bless` is no argument of `check`: the call is refused before it runs.
    let refused = call(
        &mut host,
        20,
        "check",
        json!({"bless": true, "command": ["true"]}),
    );
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("invalid arguments"), "{text}");

    // The descriptors: annotations and the output schema.
    let check = &tools[0];
    // `check` runs any command it is given: it says so.
    assert_eq!(check["annotations"]["readOnlyHint"], false);
    assert_eq!(check["annotations"]["destructiveHint"], true);
    assert_eq!(check["annotations"]["idempotentHint"], false);
    assert_eq!(check["annotations"]["openWorldHint"], true);
    // So does `fuzz`, which starts its command and calls its tools.
    let fuzz = &tools[1];
    assert_eq!(fuzz["annotations"]["readOnlyHint"], false);
    assert_eq!(fuzz["annotations"]["destructiveHint"], true);
    assert_eq!(fuzz["annotations"]["idempotentHint"], false);
    assert_eq!(fuzz["annotations"]["openWorldHint"], true);
    let laws = &tools[2];
    assert_eq!(laws["annotations"]["readOnlyHint"], true);
    assert_eq!(check["outputSchema"]["type"], "object");
    assert_eq!(laws["annotations"]["openWorldHint"], false);
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// A clean server passes, with its findings as structured content; a broken
/// one fails the call with `isError` and its finding named.
#[test]
fn the_check_tool_gates_a_server() {
    let mut host = serve(&[]);
    host.send(
        format!(
            "{}\n",
            request(
                json!(1),
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
            )
        )
        .as_bytes(),
    );
    answer(&mut host);
    let clean = call(
        &mut host,
        2,
        "check",
        json!({"command": [fixture_server()], "no_replay": true}),
    );
    let result = &clean["result"];
    assert_eq!(result["isError"], false, "{clean}");
    assert_eq!(result["structuredContent"]["exit_code"], 0);
    assert_eq!(result["structuredContent"]["passed"], true);
    let records = result["structuredContent"]["records"].as_array().unwrap();
    assert_eq!(records.last().unwrap()["type"], "summary");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("PASS"), "{text}");
    assert!(!text.contains('\x1b'), "no colour: {text:?}");

    let broken = call(
        &mut host,
        3,
        "check",
        json!({"command": [fixture_server(), "--break", "ping"], "no_replay": true}),
    );
    let result = &broken["result"];
    assert_eq!(result["isError"], true, "{broken}");
    assert_eq!(result["structuredContent"]["exit_code"], 1);
    let records = result["structuredContent"]["records"].as_array().unwrap();
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "finding" && r["law"] == "ping"),
        "{records:?}"
    );

    let laws = call(&mut host, 4, "laws", json!({}));
    assert_eq!(laws["result"]["isError"], false);
    assert!(
        laws["result"]["structuredContent"]["laws"]
            .as_array()
            .unwrap()
            .len()
            > 20
    );
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

/// `fuzz` finds a tool's bug, calls only the tools that say they change
/// nothing (not one that only adds), in a scratch directory, writes no
/// transcript, and takes no argument that would widen that.
#[test]
fn the_fuzz_tool_calls_read_only_tools_in_a_scratch_directory() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin());
    cmd.current_dir(dir.path()).arg("serve");
    let mut host = Host::spawn(cmd);
    // 2025-06-18 or later: the answer carries structured content.
    host.send(
        format!(
            "{}\n",
            request(
                json!(1),
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
            )
        )
        .as_bytes(),
    );
    answer(&mut host);
    let server = |extra: &[&'static str]| {
        let mut argv = vec![fixture_server(), "--additive-tool"];
        argv.extend(extra);
        argv
    };
    let clean = call(
        &mut host,
        2,
        "fuzz",
        json!({"command": server(&[]), "cases": 5, "seed": 7}),
    );
    let result = &clean["result"];
    assert_eq!(result["isError"], false, "{clean}");
    assert_eq!(result["structuredContent"]["exit_code"], 0, "{clean}");
    let records = result["structuredContent"]["records"].as_array().unwrap();
    let status = |tool: &str| {
        records
            .iter()
            .find(|r| r["type"] == "tool" && r["tool"] == tool)
            .map(|r| r["status"].clone())
    };
    assert_eq!(status("convert"), Some(json!("pass")), "{records:?}");
    for not_called in ["append", "touch", "delete_all"] {
        assert_eq!(
            status(not_called),
            Some(json!("skip")),
            "{not_called}: {records:?}"
        );
    }
    let broken = call(
        &mut host,
        3,
        "fuzz",
        json!({"command": server(&["--fuzz-bug", "crash"]), "cases": 20, "seed": 7}),
    );
    let result = &broken["result"];
    assert_eq!(result["isError"], true, "{broken}");
    assert_eq!(result["structuredContent"]["exit_code"], 1, "{broken}");
    for widening in [
        json!({"command": server(&[]), "all_tools": true}),
        json!({"command": server(&[]), "tool": ["touch"]}),
        json!({"command": server(&[]), "cwd": "/"}),
        json!({"command": server(&[]), "findings": "out"}),
    ] {
        let refused = call(&mut host, 4, "fuzz", widening.clone());
        assert_eq!(refused["result"]["isError"], true, "{widening}: {refused}");
    }
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "serve's directory holds {left:?}");
}

/// The status of each law of `check --format json` on `record`s.
fn law_status(records: &[Value], law: &str) -> String {
    records
        .iter()
        .find(|r| r["type"] == "law" && r["law"] == law)
        .unwrap_or_else(|| panic!("no outcome for {law}: {records:?}"))["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn check_cli_probes(extra: &[&str], server: &[&str]) -> (Option<i32>, Vec<Value>) {
    let out = Command::new(bin())
        .args(["check", "--format", "json", "--no-replay", "--cli-probes"])
        .args(["--startup-timeout", "3s"])
        .args(extra)
        .arg("--")
        .args(server)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code(), crate::util::json_lines(&out.stdout))
}

// REQ-C-032: the CLI probes hold `mcp-replay serve` to "tool <cmd> --help
// prints help to stdout, exits 0, and does not read stdin" and "an invalid
// flag exits 2 with stdout empty".
#[test]
fn the_cli_probes_pass_mcp_replay_serve() {
    let (code, records) = check_cli_probes(&[], &[bin(), "serve"]);
    assert_eq!(code, Some(0), "{records:?}");
    assert_eq!(law_status(&records, "help-does-not-serve"), "pass");
    assert_eq!(law_status(&records, "bad-flag-exits-2"), "pass");
    let (code, records) = check_cli_probes(&["--bad-flag", "--format=yaml"], &[bin(), "serve"]);
    assert_eq!(code, Some(0), "{records:?}");
    assert_eq!(law_status(&records, "bad-flag-exits-2"), "pass");
}

/// A command whose `--help` waits on stdin, and that answers a bad flag
/// with status 1 and a line on stdout, fails both CLI probes.
#[test]
fn the_cli_probes_catch_a_command_line_that_breaks_them() {
    let script = r#"case "$1" in --help) cat >/dev/null; echo usage;; *) echo oops; exit 1;; esac"#;
    let (code, records) = check_cli_probes(&["--timeout", "1s"], &["sh", "-c", script, "sh"]);
    assert_eq!(code, Some(1));
    assert_eq!(law_status(&records, "help-does-not-serve"), "fail");
    assert_eq!(law_status(&records, "bad-flag-exits-2"), "fail");
    let messages: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "finding" && r["law"] == "bad-flag-exits-2")
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert!(messages.iter().any(|m| m.contains("not 2")), "{messages:?}");
    assert!(
        messages.iter().any(|m| m.contains("on stdout")),
        "{messages:?}"
    );

    // A `--help` that exits 0 with nothing on stdout fails too.
    let quiet = r#"case "$1" in --help) exit 0;; *) exit 2;; esac"#;
    let (_, records) = check_cli_probes(&[], &["sh", "-c", quiet, "sh"]);
    assert_eq!(law_status(&records, "help-does-not-serve"), "fail");
    assert_eq!(law_status(&records, "bad-flag-exits-2"), "pass");
}

/// Without `--cli-probes` the two laws are not run, nor listed.
#[test]
fn the_cli_probes_are_opt_in() {
    let out = Command::new(bin())
        .args([
            "check",
            "--format",
            "json",
            "--no-replay",
            "--",
            bin(),
            "serve",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let records = crate::util::json_lines(&out.stdout);
    assert!(
        !records
            .iter()
            .any(|r| r["law"] == "help-does-not-serve" || r["law"] == "bad-flag-exits-2"),
        "{records:?}"
    );
}

// REQ-C-032 (Lifetime): every child process the server starts ends when it
// exits, here by SIGTERM in the middle of a `check` call.
#[test]
fn sigterm_during_a_check_takes_the_checked_servers_with_it() {
    let marker = "mcp-replay-serve-sigterm-marker";
    let mut host = serve(&["--format", "json"]);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    // A server that never answers: the probes wait on it.
    let line = request(
        json!(2),
        "tools/call",
        json!({"name": "check", "arguments": {
            "command": ["sh", "-c", "sleep 300; exit 0", marker],
            "no_replay": true,
            "startup_timeout": "60s",
            "timeout": "60s"
        }}),
    );
    host.send(format!("{line}\n").as_bytes());
    let deadline = std::time::Instant::now() + STEP;
    while crate::util::processes_with(marker).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no checked server started"
        );
        std::thread::yield_now();
    }
    host.signal(Signal::TERM);
    assert_eq!(host.wait().code(), Some(143), "{}", host.stderr());
    assert_eq!(envelope(&host.stderr_to_end())["error"]["code"], "SIGTERM");
    crate::util::assert_no_process_with(marker);
}

// REQ-C-032: "tool <cmd> --help and tool <cmd> --schema print to stdout as
// for any command and never begin serving".
#[test]
fn schema_prints_the_commands_manifest_entry_and_never_reads_stdin() {
    for command in ["serve", "mock", "demo-server"] {
        // Stdin stays open and is never written: a command that read it, or
        // began serving, would miss the deadline.
        let mut cmd = Command::new(bin());
        cmd.args([command, "--schema"]);
        let mut host = Host::spawn(cmd);
        let status = host.wait();
        assert_eq!(status.code(), Some(0), "{command}: {}", host.stderr());
        let stdout = host.rest();
        let schema: Value = serde_json::from_slice(&stdout)
            .unwrap_or_else(|err| panic!("{command}: {err}: {}", String::from_utf8_lossy(&stdout)));
        let commands = schema["commands"].as_object().unwrap();
        assert_eq!(commands.keys().collect::<Vec<_>>(), [command]);
        let entry = &commands[command];
        assert_eq!(entry["stdout"], "protocol", "{command}");
        assert_eq!(entry["protocol"], "mcp-stdio", "{command}");
        assert_eq!(entry["flags"]["schema"]["type"], "boolean", "{command}");
        assert_eq!(schema["schema_version"], manifest()["schema_version"]);
    }
}

/// How long `serve` may take to answer, or to stop a call, while a check
/// runs: a loaded machine's margin (a check's own deadlines here are ten
/// minutes).
const PROMPT: std::time::Duration = std::time::Duration::from_secs(5);

/// Sends a `check` call (id `id`) of a server that never answers, named by
/// `marker`, and waits until it runs.
fn start_hanging_check(host: &mut Host, id: i64, script: &str, marker: &str) {
    let line = request(
        json!(id),
        "tools/call",
        json!({"name": "check", "arguments": {
            "command": ["sh", "-c", script, marker],
            "no_replay": true,
            "startup_timeout": "600s",
            "timeout": "600s"
        }}),
    );
    host.send(format!("{line}\n").as_bytes());
    let deadline = std::time::Instant::now() + STEP;
    while crate::util::processes_with(marker).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no checked server started"
        );
        std::thread::yield_now();
    }
}

/// Waits until no process carries `marker`, and says how long it took.
fn gone_after(marker: &str) -> std::time::Duration {
    let started = std::time::Instant::now();
    crate::util::assert_no_process_with(marker);
    started.elapsed()
}

/// The next line on stdout, which must come within [`PROMPT`].
fn prompt_answer(host: &mut Host) -> (Value, std::time::Duration) {
    let started = std::time::Instant::now();
    let answer = answer(host);
    (answer, started.elapsed())
}

#[test]
fn serve_answers_while_a_check_runs() {
    let marker = format!("serve-busy-{}", std::process::id());
    let mut host = serve(&[]);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    start_hanging_check(&mut host, 2, "sleep 600; :", &marker);
    host.send(format!("{}\n", request(json!(3), "ping", json!(null))).as_bytes());
    let (pong, took) = prompt_answer(&mut host);
    assert_eq!(pong["id"], 3, "{pong}");
    assert!(took < PROMPT, "the ping waited {took:?}");
    host.send(format!("{}\n", request(json!(4), "tools/list", json!(null))).as_bytes());
    let (tools, took) = prompt_answer(&mut host);
    assert_eq!(tools["id"], 4, "{tools}");
    assert!(took < PROMPT, "tools/list waited {took:?}");
    // Another call runs beside the first, and answers.
    let laws = call(&mut host, 5, "laws", json!({}));
    assert_eq!(laws["result"]["isError"], false, "{laws}");
    // End of input ends serve, and the running check's server with it.
    host.close_stdin();
    let started = std::time::Instant::now();
    assert_eq!(host.wait().code(), Some(0), "{}", host.stderr());
    assert!(
        started.elapsed() < PROMPT,
        "serve took {:?}",
        started.elapsed()
    );
    let took = gone_after(&marker);
    assert!(
        took < PROMPT,
        "the checked server outlived serve by {took:?}"
    );
}

/// A 2025-03-26 batch that holds a `check` call runs off the read loop,
/// as a single call does: `ping` is answered while it runs, and the batch
/// is answered as one array once its members are.
// See: #25
#[test]
fn a_batch_of_check_calls_runs_off_the_loop() {
    let marker = format!("serve-batch-{}", std::process::id());
    let mut host = serve(&[]);
    let initialize = request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    host.send(format!("{initialize}\n").as_bytes());
    assert_eq!(answer(&mut host)["result"]["protocolVersion"], "2025-03-26");
    let hanging = request(
        json!(2),
        "tools/call",
        json!({"name": "check", "arguments": {
            "command": ["sh", "-c", "sleep 600; :", &marker],
            "no_replay": true,
            "startup_timeout": "600s",
            "timeout": "600s"
        }}),
    );
    let ping = request(json!(3), "ping", json!(null));
    host.send(format!("[{hanging},{ping}]\n").as_bytes());
    let deadline = std::time::Instant::now() + STEP;
    while crate::util::processes_with(&marker).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no checked server started"
        );
        std::thread::yield_now();
    }
    host.send(format!("{}\n", request(json!(4), "ping", json!(null))).as_bytes());
    let (pong, took) = prompt_answer(&mut host);
    assert_eq!(pong["id"], 4, "{pong}");
    assert!(took < PROMPT, "the ping waited {took:?}");
    // A batch whose check ends is answered as one array, in order.
    let quick = request(
        json!(5),
        "tools/call",
        json!({"name": "check", "arguments": {"command": [fixture_server()], "no_replay": true}}),
    );
    let ping = request(json!(6), "ping", json!(null));
    host.send(format!("[{quick},{ping}]\n").as_bytes());
    let answers = answer(&mut host);
    let answers = answers.as_array().unwrap_or_else(|| panic!("{answers}"));
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["id"], 5, "{answers:?}");
    assert_eq!(answers[0]["result"]["isError"], false, "{answers:?}");
    assert_eq!(answers[1]["id"], 6, "{answers:?}");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0), "{}", host.stderr());
    let took = gone_after(&marker);
    assert!(
        took < PROMPT,
        "the checked server outlived serve by {took:?}"
    );
}

#[test]
fn a_cancelled_check_stops_its_servers_and_is_not_answered() {
    let marker = format!("serve-cancelled-{}", std::process::id());
    let mut host = serve(&[]);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    start_hanging_check(&mut host, 2, "sleep 600; :", &marker);
    let cancel = json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "the user changed their mind"}
    });
    host.send(format!("{cancel}\n").as_bytes());
    let took = gone_after(&marker);
    assert!(took < PROMPT, "the cancelled check's server lived {took:?}");
    // The next line is the ping's answer: the cancelled call got none.
    host.send(format!("{}\n", request(json!(3), "ping", json!(null))).as_bytes());
    let (pong, _) = prompt_answer(&mut host);
    assert_eq!(pong["id"], 3, "{pong}");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
    let rest = host.rest();
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
}

#[test]
fn a_check_past_the_call_timeout_is_stopped_and_says_so() {
    let marker = format!("serve-call-timeout-{}", std::process::id());
    let mut host = serve(&["--call-timeout", "1s"]);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    start_hanging_check(&mut host, 2, "sleep 600; :", &marker);
    let (answer, _) = prompt_answer(&mut host);
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("serve's limit for one call (1s)"), "{text}");
    let took = gone_after(&marker);
    assert!(took < PROMPT, "the stopped check's server lived {took:?}");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

#[test]
fn a_daemon_a_checked_server_starts_goes_with_serve() {
    let marker = format!("serve-daemon-{}", std::process::id());
    let daemon = format!("{marker}-daemon");
    let mut host = serve(&[]);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    // The daemon leaves the server's process group and session.
    let script = format!("setsid sh -c 'sleep 600; :' {daemon} & sleep 600; :");
    start_hanging_check(&mut host, 2, &script, &marker);
    let deadline = std::time::Instant::now() + STEP;
    while crate::util::processes_with(&daemon).is_empty() {
        assert!(std::time::Instant::now() < deadline, "no daemon started");
        std::thread::yield_now();
    }
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
    let took = gone_after(&daemon);
    assert!(took < PROMPT, "the daemon outlived serve by {took:?}");
    crate::util::assert_no_process_with(&marker);
}

#[test]
fn a_checked_server_cannot_open_serves_descriptors() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result");
    // Root may open any process's descriptors (CAP_SYS_PTRACE), and a
    // process with fewer capabilities may not open those of one with more
    // anyway: `serve` and its server run as one ordinary user, as they do
    // on a developer's machine.
    let mut cmd = if rustix::process::geteuid().is_root() {
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let mut cmd = Command::new("setpriv");
        cmd.args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            "--",
        ])
        .arg(bin());
        cmd
    } else {
        Command::new(bin())
    };
    cmd.arg("serve").current_dir(dir.path());
    // Every descriptor of its parent, `serve`, opened for appending (which
    // writes nothing): the protocol channel is one of them.
    let script = format!(
        "{{ for fd in /proc/$PPID/fd/*; do (: >> \"$fd\") 2>/dev/null && echo \"opened $fd\"; done; \
         echo end; }} >> '{}'",
        result.display()
    );
    let mut host = Host::spawn(cmd);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    let answer = call(
        &mut host,
        2,
        "check",
        json!({"command": ["sh", "-c", script], "no_replay": true}),
    );
    assert!(answer["result"].is_object(), "{answer}");
    // Each of the probes' sessions ran the script; none opened anything.
    let text = std::fs::read_to_string(&result).unwrap();
    assert!(text.lines().count() > 1, "{text}");
    assert!(text.lines().all(|line| line == "end"), "{text}");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}

#[test]
fn a_check_call_reads_only_inside_serves_directory() {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("project");
    std::fs::create_dir_all(dir.join("transcripts")).unwrap();
    let outside = outer.path().join("outside.jsonl");
    std::fs::write(&outside, "{}\n").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("transcripts/link.jsonl")).unwrap();
    // A baseline inside whose content is no baseline: the error must not
    // quote it.
    std::fs::write(
        dir.join("baseline.json"),
        r#"{"format": "mcp-replay-baseline", "version": 2, "findings": "SECRET-CONTENT"}"#,
    )
    .unwrap();
    let mut cmd = Command::new(bin());
    cmd.arg("serve").current_dir(&dir);
    let mut host = Host::spawn(cmd);
    host.send(format!("{}\n", initialize(1)).as_bytes());
    answer(&mut host);
    let text = |answer: &Value| {
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let refused = [
        json!({"paths": ["../outside.jsonl"]}),
        json!({"paths": [outside.display().to_string()]}),
        // A directory whose walk finds a link out of the tree.
        json!({"paths": ["transcripts"]}),
        json!({"command": ["true"], "no_replay": true, "baseline": "/etc/passwd"}),
        json!({"command": ["true"], "no_replay": true, "baseline": "../outside.jsonl"}),
    ];
    for (n, arguments) in refused.into_iter().enumerate() {
        let id = i64::try_from(n).unwrap() + 2;
        let answer = call(&mut host, id, "check", arguments.clone());
        let text = text(&answer);
        assert!(
            text.contains("outside the directory the check runs in"),
            "{arguments}: {text}"
        );
    }
    let answer = call(
        &mut host,
        20,
        "check",
        json!({"command": ["true"], "no_replay": true, "baseline": "baseline.json"}),
    );
    let text = text(&answer);
    assert!(text.contains("baseline.json:1:"), "{text}");
    assert!(!text.contains("SECRET"), "{text}");
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0));
}
