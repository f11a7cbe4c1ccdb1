//! The report for CI systems: JUnit XML.
//!
//! A `<testsuite>` per transcript, with a `<testcase>` per exchange (and one
//! per finding that belongs to no exchange); a `<testsuite>` per probed
//! server command, with a `<testcase>` per law; a `<testsuite>` per fuzzed
//! server command, with a `<testcase>` per tool (skipped for a tool not
//! called) and one for the session's own findings. Failures carry the finding's
//! message, citation and plain diff; warnings go to `<system-out>`. Input
//! that could not be checked (a malformed transcript, a server that cannot
//! start) is an `<error>`: no law was judged, so nothing failed. A run a
//! signal stopped has one more suite, named by the signal, with a skipped
//! `<testcase>` per transcript and probe run that did not run.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::Duration;

use super::{Disposition, ExchangeStatus, Graded, LawStatus, Location, Report, Status};

/// Writes the JUnit XML of `report` to `out`.
///
/// # Errors
///
/// The first write error.
pub fn render(report: &Report, mut out: impl Write) -> io::Result<()> {
    out.write_all(to_xml(report).as_bytes())
}

/// One `<testcase>` being built.
struct Case {
    name: String,
    classname: String,
    failures: Vec<String>,
    /// Why the case could not run at all.
    error: Option<String>,
    skipped: Option<String>,
    output: Vec<String>,
}

impl Case {
    fn new(name: String, classname: &str) -> Case {
        Case {
            name,
            classname: classname.to_owned(),
            failures: Vec::new(),
            error: None,
            skipped: None,
            output: Vec::new(),
        }
    }

    fn add(&mut self, graded: &Graded) {
        let text = finding_text(graded);
        if graded.disposition == Disposition::Fails {
            self.failures.push(text);
        } else {
            self.output.push(text);
        }
    }
}

fn finding_text(graded: &Graded) -> String {
    let finding = &graded.finding;
    let mut text = format!(
        "{}[{}] {}: {}\ncites: {}\n",
        graded.disposition.as_str(),
        finding.law,
        finding.location.describe(),
        finding.message,
        finding.cites
    );
    if let Some(case) = &finding.fuzz {
        text.push_str(&format!(
            "arguments: {} ({})\n",
            case.arguments_text(),
            case.label
        ));
    }
    if let Some(diff) = &finding.diff {
        text.push_str(diff);
    }
    if let Some(hint) = &finding.hint {
        text.push_str(&format!("hint: {hint}\n"));
    }
    text
}

fn to_xml(report: &Report) -> String {
    let mut suites: Vec<(String, Option<Duration>, Vec<Case>)> = Vec::new();
    if !report.errors.is_empty() {
        let cases = report
            .errors
            .iter()
            .map(|error| {
                let name = error
                    .path
                    .as_ref()
                    .map_or_else(|| "input".to_owned(), |path| path.display().to_string());
                let mut case = Case::new(name, "inputs");
                case.error = Some(error.message.clone());
                case
            })
            .collect();
        suites.push(("inputs".to_owned(), None, cases));
    }
    for transcript in &report.transcripts {
        let suite = transcript.path.display().to_string();
        let mut cases: Vec<Case> = transcript
            .exchanges
            .iter()
            .map(|exchange| {
                let mut case = Case::new(
                    format!(
                        "{} id={} (line {})",
                        exchange.method, exchange.id, exchange.line
                    ),
                    &suite,
                );
                match exchange.status {
                    ExchangeStatus::NotSent => {
                        case.skipped = Some("not sent: the replay stopped before it".to_owned());
                    }
                    ExchangeStatus::Cancelled => {
                        case.skipped = Some("cancelled by the host in the recording".to_owned());
                    }
                    _ => {}
                }
                case
            })
            .collect();
        for graded in &transcript.findings {
            let line = match graded.finding.location {
                Location::Transcript { line, .. } => Some(line),
                Location::Probe { .. } => None,
            };
            let owner = transcript.exchanges.iter().position(|exchange| {
                Some(exchange.line) == line || exchange.answer_line == line && line.is_some()
            });
            match owner {
                Some(index) => cases[index].add(graded),
                None => {
                    let mut case = Case::new(
                        format!(
                            "{} ({})",
                            graded.finding.law,
                            graded.finding.location.describe()
                        ),
                        &suite,
                    );
                    case.add(graded);
                    cases.push(case);
                }
            }
        }
        for note in &transcript.notes {
            if let Some(case) = cases.first_mut() {
                case.output.push(format!("note: {note}\n"));
            }
        }
        suites.push((suite, Some(transcript.elapsed), cases));
    }
    for probe in &report.probes {
        let suite = format!("laws: {}", probe.command);
        let cases = probe
            .outcomes
            .iter()
            .map(|outcome| {
                let mut case = Case::new(outcome.law.as_str().to_owned(), &suite);
                match (&outcome.status, probe.status(outcome)) {
                    (LawStatus::Skipped(reason), _) => case.skipped = Some(reason.clone()),
                    (LawStatus::Waived, _) => case.skipped = Some("waived".to_owned()),
                    (_, Status::Fail) if probe.findings_of(outcome.law).next().is_none() => {
                        case.failures.push(format!("{} failed", outcome.law));
                    }
                    _ => {}
                }
                for graded in probe.findings_of(outcome.law) {
                    case.add(graded);
                }
                case
            })
            .collect();
        suites.push((suite, Some(probe.elapsed), cases));
    }
    for run in &report.fuzz {
        let suite = format!("fuzz: {} (seed {})", run.command, run.seed);
        let mut cases: Vec<Case> = run
            .tools
            .iter()
            .map(|tool| {
                let mut case = Case::new(tool.name.clone(), &suite);
                match &tool.skipped {
                    Some(reason) => case.skipped = Some(reason.clone()),
                    None => case.output.push(format!(
                        "{} cases: {} valid, {} invalid, {} unjudged; {} valid answered isError\n",
                        tool.sent, tool.valid, tool.invalid, tool.unjudged, tool.valid_is_error
                    )),
                }
                for graded in run.findings_of_tool(&tool.name) {
                    case.add(graded);
                }
                case
            })
            .collect();
        let mut session = Case::new("session".to_owned(), &suite);
        for graded in run.session_findings() {
            session.add(graded);
        }
        if !(session.failures.is_empty() && session.output.is_empty()) {
            cases.push(session);
        }
        suites.push((suite, Some(run.elapsed), cases));
    }
    if !report.stale.is_empty() {
        let cases = report
            .stale
            .iter()
            .map(|stale| {
                let mut case = Case::new(format!("{} {}", stale.law, stale.location), "baseline");
                case.failures.push(
                    "in the baseline, no longer found: remove it from the baseline".to_owned(),
                );
                case
            })
            .collect();
        suites.push(("baseline".to_owned(), None, cases));
    }
    if let Some(interruption) = &report.interrupted {
        let suite = format!("interrupted by {}", interruption.signal_name());
        let why = format!("not run: interrupted by {}", interruption.signal_name());
        let names = (interruption.transcripts.iter())
            .map(|path| path.display().to_string())
            .chain(interruption.probes.iter().map(|c| format!("laws: {c}")));
        let cases = names
            .map(|name| {
                let mut case = Case::new(name, &suite);
                case.skipped = Some(why.clone());
                case
            })
            .collect();
        suites.push((suite, None, cases));
    }

    let count = |cases: &[Case], what: fn(&Case) -> bool| cases.iter().filter(|c| what(c)).count();
    let all: Vec<&Case> = suites.iter().flat_map(|(_, _, cases)| cases).collect();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"mcp-replay\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
        all.len(),
        all.iter().filter(|c| !c.failures.is_empty()).count(),
        all.iter().filter(|c| c.error.is_some()).count(),
        all.iter().filter(|c| c.skipped.is_some()).count(),
        seconds(report.elapsed)
    );
    for (name, time, cases) in &suites {
        let _ = write!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"",
            escape(name),
            cases.len(),
            count(cases, |c| !c.failures.is_empty()),
            count(cases, |c| c.error.is_some()),
            count(cases, |c| c.skipped.is_some()),
        );
        if let Some(time) = time {
            let _ = write!(xml, " time=\"{}\"", seconds(*time));
        }
        xml.push_str(">\n");
        for case in cases {
            write_case(&mut xml, case);
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

fn write_case(xml: &mut String, case: &Case) {
    let _ = write!(
        xml,
        "    <testcase name=\"{}\" classname=\"{}\"",
        escape(&case.name),
        escape(&case.classname)
    );
    if case.failures.is_empty()
        && case.error.is_none()
        && case.skipped.is_none()
        && case.output.is_empty()
    {
        xml.push_str("/>\n");
        return;
    }
    xml.push_str(">\n");
    // One <failure> per test case, whatever the number of findings: many
    // readers show only the first element, or reject a second one.
    if let Some(first) = case.failures.first() {
        let first = first.lines().next().unwrap_or_default();
        let message = match case.failures.len() {
            1 => first.to_owned(),
            n => format!("{n} findings, the first: {first}"),
        };
        let _ = writeln!(
            xml,
            "      <failure message=\"{}\" type=\"finding\">{}</failure>",
            escape(&message),
            escape(&case.failures.join("\n\n"))
        );
    }
    if let Some(error) = &case.error {
        let _ = writeln!(
            xml,
            "      <error message=\"{}\" type=\"input\">{}</error>",
            escape(error),
            escape(error)
        );
    }
    if let Some(reason) = &case.skipped {
        let _ = writeln!(xml, "      <skipped message=\"{}\"/>", escape(reason));
    }
    if !case.output.is_empty() {
        let _ = writeln!(
            xml,
            "      <system-out>{}</system-out>",
            escape(&case.output.concat())
        );
    }
    xml.push_str("    </testcase>\n");
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.3}", elapsed.as_secs_f64())
}

/// Text escaped for XML attribute values and content. Characters XML 1.0
/// cannot hold at all (most control characters) become U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_forbidden_characters() {
        assert_eq!(
            escape("a<b>&\"c\"'d'\u{1}\ttab"),
            "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;\u{fffd}\ttab"
        );
    }

    #[test]
    fn an_empty_report_is_one_empty_testsuites() {
        assert_eq!(
            to_xml(&Report::default()),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcp-replay\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n</testsuites>\n"
        );
    }
}
