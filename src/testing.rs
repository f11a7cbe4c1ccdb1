//! Testing a [`Server`] in-process with the transcripts `mcp-replay record`
//! writes.
//!
//! A transcript recorded from a real host against the real binary drives
//! the same server inside a test: [`assert_replays`] replays its client side
//! in causal order, maps ids, applies the transcript's ignore rules,
//! compares every response with the recorded one, and holds the live laws
//! that make sense in one process (`request-answered-once`,
//! `notification-unanswered`, `stdout-is-protocol`, `schema`). It is the
//! replay `mcp-replay check` runs, over an in-memory channel instead of a
//! child's pipes, so a transcript that passes one passes the other.
//!
//! ```
//! use mcp_replay::{Server, ToolSet};
//! # let dir = tempfile::tempdir().unwrap();
//! # let transcript = dir.path().join("ping.jsonl");
//! # std::fs::write(&transcript, concat!(
//! #   r#"{"format":"mcp-replay-transcript","version":1,"tool":"t","created":"c","command":["s"]}"#, "\n",
//! #   r#"{"t":0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#, "\n",
//! #   r#"{"t":0,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}"#, "\n",
//! # )).unwrap();
//!
//! let server = Server::new("demo", "1.0.0", ToolSet::new()).without_capture();
//! mcp_replay::testing::assert_replays(&server, &transcript);
//! ```
//!
//! A failing replay panics with the findings and the diff of each response
//! that changed. Run the test with `MCP_REPLAY_BLESS=1` to accept the live
//! responses: the transcript's server side is rewritten (the changed
//! responses alone, or the whole side when the session changed shape), and
//! the test passes.
//!
//! A placeholder `[REDACTED:NAME]` the recorder left in a client line is
//! filled with the value of `NAME` only when the test names the variable
//! ([`Replay::fill_env`]) or the run does ([`FILL_ENV`], e.g. set by a CI
//! workflow), never because the transcript lists it: otherwise it is sent
//! as it stands, and the [`Verdict`]'s notes say how to allow it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

use crate::client::memory;
use crate::compare::diff::IgnoreRules;
use crate::laws::{LawId, Profile, Severity};
use crate::replay::bless;
use crate::replay::settle as noise;
use crate::replay::{ReplayError, ReplayOptions, ReplayOutcome, replay_on};
use crate::report::{Finding, Location};
use crate::server::Server;
use crate::transcript::{
    FILL_ENV, Redaction, Transcript, TranscriptError, fill_names_from_env, with_fill_names,
};

/// The environment variable that makes [`assert_replays`] (and
/// [`Replay::run`], unless told otherwise) accept the live responses.
pub const BLESS_ENV: &str = "MCP_REPLAY_BLESS";

/// The default deadline of each replay step: an in-process server has no
/// start-up to wait for.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Replays the transcript at `path` against `server` and panics, with the
/// findings and their diffs, unless every exchange matches the recording
/// and every live law holds. With `MCP_REPLAY_BLESS=1` in the environment
/// it rewrites the transcript's server side with the live responses
/// instead.
///
/// # Panics
///
/// When the replay finds anything that fails in the `core` profile, or the
/// transcript cannot be read.
#[track_caller]
pub fn assert_replays(server: &Server, path: impl AsRef<Path>) {
    match Replay::new(path.as_ref()).run(server) {
        Ok(verdict) => verdict.assert_passed(),
        Err(err) => panic!("{err}"),
    }
}

/// A replay of one transcript against an in-process server, with its
/// settings.
#[derive(Debug, Clone)]
pub struct Replay {
    path: PathBuf,
    profile: Profile,
    timeout: Duration,
    bless: Option<bool>,
    fill: Vec<String>,
}

impl Replay {
    /// A replay of the transcript at `path`, in the `core` profile, with
    /// the [`DEFAULT_TIMEOUT`], blessing when `MCP_REPLAY_BLESS` says so.
    pub fn new(path: impl Into<PathBuf>) -> Replay {
        Replay {
            path: path.into(),
            profile: Profile::Core,
            timeout: DEFAULT_TIMEOUT,
            bless: None,
            fill: Vec::new(),
        }
    }

    /// Fills the placeholders `[REDACTED:NAME]` of the client's lines (and
    /// `[REDACTED:NAME:password]`, the password of the URL in `NAME`) with
    /// the value of the environment variable `name` (repeatable). The
    /// variables [`FILL_ENV`] names are filled too; no others are.
    pub fn fill_env(mut self, name: impl Into<String>) -> Replay {
        let name = name.into();
        if !self.fill.contains(&name) {
            self.fill.push(name);
        }
        self
    }

    /// Grades findings in `profile` instead.
    pub fn profile(mut self, profile: Profile) -> Replay {
        self.profile = profile;
        self
    }

    /// Waits at most `timeout` for what each client line waits for.
    pub fn timeout(mut self, timeout: Duration) -> Replay {
        self.timeout = timeout;
        self
    }

    /// Accepts the live responses into the transcript (`true`) or never
    /// (`false`), whatever `MCP_REPLAY_BLESS` says.
    pub fn bless(mut self, bless: bool) -> Replay {
        self.bless = Some(bless);
        self
    }

    /// Replays the transcript against `server`, whose loop runs on the
    /// calling thread while the replay's client runs on another; returns
    /// what it found.
    ///
    /// A tool that never returns holds the call: the client gives up on it
    /// at the step's deadline, but a thread cannot be stopped from outside.
    ///
    /// # Errors
    ///
    /// [`TestingError`] when the transcript cannot be read or replayed, or
    /// a blessing cannot be written.
    pub fn run(&self, server: &Server) -> Result<Verdict, TestingError> {
        let transcript = Transcript::read(&self.path)?;
        let ignore = IgnoreRules::parse(transcript.header.ignore.iter().map(String::as_str))
            .map_err(|message| TestingError::Unusable {
                message: format!("{}:1: {message}", self.path.display()),
            })?;
        let bless = self.bless.unwrap_or_else(bless_from_env);
        let fill = with_fill_names(self.fill.clone(), fill_names_from_env());
        let options = ReplayOptions {
            profile: self.profile,
            timeout: self.timeout,
            startup_timeout: self.timeout,
            grace: self.timeout,
            ignore,
            keep_live: bless,
            bless_hint: format!("{BLESS_ENV}=1 cargo test"),
            redaction: Redaction {
                env: fill.clone(),
                patterns: Vec::new(),
            },
            fill,
            fill_hint: |name| {
                format!("`Replay::fill_env(\"{name}\")` (or `{name}` in `{FILL_ENV}`)")
            },
            command_left: Vec::new(),
        };
        let mut outcome = replay_in_process(server, &transcript, &options)?;
        // Responses that differ only by values that change by themselves
        // (a clock, a fresh id) are noise, as `mcp-replay check` tells
        // them: a second run settles what the kind of value cannot.
        let settled = noise::settle(
            &mut outcome,
            || {
                let mut again = options.clone();
                again.keep_live = false;
                replay_in_process(server, &transcript, &again).ok()
            },
            false,
        );
        let mut verdict = Verdict {
            path: self.path.clone(),
            findings: outcome.findings,
            notes: outcome.notes,
            blessed: 0,
        };
        if let Some(allowance) = outcome.silent {
            verdict.findings.push(Finding::new(
                LawId::RequestAnsweredOnce,
                self.profile,
                Location::Transcript {
                    path: self.path.clone(),
                    line: 1,
                },
                format!(
                    "the server wrote nothing within {}",
                    crate::client::duration::format_duration(allowance)
                ),
            ));
        }
        if !outcome.complete {
            verdict.notes.push(
                "the replay stopped early: the exchanges after the failure were not sent"
                    .to_owned(),
            );
        }
        let changed = outcome.mismatches > 0 || outcome.reshaped || !settled.rules.is_empty();
        if bless && changed {
            if outcome.complete {
                bless::bless(&transcript, &outcome.live, outcome.reshaped, &settled.rules)
                    .map_err(|source| TestingError::Bless {
                        path: self.path.clone(),
                        source,
                    })?;
                let before = verdict.findings.len();
                verdict
                    .findings
                    .retain(|finding| finding.law != LawId::TranscriptMatch);
                verdict.blessed = before - verdict.findings.len();
            } else {
                verdict
                    .notes
                    .push("not blessed: the live session is incomplete".to_owned());
            }
        }
        Ok(verdict)
    }
}

/// Whether `MCP_REPLAY_BLESS` asks for a blessing: set, and neither empty
/// nor `0`.
fn bless_from_env() -> bool {
    wants_bless(std::env::var_os(BLESS_ENV).as_deref())
}

fn wants_bless(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|value| !value.is_empty() && value != "0")
}

/// One replay over an in-memory channel: the server's loop on this
/// thread, the client on a scoped one.
fn replay_in_process(
    server: &Server,
    transcript: &Transcript,
    options: &ReplayOptions,
) -> Result<ReplayOutcome, TestingError> {
    let (channel, mut transport, mut ended) = memory::pair();
    let command = "the in-process server";
    thread::scope(|scope| {
        let client = scope.spawn(|| replay_on(channel, command, transcript, options));
        let served = server.serve(&mut transport);
        ended.set(i32::from(served.is_err()));
        // The client sees the output end, then the loop's end.
        drop(transport);
        drop(ended);
        match client.join() {
            Ok(outcome) => outcome.map_err(TestingError::from),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// What an in-process replay found.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Verdict {
    path: PathBuf,
    findings: Vec<Finding>,
    notes: Vec<String>,
    blessed: usize,
}

impl Verdict {
    /// Whether nothing failed: every finding left is a warning of the
    /// profile the replay ran in.
    pub fn passed(&self) -> bool {
        !self
            .findings
            .iter()
            .any(|finding| finding.severity == Severity::Error)
    }

    /// The findings, in the order they were made.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Remarks that are no findings: recorded notifications that never
    /// came, differences that are noise.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// How many findings a blessing accepted (0 when there was none).
    pub fn blessed(&self) -> usize {
        self.blessed
    }

    /// Panics with the findings and their diffs unless the replay
    /// [`passed`](Verdict::passed).
    ///
    /// # Panics
    ///
    /// When it did not.
    #[track_caller]
    pub fn assert_passed(&self) {
        assert!(self.passed(), "{self}");
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let failed = self
            .findings
            .iter()
            .filter(|finding| finding.severity == Severity::Error)
            .count();
        let outcome = if failed == 0 { "passed" } else { "FAILED" };
        write!(f, "in-process replay of {}: {outcome}", self.path.display())?;
        match self.findings.len() {
            0 => {}
            1 => write!(f, " (1 finding)")?,
            n => write!(f, " ({n} findings)")?,
        }
        if self.blessed > 0 {
            write!(f, "; blessed {} into the transcript", self.blessed)?;
        }
        writeln!(f)?;
        for finding in &self.findings {
            let at = match &finding.location {
                Location::Transcript { path, line } => format!("{}:{line}", path.display()),
                Location::Probe { step, .. } => step.clone(),
            };
            writeln!(
                f,
                "  {} {} {at}: {}",
                finding.severity.as_str(),
                finding.law.as_str(),
                finding.message
            )?;
            if let Some(diff) = &finding.diff {
                for line in diff.lines() {
                    writeln!(f, "      {line}")?;
                }
            }
            if let Some(hint) = &finding.hint {
                writeln!(f, "      hint: {hint}")?;
            }
        }
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        Ok(())
    }
}

/// Why an in-process replay could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestingError {
    /// The transcript cannot be read.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// The transcript can be read but not replayed (an unusable ignore rule
    /// or redaction pattern, a client line cut when recorded).
    #[error("{message}")]
    Unusable {
        /// What is wrong, and where (`file:line`).
        message: String,
    },
    /// The blessed transcript cannot be written.
    #[error("cannot bless `{}`: {source}", .path.display())]
    Bless {
        /// The transcript.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
}

impl From<ReplayError> for TestingError {
    fn from(err: ReplayError) -> TestingError {
        TestingError::Unusable {
            message: err.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::wants_bless;

    #[test]
    fn the_bless_variable_asks_when_set_to_anything_but_nothing_or_zero() {
        assert!(!wants_bless(None));
        assert!(!wants_bless(Some(OsStr::new(""))));
        assert!(!wants_bless(Some(OsStr::new("0"))));
        assert!(wants_bless(Some(OsStr::new("1"))));
        assert!(wants_bless(Some(OsStr::new("yes"))));
    }
}
