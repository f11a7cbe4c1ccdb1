//! The report for people: one line per transcript, the laws under one
//! header per server command, the findings and diffs of failures beneath,
//! and one `Summary:` line.
//!
//! Laws that held are one count line per server, the way a test runner
//! keeps passing tests out of the way; every other law has its own line.
//! Verbose, every law has its own line.

use std::io::{self, Write};
use std::time::Duration;

use super::{
    Disposition, FuzzResult, Graded, Location, Palette, ProbeResult, Report, Status, Summary,
    Tally, TranscriptResult,
};
use crate::laws::{LawId, Profile};
use crate::report::{LawStatus, plural};

/// The width status words are right-aligned in.
const STATUS_WIDTH: usize = 6;

/// The word of a probed server's header line, in the status column.
const PROBES: &str = "PROBES";

/// Writes the human report of `report` to `out`, coloured with `palette`;
/// `verbose` gives each law that held its own line too.
///
/// # Errors
///
/// The first write error.
pub fn render(
    report: &Report,
    palette: &Palette,
    verbose: bool,
    mut out: impl Write,
) -> io::Result<()> {
    render_dyn(report, palette, verbose, &mut out)
}

fn render_dyn(
    report: &Report,
    palette: &Palette,
    verbose: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    for error in &report.errors {
        status_line(out, palette, Status::Error, &error.message)?;
    }
    for transcript in &report.transcripts {
        render_transcript(out, palette, transcript)?;
    }
    for probe in &report.probes {
        render_probe(out, palette, probe, verbose)?;
    }
    for run in &report.fuzz {
        render_fuzz(out, palette, run, verbose)?;
    }
    for stale in &report.stale {
        status_line(
            out,
            palette,
            Status::Stale,
            &format!(
                "{} {}: in the baseline, no longer found",
                stale.law, stale.location
            ),
        )?;
    }
    if let Some(interruption) = &report.interrupted {
        let why = format!("not run: interrupted by {}", interruption.signal_name());
        for path in &interruption.transcripts {
            status_line(
                out,
                palette,
                Status::Skip,
                &format!("{}  {why}", path.display()),
            )?;
        }
        for command in &interruption.probes {
            status_line(
                out,
                palette,
                Status::Skip,
                &format!("laws of {command}  {why}"),
            )?;
        }
    }
    let summary = report.summary();
    writeln!(
        out,
        "{}",
        summary_line(&summary, &report.profiles, report.elapsed)
    )?;
    if report.fails_only_on_core_rules() {
        writeln!(out, "{} {CORE_RULES_ONLY}", palette.emphasis("hint:"))?;
    }
    if let Some(interruption) = &report.interrupted {
        writeln!(
            out,
            "Interrupted by {}: every server was stopped; what finished is reported above",
            interruption.signal_name()
        )?;
    }
    if summary.errors > 0 {
        writeln!(
            out,
            "hint: each ERROR line names input that was not checked: fix a transcript where the line points, \
             or run a server command that does not start by hand to see why"
        )?;
    }
    Ok(())
}

fn status_line(
    out: &mut dyn Write,
    palette: &Palette,
    status: Status,
    rest: &str,
) -> io::Result<()> {
    let word = format!("{:>STATUS_WIDTH$}", status.as_str());
    writeln!(out, "{} {rest}", palette.status(status, &word))
}

fn render_transcript(
    out: &mut dyn Write,
    palette: &Palette,
    transcript: &TranscriptResult,
) -> io::Result<()> {
    let what = transcript.exchanges_in_words();
    status_line(
        out,
        palette,
        transcript.status(),
        &format!(
            "{}  {what}  {}",
            transcript.path.display(),
            palette.quiet(&seconds(transcript.elapsed))
        ),
    )?;
    for graded in &transcript.findings {
        render_finding(out, palette, graded)?;
    }
    for note in &transcript.notes {
        writeln!(out, "{:STATUS_WIDTH$} note: {note}", "")?;
    }
    Ok(())
}

/// The header naming the server command once, then the laws beneath it.
fn render_probe(
    out: &mut dyn Write,
    palette: &Palette,
    probe: &ProbeResult,
    verbose: bool,
) -> io::Result<()> {
    writeln!(
        out,
        "{} {}  {}",
        palette.emphasis(PROBES),
        probe.command,
        palette.quiet(&seconds(probe.elapsed))
    )?;
    let mut held = 0;
    for outcome in &probe.outcomes {
        let status = probe.status(outcome);
        if status == Status::Pass && !verbose {
            held += 1;
            continue;
        }
        let mut rest = outcome.law.as_str().to_owned();
        if let LawStatus::Skipped(reason) = &outcome.status {
            rest.push_str(&format!("  ({reason})"));
        }
        if !outcome.eras.is_empty() {
            rest.push_str(&format!("  ({})", era_verdicts(probe, outcome)));
        }
        status_line(out, palette, status, &rest)?;
        for graded in probe.findings_of(outcome.law) {
            render_finding(out, palette, graded)?;
        }
    }
    if held > 0 {
        let others = if held < probe.outcomes.len() {
            " other"
        } else {
            ""
        };
        status_line(
            out,
            palette,
            Status::Pass,
            &format!("{held}{others} law{} held", plural(held)),
        )?;
    }
    Ok(())
}

/// The verdict of each era a dual-era server fared otherwise in:
/// `legacy era: PASS; modern era: FAIL`, a skip with its reason.
fn era_verdicts(probe: &ProbeResult, outcome: &super::LawOutcome) -> String {
    outcome
        .eras
        .iter()
        .map(|(era, status)| {
            let word = probe.era_status(outcome, *era, status).as_str();
            match status {
                LawStatus::Skipped(reason) => format!("{} era: {word}, {reason}", era.as_str()),
                _ => format!("{} era: {word}", era.as_str()),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn render_finding(out: &mut dyn Write, palette: &Palette, graded: &Graded) -> io::Result<()> {
    let finding = &graded.finding;
    let label = format!("{}[{}]", graded.disposition.as_str(), finding.law);
    let label = match graded.disposition {
        Disposition::Fails => palette.status(Status::Fail, &label),
        Disposition::Warns => palette.status(Status::Warn, &label),
        Disposition::Known | Disposition::Waived | Disposition::Blessed => palette.quiet(&label),
    };
    let indent = " ".repeat(STATUS_WIDTH);
    let place = match &finding.location {
        Location::Transcript { .. } => finding.location.describe(),
        Location::Probe { step, .. } => match finding.era {
            Some(era) => format!("step `{step}` ({} era)", era.as_str()),
            None => format!("step `{step}`"),
        },
    };
    writeln!(out, "{indent} {label} {place}: {}", finding.message)?;
    if finding.law != LawId::TranscriptMatch {
        writeln!(out, "{indent} cites: {}", finding.cites)?;
    }
    if let Some(diff) = &finding.diff {
        for line in diff.lines() {
            writeln!(out, "{}", palette.diff_line(line))?;
        }
    }
    if let Some(hint) = finding
        .hint
        .as_ref()
        .filter(|_| graded.disposition != Disposition::Blessed)
    {
        writeln!(out, "{} {hint}", palette.emphasis("hint:"))?;
    }
    Ok(())
}

/// What the report says when only rules of the `core` profile failed
/// ([`Report::fails_only_on_core_rules`]).
pub(crate) const CORE_RULES_ONLY: &str = "only the core profile's own rules failed (MCP-CORE and \
     REQ-C-032, for servers built on mcp-replay's library): as far as these findings go, the server \
     keeps the MCP specification, which `--profile spec` holds it to alone, as fits a server built \
     otherwise";

/// The summary line: the transcripts and how they fared, the laws (one
/// per law and server command) and how they fared, what else was not
/// checked, the profile, the time.
pub(crate) fn summary_line(summary: &Summary, profiles: &[Profile], elapsed: Duration) -> String {
    let mut parts = Vec::new();
    if summary.transcripts > 0 {
        parts.push(format!(
            "{} transcript{} ({})",
            summary.transcripts,
            plural(summary.transcripts),
            tally(&summary.transcript_tally, "passed")
        ));
    }
    if summary.laws > 0 {
        parts.push(format!(
            "{} law{} of {} server{} ({})",
            summary.laws,
            plural(summary.laws),
            summary.servers,
            plural(summary.servers),
            tally(&summary.law_tally, "held")
        ));
    }
    if summary.errors > 0 {
        parts.push(format!("{} not checked", summary.errors));
    }
    if summary.stale > 0 {
        let entries = if summary.stale == 1 {
            "entry"
        } else {
            "entries"
        };
        parts.push(format!("{} stale baseline {entries}", summary.stale));
    }
    if summary.not_run > 0 {
        parts.push(format!("{} not run", summary.not_run));
    }
    if parts.is_empty() {
        parts.push("nothing checked".to_owned());
    }
    let profile = match profiles {
        [] => String::new(),
        [one] => format!(" under profile {one},"),
        many => format!(
            " under profiles {},",
            many.iter()
                .map(|profile| profile.as_str())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    };
    format!(
        "Summary: {}{profile} in {}",
        parts.join(", "),
        seconds(elapsed)
    )
}

/// A tally in words, the zero counts left out: `19 held, 2 skipped`.
fn tally(tally: &Tally, held: &str) -> String {
    let mut words = Vec::new();
    for (n, what) in [
        (tally.held, held),
        (tally.failed, "failed"),
        (tally.warned, "with warnings"),
        (tally.known, "known"),
        (tally.skipped, "skipped"),
        (tally.waived, "waived"),
    ] {
        if n > 0 {
            words.push(format!("{n} {what}"));
        }
    }
    words.join(", ")
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.3}s", elapsed.as_secs_f64())
}

/// The word of a fuzzed server's header line, in the status column.
const FUZZ: &str = "FUZZ";

/// A fuzz run: the header naming the server, its seed and era; one line
/// per tool with its cases, the findings of its calls beneath; then the
/// laws as under a `PROBES` header.
fn render_fuzz(
    out: &mut dyn Write,
    palette: &Palette,
    run: &FuzzResult,
    verbose: bool,
) -> io::Result<()> {
    let era = match (&run.revision, run.era) {
        (Some(revision), Some(era)) => format!(", {revision} ({} era)", era.as_str()),
        _ => String::new(),
    };
    let calls: usize = run.tools.iter().map(|tool| tool.sent).sum();
    writeln!(
        out,
        "{} {}  seed {}{era}, {calls} call{}  {}",
        palette.emphasis(FUZZ),
        run.command,
        run.seed,
        plural(calls),
        palette.quiet(&seconds(run.elapsed))
    )?;
    let indent = " ".repeat(STATUS_WIDTH);
    for tool in &run.tools {
        let status = run.tool_status(tool);
        let rest = match &tool.skipped {
            Some(reason) => format!("{}  ({reason})", tool.name),
            None => {
                let mut words = format!(
                    "{}  {} case{} ({} valid, {} invalid, {} unjudged)",
                    tool.name,
                    tool.sent,
                    plural(tool.sent),
                    tool.valid,
                    tool.invalid,
                    tool.unjudged
                );
                if tool.valid_is_error > 0 {
                    words.push_str(&format!("; {} valid answered isError", tool.valid_is_error));
                }
                words
            }
        };
        status_line(out, palette, status, &rest)?;
        for graded in run.findings_of_tool(&tool.name) {
            // The case comes before the hint that replays it.
            let mut shown = graded.clone();
            let hint = shown.finding.hint.take();
            render_finding(out, palette, &shown)?;
            if let Some(case) = &graded.finding.fuzz {
                let mut words = format!("{indent} case: {}", case.label);
                match (&case.shrunk_from, case.what.is_empty()) {
                    (Some(from), false) => {
                        words.push_str(&format!(" (shrunk from {from}: {})", case.what));
                    }
                    (Some(from), true) => words.push_str(&format!(" (shrunk from {from})")),
                    (None, false) => words.push_str(&format!(" ({})", case.what)),
                    (None, true) => {}
                }
                if case.count > 1 {
                    words.push_str(&format!("; {} cases failed this way", case.count));
                }
                writeln!(out, "{words}")?;
                for note in &case.notes {
                    writeln!(out, "{indent} note: {note}")?;
                }
            }
            if let Some(hint) = hint {
                writeln!(out, "{} {hint}", palette.emphasis("hint:"))?;
            }
        }
        if let Some(note) = &tool.note {
            writeln!(out, "{indent} note: {note}")?;
        }
        if tool.skipped.is_none() || verbose {
            for feature in &tool.not_generated_for {
                writeln!(out, "{indent} not generated for: {feature}")?;
            }
        }
    }
    let mut held = 0;
    for outcome in &run.outcomes {
        let status = run.status(outcome);
        if status == Status::Pass && !verbose {
            held += 1;
            continue;
        }
        let mut rest = outcome.law.as_str().to_owned();
        if let LawStatus::Skipped(reason) = &outcome.status {
            rest.push_str(&format!("  ({reason})"));
        }
        status_line(out, palette, status, &rest)?;
        for graded in run
            .session_findings()
            .filter(|graded| graded.finding.law == outcome.law)
        {
            render_finding(out, palette, graded)?;
        }
    }
    if held > 0 {
        let others = if held < run.outcomes.len() {
            " other"
        } else {
            ""
        };
        status_line(
            out,
            palette,
            Status::Pass,
            &format!("{held}{others} law{} held", plural(held)),
        )?;
    }
    for note in &run.notes {
        writeln!(out, "{indent} note: {note}")?;
    }
    Ok(())
}
