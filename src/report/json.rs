//! The report for programs: JSON Lines, one object per line, each with a
//! `type` (`error`, `transcript`, `law`, `finding`, `stale`, `summary`).
//!
//! `docs/output-formats.md` describes every field.

use std::io::{self, Write};
use std::time::Duration;

use serde_json::{Value, json};

use super::{Graded, LawStatus, Location, Report, Status};

/// Writes the JSON Lines report of `report` to `out`.
///
/// # Errors
///
/// The first write error.
pub fn render(report: &Report, mut out: impl Write) -> io::Result<()> {
    render_dyn(report, &mut out)
}

fn render_dyn(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for error in &report.errors {
        line(
            out,
            &json!({
                "type": "error",
                "path": error.path.as_ref().map(|path| path.display().to_string()),
                "message": error.message,
            }),
        )?;
    }
    for transcript in &report.transcripts {
        let exchanges: Vec<Value> = transcript
            .exchanges
            .iter()
            .map(|exchange| {
                json!({
                    "line": exchange.line,
                    "method": exchange.method,
                    "id": exchange.id,
                    "status": exchange.status.as_str(),
                })
            })
            .collect();
        line(
            out,
            &json!({
                "type": "transcript",
                "path": transcript.path.display().to_string(),
                "command": transcript.command,
                "status": status(transcript.status()),
                "exchanges": exchanges,
                "findings": transcript.findings.len(),
                "notes": transcript.notes,
                "blessed": transcript.blessed,
                "elapsed_ms": millis(transcript.elapsed),
            }),
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
                &json!({
                    "type": "law",
                    "law": outcome.law.as_str(),
                    "command": probe.command,
                    "status": status(probe.status(outcome)),
                    "reason": reason,
                }),
            )?;
            for graded in probe.findings_of(outcome.law) {
                line(out, &finding(graded))?;
            }
        }
    }
    for stale in &report.stale {
        line(
            out,
            &json!({"type": "stale", "law": stale.law, "location": stale.location}),
        )?;
    }
    let summary = report.summary();
    line(
        out,
        &json!({
            "type": "summary",
            "transcripts": summary.transcripts,
            "laws": summary.laws,
            "held": summary.held,
            "failed": summary.failed,
            "warnings": summary.warned,
            "known": summary.known,
            "skipped": summary.skipped,
            "waived": summary.waived,
            "stale": summary.stale,
            "errors": summary.errors,
            "exit": report.exit_code(),
            "elapsed_ms": millis(report.elapsed),
        }),
    )
}

fn finding(graded: &Graded) -> Value {
    let finding = &graded.finding;
    let location = match &finding.location {
        Location::Transcript { path, line } => json!({
            "kind": "transcript",
            "path": path.display().to_string(),
            "line": line,
        }),
        Location::Probe { command, step } => json!({
            "kind": "probe",
            "command": command,
            "step": step,
        }),
    };
    json!({
        "type": "finding",
        "law": finding.law.as_str(),
        "severity": finding.severity.as_str(),
        "disposition": graded.disposition.as_str(),
        "profile": finding.profile.as_str(),
        "cites": finding.cites,
        "message": finding.message,
        "location": location,
        "diff": finding.diff,
        "hint": finding.hint,
    })
}

fn status(status: Status) -> String {
    status.as_str().to_ascii_lowercase()
}

fn millis(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}

fn line(out: &mut dyn Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}
