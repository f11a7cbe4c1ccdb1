//! `mcp-replay fuzz`: each check catching a server with exactly that bug,
//! the transcript it writes failing against that server and passing
//! against the fixed one, correct servers passing (slow, with many tools,
//! answering out of order, in both eras), the safety rules, the seed, and
//! a signal.

use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{
    Waiter, assert_no_process_with, bin, fixture_server, json_lines, path_with_fixture_server,
};

/// `mcp-replay fuzz <args> -- fixture-server <server>` in `dir`.
fn fuzz(dir: &Path, args: &[&str], server: &[&str]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.current_dir(dir)
        .arg("fuzz")
        .args(args)
        .arg("--")
        .arg(fixture_server())
        .args(server);
    run(cmd)
}

/// `mcp-replay check --no-probes <transcript> [-- fixture-server <server>]`.
fn replay(dir: &Path, transcript: &Path, server: Option<&[&str]>) -> Output {
    let mut cmd = Command::new(bin());
    cmd.current_dir(dir)
        .args([
            "check",
            "--no-probes",
            "--format",
            "json",
            "--timeout",
            "3s",
        ])
        .arg(transcript);
    if let Some(server) = server {
        cmd.arg("--").arg(fixture_server()).args(server);
    }
    run(cmd)
}

/// Runs a command to its end, within a generous deadline.
fn run(mut cmd: Command) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().expect("mcp-replay starts");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stdout.read_to_end(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let status = Waiter::new(child).wait();
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The finding lines of a JSON Lines report.
fn findings(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|line| line["type"] == "finding")
        .collect()
}

/// Fuzzes the fixture with one bug; returns the findings (as JSON) and the
/// transcripts written.
fn caught(dir: &Path, bug: &str, args: &[&str]) -> (Vec<Value>, Vec<PathBuf>) {
    let mut all = vec!["--seed", "11", "--format", "json"];
    all.extend(args);
    let output = fuzz(dir, &all, &["--fuzz-bug", bug]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{bug}: {}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    let lines = json_lines(&output.stdout);
    let found: Vec<Value> = findings(&lines).into_iter().cloned().collect();
    let transcripts = found
        .iter()
        .filter_map(|finding| finding["fuzz"]["transcript"].as_str())
        .map(|path| dir.join(path))
        .collect();
    (found, transcripts)
}

/// The one law and tool of `found`, which all findings share.
fn law_and_tool(found: &[Value]) -> (String, String) {
    assert!(!found.is_empty());
    let law = found[0]["law"].as_str().unwrap().to_owned();
    let tool = found[0]["fuzz"]["tool"].as_str().unwrap().to_owned();
    for finding in found {
        assert_eq!(finding["law"], law.as_str(), "{found:#?}");
        assert_eq!(finding["fuzz"]["tool"], tool.as_str(), "{found:#?}");
    }
    (law, tool)
}

/// The laws of the findings of a `check --format json` report.
fn replay_laws(output: &Output) -> Vec<String> {
    findings(&json_lines(&output.stdout))
        .iter()
        .map(|finding| finding["law"].as_str().unwrap().to_owned())
        .collect()
}

/// Each bug is caught by its law on its tool, its transcript exists, fails
/// against the buggy server with `replay_law`, and passes against the
/// fixed one.
fn bug_is_caught(bug: &str, args: &[&str], law: &str, tool: &str, replay_law: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (found, transcripts) = caught(dir.path(), bug, args);
    assert_eq!(
        law_and_tool(&found),
        (law.to_owned(), tool.to_owned()),
        "{bug}"
    );
    assert!(!transcripts.is_empty(), "{bug}: no transcript: {found:#?}");
    for transcript in &transcripts {
        assert!(transcript.exists(), "{}", transcript.display());
        let buggy = replay(dir.path(), transcript, None);
        assert_eq!(
            buggy.status.code(),
            Some(1),
            "{bug}: {}",
            text(&buggy.stdout)
        );
        assert!(
            replay_laws(&buggy).iter().any(|found| found == replay_law),
            "{bug}: {}",
            text(&buggy.stdout)
        );
        let fixed = replay(dir.path(), transcript, Some(&["--fuzz-tools"]));
        assert_eq!(
            fixed.status.code(),
            Some(0),
            "{bug} fixed: {}",
            text(&fixed.stdout)
        );
    }
}

#[test]
fn a_crash_on_non_ascii_text_is_caught_shrunk_and_kept() {
    bug_is_caught(
        "crash",
        &[],
        "request-answered-once",
        "search",
        "request-answered-once",
    );
    // Shrunk to one non-ASCII character.
    let dir = tempfile::tempdir().unwrap();
    let (found, transcripts) = caught(dir.path(), "crash", &["--tool", "search"]);
    let query = found[0]["fuzz"]["arguments"]["query"].as_str().unwrap();
    assert_eq!(query.chars().count(), 1, "{found:#?}");
    assert!(!query.is_ascii());
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("exited with status 101"),
        "{found:#?}"
    );
    // The transcript says what the server really did: it answered nothing
    // and exited, quoting its stderr. See: #25
    let header = transcript_header(&transcripts[0]);
    assert_eq!(header["fuzz"]["tool"], "search", "{header}");
    assert_eq!(header["fuzz"]["failure"], "crash", "{header}");
    assert!(header["fuzz"]["answered"].is_null(), "{header}");
    let said = header["fuzz"]["said"].as_str().unwrap();
    assert!(said.contains("exited with status 101"), "{said}");
    assert!(said.contains("stderr ends: "), "{said}");
}

/// The header of the transcript at `path`, parsed.
fn transcript_header(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

#[test]
fn a_hang_past_the_call_deadline_is_caught() {
    bug_is_caught(
        "hang",
        &["--tool", "convert", "--cases", "20", "--timeout", "3s"],
        "request-answered-once",
        "convert",
        "request-answered-once",
    );
}

#[test]
fn a_line_that_is_no_message_is_caught() {
    bug_is_caught(
        "stdout",
        &[],
        "stdout-is-protocol",
        "search",
        "stdout-is-protocol",
    );
}

#[test]
fn a_protocol_error_for_valid_arguments_is_caught() {
    bug_is_caught(
        "protocol-error",
        &[],
        "tool-error-is-result",
        "lookup",
        "transcript-match",
    );
}

#[test]
fn structured_content_that_breaks_the_output_schema_is_caught() {
    bug_is_caught("output-schema", &[], "schema", "convert", "schema");
    // The finding names the requirement it shows broken, and the run
    // grades that requirement failed.
    let dir = tempfile::tempdir().unwrap();
    let output = fuzz(
        dir.path(),
        &["--seed", "11", "--format", "json"],
        &["--fuzz-bug", "output-schema"],
    );
    let lines = json_lines(&output.stdout);
    let found = findings(&lines);
    assert!(
        found
            .iter()
            .all(|finding| finding["requirement"] == "srv-tools-output-schema"),
        "{found:#?}"
    );
    let requirement = lines
        .iter()
        .find(|line| line["type"] == "requirement" && line["id"] == "srv-tools-output-schema")
        .expect("a requirement record for srv-tools-output-schema");
    assert_eq!(requirement["status"], "failed", "{requirement:#}");
}

#[test]
fn invalid_arguments_answered_as_a_success_are_caught() {
    let dir = tempfile::tempdir().unwrap();
    let (found, transcripts) = caught(dir.path(), "accepts-invalid", &[]);
    // The transcript's server side is the lawful answer; its header keeps
    // the one the server gave, a success. See: #25
    let header = transcript_header(&transcripts[0]);
    let answered = &header["fuzz"]["answered"];
    assert!(answered["result"].is_object(), "{header}");
    assert_ne!(answered["result"]["isError"], true, "{header}");
    // The limit below its minimum and above its maximum: the shrunk
    // arguments still break the same keyword.
    let keywords: Vec<&str> = found
        .iter()
        .map(|finding| finding["fuzz"]["label"].as_str().unwrap())
        .collect();
    assert!(
        keywords
            .iter()
            .all(|label| label.starts_with("invalid: /limit")),
        "{keywords:?}"
    );
    bug_is_caught(
        "accepts-invalid",
        &[],
        "tool-error-is-result",
        "search",
        "transcript-match",
    );
}

#[test]
fn a_server_that_stops_answering_after_a_call_is_caught() {
    bug_is_caught(
        "stops-answering",
        &["--tool", "describe", "--cases", "60", "--timeout", "3s"],
        "request-answered-once",
        "describe",
        "request-answered-once",
    );
}

/// -32602 for invalid arguments: a finding in `core` whatever the
/// revision, a warning in `spec` on 2025-11-25 (SEP-1303 made them a
/// result), and allowed in `spec` on 2025-06-18.
#[test]
fn invalid_params_errors_are_graded_by_profile_and_revision() {
    let dir = tempfile::tempdir().unwrap();
    let (found, _) = caught(dir.path(), "invalid-params", &["--tool", "search"]);
    assert_eq!(law_and_tool(&found).0, "tool-error-is-result");
    let run = |args: &[&str], server: &[&str]| {
        let mut all = vec![
            "--seed",
            "11",
            "--format",
            "json",
            "--tool",
            "search",
            "--no-findings",
        ];
        all.extend(args);
        let output = fuzz(dir.path(), &all, server);
        (output.status.code(), json_lines(&output.stdout))
    };
    let (code, lines) = run(&["--profile", "spec"], &["--fuzz-bug", "invalid-params"]);
    assert_eq!(code, Some(0));
    let warned = findings(&lines);
    assert!(!warned.is_empty());
    assert!(
        warned.iter().all(|f| f["disposition"] == "warning"),
        "{warned:#?}"
    );
    let (code, lines) = run(
        &["--profile", "spec"],
        &[
            "--fuzz-bug",
            "invalid-params",
            "--fuzz-revision",
            "2025-06-18",
        ],
    );
    assert_eq!(code, Some(0));
    assert_eq!(findings(&lines).len(), 0, "{lines:#?}");
}

#[test]
fn correct_servers_pass_in_both_eras_slow_out_of_order_and_with_many_tools() {
    let dir = tempfile::tempdir().unwrap();
    for (server, tools, era) in [
        (vec!["--fuzz-tools"], 5, "legacy"),
        (vec!["--fuzz-tools", "--out-of-order", "4"], 5, "legacy"),
        (vec!["--fuzz-tools", "--modern-only"], 5, "modern"),
        (vec!["--fuzz-tools", "--modern"], 5, "modern"),
        (vec!["--fuzz-tools", "--slow-call", "20"], 5, "legacy"),
        (vec!["--many-tools", "40"], 45, "legacy"),
    ] {
        let cases = if server.contains(&"--slow-call") {
            "12"
        } else {
            "60"
        };
        let output = fuzz(
            dir.path(),
            &["--seed", "4", "--cases", cases, "--format", "json"],
            &server,
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{server:?}: {}{}",
            text(&output.stdout),
            text(&output.stderr)
        );
        let lines = json_lines(&output.stdout);
        assert_eq!(findings(&lines).len(), 0, "{server:?}");
        let header = lines.iter().find(|l| l["type"] == "fuzz").unwrap();
        assert_eq!(header["era"], era, "{server:?}");
        let called: Vec<&Value> = lines
            .iter()
            .filter(|l| l["type"] == "tool" && l["status"] == "pass")
            .collect();
        assert_eq!(called.len(), tools, "{server:?}");
        assert!(called.iter().all(|tool| tool["sent"].as_u64() > Some(0)));
        let laws: Vec<&Value> = lines.iter().filter(|l| l["type"] == "law").collect();
        assert_eq!(laws.len(), 4);
        assert!(laws.iter().all(|law| law["status"] == "pass"), "{laws:#?}");
    }
    // A dual-era server, spoken to in the era asked for.
    let output = fuzz(
        dir.path(),
        &[
            "--seed", "4", "--cases", "5", "--format", "json", "--era", "legacy",
        ],
        &["--fuzz-tools", "--modern"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let lines = json_lines(&output.stdout);
    let header = lines.iter().find(|l| l["type"] == "fuzz").unwrap();
    assert_eq!(header["era"], "legacy");
    // Nothing was written: no finding, no directory.
    assert!(!dir.path().join("fuzz-findings").exists());
}

/// A call that takes longer than the deadline but reports progress is no
/// hang (MCP 2025-11-25 basic/lifecycle#timeouts: the clock may start again
/// on each progress notification); the same call silent is one.
#[test]
fn progress_gives_a_slow_call_more_time() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--seed",
        "2",
        "--tool",
        "lookup",
        "--cases",
        "2",
        "--timeout",
        "1s",
        "--format",
        "json",
        "--no-findings",
    ];
    let reported = fuzz(
        dir.path(),
        &args,
        &["--fuzz-tools", "--slow-call", "2400", "--progress"],
    );
    assert_eq!(
        reported.status.code(),
        Some(0),
        "{}",
        text(&reported.stdout)
    );
    let silent = fuzz(dir.path(), &args, &["--fuzz-tools", "--slow-call", "2400"]);
    assert_eq!(silent.status.code(), Some(1), "{}", text(&silent.stdout));
    let lines = json_lines(&silent.stdout);
    assert_eq!(
        law_and_tool(&findings(&lines).into_iter().cloned().collect::<Vec<_>>()).0,
        "request-answered-once"
    );
}

#[test]
fn a_modern_only_server_is_caught_in_2026_07_28_and_its_transcript_replays() {
    let dir = tempfile::tempdir().unwrap();
    let output = fuzz(
        dir.path(),
        &["--seed", "3", "--format", "json", "--tool", "lookup"],
        &["--modern-only", "--fuzz-bug", "protocol-error"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
    let lines = json_lines(&output.stdout);
    let found = findings(&lines);
    assert_eq!(found[0]["era"], "modern");
    let transcript = dir
        .path()
        .join(found[0]["fuzz"]["transcript"].as_str().unwrap());
    let recorded = std::fs::read_to_string(&transcript).unwrap();
    assert!(recorded.contains("io.modelcontextprotocol/protocolVersion"));
    assert!(!recorded.contains("\"initialize\""));
    let buggy = replay(dir.path(), &transcript, None);
    assert_eq!(buggy.status.code(), Some(1), "{}", text(&buggy.stdout));
    let fixed = replay(
        dir.path(),
        &transcript,
        Some(&["--modern-only", "--fuzz-tools"]),
    );
    assert_eq!(fixed.status.code(), Some(0), "{}", text(&fixed.stdout));
}

/// The calls a fuzz run sends, as a recorder between it and the server
/// sees them.
fn calls_sent(dir: &Path, seed: &str) -> Vec<String> {
    let recorded = dir.join(format!("session-{seed}.jsonl"));
    let mut cmd = Command::new(bin());
    cmd.current_dir(dir)
        .args([
            "fuzz",
            "--seed",
            seed,
            "--cases",
            "40",
            "--no-findings",
            "--",
        ])
        .arg(bin())
        .args(["record", "--force", "-o"])
        .arg(&recorded)
        .arg("--")
        .arg(fixture_server())
        .args(["--fuzz-tools", "--out-of-order", "3"]);
    let output = run(cmd);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    std::fs::read_to_string(&recorded)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["dir"] == "c2s")
        .map(|event| event["msg"].to_string())
        .collect()
}

#[test]
fn the_same_seed_sends_the_same_calls_in_the_same_order() {
    let dir = tempfile::tempdir().unwrap();
    let first = calls_sent(dir.path(), "21");
    let second = calls_sent(dir.path(), "21");
    assert!(first.len() > 150, "{}", first.len());
    assert_eq!(first, second);
    let other = calls_sent(dir.path(), "22");
    assert_ne!(first, other);
}

#[test]
fn the_seed_is_printed_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let output = fuzz(dir.path(), &["--cases", "5"], &["--fuzz-tools"]);
    let stdout = text(&output.stdout);
    let seed: String = stdout
        .split("  seed ")
        .nth(1)
        .unwrap_or_else(|| panic!("no seed: {stdout}"))
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(!seed.is_empty(), "{stdout}");
    let again = fuzz(
        dir.path(),
        &["--cases", "5", "--seed", &seed],
        &["--fuzz-tools"],
    );
    assert!(text(&again.stdout).contains(&format!("  seed {seed},")));
}

#[test]
fn only_tools_that_change_nothing_are_called_and_in_a_scratch_directory() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    // By default: neither `touch` nor `delete_all`, and each says why.
    let output = {
        let mut cmd = Command::new(bin());
        cmd.current_dir(dir.path())
            .args(["fuzz", "--cases", "5", "--format", "json", "--cwd"])
            .arg(elsewhere.path())
            .arg("--")
            .arg(fixture_server())
            .arg("--fuzz-tools");
        run(cmd)
    };
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let lines = json_lines(&output.stdout);
    for (tool, reason) in [
        ("delete_all", "readOnlyHint: false"),
        ("touch", "no readOnlyHint: true"),
    ] {
        let line = lines
            .iter()
            .find(|l| l["type"] == "tool" && l["tool"] == tool)
            .unwrap();
        assert_eq!(line["status"], "skip");
        assert!(line["reason"].as_str().unwrap().contains(reason), "{line}");
    }
    assert!(!elsewhere.path().join("deleted-by-fixture").exists());
    assert!(!elsewhere.path().join("touched-by-fixture").exists());
    // Named, `touch` is called: in the scratch directory, gone after.
    let output = fuzz(
        dir.path(),
        &["--cases", "5", "--tool", "touch"],
        &["--fuzz-tools"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(
        text(&output.stdout).contains("PASS touch"),
        "{}",
        text(&output.stdout)
    );
    assert!(!dir.path().join("touched-by-fixture").exists());
    // With --cwd, where it is told.
    let mut cmd = Command::new(bin());
    cmd.current_dir(dir.path())
        .args(["fuzz", "--cases", "5", "--tool", "touch", "--cwd"])
        .arg(elsewhere.path())
        .arg("--")
        .arg(fixture_server())
        .arg("--fuzz-tools");
    assert_eq!(run(cmd).status.code(), Some(0));
    assert!(elsewhere.path().join("touched-by-fixture").exists());
    assert!(!elsewhere.path().join("deleted-by-fixture").exists());
}

#[test]
fn a_tool_that_only_adds_is_called_unless_read_only_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let status_of = |args: &[&str]| {
        let mut cmd = Command::new(bin());
        cmd.current_dir(dir.path())
            .args(["fuzz", "--cases", "3", "--format", "json", "--cwd"])
            .arg(elsewhere.path())
            .args(args)
            .arg("--")
            .arg(fixture_server())
            .arg("--additive-tool");
        let output = run(cmd);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
        json_lines(&output.stdout)
            .into_iter()
            .find(|l| l["type"] == "tool" && l["tool"] == "append")
            .unwrap()
    };
    // `destructiveHint: false`: the tool says it only adds, so it is called.
    let line = status_of(&[]);
    assert_eq!(line["status"], "pass", "{line}");
    assert!(elsewhere.path().join("appended-by-fixture").exists());
    std::fs::remove_file(elsewhere.path().join("appended-by-fixture")).unwrap();
    // `--read-only`: only tools that change nothing.
    let line = status_of(&["--read-only"]);
    assert_eq!(line["status"], "skip", "{line}");
    let reason = line["reason"].as_str().unwrap();
    assert!(
        reason.contains("only adds (destructiveHint: false)"),
        "{reason}"
    );
    assert!(reason.contains("--read-only"), "{reason}");
    assert!(!elsewhere.path().join("appended-by-fixture").exists());
}

#[test]
fn a_tool_named_that_the_server_lacks_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = fuzz(dir.path(), &["--tool", "nope"], &["--fuzz-tools"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stdout).contains("--tool nope: the server lists no tool of that name"));
}

#[test]
fn a_server_that_does_not_start_is_an_error_not_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin());
    cmd.current_dir(dir.path())
        .args(["fuzz", "--", "/nonexistent/mcp-server"]);
    let output = run(cmd);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    assert!(
        text(&output.stdout).contains("ERROR"),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn the_budget_bounds_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let output = fuzz(
        dir.path(),
        &["--budget", "500ms", "--pipeline", "1"],
        &["--fuzz-tools", "--slow-call", "20"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("the time budget of 500 ms ran out"),
        "{stdout}"
    );
}

#[test]
fn reports_are_checks_junit_and_markdown_too() {
    let dir = tempfile::tempdir().unwrap();
    let output = fuzz(
        dir.path(),
        &[
            "--seed",
            "11",
            "--junit",
            "fuzz.xml",
            "--summary",
            "fuzz.md",
        ],
        &["--fuzz-bug", "protocol-error"],
    );
    assert_eq!(output.status.code(), Some(1));
    let xml = std::fs::read_to_string(dir.path().join("fuzz.xml")).unwrap();
    assert!(xml.contains("<testsuite name=\"fuzz: "), "{xml}");
    assert!(xml.contains("<testcase name=\"lookup\""), "{xml}");
    assert!(
        xml.contains("arguments: {&quot;id&quot;:&quot;aa-000&quot;}"),
        "{xml}"
    );
    let markdown = std::fs::read_to_string(dir.path().join("fuzz.md")).unwrap();
    assert!(
        markdown.starts_with("## mcp-replay fuzz: failed"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| ❌ FAIL | fuzz <code>lookup</code>"),
        "{markdown}"
    );
}

#[test]
fn a_signal_ends_the_run_and_takes_every_server_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join(format!("signalled-{}", std::process::id()));
    let marker_arg = marker.display().to_string();
    let mut child = Command::new(bin())
        .current_dir(dir.path())
        .args([
            "fuzz",
            "--seed",
            "3",
            "--tool",
            "convert",
            "--timeout",
            "600s",
            "--cwd",
        ])
        .arg(dir.path())
        .arg("--")
        .arg(fixture_server())
        .args(["--fuzz-bug", "hang", "--start-log", &marker_arg])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    let pid = rustix::process::Pid::from_child(&child);
    let mut waiter = Waiter::new(child);
    // The hanging call has begun.
    let hung = dir.path().join("hung-by-fixture");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !hung.exists() {
        assert!(Instant::now() < deadline, "the hanging call never came");
        std::thread::yield_now();
    }
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = waiter.wait();
    assert_eq!(status.code(), Some(143));
    assert_no_process_with(&marker_arg);
    let stdout = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert!(stdout.contains("Interrupted by SIGTERM"), "{stdout}");
    // What finished is reported: the call before the hanging one.
    assert!(stdout.contains("convert  1 case"), "{stdout}");
    // A finding the stop made is none of the server's.
    assert!(!stdout.contains("error["), "{stdout}");
}

/// The worked example of docs/fuzz.md: each command it shows prints what
/// the page says (timings aside), in the order shown, in one directory.
#[test]
fn the_worked_example_of_the_docs_is_what_fuzz_prints() {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/fuzz.md"))
        .unwrap();
    let example = page
        .split("<!-- fuzz worked example: docs test -->")
        .nth(1)
        .expect("docs/fuzz.md marks its worked example");
    let example = example.split("\n## ").next().unwrap();
    let mut blocks = Vec::new();
    let mut rest = example;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let (kind, body) = after.split_once('\n').unwrap();
        let end = body.find("```").unwrap();
        blocks.push((kind.to_owned(), body[..end].to_owned()));
        rest = &body[end + 3..];
    }
    assert_eq!(blocks.len(), 6, "three commands, each with its output");
    let dir = tempfile::tempdir().unwrap();
    let bins = Path::new(bin()).parent().unwrap().to_owned();
    let path = format!(
        "{}:{}",
        bins.display(),
        path_with_fixture_server().to_string_lossy()
    );
    let timings = regex::Regex::new(r"\d+\.\d{3}s").unwrap();
    for pair in blocks.chunks(2) {
        let (command, expected) = (&pair[0], &pair[1]);
        assert_eq!((command.0.as_str(), expected.0.as_str()), ("sh", "text"));
        let words: Vec<&str> = command.1.split_whitespace().collect();
        let mut cmd = Command::new(bins.join(words[0]));
        cmd.current_dir(dir.path())
            .args(&words[1..])
            .env("PATH", &path);
        let output = run(cmd);
        let actual = timings
            .replace_all(&text(&output.stdout), "[T]")
            .into_owned();
        let expected = timings.replace_all(&expected.1, "[T]").into_owned();
        assert_eq!(actual, expected, "`{}`", command.1.trim());
    }
}

// See: #26
#[test]
fn a_run_that_can_call_no_tool_exits_2_naming_the_flags_that_would() {
    let dir = tempfile::tempdir().unwrap();
    let output = fuzz(dir.path(), &["--cases", "5"], &["--no-annotations"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("nothing was fuzzed")
            && stdout.contains("--tool NAME")
            && stdout.contains("--all-tools"),
        "{stdout}"
    );
    let allowed = fuzz(
        dir.path(),
        &["--cases", "5", "--allow-empty"],
        &["--no-annotations"],
    );
    assert_eq!(allowed.status.code(), Some(0), "{}", text(&allowed.stdout));
}

// See: #25
#[test]
fn a_run_none_of_whose_calls_reached_a_tool_does_not_pass() {
    let dir = tempfile::tempdir().unwrap();
    let server = ["--modern", "--input-required", "always"];
    let output = fuzz(
        dir.path(),
        &["--seed", "3", "--cases", "10", "--format", "json"],
        &server,
    );
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let lines = json_lines(&output.stdout);
    for tool in ["add", "echo"] {
        let record = lines
            .iter()
            .find(|line| line["type"] == "tool" && line["tool"] == tool)
            .unwrap_or_else(|| panic!("no record of {tool}: {stdout}"));
        assert_eq!(record["status"], "skip", "{record}");
        assert_eq!(record["reached"], 0, "{record}");
        assert!(
            record["note"]
                .as_str()
                .is_some_and(|note| note.starts_with("none of its 10 calls reached the tool")),
            "{record}"
        );
    }
    assert!(
        lines
            .iter()
            .filter(|line| line["type"] == "law")
            .all(|line| line["status"] == "skip"),
        "{stdout}"
    );
    let allowed = fuzz(dir.path(), &["--cases", "10", "--allow-empty"], &server);
    assert_eq!(allowed.status.code(), Some(0), "{}", text(&allowed.stdout));
}

/// A run against a server that hangs on one input: its output, and how
/// long it took.
fn hang_run(dir: &Path, args: &[&str]) -> (Output, Duration) {
    let mut all = vec!["--seed", "11", "--tool", "convert", "--timeout", "2s"];
    all.extend(args);
    let started = Instant::now();
    let output = fuzz(dir, &all, &["--fuzz-bug", "hang"]);
    (output, started.elapsed())
}

// See: #26
#[test]
fn the_budget_bounds_the_whole_run_shrinking_and_confirmation_included() {
    let dir = tempfile::tempdir().unwrap();
    let (output, took) = hang_run(dir.path(), &["--budget", "3s"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("error[request-answered-once]"), "{stdout}");
    // Three seconds, and the killing and reaping of what runs then.
    assert!(took < Duration::from_millis(4500), "{took:?}: {stdout}");
}

// See: #26
#[test]
fn a_tool_that_hangs_on_one_input_costs_two_call_deadlines() {
    let dir = tempfile::tempdir().unwrap();
    let (output, took) = hang_run(dir.path(), &["--format", "json"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let lines = json_lines(&output.stdout);
    let found = findings(&lines);
    assert_eq!(found.len(), 1, "{stdout}");
    assert_eq!(found[0]["law"], "request-answered-once", "{stdout}");
    assert!(found[0]["fuzz"]["transcript"].is_string(), "{stdout}");
    // The call that hangs, then the same call alone on a fresh process,
    // whose session is the transcript: two deadlines of 2 s, and the
    // other calls.
    assert!(took < Duration::from_secs(8), "{took:?}: {stdout}");
}
