//! The summary's counts and words, the word on the spec profile, and
//! server text in the reports, on reports built by hand.

use std::path::PathBuf;
use std::time::Duration;

use super::*;
use crate::laws::{LawId, Profile};

/// A finding of `law` in a probe run under `profile`, failing the run.
fn failing(law: LawId, profile: Profile, message: &str) -> Graded {
    let location = Location::Probe {
        command: "server".into(),
        step: "step".into(),
    };
    Graded::new(
        Finding::new(law, profile, location, message),
        Disposition::Fails,
    )
}

/// A probe run of one server: `held` laws held, `skipped` skipped, and
/// one failed outcome for each of `findings`' laws.
fn probed(held: &[LawId], skipped: &[LawId], findings: Vec<Graded>) -> ProbeResult {
    let mut outcomes: Vec<LawOutcome> = held
        .iter()
        .map(|law| LawOutcome::new(*law, LawStatus::Held))
        .collect();
    outcomes.extend(
        skipped
            .iter()
            .map(|law| LawOutcome::new(*law, LawStatus::Skipped("no tools".into()))),
    );
    for graded in &findings {
        if !outcomes
            .iter()
            .any(|outcome| outcome.law == graded.finding.law)
        {
            outcomes.push(LawOutcome::new(graded.finding.law, LawStatus::Failed));
        }
    }
    ProbeResult {
        command: "server".into(),
        outcomes,
        findings,
        elapsed: Duration::from_millis(10),
        coverage: Coverage::default(),
    }
}

/// A transcript that replayed as recorded, or with one changed answer.
fn replayed(name: &str, changed: bool) -> TranscriptResult {
    let findings = if changed {
        let location = Location::Transcript {
            path: PathBuf::from(name),
            line: 3,
        };
        vec![Graded::new(
            Finding::new(LawId::TranscriptMatch, Profile::Core, location, "differs"),
            Disposition::Fails,
        )]
    } else {
        Vec::new()
    };
    TranscriptResult {
        path: PathBuf::from(name),
        command: "server".into(),
        exchanges: Vec::new(),
        findings,
        notes: Vec::new(),
        blessed: None,
        elapsed: Duration::from_millis(5),
        coverage: Coverage::default(),
    }
}

fn report(transcripts: Vec<TranscriptResult>, probes: Vec<ProbeResult>) -> Report {
    Report {
        transcripts,
        probes,
        elapsed: Duration::from_millis(1030),
        profiles: vec![Profile::Core],
        ..Report::default()
    }
}

/// The summary counts transcripts and laws apart, each as its lines show
/// them, with the profile in force.
#[test]
fn the_summary_counts_transcripts_and_laws_apart() {
    let probe = probed(
        &[LawId::Ping, LawId::Schema, LawId::Initialize],
        &[LawId::Discover],
        vec![failing(LawId::UnknownTool, Profile::Core, "-32602")],
    );
    let report = report(
        vec![replayed("a.jsonl", false), replayed("b.jsonl", true)],
        vec![probe.clone(), probe],
    );
    let summary = report.summary();
    assert_eq!(
        (summary.transcripts, summary.laws, summary.servers),
        (2, 10, 2)
    );
    assert_eq!(
        (
            summary.transcript_tally.held,
            summary.transcript_tally.failed
        ),
        (1, 1)
    );
    assert_eq!(
        (
            summary.law_tally.held,
            summary.law_tally.failed,
            summary.law_tally.skipped
        ),
        (6, 2, 2)
    );
    // The JSON summary keeps its counts of both together.
    assert_eq!((summary.held, summary.failed, summary.skipped), (7, 3, 2));
    assert_eq!(
        human::summary_line(&summary, &report.profiles, report.elapsed),
        "Summary: 2 transcripts (1 passed, 1 failed), 10 laws of 2 servers \
         (6 held, 2 failed, 2 skipped) under profile core, in 1.030s"
    );
    let none = Summary::default();
    assert_eq!(
        human::summary_line(&none, &[Profile::Core, Profile::Spec], Duration::ZERO),
        "Summary: nothing checked under profiles core and spec, in 0.000s"
    );
}

/// Only rules of the core profile failed: a law the spec profile only
/// warns on, or a finding the probes know to be core's alone. A transcript
/// that changed, a law the specification makes a failure too, a run under
/// spec, unreadable input: no.
#[test]
fn core_rules_alone_are_told_apart() {
    let sorted = || failing(LawId::ToolsListSorted, Profile::Core, "unsorted");
    let unknown_tool = || failing(LawId::UnknownTool, Profile::Core, "-32602");
    let only_core = |findings: Vec<Graded>| {
        report(Vec::new(), vec![probed(&[LawId::Ping], &[], findings)]).fails_only_on_core_rules()
    };
    assert!(only_core(vec![sorted()]));
    let marked = |graded: Graded| Graded::new(graded.finding.with_core_only(), graded.disposition);
    assert!(only_core(vec![sorted(), marked(unknown_tool())]));
    assert!(!only_core(vec![sorted(), unknown_tool()]));
    assert!(!only_core(vec![failing(
        LawId::Ping,
        Profile::Core,
        "pong"
    )]));
    assert!(!only_core(vec![marked(failing(
        LawId::UnknownTool,
        Profile::Spec,
        "isError"
    ))]));
    assert!(!only_core(Vec::new()), "nothing failed");

    let changed = report(
        vec![replayed("b.jsonl", true)],
        vec![probed(&[], &[], vec![sorted()])],
    );
    assert!(!changed.fails_only_on_core_rules());
    let mut unreadable = report(Vec::new(), vec![probed(&[], &[], vec![sorted()])]);
    unreadable.errors.push(InputError {
        path: None,
        message: "cannot start".into(),
    });
    assert!(!unreadable.fails_only_on_core_rules());
}

/// A server's words reach each report escaped once: as they are in the
/// human report, and encoded once as JSON (which parses back to them).
#[test]
fn server_text_is_escaped_once_in_each_report() {
    let message =
        r#"answered error -32602 ("[\n  {\n    "expected": "string"…"); expected error -32601"#;
    let report = report(
        Vec::new(),
        vec![probed(
            &[],
            &[],
            vec![failing(LawId::UnknownMethod, Profile::Core, message)],
        )],
    );
    let mut human = Vec::new();
    human::render(&report, &Palette::plain(), false, &mut human).unwrap();
    let human = String::from_utf8(human).unwrap();
    assert!(human.contains(message), "{human}");
    let mut json = Vec::new();
    json::render(&report, &mut json).unwrap();
    let finding = String::from_utf8(json)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|line| line["type"] == "finding")
        .unwrap();
    assert_eq!(finding["message"], message);
}

/// A law a dual-era server fared otherwise in each era is one law line,
/// counted once, whose human and JSON renderings show both verdicts.
#[test]
fn a_law_of_two_eras_shows_both_verdicts_and_counts_once() {
    use crate::revision::Era;
    let modern = Graded::new(
        failing(LawId::ToolsListSorted, Profile::Core, "unsorted")
            .finding
            .with_era(Some(Era::Modern)),
        Disposition::Fails,
    );
    let mut probe = probed(&[LawId::Ping], &[], vec![modern]);
    for outcome in &mut probe.outcomes {
        if outcome.law == LawId::ToolsListSorted {
            *outcome = outcome.clone().with_eras(vec![
                (Era::Legacy, LawStatus::Held),
                (Era::Modern, LawStatus::Failed),
            ]);
        }
    }
    let report = report(Vec::new(), vec![probe]);
    let summary = report.summary();
    assert_eq!(
        (
            summary.laws,
            summary.law_tally.held,
            summary.law_tally.failed
        ),
        (2, 1, 1)
    );
    let mut human = Vec::new();
    human::render(&report, &Palette::plain(), false, &mut human).unwrap();
    let human = String::from_utf8(human).unwrap();
    assert!(
        human.contains("  FAIL tools-list-sorted  (legacy era: PASS; modern era: FAIL)\n"),
        "{human}"
    );
    let mut json = Vec::new();
    json::render(&report, &mut json).unwrap();
    let law = String::from_utf8(json)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|line| line["type"] == "law" && line["law"] == "tools-list-sorted")
        .unwrap();
    assert_eq!(law["status"], "fail");
    assert_eq!(
        law["eras"],
        serde_json::json!({"legacy": "pass", "modern": "fail"})
    );
}

/// What a law could not decide shows under the law whatever its status: a
/// held law with a note is no longer folded into the count of those that
/// held, and the JSON law line carries the notes. See: #25
#[test]
fn what_a_law_could_not_decide_is_shown_beside_its_status() {
    let note =
        "modern session: tools/call of `add`: not judged (schema): the pattern is not judged";
    let mut probe = probed(&[LawId::Ping, LawId::Schema], &[], Vec::new());
    for outcome in &mut probe.outcomes {
        if outcome.law == LawId::Schema {
            *outcome = outcome.clone().with_notes(vec![note.to_owned()]);
        }
    }
    let report = report(Vec::new(), vec![probe]);
    assert_eq!(report.summary().law_tally.held, 2);
    let mut human = Vec::new();
    human::render(&report, &Palette::plain(), false, &mut human).unwrap();
    let human = String::from_utf8(human).unwrap();
    assert!(human.contains("  PASS schema\n"), "{human}");
    assert!(human.contains(&format!(" note: {note}\n")), "{human}");
    assert!(human.contains("PASS 1 other law held"), "{human}");
    let mut json = Vec::new();
    json::render(&report, &mut json).unwrap();
    let laws: Vec<serde_json::Value> = String::from_utf8(json)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|line| line["type"] == "law")
        .collect();
    let schema = laws.iter().find(|line| line["law"] == "schema").unwrap();
    assert_eq!(schema["notes"], serde_json::json!([note]));
    let ping = laws.iter().find(|line| line["law"] == "ping").unwrap();
    assert!(ping.get("notes").is_none(), "{ping}");
    let mut junit = Vec::new();
    junit::render(&report, &mut junit).unwrap();
    assert!(
        String::from_utf8(junit)
            .unwrap()
            .contains("note: modern session")
    );
    let mut markdown = Vec::new();
    markdown::render(&report, &mut markdown).unwrap();
    assert!(
        String::from_utf8(markdown)
            .unwrap()
            .contains("1 not judged")
    );
}
