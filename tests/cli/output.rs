//! The three renderings of one check run, pinned in `tests/golden/`:
//! a transcript that replays green, one whose echo answer changed, and the
//! law probes of the fixture server.

use std::time::Duration;

use crate::check::{record, session};
use crate::util::{assert_golden, fixture_server, path_with_fixture_server};

/// A directory with `transcripts/pass.jsonl` and `transcripts/fail.jsonl`,
/// recorded against the fixture server and naming it by its bare name
/// (found on `PATH`, [`path_with_fixture_server`]), with the server version
/// ignored.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("transcripts")).unwrap();
    let pass = dir.path().join("transcripts/pass.jsonl");
    record(&pass, &[], &session());
    let text = std::fs::read_to_string(&pass).unwrap();
    let (header, events) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(header).unwrap();
    header["command"] = serde_json::json!(["fixture-server"]);
    header["ignore"] = serde_json::json!(["/result/serverInfo/version"]);
    let text = format!("{header}\n{events}");
    std::fs::write(&pass, &text).unwrap();
    let changed = text.replace(
        r#""content":[{"text":"hello","type":"text"}]"#,
        r#""content":[{"text":"hullo","type":"text"}]"#,
    );
    assert!(changed != text, "the echo answer is where it was");
    std::fs::write(dir.path().join("transcripts/fail.jsonl"), changed).unwrap();
    assert!(!fixture_server().is_empty());
    dir
}

fn run(args: &[&str]) -> String {
    let dir = corpus();
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .current_dir(dir.path())
        .env("PATH", path_with_fixture_server())
        .args(["check", "--jobs", "1", "--color", "never"])
        .args(args)
        .arg("transcripts")
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_human_report() {
    assert_golden("check.txt", &run(&[]));
}

#[test]
fn the_json_lines_report() {
    assert_golden("check.jsonl", &run(&["--format", "json"]));
}

#[test]
fn the_junit_report() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("report.xml");
    run(&["--junit", junit.to_str().unwrap()]);
    assert_golden("check.xml", &std::fs::read_to_string(junit).unwrap());
}

#[test]
fn the_verbose_human_report_lists_every_law() {
    assert_golden("check-verbose.txt", &run(&["--verbose"]));
}

#[test]
fn a_failing_law_is_shown_in_full_under_its_server() {
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .env("PATH", path_with_fixture_server())
        .args(["check", "--jobs", "1", "--color", "never", "--no-replay"])
        .args(["--", "fixture-server", "--break", "ping"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_golden(
        "check-law-fails.txt",
        &String::from_utf8(output.stdout).unwrap(),
    );
}

#[test]
fn the_markdown_summary_is_appended() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "# an earlier step\n").unwrap();
    run(&["--summary", summary.to_str().unwrap()]);
    let text = std::fs::read_to_string(summary).unwrap();
    let ours = text
        .strip_prefix("# an earlier step\n")
        .expect("what the file held is kept");
    assert_golden("check.md", ours);
}
