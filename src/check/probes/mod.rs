//! The law probes: short scripted sessions with fresh server processes, one
//! set per distinct server command.
//!
//! A server's start is most of its cost (an interpreter's imports are CPU
//! work), so the sessions share processes: a probe that may end its server
//! comes last in its session, and runs again on a process of its own only
//! when the server ended before it. A legacy server gets three processes,
//! one that speaks 2026-07-28 five; they start through a gate (`start.rs`):
//! in order, no more starting at once than the machine has cores.
//!
//! - the conversation: `initialize`, `ping`, notifications, unknown methods,
//!   the tool list and calls, a string id, cancellations, malformed input
//!   (`parse-error-keeps-serving`), and last end of input: `eof-drains` and
//!   `eof-exit-zero`;
//! - the quiet start, on a process that starts beside the gate: watched,
//!   unspoken to, for the settle window (and past the slowest start of the
//!   others), then `notifications/cancelled` as its very first message
//!   (`cancel-tolerated`) before `initialize` for 2025-03-26, the tool
//!   list and a batch, and last `sigterm-exit-143`;
//! - the modern era: `server/discover` first, as the spec tells a client
//!   that speaks both eras; a server that speaks 2026-07-28 gets its laws
//!   (`discover`, `list-cache-hints`, the removed methods under
//!   `unknown-method`, a `subscriptions/listen` stream, malformed input, a
//!   tool called with valid arguments and an `input_required` answer
//!   retried, statelessness on one more fresh process, and a listen stream
//!   open at end of input), a legacy one has them skipped;
//! - version negotiation: `initialize` with a revision no server supports,
//!   and under the spec profile `tool-error-is-result` in the revision
//!   answered; on the modern session's process for a legacy server (as a
//!   client that speaks both eras falls back), on a process of its own
//!   for a modern one.
//!
//! Then `era` settles what the sessions found together: a server that
//! speaks 2026-07-28 and refuses `initialize` is modern-only, and the
//! legacy laws it does not owe are skipped, not failed; a server that
//! speaks both eras has each law graded in each, with both verdicts on
//! the laws the eras differ on; the revisions answered across the
//! sessions are held to each other.
//!
//! Negatives are proven with fences, never with sleeps: a notification or a
//! malformed line is sent with a `ping` right behind it, then a second
//! `ping` once the first is answered, and a response that arrives before the
//! second ping's answer answers the line (a server may answer out of order).

pub mod cli;
mod conversation;
mod era;
mod families;
mod gate;
mod lifecycle;
mod modern;
mod runner;
mod session;
mod start;
mod step;
mod steps;
mod suite;
mod tools;
mod watch;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::jsonrpc::RpcError;
use crate::laws::{CATALOG, LawId, Profile, Severity};
use crate::process::{ServerCommand, SpawnError};
use crate::report::{Coverage, Finding, LawOutcome, LawStatus, Location};
use crate::revision::Era;
use crate::transcript::{Redaction, Redactor, env_secret_names};

/// How the probes run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProbeOptions {
    /// The profile findings are graded in.
    pub profile: Profile,
    /// How long stdout is watched after spawn, before the first message,
    /// for `quiet-before-serving`.
    pub settle: Duration,
    /// The deadline of each step (one answer). A fresh process's first
    /// answer, to `initialize`, may take three times as long, or
    /// `startup_timeout` if that is longer: interpreters and package runners
    /// start slowly.
    pub timeout: Duration,
    /// The least a fresh process has for its first answer (`--startup-timeout`,
    /// as replay allows).
    pub startup_timeout: Duration,
    /// How long the server may take to exit after stdin closes or SIGTERM.
    pub grace: Duration,
    /// More variables and patterns to redact (`redactEnv` and `redact` in
    /// `mcp-replay.json`), besides the secrets of the environment.
    pub redaction: Redaction,
    /// The invalid flag of `bad-flag-exits-2`, when the CLI probes run
    /// (`--cli-probes`); `None` leaves them out.
    pub cli: Option<String>,
    /// The tools a probe may call for real, whatever their annotations say
    /// (`--tool`); when empty, only tools annotated `readOnlyHint: true`
    /// are.
    pub tools: Vec<String>,
}

impl Default for ProbeOptions {
    fn default() -> ProbeOptions {
        ProbeOptions {
            profile: Profile::Core,
            settle: Duration::from_secs(1),
            timeout: Duration::from_secs(5),
            startup_timeout: crate::check::DEFAULT_STARTUP_TIMEOUT,
            grace: Duration::from_secs(2),
            redaction: Redaction::default(),
            cli: None,
            tools: Vec::new(),
        }
    }
}

/// What the probes found for one server command.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProbeReport {
    /// The command, as a shell would show it.
    pub command: String,
    /// The outcome of every law the probes check, in catalog order (the
    /// reserved laws and `transcript-match`, which replay checks, are not
    /// listed).
    pub outcomes: Vec<LawOutcome>,
    /// The findings, session by session in the order above, each session's
    /// in the order they were made.
    pub findings: Vec<Finding>,
    /// The server wrote nothing at all on stdout within this allowance for
    /// its first answer: it could not be probed (a server slow to start
    /// has broken no law), and every law it would have shown is skipped.
    pub silent: Option<Duration>,
    /// The requirements of the registry the probes observed, and those a
    /// step meant to observe and could not, with why.
    pub coverage: Coverage,
}

impl ProbeReport {
    /// The outcome of `law`, if the probes check it.
    pub fn status(&self, law: LawId) -> Option<&LawStatus> {
        self.outcomes
            .iter()
            .find(|outcome| outcome.law == law)
            .map(|outcome| &outcome.status)
    }
}

/// Whether the probes check `law`: every implemented law of the server
/// but `transcript-match`, which belongs to replay, and the CLI probes,
/// which run only when asked.
pub fn is_probed(law: LawId) -> bool {
    law.side() == crate::laws::Side::Server
        && law != LawId::TranscriptMatch
        && !cli::LAWS.contains(&law)
        && crate::laws::law(law).implemented
}

/// Runs every law probe against fresh processes of `command`.
///
/// The suite's steps (`suite.rs`) run lane by lane, each lane on a thread
/// of its own with its process; the processes start in the order the
/// lanes declare, no more than the machine's cores at once (`start.rs`),
/// and every process is killed and reaped before `run` returns.
///
/// # Errors
///
/// [`SpawnError`] when the server cannot be started at all: that is no
/// finding about the server, but a command to fix.
pub fn run(command: &ServerCommand, options: &ProbeOptions) -> Result<ProbeReport, SpawnError> {
    // A secret set where the check runs (in CI) must not reach a finding
    // that quotes what the server wrote.
    let mut env = env_secret_names();
    env.extend(options.redaction.env.iter().cloned());
    let redactor = Redactor::from_env(&Redaction {
        env,
        patterns: options.redaction.patterns.clone(),
    })
    .unwrap_or_default();
    let starter = start::Starter::new(command, options, &redactor);
    let mut ledgers = runner::run(&starter, suite::LANES)?;
    let lane = |ledgers: &[Ledger], name: &str| ledgers.iter().position(|l| l.session == name);
    // A line at start reaches the conversation too, before its first
    // answer: the finding of the session that watched the quiet start
    // stands for both.
    if let (Some(quiet), Some(conversation)) = (
        lane(&ledgers, suite::QUIET),
        lane(&ledgers, suite::CONVERSATION),
    ) && ledgers[quiet].failed(LawId::QuietBeforeServing)
    {
        ledgers[conversation].forget(LawId::QuietBeforeServing);
    }
    // A server that ends before answering a cancellation sent first ended
    // for the cancellation only if it answers `initialize` without one.
    let opened = lane(&ledgers, suite::CONVERSATION).is_some_and(|conversation| {
        !ledgers[conversation].negotiated.is_empty() || ledgers[conversation].refused.is_some()
    });
    if !opened
        && let Some(first) = lane(&ledgers, suite::QUIET)
        && ledgers[first].failed(LawId::CancelTolerated)
    {
        let first = &mut ledgers[first];
        first.withdraw(LawId::CancelTolerated);
        first.skip(
            LawId::CancelTolerated,
            "the server answered no initialize, with or without a cancellation before it",
        );
    }
    let eras = era::settle(&mut ledgers);
    let mut all = Ledger::new(command.display(), options.profile, "");
    // A server that wrote nothing to any session may just start slowly;
    // one that answered some session and not another did not.
    if ledgers.iter().all(|ledger| ledger.silent.is_some()) {
        all.silent = ledgers[0].silent;
    }
    for ledger in ledgers {
        all.merge(ledger);
    }
    let mut report = all.into_report();
    for outcome in &mut report.outcomes {
        if let Some(verdicts) = eras.get(&outcome.law) {
            *outcome = outcome.clone().with_eras(verdicts.clone());
        }
    }
    if let Some(bad_flag) = &options.cli {
        let (outcomes, findings) = cli::run(command, options, bad_flag)?;
        report.outcomes.extend(outcomes);
        report.findings.extend(findings);
    }
    Ok(report)
}

/// The words that end a law's notes once they are cut.
const MORE_NOTES: &str = "more values not judged are left out";

/// Adds `note` to `notes` once, and up to `MAX_UNJUDGED` of them; past it,
/// one last note says there are more.
fn keep_note(notes: &mut Vec<String>, note: String) {
    if notes.contains(&note) {
        return;
    }
    if notes.len() < crate::client::MAX_UNJUDGED {
        notes.push(note);
    } else if notes.last().map(String::as_str) != Some(MORE_NOTES) {
        notes.push(MORE_NOTES.to_owned());
    }
}

/// One `initialize` answered with a result.
#[derive(Debug, Clone)]
pub(crate) struct Negotiated {
    /// The revision asked for.
    pub requested: String,
    /// The revision answered.
    pub answered: String,
    /// The step that asked.
    pub step: String,
}

/// What one session learned about each law: findings, laws that held, and
/// laws it had to skip, with the reason.
#[derive(Debug)]
pub(crate) struct Ledger {
    command: String,
    profile: Profile,
    /// The session's name, which each finding's step starts with (`eof
    /// session: …`); empty for the ledger that merges them.
    session: &'static str,
    held: BTreeSet<LawId>,
    skipped: BTreeMap<LawId, String>,
    /// What each law could not decide, with where and why.
    notes: BTreeMap<LawId, Vec<String>>,
    findings: Vec<Finding>,
    /// See [`ProbeReport::silent`].
    pub(crate) silent: Option<Duration>,
    /// For each finding, the step that tells it apart from another
    /// session's: the step without the session's name, for findings that
    /// sessions repeat alike (one answered `notifications/initialized` is
    /// one finding, whichever sessions sent it).
    keys: Vec<String>,
    /// The era the session speaks, which its findings are tagged with.
    pub(crate) era: Option<Era>,
    /// A legacy session: the error `initialize` answered when the session
    /// could not open in any revision (a modern-only server answers so).
    pub(crate) refused: Option<RpcError>,
    /// The modern session: the server speaks 2026-07-28's era, with the
    /// versions its `DiscoverResult` named (none after a modern error).
    pub(crate) modern: Option<Vec<String>>,
    /// The modern session: what `server/discover` answered when it showed
    /// no modern era (an error a legacy server gives, or silence), in words.
    pub(crate) no_discover: Option<String>,
    /// Each revision asked for in `initialize`, with the one answered and
    /// the step that asked.
    pub(crate) negotiated: Vec<Negotiated>,
    /// The requirements observed, and those meant and not observed.
    pub(crate) coverage: Coverage,
    /// The requirements the step under way said it could not observe.
    pub(crate) step_missed: Vec<&'static str>,
}

impl Ledger {
    fn new(command: String, profile: Profile, session: &'static str) -> Ledger {
        Ledger {
            command,
            profile,
            session,
            held: BTreeSet::new(),
            skipped: BTreeMap::new(),
            notes: BTreeMap::new(),
            findings: Vec::new(),
            silent: None,
            keys: Vec::new(),
            era: None,
            refused: None,
            modern: None,
            no_discover: None,
            negotiated: Vec::new(),
            coverage: Coverage::default(),
            step_missed: Vec::new(),
        }
    }

    /// The requirement `id` could not be observed, and why.
    fn miss(&mut self, id: &'static str, why: impl Into<String>) {
        self.coverage.miss(id, why);
        self.step_missed.push(id);
    }

    /// The profile findings are graded in.
    fn profile(&self) -> Profile {
        self.profile
    }

    /// `law` was checked (it failed if any finding names it).
    fn held(&mut self, law: LawId) {
        self.held.insert(law);
    }

    /// `law` could not be checked; the first reason given is kept.
    fn skip(&mut self, law: LawId, reason: impl Into<String>) {
        self.skipped.entry(law).or_insert_with(|| reason.into());
    }

    /// `law` could not decide what it asks of an answer at `step`:
    /// neither held nor failed there. Each note is kept once.
    fn note(&mut self, law: LawId, step: &str, note: &str) {
        let note = match self.session {
            "" => format!("{step}: {note}"),
            session => format!("{session} session: {step}: {note}"),
        };
        keep_note(self.notes.entry(law).or_default(), note);
    }

    /// A finding of `law` at `step`, with the catalog's severity; kept
    /// once when other sessions make it alike.
    fn fail(&mut self, law: LawId, step: &str, message: impl Into<String>) {
        self.fail_keyed(law, step, step.to_owned(), message);
    }

    /// A finding of `law` at `step` that each session makes on its own, and
    /// that is kept once per session.
    fn fail_per_session(&mut self, law: LawId, step: &str, message: impl Into<String>) {
        let key = format!("{}: {step}", self.session);
        self.fail_keyed(law, step, key, message);
    }

    fn fail_keyed(&mut self, law: LawId, step: &str, key: String, message: impl Into<String>) {
        let step = if self.session.is_empty() {
            step.to_owned()
        } else {
            format!("{} session: {step}", self.session)
        };
        let location = Location::Probe {
            command: self.command.clone(),
            step,
        };
        self.findings
            .push(Finding::new(law, self.profile, location, message).with_era(self.era));
        self.keys.push(key);
    }

    /// A finding of `law` at `step` with a severity of its own (the
    /// catalog's nuances: what one profile only warns about), kept once
    /// like [`Ledger::fail`]'s.
    fn fail_as(&mut self, law: LawId, severity: Severity, step: &str, message: impl Into<String>) {
        self.fail(law, step, message);
        if let Some(finding) = self.findings.pop() {
            self.findings.push(finding.with_severity(severity));
        }
    }

    /// A finding of `law` at `step` that only the `core` profile makes:
    /// under `spec` the same answer is held or a warning
    /// ([`Finding::core_only`]).
    fn fail_core_only(&mut self, law: LawId, step: &str, message: impl Into<String>) {
        self.fail(law, step, message);
        if let Some(finding) = self.findings.pop() {
            self.findings.push(finding.with_core_only());
        }
    }

    /// Names the requirement of the registry the last finding shows
    /// broken. A finding that names none is taken for the first its law
    /// judges that applies to the run, which may be another than the one
    /// it broke: a finding of a law that judges several says which.
    fn names(&mut self, id: &'static str) {
        if let Some(finding) = self.findings.pop() {
            self.findings.push(finding.with_requirement(id));
        }
    }

    /// How many findings the ledger holds: where the findings of a cause
    /// about to be judged start ([`Ledger::one_cause`]).
    fn mark(&self) -> usize {
        self.findings.len()
    }

    /// The findings made since `mark` have one cause, named `cause`: the
    /// report shows them as one, under the first (the law of the step
    /// that asked), naming the others.
    fn one_cause(&mut self, mark: usize, cause: &str) {
        let cause = format!("{} session: {cause}", self.session);
        for finding in self.findings.iter_mut().skip(mark) {
            finding.cause = Some(cause.clone());
        }
    }

    /// Drops the findings of `law`.
    fn forget(&mut self, law: LawId) {
        let mut keys = std::mem::take(&mut self.keys).into_iter();
        let findings = std::mem::take(&mut self.findings);
        for finding in findings {
            let key = keys.next().unwrap_or_default();
            if finding.law != law {
                self.findings.push(finding);
                self.keys.push(key);
            }
        }
    }

    /// Drops all the ledger says of `law`: its findings, that it held, and
    /// why it was skipped.
    fn withdraw(&mut self, law: LawId) {
        self.forget(law);
        self.held.remove(&law);
        self.skipped.remove(&law);
    }

    /// Whether the ledger says anything of `law`: a finding, that it held,
    /// or why it was skipped.
    fn mentions(&self, law: LawId) -> bool {
        self.failed(law) || self.held.contains(&law) || self.skipped.contains_key(&law)
    }

    /// What `ledgers` together say of `law`, as the report grades it:
    /// failed if any finding names it, else held if any held it, else
    /// skipped with the first reason; `None` when none mentions it.
    fn status_among<'a>(
        ledgers: impl Iterator<Item = &'a Ledger>,
        law: LawId,
    ) -> Option<LawStatus> {
        let mut status = None;
        for ledger in ledgers {
            if ledger.failed(law) {
                return Some(LawStatus::Failed);
            }
            if ledger.held.contains(&law) {
                status = Some(LawStatus::Held);
            } else if let Some(reason) = ledger.skipped.get(&law)
                && status.is_none()
            {
                status = Some(LawStatus::Skipped(reason.clone()));
            }
        }
        status
    }

    /// Whether some finding names `law`.
    fn failed(&self, law: LawId) -> bool {
        self.findings.iter().any(|finding| finding.law == law)
    }

    /// Adds the ledger of another process of the same lane: what it found,
    /// as [`Ledger::merge`] does, and what it learned of the server (its
    /// era, the refusal, the versions, the revisions negotiated), where
    /// this ledger has not learned it yet.
    fn merge_process(&mut self, other: Ledger) {
        let mut other = other;
        self.era = self.era.or(other.era);
        self.silent = self.silent.or(other.silent);
        if self.refused.is_none() {
            self.refused = other.refused.take();
        }
        if self.modern.is_none() {
            self.modern = other.modern.take();
        }
        if self.no_discover.is_none() {
            self.no_discover = other.no_discover.take();
        }
        self.negotiated.append(&mut other.negotiated);
        self.merge(other);
    }

    /// Adds another session's ledger; a finding already made (the same law,
    /// severity, message and step, whichever session made it, as sessions
    /// that share a start make) is kept once, as the first session made it.
    fn merge(&mut self, other: Ledger) {
        self.coverage.absorb(other.coverage);
        self.held.extend(other.held);
        for (law, reason) in other.skipped {
            self.skip(law, reason);
        }
        for (law, notes) in other.notes {
            let known = self.notes.entry(law).or_default();
            for note in notes {
                keep_note(known, note);
            }
        }
        for (finding, key) in other.findings.into_iter().zip(other.keys) {
            let made = self
                .findings
                .iter()
                .zip(&self.keys)
                .any(|(known, known_key)| {
                    known.law == finding.law
                        && known.era == finding.era
                        && known.severity == finding.severity
                        && known.message == finding.message
                        && *known_key == key
                });
            if !made {
                self.findings.push(finding);
                self.keys.push(key);
            }
        }
    }

    fn into_report(self) -> ProbeReport {
        let outcomes = CATALOG
            .iter()
            .filter(|law| is_probed(law.id))
            .map(|law| {
                let status = if self.failed(law.id) {
                    LawStatus::Failed
                } else if self.held.contains(&law.id) {
                    LawStatus::Held
                } else {
                    LawStatus::Skipped(
                        self.skipped
                            .get(&law.id)
                            .cloned()
                            .unwrap_or_else(|| "not reached".to_owned()),
                    )
                };
                let notes = self.notes.get(&law.id).cloned().unwrap_or_default();
                LawOutcome::new(law.id, status).with_notes(notes)
            })
            .collect();
        ProbeReport {
            command: self.command,
            outcomes,
            findings: self.findings,
            silent: self.silent,
            coverage: self.coverage,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_fails_its_law_whatever_else_held() {
        let mut ledger = Ledger::new("server".to_owned(), Profile::Spec, "");
        ledger.held(LawId::Ping);
        ledger.fail(LawId::Ping, "ping", "ping answered {\"pong\":true}");
        ledger.held(LawId::UnknownMethod);
        ledger.skip(LawId::EofDrains, "first reason");
        ledger.skip(LawId::EofDrains, "second reason");
        ledger.fail_as(LawId::UnknownTool, Severity::Warning, "call", "isError");
        let report = ledger.into_report();
        assert_eq!(report.status(LawId::Ping), Some(&LawStatus::Failed));
        assert_eq!(report.status(LawId::UnknownMethod), Some(&LawStatus::Held));
        assert_eq!(
            report.status(LawId::EofDrains),
            Some(&LawStatus::Skipped("first reason".to_owned()))
        );
        assert_eq!(report.status(LawId::TranscriptMatch), None);
        assert_eq!(report.status(LawId::HelpDoesNotServe), None);
        assert_eq!(report.findings[0].severity, Severity::Error);
        assert_eq!(report.findings[1].severity, Severity::Warning);
        assert_eq!(
            report.findings[0].location,
            Location::Probe {
                command: "server".to_owned(),
                step: "ping".to_owned()
            }
        );
    }

    #[test]
    fn outcomes_follow_the_catalog() {
        let report = Ledger::new("server".to_owned(), Profile::Core, "").into_report();
        let laws: Vec<LawId> = report.outcomes.iter().map(|o| o.law).collect();
        let expected: Vec<LawId> = LawId::ALL
            .iter()
            .copied()
            .filter(|l| is_probed(*l))
            .collect();
        assert_eq!(laws, expected);
        assert_eq!(laws.len(), 21);
    }

    /// What a law could not decide is kept per law, once, with the
    /// session and step that met it, and held laws stay held.
    #[test]
    fn notes_of_what_was_not_judged_reach_the_law_once() {
        let mut all = Ledger::new("server".to_owned(), Profile::Core, "");
        let mut one = Ledger::new("server".to_owned(), Profile::Core, "modern");
        one.held(LawId::Schema);
        one.note(LawId::Schema, "tools/call", "not judged (schema): why");
        one.note(LawId::Schema, "tools/call", "not judged (schema): why");
        all.merge(one);
        let report = all.into_report();
        let schema = report
            .outcomes
            .iter()
            .find(|outcome| outcome.law == LawId::Schema)
            .unwrap();
        assert_eq!(schema.status, LawStatus::Held);
        assert_eq!(
            schema.notes,
            ["modern session: tools/call: not judged (schema): why"]
        );
    }

    #[test]
    fn merged_sessions_keep_a_shared_finding_once_and_name_its_session() {
        let mut all = Ledger::new("server".to_owned(), Profile::Core, "");
        let mut one = Ledger::new("server".to_owned(), Profile::Core, "one");
        one.fail(LawId::NotificationUnanswered, "initialize", "answered");
        one.fail_per_session(LawId::StdoutIsProtocol, "initialize", "banner");
        let mut two = Ledger::new("server".to_owned(), Profile::Core, "two");
        two.fail(LawId::NotificationUnanswered, "initialize", "answered");
        two.fail(LawId::NotificationUnanswered, "ping", "answered");
        two.fail_per_session(LawId::StdoutIsProtocol, "initialize", "banner");
        all.merge(one);
        all.merge(two);
        let found: Vec<(LawId, String)> = all
            .findings
            .iter()
            .map(|finding| match &finding.location {
                Location::Probe { step, .. } => (finding.law, step.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    LawId::NotificationUnanswered,
                    "one session: initialize".to_owned()
                ),
                (
                    LawId::StdoutIsProtocol,
                    "one session: initialize".to_owned()
                ),
                (
                    LawId::NotificationUnanswered,
                    "two session: ping".to_owned()
                ),
                (
                    LawId::StdoutIsProtocol,
                    "two session: initialize".to_owned()
                ),
            ]
        );
    }
}
