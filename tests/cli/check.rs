//! `mcp-replay check` end to end: replays against the fixture server,
//! diffs and blessing, deadlines and processes, corpora, baselines and the
//! report formats.

use std::collections::{BTreeSet, HashSet};
use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_replay::Frame;
use mcp_replay::process::{Output, Recv, ServerCommand, ServerProcess, shell_status};
use mcp_replay::transcript::TranscriptWriter;
use mcp_replay::transcript::{Direction, Exit, Header};
use predicates::prelude::*;
use serde_json::{Value, json};

use crate::util::{
    Waiter, assert_no_process_with, fixture_server, initialize, json_lines, notification,
    processes_with, request, soon,
};

/// `mcp-replay check` run in `dir`, killed if it outlives a generous
/// deadline.
fn check(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay");
    cmd.current_dir(dir)
        .arg("check")
        .env_remove("NO_COLOR")
        .timeout(Duration::from_secs(120));
    cmd
}

/// The client side of a typical session, in groups sent at once.
pub fn session() -> Vec<Vec<String>> {
    vec![
        vec![initialize(1)],
        vec![
            notification("notifications/initialized"),
            request(json!(2), "tools/list", json!(null)),
        ],
        vec![request(
            json!(3),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hello"}}),
        )],
        vec![request(
            json!(4),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )],
        vec![request(json!(5), "tools/call", json!({"name": "fail"}))],
        vec![request(json!("six"), "ping", json!(null))],
    ]
}

/// Records a session with the fixture server started with `args` into
/// `path`: each group of client lines is written at once, then every request
/// in it is waited for; at the end stdin is closed and the exit recorded.
pub fn record(path: &Path, args: &[&str], groups: &[Vec<String>]) {
    let mut argv = vec![fixture_server().to_owned()];
    argv.extend(args.iter().map(|arg| (*arg).to_owned()));
    let header = Header::new(argv.clone(), "2026-01-01T00:00:00Z".to_owned());
    let mut writer = TranscriptWriter::create(path, &header, true).unwrap();
    let mut server = ServerProcess::spawn(&ServerCommand::new(argv)).unwrap();
    let log = |writer: &mut TranscriptWriter, bytes: &[u8], eol: bool| {
        writer.line(Direction::ServerToClient, bytes, eol).unwrap();
        match Frame::parse(bytes) {
            Frame::Response { id: Some(id), .. } => Some(id),
            _ => None,
        }
    };
    for group in groups {
        let mut pending = HashSet::new();
        let mut bytes = Vec::new();
        for line in group {
            writer
                .line(Direction::ClientToServer, line.as_bytes(), true)
                .unwrap();
            if let Frame::Request { id, .. } = Frame::parse(line.as_bytes()) {
                pending.insert(id);
            }
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
        server.send_raw(bytes);
        while !pending.is_empty() {
            match server.recv(soon()) {
                Recv::Output(Output::Line { bytes, eol, .. }) => {
                    if let Some(id) = log(&mut writer, &bytes, eol) {
                        pending.remove(&id);
                    }
                }
                other => panic!("the fixture stopped answering: {other:?}"),
            }
        }
    }
    server.close_stdin();
    writer.end_of_input().unwrap();
    while let Recv::Output(Output::Line { bytes, eol, .. }) = server.recv(soon()) {
        log(&mut writer, &bytes, eol);
    }
    let status = server
        .wait(soon())
        .expect("the fixture exits at end of input");
    writer.exit(Exit::Code(shell_status(status))).unwrap();
}

/// A directory holding `transcripts/session.jsonl`, recorded against the
/// fixture started with `args`.
fn recorded(args: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("transcripts")).unwrap();
    let path = dir.path().join("transcripts/session.jsonl");
    record(&path, args, &session());
    (dir, path)
}

/// The fixture's flags that change the `echo` answer the recordings hold.
const CHANGED: &[&str] = &["--echo-suffix", "!"];

/// `check --no-probes <args> transcripts -- fixture-server <server>` in `dir`:
/// the recorded transcripts replayed against a fixture server of our choice.
fn replay(dir: &Path, args: &[&str], server: &[&str]) -> assert_cmd::Command {
    let mut cmd = check(dir);
    cmd.arg("--no-probes")
        .args(args)
        .args(["transcripts", "--", fixture_server()])
        .args(server);
    cmd
}

/// `cmd`'s exit status and stdout.
fn status_and_stdout(cmd: &mut assert_cmd::Command) -> (Option<i32>, String) {
    let output = cmd.output().unwrap();
    (output.status.code(), stdout_of(&output))
}

fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `cmd`, asserts its exit status, and returns its stdout.
fn stdout_with_code(cmd: &mut assert_cmd::Command, code: i32) -> String {
    let output = cmd.assert().code(code).get_output().clone();
    stdout_of(&output)
}

#[test]
fn a_session_replays_green_against_the_server_it_was_recorded_from() {
    let (dir, _) = recorded(&[]);
    let stdout = stdout_with_code(&mut check(dir.path()), 0);
    assert!(
        stdout.contains("  PASS transcripts/session.jsonl  6 exchanges"),
        "{stdout}"
    );
    assert!(stdout.contains("\n  PASS 19 other laws held\n"), "{stdout}");
    assert!(
        stdout.contains(
            "Summary: 1 transcript (1 passed), 21 laws of 1 server (19 held, 2 skipped), 12 host laws of 1 host (5 held, 7 skipped) under profile core, in "
        ),
        "{stdout}"
    );
}

#[test]
fn a_changed_answer_fails_with_a_diff_and_bless_accepts_it() {
    let (dir, path) = recorded(&[]);
    let original = std::fs::read_to_string(&path).unwrap();
    let server = fixture_server();
    let stdout = stdout_with_code(&mut replay(dir.path(), &[], CHANGED), 1);
    let answer_line = original
        .lines()
        .position(|line| line.contains("\"dir\":\"s2c\"") && line.contains("\"text\":\"hello\""))
        .unwrap()
        + 1;
    assert!(
        stdout.contains("  FAIL transcripts/session.jsonl  6 exchanges, 1 not as recorded  "),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "error[transcript-match] transcripts/session.jsonl:{answer_line}: `tools/call` id=3 (line "
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "--- expected: transcripts/session.jsonl:{answer_line}\n+++ actual: {server} --echo-suffix '!'\n"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("-        \"text\": \"hello\",\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("+        \"text\": \"hello!\",\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "hint: accept the new responses with `mcp-replay check --bless transcripts/session.jsonl -- {server} --echo-suffix '!'`"
        )),
        "{stdout}"
    );

    replay(dir.path(), &["--bless"], CHANGED)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "Blessed: transcripts/session.jsonl (1 difference)",
        ));
    // Only the changed answer differs; every other line is kept byte for
    // byte, so `git diff` shows exactly what the server now says.
    let blessed = std::fs::read_to_string(&path).unwrap();
    let differing: Vec<(usize, &str)> = blessed
        .lines()
        .zip(original.lines())
        .enumerate()
        .filter(|(_, (new, old))| new != old)
        .map(|(index, (new, _))| (index + 1, new))
        .collect();
    assert_eq!(blessed.lines().count(), original.lines().count());
    assert_eq!(differing.len(), 1, "{differing:?}");
    assert_eq!(differing[0].0, answer_line);
    assert!(differing[0].1.contains("\"text\":\"hello!\""), "{blessed}");
    replay(dir.path(), &[], CHANGED).assert().code(0);
}

#[test]
fn bless_rewrites_the_server_side_of_a_session_that_changed_shape() {
    // Recorded with list_changed notifications the clean server never sends.
    let (dir, path) = recorded(&["--unsolicited"]);
    let original = std::fs::read_to_string(&path).unwrap();
    let stdout = stdout_with_code(&mut replay(dir.path(), &["--timeout", "1s"], &[]), 1);
    assert!(
        stdout.contains("the recorded notification `notifications/tools/list_changed`"),
        "{stdout}"
    );
    replay(dir.path(), &["--timeout", "1s", "--bless"], &[])
        .assert()
        .code(0);
    let blessed = std::fs::read_to_string(&path).unwrap();
    assert!(!blessed.contains("list_changed"), "{blessed}");
    let client = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| !line.contains("\"dir\":\"s2c\""))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(client(&blessed), client(&original));
    replay(dir.path(), &[], &[]).assert().code(0);
}

#[test]
fn bless_accepts_a_session_whose_only_change_is_a_message_that_never_came() {
    // The recording holds a notification the server does not send again,
    // and every response is as recorded: no response differs, and the
    // session still changed shape.
    let (dir, path) = recorded(&[]);
    let original = std::fs::read_to_string(&path).unwrap();
    let note = r#"{"t":0.5,"dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}"#;
    let mut lines: Vec<&str> = original.lines().collect();
    let after = lines
        .iter()
        .position(|line| line.contains("\"dir\":\"s2c\"") && line.contains("\"text\":\"hello\""))
        .unwrap();
    lines.insert(after + 1, note);
    let edited = lines.join("\n") + "\n";
    std::fs::write(&path, &edited).unwrap();
    let note_line = after + 2;

    let stdout = stdout_with_code(&mut replay(dir.path(), &["--timeout", "2s"], &[]), 1);
    assert!(
        stdout.contains(&format!(
            "the recorded notification `notifications/tools/list_changed` (line {note_line}) did not come"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "hint: accept the live session with `mcp-replay check --bless transcripts/session.jsonl -- {}`",
            fixture_server()
        )),
        "{stdout}"
    );

    replay(dir.path(), &["--timeout", "2s", "--bless"], &[])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "Blessed: transcripts/session.jsonl (1 difference)",
        ));
    let blessed = std::fs::read_to_string(&path).unwrap();
    assert!(!blessed.contains("list_changed"), "{blessed}");
    assert_eq!(blessed.lines().count(), original.lines().count());
    replay(dir.path(), &[], &[]).assert().code(0);
}

#[test]
fn an_incomplete_replay_offers_no_bless() {
    // The changed echo answer comes, then a malformed line ends the server
    // before the last request is answered: the live session is incomplete,
    // so `--bless` would refuse.
    let (dir, path) = recorded(&[]);
    let recorded_text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = recorded_text.lines().collect();
    let ping = lines
        .iter()
        .position(|line| line.contains("\"method\":\"ping\""))
        .unwrap();
    lines.insert(ping, r#"{"t":0.9,"dir":"c2s","text":"garbage"}"#);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let server = ["--echo-suffix", "!", "--break", "parse-error-keeps-serving"];
    let stdout = stdout_with_code(&mut replay(dir.path(), &["--timeout", "2s"], &server), 1);
    assert!(stdout.contains("error[transcript-match]"), "{stdout}");
    assert!(stdout.contains("error[request-answered-once]"), "{stdout}");
    assert!(!stdout.contains("--bless"), "{stdout}");
    let original = std::fs::read_to_string(&path).unwrap();
    let stdout = stdout_with_code(
        &mut replay(dir.path(), &["--timeout", "2s", "--bless"], &server),
        1,
    );
    assert!(
        stdout.contains("not blessed: the live session is incomplete"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
}

#[test]
fn a_banner_fails_stdout_is_protocol_in_replay_and_probes_alike() {
    let (dir, _) = recorded(&[]);
    let server = format!("echo 'Server started on stdio'; exec {}", fixture_server());
    let output = check(dir.path())
        .args(["--profile", "spec", "--format", "json", "transcripts", "--"])
        .args(["sh", "-c", &server])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let lines = json_lines(&output.stdout);
    let law = lines
        .iter()
        .find(|line| line["type"] == "law" && line["law"] == "stdout-is-protocol")
        .unwrap();
    assert_eq!(law["status"], "fail");
    // The banner's finding, or the finding its line is one cause with (the
    // quiet start's, in the probes), with the severity of the law's own.
    let mut kinds = BTreeSet::new();
    for finding in lines.iter().filter(|line| line["type"] == "finding") {
        let own = (finding["law"] == "stdout-is-protocol").then_some(&finding["severity"]);
        let folded = finding["also"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|also| also["law"] == "stdout-is-protocol")
            .map(|also| &also["severity"]);
        for severity in own.into_iter().chain(folded) {
            assert_eq!(severity, "error", "{finding:#}");
            kinds.insert(finding["location"]["kind"].as_str().unwrap());
        }
    }
    assert_eq!(kinds, BTreeSet::from(["probe", "transcript"]));
}

#[test]
fn a_secret_only_the_checkers_environment_has_reaches_no_output() {
    // The transcript was recorded without the secret; the server now
    // prints it in a banner and appends it to every echo.
    const SECRET: &str = "ghp_supersecretvalue123";
    let (dir, path) = recorded(&[]);
    let server = format!(
        r#"echo "token $GITHUB_TOKEN"; exec {} --echo-suffix "$GITHUB_TOKEN""#,
        fixture_server()
    );
    let run = |args: &[&str]| {
        check(dir.path())
            .env("GITHUB_TOKEN", SECRET)
            // Shorter than the recorder's 6-byte floor: never redacted,
            // or every `hello` would become a placeholder.
            .env("SHORT_TOKEN", "hello")
            .args(args)
            .args(["transcripts", "--", "sh", "-c", &server])
            .output()
            .unwrap()
    };
    let clean = |what: &str, text: &str| {
        assert!(!text.contains(SECRET), "{what}: {text}");
        assert!(!text.contains("REDACTED:SHORT_TOKEN"), "{what}: {text}");
    };

    let human = run(&[]);
    assert_eq!(human.status.code(), Some(1));
    let stdout = stdout_of(&human);
    clean("stdout", &stdout);
    clean("stderr", &String::from_utf8_lossy(&human.stderr));
    assert!(
        stdout.contains("+        \"text\": \"hello[REDACTED:GITHUB_TOKEN]\","),
        "{stdout}"
    );
    assert!(
        stdout.contains("`token [REDACTED:GITHUB_TOKEN]`"),
        "{stdout}"
    );

    let junit = dir.path().join("report.xml");
    let json = run(&["--format", "json", "--junit", junit.to_str().unwrap()]);
    assert_eq!(json.status.code(), Some(1));
    let stdout = stdout_of(&json);
    clean("JSON", &stdout);
    assert!(stdout.contains("[REDACTED:GITHUB_TOKEN]"), "{stdout}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    clean("JUnit", &xml);
    assert!(xml.contains("[REDACTED:GITHUB_TOKEN]"), "{xml}");

    let blessed = run(&["--no-probes", "--bless"]);
    clean("bless stdout", &stdout_of(&blessed));
    let text = std::fs::read_to_string(&path).unwrap();
    clean("blessed transcript", &text);
    assert!(
        text.contains(r#""text":"hello[REDACTED:GITHUB_TOKEN]""#),
        "{text}"
    );
}

#[test]
fn a_secret_cut_by_a_quoted_excerpt_leaks_no_part_of_itself() {
    // The banner puts the secret across the 80 characters a finding quotes
    // of a line: redacting the finding's text would miss the cut secret.
    const SECRET: &str = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    let dir = tempfile::tempdir().unwrap();
    let server = format!(
        r#"echo "{} $GITHUB_TOKEN"; exec {}"#,
        "a".repeat(70),
        fixture_server()
    );
    let output = check(dir.path())
        .env("GITHUB_TOKEN", SECRET)
        .args(["--format", "json", "--no-replay", "--", "sh", "-c", &server])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = stdout_of(&output);
    assert!(
        stdout.contains("error") && stdout.contains("stdout-is-protocol"),
        "{stdout}"
    );
    for start in 0..SECRET.len() - 6 {
        let part = &SECRET[start..start + 6];
        assert!(!stdout.contains(part), "`{part}` of the secret in {stdout}");
    }
}

#[test]
fn a_recorded_value_that_is_a_secret_where_the_check_runs_still_matches() {
    // Recorded where the value was no secret; where the check runs it is
    // one, and both sides are compared redacted.
    let suffix = ["--echo-suffix", " sk-live-0123456789"];
    let (dir, _) = recorded(&suffix);
    let stdout = stdout_with_code(
        replay(dir.path(), &[], &suffix).env("API_TOKEN", "sk-live-0123456789"),
        0,
    );
    assert!(!stdout.contains("sk-live-0123456789"), "{stdout}");
}

#[test]
fn a_recorded_log_notification_that_never_comes_is_a_note_in_every_format() {
    // A log line a server sent on a timer while the host sat idle: the
    // replay neither waits for it nor fails without it.
    let (dir, path) = recorded(&[]);
    let original = std::fs::read_to_string(&path).unwrap();
    let log = r#"{"t":0.5,"dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"tick"}}}"#;
    let mut lines: Vec<&str> = original.lines().collect();
    let after = lines
        .iter()
        .position(|line| line.contains("\"dir\":\"s2c\"") && line.contains("\"text\":\"hello\""))
        .unwrap();
    lines.insert(after + 1, log);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let note = format!(
        "the recorded notification `notifications/message` (line {}) did not come; a replay does not wait for it",
        after + 2
    );

    let stdout = stdout_with_code(&mut replay(dir.path(), &[], &[]), 0);
    assert!(stdout.contains(&format!("note: {note}")), "{stdout}");
    let junit = dir.path().join("report.xml");
    let stdout = stdout_with_code(
        &mut replay(
            dir.path(),
            &["--format", "json", "--junit", junit.to_str().unwrap()],
            &[],
        ),
        0,
    );
    let lines = json_lines(stdout.as_bytes());
    let transcript = lines
        .iter()
        .find(|line| line["type"] == "transcript")
        .unwrap();
    assert_eq!(transcript["notes"], json!([note]));
    assert_eq!(transcript["status"], "pass");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<system-out>"), "{xml}");
    assert!(xml.contains("notifications/message"), "{xml}");
}

#[test]
fn a_transcript_gets_one_bless_hint_however_many_findings_it_accepts() {
    // A changed answer and a list change that never comes: two findings,
    // one command accepts both.
    let (dir, path) = recorded(&[]);
    let original = std::fs::read_to_string(&path).unwrap();
    let note = r#"{"t":0.5,"dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}"#;
    let mut lines: Vec<&str> = original.lines().collect();
    lines.insert(lines.len() - 1, note);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let stdout = stdout_with_code(&mut replay(dir.path(), &["--timeout", "300ms"], CHANGED), 1);
    assert_eq!(
        stdout.matches("error[transcript-match]").count(),
        2,
        "{stdout}"
    );
    assert_eq!(stdout.matches("hint:").count(), 1, "{stdout}");
    assert_eq!(stdout.matches("--bless").count(), 1, "{stdout}");
}

#[test]
fn hard_but_correct_servers_replay_green() {
    let stresses: [&[&str]; 5] = [
        &["--pad", "4194304"],
        &["--stderr-flood", "1048576"],
        &["--slow-start", "300"],
        &["--unsolicited"],
        &["--out-of-order", "3"],
    ];
    for args in stresses {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stress.jsonl");
        let mut groups = session();
        // Three requests back to back, for the out-of-order server to hold.
        groups.push(vec![
            request(json!(7), "ping", json!(null)),
            request(json!(8), "tools/list", json!(null)),
            request(
                json!(9),
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "x"}}),
            ),
        ]);
        record(&path, args, &groups);
        let output = check(dir.path())
            .args(["--no-probes", "stress.jsonl"])
            .output()
            .unwrap();
        let stdout = stdout_of(&output);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stdout}");
        assert!(
            stdout.contains("  PASS stress.jsonl  9 exchanges"),
            "{args:?}: {stdout}"
        );
    }
}

#[test]
fn a_server_that_writes_nothing_is_not_checked_and_nothing_outlives_the_check() {
    let (dir, _) = recorded(&[]);
    let marker = format!("silent-replay-{}", std::process::id());
    // The subshell keeps the shell's argv, marker included.
    let script = "(sleep 600; :) & wait";
    let stdout = stdout_with_code(
        check(dir.path()).args([
            "--no-probes",
            "--timeout",
            "300ms",
            "--startup-timeout",
            "300ms",
            "--",
            "sh",
            "-c",
            script,
            &marker,
        ]),
        2,
    );
    // A server slow to start has broken no law: the transcript is not
    // checked, and the report says how to give it more time. See: #10
    assert!(
        stdout.contains(
            "transcripts/session.jsonl: not checked: the server wrote nothing on stdout within 300ms of its start; a server that starts slowly needs a longer `--startup-timeout`"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("error[request-answered-once]"), "{stdout}");
    // `sh -c script marker` runs the script with $0 = marker: the shell and
    // its background subshell both carry it, and both must be gone.
    assert_no_process_with(&marker);
}

#[test]
fn a_malformed_transcript_is_named_and_the_others_still_run() {
    let (dir, path) = recorded(&[]);
    let bad = dir.path().join("transcripts/bad.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text = text.replacen("\"dir\":\"c2s\",\"msg\":", "\"dir\":\"c2s\",\"msg\":}", 1);
    std::fs::write(&bad, text).unwrap();
    let stdout = stdout_with_code(check(dir.path()).arg("--no-probes"), 2);
    assert!(
        stdout.contains(" ERROR transcripts/bad.jsonl:2:"),
        "{stdout}"
    );
    assert!(stdout.contains("expected an event object"), "{stdout}");
    assert!(
        stdout.contains("  PASS transcripts/session.jsonl"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Summary: 1 transcript (1 passed), 12 host laws of 1 host (5 held, 7 skipped), 1 not checked under profile core, in "),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nhint: each ERROR line names input that was not checked"),
        "{stdout}"
    );
}

/// A corpus of `n` copies of one recording, in two directories.
fn corpus(n: usize) -> tempfile::TempDir {
    let (dir, path) = recorded(&[]);
    std::fs::create_dir(dir.path().join("transcripts/more")).unwrap();
    for i in 1..n {
        let sub = if i % 2 == 0 { "" } else { "more/" };
        std::fs::copy(
            &path,
            dir.path()
                .join(format!("transcripts/{sub}copy-{i:02}.jsonl")),
        )
        .unwrap();
    }
    dir
}

/// The JSON report lines of a run, with timings removed.
fn json_report(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<Value>) {
    let output = check(dir)
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let mut lines = json_lines(&output.stdout);
    for line in &mut lines {
        if let Some(object) = line.as_object_mut() {
            object.remove("elapsed_ms");
        }
    }
    (output.status.code(), lines)
}

fn transcript_paths(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|line| line["type"] == "transcript")
        .map(|line| line["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn partitions_cover_every_transcript_exactly_once() {
    let dir = corpus(7);
    let (_, all) = json_report(dir.path(), &["--no-probes"]);
    let all = transcript_paths(&all);
    assert_eq!(all.len(), 7);
    let mut seen = Vec::new();
    for index in 1..=3 {
        let (code, lines) = json_report(
            dir.path(),
            &["--no-probes", "--partition", &format!("{index}/3")],
        );
        assert_eq!(code, Some(0));
        seen.extend(transcript_paths(&lines));
    }
    seen.sort();
    assert_eq!(seen, all);
}

#[test]
fn parallel_jobs_report_what_one_job_reports() {
    let dir = corpus(6);
    let one = json_report(dir.path(), &["--jobs", "1"]);
    let many = json_report(dir.path(), &["--jobs", "4"]);
    assert_eq!(one.0, Some(0));
    assert_eq!(one, many);
    assert_eq!(transcript_paths(&one.1).len(), 6);
    let laws = |side: &str| {
        one.1
            .iter()
            .filter(|line| line["type"] == "law" && line["side"] == side)
            .count()
    };
    assert_eq!(laws("server"), 21);
    // Each transcript's host, judged.
    assert_eq!(laws("host"), 6 * 12);
}

#[test]
fn probe_runs_are_dealt_round_robin_across_partitions() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("transcripts")).unwrap();
    // Sorted, the transcripts of the first command come first: dealt by
    // the position of their first transcripts, both probe runs would land
    // in share 1.
    for (name, args) in [
        ("a-1", &[][..]),
        ("a-2", &[]),
        ("b-1", &["--echo-suffix", "?"]),
        ("b-2", &["--echo-suffix", "?"]),
    ] {
        let path = dir.path().join(format!("transcripts/{name}.jsonl"));
        record(&path, args, &session());
    }
    let mut probed = Vec::new();
    for index in 1..=2 {
        let (code, lines) = json_report(dir.path(), &["--partition", &format!("{index}/2")]);
        assert_eq!(code, Some(0));
        let server_laws = |line: &&Value| line["type"] == "law" && line["side"] == "server";
        let commands: BTreeSet<String> = lines
            .iter()
            .filter(server_laws)
            .map(|line| line["command"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(commands.len(), 1, "share {index}: {commands:?}");
        let laws = lines.iter().filter(server_laws).count();
        assert_eq!(laws, 21);
        probed.extend(commands);
    }
    // Each command once, in one share.
    probed.sort();
    probed.dedup();
    assert_eq!(probed.len(), 2);
}

#[test]
fn a_baseline_passes_known_findings_fails_new_ones_and_stale_entries() {
    let (dir, _) = recorded(&[]);
    let with_baseline = ["--baseline", "baseline.json"];
    // Adopt the gate on a server that fails: the baseline records the finding.
    replay(dir.path(), &["--write-baseline", "baseline.json"], CHANGED)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("Wrote baseline: baseline.json"));
    let known = stdout_with_code(&mut replay(dir.path(), &with_baseline, CHANGED), 0);
    assert!(
        known.contains(" KNOWN transcripts/session.jsonl"),
        "{known}"
    );
    assert!(known.contains("known[transcript-match]"));

    // A new finding fails.
    let other = dir.path().join("transcripts/other.jsonl");
    record(
        &other,
        &[],
        &[
            vec![initialize(1)],
            vec![
                notification("notifications/initialized"),
                request(
                    json!(2),
                    "tools/call",
                    json!({"name": "echo", "arguments": {"text": "new"}}),
                ),
            ],
        ],
    );
    let new = stdout_with_code(&mut replay(dir.path(), &with_baseline, CHANGED), 1);
    assert!(new.contains("  FAIL transcripts/other.jsonl"), "{new}");
    std::fs::remove_file(&other).unwrap();

    // Fixed: the baseline entry is stale, and that fails too, until the
    // baseline is rewritten.
    let stdout = stdout_with_code(&mut replay(dir.path(), &with_baseline, &[]), 1);
    assert!(
        stdout.contains(" STALE transcript-match transcripts/session.jsonl:"),
        "{stdout}"
    );
    assert!(stdout.contains("1 stale"), "{stdout}");

    // A server that cannot start judges nothing: its entries are not stale.
    let unchecked = check(dir.path())
        .args(["--no-probes", "--baseline", "baseline.json", "transcripts"])
        .args(["--", "/nonexistent/server"])
        .output()
        .unwrap();
    assert_eq!(unchecked.status.code(), Some(2));
    let stdout = stdout_of(&unchecked);
    assert!(stdout.contains("ERROR "), "{stdout}");
    assert!(!stdout.contains("STALE"), "{stdout}");
}

#[test]
fn json_lines_carry_every_field_of_a_finding_and_junit_is_well_formed_xml() {
    let (dir, _) = recorded(&[]);
    let (code, stdout) = status_and_stdout(check(dir.path()).args([
        "--format",
        "json",
        "--junit",
        "report.xml",
        "--",
        fixture_server(),
        "--echo-suffix",
        "!",
        "--break",
        "cancel-tolerated",
    ]));
    assert_eq!(code, Some(1), "{stdout}");
    let lines = json_lines(stdout.as_bytes());
    let types: BTreeSet<&str> = lines
        .iter()
        .map(|line| line["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "finding",
            "host",
            "law",
            "requirement",
            "summary",
            "transcript"
        ]
        .into_iter()
        .collect()
    );
    // Every law and finding says the side it judges.
    for line in lines.iter().filter(|line| line["type"] != "summary") {
        match line["type"].as_str().unwrap() {
            "law" | "finding" => {
                assert!(line["side"] == "server" || line["side"] == "host", "{line}")
            }
            _ => {}
        }
    }
    let host = lines.iter().find(|line| line["type"] == "host").unwrap();
    assert_eq!(host["source"], "transcripts/session.jsonl");
    assert_eq!(host["host"], "tests 0");
    assert_eq!(host["status"], "pass");
    // One line per requirement of the registry, each with an outcome; a
    // held one was observed, and one not observed says why.
    let requirements: Vec<&Value> = lines
        .iter()
        .filter(|line| line["type"] == "requirement")
        .collect();
    assert!(!requirements.is_empty());
    for line in &requirements {
        // A server's requirement names its command; a host's, what the
        // host was judged from and its name.
        let subject = if line["side"] == "host" {
            assert_eq!(line["host"], "tests 0", "{line}");
            "source"
        } else {
            "command"
        };
        for field in ["id", "side", "level", subject, "status"] {
            assert!(line[field].is_string(), "{field}: {line}");
        }
        let status = line["status"].as_str().unwrap();
        assert_eq!(
            line["reason"].is_string(),
            status == "not-observed" || status == "not-applicable",
            "{line}"
        );
    }
    assert!(
        requirements
            .iter()
            .any(|line| line["id"] == "srv-response-same-id" && line["status"] == "held"),
        "{requirements:?}"
    );
    let summary = lines.last().unwrap();
    assert_eq!(
        summary["requirements"]["total"].as_u64(),
        Some(requirements.len() as u64)
    );
    let findings: Vec<&Value> = lines
        .iter()
        .filter(|line| line["type"] == "finding")
        .collect();
    let replayed = findings
        .iter()
        .find(|f| f["law"] == "transcript-match")
        .unwrap();
    assert_eq!(replayed["severity"], "error");
    assert_eq!(replayed["disposition"], "error");
    assert_eq!(replayed["profile"], "core");
    assert_eq!(
        replayed["cites"],
        "the transcript's recorded lines (docs/transcript-format.md#lines); \
         its header's ignore rules (docs/transcript-format.md#the-header)"
    );
    assert_eq!(replayed["location"]["kind"], "transcript");
    assert_eq!(replayed["location"]["path"], "transcripts/session.jsonl");
    assert!(replayed["location"]["line"].as_u64().unwrap() > 1);
    assert!(
        replayed["diff"]
            .as_str()
            .unwrap()
            .starts_with("--- expected: ")
    );
    let probed = findings
        .iter()
        .find(|f| f["law"] == "cancel-tolerated")
        .unwrap();
    assert_eq!(probed["location"]["kind"], "probe");
    assert!(probed["location"]["step"].is_string());
    assert_eq!(
        probed["cites"],
        "MCP-CORE r1 §1¶09 (docs/mcp-core.md#s1p09)"
    );
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["exit"], 1);
    assert_eq!(summary["failed"], 2);

    let xml = std::fs::read_to_string(dir.path().join("report.xml")).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    // The transcript, the laws, the server's requirements, the host's
    // requirements and the host's laws.
    assert_eq!(xml.matches("<testsuite ").count(), 5, "{xml}");
    // Failed test cases: the changed exchange, the broken law, and each
    // requirement the findings break; one test case per requirement, and
    // per host law.
    let failed_requirements = requirements
        .iter()
        .filter(|line| line["status"] == "failed")
        .count();
    let tests = 27 + 12 + requirements.len();
    let failures = 2 + failed_requirements;
    assert!(
        xml.contains(&format!(
            "<testsuites name=\"mcp-replay\" tests=\"{tests}\" failures=\"{failures}\" "
        )),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<testsuite name=\"host laws: tests 0 (transcripts/session.jsonl)\" tests=\"12\""
        ),
        "{xml}"
    );
    if let Ok(python) = which("python3") {
        let parsed = std::process::Command::new(python)
            .args([
                "-c",
                "import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); \
                 print(len(d.getElementsByTagName('testcase')))",
            ])
            .arg(dir.path().join("report.xml"))
            .output()
            .unwrap();
        assert!(
            parsed.status.success(),
            "{}",
            String::from_utf8_lossy(&parsed.stderr)
        );
        // Six exchanges, twenty-one laws, twelve host laws and the
        // requirements.
        assert_eq!(
            String::from_utf8_lossy(&parsed.stdout).trim(),
            tests.to_string()
        );
    }
}

#[test]
fn a_junit_file_that_cannot_be_written_exits_2_before_anything_runs() {
    let (dir, _) = recorded(&[]);
    let output = check(dir.path())
        .args(["--no-probes", "--junit", "no/such/dir/report.xml"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert_eq!(stdout_of(&output), "");
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("mcp-replay: error: cannot write the JUnit report `no/such/dir/report.xml`"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // A run that does not start leaves no JUnit file of its own making.
    check(dir.path())
        .args(["--junit", "report.xml", "--baseline", "missing.json"])
        .assert()
        .code(2);
    assert!(!dir.path().join("report.xml").exists());
}

fn which(program: &str) -> Result<PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .ok_or(())
}

#[test]
fn probes_alone_gate_a_server_with_nothing_recorded_and_warnings_pass_unless_denied() {
    let dir = tempfile::tempdir().unwrap();
    let probed = |args: &[&str], server: &[&str], code: i32, expected: &str| {
        check(dir.path())
            .args(args)
            .args(["--", fixture_server()])
            .args(server)
            .assert()
            .code(code)
            .stdout(predicate::str::contains(expected));
    };
    probed(
        &[],
        &[],
        0,
        "Summary: 21 laws of 1 server (19 held, 2 skipped) under profile core, in ",
    );
    probed(&[], &["--break", "ping"], 1, "\n  FAIL ping\n");
    probed(
        &["--waive", "ping"],
        &["--break", "ping"],
        0,
        "WAIVED ping\n",
    );
    let sdk = ["--like", "python-sdk"];
    // Warnings pass unless denied; the core profile fails the same server.
    probed(&["--profile", "spec"], &sdk, 0, "\n  WARN unknown-tool\n");
    let denied = ["--profile", "spec", "--deny-warnings"];
    probed(&denied, &sdk, 1, "error[unknown-tool]");
    probed(&[], &sdk, 1, "\n  FAIL unknown-tool\n");
}

/// A green run says what it did not observe, and `--deny-unobserved`
/// makes that a failure: the same clean server passes without it and fails
/// with it, in every format.
/// See: #26
#[test]
fn requirements_not_observed_are_counted_and_fail_only_when_denied() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let mut cmd = check(dir.path());
        cmd.args(["--no-replay"])
            .args(args)
            .args(["--", fixture_server()]);
        status_and_stdout(&mut cmd)
    };
    let (code, stdout) = run(&[]);
    assert_eq!(code, Some(0), "{stdout}");
    let line = stdout
        .lines()
        .find(|line| line.starts_with("Requirements: "))
        .unwrap_or_else(|| panic!("no count line: {stdout}"));
    assert!(line.contains(" not observed"), "{line}");
    assert!(!line.contains("--deny-unobserved"), "{line}");
    let (code, stdout) = run(&["--deny-unobserved"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("(--deny-unobserved: not observed fails the run)"),
        "{stdout}"
    );
    let (code, stdout) = run(&["--deny-unobserved", "--format", "json"]);
    assert_eq!(code, Some(1), "{stdout}");
    let lines = json_lines(stdout.as_bytes());
    let summary = lines.last().unwrap();
    assert_eq!(summary["exit"], 1);
    assert!(summary["requirements"]["not_observed"].as_u64().unwrap() > 0);
}

#[test]
fn a_server_command_alone_replays_transcripts_when_they_exist_unless_no_replay() {
    let (dir, _) = recorded(&[]);
    let run = |args: &[&str]| {
        let mut cmd = check(dir.path());
        cmd.args(args).args(["--", fixture_server()]).args(CHANGED);
        cmd.assert()
    };
    // `transcripts/` exists, so the changed answer is a mismatch.
    run(&[]).code(1).stdout(predicate::str::contains(
        "error[transcript-match] transcripts/session.jsonl",
    ));
    run(&["--no-replay"])
        .code(0)
        .stdout(predicate::str::contains(
            "Summary: 21 laws of 1 server (19 held, 2 skipped) under profile core, in ",
        ));
    // The directory config counts all the same, with or without replay.
    std::fs::write(dir.path().join("mcp-replay.json"), r#"{"waive": ["ping"]}"#).unwrap();
    let broken = ["--", fixture_server(), "--break", "ping"];
    check(dir.path())
        .args(broken)
        .assert()
        .stdout(predicate::str::contains("WAIVED ping\n"));
    check(dir.path())
        .arg("--no-replay")
        .args(broken)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("WAIVED ping\n"));
    // It needs a command, and takes no transcripts.
    check(dir.path())
        .arg("--no-replay")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--no-replay"));
    check(dir.path())
        .args(["--no-replay", "transcripts", "--", fixture_server()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn a_directory_config_waives_and_ignores() {
    let (dir, _) = recorded(&[]);
    let config = dir.path().join("transcripts/mcp-replay.json");
    std::fs::write(&config, r#"{"ignore": ["/result/content/*/text"]}"#).unwrap();
    replay(dir.path(), &[], CHANGED).assert().code(0);
    std::fs::write(&config, r#"{"waive": ["transcript-match"]}"#).unwrap();
    replay(dir.path(), &[], CHANGED)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("waived[transcript-match]"));
    // A mask hides the changed part of a string, and only that part.
    std::fs::write(&config, r#"{"mask": ["^hello!?$"]}"#).unwrap();
    replay(dir.path(), &[], CHANGED).assert().code(0);
    replay(dir.path(), &[], &["--echo-suffix", "?"])
        .assert()
        .code(1);
    std::fs::write(&config, r#"{"mask": ["("]}"#).unwrap();
    replay(dir.path(), &[], CHANGED)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "mcp-replay.json:1:11: `mask`: mask `(` is no regular expression",
        ));
    std::fs::write(&config, r#"{"waive": ["no-such-law"]}"#).unwrap();
    replay(dir.path(), &[], CHANGED)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "mcp-replay.json:1:1: `waive`: unknown law `no-such-law`",
        ));
}

#[test]
fn a_config_above_the_given_path_applies_up_to_the_current_directory() {
    let (dir, _) = recorded(&[]);
    // The config sits in the working directory, above `transcripts/`.
    std::fs::write(
        dir.path().join("mcp-replay.json"),
        r#"{"ignore": ["/result/content/*/text"]}"#,
    )
    .unwrap();
    let run = |path: &str| {
        let mut cmd = check(dir.path());
        cmd.args(["--no-probes", path, "--", fixture_server()])
            .args(CHANGED);
        cmd.assert()
    };
    run("transcripts").code(0);
    // The file alone, as a bless hint names it, gets the same settings.
    run("transcripts/session.jsonl").code(0);
    // Outside the working directory, the search stops at the given path.
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(outside.path().join("work")).unwrap();
    let mut cmd = check(&outside.path().join("work"));
    cmd.args(["--no-probes"])
        .arg(dir.path().join("transcripts"))
        .args(["--", fixture_server()])
        .args(CHANGED);
    cmd.assert()
        .code(1)
        .stdout(predicate::str::contains("error[transcript-match]"));
}

#[test]
fn usage_errors_exit_2_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let fails = |args: &[&str]| check(dir.path()).args(args).assert().code(2);
    fails(&[])
        .stderr(predicate::str::contains(
            "mcp-replay: error: no transcripts found in `transcripts/` (it does not exist)",
        ))
        .stderr(predicate::str::contains("hint: record one with"));
    fails(&["--waive", "nope", "--", "x"]).stderr(predicate::str::contains(
        "unknown law `nope`; the laws are: quiet-before-serving",
    ));
    fails(&["--partition", "3/2", "--", "x"])
        .stderr(predicate::str::contains("`3/2` is not a partition"));
    fails(&["--", "/nonexistent/server"]).stdout(predicate::str::contains(
        "ERROR cannot start server `/nonexistent/server`",
    ));
}

#[test]
fn a_missing_working_directory_is_named_once_with_the_header_line() {
    let (dir, path) = recorded(&[]);
    let text = std::fs::read_to_string(&path).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let header = header.replacen('{', r#"{"cwd":"no/such/dir","#, 1);
    std::fs::write(&path, format!("{header}\n{rest}")).unwrap();
    let stdout = stdout_with_code(&mut check(dir.path()), 2);
    assert_eq!(stdout.matches("cannot start server").count(), 1, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "transcripts/session.jsonl:1: cannot start server `{}`: its working directory `transcripts/no/such/dir` (the header's `cwd`) does not exist",
            fixture_server()
        )),
        "{stdout}"
    );
}

#[test]
fn a_server_that_cannot_start_is_a_junit_error_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("report.xml");
    check(dir.path())
        .args([
            "--junit",
            junit.to_str().unwrap(),
            "--",
            "/nonexistent/server",
        ])
        .assert()
        .code(2);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"<testsuites name="mcp-replay" tests="1" failures="0" errors="1" "#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<error message="cannot start server `/nonexistent/server`: "#),
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");
}

#[test]
fn a_law_with_several_findings_is_one_junit_failure_listing_them() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("report.xml");
    // Two cancellations answered: two findings of one law.
    check(dir.path())
        .args(["--junit", junit.to_str().unwrap(), "--no-replay", "--"])
        .args([fixture_server(), "--break", "cancel-tolerated"])
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let case = xml
        .split("<testcase ")
        .find(|case| case.starts_with(r#"name="cancel-tolerated""#))
        .unwrap_or_else(|| panic!("no cancel-tolerated case in {xml}"));
    let case = &case[..case.find("</testcase>").unwrap()];
    assert_eq!(case.matches("<failure ").count(), 1, "{case}");
    // The body lists each finding, with its citation.
    let n = case.matches("\ncites: ").count();
    assert!(n >= 2, "{case}");
    assert!(
        case.contains(&format!(r#"<failure message="{n} findings, the first: "#)),
        "{case}"
    );
}

/// A banner before serving breaks `quiet-before-serving` and
/// `stdout-is-protocol` with one line, which every probe session meets:
/// one finding of the quiet start, seen three times; the test case of
/// `stdout-is-protocol` still fails, in its own words, naming it.
#[test]
fn a_law_broken_by_another_findings_cause_fails_its_junit_case_in_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("report.xml");
    check(dir.path())
        .args(["--junit", junit.to_str().unwrap(), "--no-replay", "--"])
        .args([fixture_server(), "--break", "quiet-before-serving"])
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let case = |name: &str| {
        let case = xml
            .split("<testcase ")
            .find(|case| case.starts_with(&format!(r#"name="{name}""#)))
            .unwrap_or_else(|| panic!("no {name} case in {xml}"));
        case[..case.find("</testcase>").unwrap()].to_owned()
    };
    let stdout = case("stdout-is-protocol");
    assert_eq!(stdout.matches("<failure ").count(), 1, "{stdout}");
    assert!(
        stdout.contains("a stdout line is no JSON-RPC message"),
        "{stdout}"
    );
    assert!(
        stdout.contains("one cause: reported as error[quiet-before-serving]"),
        "{stdout}"
    );
    let quiet = case("quiet-before-serving");
    assert!(quiet.contains("also breaks: stdout-is-protocol"), "{quiet}");
    assert!(quiet.contains("seen 3 times: also at "), "{quiet}");
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let (dir, _) = recorded(&[]);
    let plain = check(dir.path()).arg("--no-probes").output().unwrap();
    assert!(!stdout_of(&plain).contains('\x1b'));
    let always = check(dir.path())
        .args(["--no-probes", "--color", "always"])
        .output()
        .unwrap();
    assert!(
        stdout_of(&always).contains("\x1b[32m  PASS\x1b[0m"),
        "{}",
        stdout_of(&always)
    );
}

#[test]
fn a_closed_stdout_is_no_error() {
    let (dir, _) = recorded(&[]);
    // The server starts slowly, so that the report comes long after the
    // pipe's last reader is gone: a process the test harness starts on
    // another thread meanwhile holds the read end for an instant.
    let mut child = checker(dir.path())
        .args(["check", "--no-probes", "--", fixture_server()])
        .args(CHANGED)
        .args(["--slow-start", "300"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before the report is written, as `| head` does;
    // the report has a failure, so only the closed pipe can make it 0.
    drop(child.stdout.take());
    let status = Waiter::new(child).wait();
    assert_eq!(status.code(), Some(0), "{status:?}");
}

/// `mcp-replay` in `dir` as a child of our own, in a process group of its
/// own (for [`Waiter`]), with stderr dropped.
fn checker(dir: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-replay"));
    cmd.current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    cmd
}

/// A server that hangs, ignoring SIGTERM, with a child of its own.
const HANGS: &str = "trap '' TERM; (sleep 600; :) & echo $$ > \"$FIFO\"; wait";

#[test]
fn a_terminated_check_takes_its_servers_with_it() {
    let status = signalled_check(
        "terminated",
        rustix::process::Signal::TERM,
        &["--no-probes"],
        HANGS,
    );
    assert_eq!(status.code(), Some(143));
}

#[test]
fn an_interrupted_check_takes_its_replays_and_probes_with_it() {
    let status = signalled_check(
        "interrupted",
        rustix::process::Signal::INT,
        &["--jobs", "2"],
        HANGS,
    );
    assert_eq!(status.code(), Some(130));
}

#[test]
fn a_check_whose_terminal_hangs_up_takes_its_servers_with_it() {
    let status = signalled_check(
        "hung-up",
        rustix::process::Signal::HUP,
        &["--no-probes"],
        HANGS,
    );
    assert_eq!(status.code(), Some(129));
}

#[test]
fn an_interrupted_check_takes_the_children_of_a_server_that_has_exited() {
    // The server exits at once, but its child keeps stdout open: the
    // checker has reaped the server and waits on the child's pipe.
    let status = signalled_check(
        "orphaned",
        rustix::process::Signal::INT,
        &["--no-probes"],
        "(sleep 600; :) & echo $$ > \"$FIFO\"; exit 0",
    );
    assert_eq!(status.code(), Some(130));
}

/// Runs `check` with `args` against the server `script` (a shell script
/// that writes its pid to the FIFO `$FIFO` and has a child of its own),
/// signals the checker once the server runs (and, if the server exits, once
/// the checker has reaped it), and returns the checker's exit status once no
/// process of the server is left.
fn signalled_check(
    name: &str,
    signal: rustix::process::Signal,
    args: &[&str],
    script: &str,
) -> std::process::ExitStatus {
    let (dir, _) = recorded(&[]);
    let marker = format!("{name}-check-{}", std::process::id());
    let fifo = dir.path().join("started");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let child = checker(dir.path())
        .args(["check", "--startup-timeout", "600s", "--timeout", "600s"])
        .args(args)
        .arg("--")
        .args(["sh", "-c", script, &marker])
        .env("FIFO", &fifo)
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let reader_fifo = fifo.clone();
    std::thread::spawn(move || {
        let mut text = String::new();
        let read = std::fs::File::open(reader_fifo).and_then(|mut f| f.read_to_string(&mut text));
        let _ = tx.send(read.map(|_| text));
    });
    let pid = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("a server starts")
        .unwrap();
    // Servers started side by side may all have written their pid.
    let pid: i32 = pid.lines().next().unwrap_or_default().parse().unwrap();
    // The checker (whose argv holds the marker too) and the server's child,
    // at least.
    let running = processes_with(&marker);
    assert!(running.len() >= 2, "{running:?}");
    // A server that exits on its own is reaped by the checker: wait for it
    // to be gone, not a zombie.
    if script.contains("exit 0") {
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            assert!(Instant::now() < deadline, "the checker never reaped {pid}");
            std::thread::yield_now();
        }
    }
    let pid = rustix::process::Pid::from_child(&child);
    let mut waiter = Waiter::new(child);
    rustix::process::kill_process(pid, signal).unwrap();
    let status = waiter.wait();
    assert_no_process_with(&marker);
    status
}

/// A session that asks the volatile tools of `fixture-server --volatile`
/// (and `echo`, whose answer a flag can change for real).
fn volatile_session() -> Vec<Vec<String>> {
    vec![
        vec![initialize(1)],
        vec![
            notification("notifications/initialized"),
            request(json!(2), "tools/call", json!({"name": "now"})),
        ],
        vec![request(json!(3), "tools/call", json!({"name": "token"}))],
        vec![request(
            json!(4),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hello"}}),
        )],
    ]
}

/// A directory holding `transcripts/volatile.jsonl`, recorded against
/// `fixture-server --volatile`.
fn recorded_volatile() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("transcripts")).unwrap();
    let path = dir.path().join("transcripts/volatile.jsonl");
    record(&path, &["--volatile"], &volatile_session());
    (dir, path)
}

/// A clock's answer and a random token change on every run: noise, named
/// by its pointer and the rule that pins it, never a failure. See: #10
#[test]
fn values_that_change_by_themselves_are_noise_not_regressions() {
    let (dir, _) = recorded_volatile();
    let output = check(dir.path())
        .args(["--no-probes", "--format", "json"])
        .assert()
        .code(0);
    let lines = json_lines(&output.get_output().stdout);
    let notes: Vec<&str> = lines
        .iter()
        .filter(|line| line["type"] == "transcript")
        .flat_map(|line| line["notes"].as_array().unwrap().iter())
        .map(|note| note.as_str().unwrap())
        .collect();
    assert_eq!(
        notes,
        [
            "`tools/call` id=2 (line 5): `/result/content/0/text/datetime` is noise (a date and time on both sides): not compared; `--bless` pins it with the ignore rule `/result/content/0/text/datetime`",
            "`tools/call` id=3 (line 7): `/result/content/0/text` is noise (two live runs answered it differently): not compared; `--bless` pins it with the ignore rule `/result/content/0/text`",
        ],
        "{lines:#?}"
    );
    assert!(
        lines.iter().all(|line| line["type"] != "finding"),
        "{lines:#?}"
    );
}

/// Noise does not hide a regression beside it, and `--fail-on-noise` makes
/// noise fail too. See: #10
#[test]
fn noise_hides_no_regression_and_fails_on_request() {
    let (dir, path) = recorded_volatile();
    let server = format!("{} --volatile --echo-suffix !", fixture_server());
    let args: Vec<&str> = server.split(' ').collect();
    let stdout = stdout_with_code(
        check(dir.path())
            .args([
                "--no-probes",
                "--color",
                "never",
                "transcripts/volatile.jsonl",
                "--",
            ])
            .args(&args),
        1,
    );
    let failures: Vec<&str> = stdout.lines().filter(|l| l.contains("error[")).collect();
    assert_eq!(failures.len(), 1, "{stdout}");
    assert!(
        failures[0].contains("`tools/call` id=4 (line 9)"),
        "{stdout}"
    );
    let stdout = stdout_with_code(
        check(dir.path()).args(["--no-probes", "--color", "never", "--fail-on-noise"]),
        1,
    );
    let failures = stdout.lines().filter(|l| l.contains("error[")).count();
    assert_eq!(failures, 2, "{stdout}");
    assert!(path.exists());
}

/// `--bless` writes the learned rules into the header, where a review sees
/// them; the next check has nothing left to say. See: #10
#[test]
fn bless_pins_the_noise_with_ignore_rules_in_the_header() {
    let (dir, path) = recorded_volatile();
    let before = std::fs::read_to_string(&path).unwrap();
    check(dir.path())
        .args(["--no-probes", "--bless"])
        .assert()
        .code(0);
    let after = std::fs::read_to_string(&path).unwrap();
    let header: Value = serde_json::from_str(after.lines().next().unwrap()).unwrap();
    assert_eq!(
        header["ignore"],
        json!(["/result/content/0/text", "/result/content/0/text/datetime"])
    );
    // Only the header changed.
    assert_eq!(
        before.lines().skip(1).collect::<Vec<_>>(),
        after.lines().skip(1).collect::<Vec<_>>()
    );
    let output = check(dir.path())
        .args(["--no-probes", "--format", "json"])
        .assert()
        .code(0);
    let lines = json_lines(&output.get_output().stdout);
    let transcript = lines.iter().find(|l| l["type"] == "transcript").unwrap();
    assert_eq!(transcript["notes"], json!([]), "{lines:#?}");
}

#[test]
fn a_duration_out_of_range_is_a_usage_error_naming_the_flag_or_file() {
    let (dir, _) = recorded(&[]);
    for flag in ["--timeout", "--grace", "--settle", "--startup-timeout"] {
        check(dir.path())
            .args([flag, "9223372036854775807s"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(flag))
            .stderr(predicate::str::contains("at most 24h"));
    }
    for field in ["timeout", "startupTimeout", "settle", "grace"] {
        std::fs::write(
            dir.path().join("transcripts/mcp-replay.json"),
            format!(r#"{{"{field}": "9223372036854775807s"}}"#),
        )
        .unwrap();
        check(dir.path())
            .arg("--no-probes")
            .assert()
            .code(2)
            .stderr(predicate::str::contains("mcp-replay.json"))
            .stderr(predicate::str::contains(format!("`{field}`")))
            .stderr(predicate::str::contains("at most 24h"));
    }
}

/// Runs `check --jobs 1 --no-probes <args>` on two transcripts: `a.jsonl`,
/// recorded from the fixture (it passes), and `b.jsonl`, whose server
/// touches a file when it starts and then hangs. Once that file exists
/// (`a.jsonl` has finished, since one job runs at a time), sends `signal`
/// to the checker; returns its exit status, its stdout and the directory.
fn interrupted_while_the_second_hangs(
    name: &str,
    signal: rustix::process::Signal,
    args: &[&str],
) -> (std::process::ExitStatus, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let transcripts = dir.path().join("transcripts");
    std::fs::create_dir(&transcripts).unwrap();
    record(&transcripts.join("a.jsonl"), &[], &session());
    let marker = format!("{name}-report-{}", std::process::id());
    let started = dir.path().join("b-started");
    let script = format!("touch '{}'; exec sleep 600", started.display());
    let header = Header::new(
        vec!["sh".into(), "-c".into(), script, marker.clone()],
        "2026-01-01T00:00:00Z".to_owned(),
    );
    let mut writer = TranscriptWriter::create(transcripts.join("b.jsonl"), &header, true).unwrap();
    writer
        .line(Direction::ClientToServer, initialize(1).as_bytes(), true)
        .unwrap();
    drop(writer);

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-replay"))
        .current_dir(dir.path())
        .args(["check", "--jobs", "1", "--no-probes"])
        .args(["--startup-timeout", "600s", "--timeout", "600s"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    let pid = rustix::process::Pid::from_child(&child);
    let mut waiter = Waiter::new(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the second server never started");
        std::thread::yield_now();
    }
    rustix::process::kill_process(pid, signal).unwrap();
    let status = waiter.wait();
    assert_no_process_with(&marker);
    let stdout = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    (status, stdout, dir)
}

#[test]
fn a_terminated_check_reports_what_finished_and_what_did_not_run() {
    let (status, stdout, dir) = interrupted_while_the_second_hangs(
        "terminated",
        rustix::process::Signal::TERM,
        &["--junit", "report.xml"],
    );
    assert_eq!(status.code(), Some(143), "{stdout}");
    assert!(
        stdout.contains("  PASS transcripts/a.jsonl  6 exchanges"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  SKIP transcripts/b.jsonl  not run: interrupted by SIGTERM"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Summary: 1 transcript (1 passed), 12 host laws of 1 host (5 held, 7 skipped), 1 not run under profile core, in "),
        "{stdout}"
    );
    assert!(stdout.contains("Interrupted by SIGTERM"), "{stdout}");
    let xml = std::fs::read_to_string(dir.path().join("report.xml")).unwrap();
    assert!(
        xml.contains("<testsuite name=\"transcripts/a.jsonl\" tests=\"6\" failures=\"0\""),
        "{xml}"
    );
    assert!(
        xml.contains("<testsuite name=\"interrupted by SIGTERM\" tests=\"1\""),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<testcase name=\"transcripts/b.jsonl\" classname=\"interrupted by SIGTERM\">"
        ),
        "{xml}"
    );
}

#[test]
fn an_interrupted_check_says_so_in_json_lines() {
    let (status, stdout, _dir) = interrupted_while_the_second_hangs(
        "interrupted",
        rustix::process::Signal::INT,
        &["--format", "json"],
    );
    assert_eq!(status.code(), Some(130), "{stdout}");
    let lines = json_lines(stdout.as_bytes());
    let passed: Vec<&Value> = lines
        .iter()
        .filter(|line| line["type"] == "transcript")
        .collect();
    assert_eq!(passed.len(), 1, "{stdout}");
    assert_eq!(passed[0]["path"], "transcripts/a.jsonl");
    assert_eq!(passed[0]["status"], "pass");
    let interrupted = lines
        .iter()
        .find(|line| line["type"] == "interrupted")
        .unwrap_or_else(|| panic!("no interrupted line: {stdout}"));
    assert_eq!(
        *interrupted,
        json!({"type": "interrupted", "signal": "SIGINT",
               "transcripts": ["transcripts/b.jsonl"], "commands": []})
    );
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["exit"], 130);
}

#[test]
fn secrets_known_by_their_shape_or_the_config_are_recorded_as_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let transcripts = dir.path().join("transcripts");
    std::fs::create_dir(&transcripts).unwrap();
    std::fs::write(
        transcripts.join("mcp-replay.json"),
        r#"{"redactEnv": ["TEAM_NAME_VALUE"], "redact": ["order-[0-9]{6}"]}"#,
    )
    .unwrap();
    let secrets = [
        ("GH_PAT", "Zq8VnW2rLk5tYx3Bm9Jd"),
        ("STRIPE_SK", "sk_live_51H8abcdefGHIJKLmnop"),
        (
            "JWT",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        ),
        ("BEARER", "dGhpcyBpcyBhIHNlY3JldCB0b2tlbjE5"),
        ("SOME_VALUE", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
        ("TEAM_NAME_VALUE", "the-blue-team"),
    ];
    let url = "postgres://app:s3cr3t-pass@db.internal:5432/app";
    let mut said: Vec<&str> = secrets.iter().map(|(_, value)| *value).collect();
    said.extend([url, "order-123456", "/usr/local/share/pat"]);
    let input = format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"said": said}})
    );
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay");
    cmd.current_dir(dir.path())
        .args(["record", "-o", "transcripts/t.jsonl", "--"])
        .args(crate::util::python(crate::util::ECHO, &[]))
        .env("DATABASE_URL", url)
        .env("PAT_DIR", "/usr/local/share/pat")
        .write_stdin(input.clone())
        .timeout(Duration::from_secs(60));
    for (name, value) in secrets {
        cmd.env(name, value);
    }
    let output = cmd.output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    // What is forwarded stays exact.
    assert_eq!(output.stdout, format!("{input}bye").into_bytes());

    let text = std::fs::read_to_string(transcripts.join("t.jsonl")).unwrap();
    for (name, value) in secrets {
        assert!(!text.contains(value), "{name} leaked: {text}");
        assert!(
            text.contains(&format!("[REDACTED:{name}]")),
            "{name}: {text}"
        );
    }
    assert!(!text.contains("s3cr3t-pass"), "{text}");
    assert!(
        text.contains("postgres://app:[REDACTED:DATABASE_URL:password]@db.internal:5432/app"),
        "{text}"
    );
    assert!(!text.contains("order-123456"), "{text}");
    assert!(text.contains("[REDACTED:pattern-1]"), "{text}");
    // A path is no secret, whatever its variable is called.
    assert!(text.contains("/usr/local/share/pat"), "{text}");
}

#[test]
fn the_configs_redaction_applies_to_what_check_reports() {
    // A value no rule takes for a secret, named in the config, and a
    // pattern the config adds: the server appends both to every echo.
    let (dir, _) = recorded(&[]);
    std::fs::write(
        dir.path().join("transcripts/mcp-replay.json"),
        r#"{"redactEnv": ["TEAM_WORD"], "redact": ["order-[0-9]{6}"]}"#,
    )
    .unwrap();
    let server = format!(
        r#"exec {} --echo-suffix "$TEAM_WORD order-654321""#,
        fixture_server()
    );
    let output = check(dir.path())
        .env("TEAM_WORD", "the-blue-team")
        .args(["--no-probes", "--format", "json"])
        .args(["transcripts", "--", "sh", "-c", &server])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = stdout_of(&output);
    assert!(!stdout.contains("the-blue-team"), "{stdout}");
    assert!(!stdout.contains("order-654321"), "{stdout}");
    assert!(
        stdout.contains("hello[REDACTED:TEAM_WORD] [REDACTED:pattern-1]"),
        "{stdout}"
    );
}

/// How long a checker may take from a stop signal to its exit in a test: a
/// loaded machine's margin over the second `scripts/bench-signal.sh`
/// measures (the stop used to take 15–19 s).
const PROMPT_EXIT: Duration = Duration::from_secs(3);

/// Starts `check` in `dir` with `args`, waits until `marker` names a
/// running process besides the checker (its server is up), sends `signal`,
/// and returns the exit status, how long after the signal it came, and
/// stdout.
fn stopped_once_running(
    dir: &Path,
    args: &[String],
    marker: &str,
    signal: rustix::process::Signal,
) -> (std::process::ExitStatus, Duration, String) {
    let in_argv = usize::from(args.iter().any(|arg| arg == marker));
    let mut child = checker(dir)
        .arg("check")
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    let pid = rustix::process::Pid::from_child(&child);
    let mut waiter = Waiter::new(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while processes_with(marker).len() <= in_argv {
        assert!(Instant::now() < deadline, "the server never started");
        std::thread::yield_now();
    }
    let signalled = Instant::now();
    rustix::process::kill_process(pid, signal).unwrap();
    let status = waiter.wait();
    let took = signalled.elapsed();
    assert_no_process_with(marker);
    let stdout = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    (status, took, stdout)
}

/// The JUnit file at `path`, asserted whole: one document, its root closed.
fn whole_junit(path: &Path) -> String {
    let xml = std::fs::read_to_string(path).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\""), "{xml}");
    assert!(xml.trim_end().ends_with("</testsuites>"), "{xml}");
    assert_eq!(xml.matches("<testsuites ").count(), 1, "{xml}");
    xml
}

#[test]
fn sigterm_ends_a_check_of_a_server_that_never_answers_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("never-answers-{}", std::process::id());
    let args: Vec<String> = ["--no-replay", "--junit", "j.xml", "--", "sh", "-c"]
        .iter()
        .map(|arg| (*arg).to_owned())
        .chain(["sleep 1000; :".to_owned(), marker.clone()])
        .collect();
    let (status, took, stdout) =
        stopped_once_running(dir.path(), &args, &marker, rustix::process::Signal::TERM);
    assert_eq!(status.code(), Some(143), "{stdout}");
    assert!(took < PROMPT_EXIT, "the stop took {took:?}");
    assert!(
        stdout.contains("not run: interrupted by SIGTERM"),
        "{stdout}"
    );
    let xml = whole_junit(&dir.path().join("j.xml"));
    assert!(
        xml.contains("<skipped message=\"not run: interrupted by SIGTERM\"/>"),
        "{xml}"
    );
}

#[test]
fn sigint_ends_a_check_in_the_middle_of_a_live_servers_call_at_once() {
    // `a.jsonl` passes; `b.jsonl` runs a fixture server that answers the
    // handshake and then takes hours over its first tool call.
    let dir = tempfile::tempdir().unwrap();
    let transcripts = dir.path().join("transcripts");
    std::fs::create_dir(&transcripts).unwrap();
    record(&transcripts.join("a.jsonl"), &[], &session());
    let slow = (36_000_000 + std::process::id()).to_string();
    let b = transcripts.join("b.jsonl");
    record(&b, &[], &session());
    let text = std::fs::read_to_string(&b).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(header).unwrap();
    header["command"] = json!([fixture_server(), "--slow-call", slow]);
    std::fs::write(&b, format!("{header}\n{rest}")).unwrap();

    let args: Vec<String> = [
        "--jobs",
        "1",
        "--no-probes",
        "--junit",
        "j.xml",
        "--timeout",
        "600s",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    let (status, took, stdout) =
        stopped_once_running(dir.path(), &args, &slow, rustix::process::Signal::INT);
    assert_eq!(status.code(), Some(130), "{stdout}");
    assert!(took < PROMPT_EXIT, "the stop took {took:?}");
    assert!(
        stdout.contains("  PASS transcripts/a.jsonl  6 exchanges"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  SKIP transcripts/b.jsonl  not run: interrupted by SIGINT"),
        "{stdout}"
    );
    let xml = whole_junit(&dir.path().join("j.xml"));
    assert!(
        xml.contains("<testsuite name=\"transcripts/a.jsonl\" tests=\"6\" failures=\"0\""),
        "{xml}"
    );
}

#[test]
fn a_check_cancelled_as_ci_cancels_it_writes_its_report_before_the_kill() {
    // `timeout -s TERM -k 5 3`: SIGTERM after 3 s, SIGKILL 5 s later. The
    // run ends by the SIGTERM, so `timeout` says it timed out (124), not
    // that it had to kill (137).
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("ci-cancelled-{}", std::process::id());
    let started = Instant::now();
    let output = std::process::Command::new("timeout")
        .current_dir(dir.path())
        .args([
            "-s",
            "TERM",
            "-k",
            "5",
            "3",
            env!("CARGO_BIN_EXE_mcp-replay"),
        ])
        .args(["check", "--junit", "j.xml", "--no-replay", "--"])
        .args(["sh", "-c", "sleep 1000; :", &marker])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let took = started.elapsed();
    let stdout = stdout_of(&output);
    assert_eq!(output.status.code(), Some(124), "{stdout}");
    assert!(took < Duration::from_secs(3) + PROMPT_EXIT, "took {took:?}");
    assert!(stdout.contains("Interrupted by SIGTERM"), "{stdout}");
    whole_junit(&dir.path().join("j.xml"));
    assert_no_process_with(&marker);
}

/// A transcript that sends no request (its header alone, or notifications
/// alone) asks nothing of a server, so its replay passes against any
/// command, even `false`: it is reported as input that checks nothing (an
/// `ERROR` naming the file, exit 2), never as a pass, probes or not.
// See: #25
#[test]
fn a_transcript_that_sends_no_request_is_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let header = json!({"format": "mcp-replay-transcript", "version": 1,
        "tool": "mcp-replay 0.1.0", "created": "2026-12-01T00:00:00Z", "command": ["false"]});
    let initialized = json!({"t": 0.0, "dir": "c2s",
        "msg": {"jsonrpc": "2.0", "method": "notifications/initialized"}});
    let log = json!({"t": 0.1, "dir": "s2c", "msg": {"jsonrpc": "2.0",
        "method": "notifications/message", "params": {"level": "info", "data": "hi"}}});
    std::fs::write(dir.path().join("empty.jsonl"), format!("{header}\n")).unwrap();
    std::fs::write(
        dir.path().join("quiet.jsonl"),
        format!("{header}\n{initialized}\n{log}\n"),
    )
    .unwrap();
    for name in ["empty.jsonl", "quiet.jsonl"] {
        for server in ["false", "true"] {
            let output = check(dir.path())
                .args(["--no-probes", name, "--", server])
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert_eq!(output.status.code(), Some(2), "{name} {server}: {stdout}");
            assert!(
                stdout.contains(&format!(
                    "ERROR {name}: the transcript records no request (only a header, or only notifications), so replaying it checks nothing"
                )),
                "{name} {server}: {stdout}"
            );
            // No pass for the transcript (its host, judged from what it
            // holds, is reported apart).
            assert!(
                !stdout.contains(&format!("PASS {name}")),
                "{name} {server}: {stdout}"
            );
            assert!(stdout.contains("1 not checked"), "{stdout}");
        }
    }
}
