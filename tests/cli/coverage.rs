//! No silent loss: a server that crashes or stops answering on a probe is
//! started again and the probes after it go on, the crash a finding of its
//! own; end of input with requests pending and with none are judged apart;
//! a tool is called for real only where allowed, and what a run could not
//! observe it says, with why. See: #26

use std::time::Duration;

use mcp_replay::check::probes::{self, ProbeOptions, ProbeReport};
use mcp_replay::laws::{LawId, Profile, Severity};
use mcp_replay::process::ServerCommand;
use mcp_replay::report::LawStatus;

use crate::laws::{failures, options, probe};
use crate::util::fixture_server;

use Severity::{Error, Warning};

/// Probes the fixture server started with `args`, with `options`.
fn probe_with(args: &[&str], options: &ProbeOptions) -> ProbeReport {
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(args.iter().map(|arg| (*arg).to_owned()));
    probes::run(&ServerCommand::new(argv), options).expect("the fixture server starts")
}

/// The laws with findings, each with its severities, in order.
fn failed(report: &ProbeReport) -> Vec<(LawId, Vec<Severity>)> {
    failures(report).into_iter().collect()
}

/// Whether a reason says the server ended or stopped answering.
fn says_it_ended(reason: &str) -> bool {
    reason.contains("exited") || reason.contains("stopped answering")
}

/// A server that crashes on an early probe (as older Python SDK servers do
/// on a `tools/call` without a name, or on a method they do not know), or
/// stops answering there, is started again: the crash is a finding, and
/// every probe after it runs on a process of its own, so no law is skipped
/// and no requirement left unobserved because of it.
#[test]
fn a_server_that_crashes_on_a_probe_is_started_again_and_the_rest_go_on() {
    let cases: [(&[&str], LawId, (&str, &str)); 4] = [
        (
            &["--crash-on", "unknown-method"],
            LawId::UnknownMethod,
            ("the server exited with status 1", "before answering"),
        ),
        (
            &["--crash-on", "nameless-call"],
            LawId::InvalidParams,
            ("the server exited with status 1", "before answering"),
        ),
        (
            &["--hang-on", "unknown-method"],
            LawId::UnknownMethod,
            ("no answer within 2 s", "the server was stopped"),
        ),
        (
            &["--hang-on", "nameless-call"],
            LawId::InvalidParams,
            ("no answer within 2 s", "the server was stopped"),
        ),
    ];
    for (args, law, message) in cases {
        for profile in [Profile::Core, Profile::Spec] {
            let mut options = options(profile);
            options.timeout = Duration::from_secs(2);
            options.startup_timeout = Duration::ZERO;
            let report = probe_with(args, &options);
            assert_eq!(
                failed(&report),
                [(law, vec![Error])],
                "{args:?}: {report:#?}"
            );
            // The message quotes the end of the server's stderr, if any.
            let found = &report.findings[0].message;
            assert!(found.starts_with(message.0), "{found}");
            assert!(found.ends_with(message.1), "{found}");
            for outcome in &report.outcomes {
                let LawStatus::Skipped(reason) = &outcome.status else {
                    continue;
                };
                // A legacy server has no modern laws, and under spec the
                // revision it answers has some rules not yet.
                let era_or_revision = reason.starts_with("the server speaks no 2026-07-28")
                    || reason.contains("the probe asked revision");
                // Only era detection may have seen the crash.
                let not_for_the_crash =
                    !says_it_ended(reason) || reason.contains("server/discover");
                assert!(
                    era_or_revision && not_for_the_crash,
                    "{args:?} {profile:?}: {} skipped: {reason}",
                    outcome.law
                );
            }
            for (id, why) in &report.coverage.missed {
                assert!(
                    why.starts_with("the server speaks no 2026-07-28") || !says_it_ended(why),
                    "{args:?} {profile:?}: {id} not observed: {why}"
                );
            }
        }
    }
}

/// End of input with nothing pending is judged apart from end of input
/// with requests pending: a server that answers every request and never
/// exits when its stdin closes (as `mcp-server-sqlite` 2025.4.25 does)
/// breaks `eof-exit-zero` alone.
#[test]
fn a_server_that_never_exits_at_end_of_input_breaks_eof_exit_zero_alone() {
    for (profile, severity) in [(Profile::Core, Error), (Profile::Spec, Warning)] {
        let mut options = options(profile);
        options.grace = Duration::from_millis(500);
        let report = probe_with(&["--linger-at-eof"], &options);
        assert_eq!(
            failed(&report),
            [(LawId::EofExitZero, vec![severity])],
            "{report:#?}"
        );
        assert!(
            report.findings[0]
                .message
                .ends_with("after stdin closed; the server was stopped"),
            "{}",
            report.findings[0].message
        );
        assert_eq!(report.status(LawId::EofDrains), Some(&LawStatus::Held));
        assert!(
            report
                .coverage
                .observed
                .contains("srv-stdio-answers-before-exit")
        );
        assert!(report.coverage.observed.contains("srv-stdio-exit-on-eof"));
    }
}

/// The requirements only a successful tool call shows.
const SUCCESSFUL_CALL: [&str; 1] = ["srv-tools-result-content"];

/// A tool is run for real only where allowed: annotated `readOnlyHint:
/// true`, or named with `--tool`. Where none is, what only a successful
/// call shows is not observed, and the reason names `--tool`; named, a
/// 2026-07-28 result without `content`, or with a block of no revision's
/// type, fails `schema`.
#[test]
fn a_tool_is_called_for_real_only_where_allowed() {
    for flaw in ["call-without-content", "unknown-content-type"] {
        let args = ["--unannotated", "--era-flaw", flaw];
        for profile in [Profile::Core, Profile::Spec] {
            let report = probe(&args, profile);
            assert_eq!(failed(&report), [], "{flaw} {profile:?}: {report:#?}");
            for id in SUCCESSFUL_CALL {
                assert!(!report.coverage.observed.contains(id), "{id}");
                let why = &report.coverage.missed[id];
                assert!(why.contains("--tool"), "{id}: {why}");
            }
            let mut options = options(profile);
            options.tools = vec!["add".to_owned()];
            let named = probe_with(&args, &options);
            assert_eq!(
                failed(&named),
                [(LawId::Schema, vec![Error])],
                "{flaw} {profile:?}: {named:#?}"
            );
            for id in SUCCESSFUL_CALL {
                assert!(named.coverage.observed.contains(id), "{id}");
            }
        }
    }
}

/// The same from the command line: `--tool` names the tool, and without it
/// the run passes with what it could not observe left unobserved.
#[test]
fn check_calls_a_tool_named_with_tool_and_no_other() {
    for flaw in ["call-without-content", "unknown-content-type"] {
        assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
            .args(["check", "--no-replay", "--tool", "add", "--"])
            .args([fixture_server(), "--unannotated", "--era-flaw", flaw])
            .assert()
            .code(1)
            .stdout(predicates::str::contains("FAIL schema"));
        assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
            .args(["check", "--no-replay", "--"])
            .args([fixture_server(), "--unannotated", "--era-flaw", flaw])
            .assert()
            .code(0);
    }
    // A server that serves `tools/list` only once `server/discover` was
    // answered on the same process fails, tool named or not.
    assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .args(["check", "--no-replay", "--"])
        .args([
            fixture_server(),
            "--unannotated",
            "--modern-flaw",
            "needs-discover",
        ])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("FAIL discover"));
}

/// Progress is held to the request it names: a progress token on the call
/// of a tool, progress that increases, and none once the call is answered.
#[test]
fn progress_names_a_request_in_flight_and_increases() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--progress-mode", "steady"], profile);
        assert_eq!(failed(&report), [], "{report:#?}");
        assert!(report.coverage.observed.contains("srv-progress-increases"));
        let quiet = probe(&[], profile);
        assert!(
            quiet.coverage.missed["srv-progress-increases"].contains("sent no progress"),
            "{:?}",
            quiet.coverage.missed
        );
    }
    let cases = [
        (
            "after-answer",
            "srv-progress-stops",
            "after its request was answered",
        ),
        ("decreasing", "srv-progress-increases", "progress increases"),
        (
            "unknown-token",
            "srv-progress-known-token",
            "which no request carried",
        ),
    ];
    for (mode, requirement, message) in cases {
        for profile in [Profile::Core, Profile::Spec] {
            let report = probe(&["--progress-mode", mode], profile);
            assert_eq!(
                failed(&report)
                    .into_iter()
                    .map(|(law, _)| law)
                    .collect::<Vec<_>>(),
                [LawId::RequestAnsweredOnce],
                "{mode}: {report:#?}"
            );
            let finding = &report.findings[0];
            assert_eq!(finding.requirement, Some(requirement), "{finding:#?}");
            assert!(finding.message.contains(message), "{}", finding.message);
        }
    }
}

/// A run says what it observed and what it could not, with why: a legacy
/// server's modern requirements because it speaks no 2026-07-28, a
/// capability's because the server does not declare it; and which
/// revisions were spoken and capabilities declared.
#[test]
fn a_run_reports_the_requirements_it_observed_and_those_it_could_not() {
    let report = probe(&[], Profile::Core);
    for id in [
        "srv-ping-empty-result",
        "srv-init-result",
        "srv-tools-result-content",
        "srv-stdio-answers-before-exit",
    ] {
        assert!(report.coverage.observed.contains(id), "{id}: {report:#?}");
    }
    let why = &report.coverage.missed["srv-discover-answers"];
    assert!(why.starts_with("the server speaks no 2026-07-28"), "{why}");
    assert!(!report.coverage.observed.contains("srv-discover-answers"));
    assert!(
        report
            .coverage
            .revisions
            .contains(&mcp_replay::revision::Revision::V2024_11_05)
    );
    assert!(report.coverage.capabilities.contains("tools"));
    let modern = probe(&["--modern"], Profile::Core);
    assert!(
        modern
            .coverage
            .observed
            .contains("srv-stateless-no-prior-context")
    );
    assert!(modern.coverage.observed.contains("srv-discover-answers"));
    assert!(
        modern
            .coverage
            .revisions
            .contains(&mcp_replay::revision::Revision::V2026_07_28)
    );
}

/// A finding names the requirement it shows broken where that is not the
/// first its law judges; one of the first names it by its law alone.
#[test]
fn a_finding_names_its_requirement_where_its_law_judges_several() {
    let cases: [(&[&str], LawId, Option<&str>); 4] = [
        (&["--break", "ping"], LawId::Ping, None),
        (
            &["--modern-flaw", "unstable-discover"],
            LawId::Discover,
            Some("srv-discover-stable-within-ttl"),
        ),
        (
            &["--modern-flaw", "draft-version-error"],
            LawId::Discover,
            Some("srv-version-unsupported-32022"),
        ),
        (
            &["--page-size", "1", "--lax-cursor"],
            LawId::ToolsListValid,
            Some("srv-pagination-invalid-cursor"),
        ),
    ];
    for (args, law, requirement) in cases {
        let report = probe(args, Profile::Core);
        let finding = report
            .findings
            .iter()
            .find(|f| f.law == law)
            .unwrap_or_else(|| panic!("{args:?}: {report:#?}"));
        assert_eq!(finding.requirement, requirement, "{args:?}: {finding:#?}");
    }
}
