//! The law probes: short scripted sessions with fresh server processes, one
//! set per distinct server command.

use std::time::Duration;

use crate::check::laws::Profile;
use crate::process::ServerCommand;
use crate::report::{Finding, LawOutcome};

/// How the probes run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProbeOptions {
    /// The profile findings are graded in.
    pub profile: Profile,
    /// How long stdout is watched after spawn, before the first message,
    /// for `quiet-before-serving`.
    pub settle: Duration,
    /// The deadline of each step (one answer).
    pub timeout: Duration,
    /// How long the server may take to exit after stdin closes or SIGTERM.
    pub grace: Duration,
}

impl Default for ProbeOptions {
    fn default() -> ProbeOptions {
        ProbeOptions {
            profile: Profile::Core,
            settle: Duration::from_millis(300),
            timeout: Duration::from_secs(5),
            grace: Duration::from_secs(2),
        }
    }
}

/// What the probes found for one server command.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProbeReport {
    /// The command, as a shell would show it.
    pub command: String,
    /// Every implemented law's outcome, in catalog order.
    pub outcomes: Vec<LawOutcome>,
    /// The findings, in the order they were made.
    pub findings: Vec<Finding>,
}

/// Runs every law probe against fresh processes of `command`.
pub fn run(command: &ServerCommand, options: &ProbeOptions) -> ProbeReport {
    let _ = options;
    ProbeReport {
        command: command.display(),
        outcomes: Vec::new(),
        findings: Vec::new(),
    }
}
