//! The CLI probes: the two laws of REQ-C-032 about a server's command line
//! rather than its protocol, run only when asked (`--cli-probes`).
//!
//! - `help-does-not-serve`: `<cmd> --help` with stdin a pipe that stays
//!   open and is never written must exit 0 with help on stdout. A command
//!   that reads stdin, or starts serving, waits on the pipe and misses the
//!   deadline.
//! - `bad-flag-exits-2`: `<cmd> <bad flag>` must exit 2 with stdout empty:
//!   the server never started.
//!
//! Each runs a fresh process of its own, in its own process group, killed
//! and reaped before the probe returns. The deadline is the one of a fresh
//! process's first answer (`--startup-timeout`, at least three steps), so
//! that a server slow to start is not taken for one that waits on stdin.

use std::time::{Duration, Instant};

use super::ProbeOptions;
use crate::laws::{LawId, Profile};
use crate::process::{Output, Recv, ServerCommand, ServerProcess, SpawnError};
use crate::report::{Finding, LawOutcome, LawStatus, Location};

/// The laws the CLI probes check, in catalog order.
pub(crate) const LAWS: [LawId; 2] = [LawId::HelpDoesNotServe, LawId::BadFlagExits2];

/// The flag the `bad-flag-exits-2` probe passes unless told another.
pub const DEFAULT_BAD_FLAG: &str = "--mcp-replay-no-such-flag";

/// What a run of `<cmd> <flag>` did by its deadline.
struct Run {
    /// The exit code, or `None` when it had not exited (it was killed) or
    /// died of a signal.
    code: Option<i32>,
    /// Whether it exited by the deadline.
    exited: bool,
    /// What it wrote on stdout.
    stdout: Vec<u8>,
}

/// Runs the CLI probes against `command`: the outcome of each law and the
/// findings.
///
/// # Errors
///
/// [`SpawnError`] when the command cannot be started at all.
pub(crate) fn run(
    command: &ServerCommand,
    options: &ProbeOptions,
    bad_flag: &str,
) -> Result<(Vec<LawOutcome>, Vec<Finding>), SpawnError> {
    if options.profile == Profile::Spec {
        let skipped = LAWS
            .iter()
            .map(|&law| {
                LawOutcome::new(
                    law,
                    LawStatus::Skipped("the spec profile does not check it".to_owned()),
                )
            })
            .collect();
        return Ok((skipped, Vec::new()));
    }
    let wait = options.startup_timeout.max(options.timeout * 3);
    let mut findings = Vec::new();
    let display = command.display();
    let mut fail = |law, step: String, message: String| {
        let location = Location::Probe {
            command: display.clone(),
            step,
        };
        findings.push(Finding::new(law, options.profile, location, message));
    };

    let help = run_with(command, "--help", wait, options.grace)?;
    let step = "run `--help` with stdin open and unwritten".to_owned();
    if !help.exited {
        fail(
            LawId::HelpDoesNotServe,
            step,
            format!(
                "`--help` did not exit within {}: it waits on stdin, or serves, instead of printing help",
                seconds(wait)
            ),
        );
    } else if help.code != Some(0) {
        fail(
            LawId::HelpDoesNotServe,
            step,
            format!("`--help` exited with {}, not 0", describe(help.code)),
        );
    } else if help.stdout.is_empty() {
        fail(
            LawId::HelpDoesNotServe,
            step,
            "`--help` exited 0 but printed nothing on stdout".to_owned(),
        );
    }

    let bad = run_with(command, bad_flag, wait, options.grace)?;
    let step = format!("run with the invalid flag `{bad_flag}`");
    if !bad.exited {
        fail(
            LawId::BadFlagExits2,
            step.clone(),
            format!(
                "`{bad_flag}` did not end the process within {}: it serves despite an invalid flag",
                seconds(wait)
            ),
        );
    } else if bad.code != Some(2) {
        fail(
            LawId::BadFlagExits2,
            step.clone(),
            format!("`{bad_flag}` exited with {}, not 2", describe(bad.code)),
        );
    }
    if !bad.stdout.is_empty() {
        let shown = crate::jsonrpc::wire::quoted(&bad.stdout);
        fail(
            LawId::BadFlagExits2,
            step,
            format!(
                "`{bad_flag}` wrote {} bytes on stdout, which must stay empty: {shown}",
                bad.stdout.len()
            ),
        );
    }
    let outcomes = LAWS
        .iter()
        .map(|&law| {
            let status = if findings.iter().any(|finding| finding.law == law) {
                LawStatus::Failed
            } else {
                LawStatus::Held
            };
            LawOutcome::new(law, status)
        })
        .collect();
    Ok((outcomes, findings))
}

/// Starts `<command> <flag>`, never writes its stdin, and waits until
/// `wait` for it to exit, reading its stdout meanwhile; a process still
/// running then is killed. At most 64 KiB of stdout is kept.
fn run_with(
    command: &ServerCommand,
    flag: &str,
    wait: Duration,
    grace: Duration,
) -> Result<Run, SpawnError> {
    let mut argv = command.argv.clone();
    argv.push(flag.to_owned());
    let mut probed = ServerCommand::new(argv);
    probed.cwd.clone_from(&command.cwd);
    let mut process = ServerProcess::spawn(&probed)?;
    let started = Instant::now();
    let status = process.wait(started + wait);
    if status.is_none() {
        process.kill();
    }
    // What it wrote before it exited is still in the pipe, or queued: read
    // it to the end, or for as long as a grandchild holding the pipe is
    // given.
    let mut stdout = Vec::new();
    let until = Instant::now() + grace;
    while let Recv::Output(Output::Line { bytes, eol, .. }) = process.recv(until) {
        if stdout.len() < 64 * 1024 {
            stdout.extend_from_slice(&bytes);
            if eol {
                stdout.push(b'\n');
            }
        }
    }
    Ok(Run {
        code: status.and_then(|status| status.code()),
        exited: status.is_some(),
        stdout,
    })
}

fn describe(code: Option<i32>) -> String {
    code.map_or_else(|| "a signal".to_owned(), |code| format!("status {code}"))
}

fn seconds(duration: Duration) -> String {
    format!("{:.1}s", duration.as_secs_f64())
}
