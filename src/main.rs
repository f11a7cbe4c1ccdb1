//! The `mcp-replay` command line: parse, run, map to an exit status.
//!
//! Exit status is a contract kept in one place: 0 all held, 1 findings, 2
//! usage error or unreadable input. A subcommand that proxies a server
//! (`record`) exits with the server's own status instead.
#![allow(clippy::print_stderr)]

use std::error::Error;
use std::io::{self, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};
use mcp_replay::check::duration::parse_duration;
use mcp_replay::check::{self, CheckOptions, Partition};
use mcp_replay::laws::{CATALOG, LawId, Profile};
use mcp_replay::record::{EXIT_INCOMPLETE, RecordError, RecordOptions, record};
use mcp_replay::report::{self, ColorChoice, Palette, Report};
use mcp_replay::transcript::{Exit, fill_names_from_env, with_fill_names};

#[path = "../examples/demo-server.rs"]
mod demo_server;
#[path = "cli/mock.rs"]
mod mock;
#[path = "cli/serve.rs"]
mod serve;

/// Record, replay and check MCP stdio servers.
#[derive(Debug, Parser)]
#[command(name = "mcp-replay", version = env!("MCP_REPLAY_VERSION"), about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Record a host↔server session: start this in place of the server.
    Record(RecordArgs),
    /// Replay transcripts against a server and check the laws.
    Check(Box<CheckArgs>),
    /// Call a server's tools with arguments drawn from their schemas; keep each bug as a transcript.
    Fuzz(Box<FuzzArgs>),
    /// List the laws: id, severity per profile, implemented or reserved, citations.
    Laws(LawsArgs),
    /// Print the command manifest as JSON: every command, its flags and exit codes.
    Manifest,
    /// Serve `check` and `laws` as MCP tools over stdio until stdin closes.
    Serve(ServeArgs),
    /// Serve recorded transcripts over stdio as a fake MCP server, for testing clients.
    Mock(MockArgs),
    /// Serve the demo MCP server on stdio: the server the bundled transcripts run against.
    DemoServer(SchemaArgs),
}

/// The flag every protocol command takes besides its own.
#[derive(Debug, clap::Args)]
struct SchemaArgs {
    /// Print this command's manifest entry as JSON and exit, without serving.
    #[arg(long)]
    schema: bool,
}

/// Arguments of `mcp-replay serve`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Stdout carries MCP messages from the first byte (protocol mcp-stdio); diagnostics go to \
stderr. Exit status: 0 when the client closes stdin, 2 for an invalid flag (the server \
never starts), 1 when stdio cannot be set aside, 128 + N when signal N ends the session. \
With --format json, every exit but 0 ends stderr with a ResponseEnvelope.")]
struct ServeArgs {
    /// The format of a failure report on stderr.
    #[arg(long, value_enum, default_value_t = ServeFormat::Text)]
    format: ServeFormat,
    /// The longest one `check` call may run; past it the call is stopped,
    /// its servers killed, and the answer says so.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "600s")]
    call_timeout: Duration,
    #[command(flatten)]
    schema: SchemaArgs,
}

/// Arguments of `mcp-replay mock`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Each request is answered with a recorded one of the same method: the one with the same \
params (`_meta` and the transcript's ignore rules left out), else, unless --strict, the \
one naming the same tool, prompt or resource, else the next of the same method; \
identical requests get the recorded answers in order, then the last one again. Recorded \
notifications and server requests follow the request they followed. See docs/mock.md.

Stdout carries MCP messages from the first byte (protocol mcp-stdio); diagnostics go to \
stderr. Exit status: 0 when the client closes stdin, 2 for an invalid flag or a transcript \
that cannot be read (the server never starts), 1 when stdio cannot be taken, 128 + N when \
signal N ends the session. With --format json, every exit but 0 ends stderr with a \
ResponseEnvelope.")]
struct MockArgs {
    /// The transcripts to serve, in order.
    #[arg(required_unless_present = "schema", value_name = "TRANSCRIPT")]
    transcripts: Vec<PathBuf>,
    /// Answer only requests whose normalized params a recorded request has exactly.
    #[arg(long)]
    strict: bool,
    /// Fill the placeholders [REDACTED:NAME] of the recorded lines sent with
    /// the value of the variable NAME (repeatable; MCP_REPLAY_FILL_ENV adds
    /// more); others are sent as they stand.
    #[arg(long, value_name = "NAME")]
    fill_env: Vec<String>,
    /// The format of a failure report on stderr.
    #[arg(long, value_enum, default_value_t = ServeFormat::Text)]
    format: ServeFormat,
    #[command(flatten)]
    schema: SchemaArgs,
}

/// The formats of a failure report of `mcp-replay serve` and `mcp-replay mock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ServeFormat {
    /// A plain-text error.
    Text,
    /// A ResponseEnvelope on the last line.
    Json,
}

/// Arguments of `mcp-replay record`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The recorder is invisible to both sides: it forwards every byte unchanged, writes nothing \
of its own to stdout, passes SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to the server, and exits with the \
server's status (ending by the same signal when the server died of one).

Environment values are never recorded, only names. Values of variables whose names look \
secret (TOKEN, KEY, SECRET, PASSWORD, ...), or whose values do (ghp_..., sk_live_..., JWTs, \
random values of PAT, SK, BEARER, ...), are replaced in the transcript by [REDACTED:NAME]; \
the password of a URL by [REDACTED:NAME:password]. The mcp-replay.json nearest to the \
transcript adds names (redactEnv) and patterns (redact).")]
struct RecordArgs {
    /// The transcript to write [default: transcripts/<server>-<UTC time>.jsonl].
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Overwrite the transcript if it exists.
    #[arg(long)]
    force: bool,
    /// Do not record the server's stderr (it is still passed through).
    #[arg(long)]
    no_stderr: bool,
    /// Also redact matches of this regular expression (repeatable).
    #[arg(long, value_name = "REGEX")]
    redact: Vec<String>,
    /// Also redact the value of this environment variable (repeatable).
    #[arg(long, value_name = "NAME")]
    redact_env: Vec<String>,
    /// An ignore rule for `check`: a JSON pointer into server messages, `*`
    /// for any one segment, `**` for any number; or `method:NAME`, allowing
    /// server requests of `NAME` the recording lacks (repeatable).
    #[arg(long, value_name = "POINTER")]
    ignore: Vec<String>,
    /// The server command and its arguments.
    #[arg(last = true, required = true, value_name = "SERVER CMD")]
    command: Vec<String>,
}

/// Arguments of `mcp-replay check`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: 0 all held, 1 a finding fails the run (or a baseline entry is stale), \
2 usage error or unreadable input (2 wins over 1).")]
struct CheckArgs {
    /// Transcript files or directories (searched recursively for *.jsonl);
    /// `transcripts/` when none is given.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The contract to hold servers to: `core` (MCP-CORE and REQ-C-032 on top
    /// of the MCP spec, which servers built on mcp-replay's library keep) or
    /// `spec` (the MCP spec alone, for a server built on an official SDK or
    /// otherwise) [default: core, or the profile of the directory's
    /// mcp-replay.json]
    #[arg(long, value_name = "PROFILE", value_parser = parse_profile)]
    profile: Option<Profile>,
    /// Do not fail on this law (repeatable).
    #[arg(long, value_name = "LAW", value_parser = parse_law)]
    waive: Vec<LawId>,
    /// Fail on warnings too.
    #[arg(long)]
    deny_warnings: bool,
    /// Findings listed in FILE do not fail the run; entries that no longer
    /// occur do.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write every finding of this run to FILE as a baseline, and pass them.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Rewrite the server side of mismatched transcripts with the live
    /// answers, and pin the values found to be noise with ignore rules in
    /// the header.
    #[arg(long)]
    bless: bool,
    /// Fail on differences that are noise too: values that are a time or a
    /// UUID on both sides, or that two live runs answer differently.
    #[arg(long)]
    fail_on_noise: bool,
    /// Replay only; do not run the law probes.
    #[arg(long, conflicts_with = "no_replay")]
    no_probes: bool,
    /// Also run the CLI probes against each server command:
    /// `help-does-not-serve` (`<cmd> --help`) and `bad-flag-exits-2`.
    #[arg(long)]
    cli_probes: bool,
    /// The invalid flag `bad-flag-exits-2` passes.
    #[arg(long, value_name = "FLAG", requires = "cli_probes", allow_hyphen_values = true,
          default_value = mcp_replay::check::probes::cli::DEFAULT_BAD_FLAG)]
    bad_flag: String,
    /// Run the law probes of the server command alone, even where
    /// `transcripts/` exists; replay nothing.
    #[arg(long, requires = "command", conflicts_with_all = ["paths", "bless"])]
    no_replay: bool,
    /// The report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also append a Markdown summary to FILE (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// List every law of the human report, held ones too.
    #[arg(short, long)]
    verbose: bool,
    /// When to colour the human report.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
    /// How many replays and probe runs at once [default: the machine's cores].
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Check only share I of N of the sorted transcripts and of the distinct
    /// server commands' probe runs (e.g. 2/4).
    #[arg(long, value_name = "I/N", value_parser = parse_partition)]
    partition: Option<Partition>,
    /// The deadline of each step [default: 5s; at most 24h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// The deadline of a step while the server has written nothing yet, for
    /// servers slow to start (npx, uv) [default: 20s; at most 24h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    startup_timeout: Option<Duration>,
    /// How long the probes watch stdout after spawning a server, before the
    /// first message [default: 1s; at most 24h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    settle: Option<Duration>,
    /// How long a server may take to exit after stdin closes or SIGTERM
    /// [default: 2s; at most 24h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    grace: Option<Duration>,
    /// Also run a transcript's recorded server where its `cwd` leads inside
    /// DIR (repeatable); by default only inside the current directory.
    #[arg(long, value_name = "DIR")]
    allow_cwd: Vec<PathBuf>,
    /// Fill the placeholders [REDACTED:NAME] of the transcripts' client
    /// lines and commands with the value of the variable NAME (repeatable;
    /// MCP_REPLAY_FILL_ENV=NAME,NAME adds more); others are sent as they
    /// stand.
    #[arg(long, value_name = "NAME")]
    fill_env: Vec<String>,
    /// A server command that replaces the one recorded in each transcript
    /// (`transcripts/` when no PATH is given and it exists); with no
    /// transcripts or `--no-replay`, the law probes run against it alone.
    #[arg(last = true, value_name = "SERVER CMD")]
    command: Vec<String>,
}

/// Arguments of `mcp-replay fuzz`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Only tools whose annotations say they change nothing (readOnlyHint: true) are called, \
unless --tool names them or --all-tools is given; the server runs in a scratch directory \
(removed after the run) unless --cwd says where. Each distinct failure is shrunk, \
confirmed alone on a fresh process and written to --findings as a transcript that \
`mcp-replay check` replays. The seed is printed; --seed replays the same calls in the \
same order. See docs/fuzz.md.

Exit status: 0 all held, 1 a finding fails the run, 2 usage error or a server that \
cannot be started or opened (2 wins over 1), 128 + N when signal N ends the run.")]
struct FuzzArgs {
    /// The seed of the run's cases [default: a fresh one, printed].
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// How many cases to draw for each tool.
    #[arg(long, value_name = "N", default_value_t = mcp_replay::fuzz::DEFAULT_CASES)]
    cases: usize,
    /// How long to send cases for; shrinking gets half as long again at
    /// most [default: 60s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    budget: Option<Duration>,
    /// The deadline of each call [default: 5s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    timeout: Option<Duration>,
    /// The deadline of a fresh server's first answer, for servers slow to
    /// start (npx, uv) [default: 20s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    startup_timeout: Option<Duration>,
    /// How long a server may take to exit after stdin closes [default: 2s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    grace: Option<Duration>,
    /// Call this tool whatever its annotations say; only the tools named
    /// are called (repeatable).
    #[arg(long = "tool", value_name = "NAME")]
    tools: Vec<String>,
    /// Call every tool, whatever its annotations say.
    #[arg(long)]
    all_tools: bool,
    /// Call by default only tools annotated readOnlyHint: true, leaving out
    /// those that only add (destructiveHint: false).
    #[arg(long)]
    read_only: bool,
    /// Never call this tool (repeatable).
    #[arg(long = "skip-tool", value_name = "NAME")]
    skip_tools: Vec<String>,
    /// The era to speak: as `server/discover` decides, the legacy handshake,
    /// or 2026-07-28.
    #[arg(long, value_enum, default_value_t = FuzzEra::Auto)]
    era: FuzzEra,
    /// How many calls may be in flight at once (1: each after the previous
    /// answer).
    #[arg(long, value_name = "N", default_value_t = mcp_replay::fuzz::DEFAULT_PIPELINE as u16,
          value_parser = clap::value_parser!(u16).range(1..))]
    pipeline: u16,
    /// The directory finding transcripts are written to.
    #[arg(long, value_name = "DIR", default_value = mcp_replay::fuzz::DEFAULT_FINDINGS)]
    findings: PathBuf,
    /// Write no finding transcripts.
    #[arg(long, conflicts_with = "findings")]
    no_findings: bool,
    /// Report failing cases as first sent, unshrunk.
    #[arg(long)]
    no_shrink: bool,
    /// Run the server in DIR instead of a scratch directory.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The contract to hold the server to: `core` or `spec`.
    #[arg(long, value_name = "PROFILE", value_parser = parse_profile)]
    profile: Option<Profile>,
    /// Do not fail on this law (repeatable).
    #[arg(long, value_name = "LAW", value_parser = parse_law)]
    waive: Vec<LawId>,
    /// Fail on warnings too.
    #[arg(long)]
    deny_warnings: bool,
    /// The report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also append a Markdown summary to FILE (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// List every tool and law of the human report, those that held too.
    #[arg(short, long)]
    verbose: bool,
    /// When to colour the human report.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
    /// The server command and its arguments.
    #[arg(last = true, required = true, value_name = "SERVER CMD")]
    command: Vec<String>,
}

/// The eras `mcp-replay fuzz --era` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FuzzEra {
    /// As era detection decides.
    Auto,
    /// The legacy handshake.
    Legacy,
    /// 2026-07-28, statelessly.
    Modern,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Lines for people.
    Human,
    /// JSON Lines for programs.
    Json,
}

fn parse_profile(text: &str) -> Result<Profile, String> {
    text.parse()
}

fn parse_partition(text: &str) -> Result<Partition, String> {
    text.parse()
}

fn parse_law(text: &str) -> Result<LawId, String> {
    text.parse().map_err(|_: String| {
        let ids: Vec<&str> = CATALOG.iter().map(|law| law.id.as_str()).collect();
        format!("unknown law `{text}`; the laws are: {}", ids.join(", "))
    })
}

/// Arguments of `mcp-replay laws`.
#[derive(Debug, clap::Args)]
struct LawsArgs {
    /// How to print the catalog.
    #[arg(long, value_enum, default_value_t = LawsFormat::Human)]
    format: LawsFormat,
}

/// The formats of `mcp-replay laws`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LawsFormat {
    /// Aligned text.
    Human,
    /// JSON Lines, one object per law.
    Json,
}

/// The exit status of a usage error or unreadable input.
const EXIT_USAGE: u8 = report::EXIT_USAGE;

fn main() -> ExitCode {
    let started = Instant::now();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return serve::usage_error(&err, started),
    };
    let result = match cli.command {
        Command::Record(args) => run_record(args),
        Command::Check(args) => run_check(*args),
        Command::Fuzz(args) => run_fuzz(*args),
        Command::Laws(args) => run_laws(&args),
        Command::Manifest => run_manifest(),
        Command::Serve(args) if args.schema.schema => run_schema("serve"),
        Command::Serve(args) => {
            return serve::run(args.format == ServeFormat::Json, args.call_timeout, started);
        }
        Command::Mock(args) if args.schema.schema => run_schema("mock"),
        Command::Mock(args) => {
            let json_mode = args.format == ServeFormat::Json;
            let fill = with_fill_names(args.fill_env, fill_names_from_env());
            return mock::run(&args.transcripts, args.strict, &fill, json_mode, started);
        }
        Command::DemoServer(args) if args.schema => run_schema("demo-server"),
        Command::DemoServer(_) => return demo_server::main(),
    };
    match result {
        Ok(code) => code,
        Err(failure) => {
            report_error(&failure);
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// An error for the top level: what failed, its causes, and one hint.
#[derive(Debug)]
struct Failure {
    error: Box<dyn Error + Send + Sync>,
    hint: Option<String>,
}

impl<E: Error + Send + Sync + 'static> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure {
            error: Box::new(error),
            hint: None,
        }
    }
}

/// Prints `mcp-replay: error: …`, one `caused by:` line per source, and the
/// hint, on stderr.
fn report_error(failure: &Failure) {
    eprintln!("mcp-replay: error: {}", failure.error);
    let mut source = failure.error.source();
    while let Some(cause) = source {
        eprintln!("  caused by: {cause}");
        source = cause.source();
    }
    if let Some(hint) = &failure.hint {
        eprintln!("hint: {hint}");
    }
}

fn run_record(args: RecordArgs) -> Result<ExitCode, Failure> {
    let mut options = RecordOptions::new(args.command);
    options.output = args.output;
    options.force = args.force;
    options.stderr = !args.no_stderr;
    options.redact_patterns = args.redact;
    options.redact_env = args.redact_env;
    options.ignore = args.ignore;
    // The config that `check` will read for this transcript names secrets
    // too: the recording must not hold them in clear.
    let dir = match &options.output {
        Some(path) => path.parent().unwrap_or(Path::new("")).to_owned(),
        None => PathBuf::from(check::DEFAULT_DIR),
    };
    let extra = check::config::redaction_near(&dir).map_err(|err| Failure {
        error: Box::new(err),
        hint: Some(format!(
            "fix the file, or remove it to use the defaults ({} is optional)",
            check::config::FILE_NAME
        )),
    })?;
    for name in extra.env {
        if !options.redact_env.contains(&name) {
            options.redact_env.push(name);
        }
    }
    for pattern in extra.patterns {
        if !options.redact_patterns.contains(&pattern) {
            options.redact_patterns.push(pattern);
        }
    }
    let recorded = record(&options, &mut std::io::stderr()).map_err(|err| {
        let hint = match &err {
            RecordError::Exists { .. } => {
                Some("pass --force to overwrite it, or name another file with -o".to_owned())
            }
            RecordError::Spawn(spawn) if spawn.source.kind() == std::io::ErrorKind::NotFound => {
                Some("check that the server command is installed and on PATH".to_owned())
            }
            RecordError::Redact(_) => Some(
                "--redact takes a regular expression in the syntax of the regex crate".to_owned(),
            ),
            _ => None,
        };
        Failure {
            error: Box::new(err),
            hint,
        }
    })?;
    if let Some(err) = &recorded.write_error {
        // The session went on; only the transcript is incomplete, and a
        // script that goes on to check it must not take it for whole.
        eprintln!(
            "mcp-replay: error: the transcript `{}` is incomplete: writing it failed ({err}), and it lacks everything after; the session itself went on, every byte forwarded",
            recorded.path.display()
        );
        eprintln!(
            "hint: free space where the transcript is written (or name another place with -o), then record the session again"
        );
    }
    if let Exit::Signal(signal) = recorded.exit {
        end_by_signal(signal);
    }
    // A shell status is 0..=255, so the cast keeps every value a server can
    // exit with; 128 + N for a signal stays in range too.
    let status = recorded.exit.shell_status() as u8;
    if recorded.write_error.is_some() && status == 0 {
        return Ok(ExitCode::from(EXIT_INCOMPLETE));
    }
    Ok(ExitCode::from(status))
}

/// Ends this process by `signal`, the way the recorded server ended, so that
/// a host that asks how its child ended learns the same as without the
/// recorder. Returns only for a signal that does not end a process by
/// default; the caller then exits with 128 + N.
fn end_by_signal(signal: i32) {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    use signal_hook::consts::{SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU};
    // Stopping is not ending; a server is never reported dead of these.
    if [SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT].contains(&signal) {
        return;
    }
    // The server's own core dump, if any, is the one worth having: a core
    // of the recorder would only be litter in the host's directory or in a
    // crash collector. A process that is not dumpable makes none even where
    // cores go to a program, which the size limit does not stop.
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    let limit = getrlimit(Resource::Core);
    let _ = setrlimit(
        Resource::Core,
        Rlimit {
            current: Some(0),
            maximum: limit.maximum,
        },
    );
    // The default action is restored first, so this process's own handlers
    // (those that forwarded signals to the server) do not catch it.
    let _ = signal_hook::low_level::emulate_default_handler(signal);
}

fn run_check(args: CheckArgs) -> Result<ExitCode, Failure> {
    let mut options = CheckOptions::default();
    options.paths = args.paths;
    options.command = args.command;
    options.profile = args.profile;
    options.waive = args.waive;
    options.deny_warnings = args.deny_warnings;
    options.baseline = args.baseline;
    options.write_baseline = args.write_baseline.clone();
    options.bless = args.bless;
    options.fail_on_noise = args.fail_on_noise;
    options.probes = !args.no_probes;
    options.replay = !args.no_replay;
    options.jobs = args.jobs.map(usize::from);
    if let Some(partition) = args.partition {
        options.partition = partition;
    }
    options.timeout = args.timeout;
    options.startup_timeout = args.startup_timeout;
    options.settle = args.settle;
    options.grace = args.grace;
    options.cli_probes = args.cli_probes.then_some(args.bad_flag);
    options.allow_cwd = args.allow_cwd;
    options.fill_env = with_fill_names(args.fill_env, fill_names_from_env());

    // A JUnit file that cannot be written is a usage error found before
    // anything runs, not after a long run.
    let junit = args.junit.as_deref().map(JunitFile::open).transpose()?;

    // Ctrl-C (or SIGTERM, or the terminal going away) kills every server
    // still running and ends the run at once; what finished is reported,
    // the rest listed as not run, and the exit is 130 (143, 129). The
    // servers run in groups of their own, so no signal of the terminal
    // reaches them.
    mcp_replay::process::stop_on_signals(&[
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ]);
    // A process a server started in a session of its own is killed too,
    // once its server has ended and no other runs.
    mcp_replay::process::adopt_orphans();
    let progress = Progress::new(io::stderr().is_terminal() && args.format == Format::Human);
    let result = check::run(&options, &|done, total| progress.update(done, total));
    progress.clear();
    let report = match result {
        Ok(report) => report,
        Err(err) => {
            if let Some(junit) = junit {
                junit.discard();
            }
            let hint = err.hint();
            return Err(Failure {
                error: Box::new(err),
                hint,
            });
        }
    };

    for transcript in &report.transcripts {
        if let Some(n) = transcript.blessed {
            let s = if n == 1 { "" } else { "s" };
            eprintln!("Blessed: {} ({n} difference{s})", transcript.path.display());
        }
    }
    match (&args.write_baseline, &report.interrupted) {
        (Some(path), None) => eprintln!("Wrote baseline: {}", path.display()),
        (Some(path), Some(_)) => eprintln!(
            "Not written: the baseline `{}` (the run was interrupted)",
            path.display()
        ),
        (None, _) => {}
    }
    // A JUnit file that fails to be written now fails the run, but only
    // after the report is out: the findings are not lost with it.
    let junit = junit.and_then(|junit| junit.write(&report).err());
    let summary = match &args.summary {
        Some(path) => write_summary(&report, path).err(),
        None => None,
    };
    let stdout = io::stdout();
    let palette = Palette::choose(args.color, stdout.is_terminal());
    let mut out = io::BufWriter::new(stdout.lock());
    let written = match args.format {
        Format::Human => report::human::render(&report, &palette, args.verbose, &mut out),
        Format::Json => report::json::render(&report, &mut out),
    }
    .and_then(|()| out.flush());
    drop(out);
    if let Some(failure) = junit.or(summary) {
        return Err(failure);
    }
    match written {
        Ok(()) => Ok(ExitCode::from(report.exit_code())),
        // A reader that stopped reading (`| head`) is not an error; an
        // interrupted run still ends as the signal says.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::from(
            report
                .interrupted
                .as_ref()
                .map_or(0, report::Interruption::exit_code),
        )),
        Err(err) => Err(err.into()),
    }
}

fn run_fuzz(args: FuzzArgs) -> Result<ExitCode, Failure> {
    use mcp_replay::fuzz::{EraChoice, FuzzOptions};
    let mut options = FuzzOptions::new(args.command);
    options.seed = args.seed;
    options.cases = args.cases;
    if let Some(budget) = args.budget {
        options.budget = budget;
    }
    if let Some(timeout) = args.timeout {
        options.call_timeout = timeout;
    }
    if let Some(startup) = args.startup_timeout {
        options.startup_timeout = startup;
    }
    if let Some(grace) = args.grace {
        options.grace = grace;
    }
    options.tools = args.tools;
    options.all_tools = args.all_tools;
    options.read_only = args.read_only;
    options.skip_tools = args.skip_tools;
    options.era = match args.era {
        FuzzEra::Auto => EraChoice::Auto,
        FuzzEra::Legacy => EraChoice::Legacy,
        FuzzEra::Modern => EraChoice::Modern,
    };
    options.pipeline = usize::from(args.pipeline);
    options.findings = (!args.no_findings).then_some(args.findings);
    options.shrink = !args.no_shrink;
    options.cwd = args.cwd;
    options.profile = args.profile.unwrap_or_default();
    options.waive = args.waive;
    options.deny_warnings = args.deny_warnings;

    let junit = args.junit.as_deref().map(JunitFile::open).transpose()?;
    // As `check`: a signal kills every server and ends the run at once,
    // with what finished reported.
    mcp_replay::process::stop_on_signals(&[
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ]);
    mcp_replay::process::adopt_orphans();
    let progress = Progress::new(io::stderr().is_terminal() && args.format == Format::Human)
        .with_label("Fuzzing", "calls");
    let result = mcp_replay::fuzz::run(&options, &|done, total| progress.update(done, total));
    progress.clear();
    let report = match result {
        Ok(report) => report,
        Err(err) => {
            if let Some(junit) = junit {
                junit.discard();
            }
            return Err(err.into());
        }
    };
    let junit = junit.and_then(|junit| junit.write(&report).err());
    let summary = match &args.summary {
        Some(path) => write_summary(&report, path).err(),
        None => None,
    };
    let stdout = io::stdout();
    let palette = Palette::choose(args.color, stdout.is_terminal());
    let mut out = io::BufWriter::new(stdout.lock());
    let written = match args.format {
        Format::Human => report::human::render(&report, &palette, args.verbose, &mut out),
        Format::Json => report::json::render(&report, &mut out),
    }
    .and_then(|()| out.flush());
    drop(out);
    if let Some(failure) = junit.or(summary) {
        return Err(failure);
    }
    match written {
        Ok(()) => Ok(ExitCode::from(report.exit_code())),
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::from(
            report
                .interrupted
                .as_ref()
                .map_or(0, report::Interruption::exit_code),
        )),
        Err(err) => Err(err.into()),
    }
}

/// The `--junit` file, opened before the run so that a path that cannot be
/// written stops the run before it starts.
struct JunitFile {
    path: PathBuf,
    file: std::fs::File,
    /// The file did not exist before: a run that does not start removes it.
    created: bool,
}

/// The JUnit file cannot be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the JUnit report `{}`", .path.display())]
struct JunitError {
    path: PathBuf,
    #[source]
    source: io::Error,
}

impl JunitFile {
    fn open(path: &Path) -> Result<JunitFile, Failure> {
        let created = !path.exists();
        // Not truncated yet: an old report stays whole until the new one
        // replaces it.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|source| JunitError {
                path: path.to_owned(),
                source,
            })?;
        Ok(JunitFile {
            path: path.to_owned(),
            file,
            created,
        })
    }

    /// Replaces the file's content with the JUnit XML of `report`.
    fn write(mut self, report: &Report) -> Result<(), Failure> {
        let mut xml = Vec::new();
        report::junit::render(report, &mut xml).expect("writing to a Vec cannot fail");
        self.file
            .set_len(0)
            .and_then(|()| self.file.write_all(&xml))
            .and_then(|()| self.file.flush())
            .map_err(|source| {
                Failure::from(JunitError {
                    path: self.path.clone(),
                    source,
                })
            })
    }

    /// Leaves no file behind that the run created and did not write.
    fn discard(self) {
        if self.created {
            drop(self.file);
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Appends the Markdown summary to `path`: GitHub collects a step's
/// summary from what the step appends to one file.
fn write_summary(report: &Report, path: &Path) -> Result<(), Failure> {
    #[derive(Debug, thiserror::Error)]
    #[error("cannot write the Markdown summary `{}`", .path.display())]
    struct SummaryError {
        path: PathBuf,
        #[source]
        source: io::Error,
    }
    let mut markdown = Vec::new();
    report::markdown::render(report, &mut markdown).expect("writing to a Vec cannot fail");
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(&markdown))
        .map_err(|source| {
            Failure::from(SummaryError {
                path: path.to_owned(),
                source,
            })
        })
}

/// The progress line on stderr: only on a terminal, and only once a run
/// has taken a while.
struct Progress {
    enabled: bool,
    started: Instant,
    shown: Mutex<bool>,
    /// What is under way, and what is counted.
    label: (&'static str, &'static str),
}

impl Progress {
    /// Runs shorter than this show no progress line.
    const DELAY: Duration = Duration::from_millis(1000);

    fn new(enabled: bool) -> Progress {
        Progress {
            enabled,
            started: Instant::now(),
            shown: Mutex::new(false),
            label: ("Checking", "done"),
        }
    }

    /// The same line for another run: `Fuzzing: 12/500 calls`.
    fn with_label(mut self, doing: &'static str, counted: &'static str) -> Progress {
        self.label = (doing, counted);
        self
    }

    fn update(&self, done: usize, total: usize) {
        if !self.enabled || self.started.elapsed() < Progress::DELAY {
            return;
        }
        let mut shown = self
            .shown
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *shown = true;
        eprint!("\r\x1b[2K{}: {done}/{total} {}", self.label.0, self.label.1);
        let _ = io::stderr().flush();
    }

    fn clear(&self) {
        if *self
            .shown
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            eprint!("\r\x1b[2K");
        }
    }
}

fn run_laws(args: &LawsArgs) -> Result<ExitCode, Failure> {
    use mcp_replay::laws::{CatalogFormat, render_catalog};
    let format = match args.format {
        LawsFormat::Human => CatalogFormat::Human,
        LawsFormat::Json => CatalogFormat::Json,
    };
    let mut out = std::io::stdout().lock();
    match render_catalog(&mut out, format).and_then(|()| std::io::Write::flush(&mut out)) {
        // A reader that stopped reading (`| head`) is no failure.
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(err.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn run_manifest() -> Result<ExitCode, Failure> {
    let manifest = mcp_replay::manifest::commands::mcp_replay(env!("CARGO_PKG_VERSION"))?;
    print_json(&manifest)
}

/// `<protocol command> --schema`: the manifest of that one command, on
/// stdout, without serving and without reading stdin (REQ-C-032).
fn run_schema(name: &str) -> Result<ExitCode, Failure> {
    let mut manifest = mcp_replay::manifest::commands::mcp_replay(env!("CARGO_PKG_VERSION"))?;
    manifest.commands.retain(|command, _| command == name);
    print_json(&manifest)
}

fn print_json(manifest: &mcp_replay::manifest::Manifest) -> Result<ExitCode, Failure> {
    let mut out = io::stdout().lock();
    let written = serde_json::to_writer_pretty(&mut out, manifest)
        .map_err(io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
    match written {
        // A reader that stopped reading (`| head`) is no failure.
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => Err(err.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::Cli;

    /// The manifest names every subcommand and every flag clap parses, and
    /// nothing clap does not.
    #[test]
    fn the_manifest_matches_the_command_line() {
        let manifest = mcp_replay::manifest::commands::mcp_replay("0").unwrap();
        let cli = Cli::command();
        let mut subcommands: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
        subcommands.sort_unstable();
        let mut listed: Vec<&str> = manifest.commands.keys().map(String::as_str).collect();
        listed.sort_unstable();
        assert_eq!(subcommands, listed);
        for sub in cli.get_subcommands() {
            let entry = &manifest.commands[sub.get_name()];
            let mut flags: Vec<String> = sub
                .get_arguments()
                .filter(|arg| !matches!(arg.get_id().as_str(), "help" | "version"))
                .map(|arg| {
                    arg.get_long()
                        .map_or_else(|| arg.get_id().to_string(), str::to_owned)
                })
                .collect();
            flags.sort_unstable();
            let listed: Vec<String> = entry.flags.keys().cloned().collect();
            assert_eq!(flags, listed, "the flags of `{}`", sub.get_name());
            for arg in sub.get_arguments() {
                let name = arg
                    .get_long()
                    .map_or_else(|| arg.get_id().to_string(), str::to_owned);
                if let Some(flag) = entry.flags.get(&name) {
                    assert_eq!(
                        flag.positional.is_some(),
                        arg.is_positional(),
                        "`{} {name}`: positional",
                        sub.get_name()
                    );
                }
            }
        }
    }
}
