//! Findings and the report of a check run, and their renderers.
//!
//! A server that misbehaves is a [`Finding`], never an `Err`: the checker
//! collects findings into a [`Report`], and the renderers turn the report
//! into text for people ([`human`]), JSON Lines for programs ([`json`]), or
//! JUnit XML for CI ([`junit`]). Renderers write to an `impl Write` they are
//! handed and never print.

mod color;
pub mod escape;
mod fold;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
mod requirements;
pub mod sarif;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

pub use self::color::{ColorChoice, Palette};
pub use self::requirements::{RequirementOutcome, RequirementStatus, RequirementTally};
use crate::laws::{LawId, Profile, Severity};

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
    /// The era of the protocol the probe session spoke when it made the
    /// finding (a server that speaks both is probed in both); `None` for
    /// replay findings and for what comes before any era is spoken.
    pub era: Option<crate::revision::Era>,
    /// For a finding of `mcp-replay fuzz`: the call that makes it.
    pub fuzz: Option<Box<FuzzCase>>,
    /// The finding is a rule of the `core` profile alone: under `--profile
    /// spec` the same answer is held, or a warning at most (an unknown tool
    /// answered -32602 where MCP-CORE asks -32601). `false` where that is
    /// not known.
    pub core_only: bool,
    /// The requirement of the registry the finding shows broken
    /// ([`crate::laws::registry`]); `None` where the law's first
    /// requirement that applies to the run (its revisions, the peer's
    /// capabilities) is meant.
    pub requirement: Option<&'static str>,
    /// What made the finding, as its producer names it (the answer a
    /// step judged): findings of one subject with the same cause are
    /// reported as one ([`Report::fold_causes`]); `None` when the
    /// producer names none.
    pub cause: Option<String>,
    /// The other laws the finding's cause breaks, folded into it: one
    /// cause, one finding.
    pub also: Vec<Also>,
    /// The other places the same finding was made (the same law and
    /// message: a banner every session meets), folded into it; the
    /// finding was seen `1 + repeats.len()` times.
    pub repeats: Vec<Location>,
}

/// A law the cause of a finding breaks besides the finding's own, with
/// what its own finding said.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Also {
    /// The law.
    pub law: LawId,
    /// Its severity in the run's profile.
    pub severity: Severity,
    /// What it means for the run, as graded before it was folded.
    pub disposition: Disposition,
    /// What its finding said.
    pub message: String,
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
        let entry = crate::laws::law(law);
        Finding {
            law,
            severity: entry.severity(profile).unwrap_or(Severity::Error),
            profile,
            cites: crate::laws::render_cites(entry.cites(profile)),
            message: message.into(),
            location,
            diff: None,
            hint: None,
            era: None,
            fuzz: None,
            core_only: false,
            requirement: None,
            cause: None,
            also: Vec::new(),
            repeats: Vec::new(),
        }
    }

    /// The same finding, made by `cause` ([`Finding::cause`]).
    pub fn with_cause(mut self, cause: impl Into<String>) -> Finding {
        self.cause = Some(cause.into());
        self
    }

    /// The laws the finding breaks besides its own, each once, in the
    /// order they were folded into it.
    pub fn also_laws(&self) -> Vec<LawId> {
        let mut laws: Vec<LawId> = Vec::new();
        for also in &self.also {
            if also.law != self.law && !laws.contains(&also.law) {
                laws.push(also.law);
            }
        }
        laws
    }

    /// How many times the finding was made: once, and once more for each
    /// of its [`Finding::repeats`].
    pub fn occurrences(&self) -> usize {
        1 + self.repeats.len()
    }

    /// The same finding, naming the requirement of the registry it shows
    /// broken.
    pub fn with_requirement(mut self, id: &'static str) -> Finding {
        debug_assert!(
            crate::laws::registry::requirement(id).is_some(),
            "`{id}` is no requirement of the registry"
        );
        self.requirement = Some(id);
        self
    }

    /// Whether the finding is a rule of the `core` profile's own: made
    /// under `core`, and of a law `--profile spec` warns on or does not
    /// check, or an answer the probes know the specification accepts
    /// ([`Finding::core_only`]).
    pub fn is_core_own(&self) -> bool {
        // A host law is the specification's alone: never core's.
        self.law.side() == crate::laws::Side::Server
            && self.profile == Profile::Core
            && (self.core_only || crate::laws::law(self.law).spec != Some(Severity::Error))
            // What its cause breaks besides must be core's own too.
            && self.also.iter().all(|also| {
                also.disposition != Disposition::Fails
                    || also.law.side() == crate::laws::Side::Server
                        && crate::laws::law(also.law).spec != Some(Severity::Error)
            })
    }

    /// The same finding, marked as a rule of the `core` profile alone
    /// ([`Finding::core_only`]).
    pub fn with_core_only(mut self) -> Finding {
        self.core_only = true;
        self
    }

    /// The same finding, tagged with the era its session spoke.
    pub fn with_era(mut self, era: Option<crate::revision::Era>) -> Finding {
        self.era = era;
        self
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

    /// The same finding, made by the fuzz call `case`.
    pub fn with_fuzz(mut self, case: FuzzCase) -> Finding {
        self.fuzz = Some(Box::new(case));
        self
    }

    /// The same finding with a hint.
    pub fn with_hint(mut self, hint: String) -> Finding {
        self.hint = Some(hint);
        self
    }
}

/// What a run saw of the requirements of the registry
/// ([`crate::laws::registry`]): those a step observed, kept or broken, and
/// those a step meant to observe and could not, with why. The grading of a
/// run turns this, its findings and what the server declared into one
/// outcome per requirement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Coverage {
    /// The requirements some step observed.
    pub observed: BTreeSet<&'static str>,
    /// The requirements a step meant to observe and could not, with why
    /// (the server crashed first, no tool may be called, the recording
    /// never exercised it); the first reason given is kept.
    pub missed: BTreeMap<&'static str, String>,
    /// The revisions the run spoke.
    pub revisions: BTreeSet<crate::revision::Revision>,
    /// The capabilities the peer declared, by path (`tools`,
    /// `resources.subscribe`, `logging`).
    pub capabilities: BTreeSet<String>,
    /// Whether the peer's declaration was read: until it is, what it
    /// declares is not known, and no capability is ruled out; once it is,
    /// a capability it does not name is not declared (`capabilities: {}`
    /// declares none).
    pub declared: bool,
}

/// The capabilities `capabilities` declares, by path: each member
/// (`tools`, `roots`), and each member of an object member set to `true`
/// (`resources.subscribe`, `roots.listChanged`).
pub(crate) fn capability_paths(capabilities: &serde_json::Value) -> Vec<String> {
    let Some(members) = capabilities.as_object() else {
        return Vec::new();
    };
    let mut res = Vec::new();
    for (name, value) in members {
        if value.is_null() || value == &serde_json::Value::Bool(false) {
            continue;
        }
        res.push(name.clone());
        if let Some(inner) = value.as_object() {
            res.extend(
                inner
                    .iter()
                    .filter(|(_, value)| **value == serde_json::Value::Bool(true))
                    .map(|(key, _)| format!("{name}.{key}")),
            );
        }
    }
    res
}

impl Coverage {
    /// Notes the capabilities `capabilities` declares, by path
    /// ([`Coverage::capabilities`]).
    pub fn declare(&mut self, capabilities: &serde_json::Value) {
        if capabilities.is_object() {
            self.declared = true;
        }
        self.capabilities.extend(capability_paths(capabilities));
    }

    /// Notes that a step observed the requirement `id`.
    pub fn observe(&mut self, id: &'static str) {
        debug_assert!(
            crate::laws::registry::requirement(id).is_some(),
            "`{id}` is no requirement of the registry"
        );
        self.observed.insert(id);
    }

    /// Notes that a step meant to observe the requirement `id` and could
    /// not, and why.
    pub fn miss(&mut self, id: &'static str, why: impl Into<String>) {
        debug_assert!(
            crate::laws::registry::requirement(id).is_some(),
            "`{id}` is no requirement of the registry"
        );
        self.missed.entry(id).or_insert_with(|| why.into());
    }

    /// Adds what `other` saw.
    pub fn absorb(&mut self, other: Coverage) {
        self.observed.extend(other.observed);
        for (id, why) in other.missed {
            self.missed.entry(id).or_insert(why);
        }
        self.revisions.extend(other.revisions);
        self.capabilities.extend(other.capabilities);
        self.declared |= other.declared;
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
    /// How it fared in each era, where a server that speaks both eras
    /// fared otherwise in one than in the other (in era order); empty
    /// when the eras agree, or only one was spoken. The law is counted
    /// once, by `status`.
    pub eras: Vec<(crate::revision::Era, LawStatus)>,
    /// What the run could not decide for the law, each with where and why
    /// (a `structuredContent` whose verdict hangs on a pattern the regular
    /// expression engines read differently): neither held nor failed, and
    /// shown whatever the status.
    pub notes: Vec<String>,
}

impl LawOutcome {
    /// A law's outcome.
    pub fn new(law: LawId, status: LawStatus) -> LawOutcome {
        LawOutcome {
            law,
            status,
            eras: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The same outcome with the verdicts of each era.
    pub fn with_eras(mut self, eras: Vec<(crate::revision::Era, LawStatus)>) -> LawOutcome {
        self.eras = eras;
        self
    }

    /// The same outcome with what the run could not decide for the law.
    pub fn with_notes(mut self, notes: Vec<String>) -> LawOutcome {
        self.notes = notes;
        self
    }
}

/// One request of a transcript and how its replay went.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Exchange {
    /// The 1-based transcript line of the request.
    pub line: usize,
    /// The request's method.
    pub method: String,
    /// The recorded id, as JSON (`7` or `"7"`).
    pub id: String,
    /// The 1-based transcript line of the recorded response, if any.
    pub answer_line: Option<usize>,
    /// How it went.
    pub status: ExchangeStatus,
}

/// How one replayed request went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExchangeStatus {
    /// Answered once, as recorded (or answered, where nothing was recorded).
    Passed,
    /// Answered, but not as recorded, or more than once.
    Failed,
    /// Sent, but no answer came before the deadline or the end of stdout.
    Unanswered,
    /// The host cancelled it in the recording before an answer was
    /// recorded, and no answer is required.
    Cancelled,
    /// Never sent: the replay stopped before it.
    NotSent,
}

impl ExchangeStatus {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ExchangeStatus::Passed => "passed",
            ExchangeStatus::Failed => "failed",
            ExchangeStatus::Unanswered => "unanswered",
            ExchangeStatus::Cancelled => "cancelled",
            ExchangeStatus::NotSent => "not-sent",
        }
    }
}

/// What a finding means for the run, after waivers, `--deny-warnings` and
/// the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Disposition {
    /// It fails the run.
    Fails,
    /// It is reported as a warning and does not fail the run.
    Warns,
    /// The baseline knows it: reported, and it does not fail the run.
    Known,
    /// The user waived its law.
    Waived,
    /// `--bless` accepted it: the transcript now records the live answer.
    Blessed,
}

impl Disposition {
    /// The word reports use for a finding with this disposition.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Fails => "error",
            Disposition::Warns => "warning",
            Disposition::Known => "known",
            Disposition::Waived => "waived",
            Disposition::Blessed => "blessed",
        }
    }
}

/// A finding and what it means for the run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Graded {
    /// The finding.
    pub finding: Finding,
    /// What it means for the run.
    pub disposition: Disposition,
}

impl Graded {
    /// A graded finding.
    pub fn new(finding: Finding, disposition: Disposition) -> Graded {
        Graded {
            finding,
            disposition,
        }
    }
}

/// The status of one line of a report: a transcript, a law, or an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Status {
    /// Everything held.
    Pass,
    /// Something fails the run.
    Fail,
    /// Only warnings.
    Warn,
    /// Only findings the baseline knows.
    Known,
    /// Not checked.
    Skip,
    /// Waived by the user.
    Waived,
    /// A baseline entry that no longer occurs.
    Stale,
    /// Unreadable input.
    Error,
}

impl Status {
    /// The status word, as reports print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Warn => "WARN",
            Status::Known => "KNOWN",
            Status::Skip => "SKIP",
            Status::Waived => "WAIVED",
            Status::Stale => "STALE",
            Status::Error => "ERROR",
        }
    }

    /// The status of something with these findings: the worst of them.
    fn of<'a>(findings: impl IntoIterator<Item = &'a Graded>) -> Status {
        Status::of_dispositions(findings.into_iter().map(|graded| graded.disposition))
    }

    /// The status of `law` among `findings`: the worst of its findings',
    /// its own and those folded into others (of `era`, when given).
    fn of_law(findings: &[Graded], law: LawId, era: Option<crate::revision::Era>) -> Status {
        Status::of_dispositions(
            findings
                .iter()
                .filter(|graded| era.is_none() || graded.finding.era == era)
                .flat_map(|graded| {
                    let own = (graded.finding.law == law).then_some(graded.disposition);
                    let folded = graded
                        .finding
                        .also
                        .iter()
                        .filter(move |also| also.law == law)
                        .map(|also| also.disposition);
                    own.into_iter().chain(folded)
                }),
        )
    }

    /// The worst of these dispositions, as a status.
    fn of_dispositions(dispositions: impl IntoIterator<Item = Disposition>) -> Status {
        let mut status = Status::Pass;
        for disposition in dispositions {
            let this = match disposition {
                Disposition::Fails => return Status::Fail,
                Disposition::Warns => Status::Warn,
                Disposition::Known => Status::Known,
                Disposition::Waived | Disposition::Blessed => continue,
            };
            if status == Status::Pass || this == Status::Warn {
                status = this;
            }
        }
        status
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How one transcript replayed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TranscriptResult {
    /// The transcript, as given or found.
    pub path: PathBuf,
    /// The server command it ran against, as a shell would show it.
    pub command: String,
    /// Every request, in transcript order.
    pub exchanges: Vec<Exchange>,
    /// What the replay found.
    pub findings: Vec<Graded>,
    /// Remarks that are no findings (a truncated last line, a recorded
    /// notification that never came and is not waited for, a replay that
    /// stopped early, a transcript left unblessed).
    pub notes: Vec<String>,
    /// With `--bless`: how many differences from the recording were
    /// accepted (`transcript-match` findings blessed).
    pub blessed: Option<usize>,
    /// How long the replay took.
    pub elapsed: Duration,
    /// What the replay observed of the server's requirements.
    pub coverage: Coverage,
}

impl TranscriptResult {
    /// The transcript's status: the worst of its findings.
    pub fn status(&self) -> Status {
        Status::of(&self.findings)
    }

    /// Its exchanges in words, for reports: `6 exchanges`, or `6
    /// exchanges, 1 not as recorded` when some were answered otherwise, or
    /// not at all.
    pub fn exchanges_in_words(&self) -> String {
        let n = self.exchanges.len();
        let mut words = format!("{n} exchange{}", plural(n));
        let failed = self
            .exchanges
            .iter()
            .filter(|e| e.status != ExchangeStatus::Passed && e.status != ExchangeStatus::Cancelled)
            .count();
        if failed > 0 {
            words.push_str(&format!(", {failed} not as recorded"));
        }
        words
    }
}

/// `s` for a count other than one.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// What the law probes found for one server command.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProbeResult {
    /// The command, as a shell would show it.
    pub command: String,
    /// Each law's outcome, in catalog order.
    pub outcomes: Vec<LawOutcome>,
    /// The findings, graded.
    pub findings: Vec<Graded>,
    /// How long the probes took.
    pub elapsed: Duration,
    /// What the probes observed of the server's requirements.
    pub coverage: Coverage,
}

impl ProbeResult {
    /// The findings about `law`.
    pub fn findings_of(&self, law: LawId) -> impl Iterator<Item = &Graded> {
        self.findings.iter().filter(move |g| g.finding.law == law)
    }

    /// The findings of other laws that name `law` among those their cause
    /// breaks too ([`Finding::also`]).
    pub fn folded_into(&self, law: LawId) -> impl Iterator<Item = &Graded> {
        self.findings
            .iter()
            .filter(move |g| g.finding.law != law && g.finding.also.iter().any(|a| a.law == law))
    }

    /// The status of `outcome`, one of this result's outcomes.
    pub fn status(&self, outcome: &LawOutcome) -> Status {
        match &outcome.status {
            LawStatus::Held => Status::Pass,
            LawStatus::Skipped(_) => Status::Skip,
            LawStatus::Waived => Status::Waived,
            LawStatus::Failed => match Status::of_law(&self.findings, outcome.law, None) {
                // Failed with no finding left to say why: still a failure.
                Status::Pass => Status::Fail,
                status => status,
            },
        }
    }

    /// The status of `outcome` in `era`, one of its per-era verdicts: as
    /// [`ProbeResult::status`], from the findings of that era alone.
    pub fn era_status(
        &self,
        outcome: &LawOutcome,
        era: crate::revision::Era,
        status: &LawStatus,
    ) -> Status {
        match status {
            LawStatus::Held => Status::Pass,
            LawStatus::Skipped(_) => Status::Skip,
            LawStatus::Waived => Status::Waived,
            LawStatus::Failed => match Status::of_law(&self.findings, outcome.law, Some(era)) {
                Status::Pass => Status::Fail,
                status => status,
            },
        }
    }
}

/// How one session's host fared against the host laws: a transcript's
/// host, judged whatever server it was replayed against, or the host of a
/// live `mcp-replay mock` session.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HostResult {
    /// What the host was judged from, as reports show it: the transcript's
    /// path, or the live session (`mcp-replay mock …`).
    pub source: String,
    /// The host as it named itself (`clientInfo`), when it did.
    pub host: Option<String>,
    /// Each host law's outcome, in catalog order.
    pub outcomes: Vec<LawOutcome>,
    /// The findings, graded.
    pub findings: Vec<Graded>,
    /// Remarks that are no findings.
    pub notes: Vec<String>,
    /// How long judging took.
    pub elapsed: Duration,
    /// What the session showed of the host's requirements of the registry.
    pub coverage: Coverage,
}

impl HostResult {
    /// A host's result: the outcomes and findings its judge gave
    /// (`host::Verdict::into_result`), each finding failing the run until
    /// the run grades it.
    pub fn new(
        source: String,
        host: Option<String>,
        outcomes: Vec<LawOutcome>,
        findings: Vec<Finding>,
        notes: Vec<String>,
        elapsed: Duration,
    ) -> HostResult {
        HostResult {
            source,
            host,
            outcomes,
            findings: findings
                .into_iter()
                .map(|finding| Graded::new(finding, Disposition::Fails))
                .collect(),
            notes,
            elapsed,
            coverage: Coverage::default(),
        }
    }

    /// The same result, with what the session showed of the host's
    /// requirements.
    pub fn with_coverage(mut self, coverage: Coverage) -> HostResult {
        self.coverage = coverage;
        self
    }

    /// The host as requirement outcomes name it: `name (source)`.
    pub fn subject(&self) -> String {
        format!("{} ({})", self.name(), self.source)
    }

    /// The same result graded for a run of its own (a live session): the
    /// findings of a waived law waived and its outcome `Waived` (a skip
    /// stays a skip), every other error failing the run, and a warning
    /// failing it too with `deny_warnings`. `check` grades a transcript's
    /// host with its baseline as well.
    pub fn graded(mut self, waive: &[LawId], deny_warnings: bool) -> HostResult {
        for graded in &mut self.findings {
            graded.disposition = if waive.contains(&graded.finding.law) {
                Disposition::Waived
            } else if graded.finding.severity == Severity::Error || deny_warnings {
                Disposition::Fails
            } else {
                Disposition::Warns
            };
        }
        for outcome in &mut self.outcomes {
            if waive.contains(&outcome.law) && !matches!(outcome.status, LawStatus::Skipped(_)) {
                *outcome = LawOutcome::new(outcome.law, LawStatus::Waived);
            }
        }
        self
    }

    /// The host's name for reports: as it named itself, else `an unnamed
    /// host`.
    pub fn name(&self) -> &str {
        self.host.as_deref().unwrap_or("an unnamed host")
    }

    /// The findings about `law`.
    pub fn findings_of(&self, law: LawId) -> impl Iterator<Item = &Graded> {
        self.findings.iter().filter(move |g| g.finding.law == law)
    }

    /// The findings of other laws that name `law` among those their cause
    /// breaks too ([`Finding::also`]).
    pub fn folded_into(&self, law: LawId) -> impl Iterator<Item = &Graded> {
        self.findings
            .iter()
            .filter(move |g| g.finding.law != law && g.finding.also.iter().any(|a| a.law == law))
    }

    /// The status of `outcome`, one of this result's outcomes.
    pub fn status(&self, outcome: &LawOutcome) -> Status {
        match &outcome.status {
            LawStatus::Held => Status::Pass,
            LawStatus::Skipped(_) => Status::Skip,
            LawStatus::Waived => Status::Waived,
            LawStatus::Failed => match Status::of_law(&self.findings, outcome.law, None) {
                Status::Pass => Status::Fail,
                status => status,
            },
        }
    }

    /// The status of the host as a whole: the worst of its laws'.
    pub fn overall(&self) -> Status {
        let mut worst = Status::Pass;
        for outcome in &self.outcomes {
            let status = self.status(outcome);
            worst = match (worst, status) {
                (_, Status::Fail) | (Status::Fail, _) => Status::Fail,
                (_, Status::Warn) | (Status::Warn, _) => Status::Warn,
                (_, Status::Known) | (Status::Known, _) => Status::Known,
                (worst, _) => worst,
            };
        }
        worst
    }
}

/// Input that could not be checked: an unreadable or malformed transcript,
/// a server that cannot be started, a transcript that cannot be blessed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputError {
    /// The transcript concerned, when there is one.
    pub path: Option<PathBuf>,
    /// What is wrong, with its causes, in one line.
    pub message: String,
}

/// A baseline entry that no run finding matched.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StaleEntry {
    /// The law of the entry.
    pub law: String,
    /// Where the entry says the finding was, in words.
    pub location: String,
}

/// A run that a signal stopped before everything had run: what did not
/// run, so that a report of what finished still says what it lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Interruption {
    /// The signal's number (SIGTERM is 15).
    pub signal: i32,
    /// The transcripts that did not run or did not finish, in path order.
    pub transcripts: Vec<PathBuf>,
    /// The server commands whose law probes did not run or did not finish.
    pub probes: Vec<String>,
}

impl Interruption {
    /// An interruption by `signal`, with nothing listed yet.
    pub fn new(signal: i32) -> Interruption {
        Interruption {
            signal,
            transcripts: Vec::new(),
            probes: Vec::new(),
        }
    }

    /// The signal's name, e.g. `SIGTERM`.
    pub fn signal_name(&self) -> String {
        use rustix::process::Signal;
        let named = [
            (Signal::HUP, "SIGHUP"),
            (Signal::INT, "SIGINT"),
            (Signal::QUIT, "SIGQUIT"),
            (Signal::KILL, "SIGKILL"),
            (Signal::USR1, "SIGUSR1"),
            (Signal::USR2, "SIGUSR2"),
            (Signal::PIPE, "SIGPIPE"),
            (Signal::ALARM, "SIGALRM"),
            (Signal::TERM, "SIGTERM"),
        ];
        named
            .iter()
            .find(|(signal, _)| signal.as_raw() == self.signal)
            .map_or_else(
                || format!("signal {}", self.signal),
                |(_, name)| (*name).to_owned(),
            )
    }

    /// The exit status of an interrupted run: 128 + the signal, as a shell
    /// reports a process the signal ended.
    pub fn exit_code(&self) -> u8 {
        u8::try_from(128 + self.signal.clamp(0, 127)).unwrap_or(u8::MAX)
    }
}

/// Everything a check run found.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Report {
    /// The replayed transcripts, in path order.
    pub transcripts: Vec<TranscriptResult>,
    /// The probe runs, one per distinct server command.
    pub probes: Vec<ProbeResult>,
    /// Input that could not be checked.
    pub errors: Vec<InputError>,
    /// Baseline entries that no longer occur.
    pub stale: Vec<StaleEntry>,
    /// Set when a signal stopped the run: what did not run.
    pub interrupted: Option<Interruption>,
    /// The fuzz runs (`mcp-replay fuzz`), one per server command.
    pub fuzz: Vec<FuzzResult>,
    /// The hosts judged against the host laws: one per transcript read, in
    /// path order, or the host of a live `mock` session.
    pub hosts: Vec<HostResult>,
    /// How long the run took.
    pub elapsed: Duration,
    /// The profiles the run held servers to, in order: one, unless the
    /// settings of some directories name another.
    pub profiles: Vec<Profile>,
    /// The outcome of every requirement of the registry, per server command
    /// checked and per host judged ([`Report::grade_requirements`]); empty
    /// until graded.
    pub requirements: Vec<RequirementOutcome>,
    /// The side whose requirements not observed fail the run
    /// (`--deny-unobserved`): the servers' for `check` and `fuzz`, the
    /// host's for a judged `mock` session; `None` without the flag.
    pub deny_unobserved: Option<crate::laws::registry::Side>,
}

/// How many lines of one kind (transcripts, or laws) ended in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tally {
    /// Held (a transcript replayed as recorded, a law kept).
    pub held: usize,
    /// Failed the run.
    pub failed: usize,
    /// Warnings only.
    pub warned: usize,
    /// Findings the baseline knows only.
    pub known: usize,
    /// Not checked.
    pub skipped: usize,
    /// Waived.
    pub waived: usize,
}

impl Tally {
    pub(crate) fn add(&mut self, status: Status) {
        match status {
            Status::Pass => self.held += 1,
            Status::Fail => self.failed += 1,
            Status::Warn => self.warned += 1,
            Status::Known => self.known += 1,
            Status::Skip => self.skipped += 1,
            Status::Waived => self.waived += 1,
            Status::Stale | Status::Error => {}
        }
    }
}

/// The counts of a report's summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Summary {
    /// Transcripts replayed.
    pub transcripts: usize,
    /// Law outcomes probed (one per law and server command).
    pub laws: usize,
    /// Server commands probed.
    pub servers: usize,
    /// Host law outcomes (one per host law and host judged).
    pub host_laws: usize,
    /// Hosts judged.
    pub hosts: usize,
    /// How the transcripts fared.
    pub transcript_tally: Tally,
    /// How the laws fared.
    pub law_tally: Tally,
    /// How the host laws fared.
    pub host_tally: Tally,
    /// Transcripts and laws that held.
    pub held: usize,
    /// Transcripts and laws that fail the run.
    pub failed: usize,
    /// Transcripts and laws with warnings only.
    pub warned: usize,
    /// Transcripts and laws whose findings the baseline knows.
    pub known: usize,
    /// Laws not checked.
    pub skipped: usize,
    /// Laws waived.
    pub waived: usize,
    /// Stale baseline entries.
    pub stale: usize,
    /// Unreadable inputs.
    pub errors: usize,
    /// Transcripts and probe runs an interruption kept from running.
    pub not_run: usize,
}

/// The exit status of a run in which everything held.
pub const EXIT_OK: u8 = 0;
/// The exit status of a run with findings that fail it.
pub const EXIT_FINDINGS: u8 = 1;
/// The exit status of a usage error or unreadable input; it wins over
/// [`EXIT_FINDINGS`].
pub const EXIT_USAGE: u8 = 2;

impl Report {
    /// The statuses of the report's law lines: the probes', then fuzz's.
    fn law_statuses(&self) -> impl Iterator<Item = Status> + '_ {
        let probed = self
            .probes
            .iter()
            .flat_map(|probe| probe.outcomes.iter().map(|outcome| probe.status(outcome)));
        let fuzzed = self
            .fuzz
            .iter()
            .flat_map(|run| run.outcomes.iter().map(|outcome| run.status(outcome)));
        probed.chain(fuzzed)
    }

    /// The statuses of the report's host law lines.
    fn host_statuses(&self) -> impl Iterator<Item = Status> + '_ {
        self.hosts
            .iter()
            .flat_map(|host| host.outcomes.iter().map(|outcome| host.status(outcome)))
    }

    /// Every status of the report's lines: transcripts, then laws, then
    /// host laws.
    fn statuses(&self) -> impl Iterator<Item = Status> + '_ {
        let transcripts = self.transcripts.iter().map(TranscriptResult::status);
        transcripts
            .chain(self.law_statuses())
            .chain(self.host_statuses())
    }

    /// The counts of the summary line.
    pub fn summary(&self) -> Summary {
        let mut summary = Summary {
            transcripts: self.transcripts.len(),
            laws: self
                .probes
                .iter()
                .map(|probe| probe.outcomes.len())
                .sum::<usize>()
                + self
                    .fuzz
                    .iter()
                    .map(|run| run.outcomes.len())
                    .sum::<usize>(),
            stale: self.stale.len(),
            errors: self.errors.len(),
            not_run: self
                .interrupted
                .as_ref()
                .map_or(0, |i| i.transcripts.len() + i.probes.len()),
            ..Summary::default()
        };
        summary.servers = self.probes.len() + self.fuzz.len();
        summary.hosts = self.hosts.len();
        summary.host_laws = self.hosts.iter().map(|host| host.outcomes.len()).sum();
        for status in self.host_statuses() {
            summary.host_tally.add(status);
        }
        for transcript in &self.transcripts {
            summary.transcript_tally.add(transcript.status());
        }
        for status in self.law_statuses() {
            summary.law_tally.add(status);
        }
        for status in self.statuses() {
            match status {
                Status::Pass => summary.held += 1,
                Status::Fail => summary.failed += 1,
                Status::Warn => summary.warned += 1,
                Status::Known => summary.known += 1,
                Status::Skip => summary.skipped += 1,
                Status::Waived => summary.waived += 1,
                Status::Stale | Status::Error => {}
            }
        }
        summary
    }

    /// Whether the run fails only on rules of the `core` profile that the
    /// MCP specification does not make failures: every finding that fails
    /// it was made under `core` and is either of a law that `--profile
    /// spec` grades as a warning or not at all, or one the probes know to
    /// be core's alone ([`Finding::core_only`]); and nothing else fails it
    /// (unreadable input, a stale baseline entry, an interruption).
    pub fn fails_only_on_core_rules(&self) -> bool {
        let summary = self.summary();
        if summary.failed == 0
            || summary.errors > 0
            || summary.stale > 0
            || self.interrupted.is_some()
        {
            return false;
        }
        // A law that failed with no finding left says nothing of why.
        let unexplained = self.probes.iter().any(|probe| {
            probe.outcomes.iter().any(|outcome| {
                probe.status(outcome) == Status::Fail
                    && !probe
                        .findings_of(outcome.law)
                        .chain(probe.folded_into(outcome.law))
                        .any(|graded| graded.disposition == Disposition::Fails)
            })
        }) || self.fuzz.iter().any(|run| {
            run.outcomes.iter().any(|outcome| {
                run.status(outcome) == Status::Fail
                    && !run
                        .findings_of(outcome.law)
                        .any(|graded| graded.disposition == Disposition::Fails)
            })
        }) || self.hosts.iter().any(|host| {
            host.outcomes
                .iter()
                .any(|outcome| host.status(outcome) == Status::Fail)
        });
        if unexplained {
            return false;
        }
        self.transcripts
            .iter()
            .flat_map(|transcript| &transcript.findings)
            .chain(self.probes.iter().flat_map(|probe| &probe.findings))
            .chain(self.fuzz.iter().flat_map(|run| &run.findings))
            .chain(self.hosts.iter().flat_map(|host| &host.findings))
            .filter(|graded| graded.disposition == Disposition::Fails)
            .all(|graded| graded.finding.is_core_own())
    }

    /// The laws whose failing findings are all the `core` profile's own
    /// rules ([`Finding::is_core_own`]), in catalog order, with how many
    /// failing findings there are in all: on any server, a run under
    /// `core` says which of its failures the specification does not ask.
    pub fn core_own_failures(&self) -> (Vec<LawId>, usize) {
        let failing: Vec<&Finding> = self
            .transcripts
            .iter()
            .flat_map(|transcript| &transcript.findings)
            .chain(self.probes.iter().flat_map(|probe| &probe.findings))
            .chain(self.fuzz.iter().flat_map(|run| &run.findings))
            .chain(self.hosts.iter().flat_map(|host| &host.findings))
            .filter(|graded| graded.disposition == Disposition::Fails)
            .map(|graded| &graded.finding)
            .collect();
        let mut laws: Vec<LawId> = failing
            .iter()
            .filter(|finding| finding.is_core_own())
            .map(|finding| finding.law)
            .collect();
        laws.sort();
        laws.dedup();
        (laws, failing.len())
    }

    /// The counts of the requirement outcomes.
    pub fn requirement_tally(&self) -> RequirementTally {
        RequirementTally::of(&self.requirements)
    }

    /// The counts of the requirement outcomes of `side`.
    pub fn requirement_tally_of(&self, side: crate::laws::registry::Side) -> RequirementTally {
        RequirementTally::of(self.requirements.iter().filter(|o| o.side == side))
    }

    /// Whether `outcome`, one of this report's, fails the run for being
    /// not observed: `--deny-unobserved` holds its side to it.
    pub fn denies_unobserved(&self, outcome: &RequirementOutcome) -> bool {
        self.deny_unobserved == Some(outcome.side)
            && matches!(outcome.status, RequirementStatus::NotObserved(_))
    }

    /// Whether requirements not observed fail the run: with
    /// `--deny-unobserved`, when some requirement of the side it holds was
    /// not observed.
    pub fn unobserved_fails(&self) -> bool {
        self.requirements
            .iter()
            .any(|outcome| self.denies_unobserved(outcome))
    }

    /// Reports each cause once (`src/report/fold.rs`): in each transcript, probe
    /// run and host, the findings one answer or line makes under several
    /// laws become one finding, under the law of the step that met it,
    /// naming the others ([`Finding::also`]); the same finding made again
    /// elsewhere becomes one, with where it was seen
    /// ([`Finding::repeats`]). The merged finding keeps the highest
    /// severity and the worst disposition of what it folds, and each law
    /// keeps its status: the exit status is what it was. Run it after the
    /// findings are graded and the requirements with them.
    pub fn fold_causes(&mut self) {
        for transcript in &mut self.transcripts {
            transcript.findings = fold::fold(std::mem::take(&mut transcript.findings));
        }
        for probe in &mut self.probes {
            probe.findings = fold::fold(std::mem::take(&mut probe.findings));
        }
        for host in &mut self.hosts {
            host.findings = fold::fold(std::mem::take(&mut host.findings));
        }
    }

    /// Gives every requirement of the registry an outcome for each server
    /// command the run checked (its probes, the transcripts replayed
    /// against it and its fuzz run together) and every host requirement
    /// one for each host judged, graded by what their steps or sessions
    /// observed and what their findings show broken.
    pub fn grade_requirements(&mut self) {
        let mut subjects: Vec<requirements::Subject<'_>> = Vec::new();
        fn subject<'a, 'b>(
            subjects: &'b mut Vec<requirements::Subject<'a>>,
            name: &str,
        ) -> &'b mut requirements::Subject<'a> {
            match subjects.iter().position(|subject| subject.name == name) {
                Some(at) => &mut subjects[at],
                None => {
                    subjects.push(requirements::Subject {
                        name: name.to_owned(),
                        ..requirements::Subject::default()
                    });
                    subjects.last_mut().expect("just pushed")
                }
            }
        }
        for probe in &self.probes {
            let it = subject(&mut subjects, &probe.command);
            it.coverage.absorb(probe.coverage.clone());
            it.findings.extend(&probe.findings);
            it.laws.extend(&probe.outcomes);
            it.waived.extend(
                probe
                    .outcomes
                    .iter()
                    .filter(|outcome| outcome.status == LawStatus::Waived)
                    .map(|outcome| outcome.law),
            );
        }
        for transcript in &self.transcripts {
            let it = subject(&mut subjects, &transcript.command);
            it.coverage.absorb(transcript.coverage.clone());
            it.findings.extend(&transcript.findings);
        }
        for run in &self.fuzz {
            let it = subject(&mut subjects, &run.command);
            it.coverage.absorb(run.coverage.clone());
            it.findings.extend(&run.findings);
            it.laws.extend(&run.outcomes);
        }
        let mut graded: Vec<RequirementOutcome> = subjects
            .iter()
            .flat_map(|subject| requirements::grade(subject, crate::laws::registry::Side::Server))
            .collect();
        // Each host judged is a subject of its own: one session's host.
        for host in &self.hosts {
            let subject = requirements::Subject {
                name: host.subject(),
                host: Some((host.source.clone(), host.host.clone())),
                coverage: host.coverage.clone(),
                findings: host.findings.iter().collect(),
                laws: host.outcomes.iter().collect(),
                waived: host
                    .outcomes
                    .iter()
                    .filter(|outcome| outcome.status == LawStatus::Waived)
                    .map(|outcome| outcome.law)
                    .collect(),
            };
            graded.extend(requirements::grade(
                &subject,
                crate::laws::registry::Side::Host,
            ));
        }
        self.requirements = graded;
    }

    /// The exit status: 128 + the signal when a signal stopped the run, else
    /// 2 when some input could not be checked, else 1 when a finding fails
    /// the run or a baseline entry is stale, else 0.
    pub fn exit_code(&self) -> u8 {
        if let Some(interruption) = &self.interrupted {
            return interruption.exit_code();
        }
        let summary = self.summary();
        if summary.errors > 0 {
            EXIT_USAGE
        } else if summary.failed > 0 || summary.stale > 0 || self.unobserved_fails() {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        }
    }
}

impl Location {
    /// The location in words: `path:line`, or `command`, step `step`.
    pub fn describe(&self) -> String {
        match self {
            Location::Transcript { path, line } => format!("{}:{line}", path.display()),
            Location::Probe { command, step } => format!("{command}, step `{step}`"),
        }
    }
}

/// The call of `mcp-replay fuzz` that makes a finding: the tool, the
/// arguments (shrunk), what the schema says of them, and the transcript
/// that replays it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FuzzCase {
    /// The tool called.
    pub tool: String,
    /// The `arguments` sent; `None` when the call sent none.
    pub arguments: Option<serde_json::Value>,
    /// What the tool's inputSchema says of them: `valid`, `invalid: …`
    /// with the keyword broken, or `unjudged: …` with the reason.
    pub label: String,
    /// How the case was made (`/limit: one above `maximum` 50`).
    pub what: String,
    /// The arguments of the case as first sent, when shrinking made them
    /// smaller.
    pub shrunk_from: Option<serde_json::Value>,
    /// How many cases failed this way.
    pub count: usize,
    /// The transcript that replays the failure, once written.
    pub transcript: Option<PathBuf>,
    /// Remarks: a failure that needs the calls before it, one that did not
    /// come back alone.
    pub notes: Vec<String>,
}

impl FuzzCase {
    /// A case of `tool` with `arguments`.
    pub fn new(tool: &str, arguments: Option<serde_json::Value>) -> FuzzCase {
        FuzzCase {
            tool: tool.to_owned(),
            arguments,
            label: String::new(),
            what: String::new(),
            shrunk_from: None,
            count: 1,
            transcript: None,
            notes: Vec::new(),
        }
    }

    /// The arguments as the report shows them: compact JSON, or `(no
    /// arguments member)`.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Some(arguments) => arguments.to_string(),
            None => "(no `arguments` member)".to_owned(),
        }
    }
}

/// One tool of a fuzz run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct FuzzedTool {
    /// The tool's name.
    pub name: String,
    /// Why it was not called; `None` for a tool that was.
    pub skipped: Option<String>,
    /// The cases drawn for it.
    pub cases: usize,
    /// The cases sent (fewer than drawn when the budget ran out, or once a
    /// failure repeated often enough).
    pub sent: usize,
    /// Of the cases sent: valid, invalid and unjudged by its inputSchema.
    pub valid: usize,
    /// See [`FuzzedTool::valid`].
    pub invalid: usize,
    /// See [`FuzzedTool::valid`].
    pub unjudged: usize,
    /// Valid cases answered with an `isError` result: no finding (a tool
    /// fails for reasons of its own), but counted.
    pub valid_is_error: usize,
    /// The calls that reached the tool: answered with a complete result,
    /// `isError` or not (not a JSON-RPC error, a request for input, a
    /// crash or no answer). A tool none of whose calls reached it was not
    /// fuzzed, whatever its laws say.
    pub reached: usize,
    /// What its inputSchema uses that fuzz does not generate for.
    pub not_generated_for: Vec<String>,
    /// Why fewer cases were sent than drawn, if they were.
    pub note: Option<String>,
}

/// What `mcp-replay fuzz` found for one server command.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FuzzResult {
    /// The command, as a shell would show it.
    pub command: String,
    /// The seed that draws the run's cases (`--seed` replays it).
    pub seed: u64,
    /// The era the session spoke, and its revision.
    pub era: Option<crate::revision::Era>,
    /// See [`FuzzResult::era`].
    pub revision: Option<String>,
    /// Every tool the server lists, in name order.
    pub tools: Vec<FuzzedTool>,
    /// Each law fuzz checks, in catalog order.
    pub outcomes: Vec<LawOutcome>,
    /// The findings, graded, in the order they were first made.
    pub findings: Vec<Graded>,
    /// Remarks on the run as a whole (the budget spent, restarts).
    pub notes: Vec<String>,
    /// How long the run took.
    pub elapsed: Duration,
    /// What the run observed of the server's requirements.
    pub coverage: Coverage,
}

impl FuzzResult {
    /// The findings about `law`.
    pub fn findings_of(&self, law: LawId) -> impl Iterator<Item = &Graded> {
        self.findings.iter().filter(move |g| g.finding.law == law)
    }

    /// The findings of other laws that name `law` among those their cause
    /// breaks too ([`Finding::also`]).
    pub fn folded_into(&self, law: LawId) -> impl Iterator<Item = &Graded> {
        self.findings
            .iter()
            .filter(move |g| g.finding.law != law && g.finding.also.iter().any(|a| a.law == law))
    }

    /// The findings made calling `tool`.
    pub fn findings_of_tool<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = &'a Graded> {
        self.findings.iter().filter(move |g| {
            g.finding
                .fuzz
                .as_ref()
                .is_some_and(|case| case.tool == tool)
        })
    }

    /// The findings made by no call in particular (the session's own).
    pub fn session_findings(&self) -> impl Iterator<Item = &Graded> {
        self.findings.iter().filter(|g| g.finding.fuzz.is_none())
    }

    /// The status of `outcome`, one of this run's outcomes.
    pub fn status(&self, outcome: &LawOutcome) -> Status {
        match &outcome.status {
            LawStatus::Held => Status::Pass,
            LawStatus::Skipped(_) => Status::Skip,
            LawStatus::Waived => Status::Waived,
            LawStatus::Failed => match Status::of(self.findings_of(outcome.law)) {
                Status::Pass => Status::Fail,
                status => status,
            },
        }
    }

    /// The status of a tool: skipped (not called, no case of it sent, or
    /// none of its calls reached it), or the worst of its findings.
    pub fn tool_status(&self, tool: &FuzzedTool) -> Status {
        let status = Status::of(self.findings_of_tool(&tool.name));
        if status == Status::Pass && (tool.skipped.is_some() || tool.sent == 0 || tool.reached == 0)
        {
            return Status::Skip;
        }
        status
    }
}
/// An error and its causes, on one line, as findings and reports quote a
/// failure.
pub fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests;
