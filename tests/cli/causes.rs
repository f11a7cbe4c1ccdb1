//! One cause, one finding: what one offending line or answer breaks is
//! reported once, under the law of the step that met it, naming the other
//! laws it breaks; a finding repeated alike in several sessions is
//! reported once, with how often it was seen. Laws stay failed, and the
//! exit status follows the worst of what was folded.

use std::time::Duration;

use serde_json::Value;

use crate::util::{fixture_server, json_lines};

/// `mcp-replay check --no-replay --format json` of the fixture with
/// `args`: the exit status and the JSON records.
fn probed(args: &[&str]) -> (i32, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay");
    cmd.current_dir(dir.path())
        .args(["check", "--no-replay", "--format", "json", "--"])
        .arg(fixture_server())
        .args(args)
        .timeout(Duration::from_secs(120));
    let output = cmd.output().unwrap();
    (output.status.code().unwrap(), json_lines(&output.stdout))
}

/// The finding records.
fn findings(records: &[Value]) -> Vec<&Value> {
    records.iter().filter(|r| r["type"] == "finding").collect()
}

/// The laws a finding names besides its own.
fn also(finding: &Value) -> Vec<&str> {
    finding["also"]
        .as_array()
        .map(|also| also.iter().map(|a| a["law"].as_str().unwrap()).collect())
        .unwrap_or_default()
}

/// The status of `law` in the law records.
fn law_status<'a>(records: &'a [Value], law: &str) -> &'a str {
    records
        .iter()
        .find(|r| r["type"] == "law" && r["law"] == law)
        .and_then(|r| r["status"].as_str())
        .unwrap_or_else(|| panic!("no law record of {law}: {records:#?}"))
}

/// A banner on stdout that every session meets is one finding of
/// `stdout-is-protocol`, which says in how many places it was seen.
#[test]
fn a_banner_every_session_meets_is_one_finding() {
    let (code, records) = probed(&["--break", "stdout-is-protocol"]);
    assert_eq!(code, 1);
    let found = findings(&records);
    assert_eq!(found.len(), 1, "{found:#?}");
    let banner = found[0];
    assert_eq!(banner["law"], "stdout-is-protocol");
    assert!(banner["occurrences"].as_u64().unwrap() >= 3, "{banner:#}");
    assert_eq!(
        banner["repeated_at"].as_array().unwrap().len() + 1,
        banner["occurrences"].as_u64().unwrap() as usize
    );
    assert_eq!(law_status(&records, "stdout-is-protocol"), "fail");
}

/// A modern `ping` answered as a legacy one on a fresh process breaks
/// `discover`, `unknown-method` and `schema` with one answer: one finding
/// under `discover`, the law of the step that asked, naming the others,
/// which still fail.
#[test]
fn a_legacy_answer_to_a_first_modern_request_is_one_finding() {
    let (code, records) = probed(&["--era-flaw", "first-ping-legacy"]);
    assert_eq!(code, 1);
    let found = findings(&records);
    assert_eq!(found.len(), 1, "{found:#?}");
    let finding = found[0];
    assert_eq!(finding["law"], "discover", "{finding:#}");
    let mut named = also(finding);
    named.sort_unstable();
    assert_eq!(named, ["schema", "unknown-method"], "{finding:#}");
    for law in ["discover", "schema", "unknown-method"] {
        assert_eq!(law_status(&records, law), "fail", "{law}");
    }
}

/// A banner written before the first message breaks `quiet-before-serving`
/// and `stdout-is-protocol` with one line: one finding, under the law of
/// the start, that names the other.
#[test]
fn a_banner_at_start_is_one_finding_of_the_quiet_start() {
    let (code, records) = probed(&["--break", "quiet-before-serving"]);
    assert_eq!(code, 1);
    let found = findings(&records);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["law"], "quiet-before-serving");
    assert_eq!(also(found[0]), ["stdout-is-protocol"]);
}

/// An `initialize` answer without `serverInfo.version` breaks `initialize`
/// and `schema`: one finding under `initialize`.
#[test]
fn a_schema_break_the_step_law_saw_too_is_folded_into_it() {
    let (code, records) = probed(&["--break", "initialize"]);
    assert_eq!(code, 1);
    let found = findings(&records);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["law"], "initialize");
    assert_eq!(also(found[0]), ["schema"]);
    assert_eq!(law_status(&records, "schema"), "fail");
}
