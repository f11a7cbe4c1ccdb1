//! What a server, a transcript or a path says reaches every report
//! escaped for it: no control character or escape sequence on a terminal
//! or in a file, and no line a CI log runs as a workflow command (`::…`,
//! `##[…`), in the human report, the JSON Lines, the JUnit file, the
//! Markdown summary or the diagnostics on stderr (docs/security.md).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::check::{record, session};
use crate::util::{fixture_server, initialize, request};

/// What no output of mcp-replay may hold raw: a control character other
/// than a newline or a tab (ESC, BEL, CR, a C1 CSI), a character that
/// reorders or hides text, `##[`, or a line that starts `::` after blanks.
fn assert_inert(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for c in text.chars() {
        let steering = (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        assert!(!steering, "{what} holds {c:?}:\n{text}");
    }
    assert!(!text.contains("##["), "{what} holds `##[`:\n{text}");
    for line in text.lines() {
        assert!(
            !line.trim_start().starts_with("::"),
            "{what} has a line that GitHub Actions runs as a command: {line:?}"
        );
    }
}

/// `mcp-replay` in `dir` with `args`, killed if it outlives a generous
/// deadline.
fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .current_dir(dir)
        .args(args)
        .env_remove("NO_COLOR")
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap()
}

/// A file name that is itself hostile: an OSC that sets a terminal's
/// title, a bell, a workflow command, the older form.
const HOSTILE_NAME: &str = "\u{1b}]0;owned\u{7}::add-mask::x ##[error]y\u{202e}.jsonl";

/// `fixture-server --hostile` writes its escape sequences and workflow
/// commands into a tool's name and description, an error message, its
/// stderr and a tool's answers; a replay of a recording of the clean
/// server against it, its probes, and a transcript named with escape
/// sequences, are reported in every format without one of them raw, and
/// with each of them shown escaped.
// See: #25
#[test]
fn a_hostile_server_and_path_reach_every_report_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("transcripts")).unwrap();
    record(&root.join("transcripts/session.jsonl"), &[], &session());
    let crash = request(
        json!(2),
        "tools/call",
        json!({"name": "crash", "arguments": {}}),
    );
    record(
        &root.join("transcripts/crash.jsonl"),
        &[],
        &[vec![initialize(1)], vec![crash]],
    );
    std::fs::write(
        root.join("transcripts").join(HOSTILE_NAME),
        "not a transcript\n",
    )
    .unwrap();
    let server = [fixture_server(), "--hostile"];

    let mut args = vec![
        "check",
        "--color",
        "never",
        "--junit",
        "junit.xml",
        "--summary",
        "summary.md",
        "--sarif",
        "report.sarif",
        "transcripts",
        "--",
    ];
    args.extend(server);
    let human = run(root, &args);
    assert_eq!(
        human.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&human.stdout)
    );
    let stdout = String::from_utf8_lossy(&human.stdout);
    for (what, bytes) in [
        ("the human report", human.stdout.clone()),
        ("stderr", human.stderr.clone()),
        (
            "the JUnit file",
            std::fs::read(root.join("junit.xml")).unwrap(),
        ),
        (
            "the Markdown summary",
            std::fs::read(root.join("summary.md")).unwrap(),
        ),
        (
            "the SARIF log",
            std::fs::read(root.join("report.sarif")).unwrap(),
        ),
    ] {
        assert_inert(what, &bytes);
    }
    // Each of them reached the report, escaped: the tool's name, the
    // error message, the stderr of the crash, the diff, the path.
    assert!(stdout.contains("tools-list-valid"), "{stdout}");
    assert!(stdout.contains("\\u{1b}]0;owned\\u{7}"), "{stdout}");
    assert!(
        stdout.contains("\\u{9b}31m\\u{202e}evil\\u{200b}\\u{2028}"),
        "{stdout}"
    );
    assert!(stdout.contains("#\\u{23}[error]old form"), "{stdout}");
    assert!(stdout.contains("stderr ends: "), "{stdout}");
    assert!(
        stdout.contains("\\u{3a}:stop-commands::hostile"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ERROR transcripts/\\u{1b}]0;owned"),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(root.join("summary.md")).unwrap();
    assert!(summary.contains("u{1b}"), "{summary}");
    // SARIF is JSON: it reads back to what the server wrote.
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("report.sarif")).unwrap()).unwrap();
    assert!(sarif.to_string().contains("##[error]old form"), "{sarif}");

    let mut args = vec!["check", "--format", "json", "transcripts", "--"];
    args.extend(server);
    let json = run(root, &args);
    assert_inert("the JSON report", &json.stdout);
    assert_inert("stderr", &json.stderr);
    // JSON reads back to what the server wrote.
    let records: Vec<Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let all = serde_json::to_string(&records).unwrap();
    assert!(all.contains("##[error]old form"), "{all}");
    assert!(all.contains('\u{202e}'), "{all}");
}

/// The diagnostics on stderr quote what the user named, escaped: a
/// baseline `check` cannot read, a transcript `mock` cannot, and the
/// envelope of `mock --format json`.
// See: #25
#[test]
fn diagnostics_on_stderr_quote_paths_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("transcripts")).unwrap();
    record(&root.join("transcripts/session.jsonl"), &[], &session());
    let baseline = format!("{HOSTILE_NAME}.json");
    let check = run(
        root,
        &[
            "check",
            "--no-probes",
            "--baseline",
            &baseline,
            "transcripts",
            "--",
            fixture_server(),
        ],
    );
    assert_eq!(check.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        stderr.contains("cannot read baseline `\\u{1b}]0;owned\\u{7}"),
        "{stderr}"
    );
    assert_inert("check's stderr", &check.stderr);
    for format in ["text", "json"] {
        let mock = run(root, &["mock", "--format", format, HOSTILE_NAME]);
        assert_eq!(mock.status.code(), Some(2));
        assert!(mock.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&mock.stderr);
        assert!(stderr.contains("\\u{1b}]0;owned"), "{stderr}");
        assert_inert("mock's stderr", &mock.stderr);
    }
}
