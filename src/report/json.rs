//! The report for programs: JSON Lines, one object per line, each with a
//! `type` first (`error`, `transcript`, `finding`, `law`, `fuzz`, `tool`,
//! `host`, `stale`, `interrupted`, `summary`); `law` and `finding` lines say
//! the `side` they judge (`server` or `host`).
//!
//! `docs/output-formats.md` describes every field. The structs below are the
//! wire format: their field order is the order on the line.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::{Graded, LawStatus, Location, Report, Status};
use crate::laws::LawId;

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
        side: &'static str,
        severity: &'a str,
        disposition: &'a str,
        profile: &'a str,
        cites: &'a str,
        message: &'a str,
        location: Where<'a>,
        diff: Option<&'a str>,
        hint: Option<&'a str>,
        /// A rule of the `core` profile's own, which the MCP specification
        /// does not ask.
        core_own: bool,
        /// The requirement of the registry the finding shows broken, where
        /// the step that made it knows which.
        #[serde(skip_serializing_if = "Option::is_none")]
        requirement: Option<&'static str>,
        /// Probe findings only: the era the session spoke.
        #[serde(skip_serializing_if = "Option::is_none")]
        era: Option<&'static str>,
        /// Fuzz findings only: the call that makes it.
        #[serde(skip_serializing_if = "Option::is_none")]
        fuzz: Option<Box<FuzzCaseLine<'a>>>,
        /// The other laws the finding's cause breaks, folded into it.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        also: Vec<AlsoLine<'a>>,
        /// How many times the finding was made, when more than once.
        #[serde(skip_serializing_if = "Option::is_none")]
        occurrences: Option<usize>,
        /// Where it was made again, when it was.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        repeated_at: Vec<Where<'a>>,
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
        reached: usize,
        not_generated_for: &'a [String],
        note: Option<&'a str>,
    },
    Law {
        law: &'a str,
        side: &'static str,
        /// Server laws: the command probed or fuzzed.
        #[serde(skip_serializing_if = "Option::is_none")]
        command: Option<&'a str>,
        /// Host laws: what the host was judged from, and its name.
        #[serde(skip_serializing_if = "Option::is_none")]
        source: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        host: Option<Option<&'a str>>,
        status: String,
        reason: Option<&'a str>,
        /// A dual-era server's verdict in each era, where they differ.
        #[serde(skip_serializing_if = "Option::is_none")]
        eras: Option<BTreeMap<&'static str, String>>,
        /// What the run could not decide for the law.
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        notes: &'a [String],
    },
    Requirement {
        id: &'static str,
        law: Option<&'static str>,
        side: &'static str,
        level: &'static str,
        /// A server's requirement: the server command.
        #[serde(skip_serializing_if = "Option::is_none")]
        command: Option<&'a str>,
        /// A host's requirement: what the host was judged from, and its
        /// name.
        #[serde(skip_serializing_if = "Option::is_none")]
        source: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        host: Option<Option<&'a str>>,
        status: &'static str,
        reason: Option<&'a str>,
    },
    Host {
        source: &'a str,
        host: Option<&'a str>,
        status: String,
        findings: usize,
        notes: &'a [String],
        elapsed_ms: u64,
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
        host_laws: usize,
        hosts: usize,
        held: usize,
        failed: usize,
        warnings: usize,
        known: usize,
        skipped: usize,
        waived: usize,
        stale: usize,
        /// The requirement outcomes by status; absent when none was graded.
        #[serde(skip_serializing_if = "Option::is_none")]
        requirements: Option<RequirementCounts>,
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

/// A law a finding's cause breaks too.
#[derive(Serialize)]
struct AlsoLine<'a> {
    law: &'a str,
    severity: &'a str,
    disposition: &'a str,
    message: &'a str,
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
                    side: outcome.law.side().as_str(),
                    command: Some(&probe.command),
                    source: None,
                    host: None,
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
                    notes: &outcome.notes,
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
                    reached: tool.reached,
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
                    side: outcome.law.side().as_str(),
                    command: Some(&run.command),
                    source: None,
                    host: None,
                    status: status(run.status(outcome)),
                    reason,
                    eras: None,
                    notes: &outcome.notes,
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
    for host in &report.hosts {
        line(
            out,
            &Line::Host {
                source: &host.source,
                host: host.host.as_deref(),
                status: status(host.overall()),
                findings: host.findings.len(),
                notes: &host.notes,
                elapsed_ms: millis(host.elapsed),
            },
        )?;
        for outcome in &host.outcomes {
            let reason = match &outcome.status {
                LawStatus::Skipped(reason) => Some(reason.as_str()),
                _ => None,
            };
            line(
                out,
                &Line::Law {
                    law: outcome.law.as_str(),
                    side: outcome.law.side().as_str(),
                    command: None,
                    source: Some(&host.source),
                    host: Some(host.host.as_deref()),
                    status: status(host.status(outcome)),
                    reason,
                    eras: None,
                    notes: &outcome.notes,
                },
            )?;
            for graded in host.findings_of(outcome.law) {
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
    for outcome in &report.requirements {
        line(
            out,
            &Line::Requirement {
                id: outcome.id,
                law: outcome.law.map(LawId::as_str),
                side: outcome.side.as_str(),
                level: outcome.level.as_str(),
                command: outcome.host.is_none().then_some(outcome.subject.as_str()),
                source: outcome.host.as_ref().map(|(source, _)| source.as_str()),
                host: outcome.host.as_ref().map(|(_, name)| name.as_deref()),
                status: outcome.status.as_str(),
                reason: outcome.status.reason(),
            },
        )?;
    }
    let summary = report.summary();
    let tally = report.requirement_tally();
    line(
        out,
        &Line::Summary {
            requirements: (tally.total > 0).then_some(RequirementCounts {
                total: tally.total,
                held: tally.held,
                failed: tally.failed,
                warned: tally.warned,
                waived: tally.waived,
                not_observed: tally.not_observed,
                not_applicable: tally.not_applicable,
            }),
            transcripts: summary.transcripts,
            laws: summary.laws,
            host_laws: summary.host_laws,
            hosts: summary.hosts,
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

/// The `requirements` member of the summary.
#[derive(Serialize)]
struct RequirementCounts {
    total: usize,
    held: usize,
    failed: usize,
    warned: usize,
    waived: usize,
    not_observed: usize,
    not_applicable: usize,
}

fn place(location: &Location) -> Where<'_> {
    match location {
        Location::Transcript { path, line } => Where::Transcript {
            path: path.display().to_string(),
            line: *line,
        },
        Location::Probe { command, step } => Where::Probe { command, step },
    }
}

fn finding(graded: &Graded) -> Line<'_> {
    let finding = &graded.finding;
    let location = place(&finding.location);
    Line::Finding {
        law: finding.law.as_str(),
        side: finding.law.side().as_str(),
        severity: finding.severity.as_str(),
        disposition: graded.disposition.as_str(),
        profile: finding.profile.as_str(),
        cites: &finding.cites,
        message: &finding.message,
        location,
        diff: finding.diff.as_deref(),
        hint: finding.hint.as_deref(),
        core_own: finding.is_core_own(),
        requirement: finding.requirement,
        era: finding.era.map(crate::revision::Era::as_str),
        fuzz: finding.fuzz.as_deref().map(|case| {
            Box::new(FuzzCaseLine {
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
            })
        }),
        also: finding
            .also
            .iter()
            .map(|also| AlsoLine {
                law: also.law.as_str(),
                severity: also.severity.as_str(),
                disposition: also.disposition.as_str(),
                message: &also.message,
            })
            .collect(),
        occurrences: (finding.occurrences() > 1).then(|| finding.occurrences()),
        repeated_at: finding.repeats.iter().map(place).collect(),
    }
}

fn status(status: Status) -> String {
    status.as_str().to_ascii_lowercase()
}

fn millis(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}

/// Writes one line, escaped for a terminal or a CI log that shows it
/// ([`escape::json`](super::escape::json)): it reads back to the same
/// values.
fn line(out: &mut dyn Write, line: &Line<'_>) -> io::Result<()> {
    let text = serde_json::to_string(line)?;
    out.write_all(super::escape::json(&text).as_bytes())?;
    out.write_all(b"\n")
}
