//! The report for people: one line per transcript, the laws under one
//! header per server command, the findings and diffs of failures beneath,
//! and one `Summary:` line.
//!
//! Laws that held are one count line per server, the way a test runner
//! keeps passing tests out of the way; every other law has its own line.
//! Verbose, every law has its own line.
//!
//! Everything taken from the run (paths, commands, messages, reasons,
//! diffs, tool names) goes out through [`escape::line`] or
//! [`escape::lines`]: no server's bytes steer the terminal or a CI log.

use std::io::{self, Write};
use std::time::Duration;

use super::escape::{self, line as outside};
use super::{
    Disposition, FuzzResult, Graded, HostResult, Location, Palette, ProbeResult, Report, Status,
    Summary, Tally, TranscriptResult,
};
use crate::laws::{LawId, Profile};
use crate::report::{LawStatus, RequirementStatus, plural};

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
        status_line(out, palette, Status::Error, &outside(&error.message))?;
    }
    for transcript in &report.transcripts {
        render_transcript(out, palette, transcript)?;
    }
    for probe in &report.probes {
        render_probe(out, palette, probe, verbose)?;
    }
    for host in &report.hosts {
        render_host(out, palette, host, verbose)?;
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
                outside(&stale.law),
                outside(&stale.location)
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
                &format!("{}  {why}", outside(&path.display().to_string())),
            )?;
        }
        for command in &interruption.probes {
            status_line(
                out,
                palette,
                Status::Skip,
                &format!("laws of {}  {why}", outside(command)),
            )?;
        }
    }
    if verbose {
        render_requirements(out, palette, report)?;
    }
    let summary = report.summary();
    writeln!(
        out,
        "{}",
        summary_line(&summary, &report.profiles, report.elapsed)
    )?;
    if let Some(line) = requirements_line(report) {
        writeln!(out, "{line}")?;
    }
    if report.fails_only_on_core_rules() {
        writeln!(out, "{} {CORE_RULES_ONLY}", palette.emphasis("hint:"))?;
    } else if let Some(line) = core_own_line(report) {
        writeln!(out, "{} {line}", palette.emphasis("hint:"))?;
    }
    if let Some(interruption) = &report.interrupted {
        writeln!(
            out,
            "Interrupted by {}: every server was stopped; what finished is reported above",
            interruption.signal_name()
        )?;
    }
    if summary.errors > 0 && !report.fuzz.is_empty() && report.transcripts.is_empty() {
        writeln!(
            out,
            "hint: each ERROR line says what was not fuzzed and why; run a server that does not start by hand to see why it does not"
        )?;
    } else if summary.errors > 0 {
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
            outside(&transcript.path.display().to_string()),
            palette.quiet(&seconds(transcript.elapsed))
        ),
    )?;
    for graded in &transcript.findings {
        render_finding(out, palette, graded)?;
    }
    for note in &transcript.notes {
        writeln!(out, "{:STATUS_WIDTH$} note: {}", "", outside(note))?;
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
        outside(&probe.command),
        palette.quiet(&seconds(probe.elapsed))
    )?;
    let mut held = 0;
    for outcome in &probe.outcomes {
        let status = probe.status(outcome);
        if status == Status::Pass && !verbose && outcome.notes.is_empty() {
            held += 1;
            continue;
        }
        let mut rest = outcome.law.as_str().to_owned();
        if let LawStatus::Skipped(reason) = &outcome.status {
            rest.push_str(&format!("  ({})", outside(reason)));
        }
        if !outcome.eras.is_empty() {
            rest.push_str(&format!("  ({})", era_verdicts(probe, outcome)));
        }
        status_line(out, palette, status, &rest)?;
        for graded in probe.findings_of(outcome.law) {
            render_finding(out, palette, graded)?;
        }
        for graded in probe.folded_into(outcome.law) {
            render_folded(out, graded)?;
        }
        for note in &outcome.notes {
            writeln!(out, "{:STATUS_WIDTH$} note: {note}", "")?;
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

/// The word of a judged host's header line, in the status column.
const HOST: &str = "HOST";

/// The header naming the host and what it was judged from, then its laws:
/// those that held counted on one line, those with nothing to judge them
/// by on another (each on its own, with the reason, when verbose), every
/// other one on its own line with its findings.
fn render_host(
    out: &mut dyn Write,
    palette: &Palette,
    host: &HostResult,
    verbose: bool,
) -> io::Result<()> {
    writeln!(
        out,
        "{} {}  {}",
        palette.emphasis(HOST),
        outside(host.name()),
        outside(&host.source)
    )?;
    let (mut held, mut skipped) = (0, 0);
    for outcome in &host.outcomes {
        let status = host.status(outcome);
        match status {
            Status::Pass if !verbose => held += 1,
            Status::Skip if !verbose => skipped += 1,
            _ => {
                let mut rest = outcome.law.as_str().to_owned();
                if let LawStatus::Skipped(reason) = &outcome.status {
                    rest.push_str(&format!("  ({})", outside(reason)));
                }
                status_line(out, palette, status, &rest)?;
                for graded in host.findings_of(outcome.law) {
                    render_finding(out, palette, graded)?;
                }
                for graded in host.folded_into(outcome.law) {
                    render_folded(out, graded)?;
                }
            }
        }
    }
    if held > 0 {
        let others = if held + skipped < host.outcomes.len() {
            " other"
        } else {
            ""
        };
        status_line(
            out,
            palette,
            Status::Pass,
            &format!("{held}{others} host law{} held", plural(held)),
        )?;
    }
    if skipped > 0 {
        status_line(
            out,
            palette,
            Status::Skip,
            &format!(
                "{skipped} host law{} with nothing in the session to judge {} by (--verbose says why)",
                plural(skipped),
                if skipped == 1 { "it" } else { "them" }
            ),
        )?;
    }
    for note in &host.notes {
        writeln!(out, "{:STATUS_WIDTH$} note: {}", "", outside(note))?;
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
                LawStatus::Skipped(reason) => {
                    format!("{} era: {word}, {}", era.as_str(), outside(reason))
                }
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
        Location::Transcript { .. } => outside(&finding.location.describe()).into_owned(),
        Location::Probe { step, .. } => match finding.era {
            Some(era) => format!("step `{}` ({} era)", outside(step), era.as_str()),
            None => format!("step `{}`", outside(step)),
        },
    };
    writeln!(
        out,
        "{indent} {label} {place}: {}",
        outside(&finding.message)
    )?;
    let also = finding.also_laws();
    if !also.is_empty() {
        let names: Vec<&str> = also.iter().map(|law| law.as_str()).collect();
        writeln!(out, "{indent} also breaks: {}", names.join(", "))?;
    }
    if !finding.repeats.is_empty() {
        let places: Vec<String> = finding.repeats.iter().map(repeat_place).collect();
        writeln!(
            out,
            "{indent} seen {} times: also at {}",
            finding.occurrences(),
            places.join(", ")
        )?;
    }
    if finding.law != LawId::TranscriptMatch {
        writeln!(out, "{indent} cites: {}", outside(&finding.cites))?;
    }
    if let Some(diff) = &finding.diff {
        for line in escape::lines(diff).lines() {
            writeln!(out, "{}", palette.diff_line(line))?;
        }
    }
    if let Some(hint) = finding
        .hint
        .as_ref()
        .filter(|_| graded.disposition != Disposition::Blessed)
    {
        writeln!(out, "{} {}", palette.emphasis("hint:"), outside(hint))?;
    }
    Ok(())
}

/// Where a finding was made again, in words.
fn repeat_place(location: &Location) -> String {
    match location {
        Location::Transcript { .. } => outside(&location.describe()).into_owned(),
        Location::Probe { step, .. } => format!("step `{}`", outside(step)),
    }
}

/// The line under a law broken by the cause of another law's finding,
/// which names it ([`crate::report::Finding::also`]).
fn render_folded(out: &mut dyn Write, graded: &Graded) -> io::Result<()> {
    let finding = &graded.finding;
    let indent = " ".repeat(STATUS_WIDTH);
    let place = match &finding.location {
        Location::Transcript { .. } => outside(&finding.location.describe()).into_owned(),
        Location::Probe { step, .. } => format!("step `{}`", outside(step)),
    };
    writeln!(
        out,
        "{indent} one cause: see {}[{}] at {place}",
        graded.disposition.as_str(),
        finding.law
    )
}

/// What the report says when only rules of the `core` profile failed
/// ([`Report::fails_only_on_core_rules`]).
pub(crate) const CORE_RULES_ONLY: &str = "only the core profile's own rules failed (MCP-CORE and \
     REQ-C-032, for servers built on mcp-replay's library): as far as these findings go, the server \
     keeps the MCP specification, which `--profile spec` holds it to alone, as fits a server built \
     otherwise";

/// On a run that fails on rules of both kinds, which failing laws are the
/// `core` profile's own; `None` when none is, or all are (then
/// [`CORE_RULES_ONLY`] says so).
pub(crate) fn core_own_line(report: &Report) -> Option<String> {
    let (laws, failing) = report.core_own_failures();
    if laws.is_empty() || failing == 0 {
        return None;
    }
    let names: Vec<String> = laws.iter().map(|law| format!("`{law}`")).collect();
    Some(format!(
        "the failures of {} are the core profile's own rules (MCP-CORE and REQ-C-032, for servers built on mcp-replay's library); the others break the MCP specification itself, as `--profile spec` shows alone",
        names.join(", ")
    ))
}

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
    if summary.host_laws > 0 {
        parts.push(format!(
            "{} host law{} of {} host{} ({})",
            summary.host_laws,
            plural(summary.host_laws),
            summary.hosts,
            plural(summary.hosts),
            tally(&summary.host_tally, "held")
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

/// The count line of the requirement outcomes: `Requirements: 58 of the
/// registry for 1 server: 12 held, 1 failed, 30 not observed, 15 not
/// applicable`, and the host's after the servers' (`; 101 of 1 host: 9
/// held, …`); `None` when none was graded.
pub(crate) fn requirements_line(report: &Report) -> Option<String> {
    use crate::laws::registry::Side;
    if report.requirements.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    for (side, what) in [(Side::Server, "server"), (Side::Host, "host")] {
        let tally = report.requirement_tally_of(side);
        if tally.total == 0 {
            continue;
        }
        let subjects: std::collections::BTreeSet<&str> = report
            .requirements
            .iter()
            .filter(|outcome| outcome.side == side)
            .map(|outcome| outcome.subject.as_str())
            .collect();
        let mut words = Vec::new();
        for (n, what) in [
            (tally.held, "held"),
            (tally.failed, "failed"),
            (tally.warned, "warned"),
            (tally.waived, "waived"),
            (tally.not_observed, "not observed"),
            (tally.not_applicable, "not applicable"),
        ] {
            if n > 0 {
                words.push(format!("{n} {what}"));
            }
        }
        parts.push(format!(
            "{} of {} {what}{}: {}",
            tally.total,
            subjects.len(),
            plural(subjects.len()),
            words.join(", ")
        ));
    }
    let mut line = format!("Requirements: {}", parts.join("; "));
    if report.unobserved_fails() {
        line.push_str(" (--deny-unobserved: not observed fails the run)");
    }
    Some(line)
}

/// Each requirement's outcome, one line each, per server (`--verbose`).
fn render_requirements(out: &mut dyn Write, palette: &Palette, report: &Report) -> io::Result<()> {
    let mut subject: Option<&str> = None;
    for outcome in &report.requirements {
        if subject != Some(outcome.subject.as_str()) {
            subject = Some(&outcome.subject);
            writeln!(
                out,
                "{} {}",
                palette.emphasis(&format!("{:>STATUS_WIDTH$}", "REQS")),
                outside(&outcome.subject)
            )?;
        }
        let status = match &outcome.status {
            RequirementStatus::Held => Status::Pass,
            RequirementStatus::Failed => Status::Fail,
            RequirementStatus::Warned => Status::Warn,
            RequirementStatus::Waived => Status::Waived,
            RequirementStatus::NotObserved(_) if report.denies_unobserved(outcome) => Status::Fail,
            RequirementStatus::NotObserved(_) | RequirementStatus::NotApplicable(_) => Status::Skip,
        };
        let law = outcome
            .law
            .map_or("no law".to_owned(), |law| law.to_string());
        let mut rest = format!("{} {} ({law})", outcome.id, outcome.level);
        match &outcome.status {
            RequirementStatus::NotObserved(why) => {
                rest.push_str(&format!("  not observed: {}", outside(why)));
            }
            RequirementStatus::NotApplicable(why) => {
                rest.push_str(&format!("  not applicable: {}", outside(why)));
            }
            _ => {}
        }
        write!(out, "  ")?;
        status_line(out, palette, status, &rest)?;
    }
    Ok(())
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
        (Some(revision), Some(era)) => {
            format!(", {} ({} era)", outside(revision), era.as_str())
        }
        _ => String::new(),
    };
    let calls: usize = run.tools.iter().map(|tool| tool.sent).sum();
    writeln!(
        out,
        "{} {}  seed {}{era}, {calls} call{}  {}",
        palette.emphasis(FUZZ),
        outside(&run.command),
        run.seed,
        plural(calls),
        palette.quiet(&seconds(run.elapsed))
    )?;
    let indent = " ".repeat(STATUS_WIDTH);
    for tool in &run.tools {
        let status = run.tool_status(tool);
        let name = outside(&tool.name);
        let rest = match &tool.skipped {
            Some(reason) => format!("{name}  ({})", outside(reason)),
            None => {
                let mut words = format!(
                    "{name}  {} case{} ({} valid, {} invalid, {} unjudged)",
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
                let mut words = format!("{indent} case: {}", outside(&case.label));
                let what = outside(&case.what);
                match (&case.shrunk_from, case.what.is_empty()) {
                    (Some(from), false) => {
                        words.push_str(&format!(
                            " (shrunk from {}: {what})",
                            outside(&from.to_string())
                        ));
                    }
                    (Some(from), true) => {
                        words.push_str(&format!(" (shrunk from {})", outside(&from.to_string())));
                    }
                    (None, false) => words.push_str(&format!(" ({what})")),
                    (None, true) => {}
                }
                if case.count > 1 {
                    words.push_str(&format!("; {} cases failed this way", case.count));
                }
                writeln!(out, "{words}")?;
                for note in &case.notes {
                    writeln!(out, "{indent} note: {}", outside(note))?;
                }
            }
            if let Some(hint) = hint {
                writeln!(out, "{} {}", palette.emphasis("hint:"), outside(&hint))?;
            }
        }
        if let Some(note) = &tool.note {
            writeln!(out, "{indent} note: {}", outside(note))?;
        }
        if tool.skipped.is_none() || verbose {
            for feature in &tool.not_generated_for {
                writeln!(out, "{indent} not generated for: {}", outside(feature))?;
            }
        }
    }
    let mut held = 0;
    for outcome in &run.outcomes {
        let status = run.status(outcome);
        if status == Status::Pass && !verbose && outcome.notes.is_empty() {
            held += 1;
            continue;
        }
        let mut rest = outcome.law.as_str().to_owned();
        if let LawStatus::Skipped(reason) = &outcome.status {
            rest.push_str(&format!("  ({})", outside(reason)));
        }
        status_line(out, palette, status, &rest)?;
        for graded in run
            .session_findings()
            .filter(|graded| graded.finding.law == outcome.law)
        {
            render_finding(out, palette, graded)?;
        }
        for note in &outcome.notes {
            writeln!(out, "{indent} note: {note}")?;
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
        writeln!(out, "{indent} note: {}", outside(note))?;
    }
    Ok(())
}
