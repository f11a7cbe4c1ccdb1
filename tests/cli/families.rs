//! The families a server declares beside its tools, against the fixture
//! server: prompts, resources beyond one read, subscriptions, completion,
//! logging, the pagination of every list, cache hints on every cacheable
//! result and icons. A server that serves each as its revision asks passes
//! both profiles, in both eras; each flaw is caught by its law, with the
//! requirement it breaks. See: #26

use mcp_replay::check::probes::ProbeReport;
use mcp_replay::laws::{LawId, Profile, Severity};
use mcp_replay::report::LawStatus;

use crate::laws::{failures, probe};

use Severity::{Error, Warning};

/// Every family, declared and served.
const ALL: [&str; 6] = [
    "--prompts-resources",
    "--completions",
    "--logging",
    "--subscribe",
    "--icons",
    "--page-size=1",
];

/// The fixture with every family and `extra`.
fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args: Vec<&str> = ALL.to_vec();
    args.extend_from_slice(extra);
    args
}

/// The laws with findings and their severities, deduplicated.
fn found(report: &ProbeReport) -> Vec<(LawId, Severity)> {
    let mut found: Vec<(LawId, Severity)> = failures(report)
        .into_iter()
        .flat_map(|(law, severities)| severities.into_iter().map(move |s| (law, s)))
        .collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn a_server_that_serves_every_family_passes_both_profiles_in_both_eras() {
    for era in [&[][..], &["--modern"][..]] {
        for profile in [Profile::Core, Profile::Spec] {
            let report = probe(&args(era), profile);
            assert_eq!(found(&report), [], "{era:?} {profile:?}: {report:#?}");
            for outcome in &report.outcomes {
                assert!(
                    !matches!(outcome.status, LawStatus::Failed),
                    "{}",
                    outcome.law
                );
            }
            let mut observed = vec![
                "srv-prompts-list-served",
                "srv-prompts-errors",
                "srv-resources-list-served",
                "srv-resources-listed-readable",
                "srv-completions-served",
                "srv-completions-errors",
                "srv-pagination-stable-cursors",
                "srv-pagination-invalid-cursor",
            ];
            if era.is_empty() {
                observed.extend([
                    "srv-resources-subscribe-served",
                    "srv-resources-updated-subscribed",
                    "srv-logging-set-level",
                    "srv-logging-invalid-level",
                    "srv-logging-respects-level",
                ]);
            } else {
                observed.extend([
                    "srv-caching-hints",
                    "srv-caching-scope-every-page",
                    "srv-icons-src-uri",
                    "srv-icons-sizes",
                    "srv-logging-unknown-level",
                    "srv-logging-only-when-asked",
                ]);
            }
            for id in observed {
                assert!(
                    report.coverage.observed.contains(id),
                    "{era:?} {profile:?}: {id} not observed: {:?}",
                    report.coverage.missed.get(id)
                );
            }
        }
    }
}

/// A family the server does not declare is not judged, and its
/// requirements are not observed, because the capability is not declared.
#[test]
fn a_family_not_declared_is_not_observed_and_says_why() {
    let report = probe(&[], Profile::Core);
    for (id, capability) in [
        ("srv-prompts-list-served", "prompts"),
        ("srv-completions-served", "completions"),
        ("srv-logging-set-level", "logging"),
        ("srv-resources-subscribe-served", "resources.subscribe"),
    ] {
        let why = &report.coverage.missed[id];
        assert_eq!(
            why,
            &format!("the server does not declare the `{capability}` capability")
        );
    }
}

/// Each flaw of a family, caught by its law in both profiles, with the
/// requirement it breaks named on a finding.
macro_rules! family_flaws {
    ($($test:ident: [$($arg:literal),*] => $law:expr, $severity:expr, $requirement:literal;)*) => {
        $(
            #[test]
            fn $test() {
                let args = args(&[$($arg),*]);
                for profile in [Profile::Core, Profile::Spec] {
                    let report = probe(&args, profile);
                    assert_eq!(found(&report), [($law, $severity)], "{profile:?}: {report:#?}");
                    assert!(
                        report.findings.iter().any(|f| f.law == $law
                            && f.requirement.unwrap_or($requirement) == $requirement),
                        "{report:#?}"
                    );
                }
            }
        )*
    };
}

family_flaws! {
    an_unknown_prompt_answered_with_a_result_warns_on_invalid_params:
        ["--content-flaw", "unknown-prompt-result"] =>
        LawId::InvalidParams, Warning, "srv-prompts-errors";
    a_prompt_got_without_its_argument_warns_on_invalid_params:
        ["--content-flaw", "missing-argument-result"] =>
        LawId::InvalidParams, Warning, "srv-prompts-errors";
    a_resource_list_that_never_ends_breaks_capabilities_honest:
        ["--content-flaw", "endless-pages"] =>
        LawId::CapabilitiesHonest, Warning, "srv-pagination-stable-cursors";
    completion_not_served_breaks_capabilities_honest:
        ["--completion-flaw", "not-served"] =>
        LawId::CapabilitiesHonest, Warning, "srv-completions-served";
    more_than_100_completions_break_schema: ["--completion-flaw", "too-many"] =>
        LawId::Schema, Error, "srv-completions-result";
    a_completion_of_an_unknown_prompt_warns_on_invalid_params:
        ["--completion-flaw", "unknown-ref-result"] =>
        LawId::InvalidParams, Warning, "srv-completions-errors";
    set_level_not_served_breaks_capabilities_honest: ["--logging-flaw", "no-set-level"] =>
        LawId::CapabilitiesHonest, Warning, "srv-logging-set-level";
    an_unknown_log_level_accepted_warns_on_invalid_params: ["--logging-flaw", "any-level"] =>
        LawId::InvalidParams, Warning, "srv-logging-invalid-level";
    log_messages_below_the_level_set_warn: ["--logging-flaw", "ignores-level"] =>
        LawId::CapabilitiesHonest, Warning, "srv-logging-respects-level";
    subscribe_not_served_breaks_capabilities_honest: ["--subscribe-flaw", "not-served"] =>
        LawId::CapabilitiesHonest, Warning, "srv-resources-subscribe-served";
    an_update_for_a_resource_not_subscribed_to_warns: ["--subscribe-flaw", "other-uri"] =>
        LawId::CapabilitiesHonest, Warning, "srv-resources-updated-subscribed";
    // On 2026-07-28.
    pages_of_one_list_in_two_cache_scopes_break_list_cache_hints:
        ["--modern", "--content-flaw", "mixed-scope"] =>
        LawId::ListCacheHints, Error, "srv-caching-scope-every-page";
    an_unknown_log_level_in_meta_accepted_warns_on_invalid_params:
        ["--modern", "--logging-flaw", "any-level"] =>
        LawId::InvalidParams, Warning, "srv-logging-unknown-level";
    log_messages_no_request_asked_for_break_capabilities_honest:
        ["--modern", "--logging-flaw", "unasked"] =>
        LawId::CapabilitiesHonest, Error, "srv-logging-only-when-asked";
    an_icon_whose_src_is_no_uri_breaks_schema: ["--modern", "--icon-flaw", "not-a-uri"] =>
        LawId::Schema, Error, "srv-icons-src-uri";
    an_icon_of_another_scheme_warns_on_schema: ["--modern", "--icon-flaw", "odd-scheme"] =>
        LawId::Schema, Warning, "srv-icons-src-uri";
    icon_sizes_of_no_shape_warn_on_schema: ["--modern", "--icon-flaw", "bad-sizes"] =>
        LawId::Schema, Warning, "srv-icons-sizes";
}

/// A cursor never issued answered with a page warns on every list: the
/// tool list's under `tools-list-valid`, the others' under
/// `invalid-params`; each names the one requirement they break.
#[test]
fn a_cursor_of_every_list_never_issued_warns() {
    let args = args(&["--lax-cursor"]);
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&args, profile);
        assert_eq!(
            found(&report),
            [
                (LawId::ToolsListValid, Warning),
                (LawId::InvalidParams, Warning)
            ],
            "{profile:?}: {report:#?}"
        );
        let lists: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.requirement == Some("srv-pagination-invalid-cursor"))
            .filter_map(|f| match &f.location {
                mcp_replay::report::Location::Probe { step, .. } => step.split(" with ").next(),
                _ => None,
            })
            .collect();
        assert_eq!(
            lists,
            [
                "conversation session: tools/list",
                "conversation session: prompts/list",
                "conversation session: resources/list",
            ],
            "{report:#?}"
        );
    }
}

/// A `resources/read` of 2026-07-28 without cache hints breaks
/// `list-cache-hints`, and its result's schema (a cacheable result).
#[test]
fn a_modern_read_without_cache_hints_breaks_list_cache_hints() {
    let args = args(&["--modern", "--content-flaw", "read-without-hints"]);
    for profile in [Profile::Core, Profile::Spec] {
        let report = probe(&args, profile);
        assert_eq!(
            found(&report),
            [(LawId::Schema, Error), (LawId::ListCacheHints, Error)],
            "{profile:?}: {report:#?}"
        );
    }
}

/// A legacy server's icons are judged in the revision its `initialize`
/// answers where that revision has them: an SDK-like server answers
/// 2025-11-25 to a revision it does not know.
#[test]
fn a_legacy_server_has_its_icons_judged_in_the_revision_it_answers() {
    let report = probe(
        &[
            "--like",
            "python-sdk",
            "--icons",
            "--icon-flaw",
            "not-a-uri",
        ],
        Profile::Spec,
    );
    let icons: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.requirement == Some("srv-icons-src-uri"))
        .collect();
    assert!(!icons.is_empty(), "{report:#?}");
    assert!(
        icons
            .iter()
            .all(|f| f.law == LawId::Schema && f.severity == Error),
        "{icons:#?}"
    );
}
