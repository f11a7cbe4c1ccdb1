//! The law probes against the fixture server: each `--break` is caught by
//! its id, in both profiles where the law applies; clean, stressed and
//! SDK-like fixtures pass.

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_replay::check::probes::{self, ProbeOptions, ProbeReport};
use mcp_replay::laws::{LawId, Profile, Severity};
use mcp_replay::process::ServerCommand;
use mcp_replay::report::{LawStatus, Location};

use crate::util::{assert_no_process_with, fixture_server};

use Severity::{Error, Warning};

/// Options with deadlines generous enough for a loaded machine.
pub(crate) fn options(profile: Profile) -> ProbeOptions {
    let mut options = ProbeOptions::default();
    options.profile = profile;
    options.timeout = Duration::from_secs(30);
    options.grace = Duration::from_secs(10);
    options
}

/// Probes the fixture server started with `args`.
pub(crate) fn probe(args: &[&str], profile: Profile) -> ProbeReport {
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(args.iter().map(|arg| (*arg).to_owned()));
    probes::run(&ServerCommand::new(argv), &options(profile)).expect("the fixture server starts")
}

/// The laws with findings, each with the severities of its findings.
pub(crate) fn failures(report: &ProbeReport) -> BTreeMap<LawId, Vec<Severity>> {
    let mut failures: BTreeMap<LawId, Vec<Severity>> = BTreeMap::new();
    for finding in &report.findings {
        failures
            .entry(finding.law)
            .or_default()
            .push(finding.severity);
    }
    for outcome in &report.outcomes {
        assert_eq!(
            outcome.status == LawStatus::Failed,
            failures.contains_key(&outcome.law),
            "{}: the status and the findings disagree in {report:#?}",
            outcome.law
        );
    }
    failures
}

/// Asserts that exactly the laws in `expected` failed, each with findings
/// of that one severity, and that every other law held (or, under spec,
/// was skipped for the revision the server negotiated: `tool-error-is-result`
/// before 2025-11-25, `tools-list-sorted` before 2026-07-28).
fn assert_failures(report: &ProbeReport, expected: &[(LawId, Severity)]) {
    let failures = failures(report);
    let actual: Vec<(LawId, Severity)> = failures
        .iter()
        .flat_map(|(law, severities)| severities.iter().map(move |severity| (*law, *severity)))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut expected = expected.to_vec();
    expected.sort();
    assert_eq!(actual, expected, "{report:#?}");
    for outcome in &report.outcomes {
        match &outcome.status {
            LawStatus::Held | LawStatus::Failed => {}
            LawStatus::Skipped(reason) => assert!(
                match outcome.law {
                    LawId::ToolErrorIsResult =>
                        reason.contains("the probe asked revision")
                            && reason.contains("\"2024-11-05\""),
                    LawId::ToolsListSorted =>
                        reason.contains("asked revision \"20")
                            && reason.ends_with("a stable tool order from 2026-07-28 on"),
                    // The fixture speaks 2026-07-28 only when asked to.
                    LawId::Discover | LawId::ListCacheHints => reason.starts_with(
                        "the server speaks no 2026-07-28: server/discover answered error -3260"
                    ),
                    _ => false,
                },
                "{} skipped: {reason}",
                outcome.law
            ),
            other => panic!("{}: {other:?}", outcome.law),
        }
    }
}

/// `--break <law>` fails that law (and the laws in `also`, which the same
/// misbehaviour breaks in both profiles): with `core` in the core profile,
/// and with `spec` (or nothing, when spec does not see the break) in spec.
fn caught_by_id(law: &str, core: Severity, spec: Option<Severity>, also: &[(LawId, Severity)]) {
    let id: LawId = law.parse().unwrap();
    let args = ["--break", law];
    let mut expected = vec![(id, core)];
    expected.extend_from_slice(also);
    assert_failures(&probe(&args, Profile::Core), &expected);
    let mut expected: Vec<_> = spec.map(|severity| (id, severity)).into_iter().collect();
    expected.extend_from_slice(also);
    assert_failures(&probe(&args, Profile::Spec), &expected);
}

macro_rules! caught {
    ($($test:ident: $law:literal, core $core:expr, spec $spec:expr $(, also $($also:expr),+)?;)*) => {
        $(
            #[test]
            fn $test() {
                caught_by_id($law, $core, $spec, &[$($($also),+)?]);
            }
        )*

        #[test]
        fn every_probed_law_has_a_break_test() {
            let tested: Vec<&str> = vec![$($law),*];
            for law in LawId::ALL.iter().filter(|law| probes::is_probed(**law)) {
                assert!(tested.contains(&law.as_str()), "no break test for {law}");
            }
        }
    };
}

caught! {
    // The fixture's banner is no message: it breaks stdout-is-protocol too.
    // A serverInfo without a version, an error with a null id to a
    // notification and an inputSchema without a type break the schema too.
    break_quiet_before_serving: "quiet-before-serving", core Error, spec Some(Warning),
        also (LawId::StdoutIsProtocol, Error);
    break_stdout_is_protocol: "stdout-is-protocol", core Error, spec Some(Error);
    break_notification_unanswered: "notification-unanswered", core Error, spec Some(Error),
        also (LawId::Schema, Error);
    break_request_answered_once: "request-answered-once", core Error, spec Some(Error);
    break_parse_error_keeps_serving: "parse-error-keeps-serving", core Error, spec Some(Error);
    // A server that answers every unknown method with `{}` answers
    // `server/discover` so too: it claims the modern era, and its answer
    // has none of a DiscoverResult's fields (nor the server's name, a
    // warning).
    break_unknown_method: "unknown-method", core Error, spec Some(Error),
        also (LawId::Schema, Error), (LawId::Discover, Error), (LawId::Discover, Warning),
        (LawId::ListCacheHints, Error);
    break_initialize: "initialize", core Error, spec Some(Error),
        also (LawId::Schema, Error);
    break_ping: "ping", core Error, spec Some(Error);
    break_schema: "schema", core Error, spec Some(Error);
    // One without its cache scope breaks the schema's cacheable result too.
    break_discover: "discover", core Error, spec Some(Error);
    break_list_cache_hints: "list-cache-hints", core Error, spec Some(Error),
        also (LawId::Schema, Error);
    break_capabilities_honest: "capabilities-honest", core Warning, spec Some(Warning);
    // Every fixture negotiates a revision before 2026-07-28, where spec
    // does not ask a stable order.
    break_tools_list_sorted: "tools-list-sorted", core Error, spec None;
    break_tools_list_valid: "tools-list-valid", core Error, spec Some(Error),
        also (LawId::Schema, Error);
    // Another error code than -32602 is only a warning under spec.
    break_invalid_params: "invalid-params", core Error, spec Some(Warning);
    break_unknown_tool: "unknown-tool", core Error, spec Some(Warning);
    // The fixture answers 2024-11-05, where spec does not apply this law.
    break_tool_error_is_result: "tool-error-is-result", core Error, spec None;
    break_cancel_tolerated: "cancel-tolerated", core Error, spec Some(Warning);
    // The specification asks the process to end, and names no status: the
    // status is the core profile's (MCP-CORE, REQ-C-032).
    break_eof_exit_zero: "eof-exit-zero", core Error, spec None;
    break_eof_drains: "eof-drains", core Error, spec Some(Warning);
    break_sigterm_exit_143: "sigterm-exit-143", core Error, spec None;
}

#[test]
fn tools_served_without_the_tools_capability_break_initialize_in_both_profiles() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--undeclared-tools"], profile);
        assert_failures(&report, &[(LawId::Initialize, Error)]);
        let finding = &report.findings[0];
        assert_eq!(
            finding.message,
            "serves 3 tools in tools/list, but its initialize result declares no tools capability"
        );
        assert!(
            matches!(&finding.location, Location::Probe { step, .. } if step == "conversation session: tools/list"),
            "{finding:?}"
        );
    }
}

#[test]
fn a_message_before_the_first_request_breaks_quiet_before_serving_in_core_only() {
    let report = probe(&["--announce"], Profile::Core);
    assert_failures(&report, &[(LawId::QuietBeforeServing, Error)]);
    assert_eq!(
        report.findings[0].message,
        "wrote on stdout before the client's first message: `{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}`"
    );
    // The spec's contract is that stdout carries only messages, and it does.
    assert_failures(&probe(&["--announce"], Profile::Spec), &[]);
}

#[test]
fn tool_errors_are_graded_under_spec_from_2025_11_25() {
    let args = [
        "--like",
        "typescript-sdk",
        "--break",
        "tool-error-is-result",
    ];
    let report = probe(&args, Profile::Spec);
    // The batch the TypeScript SDK drops is no finding under spec.
    assert_failures(
        &report,
        &[
            (LawId::InvalidParams, Warning),
            (LawId::UnknownTool, Warning),
            (LawId::ToolErrorIsResult, Warning),
        ],
    );
}

#[test]
fn the_clean_fixture_holds_every_law_in_both_profiles() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&[], profile);
        assert_failures(&report, &[]);
        assert_eq!(report.outcomes.len(), 21);
    }
    // The clean fixture speaks 2024-11-05 alone: the modern laws are
    // skipped, every other law holds; with `--modern` it speaks both eras
    // and every law holds.
    let core = probe(&[], Profile::Core);
    let modern = [LawId::Discover, LawId::ListCacheHints];
    assert!(
        core.outcomes
            .iter()
            .all(|o| modern.contains(&o.law) || o.status == LawStatus::Held),
        "{core:#?}"
    );
    for profile in [Profile::Core, Profile::Spec] {
        let both = probe(&["--modern"], profile);
        assert!(
            both.outcomes.iter().all(|o| match &o.status {
                LawStatus::Held => true,
                LawStatus::Skipped(reason) =>
                    profile == Profile::Spec
                        && matches!(o.law, LawId::ToolErrorIsResult | LawId::ToolsListSorted)
                        && reason.contains("the probe asked revision"),
                _ => false,
            }),
            "{both:#?}"
        );
    }
}

/// JSON-RPC lets a server answer in any order: a parse error that comes
/// after the answer to the request behind the malformed line is still the
/// reply it needs. See: #10
#[test]
fn a_parse_error_answered_after_the_fence_still_counts() {
    for profile in [Profile::Core, Profile::Spec] {
        assert_failures(&probe(&["--late-parse-error"], profile), &[]);
    }
}

/// A server that stays quiet past a short settle window, then greets the
/// client it is still waiting for, is caught by the default window. See: #10
#[test]
fn a_banner_written_while_waiting_for_a_client_breaks_quiet_before_serving() {
    let mut options = options(Profile::Core);
    options.settle = ProbeOptions::default().settle;
    assert!(options.settle >= Duration::from_secs(1), "{options:?}");
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(["--idle-banner", "500"].map(str::to_owned));
    let report = probes::run(&ServerCommand::new(argv), &options).unwrap();
    assert_failures(
        &report,
        &[
            (LawId::QuietBeforeServing, Error),
            (LawId::StdoutIsProtocol, Error),
        ],
    );
    let quiet: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.law == LawId::QuietBeforeServing)
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        quiet,
        [
            "wrote on stdout before the client's first message: `fixture-server: waiting for a client…`"
        ]
    );
}

/// The quiet window covers a slow start: it lasts half the settle window
/// past the slowest first answer of the suite's other processes, so a
/// banner written after some silence is caught when the interpreter took
/// long to start too (here 1.5 s, then the banner 0.3 s later, where a
/// window counted from spawn ends at 1 s). See: #19
#[test]
fn a_banner_written_while_waiting_after_a_slow_start_is_caught() {
    let mut options = options(Profile::Core);
    options.settle = ProbeOptions::default().settle;
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(["--slow-start", "1500", "--idle-banner", "300"].map(str::to_owned));
    let report = probes::run(&ServerCommand::new(argv), &options).unwrap();
    assert_failures(
        &report,
        &[
            (LawId::QuietBeforeServing, Error),
            (LawId::StdoutIsProtocol, Error),
        ],
    );
}

macro_rules! stress {
    ($($test:ident: $($arg:literal)+;)*) => {
        $(
            #[test]
            fn $test() {
                for profile in [Profile::Core, Profile::Spec] {
                    assert_failures(&probe(&[$($arg),+], profile), &[]);
                }
            }
        )*
    };
}

stress! {
    stress_stderr_flood: "--stderr-flood" "1048576";
    // Longer than the settle window: the server is quiet, just late.
    stress_slow_start: "--slow-start" "500";
    stress_large_answers: "--pad" "4194304";
    stress_out_of_order: "--out-of-order" "4";
    stress_unsolicited_notifications: "--unsolicited";
    stress_pagination: "--page-size" "1";
}

#[test]
fn sdk_like_servers_pass_spec_and_fail_core_where_they_differ() {
    // Where each SDK parts from MCP-CORE, and what spec still warns about.
    let cases: [(&str, &[LawId], &[LawId]); 4] = [
        (
            "rmcp",
            &[
                LawId::ParseErrorKeepsServing,
                LawId::InvalidParams,
                LawId::UnknownTool,
            ],
            &[LawId::InvalidParams],
        ),
        (
            "python-sdk",
            &[LawId::ParseErrorKeepsServing, LawId::UnknownTool],
            &[LawId::UnknownTool],
        ),
        (
            "python-sdk-v1",
            &[
                LawId::ParseErrorKeepsServing,
                LawId::UnknownMethod,
                LawId::UnknownTool,
            ],
            &[LawId::UnknownMethod, LawId::UnknownTool],
        ),
        (
            "typescript-sdk",
            &[
                LawId::ParseErrorKeepsServing,
                LawId::InvalidParams,
                LawId::UnknownTool,
            ],
            &[LawId::InvalidParams, LawId::UnknownTool],
        ),
    ];
    // Each negotiates 2025-03-26 when asked and drops a batch, as the SDKs
    // do: a warning under core, and no finding under spec, which grades a
    // server as the SDKs behave.
    let batch = (LawId::RequestAnsweredOnce, Warning);
    for (sdk, core, spec_warnings) in cases {
        let args = ["--like", sdk];
        let mut core: Vec<_> = core.iter().map(|law| (*law, Error)).collect();
        core.push(batch);
        assert_failures(&probe(&args, Profile::Core), &core);
        let spec = probe(&args, Profile::Spec);
        let warnings: Vec<_> = spec_warnings.iter().map(|law| (*law, Warning)).collect();
        assert_failures(&spec, &warnings);
        // The SDKs negotiate 2025-11-25, so spec grades tool errors.
        assert_eq!(
            spec.status(LawId::ToolErrorIsResult),
            Some(&LawStatus::Held),
            "{sdk}"
        );
    }
}

#[test]
fn findings_name_their_step_and_cite_the_profile() {
    let report = probe(&["--break", "ping"], Profile::Core);
    let finding = &report.findings[0];
    assert_eq!(
        finding.message,
        "ping answered {\"pong\":true}; expected {}"
    );
    assert_eq!(finding.cites, "MCP-CORE r1 §2¶15 (docs/mcp-core.md#s2p15)");
    match &finding.location {
        Location::Probe { command, step } => {
            assert!(
                command.ends_with("fixture-server --break ping"),
                "{command}"
            );
            assert_eq!(step, "conversation session: ping");
        }
        other => panic!("{other:?}"),
    }
    let spec = probe(&["--break", "ping"], Profile::Spec);
    assert_eq!(
        spec.findings[0].cites,
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping#behavior-requirements"
    );
    assert_eq!(spec.findings[0].profile, Profile::Spec);
}

fn sh(script: &str, marker: &str) -> ServerCommand {
    ServerCommand::new(vec!["sh".into(), "-c".into(), script.into(), marker.into()])
}

#[test]
fn a_server_that_writes_nothing_is_not_checked_and_not_a_hang() {
    let mut options = options(Profile::Core);
    options.timeout = Duration::from_millis(500);
    options.startup_timeout = Duration::ZERO;
    options.grace = Duration::from_millis(500);
    let report = probes::run(&sh("exec sleep 60", "silent"), &options).unwrap();
    // Silence from the start may be a slow start: no law is broken, and
    // the run says the server could not be checked. See: #10
    assert_eq!(report.findings, []);
    assert_eq!(report.silent, Some(Duration::from_millis(1500)));
    let reason = "the server wrote nothing on stdout within 1.5 s of its start";
    for law in [LawId::Ping, LawId::EofDrains, LawId::SigtermExit143] {
        match report.status(law) {
            Some(LawStatus::Skipped(skipped)) => assert!(skipped.contains(reason), "{skipped}"),
            other => panic!("{law}: {other:?}"),
        }
    }
    // A server that has spoken and then stops answering is another matter.
    let report = probes::run(&sh("echo 'ready'; exec sleep 60", "mute"), &options).unwrap();
    assert_eq!(report.silent, None);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.message == "no answer within 1.5 s; the server was stopped"),
        "{report:#?}"
    );
}

#[test]
fn a_server_slower_to_start_than_three_steps_has_the_startup_timeout() {
    // Four seconds to start, against one-second steps: the startup timeout,
    // not three steps, bounds the first answer, as it does in replay.
    let mut options = options(Profile::Core);
    options.timeout = Duration::from_secs(1);
    options.startup_timeout = Duration::from_secs(60);
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(["--slow-start", "4000"].map(str::to_owned));
    let report = probes::run(&ServerCommand::new(argv), &options).unwrap();
    assert_failures(&report, &[]);
}

/// A server that starts slowly stops slowly on a loaded machine: the grace
/// period stretches to twice the time its first answer took, so the pace
/// of the machine is not taken for a server that ignores end of input or
/// SIGTERM. See: #10
#[test]
fn the_grace_period_follows_the_pace_of_the_server() {
    let mut options = options(Profile::Core);
    options.grace = Duration::from_millis(300);
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(["--slow-start", "1200", "--slow-exit", "700"].map(str::to_owned));
    let report = probes::run(&ServerCommand::new(argv.clone()), &options).unwrap();
    assert_failures(&report, &[]);
    // A server that answers at once gets the grace period alone (the
    // SIGTERM session, whose first request waits out the 1 s settle window,
    // about twice that window).
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(["--slow-exit", "4000"].map(str::to_owned));
    let report = probes::run(&ServerCommand::new(argv), &options).unwrap();
    assert_failures(
        &report,
        &[(LawId::EofExitZero, Error), (LawId::SigtermExit143, Error)],
    );
}

/// The processes of the suite start no more than the machine's cores at
/// once (the one watched unspoken to for the quiet start beside them),
/// each once: an interpreter's start is CPU work, and eight at once on
/// two cores each take four times as long. A server that speaks no
/// 2026-07-28 gets no fresh process for the statelessness probe, and
/// end of input rides on the conversation. See: #19
#[test]
fn the_suite_starts_its_processes_a_few_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("starts.log");
    let log_arg = log.to_str().unwrap();
    let width = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
    // A legacy server: the conversation, the modern session (which goes
    // on as the negotiation probe's) and the quiet start; a dual-era one
    // has the fresh process and the negotiation probe's of its own too.
    let cases: [(&[&str], usize); 2] = [(&[], 3), (&["--modern-per-request"], 5)];
    for (args, processes) in cases {
        for profile in [Profile::Core, Profile::Spec] {
            let _ = std::fs::remove_file(&log);
            let mut argv = vec!["--slow-start", "200", "--start-log", log_arg];
            argv.extend(args);
            let report = probe(&argv, profile);
            let log = std::fs::read_to_string(&log).unwrap();
            let starts = log.lines().filter(|e| *e == "start").count();
            assert_eq!(starts, processes, "{args:?} {profile:?}: {log}");
            // Never more started and not answering than the gate's width,
            // and the process watched for the quiet start.
            let mut starting: usize = 0;
            for event in log.lines() {
                match event {
                    "start" => starting += 1,
                    _ => starting = starting.saturating_sub(1),
                }
                assert!(starting <= width + 1, "{args:?} {profile:?}: {log}");
            }
            assert!(
                report.silent.is_none()
                    && report.status(LawId::EofDrains) == Some(&LawStatus::Held),
                "{report:#?}"
            );
        }
    }
}

#[test]
fn a_banner_before_serving_breaks_stdout_is_protocol_once_per_session_in_both_profiles() {
    let fixture = fixture_server();
    let banner = sh(
        &format!("echo 'Server started on stdio'; exec {fixture}"),
        "banner",
    );
    // Every process reads the banner, and each makes the finding once: the
    // conversation (which probes end of input too), the quiet start
    // (2025-03-26 and SIGTERM), and the modern session, which goes on as
    // the negotiation probe's; a server that speaks no 2026-07-28 has no
    // other process started.
    for (profile, sessions, quiet) in [(Profile::Core, 3, Error), (Profile::Spec, 3, Warning)] {
        let report = probes::run(&banner, &options(profile)).unwrap();
        assert_failures(
            &report,
            &[
                (LawId::QuietBeforeServing, quiet),
                (LawId::StdoutIsProtocol, Error),
            ],
        );
        let steps: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.law == LawId::StdoutIsProtocol)
            .map(|f| {
                assert_eq!(
                    f.message,
                    "a stdout line is no JSON-RPC message: not JSON (expected value): `Server started on stdio`"
                );
                match &f.location {
                    Location::Probe { step, .. } => step.as_str(),
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        assert_eq!(steps.len(), sessions, "{profile:?}: {steps:?}");
        assert!(
            steps.contains(&"2025-03-26 session: the start, and the first 1 s after it"),
            "{steps:?}"
        );
        assert!(
            steps.contains(&"conversation session: initialize"),
            "{steps:?}"
        );
        // The banner is one late start, not one per session.
        let quiet_findings = report
            .findings
            .iter()
            .filter(|f| f.law == LawId::QuietBeforeServing)
            .count();
        assert_eq!(quiet_findings, 1, "{report:#?}");
        // The modern session's process, which a legacy server's
        // `server/discover` turned into the negotiation probe's.
        assert!(
            steps.contains(&"negotiation session: server/discover"),
            "{steps:?}"
        );
    }
}

#[test]
fn a_server_that_dies_at_start_is_named() {
    let report = probes::run(
        &sh("echo starting; exit 3", "dies"),
        &options(Profile::Core),
    )
    .unwrap();
    let failures = failures(&report);
    assert_eq!(
        failures.keys().copied().collect::<Vec<_>>(),
        [
            LawId::QuietBeforeServing,
            LawId::StdoutIsProtocol,
            LawId::Initialize
        ],
        "{report:#?}"
    );
    let initialize = report
        .findings
        .iter()
        .find(|f| f.law == LawId::Initialize)
        .unwrap();
    assert_eq!(
        initialize.message,
        "the server exited with status 3 before answering"
    );
}

#[test]
fn a_server_that_cannot_start_is_an_error_not_a_finding() {
    let command = ServerCommand::new(vec!["/nonexistent/mcp-server".into()]);
    let err = probes::run(&command, &options(Profile::Core)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot start server `/nonexistent/mcp-server`"
    );
}

#[test]
fn no_process_outlives_a_probe_run() {
    let marker = format!("no-process-left-{}", std::process::id());
    probe(&["--echo-suffix", &marker], Profile::Spec);
    assert_no_process_with(&marker);
}

#[test]
fn a_server_that_ignores_end_of_input_and_sigterm_is_stopped() {
    let marker = format!("stubborn-{}", std::process::id());
    // SIGTERM stays ignored across exec, and the rmcp-like fixture keeps
    // the default disposition; after end of input the shell lingers.
    let script = r#"trap "" TERM; "$1" --like rmcp --echo-suffix "$0"; sleep 60 & wait"#;
    let command = ServerCommand::new(vec![
        "sh".into(),
        "-c".into(),
        script.into(),
        marker.clone(),
        fixture_server().into(),
    ]);
    let mut options = options(Profile::Spec);
    options.grace = Duration::from_millis(500);
    let report = probes::run(&command, &options).unwrap();
    // The rmcp-like fixture's own differences from the spec are warnings
    // about other laws; only the lifecycle matters here.
    let lifecycle = [LawId::EofExitZero, LawId::SigtermExit143];
    // The grace period is 500 ms, or twice the server's time to its first
    // answer if that is longer (the SIGTERM session waits out the settle
    // window first), so the messages name the wait that passed.
    let messages: Vec<(LawId, Severity, String)> = report
        .findings
        .iter()
        .filter(|f| lifecycle.contains(&f.law))
        .map(|f| {
            let wait = f
                .message
                .strip_prefix("still running ")
                .and_then(|rest| rest.split_once(" after "))
                .map_or("", |(wait, _)| wait);
            (f.law, f.severity, f.message.replacen(wait, "[GRACE]", 1))
        })
        .collect();
    assert_eq!(
        messages,
        [
            (
                LawId::EofExitZero,
                Warning,
                "still running [GRACE] after stdin closed; the server was stopped".to_owned()
            ),
            (
                LawId::SigtermExit143,
                Warning,
                "still running [GRACE] after SIGTERM; the server was stopped".to_owned()
            ),
        ],
        "{report:#?}"
    );
    assert_eq!(report.status(LawId::EofDrains), Some(&LawStatus::Held));
    assert_no_process_with(&marker);
}

#[test]
fn refusing_an_unsupported_revision_is_an_error_in_core_and_a_warning_in_spec() {
    let args = ["--refuse-unknown-revision"];
    // The fixture refuses every revision but 2024-11-05: the revision no
    // server supports, and 2025-03-26.
    let steps = [
        "2025-03-26 session: initialize for revision 2025-03-26",
        "negotiation session: initialize with the unsupported revision 1900-01-01",
    ];
    for (profile, severity) in [(Profile::Core, Error), (Profile::Spec, Warning)] {
        let report = probe(&args, profile);
        let found: Vec<_> = report
            .findings
            .iter()
            .map(|f| (f.law, f.severity, f.location.clone()))
            .collect();
        assert_eq!(found.len(), steps.len(), "{report:#?}");
        for ((law, found_severity, location), step) in found.iter().zip(steps) {
            assert_eq!(*law, LawId::Initialize);
            assert_eq!(*found_severity, severity);
            assert!(
                matches!(location, Location::Probe { step: s, .. } if s == step),
                "{location:?}"
            );
        }
        for finding in &report.findings {
            assert!(finding.message.starts_with(
                "refused with error -32602 (\"Unsupported protocol version\"); version negotiation answers a result"
            ));
        }
    }
    let spec = probe(&args, Profile::Spec);
    match spec.status(LawId::ToolErrorIsResult) {
        Some(LawStatus::Skipped(reason)) => assert!(
            reason.contains("initialize answered error -32602"),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn laws_lists_the_catalog_for_people() {
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .arg("laws")
        .assert()
        .code(0);
    let stdout = String::from_utf8(output.get_output().stdout.clone()).unwrap();
    for law in LawId::ALL {
        assert!(
            stdout
                .lines()
                .any(|line| line.starts_with(&format!("{law} "))),
            "no line for {law} in\n{stdout}"
        );
    }
    // Every law of the server is checked now; the host's are reserved.
    let catalog = stdout
        .lines()
        .take_while(|line| !line.contains(" requirements of MCP "));
    for line in catalog.filter(|line| line.contains("(reserved)")) {
        assert!(line.starts_with("host-"), "{line}");
    }
    let sorted = stdout
        .lines()
        .find(|line| line.starts_with("tools-list-sorted "))
        .unwrap();
    assert_eq!(
        sorted.split_whitespace().take(4).collect::<Vec<_>>(),
        ["tools-list-sorted", "server", "error", "warning"]
    );
    // The host's laws say so, with their levels per revision.
    // See: #27
    let shutdown = stdout
        .lines()
        .skip_while(|line| !line.starts_with("host-shutdown-order "))
        .take(2)
        .collect::<Vec<_>>();
    assert_eq!(
        shutdown[0].split_whitespace().take(4).collect::<Vec<_>>(),
        ["host-shutdown-order", "host", "warning", "warning"]
    );
    assert_eq!(shutdown[1].trim(), "levels every revision SHOULD");
}

#[test]
fn laws_lists_the_catalog_as_json_lines() {
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .args(["laws", "--format", "json"])
        .assert()
        .code(0);
    let all = crate::util::json_lines(&output.get_output().stdout);
    // The laws come first, each line saying it is one; the requirement
    // registry follows.
    let (lines, requirements): (Vec<_>, Vec<_>) =
        all.iter().partition(|line| line["type"] == "law");
    assert!(
        requirements
            .iter()
            .all(|line| line["type"] == "requirement")
    );
    assert_eq!(all[..lines.len()].iter().collect::<Vec<_>>(), lines);
    let ids: Vec<&str> = lines
        .iter()
        .map(|line| line["id"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = LawId::ALL.iter().map(|law| law.as_str()).collect();
    assert_eq!(ids, expected);
    let reserved: Vec<&str> = lines
        .iter()
        .filter(|line| line["implemented"] == false)
        .map(|line| line["id"].as_str().unwrap())
        .collect();
    assert_eq!(reserved, Vec::<&str>::new());
    let help = &lines[22];
    assert_eq!(help["core"]["severity"], "error");
    assert_eq!(
        help["core"]["cites"],
        "REQ-C-032 \"Before serving\" (docs/req-c-032.md#before-serving); \
         REQ-C-032 \"Acceptance criteria\" (docs/req-c-032.md#acceptance-criteria) \
         — `<cmd> --help` prints help to stdout, exits 0, and does not read stdin"
    );
    assert!(help["spec"].is_null());
    assert_eq!(help["side"], "server");
    let sides: Vec<&str> = lines
        .iter()
        .filter(|line| line["side"] == "host")
        .map(|line| line["id"].as_str().unwrap())
        .collect();
    assert_eq!(sides.len(), 12, "{sides:?}");
    assert!(sides.iter().all(|id| id.starts_with("host-")));

    // Each requirement: its id, side, level, revisions, law and citation.
    let registry = mcp_replay::laws::registry::REGISTRY;
    assert_eq!(requirements.len(), registry.len());
    for (line, requirement) in requirements.iter().zip(registry) {
        assert_eq!(line["id"], requirement.id);
        assert_eq!(line["side"], requirement.side.as_str());
        assert_eq!(line["level"], requirement.level.as_str());
        assert_eq!(
            line["revisions"].as_array().unwrap().len(),
            requirement.revisions().len()
        );
        assert_eq!(
            line["law"].as_str(),
            requirement.law.map(LawId::as_str),
            "{line}"
        );
        assert!(
            line["cite"].as_str().unwrap().contains("https://"),
            "{line}"
        );
        assert!(!line["says"].as_str().unwrap().is_empty(), "{line}");
    }
    let discover = requirements
        .iter()
        .find(|line| line["id"] == "srv-discover-answers")
        .unwrap();
    assert_eq!(discover["revisions"], serde_json::json!(["2026-07-28"]));
    assert_eq!(discover["law"], "discover");
    assert_eq!(discover["judged"], true);
}

#[test]
fn laws_lists_the_requirements_by_side_and_page() {
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .arg("laws")
        .assert()
        .code(0);
    let stdout = String::from_utf8(output.get_output().stdout.clone()).unwrap();
    let requirements = stdout
        .lines()
        .skip_while(|line| !line.contains(" requirements of MCP 2024-11-05 to 2026-07-28 "))
        .collect::<Vec<_>>();
    assert!(!requirements.is_empty(), "{stdout}");
    let pages: Vec<&str> = requirements
        .iter()
        .filter(|line| line.starts_with("server: ") || line.starts_with("host: "))
        .copied()
        .collect();
    assert!(pages.contains(&"server: basic/transports"), "{pages:?}");
    assert!(pages.contains(&"host: basic/lifecycle"), "{pages:?}");
    let line = requirements
        .iter()
        .find(|line| line.ends_with(" srv-version-unsupported-32022"))
        .unwrap();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        [
            "MUST",
            "2026-07-28",
            "on",
            "discover",
            "srv-version-unsupported-32022"
        ]
    );
    // Progress is judged now (by request-answered-once); the length of a
    // tool's name is not yet. See: #26
    let line = requirements
        .iter()
        .find(|line| line.ends_with(" srv-progress-increases"))
        .unwrap();
    assert!(line.contains(" request-answered-once "), "{line}");
    let line = requirements
        .iter()
        .find(|line| line.contains(" srv-tools-name-length"))
        .unwrap();
    assert!(line.contains(" not judged "), "{line}");
}

#[test]
fn writing_after_end_of_input_breaks_eof_exit_zero() {
    let script = r#""$1"; echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}'"#;
    let command = ServerCommand::new(vec![
        "sh".into(),
        "-c".into(),
        script.into(),
        "goodbye".into(),
        fixture_server().into(),
    ]);
    let report = probes::run(&command, &options(Profile::Core)).unwrap();
    assert_failures(&report, &[(LawId::EofExitZero, Error)]);
    assert_eq!(
        report.findings[0].message,
        "wrote notifications/message after answering every request, with stdin closed"
    );
}

#[test]
fn the_demo_server_holds_every_law_in_both_profiles() {
    let command = ServerCommand::new(vec![
        env!("CARGO_BIN_EXE_mcp-replay").to_owned(),
        "demo-server".to_owned(),
    ]);
    for profile in [Profile::Core, Profile::Spec] {
        let report = probes::run(&command, &options(profile)).unwrap();
        assert_failures(&report, &[]);
    }
}

#[test]
fn a_cursor_never_issued_answered_with_a_page_warns_on_tools_list_valid() {
    // A SHOULD of the pagination page: a warning in both profiles, made by
    // the conversation that followed the pages.
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--page-size", "1", "--lax-cursor"], profile);
        assert_failures(&report, &[(LawId::ToolsListValid, Warning)]);
        let finding = &report.findings[0];
        assert!(
            finding
                .message
                .starts_with("answered a page to a cursor it never issued"),
            "{}",
            finding.message
        );
    }
}

#[test]
fn declared_prompts_and_resources_that_are_served_pass() {
    for args in [
        &["--prompts-resources"][..],
        &["--prompts-resources", "--modern"][..],
    ] {
        for profile in [Profile::Core, Profile::Spec] {
            let report = probe(args, profile);
            assert_failures(&report, &[]);
        }
    }
}

/// Each flaw of `--content-flaw`, caught by its law: `capabilities-honest`
/// (a warning in both profiles) for a declared method not served or a
/// listed resource not read, `invalid-params` for an unknown resource
/// answered with a result (legacy: -32002 is the resources page's example,
/// so a warning under spec).
macro_rules! content_flaws {
    ($($test:ident: $flaw:literal => $law:expr, core $core:expr, spec $spec:expr;)*) => {
        $(
            #[test]
            fn $test() {
                let args = ["--prompts-resources", "--content-flaw", $flaw];
                assert_failures(&probe(&args, Profile::Core), &[($law, $core)]);
                assert_failures(&probe(&args, Profile::Spec), &[($law, $spec)]);
            }
        )*
    };
}

content_flaws! {
    a_declared_prompt_get_not_served_breaks_capabilities_honest: "no-prompt-get" =>
        LawId::CapabilitiesHonest, core Warning, spec Warning;
    a_listed_resource_that_cannot_be_read_breaks_capabilities_honest: "unreadable" =>
        LawId::CapabilitiesHonest, core Warning, spec Warning;
    an_unknown_resource_read_as_empty_contents_breaks_invalid_params: "unknown-uri-result" =>
        LawId::InvalidParams, core Error, spec Warning;
}

/// Templates are optional in the specification: a server that declares
/// resources and does not serve `resources/templates/list` keeps `spec`,
/// and the core profile, whose library serves the list, reports it as its
/// own.
// See: #25
#[test]
fn resource_templates_not_served_are_a_finding_of_core_alone() {
    let args = ["--prompts-resources", "--content-flaw", "no-templates"];
    let core = probe(&args, Profile::Core);
    assert_failures(&core, &[(LawId::CapabilitiesHonest, Warning)]);
    assert!(
        core.findings.iter().all(|finding| finding.core_only),
        "{core:#?}"
    );
    assert_failures(&probe(&args, Profile::Spec), &[]);
}

/// The exit status at end of input and after SIGTERM is the core profile's
/// own rule: its findings say so, and `spec` holds both laws on the same
/// server, which ends within the grace period.
// See: #25
#[test]
fn exit_statuses_are_the_core_profiles_alone() {
    for (law, args) in [
        (LawId::EofExitZero, ["--break", "eof-exit-zero"]),
        (LawId::SigtermExit143, ["--break", "sigterm-exit-143"]),
    ] {
        let core = probe(&args, Profile::Core);
        assert_failures(&core, &[(law, Error)]);
        assert!(
            core.findings.iter().all(|finding| finding.core_only),
            "{core:#?}"
        );
        let spec = probe(&args, Profile::Spec);
        assert_eq!(spec.status(law), Some(&LawStatus::Held), "{spec:#?}");
    }
    // A server still running past the grace period has not ended: that is
    // the specification's own ask, a warning under spec.
    let mut options = options(Profile::Spec);
    options.grace = Duration::from_millis(300);
    let argv = [fixture_server(), "--slow-exit", "4000"].map(str::to_owned);
    let report = probes::run(&ServerCommand::new(argv.to_vec()), &options).unwrap();
    assert_failures(
        &report,
        &[
            (LawId::EofExitZero, Warning),
            (LawId::SigtermExit143, Warning),
        ],
    );
}

/// From the command line, as a server author runs it: under `--profile
/// spec`, a server that exits 0 at SIGTERM, one that ends with a status
/// other than 0 at end of input, and one that declares resources with no
/// templates pass without a warning; under `core` the first two fail and
/// the third is reported.
// See: #25
#[test]
fn the_spec_profile_asks_no_exit_status_and_no_templates() {
    let cases: [(&[&str], Option<i32>); 3] = [
        (&["--break", "sigterm-exit-143"], Some(1)),
        (&["--break", "eof-exit-zero"], Some(1)),
        (
            &["--prompts-resources", "--content-flaw", "no-templates"],
            Some(0),
        ),
    ];
    for (args, core_exit) in cases {
        let run = |profile: &str| {
            let output = assert_cmd::Command::new(crate::util::bin())
                .args([
                    "check",
                    "--no-replay",
                    "--color",
                    "never",
                    "--profile",
                    profile,
                ])
                .arg("--")
                .arg(fixture_server())
                .args(args)
                .timeout(crate::util::STEP)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
            (output.status.code(), stdout)
        };
        let (code, stdout) = run("spec");
        assert_eq!(code, Some(0), "{args:?}: {stdout}");
        assert!(!stdout.contains("WARN"), "{args:?}: {stdout}");
        let (code, stdout) = run("core");
        assert_eq!(code, core_exit, "{args:?}: {stdout}");
        let law = match args[0] {
            "--break" => args[1],
            _ => "capabilities-honest",
        };
        assert!(stdout.contains(law), "{args:?}: {stdout}");
    }
}

/// A server that leaves every request before `initialize` unanswered, as
/// older Python SDK servers do, answers no `server/discover`: the modern
/// session waits for it as long as the server took to answer its other
/// processes (with a margin), not the startup allowance, and goes on on
/// the same process as a client that speaks both eras falls back.
// See: #25
#[test]
fn a_server_deaf_before_initialize_costs_no_startup_allowance() {
    let mut options = options(Profile::Spec);
    // The allowance a first answer would otherwise get.
    options.startup_timeout = Duration::from_secs(120);
    let argv = [fixture_server(), "--deaf-before-initialize"].map(str::to_owned);
    let started = std::time::Instant::now();
    let report = probes::run(&ServerCommand::new(argv.to_vec()), &options).unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(60), "{took:?}: {report:#?}");
    assert!(report.silent.is_none(), "{report:#?}");
    assert_eq!(failures(&report), BTreeMap::new(), "{report:#?}");
    match report.status(LawId::Discover) {
        Some(LawStatus::Skipped(reason)) => assert!(
            reason.starts_with(
                "the server speaks no 2026-07-28: server/discover got no answer within"
            ) && reason.contains("where the server answered another process's first request in"),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
    // The negotiation probe ran on the modern session's process.
    assert_eq!(report.status(LawId::Initialize), Some(&LawStatus::Held));
    assert_eq!(report.status(LawId::Ping), Some(&LawStatus::Held));
}

/// A server whose answers race its exit at end of input (it answers the
/// requests sent while stdin is open, and drops what is in flight when
/// stdin closes, as the Python SDK cancels its work) has `eof-drains` not
/// judged, with the race named, in every run and both profiles: never a
/// finding that comes and goes with the scheduling.
// See: #26
#[test]
fn answers_that_race_the_exit_at_end_of_input_are_not_judged() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--eof-cancels", "300"], profile);
        assert_eq!(failures(&report), BTreeMap::new(), "{report:#?}");
        match report.status(LawId::EofDrains) {
            Some(LawStatus::Skipped(reason)) => assert!(
                reason.starts_with("not judged on this run: 3 of 3 requests sent right before stdin closed were never answered")
                    && reason.contains("races the server's exit against its own handlers"),
                "{reason}"
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(report.status(LawId::EofExitZero), Some(&LawStatus::Held));
    }
}

#[test]
fn an_unknown_resource_answered_in_2026_is_an_error_in_both_profiles() {
    let args = [
        "--modern",
        "--prompts-resources",
        "--content-flaw",
        "unknown-uri-result",
    ];
    let report = probe(&args, Profile::Spec);
    let modern: Vec<_> = report
        .findings
        .iter()
        .filter(|f| {
            f.law == LawId::InvalidParams && f.era == Some(mcp_replay::revision::Era::Modern)
        })
        .collect();
    assert_eq!(modern.len(), 1, "{report:#?}");
    assert_eq!(modern[0].severity, Error);
    assert!(
        modern[0]
            .message
            .ends_with("a resource the server does not have is an error (-32602)"),
        "{}",
        modern[0].message
    );
}

#[test]
fn a_2025_03_26_server_that_answers_a_batch_with_one_array_passes() {
    for profile in [Profile::Core, Profile::Spec] {
        assert_failures(&probe(&["--batches"], profile), &[]);
    }
}

#[test]
fn a_batch_answered_line_by_line_breaks_request_answered_once() {
    // JSON-RPC 2.0 §6 says SHOULD: an error under core, a warning under spec.
    let args = ["--batches", "--batch-flaw", "one-by-one"];
    let report = probe(&args, Profile::Core);
    assert_failures(&report, &[(LawId::RequestAnsweredOnce, Error)]);
    assert_eq!(
        report.findings[0].message,
        "answered the batch's two requests on 2 lines (0 of them arrays); a batch is answered with one array"
    );
    assert_failures(
        &probe(&args, Profile::Spec),
        &[(LawId::RequestAnsweredOnce, Warning)],
    );
}

#[test]
fn a_notification_of_a_batch_answered_breaks_notification_unanswered() {
    let args = ["--batches", "--batch-flaw", "answers-notifications"];
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&args, profile);
        assert_failures(&report, &[(LawId::NotificationUnanswered, Error)]);
        let Location::Probe { step, .. } = &report.findings[0].location else {
            panic!("{report:#?}");
        };
        assert_eq!(
            step,
            "2025-03-26 session: a batch of tools/list, an unknown notification and ping"
        );
    }
}
