//! The `schema` law's hold on `structuredContent`, against the fixture
//! server's `--output-schema` cases: a correct answer to an `outputSchema`
//! of each kind a lenient validator got wrong passes in both profiles; an
//! answer that breaks a keyword fails `schema`, for every keyword the
//! judge of JSON Schema decides; an answer the judge cannot decide is
//! neither, but a note under the law. See: #25

use std::process::Command;

use assert_cmd::cargo::cargo_bin_cmd;
use mcp_replay::laws::{LawId, Profile, Severity};
use mcp_replay::report::LawStatus;

use crate::laws::{failures, probe};
use crate::util::fixture_server;

/// The keywords the judge decides, each of which some case breaks.
const KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "prefixItems",
    "items",
    "contains",
    "unevaluatedItems",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "dependentSchemas",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "false",
    "$ref",
    "$dynamicRef",
];

/// The kinds a lenient validator refused correct answers to, and the
/// annotations it must not assert.
const HARD: &[&str] = &[
    "closed-tuple",
    "pattern-properties",
    "float-enum",
    "ref-siblings",
    "unevaluated-if",
    "big-integer",
    "code-points",
    "format-annotation",
    "unknown-keyword",
    "recursive",
];

/// The fixture's cases: each name with the keyword its broken answer
/// breaks (`-` for none).
fn cases() -> Vec<(String, String)> {
    let output = Command::new(fixture_server())
        .args(["--output-schema", "list"])
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (name, keyword) = line.split_once(' ').unwrap();
            (name.to_owned(), keyword.to_owned())
        })
        .collect()
}

#[test]
fn a_correct_answer_to_every_kind_of_output_schema_passes_both_profiles() {
    let cases = cases();
    for name in HARD {
        assert!(cases.iter().any(|(known, _)| known == name), "{name}");
    }
    let names: Vec<&str> = cases.iter().map(|(name, _)| name.as_str()).collect();
    // A few at a time: each probe run mostly waits.
    for chunk in names.chunks(6) {
        std::thread::scope(|scope| {
            for name in chunk {
                scope.spawn(move || {
                    // The hard kinds in both profiles, the keywords' own in
                    // one: the profiles differ in no part of `schema`.
                    let profiles: &[Profile] = match HARD.contains(name) {
                        true => &[Profile::Core, Profile::Spec],
                        false => &[Profile::Core],
                    };
                    for &profile in profiles {
                        let report = probe(&["--output-schema", name], profile);
                        let failed = failures(&report);
                        assert!(failed.is_empty(), "{name} under {profile:?}: {failed:?}");
                        assert_eq!(
                            report.status(LawId::Schema),
                            Some(&LawStatus::Held),
                            "{name}"
                        );
                    }
                });
            }
        });
    }
}

#[test]
fn an_answer_that_breaks_any_keyword_the_judge_decides_fails_schema() {
    let cases = cases();
    for keyword in KEYWORDS {
        assert!(
            cases.iter().any(|(_, broken)| broken == keyword),
            "no case breaks `{keyword}`"
        );
    }
    let broken: Vec<&str> = cases
        .iter()
        .filter(|(_, keyword)| keyword != "-")
        .map(|(name, _)| name.as_str())
        .collect();
    for chunk in broken.chunks(6) {
        std::thread::scope(|scope| {
            for name in chunk {
                scope.spawn(move || {
                    let report = probe(
                        &["--output-schema", name, "--output-invalid"],
                        Profile::Core,
                    );
                    let failed = failures(&report);
                    assert_eq!(
                        failed.into_iter().collect::<Vec<_>>(),
                        [(LawId::Schema, vec![Severity::Error])],
                        "{name}: {report:#?}"
                    );
                    let finding = &report.findings[0];
                    assert!(
                        finding
                            .message
                            .contains("breaks the tool's outputSchema (2026-07-28 server/tools#output-schema): /result/structuredContent/v"),
                        "{name}: {}",
                        finding.message
                    );
                });
            }
        });
    }
}

/// A value the judge cannot decide fails nothing and holds nothing: the
/// report says so under the law, with why, and the exit status is 0.
#[test]
fn an_answer_the_judge_cannot_decide_is_a_note_under_the_law() {
    for (case, why) in [
        ("undecided-fraction", "whether 0.3 is a multiple of 0.1"),
        ("undecided-pattern", "group construct other than `(?:`"),
    ] {
        let output = cargo_bin_cmd!("mcp-replay")
            .args(["check", "--no-replay", "--"])
            .args([fixture_server(), "--output-schema", case])
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_eq!(output.status.code(), Some(0), "{stdout}");
        assert!(stdout.contains("  PASS schema\n"), "{stdout}");
        let note = stdout
            .lines()
            .find(|line| line.contains(" note: modern session: "))
            .unwrap_or_else(|| panic!("{stdout}"));
        assert!(
            note.contains(
                "not judged (schema): the `structuredContent` of the `tools/call` of `add`"
            ) && note.contains(why),
            "{note}"
        );
        let json = cargo_bin_cmd!("mcp-replay")
            .args(["check", "--no-replay", "--format", "json", "--"])
            .args([fixture_server(), "--output-schema", case])
            .output()
            .unwrap();
        let law = String::from_utf8(json.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .find(|line| line["type"] == "law" && line["law"] == "schema")
            .unwrap();
        assert_eq!(law["status"], "pass");
        assert!(law["notes"][0].as_str().unwrap().contains(why), "{law}");
    }
}
