//! `mcp-replay mock`: the binary's side of a mock, as REQ-C-032 has a
//! protocol command start.
//!
//! Flags are parsed first (`serve::usage_error`); then the transcripts are
//! read, and one that cannot be exits 2 with stdout empty and, with
//! `--format json`, the envelope as the last line of stderr: the mock never
//! started. Once serving begins, stdout belongs to the protocol; stdin
//! closing exits 0 with no envelope; a signal exits 128 + N with the
//! envelope in JSON mode (`serve::watch_signals`).
#![allow(clippy::print_stderr)]

use std::fs::File;
use std::os::fd::AsFd as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mcp_replay::mock::Mock;

use crate::serve::{envelope, watch_signals};

/// Serves `transcripts` until stdin closes or a signal ends the session.
pub fn run(transcripts: &[PathBuf], strict: bool, json_mode: bool, started: Instant) -> ExitCode {
    let mock = match Mock::load(transcripts) {
        Ok(mock) => mock.strict(strict),
        Err(err) => {
            return fail(
                json_mode,
                started,
                ("TRANSCRIPT_ERROR", "preparation", 2),
                &chain(&err),
            );
        }
    };
    let stderr = std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|stderr| watch_signals("mock", stderr, json_mode, started));
    if let Err(err) = stderr {
        let message = format!("cannot install the signal handlers: {err}");
        return fail(json_mode, started, ("SERVE_ERROR", "startup", 1), &message);
    }
    match mock.serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        // The client hung up: the session is over, a clean end for a
        // server (MCP-CORE r1 §1¶10).
        Err(err) if err.is_hang_up() => ExitCode::SUCCESS,
        Err(err) => fail(
            json_mode,
            started,
            ("SERVE_ERROR", "startup", 1),
            &chain(&err),
        ),
    }
}

/// An error and its causes, on one line.
fn chain(err: &dyn std::error::Error) -> String {
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// Reports a failure before serving: `code` in its phase, with its exit
/// status, and never a word on stdout.
fn fail(
    json_mode: bool,
    started: Instant,
    (code, phase, status): (&str, &str, u8),
    message: &str,
) -> ExitCode {
    eprintln!("mcp-replay: mock: error: {message}");
    if json_mode {
        eprintln!(
            "{}",
            envelope(code, message, phase, i32::from(status), started)
        );
    }
    ExitCode::from(status)
}
