//! Telling noise from regressions: values that change by themselves.
//!
//! A server that answers the current time, a fresh id or a random token
//! answers something else on every run, and a transcript that recorded one
//! such answer would fail `transcript-match` forever. Instead of making the
//! user list such fields, a replay whose responses differ from the
//! recording looks at each difference, down to its leaf (inside JSON held in
//! a string too):
//!
//! - a value that is a point in time or a UUID on both sides is noise: such
//!   values change at a grain that two runs back to back may not show (a
//!   timestamp to the second);
//! - any other difference is checked against a second live run of the same
//!   server: what differs between two live runs is noise too;
//! - what is left is a regression, and only that fails the run.
//!
//! Each noisy place is a note that names its JSON pointer and the exact
//! ignore rule that pins it; `--bless` writes those rules into the
//! transcript's header, where a review sees them. With `--fail-on-noise`
//! every difference fails, as before.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use super::{Overflow, ReplayOutcome, left_out_message};
use crate::compare::diff::{self, Difference, IgnoreRules};
use crate::compare::noise::{Why, because, classified, two_runs};
use crate::report::{ExchangeStatus, Location};

/// What settling the noise of a replay learned.
#[derive(Debug, Default)]
pub(crate) struct Settled {
    /// The ignore rules that pin the noisy places, sorted, each once.
    pub rules: Vec<String>,
    /// The transcript lines of the recorded responses whose every
    /// difference was noise: they match the recording as far as it can be
    /// matched, and `--bless` leaves them as recorded.
    pub quiet: BTreeSet<usize>,
}

/// Settles which differences of `outcome`'s mismatches are noise: notes
/// for them, findings (with diffs of what is left) for the rest.
/// `second_run` replays the transcript once more against a fresh server;
/// it is called only when some difference is no volatile value, and at
/// most once. With `fail_on_noise` the findings stay as they are, and the
/// notes say which differences are noise.
pub(crate) fn settle(
    outcome: &mut ReplayOutcome,
    second_run: impl FnOnce() -> Option<ReplayOutcome>,
    fail_on_noise: bool,
) -> Settled {
    let mut settled = Settled::default();
    if (outcome.mismatched.is_empty() && outcome.overflow.is_empty()) || !outcome.complete {
        return settled;
    }
    let mut differences: Vec<Vec<(Difference, Option<Why>)>> = outcome
        .mismatched
        .iter()
        .map(|mismatch| classified(&mismatch.expected, &mismatch.actual))
        .collect();
    // The mismatches past the bound are parsed one at a time, never all.
    let undecided = differences.iter().flatten().any(|(_, why)| why.is_none())
        || outcome.overflow.iter().any(|overflow| {
            parsed(overflow).is_some_and(|(expected, actual)| {
                classified(&expected, &actual)
                    .iter()
                    .any(|(_, why)| why.is_none())
            })
        });
    let second = if undecided { second_run() } else { None };
    // The second run's answer at a line: its own when it differed from
    // the recording, the recording's when it matched it.
    let again: Option<Again<'_>> = second.as_ref().map(|second| Again {
        kept: second
            .mismatched
            .iter()
            .map(|mismatch| (mismatch.line, &mismatch.actual))
            .collect(),
        overflow: second
            .overflow
            .iter()
            .map(|overflow| (overflow.line, overflow))
            .collect(),
        compared: &second.compared,
    });
    if let Some(again) = &again {
        for (mismatch, differences) in outcome.mismatched.iter().zip(&mut differences) {
            let Some(other) = again.at(mismatch.line, &mismatch.expected) else {
                continue;
            };
            two_runs(differences, &other);
        }
    }

    // Past the bound: each response whose every difference is noise is
    // quiet; the notes name each noisy place once, with how many times.
    let mut overflow_quiet = 0;
    let mut overflow_noise: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut remaining: Vec<usize> = Vec::new();
    for overflow in &outcome.overflow {
        let Some((expected, actual)) = parsed(overflow) else {
            remaining.push(overflow.line);
            continue;
        };
        let mut differences = classified(&expected, &actual);
        if let Some(other) = again
            .as_ref()
            .and_then(|again| again.at(overflow.line, &expected))
        {
            two_runs(&mut differences, &other);
        }
        let mut all_noise = !differences.is_empty();
        for (difference, why) in &differences {
            match why {
                Some(why) => {
                    settled.rules.push(difference.pointer.clone());
                    *overflow_noise
                        .entry((difference.pointer.clone(), because(why)))
                        .or_default() += 1;
                }
                None => all_noise = false,
            }
        }
        if all_noise && !fail_on_noise {
            overflow_quiet += 1;
            settled.quiet.insert(overflow.line);
        } else {
            remaining.push(overflow.line);
        }
    }
    let verdict = if fail_on_noise {
        "it fails the run under --fail-on-noise"
    } else {
        "not compared"
    };
    for ((pointer, why), count) in &overflow_noise {
        let s = if *count == 1 { "" } else { "s" };
        outcome.notes.push(format!(
            "`{pointer}` is noise ({why}) in {count} response{s} past the first {} that differ: {verdict}; `--bless` pins it with the ignore rule `{pointer}`",
            super::MAX_KEPT_MISMATCHES
        ));
    }

    let mut gone = BTreeSet::new();
    for (mismatch, differences) in outcome.mismatched.iter().zip(&differences) {
        let noisy: Vec<(&Difference, &Why)> = differences
            .iter()
            .filter_map(|(difference, why)| why.as_ref().map(|why| (difference, why)))
            .collect();
        if noisy.is_empty() {
            continue;
        }
        let finding = &mut outcome.findings[mismatch.finding];
        let what = finding
            .message
            .strip_suffix(": the response differs from the recording")
            .unwrap_or(&finding.message)
            .to_owned();
        for (difference, why) in &noisy {
            settled.rules.push(difference.pointer.clone());
            let why = because(why);
            outcome.notes.push(format!(
                "{what}: `{}` is noise ({why}): {verdict}; `--bless` pins it with the ignore rule `{}`",
                difference.pointer, difference.pointer
            ));
        }
        if fail_on_noise {
            continue;
        }
        if noisy.len() == differences.len() {
            gone.insert(mismatch.finding);
            settled.quiet.insert(mismatch.line);
            continue;
        }
        // What is left is shown without the noise.
        let rules = IgnoreRules::parse(noisy.iter().map(|(difference, _)| &*difference.pointer))
            .expect("differences name valid pointers");
        let (mut expected, mut actual) = (mismatch.expected.clone(), mismatch.actual.clone());
        rules.apply(&mut expected);
        rules.apply(&mut actual);
        let headers = finding
            .diff
            .as_deref()
            .and_then(|diff| {
                let mut lines = diff.lines();
                let expected = lines.next()?.strip_prefix("--- ")?.to_owned();
                let actual = lines.next()?.strip_prefix("+++ ")?.to_owned();
                Some((expected, actual))
            })
            .unwrap_or_else(|| ("expected".to_owned(), "actual".to_owned()));
        if let Some(diff) = diff::compare_applied(&expected, &actual, || headers) {
            finding.diff = Some(diff);
        }
    }
    settled.rules.sort();
    settled.rules.dedup();
    let kept_gone = gone.len();
    if let Some(index) = outcome.left_out_finding {
        match remaining.first() {
            None => {
                gone.insert(index);
            }
            Some(&line) if overflow_quiet > 0 => {
                let finding = &mut outcome.findings[index];
                finding.message = left_out_message(remaining.len(), line);
                if let Location::Transcript { line: at, .. } = &mut finding.location {
                    *at = line;
                }
            }
            Some(_) => {}
        }
    }
    if gone.is_empty() && overflow_quiet == 0 {
        return settled;
    }
    outcome.mismatches -= kept_gone + overflow_quiet;
    let mut index = 0;
    outcome.findings.retain(|_| {
        index += 1;
        !gone.contains(&(index - 1))
    });
    // An exchange failed only by its noise passes now.
    for exchange in &mut outcome.exchanges {
        let failed_elsewhere = outcome.findings.iter().any(|finding| {
            matches!(&finding.location, Location::Transcript { line, .. }
                if *line == exchange.line || Some(*line) == exchange.answer_line)
        });
        if exchange.status == ExchangeStatus::Failed
            && exchange
                .answer_line
                .is_some_and(|line| settled.quiet.contains(&line))
            && !failed_elsewhere
        {
            exchange.status = ExchangeStatus::Passed;
        }
    }
    for live in &mut outcome.live {
        live.replaces.retain(|line| !settled.quiet.contains(line));
    }
    settled
}

/// Both sides of a mismatch past the bound, parsed again.
fn parsed(overflow: &Overflow) -> Option<(Value, Value)> {
    Some((
        serde_json::from_str(&overflow.expected).ok()?,
        serde_json::from_str(&overflow.actual).ok()?,
    ))
}

/// A second live run's answers, by the transcript line of the recorded
/// response.
struct Again<'a> {
    kept: HashMap<usize, &'a Value>,
    overflow: HashMap<usize, &'a Overflow>,
    compared: &'a std::collections::HashSet<usize>,
}

impl Again<'_> {
    /// The second run's answer to the recorded response at `line`, whose
    /// recorded side is `expected`.
    fn at<'v>(&'v self, line: usize, expected: &'v Value) -> Option<Cow<'v, Value>> {
        if let Some(actual) = self.kept.get(&line) {
            return Some(Cow::Borrowed(*actual));
        }
        if let Some(overflow) = self.overflow.get(&line) {
            return serde_json::from_str(&overflow.actual).ok().map(Cow::Owned);
        }
        self.compared
            .contains(&line)
            .then_some(Cow::Borrowed(expected))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::PathBuf;

    use serde_json::json;

    use super::*;
    use crate::laws::{LawId, Profile};
    use crate::replay::Mismatch;
    use crate::report::{Exchange, Finding};

    /// An outcome with one mismatch at line 3 (the answer to line 2).
    fn outcome(expected: Value, actual: Value) -> ReplayOutcome {
        let location = Location::Transcript {
            path: PathBuf::from("t.jsonl"),
            line: 3,
        };
        let finding = Finding::new(
            LawId::TranscriptMatch,
            Profile::Core,
            location,
            "`tools/call` id=2 (line 2): the response differs from the recording",
        )
        .with_diff("--- expected: t.jsonl:3\n+++ actual: server\n".to_owned());
        ReplayOutcome {
            coverage: crate::report::Coverage::default(),
            command: "server".to_owned(),
            notes: Vec::new(),
            exchanges: vec![Exchange {
                line: 2,
                method: "tools/call".to_owned(),
                id: "2".to_owned(),
                answer_line: Some(3),
                status: ExchangeStatus::Failed,
            }],
            findings: vec![finding],
            mismatches: 1,
            complete: true,
            reshaped: false,
            live: Vec::new(),
            silent: None,
            mismatched: vec![Mismatch {
                line: 3,
                finding: 0,
                expected,
                actual,
            }],
            overflow: Vec::new(),
            left_out_finding: None,
            compared: HashSet::from([3]),
        }
    }

    /// `outcome` with three more mismatches past the bound, at lines 5, 7
    /// and 9, the middle one with `middle` as its live `n` (recorded 1).
    fn overflowing(expected: Value, actual: Value, middle: u64) -> ReplayOutcome {
        let mut outcome = outcome(expected, actual);
        for (line, n) in [(5, 1), (7, middle), (9, 1)] {
            outcome.exchanges.push(Exchange {
                line: line - 1,
                method: "tools/call".to_owned(),
                id: line.to_string(),
                answer_line: Some(line),
                status: ExchangeStatus::Failed,
            });
            outcome.overflow.push(Overflow {
                line,
                expected: r#"{"result":{"at":"2026-01-01T00:00:00Z","n":1}}"#.into(),
                actual: format!(r#"{{"result":{{"at":"2026-12-01T12:00:00Z","n":{n}}}}}"#).into(),
            });
            outcome.compared.insert(line);
        }
        outcome.mismatches += 3;
        outcome.left_out_finding = Some(1);
        outcome.findings.push(Finding::new(
            LawId::TranscriptMatch,
            Profile::Core,
            Location::Transcript {
                path: PathBuf::from("t.jsonl"),
                line: 5,
            },
            left_out_message(3, 5),
        ));
        outcome
    }

    #[test]
    fn mismatches_past_the_bound_are_told_from_noise_too() {
        // Every difference a time on both sides: nothing fails.
        let mut all_noise = overflowing(
            json!({"result": {"at": "2026-01-01T00:00:00Z"}}),
            json!({"result": {"at": "2026-12-01T12:00:00Z"}}),
            1,
        );
        let settled = settle(&mut all_noise, || panic!("no second run is needed"), false);
        assert_eq!(settled.rules, ["/result/at"]);
        assert_eq!(all_noise.findings, []);
        assert_eq!(all_noise.mismatches, 0);
        assert!(
            all_noise
                .exchanges
                .iter()
                .all(|e| e.status == ExchangeStatus::Passed)
        );
        assert!(
            all_noise
                .notes
                .iter()
                .any(|n| n.contains("`/result/at` is noise")
                    && n.contains("in 3 responses past the first 100")),
            "{:?}",
            all_noise.notes
        );
        // One of them a regression (a second run agrees on it): it alone is
        // counted, at its own line.
        let expected = json!({"result": {"at": "2026-01-01T00:00:00Z"}});
        let mut one_real = overflowing(
            expected.clone(),
            json!({"result": {"at": "2026-12-01T12:00:00Z"}}),
            2,
        );
        let second = overflowing(
            expected,
            json!({"result": {"at": "2026-12-01T12:00:01Z"}}),
            2,
        );
        settle(&mut one_real, || Some(second), false);
        assert_eq!(one_real.mismatches, 1);
        assert_eq!(one_real.findings.len(), 1);
        assert_eq!(one_real.findings[0].message, left_out_message(1, 7));
        assert!(matches!(
            one_real.findings[0].location,
            Location::Transcript { line: 7, .. }
        ));
        let failed: Vec<usize> = one_real
            .exchanges
            .iter()
            .filter(|e| e.status == ExchangeStatus::Failed)
            .filter_map(|e| e.answer_line)
            .collect();
        assert_eq!(failed, [7]);
    }

    #[test]
    fn a_time_on_both_sides_needs_no_second_run() {
        let mut outcome = outcome(
            json!({"result": {"at": "2026-01-01T00:00:00Z"}}),
            json!({"result": {"at": "2026-12-01T12:00:00Z"}}),
        );
        let settled = settle(&mut outcome, || panic!("no second run is needed"), false);
        assert_eq!(settled.rules, ["/result/at"]);
        assert_eq!(outcome.findings, []);
        assert_eq!(outcome.mismatches, 0);
        assert_eq!(outcome.exchanges[0].status, ExchangeStatus::Passed);
    }

    #[test]
    fn the_diff_of_a_regression_beside_noise_shows_the_regression_alone() {
        let expected = json!({"result": {"at": "2026-01-01T00:00:00Z", "n": 1, "tok": "a"}});
        let actual = json!({"result": {"at": "2026-12-01T12:00:00Z", "n": 2, "tok": "b"}});
        let mut first = outcome(expected.clone(), actual);
        // The second run agrees on `n` and not on `tok`.
        let second = outcome(
            expected,
            json!({"result": {"at": "2026-12-01T12:00:01Z", "n": 2, "tok": "c"}}),
        );
        let settled = settle(&mut first, || Some(second), false);
        assert_eq!(settled.rules, ["/result/at", "/result/tok"]);
        assert_eq!(first.findings.len(), 1);
        let diff = first.findings[0].diff.as_deref().unwrap();
        assert!(
            diff.starts_with("--- expected: t.jsonl:3\n+++ actual: server\n"),
            "{diff}"
        );
        assert!(diff.contains("-    \"n\": 1\n+    \"n\": 2\n"), "{diff}");
        assert!(!diff.contains("tok") && !diff.contains("\"at\""), "{diff}");
        assert_eq!(first.exchanges[0].status, ExchangeStatus::Failed);
        assert_eq!(first.notes.len(), 2);
    }

    #[test]
    fn a_difference_two_runs_agree_on_is_a_regression() {
        let expected = json!({"result": {"n": 1}});
        let mut first = outcome(expected.clone(), json!({"result": {"n": 2}}));
        let second = outcome(expected, json!({"result": {"n": 2}}));
        let settled = settle(&mut first, || Some(second), false);
        assert_eq!(settled.rules, Vec::<String>::new());
        assert_eq!(first.findings.len(), 1);
        assert_eq!(first.notes, Vec::<String>::new());
    }

    #[test]
    fn fail_on_noise_keeps_every_finding_and_says_which_is_noise() {
        let mut outcome = outcome(
            json!({"result": {"id": "123e4567-e89b-12d3-a456-426614174000"}}),
            json!({"result": {"id": "00000000-0000-4000-8000-000000000000"}}),
        );
        settle(&mut outcome, || None, true);
        assert_eq!(outcome.findings.len(), 1);
        assert_eq!(
            outcome.notes,
            [
                "`tools/call` id=2 (line 2): `/result/id` is noise (a UUID on both sides): it fails the run under --fail-on-noise; `--bless` pins it with the ignore rule `/result/id`"
            ]
        );
    }
}
