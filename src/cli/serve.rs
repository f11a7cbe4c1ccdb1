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
use std::time::Instant;

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
    json!({
        "ok": false,
        "data": null,
        "error": {"code": code, "message": message, "retryable": retryable, "phase": phase},
        "warnings": [],
        "meta": {
            "exit_code": exit_code,
            "duration_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        },
    })
    .to_string()
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

/// Serves `mcp-replay serve` until stdin closes or a signal ends it.
pub fn run(json_mode: bool, started: Instant) -> ExitCode {
    // While a tool runs, fd 2 points at the capture: the report of a
    // signal goes to a copy of the real stderr, taken now.
    let stderr = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map(File::from);
    let stderr = match stderr {
        Ok(stderr) => stderr,
        Err(err) => {
            return fail(json_mode, started, &format!("cannot copy stderr: {err}"));
        }
    };
    if let Err(err) = watch_signals("serve", stderr, json_mode, started) {
        return fail(
            json_mode,
            started,
            &format!("cannot install the signal handlers: {err}"),
        );
    }
    let server = mcp_replay::serve::server(env!("MCP_REPLAY_VERSION"));
    match server.serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        // The client hung up: the session is over, a clean end for a
        // server (MCP-CORE r1 §1¶10).
        Err(err) if err.is_hang_up() => ExitCode::SUCCESS,
        Err(err) => {
            let mut message = err.to_string();
            let mut source = std::error::Error::source(&err);
            while let Some(cause) = source {
                message.push_str(": ");
                message.push_str(&cause.to_string());
                source = cause.source();
            }
            fail(json_mode, started, &message)
        }
    }
}

/// Reports a failure to start serving: exit 1, never a word on stdout.
fn fail(json_mode: bool, started: Instant, message: &str) -> ExitCode {
    eprintln!("mcp-replay: serve: error: {message}");
    if json_mode {
        eprintln!(
            "{}",
            envelope("SERVE_ERROR", message, "startup", 1, started)
        );
    }
    ExitCode::FAILURE
}

/// Ends the process on SIGTERM, SIGINT or SIGHUP with 128 + N, after
/// killing every server a `check` call started; in JSON mode the envelope
/// is the last line of stderr.
pub fn watch_signals(
    command: &'static str,
    mut stderr: File,
    json_mode: bool,
    started: Instant,
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
                std::process::exit(code);
            }
        })?;
    Ok(())
}
