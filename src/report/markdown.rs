//! The report for a CI job's summary page: Markdown, as GitHub renders
//! `$GITHUB_STEP_SUMMARY` (and GitLab or Gitea render a Markdown artefact).
//!
//! A heading with the run's verdict and the summary line, one table with a
//! row per transcript and per law and server command, then each finding
//! folded in a `<details>` block whose summary is the finding's line and
//! whose body holds the citation, the diff and the hint. Everything taken
//! from the run (paths, commands, messages, diffs) is escaped, so no server
//! output can break the table or inject markup.

use std::io::{self, Write};

use super::{Graded, LawStatus, Location, Report, Status, plural};
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
    if report.fails_only_on_core_rules() {
        writeln!(out, "{}", text(super::human::CORE_RULES_ONLY))?;
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
                    if n == 0 {
                        String::new()
                    } else {
                        format!("{n} finding{}", plural(n))
                    }
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
        .collect();
    if !findings.is_empty() {
        writeln!(out)?;
        writeln!(out, "### Findings")?;
        for (command, graded) in findings {
            writeln!(out)?;
            render_finding(out, command, graded)?;
        }
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
        let lines: Vec<&str> = diff.lines().collect();
        let fence = fence(diff);
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

/// `raw` as text that Markdown and HTML alike show as it is, on one line.
fn text(raw: &str) -> String {
    let mut escaped = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '|' => escaped.push_str("&#124;"),
            '`' => escaped.push_str("&#96;"),
            // Entities, not backslashes: these lines are read as HTML as
            // well as Markdown (a `<summary>` line is raw HTML), and a
            // backslash shows there as it is.
            '*' | '_' | '[' | ']' | '\\' | '#' | '~' => {
                escaped.push_str(&format!("&#{};", u32::from(c)));
            }
            '\n' | '\r' => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    escaped
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
