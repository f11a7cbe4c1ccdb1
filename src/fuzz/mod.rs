//! `mcp-replay fuzz`: every tool a server lists called with what an agent
//! will really send, and each bug found kept as a transcript that
//! `mcp-replay check` replays.
//!
//! [`run`] opens the server as era detection decides (`server/discover`
//! first, as the probes do; `initialize` for a legacy server), chooses the
//! tools (those whose annotations say they change nothing, unless the user
//! names tools or asks for all), draws each tool's cases from its
//! `inputSchema` (`generate.rs`, labelled by `schema.rs`, strings for
//! patterns by `pattern.rs`, randomness from the seed by `rng.rs`), sends
//! them pipelined over the checker's client (`conn.rs`), holds each answer
//! to the checks of `checks.rs` (each a law of the catalog), puts what no
//! single answer explains (a crash, a hang, a line that is no message) down
//! to one call by running the suspects alone, shrinks each distinct
//! failure (`shrink.rs`), confirms it alone on a fresh process and writes
//! that session as a transcript (`findings.rs`). It returns the same
//! [`Report`] `check` returns, graded the same way, so the renderers and
//! exit codes are `check`'s.

mod checks;
mod conn;
mod findings;
mod run;
mod shrink;

use std::path::PathBuf;
use std::time::Duration;

use crate::laws::{LawId, Profile};
use crate::report::Report;

/// The directory finding transcripts go into when none is given.
pub const DEFAULT_FINDINGS: &str = "fuzz-findings";

/// The cases drawn per tool when no number is given.
pub const DEFAULT_CASES: usize = 100;

/// The time budget of the calls when none is given.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(60);

/// The deadline of one call when none is given.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// How many calls are in flight at once when no number is given.
pub const DEFAULT_PIPELINE: usize = 8;

/// The era a fuzz run speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum EraChoice {
    /// As era detection decides: 2026-07-28 when the server answers
    /// `server/discover`, else the legacy handshake.
    #[default]
    Auto,
    /// The legacy handshake (`initialize` for 2025-11-25).
    Legacy,
    /// 2026-07-28, statelessly.
    Modern,
}

/// How a fuzz run goes: what `mcp-replay fuzz` was asked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FuzzOptions {
    /// The server command and its arguments.
    pub command: Vec<String>,
    /// The server's working directory; a scratch directory (removed after
    /// the run) when `None`.
    pub cwd: Option<PathBuf>,
    /// The contract findings are graded by.
    pub profile: Profile,
    /// Laws whose findings do not fail the run.
    pub waive: Vec<LawId>,
    /// Whether warnings fail the run.
    pub deny_warnings: bool,
    /// Whether a requirement not observed fails the run.
    pub deny_unobserved: bool,
    /// The seed of the run's cases; a fresh one (reported) when `None`.
    pub seed: Option<u64>,
    /// The cases drawn per tool.
    pub cases: usize,
    /// How long the whole run may take: cases are sent for three quarters
    /// of it at most, every wait ends with it (a wait it cuts short is no
    /// finding), and shrinking and confirming the findings stop there (a
    /// shrink keeps the smallest failing arguments found so far).
    pub budget: Duration,
    /// The deadline of one call.
    pub call_timeout: Duration,
    /// The least a fresh process has for its first answer.
    pub startup_timeout: Duration,
    /// How long a server may take to exit after its stdin closes.
    pub grace: Duration,
    /// Tools to call whatever their annotations say; only these when given
    /// (unless `all_tools`).
    pub tools: Vec<String>,
    /// Call every tool, whatever its annotations say.
    pub all_tools: bool,
    /// By default call only tools annotated `readOnlyHint: true`, not those
    /// that only add (`destructiveHint: false`).
    pub read_only: bool,
    /// Tools never to call, whatever else says so.
    pub skip_tools: Vec<String>,
    /// The era to speak.
    pub era: EraChoice,
    /// How many calls are in flight at once; 1 sends each after the
    /// previous answer.
    pub pipeline: usize,
    /// Where finding transcripts go; none are written when `None`.
    pub findings: Option<PathBuf>,
    /// Whether failing cases are shrunk.
    pub shrink: bool,
    /// Whether a run that fuzzes nothing (no tool called, or no call
    /// reached a tool) passes; by default it is an error (exit 2).
    pub allow_empty: bool,
}

impl Default for FuzzOptions {
    fn default() -> FuzzOptions {
        FuzzOptions {
            command: Vec::new(),
            cwd: None,
            profile: Profile::Core,
            waive: Vec::new(),
            deny_warnings: false,
            deny_unobserved: false,
            seed: None,
            cases: DEFAULT_CASES,
            budget: DEFAULT_BUDGET,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            startup_timeout: crate::client::DEFAULT_STARTUP_TIMEOUT,
            grace: Duration::from_secs(2),
            tools: Vec::new(),
            all_tools: false,
            read_only: false,
            skip_tools: Vec::new(),
            era: EraChoice::Auto,
            pipeline: DEFAULT_PIPELINE,
            findings: Some(PathBuf::from(DEFAULT_FINDINGS)),
            shrink: true,
            allow_empty: false,
        }
    }
}

impl FuzzOptions {
    /// The options of a run against `command`, every other one its default.
    pub fn new(command: Vec<String>) -> FuzzOptions {
        FuzzOptions {
            command,
            ..FuzzOptions::default()
        }
    }
}

/// Why a fuzz run could not start at all. A server that cannot be started
/// or opened is no such error: the report says so, as `check`'s does.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FuzzError {
    /// No server command was given.
    #[error("no server command to fuzz")]
    NoCommand,
    /// The scratch directory the server runs in cannot be made.
    #[error("cannot make a scratch directory for the server to run in")]
    Scratch(#[source] std::io::Error),
}

/// Fuzzes the server `options` names; `progress` hears `(calls made,
/// calls planned)` after each call.
///
/// When a signal stops every server (`process::stop_on_signals`), the run
/// ends at once: the report holds what finished, and its
/// [`Report::interrupted`] names the command.
///
/// # Errors
///
/// [`FuzzError`] when the run cannot start: no command, no scratch
/// directory.
pub fn run(
    options: &FuzzOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Report, FuzzError> {
    run::run(options, progress)
}

/// A duration for messages: `5 s`, `300 ms`, `2.5 s`.
fn seconds(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else if duration.as_secs() == 0 {
        format!("{} ms", duration.as_millis())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}
