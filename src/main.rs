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

use clap::Parser as _;
use mcp_replay::check;
use mcp_replay::cli::args::{
    CheckArgs, Cli, Command, FuzzArgs, LawsArgs, LawsFormat, RecordArgs, ServeFormat,
};
use mcp_replay::record::{EXIT_INCOMPLETE, RecordError, RecordOptions, record};
use mcp_replay::report;
use mcp_replay::report::escape::line;
use mcp_replay::transcript::{Exit, fill_names_from_env, with_fill_names};

#[path = "../examples/demo-server.rs"]
mod demo_server;
#[path = "main/mock.rs"]
mod mock;
#[path = "main/serve.rs"]
mod serve;

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
        Command::Check(args) => run_check(&args),
        Command::Fuzz(args) => run_fuzz(&args),
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
            let judging = mock::Judging {
                on: args.judge_host
                    || args.deny_unobserved
                    || args.junit.is_some()
                    || args.report.is_some()
                    || args.summary.is_some(),
                profile: args.profile,
                waive: args.waive,
                deny_warnings: args.deny_warnings,
                deny_unobserved: args.deny_unobserved,
                junit: args.junit,
                report: args.report,
                summary: args.summary,
            };
            return mock::run(
                &args.transcripts,
                args.strict,
                &fill,
                &judging,
                json_mode,
                started,
            );
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
/// hint, on stderr, each escaped as one line: an error may quote a path,
/// a server's words or a transcript's.
fn report_error(failure: &Failure) {
    eprintln!("mcp-replay: error: {}", line(&failure.error.to_string()));
    let mut source = failure.error.source();
    while let Some(cause) = source {
        eprintln!("  caused by: {}", line(&cause.to_string()));
        source = cause.source();
    }
    if let Some(hint) = &failure.hint {
        eprintln!("hint: {}", line(hint));
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
    let extra = mcp_replay::config::redaction_near(&dir).map_err(|err| Failure {
        error: Box::new(err),
        hint: Some(format!(
            "fix the file, or remove it to use the defaults ({} is optional)",
            mcp_replay::config::FILE_NAME
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
            "mcp-replay: error: the transcript `{}` is incomplete: writing it failed ({}), and it lacks everything after; the session itself went on, every byte forwarded",
            line(&recorded.path.display().to_string()),
            line(&err.to_string())
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

fn run_check(args: &CheckArgs) -> Result<ExitCode, Failure> {
    let options = args.options();
    let report_to = args.report.open()?;
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
    let progress = Progress::new(io::stderr().is_terminal() && args.report.is_human());
    let result = check::run(&options, &|done, total| progress.update(done, total));
    progress.clear();
    let report = match result {
        Ok(report) => report,
        Err(err) => {
            report_to.discard();
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
            eprintln!(
                "Blessed: {} ({n} difference{s})",
                line(&transcript.path.display().to_string())
            );
        }
    }
    match (&args.write_baseline, &report.interrupted) {
        (Some(path), None) => eprintln!("Wrote baseline: {}", line(&path.display().to_string())),
        (Some(path), Some(_)) => eprintln!(
            "Not written: the baseline `{}` (the run was interrupted)",
            line(&path.display().to_string())
        ),
        (None, _) => {}
    }
    let stdout = io::stdout();
    let terminal = stdout.is_terminal();
    Ok(ExitCode::from(report_to.emit(
        &report,
        stdout.lock(),
        terminal,
    )?))
}

fn run_fuzz(args: &FuzzArgs) -> Result<ExitCode, Failure> {
    let options = args.options();
    let report_to = args.report.open()?;
    // As `check`: a signal kills every server and ends the run at once,
    // with what finished reported.
    mcp_replay::process::stop_on_signals(&[
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ]);
    mcp_replay::process::adopt_orphans();
    let progress = Progress::new(io::stderr().is_terminal() && args.report.is_human())
        .with_label("Fuzzing", "calls");
    let result = mcp_replay::fuzz::run(&options, &|done, total| progress.update(done, total));
    progress.clear();
    let report = match result {
        Ok(report) => report,
        Err(err) => {
            report_to.discard();
            return Err(err.into());
        }
    };
    let stdout = io::stdout();
    let terminal = stdout.is_terminal();
    Ok(ExitCode::from(report_to.emit(
        &report,
        stdout.lock(),
        terminal,
    )?))
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
    let manifest = mcp_replay::cli::commands::manifest(env!("CARGO_PKG_VERSION"))?;
    print_json(&manifest)
}

/// `<protocol command> --schema`: the manifest of that one command, on
/// stdout, without serving and without reading stdin (REQ-C-032).
fn run_schema(name: &str) -> Result<ExitCode, Failure> {
    let mut manifest = mcp_replay::cli::commands::manifest(env!("CARGO_PKG_VERSION"))?;
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
