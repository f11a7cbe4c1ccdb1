//! `mcp-replay --version`: the build it names.

use std::process::Command;

use super::util::bin;

/// The short commit of the crate's checkout, where the tests run from one.
fn checkout_commit() -> Option<String> {
    let output = Command::new("git")
        .args(["rev-parse", "--short=9", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

#[test]
fn version_names_the_package_version_the_commit_and_the_target() {
    let output = Command::new(bin()).arg("--version").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let line = text.trim_end();
    let prefix = format!("mcp-replay {} (", env!("CARGO_PKG_VERSION"));
    assert!(line.starts_with(&prefix), "{line}");
    assert!(line.ends_with(')'), "{line}");
    let target = format!("{}-", std::env::consts::ARCH);
    assert!(line.contains(&target), "no target triple: {line}");
    assert!(
        line.contains(std::env::consts::OS),
        "no target triple: {line}"
    );
    if let Some(commit) = checkout_commit() {
        assert!(line.contains(&commit), "no commit {commit}: {line}");
    }
}
