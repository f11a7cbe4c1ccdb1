//! The report for programs: JSON Lines, one object per line, each with a
//! `type` first (`error`, `transcript`, `finding`, `law`, `fuzz`, `tool`,
//! `stale`, `interrupted`, `summary`).
//!
//! `docs/output-formats.md` describes every field. The structs below are the
//! wire format: their field order is the order on the line.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::{Graded, LawStatus, Location, Report, Status};

/// Writes the JSON Lines report of `report` to `out`.
///
/// # Errors
///
/// The first write error.
pub fn render(report: &Report, mut out: impl Write) -> io::Result<()> {
    render_dyn(report, &mut out)
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line<'a> {
    Error {
        path: Option<String>,
        message: &'a str,
    },
    Transcript {
        path: String,
        command: &'a str,
        status: String,
        exchanges: Vec<Exchange<'a>>,
        findings: usize,
        notes: &'a [String],
        blessed: Option<usize>,
        elapsed_ms: u64,
    },
    Finding {
        law: &'a str,
        severity: &'a str,
        disposition: &'a str,
        profile: &'a str,
        cites: &'a str,
        message: &'a str,
        location: Where<'a>,
        diff: Option<&'a str>,
        hint: Option<&'a str>,
        /// Probe findings only: the era the session spoke.
        #[serde(skip_serializing_if = "Option::is_none")]
        era: Option<&'static str>,
        /// Fuzz findings only: the call that makes it.
        #[serde(skip_serializing_if = "Option::is_none")]
        fuzz: Option<FuzzCaseLine<'a>>,
    },
    Fuzz {
        command: &'a str,
        seed: u64,
        era: Option<&'static str>,
        revision: Option<&'a str>,
        calls: usize,
        notes: &'a [String],
        elapsed_ms: u64,
    },
    Tool {
        command: &'a str,
        tool: &'a str,
        status: String,
        reason: Option<&'a str>,
        cases: usize,
        sent: usize,
        valid: usize,
        invalid: usize,
        unjudged: usize,
        valid_is_error: usize,
        not_generated_for: &'a [String],
        note: Option<&'a str>,
    },
    Law {
        law: &'a str,
        command: &'a str,
        status: String,
        reason: Option<&'a str>,
        /// A dual-era server's verdict in each era, where they differ.
        #[serde(skip_serializing_if = "Option::is_none")]
        eras: Option<BTreeMap<&'static str, String>>,
    },
    Stale {
        law: &'a str,
        location: &'a str,
    },
    Interrupted {
        signal: String,
        transcripts: Vec<String>,
        commands: &'a [String],
    },
    Summary {
        transcripts: usize,
        laws: usize,
        held: usize,
        failed: usize,
        warnings: usize,
        known: usize,
        skipped: usize,
        waived: usize,
        stale: usize,
        errors: usize,
        exit: u8,
        elapsed_ms: u64,
    },
}

#[derive(Serialize)]
struct FuzzCaseLine<'a> {
    tool: &'a str,
    arguments: Option<&'a Value>,
    label: &'a str,
    what: &'a str,
    shrunk_from: Option<&'a Value>,
    count: usize,
    transcript: Option<String>,
    notes: &'a [String],
}

#[derive(Serialize)]
struct Exchange<'a> {
    line: usize,
    method: &'a str,
    id: Value,
    status: &'a str,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Where<'a> {
    Transcript { path: String, line: usize },
    Probe { command: &'a str, step: &'a str },
}

fn render_dyn(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for error in &report.errors {
        line(
            out,
            &Line::Error {
                path: error.path.as_ref().map(|path| path.display().to_string()),
                message: &error.message,
            },
        )?;
    }
    for transcript in &report.transcripts {
        let exchanges = transcript
            .exchanges
            .iter()
            .map(|exchange| Exchange {
                line: exchange.line,
                method: &exchange.method,
                // The id as the JSON it was: `7` or `"7"`.
                id: serde_json::from_str(&exchange.id)
                    .unwrap_or_else(|_| Value::String(exchange.id.clone())),
                status: exchange.status.as_str(),
            })
            .collect();
        line(
            out,
            &Line::Transcript {
                path: transcript.path.display().to_string(),
                command: &transcript.command,
                status: status(transcript.status()),
                exchanges,
                findings: transcript.findings.len(),
                notes: &transcript.notes,
                blessed: transcript.blessed,
                elapsed_ms: millis(transcript.elapsed),
            },
        )?;
        for graded in &transcript.findings {
            line(out, &finding(graded))?;
        }
    }
    for probe in &report.probes {
        for outcome in &probe.outcomes {
            let reason = match &outcome.status {
                LawStatus::Skipped(reason) => Some(reason.as_str()),
                _ => None,
            };
            line(
                out,
                &Line::Law {
                    law: outcome.law.as_str(),
                    command: &probe.command,
                    status: status(probe.status(outcome)),
                    reason,
                    eras: (!outcome.eras.is_empty()).then(|| {
                        outcome
                            .eras
                            .iter()
                            .map(|(era, verdict)| {
                                (
                                    era.as_str(),
                                    status(probe.era_status(outcome, *era, verdict)),
                                )
                            })
                            .collect()
                    }),
                },
            )?;
            for graded in probe.findings_of(outcome.law) {
                line(out, &finding(graded))?;
            }
        }
    }
    for run in &report.fuzz {
        line(
            out,
            &Line::Fuzz {
                command: &run.command,
                seed: run.seed,
                era: run.era.map(crate::revision::Era::as_str),
                revision: run.revision.as_deref(),
                calls: run.tools.iter().map(|tool| tool.sent).sum(),
                notes: &run.notes,
                elapsed_ms: millis(run.elapsed),
            },
        )?;
        for tool in &run.tools {
            line(
                out,
                &Line::Tool {
                    command: &run.command,
                    tool: &tool.name,
                    status: status(run.tool_status(tool)),
                    reason: tool.skipped.as_deref(),
                    cases: tool.cases,
                    sent: tool.sent,
                    valid: tool.valid,
                    invalid: tool.invalid,
                    unjudged: tool.unjudged,
                    valid_is_error: tool.valid_is_error,
                    not_generated_for: &tool.not_generated_for,
                    note: tool.note.as_deref(),
                },
            )?;
            for graded in run.findings_of_tool(&tool.name) {
                line(out, &finding(graded))?;
            }
        }
        for outcome in &run.outcomes {
            let reason = match &outcome.status {
                LawStatus::Skipped(reason) => Some(reason.as_str()),
                _ => None,
            };
            line(
                out,
                &Line::Law {
                    law: outcome.law.as_str(),
                    command: &run.command,
                    status: status(run.status(outcome)),
                    reason,
                    eras: None,
                },
            )?;
            for graded in run
                .session_findings()
                .filter(|graded| graded.finding.law == outcome.law)
            {
                line(out, &finding(graded))?;
            }
        }
    }
    for stale in &report.stale {
        line(
            out,
            &Line::Stale {
                law: &stale.law,
                location: &stale.location,
            },
        )?;
    }
    if let Some(interruption) = &report.interrupted {
        line(
            out,
            &Line::Interrupted {
                signal: interruption.signal_name(),
                transcripts: interruption
                    .transcripts
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect(),
                commands: &interruption.probes,
            },
        )?;
    }
    let summary = report.summary();
    line(
        out,
        &Line::Summary {
            transcripts: summary.transcripts,
            laws: summary.laws,
            held: summary.held,
            failed: summary.failed,
            warnings: summary.warned,
            known: summary.known,
            skipped: summary.skipped,
            waived: summary.waived,
            stale: summary.stale,
            errors: summary.errors,
            exit: report.exit_code(),
            elapsed_ms: millis(report.elapsed),
        },
    )
}

fn finding(graded: &Graded) -> Line<'_> {
    let finding = &graded.finding;
    let location = match &finding.location {
        Location::Transcript { path, line } => Where::Transcript {
            path: path.display().to_string(),
            line: *line,
        },
        Location::Probe { command, step } => Where::Probe { command, step },
    };
    Line::Finding {
        law: finding.law.as_str(),
        severity: finding.severity.as_str(),
        disposition: graded.disposition.as_str(),
        profile: finding.profile.as_str(),
        cites: &finding.cites,
        message: &finding.message,
        location,
        diff: finding.diff.as_deref(),
        hint: finding.hint.as_deref(),
        era: finding.era.map(crate::revision::Era::as_str),
        fuzz: finding.fuzz.as_deref().map(|case| FuzzCaseLine {
            tool: &case.tool,
            arguments: case.arguments.as_ref(),
            label: &case.label,
            what: &case.what,
            shrunk_from: case.shrunk_from.as_ref(),
            count: case.count,
            transcript: case
                .transcript
                .as_ref()
                .map(|path| path.display().to_string()),
            notes: &case.notes,
        }),
    }
}

fn status(status: Status) -> String {
    status.as_str().to_ascii_lowercase()
}

fn millis(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}

fn line(out: &mut dyn Write, line: &Line<'_>) -> io::Result<()> {
    serde_json::to_writer(&mut *out, line)?;
    out.write_all(b"\n")
}
