//! `mcp-replay check` on inputs that are not plain files of a sane size:
//! FIFOs, pipes, devices, huge files, links, and paths spelled two ways.
//! Every read ends, within its limits, and leaves the other inputs checked.

use std::os::unix::fs::MetadataExt as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::check::{record, session};
use crate::util::fixture_server;

/// `mcp-replay check --no-probes <args>` in `dir`, killed (and the test
/// failed) if it outlives `deadline`.
fn check(dir: &Path, args: &[&str], deadline: Duration) -> std::process::Output {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay");
    cmd.current_dir(dir)
        .arg("check")
        .arg("--no-probes")
        .args(args)
        .env("NO_COLOR", "1")
        .timeout(deadline);
    let output = cmd.output().unwrap();
    assert!(
        output.status.code().is_some(),
        "check did not end within {deadline:?}: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    output
}

/// The same, against the fixture server answering with `server` flags.
fn replay(dir: &Path, args: &[&str], server: &[&str]) -> std::process::Output {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.push(fixture_server());
    all.extend(server);
    check(dir, &all, Duration::from_secs(60))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A directory with `transcripts/session.jsonl` recorded from the fixture.
fn recorded() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("transcripts")).unwrap();
    let path = dir.path().join("transcripts/session.jsonl");
    record(&path, &[], &session());
    (dir, path)
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn a_fifo_in_a_transcript_directory_is_skipped_and_the_rest_is_checked() {
    let (dir, _) = recorded();
    mkfifo(&dir.path().join("transcripts/stuck.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("transcripts/zero.jsonl")).unwrap();
    let output = replay(dir.path(), &["transcripts"], &[]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("  PASS transcripts/session.jsonl  6 exchanges"),
        "{stdout}"
    );
    assert!(
        stdout.contains("`transcripts/stuck.jsonl` is not a regular file (a FIFO); skipped"),
        "{stdout}"
    );
    assert!(
        stdout.contains("`transcripts/zero.jsonl` is not a regular file (a device); skipped"),
        "{stdout}"
    );
}

#[test]
fn a_fifo_named_as_the_baseline_is_reported_within_its_deadline() {
    let (dir, _) = recorded();
    mkfifo(&dir.path().join("baseline.json"));
    let output = replay(
        dir.path(),
        &["--baseline", "baseline.json", "transcripts"],
        &[],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot read baseline `baseline.json`"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "it is not a regular file, and it did not deliver all of its bytes within 10 s"
        ),
        "{stderr}"
    );
}

/// `--summary`, `--junit` and `--sarif` naming a FIFO are refused at once, with or
/// without a reader, where the open of the summary used to wait for one
/// past SIGTERM (the run handles it to stop its servers); the report is
/// still printed, and the run exits 2.
// See: #25
#[test]
fn a_report_file_that_is_a_fifo_is_refused_at_once() {
    let (dir, _) = recorded();
    mkfifo(&dir.path().join("summary.md"));
    let output = replay(dir.path(), &["--summary", "summary.md", "transcripts"], &[]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot write the Markdown summary `summary.md`")
            && stderr.contains("it is not a regular file (a FIFO)"),
        "{stderr}"
    );
    assert!(text(&output.stdout).contains("PASS transcripts/session.jsonl"));
    // A reader holds the FIFO open: the open would not wait, and the FIFO
    // is refused all the same.
    mkfifo(&dir.path().join("junit.xml"));
    let reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(dir.path().join("junit.xml"))
        .unwrap();
    let output = replay(dir.path(), &["--junit", "junit.xml", "transcripts"], &[]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot write the JUnit report `junit.xml`")
            && stderr.contains("it is not a regular file (a FIFO)"),
        "{stderr}"
    );
    drop(reader);
    mkfifo(&dir.path().join("report.sarif"));
    let output = replay(dir.path(), &["--sarif", "report.sarif", "transcripts"], &[]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("it is not a regular file (a FIFO)"),
        "{stderr}"
    );
}

/// A transcript header's `redact.patterns` of a few hundred bytes used to
/// compile to 256 MB before the replay began: a pattern that compiles past
/// its limit, or a list past its budget, is an error at the header's line
/// naming the pattern and the limit, and the transcript is not replayed.
// See: #25
#[test]
fn redaction_patterns_that_compile_to_megabytes_are_refused_at_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = |name: &str, patterns: Vec<String>| {
        let header = serde_json::json!({"format": "mcp-replay-transcript", "version": 1,
            "tool": "mcp-replay 0.1.0", "created": "2026-12-01T00:00:00Z",
            "command": ["true"], "redact": {"env": [], "patterns": patterns}});
        let ping = serde_json::json!({"t": 0.0, "dir": "c2s",
            "msg": {"jsonrpc": "2.0", "id": 1, "method": "ping"}});
        std::fs::write(dir.path().join(name), format!("{header}\n{ping}\n")).unwrap();
    };
    transcript("one.jsonl", vec![r"\w{100}".to_owned()]);
    transcript(
        "many.jsonl",
        (0..40).map(|n| format!(r"\w{{20}}{n}")).collect(),
    );
    for (name, why) in [
        (
            "one.jsonl",
            "invalid redaction pattern `\\w{100}`: it compiles to more than 2 MiB, the most mcp-replay compiles one pattern to (docs/limits.md)",
        ),
        (
            "many.jsonl",
            "it compiles to more than 16 MiB, the most mcp-replay compiles the patterns of one list to (docs/limits.md)",
        ),
    ] {
        let output = check(dir.path(), &[name, "--", "true"], Duration::from_secs(60));
        let stdout = text(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{stdout}");
        assert!(
            stdout.contains(&format!(
                "ERROR {name}:1: the header's redaction is unusable: "
            )),
            "{stdout}"
        );
        assert!(stdout.contains(why), "{stdout}");
    }
}

#[test]
fn a_transcript_given_as_a_pipe_is_read_once_and_replayed() {
    let (dir, path) = recorded();
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay");
    let output = cmd
        .current_dir(dir.path())
        .args(["check", "--no-probes", "/dev/stdin", "--", fixture_server()])
        .env("NO_COLOR", "1")
        .write_stdin(std::fs::read(&path).unwrap())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("  PASS /dev/stdin  6 exchanges"),
        "{stdout}"
    );

    // There is no file to bless: that is said, and nothing is written.
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("mcp-replay");
    let output = cmd
        .current_dir(dir.path())
        .args(["check", "--no-probes", "--bless", "/dev/stdin", "--"])
        .args([fixture_server(), "--echo-suffix", "!"])
        .env("NO_COLOR", "1")
        .write_stdin(std::fs::read(&path).unwrap())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("cannot bless `/dev/stdin`: it is not a regular file"),
        "{stdout}"
    );
}

#[test]
fn endless_and_huge_inputs_are_refused_with_their_limit() {
    let (dir, _) = recorded();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.jsonl")).unwrap();
    let output = replay(dir.path(), &["zero.jsonl"], &[]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains(
            "zero.jsonl:1:1: line 1 is longer than 128 MiB, the most mcp-replay reads as one transcript line"
        ),
        "{stdout}"
    );

    let sparse = std::fs::File::create(dir.path().join("sparse.jsonl")).unwrap();
    sparse.set_len(300 * 1024 * 1024).unwrap();
    let output = replay(dir.path(), &["sparse.jsonl"], &[]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains(
            "cannot read transcript `sparse.jsonl`: it is 300 MiB, more than the 256 MiB mcp-replay reads"
        ),
        "{stdout}"
    );

    let output = replay(dir.path(), &["--baseline", "/dev/zero", "transcripts"], &[]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("it is longer than the 64 MiB mcp-replay reads"),
        "{stderr}"
    );
}

#[test]
fn bless_writes_through_a_symbolic_link_and_keeps_it() {
    let (dir, path) = recorded();
    let real = dir.path().join("real.jsonl");
    std::fs::rename(&path, &real).unwrap();
    std::os::unix::fs::symlink("../real.jsonl", &path).unwrap();
    let output = replay(
        dir.path(),
        &["--bless", "transcripts"],
        &["--echo-suffix", "!"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let meta = std::fs::symlink_metadata(&path).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    let blessed = std::fs::read_to_string(&real).unwrap();
    assert!(blessed.contains("\"text\":\"hello!\""), "{blessed}");
}

#[test]
fn bless_rewrites_a_hard_linked_transcript_for_every_name() {
    let (dir, path) = recorded();
    let other = dir.path().join("other-name.jsonl");
    std::fs::hard_link(&path, &other).unwrap();
    let output = replay(
        dir.path(),
        &["--bless", "transcripts"],
        &["--echo-suffix", "!"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert_eq!(std::fs::metadata(&path).unwrap().nlink(), 2);
    let blessed = std::fs::read_to_string(&other).unwrap();
    assert!(blessed.contains("\"text\":\"hello!\""), "{blessed}");
    assert_eq!(blessed, std::fs::read_to_string(&path).unwrap());
}

#[test]
fn a_baseline_matches_a_path_however_it_is_spelled() {
    let (dir, _) = recorded();
    let changed = ["--echo-suffix", "!"];
    let output = replay(
        dir.path(),
        &["--write-baseline", "baseline.json", "./transcripts/"],
        &changed,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let baseline = std::fs::read_to_string(dir.path().join("baseline.json")).unwrap();
    assert!(
        baseline.contains("\"transcript\": \"transcripts/session.jsonl\""),
        "{baseline}"
    );
    let output = replay(
        dir.path(),
        &["--baseline", "baseline.json", "transcripts"],
        &changed,
    );
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(" KNOWN transcripts/session.jsonl"),
        "{stdout}"
    );
    // From another directory, the same baseline names the same file.
    let output = replay(
        &dir.path().join("transcripts"),
        &["--baseline", "../baseline.json", "."],
        &[],
    );
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(" STALE transcript-match transcripts/session.jsonl:"),
        "{stdout}"
    );
}
