//! SARIF 2.1.0: the findings of a run as static-analysis results, for
//! GitHub code scanning and other tools that read SARIF.
//!
//! One rule per requirement of the registry (its citation as `helpUri`),
//! and one per law that judges no requirement of it (`transcript-match`,
//! the CLI probes); one result per finding that fails the run or warns,
//! at the transcript's file and line where it has one. A probe finding has
//! no line of a file: it is placed at the server's entry file (the first
//! word of its command that names a file under the current directory,
//! such as `dist/index.js`), else at `mcp-replay.json` or the first
//! transcript checked, with the probe step as its logical location.
//!
//! Code scanning shows every result as an alert, whatever its `kind`, and
//! ignores suppressions; so findings the run does not count (waived,
//! blessed, known to the baseline) are left out, and the outcome of every
//! requirement goes into the run's property bag
//! (`runs[0].properties.requirements`), not into results. With
//! `--deny-unobserved`, a requirement not observed fails the run, and is
//! a result too.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use serde_json::{Value, json};

use super::{Disposition, Finding, Graded, Location, Report, RequirementStatus};
use crate::laws::registry::{REGISTRY, judged_by};
use crate::laws::{Cite, LawId, Profile};

/// The schema a SARIF 2.1.0 log names.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Writes the SARIF log of `report` to `out`.
///
/// # Errors
///
/// The first write error.
pub fn render(report: &Report, mut out: impl Write) -> io::Result<()> {
    let log = to_value(report, Path::new("."));
    // Escaped as the JSON Lines are (`escape::json`): a tool that shows the
    // log, or a CI log it lands in, acts on none of what a server wrote.
    let text = serde_json::to_string_pretty(&log)?;
    out.write_all(super::escape::json(&text).as_bytes())?;
    out.write_all(b"\n")
}

/// The first citation that opens at an absolute URL.
fn help_uri(cites: &[Cite]) -> Option<String> {
    cites
        .iter()
        .filter_map(Cite::target)
        .find(|target| target.starts_with("https://"))
}

/// A rule: its id, what it says, where it is cited, how it is graded.
struct Rule {
    id: String,
    short: String,
    help_uri: Option<String>,
    help: String,
    properties: Value,
}

/// Every rule, in registry order, then the laws that judge none of it.
fn rules(profile: Profile) -> Vec<Rule> {
    let mut res: Vec<Rule> = REGISTRY
        .iter()
        .map(|requirement| Rule {
            id: requirement.id.to_owned(),
            short: requirement.says.to_owned(),
            help_uri: help_uri(requirement.cites),
            help: format!(
                "{} {}: {} Cites: {}",
                requirement.side,
                requirement.level,
                requirement.says,
                crate::laws::render_cites(requirement.cites)
            ),
            properties: json!({
                "side": requirement.side.as_str(),
                "level": requirement.level.as_str(),
                "law": requirement.law.map(LawId::as_str),
                "revisions": requirement
                    .revisions()
                    .iter()
                    .map(|revision| revision.as_str())
                    .collect::<Vec<_>>(),
                "tags": ["mcp", requirement.side.as_str()],
            }),
        })
        .collect();
    for entry in crate::laws::CATALOG {
        if !entry.implemented || judged_by(entry.id).next().is_some() {
            continue;
        }
        let cites = entry.cites(profile);
        res.push(Rule {
            id: entry.id.as_str().to_owned(),
            short: entry.summary.to_owned(),
            help_uri: help_uri(cites),
            help: format!(
                "{} Cites: {}",
                entry.summary,
                crate::laws::render_cites(cites)
            ),
            properties: json!({"law": entry.id.as_str(), "tags": ["mcp"]}),
        });
    }
    res
}

/// The rule a finding is a result of: the requirement it names, else its
/// law's first requirement, else its law.
fn rule_of(finding: &Finding) -> String {
    if let Some(id) = finding.requirement {
        return id.to_owned();
    }
    match judged_by(finding.law).next() {
        Some(requirement) => requirement.id.to_owned(),
        None => finding.law.as_str().to_owned(),
    }
}

/// Where a probe finding of `command` is placed: the first word of the
/// command that names a file under `root`, as a relative path.
fn entry_file(command: &str, root: &Path) -> Option<String> {
    command
        .split_whitespace()
        .map(|word| word.trim_matches(['\'', '"']))
        .filter(|word| !word.starts_with('-') && !word.starts_with('/'))
        .find(|word| !word.split('/').any(|part| part == "..") && root.join(word).is_file())
        .map(|word| word.trim_start_matches("./").to_owned())
}

/// The file a finding without a line of its own is placed at, when no
/// entry file is found: `mcp-replay.json`, else the first transcript.
fn fallback_file(report: &Report, root: &Path) -> Option<String> {
    if root.join("mcp-replay.json").is_file() {
        return Some("mcp-replay.json".to_owned());
    }
    report
        .transcripts
        .first()
        .map(|transcript| uri(&transcript.path))
}

/// A path as a SARIF artifact URI: relative, with `/`.
fn uri(path: &Path) -> String {
    path.to_string_lossy()
        .trim_start_matches("./")
        .replace('\\', "/")
}

fn physical(uri: &str, line: usize) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri},
            "region": {"startLine": line.max(1)},
        }
    })
}

/// The result of one finding.
fn result(
    graded: &Graded,
    command: &str,
    index: &BTreeMap<String, usize>,
    report: &Report,
    root: &Path,
) -> Value {
    let finding = &graded.finding;
    let rule = rule_of(finding);
    let level = match graded.disposition {
        Disposition::Fails => "error",
        _ => "warning",
    };
    let mut text = format!("[{}] {}", finding.law, finding.message);
    let also = finding.also_laws();
    if !also.is_empty() {
        let names: Vec<&str> = also.iter().map(|law| law.as_str()).collect();
        text.push_str(&format!("\nalso breaks: {}", names.join(", ")));
    }
    if !finding.repeats.is_empty() {
        text.push_str(&format!("\nseen {} times", finding.occurrences()));
    }
    if let Some(hint) = &finding.hint {
        text.push_str(&format!("\nhint: {hint}"));
    }
    let location = match &finding.location {
        Location::Transcript { path, line } => physical(&uri(path), *line),
        Location::Probe { step, .. } => {
            let mut location = entry_file(command, root)
                .or_else(|| fallback_file(report, root))
                .map_or_else(|| json!({}), |file| physical(&file, 1));
            location["logicalLocations"] = json!([{
                "name": step,
                "fullyQualifiedName": format!("{command} :: {step}"),
                "kind": "function",
            }]);
            location
        }
    };
    let mut res = json!({
        "ruleId": rule,
        "level": level,
        "message": {"text": text},
        "locations": [location],
        "properties": {
            "law": finding.law.as_str(),
            "profile": finding.profile.as_str(),
            "command": command,
            "cites": finding.cites,
        },
    });
    if !also.is_empty() {
        res["properties"]["also"] = json!(also.iter().map(|law| law.as_str()).collect::<Vec<_>>());
    }
    if !finding.repeats.is_empty() {
        res["properties"]["occurrences"] = json!(finding.occurrences());
    }
    if let Some(at) = index.get(&rule) {
        res["ruleIndex"] = json!(at);
    }
    res
}

/// The SARIF log of `report` as JSON, findings placed relative to `root`.
pub(crate) fn to_value(report: &Report, root: &Path) -> Value {
    let profile = report.profiles.first().copied().unwrap_or_default();
    let rules = rules(profile);
    let index: BTreeMap<String, usize> = rules
        .iter()
        .enumerate()
        .map(|(at, rule)| (rule.id.clone(), at))
        .collect();
    let mut results = Vec::new();
    let findings = report
        .transcripts
        .iter()
        .flat_map(|t| t.findings.iter().map(move |g| (t.command.as_str(), g)))
        .chain(
            report
                .probes
                .iter()
                .flat_map(|p| p.findings.iter().map(move |g| (p.command.as_str(), g))),
        )
        .chain(
            report
                .fuzz
                .iter()
                .flat_map(|f| f.findings.iter().map(move |g| (f.command.as_str(), g))),
        );
    for (command, graded) in findings {
        if matches!(graded.disposition, Disposition::Fails | Disposition::Warns) {
            results.push(result(graded, command, &index, report, root));
        }
    }
    for outcome in &report.requirements {
        let RequirementStatus::NotObserved(why) = &outcome.status else {
            continue;
        };
        if !report.denies_unobserved(outcome) {
            continue;
        }
        let file = match &outcome.host {
            Some((source, _)) => entry_file(source, root),
            None => entry_file(&outcome.subject, root),
        };
        let mut location = file
            .or_else(|| fallback_file(report, root))
            .map_or_else(|| json!({}), |file| physical(&file, 1));
        location["logicalLocations"] = json!([{"name": outcome.subject, "kind": "module"}]);
        results.push(json!({
            "ruleId": outcome.id,
            "ruleIndex": index.get(outcome.id),
            "level": "error",
            "message": {"text": format!("{} {} was not observed (--deny-unobserved): {why}", outcome.level, outcome.id)},
            "locations": [location],
        }));
    }
    let requirements: Vec<Value> = report
        .requirements
        .iter()
        .map(|outcome| {
            let mut value = json!({
                "id": outcome.id,
                "law": outcome.law.map(LawId::as_str),
                "side": outcome.side.as_str(),
                "level": outcome.level.as_str(),
            });
            match &outcome.host {
                Some((source, host)) => {
                    value["source"] = json!(source);
                    value["host"] = json!(host);
                }
                None => value["command"] = json!(outcome.subject),
            }
            value["status"] = json!(outcome.status.as_str());
            value["reason"] = json!(outcome.status.reason());
            value
        })
        .collect();
    let rules: Vec<Value> = rules
        .into_iter()
        .map(|rule| {
            let mut value = json!({
                "id": rule.id,
                "shortDescription": {"text": rule.short},
                "help": {"text": rule.help},
                "properties": rule.properties,
            });
            if let Some(uri) = rule.help_uri {
                value["helpUri"] = json!(uri);
            }
            value
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mcp-replay",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports",
                "rules": rules,
            }},
            "results": results,
            "invocations": [{
                "executionSuccessful": report.errors.is_empty() && report.interrupted.is_none(),
                "exitCode": report.exit_code(),
            }],
            "properties": {
                "profiles": report.profiles.iter().map(|profile| profile.as_str()).collect::<Vec<_>>(),
                "requirements": requirements,
            },
        }],
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::report::{ProbeResult, TranscriptResult};

    fn report() -> Report {
        let finding = |law: LawId, location: Location, disposition: Disposition| {
            Graded::new(
                Finding::new(law, Profile::Spec, location, "broken"),
                disposition,
            )
        };
        let at_line = Location::Transcript {
            path: PathBuf::from("transcripts/t.jsonl"),
            line: 7,
        };
        let at_step = Location::Probe {
            command: "node dist/index.js".to_owned(),
            step: "conversation session: ping".to_owned(),
        };
        Report {
            transcripts: vec![TranscriptResult {
                path: PathBuf::from("transcripts/t.jsonl"),
                command: "node dist/index.js".to_owned(),
                exchanges: Vec::new(),
                findings: vec![
                    finding(LawId::TranscriptMatch, at_line.clone(), Disposition::Fails),
                    finding(LawId::NotificationUnanswered, at_line, Disposition::Waived),
                ],
                notes: Vec::new(),
                blessed: None,
                elapsed: std::time::Duration::ZERO,
                coverage: super::super::Coverage::default(),
            }],
            probes: vec![ProbeResult {
                command: "node dist/index.js".to_owned(),
                outcomes: Vec::new(),
                findings: vec![finding(LawId::Ping, at_step, Disposition::Warns)],
                elapsed: std::time::Duration::ZERO,
                coverage: super::super::Coverage::default(),
            }],
            profiles: vec![Profile::Spec],
            ..Report::default()
        }
    }

    #[test]
    fn findings_that_count_are_results_at_their_file_and_line_or_entry_file() {
        let root = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(root.path().join("dist")).expect("mkdir");
        std::fs::write(root.path().join("dist/index.js"), "").expect("write");
        let mut report = report();
        report.grade_requirements();
        let log = to_value(&report, root.path());
        let run = &log["runs"][0];
        let results = run["results"].as_array().expect("results");
        // The waived finding is left out.
        assert_eq!(results.len(), 2, "{results:#?}");
        assert_eq!(results[0]["ruleId"], "transcript-match");
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "transcripts/t.jsonl"
        );
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
            7
        );
        assert_eq!(results[1]["ruleId"], "srv-ping-empty-result");
        assert_eq!(results[1]["level"], "warning");
        assert_eq!(
            results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "dist/index.js"
        );
        assert_eq!(
            results[1]["locations"][0]["logicalLocations"][0]["name"],
            "conversation session: ping"
        );
        // Every result's rule is in the driver's rules, at its index.
        let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
        for result in results {
            let at = result["ruleIndex"].as_u64().expect("an index") as usize;
            assert_eq!(rules[at]["id"], result["ruleId"]);
        }
        // One rule per requirement of the registry, each citing a URL.
        for requirement in REGISTRY {
            let rule = rules
                .iter()
                .find(|rule| rule["id"] == requirement.id)
                .expect("a rule");
            assert!(
                rule["helpUri"]
                    .as_str()
                    .is_some_and(|uri| uri.starts_with("https://")),
                "{rule}"
            );
        }
        assert_eq!(
            run["properties"]["requirements"].as_array().map(Vec::len),
            Some(report.requirements.len())
        );
    }

    #[test]
    fn a_command_that_names_no_file_falls_back_to_the_first_transcript() {
        let root = tempfile::tempdir().expect("a temporary directory");
        let log = to_value(&report(), root.path());
        assert_eq!(
            log["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "transcripts/t.jsonl"
        );
        assert_eq!(entry_file("node ../outside.js", root.path()), None);
    }
}
