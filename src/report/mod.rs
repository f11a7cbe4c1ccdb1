//! Findings and the report of a check run, and their renderers.
//!
//! A server that misbehaves is a [`Finding`], never an `Err`: the checker
//! collects findings into a `Report`, and the renderers turn the report
//! into text for people, JSON Lines for programs, or JUnit XML for CI.

use std::path::PathBuf;

use crate::check::laws::{LawId, Profile, Severity};

/// Where a finding happened.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// A line of a transcript.
    Transcript {
        /// The transcript.
        path: PathBuf,
        /// The 1-based line of the event the finding is about.
        line: usize,
    },
    /// A step of a law probe against a server command.
    Probe {
        /// The server command, as a shell would show it.
        command: String,
        /// The probe step, in words (e.g. `ping after a notification`).
        step: String,
    },
}

/// One broken law.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Finding {
    /// The law.
    pub law: LawId,
    /// How much it matters in this run's profile.
    pub severity: Severity,
    /// The profile of the run.
    pub profile: Profile,
    /// The contract the law cites in that profile.
    pub cites: String,
    /// What happened, in one sentence.
    pub message: String,
    /// Where.
    pub location: Location,
    /// For response mismatches: a plain unified diff, expected then actual.
    pub diff: Option<String>,
    /// The exact command that accepts or fixes it, when there is one.
    pub hint: Option<String>,
}

impl Finding {
    /// A finding of `law` at `location`, with the severity and citation the
    /// catalog gives the law in `profile` (an error when the profile does not
    /// grade the law).
    pub fn new(
        law: LawId,
        profile: Profile,
        location: Location,
        message: impl Into<String>,
    ) -> Finding {
        let entry = crate::check::laws::law(law);
        Finding {
            law,
            severity: entry.severity(profile).unwrap_or(Severity::Error),
            profile,
            cites: entry.cites(profile).to_owned(),
            message: message.into(),
            location,
            diff: None,
            hint: None,
        }
    }

    /// The same finding with another severity.
    pub fn with_severity(mut self, severity: Severity) -> Finding {
        self.severity = severity;
        self
    }

    /// The same finding with a diff.
    pub fn with_diff(mut self, diff: String) -> Finding {
        self.diff = Some(diff);
        self
    }

    /// The same finding with a hint.
    pub fn with_hint(mut self, hint: String) -> Finding {
        self.hint = Some(hint);
        self
    }
}

/// How one law fared in one probe run or transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LawStatus {
    /// Checked, and it held.
    Held,
    /// Checked, and it was broken: the run's findings say how.
    Failed,
    /// Not checked, with the reason (e.g. the negotiated revision has no
    /// such rule, or the server offers no tool to probe with).
    Skipped(String),
    /// Broken or not, the user waived it (`--waive`).
    Waived,
}

/// The status of one law.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LawOutcome {
    /// The law.
    pub law: LawId,
    /// How it fared.
    pub status: LawStatus,
}

impl LawOutcome {
    /// A law's outcome.
    pub fn new(law: LawId, status: LawStatus) -> LawOutcome {
        LawOutcome { law, status }
    }
}
