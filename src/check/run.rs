//! The run of `mcp-replay check`: options, planning, the jobs, the grading
//! of every finding, and the report.

use super::{baseline, probes};
use crate::client::duration;
use crate::config;
use crate::replay::{bless, settle as noise};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::baseline::{BaselineError, FindingKey, Keys};
use super::plan::{Plan, Planned, PlannedProbe};
use crate::config::ConfigError;
use crate::laws::{LawId, Profile, Severity};
use crate::process::{ServerProcess, stop_signal};
use crate::replay::{ReplayError, replay_on};
use crate::report::chain;
use crate::report::{
    Disposition, Finding, Graded, HostResult, InputError, Interruption, LawOutcome, LawStatus,
    Location, ProbeResult, Report, TranscriptResult,
};
use crate::transcript::{Redaction, Redactor, env_secret_names};

/// The directory checked when no path is given.
pub const DEFAULT_DIR: &str = "transcripts";

pub use crate::client::{DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT};

/// How a check runs: what `mcp-replay check` was asked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CheckOptions {
    /// Transcript files or directories; [`DEFAULT_DIR`] when empty.
    pub paths: Vec<PathBuf>,
    /// A server command that replaces each transcript's; empty for none.
    pub command: Vec<String>,
    /// The profile, when given on the command line.
    pub profile: Option<Profile>,
    /// Laws waived on the command line.
    pub waive: Vec<LawId>,
    /// Whether warnings fail the run.
    pub deny_warnings: bool,
    /// Whether a requirement not observed fails the run.
    pub deny_unobserved: bool,
    /// Known findings that do not fail the run.
    pub baseline: Option<PathBuf>,
    /// Where to write every finding of this run as a baseline.
    pub write_baseline: Option<PathBuf>,
    /// Rewrite the server side of mismatched transcripts (and pin the
    /// noise the replay learned with ignore rules in the header).
    pub bless: bool,
    /// Fail on differences that are noise (volatile values, or what two
    /// live runs answer differently) too.
    pub fail_on_noise: bool,
    /// Run the law probes.
    pub probes: bool,
    /// Replay transcripts; when `false`, only the probes of
    /// [`CheckOptions::command`] run, and no transcript is read.
    pub replay: bool,
    /// How many replays and probe runs may run at once; the machine's
    /// cores when `None`.
    pub jobs: Option<usize>,
    /// The share of the transcripts this run checks.
    pub partition: Partition,
    /// The deadline of each step, when given on the command line.
    pub timeout: Option<Duration>,
    /// The deadline of a step before the server's first output.
    pub startup_timeout: Option<Duration>,
    /// The quiet window the probes watch after spawning a server.
    pub settle: Option<Duration>,
    /// How long a server may take to exit after stdin closes or SIGTERM.
    pub grace: Option<Duration>,
    /// The invalid flag of `bad-flag-exits-2` when the CLI probes run
    /// (`--cli-probes`); `None` leaves them out.
    pub cli_probes: Option<String>,
    /// The tools the probes may call for real, whatever their annotations
    /// say (`--tool`); when empty, only tools annotated `readOnlyHint:
    /// true` are.
    pub tools: Vec<String>,
    /// Directories besides the current one that a transcript's recorded
    /// `cwd` may lead into (`--allow-cwd`); a recorded command whose `cwd`
    /// leads anywhere else is not run, and its transcript is an error.
    pub allow_cwd: Vec<PathBuf>,
    /// The variables whose values fill the placeholders `[REDACTED:NAME]`
    /// of the transcripts' client lines and recorded commands (`--fill-env`
    /// and [`FILL_ENV`](crate::transcript::FILL_ENV)); any other
    /// placeholder is sent as it stands, with a note. Never the names a
    /// transcript lists.
    pub fill_env: Vec<String>,
    /// Read only inside the current directory: every transcript path, each
    /// transcript found under a directory, and the baseline must lead
    /// inside it (`..` and symbolic links followed), or the run does not
    /// start. For `serve`, whose arguments an agent writes.
    pub confine_to_cwd: bool,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            paths: Vec::new(),
            command: Vec::new(),
            profile: None,
            waive: Vec::new(),
            deny_warnings: false,
            deny_unobserved: false,
            baseline: None,
            write_baseline: None,
            bless: false,
            fail_on_noise: false,
            probes: true,
            replay: true,
            jobs: None,
            partition: Partition::default(),
            timeout: None,
            startup_timeout: None,
            settle: None,
            grace: None,
            cli_probes: None,
            tools: Vec::new(),
            allow_cwd: Vec::new(),
            fill_env: Vec::new(),
            confine_to_cwd: false,
        }
    }
}

/// One share of a sharded corpus: `--partition I/N`.
///
/// The sorted transcript list is dealt round-robin: the transcript at
/// position `p` (from 0) belongs to share `p % N + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// This share, from 1.
    pub index: usize,
    /// How many shares there are.
    pub count: usize,
}

impl Default for Partition {
    fn default() -> Partition {
        Partition { index: 1, count: 1 }
    }
}

impl Partition {
    /// Whether the transcript at `position` of the sorted list is this
    /// share's.
    pub fn owns(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

impl FromStr for Partition {
    type Err = String;

    fn from_str(text: &str) -> Result<Partition, String> {
        let invalid =
            || format!("`{text}` is not a partition (expected I/N with 1 ≤ I ≤ N, e.g. 1/4)");
        let (index, count) = text.split_once('/').ok_or_else(invalid)?;
        let index: usize = index.trim().parse().map_err(|_| invalid())?;
        let count: usize = count.trim().parse().map_err(|_| invalid())?;
        if index == 0 || count == 0 || index > count {
            return Err(invalid());
        }
        Ok(Partition { index, count })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Why a check could not run at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// No transcript was found and no server command was given.
    #[error("no transcripts found in {}", .what)]
    NoTranscripts {
        /// Where they were looked for, in words.
        what: String,
    },
    /// A path on the command line cannot be read.
    #[error("cannot read `{}`", .path.display())]
    Path {
        /// The path.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// A directory config is unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The baseline is unusable.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// Nothing to do: no transcripts and `--no-probes`.
    #[error("nothing to check: no transcripts, and the probes are off")]
    NothingToDo,
    /// A path leads outside the directory the run is confined to
    /// ([`CheckOptions::confine_to_cwd`]).
    #[error(
        "`{}` leads to `{}`, outside the directory the check runs in (`{}`): only files inside it are read",
        .path.display(), .resolved.display(), .root.display()
    )]
    Outside {
        /// The path as given or found.
        path: PathBuf,
        /// Where it leads.
        resolved: PathBuf,
        /// The directory the run is confined to.
        root: PathBuf,
    },
}

impl CheckError {
    /// The fix, in one line, where there is an obvious one.
    pub fn hint(&self) -> Option<String> {
        match self {
            CheckError::NoTranscripts { .. } => Some(
                "record one with `mcp-replay record -o transcripts/session.jsonl -- <server cmd>`, \
                 or run the law probes alone with `mcp-replay check -- <server cmd>`"
                    .to_owned(),
            ),
            CheckError::Config(_) => Some(format!(
                "fix the file, or remove it to use the defaults ({} is optional)",
                config::FILE_NAME
            )),
            CheckError::Baseline(_) => Some(
                "write a fresh baseline with `mcp-replay check --write-baseline <file>`".to_owned(),
            ),
            CheckError::NothingToDo => {
                Some("give transcripts, or drop `--no-probes` to probe the command".to_owned())
            }
            CheckError::Outside { .. } => Some(
                "give a path inside the directory the check runs in, or run `mcp-replay check` from a shell".to_owned(),
            ),
            CheckError::Path { .. } => None,
        }
    }
}

/// What one job produced.
enum Done {
    Replay(Replayed),
    Probe(Result<ProbeResult, InputError>),
}

/// What one replay job produced.
struct Replayed {
    /// `None` when the transcript could not be read or replayed at all,
    /// with the reason among the errors.
    result: Option<TranscriptResult>,
    errors: Vec<InputError>,
    /// Its server could not be started.
    unstartable: bool,
    /// Its host, judged against the host laws whenever the transcript
    /// could be read, whatever came of the replay.
    host: Option<Box<HostResult>>,
}

/// Runs the check `options` describe. `progress` hears `(done, total)`
/// after each replay or probe run finishes, from any thread.
///
/// When a signal stops every server (`process::stop_on_signals`),
/// the jobs still running end at once and no other starts: the report holds
/// what finished before the signal, and its [`Report::interrupted`] lists
/// the rest.
///
/// # Errors
///
/// [`CheckError`] when the run cannot start: no transcripts and no command,
/// an unreadable path, config or baseline. A transcript that cannot be read
/// or replayed does not stop the run: it is an [`InputError`] of the report.
pub fn run(
    options: &CheckOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Report, CheckError> {
    let started = Instant::now();
    // Transcripts are keyed relative to the baseline that grades the run:
    // the one written (which then replaces the one read), else the one read.
    let keys = Keys::new(
        options
            .write_baseline
            .as_deref()
            .or(options.baseline.as_deref()),
    );
    if options.confine_to_cwd
        && let Some(path) = &options.baseline
    {
        super::plan::confined(path)?;
    }
    let baseline = match &options.baseline {
        Some(path) => baseline::read(path, &Keys::new(Some(path)))?,
        None => BTreeSet::new(),
    };
    let plan = Plan::new(options)?;
    let done = run_jobs(&plan.probes, &plan.transcripts, options, progress);

    // Whatever a server wrote may quote a secret of this environment: every
    // text of the report is redacted before anything is printed, written or
    // compared with the baseline. Replays have redacted live lines already
    // (with the transcript header's names and patterns too), before diffing
    // and blessing.
    let scrub = Scrub::from_env();
    let mut profiles: Vec<Profile> = plan
        .probes
        .iter()
        .map(|probe| probe.options.profile)
        .chain(
            plan.transcripts
                .iter()
                .map(|planned| planned.replay.profile),
        )
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if profiles.is_empty() {
        profiles.push(options.profile.unwrap_or_default());
    }
    let mut report = Report {
        errors: plan.errors,
        profiles,
        ..Report::default()
    };
    let mut transcripts: Vec<(TranscriptResult, &BTreeSet<LawId>)> = Vec::new();
    let mut hosts: Vec<(HostResult, &BTreeSet<LawId>)> = Vec::new();
    let mut probed = Vec::new();
    let mut unprobed = Vec::new();
    let mut unstartable = Vec::new();
    // A job that was running when the signal came ended early, and what it
    // found says more about the stop than about the server: it did not run.
    let mut interrupted = stop_signal().map(Interruption::new);
    for (index, result) in done.into_iter().enumerate() {
        let Some(result) = result else {
            let interruption = interrupted
                .as_mut()
                .expect("only an interruption leaves a job without a result");
            match plan.probes.get(index) {
                Some(probe) => interruption.probes.push(probe.command.display()),
                None => interruption
                    .transcripts
                    .push(plan.transcripts[index - plan.probes.len()].path.clone()),
            }
            continue;
        };
        match result {
            Done::Replay(Replayed {
                mut result,
                errors,
                unstartable: failed,
                host,
            }) => {
                report.errors.extend(errors);
                let plan = &plan.transcripts[index - plan.probes.len()];
                if let Some(mut host) = host.map(|host| *host) {
                    match Scrub::with(&plan.replay.redaction) {
                        Some(own) => own.host(&mut host),
                        None => scrub.host(&mut host),
                    }
                    hosts.push((host, &plan.waive));
                }
                if let Some(result) = &mut result {
                    match Scrub::with(&plan.replay.redaction) {
                        Some(own) => own.transcript(result),
                        None => scrub.transcript(result),
                    }
                }
                if failed {
                    unstartable.push(&plan.command);
                }
                transcripts.extend(result.map(|result| (result, &plan.waive)));
            }
            Done::Probe(Ok(mut result)) => {
                match Scrub::with(&plan.probes[index].options.redaction) {
                    Some(own) => own.probe(&mut result),
                    None => scrub.probe(&mut result),
                }
                probed.push((result, &plan.probes[index]));
            }
            Done::Probe(Err(error)) => unprobed.push((error, &plan.probes[index].command)),
        }
    }
    // A server that cannot start is reported once: by the replays of its
    // transcripts, which name the transcript, rather than again by its
    // probe run.
    report.errors.extend(
        unprobed
            .into_iter()
            .filter(|(_, command)| !unstartable.contains(command))
            .map(|(error, _)| error),
    );
    for error in &mut report.errors {
        scrub.text(&mut error.message);
    }

    // A baseline of an interrupted run would lack the findings of what did
    // not run, and pass them next time: none is written.
    let baseline = match options
        .write_baseline
        .as_ref()
        .filter(|_| interrupted.is_none())
    {
        Some(path) => {
            let findings = transcripts
                .iter()
                .map(|(result, waive)| (&result.findings, *waive))
                .chain(
                    probed
                        .iter()
                        .map(|(result, plan)| (&result.findings, &plan.waive)),
                )
                .chain(hosts.iter().map(|(host, waive)| (&host.findings, *waive)));
            let entries = findings
                .flat_map(|(findings, waive)| {
                    findings
                        .iter()
                        .filter(|graded| !waive.contains(&graded.finding.law))
                        .map(|graded| keys.entry(&graded.finding))
                })
                .collect();
            baseline::write(path, &entries)?;
            entries
        }
        None => baseline,
    };

    let mut seen = BTreeSet::new();
    let grader = Grader {
        deny_warnings: options.deny_warnings,
        baseline: &baseline,
        keys: &keys,
    };
    for (mut result, waive) in transcripts {
        for graded in &mut result.findings {
            grader.grade(graded, waive, &mut seen);
        }
        report.transcripts.push(result);
    }
    for (mut host, waive) in hosts {
        for graded in &mut host.findings {
            grader.grade(graded, waive, &mut seen);
        }
        for outcome in &mut host.outcomes {
            if waive.contains(&outcome.law) && !matches!(outcome.status, LawStatus::Skipped(_)) {
                *outcome = LawOutcome::new(outcome.law, LawStatus::Waived);
            }
        }
        report.hosts.push(host);
    }
    for (mut result, plan) in probed {
        for graded in &mut result.findings {
            grader.grade(graded, &plan.waive, &mut seen);
        }
        for outcome in &mut result.outcomes {
            if plan.waive.contains(&outcome.law) && !matches!(outcome.status, LawStatus::Skipped(_))
            {
                *outcome = LawOutcome::new(outcome.law, LawStatus::Waived);
            }
        }
        report.probes.push(result);
    }

    // Entries about transcripts or commands this run did not check are
    // another run's business (another partition, another path), or cannot
    // be judged (a server that could not start).
    let checked: BTreeSet<String> = report
        .transcripts
        .iter()
        .map(|result| keys.transcript(&result.path))
        .collect();
    // A transcript's host is judged even when its server could not start.
    let judged: BTreeSet<String> = report
        .hosts
        .iter()
        .map(|host| keys.transcript(std::path::Path::new(&host.source)))
        .collect();
    let probed: BTreeSet<&str> = report
        .probes
        .iter()
        .map(|result| result.command.as_str())
        .collect();
    report.stale = baseline
        .iter()
        .filter(|entry| !seen.contains(*entry))
        .filter(|entry| {
            entry.transcript().is_some_and(|path| {
                if entry.of_host() {
                    judged.contains(path)
                } else {
                    checked.contains(path)
                }
            }) || entry
                .command()
                .is_some_and(|command| probed.contains(command))
        })
        .map(FindingKey::to_stale)
        .collect();
    report.errors.sort_by(|a, b| a.path.cmp(&b.path));
    if let Some(interruption) = &mut interrupted {
        for command in &mut interruption.probes {
            scrub.text(command);
        }
    }
    report.interrupted = interrupted;
    // Requirements are graded on every finding, before one cause's are
    // folded into one.
    report.grade_requirements();
    report.fold_causes();
    // A recording exercises what its host happened to do: the host's
    // requirements not observed are reported, and fail no check.
    report.deny_unobserved = options
        .deny_unobserved
        .then_some(crate::laws::registry::Side::Server);
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Redacts the values of the secret variables of the checker's environment
/// (by the recorder's rule) from the texts of a report.
struct Scrub(Redactor);

impl Scrub {
    fn from_env() -> Scrub {
        let redaction = Redaction {
            env: env_secret_names(),
            patterns: Vec::new(),
        };
        // Without patterns nothing can fail to compile.
        Scrub(Redactor::from_env(&redaction).unwrap_or_default())
    }

    /// The environment's secrets and those a directory config adds, when
    /// it adds any (its patterns were checked when it was read).
    fn with(extra: &Redaction) -> Option<Scrub> {
        if extra.is_empty() {
            return None;
        }
        let mut env = env_secret_names();
        env.extend(extra.env.iter().cloned());
        let redaction = Redaction {
            env,
            patterns: extra.patterns.clone(),
        };
        Redactor::from_env(&redaction).ok().map(Scrub)
    }

    fn text(&self, text: &mut String) {
        if let Cow::Owned(redacted) = self.0.redact(text.as_bytes()) {
            *text = String::from_utf8_lossy(&redacted).into_owned();
        }
    }

    fn finding(&self, finding: &mut Finding) {
        self.text(&mut finding.message);
        for text in [&mut finding.diff, &mut finding.hint].into_iter().flatten() {
            self.text(text);
        }
        if let Location::Probe { command, step } = &mut finding.location {
            self.text(command);
            self.text(step);
        }
    }

    fn transcript(&self, result: &mut TranscriptResult) {
        if self.0.is_empty() {
            return;
        }
        self.text(&mut result.command);
        for note in &mut result.notes {
            self.text(note);
        }
        for graded in &mut result.findings {
            self.finding(&mut graded.finding);
        }
    }

    fn host(&self, result: &mut HostResult) {
        if self.0.is_empty() {
            return;
        }
        for text in result.host.iter_mut().chain(&mut result.notes) {
            self.text(text);
        }
        for graded in &mut result.findings {
            self.finding(&mut graded.finding);
        }
        for outcome in &mut result.outcomes {
            if let LawStatus::Skipped(reason) = &mut outcome.status {
                self.text(reason);
            }
        }
    }

    fn probe(&self, result: &mut ProbeResult) {
        if self.0.is_empty() {
            return;
        }
        self.text(&mut result.command);
        for graded in &mut result.findings {
            self.finding(&mut graded.finding);
        }
        for outcome in &mut result.outcomes {
            if let LawStatus::Skipped(reason) = &mut outcome.status {
                self.text(reason);
            }
        }
    }
}

/// Grades findings: waivers first, then the baseline, then the severity.
struct Grader<'a> {
    deny_warnings: bool,
    baseline: &'a BTreeSet<FindingKey>,
    keys: &'a Keys,
}

impl Grader<'_> {
    fn grade(&self, graded: &mut Graded, waive: &BTreeSet<LawId>, seen: &mut BTreeSet<FindingKey>) {
        if graded.disposition == Disposition::Blessed {
            return;
        }
        let entry = self.keys.entry(&graded.finding);
        let known = self.baseline.contains(&entry);
        if known {
            seen.insert(entry);
        }
        graded.disposition = if waive.contains(&graded.finding.law) {
            Disposition::Waived
        } else if known {
            Disposition::Known
        } else if graded.finding.severity == Severity::Error || self.deny_warnings {
            Disposition::Fails
        } else {
            Disposition::Warns
        };
    }
}

/// Runs the probe runs, then the replays, on up to `options.jobs` threads;
/// returns their results in that order, `None` for each job a stop signal
/// kept from running or finishing.
fn run_jobs(
    probes: &[PlannedProbe],
    planned: &[Planned],
    options: &CheckOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Option<Done>> {
    let total = probes.len() + planned.len();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Done>>> = (0..total).map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            if stop_signal().is_some() {
                return;
            }
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= total {
                return;
            }
            let done = match probes.get(index) {
                Some(probe) => Done::Probe(run_probe(probe)),
                None => Done::Replay(run_replay(&planned[index - probes.len()], options)),
            };
            if stop_signal().is_some() {
                return;
            }
            *results[index]
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(done);
            progress(finished.fetch_add(1, Ordering::Relaxed) + 1, total);
        }
    };
    // Asking the machine for its cores costs a few file reads: not for a
    // run of one job.
    let threads = match options.jobs {
        _ if total <= 1 => 1,
        Some(jobs) => jobs.clamp(1, total),
        None => std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(total),
    };
    if threads == 1 {
        work();
    } else {
        // The servers of every job belong to the caller's stop scope.
        let stop_scope = crate::process::current_scope();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let stop_scope = stop_scope.clone();
                scope.spawn(move || crate::process::StopScope::enter(stop_scope, work));
            }
        });
    }
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
        .collect()
}

fn run_probe(plan: &PlannedProbe) -> Result<ProbeResult, InputError> {
    let started = Instant::now();
    let report = probes::run(&plan.command, &plan.options).map_err(|err| InputError {
        path: None,
        message: chain(&err),
    })?;
    if let Some(allowance) = report.silent {
        return Err(InputError {
            path: None,
            message: silent_message(
                &format!("the law probes of `{}`", report.command),
                allowance,
            ),
        });
    }
    Ok(ProbeResult {
        command: report.command,
        outcomes: report.outcomes,
        findings: report
            .findings
            .into_iter()
            .map(|finding| Graded::new(finding, Disposition::Fails))
            .collect(),
        elapsed: started.elapsed(),
        coverage: report.coverage,
    })
}

/// Reads and replays one transcript.
fn run_replay(plan: &Planned, options: &CheckOptions) -> Replayed {
    let bless = options.bless;
    let started = Instant::now();
    let error = |message: String| InputError {
        path: Some(plan.path.clone()),
        message,
    };
    // The server starts first: it gets ready while the transcript is read,
    // which takes the reading off the replay's critical path. A transcript
    // that cannot be read is still the error reported, and its server is
    // stopped at once.
    let server = ServerProcess::spawn(&plan.command);
    let transcript = match plan.transcript() {
        Ok(transcript) => transcript,
        Err(err) => {
            return Replayed {
                result: None,
                errors: vec![error(chain(&err))],
                unstartable: false,
                host: None,
            };
        }
    };
    // The host is judged from what the transcript holds: it needs no
    // server, so a replay that fails leaves it judged.
    let judging = Instant::now();
    let host = crate::host::judge_transcript(&transcript, plan.replay.profile)
        .into_result(plan.path.display().to_string(), judging.elapsed());
    let failed = |message: String, unstartable: bool| Replayed {
        result: None,
        errors: vec![error(message)],
        unstartable,
        host: Some(Box::new(host.clone())),
    };
    let mut outcome = match server.map_err(ReplayError::from).and_then(|server| {
        let command = server.command().to_owned();
        replay_on(server, &command, &transcript, &plan.replay)
    }) {
        Ok(outcome) => outcome,
        Err(ReplayError::Spawn(err)) => {
            // The OS reports a missing working directory as a missing
            // file, which reads as a missing program: say which it is.
            let message = match err.missing_dir() {
                Some(dir) => format!(
                    "{}:1: cannot start server `{}`: its working directory `{}` (the header's `cwd`) does not exist",
                    plan.path.display(),
                    err.command,
                    dir.display()
                ),
                None => format!("{}: {}", plan.path.display(), chain(&err)),
            };
            return failed(message, true);
        }
        // Every other error names the transcript and the line itself.
        Err(err) => return failed(chain(&err), false),
    };
    // A server that wrote nothing at all may just start slowly: the
    // transcript could not be checked, which is no finding about the server.
    // Its probe run says the same, and is not reported again.
    if let Some(allowance) = outcome.silent {
        return failed(
            silent_message(&plan.path.display().to_string(), allowance),
            true,
        );
    }
    // Responses that differ may differ only by values that change by
    // themselves: a second live run tells, when it takes one.
    let settled = noise::settle(
        &mut outcome,
        || {
            let mut again = plan.replay.clone();
            again.keep_live = false;
            let server = ServerProcess::spawn(&plan.command).ok()?;
            let command = server.command().to_owned();
            replay_on(server, &command, &transcript, &again).ok()
        },
        options.fail_on_noise,
    );
    let mut result = TranscriptResult {
        path: plan.path.clone(),
        command: outcome.command,
        exchanges: outcome.exchanges,
        findings: outcome
            .findings
            .into_iter()
            .map(|finding| Graded::new(finding, Disposition::Fails))
            .collect(),
        notes: transcript
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect(),
        blessed: None,
        elapsed: Duration::ZERO,
        coverage: outcome.coverage,
    };
    result.notes.extend(outcome.notes);
    let mut errors = Vec::new();
    if !outcome.complete {
        result.notes.push(
            "the replay stopped early: the exchanges after the failure were not sent".to_owned(),
        );
    }
    // An incomplete live session cannot be blessed: no finding may say it
    // can. Otherwise one command accepts them all, so the first finding
    // says it, and the others do not repeat it.
    let mut hinted = !outcome.complete;
    for graded in &mut result.findings {
        if graded.finding.law == LawId::TranscriptMatch && graded.finding.hint.is_some() {
            if hinted {
                graded.finding.hint = None;
            }
            hinted = true;
        }
    }
    // A session that only changed shape (a recorded message that never
    // came) has no mismatched response, and is still the live session's to
    // accept.
    if bless && (outcome.mismatches > 0 || outcome.reshaped || !settled.rules.is_empty()) {
        if !outcome.complete {
            result
                .notes
                .push("not blessed: the live session is incomplete".to_owned());
        } else if let Err(err) =
            bless::bless(&transcript, &outcome.live, outcome.reshaped, &settled.rules)
        {
            errors.push(error(format!(
                "cannot bless `{}`: {err}",
                plan.path.display()
            )));
        } else {
            let mut accepted = 0;
            for graded in &mut result.findings {
                if graded.finding.law == LawId::TranscriptMatch {
                    graded.disposition = Disposition::Blessed;
                    accepted += 1;
                }
            }
            result.blessed = Some(accepted);
        }
    }
    result.elapsed = started.elapsed();
    Replayed {
        result: Some(result),
        errors,
        unstartable: false,
        host: Some(Box::new(host)),
    }
}

/// What a run says of a server that wrote nothing on stdout within the
/// startup allowance, for `what` (a transcript, or the probes of a
/// command).
fn silent_message(what: &str, allowance: Duration) -> String {
    format!(
        "{what}: not checked: the server wrote nothing on stdout within {} of its start; a server that starts slowly needs a longer `--startup-timeout`",
        duration::format_duration(allowance)
    )
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;

    #[test]
    fn partitions_parse_and_deal_round_robin() {
        let p: Partition = "2/3".parse().unwrap();
        assert_eq!(p, Partition { index: 2, count: 3 });
        assert_eq!(
            (0..7).filter(|i| p.owns(*i)).collect::<Vec<_>>(),
            vec![1, 4]
        );
        assert!("0/3".parse::<Partition>().is_err());
        assert!("4/3".parse::<Partition>().is_err());
        assert_eq!(
            "x".parse::<Partition>().unwrap_err(),
            "`x` is not a partition (expected I/N with 1 ≤ I ≤ N, e.g. 1/4)"
        );
    }
}
