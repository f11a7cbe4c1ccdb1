//! The floor: a bare loop that parses each line with serde_json and answers
//! with its id. No MCP, no validation, no capture: the least a server can do
//! per line, for the benchmark to compare against.

use std::io::{self, BufRead, Write};

use serde_json::Value;

fn main() -> io::Result<()> {
    let stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    for line in stdin.lines() {
        let line = line?;
        let Ok(frame) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(id) = frame.get("id") {
            writeln!(stdout, r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)?;
        }
    }
    Ok(())
}
