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
