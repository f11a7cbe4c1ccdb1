//! The notes example (`examples/notes.rs`), a server with a typed tool, a
//! tool that reports progress, resources, a prompt and a method of its own:
//! held to every law of the `core` profile, and replaying the sessions an
//! official SDK client recorded against it.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin_cmd;

/// The notes example's binary, built first: `cargo test` builds examples
/// already, `cargo test --test cli` does not, and an earlier build may be
/// stale.
fn notes() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_mcp-replay"));
    let profile_dir = bin
        .parent()
        .expect("the binary sits in a profile directory");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "--example", "notes"])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile_dir
        .file_name()
        .is_some_and(|name| name == "release")
    {
        build.arg("--release");
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "cargo build --example notes: {status}");
    let example = profile_dir.join("examples").join("notes");
    assert!(example.is_file(), "{} is built", example.display());
    example
}

#[test]
fn the_notes_example_keeps_every_core_law() {
    let output = cargo_bin_cmd!("mcp-replay")
        .args(["check", "--profile", "core", "--no-replay", "--"])
        .arg(notes())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("laws held"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

/// The sessions of the official SDK clients (recorded by
/// `scripts/record-notes.sh`: Python in each era, TypeScript on 2025-11-25)
/// replay against the example as recorded.
#[test]
fn the_sdk_sessions_recorded_from_the_notes_example_replay() {
    let transcripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/notes/transcripts");
    for name in [
        "python-sdk.jsonl",
        "python-sdk-legacy.jsonl",
        "typescript-sdk.jsonl",
    ] {
        assert!(transcripts.join(name).is_file(), "{name} is bundled");
    }
    let output = cargo_bin_cmd!("mcp-replay")
        .args(["check", "--profile", "core", "--no-probes"])
        .arg(&transcripts)
        .arg("--")
        .arg(notes())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("3 transcripts"), "{stdout}");
}
