//! The run of `mcp-replay fuzz`: the server opened in the era detection
//! picks, the tools chosen, every case sent (pipelined), each failure put
//! down to the call that makes it, shrunk, confirmed on a fresh process and
//! written as a transcript, and the report graded as `check` grades one.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::checks::{self, Failure, Kind, Observed, Rules};
use super::conn::{Conn, Got, Log, Lost, Opened, Setup};
use super::findings::{self, Writer};
use super::{EraChoice, FuzzError, FuzzOptions, seconds, shrink};
use crate::client::Observation;
use crate::client::duration::after;
use crate::jsonrpc::RequestId;
use crate::laws::{CATALOG, LawId, Profile, Severity};
use crate::process::{ServerCommand, stop_signal};
use crate::report::{
    Disposition, Finding, FuzzCase, FuzzResult, FuzzedTool, Graded, InputError, Interruption,
    LawOutcome, LawStatus, Location, Report,
};
use crate::revision::{Era, Revision};
use crate::schema::generate::{self, Case};
use crate::schema::judge::{Schema, Verdict};
use crate::schema::rng;
use crate::transcript::{Redaction, Redactor, env_secret_names};

/// The laws fuzz checks, in catalog order.
pub(super) const LAWS: &[LawId] = &[
    LawId::StdoutIsProtocol,
    LawId::Schema,
    LawId::RequestAnsweredOnce,
    LawId::ToolErrorIsResult,
];

/// A call that reports progress may take this many call deadlines at most
/// (MCP 2025-11-25 basic/lifecycle#timeouts: a sender may restart the
/// clock on each progress notification, and should still enforce a hard
/// maximum).
const CALL_LIMIT: u32 = 12;

/// A tool's cases stop being sent once calls of it ended the process this
/// many times (the rest would restart it for nothing)...
const CRASH_REPEATS: usize = 10;

/// ...or left it hanging this many times, each of which costs a deadline
/// twice (the call, and the call alone): once a tool is known to hang,
/// its other cases are not sent.
const HANG_REPEATS: usize = 1;

/// One case of the run: a tool and the index of one of its cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Work {
    tool: usize,
    case: usize,
}

/// One tool of the run.
struct Planned {
    name: String,
    schema: Value,
    cases: Vec<Case>,
    summary: FuzzedTool,
    /// The calls of the tool that ended the process, and that left it
    /// hanging, so far.
    crashes: usize,
    hangs: usize,
    /// The calls that reached the tool (answered with a complete result),
    /// and why the others did not, counted.
    reached: usize,
    unreached: BTreeMap<&'static str, usize>,
}

impl Planned {
    /// Whether the tool's remaining cases are not sent.
    fn given_up(&self) -> bool {
        self.crashes >= CRASH_REPEATS || self.hangs >= HANG_REPEATS
    }
}

/// A distinct failure: the first case that showed it, and how often.
struct Found {
    tool: usize,
    failure: Failure,
    arguments: Option<Value>,
    verdict: Verdict,
    what: String,
    count: usize,
    /// The session it happened in, up to it, for a failure that does not
    /// come back alone: the log, its last line, and the failing call's id.
    session: Option<Session>,
    /// The arguments first sent, when shrinking made them smaller.
    shrunk_from: Option<Option<Value>>,
    /// The log of a fresh process whose first call showed it, when one
    /// did (a call run alone): it is confirmed, and its transcript is
    /// written from that log without running it again.
    confirmed: Option<Log>,
    /// The transcript written, and remarks.
    transcript: Option<PathBuf>,
    notes: Vec<String>,
}

/// Lines that are no message are put down to a call this many times; the
/// rest are counted (a server that writes one per call would otherwise
/// have every call run again alone).
const MAX_NOISE_EVENTS: usize = 16;

/// A finding about the session rather than one call: the law, the step,
/// what happened, and, for one no call shows alone, the session that
/// showed it and the transcript written from it.
struct SessionFinding {
    law: LawId,
    step: String,
    message: String,
    kind: Option<Kind>,
    session: Option<Session>,
    transcript: Option<PathBuf>,
}

/// The verdict and words a shrunk case is reported with.
type Relabel = Option<(Verdict, String)>;

/// A call sent and not answered yet, on the main process.
struct InFlight {
    id: RequestId,
    work: Work,
    sent: Instant,
    /// When the server could start on it: when it was sent, or when the
    /// call sent before it was answered, whichever is later. A server that
    /// answers in order is not charged for the time a call waited behind
    /// another.
    ready: Instant,
}

/// Something that happened to the main process that no single answer
/// tells the cause of.
enum Event {
    /// The server closed stdout.
    Closed { exit: String },
    /// The call `hung` got no answer in time.
    Hung { hung: Work },
    /// The request after the last call got no answer.
    Stopped { lost: Lost, exit: Option<String> },
    /// A line that is no message.
    Noise { line: String },
}

struct Runner<'a> {
    options: &'a FuzzOptions,
    setup: &'a Setup,
    display: String,
    era: Era,
    revision: Revision,
    rules: Rules,
    tools: Vec<Planned>,
    found: Vec<Found>,
    keys: HashMap<(usize, Kind, String), usize>,
    /// Findings about the session rather than a call.
    session: Vec<SessionFinding>,
    /// Lines that were no message and were not put down to a call, past
    /// the first [`MAX_NOISE_EVENTS`].
    noise_uncounted: usize,
    noise_events: usize,
    /// The process isolated calls run on, while it lives.
    isolator: Option<Conn<'a>>,
    /// What each case did alone, once run alone.
    alone: HashMap<Work, Alone>,
    /// The log of each case that failed alone as a fresh process's first
    /// call.
    alone_logs: HashMap<Work, Log>,
    /// The calls classified so far, and the calls planned.
    done: usize,
    total: usize,
    /// Whether any call was classified (a law was checked).
    judged: bool,
    notes: Vec<String>,
    /// What the client could not decide of the answers, law by law: each
    /// reason with the first place it was given and how often.
    unjudged: Vec<(LawId, String, String, usize)>,
    /// Values not judged for reasons past the first `MAX_UNJUDGED`.
    unjudged_other: usize,
    restarts: usize,
    progress: &'a (dyn Fn(usize, usize) + Sync),
    /// When the run stops sending cases.
    calls_end: Instant,
    /// Calls in flight when the time budget ended, unanswered.
    cut_calls: usize,
}

pub(super) fn run(
    options: &FuzzOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Report, FuzzError> {
    let started = Instant::now();
    if options.command.is_empty() {
        return Err(FuzzError::NoCommand);
    }
    let seed = options.seed.unwrap_or_else(rng::fresh_seed);
    // The server runs in a scratch directory unless told otherwise; the
    // directory goes (with whatever the server wrote there) when the run
    // ends, after every process is gone.
    let scratch = match &options.cwd {
        Some(_) => None,
        None => Some(
            tempfile::Builder::new()
                .prefix("mcp-replay-fuzz-")
                .tempdir()
                .map_err(FuzzError::Scratch)?,
        ),
    };
    let mut argv = options.command.clone();
    if let Some(program) = argv.first_mut()
        && program.contains('/')
        && Path::new(program.as_str()).is_relative()
        && let Ok(absolute) = std::path::absolute(program.as_str())
    {
        // A program named by a path relative to here still starts from the
        // scratch directory.
        *program = absolute.display().to_string();
    }
    let cwd: PathBuf = match (&options.cwd, &scratch) {
        (Some(cwd), _) => cwd.clone(),
        (None, Some(scratch)) => scratch.path().to_owned(),
        (None, None) => PathBuf::from("."),
    };
    let display = ServerCommand::new(options.command.clone()).display();
    let redaction = Redaction {
        env: env_secret_names(),
        patterns: Vec::new(),
    };
    let redactor = Redactor::from_env(&redaction).unwrap_or_default();
    let setup = Setup {
        command: ServerCommand::new(argv).in_dir(&cwd),
        call_timeout: options.call_timeout,
        call_limit: options.call_timeout.saturating_mul(CALL_LIMIT),
        startup_timeout: options.startup_timeout,
        grace: options.grace,
        redactor: redactor.clone(),
        run_end: after(started, options.budget),
    };
    let mut report = Report {
        profiles: vec![options.profile],
        ..Report::default()
    };
    let opened = match options.era {
        EraChoice::Auto => Conn::detect(&setup),
        EraChoice::Legacy => Conn::open(&setup, Era::Legacy),
        EraChoice::Modern => Conn::open(&setup, Era::Modern),
    };
    let (mut first, opened) = match opened {
        Ok(opened) => opened,
        Err(error) => {
            if let Some(signal) = stop_signal() {
                let mut interruption = Interruption::new(signal);
                interruption.probes.push(display.clone());
                report.interrupted = Some(interruption);
            } else {
                report.errors.push(InputError {
                    path: None,
                    message: format!("`{display}`: {}", error.message),
                });
            }
            report.elapsed = started.elapsed();
            return Ok(report);
        }
    };
    let Opened {
        era,
        revision,
        tools: listed,
        list_problems,
    } = opened;
    let mut notes: Vec<String> = list_problems
        .into_iter()
        .map(|problem| format!("tools/list: {problem}"))
        .collect();
    let (tools, unknown) = plan_tools(&listed, options, seed);
    for name in unknown {
        report.errors.push(InputError {
            path: None,
            message: format!("`{display}`: {name}: the server lists no tool of that name"),
        });
    }
    let invalid_may_be_error =
        options.profile == Profile::Spec && !revision.tool_input_errors_are_results();
    let total = tools.iter().map(|tool| tool.cases.len()).sum();
    // Cases are sent for three quarters of the budget at most: what is
    // left shrinks and confirms the findings.
    let calls_end = after(started, options.budget - options.budget / 4);
    let mut runner = Runner {
        options,
        setup: &setup,
        display: display.clone(),
        era,
        revision,
        rules: Rules {
            invalid_may_be_error,
        },
        tools,
        found: Vec::new(),
        keys: HashMap::new(),
        session: Vec::new(),
        noise_uncounted: 0,
        noise_events: 0,
        isolator: None,
        alone: HashMap::new(),
        alone_logs: HashMap::new(),
        done: 0,
        total,
        judged: false,
        notes: Vec::new(),
        unjudged: Vec::new(),
        unjudged_other: 0,
        restarts: 0,
        progress,
        calls_end,
        cut_calls: 0,
    };
    runner.session_observations(first.take_observations(), "opening");
    runner.note_unjudged(first.take_unjudged());
    let queue: Vec<Work> = runner
        .tools
        .iter()
        .enumerate()
        .flat_map(|(tool, planned)| (0..planned.cases.len()).map(move |case| Work { tool, case }))
        .collect();
    runner.calls(first, &queue);
    if stop_signal().is_none() {
        runner.finish_findings(&redaction, &redactor);
    }
    if let Some(isolator) = runner.isolator.take() {
        isolator.close();
    }
    if runner.noise_uncounted > 0 {
        runner.notes.push(format!(
            "{} more stdout lines that are no message were not put down to a call",
            runner.noise_uncounted
        ));
    }
    notes.append(&mut runner.notes);
    if runner.restarts > 0 {
        notes.push(format!(
            "the server was started again {} time{} after it ended or hung",
            runner.restarts,
            crate::report::plural(runner.restarts)
        ));
    }
    let result = runner.report(seed, notes, started);
    if let Some(empty) = empty_run(&result, &display)
        && !options.allow_empty
        && stop_signal().is_none()
    {
        report.errors.push(InputError {
            path: None,
            message: empty,
        });
    }
    report.fuzz.push(result);
    if let Some(signal) = stop_signal() {
        let mut interruption = Interruption::new(signal);
        interruption.probes.push(display);
        report.interrupted = Some(interruption);
    }
    // Every process is gone; the scratch directory goes now.
    drop(scratch);
    report.grade_requirements();
    report.deny_unobserved = options
        .deny_unobserved
        .then_some(crate::laws::registry::Side::Server);
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Why a run fuzzed nothing, when it did not and nothing failed it: no
/// tool was called (none says it changes nothing, none was named), or no
/// call reached a tool. A run like that exits 2, never 0, unless
/// `--allow-empty` lets it pass.
fn empty_run(result: &FuzzResult, display: &str) -> Option<String> {
    let flags = "name the tools to call with --tool NAME, or give --all-tools to call every one (--allow-empty lets a run that calls none pass)";
    if result.tools.iter().all(|tool| tool.sent == 0) {
        let why = match result.tools.len() {
            0 => "the server lists no tools".to_owned(),
            1 => "its one tool was not called (its line says why)".to_owned(),
            n => format!("none of its {n} tools was called (each tool's line says why)"),
        };
        return Some(format!("`{display}`: nothing was fuzzed: {why}; {flags}"));
    }
    let failed = result
        .findings
        .iter()
        .any(|graded| graded.disposition == Disposition::Fails);
    if failed || result.tools.iter().any(|tool| tool.reached > 0) {
        return None;
    }
    Some(format!(
        "`{display}`: nothing was fuzzed: no call reached a tool (each tool's note says what its calls got instead); --allow-empty lets such a run pass"
    ))
}

/// The tools, in name order, each with its cases or why it is skipped;
/// and the names given with `--tool` that the server does not list.
fn plan_tools(listed: &[Value], options: &FuzzOptions, seed: u64) -> (Vec<Planned>, Vec<String>) {
    let mut tools: Vec<Planned> = Vec::new();
    // What the cases of the tools planned so far weigh.
    let mut drawn = 0;
    for descriptor in listed {
        let Some(name) = descriptor
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        if tools.iter().any(|known| known.name == name) {
            continue;
        }
        let mut summary = FuzzedTool {
            name: name.to_owned(),
            ..FuzzedTool::default()
        };
        let schema = descriptor
            .get("inputSchema")
            .cloned()
            .unwrap_or(Value::Null);
        let named = options.tools.iter().any(|tool| tool == name);
        let hint = |key: &str| {
            descriptor
                .pointer(&format!("/annotations/{key}"))
                .and_then(Value::as_bool)
        };
        // Read-only, or (unless `--read-only`) additive: the specification's
        // `destructiveHint: false` says a tool "performs only additive
        // updates", which the scratch directory holds.
        let safe = hint("readOnlyHint") == Some(true)
            || (!options.read_only && hint("destructiveHint") == Some(false));
        let mut cases = Vec::new();
        if options.skip_tools.iter().any(|tool| tool == name) {
            summary.skipped = Some("left out with --skip-tool".to_owned());
        } else if !schema.is_object() {
            summary.skipped = Some("its inputSchema is no object schema".to_owned());
        } else if !options.tools.is_empty() && !named && !options.all_tools {
            summary.skipped = Some("not named with --tool".to_owned());
        } else if !(named || options.all_tools || safe) {
            summary.skipped = Some(skip_reason(descriptor, name, options.read_only));
        } else {
            let generated = generate::cases(&schema, seed, name, options.cases);
            summary.not_generated_for = generated.not_generated_for;
            cases = generated.cases;
            if !keep_within(&mut cases, &mut drawn) {
                summary.not_generated_for.push(format!(
                    "more cases than fit the {} MiB of cases one run keeps (docs/limits.md)",
                    MAX_RUN_CASES >> 20
                ));
            }
            summary.cases = cases.len();
        }
        tools.push(Planned {
            name: name.to_owned(),
            schema,
            cases,
            summary,
            crashes: 0,
            hangs: 0,
            reached: 0,
            unreached: BTreeMap::new(),
        });
    }
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let flagged = |flag: &'static str, names: &[String]| {
        names
            .iter()
            .filter(|name| !tools.iter().any(|tool| tool.name == **name))
            .map(move |name| format!("{flag} {name}"))
            .collect::<Vec<_>>()
    };
    let mut unknown = flagged("--tool", &options.tools);
    unknown.extend(flagged("--skip-tool", &options.skip_tools));
    (tools, unknown)
}

/// The most the cases of one run weigh together (see
/// [`generate::weigh`]): a server that lists many tools with large
/// schemas has the cases of its first tools drawn, and the rest say why
/// they have fewer.
const MAX_RUN_CASES: usize = 32 << 20;

/// Keeps the first of `cases` that fit in what is left of
/// [`MAX_RUN_CASES`] after `drawn`, which it adds them to; returns whether
/// all were kept.
fn keep_within(cases: &mut Vec<Case>, drawn: &mut usize) -> bool {
    let mut kept = 0;
    for case in cases.iter() {
        let weight = case.arguments.as_ref().map_or(0, |arguments| {
            generate::weigh(arguments, usize::MAX).unwrap_or(usize::MAX)
        }) + case.what.len();
        if drawn.saturating_add(weight) > MAX_RUN_CASES {
            *drawn = MAX_RUN_CASES;
            break;
        }
        *drawn += weight;
        kept += 1;
    }
    let all = kept == cases.len();
    cases.truncate(kept);
    all
}

/// Why a tool is not called by default, from its annotations (and
/// whether `--read-only` left out the tools that only add).
fn skip_reason(descriptor: &Value, name: &str, read_only: bool) -> String {
    let hint = |key: &str| {
        descriptor
            .pointer(&format!("/annotations/{key}"))
            .and_then(Value::as_bool)
    };
    let said = match (hint("readOnlyHint"), hint("destructiveHint")) {
        (_, Some(false)) if read_only => {
            "its annotations say it only adds (destructiveHint: false), and --read-only calls only tools that change nothing (readOnlyHint: true)"
                .to_owned()
        }
        (Some(false), Some(true) | None) => {
            "its annotations say it changes things (readOnlyHint: false) and may destroy (destructiveHint not false)"
                .to_owned()
        }
        (None, Some(true)) => {
            "its annotations say it may destroy (destructiveHint: true)".to_owned()
        }
        _ => "its annotations do not say it changes nothing or only adds (no readOnlyHint: true, no destructiveHint: false)".to_owned(),
    };
    format!("{said}; name it with --tool {name}, or give --all-tools, to call it")
}

impl<'a> Runner<'a> {
    fn stopped(&self) -> bool {
        stop_signal().is_some()
    }

    /// Sends every case of `queue` on `conn`, up to `--pipeline` at once,
    /// and on fresh processes after one ends or hangs.
    fn calls(&mut self, first: Conn<'a>, queue: &[Work]) {
        let window = self.options.pipeline.max(1);
        let timeout = self.options.call_timeout;
        let mut conn = Some(first);
        let mut next = 0;
        let mut flight: Vec<InFlight> = Vec::new();
        let mut recent: VecDeque<Work> = VecDeque::new();
        let mut budget_spent = false;
        loop {
            if self.stopped() {
                return;
            }
            let live = match &mut conn {
                Some(live) => live,
                None => {
                    if next >= queue.len() || budget_spent {
                        break;
                    }
                    match Conn::open(self.setup, self.era) {
                        Ok((fresh, _)) => {
                            self.restarts += 1;
                            conn.insert(fresh)
                        }
                        Err(_) if self.out_of_time() => {
                            budget_spent = true;
                            break;
                        }
                        Err(error) => {
                            if !self.stopped() {
                                self.notes.push(format!(
                                    "the server could not be opened again, and {} cases were not sent: {}",
                                    queue.len() - next,
                                    error.message
                                ));
                            }
                            return;
                        }
                    }
                }
            };
            while flight.len() < window && next < queue.len() {
                if Instant::now() >= self.calls_end {
                    budget_spent = true;
                    break;
                }
                let work = queue[next];
                next += 1;
                if self.tools[work.tool].given_up() {
                    continue;
                }
                let case = &self.tools[work.tool].cases[work.case];
                let id = live.call(&self.tools[work.tool].name, case.arguments.as_ref());
                flight.push(InFlight {
                    id,
                    work,
                    sent: Instant::now(),
                    ready: Instant::now(),
                });
            }
            if flight.is_empty() {
                if next >= queue.len() || budget_spent {
                    break;
                }
                continue;
            }
            let deadline = flight
                .iter()
                .map(|call| after(call.ready, timeout))
                .min()
                .expect("a call is in flight");
            match live.next(deadline.min(self.setup.run_end)) {
                // The run's budget ended with calls in flight: nothing is
                // known of them, and no finding is made of them.
                Got::Timeout if deadline > self.setup.run_end => {
                    self.cut_calls += flight.len();
                    live.kill();
                    conn = None;
                    flight.clear();
                    budget_spent = true;
                }
                Got::Progress(token) => {
                    // Work is under way: the clock of the call starts again,
                    // up to the limit, and so do those sent after it, which
                    // may wait behind it.
                    let limit = self.setup.call_limit;
                    if let Some(at) = flight.iter().position(|call| call.id == token) {
                        let now = Instant::now();
                        for call in &mut flight[at..] {
                            let latest = after(call.sent, limit.saturating_sub(timeout));
                            call.ready = call.ready.max(now.min(latest));
                        }
                    }
                }
                Got::Answer(id, answer) => {
                    let Some(at) = flight.iter().position(|call| call.id == id) else {
                        continue;
                    };
                    let call = flight.remove(at);
                    // A server that answers in order starts on the calls
                    // behind it now: none of them is readier than the
                    // one before it, so the first call left unanswered is
                    // the one whose deadline passes first.
                    let now = Instant::now();
                    for after_it in &mut flight[at..] {
                        after_it.ready = after_it.ready.max(now);
                    }
                    let observations = live.take_observations();
                    self.note_unjudged(live.take_unjudged());
                    let own = self.split_observations(observations, &id, &flight);
                    let observed = Observed {
                        answer: Ok(answer),
                        exit: None,
                        next: None,
                        noise: Vec::new(),
                        observations: own,
                    };
                    let failing = id.clone();
                    self.record(call.work, &observed, || snapshot(live, &failing));
                    recent.push_back(call.work);
                    if recent.len() > window {
                        recent.pop_front();
                    }
                }
                Got::Noise(line) => {
                    if self.stopped() {
                        return;
                    }
                    if self.noise_events >= MAX_NOISE_EVENTS {
                        self.noise_uncounted += 1;
                        continue;
                    }
                    self.noise_events += 1;
                    let failing = flight
                        .first()
                        .map_or_else(|| RequestId::number(0), |call| call.id.clone());
                    let mut suspects: Vec<Work> = flight.iter().map(|call| call.work).collect();
                    suspects.extend(recent.iter().rev().take(1));
                    let session = snapshot(live, &failing);
                    self.event(Event::Noise { line }, &suspects, &[], session);
                }
                Got::Closed => {
                    if self.stopped() {
                        return;
                    }
                    let exit = live.exit_words();
                    let unfinished: Vec<Work> = flight.iter().map(|call| call.work).collect();
                    let failing = flight
                        .first()
                        .map_or_else(|| RequestId::number(0), |call| call.id.clone());
                    let session = snapshot(live, &failing);
                    conn = None;
                    flight.clear();
                    let mut suspects = unfinished.clone();
                    suspects.extend(recent.iter().rev());
                    recent.clear();
                    self.event(Event::Closed { exit }, &suspects, &unfinished, session);
                }
                Got::Timeout => {
                    if self.stopped() {
                        return;
                    }
                    let at = flight
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, call)| call.ready)
                        .map_or(0, |(at, _)| at);
                    let hung = flight[at].work;
                    let unfinished: Vec<Work> = flight.iter().map(|call| call.work).collect();
                    let session = snapshot(live, &flight[at].id);
                    live.kill();
                    conn = None;
                    flight.clear();
                    let mut suspects = vec![hung];
                    suspects.extend(unfinished.iter().filter(|work| **work != hung));
                    suspects.extend(recent.iter().rev());
                    recent.clear();
                    self.event(Event::Hung { hung }, &suspects, &unfinished, session);
                }
            }
        }
        if budget_spent {
            let unsent = queue[next.min(queue.len())..].len() + flight.len();
            let cut = match self.cut_calls {
                0 => String::new(),
                n => format!(", and {n} sent were not answered before it ended"),
            };
            self.notes.push(format!(
                "the time budget of {} ran out: {unsent} cases were not sent{cut}",
                seconds(self.options.budget)
            ));
        }
        // The request after the last call: the server still serves.
        if let Some(mut live) = conn {
            let (id, name) = live.next_request();
            let mut noise = Vec::new();
            match live.answer_to(&id, timeout, &mut noise) {
                Ok(_) => {
                    for line in noise {
                        let suspects: Vec<Work> = recent.iter().rev().take(1).copied().collect();
                        let session = snapshot(&live, &id);
                        self.event(Event::Noise { line }, &suspects, &[], session);
                    }
                    let observations = live.take_observations();
                    self.note_unjudged(live.take_unjudged());
                    self.session_observations(observations, "the request after the last call");
                    live.close();
                }
                Err(Lost::Budget) => {
                    live.kill();
                    self.notes.push(
                        "the time budget ran out before the request after the last call was answered".to_owned(),
                    );
                }
                Err(lost) if !self.stopped() => {
                    let exit = matches!(lost, Lost::Closed).then(|| live.exit_words());
                    let session = snapshot(&live, &id);
                    live.kill();
                    let suspects: Vec<Work> = recent.iter().rev().copied().collect();
                    let _ = name;
                    self.event(Event::Stopped { lost, exit }, &suspects, &[], session);
                }
                Err(_) => {}
            }
        }
    }

    /// The observations about the call `id`, in words; those about no call
    /// in flight are the session's.
    fn split_observations(
        &mut self,
        observations: Vec<Observation>,
        id: &RequestId,
        flight: &[InFlight],
    ) -> Vec<(LawId, String, Option<&'static str>)> {
        let mut own = Vec::new();
        let mut rest = Vec::new();
        for observation in observations {
            match &observation.request {
                Some(request) if request == id => own.push((
                    observation.law,
                    observation.message,
                    observation.requirement,
                )),
                Some(request) if flight.iter().any(|call| call.id == *request) => {
                    // Made before its answer was taken: the call's own.
                    own.push((
                        observation.law,
                        observation.message,
                        observation.requirement,
                    ));
                }
                _ => rest.push(observation),
            }
        }
        self.session_observations(rest, "while the calls were in flight");
        own
    }

    /// Observations about the session rather than one call: findings of
    /// their own, once each. `stdout-is-protocol` is fuzz's own to make.
    fn session_observations(&mut self, observations: Vec<Observation>, step: &str) {
        for observation in observations {
            if observation.law == LawId::StdoutIsProtocol {
                continue;
            }
            let known = self
                .session
                .iter()
                .any(|known| known.law == observation.law && known.message == observation.message);
            if !known {
                self.session.push(SessionFinding {
                    law: observation.law,
                    step: step.to_owned(),
                    message: observation.message,
                    kind: None,
                    session: None,
                    transcript: None,
                });
            }
        }
    }

    /// Classifies one call of `work` and counts it; `session` keeps the
    /// session for a failure not seen before.
    fn record(
        &mut self,
        work: Work,
        observed: &Observed,
        session: impl FnOnce() -> Option<Session>,
    ) {
        let case = &self.tools[work.tool].cases[work.case];
        let (failures, valid_is_error) = checks::classify(observed, &case.verdict, &self.rules);
        self.count(work, valid_is_error, reach(observed));
        if failures.is_empty() {
            return;
        }
        let case = self.tools[work.tool].cases[work.case].clone();
        let fresh = failures.iter().any(|failure| {
            !self
                .keys
                .contains_key(&(work.tool, failure.kind, failure.detail.clone()))
        });
        let session = if fresh { session() } else { None };
        for failure in failures {
            self.found(
                work.tool,
                failure,
                case.arguments.clone(),
                case.verdict.clone(),
                case.what.clone(),
                session.clone(),
            );
        }
    }

    /// Counts a call of `work` as made: whether it was a valid case
    /// answered `isError`, and whether it reached the tool.
    fn count(&mut self, work: Work, valid_is_error: bool, reached: Reach) {
        let tool = &mut self.tools[work.tool];
        match reached {
            Ok(()) => tool.reached += 1,
            Err(why) => *tool.unreached.entry(why).or_default() += 1,
        }
        let summary = &mut tool.summary;
        summary.sent += 1;
        match tool.cases[work.case].verdict {
            Verdict::Valid => summary.valid += 1,
            Verdict::Invalid(_) => summary.invalid += 1,
            Verdict::Unjudged(_) => summary.unjudged += 1,
        }
        if valid_is_error {
            summary.valid_is_error += 1;
        }
        self.judged = true;
        self.done += 1;
        (self.progress)(self.done, self.total);
    }

    /// Notes a failure: a new one, or one more case of a known one.
    fn found(
        &mut self,
        tool: usize,
        failure: Failure,
        arguments: Option<Value>,
        verdict: Verdict,
        what: String,
        session: Option<Session>,
    ) -> usize {
        match failure.kind {
            Kind::Crashed => self.tools[tool].crashes += 1,
            Kind::Hung | Kind::StoppedAnswering => self.tools[tool].hangs += 1,
            _ => {}
        }
        let key = (tool, failure.kind, failure.detail.clone());
        if let Some(&index) = self.keys.get(&key) {
            self.found[index].count += 1;
            return index;
        }
        let index = self.found.len();
        self.keys.insert(key, index);
        self.found.push(Found {
            tool,
            failure,
            arguments,
            verdict,
            what,
            count: 1,
            session,
            shrunk_from: None,
            confirmed: None,
            transcript: None,
            notes: Vec::new(),
        });
        index
    }

    /// Puts an event of the main process down to the call that makes it:
    /// each suspect is run alone, in order, until one shows it; the calls
    /// it cut short (`unfinished`) are all run alone, so each gets its own
    /// verdict.
    fn event(
        &mut self,
        event: Event,
        suspects: &[Work],
        unfinished: &[Work],
        session: Option<Session>,
    ) {
        let wanted: &[Kind] = match &event {
            Event::Closed { .. } => &[Kind::Crashed, Kind::StoppedAnswering],
            Event::Hung { .. } => &[Kind::Hung, Kind::StoppedAnswering],
            Event::Stopped { .. } => &[Kind::StoppedAnswering, Kind::Crashed, Kind::Hung],
            Event::Noise { .. } => &[Kind::Noise],
        };
        let mut shown = false;
        // Some suspect could not be run alone (the time budget ran out, or
        // no process could be opened): what was not shown is not known.
        let mut unknown = false;
        let mut seen = Vec::new();
        for &work in suspects {
            if seen.contains(&work) {
                continue;
            }
            seen.push(work);
            let needed = unfinished.contains(&work);
            if shown && !needed {
                continue;
            }
            // A tool given up on is not run again to tell its calls apart:
            // each would cost what the last did.
            if needed && self.tools[work.tool].given_up() {
                continue;
            }
            if self.stopped() {
                return;
            }
            let (failures, valid_is_error, reached) = self.alone_work(work);
            unknown |= reached == Err(NOT_RUN_ALONE);
            let case = self.tools[work.tool].cases[work.case].clone();
            let shows = failures
                .iter()
                .any(|failure| wanted.contains(&failure.kind));
            let kept: Vec<Failure> = if needed {
                self.count(work, valid_is_error, reached);
                failures
            } else if shows && !shown {
                failures
                    .into_iter()
                    .filter(|failure| wanted.contains(&failure.kind))
                    .collect()
            } else {
                Vec::new()
            };
            for failure in kept {
                let index = self.found(
                    work.tool,
                    failure,
                    case.arguments.clone(),
                    case.verdict.clone(),
                    case.what.clone(),
                    None,
                );
                // Run alone as a fresh process's first call, it is
                // confirmed already.
                if self.found[index].confirmed.is_none()
                    && self.found[index].arguments == case.arguments
                    && let Some(log) = self.alone_logs.get(&work)
                {
                    self.found[index].confirmed = Some(log.clone());
                }
            }
            shown |= shows;
        }
        if shown {
            return;
        }
        // No call shows it alone: the session's finding, kept with the
        // session that showed it.
        let (ends, answered) = match unknown {
            false => (
                "no call ends it alone, so it depends on the calls before it",
                "alone it is answered, so it depends on the calls before it",
            ),
            true => (
                "it was not put down to one call: the time budget ran out (or no process could be opened) before its calls were run alone",
                "it was not put down to one call: the time budget ran out (or no process could be opened) before its calls were run alone",
            ),
        };
        let (kind, step, message) = match event {
            Event::Closed { exit } => (
                Kind::Crashed,
                "while calls were in flight",
                format!("the server {exit} with calls unanswered; {ends}"),
            ),
            Event::Hung { hung } => (
                Kind::Hung,
                "while calls were in flight",
                format!(
                    "a call of `{}` got no answer within {}; {answered}",
                    self.tools[hung.tool].name,
                    seconds(self.options.call_timeout)
                ),
            ),
            Event::Stopped { lost, exit } => (
                Kind::StoppedAnswering,
                "the request after the last call",
                match lost {
                    Lost::Closed => format!(
                        "the server {} before answering the request after the last call",
                        exit.unwrap_or_else(|| "closed stdout".to_owned())
                    ),
                    Lost::Timeout(wait) => format!(
                        "the request after the last call got no answer within {}",
                        seconds(wait)
                    ),
                    Lost::Budget => {
                        "the time budget ran out before the request after the last call was answered"
                            .to_owned()
                    }
                },
            ),
            Event::Noise { line } => (
                Kind::Noise,
                "while calls were in flight",
                format!(
                    "a stdout line that is no JSON-RPC message: `{line}`; no call writes it alone"
                ),
            ),
        };
        if self.session.iter().any(|known| known.kind == Some(kind)) {
            return;
        }
        self.session.push(SessionFinding {
            law: kind.law(),
            step: step.to_owned(),
            message,
            kind: Some(kind),
            session,
            transcript: None,
        });
    }

    /// What `work` does alone, run once.
    fn alone_work(&mut self, work: Work) -> Alone {
        if let Some(known) = self.alone.get(&work) {
            return known.clone();
        }
        let tool = self.tools[work.tool].name.clone();
        let case = self.tools[work.tool].cases[work.case].clone();
        let observed = self.alone(&tool, case.arguments.as_ref());
        let classified = match observed {
            Some((observed, fresh)) => {
                let (failures, valid_is_error) =
                    checks::classify(&observed, &case.verdict, &self.rules);
                if let Some(log) = fresh.filter(|_| !failures.is_empty()) {
                    self.alone_logs.insert(work, log);
                }
                (failures, valid_is_error, reach(&observed))
            }
            None => (Vec::new(), false, Err(NOT_RUN_ALONE)),
        };
        self.alone.insert(work, classified.clone());
        classified
    }

    /// One call of `tool` with `arguments` on the isolation process, in
    /// lockstep, then the next request; with the process's log when it was
    /// the first call of a fresh process. `None` when no process could be
    /// opened, the time budget ended the wait for the answer (or a signal
    /// came): nothing is known of the call.
    fn alone(&mut self, tool: &str, arguments: Option<&Value>) -> Option<(Observed, Option<Log>)> {
        let fresh = self.isolator.is_none();
        if fresh {
            let (conn, _) = Conn::open(self.setup, self.era).ok()?;
            self.isolator = Some(conn);
        }
        let conn = self.isolator.as_mut()?;
        let (observed, alive) = lockstep(conn, tool, arguments, self.options.call_timeout);
        let log = fresh.then(|| conn.log.clone());
        if !alive && let Some(mut dead) = self.isolator.take() {
            dead.kill();
        }
        if self.stopped() {
            return None;
        }
        if matches!(observed.answer, Err(Lost::Budget)) {
            return None;
        }
        Some((observed, log))
    }

    /// Whether the run's time budget has ended.
    fn out_of_time(&self) -> bool {
        Instant::now() >= self.setup.run_end
    }

    /// Shrinks, confirms and writes each failure found.
    fn finish_findings(&mut self, redaction: &Redaction, redactor: &Redactor) {
        let cwd = self.options.cwd.clone();
        if let Some(dir) = self.options.findings.clone() {
            let writer = Writer {
                dir: &dir,
                argv: &self.options.command,
                cwd: cwd.as_deref(),
                redaction,
                redactor,
            };
            for found in &mut self.session {
                let (Some(kind), Some((log, end, failing))) = (found.kind, found.session.take())
                else {
                    continue;
                };
                if let Ok(path) = writer.write(
                    "session",
                    kind,
                    &log,
                    end,
                    &failing,
                    &findings::Answer::Omitted,
                    &found.message,
                ) {
                    found.transcript = Some(path);
                }
            }
        }
        for index in 0..self.found.len() {
            if self.stopped() {
                return;
            }
            let tool = self.found[index].tool;
            let name = self.tools[tool].name.clone();
            let original = self.found[index].arguments.clone();
            let kind = self.found[index].failure.kind;
            let detail = self.found[index].failure.detail.clone();
            let shrunk = if self.options.shrink {
                self.shrink(index)
            } else {
                None
            };
            let Some(dir) = self.options.findings.clone() else {
                if let Some((arguments, verdict, what)) = shrunk {
                    self.found[index].arguments = arguments;
                    self.found[index].verdict = verdict;
                    self.found[index].what = what;
                }
                continue;
            };
            let writer = Writer {
                dir: &dir,
                argv: &self.options.command,
                cwd: cwd.as_deref(),
                redaction,
                redactor,
            };
            let mut notes = Vec::new();
            let mut written = None;
            // The time budget ended before it could be confirmed alone.
            let mut unconfirmed = false;
            let confirmed = self.found[index].confirmed.take();
            let mut candidates: Vec<(Option<Value>, Relabel)> = Vec::new();
            if let Some((arguments, verdict, what)) = &shrunk {
                candidates.push((arguments.clone(), Some((verdict.clone(), what.clone()))));
            }
            match confirmed {
                // Run alone as a fresh process's first call already: that
                // session is its transcript, with no need to run it again.
                Some(log) if shrunk.is_none() => {
                    let failing = call_id(&log, &name).unwrap_or_else(|| RequestId::number(0));
                    match writer.write(
                        &name,
                        kind,
                        &log,
                        None,
                        &failing,
                        &findings::Answer::for_kind(kind),
                        &self.found[index].failure.message,
                    ) {
                        Ok(path) => written = Some(path),
                        Err(error) => notes.push(format!(
                            "the transcript could not be written in {}: {error}",
                            dir.display()
                        )),
                    }
                }
                _ => candidates.push((original.clone(), None)),
            }
            for (arguments, relabel) in candidates {
                if self.stopped() {
                    return;
                }
                if self.out_of_time() {
                    unconfirmed = true;
                    break;
                }
                let Ok((mut conn, _)) = Conn::open(self.setup, self.era) else {
                    unconfirmed = self.out_of_time();
                    break;
                };
                let (observed, _) = lockstep(
                    &mut conn,
                    &name,
                    arguments.as_ref(),
                    self.options.call_timeout,
                );
                conn.kill();
                if matches!(observed.answer, Err(Lost::Budget)) {
                    unconfirmed = true;
                    break;
                }
                let verdict = relabel.as_ref().map_or_else(
                    || self.found[index].verdict.clone(),
                    |(verdict, _)| verdict.clone(),
                );
                let (failures, _) = checks::classify(&observed, &verdict, &self.rules);
                if !failures
                    .iter()
                    .any(|failure| failure.kind == kind && failure.detail == detail)
                {
                    continue;
                }
                let failing = call_id(&conn.log, &name).unwrap_or_else(|| RequestId::number(0));
                match writer.write(
                    &name,
                    kind,
                    &conn.log,
                    None,
                    &failing,
                    &findings::Answer::for_kind(kind),
                    &self.found[index].failure.message,
                ) {
                    Ok(path) => written = Some(path),
                    Err(error) => notes.push(format!(
                        "the transcript could not be written in {}: {error}",
                        dir.display()
                    )),
                }
                match relabel {
                    Some((verdict, what)) => {
                        self.found[index].arguments = arguments;
                        self.found[index].verdict = verdict;
                        self.found[index].what = what;
                    }
                    None if shrunk.is_some() => notes.push(
                        "the shrunk arguments did not fail the same way on a fresh process; the case is kept as first sent".to_owned(),
                    ),
                    None => {}
                }
                break;
            }
            if unconfirmed && written.is_none() {
                // Shrinking ran each smaller case alone: the smallest that
                // failed is kept, unconfirmed on a fresh process.
                if let Some((arguments, verdict, what)) = shrunk {
                    self.found[index].arguments = arguments;
                    self.found[index].verdict = verdict;
                    self.found[index].what = what;
                }
            }
            if written.is_none() && notes.is_empty() {
                let why = match unconfirmed {
                    true => {
                        "the time budget ran out before it was confirmed alone on a fresh process"
                    }
                    false => "alone on a fresh process it does not fail",
                };
                // It does not come back alone: the session that showed it.
                match self.found[index].session.take() {
                    Some((log, end, failing)) => {
                        match writer.write(
                            &name,
                            kind,
                            &log,
                            end,
                            &failing,
                            &findings::Answer::for_kind(kind),
                            &self.found[index].failure.message,
                        ) {
                            Ok(path) => {
                                written = Some(path);
                                notes.push(format!("{why}: the transcript keeps the session up to it, calls before it included"));
                            }
                            Err(error) => notes.push(format!(
                                "the transcript could not be written in {}: {error}",
                                dir.display()
                            )),
                        }
                    }
                    None => notes.push(format!(
                        "{why}, and the session that showed it was too long to keep: no transcript"
                    )),
                }
            }
            let found = &mut self.found[index];
            found.session = None;
            found.transcript = written;
            found.notes.extend(notes);
        }
    }

    /// Shrinks the arguments of failure `index`: smaller arguments, tried
    /// alone one after the other, are kept while they fail the same way
    /// (the same kind of failure, and for a check that rests on the label,
    /// the same label); returns the smallest, with its verdict and words,
    /// when it is smaller than the case first sent.
    fn shrink(&mut self, index: usize) -> Option<(Option<Value>, Verdict, String)> {
        let tool = self.found[index].tool;
        let name = self.tools[tool].name.clone();
        let schema_value = self.tools[tool].schema.clone();
        let schema = Schema::new(&schema_value);
        let kind = self.found[index].failure.kind;
        let detail = self.found[index].failure.detail.clone();
        let label = self.found[index].verdict.clone();
        let mut current = self.found[index].arguments.clone();
        let mut current_verdict = label.clone();
        let mut attempts = 0;
        let mut smaller = false;
        'rounds: loop {
            for candidate in shrink::candidates(&current) {
                let most = match kind {
                    Kind::Hung | Kind::StoppedAnswering => shrink::MAX_SLOW_ATTEMPTS,
                    _ => shrink::MAX_ATTEMPTS,
                };
                if attempts >= most || Instant::now() >= self.setup.run_end || self.stopped() {
                    break 'rounds;
                }
                let judged = candidate.clone().unwrap_or_else(|| serde_json::json!({}));
                let verdict = schema.judge(&judged);
                if !shrink::same_label(kind, &label, &verdict) {
                    continue;
                }
                attempts += 1;
                let Some((observed, _)) = self.alone(&name, candidate.as_ref()) else {
                    break 'rounds;
                };
                let (failures, _) = checks::classify(&observed, &verdict, &self.rules);
                if failures
                    .iter()
                    .any(|failure| failure.kind == kind && failure.detail == detail)
                {
                    current = candidate;
                    current_verdict = verdict;
                    smaller = true;
                    continue 'rounds;
                }
            }
            break;
        }
        if !smaller {
            return None;
        }
        self.found[index].shrunk_from = Some(self.found[index].arguments.clone());
        let what = self.found[index].what.clone();
        Some((current, current_verdict, what))
    }

    /// Keeps what the client could not decide, once per law and reason (at
    /// most `MAX_UNJUDGED` reasons; past them, values are counted).
    fn note_unjudged(&mut self, unjudged: Vec<crate::client::Unjudged>) {
        for one in unjudged {
            let known = self
                .unjudged
                .iter()
                .position(|(law, why, _, _)| *law == one.law && *why == one.why);
            match known {
                Some(index) => self.unjudged[index].3 += 1,
                None if self.unjudged.len() < crate::client::MAX_UNJUDGED => {
                    self.unjudged
                        .push((one.law, one.why.clone(), one.note(), 1));
                }
                None => self.unjudged_other += 1,
            }
        }
    }

    /// The run's result, graded.
    fn report(&mut self, seed: u64, notes: Vec<String>, started: Instant) -> FuzzResult {
        let profile = self.options.profile;
        let mut findings: Vec<Graded> = Vec::new();
        for found in &self.session {
            let finding = Finding::new(
                found.law,
                profile,
                Location::Probe {
                    command: self.display.clone(),
                    step: found.step.clone(),
                },
                found.message.clone(),
            )
            .with_era(Some(self.era));
            let finding = match &found.transcript {
                Some(path) => finding.with_hint(format!(
                    "`mcp-replay check {}` replays the session that showed it, calls before it included",
                    crate::process::shell_quote(&path.display().to_string())
                )),
                None => finding,
            };
            findings.push(self.grade(finding));
        }
        for found in &self.found {
            let planned = &self.tools[found.tool];
            let mut case = FuzzCase::new(&planned.name, found.arguments.clone());
            case.label = label_words(&found.verdict);
            case.what = found.what.clone();
            case.shrunk_from = found
                .shrunk_from
                .clone()
                .map(|from| from.unwrap_or(Value::Null));
            case.count = found.count;
            case.transcript = found.transcript.clone();
            case.notes = found.notes.clone();
            let step = format!("tools/call {} with {}", planned.name, case.arguments_text());
            let finding = Finding::new(
                found.failure.kind.law(),
                profile,
                Location::Probe {
                    command: self.display.clone(),
                    step: shorten(&step),
                },
                found.failure.message.clone(),
            )
            .with_era(Some(self.era))
            .with_fuzz(case);
            let finding = match found.failure.requirement {
                Some(id) => finding.with_requirement(id),
                None => finding,
            };
            let finding = match &found.transcript {
                Some(path) => finding.with_hint(format!(
                    "`mcp-replay check {}` replays it; keep it next to your transcripts, and fix the server rather than bless it",
                    crate::process::shell_quote(&path.display().to_string())
                )),
                None => finding,
            };
            findings.push(self.grade(finding));
        }
        let reached: usize = self.tools.iter().map(|tool| tool.reached).sum();
        let outcomes = CATALOG
            .iter()
            .filter(|law| LAWS.contains(&law.id))
            .map(|law| {
                let failed = findings.iter().any(|graded| graded.finding.law == law.id);
                let status = if !self.judged && !failed {
                    LawStatus::Skipped("no tool was called".to_owned())
                } else if reached == 0 && !failed {
                    LawStatus::Skipped("no call reached a tool".to_owned())
                } else if self.options.waive.contains(&law.id) {
                    LawStatus::Waived
                } else if failed {
                    LawStatus::Failed
                } else {
                    LawStatus::Held
                };
                let mut notes: Vec<String> = self
                    .unjudged
                    .iter()
                    .filter(|(unjudged, _, _, _)| *unjudged == law.id)
                    .map(|(_, _, note, count)| match count {
                        1 => note.clone(),
                        n => format!("{note} (and {} more like it)", n - 1),
                    })
                    .collect();
                if law.id == LawId::Schema && self.unjudged_other > 0 {
                    notes.push(format!(
                        "{} more values not judged, for other reasons",
                        self.unjudged_other
                    ));
                }
                LawOutcome::new(law.id, status).with_notes(notes)
            })
            .collect();
        FuzzResult {
            command: self.display.clone(),
            seed,
            era: Some(self.era),
            revision: Some(self.revision.as_str().to_owned()),
            tools: self
                .tools
                .iter()
                .map(|tool| {
                    let mut summary = tool.summary.clone();
                    summary.reached = tool.reached;
                    if tool.given_up() && summary.sent < summary.cases {
                        let why = match tool.hangs >= HANG_REPEATS {
                            true => {
                                format!("its calls left the server hanging ({})", times(tool.hangs))
                            }
                            false => format!("its calls ended the server {}", times(tool.crashes)),
                        };
                        summary.note = Some(format!(
                            "{} cases not sent: {why}",
                            summary.cases - summary.sent
                        ));
                    } else if summary.skipped.is_none() && summary.sent < summary.cases {
                        summary.note =
                            Some(format!("{} cases not sent", summary.cases - summary.sent));
                    }
                    if summary.sent > 0 && tool.reached == 0 {
                        let unreached = unreached_words(tool);
                        summary.note = Some(match summary.note.take() {
                            Some(note) => format!("{unreached}; {note}"),
                            None => unreached,
                        });
                    }
                    summary
                })
                .collect(),
            outcomes,
            findings,
            notes,
            elapsed: started.elapsed(),
            coverage: crate::report::Coverage::default(),
        }
    }

    /// A finding's disposition: waived, or failing by its severity (and
    /// `--deny-warnings`), as `check` grades one. What the server said
    /// (an error's message, a line of stderr) may quote a secret of this
    /// environment: the message is redacted first.
    fn grade(&self, mut finding: Finding) -> Graded {
        if let std::borrow::Cow::Owned(redacted) =
            self.setup.redactor.redact(finding.message.as_bytes())
        {
            finding.message = String::from_utf8_lossy(&redacted).into_owned();
        }
        let disposition = if self.options.waive.contains(&finding.law) {
            Disposition::Waived
        } else if finding.severity == Severity::Error || self.options.deny_warnings {
            Disposition::Fails
        } else {
            Disposition::Warns
        };
        Graded::new(finding, disposition)
    }
}

/// Whether a call reached the tool: answered with a complete result (an
/// `isError` one too); else why not.
type Reach = Result<(), &'static str>;

/// What a case did alone: its failures, whether it was a valid case
/// answered `isError`, and whether it reached the tool.
type Alone = (Vec<Failure>, bool, Reach);

/// Why a case run alone did not reach its tool when no process could run
/// it.
const NOT_RUN_ALONE: &str = "could not be run alone";

/// Whether the call `observed` reached its tool.
fn reach(observed: &Observed) -> Reach {
    match &observed.answer {
        Ok(Ok(result)) => match result.get("resultType").and_then(Value::as_str) {
            None | Some("complete") => Ok(()),
            Some(_) => Err("asked for input fuzz cannot give (an InputRequiredResult)"),
        },
        Ok(Err(_)) => Err("answered with a JSON-RPC error"),
        Err(Lost::Closed) => Err("ended the server"),
        Err(Lost::Timeout(_)) => Err("got no answer"),
        Err(Lost::Budget) => Err("were cut short by the time budget"),
    }
}

/// Why none of `tool`'s calls reached it, in words.
fn unreached_words(tool: &Planned) -> String {
    let why: Vec<String> = tool
        .unreached
        .iter()
        .map(|(why, n)| format!("{n} {why}"))
        .collect();
    format!(
        "none of its {} calls reached the tool: {}",
        tool.summary.sent,
        why.join(", ")
    )
}

/// `once`, `twice`, `3 times`.
fn times(n: usize) -> String {
    match n {
        1 => "once".to_owned(),
        2 => "twice".to_owned(),
        n => format!("{n} times"),
    }
}

/// A verdict as the report labels a case.
fn label_words(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Valid => "valid".to_owned(),
        Verdict::Invalid(broken) => format!("invalid: {broken}"),
        Verdict::Unjudged(why) => format!("unjudged: {why}"),
    }
}

/// A step's words, cut to a line.
fn shorten(text: &str) -> String {
    if text.chars().count() <= 160 {
        return text.to_owned();
    }
    let start: String = text.chars().take(157).collect();
    format!("{start}…")
}

/// The session of a process so far, for a failure that may not come back
/// alone: its log, the last line kept (all), and the failing call's id.
type Session = (Log, Option<usize>, RequestId);

/// The session of `conn` so far, kept only while it is small.
fn snapshot(conn: &Conn<'_>, failing: &RequestId) -> Option<Session> {
    if conn.log.overflowed || conn.log.lines.len() > 20_000 {
        return None;
    }
    Some((conn.log.clone(), None, failing.clone()))
}

/// The id of the `tools/call` of `tool` in `log`.
fn call_id(log: &Log, tool: &str) -> Option<RequestId> {
    log.lines.iter().find_map(|logged| match logged {
        super::conn::Logged::Sent { line, id: Some(id) } => {
            let value: Value = serde_json::from_slice(line).ok()?;
            (value.get("method").and_then(Value::as_str) == Some("tools/call")
                && value.pointer("/params/name").and_then(Value::as_str) == Some(tool))
            .then(|| id.clone())
        }
        _ => None,
    })
}

/// One call in lockstep on `conn`, then the next request; whether the
/// process can go on.
pub(super) fn lockstep(
    conn: &mut Conn<'_>,
    tool: &str,
    arguments: Option<&Value>,
    timeout: Duration,
) -> (Observed, bool) {
    let id = conn.call(tool, arguments);
    let mut noise = Vec::new();
    let answer = conn.answer_to(&id, timeout, &mut noise);
    let mut exit = None;
    let mut next = None;
    let mut alive = true;
    match &answer {
        Ok(_) => {
            let (next_id, name) = conn.next_request();
            let lost = conn.answer_to(&next_id, timeout, &mut noise);
            match &lost {
                Err(Lost::Closed) => {
                    exit = Some(conn.exit_words());
                    alive = false;
                }
                Err(Lost::Timeout(_) | Lost::Budget) => alive = false,
                Ok(_) => {}
            }
            next = Some((name, lost));
        }
        Err(Lost::Closed) => {
            exit = Some(conn.exit_words());
            alive = false;
        }
        Err(Lost::Timeout(_) | Lost::Budget) => alive = false,
    }
    let observations = conn
        .take_observations()
        .into_iter()
        .filter(|observation| observation.request.as_ref() == Some(&id))
        .map(|observation| {
            (
                observation.law,
                observation.message,
                observation.requirement,
            )
        })
        .collect();
    (
        Observed {
            answer,
            exit,
            next,
            noise,
            observations,
        },
        alive,
    )
}
