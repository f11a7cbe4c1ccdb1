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

/// `check --no-replay --color never [ARGS] -- fixture-server FIXTURE`: its
/// status and stdout.
fn probe_fixture(args: &[&str], fixture: &[&str]) -> (Option<i32>, String) {
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .args(["check", "--no-replay", "--color", "never"])
        .args(args)
        .arg("--")
        .arg(fixture_server())
        .args(fixture)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

const CORE_RULES_ONLY: &str = "hint: only the core profile's own rules failed";

/// A server that behaves as the official Python SDK does fails only the
/// core profile's own rules (no -32700 for a malformed line, an isError
/// result for an unknown tool): the summary names the profile in force and
/// says the server keeps the MCP specification, in the human report and in
/// the Markdown summary; under `--profile spec` it passes, and no such
/// hint is given.
#[test]
fn a_server_that_fails_only_core_rules_is_told_of_the_spec_profile() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let (code, stdout) = probe_fixture(
        &["--summary", summary.to_str().unwrap()],
        &["--like", "python-sdk"],
    );
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains(" under profile core, in "), "{stdout}");
    let hint = stdout
        .lines()
        .find(|line| line.starts_with(CORE_RULES_ONLY))
        .unwrap_or_else(|| panic!("no hint:\n{stdout}"));
    assert!(hint.contains("`--profile spec`"), "{hint}");
    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(
        markdown.contains("only the core profile's own rules failed"),
        "{markdown}"
    );

    let (code, stdout) = probe_fixture(&["--profile", "spec"], &["--like", "python-sdk"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains(" under profile spec, in "), "{stdout}");
    assert!(!stdout.contains(CORE_RULES_ONLY), "{stdout}");
}

/// A law the MCP specification makes a failure too (`ping` answering
/// something else than `{}`) brings no word of the spec profile, and
/// neither does a run that passes.
#[test]
fn a_failure_under_the_specification_brings_no_spec_hint() {
    let (code, stdout) = probe_fixture(&[], &["--break", "ping"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(!stdout.contains(CORE_RULES_ONLY), "{stdout}");
    let (code, stdout) = probe_fixture(&[], &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(!stdout.contains("hint:"), "{stdout}");
}

/// On a server that breaks the specification and the core profile's own
/// rules too, the run still says which failures are core's own, in the
/// human report, in Markdown and on each JSON finding.
/// See: #25
#[test]
fn a_server_failing_both_kinds_of_rule_is_told_which_are_core_s_own() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let server = ["--like", "python-sdk", "--break", "ping"];
    let (code, stdout) = probe_fixture(&["--summary", summary.to_str().unwrap()], &server);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(!stdout.contains(CORE_RULES_ONLY), "{stdout}");
    let hint = stdout
        .lines()
        .find(|line| line.starts_with("hint: the failures of "))
        .unwrap_or_else(|| panic!("no hint:\n{stdout}"));
    assert!(hint.contains("`unknown-tool`"), "{hint}");
    assert!(!hint.contains("`ping`"), "{hint}");
    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(
        markdown.contains("the core profile's own rules"),
        "{markdown}"
    );
    let (_, json) = probe_fixture(&["--format", "json"], &server);
    let own: Vec<(String, bool)> = json
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|line| line["type"] == "finding")
        .map(|line| {
            (
                line["law"].as_str().unwrap().to_owned(),
                line["core_own"].as_bool().unwrap(),
            )
        })
        .collect();
    assert!(own.contains(&("ping".to_owned(), false)), "{own:?}");
    assert!(own.contains(&("unknown-tool".to_owned(), true)), "{own:?}");
}

/// `check --help` names the default profile, and which fits a server not
/// built on the library.
#[test]
fn check_help_names_the_default_profile() {
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .args(["check", "--help"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let help = String::from_utf8(output.stdout).unwrap();
    let profile = help
        .split("--profile <PROFILE>")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or_else(|| panic!("no --profile in:\n{help}"));
    assert!(profile.contains("[default: core"), "{profile}");
    assert!(profile.contains("`spec`"), "{profile}");
    assert!(profile.contains("official SDK"), "{profile}");
}

/// `--sarif` writes a SARIF 2.1.0 log of a failing run: each finding a
/// result at its transcript's file and line, its rule among the driver's,
/// and the log valid against the SARIF 2.1.0 schema where the schema is at
/// hand (`MCP_REPLAY_SARIF_SCHEMA=FILE`; CI sets it, and
/// `MCP_REPLAY_REQUIRE_SCHEMAS=1` makes its absence a failure).
/// See: #26
#[test]
fn the_sarif_log_of_a_failing_run() {
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("report.sarif");
    run(&["--sarif", sarif.to_str().unwrap()]);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let results = run["results"].as_array().unwrap();
    let mismatch = results
        .iter()
        .find(|result| result["ruleId"] == "transcript-match")
        .unwrap_or_else(|| panic!("no transcript-match result: {results:#?}"));
    let location = &mismatch["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "transcripts/fail.jsonl"
    );
    assert_eq!(location["region"]["startLine"], 8);
    assert_eq!(mismatch["level"], "error");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for result in results {
        let at = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[at]["id"], result["ruleId"], "{result}");
    }
    assert!(
        run["properties"]["requirements"]
            .as_array()
            .is_some_and(|outcomes| !outcomes.is_empty())
    );
    match std::env::var_os("MCP_REPLAY_SARIF_SCHEMA").filter(|path| !path.is_empty()) {
        Some(path) => {
            let mut schema: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            // The published 2.1.0-rtm.5 schema's `language` patterns have
            // a stray `]` that a strict validator refuses to compile; the
            // log sets no `language`, so those patterns are left out.
            for definition in ["run", "toolComponent"] {
                if let Some(language) = schema
                    .pointer_mut(&format!("/definitions/{definition}/properties/language"))
                    .and_then(serde_json::Value::as_object_mut)
                {
                    language.remove("pattern");
                }
            }
            let validator = jsonschema::validator_for(&schema).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&log)
                .map(|error| format!("{} at {}", error, error.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{errors:#?}");
        }
        None => {
            let required = std::env::var_os("MCP_REPLAY_REQUIRE_SCHEMAS").is_some_and(|v| v == "1");
            assert!(
                !required,
                "MCP_REPLAY_SARIF_SCHEMA names no SARIF 2.1.0 schema, and MCP_REPLAY_REQUIRE_SCHEMAS=1 requires it"
            );
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "note: the SARIF log was not validated: set MCP_REPLAY_SARIF_SCHEMA to the SARIF 2.1.0 schema (sarif-schema-2.1.0.json)"
            );
        }
    }
}
