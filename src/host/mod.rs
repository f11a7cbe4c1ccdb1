//! The host laws: the host's side of a session judged, from a transcript
//! or live.
//!
//! A [`Judge`] is fed the events of one session as they happened — every
//! line the host wrote, every line the server wrote, the host's end of
//! input, the signals it sent, the server's exit — and holds the host to
//! the host laws of the catalog (`crate::laws`, [`Side::Host`]):
//! [`judge_transcript`] feeds it a transcript, which `check` does for every
//! transcript it reads, and `mcp-replay mock` feeds it a live session as it
//! serves. [`Judge::finish`] gives the [`Verdict`]: each host law held,
//! failed (with its findings) or skipped (with the reason: nothing in the
//! session to judge it by, or a revision without the duty).
//!
//! The judge never needs the server again: it reads what both sides wrote,
//! so a transcript's host is judged whatever server `check` replays it
//! against. What a recording cannot show (what the host read, and when) is
//! bridged two ways: a host's answer to a server request proves it read
//! everything the server wrote before that request (stdout is ordered),
//! and a line the server wrote less than [`RACE_WINDOW`] before a host
//! line that cannot be shown to have read it is taken to have crossed it.
//!
//! `docs/host-laws.md` says what each law means, and which requirements it
//! judges; the module docs of `judge.rs` list them as the code has them.
//!
//! [`Side::Host`]: crate::laws::Side::Host

mod judge;
mod live;

use std::time::Duration;

pub use self::judge::Judge;
pub use self::live::{Live, Watched};
use crate::laws::Profile;
use crate::report::{Coverage, Finding, HostResult, LawOutcome, Location};
use crate::transcript::{Direction, EventKind, Transcript};

/// How long a line may take to cross the other side's: a server line
/// written less than this before a host line, and that the host cannot be
/// shown to have read, may not have been read yet (a cancellation that
/// crosses the answer, a server request the host had no time to answer
/// before it closed stdin).
pub const RACE_WINDOW: Duration = Duration::from_secs(1);

/// How soon after closing stdin a signal is too soon: a host that sends
/// SIGTERM within this of its end of input, while the server still runs,
/// did not wait for it to exit.
pub const SHUTDOWN_PATIENCE: Duration = Duration::from_millis(100);

/// What the session's record says of how the host ended it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ending {
    /// The record cannot say (a version-1 transcript): the host's end of
    /// input and signals are not in it, so their absence means nothing.
    NotRecorded,
    /// The record holds the host's end of input and signals as they came
    /// (a version-2 transcript, a live session); `complete` when it goes on
    /// to the end of the session (the server's exit, the mock's end), so
    /// that what is not in it did not happen.
    Recorded {
        /// The record reaches the end of the session.
        complete: bool,
    },
}

/// What the judge found of a session's host.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Verdict {
    /// The host as it named itself (`clientInfo`: name and version), when
    /// it did; printable characters only, at most 80.
    pub host: Option<String>,
    /// Every host law's outcome, in catalog order.
    pub outcomes: Vec<LawOutcome>,
    /// What broke them, in the order found.
    pub findings: Vec<Finding>,
    /// Remarks that are no findings (a host line recorded cut, which cannot
    /// be judged).
    pub notes: Vec<String>,
    /// What the session showed of the host's requirements of the registry
    /// (`Side::Host`): those observed, those it could not show and why,
    /// the revisions spoken and the capabilities the host declared.
    pub coverage: Coverage,
}

impl Verdict {
    /// The verdict as a report's host result: `source` names what the host
    /// was judged from, `elapsed` how long judging took.
    pub fn into_result(self, source: String, elapsed: Duration) -> HostResult {
        HostResult::new(
            source,
            self.host,
            self.outcomes,
            self.findings,
            self.notes,
            elapsed,
        )
        .with_coverage(self.coverage)
    }
}

/// Judges the host of `transcript` under `profile`.
///
/// Every line the host wrote is judged with what the server wrote around
/// it; a version-2 transcript also says how the host ended the session
/// (`host-shutdown-order`), which a version-1 one cannot.
pub fn judge_transcript(transcript: &Transcript, profile: Profile) -> Verdict {
    let at = |line: usize| Location::Transcript {
        path: transcript.path.clone(),
        line,
    };
    let mut judge = Judge::new(profile);
    let mut last = 1;
    for event in &transcript.events {
        last = event.line;
        match &event.kind {
            EventKind::Line {
                dir: Direction::ClientToServer,
                payload,
                eol,
                cut,
            } => {
                if cut.is_some() {
                    judge.note(format!(
                        "{}:{}: the host's line was cut when recorded; it is not judged",
                        transcript.path.display(),
                        event.line
                    ));
                    continue;
                }
                judge.host_line(payload.as_bytes(), *eol, event.t, at(event.line));
            }
            EventKind::Line {
                dir: Direction::ServerToClient,
                payload,
                ..
            } => judge.server_line(payload.as_bytes(), event.t, at(event.line)),
            EventKind::EndOfInput => judge.end_of_input(event.t, at(event.line)),
            EventKind::Signal(signal) => judge.signal(*signal, event.t, at(event.line)),
            EventKind::Exit(_) => judge.server_exit(event.t),
            _ => {}
        }
    }
    let ending = if transcript.records_host_ending() {
        Ending::Recorded {
            complete: transcript.exit().is_some(),
        }
    } else {
        Ending::NotRecorded
    };
    judge.finish(ending, at(last))
}

#[cfg(test)]
mod tests;
