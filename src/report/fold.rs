//! One cause, one finding: the findings one answer, line or step makes
//! under several laws, and the same finding made again elsewhere, are
//! reported once ([`fold`]).

use super::{Also, Graded};
use crate::laws::LawId;

/// The laws every message is held to, whatever the step that met it:
/// their finding at a step that found the step's own law broken is about
/// what that finding is about, and folds into it.
const WITNESSES: [LawId; 2] = [LawId::Schema, LawId::StdoutIsProtocol];

/// How a finding joins another.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Join {
    /// The same cause breaks another law: an [`Also`] of the other.
    Cause(usize),
    /// The same finding again: a repeat of the other.
    Repeat(usize),
}

/// Folds `findings` (one subject's, graded, in the order they were made):
///
/// 1. findings that name the same [`super::Finding::cause`] are one, under
///    the first of them (its producer makes the step's own finding first);
/// 2. a finding of `schema` or `stdout-is-protocol` at a step (the same
///    location, in the same era) where a finding of another law was made
///    folds into that one: the step's law is the one the answer was asked
///    for;
/// 3. a finding made again (the same law, message but for the request id
///    it names, severity and era) at
///    another place, or the same as one folded into another finding,
///    folds into the first as a repeat.
///
/// Every finding left keeps the highest severity and the worst
/// disposition of what it folds; what it folds of other laws is in its
/// [`super::Finding::also`], with each one's own severity and
/// disposition, so that each law keeps its status.
pub(crate) fn fold(findings: Vec<Graded>) -> Vec<Graded> {
    let n = findings.len();
    let mut join: Vec<Option<Join>> = vec![None; n];
    let root = |join: &[Option<Join>], mut at: usize| {
        while let Some(Join::Cause(to) | Join::Repeat(to)) = join[at] {
            at = to;
        }
        at
    };
    // 1. The causes producers name.
    for at in 0..n {
        let Some(cause) = &findings[at].finding.cause else {
            continue;
        };
        if let Some(first) = (0..at).find(|&first| {
            join[first].is_none()
                && findings[first].finding.cause.as_ref() == Some(cause)
                && findings[first].finding.era == findings[at].finding.era
        }) {
            join[at] = Some(Join::Cause(first));
        }
    }
    // 2. The witnesses of a step.
    for at in 0..n {
        let finding = &findings[at].finding;
        if join[at].is_some() || !WITNESSES.contains(&finding.law) {
            continue;
        }
        if let Some(step) = (0..n).find(|&other| {
            let it = &findings[other].finding;
            other != at
                && !WITNESSES.contains(&it.law)
                && it.location == finding.location
                && it.era == finding.era
        }) {
            join[at] = Some(Join::Cause(root(&join, step)));
        }
    }
    // 3. Repeats.
    let same = |a: &Graded, b: &Graded| {
        a.finding.law == b.finding.law
            && without_ids(&a.finding.message) == without_ids(&b.finding.message)
            && a.finding.severity == b.finding.severity
            && a.finding.era == b.finding.era
    };
    for at in 0..n {
        if join[at].is_some() {
            continue;
        }
        if let Some(first) = (0..at).find(|&first| {
            first != at && join[first].is_none() && same(&findings[first], &findings[at])
        }) {
            join[at] = Some(Join::Repeat(first));
            continue;
        }
        // The same as a finding folded into another: a repeat of that one.
        if let Some(folded) = (0..n).find(|&folded| {
            folded != at
                && matches!(join[folded], Some(Join::Cause(_)))
                && same(&findings[folded], &findings[at])
        }) {
            let into = root(&join, folded);
            if into != at {
                join[at] = Some(Join::Repeat(into));
            }
        }
    }
    // Every finding into its root, in the order they were made.
    let roots: Vec<usize> = (0..n).map(|at| root(&join, at)).collect();
    let mut slots: Vec<Option<Graded>> = findings.into_iter().map(Some).collect();
    let mut kept: Vec<Option<Graded>> = (0..n).map(|_| None).collect();
    for at in 0..n {
        if roots[at] == at {
            kept[at] = slots[at].take();
        }
    }
    for at in 0..n {
        let Some(child) = slots[at].take() else {
            continue;
        };
        let Some(into) = kept[roots[at]].as_mut() else {
            continue;
        };
        absorb(into, child, matches!(join[at], Some(Join::Repeat(_))));
    }
    kept.into_iter().flatten().collect()
}

/// `message` with the request ids it names (` id=7`, ` id="7"`) left
/// out: the same answer to another request of the same method is the same
/// finding made again.
fn without_ids(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(" id=") {
        out.push_str(&rest[..at + 4]);
        out.push('…');
        let after = &rest[at + 4..];
        let end = match after.strip_prefix('"') {
            Some(quoted) => quoted.find('"').map_or(after.len(), |close| close + 2),
            None => after
                .find(|c: char| !c.is_ascii_digit() && c != '-')
                .unwrap_or(after.len()),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Folds `child` into `into`: as a repeat (`repeat`), or as a law its
/// cause breaks too.
fn absorb(into: &mut Graded, child: Graded, repeat: bool) {
    let Graded {
        finding: child,
        disposition,
    } = child;
    into.finding.severity = into.finding.severity.max(child.severity);
    into.disposition = into.disposition.min(disposition);
    if repeat || child.law == into.finding.law && child.message == into.finding.message {
        into.finding.repeats.push(child.location);
    } else {
        let also = Also {
            law: child.law,
            severity: child.severity,
            disposition,
            message: child.message,
        };
        if !into.finding.also.contains(&also) {
            into.finding.also.push(also);
        }
    }
    for also in child.also {
        if !into.finding.also.contains(&also) {
            into.finding.also.push(also);
        }
    }
    into.finding.repeats.extend(child.repeats);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::{Profile, Severity};
    use crate::report::{
        Disposition, Finding, LawOutcome, LawStatus, Location, ProbeResult, Status,
    };

    fn at(step: &str, law: LawId, message: &str, disposition: Disposition) -> Graded {
        let location = Location::Probe {
            command: "server".to_owned(),
            step: step.to_owned(),
        };
        Graded::new(
            Finding::new(law, Profile::Core, location, message),
            disposition,
        )
    }

    #[test]
    fn request_ids_are_left_out_of_what_makes_a_repeat() {
        assert_eq!(
            without_ids("the answer to `ping` id=12 breaks it"),
            "the answer to `ping` id=… breaks it"
        );
        assert_eq!(
            without_ids("id \"x\" with id=\"a b\": no"),
            "id \"x\" with id=…: no"
        );
        assert_eq!(without_ids("no ids"), "no ids");
    }

    /// The witness laws fold into the step's own law, whichever came first,
    /// and a folded warning keeps its own disposition for its law.
    #[test]
    fn a_schema_finding_folds_into_the_law_of_its_step() {
        let folded = fold(vec![
            at("initialize", LawId::Schema, "schema", Disposition::Warns),
            at(
                "initialize",
                LawId::Initialize,
                "no version",
                Disposition::Fails,
            ),
            at("ping", LawId::Schema, "other", Disposition::Fails),
        ]);
        assert_eq!(folded.len(), 2, "{folded:#?}");
        assert_eq!(folded[0].finding.law, LawId::Initialize);
        assert_eq!(folded[0].finding.also_laws(), [LawId::Schema]);
        assert_eq!(folded[0].finding.also[0].disposition, Disposition::Warns);
        assert_eq!(folded[1].finding.law, LawId::Schema);
        assert!(folded[1].finding.also.is_empty());
    }

    /// A named cause folds under its first finding; the merged finding
    /// takes the highest severity and the worst disposition, and each law
    /// keeps its own status.
    #[test]
    fn one_named_cause_is_one_finding_as_bad_as_the_worst_it_folds() {
        let first = at(
            "ping first",
            LawId::Discover,
            "depends",
            Disposition::Waived,
        )
        .finding
        .with_cause("the answer")
        .with_severity(Severity::Warning);
        let removed = at(
            "ping first",
            LawId::UnknownMethod,
            "removed",
            Disposition::Fails,
        )
        .finding
        .with_cause("the answer");
        let folded = fold(vec![
            Graded::new(first, Disposition::Waived),
            Graded::new(removed, Disposition::Fails),
        ]);
        assert_eq!(folded.len(), 1);
        assert_eq!(folded[0].finding.law, LawId::Discover);
        assert_eq!(folded[0].finding.severity, Severity::Error);
        assert_eq!(folded[0].disposition, Disposition::Fails);
        let probe = ProbeResult {
            command: "server".to_owned(),
            outcomes: vec![LawOutcome::new(LawId::UnknownMethod, LawStatus::Failed)],
            findings: folded,
            elapsed: std::time::Duration::ZERO,
            coverage: crate::report::Coverage::default(),
        };
        assert_eq!(probe.status(&probe.outcomes[0]), Status::Fail);
        assert_eq!(probe.folded_into(LawId::UnknownMethod).count(), 1);
    }

    /// The same finding in three sessions is one, seen three times, and a
    /// repeat of what another finding folded joins that finding.
    #[test]
    fn repeats_are_one_finding_with_where_they_were_seen() {
        let folded = fold(vec![
            at(
                "a: start",
                LawId::QuietBeforeServing,
                "banner",
                Disposition::Fails,
            ),
            at(
                "a: start",
                LawId::StdoutIsProtocol,
                "line",
                Disposition::Fails,
            ),
            at(
                "b: ping",
                LawId::StdoutIsProtocol,
                "line",
                Disposition::Fails,
            ),
            at(
                "c: ping",
                LawId::StdoutIsProtocol,
                "line",
                Disposition::Fails,
            ),
            at("d: ping", LawId::Ping, "pong", Disposition::Warns),
        ]);
        assert_eq!(folded.len(), 2, "{folded:#?}");
        assert_eq!(folded[0].finding.occurrences(), 3);
        assert_eq!(folded[0].finding.also_laws(), [LawId::StdoutIsProtocol]);
        assert_eq!(folded[1].finding.law, LawId::Ping);
        assert_eq!(folded[1].finding.occurrences(), 1);
    }
}
