//! `mcp-replay serve`, and the usage errors of every command, as REQ-C-032
//! has them.
//!
//! Flags are parsed before anything serves: an invalid one exits 2 with
//! stdout empty and, with `--format json`, a ResponseEnvelope as the last
//! line of stderr. Once serving begins, stdout belongs to the protocol; a
//! clean end (stdin closed) exits 0 and writes no envelope; a signal ends
//! the session with 128 + N, and the envelope in JSON mode.
#![allow(clippy::print_stderr)]

use std::fs::File;
use std::io::Write as _;
use std::os::fd::AsFd as _;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_replay::ServeError;

use serde_json::json;

/// The envelope of a failure, on one line: the shape of REQ-C-032's Wire
/// Format (`ok`, `data`, `error`, `warnings`, `meta`).
pub fn envelope(
    code: &str,
    message: &str,
    phase: &str,
    exit_code: i32,
    started: Instant,
) -> String {
    let retryable = exit_code >= 128;
    let envelope = json!({
        "ok": false,
        "data": null,
        "error": {"code": code, "message": message, "retryable": retryable, "phase": phase},
        "warnings": [],
        "meta": {
            "exit_code": exit_code,
            "duration_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        },
    })
    .to_string();
    mcp_replay::report::escape::json(&envelope).into_owned()
}

/// Whether the command line asks for JSON (`--format json` or
/// `--format=json`), read from the raw arguments: a usage error comes
/// before any parsed value does.
fn json_requested() -> bool {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|arg| arg.to_string_lossy().into_owned())
        .take_while(|arg| arg != "--")
        .collect();
    args.iter().any(|arg| arg == "--format=json")
        || args
            .windows(2)
            .any(|pair| pair[0] == "--format" && pair[1] == "json")
}

/// Reports a command line clap refused, and the exit status to end with:
/// help and the version go to stdout with 0; an error goes to stderr with
/// 2, followed in JSON mode by the envelope.
pub fn usage_error(err: &clap::Error, started: Instant) -> ExitCode {
    use clap::error::ErrorKind;
    let _ = err.print();
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        return ExitCode::SUCCESS;
    }
    if json_requested() {
        let rendered = err.render().to_string();
        let message = rendered
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_owned();
        eprintln!(
            "{}",
            envelope("ARG_ERROR", &message, "validation", 2, started)
        );
    }
    ExitCode::from(2)
}

/// Serves `mcp-replay serve` until stdin closes or a signal ends it, each
/// `check` call stopped after `call_timeout`.
pub fn run(json_mode: bool, call_timeout: Duration, started: Instant) -> ExitCode {
    // A checked server runs as the same user: without this it could open
    // `/proc/<serve>/fd/…` and write answers of its own into the protocol
    // channel. A process that is not dumpable keeps its descriptors to
    // itself (and to the holders of CAP_SYS_PTRACE).
    #[cfg(target_os = "linux")]
    if let Err(err) =
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
    {
        let message = format!("cannot make the process non-dumpable: {err}");
        return fail(
            "serve",
            json_mode,
            started,
            ("SERVE_ERROR", "startup", 1),
            &message,
        );
    }
    // A process a checked server starts in a session of its own is killed
    // too, once no checked server runs.
    mcp_replay::process::adopt_orphans();
    let limits = mcp_replay::serve::Limits { call_timeout };
    session("serve", json_mode, started, move || {
        mcp_replay::serve::serve_stdio(env!("MCP_REPLAY_VERSION"), limits)
    })
}

/// How a serving session ended.
enum Ended {
    /// A signal ended it: exit with this status.
    Signal(u8),
    /// The loop returned.
    Served(Result<(), ServeError>),
    /// The loop panicked.
    Panicked,
}

/// Runs `serve` (a protocol command's loop on stdio) until it returns or
/// SIGTERM, SIGINT or SIGHUP ends the session, and says how the process
/// exits: 0 when the client closed stdin or hung up, 128 + N after signal
/// N (every server a `check` call started killed first, and the envelope
/// last on stderr in JSON mode), 1 when the loop could not serve.
///
/// The loop runs on a thread of its own, and this thread waits for
/// whichever comes first; `main` then returns the status, which ends the
/// process even while the loop still waits on stdin.
pub fn session(
    command: &'static str,
    json_mode: bool,
    started: Instant,
    serve: impl FnOnce() -> Result<(), ServeError> + Send + 'static,
) -> ExitCode {
    session_then(command, json_mode, started, serve, |_| None)
}

/// As [`session`], then `then` hears how the session ended (`Some(N)`
/// after signal N, `None` when the loop returned) once it has, and may
/// give the exit status instead: `mock` writes its host report there.
pub fn session_then(
    command: &'static str,
    json_mode: bool,
    started: Instant,
    serve: impl FnOnce() -> Result<(), ServeError> + Send + 'static,
    then: impl FnOnce(Option<i32>) -> Option<ExitCode>,
) -> ExitCode {
    let startup = ("SERVE_ERROR", "startup", 1);
    // While a tool runs, fd 2 points at the capture: the report of a
    // signal goes to a copy of the real stderr, taken now.
    let stderr = match std::io::stderr().as_fd().try_clone_to_owned() {
        Ok(stderr) => File::from(stderr),
        Err(err) => {
            let message = format!("cannot copy stderr: {err}");
            return fail(command, json_mode, started, startup, &message);
        }
    };
    let (ended, end) = mpsc::channel();
    if let Err(err) = watch_signals(command, stderr, json_mode, started, ended.clone()) {
        let message = format!("cannot install the signal handlers: {err}");
        return fail(command, json_mode, started, startup, &message);
    }
    let spawned = std::thread::Builder::new()
        .name("serve".to_owned())
        .spawn(move || {
            let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(serve));
            let _ = ended.send(served.map_or(Ended::Panicked, Ended::Served));
        });
    if let Err(err) = spawned {
        let message = format!("cannot start the serving thread: {err}");
        return fail(command, json_mode, started, startup, &message);
    }
    match end.recv() {
        Ok(Ended::Signal(status)) => {
            then(Some(i32::from(status) - 128)).unwrap_or(ExitCode::from(status))
        }
        Ok(Ended::Served(Ok(()))) => then(None).unwrap_or(ExitCode::SUCCESS),
        // The client hung up: the session is over, a clean end for a
        // server (MCP-CORE r1 §1¶10).
        Ok(Ended::Served(Err(err))) if err.is_hang_up() => then(None).unwrap_or(ExitCode::SUCCESS),
        Ok(Ended::Served(Err(err))) => fail(command, json_mode, started, startup, &chain(&err)),
        Ok(Ended::Panicked) | Err(_) => {
            let message = "the serving loop panicked";
            fail(
                command,
                json_mode,
                started,
                ("SERVE_ERROR", "serving", 1),
                message,
            )
        }
    }
}

pub use mcp_replay::report::chain;

/// Reports a failure of `command` that ends it: `code` in its phase, with
/// its exit status, and never a word on stdout.
pub fn fail(
    command: &str,
    json_mode: bool,
    started: Instant,
    (code, phase, status): (&str, &str, u8),
    message: &str,
) -> ExitCode {
    // The message may quote a transcript or a path: escaped as one line,
    // and as JSON in the envelope.
    eprintln!(
        "mcp-replay: {command}: error: {}",
        mcp_replay::report::escape::line(message)
    );
    if json_mode {
        eprintln!(
            "{}",
            envelope(code, message, phase, i32::from(status), started)
        );
    }
    ExitCode::from(status)
}

/// Watches for SIGTERM, SIGINT and SIGHUP on a thread of its own; the
/// first ends the session: every server a `check` call started is killed,
/// the report (and in JSON mode the envelope) goes last on stderr, and
/// `ended` hears the status, 128 + N.
fn watch_signals(
    command: &'static str,
    mut stderr: File,
    json_mode: bool,
    started: Instant,
    ended: mpsc::Sender<Ended>,
) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".to_owned())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                mcp_replay::process::kill_all();
                let name = match signal {
                    SIGTERM => "SIGTERM",
                    SIGINT => "SIGINT",
                    _ => "SIGHUP",
                };
                let code = 128 + signal;
                let message = format!("{name} ended the session");
                let _ = writeln!(stderr, "mcp-replay: {command}: {message}");
                if json_mode {
                    let _ = writeln!(
                        stderr,
                        "{}",
                        envelope(name, &message, "serving", code, started)
                    );
                }
                let _ = stderr.flush();
                let _ = ended.send(Ended::Signal(u8::try_from(code).unwrap_or(u8::MAX)));
            }
        })?;
    Ok(())
}
