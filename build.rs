//! Names the build for `mcp-replay --version`: the package version, the git
//! commit and its date when built from a checkout, and the target triple.
//!
//! Outside a checkout (a crate download, a source archive, no `git` on the
//! PATH) the commit is left out; nothing here can fail the build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MCP_REPLAY_BUILD_COMMIT");

    // A packager that builds from an exported tree can still name the commit.
    let commit = match std::env::var("MCP_REPLAY_BUILD_COMMIT") {
        Ok(given) if !given.trim().is_empty() => Some(given.trim().to_owned()),
        _ => git_commit(&manifest_dir),
    };
    let build = match commit {
        Some(commit) => format!("{version} ({commit}, {target})"),
        None => format!("{version} ({target})"),
    };
    println!("cargo:rustc-env=MCP_REPLAY_VERSION={build}");
}

/// `abbrev-hash date` of HEAD, or `None` where the tree is not a git
/// checkout of this crate.
fn git_commit(dir: &Path) -> Option<String> {
    // Only the crate's own repository names the build: a crate unpacked
    // inside some other checkout (a vendor directory) must not take its HEAD.
    let toplevel = git(dir, &["rev-parse", "--show-toplevel"])?;
    if Path::new(&toplevel).canonicalize().ok()? != dir.canonicalize().ok()? {
        return None;
    }
    let line = git(dir, &["log", "-1", "--format=%h %cs", "--abbrev=9"])?;
    watch_head(dir);
    Some(line)
}

/// Asks cargo to run this again when HEAD moves: the HEAD file of the work
/// tree, the branch it names, and the packed refs the branch may live in.
fn watch_head(dir: &Path) {
    let Some(git_dir) = git(dir, &["rev-parse", "--absolute-git-dir"]) else {
        return;
    };
    let git_dir = PathBuf::from(git_dir);
    println!("cargo:rerun-if-changed={}", git_dir.join("HEAD").display());
    let common = git(dir, &["rev-parse", "--git-common-dir"])
        .map(|common| dir.join(common))
        .unwrap_or_else(|| git_dir.clone());
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        let path = common.join(&branch);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let packed = common.join("packed-refs");
    if packed.exists() {
        println!("cargo:rerun-if-changed={}", packed.display());
    }
}

/// The trimmed stdout of a successful `git ARGS` in `dir`.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}
