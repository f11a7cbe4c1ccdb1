//! One outcome for every requirement of the registry in every run: held,
//! failed, warned, not observed (and why), not applicable (and why), or
//! waived.
//!
//! A requirement is held only where a step of the run observed it and no
//! finding shows it broken; one the run never reached is "not observed",
//! never counted as held. The outcome of a requirement is graded per
//! subject: each server command a run checked (its probes, the transcripts
//! replayed against it, its fuzz run, together), and each host a run
//! judged (a transcript's host, a live `mock` session's), for the host's
//! requirements.

use std::collections::BTreeSet;
use std::fmt;

use super::{Coverage, Disposition, Graded, LawOutcome, LawStatus};
use crate::laws::LawId;
use crate::laws::registry::{Level, Observable, REGISTRY, Requirement, Side};
use crate::revision::Revision;

/// How one requirement fared in a run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RequirementStatus {
    /// Observed, and no finding shows it broken.
    Held,
    /// A finding that fails the run shows it broken.
    Failed,
    /// A finding shows it broken, as a warning (or one the baseline knows).
    Warned,
    /// The user waived the law that judges it.
    Waived,
    /// The run never saw it kept or broken, and why: the server crashed
    /// first, no tool may be called, no law judges it yet, the recording
    /// never exercised it.
    NotObserved(String),
    /// It does not apply to this run, and why: the revisions spoken, a
    /// capability not declared, or stdio cannot show it.
    NotApplicable(String),
}

impl RequirementStatus {
    /// The word reports use: `held`, `failed`, `warned`, `waived`,
    /// `not-observed` or `not-applicable`.
    pub fn as_str(&self) -> &'static str {
        match self {
            RequirementStatus::Held => "held",
            RequirementStatus::Failed => "failed",
            RequirementStatus::Warned => "warned",
            RequirementStatus::Waived => "waived",
            RequirementStatus::NotObserved(_) => "not-observed",
            RequirementStatus::NotApplicable(_) => "not-applicable",
        }
    }

    /// Why, for a requirement not observed or not applicable.
    pub fn reason(&self) -> Option<&str> {
        match self {
            RequirementStatus::NotObserved(why) | RequirementStatus::NotApplicable(why) => {
                Some(why)
            }
            _ => None,
        }
    }
}

impl fmt::Display for RequirementStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The outcome of one requirement for one subject of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequirementOutcome {
    /// The requirement's id.
    pub id: &'static str,
    /// The law that judges it, if one does.
    pub law: Option<LawId>,
    /// The side it binds.
    pub side: Side,
    /// How strongly the specification asks it.
    pub level: Level,
    /// What it was judged of: a server command, as a shell would show it,
    /// or a host, by its name and what it was judged from (`name
    /// (source)`).
    pub subject: String,
    /// For a host: what it was judged from (the transcript's path, the
    /// live session), and its name as it gave it.
    pub host: Option<(String, Option<String>)>,
    /// How it fared.
    pub status: RequirementStatus,
}

/// Counts of requirement outcomes by status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequirementTally {
    /// Every outcome counted.
    pub total: usize,
    /// Held.
    pub held: usize,
    /// Failed.
    pub failed: usize,
    /// Warned.
    pub warned: usize,
    /// Waived.
    pub waived: usize,
    /// Not observed.
    pub not_observed: usize,
    /// Not applicable.
    pub not_applicable: usize,
}

impl RequirementTally {
    /// The counts of `outcomes`.
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a RequirementOutcome>) -> RequirementTally {
        let mut tally = RequirementTally::default();
        for outcome in outcomes {
            tally.total += 1;
            match outcome.status {
                RequirementStatus::Held => tally.held += 1,
                RequirementStatus::Failed => tally.failed += 1,
                RequirementStatus::Warned => tally.warned += 1,
                RequirementStatus::Waived => tally.waived += 1,
                RequirementStatus::NotObserved(_) => tally.not_observed += 1,
                RequirementStatus::NotApplicable(_) => tally.not_applicable += 1,
            }
        }
        tally
    }
}

/// What a run knows of one subject, gathered from its probes, replays and
/// fuzz run, for [`grade`].
#[derive(Debug, Default)]
pub(crate) struct Subject<'a> {
    /// The server command, or the host as reports name it.
    pub name: String,
    /// For a host: its source and name.
    pub host: Option<(String, Option<String>)>,
    /// What the steps observed and missed.
    pub coverage: Coverage,
    /// The graded findings about it.
    pub findings: Vec<&'a Graded>,
    /// The outcomes of the laws its probes or fuzz run checked.
    pub laws: Vec<&'a LawOutcome>,
    /// Whether any of its laws was waived by the user.
    pub waived: BTreeSet<LawId>,
}

/// The outcome of every requirement of `side` in the registry for
/// `subject`, in registry order.
pub(crate) fn grade(subject: &Subject<'_>, side: Side) -> Vec<RequirementOutcome> {
    REGISTRY
        .iter()
        .filter(|requirement| requirement.side == side)
        .map(|requirement| RequirementOutcome {
            id: requirement.id,
            law: requirement.law,
            side: requirement.side,
            level: requirement.level,
            subject: subject.name.clone(),
            host: subject.host.clone(),
            status: status(requirement, subject),
        })
        .collect()
}

/// Whether `finding`, of `law`, is about `requirement`: it names it, or it
/// names none and `requirement` is the first its law judges that applies
/// to what `subject` spoke and declared (the law's first of all when none
/// does).
fn about(graded: &Graded, requirement: &Requirement, subject: &Subject<'_>) -> bool {
    match graded.finding.requirement {
        Some(id) => id == requirement.id,
        None => {
            let law = graded.finding.law;
            let first = crate::laws::registry::judged_by(law)
                .find(|candidate| applies(candidate, &subject.coverage))
                .or_else(|| crate::laws::registry::judged_by(law).next());
            Some(law) == requirement.law && first.is_some_and(|first| first.id == requirement.id)
        }
    }
}

/// Whether `requirement` can apply to a run that saw `coverage`: stdio
/// shows it, a revision spoken asks it, and the peer declares its
/// capability (what is not known yet does not rule it out).
fn applies(requirement: &Requirement, coverage: &Coverage) -> bool {
    matches!(requirement.observable, Observable::Stdio)
        && (coverage.revisions.is_empty()
            || coverage
                .revisions
                .iter()
                .any(|revision| requirement.applies_to(*revision)))
        && requirement.capability.is_none_or(|capability| {
            !coverage.declared || coverage.capabilities.contains(capability)
        })
}

/// The revisions as reports name them: `2024-11-05, 2025-03-26`.
fn names(revisions: impl IntoIterator<Item = Revision>) -> String {
    revisions
        .into_iter()
        .map(Revision::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

fn status(requirement: &Requirement, subject: &Subject<'_>) -> RequirementStatus {
    if let Observable::Not(why) = requirement.observable {
        return RequirementStatus::NotApplicable(format!("stdio cannot show it: {why}"));
    }
    let coverage = &subject.coverage;
    if !coverage.revisions.is_empty()
        && !coverage
            .revisions
            .iter()
            .any(|revision| requirement.applies_to(*revision))
    {
        return RequirementStatus::NotApplicable(format!(
            "the run spoke {}; it applies to {}",
            names(coverage.revisions.iter().copied()),
            names(requirement.revisions())
        ));
    }
    if let Some(capability) = requirement.capability
        && coverage.declared
        && !coverage.capabilities.contains(capability)
    {
        return RequirementStatus::NotApplicable(format!(
            "the {} does not declare `{capability}`",
            requirement.side
        ));
    }
    if requirement
        .law
        .is_some_and(|law| subject.waived.contains(&law))
    {
        return RequirementStatus::Waived;
    }
    let mut warned = false;
    for graded in subject
        .findings
        .iter()
        .filter(|graded| about(graded, requirement, subject))
    {
        match graded.disposition {
            Disposition::Fails => return RequirementStatus::Failed,
            Disposition::Warns | Disposition::Known => warned = true,
            Disposition::Waived => return RequirementStatus::Waived,
            Disposition::Blessed => {}
        }
    }
    if warned {
        return RequirementStatus::Warned;
    }
    let Some(law) = requirement.law else {
        return RequirementStatus::NotObserved("no law of mcp-replay judges it yet".to_owned());
    };
    // A finding of the same law that names no requirement is counted
    // against the law's first one; it may as well show this one broken, so
    // this one is not held on its strength.
    let unattributed = subject.findings.iter().find(|graded| {
        graded.finding.law == law
            && graded.finding.requirement.is_none()
            && matches!(
                graded.disposition,
                Disposition::Fails | Disposition::Warns | Disposition::Known
            )
    });
    if let Some(graded) = unattributed
        && coverage.observed.contains(requirement.id)
    {
        return RequirementStatus::NotObserved(format!(
            "`{law}` was broken ({}) in a way not told apart from this requirement",
            graded.finding.location.describe()
        ));
    }
    if coverage.observed.contains(requirement.id) {
        return RequirementStatus::Held;
    }
    if let Some(why) = coverage.missed.get(requirement.id) {
        return RequirementStatus::NotObserved(why.clone());
    }
    let skipped = subject
        .laws
        .iter()
        .find_map(|outcome| match &outcome.status {
            LawStatus::Skipped(why) if outcome.law == law => Some(why.clone()),
            _ => None,
        });
    if let Some(why) = skipped {
        return RequirementStatus::NotObserved(why);
    }
    if coverage.revisions.is_empty() {
        return RequirementStatus::NotObserved("no revision was spoken".to_owned());
    }
    RequirementStatus::NotObserved("the run never exercised it".to_owned())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::laws::Profile;
    use crate::report::{Finding, Location};

    fn subject(coverage: Coverage) -> Subject<'static> {
        Subject {
            name: "server".to_owned(),
            coverage,
            ..Subject::default()
        }
    }

    fn outcome<'a>(outcomes: &'a [RequirementOutcome], id: &str) -> &'a RequirementStatus {
        &outcomes
            .iter()
            .find(|outcome| outcome.id == id)
            .expect("in the registry")
            .status
    }

    fn spoken(revisions: &[Revision]) -> Coverage {
        Coverage {
            revisions: revisions.iter().copied().collect(),
            ..Coverage::default()
        }
    }

    #[test]
    fn a_requirement_is_held_only_where_a_step_observed_it() {
        let mut coverage = spoken(&[Revision::V2025_11_25]);
        coverage.observe("srv-notification-never-answered");
        let outcomes = grade(&subject(coverage), Side::Server);
        assert_eq!(
            outcome(&outcomes, "srv-notification-never-answered"),
            &RequirementStatus::Held
        );
        assert!(matches!(
            outcome(&outcomes, "srv-response-same-id"),
            RequirementStatus::NotObserved(why) if why == "the run never exercised it"
        ));
    }

    #[test]
    fn a_missed_requirement_says_why() {
        let mut coverage = spoken(&[Revision::V2025_11_25]);
        coverage.miss("srv-response-same-id", "the server crashed first");
        let outcomes = grade(&subject(coverage), Side::Server);
        assert_eq!(
            outcome(&outcomes, "srv-response-same-id"),
            &RequirementStatus::NotObserved("the server crashed first".to_owned())
        );
    }

    #[test]
    fn revisions_capabilities_and_stdio_make_requirements_not_applicable() {
        let mut coverage = spoken(&[Revision::V2026_07_28]);
        coverage.declare(&serde_json::json!({"prompts": {}}));
        let outcomes = grade(&subject(coverage), Side::Server);
        assert!(matches!(
            outcome(&outcomes, "srv-ping-empty-result"),
            RequirementStatus::NotApplicable(why) if why.contains("2026-07-28")
        ));
        assert!(matches!(
            outcome(&outcomes, "srv-tools-call-unknown-tool-error"),
            RequirementStatus::NotApplicable(why) if why.contains("`tools`")
        ));
        assert!(matches!(
            outcome(&outcomes, "srv-auth-http-only"),
            RequirementStatus::NotApplicable(why) if why.starts_with("stdio cannot show it")
        ));
    }

    #[test]
    fn a_peer_that_declares_no_capability_has_none_of_their_requirements() {
        // `capabilities: {}` is a declaration: every requirement of a
        // capability is not applicable, never left not observed.
        let mut declared_none = spoken(&[Revision::V2025_11_25]);
        declared_none.declare(&serde_json::json!({}));
        let outcomes = grade(&subject(declared_none), Side::Server);
        assert!(matches!(
            outcome(&outcomes, "srv-tools-call-unknown-tool-error"),
            RequirementStatus::NotApplicable(why) if why.contains("`tools`")
        ));
        // Before any declaration is read, nothing is ruled out.
        let unknown = spoken(&[Revision::V2025_11_25]);
        let outcomes = grade(&subject(unknown), Side::Server);
        assert!(matches!(
            outcome(&outcomes, "srv-tools-call-unknown-tool-error"),
            RequirementStatus::NotObserved(_)
        ));
    }

    #[test]
    fn a_finding_fails_or_warns_the_requirement_it_names_or_its_laws_first() {
        let location = Location::Transcript {
            path: PathBuf::from("t.jsonl"),
            line: 3,
        };
        let answered = Graded::new(
            Finding::new(
                LawId::NotificationUnanswered,
                Profile::Spec,
                location.clone(),
                "answered",
            ),
            Disposition::Fails,
        );
        let pinged = Graded::new(
            Finding::new(LawId::Ping, Profile::Spec, location, "not empty")
                .with_requirement("srv-ping-empty-result"),
            Disposition::Warns,
        );
        let mut subject = subject(spoken(&[Revision::V2025_11_25]));
        subject.coverage.observe("srv-notification-never-answered");
        subject.findings = vec![&answered, &pinged];
        let outcomes = grade(&subject, Side::Server);
        assert_eq!(
            outcome(&outcomes, "srv-notification-never-answered"),
            &RequirementStatus::Failed
        );
        assert_eq!(
            outcome(&outcomes, "srv-ping-empty-result"),
            &RequirementStatus::Warned
        );
        let tally = RequirementTally::of(&outcomes);
        assert_eq!(tally.failed, 1);
        assert_eq!(tally.warned, 1);
        assert_eq!(tally.total, outcomes.len());
    }

    #[test]
    fn a_finding_that_names_no_requirement_is_about_its_laws_first_that_applies() {
        let location = Location::Transcript {
            path: PathBuf::from("t.jsonl"),
            line: 3,
        };
        // The first requirement `tool-error-is-result` judges asks from
        // 2025-11-25 on; a run that spoke 2024-11-05 is held to the next.
        let failed = Graded::new(
            Finding::new(
                LawId::ToolErrorIsResult,
                Profile::Core,
                location,
                "a JSON-RPC error",
            ),
            Disposition::Fails,
        );
        let mut legacy = subject(spoken(&[Revision::V2024_11_05]));
        legacy.findings = vec![&failed];
        let outcomes = grade(&legacy, Side::Server);
        assert_eq!(
            outcome(&outcomes, "srv-tools-failure-result"),
            &RequirementStatus::Failed
        );
        assert!(matches!(
            outcome(&outcomes, "srv-tools-invalid-arguments-result"),
            RequirementStatus::NotApplicable(_)
        ));
        let mut current = subject(spoken(&[Revision::V2025_11_25]));
        current.findings = vec![&failed];
        let outcomes = grade(&current, Side::Server);
        assert_eq!(
            outcome(&outcomes, "srv-tools-invalid-arguments-result"),
            &RequirementStatus::Failed
        );
        assert!(!matches!(
            outcome(&outcomes, "srv-tools-failure-result"),
            RequirementStatus::Failed
        ));
    }

    /// A finding that names no requirement counts against its law's first;
    /// the law's other requirements the run observed are not held on its
    /// strength, but not observed, with the finding named.
    #[test]
    fn a_laws_unattributed_finding_holds_none_of_its_other_requirements() {
        let law = LawId::StdoutIsProtocol;
        let mut judged = crate::laws::registry::judged_by(law);
        let (first, second) = (judged.next().expect("one"), judged.next().expect("two"));
        let broken = Graded::new(
            Finding::new(
                law,
                Profile::Spec,
                Location::Transcript {
                    path: PathBuf::from("t.jsonl"),
                    line: 4,
                },
                "not UTF-8",
            ),
            Disposition::Fails,
        );
        let mut subject = subject(spoken(&[Revision::V2025_11_25]));
        subject.coverage.observe(first.id);
        subject.coverage.observe(second.id);
        subject.findings = vec![&broken];
        let outcomes = grade(&subject, Side::Server);
        assert_eq!(outcome(&outcomes, first.id), &RequirementStatus::Failed);
        assert!(
            matches!(outcome(&outcomes, second.id), RequirementStatus::NotObserved(why) if why.contains("t.jsonl:4")),
            "{:?}",
            outcome(&outcomes, second.id)
        );
    }

    #[test]
    fn a_skipped_law_leaves_its_requirements_not_observed_with_its_reason() {
        let skipped = LawOutcome::new(
            LawId::Discover,
            LawStatus::Skipped("the server speaks no 2026-07-28".to_owned()),
        );
        let mut subject = subject(spoken(&[Revision::V2025_11_25, Revision::V2026_07_28]));
        subject.laws = vec![&skipped];
        let outcomes = grade(&subject, Side::Server);
        assert_eq!(
            outcome(&outcomes, "srv-discover-answers"),
            &RequirementStatus::NotObserved("the server speaks no 2026-07-28".to_owned())
        );
    }

    /// A host is graded as a server is, on the host's requirements alone.
    #[test]
    fn a_host_is_graded_on_the_hosts_requirements() {
        let broken = Graded::new(
            Finding::new(
                LawId::HostRequestIds,
                Profile::Spec,
                Location::Transcript {
                    path: PathBuf::from("t.jsonl"),
                    line: 5,
                },
                "reused",
            )
            .with_requirement("host-request-id-unique"),
            Disposition::Fails,
        );
        let mut coverage = spoken(&[Revision::V2025_11_25]);
        coverage.observe("host-request-id-type");
        coverage.observe("host-request-id-unique");
        coverage.miss("host-stdio-shutdown-order", "a version-1 transcript");
        coverage.declare(&serde_json::json!({"roots": {}}));
        let mut host = subject(coverage);
        host.findings = vec![&broken];
        let outcomes = grade(&host, Side::Host);
        assert!(outcomes.iter().all(|outcome| outcome.side == Side::Host));
        assert!(
            !outcomes
                .iter()
                .any(|outcome| outcome.id.starts_with("srv-"))
        );
        assert_eq!(
            outcome(&outcomes, "host-request-id-type"),
            &RequirementStatus::Held
        );
        assert_eq!(
            outcome(&outcomes, "host-request-id-unique"),
            &RequirementStatus::Failed
        );
        assert_eq!(
            outcome(&outcomes, "host-stdio-shutdown-order"),
            &RequirementStatus::NotObserved("a version-1 transcript".to_owned())
        );
        assert!(matches!(
            outcome(&outcomes, "host-sampling-errors"),
            RequirementStatus::NotApplicable(why) if why == "the host does not declare `sampling`"
        ));
        assert!(matches!(
            outcome(&outcomes, "host-request-id-not-pending"),
            RequirementStatus::NotApplicable(why) if why.contains("2026-07-28")
        ));
    }
}
