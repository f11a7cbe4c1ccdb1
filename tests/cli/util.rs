//! Helpers shared by the command-line tests: binaries, commands, lines.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The fixture server binary.
pub fn fixture_server() -> &'static str {
    env!("CARGO_BIN_EXE_fixture-server")
}

/// The fixture server with `args`, fed `stdin` and killed if it outlives a
/// generous deadline.
pub fn fixture_cmd(args: &[&str]) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(fixture_server());
    cmd.args(args).timeout(Duration::from_secs(60));
    cmd
}

/// A deadline generous enough for a loaded machine.
pub fn soon() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

/// A request line.
pub fn request(id: Value, method: &str, params: Value) -> String {
    let mut line = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if !params.is_null() {
        line["params"] = params;
    }
    line.to_string()
}

/// A notification line.
pub fn notification(method: &str) -> String {
    json!({"jsonrpc": "2.0", "method": method}).to_string()
}

/// The `initialize` request a probe or host sends first.
pub fn initialize(id: i64) -> String {
    request(
        json!(id),
        "initialize",
        json!({
            "protocolVersion": "2024-11-05",
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
        }),
    )
}

/// Lines joined with newlines, each terminated.
pub fn script(lines: &[String]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// stdout parsed as one JSON value per line.
pub fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// The pids of live processes whose command line holds `marker`.
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let holds = cmdline
            .split(|b| *b == 0)
            .any(|arg| arg == marker.as_bytes());
        if holds {
            found.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    found
}

/// Compares `actual` with the golden file `tests/golden/<name>`, after
/// redacting what changes from run to run: timings become `[ELAPSED]`,
/// temporary directories `[TMP]`, process ids `[PID]`.
///
/// With `MCP_REPLAY_BLESS=1` the golden file is rewritten instead.
pub fn assert_golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let actual = redact(actual);
    match std::env::var("MCP_REPLAY_BLESS").as_deref() {
        Ok("1") => {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &actual).unwrap();
            return;
        }
        Ok("" | "0") | Err(_) => {}
        Ok(other) => panic!("MCP_REPLAY_BLESS={other:?}: set it to 1 to rewrite golden files"),
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .header(&path.display().to_string(), "actual")
            .to_string();
        panic!(
            "{} differs from the output:\n{diff}\nhint: accept the new output with `MCP_REPLAY_BLESS=1 cargo test`",
            path.display()
        );
    }
}

fn redact(text: &str) -> String {
    let tmp = regex::escape(&std::env::temp_dir().display().to_string());
    let rules = [
        (r"\d+\.\d{3}s\b".to_owned(), "[ELAPSED]"),
        (
            r#""elapsed_ms":\d+"#.to_owned(),
            r#""elapsed_ms":"[ELAPSED]""#,
        ),
        (r#"time="\d+\.\d{3}""#.to_owned(), r#"time="[ELAPSED]""#),
        (format!(r"{tmp}/\.tmp[A-Za-z0-9]+"), "[TMP]"),
        (r"\bpid \d+".to_owned(), "pid [PID]"),
    ];
    let mut text = text.to_owned();
    for (pattern, replacement) in rules {
        let regex = regex::Regex::new(&pattern).expect("a valid redaction");
        text = regex.replace_all(&text, replacement).into_owned();
    }
    text
}
