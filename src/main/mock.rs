//! `mcp-replay mock`: the binary's side of a mock, as REQ-C-032 has a
//! protocol command start.
//!
//! Flags are parsed first (`serve::usage_error`); then the transcripts are
//! read, and one that cannot be exits 2 with stdout empty and, with
//! `--format json`, the envelope as the last line of stderr: the mock never
//! started. Once serving begins, stdout belongs to the protocol; stdin
//! closing exits 0 with no envelope; a signal exits 128 + N with the
//! envelope in JSON mode (`serve::session`).
//!
//! When the host is judged (the built-in scenario, or `--judge-host`), the
//! session's end writes the host report: on stderr for people (unless a
//! signal ended the session in JSON mode, whose envelope comes last), and
//! to the files asked for; stdin closing then exits 0 when the host kept
//! every host law, 1 when it broke one (with, in JSON mode, the envelope
//! last).
#![allow(clippy::print_stderr)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use mcp_replay::host::Live;
use mcp_replay::laws::{LawId, Profile};
use mcp_replay::mock::{Mock, SCENARIOS, serve_exercise_stdio};
use mcp_replay::report::{self, Palette, Report};

use crate::serve::{chain, envelope, fail, session_then};

/// Whether and how the host is judged.
#[derive(Debug)]
pub struct Judging {
    /// Judge the host of transcripts (the built-in scenario always is).
    pub on: bool,
    /// The profile of the report.
    pub profile: Profile,
    /// Host laws that do not fail the session.
    pub waive: Vec<LawId>,
    /// Warnings fail the session too.
    pub deny_warnings: bool,
    /// Host requirements not observed fail the session too.
    pub deny_unobserved: bool,
    /// Where to write the report as JUnit XML.
    pub junit: Option<PathBuf>,
    /// Where to write the report as JSON Lines.
    pub report: Option<PathBuf>,
    /// Where to append the report as Markdown.
    pub summary: Option<PathBuf>,
}

/// What the session serves.
enum Served {
    Recorded(Box<Mock>),
    Exercise,
}

/// Serves `scenarios` until stdin closes or a signal ends the session.
pub fn run(
    scenarios: &[PathBuf],
    strict: bool,
    fill: &[String],
    judging: &Judging,
    json_mode: bool,
    started: Instant,
) -> ExitCode {
    let builtin = |path: &PathBuf| {
        path.to_str().is_some_and(|name| SCENARIOS.contains(&name)) && !path.exists()
    };
    let served = match scenarios {
        [one] if builtin(one) => Served::Exercise,
        _ if scenarios.iter().any(builtin) => {
            let failure = ("ARG_ERROR", "validation", 2);
            let message = "the built-in scenario is served alone, not pooled with transcripts";
            return fail("mock", json_mode, started, failure, message);
        }
        _ => match Mock::load(scenarios) {
            Ok(mock) => Served::Recorded(Box::new(mock.strict(strict).fill_env(fill))),
            Err(err) => {
                let failure = ("TRANSCRIPT_ERROR", "preparation", 2);
                return fail("mock", json_mode, started, failure, &chain(&err));
            }
        },
    };
    let judged = judging.on || matches!(served, Served::Exercise);
    let source = format!(
        "mcp-replay mock {}",
        scenarios
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let live = judged.then(|| Arc::new(Live::new(judging.profile, source)));
    let serving = live.clone();
    let serve = move || match served {
        Served::Exercise => serve_exercise_stdio(serving.as_deref()),
        Served::Recorded(mock) => mock.serve_stdio_judged(serving.as_deref()),
    };
    session_then("mock", json_mode, started, serve, |signal| {
        let live = live?;
        if let Some(signal) = signal {
            live.signal(signal);
        }
        let host = live.finish()?;
        let host = host.graded(&judging.waive, judging.deny_warnings);
        let mut report = Report::default();
        report.profiles = vec![judging.profile];
        report.elapsed = started.elapsed();
        report.hosts.push(host);
        report.grade_requirements();
        report.fold_causes();
        report.deny_unobserved = judging
            .deny_unobserved
            .then_some(mcp_replay::laws::registry::Side::Host);
        // After a signal in JSON mode the envelope is stderr's last line:
        // the report goes to the files alone.
        if !(json_mode && signal.is_some()) {
            let mut stderr = std::io::stderr().lock();
            let _ = report::human::render(&report, &Palette::plain(), false, &mut stderr);
        }
        if let Err(message) = write_files(&report, judging) {
            // The message names a path: escaped as one line.
            eprintln!(
                "mcp-replay: mock: error: {}",
                report::escape::line(&message)
            );
            return Some(ExitCode::from(report::EXIT_USAGE));
        }
        // A signal ends the session with 128 + N whatever the verdict.
        if signal.is_some() {
            return None;
        }
        let code = report.exit_code();
        if code != report::EXIT_OK && json_mode {
            let failed = report.summary().failed;
            let message = if failed == 0 && report.unobserved_fails() {
                let unobserved = report
                    .requirement_tally_of(mcp_replay::laws::registry::Side::Host)
                    .not_observed;
                format!(
                    "{unobserved} host requirement{} not observed (--deny-unobserved)",
                    if unobserved == 1 { " was" } else { "s were" }
                )
            } else {
                format!(
                    "the host broke {failed} host law{}",
                    if failed == 1 { "" } else { "s" }
                )
            };
            eprintln!(
                "{}",
                envelope(
                    "HOST_LAWS_FAILED",
                    &message,
                    "serving",
                    i32::from(code),
                    started
                )
            );
        }
        Some(ExitCode::from(code))
    })
}

/// Writes the report files `judging` asks for.
fn write_files(report: &Report, judging: &Judging) -> Result<(), String> {
    let written = |path: &Path, what: &str, result: std::io::Result<()>| {
        result.map_err(|err| format!("cannot write the {what} `{}`: {err}", path.display()))
    };
    let buffered = |file: std::fs::File, render: &dyn Fn(&mut dyn Write) -> std::io::Result<()>| {
        let mut out = std::io::BufWriter::new(file);
        render(&mut out)?;
        out.flush()
    };
    if let Some(path) = &judging.junit {
        let result = std::fs::File::create(path)
            .and_then(|file| buffered(file, &|out| report::junit::render(report, out)));
        written(path, "JUnit report", result)?;
    }
    if let Some(path) = &judging.report {
        let result = std::fs::File::create(path)
            .and_then(|file| buffered(file, &|out| report::json::render(report, out)));
        written(path, "JSON Lines report", result)?;
    }
    if let Some(path) = &judging.summary {
        let result = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|file| buffered(file, &|out| report::markdown::render(report, out)));
        written(path, "Markdown summary", result)?;
    }
    Ok(())
}
