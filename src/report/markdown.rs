//! The report for a CI job's summary page: Markdown, as GitHub renders
//! `$GITHUB_STEP_SUMMARY` (and GitLab or Gitea render a Markdown artefact).
//!
//! A heading with the run's verdict and the summary line, one table with a
//! row per transcript and per law and server command, a table of the hosts
//! judged (a row per host, and one per host law it broke), then each finding
//! folded in a `<details>` block whose summary is the finding's line and
//! whose body holds the citation, the diff and the hint. Everything taken
//! from the run (paths, commands, messages, diffs) is escaped
//! ([`escape`](super::escape)), so no server output can break the table,
//! inject markup, or hold a control character or a workflow command.

use std::io::{self, Write};

use super::{Graded, LawStatus, Location, Report, RequirementStatus, Status, plural};
use crate::laws::LawId;

/// A summary page holds at most 1 MiB on GitHub; a diff longer than this
/// many lines is cut there, and the whole of it stays in the job's log.
const DIFF_LINES: usize = 200;

/// Writes the Markdown summary of `report` to `out`.
///
/// # Errors
///
/// The first write error.
pub fn render(report: &Report, mut out: impl Write) -> io::Result<()> {
    render_dyn(report, &mut out)
}

fn render_dyn(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let summary = report.summary();
    let verdict = match report.exit_code() {
        super::EXIT_OK => "all held",
        super::EXIT_FINDINGS => "failed",
        _ => "input not checked",
    };
    let command = match (
        report.fuzz.is_empty(),
        report.transcripts.is_empty() && report.probes.is_empty(),
    ) {
        (false, true) => "fuzz",
        _ => "check",
    };
    writeln!(out, "## mcp-replay {command}: {verdict}")?;
    writeln!(out)?;
    writeln!(
        out,
        "{}",
        text(&super::human::summary_line(
            &summary,
            &report.profiles,
            report.elapsed
        ))
    )?;
    writeln!(out)?;
    if let Some(line) = super::human::requirements_line(report) {
        writeln!(out, "{}", text(&line))?;
        writeln!(out)?;
    }
    if report.fails_only_on_core_rules() {
        writeln!(out, "{}", text(super::human::CORE_RULES_ONLY))?;
        writeln!(out)?;
    } else if let Some(line) = super::human::core_own_line(report) {
        writeln!(out, "{}", text(&line))?;
        writeln!(out)?;
    }

    writeln!(out, "| status | transcript or law | server | result |")?;
    writeln!(out, "|---|---|---|---|")?;
    for error in &report.errors {
        let what = error
            .path
            .as_ref()
            .map(|path| code(&path.display().to_string()))
            .unwrap_or_default();
        row(out, Status::Error, &what, "", &text(&error.message))?;
    }
    for transcript in &report.transcripts {
        let result = transcript.exchanges_in_words();
        row(
            out,
            transcript.status(),
            &code(&transcript.path.display().to_string()),
            &code(&transcript.command),
            &result,
        )?;
    }
    for probe in &report.probes {
        for outcome in &probe.outcomes {
            let status = probe.status(outcome);
            let result = match &outcome.status {
                LawStatus::Skipped(reason) => text(reason),
                _ => {
                    let n = probe.findings_of(outcome.law).count();
                    let mut words = Vec::new();
                    if n > 0 {
                        words.push(format!("{n} finding{}", plural(n)));
                    }
                    words.extend(one_cause(probe.folded_into(outcome.law)));
                    if !outcome.notes.is_empty() {
                        words.push(not_judged(outcome.notes.len()));
                    }
                    words.join(", ")
                }
            };
            row(
                out,
                status,
                &code(outcome.law.as_str()),
                &code(&probe.command),
                &result,
            )?;
        }
    }
    for run in &report.fuzz {
        for tool in &run.tools {
            let result = match &tool.skipped {
                Some(reason) => format!("not called: {}", text(reason)),
                None => {
                    let n = run.findings_of_tool(&tool.name).count();
                    let mut words = format!("{} case{}", tool.sent, plural(tool.sent));
                    if n > 0 {
                        words.push_str(&format!(", {n} finding{}", plural(n)));
                    }
                    words
                }
            };
            row(
                out,
                run.tool_status(tool),
                &format!("fuzz {}", code(&tool.name)),
                &code(&run.command),
                &result,
            )?;
        }
        for outcome in &run.outcomes {
            let result = match &outcome.status {
                LawStatus::Skipped(reason) => text(reason),
                _ if !outcome.notes.is_empty() => {
                    format!("seed {}, {}", run.seed, not_judged(outcome.notes.len()))
                }
                _ => format!("seed {}", run.seed),
            };
            row(
                out,
                run.status(outcome),
                &code(outcome.law.as_str()),
                &code(&run.command),
                &result,
            )?;
        }
    }
    for stale in &report.stale {
        row(
            out,
            Status::Stale,
            &code(&stale.law),
            "",
            &format!(
                "{}: in the baseline, no longer found",
                text(&stale.location)
            ),
        )?;
    }

    if !report.hosts.is_empty() {
        // The hosts apart from the servers: their own table.
        writeln!(out)?;
        writeln!(out, "### Host laws")?;
        writeln!(out)?;
        writeln!(out, "| status | host or host law | judged from | result |")?;
        writeln!(out, "|---|---|---|---|")?;
        for host in &report.hosts {
            let mut tally = super::Tally::default();
            for outcome in &host.outcomes {
                tally.add(host.status(outcome));
            }
            let result = [
                (tally.held, "held"),
                (tally.failed, "failed"),
                (tally.warned, "with warnings"),
                (tally.known, "known"),
                (tally.skipped, "skipped"),
                (tally.waived, "waived"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join(", ");
            row(
                out,
                host.overall(),
                &text(host.name()),
                &code(&host.source),
                &result,
            )?;
            for outcome in &host.outcomes {
                let status = host.status(outcome);
                if matches!(status, Status::Pass | Status::Skip) {
                    continue;
                }
                let n = host.findings_of(outcome.law).count();
                let mut words = vec![format!("{n} finding{}", plural(n))];
                words.extend(one_cause(host.folded_into(outcome.law)));
                row(
                    out,
                    status,
                    &code(outcome.law.as_str()),
                    &code(&host.source),
                    &words.join(", "),
                )?;
            }
        }
    }

    let findings: Vec<(&str, &Graded)> = report
        .transcripts
        .iter()
        .flat_map(|t| t.findings.iter().map(|g| (t.command.as_str(), g)))
        .chain(
            report
                .probes
                .iter()
                .flat_map(|p| p.findings.iter().map(|g| (p.command.as_str(), g))),
        )
        .chain(
            report
                .fuzz
                .iter()
                .flat_map(|run| run.findings.iter().map(|g| (run.command.as_str(), g))),
        )
        .chain(
            report
                .hosts
                .iter()
                .flat_map(|host| host.findings.iter().map(|g| (host.source.as_str(), g))),
        )
        .collect();
    if !findings.is_empty() {
        writeln!(out)?;
        writeln!(out, "### Findings")?;
        for (command, graded) in findings {
            writeln!(out)?;
            render_finding(out, command, graded)?;
        }
    }
    render_requirements(out, report)
}

/// The requirements that were not held, in a closed `<details>` per
/// server: failed and warned first, then those not observed, with why.
fn render_requirements(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let subjects: Vec<&str> = report
        .requirements
        .iter()
        .map(|outcome| outcome.subject.as_str())
        .fold(Vec::new(), |mut subjects, subject| {
            if subjects.last() != Some(&subject) {
                subjects.push(subject);
            }
            subjects
        });
    for subject in subjects {
        let outcomes: Vec<_> = report
            .requirements
            .iter()
            .filter(|outcome| outcome.subject == subject)
            .filter(|outcome| {
                !matches!(
                    outcome.status,
                    RequirementStatus::Held | RequirementStatus::NotApplicable(_)
                )
            })
            .collect();
        if outcomes.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(
            out,
            "<details><summary>Requirements of {} not held: {}</summary>",
            text(subject),
            outcomes.len()
        )?;
        writeln!(out)?;
        writeln!(out, "| requirement | level | law | outcome |")?;
        writeln!(out, "|---|---|---|---|")?;
        let mut sorted = outcomes;
        sorted.sort_by_key(|outcome| match outcome.status {
            RequirementStatus::Failed => 0,
            RequirementStatus::Warned => 1,
            _ => 2,
        });
        for outcome in sorted {
            let law = outcome
                .law
                .map_or("no law".to_owned(), |law| law.to_string());
            let result = match outcome.status.reason() {
                Some(why) => format!("{}: {why}", outcome.status),
                None => outcome.status.to_string(),
            };
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                text(outcome.id),
                outcome.level,
                text(&law),
                text(&result)
            )?;
        }
        writeln!(out)?;
        writeln!(out, "</details>")?;
    }
    Ok(())
}

fn row(
    out: &mut dyn Write,
    status: Status,
    what: &str,
    server: &str,
    result: &str,
) -> io::Result<()> {
    writeln!(
        out,
        "| {} {} | {what} | {server} | {result} |",
        mark(status),
        status.as_str()
    )
}

/// A sign for each status, so a long table can be read at a glance.
fn mark(status: Status) -> &'static str {
    match status {
        Status::Pass => "✅",
        Status::Fail | Status::Error | Status::Stale => "❌",
        Status::Warn => "⚠️",
        Status::Known | Status::Waived | Status::Skip => "➖",
    }
}

/// For a law broken by the cause of other laws' findings: `one cause
/// with `law``, once per law.
fn one_cause<'a>(folded: impl Iterator<Item = &'a Graded>) -> Option<String> {
    let mut laws: Vec<String> = folded
        .map(|graded| code(graded.finding.law.as_str()))
        .collect();
    laws.dedup();
    (!laws.is_empty()).then(|| format!("one cause with {}", laws.join(", ")))
}

fn render_finding(out: &mut dyn Write, command: &str, graded: &Graded) -> io::Result<()> {
    let finding = &graded.finding;
    let place = match &finding.location {
        Location::Transcript { .. } => code(&finding.location.describe()),
        Location::Probe { step, .. } => format!("{}, step {}", code(command), code(step)),
    };
    writeln!(
        out,
        "<details><summary><b>{}[{}]</b> {place}: {}</summary>",
        graded.disposition.as_str(),
        finding.law,
        text(&finding.message)
    )?;
    writeln!(out)?;
    let also = finding.also_laws();
    if !also.is_empty() {
        let names: Vec<String> = also.iter().map(|law| code(law.as_str())).collect();
        writeln!(out, "also breaks: {}", names.join(", "))?;
        writeln!(out)?;
    }
    if !finding.repeats.is_empty() {
        let places: Vec<String> = finding
            .repeats
            .iter()
            .map(|location| match location {
                Location::Transcript { .. } => code(&location.describe()),
                Location::Probe { step, .. } => format!("step {}", code(step)),
            })
            .collect();
        writeln!(
            out,
            "seen {} times: also at {}",
            finding.occurrences(),
            places.join(", ")
        )?;
        writeln!(out)?;
    }
    if finding.law != LawId::TranscriptMatch {
        writeln!(out, "cites: {}", text(&finding.cites))?;
        writeln!(out)?;
    }
    if let Some(case) = &finding.fuzz {
        writeln!(
            out,
            "arguments of {}: {} ({}{})",
            code(&case.tool),
            code(&case.arguments_text()),
            text(&case.label),
            match case.count {
                1 => String::new(),
                n => format!("; {n} cases failed this way"),
            }
        )?;
        writeln!(out)?;
    }
    if let Some(diff) = &finding.diff {
        // A code block shows its lines as they are: escaped as plain text.
        let diff = super::escape::lines(diff);
        let lines: Vec<&str> = diff.lines().collect();
        let fence = fence(&diff);
        writeln!(out, "{fence}diff")?;
        for line in lines.iter().take(DIFF_LINES) {
            writeln!(out, "{line}")?;
        }
        writeln!(out, "{fence}")?;
        if lines.len() > DIFF_LINES {
            writeln!(
                out,
                "\n{} more lines of the diff are in the job's log.",
                lines.len() - DIFF_LINES
            )?;
        }
        writeln!(out)?;
    }
    if let Some(hint) = finding
        .hint
        .as_ref()
        .filter(|_| graded.disposition != super::Disposition::Blessed)
    {
        writeln!(out, "hint: {}", text(hint))?;
        writeln!(out)?;
    }
    writeln!(out, "</details>")
}

/// A code fence longer than any run of backticks in `body`.
fn fence(body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

/// `text` as inline code that survives a table cell and HTML: `<code>`
/// rather than backticks, since a backtick inside cannot be escaped.
fn code(text_: &str) -> String {
    format!("<code>{}</code>", text(text_))
}

/// `raw` as text that Markdown and HTML alike show as it is, on one line
/// ([`escape::markdown`](super::escape::markdown)).
fn text(raw: &str) -> String {
    super::escape::markdown(raw)
}

/// How many things a law could not decide, in words.
fn not_judged(n: usize) -> String {
    format!("{n} not judged (see the notes of the full report)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_keeps_table_cells_and_markup_intact() {
        assert_eq!(
            text("a | b <script> `x` *y* [z](u)\nnext"),
            "a &#124; b &lt;script&gt; &#96;x&#96; &#42;y&#42; &#91;z&#93;(u) next"
        );
    }

    #[test]
    fn a_fence_is_longer_than_the_backticks_it_holds() {
        assert_eq!(fence("no ticks"), "```");
        assert_eq!(fence("a ```` b"), "`````");
    }
}
