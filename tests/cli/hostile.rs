//! Hostile servers: tool schemas that ask for more than any bounded
//! generator makes, a listen stream that floods while answers come
//! slowly, `requestState`s of tens of mebibytes. Each run here is measured:
//! its peak resident memory (and its servers') must stay under 256 MiB,
//! and it runs under a limit of 1 GiB of address space, so that a run
//! that would allocate gigabytes aborts at once instead of taking the
//! machine's memory; each must end by its own bounds, with no false
//! finding.

use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Host, Waiter, bin, fixture_server, json_lines, request};

/// The resident memory no input may make `mcp-replay` (or the servers it
/// runs) pass, in KiB.
pub const CEILING_KIB: u64 = 256 * 1024;

/// The address space each process of a run may take, in bytes: a run that
/// would take gigabytes fails its allocation here, long before the
/// machine runs short.
const ADDRESS_SPACE: u64 = 1 << 30;

/// Runs a command under [`ADDRESS_SPACE`] and, once it ends, writes the
/// peak resident memory of it and every descendant it waited for (in KiB,
/// as `getrusage` counts it) to the file named first; exits with the
/// command's status (128 + N for a signal).
const MEASURED: &str = r#"
import os, resource, subprocess, sys
out, limit, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
child = subprocess.Popen(argv, preexec_fn=cap)
code = child.wait()
with open(out, "w") as f:
    f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code if code >= 0 else 128 - code)
"#;

/// Every kind of `--hostile-schema` the fixture serves.
const SCHEMAS: &[&str] = &[
    "min-length",
    "min-items",
    "min-properties",
    "multiple-of",
    "nesting",
    "repetition",
    "nested-repetition",
    "references",
    "wide",
];

/// `mcp-replay ARGS`, measured: the command, and the file its peak
/// resident memory goes to (in `dir`).
pub fn measured(dir: &Path, args: &[&str]) -> (Command, PathBuf) {
    let peak = dir.join("peak-rss-kib");
    let mut cmd = Command::new("python3");
    cmd.arg("-c")
        .arg(MEASURED)
        .arg(&peak)
        .arg(ADDRESS_SPACE.to_string())
        .arg(bin())
        .args(args);
    (cmd, peak)
}

/// Asserts that the run measured in `peak` stayed under the ceiling;
/// returns its peak in KiB.
pub fn assert_under_ceiling(peak: &Path, what: &str) -> u64 {
    let kib: u64 = std::fs::read_to_string(peak)
        .unwrap_or_else(|err| panic!("{what}: no peak measured ({err})"))
        .trim()
        .parse()
        .unwrap();
    assert!(
        kib <= CEILING_KIB,
        "{what}: peak resident memory {} MiB, past the {} MiB ceiling",
        kib >> 10,
        CEILING_KIB >> 10
    );
    kib
}

/// Runs `cmd` to its end (within the util's deadline); panics when it was ended by a
/// signal or aborted (an allocation past the address space), or passed
/// the ceiling.
fn run(cmd: Command, peak: &Path) -> (Output, Duration) {
    run_fed(cmd, peak, Stdio::null())
}

/// [`run`], with `stdin` as the command's input.
fn run_fed(mut cmd: Command, peak: &Path, stdin: Stdio) -> (Output, Duration) {
    cmd.stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = cmd.spawn().expect("python3 starts");
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
    let took = started.elapsed();
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    assert!(
        output.status.code().is_some_and(|code| code < 128),
        "mcp-replay did not end by itself: {:?}\n{}\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    assert_under_ceiling(peak, &text(&output.stdout));
    (output, took)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The fixture's arguments serving every hostile schema.
fn every_schema() -> Vec<&'static str> {
    SCHEMAS
        .iter()
        .flat_map(|kind| ["--hostile-schema", kind])
        .collect()
}

/// The tool a `--hostile-schema` kind serves.
fn tool(kind: &str) -> String {
    format!("hostile_{}", kind.replace('-', "_"))
}

// See: #25
#[test]
fn fuzz_draws_within_its_bounds_whatever_the_schema_asks() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "fuzz",
        "--seed",
        "5",
        "--cases",
        "40",
        "--format",
        "json",
        "--no-findings",
        "--",
        fixture_server(),
    ];
    args.extend(every_schema());
    let (mut cmd, peak) = measured(dir.path(), &args);
    cmd.current_dir(dir.path());
    let (output, _) = run(cmd, &peak);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let lines = json_lines(&output.stdout);
    assert!(
        !lines.iter().any(|line| line["type"] == "finding"),
        "{stdout}"
    );
    for kind in SCHEMAS {
        let record = lines
            .iter()
            .find(|line| line["type"] == "tool" && line["tool"] == tool(kind).as_str())
            .unwrap_or_else(|| panic!("no record of {kind}: {stdout}"));
        assert_eq!(record["status"], "pass", "{kind}: {record}");
        assert!(record["sent"].as_u64() > Some(0), "{kind}: {record}");
    }
    // What no bounded value meets is never called valid, and says why.
    for kind in ["min-length", "min-items", "nesting", "repetition", "wide"] {
        let record = lines
            .iter()
            .find(|line| line["type"] == "tool" && line["tool"] == tool(kind).as_str())
            .unwrap();
        assert_eq!(record["valid"], 0, "{kind}: {record}");
    }
}

// See: #25
#[test]
fn check_calls_a_read_only_tool_whatever_its_schema() {
    let mut args = vec![
        "check",
        "--no-replay",
        "--format",
        "json",
        "--",
        fixture_server(),
        "--modern",
    ];
    args.extend(every_schema());
    let dir = tempfile::tempdir().unwrap();
    let (cmd, peak) = measured(dir.path(), &args);
    let (output, _) = run(cmd, &peak);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
}

// See: #25
#[test]
fn serve_answers_while_its_fuzz_tool_draws_for_a_hostile_schema() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cmd, peak) = measured(dir.path(), &["serve"]);
    cmd.current_dir(dir.path());
    let mut host = Host::spawn(cmd);
    // 2025-06-18 or later: the answer carries structured content.
    let initialize = request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    host.send(format!("{initialize}\n").as_bytes());
    let _ = host.line();
    let mut command = vec![fixture_server()];
    command.extend(every_schema());
    let call = request(
        json!(2),
        "tools/call",
        json!({"name": "fuzz", "arguments": {"command": command, "cases": 40, "seed": 5}}),
    );
    host.send(format!("{call}\n").as_bytes());
    host.send(format!("{}\n", request(json!(3), "ping", json!(null))).as_bytes());
    let mut answers: Vec<Value> = Vec::new();
    let started = Instant::now();
    while answers.len() < 2 {
        let answer: Value = serde_json::from_slice(&host.line()).unwrap();
        if answer["id"] == 3 {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "the ping waited {:?}",
                started.elapsed()
            );
        }
        answers.push(answer);
    }
    let fuzzed = answers.iter().find(|answer| answer["id"] == 2).unwrap();
    assert_eq!(
        fuzzed["result"]["structuredContent"]["exit_code"], 0,
        "{fuzzed}"
    );
    host.close_stdin();
    assert_eq!(host.wait().code(), Some(0), "{}", host.stderr());
    assert_under_ceiling(&peak, "serve");
}

/// `check --no-replay --format json ARGS -- fixture-server SERVER` under
/// the ceiling: its status and records.
fn probe(args: &[&str], server: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let mut all = vec!["check", "--no-replay", "--format", "json"];
    all.extend(args);
    all.push("--");
    all.push(fixture_server());
    all.extend(server);
    let dir = tempfile::tempdir().unwrap();
    let (cmd, peak) = measured(dir.path(), &all);
    let (output, _) = run(cmd, &peak);
    (
        output.status.code(),
        json_lines(&output.stdout),
        text(&output.stdout),
    )
}

// See: #25
#[test]
fn a_listen_stream_that_floods_is_judged_from_what_is_kept_and_reported_once() {
    let (code, lines, stdout) = probe(
        &["--timeout", "10s"],
        &["--modern", "--listen", "--flood-listen", "2500"],
    );
    let findings: Vec<&Value> = lines
        .iter()
        .filter(|line| line["type"] == "finding")
        .collect();
    // No false finding: what came before the server read the cancellation
    // was in flight.
    assert!(
        !findings.iter().any(|f| f["severity"] == "error"),
        "{stdout}"
    );
    let floods: Vec<&&Value> = findings
        .iter()
        .filter(|f| f["message"].as_str().is_some_and(|m| m.contains("flood")))
        .collect();
    assert_eq!(floods.len(), 1, "{stdout}");
    assert_eq!(floods[0]["severity"], "warning", "{stdout}");
    assert_eq!(code, Some(0), "{stdout}");
}

// See: #25
#[test]
fn a_request_state_of_many_mebibytes_is_not_kept_or_echoed() {
    let (code, lines, stdout) = probe(&[], &["--modern", "--huge-state", "60"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        !lines.iter().any(|line| line["type"] == "finding"),
        "{stdout}"
    );
}

/// A server line of tens of MiB of tiny values is weighed before it is
/// read: it is no message the checker reads into memory, said once, and
/// the run stays under the ceiling. A host's line of the same kind leaves
/// `serve` answering, with its memory bounded too.
/// See: #25
#[test]
fn a_line_of_millions_of_values_is_weighed_before_it_is_read() {
    let (code, lines, stdout) = probe(&[], &["--huge-line", "48"]);
    assert_eq!(code, Some(1), "{stdout}");
    let findings: Vec<&Value> = lines
        .iter()
        .filter(|line| line["type"] == "finding" && line["law"] == "stdout-is-protocol")
        .collect();
    assert!(
        findings.iter().any(|line| line["message"]
            .as_str()
            .is_some_and(|message| message.contains("more than 524288 JSON values"))),
        "{stdout}"
    );

    let dir = tempfile::tempdir().unwrap();
    let (cmd, peak) = measured(dir.path(), &["serve"]);
    let mut line = String::from(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"laws","arguments":{"x":[0"#,
    );
    while line.len() < 48 << 20 {
        line.push_str(",0");
    }
    line.push_str("]}}}\n");
    line.push_str("[0");
    while line.len() < 96 << 20 {
        line.push_str(",0");
    }
    line.push_str("]\n");
    line.push_str(&request(json!(2), "ping", json!({})));
    line.push('\n');
    let input = dir.path().join("input");
    std::fs::write(&input, line).unwrap();
    let (output, _) = run_fed(cmd, &peak, std::fs::File::open(&input).unwrap().into());
    let answers = json_lines(&output.stdout);
    assert_eq!(answers.len(), 3, "{}", text(&output.stdout));
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[0]["error"]["code"], -32602);
    assert_eq!(answers[1]["error"]["code"], -32700);
    assert_eq!(answers[2]["id"], 2);
    assert_under_ceiling(&peak, "serve");
}
