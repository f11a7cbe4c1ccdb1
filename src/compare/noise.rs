//! Which differences between two messages are noise: values that change
//! by themselves.
//!
//! A value that is a point in time or a UUID on both sides is noise: such
//! values change at a grain that two runs back to back may not show (a
//! timestamp to the second). Any other difference is noise when a second
//! live answer to the same request does not repeat it. The replay settles
//! its mismatches with these (`replay/settle.rs`).

use serde_json::Value;

use super::diff::{self, Difference};

/// Why a difference is noise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Why {
    /// Both sides are values of this volatile kind.
    Kind(&'static str),
    /// Two live runs answered differently here.
    TwoRuns,
}

/// Each difference between `expected` and `actual`, with why it is noise
/// when both sides are values of a volatile kind.
pub(crate) fn classified(expected: &Value, actual: &Value) -> Vec<(Difference, Option<Why>)> {
    diff::differences(expected, actual)
        .into_iter()
        .map(|difference| {
            let why = match (&difference.expected, &difference.actual) {
                (Some(expected), Some(actual)) => {
                    diff::volatile_kind(expected, actual).map(Why::Kind)
                }
                _ => None,
            };
            (difference, why)
        })
        .collect()
}

/// Marks as noise each undecided difference that `other`, a second live
/// run's answer, does not repeat.
pub(crate) fn two_runs(differences: &mut [(Difference, Option<Why>)], other: &Value) {
    for (difference, why) in differences.iter_mut().filter(|(_, why)| why.is_none()) {
        if diff::pointee(other, &difference.pointer) != difference.actual {
            *why = Some(Why::TwoRuns);
        }
    }
}

/// How a note words why a difference is noise.
pub(crate) fn because(why: &Why) -> String {
    match why {
        Why::Kind(kind) => format!("{kind} on both sides"),
        Why::TwoRuns => "two live runs answered it differently".to_owned(),
    }
}
