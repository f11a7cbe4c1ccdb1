//! The report for CI systems: JUnit XML.
//!
//! A `<testsuite>` per transcript, with a `<testcase>` per exchange (and one
//! per finding that belongs to no exchange); a `<testsuite>` per probed
//! server command, with a `<testcase>` per law; a `<testsuite>` per fuzzed
//! server command, with a `<testcase>` per tool (skipped for a tool not
//! called) and one for the session's own findings; a `<testsuite>` per host
//! judged, with a `<testcase>` per host law. Failures carry the finding's
//! message, citation and plain diff; warnings go to `<system-out>`. Input
//! that could not be checked (a malformed transcript, a server that cannot
//! start) is an `<error>`: no law was judged, so nothing failed. A run a
//! signal stopped has one more suite, named by the signal, with a skipped
//! `<testcase>` per transcript and probe run that did not run.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::Duration;

use super::escape::{xml_attribute, xml_text};
use super::{
    Disposition, ExchangeStatus, Graded, LawStatus, Location, Report, RequirementStatus, Status,
};

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

    /// A law the cause of `graded` (another law's finding) breaks too:
    /// its own words, failing or not as it was graded.
    fn add_folded(&mut self, law: crate::laws::LawId, graded: &Graded) {
        for also in graded.finding.also.iter().filter(|also| also.law == law) {
            let text = format!(
                "{}[{}] {}: {}\none cause: reported as {}[{}]\n",
                also.disposition.as_str(),
                law,
                graded.finding.location.describe(),
                also.message,
                graded.disposition.as_str(),
                graded.finding.law
            );
            if also.disposition == Disposition::Fails {
                self.failures.push(text);
            } else {
                self.output.push(text);
            }
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
    let also = finding.also_laws();
    if !also.is_empty() {
        let names: Vec<&str> = also.iter().map(|law| law.as_str()).collect();
        text.push_str(&format!("also breaks: {}\n", names.join(", ")));
    }
    if !finding.repeats.is_empty() {
        let places: Vec<String> = finding.repeats.iter().map(Location::describe).collect();
        text.push_str(&format!(
            "seen {} times: also at {}\n",
            finding.occurrences(),
            places.join("; ")
        ));
    }
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
                    (_, Status::Fail)
                        if probe.findings_of(outcome.law).next().is_none()
                            && probe.folded_into(outcome.law).next().is_none() =>
                    {
                        case.failures.push(format!("{} failed", outcome.law));
                    }
                    _ => {}
                }
                for graded in probe.findings_of(outcome.law) {
                    case.add(graded);
                }
                for graded in probe.folded_into(outcome.law) {
                    case.add_folded(outcome.law, graded);
                }
                for note in &outcome.notes {
                    case.output.push(format!("note: {note}\n"));
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
                    None => {
                        case.output.push(format!(
                            "{} cases: {} valid, {} invalid, {} unjudged; {} valid answered isError\n",
                            tool.sent, tool.valid, tool.invalid, tool.unjudged, tool.valid_is_error
                        ));
                        if run.tool_status(tool) == Status::Skip {
                            case.skipped = Some(tool.note.clone().unwrap_or_else(|| {
                                "no call reached the tool".to_owned()
                            }));
                        }
                    }
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
    let mut subject: Option<&str> = None;
    for outcome in &report.requirements {
        let suite = format!("requirements: {}", outcome.subject);
        if subject != Some(outcome.subject.as_str()) {
            subject = Some(&outcome.subject);
            suites.push((suite.clone(), None, Vec::new()));
        }
        let law = outcome
            .law
            .map_or("no law".to_owned(), |law| law.to_string());
        let mut case = Case::new(format!("{} ({law})", outcome.id), &suite);
        match &outcome.status {
            RequirementStatus::Held => {}
            RequirementStatus::Failed => case.failures.push(format!(
                "{} {} is broken: the findings of `{law}` say how\n",
                outcome.level, outcome.id
            )),
            RequirementStatus::Warned => case.output.push(format!(
                "warning: {} {} is broken: the findings of `{law}` say how\n",
                outcome.level, outcome.id
            )),
            RequirementStatus::Waived => case.skipped = Some("waived".to_owned()),
            RequirementStatus::NotObserved(why) if report.denies_unobserved(outcome) => case
                .failures
                .push(format!("not observed (--deny-unobserved): {why}\n")),
            RequirementStatus::NotObserved(why) => {
                case.skipped = Some(format!("not observed: {why}"));
            }
            RequirementStatus::NotApplicable(why) => {
                case.skipped = Some(format!("not applicable: {why}"));
            }
        }
        if let Some((_, _, cases)) = suites.last_mut() {
            cases.push(case);
        }
    }
    for host in &report.hosts {
        let suite = format!("host laws: {} ({})", host.name(), host.source);
        let cases = host
            .outcomes
            .iter()
            .map(|outcome| {
                let mut case = Case::new(outcome.law.as_str().to_owned(), &suite);
                match (&outcome.status, host.status(outcome)) {
                    (LawStatus::Skipped(reason), _) => case.skipped = Some(reason.clone()),
                    (LawStatus::Waived, _) => case.skipped = Some("waived".to_owned()),
                    _ => {}
                }
                for graded in host.findings_of(outcome.law) {
                    case.add(graded);
                }
                for graded in host.folded_into(outcome.law) {
                    case.add_folded(outcome.law, graded);
                }
                case
            })
            .collect();
        suites.push((suite, Some(host.elapsed), cases));
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
            xml_attribute(name),
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
        xml_attribute(&case.name),
        xml_attribute(&case.classname)
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
            xml_attribute(&message),
            xml_text(&case.failures.join("\n\n"))
        );
    }
    if let Some(error) = &case.error {
        let _ = writeln!(
            xml,
            "      <error message=\"{}\" type=\"input\">{}</error>",
            xml_attribute(error),
            xml_text(error)
        );
    }
    if let Some(reason) = &case.skipped {
        let _ = writeln!(
            xml,
            "      <skipped message=\"{}\"/>",
            xml_attribute(reason)
        );
    }
    if !case.output.is_empty() {
        let _ = writeln!(
            xml,
            "      <system-out>{}</system-out>",
            xml_text(&case.output.concat())
        );
    }
    xml.push_str("    </testcase>\n");
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.3}", elapsed.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_report_is_one_empty_testsuites() {
        assert_eq!(
            to_xml(&Report::default()),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcp-replay\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n</testsuites>\n"
        );
    }
}
