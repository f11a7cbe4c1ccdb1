//! The modern era against the fixture server: each `--modern-flaw` is
//! caught by its law id in both profiles, with every other law held; the
//! modern-only and dual-era fixtures pass in both profiles; the tool laws
//! are graded in 2026-07-28 for a modern-only server and in each era for a
//! dual-era one; findings say which era they belong to.

use mcp_replay::check::probes::ProbeReport;
use mcp_replay::laws::{LawId, Profile, Severity};
use mcp_replay::report::{LawStatus, Location};
use mcp_replay::revision::Era;

use crate::laws::{failures, probe};
use crate::util::{fixture_server, json_lines};

use Severity::{Error, Warning};

/// The reason a modern-only server's legacy laws are skipped with.
const MODERN_ONLY: &str = "the server speaks 2026-07-28 only";

/// Asserts that exactly the laws in `expected` failed, with those
/// severities, and that every other law held, or was skipped for a reason
/// the server's era gives: under spec the revision a legacy session
/// negotiated, and for a modern-only server its having no legacy session.
fn assert_only(report: &ProbeReport, profile: Profile, expected: &[(LawId, Severity)]) {
    let mut actual: Vec<(LawId, Severity)> = failures(report)
        .into_iter()
        .flat_map(|(law, severities)| severities.into_iter().map(move |s| (law, s)))
        .collect();
    actual.sort();
    actual.dedup();
    let mut expected = expected.to_vec();
    expected.sort();
    assert_eq!(actual, expected, "{profile:?}: {report:#?}");
    for outcome in &report.outcomes {
        if let LawStatus::Skipped(reason) = &outcome.status {
            let negotiated = profile == Profile::Spec
                && matches!(
                    outcome.law,
                    LawId::ToolErrorIsResult | LawId::ToolsListSorted
                )
                && reason.contains("the probe asked revision");
            assert!(
                negotiated || reason.starts_with(MODERN_ONLY),
                "{profile:?}: {} skipped: {reason}",
                outcome.law
            );
        }
    }
}

/// The fixture with `args`, probed in both profiles: exactly `expected`
/// fails, and each finding belongs to the modern era.
fn caught(args: &[&str], expected: &[(LawId, Severity)]) {
    for profile in [Profile::Core, Profile::Spec] {
        caught_in(args, profile, expected);
    }
}

/// [`caught`] in one profile.
fn caught_in(args: &[&str], profile: Profile, expected: &[(LawId, Severity)]) {
    let report = probe(args, profile);
    assert_only(&report, profile, expected);
    for finding in &report.findings {
        assert_eq!(finding.era, Some(Era::Modern), "{finding:#?}");
        let Location::Probe { step, .. } = &finding.location else {
            panic!("{finding:#?}");
        };
        assert!(
            step.starts_with("modern session: ")
                || step.starts_with("stateless session: ")
                || step.starts_with("conversation session: "),
            "{step}"
        );
    }
}

macro_rules! flaws {
    ($($test:ident: $flaw:literal => $($law:expr),+;)*) => {
        $(
            #[test]
            fn $test() {
                caught(&["--modern-flaw", $flaw], &[$(($law, Error)),+]);
            }
        )*
    };
}

flaws! {
    a_result_without_result_type_breaks_schema: "no-result-type" => LawId::Schema;
    // A cache hint out of range breaks the cacheable result's schema too.
    wrong_cache_hints_break_list_cache_hints: "bad-cache-hints" =>
        LawId::ListCacheHints, LawId::Schema;
    the_draft_version_error_breaks_discover: "draft-version-error" => LawId::Discover;
    optional_meta_breaks_discover: "meta-optional" => LawId::Discover;
    a_request_on_stdout_breaks_schema: "server-request" => LawId::Schema;
    ping_answered_on_a_modern_request_breaks_unknown_method: "answers-ping" =>
        LawId::UnknownMethod;
    a_result_of_the_wrong_shape_breaks_schema: "wrong-shape" => LawId::Schema;
    a_request_that_needs_an_earlier_one_breaks_discover: "stateful" => LawId::Discover;
    a_request_refused_for_want_of_client_info_breaks_discover: "requires-client-info" =>
        LawId::Discover;
    // The fresh process sends its lists and call before its
    // server/discover. See: #26
    a_list_refused_before_server_discover_breaks_discover: "needs-discover" => LawId::Discover;
}

#[test]
fn results_that_name_no_server_warn_on_discover() {
    // A SHOULD of the revision: a warning in both profiles, for the
    // DiscoverResult and the tool list alike.
    let args = ["--modern-flaw", "no-server-info"];
    caught(&args, &[(LawId::Discover, Warning)]);
    let report = probe(&args, Profile::Core);
    let messages: Vec<&str> = report.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "the server/discover result has no `_meta` `io.modelcontextprotocol/serverInfo`; a 2026-07-28 server should name itself in every result",
            "the tools/list result has no `_meta` `io.modelcontextprotocol/serverInfo`; a 2026-07-28 server should name itself in every result",
        ],
        "{report:#?}"
    );
}

/// The versions -32022 lists for a client to retry from are the ones the
/// DiscoverResult names; the revision implies it and does not say it: a
/// warning in both profiles. See: #19
#[test]
fn an_unsupported_version_error_that_lists_other_versions_warns_on_discover() {
    let args = ["--modern-flaw", "mismatched-supported"];
    caught(&args, &[(LawId::Discover, Warning)]);
    let report = probe(&args, Profile::Spec);
    assert!(
        report.findings.iter().any(|f| f.message
            == "answered -32022 with `data.supported` [2026-07-28, 2027-01-01], where the DiscoverResult's `supportedVersions` are [2026-07-28]: a client retries with a version from the error's list"),
        "{report:#?}"
    );
}

#[test]
fn a_discover_result_that_changes_within_its_ttl_breaks_discover() {
    // The caching page lets a client keep the result for its TTL, and says
    // nothing of a server that changes it: an error under core, a warning
    // under spec.
    let args = ["--modern-flaw", "unstable-discover"];
    caught_in(&args, Profile::Core, &[(LawId::Discover, Error)]);
    caught_in(&args, Profile::Spec, &[(LawId::Discover, Warning)]);
    let report = probe(&args, Profile::Core);
    assert_eq!(
        report.findings[0].location,
        Location::Probe {
            command: report.command.clone(),
            step: "modern session: server/discover again, within its ttlMs of 60000".to_owned(),
        }
    );
}

/// The tool laws, which a modern-only server is held to in 2026-07-28.
const TOOL_LAWS: [LawId; 6] = [
    LawId::ToolsListValid,
    LawId::ToolsListSorted,
    LawId::InvalidParams,
    LawId::UnknownTool,
    LawId::ToolErrorIsResult,
    LawId::CapabilitiesHonest,
];

/// Each flaw of a modern-only server's tools, caught by its law in the
/// modern era: an error under core, a warning under spec, where the
/// revision says SHOULD.
macro_rules! modern_only_flaws {
    ($($test:ident: $flaw:literal => $law:expr;)*) => {
        $(
            #[test]
            fn $test() {
                let args = ["--modern-only", "--modern-flaw", $flaw];
                caught_in(&args, Profile::Core, &[($law, Error)]);
                caught_in(&args, Profile::Spec, &[($law, Warning)]);
            }
        )*
    };
}

modern_only_flaws! {
    an_unsorted_modern_tool_list_breaks_tools_list_sorted: "unsorted-tools" =>
        LawId::ToolsListSorted;
    invalid_modern_arguments_answered_with_an_error_break_tool_error_is_result:
        "invalid-arguments-error" => LawId::ToolErrorIsResult;
    an_unknown_modern_tool_answered_with_a_result_breaks_unknown_tool:
        "unknown-tool-result" => LawId::UnknownTool;
}

/// Each flaw of a dual-era server's modern tools, which its legacy
/// conversation does not show: caught in the modern era, with the legacy
/// era's verdict beside it on the law's outcome.
macro_rules! dual_era_flaws {
    ($($test:ident: $flaw:literal => $law:expr;)*) => {
        $(
            #[test]
            fn $test() {
                let args = ["--modern-flaw", $flaw];
                for (profile, severity) in [(Profile::Core, Error), (Profile::Spec, Warning)] {
                    caught_in(&args, profile, &[($law, severity)]);
                    let report = probe(&args, profile);
                    let outcome = report.outcomes.iter().find(|o| o.law == $law).unwrap();
                    assert_eq!(outcome.status, LawStatus::Failed, "{report:#?}");
                    let eras: Vec<Era> = outcome.eras.iter().map(|(era, _)| *era).collect();
                    assert_eq!(eras, [Era::Legacy, Era::Modern], "{outcome:#?}");
                    assert_eq!(outcome.eras[1].1, LawStatus::Failed, "{outcome:#?}");
                    assert_ne!(outcome.eras[0].1, LawStatus::Failed, "{outcome:#?}");
                }
            }
        )*
    };
}

dual_era_flaws! {
    a_dual_era_server_unsorted_only_in_2026_breaks_tools_list_sorted: "unsorted-tools" =>
        LawId::ToolsListSorted;
    a_dual_era_server_with_modern_invalid_arguments_errors_breaks_tool_error_is_result:
        "invalid-arguments-error" => LawId::ToolErrorIsResult;
    a_dual_era_server_whose_modern_unknown_tool_is_a_result_breaks_unknown_tool:
        "unknown-tool-result" => LawId::UnknownTool;
}

#[test]
fn a_modern_only_tool_finding_names_the_modern_session() {
    let report = probe(
        &["--modern-only", "--modern-flaw", "unknown-tool-result"],
        Profile::Core,
    );
    assert_eq!(report.findings.len(), 1, "{report:#?}");
    assert_eq!(
        report.findings[0].location,
        Location::Probe {
            command: report.command.clone(),
            step: "modern session: tools/call of the unknown tool mcp-replay-no-such-tool"
                .to_owned(),
        }
    );
    assert!(
        report.findings[0]
            .message
            .starts_with("answered the result {"),
        "{}",
        report.findings[0].message
    );
}

#[test]
fn a_dual_era_server_has_its_tool_laws_graded_in_each_era() {
    // The broken tool answers in either era: each era grades the law, and
    // under core, where both fail it, the outcome needs no verdict per era.
    let report = probe(
        &["--modern", "--break", "tool-error-is-result"],
        Profile::Core,
    );
    let eras: Vec<Option<Era>> = report
        .findings
        .iter()
        .filter(|f| f.law == LawId::ToolErrorIsResult)
        .map(|f| f.era)
        .collect();
    assert!(eras.contains(&Some(Era::Legacy)), "{report:#?}");
    assert!(eras.contains(&Some(Era::Modern)), "{report:#?}");
    let outcome = report
        .outcomes
        .iter()
        .find(|o| o.law == LawId::ToolErrorIsResult)
        .unwrap();
    assert_eq!(outcome.status, LawStatus::Failed);
    assert!(outcome.eras.is_empty(), "{outcome:#?}");
}

#[test]
fn missing_cache_hints_break_list_cache_hints() {
    caught(
        &["--break", "list-cache-hints"],
        &[(LawId::ListCacheHints, Error), (LawId::Schema, Error)],
    );
}

#[test]
fn a_stateful_server_is_named_by_its_fresh_process() {
    let report = probe(&["--modern-flaw", "stateful"], Profile::Core);
    let finding = &report.findings[0];
    assert_eq!(
        finding.location,
        Location::Probe {
            command: report.command.clone(),
            // The fresh process sends every list and call before its
            // `server/discover`, so that a server that needs one first
            // shows it. See: #26
            step: "stateless session: tools/call of `add` with no arguments (`a` is required) as the first tools/call of a fresh process, after ping".to_owned(),
        }
    );
    assert!(
        finding
            .message
            .starts_with("answered error -32600 (\"call tools/list first\"), where a process"),
        "{}",
        finding.message
    );
}

#[test]
fn a_modern_only_server_passes_both_profiles_with_its_handshake_laws_skipped() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--modern-only"], profile);
        assert_only(&report, profile, &[]);
        // What it owes in every era (the tool laws too) is held in the
        // modern one; what only the handshake has is skipped; `initialize`
        // is its refusal, which names the versions it serves.
        for law in [
            LawId::Initialize,
            LawId::Discover,
            LawId::ListCacheHints,
            LawId::UnknownMethod,
            LawId::NotificationUnanswered,
            LawId::RequestAnsweredOnce,
            LawId::CancelTolerated,
            LawId::ParseErrorKeepsServing,
            LawId::EofDrains,
            LawId::EofExitZero,
            LawId::SigtermExit143,
            LawId::Schema,
        ]
        .into_iter()
        .chain(TOOL_LAWS)
        {
            assert_eq!(
                report.status(law),
                Some(&LawStatus::Held),
                "{law}: {report:#?}"
            );
        }
        match report.status(LawId::Ping) {
            Some(LawStatus::Skipped(reason)) => {
                assert!(reason.starts_with(MODERN_ONLY), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_modern_only_refusal_that_names_no_version_breaks_initialize() {
    let args = ["--modern-only", "--modern-flaw", "unnamed-versions"];
    for (profile, severity) in [(Profile::Core, Error), (Profile::Spec, Warning)] {
        let report = probe(&args, profile);
        assert_only(&report, profile, &[(LawId::Initialize, severity)]);
        assert_eq!(report.findings.len(), 1, "{report:#?}");
        assert_eq!(
            report.findings[0].message,
            "a modern-only server refused initialize with error -32601 (\"method not found: initialize\"), which names none of the versions it serves; the error should list them (`data.supported`)"
        );
    }
}

#[test]
fn a_dual_era_server_passes_both_profiles_in_both_eras() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--modern"], profile);
        assert_only(&report, profile, &[]);
        for outcome in &report.outcomes {
            if !matches!(outcome.status, LawStatus::Skipped(_)) {
                assert_eq!(outcome.status, LawStatus::Held, "{}", outcome.law);
            }
        }
        assert_eq!(report.status(LawId::Discover), Some(&LawStatus::Held));
        assert_eq!(report.status(LawId::Ping), Some(&LawStatus::Held));
    }
}

#[test]
fn a_dual_era_server_gets_findings_in_each_era() {
    // A cancellation answered is one in either era, and the report keeps
    // one finding in each.
    let report = probe(&["--modern", "--break", "cancel-tolerated"], Profile::Core);
    let eras: Vec<Option<Era>> = report
        .findings
        .iter()
        .filter(|f| f.law == LawId::CancelTolerated)
        .map(|f| f.era)
        .collect();
    assert!(eras.contains(&Some(Era::Legacy)), "{report:#?}");
    assert!(eras.contains(&Some(Era::Modern)), "{report:#?}");
}

#[test]
fn json_findings_name_their_era() {
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .args(["check", "--no-replay", "--format", "json", "--"])
        .args([fixture_server(), "--modern-flaw", "answers-ping"])
        .assert()
        .code(1);
    let lines = json_lines(&output.get_output().stdout);
    let findings: Vec<_> = lines.iter().filter(|l| l["type"] == "finding").collect();
    assert_eq!(findings.len(), 1, "{lines:#?}");
    assert_eq!(findings[0]["law"], "unknown-method");
    assert_eq!(findings[0]["era"], "modern");
    let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
        .args(["check", "--no-replay", "--format", "json", "--"])
        .args([fixture_server(), "--break", "ping"])
        .assert()
        .code(1);
    let lines = json_lines(&output.get_output().stdout);
    let finding = lines.iter().find(|l| l["type"] == "finding").unwrap();
    assert_eq!(finding["law"], "ping");
    assert_eq!(finding["era"], "legacy");
}

#[test]
fn a_listen_stream_served_as_the_revision_asks_passes() {
    for args in [
        &["--modern", "--listen"][..],
        &["--modern-only", "--listen"][..],
    ] {
        for profile in [Profile::Core, Profile::Spec] {
            let report = probe(args, profile);
            assert_only(&report, profile, &[]);
            assert_eq!(
                report.status(LawId::RequestAnsweredOnce),
                Some(&LawStatus::Held),
                "{report:#?}"
            );
        }
    }
}

/// A dual-era server that serves each request in the era its own form
/// names: the modern session's every request, fences too, is a 2026-07-28
/// request, so nothing it sends is answered as a legacy one.
#[test]
fn a_server_that_serves_each_request_in_its_own_era_passes_both_profiles() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--modern-per-request"], profile);
        assert_only(&report, profile, &[]);
        for law in [LawId::Discover, LawId::Schema, LawId::Ping] {
            assert_eq!(report.status(law), Some(&LawStatus::Held), "{law}");
        }
    }
}

/// Each flaw of a `subscriptions/listen` stream, caught in the modern era
/// in both profiles (`capabilities-honest` is an error here: the revision's
/// MUST), with the message that names it.
macro_rules! listen_flaws {
    ($($test:ident: $flaw:literal => $law:expr, $message:literal;)*) => {
        $(
            #[test]
            fn $test() {
                let args = ["--modern", "--listen", "--listen-flaw", $flaw];
                caught(&args, &[($law, Error)]);
                let report = probe(&args, Profile::Core);
                assert!(
                    report.findings.iter().any(|f| f.message.contains($message)),
                    "{report:#?}"
                );
            }
        )*
    };
}

listen_flaws! {
    a_stream_without_its_acknowledgement_first_breaks_request_answered_once: "no-ack" =>
        LawId::RequestAnsweredOnce, "the stream's first message is";
    // A list notification without its stream's id is one outside a stream.
    a_stream_notification_without_its_subscription_breaks_capabilities_honest: "untagged" =>
        LawId::CapabilitiesHonest, "sent 1 notifications/tools/list_changed outside a subscriptions/listen stream";
    a_stream_notification_after_the_cancel_breaks_request_answered_once: "after-cancel" =>
        LawId::RequestAnsweredOnce, "sent {\"jsonrpc\"";
    a_list_change_outside_a_stream_breaks_capabilities_honest: "unsolicited" =>
        LawId::CapabilitiesHonest, "notifications/tools/list_changed outside a subscriptions/listen stream";
}

#[test]
fn a_law_the_eras_differ_on_shows_both_verdicts_in_each_format() {
    let run = |format: &str| {
        let output = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay")
            .args(["check", "--no-replay", "--format", format, "--"])
            .args([fixture_server(), "--modern-flaw", "unsorted-tools"])
            .assert()
            .code(1);
        String::from_utf8(output.get_output().stdout.clone()).unwrap()
    };
    let human = run("human");
    assert!(
        human.contains("  FAIL tools-list-sorted  (legacy era: PASS; modern era: FAIL)\n"),
        "{human}"
    );
    let lines = json_lines(run("json").as_bytes());
    let law = lines
        .iter()
        .find(|l| l["type"] == "law" && l["law"] == "tools-list-sorted")
        .unwrap();
    assert_eq!(law["status"], "fail");
    assert_eq!(
        law["eras"],
        serde_json::json!({"legacy": "pass", "modern": "fail"})
    );
    // Counted once: one law line per law.
    let summary = lines.iter().find(|l| l["type"] == "summary").unwrap();
    let laws = lines.iter().filter(|l| l["type"] == "law").count();
    assert_eq!(summary["laws"], laws, "{summary}");
}

/// A server that refuses `initialize` with -32022 naming 2026-07-28 claims
/// the modern era: lacking `server/discover` is its finding, under
/// `discover`, and the handshake it rightly refuses is not asked of it.
#[test]
fn a_modern_server_without_server_discover_breaks_discover_not_initialize() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--era-flaw", "no-discover"], profile);
        let failed: Vec<LawId> = failures(&report).into_keys().collect();
        assert_eq!(failed, [LawId::Discover], "{profile:?}: {report:#?}");
        let finding = &report.findings[0];
        assert_eq!(finding.severity, Error);
        assert_eq!(finding.era, Some(Era::Modern));
        assert!(
            finding.message.contains("must implement server/discover"),
            "{}",
            finding.message
        );
        assert!(
            report
                .findings
                .iter()
                .all(|f| !f.message.contains("version negotiation")),
            "{report:#?}"
        );
        match report.status(LawId::Ping) {
            Some(LawStatus::Skipped(reason)) => {
                assert!(reason.starts_with(MODERN_ONLY), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }
}

/// A server that exits when the first message of its process is
/// `notifications/cancelled` (as rmcp 3.11 does) breaks `cancel-tolerated`,
/// a SHOULD: an error under core, a warning under spec.
#[test]
fn a_server_that_exits_on_a_cancellation_first_breaks_cancel_tolerated() {
    for (profile, severity) in [(Profile::Core, Error), (Profile::Spec, Warning)] {
        let report = probe(&["--era-flaw", "cancel-first-exits"], profile);
        let failed: Vec<(LawId, Vec<Severity>)> = failures(&report).into_iter().collect();
        assert_eq!(
            failed,
            [(LawId::CancelTolerated, vec![severity])],
            "{profile:?}: {report:#?}"
        );
        let finding = &report.findings[0];
        assert_eq!(
            finding.location,
            Location::Probe {
                command: report.command.clone(),
                step: "2025-03-26 session: notifications/cancelled as the first message, then initialize for revision 2025-03-26".to_owned(),
            }
        );
        assert!(
            finding.message.contains("exited with status 1"),
            "{}",
            finding.message
        );
    }
}

/// A successful `tools/call` is a `CallToolResult`, chosen by its
/// `resultType`: the modern session calls a tool with valid arguments, and
/// a complete result without `content`, or with a block of no revision's
/// type, breaks `schema`.
#[test]
fn a_successful_modern_call_without_content_breaks_schema() {
    caught(
        &["--era-flaw", "call-without-content"],
        &[(LawId::Schema, Error)],
    );
    let report = probe(&["--era-flaw", "call-without-content"], Profile::Core);
    let finding = &report.findings[0];
    assert_eq!(
        finding.location,
        Location::Probe {
            command: report.command.clone(),
            step: r#"modern session: tools/call of `add` with valid arguments {"a":0,"b":0}"#
                .to_owned(),
        }
    );
    assert!(
        finding
            .message
            .contains("missing required property `content`"),
        "{}",
        finding.message
    );
}

#[test]
fn a_content_block_of_no_revision_breaks_schema() {
    caught(
        &["--era-flaw", "unknown-content-type"],
        &[(LawId::Schema, Error)],
    );
}

/// A server that answers a `ping` first in its process as a legacy one
/// (as rmcp 3.11 does), and -32601 after any modern request, is caught by
/// the fresh process that gets the modern `ping` first: its answer depends
/// on what came before (`discover`), a removed method is answered
/// (`unknown-method`), and `{}` has no `resultType` (`schema`).
#[test]
fn a_first_ping_answered_as_a_legacy_one_breaks_discover() {
    caught(
        &["--era-flaw", "first-ping-legacy"],
        &[
            (LawId::Discover, Error),
            (LawId::UnknownMethod, Error),
            (LawId::Schema, Error),
        ],
    );
    let report = probe(&["--era-flaw", "first-ping-legacy"], Profile::Spec);
    let finding = report
        .findings
        .iter()
        .find(|f| f.law == LawId::Discover)
        .unwrap();
    assert_eq!(
        finding.location,
        Location::Probe {
            command: report.command.clone(),
            step: "stateless session: ping on a 2026-07-28 request as the first request of a fresh process".to_owned(),
        }
    );
    assert!(
        finding.message.starts_with("answered the result {}, where a process that had answered other requests answered error -32601"),
        "{}",
        finding.message
    );
}

/// A server that leaves the cache hints out of the first `tools/list` of
/// its process only is caught by the fresh process that gets `tools/list`
/// first.
#[test]
fn a_first_tool_list_without_cache_hints_breaks_discover() {
    caught(
        &["--era-flaw", "first-list-without-hints"],
        &[
            (LawId::Discover, Error),
            (LawId::ListCacheHints, Error),
            (LawId::Schema, Error),
        ],
    );
}

/// A stream still open at end of input is closed with its result, which
/// the fixture sends; one left without it is a warning (the spec says
/// should) in both profiles. See: #19
#[test]
fn a_listen_stream_left_without_its_closing_result_warns() {
    let args = ["--modern", "--listen", "--listen-flaw", "no-close"];
    caught(&args, &[(LawId::RequestAnsweredOnce, Warning)]);
    let report = probe(&args, Profile::Spec);
    assert!(
        report.findings.iter().any(|f| f
            .message
            .starts_with("the listen stream got no closing result at end of input")
            && matches!(&f.location, Location::Probe { step, .. }
            if step == "modern session: subscriptions/listen, then end of input")),
        "{report:#?}"
    );
}

/// `input_required`: the tool called with valid arguments asks for input
/// first. A result with only `requestState`, answered on the retry that
/// echoes it, passes both profiles; each way to get it wrong is caught in
/// the modern era, with the message that names it. See: #19
macro_rules! input_required {
    ($($test:ident: $mode:literal => $law:expr, $severity:expr, $message:literal;)*) => {
        $(
            #[test]
            fn $test() {
                let args = ["--modern", "--input-required", $mode];
                caught(&args, &[($law, $severity)]);
                let report = probe(&args, Profile::Core);
                assert!(
                    report.findings.iter().any(|f| f.message.contains($message)),
                    "{report:#?}"
                );
            }
        )*
    };
}

input_required! {
    an_input_required_result_with_neither_field_breaks_schema: "bare" =>
        LawId::Schema, Error, "has neither `inputRequests` nor `requestState`";
    an_input_required_result_asking_for_an_undeclared_capability_breaks_schema: "asks" =>
        LawId::Schema, Error, "asks for `confirm`, a elicitation/create request, but the request's clientCapabilities declared no elicitation capability";
    a_retry_with_the_given_state_answered_with_an_error_warns_on_schema: "retry-error" =>
        LawId::Schema, Warning, "to the retry that echoed its requestState";
    a_server_that_exits_at_a_forged_request_state_breaks_request_answered_once: "forged-exits" =>
        LawId::RequestAnsweredOnce, Error, "the server exited with status 1 (stderr ends: ";
}

#[test]
fn an_input_required_result_answered_on_its_retry_passes_both_profiles() {
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&["--modern", "--input-required", "state"], profile);
        assert_only(&report, profile, &[]);
        assert_eq!(report.status(LawId::Schema), Some(&LawStatus::Held));
    }
}

/// The same for a declared prompt: `prompts/get` may ask for input too,
/// and its `InputRequiredResult` is held to the same shape and retried
/// with its `requestState`. See: #19
#[test]
fn a_prompt_that_asks_for_input_is_held_to_its_shape_and_retried() {
    let ok = probe(
        &[
            "--modern",
            "--prompts-resources",
            "--input-required",
            "state",
        ],
        Profile::Spec,
    );
    assert_only(&ok, Profile::Spec, &[]);
    let bare = probe(
        &[
            "--modern",
            "--prompts-resources",
            "--input-required",
            "bare",
        ],
        Profile::Spec,
    );
    let steps: Vec<&str> = bare
        .findings
        .iter()
        .filter(|f| f.law == LawId::Schema)
        .filter_map(|f| match &f.location {
            Location::Probe { step, .. } => Some(step.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        steps.contains(&"modern session: the input_required answer to prompts/get"),
        "{bare:#?}"
    );
}
