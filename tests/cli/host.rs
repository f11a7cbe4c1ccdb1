//! The host laws: a scripted host (`examples/fixture-host.rs`) recorded
//! through `mcp-replay record` against `mcp-replay mock exercise`, a server
//! that exercises it, then held to the host laws by `check`; and the same
//! host judged live by `mock`. For each law, a host that breaks it and one
//! that keeps it.
//
// See: #27

use std::path::Path;
use std::process::{Command, Output};

use mcp_replay::laws::{LawId, Severity, Side, law};
use mcp_replay::transcript::{EventKind, Transcript};
use serde_json::Value;

use crate::util::{bin, fixture_host, json_lines};

/// Runs the fixture host with `args` against `server`, in `dir`.
fn host(dir: &Path, args: &[&str], server: &[&str]) -> Output {
    let output = Command::new(fixture_host())
        .args(args)
        .arg("--")
        .args(server)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "the fixture host's session failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Records the fixture host with `args` against the exercise into
/// `dir/NAME.jsonl`.
fn record(dir: &Path, name: &str, args: &[&str]) -> String {
    let file = format!("{name}.jsonl");
    host(
        dir,
        args,
        &[
            bin(),
            "record",
            "-o",
            &file,
            "--",
            bin(),
            "mock",
            "exercise",
        ],
    );
    file
}

/// `check --no-probes` of `file` in `dir` with `more`: its exit status and
/// JSON Lines.
fn check(dir: &Path, file: &str, more: &[&str]) -> (Option<i32>, Vec<Value>) {
    let output = Command::new(bin())
        .current_dir(dir)
        .args(["check", "--no-probes", "--format", "json"])
        .args(more)
        .arg(file)
        .output()
        .unwrap();
    (output.status.code(), json_lines(&output.stdout))
}

/// The laws of the host findings among `lines`.
fn host_findings(lines: &[Value]) -> Vec<(String, String)> {
    lines
        .iter()
        .filter(|line| line["type"] == "finding" && line["side"] == "host")
        .map(|line| {
            (
                line["law"].as_str().unwrap().to_owned(),
                line["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The breaks the fixture host knows, each with the era it speaks.
const BREAKS: &[(LawId, bool)] = &[
    (LawId::HostFirstMessage, false),
    (LawId::HostInitializedSent, false),
    (LawId::HostRequestIds, false),
    (LawId::HostAnswersServerRequests, false),
    (LawId::HostCapabilitiesHonest, false),
    (LawId::HostNotificationsUnanswered, false),
    (LawId::HostCancelValid, false),
    (LawId::HostMessagesValid, false),
    (LawId::HostShutdownOrder, false),
    (LawId::HostMrtrRetry, true),
    (LawId::HostProgressTokens, false),
    (LawId::HostEraProbe, true),
];

/// The requirement of the registry each break of the fixture host shows
/// broken, in the order of [`BREAKS`].
const BROKEN_REQUIREMENTS: &[&str] = &[
    "host-init-first",
    "host-init-initialized",
    "host-request-id-unique",
    "host-answers-server-requests",
    "host-elicitation-capability",
    "host-notification-never-answered",
    "host-cancel-in-flight",
    "host-stdio-only-messages-on-stdin",
    "host-stdio-shutdown-order",
    "host-mrtr-state-echoed",
    "host-progress-token-unique",
    "host-era-stays-modern",
];

/// The host requirement records among `lines` whose status is one of
/// `statuses`: their ids and statuses.
fn host_requirements(lines: &[Value], statuses: &[&str]) -> Vec<(String, String)> {
    lines
        .iter()
        .filter(|line| line["type"] == "requirement" && line["side"] == "host")
        .filter(|line| statuses.contains(&line["status"].as_str().unwrap()))
        .map(|line| {
            (
                line["id"].as_str().unwrap().to_owned(),
                line["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Every host law has a broken host, and `check` of its recording finds
/// that law broken, and only that one: an error fails the run, a warning
/// (a SHOULD) fails it with `--deny-warnings`; in both profiles. The
/// host's requirement records name the one requirement it broke.
#[test]
fn check_fails_each_broken_host_on_its_law() {
    let covered: Vec<LawId> = BREAKS.iter().map(|(law, _)| *law).collect();
    let hosts: Vec<LawId> = mcp_replay::laws::CATALOG
        .iter()
        .filter(|law| law.side() == Side::Host)
        .map(|law| law.id)
        .collect();
    assert_eq!(covered, hosts, "a broken host for every host law");

    let dir = tempfile::tempdir().unwrap();
    for ((broken, modern), requirement) in BREAKS.iter().zip(BROKEN_REQUIREMENTS) {
        let mut args = vec!["--break", broken.as_str()];
        if *modern {
            args.push("--modern");
        }
        let file = record(dir.path(), broken.as_str(), &args);
        let warning = law(*broken).spec == Some(Severity::Warning);
        for profile in ["core", "spec"] {
            let (code, lines) = check(dir.path(), &file, &["--profile", profile]);
            let found = host_findings(&lines);
            assert!(
                !found.is_empty() && found.iter().all(|(law, _)| law == broken.as_str()),
                "{broken} ({profile}): {found:?}"
            );
            // The server side replays as recorded: only the host failed.
            assert!(
                lines
                    .iter()
                    .filter(|line| line["type"] == "finding")
                    .all(|line| line["side"] == "host"),
                "{broken}: {lines:?}"
            );
            let expected = if warning { 0 } else { 1 };
            assert_eq!(code, Some(expected), "{broken} ({profile}): {found:?}");
            let status = if warning { "warned" } else { "failed" };
            assert_eq!(
                host_requirements(&lines, &["failed", "warned"]),
                [((*requirement).to_owned(), status.to_owned())],
                "{broken} ({profile})"
            );
        }
        if warning {
            let (code, _) = check(dir.path(), &file, &["--deny-warnings"]);
            assert_eq!(code, Some(1), "{broken} with --deny-warnings");
        }
        // A waiver passes it.
        let (code, _) = check(
            dir.path(),
            &file,
            &["--deny-warnings", "--waive", broken.as_str()],
        );
        assert_eq!(code, Some(0), "{broken} waived");
    }
}

/// A host that keeps the host laws passes in both eras and both profiles,
/// warnings denied; the laws it gave nothing to judge are skipped, and
/// say why.
#[test]
fn check_passes_a_host_that_keeps_the_laws_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in [("legacy", &[][..]), ("modern", &["--modern"][..])] {
        let file = record(dir.path(), name, args);
        for profile in ["core", "spec"] {
            let (code, lines) = check(
                dir.path(),
                &file,
                &["--profile", profile, "--deny-warnings"],
            );
            assert_eq!(code, Some(0), "{name} ({profile}): {lines:#?}");
            let host = lines.iter().find(|line| line["type"] == "host").unwrap();
            assert_eq!(
                host["host"],
                format!("fixture-host {}", env!("CARGO_PKG_VERSION"))
            );
            assert_eq!(host["status"], "pass");
        }
        let (_, lines) = check(dir.path(), &file, &[]);
        let status = |law: &str| {
            lines
                .iter()
                .find(|line| line["type"] == "law" && line["law"] == law)
                .map(|line| (line["status"].clone(), line["reason"].clone()))
                .unwrap()
        };
        // The shutdown order is on record in a version-2 transcript.
        assert_eq!(status("host-shutdown-order").0, "pass", "{name}");
        assert_eq!(status("host-cancel-valid").0, "pass", "{name}");
        if name == "legacy" {
            assert_eq!(status("host-answers-server-requests").0, "pass");
            assert_eq!(status("host-capabilities-honest").0, "pass");
            let (skip, why) = status("host-mrtr-retry");
            assert_eq!(skip, "skip");
            assert_eq!(why, "a legacy session has no input_required answers");
        } else {
            assert_eq!(status("host-mrtr-retry").0, "pass");
            assert_eq!(status("host-era-probe").0, "pass");
            let (skip, why) = status("host-first-message");
            assert_eq!(skip, "skip");
            assert_eq!(why, "a 2026-07-28 session has no initialize");
        }
    }
}

/// `check` of an official SDK's recorded host grades every host
/// requirement: those the session showed kept are held, and the same
/// recording with a request id used twice fails the one requirement it
/// breaks; `--deny-unobserved` stays about the servers.
#[test]
fn check_grades_each_host_requirement_of_a_recording() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("tests/data/hosts/typescript-sdk-exercise.jsonl");
    let registry = mcp_replay::laws::registry::REGISTRY
        .iter()
        .filter(|requirement| requirement.side == Side::Host)
        .count();
    let (code, lines) = check(root, data.to_str().unwrap(), &[]);
    assert_eq!(code, Some(0), "{lines:#?}");
    let records: Vec<&Value> = lines
        .iter()
        .filter(|line| line["type"] == "requirement" && line["side"] == "host")
        .collect();
    assert_eq!(records.len(), registry);
    assert!(records.iter().all(|line| {
        line["host"] == "typescript-sdk-host 1.0.0"
            && line["source"]
                .as_str()
                .unwrap()
                .ends_with("typescript-sdk-exercise.jsonl")
            && line.get("command").is_none()
    }));
    let held = host_requirements(&lines, &["held"]);
    for id in [
        "host-init-first",
        "host-request-id-unique",
        "host-ping-empty-result",
        "host-roots-capability",
        "host-stdio-shutdown-order",
    ] {
        assert!(
            held.contains(&(id.to_owned(), "held".to_owned())),
            "{id}: {held:?}"
        );
    }
    assert!(host_requirements(&lines, &["failed", "warned"]).is_empty());
    let summary = lines.last().unwrap();
    assert_eq!(
        summary["requirements"]["total"].as_u64().unwrap() as usize,
        registry + 208
    );

    // The same recording, its `tools/call` under the id of `initialize`.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&data).unwrap();
    let broken: String = text
        .replacen(
            "\"cwd\":\"../../..\"",
            &format!("\"cwd\":{}", Value::from(root.to_str().unwrap())),
            1,
        )
        .lines()
        .map(|line| {
            let line = if line.contains("\"method\":\"tools/call\"") || line.contains("\"id\":3,") {
                line.replace("\"id\":3", "\"id\":0")
            } else {
                line.to_owned()
            };
            format!("{line}\n")
        })
        .collect();
    std::fs::write(dir.path().join("reused.jsonl"), broken).unwrap();
    let (code, lines) = check(
        dir.path(),
        "reused.jsonl",
        &["--allow-cwd", root.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{lines:#?}");
    assert_eq!(
        host_requirements(&lines, &["failed", "warned"]),
        [("host-request-id-unique".to_owned(), "failed".to_owned())]
    );
    // The host's requirements not observed fail nothing.
    let (code, lines) = check(root, data.to_str().unwrap(), &["--deny-unobserved"]);
    assert!(!host_requirements(&lines, &["not-observed"]).is_empty());
    let servers_unobserved = lines.iter().any(|line| {
        line["type"] == "requirement"
            && line["side"] == "server"
            && line["status"] == "not-observed"
    });
    assert_eq!(code, Some(if servers_unobserved { 1 } else { 0 }));
}

/// `record` writes how the host ended the session: its end of input
/// before the server's exit; a host that signals its server without
/// closing stdin leaves the signal on record, and no end of input.
#[test]
fn record_writes_the_hosts_ending() {
    let dir = tempfile::tempdir().unwrap();
    let kinds = |file: &str| -> Vec<&'static str> {
        Transcript::read(dir.path().join(file))
            .unwrap()
            .events
            .iter()
            .filter_map(|event| match event.kind {
                EventKind::EndOfInput => Some("eof"),
                EventKind::Signal(15) => Some("SIGTERM"),
                EventKind::Exit(_) => Some("exit"),
                _ => None,
            })
            .collect()
    };
    let file = record(dir.path(), "closed", &[]);
    assert_eq!(kinds(&file), ["eof", "exit"]);
    let file = record(dir.path(), "signalled", &["--break", "host-shutdown-order"]);
    assert_eq!(kinds(&file), ["SIGTERM", "exit"]);
}

/// A version-1 transcript still replays, and its host is judged by every
/// law but the one it cannot hold: how the host ended the session.
#[test]
fn a_version_1_transcript_replays_with_its_ending_unjudged() {
    let dir = tempfile::tempdir().unwrap();
    let file = record(dir.path(), "v2", &[]);
    let text = std::fs::read_to_string(dir.path().join(&file)).unwrap();
    let v1: String = text
        .replacen("\"version\":2", "\"version\":1", 1)
        .lines()
        .filter(|line| !line.contains("\"eof\":") && !line.contains("\"signal\":"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(dir.path().join("v1.jsonl"), v1).unwrap();
    let (code, lines) = check(dir.path(), "v1.jsonl", &["--deny-warnings"]);
    assert_eq!(code, Some(0), "{lines:#?}");
    let shutdown = lines
        .iter()
        .find(|line| line["type"] == "law" && line["law"] == "host-shutdown-order")
        .unwrap();
    assert_eq!(shutdown["status"], "skip");
    assert_eq!(
        shutdown["reason"],
        "a version-1 transcript does not record how the host ended the session"
    );
    // `mock` serves it too.
    let output = host(
        dir.path(),
        &[],
        &[
            bin(),
            "mock",
            "--judge-host",
            "--report",
            "v1-host.jsonl",
            "v1.jsonl",
        ],
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("the server exited with status 0"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The mock's report of a host, from the files it writes.
fn live_report(dir: &Path, report: &str) -> (Value, Vec<(String, String)>) {
    let text = std::fs::read(dir.join(report)).unwrap();
    let lines = json_lines(&text);
    let summary = lines.last().unwrap().clone();
    assert_eq!(summary["type"], "summary");
    (summary, host_findings(&lines))
}

/// A host pointed at `mcp-replay mock exercise` is judged as it goes, and
/// gets its report when it ends the session: on stderr, in the files, and
/// in the exit status, 0 for a host that keeps the laws, 1 for one that
/// breaks one.
#[test]
fn mock_exercise_judges_the_host_live_and_reports_when_it_exits() {
    let dir = tempfile::tempdir().unwrap();
    let mock = |report: &str, junit: &str| {
        vec![
            bin().to_owned(),
            "mock".to_owned(),
            "--report".to_owned(),
            report.to_owned(),
            "--junit".to_owned(),
            junit.to_owned(),
            "exercise".to_owned(),
        ]
    };
    let server = mock("clean.jsonl", "clean.xml");
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    for args in [&[][..], &["--modern"][..]] {
        let output = host(dir.path(), args, &server);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("the server exited with status 0"),
            "{stderr}"
        );
        assert!(stderr.contains("HOST fixture-host "), "{stderr}");
        assert!(
            stderr.contains("Summary: 12 host laws of 1 host ("),
            "{stderr}"
        );
        let (summary, found) = live_report(dir.path(), "clean.jsonl");
        assert_eq!(found, Vec::<(String, String)>::new());
        assert_eq!(summary["exit"], 0);
        assert_eq!(summary["host_laws"], 12);
        let xml = std::fs::read_to_string(dir.path().join("clean.xml")).unwrap();
        assert!(
            xml.contains("<testsuite name=\"host laws: fixture-host "),
            "{xml}"
        );
    }

    // A broken host: the law it broke, and exit 1.
    let server = mock("broken.jsonl", "broken.xml");
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let output = host(dir.path(), &["--break", "host-request-ids"], &server);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the server exited with status 1"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error[host-request-ids] step `host line"),
        "{stderr}"
    );
    let (summary, found) = live_report(dir.path(), "broken.jsonl");
    assert_eq!(found, [("host-request-ids".to_owned(), "error".to_owned())]);
    assert_eq!(summary["exit"], 1);

    // A host that ends the session with SIGTERM: the mock ends with 143, as
    // a signal ends it, and its report has the warning.
    let output = host(dir.path(), &["--break", "host-shutdown-order"], &server);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the server exited with status 143"),
        "{stderr}"
    );
    let (_, found) = live_report(dir.path(), "broken.jsonl");
    assert_eq!(
        found,
        [("host-shutdown-order".to_owned(), "warning".to_owned())]
    );
}

/// `mock exercise --deny-unobserved` holds the host to every host
/// requirement the session could show: the host requirements it did not
/// observe fail the session, and the report says which.
#[test]
fn mock_exercise_denies_the_hosts_requirements_not_observed() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(fixture_host())
        .arg("--")
        .args([
            bin(),
            "mock",
            "--deny-unobserved",
            "--report",
            "denied.jsonl",
            "exercise",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the server exited with status 1"),
        "{stderr}"
    );
    assert!(
        stderr.contains("host: ")
            && stderr.contains("(--deny-unobserved: not observed fails the run)"),
        "{stderr}"
    );
    let text = std::fs::read(dir.path().join("denied.jsonl")).unwrap();
    let lines = json_lines(&text);
    assert!(host_requirements(&lines, &["failed", "warned"]).is_empty());
    assert!(!host_requirements(&lines, &["not-observed"]).is_empty());
    assert!(!host_requirements(&lines, &["held"]).is_empty());
    assert_eq!(lines.last().unwrap()["exit"], 1);
    assert!(
        lines
            .iter()
            .all(|line| line["type"] != "requirement" || line["side"] == "host")
    );
}

/// A recorded transcript is a scenario too: the host replaying against its
/// own recording, judged with `--judge-host`; without it, `mock` keeps its
/// contract and says nothing of the host.
#[test]
fn mock_judges_a_host_against_its_own_recording_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let file = record(dir.path(), "own", &[]);
    let output = host(
        dir.path(),
        &[],
        &[
            bin(),
            "mock",
            "--judge-host",
            "--report",
            "own-host.jsonl",
            &file,
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the server exited with status 0"),
        "{stderr}"
    );
    let (summary, found) = live_report(dir.path(), "own-host.jsonl");
    assert_eq!(found, Vec::<(String, String)>::new());
    assert_eq!(summary["exit"], 0);

    let output = host(dir.path(), &[], &[bin(), "mock", &file]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("HOST "), "{stderr}");
    assert!(
        stderr.contains("the server exited with status 0"),
        "{stderr}"
    );
}

/// The worked example of docs/host-laws.md: each command it shows prints
/// what the page says (timings aside), in the order shown, in one
/// directory: the host's stderr (the mock's report, then how the server
/// ended), `check`'s stdout.
#[test]
fn the_worked_example_of_the_docs_is_what_the_commands_print() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/host-laws.md"))
            .unwrap();
    let example = page
        .split("<!-- host worked example: docs test -->")
        .nth(1)
        .expect("docs/host-laws.md marks its worked example");
    let example = example.split("\n### ").next().unwrap();
    let mut blocks = Vec::new();
    let mut rest = example;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let (kind, body) = after.split_once('\n').unwrap();
        let end = body.find("```").unwrap();
        blocks.push((kind.to_owned(), body[..end].to_owned()));
        rest = &body[end + 3..];
    }
    assert_eq!(blocks.len(), 6, "three commands, each with its output");
    let dir = tempfile::tempdir().unwrap();
    let bins = Path::new(bin()).parent().unwrap().to_owned();
    let examples = Path::new(fixture_host()).parent().unwrap().to_owned();
    let path = std::env::join_paths([bins.clone(), examples]).unwrap();
    let timings = regex::Regex::new(r"\d+\.\d{3}s").unwrap();
    for pair in blocks.chunks(2) {
        let (command, expected) = (&pair[0], &pair[1]);
        assert_eq!((command.0.as_str(), expected.0.as_str()), ("sh", "text"));
        let words: Vec<&str> = command.1.split_whitespace().collect();
        let output = Command::new(words[0])
            .current_dir(dir.path())
            .args(&words[1..])
            .env("PATH", &path)
            .output()
            .unwrap();
        let shown = if words[0] == "fixture-host" {
            &output.stderr
        } else {
            &output.stdout
        };
        let actual = timings
            .replace_all(&String::from_utf8_lossy(shown), "[T]")
            .into_owned();
        let expected = timings.replace_all(&expected.1, "[T]").into_owned();
        assert_eq!(actual, expected, "`{}`", command.1.trim());
    }
}
