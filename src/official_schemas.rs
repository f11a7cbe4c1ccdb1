//! The official MCP schemas, for the tests that hold the crate to them
//! (`revision`, `model`'s cross-check, the server's contract and era
//! tests).
//!
//! The schemas are not part of the repository. The tests read them from
//! the directory that `MCP_REPLAY_SCHEMAS` names, or else from
//! `../shared/spec/schema/` beside the project, as `<rev>/schema.json`: the
//! layout of the `schema/` folder of the MCP specification's repository
//! (github.com/modelcontextprotocol/modelcontextprotocol), which a
//! developer can point the variable at.
//!
//! Where neither has them, each such test says on stderr that it did not
//! run and how to run it, and passes, so that `cargo test` passes in a
//! clone that has nothing beside it. `MCP_REPLAY_REQUIRE_SCHEMAS=1` turns
//! that into a failure: CI sets it, so the cross-checks cannot stop
//! running there unnoticed.

use std::io::Write;
use std::path::PathBuf;

use serde_json::Value;

/// The variable that names the directory of the schemas.
const DIR_VAR: &str = "MCP_REPLAY_SCHEMAS";

/// The variable that makes missing schemas a failure.
const REQUIRE_VAR: &str = "MCP_REPLAY_REQUIRE_SCHEMAS";

/// Where the schemas are looked for, and whether the place was asked for.
fn dir() -> (PathBuf, bool) {
    match std::env::var_os(DIR_VAR) {
        Some(dir) if !dir.is_empty() => (PathBuf::from(dir), true),
        _ => (
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../shared/spec/schema"
            )),
            false,
        ),
    }
}

/// The official `schema.json` of each of `revisions`, parsed, in order; or
/// `None` when the schemas are not at hand, after a line on stderr that
/// names `test` and how to run it.
///
/// # Panics
///
/// When the schemas are not at hand and `MCP_REPLAY_REQUIRE_SCHEMAS=1`;
/// when `MCP_REPLAY_SCHEMAS` names a directory that lacks one of them; when
/// a file is there but unreadable or not JSON.
pub(crate) fn schemas<R: std::fmt::Display>(test: &str, revisions: &[R]) -> Option<Vec<Value>> {
    let (dir, asked) = dir();
    if !asked && !dir.is_dir() {
        let how = format!(
            "the official MCP schemas are not at {} (set {DIR_VAR}=DIR, DIR/<rev>/schema.json, to a copy of the schema/ folder of github.com/modelcontextprotocol/modelcontextprotocol)",
            dir.display()
        );
        let required = std::env::var_os(REQUIRE_VAR).is_some_and(|value| value == "1");
        assert!(
            !required,
            "{test}: {how}, and {REQUIRE_VAR}=1 requires them"
        );
        // Straight to the process's stderr, past the test harness's
        // capture, so that the run shows it.
        let _ = writeln!(
            std::io::stderr(),
            "note: {test} did not run: {how}; {REQUIRE_VAR}=1 makes this a failure"
        );
        return None;
    }
    let documents = revisions
        .iter()
        .map(|revision| {
            let path = dir.join(revision.to_string()).join("schema.json");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|err| panic!("{test}: {}: {err}", path.display()));
            serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{test}: {}: {err}", path.display()))
        })
        .collect();
    Some(documents)
}

/// The official `schema.json` of `revision`: [`schemas`] for one.
pub(crate) fn schema(test: &str, revision: impl std::fmt::Display) -> Option<Value> {
    schemas(test, &[revision]).map(|mut documents| documents.remove(0))
}
