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
/// 3. a finding made again (the same law, message, severity and era) at
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
            && a.finding.message == b.finding.message
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
